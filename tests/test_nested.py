"""Nested iteration: the transfer operators, and a contact solve started from a coarser model."""

from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.analysis.nested import displacement_transfer, traction_transfer
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case
from fecontact.mesh import half_disc
from fecontact.mesh.transfer import interpolation_matrix

ROOT = Path(__file__).resolve().parents[1]


def _inside_points(mesh, n, seed):
    """Random points inside random simplices of the mesh's simplex split (barycentric mixtures)."""
    from fecontact.mesh.transfer import linear_simplices

    p, t = linear_simplices(mesh)
    rng = np.random.default_rng(seed)
    e = rng.integers(0, t.shape[1], n)
    w = rng.dirichlet(np.ones(t.shape[0]), n)                       # (n, dim+1)
    return np.einsum("dkn,nk->dn", p[:, t[:, e]], w)


@pytest.mark.parametrize("mesh", [skfem.MeshTri.init_circle(3), skfem.MeshQuad().refined(3),
                                  skfem.MeshTet.init_ball(2), skfem.MeshHex().refined(2)],
                         ids=["tri", "quad", "tet", "hex"])
def test_interpolation_is_exact_for_linear_fields(mesh):
    dim = mesh.p.shape[0]
    x = _inside_points(mesh, 2000, 1)
    a, c = np.arange(1.0, dim + 1.0), 0.5
    P = interpolation_matrix(mesh, x)
    assert P.shape == (x.shape[1], mesh.p.shape[1])
    np.testing.assert_allclose(P @ (a @ mesh.p + c), a @ x + c, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0, rtol=0, atol=1e-14)
    assert P.min() >= 0.0


def test_points_just_outside_take_about_the_closest_value():
    mesh = skfem.MeshTri().refined(3)                                # the unit square, h = 1/8
    d = 0.01
    x = np.array([[1 + d, 0.5, -d], [0.5, 1 + d, 0.3]])
    values = interpolation_matrix(mesh, x) @ (mesh.p[0] + 2.0 * mesh.p[1])
    # the closest points of the square: (1, 0.5), (0.5, 1), (0, 0.3); the clipped coordinates
    # are off by at most the distance times the gradient (|(1, 2)| < 3)
    np.testing.assert_allclose(values, [2.0, 2.5, 0.6], atol=3 * d)


def _disc(h_contact, h_far, element="P1", name="disc"):
    mesh = half_disc(h_contact=h_contact, h_far=h_far)
    disc = fc.Body(name, mesh, element, fc.LinearElastic(E=1e4, nu=0.3, plane="strain"))
    disc.fix("flat", y=-0.02)
    disc.fix(point=(0.0, 1.0), x=0.0)
    pair = fc.Contact(disc.surface("contact"), fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)),
                      fc.Frictionless())
    return fc.Model([disc], [pair])


@pytest.mark.parametrize("element", ["P1", "P2"])
def test_displacement_transfer_reproduces_a_linear_field_at_every_fine_node(element):
    coarse = _disc(0.02, 0.3, "P1").assemble().problem
    fine = _disc(0.005, 0.1, element).assemble().problem
    T = displacement_transfer(coarse, fine)
    G = np.array([[0.3, -0.1], [0.2, 0.05]])                         # u(x) = G x + b
    b = np.array([0.01, -0.02])
    u_coarse = (G @ coarse.X + b[:, None]).T.ravel()                # interleaved, node by node
    expected = (G @ fine.X + b[:, None]).T.ravel()
    inside = np.repeat(np.linalg.norm(fine.X - [[0.0], [1.0]], axis=0) < 0.95, 2)
    np.testing.assert_allclose((T @ u_coarse)[inside], expected[inside], atol=1e-12)
    # near the arc, fine nodes outside the coarse polygon get about the closest coarse value
    np.testing.assert_allclose(T @ u_coarse, expected, atol=0.01)


def test_traction_transfer_keeps_a_constant_and_stays_on_the_pair():
    coarse = _disc(0.02, 0.3).assemble().problem
    fine = _disc(0.005, 0.1).assemble().problem
    S = traction_transfer(coarse, fine)
    assert S.shape == (fine.n_contact, coarse.n_contact)
    np.testing.assert_allclose(S @ np.full(coarse.n_contact, 3.0), 3.0, atol=1e-12)


def test_models_with_other_bodies_are_refused():
    coarse = _disc(0.02, 0.3).assemble().problem
    other = _disc(0.02, 0.3, name="plate").assemble().problem
    with pytest.raises(ValueError, match="same order"):
        displacement_transfer(coarse, other)


def test_nested_solve_gives_the_same_answer_in_fewer_iterations():
    """Hertz from point contact in one increment: the fine Newton iterations stop growing with the mesh."""
    coarse_factor = 12.0
    plain, nested = [], []
    for h in (0.004, 0.002, 0.001):
        fine = _disc(h, 80 * h)
        a = fine.solve(steps=1, backend="schur")
        b = fine.solve(steps=1, backend="schur",
                       coarse=_disc(coarse_factor * h, coarse_factor * 80 * h))
        assert a.converged and b.converged
        scale = np.max(np.abs(a.state.u))
        np.testing.assert_allclose(b.state.u, a.state.u, atol=1e-7 * scale)
        np.testing.assert_array_equal(b.state.status, a.state.status)
        plain.append(a.records[0].newton_iterations)
        nested.append(b.records[0].newton_iterations)
    # started from the prediction: at most half the iterations, within a spread of two over a
    # fourfold refinement (the size series of docs/scaling.md goes on to a million DOFs)
    assert max(nested) - min(nested) <= 2, nested
    assert all(2 * n <= p for n, p in zip(nested, plain)), (nested, plain)


def test_case_nested_true_needs_a_coarse_file(tmp_path):
    case = ROOT / "cases" / "hertz2d_gmsh.toml"
    with pytest.raises(CaseError, match=r"'bodies\.0\.mesh\.coarse' names none"):
        build_model(load_case(case, ["solver.nested=true"]))
    model = build_model(load_case(case, ["solver.nested=true",
                                         'bodies.0.mesh.coarse="../meshes/half_disc.msh"']))
    assert model.coarse.case["bodies"][0]["mesh"] == {"file": "../meshes/half_disc.msh"}
    assert model.coarse.coarse is None
    with pytest.raises(CaseError, match="coarse model of 'solver.nested'"):
        build_model(load_case(case, ["solver.nested=true", 'bodies.0.mesh.coarse="missing.msh"']))


def test_case_nested_auto_builds_generated_coarse_meshes_for_large_frictionless_cases():
    case = ROOT / "cases" / "hertz2d.toml"
    small = build_model(load_case(case, ["steps.count=1", "bodies.0.mesh.h_contact=0.004",
                                         "bodies.0.mesh.h_far=0.32"]))
    assert small.coarse is None                       # below the size where it pays
    assert build_model(load_case(case, ["steps.count=1"])).coarse is not None
    forced = build_model(load_case(case, ["steps.count=1", "solver.nested=true",
                                          "solver.nested_coarsening=4"]))
    spec = forced.coarse.case["bodies"][0]["mesh"]
    assert spec["h_contact"] == pytest.approx(4 * 0.001)
    assert spec["h_far"] == pytest.approx(4 * 0.08)
    assert forced.coarse.coarse is None
