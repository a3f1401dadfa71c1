"""Gmsh meshes: physical groups become boundary names, linear and quadratic, 2D and 3D."""

import numpy as np
import pytest
import skfem

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


# --- Gmsh hexahedra: meshio/Gmsh (VTK) vertex order, read into scikit-fem's MeshHex order ---------

# Gmsh/VTK hexahedron: corners 0-3 counter-clockwise on the bottom, 4-7 above them; a corner's
# position in the cell's bounding box as bits x + 2y + 4z
_GMSH_HEX_CORNERS = [0, 1, 3, 2, 4, 5, 7, 6]
_GMSH_HEX_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
                   (0, 4), (1, 5), (2, 6), (3, 7)]
_GMSH_HEX_FACES = [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7),
                   (0, 3, 2, 1), (4, 5, 6, 7)]
_HEX_BOX = {"bottom": (2, 0.0), "top": (2, 0.5), "left": (0, 0.0), "right": (0, 1.0),
            "front": (1, 0.0), "back": (1, 2.0)}


def _hex_box():
    """The reference: a scikit-fem hexahedral box [0, 1] x [0, 2] x [0, 0.5] with named sides."""
    import skfem

    mesh = skfem.MeshHex.init_tensor(np.linspace(0.0, 1.0, 3), np.linspace(0.0, 2.0, 4),
                                     np.linspace(0.0, 0.5, 3))
    return mesh.with_boundaries({name: (lambda x, a=axis, v=value: np.isclose(x[a], v))
                                 for name, (axis, value) in _HEX_BOX.items()})


def _write_gmsh_hex_box(ref, path, cell_type, file_format):
    """Write ``ref`` as a Gmsh file of ``cell_type`` cells with its boundaries as physical groups.

    The Gmsh vertex order is built from the coordinates (not from scikit-fem's writer), and the
    higher-order nodes of ``hexahedron20``/``hexahedron27`` (boundary ``quad8``/``quad9``) are
    shared between the cells that meet at them.
    """
    import meshio

    x = ref.p[:, ref.t]                                        # (3, 8, n_elements)
    hi = x.max(axis=1)
    bits = (np.isclose(x, hi[:, None, :]) * np.array([1, 2, 4])[:, None, None]).sum(axis=0)
    order = np.argsort(bits, axis=0)                           # local vertex at bit position
    hexes = np.take_along_axis(ref.t, order, axis=0)[_GMSH_HEX_CORNERS].T   # (n_elements, 8)
    c = ref.p[:, hexes.T]
    assert np.all(np.einsum("ij,ij->j", np.cross(c[:, 1] - c[:, 0], c[:, 3] - c[:, 0], axis=0),
                            c[:, 4] - c[:, 0]) > 0)            # right-handed, as Gmsh writes them
    points = [tuple(p) for p in ref.p.T]
    extra = {}

    def node(corners):                                         # a shared higher-order node
        key = frozenset(int(v) for v in corners)
        if key not in extra:
            extra[key] = len(points)
            points.append(tuple(ref.p[:, sorted(key)].mean(axis=1)))
        return extra[key]

    faces = {}
    for cell in hexes:
        for face in _GMSH_HEX_FACES:
            faces.setdefault(tuple(sorted(cell[list(face)])), cell[list(face)])
    quad_type = {"hexahedron": "quad", "hexahedron20": "quad8", "hexahedron27": "quad9"}[cell_type]
    quads, quad_tags, field_data = [], [], {"body": np.array([100, 3])}
    for tag, name in enumerate(_HEX_BOX, start=1):
        field_data[name] = np.array([tag, 2])
        for facet in np.sort(ref.facets[:, ref.boundaries[name]], axis=0).T:
            quads.append(faces[tuple(facet)])
            quad_tags.append(tag)
    if cell_type != "hexahedron":
        hexes = np.array([list(h) + [node(h[list(e)]) for e in _GMSH_HEX_EDGES] for h in hexes])
        quads = [list(q) + [node((q[i], q[(i + 1) % 4])) for i in range(4)] for q in quads]
    if cell_type == "hexahedron27":
        hexes = np.array([list(h) + [node(h[list(f)]) for f in _GMSH_HEX_FACES] + [node(h[:8])]
                          for h in hexes])
        quads = [q + [node(q[:4])] for q in quads]
    # one block per Gmsh entity: the volume (entity 100) and each side (entity = physical tag)
    quads, quad_tags = np.array(quads), np.array(quad_tags)
    blocks = [(cell_type, np.asarray(hexes))] + [(quad_type, quads[quad_tags == tag])
                                                   for tag in range(1, len(_HEX_BOX) + 1)]
    tags = [np.full(len(hexes), 100)] + [np.full(np.sum(quad_tags == tag), tag)
                                         for tag in range(1, len(_HEX_BOX) + 1)]
    # MSH 4.1 puts every node in an entity: a side's nodes in the first side they lie on
    points = np.array(points)
    dim_tags = np.tile([3, 100], (len(points), 1))
    for tag, (axis, value) in reversed(list(enumerate(_HEX_BOX.values(), start=1))):
        dim_tags[np.isclose(points[:, axis], value)] = [2, tag]
    mesh = meshio.Mesh(points, blocks, cell_data={"gmsh:physical": tags, "gmsh:geometrical": tags},
                       field_data=field_data, point_data={"gmsh:dim_tags": dim_tags})
    meshio.write(str(path), mesh, file_format=file_format, binary=False)
    back = meshio.read(str(path))                              # the file holds what was meant
    assert set(back.cells_dict) == {cell_type, quad_type} and len(back.points) == len(points)
    assert back.cells_dict[cell_type].shape == np.shape(hexes)
    physical = back.cell_data_dict["gmsh:physical"][quad_type]
    assert np.array_equal(np.sort(physical), np.sort(quad_tags))


