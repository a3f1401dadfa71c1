"""Element checks of a mesh: corner Jacobians, degenerate and inverted elements.

:func:`corner_jacobians` evaluates ``det J`` at the reference corners of
every element; :func:`element_findings` turns it into findings: non-finite
coordinates, degenerate elements (relative corner Jacobian at most
:data:`DEGENERATE`), and inverted ones (corner Jacobians of both signs, or
neighbours folded over their shared facet).  A body is refused when its mesh
has a finding (:meth:`fecontact.bodies.body.ElasticBody.create`); the checks of a
whole model are in :mod:`fecontact.case.checks`.
"""

from __future__ import annotations

import numpy as np
import skfem


#: relative corner Jacobian below which an element counts as degenerate
DEGENERATE = 1e-8


def format_point(x: np.ndarray) -> str:
    """A point or vector as ``(x, y[, z])`` with six significant digits, for messages."""
    return "(" + ", ".join(f"{v:.6g}" for v in x) + ")"


def corner_jacobians(mesh: skfem.Mesh) -> np.ndarray:
    r"""``det J`` of every element at each reference corner, shape (n_elements, n_corners).

    ``J = sum_i x_i (grad N_i)^T`` with the element's reference shape
    functions ``N_i`` evaluated at its reference vertices (constant for
    simplices; for quadrilaterals and hexahedra a sign change between corners
    means a twisted or non-convex element).
    """
    corners = type(mesh).init_refdom().p                       # (dim, n_corners)
    x = mesh.p[:, mesh.t]                                      # (dim, n_vertices, n_elements)
    if isinstance(mesh, (skfem.MeshTri1, skfem.MeshTet1)):
        # linear simplices: J = [x_1 - x_0, ..., x_d - x_0] at every corner
        edges = np.moveaxis(x[:, 1:, :] - x[:, :1, :], -1, 0)    # (n_elements, dim, dim)
        det = np.linalg.det(edges)
        return np.repeat(det[:, None], corners.shape[1], axis=1)
    element = mesh.elem()
    J = 0.0
    for i in range(mesh.t.shape[0]):
        _, grad = element.lbasis(corners, i)                   # (dim, n_corners)
        J = J + x[:, i, None, None, :] * grad[None, :, :, None]  # (dim, dim, n_corners, n_el)
    return np.linalg.det(np.moveaxis(J, (0, 1), (-2, -1))).T


def element_findings(mesh: skfem.Mesh) -> list:
    """Problems of a mesh as ``(kind, element index, message)``; empty when the mesh is sound."""
    out = []
    p, t = mesh.p, mesh.t
    bad = ~np.all(np.isfinite(p), axis=0)
    if np.any(bad):
        node = int(np.flatnonzero(bad)[0])
        return [("coordinates", node, f"node {node} has non-finite coordinates "
                                      f"({int(bad.sum())} such nodes)")]
    dim = p.shape[0]
    det = corner_jacobians(mesh)                              # (n_elements, n_corners)
    extent = np.linalg.norm(p[:, t].max(axis=1) - p[:, t].min(axis=1), axis=0)   # (n_elements,)
    rel = det / np.maximum(extent, 1e-300)[:, None] ** dim
    degenerate = np.min(np.abs(rel), axis=1) <= DEGENERATE
    if np.any(degenerate):
        e = int(np.flatnonzero(degenerate)[0])
        out.append(("degenerate", e, f"element {e} at {format_point(p[:, t[:, e]].mean(axis=1))} is "
                                     f"degenerate (zero area or volume; elements affected: "
                                     f"{int(degenerate.sum())}); fix the mesh"))
        return out
    twisted = np.any(np.sign(rel) != np.sign(rel[:, :1]), axis=1)
    # neighbours on the same side of their shared facet: a fold
    interior = np.flatnonzero(mesh.f2t[1] >= 0)
    fv = mesh.facets[:, interior]
    c = p[:, fv].mean(axis=1)
    if dim == 2:
        edge = p[:, fv[1]] - p[:, fv[0]]
        normal = np.array([edge[1], -edge[0]])
    else:
        normal = np.cross(p[:, fv[1]] - p[:, fv[0]], p[:, fv[2]] - p[:, fv[0]], axis=0)
    centroid = p[:, t].mean(axis=1)
    side_a = np.einsum("ij,ij->j", normal, centroid[:, mesh.f2t[0, interior]] - c)
    side_b = np.einsum("ij,ij->j", normal, centroid[:, mesh.f2t[1, interior]] - c)
    folded = np.zeros(t.shape[1], dtype=bool)
    folded[mesh.f2t[:, interior[side_a * side_b > 0]].ravel()] = True
    inverted = twisted | folded
    if np.any(inverted):
        e = int(np.flatnonzero(inverted)[0])
        why = ("its corner Jacobians change sign (twisted or non-convex)" if twisted[e]
               else "it overlaps a neighbour across their shared facet")
        out.append(("inverted", e, f"element {e} at {format_point(centroid[:, e])} is inverted: {why} "
                                   f"(elements affected: {int(inverted.sum())}); fix the mesh"))
    return out
