"""Smoothed master curves of node-to-segment contact (fecontact.contact.smoothing): the geometry,
the corners and free ends, and the exact derivatives against central finite differences."""

import numpy as np
import pytest

from fecontact.contact.kinematics2d import node_to_segment
from fecontact.contact.smoothing import (SHARP_ANGLE, curve_point, end_tangents, master_chain,
                                         node_to_curve, smoothing_active)


def _cols(x):
    return [x[:, 0], x[:, 1]]


def _arc(n, radius=1.0, angle=np.pi / 2):
    """``n`` segments on a circular arc, counter-clockwise (the disc on their left)."""
    theta = np.linspace(0.0, angle, n + 1)
    return radius * np.column_stack([np.cos(theta), np.sin(theta)])


def test_curves_through_nodes_on_a_circle_stay_on_it_far_closer_than_the_chords():
    P = _arc(16)
    i = np.arange(1, 14)
    smooth = np.ones(i.size, bool)
    ta, tb, length = end_tangents(*(_cols(P[j]) for j in (i, i + 1, i - 1, i + 2)), smooth, smooth)
    sag = 1.0 - np.cos(np.pi / 64)
    for xi in (0.0, 0.3, 0.5, 1.0):
        x = curve_point(np.full(i.size, xi), _cols(P[i]), _cols(P[i + 1]), ta, tb, length)
        assert np.abs(np.hypot(*x) - 1.0).max() < 1e-3 * sag


def test_a_straight_chain_gives_the_straight_segment_kinematics():
    rng = np.random.default_rng(0)
    m = 6
    a = np.column_stack([rng.uniform(0, 1, m), np.zeros(m)])
    b = a + [0.3, 0.0]
    p, q = a - [0.2, 0.0], b + [0.4, 0.0]
    s = (a + b) / 2 + rng.normal(0, 0.05, (m, 2))
    s0 = s - 0.01
    smooth = np.ones(m, bool)
    curve = node_to_curve(s, a, b, p, q, s0, a, b, p, q, smooth, smooth, np.full(m, 0.5))
    line = node_to_segment(s, a, b, s0, a, b)
    assert np.allclose(curve.gap, line.gap, rtol=0, atol=1e-14)
    assert np.allclose(curve.slip, line.slip, rtol=0, atol=1e-14)
    assert np.allclose(curve.d_gap[:, :2], line.d_gap[:, :2], rtol=0, atol=1e-14)
    # the curve bends with the nodes (its nodal tangents turn), but a rigid motion of the
    # master moves the gap as on the segment
    for c in range(2):
        master = curve.d_gap[:, 2 + c::2].sum(axis=1)
        assert np.allclose(master, line.d_gap[:, 2 + c::2].sum(axis=1), rtol=0, atol=1e-12)
    assert np.allclose(curve.normal, line.normal, rtol=0, atol=1e-14)


def test_the_chain_smooths_interior_nodes_and_keeps_corners_and_free_ends():
    # an arc of 8 segments, then a corner and a straight leg of 2 segments
    arc = _arc(8)
    X = np.vstack([arc, arc[-1] + [[0.0, 0.5], [0.0, 1.0]]]).T
    segments = np.vstack([np.arange(10), np.arange(1, 11)])
    chain = master_chain(segments, X)
    assert chain.before[0] == -1 and chain.after[-1] == -1          # free ends
    assert np.all(chain.before[1:8] == np.arange(0, 7))
    # the node between the arc and the leg turns by 90 - 45 / 8 degrees: a corner
    assert np.degrees(chain.angle[8]) == pytest.approx(90.0 - 45.0 / 8)
    assert chain.angle[8] > SHARP_ANGLE
    assert chain.after[7] == -1 and chain.before[8] == -1
    assert chain.before[9] == 8                                         # the straight leg
    assert chain.curved and smoothing_active("auto", chain)
    straight = master_chain(segments, np.vstack([np.arange(11.0), np.zeros(11)]))
    assert not smoothing_active("auto", straight) and smoothing_active("hermite", straight)
    assert not smoothing_active("none", chain)
    with pytest.raises(ValueError, match="smoothing"):
        smoothing_active("nagata", chain)


