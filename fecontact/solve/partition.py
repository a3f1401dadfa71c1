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

from ..mesh.bisection import coordinate_bisection

__all__ = ["RowPartition", "coordinate_bisection", "partition_rows"]


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
