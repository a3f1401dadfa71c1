"""Rigid obstacles a slave surface can touch: lines and circles (2D), planes and spheres (3D).

An obstacle is a contact master without degrees of freedom.  It translates
rigidly by ``displacement * amplitude(t)``, so its position at the start
and end of an increment gives the slip of a slave node relative to it.  The
gap and slip against it are
:func:`fecontact.contact.kinematics2d.node_to_line`,
:func:`fecontact.contact.kinematics2d.node_to_circle`,
:func:`fecontact.contact.kinematics3d.node_to_plane` and
:func:`fecontact.contact.kinematics3d.node_to_sphere`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..bodies.system import Amplitude


@dataclass(frozen=True)
class RigidLine:
    """Rigid line through ``point`` with unit ``normal`` towards the slave body.

    It translates by ``displacement * amplitude(t)``.
    """

    #: the obstacle's name in case files (``obstacle = "line"``) and its dimension
    kind: ClassVar[str] = "line"
    dim: ClassVar[int] = 2

    point: np.ndarray
    normal: np.ndarray
    displacement: np.ndarray
    amplitude: Amplitude

    def position(self, t: float) -> np.ndarray:
        """Current point of the line, ``point + displacement * amplitude(t)``, shape (dim,)."""
        return np.asarray(self.point, float) + np.asarray(self.displacement, float) * self.amplitude(t)


@dataclass(frozen=True)
class RigidCircle:
    """Rigid circle (disc, or hole if ``inside``) translating by ``displacement * amplitude(t)``."""

    #: the obstacle's name in case files (``obstacle = "circle"``) and its dimension
    kind: ClassVar[str] = "circle"
    dim: ClassVar[int] = 2

    center: np.ndarray
    radius: float
    inside: bool
    displacement: np.ndarray
    amplitude: Amplitude

    def position(self, t: float) -> np.ndarray:
        """Current centre, ``center + displacement * amplitude(t)``, shape (dim,)."""
        return np.asarray(self.center, float) + np.asarray(self.displacement, float) * self.amplitude(t)


@dataclass(frozen=True)
class RigidPlane(RigidLine):
    """Rigid plane (3D) through ``point`` with unit ``normal`` towards the slave body."""

    #: the obstacle's name in case files (``obstacle = "plane"``) and its dimension
    kind: ClassVar[str] = "plane"
    dim: ClassVar[int] = 3


@dataclass(frozen=True)
class RigidSphere(RigidCircle):
    """Rigid sphere (ball, or cavity if ``inside``) translating by ``displacement * amplitude(t)``."""

    #: the obstacle's name in case files (``obstacle = "sphere"``) and its dimension
    kind: ClassVar[str] = "sphere"
    dim: ClassVar[int] = 3


#: Obstacle classes by their case-file name.
OBSTACLES = {cls.kind: cls for cls in (RigidLine, RigidCircle, RigidPlane, RigidSphere)}
