"""Serial against MPI-parallel runs of the petsc backend, and its scaling on this machine.

Usage::

    python docs/make_parallel.py                  # agreement and scaling: docs/parallel.json, .md
    python docs/make_parallel.py --agreement      # only the agreement runs (about 3 minutes)
    python docs/make_parallel.py --multigrid      # only the multigrid comparison
    python docs/make_parallel.py --agreement --cases impact   # one case's rows again
    python docs/make_parallel.py --page-only      # the page again from docs/parallel.json

Run it with an interpreter that has petsc4py and mpi4py (the README's
``.venv-mpi``).  Every run is a ``fecontact run`` subprocess: the serial one
with the case's own backend, the parallel ones under ``mpirun -n N`` with
``solver.backend = "petsc"``.  Agreement compares the final states written
to ``restart.npz`` (displacement, tractions, status); scaling solves
``hertz3d`` in one increment from point contact at about 0.5M and 1M
unknowns (the mesh sizes of ``fecontact bench`` scaled), with the linear
reference timed (``solver.compare_linear``), and reads the times from
``summary.json`` and each rank's peak memory from its ``parallel`` entry.

Written: ``docs/parallel.json`` (every figure) and ``docs/parallel.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA_PATH = DOCS / "parallel.json"
PAGE_PATH = DOCS / "parallel.md"

#: case, overrides, the serial backend of the same method (``amg``: projected GMRES; None where a
#: body is held only by contact, which ``amg`` does not serve: the case's own backend); the last
#: two are dynamic (time steps)
AGREEMENT = (
    ("hertz2d", (), "amg"),
    ("hertz3d", (), "amg"),
    ("cattaneo2d", (), None),
    ("ironing2d", (), "amg"),
    ("impact", (), None),
    ("incline_dynamic", (), None),
)
RANKS = (1, 2, 4)
#: hertz3d mesh-size scales (of h_contact = 0.01, h_far = 0.15) for about 0.5M and 1M unknowns
SCALING = ((0.327, (1,)), (0.246, (1, 2)))
SIZES = {"bodies.0.mesh.h_contact": 0.01, "bodies.0.mesh.h_far": 0.15}
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def run_case(case: str, ranks: int, overrides, out: Path) -> dict:
    """One ``fecontact run``: serial (``ranks = 0``) or petsc on ``ranks`` ranks; its figures."""
    command = [sys.executable, "-m", "fecontact", "run", str(ROOT / "cases" / f"{case}.toml"),
               "--out", str(out), "--set", "output.vtu=false"]
    for o in overrides:
        command += ["--set", o]
    if ranks:
        command = [shutil.which("mpirun"), "-n", str(ranks), *command,
                   "--set", 'solver.backend="petsc"']
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    if done.returncode != 0:
        raise RuntimeError(f"{case} on {ranks} ranks failed: {done.stderr.strip()[-500:]}")
    summary = json.loads((out / "summary.json").read_text())
    with np.load(out / "restart.npz", allow_pickle=True) as z:
        state = {k: z[k] for k in ("state.u", "state.multiplier", "state.status")}
    t = summary["timings"]
    return {"summary": {"dofs": summary["dofs"], "backend": summary.get("backend") or "auto",
                        "converged": summary["converged"],
                        "newton": sum(s["newton_iterations"] for s in summary["steps"]),
                        "steps": len(summary["steps"]), "timings": t,
                        "parallel": summary.get("parallel")},
            "state": state}


def agreement(workdir: Path, echo=print, cases=None) -> list:
    """Serial and parallel final states of the agreement cases (all, or ``cases``), compared."""
    rows = []
    for case, overrides, method in AGREEMENT:
        if cases and case not in cases:
            continue
        own = run_case(case, 0, overrides, workdir / f"{case}_own")
        serial = own
        if method is not None:
            serial = run_case(case, 0, (*overrides, f'solver.backend="{method}"'),
                              workdir / f"{case}_serial")
        between = {"u": _difference(serial["state"], own["state"], "state.u"),
                   "traction": _difference(serial["state"], own["state"], "state.multiplier")}
        for ranks in RANKS:
            par = run_case(case, ranks, overrides, workdir / f"{case}_{ranks}")
            a, b = serial["state"], par["state"]
            row = {"case": case, "ranks": ranks, "dofs": serial["summary"]["dofs"],
                   "steps": serial["summary"]["steps"],
                   "serial_backend": serial["summary"]["backend"],
                   "own_backend": own["summary"]["backend"],
                   "own_u_difference": between["u"], "own_traction_difference": between["traction"],
                   "u_difference": _difference(a, b, "state.u"),
                   "traction_difference": _difference(a, b, "state.multiplier"),
                   "status_equal": bool(np.array_equal(a["state.status"], b["state.status"])),
                   "serial_newton": serial["summary"]["newton"],
                   "parallel_newton": par["summary"]["newton"],
                   "serial_s": serial["summary"]["timings"]["total"],
                   "parallel_s": par["summary"]["timings"]["total"],
                   "converged": bool(par["summary"]["converged"])}
            echo(f"{case} {ranks} ranks: u {row['u_difference']:.2e}, tractions "
                 f"{row['traction_difference']:.2e}, status equal {row['status_equal']}, "
                 f"{row['parallel_s']:.1f} s (serial {row['serial_s']:.1f} s)")
            rows.append(row)
    return rows


def _difference(a: dict, b: dict, key: str) -> float:
    """``max |b - a| / max |a|`` of one array of two final states (0 when both vanish)."""
    scale = max(np.abs(a[key]).max(), np.abs(b[key]).max())
    return float(np.abs(b[key] - a[key]).max() / scale) if scale > 0 else 0.0


def scaling(workdir: Path, echo=print) -> list:
    """hertz3d in one increment at the :data:`SCALING` sizes: serial amg and petsc per rank count."""
    rows = []
    for scale, rank_counts in SCALING:
        overrides = [f"{k}={v * scale:.10g}" for k, v in SIZES.items()]
        overrides += ["steps.count=1", "solver.compare_linear=true"]
        for ranks in (0, *rank_counts):
            extra = [] if ranks else ['solver.backend="amg"']
            got = run_case("hertz3d", ranks, overrides + extra, workdir / f"scale{scale}_{ranks}")
            s, t = got["summary"], got["summary"]["timings"]
            par = s["parallel"] or {}
            row = {"scale": scale, "ranks": ranks, "dofs": s["dofs"], "backend": s["backend"],
                   "newton": s["newton"], "krylov": t.get("krylov_iterations"),
                   "total_s": t["total"], "mesh_s": t["build_mesh"],
                   "assembly_s": t["build_assembly"], "search_s": t["contact"],
                   "setup_s": t["setup_factorization"], "krylov_s": t["linear_solve"] - t["setup_factorization"],
                   "contact_solve_s": t["contact_solve"], "linear_reference_s": t["linear_reference"],
                   "nested_s": t.get("nested"),
                   "collective_s": max(par.get("collective_seconds_per_rank", [0.0])),
                   "peak_gb_per_rank": par.get("peak_memory_gb_per_rank"),
                   "rows_per_rank": par.get("rows_per_rank"), "multigrid": par.get("multigrid")}
            echo(f"hertz3d {row['dofs']} DOFs, {ranks or 'serial'} ranks: {row['total_s']:.1f} s, "
                 f"contact solve {row['contact_solve_s']:.1f} s, Krylov {row['krylov']}, "
                 f"peak {row['peak_gb_per_rank']}")
            rows.append(row)
    return rows


def multigrid_choice(echo=print) -> list:
    """PETSc's multigrid preconditioners on hertz3d's bulk matrix, one rank: set-up and CG to 1e-10.

    The matrix, its node blocks and rigid-body modes are those of the
    ``petsc`` backend; each preconditioner PETSc has is set up from scratch
    and CG solves ``K x = b`` (``b`` random, fixed seed) to a relative
    residual of 1e-10.
    """
    import time

    from fecontact.case.build import build_model
    from fecontact.case.schema import load_case
    from fecontact.solve.mpi import petsc
    from fecontact.solve.petsc import PetscBackend

    PETSc = petsc()
    model = build_model(load_case(ROOT / "cases" / "hertz3d.toml", ["solver.nested=false"]))
    K = PetscBackend(model.problem).K_pc
    rows = []
    for name, options in (("ml", {}), ("gamg", {}), ("gamg", {"pc_gamg_agg_nsmooths": "0"}),
                          ("hypre", {})):
        if name != "gamg" and not PETSc.Sys.hasExternalPackage(name):
            continue
        db = PETSc.Options()
        for k, v in options.items():
            db.setValue(f"multigrid_{k}", v)
        pc = PETSc.PC().create()
        pc.setOptionsPrefix("multigrid_")
        pc.setType(name)
        pc.setOperators(K)
        pc.setFromOptions()
        tic = time.perf_counter()
        pc.setUp()
        setup = time.perf_counter() - tic
        b = K.createVecLeft()
        b.setArray(np.random.default_rng(0).standard_normal(b.getLocalSize()))
        x = b.duplicate()
        ksp = PETSc.KSP().create()
        ksp.setType("cg")
        ksp.setOperators(K)
        ksp.setPC(pc)
        ksp.setTolerances(rtol=1e-10, max_it=1000)
        tic = time.perf_counter()
        ksp.solve(b, x)
        solve = time.perf_counter() - tic
        for k in options:
            db.delValue(f"multigrid_{k}")
        row = {"multigrid": name + (" (unsmoothed)" if options else ""), "dofs": K.getSize()[0],
               "setup_s": setup, "iterations": ksp.getIterationNumber(), "solve_s": solve}
        echo(f"{row['multigrid']}: set-up {setup:.2f} s, {row['iterations']} CG iterations {solve:.2f} s")
        rows.append(row)
        ksp.destroy()
        pc.destroy()
    return rows


def machine() -> dict:
    """Where the figures were measured."""
    from fecontact.solve.mpi import petsc

    PETSc = petsc()
    return {"cpus": os.cpu_count(), "python": platform.python_version(),
            "petsc": ".".join(str(v) for v in PETSc.Sys.getVersion()),
            "mpirun": subprocess.run([shutil.which("mpirun"), "--version"], capture_output=True,
                                     text=True, env=ENV).stdout.splitlines()[0]}


# -- the page -------------------------------------------------------------------------------------

def _e(x) -> str:
    return f"{x:.1e}"


def agreement_table(rows: list) -> str:
    lines = ["| case | DOFs | steps | serial | ranks | max Δu / max u | max Δλ / max λ | same status "
             "| Newton serial / parallel | s serial / parallel |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['dofs']:,} | {r['steps']} | `{r['serial_backend']}` | {r['ranks']} | "
                     f"{_e(r['u_difference'])} | {_e(r['traction_difference'])} | "
                     f"{'yes' if r['status_equal'] else 'no'} | {r['serial_newton']} / "
                     f"{r['parallel_newton']} | {r['serial_s']:.1f} / {r['parallel_s']:.1f} |")
    return "\n".join(lines)


def method_table(rows: list) -> str:
    """The serial projected-GMRES run against the case's own serial backend, once per case."""
    lines = ["| case | serial backends | max Δu / max u | max Δλ / max λ |", "|---|---|---|---|"]
    seen = set()
    for r in rows:
        if r["case"] in seen or r["serial_backend"] == r["own_backend"]:
            continue
        seen.add(r["case"])
        lines.append(f"| {r['case']} | `{r['serial_backend']}` against `{r['own_backend']}` | "
                     f"{_e(r['own_u_difference'])} | {_e(r['own_traction_difference'])} |")
    return "\n".join(lines)


