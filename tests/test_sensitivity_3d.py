r"""Gradients of 3D contact results against central finite differences of full re-solves.

What is checked
---------------
:meth:`fecontact.Solution.gradient` (the discrete adjoint over every
accepted increment) on small 3D models, each derivative against a central
finite difference (four points, ``p +- h``, ``p +- 2h``, ``h = 1e-5 |p|``) of full re-solves of
the model made again with the parameter moved
(:meth:`fecontact.Model.with_values`), with Newton converged to ``1e-12``
and the same path taken (the same increments, and the same contact status
and master facet of each node in each: else the step is divided by 10):

* a box of tetrahedra, and one of hexahedra, pressed onto a rigid sphere
  (its centre below the box, ``(0, 0, -1.51)`` with ``R = 1.5``, so the
  sphere's top is 0.01 below the box's bottom face ``z = 0``, whose outward
  normal is ``-z``)
  or onto a rigid plane, frictionless and Coulomb, 3 load steps; quantities
  Reaction, ContactForce, PeakPressure(p=6), PressureUniformity and
  Displacement; parameters E, nu, mu, two prescribed displacement
  components, the sphere's radius and a few entries of a shape parameter
  of the slave surface;
* two deformable tetrahedral blocks, node-to-facet and mortar
  frictionless, node-to-facet with Coulomb friction (the derivative in the
  tangential prescribed displacement, once off by 14 % there and by 4e-5
  for the hexahedra on the sphere, keeps its regression bound besides the
  target; mortar with Coulomb friction is measured by hand only, its
  gradient takes over a minute);
* a Neo-Hookean box on a rigid sphere (finite strain);
* the backends ``"direct"``, ``"schur"`` and ``"amg"`` give the same gradient;
* ``cases/hertz3d.toml`` (made coarser: the case's own mesh of 17034 nodes
  takes a minute to solve) at its fixed indentation: ``dP/dE = P/E``
  exactly (every force of a model with only displacements prescribed is
  proportional to ``E``), ``dP/dnu`` against finite differences and against
  Hertz's half-space value ``P 2 nu / (1 - nu^2)`` (``P ~ E / (1 - nu^2)``),
  which the finite body meets only approximately (a bound on the distance).

The error of a derivative ``a`` against its finite difference ``f`` is
``|a - f| / max(|f|, 1e-3 |Q| / s)`` with ``s`` the parameter's scale
(``|p|``, or the mean edge for a shape entry): relative, except for a
derivative whose logarithmic sensitivity is below ``1e-3`` (a zero one),
which is measured against that floor.  The target is ``1e-6``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.sensitivity.path import Path
from fecontact.sensitivity.qoi import Frames

NEWTON = {"tolerance": 1e-12}
TARGET = 1e-6


# --------------------------------------------------------------------------- harness

def quantity_values(sol, quantities) -> np.ndarray:
    """The quantities' values read off a solution (each at its output level)."""
    path = Path(sol.problem, sol.increments)
    ends = [next(k for k in range(1, path.n + 1) if path.states[k] is s) for s in sol.states]
    frames = Frames(sol.problem, path, ends)
    return np.array([q.value(frames) for q in quantities])


def path_status(sol) -> np.ndarray:
    """The contact status and master facet of every node in every accepted increment, one array."""
    return np.concatenate([np.concatenate([np.asarray(state.status).astype(int).ravel(),
                                           np.asarray(state.facet).astype(int).ravel()])
                           for state in sol.increments])


def resolve(sol, values: dict, solve_kw: dict):
    """The model of ``sol`` made again with ``values`` and solved as ``sol`` was.

    Returns None when the re-solve takes another path (another number of
    increments, or another contact status in some increment).
    """
    other = sol.model.with_values(values).solve(**solve_kw)
    assert other.converged
    if len(other.increments) != len(sol.increments) or \
            not np.array_equal(path_status(other), path_status(sol)):
        return None
    return other


