"""Rigid obstacles a slave surface can touch: lines and circles (2D), planes and spheres (3D).

An obstacle is a contact master without degrees of freedom.  It translates
rigidly by ``displacement * amplitude(t)``, so its position at the start
and end of an increment gives the slip of a slave node relative to it.
Each obstacle class measures the gap and slip of slave nodes against
itself (:meth:`Obstacle.kinematics`) and the distance of points to itself
(:meth:`Obstacle.gap`, the independent check's), and declares its
case-file name, its dimension and the keys of its case-file table
(:class:`TableKey`).  Subclassing :class:`RigidObstacle` with a ``kind``
registers the class in :data:`OBSTACLES`; the case-file schema, the case
builder, the model's checks and the residual check derive from there, so a
new obstacle is one class here.  The contract and the registry are in
:mod:`fecontact.contact.rigid_obstacle`; their names are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from ..bodies.conditions import Amplitude
from ..fields import Positive
from .kinematics2d import LocalKinematics, node_to_circle, node_to_line
from .kinematics3d import node_to_plane, node_to_sphere
from .rigid_obstacle import (COUNTERPART, OBSTACLES, Coordinates, Obstacle, RigidObstacle, TableKey,
                             unregister)

__all__ = ["Obstacle", "RigidObstacle", "TableKey", "Coordinates", "RigidLine", "RigidCircle",
           "RigidPlane", "RigidSphere", "OBSTACLES", "COUNTERPART", "unregister"]


def _origin(dim: int) -> list:
    return [0.0] * dim


def _up(dim: int) -> list:
    return [0.0] * (dim - 1) + [1.0]


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


def _keep_given(obstacle) -> None:
    """Keep the values the obstacle is made from (``__given__``): made again with other
    parameter values (:func:`fecontact.sensitivity.parameters.substitute`), it starts from them."""
    object.__setattr__(obstacle, "__given__", {f.name: getattr(obstacle, f.name)
                                               for f in fields(obstacle) if f.init})


def _moving(obstacle) -> None:
    """Set the displacement (default zero) of an obstacle under construction."""
    value = np.zeros(obstacle.dim) if obstacle.displacement is None else obstacle.displacement
    object.__setattr__(obstacle, "displacement", _vector(obstacle, "displacement", value))


def _amplitude(obstacle, t: float) -> float:
    """``amplitude(t)``; without an amplitude the static ramp ``min(max(t, 0), 1)``."""
    return Amplitude.ramp()(t) if obstacle.amplitude is None else obstacle.amplitude(t)


@dataclass(frozen=True)
class _Flat(RigidObstacle):
    """The fields, checks and motion shared by :class:`RigidLine` and :class:`RigidPlane`."""

    table_keys: ClassVar[tuple] = (
        TableKey("point", Coordinates, "a point on it (default origin)", _origin),
        TableKey("normal", Coordinates, "normal towards the bodies (default +y / +z)", _up,
                 nonzero=True),
    )

    point: np.ndarray
    normal: np.ndarray
    displacement: np.ndarray | None = None
    amplitude: Amplitude | None = None

    def __post_init__(self):
        _keep_given(self)
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

    def gap(self, x: np.ndarray, t: float) -> np.ndarray:
        """:meth:`Obstacle.gap`: ``n . (x - p(t))``, shape (m,)."""
        return (x - self.position(t)) @ self.normal


@dataclass(frozen=True)
class _Round(RigidObstacle):
    """The fields, checks and motion shared by :class:`RigidCircle` and :class:`RigidSphere`."""

    table_keys: ClassVar[tuple] = (
        TableKey("center", Coordinates, "centre"),
        TableKey("radius", Positive, "radius"),
        TableKey("inside", bool, "bodies inside it", False),
    )

    center: np.ndarray
    radius: float
    inside: bool = False
    displacement: np.ndarray | None = None
    amplitude: Amplitude | None = None

    def __post_init__(self):
        _keep_given(self)
        object.__setattr__(self, "center", _vector(self, "center", self.center))
        if not (np.isfinite(self.radius) and self.radius > 0):
            raise ValueError(f"a rigid {self.kind}'s radius must be > 0, got {self.radius!r}")
        object.__setattr__(self, "radius", float(self.radius))
        object.__setattr__(self, "inside", bool(self.inside))
        _moving(self)

    def position(self, t: float) -> np.ndarray:
        """Current centre, ``center + displacement * amplitude(t)``, shape (dim,)."""
        return self.center + self.displacement * _amplitude(self, t)

    def gap(self, x: np.ndarray, t: float) -> np.ndarray:
        """:meth:`Obstacle.gap`: ``|x - c(t)| - R``, or ``R - |x - c(t)|`` inside, shape (m,)."""
        dist = np.linalg.norm(x - self.position(t), axis=1)
        return self.radius - dist if self.inside else dist - self.radius


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

    Examples
    --------
    The floor ``y = 0``: the signed distance of points above and below it,
    and the same line rising by 0.1 over the load ramp, half-way:

    >>> import numpy as np
    >>> import fecontact as fc
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 2.0))
    >>> floor.normal.tolist(), floor.gap(np.array([[0.5, 0.1], [0.2, -0.05]]), 0.0).tolist()
    ([0.0, 1.0], [0.1, -0.05])
    >>> lift = fc.RigidLine((0.0, 0.0), (0.0, 1.0), displacement=(0.0, 0.1), amplitude=fc.Amplitude.ramp())
    >>> lift.position(0.5).tolist()
    [0.0, 0.05]
    """

    #: the obstacle's name in case files (``obstacle = "line"``), its dimension and its
    #: counterpart in the other dimension
    kind: ClassVar[str] = "line"
    dim: ClassVar[int] = 2
    counterpart: ClassVar[str | None] = "plane"

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics2d.node_to_line`.

        The tangent is the normal turned by +90 degrees: ``tangent0`` and
        ``reference`` are not needed.
        """
        return node_to_line(xs, xs0, self.position(t), self.normal, self.position(t0))


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

    Examples
    --------
    A cylindrical punch of radius 0.5 pressed 0.05 into the top of a block
    clamped at the bottom:

    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("bottom")
    >>> punch = fc.RigidCircle(center=(0.5, 1.5), radius=0.5, displacement=(0.0, -0.05))
    >>> result = fc.Model([block], [fc.Contact(block.surface("top"), punch)]).solve(steps=2)
    >>> result.converged, fc.status_counts(result.contact().status).open
    (True, 4)
    """

    #: the obstacle's name in case files (``obstacle = "circle"``), its dimension and its
    #: counterpart in the other dimension
    kind: ClassVar[str] = "circle"
    dim: ClassVar[int] = 2
    counterpart: ClassVar[str | None] = "sphere"

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics2d.node_to_circle`.

        The tangent is the radial normal turned by +90 degrees: ``tangent0``
        and ``reference`` are not needed.
        """
        return node_to_circle(xs, xs0, self.position(t), self.radius, self.position(t0),
                              self.inside)


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

    Examples
    --------
    A unit cube of 8 hexahedra pushed 0.01 onto the plane ``z = 0``:

    >>> import skfem
    >>> import fecontact as fc
    >>> cube = fc.Body("cube", skfem.MeshHex().refined(1).with_defaults(), "Q1",
    ...                fc.LinearElastic(E=1e3, nu=0.3)).fix("back", x=0.0, y=0.0, z=-0.01)
    >>> floor = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
    >>> result = fc.Model([cube], [fc.Contact(cube.surface("front"), floor)]).solve()
    >>> result.converged, result.pressure.shape, bool(result.pressure.min() > 0)
    (True, (9,), True)
    """

    #: the obstacle's name in case files (``obstacle = "plane"``), its dimension and its
    #: counterpart in the other dimension
    kind: ClassVar[str] = "plane"
    dim: ClassVar[int] = 3
    counterpart: ClassVar[str | None] = "line"

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics3d.node_to_plane`."""
        return node_to_plane(xs, xs0, self.position(t), self.normal, self.position(t0), tangent0,
                             reference)


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

    Examples
    --------
    >>> import numpy as np
    >>> import fecontact as fc
    >>> ball = fc.RigidSphere(center=(0.0, 0.0, 2.0), radius=1.0)
    >>> ball.gap(np.array([[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]), 0.0).tolist()   # distances to its surface
    [0.5, 1.0]
    >>> cavity = fc.RigidSphere(center=(0.0, 0.0, 0.0), radius=1.0, inside=True)
    >>> np.round(cavity.gap(np.array([[0.0, 0.0, 0.9]]), 0.0), 6).tolist()
    [0.1]
    """

    #: the obstacle's name in case files (``obstacle = "sphere"``), its dimension and its
    #: counterpart in the other dimension
    kind: ClassVar[str] = "sphere"
    dim: ClassVar[int] = 3
    counterpart: ClassVar[str | None] = "circle"

    def kinematics(self, xs, xs0, t, t0, tangent0=None, reference=None) -> LocalKinematics:
        """:meth:`Obstacle.kinematics` by :func:`fecontact.contact.kinematics3d.node_to_sphere`."""
        return node_to_sphere(xs, xs0, self.position(t), self.radius, self.position(t0),
                              self.inside, tangent0, reference)