def multigrid_table(rows: list) -> str:
    lines = ["| multigrid | rows | set-up s | CG iterations | CG s | set-up + CG s |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['multigrid']} | {r['dofs']:,} | {r['setup_s']:.2f} | {r['iterations']} | "
                     f"{r['solve_s']:.2f} | {r['setup_s'] + r['solve_s']:.2f} |")
    return "\n".join(lines)


def scaling_table(rows: list) -> str:
    lines = ["| DOFs | run | Newton | Krylov | total s | mesh s | assembly s | search s | "
             "multigrid set-up s | Krylov s | collectives s | contact solve s | linear reference s "
             "| peak GB per rank |",
             "|---" * 14 + "|"]
    for r in rows:
        run = "serial `amg`" if not r["ranks"] else f"`petsc`, {r['ranks']} rank{'s' * (r['ranks'] > 1)}"
        peak = " / ".join(f"{p:.2f}" for p in r["peak_gb_per_rank"]) if r["peak_gb_per_rank"] else "–"
        collectives = f"{r['collective_s']:.2f}" if r["ranks"] else "–"
        ref = f"{r['linear_reference_s']:.1f}" if r["linear_reference_s"] else "–"
        lines.append(f"| {r['dofs']:,} | {run} | {r['newton']} | {r['krylov']} | {r['total_s']:.1f} | "
                     f"{r['mesh_s']:.1f} | {r['assembly_s']:.1f} | {r['search_s']:.2f} | "
                     f"{r['setup_s']:.1f} | {r['krylov_s']:.1f} | {collectives} | "
                     f"{r['contact_solve_s']:.1f} | {ref} | {peak} |")
    return "\n".join(lines)


