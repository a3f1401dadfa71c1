"""Running a case end to end: static and dynamic drivers, result folders, restart, interrupts and the independent check."""

from .result import RunResult
from .static import prepare, run
from .summary import RunSummary

__all__ = ["RunResult", "RunSummary", "prepare", "run"]
