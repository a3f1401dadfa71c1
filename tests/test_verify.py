"""The independent residual check (fecontact.run.verify) against states it must accept or reject.

The states are a converged increment of a coarse hertz2d_friction, and copies of it with one
defect each.  The check recomputes gap, slip and contact forces with its own brute-force
projection; the defects are ones the solver's own equations would not show when read through
the solver's kinematics with the former closing-node exemption (mu = 0 for a node that closes
in the increment).
"""

from dataclasses import replace

import numpy as np
import pytest

from conftest import CASES
from fecontact import residual_check
from fecontact.analysis.static import SteppingOptions, run_steps
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.friction import Status
from fecontact.solve.backends import DirectBackend

COARSE = ["bodies.0.mesh.h_contact=0.01", "bodies.0.mesh.grading=1.3", "steps.count=3"]


@pytest.fixture(scope="module")
def solved():
    model = build_model(load_case(CASES / "hertz2d_friction.toml", COARSE))
    problem = model.problem
    # one increment per level (not the case's closing control), so that nodes close and slide
    # in the last increment
    records, state, _ = run_steps(problem, DirectBackend(problem), model.levels[:2], model.newton,
                                  SteppingOptions())
    assert all(r.converged for r in records)
    return problem, state


def _with_traction(state, rows, lam_t):
    lam = state.multiplier.copy()
    lam[rows, 1] = lam_t
    return replace(state, multiplier=lam)


def test_the_converged_state_passes(solved):
    problem, state = solved
    check = residual_check(problem, state)
    assert check.passed, check.failures()


def test_a_closing_sliding_node_without_friction_fails(solved):
    """A node that closed in the increment and slides, with lam_t = 0 (off the cone): the former
    check exempted such nodes (mu = 0); the contact forces are rebuilt from the tractions, so the
    defect shows as a friction violation at that node (and in equilibrium)."""
    problem, state = solved
    closing = (state.start.status == Status.OPEN) & (state.status == Status.SLIP)
    assert closing.any()
    i = int(np.flatnonzero(closing)[np.argmax(state.multiplier[closing, 0])])
    check = residual_check(problem, _with_traction(state, [i], 0.0))
    assert not check.passed
    assert check.friction > 0.1
    assert check.where["friction"] == problem.slave_node_name(i)


def test_a_sliding_node_with_the_traction_along_its_slip_fails(solved):
    """The traction of a sliding node reversed (on the cone, but along the slip)."""
    problem, state = solved
    sliding = np.flatnonzero(state.status == Status.SLIP)
    i = int(sliding[np.argmax(state.multiplier[sliding, 0])])
    check = residual_check(problem, _with_traction(state, [i], -state.multiplier[i, 1]))
    assert not check.passed and check.friction > 0.1
    assert check.where["friction"] == problem.slave_node_name(i)


def test_a_stuck_node_beyond_the_static_cone_fails(solved):
    problem, state = solved
    stuck = np.flatnonzero(state.status == Status.STICK)
    i = int(stuck[np.argmax(state.multiplier[stuck, 0])])
    lam_t = 1.5 * 0.3 * state.multiplier[i, 0] * np.sign(state.multiplier[i, 1] or 1.0)
    check = residual_check(problem, _with_traction(state, [i], lam_t))
    assert not check.passed and check.friction > 0.1


def test_a_penetrating_node_fails(solved):
    """The whole disc moved down by 1e-4 (rigidly): the brute-force gaps are negative."""
    problem, state = solved
    u = state.u.copy()
    u[1::2] -= 1e-4
    check = residual_check(problem, replace(state, u=u))
    assert not check.passed and check.gap > 1e-3
