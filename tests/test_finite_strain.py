"""Hyperelastic materials and the total Lagrangian forms, against finite differences and closed forms.

* ``P = dW/dF`` and ``A = dP/dF`` of both materials agree with central
  differences of the energy and of the stress (2D plane strain and 3D);
* the assembled tangent agrees with central differences of the assembled
  internal force on P1, P2 and Q1 elements in 2D and 3D, at a deformed state;
* at ``u = 0`` the tangent is the linear-elastic stiffness of the same E, nu;
* a block compressed by 30 % between frictionless rollers (homogeneous
  plane-strain and 3D uniaxial stress) gives the reaction of the closed form,
  with the lateral stretch from ``P_lateral = 0`` solved independently.
"""

import numpy as np
import pytest
import scipy.sparse.linalg as spla
import skfem
from scipy.optimize import brentq

from fecontact.bodies.elasticity import Material, stiffness
from fecontact.bodies.finite_strain import internal_force, tangent_stiffness
from fecontact.bodies.hyperelastic import NeoHookean, SaintVenantKirchhoff

MATERIALS = [NeoHookean(100.0, 0.3), SaintVenantKirchhoff(100.0, 0.3)]
ELEMENTS = {
    "P1-2D": (lambda: skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 4)] * 2), skfem.ElementTriP1),
    "P2-2D": (lambda: skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 3)] * 2), skfem.ElementTriP2),
    "Q1-2D": (lambda: skfem.MeshQuad.init_tensor(*[np.linspace(0, 1, 4)] * 2), skfem.ElementQuad1),
    "P1-3D": (lambda: skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 3)] * 3), skfem.ElementTetP1),
    "P2-3D": (lambda: skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 2)] * 3), skfem.ElementTetP2),
    "Q1-3D": (lambda: skfem.MeshHex.init_tensor(*[np.linspace(0, 1, 3)] * 3), skfem.ElementHex1),
}


def _basis(name):
    make, element = ELEMENTS[name]
    mesh = make()
    return skfem.Basis(mesh, skfem.ElementVector(element()))


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("d", [2, 3])
def test_stress_and_tangent_are_derivatives_of_the_energy(material, d):
    rng = np.random.default_rng(3)
    F = np.eye(d)[:, :, None] + 0.25 * rng.standard_normal((d, d, 7))
    P, A = material.stress(F)
    h = 1e-6
    for k in range(d):
        for L in range(d):
            dF = np.zeros_like(F)
            dF[k, L] = h
            dW = (material.energy(F + dF) - material.energy(F - dF)) / (2 * h)
            dP = (material.stress(F + dF)[0] - material.stress(F - dF)[0]) / (2 * h)
            np.testing.assert_allclose(P[k, L], dW, atol=1e-7 * np.abs(P).max())
            np.testing.assert_allclose(A[:, :, k, L], dP, atol=1e-7 * np.abs(A).max())


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", list(ELEMENTS))
def test_assembled_tangent_is_the_derivative_of_the_internal_force(material, name):
    basis = _basis(name)
    rng = np.random.default_rng(5)
    x = basis.doflocs
    u = 0.15 * np.sin(2.0 * x[0] + x[-1] + 0.3) + 0.02 * rng.standard_normal(basis.N)  # large strain
    K = tangent_stiffness(basis, material, u)
    direction = rng.standard_normal(basis.N)
    h = 1e-6
    fd = (internal_force(basis, material, u + h * direction)
          - internal_force(basis, material, u - h * direction)) / (2 * h)
    np.testing.assert_allclose(K @ direction, fd, atol=1e-6 * np.abs(fd).max())
    assert abs(K - K.T).max() <= 1e-10 * abs(K).max()           # hyperelastic: symmetric


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", ["P1-2D", "Q1-3D", "P2-3D"])
def test_small_strain_tangent_is_linear_elasticity(material, name):
    basis = _basis(name)
    K0 = tangent_stiffness(basis, material, np.zeros(basis.N))
    K_lin = stiffness(basis, Material(material.E, material.nu, "plane_strain"))
    assert abs(K0 - K_lin).max() <= 1e-10 * abs(K_lin).max()