@pytest.mark.parametrize("file_format", ["gmsh22", "gmsh"])
@pytest.mark.parametrize("cell_type", ["hexahedron", "hexahedron20", "hexahedron27"])
def test_gmsh_hexahedra_keep_their_elements_and_boundaries(tmp_path, cell_type, file_format):
    from fecontact.mesh.quality import corner_jacobians, element_findings

    ref = _hex_box()
    path = tmp_path / f"box_{cell_type}.msh"
    _write_gmsh_hex_box(ref, path, cell_type, file_format)
    mesh = load_mesh(path)

    # the linear mesh of the vertices, of the type that keeps the file's element the default
    assert isinstance(mesh, skfem.MeshHex1) and mesh.p.shape == ref.p.shape
    assert type(mesh).__name__ == {"hexahedron": "MeshHex1", "hexahedron20": "MeshHex20",
                                   "hexahedron27": "MeshHex27"}[cell_type]
    assert np.all(corner_jacobians(mesh) > 0)                  # positive volume at every corner
    assert element_findings(mesh) == []
    # the read vertices are the reference vertices (higher-order nodes dropped): match by position
    key = {tuple(np.round(p, 12)): i for i, p in enumerate(ref.p.T)}
    to_ref = np.array([key[tuple(np.round(p, 12))] for p in mesh.p.T])
    assert np.array_equal(np.sort(to_ref), np.arange(ref.nvertices))

    def cells(t):
        return sorted(tuple(sorted(c)) for c in t.T)

    assert cells(to_ref[mesh.t]) == cells(ref.t)
    volume = np.sum(corner_jacobians(mesh).mean(axis=1))       # exact for boxes
    assert np.isclose(volume, 1.0)
    assert np.isclose(volume, np.sum(np.abs(corner_jacobians(ref)).mean(axis=1)))
    assert set(mesh.boundaries) == set(_HEX_BOX)
    for name, (axis, value) in _HEX_BOX.items():
        assert cells(to_ref[mesh.facets[:, mesh.boundaries[name]]]) == \
            cells(ref.facets[:, ref.boundaries[name]]), name
        assert np.allclose(mesh.p[axis, mesh.facets[:, mesh.boundaries[name]]], value), name
    # the facets of the mesh are the faces of the reference mesh
    assert cells(to_ref[mesh.facets]) == cells(ref.facets)


def test_gmsh_hexahedral_block_on_a_plane_carries_a_uniform_pressure(tmp_path, case_file):
    path = tmp_path / "box.msh"
    _write_gmsh_hex_box(_hex_box(), path, "hexahedron27", "gmsh")
    case = case_file(BLOCK.format(element="Q1", mesh=path.as_posix()))
    r = run(case, case.parent / "out", write_vtu_files=False)
    assert r.summary["converged"]
    assert r.summary["metrics"]["stress_deviation"]["value"] < 1e-9
    # one unit of pressure on the 1 x 2 bottom
    assert abs(np.sum(r.model.problem.area * r.state.multiplier[:, 0]) - 2.0) < 1e-9
