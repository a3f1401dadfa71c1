"""3D kinematics: central finite differences of gap/slip gradients and Hessians,
and hand-computed geometry of projections, tangent bases and the facet search."""

import numpy as np
import pytest

from fecontact.contact.kinematics3d import (node_to_edge, node_to_plane, node_to_quad,
                                            node_to_sphere, node_to_triangle, node_to_vertex,
                                            quad_projection, tangent_basis)
from fecontact.contact.search import EDGE, FACE, VERTEX, closest_facets
from test_tangents import _fd_check

rng = np.random.default_rng(7)


def _random_basis(m):
    n = rng.standard_normal((m, 3))
    n /= np.linalg.norm(n, axis=1)[:, None]
    return tangent_basis(n)


def _triangle_setup(m=12):
    a = rng.uniform(-1, 1, (m, 3))
    b = a + np.array([1.0, 0.1, 0.05]) + rng.uniform(-0.1, 0.1, (m, 3))
    c = a + np.array([0.2, 1.0, -0.1]) + rng.uniform(-0.1, 0.1, (m, 3))
    s = (a + b + c) / 3 + rng.uniform(-0.2, 0.2, (m, 3))
    return s, a, b, c


@pytest.mark.parametrize("with_tangent0", [False, True])
def test_node_to_triangle_derivatives(with_tangent0):
    s, a, b, c = _triangle_setup()
    old = [s - 0.01, a + 0.02, b - 0.005, c + 0.003]
    t0 = _random_basis(s.shape[0]) if with_tangent0 else None
    ref = rng.standard_normal(s.shape)

    def fun(z):
        return node_to_triangle(z[:, 0:3], z[:, 3:6], z[:, 6:9], z[:, 9:12], *old, t0, ref)
    _fd_check(fun, np.hstack([s, a, b, c]))


def test_node_to_quad_derivatives():
    m = 10
    base = np.array([[0, 0, 0], [1, 0, 0.1], [1.1, 0.9, -0.05], [0, 1, 0.2]], float)
    q = base[None] + rng.uniform(-0.1, 0.1, (m, 4, 3))          # warped quads
    s = q.mean(axis=1) + rng.uniform(-0.3, 0.3, (m, 3))
    s[:, 2] += 0.2
    q0 = q + 0.01
    t0 = _random_basis(m)

    def fun(z):
        return node_to_quad(z[:, :3], z[:, 3:].reshape(m, 4, 3), s - 0.02, q0, t0)
    _fd_check(fun, np.hstack([s, q.reshape(m, 12)]))


def test_quad_projection_is_the_closest_point():
    """Brute force over a fine parametric grid finds no closer point."""
    m = 6
    base = np.array([[0, 0, 0], [1, 0, 0.3], [1.2, 1, -0.2], [0, 0.9, 0.25]], float)
    q = base[None] + rng.uniform(-0.05, 0.05, (m, 4, 3))
    s = q.mean(axis=1) + np.array([0.1, -0.15, 0.4])
    xi = quad_projection(s, q)
    g = np.linspace(-1, 1, 401)
    XI, ETA = np.meshgrid(g, g)
    N = 0.25 * np.stack([(1 - XI) * (1 - ETA), (1 + XI) * (1 - ETA),
                         (1 + XI) * (1 + ETA), (1 - XI) * (1 + ETA)])
    for i in range(m):
        pts = np.einsum("aij,ak->ijk", N, q[i])
        brute = np.linalg.norm(pts - s[i], axis=2).min()
        n = 0.25 * np.array([(1 - xi[i, 0]) * (1 - xi[i, 1]), (1 + xi[i, 0]) * (1 - xi[i, 1]),
                             (1 + xi[i, 0]) * (1 + xi[i, 1]), (1 - xi[i, 0]) * (1 + xi[i, 1])])
        found = np.linalg.norm(n @ q[i] - s[i])
        assert found <= brute + 1e-12
        assert found >= brute - 1e-4          # grid resolution


def test_edge_vertex_plane_sphere_derivatives():
    m = 10
    s = rng.uniform(-1, 1, (m, 3)) + np.array([0, 0, 2.0])
    a, b = rng.uniform(-1, 1, (m, 3)), rng.uniform(-1, 1, (m, 3))
    side = np.where(rng.uniform(size=m) > 0.5, 1.0, -1.0)
    t0 = _random_basis(m)
    _fd_check(lambda z: node_to_edge(z[:, :3], z[:, 3:6], z[:, 6:9], s + 0.01, a, b - 0.01,
                                     side, t0), np.hstack([s, a, b]))
    _fd_check(lambda z: node_to_vertex(z[:, :3], z[:, 3:6], s + 0.01, a - 0.02, side, t0),
              np.hstack([s, a]))
    normal = np.array([0.1, 0.2, 1.0]) / np.linalg.norm([0.1, 0.2, 1.0])
    _fd_check(lambda z: node_to_plane(z, s - 0.01, np.array([0, 0, 0.1]), normal,
                                      np.array([0.01, 0, 0.1]), t0), s)
    _fd_check(lambda z: node_to_sphere(z, s - 0.01, np.array([0.1, 0, 0.5]), 0.7,
                                       np.array([0.1, 0.02, 0.5]), False, t0), s)
    _fd_check(lambda z: node_to_sphere(z, s - 0.01, np.zeros(3), 5.0, np.zeros(3), True, t0), s)


