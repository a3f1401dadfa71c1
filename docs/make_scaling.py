"""Write docs/scaling.md from the benchmark files: the Hertz series and the largest run.

Reads ``docs/scaling/bench.json`` (``fecontact bench --out docs/scaling``)
and ``docs/scaling/large.json``, which ``--large`` writes by running
``hertz3d`` at about 3 million DOFs as a user would (``fecontact run``, one
increment, no linear reference, no VTU files) in a child process whose peak
memory is its own.  Without ``--large`` nothing is measured: the page is
rendered from the saved files.

    fecontact bench --repeat 3 --out docs/scaling      # both series, three times, about 25 minutes
    python docs/make_scaling.py --large                 # the 3M-DOF run, about 12 minutes
    python docs/make_scaling.py --large --scale 0.128 --name large5m   # about 5M DOFs
    python docs/make_scaling.py                         # the page alone, from the saved files

``--large`` runs write ``docs/scaling/<name>.json``; every such file in the
folder is shown on the page.
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


def run_large(scale: float = LARGE_SCALE, compare_linear: bool = False) -> dict:
    """``fecontact run cases/hertz3d.toml`` at ``scale`` in a child process: wall time, peak memory, summary.

    With ``compare_linear`` the run also times the linear reference solve
    (``solver.compare_linear``), after the contact solve: the peak memory
    then includes its second preconditioner set-up.
    """
    with tempfile.TemporaryDirectory(prefix="fecontact-large-") as out:
        cmd = [sys.executable, "-m", "fecontact", "run", str(ROOT / "cases" / "hertz3d.toml"),
               "--out", out, "--quiet", "--set", "steps.count=1", "--set", "output.vtu=false",
               "--set", f"bodies.0.mesh.h_contact={0.01 * scale:.10g}",
               "--set", f"bodies.0.mesh.h_far={0.15 * scale:.10g}",
               "--set", f"solver.compare_linear={'true' if compare_linear else 'false'}"]
        tic = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - tic
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024.0
        summary = json.loads((Path(out) / "summary.json").read_text())
    s = summary
    return dict(scale=scale, returncode=proc.returncode, wall_s=wall, peak_memory_gb=peak / 1e9,
                compare_linear=compare_linear,
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


def _pair(r: dict, key: str) -> str:
    """The minimum and median over the repeats of a figure (``ratio``, ``contact_solve``, ``linear_solve``)."""
    if r.get("repeats", 1) > 1:
        lo, mid = (r.get(f"{key}_min_s"), r.get(f"{key}_median_s")) if key != "ratio" else (
            r.get("ratio_min"), r.get("ratio_median"))
        return f"{_fmt(lo, '.2f')}, {_fmt(mid, '.2f')}"
    return _fmt(r.get(key if key == "ratio" else f"{key}_s"), ".2f")


def _ratio(r: dict):
    """The ratio a target is judged by: the minimum over the repeats (the single run's otherwise)."""
    return r.get("ratio_min", r.get("ratio"))


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
    timing = ["| case | DOFs | runs | contact solve s (min, median) | linear solve s (min, median) "
              "| ratio (min, median) | contact work % | mesh s | assembly s | total s | peak GB "
              "| kB per DOF |", "|" + "---|" * 12]
    for r in ok:
        timing.append(f"| {r['series']} | {r['dofs']:,} | {r.get('repeats', 1)} | "
                      f"{_pair(r, 'contact_solve')} | {_pair(r, 'linear_solve')} | "
                      f"{_pair(r, 'ratio')} | "
                      f"{100 * r['contact_share']:.1f} | {_fmt(r.get('mesh_s'), '.2f')} | "
                      f"{_fmt(r.get('assembly_s'), '.2f')} | {r['total_s']:.1f} | "
                      f"{r['peak_memory_gb']:.2f} | {1e6 * r['peak_memory_gb'] / r['dofs']:.2f} |")
    note = (f"Measured on {meta['machine']}, {meta['cpus']} CPUs, CPython {meta['python']}, "
            f"{meta['date']}.")
    return ("### Problem size and solver\n\n" + "\n".join(solver) + "\n\n### Time and memory\n\n"
            + "\n".join(timing) + "\n\n" + note + "\n")


def goals(rows: list, larges: list) -> str:
    """The targets against the figures of ``rows`` and the large runs.

    Contact solve / linear solve <= 1.3 (minimum over the repeats), 2D from
    10k to 1.4M DOFs and 3D from 50k to 3M; memory <= 2.5 kB per DOF at about
    1M DOFs in 3D; hertz3d at 5M DOFs in <= 10 minutes.
    """
    lines = ["| target | measured | met |", "|---|---|---|"]
    for series, lo, hi in (("hertz2d", 10_000, 1_400_000), ("hertz3d", 50_000, 3_000_000)):
        sel = [r for r in rows if r["series"] == series and lo <= r["dofs"] <= 1.05 * hi]
        sel += [dict(L, series=series, ratio=L["ratio"]) for L in larges
                if series == "hertz3d" and L.get("ratio") is not None]
        if not sel:
            continue
        ratios = [_ratio(r) for r in sel if _ratio(r) is not None]
        worst = max(sel, key=lambda r: _ratio(r) or 0.0)
        runs = min(r.get("repeats", 1) for r in sel)
        lines.append(f"| {series}: contact solve / linear solve <= 1.3, {lo:,} to {hi:,} DOFs "
                     f"| {_span(ratios)} over {len(sel)} sizes ({min(r['dofs'] for r in sel):,} to "
                     f"{max(r['dofs'] for r in sel):,} DOFs, minimum of {runs} or more runs each); "
                     f"worst at {worst['dofs']:,} | {'yes' if max(ratios) <= 1.3 else 'no'} |")
        newton = [r["newton_iterations"] for r in sel]
        lines.append(f"| {series}: Newton iterations within +-2 over the sizes | {min(newton)} to "
                     f"{max(newton)} | {'yes' if max(newton) - min(newton) <= 4 else 'no'} |")
    near = [r for r in rows if r["series"] == "hertz3d" and r["dofs"] >= 900_000]
    near += larges
    if near:
        r = min(near, key=lambda r: abs(r["dofs"] - 1_000_000))
        kb = 1e6 * r["peak_memory_gb"] / r["dofs"]
        what = "bench, with the linear reference" if "series" in r else "fecontact run"
        lines.append(f"| hertz3d at about 1M DOFs: <= 2.5 kB per DOF | {r['dofs']:,} DOFs ({what}): "
                     f"{r['peak_memory_gb']:.2f} GB, {kb:.2f} kB per DOF | {'yes' if kb <= 2.5 else 'no'} |")
    for L in larges:
        t = L["timings"]
        target = 600 if L["dofs"] >= 4_500_000 else 900
        ok = L["converged"] and L["wall_s"] <= target
        lines.append(f"| hertz3d at {L['dofs'] / 1e6:.1f}M DOFs in <= {target // 60} min, peak memory reported "
                     f"| whole run {L['wall_s']:.0f} s ({L['wall_s'] / 60:.1f} min), peak "
                     f"{L['peak_memory_gb']:.2f} GB ({1e6 * L['peak_memory_gb'] / L['dofs']:.2f} kB "
                     f"per DOF); mesh {t['build_mesh']:.0f} s, assembly {t['build_assembly']:.0f} s, "
                     f"contact solve {t['contact_solve']:.0f} s | {'yes' if ok else 'no'} |")
    return "\n".join(lines)


def large_runs() -> list:
    """Every ``docs/scaling/large*.json``, smallest first, each with its linear-reference ratio if timed."""
    runs = []
    for path in sorted(DIR.glob("large*.json")):
        L = json.loads(path.read_text())
        t = L["timings"]
        ref = t.get("linear_reference")
        L["ratio"] = t["contact_solve"] / ref if ref else None
        L["name"] = path.stem
        runs.append(L)
    return sorted(runs, key=lambda L: L["dofs"])


def large_section(L: dict) -> str:
    """One large run as a paragraph."""
    t = L["timings"]
    m = L["metrics"].get("peak_pressure", {})
    ref = (f" The linear reference solve of the same system took {t['linear_reference']:.0f} s: "
           f"ratio {L['ratio']:.2f} (one run)." if L.get("ratio") else "")
    return f"""
### {L['dofs']:,} DOFs

`python docs/make_scaling.py --large --scale {L['scale']:g} --name {L['name']}`
runs `cases/hertz3d.toml` with both mesh sizes times {L['scale']:g}, in one
increment, as a user would (`fecontact run`, no VTU files), in a child
process: {L['dofs']:,} DOFs, {L['contact_nodes']:,} contact nodes, backend
`{L['backend']}`, {L['newton_iterations']} Newton iterations, converged:
{L['converged']}. Whole run {L['wall_s']:.0f} s; of it mesh generation
{t['build_mesh']:.0f} s, assembly {t['build_assembly']:.0f} s, contact solve
{t['contact_solve']:.0f} s (set-up {t['setup_factorization']:.0f} s).{ref} Peak
memory {L['peak_memory_gb']:.2f} GB ({1e6 * L['peak_memory_gb'] / L['dofs']:.2f} kB per
DOF). Peak pressure {100 * (m.get('rel_error') or 0):.2f} % from Hertz.
Measured {L['meta']['date']}.

`auto`'s reason: {L.get('backend_choice') or '–'}
"""


def page() -> str:
    """The Markdown of docs/scaling.md."""
    rows, meta, all_rows = _rows(DIR / "bench.json")
    larges = large_runs()
    large_text = ("\n## The largest runs\n" + "".join(large_section(L) for L in larges)) if larges else ""
    failed = [r for r in all_rows if "error" in r]
    failed_text = "".join(f"\n- {r['series']} at scale {r['scale']}: {r['error']}" for r in failed)
    return f"""# Performance at scale

A contact solve cannot cost less than one linear solve of the same system.
This page measures how close `fecontact` comes to that limit on the Hertz
cases, solved in one load increment from point contact, on a 2-core
machine. It is written by `docs/make_scaling.py` from the benchmark files.

```bash
fecontact bench --repeat 3 --out docs/scaling   # both series, three runs of each size
fecontact bench --series hertz3d --scales 1,0.5 --backend amg --out bench
python docs/make_scaling.py --large --compare-linear   # hertz3d at about 3M DOFs
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
- **runs**: how many times the size was solved (`--repeat`), each run in
  its own process with its own linear reference right after it. The
  contact solve, the linear solve and their ratio are given as the minimum
  and the median over the runs; the targets are judged by the minimum
  ratio, since on a shared machine a single run's ratio moves by a factor
  of several between runs.
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

{goals(rows, larges)}

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
    parser.add_argument("--name", default="large", help="the large run's file, docs/scaling/NAME.json")
    parser.add_argument("--compare-linear", action="store_true",
                        help="also time the linear reference solve of the large run")
    args = parser.parse_args(argv)
    if args.large:
        if not args.name.startswith("large"):
            parser.error("--name must start with 'large'")
        result = run_large(args.scale, args.compare_linear)
        (DIR / f"{args.name}.json").write_text(json.dumps(result, indent=1))
        print(f"{result['dofs']:,} DOFs: {result['wall_s']:.0f} s, peak {result['peak_memory_gb']:.2f} GB, "
              f"converged {result['converged']}")
    (ROOT / "docs" / "scaling.md").write_text(page())
    print("wrote docs/scaling.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
