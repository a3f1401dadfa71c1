# %% [markdown]
# # Tutorial: a roller pressed and dragged on a rigid floor
#
# This tutorial builds one frictional contact model from a scikit-fem mesh,
# step by step: an elastic roller is pressed onto a rigid floor and then
# dragged sideways until it slides. On the way it checks the contact
# pressure against Hertz's solution, reads the reactions and the stick/slip
# status, plots the results and writes a file for ParaView. It takes about
# ten minutes and assumes you know scikit-fem meshes; fecontact is
# [installed](install.md).
#
# The code below is one script, `docs/getting-started/tutorial.py` in the
# repository. Run it from any folder with `python tutorial.py`: it writes
# its pictures and the VTU file there. The numbers and pictures on this
# page come from that run (the page is written by `docs/make_tutorial.py`),
# and the test suite runs the script and checks the physics it claims.
#
# ## 1. The mesh
#
# The roller is a segment of a cylinder of radius $R = 1$ (units: mm, MPa,
# and N per mm of thickness, as the model is plane strain): a block
# $-0.8 \le x \le 0.8$, $0 \le y \le 1$ whose bottom is bent onto the
# circle $y = R - \sqrt{R^2 - x^2}$ that touches the floor $y = 0$ at
# $x = 0$. It is an ordinary `skfem.MeshTri`, made with `init_tensor`,
# with lines spaced 0.004 apart where the contact will be and growing
# towards the sides and the top. Boundaries are named with
# `with_boundaries`, as in scikit-fem; fecontact refers to them by name.

# %%
import numpy as np
import skfem

import fecontact as fc

R, W, H = 1.0, 0.8, 1.0                        # radius, half-width, height (mm)
half = np.r_[np.linspace(0.0, 0.12, 31), np.geomspace(0.13, W, 14)]
xs = np.r_[-half[:0:-1], half]                  # fine in |x| < 0.12
ys = np.r_[np.linspace(0.0, 0.1, 11), np.geomspace(0.12, H, 12)]
mesh = skfem.MeshTri.init_tensor(xs, ys)
x, y = mesh.p
bent = np.vstack([x, y + (R - np.sqrt(R**2 - x**2)) * (1.0 - y / H)])
mesh = skfem.MeshTri(bent, mesh.t).with_boundaries({
    "top": lambda p: np.isclose(p[1], H),
    "bottom": lambda p: (np.abs(p[0]) < W - 1e-9) & (p[1] < H - 1e-9),
})
print(mesh)

# %% [markdown]
# ## 2. The body and its material
#
# A `fc.Body` is a scikit-fem mesh with an element and a material:
# linear elasticity with $E = 10^4$ MPa and $\nu = 0.3$, in plane strain.
# `"P1"` are linear triangles (`"P2"` and `"Q1"` work the same way).

# %%
E, NU = 1.0e4, 0.3
roller = fc.Body("roller", mesh, "P1", fc.LinearElastic(E=E, nu=NU, plane="strain"))

# %% [markdown]
# ## 3. Supports and loads
#
# The load has two stages in a pseudo-time $t$ from 0 to 1. Until
# $t = 0.5$ the top is pushed down by 0.01 mm; after that it stays pressed
# and is moved 0.01 mm to the right. Each stage is an `fc.Amplitude`, a
# piecewise-linear table of $t$, that scales the prescribed value.
# `fix` prescribes displacement components on a named boundary (or on the
# facets a predicate selects); its `name` is what the reaction is looked
# up by later.

# %%
PRESS, DRAG = 0.01, 0.01                       # mm
press = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 1.0, 1.0))   # stage 1, then held
drag = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 0.0, 1.0))    # stage 2 only
roller.fix("top", y=-PRESS, amplitude=press, name="top-y")
roller.fix("top", x=DRAG, amplitude=drag, name="top-x")

# %% [markdown]
# ## 4. The contact surface and the obstacle
#
# The curved bottom is the slave surface, `roller.surface("bottom")`.
# The master is a rigid obstacle, the line $y = 0$ with its normal
# pointing up towards the roller. A second elastic body would take its
# place the same way: `other_body.surface("top")`. Nodes of the slave
# surface far from the floor simply stay open.

# %%
bottom = roller.surface("bottom")
floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))

# %% [markdown]
# ## 5. The friction law
#
# Coulomb friction with $\mu = 0.3$. The pair is `Contact(slave, master,
# friction)`; its name labels its results. Other laws (static/kinetic,
# velocity-dependent, smooth IPC) are drop-in replacements, see the
# [friction laws](../friction/index.md).

# %%
MU = 0.3
pair = fc.Contact(bottom, floor, fc.Coulomb(MU), name="roller-on-floor")
model = fc.Model([roller], [pair])

# %% [markdown]
# ## 6. Solving with load steps
#
# `solve` steps the pseudo-time through the output `levels`: four for the
# pressing, ten for the drag. Each level is solved by a semismooth Newton
# method and cut into smaller increments automatically if Newton fails.
# Friction is path dependent, so the drag needs several levels: the
# friction state is carried from one to the next. A failed level does not
# raise; `result.converged` is False and `result.failure` says why.

