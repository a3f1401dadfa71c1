r"""Friction laws behind one interface: a vectorised return map over contact nodes.

Every law maps, per contact node,

* the trial (elastic predictor) tangential traction ``z = lam_t - c_t Delta s``,
  shape (m, q), ``q = dim - 1``;
* the augmented normal traction ``lam_hat = max(0, lam_n - c_n g_n)``, (m,);
* the slip increment ``Delta s`` of the increment, (m, q), and the time
  increment ``dt`` (slip rate ``v = Delta s / dt``);
* its own per-node state at the start of the increment, an int array (m,);
* the start-of-increment normal traction ``lam_n0`` (m,) for lagged laws;
* ``engaged`` (m,) bool: False for a node closing inside the increment,
  which transmits no friction in it (see :class:`fecontact.problem.ContactProblem`);

to the tangential traction ``F`` and its generalised derivatives
``dF/dz``, ``dF/dlam_hat`` and ``dF/dDelta s`` (the last one beyond the
dependence through ``z``: rate-dependent and smooth laws).  The
Alart–Curnier residual is then ``C_t = lam_t - F`` (:func:`alart_curnier`);
the solver uses only this interface.

Laws: :class:`Coulomb`, :class:`StaticKinetic` (stick / slip / re-stuck state
machine), :class:`VelocityDependent` (``mu(v) = mu_k + (mu_s - mu_k)
exp(-d_c |v|)``, implicit), :class:`SmoothIPC` (the IPC Toolkit's smooth
static-to-kinetic friction with lagged normal force).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cone import coulomb_return_map
from .smooth import smooth_mu, smooth_mu_f1_over_x, smooth_mu_f2_x_minus_mu_f1_over_x3

#: Per-node states of :class:`StaticKinetic` (other laws keep ``STUCK`` or ``SLIDING``).
STUCK, SLIDING, RESTUCK = 0, 1, 2


@dataclass(frozen=True)
class FrictionResponse:
    """Result of a friction law for ``m`` nodes.

    Attributes
    ----------
    traction : ndarray, shape (m, q)
        Tangential traction ``F``.
    d_trial : ndarray, shape (m, q, q)
        ``dF/dz``.
    d_normal : ndarray, shape (m, q)
        ``dF/dlam_hat``.
    d_slip : ndarray, shape (m, q, q)
        ``dF/dDelta s`` at fixed ``z``.
    sliding : ndarray of bool, shape (m,)
        True where the node slides (the corrector is active, or the smooth
        law is beyond its static range).
    coefficient : ndarray, shape (m,)
        Friction coefficient the law used (the cone ``|F| <= coefficient *
        lam`` holds with ``lam = lam_hat``, or ``lam_n0`` for lagged laws).
    """

    traction: np.ndarray
    d_trial: np.ndarray
    d_normal: np.ndarray
    d_slip: np.ndarray
    sliding: np.ndarray
    coefficient: np.ndarray

    def take(self, rows) -> "FrictionResponse":
        """Rows ``rows`` (index array or slice) of every array."""
        return FrictionResponse(*(getattr(self, f)[rows] for f in self.__dataclass_fields__))


def _cone_response(trial, normal, mu) -> FrictionResponse:
    cone = coulomb_return_map(trial, mu * normal)
    m, q = trial.shape
    return FrictionResponse(cone.traction, cone.d_trial, cone.d_radius * mu[:, None],
                            np.zeros((m, q, q)), cone.sliding, mu)


class FrictionLaw:
    """Defaults shared by the laws: no state machine, the kinetic coefficient ``mu_k``.

    A law's per-node state after a converged increment is ``SLIDING`` where
    a closed node slides and ``STUCK`` elsewhere, and the increment is never
    solved again (:meth:`revise` returns None).  Laws with a state machine
    override :meth:`next_state` and :meth:`revise`.
    """

    @property
    def kinetic(self) -> float:
        """Coefficient of sliding (the reference coefficient of the pair)."""
        return self.mu_k

    def next_state(self, state, response, closed):
        return np.where(closed & response.sliding, SLIDING, STUCK)

    def revise(self, state, response, closed):
        return None


@dataclass(frozen=True)
class Coulomb(FrictionLaw):
    """Coulomb friction: projection of the trial traction onto the disk of radius ``mu lam_hat``."""

    mu: float
    name = "coulomb"

    @property
    def kinetic(self) -> float:
        return self.mu

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        mu = np.where(engaged, self.mu, 0.0)
        return _cone_response(trial, normal, mu)


@dataclass(frozen=True)
class StaticKinetic(FrictionLaw):
    r"""Static/kinetic Coulomb friction, ``mu_s >= mu_k``, with a stick–slip state machine.

    State per node at the start of an increment: ``STUCK`` (or never in
    contact), ``SLIDING`` or ``RESTUCK``.  The disk radius is ``mu_s lam_hat``
    for stuck and re-stuck nodes and ``mu_k lam_hat`` for sliding ones:

    * a stuck node stays stuck while ``|z| <= mu_s lam_hat``; when the
      converged increment has it beyond (breakaway), :meth:`revise` marks it
      sliding and the increment is solved again, so that in the increment of
      breakaway the traction is already ``mu_k lam_hat`` opposing the slip;
    * a sliding node whose trial traction falls inside the kinetic disk
      (the slip rate stopped or reversed) sticks: ``Delta s = 0`` and its
      traction is the trial, i.e. the current traction -- the elastic
      tangential state restarts from it.  It is ``RESTUCK`` for the next
      increment, with the static radius again.
    """

    mu_s: float
    mu_k: float
    name = "static_kinetic"

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        mu = np.where(state == SLIDING, self.mu_k, self.mu_s)
        return _cone_response(trial, normal, np.where(engaged, mu, 0.0))

    def next_state(self, state, response, closed):
        sticks = closed & ~response.sliding
        return np.where(closed & response.sliding, SLIDING,
                        np.where(sticks & (state == SLIDING), RESTUCK, STUCK))

    def revise(self, state, response, closed):
        """Start state with the nodes that broke away in this increment marked sliding, or None."""
        broke = closed & response.sliding & (state != SLIDING) & (self.mu_k != self.mu_s)
        if not np.any(broke):
            return None
        return np.where(broke, SLIDING, state)


def _rate(slip, dt):
    speed = np.linalg.norm(slip, axis=1) / dt
    direction = slip / np.where(speed > 0.0, speed * dt, 1.0)[:, None]
    return speed, direction


@dataclass(frozen=True)
class VelocityDependent(FrictionLaw):
    r"""Rate-dependent Coulomb friction ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c |v|)``.

    ``v = Delta s / dt`` is the slip rate over the increment.  The radius
    ``mu(|v|) lam_hat`` is implicit: it uses the slip of the current Newton
    iterate, and its derivative enters the Jacobian,

    .. math::

        \frac{\partial F}{\partial \Delta s} = \lambda\,\mu'(|v|)\,
        \frac{z}{|z|}\otimes\frac{v}{|v|}\,\frac{1}{\Delta t}
        \quad\text{(sliding nodes)},

    with ``mu'(v) = -d_c (mu_s - mu_k) exp(-d_c v)``.  A lagged coefficient
    (from the previous increment's rate) would keep the Jacobian of plain
    Coulomb but make the traction one increment late: at breakaway and
    re-sticking, exactly where velocity weakening matters, the lag changes
    the answer with the step size.  Stuck nodes have ``v = 0`` and ``mu_s``.
    """

    mu_s: float
    mu_k: float
    decay: float
    name = "velocity"

    def coefficient(self, speed):
        return self.mu_k + (self.mu_s - self.mu_k) * np.exp(-self.decay * speed)

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        speed, direction = _rate(slip, dt)
        mu = np.where(engaged, self.coefficient(speed), 0.0)
        cone = coulomb_return_map(trial, mu * normal)
        d_mu = -self.decay * (self.mu_s - self.mu_k) * np.exp(-self.decay * speed) / dt
        d_mu = np.where(engaged & cone.sliding, d_mu, 0.0)
        d_slip = (normal * d_mu)[:, None, None] * cone.d_radius[:, :, None] * direction[:, None, :]
        return FrictionResponse(cone.traction, cone.d_trial, cone.d_radius * mu[:, None],
                                d_slip, cone.sliding, mu)


@dataclass(frozen=True)
class SmoothIPC(FrictionLaw):
    r"""Smooth static-to-kinetic friction (IPC Toolkit), lagged normal force.

    .. math::

        F = -\mu(y)\,\lambda_{n0}\,f_1(y)\,\frac{v}{y}, \qquad
        v = \frac{\Delta s}{\Delta t},\; y = |v|,

    with ``lam_n0`` the normal traction at the start of the increment (as in
    the IPC Toolkit, one lag per increment, no re-solves; a node touching
    without a lagged force yet -- at the first increment -- uses its current
    normal traction, with its derivative) and
    ``mu``, ``f1`` from :mod:`fecontact.friction.smooth` (velocity threshold
    ``eps_v``).  ``F`` is a smooth function of the slip: no return map, no
    stick constraint (below ``eps_v`` the node creeps at a rate
    proportional to the force), and

    .. math::

        \frac{\partial F}{\partial \Delta s} = -\frac{\lambda_{n0}}{\Delta t}
        \Big[(\mu f_1/x)(y)\, I + \big((\mu f_1)'x - \mu f_1\big)/x^3\,(y)\; v v^T\Big].

    Nodes with ``y < eps_v`` report as stuck, the others as sliding; open
    nodes (``lam_hat = 0``) carry no friction whatever ``lam_n0``.
    """

    mu_s: float
    mu_k: float
    eps_v: float
    name = "ipc"

    def return_map(self, trial, normal, slip, dt, state, normal0, engaged) -> FrictionResponse:
        m, q = slip.shape
        v = slip / dt
        y = np.linalg.norm(v, axis=1)
        lagged = normal0 > 0.0
        # open nodes carry none; nodes without a lagged force yet use the current one
        lam = np.where(engaged & (normal > 0.0), np.where(lagged, normal0, normal), 0.0)
        g = smooth_mu_f1_over_x(y, self.mu_s, self.mu_k, self.eps_v)
        h = smooth_mu_f2_x_minus_mu_f1_over_x3(y, self.mu_s, self.mu_k, self.eps_v)
        h = np.where(y > 0.0, h, 0.0)          # v v^T vanishes at rest
        traction = -(lam * g)[:, None] * v
        d_slip = -(lam / dt)[:, None, None] * (g[:, None, None] * np.eye(q)
                                              + h[:, None, None] * v[:, :, None] * v[:, None, :])
        mu = smooth_mu(y, self.mu_s, self.mu_k, self.eps_v)
        d_normal = np.where((engaged & (normal > 0.0) & ~lagged)[:, None], -g[:, None] * v, 0.0)
        return FrictionResponse(traction, np.zeros((m, q, q)), d_normal, d_slip,
                                engaged & (y >= self.eps_v), np.where(engaged, mu, 0.0))


def concatenate(responses: list) -> FrictionResponse:
    """One response from the responses of consecutive node batches."""
    if len(responses) == 1:
        return responses[0]
    return FrictionResponse(*(np.concatenate([getattr(r, f) for r in responses])
                              for f in FrictionResponse.__dataclass_fields__))


LAWS = ("frictionless", "coulomb", "static_kinetic", "velocity", "ipc")
