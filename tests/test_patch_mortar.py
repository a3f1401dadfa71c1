"""Mortar contact patch tests on non-matching unstructured Gmsh meshes.

Flat interfaces (Taylor & Papadopoulos): two stacked blocks, meshed independently by Gmsh so that
their interface nodes do not match, rollers under the lower one, a uniform pressure ``p`` on the
upper one's top.  The exact solution is the uniform stress ``-p`` along the loading direction and
is representable by linear elements, so mortar must reproduce it to round-off: every stress
component at every quadrature point of both bodies and every nodal pressure and multiplier,
relative error 1e-10.  Meshes: 2D triangles, 2D quadrilaterals (recombined), 3D tetrahedra, and 3D
hexahedra (extruded from a recombined, unstructured quadrilateral mesh of the square) once
quadrilateral-facet mortar is there.

Curved interface: a quarter hub (bore 1, outer radius 2, slave) on a quarter shaft (radius 1,
master), the same material, plane strain, symmetry supports, pressure ``p`` on the hub's outer
arc.  The continuous solution is the hydrostatic state ``sigma = -p I``: a linear displacement
field, interface pressure ``p``.  With the same number of chords on the two arcs the faceted
interfaces coincide and this state is the discrete solution too: the stress is exact to round-off,
and the multipliers are the traction along the nodal normals (the bisectors of the chords) that
gives the state's nodal forces, ``p cos(theta / 2)`` (``theta`` the angle between chords).  With
different chord counts the two polygons do not coincide (their chords sag differently, by
``h^2 / 8R``): no linear field closes the gaps, and the nodal pressures deviate from ``p`` by a
discretisation error (bounded here, the figure is the mortar row of the shrink fit on
docs/contact_accuracy.md).  What stays exact there is the transfer itself: the weighted gaps are
invariant under rigid motions of the whole configuration, so the nodal contact forces on the
master and on the slave are equal and opposite with equal and opposite moments, to round-off.
"""

import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.bodies.elasticity import body_stress
from fecontact.solve.operators import kinematic_operator

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from contact_accuracy_meshes import gmsh_model, hub_mesh, shaft_mesh  # noqa: E402
from test_clamped_slave_gmsh import rectangle  # noqa: E402

P = 10.0
MATERIAL = {"E": 1e3, "nu": 0.3}
EXACT = 1e-10
QUAD_MORTAR = importlib.util.find_spec("fecontact.contact.mortar3d_quad") is not None


def box(path: Path, z0: float, h_low: float, h_high: float, hexahedra: bool) -> skfem.Mesh:
    """Unit square times ``[z0, z0 + 1]``; tetrahedra sized ``h_low`` at the corner (0, 0, z0) up to
    ``h_high`` at the far corners, or hexahedra extruded (4 layers) from a recombined unstructured
    quadrilateral mesh of the square (sizes likewise); boundaries ``bottom``, ``top``, ``sides``."""
    with gmsh_model("box") as gmsh:
        occ = gmsh.model.occ
        if hexahedra:
            square = occ.addRectangle(0.0, 0.0, z0, 1.0, 1.0)
            occ.extrude([(2, square)], 0.0, 0.0, 1.0, numElements=[4], recombine=True)
            gmsh.option.setNumber("Mesh.Algorithm", 8)
            gmsh.option.setNumber("Mesh.RecombineAll", 1)
            gmsh.option.setNumber("Mesh.RecombinationAlgorithm", 3)
        else:
            occ.addBox(0.0, 0.0, z0, 1.0, 1.0, 1.0)
        occ.synchronize()
        for _, point in gmsh.model.getEntities(0):
            x, y, _ = gmsh.model.getValue(0, point, [])
            gmsh.model.mesh.setSize([(0, point)], h_low if x + y < 1e-9 else h_high)
        groups: dict = {}
        for _, face in gmsh.model.getEntities(2):
            b = gmsh.model.getBoundingBox(2, face)
            name = next((name for name, z in (("bottom", z0), ("top", z0 + 1.0))
                         if abs(b[2] - z) < 1e-5 and abs(b[5] - z) < 1e-5), "sides")
            groups.setdefault(name, []).append(face)
        for name, faces in groups.items():
            gmsh.model.addPhysicalGroup(2, faces, name=name)
        gmsh.model.addPhysicalGroup(3, [tag for _, tag in gmsh.model.getEntities(3)], name="body")
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    return fc.load_mesh(path)


