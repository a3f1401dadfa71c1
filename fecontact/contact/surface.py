"""Contact surfaces built from named boundaries of a body.

A surface is a set of DOF nodes (the slave nodes when it is the slave side)
and of flat facets between them (used when it is the master side): straight
segments in 2D, triangles or bilinear quadrilaterals in 3D.  Quadratic
facets are split at their edge midpoints into linear pieces (two segments in
2D, four triangles in 3D).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import skfem

from ..bodies.body import ElasticBody, element_types


@dataclass(frozen=True)
class ContactSurface:
    """Nodes, facets and lumped nodal areas of one named boundary.

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
        Lumped nodal area ``A_i = int_Gamma phi_i ds`` (length in 2D).  For
        quadratic tetrahedra, whose vertex functions integrate to zero on a
        facet, ``A_i`` is one third of the area of every linear sub-triangle
        that touches node ``i``.
    """

    body: int
    boundary: str
    nodes: np.ndarray
    facets: np.ndarray
    area: np.ndarray

    @property
    def dim(self) -> int:
        """Spatial dimension, 2 for segment facets, 3 for triangles or quadrilaterals."""
        return 2 if self.facets.shape[0] == 2 else 3


def _split_quadratic(body: ElasticBody, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    if body.dim == 2:
        mid = body.edge_node(facets)
        return np.hstack([np.vstack([verts[0], mid]), np.vstack([mid, verts[1]])])
    a, b, c = verts
    f2e = body.mesh.f2e[:, facets]
    ab, bc, ca = (body.midpoint_node(f2e, *pair) for pair in ((a, b), (b, c), (c, a)))
    return np.hstack([np.vstack(t) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))])


def _triangle_lumped_area(coords: np.ndarray, triangles: np.ndarray, n_nodes: int) -> np.ndarray:
    """One third of each triangle's area to each of its vertices, shape (n_nodes,)."""
    p0, p1, p2 = (coords[:, triangles[i]] for i in range(3))
    area = 0.5 * np.linalg.norm(np.cross(p1 - p0, p2 - p0, axis=0), axis=0)
    return np.bincount(triangles.ravel(), weights=np.tile(area / 3.0, 3), minlength=n_nodes)


def contact_surface(body: ElasticBody, body_index: int, boundary: str) -> ContactSurface:
    """Build the contact surface of ``body`` on the named ``boundary``."""
    facets = body.facets(boundary)
    if facets.size == 0:
        raise ValueError(f"body {body.name!r}: boundary {boundary!r} is empty")
    verts = body.oriented_facets(facets)
    linear = _split_quadratic(body, facets, verts) if body.has_edge_nodes else verts
    nodes = body.facet_nodes(facets)
    if body.dim == 3 and body.has_edge_nodes:
        area_all = _triangle_lumped_area(body.node_coords, linear, body.n_nodes)
    else:
        scalar = element_types(body.element, body.dim)[1]()
        fb = skfem.FacetBasis(body.mesh, scalar, facets=facets)
        area_all = skfem.LinearForm(lambda v, w: 1.0 * v).assemble(fb)
    return ContactSurface(body_index, boundary, nodes, linear, area_all[nodes])
