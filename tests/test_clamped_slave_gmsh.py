"""Clamped slave nodes on unstructured Gmsh meshes (triangles, and quadrilaterals by recombination).

The checks of ``tests/test_clamped_slave.py`` on meshes nobody tuned: the plate pressed and
pushed on a rigid base with Coulomb friction (mu = 1), one corner of the contact edge clamped,
graded unstructured meshes so that the contact edge's nodes are unevenly spaced; and a block on
a deformable foundation (two unstructured meshes, non-matching), node-to-segment and mortar; an
arched block on the foundation (curved mortar) and a tetrahedral block on a tetrahedral foundation
(3D mortar). Every model is solved in four increments without a cut-back and compared with the
same model whose slave surface stops at the node next to the clamped corner.

Node-to-segment leaves the clamped node's row out and nothing else: the agreement is round-off.
Mortar also leaves the facets that touch the clamped node out of its slave surface, with the lumped
areas of the facets left (see the decision record ``docs/developer/decisions/clamped-slave-nodes.md``):
its neighbours' dual functions then span only those facets, and at the same displacement the two
models build the same rows to round-off, on straight segments, on the smoothed curves of a curved
slave (an arched block) and on triangles (a tetrahedral block on a non-matching tetrahedral block).
"""

import logging
import sys
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from contact_accuracy_meshes import gmsh_model  # noqa: E402

from fecontact.contact.smoothing import smoothed_pair  # noqa: E402
from test_clamped_slave import same_constraints  # noqa: E402

NEWTON = {"tolerance": 1e-10}
#: press to t = 0.5, then push sideways with the press held
PRESS = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 1.0, 1.0))
PUSH = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 0.0, 1.0))
ELEMENT = {"tri": "P1", "quad": "Q1"}


def rectangle(path: Path, corner: tuple, width: float, height: float, h_left: float, h_right: float,
              quads: bool) -> skfem.Mesh:
    """Unstructured mesh of a rectangle, size ``h_left`` at its left corners and ``h_right`` at its
    right ones; boundaries ``bottom``, ``top``, ``sides``; triangles, or quadrilaterals by
    recombination (Blossom, full-quad)."""
    x0, y0 = corner
    with gmsh_model("rectangle") as gmsh:
        surface = gmsh.model.occ.addRectangle(x0, y0, 0.0, width, height)
        gmsh.model.occ.synchronize()
        for _, point in gmsh.model.getEntities(0):
            x = gmsh.model.getValue(0, point, [])[0]
            gmsh.model.mesh.setSize([(0, point)], h_left if x < x0 + 1e-9 else h_right)
        groups: dict = {}
        for _, curve in gmsh.model.getEntities(1):
            box = gmsh.model.getBoundingBox(1, curve)
            name = next((name for name, y in (("bottom", y0), ("top", y0 + height))
                         if abs(box[1] - y) < 1e-5 and abs(box[4] - y) < 1e-5), "sides")
            groups.setdefault(name, []).append(curve)
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="body")
        if quads:
            gmsh.option.setNumber("Mesh.Algorithm", 8)
            gmsh.option.setNumber("Mesh.RecombineAll", 1)
            gmsh.option.setNumber("Mesh.RecombinationAlgorithm", 3)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return fc.load_mesh(path)


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    """Per element kind: the plate 4 x 1, the block 1 x 0.5 and the foundation 3 x 1 below it."""
    folder = tmp_path_factory.mktemp("clamped_gmsh")
    out = {}
    for kind in ELEMENT:
        quads = kind == "quad"
        out[kind] = {"plate": rectangle(folder / f"plate_{kind}.msh", (0, 0), 4, 1, 0.15, 0.3, quads),
                     "block": rectangle(folder / f"block_{kind}.msh", (0, 0), 1, 0.5, 0.07, 0.12, quads),
                     "foundation": rectangle(folder / f"foundation_{kind}.msh", (-1, -1), 3, 1, 0.06, 0.3,
                                             quads)}
    return out


def _edge(mesh) -> np.ndarray:
    """x of the nodes on y = 0, ascending."""
    return np.sort(mesh.p[0, np.isclose(mesh.p[1], 0.0)])


def _slave(body: fc.Body, mesh, exclude: bool):
    """The bottom edge, or (``exclude``) the bottom edge without its first segment: it stops at the
    node next to the clamped corner."""
    if not exclude:
        return body.surface("bottom")
    first = _edge(mesh)[1]
    return body.surface(lambda x: np.isclose(x[1], 0.0) & (x[0] > 0.75 * first), name="contact")


