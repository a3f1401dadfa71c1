"""The coarse case of nested iteration: the same case on meshes a factor coarser.

:func:`coarse_case` derives it from a case's mesh tables: a generated mesh
is generated again with its element sizes times the factor (``h_contact``
and ``h_far`` of the graded generators) or its element counts divided by it
(``nx``, ``ny``, ``nz`` of the structured ones); a mesh file needs a
``coarse`` file beside it.  Everything else -- materials, supports, loads,
contact pairs, steps -- is the case's own, so the coarse model has the same
bodies, boundary names and pairs (:mod:`fecontact.analysis.nested`).
"""

from __future__ import annotations

import copy
import inspect

__all__ = ["coarse_case", "DEFAULT_COARSENING", "NESTED_MIN_UNKNOWNS"]

#: Element-size factor of the coarse meshes by dimension: the coarse problem has about a tenth of
#: the unknowns of the graded Hertz meshes (hertz2d: 209,044 -> 15,180; hertz3d: 197,638 -> 15,966)
DEFAULT_COARSENING = {2: 12.0, 3: 4.0}
#: ``nested`` not given: nested iteration from this many unknowns (reduced DOFs) on: below, a
#: coarse model of a tenth of the size has too few nodes in a contact zone to predict it
NESTED_MIN_UNKNOWNS = 10_000
#: Parameters of the graded generators that are element sizes
_SIZES = ("h_contact", "h_far")
#: Parameters of the structured generators that are element counts
_COUNTS = ("nx", "ny", "nz")


def _coarse_mesh(spec: dict, factor: float) -> dict | None:
    """The mesh table of the coarse body, or None when there is none (a file without ``coarse``)."""
    from ..mesh import GENERATORS

    if "file" in spec:
        return {"file": spec["coarse"]} if "coarse" in spec else None
    defaults = inspect.signature(GENERATORS[spec["generator"]]).parameters
    table = dict(spec)
    for key in _SIZES:
        if key in defaults:
            table[key] = factor * float(spec.get(key, defaults[key].default))
    for key in _COUNTS:
        if key in spec:
            table[key] = max(1, round(spec[key] / factor))
    return table


def coarse_case(case: dict, factor: float) -> dict | None:
    """The case on meshes ``factor`` times coarser, without nested iteration of its own.

    Parameters
    ----------
    case : dict
        A validated case (:func:`fecontact.case.schema.load_case`).
    factor : float
        Element-size factor, > 1.

    Returns
    -------
    dict or None
        None when a body's mesh is a file with no ``coarse`` file named.
    """
    coarse = copy.deepcopy(case)
    for body in coarse["bodies"]:
        table = _coarse_mesh(body["mesh"], factor)
        if table is None:
            return None
        body["mesh"] = table
    coarse.setdefault("solver", {})["nested"] = False
    coarse["solver"].pop("compare_linear", None)
    return coarse
