"""The assembled generalised Jacobian against central finite differences of the residual,
the two linear backends against each other, and Newton's local convergence rate."""

import numpy as np
import pytest

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.solve.backends import DirectBackend
from fecontact.solve.schur import SchurBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton
from fecontact.analysis.static import run_steps

COARSE = {
    "cattaneo2d": ["bodies.0.mesh.h_contact=0.1", "bodies.1.mesh.h_contact=0.1",
                   "bodies.0.mesh.grading=1.3", "bodies.1.mesh.grading=1.3",
                   "steps.levels=[0.5, 1.0, 1.5]"],
    "hertz2d_friction": ["bodies.0.mesh.h_contact=0.01", "bodies.0.mesh.grading=1.3",
                         "steps.count=2"],
}
# the same with segment-to-segment (mortar) contact
# (a larger initial overlap: the weighted gap of the coarse curved mesh is open at 1e-4; the
# upper disc shifted by a third of a contact element, so that no slave node sits above a master
# node: there the overlap of two segments starts or ends, and the weighted gap has a kink)
COARSE["cattaneo2d-mortar"] = COARSE["cattaneo2d"] + ['contact.0.formulation="mortar"',
                                                 "bodies.1.mesh.center=[0.033, 7.998]"]
# finite deformation: neo-Hookean bodies (total Lagrangian tangent, contact on the current
# configuration), and ironing at the onset of sliding after a 20 % press
NEO = ['bodies.0.material.model="neo_hookean"', 'bodies.1.material.model="neo_hookean"']
COARSE["cattaneo2d-neo"] = COARSE["cattaneo2d"] + NEO
COARSE["cattaneo2d-mortar-neo"] = COARSE["cattaneo2d-mortar"] + NEO
COARSE["ironing2d_neo_hookean"] = ["steps.levels=[0.25, 0.5, 0.75, 1.0, 1.04, 1.08]"]


def _model(name):
    return build_model(load_case(CASES / f"{name.split('-')[0]}.toml", COARSE[name]))


@pytest.mark.parametrize("name", list(COARSE))
def test_assembled_jacobian_matches_finite_differences(name):
    model = _model(name)
    problem = model.problem
    backend = DirectBackend(problem)
    records, state, _ = run_steps(problem, backend, model.levels[:-1], model.newton, model.stepping)
    assert all(r.converged for r in records)
    t = model.levels[-1]
    x = problem.unknowns(state)
    # a point off the solution with open, stick and slip nodes
    result = semismooth_newton(problem.increment(t, state), backend, x,
                               NewtonOptions(max_iterations=1))
    x = result.unknowns
    ev = problem.increment(t, state).evaluate(x, result.evaluation.kinematics.facet)
    status = ev.contact.status
    assert (status == 1).any() and (status == 2).any()
    J = ev.jacobian()
    rng = np.random.default_rng(1)
    h0 = 1e-7 * max(1.0, np.abs(x).max())
    for _ in range(3):
        v = rng.standard_normal(x.size)
        v[: ev.n_reduced] *= 1e-3            # displacements are small, tractions large
        # the residual is smooth only between the kinks of open/stick/slip: a node whose
        # status changes within the step h has a kink there, and the step is halved
        # until the segment [x - h v, x + h v] lies inside one smooth piece
        for h in h0 / 2.0 ** np.arange(6):
            plus = problem.increment(t, state).evaluate(x + h * v, ev.kinematics.facet,
                                                        jacobian=False)
            minus = problem.increment(t, state).evaluate(x - h * v, ev.kinematics.facet,
                                                         jacobian=False)
            if (np.array_equal(plus.contact.status, status)
                    and np.array_equal(minus.contact.status, status)):
                break
        assert np.array_equal(plus.contact.status, status)
        assert np.array_equal(minus.contact.status, status)
        assert np.array_equal(plus.kinematics.facet, ev.kinematics.facet)
        fd = (plus.residual - minus.residual) / (2 * h)
        err = np.linalg.norm(J @ v - fd) / np.linalg.norm(fd)
        assert err < 1e-6, (err, h / h0)


@pytest.mark.parametrize("name", ["hertz2d_friction"])
def test_schur_backend_gives_the_direct_newton_step(name):
    model = _model(name)
    problem = model.problem
    state = problem.initial_state()
    direct, schur = DirectBackend(problem), SchurBackend(problem)
    result = semismooth_newton(problem.increment(model.levels[0], state), direct,
                               problem.unknowns(state), NewtonOptions(max_iterations=2))
    hint = result.evaluation.kinematics.facet
    ev = problem.increment(model.levels[0], state).evaluate(result.unknowns, hint)
    assert (ev.contact.status != 0).any()
    a, b = direct.solve(ev), schur.solve(ev)
    np.testing.assert_allclose(b, a, rtol=1e-8, atol=1e-10 * np.abs(a).max())


def test_newton_converges_superlinearly():
    """Once the active set settles, residual ratios r_{k+1}/r_k go to zero."""
    model = build_model(load_case(CASES / "hertz2d.toml",
                                  ["bodies.0.mesh.h_contact=0.004", "steps.count=1"]))
    problem = model.problem
    backend = SchurBackend(problem)
    state = problem.initial_state()
    result = semismooth_newton(problem.increment(1.0, state), backend, problem.unknowns(state),
                               NewtonOptions(tolerance=1e-13, max_iterations=30))
    assert result.converged
    res = [max(h.equilibrium, h.complementarity) for h in result.history]
    settled = [i for i, h in enumerate(result.history) if h.changed == 0 and i > 0]
    assert settled, "active set never settled"
    k = settled[0]
    # the iterate after the active set settles is converged to round-off
    assert res[k] < 1e-12 or res[k] / res[k - 1] < 1e-6
