"""Isoparametric quadratic bodies: the elements are mapped through the mesh file's own nodes.

A body of a quadratic kind (P2, Q2, Q2S) on a quadratic mesh with curved
edges (Gmsh files of a quarter disc and of a quarter cylinder, R = 1, whose
arc nodes Gmsh puts on the circle; scikit-fem quadratic meshes given
directly) has its DOF nodes where the file has its nodes, and integrates
on the curved elements: the area and the volume of revolution of the
quarter disc and the volume of the quarter cylinder come out exact to the
quadrature (about 1e-6 on these coarse meshes, where the straight-sided
elements of the same vertices are off by 0.3 %); linear displacement
fields are reproduced to round-off (patch tests on the curved
unstructured meshes, 2D and 3D); a uniform hydrostatic pressure on the arc
(plane strain, axisymmetric and 3D) gives the exact uniform
compression, also with the flat side on a rigid frictionless plane (a
contact patch test on a curved body: the contact pressure is the applied
one at every node).
"""

import sys
from dataclasses import replace
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

from fecontact.bodies.body import ElasticBody  # noqa: E402
from fecontact.bodies.elasticity import Material, body_stiffness, mass  # noqa: E402
from fecontact.io.meshfile import file_dof_nodes  # noqa: E402

#: Gmsh cell -> (element kind of a body on it, SecondOrderIncomplete, recombine)
CELLS_2D = {"triangle6": ("P2", 0, 0), "quad8": ("Q2S", 1, 1), "quad9": ("Q2", 0, 1)}
CELLS_3D = {"tetra10": ("P2", 0, 0), "hexahedron20": ("Q2S", 1, 1), "hexahedron27": ("Q2", 0, 1)}
HEIGHT = 0.5          # of the quarter cylinder


def _options(gmsh, incomplete: int, recombine: int, size: float) -> None:
    for key, value in (("Mesh.Algorithm", 8), ("Mesh.RecombineAll", recombine),
                       ("Mesh.RecombinationAlgorithm", 2), ("Mesh.MeshSizeMax", size),
                       ("Mesh.ElementOrder", 2), ("Mesh.SecondOrderIncomplete", incomplete)):
        gmsh.option.setNumber(key, value)


def _name(box, dim: int) -> str | None:
    """Boundary name of an entity from its bounding box (x0, y0, z0, x1, y1, z1)."""
    lo, hi = np.array(box[:3]), np.array(box[3:])
    for axis, label in enumerate("xyz"[:dim]):
        if hi[axis] < 1e-6:
            return {"x": "left", "y": "bottom", "z": "base"}[label]
    if dim == 3 and lo[2] > HEIGHT - 1e-6:
        return "top"
    return "arc"


def quarter_disc(path: Path, cell: str, size: float = 0.5) -> Path:
    """The quarter disc x, y >= 0, x^2 + y^2 <= 1 of Gmsh cells ``cell``: boundaries ``left``
    (x = 0), ``bottom`` (y = 0) and ``arc``, subdomain ``disc``."""
    _, incomplete, recombine = CELLS_2D[cell]
    with gmsh_model("quarter") as gmsh:
        occ = gmsh.model.occ
        occ.intersect([(2, occ.addDisk(0, 0, 0, 1, 1))], [(2, occ.addRectangle(0, 0, 0, 1, 1))])
        occ.synchronize()
        groups: dict = {}
        for _, curve in gmsh.model.getEntities(1):
            groups.setdefault(_name(gmsh.model.getBoundingBox(1, curve), 2), []).append(curve)
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [s for _, s in gmsh.model.getEntities(2)], name="disc")
        _options(gmsh, incomplete, recombine, size)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    assert cell in meshio.read(path).cells_dict
    return path