def test_triangle_geometry_and_slip():
    """A triangle in the plane z = 0 facing +z: gap = z, slip = in-plane motion."""
    a = np.array([[0.0, 0.0, 0.0]])
    b = np.array([[1.0, 0.0, 0.0]])
    c = np.array([[0.0, 1.0, 0.0]])
    s0 = np.array([[0.2, 0.3, 0.1]])
    s = s0 + np.array([[0.05, -0.02, -0.15]])
    basis = tangent_basis(np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(basis, [[[1, 0, 0], [0, 1, 0]]], atol=1e-15)
    k = node_to_triangle(s, a, b, c, s0, a, b, c, basis)
    np.testing.assert_allclose(k.gap, [-0.05])
    np.testing.assert_allclose(k.normal, [[0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(k.slip, [[0.05, -0.02]], atol=1e-15)
    # moving the master with the slave gives no slip
    shift = np.array([[0.05, -0.02, 0.0]])
    k = node_to_triangle(s, a + shift, b + shift, c + shift, s0, a, b, c, basis)
    np.testing.assert_allclose(k.slip, 0.0, atol=1e-15)


def test_quad_geometry_matches_triangle_on_flat_square():
    q = np.array([[[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0]]], float)
    s = np.array([[0.5, 1.5, 0.3]])
    k = node_to_quad(s, q, s, q)
    np.testing.assert_allclose(k.gap, [0.3])
    np.testing.assert_allclose(k.normal, [[0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(quad_projection(s, q), [[-0.5, 0.5]], atol=1e-14)


def test_tangent_basis_is_orthonormal_and_right_handed():
    n = rng.standard_normal((50, 3))
    n /= np.linalg.norm(n, axis=1)[:, None]
    t = tangent_basis(n)
    np.testing.assert_allclose(np.einsum("mqd,mpd->mqp", t, t), np.broadcast_to(np.eye(2), (50, 2, 2)),
                               atol=1e-14)
    np.testing.assert_allclose(np.einsum("mqd,md->mq", t, n), 0.0, atol=1e-14)
    np.testing.assert_allclose(np.cross(t[:, 0], t[:, 1]), n, atol=1e-14)


def test_facet_search_features():
    """Two facets of a convex roof ridge: nodes above the faces, beyond the ridge and a corner."""
    ridge = np.array([[0, 0, 1.0], [0, 1, 1.0]])
    left = np.array([[-1, 0, 0.0], [-1, 1, 0.0]])
    right = np.array([[1, 0, 0.0], [1, 1, 0.0]])
    # outward (upward) normals by the right-hand rule
    f1 = np.array([left[0], ridge[0], ridge[1], left[1]])
    f2 = np.array([ridge[0], right[0], right[1], ridge[1]])
    facets = np.stack([f1, f2])
    pts = np.array([[-0.5, 0.5, 0.6],      # above the left face
                    [0.5, 0.5, 0.55],      # above the right face
                    [0.0, 0.5, 1.5],       # above the ridge: beyond both faces
                    [0.0, -0.5, 1.5]])     # beyond the ridge's end vertex
    proj = closest_facets(pts, facets)
    np.testing.assert_array_equal(proj.feature, [FACE, FACE, EDGE, VERTEX])
    np.testing.assert_array_equal(proj.facet[:2], [0, 1])
    np.testing.assert_allclose(proj.distance[2], 0.5)
    np.testing.assert_allclose(proj.distance[3], np.sqrt(0.5))
    np.testing.assert_allclose(proj.distance[0], abs(0.6 - 0.5) / np.sqrt(2))
    assert np.all(proj.side == 1.0)


def test_facet_hysteresis_keeps_the_previous_facet_near_a_ridge():
    """A node just beyond the ridge of a shallow roof keeps its previous facet
    while it stays inside the 5% enlarged outline, and switches beyond it."""
    slope = 0.02
    ridge = np.array([[0, 0, slope], [0, 1, slope]])
    left = np.array([[-1, 0, 0.0], [-1, 1, 0.0]])
    right = np.array([[1, 0, 0.0], [1, 1, 0.0]])
    f1 = np.array([left[0], ridge[0], ridge[1], left[1]])
    f2 = np.array([ridge[0], right[0], right[1], ridge[1]])
    facets = np.stack([f1, f2])
    # slightly to the right of the ridge, inside the body (penetrating)
    pts = np.array([[0.01, 0.5, slope - 0.01], [0.2, 0.5, slope - 0.01]])
    fresh = closest_facets(pts, facets)
    np.testing.assert_array_equal(fresh.facet, [1, 1])
    kept = closest_facets(pts, facets, previous=np.array([0, 0]))
    # 0.01 beyond the ridge is 1% of the facet width: kept; 0.2 (20%) switches
    np.testing.assert_array_equal(kept.facet, [0, 1])
    np.testing.assert_array_equal(kept.feature, [FACE, FACE])
    assert kept.side[0] == -1.0
    none = closest_facets(pts, facets, previous=np.array([-1, -1]))
    np.testing.assert_array_equal(none.facet, fresh.facet)
