"""Friction: the friction laws, the Coulomb cone, the Alart–Curnier contact residual and the smooth IPC model."""

from .base import LAWS, RESTUCK, SLIDING, STUCK, FrictionLaw, FrictionResponse
from .coulomb import Coulomb
from .ipc import SmoothIPC
from .static_kinetic import StaticKinetic
from .velocity import VelocityDependent
from .cone import (OPEN, SLIP, STICK, ConeProjection, ContactResidual, alart_curnier,
                   coulomb_return_map)
from .smooth import (smooth_friction_f0, smooth_friction_f1, smooth_friction_f1_over_x,
                     smooth_friction_f2, smooth_friction_f2_x_minus_f1_over_x3, smooth_mu,
                     smooth_mu_derivative, smooth_mu_f0, smooth_mu_f1, smooth_mu_f1_over_x,
                     smooth_mu_f2, smooth_mu_f2_x_minus_mu_f1_over_x3)

__all__ = ["LAWS", "RESTUCK", "SLIDING", "STUCK", "FrictionLaw", "FrictionResponse", "Coulomb",
           "SmoothIPC", "StaticKinetic", "VelocityDependent",
           "OPEN", "SLIP", "STICK", "ConeProjection", "ContactResidual", "alart_curnier",
           "coulomb_return_map", "smooth_friction_f0", "smooth_friction_f1",
           "smooth_friction_f1_over_x", "smooth_friction_f2",
           "smooth_friction_f2_x_minus_f1_over_x3", "smooth_mu", "smooth_mu_derivative",
           "smooth_mu_f0", "smooth_mu_f1", "smooth_mu_f1_over_x", "smooth_mu_f2",
           "smooth_mu_f2_x_minus_mu_f1_over_x3"]
