r"""Linear solver backends for the semismooth Newton step.

Both backends solve the same system ``J dx = -R`` (see
:mod:`fecontact.problem`); they differ in how.

``direct``
    Sparse LU of the whole generalised Jacobian at every iteration.  Works
    for any problem, including bodies held only by contact.

``schur``
    Factorises the bulk stiffness ``K_hat`` once per problem and reuses it.
    Writing the Jacobian as ``K_hat`` plus blocks that touch only the contact
    DOFs ``S`` and the engaged multipliers,

    .. math::

        \begin{bmatrix} \hat K + P_S D P_S^T & -P_S E \\ F P_S^T & G\end{bmatrix}
        \begin{bmatrix} \delta u\\ \delta\lambda\end{bmatrix}
        = -\begin{bmatrix} R_1\\ R_2\end{bmatrix},

    ``y = P_S^T \delta u`` solves the small dense system
    ``[(I + W D), -W E; F, G] [y; dlam] = [-w_0; -R_2]`` with the contact
    compliance ``W = P_S^T K_hat^{-1} P_S`` (columns computed once per contact
    DOF by back-substitution and cached) and ``w_0 = P_S^T K_hat^{-1} R_1``;
    then ``du = K_hat^{-1}(-R_1 - P_S (D y - E dlam))``.  Multipliers whose
    rows do not depend on ``u`` and are diagonal (open nodes) are eliminated
    first.  Each iteration costs two back-substitutions and a dense solve of
    the size of the contact zone instead of a new factorisation.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

logger = logging.getLogger(__name__)


class DirectBackend:
    """Sparse LU (SuperLU) of the full Jacobian at each iteration."""

    name = "direct"

    def __init__(self, problem):
        self.problem = problem

    def solve(self, ev) -> np.ndarray:
        return spla.spsolve(ev.jacobian(), -ev.residual)


class Cholesky:
    """Sparse Cholesky factorisation of a symmetric positive definite matrix (CHOLMOD via cholespy).

    ``solve`` takes one right-hand side of shape (n,) or several of shape (n, c).
    """

    def __init__(self, K: sp.spmatrix):
        from cholespy import CholeskySolverD, MatrixType

        coo = sp.coo_matrix(K)
        self.n = K.shape[0]
        try:
            self._solver = CholeskySolverD(self.n, coo.row.astype(np.int32),
                                           coo.col.astype(np.int32),
                                           coo.data.astype(np.float64), MatrixType.COO)
        except ValueError as err:
            raise RuntimeError(f"cannot factorise the stiffness matrix: {err}") from None

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        b = np.ascontiguousarray(rhs, dtype=np.float64)
        x = np.zeros_like(b)
        if b.ndim == 2 and b.shape[1] == 0:
            return x
        self._solver.solve(b, x)
        if not np.all(np.isfinite(x)):
            raise RuntimeError("the stiffness matrix is not positive definite")
        return x


def factorize(K: sp.spmatrix):
    """Factorise a symmetric positive definite FE stiffness once for many solves.

    CHOLMOD's supernodal Cholesky (cholespy) is an order of magnitude faster
    than SuperLU on 3D elasticity (see docs/decisions.md).
    """
    return Cholesky(K)


def pinned_stiffness(system) -> tuple:
    """``K_hat`` with springs on DOFs that fix its unsupported rigid-body modes.

    Returns
    -------
    (K, pinned, eps)
        The matrix to factorise, the pinned reduced DOFs (QR with column
        pivoting of the modes ``Z^T``, one per mode) and the spring stiffness
        (mean diagonal of ``K_hat``).  ``K = K_hat`` when every body is supported.
    """
    K_hat = system.K_hat
    modes = system.free_modes()
    if not modes.shape[1]:
        return K_hat, np.zeros(0, dtype=int), 0.0
    _, _, piv = la.qr(modes.T, mode="economic", pivoting=True)
    pinned = np.sort(piv[: modes.shape[1]])
    eps = float(np.mean(K_hat.diagonal()))
    springs = sp.csc_matrix((np.full(pinned.size, eps), (pinned, pinned)), shape=K_hat.shape)
    return (K_hat + springs).tocsc(), pinned, eps


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
    """

    name = "schur"

    def __init__(self, problem, matrix=None):
        """``matrix``: the constant bulk block of ``J11`` when it is not ``K_hat``
        (a time step's effective stiffness, positive definite: nothing is pinned)."""
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
        """``W[S, S]``, computing missing columns by back-substitution."""
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
        if not self.pinned.size:
            return self._solve(ev, -ev.residual[:, None])[:, 0]
        rhs = np.zeros((ev.residual.size, 1 + self.pinned.size))
        rhs[:, 0] = -ev.residual
        rhs[self.pinned, 1 + np.arange(self.pinned.size)] = 1.0
        sol = self._solve(ev, rhs)
        x, Y = sol[:, 0], sol[:, 1:]
        capacity = np.eye(self.pinned.size) / self.eps - Y[self.pinned]
        return x + Y @ la.solve(capacity, x[self.pinned])

    def _solve(self, ev, rhs: np.ndarray) -> np.ndarray:
        """Solve ``J_eps X = rhs`` for right-hand sides ``rhs`` of shape (n, c)."""
        n = ev.n_reduced
        B1, B2 = rhs[:n].copy(), rhs[n:]
        J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
        for block in (J12, J21):
            block.eliminate_zeros()     # e.g. x-components against a horizontal flat
        D_full = _contact_block(ev)
        # multipliers with u-independent, diagonal rows: dlam = B2/J22_ii
        row_nnz_u = np.diff(J21.indptr)
        offdiag = J22 - sp.diags(J22.diagonal())
        offdiag.eliminate_zeros()
        trivial = (row_nnz_u == 0) & (np.diff(offdiag.tocsr().indptr) == 0)
        dlam = np.zeros(B2.shape)
        dlam[trivial] = B2[trivial] / J22.diagonal()[trivial, None]
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


def _contact_block(ev) -> sp.csr_matrix:
    """The contact part ``D`` of ``J11`` (an empty matrix when the evaluation has none)."""
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
    sol = la.solve(M, np.vstack([w, b]))
    return sol[:s], sol[s:]


BACKENDS = {"direct": DirectBackend, "schur": SchurBackend}


def make_backend(name: str, problem, matrix=None):
    """Backend by name.

    ``"auto"`` picks ``schur`` (which handles bodies held only by contact
    through pinned rigid-body modes), and ``direct`` if the regularised bulk
    stiffness still cannot be factorised.  ``matrix`` is the constant bulk
    block of the Jacobian when it is not ``K_hat`` (dynamics).
    """
    if name not in BACKENDS and name != "auto":
        raise ValueError(f"unknown linear solver backend {name!r}; choose one of "
                         f"{', '.join(['auto', *BACKENDS])}")
    if name == "direct":
        return DirectBackend(problem)
    try:
        return SchurBackend(problem, matrix)
    except RuntimeError as err:
        if name == "schur":
            raise
        logger.info("bulk matrix not factorisable (%s): using the direct backend", err)
        return DirectBackend(problem)
