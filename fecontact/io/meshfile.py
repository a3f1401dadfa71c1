"""Mesh files: Gmsh ``.msh`` with physical groups as boundary and subdomain names, and anything meshio reads.

A Gmsh mesh may be linear or quadratic (``triangle6``, ``tetra10``,
``quad9``/``quad8``, ``hexahedron27``/``hexahedron20``).  The body mesh is
built from the element *vertices*; the element kind of the body (``P1``,
``P2``, ``Q1``, ``Q2``, ``Q2S``) then defines the unknowns.  A quadratic file
comes back as the linear mesh type that remembers its cells
(:mod:`fecontact.mesh.file_meshes`: ``MeshQuad9``, ``MeshHex20``, ...), so
that a body given no element gets the quadratic element of the file
(``quad9``/``hexahedron27`` -> Q2, ``quad8``/``hexahedron20`` -> Q2S,
``triangle6``/``tetra10`` -> P2), whose DOF nodes are then the file's nodes
one for one (:func:`file_dof_nodes`); a linear element given by name is
used as asked.  The returned mesh carries the positions of the file's nodes
(``mesh.nodes``): a body of a quadratic kind maps its elements through them
(isoparametric elements with the file's curved edges,
:mod:`fecontact.mesh.geometry`); a P1 or Q1 body uses the straight-sided
elements of the vertices.  Cells of order 3 or more, and
other cell types (prisms, pyramids), are refused with a line naming them.
The vertices of an element are put in scikit-fem's
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

from dataclasses import replace
from pathlib import Path

import numpy as np
import skfem

from ..mesh.file_meshes import FILE_MESHES
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
_SUPPORTED = ", ".join(_VOLUME)


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
        A Gmsh ``.msh`` file (format 2.2 or 4.1), an Exodus II file
        (``.exo``, ``.e``, ``.ex2``: element blocks -> subdomains, side sets
        and node sets -> boundaries), an Abaqus or CalculiX input file
        (``.inp``: element sets -> subdomains, surfaces and node sets ->
        boundaries; see :mod:`fecontact.io.meshformats`), or any mesh
        meshio reads.

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
    from .meshformats import READERS

    if Path(path).suffix.lower() in READERS:
        return _load_other_format(Path(path))
    return from_meshio_mesh(read(Path(path)))


def _load_other_format(path: Path) -> skfem.Mesh:
    """An Exodus II or Abaqus file through its reader and the conversion of :func:`from_meshio_mesh`."""
    from .meshformats import MeshFormatError, read_grouped

    try:
        grouped = read_grouped(path)
        return grouped.finish(from_meshio_mesh(grouped.mesh))
    except MeshFormatError as err:
        raise MeshFileError(str(err)) from None
    except MeshFileError as err:
        raise MeshFileError(f"{path.name}: {err}") from None


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

    volume = _volume_blocks(mesh)
    dim = _VOLUME[volume[0].type][0]
    file_type = volume[0].type
    cell_type = _VOLUME[file_type][2]
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
    if file_type in FILE_MESHES:
        skmesh = FILE_MESHES[file_type](skmesh.doflocs, skmesh.t)
        skmesh = replace(skmesh, nodes=_file_nodes(mesh, skmesh, file_type))
    boundaries = _physical_boundaries(mesh, skmesh, renumber, dim)
    if boundaries:
        skmesh = skmesh.with_boundaries(boundaries)
    subdomains = _physical_subdomains(mesh, dim, element_of_row)
    return skmesh.with_subdomains(subdomains) if subdomains else skmesh


# scalar scikit-fem element whose DOF nodes are the nodes of a quadratic file cell
_FILE_ELEMENTS = {"triangle6": skfem.ElementTriP2, "tetra10": skfem.ElementTetP2,
                  "quad8": skfem.ElementQuadS2, "quad9": skfem.ElementQuad2,
                  "hexahedron20": skfem.ElementHexS2, "hexahedron27": skfem.ElementHex2}


def _file_nodes(mesh, skmesh: skfem.Mesh, file_type: str) -> np.ndarray:
    """The geometry nodes of ``skmesh`` (:mod:`fecontact.mesh.geometry`) at the file's node positions.

    Every node of the file's cells goes to its DOF node (:func:`file_dof_nodes`);
    the face and centre nodes ``quad8`` and ``hexahedron20`` cells lack are
    interpolated by their serendipity shape functions.

    Returns
    -------
    ndarray, shape (dim, fecontact.mesh.geometry.node_count(skmesh))
    """
    from ..mesh.geometry import complete_nodes, geometry_type

    element = _FILE_ELEMENTS[file_type]()
    dof = file_dof_nodes(mesh, skmesh)
    used = dof >= 0
    nodes = np.zeros((skmesh.dim(), skfem.assembly.Dofs(skmesh, element).N))
    nodes[:, dof[used]] = mesh.points[used, :skmesh.dim()].T
    if type(element) is geometry_type(skmesh).elem:
        return nodes
    return complete_nodes(skmesh, element, nodes)


def _volume_blocks(mesh) -> list:
    """The cell blocks of the body's elements: those of the highest dimension, all of one type.

    Raises
    ------
    MeshFileError
        No 2D or 3D cells; cells of that dimension of a type bodies do not
        take (order 3 or more, prisms, pyramids); several types (orders).
    """
    from meshio._mesh import topological_dimension

    dims = [topological_dimension.get(b.type, 0) for b in mesh.cells]
    dim = max(dims, default=0)
    if dim < 2:
        raise MeshFileError("no triangles, quadrilaterals, tetrahedra or hexahedra in the file")
    types = sorted({b.type for b, d in zip(mesh.cells, dims) if d == dim})
    unsupported = [t for t in types if t not in _VOLUME]
    if unsupported:
        raise MeshFileError(f"{', '.join(unsupported)} cells are not supported; bodies take "
                            f"{_SUPPORTED}")
    if len(types) > 1:
        raise MeshFileError(f"mixed element types ({', '.join(types)}); use one element type "
                            f"per body")
    return [b for b, d in zip(mesh.cells, dims) if d == dim]


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


# the nodes of a quadratic meshio (VTK-ordered) cell after its vertices: positions of the vertices
# at the ends of each edge node, the corners of each face node (3D), and whether a centre follows
_EDGES = {
    "triangle6": ((0, 1), (1, 2), (2, 0)),
    "quad8": ((0, 1), (1, 2), (2, 3), (3, 0)), "quad9": ((0, 1), (1, 2), (2, 3), (3, 0)),
    "tetra10": ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3)),
    "hexahedron20": ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
                     (0, 4), (1, 5), (2, 6), (3, 7)),
}
_EDGES["hexahedron27"] = _EDGES["hexahedron20"]
_FACES = {"hexahedron27": ((0, 3, 7, 4), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7),
                           (0, 1, 2, 3), (4, 5, 6, 7))}
_CENTRE = ("quad9", "hexahedron27")


def _row_index(table: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index of each row of ``wanted`` (sorted vertex tuples) among the rows of ``table``; -1 if absent."""
    keys = np.vstack([np.sort(table, axis=1), np.sort(wanted, axis=1)])
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    position = np.full(inverse.max() + 1, -1)
    position[inverse[:len(table)]] = np.arange(len(table))
    return position[inverse[len(table):]]


