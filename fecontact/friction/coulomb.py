"""Coulomb friction: the trial traction projected onto the disk of radius ``mu lam_hat``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import FrictionLaw, FrictionResponse, cone_response


@dataclass(frozen=True)
class Coulomb(FrictionLaw):
    """Coulomb friction: projection of the trial traction onto the disk of radius ``mu lam_hat``."""

    mu: float
    name = "coulomb"

    @property
    def kinetic(self) -> float:
        return self.mu

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        mu = np.where(engaged, self.mu, 0.0)
        return cone_response(trial, normal, mu)
