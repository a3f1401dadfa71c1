r"""Krylov solution of the semismooth Newton system, projected onto the contact constraints.

After the multipliers of open nodes (rows ``d lam_i = b_i / J22_ii``) are
eliminated, the Newton system of :mod:`fecontact.solve.problem` reads

.. math::

    \begin{bmatrix} K + D & E\\ F & G \end{bmatrix}
    \begin{bmatrix} \delta u\\ \delta\lambda \end{bmatrix} =
    \begin{bmatrix} b_1\\ b_2 \end{bmatrix},

with ``K`` the bulk matrix (large; constant, or the tangent of the iterate),
``D`` the geometric stiffness of contact and ``E, F, G`` sparse blocks on the
engaged multipliers.  Rows whose ``G`` row vanishes are *constraints*
``F_c du = b_c`` (closed normal conditions, stuck tangential ones); the
others (sliding tangential rows, penalty normal rows) are solved for their
multipliers, ``dl_s = G_ss^{-1}(b_s - G_sc dl_c - F_s du)``, and
substituted.  What remains is

.. math::

    \hat A\,\delta u + \hat E\,\delta\lambda_c = \hat r, \qquad F_c\,\delta u = b_c,

``\hat A = K + D - E_s G_{ss}^{-1} F_s``, ``\hat E = E_c - E_s G_{ss}^{-1} G_{sc}``.
With ``S = F_c \hat E`` (small, sparse) the projector
``P = I - \hat E S^{-1} F_c`` maps onto ``ker F_c`` along ``range \hat E``
(orthogonally when ``\hat E \propto F_c^T``, frictionless and stuck
contact).  Writing ``du = \hat E S^{-1} b_c + \delta``, ``\delta \in ker F_c``
solves ``P \hat A \delta = P r'`` and is found by GMRES, right-preconditioned
by ``P M^{-1}`` with ``M^{-1}`` a fixed approximate inverse of ``K`` (an
algebraic multigrid cycle, or an exact factorisation), set up once per
problem and reused at every Newton iteration (with bodies in finite strain
``K`` is the current tangent and ``M`` that of an earlier one, rebuilt when
it has stopped being good: :class:`LaggedSetup`).  The multipliers follow from
``S dl_c = F_c (r' - \hat A \delta)``.  The constraint rows hold exactly;
only the equilibrium rows carry the Krylov tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from .constraints import split_constraints


@dataclass(frozen=True)
class KrylovReport:
    """How one projected solve went.

    Attributes
    ----------
    iterations : int
        GMRES iterations (preconditioner applications).
    residual : float
        Final norm of the equilibrium residual ``|b_1 - (K + D) du - E dl|``.
    converged : bool
        Whether GMRES reached its tolerance.
    """

    iterations: int
    residual: float
    converged: bool


class LaggedSetup:
    """When to rebuild a set-up (preconditioner, factorisation) made from an earlier stiffness.

    With bodies in finite strain the bulk block of the Newton system is the
    tangent ``K(u)`` of the current iterate.  The backends keep the set-up
    they built from an earlier stiffness (``K_hat`` at first) and solve the
    current system by GMRES preconditioned with it; the set-up is rebuilt
    from the current tangent only when it has stopped being good.  Its
    quality is measured by the iterations spent per decade of residual
    reduction (:meth:`rate`): the first solve with a set-up that is fresh
    (built from the stiffness it solves with, or the first solve of all) sets
    the ``baseline``; a later solve that needs more than
    ``factor * max(baseline, floor)`` makes the set-up :attr:`stale`, and the
    backend rebuilds it from the tangent of the next iterate before solving.

    Parameters
    ----------
    factor : float
        Allowed growth of the iterations per decade (0: rebuild at every
        iteration).
    floor : float
        Least baseline, iterations per decade: a set-up whose fresh solves
        take one iteration in all is not rebuilt for taking two.

    Attributes
    ----------
    stale : bool
        Whether the next solve should rebuild the set-up first.
    rebuilds : int
        Set-ups rebuilt so far.
    """

    def __init__(self, factor: float, floor: float = 1.0):
        self.factor = factor
        self.floor = floor
        self.baseline = None
        self.stale = factor <= 0.0
        self.rebuilds = 0

    @staticmethod
    def rate(iterations: int, start: float, target: float) -> float:
        """Iterations per decade of reduction from ``start`` to ``target`` (at least one decade)."""
        decades = math.log10(start / target) if start > 0.0 and target > 0.0 else 1.0
        return iterations / max(decades, 1.0)

    def rebuilt(self) -> None:
        """Count a rebuild; the next recorded solve is fresh."""
        self.rebuilds += 1
        self.stale = self.factor <= 0.0
        self.baseline = None

    def record(self, iterations: int, start: float, target: float) -> None:
        """Judge the set-up by one converged solve (see the class)."""
        rate = self.rate(iterations, start, target)
        if self.baseline is None:
            self.baseline = rate
        elif rate > self.factor * max(self.baseline, self.floor):
            self.stale = True


def gmres(apply, b: np.ndarray, precondition, atol: float, max_iterations: int,
          restart: int = 100) -> tuple:
    r"""Right-preconditioned GMRES from ``x_0 = 0``, in its flexible form (FGMRES, Saad 1993).

    Arnoldi builds an orthonormal basis ``V`` of the residuals' Krylov space
    with ``A M^{-1} V_k = V_{k+1} H_k``; the preconditioned vectors
    ``z_j = M^{-1} v_j`` are kept, and the iterate is ``x = Z_k y`` with ``y``
    minimising ``|beta e_1 - H_k y|``, which is ``|b - A x|``.  Keeping ``Z``
    spends no preconditioner application to map the solution back, and
    starting from zero spends no operator application on the first
    residual: every preconditioner application (the costly part: a
    multigrid cycle or a factorised solve) extends the basis.  Orthogonalised
    by classical Gram–Schmidt applied twice, its products by ``einsum``
    (one thread) rather than BLAS: these are memory-bound products of a tall
    basis with one vector, which a threaded BLAS does no faster, and on a
    busy machine its threads waiting for a core made them 10-30 times slower
    (1.0 s instead of 0.05 s for 24 iterations on 51k unknowns); restarted
    every ``restart`` iterations.  Right preconditioning keeps the minimised residual the true
    one, so ``atol`` bounds ``|b - A x|`` directly.

    Parameters
    ----------
    apply, precondition : callable, (n,) -> (n,)
        ``A x`` and ``M^{-1} r``.
    b : ndarray, shape (n,)
    atol : float
        Absolute tolerance on ``|b - A x|``.
    max_iterations : int
        Most preconditioner applications.
    restart : int

    Returns
    -------
    x : ndarray, shape (n,)
    iterations : int
        Preconditioner applications.
    converged : bool
        Whether the minimised residual reached ``atol``.
    """
    n = b.size
    x = np.zeros(n)
    r = np.array(b, dtype=float)
    beta = _norm(r)
    iterations = 0
    m = max(1, min(restart, n, max_iterations))
    while beta > atol and iterations < max_iterations:
        V = np.empty((n, m + 1), order="F")     # columns contiguous
        Z = np.empty((n, m), order="F")
        H = np.zeros((m + 1, m))
        cs, sn = np.zeros(m), np.zeros(m)
        g = np.zeros(m + 1)
        g[0] = beta
        V[:, 0] = r / beta
        k = 0
        residual = beta
        while k < m and iterations < max_iterations:
            Z[:, k] = precondition(V[:, k])
            iterations += 1
            w = apply(Z[:, k])
            basis = V[:, :k + 1]
            h = np.einsum("ij,i->j", basis, w)
            w -= np.einsum("ij,j->i", basis, h)
            again = np.einsum("ij,i->j", basis, w)
            w -= np.einsum("ij,j->i", basis, again)
            h += again
            size = _norm(w)
            H[:k + 1, k] = h
            H[k + 1, k] = size
            for i in range(k):                  # earlier rotations on the new column
                H[i, k], H[i + 1, k] = (cs[i] * H[i, k] + sn[i] * H[i + 1, k],
                                        -sn[i] * H[i, k] + cs[i] * H[i + 1, k])
            radius = math.hypot(H[k, k], H[k + 1, k])
            if radius == 0.0 or not np.isfinite(radius):
                break
            cs[k], sn[k] = H[k, k] / radius, H[k + 1, k] / radius
            H[k, k], H[k + 1, k] = radius, 0.0
            g[k], g[k + 1] = cs[k] * g[k], -sn[k] * g[k]
            residual = abs(g[k + 1])
            k += 1
            if residual <= atol or size == 0.0:         # converged, or the space is invariant
                break
            V[:, k] = w / size
        if k == 0:
            break
        y = la.solve_triangular(H[:k, :k], g[:k], lower=False)
        x += np.einsum("ij,j->i", Z[:, :k], y)
        if residual <= atol or iterations >= max_iterations:
            beta = residual
            break
        r = b - apply(x)                        # a restart: the true residual
        beta = _norm(r)
    return x, iterations, beta <= atol


def _norm(v: np.ndarray) -> float:
    """Euclidean norm of ``v``, shape (n,), by ``einsum`` (one thread: see :func:`gmres`)."""
    return math.sqrt(float(np.einsum("i,i->", v, v)))


def projected_solve(apply_K, D: sp.spmatrix, E: sp.spmatrix, F: sp.spmatrix, G: sp.spmatrix,
                    b1: np.ndarray, b2: np.ndarray, precondition, atol: float,
                    max_iterations: int = 500) -> tuple:
    r"""Solve ``[[K + D, E], [F, G]] [du; dl] = [b1; b2]`` by projected GMRES.

    Parameters
    ----------
    apply_K : callable, (n,) -> (n,)
        The bulk matrix times a vector.
    D : sparse, shape (n, n)
    E : sparse, shape (n, e)
    F : sparse, shape (e, n)
    G : sparse, shape (e, e)
    b1 : ndarray, shape (n,)
    b2 : ndarray, shape (e,)
    precondition : callable, (n,) -> (n,)
        A fixed approximation of ``K^{-1}``.  If it has a method
        ``constrained(F_c)``, the preconditioner it returns (one for ``K``
        restricted to ``ker F_c``) is used instead.
    atol : float
        Tolerance on the equilibrium residual ``|b1 - (K + D) du - E dl|``.

    max_iterations : int

    Returns
    -------
    du : ndarray, shape (n,)
    dl : ndarray, shape (e,)
    report : KrylovReport

    Raises
    ------
    numpy.linalg.LinAlgError
        When the sliding block ``G_ss`` or ``S = F_c E_hat`` is singular
        (redundant constraints, a free rigid-body mode).
    """
    split = split_constraints(D, E, F, G, b1, b2)

    def apply_A(x):
        return apply_K(x) + split.C @ x

    def project(x):
        return x - split.E_hat @ split.constraint_solve(split.F_c @ x) if split.c.size else x

    r_prime = split.r_hat - apply_A(split.du_p)
    if hasattr(precondition, "constrained"):
        precondition = precondition.constrained(split.F_c)
    delta, iterations, converged = gmres(lambda x: project(apply_A(x)), project(r_prime),
                                         lambda r: project(precondition(r)), atol, max_iterations)
    du = split.du_p + delta
    dl = split.multipliers(split.F_c @ (r_prime - apply_A(delta)), du)
    residual = _norm(b1 - apply_K(du) - sp.csr_matrix(D) @ du - E @ dl)
    return du, dl, KrylovReport(iterations, residual, converged)
