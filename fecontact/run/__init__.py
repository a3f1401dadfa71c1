"""Running a case end to end: static and dynamic drivers, result folders, restart, interrupts and the independent check."""

from .result import RunResult
from .static import prepare, run

__all__ = ["RunResult", "prepare", "run"]
