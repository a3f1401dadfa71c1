"""Boundary conditions and loads of the bulk system: amplitudes, supports, couplings, springs, loads.

They are given per body (body-local nodes) and gathered into the
:class:`fecontact.bodies.system.BulkSystem`, which re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["Amplitude", "Dirichlet", "Coupling", "Spring", "Load"]


@dataclass(frozen=True)
class Amplitude:
    """Piecewise-linear amplitude ``a(t)`` from a table of ``(t, a)`` points.

    Constant beyond the table ends, like an Abaqus tabular amplitude.

    Parameters
    ----------
    times : tuple of float
        Increasing times ``t``.
    values : tuple of float
        The amplitude ``a`` at each time.

    Examples
    --------
    Up to 1 and back to 0; a support or load scales its value by ``a(t)``:

    >>> import fecontact as fc
    >>> up_and_down = fc.Amplitude(times=(0.0, 1.0, 2.0), values=(0.0, 1.0, 0.0))
    >>> up_and_down(0.5), up_and_down(1.5), up_and_down(3.0), fc.Amplitude.ramp()(2.0)
    (0.5, 0.5, 0.0, 1.0)

    In a model, e.g. ``body.fix("top", y=-0.01, amplitude=up_and_down)``.
    """

    times: tuple
    values: tuple

    @staticmethod
    def ramp() -> "Amplitude":
        """The linear ramp ``a(t) = t`` on ``[0, 1]``, held at 1 afterwards (the default amplitude)."""
        return Amplitude((0.0, 1.0), (0.0, 1.0))

    def __call__(self, t: float) -> float:
        return float(np.interp(t, self.times, self.values))


@dataclass(frozen=True)
class Dirichlet:
    """Imposed displacement ``value * a(t)`` on DOF nodes of one body."""

    name: str
    body: int
    nodes: np.ndarray
    components: tuple
    value: float
    amplitude: Amplitude


@dataclass(frozen=True)
class Coupling:
    """Nodes of one body sharing one displacement component, loaded by ``force * a(t)``."""

    name: str
    body: int
    nodes: np.ndarray
    component: int
    force: float
    amplitude: Amplitude


@dataclass(frozen=True)
class Spring:
    r"""A linear spring and dashpot from a moving anchor to a boundary (distributing connector).

    The spring acts on the weighted mean ``\bar u = w \cdot u[dofs]`` of one
    displacement component over the nodes of a boundary (weights ``w`` the
    lumped nodal areas, summing to one, as in a distributing coupling).
    With the anchor at ``x_a(t) = offset + velocity t`` and the stretch
    ``e = x_a - \bar u``, the force on the nodes is ``(k e + c \dot e) w``;
    the spring stores ``k e^2 / 2`` and the dashpot dissipates ``c \dot e^2``.
    Quasi-static analyses use the spring only.

    Attributes
    ----------
    name : str
    dofs : ndarray of int, shape (p,)
        Global DOFs of the component on the boundary nodes.
    weights : ndarray, shape (p,)
    stiffness, damping : float
    anchor_offset, anchor_velocity : float
    """

    name: str
    dofs: np.ndarray
    weights: np.ndarray
    stiffness: float
    damping: float = 0.0
    anchor_offset: float = 0.0
    anchor_velocity: float = 0.0

    def anchor(self, t: float) -> float:
        """Anchor position ``x_a(t) = offset + velocity t`` along the spring's component."""
        return self.anchor_offset + self.anchor_velocity * t

    def mean(self, u: np.ndarray) -> float:
        """Weighted mean ``w . u[dofs]`` of a full vector."""
        return float(self.weights @ u[self.dofs])

    def stretch(self, u: np.ndarray, t: float) -> float:
        r"""Stretch ``e = x_a(t) - \bar u`` of the spring for the full displacement ``u``.

        Parameters
        ----------
        u : ndarray, shape (n,)
            Full displacement vector (global DOF numbering).
        t : float

        Returns
        -------
        float
        """
        return self.anchor(t) - self.mean(u)

    def force(self, u: np.ndarray, v: np.ndarray | None, t: float) -> float:
        """Tension ``k e + c de/dt`` (``v`` the velocity; None in statics)."""
        rate = 0.0 if v is None else self.anchor_velocity - self.mean(v)
        return self.stiffness * self.stretch(u, t) + self.damping * rate

    def matrix(self, coefficient: float, n: int) -> sp.csr_matrix:
        """``coefficient w w^T`` in full numbering, shape (n, n)."""
        rows = np.repeat(self.dofs, self.dofs.size)
        cols = np.tile(self.dofs, self.dofs.size)
        vals = coefficient * np.outer(self.weights, self.weights).ravel()
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


@dataclass(frozen=True)
class Load:
    """An assembled load vector (full DOF numbering) scaled by an amplitude."""

    name: str
    vector: np.ndarray
    amplitude: Amplitude
