r"""Compiled kernels of the nonsmooth Gauss–Seidel sweep (numba).

One sweep visits the contacts in order and replaces each reaction ``r_i`` by
the exact solution of its local problem, the other reactions fixed:

.. math::

    u_i = W_{ii} r_i + \tilde u_i, \qquad
    C^*_{\mu_i} \ni u_i + \mu_i\|u_{T,i}\| e_N \perp r_i \in C_{\mu_i},

then updates the local velocities of all contacts, ``u += W_{:,i} (r_i^{new}
- r_i)``.  The local solution is the first of *open* (``r_i = 0`` when
``tilde u_N >= 0``), *stick* (``r_i = -W_ii^{-1} tilde u_i`` inside the
cone) and *slide* (``u_N = 0`` and ``r_T`` opposing ``u_T`` on the cone's
surface: in 2D in closed form, keeping the sign whose slip opposes the
friction; in 3D by Newton's method on
``[W_N r + tilde u_N, r_T |u_T| + mu r_N u_T] = 0`` from the stick
solution projected on the cone).  ``W`` need not be symmetric.

The sweep is sequential by nature (each contact sees the reactions just
updated), so it is compiled rather than vectorised: numba turns these loops
into machine code, cached on disk after the first call (the choice is
recorded in ``docs/developer/decisions/numba-nsgs.md``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["sweep", "contact_errors"]

_JIT = dict(cache=True)


@numba.njit(**_JIT)
def _cone(rn, rt1, rt2, mu):
    """Projection of ``(rn, rt1, rt2)`` on the cone ``|r_T| <= mu r_N``."""
    nt = math.hypot(rt1, rt2)
    if nt <= mu * rn and rn >= 0.0:
        return rn, rt1, rt2
    if mu * nt <= -rn:
        return 0.0, 0.0, 0.0
    a = (rn + mu * nt) / (1.0 + mu * mu)
    if nt > 0.0:
        return a, mu * a * rt1 / nt, mu * a * rt2 / nt
    return a, 0.0, 0.0


@numba.njit(**_JIT)
def _local_2d(w00, w01, w10, w11, a_n, a_t, mu):
    """Exact solution ``(r_N, r_T)`` of one 2D contact with free velocity ``(a_n, a_t)``."""
    if a_n >= 0.0:
        return 0.0, 0.0
    if mu == 0.0:
        return -a_n / w00, 0.0
    det = w00 * w11 - w01 * w10
    if det > 0.0:
        r_n = -(w11 * a_n - w01 * a_t) / det
        r_t = -(w00 * a_t - w10 * a_n) / det
        if r_n >= 0.0 and abs(r_t) <= mu * r_n:
            return r_n, r_t
    best_violation, best_n, best_t, found = 0.0, 0.0, 0.0, False
    for k in range(2):
        sigma = 1.0 if k == 0 else -1.0
        denominator = w00 - mu * sigma * w01
        if denominator <= 0.0:
            continue
        r_n = -a_n / denominator
        u_t = (w10 - mu * sigma * w11) * r_n + a_t
        violation = max(-sigma * u_t, 0.0)
        if not found or violation < best_violation:
            best_violation, best_n, best_t, found = violation, r_n, -mu * sigma * r_n, True
    return best_n, best_t


@numba.njit(**_JIT)
def _solve3(A, b):
    """``A x = b`` for a 3x3 ``A`` by Cramer's rule; ``ok`` False when ``A`` is singular."""
    c00 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    c01 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    c02 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * c00 + A[0, 1] * c01 + A[0, 2] * c02
    x = np.zeros(3)
    scale = 0.0
    for i in range(3):
        for j in range(3):
            scale = max(scale, abs(A[i, j]))
    if det == 0.0 or abs(det) <= 1e-300 * max(scale * scale * scale, 1e-300) or not math.isfinite(det):
        return x, False
    inv = np.empty((3, 3))
    inv[0, 0] = c00
    inv[1, 0] = c01
    inv[2, 0] = c02
    inv[0, 1] = A[0, 2] * A[2, 1] - A[0, 1] * A[2, 2]
    inv[1, 1] = A[0, 0] * A[2, 2] - A[0, 2] * A[2, 0]
    inv[2, 1] = A[0, 1] * A[2, 0] - A[0, 0] * A[2, 1]
    inv[0, 2] = A[0, 1] * A[1, 2] - A[0, 2] * A[1, 1]
    inv[1, 2] = A[0, 2] * A[1, 0] - A[0, 0] * A[1, 2]
    inv[2, 2] = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    for i in range(3):
        x[i] = (inv[i, 0] * b[0] + inv[i, 1] * b[1] + inv[i, 2] * b[2]) / det
    return x, True


