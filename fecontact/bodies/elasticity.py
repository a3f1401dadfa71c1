"""Linear elasticity: materials and the assembled bulk operators.

The bulk stiffness of linear elasticity does not change during a contact
solve, so it is assembled once per problem (see :mod:`fecontact.bodies.system`).
Bodies of linear triangles and tetrahedra (element ``"P1"``) take a fast
path without quadrature (:mod:`fecontact.bodies.p1`) in
:func:`body_stiffness` and :func:`body_von_mises`; the functions taking a
scikit-fem basis work for every element.

A body may have one material per mesh region
(:class:`fecontact.bodies.body.ElasticBody`): the ``body_*`` functions then
use the parameters of every element.  A body of one material takes the
same arithmetic as before, with scalar parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import skfem
from skfem.helpers import ddot, dot, eye, sym_grad, trace

from ..fields import Modulus, NonNegative, Poisson, validate
from . import axisymmetric as ring
from .p1 import p1_displacement_gradients, p1_stiffness

#: The 2D models of a material: the words of ``plane=`` in the API and of ``plane`` in case files
PLANE_MODELS = ("plane_strain", "plane_stress", "axisymmetric")
#: The case-file name of the linear-elastic material (``model`` key; the default)
LINEAR_ELASTIC = "linear_elastic"
#: Older words accepted for them: ``plane="strain"`` in the API, ``model = "plane_strain"`` in case files
PLANE_ALIASES = {"strain": "plane_strain", "stress": "plane_stress"}


def plane_model(word: str) -> str:
    """The 2D model a word names: one of :data:`PLANE_MODELS` or an alias of :data:`PLANE_ALIASES`.

    Raises
    ------
    ValueError
        For any other word (the message lists the accepted ones).
    """
    model = PLANE_ALIASES.get(word, word)
    if model not in PLANE_MODELS:
        raise ValueError(f"plane must be one of {', '.join(map(repr, PLANE_MODELS))} (or "
                         f"{', '.join(map(repr, PLANE_ALIASES))}), got {word!r}")
    return model


@dataclass(frozen=True)
class Material:
    """Isotropic linear-elastic material.

    Parameters
    ----------
    E : float
        Young's modulus (> 0).
    nu : float
        Poisson ratio, ``-1 < nu < 0.5``.
    model : str
        The 2D model: ``"plane_strain"``, ``"plane_stress"`` or
        ``"axisymmetric"`` (a body of revolution meshed in the ``(r, z)``
        plane, :mod:`fecontact.bodies.axisymmetric`); ignored in 3D.
    density : float
        Mass per volume, ``>= 0``; only dynamic analyses use it.
    """

    E: Modulus
    nu: Poisson
    model: str = "plane_strain"
    density: NonNegative = 0.0

    def __post_init__(self):
        validate(self)          # the ranges of the case-file schema (fecontact.fields)
        if self.model not in PLANE_MODELS:
            raise ValueError(f"material model must be one of {PLANE_MODELS}, got {self.model!r}")

    def lame(self, dim: int) -> tuple[float, float]:
        """Lamé parameters ``(lambda, mu)`` used by the ``dim``-D weak form.

        Plane stress uses ``lambda* = E nu / (1 - nu^2)``.
        """
        E, nu = self.E, self.nu
        mu = E / (2.0 * (1.0 + nu))
        if dim == 2 and self.model == "plane_stress":
            return E * nu / (1.0 - nu**2), mu
        return E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), mu

    def contact_modulus(self, dim: int) -> float:
        """Modulus ``E' = E/(1-nu^2)`` (plane strain, 3D) or ``E`` (plane stress)."""
        if dim == 2 and self.model == "plane_stress":
            return self.E
        return self.E / (1.0 - self.nu**2)


