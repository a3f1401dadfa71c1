"""Flat punch with Coulomb friction on an elastic foundation (Sadowsky).

A stiff elastic punch (width 2a = 2, height 1, E = 1e6) is pressed onto a
softer, wider foundation (width 8, depth 4, E = 1e3); nu = 0.3 for both,
plane strain, Coulomb friction mu = 0.3.  Non-matching meshes: scikit-fem
triangle meshes, the foundation's refined three times towards the punch
edges (x = +-1, y = 0) and under the punch.  Loads: the punch's top moves
down by 0.01 (held in x); the foundation's bottom is clamped.  The
foundation's surface under the punch (|x| <= 1) is the slave, the punch's
base the master.

The whole top of the foundation may be the slave as well: its nodes beyond
the punch edges project past the free ends of the punch's base and are
open, so they carry no load and the contact force is the same (to 0.01 %;
a warning at the check before solving counts these nodes).  The surface
under the punch keeps the edge node's share of the surface inside the
punch, which the edge figure below uses.

Reference: the rigid flat punch on an elastic half-space (Sadowsky),
p(x) = P / (pi sqrt(a^2 - x^2)) for the contact force per thickness P the
model carries.  The pressure at the edge nodes is compared with the mean
of this singular pressure over the edge node's share of the surface,
[a - w, a] with w its weight: P acos(1 - w / a) / (pi w); the interior with
p(x) where |x| < 0.6 a (the foundation is a finite layer, not a
half-space).  The contact force is checked against the punch's support
reaction.
"""

import sys

import numpy as np
import skfem

import fecontact as fc

A, MU = 1.0, 0.3

ground = skfem.MeshTri.init_tensor(np.linspace(-4, 4, 33), np.linspace(-4, 0, 17))
for k in range(3):                    # refine towards the punch edges and under the punch
    mid = ground.p[:, ground.t].mean(axis=1)
    to_edge = np.minimum(np.hypot(mid[0] - A, mid[1]), np.hypot(mid[0] + A, mid[1]))
    under = (np.abs(mid[0]) < 1.2 * A) & (mid[1] > -0.5 * 0.7**k)
    ground = ground.refined(np.flatnonzero((to_edge < 1.2 * 0.7**k) | under))
punch = skfem.MeshTri.init_tensor(np.linspace(-A, A, 16), np.linspace(0, 1, 6))

foundation = fc.Body("foundation", ground, "P1", fc.LinearElastic(E=1.0e3, nu=0.3))
block = fc.Body("punch", punch, "P1", fc.LinearElastic(E=1.0e6, nu=0.3))
foundation.fix(lambda x: np.isclose(x[1], -4.0), name="bottom")
block.fix(lambda x: np.isclose(x[1], 1.0), x=0.0, y=-0.01, name="top")
slave = foundation.surface(lambda x: np.isclose(x[1], 0.0) & (np.abs(x[0]) < A), name="under")
master = block.surface(lambda x: np.isclose(x[1], 0.0), name="base")
# node-to-segment: the foundation is the slave and its nodal forces balance the punch exactly
# (a mortar pair reports its frictional nodal forces from the converged state, to about 1e-6)
pair = fc.Contact(slave, master, fc.Coulomb(MU), name="punch", formulation="node_to_segment")
result = fc.Model([foundation, block], [pair]).solve(steps=2)
assert result.converged

fields = result.contact("punch")
x, p, shear = fields.points[0], fields.pressure, fields.shear[:, 0]
weight = slave.surface.area                        # each slave node's share of the surface
force = -result.pair("punch").force[1]           # the force on the foundation points down
applied = -result.reaction("top")[1]
centre = np.argmin(np.abs(x))
edge = np.argmax(p)                                 # a node at x = +-a
inner = np.flatnonzero(np.abs(x) < 0.6 * A)
sadowsky = force / (np.pi * np.sqrt(A**2 - x[inner] ** 2))
edge_mean = force * np.arccos(1 - weight[edge] / A) / (np.pi * weight[edge])
worst = np.argmax(np.abs(p[inner] / sadowsky - 1))

FIGURES = {
    "contact force": {"value": force, "reference": applied, "unit": "force / thickness"},
    "edge / centre pressure": {"value": p[edge] / p[centre],
                               "reference": edge_mean * np.pi * A / force, "unit": "-"},
    "centre pressure p(0)": {"value": p[centre], "reference": force / (np.pi * A),
                             "unit": "stress"},
    "pressure, worst node of |x| < 0.6a": {"value": p[inner][worst], "reference": sadowsky[worst],
                                           "unit": "stress"},
}


def plot(path):
    """Pressure and tangential traction along the punch with Sadowsky's pressure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = np.argsort(x)
    xs = np.linspace(-0.995 * A, 0.995 * A, 400)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(xs, force / (np.pi * np.sqrt(A**2 - xs**2)), "k-",
            label="Sadowsky, $P / (\\pi\\sqrt{a^2-x^2})$")
    ax.plot(x[order], p[order], "o-", ms=3, color="tab:red", label="pressure (foundation nodes)")
    ax.plot(x[order], shear[order], "s-", ms=3, color="tab:blue",
            label="tangential traction (pair's tangent)")
    ax.plot(x[order], MU * p[order], ":", color="tab:blue", lw=1, label="$\\pm\\mu p$")
    ax.plot(x[order], -MU * p[order], ":", color="tab:blue", lw=1)
    ax.plot(x[edge], edge_mean, "k*", ms=10, label="Sadowsky, mean over the edge node's share")
    ax.set_ylim(-0.4 * p[edge], 1.15 * p[edge])
    ax.set_xlabel("x")
    ax.set_ylabel("traction")
    ax.set_title(f"Flat punch, $\\mu$ = {MU}, P = {force:.3f}: "
                 f"$p_{{edge}} / p(0)$ = {p[edge] / p[centre]:.1f}")
    ax.legend(loc="upper center", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name:36s} {fig['value']:.6g}  reference {fig['reference']:.6g}  "
              f"ratio {fig['value'] / fig['reference']:.4f}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
