r"""Linear triangle and bilinear quadrilateral facets in a plane: maps, inverse maps, dual functions.

Used by the facet-to-facet (mortar) integration of
:mod:`fecontact.contact.mortar3d_quad`.  A facet with vertices ``P_a`` in a
plane (2D coordinates) is the map

.. math::

    X(\xi, \eta) = a_0 + a_1\,\xi + a_2\,\eta + a_3\,\xi\eta,

on the unit triangle ``xi, eta >= 0, xi + eta <= 1`` with ``a_3 = 0`` for a
triangle (shape functions ``1 - xi - eta, xi, eta``), on ``[-1, 1]^2`` for a
quadrilateral with vertices in cyclic order (``N_a = (1 + xi_a xi)(1 + eta_a
eta)/4``, corners ``(-1,-1), (1,-1), (1,1), (-1,1)``).  The coefficients are
jets or arrays alike; :func:`inverse` finds ``(xi, eta)`` of a point: closed
form for triangles, Newton for quadrilaterals (in floats to convergence, then
two Newton steps in jets, which give the exact gradient and Hessian of the
root: a Newton step from the root is the identity to first order, so the
first step carries the first derivatives and the second the second ones).

Dual functions (:func:`dual_coefficients`).  On a slave facet ``e`` with
shape functions ``N_k`` the dual functions are ``psi_j = sum_k A_jk N_k`` with

.. math::

    A_e = D_e M_e^{-1}, \qquad (M_e)_{jk} = \int_e N_j N_k \,d\Gamma, \qquad
    (D_e)_{jj} = \int_e N_j \,d\Gamma,

so that they are biorthogonal, ``int_e psi_j N_k = delta_jk int_e N_k``.  They
keep the partition of unity: ``M_e 1 = d`` (the diagonal of ``D_e``, since
``sum_k N_k = 1``), so ``1^T A_e = d^T M_e^{-1} = 1^T M_e M_e^{-1} = 1^T`` (``M_e``
symmetric) and ``sum_j psi_j = sum_k N_k = 1``.  On a triangle ``A_e = 4 I - 1
1^T`` (``psi_j = 4 zeta_j - 1``, as :mod:`fecontact.contact.mortar3d`); on a
parallelogram ``psi_j`` is the product of the 1D duals ``(3 N - 1)`` of the
two directions; on a general quadrilateral ``A_e`` depends on the facet's
shape through the Jacobian in ``M_e``, integrated by the 3 x 3 Gauss rule.
"""

from __future__ import annotations

import numpy as np

#: Corners of the reference quadrilateral, in the cyclic order of the facets' vertices
QUAD_XI = np.array([-1.0, 1.0, 1.0, -1.0])
QUAD_ETA = np.array([-1.0, -1.0, 1.0, 1.0])

#: Newton iterations (floats) of the quadrilateral inverse map, and its tolerance on (xi, eta)
NEWTON_ITERATIONS = 30
NEWTON_TOL = 1e-14


def _strang_fix_degree4():
    """The 6-point degree-4 rule on the triangle (Strang & Fix; Dunavant), closed form."""
    s10, r = np.sqrt(10.0), np.sqrt(38.0 - 44.0 * np.sqrt(0.4))
    a = ((8.0 - s10 + r) / 18.0, (8.0 - s10 - r) / 18.0)
    q = np.sqrt(213125.0 - 53320.0 * s10)
    w = ((620.0 + q) / 3720.0, (620.0 - q) / 3720.0)
    points, weights = [], []
    for ai, wi in zip(a, w):
        for k in range(3):
            bary = np.full(3, ai)
            bary[k] = 1.0 - 2.0 * ai
            points.append(bary)
            weights.append(wi)
    return np.array(points), np.array(weights)


#: Barycentric points (6, 3) and weights (sum 1) of the degree-4 triangle rule
TRIANGLE_POINTS, TRIANGLE_WEIGHTS = _strang_fix_degree4()


def _cross2(a, b):
    return a[0] * b[1] - a[1] * b[0]


def coefficients(P: list) -> list:
    """Map coefficients ``[a0, a1, a2, a3]`` of a facet from its 2D vertices.

    Parameters
    ----------
    P : list of 3 or 4 points, each a list of 2 components (jets or arrays)

    Returns
    -------
    list
        ``a0, a1, a2`` and ``a3`` (``None`` for a triangle), each a list of 2 components.
    """
    if len(P) == 3:
        return [P[0], [P[1][c] - P[0][c] for c in range(2)], [P[2][c] - P[0][c] for c in range(2)], None]
    return [[0.25 * ((P[0][c] + P[1][c]) + (P[2][c] + P[3][c])) for c in range(2)],
            [0.25 * ((P[1][c] - P[0][c]) + (P[2][c] - P[3][c])) for c in range(2)],
            [0.25 * ((P[2][c] - P[0][c]) + (P[3][c] - P[1][c])) for c in range(2)],
            [0.25 * ((P[0][c] - P[1][c]) + (P[2][c] - P[3][c])) for c in range(2)]]


def _values(a):
    return [[c if isinstance(c, np.ndarray) else c.value for c in v] if v is not None else None for v in a]


def _residual(a, xi, eta, X):
    """``X(xi, eta) - X`` and the two tangent vectors of a quadrilateral map."""
    a0, a1, a2, a3 = a
    xe = xi * eta
    r = [a0[c] + a1[c] * xi + a2[c] * eta + a3[c] * xe - X[c] for c in range(2)]
    x_xi = [a1[c] + a3[c] * eta for c in range(2)]
    x_eta = [a2[c] + a3[c] * xi for c in range(2)]
    return r, x_xi, x_eta


