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
apart.  With ``mu = 0`` the problem is frictionless (``r_T = 0``).

This module holds the problem, the projection on the cone and the two
residuals every solution is reported with:

* the natural map ``F(r) = r - P_C(r - rho u_hat)``, relative:
  ``||F|| / max(||r||, ||q||)``.  ``rho`` (force per length) makes ``rho
  u_hat`` a force, so the measure does not depend on units;
  :meth:`GlobalProblem.rho` takes it from the diagonal of the Delassus
  operator estimated with the diagonal of ``M`` (no factorisation).
  Siconos' own measure (``rho = 1``, squared norm divided by ``1 + ||q||``,
  as in its ``GlobalFrictionContact3D_compute_error``) is reported beside
  it as ``siconos_error`` for cross-checking with Siconos' solvers;
* the equilibrium residual ``||M v - q - H r|| / max(||q||, ||H r||)``.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field

import numpy as np
import scipy.sparse as sp


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


def modified_velocity(u: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """De Saxcé's ``u_hat = u + mu ||u_T|| e_N`` per contact; ``u`` shape (m, d)."""
    out = np.array(u, dtype=float, copy=True)
    out[:, 0] += mu * np.linalg.norm(out[:, 1:], axis=1)
    return out


@dataclass(frozen=True)
class Residuals:
    """How well ``(v, r)`` solves a :class:`GlobalProblem`.

    Attributes
    ----------
    natural_map : float
        ``||r - P_C(r - rho u_hat)|| / max(||r||, ||q||)``.
    equilibrium : float
        ``||M v - q - H r|| / max(||q||, ||H r||)``.
    siconos_error : float
        Siconos' measure with ``rho = 1``:
        ``sum_i ||r_i - P_C(r_i - u_hat_i)||^2 / (1 + ||q||)`` (the contact
        part of its ``GlobalFrictionContact3D_compute_error``; not unit-free).
    rho : float
        The scale used in ``natural_map``.
    """

    natural_map: float
    equilibrium: float
    siconos_error: float
    rho: float

    def as_dict(self) -> dict:
        """The four figures as a plain dict (for JSON and ``.npz`` files)."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class GlobalProblem:
    r"""PFC(M, H, q, b, mu) in dimension ``d``.

    Attributes
    ----------
    M : scipy.sparse.csc_matrix, shape (n, n)
        Symmetric, positive definite or semi-definite (then ``rigid_modes``
        should span its null space).
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

    def rho(self) -> float:
        r"""Scale of ``u_hat`` in the natural map (force per length).

        ``1 / mean(diag(H^T D^{-1} H))`` with ``D = diag(M)``: the inverse of
        the mean contact compliance, estimated without factorising ``M``.
        """
        diag = self.M.diagonal()
        scale = np.where(diag > 0.0, diag, np.max(np.abs(diag), initial=1.0))
        compliance = np.asarray(self.H.multiply(self.H).T @ (1.0 / scale)).ravel()
        mean = float(np.mean(compliance)) if compliance.size else 0.0
        return 1.0 / mean if mean > 0.0 else 1.0

    def natural_map(self, r: np.ndarray, u: np.ndarray, rho: float) -> np.ndarray:
        """``r - P_C(r - rho u_hat)`` per contact, shape (m, d), from ``r`` and ``u`` (m*d,)."""
        R = np.asarray(r, dtype=float).reshape(-1, self.d)
        u_hat = modified_velocity(np.reshape(u, (-1, self.d)), self.mu)
        return R - project_on_cone(R - rho * u_hat, self.mu)

    def relative_natural_map(self, r: np.ndarray, u: np.ndarray, rho: float) -> float:
        """``||r - P_C(r - rho u_hat)|| / max(||r||, ||q||)``."""
        scale = max(float(np.linalg.norm(r)), float(np.linalg.norm(self.q)), np.finfo(float).tiny)
        return float(np.linalg.norm(self.natural_map(r, u, rho))) / scale

    def residuals(self, v: np.ndarray, r: np.ndarray, rho: float | None = None) -> Residuals:
        """The natural-map and equilibrium residuals of ``(v, r)``."""
        rho = self.rho() if rho is None else float(rho)
        u = self.local_velocity(v)
        siconos = self.natural_map(r, u, 1.0)
        Hr = self.H @ np.ravel(r)
        norm_q = float(np.linalg.norm(self.q))
        balance = self.M @ v - self.q - Hr
        tiny = np.finfo(float).tiny
        return Residuals(
            natural_map=self.relative_natural_map(r, u, rho),
            equilibrium=float(np.linalg.norm(balance) / max(norm_q, float(np.linalg.norm(Hr)), tiny)),
            siconos_error=float(np.sum(siconos * siconos) / (1.0 + norm_q)),
            rho=rho)


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
