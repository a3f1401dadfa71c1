"""Checks of a built case before anything is solved, named by the case file's keys.

The checks themselves are those of every model (:mod:`fecontact.model.checks`:
projection, facing surfaces, initial penetration, rigid-body modes); here
they name the case file and its keys (``'contact.0'``, ``bodies.1``), and
the case's ``solver.backend`` is checked.
"""

from __future__ import annotations

from ..model.checks import Places
from ..model.checks import model_findings as problem_findings


def case_places(model) -> Places:
    """How findings name the places of a case: the file, ``'contact.k'`` and ``(bodies.b)``.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel

    Returns
    -------
    Places
    """
    pairs, keys = {}, {}
    for k, spec in enumerate(model.case.get("contact", [])):
        name = spec.get("name", f"contact{k}")
        pairs[name] = f"'contact.{k}'"
        keys[name] = f"'contact.{k}.{{key}}'"
    bodies = {b: f" (bodies.{b})" for b in range(len(model.case["bodies"]))}
    return Places(f"{model.case['_path']}: ", pairs, keys, bodies)


def model_findings(model) -> list:
    """All problems of a built case, one line each (empty: ready to solve).

    Parameters
    ----------
    model : fecontact.case.build.CaseModel

    Returns
    -------
    list of str
    """
    tolerances = {spec.get("name", f"contact{k}"): spec["penetration_tolerance"]
                  for k, spec in enumerate(model.case.get("contact", []))
                  if "penetration_tolerance" in spec}
    return (backend_findings(model, model.case["_path"]) + output_findings(model)
            + problem_findings(model.problem, case_places(model), tolerances,
                               dynamic=model.dynamics is not None))


def output_findings(model) -> list:
    """``output.revolve`` on a case whose bodies are not axisymmetric (at most one line)."""
    if "revolve" in model.case.get("output", {}) and not all(
            b.axisymmetric for b in model.problem.system.bodies):
        return [f"{model.case['_path']}: 'output.revolve' writes the solid of revolution of "
                f"axisymmetric bodies; give every material plane = \"axisymmetric\" or drop it"]
    return []


def backend_findings(model, source: str) -> list:
    """An unknown ``solver.backend``, or a Krylov backend for a body held only by contact.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    source : str
        The case file, named in each finding.

    Returns
    -------
    list of str
        At most one finding.
    """
    from ..solve.backends import CHOICES, KRYLOV_BACKENDS

    name = model.backend
    if name not in CHOICES:
        return [f"{source}: 'solver.backend' = {name!r} is not a backend; choose one of "
                f"{', '.join(CHOICES)}"]
    system = model.problem.system
    floating = system.floating_bodies() if name in KRYLOV_BACKENDS else []
    if floating:
        return [f"{source}: 'solver.backend' = {name!r} needs every body supported, but "
                f"{', '.join(repr(b) for b in floating)} is held only by contact (its stiffness "
                f"is singular); use 'schur' or 'auto'"]
    return []
