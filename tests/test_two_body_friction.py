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


def test_conforming_3d_blocks_slide_off_each_other():
    """Two conforming tetrahedral blocks (coincident interface nodes), the upper one pressed and
    then slid by 0.3 (1.5 elements) with mu = 0.3, so rows of its nodes slide past the free edge
    of the lower block's face.  Formerly Newton cycled at the first sliding increment (a node at
    the edge alternated between open and sliding); a node is now open past a free edge only if
    it was past it at the start of the increment too.  Checks: convergence, every closed node
    slides on the cone, the open nodes are the ones past the edge, global equilibrium, and the
    independent residual check."""
    import skfem

    import fecontact as fc
    from fecontact.run.verify import residual_check

    xs = np.linspace(0.0, 1.0, 6)
    mat = fc.LinearElastic(E=1e3, nu=0.3)
    lower = fc.Body("lower", skfem.MeshTet.init_tensor(xs, xs, np.linspace(0.0, 0.5, 4)), "P1", mat)
    upper = fc.Body("upper", skfem.MeshTet.init_tensor(xs, xs, np.linspace(0.5, 1.0, 4)), "P1", mat)
    lower.fix(lambda x: np.isclose(x[2], 0.0), x=0.0, y=0.0, z=0.0, name="base")
    press = fc.Amplitude((0.0, 1.0, 2.0), (0.0, 1.0, 1.0))
    move = fc.Amplitude((0.0, 1.0, 2.0), (0.0, 0.0, 1.0))
    top = lambda x: np.isclose(x[2], 1.0)                                   # noqa: E731
    upper.fix(top, z=-0.01, amplitude=press, name="press")
    upper.fix(top, x=0.3, amplitude=move, name="slide")
    upper.fix(top, y=0.0, name="guide")
    face = lambda x: np.isclose(x[2], 0.5)                                  # noqa: E731
    pair = fc.Contact(upper.surface(face), lower.surface(face), fc.Coulomb(mu=0.3), name="interface")
    result = fc.Model([lower, upper], [pair]).solve(steps=10, t_end=2.0)
    assert result.converged, result.failure

    c = result.contact("interface")
    closed = c.status != Status.OPEN
    assert np.all(c.status[closed] == Status.SLIP) and closed.sum() >= 10
    shear = np.linalg.norm(c.shear, axis=1)
    np.testing.assert_allclose(shear[closed], 0.3 * c.pressure[closed], rtol=1e-6)
    # the upper block slid by 0.3 less its shear: its rows of nodes at x = 0.8 and 1 are now
    # beyond the lower face's edge x = 1 and open, the others slide on the lower face
    beyond = c.points[0] > 0.8 - 1e-9
    assert np.array_equal(~closed, beyond)
    # equilibrium of each body (its supports against the contact forces, rebuilt from the
    # tractions), the gaps of its own brute-force search, and the cone
    check = residual_check(result.problem, result.state)
    assert check.passed, check.failures()


