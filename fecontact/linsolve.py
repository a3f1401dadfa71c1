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
        trivial, dlam = _open_rows(J21, J22, B2)
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


def rigid_body_modes(system) -> np.ndarray:
    """All rigid-body modes (translations, rotations about the centroid) in reduced numbering.

    The near-null space that smoothed-aggregation multigrid needs for
    elasticity.  Returns shape (n_red, 3) in 2D and (n_red, 6) in 3D.
    """
    from .bodies.system import rigid_motions

    modes = rigid_motions(system.reference_coords())
    return np.column_stack([system.to_reduced(m) for m in modes.T])


#: penalty stiffness, relative to the stiffness diagonal, of :meth:`AMG.constrained`
PENALTY_PRECONDITIONER = 10.0


class AMG:
    """Smoothed-aggregation algebraic multigrid (pyamg) of a fixed SPD matrix: ``__call__`` is one V-cycle.

    The rigid-body modes are the near-null space; the setup is done once.
    """

    def __init__(self, K: sp.spmatrix, near_null_space: np.ndarray):
        import pyamg

        smoother = ("gauss_seidel", {"sweep": "symmetric"})
        self.hierarchy = pyamg.smoothed_aggregation_solver(
            sp.csr_matrix(K), B=near_null_space, symmetry="symmetric",
            strength=("symmetric", {"theta": 0.0}), max_coarse=100, coarse_solver="splu",
            presmoother=smoother, postsmoother=smoother)
        self.cycle = self.hierarchy.aspreconditioner(cycle="V")
        self._base = [level.A for level in self.hierarchy.levels]
        self._diagonal = self._base[0].diagonal()

    def __call__(self, r: np.ndarray) -> np.ndarray:
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
        """
        import pyamg

        levels = self.hierarchy.levels
        F = sp.csr_matrix(F)
        if F.shape[0] == 0:
            delta = None
        else:
            F2 = F.multiply(F)
            weight = stiffness * (F2 @ self._diagonal) / np.maximum(np.asarray(F2.sum(axis=1)).ravel(), 1e-300) ** 2
            delta = (F.T @ sp.diags(weight) @ F).tocsr()
        for i, level in enumerate(levels):
            level.A = self._base[i] if delta is None else (self._base[i] + delta).tocsr()
            if delta is not None and i + 1 < len(levels):
                delta = (level.R @ delta @ level.P).tocsr()
        self.hierarchy.coarse_solver = pyamg.multilevel.coarse_grid_solver("splu")
        return self


class KrylovBackend:
    r"""Projected GMRES on the Newton system, preconditioned by one fixed approximation of ``K^{-1}``.

    See :mod:`fecontact.krylov`.  ``preconditioner`` is ``"amg"`` (a
    smoothed-aggregation multigrid V-cycle: memory and time linear in the
    size, for large 3D problems) or ``"factorization"`` (the exact
    factorisation of ``K``).  Either is set up once and reused by every
    Newton iteration.  Each Newton system is solved inexactly: the
    equilibrium residual of the step is driven below
    ``max(eta |R|, floor)`` (an inexact Newton method after Eisenstat and
    Walker), with ``eta`` loose while the contact status changes and zero
    once it has settled (:meth:`forcing`), and ``floor`` a tenth of Newton's
    own tolerance, so the last step is as accurate as Newton asks; the
    contact rows are always solved exactly.

    Bodies held only by contact make ``K`` singular: use ``schur`` or ``direct``.
    """

    def __init__(self, problem, matrix=None, preconditioner: str = "amg",
                 tolerance: float = 1e-9, eta_max: float = 0.1):
        self.problem = problem
        self.name = preconditioner
        self.matrix = (problem.system.K_hat if matrix is None else matrix).tocsr()
        if matrix is None and problem.system.free_modes().shape[1]:
            raise RuntimeError("a body is held only by contact (its stiffness matrix is singular)")
        self.precondition = make_linear_solver(preconditioner, self.matrix, problem.system)
        self._status = None
        self.tolerance = tolerance
        self.eta_max = eta_max
        self.iterations = 0

    def forcing(self, status: np.ndarray) -> float:
        """Relative tolerance ``eta`` of the next linear solve.

        While the contact status still changes between iterates, the step is
        provisional and ``eta_max`` is enough.  Once it has settled, what is
        left is (nearly) a linear problem that one accurate step solves: the
        step is solved to the floor (``eta = 0``).  On ``hertz3d`` this
        spends fewer Krylov iterations in all than Eisenstat and Walker's
        forcing terms, which split the last linear solve into two.
        """
        previous, self._status = self._status, status.copy()
        settled = previous is not None and previous.shape == status.shape \
            and np.array_equal(previous, status)
        return 0.0 if settled else self.eta_max

    def solve(self, ev) -> np.ndarray:
        from .krylov import projected_solve

        n = ev.n_reduced
        norm = float(np.linalg.norm(ev.residual))
        eta = self.forcing(ev.contact.status)
        atol = max(eta * norm, 0.1 * self.tolerance * ev.force_scale)
        b1, b2 = -ev.residual[:n], -ev.residual[n:]
        J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
        trivial, dlam = _open_rows(J21, J22, b2)
        b1 = b1 - J12[:, trivial] @ dlam[trivial]
        engaged = np.flatnonzero(~trivial)
        K = self.matrix
        du, dl, report = projected_solve(lambda x: K @ x, _contact_block(ev), J12[:, engaged],
                                         J21[engaged], J22[engaged][:, engaged], b1, b2[engaged],
                                         self.precondition, atol)
        self.iterations += report.iterations
        logger.debug("  krylov: %d iterations, residual %.3e (target %.3e)",
                     report.iterations, report.residual, atol)
        if not report.converged:
            raise RuntimeError(f"GMRES did not reach {atol:.3e} (residual {report.residual:.3e})")
        dlam[engaged] = dl
        return np.concatenate([du, dlam])


def _open_rows(J21: sp.csr_matrix, J22: sp.csr_matrix, b2: np.ndarray) -> tuple:
    """Multipliers whose rows do not depend on ``u`` and are diagonal (open nodes).

    Returns ``(trivial, dlam)``: a mask of those rows and ``dlam`` (the
    shape of ``b2``: (m,) or (m, c)) with ``b2_i / J22_ii`` there, zero
    elsewhere.
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


