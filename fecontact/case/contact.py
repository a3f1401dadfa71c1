"""Contact pairs of a case file: slave surfaces, masters (bodies or rigid obstacles), formulations and friction laws.

The helpers :func:`fecontact.case.build.build_model` calls for each entry
of ``[[contact]]``: :func:`surface_of` (the slave, or a body master),
:func:`master_of` (a body surface or a registered rigid obstacle,
:mod:`fecontact.contact.obstacles`) and :func:`friction_law` (the
``friction`` table); the pair itself
is a :class:`fecontact.model.Contact`, which checks the formulation.  Each turns a bad
entry into a :class:`fecontact.case.schema.CaseError` naming the file and
the key; :func:`interference_of` reads a pair's ``interference``.
"""

from __future__ import annotations

import numpy as np

from .bodies import amplitude_of
from .schema import CaseError
from ..contact.obstacles import OBSTACLES, Coordinates
from ..friction.registry import TableError
from .friction import law_of_table

def surface_of(spec: dict, where: str, bodies: dict, source: str):
    """The surface named by a ``{body, boundary}`` table of a contact pair.

    Parameters
    ----------
    spec : dict
        ``body`` (a body name) and ``boundary`` (a boundary name of its mesh).
    where : str
        Dotted path of the table in the case, for error messages.
    bodies : dict
        Body name -> :class:`fecontact.model.Body`.
    source : str
        Path of the case file, for error messages.

    Returns
    -------
    fecontact.model.SurfaceRef

    Raises
    ------
    fecontact.case.schema.CaseError
        For a missing key, an unknown body, or an unknown or empty boundary.
    """
    for key in ("body", "boundary"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    if spec["body"] not in bodies:
        raise CaseError(f"{source}: '{where}.body' = {spec['body']!r} is not a body; "
                        f"bodies: {', '.join(bodies)}")
    try:
        return bodies[spec["body"]].surface(spec["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err}") from None


def interference_of(value, where: str, source: str):
    """The ``interference`` of a contact pair: ``"shrink"``, or the amplitude of a ``[[t, a], ...]`` table.

    The pair checks the value (:func:`fecontact.contact.interference.interference_amplitude`).
    """
    return value if isinstance(value, str) else amplitude_of(value, where, source)


def vector_of(spec, key, default, dim, where, source) -> np.ndarray:
    """A point or direction ``spec[key]`` (``default`` when absent) with exactly ``dim`` coordinates, shape (dim,).

    Raises
    ------
    fecontact.case.schema.CaseError
        When the value does not have ``dim`` coordinates.
    """
    value = np.asarray(spec.get(key, default), float)
    if value.shape != (dim,):
        raise CaseError(f"{source}: '{where}.{key}' needs {dim} coordinates, got {spec.get(key)!r}")
    return value


def friction_law(spec: dict, where: str, source: str):
    """Friction law of a contact pair from its ``friction`` table.

    The law is the registered one named by ``law`` (default ``coulomb``),
    built from the keys it declares (:mod:`fecontact.friction.registry`).

    Raises
    ------
    fecontact.case.schema.CaseError
        Naming the key, for a table the law cannot be built from (the
        schema refuses such tables first).
    """
    try:
        return law_of_table(spec)
    except TableError as err:
        if err.key:
            raise CaseError(f"{source}: '{where}.{err.key}' {err.reason}") from None
        raise CaseError(f"{source}: '{where}': {err.reason}") from None


def master_of(spec: dict, where: str, bodies: dict, source: str):
    """The master of a contact pair: a body's surface, or a rigid obstacle.

    Parameters
    ----------
    spec : dict
        Either ``body`` and ``boundary`` (see :func:`surface_of`), or
        ``obstacle``, a name of :data:`fecontact.contact.obstacles.OBSTACLES`
        (``"line"`` or ``"circle"`` in 2D, ``"plane"`` or ``"sphere"`` in 3D),
        with the keys its class declares
        (:attr:`~fecontact.contact.obstacles.RigidObstacle.table_keys`: ``point``
        and ``normal``, or ``center``, ``radius`` and ``inside``), and
        optionally ``displacement`` (default zero) and ``amplitude``.
    where : str
        Dotted path of the table in the case, for error messages.
    bodies : dict
        Body name -> :class:`fecontact.model.Body`.
    source : str
        Path of the case file, for error messages.

    Returns
    -------
    SurfaceRef or RigidObstacle
    """
    if "body" in spec:
        return surface_of(spec, where, bodies, source)
    kind = spec["obstacle"]                     # the schema: a body's boundary or an obstacle
    dim = next(iter(bodies.values())).dim
    cls = OBSTACLES[kind]
    if cls.dim != dim:
        raise CaseError(f"{source}: '{where}.obstacle' = {cls.mismatch(dim)}")
    table = dict(spec)
    for entry in cls.table_keys:
        if entry.kind is Coordinates and entry.key in spec:
            table[entry.key] = vector_of(spec, entry.key, None, dim, where, source)
    table["displacement"] = vector_of(spec, "displacement", [0.0] * dim, dim, where, source)
    table["amplitude"] = amplitude_of(spec.get("amplitude"), f"{where}.amplitude", source)
    try:
        return cls.from_table(table)
    except ValueError as err:
        raise CaseError(f"{source}: '{where}': {err}") from None
