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


def _vector(obstacle, key: str, value) -> np.ndarray:
    """``value`` as ``dim`` finite floats, else a ValueError naming the obstacle and the key."""
    try:
        vec = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        vec = np.zeros(0)
    if vec.shape != (obstacle.dim,) or not np.all(np.isfinite(vec)):
        raise ValueError(f"a rigid {obstacle.kind}'s {key} needs {obstacle.dim} finite coordinates, "
                         f"got {value!r}")
    return vec


def _moving(obstacle) -> None:
    """Set the displacement (default zero) of an obstacle under construction."""
    value = np.zeros(obstacle.dim) if obstacle.displacement is None else obstacle.displacement
    object.__setattr__(obstacle, "displacement", _vector(obstacle, "displacement", value))


def _amplitude(obstacle, t: float) -> float:
    """``amplitude(t)``; without an amplitude the static ramp ``min(max(t, 0), 1)``."""
    return Amplitude.ramp()(t) if obstacle.amplitude is None else obstacle.amplitude(t)


@dataclass(frozen=True)
class RigidLine:
    """Rigid line through ``point`` with unit ``normal`` towards the slave body.

    It translates by ``displacement * amplitude(t)``.

    Parameters
    ----------
    point : sequence of float, shape (dim,)
    normal : sequence of float, shape (dim,)
        Normalised on construction.
    displacement : sequence of float, shape (dim,), optional
        Default zero (a fixed obstacle).
    amplitude : Amplitude, optional
        Default: the analysis' (a ramp over ``[0, 1]`` in statics,
        constant in dynamics; the model sets it).
    """

    #: the obstacle's name in case files (``obstacle = "line"``) and its dimension
    kind: ClassVar[str] = "line"
    dim: ClassVar[int] = 2

    point: np.ndarray
    normal: np.ndarray
    displacement: np.ndarray | None = None
    amplitude: Amplitude | None = None

    def __post_init__(self):
        point, normal = _vector(self, "point", self.point), _vector(self, "normal", self.normal)
        length = float(np.linalg.norm(normal))
        if not length > 0:
            raise ValueError(f"a rigid {self.kind}'s normal must be non-zero")
        object.__setattr__(self, "point", point)
        object.__setattr__(self, "normal", normal / length)
        _moving(self)

    def position(self, t: float) -> np.ndarray:
        """Current point of the line, ``point + displacement * amplitude(t)``, shape (dim,)."""
        return self.point + self.displacement * _amplitude(self, t)


@dataclass(frozen=True)
class RigidCircle:
    """Rigid circle (disc, or hole if ``inside``) translating by ``displacement * amplitude(t)``.

    Parameters
    ----------
    center : sequence of float, shape (dim,)
    radius : float
        ``> 0``.
    inside : bool
        The slave body lies inside the circle (a hole) instead of outside.
    displacement, amplitude
        As for :class:`RigidLine`.
    """

    #: the obstacle's name in case files (``obstacle = "circle"``) and its dimension
    kind: ClassVar[str] = "circle"
    dim: ClassVar[int] = 2

    center: np.ndarray
    radius: float
    inside: bool = False
    displacement: np.ndarray | None = None
    amplitude: Amplitude | None = None

    def __post_init__(self):
        object.__setattr__(self, "center", _vector(self, "center", self.center))
        if not (np.isfinite(self.radius) and self.radius > 0):
            raise ValueError(f"a rigid {self.kind}'s radius must be > 0, got {self.radius!r}")
        object.__setattr__(self, "radius", float(self.radius))
        object.__setattr__(self, "inside", bool(self.inside))
        _moving(self)

    def position(self, t: float) -> np.ndarray:
        """Current centre, ``center + displacement * amplitude(t)``, shape (dim,)."""
        return self.center + self.displacement * _amplitude(self, t)


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


#: The obstacle of the same shape in the other dimension (for "use 'plane'" hints).
COUNTERPART = {"line": "plane", "circle": "sphere", "plane": "line", "sphere": "circle"}

#: Obstacle classes by their case-file name.
OBSTACLES = {cls.kind: cls for cls in (RigidLine, RigidCircle, RigidPlane, RigidSphere)}
