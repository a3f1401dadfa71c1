"""Quadratic quadrilaterals (Q2: 9 nodes, Q2S: serendipity 8 nodes) from Gmsh files and scikit-fem.

A quadratic mesh keeps its quadratic element (never silently linear), the
result file holds every node of the Gmsh file, constant-stress patch tests
(imposed linear field, contact on a rigid flat, pressure load, two
materials) are exact on unstructured Gmsh quadrilaterals, a finite-strain
block in homogeneous compression gives the closed-form force, the PFC
export of a quadratic increment is solved by its finite-element solution,
and the Hertz line contact on Gmsh quad8 and quad9 meshes is within 1 % of
its peak pressure (slow).
"""

import sys
from pathlib import Path

import meshio
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse.linalg as spla
import skfem

import fecontact as fc

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from contact_accuracy_meshes import gmsh_model  # noqa: E402

from conftest import CASES, ROOT  # noqa: E402
from fecontact.bodies.body import ElasticBody  # noqa: E402
from fecontact.bodies.elasticity import Material, body_stiffness  # noqa: E402
from fecontact.io.meshfile import MeshFileError, file_dof_nodes, from_meshio_mesh  # noqa: E402

#: Gmsh cell -> the element kind a body on it gets, Gmsh's SecondOrderIncomplete
CELLS = {"quad8": ("Q2S", 1), "quad9": ("Q2", 0)}


def plate_file(path: Path, cell: str, layers: bool = False) -> Path:
    """Unstructured quadratic quadrilaterals of the rectangle [0, 2] x [0, 1] (sizes 0.15 at the
    left, 0.35 at the right; Frontal-Delaunay for quads, simple full-quad recombination); boundaries
    ``bottom``, ``top``, ``left``, ``right``; one subdomain ``plate``, or ``lower`` (y < 0.4) and
    ``upper`` with ``layers``."""
    with gmsh_model("plate") as gmsh:
        occ = gmsh.model.occ
        if layers:
            lower, upper = occ.addRectangle(0, 0, 0, 2, 0.4), occ.addRectangle(0, 0.4, 0, 2, 0.6)
            occ.fragment([(2, lower)], [(2, upper)])
        else:
            occ.addRectangle(0, 0, 0, 2, 1)
        occ.synchronize()
        for _, point in gmsh.model.getEntities(0):
            x = gmsh.model.getValue(0, point, [])[0]
            gmsh.model.mesh.setSize([(0, point)], 0.15 if x < 1 else 0.35)
        groups: dict = {}
        for _, curve in gmsh.model.getEntities(1):
            x0, y0, _, x1, y1, _ = gmsh.model.getBoundingBox(1, curve)
            name = ("left" if x1 < 1e-6 else "right" if x0 > 2 - 1e-6 else "bottom" if y1 < 1e-6
                    else "top" if y0 > 1 - 1e-6 else None)
            if name:
                groups.setdefault(name, []).append(curve)
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        for _, surface in gmsh.model.getEntities(2):
            y = gmsh.model.occ.getCenterOfMass(2, surface)[1]
            name = ("lower" if y < 0.4 else "upper") if layers else "plate"
            gmsh.model.addPhysicalGroup(2, [surface], name=name)
        gmsh.option.setNumber("Mesh.Algorithm", 8)
        gmsh.option.setNumber("Mesh.RecombineAll", 1)
        gmsh.option.setNumber("Mesh.RecombinationAlgorithm", 2)
        gmsh.option.setNumber("Mesh.ElementOrder", 2)
        gmsh.option.setNumber("Mesh.SecondOrderIncomplete", CELLS[cell][1])
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    assert set(meshio.read(path).cells_dict) == {cell, "line3"}
    return path


