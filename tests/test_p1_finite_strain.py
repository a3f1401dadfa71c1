"""The quadrature-free P1 finite-strain assembly against the scikit-fem forms and finite differences.

* force and tangent of :mod:`fecontact.bodies.p1_finite_strain` equal those
  of the scikit-fem forms (:mod:`fecontact.bodies.finite_strain`) to
  round-off, on triangles and tetrahedra whose vertices are shuffled in
  every element (both orientations) and whose nodes are renumbered;
* the tangent is the central difference of the force;
* at ``u = 0`` the force vanishes and the tangent is the linear P1 stiffness;
* ``first_piola`` is the ``P`` of ``stress``;
* :class:`~fecontact.bodies.system.BulkSystem` takes the fast path for P1
  bodies, with the forms' results, and evaluates the stress once for a
  force and a tangent at the same displacement.
"""

import numpy as np
import pytest
import skfem

from fecontact.bodies.body import ElasticBody
from fecontact.bodies.finite_strain import internal_force, tangent_stiffness
from fecontact.bodies.hyperelastic import NeoHookean, SaintVenantKirchhoff
from fecontact.bodies.p1 import p1_stiffness
from fecontact.bodies.p1_finite_strain import (P1Simplices, p1_force_and_tangent,
                                               p1_internal_force)
from fecontact.bodies.system import build_system

MATERIALS = [NeoHookean(E=100.0, nu=0.3), SaintVenantKirchhoff(E=100.0, nu=0.3)]


def _shuffled_mesh(dim, seed=0):
    """``(p, t)`` of a distorted unit square/cube, nodes renumbered, vertices shuffled per element."""
    rng = np.random.default_rng(seed)
    if dim == 2:
        mesh = skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 6)] * 2)
    else:
        mesh = skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 4)] * 3)
    p = mesh.p + 0.03 * rng.uniform(-1, 1, mesh.p.shape)           # h = 0.2 / 0.33: no inversion
    perm = rng.permutation(p.shape[1])
    inverse = np.argsort(perm)
    p, t = p[:, perm], inverse[mesh.t]
    t = np.take_along_axis(t, np.argsort(rng.random(t.shape), axis=0), axis=0)
    return p, t


def _forms(p, t, material, u):
    """Force and tangent of the scikit-fem forms on the same vertices and elements."""
    mesh = skfem.MeshTri(p, t) if p.shape[0] == 2 else skfem.MeshTet(p, t)
    element = skfem.ElementTriP1() if p.shape[0] == 2 else skfem.ElementTetP1()
    basis = skfem.Basis(mesh, skfem.ElementVector(element))
    return internal_force(basis, material, u), tangent_stiffness(basis, material, u)


def _large_displacement(p, seed=1):
    """A smooth large deformation (strains of ~20 %) with random noise, interleaved layout."""
    rng = np.random.default_rng(seed)
    dim = p.shape[0]
    smooth = 0.2 * np.sin(1.5 * p[0] + p[-1] + np.arange(dim)[:, None])          # (dim, N)
    return (smooth + 0.01 * rng.standard_normal(p.shape)).T.ravel()


