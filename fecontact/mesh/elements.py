"""Element kinds: one record per finite element a body may use, and their registry.

An :class:`ElementKind` holds everything the package needs to know about a
finite element.  For each dimension it has one :class:`Cell`: the
scikit-fem mesh type and element, the VTK cell of the result files with
the order of its nodes, and the :class:`FacetLayout` of the boundary
facets (their nodes, the linear pieces contact sees, the weights of the
contact multipliers).  Bodies, contact surfaces, ties, result files and
case files ask the record.  Nothing else in the package tests element
names.  Adding a kind means one :func:`register` call in this module (see
the developer guide, "Add an element kind").

DOF nodes of a body are numbered as scikit-fem numbers its element's DOFs:
vertices first (``0 .. V-1``), then one node per mesh edge (per facet in
2D, where facets are edges): the node of edge ``e`` is ``V + e``
(:func:`edge_nodes`); for Q2, then one node per 3D facet and one per
element (:mod:`fecontact.mesh.dof_nodes`).

Example
-------
>>> from fecontact.mesh.elements import element_kind
>>> kind = element_kind("P2")
>>> kind.quadratic, kind.cell(2).vtk, kind.cell(3).facets.size
(True, 'triangle6', 6)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable

import numpy as np
import skfem

from .dof_nodes import edge_nodes, face_nodes, face_nodes_of, interior_nodes, midpoint_nodes
from .facet_weights import quad8_vertex_weights, triangle6_vertex_weights
from .file_meshes import MeshHex20, MeshHex27, MeshQuad8, MeshQuad9, MeshTet10, MeshTri6

__all__ = ["FacetLayout", "Cell", "ElementKind", "KINDS", "ALIASES", "register", "element_kind", "names",
           "default_kind", "edge_nodes", "midpoint_nodes", "P1", "P2", "Q1", "Q2", "Q2S"]


@dataclass(frozen=True)
class FacetLayout:
    """The DOF nodes of a boundary facet and what contact makes of them.

    Attributes
    ----------
    element : type
        The scikit-fem element the kind induces on a facet
        (``skfem.ElementLineP2`` for P2 triangles); it has ``size`` nodes.
    size : int
        DOF nodes per facet.
    corners : int
        Vertices per facet: 2 (segments), 3 (triangles), 4 (quadrilaterals).
    nodes : callable
        ``nodes(mesh, facets, verts) -> ndarray (size, n)``: the DOF nodes
        of ``n`` facets given their vertices ``verts`` (shape
        ``(corners, n)``, in the order wanted, e.g. facing outwards); the
        vertices come first in that order, then the others.
    pieces : tuple of tuple of int
        The linear facets contact sees, as positions in the rows of
        ``nodes``: one piece ``(0, 1, ...)`` for a linear facet, the
        segments or triangles between vertices and midside nodes of a
        quadratic one.  Each piece keeps the facet's orientation.
    midsides : tuple of (int, int, int)
        ``(midside, end, end)`` positions of the midside nodes and the two
        vertices of their edge (empty for linear facets).
    vertex_weights : tuple of tuple of float, or None
        ``W[v][j] / |facet|`` with ``W[v][j] = int L_v N_j dA`` (``L_v`` the
        linear hat of vertex ``v``, ``N_j`` the facet's shape functions) on
        a flat facet: the contact multipliers then live on the vertices and
        the midside nodes carry none.  ``None`` where every node carries
        its own multiplier.
    weights : callable or None
        ``weights(coords) -> ndarray (n, corners, size)``: ``W[v][j]`` of
        ``n`` facets integrated on their own geometry, given the
        coordinates of their vertices (shape ``(dim, corners, n)``: flat
        faces) or of all their nodes (shape ``(dim, size, n)``: the curved
        faces of isoparametric bodies, :mod:`fecontact.mesh.geometry`)
        (:func:`fecontact.mesh.facet_weights.quad8_vertex_weights`,
        :func:`~fecontact.mesh.facet_weights.triangle6_vertex_weights`).
        ``None``: ``vertex_weights`` times the facet's measure.
    """

    element: type
    size: int
    corners: int
    nodes: Callable[[skfem.Mesh, np.ndarray, np.ndarray], np.ndarray]
    pieces: tuple[tuple[int, ...], ...]
    midsides: tuple[tuple[int, int, int], ...] = ()
    vertex_weights: tuple[tuple[float, ...], ...] | None = None
    weights: Callable[[np.ndarray], np.ndarray] | None = None


@dataclass(frozen=True)
class Cell:
    """An element kind on one mesh type (one dimension).

    Attributes
    ----------
    mesh : type
        The linear scikit-fem mesh type a body of this kind is built on
        (``skfem.MeshTri1``).
    element : type
        The scalar scikit-fem element (``skfem.ElementTriP2``); a body's
        basis is its ``skfem.ElementVector``.
    vtk : str
        The meshio (VTK) cell type of the result files (``"triangle6"``).
    connectivity : callable
        ``connectivity(mesh) -> ndarray (k, n_elements)``: the DOF nodes of
        every element in the VTK cell's node order.
    facets : FacetLayout
        The boundary facets.
    defaults : tuple of type
        The scikit-fem mesh types (linear or quadratic) on which a body
        given no element gets this kind; each mesh type is the default of
        at most one kind.
    nodes_per_vertex : float
        About how many DOF nodes a mesh of this type has per vertex (1 for
        vertex-only kinds): the memory estimate of case files.
    intorder : int or None
        Polynomial order of the quadrature of a body's basis; ``None``:
        scikit-fem's default (twice the element's degree, 7 x 7 x 7 points
        for the 27-node hexahedron).  The quadratic quadrilaterals and
        hexahedra use 5: 3 Gauss points per direction, the full integration
        of Abaqus' CPE8 and C3D20/C3D27.
    """

    mesh: type
    element: type
    vtk: str
    connectivity: Callable[[skfem.Mesh], np.ndarray]
    facets: FacetLayout
    defaults: tuple[type, ...] = ()
    nodes_per_vertex: float = 1.0
    intorder: int | None = None

    @property
    def dim(self) -> int:
        """Spatial dimension, 2 or 3."""
        return self.element.refdom.dim()


@dataclass(frozen=True)
class ElementKind:
    """A finite element a body may use, on each mesh dimension it supports.

    Attributes
    ----------
    name : str
        The name of case files and of :class:`fecontact.Body`
        (``"P1"``, ``"P2"``, ``"Q1"``).
    cells : tuple of Cell
        One per supported dimension.
    quadratic : bool
        True when the kind has a DOF node at every edge midpoint (P2, Q2,
        Q2S); Q2 also has one at the centre of every face and element.
    linear_simplex : bool
        True when the DOF nodes are the vertices of triangles or
        tetrahedra with constant strain per element: bodies then use the
        basis-free assembly of :mod:`fecontact.bodies.p1`.
    description : str
        One line for error messages and the documentation.
    aliases : tuple of str
        Other names the kind is known by (``"Q9"`` for ``"Q2"``), accepted
        wherever the name is; :attr:`name` is the one results report.
    """

    name: str
    cells: tuple[Cell, ...]
    quadratic: bool = False
    linear_simplex: bool = False
    description: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def dims(self) -> tuple[int, ...]:
        """The dimensions the kind supports."""
        return tuple(c.dim for c in self.cells)

    def cell(self, dim: int) -> Cell:
        """The kind on ``dim``-dimensional meshes.

        Raises
        ------
        ValueError
            If the kind has no cell of that dimension.
        """
        for c in self.cells:
            if c.dim == dim:
                return c
        raise ValueError(f"element {self.name} has no {dim}D form; it exists in "
                         f"{', '.join(f'{d}D' for d in self.dims)}")


_KINDS: dict[str, ElementKind] = {}

#: The registered element kinds by name (read-only view).
KINDS = MappingProxyType(_KINDS)

_ALIASES: dict[str, str] = {}

#: Other names of registered kinds: alias -> name (read-only view).
ALIASES = MappingProxyType(_ALIASES)


def register(kind: ElementKind) -> ElementKind:
    """Add an element kind to :data:`KINDS`.

    Raises
    ------
    ValueError
        If the name is taken, two cells share a dimension, or a default
        mesh type already belongs to another kind.
    """
    if kind.name in _KINDS or kind.name in _ALIASES:
        raise ValueError(f"element kind {kind.name!r} is already registered")
    for alias in kind.aliases:
        if alias in _KINDS or alias in _ALIASES or alias == kind.name:
            raise ValueError(f"element kind {kind.name!r}: the name {alias!r} is taken")
    if len(set(kind.dims)) != len(kind.cells):
        raise ValueError(f"element kind {kind.name!r}: two cells of the same dimension")
    taken = {m: k.name for k in _KINDS.values() for c in k.cells for m in c.defaults}
    for cell in kind.cells:
        for mesh_type in cell.defaults:
            if mesh_type in taken:
                raise ValueError(f"element kind {kind.name!r}: {mesh_type.__name__} is already "
                                 f"the default mesh of {taken[mesh_type]!r}")
    _KINDS[kind.name] = kind
    _ALIASES.update({alias: kind.name for alias in kind.aliases})
    return kind


def element_kind(element) -> ElementKind:
    """The registered kind of an element given by name, record or scikit-fem element.

    Parameters
    ----------
    element : str, ElementKind, skfem.Element or skfem.Element subclass
        ``"P2"`` (or an alias, ``"Q9"``); a registered :class:`ElementKind`; a scalar or vector
        scikit-fem element of a registered cell (``skfem.ElementTriP2()``,
        ``skfem.ElementVector(skfem.ElementQuad1())``) or its class.

    Returns
    -------
    ElementKind

    Raises
    ------
    ValueError
        For a name, record or scikit-fem element that no registered kind has.
    """
    if isinstance(element, ElementKind):
        if _KINDS.get(element.name) is not element:
            raise ValueError(f"element kind {element.name!r} is not registered "
                             f"(fecontact.mesh.elements.register)")
        return element
    if isinstance(element, str):
        name = _ALIASES.get(element, element)
        if name not in _KINDS:
            raise ValueError(f"unknown element {element!r}; choose one of {', '.join(names())}")
        return _KINDS[name]
    inner = getattr(element, "elem", element)          # ElementVector(ElementTriP2())
    cls = inner if isinstance(inner, type) else type(inner)
    for kind in _KINDS.values():
        if any(c.element is cls for c in kind.cells):
            return kind
    known = sorted(c.element.__name__ for k in _KINDS.values() for c in k.cells)
    raise ValueError(f"element {cls.__name__} is not supported; use one of {', '.join(known)}")


def names() -> tuple[str, ...]:
    """Every name an element kind is known by: the registered names, then the aliases."""
    return (*_KINDS, *_ALIASES)


def default_kind(mesh: skfem.Mesh) -> ElementKind:
    """The kind of a body given no element: the one listing the mesh's type in its defaults.

    Raises
    ------
    ValueError
        If no kind lists the mesh type.
    """
    for kind in _KINDS.values():
        if any(type(mesh) in c.defaults for c in kind.cells):
            return kind
    raise ValueError(f"no element kind is the default on a {type(mesh).__name__}; "
                     f"give the element")


def _vertices(mesh: skfem.Mesh) -> np.ndarray:
    """The element vertices, in scikit-fem's order (VTK's for simplices and quadrilaterals)."""
    return mesh.t


# scikit-fem's hexahedron vertex order -> VTK's, for elements of negative Jacobian (those of
# MeshHex1.init_tensor, as skfem.io.meshio writes them) and of positive Jacobian (fecontact.mesh.box,
# Gmsh files): the two differ by scikit-fem's mirror, reference x and y exchanged
_HEX_TO_VTK = {False: [0, 3, 6, 2, 1, 5, 7, 4], True: [0, 2, 6, 3, 1, 4, 7, 5]}


def _hexahedron(mesh: skfem.Mesh) -> np.ndarray:
    """VTK hexahedra: scikit-fem's vertices reordered, bottom face counter-clockwise seen from the top."""
    from .quality import corner_jacobians

    positive = corner_jacobians(mesh)[:, 0] > 0.0
    return np.where(positive, mesh.t[_HEX_TO_VTK[True]], mesh.t[_HEX_TO_VTK[False]])


