"""Fast P1 assembly against scikit-fem: stiffness, gradients, von Mises and lazy bases."""

import numpy as np
import pytest
import scipy.sparse as sp
import skfem

from fecontact import mesh as meshgen
from fecontact.bodies.p1 import p1_displacement_gradients, p1_stiffness, simplex_gradients
from fecontact.bodies.body import ElasticBody
from fecontact.bodies.elasticity import (Material, body_stiffness, body_von_mises, stiffness,
                                         von_mises)
from fecontact.analysis.mass import node_adjacency


def _perturbed(mesh, amount, seed):
    """The mesh with its interior vertices moved randomly, each coordinate by up to ``amount * h``.

    ``h`` is the shortest edge, so small amounts keep every element positive.
    """
    rng = np.random.default_rng(seed)
    p = mesh.p.copy()
    edges = mesh.facets if mesh.dim() == 2 else mesh.edges
    h = np.linalg.norm(p[:, edges[0]] - p[:, edges[1]], axis=0).min()
    interior = np.setdiff1d(np.arange(p.shape[1]), mesh.boundary_nodes())
    p[:, interior] += amount * h * rng.uniform(-1.0, 1.0, (p.shape[0], interior.size))
    return type(mesh)(p, mesh.t)


def _tri_irregular():
    """A disc of triangles of varying shape and size, perturbed."""
    return _perturbed(skfem.MeshTri1.init_circle(3), 0.2, 1)


MESHES = {
    "tri-structured": lambda: skfem.MeshTri1().refined(3),
    "tri-perturbed": lambda: _perturbed(skfem.MeshTri1().refined(3), 0.2, 0),
    "tri-circle": _tri_irregular,
    "tet-structured": lambda: skfem.MeshTet1().refined(2),
    "tet-perturbed": lambda: _perturbed(skfem.MeshTet1().refined(2), 0.2, 2),
    "tet-hemisphere": lambda: meshgen.hemisphere(h_contact=0.1, h_far=0.4, refine_width=0.3),
}
MATERIALS = {
    "plane_strain": Material(210.0, 0.3, "plane_strain"),
    "plane_stress": Material(70.0, 0.45, "plane_stress"),
}


def _vector_basis(mesh):
    elem = skfem.ElementTriP1() if mesh.dim() == 2 else skfem.ElementTetP1()
    return skfem.Basis(mesh, skfem.ElementVector(elem))


def _cases():
    for mesh_name in MESHES:
        models = MATERIALS if mesh_name.startswith("tri") else {"3d": MATERIALS["plane_strain"]}
        for model in models:
            yield pytest.param(mesh_name, models[model], id=f"{mesh_name}-{model}")


def _relative_difference(A, B) -> float:
    return abs(A - B).max() / abs(B).max()


@pytest.mark.parametrize("mesh_name, material", list(_cases()))
def test_p1_stiffness_equals_scikit_fem(mesh_name, material):
    mesh = MESHES[mesh_name]()
    K_ref = stiffness(_vector_basis(mesh), material)
    K = p1_stiffness(mesh.p, mesh.t, *material.lame(mesh.dim()))
    assert isinstance(K, sp.csr_matrix) and K.shape == K_ref.shape
    assert K.has_sorted_indices
    assert _relative_difference(K, K_ref) < 1e-12
    # every entry scikit-fem stores is stored here too (which may keep more: full blocks)
    assert _pattern(K_ref).multiply(_pattern(K)).nnz == K_ref.nnz


def _pattern(A) -> sp.csr_matrix:
    """Stored entries of a CSR matrix (explicit zeros included) as ones."""
    A = A.tocsr()
    A.sum_duplicates()
    return sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)


def _rigid_modes(p):
    """Translations and infinitesimal rotations in the interleaved layout, shape (dim*N, n_modes)."""
    dim, n = p.shape
    x = p - p.mean(axis=1, keepdims=True)
    modes = [np.repeat(np.eye(dim)[:, [c]], n, axis=1) for c in range(dim)]
    for i, j in ([(0, 1)] if dim == 2 else [(0, 1), (1, 2), (2, 0)]):
        r = np.zeros_like(p)
        r[i], r[j] = -x[j], x[i]
        modes.append(r)
    return np.array([m.T.ravel() for m in modes]).T


