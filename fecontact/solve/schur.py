"""The ``schur`` backend: one factorisation of the bulk stiffness reused through the compliance of the contact DOFs (Woodbury)."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .factor import factorize, factorized_reference_solve, pinned_stiffness
from .krylov import LaggedSetup
from .vectors import norm

logger = logging.getLogger(__name__)

#: finite strain: refactorise when the outer GMRES needs this many times the iterations per decade
#: of its first solve, and at least this many per decade
REFRESH = 2.0
#: finite strain: outer GMRES iterations before the step is given up (or refactorised)
MAX_OUTER = 200


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

    With bodies in finite strain the bulk block is the tangent ``K(u)`` of
    each iterate (in a time step the effective matrix with the tangent), and
    the cached compliance belongs to the factorised matrix only.  The step is
    then found by GMRES on the current Jacobian, right-preconditioned by the
    exact step above of the Jacobian with the factorised matrix in place of
    ``K(u)`` (two back-substitutions and the condensed solve per GMRES
    iteration), to a tenth of Newton's tolerance (relative to the larger of
    the force scale and the residual): with ``K_hat`` a few iterations per
    decade at 2 % strain, more at 30 %.  The factorisation (of ``K_hat`` at
    first) is replaced by one of the current tangent, and the compliance
    columns computed again as contact needs them, only when GMRES has become
    slow (:class:`~fecontact.solve.krylov.LaggedSetup`: ``refresh`` times the
    iterations per decade of the first solve with it, at least ``refresh`` per
    decade) or fails (then retried with the new one); a tangent that is not
    positive definite is factorised by LU.

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, shape (n_reduced, n_reduced), optional
        The constant bulk block of ``J11`` when it is not ``K_hat`` (a time
        step's effective stiffness, positive definite: nothing is pinned).
    tolerance : float
        Newton's relative tolerance (finite strain: steps are solved to a tenth of it).
    refresh : float
        Finite strain: allowed growth of the outer GMRES iterations per decade.

    Raises
    ------
    RuntimeError
        The (regularised) bulk matrix cannot be factorised.
    """

    name = "schur"

    def __init__(self, problem, matrix=None, tolerance: float = 1e-9, refresh: float = REFRESH):
        self.problem = problem
        if matrix is None:
            self.matrix = problem.system.K_hat
            K_reg, self.pinned, self.eps = pinned_stiffness(problem.system)
        else:
            self.matrix = K_reg = matrix
            self.pinned, self.eps = np.zeros(0, dtype=int), 0.0
        # simplicial: with the supernodal factor a shape gradient of tests/test_sensitivity_2d.py
        # moved by 3e-6 relative (against 5e-7), not explained yet; its half solves stay in factor.py
        self.lu = factorize(K_reg, method="simplicial")
        universe = problem.contact_dofs
        self.position = np.full(problem.system.n_reduced, -1)
        self.position[universe] = np.arange(universe.size)
        self.universe = universe
        self.W = np.zeros((universe.size, universe.size))
        self.computed = np.zeros(universe.size, dtype=bool)
        self._forget_half_solves()
        self.varies = bool(getattr(problem.system, "finite_strain", ()))
        self.tolerance = tolerance
        self.lagged = LaggedSetup(refresh, floor=1.0)
        #: outer GMRES iterations with a varying stiffness; otherwise not iterative (``None``: the
        #: condensed contact system's GMRES is internal and not counted)
        self.iterations = 0 if self.varies else None

    def compliance(self, S: np.ndarray) -> np.ndarray:
        """``W[S, S]``, computing the entries not met before.

        With a supernodal Cholesky factor (:func:`~fecontact.solve.factor.factorize`'s
        default) by half solves of the new DOFs (:meth:`_half_compliance`), with
        the LU of an indefinite tangent by whole columns (full substitutions).

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
        missing = np.unique(pos[~self.computed[pos]])
        if missing.size and hasattr(self.lu, "half_solve"):
            self._half_compliance(missing)
        elif missing.size:
            rhs = np.zeros((self.problem.system.n_reduced, missing.size))
            rhs[self.universe[missing], np.arange(missing.size)] = 1.0
            cols = self.lu.solve(rhs)
            self.W[:, missing] = cols[self.universe]
        self.computed[missing] = True
        return self.W[np.ix_(pos, pos)]

    def _half_compliance(self, missing: np.ndarray) -> None:
        """``W`` between the ``missing`` positions and those computed before, by half solves.

        ``W_ij = z_i^T z_j`` with ``z = L^{-1} P e`` for the unit vectors of
        the two DOFs (:meth:`~fecontact.solve.factor.SupernodalCholesky.half_solve`):
        sparse substitutions, and only the block among the columns contact
        has needed, not whole columns over the contact surfaces.

        Parameters
        ----------
        missing : ndarray of int, shape (m,)
            Positions in :attr:`universe` not computed yet, without repeats.
        """
        from .factor import SupernodalCholesky

        n = self.problem.system.n_reduced
        unit = sp.csc_matrix((np.ones(missing.size), (self.universe[missing], np.arange(missing.size))),
                             shape=(n, missing.size))
        Z = self.lu.half_solve(unit)
        if self._half_positions.size:
            cross = SupernodalCholesky.inner(self._half, Z)
            self.W[np.ix_(self._half_positions, missing)] = cross
            self.W[np.ix_(missing, self._half_positions)] = cross.T
            self._half = sp.hstack([self._half, Z], format="csr")
        else:
            self._half = Z
        self.W[np.ix_(missing, missing)] = SupernodalCholesky.inner(Z, Z)
        self._half_positions = np.concatenate([self._half_positions, missing])

    def solve(self, ev) -> np.ndarray:
        """The Newton step of ``J dx = -R``: exact, or with a varying stiffness to a tenth of Newton's tolerance.

        Parameters
        ----------
        ev : fecontact.solve.problem.Evaluation

        Returns
        -------
        ndarray, shape (n_reduced + n_multipliers,)

        Raises
        ------
        RuntimeError
            With a varying stiffness: GMRES did not converge, even after refactorising.
        """
        if self.varies:
            return self._outer_solve(ev)
        return self._inverse(ev)(-ev.residual[:, None])[:, 0]

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K_hat x = rhs``, shape (n_reduced,), from scratch (:func:`~fecontact.solve.factor.factorized_reference_solve`)."""
        return factorized_reference_solve(self.problem.system, rhs)

    def _inverse(self, ev):
        """``X = J_ref^{-1} rhs`` (rhs (N, c) -> (N, c)): the Jacobian of ``ev`` with the factorised bulk matrix."""
        step = _Step(self, ev)
        if not self.pinned.size:
            return step
        unit = np.zeros((ev.residual.size, self.pinned.size))
        unit[self.pinned, np.arange(self.pinned.size)] = 1.0
        Y = step(unit)
        capacity = la.lu_factor(np.eye(self.pinned.size) / self.eps - Y[self.pinned])
        return lambda rhs: (lambda x: x + Y @ la.lu_solve(capacity, x[self.pinned]))(step(rhs))

    def _outer_solve(self, ev) -> np.ndarray:
        """Finite strain: GMRES on the current Jacobian, preconditioned by the exact step of the factorised one."""
        from .krylov import gmres

        n = ev.n_reduced
        K, D = ev.K.tocsr(), contact_block(ev)
        J12, J21, J22 = ev.J12.tocsr(), ev.J21.tocsr(), ev.J22.tocsr()

        def apply(x):
            u, lam = x[:n], x[n:]
            return np.concatenate([K @ u + D @ u + J12 @ lam, J21 @ u + J22 @ lam])

        b = -ev.residual
        # a tenth of Newton's tolerance, relative to the force scale or to the residual when that
        # is larger (a first iterate that moves a body rigidly has almost no force scale)
        atol = 0.1 * self.tolerance * max(ev.force_scale, norm(b))
        if self.lagged.stale:
            self._refactor(K)
        for attempt in range(2):
            inverse = self._inverse(ev)
            x, its, converged = gmres(apply, b, lambda r: inverse(r[:, None])[:, 0], atol,
                                      MAX_OUTER)
            self.iterations += its
            if converged or attempt or self.lagged.baseline is None:
                break
            self._refactor(K)                   # an old factorisation: refactorise, try again
        if not converged or not np.all(np.isfinite(x)):
            raise RuntimeError(f"GMRES on the finite-strain Newton system did not reach {atol:.3e}")
        logger.debug("  schur: %d outer iterations", its)
        self.lagged.record(its, norm(b), atol)
        return x

    def _forget_half_solves(self) -> None:
        """No half solves kept (a new factorisation)."""
        self._half = sp.csr_matrix((self.problem.system.n_reduced, 0))
        #: positions in :attr:`universe` of the columns of :attr:`_half`
        self._half_positions = np.zeros(0, dtype=int)

    def _refactor(self, K) -> None:
        """Factorise the current tangent ``K`` (springs on the pinned DOFs) and forget the compliance."""
        if self.pinned.size:
            K = K + sp.csr_matrix((np.full(self.pinned.size, self.eps), (self.pinned, self.pinned)),
                                  shape=K.shape)
        self.lu = factorize(K, definite=False)
        self.W[:] = 0.0
        self.computed[:] = False
        self._forget_half_solves()
        self.lagged.rebuilt()
        logger.debug("  schur: refactorised the current tangent (%d so far)", self.lagged.rebuilds)


