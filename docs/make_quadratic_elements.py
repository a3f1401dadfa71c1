"""Measure the quadratic quadrilaterals (Q2, Q2S) against Hertz and code_aster's SSNV128;
write docs/quadratic_elements.json and the generated blocks of docs/quadratic_elements.md.

    python docs/make_quadratic_elements.py              # run everything (under a minute)
    python docs/make_quadratic_elements.py --page-only  # re-render the page from the JSON file

The runs are those of ``tests/test_quadratic_quads.py`` (Hertz on Gmsh quad8
and quad9 meshes of ``meshes/half_disc.geo``, at three element sizes) and
``tests/test_quadratic_quads_friction_plate.py`` (SSNV128 on eight-node
quadrilaterals, structured and from Gmsh), with P2 triangles and Q1
quadrilaterals of the same Gmsh sizes beside the Hertz rows.
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

from page_blocks import measure_or_render

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "docs/make_quadratic_elements.py"
PAGE = ROOT / "docs" / "quadratic_elements.md"
DATA = ROOT / "docs" / "quadratic_elements.json"
#: Gmsh MeshSizeFactor of the half disc (1: 0.003 at the contact point, growing to 0.1)
FACTORS = (1.0, 0.5, 0.3)
#: row -> (Gmsh cell, element of the case, Gmsh ElementOrder, SecondOrderIncomplete, recombine)
ROWS = {"quad8": ("quad8", "Q2S", 2, 1, 1), "quad9": ("quad9", "Q2", 2, 0, 1),
        "triangle6": ("triangle6", "P2", 2, 0, 0), "quad": ("quad", "Q1", 1, 0, 1)}


def _disc(path: Path, factor: float, order: int, incomplete: int, recombine: int) -> Path:
    from contact_accuracy_meshes import gmsh_model
    with gmsh_model("disc") as gmsh:
        gmsh.open(str(ROOT / "meshes" / "half_disc.geo"))
        for key, value in (("Mesh.Algorithm", 8), ("Mesh.RecombineAll", recombine),
                           ("Mesh.MeshSizeFactor", factor), ("Mesh.ElementOrder", order),
                           ("Mesh.SecondOrderIncomplete", incomplete)):
            gmsh.option.setNumber(key, value)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def _hertz(out: Path) -> dict:
    from fecontact.run.static import run
    rows = {}
    for row, (cell, element, order, incomplete, recombine) in ROWS.items():
        for factor in FACTORS:
            folder = out / f"{row}_{factor:g}"
            folder.mkdir(parents=True, exist_ok=True)
            mesh = _disc(folder / "disc.msh", factor, order, incomplete, recombine)
            start = time.perf_counter()
            r = run(ROOT / "cases" / "hertz2d_gmsh.toml", folder / "run",
                    [f'bodies.0.mesh.file="{mesh}"', f'bodies.0.element="{element}"'], write_vtu_files=False)
            m = r.summary["metrics"]
            rows[f"{row}/{factor:g}"] = {
                "converged": bool(r.summary["converged"]), "seconds": time.perf_counter() - start,
                "dofs": r.summary["dofs"], "h": m["element_size_at_contact"]["value"],
                "peak": m["peak_pressure"]["rel_error"], "width": m["contact_half_width"]["rel_error"],
                "l2": m["pressure_l2_error"]["value"]}
            print(f"hertz {row} {factor:g}: {rows[f'{row}/{factor:g}']}", flush=True)
    return rows


def _ssnv128(out: Path) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    import test_quadratic_quads_friction_plate as plate
    from fecontact.mesh import rectangle
    out.mkdir(parents=True, exist_ok=True)
    meshes = {"structured 16 x 16": (rectangle(0.0, plate.SIDE, 0.0, plate.SIDE, 16, 16, element="quad"), "Q2S"),
              "Gmsh quad8 (quasi-structured, 4 mm)": (plate.gmsh_plate(out / "ssnv128.msh"), None)}
    got = {}
    for name, (mesh, element) in meshes.items():
        u = plate.contact_face_displacement(mesh, element)
        got[name] = [float(v) for v in u]
    return {"reference": list(plate.REFERENCE.values()), "points": list(plate.REFERENCE), "runs": got}


def run_all(out: Path) -> dict:
    return {"machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
            "hertz": _hertz(out / "hertz"), "ssnv128": _ssnv128(out / "ssnv128")}


def render(data: dict) -> dict:
    lines = ["| Gmsh cells | element | size factor | h at contact | DOFs | peak pressure | half-width | "
             "pressure L2 | run |", "|---|---|---|---|---|---|---|---|---|"]
    for row, (cell, element, *_ ) in ROWS.items():
        for factor in FACTORS:
            r = data["hertz"][f"{row}/{factor:g}"]
            if not r["converged"]:
                lines.append(f"| {cell} | {element} | {factor:g} | – | {r['dofs']} | no convergence | | | |")
                continue
            lines.append(f"| {cell} | {element} | {factor:g} | {r['h']:.4f} | {r['dofs']} | {abs(r['peak']):.2%} | "
                         f"{abs(r['width']):.2%} | {r['l2']:.2%} | {r['seconds']:.1f} s |")
    s = data["ssnv128"]
    head = " | ".join(f"x = {1000 * x:g} mm" for x in s["points"])
    table = [f"| u_x (1e-5 m) | {head} | largest deviation |", "|---" * (len(s["points"]) + 2) + "|",
             "| published (GRECO) | " + " | ".join(f"{1e5 * v:.3g}" for v in s["reference"]) + " | |"]
    for name, u in s["runs"].items():
        worst = max(abs(a / b - 1.0) for a, b in zip(u, s["reference"]))
        table.append(f"| {name} | " + " | ".join(f"{1e5 * v:.4f}" for v in u) + f" | {worst:.2%} |")
    return {"hertz": "\n".join(lines), "ssnv128": "\n".join(table),
            "machine": f"Measured on {data['machine']}."}


def main() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    measure_or_render(SCRIPT, PAGE, DATA, run_all, render, ROOT / "out" / "quadratic_elements")


if __name__ == "__main__":
    main()