@pytest.mark.parametrize("mesh_name", list(MESHES))
def test_rigid_modes_span_the_null_space(mesh_name):
    mesh = MESHES[mesh_name]()
    K = p1_stiffness(mesh.p, mesh.t, 1.3, 0.7)
    modes = _rigid_modes(mesh.p)
    scale = abs(K).max() * np.abs(modes).max()
    assert np.abs(K @ modes).max() < 1e-12 * scale
    if K.shape[0] <= 1500:                        # and nothing else: K is positive on the rest
        eigenvalues = np.linalg.eigvalsh(K.toarray())
        assert np.sum(eigenvalues < 1e-10 * eigenvalues[-1]) == modes.shape[1]


@pytest.mark.parametrize("mesh_name", list(MESHES))
def test_pattern_and_values_are_symmetric(mesh_name):
    mesh = MESHES[mesh_name]()
    K = p1_stiffness(mesh.p, mesh.t, 2.0, 1.0)
    pattern = _pattern(K)
    assert abs(pattern - pattern.T).nnz == 0
    assert abs(K - K.T).max() <= 1e-14 * abs(K).max()
    # every vertex pair sharing an element has a full dim x dim block
    dim = mesh.dim()
    assert K.nnz == dim * dim * _node_pairs(mesh.t)


def _node_pairs(t) -> int:
    """Number of ordered vertex pairs sharing an element (including a vertex with itself)."""
    k = t.shape[0]
    keys = (t[:, None, :].astype(np.int64) * (t.max() + 1) + t[None, :, :]).reshape(k * k, -1)
    return np.unique(keys).size


@pytest.mark.parametrize("mesh_name", ["tri-perturbed", "tet-perturbed", "tet-hemisphere"])
def test_simplex_gradients_match_scikit_fem(mesh_name):
    mesh = MESHES[mesh_name]()
    elem = skfem.ElementTriP1() if mesh.dim() == 2 else skfem.ElementTetP1()
    basis = skfem.Basis(mesh, elem, intorder=1)
    g, measure = simplex_gradients(mesh.p, mesh.t)
    assert g.shape == (mesh.t.shape[1], mesh.dim() + 1, mesh.dim())
    for a in range(mesh.dim() + 1):
        ref = basis.basis[a][0].grad[:, :, 0].T                        # (n_el, dim)
        np.testing.assert_allclose(g[:, a], ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(measure, basis.dx.sum(axis=1), rtol=1e-12)


def test_displacement_gradient_is_exact_for_linear_fields():
    mesh = MESHES["tet-perturbed"]()
    A = np.array([[0.1, -0.2, 0.3], [0.05, 0.0, -0.4], [0.2, 0.1, 0.15]])
    u = (A @ mesh.p).T.ravel()
    G = p1_displacement_gradients(mesh.p, mesh.t, u)
    np.testing.assert_allclose(G, np.broadcast_to(A[:, :, None], G.shape), atol=1e-13)


def _body(mesh_name, material, element="P1"):
    return ElasticBody.create("b", MESHES[mesh_name](), element, material)


@pytest.mark.parametrize("mesh_name, material", list(_cases()))
def test_p1_von_mises_equals_basis_result(mesh_name, material):
    body = _body(mesh_name, material)
    u = 1e-2 * np.random.default_rng(3).standard_normal(body.dim * body.n_nodes)
    fast = body_von_mises(body, u)
    assert "basis" not in vars(body)
    reference = von_mises(_vector_basis(body.mesh), material, u)
    assert fast.shape == (body.n_nodes,)
    np.testing.assert_allclose(fast, reference, rtol=1e-12, atol=1e-12 * reference.max())


def test_plane_strain_von_mises_includes_sigma_zz():
    """Uniaxial strain in plane strain: sigma_zz = nu (sigma_xx + sigma_yy) changes the result."""
    strain, stress_free = Material(100.0, 0.3, "plane_strain"), Material(100.0, 0.3, "plane_stress")
    mesh = MESHES["tri-perturbed"]()
    u = np.stack([1e-3 * mesh.p[0], 0.0 * mesh.p[1]]).T.ravel()
    values = {}
    for mat in (strain, stress_free):
        body = ElasticBody.create("b", mesh, "P1", mat)
        lam, mu = mat.lame(2)
        sxx, syy = (lam + 2 * mu) * 1e-3, lam * 1e-3
        szz = mat.nu * (sxx + syy) if mat.model == "plane_strain" else 0.0
        expected = np.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2))
        values[mat.model] = body_von_mises(body, u)
        np.testing.assert_allclose(values[mat.model], expected, rtol=1e-10)
    assert not np.allclose(values["plane_strain"], values["plane_stress"])


