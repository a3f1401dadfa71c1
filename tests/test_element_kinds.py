"""Every registered element kind, on every dimension it has, against exact references.

The tests are parametrised over :data:`fecontact.mesh.elements.KINDS`, so a
newly registered kind runs through all of them: rigid-body modes and the
linear patch test of its stiffness, the VTK cell of the result files
measured by VTK itself, outward facets whose pieces tile the boundary, the
nodal areas of its contact surfaces, and the ways a body names its element.
"""

import dataclasses
import typing

import meshio
import numpy as np
import pytest
import scipy.sparse.linalg as spla
import skfem

import fecontact as fc
from fecontact.bodies.body import ElasticBody
from fecontact.bodies.elasticity import Material, body_stiffness
from fecontact.contact.surface import contact_surface
from fecontact.mesh import box, rectangle
from fecontact.mesh.elements import (ALIASES, KINDS, Cell, ElementKind, FacetLayout,
                                     default_kind, element_kind, register)
from fecontact.mesh.file_meshes import MeshHex20, MeshHex27, MeshQuad8, MeshQuad9, MeshTet10, MeshTri6

CELLS = [pytest.param(kind, cell.dim, id=f"{name}-{cell.dim}d")
         for name, kind in KINDS.items() for cell in kind.cells]

# a structured mesh of the unit square or cube for each linear mesh type
GENERATED = {
    skfem.MeshTri1: lambda: rectangle(0.0, 1.0, 0.0, 1.0, 4, 4, element="tri"),
    skfem.MeshQuad1: lambda: rectangle(0.0, 1.0, 0.0, 1.0, 4, 4, element="quad"),
    skfem.MeshTet1: lambda: box(0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 3, 3, 3, element="tet"),
    skfem.MeshHex1: lambda: box(0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 3, 3, 3, element="hex"),
}
MATERIAL = Material(E=200.0, nu=0.3)


def distorted(cell: Cell) -> skfem.Mesh:
    """The unit square or cube with its interior vertices moved at random (boundaries kept flat)."""
    mesh = GENERATED[cell.mesh]()
    p = mesh.p.copy()
    interior = np.all((p > 1e-12) & (p < 1 - 1e-12), axis=0)
    rng = np.random.default_rng(7)
    p[:, interior] += rng.uniform(-0.06, 0.06, size=(p.shape[0], int(interior.sum())))
    return dataclasses.replace(mesh, doflocs=p)


def make_body(kind: ElementKind, dim: int) -> ElasticBody:
    return ElasticBody.create("block", distorted(kind.cell(dim)), kind.name, MATERIAL)


@pytest.mark.parametrize("kind,dim", CELLS)
def test_stiffness_has_rigid_modes_and_passes_the_patch_test(kind, dim):
    """K r = 0 for translations and infinitesimal rotations; with a linear displacement
    imposed on the boundary the interior DOF nodes take the same linear field exactly."""
    body = make_body(kind, dim)
    K = body_stiffness(body).tocsr()
    x = body.node_coords                                             # (dim, n)
    modes = [np.eye(dim)[c][:, None] * np.ones(x.shape[1]) for c in range(dim)]
    for i in range(dim):
        for j in range(i + 1, dim):
            r = np.zeros_like(x)
            r[i], r[j] = -x[j], x[i]
            modes.append(r)
    scale = abs(K).max()
    for r in modes:
        assert np.abs(K @ r.T.ravel()).max() <= 1e-10 * scale

    A = np.array([[0.010, -0.004, 0.002], [0.003, -0.007, 0.005], [0.001, 0.006, -0.002]])[:dim, :dim]
    b = np.array([0.02, -0.01, 0.03])[:dim]
    exact = (A @ x + b[:, None]).T.ravel()
    fixed_nodes = body.facet_nodes(body.mesh.boundary_facets())
    fixed = body.node_dofs[:, fixed_nodes].ravel()
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    assert free.size > 0
    u = exact.copy()
    u[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ exact[fixed])
    np.testing.assert_allclose(u[free], exact[free], rtol=0, atol=1e-11)


