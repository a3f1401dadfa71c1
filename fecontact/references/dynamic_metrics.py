r"""Measurements of dynamic runs against the analytic solutions of rigid blocks with friction.

Reference types (``[reference] type = ...`` of a dynamic case):

``stick_slip``
    A block of mass ``m`` pulled by a spring ``k`` whose anchor moves at ``V``
    over a rigid flat, ``mu_s > mu_k``, normal force ``N``.  With
    ``Delta = (mu_s - mu_k) N / k`` and ``omega = sqrt(k/m)`` the steady cycle
    sticks for ``2 Delta / V`` and slips for ``(2 pi - 2 atan(Delta omega / V))/omega``;
    the spring force swings between ``mu_s N`` and ``(2 mu_k - mu_s) N``.
``sliding_block``
    A block on an inclined plane: acceleration ``g (sin theta - mu_k cos theta)``
    when ``tan theta > mu_s``, at rest otherwise.
``velocity_weakening``
    Spring-dashpot blocks with ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c v)``:
    steady sliding at ``V`` is linearly stable when
    ``V > V* = ln(N d_c (mu_s - mu_k) / c) / d_c``; the oscillation about it
    grows or decays at the rate ``-(c + N mu'(V)) / (2 m)``.
``energy``
    Largest drift of ``KE + SE - W_ext`` from its initial value.

The measurements use only the time series (block velocity, spring force,
centroid motion); ``m``, ``N``, ``theta`` and the law's parameters come from
the model's loads, mass and friction law.
"""

from __future__ import annotations

import numpy as np

from ..case.schema import CaseError
from .metrics import reference_of
from .parameters import parameter_findings


def _pair(model, name):
    """The contact pair called ``name``, else a CaseError listing the pairs."""
    for p in model.problem.pairs:
        if p.name == name:
            return p
    names = ", ".join(p.name for p in model.problem.pairs)
    raise CaseError(f"{model.case['_path']}: 'reference.contact' = {name!r} is not a contact "
                    f"pair; pairs: {names}")


def _spring(model, name):
    for s in model.problem.system.springs:
        if s.name == name:
            return s
    names = ", ".join(s.name for s in model.problem.system.springs)
    raise CaseError(f"{model.case['_path']}: reference spring {name!r} is not a spring; "
                    f"springs: {names}")


def body_loads(model, body: int) -> tuple:
    """``(mass, resultant of the body's loads at t = 0 (dim,))`` of one body."""
    sysm = model.problem.system
    dofs = np.arange(sysm.n_dofs)[sysm.body_dofs(body)]
    d = sysm.dim
    f = sysm.load_force(0.0)[dofs].reshape(-1, d).sum(axis=0)
    ones = np.zeros(sysm.n_dofs)
    ones[dofs[0::d]] = 1.0
    return float(ones @ (sysm.M @ ones)), f


def _normal(pair):
    """Unit normal of a rigid line or plane master."""
    if not hasattr(pair.master, "normal"):
        raise ValueError(f"contact {pair.name!r}: dynamic references need a rigid line or plane master")
    n = np.asarray(pair.master.normal, float)
    return n / np.linalg.norm(n)


