"""Slave nodes past a free end of the master surface are open.

A punch pressed on a wider foundation with the whole foundation top as the
slave: the foundation nodes beyond the punch's edges face no master surface.
Measured on the straight extension of the punch's end segments (facets' planes)
they would carry load; they must be open, in node-to-segment (node-to-facet)
and in mortar pairs, and the pair reports how many of its slave nodes lie
past a free end.
"""

import logging

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.contact.pairs import FREE_EDGE_KEEP
from fecontact.contact.search import (FREE_END_MARGIN, free_edges_3d, free_ends_2d,
                                      past_free_edge_3d, past_free_end_2d)


def _punch2d(formulation, name="punch"):
    """Punch of width 1 (E = 100) pressed by 0.01 on a foundation of width 4 (E = 1)."""
    wide = skfem.MeshTri.init_tensor(np.linspace(-2, 2, 17), np.linspace(-1, 0, 5))
    small = skfem.MeshTri.init_tensor(np.linspace(-0.5, 0.5, 4), np.linspace(0, 0.5, 3))
    a = fc.Body("wide", wide, "P1", fc.LinearElastic(1.0, 0.3))
    b = fc.Body("small", small, "P1", fc.LinearElastic(100.0, 0.3))
    a.fix(lambda x: np.isclose(x[1], -1), name="bottom")
    b.fix(lambda x: np.isclose(x[1], 0.5), x=0.0, y=-0.01, name="top")
    s = a.surface(lambda x: np.isclose(x[1], 0), name="whole-top")
    pair = fc.Contact(s, b.surface(lambda x: np.isclose(x[1], 0), name="base"), name=name,
                      formulation=formulation)
    return fc.Model([a, b], [pair]), s


def _punch3d(formulation):
    """Square punch 1 x 1 (E = 100) pressed by 0.01 on a 4 x 4 block (E = 1), tetrahedra."""
    g = np.linspace(-2, 2, 9)
    wide = skfem.MeshTet.init_tensor(g, g, np.linspace(-1, 0, 4))
    pg = np.linspace(-0.5, 0.5, 4)
    small = skfem.MeshTet.init_tensor(pg, pg, np.linspace(0, 0.5, 3))
    a = fc.Body("block", wide, "P1", fc.LinearElastic(1.0, 0.3))
    b = fc.Body("punch", small, "P1", fc.LinearElastic(100.0, 0.3))
    a.fix(lambda x: np.isclose(x[2], -1), name="bottom")
    b.fix(lambda x: np.isclose(x[2], 0.5), x=0.0, y=0.0, z=-0.01, name="top")
    s = a.surface(lambda x: np.isclose(x[2], 0), name="whole-top")
    pair = fc.Contact(s, b.surface(lambda x: np.isclose(x[2], 0), name="base"), name="punch",
                      formulation=formulation)
    return fc.Model([a, b], [pair]), s


def _check_punch(result, half_width):
    """Load outside the punch, the peak at the punch edge, force balance; returns the outside share."""
    assert result.converged
    fields = result.contact("punch")
    x = fields.points
    dim = x.shape[0]
    load = -fields.force[dim - 1]                        # the punch pushes the foundation down
    outside = np.any(np.abs(x[:dim - 1]) > half_width + 1e-9, axis=0)
    share = load[outside].sum() / load.sum()
    assert share < 1e-3, f"{share:.3%} of the load outside the punch"
    peak = np.argmax(fields.pressure)
    assert np.isclose(np.abs(x[:dim - 1, peak]).max(), half_width), x[:, peak]
    # the contact force is the one the supports take, in the loading direction
    top, bottom = result.reaction("top"), result.reaction("bottom")
    np.testing.assert_allclose(result.pair("punch").force[dim - 1], top[dim - 1], rtol=1e-8)
    np.testing.assert_allclose(bottom, -top, atol=1e-10 * abs(top[dim - 1]))
    return share


@pytest.mark.parametrize("formulation", ["node_to_segment", "mortar"])
def test_punch2d_whole_top_as_slave(formulation):
    model, _ = _punch2d(formulation)
    result = model.solve()
    _check_punch(result, 0.5)
    # both formulations carry the same load (before: node-to-segment 0.0393, twice mortar's)
    assert abs(result.reaction("top")[1]) == pytest.approx(0.01958, rel=2e-3)


@pytest.mark.parametrize("formulation", ["node_to_segment", "mortar"])
def test_punch3d_whole_top_as_slave(formulation):
    model, _ = _punch3d(formulation)
    result = model.solve()
    _check_punch(result, 0.5)


