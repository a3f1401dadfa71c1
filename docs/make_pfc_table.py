"""Figures of docs/pfc.md: exported increments solved by SSN and NSGS against the FE solution.

Usage: python docs/make_pfc_table.py

Exports one increment of each listed case (the test sizes, and the cases'
own meshes), solves it with both solvers and prints a Markdown table:
size, contacts (closed), solver, iterations or sweeps, seconds, the two
residuals, and the relative differences of ``r``, ``v`` and ``u`` from the
finite-element solution.  NSGS is skipped where the Delassus operator is not
defined (rigid modes) or too large.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from fecontact.pfc.export import export_case
from fecontact.pfc.nsgs import MAX_ROWS, solve_nsgs
from fecontact.pfc.ssn import solve_ssn

ROOT = Path(__file__).resolve().parents[1]
C2 = ["bodies.0.mesh.h_contact=0.004"]
C3 = ["bodies.0.mesh.h_contact=0.04", "bodies.0.mesh.h_far=0.3"]
RUNS = [
    ("hertz2d", 3, C2, "coarse"),
    ("hertz2d", 3, [], "case mesh"),
    ("hertz2d_friction", 3, C2, "coarse"),
    ("hertz3d", 2, C3, "coarse"),
    ("hertz3d", 2, [], "case mesh"),
    ("cattaneo2d", 9, ["bodies.0.mesh.h_contact=0.04", "bodies.1.mesh.h_contact=0.04"], "coarse"),
    ("cattaneo3d", 3, C3 + ["bodies.1.mesh.h_contact=0.04", "bodies.1.mesh.h_far=0.3"], "coarse"),
    ("incline_dynamic", 20, [], "case mesh"),
]


def relative(a, b) -> float:
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), np.finfo(float).tiny))


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    print("| case (step) | mesh | n | contacts (closed) | solver | iterations | s | natural map "
          "| equilibrium | r | v | u |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case, step, overrides, label in RUNS:
        tic = time.perf_counter()
        pf = export_case(ROOT / "cases" / f"{case}.toml", step, overrides)
        export_seconds = time.perf_counter() - tic
        p, fe = pf.problem, pf.solution
        closed = int(np.sum(fe["r"].reshape(-1, p.d)[:, 0] > 0))
        res = p.residuals(fe["v"], fe["r"])
        print(f"| {case} ({step}) | {label} | {p.n} | {p.n_contacts} ({closed}) | FE "
              f"(export {export_seconds:.1f} s) | | | {res.natural_map:.1e} | {res.equilibrium:.1e} "
              f"| | | |")
        for solve in (solve_ssn, solve_nsgs):
            if solve is solve_nsgs and (p.rigid_modes.shape[1] or p.b.size > MAX_ROWS):
                continue
            sol = solve(p)
            r = sol.residuals
            print(f"| | | | | {sol.solver} | {sol.iterations} | {sol.seconds:.2f} | "
                  f"{r.natural_map:.1e} | {r.equilibrium:.1e} | {relative(sol.r, fe['r']):.1e} | "
                  f"{relative(sol.v, fe['v']):.1e} | {relative(sol.u, fe['u']):.1e} |", flush=True)


if __name__ == "__main__":
    main()
