"""Mortar kinematics on quadrilateral facets (and mixed with triangles): the quadrature rule,
the dual functions, agreement with the triangle integration, exact derivatives, and the
integrals against brute-force sampling of the slave facet."""

from math import factorial

import numpy as np
import pytest

from fecontact.contact import facet_maps, mortar3d, mortar3d_quad as mq
from conftest import assert_jets_match_differences


def _facets(rng, p, n, z, down):
    """Warped facets (3 or 4 vertices) near the unit square at height ``z``; ``down``: facing -z."""
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    corners = square[[0, 1, 3]] if n == 3 else square
    if down:
        corners = corners[::-1]
    x = np.zeros((p, n, 3))
    x[:, :, :2] = corners
    x[:, :, 2] = z
    x += rng.uniform(-0.3, 0.3, (p, 1, 3)) * [1.0, 1.0, 0.0]
    x += 0.08 * rng.standard_normal((p, n, 3)) * [1.0, 1.0, 0.3]
    return x


def test_triangle_rule_has_degree_four():
    P, W = facet_maps.TRIANGLE_POINTS, facet_maps.TRIANGLE_WEIGHTS
    for a in range(5):
        for b in range(5 - a):
            # mean of x^a y^b over the unit triangle
            exact = 2.0 * factorial(a) * factorial(b) / factorial(a + b + 2)
            assert np.sum(W * P[:, 1] ** a * P[:, 2] ** b) == pytest.approx(exact, abs=1e-15)


def test_quadrilateral_dual_functions_are_biorthogonal_and_sum_to_one():
    rng = np.random.default_rng(2)
    X = _facets(rng, 5, 4, 0.0, False)
    X[:, :, 2] = 0.3 * X[:, :, 0] - 0.2 * X[:, :, 1]             # plane, not parallelograms
    A = facet_maps.dual_coefficients(X)
    assert np.allclose(A.sum(axis=1), 1.0, atol=1e-12)               # sum_j psi_j = 1
    # int psi_j N_k = delta_jk int N_k, by a fine Gauss rule on the reference square
    g, w = np.polynomial.legendre.leggauss(8)
    xi, eta = (v.ravel() for v in np.meshgrid(g, g, indexing="ij"))
    c = facet_maps.reference_normal(X)
    J = np.linalg.norm(c[:, None, 0] + c[:, None, 1] * xi[:, None] + c[:, None, 2] * eta[:, None], axis=2)
    N = np.array(facet_maps.shape(4, xi, eta))
    M = np.einsum("jq,kq,pq->pjk", N, N, J * np.outer(w, w).ravel())
    D = M.sum(axis=2)
    assert np.allclose(A @ M, D[:, :, None] * np.eye(4), atol=1e-12 * D.max())
    # a parallelogram's dual functions are the products of the 1D duals 3 N - 1
    square = np.array([[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.5, 1.0, 0.0], [0.5, 1.0, 0.0]]])
    N1 = [0.5 * (1 - xi), 0.5 * (1 + xi)], [0.5 * (1 - eta), 0.5 * (1 + eta)]
    corner = [(0, 0), (1, 0), (1, 1), (0, 1)]
    psi = facet_maps.dual_coefficients(square)[0] @ N
    for j, (a, b) in enumerate(corner):
        assert np.allclose(psi[j], (3 * N1[0][a] - 1) * (3 * N1[1][b] - 1), atol=1e-12)


