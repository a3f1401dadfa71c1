"""Smoothed-aggregation algebraic multigrid on the bulk stiffness, with the rigid-body modes as near-null space."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .factor import factorize


def rigid_body_modes(system) -> np.ndarray:
    """All rigid-body modes (translations, rotations about the centroid) in reduced numbering.

    The near-null space that smoothed-aggregation multigrid needs for
    elasticity.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem

    Returns
    -------
    ndarray, shape (n_reduced, 3) in 2D, (n_reduced, 6) in 3D
    """
    given = getattr(system, "near_null_space", None)
    if given is not None:                       # a system without geometry (a PFC problem) gives them
        return given
    from ..bodies.pieces import rigid_motions

    modes = rigid_motions(system.reference_coords())
    return np.column_stack([system.to_reduced(m) for m in modes.T])


#: penalty stiffness, relative to the stiffness diagonal, of :meth:`AMG.constrained`
PENALTY_PRECONDITIONER = 10.0


def penalty_matrix(F: sp.spmatrix, diagonal: np.ndarray,
                   stiffness: float = PENALTY_PRECONDITIONER) -> sp.csr_matrix:
    r"""The penalty ``F^T R F`` that makes a multigrid of ``K`` one for ``K`` on ``ker F``.

    ``R`` is diagonal, ``R_r = stiffness (f_r^2 . diag K) / |f_r|^4`` for
    row ``f_r`` of ``F``, so that each penalty term is ``stiffness`` times the
    diagonal of ``K`` where it acts.

    Parameters
    ----------
    F : sparse, shape (c, n)
        The constraint rows.
    diagonal : ndarray, shape (n,)
        The diagonal of ``K``.
    stiffness : float

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, n)
    """
    F = sp.csr_matrix(F)
    F2 = F.multiply(F)
    weight = stiffness * (F2 @ diagonal) / np.maximum(np.asarray(F2.sum(axis=1)).ravel(), 1e-300) ** 2
    return (F.T @ sp.diags(weight) @ F).tocsr()


class AMG:
    """Smoothed-aggregation algebraic multigrid (pyamg) of a fixed SPD matrix: ``__call__`` is one V-cycle.

    The rigid-body modes are the near-null space; the setup is done once.

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
        Symmetric positive definite.
    near_null_space : ndarray, shape (n, k)
        The rigid-body modes (:func:`rigid_body_modes`).
    """

    def __init__(self, K: sp.spmatrix, near_null_space: np.ndarray):
        import pyamg

        smoother = ("gauss_seidel", {"sweep": "symmetric"})
        A = sp.csr_matrix(K)
        strength = ("symmetric", {"theta": 0.0})
        if np.all(A.data) and np.all(np.isfinite(A.data)):
            # With theta = 0 the symmetric strength of connection keeps every entry of A (all
            # nonzero and finite), and the standard aggregation reads only the pattern of the
            # strength matrix: on the finest level A itself gives the same aggregates, without
            # a strength matrix the size of A held through the set-up
            strength = [("predefined", {"C": A}), strength]
        self.hierarchy = pyamg.smoothed_aggregation_solver(
            A, B=near_null_space, symmetry="symmetric", strength=strength, max_coarse=100,
            coarse_solver="splu", presmoother=smoother, postsmoother=smoother)
        del A, strength
        self.cycle = self.hierarchy.aspreconditioner(cycle="V")
        self._base = [level.A for level in self.hierarchy.levels]
        self._diagonal = self._base[0].diagonal()
        # a CSR ``K`` is not copied: the finest operator then shares its values with ``K`` and
        # copies them before :meth:`constrained` first changes them in place
        self._shares_K = sp.issparse(K) and np.may_share_memory(self._base[0].data, K.data)
        #: positions and values of the finest operator's entries changed in place, to restore
        self._changed = None

    def __call__(self, r: np.ndarray) -> np.ndarray:
        """One V-cycle applied to ``r``, shape (n,): an approximation of ``K^{-1} r``, shape (n,)."""
        return self.cycle @ r

    def constrained(self, F: sp.spmatrix, stiffness: float = PENALTY_PRECONDITIONER):
        r"""The V-cycle of ``K + F^T R F`` on the same aggregates: a preconditioner for ``K`` on ``ker F``.

        ``R`` is diagonal, ``R_r = stiffness (f_r^2 . diag K) / |f_r|^4``
        for row ``f_r`` of ``F``, so that each penalty term is ``stiffness``
        times the diagonal of ``K`` where it acts.  The prolongators are
        kept; only the level operators are updated, by the Galerkin
        products of the penalty matrix, which is supported on the
        constrained DOFs (cheap), and the coarsest level is factorised
        again.  Without it, the multigrid cycle of ``K`` would keep
        correcting the constrained DOFs that the projection then removes,
        and GMRES would need several times more iterations on the
        constrained problem than on the unconstrained one.

        The finest operator is the largest matrix of the hierarchy: when
        the penalty terms fall on entries it has (one node's own block, as
        in node-to-segment contact), they are added to its values in place
        and the values they replace are kept to be put back by the next
        call, instead of making the sum as a new matrix.  The operator is
        then the same as ``K + F^T R F`` (the same sums, entry by entry),
        without a second copy of ``K`` (or two, while the previous one was
        still held).

        Parameters
        ----------
        F : sparse, shape (c, n)
            The constraint rows (``c = 0``: the V-cycle of ``K`` itself again).
        stiffness : float

        Returns
        -------
        AMG
            ``self``, changed in place.
        """
        import pyamg

        levels = self.hierarchy.levels
        self._restore()                 # the operators of K: the previous ones are freed first
        F = sp.csr_matrix(F)
        delta = None if F.shape[0] == 0 else penalty_matrix(F, self._diagonal, stiffness)
        for i, level in enumerate(levels):
            if delta is None:
                break
            if i > 0 or not self._add_in_place(delta):
                level.A = (self._base[i] + delta).tocsr()
            if i + 1 < len(levels):
                delta = (level.R @ delta @ level.P).tocsr()
        self.hierarchy.coarse_solver = pyamg.multilevel.coarse_grid_solver("splu")
        return self

    def operator(self) -> sp.csr_matrix:
        """The matrix ``K`` the hierarchy was set up from (its finest operator, CSR).

        The V-cycle is put back to that of ``K`` (``constrained`` with no
        rows).  Until :meth:`constrained` changes the values in place again,
        the matrix serves for products ``K x`` and for another set-up on
        ``K`` without a copy of it.

        Returns
        -------
        csr_matrix, shape (n, n)
        """
        self.constrained(sp.csr_matrix((0, self._base[0].shape[1])))
        return self._base[0]

    def _restore(self) -> None:
        """Every level's operator back to that of ``K`` (the finest one's values put back in place)."""
        if self._changed is not None:
            positions, values = self._changed
            self._base[0].data[positions] = values
            self._changed = None
        for level, base in zip(self.hierarchy.levels, self._base):
            level.A = base

    def _add_in_place(self, delta: sp.csr_matrix) -> bool:
        """Add ``delta`` to the finest operator's values in place, if it can be done exactly.

        The result must be what ``(A + delta).tocsr()`` gives: both matrices
        in canonical form, every nonzero of ``delta`` on an entry of ``A``, no
        sum exactly zero (the sparse sum would drop that entry), and ``A``
        not the coarsest level (factorised: its pattern matters).

        Returns
        -------
        bool
            Whether ``delta`` was added (else nothing changed).
        """
        A = self._base[0]
        if A.format != "csr" or len(self.hierarchy.levels) < 2 or not (
                A.has_canonical_format and delta.has_canonical_format):
            return False
        d = delta.tocoo()
        nonzero = d.data != 0
        positions = entry_positions(A, d.row[nonzero], d.col[nonzero])
        if positions is None:
            return False
        values = A.data[positions]
        summed = values + d.data[nonzero]
        if np.any(summed == 0):
            return False
        if self._shares_K:              # K's own values are not to be changed
            A.data = A.data.copy()
            self._shares_K = False
        self._changed = (positions, values)
        A.data[positions] = summed
        return True


def entry_positions(A: sp.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """Positions in ``A.data`` of the entries ``(rows[k], cols[k])`` of a CSR matrix with sorted indices.

    Parameters
    ----------
    A : csr_matrix
        With sorted column indices in every row.
    rows, cols : ndarray of int, shape (k,)

    Returns
    -------
    ndarray of int, shape (k,), or None
        None if ``A`` has no entry at one of the places.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64)
    if A.indices.size == 0:
        return None
    end = A.indptr[rows + 1].astype(np.int64)
    lo, hi = A.indptr[rows].astype(np.int64), end.copy()
    last = A.indices.size - 1
    while True:                         # lower bound of each column in its row, all rows at once
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        less = A.indices[np.minimum(mid, last)] < cols
        lo = np.where(active & less, mid + 1, lo)
        hi = np.where(active & ~less, mid, hi)
    if not np.all((lo < end) & (A.indices[np.minimum(lo, last)] == cols)):
        return None
    return lo


