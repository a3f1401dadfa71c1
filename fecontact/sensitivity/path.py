r"""The path of a static run: its accepted increments, evaluated again with any problem.

A static run is a chain of increments ``k = 1..N``.  Increment ``k`` solves
``R_k(x_k; s_{k-1}, p) = 0`` for its unknowns ``x_k = (u_hat_k, lam_k)``,
where ``s_{k-1}`` is the start state the run committed after increment
``k - 1``.  The start state's continuous fields are functions of earlier
unknowns (:func:`start_state`):

* the displacement ``u_{k-1} = T u_hat_{k-1} + u_D(t_{k-1})`` (the slip of
  increment ``k`` is measured from it);
* the gap ``g_{k-1}`` and tangent basis ``tau_{k-1}`` of the kinematics at
  ``u_{k-1}`` (slip directions, and which nodes are apart);
* the normal traction ``lam_n,{k-1}`` (lagged friction laws);
* the approach rate over increment ``k - 1`` (where a node that closes in
  increment ``k`` first touches, :mod:`fecontact.contact.closing`), a
  function of ``u_{k-1}`` and ``u_{k-2}``.

Its discrete fields (contact status, friction-law state, master facets)
are those of the run.  So ``R_k`` depends on ``x_k``, ``x_{k-1}`` and
``x_{k-2}``, and on the parameters ``p`` through the problem it is
evaluated with.  :class:`Path` evaluates it for any problem of the same
numbering (the run's own, or one made with other parameter values), which
is what the partial derivatives of :mod:`fecontact.sensitivity.adjoint` are
taken of.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..contact.closing import approach_rate
from ..solve.operators import kinematic_operator
from ..solve.problem import ContactProblem, Evaluation
from ..solve.state import StepState

__all__ = ["Path", "Perturbation"]


@dataclass(frozen=True)
class Perturbation:
    """A change of the start data of one increment (for finite differences of the cross terms).

    Attributes
    ----------
    u_previous : ndarray, shape (n_dofs,), optional
        Added to ``u_{k-1}``.
    u_before : ndarray, shape (n_dofs,), optional
        Added to ``u_{k-2}``.
    pressure_previous : ndarray, shape (m,), optional
        Added to ``lam_n,{k-1}``.
    """

    u_previous: np.ndarray | None = None
    u_before: np.ndarray | None = None
    pressure_previous: np.ndarray | None = None


class Path:
    """The accepted increments of a static run.

    Parameters
    ----------
    problem : ContactProblem
        The problem the run solved.
    increments : sequence of StepState
        Every committed state in order (``increments[k - 1]`` ends increment ``k``).

    Attributes
    ----------
    unknowns : list of ndarray
        ``x_0`` (the initial state's) to ``x_N``, shape (n_reduced + m*dim,) each.
    """

    def __init__(self, problem: ContactProblem, increments):
        self.problem = problem
        self.states = (problem.initial_state(),) + tuple(increments)
        self.unknowns = [problem.unknowns(s) for s in self.states]
        self._stencils: dict = {}
        self._before: dict = {}        # the run's problem: kinematics at u_{k-2}, by k

    @property
    def n(self) -> int:
        """Number of increments ``N``."""
        return len(self.states) - 1

    def time(self, k: int) -> float:
        """``t_k`` (``t_0 = 0``)."""
        return self.states[k].t

    def displacement(self, problem: ContactProblem, k: int, extra=None) -> np.ndarray:
        """``u_k`` of ``problem`` from the run's ``u_hat_k``, plus ``extra``; shape (n_dofs,)."""
        sysm = problem.system
        u = sysm.displacement(self.unknowns[k][:sysm.n_reduced], self.time(k)) if k > 0 \
            else np.zeros(sysm.n_dofs)
        return u if extra is None else u + extra

    def geometry(self, problem: ContactProblem, k: int, u: np.ndarray, start: StepState | None):
        """Kinematics of ``problem`` at ``u`` on increment ``k``'s facets (``k = 0``: the initial state's)."""
        if k == 0:
            return problem.kinematics(u, 0.0, None)
        return problem.kinematics(u, self.time(k), start, self.states[k].facet)

    def start_state(self, problem: ContactProblem, k: int,
                    change: Perturbation = Perturbation()) -> StepState:
        """The start state of increment ``k`` (1-based) as ``problem`` makes it from ``x_{k-1}``, ``x_{k-2}``.

        With the run's problem and no ``change`` it equals the state the run
        started the increment from (:meth:`StepState.increment_start`).
        """
        recorded = self.states[k].increment_start()
        if k == 1:
            initial = problem.initial_state()
            return replace(recorded, u=initial.u, gap=initial.gap, tangent=initial.tangent,
                           approach=None)
        d = problem.dim
        own = problem is self.problem and change.u_before is None
        u_before = self.displacement(problem, k - 2, change.u_before)
        if own and k in self._before:
            before = self._before[k]
        else:
            before = self.geometry(problem, k - 2, u_before, None if k == 2 else
                                   self.states[k - 2].increment_start()).local
            if own:
                self._before[k] = before
        start_previous = replace(self.states[k - 1].increment_start(), u=u_before,
                                 gap=before.gap, tangent=before.tangent)
        u_previous = self.displacement(problem, k - 1, change.u_previous)
        kin = self.geometry(problem, k - 1, u_previous, start_previous).local
        motion = np.einsum("mq,mqd->md", kin.slip, before.tangent)
        approach = approach_rate(kin.gap - before.gap, motion, self.time(k - 1) - self.time(k - 2))
        multiplier = np.zeros_like(recorded.multiplier)
        lam = self.unknowns[k - 1][problem.system.n_reduced:].reshape(-1, d)
        pressure, _ = problem.nodal_tractions(lam, self.states[k - 1].status, kin.normal,
                                              before.tangent)
        multiplier[:, 0] = pressure[:, 0] if change.pressure_previous is None \
            else pressure[:, 0] + change.pressure_previous
        return replace(recorded, u=u_previous, gap=kin.gap, tangent=kin.tangent,
                       approach=approach, multiplier=multiplier)

    def evaluate(self, problem: ContactProblem, k: int, change: Perturbation = Perturbation(),
                 jacobian: bool = False) -> Evaluation:
        """``R_k`` (and its Jacobian in ``x_k``) at the run's ``x_k`` with ``problem``."""
        start = self.start_state(problem, k, change)
        return problem.evaluate(self.unknowns[k], self.time(k), start, problem.static_bulk,
                                facet_hint=self.states[k].facet, jacobian=jacobian)

    def contact_terms(self, problem: ContactProblem, k: int,
                      change: Perturbation = Perturbation()) -> tuple:
        """``(f_c, R_2, status)`` of increment ``k``: the full contact force ``B^T A lam``, the contact
        rows (the only terms of ``R_k`` that read the start state; the bulk terms are not
        evaluated) and the contact status of each node."""
        start = self.start_state(problem, k, change)
        d, n_red = problem.dim, problem.system.n_reduced
        lam = self.unknowns[k][n_red:].reshape(-1, d)
        u = self.displacement(problem, k)
        kin, rows = problem.contact_rows(u, lam, self.time(k), start, self.states[k].facet)
        B = kinematic_operator(kin, problem.system.n_dofs)
        A = np.repeat(problem.scale, d)
        return B.T @ (A * lam.ravel()), A * rows.residual.ravel(), rows.status

    def stencil_dofs(self, problem: ContactProblem, k: int) -> tuple:
        """The DOFs each contact row of increment ``k`` reads: ``(kin.dofs, kin.row_map)`` (cached)."""
        key = (id(problem), k)
        if key not in self._stencils:
            kin = self.geometry(problem, k, self.displacement(problem, k),
                                None if k == 0 else self.states[k].increment_start())
            self._stencils[key] = (kin.dofs, kin.row_map)
        return self._stencils[key]
