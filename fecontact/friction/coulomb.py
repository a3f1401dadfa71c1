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
    """
    return Coulomb(0.0)


register(CaseLaw("frictionless", Frictionless, summary="Frictionless contact (Coulomb friction with mu = 0)."))
