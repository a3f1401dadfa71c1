"""``fecontact bench``: contact solves against one plain linear solve, over a range of mesh sizes.

Each series refines one benchmark case by scaling its mesh sizes
(``h_contact`` and ``h_far`` times ``scale``) and solves it in one load
increment (Hertz contact is frictionless, so the load path does not matter
and one increment is one contact solve).  Every size runs in its own
process, so its peak memory (``ru_maxrss``) is its own; after every size
the table is written again, so a size that fails or is interrupted loses
nothing already measured.

With ``repeat = N`` every size runs ``N`` times, one process each,
interleaved with its own linear reference (every run times both); the row
of the size keeps the fastest run's figures and adds the minimum and median
over the runs of the contact solve, of the linear solve and of their ratio
(``*_min_s``, ``*_median_s``, ``ratio_min``, ``ratio_median``): single
runs on a busy machine are not a dependable figure, the minimum over
repeats is.

Written to ``--out``: ``bench.json`` (every figure), ``bench.csv``,
``bench.md`` (the table for the docs) and ``bench_time.png`` (log-log
time against DOFs).  Figures are printed, never asserted.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..io.atomic import replacing, save_figure, write_text

#: case file, the two mesh-size keys with their values at scale 1, and default scales
SERIES = {
    "hertz2d": dict(case="hertz2d.toml", keys=("bodies.0.mesh.h_contact", "bodies.0.mesh.h_far"),
                    sizes=(0.001, 0.08), scales=(4.0, 2.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125)),
    "hertz3d": dict(case="hertz3d.toml", keys=("bodies.0.mesh.h_contact", "bodies.0.mesh.h_far"),
                    sizes=(0.01, 0.15), scales=(2.0, 1.4, 1.0, 0.7, 0.5, 0.35, 0.225)),
}

COLUMNS = ("series", "scale", "dofs", "contact_nodes", "active_nodes", "backend",
           "newton_iterations", "krylov_iterations", "contact_solve_s", "linear_solve_s",
           "ratio", "setup_s", "contact_work_s", "contact_share", "build_s", "mesh_s", "assembly_s",
           "total_s", "peak_memory_gb", "peak_pressure_error", "converged", "coarse_dofs",
           "coarse_newton_iterations", "nested_s", "repeats", "contact_solve_min_s",
           "contact_solve_median_s", "linear_solve_min_s", "linear_solve_median_s", "ratio_min",
           "ratio_median")


def repeated(runs: list) -> dict:
    """One row of a size measured several times: the fastest run's figures with the minimum and
    median of the contact solve, the linear solve and their ratio over the runs.

    Parameters
    ----------
    runs : list of dict
        Rows of :func:`measure` (with ``series``) of one size; failed runs (``error``) are
        left out, and if every run failed the first failure is returned.

    Returns
    -------
    dict
    """
    import numpy as np

    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    contact = np.array([r["contact_solve_s"] for r in ok])
    linear = np.array([r["linear_solve_s"] for r in ok])
    ratio = np.array([r["ratio"] for r in ok if r.get("ratio") is not None])
    row = dict(min(ok, key=lambda r: r["contact_solve_s"]))
    row.update(repeats=len(ok), contact_solve_min_s=float(contact.min()),
               contact_solve_median_s=float(np.median(contact)),
               linear_solve_min_s=float(linear.min()), linear_solve_median_s=float(np.median(linear)),
               ratio_min=float(ratio.min()) if ratio.size else None,
               ratio_median=float(np.median(ratio)) if ratio.size else None,
               converged=all(r.get("converged") for r in ok))
    return row


def measure(case_path: str, scale: float, backend: str, keys, sizes) -> dict:
    """Solve one size in this process and return its figures (see :data:`COLUMNS`)."""
    import numpy as np

    from ..friction import closed
    from .static import run

    overrides = [f"{k}={v * scale:.10g}" for k, v in zip(keys, sizes)]
    overrides += ["steps.count=1", f"solver.backend={backend}", "solver.compare_linear=true"]
    with tempfile.TemporaryDirectory(prefix="fecontact-bench-") as out:
        tic = time.perf_counter()
        result = run(case_path, out, overrides, write_vtu_files=False)
        wall = time.perf_counter() - tic
    s = result.summary
    t = s["timings"]
    state = result.state
    metrics = s.get("metrics", {})
    nested = s.get("nested") or {}                 # the coarse model of nested iteration, if any
    contact_solve = t["contact_solve"]
    linear = t["linear_reference"]
    return dict(
        scale=scale, dofs=s["dofs"], reduced_dofs=s["reduced_dofs"], contact_nodes=s["contact_nodes"],
        active_nodes=int(np.sum(closed(state.status))), backend=s["backend"],
        newton_iterations=sum(st["newton_iterations"] for st in s["steps"]),
        krylov_iterations=t.get("krylov_iterations"),
        contact_solve_s=contact_solve, linear_solve_s=linear,
        ratio=contact_solve / linear if linear else None,
        setup_s=t["setup_factorization"], contact_work_s=t["contact"],
        contact_share=t["contact"] / wall, build_s=t["build"], mesh_s=t["build_mesh"],
        assembly_s=t["build_assembly"],
        total_s=wall, peak_memory_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
        peak_pressure_error=metrics.get("peak_pressure", {}).get("rel_error"),
        coarse_dofs=nested.get("coarse_dofs"),
        coarse_newton_iterations=nested.get("newton_iterations"),
        nested_s=t.get("nested"),
        converged=bool(s["converged"]), overrides=overrides)


def _worker(argv) -> int:
    case_path, scale, backend, series, target = argv
    spec = SERIES[series]
    row = measure(case_path, float(scale), backend, spec["keys"], spec["sizes"])
    write_text(target, json.dumps(row))
    return 0


def run_series(names, cases_dir: Path, out: Path, backend: str = "auto", scales=None,
               timeout: float = 3600.0, echo=print, repeat: int = 1) -> list:
    """Run every size of the named series, ``repeat`` times, one process each; write the tables
    after each size."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        spec = SERIES[name]
        case_path = cases_dir / spec["case"]
        for scale in (scales or spec["scales"]):
            runs = [_one_run(case_path, scale, backend, name, out, timeout) for _ in range(repeat)]
            row = repeated(runs) if repeat > 1 else runs[0]
            rows.append(row)
            echo(format_row(row))
            write_tables(rows, out)
    return rows


