r"""Isoparametric geometry of quadratic bodies: the node positions of a quadratic mesh as a mapping.

A body of a quadratic kind (P2, Q2, Q2S) whose mesh came with curved
quadratic cells (a file of ``triangle6``, ``quad8``, ``quad9``, ``tetra10``,
``hexahedron20`` or ``hexahedron27`` cells, or a scikit-fem ``MeshTri2``,
``MeshQuad2``, ``MeshTet2``, ``MeshHex2``) maps its elements through those
node positions: every basis is built on the *geometry mesh*, the scikit-fem
quadratic mesh of the linear mesh's vertices and elements whose
``doflocs`` are the nodes

.. math::

    x(\xi) = \sum_i x_i \, N_i(\xi),

``N_i`` the shape functions of ``MeshTri2.elem`` (``ElementTriP2``),
``ElementTetP2``, ``ElementQuad2`` or ``ElementHex2``.  The nodes are held in
the numbering scikit-fem gives those elements' DOFs on the linear mesh
(vertices, then edges in 3D, facets, elements: :mod:`fecontact.mesh.dof_nodes`),
so the DOF numbering of a body on the geometry mesh is that of the linear
mesh.  The eight-node quadrilateral and the 20-node hexahedron lack face
and centre nodes: they are interpolated by the serendipity shape functions
of the file's nodes (:func:`complete_nodes`), which leaves the mapping the
serendipity one (the serendipity space is a subspace of the biquadratic
and triquadratic ones).

Example
-------
>>> import numpy as np, skfem
>>> from fecontact.mesh.geometry import geometry_type, node_count
>>> m = skfem.MeshQuad1()
>>> geometry_type(m).__name__, node_count(m)          # 4 vertices, 4 edges, 1 centre
('MeshQuad2', 9)
"""

from __future__ import annotations

import numpy as np
import skfem

__all__ = ["GEOMETRY", "geometry_type", "node_count", "complete_nodes", "nodes_of_quadratic_mesh",
           "geometry_mesh", "curved_findings"]

#: linear scikit-fem mesh type -> the scikit-fem quadratic mesh type of its isoparametric geometry
GEOMETRY = {skfem.MeshTri1: skfem.MeshTri2, skfem.MeshTet1: skfem.MeshTet2,
            skfem.MeshQuad1: skfem.MeshQuad2, skfem.MeshHex1: skfem.MeshHex2}


def geometry_type(mesh: skfem.Mesh) -> type:
    """The scikit-fem quadratic mesh type of a linear mesh's geometry (``MeshQuad2`` of a ``MeshQuad1``)."""
    for linear, quadratic in GEOMETRY.items():
        if isinstance(mesh, linear) and not isinstance(mesh, tuple(GEOMETRY.values())):
            return quadratic
    raise ValueError(f"no quadratic geometry for a {type(mesh).__name__}")


def _dofs(mesh: skfem.Mesh, element: skfem.Element) -> np.ndarray:
    """DOFs of a scalar element on ``mesh`` per element, shape (n_local, n_elements)."""
    return skfem.assembly.Dofs(mesh, element).element_dofs


def node_count(mesh: skfem.Mesh) -> int:
    """Number of geometry nodes of a linear mesh: the DOFs of its quadratic geometry element."""
    return int(skfem.assembly.Dofs(mesh, geometry_type(mesh).elem()).N)


def complete_nodes(mesh: skfem.Mesh, element: skfem.Element, nodes: np.ndarray) -> np.ndarray:
    r"""Geometry nodes interpolated from the nodes of a smaller quadratic element.

    The position of geometry node ``j`` of an element is
    ``x_j = sum_i x_i N_i(X_j)`` with ``N_i`` the shape functions of
    ``element`` and ``X_j`` the reference position of node ``j``: exact on
    the nodes ``element`` has (its shape functions interpolate), the
    serendipity face and centre nodes elsewhere.

    Parameters
    ----------
    mesh : skfem.Mesh
        A linear mesh.
    element : skfem.Element
        A scalar element of nodal DOFs whose DOF numbering on ``mesh`` is a
        prefix of the geometry element's (``ElementQuadS2``, ``ElementHexS2``).
    nodes : ndarray, shape (dim, n)
        Positions of the DOF nodes of ``element`` on ``mesh``.

    Returns
    -------
    ndarray, shape (dim, node_count(mesh))
    """
    target = geometry_type(mesh).elem()
    X = target.doflocs.T                                                 # (dim, n_target)
    A = np.array([element.lbasis(X, i)[0] for i in range(element.doflocs.shape[0])])  # (n_src, n_target)
    local = np.einsum("dik,ij->djk", nodes[:, _dofs(mesh, element)], A)  # (dim, n_target, n_el)
    out = np.zeros((mesh.p.shape[0], node_count(mesh)))
    out[:, _dofs(mesh, target)] = local
    return out


