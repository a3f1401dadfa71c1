"""The multigrid preconditioner of the constrained Krylov solve: its prolongation truncated at the constraints.

The truncation algebra (the coarse operator's change, ``F P_t = 0``) on a
small random matrix; the cycle put back exactly; and on a Hertz contact
Newton system the truncated cycle taking fewer GMRES iterations than the
former one (the penalty carried to every level), to the same step.
"""

import numpy as np
import scipy.sparse as sp

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.solve.amg import AMG, replace_rows, rigid_body_modes, truncation
from fecontact.solve.backends import DirectBackend
from fecontact.solve.krylov import projected_solve
from fecontact.solve.newton import NewtonOptions, semismooth_newton
from fecontact.solve.projected import engaged_system


def _spd(n, seed):
    A = sp.random(n, n, density=0.1, random_state=seed)
    return (A @ A.T + n * sp.eye(n)).tocsr()


def test_truncation_gives_the_galerkin_change_and_leaves_the_constrained_components_alone():
    n, m = 40, 9
    K = _spd(n, 1)
    rng = np.random.default_rng(1)
    P = sp.csr_matrix(rng.standard_normal((n, m)) * (rng.random((n, m)) < 0.5))
    # disjoint rows (orthogonal projection) and rows sharing DOFs (the DOFs dropped)
    disjoint = sp.csr_matrix(([1.0, -2.0, 0.5, 3.0], ([0, 0, 1, 2], [3, 4, 7, 11])), shape=(3, n))
    shared = sp.csr_matrix(([1.0, 1.0, 1.0, 1.0], ([0, 0, 1, 1], [3, 4, 4, 9])), shape=(2, n))
    for F in (disjoint, shared):
        (rows, new), delta = truncation(K, P, F)
        Pt = P.tolil()
        Pt[rows] = new.toarray()
        Pt = sp.csr_matrix(Pt)
        np.testing.assert_allclose(abs(F @ Pt).max() if F is disjoint else abs(Pt[rows]).max(), 0,
                                   atol=1e-13)
        expected = (Pt.T @ K @ Pt - P.T @ K @ P).toarray()
        np.testing.assert_allclose(delta.toarray(), expected, atol=1e-11 * abs(expected).max())
    # untouched DOFs keep their rows
    (rows, _), _ = truncation(K, P, disjoint)
    np.testing.assert_array_equal(rows, [3, 4, 7, 11])


def test_rows_are_replaced_in_place_and_put_back():
    P = sp.csr_matrix(np.arange(1.0, 21.0).reshape(5, 4))
    original = P.data.copy()
    new = sp.csr_matrix(np.array([[0.0, 7.0, 0.0, 1.0], [2.0, 0.0, 0.0, 0.0]]))
    positions, old = replace_rows(P, np.array([1, 3]), new)
    np.testing.assert_array_equal(P.toarray()[[1, 3]], new.toarray())
    np.testing.assert_array_equal(P.toarray()[[0, 2, 4]], original.reshape(5, 4)[[0, 2, 4]])
    P.data[positions] = old
    np.testing.assert_array_equal(P.data, original)


def _hertz_newton_system():
    """The Newton system of coarse 2D Hertz contact after three direct Newton steps (63 closed nodes)."""
    model = build_model(load_case(CASES / "hertz2d.toml", [
        "bodies.0.mesh.h_contact=0.004", "bodies.0.mesh.h_far=0.16", "steps.count=1"]))
    problem = model.problem
    t, state = model.levels[0], problem.initial_state()
    result = semismooth_newton(problem.increment(t, state), DirectBackend(problem),
                               problem.unknowns(state), NewtonOptions(max_iterations=3))
    ev = problem.increment(t, state).evaluate(result.unknowns, result.evaluation.kinematics.facet)
    return problem, engaged_system(ev)[0]


def test_truncated_multigrid_takes_fewer_gmres_iterations_to_the_same_step():
    problem, blocks = _hertz_newton_system()
    K = problem.system.K_hat.tocsr()
    amg = AMG(K, rigid_body_modes(problem.system))
    base = amg(np.ones(K.shape[0]))
    atol = 1e-10 * np.linalg.norm(blocks[4])
    steps, iterations = {}, {}
    for truncate in (False, True):
        class Cycle:
            def constrained(self, F, truncate=truncate):
                return amg.constrained(F, truncate=truncate)

            def __call__(self, r):
                return amg(r)

        du, dl, report = projected_solve(lambda x: K @ x, *blocks, Cycle(), atol)
        assert report.converged and report.residual <= 1.01 * atol
        steps[truncate], iterations[truncate] = np.concatenate([du, dl]), report.iterations
    assert (iterations[False], iterations[True]) == (22, 21)
    # both meet the residual 1e-10 |b1|: the steps agree to that times a modest condition number
    np.testing.assert_allclose(steps[True], steps[False], rtol=0,
                               atol=1e-8 * np.abs(steps[False]).max())
    # without constraints the cycle of K again (the prolongation's values put back)
    restored = amg.constrained(sp.csr_matrix((0, K.shape[0])))(np.ones(K.shape[0]))
    np.testing.assert_allclose(restored, base, rtol=1e-12, atol=1e-14 * np.abs(base).max())
