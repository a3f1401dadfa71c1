"""The ``schur`` backend: one factorisation of the bulk stiffness reused through the compliance of the contact DOFs (Woodbury)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .factor import factorize, factorized_reference_solve, pinned_stiffness


class SchurBackend:
    r"""Reuse one factorisation of the bulk stiffness across all Newton iterations.

    Bodies held only by contact make ``K_hat`` singular.  Then ``r`` DOFs
    that fix the unsupported rigid-body modes ``Z`` (chosen by QR with column
    pivoting of ``Z^T``) are pinned by springs of stiffness ``eps`` (the mean
    diagonal of ``K_hat``); the regularised matrix is factorised, and the
    exact Newton step follows from the Woodbury identity

    .. math::

        J^{-1} = J_\epsilon^{-1} + J_\epsilon^{-1} P\,(\epsilon^{-1} I
                 - P^T J_\epsilon^{-1} P)^{-1} P^T J_\epsilon^{-1},\qquad
        J_\epsilon = J + \epsilon P P^T,

    at the price of ``r`` extra right-hand sides per iteration.

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, shape (n_reduced, n_reduced), optional
        The constant bulk block of ``J11`` when it is not ``K_hat`` (a time
        step's effective stiffness, positive definite: nothing is pinned).

    Raises
    ------
    RuntimeError
        The (regularised) bulk matrix cannot be factorised.
    """

    name = "schur"
    #: not iterative (the condensed contact system's GMRES is internal and not counted)
    iterations = None

    def __init__(self, problem, matrix=None):
        self.problem = problem
        if matrix is None:
            self.matrix = problem.system.K_hat
            K_reg, self.pinned, self.eps = pinned_stiffness(problem.system)
        else:
            self.matrix = K_reg = matrix
            self.pinned, self.eps = np.zeros(0, dtype=int), 0.0
        self.lu = factorize(K_reg)
        universe = problem.contact_dofs
        self.position = np.full(problem.system.n_reduced, -1)
        self.position[universe] = np.arange(universe.size)
        self.universe = universe
        self.W = np.zeros((universe.size, universe.size))
        self.computed = np.zeros(universe.size, dtype=bool)

    def compliance(self, S: np.ndarray) -> np.ndarray:
        """``W[S, S]``, computing missing columns by back-substitution.

        Parameters
        ----------
        S : ndarray of int, shape (s,)
            Reduced DOFs, all on the contact surfaces.

        Returns
        -------
        ndarray, shape (s, s)
            The compliance ``P_S^T K^{-1} P_S`` of the (regularised) bulk matrix.
        """
        pos = self.position[S]
        if np.any(pos < 0):
            raise RuntimeError("contact touched a DOF outside the contact surfaces")
        missing = pos[~self.computed[pos]]
        if missing.size:
            rhs = np.zeros((self.problem.system.n_reduced, missing.size))
            rhs[self.universe[missing], np.arange(missing.size)] = 1.0
            cols = self.lu.solve(rhs)
            self.W[:, missing] = cols[self.universe]
            self.computed[missing] = True
        return self.W[np.ix_(pos, pos)]

    def solve(self, ev) -> np.ndarray:
        """The exact Newton step of ``J dx = -R``.

        Parameters
        ----------
        ev : fecontact.solve.problem.Evaluation

        Returns
        -------
        ndarray, shape (n_reduced + n_multipliers,)
        """
        if not self.pinned.size:
            return self._solve(ev, -ev.residual[:, None])[:, 0]
        rhs = np.zeros((ev.residual.size, 1 + self.pinned.size))
        rhs[:, 0] = -ev.residual
        rhs[self.pinned, 1 + np.arange(self.pinned.size)] = 1.0
        sol = self._solve(ev, rhs)
        x, Y = sol[:, 0], sol[:, 1:]
        capacity = np.eye(self.pinned.size) / self.eps - Y[self.pinned]
        return x + Y @ la.solve(capacity, x[self.pinned])

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K_hat x = rhs``, shape (n_reduced,), from scratch (:func:`~fecontact.solve.factor.factorized_reference_solve`)."""
        return factorized_reference_solve(self.problem.system, rhs)

    def _solve(self, ev, rhs: np.ndarray) -> np.ndarray:
        """Solve ``J_eps X = rhs`` for right-hand sides ``rhs`` of shape (n, c)."""
        n = ev.n_reduced
        B1, B2 = rhs[:n].copy(), rhs[n:]
        J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
        for block in (J12, J21):
            block.eliminate_zeros()     # e.g. x-components against a horizontal flat
        D_full = contact_block(ev)
        trivial, dlam = open_rows(J21, J22, B2)
        B1 = B1 - J12[:, trivial] @ dlam[trivial]
        engaged = np.flatnonzero(~trivial)
        J12e = J12[:, engaged]
        J21e = J21[engaged]
        S = np.unique(np.concatenate([
            J21e.indices, J12e.tocsr().nonzero()[0],
            D_full.nonzero()[0], D_full.nonzero()[1]])).astype(int)
        if S.size == 0:
            return np.vstack([self.lu.solve(B1), dlam])
        W = self.compliance(S)
        D = D_full[S][:, S].tocsr()
        E = (-J12e[S]).tocsc()
        F = J21e[:, S].tocsr()
        G = J22[engaged][:, engaged].toarray()
        w0 = self.lu.solve(B1)[S]
        y, dl = _condensed_solve(W, D, E, F, G, w0, B2[engaged])
        rhs_u = B1
        rhs_u[S] -= D @ y - E @ dl
        du = self.lu.solve(rhs_u)
        dlam[engaged] = dl
        return np.vstack([du, dlam])


def contact_block(ev) -> sp.csr_matrix:
    """The contact part ``D`` of ``J11``, shape (n_reduced, n_reduced) (empty when the evaluation has none)."""
    n = ev.n_reduced
    return sp.csr_matrix((n, n)) if ev.D is None else ev.D.tocsr()


def _condensed_solve(W, D, E, F, G, w, b, tol=1e-14, max_iterations=30):
    r"""Solve the condensed contact system

    .. math::

        \begin{bmatrix} I + W D & -W E\\ F & G \end{bmatrix}
        \begin{bmatrix} y\\ \delta\lambda \end{bmatrix} =
        \begin{bmatrix} w\\ b \end{bmatrix}

    (``W`` dense compliance on the ``s`` engaged displacement DOFs; ``D``
    the sparse geometric stiffness of contact, ``E``, ``F`` sparse, ``G``
    dense on the ``e`` engaged multipliers).  Without ``W D`` the
    displacement block eliminates exactly, ``y = w + W E dl`` and
    ``(G + F W E) dl = b - F w``: an ``e x e`` dense factorisation with the
    sparse products ``W E`` and ``F (W E)``, instead of one of size
    ``s + e``.  ``W D`` (compliance times the contact curvature terms) is
    then brought in by GMRES on the whole system, preconditioned by that
    elimination, until the residual is ``tol`` relative, so the Newton step
    stays exact; 10-15 iterations on ``cattaneo3d``.  If GMRES does not
    converge, the whole system is solved densely.
    """
    WE = (E.T @ W.T).T                                # W E, dense (s, e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", la.LinAlgWarning)     # singular: checked below
        lu = la.lu_factor(G + F @ WE)

    def precondition(r1, r2):
        dl = la.lu_solve(lu, r2 - F @ r1)
        return r1 + WE @ dl, dl

    y, dl = precondition(w, b)
    s, e = WE.shape
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(dl))):
        return _dense_condensed_solve(W, D, WE, F, G, w, b)     # singular elimination
    if D.nnz == 0:
        return y, dl

    def operator(x):
        x = x.reshape(s + e, -1)
        xy, xl = x[:s], x[s:]
        return np.vstack([xy + W @ (D @ xy) - WE @ xl, F @ xy + G @ xl]).ravel()

    def preconditioner(r):
        r = r.reshape(s + e, -1)
        return np.vstack(precondition(r[:s], r[s:])).ravel()

    A = spla.LinearOperator((s + e, s + e), matvec=operator, dtype=float)
    P = spla.LinearOperator((s + e, s + e), matvec=preconditioner, dtype=float)
    rhs = np.vstack([w, b])
    out = np.vstack([y, dl])
    for j in range(rhs.shape[1]):
        col, info = spla.gmres(A, rhs[:, j], x0=out[:, j], M=P, rtol=tol, atol=0.0,
                               restart=max_iterations, maxiter=2)
        if info != 0 or not np.all(np.isfinite(col)):
            return _dense_condensed_solve(W, D, WE, F, G, w, b)
        out[:, j] = col
    return out[:s], out[s:]


