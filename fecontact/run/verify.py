r"""Independent residual check of a result: equilibrium and the contact conditions.

The check reads what a run writes for a state -- the displacement ``u``, the
nodal tractions ``lam = (lam_n, lam_t)`` with the tangent basis
``multiplier_basis`` their components refer to, and the start of the
increment that produced them (``u^0``, ``t^0``, ``lam_n^0``; all in the
restart file) -- and the model (bodies, supports, loads, contact surfaces,
obstacles, friction laws).  It does not use the solver's iterates, active
sets, convergence flag, search, facet hints or ``ContactProblem.kinematics``;
it re-derives the contact geometry itself:

* **search and projection by brute force** -- every slave node against every
  master segment (2D) or triangle (3D; quadrilaterals as two triangles) of
  the pair, vectorised with numpy, at the final configuration
  ``x = X + u``.  The segment (facet) of a node is the one nearest to it
  among those whose line (plane) it projects on within the outline enlarged
  by 5 % (``xi in [-0.05, 1.05]``, barycentric coordinates ``>= -0.05``:
  the discrete gap is measured on a segment's line up to 5 % beyond its
  ends, theory §3.2); a node that projects inside no enlarged outline and
  lies farther than 5 % of its facet's longest edge from it faces no part
  of the master (near the surface, a point inside the master body
  projects inside the outline of a facet next to it, at a convex edge as at
  a concave one): it is open, with its distance to the closest point of the
  surface as gap (beyond a free edge or end it may lie below the master's
  plane).  Where a node
  projects into several enlarged outlines (near a master vertex or edge)
  the discrete equations may hold on any of them (the solver keeps a
  node's segment while it stays inside its enlarged outline), so the
  segment the state records for the node is taken if it is one of them;
  a recorded segment the node does not project on is ignored.  Rigid
  obstacles: the obstacle's own closed-form distance
  (:meth:`fecontact.contact.obstacles.Obstacle.gap`), e.g.
  ``g = n.(x_s - p(t))`` (line, plane),
  ``g = |x_s - c(t)| - R`` (circle, sphere; ``R - |x_s - c|`` inside);
* **gap** ``g_n = n.(x_s - x_a)``, ``n`` the master's outward normal;
* **slip increment** of the last increment, measured from the node's
  start-of-increment projection:

  .. math::

      \Delta s_a = \tau^0_a\cdot\Big[(x_s - x_s^0) - \sum_i N_i(\xi)\,(x_i - x_i^0)\Big]
                  - \theta\,(t - t^0)\,\tau^0_a\cdot v_t,

  ``N_i(xi)`` the master's shape functions at the node's current
  projection, ``tau^0_a`` the ``multiplier_basis`` of the state (against an
  obstacle the master term is its translation over the increment).  The
  last term is zero except at a node open at the start of the increment:
  it removes the relative motion before the node's predicted first contact
  (:mod:`fecontact.contact.closing`), from the start gap and status and
  the approach rate ``[g_dot, v_t]`` the restart file records with the
  increment's start (it is part of the friction law's history data, like
  the start-of-increment projection);
* **contact forces** ``B^T A lam`` with ``B`` the derivatives of its own
  ``(g_n, Delta s)`` with respect to the slave and master nodal coordinates
  (central differences with the projected segment held, step
  ``1e-6`` of the largest coordinate).  Mortar pairs, whose multipliers
  pair with gap and slip integrals, take ``B`` from their mortar integrals
  (:func:`fecontact.contact.pairs.pair_kinematics`, without hints), and
  their conditions below hold for those weighted gaps and slips (divided by
  the nodal areas), which a dual multiplier pairs with.
  Pairs on smoothed curves (:func:`fecontact.contact.smoothing.smoothed_pair`:
  node-to-segment on a smoothed master, 2D mortar on the smoothed curves of
  both sides) take gap, slip and ``B`` from the curves
  (:func:`fecontact.contact.pairs.pair_kinematics`).
  Quadratic 3D slave surfaces, whose tractions live on the vertices, hold
  their conditions for the vertices' weighted gaps and slips: the same
  brute-force nodal values and ``B`` rows combined with the surface's
  weights (:func:`fecontact.contact.pairs.weighted_row_map`, part of the
  model like the nodal areas); their midside nodes show interpolated
  tractions and have no condition of their own.

On these it evaluates the plain conditions (``h`` the nodal length, or
square root of the nodal area; ``p`` the pressure scale: the largest
pressure, or the force scale over the slave area; ``F`` the largest of the
internal, external, coupling and contact force norms and of the rounding
bound of the bulk force over the tolerance, ``gamma_k || |K| |u| || / tol``
(:class:`~fecontact.solve.newton.RoundingBound`: the stiffness times the
displacement, prescribed motions included; it keeps a body that moves
without stress, whose forces are all round-off, from being measured against
its own round-off):

* **equilibrium** -- ``|T^T(K u - f - B^T A lam) - F_c| / F`` at the free
  DOFs (in dynamics the bulk terms of the last time step; the support
  reactions are the same residual at the constrained DOFs, so each body's
  reactions, loads and contact forces balance with it);
* **gap** -- ``max(-g_n / h)`` (Signorini nodes);
* **pressure** -- ``max(-lam_n) / p``;
* **complementarity** -- ``max |min(lam_n / p, g_n / h)|`` (Signorini), or
  ``|lam_n - eps max(0, -g_n)| / p`` at penalty nodes;
* **friction** -- the largest of, per node and divided by ``p``: the
  traction of an open node ``|lam_t|`` (``lam_n <= 0``); the excess over the
  static cone ``max(0, |lam_t| - mu_s lam)`` (``mu_s`` the law's
  :attr:`~fecontact.friction.base.FrictionLaw.static`, ``lam = lam_n``, or
  the lagged ``lam_n^0`` of smooth laws); and at a sliding node
  (``|Delta s| > 1e-6 h``) the misalignment ``|lam_t + |lam_t| s|``
  (``s = Delta s / |Delta s|``: the traction opposes the slip) and, except
  for smooth laws whose traction lies inside the cone, the distance to the
  cone ``||lam_t| - mu lam_n|`` with the law's sliding coefficient
  (:meth:`~fecontact.friction.base.FrictionLaw.coefficient`: ``mu_k``, or
  ``mu(v)`` at the slip rate).  A node on the axis of a body of revolution
  carries no shear traction (symmetry): there the measure is ``|lam_t|``.

A result passes when every measure is at most ``tolerance`` (1e-6, a
thousand times the Newton tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..contact.closing import slip_before_contact
from ..contact.pairs import pair_kinematics, weighted_row_map
from ..contact.smoothing import smoothed_pair
from ..contact.surface import ContactSurface
from ..solve.newton import RoundingBound
from ..solve.operators import kinematic_operator
from ..solve.problem import ContactProblem
from ..solve.state import StepState

TOLERANCE = 1e-6
MEASURES = ("equilibrium", "gap", "pressure", "complementarity", "friction")
#: enlargement of a master segment or facet (in its own coordinates) within which its line or plane measures the gap
MARGIN = 0.05
CHUNK = 128


@dataclass(frozen=True)
class ResidualCheck:
    """Relative violations of a state (see the module docstring).

    ``where`` maps a measure to the place of its largest value: ``"dof k"``
    for equilibrium, ``"slave node i of contact 'c'"`` for the contact measures.
    """

    equilibrium: float
    gap: float
    pressure: float
    complementarity: float
    friction: float
    where: dict
    tolerance: float = TOLERANCE

    @property
    def passed(self) -> bool:
        """True when every measure is finite and at most :attr:`tolerance`."""
        return all(np.isfinite(getattr(self, k)) and getattr(self, k) <= self.tolerance
                   for k in MEASURES)

    def failures(self) -> str:
        """One line naming every failed measure, its value and where; "" if passed."""
        bad = [f"{k} {getattr(self, k):.2e} at {self.where.get(k, '?')}" for k in MEASURES
               if not (np.isfinite(getattr(self, k)) and getattr(self, k) <= self.tolerance)]
        return "; ".join(bad) + (f" (tolerance {self.tolerance:g})" if bad else "")

    def as_dict(self) -> dict:
        """The check for ``summary.json``: each measure (None when not finite), ``tolerance``, ``passed`` and ``where``."""
        # non-finite measures become null: JSON has no Inf or NaN
        out = {k: float(getattr(self, k)) if np.isfinite(getattr(self, k)) else None
               for k in MEASURES}
        out.update(tolerance=self.tolerance, passed=self.passed, where=dict(self.where))
        return out


# -- brute-force projection -------------------------------------------------------------------

def _segment_frame(xs, xa, xb):
    """Parameter ``xi``, signed line distance and clamped distance of nodes ``xs`` (..., 2) to segments."""
    e = xb - xa
    ell2 = np.einsum("...i,...i->...", e, e)
    r = xs - xa
    xi = np.einsum("...i,...i->...", r, e) / ell2
    n = np.stack([e[..., 1], -e[..., 0]], axis=-1) / np.sqrt(ell2)[..., None]
    line = np.einsum("...i,...i->...", r, n)
    foot = r - np.clip(xi, 0.0, 1.0)[..., None] * e
    return xi, line, np.linalg.norm(foot, axis=-1)


def _triangle_frame(xs, a, b, c):
    """Barycentric coordinates (..., 3), signed plane distance and clamped distance to triangles."""
    v0, v1 = b - a, c - a
    nrm = np.cross(v0, v1)
    n = nrm / np.linalg.norm(nrm, axis=-1)[..., None]
    r = xs - a
    plane = np.einsum("...i,...i->...", r, n)
    foot = r - plane[..., None] * n
    d00, d01, d11 = (np.einsum("...i,...i->...", u, w) for u, w in ((v0, v0), (v0, v1), (v1, v1)))
    d20, d21 = np.einsum("...i,...i->...", foot, v0), np.einsum("...i,...i->...", foot, v1)
    den = d00 * d11 - d01 * d01
    beta, gamma = (d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den
    bary = np.stack([1.0 - beta - gamma, beta, gamma], axis=-1)
    edges = [_segment_frame3(xs, p, q) for p, q in ((a, b), (b, c), (c, a))]
    inside = np.all(bary >= 0.0, axis=-1)
    clamped = np.where(inside, np.abs(plane), np.minimum.reduce(edges))
    return bary, plane, clamped


def _segment_frame3(xs, p, q):
    e = q - p
    s = np.clip(np.einsum("...i,...i->...", xs - p, e) / np.einsum("...i,...i->...", e, e), 0.0, 1.0)
    return np.linalg.norm(xs - p - s[..., None] * e, axis=-1)


def _triangles(facets: np.ndarray) -> np.ndarray:
    """Triangles (3, n) of linear facets (3 or 4, n); a quadrilateral as two triangles."""
    if facets.shape[0] == 3:
        return facets
    return np.hstack([facets[[0, 1, 2]], facets[[0, 2, 3]]])


def _project(xs: np.ndarray, corners: np.ndarray, recorded: np.ndarray,
             n_facets: int) -> tuple:
    """Each node's master facet by brute force (module docstring); ``corners`` (f, k, d).

    ``recorded`` (m,) is the facet the state says a node projects on (``-1``:
    none); it is taken only where it is one of the facets whose enlarged
    outline the node projects into (a quadrilateral ``f`` is the triangles
    ``f`` and ``f + n_facets``).  Returns the facet (m,) and, per node, its
    distance to the closest point of the surface where it projects inside
    no enlarged outline and lies farther than 5 % of its facet's longest
    edge from it (NaN elsewhere).
    """
    m, choice = xs.shape[0], np.empty(xs.shape[0], dtype=int)
    outside = np.full(m, np.nan)
    k = corners.shape[1]
    size = np.max([np.linalg.norm(corners[:, (i + 1) % k] - corners[:, i], axis=-1)
                   for i in range(k if k > 2 else 1)], axis=0)                 # (f,)
    for lo in range(0, m, CHUNK):
        p = xs[lo:lo + CHUNK, None, :]
        if corners.shape[1] == 2:
            xi, line, dist = _segment_frame(p, corners[None, :, 0], corners[None, :, 1])
            window = (xi >= -MARGIN) & (xi <= 1.0 + MARGIN)
        else:
            bary, line, dist = _triangle_frame(p, *(corners[None, :, i] for i in range(3)))
            window = np.all(bary >= -MARGIN, axis=-1)
        score = np.where(window, np.abs(line), np.inf)
        best = np.argmin(score, axis=1)
        none = ~np.isfinite(score[np.arange(best.size), best])
        best[none] = np.argmin(dist[none], axis=1)
        # within 5 % of its facet's longest edge of it, a node is measured on the facet's line
        # or plane (the solver's free-end margins are at most that); farther it faces no master
        reach = dist[none, best[none]]
        far = reach > MARGIN * size[best[none]]
        rows_none = np.flatnonzero(none)
        outside[lo:lo + CHUNK][rows_none[far]] = reach[far]
        rec = recorded[lo:lo + CHUNK]
        rows = np.arange(best.size)
        for cand in (rec, np.where(rec >= 0, rec + n_facets, -1)):
            ok = (cand >= 0) & (cand < window.shape[1])
            take = np.zeros(best.size, dtype=bool)
            take[ok] = window[rows[ok], cand[ok]]
            best = np.where(take, cand, best)
        choice[lo:lo + CHUNK] = best
    return choice, outside


def _measure(xs, xs0, corners, corners0, tangent0):
    """Gap (m,) and slip (m, q) of nodes on their held segments or triangles, ``corners`` (m, k, d)."""
    if corners.shape[1] == 2:
        xi, gap, _ = _segment_frame(xs, corners[:, 0], corners[:, 1])
        shape = np.stack([1.0 - xi, xi], axis=-1)
    else:
        shape, gap, _ = _triangle_frame(xs, *(corners[:, i] for i in range(3)))
    master = np.einsum("mk,mkd->md", shape, corners - corners0)
    slip = np.einsum("mqd,md->mq", tangent0, (xs - xs0) - master)
    return gap, slip


def _obstacle_measure(obstacle, xs, xs0, t, t0, tangent0):
    """Gap (the obstacle's distance) and slip (relative to its translation) against a rigid obstacle."""
    move = obstacle.position(t) - obstacle.position(t0)
    slip = np.einsum("mqd,md->mq", tangent0, xs - xs0 - move)
    return obstacle.gap(xs, t), slip


def _pair_geometry(problem, pair, rows, x, x0, t, t0, tangent0, recorded):
    """Gap (m,), slip (m, q), and the contact-force operator ``B`` rows of one pair."""
    sysm, d = problem.system, problem.dim
    slave = sysm.global_nodes(pair.slave.body, pair.slave.nodes)
    xs, xs0 = x[:, slave].T, x0[:, slave].T
    if isinstance(pair.master, ContactSurface):
        facets = pair.master.facets if d == 2 else _triangles(pair.master.facets)
        nodes = sysm.global_nodes(pair.master.body, facets.ravel()).reshape(facets.shape).T
        facet, outside = _project(xs, x[:, nodes].transpose(1, 2, 0), recorded,
                                  pair.master.facets.shape[1])
        held = nodes[facet]                                                   # (m, k)

        def fun(xs_, corners_):
            return _measure(xs_, xs0, corners_, x0[:, held].transpose(1, 2, 0), tangent0)
        corners = x[:, held].transpose(1, 2, 0)
        local_nodes = np.hstack([slave[:, None], held])
    else:
        def fun(xs_, corners_):
            return _obstacle_measure(pair.master, xs_, xs0, t, t0, tangent0)
        corners = np.zeros((xs.shape[0], 0, d))
        local_nodes = slave[:, None]
        outside = np.full(xs.shape[0], np.nan)
    gap, slip = fun(xs, corners)
    gap = np.where(np.isnan(outside), gap, outside)        # facing no part of the master
    if pair.formulation == "mortar" or smoothed_pair(pair, sysm):
        reference = None if problem.reference is None else problem.reference[rows]
        held = None if pair.formulation == "mortar" else recorded      # smoothed: the state's segments
        kin = pair_kinematics(pair, sysm, x, x0, t, t0, tangent0, reference, held)
        # the conditions hold for the method's own gaps and slips: the weighted ones of mortar
        # (dual multipliers), those on the smoothed master curves
        return kin.local.gap, kin.local.slip, kinematic_operator(kin, sysm.n_dofs)
    # derivatives of (g, Delta s) by central differences, the projected facet held
    coords = np.concatenate([xs[:, None, :], corners], axis=1)               # (m, 1+k, d)
    step = 1e-6 * max(1.0, float(np.abs(x).max()))
    grads = np.zeros((xs.shape[0], d, coords.shape[1] * d))
    for j in range(coords.shape[1]):
        for c in range(d):
            e = np.zeros_like(coords)
            e[:, j, c] = step
            gp, sp_ = fun(*(lambda y: (y[:, 0], y[:, 1:]))(coords + e))
            gm, sm = fun(*(lambda y: (y[:, 0], y[:, 1:]))(coords - e))
            grads[:, 0, j * d + c] = (gp - gm) / (2 * step)
            grads[:, 1:, j * d + c] = (sp_ - sm) / (2 * step)
    dofs = sysm.node_dofs(local_nodes.ravel()).reshape(xs.shape[0], -1)     # (m, (1+k) d)
    m = xs.shape[0]
    r = np.broadcast_to(np.arange(m * d).reshape(m, d, 1), grads.shape)
    cl = np.broadcast_to(dofs[:, None, :], grads.shape)
    return gap, slip, sp.csr_matrix((grads.ravel(), (r.ravel(), cl.ravel())),
                                    shape=(m * d, sysm.n_dofs))


# -- the check ----------------------------------------------------------------------------------

def _friction_violation(problem, lam, slip, lam0, dt, h, p):
    """Per-node friction violation (module docstring), relative to ``p``."""
    lam_n, lam_t = lam[:, 0], lam[:, 1:]
    size = np.linalg.norm(slip, axis=1)
    sliding = size > TOLERANCE * h
    s_hat = slip / np.maximum(size, 1e-300)[:, None]
    tnorm = np.linalg.norm(lam_t, axis=1)
    out = np.zeros(lam.shape[0])
    for pair, s in zip(problem.pairs, problem.slices):
        law = pair.friction
        closed = lam_n[s] > 0.0
        lam_c = np.where(law.smooth & (lam0[s] > 0.0), lam0[s], np.maximum(lam_n[s], 0.0))
        excess = np.maximum(tnorm[s] - law.static * lam_c, 0.0)
        misaligned = np.linalg.norm(lam_t[s] + tnorm[s][:, None] * s_hat[s], axis=1)
        mu = law.coefficient(sliding[s], size[s] / dt)
        off_cone = 0.0 if law.smooth else np.abs(tnorm[s] - mu * lam_n[s])
        slide = np.where(sliding[s], np.maximum(misaligned, off_cone), 0.0)
        out[s] = np.where(closed, np.maximum(excess, slide), tnorm[s]) / p
    released = problem.friction.released          # nodes on an axis of revolution: lam_t = 0
    if released is not None:
        out[released] = tnorm[released] / p
    return out


def residual_check(problem: ContactProblem, state: StepState, bulk=None,
                   tolerance: float = TOLERANCE) -> ResidualCheck:
    """Check ``state`` against equilibrium and the contact conditions.

    Parameters
    ----------
    problem : ContactProblem
    state : StepState
        A written state (its ``start`` describes the increment that made it).
    bulk : BulkTerms, optional
        A dynamic time step's bulk terms in place of the static ones.
    tolerance : float
        The largest relative violation that passes.

    Returns
    -------
    ResidualCheck

    Examples
    --------
    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, fc.Coulomb(0.3))])
    >>> result = model.solve(steps=2)
    >>> check = fc.residual_check(result.problem, result.state)
    >>> check.passed, check.failures()
    (True, '')
    """
    sysm = problem.system
    d = problem.dim
    u, lam, t = state.u, state.multiplier, state.t
    where: dict = {}
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(lam))):
        bad = np.flatnonzero(~np.isfinite(sysm.to_reduced(np.where(sysm.fixed, 0.0, u))))
        where["equilibrium"] = problem.where(int(bad[0])) if bad.size else "the contact tractions"
        return ResidualCheck(np.inf, np.inf, np.inf, np.inf, np.inf, where, tolerance)
    begin = state.start
    u0, t0 = (begin.u, begin.t) if begin is not None else (u, t)
    lam0 = begin.normal_pressure if begin is not None else lam[:, 0]
    dt = t - t0 if t > t0 else 1.0
    X = sysm.reference_coords()
    x, x0 = X + u.reshape(-1, d).T, X + u0.reshape(-1, d).T
    m = problem.n_contact
    gap, slip = np.zeros(m), np.zeros((m, d - 1))
    blocks = []
    for pair, s in zip(problem.pairs, problem.slices):
        gap[s], slip[s], B = _pair_geometry(problem, pair, s, x, x0, t, t0,
                                            state.multiplier_basis[s], state.facet[s])
        if pair.slave.multiplier_map is not None and pair.formulation != "mortar":
            # quadratic 3D surface: the conditions hold for the vertices' weighted gaps and slips
            R = weighted_row_map(pair.slave.multiplier_map, state.multiplier_basis[s])
            rows = (R @ np.column_stack([gap[s], slip[s]]).ravel()).reshape(-1, d)
            gap[s], slip[s], B = rows[:, 0], rows[:, 1:], R @ B
        blocks.append(B)
    if begin is not None:           # slip counts from a closing node's first contact
        slip -= slip_before_contact(begin.gap, problem.apart(begin.status, begin.gap),
                                    begin.approach, state.multiplier_basis, t - t0)
    A = np.repeat(problem.area, d)
    contact = ((sp.vstack(blocks).T @ (A * lam.ravel())) if blocks
               else np.zeros(sysm.n_dofs))
    R_bulk, scale = (problem.static_bulk if bulk is None else bulk).residual(u, t)
    R = R_bulk - sysm.T.T @ contact
    # a body moved without stress (never touching, lifted off) has round-off forces only: the
    # floor is the rounding bound of K u, a force the stiffness and the displacements give
    rounding = RoundingBound.of(sysm.K, getattr(sysm, "share", None))(u)
    scale = max(scale, float(np.linalg.norm(contact)), rounding / tolerance, 1e-300)
    eq = np.abs(R) / scale
    equilibrium = float(np.linalg.norm(R) / scale)
    where["equilibrium"] = problem.where(int(np.argmax(eq))) if eq.size else "-"
    if m == 0:
        return ResidualCheck(equilibrium, 0.0, 0.0, 0.0, 0.0, where, tolerance)

    h = problem.node_size
    lam_n = lam[:, 0]
    p = max(float(np.max(np.abs(lam_n))), scale / max(float(problem.area.sum()), 1e-300), 1e-300)
    penalty = problem.penalty > 0.0
    gap_v = np.where(penalty, 0.0, np.maximum(-gap / h, 0.0))
    pressure_v = np.maximum(-lam_n / p, 0.0)
    comp_v = np.where(penalty, np.abs(lam_n - problem.penalty * np.maximum(-gap, 0.0)) / p,
                      np.abs(np.minimum(lam_n / p, gap / h)))
    fric_v = _friction_violation(problem, lam, slip, lam0, dt, h, p)
    values = {"gap": gap_v, "pressure": pressure_v, "complementarity": comp_v, "friction": fric_v}
    # nodes without a multiplier (area 0: midside nodes of quadratic 3D surfaces) show the
    # traction field interpolated from their edge's ends and have no condition of their own
    for v in values.values():
        v[problem.area == 0.0] = 0.0
    for key, v in values.items():
        where[key] = problem.slave_node_name(int(np.argmax(v)))
    return ResidualCheck(equilibrium, float(gap_v.max()), float(pressure_v.max()),
                         float(comp_v.max()), float(fric_v.max()), where, tolerance)
