"""Case files: declarative TOML, dotted-path overrides and validation.

A case is read into plain dicts, ``--set key.path=value`` overrides are
applied, and the result is checked against :data:`SCHEMA` before anything is
built.  Every problem is reported as one :class:`CaseError` line naming the
file and the key.
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
import tomllib
from pathlib import Path

NUMBER, STRING, BOOL, ARRAY, TABLE = "number", "string", "boolean", "array", "table"
# arrays with typed entries: of finite numbers (vectors, levels), of names, of [t, a] pairs
NUMBERS, NAMES, PAIRS = "array of numbers", "array of names", "array of [t, a] pairs"
#: What a case ``name`` may be: it names the output files (``NAME.pvd``) inside the output folder
CASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: Largest magnitude of a number in a case file (beyond it a float overflows)
NUMBER_LIMIT = 1e300

_AMPLITUDE = PAIRS
_BC = {"boundary": STRING, "point": NUMBERS, "component": STRING, "components": NAMES,
       "value": NUMBER, "amplitude": _AMPLITUDE, "name": STRING}
SCHEMA = {
    "name": STRING,
    "description": STRING,
    "bodies": [{
        "name": STRING,
        "element": STRING,
        "mesh": TABLE,                      # checked against the generator's parameters
        "material": {"E": NUMBER, "nu": NUMBER, "model": STRING, "density": NUMBER},
        "materials": TABLE,                 # subdomain name -> material table
        "body_force": NUMBERS,
        "initial_velocity": NUMBERS,
        "spring": [{"boundary": STRING, "component": STRING, "stiffness": NUMBER,
                    "damping": NUMBER, "anchor_offset": NUMBER, "anchor_velocity": NUMBER,
                    "name": STRING}],
        "dirichlet": [_BC],
        "coupling": [{"boundary": STRING, "component": STRING, "force": NUMBER,
                      "amplitude": _AMPLITUDE, "name": STRING}],
        "traction": [{"boundary": STRING, "value": NUMBERS, "amplitude": _AMPLITUDE}],
        "pressure": [{"boundary": STRING, "value": NUMBER, "amplitude": _AMPLITUDE}],
    }],
    "contact": [{
        "name": STRING,
        "slave": {"body": STRING, "boundary": STRING},
        "master": {"body": STRING, "boundary": STRING, "obstacle": STRING, "point": NUMBERS,
                   "normal": NUMBERS, "center": NUMBERS, "radius": NUMBER, "inside": BOOL,
                   "displacement": NUMBERS, "amplitude": _AMPLITUDE},
        "friction": {"law": STRING, "mu": NUMBER, "mu_s": NUMBER, "mu_k": NUMBER,
                     "dc": NUMBER, "eps_v": NUMBER},
        "c_n": NUMBER, "c_t": NUMBER, "augmentation_factor": NUMBER,
        "formulation": STRING, "two_pass": BOOL, "enforcement": STRING, "penalty_factor": NUMBER,
        "penetration_tolerance": NUMBER,
    }],
    "tie": [{
        "name": STRING,
        "slave": {"body": STRING, "boundary": STRING},
        "master": {"body": STRING, "boundary": STRING},
        "coverage_tolerance": NUMBER,
    }],
    "steps": {"count": NUMBER, "t_end": NUMBER, "levels": NUMBERS},
    "dynamics": {"integrator": STRING, "rho_inf": NUMBER, "dt": NUMBER, "t_end": NUMBER,
                 "initial": STRING, "contact_mass": STRING, "project_velocities": BOOL,
                 "output_every": NUMBER},
    "solver": {"backend": STRING, "tolerance": NUMBER, "max_iterations": NUMBER,
               "max_cutbacks": NUMBER, "max_backtracks": NUMBER, "max_closing": NUMBER},
    "output": {"vtu": BOOL},
    "reference": {"type": STRING, "contact": STRING, "radius": NUMBER, "center_x": NUMBER,
                  "center": NUMBERS, "axis": NUMBERS, "direction": NUMBERS, "stress": ARRAY,
                  "spring": STRING, "springs": NAMES, "contacts": NAMES, "after": NUMBER},
}


class CaseError(Exception):
    """A problem with a case file, reported as one line."""


def _type_name(value) -> str:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, list):
        return ARRAY
    if isinstance(value, dict):
        return TABLE
    return type(value).__name__


def _check(data, schema, where: str, source: str) -> None:
    if isinstance(schema, list):
        if not isinstance(data, list):
            raise CaseError(f"{source}: '{where}' must be an array of tables, got {_type_name(data)}")
        for i, item in enumerate(data):
            _check(item, schema[0], f"{where}.{i}", source)
        return
    if isinstance(schema, dict):
        if not isinstance(data, dict):
            raise CaseError(f"{source}: '{where}' must be a table, got {_type_name(data)}")
        for key, value in data.items():
            path = f"{where}.{key}" if where else key
            if key not in schema:
                close = difflib.get_close_matches(key, list(schema), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise CaseError(f"{source}: unknown key '{path}'{hint}")
            _check(value, schema[key], path, source)
        return
    if schema in (NUMBERS, NAMES, PAIRS):
        _check_entries(data, schema, where, source)
        return
    got = _type_name(data)
    if got != schema:
        raise CaseError(f"{source}: '{where}' must be a {schema}, got {got} {_short(data)}")
    if got == NUMBER:
        _check_number(data, where, source)


def _short(value) -> str:
    """``repr`` of a value, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_number(value, where: str, source: str) -> None:
    """A finite number of at most :data:`NUMBER_LIMIT` in magnitude (no float overflow)."""
    if isinstance(value, int) and abs(value) > NUMBER_LIMIT:
        raise CaseError(f"{source}: '{where}' is out of range (|value| > {NUMBER_LIMIT:g}), "
                        f"got {_short(value)}")
    if not math.isfinite(value):
        raise CaseError(f"{source}: '{where}' must be a finite number, got {value!r}")
    if abs(value) > NUMBER_LIMIT:
        raise CaseError(f"{source}: '{where}' is out of range (|value| > {NUMBER_LIMIT:g}), "
                        f"got {value!r}")


