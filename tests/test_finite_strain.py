"""Hyperelastic materials and the total Lagrangian forms, against finite differences and closed forms.

* ``P = dW/dF`` and ``A = dP/dF`` of both materials agree with central
  differences of the energy and of the stress (2D plane strain and 3D);
* the assembled tangent agrees with central differences of the assembled
  internal force on P1, P2 and Q1 elements in 2D and 3D, at a deformed state;
* at ``u = 0`` the tangent is the linear-elastic stiffness of the same E, nu;
* a block compressed by 30 % between frictionless rollers (homogeneous
  plane-strain and 3D uniaxial stress) gives the reaction of the closed form,
  with the lateral stretch from ``P_lateral = 0`` solved independently.
"""

import numpy as np
import pytest
import scipy.sparse.linalg as spla
import skfem
from scipy.optimize import brentq

from fecontact.bodies.elasticity import Material, stiffness
from fecontact.bodies.finite_strain import internal_force, tangent_stiffness
from fecontact.bodies.hyperelastic import NeoHookean, SaintVenantKirchhoff

MATERIALS = [NeoHookean(100.0, 0.3), SaintVenantKirchhoff(100.0, 0.3)]
ELEMENTS = {
    "P1-2D": (lambda: skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 4)] * 2), skfem.ElementTriP1),
    "P2-2D": (lambda: skfem.MeshTri.init_tensor(*[np.linspace(0, 1, 3)] * 2), skfem.ElementTriP2),
    "Q1-2D": (lambda: skfem.MeshQuad.init_tensor(*[np.linspace(0, 1, 4)] * 2), skfem.ElementQuad1),
    "P1-3D": (lambda: skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 3)] * 3), skfem.ElementTetP1),
    "P2-3D": (lambda: skfem.MeshTet.init_tensor(*[np.linspace(0, 1, 2)] * 3), skfem.ElementTetP2),
    "Q1-3D": (lambda: skfem.MeshHex.init_tensor(*[np.linspace(0, 1, 3)] * 3), skfem.ElementHex1),
}


def _basis(name):
    make, element = ELEMENTS[name]
    mesh = make()
    return skfem.Basis(mesh, skfem.ElementVector(element()))


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("d", [2, 3])
def test_stress_and_tangent_are_derivatives_of_the_energy(material, d):
    rng = np.random.default_rng(3)
    F = np.eye(d)[:, :, None] + 0.25 * rng.standard_normal((d, d, 7))
    P, A = material.stress(F)
    h = 1e-6
    for k in range(d):
        for L in range(d):
            dF = np.zeros_like(F)
            dF[k, L] = h
            dW = (material.energy(F + dF) - material.energy(F - dF)) / (2 * h)
            dP = (material.stress(F + dF)[0] - material.stress(F - dF)[0]) / (2 * h)
            np.testing.assert_allclose(P[k, L], dW, atol=1e-7 * np.abs(P).max())
            np.testing.assert_allclose(A[:, :, k, L], dP, atol=1e-7 * np.abs(A).max())


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", list(ELEMENTS))
def test_assembled_tangent_is_the_derivative_of_the_internal_force(material, name):
    basis = _basis(name)
    rng = np.random.default_rng(5)
    x = basis.doflocs
    u = 0.15 * np.sin(2.0 * x[0] + x[-1] + 0.3) + 0.02 * rng.standard_normal(basis.N)  # large strain
    K = tangent_stiffness(basis, material, u)
    direction = rng.standard_normal(basis.N)
    h = 1e-6
    fd = (internal_force(basis, material, u + h * direction)
          - internal_force(basis, material, u - h * direction)) / (2 * h)
    np.testing.assert_allclose(K @ direction, fd, atol=1e-6 * np.abs(fd).max())
    assert abs(K - K.T).max() <= 1e-10 * abs(K).max()           # hyperelastic: symmetric


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", ["P1-2D", "Q1-3D", "P2-3D"])
def test_small_strain_tangent_is_linear_elasticity(material, name):
    basis = _basis(name)
    K0 = tangent_stiffness(basis, material, np.zeros(basis.N))
    K_lin = stiffness(basis, Material(material.E, material.nu, "plane_strain"))
    assert abs(K0 - K_lin).max() <= 1e-10 * abs(K_lin).max()


def _uniaxial_reaction(material, dim, stretch):
    """Closed form: axial P of a homogeneous stretch with free lateral faces (P_lateral = 0)."""
    def stress(lateral):
        F = np.diag([lateral] * (dim - 1) + [stretch])[:, :, None]
        return material.stress(F)[0][:, :, 0]
    lateral = brentq(lambda a: stress(a)[0, 0], 0.5, 2.0, xtol=1e-15)
    return stress(lateral)[dim - 1, dim - 1], lateral


@pytest.mark.parametrize("material", MATERIALS, ids=lambda m: m.name)
@pytest.mark.parametrize("name", ["Q1-2D", "P1-3D"])
def test_block_compressed_by_30_percent_matches_the_closed_form(material, name):
    """Rollers below and on the symmetry faces, the top pushed down by 0.3: Newton on K(u)."""
    basis = _basis(name)
    dim = basis.mesh.dim()
    top = basis.get_dofs(lambda p: np.isclose(p[-1], 1.0)).nodal[f"u^{dim}"]
    fixed = [basis.get_dofs(lambda p, c=c: np.isclose(p[c], 0.0)).nodal[f"u^{c + 1}"]
             for c in range(dim)]
    D = np.unique(np.concatenate(fixed + [top]))
    u = np.zeros(basis.N)
    stretch = 0.7
    for level in np.linspace(0.1, 1.0, 10):          # load steps of 3 % strain
        u[top] = -(1 - stretch) * level
        for _ in range(30):
            r = internal_force(basis, material, u)
            free = np.setdiff1d(np.arange(basis.N), D)
            if np.linalg.norm(r[free]) <= 1e-12 * material.E:
                break
            K = tangent_stiffness(basis, material, u)
            u[free] -= spla.spsolve(K[free][:, free].tocsc(), r[free])
        else:
            raise AssertionError("Newton did not converge")
    reaction = internal_force(basis, material, u)[top].sum()     # top face, unit reference area
    expected, lateral = _uniaxial_reaction(material, dim, stretch)
    assert abs(reaction - expected) <= 1e-9 * abs(expected)
    # homogeneous: the free side face moves out by (lateral stretch - 1) everywhere
    side = basis.get_dofs(lambda p: np.isclose(p[0], 1.0)).nodal["u^1"]
    np.testing.assert_allclose(u[side], lateral - 1.0, atol=1e-10)