# --- meshes -------------------------------------------------------------------------------

#: flat pairs: name -> (element, lower mesh, upper mesh) from the sizes at the two ends
FLAT = {"tri": "P1", "quad": "Q1", "tet": "P1", "hex": "Q1"}


@pytest.fixture(scope="module")
def flat_meshes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("patch_mortar")
    out = {}
    for kind in ("tri", "quad"):
        quads = kind == "quad"
        out[kind] = (rectangle(folder / f"lower_{kind}.msh", (0, 0), 1, 1, 0.09, 0.2, quads),
                     rectangle(folder / f"upper_{kind}.msh", (0, 1), 1, 1, 0.16, 0.11, quads))
    out["tet"] = (box(folder / "lower_tet.msh", 0.0, 0.2, 0.4, False),
                  box(folder / "upper_tet.msh", 1.0, 0.35, 0.25, False))
    out["hex"] = (box(folder / "lower_hex.msh", 0.0, 0.2, 0.35, True),
                  box(folder / "upper_hex.msh", 1.0, 0.3, 0.25, True))
    return out


def _interface_nodes(mesh, level: float) -> np.ndarray:
    return mesh.p[:-1, np.isclose(mesh.p[-1], level)]


def test_flat_meshes_are_unstructured_and_do_not_match(flat_meshes):
    kinds = {"tri": "MeshTri1", "quad": "MeshQuad1", "tet": "MeshTet1", "hex": "MeshHex1"}
    for kind, (lower, upper) in flat_meshes.items():
        assert type(lower).__name__ == type(upper).__name__ == kinds[kind]
        a, b = _interface_nodes(lower, 1.0), _interface_nodes(upper, 1.0)
        # interior interface nodes of the upper block are not nodes of the lower one
        inner = b[:, np.all((b > 1e-9) & (b < 1 - 1e-9), axis=0)]
        assert inner.shape[1] >= 2
        distance = np.linalg.norm(inner[:, :, None] - a[:, None, :], axis=0).min(axis=1)
        assert distance.min() > 1e-5, kind


# --- flat patch tests ---------------------------------------------------------------------

def _flat_model(lower_mesh, upper_mesh, element: str) -> fc.Model:
    """Lower block on rollers, the upper one pressed by ``P``; in-plane rigid motions removed at
    corners where the exact solution is zero; mortar, frictionless."""
    dim = lower_mesh.p.shape[0]
    lower = fc.Body("lower", lower_mesh, element, fc.LinearElastic(**MATERIAL, plane="strain"))
    upper = fc.Body("upper", upper_mesh, element, fc.LinearElastic(**MATERIAL, plane="strain"))
    if dim == 2:
        lower.fix("bottom", y=0.0, name="rollers").fix(point=(0.0, 0.0), x=0.0, name="lower-corner")
        upper.fix(point=(0.0, 2.0), x=0.0, name="upper-corner")
    else:
        lower.fix("bottom", z=0.0, name="rollers")
        for body, z in ((lower, 0.0), (upper, 2.0)):
            body.fix(point=(0.0, 0.0, z), x=0.0, y=0.0, name=f"{body.name}-corner")
            body.fix(point=(1.0, 0.0, z), y=0.0, name=f"{body.name}-corner2")
    upper.pressure("top", P)
    pair = fc.Contact(upper.surface("bottom"), lower.surface("top"), fc.Frictionless(), name="interface",
                      formulation="mortar")
    return fc.Model([lower, upper], [pair])


def _stress_error(result, exact: np.ndarray) -> float:
    """Largest deviation of the stress from ``exact`` over every quadrature point, relative to |exact|."""
    system = result.problem.system
    worst = 0.0
    for b, body in enumerate(system.bodies):
        sigma = body_stress(body, result.state.u[system.body_dofs(b)])
        diff = np.linalg.norm((sigma - exact[:, :, None, None]).reshape(exact.size, -1), axis=0)
        worst = max(worst, float(diff.max()))
    return worst / float(np.linalg.norm(exact))


