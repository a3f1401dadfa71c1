"""Recursive coordinate bisection of points into parts of equal size.

A set is cut across its longest extent at the quantile that gives each side
points in proportion to the parts it gets (Berger and Bokhari 1987).  The
parts are balanced to one point and compact: the interface of a geometric
cut grows like ``N^{(d-1)/d}``.  It splits both the rows of the distributed
matrices (:mod:`fecontact.solve.partition`) and the elements each rank
assembles (:mod:`fecontact.bodies.share`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["coordinate_bisection"]


def coordinate_bisection(points: np.ndarray, parts: int) -> tuple:
    """Recursive coordinate bisection of ``points`` into ``parts`` parts.

    Parameters
    ----------
    points : ndarray, shape (n, dim)
    parts : int
        At least 1.

    Returns
    -------
    order : ndarray of int, shape (n,)
        The points part by part.
    starts : ndarray of int, shape (parts + 1,)
        Part ``r`` is ``order[starts[r]:starts[r + 1]]``; sizes differ by at most one.
    """
    n = points.shape[0]
    pieces = _bisect(np.arange(n), np.asarray(points, dtype=float), parts)
    order = np.concatenate(pieces).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum([p.size for p in pieces])]).astype(np.int64)
    return order, starts


def _bisect(index: np.ndarray, points: np.ndarray, parts: int) -> list:
    """The parts of ``index`` (rows of ``points``), in order."""
    if parts == 1:
        return [np.sort(index)]
    left_parts = parts // 2
    cut = (index.size * left_parts) // parts
    coords = points[index]
    axis = int(np.argmax(np.ptp(coords, axis=0))) if index.size else 0
    ranked = np.lexsort((index, coords[:, axis]))        # ties in position broken by number
    return (_bisect(index[ranked[:cut]], points, left_parts)
            + _bisect(index[ranked[cut:]], points, parts - left_parts))