def _configuration(rng, m=5):
    """Slave nodes near arcs of a perturbed circle, with the nodes before and after each segment."""
    phi = rng.uniform(0.2, 1.2, m)
    h = rng.uniform(0.08, 0.15, m)
    at = lambda t, r=1.0: np.column_stack([r * np.cos(t), r * np.sin(t)])   # noqa: E731
    p, a = at(phi - h * 1.1, 1.0 + 0.01 * rng.standard_normal(m)), at(phi)
    b, q = at(phi + h, 1.0 + 0.01 * rng.standard_normal(m)), at(phi + h * 2.2)
    xi = rng.uniform(0.1, 0.9, m)
    s = at(phi + xi * h, 1.0 - 2e-3 * rng.uniform(0.5, 1.5, m))
    return s, a, b, p, q, xi


@pytest.mark.parametrize("ends", ["smooth", "mixed"])
@pytest.mark.parametrize("with_tangent0", [False, True])
def test_gap_and_slip_derivatives_match_central_differences(ends, with_tangent0):
    rng = np.random.default_rng(3)
    s, a, b, p, q, xi = _configuration(rng)
    m = s.shape[0]
    start = [y + 1e-3 * rng.standard_normal(y.shape) for y in (s, a, b, p, q)]
    smooth_a = np.ones(m, bool) if ends == "smooth" else np.array([True, False, True, False, False])
    smooth_b = np.ones(m, bool) if ends == "smooth" else np.array([False, True, True, False, True])
    tangent0 = None
    if with_tangent0:
        t = rng.standard_normal((m, 2))
        tangent0 = (t / np.linalg.norm(t, axis=1)[:, None])[:, None, :]

    def evaluate(z):
        y = z.reshape(m, 5, 2).transpose(1, 0, 2)
        return node_to_curve(*y, *start, smooth_a, smooth_b, xi, tangent0)

    z = np.stack([s, a, b, p, q], axis=1).reshape(m, 10)
    kin = evaluate(z.ravel())
    h = 1e-6
    fd_grad = np.zeros((m, 2, 10))
    fd_hess = np.zeros((m, 2, 10, 10))
    for j in range(10):
        e = np.zeros((m, 10))
        e[:, j] = h
        plus, minus = evaluate((z + e).ravel()), evaluate((z - e).ravel())
        fd_grad[:, 0, j] = (plus.gap - minus.gap) / (2 * h)
        fd_grad[:, 1, j] = (plus.slip[:, 0] - minus.slip[:, 0]) / (2 * h)
        fd_hess[:, 0, j] = (plus.d_gap - minus.d_gap) / (2 * h)
        fd_hess[:, 1, j] = (plus.d_slip[:, 0] - minus.d_slip[:, 0]) / (2 * h)
    grad = np.stack([kin.d_gap, kin.d_slip[:, 0]], axis=1)
    hess = np.stack([kin.h_gap, kin.h_slip[:, 0]], axis=1)
    assert np.abs(grad - fd_grad).max() < 1e-7 * np.abs(grad).max()
    assert np.abs(hess - fd_hess).max() < 1e-5 * np.abs(hess).max()
    # and the Hessian of the value itself, by second differences
    for j in range(10):
        e = np.zeros((m, 10))
        e[:, j] = 1e-4
        second = (evaluate((z + e).ravel()).gap - 2 * kin.gap + evaluate((z - e).ravel()).gap) / 1e-8
        assert np.abs(second - kin.h_gap[:, j, j]).max() < 1e-4 * np.abs(kin.h_gap).max()
    # the variables p and q enter only where their end is smooth
    assert np.all(kin.d_gap[~smooth_a & ~smooth_b][:, 6:] == 0.0)


def test_the_gap_is_the_distance_to_the_curve_along_its_normal():
    rng = np.random.default_rng(5)
    s, a, b, p, q, xi = _configuration(rng)
    m = s.shape[0]
    smooth = np.ones(m, bool)
    kin = node_to_curve(s, a, b, p, q, s, a, b, p, q, smooth, smooth, xi)
    foot = s - kin.gap[:, None] * kin.normal
    # the foot lies on the curve
    ta, tb, length = end_tangents(_cols(a), _cols(b), _cols(p), _cols(q), smooth, smooth)
    grid = np.linspace(-0.2, 1.2, 20001)
    for i in range(m):
        pts = np.array(curve_point(grid, a[i], b[i], [t[i] for t in ta], [t[i] for t in tb],
                                   length[i]))
        # (within the spacing of the points sampled on the curve)
        assert np.linalg.norm(pts - foot[i][:, None], axis=0).min() < 1e-4 * length[i]
    assert np.allclose(np.linalg.norm(kin.normal, axis=1), 1.0)
