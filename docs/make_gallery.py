"""Run every case, render its figures and write docs/gallery.md with them and the case's numbers.

    python docs/make_gallery.py [--out OUT] [--cases NAME ...]

With ``--cases`` only those cases are run, and their sections of the existing
page are replaced (or added, in the order of the case names); the others are
kept as they are.

Figures go to docs/gallery/ (quasi-static cases: contact pressure with traction
arrows and the contact profile against the analytic solution; dynamic cases:
the time series).  The page lists each case's description, size, run time and
its reference metrics.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import tomllib
from pathlib import Path

from fecontact.visuals.profiles import contact_profile
from fecontact.visuals.traction import traction_field, _screenshot
from fecontact.run.static import run

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "gallery"


def _metrics_table(metrics: dict) -> list:
    rows = []
    for key, m in metrics.items():
        if key == "type":
            continue
        if isinstance(m, dict) and "value" in m:
            ref = "" if m["reference"] is None else f"{m['reference']:.6g}"
            err = "" if m["rel_error"] is None else f"{100 * m['rel_error']:.2f} %"
            rows.append(f"| {key} | {m['value']:.6g} | {ref} | {err} |")
        elif isinstance(m, float):
            rows.append(f"| {key} | {m:.6g} | | |")
        elif isinstance(m, dict):
            inner = ", ".join(f"{k} {v:.5g}" if isinstance(v, float) else f"{k} {v}"
                              for k, v in m.items())
            rows.append(f"| {key} | {inner} | | |")
    if not rows:
        return []
    return ["| metric | value | reference | error |", "|---|---|---|---|", *rows, ""]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "out" / "gallery"))
    parser.add_argument("--cases", nargs="*")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    GALLERY.mkdir(exist_ok=True)
    cases = sorted((ROOT / "cases").glob("*.toml"))
    if args.cases:
        cases = [c for c in cases if c.stem in args.cases]
    header = ["# Gallery", "",
              "Every case in `cases/`, run by `python docs/make_gallery.py`. The same runs are the "
              "test suite's (`tests/test_cases.py`, `tests/test_dynamics.py`). The figures come from "
              "`fecontact plot`; the numbers come from each run's `summary.json`.", ""]
    page = ROOT / "docs" / "gallery.md"
    sections = _sections(page.read_text()) if args.cases and page.is_file() else {}
    for case in cases:
        name = case.stem
        text = []
        spec = tomllib.loads(case.read_text())
        result = run(case, Path(args.out) / name,
                     ["output.vtu=true"] if "[dynamics]" not in case.read_text() else [])
        s = result.summary
        text += [f"## {name}", "", spec.get("description", "").replace("\n", " "), "",
                 f"`cases/{name}.toml`: {s['dofs']} DOFs, {s['contact_nodes']} contact nodes, "
                 f"{'converged' if s['converged'] else 'NOT converged'} in "
                 f"{s['timings']['total']:.1f} s.", ""]
        if s.get("analysis") == "dynamic":
            shutil.copy(result.out_dir / "time_series.png", GALLERY / f"{name}_time_series.png")
            text += [f"![{name}](gallery/{name}_time_series.png)", ""]
        else:
            plotter = traction_field(result, "contact_pressure", off_screen=True, window_size=(800, 600))
            _screenshot(plotter, GALLERY / f"{name}_pressure.png")
            profile = contact_profile(result)
            if profile is not None:
                shutil.copy(profile, GALLERY / f"{name}_profile.png")
            text += [f"![{name} pressure](gallery/{name}_pressure.png)"]
            if profile is not None:
                text += [f"![{name} profile](gallery/{name}_profile.png)"]
            text += [""]
        text += _metrics_table(s.get("metrics", {}))
        sections[name] = "\n".join(text)
        print(name, "done")
    body = [sections[name] for name in sorted(sections)]
    page.write_text("\n".join(header) + "\n" + "\n".join(body) + "\n")


def _sections(text: str) -> dict:
    """The page's case sections by name: each from its ``## name`` line to the next."""
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {part.split("\n", 1)[0].strip(): ("## " + part).rstrip("\n") + "\n" for part in parts}


if __name__ == "__main__":
    main()
