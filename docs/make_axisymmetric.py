"""Axisymmetric contact verified: a sphere on a rigid and on an elastic flat (Hertz, and the 3D
quarter model of the same problem), a press fit against Lamé, an O-ring squeezed in a face
groove next to its plane-strain section; writes docs/axisymmetric.json and the page
docs/axisymmetric.md.

    python docs/make_axisymmetric.py              # mesh and solve everything (about a minute)
    python docs/make_axisymmetric.py --page-only  # re-render the page from the JSON

The models are built with the public API from meshes Gmsh writes in the ``(r, z)`` half plane
(``docs/axisymmetric_meshes.py``).  The same functions build the models of
``tests/test_axisymmetric_contact_physics.py``, so the bounds there are measured on these meshes.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from axisymmetric_meshes import SectionSize, cylinder_flat_quarter, flat_section, ring_section, sphere_section

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "axisymmetric.md"
DATA = ROOT / "docs" / "axisymmetric.json"

#: the sphere and the flat of docs/make_contact_accuracy.py (mm, N, MPa): steel on aluminium
SPHERE = {"R": 10.0, "E": 210e3, "nu": 0.3}
FLAT = {"E": 70e3, "nu": 0.33}
#: the approach of the sphere's top (z = height) towards the flat's bottom
APPROACH = 0.1
#: surface of the sphere that may touch: below this height
CAP = 0.5
#: press fit: shaft radius b, hub outer radius c, radial interference delta, length, steel
FIT = {"b": 1.0, "c": 2.0, "delta": 1e-3, "length": 0.5, "E": 200e3, "nu": 0.3}
#: O-ring: cord diameter 2, rubber (E, nu), squeeze 25 % (the plane-strain case cases/oring2d.toml)
ORING = {"d": 2.0, "E": 5.0, "nu": 0.49, "squeeze": 0.25, "h_contact": 0.03, "h_far": 0.15}
#: the accuracy targets of the issue: peak 1 %, radius one element, balance 1e-6, press fit 1 %
TARGETS = {"peak": 0.01, "balance": 1e-6, "fit": 0.01}

SECTION = SectionSize(h_pole=0.02, h_far=1.0, fine=1.3, ramp=5.0)
COARSE = SectionSize(h_pole=0.05, h_far=1.5, fine=1.3, ramp=5.0)
#: the mesh sizes of the 3D quarter model (docs/make_contact_accuracy.py's FULL)
AS_3D = SectionSize(h_pole=0.1, h_far=1.5, fine=1.3, ramp=5.0)


def sphere_model(flat: str, size: SectionSize, folder: Path, formulation: str | None = None):
    """The axisymmetric sphere pressed by :data:`APPROACH` on a rigid (``flat = "rigid"``) or
    elastic (``"elastic"``) flat; the sphere is the slave.  Returns ``(model, meshes)``."""
    import fecontact as fc
    t0 = time.perf_counter()
    ball_mesh = fc.load_mesh(sphere_section(folder / "sphere.msh", size, SPHERE["R"]))
    meshes = {"sphere": ball_mesh}
    ball = fc.Body("sphere", ball_mesh, "P1",
                   fc.LinearElastic(E=SPHERE["E"], nu=SPHERE["nu"], plane="axisymmetric"))
    ball.fix("top", y=-APPROACH, name="sphere-top")
    cap = ball.surface(lambda x: (x[1] < CAP) & (x[0] > 0.0), name="cap")
    options = {} if formulation is None else {"formulation": formulation}
    bodies = [ball]
    if flat == "rigid":
        master = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    else:
        meshes["flat"] = fc.load_mesh(flat_section(folder / "flat.msh", size))
        block = fc.Body("flat", meshes["flat"], "P1",
                        fc.LinearElastic(E=FLAT["E"], nu=FLAT["nu"], plane="axisymmetric"))
        block.fix("bottom", y=0.0, name="flat-bottom")
        bodies.append(block)
        master = block.surface("top")
    meshes["mesh_seconds"] = time.perf_counter() - t0
    pair = fc.Contact(cap, master, fc.Frictionless(), name="contact", **options)
    return fc.Model(bodies, [pair]), meshes


def revolved_force(r: np.ndarray, z: np.ndarray, p: np.ndarray) -> float:
    """``2 pi int r p ds`` of the piecewise-linear pressure on the polyline of nodes sorted by r."""
    order = np.argsort(r)
    r, z, p = r[order], z[order], p[order]
    ds = np.hypot(np.diff(r), np.diff(z))
    return float(np.sum(2.0 * np.pi * ds * (p[:-1] * (2 * r[:-1] + r[1:]) + p[1:] * (r[:-1] + 2 * r[1:])) / 6.0))


def sphere_figures(result, flat: str) -> dict:
    """Accuracy figures of a solved sphere model: Hertz for the load ``P`` (the axial contact force,
    a total over the circumference)."""
    import fecontact as fc
    from fecontact.references.analytic2d import effective_modulus
    from fecontact.references.analytic3d import HertzSphere
    c = result.contact("contact")
    r, z = c.points[0], c.points[1]
    p = c.pressure
    closed = c.status != fc.Status.OPEN
    P = float(c.force[1].sum())
    E_star = (SPHERE["E"] / (1 - SPHERE["nu"] ** 2) if flat == "rigid" else
              float(effective_modulus(SPHERE["E"], SPHERE["nu"], FLAT["E"], FLAT["nu"])))
    hertz = HertzSphere(P, SPHERE["R"], E_star)
    a, p0 = hertz.contact_radius, hertz.peak_pressure
    reaction = -float(result.reaction("sphere-top")[1])
    edge = float(r[closed].max())
    beyond = r[~closed & (r > edge)]
    h_edge = float(beyond.min() - edge) if beyond.size else float("nan")
    core = closed & (r < 0.8 * a)
    ratio = p[core] / hertz.pressure(r[core])
    order = np.argsort(r)
    near = r[order] < 1.5 * a
    return {
        "load": P, "reaction": reaction, "contact_radius": a, "peak_pressure": p0,
        "pair_force": [float(v) for v in result.pair("contact").force],
        "pair_area": float(result.pair("contact").area),
        "balance": abs(P - reaction) / reaction,
        "integral_balance": abs(revolved_force(r, z, p) - reaction) / reaction,
        "axial_integral_balance": abs(revolved_force(r, z, p * c.normal[1]) - reaction) / reaction,
        "lumped_axial_balance": abs(float(np.sum(c.area * p * c.normal[1])) - reaction) / reaction,
        "peak_error": float(p.max() / p0 - 1.0),
        "rms_core": float(np.sqrt(np.mean((ratio - 1.0) ** 2))),
        "last_closed_radius": edge, "element_at_edge": h_edge,
        "radius_offset": (edge - a) / h_edge,
        "radius_error_area": float(np.sqrt(c.area[closed].sum() / np.pi) / a - 1.0),
        "closed_nodes": int(closed.sum()), "slave_nodes": int(r.size),
        "profile": {"r": np.round(r[order][near] / a, 5).tolist(), "p": np.round(p[order][near] / p0, 5).tolist()},
    }


def solve_sphere(flat: str, size: SectionSize = SECTION, formulation: str | None = None) -> dict:
    """Mesh, solve (one load step) and measure the axisymmetric sphere on a flat."""
    with tempfile.TemporaryDirectory() as tmp:
        model, meshes = sphere_model(flat, size, Path(tmp), formulation)
    out = {"flat": flat, "h_pole": size.h_pole, "mesh_seconds": meshes.pop("mesh_seconds"),
           "nodes": int(sum(m.p.shape[1] for m in meshes.values())),
           "dofs": int(sum(2 * m.p.shape[1] for m in meshes.values())),
           "method": model.contacts[0].method}
    t0 = time.perf_counter()
    result = model.solve()
    out["solve_seconds"] = time.perf_counter() - t0
    out["converged"] = bool(result.converged)
    if result.converged:
        out.update(sphere_figures(result, flat))
    return out


def sphere_3d(size=None) -> dict:
    """The same problem in 3D: the quarter sphere of docs/make_contact_accuracy.py (tetrahedra,
    ``size`` its ``FULL`` by default) on the quarter of the same cylinder as the axisymmetric flat
    (radius and depth 10), symmetry planes x = 0 and y = 0; Hertz for 4 times the quarter's load."""
    import fecontact as fc
    import make_contact_accuracy as acc
    from contact_accuracy_meshes import sphere_mesh
    size = acc.FULL if size is None else size
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        ball_mesh = fc.load_mesh(sphere_mesh(Path(tmp) / "sphere.msh", size, SPHERE["R"]))
        flat_mesh = fc.load_mesh(cylinder_flat_quarter(Path(tmp) / "flat.msh", size, 10.0, 10.0))
        mesh_seconds = time.perf_counter() - t0
    ball = fc.Body("sphere", ball_mesh, "P1", fc.LinearElastic(E=SPHERE["E"], nu=SPHERE["nu"]))
    ball.fix("xsym", x=0.0, name="sphere-xsym").fix("ysym", y=0.0, name="sphere-ysym")
    ball.fix("top", z=-APPROACH, name="sphere-top")
    block = fc.Body("flat", flat_mesh, "P1", fc.LinearElastic(E=FLAT["E"], nu=FLAT["nu"]))
    block.fix("xsym", x=0.0, name="flat-xsym").fix("ysym", y=0.0, name="flat-ysym")
    block.fix("bottom", z=0.0, name="flat-bottom")
    tol = 1e-6 * SPHERE["R"]
    cap = ball.surface(lambda x: (x[2] < size.cap) & (x[0] > tol) & (x[1] > tol), name="cap")
    model = fc.Model([ball, block], [fc.Contact(cap, block.surface("top"), fc.Frictionless(), name="contact")])
    out = {"mesh_seconds": mesh_seconds, "h_pole": size.h_pole, "method": model.contacts[0].method,
           "dofs": int(3 * (ball_mesh.p.shape[1] + flat_mesh.p.shape[1]))}
    t0 = time.perf_counter()
    result = model.solve()
    out["solve_seconds"] = time.perf_counter() - t0
    out["converged"] = bool(result.converged)
    if result.converged:
        figures = acc.sphere_figures(result)
        out.update({k: figures[k] for k in ("load", "contact_radius", "peak_pressure", "balance",
                                             "peak_error", "rms_core", "radius_error")})
    return out


