r"""Contact surfaces built from named boundaries of a body.

A surface is a set of DOF nodes (the slave nodes when it is the slave side)
and of flat facets between them (used when it is the master side): straight
segments in 2D, triangles or bilinear quadrilaterals in 3D.  The element
kind's facet layout (:class:`fecontact.mesh.elements.FacetLayout`) orders
each facet's nodes and splits quadratic facets at their edge midpoints into
linear pieces (two segments in 2D, four triangles in 3D).

*Tractions on quadratic surfaces.*  Layouts with vertex weights
(:attr:`~fecontact.mesh.elements.FacetLayout.vertex_weights`) carry the
tractions on their vertices.  On a six-node triangle the vertex
shape functions integrate to zero, so nodal tractions with lumped forces
``A_j lam_j`` cannot represent even a uniform pressure, and a multiplier at
every node with the gap held at every node (pointwise) is unstable: vertex
and midside pressures fall on two branches.  Quadratic 3D slave surfaces
therefore carry their tractions on the *vertices* only, with the linear
field ``t_h = sum_v L_v lam_v`` over each six-node triangle (``L_v``: the
barycentric hat of vertex ``v``; the pressure space of a Taylor–Hood
pair).  The contact condition of vertex ``v`` holds for its weighted gap
and slip (a slave-side mortar on a node-to-facet kinematics),

.. math::

    \tilde g_v = \frac{1}{A_v}\sum_j W_{vj}\, g_j, \qquad
    W_{vj} = \int_\Gamma L_v N_j \,\mathrm{d}A, \qquad A_v = \sum_j W_{vj} = \int_\Gamma L_v,

with ``g_j`` the gap of node ``j`` (vertex or midside) to the master and
``N_j`` the quadratic shape functions; the slips likewise, each node's slip
turned into vertex ``v``'s tangent basis.  The force on node ``j`` is then
``sum_v W_vj lam_v``, the transpose of the same operator: consistent (a
uniform pressure loads the vertices with nothing and the midsides with a
third of the facet each) and symmetric.  Midside nodes carry no multiplier:
their area is 0 and their contact rows only hold their traction at zero
(``row_scale`` scales those rows); a committed state shows them the
traction and status interpolated from the two ends of their edge
(:attr:`ContactSurface.interpolation`).  2D quadratic surfaces keep a
multiplier at every node: there the integrals of the shape functions of a
three-node segment are positive (1/6, 1/6, 2/3 of its length).

*Clamped slave nodes.*  A slave node whose every displacement component is
prescribed (:func:`clamped_nodes`) has a contact condition that no unknown
can satisfy: its gap and slip move with the prescribed motion only (and,
against a deformable master, with the master's).  Like an overconstraint
that Abaqus resolves by removing the node from the slave surface, such a
node is left out of the contact constraints of its pair
(:func:`fecontact.contact.pairs.pair_kinematics`): its multiplier is zero,
its status open, and the contact force it would carry goes to the support
that holds it, in that support's reaction.  :func:`warn_clamped` logs one
line per pair naming the nodes.  In a mortar pair the slave surface of the
integrals is the surface without the facets that touch a clamped node
(:func:`mortar_surface`): the neighbours' dual functions then span only the
facets left, and the pair builds the constraints of a slave surface that
stops before the node.

*Axisymmetric bodies.*  On a body of revolution meshed in the ``(r, z)``
plane (:attr:`fecontact.bodies.body.ElasticBody.axisymmetric`, ``x[0] = r``)
every surface integral carries the circumference ``2 pi r`` of the
reference configuration: the nodal area is

.. math::

    A_j = \int_\Gamma 2\pi r\, N_j \,\mathrm{d}s,

the area of the revolved surface that node ``j`` carries, so the nodal
force ``A_j lam_j`` is the total over the full circumference and the
multiplier ``lam_j`` stays the pressure.  The node's *size* (the length
the automatic augmentation ``E*/h`` and the open gaps of uncovered nodes
need) is then its plain lumped length ``int N_j ds``
(:attr:`ContactSurface.length`, :attr:`ContactSurface.size`); on a node at
the axis ``A_j`` is of order ``h^2`` and no size.
"""

from __future__ import annotations

import logging
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
import skfem

from ..bodies.axisymmetric import axis_nodes, ring_weight
from ..bodies.body import ElasticBody
from ..bodies.system import BulkSystem
from ..mesh.elements import P2, FacetLayout
from ..mesh.quality import format_point

