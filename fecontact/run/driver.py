"""One skeleton for static and dynamic runs: write every step, then stop, check and conclude.

:func:`drive` does what every run does, whatever its analysis:

1. state the run's header in a :class:`~fecontact.run.summary.RunSummary`;
2. on restart, take over the output folder and the steps the restart file
   covers (refusing a finished run or one of the other analysis);
3. let the analysis advance, writing each output step as a whole
   (VTU, ``.pvd``, ``summary.json`` marked incomplete, restart file);
4. when it stops - at the end, on failure or on SIGINT/SIGTERM - say why,
   check the final state independently, conclude, add the reference
   metrics of a converged run and write ``summary.json``, with signals
   deferred (:func:`fecontact.run.interrupts.critical`);
5. re-raise an interrupt, else return the :class:`~fecontact.run.result.RunResult`.

What differs between analyses is a :class:`RunAnalysis`:
:class:`fecontact.run.static.StaticRun` and
:class:`fecontact.run.dynamic.DynamicRun`.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from pathlib import Path

from ..case.schema import CaseError
from ..io.errors import one_line
from . import checkpoint
from .folder import RunFolder, WrittenStep
from .interrupts import Interrupted, critical, handled
from .result import RunResult
from .summary import RunSummary

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunSetup:
    """What a run is given: the built model and where and how to write.

    Attributes
    ----------
    model : CaseModel
        The built case (:func:`fecontact.case.build.build_model`).
    name : str
        Case name.
    case_path : str or Path
        The case file as given (for ``summary.json`` and the restart hint).
    out : Path
        Output folder (it exists).
    vtu : bool
        Write a VTU per output step.
    overrides : sequence of str
        The ``--set`` overrides.
    t_start : float
        ``time.perf_counter()`` when the run began (before building).
    checkpoint : Checkpoint or None
        The restart file to continue from.
    previous : dict or None
        The folder's ``summary.json`` as the restart checked it
        (:func:`fecontact.run.consistency.check_folder`).
    """

    model: object
    name: str
    case_path: object
    out: Path
    vtu: bool
    overrides: tuple
    t_start: float
    checkpoint: checkpoint.Checkpoint | None = None
    previous: dict | None = None


@dataclass(frozen=True)
class Outcome:
    """How an analysis stopped advancing (not interrupted).

    Attributes
    ----------
    state : StepState or None
        The state it reached; ``None``: the last written one.
    failure : str
        Why it stopped short of the end; ``""`` when it reached it.
    """

    state: object = None
    failure: str = ""


@dataclass(frozen=True)
class FailedStep:
    """The output step a run failed in, as the summary records it.

    Attributes
    ----------
    entry : dict
        Its entry in ``steps``.
    vtu : str or None
        VTU file of the state reached inside the step (``None``: none).
    time : float
        Its time in the ``.pvd`` index.
    """

    entry: dict
    vtu: str | None
    time: float


class RunAnalysis(ABC):
    """The parts of a run that depend on its analysis (see :func:`drive`).

    Attributes
    ----------
    kind : str
        ``"static"`` or ``"dynamic"`` (``summary.json`` and the restart file).
    total : int
        Output steps (static) or time steps (dynamic) of a whole run: the
        restart index of its last step.
    start : StepState
        Where this process starts: the initial state, or the restart file's.
    """

    kind: str
    total: int
    start: object

    @abstractmethod
    def header(self) -> dict:
        """The :class:`RunSummary` fields of this analysis' header.

        Returns
        -------
        dict
            Keyword arguments of :class:`RunSummary` (``backend`` or ``dynamics``).
        """

    @abstractmethod
    def resume(self, cp: checkpoint.Checkpoint, old: dict) -> list:
        """Continue from ``cp``; ``old`` is the summary the folder held.

        Parameters
        ----------
        cp : Checkpoint
            The restart file, of this analysis, short of the end.
        old : dict
            The folder's ``summary.json`` (empty if there is none).

        Returns
        -------
        list of dict
            The entries of ``old["steps"]`` that ``cp`` covers.
        """

    @abstractmethod
    def advance(self, write) -> Outcome:
        """Step to the end, calling ``write(WrittenStep)`` for every output step.

        Parameters
        ----------
        write : callable(WrittenStep)
            Puts a step on disk; it may raise
            :class:`~fecontact.run.interrupts.Interrupted`, which must pass.

        Returns
        -------
        Outcome
        """

    def progress(self) -> dict:
        """Summary fields renewed with every written step (none by default).

        Returns
        -------
        dict
            Keyword arguments of :class:`RunSummary`.
        """
        return {}

    def failed_step(self, outcome: Outcome, state, done: int) -> FailedStep | None:
        """The entry of the step the run failed in, if the analysis records one.

        Parameters
        ----------
        outcome : Outcome
            A failed outcome.
        state : StepState
            The state reached.
        done : int
            Output steps written before it.

        Returns
        -------
        FailedStep or None
        """
        return None

    @abstractmethod
    def check(self, out: Path, state):
        """The independent check of the final ``state`` (as written to ``out``).

        Parameters
        ----------
        out : Path
            The output folder.
        state : StepState
            The final state.

        Returns
        -------
        ResidualCheck or None
            ``None`` when it cannot be made.
        """

    @abstractmethod
    def conclusion(self, state, steps: list, interrupted: bool, elapsed: float) -> dict:
        """The analysis' concluding summary fields: timings, reactions, iteration counts.

        Parameters
        ----------
        state : StepState
            The final state.
        steps : list of dict
            The summary's step entries.
        interrupted : bool
            The run was stopped by a signal.
        elapsed : float
            Wall time of the run up to its conclusion (seconds).

        Returns
        -------
        dict
            Keyword arguments of :class:`RunSummary`.
        """

    @abstractmethod
    def metrics(self, state) -> dict:
        """Comparison of a converged run with the case's reference.

        Parameters
        ----------
        state : StepState
            The final state.

        Returns
        -------
        dict
        """

    def finish(self, out: Path) -> None:
        """After ``summary.json`` is final: extra outputs (none by default).

        Parameters
        ----------
        out : Path
            The output folder.
        """


class RunDriver:
    """Runs one analysis through the skeleton of :func:`drive`.

    Parameters
    ----------
    setup : RunSetup
        The model and the output folder.
    analysis : RunAnalysis
        The analysis-specific parts.

    Attributes
    ----------
    summary : RunSummary
        The summary as it stands.
    folder : RunFolder
        The output folder's writer.
    last : WrittenStep or None
        The last step written by this process.
    done : int
        Restart index of the last step on disk.
    """

    def __init__(self, setup: RunSetup, analysis: RunAnalysis):
        self.setup = setup
        self.analysis = analysis
        problem = setup.model.problem
        self.summary = RunSummary(
            case=setup.name, case_file=str(setup.case_path), analysis=analysis.kind,
            dim=problem.dim, dofs=int(problem.system.n_dofs),
            reduced_dofs=int(problem.system.n_reduced), contact_nodes=int(problem.n_contact),
            overrides=list(setup.overrides), **analysis.header())
        self.folder = RunFolder(setup.out, setup.name, problem, setup.vtu,
                                checkpoint.fingerprint(setup.model.case), analysis.kind,
                                revolve=setup.model.case.get("output", {}).get("revolve"))
        self.last: WrittenStep | None = None
        self.done = 0

    def resume(self, cp: checkpoint.Checkpoint) -> None:
        """Take over the folder ``cp`` was written to and continue from it.

        Parameters
        ----------
        cp : Checkpoint
            The restart file.

        Raises
        ------
        RestartError
            The run there is finished (the folder itself was checked before,
            :func:`fecontact.run.consistency.check_folder`).
        """
        a = self.analysis
        self.folder.resume(cp)
        old = self.setup.previous or {}
        if cp.index >= a.total and not str(old.get("reason", "")).startswith(
                ("interrupted", "incomplete")):
            raise checkpoint.RestartError(f"{self.setup.out}: the run there is complete; "
                                          f"nothing to continue")
        # every step written but the run not concluded (stopped while writing the last one):
        # the restart steps no further and concludes
        try:
            steps = a.resume(cp, old)
        except (KeyError, TypeError, ValueError, IndexError) as err:     # an array it needs
            raise checkpoint.RestartError(f"{self.setup.out / checkpoint.RESTART}: damaged restart "
                                          f"file ({one_line(err)}); nothing in the folder was "
                                          f"changed") from None
        self.summary = replace(self.summary, steps=steps, restarts=old.get("restarts", []) + [
            {"from_step": cp.index, "t": cp.state.t}])
        self.done = cp.index

    def write(self, step: WrittenStep) -> None:
        """Put ``step`` on disk as a whole (the ``write`` of :meth:`RunAnalysis.advance`).

        Parameters
        ----------
        step : WrittenStep
            The step; its entry joins the summary, marked incomplete.
        """
        self.last, self.done = step, step.index
        self.summary.steps.append(step.entry)
        progress = self.analysis.progress()
        if progress:
            self.summary = replace(self.summary, **progress)
        self.summary.mark_incomplete(step.index, self.analysis.total)
        self.folder.step(step, self.summary)

    def stop(self, outcome: Outcome, interrupted: Interrupted | None):
        """Say why the run stopped, check, conclude and write ``summary.json``.

        Parameters
        ----------
        outcome : Outcome
            How the analysis stopped (empty when interrupted).
        interrupted : Interrupted or None
            The signal that stopped it.

        Returns
        -------
        StepState
            The final state.
        """
        a, s = self.analysis, self.summary
        state = outcome.state
        if state is None:
            state = self.last.state if self.last is not None else a.start
        if outcome.failure:
            failed = a.failed_step(outcome, state, self.done)
            if failed is not None:
                s.steps.append(failed.entry)
                if failed.vtu is not None:
                    self.folder.vtu_file(failed.vtu, failed.time, state)
            s.reason = outcome.failure
        elif interrupted is not None:
            s.reason = (f"interrupted by {interrupted.name} after {self.done} of {a.total} steps; "
                        f"continue with: fecontact run {self.setup.case_path} --restart "
                        f"{self.setup.out}")
        s.reason_first = self.last is None
        elapsed = time.perf_counter() - self.setup.t_start
        s = self.summary = replace(s, **a.conclusion(state, s.steps, interrupted is not None,
                                                      elapsed))
        check = a.check(self.setup.out, state)
        solved = not outcome.failure and interrupted is None
        s.conclude(solved, check)
        if s.converged:
            try:
                s.metrics = a.metrics(state)
            except CaseError as err:
                # the run is over: say so on disk before the input error reaches the user
                s.converged, s.reason = False, f"the reference could not be evaluated: {err}"
                self.folder.write_summary(s)
                raise
        self.folder.write_summary(s)
        return state

    def run(self) -> RunResult:
        """Advance, stop and conclude (see :func:`drive`).

        Returns
        -------
        RunResult

        Raises
        ------
        RestartError
            A restart of a finished run or of another analysis.
        Interrupted
            After ``summary.json`` says so.
        """
        if self.setup.checkpoint is not None:
            self.resume(self.setup.checkpoint)
        interrupted, outcome = None, Outcome()
        # one block for the advance and the stop: a second signal while the first one's stop
        # runs is ignored (fecontact.run.interrupts)
        with handled():
            try:
                outcome = self.analysis.advance(self.write)
            except Interrupted as err:
                interrupted = err
            try:
                with critical():
                    state = self.stop(outcome, interrupted)
                self.analysis.finish(self.setup.out)
            except Interrupted as late:
                if interrupted is not None:
                    raise interrupted from None
                # summary.json is final: a signal now stops only what follows it (figures), and
                # the exit status stays that of the run the summary describes
                logger.warning("%s after the run was concluded: %s/summary.json is complete",
                               late.name, self.setup.out)
        if interrupted is not None:
            raise interrupted
        return RunResult(self.setup.model, state, self.summary.as_dict(), self.setup.out)


def drive(setup: RunSetup, analysis: RunAnalysis) -> RunResult:
    """Run ``analysis`` from ``setup``, writing every output step and concluding once.

    Parameters
    ----------
    setup : RunSetup
        The model and the output folder.
    analysis : RunAnalysis
        What differs between static and dynamic runs.

    Returns
    -------
    RunResult
        ``summary`` is the JSON object of ``summary.json``.

    Raises
    ------
    RestartError
        A restart of a finished run or of another analysis.
    Interrupted
        SIGINT or SIGTERM stopped the run; ``summary.json`` says so.
    """
    return RunDriver(setup, analysis).run()
