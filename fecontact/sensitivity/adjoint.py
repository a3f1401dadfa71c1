r"""Gradients of quantities of interest by the discrete adjoint of the converged semismooth system.

A static run solves ``R_k(x_k, x_{k-1}, x_{k-2}; p) = 0`` for ``k = 1..N``
(:mod:`fecontact.sensitivity.path`).  For a quantity ``Q(x_1..x_N; p)`` the
Lagrangian ``L = Q - sum_k a_k^T R_k`` is stationary in every ``x_k`` when
the adjoints solve, backwards from ``k = N``,

.. math::

    J_k^T a_k = \partial_{x_k} Q - C_{k+1,k}^T a_{k+1} - C_{k+2,k}^T a_{k+2},

with ``J_k = dR_k/dx_k`` the generalised Jacobian Newton used at the
converged point and ``C_{j,k} = dR_j/dx_k`` the cross terms of the path
(:mod:`fecontact.sensitivity.cross`); then

.. math:: \frac{dQ}{dp} = \partial_p Q - \sum_k a_k^T \partial_p R_k .

Without friction no increment reads an earlier one (``C = 0``), and only the
increments the quantity reads need an adjoint.  The partial derivatives in
``p`` are central differences of the residuals and of the quantity at the
run's unknowns, with the model made again at ``p +- h``
(:meth:`fecontact.Model.with_values`): four points ``p +- h, p +- 2h`` with
``h = 10^-3 |p|`` for a number (exact up to round-off for the many
residuals that are linear in ``p``, error ``O(h^4)`` otherwise), two points
with ``h = 10^-6`` times the body's mean edge per node of a shape; the step is divided by ten while a contact status at a
stencil point differs from the run's.  Newton's
augmentations are those of the run at every point (they do not change the
converged solution).

At a point where a contact node sits on a status boundary the residual is
not differentiable; the adjoint then uses the element of the generalised
Jacobian Newton used (a node with ``lam_n - c_n g_n = 0`` is closed, one
with ``|z| = mu lam_hat`` sticks).  :class:`Gradient` reports the smallest
distance of any node to a status change, relative (``margin``): a gradient
with a margin near zero is one-sided.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..friction import Status
from ..solve.schur import SchurBackend, open_rows
from .cross import cross_products
from .parameters import Parameter
from .path import Path
from .frames import Frames
from .qoi import Quantity
from .shapes import ShapeParameter

__all__ = ["Gradient", "adjoint_gradients", "status_margin"]


@dataclass(frozen=True)
class Gradient:
    """The gradient of one quantity of interest.

    Attributes
    ----------
    value : float
        The quantity's value.
    derivatives : tuple
        One per parameter asked for: a float for a :class:`fecontact.Parameter`,
        an ndarray of shape (k,) for a shape parameter.
    names : tuple of str
        The parameters' names.
    margin : float
        Smallest relative distance of any contact node, over the increments
        the gradient goes through, to a change of its status: ``g / h`` for
        an open node (``h`` its size), ``lam_n / p_max`` for a closed one,
        ``| |z| - mu lam_hat | / p_max`` for a closed frictional one
        (``p_max`` the largest pressure of the increment).  ``inf`` without contact.
    nearest : str
        Where that margin is (increment, node, condition).
    adjoint_seconds, partial_seconds : float
        Time in the backward sweep and in the parameter partials.

    Examples
    --------
    ``Gradient`` indexes by position or by the parameter itself:
    ``g[0]``, ``g[E]`` or ``g["E"]``; ``g.as_dict()`` maps names to derivatives.
    """

    value: float
    derivatives: tuple
    names: tuple
    margin: float
    nearest: str
    parameter_keys: tuple = field(default=(), repr=False)
    adjoint_seconds: float = 0.0
    partial_seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.derivatives)

    def __iter__(self):
        return iter(self.derivatives)

    def __getitem__(self, which):
        if isinstance(which, (Parameter, ShapeParameter)):
            return self.derivatives[self.parameter_keys.index(which.key)]
        if isinstance(which, str):
            return self.derivatives[self.names.index(which)]
        return self.derivatives[which]

    def as_dict(self) -> dict:
        """``{name: derivative}``."""
        return dict(zip(self.names, self.derivatives))


class AdjointSolver:
    r"""Solves ``J_k^T a = b`` for the adjoints of a run's increments.

    The transposed Jacobian has the blocks of the forward one transposed:
    ``[[K + D^T, J_21^T], [J_12^T, J_22^T]]``.  It is solved by the
    ``schur`` backend's condensation (:class:`fecontact.solve.schur.SchurBackend`:
    one factorisation of the bulk stiffness for every increment, the
    compliance of the contact DOFs, a dense system of the contact rows; in
    finite strain GMRES preconditioned by it) applied to the transposed
    blocks, or, when the bulk matrix cannot be factorised that way, by a
    sparse LU of the whole transposed matrix.

    Parameters
    ----------
    problem : ContactProblem
    """

    def __init__(self, problem):
        self.problem = problem
        try:
            self.backend = SchurBackend(problem, tolerance=1e-13)
        except (RuntimeError, ValueError, np.linalg.LinAlgError):
            self.backend = None

    def solve(self, ev, b: np.ndarray) -> np.ndarray:
        """``a`` with ``J^T a = b`` (``J`` the Jacobian of ``ev``), ``b`` of shape (N, q).

        The multipliers of open nodes (their rows of ``J`` read only
        themselves) enter ``J^T`` only in their own rows: they are found
        after the others, so the condensed system holds the closed nodes only.
        """
        n = ev.n_reduced
        idle = np.concatenate([np.zeros(n, bool), np.repeat(self.problem.scale == 0.0,
                                                            self.problem.dim)])
        b = np.where(idle[:, None], 0.0, b)
        if self.backend is not None and not idle.any():
            trivial, _ = open_rows(ev.J21.tocsr(), ev.J22.tocsr(), np.zeros(ev.J22.shape[0]))
            engaged = ~trivial
            J12t, J21t = ev.J12.T.tocsr(), ev.J21.T.tocsc()
            transposed = replace(ev, residual=np.zeros(n + int(engaged.sum())),
                                 D=None if ev.D is None else ev.D.T.tocsr(),
                                 J12=J21t[:, engaged].tocsc(), J21=J12t[engaged].tocsr(),
                                 J22=ev.J22.T.tocsr()[engaged][:, engaged].tocsr())
            rhs = np.vstack([b[:n], b[n:][engaged]])
            try:
                part = np.column_stack([self.backend.solve(replace(transposed, residual=-rhs[:, j]))
                                        for j in range(b.shape[1])])
                if np.all(np.isfinite(part)):
                    out = np.zeros_like(b)
                    out[:n] = part[:n]
                    lam = out[n:]
                    lam[engaged] = part[n:]
                    lam[trivial] = ((b[n:][trivial] - J12t[trivial] @ part[:n])
                                    / ev.J22.diagonal()[trivial][:, None])
                    return out
            except (RuntimeError, ValueError, np.linalg.LinAlgError):
                pass
        J = ev.jacobian()
        if idle.any():                     # rows that hold zero (midside nodes): identity
            J = (J + sp.diags(idle.astype(float))).tocsc()
        return splu(J.T.tocsc()).solve(b)


def status_margin(problem, path: Path, k: int, ev=None) -> tuple:
    """``(margin, where)`` of increment ``k`` (see :attr:`Gradient.margin`), ``ev`` its evaluation."""
    ev = ev if ev is not None else path.evaluate(problem, k)
    lam = path.unknowns[k][problem.system.n_reduced:].reshape(-1, problem.dim)
    if lam.shape[0] == 0:
        return np.inf, ""
    gap = ev.kinematics.local.gap
    status = ev.contact.status
    closed = status != Status.OPEN
    p_max = max(float(lam[:, 0].max(initial=0.0)), 1e-300)
    margin = np.where(closed, lam[:, 0] / p_max, gap / problem.node_size)
    kind = np.where(closed, "opening", "closing").astype(object)
    friction = ev.contact.friction
    start = path.start_state(problem, k)
    slip = ev.kinematics.local.slip - problem.slip_offset(start, path.time(k))
    trial = lam[:, 1:] - problem.c_t[:, None] * slip
    radius = friction.coefficient * np.maximum(lam[:, 0] - problem.c_n * gap, 0.0)
    frictional = closed & (friction.coefficient > 0)
    tangential = np.abs(np.linalg.norm(trial, axis=1) - radius) / p_max
    use = frictional & (tangential < margin)
    margin = np.where(use, tangential, margin)
    kind = np.where(use, np.where(status == Status.SLIP, "sticking", "slipping"), kind)
    edge = _facet_edge_margin(problem, ev, path.displacement(problem, k))
    use = closed & (edge < margin)
    margin = np.where(use, edge, margin)
    kind = np.where(use, "the edge of its master facet", kind)
    i = int(np.argmin(margin))
    return float(margin[i]), (f"increment {k}: {problem.slave_node_name(i)} is "
                              f"{margin[i]:.3g} from {kind[i]}")


def _facet_edge_margin(problem, ev, u: np.ndarray) -> np.ndarray:
    """Distance of each node-to-segment projection to the boundary of its master facet, shape (m,).

    In the facet's local coordinates (0 at a vertex, 0.5 at a segment's
    middle, 1/3 at a triangle's centroid; ``inf`` for obstacles, mortar rows
    and quadrilateral facets): a projection on a vertex or an edge is a kink
    of the contact force's direction in the master's shape.
    """
    out = np.full(problem.n_contact, np.inf)
    x = problem.coordinates(u)
    gap, normal = ev.kinematics.local.gap, ev.kinematics.local.normal
    for pair, rows in zip(problem.pairs, problem.slices):
        facets = getattr(pair.master, "facets", None)
        if facets is None or pair.formulation == "mortar" or facets.shape[0] not in (2, 3):
            continue
        facet = ev.kinematics.facet[rows]
        sysm = problem.system
        slave = x[:, sysm.global_nodes(pair.slave.body, pair.slave.nodes)].T
        point = slave - gap[rows, None] * normal[rows]
        corners = np.moveaxis(x[:, sysm.global_nodes(pair.master.body, facets[:, facet])], 0, -1)
        #                                                                      (v, m, d)
        a, b = corners[0], corners[1]
        if facets.shape[0] == 2:
            t = np.einsum("md,md->m", point - a, b - a) / np.einsum("md,md->m", b - a, b - a)
            local = np.minimum(t, 1.0 - t)
        else:
            c = corners[2]
            M = np.stack([b - a, c - a], axis=2)                         # (m, d, 2)
            G = np.einsum("mdi,mdj->mij", M, M)
            r = np.einsum("mdi,md->mi", M, point - a)
            xi = np.linalg.solve(G, r[..., None])[..., 0]
            local = np.minimum(np.minimum(xi[:, 0], xi[:, 1]), 1.0 - xi.sum(axis=1))
        out[rows] = np.abs(local)
    return out


def _closing(problem, path: Path, k: int) -> bool:
    """Whether some node apart at the start of increment ``k`` ends it closed: only such a node's
    slip reads the approach rate, a function of ``x_{k-2}`` (:mod:`fecontact.contact.closing`)."""
    start = path.start_state(problem, k)
    if start.approach is None:
        return False
    return bool(np.any(problem.apart(start.status, start.gap) & (path.states[k].status != 0)))


def ev_rows(problem) -> int:
    """Number of contact rows ``m * dim``."""
    return problem.n_contact * problem.dim


def adjoint_gradients(problem, increments, states, quantities, wrt, rebuild,
                      cross_step: float | None = None) -> list:
    """The gradients of ``quantities`` with respect to ``wrt`` (see the module docstring).

    Parameters
    ----------
    problem : ContactProblem
        The problem the run solved.
    increments : sequence of StepState
        Every accepted increment.
    states : sequence of StepState
        The output levels' states (each one of ``increments``).
    quantities : sequence of Quantity
    wrt : sequence of Parameter or ShapeParameter
    rebuild : callable
        ``rebuild(values) -> ContactProblem``: the problem of the model made
        with ``values`` ({parameter: value}).
    cross_step : float, optional
        Displacement step of the cross terms (default ``1e-7`` times the
        median contact node size).

    Returns
    -------
    list of Gradient
    """
    import time

    for q in quantities:
        if not isinstance(q, Quantity):
            raise ValueError(f"gradient needs quantities of fecontact.qoi, got {q!r}")
    for p in wrt:
        if not isinstance(p, (Parameter, ShapeParameter)):
            raise ValueError(f"gradient is taken with respect to fecontact.Parameter or shape "
                             f"parameters, got {p!r}")
    path = Path(problem, increments)
    ends = []
    for s in states:
        found = [k for k in range(1, path.n + 1) if path.states[k] is s]
        if not found:
            raise ValueError("the solution's output levels are not among its increments")
        ends.append(found[0])
    frames = Frames(problem, path, ends)
    tic = time.perf_counter()
    n_x = path.unknowns[0].size
    nq = len(quantities)
    laws = problem.friction.laws
    history = any(law.has_friction for law in laws) and problem.n_contact > 0
    lagged = any(getattr(law, "lagged", False) for law in laws)
    step = cross_step or (1e-7 * float(np.median(problem.node_size)) if problem.n_contact else 1.0)
    values, rhs = [], {}

    def seed(k, j, g):
        rhs.setdefault(k, np.zeros((n_x, nq)))[:, j] += g

    for j, q in enumerate(quantities):
        v, grads = q.gradient(frames)
        values.append(v)
        for level, g in grads.items():
            seed(ends[level], j, g)
        for level, w_force in (q.start_weights(frames) if history else {}).items():
            # the quantity reads the start state too (the slip directions in B)
            k = ends[level]
            if k < 2:
                continue
            closing = _closing(problem, path, k)
            previous, before = cross_products(path, problem, k, w_force[:, None],
                                              np.zeros((ev_rows(problem), 1)), False, closing, step)
            seed(k - 1, j, previous[:, 0])
            if before is not None:
                seed(k - 2, j, before[:, 0])
    last = max(rhs) if rhs else 0
    adjoints: dict = {}
    solver = AdjointSolver(problem)
    statuses: dict = {}
    margins = []
    for k in range(last, 0, -1):
        b = rhs.pop(k, None)
        if b is None or not np.any(b):
            continue
        ev = path.evaluate(problem, k, jacobian=True)
        a = solver.solve(ev, b)
        adjoints[k] = a
        statuses[k] = ev.contact.status
        margins.append(status_margin(problem, path, k, ev))
        if history and k >= 2:
            closing = _closing(problem, path, k)
            previous, before = cross_products(path, problem, k, -(problem.system.T @ a[:ev.n_reduced]),
                                              a[ev.n_reduced:], lagged, closing, step)
            rhs[k - 1] = rhs.get(k - 1, 0.0) - previous
            if before is not None:
                rhs[k - 2] = rhs.get(k - 2, 0.0) - before
    adjoint_seconds = time.perf_counter() - tic

    tic = time.perf_counter()
    base_status = np.concatenate([statuses[k] for k in adjoints]) if adjoints else np.zeros(0, int)
    derivatives = [[] for _ in quantities]
    for param in wrt:
        d = _parameter_derivative(problem, path, ends, quantities, adjoints, param, rebuild,
                                  base_status)
        for j in range(nq):
            derivatives[j].append(d[j])
    partial_seconds = time.perf_counter() - tic
    margin, nearest = min(margins, default=(np.inf, ""), key=lambda m: m[0])
    names = tuple(p.name for p in wrt)
    keys = tuple(p.key for p in wrt)
    return [Gradient(values[j], tuple(derivatives[j]), names, margin, nearest, keys,
                     adjoint_seconds, partial_seconds) for j in range(nq)]


def _matched(problem, other):
    """``other`` with ``problem``'s augmentations and tangent references, after checking its numbering."""
    if other.system.n_reduced != problem.system.n_reduced or other.n_contact != problem.n_contact:
        raise ValueError("the model made with other parameter values numbers its unknowns "
                         "differently (a parameter changed which nodes are supported or in contact)")
    other.c_n, other.c_t, other.reference = problem.c_n, problem.c_t, problem.reference
    return other