@numba.njit(**_JIT)
def _local_3d(w, free, mu, max_iterations):
    """Solution ``r`` (3,) of one 3D contact: ``w`` (3, 3) its Delassus block, ``free`` (3,)."""
    r = np.zeros(3)
    a_n = free[0]
    if a_n >= 0.0:
        return r
    if mu == 0.0:
        r[0] = -a_n / w[0, 0]
        return r
    minus = -free
    stick, ok = _solve3(w, minus)
    if not ok:
        stick[0], stick[1], stick[2] = -a_n / w[0, 0], 0.0, 0.0
    if stick[0] >= 0.0 and math.hypot(stick[1], stick[2]) <= mu * stick[0]:
        return stick
    # sliding: Newton on F(r) = [W_N r + a_N, r_T |u_T| + mu r_N u_T] from the cone projection
    r[0], r[1], r[2] = _cone(stick[0], stick[1], stick[2], mu)
    if r[0] <= 0.0:
        r[0], r[1], r[2] = -a_n / w[0, 0], 0.0, 0.0
    scale = abs(a_n)
    J = np.empty((3, 3))
    F = np.empty(3)
    for _ in range(max_iterations):
        u = w @ r + free
        ut1, ut2 = u[1], u[2]
        nut = math.hypot(ut1, ut2)
        F[0] = u[0]
        F[1] = r[1] * nut + mu * r[0] * ut1
        F[2] = r[2] * nut + mu * r[0] * ut2
        if abs(F[0]) <= 1e-15 * scale and math.hypot(F[1], F[2]) <= 1e-15 * scale * max(nut, 1e-300):
            break
        for j in range(3):
            J[0, j] = w[0, j]
        for k in range(1, 3):
            utk = u[k]
            for j in range(3):
                dnut = (ut1 * w[1, j] + ut2 * w[2, j]) / nut if nut > 0.0 else 0.0
                J[k, j] = r[k] * dnut + mu * r[0] * w[k, j]
            J[k, k] += nut
            J[k, 0] += mu * utk
        step, ok = _solve3(J, -F)
        if not ok:
            break
        r += step
    if r[0] <= 0.0:
        return np.zeros(3)
    out = np.empty(3)
    out[0], out[1], out[2] = _cone(r[0], r[1], r[2], mu)
    return out


@numba.njit(**_JIT)
def _sweep_2d(W, r, u, mu):
    m = mu.size
    n_rows = W.shape[0]
    for i in range(m):
        a, b = 2 * i, 2 * i + 1
        w00, w01, w10, w11 = W[a, a], W[a, b], W[b, a], W[b, b]
        ra, rb = r[a], r[b]
        free_n = u[a] - w00 * ra - w01 * rb
        free_t = u[b] - w10 * ra - w11 * rb
        new_n, new_t = _local_2d(w00, w01, w10, w11, free_n, free_t, mu[i])
        dn, dt = new_n - ra, new_t - rb
        if dn != 0.0 or dt != 0.0:
            for k in range(n_rows):
                u[k] += W[k, a] * dn + W[k, b] * dt
            r[a], r[b] = new_n, new_t


