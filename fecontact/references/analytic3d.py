r"""Closed-form reference solutions for 3D (axisymmetric) sphere contact.

- Hertz contact of elastic spheres (or a sphere on a flat) under a normal
  force ``P``: K. L. Johnson, *Contact Mechanics*, 1985, §4.2,

  .. math::

      a = \Big(\frac{3PR}{4E^*}\Big)^{1/3},\quad p_0 = \frac{3P}{2\pi a^2},\quad
      p(r) = p_0\sqrt{1 - r^2/a^2},\quad \delta = a^2/R.

- Cattaneo--Mindlin partial slip of spheres under a normal force ``P`` and
  then a monotonically increasing tangential force ``Q < mu P``, for
  elastically similar bodies (normal and tangential problems decouple):
  Johnson (1985), §7.2,

  .. math::

      \frac{c}{a} = \Big(1 - \frac{Q}{\mu P}\Big)^{1/3},\quad
      q(r) = \frac{3\mu P}{2\pi a^2}\Big[\sqrt{1 - r^2/a^2}
             - \frac{c}{a}\sqrt{1 - r^2/c^2}\,[r < c]\Big].

``R`` is the effective radius ``1/R = 1/R_1 + 1/R_2`` and ``E^*`` the
contact modulus of :func:`fecontact.references.analytic2d.effective_modulus` (the same
formula holds in 3D).  All functions broadcast over numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .analytic2d import OutsideReference, check_partial_slip, check_positive, elliptic


@dataclass(frozen=True)
class HertzSphere:
    """Hertz contact of a sphere of effective radius ``R`` under normal force ``P``."""

    P: float
    R: float
    E_star: float

    def __post_init__(self):
        check_positive(P=self.P, R=self.R, E_star=self.E_star)

    @property
    def contact_radius(self) -> float:
        """Radius of the contact circle, ``a = (3 P R / 4 E^*)^(1/3)``."""
        return (3.0 * self.P * self.R / (4.0 * self.E_star)) ** (1.0 / 3.0)

    @property
    def peak_pressure(self) -> float:
        """Pressure at the centre of contact, ``p_0 = 3 P / (2 pi a^2)``."""
        return 3.0 * self.P / (2.0 * np.pi * self.contact_radius**2)

    @property
    def approach(self) -> float:
        """Approach of distant points of the two bodies, ``delta = a^2 / R``."""
        return self.contact_radius**2 / self.R

    def pressure(self, r: ArrayLike) -> NDArray:
        """``p(r)``, zero outside the contact circle."""
        return self.peak_pressure * elliptic(r, self.contact_radius)


@dataclass(frozen=True)
class CattaneoMindlinSphere:
    """Partial slip of elastically similar spheres: normal ``P``, then tangential ``Q``."""

    P: float
    Q: float
    mu: float
    R: float
    E_star: float

    def __post_init__(self):
        check_positive(P=self.P, mu=self.mu, R=self.R, E_star=self.E_star)
        check_partial_slip(self.P, self.Q, self.mu)

    @property
    def hertz(self) -> HertzSphere:
        """The Hertz solution of the normal problem (same ``P``, ``R``, ``E^*``)."""
        return HertzSphere(self.P, self.R, self.E_star)

    @property
    def contact_radius(self) -> float:
        """Radius ``a`` of the contact circle, unchanged by ``Q`` (Hertz)."""
        return self.hertz.contact_radius

    @property
    def stick_radius(self) -> float:
        """Radius of the central stick zone, ``c = a (1 - Q / (mu P))^(1/3)``."""
        return self.contact_radius * (1.0 - self.Q / (self.mu * self.P)) ** (1.0 / 3.0)

    def pressure(self, r: ArrayLike) -> NDArray:
        """Hertz pressure ``p(r)``, zero outside the contact circle.

        Parameters
        ----------
        r : array_like
            Distance from the centre of contact.

        Returns
        -------
        ndarray
            Same shape as ``r``.
        """
        return self.hertz.pressure(r)

    def shear_traction(self, r: ArrayLike) -> NDArray:
        """Magnitude of the shear traction along ``Q``, ``q(r)``."""
        a, c = self.contact_radius, self.stick_radius
        scale = 3.0 * self.mu * self.P / (2.0 * np.pi * a**2)
        return scale * (elliptic(r, a) - (c / a) * elliptic(r, c))


def weighted_l2_error(weights: ArrayLike, numerical: ArrayLike, reference: ArrayLike) -> float:
    r"""Relative discrete :math:`L^2` error ``sqrt(sum w (f_h - f)^2 / sum w f^2)``.

    With lumped nodal areas as weights this is the nodal quadrature of
    ``||f_h - f||_{L^2(\Gamma)} / ||f||_{L^2(\Gamma)}``.
    """
    w = np.asarray(weights, float)
    fh, f = np.asarray(numerical, float), np.asarray(reference, float)
    denom = float(np.sum(w * f * f))
    if not denom > 0:
        raise OutsideReference("the reference has zero L2 norm on the samples")
    return float(np.sqrt(np.sum(w * (fh - f) ** 2) / denom))