def body_stiffness(body, elements: np.ndarray | None = None):
    """Bulk stiffness of a :class:`fecontact.bodies.body.ElasticBody` (scipy.sparse CSR).

    ``elements`` (indices into the mesh's elements) assembles those elements
    only, in the same DOF layout: one rank's share of the body
    (:mod:`fecontact.bodies.share`).

    P1 bodies use :func:`fecontact.bodies.p1.p1_stiffness` and never build the
    scikit-fem basis; other elements use :func:`lame_stiffness`.  Both give the
    same matrix to round-off in the same DOF layout; the P1 pattern also
    keeps the explicit zeros of the full ``dim x dim`` block of every vertex
    pair sharing an element.  A body of several materials passes the Lamé
    parameters of every element (:meth:`~fecontact.bodies.body.ElasticBody.element_lame`);
    a body of one material passes scalars, as :func:`stiffness` does.
    """
    if len(body.materials) == 1:
        lam, mu = body.materials[0].lame(body.dim)
    else:
        lam, mu = body.element_lame()
        if elements is not None:
            lam, mu = lam[elements], mu[elements]
    mesh = body.mesh
    if body.axisymmetric:
        if elements is not None and not elements.size:
            return sp.csr_matrix((body.n_nodes * body.dim,) * 2)
        basis = body.basis if elements is None else body.element_basis(elements)
        return ring.stiffness(basis, _at_quadrature(basis, lam), _at_quadrature(basis, mu))
    if body.is_linear_simplex:
        return p1_stiffness(mesh.p, mesh.t if elements is None else mesh.t[:, elements], lam, mu)
    if elements is None:
        return lame_stiffness(body.basis, lam, mu)
    if not elements.size:
        n = body.n_nodes * body.dim
        return sp.csr_matrix((n, n))
    return lame_stiffness(body.element_basis(elements), lam, mu)


def stiffness(basis: skfem.Basis, material: Material):
    """Assemble ``K_ij = int sigma(phi_j) : eps(phi_i) dx`` of one material (scipy.sparse CSR).

    Works for every element through a scikit-fem ``BilinearForm``; for P1
    bodies :func:`body_stiffness` is much faster.
    """
    return lame_stiffness(basis, *material.lame(basis.mesh.dim()))


def lame_stiffness(basis: skfem.Basis, lam, mu):
    """Assemble the stiffness of Lamé parameters that are constant or vary per element (CSR).

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the body.
    lam, mu : float or ndarray, shape (basis.nelems,)
        Lamé parameters (in 2D those of the plane model), one value or one
        per element of the basis.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (basis.N, basis.N)
    """
    if np.ndim(lam) == 0 and np.ndim(mu) == 0:

        @skfem.BilinearForm
        def form(u, v, w):
            eps_u = sym_grad(u)
            sigma = 2.0 * mu * eps_u + lam * eye(trace(eps_u), eps_u.shape[0])
            return ddot(sigma, sym_grad(v))

        return form.assemble(basis).tocsr()

    @skfem.BilinearForm
    def varying(u, v, w):
        eps_u = sym_grad(u)
        sigma = 2.0 * w.mu * eps_u + w.lam * eye(trace(eps_u), eps_u.shape[0])
        return ddot(sigma, sym_grad(v))

    return varying.assemble(basis, lam=_at_quadrature(basis, lam),
                            mu=_at_quadrature(basis, mu)).tocsr()


def _at_quadrature(basis: skfem.Basis, values) -> np.ndarray:
    """Element values (scalar or shape (nelems,)) repeated over the quadrature points: (nelems, nqp)."""
    values = np.asarray(values, dtype=float)
    shape = (basis.nelems, basis.X.shape[-1])
    if values.ndim == 1 and values.size != shape[0]:
        raise ValueError(f"need one value per element ({shape[0]}), got {values.size}")
    column = values[:, None] if values.ndim == 1 else values
    return np.ascontiguousarray(np.broadcast_to(column, shape))


def mass(basis: skfem.Basis, density, axisymmetric: bool = False):
    """Assemble the consistent mass matrix ``M_ij = int rho phi_i . phi_j dx`` (CSR).

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the body.
    density : float or ndarray, shape (basis.nelems,)
        ``rho``, one value or one per element (e.g.
        :meth:`fecontact.bodies.body.ElasticBody.element_density`).  A
        constant array gives the same matrix as its one value.
    axisymmetric : bool
        ``dx = 2 pi r dA`` (a body of revolution, :mod:`fecontact.bodies.axisymmetric`).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (basis.N, basis.N)
    """
    values = np.asarray(density, dtype=float)
    if values.ndim == 0 or (values.size and np.all(values == values.flat[0])):
        rho = density if values.ndim == 0 else values.flat[0]

        @skfem.BilinearForm
        def form(u, v, w):
            return rho * dot(u, v) * _weight(w, axisymmetric)

        return form.assemble(basis).tocsr()

    @skfem.BilinearForm
    def varying(u, v, w):
        return w.rho * dot(u, v) * _weight(w, axisymmetric)

    return varying.assemble(basis, rho=_at_quadrature(basis, values)).tocsr()


