"""Friction: the friction-law contract and its laws, the Coulomb cone, the Alart–Curnier residual.

Laws (:class:`FrictionLaw` subclasses): :class:`Coulomb`, :class:`StaticKinetic`,
:class:`VelocityDependent`, :class:`SmoothIPC` (with the smooth functions of
:mod:`fecontact.friction.smooth`).  Each law registers itself with its
case-file name and table keys (:mod:`fecontact.friction.registry`); every
module of this package is imported here, so a law in a new module is
registered, and its class exported from this package, without any other
edit.  The residual pipeline is :func:`augmented_normal` -> trial ->
``law.return_map`` -> :func:`alart_curnier`; the contact status of a node
is a :class:`Status`.
"""

from . import registry
from .base import (RESTUCK, SLIDING, STUCK, FrictionLaw, FrictionResponse, FrictionStart,
                   FrictionState, TwoCoefficientLaw, cone_response)
from .batch import FrictionBatch
from .cone import ConeProjection, coulomb_return_map
from .coulomb import Coulomb, Frictionless
from .ipc import SmoothIPC
from .registry import friction_law, parameter
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
           "OPEN", "STICK", "SLIP", "registry", "friction_law", "parameter",
           "smooth_friction_f0", "smooth_friction_f1", "smooth_friction_f1_over_x",
           "smooth_friction_f2", "smooth_friction_f2_x_minus_f1_over_x3", "smooth_mu",
           "smooth_mu_derivative", "smooth_mu_f0", "smooth_mu_f1", "smooth_mu_f1_over_x",
           "smooth_mu_f2", "smooth_mu_f2_x_minus_mu_f1_over_x3"]

registry.discover(__name__, __path__)
for _entry in registry.laws():          # laws of discovered modules: exported like the ones above
    if isinstance(_entry.build, type) and _entry.build.__name__ not in __all__:
        globals()[_entry.build.__name__] = _entry.build
        __all__.append(_entry.build.__name__)
del _entry

#: Names of the laws accepted in case files when the package was imported
#: (:func:`fecontact.friction.registry.names` gives the current ones).
LAWS = registry.names()
