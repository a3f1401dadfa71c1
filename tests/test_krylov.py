"""The projected Krylov solve and the Krylov backends.

The projected GMRES against a dense solve of the same block system; the
Newton step of the ``amg`` and ``factorization`` backends against the direct
backend's on frictional problems (sliding rows, a deformable master) and a
frictionless 3D one; whole runs against the ``schur`` backend."""

import sys

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.solve.krylov import gmres, projected_solve
from fecontact.solve.amg import AMG, rigid_body_modes
from fecontact.solve.backends import BACKENDS, DirectBackend, LinearBackend, make_backend
from fecontact.solve.projected import SETTLED, KrylovBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton
from fecontact.run.static import run
from fecontact.analysis.static import run_steps


def _block_problem(seed, n=80, n_constraints=6, n_sliding=4, symmetric=False):
    """A random SPD K, a small D, constraint rows (G = 0) and sliding rows (G != 0)."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=0.08, random_state=seed)
    K = (A @ A.T + n * sp.eye(n)).tocsr()
    support = rng.choice(n, 12, replace=False)
    Dd = np.zeros((n, n))
    Dd[np.ix_(support, support)] = 0.3 * rng.standard_normal((12, 12))
    if symmetric:
        Dd = Dd + Dd.T
    e = n_constraints + n_sliding
    F = np.zeros((e, n))
    for r in range(e):
        F[r, rng.choice(n, 3, replace=False)] = rng.standard_normal(3)
    E = -F.T.copy() if symmetric else -F.T + 0.1 * (rng.random((n, e)) < 0.05) * rng.standard_normal((n, e))
    G = np.zeros((e, e))
    s = np.arange(n_constraints, e)
    G[np.ix_(s, s)] = np.eye(n_sliding) + 0.2 * rng.standard_normal((n_sliding, n_sliding))
    if n_constraints:
        G[s, rng.integers(0, n_constraints, n_sliding)] = rng.standard_normal(n_sliding)
    b1, b2 = rng.standard_normal(n), rng.standard_normal(e)
    return K, sp.csr_matrix(Dd), sp.csr_matrix(E), sp.csr_matrix(F), sp.csr_matrix(G), b1, b2


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("preconditioner", ["exact", "jacobi"])
def test_projected_solve_matches_a_dense_solve(symmetric, preconditioner):
    K, D, E, F, G, b1, b2 = _block_problem(3, symmetric=symmetric)
    full = np.block([[K.toarray() + D.toarray(), E.toarray()], [F.toarray(), G.toarray()]])
    exact = la.solve(full, np.concatenate([b1, b2]))
    if preconditioner == "exact":
        Kinv = la.inv(K.toarray())
        precondition = lambda r: Kinv @ r                                   # noqa: E731
    else:
        precondition = lambda r: r / K.diagonal()                           # noqa: E731
    atol = 1e-12 * np.linalg.norm(b1)
    du, dl, report = projected_solve(lambda x: K @ x, D, E, F, G, b1, b2, precondition, atol)
    assert report.converged and report.residual <= 1.01 * atol
    n = K.shape[0]
    np.testing.assert_allclose(du, exact[:n], rtol=0, atol=1e-9 * np.abs(exact[:n]).max())
    np.testing.assert_allclose(dl, exact[n:], rtol=0, atol=1e-9 * np.abs(exact[n:]).max())
    # the constraint rows hold to round-off, whatever the Krylov tolerance
    loose, dl2, _ = projected_solve(lambda x: K @ x, D, E, F, G, b1, b2, precondition,
                                    0.1 * np.linalg.norm(b1))
    c = slice(0, 6)
    np.testing.assert_allclose((F @ loose)[c], b2[c], atol=1e-10 * np.abs(b2).max())


def test_projected_solve_with_sliding_rows_only():
    """No constraint row: nothing to project, the sliding rows are substituted."""
    K, D, E, F, G, b1, b2 = _block_problem(7, n_constraints=0, n_sliding=4)
    full = np.block([[K.toarray() + D.toarray(), E.toarray()], [F.toarray(), G.toarray()]])
    exact = la.solve(full, np.concatenate([b1, b2]))
    Kinv = la.inv(K.toarray())
    du, dl, report = projected_solve(lambda x: K @ x, D, E, F, G, b1, b2, lambda r: Kinv @ r,
                                     1e-12 * np.linalg.norm(b1))
    assert report.converged
    n = K.shape[0]
    np.testing.assert_allclose(du, exact[:n], rtol=0, atol=1e-9 * np.abs(exact[:n]).max())
    np.testing.assert_allclose(dl, exact[n:], rtol=0, atol=1e-9 * np.abs(exact[n:]).max())


def test_gmres_meets_its_absolute_tolerance_on_the_true_residual():
    K, *_ = _block_problem(5)
    b = np.random.default_rng(0).standard_normal(K.shape[0])
    for atol in (1e-2, 1e-8):
        x, iterations, ok = gmres(lambda v: K @ v, b, lambda r: r / K.diagonal(), atol, 500)
        assert ok and iterations > 0
        assert np.linalg.norm(b - K @ x) <= 1.01 * atol



def _minimal_residual(A, Minv, b, k):
    """min |b - A Minv V y| over the k-dimensional Krylov space of A Minv from b, densely."""
    AM = A @ Minv
    V = np.empty((b.size, k))
    v = b / np.linalg.norm(b)
    for j in range(k):                  # an orthonormal basis of K_k(A M^{-1}, b)
        V[:, j] = v
        w = AM @ v
        w -= V[:, :j + 1] @ (V[:, :j + 1].T @ w)
        w -= V[:, :j + 1] @ (V[:, :j + 1].T @ w)
        v = w / np.linalg.norm(w)
    y = np.linalg.lstsq(AM @ V, b, rcond=None)[0]
    return np.linalg.norm(b - AM @ V @ y)


def test_gmres_iterates_minimise_the_residual_over_the_preconditioned_krylov_space():
    # a non-symmetric, indefinite matrix and a non-symmetric preconditioner: after k
    # preconditioner applications the residual is the least one over K_k(A M^{-1}, b)
    rng = np.random.default_rng(3)
    n = 40
    A = np.diag(np.linspace(-3.0, 5.0, n)) + 0.3 * rng.standard_normal((n, n))
    Minv = np.linalg.inv(np.triu(A) + 2.0 * np.eye(n))
    b = rng.standard_normal(n)
    calls = {"apply": 0, "precondition": 0}

    def apply(v):
        calls["apply"] += 1
        return A @ v

    def precondition(r):
        calls["precondition"] += 1
        return Minv @ r

    for k in (1, 4, 9):
        calls.update(apply=0, precondition=0)
        x, iterations, ok = gmres(apply, b, precondition, 0.0, k)
        assert iterations == k and not ok
        # no application is spent on the zero start or on mapping the solution back
        assert calls == {"apply": k, "precondition": k}
        np.testing.assert_allclose(np.linalg.norm(b - A @ x), _minimal_residual(A, Minv, b, k),
                                   rtol=1e-8)


def test_restarted_gmres_reaches_the_tolerance_on_the_true_residual():
    rng = np.random.default_rng(4)
    n = 60
    A = np.diag(np.linspace(1.0, 50.0, n)) + 0.5 * rng.standard_normal((n, n))
    b = rng.standard_normal(n)
    atol = 1e-10 * np.linalg.norm(b)
    x, iterations, ok = gmres(lambda v: A @ v, b, lambda r: r / np.diag(A), atol, 2000, restart=5)
    assert ok and iterations > 5                # it had to restart
    assert np.linalg.norm(b - A @ x) <= 1.01 * atol
    x0, iterations0, ok0 = gmres(lambda v: A @ v, np.zeros(n), lambda r: r, atol, 10)
    assert ok0 and iterations0 == 0 and not x0.any()


COARSE = {
    "hertz3d": ["bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3"],
    "hertz2d_friction": ["bodies.0.mesh.h_contact=0.01", "bodies.0.mesh.grading=1.3",
                         "steps.count=2"],
    # a deformable master (node-to-segment, geometric stiffness D), Coulomb friction
    "ironing2d": ["bodies.0.mesh.nx=40", "bodies.0.mesh.ny=6", "bodies.1.mesh.h_contact=0.1"],
}


def _model(name, extra=()):
    return build_model(load_case(CASES / f"{name}.toml", COARSE[name] + list(extra)))


@pytest.mark.parametrize("preconditioner", ["amg", "factorization"])
@pytest.mark.parametrize("name", list(COARSE))
def test_krylov_newton_step_equals_the_direct_one(name, preconditioner):
    """With no inexactness allowed (eta = 0, tiny tolerance) the projected GMRES step is the exact step,
    at an iterate with open, closed and (with friction) sliding nodes."""
    model = _model(name)
    problem = model.problem
    direct = DirectBackend(problem)
    # ironing: into the sliding phase first
    start = 100 if name == "ironing2d" else 0
    records, state, _ = run_steps(problem, direct, model.levels[:start], model.newton, model.stepping)
    assert all(r.converged for r in records)
    t = model.levels[start]
    result = semismooth_newton(problem.increment(t, state), direct, problem.unknowns(state),
                               NewtonOptions(max_iterations=2))
    ev = problem.increment(t, state).evaluate(result.unknowns, result.evaluation.kinematics.facet)
    status = ev.contact.status
    assert (status != 0).any() and (status == 0).any()
    if name != "hertz3d":
        assert (status == 2).any(), "no sliding node at the test iterate"
    if name == "ironing2d":
        assert ev.D.nnz > 0, "no geometric stiffness at the test iterate"
    krylov = KrylovBackend(problem, preconditioner=preconditioner, tolerance=1e-11, eta_max=0.0)
    a, b = direct.solve(ev), krylov.solve(ev)
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-7 * np.abs(a).max())
    assert krylov.iterations > 0


def test_constrained_multigrid_cycle_is_restored_without_constraints():
    model = _model("hertz3d")
    sysm = model.problem.system
    amg = AMG(sysm.K_hat, rigid_body_modes(sysm))
    r = np.random.default_rng(2).standard_normal(sysm.n_reduced)
    before = amg(r)
    rows = model.problem.contact_dofs[:20]
    F = sp.csr_matrix((np.ones(rows.size), (np.arange(rows.size), rows)),
                      shape=(rows.size, sysm.n_reduced))
    changed = amg.constrained(F)(r)
    assert np.linalg.norm(changed - before) > 1e-6 * np.linalg.norm(before)
    restored = amg.constrained(sp.csr_matrix((0, sysm.n_reduced)))(r)
    np.testing.assert_allclose(restored, before, rtol=1e-12, atol=1e-14 * np.abs(before).max())


def test_constrained_multigrid_updates_the_finest_operator_in_place_and_undoes_it():
    # unit constraint rows e_i: the penalty is PENALTY_PRECONDITIONER * K_ii on each row's
    # diagonal entry, added to the finest operator's own values (an entry K has), not to a copy
    from fecontact.solve.amg import PENALTY_PRECONDITIONER

    model = _model("hertz3d")
    sysm = model.problem.system
    K = sysm.K_hat.tocsr()
    original = K.data.copy()
    amg = AMG(K, rigid_body_modes(sysm))
    n = sysm.n_reduced

    def unit_rows(rows):
        return sp.csr_matrix((np.ones(rows.size), (np.arange(rows.size), rows)), shape=(rows.size, n))

    first, second = model.problem.contact_dofs[:20], model.problem.contact_dofs[20:35]
    for rows in (first, second):            # the second call undoes the first before adding
        amg.constrained(unit_rows(rows))
        expected = (K + sp.diags(np.bincount(rows, minlength=n) * PENALTY_PRECONDITIONER
                                 * K.diagonal())).tocsr()
        fine = amg.hierarchy.levels[0].A
        assert fine.nnz == K.nnz and not np.shares_memory(fine.data, K.data)
        np.testing.assert_array_equal(fine.indptr, expected.indptr)
        np.testing.assert_array_equal(fine.indices, expected.indices)
        np.testing.assert_array_equal(fine.data, expected.data)      # the same sums, bit for bit
        np.testing.assert_array_equal(K.data, original)              # K itself untouched
    np.testing.assert_array_equal(amg.operator().data, original)      # put back exactly


def test_rigid_body_modes_are_the_null_space_of_the_free_stiffness():
    model = _model("hertz3d")
    sysm = model.problem.system
    modes = rigid_body_modes(sysm)
    assert modes.shape == (sysm.n_reduced, 6)
    # K (unconstrained, full numbering) annihilates them where no DOF is removed
    X = sysm.reference_coords()
    full = np.zeros((sysm.n_dofs, 6))
    full[~sysm.fixed] = sysm.T[~sysm.fixed] @ modes
    keep = ~sysm.fixed
    interior = np.asarray(abs(sysm.K)[:, sysm.fixed].sum(axis=1)).ravel() == 0
    rows = keep & interior
    assert np.abs(sysm.K[rows][:, keep] @ full[keep]).max() < 1e-9 * abs(sysm.K).max() * np.abs(X).max()


@pytest.mark.parametrize("backend", ["amg", "factorization"])
def test_krylov_runs_give_the_schur_solution(tmp_path, backend):
    case = CASES / "hertz3d.toml"
    overrides = COARSE["hertz3d"] + ["steps.count=2"]
    ref = run(case, tmp_path / "schur", overrides + ["solver.backend=schur"], write_vtu_files=False)
    res = run(case, tmp_path / backend, overrides + [f"solver.backend={backend}"], write_vtu_files=False)
    assert res.summary["converged"] and res.summary["backend"] == backend
    assert res.summary["timings"]["krylov_iterations"] > 0
    lam, lam_ref = res.state.multiplier[:, 0], ref.state.multiplier[:, 0]
    np.testing.assert_array_equal(res.state.status != 0, ref.state.status != 0)
    assert np.abs(lam - lam_ref).max() < 1e-6 * np.abs(lam_ref).max()
    u, u_ref = res.state.u, ref.state.u
    assert np.abs(u - u_ref).max() < 1e-7 * np.abs(u_ref).max()


def _grid_graph(k, dim):
    """The 5-point (2D) or 7-point (3D) graph of a k^dim grid and its node coordinates."""
    path = sp.diags([np.ones(k - 1), np.ones(k), np.ones(k - 1)], [-1, 0, 1])
    eye = sp.identity(k)
    if dim == 2:
        A = sp.kron(path, eye) + sp.kron(eye, path)
    else:
        A = sp.kron(sp.kron(path, eye), eye) + sp.kron(sp.kron(eye, path), eye) \
            + sp.kron(sp.kron(eye, eye), path)
    axes = np.meshgrid(*[np.arange(k, dtype=float)] * dim, indexing="ij")
    return A.tocsr(), np.column_stack([x.ravel() for x in axes])


@pytest.mark.parametrize("dim", [2, 3])
def test_the_top_separator_of_a_grid_is_one_grid_plane(dim):
    """Cut at the median across its longest extent, a k^dim grid (stretched along one axis so that
    axis is the longest) separates by one plane of k^(dim-1) nodes; two disjoint grids give one
    separator each, and a piece too small to cut counts with its size."""
    from fecontact.solve.choice import SMALL_PIECE, separator_sizes

    k = 9
    A, x = _grid_graph(k, dim)
    x[:, 0] *= 1.5
    assert separator_sizes(A, x).tolist() == [k ** (dim - 1)]
    small = sp.identity(SMALL_PIECE - 1) + sp.eye(SMALL_PIECE - 1, k=1) + sp.eye(SMALL_PIECE - 1, k=-1)
    B = sp.block_diag([A, A, small]).tocsr()
    xs = np.vstack([x, x + 100.0, np.zeros((SMALL_PIECE - 1, dim))])
    assert separator_sizes(B, xs).tolist() == [k ** (dim - 1), k ** (dim - 1), SMALL_PIECE - 1]


def test_auto_picks_by_modelled_cost_and_says_why():
    """The cost model's choices where the answer is not in doubt: a 1.2M-unknown 3D body with 137k contact
    unknowns cannot hold the dense compliance nor, in a third of 24 GB, a factor of its 10^4 separator,
    so multigrid; so is a 2D body of 509k unknowns in one increment; a small 2D body over 300 increments keeps one factorisation (``schur``); a body held
    only by contact cannot use the Krylov backends.  The reason names the pick and the figures, and
    ``direct`` is always the last resort."""
    from fecontact.solve.choice import ProblemSize, choose, estimate_costs

    big = ProblemSize(n=1_244_310, nnz=48_000_000, separators=np.array([10_300]),
                      contact_dofs=137_000, increments=1, supported=True)
    order, reason = choose(big, memory=24e9)
    assert order[0] == "amg" and order[-1] == "direct"
    assert reason.startswith("amg: modelled") and "1,244,310 unknowns" in reason
    assert not estimate_costs(big, memory=24e9)["schur"].fits
    # a 2D Hertz problem of 509k unknowns in one increment: the exact factorisation as GMRES
    # preconditioner took 445 iterations (11 times the linear solve), multigrid is the pick
    plane = ProblemSize(n=509_354, nnz=7_000_000, separators=np.array([503]), contact_dofs=6_460,
                        increments=1, supported=True, dim=2)
    assert choose(plane, memory=24e9)[0][0] == "amg"
    small = ProblemSize(n=7_000, nnz=90_000, separators=np.array([60]), contact_dofs=350,
                        increments=300, supported=True)
    assert choose(small, memory=24e9)[0][0] == "schur"
    floating = ProblemSize(n=7_000, nnz=90_000, separators=np.array([60]), contact_dofs=350,
                           increments=1, supported=False)
    assert set(choose(floating)[0]) == {"schur", "direct"}


def test_auto_on_real_problems_names_its_reason_and_falls_back():
    """``make_backend("auto", ...)`` keeps the reason on the backend (``choice``); with a body held only
    by contact it uses ``schur`` (pinned rigid modes); a Krylov backend asked for by name is refused."""
    floating = build_model(load_case(CASES / "patch2d.toml")).problem
    assert floating.system.floating_bodies()
    backend = make_backend("auto", floating)
    assert backend.name == "schur" and backend.choice.startswith("schur: modelled")
    assert make_backend("schur", floating).choice is None
    with pytest.raises(RuntimeError, match="held only by contact"):
        make_backend("amg", floating)


def _iterate(name):
    """``(problem, ev)``: the iterate after two Newton steps on the first load level of a coarse case."""
    model = _model(name)
    problem = model.problem
    state = problem.initial_state()
    t = model.levels[0]
    result = semismooth_newton(problem.increment(t, state), DirectBackend(problem),
                               problem.unknowns(state), NewtonOptions(max_iterations=2))
    return problem, problem.increment(t, state).evaluate(result.unknowns, result.evaluation.kinematics.facet)


@pytest.mark.parametrize("name", list(BACKENDS))
def test_every_registered_backend_honours_the_contract(name):
    """Each factory builds a backend that declares its name and iterations, whose Newton step is the
    dense solve of the same Jacobian and whose reference solve is the dense solve of ``K_hat``.
    The Krylov ones: the first step (contact status not settled yet) inexact in the equilibrium rows
    only, within ``eta_max |R|``; once the status has stayed the same over ``SETTLED`` steps, to the
    tolerance."""
    if BACKENDS[name].missing:
        pytest.skip(f"not installed: {', '.join(BACKENDS[name].missing)}")
    _honours_the_contract(name)


def test_the_backend_of_the_how_to_page_honours_the_contract(monkeypatch):
    """docs/developer/add-backend.md: its module, registered by its line, is a working backend."""
    import re
    import types
    from pathlib import Path

    import fecontact.solve.backends as backends

    page = (Path(__file__).parents[1] / "docs" / "developer" / "add-backend.md").read_text()
    module_code, import_line, entry = re.findall(r"```python\n(.*?)```", page, re.S)[:3]
    module = types.ModuleType("fecontact.solve.dense")
    module.__package__ = "fecontact.solve"
    exec(compile(module_code, "fecontact/solve/dense.py", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "fecontact.solve.dense", module)
    scope = {"__name__": "fecontact.solve.backends", "__package__": "fecontact.solve",
             "BackendFactory": backends.BackendFactory}
    exec(import_line, scope)
    name, factory = eval(f"({entry.strip().rstrip(',').replace(':', ',', 1)})", scope)
    monkeypatch.setitem(backends.BACKENDS, name, factory)
    monkeypatch.setattr(backends, "CHOICES", (*backends.CHOICES, name))
    _honours_the_contract(name)


def _honours_the_contract(name):
    """The checks of :func:`test_every_registered_backend_honours_the_contract` for ``name``."""
    problem, ev = _iterate("hertz2d_friction")
    status = ev.contact.status
    assert (status == 0).any() and (status == 2).any()
    J = ev.jacobian().toarray()
    exact = la.solve(J, -ev.residual)
    backend = make_backend(name, problem, tolerance=1e-11)
    assert isinstance(backend, LinearBackend) and backend.name == name
    n = ev.n_reduced
    if BACKENDS[name].krylov:
        assert backend.iterations == 0
        first = backend.solve(ev)
        defect = J @ first + ev.residual
        assert np.linalg.norm(defect[:n]) <= 0.1 * np.linalg.norm(ev.residual)
        assert np.abs(defect[n:]).max() <= 1e-10 * np.abs(ev.residual).max()
        spent = backend.iterations
        assert spent > 0
        for _ in range(SETTLED):
            step = backend.solve(ev)
        assert backend.iterations > spent
    else:
        assert backend.iterations is None
        step = backend.solve(ev)
        assert backend.iterations is None
    np.testing.assert_allclose(step, exact, rtol=0, atol=1e-7 * np.abs(exact).max())
    K = problem.system.K_hat
    rhs = np.random.default_rng(1).standard_normal(n)
    x = la.solve(K.toarray(), rhs)
    np.testing.assert_allclose(backend.reference_solve(rhs), x, rtol=0, atol=1e-8 * np.abs(x).max())


def test_an_unknown_backend_is_a_one_line_error_naming_the_choices():
    with pytest.raises(ValueError) as err:
        make_backend("magic", None)
    assert str(err.value) == ("unknown linear solver backend 'magic'; "
                              "choose one of auto, direct, schur, amg, factorization, petsc")


def test_a_linear_solve_that_fails_is_named_in_newtons_reason():
    model = _model("hertz3d")
    problem = model.problem
    state = problem.initial_state()

    class Failing:
        name = "amg"

        def solve(self, ev):
            raise RuntimeError("GMRES did not reach 1e-12 (residual 3e-5)")

    result = semismooth_newton(problem.increment(1.0, state), Failing(), problem.unknowns(state))
    assert not result.converged
    assert result.reason == ("the Newton system could not be solved: "
                             "GMRES did not reach 1e-12 (residual 3e-5)")


@pytest.mark.parametrize("case, backend, message", [
    ("patch2d", "amg", "'solver.backend' = 'amg' needs every body supported, but 'upper' is held "
                       "only by contact"),
    ("stickslip", "factorization", "'solver.backend' = 'factorization' needs every body supported, "
                                   "but 'block' is held only by contact"),
    ("hertz2d", "magic", "'solver.backend' = 'magic' is unknown; choose one of amg, auto, direct"),
])
def test_unusable_backends_are_one_line_input_errors(case, backend, message, tmp_path, capsys):
    from fecontact.cli import main

    code = main(["run", str(CASES / f"{case}.toml"), "--out", str(tmp_path / "out"), "--quiet",
                 "--set", f"solver.backend={backend}"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_schur_step_in_si_units_is_the_direct_step_without_an_ill_conditioning_warning():
    """With E = 210 GPa the condensed contact system mixes compliance (1/E) and stiffness (E) scales;
    its dense solve is equilibrated, so the well-posed system raises no LinAlgWarning and the
    ``schur`` step is the ``direct`` one."""
    import warnings
    from fecontact.solve.schur import SchurBackend

    si = ["bodies.0.material.E=210e9", "bodies.1.material.E=210e9",
          "bodies.1.traction.0.value.1=-1e8"]
    model = build_model(load_case(CASES / "patch2d.toml", si))
    problem = model.problem
    state = problem.initial_state()
    t = model.levels[0]
    direct = DirectBackend(problem)
    result = semismooth_newton(problem.increment(t, state), direct, problem.unknowns(state),
                               NewtonOptions(max_iterations=1))
    ev = problem.increment(t, state).evaluate(result.unknowns, result.evaluation.kinematics.facet)
    assert (ev.contact.status != 0).any()
    expected = direct.solve(ev)
    with warnings.catch_warnings():
        warnings.simplefilter("error", la.LinAlgWarning)
        step = SchurBackend(problem).solve(ev)
    np.testing.assert_allclose(step, expected, rtol=0, atol=1e-8 * np.abs(expected).max())


def test_documented_backend_choices_are_the_registered_ones():
    """Every docstring's ``backend : {...}`` set is :data:`CHOICES`, and every quoted name in a
    ``backend`` parameter's description is one of them (no names of backends that do not exist);
    ``Model.solve`` documents its backend that way."""
    import ast
    import re
    from pathlib import Path

    import fecontact
    from fecontact.solve.backends import CHOICES

    described, stray = [], []
    for path in Path(fecontact.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)):
                continue
            doc = ast.get_docstring(node) or ""
            for match in re.finditer(r"^( *)backend : (.*)\n((?:\1 +.*\n)*)", doc + "\n", re.M):
                kind, text = match.group(2), match.group(3)
                described.append(path.name)
                if kind.startswith("{"):
                    assert set(re.findall(r'"(\w+)"', kind)) == set(CHOICES), path
                stray += [f"{path.name}: {name}" for name in re.findall(r'``"(\w+)"``', text)
                          if name not in CHOICES]
    assert "model.py" in described
    assert not stray, stray
