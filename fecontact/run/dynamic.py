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
from dataclasses import fields
from pathlib import Path

import numpy as np

from ..analysis.dynamic import DynamicAnalysis
from ..analysis.dynamic_records import DynamicState
from ..analysis.energy import EnergyLedger, StepForces
from .interrupts import Interrupted, critical
from .folder import RunFolder
from ..visuals.timeplot import plot_time_series
from .verify import residual_check

logger = logging.getLogger(__name__)

ENERGY_KEYS = ("kinetic", "strain", "external_work", "contact_work", "projection_work",
               "friction_dissipation", "damping_dissipation", "total", "balance_error")


class TimeSeries:
    """Accumulates :class:`fecontact.analysis.dynamic_records.TimeRecord` into named arrays."""

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


def _dynamic_arrays(current) -> dict:
    """Restart arrays of a DynamicState beyond its StepState."""
    out = {"velocity": current.velocity, "acceleration": current.acceleration}
    for f in fields(StepForces):
        out[f"forces.{f.name}"] = getattr(current.forces, f.name)
    for f in fields(EnergyLedger):
        out[f"ledger.{f.name}"] = getattr(current.ledger, f.name)
    return out


def _dynamic_state(cp) -> DynamicState:
    a = cp.arrays
    forces = StepForces(**{f.name: np.array(a[f"forces.{f.name}"]) for f in fields(StepForces)})
    ledger = EnergyLedger(**{f.name: float(a[f"ledger.{f.name}"]) for f in fields(EnergyLedger)})
    return DynamicState(cp.state, np.array(a["velocity"]), np.array(a["acceleration"]), forces, ledger)


def _truncate(series, n: int):
    """The first ``n`` entries of every list in a (nested) time-series dict."""
    if isinstance(series, dict):
        return {k: _truncate(v, n) for k, v in series.items()}
    return list(series[:n])


def run_dynamic_case(model, name: str, case_path, out: Path, vtu: bool, overrides, t_start: float,
                     cp=None):
    """Integrate a dynamic case and write its outputs (see the module docstring).

    ``cp`` is a :class:`fecontact.run.checkpoint.Checkpoint` to continue from.
    """
    from .checkpoint import RestartError, fingerprint
    from ..references.dynamic_metrics import evaluate_dynamic_reference
    from .result import RunResult, conclude, written_state

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
    n_steps = analysis.n_steps
    folder = RunFolder(out, name, problem, summary, vtu, fingerprint(model.case), "dynamic", n_steps)
    series = TimeSeries(problem)
    resume = None
    if cp is not None:
        if cp.analysis != "dynamic" or cp.index >= n_steps:
            raise RestartError(f"{out}: the run there is "
                               f"{'complete' if cp.index >= n_steps else 'quasi-static'}; "
                               f"nothing to continue")
        old = folder.resume(cp, lambda steps: [s for s in steps if s["step"] <= cp.index])
        series.data = _truncate(old.get("time_series", series.data), cp.index + 1)
        resume = (cp.index, _dynamic_state(cp))
    counted = [len(series.data["t"])]
    written = [resume[1] if resume is not None else None]

    def on_output(index, current, history):
        written[0] = current
        st = current.state
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
        d = problem.dim
        folder.step(index, st, f"step_{index:05d}.vtu", st.t, _dynamic_arrays(current),
                    {"velocity": current.velocity.reshape(-1, d),
                     "acceleration": current.acceleration.reshape(-1, d)})

    interrupted = None
    final, failure = None, ""
    try:
        final, records, failure = analysis.run(on_record=series.append, on_output=on_output,
                                               resume=resume)
    except RuntimeError as err:          # no static initial state
        failure = str(err)
    except Interrupted as err:
        interrupted = err
    with critical():
        done = summary["steps"][-1]["step"] if summary["steps"] else 0
        if failure:
            summary["reason"] = failure
        elif interrupted is not None:
            summary["reason"] = (f"interrupted by {interrupted.name} after {done} of {n_steps} "
                                 f"steps; continue with: fecontact run {case_path} --restart {out}")
        summary["time_series"] = series.data
        if series.data["t"]:
            summary["energy"] = _energy_summary(series.data)
        last = final if final is not None else written[0]      # interrupted: the last output
        state = last.state if last is not None else problem.initial_state()
        check = None
        terms = analysis.last_step[1] if analysis.last_step is not None else None
        # the check needs the bulk terms of the time step that produced ``state``
        if terms is not None and abs(terms.t0 + terms.dt - state.t) <= 1e-9 * opts.dt:
            check = residual_check(problem, written_state(out, model.case, problem, state),
                                   bulk=terms)
            summary["check"] = check.as_dict()
        solved = not failure and interrupted is None and check is not None
        if check is not None:
            conclude(summary, solved, check)
        if summary["converged"]:
            summary["metrics"] = evaluate_dynamic_reference(model, series.data)
        summary["timings"] = {"total": time.perf_counter() - t_start,
                              "linear_solve": analysis.timings["linear_solve"],
                              "contact": analysis.timings["contact"]}
        summary["max_newton_iterations_per_step"] = max(series.data["newton_iterations"], default=0)
        folder.write_summary()
    if series.data["t"]:
        try:
            plot_time_series(series.data, out / "time_series.png", name)
        except Exception as err:        # a plot must never lose the results
            logger.warning("time-series plot not written: %s", err)
    if interrupted is not None:
        raise interrupted
    return RunResult(model, state, summary, out)
