"""Checks of the closed-form references against independent facts."""

import numpy as np
import pytest
from scipy.integrate import quad

from fecontact.references.analytic2d import (CattaneoMindlinLine, HertzLine, OutsideReference,
                                             effective_modulus, effective_radius, relative_l2_error)

E_STEEL = 210e3
NU_STEEL = 0.3


def _integral(fn, a):
    """Integral of ``fn`` over [-a, a] by adaptive quadrature."""
    value, _ = quad(lambda s: float(fn(np.array([s]))[0]), -a, a,
                    epsabs=0.0, epsrel=1e-10, limit=200)
    return value


def test_effective_modulus_identical_bodies():
    E, nu = 70e3, 0.33
    assert effective_modulus(E, nu, E, nu) == pytest.approx(
        E / (2.0 * (1.0 - nu**2)), rel=1e-14)


def test_effective_modulus_rigid_partner_is_plane_strain_modulus():
    E, nu = 70e3, 0.33
    assert effective_modulus(E, nu) == pytest.approx(E / (1.0 - nu**2))
    # a very stiff partner approaches the rigid limit
    assert effective_modulus(E, nu, 1e12 * E, 0.2) == pytest.approx(
        effective_modulus(E, nu), rel=1e-9)


def test_effective_modulus_requires_nu2_with_E2():
    with pytest.raises(ValueError):
        effective_modulus(1.0, 0.3, 2.0)


def test_effective_modulus_broadcasts():
    E = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(effective_modulus(E, 0.0, E, 0.0), E / 2)


def test_effective_radius():
    assert effective_radius(2.0, 2.0) == pytest.approx(1.0)
    assert effective_radius(3.0) == pytest.approx(3.0)
    assert effective_radius(1.0, 1e15) == pytest.approx(1.0)
    # cylinder in a concave seat of radius 3: 1/R = 1/2 - 1/3
    assert effective_radius(2.0, -3.0) == pytest.approx(6.0)


@pytest.mark.parametrize("P, R, E_star", [(1.0, 1.0, 1.0),
                                          (250.0, 8.0, 1.1e5),
                                          (0.01, 0.5, 3e3)])
def test_hertz_pressure_integrates_to_load(P, R, E_star):
    h = HertzLine(P=P, R=R, E_star=E_star)
    assert _integral(h.pressure, h.half_width) == pytest.approx(P, rel=1e-4)


def test_hertz_pressure_shape():
    h = HertzLine(P=100.0, R=10.0, E_star=1e4)
    a = h.half_width
    # the pressure vanishes at and beyond the edges, peaks at the centre
    np.testing.assert_array_equal(h.pressure(np.array([-2 * a, -a, a, 3 * a])),
                                  0.0)
    assert h.pressure(0.0) == pytest.approx(h.peak_pressure)
    x = np.linspace(-a, a, 101)
    assert np.all(h.pressure(x) <= h.peak_pressure)
    np.testing.assert_allclose(h.pressure(x), h.pressure(-x))


def test_hertz_scaling_laws():
    base = HertzLine(P=1.0, R=1.0, E_star=1.0)
    # a ~ sqrt(P R / E*), p0 ~ sqrt(P E* / R)
    h = HertzLine(P=4.0, R=1.0, E_star=1.0)
    assert h.half_width == pytest.approx(2.0 * base.half_width)
    assert h.peak_pressure == pytest.approx(2.0 * base.peak_pressure)
    h = HertzLine(P=1.0, R=9.0, E_star=1.0)
    assert h.half_width == pytest.approx(3.0 * base.half_width)
    assert h.peak_pressure == pytest.approx(base.peak_pressure / 3.0)


def test_hertz_half_width_steel_on_flat():
    # steel cylinder R = 10 mm on a rigid flat, P = 100 N/mm:
    # a = sqrt(4 P R (1 - nu^2) / (pi E)) = sqrt(3640 / (pi 210e3))
    #   = 0.074279 mm
    E_star = effective_modulus(E_STEEL, NU_STEEL)
    h = HertzLine(P=100.0, R=effective_radius(10.0), E_star=E_star)
    assert h.half_width == pytest.approx(0.074279, rel=1e-4)


def test_hertz_rejects_nonpositive_input():
    # outside the formula's range (a run's final state may be: no contact load), not a bug
    with pytest.raises(OutsideReference, match="P must be positive, got 0.0"):
        HertzLine(P=0.0, R=1.0, E_star=1.0)
    with pytest.raises(OutsideReference):
        HertzLine(P=1.0, R=-1.0, E_star=1.0)


@pytest.mark.parametrize("ratio", [0.0, 0.1, 0.5, 0.9, 0.999])
def test_shear_traction_integrates_to_tangential_load(ratio):
    P, mu = 50.0, 0.3
    cm = CattaneoMindlinLine(P=P, Q=ratio * mu * P, mu=mu, R=2.0,
                             E_star=1e4)
    assert _integral(cm.shear_traction, cm.half_width) == pytest.approx(
        cm.Q, rel=1e-4, abs=1e-10 * P)


