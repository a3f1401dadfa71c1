"""A node that closes inside an increment slips only after it touches.

A block carried diagonally onto a rigid line (down by ``b t``, sideways by
``a t``) by its top edge moves without stress until its bottom touches at
``t_c = g_0 / b``; with friction that holds it, the bottom then sticks where
it touched, and at ``t`` the block carries exactly the state of the same
block clamped at its bottom with its top displaced by ``(a, -b) (t - t_c)``.
That state is the reference: a plain linear solve with no contact.  Loading
at a steady rate is the case the first-contact prediction
(:mod:`fecontact.contact.closing`) is exact for; the closing time falls
inside an increment, so measuring slip from the start-of-increment
projection would put the shear of ``a (t - t_k)`` on the block instead.
"""

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.contact.closing import slip_before_contact

GAP, A, B = 0.06, 0.02, 0.1          # t_c = 0.6, inside the increment 0.5 -> 0.75
LEVELS = [0.25, 0.5, 0.75, 1.0]


def _block(y0: float) -> fc.Body:
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0.0, 1.0, 9), np.linspace(y0, y0 + 0.5, 5))
    return fc.Body("block", mesh, "Q1", fc.LinearElastic(E=100.0, nu=0.3, plane="strain"))


def _top(x):
    return np.isclose(x[1], x[1].max())


def _bottom(x):
    return np.isclose(x[1], x[1].min())


def test_closing_block_sticks_where_it_touched():
    block = _block(GAP)
    block.fix(lambda x: np.isclose(x[1], GAP + 0.5), x=A, y=-B, name="top")
    pair = fc.Contact(block.surface(lambda x: np.isclose(x[1], GAP)),
                      fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)), fc.Coulomb(mu=5.0),
                      name="bottom")
    result = fc.Model([block], [pair]).solve(levels=LEVELS)
    assert result.converged, result.failure
    assert np.all(result.contact("bottom").status == fc.Status.STICK)

    t_c = GAP / B
    clamped = _block(GAP)
    clamped.fix(lambda x: np.isclose(x[1], GAP + 0.5), x=A * (1 - t_c), y=-B * (1 - t_c),
                name="top")
    clamped.fix(lambda x: np.isclose(x[1], GAP), x=0.0, y=0.0, name="bottom")
    ref = fc.Model([clamped]).solve(steps=1)
    assert ref.converged

    scale = np.abs(ref.reaction("top")).max()
    np.testing.assert_allclose(result.reaction("top"), ref.reaction("top"), atol=1e-8 * scale)
    # the bottom moved rigidly by (a, -b) t_c before it touched, then stuck
    rigid = np.array([[A * t_c], [-B * t_c]])
    np.testing.assert_allclose(result.displacement - rigid, ref.displacement,
                               atol=1e-8 * B)
    # the block carries shear (from the sideways motion after t_c; measured from the
    # increment's start 0.5 it would be 25 % more)
    assert abs(ref.reaction("top")[0]) > 0.05 * scale


def test_slip_before_contact_on_a_steady_approach():
    """theta = g0 / (-g_dot dt), capped at 1; only open, approaching nodes."""
    gap = np.array([0.3, 0.3, 0.3, 2.0, 0.0])
    is_open = np.array([True, False, True, True, True])
    rate = np.array([[-1.0, 2.0, 0.0, 0.0],        # closes at theta = 0.3 / 0.5 = 0.6
                     [-1.0, 2.0, 0.0, 0.0],        # closed at the start: no offset
                     [+1.0, 2.0, 0.0, 0.0],        # receding: no offset
                     [-1.0, 2.0, 1.0, 0.0],        # would close after the increment: theta = 1
                     [-1.0, 2.0, 0.0, 0.0]])       # touching (g0 = 0): no offset
    tangent = np.tile(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (5, 1, 1))
    offset = slip_before_contact(gap, is_open, rate, tangent, 0.5)
    np.testing.assert_allclose(offset, [[0.6, 0.0], [0, 0], [0, 0], [1.0, 0.5], [0, 0]])
    assert not slip_before_contact(gap, is_open, None, tangent, 0.5).any()


def _flat_block(law):
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0.0, 1.0, 11), np.linspace(0.01, 0.51, 6))
    block = fc.Body("block", mesh, "Q1", fc.LinearElastic(E=100.0, nu=0.3, plane="strain"))
    block.fix(lambda x: np.isclose(x[1], 0.51), y=-0.03, name="top")
    block.fix(point=(0.5, 0.51), x=0.0, name="pin")
    pair = fc.Contact(block.surface(lambda x: np.isclose(x[1], 0.01)),
                      fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)), law, name="bottom")
    return fc.Model([block], [pair])


def test_closing_control_accepts_nodes_that_close_at_one_instant():
    """solver.max_closing = 2 on a flat block whose 11 bottom nodes close at one instant: shorter
    increments cannot separate them, so they are accepted together after a few shorter tries
    (not by halving towards the closing instant), and the frictionless end state is the one
    without the control (it does not depend on the path)."""
    free = _flat_block(fc.Frictionless()).solve(steps=3)
    controlled = _flat_block(fc.Frictionless()).solve(steps=3, stepping={"max_closing": 2})
    assert free.converged and controlled.converged
    assert sum(r.increments for r in controlled.records) <= 20
    scale = np.abs(free.contact("bottom").pressure).max()
    np.testing.assert_allclose(controlled.contact("bottom").pressure,
                               free.contact("bottom").pressure, atol=1e-9 * scale)


@pytest.mark.parametrize("value", [0, 1.5, -2, float("inf")])
def test_closing_control_must_be_a_whole_number(value, tmp_path):
    with pytest.raises(ValueError, match="max_closing"):
        fc.SteppingOptions(max_closing=value)


@pytest.mark.parametrize("value", ["0", "1.5", "true"])
def test_closing_control_in_a_case_file_is_checked(value):
    from conftest import CASES
    from fecontact.case.build import build_model
    from fecontact.case.schema import CaseError, load_case

    with pytest.raises(CaseError) as err:
        build_model(load_case(CASES / "hertz2d.toml", [f"solver.max_closing={value}"]))
    message = str(err.value)
    assert "hertz2d.toml" in message and "solver.max_closing" in message and "\n" not in message
