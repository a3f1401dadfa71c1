r"""A model made again with other parameter values (:meth:`fecontact.Model.with_values`).

A :class:`~fecontact.Body` records the calls it is built by (its
constructor's arguments and every :func:`recorded` method call made from
outside it, with a boundary predicate replaced by the name it was given).
Making a body again is making those calls again on a copy of its mesh
(moved by its shape parameters) with every :class:`fecontact.Parameter` in
the arguments at its new value (:func:`fecontact.sensitivity.parameters.substitute`);
contact pairs and ties are made again from their fields, their surfaces
taken from the bodies made again.  The result is the model the same Python
calls would have built with those numbers.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ..sensitivity.parameters import Parameter, collect, substitute
from ..sensitivity.shapes import ShapeParameter
from .surfaces import SurfaceRef

__all__ = ["recorded", "replay_body", "rebuild_model", "split_values", "model_parameters"]


def recorded(method):
    """Record a call of a :class:`~fecontact.Body` method made from outside the body."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        outer = self._depth == 0
        self._depth += 1
        try:
            result = method(self, *args, **kwargs)
        finally:
            self._depth -= 1
        if outer:
            self._calls.append((method.__name__, args, kwargs))
        return result
    return call


def split_values(values: dict) -> tuple:
    """``{Parameter or ShapeParameter: value}`` as ``(scalars, shapes)``, both keyed by parameter key.

    Raises
    ------
    ValueError
        For a key that is not a parameter, or a value that is not finite.
    """
    scalars, shapes = {}, {}
    for param, value in values.items():
        if isinstance(param, ShapeParameter):
            shapes[param.key] = param.checked(value)
        elif isinstance(param, Parameter):
            number = float(value)
            if not np.isfinite(number):
                raise ValueError(f"parameter {param.name!r}: the value must be finite, got {value!r}")
            scalars[param.key] = number
        else:
            raise ValueError(f"with_values takes fecontact.Parameter or shape parameters as keys, "
                             f"got {param!r}")
    return scalars, shapes


def model_parameters(model) -> dict:
    """The parameters of a model at the values it is made with: key -> Parameter or ShapeParameter.

    Surfaces are not searched (their bodies are).
    """
    found: dict = {}
    for body in model.bodies:
        collect(body._given, found)
        collect([(args, kwargs) for _, args, kwargs in body._calls], found)
        for shape in body._shapes:
            found[shape.key] = shape
    for pair in model.contacts + model.ties:
        collect({f.name: getattr(pair, f.name) for f in dataclasses.fields(pair)
                 if not isinstance(getattr(pair, f.name), SurfaceRef)}, found)
    return found


def replay_body(body, scalars: dict, shapes: dict):
    """``body`` made again with parameter values ``scalars`` and shape values ``shapes`` (by key)."""
    given = body._given
    mesh = body.part.mesh
    own = [s.at(shapes[s.key]) if s.key in shapes else s for s in body._shapes]
    if own:
        n = body._base_coordinates.shape[1]
        coords = body._base_coordinates + sum(s.motion(s.value, n) for s in own)
        mesh = dataclasses.replace(mesh, doflocs=coords)
    new = type(body)(given["name"], mesh, body.part.element, substitute(given["material"], scalars),
               initial_velocity=substitute(given["initial_velocity"], scalars))
    new._base_coordinates = body._base_coordinates
    new._shapes = own
    labels = body._labels
    for name, args, kwargs in body._calls:
        args = tuple(labels.get(id(a), a) if callable(a) else a for a in args)
        kwargs = {k: labels.get(id(v), v) if callable(v) and k == "where" else v
                  for k, v in kwargs.items()}
        getattr(new, name)(*substitute(args, scalars), **substitute(kwargs, scalars))
    return new


def rebuild_model(model, values: dict):
    """``model`` made again with the parameter values ``values`` (see :meth:`fecontact.Model.with_values`)."""
    scalars, shapes = split_values(values)
    bodies = {id(b): replay_body(b, scalars, shapes) for b in model.bodies}

    def surface(obj):
        if isinstance(obj, SurfaceRef):
            return bodies[id(obj.body)].surface(obj.boundary)
        return None

    pairs = [substitute(c, scalars, surface) for c in model.contacts + model.ties]
    return type(model)([bodies[id(b)] for b in model.bodies], pairs)


def shape_parameter(self, where, *, direction="normal", extension: str = "harmonic",
                    name: str | None = None) -> ShapeParameter:
    """The shape of a boundary as a parameter: one number per node, its motion along ``direction``.

    The nodes of the boundary move by ``s_i d_i`` and the rest of the body
    by the harmonic extension of that motion (zero on the rest of the
    boundary), see :mod:`fecontact.sensitivity.shapes`.  The body is made
    with ``s = 0``; :meth:`fecontact.Model.with_values` makes the model
    with other values, and :meth:`fecontact.Solution.gradient` gives one
    derivative per node.

    Parameters
    ----------
    where : str or callable
        The boundary (see :meth:`boundary`).
    direction : "normal" or sequence of float
        The outward unit normal at each node, or one fixed direction
        (``(0, 1)``: the nodes move along y).
    extension : {"harmonic", "none"}
        How the interior follows.
    name : str, optional
        Default ``"<body>.<boundary>"``.

    Returns
    -------
    ShapeParameter

    Raises
    ------
    ValueError
        On a body of quadratic elements.
    """
    if self.part.has_edge_nodes:
        raise ValueError(f"body {self.name!r}: shape parameters need linear elements (P1, Q1), "
                         f"not {self.part.element!r}")
    label = self.boundary(where, name)
    mesh = dataclasses.replace(self.part.mesh, doflocs=self._base_coordinates)
    param = ShapeParameter.on(mesh, self.name, label, self.part.facets(label), direction,
                              extension, name)
    self._shapes.append(param)
    return param
