"""Tied interfaces between non-matching meshes (dual mortar): patch tests, a cantilever, rigid modes, errors."""

import dataclasses

import numpy as np
import pytest
import scipy.sparse.linalg as spla
import skfem

from fecontact.bodies.body import ElasticBody
from fecontact.bodies.elasticity import Material, body_stress
from fecontact.bodies.conditions import Amplitude, Dirichlet, Load
from fecontact.bodies.system import build_system
from fecontact.bodies.ties import Tie
from fecontact.contact.surface import contact_surface
from fecontact.contact.tie import dual_coefficients, tie_boundaries, tie_constraint
from fecontact.mesh import box, rectangle

MAT = Material(200.0, 0.3)


def mapped(mesh, f):
    """The mesh with its vertices moved by ``f`` (boundaries kept)."""
    return dataclasses.replace(mesh, doflocs=f(mesh.p.copy()))


def solve(system, t=1.0):
    """Full displacement of the linear system ``K_hat u_hat = T^T (f - K u_D)``."""
    u_D = system.prescribed(t)
    rhs = system.T.T @ (system.external_force(t) - system.K @ u_D) + system.coupling_force(t)
    return system.T @ spla.spsolve(system.K_hat.tocsc(), rhs) + u_D


def traction_load(bodies, sigma, boundaries):
    """Nodal forces ``int phi sigma n`` of a uniform stress on named boundaries, full numbering."""
    parts = []
    for body, names in zip(bodies, boundaries):
        f = np.zeros(body.dim * body.n_nodes)
        for name in names:
            fb = skfem.FacetBasis(body.mesh, body.basis.elem, facets=body.facets(name))
            f += skfem.LinearForm(lambda v, w: sum(sigma[i, j] * w.n[j] * v[i] for i in range(body.dim)
                                                   for j in range(body.dim))).assemble(fb)
        parts.append(f)
    return Load("traction", np.concatenate(parts), Amplitude.ramp())


def node_at(body, x):
    return int(np.argmin(np.linalg.norm(body.node_coords - np.asarray(x)[:, None], axis=0)))


def pins(body, eps):
    """Supports removing the rigid modes, at the values of ``u = eps x`` (x = 0 at the first corner)."""
    dim = body.dim
    corners = [np.zeros(dim)] + [np.eye(dim)[k] for k in range(dim - 1)]
    out = []
    for k, x in enumerate(corners):
        node = np.array([node_at(body, x)])
        for c in range(k, dim):
            out.append(Dirichlet("pin", 0, node, (c,), float(eps[c] @ x), Amplitude.ramp()))
    return out


def patch(bodies, ties, eps, outer):
    """Solve under the uniform stress of the strain ``eps``; errors of u and of the stress."""
    dim = bodies[0].dim
    lam, mu = MAT.lame(dim)
    sigma = lam * np.trace(eps) * np.eye(dim) + 2 * mu * eps
    system = build_system(bodies, pins(bodies[0], eps), [], [traction_load(bodies, sigma, outer)],
                          ties=ties)
    u = solve(system).reshape(-1, dim)
    exact = system.reference_coords().T @ eps.T
    u_err = np.abs(u - exact).max() / np.abs(exact).max()
    s_err = 0.0
    for b, body in enumerate(bodies):
        ub = u[system.node_offset[b]:system.node_offset[b + 1]].ravel()
        s = body_stress(body, ub)
        s_err = max(s_err, np.abs(s - sigma[:, :, None, None]).max() / np.abs(sigma).max())
    return u_err, s_err, system


EPS2 = np.array([[1.0e-3, 4.0e-4], [4.0e-4, -6.0e-4]])        # tension, compression and shear