class _Step:
    """``J_eps^{-1}`` of one evaluation by the condensed contact system, prepared once for many right-hand sides.

    ``J_eps`` is the Jacobian of ``ev`` with the backend's factorised bulk
    matrix in place of ``ev.K`` (see :class:`SchurBackend`).
    """

    def __init__(self, backend: SchurBackend, ev):
        self.lu = backend.lu
        self.n = ev.n_reduced
        J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
        for block in (J12, J21):
            block.eliminate_zeros()     # e.g. x-components against a horizontal flat
        D_full = contact_block(ev)
        self.trivial, _ = open_rows(J21, J22, np.zeros(J22.shape[0]))
        self.diagonal = J22.diagonal()[self.trivial]
        self.J12t = J12[:, self.trivial]
        self.engaged = engaged = np.flatnonzero(~self.trivial)
        J12e = J12[:, engaged]
        J21e = J21[engaged]
        self.S = S = np.unique(np.concatenate([
            J21e.indices, J12e.tocsr().nonzero()[0],
            D_full.nonzero()[0], D_full.nonzero()[1]])).astype(int)
        if S.size:
            self.D = D_full[S][:, S].tocsr()
            self.E = (-J12e[S]).tocsc()
            self.condensed = _Condensed(backend.compliance(S), self.D, self.E, J21e[:, S].tocsr(),
                                        J22[engaged][:, engaged].toarray())

    def __call__(self, rhs: np.ndarray) -> np.ndarray:
        """``J_eps^{-1} rhs``, rhs of shape (N, c)."""
        n = self.n
        B1, B2 = rhs[:n].copy(), rhs[n:]
        dlam = np.zeros(B2.shape)
        dlam[self.trivial] = B2[self.trivial] / self.diagonal[:, None]
        B1 = B1 - self.J12t @ dlam[self.trivial]
        S = self.S
        if S.size == 0:
            return np.vstack([self.lu.solve(B1), dlam])
        w0 = self.lu.solve(B1)[S]
        y, dl = self.condensed.solve(w0, B2[self.engaged])
        rhs_u = B1
        rhs_u[S] -= self.D @ y - self.E @ dl
        du = self.lu.solve(rhs_u)
        dlam[self.engaged] = dl
        return np.vstack([du, dlam])