def _uniaxial_reaction(material, dim, stretch):
    """Closed form: axial P of a homogeneous stretch with free lateral faces (P_lateral = 0)."""
    def stress(lateral):
        F = np.diag([lateral] * (dim - 1) + [stretch])[:, :, None]
        return material.stress(F)[0][:, :, 0]
    lateral = brentq(lambda a: stress(a)[0, 0], 0.5, 2.0, xtol=1e-15)
    return stress(lateral)[dim - 1, dim - 1], lateral


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", ["Q1-2D", "P1-3D"])
def test_block_compressed_by_30_percent_matches_the_closed_form(material, name):
    """Rollers below and on the symmetry faces, the top pushed down by 0.3: Newton on K(u)."""
    basis = _basis(name)
    dim = basis.mesh.dim()
    top = basis.get_dofs(lambda p: np.isclose(p[-1], 1.0)).nodal[f"u^{dim}"]
    fixed = [basis.get_dofs(lambda p, c=c: np.isclose(p[c], 0.0)).nodal[f"u^{c + 1}"]
             for c in range(dim)]
    D = np.unique(np.concatenate(fixed + [top]))
    u = np.zeros(basis.N)
    stretch = 0.7
    for level in np.linspace(0.1, 1.0, 10):          # load steps of 3 % strain
        u[top] = -(1 - stretch) * level
        for _ in range(30):
            r = internal_force(basis, material, u)
            free = np.setdiff1d(np.arange(basis.N), D)
            if np.linalg.norm(r[free]) <= 1e-12 * material.E:
                break
            K = tangent_stiffness(basis, material, u)
            u[free] -= spla.spsolve(K[free][:, free].tocsc(), r[free])
        else:
            raise AssertionError("Newton did not converge")
    reaction = internal_force(basis, material, u)[top].sum()     # top face, unit reference area
    expected, lateral = _uniaxial_reaction(material, dim, stretch)
    assert abs(reaction - expected) <= 1e-9 * abs(expected)
    # homogeneous: the free side face moves out by (lateral stretch - 1) everywhere
    side = basis.get_dofs(lambda p: np.isclose(p[0], 1.0)).nodal["u^1"]
    np.testing.assert_allclose(u[side], lateral - 1.0, atol=1e-10)


# -- bodies in finite strain in contact (Model API and case files) -------------------------------

def _compressed_block(material, dim, steps=10):
    """A unit block pressed 30 % onto a frictionless rigid line (plane), free sideways."""
    import fecontact as fc

    if dim == 2:
        mesh = skfem.MeshQuad.init_tensor(*[np.linspace(0, 1, 5)] * 2)
        obstacle = fc.RigidLine(point=(0, 0), normal=(0, 1))
    else:
        mesh = skfem.MeshHex.init_tensor(*[np.linspace(0, 1, 3)] * 3)
        obstacle = fc.RigidPlane(point=(0, 0, 0), normal=(0, 0, 1))
    mesh = mesh.with_boundaries({"bottom": lambda x: x[-1] < 1e-9, "top": lambda x: x[-1] > 1 - 1e-9,
                                 "left": lambda x: x[0] < 1e-9, "front": lambda x: x[1] < 1e-9})
    body = fc.Body("block", mesh, "Q1", material)
    body.fix("top", **{"xyz"[dim - 1]: -0.3})
    body.fix("left", x=0.0)
    if dim == 3:
        body.fix("front", y=0.0)
    pair = fc.Contact(body.surface("bottom"), obstacle, fc.Frictionless())
    return fc.Model([body], [pair]).solve(steps=steps)


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("dim", [2, 3])
def test_block_pressed_30_percent_on_a_rigid_plane_matches_the_closed_form(material, dim):
    result = _compressed_block(material, dim)
    assert result.converged
    expected, lateral = _uniaxial_reaction(material, dim, 0.7)
    force = result.contact().force[dim - 1].sum()
    assert abs(force + expected) <= 1e-9 * abs(expected)           # the line pushes up
    assert abs(result.reaction("top")[dim - 1] - expected) <= 1e-9 * abs(expected)


def test_newton_converges_quadratically_once_the_contact_status_is_settled():
    """After the first increment every node is closed: ``r_{k+1} <= C r_k^2`` with a bounded C.

    ``r`` is the relative equilibrium residual of each iteration; pairs with
    ``r_k < 1e-3`` are in the asymptotic range.
    """
    result = _compressed_block(NeoHookean(100.0, 0.3), 2, steps=5)
    constants = []
    for record in result.records[1:]:
        r = [h.equilibrium for h in record.history]
        constants += [b / a**2 for a, b in zip(r, r[1:]) if a < 1e-3 and b > 0.0]
    print("r_(k+1) / r_k^2 on the settled increments:", np.round(constants, 3))
    assert constants and max(constants) <= 1.0, constants


