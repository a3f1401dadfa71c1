"""Mortar (segment-to-segment, facet-to-facet) kinematics: exact derivatives and exact integrals.

Derivatives are checked against central differences of the values (gradient)
and of the gradients (Hessian) at random partially overlapping configurations
with the segmentation held fixed; the integrals against brute-force sampling
of the slave surface, which knows nothing of the clipping.
"""

import numpy as np
import pytest

from fecontact.contact import mortar2d as mortar, mortar3d
from conftest import assert_jets_match_differences


def _segments(rng, p):
    """Master segments along +x near y = 0, slave segments above them running the other way."""
    xa = np.column_stack([rng.uniform(-0.2, 0.0, p), rng.uniform(-0.05, 0.05, p)])
    xb = xa + np.column_stack([rng.uniform(0.8, 1.2, p), rng.uniform(-0.2, 0.2, p)])
    s2 = np.column_stack([rng.uniform(-0.6, 0.4, p), rng.uniform(-0.05, 0.1, p)])
    s1 = s2 + np.column_stack([rng.uniform(0.5, 1.0, p), rng.uniform(-0.2, 0.2, p)])
    return s1, s2, xa, xb


def test_segment_pair_integrals_match_finite_differences():
    rng = np.random.default_rng(3)
    p = 40
    s1, s2, xa, xb = _segments(rng, p)
    lo, hi = mortar._overlap(s1, s2, xa, xb - xa)
    assert np.all(hi > lo) and np.any(lo > 0) and np.any(hi < 1)   # partial overlaps
    x0 = [z + 0.01 * rng.standard_normal(z.shape) for z in (s1, s2, xa, xb)]
    tangent = rng.standard_normal((p, 2))
    first = rng.random(p) < 0.5
    length = rng.uniform(0.5, 1.5, p)

    def evaluate(x):
        gap, slip, _, _ = mortar.pair_integrals(x[:, 0:2], x[:, 2:4], x[:, 4:6], x[:, 6:8], *x0,
                                                tangent, first, length)
        return gap, slip
    assert_jets_match_differences(evaluate, np.hstack([s1, s2, xa, xb]), rng)


def test_segment_pair_integral_against_sampling():
    rng = np.random.default_rng(4)
    s1, s2, xa, xb = _segments(rng, 5)
    x0 = [s1, s2, xa, xb]
    tangent = np.tile([1.0, 0.0], (5, 1))
    length = np.linalg.norm(s2 - s1, axis=1)
    eta = (np.arange(200000) + 0.5) / 200000
    for first in (True, False):
        gap, _, weight, _ = mortar.pair_integrals(s1, s2, xa, xb, *x0, tangent,
                                                  np.full(5, first), length)
        for i in range(5):
            x = s1[i] + eta[:, None] * (s2[i] - s1[i])
            t = xb[i] - xa[i]
            xi = (x - xa[i]) @ t / (t @ t)
            n = np.array([t[1], -t[0]]) / np.linalg.norm(t)
            inside = (xi >= 0) & (xi <= 1)
            shape = (1 - eta) if first else eta
            g = (x - xa[i]) @ n
            # the gap is weighted by the node's dual function 3 N - 1, the weight by N
            assert gap.value[i] == pytest.approx(np.mean((3 * shape - 1) * g * inside) * length[i], abs=1e-5)
            assert weight[i] == pytest.approx(np.mean(shape * inside) * length[i], abs=1e-5)


def _triangles(rng, p):
    """Master triangles near z = 0 (normal +z), slave triangles above them facing down."""
    master = np.zeros((p, 3, 3))
    master[:, 1, 0] = 1.0
    master[:, 2, 1] = 1.0
    master += 0.1 * rng.standard_normal((p, 3, 3)) * [1.0, 1.0, 0.2]
    slave = np.zeros((p, 3, 3))
    slave[:, 1, 1] = 0.9
    slave[:, 2, 0] = 0.9
    slave += rng.uniform(0.0, 0.4, (p, 1, 3)) * [1.0, 1.0, 0.1]
    slave += 0.05 * rng.standard_normal((p, 3, 3))
    return slave, master


def test_facet_pair_integrals_match_finite_differences():
    rng = np.random.default_rng(5)
    p = 30
    slave, master = _triangles(rng, p)
    lines, count, area = mortar3d.clip_polygons(slave, master)
    assert np.all(count >= 3) and len(set(count)) > 1
    slave0 = slave + 0.01 * rng.standard_normal(slave.shape)
    master0 = master + 0.01 * rng.standard_normal(master.shape)
    tangent = rng.standard_normal((p, 3, 2, 3))
    ref_area = rng.uniform(0.3, 0.5, p)

    def evaluate(x):
        gap, slip, _, _ = mortar3d.pair_integrals(x[:, :9].reshape(p, 3, 3), x[:, 9:].reshape(p, 3, 3),
                                                  slave0, master0, lines, count, tangent, ref_area)
        return gap + [s for pair in slip for s in pair]
    assert_jets_match_differences(evaluate, np.hstack([slave.reshape(p, 9), master.reshape(p, 9)]), rng)


