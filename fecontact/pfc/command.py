"""``fecontact pfc export|solve``: PFC problems from cases, and their solution.

``fecontact pfc export CASE.toml --step N --out problem.npz`` runs the case to
its ``N``-th load or time step and writes that increment in PFC form with the
finite-element solution; ``fecontact pfc solve problem.npz [--solver
ssn|nsgs] --out solution.npz`` solves a problem file (ours, or FCLIB HDF5 by
the ``.h5``/``.hdf5`` ending) and writes ``r``, ``u``, ``v`` and the residuals.
Bad input is one ``error:`` line and exit status 2; a solver that does not
converge still writes its last iterate and exits with status 3.
"""

from __future__ import annotations

import sys

import numpy as np

from .io import read, save_solution, write
from .problem import PFCError, findings

SOLVERS = ("ssn", "nsgs")


def add_parser(sub) -> None:
    """Add the ``pfc`` command with its ``export`` and ``solve`` actions to the CLI's subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``fecontact`` command line.
    """
    pfc = sub.add_parser("pfc", help="export or solve the global frictional contact problem "
                                     "PFC(M, H, q, b, mu) of Siconos")
    actions = pfc.add_subparsers(dest="pfc_command", required=True)
    export = actions.add_parser("export", help="write one increment of a case as a PFC problem")
    export.add_argument("case", help="case file (TOML)")
    export.add_argument("--step", type=int, required=True,
                        help="load step (quasi-static) or time step (dynamic), from 1")
    export.add_argument("--out", required=True, help="problem file (.npz; .h5/.hdf5: FCLIB)")
    export.add_argument("--set", dest="overrides", action="append", default=[],
                        metavar="KEY.PATH=VALUE", help="override a scalar entry of the case file")
    export.add_argument("--debug", action="store_true", help="show tracebacks")
    solve = actions.add_parser("solve", help="solve a PFC problem file")
    solve.add_argument("problem", help="problem file (.npz; .h5/.hdf5: FCLIB)")
    solve.add_argument("--solver", choices=SOLVERS, default="ssn",
                       help="semismooth Newton (default) or nonsmooth Gauss-Seidel")
    solve.add_argument("--out", required=True, help="solution file (.npz)")
    solve.add_argument("--tolerance", type=float, default=None,
                       help="largest residual (equilibrium, natural map, complementarity) "
                            "of a converged solution (default 1e-10)")
    solve.add_argument("--debug", action="store_true", help="show tracebacks")


def _relative(a, b) -> float:
    scale = max(float(np.linalg.norm(b)), float(np.linalg.norm(a)), np.finfo(float).tiny)
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b))) / scale


def export(args) -> int:
    """``fecontact pfc export``: write one increment of a case as a PFC problem file and report it.

    The problem carries the finite-element solution of that increment; the
    printed line gives its size, the closed contacts and the natural-map and
    equilibrium residuals of the finite-element solution.

    Parameters
    ----------
    args : argparse.Namespace
        ``case``, ``step``, ``out`` and ``overrides``.

    Returns
    -------
    int
        Exit status 0.
    """
    from .export import export_case

    pf = export_case(args.case, args.step, args.overrides)
    write(args.out, pf)
    p, s = pf.problem, pf.solution
    res = p.residuals(s["v"], s["r"])
    closed = int(np.sum(s["r"].reshape(-1, p.d)[:, 0] > 0.0))
    print(f"{args.out}: step {args.step} of {args.case} (t = {p.info['t_start']:.6g} -> "
          f"{p.info['t']:.6g}): n = {p.n}, {p.n_contacts} contacts ({closed} closed), d = {p.d}, "
          f"rigid modes {p.rigid_modes.shape[1]}; the finite-element solution has "
          f"{res.describe()}")
    return 0


def solve(args) -> int:
    """``fecontact pfc solve``: solve a PFC problem file and write the solution.

    Parameters
    ----------
    args : argparse.Namespace
        ``problem``, ``solver`` (``"ssn"`` or ``"nsgs"``), ``out`` and
        ``tolerance`` (None: the solver's default).

    Returns
    -------
    int
        Exit status: 0 when converged, 3 when not (the last iterate is
        written all the same).

    Raises
    ------
    fecontact.pfc.problem.PFCError
        For a tolerance that is not a positive number.
    """
    from .nsgs import solve_nsgs
    from .ssn import solve_ssn

    pf = read(args.problem)
    options = {} if args.tolerance is None else {"tolerance": args.tolerance}
    if args.tolerance is not None and not (np.isfinite(args.tolerance) and 0.0 < args.tolerance < 1.0):
        raise PFCError(f"--tolerance must lie between 0 and 1, got {args.tolerance}")
    sol = (solve_ssn if args.solver == "ssn" else solve_nsgs)(pf.problem, **options)
    save_solution(args.out, sol)
    res = sol.residuals
    status = "converged" if sol.converged else "NOT converged"
    unit = "iterations" if args.solver == "ssn" else "sweeps"
    for note in findings(pf.problem):
        print(f"note: {args.problem}: {note}")
    print(f"{args.problem}: {sol.solver} {status} in {sol.iterations} {unit}, {sol.seconds:.2f} s; "
          f"{res.describe()}; solution in {args.out}")
    if pf.solution is not None:
        s = pf.solution
        print(f"  against the file's solution (relative): r {_relative(sol.r, s['r']):.1e}, "
              f"v {_relative(sol.v, s['v']):.1e}, u {_relative(sol.u, s['u']):.1e}")
    if not sol.converged:
        print(f"error: {sol.reason}", file=sys.stderr)
        return 3
    return 0


def main(args) -> int:
    """Run the ``pfc`` action chosen on the command line; returns the exit status."""
    return export(args) if args.pfc_command == "export" else solve(args)
