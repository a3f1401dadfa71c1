"""Write docs/scaling.md from the benchmark files: the Hertz series and the largest run.

Reads ``docs/scaling/bench.json`` (``fecontact bench --out docs/scaling``)
and ``docs/scaling/large.json``, which ``--large`` writes by running
``hertz3d`` at about 3 million DOFs as a user would (``fecontact run``, one
increment, no linear reference, no VTU files) in a child process whose peak
memory is its own.  Without ``--large`` nothing is measured: the page is
rendered from the saved files.

    fecontact bench --out docs/scaling          # both series, about 25 minutes
    python docs/make_scaling.py --large         # the 3M-DOF run, about 12 minutes
    python docs/make_scaling.py                 # the page alone, from the saved files
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "docs" / "scaling"
#: mesh-size factor of the large hertz3d run (h_contact = 0.01 * scale, h_far = 0.15 * scale)
LARGE_SCALE = 0.152


def run_large(scale: float = LARGE_SCALE) -> dict:
    """``fecontact run cases/hertz3d.toml`` at ``scale`` in a child process: wall time, peak memory, summary."""
    with tempfile.TemporaryDirectory(prefix="fecontact-large-") as out:
        cmd = [sys.executable, "-m", "fecontact", "run", str(ROOT / "cases" / "hertz3d.toml"),
               "--out", out, "--quiet", "--set", "steps.count=1", "--set", "output.vtu=false",
               "--set", f"bodies.0.mesh.h_contact={0.01 * scale:.10g}",
               "--set", f"bodies.0.mesh.h_far={0.15 * scale:.10g}"]
        tic = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - tic
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024.0
        summary = json.loads((Path(out) / "summary.json").read_text())
    s = summary
    return dict(scale=scale, returncode=proc.returncode, wall_s=wall, peak_memory_gb=peak / 1e9,
                dofs=s["dofs"], reduced_dofs=s["reduced_dofs"], contact_nodes=s["contact_nodes"],
                backend=s["backend"], backend_choice=s.get("backend_choice"),
                converged=s["converged"], newton_iterations=s["steps"][0]["newton_iterations"],
                timings=s["timings"], metrics=s.get("metrics", {}),
                meta=dict(machine=platform.machine(), cpus=os.cpu_count(),
                          python=platform.python_version(), date=time.strftime("%Y-%m-%d")))


def _rows(path: Path) -> tuple:
    data = json.loads(path.read_text())
    return [r for r in data["rows"] if "error" not in r], data["meta"], data["rows"]


def _span(values, fmt="{:.2f}") -> str:
    values = list(values)
    return (fmt + " to " + fmt).format(min(values), max(values)) if values else "–"


def _fmt(value, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def _coarse(r: dict) -> str:
    """The coarse model of nested iteration: its DOFs and Newton iterations, or a dash."""
    if r.get("coarse_dofs") is None:
        return "–"
    return f"{r['coarse_dofs']:,}, {r['coarse_newton_iterations']}"


def tables(rows: list, meta: dict) -> str:
    """The series as two tables: the problem and its solver, then where the time goes.

    Parameters
    ----------
    rows : list of dict
        Rows of ``bench.json``, failed sizes included (they are listed after the tables).
    meta : dict
        ``machine``, ``cpus``, ``python`` and ``date`` of the measurement.

    Returns
    -------
    str
        Two Markdown tables, each under a short heading, and a "Measured on ..." note.
    """
    ok = [r for r in rows if "error" not in r]
    solver = ["| case | DOFs | contact nodes | backend | Newton it. | coarse DOFs, Newton it. "
              "| Krylov it. | peak pressure error |", "|" + "---|" * 8]
    for r in ok:
        err = r["peak_pressure_error"]
        solver.append(f"| {r['series']} | {r['dofs']:,} | {r['contact_nodes']:,} | {r['backend']} | "
                      f"{r['newton_iterations']} | {_coarse(r)} | {_fmt(r.get('krylov_iterations'), 'd')} | "
                      f"{_fmt(None if err is None else 100 * err, '.2f')} % |")
    timing = ["| case | DOFs | contact solve s | linear solve s | ratio | contact work % | mesh s "
              "| assembly s | total s | peak GB |", "|" + "---|" * 10]
    for r in ok:
        timing.append(f"| {r['series']} | {r['dofs']:,} | {r['contact_solve_s']:.2f} | "
                      f"{r['linear_solve_s']:.2f} | {_fmt(r['ratio'], '.2f')} | "
                      f"{100 * r['contact_share']:.1f} | {_fmt(r.get('mesh_s'), '.2f')} | "
                      f"{_fmt(r.get('assembly_s'), '.2f')} | {r['total_s']:.1f} | "
                      f"{r['peak_memory_gb']:.2f} |")
    note = (f"Measured on {meta['machine']}, {meta['cpus']} CPUs, CPython {meta['python']}, "
            f"{meta['date']}.")
    return ("### Problem size and solver\n\n" + "\n".join(solver) + "\n\n### Time and memory\n\n"
            + "\n".join(timing) + "\n\n" + note + "\n")


def goals(rows: list, large: dict | None) -> str:
    """The issue's targets against the figures of ``rows`` and the large run."""
    lines = ["| target | measured | met |", "|---|---|---|"]
    for series, lo, hi in (("hertz2d", 10_000, 1_000_000), ("hertz3d", 50_000, 1_300_000)):
        sel = [r for r in rows if r["series"] == series and lo <= r["dofs"] <= hi]
        if not sel:
            continue
        ratios = [r["ratio"] for r in sel if r["ratio"] is not None]
        newton = [r["newton_iterations"] for r in sel]
        lines.append(f"| {series}: contact solve / linear solve <= 1.5, {lo:,} to {hi:,} DOFs "
                     f"| {_span(ratios)} over {len(sel)} sizes ({min(r['dofs'] for r in sel):,} to "
                     f"{max(r['dofs'] for r in sel):,} DOFs) | {'yes' if max(ratios) <= 1.5 else 'no'} |")
        spread = max(newton) - min(newton)
        lines.append(f"| {series}: Newton iterations within +-2 over the sizes | {min(newton)} to "
                     f"{max(newton)} | {'yes' if spread <= 4 else 'no'} |")
    if large:
        t = large["timings"]
        ok = large["converged"] and large["wall_s"] <= 900 and large["dofs"] >= 3_000_000
        lines.append(f"| hertz3d at >= 3M DOFs in <= 15 min, peak memory reported | {large['dofs']:,} DOFs: "
                     f"whole run {large['wall_s']:.0f} s ({large['wall_s'] / 60:.1f} min), peak "
                     f"{large['peak_memory_gb']:.2f} GB ({1e6 * large['peak_memory_gb'] / large['dofs']:.2f} kB "
                     f"per DOF); mesh {t['build_mesh']:.0f} s, assembly {t['build_assembly']:.0f} s, "
                     f"contact solve {t['contact_solve']:.0f} s | {'yes' if ok else 'no'} |")
    return "\n".join(lines)


