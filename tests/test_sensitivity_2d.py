r"""The 2D verification matrix of :meth:`fecontact.Solution.gradient`.

Every gradient is checked against an independent reference:

* **central finite differences of full re-solves**: the model is built again
  from plain floats at ``p +- h, p +- 2h`` (the four-point stencil, error
  ``O(h^4)``, ``h = 3e-5 |p|``; by the Python calls of the test, not
  :meth:`fecontact.Model.with_values`), solved with ``newton tolerance
  1e-12`` over the same levels, and the quantity read off the re-solved
  :class:`fecontact.Solution` by its public figures (``reaction``,
  ``body_displacement``, ``contact(pair)`` pressures and areas, the bulk
  internal force for the compliance; a contact force by the equilibrium of
  the slave body with its supports).  The re-solves must take as many
  increments as the run the gradient is of (the gradient is that of the
  discrete path).  Target: relative agreement ``1e-6``; the relative error
  of a derivative is ``|adjoint - fd| / max(|fd|, 1e-3 |Q| / |p|)`` (a
  derivative far below the natural scale ``Q / p`` is measured on that
  scale).  Shape parameters: the re-solves move the mesh nodes themselves
  (the outward normal of a straight boundary, a Laplace extension solved
  here with scikit-fem).
* **a closed form**: with only displacements prescribed and one linear
  material every force is proportional to ``E``, so ``dR/dE = R/E`` to
  ``1e-10`` (frictionless and Coulomb, node-to-segment and mortar).
* the gradient does not depend on the backend of the forward solve.

Covered: parameters ``E``, ``nu``, ``E`` of one region of a two-material
body, Coulomb ``mu``, StaticKinetic ``mu_s, mu_k``, VelocityDependent
``mu_s, mu_k, decay``, SmoothIPC ``mu_s, mu_k``, a prescribed displacement,
a coupling force, a pressure, a traction, a body force, a rigid circle's
radius and displacement, shape parameters (normal direction with the
harmonic extension, a fixed direction without extension); formulations
node-to-segment against a rigid circle, two bodies node-to-segment and
mortar, frictionless and Coulomb, small strain and ``fc.NeoHookean``;
backends ``direct``, ``schur``, ``factorization``, ``amg``; one model on an
unstructured gmsh triangle mesh; the API (``with_values``, ``Gradient``
indexing, several quantities per call, the one-line errors).

The finite-difference rows are marked slow (each re-solves its model four
times per parameter); the default run keeps the closed-form checks, the
backends and the API.  Each matrix row prints ``ROW <name> worst=<relative
error>`` (run with ``-s -n0`` to collect the table).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import skfem
from skfem.models.poisson import laplace
from scipy.sparse.linalg import spsolve

import fecontact as fc

NEWTON = {"tolerance": 1e-12}
TARGET = 1e-6
#: the step of the reference differences, relative to the parameter
REL_STEP = 3e-5
#: press to t = 0.5, then push sideways with the press held
PRESS = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 1.0, 1.0))
PUSH = fc.Amplitude((0.0, 0.5, 1.0), (0.0, 0.0, 1.0))


# -- helpers --------------------------------------------------------------------------------------
def rectangle(x0, x1, y0, y1, nx, ny, subdomains=None):
    """A structured triangle mesh of a rectangle with the default boundary names."""
    mesh = skfem.MeshTri.init_tensor(np.linspace(x0, x1, nx + 1), np.linspace(y0, y1, ny + 1))
    mesh = mesh.with_boundaries({"bottom": lambda x: np.isclose(x[1], y0),
                                 "top": lambda x: np.isclose(x[1], y1),
                                 "left": lambda x: np.isclose(x[0], x0),
                                 "right": lambda x: np.isclose(x[0], x1)})
    if subdomains:
        mesh = mesh.with_subdomains(subdomains)
    return mesh


def solve(model, levels, backend="auto"):
    """The model solved over ``levels`` with the tight Newton tolerance (converged)."""
    sol = model.solve(levels=levels, newton=NEWTON, backend=backend)
    assert sol.converged, sol.failure
    return sol


def node_of(sol, body, point):
    """The index of the body's node at ``point``."""
    part = next(b for b in sol.problem.system.bodies if b.name == body)
    d = np.linalg.norm(part.node_coords - np.asarray(point, float)[:, None], axis=0)
    i = int(np.argmin(d))
    assert d[i] < 1e-12, "the point is not a node"
    return i


# evaluators: a quantity read off a solved Solution by its public figures (independent of fc.qoi)
def reaction(name, c, step=-1):
    return lambda s: float(s.at(step).reaction(name)["xy".index(c)])


def slave_force(supports, c, load=0.0, step=-1):
    """The contact force on a slave body from its equilibrium: ``-(sum of its reactions) - load``."""
    return lambda s: -sum(float(s.at(step).reaction(n)["xy".index(c)]) for n in supports) - load