def _check_entries(data, kind: str, where: str, source: str) -> None:
    """An array whose entries are finite numbers, names, or ``[t, a]`` pairs of numbers."""
    if not isinstance(data, list):
        raise CaseError(f"{source}: '{where}' must be an {kind}, got {_type_name(data)} {_short(data)}")
    for i, item in enumerate(data):
        if kind == NAMES:
            if not isinstance(item, str):
                raise CaseError(f"{source}: '{where}' must be an {kind}, entry {i} is "
                                f"{_type_name(item)} {_short(item)}")
            continue
        entries = item if kind == PAIRS else [item]
        if kind == PAIRS and not (isinstance(item, list) and len(item) == 2):
            raise CaseError(f"{source}: '{where}' must be an {kind}, entry {i} is {_short(item)}")
        for value in entries:
            if _type_name(value) != NUMBER:
                raise CaseError(f"{source}: '{where}' must be an {kind}, entry {i} holds "
                                f"{_type_name(value)} {_short(value)}")
            _check_number(value, f"{where}.{i}", source)


def check_mesh_table(mesh: dict, where: str, source: str) -> None:
    """Mesh tables hold either ``file`` or ``generator`` plus its parameters."""
    from ..mesh import GENERATORS

    if "file" in mesh:
        extra = sorted(set(mesh) - {"file"})
        if extra:
            raise CaseError(f"{source}: '{where}.{extra[0]}' is not allowed beside '{where}.file'")
        return
    if "generator" not in mesh:
        raise CaseError(f"{source}: '{where}' needs 'file' or 'generator'")
    gen = mesh["generator"]
    if gen not in GENERATORS:
        raise CaseError(f"{source}: '{where}.generator' = {gen!r} is unknown; "
                        f"choose one of {', '.join(sorted(GENERATORS))}")
    params = inspect.signature(GENERATORS[gen]).parameters
    for key in mesh:
        if key != "generator" and key not in params:
            close = difflib.get_close_matches(key, list(params), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise CaseError(f"{source}: unknown key '{where}.{key}' for generator {gen!r}{hint}")


def parse_value(text: str):
    """Parse an override value as a TOML literal (number, bool, array, string)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(data: dict, assignment: str, source: str) -> None:
    """Apply ``key.path=value`` (array entries by index: ``bodies.0.material.E=2e4``).

    ``friction.KEY=value`` sets ``KEY`` in the friction table of every contact pair.
    """
    if "=" not in assignment:
        raise CaseError(f"--set {assignment!r}: expected key.path=value")
    path, text = assignment.split("=", 1)
    if path.strip().startswith("friction."):
        for k in range(len(data.get("contact", []))):
            apply_override(data, f"contact.{k}.{assignment.strip()}", source)
        return
    keys = path.strip().split(".")
    node = data
    for i, key in enumerate(keys[:-1]):
        here = ".".join(keys[: i + 1])
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                raise CaseError(f"--set {path}: '{here}' is not an index of the array")
            node = node[int(key)]
        elif isinstance(node, dict):
            node = node.setdefault(key, {})     # new tables are checked by the schema
        else:
            raise CaseError(f"--set {path}: '{here}' is not a table in '{source}'")
    last = keys[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise CaseError(f"--set {path}: '{last}' is not an index of the array")
        node[int(last)] = parse_value(text.strip())
    elif isinstance(node, dict):
        node[last] = parse_value(text.strip())
    else:
        raise CaseError(f"--set {path}: '{'.'.join(keys[:-1])}' is not a table")


def load_case(path, overrides=()) -> dict:
    """Read, override and validate a case file.

    Returns the case as a dict with ``_path`` (the file) and ``_dir`` (its
    folder, for relative mesh paths) added.
    """
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise CaseError(f"{source}: case file not found")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise CaseError(f"{source}: TOML syntax error: {err}") from None
    except UnicodeDecodeError:
        raise CaseError(f"{source}: not a text (UTF-8) file") from None
    for assignment in overrides:
        apply_override(data, assignment, source)
    _check(data, SCHEMA, "", source)
    if "name" in data and not CASE_NAME.fullmatch(data["name"]):
        raise CaseError(f"{source}: 'name' = {_short(data['name'])} names the output files, so it "
                        f"must be a plain file name: letters, digits, '.', '_' or '-', at most 100 "
                        f"characters, starting with a letter or digit (no paths)")
    for key in ("bodies", "contact"):
        if key not in data:
            raise CaseError(f"{source}: missing required table '{key}'")
    if "dynamics" in data and "steps" in data:
        raise CaseError(f"{source}: 'steps' (quasi-static load steps) and 'dynamics' (time "
                        f"integration) exclude each other; a dynamic case sets dynamics.dt and "
                        f"dynamics.t_end")
    if "dynamics" not in data and "steps" not in data:
        raise CaseError(f"{source}: missing required table 'steps' (or 'dynamics')")
    names = []
    for i, body in enumerate(data["bodies"]):
        for key in ("name", "mesh", "element"):
            if key not in body:
                raise CaseError(f"{source}: 'bodies.{i}' needs '{key}'")
        if ("material" in body) == ("materials" in body):
            raise CaseError(f"{source}: 'bodies.{i}' needs 'material' (one material) or "
                            f"'materials' (one per mesh region), not both")
        check_mesh_table(body["mesh"], f"bodies.{i}.mesh", source)
        names.append(body["name"])
    data["_path"] = source
    data["_dir"] = str(path.parent)
    return data
