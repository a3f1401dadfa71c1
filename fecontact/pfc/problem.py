r"""The global frictional contact problem PFC(M, H, q, b, mu) of Siconos/Numerics.

Find the global velocity ``v`` (n,), the local velocities ``u`` (m d,) and the
reactions ``r`` (m d,) of ``m`` contacts in dimension ``d`` with

.. math::

    M v = q + H r, \qquad u = H^T v + b, \qquad
    \hat u_i = u_i + \mu_i \|u_{T,i}\| e_N, \qquad
    C^*_{\mu_i} \ni \hat u_i \perp r_i \in C_{\mu_i},

``C_mu = {r : ||r_T|| <= mu r_N}`` the Coulomb cone and ``C*_mu`` its dual.
Each contact block is ordered normal first, ``(r_N, r_T)``; ``u_N`` (``b_N``
at ``v = 0``) is positive when open and ``r_N >= 0`` pushes the bodies
apart.  With ``mu = 0`` the problem is frictionless (``r_T = 0``).  ``M``
need not be symmetric (:attr:`GlobalProblem.asymmetry`).

This module holds the problem, the projections on the cone and its dual,
and the residuals every solution is reported with
(:meth:`GlobalProblem.residuals`), none of which depends on a solver's
parameters:

* ``equilibrium`` ``= ||q + H r - M v|| / max(||q||, ||M v||, ||H r||)``;
* ``natural_map`` ``= ||F|| / max(||u||, ||r||)``, ``F_i = r_i - P_C(r_i -
  u_hat_i)``: the natural map with ``rho = 1``;
* ``gfc3d_error`` ``=`` equilibrium ``+`` natural_map: exactly Siconos'
  ``gfc3d_compute_error`` (Siconos 4.4, ``gfc3d_compute_error.c``), for
  comparing with its solvers;
* ``complementarity``: the cone complementarity residual, free of any
  ``rho`` and of the units of ``r`` and ``u``: the largest of
  ``||r - P_C(r)|| / ||r||``, ``||u_hat - P_{C*}(u_hat)|| / ||u_hat||`` and
  ``sum_i |r_i . u_hat_i| / (||r|| ||u_hat||)``, ``||u_hat||`` at least
  :attr:`GlobalProblem.velocity_scale` (where all contacts stick ``u`` is
  round-off).  ``natural_map`` alone mixes
  forces and velocities: when ``||r||`` is many orders above ``||u||`` it
  cannot see a violated velocity condition, and this one can.

A solution is converged (:meth:`Residuals.converged`) when equilibrium,
natural map and complementarity are all below the tolerance.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp


#: largest relative asymmetry of ``M`` (:attr:`GlobalProblem.asymmetry`) taken as symmetric
SYMMETRY_TOLERANCE = 1e-13


class PFCError(ValueError):
    """A global frictional contact problem (or its file) that cannot be used; one line."""


def project_on_cone(x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r"""Euclidean projection of each row of ``x`` (normal first) on its Coulomb cone.

    Parameters
    ----------
    x : ndarray, shape (m, d)
    mu : ndarray, shape (m,)

    Returns
    -------
    ndarray, shape (m, d)
        ``x`` inside the cone (``||x_T|| <= mu x_N``), ``0`` inside the polar
        cone (``mu ||x_T|| <= -x_N``), else
        ``a (1, mu x_T/||x_T||)`` with ``a = (x_N + mu ||x_T||)/(1 + mu^2)``.
    """
    x = np.asarray(x, dtype=float)
    xn, xt = x[:, 0], x[:, 1:]
    nt = np.linalg.norm(xt, axis=1)
    inside = (nt <= mu * xn) & (xn >= 0.0)
    polar = mu * nt <= -xn
    a = (xn + mu * nt) / (1.0 + mu * mu)
    direction = xt / np.where(nt > 0.0, nt, 1.0)[:, None]
    out = np.column_stack([a, (mu * a)[:, None] * direction])
    out[inside] = x[inside]
    out[polar & ~inside] = 0.0
    return out


def project_on_dual_cone(x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r"""Euclidean projection of each row of ``x`` on the dual cone ``C*_mu = {||x_T|| mu <= x_N}``.

    By Moreau's decomposition, ``P_{C*}(x) = x + P_C(-x)`` (the polar cone
    of ``C`` is ``-C*``).  With ``mu = 0`` the dual cone is the half-space
    ``x_N >= 0``.

    Parameters
    ----------
    x : ndarray, shape (m, d)
    mu : ndarray, shape (m,)

    Returns
    -------
    ndarray, shape (m, d)
    """
    x = np.asarray(x, dtype=float)
    return x + project_on_cone(-x, mu)


def modified_velocity(u: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """De Saxcé's ``u_hat = u + mu ||u_T|| e_N`` per contact; ``u`` shape (m, d)."""
    out = np.array(u, dtype=float, copy=True)
    out[:, 0] += mu * np.linalg.norm(out[:, 1:], axis=1)
    return out