def displacement(body, point, c, step=-1):
    return lambda s: float(s.at(step).body_displacement(body)["xy".index(c), node_of(s, body, point)])


def p_mean(pair, p, step=-1):
    def f(s):
        fields = s.at(step).contact(pair)
        q, A = np.maximum(fields.pressure, 0.0), fields.area
        return float((A @ q**p / A.sum()) ** (1.0 / p))
    return f


def uniformity(pair, step=-1):
    def f(s):
        fields = s.at(step).contact(pair)
        q, A = fields.pressure, fields.area
        mean = A @ q / A.sum()
        return float(A @ (q - mean) ** 2 / A.sum() / mean**2)
    return f


def compliance(step=-1):
    def f(s):
        u = s.at(step).state.u
        return float(u @ s.problem.system.internal_force(u))
    return f


def misfit(evaluate_at, data):
    return lambda s: float(sum((evaluate_at(l)(s) - d) ** 2 for l, d in enumerate(data)))


def relative_error(adjoint, fd, value, p):
    """``|adjoint - fd| / max(|fd|, 1e-3 |Q| / |p|)``."""
    scale = max(abs(fd), 1e-3 * abs(value) / max(abs(p), 1e-300))
    return abs(adjoint - fd) / scale


def four_point(resolve, h, n, evaluators, what):
    """``(8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / 12h`` of the evaluators of ``resolve(offset)`` (error
    ``O(h^4)``), after checking every re-solve took ``n`` increments."""
    f = {}
    for e in (h, -h, 2 * h, -2 * h):
        s = resolve(e)
        assert len(s.increments) == n, f"{what}: the re-solve at {e:+g} took another path"
        f[e] = np.array([evaluate(s) for evaluate in evaluators])
    return (8.0 * (f[h] - f[-h]) - (f[2 * h] - f[-2 * h])) / (12.0 * h)


def check_gradients(row, build, base, wrt, quantities, levels, *, rel_step=REL_STEP, backend="auto",
                    target=TARGET):
    """Adjoint gradients of ``quantities`` (pairs ``(qoi, evaluator)``) in the parameters ``wrt`` of
    ``build(**base)`` against central differences of re-solves of ``build`` with plain floats.

    Returns the worst relative error (printed as a row of the matrix) and asserts it is below
    ``target``; also that the quantities' values are those the evaluators read.
    """
    params = {k: fc.Parameter(base[k], name=k) for k in wrt}
    sol = solve(build(**{**base, **params}), levels, backend)
    grads = sol.gradient([q for q, _ in quantities], wrt=[params[k] for k in wrt])
    n = len(sol.increments)
    plain = solve(build(**base), levels)
    for g, (q, evaluate) in zip(grads, quantities):
        v = evaluate(plain)
        assert abs(g.value - v) <= 1e-8 * max(abs(v), 1e-12), (q, g.value, v)
    worst, detail = 0.0, {}
    for k in wrt:
        p = float(base[k])
        h = rel_step * abs(p) if p != 0 else rel_step
        fd = four_point(lambda e: solve(build(**{**base, k: p + e}), levels), h, n,
                        [evaluate for _, evaluate in quantities], k)
        for j, g in enumerate(grads):
            err = relative_error(float(g[params[k]]), fd[j], g.value, p)
            detail[(k, j)] = (float(g[params[k]]), fd[j], err)
            worst = max(worst, err)
    margin = min(g.margin for g in grads)
    print(f"\nROW {row} worst={worst:.2e} margin={margin:.2e} increments={n}")
    for (k, j), (a, f, e) in detail.items():
        if e >= 0.1 * target:
            print(f"    {k} {quantities[j][0]!r:.60} adjoint={a:.10g} fd={f:.10g} err={e:.2e}")
    assert worst < target, {k: v for k, v in detail.items() if v[2] >= target}
    return worst, grads


# -- 1. rigid obstacle, node-to-segment: material, obstacle, loads -----------------------------
def punch_model(E=1e3, nu=0.3, mu=0.3, R=1.0, dy=-0.02, dx=0.003, pressure=2.0, tx=1.0,
                gravity=-0.5, material="linear"):
    """A block 1 x 0.5 clamped at the bottom, a rigid circle (centre fixed at (0, 1.501), radius ``R``)
    pressed into its top and pushed sideways (Coulomb), a pressure on the left side, a traction on
    the right, a body force."""
    law = fc.Coulomb(mu) if mu else fc.Frictionless()
    mat = fc.LinearElastic(E=E, nu=nu) if material == "linear" else fc.NeoHookean(E=E, nu=nu)
    b = fc.Body("block", rectangle(-0.5, 0.5, 0.0, 0.5, 16, 6), "P1", mat)
    b.fix("bottom")
    b.pressure("left", pressure)
    b.traction("right", (tx, 0.0))
    b.body_force((0.0, gravity))
    punch = fc.RigidCircle(center=(0.0, 1.501), radius=R, displacement=(dx, dy))
    return fc.Model([b], [fc.Contact(b.surface("top"), punch, law, name="punch")])


