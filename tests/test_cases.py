"""Every case in cases/ runs, and the benchmarks meet their analytic targets.

References are closed-form (Hertz; Cattaneo–Mindlin), evaluated in
fecontact.references.analytic2d from the case parameters and the computed loads; the
analytic module itself is checked against integrals in test_analytic.py.
"""

import json
import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest

from conftest import CASES
from fecontact.run.static import run

# quasi-static cases (dynamic ones, with a [dynamics] table, are run by test_dynamics.py)
ALL_CASES = sorted(p.stem for p in CASES.glob("*.toml") if "[dynamics]" not in p.read_text())


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run(CASES / f"{name}.toml", tmp_path_factory.mktemp(name))
        return cache[name]
    return get


@pytest.mark.parametrize("name", ALL_CASES)
def test_case_runs_and_writes_outputs(name, results):
    r = results(name)
    s = json.loads((r.out_dir / "summary.json").read_text())
    assert s["converged"] is True
    for key in ("case", "dim", "dofs", "converged", "steps", "timings", "reaction", "metrics", "check"):
        assert key in s
    # the independent residual check of the final state (equilibrium, Signorini, friction)
    assert s["check"]["passed"] and all(s["check"][k] <= 1e-6 for k in
                                        ("equilibrium", "gap", "pressure", "complementarity", "friction"))
    for key in ("total", "linear_solve", "contact"):
        assert s["timings"][key] > 0
    # the linear reference solve is a benchmark instrument, run only when asked for
    assert s["timings"]["linear_reference"] is None
    assert s["timings"]["contact_solve_per_step_over_linear_reference"] is None
    for step in s["steps"]:
        for key in ("load", "newton_iterations", "converged", "residual", "open", "stick", "slip"):
            assert key in step
        assert step["open"] + step["stick"] + step["slip"] == s_contact_nodes(r)
    # ParaView index lists one VTU per step, each with the documented point data
    pvd = ET.parse(next(r.out_dir.glob("*.pvd"))).getroot()
    files = [d.get("file") for d in pvd.iter("DataSet")]
    assert len(files) == len(s["steps"])
    mesh = meshio.read(r.out_dir / files[-1])
    n = mesh.points.shape[0]
    expected = {"displacement": (n, 3), "contact_pressure": (n,), "contact_traction": (n, 3),
                "contact_normal": (n, 3), "contact_tangent1": (n, 3), "contact_shear1": (n,),
                "friction_utilisation": (n,), "gap": (n,), "slip": (n, 3), "contact_status": (n,),
                "friction_state": (n,)}
    if s["dim"] == 3:
        expected.update(contact_tangent2=(n, 3), contact_shear2=(n,))
    for key, shape in expected.items():
        assert mesh.point_data[key].shape == shape
    # the traction is its normal part plus the signed shear components along their directions
    pd = mesh.point_data
    rebuilt = pd["contact_pressure"][:, None] * pd["contact_normal"] + sum(
        pd[f"contact_shear{a}"][:, None] * pd[f"contact_tangent{a}"] for a in range(1, s["dim"]))
    np.testing.assert_allclose(rebuilt, pd["contact_traction"],
                               atol=1e-12 * np.abs(pd["contact_traction"]).max())
    pressure = mesh.point_data["contact_pressure"]
    assert pressure.min() >= 0.0 and pressure.max() > 0.0
    # the last VTU holds the final state's pressures at the slave nodes
    from fecontact.io.output import slave_global_nodes
    np.testing.assert_array_equal(pressure[slave_global_nodes(r.model.problem)],
                                  r.state.multiplier[:, 0])


def s_contact_nodes(r):
    return r.model.problem.n_contact


def _metric(r, key):
    return r.summary["metrics"][key]