def test_punch3d_hexahedra_whole_top_as_slave():
    """Bilinear quadrilateral master facets (node-to-facet)."""
    g = np.linspace(-2, 2, 9)
    pg = np.linspace(-0.5, 0.5, 4)
    a = fc.Body("block", skfem.MeshHex.init_tensor(g, g, np.linspace(-1, 0, 4)), "Q1",
                fc.LinearElastic(1.0, 0.3))
    b = fc.Body("punch", skfem.MeshHex.init_tensor(pg, pg, np.linspace(0, 0.5, 3)), "Q1",
                fc.LinearElastic(100.0, 0.3))
    a.fix(lambda x: np.isclose(x[2], -1), name="bottom")
    b.fix(lambda x: np.isclose(x[2], 0.5), x=0.0, y=0.0, z=-0.01, name="top")
    s = a.surface(lambda x: np.isclose(x[2], 0))
    pair = fc.Contact(s, b.surface(lambda x: np.isclose(x[2], 0)), name="punch")
    _check_punch(fc.Model([a, b], [pair]).solve(), 0.5)


def test_warning_names_the_pair_and_the_count(caplog):
    model, _ = _punch2d("node_to_segment", name="wide-on-small")
    with caplog.at_level(logging.WARNING, logger="fecontact.contact.pairs"):
        model.check()
    hits = [r.getMessage() for r in caplog.records if "free end" in r.getMessage()]
    assert len(hits) == 1, hits                           # once per pair, not per evaluation
    # 17 slave nodes at x = -2, -1.75, ..., 2: those at |x| >= 0.75 lie past the punch's ends
    assert "'wide-on-small'" in hits[0] and "12 of 17 slave nodes" in hits[0]


def test_no_warning_when_the_slave_lies_inside_the_master(caplog):
    wide = skfem.MeshTri.init_tensor(np.linspace(-2, 2, 9), np.linspace(-1, 0, 3))
    small = skfem.MeshTri.init_tensor(np.linspace(-0.5, 0.5, 4), np.linspace(0, 0.5, 3))
    a = fc.Body("wide", wide, "P1", fc.LinearElastic(1.0, 0.3))
    b = fc.Body("small", small, "P1", fc.LinearElastic(100.0, 0.3))
    a.fix(lambda x: np.isclose(x[1], -1), name="bottom")
    b.fix(lambda x: np.isclose(x[1], 0.5), x=0.0, y=-0.01, name="top")
    pair = fc.Contact(b.surface(lambda x: np.isclose(x[1], 0)), a.surface(lambda x: np.isclose(x[1], 0)),
                      name="small-on-wide")
    with caplog.at_level(logging.WARNING, logger="fecontact.contact.pairs"):
        fc.Model([a, b], [pair]).check()
    assert not [r for r in caplog.records if "free end" in r.getMessage()]


def test_node_just_past_the_end_is_open_just_inside_touches_2d():
    """Master: base y = 0 of a block over 0 <= x <= 1 (segments of 0.5); slave nodes at y = -0.01."""
    within = 1.0 + 0.25 * FREE_END_MARGIN           # xi = 1 + margin / 2 on the end segment
    xs = np.array([-0.5, -0.01, 0.0, 0.5, 0.99, within, 1.01, 1.5])
    below = fc.Body("below", skfem.MeshTri.init_tensor(xs, np.array([-1.0, -0.01])), "P1",
                    fc.LinearElastic(1.0, 0.3))
    above = fc.Body("above", skfem.MeshTri.init_tensor(np.linspace(0, 1, 3), np.array([0.0, 0.5])),
                    "P1", fc.LinearElastic(1.0, 0.3))
    below.fix(lambda x: np.isclose(x[1], -1), name="bottom")
    above.fix(lambda x: np.isclose(x[1], 0.5), name="top")
    s = below.surface(lambda x: np.isclose(x[1], -0.01))
    model = fc.Model([below, above], [fc.Contact(s, above.surface(lambda x: np.isclose(x[1], 0)),
                                                 formulation="node_to_segment")])
    problem = model.assemble().problem
    kin = problem.kinematics(np.zeros(problem.system.n_dofs), 0.0, None).local
    order = np.argsort(problem.X[0, problem.system.global_nodes(0, s.surface.nodes)])
    gap, d_gap, area = kin.gap[order], kin.d_gap[order], s.surface.area[order]
    inside = np.isin(xs, [0.0, 0.5, 0.99, within])
    # touching nodes: the gap 0.01 to the base (a node within the margin of the end as well)
    np.testing.assert_allclose(gap[inside], 0.01, rtol=1e-12)
    np.testing.assert_allclose(d_gap[inside][:, 1], -1.0, rtol=1e-12)     # moving up closes
    # nodes past either free end: open, gap = max(distance to the end, nodal length), no derivatives
    past = ~inside
    ends = np.where(xs[past] < 0.5, 0.0, 1.0)
    distance = np.hypot(xs[past] - ends, 0.01)
    np.testing.assert_allclose(gap[past], np.maximum(distance, area[past]), rtol=1e-12)
    assert np.all(gap[past] > 0.0)
    assert np.all(d_gap[past] == 0.0) and np.all(kin.h_gap[order][past] == 0.0)


