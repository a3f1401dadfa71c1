"""Run a case end to end: build, step, write results, compare with the reference.

Every accepted output level is on disk (VTU, ``.pvd``, ``summary.json`` and
the restart file) before the next one starts, so a run that fails later
loses nothing and can be continued (``restart``).  The final state is
checked independently of the solver (:mod:`fecontact.run.verify`); a run is
``converged`` only if that check passes.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from .result import RunResult, conclude, written_state

from . import checkpoint
from ..analysis.static import Progress, run_steps
from ..case.build import Model, build_model
from ..case.checks import model_findings
from ..case.schema import CaseError, load_case
from .interrupts import Interrupted, critical, handled
from ..references.metrics import evaluate_reference
from .folder import RunFolder
from ..solve.amg import plain_krylov_solve
from ..solve.backends import make_backend
from ..solve.factor import factorize, pinned_stiffness
from ..solve.projected import KrylovBackend
from .verify import residual_check

logger = logging.getLogger(__name__)


def linear_reference_seconds(model: Model, t: float, backend=None) -> float:
    """Wall time of one plain linear-elastic solve of the same system, from scratch.

    With a Krylov backend, the same preconditioner is set up again and the
    same projected GMRES (without contact) solves to the tolerance of the
    last Newton step; otherwise the stiffness is factorised and solved once.
    """
    sysm = model.problem.system
    rhs = sysm.T.T @ (sysm.external_force(t) - sysm.internal_force(sysm.prescribed(t))) + sysm.coupling_force(t)
    tic = time.perf_counter()
    try:
        if isinstance(backend, KrylovBackend):
            plain_krylov_solve(backend.name, backend.matrix, sysm, rhs, model.newton.tolerance)
        else:
            K, _, _ = pinned_stiffness(sysm)     # bodies held only by contact: pinned rigid modes
            factorize(K).solve(rhs)
    except RuntimeError as err:
        logger.info("linear reference solve failed: %s", err)
    return time.perf_counter() - tic


def prepare(case_path, overrides=()):
    """Read, build and check a case: ``(case, model)``.

    Raises
    ------
    CaseError
        One line per problem found (:mod:`fecontact.case.schema`, :mod:`fecontact.case.build`,
        :mod:`fecontact.case.checks`).
    """
    case = load_case(case_path, overrides)
    model = build_model(case)
    findings = model_findings(model)
    if findings:
        raise CaseError("\n".join(findings))
    return case, model


def run(case_path, out_dir=None, overrides=(), write_vtu_files: bool | None = None,
        restart: bool = False) -> RunResult:
    """Run the case at ``case_path``; results go to ``out_dir`` (default ``out/<name>``).

    With ``restart``, continue the run whose results are in ``out_dir`` from
    its last written step (:mod:`fecontact.run.checkpoint`).  SIGINT and SIGTERM
    stop the run between steps: the summary then says why, and
    :class:`fecontact.run.interrupts.Interrupted` is raised.
    """
    t_start = time.perf_counter()
    case, model = prepare(case_path, overrides)
    name = case.get("name", Path(case_path).stem)
    out = Path(out_dir) if out_dir is not None else Path("out") / name
    problem = model.problem
    cp = None
    if restart:
        cp = checkpoint.load(out, case, problem.system.n_dofs)
    out.mkdir(parents=True, exist_ok=True)
    vtu = case.get("output", {}).get("vtu", True) if write_vtu_files is None else write_vtu_files

    if model.dynamics is not None:
        from .dynamic import run_dynamic_case
        with handled():
            return run_dynamic_case(model, name, case_path, out, vtu, overrides, t_start, cp)

    tic = time.perf_counter()
    backend = make_backend(model.backend, problem, tolerance=model.newton.tolerance)
    t_setup = time.perf_counter() - tic
    n_levels = len(model.levels)
    summary = {
        "case": name, "case_file": str(case_path), "analysis": "static", "dim": problem.dim,
        "dofs": int(problem.system.n_dofs), "reduced_dofs": int(problem.system.n_reduced),
        "contact_nodes": int(problem.n_contact), "backend": backend.name,
        "overrides": list(overrides), "converged": False, "steps": [],
    }
    folder = RunFolder(out, name, problem, summary, vtu, checkpoint.fingerprint(case), "static",
                       n_levels)
    resume = None
    if cp is not None:
        if cp.analysis != "static" or cp.index >= n_levels:
            raise checkpoint.RestartError(
                f"{out}: the run there is {'complete' if cp.index >= n_levels else 'dynamic'}; "
                f"nothing to continue")
        folder.resume(cp, lambda steps: steps[:cp.index])
        previous = None
        if "previous_t" in cp.arrays:
            previous = (float(cp.arrays["previous_t"]), cp.arrays["previous_unknowns"])
        resume = Progress(cp.index, cp.state, float(cp.arrays["dt"]), previous)
    previous_facet = [(resume.state if resume else problem.initial_state()).facet]

    def step_entry(record, state):
        step = record.summary()
        step["reaction"] = problem.system.reactions(
            problem.full_residual(state.u, state.multiplier, state.t, state))
        # closed slave nodes whose master segment/facet changed since the last level
        step["facet_changes"] = int(np.sum((state.status != 0) & (state.facet != previous_facet[0])))
        previous_facet[0] = state.facet
        return step

    written = [resume.state if resume else problem.initial_state()]

    def on_step(record, state, progress):
        written[0] = state
        summary["steps"].append(step_entry(record, state))
        arrays = {"dt": progress.dt}
        if progress.previous is not None:
            arrays.update(previous_t=progress.previous[0], previous_unknowns=progress.previous[1])
        folder.step(progress.index, state, f"step_{record.index:04d}.vtu", record.load, arrays)

    records, timings = [], {"linear_solve": 0.0, "contact": 0.0}
    interrupted = None
    with handled():
        try:
            records, state, timings = run_steps(problem, backend, model.levels, model.newton,
                                                model.stepping, on_step=on_step, resume=resume)
        except Interrupted as err:
            interrupted, state = err, written[0]      # the last written step
    with critical():
        done = len(summary["steps"])
        failed = bool(records) and not records[-1].converged
        if failed:
            # the failed level: its accepted increments (if any) are written too
            rec = records[-1]
            step = step_entry(rec, state)
            step["reached"] = state.t
            summary["steps"].append(step)
            summary["reason"] = rec.reason
            if folder.vtu and state.t > (model.levels[done - 1] if done else 0.0):
                folder.vtu_file(f"step_{rec.index:04d}_partial.vtu", state.t, state)
        elif interrupted is not None:
            summary["reason"] = (f"interrupted by {interrupted.name} after {done} of {n_levels} "
                                 f"steps; continue with: fecontact run {case_path} --restart {out}")
        solved = done == n_levels and not failed and interrupted is None
        t_total = time.perf_counter() - t_start
        # the reference solve factorises the stiffness again: not when asked to stop
        linear_ref = linear_reference_seconds(model, state.t, backend) if interrupted is None else None
        contact_solve = t_setup + timings["linear_solve"] + timings["contact"]
        n_steps = max(len(records), 1)
        # every entry of summary["steps"] ends with the reactions of its state, the last one
        # with those of ``state``
        reaction = (summary["steps"][-1]["reaction"] if summary["steps"] else problem.system.reactions(
            problem.full_residual(state.u, state.multiplier, state.t, state)))
        check = residual_check(problem, written_state(out, case, problem, state))
        summary.update({
            "timings": {
                "total": t_total,
                "linear_solve": t_setup + timings["linear_solve"],
                "contact": timings["contact"],
                "setup_factorization": t_setup,
                "contact_solve": contact_solve,
                "linear_reference": linear_ref,
                "krylov_iterations": getattr(backend, "iterations", None),
                **model.timings,
                "contact_solve_per_step_over_linear_reference": (
                    contact_solve / n_steps / linear_ref if linear_ref else None),
            },
            "reaction": reaction,
            "max_newton_iterations_per_increment": max(
                (n for st in summary["steps"] for n in st.get("increment_iterations", [])), default=0),
            "check": check.as_dict(),
        })
        conclude(summary, solved, check)
        if summary["converged"]:
            summary["metrics"] = evaluate_reference(model, state)
        folder.write_summary()
    if interrupted is not None:
        raise interrupted
    return RunResult(model, state, summary, out)
