"""Run a case end to end: build, step, write results, compare with the reference.

Every accepted output level is on disk (VTU, ``.pvd``, ``summary.json`` and
the restart file) before the next one starts, so a run that fails later
loses nothing and can be continued (``restart``).  The final state is
checked independently of the solver (:mod:`fecontact.run.verify`); a run is
``converged`` only if that check passes.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..analysis.contact_results import pair_results
from ..analysis.nested import NestedPrediction
from ..analysis.static import Progress, run_steps
from ..case.build import CaseModel, build_model
from ..case.checks import model_findings
from ..case.schema import CaseError, load_case
from ..friction import closed
from ..references.dynamic_metrics import dynamic_reference_findings
from ..references.metrics import evaluate_reference, reference_findings
from ..solve.backends import make_backend
from ..solve.factor import factorized_reference_solve
from . import checkpoint
from .consistency import check_folder
from .driver import FailedStep, Outcome, RunAnalysis, RunSetup, drive
from .folder import WrittenStep, lock_folder, open_folder
from .interrupts import Interrupted, handled
from .result import RunResult, written_state
from .verify import residual_check

logger = logging.getLogger(__name__)


def linear_reference_seconds(model: CaseModel, t: float, backend=None) -> float:
    """Wall time of one plain linear-elastic solve of the same system, from scratch.

    The backend's :meth:`~fecontact.solve.backends.LinearBackend.reference_solve`:
    with a Krylov backend, the same preconditioner is set up again and the
    same projected GMRES (without contact) solves to the tolerance of the
    last Newton step; otherwise the stiffness is factorised and solved once
    (also without a backend).

    Parameters
    ----------
    model : CaseModel
        The built case.
    t : float
        Load level of the external forces.
    backend : LinearBackend, optional
        The backend of the contact solves.

    Returns
    -------
    float
        Seconds (also when the solve fails: it is logged).
    """
    sysm = model.problem.system
    # the linear-elastic system (also for bodies in finite strain: their K at u = 0)
    rhs = sysm.T.T @ (sysm.external_force(t) - sysm.bulk_force(sysm.prescribed(t))) + sysm.coupling_force(t)
    tic = time.perf_counter()
    try:
        if backend is None:
            factorized_reference_solve(sysm, rhs)
        else:
            backend.reference_solve(rhs)
    except RuntimeError as err:
        logger.info("linear reference solve failed: %s", err)
    return time.perf_counter() - tic


def prepare(case_path, overrides=()):
    """Read, build and check a case: ``(case, model)``.

    Parameters
    ----------
    case_path : str or Path
        The case file (TOML).
    overrides : sequence of str
        ``key.path=value`` overrides.

    Returns
    -------
    (dict, CaseModel)
        The case as read and the model built from it.

    Raises
    ------
    CaseError
        One line per problem found (:mod:`fecontact.case.schema`, :mod:`fecontact.case.build`,
        :mod:`fecontact.case.checks`, and the case's reference: what it needs
        from the case is resolved before anything is solved).
    """
    case = load_case(case_path, overrides)
    model = build_model(case)
    findings = model_findings(model) + (reference_findings(model) if model.dynamics is None
                                        else dynamic_reference_findings(model))
    if findings:
        raise CaseError("\n".join(findings))
    return case, model


class StaticRun(RunAnalysis):
    """Quasi-static load stepping as the run driver sees it (:class:`~fecontact.run.driver.RunAnalysis`).

    Parameters
    ----------
    model : CaseModel
        A static case.

    Attributes
    ----------
    backend
        The linear-solver backend (:func:`fecontact.solve.backends.make_backend`).
    setup_seconds : float
        Time to set the backend up.
    records : list of StepRecord
        The levels solved by this process (empty when interrupted).
    timings : dict
        ``linear_solve`` and ``contact`` seconds of the stepping.
    previous_facet : ndarray
        Master segment/facet of each slave node at the last step entry.
    """

    kind = "static"

    def __init__(self, model: CaseModel):
        self.model = model
        self.problem = problem = model.problem
        tic = time.perf_counter()
        self.backend = make_backend(model.backend, problem, tolerance=model.newton.tolerance,
                                    increments=len(model.levels))
        self.setup_seconds = time.perf_counter() - tic
        self.predictor = None if model.coarse is None else NestedPrediction.of(
            problem, model.coarse.problem, model.newton, model.stepping, len(model.levels))
        self.total = len(model.levels)
        self.start = problem.initial_state()
        self.progress_from: Progress | None = None
        self.records: list = []
        self.timings = {"linear_solve": 0.0, "contact": 0.0}
        self.previous_facet = self.start.facet

    def header(self) -> dict:
        """The backend's name.

        Returns
        -------
        dict
            ``{"backend": name, "backend_choice": auto's reason or None}``.
        """
        return {"backend": self.backend.name,
                "backend_choice": getattr(self.backend, "choice", None)}

    def resume(self, cp: checkpoint.Checkpoint, old: dict) -> list:
        """Continue after ``cp.index`` levels with the increment size and predictor saved.

        Parameters
        ----------
        cp : Checkpoint
            A static restart file short of the last level.
        old : dict
            The folder's summary.

        Returns
        -------
        list of dict
            The first ``cp.index`` step entries of ``old``.
        """
        previous = None
        if "previous_t" in cp.arrays:
            previous = (float(cp.arrays["previous_t"]), cp.arrays["previous_unknowns"])
            size = self.problem.unknowns(cp.state).shape
            if np.shape(previous[1]) != size:
                raise ValueError(f"'previous_unknowns' has shape {np.shape(previous[1])}, not {size}")
        dt = float(cp.arrays["dt"])
        if not dt > 0.0:
            raise ValueError(f"'dt' (the increment size) is {dt!r}, not positive")
        self.progress_from = Progress(cp.index, cp.state, dt, previous)
        self.start = cp.state
        self.previous_facet = cp.state.facet
        return old.get("steps", [])[:cp.index]

    def step_entry(self, record, state) -> dict:
        """The ``steps`` entry of a level: the record, reactions and facet changes.

        Parameters
        ----------
        record : StepRecord
            The level.
        state : StepState
            Its state.

        Returns
        -------
        dict
        """
        problem = self.problem
        step = record.summary()
        step["reaction"] = problem.system.reactions(
            problem.full_residual(state.u, state.multiplier, state.t, state))
        # closed slave nodes whose master segment/facet changed since the last level
        step["facet_changes"] = int(np.sum(closed(state.status) & (state.facet != self.previous_facet)))
        self.previous_facet = state.facet
        return step

    def advance(self, write) -> Outcome:
        """Solve the load levels, writing each (:func:`fecontact.analysis.static.run_steps`).

        Parameters
        ----------
        write : callable(WrittenStep)
            Puts a level on disk.

        Returns
        -------
        Outcome
            The state reached and, if a level failed, why.
        """
        def on_step(record, state, progress):
            arrays = {"dt": progress.dt}
            if progress.previous is not None:
                arrays.update(previous_t=progress.previous[0], previous_unknowns=progress.previous[1])
            write(WrittenStep(index=progress.index, state=state, entry=self.step_entry(record, state),
                              vtu=f"step_{record.index:04d}.vtu", time=record.load, arrays=arrays))

        model = self.model
        self.records, state, self.timings = run_steps(
            self.problem, self.backend, model.levels, model.newton, model.stepping, on_step=on_step,
            resume=self.progress_from, predictor=self.predictor)
        failed = bool(self.records) and not self.records[-1].converged
        return Outcome(state=state, failure=self.records[-1].reason if failed else "")

    def failed_step(self, outcome: Outcome, state, done: int) -> FailedStep:
        """The failed level, up to the ``reached`` load; its accepted increments go to a partial VTU.

        Parameters
        ----------
        outcome : Outcome
            The failed outcome.
        state : StepState
            The last accepted increment.
        done : int
            Levels written before.

        Returns
        -------
        FailedStep
            Its VTU is ``step_NNNN_partial.vtu`` when ``state`` is beyond the last written level.
        """
        rec = self.records[-1]
        step = self.step_entry(rec, state)
        step["reached"] = state.t
        reached = state.t > (self.model.levels[done - 1] if done else 0.0)
        return FailedStep(step, f"step_{rec.index:04d}_partial.vtu" if reached else None, state.t)

    def check(self, out: Path, state):
        """The residual check of the written final state (:func:`fecontact.run.verify.residual_check`).

        Parameters
        ----------
        out : Path
            The output folder.
        state : StepState
            The final state.

        Returns
        -------
        ResidualCheck
        """
        problem = self.problem
        return residual_check(problem, written_state(out, self.model.case, problem, state))

    def conclusion(self, state, steps: list, interrupted: bool, elapsed: float) -> dict:
        """Timings (with a linear reference solve unless interrupted), reactions, Newton counts.

        Parameters
        ----------
        state : StepState
            The final state.
        steps : list of dict
            The step entries.
        interrupted : bool
            Stopped by a signal: no reference solve.
        elapsed : float
            Wall time up to the conclusion.

        Returns
        -------
        dict
            ``timings``, ``reaction``, ``pairs`` and ``max_newton_iterations_per_increment``.
        """
        model, problem, backend, t_setup = self.model, self.problem, self.backend, self.setup_seconds
        # a benchmark instrument, asked for by solver.compare_linear (fecontact bench, --compare-linear);
        # it factorises the stiffness again: not when asked to stop.  Its time is part of the total.
        compare = bool(model.case.get("solver", {}).get("compare_linear", False))
        linear_ref = (linear_reference_seconds(model, state.t, backend)
                      if compare and not interrupted else None)
        # nested iteration: the coarse model (less its meshes), its solves and the transfers
        nested = (self.predictor.seconds + model.timings.get("nested_build", 0.0)
                  if self.predictor is not None else None)
        contact_solve = t_setup + self.timings["linear_solve"] + self.timings["contact"] + (nested or 0.0)
        n_steps = max(len(self.records), 1)
        # every step entry ends with the reactions of its state, the last one with those of ``state``
        reaction = (steps[-1]["reaction"] if steps else problem.system.reactions(
            problem.full_residual(state.u, state.multiplier, state.t, state)))
        timings = {
            "total": elapsed + (linear_ref or 0.0),
            "linear_solve": t_setup + self.timings["linear_solve"],
            "contact": self.timings["contact"],
            "setup_factorization": t_setup,
            "contact_solve": contact_solve,
            "nested": nested,
            "linear_reference": linear_ref,
            "krylov_iterations": backend.iterations,
            **model.timings,
            "contact_solve_per_step_over_linear_reference": (
                contact_solve / n_steps / linear_ref if linear_ref else None),
        }
        return {"timings": timings, "reaction": reaction,
                "coupling_displacement": problem.system.coupling_displacements(state.u) or None,
                "pairs": [p.as_dict() for p in pair_results(problem, state)],
                "nested": None if self.predictor is None else self.predictor.summary(),
                "parallel": backend.report() if hasattr(backend, "report") else None,
                "max_newton_iterations_per_increment": max(
                    (n for st in steps for n in st.get("increment_iterations", [])), default=0)}

    def metrics(self, state) -> dict:
        """Comparison with the case's analytic reference.

        Parameters
        ----------
        state : StepState
            The final state.

        Returns
        -------
        dict
            :func:`fecontact.references.metrics.evaluate_reference` (empty without a reference).
        """
        return evaluate_reference(self.model, state)


def run(case_path, out_dir=None, overrides=(), write_vtu_files: bool | None = None,
        restart: bool = False) -> RunResult:
    """Run the case at ``case_path``; results go to ``out_dir`` (default ``out/<name>``).

    With ``restart``, continue the run whose results are in ``out_dir`` from
    its last written step (:mod:`fecontact.run.checkpoint`).  SIGINT and SIGTERM
    stop the run between steps: the summary then says why, and
    :class:`fecontact.run.interrupts.Interrupted` is raised.

    Parameters
    ----------
    case_path : str or Path
        The case file (TOML).
    out_dir : str or Path, optional
        Output folder.
    overrides : sequence of str
        ``key.path=value`` overrides of the case.
    write_vtu_files : bool, optional
        Write a VTU per step (default: the case's ``output.vtu``, else yes).
    restart : bool
        Continue the run in ``out_dir``.

    Returns
    -------
    RunResult

    Raises
    ------
    CaseError
        A bad case.
    RestartError
        Nothing (or something else) to continue in ``out_dir``.
    Interrupted
        The run was stopped by a signal (its folder can be continued).

    Examples
    --------
    The contact patch test: every interface node carries the pressure 10.

    >>> import tempfile
    >>> import fecontact as fc
    >>> with tempfile.TemporaryDirectory() as out:
    ...     result = fc.run_case("cases/patch2d.toml", out_dir=out)
    >>> pressure = result.state.multiplier[:, 0]
    >>> result.summary["converged"], f"{pressure.min():.6g}", f"{pressure.max():.6g}"
    (True, '10', '10')

    The results (``summary.json``, one VTU per step, ``restart.npz``) go to
    ``out/patch2d`` by default:

    >>> result = fc.run_case("cases/patch2d.toml")       # doctest: +SKIP
    """
    t_start = time.perf_counter()
    case, model = prepare(case_path, overrides)
    name = case.get("name", Path(case_path).stem)
    out = Path(out_dir) if out_dir is not None else Path("out") / name
    if restart and not out.is_dir():
        checkpoint.load(out, case, model.problem.system.n_dofs)     # says there is nothing there
    # one run at a time in a folder: the lock comes before anything in it is read or written
    with lock_folder(out, case_path):
        cp = previous = None
        if restart and checkpoint.written_nothing(out):
            logger.warning("%s: the run there stopped before its first step was written; "
                           "starting it from the beginning", out)
            restart = False
        if restart:
            cp = checkpoint.load(out, case, model.problem.system.n_dofs)
            previous = check_folder(out, cp, model, name)   # before anything is set up or written
        open_folder(out)
        vtu = case.get("output", {}).get("vtu", True) if write_vtu_files is None else write_vtu_files
        setup = RunSetup(model=model, name=name, case_path=case_path, out=out, vtu=vtu,
                         overrides=tuple(overrides), t_start=t_start, checkpoint=cp,
                         previous=previous)
        try:
            if model.dynamics is not None:
                from .dynamic import DynamicRun

                # a dynamic run defers signals through its conclusion and the time-series plot
                with handled():
                    return drive(setup, DynamicRun(model, name))
            return drive(setup, StaticRun(model))
        except Interrupted as err:
            err.folder, err.case = out, case_path          # where to continue from (the CLI says)
            raise
