"""What a finished run returns, and the written state that both run drivers check independently."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis.contact_results import pair_results
from ..case.build import CaseModel
from ..model.solution import Solution
from ..solve.state import StepState
from . import checkpoint


@dataclass(frozen=True)
class RunResult:
    """A finished run.

    Attributes
    ----------
    model : CaseModel
        The built case.
    state : StepState
        The final state.
    summary : dict
        The JSON object of ``summary.json``
        (:meth:`fecontact.run.summary.RunSummary.as_dict`).
    out_dir : Path
        The output folder.
    """

    model: CaseModel
    state: StepState
    summary: dict
    out_dir: Path

    @property
    def converged(self) -> bool:
        """Whether the run finished and its final state passed the independent check."""
        return bool(self.summary.get("converged", False))

    @property
    def solution(self) -> Solution:
        """The final state as a :class:`fecontact.Solution`: reactions, contact fields, ``to_pyvista()``.

        Its ``records`` are the ``steps`` entries of the summary; its
        ``failure`` the summary's ``reason`` when the run did not converge.
        """
        failure = "" if self.converged else str(self.summary.get("reason") or "not converged")
        return Solution(self.model.problem, self.state, tuple(self.summary.get("steps", [])),
                        dict(self.summary.get("timings", {})), failure)

    def reaction(self, name: str):
        """Total force of a named support on its body, shape (dim,) (:meth:`fecontact.Solution.reaction`)."""
        return self.solution.reaction(name)

    @property
    def pairs(self) -> tuple:
        """Per-pair resultants of the final state (:func:`fecontact.analysis.contact_results.pair_results`)."""
        return pair_results(self.model.problem, self.state)


def written_state(out: Path, case: dict, problem, state):
    """The state as the restart file holds it (the last written step), else ``state``.

    Parameters
    ----------
    out : Path
        The output folder.
    case : dict
        The case (the restart file must belong to it).
    problem : ContactProblem
        The problem (for its DOF count).
    state : StepState
        The final state in memory.

    Returns
    -------
    StepState
        The restart file's state when it is at the time of ``state``, else
        ``state``: the check then judges what the folder holds.
    """
    try:
        cp = checkpoint.load(out, case, problem.system.n_dofs)
    except checkpoint.RestartError:
        return state
    return cp.state if cp.state.t == state.t else state