def central_difference(sol, quantities, param, solve_kw, *, rel=1e-5, index=None, edge=None):
    """``dQ/dp`` of every quantity by the four-point central difference of full re-solves.

    ``(8 (Q(p + h) - Q(p - h)) - (Q(p + 2h) - Q(p - 2h))) / 12 h`` with
    ``h = rel |p|``; for a shape parameter the entry ``index`` is moved by
    ``h = rel * edge``.  (The two-point difference is not enough: the
    pressure near a slave edge is curved enough in a node's position that its
    truncation error is 3e-6 at ``h = 1e-5`` edges; and the four-point one
    at ``h = 1e-4`` is 2e-6 off in the sphere's radius near a closing node.)  While a re-solve
    takes another path (a node's status or master facet differs in some
    increment) the step
    is divided by 10, at most three times: the difference is taken on the
    run's own smooth piece, as the adjoint is.
    """
    for _ in range(4):
        if index is None:
            base, h = float(param), rel * abs(float(param))

            def at(e):
                return {param: base + e * h}
        else:
            h = rel * edge
            unit = np.zeros(param.size)
            unit[index] = h

            def at(e):
                return {param: param.value + e * unit}
        sols = {e: resolve(sol, at(e), solve_kw) for e in (-2, -1, 1, 2)}
        if all(s is not None for s in sols.values()):
            q = {e: quantity_values(s, quantities) for e, s in sols.items()}
            return (8.0 * (q[1] - q[-1]) - (q[2] - q[-2])) / (12.0 * h)
        rel /= 10.0
    raise AssertionError(f"{param.name}: the re-solves leave the run's path at every step tried")


def relative_error(adjoint: float, fd: float, value: float, scale: float) -> float:
    """``|a - f| / max(|f|, 1e-3 |Q| / s)`` (see the module docstring)."""
    return abs(adjoint - fd) / max(abs(fd), 1e-3 * abs(value) / scale, 1e-300)


def mean_edge(mesh) -> float:
    """The mean edge length of a 3D mesh (the scale of a shape parameter's entries)."""
    e = mesh.p[:, mesh.edges]
    return float(np.mean(np.linalg.norm(e[:, 1] - e[:, 0], axis=0)))


def compare(sol, quantities, params, solve_kw, *, shape=None, entries=(), edge=None):
    """The error of every derivative against its central difference.

    Returns
    -------
    errors : dict
        ``"Class[j]"`` (quantity ``j``) -> {parameter name: error}.
    grads : list of Gradient
    seconds : float
        Wall time of the gradient.
    """
    wrt = list(params) + ([shape] if shape is not None else [])
    tic = time.perf_counter()
    grads = sol.gradient(list(quantities), wrt=wrt)
    seconds = time.perf_counter() - tic
    keys = [type(q).__name__ + f"[{j}]" for j, q in enumerate(quantities)]
    errors = {k: {} for k in keys}
    for param in params:
        fd = central_difference(sol, quantities, param, solve_kw)
        for j, g in enumerate(grads):
            errors[keys[j]][param.name] = relative_error(g[param], fd[j], g.value, abs(float(param)))
    for i in entries:
        fd = central_difference(sol, quantities, shape, solve_kw, index=i, edge=edge)
        for j, g in enumerate(grads):
            errors[keys[j]][f"{shape.name}[{i}]"] = relative_error(g[shape][i], fd[j], g.value, edge)
    return errors, grads, seconds


def worst(errors: dict) -> tuple:
    """``(largest error, "quantity / parameter")`` of :func:`compare`'s errors."""
    return max((e, f"{q} / {p}") for q, row in errors.items() for p, e in row.items())


def quantities_for(pair: str, top: str, point):
    """The five quantities: the top's reaction and the pair's force (z), peak, uniformity, u_z."""
    return [fc.qoi.Reaction(top, "z"), fc.qoi.ContactForce(pair, "z"),
            fc.qoi.PeakPressure(pair, p=6), fc.qoi.PressureUniformity(pair),
            fc.qoi.Displacement(point, "z")]


# --------------------------------------------------------------------------- models