#: Clamped slave nodes named one by one in the warning of a pair (:func:`warn_clamped`)
NAMED = 5

logger = logging.getLogger(__name__)

# pairs already warned about clamped slave nodes: id -> weak reference
_WARNED: dict = {}


@dataclass(frozen=True)
class ContactSurface:
    """Nodes, facets, nodal areas and force weights of one named boundary.

    Attributes
    ----------
    body : int
        Index of the body in the problem.
    boundary : str
    nodes : ndarray of int, shape (n,)
        Body-local DOF nodes on the surface, sorted.
    facets : ndarray of int, shape (v, n_facets)
        Body-local DOF nodes of each linear facet, ``v = 2`` (segments),
        ``3`` (triangles) or ``4`` (quadrilaterals, cyclic order).  They are
        ordered to face outwards: in 2D the body is on the left of ``a -> b``
        (outward normal ``(t_y, -t_x)``), in 3D the outward normal is
        ``(x_1 - x_0) x (x_2 - x_0)``.
    area : ndarray, shape (n,)
        Nodal area ``A_i = int_Gamma phi_i ds`` of the traction basis (length
        in 2D): the integral of the node's shape function on linear facets
        and 2D quadratic ones, of the vertex's hat ``L_v`` on quadratic 3D
        facets, whose midside nodes carry no traction basis (area 0).
    multiplier_map : scipy.sparse.csr_matrix, shape (n, n), or None
        Quadratic 3D surfaces: ``W[v, j] / A_v`` (module docstring), the
        weights of the nodal gaps and slips in the contact condition of node
        ``v``; rows of midside nodes are empty.  ``None`` where every node's
        own gap and slip enter its condition.
    interpolation : scipy.sparse.csr_matrix, shape (n, n), or None
        Quadratic 3D surfaces: the nodal values of the traction field
        ``t_h`` from its vertex values (identity on vertices, the mean of
        the edge's two ends on midside nodes).
    row_scale : ndarray, shape (n,), or None
        Scale of each node's contact row and its size for the augmentation:
        ``area`` where it is positive; on midside nodes of quadratic 3D
        facets one third of the linear pieces that touch them.  ``None``:
        ``area``.
    axisymmetric : bool
        The surface of a body of revolution (``x[0] = r``): :attr:`area` is
        ``int 2 pi r N_j ds`` and the mortar integrals carry ``2 pi r``
        (module docstring).
    length : ndarray, shape (n,), or None
        Axisymmetric surfaces: the plain nodal lengths ``int_Gamma N_j ds``
        (:attr:`size`).  ``None`` otherwise.
    """

    body: int
    boundary: str
    nodes: np.ndarray
    facets: np.ndarray
    area: np.ndarray
    multiplier_map: sp.csr_matrix | None = None
    interpolation: sp.csr_matrix | None = None
    row_scale: np.ndarray | None = None
    axisymmetric: bool = False
    length: np.ndarray | None = None

    @property
    def scale(self) -> np.ndarray:
        """Row scale of every node: :attr:`row_scale`, or :attr:`area`."""
        return self.area if self.row_scale is None else self.row_scale

    @property
    def size(self) -> np.ndarray:
        """Size ``h`` of every node, shape (n,): its lumped length in 2D (:attr:`length` on
        axisymmetric surfaces, else :attr:`scale`), the square root of :attr:`scale` in 3D."""
        if self.length is not None:
            return self.length
        return self.scale if self.dim == 2 else np.sqrt(self.scale)

    @property
    def dim(self) -> int:
        """Spatial dimension, 2 for segment facets, 3 for triangles or quadrilaterals."""
        return 2 if self.facets.shape[0] == 2 else 3


#: ``W_vj / |T| = int_T L_v N_j dA / |T|`` on a flat six-node triangle, nodes (a, b, c, ab, bc, ca)
#: (the P2 tetrahedron's :attr:`fecontact.mesh.elements.FacetLayout.vertex_weights`)
VERTEX_WEIGHTS = np.array(P2.cell(3).facets.vertex_weights)