def punch_quantities(friction=True):
    """The quantities read off the punch model; with friction the misfit and the sum are of
    quantities that do not read the contact force (see ``test_sum_and_misfit_of_forces_with_friction``)."""
    levels = (0, 1, 2)
    u_c = ("block", (0.0, 0.25))
    out = [
        (fc.qoi.Reaction("bottom", "y"), reaction("bottom", "y")),
        (fc.qoi.Reaction("bottom", "x"), reaction("bottom", "x")),
        (fc.qoi.Displacement(u_c[1], "y"), displacement(*u_c, "y")),
        (fc.qoi.PeakPressure("punch", p=4), p_mean("punch", 4)),
        (fc.qoi.PressureUniformity("punch"), uniformity("punch")),
        (fc.qoi.Compliance(), compliance()),
    ]
    if friction:
        data = (-0.002, -0.005, -0.01)
        out += [(fc.qoi.Misfit(fc.qoi.Displacement(u_c[1], "y"), data),
                 misfit(lambda l: displacement(*u_c, "y", levels[l]), data)),
                (2.0 * fc.qoi.PeakPressure("punch", p=4) - 1e3 * fc.qoi.Displacement(u_c[1], "x"),
                 lambda s: 2.0 * p_mean("punch", 4)(s) - 1e3 * displacement(*u_c, "x")(s))]
    else:
        data = (-5.0, -12.0, -20.0)
        out += [(fc.qoi.Misfit(fc.qoi.Reaction("bottom", "y"), data),
                 misfit(lambda l: reaction("bottom", "y", levels[l]), data)),
                (2.0 * fc.qoi.Reaction("bottom", "y") - 0.5 * fc.qoi.Displacement(u_c[1], "x"),
                 lambda s: 2.0 * reaction("bottom", "y")(s) - 0.5 * displacement(*u_c, "x")(s))]
    return out


@pytest.mark.slow
def test_rigid_circle_coulomb_material_obstacle_and_loads():
    """E, nu, mu, the circle's radius and displacement, a pressure, a traction and a body force."""
    check_gradients("nts-rigid coulomb small-strain: E nu mu R dy pressure traction body-force",
                    punch_model, dict(E=1e3, nu=0.3, mu=0.3, R=1.0, dy=-0.02, pressure=2.0,
                                      tx=1.0, gravity=-0.5),
                    ["E", "nu", "mu", "R", "dy", "pressure", "tx", "gravity"],
                    punch_quantities(), levels=(1 / 3, 2 / 3, 1.0))


@pytest.mark.slow
def test_rigid_circle_frictionless():
    check_gradients("nts-rigid frictionless small-strain: E nu R dy",
                    punch_model, dict(E=1e3, nu=0.3, mu=0.0, R=1.0, dy=-0.02),
                    ["E", "nu", "R", "dy"], punch_quantities(False), levels=(1 / 3, 2 / 3, 1.0))


@pytest.mark.slow
def test_rigid_circle_neo_hookean():
    """Finite strain: a deeper press (0.06 on a block 0.5 high)."""
    check_gradients("nts-rigid coulomb neo-hookean: E R",
                    punch_model, dict(E=1e3, nu=0.3, mu=0.3, R=1.0, dy=-0.06, dx=0.01,
                                      material="neo"),
                    ["E", "R"], punch_quantities(), levels=(1 / 3, 2 / 3, 1.0))


BACKEND_BASE = dict(E=1e3, nu=0.3, mu=0.3, R=1.0, dy=-0.02)
BACKEND_WRT = ("E", "mu", "R")
BACKEND_LEVELS = (0.5, 1.0)


def central_differences(build, base, wrt, quantities, levels, n, rel_step=REL_STEP):
    """``{parameter: d evaluators / d parameter}`` by central differences of direct re-solves."""
    return {k: four_point(lambda e: solve(build(**{**base, k: float(base[k]) + e}), levels, "direct"),
                          rel_step * abs(float(base[k])), n, [e for _, e in quantities], k)
            for k in wrt}


@pytest.fixture(scope="module")
def backend_reference():
    """The direct run's gradient and central differences of direct re-solves (punch, Coulomb)."""
    quantities = punch_quantities()[:4]
    params = {k: fc.Parameter(BACKEND_BASE[k], name=k) for k in BACKEND_WRT}
    sol = solve(punch_model(**{**BACKEND_BASE, **params}), BACKEND_LEVELS, "direct")
    grads = sol.gradient([q for q, _ in quantities], wrt=list(params.values()))
    fd = central_differences(punch_model, BACKEND_BASE, BACKEND_WRT, quantities, BACKEND_LEVELS,
                             len(sol.increments))
    return quantities, grads, fd, len(sol.increments)