def test_hertz2d_meets_targets(results):
    r = results("hertz2d")
    s = r.summary
    assert s["dofs"] <= 30_000
    assert _metric(r, "peak_pressure")["rel_error"] <= 0.01
    half = _metric(r, "contact_half_width")
    h = _metric(r, "element_size_at_contact")["value"]
    assert half["rel_error"] <= 0.02 or abs(half["value"] - half["reference"]) <= h
    assert _metric(r, "pressure_l2_error")["value"] <= 0.02
    assert s["max_newton_iterations_per_increment"] <= 8
    # the load P used by the reference equals the support reaction
    P = _metric(r, "load")["value"]
    assert abs(-s["reaction"]["flat"][1] - P) <= 1e-6 * P


def test_hertz_axisymmetric_meets_targets(results):
    """The sphere as a body of revolution (Gmsh section, P1): peak within 1 % of Hertz, contact
    radius within one element, the load (sum of A_j p_j, revolved areas) equal to the reaction."""
    r = results("hertz_axisymmetric")
    s = r.summary
    assert _metric(r, "peak_pressure")["rel_error"] <= 0.01
    radius = _metric(r, "contact_radius")
    assert abs(radius["value"] - radius["reference"]) <= _metric(r, "element_size_at_contact")["value"]
    P = _metric(r, "load")["value"]
    assert abs(-s["reaction"]["flat"][1] - P) <= 1e-6 * P
    pair = s["pairs"][0]
    assert abs(pair["force"][1] - P) <= 1e-6 * P and pair["moment"] == [0.0, 0.0, 0.0]


def test_hertz2d_friction_stick_zone_and_cone(results):
    r = results("hertz2d_friction")
    s = r.summary
    assert len(s["steps"]) >= 10
    stick = _metric(r, "stick_half_width")["value"]
    half = _metric(r, "contact_half_width")["value"]
    assert 0.0 < stick < half
    state = r.state
    lam_n, lam_t = state.multiplier[:, 0], state.multiplier[:, 1]
    mu = 0.3
    assert np.all(np.abs(lam_t) <= mu * lam_n * (1 + 1e-9) + 1e-9 * lam_n.max())
    slipping = state.status == 2
    # every sliding node is on the cone, also those that closed in the last increment
    assert slipping.sum() >= 10
    np.testing.assert_allclose(np.abs(lam_t[slipping]), mu * lam_n[slipping], rtol=1e-8)
    # ... and the sliding nodes lie outside the stick zone
    from fecontact.io.output import slave_global_nodes
    x = np.abs(r.model.problem.X[0, slave_global_nodes(r.model.problem)])
    assert np.all(x[slipping] > stick)


def test_hertz2d_friction_stick_zone_does_not_depend_on_the_steps(results, tmp_path):
    """The case resolves the friction path (solver.max_closing): its stick ratio c/a with 10
    output steps and with 40 agree within 0.01 (without the control: 0.854 and 0.882)."""
    r10 = results("hertz2d_friction")
    r40 = run(CASES / "hertz2d_friction.toml", tmp_path, ["steps.count=40"], write_vtu_files=False)
    assert len(r10.summary["steps"]) == 10 and len(r40.summary["steps"]) == 40

    def ratio(r):
        return _metric(r, "stick_half_width")["value"] / _metric(r, "contact_half_width")["value"]
    assert abs(ratio(r10) - ratio(r40)) <= 0.01


def test_cattaneo2d_meets_targets(results):
    r = results("cattaneo2d")
    assert abs(_metric(r, "load_ratio")["value"] - 0.5) < 1e-3


# A node closing inside an increment measures its slip from its predicted first contact
# (fecontact.contact.closing; the first increment is preceded by a probe that gives the rates):
# with the four normal-load steps of the case the stick half-width error is 1.73 % (3.82 % when
# the slip was measured from the start-of-increment projection) and the shear-traction L2 error
# 5.53 % (14.3 %); see docs/developer/decisions/closing-node-friction.md
def test_cattaneo2d_stick_half_width_target(results):
    r = results("cattaneo2d")
    assert _metric(r, "stick_half_width")["rel_error"] <= 0.03


@pytest.mark.xfail(strict=True, reason="shear traction 5.5 % from Mindlin in L2 with four "
                   "normal-load steps (target 5 %); see docs/developer/decisions/closing-node-friction.md")
