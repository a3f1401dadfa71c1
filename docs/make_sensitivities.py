"""Sensitivities by the discrete adjoint: cost and accuracy measured; writes docs/sensitivities.json
and the page docs/sensitivities.md.

    python docs/make_sensitivities.py              # the bundled cases at full size (minutes)
    python docs/make_sensitivities.py --quick      # coarser meshes of the same cases
    python docs/make_sensitivities.py --page-only  # re-render the page from the JSON

Cost: ``cases/hertz2d_friction.toml`` and ``cases/hertz3d.toml`` built with ``fc.load_case`` /
``fc.build_model`` with ``E`` (and ``mu``) as :class:`fecontact.Parameter`; the forward solve,
the gradient of the contact force with respect to them (split into the backward sweep and the
parameter partials) and one plain linear-elastic solve of the same system
(:func:`fecontact.run.static.linear_reference_seconds`, factorised) are timed.

Accuracy: small 2D and 3D models (two elastic bodies, frictionless and Coulomb); every
derivative by the adjoint against the central difference of two full re-solves with the
parameter moved by ``+-1e-5`` relative, Newton tolerance ``1e-12``, the re-solves taking the
same number of increments as the run.  Every number on the page comes from the JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "sensitivities.md"
DATA = ROOT / "docs" / "sensitivities.json"
NEWTON = {"tolerance": 1e-12}
#: relative step of the finite differences of re-solves
FD_STEP = 1e-5
#: the target: a gradient costs at most this fraction of the forward solve
TARGET = 0.3
#: coarser meshes of the cases for --quick
QUICK_MESH = {"hertz2d_friction": {"h_contact": 0.004, "h_far": 0.1},
              "hertz3d": {"h_contact": 0.04, "h_far": 0.25}}
EXAMPLES = [("identify_friction_modulus", "Identifying a friction coefficient and a modulus"),
            ("punch_crowning", "Crowning a punch"),
            ("master_sensitivity_map", "Sensitivity map of a master surface")]


# ---------------------------------------------------------------- cost of the bundled cases
def case_cost(name: str, quick: bool) -> dict:
    """Forward solve, gradient of the contact force in E (and mu), a linear solve, of one case."""
    import fecontact as fc
    from fecontact.run.static import linear_reference_seconds

    case = fc.load_case(ROOT / "cases" / f"{name}.toml")
    if quick:
        case["bodies"][0]["mesh"].update(QUICK_MESH[name])
    material = case["bodies"][0]["material"]
    params = [fc.Parameter(material["E"], name="E")]
    material["E"] = params[0]
    friction = case["contact"][0]["friction"]
    if "mu" in friction:
        params.append(fc.Parameter(friction["mu"], name="mu"))
        friction["mu"] = params[1]
    cm = fc.build_model(case)
    pair = case["contact"][0]["name"]
    component = "xyz"[cm.problem.dim - 1]
    tic = time.perf_counter()
    sol = cm.model.solve(levels=cm.levels, newton=cm.newton, stepping=cm.stepping, backend=cm.backend)
    forward = time.perf_counter() - tic
    assert sol.converged, sol.failure
    tic = time.perf_counter()
    g = sol.gradient(fc.qoi.ContactForce(pair, component), wrt=params)
    gradient = time.perf_counter() - tic
    linear = linear_reference_seconds(cm, 1.0)
    return {"case": name, "dofs": int(cm.problem.system.n_dofs),
            "contact_nodes": int(cm.problem.n_contact), "backend": cm.backend,
            "increments": len(sol.increments), "output_levels": len(sol.states),
            "quantity": f"ContactForce({pair!r}, {component!r})", "value": g.value,
            "derivatives": {p.name: float(g[p]) for p in params},
            "forward_seconds": forward, "gradient_seconds": gradient,
            "adjoint_seconds": g.adjoint_seconds, "partial_seconds": g.partial_seconds,
            "ratio": gradient / forward, "linear_seconds": linear,
            "gradient_over_linear": gradient / linear, "margin": g.margin, "nearest": g.nearest}


# ---------------------------------------------------------------- accuracy on small models
def _box2d(x0, x1, y0, y1, nx, ny):
    import skfem
    return skfem.MeshTri.init_tensor(np.linspace(x0, x1, nx), np.linspace(y0, y1, ny))


def _box3d(lines, heights):
    import skfem
    return skfem.MeshTet.init_tensor(lines, lines, heights)


def small_model(dim: int, friction: bool, values: dict | None = None):
    """A curved elastic pad pressed (and, with friction, pulled sideways) onto an elastic block.

    Returns ``(model, parameters, quantities)``; ``values`` replaces parameter values."""
    import skfem
    import fecontact as fc

    values = values or {}
    E = fc.Parameter(values.get("E", 2e4), name="E")
    mu = fc.Parameter(values.get("mu", 0.3), name="mu")
    press = fc.Parameter(values.get("press", -0.02), name="press")   # u of the top, down
    shift = 0.015 if friction else 0.0
    if dim == 2:
        pad = _box2d(-0.5, 0.5, 0.0, 0.4, 17, 5)
        x, y = pad.p
        pad = skfem.MeshTri(np.array([x, y + (1 - y / 0.4) * x**2 / 2.0]), pad.t)
        base = _box2d(-1.0, 1.0, -1.0, 0.0, 25, 9)
        up, bottom = 1, -1.0
    else:
        pad = _box3d(np.linspace(-0.4, 0.4, 7), np.array([0.0, 0.2, 0.4]))
        x, y, z = pad.p
        pad = skfem.MeshTet(np.array([x, y, z + (1 - z / 0.4) * (x**2 + y**2) / 2.0]), pad.t)
        base = _box3d(np.linspace(-0.8, 0.8, 11), np.array([-0.8, -0.3, 0.0]))
        up, bottom = 2, -0.8 if dim == 3 else -1.0
    axes = "xyz"[:dim]
    top = fc.Body("pad", pad, "P1", fc.LinearElastic(E=E, nu=0.3))
    moves = {a: 0.0 for a in axes}
    moves["x"] = shift
    moves[axes[up]] = press
    top.fix(lambda p: np.isclose(p[up], 0.4), name="pad-top", **moves)
    block = fc.Body("block", base, "P1", fc.LinearElastic(E=1e4, nu=0.3))
    block.fix(lambda p: np.isclose(p[up], bottom), name="block-bottom")
    law = fc.Coulomb(mu) if friction else fc.Frictionless()
    pair = fc.Contact(top.surface(lambda p: p[up] < 0.2 - 1e-9, name="bottom"),
                      block.surface(lambda p: np.isclose(p[up], 0.0), name="top"), law,
                      name="pad-on-block", formulation="node_to_segment")
    params = [E, press] + ([mu] if friction else [])
    quantities = [fc.qoi.ContactForce("pad-on-block", axes[up])]
    if friction:
        quantities.append(fc.qoi.Reaction("pad-top", "x"))
    return fc.Model([top, block], [pair]), params, quantities


def _measured(sol, dim: int, friction: bool) -> list:
    """The quantities of a re-solve read from its results (not from ``fc.qoi``): the normal
    contact force as minus the reaction of the pad's top (equilibrium of the pad; the pair's
    reported force differs from it by about 1e-5 relative with friction), the top's x reaction."""
    out = [-float(sol.reaction("pad-top")[dim - 1])]
    if friction:
        out.append(float(sol.reaction("pad-top")[0]))
    return out


