"""Run the dynamic cases and copy their time-series plots into docs/ (docs/dynamics.md).

    python docs/make_dynamics_plots.py [--out OUT]

Prints the measured figures of each case next to its analytic value.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
from pathlib import Path

from fecontact.run.static import run

ROOT = Path(__file__).resolve().parents[1]
CASES = ("stickslip", "incline_dynamic", "velocity_weakening", "impact")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "out"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    for name in CASES:
        result = run(ROOT / "cases" / f"{name}.toml", Path(args.out) / name)
        shutil.copy(result.out_dir / "time_series.png", ROOT / "docs" / f"dynamics_{name}.png")
        s = result.summary
        print(f"{name}: {len(s['time_series']['t']) - 1} steps, {s['timings']['total']:.1f} s, "
              f"max Newton iterations per step {s['max_newton_iterations_per_step']}, energy balance "
              f"error {s['energy']['max_balance_error_relative']:.2e}")
        print(json.dumps(s.get("metrics", {}), indent=1, default=str))


if __name__ == "__main__":
    main()
