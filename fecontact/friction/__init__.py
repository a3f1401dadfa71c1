"""Friction: the friction-law contract and its laws, the Coulomb cone, the Alart–Curnier residual.

Laws (:class:`FrictionLaw` subclasses): :class:`Coulomb`, :class:`StaticKinetic`,
:class:`VelocityDependent`, :class:`SmoothIPC` (with the smooth functions of
:mod:`fecontact.friction.smooth`).  The residual pipeline is
:func:`augmented_normal` -> trial -> ``law.return_map`` -> :func:`alart_curnier`;
the contact status of a node is a :class:`Status`.
"""

from .base import (LAWS, RESTUCK, SLIDING, STUCK, FrictionLaw, FrictionResponse, FrictionStart,
                   FrictionState, TwoCoefficientLaw, cone_response)
from .batch import FrictionBatch
from .cone import ConeProjection, coulomb_return_map
from .coulomb import Coulomb, Frictionless
from .ipc import SmoothIPC
from .residual import (AugmentedNormal, ContactResidual, alart_curnier, augmented_normal,
                       coulomb_residual)
from .smooth import (smooth_friction_f0, smooth_friction_f1, smooth_friction_f1_over_x,
                     smooth_friction_f2, smooth_friction_f2_x_minus_f1_over_x3, smooth_mu,
                     smooth_mu_derivative, smooth_mu_f0, smooth_mu_f1, smooth_mu_f1_over_x,
                     smooth_mu_f2, smooth_mu_f2_x_minus_mu_f1_over_x3)
from .static_kinetic import StaticKinetic
from .status import Status, StatusCounts, closed, status_counts
from .velocity import VelocityDependent

#: Contact status values (aliases of :class:`Status` members).
OPEN, STICK, SLIP = Status.OPEN, Status.STICK, Status.SLIP

__all__ = ["LAWS", "RESTUCK", "SLIDING", "STUCK", "FrictionLaw", "FrictionResponse",
           "FrictionStart", "FrictionState", "TwoCoefficientLaw", "cone_response", "FrictionBatch", "ConeProjection",
           "coulomb_return_map", "Coulomb", "Frictionless", "SmoothIPC", "StaticKinetic", "VelocityDependent",
           "AugmentedNormal", "ContactResidual", "alart_curnier", "augmented_normal",
           "coulomb_residual", "Status", "StatusCounts", "closed", "status_counts",
           "OPEN", "STICK", "SLIP",
           "smooth_friction_f0", "smooth_friction_f1", "smooth_friction_f1_over_x",
           "smooth_friction_f2", "smooth_friction_f2_x_minus_f1_over_x3", "smooth_mu",
           "smooth_mu_derivative", "smooth_mu_f0", "smooth_mu_f1", "smooth_mu_f1_over_x",
           "smooth_mu_f2", "smooth_mu_f2_x_minus_mu_f1_over_x3"]
