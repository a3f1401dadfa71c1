"""Implicit dynamics with contact.

Integrators against the defining properties of the generalised-α family
(second-order accuracy, spectral radius at infinity, exact energy of the
average acceleration scheme); mass matrices and the velocity projection
against their definitions; the time step's Newton matrix against central
differences; and the dynamic cases against closed-form solutions of rigid
blocks with friction, written out here from the case parameters.
"""

import json
import math
import tomllib

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case
from fecontact.analysis.dynamic import DynamicAnalysis, contact_nodes
from fecontact.analysis.integrators import Integrator
from fecontact.analysis.mass import MassSolver, project_velocity, redistribute
from fecontact.run.static import run
from fecontact.solve.backends import BACKENDS

DYNAMIC_CASES = sorted(p.stem for p in CASES.glob("*.toml") if "[dynamics]" in p.read_text())


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    cache = {}

    def get(name, *overrides):
        key = (name, overrides)
        if key not in cache:
            cache[key] = run(CASES / f"{name}.toml", tmp_path_factory.mktemp(name), list(overrides))
        return cache[key]
    return get


def _case(name):
    return tomllib.loads((CASES / f"{name}.toml").read_text())


# -- integrators on one degree of freedom --------------------------------------------

def _sdof_step(integ, omega, dt, u, v, a):
    """One step of m u'' + omega^2 u = 0 (m = 1) with the integrator's formulas."""
    i = integ
    # (1-am) a1 + am a0 + omega^2 ((1-af) u1 + af u0) = 0, a1 = (u1 - u0 - dt v0)/(b dt^2) - (1/2b - 1) a0
    c = (1 - i.alpha_m) / (i.beta * dt * dt)
    rhs = ((1 - i.alpha_m) * ((u + dt * v) / (i.beta * dt * dt) + (0.5 / i.beta - 1) * a)
           - i.alpha_m * a - omega**2 * i.alpha_f * u)
    u1 = rhs / (c + omega**2 * (1 - i.alpha_f))
    a1 = i.acceleration(u1, u, v, a, dt)
    return u1, i.velocity(a1, v, a, dt), a1


def _amplification(integ, omega, dt):
    cols = []
    for e in np.eye(3):
        cols.append(_sdof_step(integ, omega, dt, *e))
    return np.array(cols).T


@pytest.mark.parametrize("integ,rho", [(Integrator.newmark(), 1.0), (Integrator.hht(0.6), 0.6),
                                       (Integrator.generalized_alpha(0.5), 0.5),
                                       (Integrator.generalized_alpha(0.0), 0.0)])
def test_spectral_radius_at_infinity(integ, rho):
    # |eigenvalues| of the amplification matrix as omega dt -> infinity (a double
    # eigenvalue there: its numerical value deviates like the square root of 1/(omega dt))
    radius = np.abs(np.linalg.eigvals(_amplification(integ, 1e10, 1.0))).max()
    assert abs(radius - rho) < 1e-4


@pytest.mark.parametrize("integ", [Integrator.newmark(), Integrator.hht(0.7),
                                   Integrator.generalized_alpha(0.6)])
def test_second_order_accuracy(integ):
    errors = []
    for n in (100, 200, 400):
        dt = 2 * math.pi / n
        u, v, a = 1.0, 0.0, -1.0
        for _ in range(n):
            u, v, a = _sdof_step(integ, 1.0, dt, u, v, a)
        errors.append(abs(u - 1.0) + abs(v))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(rates > 1.9), rates


# -- mass matrices and the velocity projection ---------------------------------------

def _model(name, *overrides):
    return build_model(load_case(CASES / f"{name}.toml", list(overrides)))