# %%
levels = [0.125, 0.25, 0.375, 0.5] + [round(0.5 + 0.05 * k, 2) for k in range(1, 11)]
result = model.solve(levels=levels)
print(result.converged, result.failure)

# %% [markdown]
# ## 7. Reading the results
#
# `result.records` has one record per level with the Newton iterations
# and the number of open, sticking and slipping slave nodes;
# `result.reaction(name)` is the force a support exerts on the body (per
# mm of thickness), and `result.at(k)` is the solution at level `k`. The
# normal force $P$ is the top's vertical reaction (downwards, hence the
# minus sign) and the friction force $Q$ its horizontal one:

# %%
print(" t      drag     Q/P     Newton  stick  slip")
for k, rec in enumerate(result.records):
    level = result.at(k)
    P = -level.reaction("top-y")[1]
    Q = level.reaction("top-x")[0]
    print(f"{rec.load:5.3f}  {DRAG * drag(rec.load):.4f}  {Q / P:6.4f}  "
          f"{rec.newton_iterations:6d}  {rec.stick:5d}  {rec.slip:4d}")

# %% [markdown]
# While the top is pressed the contact zone grows from the first point of
# contact; its centre sticks and its edges slip inwards. During the drag
# slip spreads in from the edges until every loaded node slips and the
# friction force is $Q = \mu P$: at the end $Q/P$ = {{ratio_end:.4f}}
# against $\mu$ = {{MU}}. The resultants of the pair give the same from
# the contact side (the force the floor exerts on the roller), and they
# balance the supports:

# %%
end = result.pair("roller-on-floor")
print("pair force", end.force, "max pressure", end.max_pressure)
print("open, stick, slip:", end.open, end.stick, end.slip)
print("supports:", result.reaction("top-x") + result.reaction("top-y"))
ratio_end = -end.force[0] / end.force[1]

# %% [markdown]
# ## 8. Comparing with Hertz
#
# Hertz's line contact of a cylinder on a rigid flat gives, for the normal
# force $P$ per unit length and $E^* = E / (1 - \nu^2)$, the contact
# half-width $a = \sqrt{4 P R / (\pi E^*)}$ and the peak pressure
# $p_0 = 2 P / (\pi a)$ (`fecontact.references.analytic2d.HertzLine`).
# Hertz's theory is frictionless, so for a clean comparison solve the
# pressing stage once more without friction: a new pair on the same body
# and surfaces. `result.contact(name)` gives the pair's nodal fields:
# `points`, `pressure`, `shear`, `status`, `gap`, ... The half-width of the
# model is that of the ellipse $p^2 = p_{max}^2 (1 - x^2/a^2)$ fitted to
# the loaded nodes.

# %%
from fecontact.references.analytic2d import HertzLine, effective_modulus

smooth = fc.Model([roller], [fc.Contact(bottom, floor, fc.Frictionless(), name="smooth")])
pressed_smooth = smooth.solve(levels=[0.25, 0.5])
pressed = result.at(3)                          # t = 0.5, with friction


def half_width(fields):
    """The a of the ellipse p^2 = c (1 - x^2 / a^2) fitted to the loaded nodes."""
    on = fields.pressure > 0
    slope, c = np.polyfit(fields.points[0, on] ** 2, fields.pressure[on] ** 2, 1)
    return np.sqrt(-c / slope)


smooth_fields = pressed_smooth.contact("smooth")
P_smooth = -pressed_smooth.reaction("top-y")[1]
hertz = HertzLine(P=P_smooth, R=R, E_star=effective_modulus(E, NU))
a_fe, p_fe = half_width(smooth_fields), smooth_fields.pressure.max()
print(f"P = {P_smooth:.2f} N/mm")
print(f"half-width a: {a_fe:.4f} mm, Hertz {hertz.half_width:.4f} mm")
print(f"peak pressure: {p_fe:.1f} MPa, Hertz {hertz.peak_pressure:.1f} MPa")

friction_fields = pressed.contact("roller-on-floor")
P_friction = -pressed.reaction("top-y")[1]
hertz_friction = HertzLine(P=P_friction, R=R, E_star=effective_modulus(E, NU))
print(f"with friction: a = {half_width(friction_fields):.4f} mm, "
      f"p_max = {friction_fields.pressure.max():.1f} MPa, "
      f"Hertz p0 = {hertz_friction.peak_pressure:.1f} MPa")

a_error = 100 * abs(a_fe / hertz.half_width - 1)          # per cent
p_error = 100 * abs(p_fe / hertz.peak_pressure - 1)
h = np.diff(xs).min()                                     # node spacing under the contact
friction_rise = 100 * (friction_fields.pressure.max() / p_fe - 1)
friction_narrower = 100 * (1 - half_width(friction_fields) / a_fe)

# %% [markdown]
# Without friction the model's half-width is within
# {{a_error:.1f}} % of Hertz's and its peak pressure within
# {{p_error:.1f}} %: the nodes are {{h:.3f}} mm apart under the contact,
# so the edge of the contact zone is only known to within a node spacing,
# and the roller is a finite body rather than Hertz's half-space. With friction the peak pressure is
# {{friction_rise:.1f}} % higher and the contact
# {{friction_narrower:.1f}} % narrower. Under pressure the surface of a
# compressible body ($\nu < 0.5$) moves towards the centre of the contact;
# the rigid floor's friction resists that movement (the outer nodes slip
# inwards, as the table of step 7 shows), which stiffens the contact
# (Spence's problem). The difference is physics, not discretisation error.