def quarter_cylinder(path: Path, cell: str, size: float = 0.4) -> Path:
    """The quarter disc extruded to z = HEIGHT (two layers of hexahedra, or tetrahedra):
    boundaries ``left``, ``bottom``, ``base`` (z = 0), ``top`` and ``arc`` (the cylinder)."""
    _, incomplete, recombine = CELLS_3D[cell]
    with gmsh_model("cylinder") as gmsh:
        occ = gmsh.model.occ
        disc, _ = occ.intersect([(2, occ.addDisk(0, 0, 0, 1, 1))], [(2, occ.addRectangle(0, 0, 0, 1, 1))])
        occ.extrude(disc, 0, 0, HEIGHT, numElements=[2] if recombine else [], recombine=bool(recombine))
        occ.synchronize()
        groups: dict = {}
        for _, surface in gmsh.model.getEntities(2):
            groups.setdefault(_name(gmsh.model.getBoundingBox(2, surface), 3), []).append(surface)
        for name, surfaces in groups.items():
            gmsh.model.addPhysicalGroup(2, surfaces, name=name)
        gmsh.model.addPhysicalGroup(3, [v for _, v in gmsh.model.getEntities(3)], name="block")
        _options(gmsh, incomplete, recombine, size)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    assert cell in meshio.read(path).cells_dict
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("isoparametric")
    out = {cell: quarter_disc(folder / f"disc_{cell}.msh", cell) for cell in CELLS_2D}
    out.update({cell: quarter_cylinder(folder / f"cylinder_{cell}.msh", cell) for cell in CELLS_3D})
    return out


CELLS = {**CELLS_2D, **CELLS_3D}


def straight(mesh):
    """The same mesh (vertices, elements, boundaries) without the file's node positions."""
    return replace(mesh, nodes=None)


@pytest.mark.parametrize("cell", list(CELLS))
def test_the_dof_nodes_are_the_file_nodes_on_the_arc(files, cell):
    """Every node of the file is the DOF node it maps to, at the file's position (the arc's
    midside nodes on the circle); the DOF numbering is that of the straight-sided body; a linear
    element on the same file uses the vertices."""
    material = fc.LinearElastic(E=1.0, nu=0.3)
    body = fc.Body("b", files[cell], material=material)
    assert body.part.element == CELLS[cell][0] and body.part.curved
    source = meshio.read(files[cell])
    node = file_dof_nodes(source, body.mesh)
    assert np.array_equal(np.sort(node), np.arange(body.part.n_nodes))
    dim = body.dim
    np.testing.assert_allclose(body.part.node_coords[:, node], source.points[:, :dim].T, rtol=0, atol=1e-12)
    arc = body.part.node_coords[:2, body.part.boundary_nodes("arc")]
    np.testing.assert_allclose(np.hypot(*arc), 1.0, rtol=0, atol=1e-9)
    flat = ElasticBody.create("s", straight(body.mesh), body.part.element, Material(E=1.0, nu=0.3))
    assert not flat.curved
    assert np.array_equal(flat.basis.element_dofs, body.part.basis.element_dofs)
    for group in ("nodal_dofs", "facet_dofs", "edge_dofs", "interior_dofs"):
        assert np.array_equal(getattr(flat.basis, group), getattr(body.part.basis, group))
    linear = fc.Body("b", files[cell], "P1" if CELLS[cell][0] == "P2" else "Q1", material)
    assert not linear.part.curved and linear.part.n_nodes == body.mesh.p.shape[1]


@pytest.mark.parametrize("cell", list(CELLS))
def test_curved_elements_integrate_the_disc_and_the_cylinder(files, cell):
    """Area pi/4 of the quarter disc, volume pi/8 of the quarter cylinder: the curved body's
    basis within 2e-6 (the quadratic arc's own error); the straight-sided elements off by more
    than 1e-3 (the chords' segments, O(h^2))."""
    part = fc.Body("b", files[cell], material=fc.LinearElastic(E=1.0, nu=0.3)).part
    exact = np.pi / 4 * (HEIGHT if part.dim == 3 else 1.0)
    flat = ElasticBody.create("s", straight(part.mesh), part.element, Material(E=1.0, nu=0.3))
    assert abs(part.basis.dx.sum() / exact - 1.0) < 2e-6
    assert abs(flat.basis.dx.sum() / exact - 1.0) > 1e-3


def test_axisymmetric_weighting_uses_the_curved_radius(files):
    """The quarter disc as a body of revolution (a hemisphere of volume 2 pi / 3): its mass is
    rho times that volume within 2e-6 (the 2 pi r weight with r from the curved mapping)."""
    rho = 7.0
    material = fc.LinearElastic(E=1.0, nu=0.3, plane="axisymmetric", density=rho)
    for cell in CELLS_2D:
        part = fc.Body("b", files[cell], material=material).part
        total = mass(part.basis, part.element_density(), axisymmetric=True).sum() / part.dim
        assert total == pytest.approx(rho * 2.0 * np.pi / 3.0, rel=2e-6)


