"""The parameters each reference type reads, and their check against the built case before solving.

A ``[reference]`` table names a type and the parameters it reads
(:data:`REFERENCE_PARAMETERS`).  :func:`parameter_findings` checks, from the
built case alone and before anything is solved, that

* the type suits the case: static or dynamic, and its dimension
  (``hertz_sphere`` needs a 3D case or an axisymmetric 2D one, ``hertz_line`` a 2D one);
* every key is a parameter of that type, and the type's required keys are given;
* vectors have one coordinate per dimension and are not zero, ``stress``
  is a ``dim x dim`` table, ``after`` lies within the run;
* the contact pairs and springs named exist, and have what the type reads
  from them: friction for Cattaneo–Mindlin, a rigid line or plane master
  and a law with ``mu_s``, ``mu_k`` (and ``decay``) for the dynamic blocks.

Each finding is one line naming the case file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ReferenceParameters:
    """What one reference type reads from a case.

    Attributes
    ----------
    kind : {"static", "dynamic"}
        The analyses it measures.
    dims : tuple of int
        The case dimensions it applies to.
    keys : tuple of str
        Its parameters (keys of ``[reference]`` besides ``type``).
    required : tuple of str
        The parameters it cannot do without.
    friction : bool
        Its pair needs friction (``mu > 0``).
    rigid_master : bool
        Its pairs need a rigid line or plane as master.
    law : tuple of str
        Coefficients its pairs' friction law must have.
    summary : str
        What it compares, for the documentation.
    axisymmetric : bool
        Also for a 2D case of axisymmetric bodies (a 3D reference measured on the section).
    """

    kind: str
    dims: tuple
    keys: tuple
    required: tuple = ()
    friction: bool = False
    rigid_master: bool = False
    law: tuple = ()
    summary: str = ""
    axisymmetric: bool = False


#: Parameters of every reference type
REFERENCE_PARAMETERS = {
    "uniform_stress": ReferenceParameters(
        "static", (2, 3), ("contact", "stress"), ("stress",),
        summary="contact patch test: stress and pressure against a uniform stress"),
    "hertz_line": ReferenceParameters(
        "static", (2,), ("contact", "radius", "center_x"),
        summary="cylinder on a flat (plane strain): peak pressure, half-width, profile"),
    "cattaneo_mindlin_line": ReferenceParameters(
        "static", (2,), ("contact", "radius", "center_x", "direction"), friction=True,
        summary="cylinder on a flat pushed sideways: stick zone and shear traction"),
    "hertz_sphere": ReferenceParameters(
        "static", (3,), ("contact", "radius", "center", "axis"),
        summary="sphere on a flat (3D, or axisymmetric): peak pressure, contact radius, profile",
        axisymmetric=True),
    "cattaneo_mindlin_sphere": ReferenceParameters(
        "static", (3,), ("contact", "radius", "center", "axis", "direction"), friction=True,
        summary="sphere on a flat pushed sideways: stick radius and shear traction"),
    "oring_squeeze": ReferenceParameters(
        "static", (2,), ("contact", "radius", "center_x"),
        summary="half O-ring section squeezed: force against Lindley's fit"),
    "stick_slip": ReferenceParameters(
        "dynamic", (2, 3), ("contact", "spring"), ("contact", "spring"), rigid_master=True,
        law=("mu_s", "mu_k"), summary="spring-pulled block: stick and slip durations"),
    "sliding_block": ReferenceParameters(
        "dynamic", (2, 3), ("contact", "after"), ("contact",), rigid_master=True,
        summary="block on an incline: acceleration"),
    "velocity_weakening": ReferenceParameters(
        "dynamic", (2, 3), ("springs", "contacts"), ("springs", "contacts"), rigid_master=True,
        law=("mu_s", "mu_k", "decay"), summary="spring-dashpot blocks: stability of steady sliding"),
    "energy": ReferenceParameters("dynamic", (2, 3), (), summary="drift of the energy balance"),
}

#: keys holding one coordinate per dimension, and whether zero is refused (a direction)
VECTOR_KEYS = {"center": False, "axis": True, "direction": True}


def _names(items) -> str:
    return ", ".join(items) or "(none)"


def _type_findings(where: str, kind: str, dim: int, analysis: str) -> list:
    """The type against the analysis (static or dynamic) and the case's dimension."""
    spec = REFERENCE_PARAMETERS.get(kind)
    fitting = [k for k, s in REFERENCE_PARAMETERS.items() if s.kind == analysis and dim in s.dims]
    if spec is None:
        return [f"{where}'reference.type' = {kind!r} is not a reference type; choose one of "
                f"{_names(fitting)}"]
    if spec.kind != analysis:
        return [f"{where}'reference.type' = {kind!r} is a {spec.kind} reference and this case is "
                f"{analysis}; choose one of {_names(fitting)}"]
    if dim not in spec.dims:
        return [f"{where}'reference.type' = {kind!r} is a {'/'.join(map(str, spec.dims))}D "
                f"reference and this case is {dim}D; choose one of {_names(fitting)}"]
    return []


