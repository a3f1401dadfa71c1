"""The output folder of a run while it runs: VTU files, the ``.pvd`` index, ``summary.json``, ``restart.npz``.

Every written step goes to disk as a whole before the next step starts:
its VTU, then the ``.pvd`` index, ``summary.json`` and the restart file,
each replaced atomically, with signals deferred until all four are written
(:func:`fecontact.run.interrupts.critical`).  Until the run ends,
``summary.json`` says ``converged: false`` with the reason ``incomplete``
(:meth:`fecontact.run.summary.RunSummary.mark_incomplete`), so a folder left
by a killed process never claims more than it holds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from ..io.atomic import clean_temporaries, writable_folder
from ..io.errors import one_line
from ..io.output import write_pvd, write_summary, write_vtu
from ..io.revolve import revolved_name, write_revolved
from ..solve.mpi import launch
from . import checkpoint
from .interrupts import critical
from .lock import LOCK, FolderBusy, FolderLock
from .summary import RunSummary

logger = logging.getLogger(__name__)


class OutputError(Exception):
    """The output folder cannot be made or written (one line naming it)."""


def lock_folder(out: Path, case="") -> FolderLock:
    """Take the output folder's lock (:mod:`fecontact.run.lock`), making the folder if need be.

    Rank 0 of an MPI launch holds it for all ranks; the others get a lock that holds nothing.

    Raises
    ------
    OutputError
        Another live run holds the folder, or it cannot be made (one line naming it).
    """
    out = Path(out)
    if not launch().root:
        return FolderLock(out / LOCK, None)
    try:
        return FolderLock.acquire(out, str(case))
    except FolderBusy as err:
        raise OutputError(str(err)) from None
    except OSError as err:
        raise OutputError(f"{out}: cannot write to the output folder "
                          f"({err.strerror or one_line(err)})") from None


def open_folder(out: Path) -> None:
    """Make the output folder, clear a killed run's temporaries and check that it is writable.

    Raises
    ------
    OutputError
        Before anything is solved, naming the folder and the reason.
    """
    out = Path(out)
    if not launch().root:                       # rank 0 makes and writes the folder
        return
    try:
        writable_folder(out)
        removed = clean_temporaries(out)
    except OSError as err:
        raise OutputError(f"{out}: cannot write to the output folder "
                          f"({err.strerror or one_line(err)})") from None
    if removed:
        logger.info("%s: removed %d temporary file(s) of an interrupted run: %s", out,
                    len(removed), ", ".join(removed))


@dataclass(frozen=True)
class WrittenStep:
    """One step as it goes to disk.

    Attributes
    ----------
    index : int
        Steps written once this one is (load levels, or time steps in
        dynamics): the restart file's index.
    state : StepState
        The state written.
    entry : dict
        Its entry in ``summary.json``'s ``steps``.
    vtu : str or None
        VTU file name (``None``: no VTU for this step).
    time : float
        Its time in the ``.pvd`` index (the load level in statics).
    arrays : dict
        What the stepping needs besides the state to continue (restart file).
    point_data : dict or None
        Extra point data for the VTU (dynamics: velocity, acceleration).
    """

    index: int
    state: object
    entry: dict
    vtu: str | None
    time: float
    arrays: dict
    point_data: dict | None = None


class RunFolder:
    """Writes one run's results.

    Parameters
    ----------
    out : Path
        The output folder (it exists).
    name : str
        Case name (the ``.pvd`` file is ``<name>.pvd``).
    problem : ContactProblem
        The problem whose states are written.
    vtu : bool
        Write a VTU per step.
    fingerprint : str
        Case fingerprint for the restart file.
    analysis : str
        ``"static"`` or ``"dynamic"``.
    revolve : int, optional
        Axisymmetric cases (``output.revolve``): beside each VTU, the solid
        of revolution in this many sectors (``<step>_revolved.vtu``, indexed
        by ``<name>_revolved.pvd``).
    """

    def __init__(self, out: Path, name: str, problem, vtu: bool, fingerprint: str, analysis: str,
                 revolve: int | None = None):
        self.out = Path(out)
        self.name = name
        self.problem = problem
        self.vtu = vtu
        self.fingerprint = fingerprint
        self.analysis = analysis
        self.revolve = revolve
        self.pvd: list = []
        self._encoded: dict = {}       # JSON text of the steps and series written so far
        #: whether this process writes (rank 0 of an MPI launch; the others compute the same)
        self.writes = launch().root

    def resume(self, cp: checkpoint.Checkpoint) -> None:
        """Take over the folder of the run ``cp`` came from: its ``.pvd`` entries.

        Parameters
        ----------
        cp : Checkpoint
            The restart file read back.
        """
        self.pvd = [tuple(e) for e in cp.meta.get("pvd", [])]

    def vtu_file(self, fname: str, t: float, state, extra: dict | None = None) -> None:
        """Write one VTU and add it to the ``.pvd`` index (no-op without VTU output).

        Parameters
        ----------
        fname : str
            File name inside the folder.
        t : float
            Its time in the index.
        state : StepState
            The state written.
        extra : dict, optional
            Extra point data.
        """
        if not self.vtu:
            return
        if self.writes:
            write_vtu(self.out / fname, self.problem, state, extra)
            if self.revolve:
                write_revolved(self.out / revolved_name(fname), self.problem, state, self.revolve,
                               extra)
        self.pvd.append((float(t), fname))
        if self.writes:
            write_pvd(self.out / f"{self.name}.pvd", self.pvd)
            if self.revolve:
                write_pvd(self.out / f"{self.name}_revolved.pvd",
                          [(time, revolved_name(f)) for time, f in self.pvd])

    def write_summary(self, summary: RunSummary) -> None:
        """Replace ``summary.json`` with ``summary``.

        Parameters
        ----------
        summary : RunSummary
            What the file is to say.
        """
        if self.writes:
            write_summary(self.out / "summary.json", summary.as_dict(), self._encoded)

    def step(self, step: WrittenStep, summary: RunSummary) -> None:
        """Write a whole step: VTU and index, ``summary`` and the restart file.

        Parameters
        ----------
        step : WrittenStep
            The step.
        summary : RunSummary
            The summary with the step's entry (and still incomplete:
            :meth:`RunSummary.mark_incomplete`).
        """
        if not self.writes:
            if step.vtu is not None:
                self.vtu_file(step.vtu, step.time, step.state, step.point_data)
            return
        with critical():
            if step.vtu is not None:
                self.vtu_file(step.vtu, step.time, step.state, step.point_data)
            self.write_summary(summary)
            checkpoint.save(self.out, self.analysis, step.index, step.state, step.arrays,
                            {"fingerprint": self.fingerprint, "pvd": self.pvd})