def lame_pressure(E: float, nu: float, b: float, c: float, delta: float) -> float:
    """Interface pressure of a hub (bore ``b``, outer radius ``c``) on a solid shaft of the same
    material, radial interference ``delta``, plane strain (``eps_z = 0``)."""
    return E * delta * (c**2 - b**2) / (2.0 * b * c**2 * (1.0 - nu**2))


def press_fit_model(h_shaft: float, h_hub: float, folder: Path, formulation: str | None = None,
                    h: float = 0.1):
    """A slice of a long shaft in a long hub, ``u_z = 0`` on both ends of both (``eps_z = 0``, so
    Lamé's plane-strain pressure holds along the whole length); the interference is an initial
    overlap (shaft radius ``b + delta/2``, bore ``b - delta/2``), the hub's bore the slave.  The
    interface meshes do not match (sizes ``h_shaft``, ``h_hub``)."""
    import fecontact as fc
    b, c, delta, L = FIT["b"], FIT["c"], FIT["delta"], FIT["length"]
    material = fc.LinearElastic(E=FIT["E"], nu=FIT["nu"], plane="axisymmetric")
    shaft = fc.Body("shaft", fc.load_mesh(ring_section(folder / "shaft.msh", 0.0, b + delta / 2, L, h,
                                                       h_shaft, "outer")), "P1", material)
    hub = fc.Body("hub", fc.load_mesh(ring_section(folder / "hub.msh", b - delta / 2, c, L, h, h_hub,
                                                   "inner")), "P1", material)
    for body in (shaft, hub):
        body.fix("bottom", y=0.0, name=f"{body.name}-bottom").fix("top", y=0.0, name=f"{body.name}-top")
    options = {} if formulation is None else {"formulation": formulation}
    pair = fc.Contact(hub.surface("inner"), shaft.surface("outer"), fc.Frictionless(), name="fit",
                      penetration_tolerance=4 * delta, **options)
    return fc.Model([shaft, hub], [pair]), {"shaft": shaft.mesh, "hub": hub.mesh}


