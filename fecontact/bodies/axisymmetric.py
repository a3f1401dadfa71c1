r"""Bodies of revolution: the bulk integrals of a body meshed in the ``(r, z)`` plane.

A 2D body whose material has ``model = "axisymmetric"`` stands for the solid
swept by turning its mesh once about the ``z`` axis (the mesh's second
coordinate); the first coordinate is the radius ``r = x[0] >= 0``.  The
displacement ``(u_r, u_z)`` does not depend on the angle, and the strain has a
third normal component, the hoop strain,

.. math::

    \varepsilon = \begin{pmatrix} \partial_r u_r & \tfrac12(\partial_z u_r + \partial_r u_z) & 0 \\
    \cdot & \partial_z u_z & 0 \\ 0 & 0 & u_r / r \end{pmatrix},

and in finite deformation the deformation gradient likewise gains
``F_{\theta\theta} = 1 + u_r / R``.  Every integral over the body or its
boundary carries the weight ``2 pi r`` of the full circumference:

.. math::

    K_{ij} = \int_\Omega \sigma(\phi_j) : \varepsilon(\phi_i)\, 2\pi r \,\mathrm{d}A, \qquad
    f_i = \int_\Gamma t \cdot \phi_i \, 2\pi r \,\mathrm{d}s,

so nodal forces, reactions and contact forces are totals over the
circumference (as Abaqus reports them for CAX elements) and pressures and
stresses are per area.  The radial displacement on the axis (``r = 0``) is
zero; :class:`fecontact.model.Body` imposes it.

The functions take vector scikit-fem bases and Lamé parameters given at the
quadrature points, shape ``(n_elements, n_points)``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import skfem

__all__ = ["ring_weight", "ring_gradient", "ring_strain", "stiffness", "stress",
           "internal_force", "tangent_stiffness", "strain_energy", "axis_nodes"]

TWO_PI = 2.0 * np.pi


def ring_weight(x: np.ndarray) -> np.ndarray:
    """The circumference ``2 pi r`` at points ``x`` of shape (2, ...), shape ``x.shape[1:]``."""
    return TWO_PI * x[0]


def ring_gradient(value: np.ndarray, gradient: np.ndarray, r: np.ndarray) -> np.ndarray:
    r"""The 3x3 displacement gradient of a body of revolution.

    Parameters
    ----------
    value : ndarray, shape (2, ...)
        ``(u_r, u_z)`` at the points.
    gradient : ndarray, shape (2, 2, ...)
        ``grad u`` in the ``(r, z)`` plane.
    r : ndarray, shape (...)
        Radius of the points, ``> 0``.

    Returns
    -------
    ndarray, shape (3, 3, ...)
        ``[[grad u, 0], [0, u_r / r]]``.
    """
    G = np.zeros((3, 3) + gradient.shape[2:])
    G[:2, :2] = gradient
    G[2, 2] = value[0] / r
    return G


def ring_strain(value: np.ndarray, gradient: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The small strain with its hoop component, shape (3, 3, ...) (see :func:`ring_gradient`)."""
    G = ring_gradient(value, gradient, r)
    return 0.5 * (G + np.swapaxes(G, 0, 1))


def _hooke(eps: np.ndarray, lam, mu) -> np.ndarray:
    """``lambda tr(eps) I + 2 mu eps`` of 3x3 strains (3, 3, ...)."""
    sigma = 2.0 * mu * eps
    trace = lam * np.einsum("ii...->...", eps)
    for i in range(3):
        sigma[i, i] = sigma[i, i] + trace
    return sigma


@skfem.BilinearForm
def _stiffness(u, v, w):
    r = w.x[0]
    eps_u = ring_strain(u, u.grad, r)
    eps_v = ring_strain(v, v.grad, r)
    return np.einsum("ij...,ij...->...", _hooke(eps_u, w.lam, w.mu), eps_v) * TWO_PI * r


def stiffness(basis: skfem.Basis, lam: np.ndarray, mu: np.ndarray) -> sp.csr_matrix:
    r"""``K_ij = int sigma(phi_j) : eps(phi_i) 2 pi r dA`` with the hoop strain (CSR).

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the body in the ``(r, z)`` plane.
    lam, mu : ndarray, shape (basis.nelems, n_points)
        The 3D Lamé parameters at the quadrature points.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (basis.N, basis.N)
    """
    return _stiffness.assemble(basis, lam=lam, mu=mu).tocsr()


