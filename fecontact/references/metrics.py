"""Comparison of a finished run with the analytic reference named in its case.

Every parameter of a reference (radii, moduli, friction coefficient) is read
from the resolved case, so ``--set`` overrides carry over to the reference;
loads ``P`` and ``Q`` are the computed contact resultants.
"""

from __future__ import annotations

import numpy as np

from .analytic2d import CattaneoMindlinLine, HertzLine, OutsideReference, relative_l2_error
from .analytic3d import CattaneoMindlinSphere, HertzSphere, weighted_l2_error
from ..case.schema import CaseError
from ..contact.pairs import ContactPair
from ..friction import OPEN, SLIP, STICK
from ..contact.surface import ContactSurface
from .parameters import parameter_findings


def _metric(value, reference=None) -> dict:
    value = float(value)
    if reference is None:
        return {"value": value, "reference": None, "rel_error": None}
    reference = float(reference)
    return {"value": value, "reference": reference,
            "rel_error": abs(value - reference) / abs(reference) if reference else abs(value)}


def _pair_slice(model, name):
    pairs = model.problem.pairs
    if name is None:
        return 0, pairs[0], slice(0, pairs[0].n_nodes)
    start = 0
    for i, p in enumerate(pairs):
        if p.name == name:
            return i, p, slice(start, start + p.n_nodes)
        start += p.n_nodes
    raise CaseError(f"{model.case['_path']}: 'reference.contact' = {name!r} is not a contact pair")


def _radius(model, body: int) -> float | None:
    return model.case["bodies"][body]["mesh"].get("radius")


def _geometry(model, pair: ContactPair, ref: dict) -> tuple[float, float, float]:
    """Effective radius, effective modulus and contact-centre x of a pair."""
    bodies = model.problem.system.bodies
    slave = bodies[pair.slave.body]
    inv_e = 1.0 / slave.contact_modulus(pair.slave.boundary)
    radii = [_radius(model, pair.slave.body)]
    if isinstance(pair.master, ContactSurface):
        master = bodies[pair.master.body]
        inv_e += 1.0 / master.contact_modulus(pair.master.boundary)
        radii.append(_radius(model, pair.master.body))
    if "radius" in ref:
        radius = float(ref["radius"])
    else:
        curv = sum(1.0 / r for r in radii if r)
        if curv == 0:
            raise CaseError(f"{model.case['_path']}: 'reference.radius' is needed (no mesh radius)")
        radius = 1.0 / curv
    center = model.case["bodies"][pair.slave.body]["mesh"].get("center", [0.0, 0.0])
    return radius, 1.0 / inv_e, float(ref.get("center_x", center[0]))


def _edge(x: np.ndarray, inside: np.ndarray) -> float:
    """Half-width of the zone ``inside`` (sorted ``x``): midway to the first node outside, per side."""
    if not inside.any():
        return 0.0
    idx = np.flatnonzero(inside)
    lo, hi = idx.min(), idx.max()
    right = 0.5 * (x[hi] + x[hi + 1]) if hi + 1 < x.size else x[hi]
    left = 0.5 * (x[lo] + x[lo - 1]) if lo > 0 else x[lo]
    return 0.5 * (right - left)


def hertz_line(model, state, ref: dict) -> dict:
    """Peak pressure, half-width and pressure profile against Hertz (2D)."""
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    radius, e_star, xc = _geometry(model, pair, ref)
    x = model.problem.X[0, model_slave_nodes(model)[sl]] - xc
    order = np.argsort(x)
    x = x[order]
    p = state.multiplier[sl, 0][order]
    status = state.status[sl][order]
    area = pair.slave.area[order]
    P = float(np.sum(area * p))
    hertz = HertzLine(P, radius, e_star)
    out = {
        "load": _metric(P),
        "peak_pressure": _metric(p.max(), hertz.peak_pressure),
        "contact_half_width": _metric(_edge(x, status != OPEN), hertz.half_width),
        "pressure_l2_error": _metric(relative_l2_error(x, p, hertz.pressure)),
    }
    if pair.friction.kinetic > 0:
        out["stick_half_width"] = _metric(_edge(x, status == STICK))
    out["element_size_at_contact"] = _metric(np.median(np.diff(x)[np.abs(x[:-1]) < hertz.half_width]))
    return out


