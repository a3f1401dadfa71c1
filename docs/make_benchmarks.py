"""Run every case in cases/ and write docs/benchmarks.md from their summary.json files.

Usage: python docs/make_benchmarks.py [--out OUT_DIR]
"""

from __future__ import annotations

import argparse
import logging
import platform
from pathlib import Path

from fecontact.run.static import run

ROOT = Path(__file__).resolve().parents[1]


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def table(summaries: list) -> str:
    lines = ["| case | DOFs | contact nodes | steps | max Newton it./increment | total s | "
             "contact solve s | linear reference s | contact solve per step / linear solve |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        t = s["timings"]
        lines.append(f"| {s['case']} | {s['dofs']} | {s['contact_nodes']} | {len(s['steps'])} | "
                     f"{s['max_newton_iterations_per_increment']} | {t['total']:.2f} | "
                     f"{t['contact_solve']:.2f} | {t['linear_reference']:.3f} | "
                     f"{t['contact_solve_per_step_over_linear_reference']:.2f} |")
    lines += ["", "| case | metric | value | reference | relative error |", "|---|---|---|---|---|"]
    for s in summaries:
        for key, m in s.get("metrics", {}).items():
            err = "–" if m["rel_error"] is None else f"{100 * m['rel_error']:.2f} %"
            lines.append(f"| {s['case']} | {key} | {_fmt(m['value'])} | {_fmt(m['reference'])} | {err} |")
    return "\n".join(lines)


PERFORMANCE = """## Where the contact-solve time goes

Target for `hertz2d`: contact solve per load step at most 3x one linear-elastic
solve.  The `schur` backend factorises the bulk stiffness once, then each Newton
iteration costs two back-substitutions and a dense solve on the active contact
DOFs, plus one back-substitution per contact DOF the first time that DOF becomes
active (its compliance column, cached for the rest of the run).  In 2D a sparse
factorisation is cheap (about 0.07 s at 23k DOFs) while a back-substitution
costs 1.7-2.4 ms, so the few hundred compliance columns and the 5-7 Newton
iterations per step dominate; the measured ratio is in the table above (it
varies by about 30 % from run to run on this 2-core machine).  Running the
Newton iterations entirely on the condensed contact unknowns (the bulk is
linear, so its displacement is needed only once per step) is planned with the
performance work at scale; `auto` picks the backend by modelled cost (see
[Choosing the linear solver](backend_choice.md) and [Performance at
scale](scaling.md)).

`hertz3d` (51k DOFs) runs on the `amg` backend under `auto`: projected GMRES with one multigrid hierarchy of the bulk stiffness,
set up once.  Its `linear reference` is then the multigrid set-up plus the
same GMRES without contact.  Measurements of both Hertz cases from 7k to 1.2M
DOFs, one increment each, are on [Performance at scale](scaling.md).

3D pressures on P1 tetrahedra oscillate from node to node by {hertz3d_oscillation:.1%} of p0
(`pressure_oscillation`), which is why the peak pressure is {hertz3d_peak:.1%} above p0
while the contact radius is within {hertz3d_radius:.1%}.  The cause is the surface lattice
that longest-edge bisection produces: a criss-cross ("4-8") pattern of right
triangles in which nodes with 4 and with 8 neighbouring triangles alternate,
with lumped areas in the ratio 1:2.  The two classes of nodes respond to the
curved Hertz indentation with different stencils, and their pressures fall
on two branches; the lower branch lies on the Hertz curve.
Bisection of Kuhn tetrahedra gives this pattern at every level whatever the
tie-breaking of equal edges (checked), so the remedy is a mesher whose
contact surface has uniform valence, not a change of the contact
formulation: the consistent L2 projection of the same nodal forces
oscillates more, not less ([the decision record](developer/decisions/tet-pressure-oscillation.md)).

`cattaneo3d` couples two deformable bodies, so the active contact DOFs of
both surfaces enter the condensed system of every Newton iteration.  Its
displacement block is eliminated exactly without the contact curvature terms
(sparse products and a dense factorisation of the multiplier block), and
GMRES preconditioned by that elimination brings the curvature terms back, so
the Newton step stays exact at a fraction of the cost of the dense condensed
solve ([the decision record](developer/decisions/krylov-backends.md)).  Its shear
traction is {cattaneo3d_shear:.1%} from Mindlin's in relative L2 (target 8 %); the error sits
in the nodes at the contact edge, where the traction falls to zero like a
square root over one or two elements, and at the stick-slip boundary, where
Mindlin's traction has a cusp.  The stick radius is within {cattaneo3d_stick:.1%}.
"""


def figures(summaries) -> dict:
    """The measured figures the text quotes, from the cases' summaries."""
    by_case = {s["case"]: s["metrics"] for s in summaries}
    h, c = by_case["hertz3d"], by_case["cattaneo3d"]
    return {"hertz3d_oscillation": h["pressure_oscillation"]["value"],
            "hertz3d_peak": h["peak_pressure"]["rel_error"],
            "hertz3d_radius": h["contact_radius"]["rel_error"],
            "cattaneo3d_shear": c["shear_traction_l2_error"]["value"],
            "cattaneo3d_stick": c["stick_radius"]["rel_error"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "out"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    summaries = []
    for case in sorted((ROOT / "cases").glob("*.toml")):
        if "[dynamics]" in case.read_text():
            continue                    # dynamic cases: docs/make_dynamics_plots.py
        summaries.append(run(case, Path(args.out) / case.stem, ["solver.compare_linear=true"]).summary)
    text = ["# Benchmarks", "",
            "Generated by `python docs/make_benchmarks.py` from the `summary.json` of every case "
            f"(machine: {platform.machine()}, {platform.python_implementation()} "
            f"{platform.python_version()}).  `linear reference` is one plain linear-elastic "
            "solve (factorisation + solve) of the same system in the same run; `contact solve` "
            "is the whole semismooth Newton work of the run including the one factorisation "
            "of the bulk stiffness.", "", table(summaries), "", PERFORMANCE.format(**figures(summaries))]
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(text))


if __name__ == "__main__":
    main()