def file_dof_nodes(mesh, skmesh: skfem.Mesh) -> np.ndarray:
    """The DOF node of every node of a meshio mesh, for the element kind of its cells.

    The DOF nodes are those of a body on ``skmesh`` (the result of
    :func:`from_meshio_mesh` on ``mesh``) with the element of the file's
    cells (P1, Q1 for linear cells, P2 for ``triangle6``/``tetra10``, Q2S for
    ``quad8``/``hexahedron20``, Q2 for ``quad9``/``hexahedron27``), numbered
    as :mod:`fecontact.mesh.dof_nodes` says: a vertex by its index in
    ``skmesh``, an edge node by its edge, a face or centre node by its face
    or element.  The nodes are matched by the cells' topology, not by their
    positions: a curved file's midside node maps to the DOF node of its
    edge, which a body of the file's quadratic kind places where the file
    has it (isoparametric geometry, :mod:`fecontact.mesh.geometry`).

    Parameters
    ----------
    mesh : meshio.Mesh
    skmesh : skfem.Mesh

    Returns
    -------
    ndarray of int, shape (n_points,)
        ``-1`` for a point of no element (e.g. a lone geometry point).

    Raises
    ------
    MeshFileError
        As :func:`from_meshio_mesh`.
    """
    from ..mesh.dof_nodes import edge_nodes, face_nodes, interior_nodes

    volume = _volume_blocks(mesh)
    file_type = volume[0].type
    nv = _VOLUME[file_type][1]
    rows = np.vstack([b.data for b in volume])                                # (n_rows, k)
    t, element_of_row = _unique_elements(rows[:, :nv])
    used = np.unique(t)
    out = np.full(mesh.points.shape[0], -1)
    out[used] = np.arange(used.size)
    vertex = out[rows[:, :nv]]                                                # skmesh vertices
    column = nv
    if file_type in _EDGES:
        pairs = np.array(_EDGES[file_type])                                   # (n_edges, 2)
        ends = vertex[:, pairs]                                               # (n_rows, e, 2)
        table = (skmesh.facets if skmesh.dim() == 2 else skmesh.edges).T
        edge = _row_index(table, ends.reshape(-1, 2)).reshape(ends.shape[:2])
        out[rows[:, column:column + pairs.shape[0]]] = edge_nodes(skmesh, edge)
        column += pairs.shape[0]
    if file_type in _FACES:
        corners = vertex[:, np.array(_FACES[file_type])]                      # (n_rows, 6, 4)
        face = _row_index(skmesh.facets.T, corners.reshape(-1, 4)).reshape(corners.shape[:2])
        out[rows[:, column:column + face.shape[1]]] = face_nodes(skmesh, face)
        column += face.shape[1]
    if file_type in _CENTRE:
        out[rows[:, column]] = interior_nodes(skmesh, element_of_row)
    return out