def test_cattaneo2d_shear_traction_target(results):
    r = results("cattaneo2d")
    assert _metric(r, "shear_traction_l2_error")["value"] <= 0.05


def test_cattaneo2d_mindlin_regression_bounds(results):
    """Regression bounds on the figures measured above (1.73 % and 5.53 %)."""
    r = results("cattaneo2d")
    assert _metric(r, "stick_half_width")["rel_error"] <= 0.018
    assert _metric(r, "shear_traction_l2_error")["value"] <= 0.056


def test_hertz3d_meets_targets(results):
    r = results("hertz3d")
    s = r.summary
    assert s["dim"] == 3 and s["dofs"] <= 60_000
    assert _metric(r, "contact_radius")["rel_error"] <= 0.03
    assert _metric(r, "pressure_l2_error")["value"] <= 0.08
    assert s["max_newton_iterations_per_increment"] <= 8
    # the load P used by the reference equals the support reaction
    P = _metric(r, "load")["value"]
    assert abs(-s["reaction"]["flat"][2] - P) <= 1e-6 * P


# The node-to-node oscillation is first order in the element size (h_contact 0.02 / 0.01 / 0.005:
# 10.1 % / 4.96 % / 2.49 % of p0, peak +8.5 % / +4.9 % / +2.9 %, at 19k / 51k / 163k DOFs): the
# nodal forces of a P1 body whose contact nodes are held on the plane follow the alternating
# valence of the contact triangulation; see docs/developer/decisions/tet-pressure-oscillation.md
@pytest.mark.xfail(strict=True, reason="P1 tetrahedra: nodal pressures oscillate by ~5% of p0 "
                   "node to node, so the peak is 4.9% above p0 (target 3%); see docs/benchmarks.md")
def test_hertz3d_peak_pressure_target(results):
    r = results("hertz3d")
    assert _metric(r, "peak_pressure")["rel_error"] <= 0.03
    assert _metric(r, "pressure_oscillation")["value"] <= 0.01


def test_hertz3d_peak_pressure_regression_bounds(results):
    """Regression bounds on the figures the xfail above measures (4.88 % and 4.96 % of p0)."""
    r = results("hertz3d")
    assert _metric(r, "peak_pressure")["rel_error"] <= 0.051
    assert _metric(r, "pressure_oscillation")["value"] <= 0.052


def test_cattaneo3d_meets_targets(results):
    r = results("cattaneo3d")
    s = r.summary
    assert s["dim"] == 3
    # the tangential shift of the case file brings Q/(mu P) to 0.5 within 1%
    assert abs(_metric(r, "load_ratio")["value"] - 0.5) <= 0.005
    assert _metric(r, "stick_ratio")["rel_error"] <= 0.05
    assert _metric(r, "stick_radius")["rel_error"] <= 0.05
    assert _metric(r, "contact_radius")["rel_error"] <= 0.03
    assert _metric(r, "pressure_l2_error")["value"] <= 0.08
    assert s["max_newton_iterations_per_increment"] <= 12
    # global equilibrium: the supports of the two bodies balance (no other loads)
    reactions = {k: np.array(v) for k, v in s["reaction"].items()}
    P, Q = _metric(r, "normal_load")["value"], _metric(r, "tangential_load")["value"]
    np.testing.assert_allclose(sum(reactions.values()), 0.0, atol=1e-6 * P)
    # the clamp of the lower body carries P and Q (the sums of the nodal normal and
    # tangential tractions) up to the tilt of the contact normals in the deformed interface
    clamp = reactions["clamp"]
    assert abs(clamp[2] - P) <= 1e-3 * P and abs(clamp[0] + Q) <= 1e-3 * P


@pytest.mark.xfail(strict=True, reason="shear traction 13.7% from Mindlin in relative L2 (target 8%): "
                   "the error sits at the contact edge and the stick-slip boundary; see "
                   "docs/developer/decisions/cattaneo3d-mirrored-meshes.md")
def test_cattaneo3d_shear_traction_target(results):
    r = results("cattaneo3d")
    assert _metric(r, "shear_traction_l2_error")["value"] <= 0.08


