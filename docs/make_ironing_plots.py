"""Reaction curves and Newton iterations of the ironing cases.

Usage: python docs/make_ironing_plots.py [--case ironing2d|ironing3d] [--out OUT_DIR] [--reuse]

Runs ``cases/<case>.toml`` (results in ``OUT_DIR``, default ``out/<case>``;
with ``--reuse`` an existing ``summary.json`` there is read instead) and writes
``docs/<case>.png``: the die's horizontal and vertical reactions, their ratio
against mu, and the Newton iterations of every increment, all against the
pseudo-time t (pressing for t <= 1, sliding 1 per unit of t after).  It prints
the figures quoted in ``docs/ironing.md``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MU = 0.3


def load(case: Path, out: Path, reuse: bool) -> tuple[dict, object]:
    """summary.json of the run, and the run's final state (None when reused)."""
    if reuse and (out / "summary.json").is_file():
        return json.loads((out / "summary.json").read_text()), None
    from fecontact.run.static import run

    result = run(case, out)
    return result.summary, result


def curves(summary: dict) -> dict:
    steps = [s for s in summary["steps"] if "reaction" in s]
    t = np.array([s["load"] for s in steps])
    fx = np.array([s["reaction"]["slide"][0] for s in steps])
    fy = np.array([s["reaction"]["press"][summary["dim"] - 1] for s in steps])
    # steady sliding: every closed node slips, after the pressing phase (t > 1)
    steady = np.array([s["stick"] == 0 and s["slip"] > 0 for s in steps]) & (t > 1.0)
    # Newton iterations of every increment, at the pseudo-time where it ended
    t_inc, n_inc, t0 = [], [], 0.0
    for s in steps:
        k = len(s["increment_iterations"])
        t_inc += list(np.linspace(t0, s["load"], k + 1)[1:])
        n_inc += s["increment_iterations"]
        t0 = s["load"]
    return dict(t=t, fx=fx, fy=fy, ratio=np.abs(fx / fy), steady=steady,
                closed=np.array([s["stick"] + s["slip"] for s in steps]),
                changes=np.array([s.get("facet_changes", 0) for s in steps]),
                t_inc=np.array(t_inc), n_inc=np.array(n_inc))


def pressure_centroid(result) -> dict:
    """Pressure-weighted contact geometry of the final state (t = 4)."""
    problem = result.model.problem
    from fecontact.io.output import slave_global_nodes

    state = result.state
    nodes = slave_global_nodes(problem)
    x = problem.coordinates(state.u)[0, nodes]
    force = problem.area * state.multiplier[:, 0]
    closed = state.status != 0
    die = result.model.case["bodies"][1]
    axis = die["mesh"]["center"][0] + die["dirichlet"][1]["value"]      # slid by 3
    radius = die["mesh"]["radius"]
    xc = float(np.sum(force * x) / np.sum(force)) - axis
    half = 0.5 * (x[closed].max() - x[closed].min())
    return dict(offset=xc, half_width=half, radius=radius)


def plot(c: dict, path: Path, title: str) -> None:
    fig, axes = plt.subplots(3, 1, figsize=(7.5, 8.0), sharex=True)
    ax = axes[0]
    ax.plot(c["t"], c["fx"], label="$F_x$ (slide support)")
    ax.plot(c["t"], -c["fy"], label="$-F_{normal}$ (press support)")
    ax.set_ylabel("die reaction")
    ax.legend(loc="center right")
    ax.set_title(title)
    ax = axes[1]
    sliding = c["t"] > 1.0
    ax.plot(c["t"][sliding], c["ratio"][sliding], ".-", ms=2, lw=0.8, label="$|F_x / F_{normal}|$ (sliding)")
    ax.axhline(MU, color="k", lw=0.8, label="mu")
    ax.axhspan(0.98 * MU, 1.02 * MU, color="0.85", label="mu +/- 2 %")
    ax.set_ylim(0.27, 0.31)
    ax.set_ylabel("reaction ratio")
    ax.legend(loc="lower right")
    ax = axes[2]
    ax.plot(c["t_inc"], c["n_inc"], ".", ms=3)
    ax.set_ylabel("Newton iterations\nper increment")
    ax.set_xlabel("pseudo-time t")
    ax.set_ylim(0, max(c["n_inc"].max(), 8) + 1)
    for ax in axes:
        ax.axvline(1.0, color="0.6", lw=0.6, ls="--")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="ironing2d", choices=["ironing2d", "ironing3d"])
    parser.add_argument("--out", default=None, help="output folder (default out/<case>)")
    parser.add_argument("--reuse", action="store_true", help="read OUT/summary.json if present")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else ROOT / "out" / args.case
    summary, result = load(ROOT / "cases" / f"{args.case}.toml", out, args.reuse)
    c = curves(summary)
    png = ROOT / "docs" / f"{args.case}.png"
    titles = {"ironing2d": "ironing2d: press 0.03 (t <= 1), slide 3 (1 <= t <= 4), mu = 0.3",
              "ironing3d": "ironing3d: press 0.02 (t <= 1), slide 1.5 (1 <= t <= 3), mu = 0.3"}
    plot(c, png, titles[args.case])
    t, r, steady = c["t"], c["ratio"], c["steady"]
    print(f"converged: {summary['converged']}, {len(t)} steps, {summary['dofs']} DOFs, "
          f"total {summary['timings']['total']:.1f} s")
    print(f"Newton iterations per increment: max {c['n_inc'].max()}, "
          f"max in steady sliding {max(n for ti, n in zip(c['t_inc'], c['n_inc']) if ti > t[steady][0])}, "
          f"mean {c['n_inc'].mean():.2f}; cut-backs "
          f"{sum(s['cutbacks'] for s in summary['steps'])}")
    print(f"steady sliding (every closed node slips) from t = {t[steady][0]:.4g}; "
          f"{c['closed'][steady].min()}-{c['closed'][steady].max()} nodes in contact; "
          f"{c['changes'][t > 1].sum()} segment changes of contact nodes while sliding")
    for lo, hi in ((1.0, 2.0), (2.0, 3.0), (3.0, 4.0)):
        m = steady & (t > lo) & (t <= hi + 1e-12)
        if not m.any():
            continue
        print(f"  t in ({lo:g}, {hi:g}]: |Fx/Fy| mean {r[m].mean():.5f}, min {r[m].min():.5f}, "
              f"max {r[m].max():.5f}  ({100 * (r[m].min() / MU - 1):+.2f} % .. "
              f"{100 * (r[m].max() / MU - 1):+.2f} % from mu)")
    if result is not None and summary["dim"] == 2:
        g = pressure_centroid(result)
        tilt = g["offset"] / g["radius"]
        print(f"final state: contact half-width {g['half_width']:.3f}, pressure centroid "
              f"{g['offset']:+.4f} from the die axis ({g['offset'] / g['half_width']:+.3f} of the "
              f"half-width); mean normal tilt x/R = {tilt:+.5f} gives "
              f"(mu + x/R)/(1 - mu x/R) = {(MU + tilt) / (1 - MU * tilt):.5f}")
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