def accuracy(dim: int, friction: bool, steps: int = 3) -> list:
    """Adjoint derivatives of the small model against central differences of re-solves."""
    model, params, quantities = small_model(dim, friction)
    sol = model.solve(steps=steps, newton=NEWTON)
    assert sol.converged, sol.failure
    tic = time.perf_counter()
    grads = sol.gradient(quantities, wrt=params)
    seconds = time.perf_counter() - tic
    rows = []
    for p in params:
        h = FD_STEP * abs(float(p))
        ends = []
        for s in (h, -h):
            m, _, _ = small_model(dim, friction, {q.name: float(q) + (s if q.name == p.name else 0.0)
                                                  for q in params})
            other = m.solve(steps=steps, newton=NEWTON)
            assert other.converged and len(other.increments) == len(sol.increments), \
                (p.name, len(other.increments), len(sol.increments))
            ends.append(_measured(other, dim, friction))
        fd = (np.array(ends[0]) - np.array(ends[1])) / (2 * h)
        for q, g, d in zip(quantities, grads, fd):
            rows.append({"dim": dim, "friction": "Coulomb mu = 0.3" if friction else "frictionless",
                         "quantity": repr(q), "parameter": p.name, "adjoint": float(g[p]),
                         "fd": float(d), "relative_difference": abs(float(g[p]) - d) / (abs(d) if d != 0 else 1.0),
                         "increments": len(sol.increments), "margin": grads[0].margin,
                         "gradient_seconds": seconds,
                         "dofs": int(sum(b.mesh.p.size for b in model.bodies))})
    return rows


