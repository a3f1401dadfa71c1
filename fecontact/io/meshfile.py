"""Mesh files: Gmsh ``.msh`` with physical groups as boundary and subdomain names, and anything meshio reads.

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

Physical groups of the mesh's own dimension (surfaces in 2D, volumes in 3D)
become named subdomains (``mesh.subdomains``: name -> sorted element
indices of the returned mesh, as :meth:`skfem.Mesh.with_subdomains`
takes them), e.g. the regions of a body of several materials
(:class:`fecontact.bodies.body.ElasticBody`).  A physical group without a
name (no ``$PhysicalNames`` entry) is named by its tag as a string, e.g.
``"7"``.  Elements outside every physical group of that dimension belong to
no subdomain.  Gmsh 2.2 files repeat an element once per physical group it
belongs to: such repeats are read as one element, which belongs to every
group it was listed in.
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
    """Read a mesh file into a linear scikit-fem mesh with named boundaries and subdomains.

    Parameters
    ----------
    path : str or Path
        A Gmsh ``.msh`` file (format 2.2 or 4.1) or any mesh meshio reads.

    Returns
    -------
    skfem.Mesh
        ``mesh.boundaries`` holds the physical groups of dimension
        ``dim - 1`` (facet indices), ``mesh.subdomains`` those of dimension
        ``dim`` (element indices; unnamed groups under their tag as a
        string); each is None when the file has no such group.

    Raises
    ------
    MeshFileError
        No 2D or 3D elements, mixed element types, or a physical group whose
        facets are not boundary facets of the mesh.

    Examples
    --------
    The half disc shipped in ``meshes/`` (Gmsh physical groups ``arc``,
    ``contact`` and ``flat``):

    >>> import fecontact as fc
    >>> mesh = fc.load_mesh("meshes/half_disc.msh")
    >>> type(mesh).__name__, sorted(mesh.boundaries), mesh.t.shape
    ('MeshTri1', ['arc', 'contact', 'flat'], (3, 796))
    """
    return from_meshio_mesh(read(Path(path)))


def from_meshio_mesh(mesh) -> skfem.Mesh:
    """A meshio mesh as a linear scikit-fem mesh with named boundaries and subdomains.

    What :func:`load_mesh` does after reading the file: the same element
    order, orientation and physical groups (``gmsh:physical`` cell data
    named by ``field_data``).

    Parameters
    ----------
    mesh : meshio.Mesh

    Returns
    -------
    skfem.Mesh

    Raises
    ------
    MeshFileError
        As :func:`load_mesh`.
    """
    import meshio
    from skfem.io.meshio import from_meshio

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
    t, element_of_row = _unique_elements(np.vstack([b.data[:, :nv] for b in volume]))
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
    if boundaries:
        skmesh = skmesh.with_boundaries(boundaries)
    subdomains = _physical_subdomains(mesh, dim, element_of_row)
    return skmesh.with_subdomains(subdomains) if subdomains else skmesh


def _unique_elements(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Elements of the file with repeats (the same vertices) removed, in first-seen order.

    Returns
    -------
    t : ndarray of int, shape (n_elements, n_vertices)
        ``rows`` itself when nothing repeats.
    element_of_row : ndarray of int, shape (n_rows,)
        The element of every row of ``rows``.
    """
    _, first, inverse = np.unique(np.sort(rows, axis=1), axis=0, return_index=True,
                                  return_inverse=True)
    if first.size == rows.shape[0]:
        return rows, np.arange(rows.shape[0])
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rows[np.sort(first)], rank[inverse.ravel()]


def _physical_subdomains(mesh, dim: int, element_of_row: np.ndarray) -> dict:
    """Named subdomains (name -> sorted element indices) from physical groups of dimension ``dim``.

    The rows of the ``dim``-dimensional cell blocks, concatenated in file
    order, are the elements ``element_of_row`` of the mesh.
    """
    names = {int(tag): name for name, (tag, group_dim) in (mesh.field_data or {}).items()
             if int(group_dim) == dim}
    out: dict = {name: [] for name in names.values()}
    tags = mesh.cell_data.get("gmsh:physical")
    if tags is not None:
        start = 0
        for block, block_tags in zip(mesh.cells, tags):
            if block.type not in _VOLUME or _VOLUME[block.type][0] != dim:
                continue
            rows = element_of_row[start:start + len(block.data)]
            start += len(block.data)
            block_tags = np.asarray(block_tags).ravel()
            for tag in np.unique(block_tags[block_tags > 0]):
                name = names.get(int(tag), str(int(tag)))
                if int(tag) not in names and name in names.values():
                    raise MeshFileError(f"physical group {int(tag)} has no name and another "
                                        f"group is named {name!r}")
                out.setdefault(name, []).append(rows[block_tags == tag])
    return {name: np.unique(np.concatenate(parts)).astype(np.int64) if parts
            else np.zeros(0, dtype=np.int64) for name, parts in out.items()}


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