def test_small_loads_reproduce_linear_elasticity():
    """The same block pressed by 1e-4: finite-strain and linear reactions agree to 1e-3 relative."""
    import fecontact as fc

    mesh = skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 6)] * 2).with_boundaries({
        "bottom": lambda x: x[1] < 1e-9, "top": lambda x: x[1] > 1 - 1e-9,
        "left": lambda x: x[0] < 1e-9})
    reactions = []
    for material in (fc.LinearElastic(E=100.0, nu=0.3), NeoHookean(100.0, 0.3),
                     SaintVenantKirchhoff(100.0, 0.3)):
        body = fc.Body("block", mesh, "P2", material)
        body.fix("top", y=-1e-4)
        body.fix("left", x=0.0)
        pair = fc.Contact(body.surface("bottom"), fc.RigidLine(point=(0, 0), normal=(0, 1)),
                          fc.Coulomb(0.3))
        result = fc.Model([body], [pair]).solve(steps=1)
        assert result.converged
        reactions.append(result.reaction("top"))
    for other in reactions[1:]:
        np.testing.assert_allclose(other, reactions[0], rtol=1e-3, atol=1e-3 * abs(reactions[0][1]))


CASE = """
name = "nh_block"
[[bodies]]
name = "block"
element = "Q1"
mesh = { generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 1.0, nx = 4, ny = 4, element = "quad" }
material = { model = "neo_hookean", E = 100.0, nu = 0.3 }
[[bodies.dirichlet]]
boundary = "top"
component = "y"
value = -0.3
[[bodies.dirichlet]]
boundary = "left"
component = "x"
[[contact]]
slave = { body = "block", boundary = "bottom" }
master = { obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }
[steps]
count = 10
"""


def test_a_case_file_with_a_neo_hookean_body_runs_to_the_closed_form(tmp_path, capsys):
    import json

    from fecontact.cli import main

    case = tmp_path / "block.toml"
    case.write_text(CASE)
    assert main(["run", str(case), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    expected, _ = _uniaxial_reaction(NeoHookean(100.0, 0.3), 2, 0.7)
    assert summary["converged"] and summary["check"]["passed"]
    assert abs(summary["reaction"]["top"][1] - expected) <= 1e-9 * abs(expected)


def test_mortar_patch_test_under_large_deformation():
    """Two neo-Hookean blocks with non-matching meshes stacked and pressed by 30 %, frictionless
    mortar interface: the interface pressure is uniform and equals the closed form."""
    import fecontact as fc

    material = NeoHookean(100.0, 0.3)

    def block(y0, y1, n, name):
        mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 1, n + 1), np.linspace(y0, y1, 3))
        mesh = mesh.with_boundaries({"bottom": lambda x: np.isclose(x[1], y0),
                                     "top": lambda x: np.isclose(x[1], y1),
                                     "left": lambda x: x[0] < 1e-9})
        return fc.Body(name, mesh, "Q1", material)

    lower, upper = block(0.0, 0.5, 4, "lower"), block(0.5, 1.0, 5, "upper")
    lower.fix("bottom", y=0.0)
    lower.fix("left", x=0.0)
    upper.fix("left", x=0.0)
    upper.fix("top", y=-0.3)
    pair = fc.Contact(upper.surface("bottom"), lower.surface("top"), fc.Frictionless(),
                      formulation="mortar")
    result = fc.Model([lower, upper], [pair]).solve(steps=10)
    assert result.converged
    expected, _ = _uniaxial_reaction(material, 2, 0.7)
    pressure = result.contact().pressure
    np.testing.assert_allclose(pressure, -expected, rtol=1e-9)
    assert abs(result.reaction("top")[1] - expected) <= 1e-9 * abs(expected)


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", ["Q1-2D", "P2-3D"])
def test_a_rigid_rotation_of_a_loaded_body_adds_no_strain_energy(material, name):
    """Frame indifference: rotating a deformed body by 90 degrees keeps its energy and rotates its
    nodal forces; linear elasticity would store energy of the order of E times the volume."""
    basis = _basis(name)
    dim = basis.mesh.dim()
    x = basis.doflocs
    rng = np.random.default_rng(11)
    u = 0.1 * np.sin(3.0 * x[0] + 2.0 * x[-1]) + 0.01 * rng.standard_normal(basis.N)
    R = np.eye(dim)
    R[:2, :2] = [[0.0, -1.0], [1.0, 0.0]]                 # 90 degrees about z
    points = x[:, ::dim].T                              # DOFs interleaved node by node
    assert np.array_equal(x[:, 1::dim].T, points)
    U = u.reshape(-1, dim)
    u_rot = ((points + U) @ R.T - points).ravel()       # the deformed body, rotated

    @skfem.Functional
    def energy(w):
        from skfem.helpers import grad
        G = grad(w["u"])
        return material.energy(np.eye(dim).reshape(dim, dim, 1, 1) + G)

    E0 = energy.assemble(basis, u=basis.interpolate(u))
    E1 = energy.assemble(basis, u=basis.interpolate(u_rot))
    assert abs(E1 - E0) <= 1e-10 * E0
    f0 = internal_force(basis, material, u).reshape(-1, dim)
    f1 = internal_force(basis, material, u_rot).reshape(-1, dim)
    np.testing.assert_allclose(f1, f0 @ R.T, atol=1e-9 * np.abs(f0).max())
    K_lin = stiffness(basis, Material(material.E, material.nu, "plane_strain"))
    spurious = 0.5 * u_rot @ (K_lin @ u_rot) - 0.5 * u @ (K_lin @ u)
    print(f"energy {E0:.4g}, after the rotation {E1:.4g}; linear elasticity adds {spurious:.4g}")
    assert spurious > 10 * E0                            # what linear elasticity would report


