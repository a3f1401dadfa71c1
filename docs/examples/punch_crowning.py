r"""Crowning a punch for a uniform contact pressure: shape optimisation with adjoint gradients.

Problem (2D, plane strain)
    A stiff elastic punch (width 2a = 2, height 1, E = 1e5, nu = 0.3; P1,
    8 x 4 squares cut into triangles) is pressed onto a softer elastic
    foundation (width 8, depth 4, E = 1e3, nu = 0.3, bottom clamped; P1 on
    a tensor mesh of 0.125 squares under the punch, graded outside),
    frictionless.  The pair is a mortar pair with the foundation's surface
    under the punch (|x| <= a, 17 nodes) as the slave and the punch's base
    as the master.  The base starts 0.001 above the foundation; the
    punch's top is moved down by ``top_y`` (an ``fc.Parameter``, -0.01 for
    the flat punch) and held sideways.  A flat punch concentrates the
    pressure at its edges (the edge singularity of the rigid punch,
    Sadowsky, shows as a peak on the edge nodes).

    (Node-to-segment with the punch's base as the slave gives a pressure
    that alternates from node to node, the stiff side being the slave;
    with the foundation as the slave its gradient with respect to the
    master's shape is off by 1e-4 to 1e-2, so the mortar pair is used.)

Design
    The base's shape, ``crown = punch.shape_parameter("base",
    direction=(0, 1))``: each base node moves up by its entry, the punch's
    interior follows harmonically.  The crown is symmetric (the entries of
    x and -x are one design variable) and zero at the centre.

Optimisation
    Minimise ``fc.qoi.PressureUniformity`` (the area-weighted variance of
    the pressure over its squared mean; open nodes count with zero
    pressure) over the crown and ``top_y``, with the punch's total force
    held at the flat punch's by an equality constraint on
    ``fc.qoi.Reaction("top", "y")``: ``scipy.optimize.minimize(method=
    "SLSQP")``, at most 10 iterations, over 5 variables (4 crown heights,
    ``top_y``).  Both quantities and their gradients come from one solve
    and one backward sweep per point (``Solution.gradient([U, R],
    wrt=[crown, top_y])``), the model made again at every point with
    ``model.with_values({crown: s, top_y: d})``.  No regularisation of the
    shape.

References (``FIGURES``)
    * The flat punch's peak-to-mean pressure and uniformity against the
      crowned punch's (the optimisation should lower both).
    * The uniformity recomputed from the contact fields (pressure at the
      slave nodes, nodal lengths from the slave nodes' coordinates).
    * The crown height ``s(a) - s(0)`` against the one that makes a
      uniform pressure of the same force exactly compatible: the
      foundation alone under a uniform pressure ``F / 2a`` on ``|x| < a``
      sags by ``w_f(x)``, the punch alone (top clamped) under the same
      pressure on its base rises by ``v_p(x)``; contact at every node needs
      ``s(x) - s(0) = [w_f(x) - w_f(0)] - [v_p(x) - v_p(0)]`` (two linear
      solves without contact, on the same meshes).

Run ``python docs/examples/punch_crowning.py [OUT.png]``.
"""

import sys

import numpy as np
import scipy.optimize
import skfem

import fecontact as fc

A, GAP = 1.0, 1.0e-3
FOUNDATION = fc.LinearElastic(E=1.0e3, nu=0.3)
PUNCH = fc.LinearElastic(E=1.0e5, nu=0.3)
NEWTON = {"tolerance": 1e-12}

# foundation: 0.125 squares under the punch (nodes at its edges), graded outside
outer = np.array([1.5, 1.9, 2.4, 3.2, 4.0])
xs = np.r_[-outer[::-1], np.linspace(-1.25, 1.25, 21), outer]
ys = -np.array([4.0, 2.8, 1.9, 1.3, 0.9, 0.6, 0.4, 0.25, 0.125, 0.0])
ground = skfem.MeshTri.init_tensor(xs, ys)
punch_mesh = skfem.MeshTri.init_tensor(np.linspace(-A, A, 9), np.linspace(GAP, GAP + 1.0, 5))