def run(quick: bool) -> dict:
    """Measure everything the page shows."""
    result = {"machine": f"{platform.machine()}, {platform.python_implementation()} "
                         f"{platform.python_version()}", "quick": quick, "fd_step": FD_STEP,
              "newton_tolerance": NEWTON["tolerance"], "target": TARGET, "accuracy": [], "cost": []}
    for dim in (2, 3):
        for friction in (False, True):
            result["accuracy"] += accuracy(dim, friction)
            print(f"accuracy {dim}D friction={friction} done", flush=True)
    for name in ("hertz2d_friction", "hertz3d"):
        result["cost"].append(case_cost(name, quick))
        print(f"cost {name}: {result['cost'][-1]}", flush=True)
    return result


# ---------------------------------------------------------------- the page
THEORY = r"""
## What is differentiated

A static run is a chain of accepted increments ``k = 1..N``.  Increment ``k`` solves the
semismooth system

$$ R_k(x_k, x_{k-1}, x_{k-2}; p) = 0, \qquad x_k = (\hat u_k, \lambda_k), $$

for its displacements and contact tractions.  The increment reads the earlier ones through
its start state: the displacement ``u_{k-1}`` from which slip is measured, the gap and
tangent basis at ``u_{k-1}`` (slip directions, which nodes are apart), the normal traction
``lambda_n,k-1`` of lagged friction laws, and the approach rate over increment ``k - 1``
(a function of ``u_{k-1}`` and ``u_{k-2}``: where a node that closes in increment ``k``
first touches).  The discrete fields of the run — contact status, friction-law state, the
master facets each slave node projects on — are kept as the run found them.  ``p`` enters
through the model (a material constant, a friction coefficient, a prescribed value, the
coordinates of a boundary).

**The backward sweep.**  For a quantity ``Q(x_1..x_N; p)`` the Lagrangian
``L = Q - sum_k a_k^T R_k`` is stationary in every ``x_k`` when the adjoints solve,
backwards from ``k = N``,

$$ J_k^T a_k = \partial_{x_k} Q - C_{k+1,k}^T a_{k+1} - C_{k+2,k}^T a_{k+2}, $$

with ``J_k = dR_k/dx_k`` the generalised Jacobian Newton used at the converged point and
``C_{j,k} = dR_j/dx_k`` the cross terms of the path; then

$$ \frac{dQ}{dp} = \partial_p Q - \sum_k a_k^T \, \partial_p R_k . $$

Without friction no increment reads an earlier one (``C = 0``) and only the increments the
quantity reads need an adjoint: one transposed solve.  With friction every increment does.

**Cross terms.**  Only the contact terms of ``R_k`` read ``x_{k-1}`` and ``x_{k-2}``, and
only through the displacements of the contact stencils (a slave node and the master nodes
its rows involve) and the start pressures.  The products ``C^T a`` are central differences
of the contact terms with the displacements of many nodes perturbed at once: nodes whose
stencils share no slave node get one colour (a greedy colouring of ``S^T S S^T S``, ``S``
the node incidence of the stencils), so every row of a coloured difference comes from one
perturbed node.  Cost: ``2 dim`` contact-term evaluations per colour.

**Parameter partials.**  ``partial_p Q`` and ``partial_p R_k`` are central differences of
the quantity and the residuals at the run's unknowns, with the model made again
(`Model.with_values`) at ``p +- h``: four points ``p +- h, p +- 2h``, ``h = 10^-3 |p|``, for
a number (exact up to round-off for the many residuals linear in ``p``); two points per
node with ``h = 10^-6`` times the body's mean edge for a shape parameter — so a shape
parameter of ``k`` nodes costs ``2k`` model builds.  The step shrinks tenfold while a
contact status at a stencil point differs from the run's.  Newton's augmentations are the
run's at every point.

**Shape parameters.**  `Body.shape_parameter(where, direction="normal")` moves node ``i``
of a boundary by ``s_i d_i`` along its outward normal (or a fixed vector) and the rest of
the body by the harmonic extension of that motion (Laplace's equation per component on the
undeformed mesh, zero on the rest of the boundary).  The map ``s -> X`` is linear and fixed,
so the gradient has one entry per node.  Linear elements (P1, Q1) only.

**Kinks and the margin.**  Where a contact node sits on a status boundary the residual is
not differentiable; the adjoint uses the element of the generalised Jacobian that Newton
used (a node with ``lambda_n - c_n g_n = 0`` is closed, one with ``|z| = mu lambda_hat``
sticks), which is one one-sided derivative.  The gradient reports `margin`, the smallest
relative distance of any node to a status change over the increments it goes through
(``g / h`` for an open node, ``lambda_n / p_max`` for a closed one,
``| |z| - mu lambda_hat | / p_max`` for a frictional one), and `nearest`, where it is.

**What it is for in optimisation.**  The gradient is exact for the discrete path the run
took; a finite difference of re-solves agrees only while the re-solves take the same
increments and no node changes status.  Quantities such as the largest pressure
(`PeakPressure(pair)` without ``p``) follow one node and jump when another takes the
lead: use the smooth ``p``-mean `PeakPressure(pair, p=8)`, `ContactForce`, `Compliance`.
When `margin` is small the design sits on a kink: the objective is continuous but its
gradient jumps, and a gradient method may stall there — keep away from status changes
(multistart, or average the objective over a few nearby load levels or designs).
"""