def page() -> str:
    """The Markdown of docs/scaling.md."""
    rows, meta, all_rows = _rows(DIR / "bench.json")
    large = json.loads((DIR / "large.json").read_text()) if (DIR / "large.json").exists() else None
    large_text = ""
    if large:
        t = large["timings"]
        m = large["metrics"].get("peak_pressure", {})
        large_text = f"""
## The largest run

`python docs/make_scaling.py --large` runs `cases/hertz3d.toml` with both
mesh sizes times {large['scale']:g}, in one increment, as a user would
(`fecontact run`, no linear reference, no VTU files), in a child process:
{large['dofs']:,} DOFs, {large['contact_nodes']:,} contact nodes, backend
`{large['backend']}`, {large['newton_iterations']} Newton iterations,
converged: {large['converged']}. Whole run {large['wall_s']:.0f} s; of it mesh
generation {t['build_mesh']:.0f} s, assembly {t['build_assembly']:.0f} s, contact
solve {t['contact_solve']:.0f} s (set-up {t['setup_factorization']:.0f} s).
Peak memory {large['peak_memory_gb']:.2f} GB ({1e6 * large['peak_memory_gb'] / large['dofs']:.2f} kB
per DOF). Peak pressure {100 * (m.get('rel_error') or 0):.2f} % from Hertz.
Measured {large['meta']['date']}.

`auto`'s reason: {large.get('backend_choice') or '–'}
"""
    failed = [r for r in all_rows if "error" in r]
    failed_text = "".join(f"\n- {r['series']} at scale {r['scale']}: {r['error']}" for r in failed)
    return f"""# Performance at scale

A contact solve cannot cost less than one linear solve of the same system.
This page measures how close `fecontact` comes to that limit on the Hertz
cases, solved in one load increment from point contact, on a 2-core
machine. It is written by `docs/make_scaling.py` from the benchmark files.

```bash
fecontact bench --out docs/scaling        # both series, about 25 minutes
fecontact bench --series hertz3d --scales 1,0.5 --backend amg --out bench
python docs/make_scaling.py --large       # hertz3d at about 3M DOFs
```

Each size of a series is `cases/hertz2d.toml` or `cases/hertz3d.toml` with
both mesh sizes (`h_contact`, `h_far`) multiplied by `scale`. It is solved
in **one load increment**: Hertz contact is frictionless, so one increment
to the full load is one contact solve. Every size runs in its own process,
so its peak memory (`ru_maxrss`) is its own. The backend is `auto`'s pick
(column *backend*; see [Choosing the linear solver](backend_choice.md)).
The columns are:

- **contact solve**: backend set-up (factorisation or multigrid hierarchy),
  every Newton linear solve, and every residual and Jacobian evaluation.
- **linear solve**: one plain linear-elastic solve of the same system,
  from scratch, in the same run, with the same kind of solver. That is a
  factorisation and solve for `schur`. For `amg` it is the multigrid set-up
  plus the same GMRES to the accuracy of the last Newton step (1e-10
  relative).
- **ratio**: contact solve / linear solve.
- **contact work %**: contact search, kinematics and contact assembly
  (every residual and Jacobian evaluation, including the line search), as
  a share of the whole run.
- **mesh**, **assembly**: generating the mesh, and assembling the bulk
  stiffness.
- **total**: the whole run, including building the model, the
  independent residual check, the Hertz metrics and the linear reference
  solve.

{tables(all_rows, meta)}
![time against DOFs](scaling/bench_time.png)

The raw figures are in [scaling/bench.json](scaling/bench.json) and
[scaling/bench.csv](scaling/bench.csv). Timings vary from run to run on
this machine, most for runs under a few seconds, whose set-up and solve
times are a few hundredths of a second each: read their ratios with
that in mind.{(chr(10) + chr(10) + 'Sizes that failed:' + failed_text) if failed else ''}

## Against the targets

{goals(rows, large)}

{large_text}
## Finding the contact zone: nested iteration

From the undeformed state the semismooth Newton method needs several
iterations to find the contact zone. The first iterate touches only at
the pole; the next closes more than the final zone, and the following ones
release the rim, about half of the excess each time. The number of
iterations therefore grows like the logarithm of the excess counted in
nodes, i.e. with the mesh. With an exact solver (`direct`) the same release
sequence is seen, so it is not the inexact linear solves; and every
iteration costs a linear solve.

From 10,000 unknowns on, frictionless static cases therefore start every
increment from the same increment solved on a coarser model
([nested iteration](developer/decisions/nested-iteration.md)). The model's generators make its meshes
with element sizes times 12 (2D) or 4 (3D), so it has about a tenth of the
unknowns. Its solution, interpolated to the fine nodes, puts the fine
contact zone within a few nodes of the converged one, so the fine Newton
method needs only a few iterations at any size. The column *coarse DOFs,
Newton it.* gives the coarse model's size and its own iterations (they
still grow, on a problem a tenth of the size). Its whole cost (assembly,
solver set-up, solves, transfers) is counted in the contact solve; making
its mesh is counted with the mesh generation.

What remains of the ratio is mostly the last Newton step. Its GMRES
solve goes to a tenth of Newton's tolerance relative to the forces of the
contact state. That is a smaller absolute residual than the linear
reference's 1e-10 relative to its own right-hand side, whose prescribed
displacement without contact produces far larger forces. The constrained
system also converges more slowly per iteration than the free one.

Measured and not adopted (hertz3d at 51k and hertz2d at 93k DOFs, one
increment, `amg`):
- A looser tolerance during the search (0.3 of the residual instead of
  0.1): more Newton iterations for the same GMRES work.
- A tighter one (0.03): one Newton iteration fewer, for more GMRES work.
- The tolerance taken relative to the equilibrium rows alone (hertz2d):
  fewer Newton iterations for much more GMRES work.
- The exact factorisation as preconditioner (`factorization`, hertz2d):
  more GMRES iterations than the multigrid cycle with the contact penalty,
  because it cannot be updated for the constraints.
- A contact-zone prediction on the multigrid's own first coarse level: its
  operator is dense per row, so the prediction cost about what it saved.

## How the large problems are solved

The `amg` backend (`fecontact/solve/projected.py`, `fecontact/solve/krylov.py`,
`fecontact/solve/amg.py`) works in four steps:

1. **Set up once.** It builds one smoothed-aggregation multigrid hierarchy
   of the bulk stiffness (pyamg, with the rigid-body modes as near-null
   space). Every Newton iteration reuses it.
2. **Project onto the constraints.** Closed normal rows and stuck
   tangential rows are constraints `F_c du = b_c`. GMRES solves the Newton
   system on their kernel, so these rows hold exactly. Sliding rows are
   eliminated first.
3. **Update the cycle.** Before each solve, the cycle's level operators
   become those of `K + F_c^T R F_c`, a penalty ten times the stiffness
   diagonal. Only Galerkin products of the penalty are formed, on the
   contact DOFs, and the coarsest level (100 unknowns or fewer) is
   factorised again.
4. **Solve only as accurately as Newton needs.** While the contact status
   changes, each solve goes to 0.1 of the residual. Once the status has
   settled, it goes to a tenth of Newton's tolerance.

The P1 stiffness is assembled by vertex pairs with `np.bincount`. See
the decision records on [the Krylov backends](developer/decisions/krylov-backends.md) and
[P1 assembly by node pairs](developer/decisions/p1-assembly-by-node-pairs.md) for the alternatives measured.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="run hertz3d at about 3M DOFs first")
    parser.add_argument("--scale", type=float, default=LARGE_SCALE)
    args = parser.parse_args(argv)
    if args.large:
        result = run_large(args.scale)
        (DIR / "large.json").write_text(json.dumps(result, indent=1))
        print(f"{result['dofs']:,} DOFs: {result['wall_s']:.0f} s, peak {result['peak_memory_gb']:.2f} GB, "
              f"converged {result['converged']}")
    (ROOT / "docs" / "scaling.md").write_text(page())
    print("wrote docs/scaling.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
