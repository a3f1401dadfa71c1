"""3D: the assembled generalised Jacobian against central finite differences of the
residual (rigid plane with friction; two deformable bodies node-to-facet with friction;
linear and quadratic slave surfaces),
and the factorised-stiffness backend against the direct one on a body held only by contact."""

import numpy as np
import pytest

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.solve.backends import DirectBackend, make_backend
from fecontact.solve.schur import SchurBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton

TWO_SPHERES = """
name = "two-spheres"
[[bodies]]
name = "lower"
element = "P1"
mesh = { generator = "hemisphere", radius = 1.0, center = [0.0, 0.0, -1.0], side = "upper", h_contact = 0.04, h_far = 0.3, refine_width = 0.2 }
material = { E = 1.0e4, nu = 0.3 }
[[bodies.dirichlet]]
boundary = "flat"
value = 0.0
[[bodies]]
name = "upper"
element = "P1"
mesh = { generator = "hemisphere", radius = 1.0, center = [0.0031, 0.0017, 0.9999], side = "lower", h_contact = 0.035, h_far = 0.3, refine_width = 0.2 }
material = { E = 1.0e4, nu = 0.3 }
[[bodies.dirichlet]]
boundary = "flat"
component = "y"
value = 0.0
[[bodies.coupling]]
boundary = "flat"
component = "z"
force = -25.0
[[bodies.coupling]]
boundary = "flat"
component = "x"
force = 0.0
[[contact]]
slave = { body = "upper", boundary = "contact" }
master = { body = "lower", boundary = "contact" }
friction = { law = "coulomb", mu = 0.3 }
[steps]
count = 1
"""

HERTZ3D_FRICTION = ["bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3",
                    "contact.0.friction.law=\"coulomb\"", "contact.0.friction.mu=0.3",
                    "bodies.0.dirichlet.0.value=-0.03"]


def _models(case_file):
    yield "hertz3d-friction", build_model(load_case(CASES / "hertz3d.toml", HERTZ3D_FRICTION))
    yield "two-spheres", build_model(load_case(case_file(TWO_SPHERES)))
    # quadratic slave surface: vertex multipliers with weighted gaps and slips
    coarse = [f"bodies.{b}.mesh.{k}={v}" for b in (0, 1) for k, v in (("h_far", 0.6), ("refine_width", 0.1))]
    yield "two-spheres-P2-slave", build_model(load_case(case_file(TWO_SPHERES),
                                                        ['bodies.1.element="P2"'] + coarse))
    yield "hertz3d-friction-P2", build_model(load_case(CASES / "hertz3d.toml", HERTZ3D_FRICTION
                                                       + ['bodies.0.element="P2"', "bodies.0.mesh.h_contact=0.06"]
                                                       + coarse[:2]))


@pytest.mark.slow
def test_jacobian_matches_finite_differences_3d(case_file):
    for name, model in _models(case_file):
        problem = model.problem
        state = problem.initial_state()
        # a direct factorisation of the quadratic hemisphere takes long; it is held by supports
        backend = make_backend("amg", problem) if name == "hertz3d-friction-P2" else DirectBackend(problem)
        t = model.levels[-1]
        # the start the stepping layer takes: touching nodes seeded with a small pressure
        start = problem.seed_touching(problem.unknowns(state), state)
        result = semismooth_newton(problem.increment(t, state), backend, start,
                                   NewtonOptions(max_iterations=2))
        x = result.unknowns
        ev = problem.increment(t, state).evaluate(x, result.evaluation.kinematics.facet)
        assert (ev.contact.status != 0).any(), name
        J = ev.jacobian()
        rng = np.random.default_rng(3)
        h = 1e-7 * max(1.0, np.abs(x).max())
        n = ev.n_reduced
        for part in ("u", "lam"):
            v = rng.standard_normal(x.size)
            if part == "u":
                v[n:] = 0.0
                v[:n] *= 1e-3
            else:
                v[:n] = 0.0
            plus = problem.increment(t, state).evaluate(x + h * v, ev.kinematics.facet, jacobian=False)
            minus = problem.increment(t, state).evaluate(x - h * v, ev.kinematics.facet, jacobian=False)
            assert np.array_equal(plus.contact.status, ev.contact.status), name
            assert np.array_equal(plus.kinematics.facet, ev.kinematics.facet), name
            fd = (plus.residual - minus.residual) / (2 * h)
            err = np.linalg.norm(J @ v - fd) / np.linalg.norm(fd)
            assert err < 1e-6, (name, part, err)


def test_two_spheres_newton_converges_and_schur_matches_direct(case_file):
    model = build_model(load_case(case_file(TWO_SPHERES)))
    problem = model.problem
    assert problem.system.free_modes().shape[1] == 2       # upper body: x and z translation
    state = problem.initial_state()
    schur, direct = SchurBackend(problem), DirectBackend(problem)
    result = semismooth_newton(problem.increment(0.5, state), schur, problem.unknowns(state),
                               NewtonOptions(tolerance=1e-10, max_iterations=15))
    assert result.converged
    hint = result.evaluation.kinematics.facet
    ev = problem.increment(0.5, state).evaluate(result.unknowns, hint)
    a, b = direct.solve(ev), schur.solve(ev)
    np.testing.assert_allclose(b, a, rtol=1e-7, atol=1e-9 * np.abs(a).max() + 1e-300)