def box_on_obstacle(kind="tet", obstacle="sphere", friction=True, n=(9, 9, 4), material="linear"):
    """A box [-0.5, 0.5]^2 x [0, 0.4] whose top is moved (dx, 0, dz), its bottom on a rigid sphere or plane.

    Returns the model and its parameters (E, nu, mu, dz, dx, R, shape).
    """
    height = 0.4
    x = np.linspace(-0.5, 0.5, n[0])
    y = np.linspace(-0.5, 0.5, n[1])
    z = np.linspace(0.0, height, n[2])
    mesh = (skfem.MeshTet if kind == "tet" else skfem.MeshHex).init_tensor(x, y, z)
    P = {"E": fc.Parameter(1e3, "E"), "nu": fc.Parameter(0.3, "nu"),
         "mu": fc.Parameter(0.3, "mu"), "dz": fc.Parameter(-0.05, "dz"),
         "dx": fc.Parameter(0.0175, "dx"), "R": fc.Parameter(1.5, "R")}
    mat = (fc.LinearElastic(E=P["E"], nu=P["nu"]) if material == "linear"
           else fc.NeoHookean(E=P["E"], nu=P["nu"]))
    body = fc.Body("box", mesh, "P1" if kind == "tet" else "Q1", mat)
    body.fix(lambda X: np.isclose(X[2], height), x=P["dx"], y=0.0, z=P["dz"], name="top")
    slave = body.surface(lambda X: np.isclose(X[2], 0.0), name="bottom")
    if material == "linear":
        P["shape"] = body.shape_parameter(
            lambda X: np.isclose(X[2], 0.0) & (np.abs(X[0]) < 0.2) & (np.abs(X[1]) < 0.2),
            name="core")
    if obstacle == "sphere":
        # centre fixed 0.01 below the sphere's top at R = 1.5: R moves its top and its curvature
        master = fc.RigidSphere(center=(0.0, 0.0, -1.51), radius=P["R"])
    else:
        # tilted: 0.01 / |n| below the edge x = -0.5, a partial patch
        master = fc.RigidPlane(point=(0.0, 0.0, -0.06), normal=(0.1, 0.0, 1.0))
    law = fc.Coulomb(P["mu"]) if friction else fc.Frictionless()
    return fc.Model([body], [fc.Contact(slave, master, law, name="c")]), P, mesh


GAP = 0.002                                   # between the blocks at the start


def two_blocks(formulation="node_to_segment", friction=True, cells=(5, 6)):
    """An upper tetrahedral block on a lower one, GAP apart.

    Upper [-0.3, 0.3]^2 x [GAP, GAP + 0.3], lower [-0.5, 0.5]^2 x [-0.4, 0].

    Non-matching interface meshes (``cells``: 5 x 5 cells above, 6 x 6 below); the
    lower block is clamped at its base, the upper one's top moved
    (dx, 0, dz).  Returns the model, its parameters and the upper mesh.
    """
    up, low = cells
    lower_mesh = skfem.MeshTet.init_tensor(np.linspace(-0.5, 0.5, low + 1),
                                           np.linspace(-0.5, 0.5, low + 1), np.linspace(-0.4, 0.0, 4))
    upper_mesh = skfem.MeshTet.init_tensor(np.linspace(-0.3, 0.3, up + 1),
                                           np.linspace(-0.3, 0.3, up + 1), np.linspace(GAP, GAP + 0.3, 4))
    P = {"E": fc.Parameter(1e3, "E"), "nu": fc.Parameter(0.3, "nu"),
         "E2": fc.Parameter(2e3, "E2"),
         "mu": fc.Parameter(0.2, "mu"), "dz": fc.Parameter(-0.012, "dz"),
         "dx": fc.Parameter(0.002, "dx")}
    upper = fc.Body("upper", upper_mesh, "P1", fc.LinearElastic(E=P["E"], nu=P["nu"]))
    upper.fix(lambda X: np.isclose(X[2], GAP + 0.3), x=P["dx"], y=0.0, z=P["dz"], name="top")
    slave = upper.surface(lambda X: np.isclose(X[2], GAP), name="bottom")
    P["shape"] = upper.shape_parameter(          # the nodes round the centre
        lambda X: np.isclose(X[2], GAP) & (np.abs(X[0]) < 0.16) & (np.abs(X[1]) < 0.16),
        name="upper.core")
    lower = fc.Body("lower", lower_mesh, "P1", fc.LinearElastic(E=P["E2"], nu=0.25))
    lower.fix(lambda X: np.isclose(X[2], -0.4), name="base")
    master = lower.surface(lambda X: np.isclose(X[2], 0.0), name="top")
    law = fc.Coulomb(P["mu"]) if friction else fc.Frictionless()
    pair = fc.Contact(slave, master, law, name="i", formulation=formulation)
    return fc.Model([upper, lower], [pair]), P, upper_mesh