def cattaneo_mindlin_line(model, state, ref: dict) -> dict:
    """Stick zone and shear traction against Cattaneo–Mindlin (2D)."""
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    radius, e_star, xc = _geometry(model, pair, ref)
    direction = np.asarray(ref.get("direction", [1.0, 0.0]), float)
    direction = direction / np.linalg.norm(direction)
    x = model.problem.X[0, model_slave_nodes(model)[sl]] - xc
    order = np.argsort(x)
    x = x[order]
    traction = state.traction()[sl][order]
    status = state.status[sl][order]
    area = pair.slave.area[order]
    p = state.multiplier[sl, 0][order]
    q = -(traction @ direction)          # friction on the loaded body opposes the load
    P, Q = float(np.sum(area * p)), float(np.sum(area * q))
    cm = CattaneoMindlinLine(P, Q, pair.friction.kinetic, radius, e_star)
    stick = (status == STICK)
    return {
        "normal_load": _metric(P),
        "tangential_load": _metric(Q),
        "load_ratio": _metric(Q / (pair.friction.kinetic * P)),
        "contact_half_width": _metric(_edge(x, status != OPEN), cm.half_width),
        "stick_half_width": _metric(_edge(x, stick), cm.stick_half_width),
        "shear_traction_l2_error": _metric(relative_l2_error(x, q, cm.shear_traction)),
        "pressure_l2_error": _metric(relative_l2_error(x, p, cm.pressure)),
        "slip_nodes": _metric(int(np.sum(status == SLIP))),
    }


def lindley_force(squeeze, diameter: float, modulus: float):
    r"""Lindley's compression force of a rubber O-ring per unit length of ring.

    .. math:: F = E\,d\,\big(1.25\,\varepsilon^{3/2} + 50\,\varepsilon^6\big),

    with ``d`` the cross-section's diameter and ``varepsilon`` the squeeze
    (the relative reduction of ``d``): the empirical fit of Lindley (1967,
    laterally unrestrained O-rings between flat plates) to measurements on
    rubber, for squeezes of about 5 to 30 % (it is not the small-strain limit:
    the elastic cylinder's force falls like ``eps / ln(1/eps)`` there, not
    ``eps^1.5``).
    """
    squeeze = np.asarray(squeeze, float)
    return modulus * diameter * (1.25 * squeeze**1.5 + 50.0 * squeeze**6)


def oring_squeeze(model, state, ref: dict) -> dict:
    """An O-ring squeezed between flat plates: force, contact width and pressures.

    The model is the symmetric half of the cross-section (``half_disc``,
    ``side = "lower"``, its flat edge on the ring's mid-plane) pressed onto a
    flat master.  The squeeze is ``1 - h / R`` with ``h`` the deformed height
    of the half section (its highest point above the lowest) and ``R`` the
    radius.  The contact load ``P`` per unit length (the pair's resultant) is
    compared with :func:`lindley_force` for the slave body's small-strain
    Young's modulus (the softest material's); the contact width is the whole
    width of the closed zone.
    """
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    radius, _, xc = _geometry(model, pair, ref)
    system = model.problem.system
    b = pair.slave.body
    nodes = slice(system.node_offset[b], system.node_offset[b + 1])
    y = model.problem.X[1, nodes] + state.u.reshape(-1, system.dim)[nodes, 1]
    squeeze = 1.0 - (y.max() - y.min()) / radius
    x = model.problem.X[0, model_slave_nodes(model)[sl]] - xc
    order = np.argsort(x)
    p = state.multiplier[sl, 0][order]
    P = float(np.sum(pair.slave.area[order] * p))
    width = 2.0 * _edge(x[order], state.status[sl][order] != OPEN)
    modulus = min(material.E for material in system.bodies[b].materials)
    return {
        "squeeze": _metric(squeeze),
        "load": _metric(P, lindley_force(squeeze, 2.0 * radius, modulus)),
        "contact_width": _metric(width),
        "peak_pressure": _metric(p.max()),
        "mean_pressure": _metric(P / width if width > 0 else 0.0),
    }


def model_slave_nodes(model) -> np.ndarray:
    """Global DOF node of every slave node of the model's contact pairs, shape (m,).

    Parameters
    ----------
    model : fecontact.case.build.CaseModel

    Returns
    -------
    ndarray of int, shape (m,)
        In the order of the contact unknowns (pairs stacked), so that
        ``model.problem.X[:, model_slave_nodes(model)]`` are the slave nodes'
        reference coordinates, shape (dim, m).
    """
    from ..io.output import slave_global_nodes

    return slave_global_nodes(model.problem)


def _radial(model, pair, sl, ref):
    """Distance of each slave node (reference configuration) from the contact axis.

    The axis passes through the slave body's mesh ``center`` (or
    ``reference.center``) along ``reference.axis`` (default ``z``); on an
    axisymmetric section it is the axis of revolution (``r = x[0]``).
    """
    if pair.slave.axisymmetric:
        return model.problem.X[0, model_slave_nodes(model)[sl]]
    center = np.asarray(ref.get("center", model.case["bodies"][pair.slave.body]["mesh"]
                                .get("center", [0.0, 0.0, 0.0])), float)
    axis = np.asarray(ref.get("axis", [0.0, 0.0, 1.0]), float)
    axis = axis / np.linalg.norm(axis)
    d = model.problem.X[:, model_slave_nodes(model)[sl]].T - center
    return np.linalg.norm(d - np.outer(d @ axis, axis), axis=1)