def test_node_just_past_a_free_edge_is_open_3d():
    """Master: base z = 0 of a block over the unit square (edges 0.5); slave nodes at z = -0.01.

    A node past a free edge by more than 5 % of the edge (``FREE_EDGE_KEEP``, here 0.025) is
    open; one within it (x = 1.01) is measured on the facet's plane, like a node inside."""
    xs = np.array([0.25, 0.5, 0.99, 1.01, 1.03, 1.5])
    below = fc.Body("below", skfem.MeshHex.init_tensor(xs, np.array([0.3, 0.7]), np.array([-1.0, -0.01])),
                    "Q1", fc.LinearElastic(1.0, 0.3))
    above = fc.Body("above", skfem.MeshHex.init_tensor(*(np.linspace(0, 1, 3),) * 2, np.array([0.0, 0.5])),
                    "Q1", fc.LinearElastic(1.0, 0.3))
    below.fix(lambda x: np.isclose(x[2], -1), name="bottom")
    above.fix(lambda x: np.isclose(x[2], 0.5), name="top")
    s = below.surface(lambda x: np.isclose(x[2], -0.01))
    model = fc.Model([below, above], [fc.Contact(s, above.surface(lambda x: np.isclose(x[2], 0)))])
    problem = model.assemble().problem
    kin = problem.kinematics(np.zeros(problem.system.n_dofs), 0.0, None).local
    x = problem.X[:, problem.system.global_nodes(0, s.surface.nodes)]
    past = x[0] > 1.0 + FREE_EDGE_KEEP * 0.5
    assert past.sum() == 4 and np.sum(np.isclose(x[0], 1.01)) == 2
    np.testing.assert_allclose(kin.gap[~past], 0.01, rtol=1e-12)
    np.testing.assert_allclose(kin.d_gap[~past][:, 2], -1.0, rtol=1e-12)   # moving up closes
    assert np.all(kin.gap[past] >= np.sqrt(s.surface.area[past]))
    assert np.all(kin.d_gap[past] == 0.0)


def test_free_ends_and_edges_of_open_and_closed_surfaces():
    chain = np.array([[0, 1, 2], [1, 2, 3]])                         # 0 -> 1 -> 2 -> 3
    free_a, free_b = free_ends_2d(chain)
    assert free_a.tolist() == [True, False, False] and free_b.tolist() == [False, False, True]
    ring = np.array([[0, 1, 2], [1, 2, 0]])
    assert not any(a.any() for a in free_ends_2d(ring))
    xi = np.array([-0.01, 1.01, 1.01, 1.0 + 0.5 * FREE_END_MARGIN])
    assert past_free_end_2d(xi, np.array([0, 0, 2, 2]), free_a, free_b).tolist() == [
        True, False, True, False]
    # two triangles of the unit square: four free edges, the diagonal shared
    square = np.array([[0, 1, 2], [0, 2, 3]]).T
    free = free_edges_3d(square)
    assert free.tolist() == [[True, True, False], [False, True, True]]
    # the boundary of a tetrahedron is closed
    tet = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]]).T
    assert not free_edges_3d(tet).any()
    X = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0]])[None].repeat(3, axis=0)
    points = np.array([[0.5, -0.01, -0.1], [0.5, 0.01, 0.1], [1.01, 0.5, 0.0]])
    assert past_free_edge_3d(points, X, free[[0, 0, 0]]).tolist() == [True, False, True]
    # across the shared diagonal only: not past a free edge
    assert not past_free_edge_3d(np.array([[0.3, 0.6, 0.0]]), X[:1], free[:1]).any()
