"""Elastic hemisphere on a rigid plane (3D Hertz).

The lower half of a ball of radius R = 1 (scikit-fem's `MeshTet.init_ball`
cut at its equator, linear tetrahedra, refined six times towards the pole,
the new surface nodes put back on the sphere) touches the rigid plane
z = 0 at its pole.  Material: E = 1e4, nu = 0.3.  Load: the flat top
z = 1 is clamped and moved down by 0.05.  Frictionless; the lower
hemisphere (z < 0.3) is the slave surface.

Reference: Hertz's contact of an elastic sphere with a rigid plane, for
the contact force F the model carries: a = (3 F R / (4 E*))^(1/3) and
p0 = 3 F / (2 pi a^2), with E* = E / (1 - nu^2).  The contact radius of the
model is the `a` of the ellipsoid p^2 = p_max^2 (1 - r^2 / a^2) fitted
(least squares in r^2) to the loaded nodes; the contact force is checked
against the reaction of the top.
"""

import sys

import numpy as np
import skfem

import fecontact as fc

E, NU, R = 1.0e4, 0.3, 1.0
LEVELS = 6

ball = skfem.MeshTet.init_ball(3)
lower = ball.t[:, ball.p[:, ball.t].mean(axis=1)[2] < 0]          # the half below the equator
used = np.unique(lower)
number = np.zeros(ball.p.shape[1], dtype=int)
number[used] = np.arange(used.size)
mesh = skfem.MeshTet(ball.p[:, used], number[lower])
for k in range(LEVELS):                                  # refine towards the pole (0, 0, -1)
    mid = mesh.p[:, mesh.t].mean(axis=1)
    mesh = mesh.refined(np.flatnonzero(np.linalg.norm(mid - [[0], [0], [-R]], axis=0) < 0.6 * 0.8**k))
    p, sphere = mesh.p.copy(), mesh.boundary_nodes()
    sphere = sphere[p[2, sphere] < -1e-12]           # surface nodes off the flat face
    p[:, sphere] *= R / np.linalg.norm(p[:, sphere], axis=0)
    mesh = skfem.MeshTet(p, np.ascontiguousarray(mesh.t))
mesh = skfem.MeshTet(mesh.p + [[0], [0], [R]], mesh.t)            # pole at the origin

body = fc.Body("hemisphere", mesh, "P1", fc.LinearElastic(E=E, nu=NU))
body.fix(lambda x: np.isclose(x[2], R), x=0.0, y=0.0, z=-0.05, name="top")
slave = body.surface(lambda x: x[2] < 0.3, name="lower")
plane = fc.RigidPlane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0))
result = fc.Model([body], [fc.Contact(slave, plane, name="on-plane")]).solve(steps=2)
assert result.converged

points, p = result.slave_points, result.pressure
r = np.hypot(points[0], points[1])
force = result.pair("on-plane").force[2]
e_star = E / (1.0 - NU**2)
a_hertz = (3.0 * force * R / (4.0 * e_star)) ** (1.0 / 3.0)
p0 = 3.0 * force / (2.0 * np.pi * a_hertz**2)
loaded = p > 0
slope, intercept = np.polyfit(r[loaded] ** 2, p[loaded] ** 2, 1)   # p^2 = c - (c / a^2) r^2
a_fit = np.sqrt(-intercept / slope)

FIGURES = {
    "peak pressure p_max": {"value": p.max(), "reference": p0, "unit": "stress"},
    "contact radius a": {"value": a_fit, "reference": a_hertz, "unit": "length"},
    "contact force": {"value": force, "reference": -result.reaction("top")[2], "unit": "force"},
}


def plot(path):
    """The contact patch seen from below the plane: pressure on the slave surface, Hertz's circle."""
    import pyvista as pv

    surface = result.to_pyvista().extract_surface(algorithm=None)
    patch = surface.clip(normal=(0, 0, 1), origin=(0, 0, 0.12), invert=True)
    circle = pv.Circle(radius=a_hertz, resolution=120).translate((0, 0, -1e-3))
    plotter = pv.Plotter(off_screen=True, window_size=(800, 800))
    plotter.set_background("white")
    plotter.add_mesh(patch, scalars="contact_pressure", cmap="inferno", show_edges=True,
                     edge_color="grey", line_width=0.5, clim=(0, max(p.max(), p0)),
                     scalar_bar_args={"title": "contact pressure", "color": "black",
                                      "position_x": 0.2, "position_y": 0.03, "width": 0.6})
    plotter.add_mesh(circle.extract_feature_edges(), color="cyan", line_width=3)
    plotter.add_text(f"seen from below; cyan: Hertz circle a = {a_hertz:.3f}, F = {force:.1f}; "
                     f"p_max / p0 = {p.max() / p0:.3f}", font_size=10, color="black")
    plotter.camera_position = [(0, 0, -3.0), (0, 0, 0), (0, 1, 0)]
    plotter.camera.parallel_projection = True
    plotter.camera.parallel_scale = 0.6
    plotter.screenshot(str(path))
    plotter.close()


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name:24s} {fig['value']:.6g}  reference {fig['reference']:.6g}  "
              f"ratio {fig['value'] / fig['reference']:.4f}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
