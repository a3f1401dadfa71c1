"""Every linear-solver backend on every bundled case and Gmsh mesh: how good is ``auto``'s choice?

Each (problem, backend) pair runs in its own process (``fecontact run
CASE --set solver.backend=NAME``, no VTU files) with a time limit; the
time compared is the run's own ``timings.total`` (model building included:
it is the same for every backend).  The problems are every case in
``cases/`` and the Gmsh meshes of ``meshes/`` not used by a bundled case:
``block.msh`` (4-node tetrahedra) and ``block_p2.msh`` (10-node) indented
by a rigid sphere with Coulomb friction, and ``half_disc.msh`` (3-node
triangles) as ``hertz2d_gmsh``.

Written: ``docs/backend_choice.json`` (every figure, kept between runs:
``--backends auto`` measures ``auto`` again and keeps the named backends'
figures) and ``docs/backend_choice.md`` (the page, from the JSON alone with
``--page-only``).

    python docs/make_backend_choice.py                   # everything, about an hour (repeats)
    python docs/make_backend_choice.py --backends auto   # auto again, after changing the choice
    python docs/make_backend_choice.py --page-only
    python docs/make_backend_choice.py --calibrate       # the cost model's timings, a few minutes
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
JSON = DOCS / "backend_choice.json"
CALIBRATION = DOCS / "backend_calibration.json"
PAGE = DOCS / "backend_choice.md"
NAMED = ("direct", "schur", "amg", "factorization")
#: a run that takes longer than this is stopped and reported as "> LIMIT"
LIMIT = 120.0

BLOCK = """name = "{name}"
description = "Gmsh block {mesh} indented by a rigid sphere, Coulomb friction."

[[bodies]]
name = "block"
element = "{element}"
mesh = {{ file = "{path}" }}
material = {{ E = 1.0e3, nu = 0.3 }}

[[bodies.dirichlet]]
boundary = "bottom"
components = ["x", "y", "z"]
value = 0.0

[[contact]]
name = "sphere-on-block"
slave = {{ body = "block", boundary = "top" }}
master = {{ obstacle = "sphere", center = [0.5, 0.5, 2.5], radius = 2.0, displacement = [0.05, 0.0, -0.04] }}
friction = {{ law = "coulomb", mu = 0.3 }}

[steps]
count = 4
"""


def problems(tmp: Path) -> dict:
    """``name -> case file``: the bundled cases and the Gmsh-mesh variants written into ``tmp``."""
    found = {p.stem: p for p in sorted((ROOT / "cases").glob("*.toml"))}
    for mesh, element in (("block.msh", "P1"), ("block_p2.msh", "P2")):
        name = f"gmsh_{Path(mesh).stem}"
        path = tmp / f"{name}.toml"
        path.write_text(BLOCK.format(name=name, mesh=mesh, element=element,
                                     path=(ROOT / "meshes" / mesh).as_posix()))
        found[name] = path
    text = (ROOT / "cases" / "hertz2d_gmsh.toml").read_text()
    text = text.replace('name = "hertz2d_gmsh"', 'name = "gmsh_half_disc"')
    text = text.replace('element = "P2"', 'element = "P1"')
    text = text.replace("../meshes/half_disc_p2.msh", (ROOT / "meshes" / "half_disc.msh").as_posix())
    path = tmp / "gmsh_half_disc.toml"
    path.write_text(text)
    found["gmsh_half_disc"] = path
    return found


def measure_repeated(case: Path, backend: str, repeat: int, below: float = 30.0) -> dict:
    """:func:`measure` up to ``repeat`` times, the fastest run kept, every run's total in ``totals``.

    A run is repeated only while the runs converge and take less than
    ``below`` seconds: above that, two runs of the same backend differ by a
    few per cent on this machine, far less than the differences between
    backends, and a run stopped at :data:`LIMIT` is not run again.
    """
    runs = [measure(case, backend)]
    while len(runs) < repeat and runs[-1].get("ok") and runs[-1]["total"] < below:
        runs.append(measure(case, backend))
    ok = [r for r in runs if r.get("ok")]
    best = dict(min(ok, key=lambda r: r["total"]) if ok else runs[0])
    best["totals"] = [r["total"] for r in ok]
    return best


def measure(case: Path, backend: str) -> dict:
    """One run in its own process: time, Newton iterations, the backend used and ``auto``'s reason."""
    with tempfile.TemporaryDirectory(prefix="fecontact-choice-") as out:
        cmd = [sys.executable, "-m", "fecontact", "run", str(case), "--out", out, "--quiet",
               "--set", f"solver.backend={backend}", "--set", "output.vtu=false"]
        tic = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT)
        except subprocess.TimeoutExpired:
            return dict(backend=backend, ok=False, error=f"> {LIMIT:g} s", wall=LIMIT)
        wall = time.perf_counter() - tic
        summary = Path(out) / "summary.json"
        if not summary.exists():
            lines = (proc.stderr.strip() or proc.stdout.strip() or "failed").splitlines()
            return dict(backend=backend, ok=False, error=lines[-1][:200], wall=wall)
        s = json.loads(summary.read_text())
    t = s.get("timings", {})
    steps = s.get("steps", [])
    return dict(backend=backend, used=s.get("backend"), ok=bool(s.get("converged")), wall=wall,
                total=t.get("total"), contact_solve=t.get("contact_solve"),
                krylov=t.get("krylov_iterations"),
                newton=sum(st.get("newton_iterations", 0) for st in steps) if steps else None,
                dofs=s.get("reduced_dofs"), dim=s.get("dim"), analysis=s.get("analysis"),
                choice=s.get("backend_choice"))


