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
from dataclasses import fields
from pathlib import Path

import numpy as np

from ..analysis.contact_results import pair_results
from ..analysis.dynamic import DynamicAnalysis
from ..analysis.dynamic_records import DynamicState
from ..analysis.energy import EnergyLedger, StepForces
from ..friction import status_counts
from ..references.dynamic_metrics import evaluate_dynamic_reference
from ..visuals.timeplot import plot_time_series
from .driver import Outcome, RunAnalysis
from .folder import WrittenStep
from .result import written_state
from .summary import DynamicSettings
from .verify import residual_check

logger = logging.getLogger(__name__)

ENERGY_KEYS = ("kinetic", "strain", "external_work", "contact_work", "projection_work",
               "friction_dissipation", "damping_dissipation", "total", "balance_error")


class TimeSeries:
    """Accumulates :class:`fecontact.analysis.dynamic_records.TimeRecord` into named arrays.

    Parameters
    ----------
    problem : ContactProblem
        The problem (its springs, contact pairs and bodies name the series).

    Attributes
    ----------
    data : dict
        The ``time_series`` of ``summary.json`` (see the module docstring).
    """

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
        """Add one time step.

        Parameters
        ----------
        rec : TimeRecord
            The record of the step.
        """
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


class DynamicRun(RunAnalysis):
    """Time integration as the run driver sees it (:class:`~fecontact.run.driver.RunAnalysis`).

    Parameters
    ----------
    model : CaseModel
        A dynamic case.
    name : str
        Case name (the plot's title).

    Attributes
    ----------
    analysis : fecontact.analysis.dynamic.DynamicAnalysis
        The time stepping.
    series : TimeSeries
        Every time step so far (the restarted run's included).
    counted : int
        Time steps whose Newton iterations are in a step entry already.
    """

    kind = "dynamic"

    def __init__(self, model, name: str):
        self.model, self.name = model, name
        self.problem = problem = model.problem
        self.options = opts = model.dynamics
        self.analysis = DynamicAnalysis(problem, opts, model.newton, model.stepping, model.backend,
                                        model.initial_velocity)
        self.total = self.analysis.n_steps
        self.series = TimeSeries(problem)
        self.start = problem.initial_state()
        self.resume_from: tuple | None = None
        self.counted = 0

    def header(self) -> dict:
        """The integrator, time step, end time and contact-mass treatment.

        Returns
        -------
        dict
            ``{"dynamics": DynamicSettings}``.
        """
        opts = self.options
        i = opts.integrator
        return {"dynamics": DynamicSettings(
            integrator={"name": i.name, "beta": i.beta, "gamma": i.gamma, "alpha_m": i.alpha_m,
                        "alpha_f": i.alpha_f},
            dt=opts.dt, t_end=opts.t_end, contact_mass=opts.contact_mass,
            project_velocities=opts.project_velocities and opts.contact_mass == "consistent")}

    def resume(self, cp, old: dict) -> list:
        """Continue after ``cp.index`` time steps with the velocities, forces and ledger saved.

        Parameters
        ----------
        cp : Checkpoint
            A dynamic restart file short of ``t_end``.
        old : dict
            The folder's summary (its time series up to ``cp.index`` is kept).

        Returns
        -------
        list of dict
            The step entries of ``old`` up to time step ``cp.index``.
        """
        self.series.data = _truncate(old.get("time_series", self.series.data), cp.index + 1)
        self.counted = len(self.series.data["t"])
        self.resume_from = (cp.index, _dynamic_state(cp))
        self.start = cp.state
        return [s for s in old.get("steps", []) if s["step"] <= cp.index]

    def progress(self) -> dict:
        """The time series and the energy summary, renewed with every output time.

        Returns
        -------
        dict
            ``time_series`` and ``energy``.
        """
        data = self.series.data
        return {"time_series": data, "energy": _energy_summary(data)}

    def advance(self, write) -> Outcome:
        """Integrate to ``t_end``, writing every ``output_every`` steps and the last.

        Parameters
        ----------
        write : callable(WrittenStep)
            Puts an output time on disk.

        Returns
        -------
        Outcome
            The state reached and, on failure, why; a missing static initial
            state is a failure, not an error.
        """
        problem = self.problem

        def on_output(index, current, history):
            st = current.state
            data = self.series.data
            iterations = int(sum(data["newton_iterations"][self.counted:]))
            self.counted = len(data["t"])
            entry = {
                "time": st.t, "step": index, "converged": True, "newton_iterations": iterations,
                **status_counts(st.status)._asdict(), "energy": current.ledger.as_dict(),
                "iterations": [h.as_dict() for h in history]}
            d = problem.dim
            write(WrittenStep(index=index, state=st, entry=entry, vtu=f"step_{index:05d}.vtu",
                              time=st.t, arrays=_dynamic_arrays(current),
                              point_data={"velocity": current.velocity.reshape(-1, d),
                                          "acceleration": current.acceleration.reshape(-1, d)}))

        try:
            final, _, failure = self.analysis.run(on_record=self.series.append, on_output=on_output,
                                                  resume=self.resume_from)
        except RuntimeError as err:          # no static initial state
            return Outcome(failure=str(err))
        return Outcome(state=final.state, failure=failure)

    def check(self, out: Path, state):
        """The residual check of the written final state with the bulk terms of its time step.

        Parameters
        ----------
        out : Path
            The output folder.
        state : StepState
            The final state.

        Returns
        -------
        ResidualCheck or None
            ``None`` when the terms of the step that produced ``state`` are
            gone (interrupted between output times).
        """
        last = self.analysis.last_step
        terms = last[1] if last is not None else None
        if terms is None or abs(terms.t0 + terms.dt - state.t) > 1e-9 * self.options.dt:
            return None
        return residual_check(self.problem, written_state(out, self.model.case, self.problem, state),
                              bulk=terms)

    def conclusion(self, state, steps: list, interrupted: bool, elapsed: float) -> dict:
        """The time series, energy summary, timings and largest Newton count of a time step.

        Parameters
        ----------
        state : StepState
            The final state.
        steps : list of dict
            The step entries.
        interrupted : bool
            Stopped by a signal.
        elapsed : float
            Wall time up to the conclusion.

        Returns
        -------
        dict
            ``time_series``, ``pairs``, ``timings``, ``max_newton_iterations_per_step``,
            ``backend`` (the linear-solver backends the time steps used, by name) and,
            once a time step is recorded, ``energy``.
        """
        data = self.series.data
        out = {"time_series": data,
                  "coupling_displacement":
                      self.model.problem.system.coupling_displacements(state.u) or None,
                  "pairs": [p.as_dict() for p in pair_results(self.model.problem, state)],
                  "timings": {"total": elapsed,
                              "linear_solve": self.analysis.timings["linear_solve"],
                              "contact": self.analysis.timings["contact"]},
                  "max_newton_iterations_per_step": max(data["newton_iterations"], default=0),
                  "backend": ", ".join(self.analysis.backend_names) or None}
        if data["t"]:
            out["energy"] = _energy_summary(data)
        return out

    def metrics(self, state) -> dict:
        """Comparison with the case's dynamic reference.

        Parameters
        ----------
        state : StepState
            The final state (the reference judges the time series).

        Returns
        -------
        dict
            :func:`fecontact.references.dynamic_metrics.evaluate_dynamic_reference`.
        """
        return evaluate_dynamic_reference(self.model, self.series.data)

    def finish(self, out: Path) -> None:
        """The time-series plot ``time_series.png`` (a failed plot is only a warning).

        Parameters
        ----------
        out : Path
            The output folder.
        """
        if self.series.data["t"]:
            try:
                plot_time_series(self.series.data, out / "time_series.png", self.name)
            except Exception as err:        # a plot must never lose the results
                logger.warning("time-series plot not written: %s", err)