def _total(problem, path, ends, quantities, adjoints) -> tuple:
    """``Q_j - sum_k a_k^T R_k`` for every quantity ``j`` with ``problem`` (at the run's unknowns),
    and the contact status of every increment with an adjoint."""
    frames = Frames(problem, path, ends)
    out = np.array([q.value(frames) for q in quantities])
    statuses = []
    for k, a in adjoints.items():
        ev = path.evaluate(problem, k)
        out -= a.T @ ev.residual
        statuses.append(ev.contact.status)
    return out, np.concatenate(statuses) if statuses else np.zeros(0, int)


def _smooth_derivative(at, base_status, h: float, four: bool) -> np.ndarray:
    """The central difference of ``at(e)`` (values, statuses) with a step on one smooth piece.

    The step is divided by 10 (up to five times) while some contact node's
    status at a stencil point differs from the run's: the residual has a kink
    there (a node closes or sticks at the perturbed parameter).
    """
    offsets = (-2, -1, 1, 2) if four else (-1, 1)
    for _ in range(6):
        points = {e: at(e * h) for e in offsets}
        if all(np.array_equal(status, base_status) for _, status in points.values()):
            break
        h /= 10.0
    f = {e: value for e, (value, _) in points.items()}
    if four:
        return (8.0 * (f[1] - f[-1]) - (f[2] - f[-2])) / (12.0 * h)
    return (f[1] - f[-1]) / (2.0 * h)


