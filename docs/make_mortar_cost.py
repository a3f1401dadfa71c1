"""Cost of mortar contact against node-to-facet: time and peak memory at three contact sizes.

Usage::

    python docs/make_mortar_cost.py                   # measure, write docs/mortar_cost.json, print
    python docs/make_mortar_cost.py --label before    # the same, stored under another label
    python docs/make_mortar_cost.py --print-only      # print the table of docs/mortar_cost.json

The problem is ``cases/patch3d.toml`` (two elastic blocks of P1 tetrahedra
pressed together across a flat non-matching interface, triangle facets on
both sides) refined through ``--set`` overrides: the lower block has
``n x n`` cells on the interface, the upper one ``round(3 n / 4)``, the
thicknesses stay 4 and 3 cells, so the bulk and the contact surface both
grow as ``n^2``.  Each size and formulation runs in a fresh process
(this script calls itself with ``--one``), which reports:

* ``seconds``: wall time of ``fecontact.run.static.run`` (build, solve,
  check; no VTU output);
* ``peak_mib``: the process's peak resident memory (``ru_maxrss``) at the
  end of the run;
* ``contact_peak_mib`` / ``contact_seconds``: the peak of the memory
  allocated while one contact kinematics evaluation of the solved state
  runs (``tracemalloc``), and its time (measured separately, without
  tracemalloc);
* ``derivative_mib``: the bytes of the derivative arrays of that evaluation
  (``d_gap``, ``d_slip``, ``h_gap``, ``h_slip``) and ``local_unknowns``,
  their number of local variables per row;
* ``slave_nodes`` and ``segments`` (overlapping slave/master facet pairs).

With the mesh ratio fixed the segments per row are too; ``master_refinement``
(label ``after`` only) keeps a flat slave grid and refines the master under
it (x1, x2, x4), which multiplies the segments per row.

Each run's address space is limited (``--limit-gib``, default 8) so that
a formulation that would allocate more fails with ``MemoryError`` instead
of exhausting the machine.  Figures under another label (``--label before``, run with
``PYTHONPATH`` pointing at a checkout of an earlier version) are kept
alongside.  A size whose process fails (for example out of memory) is
recorded with its error.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "mortar_cost.json"
SIZES = (8, 16, 24)
FORMULATIONS = ("mortar", "node_to_segment")


def overrides(n: int, formulation: str) -> list:
    """``--set`` overrides of ``cases/patch3d.toml`` for size ``n`` and a formulation."""
    u = max(2, round(0.75 * n))
    return [f"bodies.0.mesh.nx={n}", f"bodies.0.mesh.ny={n}", f"bodies.1.mesh.nx={u}",
            f"bodies.1.mesh.ny={u}", f'contact.0.formulation="{formulation}"']


def measure_one(n: int, formulation: str) -> dict:
    """Run one size in this process and measure it (see the module docstring)."""
    import numpy as np

    from fecontact.contact.mortar3d import facing_pairs
    from fecontact.run.static import run
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        r = run(ROOT / "cases" / "patch3d.toml", out, overrides=overrides(n, formulation),
                write_vtu_files=False)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    problem, state = r.model.problem, r.state
    start = time.perf_counter()
    kin = problem.kinematics(state.u, state.t, state)
    contact_seconds = time.perf_counter() - start
    del kin
    tracemalloc.start()
    kin = problem.kinematics(state.u, state.t, state)
    _, contact_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    L = kin.local
    derivative = sum(getattr(L, f).nbytes for f in ("d_gap", "d_slip", "h_gap", "h_slip"))
    # overlapping facet pairs of the interface
    pair = problem.pairs[0]
    system = problem.system
    x = problem.coordinates(state.u)
    rows = np.searchsorted(pair.slave.nodes, pair.slave.facets)
    xs = x[:, system.global_nodes(pair.slave.body, pair.slave.nodes)].T
    G = system.global_nodes(pair.master.body, pair.master.facets.ravel()).reshape(pair.master.facets.shape)
    segments = facing_pairs(np.transpose(xs[rows], (1, 0, 2)), np.transpose(x[:, G], (2, 1, 0)))[0].size
    return {"n": n, "formulation": formulation, "converged": bool(r.converged),
            "dofs": int(r.summary["dofs"]), "slave_nodes": int(pair.n_nodes), "segments": int(segments),
            "seconds": seconds, "peak_mib": peak, "contact_seconds": contact_seconds,
            "contact_peak_mib": contact_peak / 2**20, "derivative_mib": derivative / 2**20,
            "local_unknowns": int(L.d_gap.shape[1])}


def master_refinement(n_slave: int = 6, factors=(1, 2, 4)) -> list:
    """Derivative storage of one mortar evaluation with the slave grid fixed and the master refined.

    Flat triangulated grids (``n_slave`` and ``factor * n_slave`` cells a side,
    the master shifted by half a cell) evaluated by
    :func:`fecontact.contact.mortar3d.weighted_kinematics` in this process.
    """
    import numpy as np

    from fecontact.contact import mortar3d

    def grid(n, lo, hi, z, down):
        t = np.linspace(lo, hi, n + 1)
        X, Y = np.meshgrid(t, t, indexing="ij")
        pts = np.column_stack([X.ravel(), Y.ravel(), np.full(X.size, z)])
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        a = (i * (n + 1) + j).ravel()
        tri = np.vstack([np.column_stack([a, a + n + 1, a + n + 2]), np.column_stack([a, a + n + 2, a + 1])])
        return pts, tri[:, ::-1] if down else tri

    out = []
    for factor in factors:
        xs, ts = grid(n_slave, 0.0, 1.0, 0.01, True)
        n_m = factor * n_slave
        h = 1.0 / n_m
        xm, tm = grid(n_m + 2, -1.5 * h, 1.0 + 0.5 * h, 0.0, False)
        slave, master = xs[ts], xm[tm]
        ref_area = 0.5 * np.linalg.norm(np.cross(slave[:, 1] - slave[:, 0], slave[:, 2] - slave[:, 0]), axis=1)
        m = xs.shape[0]
        area = np.bincount(ts.ravel(), weights=np.repeat(ref_area / 3.0, 3), minlength=m)
        tangent = np.broadcast_to(np.eye(3)[:2], (m, 2, 3)).copy()
        normal = np.broadcast_to(np.eye(3)[2], (m, 3)).copy()
        start = time.perf_counter()
        local, _ = mortar3d.weighted_kinematics(slave, slave, ts, master, master, tm, ref_area, tangent,
                                                area, np.full(m, 0.01), normal, tangent, lambda nrm: tangent)
        seconds = time.perf_counter() - start
        segments = mortar3d.facing_pairs(slave, master)[0].size
        derivative = sum(getattr(local, f).nbytes for f in ("d_gap", "d_slip", "h_gap", "h_slip"))
        out.append({"factor": factor, "slave_nodes": m, "segments": int(segments),
                    "local_unknowns": int(local.d_gap.shape[1]), "derivative_mib": derivative / 2**20,
                    "seconds": seconds})
    return out


def measure(n: int, formulation: str, limit_gib: float, timeout: float) -> dict:
    """:func:`measure_one` in a fresh process, its address space limited to ``limit_gib``."""
    try:
        proc = subprocess.run([sys.executable, __file__, "--one", str(n), formulation,
                               "--limit-gib", str(limit_gib)], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"n": n, "formulation": formulation, "error": f"over {timeout:g} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["exit status %d" % proc.returncode])[-1]
        return {"n": n, "formulation": formulation, "error": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(data: dict) -> str:
    """A text table of every label's runs, with mortar / node-to-facet ratios."""
    head = (f"{'label':8} {'n':>3} {'formulation':16} {'slave':>6} {'segm':>6} {'dofs':>7} {'time s':>8} "
            f"{'peak MiB':>9} {'contact s':>9} {'contact MiB':>11} {'deriv MiB':>9} {'k':>5}")
    lines = [head, "-" * len(head)]
    for label, runs in data["runs"].items():
        for r in runs:
            if "error" in r:
                lines.append(f"{label:8} {r['n']:>3} {r['formulation']:16} failed: {r['error'][:60]}")
                continue
            lines.append(f"{label:8} {r['n']:>3} {r['formulation']:16} {r['slave_nodes']:>6} {r['segments']:>6} "
                         f"{r['dofs']:>7} {r['seconds']:>8.2f} {r['peak_mib']:>9.1f} {r['contact_seconds']:>9.3f} "
                         f"{r['contact_peak_mib']:>11.2f} {r['derivative_mib']:>9.3f} {r['local_unknowns']:>5}")
    for label, runs in data["runs"].items():
        for f in FORMULATIONS:
            ok = [r for r in runs if r["formulation"] == f and "error" not in r]
            if ok:
                per = ", ".join(f"{r['derivative_mib'] * 1024 / r['slave_nodes']:.2f}" for r in ok)
                lines.append(f"{label}: {f}: derivative KiB per slave node at n = "
                             f"{', '.join(str(r['n']) for r in ok)}: {per}")
    for r in data.get("master_refinement", []):
        lines.append(f"master refined x{r['factor']} under {r['slave_nodes']} slave nodes: "
                     f"{r['segments']} segments, k = {r['local_unknowns']}, derivatives "
                     f"{r['derivative_mib']:.2f} MiB ({r['derivative_mib'] * 1024 / r['segments']:.2f} KiB "
                     f"per segment), {r['seconds']:.2f} s")
    for label, ratio in data.get("ratios", {}).items():
        for r in ratio:
            lines.append(f"{label}: n = {r['n']}: mortar / node-to-facet: time {r['time']:.2f}, "
                         f"peak memory {r['memory']:.2f}")
    return "\n".join(lines)