@pytest.mark.parametrize("mesh_name", ["tri-perturbed", "tet-hemisphere"])
def test_p1_body_is_lazy_and_keeps_the_scikit_fem_layout(mesh_name):
    body = _body(mesh_name, MATERIALS["plane_strain"])
    dofs, coords, n = body.node_dofs, body.node_coords, body.n_nodes
    K = body_stiffness(body)
    assert "basis" not in vars(body)              # nothing above built the scikit-fem basis
    assert not coords.flags.writeable
    basis = body.basis                            # built on demand, then cached
    assert vars(body)["basis"] is basis and body.basis is basis
    assert n == basis.N // body.dim
    np.testing.assert_array_equal(dofs, basis.nodal_dofs)
    np.testing.assert_allclose(coords, basis.doflocs[:, basis.nodal_dofs[0]], rtol=0, atol=1e-15)
    assert _relative_difference(K, stiffness(basis, body.material)) < 1e-12


def test_p1_node_adjacency_matches_the_basis():
    mesh = MESHES["tet-hemisphere"]()
    body = ElasticBody.create("b", mesh, "P1", MATERIALS["plane_strain"])

    class OneBody:
        bodies = (body,)
        node_offset = np.array([0, body.n_nodes])
        dim = 3

    fast = node_adjacency(OneBody)
    assert "basis" not in vars(body)
    nodes = body.basis.element_dofs[::3] // 3
    k = nodes.shape[0]
    ref = sp.csr_matrix((np.ones(k * k * nodes.shape[1]),
                         (np.repeat(nodes, k, axis=0).ravel(), np.tile(nodes, (k, 1)).ravel())),
                        shape=fast.shape)
    assert abs(fast - ref).max() == 0


@pytest.mark.parametrize("element, mesh", [("P2", skfem.MeshTri1().refined(2)),
                                           ("Q1", skfem.MeshQuad1().refined(2)),
                                           ("P2", skfem.MeshTet1().refined(1))])
def test_other_elements_build_the_basis_and_use_scikit_fem(element, mesh):
    body = ElasticBody.create("b", mesh, element, MATERIALS["plane_stress"])
    assert "basis" in vars(body)                  # the layout check needs it
    K = body_stiffness(body)
    assert abs(K - stiffness(body.basis, body.material)).max() == 0
    u = np.random.default_rng(5).standard_normal(K.shape[0])
    np.testing.assert_array_equal(body_von_mises(body, u), von_mises(body.basis, body.material, u))


@pytest.mark.parametrize("mesh", [skfem.MeshTri1().refined(3), skfem.MeshTet1().refined(2)],
                         ids=["tri", "tet"])
def test_simplex_corner_jacobians_equal_the_shape_function_sum(mesh):
    """The simplex shortcut of ``corner_jacobians`` against ``J = sum_i x_i grad N_i^T`` at the corners."""
    from fecontact.mesh.quality import corner_jacobians

    rng = np.random.default_rng(4)
    mesh = type(mesh)(mesh.p + 0.02 * rng.standard_normal(mesh.p.shape), mesh.t)
    element = mesh.elem()
    corners = type(mesh).init_refdom().p
    x = mesh.p[:, mesh.t]
    J = 0.0
    for i in range(mesh.t.shape[0]):
        _, grad = element.lbasis(corners, i)
        J = J + x[:, i, None, None, :] * grad[None, :, :, None]
    expected = np.linalg.det(np.moveaxis(J, (0, 1), (-2, -1))).T
    np.testing.assert_allclose(corner_jacobians(mesh), expected, rtol=1e-12,
                               atol=1e-14 * np.abs(expected).max())