def test_hertz_line_contact_of_a_neo_hookean_disc_matches_hertz_and_linear_elasticity(tmp_path):
    """hertz2d (contact half-width a/R = 0.116) with the disc neo-Hookean: Hertz's peak pressure
    within 1 %, the pressure's L2 error within 2 %, and the load within 0.5 % of the linear run."""
    from pathlib import Path

    import fecontact as fc

    case = Path(__file__).resolve().parents[1] / "cases" / "hertz2d.toml"
    coarse = ["bodies.0.mesh.h_contact=0.004"]
    linear = fc.run_case(case, tmp_path / "linear", coarse, write_vtu_files=False).summary
    finite = fc.run_case(case, tmp_path / "nh", coarse + ['bodies.0.material.model="neo_hookean"'],
                         write_vtu_files=False).summary
    assert finite["converged"] and finite["check"]["passed"]
    metrics = finite["metrics"]
    print({k: v.get("rel_error", v.get("value")) for k, v in metrics.items()})
    assert metrics["peak_pressure"]["rel_error"] <= 0.01
    assert metrics["pressure_l2_error"]["value"] <= 0.02
    load, load_linear = metrics["load"]["value"], linear["metrics"]["load"]["value"]
    assert abs(load / load_linear - 1.0) <= 0.005


