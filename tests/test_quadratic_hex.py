"""Quadratic hexahedra (Q2: 27 nodes, Q2S: serendipity 20 nodes) from Gmsh files.

A Gmsh hexahedron20/hexahedron27 file keeps its quadratic element and the
result file holds every node of the file; constant-stress patch tests
(imposed linear field, contact on a rigid plane with eight- and nine-node
quadrilateral faces, pressure load) are exact on unstructured Gmsh
hexahedra; the VTK cells are right side out for hexahedra of either
orientation; the PFC export of a frictional increment on 20- and 27-node
hexahedra is solved by its finite-element solution.
"""

import sys
from pathlib import Path

import meshio
import numpy as np
import pytest
import scipy.sparse.linalg as spla
import skfem

import fecontact as fc

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from contact_accuracy_meshes import gmsh_model  # noqa: E402

from conftest import ROOT  # noqa: E402
from fecontact.bodies.body import ElasticBody  # noqa: E402
from fecontact.bodies.elasticity import Material, body_stiffness  # noqa: E402
from fecontact.io.meshfile import file_dof_nodes  # noqa: E402
from fecontact.mesh import box  # noqa: E402
from fecontact.mesh.elements import KINDS  # noqa: E402

#: Gmsh cell -> the element kind a body on it gets, Gmsh's SecondOrderIncomplete
CELLS = {"hexahedron20": ("Q2S", 1), "hexahedron27": ("Q2", 0)}
#: the cells of the solving tests; the 27-node one is slow (the default run has the Q2 hexahedron
#: on distorted structured meshes in tests/test_element_kinds.py and its node order here, in
#: test_every_node_of_a_written_cell_is_where_vtk_puts_that_node)
SOLVED = [pytest.param("hexahedron20"), pytest.param("hexahedron27", marks=pytest.mark.slow)]
SIDES = {"bottom": (2, 0.0), "top": (2, 1.0), "left": (0, 0.0), "right": (0, 2.0),
         "front": (1, 0.0), "back": (1, 1.0)}


def block_file(path: Path, cell: str) -> Path:
    """Unstructured quadratic hexahedra of the block [0, 2] x [0, 1] x [0, 1]: Gmsh tetrahedra of
    size 1 split into 172 hexahedra (SubdivisionAlgorithm = 2); a boundary per side, one subdomain."""
    with gmsh_model("block") as gmsh:
        volume = gmsh.model.occ.addBox(0, 0, 0, 2, 1, 1)
        gmsh.model.occ.synchronize()
        for _, surface in gmsh.model.getEntities(2):
            lo, hi = np.split(np.array(gmsh.model.getBoundingBox(2, surface)), 2)
            name = next(n for n, (axis, value) in SIDES.items()
                        if abs(lo[axis] - value) < 1e-6 and abs(hi[axis] - value) < 1e-6)
            gmsh.model.addPhysicalGroup(2, [surface], name=name)
        gmsh.model.addPhysicalGroup(3, [volume], name="block")
        for key, value in (("Mesh.MeshSizeMin", 1.0), ("Mesh.MeshSizeMax", 1.0), ("Mesh.SubdivisionAlgorithm", 2),
                           ("Mesh.ElementOrder", 2), ("Mesh.SecondOrderIncomplete", CELLS[cell][1])):
            gmsh.option.setNumber(key, value)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    face = {"hexahedron20": "quad8", "hexahedron27": "quad9"}[cell]
    assert set(meshio.read(path).cells_dict) == {cell, face}
    return path


@pytest.fixture(scope="module")
def blocks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quadratic_blocks")
    return {cell: block_file(folder / f"block_{cell}.msh", cell) for cell in CELLS}


@pytest.mark.parametrize("cell", SOLVED)
def test_a_quadratic_hexahedron_file_keeps_its_element_and_every_node(blocks, cell, tmp_path):
    """A Gmsh hexahedron20/27 file given as a path: the quadratic element, the file's nodes one for
    one as DOF nodes, and a VTU with every node and cell of the file, measured right by VTK."""
    path, (kind, _) = blocks[cell], CELLS[cell]
    body = fc.Body("block", path, material=fc.LinearElastic(E=100.0, nu=0.3))
    assert body.part.element == kind and body.part.kind.quadratic
    body.fix("left", x=0.0).fix("front", y=0.0).fix("bottom", z=0.0).pressure("top", 1.0)
    solution = fc.Model([body]).solve(steps=1)
    assert solution.converged
    solution.write_vtu(tmp_path / "block.vtu")

    source, written = meshio.read(path), meshio.read(tmp_path / "block.vtu")
    node = file_dof_nodes(source, body.mesh)
    assert written.points.shape[0] == source.points.shape[0] == body.part.n_nodes
    assert np.array_equal(np.sort(node), np.arange(body.part.n_nodes))
    np.testing.assert_allclose(written.points[node], source.points, rtol=0, atol=1e-12)

    def cells(rows):
        return sorted(map(tuple, np.sort(rows, axis=1)))

    assert list(written.cells_dict) == [cell]
    assert cells(written.cells_dict[cell]) == cells(node[source.cells_dict[cell]])
    # the uniaxial stress state of the pressure load: u_z = -p z / E at every node of the file
    u = solution.body_displacement("block")
    np.testing.assert_allclose(u[2], -body.part.node_coords[2] / 100.0, rtol=0, atol=1e-12)
    pv = pytest.importorskip("pyvista")
    volume = pv.read(str(tmp_path / "block.vtu")).compute_cell_sizes(length=False, area=False)
    assert np.all(volume.cell_data["Volume"] > 0) and np.isclose(volume.cell_data["Volume"].sum(), 2.0)


