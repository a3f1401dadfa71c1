r"""Parameters of a model: a number that gradients are taken with respect to.

A :class:`Parameter` is a ``float`` with a name and an identity (``key``):
it stands wherever a number enters a model (``E`` and ``nu`` of a material,
a friction coefficient, a prescribed displacement, a force, a pressure, an
obstacle's radius) and behaves there as its value.  A model made with
parameters can be made again with other values
(:meth:`fecontact.Model.with_values`): the numbers given to the model's
calls are replaced by :func:`substitute`, wherever they sit (in arguments,
in value objects such as materials and friction laws, in tuples, lists and
dicts), and the calls are made again.  The gradient of a result
(:meth:`fecontact.Solution.gradient`) is taken with respect to parameters
named by their objects; a parameter keeps its ``key`` through every new
value, so the parameter of a model made again is still the same one.

Arithmetic on a parameter gives a plain number, as on any float: ``-R``
or ``2 * E`` are not parameters, and a model given them does not depend on
``R`` or ``E`` for its gradients (nor does :meth:`fecontact.Model.with_values`
change them).  Give the parameter itself where the number enters; where a
model needs a function of it (a sphere's centre at ``-R``), make that
number a parameter of its own.

Examples
--------
>>> import fecontact as fc
>>> E = fc.Parameter(210e3, name="E")
>>> E, E * 2, E.name
(Parameter(210000.0, name='E'), 420000.0, 'E')
>>> F = E.at(200e3)
>>> float(F), F.key == E.key
(200000.0, True)
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

__all__ = ["Parameter", "substitute", "collect", "parameter_key", "new_key"]

_KEYS = itertools.count(1)


class Parameter(float):
    """A number of a model that gradients are taken with respect to.

    Parameters
    ----------
    value : float
        Finite.
    name : str, optional
        Shown in reports (default ``"p<key>"``).

    Attributes
    ----------
    name : str
    key : int
        The parameter's identity: shared by :meth:`at` values of it.
    """

    __slots__ = ("name", "key")

    def __new__(cls, value, name: str | None = None, *, key: int | None = None):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"a Parameter needs a number, got {value!r}") from None
        if not np.isfinite(number):
            raise ValueError(f"a Parameter must be finite, got {value!r}")
        obj = super().__new__(cls, number)
        obj.key = new_key() if key is None else int(key)
        obj.name = str(name) if name is not None else f"p{obj.key}"
        return obj

    def __init__(self, value, name: str | None = None, *, key: int | None = None):
        super().__init__()                     # the value and the name are set by __new__

    @property
    def value(self) -> float:
        """The value as a plain float."""
        return float(self)

    def at(self, value) -> "Parameter":
        """The same parameter (name and key) with another value."""
        return Parameter(value, self.name, key=self.key)

    def __repr__(self) -> str:
        return f"Parameter({float(self)!r}, name={self.name!r})"

    def __reduce__(self):
        return (_rebuild, (float(self), self.name, self.key))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def new_key() -> int:
    """A parameter key not used before in this process."""
    return next(_KEYS)


def _rebuild(value: float, name: str, key: int) -> Parameter:
    return Parameter(value, name, key=key)


def parameter_key(obj) -> int:
    """The key of a :class:`Parameter` or of a shape parameter (anything with ``key``)."""
    key = getattr(obj, "key", None)
    if key is None:
        raise ValueError(f"not a parameter: {obj!r} (fecontact.Parameter or body.shape_parameter)")
    return int(key)


def substitute(obj, values: dict, replace_ref=None):
    """``obj`` with every :class:`Parameter` whose key is in ``values`` at its new value.

    Parameters
    ----------
    obj : object
        Numbers, tuples, lists, dicts and dataclass instances are searched;
        a value object that keeps the values it was made from
        (``__given__``, a dict of its constructor's arguments) is made again
        from them.  Anything else is returned as it is.
    values : dict
        Parameter key -> new value.
    replace_ref : callable, optional
        Applied first to every object: returns a replacement or None (used
        to map a body's surfaces to the surfaces of the body made again).

    Returns
    -------
    object
        ``obj`` itself when nothing in it changed.
    """
    if replace_ref is not None:
        replaced = replace_ref(obj)
        if replaced is not None:
            return replaced
    if isinstance(obj, Parameter):
        return obj.at(values[obj.key]) if obj.key in values else obj
    if isinstance(obj, (str, bytes, int, float, bool, np.ndarray)) or obj is None or callable(obj) \
            and not dataclasses.is_dataclass(obj):
        return obj
    if isinstance(obj, (tuple, list)):
        items = [substitute(v, values, replace_ref) for v in obj]
        if all(a is b for a, b in zip(items, obj)):
            return obj
        return type(obj)(items) if not hasattr(obj, "_fields") else type(obj)(*items)
    if isinstance(obj, dict):
        items = {k: substitute(v, values, replace_ref) for k, v in obj.items()}
        return obj if all(items[k] is obj[k] for k in obj) else type(obj)(items)
    given = getattr(obj, "__given__", None)
    if isinstance(given, dict):
        new = substitute(given, values, replace_ref)
        return obj if new is given else type(obj)(**new)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changed = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            old = getattr(obj, f.name)
            new = substitute(old, values, replace_ref)
            if new is not old:
                changed[f.name] = new
        return dataclasses.replace(obj, **changed) if changed else obj
    return obj


def collect(obj, found: dict) -> dict:
    """Every :class:`Parameter` in ``obj`` (searched as by :func:`substitute`) into ``found``, by key."""
    if isinstance(obj, Parameter):
        found.setdefault(obj.key, obj)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            collect(v, found)
    elif isinstance(obj, dict):
        for v in obj.values():
            collect(v, found)
    elif isinstance(getattr(obj, "__given__", None), dict):
        collect(obj.__given__, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.init:
                collect(getattr(obj, f.name), found)
    return found