TOP_Y = fc.Parameter(-0.01, name="top_y")
foundation = fc.Body("foundation", ground, "P1", FOUNDATION)
punch = fc.Body("punch", punch_mesh, "P1", PUNCH)
foundation.fix(lambda x: np.isclose(x[1], -4.0), name="bottom")
punch.fix(lambda x: np.isclose(x[1], GAP + 1.0), x=0.0, y=TOP_Y, name="top")
punch.boundary(lambda x: np.isclose(x[1], GAP), "base")
crown = punch.shape_parameter("base", direction=(0, 1), name="crown")
under = foundation.surface(lambda x: np.isclose(x[1], 0.0) & (np.abs(x[0]) < A), name="under")
pair = fc.Contact(under, punch.surface("base"), fc.Frictionless(), name="punch", formulation="mortar")
model = fc.Model([foundation, punch], [pair])

UNIFORMITY = fc.qoi.PressureUniformity("punch")
FORCE = fc.qoi.Reaction("top", "y")

# the symmetric crown: design variable j moves the base nodes at +-x_j (x_j > 0); the centre stays
x_base = punch_mesh.p[0, crown.nodes]
half = np.flatnonzero(x_base > 1e-9)
MIRROR = np.zeros((crown.size, half.size))
for j, n in enumerate(half):
    MIRROR[[n, np.argmin(np.abs(x_base + x_base[n]))], j] = 1.0
S_SCALE, D_SCALE = 1.0e-3, -0.01            # the design variables: crown / 1e-3, top_y / -0.01


def unpack(z):
    """The crown entries and top_y of the scaled design variables."""
    return MIRROR @ z[:-1] * S_SCALE, z[-1] * D_SCALE


evaluations = {}


def evaluate(z):
    """One solve and one backward sweep: uniformity, force and their gradients in z (cached)."""
    key = tuple(np.round(z, 15))
    if key not in evaluations:
        s, d = unpack(z)
        result = model.with_values({crown: s, TOP_Y: d}).solve(newton=NEWTON)
        assert result.converged, result.failure
        gu, gf = result.gradient([UNIFORMITY, FORCE], wrt=[crown, TOP_Y])
        evaluations[key] = (gu.value, np.r_[MIRROR.T @ gu[crown] * S_SCALE, gu[TOP_Y] * D_SCALE],
                            gf.value, np.r_[MIRROR.T @ gf[crown] * S_SCALE, gf[TOP_Y] * D_SCALE],
                            result)
    return evaluations[key]


z_flat = np.r_[np.zeros(half.size), 1.0]
U_FLAT, _, F_FLAT, _, flat = evaluate(z_flat)
held = {"type": "eq", "fun": lambda z: evaluate(z)[2] / F_FLAT - 1.0,
        "jac": lambda z: evaluate(z)[3] / F_FLAT}
optimum = scipy.optimize.minimize(lambda z: evaluate(z)[0], z_flat, jac=lambda z: evaluate(z)[1],
                                  method="SLSQP", constraints=[held],
                                  bounds=[(0.0, 20.0)] * half.size + [(0.5, 3.0)],
                                  options={"maxiter": 10, "ftol": 1e-7})
U_CROWNED, _, F_CROWNED, _, crowned = evaluate(optimum.x)
S_OPT, D_OPT = unpack(optimum.x)
SOLVES = len(evaluations)


def profile(result):
    """x, pressure and nodal length (from the node coordinates) of the slave nodes, sorted by x."""
    fields = result.contact("punch")
    order = np.argsort(fields.points[0])
    x, p = fields.points[0, order], fields.pressure[order]
    seg = np.diff(x)                                   # the foundation's surface is flat
    return x, p, np.r_[seg, 0.0] / 2 + np.r_[0.0, seg] / 2


def uniformity(p, length):
    """``sum L (p - pbar)^2 / (sum L pbar^2)``, ``pbar`` the length-weighted mean."""
    mean = length @ p / length.sum()
    return float(length @ (p - mean) ** 2 / (length.sum() * mean**2)), mean


x_flat, p_flat, l_flat = profile(flat)
x_opt, p_opt, l_opt = profile(crowned)
U_FIELDS, MEAN_OPT = uniformity(p_opt, l_opt)
_, MEAN_FLAT = uniformity(p_flat, l_flat)

