r"""The Coulomb disk projection: the frictional corrector of the return map.

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

    C_n = \lambda_n - \hat\lambda_n = 0, \qquad C_t = \lambda_t - P_\rho(z) = 0

(:mod:`fecontact.friction.residual`).

Generalised derivative of the projection: stick ``I``; slip
``(rho/|z|)(I - z z^T/|z|^2)`` with ``dP/drho = z/|z|``; open (``rho = 0``): 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
