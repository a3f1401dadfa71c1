"""A body whose mesh is in disconnected pieces: each piece's rigid motions must be held."""

import numpy as np
import skfem

import fecontact as fc
from fecontact.bodies.pieces import node_pieces, rigid_groups


def _two_blocks(element="Q1"):
    kind = skfem.MeshTri if element == "P2" else skfem.MeshQuad
    block = kind.init_tensor(np.linspace(0, 1, 5), np.linspace(0, 0.5, 3))
    p = np.hstack([block.p, block.p + np.array([[2.0], [0.0]])])
    t = np.hstack([block.t, block.t + block.p.shape[1]])
    mesh = type(block)(p, t).with_boundaries({
        "bottom": lambda x: x[1] < 1e-9, "left": lambda x: x[0] < 1e-9,
        "right": lambda x: x[0] > 3.0 - 1e-9})
    return fc.Body("two", mesh, element, fc.LinearElastic(E=100.0, nu=0.3))


def test_pieces_of_a_mesh_are_labelled_midside_nodes_included():
    body = _two_blocks("P2")
    labels = node_pieces(body.part)
    assert labels.max() == 1
    x = body.part.node_coords
    assert np.all(labels[x[0] < 1.5] == labels[0]) and np.all(labels[x[0] > 1.5] != labels[0])


def test_an_unheld_piece_is_found_before_solving():
    body = _two_blocks()
    body.fix("left")                                   # holds the first piece only
    body.body_force((0.0, -1.0))
    pair = fc.Contact(body.surface("bottom"), fc.RigidLine(point=(0, 0), normal=(0, 1)),
                      fc.Frictionless())
    findings = fc.Model([body], [pair]).check()
    assert len(findings) == 1
    assert "body 'two' (its mesh is in 2 disconnected pieces" in findings[0]
    assert "translation along x" in findings[0]


def test_pieces_held_each_by_its_own_support_solve():
    body = _two_blocks()
    body.fix("left", x=0.0)
    body.fix("right", x=0.0)
    body.body_force((0.0, -1.0))
    pair = fc.Contact(body.surface("bottom"), fc.RigidLine(point=(0, 0), normal=(0, 1)),
                      fc.Frictionless())
    model = fc.Model([body], [pair])
    assert model.check() == []
    system = model.assemble().problem.system
    assert [len(g) for g in rigid_groups(system)] == [15, 15]
    result = model.solve(steps=1)
    assert result.converged
    # each piece rests on the line under its own weight, 1 x 0.5 x 1.0 per piece
    fields = result.contact()
    for piece in (fields.points[0] < 1.5, fields.points[0] > 1.5):
        assert abs(fields.force[1, piece].sum() - 0.5) < 1e-8
