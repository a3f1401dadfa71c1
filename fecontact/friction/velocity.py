"""Rate-dependent Coulomb friction ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c |v|)``, implicit in the slip rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import FrictionLaw, FrictionResponse

from .cone import coulomb_return_map


def _rate(slip, dt):
    speed = np.linalg.norm(slip, axis=1) / dt
    direction = slip / np.where(speed > 0.0, speed * dt, 1.0)[:, None]
    return speed, direction


@dataclass(frozen=True)
class VelocityDependent(FrictionLaw):
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
    """

    mu_s: float
    mu_k: float
    decay: float
    name = "velocity"

    def coefficient(self, speed):
        return self.mu_k + (self.mu_s - self.mu_k) * np.exp(-self.decay * speed)

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        speed, direction = _rate(slip, dt)
        mu = np.where(engaged, self.coefficient(speed), 0.0)
        cone = coulomb_return_map(trial, mu * normal)
        d_mu = -self.decay * (self.mu_s - self.mu_k) * np.exp(-self.decay * speed) / dt
        d_mu = np.where(engaged & cone.sliding, d_mu, 0.0)
        d_slip = (normal * d_mu)[:, None, None] * cone.d_radius[:, :, None] * direction[:, None, :]
        return FrictionResponse(cone.traction, cone.d_trial, cone.d_radius * mu[:, None],
                                d_slip, cone.sliding, mu)