def press_fit(h_shaft: float = 0.04, h_hub: float = 0.03, formulation: str | None = None) -> dict:
    """Mesh, solve and measure the press fit against Lamé: the nodal pressures and the total radial
    force ``2 pi b L p``."""
    import fecontact as fc
    with tempfile.TemporaryDirectory() as tmp:
        model, meshes = press_fit_model(h_shaft, h_hub, Path(tmp), formulation)
    out = {"h_shaft": h_shaft, "h_hub": h_hub, "method": model.contacts[0].method,
           "dofs": int(sum(2 * m.p.shape[1] for m in meshes.values()))}
    t0 = time.perf_counter()
    result = model.solve()
    out["solve_seconds"] = time.perf_counter() - t0
    out["converged"] = bool(result.converged)
    if not result.converged:
        return out
    lame = lame_pressure(FIT["E"], FIT["nu"], FIT["b"], FIT["c"], FIT["delta"])
    f = result.contact("fit")
    p = f.pressure
    pair = result.pair("fit")
    total = 2 * np.pi * FIT["b"] * FIT["length"] * lame
    out.update({
        "lame": lame, "mean_error": float(np.sum(p * f.area) / np.sum(f.area) / lame - 1.0),
        "worst_node_error": float(np.abs(p / lame - 1.0).max()),
        "open": int(np.sum(f.status == fc.Status.OPEN)), "slave_nodes": int(p.size),
        "radial_force": float(pair.force[0]), "radial_force_error": float(abs(pair.force[0]) / total - 1.0),
        "axial_force": float(pair.force[1]), "area": float(pair.area),
        "area_error": float(pair.area / (2 * np.pi * (FIT["b"] - FIT["delta"] / 2) * FIT["length"]) - 1.0),
    })
    return out