@pytest.mark.parametrize("cell", SOLVED)
def test_linear_field_patch_test_on_unstructured_gmsh_hexahedra(blocks, cell):
    """A linear displacement imposed on the boundary: every interior node (edge, face, centre
    nodes too) takes the same field to round-off."""
    body = ElasticBody.create("block", fc.load_mesh(blocks[cell]), CELLS[cell][0],
                              Material(E=200.0, nu=0.3))
    K = body_stiffness(body).tocsr()
    x = body.node_coords
    A = np.array([[0.010, -0.004, 0.002], [0.003, -0.007, 0.005], [0.001, 0.006, -0.002]])
    exact = (A @ x + np.array([[0.02], [-0.01], [0.03]])).T.ravel()
    fixed = body.node_dofs[:, body.facet_nodes(body.mesh.boundary_facets())].ravel()
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    assert free.size > 0
    u = exact.copy()
    u[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ exact[fixed])
    np.testing.assert_allclose(u[free], exact[free], rtol=0, atol=1e-12)


@pytest.mark.parametrize("cell", SOLVED)
def test_contact_patch_tests_on_unstructured_gmsh_hexahedra(blocks, cell):
    """On a rigid frictionless plane: (a) pressed down by its top, every slave node carries
    E * strain; (b) loaded by a uniform pressure p, every slave node carries p (vertex multipliers
    of the eight-node faces, nodal ones of the nine-node faces)."""
    E, nu, strain, p = 200.0, 0.3, 0.01, 1.5
    plane = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
    material = fc.LinearElastic(E=E, nu=nu)

    pressed = fc.Body("block", blocks[cell], material=material)
    pressed.fix("top", z=-strain).fix(point=(0.0, 0.0, 1.0), x=0.0, y=0.0).fix(point=(2.0, 0.0, 1.0), y=0.0)
    result = fc.Model([pressed], [fc.Contact(pressed.surface("bottom"), plane, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, E * strain, rtol=1e-9)
    assert result.reaction("top")[2] == pytest.approx(-2.0 * E * strain, rel=1e-9)

    loaded = fc.Body("block", blocks[cell], material=material)
    loaded.fix(point=(0.0, 0.0, 0.0), x=0.0, y=0.0).fix(point=(2.0, 0.0, 0.0), y=0.0).pressure("top", p)
    result = fc.Model([loaded], [fc.Contact(loaded.surface("bottom"), plane, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, p, rtol=1e-9)
    np.testing.assert_allclose(result.body_displacement("block")[2, loaded.nodes("top")], -p / E, rtol=1e-9)


@pytest.mark.parametrize("name", ["Q2", "Q2S"])
def test_quadratic_hexahedra_of_either_orientation_are_written_right_side_out(name, tmp_path):
    """scikit-fem's own hexahedra (negative Jacobian) and the package's (positive): VTK measures
    every 20- or 27-node cell with the volume of its cube."""
    pv = pytest.importorskip("pyvista")
    for mesh in (skfem.MeshHex1.init_tensor(*[np.array([0.0, 0.75, 1.5])] * 3),
                 box(0.0, 1.5, 0.0, 1.5, 0.0, 1.5, 2, 2, 2, "hex")):
        body = ElasticBody.create("cube", mesh, name, Material(E=1.0, nu=0.3))
        cell = KINDS[name].cell(3)
        path = tmp_path / "hex.vtu"
        meshio.write(str(path), meshio.Mesh(body.node_coords.T, [(cell.vtk, cell.connectivity(mesh).T)]))
        volume = pv.read(str(path)).compute_cell_sizes(length=False, area=False).cell_data["Volume"]
        np.testing.assert_allclose(volume, 0.75**3, rtol=1e-12)


@pytest.mark.parametrize("element", ["Q2S", pytest.param("Q2", marks=pytest.mark.slow)])
def test_pfc_export_of_a_frictional_increment_on_quadratic_hexahedra(element):
    """The quadratic block of tests/data/block3d_p2.toml on 20- and 27-node hexahedra, pressed on a
    rigid plane and sheared with Coulomb friction: its second increment as PFC(M, H, q, b, mu) is
    solved by the finite-element solution, with sliding nodes, and by the PFC Newton solver."""
    from fecontact.pfc.export import export_case
    from fecontact.pfc.ssn import solve_ssn

    overrides = [f'bodies.0.element="{element}"', 'bodies.0.mesh.element="hex"']
    pf = export_case(ROOT / "tests" / "data" / "block3d_p2.toml", 2, overrides)
    problem, fe = pf.problem, pf.solution
    res = problem.residuals(fe["v"], fe["r"])
    assert res.equilibrium < 1e-10 and res.natural_map < 1e-9, res
    R = fe["r"].reshape(-1, 3)
    assert np.sum(R[:, 0] > 0) >= 9
    assert np.any(np.linalg.norm(R[:, 1:], axis=1) > 0.1 * problem.mu.max() * R[:, 0].max())
    sol = solve_ssn(problem)
    assert sol.converged
    assert np.linalg.norm(sol.r - fe["r"]) <= 1e-6 * np.linalg.norm(fe["r"])


@pytest.mark.parametrize("name,dim", [("Q2", 2), ("Q2S", 2), ("Q2", 3), ("Q2S", 3)])
def test_every_node_of_a_written_cell_is_where_vtk_puts_that_node(name, dim):
    """VTK's own parametric coordinates of the quadratic cell (vtkQuadraticQuad, vtkBiQuadraticQuad,
    vtkQuadraticHexahedron, vtkTriQuadraticHexahedron) mapped by the cell's corners give the position
    of every node of the connectivity: the node order is VTK's, for hexahedra of either
    orientation."""
    vtk = pytest.importorskip("vtk")
    cell = KINDS[name].cell(dim)
    cls = {"quad8": vtk.vtkQuadraticQuad, "quad9": vtk.vtkBiQuadraticQuad,
           "hexahedron20": vtk.vtkQuadraticHexahedron,
           "hexahedron27": vtk.vtkTriQuadraticHexahedron}[cell.vtk]()
    coords = cls.GetParametricCoords()
    pc = np.array([coords[3 * i:3 * i + 3] for i in range(cls.GetNumberOfPoints())])[:, :dim]
    rng = np.random.default_rng(3)
    if dim == 2:
        meshes = [skfem.MeshQuad1.init_tensor(np.linspace(0, 1, 3), np.linspace(0, 2, 3))]
    else:
        axes = [np.array([0.0, 0.75, 1.5])] * 3
        meshes = [skfem.MeshHex1.init_tensor(*axes), box(0.0, 1.5, 0.0, 1.5, 0.0, 1.5, 2, 2, 2, "hex")]
    for mesh in meshes:
        p = mesh.p + rng.uniform(-0.05, 0.05, mesh.p.shape)      # distorted, straight-sided
        mesh = type(mesh)(p, mesh.t)
        body = ElasticBody.create("b", mesh, name, Material(E=1.0, nu=0.3))
        nodes = body.node_coords[:, cell.connectivity(mesh)]    # (dim, k, n_elements)
        corners = nodes[:, :2 ** dim]                          # VTK's corner order
        ref = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                        [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)[:2 ** dim, :dim]
        hats = np.prod(np.where(ref[None, :, :] == 1, pc[:, None, :], 1 - pc[:, None, :]), axis=2)
        np.testing.assert_allclose(nodes, np.einsum("kc,dcn->dkn", hats, corners), atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Q2S", "Q2"])
def test_neo_hookean_hexahedra_in_homogeneous_compression(name):
    """Finite strain: a unit cube of quadratic hexahedra pressed by 10 % onto a rigid frictionless
    plane (free sides) stretches homogeneously, lambda_z = 0.9 and lambda_x = lambda_y from
    P_xx = 0; the top force is P_zz with P = mu (F - F^-T) + lam ln J F^-T."""
    import scipy.optimize

    E, nu, lam_z = 100.0, 0.3, 0.9
    mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))

    def nominal(lt, lz):
        J = lt * lt * lz
        return mu * (lt - 1 / lt) + lam * np.log(J) / lt, mu * (lz - 1 / lz) + lam * np.log(J) / lz

    lam_t = scipy.optimize.brentq(lambda lt: nominal(lt, lam_z)[0], 1.0, 1.5, xtol=1e-15)
    cube = fc.Body("cube", box(0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 2, 2, 2, "hex"), name,
                   fc.NeoHookean(E=E, nu=nu))
    cube.fix("top", z=lam_z - 1.0).fix(point=(0.0, 0.0, 1.0), x=0.0, y=0.0).fix(point=(1.0, 0.0, 1.0), y=0.0)
    plane = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
    result = fc.Model([cube], [fc.Contact(cube.surface("bottom"), plane, fc.Frictionless())]).solve(steps=2)
    assert result.converged
    assert result.reaction("top")[2] == pytest.approx(nominal(lam_t, lam_z)[1], rel=1e-8)
    u, x = result.body_displacement("cube"), cube.part.node_coords
    np.testing.assert_allclose(u[0] - u[0][0], (lam_t - 1.0) * (x[0] - x[0][0]), atol=1e-9)
