"""Materials of the model API: :func:`LinearElastic` (the hyperelastic materials are
:class:`fecontact.NeoHookean` and :class:`fecontact.SaintVenantKirchhoff`)."""

from __future__ import annotations

from ..bodies.elasticity import Material, plane_model
from ..sensitivity.parameters import Parameter

__all__ = ["LinearElastic"]


def LinearElastic(E: float, nu: float, plane: str = "plane_strain", density: float = 0.0) -> Material:
    """An isotropic linear-elastic material.

    Parameters
    ----------
    E : float
        Young's modulus, ``> 0``.
    nu : float
        Poisson ratio in ``(-1, 0.5)``.
    plane : {"plane_strain", "plane_stress", "axisymmetric"}
        The 2D model (ignored in 3D); the same words as ``plane`` in case
        files; ``"strain"`` and ``"stress"`` are accepted for the first two.
        ``"axisymmetric"``: a body of revolution meshed in the ``(r, z)``
        plane with ``x[0] = r >= 0``: the radial displacement on the axis
        is held, and forces (reactions, contact forces, loads given as
        totals) are totals over the full circumference while pressures and
        stresses are per area (:mod:`fecontact.bodies.axisymmetric`).
    density : float
        Mass per volume, ``>= 0`` (dynamic analyses need it ``> 0``).

    Returns
    -------
    Material

    Examples
    --------
    >>> import fecontact as fc
    >>> fc.LinearElastic(E=210e3, nu=0.3, plane="plane_stress")
    Material(E=210000.0, nu=0.3, model='plane_stress', density=0.0)
    >>> fc.LinearElastic(E=210e3, nu=0.3, plane="axisymmetric").model
    'axisymmetric'
    """
    return Material(_number(E), _number(nu), plane_model(plane), _number(density))


def _number(value) -> float:
    """``value`` as a float; a :class:`fecontact.Parameter` stays one (a model made again
    with other values finds it)."""
    return value if isinstance(value, Parameter) else float(value)
