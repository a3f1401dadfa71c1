r"""Implicit elastodynamics with frictional contact: the time-stepping layer.

Each time step is one contact problem for ``u_{n+1}`` and the tractions,
solved by the same semismooth Newton method and friction return maps as a
quasi-static increment; only the bulk terms change (:mod:`fecontact.analysis.integrators`).

Constraint treatment (no chatter, no drift)
    The Signorini and Coulomb conditions are imposed on positions at the end
    of every step: a closed node has ``g_{n+1} = 0`` and a stuck node a zero
    slip increment, exactly (to Newton's tolerance), so resting contacts
    neither drift nor penetrate.  Position-level constraints make Newmark's
    velocity oscillate at the constrained nodes (``v_{n+1} = -v_n``), so
    after each step the velocity is projected onto the persistent
    constraints (zero normal relative velocity at closed nodes, zero
    tangential relative velocity at stuck nodes), in the ``M``-norm
    (:func:`fecontact.analysis.mass.project_velocity`): a projection of the
    velocities in the spirit of Lubich's projection methods, with the
    positions already on the constraint manifold.  With ``contact_mass =
    "redistributed"`` the contact nodes carry no inertia
    (:func:`fecontact.analysis.mass.redistribute`); their velocity does not enter the
    dynamics and no projection is needed, and the average acceleration
    scheme then nearly conserves energy through impacts.

History (stick anchors, friction states) is committed only when a step
converges; a step whose Newton iteration fails is cut into halves.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .dynamic_records import DynamicsOptions, DynamicState, TimeRecord

from ..contact.surface import ContactSurface
from .energy import EnergyLedger, StepForces, advance
from ..friction import Status, status_counts
from .integrators import Dynamics
from .mass import MassSolver, project_velocity, redistribute
from ..solve.backends import make_backend
from ..solve.newton import NewtonOptions
from ..solve.operators import kinematic_operator
from ..solve.problem import ContactProblem
from ..solve.state import StepState
from .static import SteppingOptions, commit, retry_hint, solve_increment

logger = logging.getLogger(__name__)


def contact_nodes(problem: ContactProblem) -> np.ndarray:
    """Global DOF nodes of all slave surfaces and deformable master surfaces."""
    sysm = problem.system
    nodes = [sysm.global_nodes(p.slave.body, p.slave.nodes) for p in problem.pairs]
    nodes += [sysm.global_nodes(p.master.body, np.unique(p.master.facets))
              for p in problem.pairs if isinstance(p.master, ContactSurface)]
    return np.unique(np.concatenate(nodes)) if nodes else np.zeros(0, dtype=int)


def contact_forces(problem: ContactProblem, B: sp.spmatrix, multiplier: np.ndarray) -> tuple:
    """``(B_N^T A lam_N, B_T^T A lam_T)`` in full numbering (``B``: :func:`kinematic_operator`)."""
    weighted = problem.area[:, None] * multiplier
    normal = weighted.copy()
    normal[:, 1:] = 0.0
    return B.T @ normal.ravel(), B.T @ (weighted - normal).ravel()


class DynamicAnalysis:
    """Time stepping of a contact problem with inertia.

    Parameters
    ----------
    problem : ContactProblem
        Its system must have a mass matrix.
    options : DynamicsOptions
    newton : NewtonOptions
    stepping : SteppingOptions
        Friction revisions per step.
    backend : str
        Linear solver backend name.
    initial_velocity : ndarray, shape (n,), optional
        Initial velocity (full numbering) of the free DOFs.
    """

    def __init__(self, problem: ContactProblem, options: DynamicsOptions,
                 newton: NewtonOptions = NewtonOptions(), stepping: SteppingOptions = SteppingOptions(),
                 backend: str = "auto", initial_velocity: np.ndarray | None = None):
        sysm = problem.system
        if sysm.M is None:
            raise ValueError("dynamics needs a mass matrix (material densities)")
        self.problem = problem
        self.options = options
        self.newton = newton
        self.stepping = stepping
        self.backend_name = backend
        M = sysm.M
        if options.contact_mass == "redistributed":
            M = redistribute(sysm, M, contact_nodes(problem))
        self.dynamics = Dynamics.create(sysm, M)
        self.mass_solver = MassSolver(self.dynamics.M_hat)
        self.initial_velocity = np.zeros(sysm.n_dofs) if initial_velocity is None else initial_velocity
        self._backends: dict = {}
        #: (start DynamicState, TimeStep) of the last accepted step
        self.last_step = None
        self.timings = {"linear_solve": 0.0, "contact": 0.0}
        # mass-weighted centroids of the bodies with the consistent mass
        self._centroid_rows = []
        d = sysm.dim
        for b in range(len(sysm.bodies)):
            rows = np.zeros((d, sysm.n_dofs))
            dofs = np.arange(sysm.n_dofs)[sysm.body_dofs(b)]
            for c in range(d):
                ones = np.zeros(sysm.n_dofs)
                ones[dofs[c::d]] = 1.0
                m = sysm.M @ ones
                rows[c] = m / max(float(m.sum()), 1e-300)
            self._centroid_rows.append(rows)

    @property
    def backend_names(self) -> tuple:
        """The names of the backends the time steps used so far (one per step size), sorted."""
        return tuple(sorted({backend.name for backend, _ in self._backends.values()}))

    # -- helpers --------------------------------------------------------------
    def backend(self, dt: float):
        """``(backend, effective matrix)`` of time step ``dt``, built once per step size."""
        key = float(dt)
        if key not in self._backends:
            matrix = self.dynamics.effective_matrix(self.options.integrator, dt)
            self._backends[key] = (make_backend(self.backend_name, self.problem, matrix,
                                                 self.newton.tolerance, self.n_steps), matrix)
        return self._backends[key]

    def _prescribed_rate(self, t: float) -> np.ndarray:
        sysm = self.problem.system
        h = 1e-6 * max(self.options.dt, 1e-12)
        return (sysm.prescribed(t + h) - sysm.prescribed(max(t - h, 0.0))) / (t + h - max(t - h, 0.0))

    def _reduced(self, u: np.ndarray, t: float) -> np.ndarray:
        sysm = self.problem.system
        return sysm.to_reduced(u - sysm.prescribed(t))

    def _forces(self, state: StepState, B, v, a) -> StepForces:
        """Forces at the end of a step: loads, reactions, couplings, contact, springs."""
        sysm = self.problem.system
        t, u = state.t, state.u
        normal, tangential = contact_forces(self.problem, B, state.multiplier)
        residual = self.dynamics.force(u, v, a, t) - normal - tangential
        reaction = np.where(sysm.fixed, residual, 0.0)
        springs = sysm.springs
        return StepForces(loads=sysm.load_force(t), reaction=reaction,
                          coupling=sysm.coupling_force(t), contact_normal=normal,
                          contact_tangential=tangential,
                          spring_tension=np.array([s.force(u, v, t) for s in springs]),
                          spring_rate=np.array([s.anchor_velocity - s.mean(v) for s in springs]),
                          anchor=np.array([s.anchor(t) for s in springs]))

    def _kinetic(self, v: np.ndarray) -> float:
        return 0.5 * float(v @ (self.dynamics.M @ v))

    # -- initial conditions ---------------------------------------------------
    def initial_state(self) -> DynamicState:
        """State at ``t = 0`` from ``options.initial``."""
        problem, sysm = self.problem, self.problem.system
        state = problem.initial_state()
        if self.options.initial == "static":
            state = self._static(state)
        u = state.u
        v = np.where(sysm.fixed, self._prescribed_rate(0.0), self.initial_velocity)
        B = kinematic_operator(problem.kinematics(u, 0.0, state), sysm.n_dofs)
        normal, tangential = contact_forces(problem, B, state.multiplier)
        zero = np.zeros(sysm.n_dofs)
        rhs = sysm.coupling_force(0.0) - sysm.T.T @ (self.dynamics.force(u, v, zero, 0.0)
                                                      - normal - tangential)
        a = sysm.T @ self.mass_solver.solve(rhs)
        forces = self._forces(state, B, v, a)
        ledger = EnergyLedger(kinetic=self._kinetic(v), strain=sysm.strain_energy(u, 0.0), initial=0.0)
        ledger = replace(ledger, initial=ledger.total)
        return DynamicState(state, v, a, forces, ledger)

    def _static(self, state: StepState) -> StepState:
        """Static contact solution under the loads at ``t = 0`` (one increment)."""
        problem = self.problem
        backend = make_backend(self.backend_name, problem, tolerance=self.newton.tolerance)
        x0 = problem.seed_touching(problem.unknowns(state), state)
        result, start, _ = solve_increment(problem.increment(0.0, state), backend, x0, self.newton,
                                           self.stepping, self.timings, [])
        if not result.converged:
            raise RuntimeError(f"no static equilibrium at t = 0 for the initial state "
                               f"({result.reason}); use dynamics.initial = 'rest'")
        return commit(problem, result, 0.0, start)

    # -- one step -------------------------------------------------------------
    def step(self, current: DynamicState, t_new: float, history: list,
             facet_hint: np.ndarray | None = None):
        """Advance from ``current`` to ``t_new``.

        ``facet_hint`` starts the search hysteresis (the facets a failed
        attempt at a step from ``current`` ended on).

        Returns
        -------
        (DynamicState or None, Newton iterations, failure reason or "", facets or None)
            The last item is what a retry from ``current`` starts from
            (:func:`fecontact.analysis.static.retry_hint`).
        """
        problem, sysm = self.problem, self.problem.system
        integ = self.options.integrator
        dt = t_new - current.t
        backend, matrix = self.backend(dt)
        state, u0, v0, a0 = current.state, current.state.u, current.velocity, current.acceleration
        terms = self.dynamics.step(integ, dt, current.t, u0, v0, a0, matrix)
        increment = problem.increment(t_new, state, terms)
        x0 = self._predicted(increment, [u0 + dt * v0 + 0.5 * dt * dt * a0, u0 + dt * v0, u0])
        result, start, spent = solve_increment(increment, backend, x0,
                                               self.newton, self.stepping, self.timings, history,
                                               facet_hint)
        if not result.converged:
            return None, spent, result.reason, retry_hint(result, start, state)
        new = commit(problem, result, t_new, start)
        self.last_step = (current, terms)
        v, a = terms.kinematics(new.u)
        kin = result.evaluation.kinematics
        B = kinematic_operator(kin, sysm.n_dofs)
        projection = 0.0
        if self.options.project_velocities and not self.mass_solver.singular:
            before = self._kinetic(v)
            v = self._project(new, kin, B, v, t_new)
            projection = self._kinetic(v) - before
        forces = self._forces(new, B, v, a)
        du = new.u - u0
        du_hat = sysm.to_reduced(du)    # only the coupling columns are used
        ledger = advance(current.ledger, self._kinetic(v), sysm.strain_energy(new.u, t_new), du,
                         du_hat, sysm.coupling_columns,
                         np.array([s.damping for s in sysm.springs]),
                         np.array([s.mean(du) for s in sysm.springs]),
                         current.forces, forces, projection)
        return DynamicState(new, v, a, forces, ledger), spent, "", None

    def _predicted(self, increment, candidates: list) -> np.ndarray:
        """Newton's start ``[u_hat, lam]`` of a step from the first predicted displacement that works.

        ``candidates`` are full displacements, best first (the integrator's
        predictor, then more cautious ones).  With linear bodies the first is
        used.  In finite strain a predictor can invert elements (the contact
        nodes' acceleration is not defined when their mass is redistributed),
        where the residual is not defined: the next candidate is tried.
        """
        problem, state = self.problem, increment.state
        for k, u in enumerate(candidates):
            x0 = problem.seed_touching(np.concatenate([self._reduced(u, increment.t),
                                                       state.multiplier.ravel()]), state)
            if (not problem.system.finite_strain or k == len(candidates) - 1
                    or np.all(np.isfinite(increment.evaluate(x0, jacobian=False).residual))):
                return x0
        return x0

    def _project(self, state: StepState, kin, B, v: np.ndarray, t: float) -> np.ndarray:
        """Velocity with zero normal relative velocity at closed nodes and zero slip rate at stuck ones."""
        problem, sysm = self.problem, self.problem.system
        d = problem.dim
        status = state.status
        rows = np.zeros((status.size, d), dtype=bool)
        rows[:, 0] = status != Status.OPEN
        rows[:, 1:] = (status == Status.STICK)[:, None]
        rows = np.flatnonzero(rows.ravel())
        if rows.size == 0:
            return v
        B = B.tocsr()[rows]
        # explicit time dependence of the constraints (moving obstacles, prescribed motion)
        h = 1e-6 * self.options.dt
        k_plus = problem.kinematics(state.u, t + h, state, kin.facet).local
        k_minus = problem.kinematics(state.u, t - h, state, kin.facet).local
        explicit = np.concatenate([(k_plus.gap - k_minus.gap)[:, None],
                                   k_plus.slip - k_minus.slip], axis=1).ravel()[rows] / (2 * h)
        v_fixed = np.where(sysm.fixed, v, 0.0)
        target = -(explicit + B @ v_fixed)
        v_hat = sysm.to_reduced(v - v_fixed)
        G = (B @ sysm.T).tocsr()
        return sysm.T @ project_velocity(self.mass_solver, v_hat, G, target) + v_fixed

    # -- records --------------------------------------------------------------
    def record(self, current: DynamicState, previous: DynamicState, iterations: int,
               cutbacks: int) -> TimeRecord:
        """The :class:`TimeRecord` of the step from ``previous`` to ``current``."""
        problem, sysm = self.problem, self.problem.system
        st = current.state
        dt = max(current.t - previous.t, 1e-300)
        closed = st.status != Status.OPEN
        step_slip = st.slip - previous.state.slip       # (m, dim), zero at open nodes
        velocity = []
        for s in problem.slices:
            c = closed[s]
            area = problem.area[s][c]
            if area.size and area.sum() > 0:
                velocity.append(tuple((area @ step_slip[s][c]) / area.sum() / dt))
            else:
                velocity.append(tuple(np.zeros(problem.dim)))
        springs = tuple((float(s.force(st.u, current.velocity, st.t)), float(s.stretch(st.u, st.t)),
                         float(s.mean(current.velocity))) for s in sysm.springs)
        centroid = tuple((tuple(r @ st.u), tuple(r @ current.velocity)) for r in self._centroid_rows)
        counts = status_counts(st.status)
        return TimeRecord(t=st.t, newton_iterations=iterations, cutbacks=cutbacks, open=counts.open,
                          stick=counts.stick, slip=counts.slip, energy=current.ledger.as_dict(),
                          springs=springs, slip_velocity=tuple(velocity), centroid=centroid,
                          max_slip=float(np.max(np.linalg.norm(st.slip, axis=1), initial=0.0)))

    # -- the run --------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        """Number of time steps to ``t_end``."""
        return self.options.n_steps

    def run(self, on_record=None, on_output=None, resume: tuple | None = None):
        """Integrate to ``t_end``.

        Parameters
        ----------
        on_record : callable(TimeRecord), optional
            After every time step.
        on_output : callable(index, DynamicState, list of IterationRecord), optional
            Every ``output_every`` steps and at the end.
        resume : (int, DynamicState), optional
            Continue after that many steps from that state (a restart).

        Returns
        -------
        (DynamicState, list of TimeRecord, failure reason or "")
        """
        opts = self.options
        records = []
        if resume is None:
            first, current = 1, self.initial_state()
            records.append(self.record(current, current, 0, 0))
            if on_record is not None:
                on_record(records[0])
        else:
            first, current = resume[0] + 1, resume[1]
        n_steps = self.n_steps
        history: list = []
        for k in range(first, n_steps + 1):
            target = opts.step_time(k)
            previous = current
            h = target - current.t
            iterations = cutbacks = 0
            hint = None          # facets a retry after a cut-back continues from
            while current.t < target - 1e-12 * opts.dt:
                h = min(h, target - current.t)
                t_new = target if target - (current.t + h) < 1e-9 * opts.dt else current.t + h
                nxt, spent, reason, hint = self.step(current, t_new, history, hint)
                iterations += spent
                if nxt is None:
                    cutbacks += 1
                    logger.warning("time step to t=%.6g failed (%s); cutting back", t_new, reason)
                    if cutbacks > opts.max_cutbacks:
                        return current, records, (f"Newton failed after {opts.max_cutbacks} "
                                                  f"cut-backs at t={t_new:.6g}: {reason}")
                    h *= 0.5
                    continue
                current = nxt
            rec = self.record(current, previous, iterations, cutbacks)
            records.append(rec)
            if on_record is not None:
                on_record(rec)
            logger.info("step %5d/%d  t %-10.5g newton %3d  open/stick/slip %d/%d/%d  energy %.6g  "
                        "balance %.2e", k, n_steps, rec.t, iterations, rec.open, rec.stick, rec.slip,
                        rec.energy["total"], rec.energy["balance_error"])
            if on_output is not None and (k % opts.output_every == 0 or k == n_steps):
                on_output(k, current, history)
                history = []
        return current, records, ""
