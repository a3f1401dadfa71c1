"""The assembled generalised Jacobian of mortar contact on quadrilateral facets against central
finite differences of the residual (as tests/test_jacobian.py): Coulomb friction between
perturbed hexahedra on hexahedra and tetrahedra, off the solution."""

import pytest
import skfem

import fecontact as fc
from fecontact.analysis.static import SteppingOptions, run_steps
from fecontact.solve.backends import DirectBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton

from conftest import assert_jacobian_matches_differences
from test_mortar_quad_patch import _box


def _model(lower, friction):
    material = fc.LinearElastic(E=1e3, nu=0.3)
    lo = fc.Body("lower", lower, "Q1" if isinstance(lower, skfem.MeshHex) else "P1", material)
    up = fc.Body("upper", _box("hex", 3, 1.0, 0.25, 4), "Q1", material)
    lo.fix("bottom", x=0.0, y=0.0, z=0.0)
    # pressed and sheared through the top, tilted so that the stick, slip and open states mix
    up.fix("top", x=0.004, y=0.001, z=-0.01)
    pair = fc.Contact(up.surface("bottom"), lo.surface("top"), friction, formulation="mortar")
    return fc.Model([lo, up], [pair])


#: Coulomb friction on a quadrilateral master: the assembled Jacobian differs from the finite
#: differences (relative 0.7) while the kinematic rows' gap and slip derivatives match theirs
#: to 1e-9 (the start-of-increment tangents held): the cause lies past the rows, not located yet
_COULOMB_HEX = pytest.mark.xfail(strict=True, reason="Coulomb friction on a quadrilateral master: "
                                 "assembled Jacobian off the finite differences")


@pytest.mark.slow
@pytest.mark.parametrize("lower, friction", [
    (_box("hex", 2, 0.0, 0.25, 3), fc.Frictionless()),
    (_box("tet", 2, 0.0), fc.Frictionless()),
    (_box("tet", 2, 0.0), fc.Coulomb(0.3)),
    pytest.param(_box("hex", 2, 0.0, 0.25, 3), fc.Coulomb(0.3), marks=_COULOMB_HEX)],
    ids=["hex-frictionless", "tet-frictionless", "tet-coulomb", "hex-coulomb"])
def test_assembled_jacobian_matches_finite_differences(lower, friction):
    problem = _model(lower, friction).assemble().problem
    backend = DirectBackend(problem)
    records, state, _ = run_steps(problem, backend, [0.5], NewtonOptions(), SteppingOptions())
    assert all(r.converged for r in records)
    t = 1.0
    x = problem.unknowns(state)
    result = semismooth_newton(problem.increment(t, state), backend, x, NewtonOptions(max_iterations=1))
    x = result.unknowns
    ev = problem.increment(t, state).evaluate(x, result.evaluation.kinematics.facet)
    assert (ev.contact.status != 0).any()
    assert_jacobian_matches_differences(problem, t, state, x, ev, trials=2)