def test_consistent_and_redistributed_mass():
    model = _model("impact")
    sysm = model.problem.system
    M = sysm.M
    area = math.pi / 2                      # half disc of radius 1, density 1
    ex = np.zeros(sysm.n_dofs)
    ex[0::2] = 1.0
    # total mass of the polygonal mesh: the area of its triangles
    mesh = sysm.bodies[0].mesh
    p, t = mesh.p, mesh.t
    tri_area = 0.5 * np.abs((p[0, t[1]] - p[0, t[0]]) * (p[1, t[2]] - p[1, t[0]])
                            - (p[0, t[2]] - p[0, t[0]]) * (p[1, t[1]] - p[1, t[0]])).sum()
    assert abs(ex @ M @ ex - tri_area) < 1e-12 * area
    nodes = contact_nodes(model.problem)
    R = redistribute(sysm, M, nodes)
    dofs = (2 * nodes[:, None] + np.arange(2)).ravel()
    assert abs(R[dofs].sum()) == 0.0 and abs(R[:, dofs].sum()) == 0.0
    assert abs(ex @ R @ ex - ex @ M @ ex) < 1e-12
    assert abs((R - R.T).max()) < 1e-15
    w = np.linalg.eigvalsh(R.toarray())
    assert w.min() > -1e-12 * w.max()


def test_velocity_projection_is_the_mass_weighted_closest_point():
    rng = np.random.default_rng(0)
    n, k = 30, 4
    A = rng.standard_normal((n, n))
    M = sp.csc_matrix(A @ A.T + n * np.eye(n))
    G = sp.csr_matrix(rng.standard_normal((k, n)))
    v = rng.standard_normal(n)
    target = rng.standard_normal(k)
    p = project_velocity(MassSolver(M), v, G, target)
    assert np.allclose(G @ p, target, atol=1e-12)
    # any other admissible velocity is farther in the M-norm
    null = np.linalg.svd(G.toarray())[2][k:]
    for z in null[:5]:
        q = p + 0.1 * z
        assert (q - v) @ M @ (q - v) > (p - v) @ M @ (p - v)


# -- the time step's Newton matrix ----------------------------------------------------

@pytest.mark.parametrize("integ", ["newmark", "generalized_alpha"])
def test_time_step_jacobian_matches_finite_differences(integ):
    model = _model("stickslip", f'dynamics.integrator="{integ}"')
    problem = model.problem
    an = DynamicAnalysis(problem, model.dynamics, model.newton, model.stepping, "direct")
    current = an.initial_state()
    dt = 0.01
    backend, matrix = an.backend(dt)
    terms = an.dynamics.step(model.dynamics.integrator, dt, 0.0, current.state.u,
                             current.velocity + 0.3, current.acceleration, matrix)
    step = problem.increment(dt, current.state, terms)
    x = np.concatenate([an._reduced(current.state.u, dt), current.state.multiplier.ravel()])
    rng = np.random.default_rng(3)
    x[: problem.system.n_reduced] += 1e-4 * rng.standard_normal(problem.system.n_reduced)
    ev = step.evaluate(x)
    J = ev.jacobian()
    h = 1e-8
    for _ in range(3):
        d = rng.standard_normal(x.size)
        plus = step.evaluate(x + h * d, ev.kinematics.facet, jacobian=False)
        minus = step.evaluate(x - h * d, ev.kinematics.facet, jacobian=False)
        assert np.array_equal(plus.contact.status, ev.contact.status)
        fd = (plus.residual - minus.residual) / (2 * h)
        assert np.linalg.norm(J @ d - fd) <= 1e-6 * np.linalg.norm(fd)


# -- cases -------------------------------------------------------------------------

@pytest.mark.parametrize("name", DYNAMIC_CASES)
def test_dynamic_case_writes_time_series_and_plot(name, results):
    r = results(name)
    s = json.loads((r.out_dir / "summary.json").read_text())
    assert s["converged"] is True and s["analysis"] == "dynamic"
    assert s["check"]["passed"] and s["check"]["equilibrium"] <= 1e-6
    ts = s["time_series"]
    n = len(ts["t"])
    assert n == round(s["t_end"] / s["dt"]) + 1
    for key in ("kinetic", "strain", "external_work", "contact_work", "friction_dissipation",
                "damping_dissipation", "total", "balance_error"):
        assert len(ts[key]) == n
    # steps at every output time, the last at t_end
    assert abs(s["steps"][-1]["time"] - s["t_end"]) < 1e-9
    png = r.out_dir / "time_series.png"
    import matplotlib.image as mpimg
    img = mpimg.imread(png)
    assert img.shape[0] > 300 and img[..., :3].std() > 0.05     # not blank