API = '''
## The API in short

* `fc.Parameter(value, name=...)`: a float that stands wherever a number enters a model
  (material constants, friction coefficients, prescribed values, loads, obstacle sizes).
* `body.shape_parameter(where, direction="normal", extension="harmonic")`: one number per
  node of a boundary.
* `model.with_values({param: value, shape: array})`: the model made again with other values.
* `fc.qoi`: `Reaction`, `ContactForce`, `Displacement`, `PeakPressure`,
  `PressureUniformity`, `Compliance`, `Misfit`, sums and multiples.
* `solution.gradient(quantity or list, wrt=[...])` returns `fc.Gradient`: `.value`,
  `g[param]` (a float, or an array per shape parameter), `.margin`, `.nearest`,
  `.adjoint_seconds`, `.partial_seconds`.

```python
import numpy as np
import skfem
import fecontact as fc

E, mu = fc.Parameter(2e4, name="E"), fc.Parameter(0.3, name="mu")
pad = skfem.MeshTri.init_tensor(np.linspace(-0.5, 0.5, 17), np.linspace(0.0, 0.4, 5))
x, y = pad.p
pad = skfem.MeshTri(np.array([x, y + (1 - y / 0.4) * x**2 / 2]), pad.t)     # curved bottom
base = skfem.MeshTri.init_tensor(np.linspace(-1, 1, 25), np.linspace(-1, 0, 9))
top = fc.Body("pad", pad, "P1", fc.LinearElastic(E=E, nu=0.3))
top.fix(lambda p: np.isclose(p[1], 0.4), x=0.015, y=-0.02, name="pad-top")
block = fc.Body("block", base, "P1", fc.LinearElastic(E=1e4, nu=0.3))
block.fix(lambda p: np.isclose(p[1], -1.0), name="block-bottom")
shape = block.shape_parameter(lambda p: np.isclose(p[1], 0.0), name="block-top")
pair = fc.Contact(top.surface(lambda p: p[1] < 0.2, name="bottom"),
                  block.surface(lambda p: np.isclose(p[1], 0.0), name="top"),
                  fc.Coulomb(mu), name="pad-on-block", formulation="node_to_segment")
sol = fc.Model([top, block], [pair]).solve(steps=3)
force, peak = sol.gradient([fc.qoi.ContactForce("pad-on-block", "y"),
                            fc.qoi.PeakPressure("pad-on-block", p=8)], wrt=[E, mu, shape])
print(force.value, force[E], force[mu], peak[shape].shape, force.margin)
```
'''


