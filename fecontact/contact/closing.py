r"""Where a node that closes inside an increment first touches its master.

A slave node open at the start of an increment that ends closed did not slip
over the whole increment: it moved freely until it touched, and only its
motion after the first contact is slip.  Measuring its slip from its
start-of-increment projection counts the free motion as slip too, which puts
too much shear on the nodes that close in each increment (a saw-tooth in the
stick zone whose period is the increment).  The field's remedy is to measure
the slip from the point of first contact.

Within the increment ``t^0 -> t`` the node's approach is predicted from the
increment that ended at ``t^0`` (the rate of the gap and of the relative
tangential motion, per unit of ``t``): with ``g^0 > 0`` the gap at the start
and ``\dot g < 0`` its rate, the node touches at the fraction

.. math:: \theta = \min\Big(1, \frac{g^0}{-\dot g\,(t - t^0)}\Big)

of the increment, after the relative tangential motion
``theta (t - t^0) v_t``, which is therefore taken off its slip:

.. math:: \Delta s_a = \Delta s_a^{\text{start}} - \theta\,(t - t^0)\,\tau^0_a\cdot v_t .

The offset is fixed within the increment (it depends on start data only), so
the slip's derivatives are unchanged.  Nodes closed (or touching) at the
start, nodes not approaching, and every node of the first increment (no rate
yet) keep ``theta = 0``: their slip is measured from the start projection.
As the increments shrink the offset vanishes with them; for loading at a
steady rate it removes the first-order error of the start-projection rule.
"""

from __future__ import annotations

import numpy as np

__all__ = ["approach_rate", "slip_before_contact"]


def approach_rate(gap_change: np.ndarray, motion: np.ndarray, dt: float) -> np.ndarray:
    """Rate of approach of each node over an increment, shape (m, 1 + dim).

    Parameters
    ----------
    gap_change : ndarray, shape (m,)
        ``g - g^0`` over the increment.
    motion : ndarray, shape (m, dim)
        Relative tangential motion vector over the increment (slip increment
        components times their tangent vectors), for open nodes as well.
    dt : float
        Length ``t - t^0`` of the increment (load level or time).

    Returns
    -------
    ndarray, shape (m, 1 + dim)
        ``[g_dot, v_t]`` per unit of ``t``; zeros when ``dt <= 0``.
    """
    rate = np.column_stack([gap_change, motion])
    if not dt > 0.0:
        return np.zeros_like(rate)
    return np.where(np.isfinite(rate), rate / dt, 0.0)


def slip_before_contact(gap: np.ndarray, is_open: np.ndarray, rate: np.ndarray | None,
                        tangent: np.ndarray, dt: float) -> np.ndarray:
    r"""Slip components to take off a closing node's slip, shape (m, dim-1).

    Parameters
    ----------
    gap : ndarray, shape (m,)
        Gap ``g^0`` at the start of the increment.
    is_open : ndarray of bool, shape (m,)
        Nodes open (not touching) at the start.
    rate : ndarray, shape (m, 1 + dim), or None
        :func:`approach_rate` of the previous increment (None: no history).
    tangent : ndarray, shape (m, dim-1, dim)
        Start-of-increment tangent basis ``tau^0`` the slip components refer to.
    dt : float
        Length of this increment.

    Returns
    -------
    ndarray, shape (m, dim-1)
        ``theta dt tau^0_a . v_t`` (zero where ``theta = 0``).
    """
    m, q = tangent.shape[0], tangent.shape[1]
    if rate is None or not dt > 0.0 or rate.shape[0] != m:
        return np.zeros((m, q))
    closing = -rate[:, 0] * dt
    approaching = is_open & (closing > 0.0) & np.isfinite(gap) & (gap > 0.0)
    theta = np.zeros(m)
    theta[approaching] = np.minimum(1.0, gap[approaching] / closing[approaching])
    motion = np.einsum("mqd,md->mq", tangent, rate[:, 1:]) * dt
    return theta[:, None] * motion