def _piece_measure(coords: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Length (2 rows) or area (3 rows, 4 rows: flat quadrilaterals) of linear pieces, shape (n,)."""
    p = [coords[:, pieces[i]] for i in range(pieces.shape[0])]
    if len(p) == 2:
        return np.linalg.norm(p[1] - p[0], axis=0)
    if len(p) == 4:
        return 0.5 * np.linalg.norm(np.cross(p[2] - p[0], p[3] - p[1], axis=0), axis=0)
    return 0.5 * np.linalg.norm(np.cross(p[1] - p[0], p[2] - p[0], axis=0), axis=0)


def _vertex_multipliers(body: ElasticBody, layout: FacetLayout, quad: np.ndarray, nodes: np.ndarray):
    """Linear pieces, areas, multiplier map, interpolation and row scales of quadratic facets ``quad``.

    ``quad`` holds the DOF nodes of every facet in the order of ``layout``,
    whose vertex weights define the multipliers (module docstring).
    """
    pieces = [quad[list(piece)] for piece in layout.pieces]
    measure = np.array([_piece_measure(body.node_coords, p) for p in pieces])      # (k, n_facets)
    local = np.searchsorted(nodes, quad)                                            # (size, n_facets)
    n = nodes.size
    if layout.weights is not None:                                                  # (n_f, c, size)
        # on the faces' own geometry: curved through every node, else flat through the vertices
        W_facet = layout.weights(body.node_coords[:, quad if body.curved else quad[:layout.corners]])
    else:
        W_facet = measure.sum(axis=0)[:, None, None] * np.array(layout.vertex_weights)
    rows = np.broadcast_to(local[:layout.corners].T[:, :, None], W_facet.shape)
    cols = np.broadcast_to(local.T[:, None, :], W_facet.shape)
    W = sp.csr_matrix((W_facet.ravel(), (rows.ravel(), cols.ravel())), shape=(n, n))
    area = np.asarray(W.sum(axis=1)).ravel()
    vertex = area > 0.0
    inv = np.divide(1.0, area, out=np.zeros(n), where=vertex)
    multiplier_map = (sp.diags(inv) @ W).tocsr()
    # lumped area of every node's linear pieces: the size of a midside node's row
    lumped = np.zeros(n)
    for piece, m in zip(layout.pieces, measure):
        np.add.at(lumped, local[list(piece)].ravel(), np.tile(m / len(piece), len(piece)))
    # every midside node: the mean of its edge's two ends
    mid = np.hstack([local[e[0]] for e in layout.midsides])
    a = np.hstack([local[e[1]] for e in layout.midsides])
    b = np.hstack([local[e[2]] for e in layout.midsides])
    mid, first = np.unique(mid, return_index=True)
    v = np.flatnonzero(vertex)
    interpolation = sp.csr_matrix(
        (np.concatenate([np.ones(v.size), np.full(2 * mid.size, 0.5)]),
         (np.concatenate([v, mid, mid]), np.concatenate([v, a[first], b[first]]))), shape=(n, n))
    return np.hstack(pieces), area, multiplier_map, interpolation, np.where(vertex, area, lumped)


def contact_surface(body: ElasticBody, body_index: int, boundary: str) -> ContactSurface:
    """Build the contact surface of ``body`` on the named ``boundary``."""
    facets = body.facets(boundary)
    if facets.size == 0:
        raise ValueError(f"body {body.name!r}: boundary {boundary!r} is empty")
    cell = body.kind.cell(body.dim)
    layout = cell.facets
    ordered = layout.nodes(body.mesh, facets, body.oriented_facets(facets))   # (size, n_facets)
    nodes = np.unique(ordered)
    if layout.vertex_weights is not None:
        linear, area, W, P, scale = _vertex_multipliers(body, layout, ordered, nodes)
        return ContactSurface(body_index, boundary, nodes, linear, area, W, P, scale)
    verts = np.hstack([ordered[list(piece)] for piece in layout.pieces])
    if body.axisymmetric:
        _refuse_axis_facets(body, boundary, verts)
    scalar = cell.element()
    with transient_mapping(body.geometry):
        fb = skfem.FacetBasis(body.geometry, scalar, facets=facets)
        length_all = skfem.LinearForm(lambda v, w: 1.0 * v).assemble(fb)
        if body.axisymmetric:
            area_all = skfem.LinearForm(lambda v, w: ring_weight(w.x) * v).assemble(fb)
        del fb
    if not body.axisymmetric:
        return ContactSurface(body_index, boundary, nodes, verts, length_all[nodes])
    return ContactSurface(body_index, boundary, nodes, verts, area_all[nodes], axisymmetric=True,
                          length=length_all[nodes])


def _refuse_axis_facets(body: ElasticBody, boundary: str, segments: np.ndarray) -> None:
    """A ValueError for segments of an axisymmetric surface that lie on the axis ``r = 0``.

    Such a segment revolves into no surface (area 0): a node all of whose
    segments lie there would carry a contact row of zero area.
    """
    on_axis = np.all(np.isin(segments, axis_nodes(body.node_coords, f"body {body.name!r}")), axis=0)
    if on_axis.any():
        x = body.node_coords[:, segments[:, on_axis][0]]
        raise ValueError(
            f"body {body.name!r}: surface {boundary!r} has {int(on_axis.sum())} segment(s) on the "
            f"axis r = 0 (first from {format_point(x[:, 0])}), which revolve into no surface; "
            "leave the axis out of the contact surface")


@contextmanager
def transient_mapping(mesh: skfem.Mesh):
    """Let a scikit-fem basis made inside the block not keep its reference mapping on ``mesh``.

    A basis on ``mesh`` (a :class:`skfem.FacetBasis` on a few boundary
    facets too) maps every element and every facet of the mesh, and
    scikit-fem caches that mapping on the mesh: on a tetrahedral mesh
    about 0.5 kB per DOF, held for the rest of the run.  A mapping made
    inside the block is dropped from the mesh at its end (one that was
    there before is kept): a later basis makes it again, the same.
    """
    had = hasattr(mesh, "_cached_mapping")
    try:
        yield mesh
    finally:
        if not had and hasattr(mesh, "_cached_mapping"):
            del mesh._cached_mapping


def clamped_nodes(surface: ContactSurface, system: BulkSystem) -> np.ndarray:
    """The nodes of ``surface`` whose every displacement component is prescribed, shape (n,) of bool.

    A prescribed component is a Dirichlet DOF (:attr:`fecontact.bodies.system.BulkSystem.fixed`);
    a DOF of a coupling or a tie follows an unknown and is not prescribed.
    """
    dofs = system.node_dofs(system.global_nodes(surface.body, surface.nodes))
    return np.all(system.fixed[dofs], axis=1)


def clamped_message(pair_name: str, surface: ContactSurface, system: BulkSystem,
                    clamped: np.ndarray) -> str:
    """The warning line for the clamped slave nodes ``clamped`` (bool, (n,)) of one pair."""
    body = system.bodies[surface.body]
    nodes = surface.nodes[clamped]
    supports = sorted({bc.name for bc in system.dirichlet
                       if bc.body == surface.body and np.isin(bc.nodes, nodes).any()})
    named = ", ".join(f"{int(j)} at {format_point(body.node_coords[:, j])}" for j in nodes[:NAMED])
    more = f" and {nodes.size - NAMED} more" if nodes.size > NAMED else ""
    several = nodes.size > 1
    return (f"contact {pair_name!r}: slave node{'s' if several else ''} {named}{more} of body "
            f"{body.name!r} (boundary {surface.boundary!r}) {'have' if several else 'has'} every "
            f"displacement component prescribed (support{'s' if len(supports) > 1 else ''} "
            f"{', '.join(repr(n) for n in supports)}), so no unknown can satisfy "
            f"{'their' if several else 'its'} contact condition (an overconstraint): "
            f"{'they are' if several else 'it is'} left out of the pair's contact constraints "
            f"(zero pressure, open) and {'their' if several else 'its'} contact force is "
            f"carried by the support, in its reaction")


def warn_clamped(pair, system: BulkSystem, clamped: np.ndarray) -> None:
    """Log :func:`clamped_message` once per contact pair ``pair`` (a ContactPair)."""
    ref = _WARNED.get(id(pair))
    if ref is not None and ref() is pair:
        return
    _WARNED[id(pair)] = weakref.ref(pair)
    logger.warning(clamped_message(pair.name, pair.slave, system, clamped))


def node_integrals(coords: np.ndarray, facets: np.ndarray, axisymmetric: bool = False) -> np.ndarray:
    """``int_f N_j dA`` of every node ``j`` of every linear facet ``f``, shape (v, n_facets).

    Segments: half the length; triangles: a third of the area; bilinear
    quadrilaterals: 2 x 2 Gauss points (exact on flat ones).  Axisymmetric
    segments (``x[0] = r``): the revolved area ``int_f 2 pi r N_j ds =
    2 pi L (2 r_j + r_k) / 6`` (:func:`revolved_node_integrals`).

    Parameters
    ----------
    coords : ndarray, shape (d, n_nodes)
        Node coordinates of the body.
    facets : ndarray of int, shape (v, n_facets)
    axisymmetric : bool
    """
    v = facets.shape[0]
    if axisymmetric:
        return revolved_node_integrals(coords, facets)
    if v < 4:
        return np.tile(_piece_measure(coords, facets) / v, (v, 1))
    x = coords[:, facets]                                                   # (3, 4, n_f)
    out = np.zeros(facets.shape)
    for a in (0.5 - 0.5 / np.sqrt(3.0), 0.5 + 0.5 / np.sqrt(3.0)):
        for b in (0.5 - 0.5 / np.sqrt(3.0), 0.5 + 0.5 / np.sqrt(3.0)):
            N = np.array([(1 - a) * (1 - b), a * (1 - b), a * b, (1 - a) * b])
            da = (1 - b) * (x[:, 1] - x[:, 0]) + b * (x[:, 2] - x[:, 3])
            db = (1 - a) * (x[:, 3] - x[:, 0]) + a * (x[:, 2] - x[:, 1])
            out += 0.25 * N[:, None] * np.linalg.norm(np.cross(da, db, axis=0), axis=0)
    return out


def revolved_node_integrals(coords: np.ndarray, segments: np.ndarray) -> np.ndarray:
    r"""``int_f 2 pi r N_j ds`` of both nodes of every segment ``f`` of the ``(r, z)`` plane, shape (2, n).

    With ``r`` linear along the segment of length ``L`` and end radii
    ``r_1``, ``r_2``: ``2 pi L (2 r_1 + r_2) / 6`` and ``2 pi L (r_1 + 2 r_2) / 6``;
    their sum is the area ``pi L (r_1 + r_2)`` of the revolved frustum.

    Parameters
    ----------
    coords : ndarray, shape (2, n_nodes)
        Node coordinates ``(r, z)``.
    segments : ndarray of int, shape (2, n)
    """
    r = coords[0, segments]                                             # (2, n)
    length = _piece_measure(coords, segments)
    return (np.pi / 3.0) * length * np.array([2.0 * r[0] + r[1], r[0] + 2.0 * r[1]])


def mortar_surface(surface: ContactSurface, clamped: np.ndarray, coords: np.ndarray) -> ContactSurface:
    """The slave surface of a mortar pair's integrals: ``surface`` without the facets touching a clamped node.

    The nodes stay (the rows keep their order); the area of a node that
    touched a removed facet is the integral of its shape function over the
    facets left, so the dual functions of the clamped node's neighbours
    span those facets only, as on a slave surface that stops before the
    node, and their rows are that surface's.  A node left without facets
    (the clamped node) keeps its area and has no contribution: its row is
    open (:meth:`fecontact.contact.mortar2d.MortarRows.finish`).

    Parameters
    ----------
    surface : ContactSurface
        A surface of linear facets (segments, triangles, quadrilaterals).
    clamped : ndarray of bool, shape (n,)
        :func:`clamped_nodes`.
    coords : ndarray, shape (d, n_nodes)
        Reference node coordinates of the surface's body.

    Returns
    -------
    ContactSurface
        ``surface`` itself where no node is clamped.
    """
    if not clamped.any():
        return surface
    rows = np.searchsorted(surface.nodes, surface.facets)                 # (v, n_facets)
    removed = clamped[rows].any(axis=0)
    kept = np.bincount(rows[:, ~removed].ravel(), minlength=surface.nodes.size) > 0

    def left(nodal, axisymmetric):
        lost = np.bincount(rows[:, removed].ravel(), minlength=surface.nodes.size,
                           weights=node_integrals(coords, surface.facets[:, removed],
                                                  axisymmetric).ravel())
        return np.where(kept, nodal - lost, nodal)

    length = None if surface.length is None else left(surface.length, False)
    return replace(surface, facets=surface.facets[:, ~removed],
                   area=left(surface.area, surface.axisymmetric), length=length)


def on_axis(surface: ContactSurface, body: ElasticBody) -> np.ndarray:
    """Which nodes of a surface lie on the axis ``r = 0`` of an axisymmetric body, shape (n,) of bool.

    Those nodes carry no shear traction (symmetry): the friction laws release
    them (:class:`fecontact.friction.batch.FrictionBatch`).  All False for a
    surface that is not axisymmetric.
    """
    if not surface.axisymmetric:
        return np.zeros(surface.nodes.size, dtype=bool)
    return np.isin(surface.nodes, axis_nodes(body.node_coords, f"body {body.name!r}"))