def test_cattaneo3d_shear_traction_regression_bound(results):
    """Regression bound on the figure the xfail above measures (0.137; 0.254 when closing nodes
    measured their slip from their start projection, 0.128 when they had no friction in their
    closing increment)."""
    r = results("cattaneo3d")
    assert _metric(r, "shear_traction_l2_error")["value"] <= 0.14


def test_incline_block_stays_exactly_stuck(results):
    """tan(theta) = 0.3 < mu_s = 0.5: after 100 load steps no contact node has slipped."""
    r = results("incline")
    s = r.summary
    assert s["converged"] and len(s["steps"]) == 100
    size = 0.2
    assert np.abs(r.state.slip).max() <= 1e-10 * size
    assert np.all(r.state.status == 1)                     # every node closed and stuck
    traction = r.state.traction()
    ratio = np.abs(traction[:, 0]) / r.state.multiplier[:, 0]
    assert ratio.max() < 0.5
    # equilibrium with gravity: the contact carries the block's weight components
    weight = np.array([287.34788556634537, -957.8262852211514]) * 0.2 * 0.1
    np.testing.assert_allclose(np.sum(r.model.problem.area[:, None] * traction, axis=0), -weight,
                               rtol=1e-8)


def test_inclined_interface_slip_limit(results):
    """NAFEMS CGS-4 type: the horizontal force reaches (tan a + mu)/(1 - mu tan a) G and stays there."""
    r = results("inclined_interface")
    limit = (0.1 + 0.3) / (1.0 - 0.3 * 0.1)
    assert abs(limit - 0.412371) < 1e-6
    steps = r.summary["steps"]
    ratio = np.array([s["reaction"]["F"][0] / 10.0 for s in steps])
    sliding = np.array([s["stick"] == 0 and s["open"] == 0 for s in steps])
    assert sliding[-1] and not sliding[2]          # stick, then the whole interface slides
    np.testing.assert_allclose(ratio[sliding], limit, rtol=0.005)
    assert np.all(ratio[~sliding] < limit)
    assert np.all(np.diff(ratio[~sliding]) > 0)    # the force builds up while parts still stick


def test_ironing2d_slides_with_reaction_ratio_mu(results):
    """Die pressed into a soft block, then slid 3 along it (about 4 contact widths).

    Once the whole contact slides, Coulomb's law on every contact node makes the
    die's horizontal reaction mu times its vertical one, up to the tilt of the
    contact normals weighted by an asymmetric pressure (the elastic block's
    normal-tangential coupling, about 1% here; docs/ironing.md): within 2%.
    """
    r = results("ironing2d")
    s = r.summary
    mu = 0.3
    assert r.model.case["contact"][0]["friction"]["mu"] == mu
    assert s["converged"] and len(s["steps"]) == 320
    steps = s["steps"]
    # no cut-backs, and no increment needs more than 8 Newton iterations
    assert all(st["cutbacks"] == 0 for st in steps)
    assert max(n for st in steps for n in st["increment_iterations"]) <= 8
    load = np.array([st["load"] for st in steps])
    sliding = load > 1.0
    # steady sliding: every closed node slips; reached within the first 0.1 of travel
    steady = np.array([st["stick"] == 0 and st["slip"] > 0 for st in steps])
    assert np.all(steady[load >= 1.1]) and not np.any(steady[~sliding])
    # a contact several block elements wide (block element 0.05)
    closed = np.array([st["stick"] + st["slip"] for st in steps])
    assert closed[steady].min() >= 10
    fx = np.array([st["reaction"]["slide"][0] for st in steps])
    fy = np.array([st["reaction"]["press"][1] for st in steps])
    ratio = np.abs(fx / fy)
    np.testing.assert_allclose(ratio[steady], mu, rtol=0.02)
    # the support drives the die forward (+x) against friction and holds it
    # down (-y) against the block's push
    assert np.all(fx[steady] > 0) and np.all(fy[steady] < 0)
    # slave nodes in contact crossed master segments in every steady sliding step
    changes = np.array([st["facet_changes"] for st in steps])
    assert np.all(changes[steady] > 0)


