"""The friction-law registry: each law declares its case-file name and the keys it is built from.

A law module declares, next to its return map, how a case file names it
and which keys of the ``friction`` table fill which constructor argument::

    @friction_law("static_kinetic", example={"mu_s": 0.5, "mu_k": 0.3})
    @dataclass(frozen=True)
    class StaticKinetic(TwoCoefficientLaw):
        mu_s: NonNegative = parameter("static (breakaway) coefficient", fallback="mu")
        mu_k: NonNegative = parameter("kinetic (sliding) coefficient, <= mu_s", fallback="mu")

The type of each key (and so its range) is the annotation of its field, a
constrained type of :mod:`fecontact.fields`.  Everything else derives from
the registry: the case-file schema's ``friction`` table, its JSON Schema and
reference page (:mod:`fecontact.case.friction`), and the case builder
(:meth:`CaseLaw.from_table`).  :func:`discover` imports every module of
:mod:`fecontact.friction` when the package is imported, so a new law is one
new module there (and its documentation page).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["Parameter", "CaseLaw", "TableError", "parameter", "friction_law", "register",
           "unregister", "laws", "law", "names", "discover"]

_META = "fecontact.friction"


@dataclass(frozen=True)
class Parameter:
    """One key of a case file's ``friction`` table, as a law declares it.

    Attributes
    ----------
    key : str
        The key in the table.
    argument : str
        The law's constructor argument (its dataclass field) the key fills.
    kind : type
        The constrained type of the value (:mod:`fecontact.fields`).
    description : str
        What the key means, for the schema and the reference page.
    default : float or None
        Value when the key is absent; None: the key is required (or its
        ``fallback``).
    fallback : str or None
        Another key whose value is taken when this one is absent (``mu`` for
        ``mu_s`` and ``mu_k``).
    required_when : tuple (str, callable) or None
        ``(words, rule)``: the key has no default when ``rule(values)`` is
        true, ``values`` being the arguments resolved before it (``dc`` of
        the velocity law ``with mu_s != mu_k``).
    """

    key: str
    argument: str
    kind: object
    description: str
    default: float | None = None
    fallback: str | None = None
    required_when: tuple | None = None


class TableError(ValueError):
    """A ``friction`` table a law cannot be built from.

    Attributes
    ----------
    key : str or None
        The offending key (None: the table as a whole, e.g. a missing key).
    reason : str
        The message without the key: ``"must be > 0, got 0.0"``.
    """

    def __init__(self, key: str | None, reason: str):
        super().__init__(f"{key} {reason}" if key else reason)
        self.key, self.reason = key, reason


@dataclass(frozen=True, eq=False)
class CaseLaw:
    """A registered friction law: its case-file name, how it is built, and its table keys.

    Attributes
    ----------
    name : str
        ``law = "<name>"`` in case files.
    build : callable
        ``build(**arguments) -> FrictionLaw`` (the law's class, or a factory).
    parameters : tuple of Parameter
        The keys of the ``friction`` table it reads, in order.
    summary : str
        One line for the reference page.
    example : Mapping
        A ``friction`` table (without ``law``) with typical values: the
        instance tests check every law with (:meth:`example_law`).

    Entries compare by identity, so that a tuple of them (:func:`laws`) is a
    key for what is derived from the registry.
    """

    name: str
    build: Callable
    parameters: tuple = ()
    summary: str = ""
    example: Mapping = field(default_factory=dict)

    def from_table(self, table: Mapping):
        """The law built from a ``friction`` table (``law`` and unknown keys are ignored).

        Raises
        ------
        TableError
            A missing key (``key`` None), or a value or combination the law
            refuses (``key`` is the table key the law's message names first).
        """
        values = {}
        for p in self.parameters:
            if p.key in table:
                values[p.argument] = table[p.key]
            elif p.fallback is not None and p.fallback in table:
                values[p.argument] = table[p.fallback]
            elif p.default is None or (p.required_when and p.required_when[1](values)):
                either = f" (or '{p.fallback}')" if p.fallback else ""
                when = f" with {p.required_when[0]}" if p.required_when else ""
                raise TableError(None, f"needs '{p.key}'{either} for law {self.name!r}{when}")
            else:
                values[p.argument] = p.default
        try:
            return self.build(**values)
        except ValueError as err:
            first, _, rest = str(err).partition(" ")
            keys = {p.argument: p.key for p in self.parameters}
            if first in keys:
                raise TableError(keys[first], rest) from None
            raise TableError(None, str(err)) from None

    def example_law(self):
        """The law built from :attr:`example`."""
        return self.from_table(self.example)


def parameter(description: str, *, key: str | None = None, default: float | None = None,
              fallback: str | None = None, required_when: tuple | None = None):
    """A law's dataclass field that is also a key of the case file's ``friction`` table.

    Use as the field's value: ``mu: NonNegative = parameter("friction coefficient")``.
    The field keeps no default in Python (the constructor still needs it).

    Parameters
    ----------
    description : str
        What the key means.
    key : str, optional
        The key in case files (default: the field's name).
    default, fallback, required_when
        See :class:`Parameter`.

    Returns
    -------
    dataclasses.Field
    """
    return field(metadata={_META: dict(description=description, key=key, default=default,
                                       fallback=fallback, required_when=required_when)})


def parameters_of(cls) -> tuple:
    """The :class:`Parameter` of each dataclass field of ``cls`` declared with :func:`parameter`."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        declared = f.metadata.get(_META)
        if declared is not None:
            out.append(Parameter(key=declared["key"] or f.name, argument=f.name, kind=hints[f.name],
                                 **{k: v for k, v in declared.items() if k != "key"}))
    return tuple(out)


_LAWS: dict = {}


def register(entry: CaseLaw) -> CaseLaw:
    """Add a law to the registry (a module reloaded may register the same name again).

    Raises
    ------
    ValueError
        When a key's type differs from the type another law gives the same key.
    """
    kinds = {p.key: (p.kind, other.name) for other in _LAWS.values() if other.name != entry.name
             for p in other.parameters}
    for p in entry.parameters:
        if p.key in kinds and kinds[p.key][0] != p.kind:
            raise ValueError(f"friction law {entry.name!r}: key {p.key!r} has another type in law "
                             f"{kinds[p.key][1]!r}; a key means one thing in every law")
    _LAWS[entry.name] = entry
    return entry


def friction_law(name: str, *, example: Mapping | None = None):
    """Class decorator registering a :class:`~fecontact.friction.base.FrictionLaw` dataclass.

    Apply it above ``@dataclass``.  It sets the class attribute ``name`` and
    registers the class with the fields declared by :func:`parameter`.

    Parameters
    ----------
    name : str
        The law's name in case files.
    example : Mapping, optional
        A ``friction`` table with typical values (see :attr:`CaseLaw.example`).
    """
    def decorate(cls):
        cls.name = name
        doc = (cls.__doc__ or "").strip().splitlines()
        register(CaseLaw(name, cls, parameters_of(cls), doc[0] if doc else "", dict(example or {})))
        return cls
    return decorate


def unregister(name: str) -> None:
    """Remove a law from the registry (a law registered for a test, or replaced)."""
    del _LAWS[name]


def laws() -> tuple:
    """Every registered :class:`CaseLaw`, in registration order."""
    return tuple(_LAWS.values())


def law(name: str) -> CaseLaw:
    """The registered law ``name`` (KeyError listing the names when there is none)."""
    try:
        return _LAWS[name]
    except KeyError:
        raise KeyError(f"no friction law {name!r}; laws: {', '.join(_LAWS)}") from None


def names() -> tuple:
    """The case-file names of the registered laws."""
    return tuple(_LAWS)


def discover(package: str, path) -> None:
    """Import every module of a package, so that the laws they define register themselves.

    Parameters
    ----------
    package : str
        The package's name (``fecontact.friction``).
    path : list of str
        Its ``__path__``.
    """
    for module in pkgutil.iter_modules(path):
        importlib.import_module(f"{package}.{module.name}")
