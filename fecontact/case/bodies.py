"""Bodies of a case file: meshes (generated or read), amplitudes, supports and springs.

The helpers :func:`fecontact.case.build.build_model` calls for each entry
of ``[[bodies]]``: :func:`mesh_of` (a named generator of :mod:`fecontact.mesh`
or a mesh file), :func:`amplitude_of` (``[[t, a], ...]`` tables),
:func:`components_of` and :func:`boundary_nodes_of` (where a support,
coupling or load applies), and :func:`spring_of`.  Each turns a bad entry
into a :class:`fecontact.case.schema.CaseError` naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import skfem

from ..bodies.body import ElasticBody
from ..bodies.system import Amplitude, Spring
from .schema import CaseError
from ..contact.surface import contact_surface

COMPONENTS = {"x": 0, "y": 1, "z": 2}


#: default amplitude of loads and imposed displacements without a table: a ramp
#: over the pseudo-time [0, 1] in statics; in dynamics they act fully from t = 0
CONSTANT = Amplitude((0.0,), (1.0,))


def amplitude_of(table, where: str, source: str, default: Amplitude | None = None) -> Amplitude:
    """The amplitude of a ``[[t0, a0], [t1, a1], ...]`` table of a case.

    Parameters
    ----------
    table : list of [t, a] pairs, or None
        Times strictly increasing.
    where : str
        Dotted path of the table in the case, for error messages.
    source : str
        Path of the case file, for error messages.
    default : Amplitude, optional
        Used without a table; the ramp :meth:`fecontact.bodies.system.Amplitude.ramp`
        when not given (statics), :data:`CONSTANT` in dynamics.

    Returns
    -------
    Amplitude

    Raises
    ------
    fecontact.case.schema.CaseError
        For a table that is not a list of pairs with increasing times.
    """
    if table is None:
        return Amplitude.ramp() if default is None else default
    arr = np.asarray(table, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 1 or np.any(np.diff(arr[:, 0]) <= 0):
        raise CaseError(f"{source}: '{where}' must be [[t0, a0], [t1, a1], ...] with increasing t")
    return Amplitude(tuple(arr[:, 0]), tuple(arr[:, 1]))


def mesh_of(spec: dict, where: str, source: str, base: Path) -> skfem.Mesh:
    """The mesh of a body's ``mesh`` table: read from ``file`` or made by a named generator.

    Parameters
    ----------
    spec : dict
        Either ``file`` (a Gmsh ``.msh`` file, read with its physical groups
        as boundary names, or any format meshio and scikit-fem read) or
        ``generator`` (a name in :data:`fecontact.mesh.GENERATORS`) with the
        generator's keyword arguments.
    where : str
        Dotted path of the table in the case, for error messages.
    source : str
        Path of the case file, for error messages.
    base : pathlib.Path
        Folder that relative mesh file paths start from (the case's folder).

    Returns
    -------
    skfem.Mesh

    Raises
    ------
    fecontact.case.schema.CaseError
        For a missing or unreadable file, or arguments the generator rejects.
    """
    from ..mesh import GENERATORS

    if "file" in spec:
        path = base / spec["file"]
        if not path.is_file():
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: mesh file not found ({path})")
        from ..io.meshfile import MeshFileError, load_mesh, read

        try:
            if path.suffix.lower() == ".msh":
                return load_mesh(path)
            read(path)                   # a clear error for unreadable files
            return skfem.Mesh.load(str(path))
        except MeshFileError as err:
            text = str(err) if str(err).startswith("cannot read mesh") else f"cannot read mesh ({err})"
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: {text}") from None
        except Exception as err:  # meshio and scikit-fem raise many types
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: cannot read mesh ({err})") from None
    params = {k: v for k, v in spec.items() if k != "generator"}
    try:
        return GENERATORS[spec["generator"]](**params)
    except (TypeError, ValueError) as err:
        raise CaseError(f"{source}: '{where}': {err}") from None


def components_of(bc: dict, dim: int, where: str, source: str) -> tuple:
    """Displacement components named by a support table, as indices (x -> 0, y -> 1, z -> 2).

    Parameters
    ----------
    bc : dict
        A table with ``components`` (a list of ``"x"``, ``"y"``, ``"z"`` or
        ``"all"``) or ``component`` (one name); neither means all.
    dim : int
    where, source : str
        Dotted path of the table and path of the case file, for error messages.

    Returns
    -------
    tuple of int
    """
    names = bc.get("components", [bc["component"]] if "component" in bc else None)
    if names is None:
        return tuple(range(dim))
    out = []
    for c in names:
        if c == "all":
            return tuple(range(dim))
        if c not in COMPONENTS or COMPONENTS[c] >= dim:
            raise CaseError(f"{source}: '{where}' has component {c!r}; use x, y{', z' if dim == 3 else ''} or all")
        out.append(COMPONENTS[c])
    return tuple(out)


def boundary_nodes_of(body: ElasticBody, bc: dict, where: str, source: str) -> np.ndarray:
    """Body-local DOF nodes a support table applies to: a named boundary, or the node nearest a point.

    Parameters
    ----------
    body : ElasticBody
    bc : dict
        A table with ``boundary`` (a boundary name of the mesh) or ``point``
        (``dim`` coordinates; the DOF node closest to it in the reference
        configuration).
    where, source : str
        Dotted path of the table and path of the case file, for error messages.

    Returns
    -------
    ndarray of int, shape (k,)
    """
    if "point" in bc:
        p = np.asarray(bc["point"], float).reshape(-1, 1)
        if p.shape[0] != body.dim:
            raise CaseError(f"{source}: '{where}.point' needs {body.dim} coordinates")
        dist = np.linalg.norm(body.node_coords - p, axis=0)
        return np.array([int(np.argmin(dist))])
    if "boundary" not in bc:
        raise CaseError(f"{source}: '{where}' needs 'boundary' or 'point'")
    try:
        return body.boundary_nodes(bc["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None


def spring_of(spec: dict, body: ElasticBody, body_index: int, where: str, source: str):
    """``(body index, Spring with body-local DOFs)`` from a ``spring`` table."""
    for key in ("boundary", "component", "stiffness"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    comp = components_of(spec, body.dim, where, source)
    if len(comp) != 1:
        raise CaseError(f"{source}: '{where}.component' must name one component")
    try:
        surface = contact_surface(body, body_index, spec["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err}") from None
    values = {}
    for key in ("stiffness", "damping", "anchor_offset", "anchor_velocity"):
        values[key] = float(spec.get(key, 0.0))
        if not np.isfinite(values[key]):
            raise CaseError(f"{source}: '{where}.{key}' must be finite")
    if values["stiffness"] < 0 or values["damping"] < 0:
        raise CaseError(f"{source}: '{where}': stiffness and damping must be >= 0")
    weights = surface.area / surface.area.sum()
    name = spec.get("name", f"{body.name}-{spec['boundary']}-spring")
    return body_index, Spring(name, body.dim * surface.nodes + comp[0], weights,
                              values["stiffness"], values["damping"], values["anchor_offset"],
                              values["anchor_velocity"])
