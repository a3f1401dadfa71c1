"""Friction laws: finite-difference Jacobians, properties (hypothesis), the state machine.

Every law of the registry is checked, built from the example table it
registers (:attr:`fecontact.friction.registry.CaseLaw.example`): a law in a
new module is covered without editing this file.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fecontact.friction import alart_curnier, augmented_normal
from fecontact.friction import RESTUCK, SLIDING, STUCK, FrictionStart, StaticKinetic, registry

#: Every registered law, built from its example table
LAWS = {entry.name: entry.example_law() for entry in registry.laws()}


def _inputs(rng, m, q, sliding):
    """Trial tractions well inside (stick) or well outside (slip) the disks, away from kinks."""
    direction = rng.normal(size=(m, q))
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    normal = rng.uniform(1.0, 2.0, m)
    scale = np.where(sliding, rng.uniform(1.5, 3.0, m), rng.uniform(0.05, 0.5, m))
    trial = direction * (scale * 0.5 * normal)[:, None]
    slip = rng.normal(size=(m, q)) * 0.01
    state = np.where(rng.uniform(size=m) < 0.5, SLIDING, STUCK)
    normal0 = rng.uniform(0.5, 1.5, m)
    return trial, normal, slip, state, normal0


def _call(law, trial, normal, slip, state, normal0, dt=0.1):
    return law.return_map(trial, normal, slip, dt,
                          FrictionStart(state, normal0, np.ones(len(normal), bool)))


def assert_jacobian_by_central_differences(law, q):
    """Every derivative of ``law.return_map`` against central differences, stick and slip nodes.

    Smooth laws with a slip-rate threshold ``eps_v`` are sampled at rates on both
    sides of ``eps_v`` and ``eps_v / 2``, away from the kinks.
    """
    rng = np.random.default_rng(3 + q)
    m = 40
    sliding = rng.uniform(size=m) < 0.5
    trial, normal, slip, state, normal0 = _inputs(rng, m, q, sliding)
    eps_v = getattr(law, "eps_v", None)
    if law.smooth and eps_v:
        speed = eps_v * rng.choice([0.2, 0.375, 0.65, 1.5], m) * rng.uniform(0.9, 1.1, m)
        slip = slip / np.linalg.norm(slip, axis=1)[:, None] * (speed * 0.1)[:, None]
    r = _call(law, trial, normal, slip, state, normal0)
    h = 1e-7
    for a in range(q):
        e = np.zeros((m, q))
        e[:, a] = h
        fd_trial = (_call(law, trial + e, normal, slip, state, normal0).traction
                    - _call(law, trial - e, normal, slip, state, normal0).traction) / (2 * h)
        np.testing.assert_allclose(r.d_trial[:, :, a], fd_trial, atol=2e-6)
        fd_slip = (_call(law, trial, normal, slip + e, state, normal0).traction
                   - _call(law, trial, normal, slip - e, state, normal0).traction) / (2 * h)
        np.testing.assert_allclose(r.d_slip[:, :, a], fd_slip, atol=1e-5 * max(1.0, np.abs(fd_slip).max()))
    fd_normal = (_call(law, trial, normal + h, slip, state, normal0).traction
                 - _call(law, trial, normal - h, slip, state, normal0).traction) / (2 * h)
    np.testing.assert_allclose(r.d_normal, fd_normal, atol=2e-6)


@pytest.mark.parametrize("name", sorted(LAWS))
@pytest.mark.parametrize("q", [1, 2])
def test_law_jacobian_by_central_differences(name, q):
    assert_jacobian_by_central_differences(LAWS[name], q)


@pytest.mark.parametrize("name", sorted(LAWS))
def test_alart_curnier_jacobian_with_each_law(name):
    """The contact residual's derivatives in (lam, gap, slip) through the law, by central differences."""
    law = LAWS[name]
    rng = np.random.default_rng(11)
    m, d = 30, 3
    q = d - 1
    lam = np.column_stack([rng.uniform(0.5, 2.0, m), rng.normal(size=(m, q)) * 0.6])
    gap = rng.uniform(-0.02, 0.02, m)
    slip = rng.normal(size=(m, q)) * 0.004
    c = np.full(m, 10.0)
    state = np.where(rng.uniform(size=m) < 0.5, SLIDING, STUCK)
    normal0 = rng.uniform(0.5, 1.5, m)
    dt = 0.1

    def residual(lam, gap, slip):
        normal = augmented_normal(lam[:, 0], gap, c)
        trial = lam[:, 1:] - c[:, None] * slip
        response = law.return_map(trial, normal.traction, slip, dt,
                                  FrictionStart(state, normal0, np.ones(m, bool)))
        return alart_curnier(lam, normal, response, c)

    base = residual(lam, gap, slip)
    h = 1e-7
    keep = np.ones(m, bool)
    for j in range(d):           # drop nodes sitting on a kink (|z| = rho, aug = 0 or eps_v)
        e = np.zeros((m, d))
        e[:, j] = h
        plus, minus = residual(lam + e, gap, slip), residual(lam - e, gap, slip)
        keep &= (plus.status == minus.status) & (plus.status == base.status)
    assert keep.sum() >= m // 2
    for j in range(d):
        e = np.zeros((m, d))
        e[:, j] = h
        fd = (residual(lam + e, gap, slip).residual - residual(lam - e, gap, slip).residual) / (2 * h)
        np.testing.assert_allclose(base.d_multiplier[keep, :, j], fd[keep], atol=1e-5)
    fd = (residual(lam, gap + h, slip).residual - residual(lam, gap - h, slip).residual) / (2 * h)
    np.testing.assert_allclose(base.d_kinematics[keep, :, 0], fd[keep], atol=1e-4)
    for a in range(q):
        e = np.zeros((m, q))
        e[:, a] = h
        fd = (residual(lam, gap, slip + e).residual - residual(lam, gap, slip - e).residual) / (2 * h)
        np.testing.assert_allclose(base.d_kinematics[keep, :, 1 + a], fd[keep],
                                   atol=1e-5 * max(1.0, np.abs(fd).max()))


