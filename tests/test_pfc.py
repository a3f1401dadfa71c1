"""The global frictional contact problem PFC(M, H, q, b, mu): export, files, solvers.

References are independent of the code under test: a two-contact problem
solved by hand, the geometry of the Coulomb cone, finite differences, and the
finite-element solution of each exported increment (computed by the
stepping layer, not by the PFC solvers).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import CASES

DATA = CASES.parent / "tests" / "data"
from fecontact.pfc.export import export_case
from fecontact.pfc.io import (load_problem, load_solution, read, save_problem,
                              save_solution, write)
from fecontact.pfc.nsgs import solve_nsgs
from fecontact.pfc.problem import GlobalProblem, PFCError, modified_velocity, project_on_cone
from fecontact.pfc.ssn import NewtonView, solve_ssn
from test_reliability import EXIT_INPUT, assert_one_line_errors, cli

COARSE_2D = ["bodies.0.mesh.h_contact=0.004"]
COARSE_3D = ["bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3"]
COARSE_CATTANEO_3D = COARSE_3D + ["bodies.1.mesh.h_contact=0.04", "bodies.1.mesh.h_far=0.3"]


def relative(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


# -- a problem solved by hand -------------------------------------------------------------
def two_particles_2d() -> tuple:
    r"""Two particles on springs ``k`` to the ground, joined in x by a spring ``k_c``.

    DOFs ``v = (x1, y1, x2, y2)``; contact ``i`` acts on particle ``i`` with
    normal ``+y`` and tangent ``+x`` (columns ``N1, T1, N2, T2`` of ``H``),
    initial gaps 1 and 0.5; loads ``q = (10, -200, 80, -300)``, ``mu = (0.5,
    0.3)``, ``k = k_c = 100``.  By hand:

    * normal: both close, ``v_y = -b_N``: ``r_N1 = 200 - 100 = 100``,
      ``r_N2 = 300 - 50 = 250``;
    * particle 2 cannot stick (``80 > 0.3 * 250 = 75``): it slides in +x,
      ``r_T2 = -75``, and with particle 1 stuck (``x1 = 0``)
      ``(k + k_c) x2 = 80 - 75``, ``x2 = 0.025``;
    * particle 1: ``r_T1 = -10 - k_c x2 = -12.5``, inside its cone
      (``12.5 <= 0.5 * 100``), so it sticks.
    """
    k, kc = 100.0, 100.0
    M = np.array([[k + kc, 0, -kc, 0], [0, k, 0, 0], [-kc, 0, k + kc, 0], [0, 0, 0, k]])
    H = np.zeros((4, 4))
    H[1, 0] = H[0, 1] = H[3, 2] = H[2, 3] = 1.0
    problem = GlobalProblem(M=M, H=H, q=[10.0, -200.0, 80.0, -300.0], b=[1.0, 0.0, 0.5, 0.0],
                            mu=[0.5, 0.3], d=2)
    solution = {"v": np.array([0.0, -1.0, 0.025, -0.5]),
                "r": np.array([100.0, -12.5, 250.0, -75.0]),
                "u": np.array([0.0, 0.0, 0.0, 0.025])}
    return problem, solution


def two_particles_3d() -> tuple:
    r"""Two free particles on springs ``k = 100`` above a plane, normal ``+z``, tangents ``x, y``.

    Particle 1: ``q = (60, 80, -300)``, gap 0.5, ``mu = 0.3``: ``r_N = 250``;
    the tangential load 100 exceeds ``75``, so it slides along ``(0.6, 0.8)``
    with ``r_T = -75 (0.6, 0.8)`` and ``v_T = (60 - 45, 80 - 60)/100``.
    Particle 2: ``q = (5, 0, -10)``, gap 1: the free motion ``v_z = -0.1``
    leaves it open, ``r = 0``, ``u = (0.9, 0.05, 0)``.
    """
    M = 100.0 * np.eye(6)
    H = np.zeros((6, 6))
    for particle in range(2):
        x, y, z = 3 * particle + np.arange(3)
        H[z, 3 * particle] = H[x, 3 * particle + 1] = H[y, 3 * particle + 2] = 1.0
    problem = GlobalProblem(M=M, H=H, q=[60.0, 80.0, -300.0, 5.0, 0.0, -10.0],
                            b=[0.5, 0.0, 0.0, 1.0, 0.0, 0.0], mu=[0.3, 0.3], d=3)
    solution = {"v": np.array([0.15, 0.2, -0.5, 0.05, 0.0, -0.1]),
                "r": np.array([250.0, -45.0, -60.0, 0.0, 0.0, 0.0]),
                "u": np.array([0.0, 0.15, 0.2, 0.9, 0.05, 0.0])}
    return problem, solution


@pytest.mark.parametrize("make", [two_particles_2d, two_particles_3d])
@pytest.mark.parametrize("solve", [solve_ssn, solve_nsgs])
def test_hand_made_two_contact_problem(make, solve):
    problem, exact = make()
    res = problem.residuals(exact["v"], exact["r"])
    assert res.natural_map < 1e-14 and res.equilibrium < 1e-14      # the hand solution solves it
    sol = solve(problem)
    assert sol.converged, sol.reason
    for key in "vru":
        np.testing.assert_allclose(getattr(sol, key), exact[key], rtol=0, atol=1e-9 * np.abs(exact[key]).max())
    assert sol.residuals.natural_map < 1e-10 and sol.residuals.equilibrium < 1e-12


# -- the cone ---------------------------------------------------------------------------
@pytest.mark.parametrize("d", [2, 3])
def test_cone_projection_is_the_euclidean_projection(d):
    """``P(x)`` is in the cone, ``x - P(x)`` in the polar cone and orthogonal to ``P(x)``."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, d)) * rng.choice([1e-3, 1.0, 1e3], size=(400, 1))
    mu = rng.choice([0.0, 0.2, 1.0, 3.0], size=400)
    x[:20, 1:] = 0.0                                  # on the axis, including mu = 0
    P = project_on_cone(x, mu)
    tangential = np.linalg.norm(P[:, 1:], axis=1)
    scale = np.linalg.norm(x, axis=1)
    assert np.all(P[:, 0] >= -1e-15 * scale)
    assert np.all(tangential <= mu * P[:, 0] + 1e-12 * scale)
    rest = x - P
    # polar cone of C_mu: mu |y_T| <= -y_N
    assert np.all(mu * np.linalg.norm(rest[:, 1:], axis=1) <= -rest[:, 0] + 1e-12 * scale)
    assert np.all(np.abs(np.sum(rest * P, axis=1)) <= 1e-12 * scale ** 2)
    np.testing.assert_allclose(project_on_cone(P, mu), P, atol=1e-12 * scale.max())


