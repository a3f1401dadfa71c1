"""Self-contact: a C-ring squeezed until the faces of its slit touch.

A ring of outer radius 1 and inner radius 0.8 (plane strain, E = 1000,
nu = 0.3) has a slit of width 0.02 at the top; the right end of the slit
carries a small lip (0.04 wide, 0.03 beyond both radii), so that the
left end's corner lands on a face, not on a corner (the inner corners
meet first: the ends of the C turn outwards as it is squeezed).  Gmsh meshes it with
linear triangles, 0.01 at the slit growing to 0.04, and names the two faces
of the slit `slit-left` and `slit-right`.  Two pads, the outer arcs within
15 degrees of the horizontal diameter, are pushed towards each other by
0.03 each in 8 steps (the pad moves rigidly in x, free in y); the bottom
point is held in y.  One body, one contact pair: `slit-left` (slave)
against `slit-right` (master) of the same body, frictionless, mortar.

Reference: the same ring without the contact pair (the open ring, linear:
its force is `k_open` times the pad displacement).  Until the slit closes,
the contact model must give that force exactly; the open ring's own
displacements predict the load level at which the slit closes (the gap of
the left corner to the right face, interpolated in the deformed
configuration, reaches zero); after closing the ring's stiffness must rise
above `k_open`.  The two pad reactions balance (no other load acts on the
ring), and the contact forces on the two faces are equal and opposite.
"""

import tempfile
from pathlib import Path

import numpy as np

import fecontact as fc

RO, RI, SLIT, LIP_WIDTH, LIP = 1.0, 0.8, 0.02, 0.04, 0.03
E, NU, PUSH, STEPS = 1000.0, 0.3, 0.03, 8
H, H_SLIT = 0.04, 0.01                  # element sizes: far from and at the slit
PAD = np.sin(np.radians(15.0))          # the pads: the outer arcs within 15 degrees of y = 0


def c_ring_mesh(path, h=H, h_slit=H_SLIT):
    """The C-ring as a Gmsh mesh file: boundaries `slit-left`, `slit-right`, `pad-left`, `pad-right`, `free`."""
    import gmsh

    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        occ = gmsh.model.occ
        y_out, y_in = np.sqrt(RO**2 - SLIT**2 / 4), np.sqrt(RI**2 - SLIT**2 / 4)
        ring, _ = occ.cut([(2, occ.addDisk(0, 0, 0, RO, RO))], [(2, occ.addDisk(0, 0, 0, RI, RI))])
        ring, _ = occ.cut(ring, [(2, occ.addRectangle(-SLIT / 2, 0, 0, SLIT, 2 * RO))])
        lip = occ.addRectangle(SLIT / 2, y_in - LIP, 0, LIP_WIDTH, y_out - y_in + 2 * LIP)
        ring, _ = occ.fuse(ring, [(2, lip)])
        pads = [occ.addRectangle(x0, -PAD, 0, 0.2, 2 * PAD) for x0 in (-1.1, 0.9)]   # the pads' arcs
        ring, _ = occ.fragment(ring, [(2, tag) for tag in pads])
        occ.synchronize()
        ring = [(2, tag) for _, tag in ring if gmsh.model.getBoundingBox(2, tag)[4] - 1e-6 > -RO]
        groups: dict = {}
        for _, curve in gmsh.model.getBoundary(ring, combined=True, oriented=False):
            x0, y0, _, x1, y1, _ = gmsh.model.getBoundingBox(1, abs(curve))
            name = ("slit-left" if abs(x0 + SLIT / 2) < 1e-6 and abs(x1 - x0) < 1e-6 else
                    "slit-right" if abs(x0 - SLIT / 2) < 1e-6 and abs(x1 - x0) < 1e-6 else
                    "pad-left" if x1 < -0.9 else "pad-right" if x0 > 0.9 else "free")
            groups.setdefault(name, []).append(abs(curve))
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [tag for _, tag in ring], name="ring")
        field = gmsh.model.mesh.field
        distance = field.add("Distance")
        field.setNumbers(distance, "CurvesList", groups["slit-left"] + groups["slit-right"])
        size = field.add("Threshold")
        field.setNumber(size, "InField", distance)
        for key, value in (("SizeMin", h_slit), ("SizeMax", h), ("DistMin", 0.05), ("DistMax", 0.3)):
            field.setNumber(size, key, value)
        field.setAsBackgroundMesh(size)
        for key in ("MeshSizeExtendFromBoundary", "MeshSizeFromPoints", "MeshSizeFromCurvature"):
            gmsh.option.setNumber(f"Mesh.{key}", 0)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return fc.load_mesh(path)


def c_ring(mesh, self_contact: bool) -> fc.Model:
    """The ring squeezed by its pads, with or without the contact of its slit's faces."""
    ring = fc.Body("ring", mesh, "P1", fc.LinearElastic(E=E, nu=NU, plane="strain"))
    ring.fix("pad-left", x=PUSH).fix("pad-right", x=-PUSH)          # u_x imposed, u_y free
    ring.fix(point=(0.0, -RO), y=0.0, name="bottom")
    slit = fc.Contact(ring.surface("slit-left"), ring.surface("slit-right"), fc.Frictionless(),
                      name="slit", formulation="mortar")
    return fc.Model([ring], [slit] if self_contact else [])


