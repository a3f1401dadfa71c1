r"""The Coulomb disk projection and the Alart–Curnier contact residual.

Sign conventions (per contact node, tractions are force per area):

* ``gap`` ``g_n >= 0`` when open; ``lam_n >= 0`` is the contact pressure.
* ``slip`` ``Delta s`` is the tangential slip increment of the step;
  ``lam_t`` is the tangential traction on the slave along the master tangent.
  Friction opposes slip: when sliding, ``lam_t = -mu lam_n Delta s/|Delta s|``.

Augmented (Alart–Curnier) form.  With the augmented normal traction
``lam_n_hat = max(0, lam_n - c_n g_n)`` and the elastic predictor
``z = lam_t - c_t Delta s`` (trial traction), the frictional corrector is the
projection onto the Coulomb disk of radius ``rho = mu lam_n_hat``:

.. math::

    P_\rho(z) = z \text{ if } |z| \le \rho, \qquad
    P_\rho(z) = \rho\, z/|z| \text{ otherwise},

and the contact conditions are the semismooth equations

.. math::

    C_n = \lambda_n - \hat\lambda_n = 0, \qquad C_t = \lambda_t - P_\rho(z) = 0.

Generalised derivative of the projection: stick ``I``; slip
``(rho/|z|)(I - z z^T/|z|^2)`` with ``dP/drho = z/|z|``; open (``rho = 0``): 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OPEN, STICK, SLIP = 0, 1, 2


@dataclass(frozen=True)
class ConeProjection:
    """Result of the Coulomb return map for ``m`` nodes, ``q = dim - 1`` tangential components.

    Attributes
    ----------
    traction : ndarray, shape (m, q)
        Corrected tangential traction ``P_rho(z)``.
    d_trial : ndarray, shape (m, q, q)
        ``dP/dz``.
    d_radius : ndarray, shape (m, q)
        ``dP/drho``.
    sliding : ndarray of bool, shape (m,)
        True where the corrector was active (``|z| > rho``, or ``rho = 0``).
    """

    traction: np.ndarray
    d_trial: np.ndarray
    d_radius: np.ndarray
    sliding: np.ndarray


def _row_norm(a: np.ndarray) -> np.ndarray:
    """Euclidean norm of each row, scaled so that tiny entries do not underflow when squared."""
    scale = np.max(np.abs(a), axis=1)
    safe = np.where(scale > 0.0, scale, 1.0)
    return scale * np.linalg.norm(a / safe[:, None], axis=1)


def coulomb_return_map(trial: np.ndarray, radius: np.ndarray) -> ConeProjection:
    """Project trial tangential tractions onto disks ``|t| <= radius``.

    Parameters
    ----------
    trial : ndarray, shape (m, q)
        Elastic predictor ``z``.
    radius : ndarray, shape (m,)
        Cone radius ``rho = mu * lam_n`` (>= 0).
    """
    m, q = trial.shape
    norm = _row_norm(trial)
    sliding = (norm > radius) | (radius <= 0.0)
    safe = np.where(norm > 0.0, norm, 1.0)
    direction = trial / safe[:, None]
    scale = np.divide(radius, safe, out=np.ones(m), where=sliding)   # stuck rows: 1
    traction = trial * scale[:, None]
    eye = np.eye(q)
    d_trial = scale[:, None, None] * (
        eye - np.where(sliding, 1.0, 0.0)[:, None, None]
        * direction[:, :, None] * direction[:, None, :])
    d_radius = np.where(sliding[:, None], direction, 0.0)
    return ConeProjection(traction, d_trial, d_radius, sliding)


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
        ``OPEN``, ``STICK`` or ``SLIP``.
    friction : FrictionResponse or None
        The friction law's response (None when a plain Coulomb coefficient
        was given).
    """

    residual: np.ndarray
    d_multiplier: np.ndarray
    d_kinematics: np.ndarray
    status: np.ndarray
    friction: object = None


def alart_curnier(multiplier: np.ndarray, gap: np.ndarray, slip: np.ndarray,
                  c_n: np.ndarray, c_t: np.ndarray, friction,
                  penalty: np.ndarray | None = None) -> ContactResidual:
    """Evaluate the Alart–Curnier equations with a friction law's return map.

    Parameters
    ----------
    multiplier : ndarray, shape (m, d)
        ``(lam_n, lam_t)``.
    gap : ndarray, shape (m,)
    slip : ndarray, shape (m, q)
    c_n, c_t : ndarray, shape (m,)
        Augmentation parameters (traction per length).
    friction : ndarray, shape (m,), or callable
        Coulomb coefficient per node, or ``friction(trial, lam_hat) ->
        FrictionResponse`` (:mod:`fecontact.friction.base`), evaluated with
        the trial traction ``z = lam_t - c_t slip`` and the augmented normal
        traction.
    penalty : ndarray, shape (m,), optional
        Penalty stiffness ``eps`` (traction per length) of nodes whose normal
        condition is regularised, ``lam_n = eps max(0, -g_n)`` (``C_n = lam_n -
        eps max(0, -g_n)``); ``0`` or omitted: the exact Signorini condition.

    Notes
    -----
    With the law's traction ``F(z, lam_hat, slip)``, ``C_t = lam_t - F`` and

    ``dC_t/dlam_t = I - F_z``, ``dC_t/dlam_n = -F_lam dlam_hat/dlam_n``,
    ``dC_t/dg = -F_lam dlam_hat/dg``, ``dC_t/ds = c_t F_z - F_s``.
    """
    m, d = multiplier.shape
    lam_n, lam_t = multiplier[:, 0], multiplier[:, 1:]
    aug = lam_n - c_n * gap
    active = aug >= 0.0    # closed at exactly zero: an element of the generalised derivative
    dhat_dlam = active.astype(float)          # d lam_hat / d lam_n
    dhat_dgap = -c_n * active                 # d lam_hat / d g_n
    if penalty is not None:
        regular = penalty > 0.0
        aug = np.where(regular, -penalty * gap, aug)
        active = np.where(regular, gap <= 0.0, active)
        dhat_dlam = np.where(regular, 0.0, dhat_dlam)
        dhat_dgap = np.where(regular, -penalty * active, dhat_dgap)
    lam_hat = np.where(active, aug, 0.0)

    trial = lam_t - c_t[:, None] * slip
    law = None
    if callable(friction):
        law = friction(trial, lam_hat)
        traction, F_z, F_lam, F_s = law.traction, law.d_trial, law.d_normal, law.d_slip
        sliding = law.sliding
    else:
        mu = np.asarray(friction, dtype=float)
        cone = coulomb_return_map(trial, mu * lam_hat)
        traction, F_z, F_lam = cone.traction, cone.d_trial, cone.d_radius * mu[:, None]
        F_s, sliding = 0.0, cone.sliding

    residual = np.empty((m, d))
    residual[:, 0] = lam_n - lam_hat
    residual[:, 1:] = lam_t - traction

    d_mult = np.zeros((m, d, d))
    d_kin = np.zeros((m, d, d))
    d_mult[:, 0, 0] = 1.0 - dhat_dlam
    d_kin[:, 0, 0] = -dhat_dgap
    d_mult[:, 1:, 1:] = np.eye(d - 1) - F_z
    d_mult[:, 1:, 0] = -F_lam * dhat_dlam[:, None]
    d_kin[:, 1:, 0] = -F_lam * dhat_dgap[:, None]
    d_kin[:, 1:, 1:] = F_z * c_t[:, None, None] - F_s

    status = np.where(~active, OPEN, np.where(sliding, SLIP, STICK))
    return ContactResidual(residual, d_mult, d_kin, status, law)
