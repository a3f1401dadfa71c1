r"""A part of two materials in frictional contact: a wheel with a steel hub and a rubber tyre.

Problem (2D, plane strain; consistent units: lengths in m, moduli and pressures in MPa)
    Wheel: an annulus with a bore of radius 0.15, a steel hub out to radius
    0.5 (E = 210 000, nu = 0.3) and a rubber-like tyre out to radius 1.0
    (E = 20, nu = 0.45), as the two subdomains ``"hub"`` and ``"rim"`` of
    one scikit-fem triangle mesh (P1; the mesh has a ring of nodes on the
    material interface, so no element straddles it).  The bore (the axle)
    is pushed down 0.05 onto a rigid line at y = -1 (Coulomb, mu = 0.3) in
    the first half of the pseudo-time, then moved 0.01 sideways with the
    wheel locked (no rotation): a braked wheel, in partial slip.

    Layered block: a 2 x 1.1 polymer block (E = 1000, nu = 0.4) on a rubber
    pad (the same rubber as the tyre, 0 < y < 0.1): one ``MeshQuad`` with
    the two subdomains ``"rubber"`` and ``"polymer"`` (Q1), its sides on
    rollers (u_x = 0), its top pushed down 0.002 onto a frictionless rigid
    line at y = 0.  (The thicknesses are chosen so that both layers carry a
    sizeable share of the compliance: 74 % pad, 26 % block.)

References (``FIGURES``)
    * Layered block, closed form: with u_x = 0 everywhere each layer is in
      uniaxial strain, sigma_yy = M eps_yy with the constrained modulus
      M = E (1 - nu) / ((1 + nu)(1 - 2 nu)); the layers act as springs in
      series, so the contact pressure is p = delta / (h1/M1 + h2/M2) and the
      interface moves by -p h1 / M1.  Linear elements reproduce this
      piecewise-linear field exactly: agreement to solver tolerance.
    * Wheel, equilibrium: the contact force balances the axle reaction.
    * Wheel, Coulomb: at every slipping node |t_t| = mu p.
    * Wheel, the materials per region: with hub and rim given the same
      material the solution equals that of the one-material body to
      round-off (here bit for bit).

Run ``python docs/examples/two_material.py [OUT.png]``.
"""

import sys

import numpy as np
import skfem
from scipy.spatial import Delaunay

import fecontact as fc

MU = 0.3
STEEL = fc.LinearElastic(E=210e3, nu=0.3, plane="strain")
RUBBER = fc.LinearElastic(E=20.0, nu=0.45, plane="strain")
POLYMER = fc.LinearElastic(E=1000.0, nu=0.4, plane="strain")
R_BORE, R_HUB, R = 0.15, 0.5, 1.0


# -- the wheel -----------------------------------------------------------------
def wheel_mesh(h=0.06):
    """Triangles on rings of nodes (one ring on the hub/rim interface), hub and rim subdomains."""
    rings = []
    for r in np.r_[np.linspace(R_BORE, R_HUB, 5), np.linspace(R_HUB, R, 9)[1:]]:
        theta = np.linspace(0, 2 * np.pi, int(np.ceil(2 * np.pi * r / h)), endpoint=False)
        rings.append(r * np.array([np.cos(theta - np.pi / 2), np.sin(theta - np.pi / 2)]))
    p = np.hstack(rings)
    t = Delaunay(p.T).simplices.T
    t = t[:, np.hypot(*p[:, t].mean(axis=1)) > R_BORE]           # drop the bore's triangles
    mesh = skfem.MeshTri(p, np.ascontiguousarray(t))
    mesh = mesh.with_subdomains({"hub": lambda x: np.hypot(*x) < R_HUB,
                                 "rim": lambda x: np.hypot(*x) > R_HUB})
    return mesh.with_boundaries({"bore": lambda x: np.hypot(*x) < 0.5 * (R_BORE + R_HUB),
                                 "tread": lambda x: (np.hypot(*x) > 0.5 * (R_HUB + R))
                                 & (x[1] < -0.5)})


def wheel(materials, mesh):
    """The wheel pressed, then dragged sideways, on a rigid line (Coulomb mu)."""
    body = fc.Body("wheel", mesh, "P1", materials)
    body.fix("bore", y=-0.05, amplitude=fc.Amplitude((0, 0.5, 1), (0, 1, 1)), name="axle-y")
    body.fix("bore", x=0.01, amplitude=fc.Amplitude((0, 0.5, 1), (0, 0, 1)), name="axle-x")
    pair = fc.Contact(body.surface("tread"), fc.RigidLine((0.0, -R), (0.0, 1.0)), fc.Coulomb(MU),
                      name="tyre")
    result = fc.Model([body], [pair]).solve(levels=[0.25, 0.5, 0.75, 1.0])
    assert result.converged, result.failure
    return result


mesh = wheel_mesh()
two = wheel({"hub": STEEL, "rim": RUBBER}, mesh)
same = wheel({"hub": RUBBER, "rim": RUBBER}, mesh)
one = wheel(RUBBER, mesh)

force = two.pair("tyre").force
axle = two.reaction("axle-x") + two.reaction("axle-y")
tyre = two.contact("tyre")
slipping = tyre.status == fc.Status.SLIP
ratio = np.linalg.norm(tyre.shear[slipping], axis=1) / tyre.pressure[slipping]

# -- the layered block -----------------------------------------------------------
H1, H2, WIDTH, DELTA = 0.1, 1.0, 2.0, 0.002
layers = skfem.MeshQuad.init_tensor(np.linspace(0, WIDTH, 9),
                                    np.r_[np.linspace(0, H1, 4), np.linspace(H1, H1 + H2, 7)[1:]])