def speedups(rows: list) -> str:
    """Strong and weak scaling of the contact solve, from the scaling rows."""
    par = {(r["dofs"], r["ranks"]): r for r in rows if r["ranks"]}
    sizes = sorted({d for d, _ in par})
    small, big = sizes[0], sizes[-1]
    one, two = par.get((big, 1)), par.get((big, 2))
    lines = []
    if one and two:
        lines.append(f"- Strong scaling at {big:,} unknowns, 1 to 2 ranks: contact solve "
                     f"{one['contact_solve_s']:.1f} s to {two['contact_solve_s']:.1f} s (speed-up "
                     f"{one['contact_solve_s'] / two['contact_solve_s']:.2f}), Krylov part "
                     f"{one['krylov_s']:.1f} s to {two['krylov_s']:.1f} s "
                     f"({one['krylov_s'] / two['krylov_s']:.2f}), whole run {one['total_s']:.1f} s to "
                     f"{two['total_s']:.1f} s ({one['total_s'] / two['total_s']:.2f}); peak memory per "
                     f"rank {one['peak_gb_per_rank'][0]:.2f} GB to {max(two['peak_gb_per_rank']):.2f} GB.")
    base = par.get((small, 1))
    if base and two and small != big:
        per_rank = big / 2
        lines.append(f"- Weak scaling from {small:,} unknowns on 1 rank to {big:,} on 2 "
                     f"({per_rank / small:.2f} times the unknowns per rank): contact solve "
                     f"{base['contact_solve_s']:.1f} s to {two['contact_solve_s']:.1f} s, an efficiency "
                     f"of {base['contact_solve_s'] / two['contact_solve_s'] * per_rank / small:.2f} "
                     f"per unknown and rank.")
    serial = next((r for r in rows if not r["ranks"] and r["dofs"] == big), None)
    if serial and two:
        lines.append(f"- Against serial `amg` at {big:,} unknowns: contact solve "
                     f"{serial['contact_solve_s']:.1f} s serial, {two['contact_solve_s']:.1f} s with `petsc` "
                     f"on 2 ranks; the serial multigrid updates its operators with the contact penalty "
                     f"at every step ({serial['krylov']} GMRES iterations against {two['krylov']}).")
    return "\n".join(lines)