def flat_patch(lower_mesh, upper_mesh, element: str) -> dict:
    """Solve one flat mortar patch test; its errors relative to ``P``."""
    result = _flat_model(lower_mesh, upper_mesh, element).solve(newton={"tolerance": 1e-10})
    assert result.converged, result.failure
    dim = lower_mesh.p.shape[0]
    exact = np.zeros((dim, dim))
    exact[-1, -1] = -P
    fields = result.contact("interface")
    return {"stress": _stress_error(result, exact),
            "pressure": float(np.abs(fields.pressure - P).max() / P),
            "multiplier": float(np.abs(result.state.multiplier[:, 0] - P).max() / P),
            "closed": int(np.count_nonzero(fields.status)), "nodes": int(fields.status.size)}


@pytest.mark.parametrize("kind", ["tri", "quad", "tet"])
def test_mortar_flat_patch_test_is_exact_on_non_matching_gmsh_meshes(flat_meshes, kind):
    got = flat_patch(*flat_meshes[kind], FLAT[kind])
    assert got["closed"] == got["nodes"]
    for key in ("stress", "pressure", "multiplier"):
        assert got[key] <= EXACT, (kind, key, got[key])


NO_QUAD_MORTAR = pytest.mark.skipif(not QUAD_MORTAR, reason="quadrilateral-facet 3D mortar "
                                    "(fecontact.contact.mortar3d_quad) not there")
#: hexahedra on unstructured quadrilateral facets, measured with gmsh 4.15.2; each bound is twice the figure
HEX_MEASURED = {"stress": 5.7e-8, "pressure": 2.3e-8}


@NO_QUAD_MORTAR
@pytest.mark.slow
def test_mortar_flat_patch_test_on_hexahedra_regression_bound(flat_meshes):
    got = flat_patch(*flat_meshes["hex"], FLAT["hex"])
    assert got["closed"] == got["nodes"]
    for key, measured in HEX_MEASURED.items():
        assert got[key] <= 2 * measured, (key, got[key])


@NO_QUAD_MORTAR
@pytest.mark.xfail(strict=True, reason="quadrilateral facets that are not parallelograms: the master's shape "
                   "functions through the inverse bilinear map are not polynomial on the overlap triangles, "
                   "and the degree-4 rule integrates the transfer to about 1e-8")
@pytest.mark.slow
def test_mortar_flat_patch_test_is_exact_on_hexahedra(flat_meshes):
    got = flat_patch(*flat_meshes["hex"], FLAT["hex"])
    for key in ("stress", "pressure", "multiplier"):
        assert got[key] <= EXACT, (key, got[key])


# --- curved interface ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def arcs(tmp_path_factory):
    """Shaft and hub meshes by chord count on the quarter arc."""
    folder = tmp_path_factory.mktemp("patch_arcs")
    return {("shaft", n): _snapped(fc.load_mesh(shaft_mesh(folder / f"shaft{n}.msh", n, 1.0, 0.25)), "surface", n)
            for n in (13, 20)} | \
        {("hub", n): _snapped(fc.load_mesh(hub_mesh(folder / f"hub{n}.msh", n, 1.0, 2.0, 0.3)), "bore", n)
         for n in (13, 20)}


def _snapped(mesh, boundary: str, chords: int):
    """The mesh with its arc's nodes moved to the angles ``k pi / (2 chords)`` on the unit circle, by
    one formula for both bodies (Gmsh places the nodes of the two arcs, meshed in opposite
    directions, a few 1e-9 apart)."""
    nodes = np.unique(mesh.facets[:, mesh.boundaries[boundary]])
    angle = np.round(np.arctan2(mesh.p[1, nodes], mesh.p[0, nodes]) / (np.pi / 2 / chords)) * (np.pi / 2 / chords)
    p = mesh.p.copy()
    p[:, nodes] = np.cos(angle), np.sin(angle)
    return dataclasses.replace(mesh, doflocs=p)


def _ring_model(shaft_mesh_, hub_mesh_) -> fc.Model:
    shaft = fc.Body("shaft", shaft_mesh_, "P1", fc.LinearElastic(**MATERIAL, plane="strain"))
    hub = fc.Body("hub", hub_mesh_, "P1", fc.LinearElastic(**MATERIAL, plane="strain"))
    for body in (shaft, hub):
        body.fix("xsym", x=0.0, name=f"{body.name}-xsym").fix("ysym", y=0.0, name=f"{body.name}-ysym")
    hub.pressure("outer", P)
    pair = fc.Contact(hub.surface("bore"), shaft.surface("surface"), fc.Frictionless(), name="interface",
                      formulation="mortar")
    return fc.Model([shaft, hub], [pair])


