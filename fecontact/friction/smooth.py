r"""Smooth static-to-kinetic friction of the IPC Toolkit (incremental potential contact).

The friction force of a contact with lagged normal force ``lam_n`` and
tangential relative velocity ``v`` (``y = |v|``) is

.. math::

    F = -\mu(y)\,\lambda_n\,f_1(y)\,\frac{v}{y},

where ``f1`` mollifies the unit vector ``v/y`` below the velocity threshold
``eps_v`` (``f1(y) = 2 y/eps_v - y^2/eps_v^2`` for ``y < eps_v``, else 1) and
``mu(y)`` goes from ``mu_s`` at rest to ``mu_k`` at ``y >= eps_v`` along two
quadratic arcs joined at ``eps_v / 2``.  ``f0`` is the antiderivative of
``f1`` with ``f0(eps_v) = eps_v`` (over a time step ``h`` the friction
potential of a contact is ``mu lam_n h f0(|v|)``, whose gradient in ``v`` is
``h`` times the force above for constant ``mu``), and ``f2 = f1'``.  The ``mu_*`` functions are the same quantities
with the speed-dependent coefficient folded in: ``mu_f1 = mu f1``,
``mu_f2 = (mu f1)'``, ``mu_f0' = mu f1`` with ``mu_f0(eps_v) = mu_k eps_v``.

The combinations ``f1/x`` and ``(f2 x - f1)/x^3`` are written so that they
stay finite (or have the exact ``1/x`` singularity) as ``x -> 0``; they are
what the Hessian of the friction potential needs.

All functions take numpy arrays (or scalars) and broadcast their
arguments.  Definitions follow the IPC Toolkit (``ipc/friction``); values
are checked against values computed with its Python binding.
"""

from __future__ import annotations

import numpy as np


def _arrays(*args):
    return np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args))


def _safe(x):
    """``x`` with zeros replaced by one (for divisions on branches that do not use them)."""
    return np.where(x == 0.0, 1.0, x)


def smooth_friction_f0(y, eps_v):
    """``f0(y)``: ``y`` for ``|y| >= eps_v``, else ``y^2 (1 - y/(3 eps_v))/eps_v + eps_v/3``."""
    y, eps_v = _arrays(y, eps_v)
    inner = y * y * (1.0 - y / (3.0 * eps_v)) / eps_v + eps_v / 3.0
    return np.where(np.abs(y) >= eps_v, y, inner)


def smooth_friction_f1(y, eps_v):
    """``f1(y) = f0'(y)``: 1 for ``|y| >= eps_v``, else ``y (2 - y/eps_v)/eps_v``."""
    y, eps_v = _arrays(y, eps_v)
    return np.where(np.abs(y) >= eps_v, 1.0, y * (2.0 - y / eps_v) / eps_v)


def smooth_friction_f2(y, eps_v):
    """``f2(y) = f1'(y)``: 0 for ``|y| >= eps_v``, else ``(2 - 2 y/eps_v)/eps_v``."""
    y, eps_v = _arrays(y, eps_v)
    return np.where(np.abs(y) >= eps_v, 0.0, (2.0 - 2.0 * y / eps_v) / eps_v)


def smooth_friction_f1_over_x(y, eps_v):
    """``f1(y)/y``: ``1/y`` for ``|y| >= eps_v``, else ``(2 - y/eps_v)/eps_v`` (finite at 0)."""
    y, eps_v = _arrays(y, eps_v)
    return np.where(np.abs(y) >= eps_v, 1.0 / _safe(y), (2.0 - y / eps_v) / eps_v)


def smooth_friction_f2_x_minus_f1_over_x3(y, eps_v):
    """``(f2(y) y - f1(y))/y^3``: ``-1/y^3`` for ``|y| >= eps_v``, else ``-1/(y eps_v^2)``."""
    y, eps_v = _arrays(y, eps_v)
    ys = _safe(y)
    with np.errstate(divide="ignore", over="ignore"):    # -1/y^3 overflows for tiny y
        return np.where(np.abs(y) >= eps_v, -1.0 / ys**3, -1.0 / (ys * eps_v * eps_v))


def _mu_branches(y, mu_s, mu_k, eps_v):
    y, mu_s, mu_k, eps_v = _arrays(y, mu_s, mu_k, eps_v)
    a = np.abs(y)
    kinetic = (mu_s == mu_k) | (a >= eps_v)
    low = a < 0.5 * eps_v
    return y, mu_s, mu_k, eps_v, a / eps_v, mu_k - mu_s, kinetic, low


def smooth_mu(y, mu_s, mu_k, eps_v):
    r"""Friction coefficient at speed ``y``.

    With ``z = |y|/eps_v`` and ``Delta = mu_k - mu_s``:
    ``mu_s + 2 Delta z^2`` for ``z < 1/2``, ``mu_k - 2 Delta (z - 1)^2`` for
    ``1/2 <= z < 1``, and ``mu_k`` beyond (or when ``mu_s == mu_k``).
    """
    y, mu_s, mu_k, eps_v, z, delta, kinetic, low = _mu_branches(y, mu_s, mu_k, eps_v)
    inner = np.where(low, mu_s + 2.0 * delta * z * z, mu_k - 2.0 * delta * (z - 1.0) ** 2)
    return np.where(kinetic, mu_k, inner)


