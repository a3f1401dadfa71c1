r"""The Alart–Curnier contact residual, assembled in a straight pipeline.

Per slave node, with tractions ``(lam_n, lam_t)`` (force per area), gap
``g_n`` and slip increment ``Delta s``:

1. **augmented normal** (:func:`augmented_normal`):
   ``lam_hat = max(0, lam_n - c_n g_n)`` — or, at penalty nodes,
   ``lam_hat = eps max(0, -g_n)``;
2. **trial** (elastic predictor): ``z = lam_t - c_t Delta s``;
3. **return map** of the pair's friction law (:class:`fecontact.friction.base.FrictionLaw`):
   ``F(z, lam_hat, Delta s)`` with its generalised derivatives;
4. **assembly** (:func:`alart_curnier`): the semismooth equations

.. math::

    C_n = \lambda_n - \hat\lambda_n = 0, \qquad C_t = \lambda_t - F = 0,

with ``dC_t/dlam_t = I - F_z``, ``dC_t/dlam_n = -F_lam dlam_hat/dlam_n``,
``dC_t/dg = -F_lam dlam_hat/dg`` and ``dC_t/ds = c_t F_z - F_s``.

Each step is a pure function of arrays; no step calls back into another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import FrictionResponse, cone_response
from .status import Status


@dataclass(frozen=True)
class AugmentedNormal:
    """The augmented normal traction of ``m`` nodes and its generalised derivatives.

    Attributes
    ----------
    traction : ndarray, shape (m,)
        ``lam_hat``.
    active : ndarray of bool, shape (m,)
        Closed nodes (``lam_n - c_n g_n >= 0``, or ``g_n <= 0`` at penalty nodes).
    d_multiplier : ndarray, shape (m,)
        ``dlam_hat/dlam_n``.
    d_gap : ndarray, shape (m,)
        ``dlam_hat/dg_n``.
    """

    traction: np.ndarray
    active: np.ndarray
    d_multiplier: np.ndarray
    d_gap: np.ndarray


def augmented_normal(lam_n: np.ndarray, gap: np.ndarray, c_n: np.ndarray,
                     penalty: np.ndarray | None = None) -> AugmentedNormal:
    """``lam_hat = max(0, lam_n - c_n g_n)``, or ``eps max(0, -g_n)`` at penalty nodes.

    Parameters
    ----------
    lam_n : ndarray, shape (m,)
        Normal traction (contact pressure).
    gap : ndarray, shape (m,)
        Normal gap ``g_n`` (positive when open).
    c_n : ndarray, shape (m,)
        Normal augmentation (traction per length).
    penalty : ndarray, shape (m,), optional
        Penalty stiffness ``eps`` of nodes whose normal condition is
        regularised (``0`` or omitted: the exact Signorini condition).
    """
    aug = lam_n - c_n * gap
    active = aug >= 0.0    # closed at exactly zero: an element of the generalised derivative
    d_lam = active.astype(float)
    d_gap = -c_n * active
    if penalty is not None:
        regular = penalty > 0.0
        aug = np.where(regular, -penalty * gap, aug)
        active = np.where(regular, gap <= 0.0, active)
        d_lam = np.where(regular, 0.0, d_lam)
        d_gap = np.where(regular, -penalty * active, d_gap)
    return AugmentedNormal(traction=np.where(active, aug, 0.0), active=active,
                           d_multiplier=d_lam, d_gap=d_gap)


@dataclass(frozen=True)
class ContactResidual:
    """Alart–Curnier residual and its generalised derivatives.

    Unknown ordering per node: ``(lam_n, lam_t[0..q-1])``; kinematic
    ordering ``(g_n, Delta s[0..q-1])``.

    Attributes
    ----------
    residual : ndarray, shape (m, d)
        ``(C_n, C_t)``, traction units.
    d_multiplier : ndarray, shape (m, d, d)
        ``dC/d(lam_n, lam_t)``.
    d_kinematics : ndarray, shape (m, d, d)
        ``dC/d(g_n, Delta s)``.
    status : ndarray of int, shape (m,)
        :class:`~fecontact.friction.status.Status` of each node.
    friction : FrictionResponse
        The friction law's response.
    """

    residual: np.ndarray
    d_multiplier: np.ndarray
    d_kinematics: np.ndarray
    status: np.ndarray
    friction: FrictionResponse


def alart_curnier(multiplier: np.ndarray, normal: AugmentedNormal, response: FrictionResponse,
                  c_t: np.ndarray) -> ContactResidual:
    """Assemble the Alart–Curnier equations from the augmented normal and the law's response.

    Parameters
    ----------
    multiplier : ndarray, shape (m, d)
        ``(lam_n, lam_t)``.
    normal : AugmentedNormal
        :func:`augmented_normal` of ``lam_n`` and the gap.
    response : FrictionResponse
        The friction law's return map at the trial ``z = lam_t - c_t Delta s``
        and ``lam_hat = normal.traction``.
    c_t : ndarray, shape (m,)
        Tangential augmentation (traction per length).
    """
    m, d = multiplier.shape
    lam_n, lam_t = multiplier[:, 0], multiplier[:, 1:]
    F_z, F_lam = response.d_trial, response.d_normal

    residual = np.empty((m, d))
    residual[:, 0] = lam_n - normal.traction
    residual[:, 1:] = lam_t - response.traction

    d_mult = np.zeros((m, d, d))
    d_kin = np.zeros((m, d, d))
    d_mult[:, 0, 0] = 1.0 - normal.d_multiplier
    d_kin[:, 0, 0] = -normal.d_gap
    d_mult[:, 1:, 1:] = np.eye(d - 1) - F_z
    d_mult[:, 1:, 0] = -F_lam * normal.d_multiplier[:, None]
    d_kin[:, 1:, 0] = -F_lam * normal.d_gap[:, None]
    d_kin[:, 1:, 1:] = F_z * c_t[:, None, None] - response.d_slip

    status = np.where(~normal.active, Status.OPEN,
                      np.where(response.sliding, Status.SLIP, Status.STICK))
    return ContactResidual(residual=residual, d_multiplier=d_mult, d_kinematics=d_kin,
                           status=status, friction=response)


def coulomb_residual(multiplier: np.ndarray, gap: np.ndarray, slip: np.ndarray, c_n: np.ndarray,
                     c_t: np.ndarray, mu: np.ndarray,
                     penalty: np.ndarray | None = None) -> ContactResidual:
    """The whole pipeline for Coulomb friction with a coefficient per node.

    Parameters
    ----------
    multiplier : ndarray, shape (m, d)
    gap : ndarray, shape (m,)
    slip : ndarray, shape (m, q)
    c_n, c_t : ndarray, shape (m,)
    mu : array_like, shape (m,) or scalar
        Coulomb coefficient of each node.
    penalty : ndarray, shape (m,), optional
        As in :func:`augmented_normal`.
    """
    normal = augmented_normal(multiplier[:, 0], gap, c_n, penalty)
    trial = multiplier[:, 1:] - c_t[:, None] * slip
    mu = np.broadcast_to(np.asarray(mu, dtype=float), gap.shape)
    return alart_curnier(multiplier, normal, cone_response(trial, normal.traction, mu), c_t)
