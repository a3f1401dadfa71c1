r"""Semismooth Newton method with a backtracking line search.

Iterates ``x <- x + alpha dx`` with ``J dx = -R`` (generalised Jacobian) and
``alpha`` from Armijo backtracking on the merit ``phi = |R|^2 / 2``.  When no
trial step decreases ``phi`` (a kink of the non-smooth residual), the full
step is taken: semismooth Newton converges locally without globalisation.

Converged when both the equilibrium residual and the complementarity residual
(weighted by nodal areas, so both are forces) are below ``tolerance`` times
the force scale ``max(|K u|, |f(t)|, |F_coupling(t)|)``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ..friction import OPEN, SLIP, STICK

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewtonOptions:
    """Options of the semismooth Newton solver.

    Attributes
    ----------
    tolerance : float
        Relative tolerance on both residuals.
    max_iterations : int
    max_backtracks : int
        Halvings tried by the line search.
    armijo : float
        Sufficient-decrease constant.
    """

    tolerance: float = 1e-9
    max_iterations: int = 30
    max_backtracks: int = 6
    armijo: float = 1e-4


@dataclass(frozen=True)
class IterationRecord:
    """One Newton iteration as reported to the user."""

    iteration: int
    equilibrium: float
    complementarity: float
    open: int
    stick: int
    slip: int
    changed: int
    step_length: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class NewtonResult:
    unknowns: np.ndarray
    converged: bool
    iterations: int
    residual: float
    history: tuple = field(default=())
    reason: str = ""
    evaluation: object = field(default=None, repr=False)
    seconds_linear: float = 0.0
    seconds_contact: float = 0.0


def _counts(status: np.ndarray) -> tuple[int, int, int]:
    return int(np.sum(status == OPEN)), int(np.sum(status == STICK)), int(np.sum(status == SLIP))


def semismooth_newton(problem, backend, x0: np.ndarray, t: float, state,
                      options: NewtonOptions = NewtonOptions()) -> NewtonResult:
    """Solve ``R(x; t, state) = 0`` for one load step.

    Parameters
    ----------
    problem : ContactProblem
    backend : linear solver backend (``solve(evaluation) -> dx``)
    x0 : ndarray
        Initial unknowns ``[u_hat, lam]``.
    t : float
        Pseudo-time of the step.
    state : StepState
        Committed start-of-step state.
    """
    x = x0.copy()
    history = []
    t_lin = t_con = 0.0
    previous = state.status
    tic = time.perf_counter()
    ev = problem.evaluate(x, t, state)
    t_con += time.perf_counter() - tic
    for it in range(options.max_iterations + 1):
        if not np.all(np.isfinite(ev.residual)):
            first = int(np.flatnonzero(~np.isfinite(ev.residual))[0])
            origin = ("in the unknowns" if not np.all(np.isfinite(x))
                      else f"at iteration {it}")
            return NewtonResult(x, False, it, np.inf, tuple(history),
                                f"non-finite residual {origin}, first at {problem.where(first)}",
                                ev, t_lin, t_con)
        eq, comp = ev.equilibrium_norm / ev.force_scale, ev.complementarity_norm / ev.force_scale
        status = ev.contact.status
        n_open, n_stick, n_slip = _counts(status)
        changed = int(np.sum(status != previous))
        previous = status
        rel = max(eq, comp)
        converged = rel <= options.tolerance
        if converged or it == options.max_iterations:
            history.append(IterationRecord(it, eq, comp,
                                           n_open, n_stick, n_slip, changed, 0.0))
            logger.info("  newton %2d  eq %.3e  comp %.3e  open/stick/slip %d/%d/%d  changed %d",
                        it, eq, comp, n_open, n_stick, n_slip, changed)
            if converged:
                return NewtonResult(x, True, it, rel, tuple(history), "", ev, t_lin, t_con)
            break
        tic = time.perf_counter()
        failure = ""
        try:
            dx = backend.solve(ev)
        except (np.linalg.LinAlgError, ValueError, RuntimeError) as err:
            dx = np.full(x.size, np.nan)
            failure = str(err)
        t_lin += time.perf_counter() - tic
        if not np.all(np.isfinite(dx)):
            first = int(np.flatnonzero(~np.isfinite(dx))[0])
            reason = (f"the Newton system could not be solved: {failure}" if failure else
                      f"singular Newton system (non-finite step, first at {problem.where(first)})")
            return NewtonResult(x, False, it, rel, tuple(history), reason, ev, t_lin, t_con)
        phi0 = 0.5 * float(ev.residual @ ev.residual)
        alpha, best = 1.0, None
        tic = time.perf_counter()
        accepted = None
        for _ in range(options.max_backtracks + 1):
            # the full step is usually accepted: evaluate it with its Jacobian
            trial = problem.evaluate(x + alpha * dx, t, state, jacobian=alpha == 1.0)
            phi = 0.5 * float(trial.residual @ trial.residual)
            if np.isfinite(phi) and (best is None or phi < best[1]):
                best = (alpha, phi)
            if np.isfinite(phi) and phi <= (1.0 - 2.0 * options.armijo * alpha) * phi0:
                accepted = trial
                break
            alpha *= 0.5
        else:
            alpha = best[0] if best is not None and best[1] < phi0 else 1.0
        x = x + alpha * dx
        ev = accepted if accepted is not None and accepted.has_jacobian \
            else problem.evaluate(x, t, state)
        t_con += time.perf_counter() - tic
        history.append(IterationRecord(it, eq, comp,
                                       n_open, n_stick, n_slip, changed, alpha))
        logger.info("  newton %2d  eq %.3e  comp %.3e  open/stick/slip %d/%d/%d  changed %d  alpha %.3g",
                    it, eq, comp, n_open, n_stick, n_slip, changed, alpha)
    return NewtonResult(x, False, options.max_iterations, rel, tuple(history),
                        f"no convergence in {options.max_iterations} iterations", ev, t_lin, t_con)