def _carried_around_a_cylinder(material, press=0.06, degrees=90.0, press_steps=3, turn_steps=9):
    """A block pressed onto a frictionless rigid cylinder, then carried rigidly around it.

    The block ``[-0.5, 0.5] x [R, R + 0.5]`` (Q1) sits on the cylinder of
    radius ``R = 2`` centred at the origin; its top edge is pressed down by
    ``press`` and then turned about the cylinder's axis by ``degrees``:
    ``u_D(X) = Q(theta) (X - press e_y) - X``.  Each top node follows its own
    path, given as two tabular amplitudes sampled at the load levels (exact
    there).  The cylinder is invariant under the turn, so the exact solution
    at every angle is the pressed state turned rigidly.
    """
    import fecontact as fc

    R = 2.0
    mesh = skfem.MeshQuad.init_tensor(np.linspace(-0.5, 0.5, 17), np.linspace(R, R + 0.5, 9))
    mesh = mesh.with_boundaries({"bottom": lambda x: x[1] < R + 1e-9,
                                 "top": lambda x: x[1] > R + 0.5 - 1e-9})
    body = fc.Body("block", mesh, "Q1", material)
    levels = np.arange(1, press_steps + turn_steps + 1, dtype=float)
    times = np.concatenate([[0.0], levels])
    pressed = np.minimum(times / press_steps, 1.0) * press
    theta = np.radians(degrees) * np.clip((times - press_steps) / turn_steps, 0.0, 1.0)
    c, s = np.cos(theta), np.sin(theta)
    top = mesh.p[:, mesh.nodes_satisfying(lambda x: x[1] > R + 0.5 - 1e-9)]
    for X, Y in top.T:
        y = Y - pressed
        ux, uy = c * X - s * y - X, s * X + c * y - Y
        body.fix(point=(X, Y), x=1.0, amplitude=fc.Amplitude(tuple(times), tuple(ux)))
        body.fix(point=(X, Y), y=1.0, amplitude=fc.Amplitude(tuple(times), tuple(uy)))
    pair = fc.Contact(body.surface("bottom"), fc.RigidCircle(center=(0.0, 0.0), radius=R),
                      fc.Frictionless())
    return fc.Model([body], [pair]).solve(levels=levels), theta[1:], press_steps


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
def test_a_block_carried_90_degrees_around_a_cylinder_keeps_its_energy_and_contact_force(material):
    """Rigid rotation in contact (frictionless): the strain energy and the contact force's
    magnitude stay those of the pressed state, and the force turns with the block; a linear-elastic
    block carried the same way stores spurious energy and its contact force changes."""
    result, theta, pressed_at = _carried_around_a_cylinder(material)
    assert result.converged
    # the turn's 10-degree increments need no cut-back: the prescribed motion is lifted into the
    # interior before Newton starts (fecontact.analysis.lift), so no element starts inverted
    print("Newton iterations per step:", [r.newton_iterations for r in result.records])
    assert sum(r.cutbacks for r in result.records) == 0
    basis = result.problem.system.bodies[0].basis
    dim = 2

    @skfem.Functional
    def energy(w):
        from skfem.helpers import grad
        return material.energy(np.eye(dim).reshape(dim, dim, 1, 1) + grad(w["u"]))

    energies, forces = [], []
    for k in range(pressed_at - 1, len(theta)):
        step = result.at(k)
        u = step.body_displacement("block").T.ravel()
        energies.append(energy.assemble(basis, u=basis.interpolate(u)))
        forces.append(step.contact().force.sum(axis=1))
    energies, forces = np.array(energies), np.array(forces)
    angles = theta[pressed_at - 1:]
    magnitude = np.linalg.norm(forces, axis=1)
    print(f"energy {energies[0]:.6g}: spread {np.ptp(energies) / energies[0]:.2e}; "
          f"force {magnitude[0]:.6g}: spread {np.ptp(magnitude) / magnitude[0]:.2e}")
    assert energies[0] > 0.0 and magnitude[0] > 0.0
    assert np.ptp(energies) <= 1e-6 * energies[0]
    assert np.ptp(magnitude) <= 1e-6 * magnitude[0]
    # the force turns with the block: at 90 degrees the cylinder pushes the block along -x ... +x
    direction = np.stack([-np.sin(angles), np.cos(angles)], axis=1)
    np.testing.assert_allclose(forces, magnitude[:, None] * direction, atol=1e-6 * magnitude[0])
    assert abs(angles[-1] - np.pi / 2) < 1e-12

    linear, _, _ = _carried_around_a_cylinder(Material(material.E, material.nu, "plane_strain"))
    K = result.problem.system.K
    spurious = [0.5 * u @ (K @ u) for u in (linear.at(pressed_at - 1).state.u, linear.state.u)]
    print(f"linear elasticity: energy {spurious[0]:.4g} pressed, {spurious[1]:.4g} after the turn")
    assert spurious[1] > 10 * spurious[0]
    linear_force = [np.linalg.norm(s.contact().force.sum(axis=1))
                    for s in (linear.at(pressed_at - 1), linear)]
    print(f"linear elasticity: contact force {linear_force[0]:.4g} pressed, "
          f"{linear_force[1]:.4g} after the turn")
    assert abs(linear_force[1] / linear_force[0] - 1.0) > 0.1


