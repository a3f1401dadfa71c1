"""Mesh files: Gmsh ``.msh`` with physical groups as boundary names, and anything meshio reads.

A Gmsh mesh may be linear or quadratic (``triangle6``, ``tetra10``,
``quad9``/``quad8``, ``hexahedron27``/``hexahedron20``).  The body mesh is
built from the element *vertices*; the element of the case (``P1``, ``P2``,
``Q1``) then defines the unknowns, so a quadratic Gmsh mesh run with ``P2``
places its edge nodes at the straight-edge midpoints (Gmsh's curved midside
positions are not used).  Physical groups of dimension ``dim - 1`` become
named boundaries, matched to the mesh facets by their vertices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import skfem

# cell type -> (dimension, number of vertices, skfem mesh type)
_VOLUME = {
    "triangle": (2, 3, skfem.MeshTri1), "triangle6": (2, 3, skfem.MeshTri1),
    "quad": (2, 4, skfem.MeshQuad1), "quad8": (2, 4, skfem.MeshQuad1), "quad9": (2, 4, skfem.MeshQuad1),
    "tetra": (3, 4, skfem.MeshTet1), "tetra10": (3, 4, skfem.MeshTet1),
    "hexahedron": (3, 8, skfem.MeshHex1), "hexahedron20": (3, 8, skfem.MeshHex1),
    "hexahedron27": (3, 8, skfem.MeshHex1),
}
_FACET = {"line": 2, "line3": 2, "triangle": 3, "triangle6": 3, "quad": 4, "quad8": 4, "quad9": 4}


class MeshFileError(ValueError):
    """A mesh file that cannot be used (one line: what is wrong)."""


def read(path):
    """``meshio.read`` with its failures as one :class:`MeshFileError` line.

    meshio prints to stderr and exits when no reader accepts a file; both
    are caught here.
    """
    import contextlib
    import io

    import meshio

    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed), contextlib.redirect_stdout(printed):
            return meshio.read(str(path))
    except (Exception, SystemExit) as err:
        detail = " ".join(printed.getvalue().split()) or f"{type(err).__name__}: {err}"
        raise MeshFileError(f"cannot read mesh ({detail})") from None


def load_mesh(path) -> skfem.Mesh:
    """Read a mesh file into a linear scikit-fem mesh with named boundaries.

    Raises
    ------
    MeshFileError
        No 2D or 3D elements, mixed element types, or a physical group whose
        facets are not boundary facets of the mesh.
    """
    path = Path(path)
    mesh = read(path)
    volume = [b for b in mesh.cells if b.type in _VOLUME]
    if not volume:
        raise MeshFileError("no triangles, quadrilaterals, tetrahedra or hexahedra in the file")
    dim = max(_VOLUME[b.type][0] for b in volume)
    volume = [b for b in volume if _VOLUME[b.type][0] == dim]
    kinds = {_VOLUME[b.type][2] for b in volume}
    if len(kinds) > 1:
        raise MeshFileError("mixed element types (" + ", ".join(sorted({b.type for b in volume}))
                            + "); use one element type per body")
    mesh_type = kinds.pop()
    nv = _VOLUME[volume[0].type][1]
    t = np.vstack([b.data[:, :nv] for b in volume]).T
    used = np.unique(t)
    renumber = np.full(mesh.points.shape[0], -1)
    renumber[used] = np.arange(used.size)
    p = mesh.points[used, :dim].T
    if dim == 2 and mesh.points.shape[1] == 3 and np.ptp(mesh.points[used, 2]) > 0:
        raise MeshFileError("2D elements that are not in the plane z = const")
    skmesh = mesh_type(np.ascontiguousarray(p, dtype=float), np.ascontiguousarray(renumber[t]))
    if mesh_type is skfem.MeshTri1:
        skmesh = skmesh.oriented()  # counter-clockwise triangles
    boundaries = _physical_boundaries(mesh, skmesh, renumber, dim)
    return skmesh.with_boundaries(boundaries) if boundaries else skmesh


def _physical_boundaries(mesh, skmesh, renumber, dim) -> dict:
    """Named boundaries from physical groups of dimension ``dim - 1``."""
    names = {}
    for name, (tag, group_dim) in (mesh.field_data or {}).items():
        if int(group_dim) == dim - 1:
            names[int(tag)] = name
    tags = mesh.cell_data.get("gmsh:physical")
    if not names:
        return {}
    # declared groups without facets stay as empty boundaries (reported as empty, not unknown)
    out: dict = {name: [] for name in names.values()}
    if tags is None:
        return {k: np.zeros(0, dtype=np.int64) for k in out}
    facets = np.sort(skmesh.facets, axis=0)
    index = {tuple(col): i for i, col in enumerate(facets.T)}
    for block, block_tags in zip(mesh.cells, tags):
        if block.type not in _FACET or (dim == 2) != (block.type.startswith("line")):
            continue
        verts = np.sort(renumber[block.data[:, :_FACET[block.type]]], axis=1)
        for tag in np.unique(block_tags):
            if int(tag) not in names:
                continue
            rows = verts[block_tags == tag]
            found = [index.get(tuple(r), -1) for r in rows]
            if min(found) < 0 or np.any(rows < 0):
                raise MeshFileError(f"physical group {names[int(tag)]!r} has facets that are not "
                                    f"facets of the mesh")
            out[names[int(tag)]].extend(found)
    return {k: np.unique(np.asarray(v, dtype=np.int64)) for k, v in out.items()}
