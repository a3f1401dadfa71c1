"""The examples docs/examples/hertz2d_gmsh.py, flat_punch.py and sphere_on_plane.py as tests.

Each example is run as a script would be (``runpy``); its FIGURES are
checked against the closed forms recomputed here from the example's own
run data (the contact force it reports), with bounds set a little above the
error measured on the example's mesh:

================  =========================================  ========  =====
example           figure                                     measured  bound
================  =========================================  ========  =====
hertz2d_gmsh      p_max / p0 - 1                             +0.5 %    1 %
hertz2d_gmsh      a (ellipse fit) / a_Hertz - 1              -2.6 %    3 %
flat_punch        edge-node pressure / Sadowsky mean - 1     +17 %     20 %
flat_punch        p / Sadowsky - 1, worst node |x| < 0.6a    +4.7 %    5 %
sphere_on_plane   p_max / p0 - 1                             +3.2 %    4 %
sphere_on_plane   a (ellipsoid fit) / a_Hertz - 1            -1.7 %    2.5 %
================  =========================================  ========  =====
"""

import runpy

import numpy as np
import pytest
import skfem
from conftest import ROOT

import fecontact as fc

EXAMPLES = ROOT / "docs" / "examples"


def run_example(name):
    return runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="example")


@pytest.fixture(scope="module")
def hertz2d():
    return run_example("hertz2d_gmsh")


@pytest.fixture(scope="module")
def punch():
    return run_example("flat_punch")


@pytest.fixture(scope="module")
def sphere():
    return run_example("sphere_on_plane")


def check_figure(figure, reference, rel):
    """The figure's reference is the closed form computed here; its value lies within ``rel`` of it."""
    assert figure["reference"] == pytest.approx(reference, rel=1e-12)
    assert figure["value"] == pytest.approx(reference, rel=rel)


def check_picture(ns, path):
    ns["plot"](path)
    assert path.is_file() and path.stat().st_size > 20_000


def test_hertz_line_contact_on_the_gmsh_mesh(hertz2d, tmp_path):
    result, figures = hertz2d["result"], hertz2d["FIGURES"]
    assert result.converged
    force = result.pair("disc-on-floor").force[1]
    reaction = result.reaction("flat")
    check_figure(figures["contact force"], -reaction[1], 1e-8)
    assert abs(reaction[0]) < 1e-8 * abs(reaction[1])
    e_star = 1.0e4 / (1 - 0.3**2)
    a = np.sqrt(4.0 * force * 1.0 / (np.pi * e_star))
    p0 = 2.0 * force / (np.pi * a)
    assert figures["peak pressure p_max"]["value"] == result.pressure.max()
    check_figure(figures["peak pressure p_max"], p0, 0.01)
    check_figure(figures["half-width a"], a, 0.03)
    # Hertz's edge lies between the outermost loaded node and the first open one on each side
    x, p = result.slave_points[0], result.pressure
    for side in (1, -1):
        s = side * x
        assert s[(p > 0) & (s > 0)].max() < a < s[(p == 0) & (s > 0)].min()
    check_picture(hertz2d, tmp_path / "hertz2d_gmsh.png")


