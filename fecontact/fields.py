"""Constrained value types shared by the case-file schema and the Python API.

Each type is a :class:`typing.Annotated` float, int or array with its range
as :class:`msgspec.Meta` constraints.  The case-file schema
(:mod:`fecontact.case.types`) declares its fields with them, and the Python
API's value objects (materials, friction laws) annotate their dataclass
fields with the same types and check them with :func:`validate`, so a value
refused in a case file is refused, with the same words, by the API.

Every number is finite and at most :data:`LIMIT` in magnitude (a larger
one overflows the first product it enters).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from typing import Annotated

import msgspec
from msgspec import Meta

__all__ = ["LIMIT", "MAX_COUNT", "Number", "Positive", "NonNegative", "Poisson", "Fraction",
           "Count", "Modulus", "validate", "check", "phrase"]

#: Largest magnitude of any number (beyond it a float overflows in the first product)
LIMIT = 1e300
#: Largest count (of elements along an edge, load steps, iterations) any field takes
MAX_COUNT = 10**9

Number = Annotated[float, Meta(ge=-LIMIT, le=LIMIT, description="a finite number")]
Positive = Annotated[float, Meta(gt=0, le=LIMIT, description="a finite number > 0")]
NonNegative = Annotated[float, Meta(ge=0, le=LIMIT, description="a finite number >= 0")]
#: A modulus (Young's, a spring's): norms of residuals square E times a strain, which must
#: neither underflow nor overflow in double precision
Modulus = Annotated[float, Meta(ge=1e-100, le=1e100, description="a modulus in [1e-100, 1e100]")]
Poisson = Annotated[float, Meta(gt=-1, lt=0.5, description="Poisson ratio, -1 < nu < 0.5")]
Fraction = Annotated[float, Meta(ge=0, lt=1, description="a number in [0, 1)")]
Count = Annotated[int, Meta(ge=1, le=MAX_COUNT, description="a whole number >= 1")]

_BOUND = re.compile(r"Expected `(\w+)` (>=|>|<=|<) (\S+)")
_TYPES = {"float": "a number", "int": "a whole number", "str": "a string", "bool": "true or false",
          "array": "an array", "object": "a table", "null": "nothing"}
_GOT = {**_TYPES, "bool": "a boolean", "int": "an integer"}


def _plain(number: str) -> str:
    """``1e+300`` as ``1e300``, ``0.0`` as ``0``."""
    value = float(number)
    return f"{value:g}".replace("e+", "e")


def phrase(message: str, value=msgspec.UNSET) -> str:
    """A msgspec validation message (without its location) in the words of the docs.

    Parameters
    ----------
    message : str
        ``"Expected `float` > 0.0"``, ``"Expected `int`, got `float`"``, ...
    value : optional
        The offending value, shown as ``got ...`` and used to say "finite"
        for NaN and infinities.

    Returns
    -------
    str
        ``"must be > 0, got -1.0"``, ``"must be a whole number, got 1.5"``, ...
    """
    got = "" if value is msgspec.UNSET else f", got {short(value)}"
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return f"must be a finite number{got}"
    if message == "Number out of range":
        return f"is out of range (|value| > {_plain(LIMIT)}){got}"
    count = re.match(r"Expected `(array|object|str)` of length (>=|<=) (\d+)", message)
    if count:
        kind, op, size = count.groups()
        if kind == "str":
            return (f"must not be empty{got}" if (op, size) == (">=", "1")
                    else f"must have {op} {size} characters{got}")
        return f"must have {op} {size} entries{got}"
    bound = _BOUND.match(message)
    if bound:
        kind, op, limit = bound.groups()
        if kind in ("float", "int") and abs(float(limit)) >= LIMIT:
            return f"is out of range (|value| > {_plain(LIMIT)}){got}"
        if kind == "array":
            return f"must have {op} {limit} entries{got}"
        if kind == "str":
            return f"must be a string of {op} {limit} characters{got}"
        return f"must be {op} {_plain(limit)}{got}"
    typed = re.match(r"Expected `([\w |]+)`, got `(\w+)`", message)       # a type, or a union
    if typed:
        expected, actual = typed.groups()
        expected = " or ".join(_TYPES.get(kind, kind) for kind in expected.split(" | "))
        return f"must be {expected}, got {_GOT.get(actual, actual)}" + (
            f" {short(value)}" if value is not msgspec.UNSET else "")
    length = re.match(r"Expected `array` of length (\d+), got (\d+)", message)
    if length:
        return f"must have {length.group(1)} entries{got}"
    return message[0].lower() + message[1:] + got


def short(value) -> str:
    """``repr`` of a value, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _builtin(value):
    """Numpy scalars and arrays as Python numbers and lists (msgspec takes builtins only)."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, tuple):
        return [_builtin(v) for v in value]
    if isinstance(value, float) and type(value) is not float:     # a float subclass (fecontact.Parameter)
        return float(value)
    return value


def check(value, kind, name: str):
    """``value`` converted to the constrained type ``kind``, or a ValueError naming ``name``.

    Parameters
    ----------
    value
        A Python or numpy number (or array, for array types).
    kind
        One of the constrained types of this module (or any msgspec type).
    name : str
        The parameter's name for the message.

    Returns
    -------
    The value as ``kind`` (a Python float, int or list).

    Raises
    ------
    ValueError
        ``"<name> must be > 0, got -1.0"``.
    """
    plain = _builtin(value)
    try:
        return msgspec.convert(plain, kind, strict=True)
    except msgspec.ValidationError as err:
        message = str(err).split(" - at `")[0]
        raise ValueError(f"{name} {phrase(message, plain)}") from None


@functools.lru_cache(maxsize=None)
def _constrained_fields(cls) -> tuple:
    """``(name, type)`` of the dataclass fields of ``cls`` annotated with a constrained type."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls)
                 if typing.get_origin(hints.get(f.name)) is Annotated)


def validate(obj) -> None:
    """Check every field of a dataclass instance annotated with a constrained type.

    Raises
    ------
    ValueError
        One line naming the first field out of its range.
    """
    for name, kind in _constrained_fields(type(obj)):
        check(getattr(obj, name), kind, name)
