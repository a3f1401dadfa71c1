"""The PFC solvers on kinds of problems the finite-element export never makes.

Each problem is manufactured from a solution that satisfies the contact laws
by construction (:mod:`fecontact.pfc.manufactured`), so the exact ``(v*, r*,
u*)`` is known independently of the solvers.  Where ``H`` is rank-deficient
the reactions are not unique: ``v``, ``u`` and ``H r`` are compared instead,
and ``r`` is checked to lie in its cones.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fecontact.pfc.delassus import DelassusBackend, DelassusCache
from fecontact.pfc.manufactured import kinds, manufactured, random_spd, rescale, scaled_pair
from fecontact.pfc.nsgs import solve_nsgs
from fecontact.pfc.problem import findings, project_on_cone
from fecontact.pfc.ssn import NewtonView, solve_ssn
from fecontact.solve.factor import LU, SupernodalCholesky

SOLVERS = [solve_ssn, solve_nsgs]
#: most semismooth Newton iterations allowed on these small problems
NEWTON_BOUND = 12
KINDS = kinds()


def _relative(a, b, scale=0.0):
    """``||a - b||`` relative to ``max(||b||, scale)`` (``scale`` for a reference that vanishes)."""
    return float(np.linalg.norm(np.asarray(a) - b) / max(np.linalg.norm(b), scale, 1e-300))


def _admissible(problem, r, tol=1e-9):
    R = r.reshape(-1, problem.d)
    scale = max(np.abs(R).max(), 1e-300)
    return float(np.abs(R - project_on_cone(R, problem.mu)).max()) <= tol * scale


def _check(solution, problem, v, r, u, unique_r=True, tolerance=1e-10):
    assert solution.converged, solution.reason
    res = solution.residuals
    assert max(res.equilibrium, res.natural_map, res.complementarity) <= tolerance, res
    # the residuals the solution carries are those of what it returns
    assert problem.residuals(solution.v, solution.r, solution.u) == res
    # a box at rest has v* = 0: velocities are measured against the load's free velocity M^-1 q
    free = np.linalg.solve(problem.M.toarray(), problem.q)
    assert _relative(solution.v, v, np.linalg.norm(free)) <= 1e-7
    assert _relative(solution.u, u, problem.velocity_scale) <= 1e-7
    if unique_r:
        assert _relative(solution.r, r) <= 1e-7
    else:
        assert _relative(problem.H @ solution.r, problem.H @ r) <= 1e-7
        assert _admissible(problem, solution.r)


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("solve", SOLVERS)
def test_each_kind_is_solved_to_its_manufactured_solution(solve, name):
    case = KINDS[name]
    problem = case.problem
    solution = solve(problem)
    _check(solution, problem, case.v, case.r, case.u, unique_r=case.unique_r)
    if solve is solve_ssn:
        assert solution.iterations <= NEWTON_BOUND, solution.iterations
    if "box" in name:                              # more contact rows than the box has motions
        assert np.linalg.matrix_rank(problem.H.toarray()) < problem.H.shape[1]


@pytest.mark.parametrize("d", [2, 3])
def test_non_symmetric_M_is_reported_and_factorised_by_LU(d):
    problem = KINDS[f"non-symmetric M, {d}D"].problem
    assert not problem.symmetric
    notes = findings(problem)
    assert len(notes) == 1 and "M is not symmetric" in notes[0] and "LU" in notes[0]
    assert solve_ssn(problem).solver == "ssn (delassus)"
    assert isinstance(DelassusBackend(NewtonView(problem)).factor, LU)


def test_symmetric_M_has_no_findings():
    problem = KINDS["scaled over 8 orders, 3D"].problem
    assert problem.symmetric and findings(problem) == []


@pytest.mark.parametrize("d", [2, 3])
def test_rescaling_over_eight_orders_costs_newton_few_iterations(d):
    """``M' = D M D``, ``H' = D H S`` with DOF and contact scales over 1e-4..1e4."""
    base, D, S = scaled_pair(d)
    plain, scaled = solve_ssn(base.problem), solve_ssn(rescale(base, D, S).problem)
    assert plain.converged and scaled.converged
    assert scaled.iterations <= plain.iterations + 3


# -- no false successes ----------------------------------------------------------------------------

@pytest.mark.parametrize("solve, limit", [(solve_ssn, {"max_iterations": 1}),
                                          (solve_nsgs, {"max_sweeps": 1})])
def test_a_stopped_solver_does_not_say_converged(solve, limit):
    rng = np.random.default_rng(29)
    n, d = 12, 3
    M = sp.csc_matrix(random_spd(rng, n))
    H = sp.csc_matrix(rng.normal(size=(n, 3 * d)))
    problem = manufactured(M, H, [0.3, 0.3, 0.3], d, ["slide", "slide", "stick"], rng).problem
    solution = solve(problem, **limit)
    assert not solution.converged
    res = problem.residuals(solution.v, solution.r, solution.u)
    assert max(res.equilibrium, res.natural_map, res.complementarity) > 1e-10
    assert "equilibrium" in solution.reason and "complementarity" in solution.reason


def test_gfc3d_error_is_siconos_definition():
    """``gfc3d_error`` of a perturbed solution, from its definition written out here."""
    rng = np.random.default_rng(31)
    n, d = 9, 3
    M = sp.csc_matrix(random_spd(rng, n))
    H = sp.csc_matrix(rng.normal(size=(n, 2 * d)))
    case = manufactured(M, H, [0.2, 0.6], d, ["slide", "stick"], rng)
    problem = case.problem
    v = case.v + 1e-3 * rng.normal(size=n)
    r = case.r + 1e-3 * rng.normal(size=case.r.size)
    u = problem.H.T @ v + problem.b
    balance = np.linalg.norm(problem.q + H @ r - M @ v) / max(
        np.linalg.norm(problem.q), np.linalg.norm(M @ v), np.linalg.norm(H @ r))
    F = []
    for i in range(2):
        ri, ui = r[3 * i:3 * i + 3], u[3 * i:3 * i + 3]
        hat = ui + np.array([problem.mu[i] * np.linalg.norm(ui[1:]), 0.0, 0.0])
        x = ri - hat                                     # projected on the cone by hand
        nt, mu = np.linalg.norm(x[1:]), problem.mu[i]
        if nt <= mu * x[0]:
            p = x
        elif mu * nt <= -x[0]:
            p = np.zeros(3)
        else:
            a = (x[0] + mu * nt) / (1 + mu * mu)
            p = np.concatenate([[a], mu * a * x[1:] / nt])
        F.append(ri - p)
    complementarity = np.linalg.norm(np.concatenate(F)) / max(np.linalg.norm(u), np.linalg.norm(r))
    res = problem.residuals(v, r)
    assert res.gfc3d_error == pytest.approx(balance + complementarity, rel=1e-12)
    assert res.natural_map == pytest.approx(complementarity, rel=1e-12)
    assert res.equilibrium == pytest.approx(balance, rel=1e-12)


@pytest.mark.parametrize("name", ["non-symmetric M, 3D", "box sliding, 3D, 4 points",
                                  "scaled over 8 orders, 2D", "10 contacts on 6 unknowns, 3D"])
def test_delassus_step_is_the_newton_step(name):
    """The step through the engaged rows' Delassus operator solves the whole Jacobian's system."""
    problem = KINDS[name].problem
    view = NewtonView(problem)
    rng = np.random.default_rng(41)
    case = KINDS[name]
    x = np.concatenate([case.v, case.r]) + 0.1 * rng.normal(size=problem.n + problem.b.size)
    ev = view.evaluate(x)
    step = DelassusBackend(view).solve(ev)
    reference = sp.linalg.spsolve(ev.jacobian().tocsc(), -ev.residual)
    np.testing.assert_allclose(step, reference, rtol=1e-8, atol=1e-10 * np.abs(reference).max())


def test_half_solves_give_the_compliance_of_sparse_columns():
    """``B1^T K^-1 B2 = Z1^T Z2`` with ``Z = L^-1 P B``, against a dense solve (dense and sparse rows mixed)."""
    rng = np.random.default_rng(5)
    A = sp.random(400, 400, density=0.01, random_state=6)
    K = (A @ A.T + sp.identity(400) * 2.0).tocsc()
    B1 = sp.random(400, 9, density=0.02, random_state=7).tocsc()
    B2 = sp.random(400, 4, density=0.02, random_state=8).tocsc()
    factor = SupernodalCholesky(K)
    reference = B1.T @ np.linalg.solve(K.toarray(), B2.toarray())
    Z1, Z2 = factor.half_solve(B1), factor.half_solve(B2)
    for fraction in (0.0, 0.05, 2.0):           # all rows dense, mixed, all sparse
        np.testing.assert_allclose(SupernodalCholesky.inner(Z1, Z2, fraction), reference,
                                   rtol=1e-10, atol=1e-12 * np.abs(reference).max())
    b = rng.normal(size=(400, 3))
    np.testing.assert_allclose(K @ factor.solve(b), b, atol=1e-10)
    np.testing.assert_allclose(K @ factor.solve(b[:, 0]), b[:, 0], atol=1e-10)
    with pytest.raises(RuntimeError, match="not positive definite"):
        SupernodalCholesky(sp.diags([1.0, -1.0, 2.0]).tocsc())


@pytest.mark.parametrize("name", ["non-symmetric M, 3D", "10 contacts on 6 unknowns, 3D",
                                  "scaled over 8 orders, 2D"])
def test_delassus_cache_grows_to_the_dense_delassus_operator(name):
    """Blocks of ``W = H^T M^-1 H`` asked for in pieces (rows met before and new) equal the dense ``W``."""
    problem = KINDS[name].problem
    W = problem.H.T @ np.linalg.solve(problem.M.toarray(), problem.H.toarray())
    cache = DelassusCache(problem.M, problem.H, problem.symmetric)
    assert isinstance(cache.factor, SupernodalCholesky if problem.symmetric else LU)
    m = problem.H.shape[1]
    rng = np.random.default_rng(9)
    for _ in range(3):
        rows = np.sort(rng.choice(m, size=max(m // 3, 1), replace=False))
        cols = np.sort(rng.choice(m, size=max(m // 4, 1), replace=False))
        np.testing.assert_allclose(cache.block(rows, cols), W[np.ix_(rows, cols)],
                                   rtol=1e-9, atol=1e-12 * np.abs(W).max())
    assert cache.rows.size <= m


@pytest.mark.parametrize("name", ["non-symmetric M, 2D", "box sliding, 3D, 9 points",
                                  "scaled over 8 orders, 3D"])
def test_compiled_stopping_test_computes_the_reported_residuals(name):
    from fecontact.pfc.sweep import contact_errors

    case = KINDS[name]
    problem = case.problem
    rng = np.random.default_rng(43)
    for r, u in ((case.r, case.u), (case.r + rng.normal(size=case.r.size),
                                    case.u + rng.normal(size=case.u.size))):
        compiled = contact_errors(r, u, problem.mu, problem.d, problem.velocity_scale)
        np.testing.assert_allclose(compiled, problem.contact_residuals(r, u), rtol=1e-10,
                                   atol=1e-15)
