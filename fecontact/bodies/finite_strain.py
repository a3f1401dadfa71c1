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

__all__ = ["internal_force", "tangent_stiffness"]


def _deformation_gradient(w) -> np.ndarray:
    """``F = I + grad u`` at the quadrature points, shape (d, d, elements, points)."""
    G = grad(w["u"])
    d = G.shape[0]
    return np.eye(d).reshape(d, d, 1, 1) + G


def internal_force(basis: skfem.Basis, material, u: np.ndarray) -> np.ndarray:
    """``f_int(u)``, the vector of ``int P(F) : grad v``, shape (basis.N,).

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the displacement.
    material : Hyperelastic
    u : ndarray, shape (basis.N,)
        Displacement in the basis' DOF order.
    """
    @skfem.LinearForm
    def form(v, w):
        P, _ = material.stress(_deformation_gradient(w))
        return np.einsum("ij...,ij...->...", P, grad(v))

    return form.assemble(basis, u=basis.interpolate(u))


def tangent_stiffness(basis: skfem.Basis, material, u: np.ndarray) -> sp.csr_matrix:
    """``K(u) = d f_int / d u``, shape (basis.N, basis.N).

    Parameters
    ----------
    basis : skfem.Basis
    material : Hyperelastic
    u : ndarray, shape (basis.N,)
    """
    @skfem.BilinearForm
    def form(du, v, w):
        _, A = material.stress(_deformation_gradient(w))
        return np.einsum("iJkL...,kL...,iJ...->...", A, grad(du), grad(v))

    return form.assemble(basis, u=basis.interpolate(u)).tocsr()