finite = dict(allow_nan=False, allow_infinity=False)
vectors = st.lists(st.floats(-10, 10, **finite), min_size=2, max_size=2)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(LAWS)), trial=vectors, slip=vectors,
       normal=st.floats(0, 5, **finite), normal0=st.floats(0, 5, **finite),
       state=st.sampled_from([STUCK, SLIDING, RESTUCK]), dt=st.floats(1e-3, 10, **finite),
       slip_scale=st.sampled_from([0.0, 1e-6, 1e-3, 1.0]))
def test_law_properties(name, trial, slip, normal, normal0, state, dt, slip_scale):
    law = LAWS[name]
    z = np.array([trial])
    s = np.array([slip]) * slip_scale
    r = law.return_map(z, np.array([normal]), s, dt,
                       FrictionStart(np.array([state]), np.array([normal0]), np.array([True])))
    F = r.traction[0]
    # the traction lies in the cone of the coefficient the law used
    lam = (normal0 if normal0 > 0 else normal) if law.lagged else normal
    # |F| without squaring (np.linalg.norm squares, and squares of tractions
    # below 1e-154 lose digits to underflow)
    assert np.hypot(*F) <= r.coefficient[0] * lam * (1 + 1e-12) + 1e-300
    assert r.coefficient[0] >= min(law.static, law.kinetic) - 1e-15
    if law.smooth:
        # dissipation rate -F.v >= 0 directly
        assert -F @ s[0] >= -1e-15 * np.linalg.norm(F) * np.linalg.norm(s[0])
    else:
        # at the Alart-Curnier solution lam_t = F the slip increment is (F - z)/c_t,
        # so -lam_t . Delta s >= 0 is F . (z - F) >= 0 (radial return)
        assert F @ (z[0] - F) >= -1e-12 * max(1.0, np.linalg.norm(z[0])) ** 2
        # a stick step returns the trial traction exactly
        if not r.sliding[0]:
            assert np.array_equal(F, z[0])


