r"""Fast assembly for linear (P1) triangles and tetrahedra.

On a simplex the gradients of the barycentric coordinates (the P1 shape
functions) are constant, so the bulk stiffness of linear elasticity needs no
quadrature: every element contributes

.. math::

    K^e_{ai,bj} = |e| \left(\lambda\, g_{a,i} g_{b,j} + \mu\, g_{a,j} g_{b,i}
                  + \mu\, \delta_{ij}\, g_a \cdot g_b\right),

with ``g_a`` the gradient of the barycentric coordinate of the element's
vertex ``a`` and ``|e|`` its measure (area or volume).  The row DOF
``(a, i)`` is component ``i`` of vertex ``a``.  This module assembles these
blocks with vectorised numpy and gives the same matrix as a scikit-fem
``BilinearForm`` to round-off, in scikit-fem's interleaved layout: component
``c`` of vertex ``k`` is DOF ``dim*k + c``.  It needs neither the
``(dim+1)^2 dim^2 x n_elements x n_points`` arrays of a form nor quadrature,
which is what makes million-DOF bodies affordable (the decision record
``docs/developer/decisions/p1-assembly-by-node-pairs.md``; the assembly times
are on the performance pages).

Arrays follow scikit-fem: coordinates ``p`` have shape ``(dim, n_vertices)``
and the connectivity ``t`` has shape ``(dim+1, n_elements)``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp


def simplex_gradients(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Gradients of the barycentric coordinates and measures of simplices.

    With the edge matrix ``J = [x_1 - x_0, ..., x_d - x_0]`` (columns), the
    barycentric coordinates ``lambda_1..lambda_d`` of a point ``x`` are
    ``J^{-1} (x - x_0)``, so ``grad lambda_k`` is row ``k`` of ``J^{-1}``
    and ``grad lambda_0 = -sum_k grad lambda_k``.  The rows of ``J^{-1}`` are
    formed from cofactors (cross products in 3D); the measure is
    ``|det J| / d!``.

    Parameters
    ----------
    p : ndarray, shape (dim, n_vertices)
        Vertex coordinates, ``dim`` 2 (triangles) or 3 (tetrahedra).
    t : ndarray of int, shape (dim+1, n_elements)
        Vertices of every element.

    Returns
    -------
    gradients : ndarray, shape (n_elements, dim+1, dim)
        ``gradients[e, a]`` is the gradient of the barycentric coordinate
        of vertex ``t[a, e]`` on element ``e`` (a transposed view of an
        array stored element index last).
    measures : ndarray, shape (n_elements,)
        Areas (2D) or volumes (3D), positive whatever the orientation.
        Degenerate elements (zero measure) give non-finite gradients;
        :meth:`fecontact.bodies.body.ElasticBody.create` rejects such meshes.

    Raises
    ------
    ValueError
        If the shapes do not describe triangles or tetrahedra.
    """
    gradients, measures = _vertex_gradients(p, t)
    return gradients.transpose(2, 0, 1), measures


