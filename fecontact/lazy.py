"""Lazy package facades: a package's public names imported on first use (PEP 562).

``import fecontact`` then costs almost nothing, and the command line can
install its signal handlers before numpy, scipy and scikit-fem are imported
(a Ctrl-C during those imports ends in one line, not a traceback).
"""

from __future__ import annotations

import importlib

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict):
    """``__getattr__`` and ``__dir__`` of a package whose names come from its submodules.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict
        Public name -> ``"relative.module"`` or ``("relative.module", "name there")``.

    Returns
    -------
    (callable, callable)
        The module-level ``__getattr__(name)`` and ``__dir__()``.
    """
    def __getattr__(name: str):
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = (where, name) if isinstance(where, str) else where
        value = getattr(importlib.import_module(module, package), attribute)
        globals_ = importlib.import_module(package).__dict__
        globals_[name] = value                   # later look-ups skip __getattr__
        return value

    def __dir__():
        return sorted(set(importlib.import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__
