r"""Hyperelastic materials for finite deformation: first Piola–Kirchhoff stress and its tangent.

Total Lagrangian: with the deformation gradient :math:`F = I + \nabla_X u`
(shape ``(d, d, ...)``, any trailing quadrature axes), each material gives
the first Piola–Kirchhoff stress :math:`P = \partial W / \partial F` and the
material tangent :math:`\mathbb{A} = \partial P / \partial F` (shape
``(d, d, d, d, ...)``, :math:`\mathbb{A}_{iJkL} = \partial P_{iJ} / \partial F_{kL}`).
In 2D the state is plane strain: :math:`F_{33} = 1`, so the 2 x 2 blocks
below are exact; a body of revolution (``plane="axisymmetric"``) evaluates
them in 3D with :math:`F_{\theta\theta} = 1 + u_r/R`
(:mod:`fecontact.bodies.axisymmetric`).  Lamé parameters come from ``E`` and ``nu`` as in linear
elasticity, so small strains reproduce :class:`fecontact.bodies.elasticity.Material`.

* **St. Venant–Kirchhoff**: :math:`E = \tfrac12(F^TF - I)`,
  :math:`S = \lambda\,\mathrm{tr}E\,I + 2\mu E`, :math:`P = FS`,

  .. math::
      \mathbb{A}_{iJkL} = \delta_{ik} S_{JL}
        + F_{iM}\big(\lambda\delta_{MJ}\delta_{NL} + \mu(\delta_{MN}\delta_{JL}
        + \delta_{ML}\delta_{JN})\big)F_{kN}.

* **compressible neo-Hookean**:
  :math:`W = \tfrac{\mu}{2}(I_1 - 3) - \mu\ln J + \tfrac{\lambda}{2}(\ln J)^2`,
  :math:`P = \mu(F - F^{-T}) + \lambda\ln J\,F^{-T}`,

  .. math::
      \mathbb{A}_{iJkL} = \mu\delta_{ik}\delta_{JL}
        + (\mu - \lambda\ln J)\,F^{-1}_{Jk}F^{-1}_{Li}
        + \lambda\,F^{-1}_{Ji}F^{-1}_{Lk}.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass
from typing import ClassVar

import numpy as np

from .elasticity import Material, plane_model

__all__ = ["Hyperelastic", "NeoHookean", "SaintVenantKirchhoff", "HYPERELASTIC"]


@dataclass(frozen=True)
class Hyperelastic(Material):
    """A hyperelastic material given by its small-strain Young's modulus and Poisson ratio.

    A :class:`~fecontact.bodies.elasticity.Material` (so the linear stiffness
    at ``u = 0``, the automatic augmentation and the model checks use its
    ``E`` and ``nu``) whose bodies are solved in finite deformation (total
    Lagrangian, :mod:`fecontact.bodies.finite_strain`).

    Parameters
    ----------
    E : float
        Young's modulus (small-strain), in [1e-100, 1e100].
    nu : float
        Poisson ratio (small-strain), ``-1 < nu < 0.5``.
    model : str
        The 2D model, ``"plane_strain"`` or ``"axisymmetric"`` (plane
        stress is not available in finite deformation).
    density : float
        Mass per reference volume, >= 0.
    plane : str, optional
        The 2D model in the words of :func:`fecontact.LinearElastic`
        (``"plane_strain"``, ``"axisymmetric"``; ``"strain"`` too); when
        given it sets ``model``.
    """

    name: ClassVar[str] = ""
    plane: InitVar[str | None] = None

    def __post_init__(self, plane=None):
        if plane is not None:
            object.__setattr__(self, "model", plane_model(plane))
        super().__post_init__()
        if self.model == "plane_stress":
            raise ValueError("plane = 'plane_stress': finite-strain materials are in plane strain "
                             "or axisymmetric in 2D")

    def energy(self, F: np.ndarray) -> np.ndarray:
        """Strain energy per reference volume, shape ``F.shape[2:]``."""
        raise NotImplementedError

    def stress(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P, A)``: first Piola–Kirchhoff stress (d, d, ...) and tangent (d, d, d, d, ...)."""
        raise NotImplementedError

    def first_piola(self, F: np.ndarray) -> np.ndarray:
        """The first Piola–Kirchhoff stress ``P`` alone, shape ``F.shape``.

        Equal to ``stress(F)[0]`` (to round-off) without forming the tangent
        ``A`` (``d**2`` times larger): for internal forces without a
        Jacobian.  This default calls :meth:`stress`; the models override it.
        """
        return self.stress(F)[0]


def _eye(d: int, F: np.ndarray) -> np.ndarray:
    """The identity broadcast to the trailing axes of ``F``, shape (d, d, 1, ...)."""
    return np.eye(d).reshape((d, d) + (1,) * (F.ndim - 2))