def _dense_condensed_solve(W, D, WE, F, G, w, b):
    """The condensed system as one dense matrix (fallback of :func:`_condensed_solve`).

    Raises ``numpy.linalg.LinAlgError`` if it is singular (redundant contact
    constraints, a free rigid-body mode).
    """
    s = W.shape[0]
    M = np.block([[np.eye(s) + W @ D.toarray(), -WE], [F.toarray(), G]])
    r, c = equilibrate(M)
    sol = c[:, None] * la.solve(r[:, None] * M * c, r[:, None] * np.vstack([w, b]))
    return sol[:s], sol[s:]


def equilibrate(M: np.ndarray, sweeps: int = 20) -> tuple:
    """Row and column scalings ``r``, ``c`` (powers of two) that equilibrate a dense matrix.

    The condensed system mixes compliance (``1/E``) and stiffness (``E``)
    scales, so in SI units its raw condition number is near ``1e24`` and
    LAPACK warns although the system is well posed.  Ruiz's iteration
    divides every row and column by the square root of its largest entry
    until they are all about one; ``diag(r) M diag(c)`` then shows the
    conditioning of the problem, not of its units.  Powers of two make the
    scaling exact in floating point.

    Parameters
    ----------
    M : ndarray, shape (n, n)
    sweeps : int
        Ruiz iterations (each halves the logarithm of the imbalance).

    Returns
    -------
    r, c : ndarray, shape (n,)
        Solve ``(r[:, None] * M * c) z = r * b``, then ``x = c * z``.
    """
    n = M.shape[0]
    r, c = np.ones(n), np.ones(n)
    A = np.abs(M)
    for _ in range(sweeps):
        rows = A.max(axis=1)
        cols = A.max(axis=0)
        dr = _power_of_two(rows)
        dc = _power_of_two(cols)
        if np.all(dr == 1.0) and np.all(dc == 1.0):
            break
        r *= dr
        c *= dc
        A = dr[:, None] * A * dc
    return r, c


