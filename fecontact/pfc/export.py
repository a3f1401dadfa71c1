r"""One converged contact increment of a finite-element run, written as PFC(M, H, q, b, mu).

Notation of :mod:`fecontact.solve.problem`: reduced unknowns ``u_hat``, full
displacement ``u = T u_hat + u_D(t)``, per slave node the gap and slip
increment ``w = (g_n, Delta s)`` (normal first) with derivative ``B`` and
nodal area ``A``.  An increment from ``u_hat_0`` (time ``t_0``) to
``u_hat_1`` (``t_1``) solves ``R_bulk(u) - T^T B^T A lam = 0`` with Signorini
and the friction law on ``(w, lam)``.  Its PFC form is

.. math::

    M = \partial R_{bulk}/\partial\hat u, \quad
    v = \hat u_1 - \hat u_0, \quad
    q = -R_{bulk}(T\hat u_0 + u_D(t_1), t_1), \quad
    H = (B T)^T, \quad r = A\lambda, \quad u = w, \quad b = w - H^T v,

so ``M v = q + H r`` is the equilibrium of the increment and ``u = H^T v +
b`` its gaps and slips.  In statics ``M`` is the stiffness ``K_hat`` with the
Dirichlet DOFs eliminated and ``q`` holds the loads at ``t_1``, the
prescribed displacements of ``t_1`` and the internal force of the start;
in dynamics ``M`` is the effective stiffness of the time step and ``q``
adds the inertia and damping terms of the step (both are linear in
``u_hat``, so this is exact).  ``r`` are the contact nodal forces, ``u_N``
the gaps at the end of the increment and ``u_T`` the slip increments, and
``b_N`` is the gap of the start configuration.

``B`` is evaluated at the converged configuration.  Against rigid flat
obstacles the kinematics is linear in ``u`` and this is the exact problem of
the increment; with curved obstacles or a deformable master it is the
problem linearised at its solution, which the finite-element solution
satisfies exactly (its residuals are reported by the tests) and which
differs from a linearisation at the start by terms of second order in ``v``.

Friction coefficients are those the law used in the increment, per node:
``mu`` of Coulomb; ``mu_s`` or ``mu_k`` by each node's stick/slip state in
the static/kinetic law; ``mu(v)`` at the converged slip rate in the
velocity-dependent law (a node that closes inside the increment has its
friction at once, like every other node).
The smooth IPC law and penalty enforcement have no PFC form and are refused.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..friction.ipc import SmoothIPC
from ..solve.amg import rigid_body_modes
from ..solve.problem import ContactProblem
from ..solve.state import StepState
from ..solve.operators import kinematic_operator
from .io import ProblemFile
from .problem import GlobalProblem, PFCError


def representable(problem: ContactProblem) -> None:
    """Raise :class:`PFCError` if a contact pair has no PFC form."""
    for pair in problem.pairs:
        if pair.penalty is not None and np.any(pair.penalty > 0.0):
            raise PFCError(f"contact {pair.name!r}: enforcement = 'penalty' regularises the normal "
                           f"condition; the PFC form needs exact Signorini contact "
                           f"(enforcement = 'multiplier')")
        if isinstance(pair.friction, SmoothIPC):
            raise PFCError(f"contact {pair.name!r}: the smooth IPC friction law is not a Coulomb "
                           f"cone; the PFC form needs coulomb, static_kinetic, velocity or "
                           f"frictionless")


def from_state(problem: ContactProblem, state: StepState, bulk=None, info=None) -> ProblemFile:
    """The PFC problem of the increment that produced ``state``, with its solution.

    Parameters
    ----------
    problem : ContactProblem
    state : StepState
        A converged state with its increment start (``state.start``).
    bulk : optional
        The bulk terms of a time step (:mod:`fecontact.analysis.dynamic`); statics if None.
    info : dict, optional
        Metadata stored with the problem.

    Returns
    -------
    ProblemFile
        The problem, the finite-element solution ``(v, r, u)`` and per
        contact its nodal area, pair index and slave node.
    """
    representable(problem)
    if state.start is None:
        raise PFCError("the initial state is not an increment; export a step >= 1")
    sysm, d = problem.system, problem.dim
    start = state.increment_start()
    x = problem.unknowns(state)
    terms = problem.static_bulk if bulk is None else bulk
    ev = problem.evaluate(x, state.t, start, terms, jacobian=False)
    H = (kinematic_operator(ev.kinematics, sysm.n_dofs) @ sysm.T).T.tocsc()
    u_hat = x[: sysm.n_reduced]
    u_hat0 = sysm.to_reduced(start.u - sysm.prescribed(start.t))
    v = u_hat - u_hat0
    u0 = sysm.displacement(u_hat0, state.t)
    R0, _ = terms.residual(u0, state.t)
    M, modes = terms.matrix, (sysm.free_modes() if bulk is None else None)
    L = ev.kinematics.local
    # slips from the predicted first contact of closing nodes: a constant offset, carried by b
    w = np.column_stack([L.gap, L.slip - problem.slip_offset(start, state.t)]).ravel()
    mu = ev.contact.friction.coefficient          # the laws' callable always gives a response
    meta = {"t_start": float(start.t), "t": float(state.t), "dim": d,
            "pairs": [p.name for p in problem.pairs],
            "r": "contact nodal forces (normal first, tangential along the slip basis)",
            "v": "increment of the reduced displacements", "u": "gap and slip increment"}
    meta.update(info or {})
    pfc = GlobalProblem(M=M, H=H, q=-R0, b=w - H.T @ v, mu=mu, d=d, rigid_modes=modes, info=meta,
                        near_null_space=rigid_body_modes(sysm))
    r = (problem.area[:, None] * state.multiplier).ravel()
    pair_index = np.concatenate([np.full(p.n_nodes, i) for i, p in enumerate(problem.pairs)])
    nodes = np.concatenate([p.slave.nodes for p in problem.pairs])
    return ProblemFile(pfc, {"v": v, "r": r, "u": w},
                       {"area": problem.area, "contact_pair": pair_index, "contact_node": nodes})


def export_case(case_path, step: int, overrides=()) -> ProblemFile:
    """Run a case to its ``step``-th load or time step and return that increment's PFC problem.

    Quasi-static cases count the output load steps (``1..n``; with
    cut-backs, the last increment that reached the level); dynamic cases
    count time steps (``1..t_end/dt``).

    Raises
    ------
    fecontact.case.schema.CaseError
        The case is invalid (as ``fecontact check`` reports it).
    PFCError
        ``step`` out of range, the run failed before it, or the contact has
        no PFC form.
    """
    from ..solve.backends import make_backend
    from ..run.static import prepare
    from ..analysis.static import run_steps

    case, model = prepare(case_path, overrides)
    problem = model.problem
    representable(problem)
    info = {"case": str(case.get("name", case_path)), "case_file": str(case_path), "step": int(step),
            "overrides": list(overrides)}
    if model.dynamics is not None:
        from ..analysis.dynamic import DynamicAnalysis

        opts = model.dynamics
        n_steps = int(round(opts.t_end / opts.dt))
        _check_step(case_path, step, n_steps, "time")
        analysis = DynamicAnalysis(problem, replace(opts, t_end=step * opts.dt), model.newton,
                                   model.stepping, model.backend, model.initial_velocity)
        current, _, reason = analysis.run()
        if reason:
            raise PFCError(f"{case_path}: the run failed before time step {step}: {reason}")
        info["analysis"] = "dynamic"
        return from_state(problem, current.state, analysis.last_step[1], info)
    _check_step(case_path, step, len(model.levels), "load")
    backend = make_backend(model.backend, problem, tolerance=model.newton.tolerance)
    records, state, _ = run_steps(problem, backend, model.levels[:step], model.newton, model.stepping)
    if not records or not records[-1].converged:
        reason = records[-1].reason if records else "no step solved"
        raise PFCError(f"{case_path}: the run failed before load step {step}: {reason}")
    info["analysis"] = "static"
    return from_state(problem, state, None, info)


def _check_step(case_path, step: int, n: int, kind: str) -> None:
    if not 1 <= step <= n:
        raise PFCError(f"{case_path}: --step {step} is out of range; the case has {n} {kind} "
                       f"steps (1..{n})")