def oring(mean_radius: float | None, held: bool = False, squeeze: float = ORING["squeeze"],
          material: str = "neo_hookean", element: str = "P2", steps: int = 10) -> dict:
    """The lower half of an O-ring section squeezed onto a rigid flat: plane strain
    (``mean_radius`` None; force per unit length) or a ring of that mean radius about the axis
    in a face groove (force per unit length of the mean circumference ``F / (2 pi R_m)``);
    ``held``: the section's centre held radially (``u_r = 0``: the ring cannot grow)."""
    import fecontact as fc
    from fecontact.mesh import half_disc
    R = ORING["d"] / 2
    axi = mean_radius is not None
    xc = mean_radius if axi else 0.0
    mesh = half_disc(radius=R, center=(xc, R), side="lower", h_contact=ORING["h_contact"],
                     h_far=ORING["h_far"], refine_width=R, grading=1.15)
    plane = "axisymmetric" if axi else "strain"
    kind = fc.NeoHookean if material == "neo_hookean" else fc.LinearElastic
    ring = fc.Body("ring", mesh, element, kind(E=ORING["E"], nu=ORING["nu"], plane=plane))
    ring.fix("flat", y=-squeeze * R, name="mid-plane")
    if held or not axi:               # a plane section's rigid motion along x; a ring has none
        ring.fix(point=(xc, R), x=0.0, name="centre")
    pair = fc.Contact(ring.surface("contact"), fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)),
                      fc.Frictionless(), name="ring-on-plate")
    t0 = time.perf_counter()
    result = fc.Model([ring], [pair]).solve(steps=steps)
    out = {"mean_radius": mean_radius, "held": held, "seconds": time.perf_counter() - t0,
           "converged": bool(result.converged)}
    if not result.converged:
        return out
    c = result.contact("ring-on-plate")
    closed = c.status != fc.Status.OPEN
    force = float(result.pair("ring-on-plate").force[1])
    x = c.points[0][closed]
    out.update({"force": force, "force_per_length": force / (2 * np.pi * mean_radius) if axi else force,
                "width": float(x.max() - x.min()), "centre_of_contact": float(np.mean(x)),
                "peak_pressure": float(c.pressure.max())})
    return out