def stress(basis: skfem.Basis, lam, mu, u: np.ndarray) -> np.ndarray:
    """Cauchy stress with the hoop component at the quadrature points.

    Parameters
    ----------
    basis : skfem.Basis
    lam, mu : float or ndarray broadcasting against (n_elements, n_points)
    u : ndarray, shape (basis.N,)

    Returns
    -------
    ndarray, shape (3, 3, n_elements, n_points)
        ``sigma[2, 2]`` is the hoop stress.
    """
    field = basis.interpolate(u)
    eps = ring_strain(field, field.grad, _radius(basis))
    return _hooke(eps, lam, mu)


def _radius(basis: skfem.Basis) -> np.ndarray:
    """Radius ``x[0]`` of the quadrature points, shape (n_elements, n_points)."""
    return basis.mapping.F(basis.X)[0]


def _gradient_3d(basis: skfem.Basis, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(F, r)``: the 3x3 deformation gradient and the radius at the quadrature points."""
    field = basis.interpolate(u)
    r = _radius(basis)
    return np.eye(3).reshape(3, 3, 1, 1) + ring_gradient(field, field.grad, r), r


@skfem.LinearForm
def _internal(v, w):
    r = w.x[0]
    return np.einsum("ij...,ij...->...", w["P"], ring_gradient(v, v.grad, r)) * TWO_PI * r


@skfem.BilinearForm
def _tangent(du, v, w):
    r = w.x[0]
    g_du = ring_gradient(du, du.grad, r).reshape((9,) + r.shape)
    g_v = ring_gradient(v, v.grad, r).reshape((9,) + r.shape)
    Adu = np.einsum("ab...,b...->a...", w["A"], g_du)
    return np.sum(Adu * g_v, axis=0) * TWO_PI * r


def internal_force(basis: skfem.Basis, material, u: np.ndarray) -> np.ndarray:
    r"""``f_int(u) = int P(F) : G(v) 2 pi R dA`` in total Lagrangian form, shape (basis.N,).

    ``F`` and the test gradient ``G(v)`` are the 3x3 gradients of
    :func:`ring_gradient`; ``material`` is a
    :class:`fecontact.bodies.hyperelastic.Hyperelastic` evaluated in 3D.
    """
    F, _ = _gradient_3d(basis, u)
    return _internal.assemble(basis, P=material.first_piola(F))


def tangent_stiffness(basis: skfem.Basis, material, u: np.ndarray) -> sp.csr_matrix:
    """``K(u) = d f_int / d u`` of :func:`internal_force`, shape (basis.N, basis.N)."""
    F, _ = _gradient_3d(basis, u)
    _, A = material.stress(F)
    return _tangent.assemble(basis, A=A.reshape((9, 9) + A.shape[4:])).tocsr()


def strain_energy(basis: skfem.Basis, material, u: np.ndarray) -> float:
    """``int W(F) 2 pi R dA``: the stored energy of the whole body of revolution."""
    F, r = _gradient_3d(basis, u)
    return float(np.sum(material.energy(F) * TWO_PI * r * basis.dx))


def axis_nodes(coords: np.ndarray, where: str) -> np.ndarray:
    """The nodes on the axis ``r = 0`` of a mesh in the ``(r, z)`` plane.

    Parameters
    ----------
    coords : ndarray, shape (2, n)
        Node coordinates ``(r, z)``.
    where : str
        Names the body in the error message.

    Returns
    -------
    ndarray of int, shape (k,)
        Nodes with ``r <= 1e-9 * size`` (``size``: the mesh's extent).

    Raises
    ------
    ValueError
        If a node lies at ``r < 0`` (the mesh is not in the half plane
        ``r >= 0``).
    """
    size = float(np.ptp(coords, axis=1).max()) or 1.0
    tol = 1e-9 * size
    if coords[0].min() < -tol:
        k = int(np.argmin(coords[0]))
        raise ValueError(f"{where}: an axisymmetric mesh lies in r = x[0] >= 0; node {k} is at "
                         f"r = {coords[0, k]:.6g}")
    return np.flatnonzero(coords[0] <= tol)