def _weight(w, axisymmetric: bool):
    """The measure's weight at the quadrature points: ``2 pi r`` for a body of revolution, else 1."""
    return ring.ring_weight(w.x) if axisymmetric else 1.0


def constant_load(basis: skfem.AbstractBasis, value, axisymmetric: bool = False) -> np.ndarray:
    """Load vector ``int value . v`` of a constant vector ``value``, shape (N,).

    On a cell basis ``value`` is a body force (force per volume); on a
    :class:`skfem.FacetBasis` it is a surface traction (force per area).
    ``axisymmetric``: the integral carries ``2 pi r`` (the load on the
    whole body of revolution).
    """
    c = np.asarray(value, dtype=float)

    @skfem.LinearForm
    def form(v, w):
        return sum(c[i] * v[i] for i in range(c.size)) * _weight(w, axisymmetric)

    return form.assemble(basis)


def pressure_load(basis: skfem.FacetBasis, pressure: float, axisymmetric: bool = False) -> np.ndarray:
    r"""Load vector of a pressure on boundary facets, ``-int p n . v``, shape (N,).

    ``n`` is the outward unit normal of the body (scikit-fem's facet normal
    on boundary facets), so a positive pressure pushes on the surface:
    the traction is ``-p n`` (force per area, in the reference configuration).

    Parameters
    ----------
    basis : skfem.FacetBasis
        Vector basis on the loaded boundary facets.
    pressure : float
        ``p``, force per area.
    axisymmetric : bool
        ``ds`` carries ``2 pi r`` (a body of revolution).
    """
    p = float(pressure)

    @skfem.LinearForm
    def form(v, w):
        return -p * sum(w.n[i] * v[i] for i in range(w.n.shape[0])) * _weight(w, axisymmetric)

    return form.assemble(basis)


def stress(basis: skfem.Basis, material: Material, u: np.ndarray) -> np.ndarray:
    r"""Cauchy stress ``sigma = lambda tr(eps) I + 2 mu eps`` at the quadrature points.

    Parameters
    ----------
    basis : skfem.Basis
        Vector basis of the body.
    u : ndarray, shape (basis.N,)
        The body's displacement.

    Returns
    -------
    ndarray, shape (dim, dim, n_elements, n_quadrature_points)
        In plane strain and plane stress the in-plane components.
    """
    grad = basis.interpolate(u).grad
    return _stress_of_gradient(grad, *material.lame(grad.shape[0]))


def body_stress(body, u: np.ndarray) -> np.ndarray:
    r"""Cauchy stress at the quadrature points of a :class:`fecontact.bodies.body.ElasticBody`.

    Like :func:`stress`, with the material of every element.

    Parameters
    ----------
    u : ndarray, shape (dim*n_nodes,)
        The body's displacement.

    Returns
    -------
    ndarray, shape (dim, dim, n_elements, n_quadrature_points)
        In 2D the in-plane components (of a body of revolution too:
        :func:`fecontact.bodies.axisymmetric.stress` adds the hoop stress).
    """
    grad = body.basis.interpolate(u).grad
    lam, mu, _ = _body_parameters(body, grad.ndim - 3)
    if body.axisymmetric:
        return ring.stress(body.basis, lam, mu, u)[:2, :2]
    return _stress_of_gradient(grad, lam, mu)


def _body_parameters(body, extra: int) -> tuple:
    """``(lambda, mu, nu)`` of a body: scalars for one material, else per element with ``extra`` trailing axes."""
    if len(body.materials) == 1:
        material = body.materials[0]
        return (*material.lame(body.dim), material.nu)
    shape = (-1,) + (1,) * extra
    lam, mu = body.element_lame()
    return lam.reshape(shape), mu.reshape(shape), body.element_poisson().reshape(shape)


def _stress_of_gradient(grad: np.ndarray, lam, mu) -> np.ndarray:
    """Cauchy stress of displacement gradients ``grad``, shape (dim, dim, ...) -> same shape.

    ``lam`` and ``mu`` are scalars or arrays that broadcast against ``grad.shape[2:]``.
    """
    dim = grad.shape[0]
    eps = 0.5 * (grad + np.swapaxes(grad, 0, 1))
    trace = np.einsum("ii...->...", eps)
    extra = (1,) * (grad.ndim - 2)
    return lam * trace[None, None] * np.eye(dim).reshape((dim, dim) + extra) + 2.0 * mu * eps


