"""Hertz line contact on a Gmsh mesh.

A cylinder of radius R = 1 (the lower half of the unit disc about (0, 1),
the Gmsh mesh `meshes/half_disc.msh` read by `skfem.Mesh.load`, linear
triangles graded from h = 0.003 at the contact point to 0.1) is pushed onto
a rigid flat line y = 0, frictionless.  Material: E = 1e4, nu = 0.3, plane
strain.  Loads: the flat top y = 1 moves down by 0.02; one point of it is
held in x.  The physical groups of the mesh name the boundaries: `contact`
(the arc |x| <= 0.3), `arc` (the rest) and `flat` (the top).

Reference: Hertz's line contact of a cylinder on a rigid flat, for the
contact force per thickness F the model carries:
a = sqrt(4 F R / (pi E*)) and p0 = 2 F / (pi a), with E* = E / (1 - nu^2).
The half-width of the model is the `a` of the ellipse
p^2 = p_max^2 (1 - x^2 / a^2) fitted (least squares in x^2) to the loaded
nodes; the contact force is checked against the reaction of the top.
"""

import sys
from pathlib import Path

import numpy as np
import skfem

import fecontact as fc

E, NU, R = 1.0e4, 0.3, 1.0

mesh = skfem.Mesh.load(Path(__file__).resolve().parents[2] / "meshes" / "half_disc.msh")
disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=E, nu=NU, plane="strain"))
disc.fix("flat", y=-0.02)
disc.fix(point=(0.0, 1.0), x=0.0)
floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
result = fc.Model([disc], [fc.Contact(disc.surface("contact"), floor, fc.Frictionless(),
                                      name="disc-on-floor")]).solve(steps=4)
assert result.converged

x, p = result.slave_points[0], result.pressure
force = result.pair("disc-on-floor").force[1]
e_star = E / (1.0 - NU**2)
a_hertz = np.sqrt(4.0 * force * R / (np.pi * e_star))
p0 = 2.0 * force / (np.pi * a_hertz)
loaded = p > 0
slope, intercept = np.polyfit(x[loaded] ** 2, p[loaded] ** 2, 1)   # p^2 = c - (c / a^2) x^2
a_fit = np.sqrt(-intercept / slope)

FIGURES = {
    "peak pressure p_max": {"value": p.max(), "reference": p0, "unit": "stress"},
    "half-width a": {"value": a_fit, "reference": a_hertz, "unit": "length"},
    "contact force": {"value": force, "reference": -result.reaction("flat")[1],
                      "unit": "force / thickness"},
}


def plot(path):
    """The nodal contact pressure against Hertz's ellipse."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = np.argsort(x)
    xs = np.linspace(-1.3 * a_hertz, 1.3 * a_hertz, 400)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(xs, p0 * np.sqrt(np.clip(1 - (xs / a_hertz) ** 2, 0, None)), "k-",
            label="Hertz, $p_0\\sqrt{1-x^2/a^2}$")
    ax.plot(x[order], p[order], "o-", ms=4, color="tab:red", label="fecontact, P1 nodes")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_xlabel("x")
    ax.set_ylabel("contact pressure")
    ax.set_title(f"Hertz line contact: F = {force:.1f}, a = {a_hertz:.4f}, $p_0$ = {p0:.1f}")
    ax.legend(loc="lower center")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name:24s} {fig['value']:.6g}  reference {fig['reference']:.6g}  "
              f"ratio {fig['value'] / fig['reference']:.4f}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