#: systems whose factorisation, substitution and multigrid costs are timed by ``--calibrate``
CALIBRATE = (("hertz2d", ()), ("hertz2d", ("bodies.0.mesh.h_contact=0.0005", "bodies.0.mesh.h_far=0.04")),
             ("hertz2d", ("bodies.0.mesh.h_contact=0.00025", "bodies.0.mesh.h_far=0.02")),
             ("oring2d", ()), ("hertz3d", ("bodies.0.mesh.h_contact=0.014", "bodies.0.mesh.h_far=0.21")),
             ("hertz3d", ()), ("hertz3d", ("bodies.0.mesh.h_contact=0.007", "bodies.0.mesh.h_far=0.105")),
             ("ironing3d", ()), ("gmsh_block_p2", ()), ("cattaneo3d", ()))


def calibrate(found: dict) -> list:
    """Time one Cholesky factorisation, one substitution (alone and in a block of 64), the multigrid
    set-up and one V-cycle of each :data:`CALIBRATE` system, with the cost model's own figures."""
    import numpy as np

    from fecontact.run.static import prepare
    from fecontact.solve.amg import AMG, rigid_body_modes
    from fecontact.solve.choice import problem_size
    from fecontact.solve.factor import factorize

    rows = []
    for name, overrides in CALIBRATE:
        _, model = prepare(found[name], list(overrides))
        size = problem_size(model.problem)
        K = model.problem.system.K_hat.tocsr()
        x = np.random.default_rng(0).random(K.shape[0])

        def timed(f, repeat=1):
            tic = time.perf_counter()
            for _ in range(repeat):
                out = f()
            return (time.perf_counter() - tic) / repeat, out

        t_factor, factor = timed(lambda: factorize(K))
        t_solve, _ = timed(lambda: factor.solve(x), 3)
        t_block, _ = timed(lambda: factor.solve(np.tile(x[:, None], (1, 64))))
        factor = None
        if not size.supported:
            t_setup = t_cycle = None
        else:
            t_setup, amg = timed(lambda: AMG(K, rigid_body_modes(model.problem.system)))
            t_cycle, _ = timed(lambda: amg(x), 5)
        s = size.separators.astype(float)
        rows.append(dict(problem=name, overrides=list(overrides), n=size.n, nnz=size.nnz,
                         separator=int(s.max()), sum_s3=float(np.sum(s ** 3)),
                         sum_s2=float(np.sum(s ** 2)), contact_dofs=size.contact_dofs,
                         factorisation=t_factor, substitution=t_solve, block_column=t_block / 64,
                         amg_setup=t_setup, v_cycle=t_cycle))
        print(f"calibrate {name} {size.n:,} unknowns: factorisation {t_factor:.3f} s, substitution "
              f"{t_solve:.4f} s, separator {int(s.max())}", flush=True)
    return rows


