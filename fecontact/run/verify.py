r"""Independent residual check of a result: equilibrium and the contact conditions.

The check reads only what a run writes for a state (displacement, nodal
tractions, and the start of the increment that produced them, all in the
restart file) and the model; it does not use the solver's iterates, its
active sets or its convergence flag.  It evaluates

* **equilibrium** — the bulk residual with the contact forces rebuilt from
  the tractions, ``|T^T(K u - f - B^T A lam) - F_c| / F``, with ``B``
  from a fresh contact search and projection at the final displacement
  (``F`` the largest of the internal, external, coupling and contact force
  norms; in dynamics the bulk terms of the last time step);
* **gap** — ``max(-g_n / h)`` over slave nodes with the exact (Signorini)
  condition (``h`` the nodal length, or square root of the nodal area);
* **pressure** — ``max(-lam_n) / p`` (``p`` the pressure scale: the largest
  pressure, or the force scale over the slave area);
* **complementarity** — ``max |min(lam_n / p, g_n / h)|`` (Signorini), or
  ``|lam_n - eps max(0, -g_n)| / p`` at penalty nodes;
* **friction** — the natural-map residual of the friction law,
  ``|lam_t - P_{mu lam_n}(lam_t - (p/h) Delta s)| / p``, with the law's
  coefficient for the node's slip (:meth:`FrictionLaw.coefficient
  <fecontact.friction.base.FrictionLaw.coefficient>`: ``mu_s`` while stuck and
  ``mu_k`` while sliding, ``mu(v)`` for rate-dependent friction) and ``mu = 0``
  for a node that closed inside the increment.  For smooth laws (IPC), whose
  traction lies inside the cone, the residual is the excess over the cone
  ``mu_max lam_n0`` plus the misalignment with the slip.

A result passes when every measure is at most ``tolerance`` (1e-6, a
thousand times the Newton tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solve.operators import kinematic_operator
from ..solve.problem import ContactProblem
from ..solve.state import StepState

TOLERANCE = 1e-6
MEASURES = ("equilibrium", "gap", "pressure", "complementarity", "friction")


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
    """
    sysm = problem.system
    d = problem.dim
    u, lam, t = state.u, state.multiplier, state.t
    where: dict = {}
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(lam))):
        bad = np.flatnonzero(~np.isfinite(sysm.to_reduced(np.where(sysm.fixed, 0.0, u))))
        where["equilibrium"] = problem.where(int(bad[0])) if bad.size else "the contact tractions"
        return ResidualCheck(np.inf, np.inf, np.inf, np.inf, np.inf, where, tolerance)
    start = state.increment_start() if state.start is not None else state
    kin = problem.kinematics(u, t, start, state.facet)
    A = np.repeat(problem.area, d)
    contact = kinematic_operator(kin, sysm.n_dofs).T @ (A * lam.ravel())
    R_bulk, scale = (problem.static_bulk if bulk is None else bulk).residual(u, t)
    R = R_bulk - sysm.T.T @ contact
    scale = max(scale, float(np.linalg.norm(contact)), 1e-300)
    eq = np.abs(R) / scale
    k = int(np.argmax(eq)) if eq.size else 0
    equilibrium = float(np.linalg.norm(R) / scale)
    where["equilibrium"] = problem.where(k) if eq.size else "-"

    m = problem.n_contact
    if m == 0:
        return ResidualCheck(equilibrium, 0.0, 0.0, 0.0, 0.0, where, tolerance)
    L = kin.local
    gap, slip = L.gap, L.slip
    h = problem.node_size
    lam_n, lam_t = lam[:, 0], lam[:, 1:]
    p = max(float(np.max(np.abs(lam_n))), scale / max(float(problem.area.sum()), 1e-300), 1e-300)
    penalty = problem.penalty > 0.0
    gap_v = np.where(penalty, 0.0, np.maximum(-gap / h, 0.0))
    pressure_v = np.maximum(-lam_n / p, 0.0)
    comp_v = np.where(penalty, np.abs(lam_n - problem.penalty * np.maximum(-gap, 0.0)) / p,
                      np.abs(np.minimum(lam_n / p, gap / h)))

    # friction: natural map of each pair's law
    fric_v = np.zeros(m)
    begin = state.start
    if begin is not None:
        engaged = problem.friction_engaged(begin)
        lam0 = begin.normal_pressure
        dt = t - begin.t if t > begin.t else 1.0
    else:
        engaged = np.ones(m, dtype=bool)
        lam0 = lam_n
        dt = 1.0
    size = np.linalg.norm(slip, axis=1)
    sliding = size > 1e-6 * h
    direction = slip / np.maximum(size, 1e-300)[:, None]
    closed_n = np.maximum(lam_n, 0.0)
    for pair, s in zip(problem.pairs, problem.slices):
        law = pair.friction
        lt = lam_t[s]
        mu = law.coefficient(sliding[s], size[s] / dt)
        if law.smooth:
            lagged = np.where(lam0[s] > 0.0, lam0[s], closed_n[s])    # as the law lags it
            excess = np.maximum(np.linalg.norm(lt, axis=1) - mu * lagged, 0.0)
            along = np.einsum("mq,mq->m", lt, direction[s])
            misaligned = np.where(sliding[s], np.linalg.norm(lt, axis=1) + along, 0.0)
            fric_v[s] = np.where(engaged[s], excess + misaligned,
                                 np.linalg.norm(lt, axis=1)) / p
            continue
        mu = np.where(engaged[s], mu, 0.0)
        radius = mu * closed_n[s]
        z = lt - (p / h[s])[:, None] * slip[s]
        nz = np.linalg.norm(z, axis=1)
        proj = np.where((nz <= radius)[:, None], z, radius[:, None] * z / np.maximum(nz, 1e-300)[:, None])
        fric_v[s] = np.linalg.norm(lt - proj, axis=1) / p

    values = {"gap": gap_v, "pressure": pressure_v, "complementarity": comp_v, "friction": fric_v}
    for key, v in values.items():
        where[key] = problem.slave_node_name(int(np.argmax(v)))
    return ResidualCheck(equilibrium, float(gap_v.max()), float(pressure_v.max()),
                         float(comp_v.max()), float(fric_v.max()), where, tolerance)
