"""Mortar contact on smoothed curves (fecontact.contact.mortar2d_curved): the straight case is the
straight mortar, exact derivatives against central differences, the quadrature on a circle, the
overlaps' partition of the slave, and the option that switches it on."""

import numpy as np
import pytest

from fecontact.contact import mortar2d, mortar2d_curved as mc
from fecontact.contact.smoothing import smoothed_pair

STRAIGHT = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0])


def _flat_pairs(seed=0, p=6):
    """Straight slave and master segments facing each other, tilted, overlapping in part."""
    rng = np.random.default_rng(seed)
    s1 = np.column_stack([rng.uniform(0.8, 1.0, p), rng.uniform(-0.01, 0.01, p)])
    s2 = np.column_stack([rng.uniform(0.0, 0.2, p), rng.uniform(-0.01, 0.01, p)])
    a = np.column_stack([rng.uniform(-0.2, 0.5, p), rng.uniform(-0.05, -0.03, p)])
    b = np.column_stack([rng.uniform(0.6, 1.3, p), rng.uniform(-0.05, -0.03, p)])
    coords = np.hstack([s1, s2, a, b])
    coords0 = coords + 1e-3 * rng.standard_normal(coords.shape)
    tangent0 = np.column_stack([-np.ones(p), 0.01 * rng.standard_normal(p)])
    tangent0 /= np.linalg.norm(tangent0, axis=1)[:, None]
    return coords, coords0, tangent0, rng.uniform(size=p) > 0.5, rng.uniform(0.7, 1.0, p)


def test_straight_curves_give_the_straight_mortar_integrals():
    coords, coords0, tangent0, first, length = _flat_pairs()
    coef = np.tile(STRAIGHT, (coords.shape[0], 1))
    got = mc.curved_pair_integrals(coords, coords0, coef, tangent0, first, length)
    c0 = coords0
    ref = mortar2d.pair_integrals(*(coords[:, 2 * i:2 * i + 2] for i in range(4)),
                                  *(c0[:, 2 * i:2 * i + 2] for i in range(4)), tangent0, first, length)
    assert np.all(got[2] > 0.0)
    for jet, expected in zip(got[:2], ref[:2]):
        for part in ("value", "grad", "hess"):
            assert np.allclose(getattr(jet, part), getattr(expected, part), rtol=0.0, atol=1e-13), part
    assert np.allclose(got[2], ref[2], rtol=0.0, atol=1e-14)
    assert np.allclose(got[3], ref[3], rtol=0.0, atol=1e-14)


def _arc(n, radius, reverse, angle=np.pi / 2):
    theta = np.linspace(0.0, angle, n + 1)
    x = np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])
    return x[::-1] if reverse else x


def _circle_pairs(n_slave=20, n_master=32, radius=1.0, delta=1e-3):
    """Every (slave segment, master segment) pair of a bore (slave, clockwise: the hub outside on its
    left) around a shaft (master, anticlockwise), quarter circles, their frame coefficients."""
    S, M = _arc(n_slave, radius - delta / 2, True), _arc(n_master, radius + delta / 2, False)

    def coefficients(X):
        n = X.shape[0] - 1
        a, b = X[:-1], X[1:]
        smooth_a, smooth_b = np.arange(n) > 0, np.arange(n) < n - 1
        p = np.where(smooth_a[:, None], X[np.maximum(np.arange(n) - 1, 0)], 2 * a - b)
        q = np.where(smooth_b[:, None], X[np.minimum(np.arange(n) + 2, n)], 2 * b - a)
        return mc.frame_coefficients(a, b, p, q, smooth_a, smooth_b)

    e, f = (g.ravel() for g in np.meshgrid(np.arange(n_slave), np.arange(n_master), indexing="ij"))
    coords = np.hstack([S[e], S[e + 1], M[f], M[f + 1]])
    coef = np.hstack([coefficients(S)[e], coefficients(M)[f]])
    return coords, coef, np.linalg.norm(S[e + 1] - S[e], axis=1), e


def test_curves_reproduce_the_reference_hermite_curves_of_a_circle():
    """In the reference configuration the curve carried by the chord is the Hermite curve: on a
    quarter circle with 20 segments its distance to the circle is below 1e-6 of the radius (the
    chords sag by 7.7e-4)."""
    coords, coef, _, _ = _circle_pairs(20, 32)
    xi = np.linspace(0.0, 1.0, 11)[:, None]
    a, t = coords[:, 0:2], coords[:, 2:4] - coords[:, 0:2]
    x = mc.frame_curve(xi, [a[:, 0], a[:, 1]], [t[:, 0], t[:, 1]], coef[:, :4])
    radius = np.hypot(x[0], x[1])
    assert np.abs(radius - (1.0 - 0.5e-3)).max() < 1e-6
    chord = 0.5 * (a + coords[:, 2:4])
    assert 1.0 - 0.5e-3 - np.hypot(*chord.T).min() > 7e-4