def test_ironing3d_slides_with_reaction_ratio_mu(results):
    """A spherical die pressed into a soft slab, then slid 1.5 along it (about 4 contact diameters).

    In steady sliding Coulomb's law on every contact node makes the die's
    horizontal reaction mu times its normal one, up to the tilt of the contact
    normals under the asymmetric pressure (as in 2D): within 2%.  The sideways
    (y) reaction stays a small fraction of the normal one by symmetry.
    """
    r = results("ironing3d")
    s = r.summary
    mu = 0.3
    assert r.model.case["contact"][0]["friction"]["mu"] == mu
    steps = s["steps"]
    assert s["converged"] and len(steps) == 64
    assert all(st["cutbacks"] == 0 for st in steps)
    assert max(n for st in steps for n in st["increment_iterations"]) <= 8
    load = np.array([st["load"] for st in steps])
    # steady sliding (every closed node slips) from 0.075 of travel on; during the
    # indentation nodes may slip too (radially), so those steps are not sliding
    steady = np.array([st["stick"] == 0 and st["slip"] > 0 for st in steps]) & (load > 1.0)
    assert np.all(steady[load >= 1.1])
    closed = np.array([st["stick"] + st["slip"] for st in steps])
    assert closed[steady].min() >= 20
    fx = np.array([st["reaction"]["slide"][0] for st in steps])
    fy = np.array([st["reaction"]["guide"][1] for st in steps])
    fz = np.array([st["reaction"]["press"][2] for st in steps])
    np.testing.assert_allclose(np.abs(fx / fz)[steady], mu, rtol=0.02)
    assert np.all(fx[steady] > 0) and np.all(fz[steady] < 0)
    assert np.all(np.abs(fy / fz)[steady] < 0.01)
    # slave nodes in contact crossed master facets in every steady sliding step
    changes = np.array([st["facet_changes"] for st in steps])
    assert np.all(changes[steady] > 0)


def test_hertz2d_on_a_quadratic_gmsh_mesh(results):
    """The Gmsh mesh (6-node triangles, element size 0.003 at the contact) with P2 elements, curved
    through the file's midside nodes (peak 0.28 % and pressure L2 1.2 % off Hertz; 2.0 % and 4.8 %
    when the elements were straight-sided)."""
    r = results("hertz2d_gmsh")
    assert r.model.problem.system.bodies[0].element == "P2"
    assert abs(_metric(r, "peak_pressure")["rel_error"]) <= 0.005
    half = _metric(r, "contact_half_width")
    assert abs(half["value"] - half["reference"]) <= _metric(r, "element_size_at_contact")["value"]
    assert _metric(r, "pressure_l2_error")["value"] <= 0.02


def _utilisation(results):
    """``(utilisation, status, loaded)`` at the final step of hertz2d_friction (Coulomb mu = 0.3)."""
    r = results("hertz2d_friction")
    pvd = ET.parse(next(r.out_dir.glob("*.pvd"))).getroot()
    pd = meshio.read(r.out_dir / [d.get("file") for d in pvd.iter("DataSet")][-1]).point_data
    pressure = pd["contact_pressure"]
    return pd["friction_utilisation"], pd["contact_status"], pressure > 1e-3 * pressure.max()


def test_friction_utilisation_lies_in_the_cone(results):
    """The VTU utilisation |lam_t| / (mu lam_n): at most 1 (the cone), below 1 in the stick zone,
    and exactly 1 at every sliding node that transmits friction."""
    util, status, loaded = _utilisation(results)
    assert np.all(util <= 1.0 + 1e-6)
    sticking = loaded & (status == 1)
    assert sticking.sum() >= 4 and np.all(util[sticking] < 1.0)
    transmitting = loaded & (status == 2) & (util > 1e-9)
    assert transmitting.sum() >= 4
    np.testing.assert_allclose(util[transmitting], 1.0, atol=1e-6)