def _g(v) -> str:
    return f"{v:.4g}"


def render(r: dict) -> str:
    """The page."""
    size = "coarser meshes (`--quick`)" if r["quick"] else "their bundled meshes"
    cost = ["| case | DOFs | contact nodes | increments | parameters | forward (s) | gradient (s) "
            "| of which adjoint (s) | of which partials (s) | gradient / forward | "
            "linear solve (s) | gradient / linear solve |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in r["cost"]:
        cost.append(f"| `{c['case']}` | {c['dofs']} | {c['contact_nodes']} | {c['increments']} | "
                    f"{', '.join(c['derivatives'])} | {c['forward_seconds']:.2f} | "
                    f"{c['gradient_seconds']:.2f} | {c['adjoint_seconds']:.2f} | "
                    f"{c['partial_seconds']:.2f} | **{c['ratio']:.2f}** | {c['linear_seconds']:.3f} | "
                    f"{c['gradient_over_linear']:.1f} |")
    values = ["| case | quantity | value | derivatives | margin |", "|---|---|---|---|---|"]
    for c in r["cost"]:
        d = ", ".join(f"d/d{k} = {_g(v)}" for k, v in c["derivatives"].items())
        values.append(f"| `{c['case']}` | `{c['quantity']}` | {_g(c['value'])} | {d} | "
                      f"{c['margin']:.3g} |")
    met = [c for c in r["cost"] if c["ratio"] <= r["target"]]
    measured = ", ".join(f"{c['ratio']:.2f} for `{c['case']}`" for c in r["cost"])
    verdict = (f"The target for the cost is a gradient at most {r['target']} times the forward solve. "
               f"Measured: {measured}; "
               + ("the target is met for " + ", ".join(f"`{c['case']}`" for c in met) + "."
                  if met else "the target is **not met** on either case."))
    explain = []
    for c in r["cost"]:
        share = c["adjoint_seconds"] / c["gradient_seconds"]
        explain.append(f"`{c['case']}`: {c['increments']} increments, the backward sweep takes "
                       f"{share:.0%} of the gradient time and the parameter partials "
                       f"{c['partial_seconds'] / c['gradient_seconds']:.0%}.")
    acc = ["| model | friction | quantity | parameter | adjoint | central FD of re-solves | "
           "relative difference | increments | margin |", "|---|---|---|---|---|---|---|---|---|"]
    for a in r["accuracy"]:
        acc.append(f"| {a['dim']}D, {a['dofs']} DOFs | {a['friction']} | `{a['quantity']}` | "
                   f"{a['parameter']} | {a['adjoint']:.10g} | {a['fd']:.10g} | "
                   f"{a['relative_difference']:.2e} | {a['increments']} | {a['margin']:.3g} |")
    worst = max(a["relative_difference"] for a in r["accuracy"])
    links = [f"* [{title}](examples/{stem}.md) (`docs/examples/{stem}.py`)" for stem, title in EXAMPLES]
    text = [
        "# Sensitivities", "",
        ("Gradients of results with respect to a model's numbers and shapes, by the discrete "
         "adjoint of the semismooth contact system: exact derivatives of the discrete path the "
         "run took, at the cost of one transposed linear solve per increment (fewer without "
         "friction) and a few model builds per parameter.  How to use them is in the "
         "[guide](guide/sensitivities.md); this page states what is differentiated and what "
         "it costs, measured."), "",
        ("Generated by `python docs/make_sensitivities.py` (machine: "
         f"{r['machine']}); every number comes from `docs/sensitivities.json`, which the same "
         "script writes from its runs."),
        THEORY, API,
        "## Cost", "",
        (f"The bundled cases at {size}, `E` (and `mu`) of the case dict made `fc.Parameter`, "
         "the gradient of the contact force of the pair.  Forward: the whole quasi-static run "
         "with the case's steps, Newton and backend.  Linear solve: one plain linear-elastic "
         "solve of the same system, factorised from scratch "
         "(`fecontact.run.static.linear_reference_seconds`).  Times are wall seconds on a "
         "shared two-core machine (they vary by tens of per cent)."), "",
        *cost, "", verdict, "", *explain, "",
        ("The backward sweep solves with the transposed Jacobian of each increment it needs "
         "by the `schur` condensation (one factorisation of the bulk stiffness for all "
         "increments, a dense system on the closed contact rows), or by a sparse LU of the "
         "whole matrix where that condensation does not apply, whatever backend the forward "
         "run used.  Without friction only the last increment needs an adjoint; with friction "
         "every increment does, plus the cross terms.  The parameter partials cost four model "
         "builds and residual evaluations per number.  Run to run the times on this shared "
         "machine vary by up to a factor of two."), "",
        ("Where the time goes.  In 3D the transposed solve is the cost: the `schur` "
         "condensation factorises the bulk stiffness by Cholesky and computes the compliance "
         "of every closed contact DOF by back-substitution, while the forward run's Krylov "
         "backend never factorises the 3D stiffness; the forward backends themselves solve "
         "only `J x = r` (their projections are built for the rows of `J`, not of `J^T`).  In "
         "2D with friction every increment needs its cross terms (central differences of the "
         "contact rows in the start state) and its share of the parameter partials, each a "
         "few evaluations of the contact kinematics.  A transposed Krylov solve with the "
         "forward backend's preconditioner, and partials that re-use the kinematics of "
         "parameters that do not move the geometry, are what would bring the ratio down."), "",
        *values, "",
        "## Accuracy", "",
        (f"Small models (a curved elastic pad pressed onto an elastic block, node-to-segment, "
         f"P1, 3 steps; with friction also pulled sideways by 0.015 so that part of the patch slips; "
         f"where the difference of re-solves is 0 the difference is absolute). "
         f"Central differences of two full re-solves with the parameter moved by "
         f"±{r['fd_step']:g} relative, Newton tolerance {r['newton_tolerance']:g}, each re-solve "
         f"taking the same increments as the run; the contact force of a re-solve is read as "
         f"minus the support reaction of the pad's top (the pad's equilibrium).  `press` is the prescribed "
         f"displacement of the pad's top (downwards, -0.02).  Largest relative difference: {worst:.1e}."), "",
        *acc, "",
        "## Examples", "",
        *links, "",
    ]
    return "\n".join(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="coarser meshes of the cases")
    parser.add_argument("--page-only", action="store_true", help="re-render the page from the JSON")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.page_only:
        result = json.loads(DATA.read_text())
    else:
        result = run(args.quick)
        DATA.write_text(json.dumps(result, indent=1, default=float) + "\n")
    PAGE.write_text(render(result))


if __name__ == "__main__":
    main()
