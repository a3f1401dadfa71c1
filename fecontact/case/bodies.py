"""Bodies of a case file: meshes (generated or read), amplitudes, supports and springs.

The helpers :func:`fecontact.case.build.build_model` calls for each entry
of ``[[bodies]]``: :func:`mesh_of` (a named generator of :mod:`fecontact.mesh`
or a mesh file), :func:`amplitude_of` (``[[t, a], ...]`` tables),
:func:`components_of` and :func:`where_of` (which components and where a
support, coupling or spring applies).  Each turns a bad entry
into a :class:`fecontact.case.schema.CaseError` naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import skfem

from ..bodies.conditions import Amplitude
from .schema import CaseError

COMPONENTS = {"x": 0, "y": 1, "z": 2}


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
        Returned without a table (``None``: the analysis' default, which the
        model sets: a ramp in statics, constant in dynamics).

    Returns
    -------
    Amplitude or None

    Raises
    ------
    fecontact.case.schema.CaseError
        For a table that is not a list of pairs with increasing times.
    """
    if table is None:
        return default
    arr = np.asarray(table, dtype=float)          # pairs with increasing t: the schema
    return Amplitude(tuple(arr[:, 0]), tuple(arr[:, 1]))


def mesh_of(spec: dict, where: str, source: str, base: Path) -> skfem.Mesh:
    """The mesh of a body's ``mesh`` table: read from ``file`` or made by a named generator.

    Parameters
    ----------
    spec : dict
        Either ``file`` (a Gmsh ``.msh`` file, read with its physical groups
        as boundary names, an Exodus II or Abaqus file with its sets (see
        :mod:`fecontact.io.meshformats`), or any format meshio and scikit-fem
        read) or
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
        from ..io.meshformats import READERS

        try:
            if path.suffix.lower() == ".msh" or path.suffix.lower() in READERS:
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


def where_of(bc: dict, where: str, source: str, point: bool = True) -> None:
    """Check that a support table says where it applies: ``boundary`` (or ``point``, if allowed).

    Raises
    ------
    fecontact.case.schema.CaseError
        When neither is given.
    """
    if "boundary" not in bc and not (point and "point" in bc):
        raise CaseError(f"{source}: '{where}' needs 'boundary'" + (" or 'point'" if point else ""))