def _key_findings(where: str, kind: str, ref: dict, dim: int, t_end: float | None) -> list:
    """Keys that are not the type's parameters, missing ones, and the shapes of the values."""
    spec = REFERENCE_PARAMETERS[kind]
    keys = [k for k in ref if k != "type" and not k.startswith("_")]
    out = [f"{where}'reference.{k}' is not a parameter of reference type {kind!r} (its "
           f"parameters: {_names(spec.keys)})" for k in keys if k not in spec.keys]
    out += [f"{where}'reference.{k}' is missing: reference type {kind!r} needs it"
            for k in spec.required if k not in ref]
    for key, directional in VECTOR_KEYS.items():
        if key in ref and key in spec.keys:
            value = np.asarray(ref[key], float)
            if value.size != dim:
                out.append(f"{where}'reference.{key}' has {value.size} coordinates; this case is {dim}D")
            elif directional and not np.any(value):
                out.append(f"{where}'reference.{key}' is zero; it gives a direction")
    if "stress" in ref and "stress" in spec.keys:
        rows = ref["stress"]
        if len(rows) != dim or any(len(row) != dim for row in rows):
            out.append(f"{where}'reference.stress' must be a {dim} x {dim} table (one row per "
                       f"dimension)")
    if "after" in ref and "after" in spec.keys and t_end is not None:
        after = float(ref["after"])
        if not 0.0 <= after < t_end:
            out.append(f"{where}'reference.after' = {after:g} is not within the run (0 to "
                       f"'dynamics.t_end' = {t_end:g})")
    return out


def _pair_findings(where: str, key: str, name, kind: str, pairs: dict) -> list:
    """A pair named by ``reference.<key>`` that is missing or lacks what the type reads."""
    spec = REFERENCE_PARAMETERS[kind]
    label = f"'{key}' = {name!r}"
    if name is None:
        if not pairs:
            return [f"{where}reference type {kind!r} needs a contact pair; the case has none"]
        name = next(iter(pairs))
        label = f"'{key}' (not given: the first pair, {name!r})"
    elif name not in pairs:
        return [f"{where}{label} is not a contact pair; pairs: {_names(pairs)}"]
    pair, out = pairs[name], []
    law = pair.friction
    if spec.friction and not law.kinetic > 0:
        out.append(f"{where}{label}: reference type {kind!r} needs friction (mu > 0) "
                   f"on the pair")
    if spec.rigid_master and not hasattr(pair.master, "normal"):
        out.append(f"{where}{label}: reference type {kind!r} needs a rigid line or "
                   f"plane as the pair's master")
    missing = [c for c in spec.law if not hasattr(law, c)]
    if missing:
        out.append(f"{where}{label}: reference type {kind!r} needs a friction law "
                   f"with {', '.join(spec.law)} (the pair's law is {type(law).__name__})")
    return out


def _named_findings(where: str, ref: dict, kind: str, pairs: dict, springs: tuple) -> list:
    """The pairs and springs the reference names, alone or in lists."""
    out, keys = [], REFERENCE_PARAMETERS[kind].keys
    if "contact" in keys:
        out += _pair_findings(where, "reference.contact", ref.get("contact"), kind, pairs)
    if "spring" in ref and "spring" in keys and ref["spring"] not in springs:
        out.append(f"{where}'reference.spring' = {ref['spring']!r} is not a spring; springs: "
                   f"{_names(springs)}")
    lists = {k: ref[k] for k in ("springs", "contacts") if k in ref and k in keys}
    for i, name in enumerate(lists.get("springs", [])):
        if name not in springs:
            out.append(f"{where}'reference.springs.{i}' = {name!r} is not a spring; springs: "
                       f"{_names(springs)}")
    for i, name in enumerate(lists.get("contacts", [])):
        out += _pair_findings(where, f"reference.contacts.{i}", name, kind, pairs)
    if len(lists) == 2 and len(lists["springs"]) != len(lists["contacts"]):
        out.append(f"{where}'reference.springs' and 'reference.contacts' pair each spring with "
                   f"its block's contact: they need the same length (here "
                   f"{len(lists['springs'])} and {len(lists['contacts'])})")
    return out


def parameter_findings(model) -> list:
    """What is inconsistent in a case's ``[reference]``, found before solving (one line each).

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
        The built case (its ``case`` dict, ``problem`` and ``dynamics``).

    Returns
    -------
    list of str
        Empty when the reference suits the case, or when there is none.
    """
    ref = model.case.get("reference")
    if not ref:
        return []
    where = f"{model.case['_path']}: "
    system = model.problem.system
    analysis = "static" if model.dynamics is None else "dynamic"
    kind = ref.get("type")
    spec = REFERENCE_PARAMETERS.get(kind)
    if spec is not None and spec.axisymmetric and system.dim == 2 and system.bodies[0].axisymmetric:
        return [f"{where}'reference.{k}' is not a parameter of reference type {kind!r} on an "
                "axisymmetric case (its axis is r = 0)" for k in ("center", "axis") if k in ref]
    out = _type_findings(where, kind, system.dim, analysis)
    if out:
        return out
    t_end = None if model.dynamics is None else float(model.dynamics.t_end)
    out = _key_findings(where, kind, ref, system.dim, t_end)
    pairs = {p.name: p for p in model.problem.pairs}
    springs = tuple(s.name for s in system.springs)
    return out + _named_findings(where, ref, kind, pairs, springs)
