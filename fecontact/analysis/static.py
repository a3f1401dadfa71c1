"""Quasi-static load stepping with automatic cut-back.

The requested output levels are always reached exactly: when Newton fails,
the increment is halved (up to ``max_cutbacks`` times in a row) and grown
again after successes.  No increment is shorter than :data:`SHORTEST` of
the level's span (or of the shorter increment the level starts with, or of
one the closing limit asks for; Abaqus' default minimum increment is the
same share of a step): a failure at that length fails the level, so a load that creeps towards a limit it cannot pass (a friction
limit, a snap-through) in ever shorter successful increments stops there,
with its report.  History is committed only for accepted increments, so
the loading path matters as it physically should.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import numpy as np

from ..contact.closing import approach_rate
from ..friction import Coulomb, Status, status_counts
from ..solve.newton import NewtonOptions, NewtonResult, semismooth_newton
from ..solve.problem import ContactProblem, Increment
from ..solve.state import IncrementStart, StepState
from .lift import PrescribedLift

logger = logging.getLogger(__name__)


#: the shortest increment, as a share of the level's span: a failure at this length fails the
#: level even without ``max_cutbacks`` halvings in a row (a load creeping towards a limit)
SHORTEST = 1e-5


@dataclass(frozen=True)
class SteppingOptions:
    """Options of the load stepping.

    Attributes
    ----------
    max_cutbacks : int
        Halvings of the increment in a row before a level fails (and no
        increment is shorter than :data:`SHORTEST` of the level).
    max_friction_revisions : int
        Re-solves of one increment for friction state changes (breakaway).
    growth : float
        Factor the increment grows by after a success.
    max_closing : int or None
        Contact nodes that may close in one increment (None: any number).
        An increment in which more close is solved again, shorter in
        proportion, and the next one is sized for it: the increments then
        resolve the growth of the contact zone, which path-dependent
        friction needs (a node's status is that of its whole increment).
        Nodes that close at one instant (flat on flat) are accepted
        together once shortening no longer separates them.

    Examples
    --------
    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, fc.Coulomb(0.3))])
    >>> result = model.solve(steps=2, stepping=fc.SteppingOptions(max_cutbacks=8, growth=2.0))
    >>> [(record.load, record.converged) for record in result.records]
    [(0.5, True), (1.0, True)]
    """

    max_cutbacks: int = 6
    #: re-solves of one increment for friction state changes (breakaway)
    max_friction_revisions: int = 10
    growth: float = 1.5
    max_closing: int | None = None

    def __post_init__(self):
        m = self.max_closing
        if m is not None and (isinstance(m, bool) or not np.isfinite(m) or m < 1 or m != int(m)):
            raise ValueError(f"max_closing must be a whole number >= 1 or None, got {m!r}")


@dataclass(frozen=True)
class StepRecord:
    """One requested output level."""

    index: int
    load: float
    converged: bool
    newton_iterations: int
    increments: int
    cutbacks: int
    residual: float
    open: int
    stick: int
    slip: int
    history: tuple = field(default=(), repr=False)
    reason: str = ""
    increment_iterations: tuple = ()

    def summary(self) -> dict:
        """The record as the ``steps`` entry of ``summary.json``."""
        keys = ("load", "converged", "newton_iterations", "increments", "cutbacks",
                "residual", "open", "stick", "slip")
        out = {k: getattr(self, k) for k in keys}
        out["increment_iterations"] = list(self.increment_iterations)
        out["iterations"] = [h.as_dict() for h in self.history]
        if self.reason:
            out["reason"] = self.reason
        return out


def commit(problem: ContactProblem, result: NewtonResult, t: float, state: StepState) -> StepState:
    """Accept an increment: new displacement, tractions, accumulated slip, status."""
    ev = result.evaluation
    d = problem.dim
    kin = ev.kinematics.local
    active = ev.contact.status != Status.OPEN
    lam = result.unknowns[ev.n_reduced:].reshape(-1, d)
    # an open node's traction is zero: clear the round-off Newton's last step leaves there (a
    # remainder of a loose tolerance stays, for the independent check to see)
    remnant = ~active[:, None] & (np.abs(lam) <= 1e-12 * np.max(np.abs(lam), initial=0.0))
    lam = np.where(remnant, 0.0, lam)
    # slip components are along the start-of-increment tangent basis; a node that closed
    # in the increment slipped only after its first contact
    motion = np.einsum("mq,mqd->md", kin.slip, state.tangent)
    offset = np.einsum("mq,mqd->md", problem.slip_offset(state, t), state.tangent)
    slip = state.slip + np.where(active[:, None], motion - offset, 0.0)
    start = IncrementStart(t=state.t, u=state.u, normal_pressure=state.multiplier[:, 0].copy(),
                           status=state.status, gap=state.gap, friction=state.friction,
                           approach=state.approach)
    # nodes without a multiplier (midside nodes of quadratic 3D surfaces) show the traction field
    lam, status = problem.nodal_tractions(lam, ev.contact.status, kin.normal, state.tangent)
    return StepState(t=t, u=ev.u.copy(), multiplier=lam, slip=slip,
                     status=status, gap=kin.gap.copy(), normal=kin.normal.copy(),
                     tangent=kin.tangent.copy(), facet=ev.kinematics.facet.copy(),
                     friction=problem.next_friction_state(state, ev),
                     multiplier_basis=state.tangent.copy(), start=start,
                     approach=approach_rate(kin.gap - state.gap, motion, t - state.t))


def friction_limit_report(problem: ContactProblem, backend, x0: np.ndarray, t: float,
                          state: StepState, newton: NewtonOptions) -> str:
    """Explain a failed increment whose loads friction cannot hold, or return "".

    The increment is solved again with bonded tangential contact (a friction
    coefficient of 1e12).  If that succeeds and on some pair the resultant
    tangential contact force exceeds the static coefficient times the
    resultant normal force, no quasi-static equilibrium exists with the real
    coefficient: the body slides away, which only a dynamic analysis can follow.
    """
    if not problem.pairs:
        return ""
    bonded = ContactProblem(problem.system, [replace(p, friction=Coulomb(1e12)) for p in problem.pairs])
    result = semismooth_newton(bonded.increment(t, state), backend, x0, newton)
    if not result.converged:
        return ""
    d = problem.dim
    lam = result.unknowns[problem.system.n_reduced:].reshape(-1, d)
    tangent = state.tangent             # the basis of lam_t (StepState.multiplier_basis)
    for pair, s in zip(problem.pairs, problem.slices):
        area = problem.area[s, None]
        normal = float(np.sum(area[:, 0] * lam[s, 0]))
        shear = np.linalg.norm(np.sum(area * np.einsum("mq,mqd->md", lam[s, 1:], tangent[s]), axis=0))
        mu_s = pair.friction.static
        if normal > 0.0 and shear > mu_s * normal * (1.0 + 1e-9):
            return (f"no static equilibrium at t={t:.6g}: on contact '{pair.name}' the loads need a "
                    f"tangential force {shear / normal:.4g} times the normal force, more than the "
                    f"static friction coefficient {mu_s:g} can hold; the body slides away, which a "
                    f"quasi-static analysis cannot follow")
    return ""


def lift_off_report(problem: ContactProblem, result: NewtonResult, t: float) -> str:
    """Explain a failed increment in which a body held only by contact touches nothing, or "".

    A body with rigid-body modes that no support removes (:meth:`BulkSystem.floating_bodies`)
    whose contact nodes are all open in Newton's last iterate is held by nothing:
    the loads pull it off its contacts, or it starts with gaps it has not closed.
    """
    ev = result.evaluation
    if ev is None or not problem.pairs:
        return ""
    floating = set(problem.system.floating_bodies())
    status = ev.contact.status
    for b, body in enumerate(problem.system.bodies):
        if body.name not in floating:
            continue
        pairs = [(p, s) for p, s in zip(problem.pairs, problem.slices)
                 if p.slave.body == b or getattr(p.master, "body", None) == b]
        if pairs and all(np.all(status[s] == Status.OPEN) for _, s in pairs):
            return (f"no static equilibrium found at t={t:.6g}: body {body.name!r} touches none of "
                    f"its contacts ({', '.join(p.name for p, _ in pairs)}) in Newton's last iterate "
                    f"and no support holds it; the loads pull it off, or it has not reached them "
                    f"(support the body, close the initial gaps, or run a dynamic analysis)")
    return ""


def solve_increment(increment: Increment, backend, x0: np.ndarray, newton: NewtonOptions,
                    stepping: SteppingOptions, timings: dict, history: list,
                    facet_hint: np.ndarray | None = None) -> tuple:
    """Solve one increment, again while a friction state machine revises its start state.

    Laws with breakaway (static/kinetic friction) mark the nodes that broke
    away during the increment as sliding; the increment is then solved again
    from the revised start state until it is consistent.  The increment's
    bulk terms are static or a dynamic time step's.  Newton's timings are
    added to ``timings`` and its iteration records to ``history``.
    ``facet_hint`` starts the first Newton solve's search hysteresis
    (:func:`retry_hint` of a failed attempt at the same increment).

    Returns
    -------
    (NewtonResult, StepState, int)
        The last Newton result, the start state it was solved from, and the
        Newton iterations spent.
    """
    result = semismooth_newton(increment, backend, x0, newton, facet_hint)
    spent = result.iterations
    timings["linear_solve"] += result.seconds_linear
    timings["contact"] += result.seconds_contact
    history.extend(result.history)
    for _ in range(stepping.max_friction_revisions):
        if not result.converged:
            break
        revised = increment.revised(result.evaluation)
        if revised is None:
            break
        increment = revised
        result = semismooth_newton(increment, backend, result.unknowns, newton)
        spent += result.iterations
        timings["linear_solve"] += result.seconds_linear
        timings["contact"] += result.seconds_contact
        history.extend(result.history)
    return result, increment.state, spent


def retry_hint(result: NewtonResult, start: StepState, state: StepState) -> np.ndarray | None:
    """Master facets a retry of a failed increment from ``state`` starts its search from.

    The facets the failed attempt's last iterate projected on, when it was
    solved from ``state`` itself (not from a start state revised by a
    friction state machine); None otherwise.
    """
    ev = result.evaluation
    if result.converged or start is not state or ev is None or ev.kinematics is None:
        return None
    return ev.kinematics.facet


@dataclass(frozen=True)
class Progress:
    """Where quasi-static stepping stands after an output level: enough to continue exactly.

    Attributes
    ----------
    index : int
        Output levels done.
    state : StepState
    dt : float
        Size of the next increment (grown after successes, halved by cut-backs).
    previous : tuple or None
        ``(t, unknowns)`` at the start of the last accepted increment: the
        predictor extrapolates from it.
    """

    index: int
    state: StepState
    dt: float = np.inf
    previous: tuple | None = None


def closing_count(state: StepState, result: NewtonResult) -> int:
    """Contact nodes open at ``state`` and closed at the end of the converged increment ``result``."""
    closed = result.evaluation.contact.status != Status.OPEN
    return int(np.count_nonzero(closed & (state.status == Status.OPEN)))


#: Length of the probe increment, as a fraction of the first increment (:func:`needs_probe`).
PROBE = 0.01


def needs_probe(problem: ContactProblem, state: StepState) -> bool:
    """Whether the next increment is preceded by a short probe increment.

    A node that closes inside an increment measures its slip from its
    predicted first contact, predicted from the rates of the previous
    increment (:mod:`fecontact.contact.closing`).  A run's first increment
    has none; when it has friction (a law that is not lagged) and nodes
    open with a positive gap, a probe increment of :data:`PROBE` times its
    length is solved first, and its rates serve the rest of the increment
    (it is one more increment of the same step).  If the probe does not
    converge, the run goes on without it.
    """
    if state.approach is not None or problem.n_contact == 0:
        return False
    if not any(law.has_friction and not law.lagged for law in problem.friction.laws):
        return False
    return bool(np.any(problem.apart(state.status, state.gap)))


def run_steps(problem: ContactProblem, backend, levels, newton: NewtonOptions = NewtonOptions(),
              stepping: SteppingOptions = SteppingOptions(), on_step=None, state=None,
              resume: Progress | None = None, predictor=None, on_increment=None):
    """Solve the sequence of pseudo-times ``levels``.

    Parameters
    ----------
    on_step : callable(StepRecord, StepState, Progress), optional
        Called after every requested level is reached (write outputs there).
    state : StepState, optional
        Start state (default: the initial state).
    resume : Progress, optional
        Continue after ``resume.index`` levels, exactly as the run that
        reported this progress would have.
    predictor : NestedPrediction, optional
        Starts each increment from a coarser model's solution when that is
        better (:mod:`fecontact.analysis.nested`); its time is in the
        timings' ``nested``.
    on_increment : callable(StepState), optional
        Called with the state of every accepted increment (the path a
        gradient is taken back along, :mod:`fecontact.sensitivity`).

    Returns
    -------
    (list of StepRecord, StepState, timings dict)
        On failure the last record has ``converged = False`` and the state
        is the last accepted increment (possibly short of that level).
    """
    if resume is None:
        resume = Progress(0, problem.initial_state() if state is None else state)
    state, dt, previous = resume.state, resume.dt, resume.previous
    probing = True       # until a probe increment fails (needs_probe)
    # finite strain: carry the interior along with the prescribed boundary motion
    lift = PrescribedLift(problem, backend) if getattr(problem.system, "finite_strain", ()) else None
    records = []
    timings = {"linear_solve": 0.0, "contact": 0.0}
    for index in range(resume.index, len(levels)):
        target = levels[index]
        # the shortest increment: SHORTEST of the level's span (or of a shorter increment it
        # starts with, or of one the closing limit asks for)
        shortest = min(target - state.t, dt) * SHORTEST
        iterations = increments = cutbacks = consecutive = 0
        furthest = state.t       # the highest load of a failed increment in this level
        history: list = []
        per_increment: list = []
        result = None
        failed = ""
        hint = None          # facets a retry after a cut-back continues from
        rejected = None      # nodes that closed in the last increment refused for max_closing
        while state.t < target - 1e-14 * max(1.0, abs(target)):
            dt = min(dt, target - state.t)
            t_new = state.t + dt
            if target - t_new < 1e-9 * max(1.0, abs(target)):
                t_new = target
            probe = probing and needs_probe(problem, state)
            if probe:
                t_new = state.t + PROBE * (t_new - state.t)
            x0 = problem.unknowns(state)
            extrapolated = previous is not None and state.t > previous[0]
            if extrapolated:
                # linear extrapolation of the last accepted increment (predictor)
                ratio = (t_new - state.t) / (state.t - previous[0])
                x0 = x0 + ratio * (x0 - previous[1])
            if lift is not None:
                x0 = lift(x0, state.t, t_new, previous[0] if extrapolated else None)
            increment = problem.increment(t_new, state)
            if predictor is not None and not probe:
                x0 = predictor.predict(increment, t_new, x0)
            x0 = problem.seed_touching(x0, state)
            result, start, spent = solve_increment(increment, backend, x0,
                                                   newton, stepping, timings, history, hint)
            hint = retry_hint(result, start, state)
            iterations += spent
            closing = closing_count(state, result) if result.converged else 0
            limit = stepping.max_closing
            if probe and not result.converged:
                # a probe is an estimate, not a step the run needs: without it the first
                # increment measures closing nodes' slip from their start projection
                logger.info("probe increment to t=%.6g failed (%s); solving without it",
                            t_new, result.reason)
                probing, hint = False, None
                continue
            if (result.converged and not probe and limit is not None and closing > limit
                    and (rejected is None or closing < rejected)):
                # too many nodes closed at once: the same increment, shorter
                rejected = closing
                dt = (t_new - state.t) * max(0.1, 0.8 * limit / closing)
                shortest = min(shortest, dt * SHORTEST)
                continue
            if result.converged:
                if closing > 0:      # nodes that close at one instant stay "rejected" until then
                    rejected = None
                per_increment.append(spent)
                # the predictor does not extrapolate a probe a hundred times over
                previous = None if probe else (state.t, problem.unknowns(state))
                used = t_new - state.t
                state = commit(problem, result, t_new, start)
                if on_increment is not None:
                    on_increment(state)
                if predictor is not None and not probe:
                    predictor.accept(t_new)
                increments += 1
                consecutive = 0
                if limit is not None and not probe:
                    dt = used * min(stepping.growth, 0.9 * limit / max(closing, 1e-300))
                elif not probe:
                    dt *= stepping.growth
            else:
                cutbacks += 1
                consecutive += 1
                furthest = max(furthest, t_new)
                logger.warning("step to t=%.6g failed (%s); cutting back", t_new, result.reason)
                if consecutive > stepping.max_cutbacks or t_new - state.t <= shortest * (1.0 + 1e-9):
                    # judged at the highest load that failed: an increment creeping up to a
                    # friction limit fails just below it
                    failed = (friction_limit_report(problem, backend, x0, furthest, state, newton)
                              or (t_new < furthest
                                  and friction_limit_report(problem, backend, x0, t_new, state, newton))
                              or lift_off_report(problem, result, t_new)
                              or f"Newton failed after {stepping.max_cutbacks} cut-backs at "
                                 f"t={t_new:.6g}: {result.reason}")
                    break
                dt *= 0.5
        counts = status_counts(state.status)
        rec = StepRecord(index=index + 1, load=float(target), converged=not failed,
                         newton_iterations=iterations, increments=increments, cutbacks=cutbacks,
                         residual=float(result.residual) if result is not None else 0.0,
                         open=counts.open, stick=counts.stick, slip=counts.slip,
                         history=tuple(history), reason=failed,
                         increment_iterations=tuple(per_increment))
        records.append(rec)
        logger.info("step %4d/%d  load %-10.4g newton %3d  residual %.1e  open/stick/slip %d/%d/%d%s",
                    rec.index, len(levels), rec.load, rec.newton_iterations, rec.residual, rec.open,
                    rec.stick, rec.slip, "" if not failed else "  FAILED: " + failed)
        if failed:
            break
        if on_step is not None:
            on_step(rec, state, Progress(index + 1, state, dt, previous))
    if predictor is not None:
        timings["nested"] = predictor.seconds
    return records, state, timings
