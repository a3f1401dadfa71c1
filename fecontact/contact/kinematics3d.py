r"""Contact kinematics in 3D: node-to-facet gap, two-component slip and derivatives.

A slave node ``x_s`` is projected on the master surface at the point
``x_p = sum_a N_a(xi) x_a`` of a facet, edge or vertex; the normal ``n``
points from the master towards the slave and the gap is ``g = n . (x_s - x_p)``
(positive when open).

*Triangles* (``k = 12`` local variables ``x_s, x_a, x_b, x_c``): the
projection is exact, with barycentric coordinates from the normal equations

.. math::

    \begin{bmatrix} e_1\cdot e_1 & e_1\cdot e_2\\ e_1\cdot e_2 & e_2\cdot e_2\end{bmatrix}
    \begin{bmatrix}\xi\\ \eta\end{bmatrix} =
    \begin{bmatrix} e_1\cdot d\\ e_2\cdot d\end{bmatrix},\quad
    e_1 = x_b - x_a,\ e_2 = x_c - x_a,\ d = x_s - x_a,\quad
    n = \frac{e_1\times e_2}{|e_1\times e_2|}.

*Bilinear quadrilaterals* (``k = 15``): ``x(\xi,\eta) = \sum_a N_a x_a`` on
``[-1, 1]^2``; the closest point solves
``F = [(x - x_s)\cdot x_\xi, (x - x_s)\cdot x_\eta] = 0`` by Newton's method
in floating point, then two more Newton steps are taken in
:class:`~fecontact.contact.jet.Jet` arithmetic from the converged point.  The
derivatives of a Newton iterate started at the exact root are exact to first
order after one step and to second order after two, so gap and slip get exact
gradients and Hessians (the implicit-function derivatives of ``xi``);
``n = x_\xi\times x_\eta/|x_\xi\times x_\eta|``.

*Edges* (``k = 9``) and *vertices* (``k = 6``): the fallbacks for nodes whose
projection lies outside every facet (beyond a convex master edge or corner).
There ``n = \sigma (x_s - x_p)/|x_s - x_p|`` with ``\sigma`` the side of the
adjacent facet, so the gap is the signed distance to the edge or vertex.

The slip increment of the step has two components along the start-of-step
tangent basis ``(\tau_1^0, \tau_2^0)``,

.. math::

    \Delta s_\alpha = \tau_\alpha^0\cdot\Big[(x_s - x_s^0)
        - \sum_a N_a(\xi)\,(x_a - x_a^0)\Big],

the slave displacement relative to the master material point it touches.
Tangent bases are built by :func:`tangent_basis` from the normal and a fixed
reference direction per node, so they turn smoothly with the normal and do
not depend on which facet a node projects on.
"""

from __future__ import annotations

import numpy as np

from .jet import Jet, cross3, difference3, dot
from .kinematics2d import LocalKinematics


