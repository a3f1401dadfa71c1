"""Case files: declarative TOML, dotted-path overrides and validation against the typed schema.

A case is read into plain dicts, ``--set key.path=value`` overrides are
applied, and the result is converted to the typed schema
(:class:`fecontact.case.types.CaseFile`, msgspec structs) before anything is
built: keys, types, ranges, array lengths, cross-field rules and the memory
a generated mesh would need.  Every problem is reported as one
:class:`CaseError` line naming the file and the dotted key.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path

import msgspec
from msgspec import inspect as mi

from ..fields import phrase, short
from ..mesh.elements import element_kind
from .meshes import BYTES_PER_DOF, MESH_TABLES, memory_bytes, mesh_dimension, mesh_estimate
from .types import CaseFile, case_file

#: Largest number of nested tables or arrays a case file may have
MAX_DEPTH = 12
_LOCATION = re.compile(r"^(.*) - at `\$(.*)`$", re.S)


class CaseError(Exception):
    """A problem with a case file, reported as one line."""


def _parts(location: str) -> list:
    """``.bodies[0].material.E`` as ``["bodies", 0, "material", "E"]`` (``[...]``: a table's entry)."""
    return [... if p == "[...]" else int(p[1:-1]) if p.startswith("[") else p
            for p in re.findall(r"\[\.\.\.\]|\[\d+\]|[^.\[\]]+", location)]


def _resolve(data, parts) -> list:
    """``parts`` with each ``...`` (msgspec does not name table keys) replaced by the bad key."""
    out, node = [], data
    for i, part in enumerate(parts):
        if part is ... and isinstance(node, dict):
            kinds = [t.cls for t in _types_at(out + [next(iter(node), "")])
                     if isinstance(t, mi.StructType)]
            part = next(iter(node), "?")
            for key, value in node.items():
                try:
                    for kind in kinds:
                        msgspec.convert(value, kind, strict=True)
                except msgspec.ValidationError:
                    part = key
                    break
        out.append(part)
        node = _value_at(node, [part])
    return out


def _value_at(data, parts):
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return msgspec.UNSET
    return data


def _unwrap(info):
    """The struct, literal or container types behind Metadata and ``| UNSET`` unions."""
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        return [t for member in info.types for t in _unwrap(member)]
    return [info]


def _types_at(parts) -> list:
    """The schema types at a path into a case (several where a union is open)."""
    here = [mi.type_info(case_file())]
    for part in parts:
        nxt = []
        for info in (t for h in here for t in _unwrap(h)):
            if isinstance(info, mi.StructType):
                nxt += [f.type for f in info.fields if f.encode_name == part]
            elif isinstance(info, (mi.ListType, mi.TupleType, mi.VarTupleType)):
                nxt += [getattr(info, "item_type", None) or info.item_types[part]]
            elif isinstance(info, mi.DictType):
                nxt.append(info.value_type)
        here = nxt
    return [t for h in here for t in _unwrap(h)]


def _field_names(parts) -> list:
    return sorted({f.encode_name for t in _types_at(parts) if isinstance(t, mi.StructType)
                   for f in t.fields})


def _message(err: msgspec.ValidationError, data: dict, source: str) -> str:
    """One line naming the file and the dotted key of a schema violation."""
    match = _LOCATION.match(str(err))
    text, location = (match.groups() if match else (str(err), ""))
    parts = _resolve(data, _parts(location))
    own = text.startswith("@")             # a cross-field rule naming its own key
    if own:
        sub, _, text = text[1:].partition(" ")
        parts = parts + _parts("." + sub)
    key = ".".join(str(p) for p in parts)
    value = _value_at(data, parts)
    unknown = re.match(r"Object contains unknown field `(.*)`", text)
    if unknown:
        name = unknown.group(1)
        close = difflib.get_close_matches(name, _field_names(parts), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return f"{source}: unknown key '{key + '.' if key else ''}{name}'{hint}"
    missing = re.match(r"Object missing required field `(.*)`", text)
    if missing:
        name = missing.group(1)
        if name == "generator":
            return f"{source}: '{key}' needs 'file' or 'generator'"
        return f"{source}: '{key}' needs '{name}'" if key else f"{source}: missing required table '{name}'"
    if text.startswith("Invalid enum value") or text.startswith("Invalid value"):
        if parts and parts[-1] == "generator":
            choices = [t.__struct_config__.tag for t in MESH_TABLES if t.__struct_config__.tag != "file"]
        else:
            choices = [v for t in _types_at(parts) if isinstance(t, mi.LiteralType) for v in t.values]
        return f"{source}: '{key}' = {short(value)} is unknown; choose one of {', '.join(map(str, choices))}"
    if text.startswith("Expected `str` matching regex"):
        return (f"{source}: '{key}' = {short(value)} names the output files, so it must be a plain "
                f"file name: letters, digits, '.', '_' or '-', at most 100 characters, starting "
                f"with a letter or digit (no paths)")
    if own:
        return f"{source}: '{key}' {text}"
    if text.startswith("Expected") or text == "Number out of range":
        return f"{source}: {repr(key) if key else 'the case'} {phrase(text, value)}"
    return f"{source}: '{key}': {text}" if key else f"{source}: {text}"


def _depth(value, limit: int) -> int:
    """Nesting depth of tables and arrays, counted up to ``limit + 1``."""
    if limit < 0 or not isinstance(value, (dict, list)):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(v, limit - 1) for v in items), default=0)


