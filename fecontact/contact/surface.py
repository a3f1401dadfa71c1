"""Contact surfaces built from named boundaries of a body.

A surface is a set of DOF nodes (the slave nodes when it is the slave side)
and of flat facets between them (used when it is the master side): straight
segments in 2D, triangles or bilinear quadrilaterals in 3D.  Quadratic
facets are split at their edge midpoints into linear pieces (two segments in
2D, four triangles in 3D).

*Tractions on quadratic surfaces.*  The nodal tractions ``lam_i`` of a slave
surface are the nodal values of a traction field ``t_h = sum_i phi_i lam_i``
(``phi_i``: piecewise linear on the linear facets, so ``int phi_i > 0``).
On linear facets the force on node ``j`` is the lumped ``A_j lam_j``,
``A_j = int phi_j``.  On quadratic facets the vertex functions of a
six-node triangle integrate to zero, so a lumped force ``A_j lam_j`` cannot
represent even a uniform pressure (it loads the vertices, which the
consistent load of a uniform pressure leaves unloaded).  There the force on
node ``j`` is the consistent one,

.. math::

    f_j = \\sum_i D_{ji}\\, \\lambda_i, \\qquad
    D_{ji} = \\int_{\\Gamma} N_j\\, \\phi_i \\,\\mathrm{d}A,

with ``N_j`` the quadratic shape functions; ``sum_j D_ji = A_i``, so the
resultant of a node's traction is unchanged and only its distribution over
the slave facet's nodes is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import skfem

from ..bodies.body import ElasticBody, element_types


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
        in 2D): the integral of the node's shape function on linear facets,
        one third (one half in 2D) of every linear sub-facet that touches the
        node on quadratic ones.
    force_weights : scipy.sparse.csr_matrix, shape (n, n), or None
        Quadratic surfaces: ``D[j, i] = int_Gamma N_j phi_i dA``, the force on
        node ``j`` of a unit traction at node ``i`` (module docstring);
        column sums ``A``.  ``None`` on linear surfaces, where the force is
        ``A_i lam_i`` on node ``i`` itself.
    """

    body: int
    boundary: str
    nodes: np.ndarray
    facets: np.ndarray
    area: np.ndarray
    force_weights: sp.csr_matrix | None = None

    @property
    def dim(self) -> int:
        """Spatial dimension, 2 for segment facets, 3 for triangles or quadrilaterals."""
        return 2 if self.facets.shape[0] == 2 else 3


