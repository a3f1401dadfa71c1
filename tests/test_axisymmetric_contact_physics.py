"""Axisymmetric contact against closed forms and against plane strain, on unstructured Gmsh meshes
of the ``(r, z)`` half plane (docs/make_axisymmetric.py builds the same models for its page).

- a sphere on a rigid flat (Hertz): peak pressure, contact radius, and the axial force
  ``2 pi int r p ds`` against the support's reaction;
- a rigid circle centred on the axis (a rigid ball) indenting an elastic flat (Hertz);
- slow: the sphere on an elastic flat (mortar and node-to-segment), and the same problem in 3D;
- a press fit of a long shaft in a long hub (``eps_z = 0``) against Lamé, with non-matching
  interface meshes (mortar), and the total radial force ``2 pi b L p``;
- a ring squeezed along the axis with its section held radially: ``F / (2 pi R_m)`` tends to the
  plane-strain force per unit length as ``R_m`` grows;
- the press fit ramped in by ``interference="shrink"``;
- the pull-out force of the press fit with Coulomb friction: mu times the total radial force;
- the assembled Jacobian of axisymmetric mortar pairs (straight and smoothed, frictionless and
  Coulomb with stick and slip) against central differences of the residual.
"""

import importlib
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, assert_jacobian_matches_differences

try:
    importlib.import_module("gmsh")
except (ImportError, OSError) as error:                      # pragma: no cover
    pytest.skip(f"gmsh is needed for the axisymmetric meshes: {error}", allow_module_level=True)

sys.path.insert(0, str(ROOT / "docs"))
import make_axisymmetric as axi  # noqa: E402
from axisymmetric_meshes import flat_section, ring_section  # noqa: E402

import fecontact as fc  # noqa: E402
from fecontact.solve.backends import DirectBackend  # noqa: E402
from fecontact.solve.newton import NewtonOptions, semismooth_newton  # noqa: E402
from fecontact.analysis.static import run_steps  # noqa: E402


def test_sphere_on_a_rigid_flat_meets_hertz():
    """P1 on the graded Gmsh section (h = 0.05 at the pole): peak within 1 % of Hertz for the
    computed load, the last closed node within one element of Hertz's radius, and the axial
    force 2 pi int r p ds equal to the reaction to 1e-6."""
    run = axi.solve_sphere("rigid", axi.COARSE)
    assert run["converged"] and run["method"] == "node_to_segment"
    assert abs(run["peak_error"]) <= axi.TARGETS["peak"]
    assert abs(run["last_closed_radius"] - run["contact_radius"]) <= run["element_at_edge"]
    assert run["integral_balance"] <= axi.TARGETS["balance"]
    assert run["balance"] <= axi.TARGETS["balance"]
    # the pair's force is the axial total; the revolved contact area about pi a^2
    assert run["pair_force"][0] == 0.0 and np.isclose(run["pair_force"][1], run["load"])
    assert abs(run["pair_area"] / (np.pi * run["contact_radius"] ** 2) - 1.0) < 0.05


def test_rigid_ball_indenting_an_elastic_flat_meets_hertz():
    """A rigid circle of the section centred on the axis is a rigid sphere: pressed 0.1 into the
    aluminium cylinder (Gmsh section graded from the axis, h = 0.05), Hertz with E* = E/(1 - nu^2)
    of the flat for the computed load: peak within 1 %, last closed node within one element of a."""
    from fecontact.references.analytic3d import HertzSphere
    R, E, nu = axi.SPHERE["R"], axi.FLAT["E"], axi.FLAT["nu"]
    with tempfile.TemporaryDirectory() as tmp:
        mesh = fc.load_mesh(flat_section(Path(tmp) / "flat.msh", axi.COARSE))
    flat = fc.Body("flat", mesh, "P1", fc.LinearElastic(E=E, nu=nu, plane="axisymmetric"))
    flat.fix("bottom", y=0.0, name="bottom")
    ball = fc.RigidCircle(center=(0.0, R), radius=R, displacement=(0.0, -0.1))
    result = fc.Model([flat], [fc.Contact(flat.surface("top"), ball, name="indent")]).solve()
    assert result.converged
    c = result.contact("indent")
    P = float(result.pair("indent").force[1])
    assert abs(-P - float(result.reaction("bottom")[1])) <= 1e-9 * abs(P)
    hertz = HertzSphere(abs(P), R, E / (1 - nu**2))
    assert abs(c.pressure.max() / hertz.peak_pressure - 1) <= 0.01
    r, closed = c.points[0], c.status != fc.Status.OPEN
    edge = r[closed].max()
    assert abs(edge - hertz.contact_radius) <= r[r > edge].min() - edge