@pytest.mark.parametrize("element,kind", [("P1", "tri"), ("Q1", "quad")])
@pytest.mark.parametrize("interface", ["flat", "slanted", "kinked"])
def test_patch_2d(element, kind, interface):
    """Uniform stress passes a non-matching tied interface exactly (flat, slanted, kinked)."""
    h = {"flat": lambda x: 1.0 + 0 * x, "slanted": lambda x: 1.0 + 0.15 * x,
         "kinked": lambda x: 1.0 + 0.2 * np.abs(x - 0.5)}[interface]
    n_lo = 6 if interface == "kinked" else 7         # both meshes keep a node at the kink

    def lower(p):
        p[1] = p[1] * h(p[0])
        return p

    def upper(p):
        p[1] = h(p[0]) + (p[1] - 1.0) * (2.0 - h(p[0]))
        return p

    lo = ElasticBody.create("lower", mapped(rectangle(0, 1, 0, 1, n_lo, 3, kind), lower), element, MAT)
    hi = ElasticBody.create("upper", mapped(rectangle(0, 1, 1, 2, 4, 2, kind), upper), element, MAT)
    bodies = [lo, hi]
    tie = tie_boundaries(bodies, 0, "top", 1, "bottom", name="glue")
    u_err, s_err, system = patch(bodies, [tie], EPS2, [("left", "right", "bottom"), ("left", "right", "top")])
    assert tie.slave_nodes.size == n_lo + 1 and system.tied.sum() == 2 * (n_lo + 1)
    assert u_err < 1e-10 and s_err < 1e-10, (u_err, s_err)


EPS3 = np.array([[1.0e-3, 2.0e-4, -3.0e-4], [2.0e-4, -5.0e-4, 1.0e-4], [-3.0e-4, 1.0e-4, 7.0e-4]])


@pytest.mark.parametrize("lower,upper", [("tet", "tet"), ("hex", "hex"), ("hex", "tet")])
def test_patch_3d(lower, upper):
    """Uniform stress passes a non-matching tied interface of tetrahedra and hexahedra exactly."""
    element = {"tet": "P1", "hex": "Q1"}
    a = ElasticBody.create("a", box(0, 1, 0, 1, 0, 1, 3, 3, 2, lower), element[lower], MAT)
    b = ElasticBody.create("b", box(0, 1, 0, 1, 1, 2, 4, 5, 2, upper), element[upper], MAT)
    sides = ("left", "right", "front", "back")
    tie = tie_constraint(contact_surface(a, 0, "top"), contact_surface(b, 1, "bottom"), [a, b])
    u_err, s_err, _ = patch([a, b], [tie], EPS3, [sides + ("bottom",), sides + ("top",)])
    assert tie.slave_nodes.size == 16 and tie.master_nodes.size == 30
    assert u_err < 1e-10 and s_err < 1e-10, (u_err, s_err)


def test_dual_basis_is_biorthogonal():
    """``int psi_i phi_l = delta_il int phi_i`` on a segment, a triangle and a skewed quadrilateral."""
    for X in (np.array([[[0.0, 0.0], [2.0, 1.0]]]),
              np.array([[[0.0, 0.0, 0.0], [1.0, 0.2, 0.0], [0.3, 1.0, 0.1]]]),
              np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.3, 0.8, 0.0], [0.1, 1.0, 0.0]]])):
        mass, A = dual_coefficients(X)
        assert np.allclose(A[0] @ mass[0], np.diag(mass[0].sum(axis=1)), atol=1e-13)
        assert np.allclose(A[0].sum(axis=0), 1.0)                 # the psi sum to one


def cantilever_tip(pieces, tie=True):
    """Tip deflection of a plane-strain cantilever (clamped at x = 0, shear P = 1 at x = L)."""
    L, H = 4.0, 0.5
    bodies = [ElasticBody.create(f"piece{i}", rectangle(x0, x1, 0, H, nx, ny, "quad"), "Q1", MAT)
              for i, (x0, x1, nx, ny) in enumerate(pieces)]
    clamp = bodies[0].boundary_nodes("left")
    supports = [Dirichlet("clamp", 0, clamp, (0, 1), 0.0, Amplitude.ramp())]
    ties = [tie_boundaries(bodies, i, "right", i + 1, "left") for i in range(len(bodies) - 1)] if tie else []
    last = bodies[-1]
    f = np.zeros(sum(2 * b.n_nodes for b in bodies))
    fb = skfem.FacetBasis(last.mesh, last.basis.elem, facets=last.facets("right"))
    f[-2 * last.n_nodes:] = skfem.LinearForm(lambda v, w: -v[1] / H).assemble(fb)
    system = build_system(bodies, supports, [], [Load("tip", f, Amplitude.ramp())], ties=ties)
    u = solve(system).reshape(-1, 2)
    tip = system.node_offset[-2] + node_at(last, [L, H / 2])
    return -u[tip, 1], system


