r"""Hexahedral block pressed onto, then pulled across, a tetrahedral block (Coulomb, mu = 0.3).

Problem
    An aluminium block (10 x 10 x 4 mm, Q1 hexahedra, ``skfem.MeshHex``,
    E = 70 GPa, nu = 0.33) sits on a larger steel block (24 x 24 x 8 mm,
    P1 tetrahedra, ``skfem.MeshTet``, E = 210 GPa, nu = 0.3; its mesh is
    graded towards the contact patch and does not match the block's).  The
    steel block is clamped at its bottom.  Units: mm, N, MPa.

Loads (pseudo-time t in [0, 1], two amplitude tables)
    Stage 1, 0 <= t <= 0.5: the block's top face is pushed down by
    0.004 mm (``u_z``), its x and y held at 0.
    Stage 2, 0.5 <= t <= 1: the top, still pressed, is moved 0.008 mm in x.
    Contact: node-to-facet, the block's bottom face is the slave surface,
    the steel block's top face the master, Coulomb friction mu = 0.3.

What is checked (``FIGURES``)
    * Gross sliding (every slave node slipping at t = 1): the tangential
      traction is mu times the pressure at every node, so the resultant
      ratio sum |t_t| dA / sum p dA equals mu to round-off.  The ratio of
      the global force components -F_x / F_z of the pair (and of the top
      supports) is slightly below mu: friction acts along each node's slip,
      and the slip still has a y-component of a few degrees (the lateral
      shear locked in while pressing relaxes only gradually as the block
      slides); the normals tilt by < 1e-3.  Measured: about 0.13 % below.
    * The support reactions of the top face balance the contact force.
    * During partial slip the number of sticking nodes falls level by
      level (``STATUS``), to none at gross sliding.  The stick zone is not
      centred: slip spreads from the leading edge (x = 5) and the sides y = +-5,
      and the stick zone retreats towards the trailing edge (x < 0).  The
      picture shows it at t = 0.65.

Run ``python docs/examples/hex_over_tet.py [OUT.png]``.
"""

import sys

import numpy as np
import skfem

import fecontact as fc

MU = 0.3
PRESS, PULL = 0.004, 0.008                # mm
HEIGHT = 4.0
PICTURE_LEVEL = 0.65                      # a partial-slip level for the picture

block_mesh = skfem.MeshHex.init_tensor(np.linspace(-5, 5, 9), np.linspace(-5, 5, 9),
                                       np.linspace(0, HEIGHT, 4))
lines = np.r_[-12, -9, -7, np.linspace(-5.5, 5.5, 8), 7, 9, 12]     # 7 cells across the patch
base_mesh = skfem.MeshTet.init_tensor(lines, lines, np.array([-8, -5, -3, -1.5, -0.7, 0.0]))

press = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 1.0, 1.0))      # stage 1, then held
pull = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 0.0, 1.0))       # stage 2 only


def top(x):
    return np.isclose(x[2], HEIGHT)


def build():
    """The model: both bodies, supports, amplitudes and the contact pair."""
    block = fc.Body("block", block_mesh, "Q1", fc.LinearElastic(E=70e3, nu=0.33))
    base = fc.Body("base", base_mesh, "P1", fc.LinearElastic(E=210e3, nu=0.3))
    block.fix(top, z=-PRESS, amplitude=press, name="top-z")
    block.fix(top, x=PULL, amplitude=pull, name="top-x")
    block.fix(top, y=0.0, name="top-y")
    base.fix(lambda x: np.isclose(x[2], -8.0), name="bottom")
    pair = fc.Contact(block.surface(lambda x: np.isclose(x[2], 0.0), name="bottom"),
                      base.surface(lambda x: np.isclose(x[2], 0.0), name="top"),
                      fc.Coulomb(MU), name="block-on-base")
    return fc.Model([block, base], [pair]), block


LEVELS = [0.5] + [round(0.5 + 0.05 * k, 2) for k in range(1, 11)]
model, block = build()
result = model.solve(levels=LEVELS)
partial = model.solve(levels=[t for t in LEVELS if t <= PICTURE_LEVEL])   # same path, stopped
assert result.converged and partial.converged, result.failure or partial.failure

#: (t, pull displacement in mm, stick nodes, slip nodes) per level
STATUS = [(r.load, PULL * pull(r.load), r.stick, r.slip) for r in result.records]

pair = result.pair("block-on-base")
fields = result.contact("block-on-base")
area = block.surface("bottom").surface.area                   # nodal areas of the slave nodes
tangential = np.sum(area * np.linalg.norm(fields.shear, axis=1))
normal = np.sum(area * fields.pressure)
reaction = result.reaction("top-x") + result.reaction("top-y") + result.reaction("top-z")
n_nodes = fields.pressure.size

FIGURES = {
    "traction ratio in gross sliding": {"value": tangential / normal, "reference": MU, "unit": ""},
    "-F_x/F_z of the pair in gross sliding": {"value": -pair.force[0] / pair.force[2],
                                              "reference": MU, "unit": ""},
    "-R_x/R_z of the top supports": {"value": -reaction[0] / reaction[2], "reference": MU,
                                     "unit": ""},
    "|R + F| / |F| (support vs contact)": {"value": np.linalg.norm(reaction + pair.force)
                                           / np.linalg.norm(pair.force),
                                           "reference": 0.0, "unit": ""},
    "slipping nodes in gross sliding": {"value": pair.slip, "reference": n_nodes, "unit": "nodes"},
}


def plot(path):
    """Contact patch at a partial-slip level (status, friction utilisation); counts per level."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = partial.contact()
    utilisation = np.where(f.pressure > 0, np.linalg.norm(f.shear, axis=1)
                           / np.maximum(MU * f.pressure, 1e-300), 0.0).clip(0.0, 1.0)
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4))
    for status, colour in ((fc.Status.STICK, "tab:blue"), (fc.Status.SLIP, "tab:red")):
        on = f.status == status
        ax[0].scatter(*f.points[:2, on], c=colour, s=60, label=status.name.lower())
    ax[0].set_title(f"status at t = {PICTURE_LEVEL} (pull {PULL * pull(PICTURE_LEVEL):.4f} mm)")
    ax[0].legend(loc="upper right")
    art = ax[1].tricontourf(f.points[0], f.points[1], utilisation, levels=np.linspace(0, 1, 11))
    ax[1].scatter(*f.points[:2], c="k", s=4)
    fig.colorbar(art, ax=ax[1], label="|t_t| / (mu p)")
    ax[1].set_title("friction utilisation")
    for a in ax[:2]:
        a.set_aspect("equal")
        a.set_xlabel("x [mm] (pull ->)")
        a.set_ylabel("y [mm]")
    u = [s[1] for s in STATUS]
    ax[2].plot(u, [s[2] for s in STATUS], "o-", label="stick")
    ax[2].plot(u, [s[3] for s in STATUS], "s-", label="slip")
    ax[2].set_xlabel("pull displacement of the top [mm]")
    ax[2].set_ylabel("slave nodes")
    ax[2].legend()
    ax[2].set_title(f"gross sliding: -F_x/F_z = {-pair.force[0] / pair.force[2]:.5f}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    for t, u, stick, slip in STATUS:
        print(f"t = {t:4.2f}  pull = {u:.4f} mm  stick {stick:3d}  slip {slip:3d}")
    for name, fig in FIGURES.items():
        print(f"{name}: {fig['value']:.10g} (reference {fig['reference']:.10g}) {fig['unit']}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
