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
  which transmits no friction in it (see :class:`fecontact.solve.problem.ContactProblem`);

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


def cone_response(trial, normal, mu) -> FrictionResponse:
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


def concatenate(responses: list) -> FrictionResponse:
    """One response from the responses of consecutive node batches."""
    if len(responses) == 1:
        return responses[0]
    return FrictionResponse(*(np.concatenate([getattr(r, f) for r in responses])
                              for f in FrictionResponse.__dataclass_fields__))


LAWS = ("frictionless", "coulomb", "static_kinetic", "velocity", "ipc")