def ratios(runs: list) -> list:
    """Mortar over node-to-facet, time and peak memory, per size where both ran."""
    by = {(r["n"], r["formulation"]): r for r in runs if "error" not in r}
    return [{"n": n, "time": by[n, "mortar"]["seconds"] / by[n, "node_to_segment"]["seconds"],
             "memory": by[n, "mortar"]["peak_mib"] / by[n, "node_to_segment"]["peak_mib"]}
            for n in sorted({r["n"] for r in runs})
            if (n, "mortar") in by and (n, "node_to_segment") in by]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, metavar=("N", "FORMULATION"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--label", default="after")
    ap.add_argument("--json", default=str(DATA))
    ap.add_argument("--print-only", action="store_true")
    ap.add_argument("--limit-gib", type=float, default=8.0,
                    help="address space allowed to each run (a run over it fails with MemoryError)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed to each run")
    args = ap.parse_args(argv)
    if args.one:
        limit = int(args.limit_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        print(json.dumps(measure_one(int(args.one[0]), args.one[1])))
        return
    path = Path(args.json)
    data = json.loads(path.read_text()) if path.exists() else {"runs": {}, "ratios": {}}
    if not args.print_only:
        runs = [measure(int(n), f, args.limit_gib, args.timeout) for n in args.sizes.split(",")
                for f in FORMULATIONS]
        data["runs"][args.label] = runs
        data["ratios"][args.label] = ratios(runs)
        data["case"] = "cases/patch3d.toml"
        if args.label == "after":
            data["master_refinement"] = master_refinement()
        data["machine"] = {"python": platform.python_version(), "processor": platform.machine()}
        path.write_text(json.dumps(data, indent=1) + "\n")
    print(table(data))


if __name__ == "__main__":
    main()
