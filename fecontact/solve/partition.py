"""Row ownership of the reduced unknowns across MPI ranks: recursive coordinate bisection.

Each rank owns a contiguous block of rows of the distributed matrices, so
the unknowns are renumbered rank by rank.  The blocks come from recursive
coordinate bisection of the unknowns' reference positions (Berger and
Bokhari 1987): a set is cut across its longest extent at the quantile that
gives each side rows in proportion to the ranks it gets.  The parts are
balanced to one row and compact, so a rank's rows couple with few rows of
other ranks (the interface of a geometric cut grows like ``N^{(d-1)/d}``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RowPartition:
    """Reduced unknowns in rank order.

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        ``order[k]``: the reduced unknown at distributed position ``k``.
    position : ndarray of int, shape (n,)
        Its inverse: the distributed position of each reduced unknown.
    starts : ndarray of int, shape (parts + 1,)
        Rank ``r`` owns positions ``starts[r]:starts[r + 1]``.
    """

    order: np.ndarray
    position: np.ndarray
    starts: np.ndarray

    def owned(self, rank: int) -> np.ndarray:
        """The reduced unknowns rank ``rank`` owns, in distributed order, shape (n_rank,)."""
        return self.order[self.starts[rank]:self.starts[rank + 1]]

    @property
    def counts(self) -> np.ndarray:
        """Rows per rank, shape (parts,)."""
        return np.diff(self.starts)


def coordinate_bisection(points: np.ndarray, parts: int) -> RowPartition:
    """Recursive coordinate bisection of ``points`` into ``parts`` parts.

    Parameters
    ----------
    points : ndarray, shape (n, dim)
    parts : int
        At least 1.

    Returns
    -------
    RowPartition
        Part sizes differ by at most one.
    """
    n = points.shape[0]
    pieces = _bisect(np.arange(n), np.asarray(points, dtype=float), parts)
    order = np.concatenate(pieces) if pieces else np.zeros(0, dtype=int)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    starts = np.concatenate([[0], np.cumsum([p.size for p in pieces])]).astype(np.int64)
    return RowPartition(order.astype(np.int64), position, starts)


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


def partition_rows(system, parts: int) -> RowPartition:
    """Row ownership of a bulk system's reduced unknowns among ``parts`` ranks.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
        Its reference coordinates place each reduced unknown (the mean
        position of the nodal DOFs behind it).
    parts : int

    Returns
    -------
    RowPartition
    """
    X = system.reference_coords()                       # (dim, n_nodes)
    d = X.shape[0]
    positions = np.column_stack([system.to_reduced(np.repeat(X[a], d)) for a in range(d)])
    return coordinate_bisection(positions, parts)