def von_mises(basis: skfem.Basis, material: Material, u: np.ndarray) -> np.ndarray:
    r"""Von Mises stress per DOF node: element means averaged over the elements at each node.

    In plane strain the out-of-plane stress ``sigma_zz = nu (sigma_xx + sigma_yy)``
    enters; in plane stress it is zero.  Works for every element; for P1
    bodies :func:`body_von_mises` gives the same numbers without the basis.

    Returns
    -------
    ndarray, shape (n_dof_nodes,)
    """
    sigma = stress(basis, material, u)                      # (d, d, nel, nq)
    vm = _von_mises_of_stress(sigma, material.nu, material.model).mean(axis=1)     # (nel,)
    return _basis_node_average(basis, vm)


def _basis_node_average(basis: skfem.Basis, vm: np.ndarray) -> np.ndarray:
    """Mean of element values ``vm`` (nel,) over the elements at each DOF node of a vector basis."""
    dim = basis.mesh.dim()
    nodes = basis.element_dofs[::dim] // dim                                       # (nbfun, nel)
    return _node_average(nodes, vm, basis.N // dim)


def body_von_mises(body, u: np.ndarray) -> np.ndarray:
    """Von Mises stress per DOF node of a :class:`fecontact.bodies.body.ElasticBody`, shape (n_nodes,).

    P1 bodies: the strain is constant on every element, computed from
    :func:`fecontact.bodies.p1.simplex_gradients` without the scikit-fem
    basis; other elements use :func:`von_mises`.

    Parameters
    ----------
    u : ndarray, shape (dim*n_nodes,)
        The body's displacement.
    """
    if body.axisymmetric:
        lam, mu, nu = _body_parameters(body, 1)
        vm = _von_mises_of_stress(ring.stress(body.basis, lam, mu, u), nu, "").mean(axis=1)
        return _basis_node_average(body.basis, vm)
    if not body.is_linear_simplex:
        if len(body.materials) == 1:
            return von_mises(body.basis, body.materials[0], u)
        _, _, nu = _body_parameters(body, 1)
        vm = _von_mises_of_stress(body_stress(body, u), nu, body.plane_model).mean(axis=1)
        return _basis_node_average(body.basis, vm)
    mesh = body.mesh
    grad = p1_displacement_gradients(mesh.p, mesh.t, u)                          # (d, d, nel)
    lam, mu, nu = _body_parameters(body, 0)
    vm = _von_mises_of_stress(_stress_of_gradient(grad, lam, mu), nu, body.plane_model)
    return _node_average(mesh.t, vm, mesh.p.shape[1])


def _von_mises_of_stress(sigma: np.ndarray, nu, model: str) -> np.ndarray:
    """Von Mises stress of Cauchy stresses ``sigma``, shape (dim, dim, ...) -> (...).

    In 2D the out-of-plane ``sigma_zz`` of the plane ``model`` is added, with
    the Poisson ratio ``nu`` (scalar or broadcasting against ``sigma.shape[2:]``).
    """
    dim = sigma.shape[0]
    extra = (1,) * (sigma.ndim - 2)
    if dim == 2:
        szz = (nu * (sigma[0, 0] + sigma[1, 1]) if model == "plane_strain"
               else np.zeros_like(sigma[0, 0]))
        full = np.zeros((3, 3) + sigma.shape[2:])
        full[:2, :2] = sigma
        full[2, 2] = szz
        sigma = full
    mean = np.einsum("ii...->...", sigma) / 3.0
    dev = sigma - mean[None, None] * np.eye(3).reshape((3, 3) + extra)
    return np.sqrt(1.5 * np.einsum("ij...,ij...->...", dev, dev))


def _node_average(nodes: np.ndarray, values: np.ndarray, n_nodes: int) -> np.ndarray:
    """Mean of element ``values`` (n_el,) over the elements at each node; ``nodes`` (k, n_el)."""
    total = np.bincount(nodes.ravel(), weights=np.broadcast_to(values, nodes.shape).ravel(),
                        minlength=n_nodes)
    count = np.bincount(nodes.ravel(), minlength=n_nodes)
    return total / np.maximum(count, 1)
