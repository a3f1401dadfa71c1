"""The supernodal Cholesky factorisation that :func:`fecontact.solve.factor.factorize` makes by default.

Its solves and half solves against SciPy's sparse LU on a small SPD matrix, the
LU fallback of an indefinite tangent, and the ``schur`` backend's contact solve
(compliance by half solves) against the same backend with the simplicial
factorisation and whole compliance columns, and against ``direct``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import skfem

import fecontact as fc
from fecontact.solve import schur
from fecontact.solve.factor import LU, Cholesky, SupernodalCholesky, factorize


def _laplacian_2d(k: int, shift: float = 0.01) -> sp.csc_matrix:
    """The 5-point Laplacian on a ``k x k`` grid plus ``shift`` times the identity, shape (k^2, k^2)."""
    T = sp.diags([-np.ones(k - 1), 2 * np.ones(k), -np.ones(k - 1)], [-1, 0, 1])
    return (sp.kronsum(T, T) + shift * sp.eye(k * k)).tocsc()


def test_supernodal_solves_as_scipy():
    K = _laplacian_2d(30)
    rng = np.random.default_rng(1)
    b = rng.standard_normal((K.shape[0], 3))
    reference = spla.spsolve(K, b)
    F = factorize(K)
    assert isinstance(F, SupernodalCholesky)
    scale = np.abs(reference).max()
    assert np.abs(F.solve(b[:, 0]) - reference[:, 0]).max() <= 1e-10 * scale
    assert np.abs(F.solve(b) - reference).max() <= 1e-10 * scale
    assert F.solve(np.zeros((K.shape[0], 0))).shape == (K.shape[0], 0)
    assert isinstance(factorize(K, method="simplicial"), Cholesky)
    with pytest.raises(ValueError):
        factorize(K, method="dense")


def test_half_solves_give_the_compliance():
    K = _laplacian_2d(30)
    n = K.shape[0]
    rng = np.random.default_rng(2)
    B1 = sp.random(n, 7, density=0.01, random_state=3, format="csc") + sp.eye(n, 7, k=-100)
    B2 = sp.csc_matrix((np.ones(5), (rng.choice(n, 5, replace=False), np.arange(5))), shape=(n, 5))
    F = factorize(K)
    reference = B1.T @ spla.spsolve(K, B2.toarray())
    W = F.inner(F.half_solve(B1), F.half_solve(B2))
    assert W.shape == (7, 5)
    assert np.abs(W - reference).max() <= 1e-10 * np.abs(reference).max()
    # the sparse rows and the dense rows of the product
    W_sparse = F.inner(F.half_solve(B1), F.half_solve(B2), dense_fraction=np.inf)
    assert np.abs(W_sparse - reference).max() <= 1e-10 * np.abs(reference).max()


def test_an_indefinite_tangent_falls_back_to_lu():
    K = _laplacian_2d(12, shift=-0.3)              # eigenvalues of both signs
    with pytest.raises(RuntimeError):
        SupernodalCholesky(K)
    F = factorize(K, definite=False)
    assert isinstance(F, LU)
    b = np.arange(K.shape[0], dtype=float)
    assert np.abs(K @ F.solve(b) - b).max() <= 1e-10 * np.abs(b).max()
    assert isinstance(factorize(_laplacian_2d(12), definite=False), SupernodalCholesky)


def _blocks(friction):
    """A block pressed on a wider block; with friction held at its top only vertically, so that
    only contact holds it sideways (the pinned springs of ``schur``)."""
    lower = fc.Body("lower", skfem.MeshTri.init_tensor(np.linspace(0, 1, 17), np.linspace(-0.5, 0, 9)),
                    "P1", fc.LinearElastic(1e3, 0.3))
    upper = fc.Body("upper", skfem.MeshTri.init_tensor(np.linspace(0.3, 0.7, 11), np.linspace(0, 0.2, 5)),
                    "P1", fc.LinearElastic(1e3, 0.3))
    lower.fix(lambda x: np.isclose(x[1], -0.5), name="base")
    top = dict(y=-0.01) if friction else dict(x=0.0, y=-0.01)
    upper.fix(lambda x: np.isclose(x[1], 0.2), name="top", **top)
    law = fc.Coulomb(friction) if friction else fc.Frictionless()
    pair = fc.Contact(upper.surface(lambda x: np.isclose(x[1], 0)),
                      lower.surface(lambda x: np.isclose(x[1], 0)), law, name="c")
    return fc.Model([lower, upper], [pair])


@pytest.mark.parametrize("friction", [None, 0.3])
def test_schur_by_half_solves_solves_as_before(monkeypatch, friction):
    newton = fc.NewtonOptions(tolerance=1e-10)
    # the supernodal factor, whose compliance schur takes by half solves
    monkeypatch.setattr(schur, "factorize",
                        lambda K, definite=True, method=None: factorize(K, definite, method="supernodal"))
    half = _blocks(friction).solve(backend="schur", newton=newton)
    direct = _blocks(friction).solve(backend="direct", newton=newton)
    # whole compliance columns by the simplicial factorisation
    monkeypatch.setattr(schur, "factorize",
                        lambda K, definite=True, method=None: factorize(K, definite, method="simplicial"))
    columns = _blocks(friction).solve(backend="schur", newton=newton)
    for result in (half, direct, columns):
        assert result.converged
    scale = np.abs(direct.displacement).max()
    # each Newton step exact: the same iterates to round-off
    assert np.abs(half.displacement - columns.displacement).max() <= 1e-10 * scale
    # against direct, to Newton's tolerance
    assert np.abs(half.displacement - direct.displacement).max() <= 1e-6 * scale
    p, q = half.contact("c"), direct.contact("c")
    assert np.array_equal(p.status, q.status)
    assert np.abs(p.pressure - q.pressure).max() <= 1e-6 * np.abs(q.pressure).max()
    assert q.pressure.max() > 0
