"""Run a case end to end: build, step, write results, compare with the reference.

Every accepted output level is on disk (VTU, ``.pvd`` and ``summary.json``)
before the next one starts, so a run that fails later loses nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .build import Model, build_model
from .case import load_case
from .linsolve import factorize, make_backend, pinned_stiffness
from .metrics import evaluate_reference
from .output import write_pvd, write_summary, write_vtu
from .problem import StepState
from .stepping import run_steps

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunResult:
    model: Model
    state: StepState
    summary: dict
    out_dir: Path


def linear_reference_seconds(model: Model, t: float) -> float:
    """Wall time of one plain linear-elastic solve (factorise + solve) of the same system."""
    sysm = model.problem.system
    rhs = sysm.T.T @ (sysm.external_force(t) - sysm.internal_force(sysm.prescribed(t))) + sysm.coupling_force(t)
    K, _, _ = pinned_stiffness(sysm)     # bodies held only by contact: pinned rigid modes
    tic = time.perf_counter()
    try:
        factorize(K).solve(rhs)
    except RuntimeError as err:
        logger.info("linear reference solve failed: %s", err)
    return time.perf_counter() - tic


def run(case_path, out_dir=None, overrides=(), write_vtu_files: bool | None = None) -> RunResult:
    """Run the case at ``case_path``; results go to ``out_dir`` (default ``out/<name>``)."""
    t_start = time.perf_counter()
    case = load_case(case_path, overrides)
    name = case.get("name", Path(case_path).stem)
    out = Path(out_dir) if out_dir is not None else Path("out") / name
    out.mkdir(parents=True, exist_ok=True)
    model = build_model(case)
    problem = model.problem
    vtu = case.get("output", {}).get("vtu", True) if write_vtu_files is None else write_vtu_files

    if model.dynamics is not None:
        from .timeseries import run_dynamic_case
        return run_dynamic_case(model, name, case_path, out, vtu, overrides, t_start)

    tic = time.perf_counter()
    backend = make_backend(model.backend, problem)
    t_setup = time.perf_counter() - tic

    summary = {
        "case": name, "case_file": str(case_path), "dim": problem.dim,
        "dofs": int(problem.system.n_dofs), "reduced_dofs": int(problem.system.n_reduced),
        "contact_nodes": int(problem.n_contact), "backend": backend.name,
        "overrides": list(overrides), "converged": False, "steps": [],
    }
    pvd_entries = []
    encoded_steps: list = []
    previous_facet = [problem.initial_state().facet]

    def on_step(record, state):
        if vtu:
            fname = f"step_{record.index:04d}.vtu"
            write_vtu(out / fname, problem, state)
            pvd_entries.append((record.load, fname))
            write_pvd(out / f"{name}.pvd", pvd_entries)
        step = record.summary()
        step["reaction"] = problem.system.reactions(
            problem.full_residual(state.u, state.multiplier, state.t, state))
        # closed slave nodes whose master segment/facet changed since the last level
        step["facet_changes"] = int(np.sum((state.status != 0) & (state.facet != previous_facet[0])))
        previous_facet[0] = state.facet
        summary["steps"].append(step)
        write_summary(out / "summary.json", summary, encoded_steps)

    records, state, timings = run_steps(problem, backend, model.levels, model.newton,
                                        model.stepping, on_step=on_step)
    converged = bool(records) and all(r.converged for r in records) and len(records) == len(model.levels)
    if not converged and records and not records[-1].converged:
        summary["steps"].append(records[-1].summary())
        summary["reason"] = records[-1].reason
    t_total = time.perf_counter() - t_start
    linear_ref = linear_reference_seconds(model, state.t)
    contact_solve = t_setup + timings["linear_solve"] + timings["contact"]
    n_steps = max(len(records), 1)
    residual_full = problem.full_residual(state.u, state.multiplier, state.t, state)
    summary.update({
        "converged": converged,
        "timings": {
            "total": t_total,
            "linear_solve": t_setup + timings["linear_solve"],
            "contact": timings["contact"],
            "setup_factorization": t_setup,
            "contact_solve": contact_solve,
            "linear_reference": linear_ref,
            "contact_solve_per_step_over_linear_reference": contact_solve / n_steps / linear_ref,
        },
        "reaction": problem.system.reactions(residual_full),
        "max_newton_iterations_per_increment": max(
            (n for r in records for n in r.increment_iterations), default=0),
    })
    if converged:
        summary["metrics"] = evaluate_reference(model, state)
    write_summary(out / "summary.json", summary, encoded_steps)
    return RunResult(model, state, summary, out)