def test_flat_punch_with_friction_against_sadowsky(punch, tmp_path):
    result, figures = punch["result"], punch["FIGURES"]
    assert result.converged
    fields = result.contact("punch")
    x, p = fields.points[0], fields.pressure
    force = -result.pair("punch").force[1]
    reaction = result.reaction("top")
    # the contact carries what the support of the punch's top applies
    check_figure(figures["contact force"], -reaction[1], 1e-8)
    assert abs(result.pair("punch").force[1] - reaction[1]) <= 1e-8 * abs(reaction[1])
    # the pressure peaks at the punch edges
    assert np.abs(x[np.argmax(p)]) == pytest.approx(1.0)
    centre = p[np.argmin(np.abs(x))]
    assert p.max() / centre > 1.5
    assert centre == pytest.approx(figures["centre pressure p(0)"]["value"])
    # edge node: the mean of the singular pressure over its share [a - w, a] of the surface
    w = punch["slave"].surface.area[np.argmax(p)]
    edge_mean = force / np.pi * np.arccos(1.0 - w) / w
    check_figure(figures["edge / centre pressure"], edge_mean / (force / np.pi), 0.2)
    # the central part against p(x) = P / (pi sqrt(a^2 - x^2))
    inner = np.abs(x) < 0.6
    sadowsky = force / (np.pi * np.sqrt(1.0 - x[inner] ** 2))
    assert np.max(np.abs(p[inner] / sadowsky - 1.0)) < 0.05
    check_figure(figures["centre pressure p(0)"], force / np.pi, 0.05)
    worst = figures["pressure, worst node of |x| < 0.6a"]
    assert worst["value"] / worst["reference"] == pytest.approx(
        1.0 + np.max(np.abs(p[inner] / sadowsky - 1.0)), rel=1e-12)
    # friction: tangential tractions within the cone, slipping at the edges
    shear = np.abs(fields.shear[:, 0])
    assert np.all(shear <= 0.3 * p + 1e-9 * p.max())
    assert shear[np.argmax(p)] == pytest.approx(0.3 * p.max(), rel=1e-6)
    check_picture(punch, tmp_path / "flat_punch.png")


def test_flat_punch_with_the_whole_foundation_top_as_slave(punch):
    """The same model with the whole top of the foundation as the slave surface.

    The foundation nodes beyond the punch edges project past the free ends of
    the punch's base and are open: no load outside |x| <= 1 (before they were
    held against the extension of the end segments and took about two thirds
    of it), the peak pressure at an edge node, and the same contact force as
    with the surface under the punch as the slave.
    """
    ground, block_mesh = punch["ground"], punch["punch"]
    foundation = fc.Body("foundation", ground, "P1", fc.LinearElastic(E=1.0e3, nu=0.3))
    block = fc.Body("punch", block_mesh, "P1", fc.LinearElastic(E=1.0e6, nu=0.3))
    foundation.fix(lambda x: np.isclose(x[1], -4.0), name="bottom")
    block.fix(lambda x: np.isclose(x[1], 1.0), x=0.0, y=-0.01, name="top")
    slave = foundation.surface(lambda x: np.isclose(x[1], 0.0), name="whole-top")
    pair = fc.Contact(slave, block.surface(lambda x: np.isclose(x[1], 0.0)), fc.Coulomb(0.3))
    result = fc.Model([foundation, block], [pair]).solve(steps=2)
    assert result.converged
    x = result.slave_points[0]
    load = result.pressure * slave.surface.area
    outside = load[np.abs(x) > 1.0 + 1e-9].sum() / load.sum()
    assert outside < 1e-3, f"{outside:.1%} of the load outside the punch"
    assert np.isclose(abs(x[np.argmax(result.pressure)]), 1.0)
    force = -result.reaction("top")[1]
    reference = punch["FIGURES"]["contact force"]["value"]
    assert force == pytest.approx(reference, rel=1e-3)


def test_hemisphere_on_a_rigid_plane_against_hertz(sphere, tmp_path):
    result, figures = sphere["result"], sphere["FIGURES"]
    assert result.converged
    assert isinstance(sphere["mesh"], skfem.MeshTet)
    force = result.pair("on-plane").force[2]
    reaction = result.reaction("top")
    check_figure(figures["contact force"], -reaction[2], 1e-8)
    assert np.all(np.abs(reaction[:2]) < 1e-8 * abs(reaction[2]))
    e_star = 1.0e4 / (1 - 0.3**2)
    a = (3.0 * force * 1.0 / (4.0 * e_star)) ** (1.0 / 3.0)
    p0 = 3.0 * force / (2.0 * np.pi * a**2)
    assert figures["peak pressure p_max"]["value"] == result.pressure.max()
    check_figure(figures["peak pressure p_max"], p0, 0.04)
    check_figure(figures["contact radius a"], a, 0.025)
    # no pressure far outside the Hertz circle
    r = np.hypot(*result.slave_points[:2])
    assert np.all(result.pressure[r > 1.25 * a] == 0)
    check_picture(sphere, tmp_path / "sphere_on_plane.png")