def _quadratic_nodes(body: ElasticBody, facets: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Nodes of quadratic facets: ``(a, b, m)`` in 2D, ``(a, b, c, ab, bc, ca)`` in 3D."""
    if body.dim == 2:
        return np.vstack([verts, body.edge_node(facets)])
    a, b, c = verts
    f2e = body.mesh.f2e[:, facets]
    mids = [body.midpoint_node(f2e, *pair) for pair in ((a, b), (b, c), (c, a))]
    return np.vstack([a, b, c, *mids])


# linear pieces of a quadratic facet, as positions in the rows of _quadratic_nodes
_PIECES = {2: ((0, 2), (2, 1)), 3: ((0, 3, 5), (3, 1, 4), (5, 4, 2), (3, 4, 5))}
# reference positions of the quadratic facet's nodes
_REF_NODES = {2: np.array([[0.0], [1.0], [0.5]]),
              3: np.array([[0, 0], [1, 0], [0, 1], [0.5, 0], [0.5, 0.5], [0, 0.5]], dtype=float)}


def _quadratic_shape(dim: int, xi: np.ndarray) -> np.ndarray:
    """Quadratic shape functions of a 3-node segment or 6-node triangle at ``xi`` (q, dim-1), shape (nodes, q)."""
    if dim == 2:
        s = xi[:, 0]
        return np.array([(1 - s) * (1 - 2 * s), s * (2 * s - 1), 4 * s * (1 - s)])
    s, r = xi[:, 0], xi[:, 1]
    l0 = 1 - s - r
    return np.array([l0 * (2 * l0 - 1), s * (2 * s - 1), r * (2 * r - 1), 4 * l0 * s, 4 * s * r, 4 * r * l0])


def _piece_rule(dim: int):
    """Quadrature on a unit linear piece: barycentric points (q, dim) and weights (q,) summing to 1."""
    if dim == 2:
        g, w = np.polynomial.legendre.leggauss(3)
        s = (g + 1) / 2
        return np.column_stack([1 - s, s]), w / 2
    a, b = 0.445948490915965, 0.091576213509771
    bary = np.array([[a, a, 1 - 2 * a], [a, 1 - 2 * a, a], [1 - 2 * a, a, a],
                     [b, b, 1 - 2 * b], [b, 1 - 2 * b, b], [1 - 2 * b, b, b]])
    return bary, np.repeat([0.223381589678011, 0.109951743655322], 3)


def piece_force_weights(dim: int) -> np.ndarray:
    r"""``R[s, j, i] = (1/|s|) int_s N_j phi_i``: quadratic shape ``N_j`` against the piece's linear ``phi_i``.

    Per unit measure of each linear piece ``s`` of the reference quadratic
    facet (exact: the integrand is cubic), shape (pieces, nodes, nodes);
    ``D = sum_s |s| R[s]`` for a facet with piece measures ``|s|``.
    """
    bary, w = _piece_rule(dim)
    pieces, ref = _PIECES[dim], _REF_NODES[dim]
    out = np.zeros((len(pieces), ref.shape[0], ref.shape[0]))
    for k, piece in enumerate(pieces):
        xi = bary @ ref[list(piece)]                                    # (q, dim-1)
        shape = _quadratic_shape(dim, xi)                                # (nodes, q)
        out[k][:, list(piece)] = (shape * w) @ bary
    return out


def _piece_measure(coords: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Length (2 rows) or area (3 rows) of linear pieces, shape (n,)."""
    p = [coords[:, pieces[i]] for i in range(pieces.shape[0])]
    if len(p) == 2:
        return np.linalg.norm(p[1] - p[0], axis=0)
    return 0.5 * np.linalg.norm(np.cross(p[1] - p[0], p[2] - p[0], axis=0), axis=0)


def _quadratic_weights(body: ElasticBody, quad: np.ndarray, nodes: np.ndarray):
    """Linear pieces, nodal areas and force weights of quadratic facets ``quad``."""
    R = piece_force_weights(body.dim)
    pieces = [quad[list(piece)] for piece in _PIECES[body.dim]]
    measure = np.array([_piece_measure(body.node_coords, p) for p in pieces])      # (s, n_facets)
    D_facet = np.einsum("sf,sji->fji", measure, R)                                  # (n_facets, v, v)
    local = np.searchsorted(nodes, quad)                                            # (v, n_facets)
    v = quad.shape[0]
    rows = np.broadcast_to(local.T[:, :, None], (quad.shape[1], v, v))
    cols = np.broadcast_to(local.T[:, None, :], (quad.shape[1], v, v))
    D = sp.csr_matrix((D_facet.ravel(), (rows.ravel(), cols.ravel())), shape=(nodes.size,) * 2)
    return np.hstack(pieces), np.asarray(D.sum(axis=0)).ravel(), D


def contact_surface(body: ElasticBody, body_index: int, boundary: str) -> ContactSurface:
    """Build the contact surface of ``body`` on the named ``boundary``."""
    facets = body.facets(boundary)
    if facets.size == 0:
        raise ValueError(f"body {body.name!r}: boundary {boundary!r} is empty")
    verts = body.oriented_facets(facets)
    nodes = body.facet_nodes(facets)
    if body.has_edge_nodes and body.dim == 3:
        linear, area, D = _quadratic_weights(body, _quadratic_nodes(body, facets, verts), nodes)
        return ContactSurface(body_index, boundary, nodes, linear, area, D)
    if body.has_edge_nodes:
        verts = _quadratic_nodes(body, facets, verts)
        verts = np.hstack([verts[list(piece)] for piece in _PIECES[2]])
    scalar = element_types(body.element, body.dim)[1]()
    fb = skfem.FacetBasis(body.mesh, scalar, facets=facets)
    area_all = skfem.LinearForm(lambda v, w: 1.0 * v).assemble(fb)
    return ContactSurface(body_index, boundary, nodes, verts, area_all[nodes])
