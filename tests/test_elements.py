"""Uniform compression of a block on a rigid frictionless flat: every element type and
both plane models transmit the exact uniform pressure (sigma_yy = E' * strain)."""

import numpy as np
import pytest

from fecontact.run.static import run

BLOCK = """
name = "block"
[[bodies]]
name = "block"
element = "{element}"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 2.0, y0 = 0.0, y1 = 1.0, nx = 8, ny = 4, element = "{kind}" }}
material = {{ E = 1000.0, nu = 0.3, model = "{model}" }}
[[bodies.dirichlet]]
boundary = "top"
component = "y"
value = -0.01
[[bodies.dirichlet]]
point = [1.0, 1.0]
component = "x"
value = 0.0
[[contact]]
slave = {{ body = "block", boundary = "bottom" }}
master = {{ obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}
[steps]
count = 2
"""


@pytest.mark.parametrize("element,kind", [("P1", "tri"), ("P2", "tri"), ("Q1", "quad")])
@pytest.mark.parametrize("model", ["plane_strain", "plane_stress"])
def test_uniform_pressure(case_file, tmp_path, element, kind, model):
    path = case_file(BLOCK.format(element=element, kind=kind, model=model))
    r = run(path, tmp_path / "out")
    assert r.summary["converged"]
    E, nu, strain = 1000.0, 0.3, 0.01
    expected = E * strain / (1 - nu**2) if model == "plane_strain" else E * strain
    pressure = r.state.multiplier[:, 0]
    np.testing.assert_allclose(pressure, expected, rtol=1e-9)
    np.testing.assert_allclose(r.state.multiplier[:, 1], 0.0, atol=1e-9 * expected)
    # support reaction = pressure x contact length (per unit thickness)
    np.testing.assert_allclose(-r.summary["reaction"]["top"][1], expected * 2.0, rtol=1e-9)


LOADED = """
name = "loaded-block"
[[bodies]]
name = "block"
element = "P2"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 2.0, y0 = 0.0, y1 = 1.0, nx = 8, ny = 4 }}
material = {{ E = 1000.0, nu = 0.3 }}
body_force = [0.0, {b}]
[[bodies.traction]]
boundary = "top"
value = [0.0, {t}]
[[bodies.dirichlet]]
point = [1.0, 1.0]
component = "x"
value = 0.0
[[contact]]
slave = {{ body = "block", boundary = "bottom" }}
master = {{ obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}
[steps]
count = 2
"""


@pytest.mark.parametrize("b,t", [(0.0, -5.0), (-3.0, -5.0)])
def test_traction_and_body_force_reach_the_contact(case_file, tmp_path, b, t):
    """A block held only by contact: the contact force balances the applied loads.

    With a traction alone the stress is uniform (sigma_yy = t) and so is the
    pressure; a body force bends the free bottom of the exact solution, so
    against a flat only the resultant is known exactly: (|t| + |b| H) L.
    """
    r = run(case_file(LOADED.format(b=b, t=t)), tmp_path / "out")
    assert r.summary["converged"]
    # nothing but contact holds the block vertically (a single point fixes x):
    # vertical translation and rotation about that point are pinned modes
    assert r.summary["backend"] == "schur"
    assert r.model.problem.system.free_modes().shape[1] == 2
    pressure = r.state.multiplier[:, 0]
    area = r.model.problem.area
    np.testing.assert_allclose(np.sum(area * pressure), -(t + b * 1.0) * 2.0, rtol=1e-9)
    if b == 0.0:
        np.testing.assert_allclose(pressure, -t, rtol=1e-8)
