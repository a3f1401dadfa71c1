r"""Interference fits ramped in: an initial overlap removed gradually (Abaqus ``SHRINK``).

A slave node that starts inside its master (a shaft larger than its bore)
has a negative initial gap ``g0``.  Left alone, the contact conditions
remove the whole overlap in the first increment.  With an
:class:`Interference` the pair solves with the shifted gap

.. math::

    \tilde g(u, t) = g(u) - \big(1 - a(t)\big)\,\min(g_0, 0),

so the overlap still allowed, ``(1 - a(t)) max(-g0, 0)``, decreases from the
whole initial overlap to zero as the amplitude ``a(t)`` goes from 0 to 1.
The shift is constant in ``u``: the derivatives of the gap, and so the
Jacobian, are those of ``g``.  Nodes that start apart (``g0 >= 0``) are not
shifted.  ``g0`` is measured once, when the pair is made, in the pair's own
formulation and rows: each node's gap (node-to-segment, node-to-facet,
obstacles), the weighted gap (mortar), or the weighted rows of quadratic 3D
slave surfaces (and each node's own gap next to them).  As it depends on the
reference configuration only, a restarted run measures the same ``g0``.

In a linear problem the contact pressure at ``a`` is ``a`` times the
pressure of the whole interference.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..bodies.conditions import Amplitude

#: the ``interference`` keyword that ramps the overlap in over the step, ``a(t) = t`` on [0, 1]
SHRINK = "shrink"


def interference_amplitude(value) -> Amplitude | None:
    """The amplitude of a pair's ``interference`` option (None: no ramp).

    Parameters
    ----------
    value : None, "shrink" or Amplitude
        ``"shrink"``: the ramp ``a(t) = t`` on ``[0, 1]``
        (:meth:`fecontact.Amplitude.ramp`); an amplitude: its values, the
        fraction of the initial overlap removed, within ``[0, 1]``.

    Returns
    -------
    Amplitude or None

    Raises
    ------
    ValueError
        One line starting with ``interference`` for anything else.
    """
    if value is None:
        return None
    if isinstance(value, str):
        if value != SHRINK:
            raise ValueError(f"interference = {value!r}; give {SHRINK!r} or an fc.Amplitude "
                             f"(the fraction of the initial overlap removed, 0 to 1)")
        return Amplitude.ramp()
    if not isinstance(value, Amplitude):
        raise ValueError(f"interference must be {SHRINK!r} or an fc.Amplitude, got "
                         f"{type(value).__name__}")
    values = np.asarray(value.values, float)
    times = np.asarray(value.times, float)
    if (values.size == 0 or values.shape != times.shape or not np.all(np.isfinite(values))
            or not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0)):
        raise ValueError("interference amplitude needs finite times, strictly increasing, and "
                         "one finite value per time")
    if np.any((values < 0.0) | (values > 1.0)):
        raise ValueError(f"interference amplitude values must lie in [0, 1] (the fraction of the "
                         f"initial overlap removed), got {[float(v) for v in values]}")
    return value


@dataclass(frozen=True)
class Interference:
    """The initial overlap of a pair's contact rows and the amplitude that removes it.

    Attributes
    ----------
    amplitude : Amplitude
        ``a(t)``: the fraction of the initial overlap removed at pseudo-time ``t``.
    initial_gap : ndarray, shape (m,)
        ``g0`` of each contact row (the rows' gaps at ``u = 0``, ``t = 0``).
    initial_node_gap : ndarray, shape (m,)
        Each node's own ``g0`` (differs from ``initial_gap`` on slave
        surfaces whose rows are weighted, :func:`fecontact.contact.pairs.multiplier_rows`).
    """

    amplitude: Amplitude
    initial_gap: np.ndarray
    initial_node_gap: np.ndarray

    @classmethod
    def unmeasured(cls, amplitude: Amplitude, m: int) -> "Interference":
        """No overlap yet (``g0 = 0``, no shift) for ``m`` rows: :meth:`measure` fills it in."""
        return cls(amplitude, np.zeros(m), np.zeros(m))

    def measure(self, kin) -> None:
        """Take ``g0`` from the kinematics ``kin`` (PairKinematics) of the undeformed pair, in place.

        Called once, as the pair is made, on kinematics evaluated while
        ``g0 = 0`` (no shift); the arrays are read-only afterwards.
        """
        self.initial_gap[:] = kin.local.gap
        self.initial_node_gap[:] = kin.own_gap
        self.initial_gap.flags.writeable = False
        self.initial_node_gap.flags.writeable = False

    def allowed(self, t: float, node: bool = False) -> np.ndarray:
        """The overlap still allowed at ``t``, ``(1 - a(t)) max(-g0, 0)``, shape (m,), >= 0."""
        g0 = self.initial_node_gap if node else self.initial_gap
        return (1.0 - self.amplitude(t)) * np.maximum(-g0, 0.0)

    def shifted(self, kin, t: float):
        """``kin`` (PairKinematics) with the gaps ``g + allowed(t)``; derivatives unchanged."""
        node_gap = None if kin.node_gap is None else kin.node_gap + self.allowed(t, node=True)
        return replace(kin, local=replace(kin.local, gap=kin.local.gap + self.allowed(t)),
                       node_gap=node_gap)