#: the stick-slip case run for six cycles (five steady ones after the breakaway from rest)
STICKSLIP_CYCLES = "dynamics.t_end=7.0"


@pytest.mark.slow
def test_stick_slip_durations(results):
    r = results("stickslip", STICKSLIP_CYCLES)
    c = _case("stickslip")
    body, = c["bodies"]
    spring = body["spring"][0]
    friction = c["contact"][0]["friction"]
    mass = body["material"]["density"] * 1.0 * 0.02
    N = -body["body_force"][1] * 1.0 * 0.02
    k, V = spring["stiffness"], spring["anchor_velocity"]
    mu_s, mu_k = friction["mu_s"], friction["mu_k"]
    delta = (mu_s - mu_k) * N / k
    omega = math.sqrt(k / mass)
    stick = 2 * delta / V
    slip = (2 * math.pi - 2 * math.atan(delta * omega / V)) / omega
    m = r.summary["metrics"]
    assert m["cycles"] >= 6
    # five steady cycles, each stick and slip phase against the rigid-block solution
    assert len(m["stick_durations"][1:]) >= 4 and len(m["slip_durations"][1:]) >= 5
    # every steady cycle (after the breakaway from rest), not only the mean
    for value in m["stick_durations"][1:]:
        assert abs(value / stick - 1) <= 0.02, (value, stick)
    for value in m["slip_durations"][1:]:
        assert abs(value / slip - 1) <= 0.02, (value, slip)
    # the spring force at breakaway and at re-stick
    t = np.array(r.summary["time_series"]["t"])
    force = np.array(r.summary["time_series"]["spring_force"]["spring"])
    phases = m["slip_durations"]
    from fecontact.references.dynamic_metrics import slip_phases
    v = np.array(r.summary["time_series"]["spring_velocity"]["spring"])
    for start, end in slip_phases(t, v, 1e-6 * V)[1:]:
        assert abs(np.interp(start, t, force) / (mu_s * N) - 1) <= 0.02
        assert abs(np.interp(end, t, force) / ((2 * mu_k - mu_s) * N) - 1) <= 0.05
    assert len(phases) >= 6


@pytest.mark.slow
def test_stick_slip_block_elasticity_is_negligible(results):
    """Ten times softer block: durations move by far less than the 2 % target."""
    stiff = results("stickslip").summary["metrics"]
    soft = results("stickslip", "bodies.0.material.E=1e6").summary["metrics"]
    assert abs(soft["stick_duration"] / stiff["stick_duration"] - 1) < 0.005
    assert abs(soft["slip_duration"] / stiff["slip_duration"] - 1) < 0.005


INCLINE_AT_REST = ["bodies.0.body_force=[287.34788556634537, -957.8262852211514]",    # tan 0.3
                   'dynamics.initial="static"']


def test_incline_slides_with_kinetic_friction(results):
    r = results("incline_dynamic")
    c = _case("incline_dynamic")
    fx, fy = c["bodies"][0]["body_force"]
    g_sin, g_cos = fx / 100.0, -fy / 100.0
    mu_k = c["contact"][0]["friction"]["mu_k"]
    assert fx / -fy > c["contact"][0]["friction"]["mu_s"]
    exact = g_sin - mu_k * g_cos
    m = r.summary["metrics"]
    assert abs(m["acceleration"] / exact - 1) <= 0.01


@pytest.mark.parametrize("mu_k", [0.4, 0.2])
def test_incline_below_static_friction_stays_at_rest(results, mu_k):
    # tan(theta) = 0.3 < mu_s = 0.5; with mu_k = 0.2 also mu_k < tan(theta) < mu_s
    r = results("incline_dynamic", *INCLINE_AT_REST, f"contact.0.friction.mu_k={mu_k}")
    m = r.summary["metrics"]
    assert not m["slides"]
    assert m["max_slip"] <= 1e-10 * 0.2
    ts = r.summary["time_series"]
    assert max(ts["slip"]) == 0 and max(ts["open"]) == 0
    # resting contact: zero gap at every node, exactly
    assert np.abs(r.state.gap).max() <= 1e-12 * 0.2