#: the O-ring runs (mean radius in mm, the cord is 2 mm; centre held radially): None is the plane-strain section
ORING_RUNS = [(None, False), (10.0, False), (2.5, False), (10.0, True), (100.0, True)]


#: the sphere runs: name, flat, mesh, formulation (None: the default)
SPHERE_RUNS = [("rigid", "rigid", SECTION, None), ("rigid-coarse", "rigid", COARSE, None),
               ("elastic", "elastic", SECTION, None), ("elastic-nts", "elastic", SECTION, "node_to_segment"),
               ("elastic-coarse-nts", "elastic", COARSE, "node_to_segment"),
               ("elastic-3d-sizes-nts", "elastic", AS_3D, "node_to_segment")]


def run_all(commit: str | None = None, three_d: bool = True) -> dict:
    """Every run of the page; ``three_d`` also the 3D quarter model of the sphere on the elastic flat."""
    if commit is None:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
    data = {"machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
            "commit": commit, "targets": TARGETS, "sphere": {}}
    for name, flat, size, formulation in SPHERE_RUNS:
        data["sphere"][name] = solve_sphere(flat, size, formulation)
        print("sphere", name, f"{data['sphere'][name]['solve_seconds']:.2f} s", flush=True)
    data["fit"] = {"default": press_fit(), "node_to_segment": press_fit(formulation="node_to_segment")}
    print("press fit", flush=True)
    data["oring"] = [oring(R, held) for R, held in ORING_RUNS]
    print("o-ring", flush=True)
    if three_d:
        data["sphere3d"] = sphere_3d()
        print("sphere 3D", f"{data['sphere3d']['solve_seconds']:.1f} s", flush=True)
    return data


def _pct(x: float) -> str:
    return f"{x:+.2%}"