def test_natural_map_vanishes_at_open_stick_and_slip_for_any_scale():
    mu = np.array([0.4, 0.4, 0.4, 0.0])
    r = np.array([[0.0, 0.0], [2.0, 0.5], [2.0, -0.8], [0.0, 0.0]])       # open, stick, slip, open
    u = np.array([[0.3, -0.1], [0.0, 0.0], [0.0, 0.7], [0.2, 0.0]])
    u_hat = modified_velocity(u, mu)
    for rho in (1e-3, 1.0, 1e3):
        # zero up to the round-off of the largest entry, rho |u_hat|
        np.testing.assert_allclose(r - project_on_cone(r - rho * u_hat, mu), 0.0,
                                   atol=1e-15 * max(rho, 1.0) * 10)
    wrong = r.copy()
    wrong[2, 1] = 0.8                                  # friction along the slip: not a solution
    assert np.linalg.norm(wrong - project_on_cone(wrong - u_hat, mu)) > 0.1


def test_newton_jacobian_matches_finite_differences():
    problem, exact = two_particles_3d()
    view = NewtonView(problem, regularise=False)          # the generalised Jacobian itself
    rng = np.random.default_rng(7)
    # a generic point: contact 1 sliding with a closed augmented normal, contact 2 open
    x = np.concatenate([exact["v"], exact["r"]]) + 1e-2 * rng.normal(size=12)
    ev = view.evaluate(x)
    J = ev.jacobian().toarray()
    h = 1e-7
    fd = np.column_stack([(view.evaluate(x + h * e, jacobian=False).residual
                           - view.evaluate(x - h * e, jacobian=False).residual) / (2 * h)
                          for e in np.eye(12)])
    np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-6 * np.abs(J).max())