def make_linear_solver(name: str, K: sp.spmatrix, system):
    """A reusable approximate or exact inverse of ``K``: ``solver(rhs) -> x``.

    ``"factorization"``: sparse Cholesky (exact); ``"amg"``: one
    smoothed-aggregation V-cycle.
    """
    if name == "amg":
        return AMG(K, rigid_body_modes(system))
    if name == "factorization":
        return factorize(K).solve
    raise ValueError(f"unknown preconditioner {name!r}")


def plain_krylov_solve(name: str, K: sp.spmatrix, system, rhs: np.ndarray,
                       tolerance: float) -> np.ndarray:
    """``K x = rhs`` from scratch, as :class:`KrylovBackend` solves (a linear reference).

    Sets the preconditioner up and runs the same right-preconditioned GMRES
    to ``0.1 * tolerance * |rhs|``, the accuracy of the contact solve's last
    Newton step.
    """
    from .krylov import gmres

    precondition = make_linear_solver(name, K, system)
    K = K.tocsr()
    x, _, converged = gmres(lambda v: K @ v, rhs, precondition,
                            0.1 * tolerance * float(np.linalg.norm(rhs)), 500)
    if not converged:
        raise RuntimeError("GMRES did not converge on the linear reference")
    return x


BACKENDS = {"direct": DirectBackend, "schur": SchurBackend, "amg": KrylovBackend,
            "factorization": KrylovBackend}
#: the backends that solve by projected GMRES (every body must be supported)
KRYLOV_BACKENDS = ("amg", "factorization")


#: reduced unknowns from which ``auto`` uses ``amg`` (see docs/scaling.md)
AMG_THRESHOLD = 40_000


def make_backend(name: str, problem, matrix=None, tolerance: float = 1e-9):
    """Backend by name.

    ``"auto"`` picks ``amg`` for problems of at least
    :data:`AMG_THRESHOLD` reduced unknowns whose bodies are all supported,
    and ``schur`` otherwise (smaller problems, where one factorisation and
    the cached compliance of the contact DOFs serve many load steps cheaply,
    and bodies held only by contact are handled through pinned rigid-body
    modes), falling back to ``direct`` if the regularised bulk stiffness
    still cannot be factorised.  ``matrix`` is
    the constant bulk block of the Jacobian when it is not ``K_hat``
    (dynamics); ``tolerance`` is Newton's (the Krylov backends solve to a
    tenth of it at the end).
    """
    if name not in BACKENDS and name != "auto":
        raise ValueError(f"unknown linear solver backend {name!r}; choose one of "
                         f"{', '.join(['auto', *BACKENDS])}")
    if name == "direct":
        return DirectBackend(problem)
    if name in KRYLOV_BACKENDS:
        return KrylovBackend(problem, matrix, name, tolerance)
    if name == "auto" and problem.system.n_reduced >= AMG_THRESHOLD:
        try:
            return KrylovBackend(problem, matrix, "amg", tolerance)
        except RuntimeError as err:
            logger.info("%s: not using the amg backend", err)
    try:
        return SchurBackend(problem, matrix)
    except RuntimeError as err:
        if name == "schur":
            raise
        logger.info("bulk matrix not factorisable (%s): using the direct backend", err)
        return DirectBackend(problem)