def test_quadrature_on_a_circle_and_the_overlaps_partition_the_slave():
    """GAUSS_POINTS points integrate a circle's contributions to round-off (a 12-point rule as the
    reference): 20 slave against 32 master segments per quarter; the overlaps of each slave segment
    with the master curves add up to the whole segment."""
    coords, coef, length, e = _circle_pairs()
    p = coords.shape[0]
    tangent0, first = np.zeros((p, 2)), np.ones(p, dtype=bool)
    default = mc.GAUSS_POINTS
    try:
        values = {}
        for n in (2, 3, default, 12):
            mc.GAUSS_POINTS = n
            gap, _, weight, _ = mc.curved_pair_integrals(coords, coords, coef, tangent0, first, length)
            values[n] = gap.value
    finally:
        mc.GAUSS_POINTS = default
    scale = np.abs(values[12]).max()
    errors = {n: np.abs(values[n] - values[12]).max() / scale for n in values}
    assert errors[default] < 1e-12
    assert errors[2] > 1e-6 and errors[3] > 1e-11          # fewer points are not enough
    # int N over the overlaps of each slave segment: half its chord length (N = 1 - eta)
    assert np.allclose(np.bincount(e, weights=weight), 0.5 * length[::32], rtol=0.0, atol=1e-14)
    # the interference: int Phi g = -delta int Phi = -delta L / 2 per segment, to the curves' error
    gap_sum = np.bincount(e, weights=values[12])
    assert np.allclose(gap_sum, -1e-3 * 0.5 * length[::32], rtol=2e-3)


def _curved_state(seed):
    coords, coef, length, _ = _circle_pairs(5, 7, radius=1.0, delta=2e-3)
    rng = np.random.default_rng(seed)
    ref = np.hstack([coords[:, :4], coords[:, 4:]])
    lo, hi, _, _ = mc.overlap_interval(*mc.segment_curves([ref[:, i] for i in range(8)], coef))
    keep = hi - lo > 0.05
    coords, coef, length = coords[keep], coef[keep], length[keep]
    coords = coords + 2e-3 * rng.standard_normal(coords.shape)
    coords0 = coords + 1e-3 * rng.standard_normal(coords.shape)
    p = coords.shape[0]
    tangent0 = rng.standard_normal((p, 2))
    tangent0 /= np.linalg.norm(tangent0, axis=1)[:, None]
    first = rng.uniform(size=p) > 0.5
    return coords, coords0, coef, tangent0, first, length


@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_and_hessian_match_central_differences(seed):
    """Gap and slip integrals on perturbed curved pairs: gradients against central differences of
    the values, Hessians against central differences of the gradients (overlap ends inside the
    slave segment and at its ends both occur)."""
    coords, coords0, coef, tangent0, first, length = _curved_state(seed)
    lo, hi, lo_inner, hi_inner = mc.overlap_interval(*mc.segment_curves([coords[:, i] for i in range(8)], coef))
    assert lo_inner.any() and hi_inner.any() and (~lo_inner).any() and (~hi_inner).any()

    def evaluate(c):
        gap, slip, _, _ = mc.curved_pair_integrals(c, coords0, coef, tangent0, first, length)
        return gap, slip

    base = evaluate(coords)
    h = 1e-6
    for j in range(8):
        step = np.zeros_like(coords)
        step[:, j] = h
        plus, minus = evaluate(coords + step), evaluate(coords - step)
        for k in range(2):
            fd_grad = (plus[k].value - minus[k].value) / (2 * h)
            fd_hess = (plus[k].grad - minus[k].grad) / (2 * h)
            assert np.allclose(base[k].grad[:, j], fd_grad, rtol=1e-6, atol=1e-9 * np.abs(base[k].grad).max())
            assert np.allclose(base[k].hess[:, j, :], fd_hess, rtol=1e-5,
                               atol=1e-6 * np.abs(base[k].hess).max())


def test_the_smoothing_option_applies_to_mortar_pairs():
    """``smoothed_pair``: a mortar pair with a curved surface is smoothed with ``auto`` and
    ``hermite``, not with ``none``; a straight one only with ``hermite``."""
    import fecontact as fc
    from fecontact.mesh.generate2d import half_disc, rectangle

    material = fc.LinearElastic(E=1.0, nu=0.3)

    def smoothed(curved, smoothing):
        if curved:
            lower = fc.Body("lower", half_disc(1.0, center=(0.0, -1.0), side="upper", h_contact=0.2,
                                               h_far=0.4, refine_width=0.5), "P1", material)
        else:
            lower = fc.Body("lower", rectangle(-1.0, 1.0, -1.0, 0.0, 4, 2), "P1", material)
        upper = fc.Body("upper", rectangle(-1.5, 1.5, 0.0, 1.0, 5, 3), "P1", material)
        contact = fc.Contact(upper.surface("bottom"), lower.surface("contact" if curved else "top"),
                             fc.Frictionless(), formulation="mortar", smoothing=smoothing)
        problem = fc.Model([lower, upper], [contact]).assemble().problem
        return smoothed_pair(problem.pairs[0], problem.system)

    assert smoothed(True, "auto") and smoothed(True, "hermite") and not smoothed(True, "none")
    assert not smoothed(False, "auto") and smoothed(False, "hermite")
