r"""Newton steps of a PFC problem through the Delassus operator of its engaged contact rows.

The Newton system of :class:`fecontact.pfc.ssn.NewtonView` is

.. math::

    M\,dv - H\,dr = -R_1, \qquad J_{21}\,dv + J_{22}\,dr = -R_2,

with ``J21 = D_u H^T`` and ``J22`` block-diagonal per contact.  The contact
rows whose ``J21`` row vanishes and that ``J22`` does not couple to the
others (an open contact's, a frictionless contact's tangential ones: set
``F``) give ``J22_FF dr_F = -R2_F`` on their own.  For the other rows
(*engaged*, set ``E``), eliminating ``dv = M^{-1}(H dr - R_1)`` leaves a
dense system of ``|E|`` rows,

.. math::

    (J_{21,E} M^{-1} H_E + J_{22,EE})\,dr_E
      = -R_{2,E} + J_{21,E}\, y, \qquad y = M^{-1}(R_1 - H_F\,dr_F),

and ``dv = M^{-1}(H dr - R_1)``.  Since ``J21 = D_u H^T`` with ``D_u``
block-diagonal per contact, ``J_{21,E} M^{-1} H_E = D_{u,EK} W_{KE}``: a
block of the Delassus operator ``W = H^T M^{-1} H`` over the rows ``K``
that ``D_u`` couples to ``E``.

``M`` is factorised once.  Where it is symmetric (positive definite), by
CHOLMOD's supernodal Cholesky ``P M P^T = L L^T``
(:class:`fecontact.solve.factor.SupernodalCholesky`), and ``W`` over the
contact rows seen so far is ``Z^T Z`` with ``Z = L^{-1} P H_K``: half
solves with sparse right-hand sides, computed the first time a row is
needed and kept.  Where ``M`` is not symmetric, by LU, with the columns
``M^{-1} H_j`` at the DOFs ``H`` touches.  Each iteration then costs two
full solves and a dense solve of ``|E|`` rows.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from ..solve.factor import LU, SupernodalCholesky
from ..solve.operators import block_diagonal

__all__ = ["DelassusBackend", "DelassusCache"]

#: compliance columns computed per multi-right-hand-side solve
BATCH = 1024


class DelassusCache:
    """The Delassus operator ``W = H^T M^{-1} H`` over the contact rows met so far, grown on demand.

    Parameters
    ----------
    M : sparse matrix, shape (n, n)
    H : sparse matrix, shape (n, m d)
    symmetric : bool
        Factorise ``M`` by supernodal Cholesky (else by LU).

    Raises
    ------
    RuntimeError
        ``M`` cannot be factorised.
    """

    def __init__(self, M: sp.spmatrix, H: sp.spmatrix, symmetric: bool):
        self.symmetric = symmetric
        self.factor = SupernodalCholesky(M) if symmetric else LU(M)
        self.H = sp.csc_matrix(H)
        #: position of each contact row in :attr:`W` (-1: not yet computed)
        self.position = np.full(H.shape[1], -1)
        self.rows = np.zeros(0, dtype=int)
        #: ``W`` over :attr:`rows`, shape (k, k)
        self.W = np.zeros((0, 0))
        self._half = sp.csr_matrix((H.shape[0], 0))       # symmetric: L^{-1} P H[:, rows]
        self._touched = np.unique(self.H.tocsr().nonzero()[0])
        self._columns = np.zeros((self._touched.size, 0))  # LU: (M^{-1} H[:, rows])[touched]

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``W[rows][:, cols]``, shape (|rows|, |cols|), computing the rows not met before."""
        needed = np.union1d(rows, cols)
        new = needed[self.position[needed] < 0]
        for start in range(0, new.size, BATCH):
            self._extend(new[start:start + BATCH])
        return self.W[np.ix_(self.position[rows], self.position[cols])]

    def _extend(self, new: np.ndarray) -> None:
        """Append the rows and columns of ``new`` contact rows to :attr:`W`."""
        H_new = self.H[:, new]
        if self.symmetric:
            Z = self.factor.half_solve(H_new)
            cross = SupernodalCholesky.inner(self._half, Z)
            W = np.block([[self.W, cross], [cross.T, SupernodalCholesky.inner(Z, Z)]])
            self._half = sp.hstack([self._half, Z], format="csr")
        else:
            C = self.factor.solve(H_new.toarray())[self._touched]
            H_old, H_new = self.H[self._touched][:, self.rows], H_new[self._touched]
            W = np.block([[self.W, H_old.T @ C], [H_new.T @ self._columns, H_new.T @ C]])
            self._columns = np.hstack([self._columns, C])
        if not np.all(np.isfinite(W)):
            raise RuntimeError("M is singular: non-finite Delassus operator")
        self.position[new] = np.arange(self.rows.size, self.rows.size + new.size)
        self.rows, self.W = np.concatenate([self.rows, new]), W