def _one_run(case_path: Path, scale: float, backend: str, name: str, out: Path,
             timeout: float) -> dict:
    """One size measured in its own process: its row, or a row with ``error``."""
    target = out / f".{name}-{scale}.json"
    cmd = [sys.executable, "-m", "fecontact.run.bench", str(case_path), str(scale), backend,
           name, str(target)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        ok = proc.returncode == 0 and target.exists()
        reason = "" if ok else (proc.stderr.strip().splitlines() or ["failed"])[-1]
    except subprocess.TimeoutExpired:
        ok, reason = False, f"timed out after {timeout:g} s"
    if ok:
        row = dict(series=name, **json.loads(target.read_text()))
        target.unlink()
        return row
    return dict(series=name, scale=scale, converged=False, error=reason)


def format_row(row: dict) -> str:
    """One line of progress for a measured (or failed) size: DOFs, contact nodes, Newton iterations, times and peak memory.

    Parameters
    ----------
    row : dict
        A row of :func:`run_series`: the figures of :func:`measure` with
        ``series``, or ``series``, ``scale`` and ``error`` for a failed size.

    Returns
    -------
    str
    """
    if "error" in row:
        return f"{row['series']} scale {row['scale']}: FAILED ({row['error']})"
    line = (f"{row['series']} scale {row['scale']:g}: {row['dofs']} DOFs, {row['contact_nodes']} "
            f"contact nodes, {row['newton_iterations']} Newton it., contact solve "
            f"{row['contact_solve_s']:.2f} s, linear solve {row['linear_solve_s']:.2f} s, ratio "
            f"{row['ratio']:.2f}, contact work {100 * row['contact_share']:.1f} % of "
            f"{row['total_s']:.1f} s, peak {row['peak_memory_gb']:.2f} GB ({row['backend']})")
    if row.get("repeats", 1) > 1:
        line += (f"; over {row['repeats']} runs: ratio min {_fmt(row['ratio_min'], '.2f')}, median "
                 f"{_fmt(row['ratio_median'], '.2f')}")
    return line


def write_tables(rows: list, out: Path) -> None:
    """``bench.json``, ``bench.csv``, ``bench.md`` and ``bench_time.png`` in ``out``."""
    meta = dict(machine=platform.machine(), python=platform.python_version(),
                cpus=os.cpu_count(), date=time.strftime("%Y-%m-%d"))
    write_text(out / "bench.json", json.dumps(dict(meta=meta, rows=rows), indent=1))
    with replacing(out / "bench.csv") as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    write_text(out / "bench.md", markdown_table(rows, meta))
    plot(rows, out / "bench_time.png")


def _fmt(value, spec):
    return "–" if value is None else format(value, spec)


def _coarse(row: dict) -> str:
    """The coarse model of nested iteration: its DOFs and Newton iterations, or a dash."""
    if row.get("coarse_dofs") is None:
        return "–"
    return f"{row['coarse_dofs']:,}, {row['coarse_newton_iterations']}"


def markdown_table(rows: list, meta: dict) -> str:
    """The benchmark table of ``bench.md``: one row per size, failed sizes marked, and the machine it ran on.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`run_series`.
    meta : dict
        ``machine``, ``cpus``, ``python`` and ``date`` (see :func:`write_tables`).

    Returns
    -------
    str
        A Markdown table followed by a "Measured on ..." note.
    """
    head = ("| case | DOFs | contact nodes | backend | Newton it. | coarse DOFs, Newton it. "
            "| Krylov it. | contact solve s | linear solve s | ratio | contact work % | mesh s "
            "| assembly s | total s | peak GB | peak pressure error |\n|" + "---|" * 16 + "\n")
    lines = []
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['series']} (scale {r['scale']}) | failed: {r['error']} |" + " |" * 14)
            continue
        lines.append(
            f"| {r['series']} | {r['dofs']:,} | {r['contact_nodes']:,} | {r['backend']} | "
            f"{r['newton_iterations']} | {_coarse(r)} | {_fmt(r.get('krylov_iterations'), 'd')} | "
            f"{r['contact_solve_s']:.2f} | {r['linear_solve_s']:.2f} | {_fmt(r['ratio'], '.2f')} | "
            f"{100 * r['contact_share']:.1f} | {_fmt(r.get('mesh_s'), '.2f')} | "
            f"{_fmt(r.get('assembly_s'), '.2f')} | "
            f"{r['total_s']:.1f} | {r['peak_memory_gb']:.2f} | "
            f"{_fmt(None if r['peak_pressure_error'] is None else 100 * r['peak_pressure_error'], '.2f')} % |")
    note = (f"\nMeasured on {meta['machine']}, {meta['cpus']} CPUs, CPython {meta['python']}, "
            f"{meta['date']}.\n")
    return head + "\n".join(lines) + "\n" + note


def plot(rows: list, path: Path) -> None:
    """Log-log seconds against DOFs: contact solve and linear solve per series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for name, color in zip(SERIES, ("tab:blue", "tab:red")):
        ok = sorted((r for r in rows if r["series"] == name and "error" not in r),
                    key=lambda r: r["dofs"])
        if not ok:
            continue
        n = [r["dofs"] for r in ok]
        ax.loglog(n, [r["contact_solve_s"] for r in ok], "o-", color=color, label=f"{name}: contact solve")
        ax.loglog(n, [r["linear_solve_s"] for r in ok], "s--", color=color, label=f"{name}: linear solve")
        ax.loglog(n, [r["total_s"] for r in ok], ":", color=color, label=f"{name}: whole run")
    ax.set_xlabel("DOFs")
    ax.set_ylabel("seconds")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:           # no legend (and no warning) without a row
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
