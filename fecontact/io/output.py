"""Results on disk: one VTU per step, a ParaView ``.pvd`` index and ``summary.json``.

Point data (all bodies merged into one unstructured grid, vectors padded to 3
components):

``displacement``
    (n, 3).
``contact_pressure``
    Normal traction ``lam_n`` (force per area, >= 0 in compression), 0 off the
    contact surfaces.
``contact_traction``
    (n, 3) traction exerted on the slave surface by the master,
    ``lam_n n + lam_t tau``.
``contact_normal``
    (n, 3) unit normal of the master at each slave node's projection,
    pointing from the master towards the slave (0 off the contact surfaces).
``contact_tangent1``, ``contact_tangent2``
    (n, 3) the directions of the tangential traction components (the slip
    directions of the increment that produced the state); ``contact_tangent2``
    in 3D only.
``contact_shear1``, ``contact_shear2``
    Signed tangential traction along ``contact_tangent1`` and
    ``contact_tangent2`` (force per area, as Abaqus' CSHEAR1/CSHEAR2);
    ``contact_shear2`` in 3D only.
``friction_utilisation``
    ``|lam_t| / (mu_s lam_n)``: the share of the static friction capacity a
    node uses (1 at a sliding Coulomb node, ``mu_k / mu_s`` at a node sliding
    under static/kinetic friction); 0 where the node carries no pressure or
    its pair is frictionless.
``gap``
    Normal gap at slave nodes (0 elsewhere).
``slip``
    (n, 3) accumulated slip vector.
``contact_status``
    0 open, 1 stick, 2 slip (0 off the contact surfaces).
``friction_state``
    State of the friction law for the next increment: 0 stuck (or not in
    contact), 1 sliding, 2 re-stuck after sliding (static/kinetic law).
``von_mises``
    Von Mises stress, element means averaged at the nodes (plane strain
    includes ``sigma_zz``).
``body``
    Index of the body the node belongs to.
``slave``
    1 at slave (contact) nodes, 0 elsewhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.sax.saxutils import quoteattr

import meshio
import numpy as np

from ..bodies.elasticity import body_von_mises
from ..solve.problem import ContactProblem
from ..solve.state import StepState
from .atomic import replacing, write_text

def _pad3(a: np.ndarray) -> np.ndarray:
    out = np.zeros((a.shape[0], 3))
    out[:, : a.shape[1]] = a
    return out


def slave_global_nodes(problem: ContactProblem) -> np.ndarray:
    """Global DOF node of every contact unknown (slave node), shape (m,)."""
    sysm = problem.system
    parts = [sysm.global_nodes(p.slave.body, p.slave.nodes) for p in problem.pairs]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=int)


def point_data(problem: ContactProblem, state: StepState) -> dict:
    """All point-data arrays of a state, in global DOF-node order."""
    dim = problem.dim
    n_nodes = problem.X.shape[1]
    nodes = slave_global_nodes(problem)
    pressure = np.zeros(n_nodes)
    traction = np.zeros((n_nodes, 3))
    gap = np.zeros(n_nodes)
    slip = np.zeros((n_nodes, 3))
    status = np.zeros(n_nodes, dtype=np.int32)
    friction = np.zeros(n_nodes, dtype=np.int32)
    # a node in several pairs keeps the last pair's values
    pressure[nodes] = state.multiplier[:, 0]
    traction[nodes] = _pad3(state.traction())
    gap[nodes] = state.gap
    slip[nodes] = _pad3(state.slip)
    status[nodes] = state.status
    friction[nodes] = state.friction
    normal = np.zeros((n_nodes, 3))
    normal[nodes] = _pad3(state.normal)
    shear = {}
    for a in range(dim - 1):
        direction = np.zeros((n_nodes, 3))
        direction[nodes] = _pad3(state.multiplier_basis[:, a])
        component = np.zeros(n_nodes)
        component[nodes] = state.multiplier[:, 1 + a]
        shear[f"contact_tangent{a + 1}"] = direction
        shear[f"contact_shear{a + 1}"] = component
    utilisation = np.zeros(n_nodes)
    utilisation[nodes] = friction_utilisation(problem, state)
    sysm = problem.system
    vm = np.concatenate([body_von_mises(b, state.u[sysm.body_dofs(i)])
                         for i, b in enumerate(sysm.bodies)])
    body = np.repeat(np.arange(len(sysm.bodies), dtype=np.int32), np.diff(sysm.node_offset))
    slave = np.zeros(n_nodes, dtype=np.int32)
    slave[nodes] = 1
    return {"displacement": _pad3(state.u.reshape(-1, dim)), "contact_pressure": pressure,
            "contact_traction": traction, "contact_normal": normal, **shear,
            "friction_utilisation": utilisation, "gap": gap, "slip": slip,
            "contact_status": status, "friction_state": friction, "von_mises": vm, "body": body,
            "slave": slave}


def friction_utilisation(problem: ContactProblem, state: StepState) -> np.ndarray:
    """``|lam_t| / (mu_s lam_n)`` of every slave node, shape (m,).

    ``mu_s`` is the static coefficient of the node's pair
    (:attr:`fecontact.friction.base.FrictionLaw.static`); nodes without
    pressure, or of frictionless pairs, get 0.
    """
    static = np.concatenate([np.full(p.n_nodes, p.friction.static) for p in problem.pairs]) \
        if problem.pairs else np.zeros(0)
    capacity = static * state.multiplier[:, 0]
    shear = np.linalg.norm(state.multiplier[:, 1:], axis=1)
    return np.divide(shear, capacity, out=np.zeros_like(shear), where=capacity > 0.0)


def write_vtu(path: Path, problem: ContactProblem, state: StepState,
              extra: dict | None = None) -> None:
    """One VTU of all bodies; ``extra`` adds point data, nodal vectors (n_nodes, dim) padded to 3."""
    mesh = to_meshio(problem, state, extra)
    with replacing(path) as tmp:                  # whole or absent, even if the process is killed
        meshio.write(str(tmp), mesh, file_format="vtu")


def to_meshio(problem: ContactProblem, state: StepState, extra: dict | None = None) -> meshio.Mesh:
    """All bodies with every point-data field of :func:`point_data` (and ``extra``) as a meshio mesh."""
    sysm = problem.system
    points = _pad3(problem.X.T)
    cells = []
    for b, body in enumerate(sysm.bodies):
        cell = body.kind.cell(body.dim)              # VTK cell type and node order of the kind
        cells.append((cell.vtk, cell.connectivity(body.mesh).T + sysm.node_offset[b]))
    data = point_data(problem, state)
    for key, value in (extra or {}).items():
        data[key] = _pad3(value) if value.ndim == 2 else value
    return meshio.Mesh(points, cells, point_data=data)


def write_pvd(path: Path, entries: list) -> None:
    """ParaView collection: ``entries`` of (time, file name relative to the .pvd)."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
             "  <Collection>"]
    for t, name in entries:
        lines.append(f'    <DataSet timestep="{t:.12g}" group="" part="0" file={quoteattr(name)}/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    write_text(path, "\n".join(lines))


def write_summary(path: Path, summary: dict, cache: dict | None = None) -> None:
    """Write ``summary`` as indented JSON, each step entry and each time series on one line.

    ``cache`` (a dict kept by the caller between calls) holds the JSON text
    of ``summary["steps"]`` (one entry per step) and of the values of
    ``summary["time_series"]`` (one entry per value): both only ever grow at
    the end, and a run rewrites the file after every output step, so
    re-encoding them each time made long runs quadratic.  The text is the
    same as without the cache.
    """
    cache = {} if cache is None else cache
    parts = {}
    steps = summary.get("steps")
    if steps:
        encoded = cache.setdefault("steps", [])
        del encoded[len(steps):]
        for step in steps[len(encoded):]:
            encoded.append("    " + json.dumps(step, default=_json_default))
        parts["steps"] = "[\n" + ",\n".join(encoded) + "\n  ]"
    if summary.get("time_series"):
        parts["time_series"] = _growing(summary["time_series"], cache.setdefault("series", {}), (), 1)
    marks = {key: f"\x00{key}\x00" for key in parts}
    head = json.dumps({**summary, **marks}, indent=2, default=_json_default)
    pieces = re.split("(" + "|".join(re.escape(json.dumps(m)) for m in marks.values()) + ")",
                      head) if marks else [head]
    bodies = {json.dumps(marks[key]): body for key, body in parts.items()}
    with replacing(path) as tmp, open(tmp, "w") as stream:     # no copy of the whole text
        stream.writelines(bodies.get(piece, piece) for piece in pieces)
        stream.write("\n")


def _growing(value, cache: dict, path: tuple, depth: int) -> str:
    """JSON of nested tables whose leaves are lists that only grow (their items cached by path)."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        pad = "  " * (depth + 1)
        items = [f"{pad}{json.dumps(key)}: {_growing(item, cache, path + (key,), depth + 1)}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list):
        done = cache.setdefault(path, [])
        del done[len(value):]
        done.extend(json.dumps(item, default=_json_default) for item in value[len(done):])
        return "[" + ", ".join(done) + "]"
    return json.dumps(value, default=_json_default)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