def _plate(mesh, element: str, exclude: bool, push: float) -> fc.Model:
    """The plate pressed (top y = -0.01) and pushed (top x = ``push``) on a rigid line, corner (0, 0)
    clamped: ``push = 0.02`` sticks, ``0.05`` slides."""
    plate = fc.Body("plate", mesh, element, fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    plate.fix("top", y=-0.01, amplitude=PRESS, name="top-y")
    plate.fix("top", x=push, amplitude=PUSH, name="top-x")
    plate.fix(point=(0.0, 0.0), x=0.0, y=0.0, name="corner")
    base = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    return fc.Model([plate], [fc.Contact(_slave(plate, mesh, exclude), base, fc.Coulomb(1.0), name="base")])


def _two_bodies(block_mesh, foundation_mesh, element: str, exclude: bool, push: float,
                formulation: str) -> fc.Model:
    """The block (slave) pressed and pushed on the foundation (master), the block's corner (0, 0)
    on the interface clamped, the foundation's bottom clamped."""
    foundation = fc.Body("foundation", foundation_mesh, element, fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    block = fc.Body("block", block_mesh, element, fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    foundation.fix("bottom", name="ground")
    block.fix("top", y=-0.01, amplitude=PRESS, name="top-y")
    block.fix("top", x=push, amplitude=PUSH, name="top-x")
    block.fix(point=(0.0, 0.0), x=0.0, y=0.0, name="corner")
    pair = fc.Contact(_slave(block, block_mesh, exclude), foundation.surface("top"), fc.Coulomb(1.0),
                      name="interface", formulation=formulation)
    return fc.Model([foundation, block], [pair])


def _solve(model: fc.Model):
    result = model.solve(steps=4, newton=NEWTON)
    assert result.converged, result.failure
    assert [r.cutbacks for r in result.records] == [0, 0, 0, 0]
    return result


def _agreement(clamped, reference, name: str, neighbour: float) -> dict:
    """Relative differences between the clamped model and the one whose slave surface leaves the
    clamped node out: displacements along the contact edge (against a millionth of the body's
    largest displacement where the edge sticks), the normal force of the node next to the
    clamped corner and every nodal contact force (against the largest), the corner's reaction."""
    full, part = clamped.contact(name), reference.contact(name)
    index = np.array([int(np.argmin(np.linalg.norm(full.points - p[:, None], axis=0))) for p in part.points.T])
    assert np.allclose(full.points[:, index], part.points)
    at = np.flatnonzero(np.all(np.isclose(full.points, 0.0), axis=0))
    assert at.size == 1 and full.pressure[at] == 0.0 and full.status[at] == 0
    body = clamped.problem.system.bodies[clamped.problem.pairs[0].slave.body].name
    nodes = clamped.problem.pairs[0].slave.nodes
    u_full = clamped.body_displacement(body)[:, nodes]
    u_part = reference.body_displacement(body)[:, nodes]
    moved = np.abs(reference.body_displacement(body)).max()
    k = int(np.argmin(np.linalg.norm(part.points - np.array([neighbour, 0.0])[:, None], axis=0)))
    scale = np.abs(part.force).max()
    corner_full, corner_part = np.asarray(clamped.reaction("corner")), np.asarray(reference.reaction("corner"))
    return {"displacement": float(np.abs(u_full - u_part).max() / max(np.abs(u_part).max(), 1e-6 * moved)),
            "neighbour_normal_force": float(abs(full.force[1, index[k]] - part.force[1, k]) / scale),
            "force": float(np.abs(full.force[:, index] - part.force).max() / scale),
            "corner_reaction": float(np.abs(corner_full - corner_part).max() / np.abs(corner_part).max()),
            "neighbour_closed": bool(part.status[k] > 0)}


def _warned_once(caplog, name: str) -> None:
    lines = [r.getMessage() for r in caplog.records if "every displacement component" in r.getMessage()]
    assert len(lines) == 1
    assert f"contact {name!r}" in lines[0] and "at (0, 0)" in lines[0] and "'corner'" in lines[0]


def test_meshes_are_unstructured_triangles_and_quadrilaterals(meshes):
    for kind, expected in (("tri", "MeshTri1"), ("quad", "MeshQuad1")):
        for mesh in meshes[kind].values():
            assert type(mesh).__name__ == expected
        # the contact edge is graded: its segments are unevenly long
        lengths = np.diff(_edge(meshes[kind]["plate"]))
        assert lengths.max() > 1.5 * lengths.min()
        # the block's and the foundation's nodes do not match along the interface
        block, foundation = _edge(meshes[kind]["block"]), _edge(meshes[kind]["foundation"])
        inner = block[1:-1]
        assert np.min(np.abs(inner[:, None] - foundation[None, :]), axis=1).min() > 1e-3


@pytest.mark.parametrize("kind", list(ELEMENT))
@pytest.mark.parametrize("push", [0.02, 0.05], ids=["stuck", "sliding"])
def test_clamped_corner_plate_agrees_with_the_surface_without_it(meshes, kind, push, caplog):
    mesh = meshes[kind]["plate"]
    with caplog.at_level(logging.WARNING, logger="fecontact"):
        clamped = _solve(_plate(mesh, ELEMENT[kind], False, push))
    _warned_once(caplog, "base")
    reference = _solve(_plate(mesh, ELEMENT[kind], True, push))
    got = _agreement(clamped, reference, "base", _edge(mesh)[1])
    # pushed until it slides, the plate lifts next to the clamped corner: the neighbour opens
    assert got["neighbour_closed"] == (push == 0.02)
    for key in ("displacement", "neighbour_normal_force", "force", "corner_reaction"):
        assert got[key] <= 1e-6, (key, got[key])
    # sticking: no node of the edge slides; sliding: most of them do
    slides = np.mean(clamped.contact("base").status == 2)
    assert slides == 0.0 if push == 0.02 else slides > 0.5


@pytest.mark.parametrize("kind", list(ELEMENT))
@pytest.mark.parametrize("push", [0.005, 0.02])
def test_block_on_a_foundation_node_to_segment_agrees_with_the_surface_without_it(meshes, kind, push, caplog):
    m = meshes[kind]
    with caplog.at_level(logging.WARNING, logger="fecontact"):
        clamped = _solve(_two_bodies(m["block"], m["foundation"], ELEMENT[kind], False, push, "node_to_segment"))
    _warned_once(caplog, "interface")
    reference = _solve(_two_bodies(m["block"], m["foundation"], ELEMENT[kind], True, push, "node_to_segment"))
    got = _agreement(clamped, reference, "interface", _edge(m["block"])[1])
    assert got["neighbour_closed"]
    for key in ("displacement", "neighbour_normal_force", "force", "corner_reaction"):
        assert got[key] <= 1e-6, (key, got[key])


@pytest.mark.parametrize("kind", list(ELEMENT))
@pytest.mark.parametrize("push", [0.005, 0.02])
def test_block_on_a_foundation_mortar_agrees_with_the_surface_without_it(meshes, kind, push):
    """The mortar slave surface leaves out the clamped node's facets: its neighbours' dual functions
    span the facets left, as on the slave surface that stops before the node."""
    m = meshes[kind]
    clamped = _solve(_two_bodies(m["block"], m["foundation"], ELEMENT[kind], False, push, "mortar"))
    reference = _solve(_two_bodies(m["block"], m["foundation"], ELEMENT[kind], True, push, "mortar"))
    got = _agreement(clamped, reference, "interface", _edge(m["block"])[1])
    assert got["neighbour_closed"]
    for key in ("displacement", "neighbour_normal_force", "force", "corner_reaction"):
        assert got[key] <= 1e-6, (key, got[key])


@pytest.mark.parametrize("kind", list(ELEMENT))
def test_mortar_rows_with_a_clamped_node_are_those_of_the_surface_without_it(meshes, kind):
    """At the same displacement the two models build the same mortar constraints, to round-off."""
    m = meshes[kind]
    clamped = _two_bodies(m["block"], m["foundation"], ELEMENT[kind], False, 0.02, "mortar")
    reference = _two_bodies(m["block"], m["foundation"], ELEMENT[kind], True, 0.02, "mortar")
    u = _solve(clamped).state.u
    assert same_constraints(clamped, reference, u) <= 1e-12


def arched_block(path: Path, radius: float, h: float) -> skfem.Mesh:
    """Triangles of the block over ``[0, 1]`` up to ``y = 0.5`` whose bottom is the arc of radius
    ``radius`` centred at (0, radius), from its lowest point (0, 0) up to ``x = 1``; boundaries
    ``bottom`` (the arc), ``top``, ``sides``."""
    with gmsh_model("arched") as gmsh:
        occ = gmsh.model.occ
        rise = radius - np.sqrt(radius ** 2 - 1.0)
        p = [occ.addPoint(*xy, 0.0, h) for xy in ((0.0, 0.0), (1.0, rise), (1.0, 0.5), (0.0, 0.5))]
        arc = occ.addCircleArc(p[0], occ.addPoint(0.0, radius, 0.0), p[1])
        lines = [occ.addLine(p[1], p[2]), occ.addLine(p[2], p[3]), occ.addLine(p[3], p[0])]
        surface = occ.addPlaneSurface([occ.addCurveLoop([arc] + lines)])
        occ.synchronize()
        for name, curves in (("bottom", [arc]), ("top", [lines[1]]), ("sides", [lines[0], lines[2]])):
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="body")
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return fc.load_mesh(path)


def _arc(mesh) -> np.ndarray:
    """x of the nodes of the arc, ascending."""
    return np.sort(mesh.p[0, np.unique(mesh.facets[:, mesh.boundaries["bottom"]])])


def _arched_model(mesh, foundation_mesh, exclude: bool, push: float) -> fc.Model:
    """The arched block pressed and pushed on the foundation, the arc's lowest point (0, 0) clamped;
    ``exclude``: the slave arc stops at the node next to it."""
    foundation = fc.Body("foundation", foundation_mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    foundation.fix("bottom", name="ground")
    block.fix("top", y=-0.02, amplitude=PRESS, name="top-y")
    block.fix("top", x=push, amplitude=PUSH, name="top-x")
    block.fix(point=(0.0, 0.0), x=0.0, y=0.0, name="corner")
    slave = block.surface("bottom")
    if exclude:
        first = _arc(mesh)[1]
        slave = block.surface(lambda x: (x[1] < 0.25) & (x[0] > 0.75 * first) & (x[0] < 1.0 - 1e-9),
                              name="contact")
    pair = fc.Contact(slave, foundation.surface("top"), fc.Coulomb(1.0), name="interface", formulation="mortar")
    return fc.Model([foundation, block], [pair])


@pytest.mark.parametrize("push", [0.005, 0.02])
def test_curved_mortar_with_a_clamped_node_agrees_with_the_surface_without_it(meshes, tmp_path, push, caplog):
    """Mortar on the smoothed curves (the slave arc is curved): the slave curve is that of the facets
    left, so the clamped node's neighbour is a free end of it, as without the node."""
    mesh = arched_block(tmp_path / "arched.msh", 20.0, 0.08)
    model = _arched_model(mesh, meshes["tri"]["foundation"], False, push)
    problem = model.assemble().problem
    assert smoothed_pair(problem.pairs[0], problem.system)
    with caplog.at_level(logging.WARNING, logger="fecontact"):
        clamped = _solve(model)
    _warned_once(caplog, "interface")
    reference = _solve(_arched_model(mesh, meshes["tri"]["foundation"], True, push))
    got = _agreement(clamped, reference, "interface", _arc(mesh)[1])
    assert got["neighbour_closed"]
    for key in ("displacement", "neighbour_normal_force", "force", "corner_reaction"):
        assert got[key] <= 1e-6, (key, got[key])


def box(path: Path, corner: tuple, size: tuple, h_corner: float, h_far: float) -> skfem.Mesh:
    """Unstructured tetrahedra of a box, size ``h_corner`` at the corner vertical edge through
    ``corner`` and ``h_far`` elsewhere; boundaries ``bottom``, ``top``, ``sides``."""
    z0, z1 = corner[2], corner[2] + size[2]
    with gmsh_model("box") as gmsh:
        volume = gmsh.model.occ.addBox(*corner, *size)
        gmsh.model.occ.synchronize()
        for _, point in gmsh.model.getEntities(0):
            x = gmsh.model.getValue(0, point, [])
            gmsh.model.mesh.setSize([(0, point)], h_corner if np.allclose(x[:2], corner[:2]) else h_far)
        groups: dict = {}
        for _, face in gmsh.model.getEntities(2):
            b = gmsh.model.getBoundingBox(2, face)
            name = next((name for name, z in (("bottom", z0), ("top", z1))
                         if abs(b[2] - z) < 1e-6 and abs(b[5] - z) < 1e-6), "sides")
            groups.setdefault(name, []).append(face)
        for name, faces in groups.items():
            gmsh.model.addPhysicalGroup(2, faces, name=name)
        gmsh.model.addPhysicalGroup(3, [volume], name="body")
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    return fc.load_mesh(path)


@pytest.fixture(scope="module")
def boxes(tmp_path_factory):
    """The block [0, 1]^2 x [0, 0.5] and the foundation [-0.5, 1.5]^2 x [-0.5, 0] below it."""
    folder = tmp_path_factory.mktemp("clamped_boxes")
    return (box(folder / "block.msh", (0.0, 0.0, 0.0), (1.0, 1.0, 0.5), 0.15, 0.3),
            box(folder / "foundation.msh", (-0.5, -0.5, -0.5), (2.0, 2.0, 0.5), 0.2, 0.35))


def _blocks3d(block_mesh, foundation_mesh, exclude: bool, push: float) -> fc.Model:
    """The block (slave, P1 tetrahedra) pressed and pushed along x on the foundation (master), mortar,
    Coulomb mu = 1, its corner (0, 0, 0) clamped; ``exclude``: the slave surface without the
    triangles that touch the corner."""
    foundation = fc.Body("foundation", foundation_mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
    block = fc.Body("block", block_mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
    foundation.fix("bottom", name="ground")
    block.fix("top", z=-0.005, amplitude=PRESS, name="top-z")
    block.fix("top", x=push, y=0.0, amplitude=PUSH, name="top-xy")
    block.fix(point=(0.0, 0.0, 0.0), x=0.0, y=0.0, z=0.0, name="corner")
    slave = block.surface("bottom")
    if exclude:
        corner = int(np.argmin(np.linalg.norm(block_mesh.p, axis=0)))
        touching = block_mesh.facets[:, np.any(block_mesh.facets == corner, axis=0)]
        mids = block_mesh.p[:, touching].mean(axis=1)                       # (3, n)
        slave = block.surface(lambda x: np.isclose(x[2], 0.0) & (np.linalg.norm(
            x[:, None, :] - mids[:, :, None], axis=0).min(axis=0) > 1e-9), name="contact")
    pair = fc.Contact(slave, foundation.surface("top"), fc.Coulomb(1.0), name="interface", formulation="mortar")
    return fc.Model([foundation, block], [pair])


@pytest.mark.parametrize("push", [0.002, 0.03], ids=["stuck", "sliding"])
@pytest.mark.slow
def test_tetrahedral_blocks_mortar_agrees_with_the_surface_without_it(boxes, push, caplog):
    """3D mortar (triangles on triangles): the triangles that touch the clamped corner leave the
    mortar slave surface; the rows and the solution are those of the surface without them."""
    block_mesh, foundation_mesh = boxes
    assert type(block_mesh).__name__ == type(foundation_mesh).__name__ == "MeshTet1"
    model = _blocks3d(block_mesh, foundation_mesh, False, push)
    with caplog.at_level(logging.WARNING, logger="fecontact"):
        clamped = _solve(model)
    lines = [r.getMessage() for r in caplog.records if "every displacement component" in r.getMessage()]
    assert len(lines) == 1 and "at (0, 0, 0)" in lines[0] and "'corner'" in lines[0]
    reference_model = _blocks3d(block_mesh, foundation_mesh, True, push)
    reference = _solve(reference_model)
    assert same_constraints(model, reference_model, clamped.state.u) <= 1e-12
    full, part = clamped.contact("interface"), reference.contact("interface")
    index = np.array([int(np.argmin(np.linalg.norm(full.points - p[:, None], axis=0))) for p in part.points.T])
    assert np.allclose(full.points[:, index], part.points)
    at = np.flatnonzero(np.all(np.isclose(full.points, 0.0), axis=0))
    assert at.size == 1 and full.pressure[at] == 0.0 and full.status[at] == 0
    assert np.all(full.force[:, at] == 0.0)
    nodes = clamped.problem.pairs[0].slave.nodes
    u_full, u_part = (r.body_displacement("block")[:, nodes] for r in (clamped, reference))
    assert np.abs(u_full - u_part).max() <= 1e-6 * np.abs(u_part).max()
    assert np.abs(full.force[:, index] - part.force).max() <= 1e-6 * np.abs(part.force).max()
    corner = [np.asarray(r.reaction("corner")) for r in (clamped, reference)]
    assert np.abs(corner[0] - corner[1]).max() <= 1e-6 * np.abs(corner[1]).max()
    # the clamped corner's neighbours carry load (all of them while the block sticks, none of whose
    # nodes slides); pushed far, most nodes slide
    near = np.linalg.norm(part.points, axis=0) < 0.3
    assert near.sum() >= 3 and np.mean(part.status[near] > 0) >= (1.0 if push == 0.002 else 0.5)
    slides = np.mean(part.status == 2)
    assert slides == 0.0 if push == 0.002 else slides > 0.5
