"""Static/kinetic Coulomb friction with a stick-slip state machine (breakaway at ``mu_s``, sliding at ``mu_k``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fields import NonNegative
from .base import (RESTUCK, SLIDING, STUCK, FrictionResponse, FrictionStart, TwoCoefficientLaw,
                   cone_response)
from .registry import friction_law, parameter


@friction_law("static_kinetic", example={"mu_s": 0.5, "mu_k": 0.3})
@dataclass(frozen=True)
class StaticKinetic(TwoCoefficientLaw):
    r"""Static/kinetic Coulomb friction, ``mu_s >= mu_k``, with a stick–slip state machine.

    State per node at the start of an increment: ``STUCK`` (or never in
    contact), ``SLIDING`` or ``RESTUCK``.  The disk radius is ``mu_s lam_hat``
    for stuck and re-stuck nodes and ``mu_k lam_hat`` for sliding ones:

    * a stuck node stays stuck while ``|z| <= mu_s lam_hat``; when the
      converged increment has it beyond (breakaway), :meth:`revise` marks it
      sliding and the increment is solved again, so that in the increment of
      breakaway the traction is already ``mu_k lam_hat`` opposing the slip;
    * a sliding node whose trial traction falls inside the kinetic disk
      (the slip rate stopped or reversed) sticks: ``Delta s = 0`` and its
      traction is the trial, i.e. the current traction -- the elastic
      tangential state restarts from it.  It is ``RESTUCK`` for the next
      increment, with the static radius again.

    Parameters
    ----------
    mu_s : float
        Static (breakaway) coefficient, >= 0.
    mu_k : float
        Kinetic (sliding) coefficient, ``0 <= mu_k <= mu_s``.

    Examples
    --------
    >>> import numpy as np
    >>> import fecontact as fc
    >>> law = fc.StaticKinetic(mu_s=0.5, mu_k=0.3)
    >>> law.coefficient(sliding=np.array([False, True]), speed=np.zeros(2)).tolist()
    [0.5, 0.3]
    """

    mu_s: NonNegative = parameter("static (breakaway) coefficient", fallback="mu")
    mu_k: NonNegative = parameter("kinetic (sliding) coefficient, <= mu_s", fallback="mu")

    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        """Projection onto the disk of radius ``mu_k lam_hat`` (sliding nodes) or ``mu_s lam_hat``."""
        mu = np.where(start.state == SLIDING, self.mu_k, self.mu_s)
        return cone_response(trial, lam_hat, np.where(start.mask(), mu, 0.0))

    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """``mu_k`` at sliding nodes, ``mu_s`` at stuck ones, shape (m,)."""
        return np.where(sliding, self.mu_k, self.mu_s)

    def next_state(self, state, response, closed):
        """``SLIDING`` where a closed node slides, ``RESTUCK`` where a sliding one sticks, else ``STUCK``."""
        sticks = closed & ~response.sliding
        return np.where(closed & response.sliding, SLIDING,
                        np.where(sticks & (state == SLIDING), RESTUCK, STUCK))

    def revise(self, state, response, closed):
        """Start state with the nodes that broke away in this increment marked sliding, or None."""
        broke = closed & response.sliding & (state != SLIDING) & (self.mu_k != self.mu_s)
        if not np.any(broke):
            return None
        return np.where(broke, SLIDING, state)
