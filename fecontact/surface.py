"""Contact surfaces built from named boundaries of a body.

A surface is a set of DOF nodes (the slave nodes when it is the slave side)
and of straight segments between them (used when it is the master side).
Quadratic edges are split at their midpoint into two straight segments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import skfem

from .bodies import ELEMENTS, Body


@dataclass(frozen=True)
class ContactSurface:
    """Nodes, segments and lumped nodal areas of one named boundary.

    Attributes
    ----------
    body : int
        Index of the body in the problem.
    boundary : str
    nodes : ndarray of int, shape (n,)
        Body-local DOF nodes on the surface, sorted.
    segments : ndarray of int, shape (2, n_seg)
        Body-local DOF nodes of each straight segment, ordered so the body is
        on the left of ``a -> b`` (outward normal ``(t_y, -t_x)``).
    area : ndarray, shape (n,)
        Lumped nodal area ``A_i = int_Gamma phi_i ds`` (length in 2D).
    """

    body: int
    boundary: str
    nodes: np.ndarray
    segments: np.ndarray
    area: np.ndarray


def contact_surface(body: Body, body_index: int, boundary: str) -> ContactSurface:
    """Build the contact surface of ``body`` on the named ``boundary``."""
    facets = body.facets(boundary)
    if facets.size == 0:
        raise ValueError(f"body {body.name!r}: boundary {boundary!r} is empty")
    if body.dim != 2:
        raise NotImplementedError("contact surfaces are implemented in 2D")
    ab = body.oriented_facets(facets)
    if body.has_facet_nodes:
        mid = body.mesh.p.shape[1] + facets
        segments = np.hstack([np.vstack([ab[0], mid]), np.vstack([mid, ab[1]])])
    else:
        segments = ab
    nodes = body.facet_nodes(facets)
    scalar = ELEMENTS[body.element][1]()
    fb = skfem.FacetBasis(body.mesh, scalar, facets=facets)
    area_all = skfem.LinearForm(lambda v, w: 1.0 * v).assemble(fb)
    return ContactSurface(body_index, boundary, nodes, segments, area_all[nodes])