# the compatible crown of a uniform pressure of the same force: two solves without contact
P_BAR = -F_FLAT / (2 * A)
alone = fc.Body("foundation", ground, "P1", FOUNDATION)
alone.fix(lambda x: np.isclose(x[1], -4.0), name="bottom")
alone.pressure(lambda x: np.isclose(x[1], 0.0) & (np.abs(x[0]) < A), P_BAR)
sag = fc.Model([alone], []).solve()
free = fc.Body("punch", punch_mesh, "P1", PUNCH)
free.fix(lambda x: np.isclose(x[1], GAP + 1.0), x=0.0, y=0.0, name="top")
free.pressure(lambda x: np.isclose(x[1], GAP), P_BAR)
rise = fc.Model([free], []).solve()
on_top = np.flatnonzero(np.isclose(ground.p[1], 0.0) & (np.abs(ground.p[0]) < 1.2 * A))
on_top = on_top[np.argsort(ground.p[0, on_top])]
x_top = ground.p[0, on_top] + sag.body_displacement("foundation")[0, on_top]
order = np.argsort(x_base)
XB = x_base[order]
CENTRE = np.argmin(np.abs(XB))
w_f = np.interp(XB, x_top, sag.body_displacement("foundation")[1, on_top])
v_p = rise.body_displacement("punch")[1, crown.nodes][order]
COMPATIBLE = (w_f - w_f[CENTRE]) - (v_p - v_p[CENTRE])
CROWN = S_OPT[order]

FIGURES = {
    "peak / mean pressure (crowned vs flat)": {
        "value": float(p_opt.max() / MEAN_OPT), "reference": float(p_flat.max() / MEAN_FLAT),
        "unit": "-"},
    "PressureUniformity (crowned vs flat)": {
        "value": float(U_CROWNED), "reference": float(U_FLAT), "unit": "-"},
    "PressureUniformity recomputed from the contact fields": {
        "value": U_FIELDS, "reference": float(U_CROWNED), "unit": "-"},
    "crown height s(a) - s(0) (optimised vs compatible with a uniform pressure)": {
        "value": float(CROWN[-1] - CROWN[CENTRE]), "reference": float(COMPATIBLE[-1]),
        "unit": "length"},
    "crown, largest |s - compatible| / height": {
        "value": float(np.abs(CROWN - COMPATIBLE).max() / COMPATIBLE[-1]), "reference": 0.0,
        "unit": "-"},
    "punch force (crowned vs flat)": {
        "value": float(F_CROWNED), "reference": float(F_FLAT), "unit": "force / thickness"},
    "forward solves of the optimisation": {
        "value": float(SOLVES), "reference": float(optimum.nit), "unit": "solves (ref.: iterations)"},
}


def plot(path):
    """Pressure along the base, flat and crowned; the crown against the compatible one."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(13, 4.6))
    ax[0].plot(x_flat, p_flat, "o-", ms=4, color="tab:red",
               label=f"flat punch: peak / mean {p_flat.max() / MEAN_FLAT:.2f}, U = {U_FLAT:.3g}")
    ax[0].plot(x_opt, p_opt, "s-", ms=4, color="tab:blue",
               label=f"crowned: peak / mean {p_opt.max() / MEAN_OPT:.3f}, U = {U_CROWNED:.2g}")
    ax[0].axhline(P_BAR, color="k", ls="--", lw=1, label=f"uniform F / 2a = {P_BAR:.3f}")
    ax[0].set_ylim(0, 1.1 * p_flat.max())
    ax[0].set_xlabel("x")
    ax[0].set_ylabel("contact pressure")
    ax[0].set_title(f"the same force ({-F_FLAT:.3f}), top moved {TOP_Y:.4f} (flat) and "
                    f"{D_OPT:.4f} (crowned)", fontsize=10)
    ax[0].legend(fontsize=8, loc="upper center")
    ax[0].grid(alpha=0.3)
    ax[1].plot(XB, 1e3 * CROWN, "s-", color="tab:blue", label=f"optimised ({SOLVES} solves, "
               f"{optimum.nit} SLSQP iterations)")
    ax[1].plot(XB, 1e3 * COMPATIBLE, "k--", label="compatible with a uniform pressure "
               "(foundation sag - punch rise)")
    ax[1].set_xlabel("x")
    ax[1].set_ylabel("crown s(x) [1e-3]")
    ax[1].set_title("the punch base's shape (height over the centre)")
    ax[1].legend(fontsize=8, loc="upper center")
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name}: {fig['value']:.6g} (reference {fig['reference']:.6g}) {fig['unit']}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