def test_triangles_agree_with_the_triangle_integration():
    rng = np.random.default_rng(5)
    p = 20
    slave, master = _facets(rng, p, 3, 0.1, True), _facets(rng, p, 3, 0.0, False)
    slave0 = slave + 0.01 * rng.standard_normal(slave.shape)
    master0 = master + 0.01 * rng.standard_normal(master.shape)
    tangent = rng.standard_normal((p, 3, 2, 3))
    ref = slave + 0.02 * rng.standard_normal(slave.shape)
    ref_area = 0.5 * np.linalg.norm(np.cross(ref[:, 1] - ref[:, 0], ref[:, 2] - ref[:, 0]), axis=1)
    lines, count, area = mortar3d.clip_polygons(slave, master)
    lq, cq, aq = mq.clip_polygons(slave, master)
    assert np.array_equal(count, cq) and np.allclose(area, aq, atol=1e-14)
    g1, s1, w1, n1 = mortar3d.pair_integrals(slave, master, slave0, master0, lines, count, tangent, ref_area)
    g2, s2, w2, n2 = mq.pair_integrals(slave, master, slave0, master0, lq, cq, tangent, ref)
    assert np.allclose(w1, w2, atol=1e-14) and np.allclose(n1, n2, atol=1e-14)
    for a, b in zip(g1 + [s for q in s1 for s in q], g2 + [s for q in s2 for s in q]):
        assert np.allclose(a.value, b.value, atol=1e-14)
        assert np.allclose(a.grad, b.grad, atol=1e-13)
        assert np.allclose(a.hess, b.hess, atol=1e-12)


@pytest.mark.parametrize("ns, nm", [(4, 4), (3, 4), (4, 3)])
@pytest.mark.slow
def test_quadrilateral_pair_integrals_match_finite_differences(ns, nm):
    rng = np.random.default_rng(10 * ns + nm)
    p = 12
    slave, master = _facets(rng, p, ns, 0.1, True), _facets(rng, p, nm, 0.0, False)
    lines, count, area = mq.clip_polygons(slave, master)
    assert np.all(count >= 3) and len(set(count)) > 1
    slave0 = slave + 0.01 * rng.standard_normal(slave.shape)
    master0 = master + 0.01 * rng.standard_normal(master.shape)
    tangent = rng.standard_normal((p, ns, 2, 3))
    ref = slave + 0.02 * rng.standard_normal(slave.shape)

    def evaluate(x):
        gap, slip, _, _ = mq.pair_integrals(x[:, :3 * ns].reshape(p, ns, 3), x[:, 3 * ns:].reshape(p, nm, 3),
                                            slave0, master0, lines, count, tangent, ref)
        return gap + [s for pair in slip for s in pair]
    assert_jets_match_differences(evaluate, np.hstack([slave.reshape(p, -1), master.reshape(p, -1)]), rng)


