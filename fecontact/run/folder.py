"""The output folder of a run while it runs: VTU files, the ``.pvd`` index, ``summary.json``, ``restart.npz``.

Every written step goes to disk as a whole before the next step starts:
its VTU, then the ``.pvd`` index, ``summary.json`` and the restart file,
each replaced atomically, with signals deferred until all four are written
(:func:`fecontact.run.interrupts.critical`).  Until the run ends,
``summary.json`` says ``converged: false`` with the reason ``incomplete``,
so a folder left by a killed process never claims more than it holds.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import checkpoint
from .interrupts import critical
from ..io.output import write_pvd, write_summary, write_vtu


class RunFolder:
    """Writes one run's results.

    Parameters
    ----------
    out : Path
    name : str
        Case name (the ``.pvd`` file is ``<name>.pvd``).
    problem : ContactProblem
    summary : dict
        The summary being built (``steps`` is appended to by the caller).
    vtu : bool
        Write a VTU per step.
    fingerprint : str
        Case fingerprint for the restart file.
    analysis : str
        ``"static"`` or ``"dynamic"``.
    total : int
        Number of steps the run will write (for the ``incomplete`` reason).
    """

    def __init__(self, out: Path, name: str, problem, summary: dict, vtu: bool, fingerprint: str,
                 analysis: str, total: int):
        self.out = Path(out)
        self.name = name
        self.problem = problem
        self.summary = summary
        self.vtu = vtu
        self.fingerprint = fingerprint
        self.analysis = analysis
        self.total = total
        self.pvd: list = []
        self._encoded: list = []

    def resume(self, cp: checkpoint.Checkpoint, covered) -> dict:
        """Take over the folder of the run ``cp`` came from.

        ``covered(steps) -> list`` selects the entries of the old
        ``summary["steps"]`` that ``cp`` covers.  Returns the old summary.
        """
        path = self.out / "summary.json"
        old = json.loads(path.read_text()) if path.is_file() else {}
        self.pvd = [tuple(e) for e in cp.meta.get("pvd", [])]
        self.summary["steps"] = covered(old.get("steps", []))
        self.summary["restarts"] = old.get("restarts", []) + [
            {"from_step": cp.index, "t": cp.state.t}]
        return old

    def vtu_file(self, fname: str, t: float, state, extra: dict | None = None) -> None:
        """Write one VTU and add it to the ``.pvd`` index (no-op without VTU output)."""
        if not self.vtu:
            return
        write_vtu(self.out / fname, self.problem, state, extra)
        self.pvd.append((float(t), fname))
        write_pvd(self.out / f"{self.name}.pvd", self.pvd)

    def write_summary(self) -> None:
        write_summary(self.out / "summary.json", self.summary, self._encoded)

    def step(self, index: int, state, fname: str | None, t: float, arrays: dict,
             extra: dict | None = None) -> None:
        """Write a whole step: VTU and index, summary (still incomplete) and the restart file."""
        with critical():
            if fname is not None:
                self.vtu_file(fname, t, state, extra)
            self.summary["converged"] = False
            self.summary["reason"] = (f"incomplete: {index} of {self.total} steps written (the "
                                      f"run is in progress, or stopped without a report)")
            self.write_summary()
            checkpoint.save(self.out, self.analysis, index, state, arrays,
                            {"fingerprint": self.fingerprint, "pvd": self.pvd})