@settings(max_examples=200, deadline=None)
@given(v=vectors, dv=vectors, normal0=st.floats(0, 5, **finite))
def test_smooth_law_is_continuous_in_the_slip_rate(v, dv, normal0):
    """|F(v1) - F(v2)| <= L |v1 - v2| with L = lam (2 mu_max + 2 |mu_s - mu_k|)/eps_v."""
    law = LAWS["ipc"]
    dt = 1.0
    v1 = np.array([v]) * 0.01
    v2 = v1 + np.array([dv]) * 1e-4

    def force(vel):
        return law.return_map(np.zeros((1, 2)), np.ones(1), vel * dt, dt,
                              FrictionStart(np.array([STUCK]), np.array([normal0]), np.array([True]))).traction[0]
    lam = normal0 if normal0 > 0 else 1.0        # no lagged force yet: the current one (1)
    L = lam * (2 * max(law.mu_s, law.mu_k) + 2 * abs(law.mu_s - law.mu_k)) / law.eps_v
    assert np.linalg.norm(force(v1) - force(v2)) <= L * np.linalg.norm(v1 - v2) * (1 + 1e-9) + 1e-15


def test_static_kinetic_state_machine():
    """stuck -> breakaway (revise to sliding, kinetic traction) -> re-stuck -> static radius again."""
    law = StaticKinetic(0.5, 0.3)
    closed = np.array([True])
    normal = np.array([1.0])
    one = np.ones(1, bool)

    def step(z, state):
        return law.return_map(np.array([[z]]), normal, np.zeros((1, 1)), 1.0,
                              FrictionStart(np.array([state]), normal, one))
    # stuck, inside the static disk: stick, stays stuck, no revision
    r = step(0.45, STUCK)
    assert not r.sliding[0] and r.traction[0, 0] == 0.45
    assert law.next_state(np.array([STUCK]), r, closed)[0] == STUCK
    assert law.revise(np.array([STUCK]), r, closed) is None
    # beyond the static disk: breakaway -> the increment is re-solved as sliding ...
    r = step(0.6, STUCK)
    assert r.sliding[0]
    revised = law.revise(np.array([STUCK]), r, closed)
    assert revised[0] == SLIDING
    # ... where the traction is the kinetic one, opposing the slip
    r = step(0.6, SLIDING)
    assert r.sliding[0] and abs(r.traction[0, 0] - 0.3) < 1e-15
    assert law.next_state(np.array([SLIDING]), r, closed)[0] == SLIDING
    # a sliding node whose trial falls inside the kinetic disk re-sticks, at the trial traction
    r = step(0.25, SLIDING)
    assert not r.sliding[0] and r.traction[0, 0] == 0.25
    assert law.next_state(np.array([SLIDING]), r, closed)[0] == RESTUCK
    # re-stuck nodes have the static radius again
    r = step(0.45, RESTUCK)
    assert not r.sliding[0]
    assert law.next_state(np.array([RESTUCK]), r, closed)[0] == STUCK
    # an open node forgets its state
    assert law.next_state(np.array([SLIDING]), r, np.array([False]))[0] == STUCK
    # equal coefficients never revise
    same = StaticKinetic(0.3, 0.3)
    r = same.return_map(np.array([[0.6]]), normal, np.zeros((1, 1)), 1.0,
                        FrictionStart(np.array([STUCK]), normal, one))
    assert same.revise(np.array([STUCK]), r, closed) is None


def test_masked_nodes_transmit_no_friction():
    """A node masked by ``FrictionStart.engaged`` gets a disk of radius 0 (the solver masks none)."""
    for law in LAWS.values():
        r = law.return_map(np.array([[0.3, 0.1]]), np.array([1.0]), np.array([[0.01, 0.0]]), 0.1,
                           FrictionStart(np.array([STUCK]), np.array([1.0]), np.array([False])))
        np.testing.assert_array_equal(r.traction, 0.0)
