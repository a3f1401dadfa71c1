r"""Quantities of interest: scalar results of a static run, with their gradients in the unknowns.

Each quantity is read off the converged unknowns ``x_k = (u_hat_k, lam_k)``
of one or more output levels (``step``: the index of the level in
:attr:`fecontact.Solution.states`, ``-1`` the last).  It gives its value
and its gradient with respect to the unknowns of each level it reads
(exact: the quantities are explicit functions of the unknowns); what it
depends on through the model's parameters directly (a reaction through
``E``, a displacement through a prescribed value) is differentiated by
:mod:`fecontact.sensitivity.adjoint`.

Quantities add and scale: ``2.0 * Reaction("top", "y") - ContactForce("contact0", "y")``.

=============================  ==============================================================
``Reaction(name, component)``  a support's reaction (:meth:`fecontact.Solution.reaction`)
``ContactForce(pair, comp.)``  the force of a pair's master on its slave body
``Displacement(point, comp.)`` the displacement at a point of a body
``PeakPressure(pair, p)``      the largest contact pressure, or the smooth ``p``-mean
``Compliance()``               ``u . f_int(u)``: twice the strain energy of linear bodies
``PressureUniformity(pair)``   the area-weighted variance of the pressure over its squared mean
``Misfit(quantity, data)``     ``sum_l w_l (q_l - d_l)^2`` over the output levels
=============================  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..bodies.support_names import find_name, support_dofs
from ..solve.operators import geometric_stiffness
from .frames import Frame, Frames, point_weights

__all__ = ["Quantity", "Reaction", "ContactForce", "Displacement", "PeakPressure",
           "Compliance", "PressureUniformity", "Misfit", "Sum"]

COMPONENTS = {"x": 0, "y": 1, "z": 2}


def _component(component, dim: int) -> int:
    c = COMPONENTS.get(component, component) if isinstance(component, str) else component
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < dim:
        raise ValueError(f"component must be one of {', '.join('xyz'[:dim])}, got {component!r}")
    return int(c)


def _pair_rows(problem, pair: str | None) -> tuple:
    """The rows (slice) and the pair of a pair name (None: the only pair)."""
    names = [p.name for p in problem.pairs]
    if pair is None:
        if len(names) != 1:
            raise ValueError(f"name the contact pair: the model has {', '.join(names) or 'none'}")
        return problem.slices[0], problem.pairs[0]
    if pair not in names:
        raise KeyError(f"no contact pair {pair!r}; the model has {', '.join(names) or 'none'}")
    k = names.index(pair)
    return problem.slices[k], problem.pairs[k]


class Quantity:
    """A scalar result of a run (base class of the quantities of interest).

    Quantities add (``a + b``, ``a - b``) and scale (``2.0 * a``, ``a / 2``).
    """

    def levels(self, frames: Frames) -> tuple:
        """The output levels it reads."""
        return (frames.resolve(self.step),)

    def value(self, frames: Frames) -> float:
        """Its value."""
        return self.gradient(frames, value_only=True)[0]

    def gradient(self, frames: Frames, value_only: bool = False) -> tuple:
        """``(value, {level: d value / d x_level})``, ``x`` the unknowns ``(u_hat, lam)`` of the level."""
        (level,) = self.levels(frames)
        v, g = self.local(frames[level], value_only)
        return float(v), ({} if value_only else {level: g})

    def local(self, frame: Frame, value_only: bool) -> tuple:
        """``(value, d value / d x_k)`` at one level (single-level quantities)."""
        raise NotImplementedError

    def at(self, step: int) -> "Quantity":
        """The same quantity at output level ``step``."""
        return replace(self, step=step)

    def start_weights(self, frames: Frames) -> dict:
        """Weights ``w`` (full numbering) of the contact force ``f_c`` it reads, by level.

        ``f_c = B^T A lam`` depends on the start state of the level's
        increment (its slip rows on the start tangents), so a quantity that
        reads ``w . f_c`` depends on earlier unknowns too
        (:mod:`fecontact.sensitivity.adjoint`).  ``{level: w}``; empty when
        it reads no contact force.
        """
        (level,) = self.levels(frames)
        w = self.force_weights(frames[level])
        return {} if w is None else {level: w}

    def force_weights(self, frame: Frame) -> np.ndarray | None:
        """``w`` of a single-level quantity that reads ``w . f_c`` at ``frame``, or None."""
        return None

    def __add__(self, other):
        if not isinstance(other, Quantity):
            return NotImplemented
        return Sum(((1.0, self), (1.0, other)))

    def __radd__(self, other):
        if isinstance(other, (int, float)) and other == 0:      # sum() of quantities
            return self
        return NotImplemented

    def __sub__(self, other):
        if not isinstance(other, Quantity):
            return NotImplemented
        return Sum(((1.0, self), (-1.0, other)))

    def __mul__(self, c):
        if isinstance(c, bool) or not isinstance(c, (int, float)):
            return NotImplemented
        return Sum(((float(c), self),))

    __rmul__ = __mul__

    def __neg__(self):
        return Sum(((-1.0, self),))

    def __truediv__(self, c):
        return self * (1.0 / c)


def _combined(parts) -> dict:
    """``sum_i c_i w_i`` of ``(c_i, {level: w_i})`` pairs, by level."""
    out: dict = {}
    for c, weights in parts:
        for level, w in weights.items():
            out[level] = out.get(level, 0.0) + c * w
    return out


@dataclass(frozen=True)
class Sum(Quantity):
    """``sum_i c_i q_i``.

    Attributes
    ----------
    terms : tuple of (float, Quantity)
    """

    terms: tuple

    def levels(self, frames: Frames) -> tuple:
        """Every level its terms read."""
        return tuple(sorted({lv for _, q in self.terms for lv in q.levels(frames)}))

    def gradient(self, frames: Frames, value_only: bool = False) -> tuple:
        """The weighted sum of the terms' values and gradients."""
        total, grads = 0.0, {}
        for c, q in self.terms:
            v, g = q.gradient(frames, value_only)
            total += c * v
            for level, vec in g.items():
                grads[level] = grads.get(level, 0.0) + c * vec
        return total, grads

    def start_weights(self, frames: Frames) -> dict:
        """The terms' weights times their factors."""
        return _combined((c, q.start_weights(frames)) for c, q in self.terms)

    def __repr__(self) -> str:
        return " + ".join(f"{c:g}*{q!r}" for c, q in self.terms)