def calibration_table(rows: list) -> str:
    """The calibration figures and how well ``s^3`` and ``n^2`` describe the factorisation."""
    lines = ["| system | unknowns | entries | top separator s | factorisation s | F / s^3 | F / n^2 "
             "| substitution s | block column s | multigrid set-up s | V-cycle s |", "|" + "---|" * 11]
    for r in rows:
        label = r["problem"] + (" (finer)" if r["overrides"] else "")
        fmt = (lambda v, f: "–" if v is None else format(v, f))
        lines.append(f"| {label} | {r['n']:,} | {r['nnz']:,} | {r['separator']:,} | "
                     f"{r['factorisation']:.3f} | {r['factorisation'] / r['sum_s3']:.2e} | "
                     f"{r['factorisation'] / r['n'] ** 2:.2e} | {r['substitution']:.4f} | "
                     f"{r['block_column']:.4f} | {fmt(r['amg_setup'], '.3f')} | {fmt(r['v_cycle'], '.4f')} |")
    three = [r for r in rows if r["separator"] > 300]
    spread = (lambda v: max(v) / min(v))
    if three:
        lines += ["", f"Over the {len(three)} systems with a separator above 300 (3D), F / s^3 spans a "
                  f"factor {spread([r['factorisation'] / r['sum_s3'] for r in three]):.1f} and F / n^2 a "
                  f"factor {spread([r['factorisation'] / r['n'] ** 2 for r in three]):.1f}."]
    return "\n".join(lines)


def crossovers(cal: dict) -> str:
    """Modelled crossovers: the cheapest backend as the size grows, by dimension and number of
    increments, scaling the calibration's Hertz systems (separator and contact unknowns like
    n^(2/3) in 3D and n^(1/2) in 2D, stored entries like n)."""
    import numpy as np

    from fecontact.solve.choice import ProblemSize, estimate_costs

    lines = ["| family | increments | cheapest backend as the size grows (from this many unknowns) |",
             "|---|---|---|"]
    for name, power in (("hertz2d", 0.5), ("hertz3d", 2.0 / 3.0)):
        anchor = next(r for r in cal["rows"] if r["problem"] == name and not r["overrides"])
        for increments in (1, 10, 100):
            steps, last = [], None
            for n in np.geomspace(1e3, 1e7, 241):
                f = n / anchor["n"]
                size = ProblemSize(n=int(n), nnz=int(anchor["nnz"] * f),
                                   separators=np.array([max(1, round(anchor["separator"] * f ** power))]),
                                   contact_dofs=int(anchor["contact_dofs"] * f ** power),
                                   increments=increments, supported=True)
                est = {k: e for k, e in estimate_costs(size).items() if e.fits}
                best = min(est, key=lambda k: est[k].seconds)
                if best != last:
                    steps.append(f"`{best}` ({int(n):,})" if last else f"`{best}`")
                    last = best
            lines.append(f"| {name} | {increments} | {' → '.join(steps)} |")
    return "\n".join(lines)


#: the bench series' sizes each backend is measured at (``--series``): 2D up to 209k unknowns, 3D to
#: 100k (beyond them the factorising backends take minutes per run and ``amg`` is the only candidate)
SERIES_SCALES = {"hertz2d": "2.0,1.0,0.5,0.25,0.125", "hertz3d": "2.0,1.4,1.0,0.7"}
SERIES_DIR = DOCS / "backend_choice"


def run_series(backends, repeat: int) -> None:
    """``fecontact bench`` of each series with each backend (and ``auto``), into ``docs/backend_choice/``."""
    for backend in backends:
        for series, scales in SERIES_SCALES.items():
            out = SERIES_DIR / f"{series}-{backend}"
            cmd = [sys.executable, "-m", "fecontact", "bench", "--series", series, "--scales", scales,
                   "--backend", backend, "--repeat", str(repeat), "--timeout", str(LIMIT),
                   "--out", str(out)]
            subprocess.run(cmd, check=False)