def contact_block(ev) -> sp.csr_matrix:
    """The contact part ``D`` of ``J11``, shape (n_reduced, n_reduced) (empty when the evaluation has none)."""
    n = ev.n_reduced
    return sp.csr_matrix((n, n)) if ev.D is None else ev.D.tocsr()


class _Condensed:
    r"""The condensed contact system, factorised once for many right-hand sides:

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
    stays exact.  If GMRES does not
    converge, the whole system is solved densely.
    """

    def __init__(self, W, D, E, F, G, tol=1e-14, max_iterations=30):
        self.W, self.D, self.F, self.G = W, D, F, G
        self.WE = (E.T @ W.T).T                                # W E, dense (s, e)
        self.tol, self.max_iterations = tol, max_iterations
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", la.LinAlgWarning)     # singular: checked below
            self.lu = la.lu_factor(G + F @ self.WE)

    def _eliminate(self, r1, r2):
        dl = la.lu_solve(self.lu, r2 - self.F @ r1)
        return r1 + self.WE @ dl, dl

    def solve(self, w, b) -> tuple:
        """``(y, dl)`` for right-hand sides ``w`` (s, c) and ``b`` (e, c)."""
        W, D, WE, F, G = self.W, self.D, self.WE, self.F, self.G
        y, dl = self._eliminate(w, b)
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
            return np.vstack(self._eliminate(r[:s], r[s:])).ravel()

        A = spla.LinearOperator((s + e, s + e), matvec=operator, dtype=float)
        P = spla.LinearOperator((s + e, s + e), matvec=preconditioner, dtype=float)
        rhs = np.vstack([w, b])
        out = np.vstack([y, dl])
        for j in range(rhs.shape[1]):
            col, info = spla.gmres(A, rhs[:, j], x0=out[:, j], M=P, rtol=self.tol, atol=0.0,
                                   restart=self.max_iterations, maxiter=2)
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