def projection(rows: list) -> dict:
    """Per-unknown figures of the measured runs, for the model of larger machines (see the page)."""
    par = [r for r in rows if r["ranks"]]
    big = max(par, key=lambda r: (r["dofs"], r["ranks"]))
    one = next(r for r in par if r["ranks"] == 1 and r["dofs"] == big["dofs"])
    replicated = (one["peak_gb_per_rank"][0] * 1e9) / one["dofs"]          # bytes per DOF, 1 rank
    per_rank = [p * 1e9 for p in big["peak_gb_per_rank"]]
    # memory that does not shrink with ranks: the replicated model (peak on 2 ranks vs on 1)
    if big["ranks"] > 1:
        shared = (big["ranks"] * max(per_rank) - one["peak_gb_per_rank"][0] * 1e9) / (big["ranks"] - 1)
    else:
        shared = per_rank[0]
    return {"dofs": big["dofs"], "ranks": big["ranks"],
            "bytes_per_dof_one_rank": replicated,
            "replicated_bytes_per_dof": shared / big["dofs"],
            "krylov_seconds_per_dof_iteration": one["krylov_s"] / max(one["krylov"], 1) / one["dofs"],
            "newton": one["newton"], "krylov": one["krylov"],
            "replicated_seconds": one["total_s"] - one["contact_solve_s"] + one["search_s"]
            - (one["linear_reference_s"] or 0.0)}