def test_every_loaded_sliding_node_uses_all_its_friction(results):
    """Nodes that closed in the last increment have friction in it (their slip is measured from
    their start-of-increment projection): every loaded sliding node is on the cone."""
    util, status, loaded = _utilisation(results)
    sliding = loaded & (status == 2)
    assert sliding.sum() >= 10
    np.testing.assert_allclose(util[sliding], 1.0, atol=1e-6)


def _stick_ratio_jump(results):
    """Largest difference of q/(mu p) between neighbouring stick nodes of hertz2d_friction."""
    r = results("hertz2d_friction")
    pvd = ET.parse(next(r.out_dir.glob("*.pvd"))).getroot()
    mesh = meshio.read(r.out_dir / [d.get("file") for d in pvd.iter("DataSet")][-1])
    pd = mesh.point_data
    slave = pd["slave"] > 0
    order = np.argsort(mesh.points[slave, 0])
    p, q = pd["contact_pressure"][slave][order], np.abs(pd["contact_shear1"][slave][order])
    stick = pd["contact_status"][slave][order] == 1
    both = stick[:-1] & stick[1:]
    assert both.sum() >= 20
    return float(np.abs(np.diff(q / np.maximum(0.3 * p, 1e-300)))[both].max())


def test_stick_zone_shear_is_smooth(results):
    """Neighbouring stick nodes' q/(mu p) differ by at most 0.05 (measured 0.039; 0.074 without
    the case's closing control, 0.45 when closing nodes carried no friction in their closing
    increment)."""
    assert _stick_ratio_jump(results) <= 0.05


def test_pair_resultants_balance_the_supports_and_match_hertz(results):
    """hertz2d: the contact force on the disc balances its support reactions (no other load),
    the symmetric pressure has no moment about the disc's axis, and the contact length is 2a."""
    r = results("hertz2d")
    (pair,) = r.summary["pairs"]
    reactions = np.sum([v for v in r.summary["reaction"].values()], axis=0)[:2]
    force = np.asarray(pair["force"])
    np.testing.assert_allclose(force + reactions, 0.0, atol=1e-10 * np.abs(force).max())
    assert force[1] > 0
    half_width = r.summary["metrics"]["contact_half_width"]["reference"]
    assert abs(pair["moment"][2]) < 1e-3 * force[1] * half_width
    element = r.summary["metrics"]["element_size_at_contact"]["value"]
    assert abs(pair["area"] - 2 * half_width) <= 2 * element
    assert pair["open"] + pair["stick"] + pair["slip"] == r.model.problem.n_contact
    assert pair["max_pressure"] == pytest.approx(float(r.state.multiplier[:, 0].max()), rel=1e-12)
    # the result object holds the same resultants
    np.testing.assert_allclose(r.pairs[0].force, force, rtol=1e-12)


def test_coupling_displacements_are_reported(results):
    """cattaneo2d: every node of a force-controlled coupling moves by the reported displacement,
    in the direction of the coupling's force."""
    r = results("cattaneo2d")
    reported = r.summary["coupling_displacement"]
    sysm = r.model.problem.system
    assert set(reported) == {cp.name for cp in sysm.couplings}
    for cp in sysm.couplings:
        dofs = sysm.node_dofs(sysm.global_nodes(cp.body, cp.nodes))[:, cp.component]
        np.testing.assert_allclose(r.state.u[dofs], reported[cp.name], rtol=1e-12)
        assert np.sign(reported[cp.name]) == np.sign(cp.force * cp.amplitude(r.state.t))