@pytest.mark.parametrize("kind,dim", CELLS)
def test_vtk_cell_measures_every_element(kind, dim, tmp_path):
    """The result file's cells, read back and measured by VTK, have the element measures of
    scikit-fem: right cell type, vertices in VTK's order and midside nodes on VTK's edges."""
    pv = pytest.importorskip("pyvista")
    body = make_body(kind, dim)
    cell = kind.cell(dim)
    points = np.zeros((body.n_nodes, 3))
    points[:, :dim] = body.node_coords.T
    path = tmp_path / "cells.vtu"
    meshio.write(str(path), meshio.Mesh(points, [(cell.vtk, cell.connectivity(body.mesh).T)]))
    grid = pv.read(str(path))
    assert grid.n_cells == body.mesh.t.shape[1]
    sizes = grid.compute_cell_sizes(length=False, area=dim == 2, volume=dim == 3)
    measured = sizes.cell_data["Area" if dim == 2 else "Volume"]
    expected = skfem.CellBasis(body.mesh, cell.element()).dx.sum(axis=1)
    np.testing.assert_allclose(measured, expected, rtol=1e-10)


def facet_normals(pieces: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Normal of each linear piece, shape (dim, n): ``(t_y, -t_x)`` in 2D, ``(x1-x0) x (x2-x0)`` in 3D."""
    p = [x[:, pieces[i]] for i in range(pieces.shape[0])]
    if x.shape[0] == 2:
        t = p[1] - p[0]
        return np.array([t[1], -t[0]])
    return np.cross(p[1] - p[0], p[2] - p[0], axis=0)


@pytest.mark.parametrize("kind,dim", CELLS)
def test_facet_layout_faces_outwards_and_tiles_the_boundary(kind, dim):
    """On every face of the square or cube: every linear piece of the contact surface faces
    outwards, the pieces cover the face once, the nodal areas sum to the face's measure, and
    the layout's facet element has one DOF per facet node."""
    layout = kind.cell(dim).facets
    assert isinstance(layout, FacetLayout)
    assert layout.element.doflocs.shape == (layout.size, dim - 1)
    body = make_body(kind, dim)
    x = body.node_coords
    centre = x.mean(axis=1)
    for boundary in body.mesh.boundaries:
        surface = contact_surface(body, 0, boundary)
        normal = facet_normals(surface.facets, x)
        length = np.linalg.norm(normal, axis=0)
        outward = np.einsum("in,in->n", normal, x[:, surface.facets[0]] - centre[:, None])
        assert np.all(outward > 0.0), boundary
        unit = normal / length
        np.testing.assert_allclose(unit, np.broadcast_to(unit[:, :1], unit.shape), atol=1e-12)
        # triangles: half the cross product; squares (the faces' vertices stay put) and segments: all
        measure = 0.5 * length if surface.facets.shape[0] == 3 else length
        np.testing.assert_allclose(measure.sum(), 1.0, rtol=1e-12)
        np.testing.assert_allclose(surface.area.sum(), 1.0, rtol=1e-12)
        np.testing.assert_array_equal(surface.nodes, body.boundary_nodes(boundary))
        n_facets = body.facets(boundary).size
        assert surface.facets.shape[1] == n_facets * len(layout.pieces)


@pytest.mark.parametrize("kind,dim", CELLS)
def test_a_body_names_its_kind_by_name_record_or_scikit_fem_element(kind, dim):
    cell = kind.cell(dim)
    mesh = distorted(cell)
    for given in (kind.name, kind, cell.element(), skfem.ElementVector(cell.element()), cell.element):
        body = fc.Body("b", mesh, given, fc.LinearElastic(E=1.0, nu=0.25))
        assert body.part.element == kind.name and body.part.kind is kind
    assert element_kind(kind.name) is kind
    for mesh_type in cell.defaults:
        assert default_kind(mesh_type.init_tensor(*([np.linspace(0, 1, 2)] * dim))) is kind


def test_case_files_accept_every_registered_kind():
    from fecontact.case.types import BodyTable

    element = typing.get_type_hints(BodyTable, include_extras=True)["element"]
    names = typing.get_args(typing.get_args(element)[0])
    assert set(names) == set(KINDS) | set(ALIASES)


def test_defaults_cover_the_linear_and_quadratic_meshes():
    assert default_kind(skfem.MeshTri1()).name == "P1"
    assert default_kind(skfem.MeshTri2()).name == "P2"
    assert default_kind(skfem.MeshTet2()).name == "P2"
    assert default_kind(skfem.MeshQuad1()).name == "Q1"
    assert default_kind(skfem.MeshHex1()).name == "Q1"
    # a quadratic mesh keeps a quadratic element: scikit-fem's and those read from files
    assert default_kind(skfem.MeshQuad2()).name == "Q2"
    assert default_kind(skfem.MeshHex2()).name == "Q2"
    for mesh_type, name in ((MeshTri6, "P2"), (MeshTet10, "P2"), (MeshQuad8, "Q2S"),
                            (MeshQuad9, "Q2"), (MeshHex20, "Q2S"), (MeshHex27, "Q2")):
        linear = mesh_type.__mro__[1]()
        assert default_kind(mesh_type(linear.p, linear.t)).name == name


def test_the_registry_refuses_clashes_and_unknown_elements():
    p1 = KINDS["P1"]
    with pytest.raises(ValueError, match="already registered"):
        register(p1)
    twin = dataclasses.replace(p1, name="P1-copy")
    with pytest.raises(ValueError, match="already the default mesh"):
        register(twin)
    assert "P1-copy" not in KINDS
    with pytest.raises(ValueError, match="not registered"):
        element_kind(dataclasses.replace(p1, name="P1", description="another record"))
    with pytest.raises(ValueError, match="unknown element 'P7'"):
        element_kind("P7")
    with pytest.raises(ValueError, match="ElementTriP1B is not supported"):
        element_kind(skfem.ElementTriP1B())
    with pytest.raises(ValueError, match="has no 4D form"):
        p1.cell(4)
    with pytest.raises(ValueError, match="unknown element 'P7'"):
        fc.Body("b", skfem.MeshTri1(), "P7", fc.LinearElastic(E=1.0, nu=0.25))


def test_hexahedra_of_either_orientation_are_written_right_side_out(tmp_path):
    """scikit-fem's own hexahedra (negative Jacobian, MeshHex1.init_tensor) and the package's
    (positive, fecontact.mesh.box and Gmsh files) both give VTK cells of positive volume."""
    pv = pytest.importorskip("pyvista")
    cell = KINDS["Q1"].cell(3)
    axes = [np.array([0.0, 0.75, 1.5])] * 3
    for mesh in (skfem.MeshHex1.init_tensor(*axes), box(0.0, 1.5, 0.0, 1.5, 0.0, 1.5, 2, 2, 2, "hex")):
        path = tmp_path / "hex.vtu"
        meshio.write(str(path), meshio.Mesh(mesh.p.T, [(cell.vtk, cell.connectivity(mesh).T)]))
        volume = pv.read(str(path)).compute_cell_sizes(length=False, area=False).cell_data["Volume"]
        sides = np.diff(axes[0])
        cubes = (sides[:, None, None] * sides[None, :, None] * sides[None, None, :]).ravel()
        np.testing.assert_allclose(np.sort(volume), np.sort(cubes), rtol=1e-12)


@pytest.mark.parametrize("kind,dim", CELLS)
def test_every_dof_node_lies_in_the_piece_of_its_elements(kind, dim):
    """A body of two disjoint blocks: each DOF node (vertex or not) gets its block's piece."""
    from fecontact.bodies.pieces import node_pieces

    mesh = GENERATED[kind.cell(dim).mesh]()
    p = mesh.p.copy()
    p[0] += 2.0
    body = ElasticBody.create("two", mesh + dataclasses.replace(mesh, doflocs=p), kind, MATERIAL)
    labels = node_pieces(body)
    right = body.node_coords[0] > 1.5
    assert labels.shape == (body.n_nodes,) and np.unique(labels).size == 2
    assert np.unique(labels[right]).size == 1 and np.unique(labels[~right]).size == 1
    assert labels[right][0] != labels[~right][0]


@pytest.mark.parametrize("kind,dim", CELLS)
def test_uniform_compression_on_a_rigid_flat_gives_the_exact_pressure(kind, dim):
    """A block pressed by its top onto a rigid frictionless flat is in uniform uniaxial stress
    (plane strain in 2D): every slave node carries ``E' * strain``, exact for every kind."""
    E, nu, strain = 200.0, 0.3, 0.01
    plane = {"plane": "strain"} if dim == 2 else {}
    block = fc.Body("block", distorted(kind.cell(dim)), kind.name, fc.LinearElastic(E=E, nu=nu, **plane))
    if dim == 2:
        block.fix("top", y=-strain)
        block.fix(point=(0.5, 1.0), x=0.0)
        flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        modulus = E / (1 - nu**2)
    else:
        block.fix("top", z=-strain)
        block.fix(point=(0.0, 0.0, 1.0), x=0.0, y=0.0)
        block.fix(point=(1.0, 0.0, 1.0), y=0.0)
        flat = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
        modulus = E
    result = fc.Model([block], [fc.Contact(block.surface("bottom"), flat, fc.Frictionless())]).solve(steps=1)
    assert result.converged
    np.testing.assert_allclose(result.pressure, modulus * strain, rtol=1e-9)
    assert result.reaction("top")[dim - 1] == pytest.approx(-modulus * strain, rel=1e-9)