def slip_phases(t: np.ndarray, v: np.ndarray, tol: float) -> list:
    """Slip phases ``(start, end)`` of a velocity series, located to second order.

    A phase is a run of samples with ``v > tol``; its start is the zero of
    the line through its first two samples, its end the zero of the line
    through its last two (the velocity is linear in time near both events).
    Phases touching the ends of the series are left out.
    """
    moving = v > tol
    out = []
    i = 0
    n = t.size
    while i < n:
        if not moving[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and moving[j + 1]:
            j += 1
        if i > 0 and j < n - 1 and j - i >= 1:
            start = t[i] - v[i] * (t[i + 1] - t[i]) / (v[i + 1] - v[i])
            end = t[j] + v[j] * (t[j] - t[j - 1]) / (v[j - 1] - v[j])
            out.append((float(max(start, t[i - 1])), float(min(end, t[j + 1]))))
        i = j + 1
    return out


def stick_slip(model, series: dict, ref: dict) -> dict:
    """Stick and slip durations and spring-force extremes of a spring-pulled block against the exact cycle.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    series : dict
        Time series of the run: ``t`` (n_steps,), and per spring name
        ``spring_velocity`` and ``spring_force`` (n_steps,).
    ref : dict
        The case's ``[reference]``: ``contact`` (the block's pair, against a
        rigid line or plane) and ``spring`` (the pulling spring).  The pair's
        law must have ``mu_s`` and ``mu_k``.

    Returns
    -------
    dict
        The exact figures (``stick_duration_exact``, ``slip_duration_exact``,
        ``force_max_exact``, ``force_min_exact``) with ``mass``,
        ``normal_force``, ``omega`` and the number of slip phases ``cycles``;
        with three phases or more also the measured mean durations of the
        steady cycles (the first phase, the breakaway from rest, left out),
        their relative errors and the spring-force extremes.
    """
    pair = _pair(model, ref["contact"])
    spring = _spring(model, ref["spring"])
    body = pair.slave.body
    m, f = body_loads(model, body)
    n = _normal(pair)
    N = float(-f @ n)
    law = pair.friction
    mu_s, mu_k = law.mu_s, law.mu_k
    k, V = spring.stiffness, spring.anchor_velocity
    omega = np.sqrt(k / m)
    delta = (mu_s - mu_k) * N / k
    stick_exact = 2.0 * delta / V
    slip_exact = (2.0 * np.pi - 2.0 * np.arctan(delta * omega / V)) / omega
    t = np.asarray(series["t"])
    v = np.asarray(series["spring_velocity"][spring.name])
    phases = slip_phases(t, v, 1e-6 * abs(V))
    slips = [b - a for a, b in phases]
    sticks = [phases[i + 1][0] - phases[i][1] for i in range(len(phases) - 1)]
    out = {"mass": m, "normal_force": N, "omega": omega, "cycles": len(phases),
           "stick_duration_exact": stick_exact, "slip_duration_exact": slip_exact,
           "force_max_exact": mu_s * N, "force_min_exact": (2.0 * mu_k - mu_s) * N}
    if len(phases) >= 3:
        # the first phase follows the breakaway from rest; steady cycles after it
        stick = float(np.mean(sticks[1:]))
        slip = float(np.mean(slips[1:]))
        force = np.asarray(series["spring_force"][spring.name])
        steady = t >= phases[1][0]
        out.update({"stick_duration": stick, "slip_duration": slip,
                    "stick_durations": sticks, "slip_durations": slips,
                    "stick_error": stick / stick_exact - 1.0,
                    "slip_error": slip / slip_exact - 1.0,
                    "force_max": float(force[steady].max()), "force_min": float(force[steady].min())})
    return out


def sliding_block(model, series: dict, ref: dict) -> dict:
    """Acceleration of a block on an incline (loads tilted against a rigid plane) against ``g (sin theta - mu_k cos theta)``.

    The measured acceleration is twice the leading coefficient of a quadratic
    fitted to the centroid displacement along the shear direction, from time
    ``ref["after"]`` (default 0) on.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    series : dict
        Time series: ``t``, ``centroid_displacement`` per body name (n_steps, dim)
        and ``max_slip`` (n_steps,).
    ref : dict
        The case's ``[reference]``: ``contact`` and optionally ``after``.

    Returns
    -------
    dict
        ``tan_theta``, ``mu_s``, ``mu_k``, ``slides`` (whether ``tan theta > mu_s``),
        ``acceleration_exact``, ``acceleration``, ``acceleration_error`` (None
        when the block sticks) and the largest slip relative to the body's size.
    """
    pair = _pair(model, ref["contact"])
    body = pair.slave.body
    m, f = body_loads(model, body)
    n = _normal(pair)
    pressing = float(-f @ n)
    shear_vec = f + pressing * n
    shear = float(np.linalg.norm(shear_vec))
    direction = shear_vec / shear if shear > 0 else np.zeros_like(n)
    law = pair.friction
    mu_s = getattr(law, "mu_s", law.kinetic)
    slides = shear > mu_s * pressing
    exact = (shear - law.kinetic * pressing) / m if slides else 0.0
    t = np.asarray(series["t"])
    x = np.asarray(series["centroid_displacement"][model.problem.system.bodies[body].name]) @ direction
    after = float(ref.get("after", 0.0))
    sel = t >= after
    coeffs = np.polyfit(t[sel], x[sel], 2)
    size = float(np.ptp(model.problem.system.bodies[body].node_coords, axis=1).max())
    return {"tan_theta": shear / pressing, "mu_s": mu_s, "mu_k": law.kinetic, "slides": bool(slides),
            "acceleration_exact": exact, "acceleration": float(2.0 * coeffs[0]),
            "acceleration_error": (float(2.0 * coeffs[0]) / exact - 1.0) if slides else None,
            "max_slip": float(np.max(series["max_slip"])), "size": size,
            "max_slip_over_size": float(np.max(series["max_slip"])) / size}


def _envelope_rate(t: np.ndarray, y: np.ndarray, low: float, high: float):
    """Exponential rate of the peaks of ``|y|`` between ``low`` and ``high`` (least squares), or None."""
    a = np.abs(y)
    peaks = np.flatnonzero((a[1:-1] >= a[:-2]) & (a[1:-1] > a[2:])) + 1
    peaks = peaks[(a[peaks] > low) & (a[peaks] < high)]
    if peaks.size < 3:
        return None
    return float(np.polyfit(t[peaks], np.log(a[peaks]), 1)[0])


def velocity_weakening(model, series: dict, ref: dict) -> dict:
    """Stability of steady sliding of spring-dashpot blocks under ``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c v)``.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    series : dict
        Time series: ``t`` and ``spring_velocity`` per spring name (n_steps,).
    ref : dict
        The case's ``[reference]``: ``springs`` and ``contacts``, two lists
        pairing each block's spring with its contact pair.

    Returns
    -------
    dict
        Per spring name: the driving velocity ``V``, the threshold ``V_star``
        of linear stability, the exact and measured growth rates of the
        oscillation about ``V`` (measured from its peaks; None with fewer than
        three), and the stick fraction and largest velocity deviation over the
        second half of the run.
    """
    t = np.asarray(series["t"])
    out = {}
    for name, contact in zip(ref["springs"], ref["contacts"]):
        spring = _spring(model, name)
        pair = _pair(model, contact)
        m, f = body_loads(model, pair.slave.body)
        N = float(-f @ _normal(pair))
        law = pair.friction
        c, V = spring.damping, spring.anchor_velocity
        drop = law.mu_s - law.mu_k
        v_star = np.log(N * law.decay * drop / c) / law.decay
        slope = -law.decay * drop * np.exp(-law.decay * V)          # mu'(V)
        rate_exact = -(c + N * slope) / (2.0 * m)
        v = np.asarray(series["spring_velocity"][name])
        half = t >= 0.5 * t[-1]
        rate = _envelope_rate(t, v - V, 1e-4 * V, 0.3 * V)
        out[name] = {"V": V, "V_star": float(v_star), "above_V_star": bool(V > v_star),
                     "growth_rate_exact": float(rate_exact), "growth_rate": rate,
                     "stick_fraction_second_half": float(np.mean(v[half] < 1e-6 * V)),
                     "velocity_deviation_second_half": float(np.max(np.abs(v[half] - V)) / V)}
    return out


def energy(model, series: dict, ref: dict) -> dict:
    """Drift of the energy balance ``KE + SE - W_ext`` of a dynamic run.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    series : dict
        Time series: ``total`` (kinetic plus strain energy), ``external_work``,
        ``contact_work`` and ``balance_error`` (n_steps,).
    ref : dict
        The case's ``[reference]`` (no parameters).

    Returns
    -------
    dict
        ``initial_energy``, the largest and final drift relative to it, the
        final contact work and the largest balance error relative to it.
    """
    total = np.asarray(series["total"])
    work = np.asarray(series["external_work"])
    drift = total - work - total[0]
    return {"initial_energy": float(total[0]),
            "max_energy_drift_relative": float(np.max(np.abs(drift)) / abs(total[0])),
            "final_energy_drift_relative": float(drift[-1] / abs(total[0])),
            "contact_work": float(series["contact_work"][-1]),
            "max_balance_error_relative": float(np.max(np.abs(series["balance_error"])) / abs(total[0]))}


REFERENCES = {"stick_slip": stick_slip, "sliding_block": sliding_block,
              "velocity_weakening": velocity_weakening, "energy": energy}


def dynamic_reference_findings(model) -> list:
    """What evaluating the case's dynamic reference would fail on, found before solving (one line per problem).

    The type and its parameters against the case: a dynamic type, its keys,
    the pairs and springs it names and what it reads from them
    (:func:`fecontact.references.parameters.parameter_findings`).
    """
    findings = parameter_findings(model)
    if findings:
        return findings
    try:
        reference_of(model, REFERENCES, " is not a dynamic reference")
    except CaseError as err:
        return [str(err)]
    return []


def evaluate_dynamic_reference(model, series: dict) -> dict:
    """Metrics of the case's ``[reference]`` (empty without one)."""
    ref, metrics = reference_of(model, REFERENCES, " is not a dynamic reference")
    return {} if ref is None else {"type": ref["type"], **metrics(model, series, ref)}
