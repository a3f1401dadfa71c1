"""The IPC Toolkit's smooth static-to-kinetic friction with a lagged normal force."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fields import NonNegative, Positive
from .base import FrictionResponse, FrictionStart, TwoCoefficientLaw
from .registry import friction_law, parameter
from .smooth import smooth_mu, smooth_mu_f1_over_x, smooth_mu_f2_x_minus_mu_f1_over_x3


@friction_law("ipc", example={"mu_s": 0.5, "mu_k": 0.3, "eps_v": 0.02})
@dataclass(frozen=True)
class SmoothIPC(TwoCoefficientLaw):
    r"""Smooth static-to-kinetic friction (IPC Toolkit), lagged normal force.

    .. math::

        F = -\mu(y)\,\lambda_{n0}\,f_1(y)\,\frac{v}{y}, \qquad
        v = \frac{\Delta s}{\Delta t},\; y = |v|,

    with ``lam_n0`` the normal traction at the start of the increment (as in
    the IPC Toolkit, one lag per increment, no re-solves; a node touching
    without a lagged force yet -- at the first increment -- uses its current
    normal traction, with its derivative) and
    ``mu``, ``f1`` from :mod:`fecontact.friction.smooth` (velocity threshold
    ``eps_v``).  ``F`` is a smooth function of the slip: no return map, no
    stick constraint (below ``eps_v`` the node creeps at a rate
    proportional to the force), and

    .. math::

        \frac{\partial F}{\partial \Delta s} = -\frac{\lambda_{n0}}{\Delta t}
        \Big[(\mu f_1/x)(y)\, I + \big((\mu f_1)'x - \mu f_1\big)/x^3\,(y)\; v v^T\Big].

    Nodes with ``y < eps_v`` report as stuck, the others as sliding; open
    nodes (``lam_hat = 0``) carry no friction whatever ``lam_n0``.

    Parameters
    ----------
    mu_s : float
        Static coefficient, >= 0.
    mu_k : float
        Kinetic coefficient, ``0 <= mu_k <= mu_s``.
    eps_v : float
        Slip-rate threshold ``> 0``: below it the node creeps (reported stuck).

    Examples
    --------
    >>> import fecontact as fc
    >>> law = fc.SmoothIPC(mu_s=0.5, mu_k=0.3, eps_v=0.02)
    >>> law.name, law.smooth, law.lagged, law.static, law.kinetic
    ('ipc', True, True, 0.5, 0.3)
    """

    lagged = True
    smooth = True

    mu_s: NonNegative = parameter("static (breakaway) coefficient", fallback="mu")
    mu_k: NonNegative = parameter("kinetic (sliding) coefficient, <= mu_s", fallback="mu")
    eps_v: Positive = parameter("slip-rate threshold")

    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """``max(mu_s, mu_k)`` at every node: the bound of ``mu(y)`` over all rates, shape (m,)."""
        return np.full(np.shape(sliding), max(self.mu_s, self.mu_k))

    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        """The smooth traction ``-mu(y) lam_n0 f_1(y) v / y`` of the slip rate (no projection)."""
        normal, normal0 = lam_hat, start.normal
        m, q = slip.shape
        v = slip / dt
        y = np.linalg.norm(v, axis=1)
        lagged = normal0 > 0.0
        # the lagged force; a node touching at the start without one yet uses the current
        # force; a node closing inside the increment has none (one lag per increment)
        engaged = start.mask() & (lagged | start.touching_mask())
        current = engaged & (normal > 0.0) & ~lagged
        lam = np.where(engaged & (normal > 0.0), np.where(lagged, normal0, normal), 0.0)
        g = smooth_mu_f1_over_x(y, self.mu_s, self.mu_k, self.eps_v)
        h = smooth_mu_f2_x_minus_mu_f1_over_x3(y, self.mu_s, self.mu_k, self.eps_v)
        h = np.where(y > 0.0, h, 0.0)          # v v^T vanishes at rest
        traction = -(lam * g)[:, None] * v
        d_slip = -(lam / dt)[:, None, None] * (g[:, None, None] * np.eye(q)
                                              + h[:, None, None] * v[:, :, None] * v[:, None, :])
        mu = smooth_mu(y, self.mu_s, self.mu_k, self.eps_v)
        d_normal = np.where(current[:, None], -g[:, None] * v, 0.0)
        return FrictionResponse(traction=traction, d_trial=np.zeros((m, q, q)), d_normal=d_normal,
                                d_slip=d_slip, sliding=engaged & (y >= self.eps_v),
                                coefficient=np.where(engaged, mu, 0.0))
