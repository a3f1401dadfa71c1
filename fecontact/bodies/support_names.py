"""Names of supports and couplings: unique per body, ``body.support`` where bodies share one.

A support (a Dirichlet condition) or a coupling is named by its boundary
(``Body.fix("flat")``) or by the user.  Two bodies read from Gmsh files can
both have a group ``flat``; their supports are then distinct, and a name
alone no longer says which one is meant.  The rules:

* results are kept per ``(body, support)`` key;
* a support name used on one body only is shown (in ``summary.json``) and
  looked up by that name alone, as before;
* a name used on several bodies is shown as ``body.support`` for each of
  them, and looked up by that qualified name; the name alone is refused
  with an error naming the bodies (never the sum of their reactions).

>>> keys = [("upper", "flat"), ("lower", "flat"), ("lower", "side")]
>>> display_names(keys)
{('upper', 'flat'): 'upper.flat', ('lower', 'flat'): 'lower.flat', ('lower', 'side'): 'side'}
>>> find_name("side", keys), find_name("lower.flat", keys)
(('lower', 'side'), ('lower', 'flat'))
>>> find_name("flat", keys)
Traceback (most recent call last):
...
KeyError: "support 'flat' exists on bodies 'upper' and 'lower'; use 'upper.flat' or 'lower.flat'"
"""

from __future__ import annotations

import numpy as np


def _bodies_by_name(keys) -> dict:
    """``{support name: [body names in order of first use]}``."""
    out: dict = {}
    for body, name in keys:
        bodies = out.setdefault(name, [])
        if body not in bodies:
            bodies.append(body)
    return out


def display_names(keys) -> dict:
    """The name under which each ``(body, support)`` key is reported.

    Parameters
    ----------
    keys : iterable of (str, str)
        ``(body name, support name)`` pairs.

    Returns
    -------
    dict
        ``{(body, name): name}`` when ``name`` is used on one body only,
        else ``{(body, name): "body.name"}``; in the order of ``keys``.
    """
    keys = list(dict.fromkeys(keys))
    shared = {name for name, bodies in _bodies_by_name(keys).items() if len(bodies) > 1}
    return {(body, name): f"{body}.{name}" if name in shared else name for body, name in keys}


def _spoken(items: list, last: str) -> str:
    quoted = [repr(x) for x in items]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {last} {quoted[-1]}"


def find_name(name: str, keys, what: str = "support") -> tuple:
    """The ``(body, support)`` key a name addresses: ``"flat"`` or ``"upper.flat"``.

    Parameters
    ----------
    name : str
        A support name used on one body, or ``"<body>.<support>"``.
    keys : iterable of (str, str)
        The ``(body name, support name)`` keys there are.
    what : str
        What the names are, for the error messages ("support", "coupling").

    Returns
    -------
    (str, str)

    Raises
    ------
    KeyError
        One line: the name is on several bodies (naming them and the
        qualified names to use), or on none (listing the names there are).
    """
    keys = list(dict.fromkeys(keys))
    bodies = _bodies_by_name(keys).get(name, [])
    if len(bodies) == 1:
        return bodies[0], name
    if len(bodies) > 1:
        raise KeyError(f"{what} {name!r} exists on bodies {_spoken(bodies, 'and')}; use "
                       f"{_spoken([f'{b}.{name}' for b in bodies], 'or')}")
    for body, support in keys:
        if f"{body}.{support}" == name:
            return body, support
    known = ", ".join(display_names(keys).values()) or "(none)"
    raise KeyError(f"no {what} {name!r}; {what}s: {known}")


def support_reactions(system, residual_full: np.ndarray) -> dict:
    """Total reaction of each support of each body, by ``(body name, support name)``.

    With ``residual_full = K u - f - f_contact``, equilibrium ``K u = f +
    f_contact + r`` makes ``residual_full`` at a constrained DOF the force
    ``r`` the support exerts on the body; a support's reaction is the sum
    over its DOFs, per component (a DOF held by two conditions of the same
    name counts once).

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
        Its ``dirichlet`` conditions, ``bodies`` and DOF numbering.
    residual_full : ndarray, shape (n,)

    Returns
    -------
    dict
        ``{(body name, support name): ndarray shape (3,)}`` (components past
        ``dim`` are 0), in the order of the conditions.
    """
    return {key: np.bincount(d % system.dim, weights=residual_full[d], minlength=3)
            for key, d in support_dofs(system).items()}


def support_dofs(system) -> dict:
    """The constrained DOFs of each support of each body, by ``(body name, support name)``.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem

    Returns
    -------
    dict
        ``{(body name, support name): ndarray of int}`` (sorted, each DOF
        once), in the order of the conditions.
    """
    dofs_by_key: dict = {}
    for bc in system.dirichlet:
        dofs = system.node_dofs(system.global_nodes(bc.body, bc.nodes))[:, list(bc.components)]
        key = (system.bodies[bc.body].name, bc.name)
        dofs_by_key.setdefault(key, []).append(dofs.ravel())
    return {key: np.unique(np.concatenate(parts)) for key, parts in dofs_by_key.items()}


def named_reactions(system, residual_full: np.ndarray) -> dict:
    """Total reaction per support under its reported name (:func:`display_names`), as lists.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
    residual_full : ndarray, shape (n,)

    Returns
    -------
    dict
        ``{name: [fx, fy, fz]}`` (``summary.json``'s ``reaction``).
    """
    table = support_reactions(system, residual_full)
    names = display_names(table)
    return {names[key]: value.tolist() for key, value in table.items()}


def named_coupling_displacements(system, u: np.ndarray) -> dict:
    """The common displacement component of each coupling's nodes, under its reported name.

    Couplings of one body sharing a name report the mean; couplings of
    several bodies sharing a name are reported as ``body.name`` each.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
    u : ndarray, shape (n,)
        Full displacement.

    Returns
    -------
    dict
        ``{name: displacement}``.
    """
    values: dict = {}
    for cp in system.couplings:
        dofs = system.node_dofs(system.global_nodes(cp.body, cp.nodes))[:, cp.component]
        values.setdefault((system.bodies[cp.body].name, cp.name), []).append(float(np.mean(u[dofs])))
    names = display_names(values)
    return {names[key]: float(np.mean(v)) for key, v in values.items()}