def _log_volume(J: np.ndarray) -> np.ndarray:
    """``ln J``, NaN where ``J <= 0`` (an inverted element: the energy is not defined there)
    without a floating-point warning; a residual with it is reported non-finite."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log(J)


def _inverse(F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(F^{-1}, det F)`` for stacks of (d, d) matrices on the first two axes."""
    G = np.moveaxis(F, (0, 1), (-2, -1))
    return np.moveaxis(np.linalg.inv(G), (-2, -1), (0, 1)), np.linalg.det(G)


@dataclass(frozen=True)
class SaintVenantKirchhoff(Hyperelastic):
    """St. Venant–Kirchhoff: linear in the Green–Lagrange strain (case files: ``saint_venant_kirchhoff``)."""

    name: ClassVar[str] = "saint_venant_kirchhoff"

    def _strain(self, F):
        d = F.shape[0]
        return 0.5 * (np.einsum("mi...,mj...->ij...", F, F) - _eye(d, F))

    def energy(self, F: np.ndarray) -> np.ndarray:
        lam, mu = self.lame(3)
        E = self._strain(F)
        tr = np.einsum("ii...->...", E)
        return 0.5 * lam * tr**2 + mu * np.einsum("ij...,ij...->...", E, E)

    def first_piola(self, F: np.ndarray) -> np.ndarray:
        lam, mu = self.lame(3)
        E = self._strain(F)
        S = 2.0 * mu * E
        trace = lam * np.einsum("ii...->...", E)
        for i in range(F.shape[0]):
            S[i, i] += trace
        return np.einsum("im...,mj...->ij...", F, S)

    def stress(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lam, mu = self.lame(3)
        d = F.shape[0]
        E = self._strain(F)
        I = _eye(d, F)
        S = lam * np.einsum("ii...->...", E) * I + 2.0 * mu * E
        P = np.einsum("im...,mj...->ij...", F, S)
        A = np.einsum("ik,JL...->iJkL...", np.eye(d), S)
        A = A + lam * np.einsum("iJ...,kL...->iJkL...", F, F)
        A = A + mu * np.einsum("iM...,kM...,JL->iJkL...", F, F, np.eye(d))
        A = A + mu * np.einsum("iL...,kJ...->iJkL...", F, F)
        return P, A


@dataclass(frozen=True)
class NeoHookean(Hyperelastic):
    """Compressible neo-Hookean, ``W = mu/2 (I1 - 3) - mu ln J + lambda/2 (ln J)^2`` (``neo_hookean``).

    Examples
    --------
    A unit square compressed by 30 % between its clamped bottom and top edges:

    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()
    >>> block = fc.Body("block", mesh, "P1", fc.NeoHookean(E=1e3, nu=0.3))
    >>> result = fc.Model([block.fix("bottom").fix("top", x=0.0, y=-0.3)]).solve(steps=3)
    >>> result.converged, f"{result.reaction('top')[1]:.3g}"
    (True, '-500')
    """

    name: ClassVar[str] = "neo_hookean"

    def energy(self, F: np.ndarray) -> np.ndarray:
        lam, mu = self.lame(3)
        d = F.shape[0]
        _, J = _inverse(F)
        I1 = np.einsum("ij...,ij...->...", F, F) + (3 - d)     # plane strain: F33 = 1
        logJ = _log_volume(J)
        return 0.5 * mu * (I1 - 3.0) - mu * logJ + 0.5 * lam * logJ ** 2

    def first_piola(self, F: np.ndarray) -> np.ndarray:
        lam, mu = self.lame(3)
        Finv, J = _inverse(F)
        FinvT = np.swapaxes(Finv, 0, 1)
        return mu * (F - FinvT) + lam * _log_volume(J) * FinvT

    def stress(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lam, mu = self.lame(3)
        d = F.shape[0]
        Finv, J = _inverse(F)
        logJ = _log_volume(J)
        FinvT = np.swapaxes(Finv, 0, 1)
        P = mu * (F - FinvT) + lam * logJ * FinvT
        A = mu * np.einsum("ik,JL->iJkL", np.eye(d), np.eye(d)).reshape(
            (d,) * 4 + (1,) * (F.ndim - 2))
        A = A + (mu - lam * logJ) * np.einsum("Jk...,Li...->iJkL...", Finv, Finv)
        A = A + lam * np.einsum("Ji...,Lk...->iJkL...", Finv, Finv)
        return P, A


#: case-file names of the hyperelastic models
HYPERELASTIC = {cls.name: cls for cls in (NeoHookean, SaintVenantKirchhoff)}