def series_table() -> str:
    """Per size of the bench series: each backend's contact solve (minimum over the runs), ``auto``'s pick."""
    found = {}
    for path in sorted(SERIES_DIR.glob("*/bench.json")):
        series, backend = path.parent.name.split("-", 1)
        for r in json.loads(path.read_text())["rows"]:
            found.setdefault((series, r["scale"]), {})[backend] = r
    if not found:
        return ""
    lines = ["| series | DOFs | " + " | ".join(f"{b} s" for b in NAMED)
             + " | best | auto picks | auto s | auto / best |", "|" + "---|" * (len(NAMED) + 6)]
    worst = []
    for (series, scale), runs in sorted(found.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        times = {b: r.get("contact_solve_min_s", r.get("contact_solve_s")) for b, r in runs.items()
                 if b in NAMED and "error" not in r}
        auto = runs.get("auto", {})
        dofs = next((r["dofs"] for r in runs.values() if "dofs" in r), None)
        if not times or dofs is None:
            continue
        best = min(times, key=times.get)
        cells = [f"{times[b]:.2f}" if b in times else ("–" if b not in runs else "fails / limit")
                 for b in NAMED]
        if "error" in auto or not auto:
            tail = "– | – | –"
        else:
            a = auto.get("contact_solve_min_s", auto.get("contact_solve_s"))
            worst.append((a / times[best], f"{series} {dofs:,}"))
            tail = f"{auto['backend']} | {a:.2f} | {a / times[best]:.2f}"
        lines.append(f"| {series} | {dofs:,} | " + " | ".join(cells) + f" | {best} | {tail} |")
    w = max(worst) if worst else (float("nan"), "–")
    return ("\n## The bench series\n\nThe sizes of `fecontact bench`'s Hertz series "
            "(one increment from point contact), each backend run with `--repeat` and its contact "
            "solve's minimum over the runs (set-up, linear solves, contact work and nested iteration; "
            "model building is the same for every backend and left out):\n\n"
            "```bash\npython docs/make_backend_choice.py --series   # writes docs/backend_choice/\n```\n\n"
            + "\n".join(lines) + f"\n\nWorst: auto at {w[0]:.2f} times the best ({w[1]}).\n")


def render(data: dict) -> str:
    """The page from the JSON: one row per problem, each backend's time, ``auto``'s pick and its ratio to the best."""
    rows, worst = [], []
    for name, runs in data["problems"].items():
        times = {b: r["total"] for b, r in runs.items() if b in NAMED and r.get("ok")}
        best = min(times.values()) if times else None
        best_name = min(times, key=times.get) if times else "–"
        auto = runs.get("auto", {})
        cells = []
        for b in NAMED:
            r = runs.get(b)
            if r is None:
                cells.append("")
            elif r.get("ok"):
                cells.append(f"{r['total']:.2f}")
            else:
                error = r.get("error", "")
                cells.append("n/a" if "held only by contact" in error
                             else error if error.startswith(">") else "fails")
        picked = auto.get("used") or "(not reported)"
        # the pick's own measured time against the best, and auto's own run; a dynamic run does not
        # report its backend, so there only auto's own run counts
        auto_ratio = auto["total"] / best if best and auto.get("ok") else float("nan")
        pick_ratio = times[picked] / best if best and picked in times else auto_ratio
        worst.append((pick_ratio, name))
        dofs = next((r["dofs"] for r in runs.values() if r.get("dofs")), None)
        rows.append(f"| {name} | {dofs:,} | " + " | ".join(cells)
                    + f" | {best_name} | {picked} | {pick_ratio:.2f} | "
                    + (f"{auto['total']:.2f} ({auto_ratio:.2f})" if auto.get("ok") else "–") + " |")
    head = ("| problem | reduced DOFs | direct s | schur s | amg s | factorization s | best | auto picks "
            "| pick / best | auto run s (/ best) |\n|" + "---|" * 10)
    meta = data["meta"]
    finite = [w for w in worst if w[0] == w[0]]
    worst_ratio, worst_name = max(finite) if finite else (float("nan"), "–")
    reasons = "\n".join(f"- **{name}**: {runs['auto']['choice']}"
                        for name, runs in data["problems"].items()
                        if runs.get("auto", {}).get("choice"))
    calibration = ""
    if CALIBRATION.exists():
        cal = json.loads(CALIBRATION.read_text())
        calibration = ("\n## Calibration of the cost model\n\nTimed with `--calibrate` on "
                       f"{cal['meta']['date']} (same machine):\n\n" + calibration_table(cal["rows"]) + "\n"
                       "\n## Crossovers\n\nThe backend the model finds cheapest for a Hertz-like "
                       "problem, scaled from the calibration's `hertz2d` and `hertz3d` (top separator and "
                       "contact unknowns growing like $n^{1/2}$ in 2D and $n^{2/3}$ in 3D, stored entries "
                       "like $n$), from 1,000 to 10 million unknowns, for one, ten and a hundred increments. "
                       "One factorisation serves every increment, so the crossovers move up with the number "
                       "of increments:\n\n"
                       + crossovers(cal) + "\n")
    return f"""# Choosing the linear solver

`solver.backend = "auto"` (the default) picks the backend of every run
from a cost estimate; see [the solver page](theory.md) and
[the decision record](developer/decisions/auto-cost-model.md).  This page checks the pick against every
backend, measured on every bundled case and on the Gmsh meshes of
`meshes/`: `gmsh_block` and `gmsh_block_p2` (the 4-node and 10-node
tetrahedral `block.msh` and `block_p2.msh` indented by a rigid sphere
with Coulomb friction, 4 increments) and `gmsh_half_disc` (`half_disc.msh`,
3-node triangles, as `hertz2d_gmsh`).

```bash
python docs/make_backend_choice.py                   # every backend, about an hour
python docs/make_backend_choice.py --backends auto   # auto again
```

Each (problem, backend) pair runs up to three times (`--repeat`) while
its runs take under 30 s, and the fastest run counts; longer runs once.
Times are the runs' `timings.total` in seconds (model building included,
which is the same for every backend); "n/a" is a Krylov backend refused
because a body is held only by contact, "> {LIMIT:g} s" a run stopped at
that time limit, "fails" one that did not converge. **pick / best** is the measured
time of the backend `auto` picked over the fastest one's; the last column
is `auto`'s own run (its estimate included) and its ratio to the best;
dynamic runs do not report the backend they used, so for them
**pick / best** is that ratio. Below about half a second, differences between single runs are within
this machine's timing noise (compare a pick's column with `auto`'s own
run).

{head}
{chr(10).join(rows)}

Worst pick: {worst_ratio:.2f} times the best ({worst_name}).

Measured on {meta['machine']}, {meta['cpus']} CPUs, CPython {meta['python']}, {meta['date']}.

## Why `auto` picked what it picked

The reason `auto` logged for each problem (also in the run's
`summary.json`, `backend_choice`):

{reasons}
{series_table()}{calibration}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=",".join(("auto",) + NAMED))
    parser.add_argument("--problems", default="", help="comma-separated names (default all)")
    parser.add_argument("--page-only", action="store_true")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each (problem, backend) shorter than 30 s, the fastest kept (default 3)")
    parser.add_argument("--calibrate", action="store_true",
                        help="time factorisation, substitution and multigrid on the calibration systems")
    parser.add_argument("--series", action="store_true",
                        help="run the bench series with every backend (docs/backend_choice/)")
    args = parser.parse_args(argv)
    data = json.loads(JSON.read_text()) if JSON.exists() else dict(problems={})
    if args.series:
        run_series([b for b in args.backends.split(",") if b], args.repeat)
    elif args.calibrate:
        with tempfile.TemporaryDirectory(prefix="fecontact-cases-") as tmp:
            rows = calibrate(problems(Path(tmp)))
        meta = dict(machine=platform.machine(), cpus=os.cpu_count(), python=platform.python_version(),
                    date=time.strftime("%Y-%m-%d"))
        CALIBRATION.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    elif not args.page_only:
        backends = [b for b in args.backends.split(",") if b]
        with tempfile.TemporaryDirectory(prefix="fecontact-cases-") as tmp:
            found = problems(Path(tmp))
            wanted = [n for n in args.problems.split(",") if n] or list(found)
            for name in wanted:
                runs = data["problems"].setdefault(name, {})
                for backend in backends:
                    runs[backend] = r = measure_repeated(found[name], backend, args.repeat)
                    print(f"{name:28s} {backend:14s} "
                          + (f"{r['total']:8.2f} s  newton {r['newton']}  used {r['used']}"
                             if r.get("ok") else f"FAILED: {r.get('error', 'not converged')}"),
                          flush=True)
                    data["meta"] = dict(machine=platform.machine(), cpus=os.cpu_count(),
                                        python=platform.python_version(),
                                        date=time.strftime("%Y-%m-%d"))
                    JSON.write_text(json.dumps(data, indent=1))
    if "meta" in data:
        PAGE.write_text(render(data))
        print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
