"""The Python model API (fecontact.Body, Contact, Tie, Model, Solution) as documented.

Physics is checked against closed forms (Hertz line contact, uniform
compression); the case-file path is checked to build the same model as the
API calls it is made of.
"""

from pathlib import Path

import meshio
import numpy as np
import pytest
import skfem

import fecontact as fc

ROOT = Path(__file__).resolve().parents[1]
HALF_DISC = ROOT / "meshes" / "half_disc.msh"


def hertz_line(force_per_length, radius, e_star):
    """Half-width and peak pressure of 2D Hertz contact of a cylinder on a rigid flat."""
    a = np.sqrt(4.0 * force_per_length * radius / (np.pi * e_star))
    return a, 2.0 * force_per_length / (np.pi * a)


def test_issue_example_hertz_on_a_gmsh_mesh_loaded_by_scikit_fem():
    mesh = skfem.Mesh.load(str(HALF_DISC))
    disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=1e4, nu=0.3, plane="strain"))
    disc.fix("flat", y=-0.02)
    disc.fix(point=(0.0, 1.0), x=0.0)
    pair = fc.Contact(disc.surface("contact"),
                      fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)), fc.Frictionless())
    result = fc.Model([disc], [pair]).solve(steps=4)
    assert result.converged
    reaction = result.reaction("flat")
    assert reaction.shape == (2,)
    force = result.pair("contact0").force
    # the support holds what the contact carries
    assert reaction[1] == pytest.approx(-force[1], rel=1e-8)
    assert abs(reaction[0]) < 1e-8 * abs(reaction[1])
    # pressure against Hertz for the measured load
    e_star = 1e4 / (1 - 0.3 ** 2)
    a, p0 = hertz_line(force[1], 1.0, e_star)
    x = result.slave_points[0]
    assert result.slave_points.shape == (2, x.size) and result.pressure.shape == x.shape
    assert result.pressure.max() == pytest.approx(p0, rel=0.01)     # measured 0.49 %
    loaded = result.pressure > 0
    assert np.abs(x[loaded]).max() == pytest.approx(a, rel=0.1)
    grid = result.to_pyvista()
    assert grid.n_points == disc.part.n_nodes
    for name in ("displacement", "contact_pressure", "contact_normal", "contact_shear1",
                 "friction_utilisation", "von_mises"):
        assert name in grid.point_data
    assert np.allclose(np.asarray(grid.point_data["contact_pressure"])[disc.surface("contact")
                                                                         .surface.nodes],
                       result.pressure)


def _case_and_api(case_path, make_api_model):
    case = fc.load_case(case_path)
    from_case = fc.build_model(case).problem
    from_api = make_api_model().assemble().problem
    return from_case, from_api


def test_case_file_builds_the_model_its_api_calls_build():
    """hertz2d_gmsh written out in API calls gives the same stiffness, loads and pairs."""
    def api():
        mesh = fc.load_mesh(ROOT / "meshes" / "half_disc_p2.msh")
        disc = fc.Body("disc", mesh, "P2", fc.LinearElastic(1.0e4, 0.3))
        disc.fix("flat", y=-0.02)
        disc.fix(point=(0.0, 1.0), x=0.0, name="top-centre")
        pair = fc.Contact(disc.surface("contact"), fc.RigidLine((0.0, 0.0), (0.0, 1.0)),
                          name="disc-on-flat")
        return fc.Model([disc], [pair])

    case, mine = _case_and_api(ROOT / "cases" / "hertz2d_gmsh.toml", api)
    assert (case.system.K_hat != mine.system.K_hat).nnz == 0
    assert np.array_equal(case.system.prescribed(1.0), mine.system.prescribed(1.0))
    assert np.array_equal(case.pairs[0].c_n, mine.pairs[0].c_n)
    assert case.pairs[0].name == mine.pairs[0].name
    assert np.array_equal(case.pairs[0].slave.nodes, mine.pairs[0].slave.nodes)