def hertz_case(h_contact=0.05, h_far=0.3):
    """``cases/hertz3d.toml`` with E and nu as parameters and a coarser mesh (the case's takes a minute).

    Returns the case model and the parameters E, nu.
    """
    case = fc.load_case("cases/hertz3d.toml")
    body = case["bodies"][0]
    body["mesh"]["h_contact"], body["mesh"]["h_far"] = h_contact, h_far
    E = fc.Parameter(body["material"]["E"], "E")
    nu = fc.Parameter(body["material"]["nu"], "nu")
    body["material"]["E"], body["material"]["nu"] = E, nu
    return fc.build_model(case), E, nu


SOLVE = {"steps": 3, "newton": NEWTON, "backend": "direct"}
BOX_POINT = (0.1, 0.1, 0.2)                  # inside the box (a point of the moving bottom may leave it)
PAIR_POINT = (0.05, 0.05, 0.1)


def check_case(model, P, names, quantities, *, shape_entries=(), edge=None, solve_kw=SOLVE):
    """Solve, take the gradient and compare every derivative with its finite difference.

    Returns the errors (see :func:`compare`) and the solution.
    """
    tic = time.perf_counter()
    sol = model.solve(**solve_kw)
    solve_seconds = time.perf_counter() - tic
    assert sol.converged
    errors, grads, seconds = compare(sol, quantities, [P[k] for k in names], solve_kw,
                               shape=P.get("shape") if shape_entries else None,
                               entries=shape_entries, edge=edge)
    assert all(1e-4 < g.margin < np.inf for g in grads)      # away from status changes
    print(f"\n  {sol.problem.system.n_dofs // 3} nodes, {len(sol.increments)} increments, solve "
          f"{solve_seconds:.2f} s, gradient {seconds:.2f} s, margin {grads[0].margin:.2e}")
    for q, row in errors.items():
        err, where = max((e, p) for p, e in row.items())
        print(f"  {q:22s} worst {err:.1e} ({where})")
    return errors, sol


def _assert_target(errors, skip=()):
    kept = {q: {p: e for p, e in row.items() if p not in skip} for q, row in errors.items()}
    err, where = worst(kept)
    assert err < TARGET, f"worst error {err:.2e} at {where}"


# --------------------------------------------------------------------------- default run

def test_tet_box_on_tilted_plane_frictionless():
    """Tetrahedra on a tilted rigid plane (partial patch): E, nu and both prescribed displacements."""
    model, P, _ = box_on_obstacle("tet", "plane", friction=False, n=(7, 7, 4))
    errors, sol = check_case(model, P, ["E", "nu", "dz", "dx"],
                             quantities_for("c", "top", BOX_POINT))
    assert 0 < sol.pair("c").open < len(sol.contact("c").status)      # a partial patch
    _assert_target(errors)


def test_backends_give_the_same_gradient():
    """``direct``, ``schur`` and ``amg`` runs give the same gradient (Coulomb, 3 steps).

    Measured against the ``direct`` run's with the error of the finite
    differences (:func:`relative_error`).  (On the 7 x 7 x 4 box a node sits
    2e-7 from sticking and the backends' gradients differ by 1e-6 there: a
    one-sided derivative; this box keeps a margin of 1.6e-2.)
    """
    model, P, _ = box_on_obstacle("tet", "plane", friction=True)
    quantities = quantities_for("c", "top", BOX_POINT)
    wrt = [P["mu"], P["dx"]]
    out = {}
    for backend in ("direct", "schur", "amg"):
        sol = model.solve(steps=3, newton=NEWTON, backend=backend)
        assert sol.converged
        grads = sol.gradient(quantities, wrt)
        assert grads[0].margin > 1e-2
        out[backend] = (path_status(sol), grads)
    ref_path, ref = out["direct"]
    for backend in ("schur", "amg"):
        path, grads = out[backend]
        assert np.array_equal(path, ref_path)
        for g, r in zip(grads, ref):
            assert g.value == pytest.approx(r.value, rel=1e-10, abs=1e-12)
            for p in wrt:
                err = relative_error(g[p], r[p], r.value, abs(float(p)))
                print(f"  {backend} {g.names} {p.name}: {err:.1e}")
                assert err < TARGET, (backend, p.name)