def _stuck_pair_turned(material, degrees=90.0, load_steps=3, turn_steps=9):
    """A block pressed and sheared on a base (Coulomb, mu = 0.5), then both turned about the origin.

    Base ``[-1, 1] x [-0.5, 0]``, held at its bottom; block ``[-0.5, 0.5] x [0, 0.5]``, its top
    moved by ``d = (0.01, -0.05)``; then every held node follows ``Q(theta) (X + d) - X``
    (``d = 0`` on the base).  Each node's path is two tabular amplitudes sampled at the levels.
    """
    import fecontact as fc

    levels = np.arange(1, load_steps + turn_steps + 1, dtype=float)
    times = np.concatenate([[0.0], levels])
    ramp = np.minimum(times / load_steps, 1.0)
    theta = np.radians(degrees) * np.clip((times - load_steps) / turn_steps, 0.0, 1.0)
    c, s = np.cos(theta), np.sin(theta)

    def held(body, mesh, where, d):
        for X, Y in mesh.p[:, mesh.nodes_satisfying(where)].T:
            x, y = X + ramp * d[0], Y + ramp * d[1]
            body.fix(point=(X, Y), x=1.0, amplitude=fc.Amplitude(tuple(times), tuple(c * x - s * y - X)))
            body.fix(point=(X, Y), y=1.0, amplitude=fc.Amplitude(tuple(times), tuple(s * x + c * y - Y)))

    base_mesh = skfem.MeshQuad.init_tensor(np.linspace(-1, 1, 17), np.linspace(-0.5, 0, 5))
    base_mesh = base_mesh.with_boundaries({"top": lambda x: x[1] > -1e-9})
    block_mesh = skfem.MeshQuad.init_tensor(np.linspace(-0.5, 0.5, 11), np.linspace(0, 0.5, 6))
    block_mesh = block_mesh.with_boundaries({"bottom": lambda x: x[1] < 1e-9})
    base = fc.Body("base", base_mesh, "Q1", material)
    block = fc.Body("block", block_mesh, "Q1", material)
    held(base, base_mesh, lambda x: x[1] < -0.5 + 1e-9, (0.0, 0.0))
    held(block, block_mesh, lambda x: x[1] > 0.5 - 1e-9, (0.01, -0.05))
    pair = fc.Contact(block.surface("bottom"), base.surface("top"), fc.Coulomb(0.5))
    return fc.Model([base, block], [pair]).solve(levels=levels), theta[1:], load_steps


@pytest.mark.parametrize("material", MATERIALS[:1], ids=lambda m: m.name)
@pytest.mark.slow
def test_friction_history_is_objective_when_a_stuck_pair_is_turned_90_degrees(material):
    """Pressed and sheared with stuck friction, then turned rigidly together in 10-degree
    increments: no node slips, and the force the held nodes take turns with the bodies
    (exactly, to solver tolerance).  The nodal tractions reported along the tangent at the
    start of each increment turn too, up to ``1 - cos(dtheta)`` of their size: the tangential
    row of the node-to-segment operator also carries ``xi``'s derivative, which a segment
    turned by ``dtheta`` within the increment lengthens by that factor (docs/developer/decisions/finite-deformation.md)."""
    result, theta, loaded_at = _stuck_pair_turned(material)
    assert result.converged
    before, after = result.at(loaded_at - 1), result
    names = sorted({d.name for d in result.problem.system.dirichlet if d.body == 1})
    r0, r1 = (sum(s.reaction(n) for n in names)[:2] for s in (before, after))
    Q = np.array([[0.0, -1.0], [1.0, 0.0]])
    print(f"reaction on the block's held nodes {r0} before, {r1} after the turn")
    np.testing.assert_allclose(r1, Q @ r0, atol=1e-7 * np.linalg.norm(r0))
    assert abs(r0[0]) > 0.05 * abs(r0[1])                       # a real tangential force
    np.testing.assert_array_equal(after.contact().status, before.contact().status)
    assert np.all(after.contact().status == 1)                  # every node stuck
    slip = [s.state.slip for s in (before, after)]
    np.testing.assert_allclose(slip[1], slip[0], atol=1e-9)     # the turn adds no slip
    t0, t1 = before.contact().traction, after.contact().traction
    lag = 1.0 - np.cos(theta[loaded_at] - theta[loaded_at - 1])
    deviation = np.abs(t1 - Q @ t0).max() / np.abs(t0).max()
    print(f"nodal tractions: largest deviation from the turned ones {deviation:.2e} (1 - cos dtheta "
          f"= {lag:.2e})")
    assert deviation <= lag + 1e-6
