"""Mesh files: Gmsh ``.msh`` with physical groups as boundary names, and anything meshio reads.

A Gmsh mesh may be linear or quadratic (``triangle6``, ``tetra10``,
``quad9``/``quad8``, ``hexahedron27``/``hexahedron20``).  The body mesh is
built from the element *vertices*; the element of the case (``P1``, ``P2``,
``Q1``) then defines the unknowns, so a quadratic Gmsh mesh run with ``P2``
places its edge nodes at the straight-edge midpoints (Gmsh's curved midside
positions are not used).  The vertices of an element are put in scikit-fem's
local order by scikit-fem's own reader (:func:`skfem.io.meshio.from_meshio`;
it differs from the Gmsh/VTK order for hexahedra), and the elements are
oriented as the generators orient them: triangles counter-clockwise,
hexahedra with positive Jacobian.  Physical groups of dimension ``dim - 1``
become named boundaries, matched to the mesh facets by their vertices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import skfem

from ..mesh.quality import corner_jacobians

# cell type -> (dimension, number of vertices, meshio type of its vertices); the vertices of a
# quadratic cell come first, in the order of the linear cell
_VOLUME = {
    "triangle": (2, 3, "triangle"), "triangle6": (2, 3, "triangle"),
    "quad": (2, 4, "quad"), "quad8": (2, 4, "quad"), "quad9": (2, 4, "quad"),
    "tetra": (3, 4, "tetra"), "tetra10": (3, 4, "tetra"),
    "hexahedron": (3, 8, "hexahedron"), "hexahedron20": (3, 8, "hexahedron"),
    "hexahedron27": (3, 8, "hexahedron"),
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
    import meshio
    from skfem.io.meshio import from_meshio

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
    cell_type = kinds.pop()
    nv = _VOLUME[volume[0].type][1]
    t = np.vstack([b.data[:, :nv] for b in volume])
    used = np.unique(t)
    renumber = np.full(mesh.points.shape[0], -1)
    renumber[used] = np.arange(used.size)
    p = mesh.points[used, :dim]
    if dim == 2 and mesh.points.shape[1] == 3 and np.ptp(mesh.points[used, 2]) > 0:
        raise MeshFileError("2D elements that are not in the plane z = const")
    # scikit-fem's reader puts the vertices of each element in scikit-fem's local order
    # (meshio keeps the Gmsh/VTK order, which differs for hexahedra)
    skmesh = from_meshio(meshio.Mesh(np.ascontiguousarray(p, dtype=float),
                                     [(cell_type, np.ascontiguousarray(renumber[t]))]))
    if isinstance(skmesh, skfem.MeshTri1):
        skmesh = skmesh.oriented()  # counter-clockwise triangles
    elif isinstance(skmesh, skfem.MeshHex1):
        skmesh = _positive_hexahedra(skmesh)
    boundaries = _physical_boundaries(mesh, skmesh, renumber, dim)
    return skmesh.with_boundaries(boundaries) if boundaries else skmesh


def _positive_hexahedra(mesh: skfem.MeshHex1) -> skfem.MeshHex1:
    """The hexahedra of ``mesh`` with negative volume mirrored (reference x and y exchanged).

    scikit-fem's reference hexahedron is left-handed in its vertex order, so
    a right-handed Gmsh hexahedron comes out of scikit-fem's reader with a
    negative Jacobian at every corner (as ``MeshHex1.init_tensor`` makes
    them); :func:`fecontact.mesh.box` orients its hexahedra the same way.
    """
    ref = type(mesh).init_refdom().p                           # (3, 8) reference vertices
    swapped = ref[[1, 0, 2]]
    mirror = [int(np.flatnonzero(np.all(ref == swapped[:, [i]], axis=0))[0]) for i in range(8)]
    flip = corner_jacobians(mesh).sum(axis=1) < 0
    if not np.any(flip):
        return mesh
    t = np.where(flip, mesh.t[mirror], mesh.t)
    return type(mesh)(mesh.p, np.ascontiguousarray(t))


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