def test_cantilever_two_tied_pieces_match_one_piece():
    """Two non-matching tied pieces bend like one mesh, within its discretisation error."""
    one, _ = cantilever_tip([(0.0, 4.0, 40, 8)])
    fine, _ = cantilever_tip([(0.0, 4.0, 80, 16)])
    tied, system = cantilever_tip([(0.0, 2.0, 20, 8), (2.0, 4.0, 14, 5)])
    E, nu = MAT.E / (1 - MAT.nu**2), MAT.nu
    I, L, H = 0.5**3 / 12, 4.0, 0.5
    beam = L**3 / (3 * E * I) + L / (5.0 / 6.0 * MAT.E / (2 * (1 + nu)) * H)   # Timoshenko
    print(f"tip deflection: one piece {one:.6g}, two tied pieces {tied:.6g}, "
          f"one piece refined {fine:.6g}, Timoshenko beam {beam:.6g}")
    assert abs(tied - one) < abs(fine - one)
    assert abs(tied - one) / one < 0.02
    assert system.free_modes().shape[1] == 0


def test_rigid_modes_of_tied_bodies():
    """A tied assembly with one support has no free modes; without the tie the second body floats."""
    a = ElasticBody.create("a", rectangle(0, 1, 0, 1, 5, 2), "P1", MAT)
    b = ElasticBody.create("b", rectangle(0, 1, 1, 2, 3, 2, "quad"), "Q1", MAT)
    support = [Dirichlet("base", 0, a.boundary_nodes("bottom"), (0, 1), 0.0, Amplitude.ramp())]
    tie = tie_boundaries([a, b], 0, "top", 1, "bottom")
    assert build_system([a, b], support, [], [], ties=[tie]).free_modes().shape[1] == 0
    assert build_system([a, b], support, [], [], ties=[tie]).floating_bodies() == []
    loose = build_system([a, b], support, [], [])
    assert loose.free_modes().shape[1] == 3 and loose.floating_bodies() == ["b"]
    free = build_system([a, b], [], [], [], ties=[tie])
    modes = free.free_modes()
    assert modes.shape[1] == 3 and sorted(free.floating_bodies()) == ["a", "b"]
    assert np.abs(free.K_hat @ modes).max() < 1e-10 * abs(free.K_hat).max()


def test_prescribed_displacement_passes_the_tie():
    """A slave body tied to a moved master follows it rigidly; u_D reaches the slave nodes; no reaction."""
    a = ElasticBody.create("a", rectangle(0, 1, 0, 1, 7, 2), "P1", MAT)
    b = ElasticBody.create("b", rectangle(0, 1, 1, 2, 4, 2), "P1", MAT)
    nodes = np.arange(b.n_nodes)
    move = [Dirichlet("move", 1, nodes, (0,), 0.3, Amplitude.ramp()),
            Dirichlet("hold", 1, nodes, (1,), -0.1, Amplitude.ramp())]
    tie = tie_boundaries([a, b], 0, "top", 1, "bottom")
    system = build_system([a, b], move, [], [], ties=[tie])
    assert system.n_reduced == 2 * (a.n_nodes - tie.slave_nodes.size)
    u_D = system.prescribed(0.5).reshape(-1, 2)
    assert np.allclose(u_D[tie.slave_nodes], [0.15, -0.05], atol=1e-14)
    u = solve(system).reshape(-1, 2)
    assert np.allclose(u, [0.3, -0.1], atol=1e-12)
    reaction = system.reactions(system.internal_force(u.ravel()) - system.external_force(1.0))
    assert np.allclose(reaction["move"], 0.0, atol=1e-9) and np.allclose(reaction["hold"], 0.0, atol=1e-9)
    u_D = system.prescribed(1.0)                                   # the reduced unknowns round-trip
    assert np.allclose(system.displacement(system.to_reduced(u.ravel() - u_D), 1.0), u.ravel(), atol=1e-14)