def test_meshes_from_meshio_paths_and_quadratic_scikit_fem_meshes():
    m = skfem.MeshTri.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 5))
    m = m.with_boundaries({"bottom": lambda x: np.isclose(x[1], 0.0),
                           "top": lambda x: np.isclose(x[1], 1.0)})
    material = fc.LinearElastic(100.0, 0.25)
    from_path = fc.Body("a", HALF_DISC, None, material)
    assert from_path.part.element == "P1" and "contact" in from_path.mesh.boundaries
    points = np.asarray(m.p.T)
    from_meshio = fc.Body("b", meshio.Mesh(points, [("triangle", m.t.T)]), "P1", material)
    assert from_meshio.part.n_nodes == m.p.shape[1]
    quad = skfem.MeshQuad.init_tensor(np.linspace(0, 1, 3), np.linspace(0, 1, 3))
    assert fc.Body("c", quad, None, material).part.element == "Q1"
    # a quadratic mesh keeps its boundaries and is given P2 elements by default
    quadratic = skfem.MeshTri2.init_circle(2)
    quadratic = quadratic.with_boundaries({"right": lambda x: x[0] > 0.99 * np.abs(x).max()})
    body = fc.Body("d", quadratic, None, material)
    assert body.part.element == "P2"
    assert body.part.mesh.p.shape[1] == np.unique(quadratic.t).size
    right = body.part.mesh.p[:, body.part.mesh.facets[:, body.part.facets("right")]]
    assert np.all(right[0] > 0.9)
    assert fc.Body("e", m, skfem.ElementTriP2(), material).part.element == "P2"


def test_uniform_compression_with_callable_boundaries_and_point_supports():
    """A block squeezed onto a rigid line: pressure E' * strain at every contact node."""
    m = skfem.MeshQuad.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 5))
    block = fc.Body("block", m, "Q1", fc.LinearElastic(E=200.0, nu=0.3, plane="stress"))
    block.fix(lambda x: np.isclose(x[1], 1.0), y=-0.01, name="top")
    block.fix(point=(1.0, 1.0), x=0.0)
    bottom = block.surface(lambda x: np.isclose(x[1], 0.0))
    result = fc.Model([block], [fc.Contact(bottom, fc.RigidLine((0, 0), (0, 1)))]).solve(steps=1)
    assert result.converged
    stress = 200.0 * 0.01                       # plane stress, free lateral expansion
    assert result.reaction("top")[1] == pytest.approx(-stress * 2.0, rel=1e-10)
    weights = bottom.surface.area
    assert np.sum(result.pressure * weights) == pytest.approx(stress * 2.0, rel=1e-10)
    assert np.allclose(result.pressure, stress, rtol=1e-8)


def test_tied_pieces_act_as_one_block():
    """Two non-matching tied pieces under uniform compression: the pressure of one block."""
    lower = skfem.MeshTri.init_tensor(np.linspace(0, 2, 8), np.linspace(0, 0.5, 3))
    upper = skfem.MeshTri.init_tensor(np.linspace(0, 2, 5), np.linspace(0.5, 1.0, 3))
    material = fc.LinearElastic(E=50.0, nu=0.2)
    a = fc.Body("lower", lower, "P1", material)
    b = fc.Body("upper", upper, "P1", material)
    b.fix(lambda x: np.isclose(x[1], 1.0), y=-0.02, name="top")
    b.fix(point=(1.0, 1.0), x=0.0)
    tie = fc.Tie(a.surface(lambda x: np.isclose(x[1], 0.5)),
                 b.surface(lambda x: np.isclose(x[1], 0.5)))
    contact = fc.Contact(a.surface(lambda x: np.isclose(x[1], 0.0)), fc.RigidLine((0, 0), (0, 1)))
    result = fc.Model([a, b], [contact, tie]).solve(steps=2)
    assert result.converged
    stress = 50.0 / (1 - 0.2 ** 2) * 0.02      # plane strain, free lateral expansion
    assert np.allclose(result.pressure, stress, rtol=1e-8)
    assert result.reaction("top")[1] == pytest.approx(-2.0 * stress, rel=1e-10)


