r"""Energy bookkeeping of a dynamic contact analysis.

Per step the ledger holds the kinetic energy ``v M v / 2``, the strain
energy of the bodies and springs, and the accumulated works, each by the
trapezoidal rule on the step's displacement increment ``Delta u``:

* external work: loads ``(f_n + f_{n+1})/2 . Delta u``, support reactions
  on moving Dirichlet DOFs, coupling forces and spring anchors
  ``(S_n + S_{n+1})/2 Delta x_a`` (``S`` the spring-dashpot tension);
* contact work: the normal contact forces ``(F^N_n + F^N_{n+1})/2 . Delta u``
  plus the kinetic energy removed by the velocity projection;
* frictional dissipation ``-(F^T_n + F^T_{n+1})/2 . Delta u``;
* dashpot dissipation ``(c/2)(e'_n + e'_{n+1}) Delta e``.

For the average acceleration scheme these sums are exact: the discrete
energy identity ``Delta(KE + SE) = Delta u . (F_n + F_{n+1})/2`` holds, so
the balance error

.. math:: \epsilon = KE + SE - E_0 - W_{ext} - W_{contact} + D_{friction} + D_{dashpot}

is the Newton tolerance times the forces.  For HHT-α and generalised-α it
is the integrator's numerical dissipation (negative).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np


@dataclass(frozen=True)
class EnergyLedger:
    """Energies and accumulated works at one time (all in the units of force x length)."""

    kinetic: float
    strain: float
    initial: float
    external_work: float = 0.0
    contact_work: float = 0.0
    projection_work: float = 0.0
    friction_dissipation: float = 0.0
    damping_dissipation: float = 0.0

    @property
    def total(self) -> float:
        """``KE + SE``."""
        return self.kinetic + self.strain

    @property
    def balance_error(self) -> float:
        """Balance error ``KE + SE - E_0 - W_ext - W_contact + D_friction + D_dashpot``.

        Zero up to the Newton tolerance for the average acceleration scheme; the
        numerical dissipation (negative) of HHT-α and generalised-α.
        """
        return (self.total - self.initial - self.external_work - self.contact_work
                + self.friction_dissipation + self.damping_dissipation)

    def as_dict(self) -> dict:
        """The ledger's fields with ``total`` and ``balance_error``, as a plain dict of floats (for the time series)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["total"] = self.total
        out["balance_error"] = self.balance_error
        return out


@dataclass(frozen=True)
class StepForces:
    """Forces at one time that enter the works of the next step (full numbering).

    Attributes
    ----------
    loads : ndarray, shape (n,)
        External loads (without the spring anchors).
    reaction : ndarray, shape (n,)
        Support reactions (non-zero on Dirichlet DOFs).
    coupling : ndarray, shape (n_red,)
        Coupling forces, reduced numbering.
    contact_normal, contact_tangential : ndarray, shape (n,)
        ``B_N^T A lam_N`` and ``B_T^T A lam_T``.
    spring_tension, spring_rate : ndarray, shape (n_springs,)
        ``S = k e + c e'`` and ``e'`` of each spring.
    anchor : ndarray, shape (n_springs,)
        Anchor positions.
    """

    loads: np.ndarray
    reaction: np.ndarray
    coupling: np.ndarray
    contact_normal: np.ndarray
    contact_tangential: np.ndarray
    spring_tension: np.ndarray
    spring_rate: np.ndarray
    anchor: np.ndarray


def advance(ledger: EnergyLedger, kinetic: float, strain: float, du: np.ndarray, du_hat: np.ndarray,
            coupling_columns: np.ndarray, dampings: np.ndarray, spring_mean_change: np.ndarray,
            before: StepForces, after: StepForces, projection_work: float = 0.0) -> EnergyLedger:
    """Ledger after a step with displacement increment ``du`` (full) and ``du_hat`` (reduced).

    ``spring_mean_change`` is the change of each spring's weighted mean
    displacement, ``dampings`` their dashpot coefficients.
    """
    def trap(a, b, x):
        return 0.5 * float((a + b) @ x)

    d_anchor = after.anchor - before.anchor
    external = (trap(before.loads, after.loads, du) + trap(before.reaction, after.reaction, du)
                + trap(before.coupling[coupling_columns], after.coupling[coupling_columns],
                       du_hat[coupling_columns])
                + trap(before.spring_tension, after.spring_tension, d_anchor))
    d_stretch = d_anchor - spring_mean_change
    damping = 0.5 * float(np.sum(dampings * (before.spring_rate + after.spring_rate) * d_stretch))
    normal = trap(before.contact_normal, after.contact_normal, du)
    tangential = trap(before.contact_tangential, after.contact_tangential, du)
    return replace(ledger, kinetic=kinetic, strain=strain,
                   external_work=ledger.external_work + external,
                   contact_work=ledger.contact_work + normal + projection_work,
                   projection_work=ledger.projection_work + projection_work,
                   friction_dissipation=ledger.friction_dissipation - tangential,
                   damping_dissipation=ledger.damping_dissipation + damping)
