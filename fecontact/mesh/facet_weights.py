r"""Vertex weights of quadratic faces (eight-node quadrilaterals, six-node triangles), integrated on each face.

The contact multipliers of a quadratic 3D surface whose corner shape
functions integrate negatively live on the vertices
(:mod:`fecontact.contact.surface`), with the weights

.. math::

    W_{vj} = \int_F L_v N_j \,\mathrm{d}A ,

``L_v`` the bilinear hat of vertex ``v`` and ``N_j`` the serendipity shape
function of node ``j`` of the face ``F``.  On a six-node triangle, an affine
map, ``W / |F|`` is one constant matrix; on a quadrilateral face it is so
only for parallelograms.  Here ``W`` is integrated on the bilinear face of
the four corners with 3 x 3 Gauss points: exact on every flat face (the
integrand is of degree 4 in each reference coordinate), so that a uniform
traction gives the consistent nodal forces ``int N_j dA`` and the contact
patch test holds on unstructured hexahedra.

Given every node of a face (a body with curved, isoparametric elements,
:mod:`fecontact.mesh.geometry`), the face is the quadratic one through its
nodes: ``dA`` is that of the serendipity (six-node triangle) map, and the
same rule integrates it (exact on flat faces, the curved ones to the
rule's order).  The six-node triangle's weights
(:func:`triangle6_vertex_weights`) use scikit-fem's order-4 rule, exact on
flat triangles, where ``W / |T|`` is the constant of
:attr:`fecontact.mesh.elements.FacetLayout.vertex_weights`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["quad8_vertex_weights", "triangle6_vertex_weights"]

# reference corners (a, b, c, d) and midsides (ab, bc, cd, da) of [-1, 1]^2, in cyclic order
_CORNERS = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
_MIDSIDES = np.array([(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)])


def _gauss_3x3() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(xi, eta, weight)`` of the 3 x 3 Gauss rule on [-1, 1]^2, each shape (9,)."""
    g, w = np.polynomial.legendre.leggauss(3)
    xi, eta = np.meshgrid(g, g, indexing="ij")
    return xi.ravel(), eta.ravel(), np.outer(w, w).ravel()


def _shapes(xi: np.ndarray, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear hats ``L`` (4, q), their derivatives ``dL/dxi``, ``dL/deta`` (4, q), serendipity ``N`` (8, q)."""
    a, b = _CORNERS[:, :1], _CORNERS[:, 1:]                       # (4, 1)
    L = 0.25 * (1 + a * xi) * (1 + b * eta)
    dxi = 0.25 * a * (1 + b * eta)
    deta = 0.25 * b * (1 + a * xi)
    corner = L * (a * xi + b * eta - 1.0)
    ma, mb = _MIDSIDES[:, :1], _MIDSIDES[:, 1:]
    mid = np.where(ma == 0.0, 0.5 * (1 - xi**2) * (1 + mb * eta), 0.5 * (1 + ma * xi) * (1 - eta**2))
    return L, dxi, deta, np.vstack([corner, mid])


def _serendipity_derivatives(xi: np.ndarray, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``dN/dxi``, ``dN/deta`` of the eight serendipity shape functions, each shape (8, q)."""
    a, b = _CORNERS[:, :1], _CORNERS[:, 1:]
    L = 0.25 * (1 + a * xi) * (1 + b * eta)
    s = a * xi + b * eta - 1.0
    c_xi = 0.25 * a * (1 + b * eta) * s + L * a
    c_eta = 0.25 * b * (1 + a * xi) * s + L * b
    ma, mb = _MIDSIDES[:, :1], _MIDSIDES[:, 1:]
    m_xi = np.where(ma == 0.0, -xi * (1 + mb * eta), 0.5 * ma * (1 - eta**2))
    m_eta = np.where(ma == 0.0, 0.5 * mb * (1 - xi**2), -eta * (1 + ma * xi))
    return np.vstack([c_xi, m_xi]), np.vstack([c_eta, m_eta])


def quad8_vertex_weights(corners: np.ndarray) -> np.ndarray:
    """``W[f, v, j] = int_F L_v N_j dA`` of eight-node faces ``(a, b, c, d, ab, bc, cd, da)``.

    Parameters
    ----------
    corners : ndarray, shape (3, 4, n) or (3, 8, n)
        Coordinates of the corners ``a, b, c, d`` of ``n`` faces, in cyclic
        order (the bilinear face), or of all eight nodes (the curved face).

    Returns
    -------
    ndarray, shape (n, 4, 8)
        Each row ``v`` sums to ``int_F L_v dA``; on a flat parallelogram
        ``W / |F|`` is ``(0, -1, -1, -1, 4, 2, 2, 4) / 36`` for ``v = a``.
    """
    xi, eta, weight = _gauss_3x3()
    L, dxi, deta, N = _shapes(xi, eta)                                 # (4, q), (8, q)
    if corners.shape[1] == 8:
        dxi, deta = _serendipity_derivatives(xi, eta)                  # the curved face's map
    t_xi = np.einsum("dcn,cq->dqn", corners, dxi)                      # (3, q, n)
    t_eta = np.einsum("dcn,cq->dqn", corners, deta)
    area = np.linalg.norm(np.cross(t_xi, t_eta, axis=0), axis=0) * weight[:, None]   # (q, n)
    return np.einsum("vq,jq,qn->nvj", L, N, area)


def triangle6_vertex_weights(nodes: np.ndarray) -> np.ndarray:
    """``W[f, v, j] = int_T L_v N_j dA`` of six-node triangles ``(a, b, c, ab, bc, ca)``.

    ``L_v`` the barycentric coordinate of vertex ``v``, ``N_j`` the
    quadratic shape function of node ``j``.

    Parameters
    ----------
    nodes : ndarray, shape (3, 3, n) or (3, 6, n)
        Coordinates of the vertices of ``n`` triangles (flat triangles) or of
        all six nodes (curved triangles).

    Returns
    -------
    ndarray, shape (n, 3, 6)
        On a flat triangle ``W / |T|`` is ``(2, -1, -1, 8, 4, 8) / 60`` for ``v = a``.
    """
    from skfem.refdom import RefTri
    from skfem.quadrature import get_quadrature

    X, weight = get_quadrature(RefTri, 4)                              # (2, q), (q,), sum 1/2
    lam = np.vstack([1.0 - X[0] - X[1], X[0], X[1]])                   # (3, q)
    dlam = np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])              # (2, 3): d lam_v / d X_k
    edges = ((0, 1), (1, 2), (2, 0))
    N = np.vstack([lam * (2 * lam - 1), *(4 * lam[i] * lam[j] for i, j in edges)])   # (6, q)
    if nodes.shape[1] == 6:
        dN = np.stack([np.vstack([(4 * lam - 1) * dlam[k][:, None],
                                  *(4 * (dlam[k][i] * lam[j] + lam[i] * dlam[k][j]) for i, j in edges)])
                       for k in range(2)])                             # (2, 6, q)
    else:
        dN = np.broadcast_to(dlam[:, :, None], (2, 3, X.shape[1]))     # (2, 3, q)
    t = np.einsum("dcn,kcq->kdqn", nodes, dN)                          # (2, 3, q, n)
    area = np.linalg.norm(np.cross(t[0], t[1], axis=0), axis=0) * weight[:, None]   # (q, n)
    return np.einsum("vq,jq,qn->nvj", lam, N, area)