def test_output_folder_and_failed_solution(tmp_path):
    m = skfem.MeshTri.init_tensor(np.linspace(0, 1, 5), np.linspace(0, 1, 5))
    body = fc.Body("b", m, "P1", fc.LinearElastic(10.0, 0.3))
    body.fix(lambda x: np.isclose(x[1], 1.0), y=-0.01, name="top")
    body.fix(point=(0.5, 1.0), x=0.0)
    pair = fc.Contact(body.surface(lambda x: np.isclose(x[1], 0.0)),
                      fc.RigidLine((0, 0), (0, 1), displacement=(0.0, 0.0)), fc.Coulomb(0.3))
    model = fc.Model([body], [pair])
    result = model.solve(levels=[0.5, 1.0], out=tmp_path / "out")
    assert result.converged and len(result.records) == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "solution.pvd", "step_0001.vtu", "step_0002.vtu"]
    assert result.contact().status.shape == result.pressure.shape
    # a Newton budget of one iteration cannot close the contact: the failure is reported,
    # not raised, and the state is the last accepted one
    failed = model.solve(steps=1, newton={"max_iterations": 1}, stepping={"max_cutbacks": 1})
    assert not failed.converged and "cut-backs" in failed.failure
    assert failed.state.t < 1.0
    with pytest.raises(ValueError, match="steps must be a whole number"):
        model.solve(steps=1.5)
    with pytest.raises(ValueError, match="levels must be finite"):
        model.solve(levels=[0.5, float("inf")])


@pytest.mark.parametrize("call, message", [
    (lambda b: b.fix("nowhere"), "has no boundary 'nowhere'"),
    (lambda b: b.fix("top", point=(0.0, 1.0)), "not both"),
    (lambda b: b.fix(point=(0.0, 0.0, 0.0)), "needs 2 finite coordinates"),
    (lambda b: b.fix("top", z=0.0), "component 'z' does not exist in 2D"),
    (lambda b: b.couple("top", "xy"), "one component"),
    (lambda b: b.pressure("top", float("nan")), "a pressure needs 1 finite number"),
    (lambda b: b.traction("top", ["a", 1.0]), "a traction needs 2 finite numbers"),
    (lambda b: b.surface(lambda x: x[0] > 5.0), "selects no boundary facet"),
    (lambda b: fc.Contact(b.surface("top"), fc.RigidPlane((0, 0, 0), (0, 0, 1))), "3D obstacle"),
    (lambda b: fc.Contact(b.surface("top"), fc.RigidLine((0, 0), (0, 1)), formulation="mortar"),
     "needs a body as master"),
    (lambda b: fc.RigidLine((0, 0), (0, 0)), "normal must be non-zero"),
    (lambda b: fc.Model([b, b]), "used twice"),
])
def test_errors_name_the_problem(call, message):
    m = skfem.MeshTri.init_tensor(np.linspace(0, 1, 3), np.linspace(0, 1, 3))
    m = m.with_boundaries({"top": lambda x: np.isclose(x[1], 1.0)})
    body = fc.Body("b", m, "P1", fc.LinearElastic(10.0, 0.3))
    with pytest.raises((ValueError, KeyError), match=message):
        call(body)


def test_dynamic_block_sliding_down_an_incline():
    """tan(theta) = 0.6 > mu_s: the block accelerates at g (sin theta - mu_k cos theta)."""
    theta = np.arctan(0.6)
    g, rho = 10.0, 100.0
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 0.2, 9), np.linspace(0, 0.1, 5))
    block = fc.Body("block", mesh, "Q1", fc.LinearElastic(1e7, 0.3, density=rho))
    block.body_force((rho * g * np.sin(theta), -rho * g * np.cos(theta)))
    pair = fc.Contact(block.surface(lambda x: np.isclose(x[1], 0.0)),
                      fc.RigidLine((0.0, 0.0), (0.0, 1.0)), fc.StaticKinetic(0.5, 0.3))
    result = fc.Model([block], [pair]).solve_dynamic(dt=0.004, t_end=0.12,
                                                     integrator="generalized_alpha", rho_inf=0.5)
    assert result.converged
    assert result.records[-1].t == pytest.approx(0.12)
    accel = g * (np.sin(theta) - 0.3 * np.cos(theta))
    # x(t) = a t^2 / 2 from rest; the elastic settling under the sudden load is a small offset
    x_final = result.displacement[0].mean()
    assert x_final == pytest.approx(0.5 * accel * 0.12 ** 2, rel=1e-3)    # measured 2.6e-4
    assert np.all(result.contact().status == fc.Status.SLIP)