def render(data: dict) -> str:
    """The page's markdown."""
    s = data["sphere"]
    lines = [
        "# Axisymmetric contact: verification", "",
        f"Generated by `docs/make_axisymmetric.py` (commit {data['commit']}, {data['machine']}). "
        "Bodies of revolution are meshed in the `(r, z)` half plane with P1 triangles written by "
        "Gmsh; every integral carries `2 pi r`, so forces are totals over the circumference and "
        "pressures per area ([bodies](guide/bodies.md#axisymmetric-bodies), "
        "[contact](guide/contact.md#axisymmetric-contact)).", "",
        "## Sphere on a flat (Hertz)", "",
        f"A steel sphere (R = {SPHERE['R']:g} mm, E = {SPHERE['E']:g} MPa, nu = {SPHERE['nu']}) cut at "
        f"z = 5, its top pushed down by {APPROACH} onto a rigid flat or onto an aluminium cylinder "
        f"(E = {FLAT['E']:g} MPa, nu = {FLAT['nu']}, radius and depth 10, bottom held in z), "
        "frictionless, one load step; the mesh is graded from the pole (size `h_pole` within 1.3 "
        "of it). Hertz is evaluated for the computed load P (the axial contact force). The contact "
        "radius is the radius of the last closed node, compared with Hertz's `a` in elements (the "
        "distance to the first open node). The last column is the axial force `2 pi int r p n_z ds` "
        "of the nodal pressures (lumped, `sum A_j p_j n_z`) against the support's reaction; on the "
        "rigid flat `n_z = 1` and the integral of the linear pressure profile gives the same figure. "
        "(On the elastic flat the pressure without `n_z`, `2 pi int r p ds`, is the normal force, "
        f"{s['elastic']['integral_balance']:.1e} above the axial one: the contact normals tilt with "
        "the indentation.)", "",
        "| flat | h_pole | formulation | DOFs | solve (s) | P (N) | peak vs Hertz | RMS core | "
        "last closed - a (elements) | axial force vs reaction |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for key, run in s.items():
        if not run.get("converged"):
            lines.append(f"| {key} | {run['h_pole']} | {run['method']} | {run['dofs']} | - | not converged |||||")
            continue
        lines.append(f"| {key} | {run['h_pole']} | {run['method']} | {run['dofs']} | "
                     f"{run['solve_seconds']:.2f} | {run['load']:.5g} | {_pct(run['peak_error'])} | "
                     f"{run['rms_core']:.2%} | {run['radius_offset']:+.2f} | "
                     f"{run['lumped_axial_balance']:.1e} |")
    if "sphere3d" in data:
        t = data["sphere3d"]
        e = s["elastic"]
        lines += [
            "", "### The same problem in 3D", "",
            "The quarter model of the sphere of docs/make_contact_accuracy.py (tetrahedra, `h_pole` "
            "0.1, growing to 1.5) on the quarter of the same cylinder (P1 tetrahedra graded alike), "
            "symmetry planes x = 0 and y = 0, against the axisymmetric section on the elastic flat:", "",
            "| model | DOFs | solve (s) | P (N) | peak vs Hertz | contact radius vs Hertz |",
            "|---|---|---|---|---|---|",
            f"| 3D quarter ({t['method']}) | {t['dofs']} | {t['solve_seconds']:.1f} | {t['load']:.5g} | "
            f"{_pct(t['peak_error'])} | {_pct(t['radius_error'])} |",
            *[f"| axisymmetric, h_pole {a['h_pole']} ({a['method']}) | {a['dofs']} | {a['solve_seconds']:.2f} | "
              f"{a['load']:.5g} | {_pct(a['peak_error'])} | {_pct(a['radius_error_area'])} |"
              for a in (s["elastic"], s["elastic-nts"], s["elastic-coarse-nts"], s["elastic-3d-sizes-nts"])], "",
            f"The 3D load is {_pct(t['load'] / e['load'] - 1)} above the finest section's and "
            f"{_pct(t['load'] / s['elastic-3d-sizes-nts']['load'] - 1)} above the section meshed with "
            "the 3D sizes: linear tetrahedra are stiffer than linear triangles, and the sections' load "
            "falls with the mesh size (0.1, 0.05, 0.02: "
            f"{s['elastic-3d-sizes-nts']['load']:.5g}, {s['elastic-coarse-nts']['load']:.5g}, "
            f"{s['elastic-nts']['load']:.5g} N). At the 3D model's accuracy (its peak "
            f"{_pct(t['peak_error'])}) the axisymmetric section of h_pole 0.05 with node-to-segment "
            f"({_pct(s['elastic-coarse-nts']['peak_error'])}) solves in "
            f"{s['elastic-coarse-nts']['solve_seconds']:.2f} s, "
            f"{t['solve_seconds'] / s['elastic-coarse-nts']['solve_seconds']:.0f} times faster; at "
            "h_pole 0.02 (peak within 1 %) node-to-segment takes "
            f"{s['elastic-nts']['solve_seconds']:.1f} s and the default mortar "
            f"{e['solve_seconds']:.1f} s: the smoothed mortar's integrals cost about 0.2 s per "
            "evaluation here, and its first increment is cut back once (at the pole, whose small area "
            "takes the whole force in the first iterate; see the [decision record]"
            "(developer/decisions/axisymmetric-contact.md)). Contact radii in this table from the "
            "closed area, `sqrt(A / pi)`."]
    f = data["fit"]
    lines += [
        "", "## Press fit (Lamé)", "",
        f"A solid shaft in a hub (b = {FIT['b']}, c = {FIT['c']}, radial interference {FIT['delta']}, "
        f"E = {FIT['E']:g}, nu = {FIT['nu']}), a slice of length {FIT['length']} with `u_z = 0` on both "
        "ends of both bodies: then `eps_z = 0` and Lamé's plane-strain pressure holds along the "
        "whole length. The interference is an initial overlap (`penetration_tolerance`); the "
        "interface meshes do not match (hub 0.03, shaft 0.04). The total radial force is "
        "`2 pi b L p`.", "",
        "| formulation | DOFs | mean pressure vs Lamé | worst node | total radial force vs 2 pi b L p |",
        "|---|---|---|---|---|"]
    for key, run in f.items():
        lines.append(f"| {run['method']} | {run['dofs']} | {_pct(run['mean_error'])} | "
                     f"{run['worst_node_error']:.2%} | {_pct(run['radial_force_error'])} |")
    o = data["oring"]
    plane = o[0]
    lines += [
        "", "## O-ring: axisymmetric next to plane strain", "",
        "The O-ring of `cases/oring2d.toml` (cord 2 mm, neo-Hookean E = 5 MPa, nu = 0.49, P2, "
        "squeezed 25 % onto a rigid flat, ten steps) as a ring of mean radius R_m about the axis "
        "(a face seal: squeezed along the axis), beside its plane-strain section. The force is per "
        "unit length of the mean circumference, `F / (2 pi R_m)`.", "",
        "| model | force per length (N/mm) | vs plane strain | contact width | contact centre - R_m | "
        "peak pressure (MPa) |", "|---|---|---|---|---|---|"]
    for run in o:
        name = ("plane strain" if run["mean_radius"] is None else
                f"axisymmetric, R_m = {run['mean_radius']:g}" + (", centre held radially" if run["held"] else ""))
        if not run.get("converged"):
            lines.append(f"| {name} | not converged |||||")
            continue
        offset = run["centre_of_contact"] - (run["mean_radius"] or 0.0)
        lines.append(f"| {name} | {run['force_per_length']:.4f} | "
                     f"{_pct(run['force_per_length'] / plane['force_per_length'] - 1)} | "
                     f"{run['width']:.4f} | {offset:+.4f} | {run['peak_pressure']:.3f} |")
    lines += [
        "", "The difference is the hoop term `eps_theta = u_r / r`. A plane section keeps its "
        "out-of-plane strain at zero. A free ring does not: squeezed along the axis, its section "
        "spreads, and the whole ring grows in radius (a uniform `u_r` costs no in-plane strain), so "
        "its hoop strain relaxes towards the uniaxial state; the softer section carries less force "
        "at the same squeeze. That does not vanish as R_m grows: the limit of a free ring is the "
        "section with a free uniform out-of-plane strain (generalised plane strain), not plane "
        "strain; the difference grows with Poisson's ratio (nu = 0.49 here) and with the squeeze. A "
        "ring whose section centre is held radially (seated against a groove wall, or stretched "
        "on it) has no such relief and tends to plane strain as `d / R_m` vanishes; the remaining "
        "difference at finite R_m is the hoop strain of the section's own bulge (`u_r / R_m`, "
        "outward on the outer half, inward on the inner half).", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--page-only", action="store_true", help="re-render from docs/axisymmetric.json")
    parser.add_argument("--no-3d", action="store_true", help="leave out the 3D quarter model")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.page_only:
        data = json.loads(DATA.read_text())
    else:
        data = run_all(three_d=not args.no_3d)
        DATA.write_text(json.dumps(data, indent=1) + "\n")
    PAGE.write_text(render(data))


if __name__ == "__main__":
    main()