@pytest.fixture(scope="module")
def plates(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quadratic_plates")
    return {cell: plate_file(folder / f"plate_{cell}.msh", cell) for cell in CELLS}


@pytest.mark.parametrize("cell", list(CELLS))
def test_a_quadratic_quadrilateral_file_keeps_its_element_and_every_node(plates, cell, tmp_path):
    """A Gmsh quad8/quad9 file given as a path: the body's element is the quadratic one, its DOF
    nodes are the file's nodes one for one, and the written VTU holds every node and cell of the
    file; a linear element is used only when named."""
    path, (kind, _) = plates[cell], CELLS[cell]
    material = fc.LinearElastic(E=100.0, nu=0.3, plane="strain")
    body = fc.Body("plate", path, material=material)
    assert body.part.element == kind and body.part.kind.quadratic
    assert type(body.mesh).__name__ == {"quad8": "MeshQuad8", "quad9": "MeshQuad9"}[cell]
    body.fix("left", x=0.0).fix("bottom", y=0.0).pressure("top", 1.0)
    solution = fc.Model([body]).solve(steps=1)
    assert solution.converged
    solution.write_vtu(tmp_path / "plate.vtu")

    source = meshio.read(path)
    written = meshio.read(tmp_path / "plate.vtu")
    node = file_dof_nodes(source, body.mesh)                     # DOF node of every file node
    assert written.points.shape[0] == source.points.shape[0] == body.part.n_nodes
    assert np.array_equal(np.sort(node), np.arange(body.part.n_nodes))
    np.testing.assert_allclose(written.points[node, :2], source.points[:, :2], rtol=0, atol=1e-12)
    assert list(written.cells_dict) == [cell]

    def cells(rows):
        return sorted(map(tuple, np.sort(rows, axis=1)))

    assert cells(written.cells_dict[cell]) == cells(node[source.cells_dict[cell]])
    # the element's own node order: the VTK cell measured by VTK gives the element's area
    pv = pytest.importorskip("pyvista")
    area = pv.read(str(tmp_path / "plate.vtu")).compute_cell_sizes(length=False, volume=False)
    assert np.all(area.cell_data["Area"] > 0) and np.isclose(area.cell_data["Area"].sum(), 2.0)

    linear = fc.Body("plate", path, "Q1", material)              # asked for: the vertices only
    assert linear.part.element == "Q1" and linear.part.n_nodes == body.mesh.p.shape[1]
    alias = fc.Body("plate", path, {"Q2S": "Q8", "Q2": "Q9"}[kind], material)
    assert alias.part.element == kind


def test_scikit_fem_quadratic_quadrilaterals_get_q2_and_unsupported_cells_are_refused():
    material = fc.LinearElastic(E=100.0, nu=0.3)
    body = fc.Body("b", skfem.MeshQuad2().refined(2).with_defaults(), material=material)
    assert body.part.element == "Q2" and body.part.n_nodes == 9 * 9
    points = np.random.default_rng(0).uniform(size=(16, 2))
    cubic = meshio.Mesh(points, [("quad16", np.arange(16)[None, :])])
    with pytest.raises(MeshFileError, match=r"^quad16 cells are not supported; bodies take .*quad9"):
        from_meshio_mesh(cubic)
    with pytest.raises(ValueError, match=r"^body 'b': cannot read|quad16 cells are not supported") as err:
        fc.Body("b", cubic, material=material)
    assert "\n" not in str(err.value)
    mixed = meshio.Mesh(points[:17], [("quad8", np.arange(8)[None, :]), ("quad9", np.arange(9)[None, :])])
    with pytest.raises(MeshFileError, match=r"^mixed element types \(quad8, quad9\)"):
        from_meshio_mesh(mixed)
    with pytest.raises(ValueError, match="element P2 needs a MeshTri1 mesh, got MeshQuad9"):
        fc.Body("b", skfem.MeshQuad2(), "P2", material)


@pytest.mark.parametrize("cell", list(CELLS))
def test_linear_field_patch_test_on_unstructured_gmsh_quadrilaterals(plates, cell):
    """A linear displacement imposed on the boundary: the interior nodes (edge and centre nodes
    too) take the same field to round-off, on distorted unstructured elements."""
    body = ElasticBody.create("plate", fc.load_mesh(plates[cell]), CELLS[cell][0],
                              Material(E=200.0, nu=0.3))
    K = body_stiffness(body).tocsr()
    x = body.node_coords
    exact = (np.array([[0.010, -0.004], [0.003, -0.007]]) @ x + np.array([[0.02], [-0.01]])).T.ravel()
    fixed = body.node_dofs[:, body.facet_nodes(body.mesh.boundary_facets())].ravel()
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    u = exact.copy()
    u[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ exact[fixed])
    np.testing.assert_allclose(u[free], exact[free], rtol=0, atol=1e-13)


@pytest.mark.parametrize("cell", list(CELLS))
def test_contact_patch_tests_on_unstructured_gmsh_quadrilaterals(plates, cell):
    """On a rigid frictionless flat: (a) pressed down by its top, every slave node carries the
    plane-strain pressure E/(1 - nu^2) * strain; (b) loaded by a uniform pressure p on its top,
    every slave node carries p and the top sinks by p (1 - nu^2) / E."""
    E, nu, strain, p = 200.0, 0.3, 0.01, 1.5
    flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    material = fc.LinearElastic(E=E, nu=nu, plane="strain")

    pressed = fc.Body("plate", plates[cell], material=material)
    pressed.fix("top", y=-strain).fix(point=(0.0, 1.0), x=0.0)
    result = fc.Model([pressed], [fc.Contact(pressed.surface("bottom"), flat, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, E / (1 - nu**2) * strain, rtol=1e-9)
    assert result.reaction("top")[1] == pytest.approx(-2.0 * E / (1 - nu**2) * strain, rel=1e-9)

    loaded = fc.Body("plate", plates[cell], material=material)
    loaded.fix(point=(0.0, 0.0), x=0.0).pressure("top", p)
    result = fc.Model([loaded], [fc.Contact(loaded.surface("bottom"), flat, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, p, rtol=1e-9)
    top = loaded.nodes("top")
    np.testing.assert_allclose(result.body_displacement("plate")[1, top], -p * (1 - nu**2) / E,
                               rtol=1e-9)


@pytest.mark.parametrize("cell", list(CELLS))
def test_two_materials_in_series_on_unstructured_gmsh_quadrilaterals(tmp_path, cell):
    """A plate of a soft lower layer (0.4 thick) and a stiff upper one (0.6), physical surfaces of
    the Gmsh file, its sides held in x, pressed by a uniform pressure on a rigid flat (uniaxial
    strain in each layer): the top sinks by p (0.4 / M_lower + 0.6 / M_upper), exactly, with the
    constrained modulus M = E (1 - nu) / ((1 + nu) (1 - 2 nu))."""
    path = plate_file(tmp_path / f"layers_{cell}.msh", cell, layers=True)
    nu, p = 0.3, 2.0
    moduli = {"lower": 50.0, "upper": 400.0}
    body = fc.Body("plate", path, material={k: fc.LinearElastic(E=v, nu=nu, plane="strain")
                                            for k, v in moduli.items()})
    assert body.part.element == CELLS[cell][0] and len(body.part.materials) == 2
    body.fix("left", x=0.0).fix("right", x=0.0).pressure("top", p)
    flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    result = fc.Model([body], [fc.Contact(body.surface("bottom"), flat, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    factor = (1 + nu) * (1 - 2 * nu) / (1 - nu)
    sink = p * factor * (0.4 / moduli["lower"] + 0.6 / moduli["upper"])
    np.testing.assert_allclose(result.body_displacement("plate")[1, body.nodes("top")], -sink, rtol=1e-9)
    np.testing.assert_allclose(result.pressure, p, rtol=1e-9)


@pytest.mark.parametrize("cell", list(CELLS))
def test_neo_hookean_block_in_homogeneous_compression(plates, cell):
    """Finite strain: the plate pressed by 10 % onto a rigid frictionless flat (plane strain, free
    sides) deforms homogeneously: stretch lambda_y = 0.9, lambda_x from P_xx = 0, and the top force
    is P_yy times the width with P = mu (F - F^-T) + lam ln J F^-T (the package's neo-Hookean)."""
    E, nu, lam_y = 100.0, 0.3, 0.9
    mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))

    def nominal(lx, ly):
        J = lx * ly
        return mu * (lx - 1 / lx) + lam * np.log(J) / lx, mu * (ly - 1 / ly) + lam * np.log(J) / ly

    lam_x = scipy.optimize.brentq(lambda lx: nominal(lx, lam_y)[0], 1.0, 1.5, xtol=1e-15)
    body = fc.Body("plate", plates[cell], material=fc.NeoHookean(E=E, nu=nu))
    body.fix("top", y=lam_y - 1.0).fix(point=(0.0, 1.0), x=0.0)
    flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    result = fc.Model([body], [fc.Contact(body.surface("bottom"), flat, fc.Frictionless())]).solve(steps=2)
    assert result.converged
    assert result.reaction("top")[1] == pytest.approx(2.0 * nominal(lam_x, lam_y)[1], rel=1e-8)
    u = result.body_displacement("plate")
    x = body.part.node_coords
    np.testing.assert_allclose(u[0], (lam_x - 1.0) * x[0], atol=1e-9)


@pytest.mark.parametrize("element", ["Q2S", "Q2"])
def test_pfc_export_of_a_quadratic_increment_is_solved_by_its_fe_solution(element):
    """The second increment of the frictional Hertz cylinder on coarse generated quadratic
    quadrilaterals, exported as PFC(M, H, q, b, mu): the finite-element solution satisfies it and
    the semismooth Newton PFC solver finds it again."""
    from fecontact.pfc.export import export_case
    from fecontact.pfc.ssn import solve_ssn

    overrides = [f'bodies.0.element="{element}"', 'bodies.0.mesh.element="quad"',
                 "bodies.0.mesh.h_contact=0.05", "bodies.0.mesh.h_far=0.5", "steps.count=2"]
    pf = export_case(CASES / "hertz2d_friction.toml", 2, overrides)
    problem, fe = pf.problem, pf.solution
    res = problem.residuals(fe["v"], fe["r"])
    assert res.equilibrium < 1e-10 and res.natural_map < 1e-9, res
    assert np.sum(fe["r"].reshape(-1, 2)[:, 0] > 0) >= 5
    sol = solve_ssn(problem)
    assert sol.converged
    assert np.linalg.norm(sol.r - fe["r"]) <= 1e-6 * np.linalg.norm(fe["r"])


def hertz_disc(path: Path, cell: str, size_factor: float) -> Path:
    """The hertz2d_gmsh half disc (meshes/half_disc.geo) as quadratic quadrilaterals."""
    with gmsh_model("disc") as gmsh:
        gmsh.open(str(ROOT / "meshes" / "half_disc.geo"))
        for key, value in (("Mesh.Algorithm", 8), ("Mesh.RecombineAll", 1),
                           ("Mesh.MeshSizeFactor", size_factor), ("Mesh.ElementOrder", 2),
                           ("Mesh.SecondOrderIncomplete", CELLS[cell][1])):
            gmsh.option.setNumber(key, value)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("cell", list(CELLS))
def test_hertz2d_on_gmsh_quadratic_quadrilaterals(tmp_path, cell):
    """cases/hertz2d_gmsh.toml (lower half disc R = 1 pressed 0.02 onto a rigid flat) on Gmsh
    quad8 / quad9 meshes of its .geo (element size 0.3 x 0.003 at the contact point), run with the
    file's element (the case names it: Q2S, Q2) on the file's curved elements: peak pressure
    within 0.5 % of Hertz (measured 0.24 % on both; 0.74 % and 0.58 % when the elements were
    straight-sided), contact half-width within 1 %."""
    from fecontact.run.static import run

    mesh = hertz_disc(tmp_path / f"disc_{cell}.msh", cell, 0.3)
    overrides = [f'bodies.0.mesh.file="{mesh}"', f'bodies.0.element="{CELLS[cell][0]}"']
    result = run(CASES / "hertz2d_gmsh.toml", tmp_path / "run", overrides)
    metrics = result.summary["metrics"]
    assert result.summary["converged"]
    assert abs(metrics["peak_pressure"]["rel_error"]) <= 0.005
    assert metrics["contact_half_width"]["rel_error"] <= 0.01


CASE = """
[[bodies]]
name = "plate"
element = "{element}"
mesh = {{ file = "{mesh}" }}
material = {{ E = 200.0, nu = 0.3, plane = "plane_strain" }}
dirichlet = [{{ boundary = "top", component = "y", value = -0.01 }}, {{ boundary = "left", component = "x" }}]

[[contact]]
slave = {{ body = "plate", boundary = "bottom" }}
master = {{ obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}

[steps]
count = 1
"""


@pytest.mark.parametrize("cell,element", [("quad8", "Q8"), ("quad9", "Q2")])
def test_case_files_take_the_quadratic_kinds_and_their_aliases(plates, cell, element, tmp_path):
    """A case file names the element (here the alias Q8 or the name Q2) on a Gmsh file of its cells:
    the body is of the kind, and the pair's force and peak pressure in summary.json are the exact
    plane-strain E' * strain (the case's plate is 2 wide)."""
    from fecontact.case.build import build_model
    from fecontact.run.static import run

    path = tmp_path / "plate.toml"
    path.write_text(CASE.format(element=element, mesh=plates[cell].as_posix()))
    assert build_model(fc.load_case(path)).problem.system.bodies[0].element == CELLS[cell][0]
    result = run(path, tmp_path / "run")
    assert result.summary["converged"]
    pair = result.summary["pairs"][0]
    assert pair["force"][1] == pytest.approx(2.0 * 200.0 / (1 - 0.3**2) * 0.01, rel=1e-9)
    assert pair["max_pressure"] == pytest.approx(200.0 / (1 - 0.3**2) * 0.01, rel=1e-9)


def test_six_node_triangle_and_ten_node_tetrahedron_files_keep_p2():
    """The rule is the same for the bundled quadratic triangles and tetrahedra: P2 unless asked."""
    material = fc.LinearElastic(E=1e4, nu=0.3)
    assert fc.Body("disc", ROOT / "meshes" / "half_disc_p2.msh", material=material).part.element == "P2"
    assert fc.Body("disc", ROOT / "meshes" / "half_disc_p2.msh", "P1", material).part.element == "P1"
    # the file's nodes are the DOF nodes one for one, at the file's positions: on the straight
    # box of ten-node tetrahedra and on the disc, whose arc midside nodes Gmsh put on the arc
    # (isoparametric elements)
    for name in ("block_p2.msh", "half_disc_p2.msh"):
        source = meshio.read(ROOT / "meshes" / name)
        body = fc.Body("b", ROOT / "meshes" / name, material=material)
        node = file_dof_nodes(source, body.mesh)
        assert body.part.element == "P2" and body.part.curved
        assert np.array_equal(np.sort(node), np.arange(body.part.n_nodes))
        dim = body.dim
        distance = np.linalg.norm(body.part.node_coords[:, node] - source.points[:, :dim].T, axis=0)
        assert distance.max() <= 1e-12
