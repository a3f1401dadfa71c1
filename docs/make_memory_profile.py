"""Where the peak memory of a large contact solve comes from: resident memory stage by stage.

Usage::

    python docs/make_memory_profile.py 0.5 [0.35 ...] [--case cases/hertz3d.toml]
        [--backend amg] [--json out.json] [--seed 0] [--compare-linear] [--fine]
        [--tracemalloc] [--snapshot-at STAGE] [--no-reset]

Every scale runs in a fresh process (this script calls itself), as
``fecontact bench`` measures a size (:func:`fecontact.run.bench.measure`):
``fecontact.run.static.run`` with ``h_contact`` and ``h_far`` of
``cases/hertz3d.toml`` times the scale (0.5: about 200k DOFs, 0.35: 425k,
0.225: 1.24M), one load increment, the given backend and no VTU output.
``solver.compare_linear`` (the linear reference solve bench times, which sets
the preconditioner up a second time) is set only with ``--compare-linear``.

The stages are marked by wrapping, from this script only, the functions the
run calls in turn (their module attributes are replaced; no library code path
changes):

===================  ======================================================
``startup``          imports, reading the case
``mesh``             :func:`fecontact.case.bodies.mesh_of` (generating the mesh)
``bodies``           bodies, supports, loads and contact surfaces
``system``           :func:`fecontact.bodies.system.build_system` (``K``, ``T``, ``K_hat``)
``contact``          contact pairs, the contact problem
``coarse ...``       the coarse model of nested iteration, built after the fine
                     one (:func:`fecontact.case.build._coarse_model`): its
                     ``coarse mesh``, ``coarse bodies``, ``coarse system``
                     and ``coarse contact``, reported apart from the fine ones
``checks``           the model checks (:func:`fecontact.case.checks.model_findings`)
``pre-solve``        the reference's checks, output folder, the run's set-up
``amg``              :func:`fecontact.solve.backends.make_backend` (preconditioner set-up)
``start``            the initial state, up to the load stepping
``newton``           :func:`fecontact.solve.newton.semismooth_newton`
``step write``       writing the solved level (summary, restart file)
``output``           residual check of the written state, metrics, summary
``linear ref``       ``--compare-linear``: the linear reference solve
===================  ======================================================

``--fine`` splits the Newton solve further: ``evaluate`` (residual and
Jacobian), ``rounding bound`` (:class:`fecontact.solve.newton.RoundingBound`),
``krylov`` (the projected solve), ``amg constrained``
(:meth:`fecontact.solve.amg.AMG.constrained`) and ``gmres``.

Memory is read from ``/proc/self/status``: a thread samples ``VmRSS`` every
50 ms, and at every stage boundary ``VmRSS`` is read and ``VmHWM`` (the peak
since the last boundary) is read and reset (``echo 5 > /proc/self/clear_refs``),
so the peak of each stage is exact, not sampled.  The reset also resets
``ru_maxrss``; the overall peak reported is the largest stage peak, which is
what ``ru_maxrss`` would have been (``--no-reset`` keeps ``ru_maxrss`` and
reports sampled stage peaks).  The RSS at the end of a stage depends on what
the C allocator returns to the system; the peaks do not.

At the end of the ``amg`` stage the big arrays reachable from the problem and
the backend are listed (path, bytes; shared buffers counted once), with the
multigrid hierarchy level by level.  ``--tracemalloc`` also lists the live
allocations by the line of fecontact that made them at that moment, and
``--snapshot-at STAGE`` on entering a stage (slow, and tracemalloc's own
memory is counted in the table: use it to see what is alive, not for the
figures).  pyamg draws the start vectors of its spectral radius estimates
from numpy's global generator, so two runs differ in the last bits unless
``--seed`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("bodies.0.mesh.h_contact", "bodies.0.mesh.h_far")
SIZES = (0.01, 0.15)


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024          # bytes
    return out


class Recorder:
    """Stage segments with their RSS at the end and their peak."""

    def __init__(self, reset: bool = True, interval: float = 0.05):
        self.reset = reset and self._can_reset()
        self.interval = interval
        self.segments: list = []                  # dicts: stage, start, end, rss_end, peak
        self.current = "startup"
        self.start = time.perf_counter()
        self.sampled_peak = 0
        self.overall_peak = 0
        self.hooks: dict = {}                     # stage -> called when it starts
        self.prefix = ""                          # put before the stage names (the coarse model)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        if self.reset:
            self._clear()
        self._thread.start()

    @staticmethod
    def _can_reset() -> bool:
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    @staticmethod
    def _clear() -> None:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    def _sample(self) -> None:
        while not self._stop.is_set():
            rss = _status()["VmRSS"]
            with self._lock:
                self.sampled_peak = max(self.sampled_peak, rss)
            time.sleep(self.interval)

    def mark(self, next_stage: str) -> None:
        """Close the current segment and start ``next_stage`` (named with :attr:`prefix`)."""
        next_stage = self.prefix + next_stage if next_stage != "(end)" else next_stage
        now = time.perf_counter()
        st = _status()
        with self._lock:
            sampled = max(self.sampled_peak, st["VmRSS"])
            peak = st["VmHWM"] if self.reset else sampled
            self.sampled_peak = st["VmRSS"]
            if self.reset:
                self._clear()
        self.overall_peak = max(self.overall_peak, peak)
        self.segments.append(dict(stage=self.current, start=self.start, end=now,
                                  rss_end=st["VmRSS"], peak=peak, sampled_peak=sampled))
        self.current, self.start = next_stage, now
        hook = self.hooks.get(next_stage)
        if hook is not None:
            hook()

    def stop(self) -> None:
        self.mark("(end)")
        self._stop.set()
        self._thread.join()

    def stages(self) -> list:
        """Segments merged by stage name, in order of first appearance."""
        merged: dict = {}
        for seg in self.segments:
            m = merged.setdefault(seg["stage"], dict(stage=seg["stage"], seconds=0.0, peak=0,
                                                     sampled_peak=0))
            m["seconds"] += seg["end"] - seg["start"]
            m["rss_end"] = seg["rss_end"]
            m["peak"] = max(m["peak"], seg["peak"])
            m["sampled_peak"] = max(m["sampled_peak"], seg["sampled_peak"])
        return list(merged.values())


def _wrap(module, name: str, stage: str, after: str, recorder: Recorder, on_return=None):
    import inspect

    static = inspect.getattr_static(module, name)
    kind = type(static) if isinstance(static, (classmethod, staticmethod)) else None
    original = static.__func__ if kind else getattr(module, name)

    def wrapper(*args, **kwargs):
        if stage is not None:
            recorder.mark(stage)
        try:
            result = original(*args, **kwargs)
        finally:
            if after is not None:
                recorder.mark(after)
        if on_return is not None:
            on_return(result)
        return result

    wrapper.__wrapped__ = original
    setattr(module, name, kind(wrapper) if kind else wrapper)


#: ``--fine``: stages inside the Newton solve, (module, attribute, stage, stage after it)
FINE = (("fecontact.solve.problem", "ContactProblem.evaluate", "evaluate", "newton"),
        ("fecontact.solve.newton", "RoundingBound.of", "rounding bound", "newton"),
        ("fecontact.solve.projected", "KrylovBackend.solve", "krylov", "newton"),
        ("fecontact.solve.amg", "AMG.constrained", "amg constrained", "krylov"),
        ("fecontact.solve.krylov", "gmres", "gmres", "krylov"))


# --- census of big arrays -------------------------------------------------------------------

def _buffer_key(a):
    """Identity of the memory an ndarray owns or views (its outermost base)."""
    base = a
    while getattr(base, "base", None) is not None and hasattr(base.base, "__array_interface__"):
        base = base.base
    return id(base), base.nbytes


def census(roots: dict, min_bytes: int = 1 << 20, max_depth: int = 9) -> list:
    """``(path, kind, bytes)`` of the ndarrays and sparse matrices reachable from ``roots``.

    Attributes (``__dict__``, ``__slots__``), lists, tuples and dicts are followed;
    every buffer is counted once, at the first path that reaches it.
    """
    import numpy as np
    import scipy.sparse as sp

    seen_obj: set = set()
    seen_buf: set = set()
    rows = []

    def array_bytes(a):
        key, nbytes = _buffer_key(a)
        if key in seen_buf:
            return 0
        seen_buf.add(key)
        return nbytes

    def visit(obj, path, depth):
        if id(obj) in seen_obj or depth > max_depth:
            return
        seen_obj.add(id(obj))
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                for i, item in enumerate(obj.ravel()[:1000]):
                    visit(item, f"{path}[{i}]", depth + 1)
                return
            n = array_bytes(obj)
            if n >= min_bytes:
                rows.append((path, f"ndarray {obj.dtype} {obj.shape}", n))
            return
        if sp.issparse(obj):
            parts = [getattr(obj, k) for k in ("data", "indices", "indptr", "row", "col", "offsets")
                     if isinstance(getattr(obj, k, None), np.ndarray)]
            n = sum(array_bytes(p) for p in parts)
            if n >= min_bytes:
                idx = getattr(obj, "indices", getattr(obj, "row", None))
                rows.append((path, f"{obj.format} {obj.shape} nnz={obj.nnz} "
                             f"idx={None if idx is None else idx.dtype}", n))
            return
        if isinstance(obj, (str, bytes, int, float, complex, bool, type(None), type, Path)):
            return
        if callable(obj) and not hasattr(obj, "__dict__"):
            return
        if isinstance(obj, dict):
            for k, v in list(obj.items()):
                visit(v, f"{path}[{k!r}]" if not isinstance(k, str) else f"{path}.{k}", depth + 1)
            return
        if isinstance(obj, (list, tuple, set, frozenset)):
            for i, v in enumerate(list(obj)[:1000]):
                visit(v, f"{path}[{i}]", depth + 1)
            return
        if type(obj).__module__ in ("builtins", "logging") or type(obj).__name__ == "module":
            return
        attrs = dict(getattr(obj, "__dict__", {}) or {})
        for cls in type(obj).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if isinstance(slot, str) and hasattr(obj, slot):
                    attrs.setdefault(slot, getattr(obj, slot))
        for k, v in attrs.items():
            visit(v, f"{path}.{k}", depth + 1)
        # closures of wrapped callables (e.g. a LinearOperator's matvec)
        for cell in getattr(getattr(obj, "__func__", obj), "__closure__", None) or ():
            try:
                visit(cell.cell_contents, f"{path}.<closure>", depth + 1)
            except ValueError:
                pass

    for name, root in roots.items():
        visit(root, name, 0)
    return sorted(rows, key=lambda r: -r[2])


def hierarchy_report(backend) -> list:
    """One line per multigrid level: operator, prolongator and restriction sizes."""
    import numpy as np

    amg = getattr(backend, "precondition", None)
    ml = getattr(amg, "hierarchy", None)
    if ml is None:
        return []

    def nbytes(M):
        return sum(getattr(M, k).nbytes for k in ("data", "indices", "indptr")
                   if isinstance(getattr(M, k, None), np.ndarray))

    lines = [f"operator complexity {ml.operator_complexity():.3f}, grid complexity "
             f"{ml.grid_complexity():.3f}, {len(ml.levels)} levels"]
    for i, lv in enumerate(ml.levels):
        parts = [f"level {i}: A {lv.A.shape[0]} rows nnz {lv.A.nnz} {nbytes(lv.A) / 1e6:.1f} MB "
                 f"(idx {lv.A.indices.dtype})"]
        for key in ("P", "R"):
            M = getattr(lv, key, None)
            if M is not None:
                shared = "shares P" if key == "R" and getattr(lv, "P", None) is not None and \
                    np.shares_memory(M.data, lv.P.data) else ""
                parts.append(f"{key} {M.format} nnz {M.nnz} {nbytes(M) / 1e6:.1f} MB {shared}".rstrip())
        B = getattr(lv, "B", None)
        if B is not None:
            parts.append(f"B {B.nbytes / 1e6:.1f} MB")
        if getattr(amg, "_base", None) is not None and i < len(amg._base) and amg._base[i] is not lv.A:
            parts.append(f"base A kept separately {nbytes(amg._base[i]) / 1e6:.1f} MB")
        lines.append(", ".join(parts))
    return lines


# --- one size in this process ---------------------------------------------------------------

def _top_allocations(snap, count: int = 25) -> list:
    """Live allocations grouped by the innermost line of fecontact code that made them."""
    by_line: dict = {}
    for stat in snap.statistics("traceback"):
        frames = list(reversed(stat.traceback))             # innermost first
        own = next((f for f in frames if "/fecontact/" in f.filename), frames[0])
        inner = frames[0]
        key = f"{own.filename.split('/fecontact/')[-1]}:{own.lineno}"
        if inner is not own:
            key += f" (via {Path(inner.filename).name}:{inner.lineno})"
        size, n = by_line.get(key, (0, 0))
        by_line[key] = (size + stat.size, n + stat.count)
    top = sorted(by_line.items(), key=lambda kv: -kv[1][0])[:count]
    return [f"{size / 1e6:9.1f} MB {n:7d} blocks  {key}" for key, (size, n) in top]


def profile(case: str, scale: float, backend: str, reset: bool, trace: bool,
            fine: bool = False, snapshot_at: str | None = None, compare: bool = False,
            seed: int | None = None) -> dict:
    trace = trace or bool(snapshot_at)
    if trace:
        import tracemalloc

        tracemalloc.start(25)
    rec = Recorder(reset=reset)

    import fecontact.analysis.static as static_analysis
    import fecontact.case.build as build
    import fecontact.model.model as model_module
    import fecontact.run.static as static_run

    held: dict = {}
    report: dict = {}

    def after_backend(be):
        held["backend"] = be
        model = held.get("model")
        sysm = model.problem.system
        K, Kh = sysm.K, sysm.K_hat
        report["matrices"] = dict(
            K=dict(format=K.format, nnz=int(K.nnz), idx=str(K.indices.dtype),
                   bytes=int(K.data.nbytes + K.indices.nbytes + K.indptr.nbytes)),
            K_hat=dict(format=Kh.format, nnz=int(Kh.nnz), idx=str(Kh.indices.dtype),
                       bytes=int(Kh.data.nbytes + Kh.indices.nbytes + Kh.indptr.nbytes)))
        report["hierarchy"] = hierarchy_report(be)
        report["census"] = [list(r) for r in census({"problem": model.problem, "backend": be})[:30]]
        if trace:
            import tracemalloc

            report["tracemalloc"] = _top_allocations(tracemalloc.take_snapshot())

    def after_prepare(result):
        held["model"] = result[1]

    if snapshot_at:
        import tracemalloc

        largest = [0]

        def snapshot():
            current = tracemalloc.get_traced_memory()[0]
            if current > largest[0]:
                largest[0] = current
                report["snapshot"] = dict(stage=snapshot_at, traced=current,
                                          top=_top_allocations(tracemalloc.take_snapshot()))

        rec.hooks[snapshot_at] = snapshot
    _wrap(build, "mesh_of", "mesh", "bodies", rec)
    coarse_model = build._coarse_model

    def coarse(*args, **kwargs):
        rec.prefix = "coarse "
        try:
            return coarse_model(*args, **kwargs)
        finally:
            rec.prefix = ""
            rec.mark("contact")

    build._coarse_model = coarse
    _wrap(model_module, "build_system", "system", "contact", rec)
    _wrap(static_run, "model_findings", "checks", "pre-solve", rec)
    _wrap(static_run, "prepare", None, None, rec, after_prepare)
    _wrap(static_run, "make_backend", "amg", "start", rec, after_backend)
    _wrap(static_run, "run_steps", "newton", "output", rec)
    _wrap(static_analysis, "semismooth_newton", "newton", "step write", rec)
    _wrap(static_run, "linear_reference_seconds", "linear ref", "output", rec)
    if fine:
        import importlib

        for module, attr, stage, after in FINE:
            owner = importlib.import_module(module)
            *path, name = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            _wrap(owner, name, stage, after, rec)
    overrides = [f"{k}={v * scale:.10g}" for k, v in zip(KEYS, SIZES)]
    overrides += ["steps.count=1", f"solver.backend={backend}"]
    overrides += ["solver.compare_linear=true"] if compare else []
    if seed is not None:
        import numpy as np

        np.random.seed(seed)
    with tempfile.TemporaryDirectory(prefix="fecontact-mem-") as out:
        result = static_run.run(case, out, overrides, write_vtu_files=False)
    rec.stop()
    summ = result.summary
    return dict(scale=scale, dofs=int(summ["dofs"]), reduced_dofs=int(summ["reduced_dofs"]),
                backend=summ["backend"], converged=bool(summ["converged"]),
                newton_iterations=[st["newton_iterations"] for st in summ["steps"]],
                krylov_iterations=summ["timings"].get("krylov_iterations"),
                metrics=summ.get("metrics", {}), steps=summ["steps"],
                peak=rec.overall_peak if rec.reset else max(
                    rec.overall_peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024),
                ru_maxrss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                reset=rec.reset, stages=rec.stages(), **report)


def print_report(r: dict) -> None:
    dofs = r["dofs"]
    print(f"\n== scale {r['scale']:g}: {dofs:,} DOFs ({r['reduced_dofs']:,} reduced), backend "
          f"{r['backend']}, Newton {r['newton_iterations']}, Krylov {r['krylov_iterations']}, "
          f"converged {r['converged']}")
    how = "exact (VmHWM reset per stage)" if r["reset"] else "sampled every 50 ms"
    print(f"peak {r['peak'] / 1e9:.3f} GB = {r['peak'] / dofs / 1e3:.2f} kB/DOF; stage peaks {how}")
    print(f"{'stage':<16} {'s':>7} {'RSS end GB':>10} {'peak GB':>8} {'sampled':>8} "
          f"{'end kB/DOF':>10} {'peak kB/DOF':>11}")
    for s in r["stages"]:
        print(f"{s['stage']:<16} {s['seconds']:7.1f} {s['rss_end'] / 1e9:10.3f} "
              f"{s['peak'] / 1e9:8.3f} {s['sampled_peak'] / 1e9:8.3f} "
              f"{s['rss_end'] / dofs / 1e3:10.2f} {s['peak'] / dofs / 1e3:11.2f}")
    for name, m in r.get("matrices", {}).items():
        print(f"{name}: {m['format']} nnz {m['nnz']:,} ({m['nnz'] / dofs:.1f}/DOF), indices "
              f"{m['idx']}, {m['bytes'] / 1e6:.1f} MB")
    for line in r.get("hierarchy", []):
        print("  AMG " + line)
    if r.get("census"):
        total = sum(c[2] for c in r["census"])
        print(f"big arrays alive after the AMG set-up (top {len(r['census'])}, {total / 1e6:.1f} MB):")
        for path, kind, n in r["census"]:
            print(f"  {n / 1e6:9.1f} MB  {path}  [{kind}]")
    for line in r.get("tracemalloc", []):
        print("  tracemalloc " + line)
    if r.get("snapshot"):
        snap = r["snapshot"]
        print(f"live allocations on entering {snap['stage']!r} (largest of its entries, "
              f"{snap['traced'] / 1e6:.1f} MB traced):")
        for line in snap["top"]:
            print("  " + line)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scales", nargs="*", type=float, default=[0.5])
    parser.add_argument("--case", default=str(ROOT / "cases" / "hertz3d.toml"))
    parser.add_argument("--backend", default="amg")
    parser.add_argument("--json", help="write every size's figures to this file")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--no-reset", action="store_true",
                        help="do not reset VmHWM at stage boundaries (keeps ru_maxrss)")
    parser.add_argument("--fine", action="store_true",
                        help="also mark stages inside the Newton solve (evaluation, rounding bound, "
                             "Krylov solve, constrained multigrid, GMRES)")
    parser.add_argument("--snapshot-at", metavar="STAGE",
                        help="tracemalloc: the live allocations on entering STAGE (the entry with "
                             "the most traced memory), e.g. 'amg constrained' with --fine")
    parser.add_argument("--compare-linear", action="store_true",
                        help="also time the linear reference solve, as fecontact bench does "
                             "(stage 'linear ref')")
    parser.add_argument("--seed", type=int,
                        help="seed numpy's global generator first (pyamg draws the start vectors "
                             "of its spectral radius estimates from it): runs repeat to the bit")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        r = profile(args.case, args.scales[0], args.backend, not args.no_reset, args.tracemalloc,
                    args.fine, args.snapshot_at, args.compare_linear, args.seed)
        Path(args.worker).write_text(json.dumps(r))
        return 0
    rows = []
    for scale in args.scales:
        with tempfile.TemporaryDirectory(prefix="fecontact-memprof-") as tmp:
            target = Path(tmp) / "row.json"
            cmd = [sys.executable, __file__, str(scale), "--case", args.case, "--backend",
                   args.backend, "--worker", str(target)]
            cmd += ["--tracemalloc"] if args.tracemalloc else []
            cmd += ["--no-reset"] if args.no_reset else []
            cmd += ["--fine"] if args.fine else []
            cmd += ["--snapshot-at", args.snapshot_at] if args.snapshot_at else []
            cmd += ["--compare-linear"] if args.compare_linear else []
            cmd += ["--seed", str(args.seed)] if args.seed is not None else []
            proc = subprocess.run(cmd, env=dict(os.environ))
            if proc.returncode or not target.exists():
                print(f"scale {scale}: failed (exit {proc.returncode})")
                continue
            r = json.loads(target.read_text())
        rows.append(r)
        print_report(r)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
