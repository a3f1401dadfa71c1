"""Figures and the page of finite deformation: the O-ring, ironing, convergence, assembly, backends.

Usage: python docs/make_finite_strain.py [--out OUT_DIR] [--full]

Runs ``cases/oring2d.toml`` (and the same O-ring on a mesh twice as fine),
``cases/ironing2d_neo_hookean.toml`` (and with twice the increments), and the
O-ring with every linear solver backend; with ``--full`` also the ironing case
on a block mesh twice as fine with a die ten times (not a hundred times)
stiffer than the block, and ``cases/ironing3d.toml`` with neo-Hookean bodies
pressed by a fifth of the slab's thickness (about 10 minutes).  Reads ``docs/finite_strain_assembly.json`` (written by
``docs/make_finite_strain_assembly.py``).  Writes ``docs/finite_strain.json``,
``docs/finite_strain_oring.png``, ``docs/finite_strain_ironing.png`` and the
page ``docs/finite_strain.md``: every number on the page comes from these runs.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fecontact.references.metrics import lindley_force  # noqa: E402
from fecontact.run.static import run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ORING = ROOT / "cases" / "oring2d.toml"
IRONING = ROOT / "cases" / "ironing2d_neo_hookean.toml"
IRONING3D = ROOT / "cases" / "ironing3d.toml"
#: ironing3d with both bodies neo-Hookean and the die pressed by a fifth of the slab's thickness
IRONING3D_FINITE = ['bodies.0.material.model="neo_hookean"', 'bodies.1.material.model="neo_hookean"',
                    "bodies.1.dirichlet.0.value=-0.1", "bodies.1.mesh.refine_width=1.2"]


def newton_rates(summary: dict) -> dict:
    """Convergence of Newton once the contact status is settled, from the iteration records.

    For every Newton solve (records restart at iteration 0), consecutive
    iterations without a status change and with ``1e-7 < r_{k+1}`` and
    ``r_k < 1e-2`` (relative residuals: above the floor of the Krylov backends'
    steps, solved to a tenth of Newton's tolerance 1e-9) give
    ``C = r_{k+1} / r_k^2``, and triples give the observed order
    ``log(r_{k+1}/r_k) / log(r_k/r_{k-1})``.
    """
    solves, current = [], []
    for step in summary["steps"]:
        for rec in step.get("iterations", []):
            if rec["iteration"] == 0 and current:
                solves.append(current)
                current = []
            current.append(rec)
    if current:
        solves.append(current)
    constants, orders = [], []
    for solve in solves:
        r = [max(rec["equilibrium"], rec["complementarity"]) for rec in solve]
        settled = [rec["changed"] == 0 for rec in solve]
        for k in range(len(r) - 1):
            if settled[k + 1] and settled[k] and r[k] < 1e-2 and r[k + 1] > 1e-7:
                constants.append(r[k + 1] / r[k] ** 2)
                if k >= 1 and r[k - 1] > r[k] > r[k + 1]:
                    orders.append(np.log(r[k + 1] / r[k]) / np.log(r[k] / r[k - 1]))
    per_step = [st["newton_iterations"] for st in summary["steps"]]
    return {"newton_per_step_mean": float(np.mean(per_step)), "newton_per_step_max": int(max(per_step)),
            "increment_max": int(max(n for st in summary["steps"] for n in st["increment_iterations"])),
            "cutbacks": int(sum(st["cutbacks"] for st in summary["steps"])),
            "rate_constant_max": float(max(constants)) if constants else None,
            "order_median": float(np.median(orders)) if orders else None,
            "pairs": len(constants)}


def oring(out: Path) -> dict:
    result = run(ORING, out / "oring2d", write_vtu_files=False)
    s = result.summary
    case = result.model.case
    radius = case["bodies"][0]["mesh"]["radius"]
    E = case["bodies"][0]["material"]["E"]
    imposed = -case["bodies"][0]["dirichlet"][0]["value"]
    squeeze = np.array([st["load"] for st in s["steps"]]) * imposed / radius
    force = -np.array([st["reaction"]["mid-plane"][1] for st in s["steps"]])
    fields = result.solution.contact()
    order = np.argsort(fields.points[0])
    fine = run(ORING, out / "oring2d_fine", ["bodies.0.mesh.h_contact=0.015", "bodies.0.mesh.h_far=0.075"],
               write_vtu_files=False).summary
    m, mf = s["metrics"], fine["metrics"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    eps = np.linspace(0.0, squeeze.max(), 100)
    a.plot(100 * squeeze, force, "o-", label="fecontact (neo-Hookean, plane strain)")
    a.plot(100 * eps, lindley_force(eps, 2 * radius, E), "--", label="Lindley (empirical)")
    a.set_xlabel("squeeze (%)")
    a.set_ylabel("force per unit length of ring")
    a.legend()
    b.plot(fields.points[0, order], fields.pressure[order], ".-")
    b.set_xlabel("x (reference position on the section)")
    b.set_ylabel("contact pressure")
    b.set_title(f"squeeze {100 * m['squeeze']['value']:.0f} %")
    fig.tight_layout()
    fig.savefig(DOCS / "finite_strain_oring.png", dpi=100)
    plt.close(fig)
    return {"dofs": s["dofs"], "seconds": s["timings"]["total"], "fine_dofs": fine["dofs"],
            "metrics": {k: v["value"] for k, v in m.items()},
            "lindley": m["load"]["reference"], "lindley_rel_error": m["load"]["rel_error"],
            "fine_metrics": {k: v["value"] for k, v in mf.items()},
            "curve": {"squeeze": squeeze.tolist(), "force": force.tolist(),
                      "lindley": lindley_force(squeeze, 2 * radius, E).tolist()},
            "newton": newton_rates(s)}


def _ironing_curves(s: dict) -> dict:
    steps = s["steps"]
    load = np.array([st["load"] for st in steps])
    fx = np.array([st["reaction"]["slide"][0] for st in steps])
    fy = np.array([st["reaction"]["press"][1] for st in steps])
    steady = np.array([st["stick"] == 0 and st["slip"] > 0 for st in steps]) & (load > 1.0)
    ratio = np.abs(fx / fy)
    return {"load": load.tolist(), "fx": fx.tolist(), "fy": fy.tolist(), "ratio": ratio.tolist(),
            "steady_min": float(ratio[steady].min()), "steady_max": float(ratio[steady].max()),
            "steady_mean": float(ratio[steady].mean()),
            "newton": [st["newton_iterations"] for st in steps]}


def ironing(out: Path, full: bool) -> dict:
    runs = {"case": [], "twice_the_increments": ["steps.count=150"]}
    if full:
        runs["fine_die_ratio_10"] = ["bodies.0.mesh.nx=120", "bodies.0.mesh.ny=20",
                                     "bodies.1.material.E=10.0", "steps.count=150"]
    figures = {}
    for name, overrides in runs.items():
        result = run(IRONING, out / f"ironing_{name}", overrides, write_vtu_files=False)
        s = result.summary
        fields = result.solution.contact()
        N = (fields.area * fields.pressure * fields.normal).sum(axis=1)
        turned = np.array([-N[1], N[0]]) * np.sign(-N[1])
        mu = result.model.case["contact"][0]["friction"]["mu"]
        predicted = abs((N + mu * turned)[0] / (N + mu * turned)[1])
        curves = _ironing_curves(s)
        figures[name] = {"dofs": s["dofs"], "steps": len(s["steps"]), "seconds": s["timings"]["total"],
                         "converged": s["converged"], "tilt_degrees": float(np.degrees(np.arctan2(N[0], -N[1]))),
                         "ratio_from_current_normals": float(predicted),
                         "ratio_final": float(curves["ratio"][-1]),
                         "curves": curves, "newton": newton_rates(s)}
    c = figures["case"]["curves"]
    fig, (a, b, d) = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    a.plot(c["load"], c["fx"], label="F_x (slide)")
    a.plot(c["load"], -np.array(c["fy"]), label="-F_y (press)")
    a.set_ylabel("die reactions")
    a.legend()
    for name, f in figures.items():
        b.plot(f["curves"]["load"], f["curves"]["ratio"], label=f"{name} ({f['steps']} steps)")
    b.axhline(0.3, color="k", lw=0.8, ls="--", label="mu")
    b.set_ylim(0.25, 0.35)
    b.set_ylabel("|F_x / F_y|")
    b.legend(fontsize=8)
    d.step(c["load"], c["newton"], where="post")
    d.set_ylabel("Newton iterations")
    d.set_xlabel("t (press for t <= 1, slide 1 per unit t)")
    fig.tight_layout()
    fig.savefig(DOCS / "finite_strain_ironing.png", dpi=100)
    plt.close(fig)
    return figures


def ironing3d(out: Path) -> dict:
    """The 3D ironing case in finite deformation (``IRONING3D_FINITE``)."""
    s = run(IRONING3D, out / "ironing3d_neo_hookean", IRONING3D_FINITE, write_vtu_files=False).summary
    steps = s["steps"]
    load = np.array([st["load"] for st in steps])
    fx = np.array([st["reaction"]["slide"][0] for st in steps])
    fz = np.array([st["reaction"]["press"][2] for st in steps])
    steady = np.array([st["stick"] == 0 and st["slip"] > 0 for st in steps]) & (load > 1.0)
    ratio = np.abs(fx / fz)[steady]
    return {"dofs": s["dofs"], "steps": len(steps), "seconds": s["timings"]["total"],
            "converged": s["converged"], "steady_min": float(ratio.min()),
            "steady_max": float(ratio.max()), "steady_mean": float(ratio.mean()),
            "newton": newton_rates(s)}


def backends(out: Path) -> list:
    rows = []
    for name in ("direct", "schur", "amg", "factorization"):
        s = run(ORING, out / f"oring_{name}", [f'solver.backend="{name}"'], write_vtu_files=False).summary
        rows.append({"backend": name, "converged": s["converged"], "dofs": s["dofs"],
                     "newton": int(sum(st["newton_iterations"] for st in s["steps"])),
                     "krylov": s["timings"].get("krylov_iterations"),
                     "seconds": s["timings"]["total"], "linear_solve": s["timings"]["linear_solve"]})
    return rows


def page(data: dict) -> str:
    o, ir, asm = data["oring"], data["ironing"], data.get("assembly")
    om, of = o["metrics"], o["fine_metrics"]
    lines = [
        "# Finite deformation",
        "",
        "Bodies of a hyperelastic material (`material = { model = \"neo_hookean\", E, nu }` or "
        "`\"saint_venant_kirchhoff\"`; `fc.NeoHookean`, `fc.SaintVenantKirchhoff`) are solved in "
        "total Lagrangian form, with contact on the current configuration, by the same semismooth "
        "Newton method (theory: [theory.md](theory.md), section 13). Every figure on this page "
        "comes from `python docs/make_finite_strain.py`, which runs the cases below.",
        "",
        "## A rubber O-ring squeezed in its groove (`cases/oring2d.toml`)",
        "",
        "![O-ring](finite_strain_oring.png)",
        "",
        f"Squeeze {100 * om['squeeze']:.1f} %, {o['dofs']} DOFs (P2), {o['seconds']:.1f} s.",
        "",
        "| figure | this mesh | mesh twice as fine | Lindley |",
        "|---|---|---|---|",
        f"| force per unit length | {om['load']:.4g} | {of['load']:.4g} | {o['lindley']:.4g} "
        f"({100 * o['lindley_rel_error']:+.1f} %) |",
        f"| contact width | {om['contact_width']:.4g} | {of['contact_width']:.4g} | |",
        f"| peak pressure | {om['peak_pressure']:.4g} | {of['peak_pressure']:.4g} | |",
        f"| mean pressure | {om['mean_pressure']:.4g} | {of['mean_pressure']:.4g} | |",
        "",
        "Lindley's formula is an empirical fit to measured rubber O-rings (incompressible, real "
        "rings) over squeezes of about 5-30 %; its power law is not the small-squeeze limit of "
        "elasticity, where the force of a cylinder between plates falls like "
        "`eps / ln(1/eps)`. The first load levels approach Hertz's line contact "
        "(`cases/hertz2d.toml` is the same half-section at 1 % squeeze).",
        "",
        f"Newton: {o['newton']['newton_per_step_mean']:.1f} iterations per load step on average, "
        f"at most {o['newton']['increment_max']} per increment, {o['newton']['cutbacks']} cut-backs.",
        "",
        "## Ironing with neo-Hookean bodies (`cases/ironing2d_neo_hookean.toml`)",
        "",
        "![ironing](finite_strain_ironing.png)",
        "",
        "| run | DOFs | increments | run time (s) | steady \\|F_x/F_y\\| | from the current normals "
        "| normal tilt (deg) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, f in ir.items():
        c = f["curves"]
        lines.append(f"| {name} | {f['dofs']} | {f['steps']} | {f['seconds']:.1f} | "
                     f"{c['steady_min']:.4f} - {c['steady_max']:.4f} | "
                     f"{f['ratio_from_current_normals']:.4f} | {f['tilt_degrees']:.3f} |")
    case = ir["case"]
    i3 = data.get("ironing3d")
    if i3:
        lines += [
            "",
            "In 3D, `cases/ironing3d.toml` with both bodies neo-Hookean and the die pressed by a "
            "fifth of the slab's thickness (`--full`: " + ", ".join(f"`{o}`" for o in IRONING3D_FINITE)
            + f"): {i3['dofs']} DOFs, {i3['steps']} load steps, {i3['seconds']:.0f} s, "
            f"{'converged' if i3['converged'] else 'NOT converged'}, {i3['newton']['cutbacks']} "
            f"cut-backs, at most {i3['newton']['increment_max']} Newton iterations per increment; "
            f"in steady sliding |F_x/F_z| = {i3['steady_min']:.4f} - {i3['steady_max']:.4f} "
            f"(mean {i3['steady_mean']:.4f})."]
    lines += [
        "",
        "In steady sliding every closed node slips. The die ploughs: the block piles up ahead of "
        "it, the pressure-weighted contact normal leans forward, and the reaction ratio exceeds "
        "mu. With `N` the sum of the nodal normal forces on the current normals, a friction force "
        "tangent to the current surface makes the ratio that of `N + mu R N` (column \"from the "
        "current normals\"). The tangential traction acts along the tangent at the start of its "
        "increment, which sliding turns by the slide per increment over the die radius: the "
        "reactions differ from that ratio by a first-order term in the increment (compare the "
        "final ratios of the two runs: "
        f"{ir['case']['ratio_final']:.4f} and {ir['twice_the_increments']['ratio_final']:.4f}).",
        "",
        "The published ironing benchmarks (Yang, Laursen & Meng 2005; Puso & Laursen 2004) use "
        "their own geometry and loading, whose exact data are not reproduced here; their finding "
        "that node-to-segment contact gives a reaction ratio oscillating at the slave element "
        "spacing around a mean above mu is what this case shows.",
        "",
        f"Newton: {case['newton']['newton_per_step_mean']:.1f} iterations per load step on average, "
        f"at most {case['newton']['increment_max']} per increment, {case['newton']['cutbacks']} "
        "cut-backs.",
        "",
        "## Convergence of Newton's method",
        "",
        "Measured on the iterations without a change of contact status (relative residual "
        "`r_k < 1e-2`, `r_{k+1} > 1e-7`: above the accuracy the Krylov backends solve each "
        "step to): the constant `C = r_{k+1} / r_k^2` and the observed order.",
        "",
        "| case | iteration pairs | max C | median order |",
        "|---|---|---|---|",
    ]
    for name, n in (("oring2d", o["newton"]), ("ironing2d_neo_hookean", case["newton"])):
        C = "-" if n["rate_constant_max"] is None else f"{n['rate_constant_max']:.3g}"
        q = "-" if n["order_median"] is None else f"{n['order_median']:.2f}"
        lines.append(f"| {name} | {n['pairs']} | {C} | {q} |")
    if asm:
        lines += ["", "## Assembly", "",
                  "One residual and tangent assembly of a neo-Hookean body against the linear "
                  "stiffness assembly of the same mesh (`docs/make_finite_strain_assembly.py`).",
                  "", "| mesh | DOFs | linear (s) | force + tangent (s) | ratio | scikit-fem forms (s) |",
                  "|---|---|---|---|---|---|"]
        for key, a in asm.items():
            if isinstance(a, dict) and "dofs" in a:
                lines.append(f"| {key} | {a['dofs']} | {a['linear_seconds']:.3f} | "
                             f"{a['force_tangent_seconds']:.3f} | {a['ratio']:.2f} | "
                             f"{a['forms_seconds']:.2f} |")
    rows = data.get("backends")
    if rows:
        lines += ["", "## Linear solver backends", "",
                  "The O-ring case with each backend (the stiffness changes at every iteration; "
                  "[the decision record](developer/decisions/finite-deformation.md) says how each backend re-uses its set-up).", "",
                  "| backend | converged | Newton iterations | Krylov iterations | linear solves (s) "
                  "| run (s) |", "|---|---|---|---|---|---|"]
        for r in rows:
            k = "-" if r["krylov"] is None else str(r["krylov"])
            lines.append(f"| {r['backend']} | {r['converged']} | {r['newton']} | {k} | "
                         f"{r['linear_solve']:.2f} | {r['seconds']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "out" / "finite_strain"))
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out = Path(args.out)
    data = {"oring": oring(out), "ironing": ironing(out, args.full), "backends": backends(out)}
    if args.full:
        data["ironing3d"] = ironing3d(out)
    assembly = DOCS / "finite_strain_assembly.json"
    if assembly.is_file():
        data["assembly"] = json.loads(assembly.read_text())
    (DOCS / "finite_strain.json").write_text(json.dumps(data, indent=1) + "\n")
    (DOCS / "finite_strain.md").write_text(page(data))
    print((DOCS / "finite_strain.md").read_text())


if __name__ == "__main__":
    main()