def test_velocity_weakening_both_sides_of_critical_speed(results):
    r = results("velocity_weakening")
    c = _case("velocity_weakening")
    m = r.summary["metrics"]
    for body, contact in zip(c["bodies"], c["contact"]):
        spring = body["spring"][0]
        law = contact["friction"]
        N, mass = 10.0, 1.0
        v_star = math.log(N * law["dc"] * (law["mu_s"] - law["mu_k"]) / spring["damping"]) / law["dc"]
        V = spring["anchor_velocity"]
        slope = -law["dc"] * (law["mu_s"] - law["mu_k"]) * math.exp(-law["dc"] * V)
        rate = -(spring["damping"] + N * slope) / (2 * mass)
        got = m[spring["name"]]
        assert abs(got["V_star"] - v_star) < 1e-12
        assert abs(got["growth_rate"] / rate - 1) <= 0.02, (got["growth_rate"], rate)
        if V > v_star:
            # steady sliding: the oscillation has died out, no sticking
            assert got["stick_fraction_second_half"] == 0.0
            assert got["velocity_deviation_second_half"] < 0.01
        else:
            # stick-slip: the block stops in every cycle
            assert got["stick_fraction_second_half"] > 0.1


def test_frictionless_impact_conserves_energy(results):
    r = results("impact")
    m = r.summary["metrics"]
    ts = r.summary["time_series"]
    # the disc reached the plane and came off it again
    assert min(ts["open"]) < max(ts["open"]) and ts["open"][-1] == max(ts["open"])
    vy = np.array(ts["centroid_velocity"]["disc"])[:, 1]
    assert vy[0] < 0 and vy[-1] > 0
    # the documented figure (docs/dynamics.md: 0.041 % with redistributed mass)
    assert m["max_energy_drift_relative"] <= 5e-4
    # the average acceleration ledger is exact: the balance closes to round-off
    assert m["max_balance_error_relative"] <= 1e-9


def test_position_level_contact_without_projection_pumps_energy(results):
    """Why the projection: consistent mass, no projection, the same impact gains energy."""
    plain = results("impact", 'dynamics.contact_mass="consistent"',
                    "dynamics.project_velocities=false").summary["metrics"]
    projected = results("impact", 'dynamics.contact_mass="consistent"').summary["metrics"]
    assert plain["max_energy_drift_relative"] > 0.1
    assert projected["max_energy_drift_relative"] <= 0.01


# -- springs ---------------------------------------------------------------------------

def test_spring_holds_the_resultant_load(case_file):
    """Static equilibrium in x: spring force k (x_a - mean u) equals the total load."""
    path = case_file("""
[[bodies]]
name = "b"
element = "Q1"
mesh = { generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 0.5, nx = 4, ny = 2, element = "quad" }
material = { E = 100.0, nu = 0.3 }
body_force = [3.0, 0.0]
dirichlet = [{ boundary = "bottom", component = "y" }, { point = [0.0, 0.0], component = "x", value = 0.0, name = "pin" }]
spring = [{ name = "s", boundary = "right", component = "x", stiffness = 50.0, anchor_offset = 0.1 }]

[[contact]]
slave = { body = "b", boundary = "top" }
master = { obstacle = "line", point = [0.0, 2.0], normal = [0.0, -1.0] }

[steps]
count = 1
""")
    r = run(path, path.parent / "out", write_vtu_files=False)
    sysm = r.model.problem.system
    spring, = sysm.springs
    force = spring.force(r.state.u, None, 1.0)
    reaction = r.summary["reaction"]["pin"][0]
    # x: load 3 * 0.5 + spring force + pin reaction = 0
    assert abs(3.0 * 0.5 + force + reaction) < 1e-9


# -- input errors ----------------------------------------------------------------------

