r"""Total Lagrangian internal force and consistent tangent of a hyperelastic body (scikit-fem forms).

On the reference configuration, with :math:`F = I + \nabla_X u`,

.. math::

    f_{int}(u) = \int_{\Omega_0} P(F) : \nabla_X v \, dV, \qquad
    K(u) = \int_{\Omega_0} \nabla_X v : \mathbb{A}(F) : \nabla_X \delta u \, dV,

with :math:`P` and :math:`\mathbb{A} = \partial P/\partial F` from
:mod:`fecontact.bodies.hyperelastic`.  :math:`K` holds the material and the
geometric (initial-stress) parts at once, since :math:`\mathbb{A}` is the
derivative of the first Piola–Kirchhoff stress.  The forms are written on a
scikit-fem vector basis, so they serve every element a body has (P1, P2
and Q1; triangles, quadrilaterals, tetrahedra, hexahedra) without change.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import skfem
from skfem.helpers import grad

__all__ = ["internal_force", "tangent_stiffness", "strain_energy"]


def _deformation_gradient(basis: skfem.Basis, u: np.ndarray) -> np.ndarray:
    """``F = I + grad u`` at the quadrature points, shape (d, d, elements, points)."""
    G = grad(basis.interpolate(u))
    d = G.shape[0]
    return np.eye(d).reshape(d, d, 1, 1) + G


@skfem.LinearForm
def _internal(v, w):
    return np.einsum("ij...,ij...->...", w["P"], grad(v))


@skfem.BilinearForm
def _tangent(du, v, w):
    A = w["A"]                                     # (d*d, d*d, elements, points)
    g_du, g_v = grad(du), grad(v)
    n = A.shape[0]
    Adu = np.einsum("ab...,b...->a...", A, g_du.reshape((n,) + g_du.shape[2:]))
    return np.sum(Adu * g_v.reshape((n,) + g_v.shape[2:]), axis=0)


def internal_force(basis: skfem.Basis, material, u: np.ndarray) -> np.ndarray:
    """``f_int(u)``, the vector of ``int P(F) : grad v``, shape (basis.N,).

    The stress is evaluated once at the quadrature points and handed to the
    form (not once per pair of basis functions).

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the displacement.
    material : Hyperelastic
    u : ndarray, shape (basis.N,)
        Displacement in the basis' DOF order.
    """
    P, _ = material.stress(_deformation_gradient(basis, u))
    return _internal.assemble(basis, P=P)


def tangent_stiffness(basis: skfem.Basis, material, u: np.ndarray) -> sp.csr_matrix:
    """``K(u) = d f_int / d u``, shape (basis.N, basis.N).

    Parameters
    ----------
    basis : skfem.Basis
    material : Hyperelastic
    u : ndarray, shape (basis.N,)
    """
    _, A = material.stress(_deformation_gradient(basis, u))
    d = A.shape[0]
    return _tangent.assemble(basis, A=A.reshape((d * d, d * d) + A.shape[4:])).tocsr()


def strain_energy(basis: skfem.Basis, material, u: np.ndarray) -> float:
    """``int W(F) dV`` over the reference configuration: the body's stored energy.

    Parameters
    ----------
    basis : skfem.Basis
    material : Hyperelastic
    u : ndarray, shape (basis.N,)
    """
    W = material.energy(_deformation_gradient(basis, u))
    return float(np.sum(W * basis.dx))
