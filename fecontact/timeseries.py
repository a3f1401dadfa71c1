"""Run a dynamic case: time stepping, time series in ``summary.json``, VTU/PVD and the PNG plot.

``summary.json`` of a dynamic case holds, besides the usual header,

``steps``
    One record per output time (every ``dynamics.output_every`` steps): time,
    Newton iterations since the previous output, open/stick/slip counts and
    the energy ledger.
``time_series``
    Arrays over every time step: ``t``, the energies (``kinetic``,
    ``strain``, ``external_work``, ``contact_work``, ``projection_work``,
    ``friction_dissipation``, ``damping_dissipation``, ``total``,
    ``balance_error``), ``newton_iterations``, ``cutbacks``, ``open``,
    ``stick``, ``slip``, ``max_slip`` (largest accumulated slip of a contact
    node), per spring ``spring_force``, ``spring_stretch`` and
    ``spring_velocity`` (the weighted mean velocity of its nodes), per contact
    pair ``slip_velocity`` (mean over closed nodes, ``dim`` components) and per
    body ``centroid_displacement`` and ``centroid_velocity``.
``energy``
    The final ledger and the largest balance error relative to the largest
    energy of the run.

Every output time is on disk before the next step is taken; a run that
fails keeps them and records ``converged: false`` with the reason.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from .dynamics import DynamicAnalysis
from .output import write_pvd, write_summary, write_vtu

logger = logging.getLogger(__name__)

ENERGY_KEYS = ("kinetic", "strain", "external_work", "contact_work", "projection_work",
               "friction_dissipation", "damping_dissipation", "total", "balance_error")


class TimeSeries:
    """Accumulates :class:`fecontact.dynamics.TimeRecord` into named arrays."""

    def __init__(self, problem):
        self.problem = problem
        sysm = problem.system
        self.data: dict = {"t": [], "newton_iterations": [], "cutbacks": [], "open": [],
                           "stick": [], "slip": [], "max_slip": []}
        for key in ENERGY_KEYS:
            self.data[key] = []
        self.springs = [s.name for s in sysm.springs]
        self.pairs = [p.name for p in problem.pairs]
        self.bodies = [b.name for b in sysm.bodies]
        for key in ("spring_force", "spring_stretch", "spring_velocity"):
            self.data[key] = {n: [] for n in self.springs}
        self.data["slip_velocity"] = {n: [] for n in self.pairs}
        for key in ("centroid_displacement", "centroid_velocity"):
            self.data[key] = {n: [] for n in self.bodies}

    def append(self, rec) -> None:
        d = self.data
        for key in ("t", "newton_iterations", "cutbacks", "open", "stick", "slip", "max_slip"):
            d[key].append(getattr(rec, key))
        for key in ENERGY_KEYS:
            d[key].append(rec.energy[key])
        for name, (force, stretch, velocity) in zip(self.springs, rec.springs):
            d["spring_force"][name].append(force)
            d["spring_stretch"][name].append(stretch)
            d["spring_velocity"][name].append(velocity)
        for name, v in zip(self.pairs, rec.slip_velocity):
            d["slip_velocity"][name].append(list(v))
        for name, (x, v) in zip(self.bodies, rec.centroid):
            d["centroid_displacement"][name].append(list(x))
            d["centroid_velocity"][name].append(list(v))


def _energy_summary(series: dict) -> dict:
    scale = max(max(abs(x) for x in series["total"]), max(abs(x) for x in series["external_work"]),
                1e-300)
    last = {key: series[key][-1] for key in ENERGY_KEYS}
    last["max_balance_error_relative"] = max(abs(x) for x in series["balance_error"]) / scale
    return last


def run_dynamic_case(model, name: str, case_path, out: Path, vtu: bool, overrides, t_start: float):
    """Integrate a dynamic case and write its outputs (see the module docstring)."""
    from .dynamic_metrics import evaluate_dynamic_reference
    from .run import RunResult
    from .timeplot import plot_time_series

    problem, opts = model.problem, model.dynamics
    analysis = DynamicAnalysis(problem, opts, model.newton, model.stepping, model.backend,
                               model.initial_velocity)
    i = opts.integrator
    summary = {
        "case": name, "case_file": str(case_path), "analysis": "dynamic", "dim": problem.dim,
        "dofs": int(problem.system.n_dofs), "reduced_dofs": int(problem.system.n_reduced),
        "contact_nodes": int(problem.n_contact), "overrides": list(overrides),
        "integrator": {"name": i.name, "beta": i.beta, "gamma": i.gamma, "alpha_m": i.alpha_m,
                       "alpha_f": i.alpha_f},
        "dt": opts.dt, "t_end": opts.t_end, "contact_mass": opts.contact_mass,
        "project_velocities": opts.project_velocities and opts.contact_mass == "consistent",
        "converged": False, "steps": [],
    }
    series = TimeSeries(problem)
    pvd_entries: list = []
    encoded_steps: list = []
    counted = [0]

    def on_output(index, current, history):
        st = current.state
        if vtu:
            fname = f"step_{index:05d}.vtu"
            d = problem.dim
            write_vtu(out / fname, problem, st,
                      {"velocity": current.velocity.reshape(-1, d),
                       "acceleration": current.acceleration.reshape(-1, d)})
            pvd_entries.append((st.t, fname))
            write_pvd(out / f"{name}.pvd", pvd_entries)
        data = series.data
        iterations = int(sum(data["newton_iterations"][counted[0]:]))
        counted[0] = len(data["t"])
        summary["steps"].append({
            "time": st.t, "step": index, "converged": True, "newton_iterations": iterations,
            "open": int(np.sum(st.status == 0)), "stick": int(np.sum(st.status == 1)),
            "slip": int(np.sum(st.status == 2)), "energy": current.ledger.as_dict(),
            "iterations": [h.as_dict() for h in history]})
        summary["time_series"] = data
        summary["energy"] = _energy_summary(data)
        write_summary(out / "summary.json", summary, encoded_steps)

    try:
        final, records, failure = analysis.run(on_record=series.append, on_output=on_output)
    except RuntimeError as err:          # no static initial state
        final, records, failure = None, [], str(err)
    summary["converged"] = not failure
    if failure:
        summary["reason"] = failure
    summary["time_series"] = series.data
    if series.data["t"]:
        summary["energy"] = _energy_summary(series.data)
        if not failure:
            summary["metrics"] = evaluate_dynamic_reference(model, series.data)
    summary["timings"] = {"total": time.perf_counter() - t_start,
                          "linear_solve": analysis.timings["linear_solve"],
                          "contact": analysis.timings["contact"]}
    summary["max_newton_iterations_per_step"] = max(series.data["newton_iterations"], default=0)
    write_summary(out / "summary.json", summary, encoded_steps)
    if series.data["t"]:
        try:
            plot_time_series(series.data, out / "time_series.png", name)
        except Exception as err:        # a plot must never lose the results
            logger.warning("time-series plot not written: %s", err)
    state = final.state if final is not None else problem.initial_state()
    return RunResult(model, state, summary, out)