@pytest.mark.parametrize("formulation", [None, "mortar"])
def test_press_fit_meets_lame(formulation):
    """Mortar on non-matching interface meshes (hub 0.03, shaft 0.04): every nodal pressure
    within 1 % of Lamé's, the pair's radial force the total 2 pi b L p, no axial force."""
    run = axi.press_fit(formulation=formulation)
    assert run["converged"] and run["method"] == "mortar" and run["open"] == 0
    assert run["worst_node_error"] <= axi.TARGETS["fit"]
    assert abs(run["mean_error"]) <= axi.TARGETS["fit"]
    assert abs(run["radial_force_error"]) <= axi.TARGETS["fit"]
    assert abs(run["axial_force"]) <= 1e-6 * abs(run["radial_force"])
    assert abs(run["area_error"]) <= 1e-12


def test_ring_held_radially_tends_to_plane_strain():
    """A ring of mean radius R_m squeezed 2 % along the axis, its section centre held radially:
    F / (2 pi R_m) against the plane-strain section's force per length (linear, P1): the
    difference falls with d / R_m; a free ring is softer (its hoop strain relaxes) and stays so."""
    kw = dict(squeeze=0.02, material="linear", element="P1", steps=1)
    plane = axi.oring(None, **kw)["force_per_length"]
    near = [abs(axi.oring(R, held=True, **kw)["force_per_length"] / plane - 1) for R in (10.0, 100.0)]
    assert near[1] < 1e-4 and near[1] < 0.1 * near[0]
    free = axi.oring(100.0, **kw)["force_per_length"] / plane - 1
    assert free < -0.01


def test_press_fit_ramped_in_follows_lame():
    """The same press fit with the overlap ramped in (``interference="shrink"``): at t = 0.5 and 1
    every nodal pressure within 1 % of t times Lamé's pressure."""
    with tempfile.TemporaryDirectory() as tmp:
        model, _ = axi.press_fit_model(0.04, 0.03, Path(tmp))
    slave, master = model.contacts[0].slave, model.contacts[0].master
    pair = fc.Contact(slave, master, fc.Frictionless(), name="fit", interference="shrink")
    result = fc.Model(model.bodies, [pair]).solve(levels=[0.5, 1.0])
    assert result.converged
    lame = axi.lame_pressure(*(axi.FIT[k] for k in ("E", "nu", "b", "c", "delta")))
    for k, t in enumerate((0.5, 1.0)):
        p = result.at(k).contact("fit").pressure
        assert np.abs(p / (t * lame) - 1).max() <= axi.TARGETS["fit"]


def test_pull_out_force_is_mu_times_the_total_radial_force():
    """The press fit with Coulomb friction (mu = 0.2), the shaft pushed along the axis until every
    node slips: the axial contact force is mu times the total radial force F_r = 2 pi int r p ds
    (to the mortar's weighting of the tangential tractions, 1e-3), and the push's reaction
    balances it."""
    b, c, delta, L = (axi.FIT[k] for k in ("b", "c", "delta", "length"))
    material = fc.LinearElastic(E=axi.FIT["E"], nu=axi.FIT["nu"], plane="axisymmetric")
    with tempfile.TemporaryDirectory() as tmp:
        shaft = fc.Body("shaft", fc.load_mesh(ring_section(Path(tmp) / "s.msh", 0.0, b + delta / 2, L,
                                                           0.1, 0.04, "outer")), "P1", material)
        hub = fc.Body("hub", fc.load_mesh(ring_section(Path(tmp) / "h.msh", b - delta / 2, c, L, 0.1,
                                                       0.03, "inner")), "P1", material)
    push = fc.Amplitude(times=(0.0, 1.0, 2.0), values=(0.0, 0.0, 1.0))
    shaft.fix("top", y=2e-3, amplitude=push, name="push")
    hub.fix("bottom", y=0.0, name="hub-bottom")
    mu = 0.2
    pair = fc.Contact(hub.surface("inner"), shaft.surface("outer"), fc.Coulomb(mu), name="fit",
                      penetration_tolerance=4 * delta)
    result = fc.Model([shaft, hub], [pair]).solve(levels=[1.0, 1.5, 2.0])
    assert result.converged
    fit = result.pair("fit")
    assert fit.slip > 0 and fit.stick == 0 and fit.open == 0
    F_r, F_z = fit.force
    assert abs(F_z / (mu * F_r) - 1) <= 1e-3
    assert abs(float(result.reaction("push")[1]) / F_z - 1) <= 1e-3