@pytest.mark.parametrize("backend", ["direct", "schur", "factorization", "amg"])
def test_backends_give_the_same_gradient(backend, backend_reference):
    """The forward backend changes the path only to round-off: the gradient of a run with each
    backend agrees with central differences of direct re-solves, and with the direct run's gradient
    to 1e-8."""
    quantities, ref, fd, n = backend_reference
    params = {k: fc.Parameter(BACKEND_BASE[k], name=k) for k in BACKEND_WRT}
    sol = solve(punch_model(**{**BACKEND_BASE, **params}), BACKEND_LEVELS, backend)
    assert len(sol.increments) == n
    grads = sol.gradient([q for q, _ in quantities], wrt=list(params.values()))
    worst = 0.0
    for j, (g, r) in enumerate(zip(grads, ref)):
        for i, k in enumerate(BACKEND_WRT):
            err = relative_error(float(g[params[k]]), fd[k][j], g.value, BACKEND_BASE[k])
            worst = max(worst, err)
            assert err < TARGET, (backend, k, j, g[params[k]], fd[k][j])
            assert abs(g[i] - r[i]) <= 1e-8 * max(abs(r[i]), 1e-3 * abs(r.value)), (backend, k, j)
    print(f"\nROW nts-rigid coulomb backend={backend}: E mu R worst={worst:.2e} "
          f"margin={grads[0].margin:.2e}")


# -- 2. two bodies: node-to-segment and mortar; prescribed displacement, coupling force ----------
def stack_model(E=1e3, nu=0.3, E_base=2e3, mu=0.3, dy=-0.01, dx=0.002, formulation="mortar"):
    """A block 0.6 x 0.3 (slave) pressed by its top onto a foundation 1.2 x 0.4 (clamped bottom),
    then pushed sideways; Coulomb, or frictionless with mu = 0."""
    law = fc.Coulomb(mu) if mu else fc.Frictionless()
    top = fc.Body("block", rectangle(-0.3, 0.3, 0.4, 0.7, 10, 4), "P1", fc.LinearElastic(E=E, nu=nu))
    top.fix("top", y=dy, amplitude=PRESS, name="press")
    top.fix("top", x=dx, amplitude=PUSH, name="push")
    low = fc.Body("base", rectangle(-0.6, 0.6, 0.0, 0.4, 14, 4), "P1",
                  fc.LinearElastic(E=E_base, nu=0.3))
    low.fix("bottom")
    pair = fc.Contact(top.surface("bottom"), low.surface("top"), law, name="interface",
                      formulation=formulation)
    return fc.Model([top, low], [pair])


def stack_quantities(friction=True):
    """The quantities read off the two-body model (with friction the misfit is of a displacement)."""
    levels = (0, 1, 2)
    out = [
        (fc.qoi.Reaction("press", "y"), reaction("press", "y")),
        (fc.qoi.Reaction("push", "x"), reaction("push", "x")),
        (fc.qoi.ContactForce("interface", "y"), slave_force(["press", "push"], "y")),
        (fc.qoi.ContactForce("interface", "x"), slave_force(["press", "push"], "x")),
        (fc.qoi.Displacement((0.0, 0.4), "x", body="base"), displacement("base", (0.0, 0.4), "x")),
        (fc.qoi.PeakPressure("interface", p=6), p_mean("interface", 6)),
    ]
    if friction:
        data = (-0.001, -0.002, -0.003)
        out.append((fc.qoi.Misfit(fc.qoi.Displacement((0.0, 0.4), "y", body="base"), data),
                    misfit(lambda l: displacement("base", (0.0, 0.4), "y", levels[l]), data)))
    else:
        data = (-1.0, -4.0, -4.0)
        out.append((fc.qoi.Misfit(fc.qoi.ContactForce("interface", "y"), data),
                    misfit(lambda l: slave_force(["press", "push"], "y", step=levels[l]), data)))
    return out


TWO_BODIES = {("node_to_segment", 0.3): ["nu", "E_base", "dy", "dx", "mu"],
              ("mortar", 0.3): ["E", "mu"],
              ("mortar", 0.0): ["E", "nu", "dy"],
              ("node_to_segment", 0.0): ["E", "E_base", "dy"]}


@pytest.mark.slow
@pytest.mark.parametrize("formulation,mu", list(TWO_BODIES))
def test_two_bodies(formulation, mu):
    """E and nu of the slave, E of the master, mu, the prescribed displacements."""
    wrt = TWO_BODIES[formulation, mu]
    check_gradients(f"two-bodies {formulation} {'coulomb' if mu else 'frictionless'}: "
                    + " ".join(wrt), lambda **kw: stack_model(formulation=formulation, **kw),
                    dict(E=1e3, nu=0.3, E_base=2e3, mu=mu, dy=-0.01, dx=0.002 if mu else 0.0),
                    wrt, stack_quantities(bool(mu)), levels=(0.25, 0.5, 1.0))