# --------------------------------------------------------------------------- slow: rigid obstacles

@pytest.mark.slow
def test_tet_box_on_sphere_frictionless():
    """E, nu, dz, the sphere's radius and two entries of the slave surface's shape."""
    model, P, mesh = box_on_obstacle("tet", "sphere", friction=False)
    errors, sol = check_case(model, P, ["E", "nu", "dz", "R"], quantities_for("c", "top", BOX_POINT),
                             shape_entries=(0, 10), edge=mean_edge(mesh))
    assert 0 < sol.pair("c").open < len(sol.contact("c").status)
    _assert_target(errors)


@pytest.mark.slow
def test_tet_box_on_sphere_coulomb():
    """mu, dz, dx, R and a shape entry with Coulomb friction (the path's cross terms)."""
    model, P, mesh = box_on_obstacle("tet", "sphere", friction=True)
    errors, sol = check_case(model, P, ["mu", "dz", "dx", "R"], quantities_for("c", "top", BOX_POINT),
                             shape_entries=(10,), edge=mean_edge(mesh))
    assert len(sol.increments) > 3                    # a cut: the cross terms reach two back
    _assert_target(errors)


@pytest.mark.slow
def test_hex_box_on_plane_coulomb():
    """Hexahedra (Q1) on the tilted plane with Coulomb friction: nu, mu, dx."""
    model, P, _ = box_on_obstacle("hex", "plane", friction=True, n=(7, 7, 4))
    errors, _ = check_case(model, P, ["nu", "mu", "dx"], quantities_for("c", "top", BOX_POINT))
    _assert_target(errors)


@pytest.fixture(scope="module")
def hex_sphere_coulomb():
    """Errors of the hexahedral box on the sphere with Coulomb friction (3 steps, 4 increments)."""
    model, P, _ = box_on_obstacle("hex", "sphere", friction=True)
    errors, _ = check_case(model, P, ["mu", "R", "dx"], quantities_for("c", "top", BOX_POINT))
    return errors


@pytest.mark.slow
def test_hex_box_on_sphere_coulomb(hex_sphere_coulomb):
    """mu and the sphere's radius, hexahedra on the sphere with Coulomb friction."""
    _assert_target(hex_sphere_coulomb, skip=("dx",))


@pytest.mark.slow
def test_hex_box_on_sphere_coulomb_tangential_regression(hex_sphere_coulomb):
    """d/d dx: measured 4.3e-5 (PeakPressure; a node closes 2e-3 of its size away), bound 1e-4."""
    err, where = worst({q: {"dx": row["dx"]} for q, row in hex_sphere_coulomb.items()})
    assert err < 1e-4, f"{err:.2e} at {where}"


@pytest.mark.slow
def test_hex_box_on_sphere_coulomb_tangential(hex_sphere_coulomb):
    """d/d dx to the 1e-6 target."""
    _assert_target({q: {"dx": row["dx"]} for q, row in hex_sphere_coulomb.items()})


@pytest.mark.slow
def test_neo_hookean_box_on_sphere():
    """Finite strain (NeoHookean, the top pressed by 12.5 % of the height): E, nu, dz, R."""
    model, P, _ = box_on_obstacle("tet", "sphere", friction=False, material="neo_hookean")
    errors, _ = check_case(model, P, ["nu", "dz", "R"], quantities_for("c", "top", BOX_POINT))
    _assert_target(errors)


# --------------------------------------------------------------------------- slow: two bodies

