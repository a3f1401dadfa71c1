"""Increments in which a body moves without stress converge.

While a prescribed displacement moves a body rigidly (an initial gap being
closed, a support lifting a body off its contact, a free body carried along)
the internal force ``K u`` is round-off, and a residual measured relative to
it alone stays near 1.  Newton's force scale (``solve.newton.force_scale``)
also holds the rounding bound of the bulk force, which does not collapse with
the stress.  The references here are independent of that scale: the no-gap
solution shifted by the gap, zero contact force after lift-off, and the exact
rigid translation.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.solve.newton import NewtonOptions, RoundingBound, force_scale

ROOT = Path(__file__).resolve().parents[1]
HALF_DISC = ROOT / "meshes" / "half_disc.msh"
PUSH = 0.02          # net push of the disc's top edge into the flat
GAP = 0.01           # initial gap between the disc and the lowered flat


def disc_on_flat(flat_y: float, top_y: float, amplitude=None):
    """The lower half-disc of ``meshes/half_disc.msh`` (R = 1) pushed onto a rigid flat at ``flat_y``."""
    mesh = skfem.Mesh.load(str(HALF_DISC))
    disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=1e4, nu=0.3, plane="strain"))
    disc.fix("flat", y=top_y, amplitude=amplitude)
    disc.fix(point=(0.0, 1.0), x=0.0)
    pair = fc.Contact(disc.surface("contact"),
                      fc.RigidLine(point=(0.0, flat_y), normal=(0.0, 1.0)), fc.Frictionless(),
                      name="disc-on-flat")
    return fc.Model([disc], [pair])


@pytest.fixture(scope="module")
def no_gap():
    """The disc touching the flat at the start, pushed by ``PUSH``."""
    result = disc_on_flat(0.0, -PUSH).solve(steps=4)
    assert result.converged, result.failure
    return result


def test_initial_gap_closed_by_the_support_gives_the_shifted_no_gap_solution(no_gap):
    # the first level (top edge at -0.0075) moves the disc without touching the flat
    result = disc_on_flat(-GAP, -(PUSH + GAP)).solve(steps=4)
    assert result.converged, result.failure
    first = result.records[0]
    assert first.open == result.contact("disc-on-flat").status.size
    assert first.newton_iterations <= 2
    # same net push: the same contact state, the displacement shifted by the gap
    gap, ref = result.contact("disc-on-flat"), no_gap.contact("disc-on-flat")
    scale = ref.pressure.max()
    assert np.max(np.abs(gap.pressure - ref.pressure)) <= 1e-8 * scale
    assert np.array_equal(gap.status, ref.status)
    force, ref_force = result.pair("disc-on-flat").force, no_gap.pair("disc-on-flat").force
    assert force[1] == pytest.approx(ref_force[1], rel=1e-8)
    shifted = no_gap.displacement + np.array([[0.0], [-GAP]])
    assert np.max(np.abs(result.displacement - shifted)) <= 1e-8 * PUSH


def test_support_lifting_the_body_off_its_contact(no_gap):
    # pushed down by PUSH at t = 1, then lifted to 0.5 PUSH above the start at t = 2
    lift = fc.Amplitude((0.0, 1.0, 2.0), (0.0, 1.0, -0.5))
    result = disc_on_flat(0.0, -PUSH, amplitude=lift).solve(steps=8, t_end=2.0)
    assert result.converged, result.failure
    loaded = result.at(3)                      # t = 1: the no-gap state
    assert loaded.pair("disc-on-flat").force[1] == pytest.approx(
        no_gap.pair("disc-on-flat").force[1], rel=1e-8)
    contact = result.contact("disc-on-flat")
    assert np.all(contact.status == fc.Status.OPEN)
    assert np.all(contact.pressure == 0.0)
    assert np.all(result.pair("disc-on-flat").force == 0.0)
    peak = np.abs(no_gap.reaction("flat")).max()
    assert np.abs(result.reaction("flat")).max() <= 1e-9 * peak
    # the disc hangs from its support: lifted rigidly by 0.5 PUSH
    u = result.body_displacement("disc")
    assert np.max(np.abs(u[1] - 0.5 * PUSH)) <= 1e-9 * PUSH
    assert np.max(np.abs(u[0])) <= 1e-9 * PUSH


def translated_block():
    """A block whose left edge is moved by (0.3, -0.1); its contact surface never touches."""
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 2, 9), np.linspace(0, 1, 5))
    mesh = mesh.with_boundaries({"bottom": lambda x: x[1] < 1e-9})
    block = fc.Body("block", mesh, "Q1", fc.LinearElastic(E=2.1e5, nu=0.3, plane="strain"))
    block.fix(lambda x: x[0] < 1e-9, x=0.3, y=-0.1, name="left")
    far = fc.Contact(block.surface("bottom"), fc.RigidLine(point=(0.0, -10.0), normal=(0.0, 1.0)))
    return fc.Model([block], [far])


def test_rigid_translation_of_a_free_body_converges_in_one_iteration():
    result = translated_block().solve(steps=1)
    assert result.converged, result.failure
    assert result.records[0].newton_iterations == 1
    u = result.body_displacement("block")
    assert np.max(np.abs(u - np.array([[0.3], [-0.1]]))) <= 1e-12
    # no force anywhere: the reaction is round-off of the stiffness times the motion
    assert np.abs(result.reaction("left")).max() <= 1e-12 * 2.1e5 * 0.3


def test_force_scale_is_the_physical_one_in_a_stressed_state(no_gap):
    """In a loaded state the rounding term is far below the forces: the test stays relative."""
    problem = no_gap.problem
    state = no_gap.state
    x = problem.unknowns(state)
    ev = problem.increment(state.t, state).evaluate(x)
    bound = RoundingBound.of(ev.K)(x[: ev.n_reduced])
    tolerance = NewtonOptions().tolerance
    assert force_scale(ev, bound, tolerance) == ev.force_scale
    assert bound / tolerance < 0.1 * ev.force_scale


# -- the same through a case file: the independent check of the final state ----------------

HERTZ = Path(__file__).resolve().parents[1] / "cases" / "hertz2d.toml"
COARSE = ["bodies.0.mesh.h_contact=0.004"]


@pytest.fixture(scope="module", params=["far obstacle", "lift-off"])
def untouched(request, tmp_path_factory):
    """hertz2d with its flat 100 below the disc, or its support moved up by 0.02: nothing touches."""
    override = ("contact.0.master.point=[0.0, -100.0]" if request.param == "far obstacle"
                else "bodies.0.dirichlet.0.value=0.02")
    return fc.run_case(HERTZ, tmp_path_factory.mktemp("untouched"), COARSE + [override])


def test_a_body_that_never_touches_is_converged_with_zero_contact_force(untouched):
    s = untouched.summary
    assert s["converged"], s.get("reason")
    check = s["check"]
    assert check["passed"] and check["equilibrium"] <= 1e-6
    assert check["gap"] == check["pressure"] == check["complementarity"] == check["friction"] == 0.0
    assert s["pairs"][0]["force"] == [0.0, 0.0]
    assert np.all(untouched.state.multiplier == 0.0)
    # the disc moved rigidly with its support: -0.02 down onto nothing, or 0.02 up
    u = untouched.state.u.reshape(-1, 2)
    moved = -0.02 if "-100" in s["overrides"][-1] else 0.02
    assert np.max(np.abs(u[:, 1] - moved)) <= 1e-9 * 0.02 and np.max(np.abs(u[:, 0])) <= 1e-9 * 0.02
    # Hertz needs a load: the reference is not compared, and says why
    assert s["metrics"] == {"not_compared": "the final state is outside the range of the hertz_line "
                                            "reference (P must be positive, got 0.0)"}


def test_the_check_of_a_stress_free_state_still_finds_an_unbalanced_node(untouched):
    """The absolute floor is round-off: one interior node moved by 1e-6 of the rigid motion
    (a force of about E * 2e-8) already fails the equilibrium measure."""
    problem, state = untouched.model.problem, untouched.state
    assert fc.residual_check(problem, state).passed
    X = problem.system.reference_coords()
    node = int(np.argmin(np.hypot(X[0], X[1] - 0.5)))       # inside the half-disc
    u = state.u.copy()
    u[2 * node + 1] += 1e-6 * 0.02
    check = fc.residual_check(problem, replace(state, u=u))
    assert not check.passed and check.equilibrium > 1e-3
    assert f"node {node} of body 'disc'" in check.where["equilibrium"]