def _facet_midpoints(mesh: skfem.Mesh) -> np.ndarray:
    """2D VTK quadratic cells (``triangle6``, ``quad8``): vertices, then the midpoints of edges
    01, 12, ... in cyclic order, as scikit-fem's ``t2f`` rows list them."""
    return np.vstack([mesh.t, edge_nodes(mesh, mesh.t2f)])


def _tetra10(mesh: skfem.Mesh) -> np.ndarray:
    """VTK quadratic tetrahedra: vertices, then edges 01, 12, 02, 03, 13, 23."""
    t = mesh.t
    mids = [midpoint_nodes(mesh, mesh.t2e, t[i], t[j])
            for i, j in ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3))]
    return np.vstack([t, np.array(mids)])


def _facet_vertices(mesh: skfem.Mesh, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Linear facets: their vertices."""
    return verts


def _segment3(mesh: skfem.Mesh, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Three-node segments ``(a, b, m)`` (2D, where facets are edges)."""
    return np.vstack([verts, edge_nodes(mesh, facets)])


def _triangle6_facet(mesh: skfem.Mesh, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Six-node triangles ``(a, b, c, ab, bc, ca)``."""
    a, b, c = verts
    f2e = mesh.f2e[:, facets]
    mids = [midpoint_nodes(mesh, f2e, *pair) for pair in ((a, b), (b, c), (c, a))]
    return np.vstack([a, b, c, *mids])


_SEGMENT = FacetLayout(skfem.ElementLineP1, 2, 2, _facet_vertices, ((0, 1),))
_TRIANGLE = FacetLayout(skfem.ElementTriP1, 3, 3, _facet_vertices, ((0, 1, 2),))
_QUAD = FacetLayout(skfem.ElementQuad1, 4, 4, _facet_vertices, ((0, 1, 2, 3),))
_SEGMENT3 = FacetLayout(skfem.ElementLineP2, 3, 2, _segment3, ((0, 2), (2, 1)), ((2, 0, 1),))
# int L_v N_j dA / |T| on a flat six-node triangle, nodes (a, b, c, ab, bc, ca): 1/30 for the
# vertex itself, -1/60 for the other vertices, 2/15 for the two adjacent midside nodes and 1/15
# for the opposite one; every row sums to 1/3
_TRIANGLE6 = FacetLayout(
    skfem.ElementTriP2, 6, 3, _triangle6_facet, ((0, 3, 5), (3, 1, 4), (5, 4, 2), (3, 4, 5)),
    ((3, 0, 1), (4, 1, 2), (5, 2, 0)),
    tuple(tuple(w / 60.0 for w in row)
          for row in ((2, -1, -1, 8, 4, 8), (-1, 2, -1, 8, 8, 4), (-1, -1, 2, 4, 8, 8))),
    triangle6_vertex_weights)

P1 = register(ElementKind(
    "P1", (Cell(skfem.MeshTri1, skfem.ElementTriP1, "triangle", _vertices, _SEGMENT,
                (skfem.MeshTri1,)),
           Cell(skfem.MeshTet1, skfem.ElementTetP1, "tetra", _vertices, _TRIANGLE,
                (skfem.MeshTet1,))),
    linear_simplex=True, description="linear triangles and tetrahedra"))
P2 = register(ElementKind(
    "P2", (Cell(skfem.MeshTri1, skfem.ElementTriP2, "triangle6", _facet_midpoints, _SEGMENT3,
                (skfem.MeshTri2, MeshTri6), nodes_per_vertex=4.0),
           Cell(skfem.MeshTet1, skfem.ElementTetP2, "tetra10", _tetra10, _TRIANGLE6,
                (skfem.MeshTet2, MeshTet10), nodes_per_vertex=8.0)),
    quadratic=True, description="quadratic triangles and tetrahedra"))
Q1 = register(ElementKind(
    "Q1", (Cell(skfem.MeshQuad1, skfem.ElementQuad1, "quad", _vertices, _SEGMENT,
                (skfem.MeshQuad1,)),
           Cell(skfem.MeshHex1, skfem.ElementHex1, "hexahedron", _hexahedron, _QUAD,
                (skfem.MeshHex1,))),
    description="bilinear quadrilaterals and trilinear hexahedra"))


# VTK's quadratic hexahedron: the edges 8-19 and the faces 20-25 of the biquadratic one, as
# vertex positions of the VTK hexahedron (vtkQuadraticHexahedron, vtkTriQuadraticHexahedron)
_HEX_EDGES = ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
              (0, 4), (1, 5), (2, 6), (3, 7))
_HEX_FACES = ((0, 3, 7, 4), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7), (0, 1, 2, 3), (4, 5, 6, 7))


def _quad9(mesh: skfem.Mesh) -> np.ndarray:
    """VTK biquadratic quadrilaterals: vertices, edges 01, 12, 23, 30, then the centre."""
    return np.vstack([_facet_midpoints(mesh), interior_nodes(mesh, np.arange(mesh.t.shape[1]))])


def _hexahedron20(mesh: skfem.Mesh) -> np.ndarray:
    """VTK quadratic hexahedra: the VTK vertices, then the edges in VTK's order."""
    corners = _hexahedron(mesh)
    mids = [midpoint_nodes(mesh, mesh.t2e, corners[i], corners[j]) for i, j in _HEX_EDGES]
    return np.vstack([corners, np.array(mids)])


def _hexahedron27(mesh: skfem.Mesh) -> np.ndarray:
    """VTK triquadratic hexahedra: :func:`_hexahedron20`, the faces in VTK's order, the centre."""
    corners = _hexahedron(mesh)
    elements = np.arange(mesh.t.shape[1])
    faces = [face_nodes_of(mesh, elements, corners[list(f)]) for f in _HEX_FACES]
    return np.vstack([_hexahedron20(mesh), np.array(faces), interior_nodes(mesh, elements)])


def _quad8_facet(mesh: skfem.Mesh, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Eight-node quadrilaterals ``(a, b, c, d, ab, bc, cd, da)``."""
    f2e = mesh.f2e[:, facets]
    mids = [midpoint_nodes(mesh, f2e, verts[i], verts[(i + 1) % 4]) for i in range(4)]
    return np.vstack([verts, *mids])


def _quad9_facet(mesh: skfem.Mesh, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Nine-node quadrilaterals ``(a, b, c, d, ab, bc, cd, da, centre)``."""
    return np.vstack([_quad8_facet(mesh, facets, verts), face_nodes(mesh, facets)])


_QUAD_MIDSIDES = ((4, 0, 1), (5, 1, 2), (6, 2, 3), (7, 3, 0))
# eight-node quadrilateral faces: four corner triangles and the inner quadrilateral of the
# midside nodes as two triangles; int L_v N_j dA / |Q| on a flat parallelogram (the corner
# functions integrate to -1/12 of it; on other faces the weights are integrated on the face):
# 0 for the vertex itself, -1/36 for the other vertices,
# 4/36 for the two adjacent midside nodes and 2/36 for the two others; every row sums to 1/4
_QUAD8 = FacetLayout(
    skfem.ElementQuadS2, 8, 4, _quad8_facet,
    ((0, 4, 7), (4, 1, 5), (5, 2, 6), (6, 3, 7), (4, 5, 7), (5, 6, 7)), _QUAD_MIDSIDES,
    tuple(tuple(w / 36.0 for w in row)
          for row in ((0, -1, -1, -1, 4, 2, 2, 4), (-1, 0, -1, -1, 4, 4, 2, 2),
                      (-1, -1, 0, -1, 2, 4, 4, 2), (-1, -1, -1, 0, 2, 2, 4, 4))),
    quad8_vertex_weights)
# nine-node quadrilateral faces: four bilinear quadrilaterals around the centre; the shape
# functions integrate to 1/36, 1/9 and 4/9 of the face, so every node carries its multiplier
_QUAD9 = FacetLayout(
    skfem.ElementQuad2, 9, 4, _quad9_facet,
    ((0, 4, 8, 7), (4, 1, 5, 8), (8, 5, 2, 6), (7, 8, 6, 3)), _QUAD_MIDSIDES)

Q2 = register(ElementKind(
    "Q2", (Cell(skfem.MeshQuad1, skfem.ElementQuad2, "quad9", _quad9, _SEGMENT3,
                (skfem.MeshQuad2, MeshQuad9), nodes_per_vertex=4.0, intorder=5),
           Cell(skfem.MeshHex1, skfem.ElementHex2, "hexahedron27", _hexahedron27, _QUAD9,
                (skfem.MeshHex2, MeshHex27), nodes_per_vertex=8.0, intorder=5)),
    quadratic=True, aliases=("Q9",),
    description="biquadratic 9-node quadrilaterals and triquadratic 27-node hexahedra"))
Q2S = register(ElementKind(
    "Q2S", (Cell(skfem.MeshQuad1, skfem.ElementQuadS2, "quad8", _facet_midpoints, _SEGMENT3,
                 (MeshQuad8,), nodes_per_vertex=3.0, intorder=5),
            Cell(skfem.MeshHex1, skfem.ElementHexS2, "hexahedron20", _hexahedron20, _QUAD8,
                 (MeshHex20,), nodes_per_vertex=4.0, intorder=5)),
    quadratic=True, aliases=("Q8",),
    description="serendipity 8-node quadrilaterals and 20-node hexahedra"))
