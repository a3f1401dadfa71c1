"""The rigid-obstacle contract and registry: what an obstacle measures and how case files name it.

An obstacle is a contact master without degrees of freedom.  It measures the
gap and slip of slave nodes against itself (:meth:`Obstacle.kinematics`)
and the distance of points to itself (:meth:`Obstacle.gap`, the independent
check's), and declares its case-file name, its dimension and the keys of its
case-file table (:class:`TableKey`).  Subclassing :class:`RigidObstacle`
with a ``kind`` registers the class in :data:`OBSTACLES`; the case-file
schema, the case builder, the model's checks and the residual check derive
from there.  The obstacles themselves are in :mod:`fecontact.contact.obstacles`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Protocol, runtime_checkable

import numpy as np
from msgspec import Meta

from ..fields import Number
from .kinematics2d import LocalKinematics

__all__ = ["Obstacle", "RigidObstacle", "TableKey", "Coordinates", "OBSTACLES", "COUNTERPART",
           "unregister"]

#: A point or direction in a case file: one number per dimension
Coordinates = Annotated[list[Number], Meta(min_length=2, max_length=3, description=(
    "a point or vector: one number per dimension"))]


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

    def gap(self, x: np.ndarray, t: float) -> np.ndarray:
        """Signed distance of points ``x`` (m, dim) to the obstacle at ``t``, shape (m,).

        Positive on the side of the slave body.  A closed form of its own,
        which :mod:`fecontact.run.verify` checks results with (independent
        of :meth:`kinematics`).
        """

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


@dataclass(frozen=True)
class TableKey:
    """One key of an obstacle's case-file table (``[contact.master]``), as its class declares it.

    Attributes
    ----------
    key : str
        The key in the table, and the constructor argument it fills.
    kind : type
        Its type in case files: :data:`Coordinates` (one number per
        dimension), a constrained type of :mod:`fecontact.fields`, or ``bool``.
    description : str
        What the key means, for the schema and the reference page.
    default : object or callable, optional
        The value when the key is absent, or ``default(dim)`` giving it;
        None: the key is required.
    nonzero : bool
        A vector that must not be zero (a normal).
    """

    key: str
    kind: object
    description: str
    default: object = None
    nonzero: bool = False

    def value(self, dim: int):
        """The default value for bodies of dimension ``dim``."""
        return self.default(dim) if callable(self.default) else self.default


class RigidObstacle:
    """Base of the rigid obstacles: a subclass that sets ``kind`` is registered in :data:`OBSTACLES`.

    A subclass is a frozen dataclass with the fields ``displacement`` and
    ``amplitude`` (its motion) besides those its :attr:`table_keys` declares, and
    the methods of :class:`Obstacle`.  Registering makes it usable from
    case files (``obstacle = "<kind>"``) and as the master of a
    :class:`fecontact.Contact`.

    Attributes
    ----------
    kind : str
        The obstacle's name in case files, its key in :data:`OBSTACLES`.
    dim : int
        The dimension of the bodies it can touch (2 or 3).
    counterpart : str or None
        The obstacle of the same shape in the other dimension, suggested
        when a case puts this one among bodies of the other dimension.
    table_keys : tuple of TableKey
        The keys of its case-file table besides ``obstacle``,
        ``displacement`` and ``amplitude``.
    """

    kind: ClassVar[str]
    dim: ClassVar[int]
    counterpart: ClassVar[str | None] = None
    table_keys: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "kind" in vars(cls):
            _register(cls)

    @classmethod
    def from_table(cls, table: Mapping):
        """The obstacle a case-file table describes.

        Parameters
        ----------
        table : Mapping
            The keys of :attr:`table_keys` (absent ones take their default),
            ``displacement`` and ``amplitude`` (an :class:`Amplitude`);
            other keys are ignored.

        Raises
        ------
        ValueError
            For a required key that is absent, or a value the class refuses.
        """
        values = {}
        for entry in cls.table_keys:
            if entry.key in table:
                values[entry.key] = table[entry.key]
            elif entry.default is None:
                raise ValueError(f"a rigid {cls.kind} needs '{entry.key}'")
            else:
                values[entry.key] = entry.value(cls.dim)
        return cls(**values, displacement=table.get("displacement"),
                   amplitude=table.get("amplitude"))

    @classmethod
    def mismatch(cls, dim: int) -> str:
        """The end of the message refusing it among ``dim``-dimensional bodies.

        ``"'line' is a 2D obstacle; the bodies are 3D (use 'plane')"``.
        """
        use = f" (use {cls.counterpart!r})" if cls.counterpart else ""
        return f"{cls.kind!r} is a {cls.dim}D obstacle; the bodies are {dim}D{use}"


#: Obstacle classes by their case-file name, in registration order.
OBSTACLES: dict = {}
#: The obstacle of the same shape in the other dimension (for "use 'plane'" hints).
COUNTERPART: dict = {}


def _register(cls) -> None:
    """Add an obstacle class (a class defined again under its name replaces itself)."""
    if not isinstance(cls.kind, str) or not cls.kind or cls.dim not in (2, 3):
        raise ValueError(f"{cls.__name__}: an obstacle needs a name (kind) and a dimension 2 or 3")
    old = OBSTACLES.get(cls.kind)
    if old is not None and old.__qualname__ != cls.__qualname__:
        raise ValueError(f"obstacle {cls.kind!r} is {old.__qualname__} already")
    OBSTACLES[cls.kind] = cls
    COUNTERPART.pop(cls.kind, None)
    if cls.counterpart:
        COUNTERPART[cls.kind] = cls.counterpart


def unregister(kind: str) -> None:
    """Remove an obstacle class from :data:`OBSTACLES` (one defined for a test)."""
    del OBSTACLES[kind]
    COUNTERPART.pop(kind, None)
