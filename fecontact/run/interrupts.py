"""Ctrl-C and SIGTERM during a run: stop between steps, never in the middle of writing one.

:func:`handled` installs handlers for SIGINT and SIGTERM that raise
:class:`Interrupted` (a ``KeyboardInterrupt``).  Inside :func:`critical`
(writing a step's VTU, ``.pvd``, ``summary.json`` and restart file) a
signal is remembered and raised only when the block ends, so the output
folder always holds whole steps.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

_pending: list = []
_depth = [0]


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal; ``name`` is ``"SIGINT"`` or ``"SIGTERM"``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name


def _handler(signum, frame):
    if _depth[0] > 0:
        _pending.append(signum)
        return
    raise Interrupted(signum)


@contextmanager
def handled():
    """Raise :class:`Interrupted` on SIGINT/SIGTERM inside the block (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _pending.clear()


@contextmanager
def critical():
    """Defer signals to the end of the block."""
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if _depth[0] == 0 and _pending:
            signum = _pending[0]
            _pending.clear()
            raise Interrupted(signum)