def _parameter_derivative(problem, path, ends, quantities, adjoints, param, rebuild,
                          base_status) -> list:
    """``dQ_j/dp`` of every quantity: a float per quantity, or an array for a shape parameter."""
    def at(values):
        return _total(_matched(problem, rebuild(values)), path, ends, quantities, adjoints)

    if isinstance(param, Parameter):
        p = float(param)
        h = 1e-3 * abs(p) if p != 0.0 else 1e-6
        try:
            d = _smooth_derivative(lambda e: at({param: p + e}), base_status, h, True)
        except ValueError:                     # p - h out of range (mu = 0): one-sided
            f0, f1, f2 = (at({param: p + e})[0] for e in (0.0, h, 2 * h))
            d = (-3.0 * f0 + 4.0 * f1 - f2) / (2.0 * h)
        return [float(v) for v in d]
    base = param.value
    h = 1e-6 * _edge(problem, param)
    out = np.zeros((len(quantities), param.size))
    for i in range(param.size):
        e = np.zeros(param.size)
        e[i] = 1.0
        out[:, i] = _smooth_derivative(lambda s: at({param: base + s * e}), base_status, h, False)
    return list(out)


def _edge(problem, shape: ShapeParameter) -> float:
    """The mean edge length of the shape parameter's body (the scale of its step)."""
    for body in problem.system.bodies:
        if body.name == shape.body:
            mesh = body.mesh
            edges = mesh.p[:, mesh.facets] if mesh.p.shape[0] == 2 else mesh.p[:, mesh.edges]
            return float(np.mean(np.linalg.norm(edges[:, 1] - edges[:, 0], axis=0)))
    raise ValueError(f"shape parameter {shape.name!r}: no body {shape.body!r} in the model")

