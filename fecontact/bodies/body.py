"""Elastic bodies: a scikit-fem mesh, a vector basis and a material.

A body's degrees of freedom are grouped by *DOF node*: a mesh vertex, or for
quadratic elements also an edge midpoint.  Component ``c`` of DOF node ``k``
is the body-local DOF ``dim*k + c`` (scikit-fem's interleaved layout, checked
on construction for P2 and Q1; for P1 it is the vertex numbering, see
:attr:`ElasticBody.node_dofs`).  DOF nodes are ordered vertices first, then edge
midpoints (3D) or facet midpoints (2D, where facets are edges).

The scikit-fem basis of a P1 body is built only when first used
(:attr:`ElasticBody.basis`): the stiffness, the von Mises output, DOF numbering and
node coordinates of P1 bodies do without it, which matters on meshes of a
million DOFs where the basis holds gigabytes of quadrature data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import skfem

from .elasticity import Material

# element name -> dimension -> (mesh type, scalar element type)
ELEMENTS = {
    "P1": {2: (skfem.MeshTri1, skfem.ElementTriP1), 3: (skfem.MeshTet1, skfem.ElementTetP1)},
    "P2": {2: (skfem.MeshTri1, skfem.ElementTriP2), 3: (skfem.MeshTet1, skfem.ElementTetP2)},
    "Q1": {2: (skfem.MeshQuad1, skfem.ElementQuad1), 3: (skfem.MeshHex1, skfem.ElementHex1)},
}


def element_types(element: str, dim: int) -> tuple:
    """``(mesh type, scalar element type)`` of an element name in ``dim`` dimensions."""
    return ELEMENTS[element][dim]


@dataclass(frozen=True)
class ElasticBody:
    """An elastic body.

    Attributes
    ----------
    name : str
    mesh : skfem.Mesh
    element : str
        One of ``ELEMENTS``: ``"P1"``, ``"P2"`` (triangles, tetrahedra) or
        ``"Q1"`` (quadrilaterals, hexahedra).
    material : Material
    basis : skfem.Basis
        Vector basis of the displacement (a cached property: for P1 bodies
        built on first access, for the others when the body is created).
    """

    name: str
    mesh: skfem.Mesh
    element: str
    material: Material

    @staticmethod
    def create(name: str, mesh: skfem.Mesh, element: str, material: Material) -> "ElasticBody":
        """A body checked for a supported element, mesh type and sound elements.

        Parameters
        ----------
        name : str
        mesh : skfem.Mesh
            2D or 3D mesh of the type the element needs (``MeshTri1``/``MeshTet1``
            for P1 and P2, ``MeshQuad1``/``MeshHex1`` for Q1).
        element : str
            ``"P1"``, ``"P2"`` or ``"Q1"``.
        material : Material

        Returns
        -------
        ElasticBody

        Raises
        ------
        ValueError
            For an unknown element, a mesh of the wrong type or dimension, or a
            degenerate or inverted element (:func:`fecontact.mesh.quality.element_findings`).
        RuntimeError
            If the scikit-fem basis of a P2 or Q1 body does not number its DOFs
            in the interleaved layout ``dim*k + c``.
        """
        if element not in ELEMENTS:
            raise ValueError(f"body {name!r}: unknown element {element!r}; "
                             f"choose one of {sorted(ELEMENTS)}")
        dim = mesh.dim()
        if dim not in (2, 3):
            raise ValueError(f"body {name!r}: meshes must be 2D or 3D, got {dim}D")
        mesh_type, _ = element_types(element, dim)
        if not isinstance(mesh, mesh_type):
            raise ValueError(f"body {name!r}: element {element} needs a {mesh_type.__name__} "
                             f"mesh, got {type(mesh).__name__}")
        from ..mesh.quality import element_findings

        for _, _, message in element_findings(mesh):
            raise ValueError(f"mesh of body {name!r}: {message}")
        body = ElasticBody(name, mesh, element, material)
        if element != "P1":
            expected = dim * np.arange(body.n_nodes)[None, :] + np.arange(dim)[:, None]
            if not np.array_equal(body.node_dofs, expected):
                raise RuntimeError("unexpected DOF layout in the scikit-fem basis")
        return body

    @cached_property
    def basis(self) -> skfem.Basis:
        """Vector basis of the displacement, built on first access."""
        _, elem = element_types(self.element, self.dim)
        return skfem.Basis(self.mesh, skfem.ElementVector(elem()))

    @property
    def is_linear_simplex(self) -> bool:
        """True for P1 triangles and tetrahedra: the DOF nodes are the mesh vertices."""
        return self.element == "P1"

    @property
    def dim(self) -> int:
        """Spatial dimension of the mesh, 2 or 3."""
        return self.mesh.dim()

    @property
    def has_edge_nodes(self) -> bool:
        """True for quadratic elements (a DOF node at every edge midpoint)."""
        return self.element == "P2"

    @property
    def node_dofs(self) -> np.ndarray:
        """DOFs of every DOF node, shape (dim, n_nodes): ``node_dofs[c, k] = dim*k + c``."""
        if self.is_linear_simplex:
            n, dim = self.n_nodes, self.dim
            return dim * np.arange(n)[None, :] + np.arange(dim)[:, None]
        parts = [self.basis.nodal_dofs]
        for extra in (self.basis.edge_dofs, self.basis.facet_dofs):
            if extra.size:
                parts.append(extra)
        return np.hstack(parts)

    def edge_node(self, edges: np.ndarray) -> np.ndarray:
        """DOF node at the midpoint of mesh edges (facets in 2D), quadratic elements only."""
        return self.mesh.p.shape[1] + np.asarray(edges)

    def midpoint_node(self, candidates: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Edge-midpoint DOF node between vertices ``a`` and ``b`` (3D).

        Parameters
        ----------
        candidates : ndarray of int, shape (k, n)
            Edges of each of ``n`` facets or elements (``mesh.f2e[:, facets]``
            or ``mesh.t2e``), one of which joins ``a[i]`` and ``b[i]``.
        a, b : ndarray of int, shape (n,)
        """
        ends = np.sort(self.mesh.edges[:, candidates], axis=0)        # (2, k, n)
        match = (ends[0] == np.minimum(a, b)) & (ends[1] == np.maximum(a, b))
        if not np.all(match.sum(axis=0) == 1):
            raise RuntimeError("inconsistent edge table")
        return self.edge_node(candidates[match.argmax(axis=0), np.arange(candidates.shape[1])])

    @property
    def n_nodes(self) -> int:
        """Number of DOF nodes (for P1 the number of mesh vertices)."""
        if self.is_linear_simplex:
            return self.mesh.p.shape[1]
        return self.basis.N // self.dim

    @property
    def node_coords(self) -> np.ndarray:
        """Reference coordinates of the DOF nodes, shape (dim, n_nodes).

        For P1 a read-only view of the mesh vertices; otherwise the basis's
        DOF locations (the same up to round-off at the vertices).
        """
        if self.is_linear_simplex:
            coords = self.mesh.p.view()
            coords.flags.writeable = False
            return coords
        return self.basis.doflocs[:, self.node_dofs[0]]

    def facets(self, boundary: str) -> np.ndarray:
        """Facet indices of a named boundary; a clear error lists the known names."""
        names = sorted((self.mesh.boundaries or {}).keys())
        if boundary not in (self.mesh.boundaries or {}):
            raise KeyError(f"body {self.name!r} has no boundary {boundary!r}; "
                           f"the mesh has: {', '.join(names) or '(none)'}")
        return np.asarray(self.mesh.boundaries[boundary])

    def facet_nodes(self, facets: np.ndarray) -> np.ndarray:
        """DOF nodes lying on the given facets (vertices and edge midpoints), sorted."""
        nodes = [self.mesh.facets[:, facets].ravel()]
        if self.has_edge_nodes:
            edges = facets if self.dim == 2 else self.mesh.f2e[:, facets].ravel()
            nodes.append(self.edge_node(edges))
        return np.unique(np.concatenate(nodes))

    def boundary_nodes(self, boundary: str) -> np.ndarray:
        """DOF nodes on a named boundary (vertices and, for P2, edge midpoints), sorted.

        Parameters
        ----------
        boundary : str
            A name in ``mesh.boundaries``.

        Returns
        -------
        ndarray of int, shape (n,)
            Body-local DOF node indices.
        """
        return self.facet_nodes(self.facets(boundary))

    def oriented_facets(self, facets: np.ndarray) -> np.ndarray:
        """Vertices of boundary facets ordered so that they face outwards.

        Returns
        -------
        ndarray, shape (n_vertices_per_facet, n_facets)
            2D: ``(a, b)`` with the body on the left of ``a -> b``, so the
            outward normal is ``(t_y, -t_x)`` with ``t = x_b - x_a``.
            3D: triangle or quadrilateral vertices in cyclic order with the
            outward normal ``(x_1 - x_0) x (x_2 - x_0)`` (right-hand rule).
        """
        m = self.mesh
        verts = m.facets[:, facets].copy()
        element = m.f2t[0, facets]
        centroid = m.p[:, m.t[:, element]].mean(axis=1)
        p0, p1, p2 = (m.p[:, verts[i]] for i in range(3)) if self.dim == 3 else (
            m.p[:, verts[0]], m.p[:, verts[1]], None)
        if self.dim == 2:
            t = p1 - p0
            w = centroid - p0
            inward = t[0] * w[1] - t[1] * w[0] > 0       # body on the left: keep
            flip = ~inward
        else:
            normal = np.cross(p1 - p0, p2 - p0, axis=0)
            flip = np.einsum("in,in->n", normal, centroid - p0) > 0
        verts[:, flip] = verts[::-1, flip]
        return verts