def coupled_model(F=-20.0, E=1e3, mu=0.4, formulation="node_to_segment"):
    """The block pushed down onto the foundation by a coupling of its top's y (resultant ``F``), held
    sideways at its top (x = 0)."""
    law = fc.Coulomb(mu) if mu else fc.Frictionless()
    top = fc.Body("block", rectangle(-0.3, 0.3, 0.4, 0.7, 10, 4), "P1", fc.LinearElastic(E=E, nu=0.3))
    top.couple("top", "y", force=F, name="load")
    top.fix("top", x=0.0, name="guide")
    low = fc.Body("base", rectangle(-0.6, 0.6, 0.0, 0.4, 14, 4), "P1", fc.LinearElastic(E=2e3, nu=0.3))
    low.fix("bottom")
    pair = fc.Contact(top.surface("bottom"), low.surface("top"), law, name="interface",
                      formulation=formulation)
    return fc.Model([top, low], [pair])


@pytest.mark.slow
def test_coupling_force():
    check_gradients("two-bodies node_to_segment coulomb coupling: F E mu", coupled_model,
                    dict(F=-20.0, E=1e3, mu=0.4), ["F", "E", "mu"],
                    [(fc.qoi.Reaction("bottom", "y"), reaction("bottom", "y")),
                     (fc.qoi.Displacement((0.0, 0.7), "y", body="block"),
                      displacement("block", (0.0, 0.7), "y")),
                     (fc.qoi.PeakPressure("interface", p=4), p_mean("interface", 4)),
                     (fc.qoi.Compliance(), compliance())],
                    levels=(0.5, 1.0))


@pytest.mark.slow
def test_sum_and_misfit_of_forces_with_friction():
    """A sum and a misfit of contact forces and reactions with friction: they read the start state of
    their increments too (the slip rows of ``B``), like the forces themselves."""
    levels = (0, 1, 2)
    data = (-1.0, -4.0, -4.0)
    cf = fc.qoi.ContactForce("interface", "y")
    check_gradients("two-bodies node_to_segment coulomb: Sum/Misfit of forces: E dx mu",
                    lambda **kw: stack_model(formulation="node_to_segment", **kw),
                    dict(E=1e3, nu=0.3, E_base=2e3, mu=0.3, dy=-0.01, dx=0.002), ["E", "dx", "mu"],
                    [(2.0 * cf - 0.5 * fc.qoi.Reaction("push", "x"),
                      lambda s: 2.0 * slave_force(["press", "push"], "y")(s)
                      - 0.5 * reaction("push", "x")(s)),
                     (fc.qoi.Misfit(cf, data),
                      misfit(lambda l: slave_force(["press", "push"], "y", step=levels[l]), data))],
                    levels=(0.25, 0.5, 1.0))


# -- 3. two materials, friction laws ------------------------------------------------------------
def two_material_model(E_a=500.0, E_b=2e3, mu=0.3, dy=-0.02):
    """The punch block made of two regions: ``a`` (y < 0.25) and ``b`` (y > 0.25)."""
    mesh = rectangle(-0.5, 0.5, 0.0, 0.5, 16, 6,
                     subdomains={"a": lambda x: x[1] < 0.25, "b": lambda x: x[1] > 0.25})
    b = fc.Body("block", mesh, "P1", {"a": fc.LinearElastic(E=E_a, nu=0.3),
                                      "b": fc.LinearElastic(E=E_b, nu=0.4)})
    b.fix("bottom")
    punch = fc.RigidCircle(center=(0.0, 1.501), radius=1.0, displacement=(0.003, dy))
    return fc.Model([b], [fc.Contact(b.surface("top"), punch, fc.Coulomb(mu), name="punch")])


@pytest.mark.slow
def test_two_material_body():
    """E of one region, then of the other, of a body of two materials."""
    check_gradients("nts-rigid coulomb two-material: E_a E_b", two_material_model,
                    dict(E_a=500.0, E_b=2e3), ["E_a", "E_b"], punch_quantities()[:6],
                    levels=(0.5, 1.0))


