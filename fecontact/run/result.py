"""What a finished run returns and what both run drivers conclude it with: the written state, the independent check and the verdict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import checkpoint
from ..case.build import Model
from ..solve.state import StepState


@dataclass(frozen=True)
class RunResult:
    model: Model
    state: StepState
    summary: dict
    out_dir: Path


def written_state(out: Path, case: dict, problem, state):
    """The state as the restart file holds it (the last written step), else ``state``."""
    try:
        cp = checkpoint.load(out, case, problem.system.n_dofs)
    except checkpoint.RestartError:
        return state
    return cp.state if cp.state.t == state.t else state


def conclude(summary: dict, solved: bool, check) -> None:
    """``converged`` only when the solver finished and the independent check passes."""
    summary["converged"] = bool(solved and check.passed)
    if summary["converged"]:
        summary.pop("reason", None)
    elif solved:
        summary["reason"] = f"the independent residual check failed: {check.failures()}"