def contact_forces(result) -> np.ndarray:
    """The pair's nodal contact forces on every node of both bodies, shape (n_nodes, dim): ``B^T A lam``
    (the slave nodes' part is :meth:`Solution.contact`'s ``force``)."""
    problem, state = result.problem, result.state
    kin = problem.kinematics(state.u, state.t, state)
    B = kinematic_operator(kin, problem.system.n_dofs).tocsr()
    return (B.T @ (np.repeat(problem.area, problem.dim) * state.multiplier.ravel())).reshape(-1, problem.dim)


def curved_patch(shaft_mesh_, hub_mesh_, chords: int) -> dict:
    """Solve the hub on the shaft (``chords`` on the hub's bore); the errors of the hydrostatic state and
    the balance of the transfer."""
    result = _ring_model(shaft_mesh_, hub_mesh_).solve(newton={"tolerance": 1e-12})
    assert result.converged, result.failure
    system = result.problem.system
    force = contact_forces(result)
    x = np.hstack([body.node_coords for body in system.bodies]) + result.displacement
    slave = np.zeros(x.shape[1], dtype=bool)
    pair = result.problem.pairs[0]
    slave[system.global_nodes(pair.slave.body, pair.slave.nodes)] = True
    moment = x[0] * force[:, 1] - x[1] * force[:, 0]
    scale = np.abs(force[slave]).sum()
    fields = result.contact("interface")
    return {"stress": _stress_error(result, -P * np.eye(2)),
            # the traction along the nodal normal (the bisector of the two chords at a node) that makes the
            # nodal force of the hydrostatic state: p cos(theta / 2), theta the angle between chords
            "multiplier": float(np.abs(result.state.multiplier[:, 0] - P * np.cos(np.pi / 4 / chords)).max() / P),
            "pressure": float(np.abs(fields.pressure - P).max() / P),
            "mean_pressure": float(np.sum(fields.pressure * fields.area) / np.sum(fields.area) / P - 1.0),
            "force_balance": float(np.abs(force[slave].sum(axis=0) + force[~slave].sum(axis=0)).max() / scale),
            "moment_balance": float(abs(moment[slave].sum() + moment[~slave].sum()) / scale),
            "master_share": float(np.abs(force[~slave]).sum() / scale),
            "closed": int(np.count_nonzero(fields.status)), "nodes": int(fields.status.size)}


def test_curved_interface_with_matching_chords_is_exact(arcs):
    """Same chord count on both arcs (unstructured interiors): the faceted interfaces coincide and the
    hydrostatic state is the discrete solution."""
    got = curved_patch(arcs["shaft", 20], arcs["hub", 20], 20)
    assert got["closed"] == got["nodes"]
    for key in ("stress", "force_balance", "moment_balance"):
        assert got[key] <= EXACT, (key, got[key])
    # the multipliers: p cos(theta / 2) at every node, up to a uniform relative offset of 1.6e-7
    assert got["multiplier"] <= 1e-6


#: the curved non-matching pair (20 chords on the shaft, 13 on the hub) measured with gmsh 4.15.2;
#: each bound is twice the figure
CURVED_MEASURED = {"stress": 1.11e-3, "multiplier": 3.4e-4, "mean_pressure": 1.49e-3}


def test_curved_interface_with_non_matching_chords_conserves_force_and_moment(arcs):
    """20 chords on the shaft, 13 on the hub: the contact forces on the two bodies are equal and
    opposite with equal and opposite moments; the nodal pressures deviate from ``p`` by the chord sag."""
    got = curved_patch(arcs["shaft", 20], arcs["hub", 13], 13)
    assert got["closed"] == got["nodes"]
    assert got["master_share"] > 0.99
    for key in ("force_balance", "moment_balance"):
        assert got[key] <= EXACT, (key, got[key])
    for key, measured in CURVED_MEASURED.items():
        assert abs(got[key]) <= 2 * measured, (key, got[key])