def _zone_radius(area: np.ndarray, inside: np.ndarray) -> float:
    """Radius of the disc with the lumped area of the nodes ``inside``."""
    return float(np.sqrt(np.sum(area[inside]) / np.pi))


def _oscillation(pair: ContactPair, values: np.ndarray, mask: np.ndarray) -> float:
    """RMS over ``mask`` nodes of ``value - mean of the surface neighbours' values``.

    A smooth field gives a second-order small number; node-to-node
    (checkerboard) oscillation gives a value of the oscillation's amplitude.
    """
    local = np.searchsorted(pair.slave.nodes, pair.slave.facets)         # (v, n_facets)
    v = local.shape[0]
    i = np.concatenate([local[a] for a in range(v) for b in range(v) if a != b])
    j = np.concatenate([local[b] for a in range(v) for b in range(v) if a != b])
    n = pair.slave.nodes.size
    pairs_ = np.unique(np.column_stack([i, j]), axis=0)
    count = np.bincount(pairs_[:, 0], minlength=n)
    mean = np.bincount(pairs_[:, 0], weights=values[pairs_[:, 1]], minlength=n) / np.maximum(count, 1)
    dev = (values - mean)[mask]
    return float(np.sqrt(np.mean(dev**2))) if dev.size else 0.0


def hertz_sphere(model, state, ref: dict) -> dict:
    """Peak pressure, contact radius, pressure profile and smoothness against Hertz (3D, or the
    section of an axisymmetric sphere: its nodal areas are revolved, so ``P`` is the total)."""
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    radius, e_star, _ = _geometry(model, pair, ref)
    r = _radial(model, pair, sl, ref)
    p = state.multiplier[sl, 0]
    status = state.status[sl]
    area = pair.slave.area
    P = float(np.sum(area * p))
    hertz = HertzSphere(P, radius, e_star)
    a = hertz.contact_radius
    core = (r < 0.8 * a) & (status != OPEN)
    out = {
        "load": _metric(P),
        "peak_pressure": _metric(p.max(), hertz.peak_pressure),
        "contact_radius": _metric(_zone_radius(area, status != OPEN), a),
        "pressure_l2_error": _metric(weighted_l2_error(area, p, hertz.pressure(r))),
        "pressure_oscillation": _metric(_oscillation(pair, p, core) / hertz.peak_pressure),
        "contact_nodes_in_patch": _metric(int(np.sum(status != OPEN))),
        "element_size_at_contact": _metric(float(np.median(_size(pair)[(status != OPEN) & (area > 0)]))),
    }
    if pair.friction.kinetic > 0:
        out["stick_radius"] = _metric(_zone_radius(area, status == STICK))
    return out


def _size(pair) -> np.ndarray:
    """Node sizes of the slave surface: lengths of an axisymmetric section, else ``sqrt(area)``."""
    return pair.slave.size if pair.slave.axisymmetric else np.sqrt(pair.slave.area)


def cattaneo_mindlin_sphere(model, state, ref: dict) -> dict:
    """Stick radius and shear traction against Cattaneo–Mindlin (3D)."""
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    radius, e_star, _ = _geometry(model, pair, ref)
    direction = np.asarray(ref.get("direction", [1.0, 0.0, 0.0]), float)
    direction = direction / np.linalg.norm(direction)
    r = _radial(model, pair, sl, ref)
    traction = state.traction()[sl]
    status = state.status[sl]
    area = pair.slave.area
    p = state.multiplier[sl, 0]
    q = -(traction @ direction)          # friction on the loaded body opposes the load
    P, Q = float(np.sum(area * p)), float(np.sum(area * q))
    cm = CattaneoMindlinSphere(P, Q, pair.friction.kinetic, radius, e_star)
    return {
        "normal_load": _metric(P),
        "tangential_load": _metric(Q),
        "load_ratio": _metric(Q / (pair.friction.kinetic * P)),
        "contact_radius": _metric(_zone_radius(area, status != OPEN), cm.contact_radius),
        "stick_radius": _metric(_zone_radius(area, status == STICK), cm.stick_radius),
        "stick_ratio": _metric(_zone_radius(area, status == STICK) / _zone_radius(area, status != OPEN),
                               cm.stick_radius / cm.contact_radius),
        "shear_traction_l2_error": _metric(weighted_l2_error(area, q, cm.shear_traction(r))),
        "pressure_l2_error": _metric(weighted_l2_error(area, p, cm.pressure(r))),
        "slip_nodes": _metric(int(np.sum(status == SLIP))),
    }


