r"""Vertex weights of eight-node quadrilateral faces, integrated on each face's own geometry.

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
"""

from __future__ import annotations

import numpy as np

__all__ = ["quad8_vertex_weights"]

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


def quad8_vertex_weights(corners: np.ndarray) -> np.ndarray:
    """``W[f, v, j] = int_F L_v N_j dA`` of eight-node faces ``(a, b, c, d, ab, bc, cd, da)``.

    Parameters
    ----------
    corners : ndarray, shape (3, 4, n)
        Coordinates of the corners ``a, b, c, d`` of ``n`` faces, in cyclic order.

    Returns
    -------
    ndarray, shape (n, 4, 8)
        Each row ``v`` sums to ``int_F L_v dA``; on a flat parallelogram
        ``W / |F|`` is ``(0, -1, -1, -1, 4, 2, 2, 4) / 36`` for ``v = a``.
    """
    xi, eta, weight = _gauss_3x3()
    L, dxi, deta, N = _shapes(xi, eta)                                 # (4, q), (8, q)
    t_xi = np.einsum("dcn,cq->dqn", corners, dxi)                      # (3, q, n)
    t_eta = np.einsum("dcn,cq->dqn", corners, deta)
    area = np.linalg.norm(np.cross(t_xi, t_eta, axis=0), axis=0) * weight[:, None]   # (q, n)
    return np.einsum("vq,jq,qn->nvj", L, N, area)
