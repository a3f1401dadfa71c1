"""Coulomb friction: the trial traction projected onto the disk of radius ``mu lam_hat``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fields import NonNegative
from .base import FrictionLaw, FrictionResponse, FrictionStart, cone_response
from .registry import CaseLaw, friction_law, parameter, register


@friction_law("coulomb", example={"mu": 0.3})
@dataclass(frozen=True)
class Coulomb(FrictionLaw):
    """Coulomb friction: projection of the trial traction onto the disk of radius ``mu lam_hat``.

    ``Coulomb(0.0)`` is frictionless contact (case files: ``law = "frictionless"``).

    Parameters
    ----------
    mu : float
        Friction coefficient (static and kinetic alike), >= 0.

    Examples
    --------
    The return map of two nodes pressed with ``lam_hat = 1``: a trial
    traction inside the disk of radius 0.3 sticks, one outside is projected
    onto it and slips.

    >>> import numpy as np
    >>> import fecontact as fc
    >>> from fecontact.friction import FrictionStart
    >>> start = FrictionStart(state=np.zeros(2, dtype=int), normal=np.zeros(2))
    >>> trial, lam_hat, slip = np.array([[0.1], [0.5]]), np.ones(2), np.zeros((2, 1))
    >>> response = fc.Coulomb(0.3).return_map(trial, lam_hat, slip, 1.0, start)
    >>> response.traction.tolist(), response.sliding.tolist()
    ([[0.1], [0.3]], [False, True])
    """

    mu: NonNegative = parameter("friction coefficient")

    @property
    def static(self) -> float:
        """``mu``."""
        return self.mu

    @property
    def kinetic(self) -> float:
        """``mu``."""
        return self.mu

    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        """Projection onto the disk ``|F| <= mu lam_hat`` (radius 0 where ``start`` masks a node)."""
        return cone_response(trial, lam_hat, np.where(start.mask(), self.mu, 0.0))

    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """``mu`` at every node, shape (m,)."""
        return np.full(np.shape(sliding), self.mu)


def Frictionless() -> Coulomb:
    """Frictionless contact, ``Coulomb(0.0)`` (case files: ``law = "frictionless"``).

    Returns
    -------
    Coulomb

    Examples
    --------
    >>> import fecontact as fc
    >>> fc.Frictionless(), fc.Frictionless().has_friction
    (Coulomb(mu=0.0), False)
    """
    return Coulomb(0.0)


register(CaseLaw("frictionless", Frictionless, summary="Frictionless contact (Coulomb friction with mu = 0)."))