def test_shear_traction_continuous_at_stick_edge():
    cm = CattaneoMindlinLine(P=10.0, Q=2.0, mu=0.4, R=1.0, E_star=100.0)
    c = cm.stick_half_width
    scale = cm.mu * cm.peak_pressure
    for edge in (c, -c):
        # the stick term has a square-root edge: the jump across x = c
        # must shrink like sqrt(eps)
        jumps = []
        for eps in (1e-6, 1e-8, 1e-10):
            d = eps * cm.half_width * np.sign(edge)
            jumps.append(abs(cm.shear_traction(edge - d)
                             - cm.shear_traction(edge + d)) / scale)
        assert jumps[-1] < 1e-4
        assert jumps[0] > jumps[1] > jumps[2]


def test_shear_traction_bounded_by_friction_and_sliding_in_slip_zone():
    cm = CattaneoMindlinLine(P=10.0, Q=2.0, mu=0.4, R=1.0, E_star=100.0)
    b, c = cm.half_width, cm.stick_half_width
    x = np.linspace(-1.2 * b, 1.2 * b, 2001)
    q, p = cm.shear_traction(x), cm.pressure(x)
    assert np.all(q >= 0.0)
    assert np.all(q <= cm.mu * p + 1e-12 * cm.peak_pressure)
    slip = (np.abs(x) > c) & (np.abs(x) < b)
    np.testing.assert_allclose(q[slip], cm.mu * p[slip], rtol=1e-12)
    stick = np.abs(x) < 0.99 * c
    assert np.all(q[stick] < cm.mu * p[stick])
    np.testing.assert_array_equal(q[np.abs(x) >= b], 0.0)


def test_stick_zone_limits():
    P, mu = 10.0, 0.5
    b = HertzLine(P=P, R=1.0, E_star=100.0).half_width
    small = CattaneoMindlinLine(P=P, Q=1e-10, mu=mu, R=1.0, E_star=100.0)
    assert small.stick_half_width == pytest.approx(b, rel=1e-9)
    assert small.half_width == pytest.approx(b)
    near = CattaneoMindlinLine(P=P, Q=mu * P * (1 - 1e-10), mu=mu, R=1.0,
                               E_star=100.0)
    assert near.stick_half_width < 1e-4 * b
    # monotone shrinking of the stick zone with Q
    cs = [CattaneoMindlinLine(P=P, Q=f * mu * P, mu=mu, R=1.0,
                              E_star=100.0).stick_half_width
          for f in np.linspace(0.0, 0.99, 12)]
    assert np.all(np.diff(cs) < 0)


def test_no_tangential_load_gives_zero_traction():
    cm = CattaneoMindlinLine(P=10.0, Q=0.0, mu=0.5, R=1.0, E_star=100.0)
    x = np.linspace(-cm.half_width, cm.half_width, 51)
    np.testing.assert_allclose(cm.shear_traction(x), 0.0,
                               atol=1e-12 * cm.peak_pressure)


@pytest.mark.parametrize("Q", [-0.1, 5.0, 6.0])
def test_cattaneo_mindlin_rejects_invalid_tangential_load(Q):
    with pytest.raises(OutsideReference, match="Cattaneo-Mindlin needs 0 <= Q < mu P"):
        CattaneoMindlinLine(P=10.0, Q=Q, mu=0.5, R=1.0, E_star=100.0)


def test_relative_l2_error_known_values():
    x = np.linspace(0.0, 1.0, 201)
    ref = np.sin

    assert relative_l2_error(x, np.sin(x), ref) == 0.0
    # a uniform 10 % scaling is a 10 % relative error
    assert relative_l2_error(x, 1.1 * np.sin(x), ref) == pytest.approx(0.1)
    # constant reference 1 and numerical 1 + x: sqrt(int x^2) = 1/sqrt(3);
    # the trapezoid rule on 201 points is accurate to ~1e-5
    assert relative_l2_error(x, 1.0 + x, np.ones_like) == pytest.approx(
        1.0 / np.sqrt(3.0), rel=1e-4)


def test_relative_l2_error_ignores_sample_order():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(-1.0, 1.0, 300))
    num = np.cos(x) + 0.05 * x**2
    perm = rng.permutation(x.size)
    e_sorted = relative_l2_error(x, num, np.cos)
    e_shuffled = relative_l2_error(x[perm], num[perm], np.cos)
    assert e_shuffled == pytest.approx(e_sorted, rel=1e-14)


def test_relative_l2_error_of_hertz_on_coarse_samples():
    h = HertzLine(P=1.0, R=1.0, E_star=1.0)
    x = np.linspace(-1.5 * h.half_width, 1.5 * h.half_width, 4001)
    assert relative_l2_error(x, h.pressure(x), h.pressure) == 0.0
    assert relative_l2_error(x, np.zeros_like(x), h.pressure) == \
        pytest.approx(1.0)


def test_relative_l2_error_rejects_bad_input():
    with pytest.raises(ValueError):
        relative_l2_error(np.arange(3.0), np.arange(4.0), np.cos)
    with pytest.raises(ValueError):
        relative_l2_error(np.arange(3.0), np.arange(3.0), np.zeros_like)