@pytest.mark.parametrize("cell", list(CELLS))
def test_linear_field_patch_test_on_curved_elements(files, cell):
    """A linear displacement imposed on every boundary node: the interior nodes take it to
    round-off, curved elements included."""
    body = ElasticBody.create("b", fc.load_mesh(files[cell]), CELLS[cell][0], Material(E=200.0, nu=0.3))
    assert body.curved
    K = body_stiffness(body).tocsr()
    x = body.node_coords
    rng = np.random.default_rng(3)
    A, b = rng.uniform(-0.01, 0.01, (body.dim, body.dim)), rng.uniform(-0.01, 0.01, (body.dim, 1))
    exact = (A @ x + b).T.ravel()
    fixed = body.node_dofs[:, body.facet_nodes(body.mesh.boundary_facets())].ravel()
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    u = exact.copy()
    u[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ exact[fixed])
    np.testing.assert_allclose(u[free], exact[free], rtol=0, atol=1e-13)


@pytest.mark.parametrize("cell", list(CELLS_2D))
def test_hydrostatic_pressure_on_the_arc(files, cell):
    """Pressure p on the arc, symmetry supports on the straight sides: a uniform compression
    u = e x with e = -p / (2 (lambda + mu)) in plane strain and e = -p / (3 lambda + 2 mu) for the
    hemisphere of revolution, at every node to round-off (the curved facets' pressure load and
    the curved volume agree)."""
    E, nu, p = 100.0, 0.3, 2.0
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    for plane, e in (("plane_strain", -p / (2 * (lam + mu))), ("axisymmetric", -p / (3 * lam + 2 * mu))):
        body = fc.Body("b", files[cell], material=fc.LinearElastic(E=E, nu=nu, plane=plane))
        if plane == "plane_strain":
            body.fix("left", x=0.0)          # the axis of the body of revolution is held already
        body.fix("bottom", y=0.0).pressure("arc", p)
        result = fc.Model([body]).solve(steps=1)
        assert result.converged
        np.testing.assert_allclose(result.body_displacement("b"), e * body.part.node_coords,
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("cell", list(CELLS_2D))
def test_contact_patch_test_of_a_curved_body_on_a_rigid_flat(files, cell):
    """The quarter disc standing on its flat side on a rigid frictionless plane, pressure p on its
    arc: every contact node carries the pressure p, the total force is p times the contact width,
    and the body is in uniform compression u_x = e x."""
    E, nu, p = 100.0, 0.3, 2.0
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    body = fc.Body("b", files[cell], material=fc.LinearElastic(E=E, nu=nu))
    body.fix("left", x=0.0).pressure("arc", p)
    flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    result = fc.Model([body], [fc.Contact(body.surface("bottom"), flat, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, p, rtol=1e-9)
    np.testing.assert_allclose(result.body_displacement("b")[0], -p / (2 * (lam + mu)) * body.part.node_coords[0],
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("cell", ["tetra10", "hexahedron20",
                                  pytest.param("hexahedron27", marks=pytest.mark.slow)])
def test_hydrostatic_pressure_on_the_cylinder(files, cell):
    """3D: pressure p on the curved side and the top of the quarter cylinder, symmetry supports on
    the three planes: u = -p / (3 lambda + 2 mu) x at every node to round-off."""
    E, nu, p = 100.0, 0.3, 2.0
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    body = fc.Body("b", files[cell], material=fc.LinearElastic(E=E, nu=nu))
    body.fix("left", x=0.0).fix("bottom", y=0.0).fix("base", z=0.0)
    body.pressure("arc", p).pressure("top", p)
    result = fc.Model([body]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.body_displacement("b"), -p / (3 * lam + 2 * mu) * body.part.node_coords,
                               rtol=0, atol=1e-12)


def test_scikit_fem_quadratic_meshes_are_curved_too():
    """A scikit-fem MeshTri2 given directly (its boundary nodes pushed onto the unit circle by
    ``init_circle``): the body's DOF nodes are its nodes, and the area is pi to the arc's error."""
    mesh = skfem.MeshTri2.init_circle(2)
    body = fc.Body("disc", mesh, material=fc.LinearElastic(E=1.0, nu=0.3))
    assert body.part.element == "P2" and body.part.curved
    coords = body.part.node_coords
    arc = body.part.facet_nodes(body.mesh.boundary_facets())
    np.testing.assert_allclose(np.hypot(*coords[:, arc]), 1.0, rtol=0, atol=1e-12)
    assert sorted(map(tuple, np.round(coords.T, 12))) == sorted(map(tuple, np.round(mesh.doflocs.T, 12)))
    assert body.part.basis.dx.sum() == pytest.approx(np.pi, rel=2e-4)


def test_moved_file_mesh_and_inverted_curved_element_are_refused(files):
    """A file mesh moved after reading keeps nodes that no longer fit: one clear line; a curved
    element folded by a midside node pulled across it: refused as inverted."""
    mesh = fc.load_mesh(files["quad9"])
    with pytest.raises(ValueError, match=r"^mesh of body 'b': the quadratic node positions .* read the mesh again$"):
        ElasticBody.create("b", mesh.translated((1.0, 0.0)), "Q2", Material(E=1.0, nu=0.3)).basis
    nodes = mesh.nodes.copy()
    facet = mesh.boundaries["arc"][0]
    a, b = mesh.facets[:, facet]
    mid = mesh.p.shape[1] + facet                                    # the arc facet's midside node
    inward = (mesh.p[:, mesh.t[:, mesh.f2t[0, facet]]].mean(axis=1) - nodes[:, mid])
    nodes[:, mid] += 1.5 * inward                                    # far past the element's centre
    with pytest.raises(ValueError, match=r"^mesh of body 'b': curved element \d+ at .* is inverted"):
        ElasticBody.create("b", replace(mesh, nodes=nodes), "Q2", Material(E=1.0, nu=0.3))


@pytest.mark.parametrize("cell", ["quad8", "quad9"])
def test_hertz2d_on_the_coarsest_gmsh_mesh(tmp_path, cell):
    """cases/hertz2d_gmsh.toml on the coarsest Gmsh mesh of its half disc (size factor 1, 0.003 at
    the contact point) with the file's element on its curved elements: peak pressure within 0.5 %
    of Hertz (measured 0.26 % quad8, 0.29 % quad9; 2.5 % and 1.8 % when the elements were
    straight-sided, the chord's sagitta l^2 / 8R disturbing the pressure). P2 on the case's own
    six-node triangles: tests/test_cases.py."""
    from fecontact.run.static import run
    from test_quadratic_quads import ROOT, hertz_disc

    path = hertz_disc(tmp_path / "disc.msh", cell, 1.0)
    element = CELLS_2D[cell][0]
    result = run(ROOT / "cases" / "hertz2d_gmsh.toml", tmp_path / "run",
                 [f'bodies.0.mesh.file="{path}"', f'bodies.0.element="{element}"'], write_vtu_files=False)
    assert result.summary["converged"]
    assert abs(result.summary["metrics"]["peak_pressure"]["rel_error"]) <= 0.005


@pytest.mark.parametrize("cell", list(CELLS))
def test_contact_areas_of_a_curved_surface(files, cell):
    """The contact surface on the arc (the cylinder's curved side in 3D): the nodes' areas sum to
    the curved length pi/2 (area pi/2 * HEIGHT) within 2e-6, on the vertex-weighted six-node
    triangles and eight-node faces too (their weights integrated on the curved faces); the
    straight-sided facets lose 7e-4 (measured 7.1e-4 to 8.0e-4)."""
    from fecontact.contact.surface import contact_surface

    part = fc.Body("b", files[cell], material=fc.LinearElastic(E=1.0, nu=0.3)).part
    exact = np.pi / 2 * (HEIGHT if part.dim == 3 else 1.0)
    assert contact_surface(part, 0, "arc").area.sum() == pytest.approx(exact, rel=2e-6)
    flat = ElasticBody.create("s", straight(part.mesh), part.element, Material(E=1.0, nu=0.3))
    assert abs(contact_surface(flat, 0, "arc").area.sum() / exact - 1.0) > 5e-4
