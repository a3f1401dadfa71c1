"""The ``friction`` table of a case file, derived from the friction-law registry.

:func:`friction_table` makes the msgspec struct of the table from the laws
registered in :mod:`fecontact.friction.registry`: ``law`` chooses one of
their names (default ``coulomb``), and every key a law declares is a field
with the law's constrained type and description.  The struct's
``__post_init__`` builds the chosen law from the table, so a missing key, a
value out of its range or a combination the law refuses (``mu_k > mu_s``)
is reported, naming the key, before anything else is built.
:func:`law_of_table` is what the case builder calls.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ..friction import registry

__all__ = ["DEFAULT_LAW", "friction_table", "law_of_table", "key_descriptions"]

#: The law of a ``friction`` table without ``law``
DEFAULT_LAW = "coulomb"


def _join(names) -> str:
    return ", ".join(sorted(names))


def key_descriptions(laws=None) -> dict:
    """Key -> ``(type, description)`` of every key the laws declare, in declaration order.

    A key several laws share has one type (the registry checks it) and a
    description saying which laws read it and how: ``"coulomb: friction
    coefficient; ipc, static_kinetic, velocity: default of mu_s and mu_k"``.
    """
    laws = registry.laws() if laws is None else laws
    kinds, uses = {}, {}
    for entry in laws:
        for p in entry.parameters:
            kinds.setdefault(p.key, p.kind)
            default = "" if p.default is None else f" (default {p.default:g}" + (
                f"; needed with {p.required_when[0]})" if p.required_when else ")")
            if p.fallback is not None:
                default = f" (default: {p.fallback})"
            uses.setdefault(p.key, {}).setdefault(p.description + default, []).append(entry.name)
    for entry in laws:                       # a key read as another key's default
        for p in entry.parameters:
            if p.fallback is not None:
                kinds.setdefault(p.fallback, p.kind)
                takers = [q.key for q in entry.parameters if q.fallback == p.fallback]
                text = "default of " + " and ".join(takers)
                names = uses.setdefault(p.fallback, {}).setdefault(text, [])
                if entry.name not in names:
                    names.append(entry.name)
    return {key: (kinds[key], "; ".join(f"{_join(names)}: {text}" for text, names in uses[key].items()))
            for key in kinds}


def _post_init(self):
    """Build the chosen law: one ``@key reason`` or table-level line if it cannot be built."""
    table = {f: getattr(self, f) for f in self.__struct_fields__ if getattr(self, f) is not UNSET}
    try:
        law_of_table(table)
    except registry.TableError as err:
        raise ValueError(f"@{err.key} {err.reason}" if err.key else err.reason) from None


def friction_table(laws=None) -> type:
    """The msgspec struct of the ``friction`` table for the registered laws.

    Parameters
    ----------
    laws : tuple of CaseLaw, optional
        Default: every registered law.

    Returns
    -------
    type
        A frozen struct named ``FrictionTable`` refusing unknown keys.
    """
    laws = registry.laws() if laws is None else laws
    names = tuple(entry.name for entry in laws)
    fields = [("law", Annotated[Literal[names], Meta(
        description=f"friction law (default {DEFAULT_LAW})")] | UnsetType, UNSET)]
    fields += [(key, Annotated[kind, Meta(description=text)] | UnsetType, UNSET)
               for key, (kind, text) in key_descriptions(laws).items()]
    return msgspec.defstruct(
        "FrictionTable", fields, module=__name__, forbid_unknown_fields=True, frozen=True,
        kw_only=True, namespace={"__doc__": "A friction law and its coefficients.",
                                 "__post_init__": _post_init})


def law_of_table(table: dict):
    """The friction law a ``friction`` table asks for.

    Parameters
    ----------
    table : dict
        ``law`` (default :data:`DEFAULT_LAW`) and the law's keys.

    Returns
    -------
    fecontact.friction.FrictionLaw

    Raises
    ------
    fecontact.friction.registry.TableError
        A missing key or a value the law refuses, naming the key.
    """
    return registry.law(table.get("law", DEFAULT_LAW)).from_table(table)
