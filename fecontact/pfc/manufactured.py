r"""PFC problems with a known solution, of the kinds a finite-element export never makes.

A problem is *manufactured* from its solution: a global velocity ``v*`` and,
per contact, reactions ``r*_i`` and local velocities ``u*_i`` that satisfy the
contact law by construction,

* *open*: ``r_i = 0``, ``u_N > 0``;
* *stick*: ``r_i`` strictly inside the cone, ``u_i = 0``;
* *slide*: ``r_T = -mu r_N t`` on the cone's surface, ``u_N = 0``,
  ``u_T = alpha t`` with ``alpha > 0`` (so ``u_hat`` lies on the dual cone's
  surface, orthogonal to ``r``),

then ``q = M v* - H r*`` and ``b = u* - H^T v*``.  The solution is known
independently of any solver; where ``H`` is rank-deficient the reactions are
not unique, but ``v*``, ``u*`` and ``H r*`` are.

:func:`kinds` builds the problems the PFC solvers are checked and measured
on (``tests/test_pfc_kinds.py``, ``docs/make_pfc.py``): a non-symmetric
``M``, rigid boxes on more contact points than they have motions
(rank-deficient ``H``, resting and sliding), compliances eight orders apart,
and more contacts than unknowns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .problem import GlobalProblem

__all__ = ["Manufactured", "manufactured", "random_spd", "box", "kinds"]


@dataclass(frozen=True)
class Manufactured:
    """A problem and its known solution.

    Attributes
    ----------
    problem : GlobalProblem
    v : ndarray, shape (n,)
    r, u : ndarray, shape (m*d,)
    unique_r : bool
        False where ``H`` is rank-deficient (then ``H r`` is unique, ``r`` not).
    """

    problem: GlobalProblem
    v: np.ndarray
    r: np.ndarray
    u: np.ndarray
    unique_r: bool = True


def _unit(rng, d: int) -> np.ndarray:
    t = rng.normal(size=d - 1)
    return t / np.linalg.norm(t)


def manufactured(M, H, mu, d: int, statuses, rng, v=None, reaction=1.0, velocity=1.0,
                 unique_r: bool = True, info: dict | None = None) -> Manufactured:
    """The problem whose solution has each contact in the given status (see the module).

    Parameters
    ----------
    M : sparse matrix, shape (n, n)
    H : sparse matrix, shape (n, m*d)
    mu : sequence of float, length m
    d : int
    statuses : sequence of {"open", "stick", "slide"}, length m
    rng : numpy.random.Generator
    v : ndarray, shape (n,), optional
        The velocity (default: random).
    reaction, velocity : float or ndarray, shape (m,)
        Sizes of ``r*`` and ``u*`` per contact.
    unique_r : bool
    info : dict, optional
        The problem's metadata.

    Returns
    -------
    Manufactured
    """
    m, n = len(statuses), M.shape[0]
    mu = np.asarray(mu, dtype=float)
    v = rng.normal(size=n) if v is None else np.asarray(v, dtype=float)
    r, u = np.zeros((m, d)), np.zeros((m, d))
    size_r = np.broadcast_to(reaction, (m,))
    size_u = np.broadcast_to(velocity, (m,))
    for i, status in enumerate(statuses):
        t = _unit(rng, d)
        r_n = size_r[i] * (1.0 + rng.random())
        if status == "open":
            u[i, 0] = size_u[i] * (0.5 + rng.random())
            u[i, 1:] = size_u[i] * rng.normal(size=d - 1)
        elif status == "stick":
            r[i, 0], r[i, 1:] = r_n, 0.5 * mu[i] * r_n * t
        elif status == "slide":
            r[i, 0], r[i, 1:] = r_n, -mu[i] * r_n * t
            u[i, 1:] = size_u[i] * (0.5 + rng.random()) * t
        else:
            raise ValueError(f"unknown contact status {status!r}")
    M, H = sp.csc_matrix(M), sp.csc_matrix(H)
    q = M @ v - H @ r.ravel()
    b = u.ravel() - H.T @ v
    return Manufactured(GlobalProblem(M, H, q, b, mu, d, info=dict(info or {})), v, r.ravel(),
                        u.ravel(), unique_r)


def random_spd(rng, n: int, density: float = 0.4) -> np.ndarray:
    """A random symmetric positive definite matrix, shape (n, n), well conditioned (``+ n I``)."""
    A = sp.random(n, n, density=density, random_state=np.random.RandomState(int(rng.integers(1 << 30))))
    return (A @ A.T).toarray() + n * np.eye(n)


def box(d: int, points: int) -> tuple:
    """``(M, H)`` of a rigid box (mass 2, rotary inertia 0.5) on ``points`` points of its base.

    2D: unknowns ``(x, y, rotation)``, ``points`` along the base; 3D:
    ``(x, y, z, three rotations)``, a square grid of ``points`` (a square
    number).  Each contact's normal is the vertical, its tangents the
    horizontal axes; a base point ``p`` (from the centre) moves at ``V + w x
    p``, so ``(w x p) . e = w . (p x e)``.
    """
    if d == 2:
        M = sp.csc_matrix(np.diag([2.0, 2.0, 0.5]))
        H = np.zeros((3, 2 * points))
        for i, x in enumerate(np.linspace(-1.0, 1.0, points)):
            H[:, 2 * i] = [0.0, 1.0, x]                  # normal (y): v_y + w x
            H[:, 2 * i + 1] = [1.0, 0.0, 0.5]            # tangent (x): v_x - w y, y = -0.5
        return M, sp.csc_matrix(H)
    M = sp.csc_matrix(np.diag([2.0, 2.0, 2.0, 0.5, 0.5, 0.5]))
    side = int(round(np.sqrt(points)))
    grid = np.linspace(-1.0, 1.0, side)
    corners = [(x, y) for x in grid for y in grid]
    H = np.zeros((6, 3 * len(corners)))
    for i, (x, y) in enumerate(corners):
        p = np.array([x, y, -0.5])
        for k, axis in enumerate(([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])):
            e = np.array(axis)
            H[:3, 3 * i + k] = e
            H[3:, 3 * i + k] = np.cross(p, e)
    return M, sp.csc_matrix(H)


def sliding_box(d: int, points: int, mu: float, speed: float, rng) -> Manufactured:
    """A rigid box sliding along x at ``speed`` on ``points`` points, all of them sliding."""
    M, H = box(d, points)
    m = H.shape[1] // d
    v = np.zeros(M.shape[0])
    v[0] = speed
    R, U = np.zeros((m, d)), np.zeros((m, d))
    R[:, 0] = 1.0 + rng.random(m)
    R[:, 1] = -mu * R[:, 0]                             # friction against the slip
    U[:, 1] = speed
    mus = np.full(m, mu)
    q = M @ v - H @ R.ravel()
    b = U.ravel() - H.T @ v
    info = {"kind": f"box sliding, {d}D, {m} points"}
    return Manufactured(GlobalProblem(M, H, q, b, mus, d, info=info), v, R.ravel(), U.ravel(), False)


def kinds(seed: int = 0) -> dict:
    """The manufactured problems of each kind, by name (see the module); deterministic in ``seed``."""
    out = {}
    for d in (2, 3):
        rng = np.random.default_rng(seed + 11 + d)
        n = 14
        A = random_spd(rng, n)
        skew = rng.normal(size=(n, n))
        M = A + 0.4 * np.abs(A).max() * np.triu(skew - skew.T, 1) / np.abs(skew).max()
        H = rng.normal(size=(n, 4 * d))
        out[f"non-symmetric M, {d}D"] = manufactured(
            M, H, [0.3, 0.5, 0.2, 0.4], d, ["stick", "slide", "open", "slide"], rng,
            info={"kind": f"non-symmetric M, {d}D"})
    for d, points in ((2, 4), (3, 4), (3, 9)):
        rng = np.random.default_rng(seed + 5)
        M, H = box(d, points)
        m = H.shape[1] // d
        out[f"box resting, {d}D, {m} points"] = manufactured(
            M, H, np.full(m, 0.3), d, ["stick"] * m, rng, v=np.zeros(M.shape[0]), unique_r=False,
            info={"kind": f"box resting, {d}D, {m} points"})
        out[f"box sliding, {d}D, {m} points"] = sliding_box(d, points, 0.3, 0.7, rng)
    rng = np.random.default_rng(seed + 2)
    out["M = diag(1e-4, 1, 1e4), H = I"] = manufactured(
        np.diag([1e-4, 1.0, 1e4]), np.eye(3), [0.1], 3, ["slide"], rng,
        info={"kind": "M = diag(1e-4, 1, 1e4), H = I"})
    for d in (2, 3):
        base, D, S = scaled_pair(d, seed)
        out[f"scaled over 8 orders, {d}D"] = rescale(base, D, S)
    rng = np.random.default_rng(seed + 23)
    n, m, d = 6, 10, 3
    statuses = ["stick", "slide"] + ["open"] * (m - 2)
    out["10 contacts on 6 unknowns, 3D"] = manufactured(
        random_spd(rng, n), rng.normal(size=(n, m * d)), np.full(m, 0.3), d, statuses, rng,
        info={"kind": "10 contacts on 6 unknowns, 3D"})
    return out


def scaled_pair(d: int, seed: int = 0) -> tuple:
    """``(base, D, S)``: a problem and the DOF and contact scales, each over 1e-4..1e4."""
    rng = np.random.default_rng(seed + 17 + d)
    n, m = 16, 5
    base = manufactured(random_spd(rng, n), rng.normal(size=(n, m * d)), [0.2, 0.4, 0.3, 0.1, 0.5],
                        d, ["stick", "slide", "open", "slide", "stick"], rng,
                        info={"kind": f"unscaled, {d}D"})
    D = np.logspace(-4, 4, n)[rng.permutation(n)]
    S = np.repeat(np.logspace(-4, 4, m)[rng.permutation(m)], d)
    return base, D, S


def rescale(base: Manufactured, D: np.ndarray, S: np.ndarray) -> Manufactured:
    """``M' = D M D``, ``H' = D H S``, ``q' = D q``, ``b' = S b``: solved by ``D^-1 v``, ``S^-1 r``, ``S u``."""
    p = base.problem
    M = sp.diags(D) @ p.M @ sp.diags(D)
    H = sp.diags(D) @ p.H @ sp.diags(S)
    problem = GlobalProblem(M, H, D * p.q, S * p.b, p.mu, p.d,
                            info={"kind": f"scaled over 8 orders, {p.d}D"})
    return Manufactured(problem, base.v / D, base.r / S, base.u * S, base.unique_r)