layers = layers.with_subdomains({"rubber": lambda x: x[1] < H1, "polymer": lambda x: x[1] > H1})
block = fc.Body("block", layers, "Q1", {"rubber": RUBBER, "polymer": POLYMER})
block.fix(lambda x: np.isclose(x[1], H1 + H2), y=-DELTA, name="top")
block.fix(lambda x: np.isclose(x[0], 0.0) | np.isclose(x[0], WIDTH), x=0.0, name="sides")
bottom = block.surface(lambda x: np.isclose(x[1], 0.0))
layered = fc.Model([block], [fc.Contact(bottom, fc.RigidLine((0.0, 0.0), (0.0, 1.0)),
                                        fc.Frictionless())]).solve(steps=2)
assert layered.converged, layered.failure


def constrained_modulus(material):
    """M = E (1 - nu) / ((1 + nu) (1 - 2 nu)), the modulus of uniaxial strain."""
    E, nu = material.E, material.nu
    return E * (1 - nu) / ((1 + nu) * (1 - 2 * nu))


M_RUBBER, M_POLYMER = constrained_modulus(RUBBER), constrained_modulus(POLYMER)
P_SERIES = DELTA / (H1 / M_RUBBER + H2 / M_POLYMER)
u_block = layered.body_displacement("block")
at_interface = np.isclose(layers.p[1], H1)

FIGURES = {
    "layered block: contact pressure (mean)": {
        "value": float(np.mean(layered.pressure)), "reference": P_SERIES, "unit": "MPa"},
    "layered block: contact pressure spread (max - min)": {
        "value": float(np.ptp(layered.pressure)), "reference": 0.0, "unit": "MPa"},
    "layered block: top reaction per width": {
        "value": float(-layered.reaction("top")[1] / WIDTH), "reference": P_SERIES, "unit": "MPa"},
    "layered block: interface displacement u_y": {
        "value": float(np.mean(u_block[1, at_interface])), "reference": -P_SERIES * H1 / M_RUBBER,
        "unit": ""},
    "wheel: |F_contact + R_axle| / |F_contact|": {
        "value": float(np.linalg.norm(force + axle) / np.linalg.norm(force)), "reference": 0.0,
        "unit": ""},
    "wheel: max | |t_t| / p - mu | at slipping nodes": {
        "value": float(np.max(np.abs(ratio - MU))), "reference": 0.0, "unit": ""},
    "wheel: hub = rim = rubber vs one material, max |du| / max |u|": {
        "value": float(np.abs(same.state.u - one.state.u).max() / np.abs(one.state.u).max()),
        "reference": 0.0, "unit": ""},
}


def plot(path):
    """Von Mises stress of the deformed wheel (log scale, interface drawn), tractions, layers."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    from matplotlib.tri import Triangulation

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.8), gridspec_kw={"width_ratios": [1.1, 1, 0.8]})
    x = mesh.p + two.body_displacement("wheel")
    vm = np.maximum(two.point_data()["von_mises"], 1e-3)
    art = ax[0].tripcolor(Triangulation(*x, mesh.t.T), vm, shading="gouraud",
                          norm=LogNorm(vmin=vm.min(), vmax=vm.max()), cmap="viridis")
    theta = np.linspace(0, 2 * np.pi, 200)
    for radius, style in ((R_HUB, "w-"), (R_BORE, "k-")):
        ax[0].plot(radius * np.cos(theta), radius * np.sin(theta) - 0.05, style, lw=1.2)
    ax[0].axhline(-R, color="k", lw=2)
    fig.colorbar(art, ax=ax[0], label="von Mises [MPa]")
    ax[0].set_aspect("equal")
    ax[0].set_title("steel hub (white: interface), rubber tyre")
    order = np.argsort(tyre.points[0])
    xs = tyre.points[0, order]
    ax[1].plot(xs, tyre.pressure[order], "o-", label="pressure p")
    ax[1].plot(xs, np.abs(tyre.shear[order, 0]), "s-", label="|shear|")
    ax[1].plot(xs, MU * tyre.pressure[order], "k--", lw=1, label="mu p")
    ax[1].plot(xs[slipping[order]], np.abs(tyre.shear[order, 0])[slipping[order]], "rx", ms=9,
               label="slipping")
    ax[1].set_xlim(-0.4, 0.4)
    ax[1].set_xlabel("x")
    ax[1].set_title("wheel: contact tractions after the drag")
    ax[1].legend()
    column = np.isclose(layers.p[0], WIDTH / 2)
    ys = layers.p[1, column]
    yy = np.sort(np.r_[np.linspace(0, H1 + H2, 50), H1])
    exact = -P_SERIES * np.where(yy < H1, yy / M_RUBBER, H1 / M_RUBBER + (yy - H1) / M_POLYMER)
    ax[2].plot(exact, yy, "k-", label="layers in series")
    ax[2].plot(u_block[1, column], ys, "o", label="finite elements")
    ax[2].axhspan(0, H1, color="tab:orange", alpha=0.2, label="rubber")
    ax[2].axhspan(H1, H1 + H2, color="tab:gray", alpha=0.2, label="polymer")
    ax[2].set_xlabel("u_y")
    ax[2].set_ylabel("y")
    ax[2].set_title("rubber pad under a polymer block")
    ax[2].legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name}: {fig['value']:.10g} (reference {fig['reference']:.10g}) {fig['unit']}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