def slide_model(law="coulomb", mu=0.3, mu_s=0.5, mu_k=0.3, decay=20.0, eps_v=0.01, dy=-0.01,
                dx=0.02):
    """A block 0.6 x 0.3 on a rigid line, pressed by its top, then dragged sideways into sliding."""
    laws = {"coulomb": lambda: fc.Coulomb(mu),
            "static_kinetic": lambda: fc.StaticKinetic(mu_s=mu_s, mu_k=mu_k),
            "velocity": lambda: fc.VelocityDependent(mu_s=mu_s, mu_k=mu_k, decay=decay),
            "ipc": lambda: fc.SmoothIPC(mu_s=mu_s, mu_k=mu_k, eps_v=eps_v)}
    b = fc.Body("block", rectangle(-0.3, 0.3, 0.0, 0.3, 10, 4), "P1", fc.LinearElastic(E=1e3, nu=0.3))
    b.fix("top", y=dy, amplitude=PRESS, name="press")
    b.fix("top", x=dx, amplitude=PUSH, name="push")
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    return fc.Model([b], [fc.Contact(b.surface("bottom"), floor, laws[law](), name="floor")])


def slide_quantities():
    return [(fc.qoi.Reaction("push", "x"), reaction("push", "x")),
            (fc.qoi.ContactForce("floor", "x"), slave_force(["press", "push"], "x")),
            (fc.qoi.Displacement((0.0, 0.0), "x"), displacement("block", (0.0, 0.0), "x")),
            (fc.qoi.PeakPressure("floor", p=4), p_mean("floor", 4))]


@pytest.mark.slow
@pytest.mark.parametrize("law,wrt", [("static_kinetic", ["mu_s", "mu_k"]),
                                     ("velocity", ["mu_s", "mu_k", "decay"]),
                                     ("ipc", ["mu_s", "mu_k"])])
def test_friction_laws(law, wrt):
    base = dict(mu_s=0.5, mu_k=0.3, decay=20.0, eps_v=0.01)
    check_gradients(f"nts-rigid-line {law}: " + " ".join(wrt),
                    lambda **kw: slide_model(law=law, **kw), base, wrt, slide_quantities(),
                    levels=(0.5, 0.75, 1.0))


# -- 4. shape parameters ------------------------------------------------------------------------
SHAPE_MESH = dict(x0=-0.5, x1=0.5, y0=0.0, y1=0.5, nx=16, ny=6)


def shape_model(mesh, shape=None):
    """A block pressed by its top onto a rigid circle below it (Coulomb), its bottom the contact
    surface; ``shape``: ``(direction, extension)`` of a shape parameter of the bottom."""
    b = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
    param = None if shape is None else b.shape_parameter("bottom", direction=shape[0],
                                                         extension=shape[1])
    b.fix("top", x=0.002, y=-0.02)
    floor = fc.RigidCircle(center=(0.0, -1.001), radius=1.0)
    return fc.Model([b], [fc.Contact(b.surface("bottom"), floor, fc.Coulomb(0.3), name="floor")]), param


def moved(mesh, nodes, direction, extension, s):
    """The mesh with ``nodes`` moved by ``s_i direction`` and the interior by a Laplace extension
    (zero on the rest of the boundary) solved here, or not at all."""
    V = np.zeros_like(mesh.p)
    V[:, nodes] = np.outer(direction, s)
    if extension == "harmonic":
        K = skfem.asm(laplace, skfem.Basis(mesh, skfem.ElementTriP1())).tocsr()
        fixed = np.union1d(mesh.boundary_nodes(), nodes)
        free = np.setdiff1d(np.arange(mesh.p.shape[1]), fixed)
        for c in range(2):
            V[c, free] = spsolve(K[free][:, free].tocsc(), -(K[free][:, fixed] @ V[c, fixed]))
    return dataclasses.replace(mesh, doflocs=mesh.p + V)     # the same named boundaries


@pytest.mark.slow
@pytest.mark.parametrize("direction,extension", [("normal", "harmonic"), ((0.3, 1.0), "none")])
def test_shape_parameter(direction, extension):
    """One derivative per node of the bottom: central differences of re-solves on meshes moved here
    (the bottom's outward normal is (0, -1)), on three entries (the centre, in contact; one near the
    contact edge; one outside the contact)."""
    levels = (0.5, 1.0)
    mesh = rectangle(**SHAPE_MESH)
    model, shape = shape_model(mesh, (direction, extension))
    nodes = np.flatnonzero(np.isclose(mesh.p[1], 0.0))
    assert np.array_equal(shape.nodes, nodes)
    d = np.array([0.0, -1.0]) if direction == "normal" else np.array(direction) / np.hypot(*direction)
    quantities = [(fc.qoi.Reaction("top", "y"), reaction("top", "y")),
                  (fc.qoi.Reaction("top", "x"), reaction("top", "x")),
                  (fc.qoi.PeakPressure("floor", p=4), p_mean("floor", 4)),
                  (fc.qoi.Compliance(), compliance())]
    sol = solve(model, levels)
    grads = sol.gradient([q for q, _ in quantities], wrt=[shape])
    n = len(sol.increments)
    x = mesh.p[0, nodes]
    entries = [int(np.argmin(abs(x - a))) for a in (0.0, 0.125, -0.4375)]
    edge = 1.0 / 16
    h = REL_STEP * edge
    worst = 0.0
    for i in entries:
        def resolve(e, i=i):
            s = np.zeros(nodes.size)
            s[i] = e
            return solve(shape_model(moved(mesh, nodes, d, extension, s))[0], levels)
        fd = four_point(resolve, h, n, [e for _, e in quantities], f"entry {i}")
        for j, g in enumerate(grads):
            err = relative_error(float(g[shape][i]), fd[j], g.value, edge)
            worst = max(worst, err)
            assert err < TARGET, (i, j, g[shape][i], fd[j], err)
    print(f"\nROW shape {direction} {extension} worst={worst:.2e} margin={grads[0].margin:.2e}")


