"""Gmsh meshes: physical groups become boundary names, linear and quadratic, 2D and 3D."""

import numpy as np
import pytest

from conftest import ROOT
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case
from fecontact.io.meshfile import MeshFileError, load_mesh
from fecontact.run.static import run

MESHES = ROOT / "meshes"


@pytest.mark.parametrize("name", ["half_disc.msh", "half_disc_p2.msh"])
def test_2d_gmsh_boundaries_follow_the_geo_file(name):
    mesh = load_mesh(MESHES / name)
    assert set(mesh.boundaries) == {"contact", "arc", "flat"}
    x = mesh.p[:, mesh.facets[:, mesh.boundaries["contact"]]]          # (2, 2, n)
    radius = np.linalg.norm(x - np.array([0.0, 1.0])[:, None, None], axis=0)
    assert np.allclose(radius, 1.0, atol=1e-12) and np.all(np.abs(x[0]) <= 0.3 + 1e-12)
    flat = mesh.p[:, mesh.facets[:, mesh.boundaries["flat"]]]
    assert np.allclose(flat[1], 1.0)
    # the three groups cover the whole boundary once
    covered = np.concatenate(list(mesh.boundaries.values()))
    assert np.array_equal(np.sort(covered), np.sort(mesh.boundary_facets()))


def test_quadratic_and_linear_gmsh_meshes_share_their_vertices():
    lin, quad = load_mesh(MESHES / "block.msh"), load_mesh(MESHES / "block_p2.msh")
    assert lin.t.shape == quad.t.shape and lin.p.shape == quad.p.shape
    for name, (axis, value) in {"bottom": (2, 0.0), "top": (2, 0.5), "left": (0, 0.0),
                                "right": (0, 1.0), "front": (1, 0.0), "back": (1, 1.0)}.items():
        for mesh in (lin, quad):
            pts = mesh.p[:, mesh.facets[:, mesh.boundaries[name]]]
            assert np.allclose(pts[axis], value), name


BLOCK = """
[[bodies]]
name = "block"
element = "{element}"
mesh = {{ file = "{mesh}" }}
material = {{ E = 100.0, nu = 0.3 }}
dirichlet = [{{ boundary = "left", component = "x" }}, {{ boundary = "front", component = "y" }}]
traction = [{{ boundary = "top", value = [0.0, 0.0, -1.0] }}]

[[contact]]
slave = {{ body = "block", boundary = "bottom" }}
master = {{ obstacle = "plane", point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}

[steps]
count = 1

[reference]
type = "uniform_stress"
stress = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
"""


@pytest.mark.parametrize("element,mesh", [("P1", "block.msh"), ("P2", "block_p2.msh")])
def test_3d_gmsh_block_on_a_plane_carries_a_uniform_pressure(case_file, element, mesh):
    path = case_file(BLOCK.format(element=element, mesh=(MESHES / mesh).as_posix()))
    r = run(path, path.parent / "out", write_vtu_files=False)
    assert r.summary["converged"]
    m = r.summary["metrics"]
    assert m["stress_deviation"]["value"] < 1e-9
    # the contact force balances the load: one unit of pressure on the unit square
    area = r.model.problem.area
    assert abs(np.sum(area * r.state.multiplier[:, 0]) - 1.0) < 1e-9


def test_unknown_boundary_lists_the_physical_groups(case_file):
    path = case_file(BLOCK.format(element="P1", mesh=(MESHES / "block.msh").as_posix())
                     .replace('boundary = "bottom"', 'boundary = "base"'))
    with pytest.raises(CaseError) as err:
        build_model(load_case(path))
    msg = str(err.value)
    assert "'base'" in msg and "bottom" in msg and "top" in msg and "\n" not in msg


def test_mesh_without_elements_is_one_line(tmp_path, case_file):
    import meshio

    bad = tmp_path / "lines.msh"
    meshio.write(str(bad), meshio.Mesh(np.array([[0.0, 0.0], [1.0, 0.0]]), [("line", [[0, 1]])]),
                 file_format="gmsh22", binary=False)
    with pytest.raises(MeshFileError):
        load_mesh(bad)
    path = case_file(BLOCK.format(element="P1", mesh=bad.as_posix()))
    with pytest.raises(CaseError) as err:
        build_model(load_case(path))
    assert "cannot read mesh" in str(err.value) and "no triangles" in str(err.value)
