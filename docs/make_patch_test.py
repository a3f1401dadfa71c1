"""Run the contact patch test with each formulation and mortar on cattaneo2d;
write docs/patch_test.json and the generated blocks of docs/patch_test.md.

    python docs/make_patch_test.py              # run everything (under a minute)
    python docs/make_patch_test.py --page-only  # re-render the page from docs/patch_test.json

The runs are those of ``tests/test_patch.py``: ``patch2d`` and ``patch3d``
with mortar (the cases' formulation), single-pass node-to-segment and the
two-pass penalty variant at four penalty factors; and ``cattaneo2d`` with
mortar against node-to-segment.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

from page_blocks import measure_or_render

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "docs/make_patch_test.py"
PAGE = ROOT / "docs" / "patch_test.md"
DATA = ROOT / "docs" / "patch_test.json"
NTS = ['contact.0.formulation="node_to_segment"']
PENALTIES = (1e2, 1e3, 1e4, 1e5)


def _two_pass(factor: float) -> list:
    return NTS + ["contact.0.two_pass=true", 'contact.0.enforcement="penalty"', f"contact.0.penalty_factor={factor:g}"]


#: row -> (label, case keys, overrides)
ROWS = {"mortar": ("mortar (segment-to-segment / facet-to-facet)", '`formulation = "mortar"`', []),
        "nts": ("single-pass node-to-segment (node-to-facet)", '`formulation = "node_to_segment"`', NTS),
        **{f"penalty_{f:g}": (f"two-pass, penalty {f:g} E'/h",
                              '`two_pass = true`, `enforcement = "penalty"`, ' f"`penalty_factor = {f:g}`",
                              _two_pass(f)) for f in PENALTIES}}


def _run(case: str, out: Path, overrides: list) -> dict:
    from fecontact.references.metrics import evaluate_reference
    from fecontact.run.static import run
    start = time.perf_counter()
    r = run(ROOT / "cases" / f"{case}.toml", out, overrides=list(overrides), write_vtu_files=False)
    seconds = time.perf_counter() - start
    s = r.summary
    got = {"converged": bool(s["converged"]), "seconds": seconds, "dofs": s["dofs"],
           "newton": s.get("max_newton_iterations_per_increment")}
    if s["converged"]:
        got["metrics"] = {k: v for k, v in evaluate_reference(r.model, r.state).items()}
    return got


def run_all(out: Path) -> dict:
    patch = {}
    for row, (_, _, overrides) in ROWS.items():
        for case in ("patch2d", "patch3d"):
            patch[f"{case}/{row}"] = _run(case, out / case / row, overrides)
            print(f"{case} {row}: {patch[f'{case}/{row}']['seconds']:.1f} s", flush=True)
    cattaneo = {name: _run("cattaneo2d", out / "cattaneo2d" / name, overrides)
                for name, overrides in (("mortar", ['contact.0.formulation="mortar"']), ("nts", NTS))}
    return {"machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
            "patch": patch, "cattaneo2d": cattaneo}


def _cell(run: dict, key: str) -> str:
    if not run["converged"]:
        return "no convergence"
    value = run["metrics"].get(key, {}).get("value")
    if value is None:
        return "–"
    return f"{value:.1%}" if value >= 0.01 else f"{value:.2g}"


def render(data: dict) -> dict:
    p = data["patch"]
    lines = ["| formulation | case keys | 2D stress | 2D pressure | 3D stress | 3D pressure | Newton its (2D, 3D) |",
             "|---|---|---|---|---|---|---|"]
    for row, (label, keys, _) in ROWS.items():
        a, b = p[f"patch2d/{row}"], p[f"patch3d/{row}"]
        its = ", ".join(str(x["newton"]) if x["converged"] else "–" for x in (a, b))
        lines.append(f"| {label} | {keys} | {_cell(a, 'stress_deviation')} | {_cell(a, 'pressure_deviation')} | "
                     f"{_cell(b, 'stress_deviation')} | {_cell(b, 'pressure_deviation')} | {its} |")
    blocks = {"table": "\n".join(lines)}
    lo, hi = f"penalty_{PENALTIES[0]:g}", f"penalty_{PENALTIES[2]:g}"
    ratio = {case: p[f"{case}/{lo}"]["metrics"]["stress_deviation"]["value"]
             / p[f"{case}/{hi}"]["metrics"]["stress_deviation"]["value"] for case in ("patch2d", "patch3d")}
    blocks["penalty-ratio"] = (f"  Measured: the stress error falls by a factor of {ratio['patch2d']:.0f} (2D) and "
                               f"{ratio['patch3d']:.0f} (3D) from {PENALTIES[0]:g} to {PENALTIES[2]:g} E'/h.")
    m, n = p["patch3d/mortar"], p["patch3d/nts"]
    blocks["cost"] = (f"  On patch3d ({m['dofs']} DOFs) a mortar run takes {m['seconds']:.2f} s, against "
                      f"{n['seconds']:.2f} s for node-to-facet ({data['machine']}).")
    c = data["cattaneo2d"]
    lines = ["  | metric | mortar | node-to-segment |", "  |---|---|---|"]
    for key, label in (("contact_half_width", "contact half-width error"),
                       ("stick_half_width", "stick half-width error"),
                       ("shear_traction_l2_error", "shear traction L2 error"),
                       ("pressure_l2_error", "pressure L2 error")):
        cells = []
        for name in ("mortar", "nts"):
            got = c[name]["metrics"][key] if c[name]["converged"] else None
            value = None if got is None else (got.get("rel_error") if got.get("rel_error") is not None
                                              else got["value"])
            cells.append("–" if value is None else f"{abs(value):.2%}")
        lines.append(f"  | {label} | {cells[0]} | {cells[1]} |")
    blocks["cattaneo2d"] = "\n".join(lines)
    return blocks


def main() -> None:
    measure_or_render(SCRIPT, PAGE, DATA, run_all, render, ROOT / "out" / "patch_test")

if __name__ == "__main__":
    main()