def inverse(a: list, X: list) -> tuple:
    """Local coordinates ``(xi, eta)`` of the point ``X`` on the facet ``a`` (:func:`coefficients`).

    Parameters
    ----------
    a : list
        Map coefficients (jets).
    X : list of 2 jets

    Returns
    -------
    xi, eta : Jet
        Exact for triangles; for quadrilaterals the root of Newton's method in
        floats, carried through two Newton steps in jets (exact value,
        gradient and Hessian up to the round-off of the float root).
    """
    a0, a1, a2, a3 = a
    if a3 is None:
        d = [X[c] - a0[c] for c in range(2)]
        inv = _cross2(a1, a2).reciprocal()
        return _cross2(d, a2) * inv, _cross2(a1, d) * inv
    af, Xf = _values(a), [c.value for c in X]
    xi = np.zeros_like(Xf[0])
    eta = np.zeros_like(Xf[0])
    for _ in range(NEWTON_ITERATIONS):
        r, x_xi, x_eta = _residual(af, xi, eta, Xf)
        det = _cross2(x_xi, x_eta)
        d_xi, d_eta = _cross2(r, x_eta) / det, _cross2(x_xi, r) / det
        xi, eta = xi - d_xi, eta - d_eta
        if max(np.abs(d_xi).max(initial=0.0), np.abs(d_eta).max(initial=0.0)) < NEWTON_TOL:
            break
    for _ in range(2):
        r, x_xi, x_eta = _residual(a, xi, eta, X)
        inv = _cross2(x_xi, x_eta).reciprocal()
        xi, eta = xi - _cross2(r, x_eta) * inv, eta - _cross2(x_xi, r) * inv
    return xi, eta


def shape(n: int, xi, eta) -> list:
    """The ``n`` (3 or 4) shape functions at ``(xi, eta)`` (jets or arrays)."""
    if n == 3:
        return [1.0 - xi - eta, xi, eta]
    xe = xi * eta
    return [0.25 * (1.0 + float(QUAD_XI[a]) * xi + float(QUAD_ETA[a]) * eta
                    + float(QUAD_XI[a] * QUAD_ETA[a]) * xe) for a in range(4)]


def jacobian(a: list, xi, eta):
    """``det [X_xi, X_eta]`` of the map ``a`` at ``(xi, eta)``: constant for a triangle,
    ``c0 + c1 xi + c2 eta`` for a quadrilateral."""
    a0, a1, a2, a3 = a
    det = _cross2(a1, a2)
    if a3 is None:
        return det
    return det + _cross2(a1, a3) * xi + _cross2(a3, a2) * eta


def reference_normal(X: np.ndarray) -> np.ndarray:
    """Coefficients of ``X_xi x X_eta = c0 + c1 xi + c2 eta`` of 3D facets (floats).

    Parameters
    ----------
    X : ndarray, shape (p, n, 3)
        Vertices (3 or 4).

    Returns
    -------
    ndarray, shape (p, 3, 3)
        ``c0, c1, c2`` (``c1 = c2 = 0`` for triangles, whose ``c0`` is twice
        the area vector).
    """
    if X.shape[1] == 3:
        a1, a2, a3 = X[:, 1] - X[:, 0], X[:, 2] - X[:, 0], np.zeros_like(X[:, 0])
    else:
        a1 = 0.25 * ((X[:, 1] - X[:, 0]) + (X[:, 2] - X[:, 3]))
        a2 = 0.25 * ((X[:, 2] - X[:, 0]) + (X[:, 3] - X[:, 1]))
        a3 = 0.25 * ((X[:, 0] - X[:, 1]) + (X[:, 2] - X[:, 3]))
    # (a1 + a3 eta) x (a2 + a3 xi) = a1 x a2 + (a1 x a3) xi + (a3 x a2) eta
    return np.stack([np.cross(a1, a2), np.cross(a1, a3), np.cross(a3, a2)], axis=1)


def dual_coefficients(X: np.ndarray) -> np.ndarray:
    """``A_e = D_e M_e^{-1}`` of facets with reference vertices ``X`` (p, n, 3), shape (p, n, n).

    ``psi_j = sum_k A[j, k] N_k``; rows of a triangle are ``4 e_j - 1``.
    """
    p, n, _ = X.shape
    if n == 3:
        return np.broadcast_to(4.0 * np.eye(3) - 1.0, (p, 3, 3)).copy()
    g = np.sqrt(0.6) * np.array([-1.0, 0.0, 1.0])
    w = np.array([5.0, 8.0, 5.0]) / 9.0
    xi, eta = (v.ravel() for v in np.meshgrid(g, g, indexing="ij"))
    wq = np.outer(w, w).ravel()
    c = reference_normal(X)
    J = np.linalg.norm(c[:, None, 0] + c[:, None, 1] * xi[None, :, None] + c[:, None, 2] * eta[None, :, None],
                       axis=2)                                                  # (p, 9)
    N = np.array(shape(4, xi, eta))                                             # (4, 9)
    M = np.einsum("jq,kq,pq->pjk", N, N, J * wq)
    D = M.sum(axis=2)
    # A = D M^-1, M symmetric: A^T = M^-1 D
    return np.swapaxes(np.linalg.solve(M, D[:, :, None] * np.eye(n)), 1, 2)
