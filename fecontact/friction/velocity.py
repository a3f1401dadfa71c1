"""Rate-dependent Coulomb friction ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c |v|)``, implicit in the slip rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fields import NonNegative
from .base import FrictionResponse, FrictionStart, TwoCoefficientLaw
from .cone import coulomb_return_map
from .registry import friction_law, parameter


def _rate(slip, dt):
    speed = np.linalg.norm(slip, axis=1) / dt
    direction = slip / np.where(speed > 0.0, speed * dt, 1.0)[:, None]
    return speed, direction


@friction_law("velocity", example={"mu_s": 0.5, "mu_k": 0.3, "dc": 40.0})
@dataclass(frozen=True)
class VelocityDependent(TwoCoefficientLaw):
    r"""Rate-dependent Coulomb friction ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c |v|)``.

    ``v = Delta s / dt`` is the slip rate over the increment.  The radius
    ``mu(|v|) lam_hat`` is implicit: it uses the slip of the current Newton
    iterate, and its derivative enters the Jacobian,

    .. math::

        \frac{\partial F}{\partial \Delta s} = \lambda\,\mu'(|v|)\,
        \frac{z}{|z|}\otimes\frac{v}{|v|}\,\frac{1}{\Delta t}
        \quad\text{(sliding nodes)},

    with ``mu'(v) = -d_c (mu_s - mu_k) exp(-d_c v)``.  A lagged coefficient
    (from the previous increment's rate) would keep the Jacobian of plain
    Coulomb but make the traction one increment late: at breakaway and
    re-sticking, exactly where velocity weakening matters, the lag changes
    the answer with the step size.  Stuck nodes have ``v = 0`` and ``mu_s``.

    Parameters
    ----------
    mu_s : float
        Static (breakaway) coefficient, >= 0.
    mu_k : float
        Kinetic coefficient, the limit at high slip rates, ``0 <= mu_k <= mu_s``.
    decay : float
        Decay rate ``d_c`` of ``mu`` with the slip rate, >= 0 (case files: ``dc``).

    Examples
    --------
    >>> import numpy as np
    >>> import fecontact as fc
    >>> law = fc.VelocityDependent(mu_s=0.5, mu_k=0.3, decay=40.0)
    >>> [f"{mu:.3g}" for mu in law.rate_coefficient(np.array([0.0, 0.01, 1.0]))]
    ['0.5', '0.434', '0.3']
    """

    mu_s: NonNegative = parameter("static (breakaway) coefficient", fallback="mu")
    mu_k: NonNegative = parameter("kinetic (sliding) coefficient, <= mu_s", fallback="mu")
    decay: NonNegative = parameter("decay rate of mu with the slip rate", key="dc", default=0.0,
                                   required_when=("mu_s != mu_k", lambda v: v["mu_s"] != v["mu_k"]))

    def rate_coefficient(self, speed: np.ndarray) -> np.ndarray:
        """``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c v)`` for slip rates ``v`` of shape (m,)."""
        return self.mu_k + (self.mu_s - self.mu_k) * np.exp(-self.decay * speed)

    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """``mu(v)`` at sliding nodes, ``mu_s`` at stuck ones, shape (m,)."""
        return np.where(sliding, self.rate_coefficient(speed), self.mu_s)

    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        """Projection onto the disk of radius ``mu(|Delta s| / dt) lam_hat``, implicit in the slip."""
        speed, direction = _rate(slip, dt)
        engaged = start.mask()
        mu = np.where(engaged, self.rate_coefficient(speed), 0.0)
        cone = coulomb_return_map(trial, mu * lam_hat)
        d_mu = -self.decay * (self.mu_s - self.mu_k) * np.exp(-self.decay * speed) / dt
        d_mu = np.where(engaged & cone.sliding, d_mu, 0.0)
        d_slip = (lam_hat * d_mu)[:, None, None] * cone.d_radius[:, :, None] * direction[:, None, :]
        return FrictionResponse(traction=cone.traction, d_trial=cone.d_trial,
                                d_normal=cone.d_radius * mu[:, None], d_slip=d_slip,
                                sliding=cone.sliding, coefficient=mu)