@pytest.mark.slow
@pytest.mark.parametrize("formulation", ["node_to_segment", "mortar"])
def test_two_blocks_frictionless(formulation):
    """Two deformable tetrahedral blocks: E of the lower one, dz and a shape entry of the slave."""
    model, P, mesh = two_blocks(formulation, friction=False)
    errors, sol = check_case(model, P, ["E2", "dz"], quantities_for("i", "top", PAIR_POINT),
                             shape_entries=(0,), edge=mean_edge(mesh))
    assert sol.model.contacts[0].method == formulation
    _assert_target(errors)


# Mortar with Coulomb friction is left out: its gradient takes 70 s on 164 nodes (150 s on 340),
# beyond the time of the slow tests; measured by hand, d/dE2 and d/dmu agree to 1.4e-10 and
# d/d dx is off by 1.2e-2 as with node-to-facet.
@pytest.fixture(scope="module", params=["node_to_segment"])
def blocks_coulomb(request):
    """Errors of the two blocks with Coulomb friction, 3 steps (4 increments)."""
    model, P, mesh = two_blocks(request.param, friction=True)
    errors, sol = check_case(model, P, ["E2", "mu", "dx"], quantities_for("i", "top", PAIR_POINT))
    assert sol.model.contacts[0].method == request.param
    return request.param, errors


@pytest.mark.slow
def test_two_blocks_coulomb(blocks_coulomb):
    """E2 and mu with Coulomb friction between two deformable blocks."""
    _, errors = blocks_coulomb
    _assert_target(errors, skip=("dx",))


#: measured worst errors of d/d dx (two deformable blocks, Coulomb, 3 steps), bugs #6: 3.6e-2
#: (PeakPressure, against its floor; 0.14 of the derivative itself)
DX_MEASURED = {"node_to_segment": 3.6e-2}


@pytest.mark.slow
def test_two_blocks_coulomb_tangential_regression(blocks_coulomb):
    """d/d dx stays within 1.5 x its measured error (a regression bound, not the target)."""
    formulation, errors = blocks_coulomb
    err, where = worst({q: {"dx": row["dx"]} for q, row in errors.items()})
    assert err < 1.5 * DX_MEASURED[formulation], f"{err:.2e} at {where}"


@pytest.mark.slow
def test_two_blocks_coulomb_tangential(blocks_coulomb):
    """d/d dx to the 1e-6 target."""
    _, errors = blocks_coulomb
    _assert_target({q: {"dx": row["dx"]} for q, row in errors.items()})


# --------------------------------------------------------------------------- slow: Hertz

@pytest.mark.slow
def test_hertz3d_case_E_and_nu():
    """cases/hertz3d.toml (coarser: h_contact 0.05, h_far 0.3, 2533 nodes) at its fixed indentation.

    ``dP/dE = P/E`` to 1e-10 (only displacements are prescribed);
    ``dP/dnu`` against the finite difference to 1e-6, and against Hertz's
    half-space value ``P 2 nu / (1 - nu^2)``: the finite hemisphere
    measured 0.68 % below it, bounded here by 1 %.
    """
    cm, E, nu = hertz_case()
    kw = {"levels": cm.levels, "newton": NEWTON, "stepping": cm.stepping, "backend": cm.backend}
    sol = cm.model.solve(**kw)
    assert sol.converged
    q = fc.qoi.ContactForce("ball-on-plane", "z")
    g = sol.gradient(q, wrt=[E, nu])
    P = g.value
    assert P == pytest.approx(sol.pair("ball-on-plane").force[2], rel=1e-12) and P > 0
    assert abs(g[E] - P / float(E)) <= 1e-10 * P / float(E)
    fd = central_difference(sol, [q], nu, kw)[0]
    assert abs(g[nu] - fd) <= TARGET * abs(fd)
    half_space = P * 2.0 * float(nu) / (1.0 - float(nu) ** 2)
    print(f"\n  {sol.problem.system.n_dofs // 3} nodes, P = {P:.6g}: dP/dE vs P/E "
          f"{abs(g[E] * float(E) / P - 1.0):.1e}, dP/dnu vs FD {abs(g[nu] / fd - 1.0):.1e}, "
          f"vs the half-space {g[nu] / half_space - 1.0:+.2e}")
    assert abs(g[nu] / half_space - 1.0) < 0.01
