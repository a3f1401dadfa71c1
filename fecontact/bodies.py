"""Elastic bodies: a scikit-fem mesh, a vector basis and a material.

A body's degrees of freedom are grouped by *DOF node*: a mesh vertex, or for
quadratic elements also an edge midpoint.  Component ``c`` of DOF node ``k``
is the body-local DOF ``dim*k + c`` (scikit-fem's interleaved layout, checked
on construction).  DOF nodes are ordered vertices first, then facet DOFs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import skfem

from .elasticity import Material

# element name -> (mesh type, scalar element type)
ELEMENTS = {
    "P1": (skfem.MeshTri1, skfem.ElementTriP1),
    "P2": (skfem.MeshTri1, skfem.ElementTriP2),
    "Q1": (skfem.MeshQuad1, skfem.ElementQuad1),
}


@dataclass(frozen=True)
class Body:
    """An elastic body.

    Attributes
    ----------
    name : str
    mesh : skfem.Mesh
    element : str
        One of ``ELEMENTS`` (``"P1"``, ``"P2"``, ``"Q1"``).
    material : Material
    basis : skfem.Basis
        Vector basis of the displacement.
    """

    name: str
    mesh: skfem.Mesh
    element: str
    material: Material
    basis: skfem.Basis = field(repr=False)

    @staticmethod
    def create(name: str, mesh: skfem.Mesh, element: str, material: Material) -> "Body":
        if element not in ELEMENTS:
            raise ValueError(f"body {name!r}: unknown element {element!r}; "
                             f"choose one of {sorted(ELEMENTS)}")
        mesh_type, elem = ELEMENTS[element]
        if not isinstance(mesh, mesh_type):
            raise ValueError(f"body {name!r}: element {element} needs a {mesh_type.__name__} "
                             f"mesh, got {type(mesh).__name__}")
        basis = skfem.Basis(mesh, skfem.ElementVector(elem()))
        body = Body(name, mesh, element, material, basis)
        dim = body.dim
        expected = dim * np.arange(body.n_nodes)[None, :] + np.arange(dim)[:, None]
        if not np.array_equal(body.node_dofs, expected):
            raise RuntimeError("unexpected DOF layout in the scikit-fem basis")
        return body

    @property
    def dim(self) -> int:
        return self.mesh.dim()

    @property
    def has_facet_nodes(self) -> bool:
        return self.basis.facet_dofs.shape[1] > 0 and self.basis.facet_dofs.size > 0

    @property
    def node_dofs(self) -> np.ndarray:
        """DOFs of every DOF node, shape (dim, n_nodes)."""
        parts = [self.basis.nodal_dofs]
        if self.basis.facet_dofs.size:
            parts.append(self.basis.facet_dofs)
        return np.hstack(parts)

    @property
    def n_nodes(self) -> int:
        return self.basis.N // self.dim

    @property
    def node_coords(self) -> np.ndarray:
        """Reference coordinates of the DOF nodes, shape (dim, n_nodes)."""
        return self.basis.doflocs[:, self.node_dofs[0]]

    def facets(self, boundary: str) -> np.ndarray:
        """Facet indices of a named boundary; a clear error lists the known names."""
        names = sorted((self.mesh.boundaries or {}).keys())
        if boundary not in (self.mesh.boundaries or {}):
            raise KeyError(f"body {self.name!r} has no boundary {boundary!r}; "
                           f"the mesh has: {', '.join(names) or '(none)'}")
        return np.asarray(self.mesh.boundaries[boundary])

    def facet_nodes(self, facets: np.ndarray) -> np.ndarray:
        """DOF nodes lying on the given facets (vertices and facet midpoints), sorted."""
        nodes = [self.mesh.facets[:, facets].ravel()]
        if self.has_facet_nodes:
            nodes.append(self.mesh.p.shape[1] + facets)
        return np.unique(np.concatenate(nodes))

    def boundary_nodes(self, boundary: str) -> np.ndarray:
        return self.facet_nodes(self.facets(boundary))

    def oriented_facets(self, facets: np.ndarray) -> np.ndarray:
        """Vertex pairs of 2D boundary facets ordered with the body on the left.

        Returns
        -------
        ndarray, shape (2, n_facets)
            ``(a, b)`` such that the outward normal is ``(t_y, -t_x)`` with
            ``t = x_b - x_a``.
        """
        m = self.mesh
        ab = m.facets[:, facets].copy()
        element = m.f2t[0, facets]
        centroid = m.p[:, m.t[:, element]].mean(axis=1)
        pa, pb = m.p[:, ab[0]], m.p[:, ab[1]]
        t = pb - pa
        w = centroid - pa
        left = t[0] * w[1] - t[1] * w[0] > 0
        ab[:, ~left] = ab[::-1, ~left]
        return ab
