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
import scipy.sparse as sp


@dataclass(frozen=True)
class RowPartition:
    """Where each reduced unknown lives among the ranks' rows.

    The distributed rows come in node blocks of ``block`` rows (one per
    displacement component, so that multigrid aggregates nodes); a reduced
    unknown takes the row of one full DOF behind it, and rows no unknown
    takes (prescribed, tied, coupled DOFs) are left out of the algebra
    (identity rows).

    Attributes
    ----------
    position : ndarray of int, shape (n,)
        The distributed row of each reduced unknown.
    starts : ndarray of int, shape (parts + 1,)
        Rank ``r`` owns rows ``starts[r]:starts[r + 1]`` (multiples of ``block``).
    block : int
    node_coords : ndarray, shape (n_rows / block, dim)
        Reference position of each row block, in distributed order.
    """

    position: np.ndarray
    starts: np.ndarray
    block: int
    node_coords: np.ndarray

    def owned(self, rank: int) -> np.ndarray:
        """The reduced unknowns rank ``rank`` owns, by distributed row, shape (n_rank,)."""
        mine = np.flatnonzero((self.position >= self.starts[rank])
                              & (self.position < self.starts[rank + 1]))
        return mine[np.argsort(self.position[mine], kind="stable")]

    @property
    def counts(self) -> np.ndarray:
        """Rows per rank, shape (parts,)."""
        return np.diff(self.starts)

    @property
    def size(self) -> int:
        """Rows in all."""
        return int(self.starts[-1])


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


def partition_rows(system, parts: int) -> RowPartition:
    """Row ownership of a bulk system's reduced unknowns among ``parts`` ranks.

    Each reduced unknown takes the row of the first full DOF that maps to it
    alone (a row of ``T`` with one entry); an unknown without one (every DOF
    behind it a combination) gets a block of its own, placed at its mean
    position.  The node blocks are split by :func:`coordinate_bisection` of
    their reference positions.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
    parts : int

    Returns
    -------
    RowPartition
    """
    X = system.reference_coords()                       # (dim, n_nodes)
    d, n_nodes = X.shape
    T = sp.csr_matrix(system.T)
    n = T.shape[1]
    single = np.flatnonzero(np.diff(T.indptr) == 1)
    rows, cols = single, T.indices[T.indptr[single]]
    slot = np.full(n, -1, dtype=np.int64)
    first = np.lexsort((rows, cols))                    # per unknown, its lowest full DOF first
    keep = np.r_[True, np.diff(cols[first]) != 0] if first.size else np.zeros(0, bool)
    slot[cols[first][keep]] = rows[first][keep]
    alone = np.flatnonzero(slot < 0)
    points = X.T
    if alone.size:                                      # blocks of their own, at their positions
        where = np.column_stack([system.to_reduced(np.repeat(X[a], d))[alone] for a in range(d)])
        slot[alone] = d * (n_nodes + np.arange(alone.size))
        points = np.vstack([points, where])
    order, node_starts = coordinate_bisection(points, parts)
    node_position = np.empty(order.size, dtype=np.int64)
    node_position[order] = np.arange(order.size)
    position = d * node_position[slot // d] + slot % d
    return RowPartition(position, d * node_starts, d, points[order])