@numba.njit(**_JIT)
def _sweep_3d(W, r, u, mu, max_iterations):
    m = mu.size
    n_rows = W.shape[0]
    w = np.empty((3, 3))
    free = np.empty(3)
    for i in range(m):
        base = 3 * i
        for p in range(3):
            acc = u[base + p]
            for q in range(3):
                w[p, q] = W[base + p, base + q]
                acc -= w[p, q] * r[base + q]
            free[p] = acc
        new = _local_3d(w, free, mu[i], max_iterations)
        d0, d1, d2 = new[0] - r[base], new[1] - r[base + 1], new[2] - r[base + 2]
        if d0 != 0.0 or d1 != 0.0 or d2 != 0.0:
            for k in range(n_rows):
                u[k] += W[k, base] * d0 + W[k, base + 1] * d1 + W[k, base + 2] * d2
            r[base], r[base + 1], r[base + 2] = new[0], new[1], new[2]


def sweep(W: np.ndarray, r: np.ndarray, u: np.ndarray, mu: np.ndarray, d: int,
          max_iterations: int = 30) -> None:
    """One Gauss–Seidel sweep over the contacts, updating ``r`` and ``u = W r + f`` in place.

    Parameters
    ----------
    W : ndarray, shape (m d, m d), Fortran order preferred
        The Delassus operator (columns are read contiguously in Fortran order).
    r, u : ndarray, shape (m d,)
        Reactions and local velocities; ``u`` must equal ``W r + f``.
    mu : ndarray, shape (m,)
    d : int
        2 or 3.
    max_iterations : int
        Newton iterations of a sliding 3D contact.
    """
    if d == 2:
        _sweep_2d(W, r, u, mu)
    else:
        _sweep_3d(W, r, u, mu, max_iterations)


@numba.njit(**_JIT)
def _contact_errors(r, u, mu, d, velocity_scale):
    m = mu.size
    tiny = 2.2250738585072014e-308
    F2 = r2 = u2 = hat2 = out_r2 = out_u2 = 0.0
    product = 0.0
    for i in range(m):
        base = d * i
        rn = r[base]
        rt1 = r[base + 1]
        rt2 = r[base + 2] if d == 3 else 0.0
        un = u[base]
        ut1 = u[base + 1]
        ut2 = u[base + 2] if d == 3 else 0.0
        hn = un + mu[i] * math.hypot(ut1, ut2)              # u_hat
        r2 += rn * rn + rt1 * rt1 + rt2 * rt2
        u2 += un * un + ut1 * ut1 + ut2 * ut2
        hat2 += hn * hn + ut1 * ut1 + ut2 * ut2
        pn, p1, p2 = _cone(rn - hn, rt1 - ut1, rt2 - ut2, mu[i])   # natural map, rho = 1
        F2 += (rn - pn) ** 2 + (rt1 - p1) ** 2 + (rt2 - p2) ** 2
        pn, p1, p2 = _cone(rn, rt1, rt2, mu[i])                     # r outside its cone
        out_r2 += (rn - pn) ** 2 + (rt1 - p1) ** 2 + (rt2 - p2) ** 2
        pn, p1, p2 = _cone(-hn, -ut1, -ut2, mu[i])                  # u_hat outside the dual cone
        out_u2 += pn * pn + p1 * p1 + p2 * p2                       # |u_hat - P_C*(u_hat)| = |P_C(-u_hat)|
        product += abs(rn * hn + rt1 * ut1 + rt2 * ut2)
    norm_r = max(math.sqrt(r2), tiny)
    norm_hat = max(math.sqrt(hat2), velocity_scale, tiny)
    natural = math.sqrt(F2) / max(math.sqrt(u2), math.sqrt(r2), tiny)
    complementarity = max(math.sqrt(out_r2) / norm_r, math.sqrt(out_u2) / norm_hat,
                          product / (norm_r * norm_hat))
    return natural, complementarity


def contact_errors(r: np.ndarray, u: np.ndarray, mu: np.ndarray, d: int,
                   velocity_scale: float) -> tuple:
    """``(natural_map, complementarity)`` of ``(r, u)``, compiled.

    The same figures as :meth:`fecontact.pfc.problem.GlobalProblem.contact_residuals`
    (``velocity_scale`` its :attr:`~fecontact.pfc.problem.GlobalProblem.velocity_scale`),
    for the stopping test of every sweep.
    """
    return _contact_errors(r, u, mu, d, float(velocity_scale))
