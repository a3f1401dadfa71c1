"""Smoothed-aggregation algebraic multigrid on the bulk stiffness, with the rigid-body modes as near-null space."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..bodies.memory import return_free_memory
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
        for level in self.hierarchy.levels:
            # the near-null space is read only by the set-up; the finest prolongation's arrays
            # are views of larger buffers: copies free the rest (values unchanged)
            level.__dict__.pop("B", None)
            level.__dict__.pop("BH", None)
            P = getattr(level, "P", None)
            if P is not None and P.data.base is not None:
                P.data, P.indices, P.indptr = P.data.copy(), P.indices.copy(), P.indptr.copy()
        return_free_memory()        # the set-up's freed temporaries back to the system
        self.cycle = self.hierarchy.aspreconditioner(cycle="V")
        self._base = [level.A for level in self.hierarchy.levels]
        self._diagonal = self._base[0].diagonal()
        # a CSR ``K`` is not copied: the finest operator then shares its values with ``K`` and
        # copies them before :meth:`constrained` first changes them in place
        self._shares_K = sp.issparse(K) and np.may_share_memory(self._base[0].data, K.data)
        #: positions and values of the finest operator's entries changed in place, to restore
        self._changed = None
        #: the finest prolongation as CSR once :meth:`constrained` truncates it (its rows at the
        #: constraints changed in place: positions and values to restore in ``_P_changed``)
        self._P = None
        self._P_changed = None
        #: the arguments of the last :meth:`constrained` call with rows (its cycle is still set up)
        self._key = None

    def __call__(self, r: np.ndarray) -> np.ndarray:
        """One V-cycle applied to ``r``, shape (n,): an approximation of ``K^{-1} r``, shape (n,)."""
        return self.cycle @ r

    def constrained(self, F: sp.spmatrix, stiffness: float = PENALTY_PRECONDITIONER,
                    truncate: bool = True):
        r"""The V-cycle of a preconditioner for ``K`` on ``ker F``, on the same aggregates.

        The smoother of the finest level runs on ``K + F^T R F``: ``R`` is
        diagonal, ``R_r = stiffness (f_r^2 . diag K) / |f_r|^4`` for row
        ``f_r`` of ``F``, so that each penalty term is ``stiffness`` times
        the diagonal of ``K`` where it acts.  Without it, the multigrid cycle
        of ``K`` would keep correcting the constrained DOFs that the
        projection then removes, and GMRES would need several times more
        iterations on the constrained problem than on the unconstrained one.

        With ``truncate`` the finest prolongation is truncated at the
        constraints (:func:`truncation`: its columns projected onto
        ``ker F``, as the truncated basis functions of contact-aware
        multigrid, Krause 2008): the coarse correction leaves the
        constrained components alone, and the coarse operators are the
        Galerkin products of ``K`` with the truncated prolongation, which
        the penalty does not reach.  Without ``truncate`` (the former
        cycle) the penalty is carried to every level by Galerkin products
        of the untouched prolongations, and the stiff coarse functions at
        the contact fight the constraint: on Hertz contact in 2D (44k
        unknowns) the accurate Newton step then takes 23 GMRES iterations
        instead of 21.  Either way only the corrections are computed,
        supported on the constrained DOFs and their coarse neighbours
        (about half a V-cycle), and the coarsest level is factorised again;
        called again with the same rows (the contact status settled: the
        last Newton steps), the cycle set up for them is kept.

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
        truncate : bool

        Returns
        -------
        AMG
            ``self``, changed in place.
        """
        import pyamg

        levels = self.hierarchy.levels
        F = sp.csr_matrix(F)
        key = (stiffness, truncate, F.shape, F.indptr.tobytes(), F.indices.tobytes(),
               F.data.tobytes())
        if F.shape[0] and key == self._key:     # the same rows as the last call (a settled status)
            return self
        self._key = key if F.shape[0] else None
        self._restore()                 # the operators of K: the previous ones are freed first
        self.hierarchy.coarse_solver = pyamg.multilevel.coarse_grid_solver("splu")
        if F.shape[0] == 0:
            return self
        delta = None
        if truncate and len(levels) > 1:
            P = self._prolongation()
            rows, delta = truncation(self._base[0], P, F)
            try:
                self._P_changed = replace_rows(P, *rows)
            except ValueError:          # fill-in (not met in smoothed aggregation): not truncated
                delta = None
        penalty = penalty_matrix(F, self._diagonal, stiffness)
        if not self._add_in_place(penalty):
            levels[0].A = (self._base[0] + penalty).tocsr()
        if delta is None and len(levels) > 1:
            delta = (levels[0].R @ penalty @ levels[0].P).tocsr()
        for i in range(1, len(levels)):
            levels[i].A = (self._base[i] + delta).tocsr()
            if i + 1 < len(levels):
                delta = (levels[i].R @ delta @ levels[i].P).tocsr()
        return self

    def _prolongation(self) -> sp.csr_matrix:
        """The finest prolongation, CSR with sorted indices, and the restriction its transpose.

        Converted once from the set-up's block matrices (the same values),
        which it replaces: the restriction is a view of the transpose (CSC,
        no copy), so :meth:`constrained` changes both by changing rows of
        ``P`` in place.
        """
        if self._P is None:
            level = self.hierarchy.levels[0]
            P = sp.csr_matrix(level.P)
            P.sort_indices()
            level.P, level.R = P, P.T
            self._P = P
        return self._P

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
        if self._P_changed is not None:
            positions, values = self._P_changed
            self._P.data[positions] = values
            self._P_changed = None

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


def truncation(K: sp.csr_matrix, P: sp.csr_matrix, F: sp.csr_matrix) -> tuple:
    r"""The prolongation ``P`` truncated at the constraints ``F``, and the change of ``P^T K P``.

    ``P_t = (I - Q) P`` with ``Q`` the orthogonal projector onto the span of
    the rows of ``F`` when no two rows share a DOF
    (``Q = F^T diag(1/|f_r|^2) F``: each constrained node loses the
    constrained component of every coarse function), otherwise the
    selection of every DOF a row touches (those DOFs are dropped from the
    prolongation).  Either way ``Q`` lives on the touched DOFs ``t``, so
    ``P_c = Q P`` has rows there only and

    .. math::

        P_t^T K P_t - P^T K P = -X - X^T + P_c^T K P_c, \qquad X = P_c^T K P,

    computed from the rows of ``K`` at ``t``.  ``F P_t = 0``, so a penalty
    ``F^T R F`` on the finest level adds nothing to the coarse operator.

    Parameters
    ----------
    K : csr_matrix, shape (n, n)
        Symmetric.
    P : csr_matrix, shape (n, n_c)
    F : csr_matrix, shape (c, n)

    Returns
    -------
    rows : tuple
        ``(t, P_t[t])``: the touched DOFs, ndarray of int, shape (t,), and
        the rows of ``P_t`` there, csr_matrix, shape (t, n_c) (elsewhere
        ``P_t = P``).
    delta : csr_matrix, shape (n_c, n_c)
        ``P_t^T K P_t - P^T K P``.
    """
    touched = np.unique(F.indices)
    Ft = F[:, touched]
    if np.all(np.bincount(Ft.indices, minlength=touched.size) <= 1):
        norms = np.asarray(Ft.multiply(Ft).sum(axis=1)).ravel()
        Q = (Ft.T @ sp.diags(1.0 / np.maximum(norms, 1e-300)) @ Ft).tocsr()
    else:
        Q = sp.identity(touched.size, format="csr")
    Pc = (Q @ P[touched]).tocsr()                                   # (t, n_c)
    Kt = K[touched]                                                 # (t, n)
    X = (Pc.T @ (Kt @ P)).tocsr()
    delta = (Pc.T @ (Kt[:, touched] @ Pc) - X - X.T).tocsr()
    return (touched, (P[touched] - Pc).tocsr()), delta


def replace_rows(P: sp.csr_matrix, rows: np.ndarray, values: sp.csr_matrix) -> tuple:
    """Rows ``rows`` of ``P`` replaced by ``values``, in place, on the pattern of ``P``.

    Every entry of those rows is set to zero, then the nonzeros of
    ``values`` are written at their places.  ``P`` keeps its pattern (the
    zeros stay stored): the truncated rows of :func:`truncation` are
    combinations of the rows of one node, which in smoothed aggregation
    share their pattern.

    Parameters
    ----------
    P : csr_matrix, shape (n, m)
        With sorted indices.
    rows : ndarray of int, shape (t,)
    values : csr_matrix, shape (t, m)

    Returns
    -------
    tuple
        ``(positions, old)``: positions in ``P.data`` and the values they
        had, to put back.

    Raises
    ------
    ValueError
        A nonzero of ``values`` falls outside the pattern of ``P``.
    """
    starts, ends = P.indptr[rows].astype(np.int64), P.indptr[rows + 1].astype(np.int64)
    counts = ends - starts
    positions = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    coo = values.tocoo()
    keep = coo.data != 0
    targets = entry_positions(P, rows[coo.row[keep]], coo.col[keep])
    if targets is None:
        raise ValueError("the new rows fill in entries outside the pattern of P")
    old = P.data[positions].copy()
    P.data[positions] = 0.0
    P.data[targets] = coo.data[keep]
    return positions, old


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