# -- 5. an unstructured gmsh mesh ---------------------------------------------------------------
def gmsh_block(h=0.045):
    """An unstructured gmsh triangle mesh of the block 1 x 0.5 (a few hundred nodes), finer at the
    top's middle, with the default boundary names."""
    gmsh = pytest.importorskip("gmsh")
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.model.add("block")
        gmsh.model.occ.addRectangle(-0.5, 0.0, 0.0, 1.0, 0.5)
        gmsh.model.occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.model.mesh.generate(2)
        tags, coords, _ = gmsh.model.mesh.getNodes()
        types, _, elements = gmsh.model.mesh.getElements(2)
        tri = np.asarray(elements[list(types).index(2)], int).reshape(-1, 3)
    finally:
        gmsh.finalize()
    index = np.zeros(int(tags.max()) + 1, int)
    index[tags.astype(int)] = np.arange(tags.size)
    p = coords.reshape(-1, 3)[:, :2].T
    used = np.unique(index[tri])
    renumber = np.full(tags.size, -1)
    renumber[used] = np.arange(used.size)
    mesh = skfem.MeshTri(np.ascontiguousarray(p[:, used]), np.ascontiguousarray(renumber[index[tri]].T))
    return mesh.with_boundaries({"bottom": lambda x: np.isclose(x[1], 0.0),
                                 "top": lambda x: np.isclose(x[1], 0.5)})


@pytest.fixture(scope="module")
def gmsh_mesh():
    return gmsh_block()


@pytest.mark.slow
def test_gmsh_triangles(gmsh_mesh):
    """The punch on an unstructured block (Coulomb): E, mu, the punch's press."""
    assert 150 <= gmsh_mesh.p.shape[1] <= 600

    def build(E=1e3, nu=0.3, mu=0.3, dy=-0.02):
        b = fc.Body("block", gmsh_mesh, "P1", fc.LinearElastic(E=E, nu=nu)).fix("bottom")
        punch = fc.RigidCircle(center=(0.0, 1.501), radius=1.0, displacement=(0.003, dy))
        return fc.Model([b], [fc.Contact(b.surface("top"), punch, fc.Coulomb(mu), name="punch")])

    check_gradients(f"gmsh ({gmsh_mesh.p.shape[1]} nodes) nts-rigid coulomb: E mu dy", build,
                    dict(E=1e3, nu=0.3, mu=0.3, dy=-0.02), ["E", "mu", "dy"],
                    [punch_quantities()[i] for i in (0, 1, 3, 4, 5)], levels=(0.5, 1.0))


# -- 6. exact: forces proportional to E ---------------------------------------------------------
@pytest.mark.parametrize("case", ["nts-rigid frictionless", "nts-rigid coulomb",
                                  "two-bodies mortar frictionless",
                                  pytest.param("two-bodies mortar coulomb", marks=pytest.mark.slow),
                                  pytest.param("two-bodies node_to_segment coulomb",
                                               marks=pytest.mark.slow)])
def test_forces_proportional_to_E(case):
    """With only displacements prescribed and one linear material, every force is ``E`` times a
    function of the rest: ``dF/dE = F/E`` to 1e-10 (no finite differences), relative to the force or,
    for a force near zero, to 1 % of the model's largest force."""
    E = fc.Parameter(1e3, name="E")
    mu = 0.0 if "frictionless" in case else 0.3
    if case.startswith("nts-rigid"):
        model = punch_model(E=E, mu=mu, pressure=0.0, tx=0.0, gravity=0.0)
        quantities = [fc.qoi.Reaction("bottom", "y"), fc.qoi.Reaction("bottom", "x"),
                      fc.qoi.ContactForce("punch", "y"), fc.qoi.ContactForce("punch", "x")]
        levels = (0.5, 1.0)
    else:
        formulation = case.split()[1]
        model = stack_model(E=E, E_base=E, mu=mu, formulation=formulation)
        quantities = [fc.qoi.Reaction("press", "y"), fc.qoi.Reaction("push", "x"),
                      fc.qoi.ContactForce("interface", "y")]
        levels = (0.5, 1.0)
    sol = solve(model, levels)
    grads = sol.gradient(quantities, wrt=[E])
    largest = max(abs(g.value) for g in grads)
    assert largest > 1.0
    worst = 0.0
    for q, g in zip(quantities, grads):
        # relative to the force, or to 1 % of the model's largest force for a force near zero
        err = abs(g[E] - g.value / 1e3) / (max(abs(g.value), 1e-2 * largest) / 1e3)
        worst = max(worst, err)
        assert err < 1e-10, (q, g[E], g.value / 1e3)
    print(f"\nROW exact dF/dE = F/E {case} worst={worst:.2e}")