@pytest.mark.parametrize("override,message", [
    ("dynamics.dt=0", "'dynamics.dt' must be > 0"),
    ('dynamics.integrator="euler"', "'dynamics.integrator' = 'euler'"),
    ("dynamics.rho_inf=1.5", "'dynamics.rho_inf'"),
    ('dynamics.contact_mass="lumped"', "'dynamics.contact_mass' = 'lumped'"),
    ("bodies.0.material.density=0", "'bodies.0.material.density' must be > 0"),
    ("steps.count=3", "'steps' (quasi-static load steps) and 'dynamics'"),
])
def test_bad_dynamics_input_is_one_line(override, message):
    with pytest.raises(CaseError) as err:
        build_model(load_case(CASES / "stickslip.toml", [override]))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_impossible_static_start_is_reported(tmp_path):
    # tan(theta) = 0.6 > mu_s: no static equilibrium to start from
    r = run(CASES / "incline_dynamic.toml", tmp_path, ['dynamics.initial="static"'])
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["converged"] is False and "no static equilibrium at t = 0" in s["reason"]
    assert r.summary["converged"] is False


# -- 3D, outputs, failures --------------------------------------------------------------

BOX_3D = """
[[bodies]]
name = "block"
element = "Q1"
mesh = { generator = "box", x0 = 0.0, x1 = 0.4, y0 = 0.0, y1 = 0.4, z0 = 0.02, z1 = 0.22, nx = 4, ny = 4, nz = 2, element = "hex" }
material = { E = 1000.0, nu = 0.3, density = 1.0 }
initial_velocity = [0.3, 0.0, -1.0]

[[contact]]
name = "floor"
slave = { body = "block", boundary = "bottom" }
master = { obstacle = "plane", point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }
friction = { law = "coulomb", mu = 0.2 }

[dynamics]
integrator = "newmark"
dt = 0.001
t_end = 0.08
contact_mass = "redistributed"
output_every = 20

[reference]
type = "energy"
"""


def test_3d_block_bounces_with_friction_and_balanced_energy(case_file):
    """A hexahedral block thrown onto a plane with friction: energy lost only to friction."""
    path = case_file(BOX_3D)
    r = run(path, path.parent / "out")
    s = json.loads((path.parent / "out" / "summary.json").read_text())
    assert s["converged"] and s["dim"] == 3
    assert s["backend"] in BACKENDS                 # the backend the time steps used, by name
    ts = s["time_series"]
    assert min(ts["open"]) == 0                     # the whole bottom touched
    assert max(ts["slip"]) > 0                      # and slid
    assert ts["open"][-1] == max(ts["open"])        # and came off again
    v_end = ts["centroid_velocity"]["block"][-1]
    assert v_end[2] > 0 and 0 < v_end[0] < 0.3      # bounced, slowed by friction
    # every joule is accounted for: the Newmark ledger closes to round-off
    assert s["metrics"]["max_balance_error_relative"] < 1e-9
    assert ts["friction_dissipation"][-1] > 0
    # friction cannot create energy: KE + SE never exceeds the initial value
    total = np.array(ts["total"])
    assert total.max() <= total[0] * (1 + 1e-9)
    # the VTU series carries velocities and accelerations
    import meshio
    import xml.etree.ElementTree as ET
    pvd = ET.parse(next((path.parent / "out").glob("*.pvd"))).getroot()
    files = [d.get("file") for d in pvd.iter("DataSet")]
    assert len(files) == len(s["steps"]) == 4
    mesh = meshio.read(path.parent / "out" / files[-1])
    n = mesh.points.shape[0]
    assert mesh.point_data["velocity"].shape == (n, 3)
    assert mesh.point_data["acceleration"].shape == (n, 3)
    np.testing.assert_allclose(mesh.point_data["displacement"], r.state.u.reshape(-1, 3))


def test_failed_dynamic_run_keeps_the_computed_steps(tmp_path):
    # one Newton iteration and no cut-backs: the first breakaway cannot be solved
    r = run(CASES / "stickslip.toml", tmp_path, ["solver.max_iterations=1", "solver.max_cutbacks=0",
                                                 "dynamics.output_every=10"])
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["converged"] is False and "Newton failed" in s["reason"]
    t_fail = s["time_series"]["t"][-1]
    assert 0.3 < t_fail < 4.0                       # the stick phase before it is kept
    assert s["steps"] and s["steps"][-1]["time"] <= t_fail
    assert r.summary["converged"] is False