# -- files --------------------------------------------------------------------------------
def test_npz_round_trip(tmp_path):
    problem, exact = two_particles_3d()
    problem = GlobalProblem(problem.M, problem.H, problem.q, problem.b, problem.mu, problem.d,
                            rigid_modes=np.ones((6, 1)), info={"case": "by hand", "step": 2})
    extras = {"area": np.array([0.1, 0.2]), "contact_pair": np.array([0, 0]),
              "contact_node": np.array([4, 9])}
    save_problem(tmp_path / "p.npz", problem, exact, extras)
    back = load_problem(tmp_path / "p.npz")
    p = back.problem
    assert (p.M != problem.M).nnz == 0 and (p.H != problem.H).nnz == 0
    assert p.M.shape == problem.M.shape and p.H.shape == problem.H.shape
    for key in ("q", "b", "mu", "rigid_modes"):
        np.testing.assert_array_equal(getattr(p, key), getattr(problem, key))
    assert p.d == 3 and p.info == problem.info
    for key in "vru":
        np.testing.assert_array_equal(back.solution[key], exact[key])
    for key, value in extras.items():
        np.testing.assert_array_equal(back.extras[key], value)
    # the documented keys are plain arrays: M rebuilt with scipy alone
    with np.load(tmp_path / "p.npz") as data:
        M = sp.csc_matrix((data["M_data"], data["M_indices"], data["M_indptr"]), shape=data["M_shape"])
        assert str(data["format"]) == "fecontact-pfc-1"
    np.testing.assert_array_equal(M.toarray(), problem.M.toarray())
    # a solution file
    sol = solve_ssn(two_particles_3d()[0])
    save_solution(tmp_path / "s.npz", sol)
    again = load_solution(tmp_path / "s.npz")
    for key in "vru":
        np.testing.assert_array_equal(getattr(again, key), getattr(sol, key))
    assert again.residuals == sol.residuals and again.solver == sol.solver