def render_page(data: dict) -> str:
    m = data["machine"]
    parts = [PAGE_HEAD.format(**m)]
    parts.append("## Serial and parallel results agree\n\n" + AGREEMENT_TEXT + "\n\n"
                 + agreement_table(data["agreement"]) + "\n\n" + METHOD_TEXT + "\n\n"
                 + method_table(data["agreement"]) + "\n")
    if data.get("scaling"):
        p = projection(data["scaling"])
        parts.append("## Scaling on this machine\n\n" + SCALING_TEXT + "\n\n"
                     + scaling_table(data["scaling"]) + "\n\n" + speedups(data["scaling"]) + "\n")
        parts.append("## Beyond this machine\n\n" + MODEL_TEXT.format(
            replicated=p["replicated_bytes_per_dof"] / 1e3, one=p["bytes_per_dof_one_rank"] / 1e3,
            m10=p["replicated_bytes_per_dof"] * 10e6 / 1e9,
            m100=p["replicated_bytes_per_dof"] * 100e6 / 1e9,
            cap=2e9 / p["replicated_bytes_per_dof"] / 1e6,
            dofs=p["dofs"], krylov=p["krylov"], newton=p["newton"],
            rate=p["krylov_seconds_per_dof_iteration"] * 1e9,
            t10=p["krylov_seconds_per_dof_iteration"] * p["krylov"] * 10e6 / 32,
            t100=p["krylov_seconds_per_dof_iteration"] * p["krylov"] * 100e6 / 512,
            replicated_s=p["replicated_seconds"],
            r10=p["replicated_seconds"] * 10e6 / p["dofs"],
            r100=p["replicated_seconds"] * 100e6 / p["dofs"]) + "\n")
    if data.get("multigrid"):
        parts.append("## Choosing the multigrid\n\n" + MULTIGRID_TEXT + "\n\n"
                     + multigrid_table(data["multigrid"]) + "\n")
    parts.append(LIMITS_TEXT)
    return "\n".join(parts)