def make_linear_solver(name: str, K: sp.spmatrix, system, definite: bool = True):
    """A reusable approximate or exact inverse of ``K``: ``solver(rhs) -> x``.

    ``"factorization"``: sparse Cholesky (exact); ``"amg"``: one
    smoothed-aggregation V-cycle.

    Parameters
    ----------
    name : {"amg", "factorization"}
    K : sparse matrix, shape (n, n)
        Symmetric positive definite.
    system : fecontact.bodies.system.BulkSystem
        For the rigid-body modes of ``amg``.
    definite : bool
        ``False``: ``K`` is a finite-strain tangent, maybe indefinite (the
        factorisation falls back to LU; multigrid is built all the same).

    Returns
    -------
    callable, (n,) -> (n,)
    """
    if name == "amg":
        return AMG(K, rigid_body_modes(system))
    if name == "factorization":
        return factorize(K, definite).solve
    raise ValueError(f"unknown preconditioner {name!r}")


def plain_krylov_solve(name: str, K: sp.spmatrix, system, rhs: np.ndarray,
                       tolerance: float) -> np.ndarray:
    """``K x = rhs`` from scratch, as :class:`KrylovBackend` solves (a linear reference).

    Sets the preconditioner up and runs the same right-preconditioned GMRES
    to ``0.1 * tolerance * |rhs|``, the accuracy of the contact solve's last
    Newton step.

    Parameters
    ----------
    name : {"amg", "factorization"}
    K : sparse matrix, shape (n, n)
    system : fecontact.bodies.system.BulkSystem
    rhs : ndarray, shape (n,)
    tolerance : float

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    RuntimeError
        GMRES did not converge in 500 iterations.
    """
    from .krylov import gmres

    K = K.tocsr()                       # shared with the multigrid's finest level
    precondition = make_linear_solver(name, K, system)
    x, _, converged = gmres(lambda v: K @ v, rhs, precondition,
                            0.1 * tolerance * float(np.linalg.norm(rhs)), 500)
    if not converged:
        raise RuntimeError("GMRES did not converge on the linear reference")
    return x
