"""3D bodies: uniform compression of a block on a rigid frictionless plane with
tetrahedra (P1, P2) and hexahedra (Q1); a block held only by contact."""

import numpy as np
import pytest

from fecontact.run.static import run

BLOCK3D = """
name = "block3d"
[[bodies]]
name = "block"
element = "{element}"
mesh = {{ generator = "box", x0 = 0.0, x1 = 2.0, y0 = 0.0, y1 = 1.0, z0 = 0.0, z1 = 1.0, nx = 4, ny = 2, nz = 2, element = "{kind}" }}
material = {{ E = 1000.0, nu = 0.3 }}
[[bodies.dirichlet]]
boundary = "top"
component = "z"
value = -0.01
[[bodies.dirichlet]]
point = [1.0, 0.5, 1.0]
components = ["x", "y"]
value = 0.0
[[bodies.dirichlet]]
point = [2.0, 0.5, 1.0]
component = "y"
value = 0.0
[[contact]]
slave = {{ body = "block", boundary = "bottom" }}
master = {{ obstacle = "plane", point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}
friction = {{ law = "{law}", mu = 0.3 }}
[steps]
count = 2
[solver]
tolerance = 1e-13     # the cone is checked to 1e-9 below
"""


@pytest.mark.parametrize("element,kind", [("P1", "tet"), ("P2", "tet"), ("Q1", "hex")])
@pytest.mark.parametrize("law", ["frictionless", "coulomb"])
def test_uniform_compression_3d(case_file, tmp_path, element, kind, law):
    """Uniaxial stress sigma_zz = E * strain (lateral faces free, bottom frictionless).

    With friction the bottom is partly restrained against the lateral
    (Poisson) expansion, so the state is no longer uniaxial and has no closed
    form here: the tractions are checked against the cone, and the resultant
    against the frictionless one (friction can only stiffen the block).
    """
    r = run(case_file(BLOCK3D.format(element=element, kind=kind, law=law)), tmp_path / "out")
    assert r.summary["converged"]
    E, strain, area = 1000.0, 0.01, 2.0
    lam = r.state.multiplier
    A = r.model.problem.area
    reaction = -r.summary["reaction"]["top"][2]
    # contact resultant balances the support reaction
    np.testing.assert_allclose(np.sum(A * lam[:, 0]), reaction, rtol=1e-9)
    if law == "frictionless":
        np.testing.assert_allclose(reaction, E * strain * area, rtol=1e-9)
        # every node carries the uniform pressure, also the vertices of P2 facets
        # (whose consistent forces vanish: the tractions load them through
        # the quadratic surface's force weights)
        np.testing.assert_allclose(lam[:, 0], E * strain, rtol=1e-9)
        np.testing.assert_allclose(lam[:, 1:], 0.0, atol=1e-9 * E * strain)
    else:
        mu = 0.3
        t = np.linalg.norm(lam[:, 1:], axis=1)
        assert np.all(t <= mu * lam[:, 0] * (1 + 1e-9) + 1e-12)
        # friction stiffens the block: more force for the same shortening
        assert reaction >= E * strain * area * (1 - 1e-9)


FLOATING = """
name = "floating3d"
[[bodies]]
name = "block"
element = "P1"
mesh = { generator = "box", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 1.0, z0 = 0.0, z1 = 0.5, nx = 3, ny = 3, nz = 2, element = "tet" }
material = { E = 1000.0, nu = 0.3 }
[[bodies.traction]]
boundary = "top"
value = [0.0, 0.0, -4.0]
[[bodies.dirichlet]]
point = [0.0, 0.0, 0.5]
components = ["x", "y"]
value = 0.0
[[bodies.dirichlet]]
point = [1.0, 0.0, 0.5]
component = "y"
value = 0.0
[[contact]]
slave = { body = "block", boundary = "bottom" }
master = { obstacle = "plane", point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }
[steps]
count = 1
"""


def test_block_held_only_by_contact(case_file, tmp_path):
    """Vertical translation and two rotations are free: contact alone holds them."""
    r = run(case_file(FLOATING), tmp_path / "out")
    assert r.summary["converged"]
    assert r.summary["backend"] == "schur"
    assert r.model.problem.system.free_modes().shape[1] == 3
    np.testing.assert_allclose(r.state.multiplier[:, 0], 4.0, rtol=1e-8)


# hertz3d on quadratic tetrahedra (P2, 42.6k DOFs, contact elements 0.04 = 0.27 a), one step. The
# tractions live on the vertices (weighted gaps, consistent forces: contact.surface), so the
# pressure is resolved on the vertex mesh, h = 0.27 a. Measured: peak +6.9 %, L2 error 14.5 %,
# oscillation 6.3 % of p0 (before: +44.0 %, 36.9 %, 36.4 % with the gap held at every node);
# P1 on the same vertex mesh gives +14.1 %, 13.4 %, 21.3 %. At h = 0.02 (112k DOFs) P2 gives
# +3.5 %, 9.4 %, 2.8 %. The 5 % L2 target needs a vertex mesh near h = 0.1 a.
P2_HERTZ = ["bodies.0.element=P2", "bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3",
            "steps.count=1"]


