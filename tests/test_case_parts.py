"""Case files with parts meshed in pieces ([[tie]]) and materials per mesh region.

Both are checked against the series-spring closed form of a two-layer block
compressed onto a frictionless rigid line: with nu = 0 the layers do not
expand sideways, so each carries the same uniform stress sigma and shortens
by sigma h_i / E_i.
"""


import meshio
import numpy as np
import pytest
import skfem

import fecontact as fc

CASE = """
name = "layers"
[[bodies]]
name = "lower"
element = "Q1"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 2.0, y0 = 0.0, y1 = 0.5, nx = 7, ny = 3, element = "quad" }}
material = {{ E = 20.0, nu = 0.0, model = "plane_stress" }}

[[bodies]]
name = "upper"
element = "Q1"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 2.0, y0 = 0.5, y1 = 1.0, nx = 4, ny = 2, element = "quad" }}
material = {{ E = 80.0, nu = 0.0, model = "plane_stress" }}

[[bodies.dirichlet]]
boundary = "top"
component = "y"
value = {push}

[[bodies.dirichlet]]
point = [1.0, 1.0]
component = "x"

[[tie]]
slave = {{ body = "lower", boundary = "top" }}
master = {{ body = "upper", boundary = "bottom" }}

[[contact]]
name = "floor"
slave = {{ body = "lower", boundary = "bottom" }}
master = {{ obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}

[steps]
count = 2
"""


def _series_stress(push, layers):
    """Stress of layers ``[(h, E'), ...]`` in series under a total shortening ``push``."""
    return push / sum(h / e for h, e in layers)


def test_tied_case_matches_the_series_closed_form_and_the_api(tmp_path):
    path = tmp_path / "layers.toml"
    path.write_text(CASE.format(push=-0.01))
    result = fc.run_case(path, out_dir=tmp_path / "out")
    assert result.converged
    sigma = _series_stress(0.01, [(0.5, 20.0), (0.5, 80.0)])   # plane stress: E' = E
    pressure = result.solution.pressure
    assert np.allclose(pressure, sigma, rtol=1e-9)
    assert result.reaction("top")[1] == pytest.approx(-2.0 * sigma, rel=1e-10)

    # the same model through the API
    lower = fc.Body("lower", skfem.MeshQuad.init_tensor(np.linspace(0, 2, 8), np.linspace(0, 0.5, 4)),
                    "Q1", fc.LinearElastic(20.0, 0.0, plane="stress"))
    upper = fc.Body("upper", skfem.MeshQuad.init_tensor(np.linspace(0, 2, 5), np.linspace(0.5, 1, 3)),
                    "Q1", fc.LinearElastic(80.0, 0.0, plane="stress"))
    upper.fix(lambda x: np.isclose(x[1], 1.0), y=-0.01, name="top")
    upper.fix(point=(1.0, 1.0), x=0.0)
    tie = fc.Tie(lower.surface(lambda x: np.isclose(x[1], 0.5)),
                 upper.surface(lambda x: np.isclose(x[1], 0.5)))
    floor = fc.Contact(lower.surface(lambda x: np.isclose(x[1], 0.0)), fc.RigidLine((0, 0), (0, 1)))
    api = fc.Model([lower, upper], [floor, tie]).solve(steps=2)
    assert np.allclose(api.pressure, pressure, rtol=1e-12)


def test_materials_per_region_in_a_case(tmp_path):
    """One body, two Gmsh physical surfaces with their own material."""
    m = skfem.MeshTri.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 9))
    centroid_y = m.p[1, m.t].mean(axis=0)
    region = np.where(centroid_y < 0.5, 1, 2)
    facets = m.boundary_facets()
    mid_y = m.p[1, m.facets[:, facets]].mean(axis=0)
    top, bottom = facets[np.isclose(mid_y, 1.0)], facets[np.isclose(mid_y, 0.0)]
    lines = np.hstack([m.facets[:, top], m.facets[:, bottom]]).T
    tags = np.concatenate([np.full(top.size, 3), np.full(bottom.size, 4)])
    mesh = meshio.Mesh(m.p.T, [("line", lines), ("triangle", m.t.T)],
                       cell_data={"gmsh:physical": [tags, region],
                                  "gmsh:geometrical": [tags, region]},
                       field_data={"soft": np.array([1, 2]), "stiff": np.array([2, 2]),
                                   "top": np.array([3, 1]), "bottom": np.array([4, 1])})
    meshio.write(tmp_path / "layers.msh", mesh, file_format="gmsh22", binary=False)
    case = """
name = "regions"
[[bodies]]
name = "block"
element = "P1"
mesh = { file = "layers.msh" }
materials = { soft = { E = 10.0, nu = 0.0 }, stiff = { E = 40.0, nu = 0.0 } }
[[bodies.dirichlet]]
boundary = "top"
component = "y"
value = -0.01
[[bodies.dirichlet]]
point = [1.0, 1.0]
component = "x"
[[contact]]
slave = { body = "block", boundary = "bottom" }
master = { obstacle = "line" }
[steps]
count = 1
"""
    path = tmp_path / "regions.toml"
    path.write_text(case)
    result = fc.run_case(path, out_dir=tmp_path / "out")
    assert result.converged
    e_plane_strain = [10.0, 40.0]                      # nu = 0: E' = E
    sigma = _series_stress(0.01, [(0.5, e_plane_strain[0]), (0.5, e_plane_strain[1])])
    assert np.allclose(result.solution.pressure, sigma, rtol=1e-9)

    bad = tmp_path / "bad.toml"
    bad.write_text(case.replace("stiff = {", "steel = {"))
    with pytest.raises(fc.CaseError, match="steel"):
        fc.load_case(bad) and fc.build_model(fc.load_case(bad))
    both = tmp_path / "both.toml"
    both.write_text(case.replace('materials = {', 'material = { E = 1.0, nu = 0.3 }\nmaterials = {'))
    with pytest.raises(fc.CaseError, match="not both"):
        fc.load_case(both)
