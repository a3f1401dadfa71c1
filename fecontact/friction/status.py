"""The contact status of a node, named once: open, stick or slip, and how many of each.

Every report (Newton's iteration lines, the step records, summaries, the
VTU ``contact_status`` field, the metrics) uses :class:`Status` and
:func:`status_counts`; the integer values are those written to files.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np


class Status(IntEnum):
    """Contact status of a slave node after the Alart–Curnier update.

    ``OPEN`` (0): the augmented normal traction vanishes; ``STICK`` (1): the
    trial tangential traction lies inside the friction disk; ``SLIP`` (2):
    the corrector projected it onto the disk (also a closed node without
    friction, whose disk has radius zero).
    """

    OPEN = 0
    STICK = 1
    SLIP = 2


class StatusCounts(NamedTuple):
    """Numbers of open, sticking and slipping nodes."""

    open: int
    stick: int
    slip: int


def status_counts(status: np.ndarray) -> StatusCounts:
    """Count the nodes of each :class:`Status`.

    Parameters
    ----------
    status : ndarray of int, shape (m,)

    Returns
    -------
    StatusCounts
        ``(open, stick, slip)``.

    Examples
    --------
    >>> import numpy as np
    >>> import fecontact as fc
    >>> fc.status_counts(np.array([fc.Status.OPEN, fc.Status.STICK, fc.Status.SLIP, fc.Status.SLIP]))
    StatusCounts(open=1, stick=1, slip=2)
    >>> fc.status_counts([0, 0, 2]).open
    2
    """
    status = np.asarray(status)
    return StatusCounts(int(np.sum(status == Status.OPEN)), int(np.sum(status == Status.STICK)),
                        int(np.sum(status == Status.SLIP)))


def closed(status: np.ndarray) -> np.ndarray:
    """Nodes in contact (stick or slip), shape (m,) of bool."""
    return np.asarray(status) != Status.OPEN
