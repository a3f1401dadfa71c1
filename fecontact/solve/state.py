"""The committed contact state: :class:`StepState` at the end of an accepted step and :class:`IncrementStart` of its increment."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class IncrementStart:
    """Start of an accepted increment, kept with its end state.

    Attributes
    ----------
    t : float
    u : ndarray, shape (n,)
    normal_pressure : ndarray, shape (m,)
        ``lam_n`` at the start (lagged friction laws use it).
    status, gap, friction : ndarray, shape (m,)
        Contact status, gap and friction-law state at the start.
    approach : ndarray, shape (m, 1 + dim), or None
        The start state's ``approach`` (where a closing node first touches,
        :mod:`fecontact.contact.closing`).
    """

    t: float
    u: np.ndarray
    normal_pressure: np.ndarray
    status: np.ndarray
    gap: np.ndarray
    friction: np.ndarray
    approach: np.ndarray | None = None


@dataclass(frozen=True)
class StepState:
    """Committed state at the end of an accepted step.

    Attributes
    ----------
    t : float
    u : ndarray, shape (n,)
        Full displacement.
    multiplier : ndarray, shape (m, dim)
        ``(lam_n, lam_t)`` per slave node, ``lam_t`` in components along
        ``multiplier_basis``.
    slip : ndarray, shape (m, dim)
        Accumulated slip vector (sum of ``Delta s * tau`` over accepted steps).
    status : ndarray of int, shape (m,)
    gap : ndarray, shape (m,)
    normal : ndarray, shape (m, dim)
        Master normal at each node's projection.
    tangent : ndarray, shape (m, dim-1, dim)
        Tangent basis there (the slip directions of the next increment).
    facet : ndarray of int, shape (m,)
        Master segment or facet each node projects on (``-1`` for obstacles).
    friction : ndarray of int, shape (m,)
        State of each node's friction law for the next increment
        (:data:`fecontact.friction.base.STUCK`, ``SLIDING``, ``RESTUCK``).
    multiplier_basis : ndarray, shape (m, dim-1, dim)
        Basis of the ``lam_t`` components: the slip directions of the
        increment that produced them (its start-of-increment ``tangent``).
        Against a rigid obstacle or a master that does not stretch, the slip
        derivative with respect to the slave node is along it, and
        ``lam_n n + lam_t . multiplier_basis`` is the force per area the
        discrete equations put on the slave node.
    start : IncrementStart or None
        The start of the increment that produced this state (None for the
        initial state): what is needed to evaluate that increment's
        equations again (:mod:`fecontact.run.verify`).
    approach : ndarray, shape (m, 1 + dim), or None
        Rate of the gap and of the relative tangential motion over the
        increment that produced this state, per unit of ``t``
        (:func:`fecontact.contact.closing.approach_rate`); the next increment
        predicts from it where a node open now first touches.  None for the
        initial state.
    """

    t: float
    u: np.ndarray
    multiplier: np.ndarray
    slip: np.ndarray
    status: np.ndarray
    gap: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    facet: np.ndarray
    friction: np.ndarray
    multiplier_basis: np.ndarray
    start: "IncrementStart | None" = None
    approach: np.ndarray | None = None

    def increment_start(self) -> "StepState":
        """The start-of-increment state to evaluate this state's increment with.

        Its ``u`` and ``t`` are those of the increment's start, its ``tangent``
        the slip directions of the increment (``multiplier_basis``), its
        friction, status, gap and normal pressure those the increment started
        from; ``facet`` is this state's (the converged projection).
        """
        s = self.start
        if s is None:
            raise ValueError("the initial state has no increment")
        multiplier = np.zeros_like(self.multiplier)
        multiplier[:, 0] = s.normal_pressure
        return StepState(t=s.t, u=s.u, multiplier=multiplier, slip=self.slip, status=s.status,
                         gap=s.gap, normal=self.normal, tangent=self.multiplier_basis,
                         facet=self.facet, friction=s.friction,
                         multiplier_basis=self.multiplier_basis, approach=s.approach)

    def traction(self) -> np.ndarray:
        """Traction on each slave node from the master, ``lam_n n + sum lam_t,a tau_a``, shape (m, dim)."""
        return (self.multiplier[:, :1] * self.normal
                + np.einsum("mq,mqd->md", self.multiplier[:, 1:], self.multiplier_basis))