@pytest.mark.parametrize("ns, nm", [(4, 4), (3, 4), (4, 3)])
def test_quadrilateral_pair_integrals_against_sampling(ns, nm):
    """The weighted gap and weights against a fine midpoint rule on the slave facet's own
    parameters, each sample projected along the master plane's normal onto the master facet."""
    rng = np.random.default_rng(20 + 10 * ns + nm)
    p = 3
    slave, master = _facets(rng, p, ns, 0.1, True), _facets(rng, p, nm, 0.0, False)
    lines, count, area = mq.clip_polygons(slave, master)
    gap, _, weight, normal = mq.pair_integrals(slave, master, slave, master, lines, count,
                                               np.zeros((p, ns, 2, 3)), slave)
    k = 400
    u = (np.arange(k) + 0.5) / k
    a, b = (v.ravel() for v in np.meshgrid(u, u, indexing="ij"))
    if ns == 3:
        keep = a + b < 1
        xi, eta, dA = a[keep], b[keep], np.full(keep.sum(), 0.5 / keep.sum())
    else:
        xi, eta, dA = 2 * a - 1, 2 * b - 1, np.full(a.size, 4.0 / a.size)
    N = np.array(facet_maps.shape(ns, xi, eta))                          # (ns, q)
    c_ref = facet_maps.reference_normal(slave)
    A = facet_maps.dual_coefficients(slave)
    for i in range(p):
        x = N.T @ slave[i]
        J = np.linalg.norm(c_ref[i, 0] + c_ref[i, 1] * xi[:, None] + c_ref[i, 2] * eta[:, None], axis=1)
        n = normal[i]
        e2 = np.cross(n, master[i, 1] - master[i, 0])
        e2 /= np.linalg.norm(e2)
        e1 = np.cross(e2, n)
        plane = np.column_stack([(x - master[i].mean(0)) @ e1, (x - master[i].mean(0)) @ e2])
        Mp = [[(master[i, v] - master[i].mean(0)) @ e for e in (e1, e2)] for v in range(nm)]
        coef = facet_maps.coefficients([[np.full(xi.size, c) for c in v] for v in Mp])
        # the master parameters of each sample, by Newton on the floats
        xm, em = (np.full(xi.size, 1 / 3) if nm == 3 else np.zeros(xi.size) for _ in range(2))
        for _ in range(40):
            a3 = coef[3] if coef[3] is not None else [0.0, 0.0]
            r = [coef[0][c] + coef[1][c] * xm + coef[2][c] * em + a3[c] * xm * em - plane[:, c] for c in range(2)]
            jx = [coef[1][c] + a3[c] * em for c in range(2)]
            je = [coef[2][c] + a3[c] * xm for c in range(2)]
            det = jx[0] * je[1] - jx[1] * je[0]
            xm, em = xm - (r[0] * je[1] - r[1] * je[0]) / det, em - (jx[0] * r[1] - jx[1] * r[0]) / det
        inside = ((xm >= 0) & (em >= 0) & (xm + em <= 1)) if nm == 3 else ((np.abs(xm) <= 1) & (np.abs(em) <= 1))
        Nm = np.array(facet_maps.shape(nm, xm, em))
        g = (x - Nm.T @ master[i]) @ n
        for j in range(ns):
            psi = A[i, j] @ N
            assert gap[j].value[i] == pytest.approx(np.sum(psi * g * inside * J * dA),
                                                    abs=3e-3 * np.abs(g).max() * J.max())
            assert weight[i, j] == pytest.approx(np.sum(N[j] * inside * J * dA), abs=3e-3 * J.max())


def _grid(n, size, z, down):
    """Quadrilateral facets of an n x n grid of the square [0, size]^2 at height z, node numbers."""
    line = np.linspace(0.0, size, n + 1)
    X, Y = np.meshgrid(line, line, indexing="ij")
    nodes = np.column_stack([X.ravel(), Y.ravel(), np.full(X.size, z)])
    i, j = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    quads = np.column_stack([i * (n + 1) + j, (i + 1) * (n + 1) + j, (i + 1) * (n + 1) + j + 1, i * (n + 1) + j + 1])
    return nodes, quads[:, ::-1] if down else quads


def test_row_storage_does_not_grow_with_the_master_surface():
    """The rows hold the unknowns they depend on: a master surface four times as large (the
    same cells) changes neither the rows nor the size of their derivative arrays."""
    xs, slave = _grid(3, 0.5, 0.0, True)
    xs[:, :2] += 0.263                           # inside the master, off its nodes
    m = xs.shape[0]
    area = np.zeros(m)
    for q in slave:
        np.add.at(area, q, np.full(4, 0.25 / 36.0))
    out = []
    for extent in (1, 2):
        xm, master = _grid(4 * extent, extent * 1.0, 0.0, False)
        F = xm[master]
        local, slots = mq.weighted_kinematics(
            xs[slave], xs[slave], slave, F, F, master, xs[slave], np.zeros((m, 2, 3)), area,
            np.zeros(m), np.tile([0.0, 0.0, 1.0], (m, 1)), np.zeros((m, 2, 3)),
            lambda n: np.stack([np.cross(n, [0.0, 1.0, 0.0]), np.tile([0.0, 1.0, 0.0], (m, 1))], axis=1))
        out.append((local, slots))
    (a, sa), (b, sb) = out
    assert a.d_gap.shape == b.d_gap.shape and a.h_gap.shape == b.h_gap.shape
    assert np.allclose(a.gap, b.gap, atol=1e-15) and np.allclose(a.d_gap, b.d_gap, atol=1e-14)
    # a flat slave on a flat master: the weighted gaps vanish and the weights cover every node
    assert np.allclose(a.gap, 0.0, atol=1e-15)