def uniform_stress(model, state, ref: dict) -> dict:
    """Contact patch test: every body's stress against a uniform stress tensor.

    ``reference.stress`` is the exact stress (a ``dim x dim`` table).  Reports
    the largest deviation over all quadrature points of all bodies relative
    to the tensor's norm, and, for a pair with multipliers named by
    ``reference.contact``, the largest deviation of the nodal contact
    pressures from ``n . sigma . n``.
    """
    from ..bodies.elasticity import body_stress

    system = model.problem.system
    exact = np.asarray(ref.get("stress"), float)
    if exact.shape != (system.dim, system.dim):
        raise CaseError(f"{model.case['_path']}: 'reference.stress' must be a {system.dim} x "
                        f"{system.dim} table")
    scale = float(np.linalg.norm(exact))
    deviation = 0.0
    for b, body in enumerate(system.bodies):
        sigma = body_stress(body, state.u[system.body_dofs(b)])
        diff = np.linalg.norm((sigma - exact[:, :, None, None]).reshape(system.dim**2, -1), axis=0)
        deviation = max(deviation, float(diff.max()) / scale)
    out = {"stress_deviation": _metric(deviation)}
    _, pair, sl = _pair_slice(model, ref.get("contact"))
    if pair.penalty is None:
        n = state.normal[sl]
        pressure = -np.einsum("mi,ij,mj->m", n, exact, n)
        lam = state.multiplier[sl, 0]
        out["pressure_deviation"] = _metric(np.max(np.abs(lam - pressure)) / np.max(np.abs(pressure)))
    return out


REFERENCES = {"uniform_stress": uniform_stress, "hertz_line": hertz_line, "cattaneo_mindlin_line": cattaneo_mindlin_line,
              "hertz_sphere": hertz_sphere, "cattaneo_mindlin_sphere": cattaneo_mindlin_sphere,
              "oring_squeeze": oring_squeeze}


def reference_of(model, registry: dict, what: str = "") -> tuple:
    """``(reference table, its function in registry)`` of a case, or ``(None, None)`` without one.

    ``what`` qualifies the error for an unknown type (e.g. " is not a dynamic reference").
    """
    ref = model.case.get("reference")
    if not ref:
        return None, None
    kind = ref.get("type")
    if kind not in registry:
        raise CaseError(f"{model.case['_path']}: 'reference.type' = {kind!r}{what}; "
                        f"choose one of {', '.join(registry)}")
    return ref, registry[kind]


#: references measured against the geometry of a contact pair (they need its radius)
GEOMETRIC = ("hertz_line", "cattaneo_mindlin_line", "hertz_sphere", "cattaneo_mindlin_sphere",
             "oring_squeeze")


def reference_findings(model) -> list:
    """What evaluating the case's static reference would fail on, found before solving.

    Resolves from the case alone everything :func:`evaluate_reference` takes
    from it: the type and its parameters against the case
    (:func:`fecontact.references.parameters.parameter_findings`: static, its
    dimension, its keys, the pair ``reference.contact`` and what the type
    reads from it) and, for the references of :data:`GEOMETRIC`, the
    effective radius (``reference.radius`` or the radii of the generated meshes).

    Parameters
    ----------
    model : fecontact.case.build.CaseModel

    Returns
    -------
    list of str
        One line per problem (empty when the reference can be evaluated).
    """
    findings = parameter_findings(model)
    if findings:
        return findings
    try:
        ref, _ = reference_of(model, REFERENCES)
        if ref is None:
            return []
        _, pair, _ = _pair_slice(model, ref.get("contact"))
        if ref["type"] in GEOMETRIC:
            _geometry(model, pair, ref)
    except CaseError as err:
        return [str(err)]
    return []


def evaluate_reference(model, state) -> dict:
    """Figures of a converged state against the analytic reference of its case.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    state : fecontact.solve.state.StepState
        The final committed state.

    Returns
    -------
    dict
        Metric name -> ``{"value", "reference", "rel_error"}`` from the function
        in :data:`REFERENCES` named by ``reference.type``; empty when the case
        has no ``[reference]`` table.  A final state outside the range of the
        reference's formulas (no contact load: the body never touched or
        lifted off; full sliding for Cattaneo–Mindlin) is not compared:
        ``{"not_compared": why}``.

    Raises
    ------
    fecontact.case.schema.CaseError
        For an unknown ``reference.type`` or ``reference.contact``.
    """
    ref, metrics = reference_of(model, REFERENCES)
    if ref is None:
        return {}
    try:
        return metrics(model, state, ref)
    except OutsideReference as err:
        return {"not_compared": f"the final state is outside the range of the {ref['type']} "
                                f"reference ({err})"}
