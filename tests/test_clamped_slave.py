"""Clamped slave nodes: a slave node whose every displacement component is prescribed.

No unknown can satisfy the contact condition of such a node; it is left out
of its pair's contact constraints (open, zero pressure), its contact force is
carried by the support that clamps it, and the pair logs one line naming it.
The classic plate pressed and pushed on a rigid base with Coulomb friction
(mu = 1), one corner of the contact edge clamped, must then be solved in
every increment without cut-backs and agree with the same model whose slave
surface leaves the clamped node out.
"""

import logging

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.solve.operators import kinematic_operator

NEWTON = {"tolerance": 1e-10}
#: press to t = 0.5, then push sideways with the press held
PRESS = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 1.0, 1.0))
PUSH = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 0.0, 1.0))


def _plate(exclude: bool, push: float = 0.02, formulation: str = "node_to_segment") -> fc.Model:
    """Q1 plate 4 x 1 pressed (top y = -0.01) and pushed (top x = ``push``) on a rigid line, corner clamped.

    With ``push = 0.02`` the whole contact edge sticks; with ``0.05`` it
    slides but for its far end.
    """
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 4, 17), np.linspace(0, 1, 5)).with_defaults()
    plate = fc.Body("plate", mesh, "Q1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    plate.fix("top", y=-0.01, amplitude=PRESS, name="top-y")
    plate.fix("top", x=push, amplitude=PUSH, name="top-x")
    plate.fix(point=(0.0, 0.0), x=0.0, y=0.0, name="corner")
    slave = (plate.surface(lambda x: np.isclose(x[1], 0.0) & (x[0] > 0.2), name="contact") if exclude
             else plate.surface("bottom"))
    base = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    return fc.Model([plate], [fc.Contact(slave, base, fc.Coulomb(1.0), name="base",
                                         formulation=formulation)])


def _block3d(exclude: bool) -> fc.Model:
    """Hexahedral block 2 x 1 x 0.5 pressed and pushed on a rigid plane, the corner (0, 0, 0) clamped."""
    mesh = skfem.MeshHex.init_tensor(np.linspace(0, 2, 5), np.linspace(0, 1, 3),
                                     np.linspace(0, 0.5, 3)).with_defaults()
    block = fc.Body("block", mesh, "Q1", fc.LinearElastic(E=1e3, nu=0.3))
    block.fix(lambda x: np.isclose(x[2], 0.5), z=-0.005, amplitude=PRESS, name="top-z")
    block.fix(lambda x: np.isclose(x[2], 0.5), x=0.03, y=0.0, amplitude=PUSH, name="top-xy")
    block.fix(point=(0.0, 0.0, 0.0), x=0.0, y=0.0, z=0.0, name="corner")
    bottom = lambda x: np.isclose(x[2], 0.0) & ~((x[0] < 0.5) & (x[1] < 0.5)) if exclude \
        else np.isclose(x[2], 0.0)
    slave = block.surface(lambda x: bottom(x), name="contact")
    base = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
    return fc.Model([block], [fc.Contact(slave, base, fc.Coulomb(1.0), name="base")])


def _two_bodies(exclude: bool, formulation: str = "node_to_segment") -> fc.Model:
    """A Q1 block (slave, 1 x 0.5) on a softer Q1 foundation (master, 3 x 1), non-matching meshes.

    The block's corner (0, 0) on the interface is clamped; its top is pressed
    and pushed; the foundation's bottom is clamped.
    """
    low = skfem.MeshQuad.init_tensor(np.linspace(-1, 2, 10), np.linspace(-1, 0, 4)).with_defaults()
    top = skfem.MeshQuad.init_tensor(np.linspace(0, 1, 9), np.linspace(0, 0.5, 5)).with_defaults()
    foundation = fc.Body("foundation", low, "Q1", fc.LinearElastic(E=1e2, nu=0.3, plane="strain"))
    block = fc.Body("block", top, "Q1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    foundation.fix("bottom", name="ground")
    block.fix("top", y=-0.01, amplitude=PRESS, name="top-y")
    block.fix("top", x=0.005, amplitude=PUSH, name="top-x")
    block.fix(point=(0.0, 0.0), x=0.0, y=0.0, name="corner")
    slave = (block.surface(lambda x: np.isclose(x[1], 0.0) & (x[0] > 0.1), name="contact") if exclude
             else block.surface("bottom"))
    pair = fc.Contact(slave, foundation.surface("top"), fc.Coulomb(1.0), name="interface",
                      formulation=formulation)
    return fc.Model([foundation, block], [pair])


def _hex_blocks(exclude: bool, push: float = 0.02) -> fc.Model:
    """A Q1 block [0, 1]^2 x [0, 0.5] (slave) pressed and pushed along x on a Q1 foundation (master),
    non-matching bilinear quadrilateral facets, mortar, the corner (0, 0, 0) clamped; ``exclude``: the
    slave surface without the facet that touches the corner."""
    low = skfem.MeshHex.init_tensor(np.linspace(-0.5, 1.5, 5), np.linspace(-0.5, 1.5, 5),
                                    np.linspace(-0.5, 0, 2)).with_defaults()
    top = skfem.MeshHex.init_tensor(np.linspace(0, 1, 4), np.linspace(0, 1, 4),
                                    np.linspace(0, 0.5, 2)).with_defaults()
    foundation = fc.Body("foundation", low, "Q1", fc.LinearElastic(E=1e3, nu=0.3))
    block = fc.Body("block", top, "Q1", fc.LinearElastic(E=1e3, nu=0.3))
    foundation.fix(lambda x: np.isclose(x[2], -0.5), name="ground")
    block.fix(lambda x: np.isclose(x[2], 0.5), z=-0.005, amplitude=PRESS, name="top-z")
    block.fix(lambda x: np.isclose(x[2], 0.5), x=push, y=0.0, amplitude=PUSH, name="top-xy")
    block.fix(point=(0.0, 0.0, 0.0), x=0.0, y=0.0, z=0.0, name="corner")
    face = lambda x: np.isclose(x[2], 0.0)
    slave = block.surface((lambda x: face(x) & ~((x[0] < 0.34) & (x[1] < 0.34))) if exclude else face,
                          name="contact")
    pair = fc.Contact(slave, foundation.surface(face, name="top0"), fc.Coulomb(1.0), name="interface",
                      formulation="mortar")
    return fc.Model([foundation, block], [pair])


def same_constraints(clamped: fc.Model, reference: fc.Model, u: np.ndarray) -> float:
    """Largest difference, relative to the largest entry, between the contact rows (gap, slip and
    their derivatives in every DOF) of the two models at the displacement ``u``, over the nodes of
    the reference's slave surface; the clamped node's row must be open with no derivatives."""
    rows = []
    for model in (clamped, reference):
        problem = model.assemble().problem
        kin = problem.kinematics(u, 1.0, None)
        B = kinematic_operator(kin, problem.system.n_dofs).toarray()
        rows.append((problem.pairs[0].slave.nodes, kin.local.gap, B.reshape(kin.local.gap.size, -1, B.shape[1])))
    (nodes, gap, B), (nodes_r, gap_r, B_r) = rows
    index = np.searchsorted(nodes, nodes_r)
    assert np.array_equal(nodes[index], nodes_r)
    left = np.setdiff1d(np.arange(nodes.size), index)
    assert left.size > 0 and np.all(B[left] == 0.0) and np.all(gap[left] > 0.0)
    return max(float(np.abs(gap[index] - gap_r).max() / np.abs(gap_r).max()),
               float(np.abs(B[index] - B_r).max() / np.abs(B_r).max()))


def _solve(model: fc.Model):
    result = model.solve(steps=4, newton=NEWTON)
    assert result.converged, result.failure
    assert [r.cutbacks for r in result.records] == [0, 0, 0, 0]
    return result


def _relative(a: np.ndarray, b: np.ndarray, floor: float = 0.0) -> float:
    """``max |a - b|`` relative to ``max |b|`` (or to ``floor`` where ``b`` is smaller)."""
    return float(np.abs(a - b).max() / max(np.abs(b).max(), floor))


CASES = {"plate2d_stuck": (_plate, "base", (0.25, 0.0)),
         "plate2d_sliding": (lambda exclude: _plate(exclude, push=0.05), "base", (0.25, 0.0)),
         "block3d": (_block3d, "base", (0.5, 0.0, 0.0)),
         "two_bodies": (_two_bodies, "interface", (0.125, 0.0)),
         # mortar: the mortar slave surface leaves out the clamped node's segment
         "two_bodies_mortar": (lambda exclude: _two_bodies(exclude, "mortar"), "interface", (0.125, 0.0))}


@pytest.mark.parametrize("case", list(CASES))
def test_clamped_node_left_out_agrees_with_surface_without_it(case, caplog):
    build, name, neighbour = CASES[case]
    with caplog.at_level(logging.WARNING, logger="fecontact"):
        clamped = _solve(build(False))
    lines = [r.getMessage() for r in caplog.records if "every displacement component" in r.getMessage()]
    assert len(lines) == 1
    assert f"contact {name!r}" in lines[0] and "slave node " in lines[0] and "'corner'" in lines[0]
    assert ("at (0, 0)" if case != "block3d" else "at (0, 0, 0)") in lines[0]
    reference = _solve(build(True))
    full, part = clamped.contact(name), reference.contact(name)
    # the clamped node: open, no pressure, no force
    at = np.flatnonzero(np.all(np.isclose(full.points, 0.0), axis=0))
    assert at.size == 1 and full.pressure[at] == 0.0 and np.all(full.force[:, at] == 0.0)
    assert full.status[at] == 0
    # every node of the reduced surface is in the full one, at the same place
    index = np.array([int(np.argmin(np.linalg.norm(full.points - p[:, None], axis=0))) for p in part.points.T])
    assert np.allclose(full.points[:, index], part.points)
    # displacements along the contact edge (every node of the full slave surface)
    body = clamped.problem.system.bodies[clamped.problem.pairs[0].slave.body].name
    nodes = clamped.problem.pairs[0].slave.nodes
    u_full = clamped.body_displacement(body)[:, nodes]
    u_part = reference.body_displacement(body)[:, nodes]
    # a stuck edge does not move: its displacements are round-off, measured against a millionth
    # of the body's largest displacement (the prescribed motion of the top)
    moved = np.abs(reference.body_displacement(body)).max()
    assert _relative(u_full, u_part, floor=1e-6 * moved) <= 1e-6
    # the normal reaction of the node next to the clamped corner, and every node's force
    k = int(np.argmin(np.linalg.norm(part.points - np.array(neighbour)[:, None], axis=0)))
    normal = -1 if case == "block3d" else 1
    assert abs(full.force[normal, index[k]] - part.force[normal, k]) <= 1e-6 * np.abs(part.force).max()
    assert _relative(full.force[:, index], part.force) <= 1e-6
    # the corner support carries the clamped node's contact force: same reactions as without it
    for support in ("corner",):
        assert np.allclose(clamped.reaction(support), reference.reaction(support),
                           atol=1e-6 * np.abs(reference.reaction(support)).max())


def test_quadratic_surface_with_a_clamped_vertex_is_solved():
    """P2 tetrahedra (vertex multipliers, weighted rows): the clamped vertex's row is emptied."""
    mesh = skfem.MeshTet.init_tensor(np.linspace(0, 1, 4), np.linspace(0, 1, 4),
                                     np.linspace(0, 0.5, 3)).with_defaults()
    block = fc.Body("block", mesh, "P2", fc.LinearElastic(E=1e3, nu=0.3))
    top = lambda x: np.isclose(x[2], 0.5)
    block.fix(top, z=-0.005, amplitude=PRESS, name="top-z")
    block.fix(top, x=0.02, y=0.0, amplitude=PUSH, name="top-xy")
    block.fix(point=(0.0, 0.0, 0.0), x=0.0, y=0.0, z=0.0, name="corner")
    slave = block.surface(lambda x: np.isclose(x[2], 0.0), name="contact")
    base = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
    result = _solve(fc.Model([block], [fc.Contact(slave, base, fc.Coulomb(1.0), name="base")]))
    fields = result.contact("base")
    at = np.flatnonzero(np.all(np.isclose(fields.points, 0.0), axis=0))
    assert fields.pressure[at] == 0.0 and fields.status[at] == 0
    # the supports and contact balance: the corner's reaction holds what contact does not
    total = sum(np.asarray(result.reaction(n)) for n in ("top-z", "top-xy", "corner"))
    assert np.allclose(total + fields.force.sum(axis=1), 0.0, atol=1e-8 * np.abs(fields.force).sum())


def test_a_node_touching_with_its_normal_motion_prescribed_is_named_before_solving():
    """The corner held in y only (the contact normal): its closed normal row would be singular."""
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 4, 17), np.linspace(0, 1, 5)).with_defaults()
    plate = fc.Body("plate", mesh, "Q1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    plate.fix("top", y=-0.01, name="top-y")
    plate.fix(point=(0.0, 0.0), y=0.0, name="corner")
    base = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    model = fc.Model([plate], [fc.Contact(plate.surface("bottom"), base, fc.Coulomb(1.0), name="base")])
    findings = model.check()
    assert len(findings) == 1
    line = findings[0]
    assert line.startswith("contact 'base': slave node 0 of body 'plate' at (0, 0)")
    assert "displacement y is prescribed ('corner')" in line and "singular" in line
    with pytest.raises(ValueError, match="no unknown can change its gap"):
        model.solve()
    # held along x only (tangential to the contact): no finding, solved
    free = fc.Body("plate", mesh, "Q1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    free.fix("top", y=-0.01, name="top-y").fix(point=(0.0, 0.0), x=0.0, name="corner")
    model = fc.Model([free], [fc.Contact(free.surface("bottom"), base, fc.Coulomb(1.0), name="base")])
    assert model.check() == []
    assert model.solve(newton=NEWTON).converged


def test_mortar_rows_on_quadrilateral_facets_with_a_clamped_node_are_those_of_the_surface_without_it():
    """Bilinear quadrilateral facets: at the same displacement (the block moved down into the
    foundation and along x) the mortar rows of the two models agree to round-off."""
    clamped, reference = _hex_blocks(False), _hex_blocks(True)
    system = clamped.assemble().problem.system
    block = system.global_nodes(1, np.arange(system.bodies[1].node_coords.shape[1]))
    u = np.zeros(system.n_dofs)
    u[3 * block], u[3 * block + 2] = 0.01, -0.002
    assert same_constraints(clamped, reference, u) <= 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("push", [0.002, 0.02], ids=["stuck", "sliding"])
def test_mortar_on_quadrilateral_facets_with_a_clamped_node_agrees_with_the_surface_without_it(push):
    clamped, reference = _solve(_hex_blocks(False, push)), _solve(_hex_blocks(True, push))
    full, part = clamped.contact("interface"), reference.contact("interface")
    index = np.array([int(np.argmin(np.linalg.norm(full.points - p[:, None], axis=0))) for p in part.points.T])
    at = np.flatnonzero(np.all(np.isclose(full.points, 0.0), axis=0))
    assert at.size == 1 and full.pressure[at] == 0.0 and np.all(full.force[:, at] == 0.0)
    nodes = clamped.problem.pairs[0].slave.nodes
    u_full, u_part = (r.body_displacement("block")[:, nodes] for r in (clamped, reference))
    assert _relative(u_full, u_part) <= 1e-6
    assert _relative(full.force[:, index], part.force) <= 1e-6
    # the corner's neighbours carry load (all of them while the block sticks)
    closed = part.status[np.linalg.norm(part.points, axis=0) < 0.5] > 0
    assert closed.all() if push == 0.002 else closed.any()


def test_mortar_slave_surface_clamped_everywhere_is_solved_open():
    """Every facet of the mortar slave surface touches a clamped node: no facet is left and every row
    is open (no pressure, no force), as every node is left out, however far the foundation presses in."""
    low = skfem.MeshQuad.init_tensor(np.linspace(-1, 2, 10), np.linspace(-1, 0, 4)).with_defaults()
    top = skfem.MeshQuad.init_tensor(np.linspace(0, 1, 9), np.linspace(0, 0.5, 5)).with_defaults()
    foundation = fc.Body("foundation", low, "Q1", fc.LinearElastic(E=1e2, nu=0.3, plane="strain"))
    block = fc.Body("block", top, "Q1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    foundation.fix("top", y=0.005, name="lift").fix("bottom", name="ground")
    block.fix("bottom", name="base")
    pair = fc.Contact(block.surface("bottom"), foundation.surface("top"), fc.Coulomb(0.5), name="interface",
                      formulation="mortar")
    result = _solve(fc.Model([foundation, block], [pair]))
    fields = result.contact("interface")
    assert np.all(fields.pressure == 0.0) and np.all(fields.status == 0) and np.all(fields.force == 0.0)