@dataclass(frozen=True)
class Residuals:
    """How well ``(v, r, u)`` solves a :class:`GlobalProblem` (see the module for the definitions).

    Attributes
    ----------
    equilibrium : float
        ``||q + H r - M v|| / max(||q||, ||M v||, ||H r||)``.
    natural_map : float
        ``||r - P_C(r - u_hat)|| / max(||u||, ||r||)`` (``rho = 1``).
    gfc3d_error : float
        ``equilibrium + natural_map``: Siconos' ``gfc3d_compute_error``.
    complementarity : float
        The cone complementarity residual (no ``rho``, no units).
    """

    equilibrium: float
    natural_map: float
    gfc3d_error: float
    complementarity: float

    def converged(self, tolerance: float) -> bool:
        """Whether equilibrium, natural map and complementarity are all at most ``tolerance``."""
        return max(self.equilibrium, self.natural_map, self.complementarity) <= tolerance

    def describe(self) -> str:
        """The four figures in words, for messages."""
        return (f"equilibrium {self.equilibrium:.1e}, natural map {self.natural_map:.1e}, "
                f"complementarity {self.complementarity:.1e} (gfc3d error {self.gfc3d_error:.1e})")

    def as_dict(self) -> dict:
        """The four figures as a plain dict (for JSON and ``.npz`` files)."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class GlobalProblem:
    r"""PFC(M, H, q, b, mu) in dimension ``d``.

    Attributes
    ----------
    M : scipy.sparse.csc_matrix, shape (n, n)
        Nonsingular, or singular with ``rigid_modes`` spanning its null
        space; symmetric or not (:attr:`asymmetry`).
    H : scipy.sparse.csc_matrix, shape (n, m*d)
    q : ndarray, shape (n,)
    b : ndarray, shape (m*d,)
    mu : ndarray, shape (m,)
    d : int
        2 or 3.
    rigid_modes : ndarray, shape (n, k)
        Null space of ``M`` (``k = 0`` when it is positive definite).
    info : dict
        Free-form metadata (origin of the problem; JSON-serialisable).
    near_null_space : ndarray, shape (n, k)
        Optional: the rigid-body motions of the bodies in the unknowns of
        ``v`` (an exported finite-element increment has them), for an
        algebraic multigrid of ``M`` (``k = 0`` when not known).
    source : str, init only
        What to name in the error raised for an inconsistent entry (a file).
    """

    M: sp.csc_matrix
    H: sp.csc_matrix
    q: np.ndarray
    b: np.ndarray
    mu: np.ndarray
    d: int
    rigid_modes: np.ndarray = field(default=None, repr=False)
    info: dict = field(default_factory=dict, repr=False)
    near_null_space: np.ndarray = field(default=None, repr=False)
    source: InitVar[str] = "problem"

    def __post_init__(self, source: str):
        object.__setattr__(self, "M", sp.csc_matrix(self.M, dtype=float))
        object.__setattr__(self, "H", sp.csc_matrix(self.H, dtype=float))
        for name in ("q", "b", "mu"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=float).ravel())
        object.__setattr__(self, "d", int(self.d))
        modes = np.zeros((self.q.size, 0)) if self.rigid_modes is None else np.asarray(self.rigid_modes, float)
        if modes.ndim == 1:
            modes = modes[:, None]
        object.__setattr__(self, "rigid_modes", modes if modes.size else np.zeros((self.q.size, 0)))
        near = np.zeros((self.q.size, 0)) if self.near_null_space is None \
            else np.asarray(self.near_null_space, dtype=float)
        object.__setattr__(self, "near_null_space", near if near.size else np.zeros((self.q.size, 0)))
        check(self, source)

    @property
    def n(self) -> int:
        """Number of global unknowns."""
        return self.q.size

    @property
    def n_contacts(self) -> int:
        """Number of contacts ``m`` (one friction coefficient each)."""
        return self.mu.size

    def local_velocity(self, v: np.ndarray) -> np.ndarray:
        """``u = H^T v + b``, shape (m*d,)."""
        return self.H.T @ v + self.b

    @cached_property
    def asymmetry(self) -> tuple:
        """``(relative, (i, j))``: the largest ``|M_ij - M_ji|`` over the largest ``|M_ij|``, and where.

        ``(0.0, None)`` for a symmetric ``M``.
        """
        gap = sp.coo_matrix(self.M - self.M.T)
        if gap.nnz == 0 or not np.any(gap.data):
            return 0.0, None
        k = int(np.argmax(np.abs(gap.data)))
        scale = float(np.max(np.abs(self.M.data), initial=0.0)) or 1.0
        return float(abs(gap.data[k])) / scale, (int(gap.row[k]), int(gap.col[k]))

    @property
    def symmetric(self) -> bool:
        """Whether ``M`` is symmetric to round-off (relative asymmetry at most 1e-13)."""
        return self.asymmetry[0] <= SYMMETRY_TOLERANCE

    def contact_scales(self) -> tuple:
        r"""Per-contact augmentation ``(rho_N, rho_T)``, shape (m,) each: inverse contact compliances.

        The compliance of contact ``i`` in direction ``k`` is the diagonal
        entry ``(H^T M^{-1} H)_{ik,ik}`` of the Delassus operator, estimated
        without factorising ``M`` as ``sum_j H_{j,ik}^2 / M_jj`` (exact for a
        diagonal ``M``).  ``rho_N`` inverts the normal one, ``rho_T`` the mean
        of the tangential ones.  A solver parameter, not part of any
        residual: each contact gets its own, so the iteration does not
        depend on how the unknowns are scaled.
        """
        squares = self.H.multiply(self.H).T
        compliance = np.asarray(squares @ (1.0 / self.mass_diagonal)).reshape(-1, self.d)
        positive = compliance[compliance > 0.0]
        floor = float(np.min(positive)) if positive.size else 1.0
        compliance = np.where(compliance > 0.0, compliance, floor)
        return 1.0 / compliance[:, 0], 1.0 / np.mean(compliance[:, 1:], axis=1)

    def natural_map(self, r: np.ndarray, u: np.ndarray, rho=1.0) -> np.ndarray:
        """``r - P_C(r - rho u_hat)`` per contact, shape (m, d), from ``r`` and ``u`` (m*d,)."""
        R = np.asarray(r, dtype=float).reshape(-1, self.d)
        u_hat = modified_velocity(np.reshape(u, (-1, self.d)), self.mu)
        return R - project_on_cone(R - np.reshape(rho, (-1, 1)) * u_hat, self.mu)

    @cached_property
    def mass_diagonal(self) -> np.ndarray:
        """``|diag M|``, zeros replaced by its largest entry (1 if all vanish), shape (n,).

        The diagonal behind the estimates of :meth:`contact_scales` and
        :attr:`velocity_scale`.
        """
        diag = np.abs(self.M.diagonal())
        fallback = float(np.max(diag, initial=0.0)) or 1.0
        return np.where(diag > 0.0, diag, fallback)

    @cached_property
    def velocity_scale(self) -> float:
        r"""The size of the terms that make ``u``: ``max(||b||, ||H^T D^{-1} q||)``, ``D = |diag M|``.

        ``H^T D^{-1} q`` estimates the local velocities the load would cause
        without contact.  Where every contact sticks, ``u`` is the round-off
        of such terms, and :meth:`complementarity` measures ``u_hat`` against
        this scale rather than against itself.
        """
        free = self.H.T @ (self.q / self.mass_diagonal)
        return max(float(np.linalg.norm(self.b)), float(np.linalg.norm(free)))

    def complementarity(self, r: np.ndarray, u: np.ndarray) -> float:
        """The cone complementarity residual of ``(r, u)`` (module docstring): no ``rho``, no units.

        ``u_hat`` is measured against ``max(||u_hat||, velocity_scale)``
        (:attr:`velocity_scale`).
        """
        velocity_scale = self.velocity_scale
        R = np.asarray(r, dtype=float).reshape(-1, self.d)
        U = modified_velocity(np.reshape(u, (-1, self.d)), self.mu)
        tiny = np.finfo(float).tiny
        norm_r = max(float(np.linalg.norm(R)), tiny)
        norm_u = max(float(np.linalg.norm(U)), float(velocity_scale), tiny)
        outside_r = float(np.linalg.norm(R - project_on_cone(R, self.mu))) / norm_r
        outside_u = float(np.linalg.norm(U - project_on_dual_cone(U, self.mu))) / norm_u
        product = float(np.sum(np.abs(np.einsum("ij,ij->i", R, U)))) / (norm_r * norm_u)
        return max(outside_r, outside_u, product)

    def contact_residuals(self, r: np.ndarray, u: np.ndarray) -> tuple:
        """``(natural_map, complementarity)`` of ``(r, u)`` alone (as :meth:`residuals`)."""
        tiny = np.finfo(float).tiny
        F = self.natural_map(r, u)
        natural = float(np.linalg.norm(F)) / max(float(np.linalg.norm(u)), float(np.linalg.norm(r)), tiny)
        return natural, self.complementarity(r, u)

    def residuals(self, v: np.ndarray, r: np.ndarray, u: np.ndarray | None = None) -> Residuals:
        """The residuals of ``(v, r, u)`` (``u`` default ``H^T v + b``): see the module.

        Parameters
        ----------
        v : ndarray, shape (n,)
        r, u : ndarray, shape (m*d,)

        Returns
        -------
        Residuals
        """
        v, r = np.asarray(v, dtype=float), np.ravel(np.asarray(r, dtype=float))
        u = self.local_velocity(v) if u is None else np.ravel(np.asarray(u, dtype=float))
        Mv, Hr = self.M @ v, self.H @ r
        tiny = np.finfo(float).tiny
        balance = float(np.linalg.norm(self.q + Hr - Mv)) / max(
            float(np.linalg.norm(self.q)), float(np.linalg.norm(Mv)), float(np.linalg.norm(Hr)), tiny)
        natural, complementarity = self.contact_residuals(r, u)
        return Residuals(equilibrium=balance, natural_map=natural, gfc3d_error=balance + natural,
                         complementarity=complementarity)


def findings(problem: GlobalProblem) -> list:
    """What a solver should know about ``problem`` that does not stop it, one line each.

    Today: a non-symmetric ``M`` (the solvers then factorise it by LU).
    """
    out = []
    relative, where = problem.asymmetry
    if relative > SYMMETRY_TOLERANCE:
        i, j = where
        out.append(f"M is not symmetric: |M[{i},{j}] - M[{j},{i}]| = "
                   f"{abs(problem.M[i, j] - problem.M[j, i]):.3g} ({relative:.1e} of max |M|); "
                   f"it is factorised by LU")
    return out


def check(problem: GlobalProblem, source: str = "problem") -> None:
    """Raise :class:`PFCError` naming the first inconsistent entry of ``problem``."""
    p = problem
    if p.d not in (2, 3):
        raise PFCError(f"{source}: 'd' must be 2 or 3, got {p.d}")
    n, m = p.q.size, p.mu.size
    if p.M.shape != (n, n):
        raise PFCError(f"{source}: 'M' has shape {p.M.shape}, expected ({n}, {n}) from 'q'")
    if p.H.shape != (n, m * p.d):
        raise PFCError(f"{source}: 'H' has shape {p.H.shape}, expected ({n}, {m * p.d}) "
                       f"from 'q' ({n}), 'mu' ({m} contacts) and 'd' ({p.d})")
    if p.b.size != m * p.d:
        raise PFCError(f"{source}: 'b' has {p.b.size} entries, expected {m * p.d} "
                       f"({m} contacts x d = {p.d})")
    for name in ("q", "b", "mu"):
        values = getattr(p, name)
        if not np.all(np.isfinite(values)):
            raise PFCError(f"{source}: '{name}' has non-finite entries "
                           f"(first at index {int(np.flatnonzero(~np.isfinite(values))[0])})")
    for name in ("M", "H"):
        if not np.all(np.isfinite(getattr(p, name).data)):
            raise PFCError(f"{source}: '{name}' has non-finite entries")
    if np.any(p.mu < 0.0):
        raise PFCError(f"{source}: 'mu' must be >= 0 (contact {int(np.flatnonzero(p.mu < 0)[0])} "
                       f"has {p.mu[p.mu < 0][0]:g})")
    if p.rigid_modes.shape[0] != n:
        raise PFCError(f"{source}: 'rigid_modes' has {p.rigid_modes.shape[0]} rows, expected {n}")
    if p.near_null_space.shape[0] != n:
        raise PFCError(f"{source}: 'near_null_space' has {p.near_null_space.shape[0]} rows, "
                       f"expected {n}")