@dataclass(frozen=True)
class Reaction(Quantity):
    """One component of the total force a named support exerts on its body.

    The same figure as :meth:`fecontact.Solution.reaction`: the sum over the
    support's DOFs of ``f_int(u) - f_ext(t) - B^T A lam``.

    Parameters
    ----------
    name : str
        The support's name (``"top"``, or ``"block.top"``).
    component : {"x", "y", "z"} or int
    step : int
        Output level (default the last).
    """

    name: str
    component: object = "y"
    step: int = -1

    def _select(self, frame: Frame) -> np.ndarray:
        """``s``: 1 on the support's DOFs of the component, shape (n_dofs,)."""
        sysm = frame.system
        c = _component(self.component, sysm.dim)
        supports = support_dofs(sysm)
        d = supports[find_name(self.name, supports)]
        select = np.zeros(sysm.n_dofs)
        select[d[d % sysm.dim == c]] = 1.0
        return select

    def local(self, frame: Frame, value_only: bool) -> tuple:
        sysm = frame.system
        select = self._select(frame)
        residual = sysm.internal_force(frame.u) - sysm.external_force(frame.t) - frame.contact_force()
        value = float(select @ residual)
        if value_only:
            return value, None
        G = geometric_stiffness(frame.kinematics, frame.problem.area[:, None] * frame.lam,
                                sysm.n_dofs)
        g_u = frame.tangent_times(select) - G.T @ select
        g_lam = -(np.repeat(frame.problem.area, frame.problem.dim) * (frame.B @ select))
        return value, frame.from_full(g_u, g_lam)

    def force_weights(self, frame: Frame) -> np.ndarray:
        """``-s``: the reaction is ``s . (f_int - f_ext - f_c)``."""
        return -self._select(frame)