class DelassusBackend:
    """Exact Newton steps through the Delassus operator of the engaged contacts (see the module).

    Parameters
    ----------
    view : fecontact.pfc.ssn.NewtonView

    Raises
    ------
    RuntimeError
        ``M`` cannot be factorised (singular; a problem with rigid modes).
    """

    name = "delassus"
    iterations = None

    def __init__(self, view):
        pfc = view.pfc
        if pfc.rigid_modes.shape[1]:
            raise RuntimeError("M has rigid modes: no Delassus operator")
        self.pfc, self.d = pfc, pfc.d
        self.cache = DelassusCache(pfc.M, pfc.H, pfc.symmetric)
        self.factor = self.cache.factor
        self.H = self.cache.H

    def forcing(self, status) -> float:
        """Every step is exact."""
        return 0.0

    @staticmethod
    def engaged_rows(D_u: sp.csr_matrix, J22: sp.csr_matrix) -> np.ndarray:
        """The contact rows whose ``D_u`` row is nonzero, with the rows ``J22`` couples to them.

        ``J21 = D_u H^T`` vanishes on the other rows (an open contact's, a
        frictionless contact's tangential ones), which then solve
        ``J22_FF dr_F = -R2_F`` on their own.  Zeros stored in ``D_u`` or
        ``J22`` do not count.
        """
        engaged = np.asarray(abs(D_u).sum(axis=1)).ravel() > 0
        coupling = sp.csr_matrix(J22 - sp.diags(J22.diagonal()))
        coupling.eliminate_zeros()
        link = (abs(coupling) + abs(coupling).T).tocsr()
        while True:
            grown = engaged | (link @ engaged.astype(float) > 0)
            if np.array_equal(grown, engaged):
                return np.flatnonzero(engaged)
            engaged = grown

    def solve(self, ev) -> np.ndarray:
        """The step ``[dv; dr]`` of ``J dx = -R``, shape (n + m d,)."""
        n = ev.n_reduced
        R1, R2 = ev.residual[:n], ev.residual[n:]
        J22 = sp.csr_matrix(ev.J22)
        D_u = block_diagonal(ev.contact.d_kinematics).tocsr()          # J21 = D_u H^T
        D_u.eliminate_zeros()
        rows_e = self.engaged_rows(D_u, J22)
        rows_f = np.setdiff1d(np.arange(R2.size), rows_e)
        dr = np.zeros(R2.size)
        if rows_f.size:                               # decoupled from the engaged rows
            dr[rows_f] = sp.linalg.spsolve(J22[rows_f][:, rows_f].tocsc(), -R2[rows_f])
        if rows_e.size:
            y = self.factor.solve(R1 - self.H[:, rows_f] @ dr[rows_f])
            D_e = D_u[rows_e]
            rows_k = np.union1d(rows_e, np.unique(D_e.indices))
            A = D_e[:, rows_k] @ self.cache.block(rows_k, rows_e) + J22[rows_e][:, rows_e].toarray()
            dr[rows_e] = la.solve(A, -R2[rows_e] + D_e @ (self.H.T @ y), check_finite=False)
        dv = self.factor.solve(self.H @ dr - R1)
        return np.concatenate([dv, dr])

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``M x = rhs`` with the factorisation of ``M``."""
        return self.factor.solve(rhs)