def test_oring2d_reports_its_squeeze_force_width_and_pressures(results):
    """A neo-Hookean O-ring section squeezed 25 % between flat plates (symmetric half).

    The squeeze measured from the deformed section is the imposed one; the contact
    force is the mid-plane support's reaction (equilibrium of the half section); the
    pressure integrates to the force over the reported width; and the ring stiffens as
    it is squeezed (the force grows faster than the squeeze beyond 5 %).  Lindley's
    empirical force is reported, not asserted (docs/finite_strain.md).
    """
    r = results("oring2d")
    s = r.summary
    m = s["metrics"]
    radius = r.model.case["bodies"][0]["mesh"]["radius"]
    imposed = -r.model.case["bodies"][0]["dirichlet"][0]["value"]
    assert abs(m["squeeze"]["value"] - imposed / radius) <= 1e-6 * imposed / radius
    load = m["load"]["value"]
    assert abs(load - s["reaction"]["mid-plane"][1] * -1.0) <= 1e-8 * load
    assert m["load"]["reference"] > 0                      # Lindley's force at that squeeze
    assert 0.0 < m["mean_pressure"]["value"] < m["peak_pressure"]["value"]
    np.testing.assert_allclose(m["mean_pressure"]["value"] * m["contact_width"]["value"], load,
                               rtol=1e-12)
    # the closed zone: within one contact element of twice the outermost closed node's |x|
    fields = r.solution.contact()
    closed = fields.status != 0
    outer = 2.0 * np.abs(fields.points[0, closed]).max()
    h = r.model.case["bodies"][0]["mesh"]["h_contact"]
    assert outer <= m["contact_width"]["value"] <= outer + h
    squeeze = np.array([st["load"] for st in s["steps"]]) * imposed / radius
    force = -np.array([st["reaction"]["mid-plane"][1] for st in s["steps"]])
    assert np.all(np.diff(force) > 0)
    stiff = squeeze >= 0.05
    assert np.all(np.diff(force[stiff] / squeeze[stiff]) > 0)


def test_ironing2d_neo_hookean_slides_with_coulomb_friction_on_the_current_normals(results):
    """A die pressed 20 % into a neo-Hookean block, then slid 2 (finite deformation).

    In steady sliding every closed node slips in the same sense, so with
    ``N = sum_i A_i p_i n_i`` (current normals, pointing from the die into the block) a
    friction force tangent to the
    current surface makes the contact force on the block ``N + mu R N`` (``R`` the
    quarter turn towards the die's motion).  The block piles up ahead of the die, so
    ``N`` leans forward and ``|F_x / F_y|`` exceeds mu.  The
    tangential traction acts along the tangent at the start of its increment
    (docs/finite_strain.md), which the sliding turns by ``dtheta = slide per
    increment / die radius``: the die's reactions follow ``N + mu R N`` up to
    ``mu dtheta`` in the ratio.
    """
    r = results("ironing2d_neo_hookean")
    s = r.summary
    case = r.model.case
    mu = case["contact"][0]["friction"]["mu"]
    steps = s["steps"]
    assert s["converged"] and len(steps) == 75
    assert all(st["cutbacks"] == 0 for st in steps)
    assert max(n for st in steps for n in st["increment_iterations"]) <= 8
    load = np.array([st["load"] for st in steps])
    steady = np.array([st["stick"] == 0 and st["slip"] > 0 for st in steps])
    assert np.all(steady[load >= 1.2]) and not np.any(steady[load <= 1.0])
    fx = np.array([st["reaction"]["slide"][0] for st in steps])
    fy = np.array([st["reaction"]["press"][1] for st in steps])
    ratio = np.abs(fx / fy)
    print(f"|Fx/Fy| in steady sliding: {ratio[steady].min():.4f} .. {ratio[steady].max():.4f}")
    assert np.all(ratio[steady] > mu)
    # the final state: the reactions against a Coulomb force on the current normals
    fields = r.solution.contact()
    N = (fields.area * fields.pressure * fields.normal).sum(axis=1)
    turned = np.array([-N[1], N[0]])
    turned *= np.sign(turned[0])                   # friction drags the block along +x
    predicted = abs((N + mu * turned)[0] / (N + mu * turned)[1])
    tilt = np.degrees(np.arctan2(N[0], -N[1]))    # forward lean of the downward normal
    die = case["bodies"][1]
    slide = die["dirichlet"][1]["value"]
    dtheta = slide / (load > 1.0).sum() / die["mesh"]["radius"]
    print(f"mean normal tilt {tilt:.3f} degrees; |Fx/Fy| {ratio[-1]:.5f}, from the current normals "
          f"{predicted:.5f}; mu dtheta {mu * dtheta:.5f}")
    assert tilt > 0.0 and predicted > mu
    assert abs(predicted - ratio[-1]) <= mu * dtheta