@pytest.fixture(scope="module")
def hertz3d_p2(tmp_path_factory):
    from conftest import CASES
    r = run(CASES / "hertz3d.toml", tmp_path_factory.mktemp("hertz3d_p2"), P2_HERTZ,
            write_vtu_files=False)
    assert r.summary["converged"]
    return r.summary["metrics"]


@pytest.mark.xfail(strict=True, reason="P2 tetrahedra: the pressure is resolved on the vertex "
                   "mesh, h = 0.27 a here (peak +6.9 %, L2 14.5 %; target 5 %); see docs/developer/decisions/quadratic-3d-tractions.md")
def test_hertz3d_quadratic_tetrahedra_pressure_target(hertz3d_p2):
    assert hertz3d_p2["peak_pressure"]["rel_error"] <= 0.05
    assert hertz3d_p2["pressure_l2_error"]["value"] <= 0.05


def test_hertz3d_quadratic_tetrahedra_regression_bounds(hertz3d_p2):
    """Regression bounds on the figures the xfail above measures (0.069, 0.145), on the nodal
    oscillation (0.063 of p0: vertices and midside nodes on one smooth field), and the contact
    radius (within 2 %)."""
    assert hertz3d_p2["peak_pressure"]["rel_error"] <= 0.075
    assert hertz3d_p2["pressure_l2_error"]["value"] <= 0.155
    assert hertz3d_p2["pressure_oscillation"]["value"] <= 0.07
    assert hertz3d_p2["contact_radius"]["rel_error"] <= 0.02


def test_vertex_weights_of_six_node_triangles():
    """W_vj = int L_v N_j dA on a six-node triangle, against a 7-point rule (exact to degree 5)
    on an arbitrary flat triangle in space; rows sum to the vertex areas |T|/3."""
    from fecontact.mesh.elements import P2

    VERTEX_WEIGHTS = np.array(P2.cell(3).facets.vertex_weights)          # the facet layout's weights
    r15 = np.sqrt(15.0)
    a, c = (9 - 2 * r15) / 21, (6 + r15) / 21
    b, e = (9 + 2 * r15) / 21, (6 - r15) / 21
    bary = np.array([[1 / 3] * 3, [a, c, c], [c, a, c], [c, c, a], [b, e, e], [e, b, e], [e, e, b]])
    w = np.array([9 / 40] + [(155 + r15) / 1200] * 3 + [(155 - r15) / 1200] * 3)
    L0, L1, L2 = bary.T
    N = np.array([L0 * (2 * L0 - 1), L1 * (2 * L1 - 1), L2 * (2 * L2 - 1),
                  4 * L0 * L1, 4 * L1 * L2, 4 * L2 * L0])             # nodes a, b, c, ab, bc, ca
    X = np.array([[0.3, -0.2, 1.0], [2.1, 0.4, 0.7], [0.9, 1.6, 1.5]])
    area = 0.5 * np.linalg.norm(np.cross(X[1] - X[0], X[2] - X[0]))
    W = area * (bary.T * w) @ N.T                                        # (3, 6)
    np.testing.assert_allclose(W, area * VERTEX_WEIGHTS, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(W.sum(axis=1), area / 3, rtol=1e-12)


def test_quadratic_surface_multipliers_live_on_vertices(case_file, tmp_path):
    """On a P2 block the midside nodes have no traction basis (area 0), every vertex's weights
    sum to one, the areas sum to the face's area, and a uniform pressure loads the vertices with
    nothing and the midside nodes with a third of each facet (the consistent load)."""
    r = run(case_file(BLOCK3D.format(element="P2", kind="tet", law="frictionless")),
            tmp_path / "out", write_vtu_files=False)
    surface = r.model.problem.pairs[0].slave
    vertex = surface.area > 0
    np.testing.assert_allclose(surface.area.sum(), 2.0, rtol=1e-12)
    M = surface.multiplier_map
    np.testing.assert_allclose(np.asarray(M.sum(axis=1)).ravel()[vertex], 1.0, rtol=1e-12)
    assert M[~vertex].nnz == 0
    W = np.asarray((M.T @ surface.area))                          # consistent load of unit pressure
    np.testing.assert_allclose(W[vertex], 0.0, atol=1e-12)
    assert np.all(W[~vertex] > 0)
    np.testing.assert_allclose(W.sum(), 2.0, rtol=1e-12)