def test_facet_pair_integral_against_sampling():
    rng = np.random.default_rng(6)
    p = 4
    slave, master = _triangles(rng, p)
    lines, count, area = mortar3d.clip_polygons(slave, master)
    ref_area = 0.5 * np.linalg.norm(np.cross(slave[:, 1] - slave[:, 0], slave[:, 2] - slave[:, 0]), axis=1)
    gap, _, weight, _ = mortar3d.pair_integrals(slave, master, slave, master, lines, count,
                                                np.zeros((p, 3, 2, 3)), ref_area)
    # uniform points on each slave triangle, projected along the master normal
    k = 400
    u, v = np.meshgrid((np.arange(k) + 0.5) / k, (np.arange(k) + 0.5) / k)
    keep = u + v < 1
    zeta = np.column_stack([1 - u[keep] - v[keep], u[keep], v[keep]])
    for i in range(p):
        x = zeta @ slave[i]
        a, b, c = master[i]
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n)
        T = np.column_stack([b - a, c - a, n])
        beta = np.linalg.solve(T, (x - a).T).T
        inside = (beta[:, 0] >= 0) & (beta[:, 1] >= 0) & (beta[:, 0] + beta[:, 1] <= 1)
        g = (x - a) @ n
        for j in range(3):
            # the gap is weighted by the vertex's dual function 4 zeta - 1, the weight by zeta
            assert gap[j].value[i] == pytest.approx(np.mean((4 * zeta[:, j] - 1) * g * inside) * ref_area[i],
                                                    abs=2e-3 * ref_area[i] * np.abs(g).max())
            assert weight[i, j] == pytest.approx(np.mean(zeta[:, j] * inside) * ref_area[i],
                                                 abs=2e-3 * ref_area[i])
        assert area[i] == pytest.approx(np.mean(inside) * ref_area[i] * abs(
            np.cross(slave[i, 1] - slave[i, 0], slave[i, 2] - slave[i, 0]) @ n) / (2 * ref_area[i]),
            rel=5e-3)


def test_weighted_gaps_of_a_curved_slave_above_a_flat_master_are_its_heights():
    """An arc of short segments above a master line of longer ones, at heights from touching to
    many times the segment lengths: with the gap linear on each slave segment, the dual
    weighted gap of every node is its height exactly, so every master segment under a node's
    support must be found (a search within the segment lengths alone lost some of them once
    the arc was about as high as they are long, giving weighted gaps down to zero)."""
    angle = np.linspace(-0.35, 0.35, 43)
    segments = np.vstack([np.arange(42), np.arange(1, 43)])          # left to right: disc above
    xm = np.linspace(1.0, -1.0, 41)                                   # right to left: block below
    a = np.column_stack([xm[:-1], np.zeros(40)])
    b = np.column_stack([xm[1:], np.zeros(40)])
    for height in np.linspace(0.0, 0.3, 61):
        x_slave = np.column_stack([0.5 * np.sin(angle) + 0.013,
                                   height + 0.5 * (1.0 - np.cos(angle))])
        length = np.linalg.norm(x_slave[segments[1]] - x_slave[segments[0]], axis=1)
        area = np.zeros(43)
        np.add.at(area, segments[0], 0.5 * length)
        np.add.at(area, segments[1], 0.5 * length)
        local, _, _ = mortar.weighted_kinematics(x_slave, x_slave, segments, a, b, a, b, area, length)
        np.testing.assert_allclose(local.gap, x_slave[:, 1], rtol=1e-12, atol=1e-14,
                                   err_msg=f"height {height}")


def _grid_triangles(n, lo, hi):
    """A square grid of ``n`` x ``n`` points in the plane, split into triangles counter-clockwise from +z."""
    s = np.linspace(lo, hi, n)
    X, Y = np.meshgrid(s, s, indexing="ij")
    idx = np.arange(n * n).reshape(n, n)
    quads = np.stack([idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]], -1).reshape(-1, 4)
    return np.column_stack([X.ravel(), Y.ravel()]), np.vstack([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])


def _tangents(normal):
    a = np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    t1 = np.cross(normal, a)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    return np.stack([t1, np.cross(normal, t1)], 1)


def test_weighted_gaps_of_a_curved_slave_above_a_flat_master_are_its_heights_3d():
    """The 3D counterpart: a paraboloid cap of small triangles above a plane of large ones, at
    heights up to three master facet sizes; every node's dual weighted gap is its height (a
    search within the facet sizes alone lost master facets from about 0.35 up)."""
    xy, slave_tri = _grid_triangles(13, -0.2, 0.2)
    slave_tri = slave_tri[:, ::-1]                                     # normals towards -z
    pm, master_tri = _grid_triangles(9, -1.0, 1.0)
    master = np.column_stack([pm, np.zeros(len(pm))])[master_tri]
    for height in np.linspace(0.0, 0.6, 31):
        points = np.column_stack([xy + 0.013, height + (xy ** 2).sum(axis=1)])
        slave = points[slave_tri]
        ref_area = 0.5 * np.linalg.norm(np.cross(slave[:, 1] - slave[:, 0], slave[:, 2] - slave[:, 0]),
                                        axis=1)
        area = np.zeros(len(points))
        np.add.at(area, slave_tri.ravel(), np.repeat(ref_area / 3.0, 3))
        normal = np.tile([0.0, 0.0, 1.0], (len(points), 1))
        local, _ = mortar3d.weighted_kinematics(slave, slave, slave_tri, master, master, master_tri,
                                                ref_area, _tangents(normal), area, points[:, 2],
                                                normal, _tangents(normal), _tangents)
        np.testing.assert_allclose(local.gap, points[:, 2], rtol=1e-12, atol=1e-14,
                                   err_msg=f"height {height}")