def test_reactions_collect_the_forces_through_the_tie():
    """A block hanging from a tied, clamped block: the clamp reaction balances the load."""
    a = ElasticBody.create("a", rectangle(0, 1, 0, 1, 5, 3, "quad"), "Q1", MAT)
    b = ElasticBody.create("b", rectangle(0, 1, 1, 2, 3, 2), "P1", MAT)
    support = [Dirichlet("clamp", 1, b.boundary_nodes("top"), (0, 1), 0.0, Amplitude.ramp())]
    load = traction_load([a, b], np.array([[0.0, 0.0], [0.0, -2.0]]), [("bottom",), ()])
    tie = tie_boundaries([a, b], 0, "top", 1, "bottom")
    system = build_system([a, b], support, [], [load], ties=[tie])
    u = solve(system)
    reaction = system.reactions(system.internal_force(u) - system.external_force(1.0))["clamp"]
    assert np.allclose(reaction[:2], [0.0, -2.0], atol=1e-9)       # the hanging load, pulled down


def test_support_on_a_slave_node_keeps_the_support():
    """A support crossing the interface prescribes the slave node; the tie holds the other DOFs."""
    a = ElasticBody.create("a", rectangle(0, 1, 0, 1, 7, 2), "P1", MAT)
    b = ElasticBody.create("b", rectangle(0, 1, 1, 2, 4, 2), "P1", MAT)
    left = [Dirichlet("sym", i, body.boundary_nodes("left"), (0,), 0.0, Amplitude.ramp())
            for i, body in enumerate((a, b))]
    tie = tie_boundaries([a, b], 0, "top", 1, "bottom")
    system = build_system([a, b], left, [], [], ties=[tie])
    corner = 2 * node_at(a, [0.0, 1.0])
    assert system.fixed[corner] and not system.tied[corner] and system.tied[corner + 1]
    assert system.tied.sum() == 2 * tie.slave_nodes.size - 1


def test_errors():
    a = ElasticBody.create("a", rectangle(0, 2, 0, 1, 6, 2), "P1", MAT)
    b = ElasticBody.create("b", rectangle(0, 1, 1, 2, 4, 2), "P1", MAT)
    with pytest.raises(ValueError, match=r"a\.top -> b\.bottom.*slave nodes are not covered.*\(2, 1\)"):
        tie_boundaries([a, b], 0, "top", 1, "bottom")
    ok = tie_boundaries([a, b], 1, "bottom", 0, "top")            # the smaller surface as the slave
    assert ok.slave_body == 1 and np.allclose(ok.weights.sum(axis=1), 1.0)
    quadratic = ElasticBody.create("q", rectangle(0, 1, 0, 1, 2, 2), "P2", MAT)
    with pytest.raises(ValueError, match="quadratic"):
        tie_boundaries([quadratic, b], 0, "top", 1, "bottom")
    c = ElasticBody.create("c", rectangle(0, 1, 0, 1, 3, 2), "P1", MAT)
    tie = tie_boundaries([c, b], 0, "top", 1, "bottom")
    twice = Tie("again", tie.slave_body, tie.slave_nodes, tie.master_body, tie.master_nodes, tie.weights)
    with pytest.raises(ValueError, match="slave of one tie only"):
        build_system([c, b], [], [], [], ties=[tie, twice])
    back = tie_boundaries([c, b], 1, "bottom", 0, "top")
    with pytest.raises(ValueError, match="cycle"):
        build_system([c, b], [], [], [], ties=[tie, back])
