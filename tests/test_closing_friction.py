"""Friction of slave nodes that close inside an increment.

A node that is open at the start of an increment and closes in it transmits
friction in that increment: its slip is measured from its projection onto
the master at the start of the increment, and a sliding closing node lies on
the cone ``|lam_t| = mu lam_n``.  Checks: the generalised Jacobian at such
nodes against central finite differences of the residual; the converged
closing nodes on the cone; Spence's stick zone of a cylinder indented with
friction (the reference is the closed form, not the code).
"""

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import ellipk

from conftest import CASES
from fecontact.analysis.static import run_steps
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.friction import Status
from fecontact.solve.backends import DirectBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton

# hertz2d_friction, coarse: three increments, nodes close in each of them
COARSE = ["bodies.0.mesh.h_contact=0.01", "bodies.0.mesh.grading=1.3", "steps.count=3"]


def _coarse():
    model = build_model(load_case(CASES / "hertz2d_friction.toml", COARSE))
    problem = model.problem
    backend = DirectBackend(problem)
    records, state, _ = run_steps(problem, backend, model.levels[:1], model.newton, model.stepping)
    assert all(r.converged for r in records)
    return model, problem, backend, state


def test_jacobian_at_closing_nodes_with_friction_matches_finite_differences():
    """At an iterate of the second increment where nodes open at its start are closed and carry
    friction (stuck and sliding), J v equals the central difference of the residual."""
    model, problem, backend, state = _coarse()
    t = model.levels[1]
    increment = problem.increment(t, state)
    result = semismooth_newton(increment, backend, problem.unknowns(state),
                               NewtonOptions(max_iterations=1))
    x = result.unknowns
    ev = increment.evaluate(x, result.evaluation.kinematics.facet)
    status = ev.contact.status
    closing = (state.status == Status.OPEN) & (status != Status.OPEN)
    assert closing.sum() >= 2
    # the closing nodes transmit friction: a nonzero disk radius, some of them a nonzero traction
    assert np.all(ev.contact.friction.coefficient[closing] == 0.3)
    assert np.abs(ev.contact.friction.traction[closing]).max() > 0.0
    J = ev.jacobian()
    rng = np.random.default_rng(7)
    h = 1e-7 * max(1.0, np.abs(x).max())
    n = ev.n_reduced
    rows = n + np.flatnonzero(np.repeat(closing, problem.dim))
    for _ in range(3):
        v = rng.standard_normal(x.size)
        v[:n] *= 1e-3
        plus = increment.evaluate(x + h * v, ev.kinematics.facet, jacobian=False)
        minus = increment.evaluate(x - h * v, ev.kinematics.facet, jacobian=False)
        assert np.array_equal(plus.contact.status, status)
        assert np.array_equal(minus.contact.status, status)
        fd = (plus.residual - minus.residual) / (2 * h)
        Jv = J @ v
        assert np.linalg.norm(Jv - fd) / np.linalg.norm(fd) < 1e-6
        # the closing nodes' rows on their own
        assert np.linalg.norm(Jv[rows] - fd[rows]) <= 1e-6 * np.linalg.norm(fd[rows])


def test_converged_closing_nodes_slide_on_the_cone_or_stick_inside_it():
    """After the second increment every node that closed in it has |lam_t| <= mu lam_n, with
    equality (to the Newton tolerance) where it slides; sliding ones slip against lam_t."""
    model, problem, backend, state = _coarse()
    records, end, _ = run_steps(problem, backend, model.levels[1:2], model.newton, model.stepping,
                                state=state)
    assert all(r.converged for r in records)
    closing = (end.start.status == Status.OPEN) & (end.status != Status.OPEN)
    assert closing.sum() >= 2
    lam_n, lam_t = end.multiplier[closing, 0], end.multiplier[closing, 1]
    scale = 0.3 * end.multiplier[:, 0].max()
    assert np.all(np.abs(lam_t) <= 0.3 * lam_n + 1e-8 * scale)
    sliding = end.status[closing] == Status.SLIP
    assert sliding.any()
    np.testing.assert_allclose(np.abs(lam_t[sliding]), 0.3 * lam_n[sliding], atol=1e-8 * scale)


def spence_stick_ratio(mu: float, nu: float) -> float:
    """Spence's stick-zone ratio c/a of a cylinder pressed with friction into a half-space.

    ``K'(k) / K(k) = beta / mu`` with ``k = c/a``, ``beta = (1 - 2 nu) / (2 (1 - nu))``,
    ``K`` the complete elliptic integral of the first kind (parameter ``m = k^2``) and
    ``K'(k) = K(sqrt(1 - k^2))``.
    """
    beta = (1 - 2 * nu) / (2 * (1 - nu))
    return brentq(lambda k: ellipk(1 - k * k) / ellipk(k * k) - beta / mu, 1e-9, 1 - 1e-12)


def test_spence_ratio_reference_values():
    """The root: K'/K = 1 at k = 1/sqrt(2); mu = beta gives it."""
    assert spence_stick_ratio(mu=(1 - 2 * 0.3) / (2 * 0.7), nu=0.3) == pytest.approx(2 ** -0.5, abs=1e-9)
    assert 0.74 < spence_stick_ratio(0.3, 0.3) < 0.75


# hertz2d_friction at a small contact width: push 0.0008 (a/R = 0.018), element 0.0002 on the contact
SMALL = ["bodies.0.dirichlet.0.value=-0.0008", "bodies.0.mesh.h_contact=0.0002",
         "bodies.0.mesh.refine_width=0.04", "steps.count=20"]


def test_stick_zone_of_a_small_contact_matches_spence(tmp_path):
    """At a/R = 0.018 the half-disc acts as a half-space: c/a within 0.03 of Spence's 0.744
    (element 0.0002 = 0.011 a; 20 steps).  At the shipped a/R = 0.11 it is 0.88 (finite body,
    docs/friction/coulomb.md)."""
    from fecontact.run.static import run

    r = run(CASES / "hertz2d_friction.toml", tmp_path, SMALL, write_vtu_files=False)
    metrics = r.summary["metrics"]
    a, c = metrics["contact_half_width"]["value"], metrics["stick_half_width"]["value"]
    assert 0.015 < a < 0.025                      # R = 1
    assert abs(c / a - spence_stick_ratio(0.3, 0.3)) <= 0.03
