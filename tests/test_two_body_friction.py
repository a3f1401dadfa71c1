"""Frictional two-body interfaces meshed conformingly (coincident interface nodes, zero initial gap).

``cases/coincident_blocks.toml``: two blocks on rollers pressed together with friction; the
exact state is uniform, every node stuck.  At the end nodes the slave node and the master node it
meets are both held in x, so the tangential slip there is fixed by supports and its multiplier
is undetermined: Newton pins it (:func:`fecontact.solve.newton.decoupled_multipliers`) instead
of failing on a singular matrix.

``cases/hub_in_rim.toml``: a stiff hub (E = 100 E_rim) in a soft rim shrunk onto it by a
pressure and twisted by tangential tractions, mu = 0.5; the rim is held by the contact alone.
"""

import numpy as np
import pytest

from conftest import CASES
from fecontact.friction import Status
from fecontact.run.static import run
from fecontact.solve.newton import decoupled_multipliers


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run(CASES / f"{name}.toml", tmp_path_factory.mktemp(name))
        return cache[name]
    return get


def increment_iterations(r):
    return [n for step in r.summary["steps"] for n in step["increment_iterations"]]


def test_coincident_blocks_uniform_stick(runs):
    r = runs("coincident_blocks")
    assert r.summary["converged"]
    # measured: 1 and 0 Newton iterations (the second increment starts at the solution)
    assert max(increment_iterations(r)) <= 1
    s = r.state
    assert np.all(s.status == Status.STICK)
    np.testing.assert_allclose(s.multiplier[:, 0], 10.0, rtol=1e-12)     # n.sigma.n = p
    assert np.max(np.abs(s.multiplier[:, 1])) <= 1e-12 * 10.0          # no shear in the exact state
    assert r.summary["metrics"]["stress_deviation"]["value"] <= 1e-12   # measured 1e-14
    assert r.summary["metrics"]["pressure_deviation"]["value"] <= 1e-12
    # the base carries the pressure times the width
    assert abs(r.summary["reaction"]["bottom"][1] - 10.0) <= 1e-10


def test_coincident_blocks_pins_only_the_held_end_nodes(runs):
    r = runs("coincident_blocks")
    p = r.model.problem
    ev = p.evaluate(p.unknowns(r.state), r.state.t, r.state, p.static_bulk)
    terms = decoupled_multipliers(ev)
    rows = np.unique(terms.nonzero()[0])
    nodes, comps = np.divmod(rows, p.dim)
    assert np.all(comps == 1)                                 # tangential rows only
    x = p.X[0, p.system.global_nodes(p.pairs[0].slave.body, p.pairs[0].slave.nodes)]
    np.testing.assert_allclose(np.sort(x[nodes]), [0.0, 1.0])  # the two end nodes on the rollers


def test_hub_in_rim_equilibrium_and_friction(runs):
    r = runs("hub_in_rim")
    assert r.summary["converged"]
    # measured: 3 and 1 Newton iterations
    assert max(increment_iterations(r)) <= 3
    p, s = r.model.problem, r.state
    rim = p.system.global_nodes(1, np.arange(p.system.bodies[1].n_nodes))
    X = p.X[:, rim]
    f_ext = p.system.external_force(1.0).reshape(-1, 2).T[:, rim]
    applied = np.sum(X[0] * f_ext[1] - X[1] * f_ext[0])     # 4 t on the polygon: -5.971
    assert abs(applied + 4 * 1.5) <= 0.01 * 6.0
    # the rim is held by the contact alone: the interface resultant (on the deformed interface)
    # balances the loads, force to 1e-6 of the pressure load 2 pi b p, moment to the first-order
    # change of the lever arms (measured 1.6e-5 and 7.7e-4)
    pair = r.solution.pair("interface")
    assert np.linalg.norm(pair.force) <= 1e-6 * 2 * np.pi * 10.0
    assert abs(pair.moment[2] / applied + 1.0) <= 1.5e-3
    # Coulomb cone, and a mostly stuck interface below the friction limit (torque 6 of about 10)
    lam_n, lam_t = s.multiplier[:, 0], np.abs(s.multiplier[:, 1])
    assert np.all(lam_t <= 0.5 * lam_n * (1 + 1e-9))
    slipping = s.status == Status.SLIP
    np.testing.assert_allclose(lam_t[slipping], 0.5 * lam_n[slipping], rtol=1e-8)
    assert np.all(s.status != Status.OPEN)
    assert 0 < slipping.sum() <= 4                            # measured 2 of 32
    # mean interface pressure against a rim shrunk onto a rigid hub, 2 p b^2 / (b^2 + a^2 + (1-2nu)(b^2-a^2))
    a, b, nu = 0.5, 1.0, 0.3
    p_c = 2 * 10.0 * b**2 / (b**2 + a**2 + (1 - 2 * nu) * (b**2 - a**2))
    assert abs(lam_n.mean() / p_c - 1.0) <= 0.03              # measured -1.7 %