# -- 7. API ---------------------------------------------------------------------------------------
def test_with_values_equals_a_model_built_with_the_floats():
    E, mu, R, dy = (fc.Parameter(v, name=n) for v, n in ((1e3, "E"), (0.3, "mu"), (1.0, "R"),
                                                         (-0.02, "dy")))
    model = punch_model(E=E, mu=mu, R=R, dy=dy)
    new = {E: 1.3e3, mu: 0.25, R: 0.99, dy: -0.025}
    a = solve(model.with_values(new), (0.5, 1.0))
    b = solve(punch_model(E=1.3e3, mu=0.25, R=0.99, dy=-0.025), (0.5, 1.0))
    assert len(a.increments) == len(b.increments)
    assert np.allclose(a.state.u, b.state.u, rtol=0, atol=1e-13 * abs(b.state.u).max())
    assert np.allclose(a.state.multiplier, b.state.multiplier, rtol=0,
                       atol=1e-11 * abs(b.state.multiplier).max())
    assert not np.allclose(a.state.u, solve(model, (0.5, 1.0)).state.u)     # the values took effect
    # a model without parameters made again is the same model
    c = solve(punch_model().with_values({}), (0.5, 1.0))
    assert np.allclose(c.state.u, solve(punch_model(), (0.5, 1.0)).state.u, rtol=0, atol=1e-15)


def test_gradient_indexing_and_shared_calls():
    E, mu = fc.Parameter(1e3, name="E"), fc.Parameter(0.3, name="mu")
    sol = solve(punch_model(E=E, mu=mu), (0.5, 1.0))
    q1, q2 = fc.qoi.Reaction("bottom", "y"), fc.qoi.PeakPressure("punch", p=4)
    both = sol.gradient([q1, q2], wrt=[E, mu])
    assert isinstance(both, list) and len(both) == 2
    one = sol.gradient(q1, wrt=[E, mu])
    assert isinstance(one, fc.Gradient)
    g = both[0]
    assert g[0] == g[E] == g["E"] == g.derivatives[0] == g.as_dict()["E"]
    assert g[1] == g[mu] == g["mu"] == g.as_dict()["mu"]
    assert g[E.at(2e3)] == g[E]                                  # the same parameter, another value
    assert g.names == ("E", "mu") and len(g) == 2 and list(g) == list(g.derivatives)
    for a, b in zip(one.derivatives, g.derivatives):             # one call for the list: same numbers
        assert abs(a - b) <= 1e-12 * abs(b)
    alone = sol.gradient(q2, wrt=mu)                             # a single parameter, not a list
    assert abs(alone[mu] - both[1][mu]) <= 1e-12 * abs(both[1][mu])
    assert np.isfinite(g.margin) and g.margin > 0 and "increment" in g.nearest
    assert g.adjoint_seconds >= 0 and g.partial_seconds >= 0


def one_line_value_error(call):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message, message
    return message


def test_gradient_errors_are_one_line():
    E = fc.Parameter(1e3, name="E")
    sol = solve(punch_model(E=E), (1.0,))
    stranger = fc.Parameter(2.0, name="stranger")
    assert "stranger" in one_line_value_error(
        lambda: sol.gradient(fc.qoi.Reaction("bottom", "y"), wrt=[stranger]))
    one_line_value_error(lambda: sol.gradient("reaction", wrt=[E]))
    one_line_value_error(lambda: sol.gradient([fc.qoi.Reaction("bottom", "y"), 3.0], wrt=[E]))
    one_line_value_error(lambda: punch_model(E=E).with_values({"E": 2e3}))
    one_line_value_error(lambda: punch_model(E=E).with_values({1e3: 2e3}))
    # a dynamic solution
    b = fc.Body("block", rectangle(-0.5, 0.5, 0.0, 0.5, 4, 2), "P1",
                fc.LinearElastic(E=E, nu=0.3, density=1.0)).fix("bottom")
    b.pressure("top", 1.0)
    dynamic = fc.Model([b], []).solve_dynamic(dt=0.01, t_end=0.03)
    assert "dynamic" in one_line_value_error(
        lambda: dynamic.gradient(fc.qoi.Reaction("bottom", "y"), wrt=[E]))