@pytest.mark.parametrize("broken, message", [
    (lambda a: a.pop("mu"), "missing key 'mu'"),
    (lambda a: a.pop("H_indptr"), "missing key 'H_indptr'"),
    (lambda a: a.update(b=np.zeros(5)), "'b' has 5 entries, expected 6"),
    (lambda a: a.update(mu=np.array([0.3, -0.1])), "'mu' must be >= 0 (contact 1"),
    (lambda a: a.update(q=np.array([0, 0, np.nan, 0, 0, 0.0])), "'q' has non-finite entries"),
    (lambda a: a.update(d=np.array(4)), "'d' must be 2 or 3"),
    (lambda a: a.update(rigid_modes=np.ones((12, 1))), "'rigid_modes' has 12 rows, expected 6"),
])
def test_bad_problem_files_are_one_line_errors(tmp_path, broken, message):
    problem, _ = two_particles_3d()
    save_problem(tmp_path / "p.npz", problem)
    with np.load(tmp_path / "p.npz") as data:
        arrays = {k: data[k] for k in data.files}
    broken(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(PFCError) as err:
        load_problem(tmp_path / "bad.npz")
    text = str(err.value)
    assert text.startswith(str(tmp_path / "bad.npz")) and message in text and "\n" not in text


# -- exported finite-element increments ---------------------------------------------------
EXPORTS = {
    "hertz2d": ("hertz2d.toml", 3, COARSE_2D),
    "hertz2d_friction": ("hertz2d_friction.toml", 3, COARSE_2D),
    "hertz3d": ("hertz3d.toml", 2, COARSE_3D),
    # quadratic tetrahedra: vertex multipliers, whose weighted gaps also carry the forces
    "block3d_p2": (DATA / "block3d_p2.toml", 2, []),
    "cattaneo3d": ("cattaneo3d.toml", 3, COARSE_CATTANEO_3D),
    "incline_dynamic": ("incline_dynamic.toml", 20, []),
}


@pytest.fixture(scope="module")
def exported():
    cache = {}

    def get(name):
        if name not in cache:
            case, step, overrides = EXPORTS[name]
            cache[name] = export_case(CASES / case, step, overrides)    # DATA paths stay absolute
        return cache[name]
    return get


@pytest.mark.parametrize("name", list(EXPORTS))
def test_exported_increment_is_solved_by_its_finite_element_solution(exported, name):
    pf = exported(name)
    p, fe = pf.problem, pf.solution
    res = p.residuals(fe["v"], fe["r"])
    assert res.equilibrium < 1e-10 and res.natural_map < 1e-9, res
    np.testing.assert_allclose(p.local_velocity(fe["v"]), fe["u"], atol=1e-12 * np.abs(fe["u"]).max())
    R = fe["r"].reshape(-1, p.d)
    assert np.sum(R[:, 0] > 0) >= 10                 # a real contact zone
    if "friction" in name or "cattaneo" in name or "incline" in name or "block" in name:
        assert np.any(np.linalg.norm(R[:, 1:], axis=1) > 0.1 * p.mu.max() * R[:, 0].max())
        assert p.mu.max() > 0


@pytest.mark.parametrize("name", list(EXPORTS))
@pytest.mark.parametrize("solve", [solve_ssn, solve_nsgs])
def test_solvers_agree_with_the_finite_element_solution(exported, name, solve):
    pf = exported(name)
    fe = pf.solution
    sol = solve(pf.problem)
    assert sol.converged, sol.reason
    for key in "rvu":
        assert relative(getattr(sol, key), fe[key]) < 1e-6, (key, relative(getattr(sol, key), fe[key]))
    assert sol.residuals.equilibrium < 1e-10


def test_sign_conventions_of_the_export(exported):
    """Normal first, b_N the start gap (open > 0), r_N >= 0 pushes apart, friction opposes slip."""
    pf = exported("hertz2d_friction")
    p, fe = pf.problem, pf.solution
    R, U = fe["r"].reshape(-1, 2), fe["u"].reshape(-1, 2)
    B = p.b.reshape(-1, 2)
    assert np.all(R[:, 0] >= 0.0)
    closed = R[:, 0] > 0
    assert np.all(np.abs(U[closed, 0]) < 1e-12) and np.all(U[~closed, 0] > 0)
    # on the rigid flat the kinematics is linear: b_N is the gap at the start of the step,
    # the height of the slave node above y = 0 there
    assert np.all(B[~closed, 0] > 0) and np.min(B[closed, 0]) > -1e-12
    # nodes closing inside the increment transmit no friction in it: mu = 0 there
    closing = closed & (p.mu == 0)
    assert np.all(B[closing, 0] > 0)
    sliding = closed & (p.mu > 0) & (np.abs(U[:, 1]) > 1e-12)
    assert np.any(sliding)
    assert np.all(R[sliding, 1] * U[sliding, 1] < 0)
    np.testing.assert_allclose(np.abs(R[sliding, 1]), p.mu[sliding] * R[sliding, 0], rtol=1e-9)
    # r are nodal forces: the area-weighted tractions of the slave nodes
    assert np.all(pf.extras["area"] > 0)


def test_body_held_by_contact_ssn_with_rigid_modes_nsgs_refuses(tmp_path):
    # the upper body floats; the last step has Q = 0.5 mu P
    pf = export_case(CASES / "cattaneo2d.toml", 9, ["bodies.0.mesh.h_contact=0.04",
                                                    "bodies.1.mesh.h_contact=0.04"])
    p, fe = pf.problem, pf.solution
    assert p.rigid_modes.shape[1] == 2
    assert p.mu.max() == pytest.approx(0.2)
    sol = solve_ssn(p)
    assert sol.converged and sol.solver == "ssn (schur)"
    for key in "rvu":
        assert relative(getattr(sol, key), fe[key]) < 1e-6
    with pytest.raises(PFCError, match="rigid-body modes"):
        solve_nsgs(p)
    # without its rigid modes M is singular: whether its Cholesky factorisation breaks down
    # depends on round-off; if it does (or Newton fails with it) the direct backend takes over,
    # and either way the converged solution is the finite-element one
    bare = solve_ssn(GlobalProblem(p.M, p.H, p.q, p.b, p.mu, p.d))
    assert bare.converged and bare.solver in ("ssn (delassus)", "ssn (schur)", "ssn (direct)")
    assert relative(bare.r, fe["r"]) < 1e-6
    # round trip through a file keeps the rigid modes, and the solve is the same
    write(tmp_path / "c.npz", pf)
    again = solve_ssn(read(tmp_path / "c.npz").problem)
    np.testing.assert_allclose(again.r, sol.r, rtol=0, atol=1e-12 * np.abs(sol.r).max())


# -- command line -------------------------------------------------------------------------
def test_cli_export_and_solve(tmp_path, capsys):
    out, sol = tmp_path / "problem.npz", tmp_path / "solution.npz"
    code, stdout, err = cli(capsys, "pfc", "export", CASES / "hertz2d_friction.toml", "--step", 2,
                            "--out", out, *[a for o in COARSE_2D for a in ("--set", o)])
    assert code == 0, err
    assert "d = 2" in stdout and "natural map" in stdout
    fe = load_problem(out).solution
    for solver in ("ssn", "nsgs"):
        code, stdout, err = cli(capsys, "pfc", "solve", out, "--solver", solver, "--out", sol)
        assert code == 0, err
        assert "converged" in stdout and "against the file's solution" in stdout
        s = load_solution(sol)
        assert s.converged and s.solver.startswith(solver)
        assert relative(s.r, fe["r"]) < 1e-6
        assert s.residuals.natural_map < 1e-9


def test_cli_errors(tmp_path, capsys):
    case = CASES / "hertz2d.toml"
    code, _, err = cli(capsys, "pfc", "export", case, "--step", 9, "--out", tmp_path / "p.npz",
                       "--set", COARSE_2D[0])
    assert_one_line_errors(code, err, "--step 9 is out of range", "(1..")
    code, _, err = cli(capsys, "pfc", "export", case, "--step", 1, "--out", tmp_path / "p.npz",
                       "--set", COARSE_2D[0], "--set", "contact.0.enforcement=penalty")
    assert_one_line_errors(code, err, "enforcement = 'penalty'", "exact Signorini")
    code, _, err = cli(capsys, "pfc", "solve", tmp_path / "missing.npz", "--out", tmp_path / "s.npz")
    assert_one_line_errors(code, err, "missing.npz: no such file")
    (tmp_path / "text.npz").write_text("not a zip")
    code, _, err = cli(capsys, "pfc", "solve", tmp_path / "text.npz", "--out", tmp_path / "s.npz")
    assert_one_line_errors(code, err, "text.npz: not a readable .npz file")
    assert not (tmp_path / "s.npz").exists()
    assert code == EXIT_INPUT
    # an output that cannot be written is refused before the case is solved
    code, out, err = cli(capsys, "pfc", "export", case, "--step", 1, "--out", tmp_path,
                         "--set", COARSE_2D[0])
    assert_one_line_errors(code, err, f"--out '{tmp_path}': is a folder; give a file name")
    assert "step" not in out
    code, _, err = cli(capsys, "pfc", "solve", tmp_path / "text.npz", "--out",
                       tmp_path / "none" / "s.npz")
    assert_one_line_errors(code, err, f"its folder {tmp_path / 'none'} does not exist")


def test_cli_nonconvergence_writes_the_iterate(tmp_path, capsys):
    problem, _ = two_particles_2d()
    save_problem(tmp_path / "p.npz", problem)
    code, stdout, err = cli(capsys, "pfc", "solve", tmp_path / "p.npz", "--solver", "nsgs",
                            "--tolerance", "1e-300", "--out", tmp_path / "s.npz")
    assert code == 3 and "NOT converged" in stdout
    assert err.startswith("error: after 20000 sweeps: equilibrium") and "tolerance 1e-300" in err
    s = load_solution(tmp_path / "s.npz")
    assert not s.converged and s.iterations > 0
    # the last iterate is the exact solution up to round-off: NSGS did its work
    assert s.residuals.natural_map < 1e-12


def test_ssn_falls_back_to_direct_when_M_cannot_be_factorised():
    """One 2D contact on a mass-less normal DOF: M = diag(1, 0) has no Cholesky factor.

    Equilibrium of the normal row gives r_n = -q_1 = 1; the contact closes
    (u_n = v_1 = 0) and sticks (u_t = v_0 = 0, r_t = 0)."""
    M = sp.csc_matrix(np.diag([1.0, 0.0]))
    H = sp.csc_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))      # columns: normal -> DOF 1, tangent -> DOF 0
    p = GlobalProblem(M, H, np.array([0.0, -1.0]), np.zeros(2), np.array([0.5]), 2)
    sol = solve_ssn(p)
    assert sol.converged and sol.solver == "ssn (direct)"
    np.testing.assert_allclose(sol.r, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(sol.v, [0.0, 0.0], atol=1e-12)


def test_export_carries_the_near_null_space_for_the_multigrid(tmp_path):
    """The exported rigid-body motions let ``ssn`` use the finite-element ``amg`` backend."""
    pf = export_case(CASES / "hertz3d.toml", 2, ["bodies.0.mesh.h_contact=0.04",
                                                 "bodies.0.mesh.h_far=0.3"])
    p, fe = pf.problem, pf.solution
    assert p.near_null_space.shape == (p.n, 6)
    # the three translations: unit displacement of every free DOF in its direction
    Z = p.near_null_space
    assert np.array_equal(np.sort(np.unique(Z[:, :3])), [0.0, 1.0])
    assert np.array_equal(Z[:, :3].sum(axis=1), np.ones(p.n))
    save_problem(tmp_path / "p.npz", p, fe)
    back = load_problem(tmp_path / "p.npz").problem
    np.testing.assert_array_equal(back.near_null_space, p.near_null_space)
    sol = solve_ssn(back, backend="amg")
    assert sol.converged and sol.solver == "ssn (amg)", sol.reason
    for key in "rvu":
        assert relative(getattr(sol, key), fe[key]) < 1e-6