@pytest.mark.parametrize("kind", ["tet", "hex"])
def test_conforming_3d_blocks_on_rollers_stick_uniformly(kind):
    """The 3D counterpart of coincident_blocks: two conforming blocks on rollers at all four
    sides, the lower one on its base, a pressure 10 on the upper one's top, mu = 0.5.  The exact
    state is uniform: every interface node stuck with pressure 10 and no shear, also the edge
    nodes of the interface, which lie on the master's free edges."""
    import skfem

    import fecontact as fc

    xs = np.linspace(0.0, 1.0, 5)
    mesh, element = (skfem.MeshTet, "P1") if kind == "tet" else (skfem.MeshHex, "Q1")
    mat = fc.LinearElastic(E=1e3, nu=0.3)
    lower = fc.Body("lower", mesh.init_tensor(xs, xs, np.linspace(0.0, 0.5, 3)), element, mat)
    upper = fc.Body("upper", mesh.init_tensor(xs, xs, np.linspace(0.5, 1.0, 3)), element, mat)
    for body in (lower, upper):
        body.fix(lambda x: np.isclose(x[0], 0.0) | np.isclose(x[0], 1.0), x=0.0,
                 name=f"{body.name}-x-sides")
        body.fix(lambda x: np.isclose(x[1], 0.0) | np.isclose(x[1], 1.0), y=0.0,
                 name=f"{body.name}-y-sides")
    lower.fix(lambda x: np.isclose(x[2], 0.0), z=0.0, name="base")
    upper.pressure(lambda x: np.isclose(x[2], 1.0), 10.0)
    face = lambda x: np.isclose(x[2], 0.5)                                  # noqa: E731
    pair = fc.Contact(upper.surface(face), lower.surface(face), fc.Coulomb(mu=0.5), name="interface")
    result = fc.Model([lower, upper], [pair]).solve(steps=2)
    assert result.converged, result.failure
    assert max(r.newton_iterations for r in result.records) <= 2
    c = result.contact("interface")
    assert np.all(c.status == Status.STICK)
    np.testing.assert_allclose(c.pressure, 10.0, rtol=1e-9)
    np.testing.assert_allclose(c.shear, 0.0, atol=1e-9 * 10.0)


def test_gmsh_blocks_slide_off_each_other():
    """Two copies of the Gmsh tetrahedral block meshes/block.msh (element 0.125), the upper one
    put on the lower shifted by 0.05 (0.4 elements) in x, so the interface is non-conforming and
    the upper block overhangs the lower one's edge.  Pressed, then slid by 0.3 with mu = 0.3
    (with the former free-edge rule the same blocks, not shifted, crawled at t = 1.1898 through
    hundreds of cut-backs).  Checks:
    convergence without cut-backs, every closed node slides on the cone, and the independent
    residual check (equilibrium, gaps of its own brute-force search, cone)."""
    import skfem

    import fecontact as fc
    from conftest import ROOT
    from fecontact.run.verify import residual_check

    low = skfem.Mesh.load(str(ROOT / "meshes" / "block.msh"))
    up = low.translated((0.05, 0.0, 0.5))
    mat = fc.LinearElastic(E=1e3, nu=0.3)
    lower, upper = fc.Body("lower", low, "P1", mat), fc.Body("upper", up, "P1", mat)
    lower.fix("bottom", x=0.0, y=0.0, z=0.0, name="base")
    press = fc.Amplitude((0.0, 1.0, 2.0), (0.0, 1.0, 1.0))
    move = fc.Amplitude((0.0, 1.0, 2.0), (0.0, 0.0, 1.0))
    upper.fix("top", z=-0.01, amplitude=press, name="press")
    upper.fix("top", x=0.3, amplitude=move, name="slide")
    upper.fix("top", y=0.0, name="guide")
    # node-to-facet's free-edge rule is what this checks (mortar, which the defaults would choose
    # here, does not yet converge once the slave slides past the master's edge)
    pair = fc.Contact(upper.surface("bottom"), lower.surface("top"), fc.Coulomb(mu=0.3),
                      name="interface", formulation="node_to_segment")
    # non-conforming: some slave nodes lie on no master node
    slave, master = up.p[:, up.nodes_satisfying(lambda x: np.isclose(x[2], 0.5))], \
        low.p[:, low.nodes_satisfying(lambda x: np.isclose(x[2], 0.5))]
    nearest = np.min(np.linalg.norm(slave.T[:, None] - master.T[None], axis=-1), axis=1)
    assert np.sum(nearest > 1e-6) >= 10
    result = fc.Model([lower, upper], [pair]).solve(steps=10, t_end=2.0)
    assert result.converged, result.failure
    assert all(r.cutbacks == 0 for r in result.records)
    c = result.contact("interface")
    closed = c.status != Status.OPEN
    assert np.all(c.status[closed] == Status.SLIP) and closed.sum() >= 30
    shear = np.linalg.norm(c.shear, axis=1)
    np.testing.assert_allclose(shear[closed], 0.3 * c.pressure[closed], rtol=1e-6)
    check = residual_check(result.problem, result.state)
    assert check.passed, check.failures()