def tangent_basis(normal: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    r"""Orthonormal tangent pairs ``(tau_1, tau_2)`` with ``tau_1 x tau_2 = n``.

    ``tau_1`` is the reference direction projected on the tangent plane,
    ``tau_2 = n x tau_1``.

    Parameters
    ----------
    normal : ndarray, shape (m, 3)
        Unit normals.
    reference : ndarray, shape (m, 3), optional
        Reference directions, not parallel to the normals.  Default: per node
        the coordinate axis least aligned with its normal.

    Returns
    -------
    ndarray, shape (m, 2, 3)
    """
    if reference is None:
        reference = reference_directions(normal)
    r = reference - np.einsum("mi,mi->m", reference, normal)[:, None] * normal
    t1 = r / np.linalg.norm(r, axis=1)[:, None]
    t2 = np.cross(normal, t1)
    return np.stack([t1, t2], axis=1)


def reference_directions(normal: np.ndarray) -> np.ndarray:
    """Per node the coordinate axis least aligned with ``normal``, shape (m, 3)."""
    axis = np.argmin(np.abs(normal), axis=1)
    return np.eye(3)[axis]


def _scale(a, s):
    return [a[i] * s for i in range(3)]


def _value(v) -> np.ndarray:
    return np.column_stack([c.value if isinstance(c, Jet) else c for c in v])


def _pack(gap: Jet, slip: list, normal, basis: np.ndarray) -> LocalKinematics:
    return LocalKinematics(
        gap=gap.value, slip=np.column_stack([s.value for s in slip]),
        normal=_value(normal), tangent=basis,
        d_gap=gap.grad, d_slip=np.stack([s.grad for s in slip], axis=1),
        h_gap=gap.hess, h_slip=np.stack([s.hess for s in slip], axis=1))


def _slip(rel, n, tangent0, reference):
    """Slip along ``tangent0`` and the current tangent basis.

    Without ``tangent0`` the slip is measured along the current basis, built
    from the normal ``n`` (Jets or arrays) so that its derivatives are included.
    """
    normal_value = _value(n)
    if reference is None:
        reference = reference_directions(normal_value)
    basis = tangent_basis(normal_value, reference)
    if tangent0 is not None or not any(isinstance(c, Jet) for c in n):
        t0 = basis if tangent0 is None else tangent0
        return [dot([t0[:, a, i] for i in range(3)], rel) for a in range(2)], basis
    r = [reference[:, i] for i in range(3)]
    rn = dot(r, n)
    w = [r[i] - rn * n[i] for i in range(3)]
    t1 = _scale(w, dot(w, w).sqrt().reciprocal())
    t2 = cross3(n, t1)
    return [dot(t1, rel), dot(t2, rel)], basis


def _relative(s, s0, nodes, nodes0, weights):
    """``(x_s - x_s^0) - sum_a N_a (x_a - x_a^0)`` with Jet or float weights."""
    out = []
    for i in range(3):
        r = s[i] - s0[:, i]
        for x, x0, w in zip(nodes, nodes0, weights):
            r = r - w * (x[i] - x0[:, i])
        out.append(r)
    return out


def node_to_triangle(x_s, x_a, x_b, x_c, x_s0, x_a0, x_b0, x_c0,
                     tangent0=None, reference=None) -> LocalKinematics:
    """Kinematics of slave nodes against flat master triangles.

    Parameters
    ----------
    x_s, x_a, x_b, x_c : ndarray, shape (m, 3)
        Current slave node and triangle vertices (outward normal
        ``(x_b - x_a) x (x_c - x_a)``).
    x_s0, x_a0, x_b0, x_c0 : ndarray, shape (m, 3)
        The same points at the start of the step.
    tangent0 : ndarray, shape (m, 2, 3), optional
        Start-of-step tangent basis (slip directions); the current basis if
        omitted.
    reference : ndarray, shape (m, 3), optional
        Reference directions of :func:`tangent_basis`.

    Returns
    -------
    LocalKinematics
        ``k = 12`` local variables ``(x_s, x_a, x_b, x_c)``.
    """
    v = Jet.variables(np.hstack([x_s, x_a, x_b, x_c]))
    s, a, b, c = v[0:3], v[3:6], v[6:9], v[9:12]
    e1, e2, d = difference3(b, a), difference3(c, a), difference3(s, a)
    normal_raw = cross3(e1, e2)
    inv_len = dot(normal_raw, normal_raw).sqrt().reciprocal()
    n = _scale(normal_raw, inv_len)
    a11, a12, a22 = dot(e1, e1), dot(e1, e2), dot(e2, e2)
    r1, r2 = dot(e1, d), dot(e2, d)
    det = a11 * a22 - a12 * a12
    xi = (a22 * r1 - a12 * r2) / det
    eta = (a11 * r2 - a12 * r1) / det
    gap = dot(n, d)
    rel = _relative(s, x_s0, (a, b, c), (x_a0, x_b0, x_c0), (1.0 - xi - eta, xi, eta))
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(gap, slip, n, basis)


# bilinear quadrilateral on [-1, 1]^2, vertices in cyclic order
_QUAD_XI = np.array([-1.0, 1.0, 1.0, -1.0])
_QUAD_ETA = np.array([-1.0, -1.0, 1.0, 1.0])


def _quad_shape(xi, eta):
    """Shape functions and their xi/eta derivatives (work for floats and Jets)."""
    N = [0.25 * (1.0 + _QUAD_XI[a] * xi) * (1.0 + _QUAD_ETA[a] * eta) for a in range(4)]
    dxi = [0.25 * _QUAD_XI[a] * (1.0 + _QUAD_ETA[a] * eta) for a in range(4)]
    deta = [0.25 * _QUAD_ETA[a] * (1.0 + _QUAD_XI[a] * xi) for a in range(4)]
    return N, dxi, deta


def _combine(weights, points):
    return [sum((w * p[i] for w, p in zip(weights[1:], points[1:])), weights[0] * points[0][i])
            for i in range(3)]


def _quad_newton_step(s, nodes, xi, eta, gauss_newton=False):
    """One Newton (or Gauss-Newton) step for the closest point on a bilinear quadrilateral."""
    N, dxi, deta = _quad_shape(xi, eta)
    x = _combine(N, nodes)
    x_xi, x_eta = _combine(dxi, nodes), _combine(deta, nodes)
    # x_xi_eta = sum_a (1/4) xi_a eta_a x_a
    x_xe = _combine([0.25 * _QUAD_XI[a] * _QUAD_ETA[a] for a in range(4)], nodes)
    d = difference3(x, s)
    f1, f2 = dot(d, x_xi), dot(d, x_eta)
    h11, h22 = dot(x_xi, x_xi), dot(x_eta, x_eta)
    h12 = dot(x_xi, x_eta) if gauss_newton else dot(x_xi, x_eta) + dot(d, x_xe)
    det = h11 * h22 - h12 * h12
    return xi - (h22 * f1 - h12 * f2) / det, eta - (h11 * f2 - h12 * f1) / det


def quad_projection(x_s: np.ndarray, x_q: np.ndarray, iterations: int = 25) -> np.ndarray:
    """Parametric closest point ``(xi, eta)`` of slave nodes on bilinear quadrilaterals.

    Parameters
    ----------
    x_s : ndarray, shape (m, 3)
    x_q : ndarray, shape (m, 4, 3)
        Quadrilateral vertices in cyclic order.

    Returns
    -------
    ndarray, shape (m, 2)
        Unclamped parametric coordinates.  Gauss-Newton steps from the centre
        (the Hessian of the squared distance without its curvature term, so
        every step descends and saddles of warped quadrilaterals are not
        found) are followed by full Newton steps for quadratic convergence.
    """
    s = [x_s[:, i] for i in range(3)]
    nodes = [[x_q[:, a, i] for i in range(3)] for a in range(4)]
    xi = np.zeros(x_s.shape[0])
    eta = np.zeros(x_s.shape[0])
    for gauss_newton, tol in ((True, 1e-6), (False, 1e-14)):
        for _ in range(iterations):
            xi_new, eta_new = _quad_newton_step(s, nodes, xi, eta, gauss_newton)
            step = np.maximum(np.abs(xi_new - xi), np.abs(eta_new - eta))
            xi, eta = xi_new, eta_new
            if np.all(step < tol):
                break
    return np.column_stack([xi, eta])


def node_to_quad(x_s, x_q, x_s0, x_q0, tangent0=None, reference=None) -> LocalKinematics:
    """Kinematics of slave nodes against bilinear master quadrilaterals.

    Parameters
    ----------
    x_s : ndarray, shape (m, 3)
    x_q : ndarray, shape (m, 4, 3)
        Vertices in cyclic order, outward normal ``x_xi x x_eta``.
    x_s0, x_q0 :
        The same at the start of the step.
    tangent0, reference :
        As in :func:`node_to_triangle`.

    Returns
    -------
    LocalKinematics
        ``k = 15`` local variables ``(x_s, x_0, x_1, x_2, x_3)``.
    """
    m = x_s.shape[0]
    root = quad_projection(x_s, x_q)
    v = Jet.variables(np.hstack([x_s, x_q.reshape(m, 12)]))
    s = v[0:3]
    nodes = [v[3 + 3 * a: 6 + 3 * a] for a in range(4)]
    xi, eta = Jet.constant(root[:, 0], v[0]), Jet.constant(root[:, 1], v[0])
    for _ in range(2):
        xi, eta = _quad_newton_step(s, nodes, xi, eta)
    N, dxi, deta = _quad_shape(xi, eta)
    x = _combine(N, nodes)
    normal_raw = cross3(_combine(dxi, nodes), _combine(deta, nodes))
    n = _scale(normal_raw, dot(normal_raw, normal_raw).sqrt().reciprocal())
    gap = dot(n, difference3(s, x))
    rel = _relative(s, x_s0, nodes, [x_q0[:, a] for a in range(4)], N)
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(gap, slip, n, basis)


def node_to_edge(x_s, x_a, x_b, x_s0, x_a0, x_b0, side, tangent0=None,
                 reference=None) -> LocalKinematics:
    """Kinematics against master edges ``a -> b`` (fallback beyond convex edges).

    ``side`` (m,) is +1 or -1: the sign of ``(x_s - x_p) . n_facet`` for the
    adjacent facet, so the gap is negative when the node penetrates.
    ``k = 9``.
    """
    v = Jet.variables(np.hstack([x_s, x_a, x_b]))
    s, a, b = v[0:3], v[3:6], v[6:9]
    t = difference3(b, a)
    xi = dot(difference3(s, a), t) / dot(t, t)
    d = difference3(s, [a[i] + xi * t[i] for i in range(3)])
    dist = dot(d, d).sqrt()
    n = _scale(d, side / dist)
    gap = side * dist
    rel = _relative(s, x_s0, (a, b), (x_a0, x_b0), (1.0 - xi, xi))
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(gap, slip, n, basis)


def node_to_vertex(x_s, x_v, x_s0, x_v0, side, tangent0=None, reference=None) -> LocalKinematics:
    """Kinematics against master vertices (fallback beyond convex corners).  ``k = 6``."""
    v = Jet.variables(np.hstack([x_s, x_v]))
    s, p = v[0:3], v[3:6]
    d = difference3(s, p)
    dist = dot(d, d).sqrt()
    n = _scale(d, side / dist)
    rel = _relative(s, x_s0, (p,), (x_v0,), (1.0,))
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(side * dist, slip, n, basis)


def node_to_plane(x_s, x_s0, point, normal, point0, tangent0=None, reference=None) -> LocalKinematics:
    """Kinematics against a rigid plane through ``point`` with unit ``normal`` towards the slave.

    ``point0`` is the plane's point at the start of the step (the plane may
    translate).  ``k = 3``.
    """
    m = x_s.shape[0]
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    s = Jet.variables(np.asarray(x_s, float))
    gap = s[0] * nrm[0] + s[1] * nrm[1] + s[2] * nrm[2] - float(nrm @ point)
    shift = np.asarray(point, float) - np.asarray(point0, float)
    rel = [s[i] - x_s0[:, i] - shift[i] for i in range(3)]
    n = [np.full(m, nrm[i]) for i in range(3)]
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(gap, slip, n, basis)


def node_to_sphere(x_s, x_s0, center, radius, center0, inside=False, tangent0=None,
                   reference=None) -> LocalKinematics:
    """Kinematics against a rigid sphere (the body outside it, or inside if ``inside``).

    ``g = |x_s - c| - R`` (outside) or ``R - |x_s - c|`` (inside); the normal
    is radial, towards the slave.  ``k = 3``.
    """
    s = Jet.variables(np.asarray(x_s, float))
    c = np.asarray(center, float)
    d = [s[i] - c[i] for i in range(3)]
    dist = dot(d, d).sqrt()
    sign = -1.0 if inside else 1.0
    n = _scale(d, sign / dist)
    shift = c - np.asarray(center0, float)
    rel = [s[i] - x_s0[:, i] - shift[i] for i in range(3)]
    slip, basis = _slip(rel, n, tangent0, reference)
    return _pack(sign * (dist - radius), slip, n, basis)
