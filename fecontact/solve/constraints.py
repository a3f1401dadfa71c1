r"""The constraint split of a Newton system: sliding rows condensed, constraint rows projected out.

After the multipliers of open nodes are eliminated, the Newton system reads

.. math::

    \begin{bmatrix} K + D & E\\ F & G \end{bmatrix}
    \begin{bmatrix} \delta u\\ \delta\lambda \end{bmatrix} =
    \begin{bmatrix} b_1\\ b_2 \end{bmatrix}.

Rows whose ``G`` row vanishes are *constraints* ``F_c du = b_c``; the others
(``s``: sliding tangential rows, penalty normal rows) are condensed,
``dl_s = G_ss^{-1}(b_s - G_sc dl_c - F_s du)``.  What remains is
``(K + C) du + E_hat dl_c = r_hat`` with ``F_c du = b_c``, where
``C = D - E_s G_ss^{-1} F_s`` and ``E_hat = E_c - E_s G_ss^{-1} G_sc`` are
supported on the contact unknowns.  With ``S = F_c E_hat`` the projector
``P = I - E_hat S^{-1} F_c`` maps onto ``ker F_c``, and
``du = du_p + delta`` with ``du_p = E_hat S^{-1} b_c`` and ``delta`` in
``ker F_c``.  :class:`ConstraintSplit` holds these small pieces; the Krylov
solvers (:mod:`fecontact.solve.krylov` in one process,
:mod:`fecontact.solve.petsc` across MPI ranks) apply them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


@dataclass(frozen=True)
class ConstraintSplit:
    """The contact-supported pieces of a Newton system (see the module).

    Attributes
    ----------
    c, s : ndarray of int
        Constraint and condensed rows of the engaged multipliers.
    F_c : scipy.sparse.csr_matrix, shape (len(c), n)
    C : scipy.sparse.csr_matrix, shape (n, n)
        ``D - E_s G_ss^{-1} F_s``, supported on the contact unknowns.
    E_hat : scipy.sparse.csc_matrix, shape (n, len(c))
    r_hat : ndarray, shape (n,)
        ``b_1 - E_s G_ss^{-1} b_s``.
    du_p : ndarray, shape (n,)
        ``E_hat S^{-1} b_c``: satisfies the constraints.
    lu_c, lu_s : SuperLU or None
        Factors of ``S = F_c E_hat`` and of ``G_ss`` (``None`` when empty).
    F_s : scipy.sparse.csr_matrix, shape (len(s), n)
    G_sc : scipy.sparse.csr_matrix, shape (len(s), len(c))
    b2 : ndarray, shape (e,)
    """

    c: np.ndarray
    s: np.ndarray
    F_c: sp.csr_matrix
    C: sp.csr_matrix
    E_hat: sp.csc_matrix
    r_hat: np.ndarray
    du_p: np.ndarray
    lu_c: object
    lu_s: object
    F_s: sp.csr_matrix
    G_sc: sp.csr_matrix
    b2: np.ndarray

    def constraint_solve(self, y: np.ndarray) -> np.ndarray:
        """``S^{-1} y``, shape (len(c),) (zeros without constraints)."""
        return self.lu_c.solve(y) if self.c.size else np.zeros(0)

    def multipliers(self, Fc_rest: np.ndarray, du: np.ndarray) -> np.ndarray:
        """``dl``, shape (e,), from ``F_c (r' - A delta)`` and the full step ``du``."""
        dl = np.zeros(self.b2.size)
        if self.c.size:
            dl[self.c] = self.lu_c.solve(Fc_rest)
        if self.s.size:
            dl[self.s] = self.lu_s.solve(self.b2[self.s] - self.G_sc @ dl[self.c] - self.F_s @ du)
        return dl


def split_constraints(D: sp.spmatrix, E: sp.spmatrix, F: sp.spmatrix, G: sp.spmatrix,
                      b1: np.ndarray, b2: np.ndarray) -> ConstraintSplit:
    """Condense the sliding rows and factor the constraint block (see the module).

    Parameters
    ----------
    D : sparse, shape (n, n)
    E : sparse, shape (n, e)
    F : sparse, shape (e, n)
    G : sparse, shape (e, e)
    b1 : ndarray, shape (n,)
    b2 : ndarray, shape (e,)

    Returns
    -------
    ConstraintSplit

    Raises
    ------
    numpy.linalg.LinAlgError
        When the sliding block ``G_ss`` or ``S = F_c E_hat`` is singular
        (redundant constraints, a free rigid-body mode).
    """
    E, F, G = sp.csc_matrix(E), sp.csr_matrix(F), sp.csr_matrix(G)
    C = sp.csr_matrix(D)
    constraint = rows_without(G)
    c, s = np.flatnonzero(constraint), np.flatnonzero(~constraint)
    Fc, Fs = F[c], F[s]
    Ec, Es = E[:, c], E[:, s]
    Gsc = G[s][:, c]
    lu_s = None
    if s.size:
        lu_s = factor_block(sp.csc_matrix(G[s][:, s]), "sliding block G_ss")
        EsGinv = times_inverse(Es, lu_s)
        E_hat = (Ec - EsGinv @ Gsc).tocsc()
        r_hat = b1 - EsGinv @ b2[s]
        C = (C - EsGinv @ Fs).tocsr()
    else:
        E_hat, r_hat = Ec, np.array(b1, dtype=float)
    lu_c = None
    du_p = np.zeros_like(r_hat)
    if c.size:
        lu_c = factor_block(sp.csc_matrix(Fc @ E_hat), "constraint block F_c E")
        du_p = E_hat @ lu_c.solve(b2[c])
    return ConstraintSplit(c, s, Fc, C, E_hat, r_hat, du_p, lu_c, lu_s, Fs, sp.csr_matrix(Gsc),
                           np.asarray(b2, dtype=float))


def rows_without(G: sp.spmatrix) -> np.ndarray:
    """Rows of ``G`` with no nonzero entry, shape (e,) of bool."""
    G = sp.csr_matrix(G, copy=True)
    G.eliminate_zeros()
    return np.diff(G.indptr) == 0


def times_inverse(E: sp.spmatrix, lu) -> sp.csr_matrix:
    """``E G^{-1}`` (``lu`` factors ``G``), computed on the nonzero rows of ``E`` only."""
    E = sp.csr_matrix(E)
    rows = np.flatnonzero(np.diff(E.indptr))
    if rows.size == 0:
        return sp.csr_matrix(E.shape)
    block = lu.solve(np.ascontiguousarray(E[rows].toarray().T), trans="T").T     # (rows, s)
    coo = sp.coo_matrix(block)
    return sp.csr_matrix((coo.data, (rows[coo.row], coo.col)), shape=E.shape)


def factor_block(A: sp.csc_matrix, what: str):
    """Sparse LU of a small block; singular blocks raise ``LinAlgError`` naming it."""
    if A.shape[0] == 0:
        raise np.linalg.LinAlgError(f"empty {what}")
    try:
        return spla.splu(A)
    except RuntimeError as err:
        raise np.linalg.LinAlgError(f"singular {what}: {err}") from None
