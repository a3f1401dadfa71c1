"""Closed-form reference solutions for 2D (plane strain) cylinder contact.

The formulas are those of line contact between elastic cylinders with
parallel axes, loaded by a normal force ``P`` and a tangential force ``Q``
per unit length:

- Hertz line contact: K. L. Johnson, *Contact Mechanics*, Cambridge
  University Press, 1985, ch. 4 (two-dimensional contact of cylinders).
- Cattaneo--Mindlin partial slip of cylinders under a monotonically
  increasing tangential force: Johnson (1985), ch. 7 (incipient sliding).

All functions accept numpy arrays and broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "effective_modulus",
    "effective_radius",
    "HertzLine",
    "CattaneoMindlinLine",
    "OutsideReference",
    "relative_l2_error",
]

# numpy < 2 names the trapezoidal rule ``trapz``
_trapezoid = getattr(np, "trapezoid", None) or np.trapz


def effective_modulus(E1: ArrayLike, nu1: ArrayLike,
                      E2: Optional[ArrayLike] = None,
                      nu2: Optional[ArrayLike] = None):
    r"""Plane-strain contact modulus :math:`E^*` of two elastic bodies.

    .. math::

        \frac{1}{E^*} = \frac{1 - \nu_1^2}{E_1} + \frac{1 - \nu_2^2}{E_2}

    (Johnson 1985, ch. 4).

    Parameters
    ----------
    E1, nu1
        Young's modulus and Poisson's ratio of the first body.
    E2, nu2
        Same for the second body.  ``E2=None`` means a rigid second body,
        for which the second term vanishes (``nu2`` is then ignored).

    Returns
    -------
    float or numpy.ndarray
        The effective modulus :math:`E^*`.

    Raises
    ------
    ValueError
        If ``E2`` is given without ``nu2``.
    """
    compliance = (1.0 - np.square(nu1)) / np.asarray(E1, dtype=float)
    if E2 is not None:
        if nu2 is None:
            raise ValueError("nu2 is required when E2 is given")
        compliance = compliance + (1.0 - np.square(nu2)) / np.asarray(
            E2, dtype=float)
    return 1.0 / compliance


def effective_radius(R1: ArrayLike, R2: Optional[ArrayLike] = None):
    r"""Effective radius of curvature of two cylinders in contact.

    .. math::

        \frac{1}{R} = \frac{1}{R_1} + \frac{1}{R_2}

    (Johnson 1985, ch. 4).  A concave surface has a negative radius.

    Parameters
    ----------
    R1
        Radius of the first cylinder.
    R2
        Radius of the second cylinder; ``None`` means a flat surface
        (:math:`R_2 = \infty`).

    Returns
    -------
    float or numpy.ndarray
        The effective radius :math:`R`.
    """
    curvature = 1.0 / np.asarray(R1, dtype=float)
    if R2 is not None:
        curvature = curvature + 1.0 / np.asarray(R2, dtype=float)
    return 1.0 / curvature


class OutsideReference(ValueError):
    """Parameters outside the range where an analytic solution holds (a zero load, full sliding).

    A ``ValueError``: the formulas refuse such parameters.  A run whose final
    state falls outside its reference's range is still a solved run;
    :func:`fecontact.references.metrics.evaluate_reference` says why it is not
    compared.
    """


def check_positive(**values: float) -> None:
    """Raise :class:`OutsideReference` naming the first of the keyword arguments that is not positive."""
    for name, value in values.items():
        if not value > 0:
            raise OutsideReference(f"{name} must be positive, got {value!r}")


def check_partial_slip(P: float, Q: float, mu: float) -> None:
    """Cattaneo-Mindlin needs a tangential load below full sliding, ``0 <= Q < mu P``."""
    if not 0.0 <= Q < mu * P:
        raise OutsideReference(f"Cattaneo-Mindlin needs 0 <= Q < mu P = {mu * P!r}, got Q = {Q!r}")


def elliptic(x: ArrayLike, half_width: float) -> NDArray:
    """``sqrt(1 - (x / w)**2)`` for ``|x| < w = half_width``, else 0."""
    s = np.asarray(x, dtype=float) / half_width
    return np.sqrt(np.clip(1.0 - s * s, 0.0, None))


@dataclass(frozen=True)
class HertzLine:
    r"""Hertz contact of two cylinders with parallel axes (plane strain).

    With :math:`P` the normal force per unit length, :math:`R` the effective
    radius and :math:`E^*` the effective modulus (Johnson 1985, ch. 4):

    .. math::

        a = \sqrt{\frac{4 P R}{\pi E^*}}, \qquad
        p_0 = \frac{2 P}{\pi a} = \sqrt{\frac{P E^*}{\pi R}}, \qquad
        p(x) = p_0 \sqrt{1 - (x/a)^2} \quad (|x| < a),

    and :math:`p(x) = 0` for :math:`|x| \geq a`.

    Parameters
    ----------
    P
        Normal force per unit length.
    R
        Effective radius, see :func:`effective_radius`.
    E_star
        Effective modulus, see :func:`effective_modulus`.
    """

    P: float
    R: float
    E_star: float

    def __post_init__(self):
        check_positive(P=self.P, R=self.R, E_star=self.E_star)

    @property
    def half_width(self) -> float:
        """Contact half width :math:`a = \\sqrt{4 P R / (\\pi E^*)}`."""
        return float(np.sqrt(4.0 * self.P * self.R / (np.pi * self.E_star)))

    @property
    def peak_pressure(self) -> float:
        """Maximum pressure :math:`p_0 = 2 P / (\\pi a)`."""
        return 2.0 * self.P / (np.pi * self.half_width)

    def pressure(self, x: ArrayLike) -> NDArray:
        """Contact pressure at ``x``, measured from the contact centre.

        Parameters
        ----------
        x
            Positions along the contact surface.

        Returns
        -------
        numpy.ndarray
            :math:`p_0 \\sqrt{1 - (x/a)^2}` inside the contact, 0 outside.
        """
        return self.peak_pressure * elliptic(x, self.half_width)


@dataclass(frozen=True)
class CattaneoMindlinLine:
    r"""Partial slip of cylinders under normal and tangential load.

    A normal force :math:`P` is applied first, then a tangential force
    :math:`0 \le Q < \mu P` (both per unit length) is increased
    monotonically.  The normal pressure is the Hertz pressure with half
    width :math:`b = a` and peak :math:`p_0`; a central stick zone
    :math:`|x| < c` is surrounded by slip zones (Johnson 1985, ch. 7):

    .. math::

        \frac{c}{b} = \sqrt{1 - \frac{Q}{\mu P}},

        q(x) = \begin{cases}
            \mu p_0 \sqrt{1 - (x/b)^2}
            - \mu p_0 \frac{c}{b} \sqrt{1 - (x/c)^2}, & |x| < c, \\
            \mu p_0 \sqrt{1 - (x/b)^2}, & c \le |x| < b, \\
            0, & |x| \ge b.
        \end{cases}

    The shear traction :math:`q` is positive in the direction of
    :math:`Q` and integrates to :math:`Q`.

    Parameters
    ----------
    P
        Normal force per unit length.
    Q
        Tangential force per unit length, ``0 <= Q < mu * P``.
    mu
        Coulomb friction coefficient.
    R
        Effective radius, see :func:`effective_radius`.
    E_star
        Effective modulus, see :func:`effective_modulus`.

    Raises
    ------
    ValueError
        If ``Q`` is outside ``[0, mu * P)`` or ``P``, ``mu``, ``R``,
        ``E_star`` are not positive.
    """

    P: float
    Q: float
    mu: float
    R: float
    E_star: float

    def __post_init__(self):
        check_positive(P=self.P, mu=self.mu, R=self.R, E_star=self.E_star)
        check_partial_slip(self.P, self.Q, self.mu)

    @property
    def hertz(self) -> HertzLine:
        """The underlying Hertz normal contact."""
        return HertzLine(self.P, self.R, self.E_star)

    @property
    def half_width(self) -> float:
        """Contact half width :math:`b` (the Hertz half width)."""
        return self.hertz.half_width

    @property
    def peak_pressure(self) -> float:
        """Maximum pressure :math:`p_0 = 2 P / (\\pi b)`."""
        return self.hertz.peak_pressure

    @property
    def stick_half_width(self) -> float:
        """Stick zone half width :math:`c = b \\sqrt{1 - Q / (\\mu P)}`."""
        return self.half_width * float(
            np.sqrt(1.0 - self.Q / (self.mu * self.P)))

    def pressure(self, x: ArrayLike) -> NDArray:
        """Hertz contact pressure at ``x``, see :meth:`HertzLine.pressure`."""
        return self.hertz.pressure(x)

    def shear_traction(self, x: ArrayLike) -> NDArray:
        """Shear traction :math:`q(x)` at ``x``, positive along ``Q``.

        Parameters
        ----------
        x
            Positions measured from the contact centre.

        Returns
        -------
        numpy.ndarray
            The Cattaneo--Mindlin shear traction.
        """
        b, c = self.half_width, self.stick_half_width
        scale = self.mu * self.peak_pressure
        q = scale * elliptic(x, b)
        if c > 0.0:
            q = q - scale * (c / b) * elliptic(x, c)
        return q


def relative_l2_error(x: ArrayLike, numerical: ArrayLike,
                      reference_fn: Callable[[NDArray], NDArray]) -> float:
    r"""Relative :math:`L^2` error of sampled values against a reference.

    .. math::

        e = \sqrt{\frac{\int (f_h - f)^2 \, dx}{\int f^2 \, dx}}

    Both integrals use the trapezoidal rule on the sample points sorted by
    ``x``.

    Parameters
    ----------
    x
        Sample positions, in any order.
    numerical
        Numerical values :math:`f_h` at ``x``.
    reference_fn
        Callable returning the reference :math:`f` at an array of
        positions.

    Returns
    -------
    float
        The relative error :math:`e`.

    Raises
    ------
    ValueError
        If the shapes of ``x`` and ``numerical`` differ, fewer than two
        points are given or the reference has zero norm.
    """
    x = np.asarray(x, dtype=float).ravel()
    numerical = np.asarray(numerical, dtype=float).ravel()
    if x.shape != numerical.shape:
        raise ValueError("x and numerical must have the same length")
    if x.size < 2:
        raise ValueError("need at least two sample points")
    order = np.argsort(x, kind="stable")
    xs, fh = x[order], numerical[order]
    f = np.broadcast_to(np.asarray(reference_fn(xs), dtype=float), xs.shape)
    ref_sq = _trapezoid(f * f, xs)
    if not ref_sq > 0.0:
        raise OutsideReference("the reference has zero L2 norm on the samples")
    return float(np.sqrt(_trapezoid((fh - f) ** 2, xs) / ref_sq))