def test_model_check_names_the_free_motion_before_solving():
    """A block held only vertically on frictionless contact: refused before any solve."""
    m = skfem.MeshQuad.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 5))
    block = fc.Body("block", m, "Q1", fc.LinearElastic(200.0, 0.3))
    block.fix(lambda x: np.isclose(x[1], 1.0), y=-0.01, name="top")
    floor = block.surface(lambda x: np.isclose(x[1], 0.0))
    model = fc.Model([block], [fc.Contact(floor, fc.RigidLine((0, 0), (0, 1)))])
    (finding,) = model.check()
    assert "body 'block'" in finding and "translation along x" in finding
    with pytest.raises(ValueError, match="translation along x"):
        model.solve()
    # friction holds it; an obstacle inside the block is an initial penetration
    assert fc.Model([block], [fc.Contact(floor, fc.RigidLine((0, 0), (0, 1)), fc.Coulomb(0.3))]
                    ).check() == []
    inside = fc.Model([block], [fc.Contact(floor, fc.RigidLine((0, 0.1), (0, 1)), fc.Coulomb(0.3),
                                           name="floor")])
    (finding,) = inside.check()
    assert finding.startswith("contact 'floor': initial penetration 0.1")
    assert fc.Model([block], [fc.Contact(floor, fc.RigidLine((0, 0.1), (0, 1)), fc.Coulomb(0.3),
                                         penetration_tolerance=0.2)]).check() == []


def test_mortar_pair_force_balances_the_supports_and_levels_are_kept():
    """A short punch on a wide block: the slave surface sticks out past the master's ends.

    With mortar, slave nodes only partly covered by the master carry large
    dual multipliers; the pair's resultant and peak pressure come from the
    nodal forces, which balance the support reactions exactly.
    """
    wide = skfem.MeshTri.init_tensor(np.linspace(-2, 2, 17), np.linspace(-1, 0, 5))
    small = skfem.MeshTri.init_tensor(np.linspace(-0.5, 0.5, 4), np.linspace(0, 0.5, 3))
    a = fc.Body("wide", wide, "P1", fc.LinearElastic(1.0, 0.3))
    b = fc.Body("small", small, "P1", fc.LinearElastic(100.0, 0.3))
    a.fix(lambda x: np.isclose(x[1], -1), name="bottom")
    b.fix(lambda x: np.isclose(x[1], 0.5), x=0.0, y=-0.01, name="top")
    pair = fc.Contact(a.surface(lambda x: np.isclose(x[1], 0)),
                      b.surface(lambda x: np.isclose(x[1], 0)), name="c", formulation="mortar")
    result = fc.Model([a, b], [pair]).solve(steps=2)
    assert result.converged
    force = result.pair("c").force
    assert np.allclose(force, result.reaction("top"), rtol=1e-9, atol=1e-12)
    fields = result.contact("c")
    assert np.allclose(fields.force.sum(axis=1), force, rtol=1e-12)
    # the pressure is the dual multiplier, and the largest is the pair's max_pressure
    assert result.pair("c").max_pressure == pytest.approx(fields.pressure.max(), rel=1e-12)
    # where the punch covers a node's facets, its force is its area times its multiplier
    # (the normal points from the master towards the slave)
    nodal_pressure = np.einsum("dm,dm->m", fields.force, fields.normal) / fields.area
    x = fields.points[0]
    inside = np.abs(x) < 0.5 - 0.25 - 1e-9         # both facets of the node under the punch
    assert inside.sum() >= 1
    assert np.allclose(nodal_pressure[inside], fields.pressure[inside], rtol=1e-9)
    # the levels are kept: the first carries half the load of the second (measured 0.49999)
    assert len(result.states) == 2 and np.allclose(result.times, [0.5, 1.0])
    first = result.at(0)
    assert first.reaction("top")[1] == pytest.approx(0.5 * result.reaction("top")[1], rel=1e-3)  # 2.5e-5


def test_model_without_contact_is_a_plain_elastic_solve():
    """A bar pulled by an imposed end displacement: reaction E A strain, uniform strain."""
    m = skfem.MeshQuad.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 5))
    bar = fc.Body("bar", m, "Q1", fc.LinearElastic(200.0, 0.0, plane="stress"))
    bar.fix(lambda x: np.isclose(x[0], 0.0), x=0.0, name="left")
    bar.fix(point=(0.0, 0.0), y=0.0)
    bar.fix(lambda x: np.isclose(x[0], 2.0), x=0.01, name="right")
    result = fc.Model([bar]).solve(steps=2)
    assert result.converged and result.pairs == ()
    assert result.reaction("right")[0] == pytest.approx(200.0 * 0.005 * 1.0, rel=1e-10)
    assert np.allclose(result.displacement[0], 0.005 * m.p[0], atol=1e-12)
