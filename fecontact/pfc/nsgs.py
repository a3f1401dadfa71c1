r"""Nonsmooth Gauss–Seidel (NSGS) on the Delassus problem of a PFC problem.

With ``M`` positive definite the global velocity is eliminated,
``v = M^{-1}(q + H r)``, and the local velocities are

.. math::

    u = W r + f, \qquad W = H^T M^{-1} H, \qquad f = H^T M^{-1} q + b

(the Delassus operator ``W`` is dense, ``m d x m d``: this solver is for
small problems).  A sweep visits the contacts in order and solves each
one's local problem exactly, the others' reactions fixed:

.. math::

    u_i = W_{ii} r_i + \tilde u_i, \qquad
    C^*_{\mu_i} \ni u_i + \mu_i\|u_{T,i}\| e_N \perp r_i \in C_{\mu_i}.

Its solution is the first of

* *open*: ``r_i = 0`` if ``tilde u_N >= 0``;
* *stick*: ``r_i = -W_ii^{-1} tilde u_i`` if it lies in the cone;
* *slide*: ``r_i = r_N (1, -mu s)`` with ``|s| = 1``, ``u_N = 0`` and
  ``u_T = alpha s``, ``alpha >= 0``.  In 2D ``s = +-1`` and ``r_N`` follows
  in closed form; in 3D ``(r_N, r_T)`` solves
  ``[W_N r + tilde u_N, r_T |u_T| + mu r_N u_T] = 0`` by Newton's method
  from the stick solution projected on the cone.

Sweeps repeat until the relative natural-map residual of
:meth:`GlobalProblem.residuals` is below ``tolerance``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..solve.factor import factorize
from .io import Solution
from .problem import GlobalProblem, PFCError, project_on_cone

#: Largest ``m d`` for which the dense Delassus operator is formed.
MAX_ROWS = 6000


def delassus(pfc: GlobalProblem, factor, batch: int = 256) -> tuple:
    """``(W, f)``: ``W = H^T M^{-1} H`` (dense) and ``f = H^T M^{-1} q + b``."""
    H = pfc.H.tocsc()
    cols = H.shape[1]
    W = np.empty((cols, cols))
    for start in range(0, cols, batch):
        block = H[:, start:start + batch].toarray()
        W[:, start:start + batch] = H.T @ factor.solve(block)
    W = 0.5 * (W + W.T)
    return W, H.T @ factor.solve(pfc.q) + pfc.b


def _local_2d(w, free, mu):
    """Exact solution of one 2D contact: ``w`` 2x2 nested lists, ``free`` (u_N, u_T)."""
    a_n, a_t = free
    if a_n >= 0.0:
        return 0.0, 0.0
    (w00, w01), (w10, w11) = w
    if mu == 0.0:
        return -a_n / w00, 0.0
    det = w00 * w11 - w01 * w10
    if det > 0.0:
        r_n = -(w11 * a_n - w01 * a_t) / det
        r_t = -(w00 * a_t - w10 * a_n) / det
        if r_n >= 0.0 and abs(r_t) <= mu * r_n:
            return r_n, r_t
    best = None
    for sigma in (1.0, -1.0):
        denominator = w00 - mu * sigma * w01
        if denominator <= 0.0:
            continue
        r_n = -a_n / denominator
        u_t = (w10 - mu * sigma * w11) * r_n + a_t
        violation = max(-sigma * u_t, 0.0)
        if best is None or violation < best[0]:
            best = (violation, r_n, -mu * sigma * r_n)
    if best is None:
        return 0.0, 0.0
    return best[1], best[2]


def _local_3d(w, free, mu, max_iterations=30):
    """Solution of one 3D contact: ``w`` (3, 3), ``free`` (3,) arrays."""
    a_n = free[0]
    if a_n >= 0.0:
        return np.zeros(3)
    if mu == 0.0:
        return np.array([-a_n / w[0, 0], 0.0, 0.0])
    try:
        r = -np.linalg.solve(w, free)
    except np.linalg.LinAlgError:
        r = np.array([-a_n / w[0, 0], 0.0, 0.0])
    if r[0] >= 0.0 and math.hypot(r[1], r[2]) <= mu * r[0]:
        return r
    # sliding: Newton on F(r) = [W_N r + a_N, r_T |u_T| + mu r_N u_T] from the cone projection
    r = project_on_cone(r[None, :], np.array([mu]))[0]
    if r[0] <= 0.0:
        r = np.array([-a_n / w[0, 0], 0.0, 0.0])
    scale = abs(a_n)
    for _ in range(max_iterations):
        u = w @ r + free
        ut = u[1:]
        nut = math.hypot(ut[0], ut[1])
        F = np.array([u[0], r[1] * nut + mu * r[0] * ut[0], r[2] * nut + mu * r[0] * ut[1]])
        if abs(F[0]) <= 1e-15 * scale and math.hypot(F[1], F[2]) <= 1e-15 * scale * max(nut, 1e-300):
            break
        J = np.empty((3, 3))
        J[0] = w[0]
        dnut = (ut @ w[1:]) / nut if nut > 0.0 else np.zeros(3)
        for k in (1, 2):
            J[k] = r[k] * dnut + mu * r[0] * w[k]
            J[k, k] += nut
            J[k, 0] += mu * ut[k - 1]
        try:
            step = np.linalg.solve(J, -F)
        except np.linalg.LinAlgError:
            break
        r = r + step
    if r[0] <= 0.0:
        return np.zeros(3)
    return project_on_cone(r[None, :], np.array([mu]))[0]


def solve_nsgs(pfc: GlobalProblem, tolerance: float = 1e-10, max_sweeps: int = 20000,
               max_rows: int = MAX_ROWS) -> Solution:
    """Solve ``pfc`` by NSGS on its Delassus problem.

    Raises
    ------
    PFCError
        ``M`` has rigid modes or cannot be factorised, or ``m d > max_rows``.
    """
    tic = time.perf_counter()
    d, m = pfc.d, pfc.n_contacts
    if pfc.rigid_modes.shape[1]:
        raise PFCError(f"NSGS needs the Delassus operator H^T M^-1 H, and M has "
                       f"{pfc.rigid_modes.shape[1]} rigid-body modes (bodies held only by contact); "
                       f"use --solver ssn")
    if m * d > max_rows:
        raise PFCError(f"NSGS forms the dense Delassus operator: {m * d} contact rows exceed the "
                       f"limit of {max_rows}; use --solver ssn")
    try:
        factor = factorize(pfc.M)
        W, f = delassus(pfc, factor)
    except RuntimeError as err:
        raise PFCError(f"NSGS needs M positive definite: {err}; use --solver ssn") from None
    rho = pfc.rho()
    mu = pfc.mu
    r = np.zeros(m * d)
    u = f.copy()
    blocks = [W[i * d:(i + 1) * d, i * d:(i + 1) * d] for i in range(m)]
    local = _local_2d if d == 2 else _local_3d
    lists = [b.tolist() for b in blocks] if d == 2 else blocks
    error, sweeps = np.inf, 0
    for sweeps in range(1, max_sweeps + 1):
        for i in range(m):
            rows = slice(i * d, (i + 1) * d)
            ri = r[rows]
            free = u[rows] - blocks[i] @ ri
            new = np.asarray(local(lists[i], free.tolist() if d == 2 else free, float(mu[i])))
            delta = new - ri
            if delta.any():
                u += delta @ W[rows]
                r[rows] = new
        u = W @ r + f                                   # no drift from the incremental updates
        error = pfc.relative_natural_map(r, u, rho)
        if error <= tolerance:
            break
    v = factor.solve(pfc.q + pfc.H @ r)
    converged = error <= tolerance
    return Solution(v=v, r=r, u=pfc.local_velocity(v), residuals=pfc.residuals(v, r, rho),
                    solver="nsgs", converged=converged, iterations=sweeps,
                    seconds=time.perf_counter() - tic,
                    reason="" if converged else f"natural map {error:.2e} > {tolerance:g} after "
                                                f"{sweeps} sweeps")
