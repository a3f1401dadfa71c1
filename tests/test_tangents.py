"""Central finite-difference checks of every tangent: kinematics, return map."""

import numpy as np
import pytest

from fecontact.friction import OPEN, SLIP, STICK, coulomb_residual, coulomb_return_map
from fecontact.contact.jet import Jet
from fecontact.contact.kinematics2d import node_to_circle, node_to_line, node_to_segment

rng = np.random.default_rng(42)


def _fd_check(fun, z, h=1e-6):
    """Compare analytic gradient/Hessian of fun(z) (returning gap, slip jets) with central FD."""
    k = z.shape[1]
    base = fun(z)
    for j in range(k):
        e = np.zeros_like(z)
        e[:, j] = h
        plus, minus = fun(z + e), fun(z - e)
        for name in ("gap", "slip"):
            fd = (getattr(plus, name) - getattr(minus, name)) / (2 * h)
            grad = base.d_gap[:, j] if name == "gap" else base.d_slip[:, :, j]
            np.testing.assert_allclose(grad, fd.reshape(grad.shape), rtol=1e-6, atol=1e-8)
        fd_hg = (plus.d_gap - minus.d_gap) / (2 * h)
        np.testing.assert_allclose(base.h_gap[:, :, j], fd_hg, rtol=1e-5, atol=1e-6)
        fd_hs = (plus.d_slip - minus.d_slip) / (2 * h)
        np.testing.assert_allclose(base.h_slip[:, :, :, j], fd_hs, rtol=1e-5, atol=1e-6)


def test_node_to_segment_derivatives():
    m = 20
    xa = rng.uniform(-1, 1, (m, 2))
    xb = xa + rng.uniform(0.5, 1.0, (m, 2)) * np.array([1.0, 0.3])
    xs = 0.5 * (xa + xb) + rng.uniform(-0.2, 0.2, (m, 2))
    x0 = [xs - 0.01, xa + 0.02, xb - 0.005]
    t0 = rng.standard_normal((m, 1, 2))
    t0 /= np.linalg.norm(t0, axis=2)[:, :, None]

    for tangent0 in (None, t0):
        def fun(z):
            return node_to_segment(z[:, 0:2], z[:, 2:4], z[:, 4:6], *x0, tangent0)
        _fd_check(fun, np.hstack([xs, xa, xb]))


def test_node_to_segment_geometry():
    """Gap and projection against hand-computed values (segment on the x axis)."""
    xs = np.array([[0.25, -0.1], [0.5, 0.3]])
    xa = np.array([[0.0, 0.0], [0.0, 0.0]])
    xb = np.array([[1.0, 0.0], [1.0, 0.0]])
    k = node_to_segment(xs, xa, xb, xs, xa, xb)
    # a -> b along +x with the body on the left (above): outward normal is -y
    np.testing.assert_allclose(k.normal, [[0, -1], [0, -1]])
    np.testing.assert_allclose(k.gap, [0.1, -0.3])
    np.testing.assert_allclose(k.tangent, [[[1, 0]], [[1, 0]]])
    np.testing.assert_allclose(k.slip, 0.0)


def test_line_and_circle_derivatives():
    m = 15
    xs = rng.uniform(-1, 1, (m, 2)) + np.array([0.0, 3.0])
    xs0 = xs + 0.01
    _fd_check(lambda z: node_to_line(z, xs0, np.array([0.1, 0.2]), np.array([0.6, 0.8]),
                                     np.array([0.1, 0.15])), xs)
    _fd_check(lambda z: node_to_circle(z, xs0, np.array([0.0, 0.5]), 1.0,
                                       np.array([0.01, 0.5])), xs)
    circle = node_to_circle(np.array([[0.0, 2.0]]), np.array([[0.0, 2.0]]), np.zeros(2), 1.5, np.zeros(2))
    np.testing.assert_allclose(circle.gap, [0.5])
    np.testing.assert_allclose(circle.normal, [[0.0, 1.0]])


def test_jet_arithmetic_against_finite_differences():
    z = rng.uniform(0.5, 2.0, (7, 3))

    def f(z):
        a, b, c = Jet.variables(z)
        return ((a * b + 2.0) / c - (a * a + c).sqrt()) * (1.0 - b)

    base = f(z)
    h = 1e-6
    for j in range(3):
        e = np.zeros_like(z)
        e[:, j] = h
        np.testing.assert_allclose(base.grad[:, j], (f(z + e).value - f(z - e).value) / (2 * h), rtol=1e-7)
        np.testing.assert_allclose(base.hess[:, :, j], (f(z + e).grad - f(z - e).grad) / (2 * h),
                                   rtol=1e-6, atol=1e-8)


def test_return_map_stick_returns_trial_exactly():
    trial = np.array([[0.3], [-0.1]])
    cone = coulomb_return_map(trial, np.array([0.5, 0.2]))
    assert not cone.sliding.any()
    np.testing.assert_array_equal(cone.traction, trial)


def test_return_map_slip_lies_on_cone():
    trial = rng.standard_normal((50, 2)) * 3
    radius = rng.uniform(0.1, 1.0, 50)
    cone = coulomb_return_map(trial, radius)
    norm = np.linalg.norm(cone.traction, axis=1)
    sliding = np.linalg.norm(trial, axis=1) > radius
    np.testing.assert_allclose(norm[sliding], radius[sliding])
    # the corrected traction points along the trial (radial return)
    cosang = np.einsum("ij,ij->i", cone.traction, trial) / (norm * np.linalg.norm(trial, axis=1))
    np.testing.assert_allclose(cosang, 1.0)
    assert np.all(norm <= radius * (1 + 1e-14))


@pytest.mark.parametrize("q", [1, 2])
def test_alart_curnier_derivatives(q):
    """FD of dC/dlam and dC/d(g, s) at points away from the kinks, all three states."""
    m = 300
    d = q + 1
    lam = np.column_stack([rng.uniform(-1, 3, m), rng.uniform(-2, 2, (m, q))])
    gap = rng.uniform(-0.02, 0.02, m)
    slip = rng.uniform(-0.02, 0.02, (m, q))
    c_n = rng.uniform(50, 150, m)
    c_t = rng.uniform(50, 150, m)
    mu = rng.uniform(0.1, 0.5, m)
    base = coulomb_residual(lam, gap, slip, c_n, c_t, mu)
    assert {OPEN, STICK, SLIP} <= set(base.status.tolist())
    h = 1e-7
    kin = np.column_stack([gap, slip])
    for j in range(d):
        e = np.zeros((m, d))
        e[:, j] = h
        plus = coulomb_residual(lam + e, gap, slip, c_n, c_t, mu)
        minus = coulomb_residual(lam - e, gap, slip, c_n, c_t, mu)
        same = (plus.status == base.status) & (minus.status == base.status)
        fd = (plus.residual - minus.residual) / (2 * h)
        np.testing.assert_allclose(base.d_multiplier[same, :, j], fd[same], rtol=1e-5, atol=1e-6)
        kp, km = kin + e, kin - e
        plus = coulomb_residual(lam, kp[:, 0], kp[:, 1:], c_n, c_t, mu)
        minus = coulomb_residual(lam, km[:, 0], km[:, 1:], c_n, c_t, mu)
        same = (plus.status == base.status) & (minus.status == base.status)
        fd = (plus.residual - minus.residual) / (2 * h)
        np.testing.assert_allclose(base.d_kinematics[same, :, j], fd[same], rtol=1e-5, atol=1e-4)
        assert same.mean() > 0.95
