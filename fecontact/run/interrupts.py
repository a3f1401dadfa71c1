"""Ctrl-C and SIGTERM during a run: stop between steps, never in the middle of writing one.

:func:`handled` installs handlers for SIGINT and SIGTERM that raise
:class:`Interrupted` (a ``KeyboardInterrupt``).  Inside :func:`critical`
(writing a step's VTU, ``.pvd``, ``summary.json`` and restart file) a
signal is remembered and raised only when the block ends, so the output
folder always holds whole steps.

Only the first signal counts: it starts the orderly stop (the summary says
why, the exit status is ``128 + signum``), and signals that come while the
stop runs - a second Ctrl-C, a SIGTERM after a SIGINT - are ignored until
the outermost :func:`handled` block ends, so they cannot cut the stop short
or change its outcome.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class _Deferral:
    """How deeply :func:`critical` blocks are nested, and the signals they hold back."""

    def __init__(self):
        self.depth = 0
        self.pending: list = []
        self.first: int | None = None       # the signal that started the stop, if one has
        self.handled = 0                    # nesting of :func:`handled` blocks


_deferral = _Deferral()


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal.

    Parameters
    ----------
    signum : int
        The signal number.

    Attributes
    ----------
    signum : int
        The signal number (the command line exits with ``128 + signum``).
    name : str
        ``"SIGINT"`` or ``"SIGTERM"``.
    """

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name


def _handler(signum, frame):
    if _deferral.first is not None:         # a stop is under way: it keeps its outcome
        return
    _deferral.first = signum
    if _deferral.depth > 0:
        _deferral.pending.append(signum)
        return
    raise Interrupted(signum)


@contextmanager
def handled(final: bool = False):
    """Raise :class:`Interrupted` on SIGINT/SIGTERM inside the block (main thread only).

    The previous handlers come back when the block ends.  When the
    outermost block ends, signals still held back by :func:`critical` are
    dropped and the next signal starts a stop again.

    Parameters
    ----------
    final : bool
        The process ends with the block (the ``fecontact`` command): signals
        are ignored from then on instead of going to the previous handlers,
        so that none can change the exit status or add a line once the
        command has said how it ended.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    _deferral.handled += 1
    try:
        yield
    finally:
        _deferral.handled -= 1
        for s, h in previous.items():
            signal.signal(s, signal.SIG_IGN if final else h)
        if _deferral.handled == 0:
            _deferral.pending.clear()
            _deferral.first = None


@contextmanager
def critical():
    """Defer signals to the end of the block (the outermost one, when nested).

    Raises
    ------
    Interrupted
        At the end of the block, for the first signal that came during it.
    """
    _deferral.depth += 1
    try:
        yield
    finally:
        _deferral.depth -= 1
        if _deferral.depth == 0 and _deferral.pending:
            signum = _deferral.pending[0]
            _deferral.pending.clear()
            raise Interrupted(signum)