@dataclass(frozen=True)
class ContactForce(Quantity):
    """One component of the force the master of a pair puts on its slave body.

    The sum over the slave nodes' DOFs of the pair's ``B^T A lam``: the
    pair's ``force`` of :attr:`fecontact.Solution.pairs`.

    Parameters
    ----------
    pair : str or None
        The pair's name (None: the model's only pair).
    component : {"x", "y", "z"} or int
    step : int
    """

    pair: str | None = None
    component: object = "y"
    step: int = -1

    def _select(self, frame: Frame) -> tuple:
        """The pair's rows (mask, shape (m,)) and ``s``: 1 on its slave nodes' DOFs of the component."""
        problem, sysm = frame.problem, frame.system
        c = _component(self.component, sysm.dim)
        rows, pair = _pair_rows(problem, self.pair)
        mask = np.zeros(problem.n_contact, bool)
        mask[rows] = True
        nodes = sysm.global_nodes(pair.slave.body, pair.slave.nodes)
        select = np.zeros(sysm.n_dofs)
        select[sysm.node_dofs(nodes)[:, c]] = 1.0
        return mask, select

    def local(self, frame: Frame, value_only: bool) -> tuple:
        problem, sysm = frame.problem, frame.system
        mask, select = self._select(frame)
        value = float(select @ frame.contact_force(mask))
        if value_only:
            return value, None
        weights = np.where(mask[:, None], problem.area[:, None] * frame.lam, 0.0)
        G = geometric_stiffness(frame.kinematics, weights, sysm.n_dofs)
        g_lam = np.repeat(problem.area * mask, problem.dim) * (frame.B @ select)
        return value, frame.from_full(G.T @ select, g_lam)

    def force_weights(self, frame: Frame) -> np.ndarray:
        """``s`` (the pair's force is ``s . f_c`` when no other pair acts on its slave nodes)."""
        return self._select(frame)[1]


@dataclass(frozen=True)
class Displacement(Quantity):
    """One displacement component at a point of a body (interpolated with the body's element).

    Parameters
    ----------
    point : sequence of float
        ``dim`` coordinates inside the body (on its undeformed mesh).
    component : {"x", "y", "z"} or int
    body : str or None
        The body's name (None: the model's only body, or the first that holds the point).
    step : int
    """

    point: tuple
    component: object = "y"
    body: str | None = None
    step: int = -1

    def local(self, frame: Frame, value_only: bool) -> tuple:
        sysm = frame.system
        c = _component(self.component, sysm.dim)
        select = np.zeros(sysm.n_dofs)
        weights, b = point_weights(sysm, self.point, self.body)
        nodes = sysm.global_nodes(b, np.arange(weights.size))
        select[sysm.node_dofs(nodes)[:, c]] = weights
        value = float(select @ frame.u)
        return value, (None if value_only else frame.from_full(select))


@dataclass(frozen=True)
class PeakPressure(Quantity):
    """The largest contact pressure of a pair, or its smooth ``p``-mean.

    With ``p`` given: ``(sum_i A_i lam_n,i^p / sum_i A_i)^(1/p)`` over the
    pair's slave nodes (``lam_n >= 0``), which tends to the peak as ``p``
    grows and is differentiable everywhere (for optimisation).  Without:
    the peak itself, whose gradient is that of the node where it is.

    Parameters
    ----------
    pair : str or None
    p : float or None
        ``>= 1``.
    step : int
    """

    pair: str | None = None
    p: float | None = None
    step: int = -1

    def local(self, frame: Frame, value_only: bool) -> tuple:
        problem = frame.problem
        rows, _ = _pair_rows(problem, self.pair)
        pressure = np.maximum(frame.lam[rows, 0], 0.0)
        g_pressure = np.zeros(pressure.size)
        if self.p is None:
            i = int(np.argmax(pressure))
            value = float(pressure[i])
            g_pressure[i] = 1.0 if pressure[i] > 0 else 0.0
        else:
            if not self.p >= 1:
                raise ValueError(f"PeakPressure p must be >= 1, got {self.p!r}")
            area = problem.area[rows]
            mean = float(area @ pressure**self.p / area.sum())
            value = mean ** (1.0 / self.p) if mean > 0 else 0.0
            if value > 0:
                g_pressure = value ** (1.0 - self.p) * area * pressure ** (self.p - 1) / area.sum()
        if value_only:
            return value, None
        g = frame.zeros()
        g_lam = g[frame.n_reduced:].reshape(-1, problem.dim)
        g_lam[rows, 0] = g_pressure * (frame.lam[rows, 0] > 0)
        return value, g


