"""Running a case end to end: static and dynamic drivers, result folders, restart, interrupts and the independent check.

The names below are imported on first use (:mod:`fecontact.lazy`), so
:mod:`fecontact.run.interrupts` can be imported before the solver is.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .result import RunResult
    from .static import prepare, run
    from .summary import RunSummary

#: public name -> the module it comes from (``__all__`` and the imports above agree with it:
#: tests/test_contracts.py)
_EXPORTS = {"RunResult": ".result", "RunSummary": ".summary", "prepare": ".static", "run": ".static"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["RunResult", "RunSummary", "prepare", "run"]
