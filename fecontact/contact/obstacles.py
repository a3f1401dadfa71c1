"""Rigid obstacles a slave surface can touch: lines and circles (2D), planes and spheres (3D).

An obstacle is a contact master without degrees of freedom.  It translates
rigidly by ``displacement * amplitude(t)``, so its position at the start
and end of an increment gives the slip of a slave node relative to it.
Each obstacle class measures the gap and slip of slave nodes against
itself (:meth:`Obstacle.kinematics`), so a contact pair needs nothing
else from it: a new obstacle is one class here, registered in
:data:`OBSTACLES` under its case-file name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from ..bodies.conditions import Amplitude
from .kinematics2d import LocalKinematics, node_to_circle, node_to_line
from .kinematics3d import node_to_plane, node_to_sphere


@runtime_checkable
class Obstacle(Protocol):
    """What a contact pair and a case file use of a rigid obstacle.

    Attributes
    ----------
    kind : str
        The obstacle's name in case files (``obstacle = "line"``), the key
        of :data:`OBSTACLES`.
    dim : int
        The dimension of the bodies it can touch.
    """

    kind: ClassVar[str]
    dim: ClassVar[int]

    def position(self, t: float) -> np.ndarray:
        """The obstacle's reference point at pseudo-time ``t``, shape (dim,)."""

    def kinematics(self, xs: np.ndarray, xs0: np.ndarray, t: float, t0: float,
                   tangent0: np.ndarray | None = None,
                   reference: np.ndarray | None = None) -> LocalKinematics:
        """Gap, slip and their derivatives of slave nodes against the obstacle.

        Parameters
        ----------
        xs, xs0 : ndarray, shape (m, dim)
            Current and start-of-increment coordinates of the slave nodes.
        t, t0 : float
            Current and start-of-increment pseudo-time (the obstacle moves).
        tangent0 : ndarray, shape (m, dim-1, dim), optional
            Start-of-increment tangent bases (3D slip directions).
        reference : ndarray, shape (m, 3), optional
            Reference directions of the 3D tangent bases
            (:func:`fecontact.contact.kinematics3d.tangent_basis`).

        Returns
        -------
        LocalKinematics
            With ``k = dim`` local variables per node: the node's own
            coordinates (an obstacle has no degrees of freedom).
        """


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
class _Flat:
    """The fields, checks and motion shared by :class:`RigidLine` and :class:`RigidPlane`."""

    kind: ClassVar[str]
    dim: ClassVar[int]

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
        """Current point, ``point + displacement * amplitude(t)``, shape (dim,)."""
        return self.point + self.displacement * _amplitude(self, t)


@dataclass(frozen=True)
class _Round:
    """The fields, checks and motion shared by :class:`RigidCircle` and :class:`RigidSphere`."""

    kind: ClassVar[str]
    dim: ClassVar[int]

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
class RigidLine(_Flat):
    """Rigid line (2D) through ``point`` with unit ``normal`` towards the slave body.

    It translates by ``displacement * amplitude(t)``.

    Parameters
    ----------
    point : sequence of float, shape (2,)
    normal : sequence of float, shape (2,)
        Normalised on construction.
    displacement : sequence of float, shape (2,), optional
        Default zero (a fixed obstacle).
    amplitude : Amplitude, optional
        Default: the analysis' (a ramp over ``[0, 1]`` in statics,
        constant in dynamics; the model sets it).
    """

    #: the obstacle's name in case files (``obstacle = "line"``) and its dimension
    kind: ClassVar[str] = "line"
    dim: ClassVar[int] = 2

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics2d.node_to_line`.

        The tangent is the normal turned by +90 degrees: ``tangent0`` and
        ``reference`` are not needed.
        """
        return node_to_line(xs, xs0, self.position(t), self.normal, self.position(t0))


@dataclass(frozen=True)
class RigidPlane(_Flat):
    """Rigid plane (3D) through ``point`` with unit ``normal`` towards the slave body.

    Parameters
    ----------
    point : sequence of float, shape (3,)
    normal : sequence of float, shape (3,)
        Normalised on construction.
    displacement, amplitude
        As for :class:`RigidLine`.
    """

    #: the obstacle's name in case files (``obstacle = "plane"``) and its dimension
    kind: ClassVar[str] = "plane"
    dim: ClassVar[int] = 3

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics3d.node_to_plane`."""
        return node_to_plane(xs, xs0, self.position(t), self.normal, self.position(t0), tangent0,
                             reference)


@dataclass(frozen=True)
class RigidCircle(_Round):
    """Rigid circle (disc, or hole if ``inside``) translating by ``displacement * amplitude(t)``.

    Parameters
    ----------
    center : sequence of float, shape (2,)
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

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics2d.node_to_circle`.

        The tangent is the radial normal turned by +90 degrees: ``tangent0``
        and ``reference`` are not needed.
        """
        return node_to_circle(xs, xs0, self.position(t), self.radius, self.position(t0),
                              self.inside)


@dataclass(frozen=True)
class RigidSphere(_Round):
    """Rigid sphere (ball, or cavity if ``inside``) translating by ``displacement * amplitude(t)``.

    Parameters
    ----------
    center : sequence of float, shape (3,)
    radius : float
        ``> 0``.
    inside : bool
        The slave body lies inside the sphere (a cavity) instead of outside.
    displacement, amplitude
        As for :class:`RigidLine`.
    """

    #: the obstacle's name in case files (``obstacle = "sphere"``) and its dimension
    kind: ClassVar[str] = "sphere"
    dim: ClassVar[int] = 3

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics3d.node_to_sphere`."""
        return node_to_sphere(xs, xs0, self.position(t), self.radius, self.position(t0),
                              self.inside, tangent0, reference)


#: The obstacle of the same shape in the other dimension (for "use 'plane'" hints).
COUNTERPART = {"line": "plane", "circle": "sphere", "plane": "line", "sphere": "circle"}

#: Obstacle classes by their case-file name.
OBSTACLES = {cls.kind: cls for cls in (RigidLine, RigidCircle, RigidPlane, RigidSphere)}