# %% [markdown]
# ## 9. Plotting
#
# The contact fields are numpy arrays, so matplotlib plots them directly.
# Left: the pressure at the end of the pressing stage against Hertz's
# ellipse; right: the friction force and the number of sticking nodes
# during the drag.

# %%
import matplotlib

matplotlib.use("Agg")                           # no display needed
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
xp = np.linspace(-1.3, 1.3, 400) * hertz.half_width
left.plot(xp, hertz.pressure(xp), "k-", label="Hertz (frictionless)")
for fields, style, label in ((smooth_fields, "o", "frictionless"),
                             (friction_fields, "s", f"Coulomb, mu = {MU}")):
    order = np.argsort(fields.points[0])
    left.plot(fields.points[0, order], fields.pressure[order], style, ms=4, label=label)
left.set(xlim=(xp[0], xp[-1]), xlabel="x (mm)", ylabel="contact pressure (MPa)",
         title="end of the pressing stage")
left.legend()
drag_levels = [k for k, rec in enumerate(result.records) if rec.load >= 0.5]
moved = [DRAG * drag(result.records[k].load) for k in drag_levels]
ratios = [result.at(k).reaction("top-x")[0] / -result.at(k).reaction("top-y")[1]
          for k in drag_levels]
right.plot(moved, ratios, "o-", label="Q / P")
right.axhline(MU, color="k", ls="--", label="mu")
right.set(xlabel="drag of the top (mm)", ylabel="Q / P", title="dragging")
twin = right.twinx()
twin.plot(moved, [result.records[k].stick for k in drag_levels], "s-", color="tab:red",
          label="sticking nodes")
twin.set_ylabel("sticking nodes")
right.legend(loc="center left")
twin.legend(loc="center right")
fig.tight_layout()
fig.savefig("tutorial_contact.png", dpi=100)

# %% [markdown]
# ![Contact pressure against Hertz; friction ratio and stick count during the drag](tutorial_contact.png)
#
# For the deformed mesh, `result.to_pyvista()` gives all bodies with every
# field as point data (`displacement`, `von_mises`, `contact_pressure`,
# `contact_status`, ...). Its points are the mesh's nodes, so scikit-fem's
# own `skfem.visuals.matplotlib.plot` draws a field on the deformed mesh
# (true scale: the displacements are about 1 % of the roller's size):

# %%
from skfem.visuals.matplotlib import draw, plot

grid = result.to_pyvista()
stress = grid["von_mises"]
deformed = skfem.MeshTri(mesh.p + result.body_displacement("roller"), mesh.t)
fig, (whole, zoom) = plt.subplots(1, 2, figsize=(11, 4.2))
plot(deformed, stress, ax=whole, shading="gouraud", cmap="viridis", colorbar="von Mises (MPa)")
plot(deformed, stress, ax=zoom, shading="gouraud", cmap="viridis",
     vmin=stress.min(), vmax=stress.max())
draw(deformed, ax=zoom, color="w", linewidth=0.3)
for ax in (whole, zoom):
    ax.axhline(0.0, color="k")
    ax.set_aspect("equal")
zoom.set(xlim=(-0.2, 0.2), ylim=(-0.01, 0.12), title="the contact zone, with the mesh")
whole.set_title("von Mises stress at the end of the drag")
fig.tight_layout()
fig.savefig("tutorial_deformed.png", dpi=100)

# %% [markdown]
# ![The roller deformed, coloured by the von Mises stress](tutorial_deformed.png)
#
# In 3D, or for an interactive view, plot the same `grid` with pyvista:
# `grid.warp_by_vector("displacement").plot(scalars="von_mises")`
# (with `off_screen=True, screenshot="roller.png"` on a machine without a
# display).
#
# ## 10. Results for ParaView
#
# `write_vtu` writes the final state with every field. With
# `model.solve(..., out="folder")` every level is written as it is
# solved, with a `.pvd` index that ParaView opens as a time series.

# %%
result.write_vtu("roller.vtu")

# %% [markdown]
# Open `roller.vtu` in ParaView, colour by `contact_pressure` or
# `contact_status` (0 open, 1 stick, 2 slip), and use *Warp By Vector* on
# `displacement`.
#
# ## Where next
#
# - The [user guide](../guide/index.md) has every option of the calls used
#   here: [bodies and materials](../guide/bodies.md),
#   [supports and loads](../guide/loads.md),
#   [contact and friction](../guide/contact.md),
#   [solving](../guide/solving.md) and
#   [results and plotting](../guide/results.md).
# - The [examples](../examples/index.md): two elastic bodies, 3D contact,
#   hexahedra on tetrahedra, bodies of two materials, each a short script.
# - The same kind of model as a TOML [case file](../guide/case-files.md),
#   run from the command line with `fecontact run`.
