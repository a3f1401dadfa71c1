r"""Contact kinematics in 2D: normal gap, slip increment and their derivatives.

For a slave node at ``x_s`` projected on the straight master segment
``x_a -> x_b`` (body on the left of ``a -> b``)

.. math::

    t = x_b - x_a,\quad \ell = |t|,\quad \tau = t/\ell,\quad
    n = (\tau_y, -\tau_x),\quad
    \xi = \frac{(x_s - x_a)\cdot t}{\ell^2},\quad
    g_n = n\cdot(x_s - x_a)

and the slip increment over the current step (superscript 0: start of step)

.. math::

    \Delta s = \tau^0\cdot\big[(x_s - x_s^0) - (1-\xi)(x_a - x_a^0) - \xi (x_b - x_b^0)\big],

the tangential displacement of the slave node relative to the master material
point it currently touches, measured along the master tangent ``tau^0`` at the
start of the step.  Holding the direction fixed within a step keeps ``Delta s``
continuous when the projection moves across a master vertex (the segment
tangents on both sides differ by the vertex angle; with the current tangent the
normal approach of the bodies would leak into the slip there).  The gap is positive when open; ``n`` points from
the master towards the slave.  Gradients and Hessians with respect to the
local node coordinates come exactly from :class:`fecontact.contact.jet.Jet`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .jet import Jet, dot


@dataclass(frozen=True)
class LocalKinematics:
    """Gap and slip of ``m`` contact nodes with derivatives in local variables.

    Attributes
    ----------
    ``d`` is the dimension, ``q = d - 1`` the number of tangential
    components and ``k`` the number of local variables.

    gap : ndarray, shape (m,)
    slip : ndarray, shape (m, q)
        Tangential slip increment over the current step, in components along
        the start-of-step tangent basis.
    normal : ndarray, shape (m, d)
        Master normal (towards the slave).
    tangent : ndarray, shape (m, q, d)
        Current tangent basis; in 2D ``tau = (-n_y, n_x)``.
    d_gap : ndarray, shape (m, k)
    d_slip : ndarray, shape (m, q, k)
    h_gap : ndarray, shape (m, k, k)
    h_slip : ndarray, shape (m, q, k, k)
    """

    gap: np.ndarray
    slip: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    d_gap: np.ndarray
    d_slip: np.ndarray
    h_gap: np.ndarray
    h_slip: np.ndarray


def _pack(gap: Jet, slip: Jet, normal, tangent) -> LocalKinematics:
    return LocalKinematics(
        gap=gap.value, slip=slip.value[:, None],
        normal=np.column_stack([c.value if isinstance(c, Jet) else c for c in normal]),
        tangent=np.column_stack([c.value if isinstance(c, Jet) else c for c in tangent])[:, None, :],
        d_gap=gap.grad, d_slip=slip.grad[:, None, :],
        h_gap=gap.hess, h_slip=slip.hess[:, None, :, :])


def node_to_segment(x_s, x_a, x_b, x_s0, x_a0, x_b0, tangent0=None) -> LocalKinematics:
    """Kinematics of slave nodes against straight master segments.

    Parameters
    ----------
    x_s, x_a, x_b : ndarray, shape (m, 2)
        Current coordinates of slave node and segment ends.
    x_s0, x_a0, x_b0 : ndarray, shape (m, 2)
        The same nodes at the start of the step.
    tangent0 : ndarray, shape (m, 1, 2), optional
        Slip direction (start-of-step master tangent); the current tangent
        if omitted.

    Returns
    -------
    LocalKinematics
        Local variables ordered ``(x_s, y_s, x_a, y_a, x_b, y_b)``, ``k = 6``.
    """
    v = Jet.variables(np.hstack([x_s, x_a, x_b]))
    s, a, b = v[0:2], v[2:4], v[4:6]
    t = [b[0] - a[0], b[1] - a[1]]
    length = dot(t, t).sqrt()
    tau = [t[0] / length, t[1] / length]
    n = [tau[1], -tau[0]]
    d = [s[0] - a[0], s[1] - a[1]]
    xi = dot(d, t) / (length * length)
    gap = dot(n, d)
    rel = [(s[i] - x_s0[:, i]) - (1.0 - xi) * (a[i] - x_a0[:, i]) - xi * (b[i] - x_b0[:, i])
           for i in range(2)]
    slip = dot(tau if tangent0 is None else [tangent0[:, 0, 0], tangent0[:, 0, 1]], rel)
    return _pack(gap, slip, n, tau)


def node_to_line(x_s, x_s0, point, normal, point0) -> LocalKinematics:
    """Kinematics against a rigid line through ``point`` with unit ``normal``.

    ``normal`` points towards the slave body; ``point0`` is the line's point at
    the start of the step (the line may translate).  ``k = 2``.
    """
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    tau = np.array([-nrm[1], nrm[0]])
    s = Jet.variables(np.asarray(x_s, float))
    gap = s[0] * nrm[0] + s[1] * nrm[1] - float(nrm @ point)
    shift = np.asarray(point, float) - np.asarray(point0, float)
    slip = tau[0] * (s[0] - x_s0[:, 0]) + tau[1] * (s[1] - x_s0[:, 1]) - float(tau @ shift)
    m = x_s.shape[0]
    return _pack(gap, slip, [np.full(m, nrm[0]), np.full(m, nrm[1])],
                 [np.full(m, tau[0]), np.full(m, tau[1])])


def node_to_circle(x_s, x_s0, center, radius, center0, inside=False) -> LocalKinematics:
    """Kinematics against a rigid circle (the body outside it, or inside if ``inside``).

    ``g = |x_s - c| - R`` (outside) or ``R - |x_s - c|`` (inside); the normal is
    radial, pointing towards the slave.  ``k = 2``.
    """
    s = Jet.variables(np.asarray(x_s, float))
    c = np.asarray(center, float)
    d = [s[0] - c[0], s[1] - c[1]]
    dist = dot(d, d).sqrt()
    sign = -1.0 if inside else 1.0
    n = [sign * d[0] / dist, sign * d[1] / dist]
    tau = [-1.0 * n[1], n[0]]
    gap = sign * (dist - radius)
    shift = c - np.asarray(center0, float)
    slip = tau[0] * (s[0] - x_s0[:, 0] - shift[0]) + tau[1] * (s[1] - x_s0[:, 1] - shift[1])
    return _pack(gap, slip, n, tau)