def test_shuffled_mesh_has_both_orientations():
    for dim in (2, 3):
        p, t = _shuffled_mesh(dim)
        edges = np.stack([p[:, t[k]] - p[:, t[0]] for k in range(1, dim + 1)], axis=1)
        det = np.linalg.det(np.moveaxis(edges, -1, 0))
        assert (det > 0).any() and (det < 0).any()


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("dim", [2, 3])
def test_force_and_tangent_equal_the_scikit_fem_forms(material, dim):
    p, t = _shuffled_mesh(dim)
    u = _large_displacement(p)
    f, K = p1_force_and_tangent(p, t, material, u)
    f_forms, K_forms = _forms(p, t, material, u)
    assert np.all(np.isfinite(f_forms)) and np.abs(f_forms).max() > 1.0    # a real, large state
    assert np.abs(f - f_forms).max() <= 1e-12 * np.abs(f_forms).max()
    assert abs(K - K_forms).max() <= 1e-12 * abs(K_forms).max()
    assert K.has_sorted_indices and K.shape == (dim * p.shape[1],) * 2
    # the force alone (first_piola, no tangent) is the same vector
    assert np.abs(p1_internal_force(p, t, material, u) - f_forms).max() <= 1e-12 * np.abs(f_forms).max()


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("dim", [2, 3])
def test_tangent_is_the_central_difference_of_the_force(material, dim):
    p, t = _shuffled_mesh(dim, seed=2)
    simplices = P1Simplices(p, t)
    u = _large_displacement(p, seed=3)
    _, K = simplices.force_and_tangent(material, u)
    rng = np.random.default_rng(4)
    for _ in range(2):
        direction = rng.standard_normal(u.size)
        h = 1e-6
        fd = (simplices.force(material, u + h * direction)
              - simplices.force(material, u - h * direction)) / (2 * h)
        np.testing.assert_allclose(K @ direction, fd, atol=1e-7 * np.abs(fd).max())
    assert abs(K - K.T).max() <= 1e-12 * abs(K).max()                 # hyperelastic: symmetric


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("dim", [2, 3])
def test_tangent_at_rest_is_the_linear_p1_stiffness(material, dim):
    p, t = _shuffled_mesh(dim, seed=5)
    f, K = p1_force_and_tangent(p, t, material, np.zeros(dim * p.shape[1]))
    lam, mu = material.lame(dim)                # plane strain in 2D: the 3D values
    assert (lam, mu) == material.lame(3)
    K_lin = p1_stiffness(p, t, lam, mu)
    assert np.abs(f).max() <= 1e-13 * material.E
    assert abs(K - K_lin).max() <= 1e-12 * abs(K_lin).max()
    assert K.nnz == K_lin.nnz and np.array_equal(K.indices, K_lin.indices)  # same pattern


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("dim", [2, 3])
def test_first_piola_is_the_stress_of_stress(material, dim):
    rng = np.random.default_rng(6)
    F = np.eye(dim)[:, :, None, None] + 0.2 * rng.standard_normal((dim, dim, 5, 3))
    P, _ = material.stress(F)
    np.testing.assert_allclose(material.first_piola(F), P, rtol=1e-14, atol=1e-14 * np.abs(P).max())


def test_deformation_gradient_of_a_homogeneous_deformation():
    """u = (F0 - I) X gives F0 on every element, whatever the vertex order."""
    p, t = _shuffled_mesh(3, seed=7)
    F0 = np.array([[1.1, 0.2, 0.0], [-0.1, 0.9, 0.05], [0.0, 0.3, 1.2]])
    u = ((F0 - np.eye(3)) @ p).T.ravel()
    F = P1Simplices(p, t).deformation_gradients(u)
    np.testing.assert_allclose(F, np.broadcast_to(F0[:, :, None], F.shape), atol=1e-13)


def test_bulk_system_uses_the_fast_path_and_evaluates_each_quantity_once_per_state(monkeypatch):
    """The force needs P only; the tangent P and A (one ``stress`` call); both are kept for
    their state, so a Newton iteration's force and tangent cost one of each."""
    mesh = skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 4)] * 3)
    material = NeoHookean(E=100.0, nu=0.3)
    body = ElasticBody.create("block", mesh, "P1", material)
    system = build_system([body], (), (), ())
    u = _large_displacement(mesh.p) + 5.0                          # with a rigid translation
    w = (u.reshape(-1, 3) - u.reshape(-1, 3).mean(axis=0)).ravel()
    f_forms, K_forms = internal_force(body.basis, material, w), tangent_stiffness(body.basis, material, w)

    calls, piola = [], []
    stress, first_piola = NeoHookean.stress, NeoHookean.first_piola
    monkeypatch.setattr(NeoHookean, "stress", lambda self, F: calls.append(F.shape) or stress(self, F))
    monkeypatch.setattr(NeoHookean, "first_piola",
                        lambda self, F: piola.append(F.shape) or first_piola(self, F))
    force = system.internal_force(u)
    assert calls == [] and piola == [(3, 3, mesh.t.shape[1])]      # P only, one F per element
    K_hat = system.tangent_K_hat(u)                                 # no Dirichlet: T = I
    assert calls == [(3, 3, mesh.t.shape[1])]                       # once, one F per element
    np.testing.assert_allclose(force, f_forms, rtol=0, atol=1e-12 * np.abs(f_forms).max())
    assert abs(K_hat - K_forms).max() <= 1e-12 * abs(K_forms).max()
    system.tangent_K_hat(u.copy())                                  # keyed on the values, cached
    system.internal_force(u.copy())
    assert len(calls) == 1 and len(piola) == 1
    system.internal_force(1.01 * u)                                 # a new state
    assert len(calls) == 1 and len(piola) == 2