with tempfile.TemporaryDirectory() as folder:
    mesh = c_ring_mesh(Path(folder) / "c_ring.msh")
open_ring = c_ring(mesh, self_contact=False).solve(steps=1)
result = c_ring(mesh, self_contact=True).solve(steps=STEPS)
assert open_ring.converged and result.converged

ring = result.problem.system.bodies[0]
X = ring.node_coords
slave, master = (result.problem.pairs[0].slave.nodes, result.problem.pairs[0].master.nodes)
k_open = -open_ring.reaction("pad-right")[0] / PUSH          # force per pad displacement


def overlap(u, a_nodes, b_nodes):
    """How far each node of face a lies past face b in x (deformed, b interpolated in y), shape (n_a,)."""
    xa, xb = X[:, a_nodes] + u[:, a_nodes], X[:, b_nodes] + u[:, b_nodes]
    order = np.argsort(xb[1])
    inside = (xa[1] >= xb[1].min()) & (xa[1] <= xb[1].max())
    return np.where(inside, xa[0] - np.interp(xa[1], xb[1, order], xb[0, order]), -np.inf)


# the open ring predicts where the slit closes: the load at which the left face reaches the right one
u_open = open_ring.displacement
loads = np.linspace(0.0, 1.0, 2001)
t_close = loads[np.argmax([overlap(t * u_open, slave, master).max() >= 0.0 for t in loads])]

levels = result.times
force = np.array([-result.at(k).reaction("pad-right")[0] for k in range(STEPS)])
balance = max(np.abs(result.at(k).reaction("pad-right") + result.at(k).reaction("pad-left")
                     + result.at(k).reaction("bottom")).max() for k in range(STEPS))
contact_force = np.array([result.at(k).pair("slit").force[0] for k in range(STEPS)])
closed = contact_force != 0.0
last_open, first_closed = np.flatnonzero(~closed).max(), np.flatnonzero(closed).min()
stiffness_after = np.diff(force[closed]) / np.diff(levels[closed] * PUSH)

# the contact forces on the two faces from the bulk: K u at the faces' nodes (no load acts there)
internal = (result.problem.system.K @ result.state.u).reshape(-1, 2)
on_slave, on_master = internal[slave].sum(axis=0), internal[master].sum(axis=0)
penetration = max(overlap(result.displacement, slave, master).max(),
                  -overlap(result.displacement, master, slave)[np.isfinite(
                      overlap(result.displacement, master, slave))].min())

FIGURES = {
    "force before closing / k_open d": {"value": force[last_open] / (k_open * levels[last_open] * PUSH),
                                        "reference": 1.0, "unit": "-"},
    "load level of closing, the open ring's prediction": {"value": t_close, "reference": None,
                                                          "unit": "-"},
    "last load level with the slit open": {"value": levels[last_open], "reference": None, "unit": "-"},
    "first load level with the slit closed": {"value": levels[first_closed], "reference": None,
                                              "unit": "-"},
    "smallest stiffness after closing / k_open": {"value": stiffness_after.min() / k_open,
                                                  "reference": None, "unit": "-"},
    "contact force on the left face": {"value": -contact_force[-1], "reference": None,
                                       "unit": "force / thickness"},
    "contact force on the right face (K u)": {"value": on_master[0], "reference": -on_slave[0],
                                              "unit": "force / thickness"},
    "largest penetration / element size at the slit": {"value": max(penetration, 0.0) / H_SLIT,
                                                       "reference": None, "unit": "-"},
    "reactions' sum / pad force": {"value": balance / force[-1], "reference": None, "unit": "-"},
}


def plot(path):
    """Pad force against pad displacement beside the deformed slit."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.tri import Triangulation

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    d = np.concatenate([[0.0], levels]) * PUSH
    left.plot(d, k_open * d, "k--", label="open ring (no contact pair), $k_{open} d$")
    left.plot(d, np.concatenate([[0.0], force]), "o-", color="tab:red", label="self-contact model")
    left.axvline(t_close * PUSH, color="tab:blue", lw=0.8, label="closing predicted by the open ring")
    left.set_xlabel("pad displacement d")
    left.set_ylabel("pad force per thickness")
    left.legend(loc="upper left", fontsize=8)
    left.grid(alpha=0.3)
    x = X + result.displacement
    mises = result.point_data()["von_mises"]
    tri = Triangulation(x[0], x[1], ring.mesh.t.T)
    shade = right.tripcolor(tri, mises, shading="gouraud", cmap="viridis")
    right.triplot(tri, color="white", lw=0.2)
    for nodes, colour in ((slave, "tab:red"), (master, "tab:orange")):
        order = np.argsort(X[1, nodes])
        right.plot(x[0, nodes[order]], x[1, nodes[order]], "-", color=colour, lw=2)
    right.set_xlim(-0.2, 0.2)
    right.set_ylim(0.76, 1.1)
    right.set_aspect("equal")
    right.set_title("the slit closed at d = 0.03 (true scale)")
    fig.colorbar(shade, ax=right, label="von Mises stress")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    import sys

    for name, fig in FIGURES.items():
        ref = "" if fig["reference"] is None else f"  reference {fig['reference']:.6g}"
        print(f"{name:48s} {fig['value']:.6g}{ref}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