def _row_index(table: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index of each column of ``wanted`` among the columns of ``table`` (vertex tuples, any order)."""
    keys = np.vstack([np.sort(table, axis=0).T, np.sort(wanted, axis=0).T])
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    position = np.full(inverse.max() + 1, -1)
    position[inverse[:table.shape[1]]] = np.arange(table.shape[1])
    return position[inverse[table.shape[1]:]]


def nodes_of_quadratic_mesh(quadratic: skfem.Mesh, mesh: skfem.Mesh, used: np.ndarray) -> np.ndarray:
    """The geometry nodes of a linear mesh made of a scikit-fem quadratic mesh's vertices and elements.

    Edges, facets and elements are matched by their vertices, so the linear
    mesh may order the vertices of an element differently.

    Parameters
    ----------
    quadratic : skfem.MeshTri2, MeshTet2, MeshQuad2 or MeshHex2
    mesh : skfem.Mesh
        The linear mesh: vertex ``i`` is node ``used[i]`` of ``quadratic``,
        element ``k`` element ``k``.
    used : ndarray of int, shape (n_vertices,)

    Returns
    -------
    ndarray, shape (dim, node_count(mesh))
    """
    dofs = quadratic.dofs
    parts = [quadratic.doflocs[:, used]]
    if mesh.dim() == 3 and dofs.edge_dofs.size:
        edge = _row_index(quadratic.edges, used[mesh.edges])
        parts.append(quadratic.doflocs[:, dofs.edge_dofs[0, edge]])
    if dofs.facet_dofs.size:
        facet = _row_index(quadratic.facets, used[mesh.facets])
        parts.append(quadratic.doflocs[:, dofs.facet_dofs[0, facet]])
    if dofs.interior_dofs.size:
        parts.append(quadratic.doflocs[:, dofs.interior_dofs[0]])
    return np.hstack(parts)


def geometry_mesh(mesh: skfem.Mesh, nodes: np.ndarray) -> skfem.Mesh:
    """The scikit-fem quadratic mesh mapping the elements of ``mesh`` through ``nodes``.

    Parameters
    ----------
    mesh : skfem.Mesh
        A linear mesh.
    nodes : ndarray, shape (dim, node_count(mesh))
        Geometry nodes, the first ``n_vertices`` the vertices of ``mesh``.

    Returns
    -------
    skfem.Mesh
        ``MeshTri2``, ``MeshTet2``, ``MeshQuad2`` or ``MeshHex2`` with the
        elements (``t``), boundaries and subdomains of ``mesh``.

    Raises
    ------
    ValueError
        If ``nodes`` does not fit the mesh: another count, or vertices that
        are not those of the mesh (a mesh moved or refined after reading).
    """
    n = node_count(mesh)
    nv = mesh.p.shape[1]
    scale = max(float(np.ptp(mesh.p)), 1e-300)
    if nodes.shape != (mesh.p.shape[0], n) or not np.allclose(nodes[:, :nv], mesh.p, rtol=0.0,
                                                               atol=1e-12 * scale):
        raise ValueError("the quadratic node positions the mesh carries do not fit its vertices "
                         "and elements (moved or refined after reading?); read the mesh again")
    return geometry_type(mesh)(np.ascontiguousarray(nodes, dtype=float), mesh.t,
                               _boundaries=mesh._boundaries, _subdomains=mesh._subdomains)


def curved_findings(geometry: skfem.Mesh) -> list:
    """Curved elements inverted inside: ``det J`` of the mapping changes sign between the element's nodes.

    Parameters
    ----------
    geometry : skfem.Mesh
        A mesh of :func:`geometry_mesh`.

    Returns
    -------
    list of (kind, element index, message)
        As :func:`fecontact.mesh.quality.element_findings`; empty when every
        element's Jacobian keeps its sign at the nodes and the Gauss points of
        order 2.
    """
    element = geometry.elem()
    points = np.hstack([element.doflocs.T,
                        skfem.quadrature.get_quadrature(element.refdom, 2)[0]])
    det = geometry.mapping().detDF(points)                     # (n_elements, n_points)
    bad = np.any(np.sign(det) != np.sign(det[:, :1]), axis=1) | np.any(det == 0.0, axis=1)
    if not np.any(bad):
        return []
    e = int(np.flatnonzero(bad)[0])
    from .quality import format_point

    where = format_point(geometry.p[:, geometry.t[:, e]].mean(axis=1))
    return [("inverted", e, f"curved element {e} at {where} is inverted: the Jacobian of its "
                            f"mapping through its midside nodes changes sign (elements affected: "
                            f"{int(bad.sum())}); fix the mesh")]