def _power_of_two(norms: np.ndarray) -> np.ndarray:
    """``1/sqrt(norms)`` rounded to a power of two; one where a row or column is zero or non-finite."""
    ok = np.isfinite(norms) & (norms > 0.0)
    out = np.ones_like(norms)
    out[ok] = np.exp2(-np.round(0.5 * np.log2(norms[ok])))
    return out


def open_rows(J21: sp.csr_matrix, J22: sp.csr_matrix, b2: np.ndarray) -> tuple:
    """Multipliers whose rows do not depend on ``u`` and are diagonal (open nodes).

    Parameters
    ----------
    J21 : sparse, shape (m, n)
    J22 : sparse, shape (m, m)
    b2 : ndarray, shape (m,) or (m, c)
        Right-hand side(s) of the multiplier rows.

    Returns
    -------
    trivial : ndarray of bool, shape (m,)
        The rows that are open.
    dlam : ndarray, the shape of ``b2``
        ``b2_i / J22_ii`` on those rows, zero elsewhere.
    """
    J21 = J21.copy()
    J21.eliminate_zeros()
    row_nnz_u = np.diff(J21.indptr)
    offdiag = (J22 - sp.diags(J22.diagonal())).tocsr()
    offdiag.eliminate_zeros()
    trivial = (row_nnz_u == 0) & (np.diff(offdiag.indptr) == 0)
    dlam = np.zeros(b2.shape)
    diagonal = J22.diagonal()[trivial]
    dlam[trivial] = b2[trivial] / (diagonal if b2.ndim == 1 else diagonal[:, None])
    return trivial, dlam
