"""Time the P1 finite-strain assembly against the linear P1 stiffness and the scikit-fem forms.

On a P1 tetrahedral box of about 100k DOFs and a P1 triangle square of about
100k DOFs, with a neo-Hookean material at a smooth deformation of a few per
cent strain, times (best of 3, wall clock):

* ``linear``: :func:`fecontact.bodies.p1.p1_stiffness` (the reference);
* ``force_tangent``: :func:`fecontact.bodies.p1_finite_strain.p1_force_and_tangent`
  (one stress evaluation, gradients and block pattern built in the call);
* ``force_tangent_cached``: the same with a kept
  :class:`~fecontact.bodies.p1_finite_strain.P1Simplices` (gradients and
  pattern reused, as :class:`fecontact.bodies.system.BulkSystem` does);
* ``force``: :func:`~fecontact.bodies.p1_finite_strain.p1_internal_force` (no tangent);
* ``forms``: :func:`fecontact.bodies.finite_strain.internal_force` plus
  :func:`~fecontact.bodies.finite_strain.tangent_stiffness` on a scikit-fem
  basis (once; the basis construction is timed apart).

``ratio`` is ``force_tangent / linear`` (target: at most 3).  Prints a table
and writes ``docs/finite_strain_assembly.json``.

Usage: python docs/make_finite_strain_assembly.py [--skip-forms]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import skfem

from fecontact.bodies.finite_strain import internal_force, tangent_stiffness
from fecontact.bodies.hyperelastic import NeoHookean
from fecontact.bodies.p1 import p1_stiffness
from fecontact.bodies.p1_finite_strain import P1Simplices, p1_force_and_tangent, p1_internal_force

ROOT = Path(__file__).resolve().parents[1]
MATERIAL = NeoHookean(E=1.0e4, nu=0.3)


def _best(fn, repeat=3):
    """Best wall-clock time of ``repeat`` calls and the last result."""
    best, result = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _mesh(dim):
    """About 100k DOFs: 33^3 vertices (6 tetrahedra per cube) or 224^2 vertices (triangles)."""
    if dim == 3:
        return skfem.MeshTet.init_tensor(*[np.linspace(0.0, 1.0, 33)] * 3), skfem.ElementTetP1()
    return skfem.MeshTri.init_tensor(*[np.linspace(0.0, 1.0, 224)] * 2), skfem.ElementTriP1()


def measure(dim: int, forms: bool = True) -> dict:
    """Timings on one mesh (seconds) and the agreement of the fast path with the forms."""
    mesh, element = _mesh(dim)
    p, t = mesh.p, mesh.t
    x = p
    u = (0.05 * np.sin(2.0 * x[0] + x[-1] + np.arange(dim)[:, None])).T.ravel()   # ~5 % strain
    lam, mu = MATERIAL.lame(dim)
    out = {"dofs": int(dim * p.shape[1]), "elements": int(t.shape[1])}
    out["linear_seconds"], _ = _best(lambda: p1_stiffness(p, t, lam, mu))
    out["force_tangent_seconds"], (f, K) = _best(lambda: p1_force_and_tangent(p, t, MATERIAL, u))
    simplices = P1Simplices(p, t)
    simplices.force_and_tangent(MATERIAL, u)                       # builds the pattern
    out["force_tangent_cached_seconds"], _ = _best(lambda: simplices.force_and_tangent(MATERIAL, u))
    out["force_seconds"], f_only = _best(lambda: p1_internal_force(p, t, MATERIAL, u))
    out["ratio"] = out["force_tangent_seconds"] / out["linear_seconds"]
    out["force_only_vs_force_tangent_max_difference"] = float(np.abs(f_only - f).max() / np.abs(f).max())
    if forms:
        start = time.perf_counter()
        basis = skfem.Basis(mesh, skfem.ElementVector(element))
        out["forms_basis_seconds"] = time.perf_counter() - start
        start = time.perf_counter()
        f_forms = internal_force(basis, MATERIAL, u)
        K_forms = tangent_stiffness(basis, MATERIAL, u)
        out["forms_seconds"] = time.perf_counter() - start
        out["forms_relative_difference"] = {
            "force": float(np.abs(f - f_forms).max() / np.abs(f_forms).max()),
            "tangent": float(abs(K - K_forms).max() / abs(K_forms).max())}
        del basis, K_forms
    return out


def table(results: dict) -> str:
    """A Markdown table of the timings."""
    lines = ["| mesh | DOFs | elements | linear s | force+tangent s | (pattern kept) s | force s | "
             "forms s | force+tangent / linear | forms / force+tangent |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        forms = r.get("forms_seconds")
        speedup = "–" if forms is None else f"{forms / r['force_tangent_seconds']:.0f}"
        lines.append(f"| {name} | {r['dofs']} | {r['elements']} | {r['linear_seconds']:.3f} | "
                     f"{r['force_tangent_seconds']:.3f} | {r['force_tangent_cached_seconds']:.3f} | "
                     f"{r['force_seconds']:.3f} | {'–' if forms is None else f'{forms:.1f}'} | "
                     f"{r['ratio']:.2f} | {speedup} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-forms", action="store_true", help="do not time the scikit-fem forms")
    args = parser.parse_args()
    results = {}
    for name, dim in (("P1 tetrahedra", 3), ("P1 triangles", 2)):
        results[name] = measure(dim, forms=not args.skip_forms)
        print(name, json.dumps(results[name]), flush=True)
    print(table(results))
    results["machine"] = {"python": platform.python_version(), "numpy": np.__version__,
                          "processor": platform.processor() or platform.machine()}
    (ROOT / "docs" / "finite_strain_assembly.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
