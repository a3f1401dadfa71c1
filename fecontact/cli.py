"""Command line: ``fecontact run|check|schema|plot|bench|pfc``.

``fecontact run CASE.toml [--out DIR] [--set key.path=value ...] [--restart OUT_DIR]``
solves a case; ``fecontact check CASE.toml`` validates it without solving;
``fecontact schema`` prints the JSON Schema of case files;
``fecontact plot OUT_DIR`` renders a result folder; ``fecontact bench``
times contact solves against a linear solve over mesh sizes (:mod:`fecontact.run.bench`); ``fecontact pfc
export|solve`` writes and solves Siconos' global frictional contact problem
(:mod:`fecontact.pfc.command`).

Bad input is reported as one line on stderr with a non-zero exit status; a
traceback is shown only with ``--debug``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tomllib
import warnings
from pathlib import Path

from .run.interrupts import Interrupted, handled

EXIT_INPUT, EXIT_FAILED = 2, 3


class _Parser(argparse.ArgumentParser):
    """``argparse`` with one ``error:`` line for a bad option (no usage block), exit status 2."""

    def error(self, message):
        self.exit(EXIT_INPUT, f"error: {self.prog}: {' '.join(message.split())}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fecontact", description="Finite-element frictional contact")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a case file")
    run.add_argument("case", help="case file (TOML)")
    run.add_argument("--out", default=None, help="output folder (default out/<case name>)")
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                     help="override a scalar entry of the case file (repeatable)")
    run.add_argument("--quiet", action="store_true", help="print only the final summary line")
    run.add_argument("--verbose", action="store_true", help="report every Newton iteration")
    run.add_argument("--debug", action="store_true", help="show tracebacks")
    run.add_argument("--plot", action="store_true", help="render the figures of the result (PNG)")
    run.add_argument("--restart", metavar="OUT_DIR", default=None,
                     help="continue the run in OUT_DIR from its last written step")
    run.add_argument("--compare-linear", action="store_true",
                     help="also time one plain linear solve of the same system (solver.compare_linear)")
    check = sub.add_parser("check", help="check a case file and its model without solving")
    check.add_argument("case", help="case file (TOML)")
    check.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                       help="override a scalar entry of the case file (repeatable)")
    check.add_argument("--debug", action="store_true", help="show tracebacks")
    schema = sub.add_parser("schema", help="print the JSON Schema of case files")
    schema.add_argument("--out", default=None, help="write it to this file instead")
    schema.add_argument("--debug", action="store_true", help="show tracebacks")
    plot = sub.add_parser("plot", help="render the figures of a result folder (PNG, off-screen)")
    plot.add_argument("out", help="result folder (with summary.json)")
    plot.add_argument("--step", type=int, default=-1, help="output step (default: the last)")
    plot.add_argument("--debug", action="store_true", help="show tracebacks")
    bench = sub.add_parser("bench", help="time contact solves against a plain linear solve over "
                                         "mesh sizes (hertz2d, hertz3d)")
    bench.add_argument("--series", default="hertz2d,hertz3d",
                       help="comma-separated series (default: hertz2d,hertz3d)")
    bench.add_argument("--scales", default=None,
                       help="comma-separated mesh-size factors (default: each series' own)")
    bench.add_argument("--backend", default="auto", help="linear solver backend (default auto)")
    bench.add_argument("--cases", default="cases", help="folder with the case files (default cases)")
    bench.add_argument("--out", default="bench", help="output folder (default bench)")
    bench.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per size")
    bench.add_argument("--repeat", type=int, default=1,
                       help="runs of every size (minimum and median reported; default 1)")
    bench.add_argument("--debug", action="store_true", help="show tracebacks")
    from .pfc.command import add_parser

    add_parser(sub)
    return parser


def _bad_option(message: str) -> int:
    _error(message)
    return EXIT_INPUT


def _output_file(path: str) -> str:
    """Why ``path`` cannot be written as an output file (``""`` when it can be tried), before any work."""
    if not str(path).strip():
        return "names no file"
    target = Path(path)
    if target.is_dir():
        return "is a folder; give a file name"
    if not target.parent.is_dir():
        return f"its folder {target.parent} does not exist"
    return ""


def _bench(args) -> int:
    import math

    from .case.schema import CaseError, load_case
    from .io.atomic import writable_folder
    from .run.bench import SERIES, run_series
    from .solve.backends import CHOICES

    if not (math.isfinite(args.timeout) and args.timeout > 0):
        return _bad_option(f"--timeout: seconds allowed per size must be a positive number, "
                           f"got {args.timeout!r}")
    if not 1 <= args.repeat <= 100:
        return _bad_option(f"--repeat: a whole number from 1 to 100, got {args.repeat!r}")
    out = Path(args.out)
    if not str(args.out).strip():
        return _bad_option("--out '' names no folder; give the folder for the tables")
    if out.exists() and not out.is_dir():
        return _bad_option(f"--out {out}: is a file, not a folder; the tables go into a folder")
    names = [s.strip() for s in args.series.split(",") if s.strip()]
    unknown = [n for n in names if n not in SERIES]
    if unknown or not names:
        return _bad_option(f"--series: unknown series {', '.join(unknown) or '(none)'}; "
                                  f"choose from {', '.join(SERIES)}")
    try:
        scales = None if args.scales is None else [float(v) for v in args.scales.split(",")]
    except ValueError:
        return _bad_option(f"--scales: not a list of numbers: {args.scales!r}")
    if scales is not None and not all(0 < v < 1e3 for v in scales):
        return _bad_option(f"--scales: factors must be positive, got {args.scales!r}")
    if args.backend not in CHOICES:
        return _bad_option(f"--backend: unknown backend {args.backend!r}; choose one of "
                                  f"{', '.join(CHOICES)}")
    cases = Path(args.cases)
    missing = [SERIES[n]["case"] for n in names if not (cases / SERIES[n]["case"]).is_file()]
    if missing:
        return _bad_option(f"--cases: {cases} has no {', '.join(missing)}")
    for n in names:                        # the series' cases, as `fecontact check` reads them
        try:
            load_case(cases / SERIES[n]["case"])
        except CaseError as err:
            return _bad_option(f"--cases: {err}".splitlines()[0])
    try:
        writable_folder(out)
    except OSError as err:
        return _bad_option(f"--out {out}: cannot write to the folder ({err.strerror or err})")
    rows = run_series(names, cases, out, args.backend, scales, timeout=args.timeout,
                      repeat=args.repeat)
    print(f"tables and plot written to {out}/ (bench.json, bench.csv, bench.md, bench_time.png)")
    failed = [r for r in rows if not r.get("converged")]
    if failed:
        first = failed[0]
        why = first.get("error") or "the contact solve did not converge"
        _error(f"{len(failed)} of {len(rows)} sizes failed; first: {first['series']} at scale "
               f"{first['scale']:g}: {why}")
        return EXIT_FAILED
    return 0


def _plot(folder, step: int, debug: bool) -> int:
    from .visuals.results import ResultFolderError
    from .visuals.traction import render

    try:
        paths = render(folder, step)
    except (FileNotFoundError, IndexError, OSError, ResultFolderError) as err:
        if debug:
            raise
        message = str(err)
        where = "" if isinstance(err, ResultFolderError) or message.startswith(str(folder)) \
            else f"{folder}: "
        print(f"error: {where}{message}", file=sys.stderr)
        return EXIT_INPUT
    for path in paths:
        print(path)
    return 0


def _configure_logging(quiet: bool, verbose: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    logging.getLogger("fecontact").setLevel(level)
    if not verbose:
        logging.getLogger("fecontact.solve.newton").setLevel(max(level, logging.WARNING))
    logging.getLogger("skfem").setLevel(logging.WARNING)


def step_table(summary: dict, max_rows: int = 40) -> str:
    """The final table of a run: one row per output step (at most ``max_rows``, evenly sampled)."""
    steps = summary.get("steps", [])
    if not steps:
        return ""
    dynamic = summary.get("analysis") == "dynamic"
    head = (f"{'step':>6} {'time' if dynamic else 'load':>10} {'newton':>7} "
            f"{'cutbacks' if not dynamic else 'energy':>10} {'residual' if not dynamic else '':>9} "
            f"{'open':>6} {'stick':>6} {'slip':>6}")
    rows = [head, "-" * len(head)]
    import numpy as np

    index = np.unique(np.linspace(0, len(steps) - 1, min(max_rows, len(steps))).round().astype(int))
    for i in index:
        st = steps[i]
        if dynamic:
            rows.append(f"{st['step']:>6} {st['time']:>10.4g} {st['newton_iterations']:>7} "
                        f"{st['energy']['total']:>10.4g} {'':>9} {st['open']:>6} {st['stick']:>6} "
                        f"{st['slip']:>6}")
        else:
            rows.append(f"{i + 1:>6} {st['load']:>10.4g} {st['newton_iterations']:>7} "
                        f"{st.get('cutbacks', 0):>10} {st.get('residual', 0.0):>9.1e} {st['open']:>6} "
                        f"{st['stick']:>6} {st['slip']:>6}")
    if len(index) < len(steps):
        rows.append(f"({len(index)} of {len(steps)} steps shown)")
    return "\n".join(rows)


def _format_metrics(metrics: dict) -> str:
    lines = []
    for key, m in metrics.items():
        if not isinstance(m, dict) or "value" not in m:      # dynamic references: plain values
            if isinstance(m, float):
                lines.append(f"  {key:28s} {m:.6g}")
            elif isinstance(m, (int, str, bool)):
                lines.append(f"  {key:28s} {m}")
            elif isinstance(m, dict):
                lines.append(f"  {key}: " + ", ".join(
                    f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in m.items()))
            continue
        if m["reference"] is None:
            lines.append(f"  {key:28s} {m['value']:.6g}")
        else:
            lines.append(f"  {key:28s} {m['value']:.6g}  (reference {m['reference']:.6g}, "
                         f"rel. error {100 * m['rel_error']:.2f}%)")
    return "\n".join(lines)


def _error(err) -> None:
    """One ``error:`` line per line of the message."""
    for line in str(err).splitlines() or [type(err).__name__]:
        print(f"error: {line}", file=sys.stderr)


def _input_error(args, err) -> int:
    """Bad input: ``error:`` lines and :data:`EXIT_INPUT`; re-raised with ``--debug``."""
    if args.debug:
        raise
    _error(err)
    return EXIT_INPUT


def _check(args) -> int:
    from .run.static import prepare

    case, model = prepare(args.case, args.overrides)
    p = model.problem
    what = (f"{len(model.levels)} load steps" if model.dynamics is None else
            f"{model.dynamics.n_steps} time steps")
    print(f"{args.case}: ok ({len(p.system.bodies)} bodies, {p.system.n_dofs} DOFs, "
          f"{len(p.pairs)} contact pairs, {p.n_contact} contact nodes, {what})")
    return 0


def main(argv=None, final: bool = False) -> int:
    """The ``fecontact`` command: run, check, schema, plot, bench or pfc; returns the exit status.

    SIGINT and SIGTERM end the command with one line and status 130 or 143 at
    any moment, also while numpy, scipy and scikit-fem are being imported or
    the model is built (the handlers are installed before those imports).
    Only the first signal counts; later ones are ignored
    (:mod:`fecontact.run.interrupts`).  With ``final`` (the ``fecontact``
    command, whose process ends with it) signals stay ignored after the
    command returns.
    """
    with handled(final):
        try:
            _quiet_unless_root()
            try:
                args = _parser().parse_args(argv)
            except SystemExit as done:             # --help (0), or a bad option's one line (2)
                return done.code if isinstance(done.code, int) else EXIT_INPUT
            with warnings.catch_warnings():
                if not args.debug:
                    # non-finite values are detected and reported where they appear (one line);
                    # numpy's floating-point warnings would only add noise to stderr
                    warnings.filterwarnings("ignore", category=RuntimeWarning)
                return _main(args)
        except Interrupted as err:
            return _interrupted(err)
        except RuntimeError as err:
            # a signal inside a class body's ``__set_name__`` (one of numpy's, while it is being
            # imported) comes out as a RuntimeError caused by the interruption
            cause = err.__cause__
            if isinstance(cause, Interrupted):
                return _interrupted(cause)
            raise


def _quiet_unless_root() -> None:
    """On MPI ranks other than 0, send standard output and errors to the null device.

    Every rank of a ``petsc`` run computes the same steps (the model is
    replicated); rank 0 prints and writes for all of them.
    """
    from .solve.mpi import launch

    if not launch().root:
        sys.stdout = sys.stderr = open(os.devnull, "w")


def _interrupted(err: Interrupted) -> int:
    """One line for a run or command stopped by a signal; the status ``128 + signum``."""
    folder = getattr(err, "folder", None)          # set once a run has an output folder
    if folder is None:
        print(f"interrupted by {err.name}; nothing was written", file=sys.stderr)
        return 128 + err.signum
    from .run.checkpoint import RESTART

    if (Path(folder) / RESTART).is_file():
        case = getattr(err, "case", "CASE")
        print(f"interrupted by {err.name}: the steps written so far are in {folder}; continue "
              f"with: fecontact run {case} --restart {folder}", file=sys.stderr)
    else:
        print(f"interrupted by {err.name} before the first step was written to {folder}",
              file=sys.stderr)
    return 128 + err.signum


def _static_summary_line(s: dict, out_dir) -> str:
    """The one-line summary of a finished static run.

    A run stopped by a level that did not converge says which level failed, after how many
    cutbacks and Newton iterations, and the last load in equilibrium; the Newton maximum
    and the timing ratio of converged runs are left out (they would describe the cutback
    attempts, or nothing when the first level failed).
    """
    t = s["timings"]
    steps = s.get("steps", [])
    failed = next((i for i, st in enumerate(steps) if not st.get("converged", True)), None)
    if not s["converged"] and failed is not None:
        st = steps[failed]
        reached = st.get("reached")
        last = (f"last equilibrium at load {reached:.6g}" if reached is not None
                else "no equilibrium beyond the previous level")
        return (f"{s['case']}: FAILED at step {failed + 1} (load {st['load']:.6g}): no convergence "
                f"after {st.get('cutbacks', 0)} cutbacks and {st.get('newton_iterations', 0)} "
                f"Newton iterations, {last}; {failed} steps converged before it, {s['dofs']} DOFs, "
                f"{t['total']:.2f} s; results in {out_dir}")
    if s["converged"]:
        status = "converged"
    elif s.get("check", {}).get("passed") is False:
        status = "NOT converged (the final state fails the independent residual check)"
    else:
        status = "NOT converged"
    ratio = t.get("contact_solve_per_step_over_linear_reference")
    ratio = f" (contact solve/step / linear solve = {ratio:.2f})" if ratio is not None else ""
    return (f"{s['case']}: {status}, {s['dofs']} DOFs, {len(steps)} steps, max "
            f"{s['max_newton_iterations_per_increment']} Newton iterations per increment, "
            f"{t['total']:.2f} s{ratio}; results in {out_dir}")


def _schema(args) -> int:
    """Print (or write) the JSON Schema of case files."""
    import json

    from .case.types import case_schema
    from .io.atomic import write_text

    text = json.dumps(case_schema(), indent=2) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        write_text(args.out, text)
    except OSError as err:
        return _bad_option(f"--out {args.out}: cannot write the schema ({err.strerror or err})")
    return 0


def _main(args) -> int:
    if args.command == "schema":
        return _schema(args)
    if args.command == "plot":
        logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
        return _plot(args.out, args.step, args.debug)
    _configure_logging(getattr(args, "quiet", False), getattr(args, "verbose", False))
    from .case.schema import CaseError
    from .run.checkpoint import RestartError
    from .run.folder import OutputError
    from .pfc.problem import PFCError

    if args.command == "bench":
        return _bench(args)
    if args.command == "pfc":
        from .pfc.command import main as pfc_main

        bad = _output_file(args.out)
        if bad:
            return _bad_option(f"--out {args.out!r}: {bad}")

        try:
            return pfc_main(args)
        except (CaseError, PFCError) as err:
            return _input_error(args, err)
        except (OSError, tomllib.TOMLDecodeError) as err:
            return _input_error(args, f"{getattr(args, 'case', None) or args.problem}: {err}")

    out = args.out if args.command == "run" else None
    for flag, folder in (("--out", out), ("--restart", getattr(args, "restart", None))):
        if folder is not None and not str(folder).strip():
            print(f"error: {flag} '' names no folder; give the output folder's path",
                  file=sys.stderr)
            return EXIT_INPUT
    if args.command == "run" and args.restart is not None:
        if out is not None and Path(out).resolve() != Path(args.restart).resolve():
            print(f"error: --out {out} and --restart {args.restart} name different folders; "
                  f"a restart writes into the folder it continues", file=sys.stderr)
            return EXIT_INPUT
        out = args.restart
    try:
        if args.command == "check":
            return _check(args)
        from .run.static import run

        overrides = args.overrides + (["solver.compare_linear=true"] if args.compare_linear else [])
        result = run(args.case, out, overrides, restart=args.restart is not None)
    except (CaseError, RestartError, OutputError) as err:
        return _input_error(args, err)
    except OSError as err:                 # a file the run writes or reads: name it
        where = err.filename if err.filename is not None else args.case
        return _input_error(args, f"{where}: {err.strerror or err}")
    s = result.summary
    t = s["timings"]
    status = "converged" if s["converged"] else "NOT converged"
    if s.get("analysis") == "dynamic":
        n_steps = max(len(s["time_series"]["t"]) - 1, 0)
        print(f"{s['case']}: {status}, {s['dofs']} DOFs, {n_steps} time steps to t = "
              f"{s['time_series']['t'][-1] if n_steps else 0.0:.6g}, max "
              f"{s['max_newton_iterations_per_step']} Newton iterations per step, energy balance "
              f"error {s.get('energy', {}).get('max_balance_error_relative', 0.0):.2e}, "
              f"{t['total']:.2f} s; results in {result.out_dir}")
    else:
        print(_static_summary_line(s, result.out_dir))
    if s.get("metrics") and not args.quiet:
        print(_format_metrics(s["metrics"]))
    if not args.quiet:
        print(step_table(s))
    if args.plot:
        code = _plot(result.out_dir, -1, args.debug)
        if code:
            return code
    if not s["converged"]:
        print(f"error: {s.get('reason', 'the run did not converge')}", file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