PAGE_HEAD = """# Parallel runs on PETSc (MPI)

The `petsc` backend solves the Newton systems of a contact problem across
the ranks of an MPI launch with PETSc's distributed matrices, Krylov solvers
and algebraic multigrid. It is optional: PETSc has no wheels on the package
index, so it comes from the operating system ([install](guide/parallel.md#install)).

*Generated by `docs/make_parallel.py` on {cpus} cores, Python {python},
PETSc {petsc}, {mpirun}; do not edit by hand.*

How to install PETSc and run a case or a script on several ranks is in
the user guide under [Parallel runs](guide/parallel.md). This page gives
the measurements: serial and parallel results side by side, the scaling on
this machine and what it implies beyond it, and what is parallel.
"""

AGREEMENT_TEXT = """Each case is run serially with `amg`, the serial backend of the same method
(projected GMRES with inexact Newton steps), or with its own backend where a
body is held only by contact (`cattaneo2d`, and the dynamic cases `impact` and
`incline_dynamic`, whose time steps solve with the effective stiffness), and
with `petsc` on 1, 2 and 4
ranks (4 ranks oversubscribe this 2-core machine). The table gives the
largest difference of the final displacement and tractions, relative to
their largest value; both runs solve to Newton's tolerance (1e-9 relative),
so differences of that order are the solver's, not the partition's."""

METHOD_TEXT = """The serial backends do not all give the same final state on a long
frictional path. The inexact Newton steps of the Krylov backends take
other iterates than the exact steps of `schur`; over the 320 increments of
`ironing2d` the final states differ by more than the tolerance, with the
same contact status everywhere. So the solver's path, not the partition,
sets that difference: `petsc` follows `amg` (table above), and both differ
from `schur` by:"""

SCALING_TEXT = """`hertz3d` in one increment from point contact (nested iteration on, as
in a serial run), serial `amg` against `petsc` on 1 and 2 ranks. *Search* is
the contact work (search, projection, kinematics and return map), done by
every rank on the whole model; *Krylov s* the GMRES iterations of all Newton
steps; *collectives* the backend's own all-reduces, all-gathers and the
exchange of matrix entries on the slowest rank (halo exchanges inside
PETSc's products are in *Krylov s*). Mesh generation is replicated: every
rank builds the whole mesh; *assembly s* is each rank's assembly of the
elements it owns."""

MODEL_TEXT = """A model from the measured figures. On one rank the run took {one:.1f} kB per
unknown at its peak; the memory that does not shrink with the ranks (the
replicated model: mesh, contact data, vectors of the whole problem, and the
sparse index arrays sized by the whole problem), from the peaks on 1 and 2
ranks, is {replicated:.1f} kB per
unknown. Every rank holds it, so at 10M unknowns each rank needs about
{m10:.0f} GB and at 100M about {m100:.0f} GB, whatever the number of ranks.
With 2 GB per rank (a 64 GB node running 32 ranks, or 128 GB and 64) the
largest model is about {cap:.1f}M unknowns: **memory of the replicated model
limits first**, before any communication cost.

Time, under an assumption not measured here beyond 2 ranks: that the
multigrid keeps its iteration count nearly constant with size (it rose
only slowly in the serial series of [scaling](scaling.md)) and its time per
iteration proportional to the rows per rank, as smoothed aggregation is
designed to. The Krylov part of the 1-rank run ({krylov} GMRES iterations
over {newton} Newton iterations at {dofs:,} unknowns) cost {rate:.0f} ns per
unknown and iteration, so the same increment's Krylov part would take about
{t10:.0f} s at 10M unknowns on 32 ranks and {t100:.0f} s at 100M on 512
(plus halo exchanges, which grow with the ranks' surfaces). The
parts outside the solver (mesh generation, assembly, contact search, the
residual and the line search: {replicated_s:.0f} s of the 1-rank run)
are an upper bound on what does not shrink with the ranks: assembly and
the bulk residual's product are split by elements, the rest is replicated.
Taken whole they would grow in proportion to the model, to about
{r10:.0f} s at 10M and {r100:.0f} s at 100M on every rank, and would
dominate the time as well as the memory: distributing the mesh itself is
the next step (see below)."""