def _vertex_gradients(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`simplex_gradients` stored element index last: shapes (dim+1, dim, n_el) and (n_el,).

    Every component is a contiguous array over the elements, which keeps the
    vectorised arithmetic on long rows.
    """
    dim = p.shape[0]
    if dim not in (2, 3) or t.shape[0] != dim + 1:
        raise ValueError(f"need triangles or tetrahedra: p has shape {p.shape}, t {t.shape}")
    x0 = p[:, t[0]]                                                # (dim, n_el)
    edges = [p[:, t[k]] - x0 for k in range(1, dim + 1)]           # dim x (dim, n_el)
    del x0
    rows, det = _adjugate_rows(edges)
    gradients = np.empty((dim + 1, dim, t.shape[1]))
    for k, row in enumerate(rows, start=1):
        np.divide(row, det, out=gradients[k])
    np.sum(gradients[1:], axis=0, out=gradients[0])
    np.negative(gradients[0], out=gradients[0])
    return gradients, np.abs(det) / math.factorial(dim)


def _adjugate_rows(edges: list) -> tuple[list, np.ndarray]:
    """Rows of ``det(J) J^{-1}`` and ``det J`` for the edge columns of ``J``, each (dim, n_el)."""
    if len(edges) == 2:
        e1, e2 = edges
        det = e1[0] * e2[1] - e1[1] * e2[0]
        return [np.stack([e2[1], -e2[0]]), np.stack([-e1[1], e1[0]])], det
    e1, e2, e3 = edges
    rows = [_cross(e2, e3), _cross(e3, e1), _cross(e1, e2)]
    det = e1[0] * rows[0][0] + e1[1] * rows[0][1] + e1[2] * rows[0][2]
    return rows, det


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products of 3-vectors stored as columns, shape (3, n)."""
    return np.stack([a[1] * b[2] - a[2] * b[1],
                     a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def p1_stiffness(p: np.ndarray, t: np.ndarray, lam, mu) -> sp.csr_matrix:
    r"""Isotropic linear-elastic stiffness of P1 triangles or tetrahedra.

    Assembles ``K_{ai,bj} = sum_e |e| (lam g_a,i g_b,j + mu g_a,j g_b,i
    + mu delta_ij g_a . g_b)`` (see the module docstring): the node pairs
    ``(t[a], t[b])`` of all elements are keyed ``t[a]*N + t[b]`` (int64),
    one sort gives the block pattern, one :func:`numpy.bincount` per
    component ``(i, j)`` sums the element contributions into ``dim x dim``
    blocks, and a block-sparse matrix is converted to CSR.  Peak memory is
    about three times that of the result.

    Parameters
    ----------
    p : ndarray, shape (dim, N)
        Vertex coordinates.
    t : ndarray of int, shape (dim+1, n_elements)
        Element vertices.
    lam, mu : float or ndarray, shape (n_elements,)
        Lamé parameters (in 2D those of the plane model, see
        :meth:`fecontact.bodies.elasticity.Material.lame`): one value for
        the whole mesh, or one per element (a body of several materials,
        :meth:`fecontact.bodies.body.ElasticBody.element_lame`).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (dim*N, dim*N)
        Symmetric, with sorted column indices; DOF ``dim*k + c`` is
        component ``c`` of vertex ``k``.  Every vertex pair sharing an
        element has a full ``dim x dim`` block (entries that happen to
        vanish are kept).  Vertices in no element have empty rows and
        columns.
    """
    dim, n = p.shape
    for name, value in (("lam", lam), ("mu", mu)):
        if np.ndim(value) not in (0, 1) or (np.ndim(value) == 1 and len(value) != t.shape[1]):
            raise ValueError(f"{name} must be one value or one per element ({t.shape[1]}), "
                             f"got shape {np.shape(value)}")
    gradients, measures = _vertex_gradients(p, t)
    block_of_pair, block_rows, block_cols = block_pattern(t, n)
    data = np.empty((block_rows.size, dim, dim))
    dots = np.einsum("aie,bie->abe", gradients, gradients)          # (dim+1, dim+1, n_el)
    for i in range(dim):
        for j in range(dim):
            local = _element_component(gradients, dots, measures, lam, mu, i, j)
            data[:, i, j] = np.bincount(block_of_pair, weights=local.ravel(),
                                        minlength=block_rows.size)
            del local
    del block_of_pair, dots, gradients
    indptr = np.concatenate([[0], np.cumsum(np.bincount(block_rows, minlength=n))])
    del block_rows
    K = sp.bsr_matrix((data, block_cols, indptr), shape=(dim * n, dim * n), blocksize=(dim, dim))
    del data, block_cols
    K = K.tocsr()
    if not K.has_sorted_indices:
        K.sort_indices()
    return K


def block_pattern(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block pattern of the vertex pairs of every element.

    Shared by :func:`p1_stiffness` and the finite-strain assembly
    (:mod:`fecontact.bodies.p1_finite_strain`).

    Parameters
    ----------
    t : ndarray of int, shape (dim+1, n_elements)
        Element vertices.
    n : int
        Number of vertices.

    Returns
    -------
    block_of_pair : ndarray of int64, shape ((dim+1)**2 * n_elements,)
        Block index of the pair ``(t[a, e], t[b, e])``, ordered ``(a, b, e)``.
    block_rows, block_cols : ndarray of int, shape (n_blocks,)
        Vertex pair of every block, sorted by row, then column.
    """
    vertices = t.astype(np.int64)
    keys = (vertices[:, None, :] * n + vertices[None, :, :]).ravel()
    del vertices
    # np.unique(keys, return_inverse=True), spelt out: twice as fast on large meshes
    order = np.argsort(keys)
    sorted_keys = keys[order]
    del keys
    first = np.empty(sorted_keys.size, dtype=bool)
    first[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    unique_keys = sorted_keys[first]
    del sorted_keys
    block_of_pair = np.empty(order.size, dtype=np.int64)
    block_of_pair[order] = np.cumsum(first) - 1
    del order, first
    block_rows, block_cols = np.divmod(unique_keys, n)
    index = np.int32 if n < np.iinfo(np.int32).max else np.int64
    return block_of_pair, block_rows, block_cols.astype(index)


def _element_component(gradients, dots, measures, lam, mu, i, j) -> np.ndarray:
    """Component ``(i, j)`` of every element's blocks, shape (dim+1, dim+1, n_el), ordered like the pairs.

    ``gradients`` (dim+1, dim, n_el) and ``dots[a, b] = g_a . g_b`` (dim+1, dim+1, n_el);
    ``lam`` and ``mu`` are scalars or of shape (n_el,).
    """
    g_i, g_j = gradients[:, i], gradients[:, j]                      # (dim+1, n_el)
    if i == j:
        local = (lam + mu) * (g_i[:, None] * g_i[None, :])
        local += mu * dots
    else:
        local = lam * (g_i[:, None] * g_j[None, :])
        local += mu * (g_j[:, None] * g_i[None, :])
    local *= measures
    return local


def p1_displacement_gradients(p: np.ndarray, t: np.ndarray, u: np.ndarray,
                              gradients: np.ndarray | None = None) -> np.ndarray:
    r"""Displacement gradient ``grad u = sum_a u_a (x) g_a`` of every P1 element.

    Parameters
    ----------
    p : ndarray, shape (dim, N)
    t : ndarray of int, shape (dim+1, n_elements)
    u : ndarray, shape (dim*N,)
        Nodal displacements in the interleaved layout (DOF ``dim*k + c``).
    gradients : ndarray, shape (n_elements, dim+1, dim), optional
        From :func:`simplex_gradients`; computed when not given.

    Returns
    -------
    ndarray, shape (dim, dim, n_elements)
        ``G[i, j, e] = d u_i / d x_j`` on element ``e`` (constant there), in
        scikit-fem's ``grad`` convention.
    """
    dim = p.shape[0]
    if gradients is None:
        gradients, _ = simplex_gradients(p, t)
    nodal = np.asarray(u).reshape(-1, dim)                          # (N, dim)
    return np.einsum("aei,eaj->ije", nodal[t], gradients)