def _check_memory(case: CaseFile, source: str) -> None:
    """Refuse generated meshes whose solve cannot fit in this machine's memory."""
    total, available = 0.0, memory_bytes()
    for i, body in enumerate(case.bodies):
        estimate = mesh_estimate(body.mesh)
        if estimate is None:
            continue
        elements, dofs = estimate
        dofs *= element_kind(body.element).cell(mesh_dimension(body.mesh)).nodes_per_vertex
        total += dofs
        if total * BYTES_PER_DOF > available:
            raise CaseError(
                f"{source}: 'bodies.{i}.mesh' would make about {elements:.3g} elements "
                f"({dofs:.3g} DOFs{', with the bodies before it ' + format(total, '.3g') if total > dofs else ''}), "
                f"needing about {total * BYTES_PER_DOF / 2**30:.3g} GB to solve, more than this "
                f"machine's {available / 2**30:.3g} GB of memory")


def validate_case(data: dict, source: str) -> CaseFile:
    """The typed case of a dict read from a case file, or a :class:`CaseError` naming the key.

    Parameters
    ----------
    data : dict
        As read by :mod:`tomllib` (after overrides).
    source : str
        The case file, for the message.

    Returns
    -------
    fecontact.case.types.CaseFile
    """
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise CaseError(f"{source}: tables or arrays nested more than {MAX_DEPTH} deep")
    for body in data.get("bodies", []) if isinstance(data.get("bodies"), list) else []:
        mesh = body.get("mesh") if isinstance(body, dict) else None
        if isinstance(mesh, dict) and "file" in mesh and "generator" not in mesh:
            mesh["generator"] = "file"          # the tag of a mesh file table
    try:
        case = msgspec.convert(data, case_file(), strict=True)
    except msgspec.ValidationError as err:
        raise CaseError(_message(err, data, source)) from None
    _check_memory(case, source)
    return case


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

    Parameters
    ----------
    path : str or Path
        The case file (TOML).
    overrides : sequence of str
        ``key.path=value`` assignments applied before the validation (the
        command line's ``--set``); array entries by index, ``contact.0.name``.

    Returns
    -------
    dict
        The case, with ``_path`` (the file) and ``_dir`` (its folder, for
        relative mesh paths) added.

    Raises
    ------
    CaseError
        One line naming the file and the key of the first problem found.

    Examples
    --------
    >>> import fecontact as fc
    >>> case = fc.load_case("cases/patch2d.toml", overrides=["steps.count=2"])
    >>> case["name"], [body["name"] for body in case["bodies"]], case["steps"]["count"]
    ('patch2d', ['lower', 'upper'], 2)
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
    except RecursionError:
        raise CaseError(f"{source}: tables or arrays nested more than {MAX_DEPTH} deep") from None
    for assignment in overrides:
        apply_override(data, assignment, source)
    data = msgspec.to_builtins(validate_case(data, source))
    data["_path"] = source
    data["_dir"] = str(path.parent)
    return data