MULTIGRID_TEXT = """The bulk matrix of `hertz3d` (as the `petsc` backend builds it: node
blocks, rigid-body modes as near-null space) on one rank: each multigrid
preconditioner this PETSc has, set up from scratch, then CG to a relative
residual of 1e-10. The backend uses the first of Trilinos ML and GAMG that
the build has (`fecontact.solve.petsc.MULTIGRID`)."""

LIMITS_TEXT = """## What is parallel and what is not

| part | parallel? |
|---|---|
| Krylov iterations (flexible GMRES), multigrid set-up and V-cycles, matrix–vector products | yes: rows split among ranks by recursive coordinate bisection, in node blocks |
| contact constraints in the Krylov solve | the small contact blocks are applied on every rank after one all-reduce of the contact unknowns |
| assembly of the bulk stiffness | yes: each rank assembles the elements it owns (recursive coordinate bisection of the nodes, an element going with its first vertex) and keeps only that partial matrix; entries are sent once to the rank that owns their row |
| bulk residual `K u` | yes: each rank's partial matrix times the whole vector, summed over the ranks by one all-reduce |
| mesh generation or reading | no: every rank holds the whole mesh (and, for P2 and Q1 bodies, builds the whole basis once for the node positions) |
| contact search, kinematics, return map, line search | no: every rank computes them on the whole model (identical results, so all ranks take the same decisions); the contact rows of the Krylov operator are applied by the rank that owns them |
| dynamics' mass and stiffness | replicated: a dynamic case is assembled whole on every rank |
| output | gathered: rank 0 writes every file |
| finite strain | no: the `petsc` backend serves small-strain bodies; use `amg` |
| dynamics | yes, as static increments: each time step's Newton systems (effective stiffness) go to the same backend (`impact`, `incline_dynamic` above) |
| mortar contact, PFC export, `fecontact bench` | serial only |
| nested iteration | the coarse model uses `petsc` too (every rank solves it) |

The design follows MOOSE's default *replicated mesh* with distributed
assembly: the mesh is small next to the matrices up to a few million
unknowns, and every rank holding it keeps the contact search, the line
search and the output exactly as in a serial run, while the matrices, the
largest part, are split. What it does not give is the replicated memory
(mesh, whole-problem vectors) falling with the ranks; that needs the mesh
itself partitioned when read, with the master surfaces exchanged between
ranks.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agreement", action="store_true", help="only the agreement runs")
    parser.add_argument("--page-only", action="store_true", help="the page from docs/parallel.json")
    parser.add_argument("--multigrid", action="store_true", help="only the multigrid comparison")
    parser.add_argument("--cases", nargs="+", help="with --agreement: run these cases again only")
    args = parser.parse_args(argv)
    if args.page_only:
        data = json.loads(DATA_PATH.read_text())
    else:
        data = json.loads(DATA_PATH.read_text()) if DATA_PATH.is_file() else {}
        data["machine"] = machine()
        if not args.multigrid:
            with tempfile.TemporaryDirectory(prefix="fecontact-parallel-") as work:
                fresh = agreement(Path(work), cases=args.cases)
                if args.cases:              # the other cases' rows kept, in the order of AGREEMENT
                    kept = [r for r in data.get("agreement", []) if r["case"] not in args.cases]
                    order = [c for c, _, _ in AGREEMENT]
                    fresh = sorted(kept + fresh, key=lambda r: (order.index(r["case"]), r["ranks"]))
                data["agreement"] = fresh
                if not args.agreement:
                    data["scaling"] = scaling(Path(work))
        if not args.agreement:
            data["multigrid"] = multigrid_choice()
        DATA_PATH.write_text(json.dumps(data, indent=1) + "\n")
    PAGE_PATH.write_text(render_page(data))
    print(f"wrote {PAGE_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