def smooth_mu_derivative(y, mu_s, mu_k, eps_v):
    """``d mu / d|y|``: ``4 Delta z/eps_v`` (``z < 1/2``), ``-4 Delta (z - 1)/eps_v`` (``z < 1``), else 0."""
    y, mu_s, mu_k, eps_v, z, delta, kinetic, low = _mu_branches(y, mu_s, mu_k, eps_v)
    inner = np.where(low, 4.0 * delta * z / eps_v, -4.0 * delta * (z - 1.0) / eps_v)
    return np.where(kinetic, 0.0, inner)


def smooth_mu_f0(y, mu_s, mu_k, eps_v):
    r"""Antiderivative of ``mu f1`` with ``mu_f0(eps_v) = mu_k eps_v``.

    On ``z < 1/2``: ``eps_v (mu_s z^2 - mu_s z^3/3 + Delta z^4 - 2 Delta z^5/5) + C_1``;
    on ``1/2 <= z < 1``: ``eps_v ((2 mu_s - mu_k) z^2 + (3 mu_k - 10 mu_s/3) z^3
    - 2 Delta z^4 + 2 Delta z^5/5) + C_2`` with ``C_2 = eps_v (3 mu_k/5 - 4 mu_s/15)``
    (value ``mu_k eps_v`` at ``z = 1``) and ``C_1 = eps_v (9 mu_k/16 - 11 mu_s/48)``
    (continuity at ``z = 1/2``).  ``mu_k f0(y)`` beyond.
    """
    y, mu_s, mu_k, eps_v, z, delta, kinetic, low = _mu_branches(y, mu_s, mu_k, eps_v)
    # polynomials in z times the sign-carrying y, as in f0's inner branch
    p_low = y * z * (mu_s + z * (-mu_s / 3.0 + z * delta * (1.0 - 0.4 * z))) \
        + eps_v * (9.0 / 16.0 * mu_k - 11.0 / 48.0 * mu_s)
    p_high = y * z * ((2.0 * mu_s - mu_k)
                      + z * ((3.0 * mu_k - 10.0 / 3.0 * mu_s) + z * delta * (0.4 * z - 2.0))) \
        + eps_v * (0.6 * mu_k - 4.0 / 15.0 * mu_s)
    return np.where(kinetic, mu_k * smooth_friction_f0(y, eps_v), np.where(low, p_low, p_high))


def smooth_mu_f1(y, mu_s, mu_k, eps_v):
    """``mu(y) f1(y)``."""
    return smooth_mu(y, mu_s, mu_k, eps_v) * smooth_friction_f1(y, eps_v)


def smooth_mu_f2(y, mu_s, mu_k, eps_v):
    """``(mu f1)' = mu' f1 + mu f2``."""
    return (smooth_mu_derivative(y, mu_s, mu_k, eps_v) * smooth_friction_f1(y, eps_v)
            + smooth_mu(y, mu_s, mu_k, eps_v) * smooth_friction_f2(y, eps_v))


def smooth_mu_f1_over_x(y, mu_s, mu_k, eps_v):
    """``mu(y) f1(y)/y`` (finite at 0)."""
    return smooth_mu(y, mu_s, mu_k, eps_v) * smooth_friction_f1_over_x(y, eps_v)


def smooth_mu_f2_x_minus_mu_f1_over_x3(y, mu_s, mu_k, eps_v):
    r"""``((mu f1)' y - mu f1)/y^3``.

    For a polynomial ``sum a_n z^n`` in ``z = y/eps_v`` this is
    ``sum (n - 1) a_n z^n / y^3``: on ``z < 1/2``
    ``(-mu_s/y + (8 - 6 y/eps_v) Delta/eps_v)/eps_v^2``, on ``1/2 <= z < 1``
    ``((9 mu_k - 10 mu_s)/y + (6 y/eps_v - 16) Delta/eps_v)/eps_v^2``, and
    ``mu_k (f2 y - f1)/y^3`` beyond.
    """
    y, mu_s, mu_k, eps_v, z, delta, kinetic, low = _mu_branches(y, mu_s, mu_k, eps_v)
    ys, w = _safe(y), 1.0 / eps_v
    p_low = w * w * (w * (8.0 - 6.0 * y * w) * delta - mu_s / ys)
    p_high = w * w * (w * (6.0 * y * w - 16.0) * delta + (9.0 * mu_k - 10.0 * mu_s) / ys)
    return np.where(kinetic, mu_k * smooth_friction_f2_x_minus_f1_over_x3(y, eps_v),
                    np.where(low, p_low, p_high))