def _jacobian_check(model, levels):
    problem = model.assemble().problem
    backend = DirectBackend(problem)
    newton, stepping = fc.NewtonOptions(), fc.SteppingOptions()
    records, state, _ = run_steps(problem, backend, levels[:-1], newton, stepping)
    assert all(r.converged for r in records)
    t = levels[-1]
    result = semismooth_newton(problem.increment(t, state), backend, problem.unknowns(state),
                               NewtonOptions(max_iterations=1))
    x = result.unknowns
    ev = problem.increment(t, state).evaluate(x, result.evaluation.kinematics.facet)
    assert_jacobian_matches_differences(problem, t, state, x, ev)
    return ev


@pytest.mark.parametrize("smoothing", ["none", "hermite"])
def test_axisymmetric_mortar_jacobian_matches_finite_differences(smoothing):
    """The press fit (mortar, non-matching) with Coulomb friction, the shaft pushed along the axis
    at its top: stick near the free end, slip near the pushed one."""
    b, c, delta, L = (axi.FIT[k] for k in ("b", "c", "delta", "length"))
    material = fc.LinearElastic(E=axi.FIT["E"], nu=axi.FIT["nu"], plane="axisymmetric")
    with tempfile.TemporaryDirectory() as tmp:
        shaft = fc.Body("shaft", fc.load_mesh(ring_section(Path(tmp) / "s.msh", 0.0, b + delta / 2, L,
                                                           0.2, 0.08, "outer")), "P1", material)
        hub = fc.Body("hub", fc.load_mesh(ring_section(Path(tmp) / "h.msh", b - delta / 2, c, L, 0.2,
                                                       0.06, "inner")), "P1", material)
    push = fc.Amplitude(times=(0.0, 1.0, 2.0), values=(0.0, 0.0, 1.0))
    shaft.fix("top", y=3e-4, amplitude=push, name="push")
    hub.fix("bottom", y=0.0, name="hub-bottom")
    pair = fc.Contact(hub.surface("inner"), shaft.surface("outer"), fc.Coulomb(0.3), name="fit",
                      formulation="mortar", smoothing=smoothing, penetration_tolerance=4e-3)
    ev = _jacobian_check(fc.Model([shaft, hub], [pair]), [1.0, 1.5, 2.0])
    status = ev.contact.status
    assert (status == 1).any() and (status == 2).any()
    assert ev.kinematics.dofs.shape[1] >= 8


@pytest.mark.slow
@pytest.mark.parametrize("formulation", [None, "node_to_segment"])
def test_sphere_on_an_elastic_flat_meets_hertz(formulation):
    """The aluminium flat (h = 0.02 at the pole; mortar by default, and node-to-segment): peak
    within 1 % of Hertz, the last closed node within one element of Hertz's radius, and the
    axial force 2 pi int r p n_z ds (lumped) against the reaction to 1e-6."""
    run = axi.solve_sphere("elastic", axi.SECTION, formulation)
    assert run["converged"]
    assert abs(run["peak_error"]) <= axi.TARGETS["peak"]
    assert abs(run["last_closed_radius"] - run["contact_radius"]) <= run["element_at_edge"]
    assert run["lumped_axial_balance"] <= axi.TARGETS["balance"]
    assert run["balance"] <= 1e-9


@pytest.mark.slow
def test_the_same_sphere_in_3d_agrees():
    """The quarter model in 3D (tetrahedra, h = 0.1 at the pole, the same cylinder as the flat)
    against the axisymmetric sections: the load within 2 % of the section meshed with the 3D
    sizes and 3 % of the fine one (linear tetrahedra are stiffer than linear triangles, and the
    sections' load falls with h), the contact radius within 2 %, the peak within the 3D model's
    own error against Hertz (5 %)."""
    three = axi.sphere_3d()
    same_sizes = axi.solve_sphere("elastic", axi.AS_3D, "node_to_segment")
    fine = axi.solve_sphere("elastic", axi.SECTION, "node_to_segment")
    assert three["converged"] and same_sizes["converged"] and fine["converged"]
    assert abs(three["load"] / same_sizes["load"] - 1) <= 0.02
    assert abs(three["load"] / fine["load"] - 1) <= 0.03
    radius = [run["contact_radius"] * (1 + run[key]) for run, key in
              ((three, "radius_error"), (fine, "radius_error_area"))]
    assert abs(radius[0] / radius[1] - 1) <= 0.02
    peak = [run["peak_pressure"] * (1 + run["peak_error"]) for run in (three, fine)]
    assert abs(peak[0] / peak[1] - 1) <= 0.05