@dataclass(frozen=True)
class PressureUniformity(Quantity):
    r"""How far a pair's contact pressure is from uniform: ``sum_i A_i (p_i - pbar)^2 / (sum_i A_i pbar^2)``.

    ``pbar = sum_i A_i p_i / sum_i A_i`` over the pair's slave nodes (open
    ones count with ``p = 0``): 0 for a uniform pressure on the whole
    surface, the squared coefficient of variation otherwise.

    Parameters
    ----------
    pair : str or None
    step : int
    """

    pair: str | None = None
    step: int = -1

    def local(self, frame: Frame, value_only: bool) -> tuple:
        problem = frame.problem
        rows, _ = _pair_rows(problem, self.pair)
        p, A = frame.lam[rows, 0], problem.area[rows]
        total = A.sum()
        mean = A @ p / total
        if not mean > 0:
            raise ValueError("PressureUniformity needs a pair in contact (its mean pressure is 0)")
        variance = A @ (p - mean) ** 2 / total
        value = variance / mean**2
        if value_only:
            return value, None
        d_variance = 2.0 * A * (p - mean) / total          # d mean / d p terms sum to zero
        d_mean = A / total
        g = frame.zeros()
        g_lam = g[frame.n_reduced:].reshape(-1, problem.dim)
        g_lam[rows, 0] = d_variance / mean**2 - 2.0 * variance / mean**3 * d_mean
        return value, g


@dataclass(frozen=True)
class Compliance(Quantity):
    """``u . f_int(u)``: twice the strain energy of linear bodies (the energy norm of the displacement).

    Parameters
    ----------
    step : int
    """

    step: int = -1

    def local(self, frame: Frame, value_only: bool) -> tuple:
        force = frame.system.internal_force(frame.u)
        value = float(frame.u @ force)
        if value_only:
            return value, None
        return value, frame.from_full(force + frame.tangent_times(frame.u))


@dataclass(frozen=True)
class Misfit(Quantity):
    """Least squares between a quantity's history over the output levels and data.

    ``sum_l w_l (q_l - d_l)^2`` with ``q_l`` the quantity at level ``steps[l]``.

    Parameters
    ----------
    quantity : Quantity
        A single-level quantity (its ``step`` is replaced).
    data : sequence of float
        One value per level.
    steps : sequence of int, optional
        The levels (default ``0 .. len(data) - 1``).
    weights : sequence of float, optional
        Default 1.
    """

    quantity: Quantity
    data: tuple
    steps: tuple | None = None
    weights: tuple | None = None

    def _parts(self, frames: Frames) -> tuple:
        data = np.asarray(self.data, float).ravel()
        steps = tuple(range(data.size)) if self.steps is None else tuple(self.steps)
        weights = np.ones(data.size) if self.weights is None else np.asarray(self.weights, float)
        if len(steps) != data.size or weights.shape != data.shape:
            raise ValueError(f"Misfit needs one step and one weight per datum: {data.size} data, "
                             f"{len(steps)} steps, {weights.size} weights")
        if data.size > frames.n_levels and self.steps is None:
            raise ValueError(f"Misfit has {data.size} data but the run has {frames.n_levels} "
                             f"output levels")
        return data, [frames.resolve(s) for s in steps], weights

    def levels(self, frames: Frames) -> tuple:
        """The levels of its data."""
        return tuple(sorted(set(self._parts(frames)[1])))

    def gradient(self, frames: Frames, value_only: bool = False) -> tuple:
        """``sum_l w_l (q_l - d_l)^2`` and its gradients."""
        data, levels, weights = self._parts(frames)
        total, grads = 0.0, {}
        for d, level, w in zip(data, levels, weights):
            v, g = self.quantity.at(level).gradient(frames, value_only)
            total += w * (v - d) ** 2
            for lv, vec in g.items():
                grads[lv] = grads.get(lv, 0.0) + 2.0 * w * (v - d) * vec
        return total, grads

    def start_weights(self, frames: Frames) -> dict:
        """``sum_l 2 w_l (q_l - d_l)`` times the quantity's weights at level ``l``."""
        data, levels, weights = self._parts(frames)
        return _combined((2.0 * w * (self.quantity.at(lv).value(frames) - d),
                          self.quantity.at(lv).start_weights(frames))
                         for d, lv, w in zip(data, levels, weights))

    def history(self, frames: Frames) -> np.ndarray:
        """The quantity at each datum's level, shape (len(data),)."""
        _, levels, _ = self._parts(frames)
        return np.array([self.quantity.at(lv).value(frames) for lv in levels])
