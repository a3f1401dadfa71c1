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


# hertz3d on quadratic tetrahedra (P2, 42.6k DOFs, contact elements 0.04 = 0.27 a), one step:
# every node of a quadratic facet carries its gap condition, so the nodal forces are fixed by the
# constraints and the consistent force weights only re-read them; vertex and midside pressures
# fall on two branches (measured: peak +44.0 %, L2 error 36.9 %, oscillation 36.4 % of p0).
# The remedy is a multiplier on the vertices with weighted gaps; see docs/decisions.md.
P2_HERTZ = ["bodies.0.element=P2", "bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3",
            "steps.count=1"]


@pytest.fixture(scope="module")
def hertz3d_p2(tmp_path_factory):
    from conftest import CASES
    r = run(CASES / "hertz3d.toml", tmp_path_factory.mktemp("hertz3d_p2"), P2_HERTZ,
            write_vtu_files=False)
    assert r.summary["converged"]
    return r.summary["metrics"]


@pytest.mark.xfail(strict=True, reason="P2 tetrahedra: vertex and midside pressures on two "
                   "branches (peak +44 %, L2 37 %; target 5 %); see docs/decisions.md")
def test_hertz3d_quadratic_tetrahedra_pressure_target(hertz3d_p2):
    assert hertz3d_p2["peak_pressure"]["rel_error"] <= 0.05
    assert hertz3d_p2["pressure_l2_error"]["value"] <= 0.05


def test_hertz3d_quadratic_tetrahedra_regression_bounds(hertz3d_p2):
    """Regression bounds on the figures the xfail above measures (0.440, 0.369), and the
    resultant and contact radius, which are right (radius within 2 %)."""
    assert hertz3d_p2["peak_pressure"]["rel_error"] <= 0.45
    assert hertz3d_p2["pressure_l2_error"]["value"] <= 0.375
    assert hertz3d_p2["contact_radius"]["rel_error"] <= 0.02
