"""The typed case-file schema: every field refuses ill-typed, out-of-range, non-finite and oversized values.

The fields are enumerated from the schema itself (every key of every table
a rich valid case holds), so a field added later is covered without a new
test.  Each bad value must give one :class:`CaseError` line that names the
file and the field's dotted key; the command line must exit 2 with that
line before anything is built.
"""

import copy
import json
import math
from collections import Counter
from pathlib import Path
from typing import Union

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fecontact.case.meshes import MESH_TABLES, mesh_estimate
from fecontact.case.schema import CaseError, validate_case
from fecontact.case.types import CaseFile, case_schema
from fecontact.cli import EXIT_INPUT, main
from fecontact.mesh import GENERATORS

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "rich.toml"
RECT = {"generator": "rectangle", "x0": 0.0, "x1": 1.0, "y0": 0.0, "y1": 0.5, "nx": 4, "ny": 2,
        "element": "quad", "angle": 0.0}
DISC = {"generator": "half_disc", "radius": 1.0, "center": [0.5, 1.6], "side": "lower",
        "h_contact": 0.1, "h_far": 0.3, "refine_width": 0.3, "element": "tri", "grading": 1.3}
AMP = [[0.0, 0.0], [1.0, 1.0]]
#: A valid 2D case that holds every table and (almost) every key
RICH = {
    "name": "rich", "description": "every table",
    "bodies": [
        {"name": "block", "element": "Q1", "mesh": RECT,
         "material": {"E": 100.0, "nu": 0.3, "model": "plane_strain", "density": 1.0},
         "body_force": [0.0, -1.0], "initial_velocity": [0.0, 0.0],
         "spring": [{"boundary": "right", "component": "x", "stiffness": 1.0, "damping": 0.1,
                     "anchor_offset": 0.0, "anchor_velocity": 0.0, "name": "s"}],
         "dirichlet": [{"boundary": "bottom", "components": ["x", "y"], "value": 0.0,
                        "amplitude": AMP, "name": "base"},
                       {"point": [0.0, 0.5], "component": "x"}],
         "coupling": [{"boundary": "left", "component": "x", "force": 1.0, "amplitude": AMP,
                       "name": "c"}],
         "traction": [{"boundary": "top", "value": [0.0, -1.0], "amplitude": AMP}],
         "pressure": [{"boundary": "top", "value": 1.0, "amplitude": AMP}]},
        {"name": "disc", "element": "P1", "mesh": DISC,
         "materials": {"all": {"E": 100.0, "nu": 0.3}}},
    ],
    "contact": [
        {"name": "c0", "slave": {"body": "disc", "boundary": "contact"},
         "master": {"body": "block", "boundary": "top"},
         "friction": {"law": "velocity", "mu_s": 0.4, "mu_k": 0.3, "dc": 1.0},
         "c_n": 1.0, "c_t": 1.0, "augmentation_factor": 1.0, "formulation": "node_to_segment",
         "two_pass": False, "enforcement": "multiplier", "penalty_factor": 1.0,
         "penetration_tolerance": 0.0},
        {"slave": {"body": "block", "boundary": "bottom"},
         "master": {"obstacle": "circle", "center": [0.5, -5.0], "radius": 5.0, "inside": False,
                    "displacement": [0.0, 0.0], "amplitude": AMP},
         "friction": {"law": "ipc", "mu": 0.3, "eps_v": 0.01}},
        {"slave": {"body": "block", "boundary": "left"},
         "master": {"obstacle": "line", "point": [0.0, 0.0], "normal": [1.0, 0.0]}},
    ],
    "tie": [{"name": "t", "slave": {"body": "disc", "boundary": "flat"},
             "master": {"body": "block", "boundary": "top"}, "coverage_tolerance": 0.1}],
    "steps": {"count": 2, "t_end": 1.0, "levels": [0.5, 1.0]},
    "solver": {"backend": "direct", "tolerance": 1e-9, "max_iterations": 30, "max_cutbacks": 6,
               "max_backtracks": 6, "max_closing": 3},
    "output": {"vtu": True},
    "reference": {"type": "hertz_line", "contact": "c0", "radius": 1.0, "center_x": 0.0,
                  "center": [0.0, 0.0], "axis": [0.0, 1.0], "direction": [1.0, 0.0],
                  "stress": [[1.0, 0.0], [0.0, 1.0]], "spring": "s", "springs": ["s"],
                  "contacts": ["c0"], "after": 0.0},
}
RICH_DYNAMIC = {**{k: v for k, v in RICH.items() if k != "steps"},
                "dynamics": {"integrator": "hht", "rho_inf": 0.8, "dt": 0.1, "t_end": 1.0,
                             "initial": "rest", "contact_mass": "consistent",
                             "project_velocities": True, "output_every": 1}}


def _unwrap(info):
    while isinstance(info, mi.Metadata):
        info = info.type
    return info


def _fields(info, data, path):
    """``(dotted path, type)`` of every schema field of the tables ``data`` holds."""
    info = _unwrap(info)
    if isinstance(info, mi.UnionType):              # the mesh: the variant the data holds
        info = next(t for t in info.types if t.cls.__struct_config__.tag == data["generator"])
    if isinstance(info, mi.StructType):
        for field in info.fields:
            key = f"{path}.{field.encode_name}" if path else field.encode_name
            if field.encode_name == "generator":
                continue
            yield key, field.type
            if field.encode_name in data:
                yield from _fields(field.type, data[field.encode_name], key)
    elif isinstance(info, mi.ListType) and data and isinstance(data[0], dict):
        for i, item in enumerate(data):
            yield from _fields(info.item_type, item, f"{path}.{i}")
    elif isinstance(info, mi.DictType):
        for name, item in data.items():
            yield from _fields(info.value_type, item, f"{path}.{name}")


def all_fields():
    seen = {}
    for base in (RICH, RICH_DYNAMIC):
        for key, kind in _fields(mi.type_info(CaseFile), base, ""):
            seen.setdefault(key, (kind, base))
    return seen


FIELDS = all_fields()


def bad_values(kind) -> list:
    """Values of the wrong type, out of range, non-finite or oversized for a field type."""
    info = _unwrap(kind)
    wrong_type = ["text", True, [1.0], {"a": 1.0}]
    if isinstance(info, mi.FloatType):
        out = [v for v in wrong_type if not isinstance(v, (int, float)) or isinstance(v, bool)]
        out += [math.nan, math.inf, -math.inf, 10**400, -(10**400)]
        for bound, step in ((info.gt, 0.0), (info.ge, -1e-3 - abs(info.ge or 0) * 1e-3),
                            (info.lt, 0.0), (info.le, 1e-3 + abs(info.le or 0) * 1e-3)):
            if bound is not None and abs(bound) < 1e300:
                out.append(float(bound + step))
        return out
    if isinstance(info, mi.IntType):
        out = ["text", True, [1], 1.5, math.nan, 10**400]
        if info.ge is not None:
            out.append(info.ge - 1)
        if info.le is not None:
            out.append(info.le + 1)
        return out
    if isinstance(info, mi.StrType):
        out = [1.0, False, ["a"], {"a": "b"}]
        if info.min_length:
            out.append("")
        if info.max_length:
            out.append("x" * (info.max_length + 1))
        if info.pattern:
            out.append("../outside")
        return out
    if isinstance(info, mi.LiteralType):
        return ["no-such-choice", 1.0, ["a"]]
    if isinstance(info, mi.BoolType):
        return ["yes", 1, 0.0, []]
    if isinstance(info, (mi.ListType, mi.TupleType)):
        out = ["text", 1.0, {"a": 1}, [["deep"] * 3] * 2]
        if getattr(info, "min_length", None):
            out.append([])
        if getattr(info, "max_length", None) and info.max_length < 1000:
            out.append([1.0] * (info.max_length + 1))
        return out
    if isinstance(info, mi.DictType):
        return [1.0, "text", [1.0]]
    if isinstance(info, (mi.StructType, mi.UnionType)):
        return [1.0, "text", [1.0], {"no_such_key": 1.0}]
    return ["text", 1.0]


def _set(data, key, value):
    node = data
    parts = key.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[parts[-1]] = value


def _key_of_message(message: str, key: str) -> bool:
    """The message names the field (or an entry of it)."""
    return f"'{key}'" in message or f"'{key}." in message


def test_rich_cases_are_valid():
    for base in (RICH, RICH_DYNAMIC):
        validate_case(copy.deepcopy(base), SOURCE)


def test_every_field_refuses_every_kind_of_bad_value():
    """Every field x every bad value: one line naming the file and the key (exhaustive)."""
    kinds, failures, drawn = Counter(), [], 0
    for key, (kind, base) in FIELDS.items():
        for value in bad_values(kind):
            data = copy.deepcopy(base)
            _set(data, key, value)
            drawn += 1
            try:
                validate_case(data, SOURCE)
            except CaseError as err:
                message = str(err)
                kinds[message.split("' ", 1)[-1].split(",")[0][:24]] += 1
                if "\n" in message or not message.startswith(SOURCE) or \
                        not _key_of_message(message, key) or "`" in message or \
                        "xpected" in message:          # in the docs' words, not msgspec's
                    failures.append((key, value, message))
                continue
            failures.append((key, value, "accepted"))
    print(f"schema fields covered: {len(FIELDS)}; bad values drawn: {drawn}; "
          f"refused: {drawn - len(failures)}")
    assert not failures, failures[:10]
    assert len(FIELDS) >= 120


def test_every_schema_table_is_covered():
    defs = case_schema()["$defs"]
    total = sum(len([k for k in d.get("properties", {}) if k != "generator"]) for d in defs.values())
    names = {key.rsplit(".", 1)[-1] for key in FIELDS}
    for name, table in defs.items():
        if name in ("Hemisphere", "Box", "MeshFile"):  # not in the 2D rich cases; their fields
            continue                                   # follow the generators (test below)
        missing = set(table.get("properties", {})) - names - {"generator"}
        assert not missing, (name, missing)
    assert total >= 140


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(sorted(FIELDS)), min_size=1, max_size=4, unique=True)
       .flatmap(lambda keys: st.tuples(st.just(keys), st.tuples(
           *[st.sampled_from(bad_values(FIELDS[k][0])) for k in keys]))))
def test_several_bad_values_name_one_of_them(draw):
    keys, values = draw
    base = FIELDS[keys[0]][1]
    keys = [k for k in keys if FIELDS[k][1] is base]
    data = copy.deepcopy(base)
    for key, value in zip(keys, values):
        try:
            _set(data, key, value)
        except (KeyError, IndexError, TypeError, ValueError):   # a parent was replaced
            pass
    with pytest.raises(CaseError) as info:
        validate_case(data, SOURCE)
    message = str(info.value)
    assert "\n" not in message and message.startswith(SOURCE)
    assert any(_key_of_message(message, k) or f"'{k.rsplit('.', 1)[0]}" in message
               for k in keys), (keys, message)


@pytest.mark.parametrize("override,key", [
    ("bodies.0.material.E=1e400", "bodies.0.material.E"),
    ("steps.levels=[0.5, nan]", "steps.levels.1"),
    ("contact.0.friction.mu=inf", "contact.0.friction.mu"),
    ("bodies.0.mesh.nx=1.5", "bodies.0.mesh.nx"),
    ('solver.backend="gpu"', "solver.backend"),
])
def test_overrides_go_through_the_schema(tmp_path, capsys, override, key):
    case = ROOT / "cases" / "hertz2d.toml"
    if "mesh.nx" in override:
        case = ROOT / "cases" / "patch2d.toml"
    code = main(["check", str(case), "--set", override])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INPUT and len(err) == 1 and f"'{key}'" in err[0], err


def test_generator_tables_follow_the_generators():
    """The struct of each generator has exactly the generator's keyword parameters."""
    import inspect

    for table in MESH_TABLES[1:]:
        tag = table.__struct_config__.tag
        params = set(inspect.signature(GENERATORS[tag]).parameters)
        assert set(table.__struct_fields__) == params, tag


@pytest.mark.parametrize("name", ["hertz2d", "patch3d", "ironing2d"])
def test_mesh_estimate_is_close_to_the_mesh(name):
    """The memory limit's element estimate is within 25 % of the generated meshes (bundled cases)."""
    import tomllib

    case = tomllib.loads((ROOT / "cases" / f"{name}.toml").read_text())
    for body in case["bodies"]:
        if "generator" not in body["mesh"]:
            continue
        table = msgspec.convert(body["mesh"], Union[MESH_TABLES], strict=True)
        elements, _ = mesh_estimate(table)
        params = {k: v for k, v in body["mesh"].items() if k != "generator"}
        mesh = GENERATORS[body["mesh"]["generator"]](**params)
        assert abs(elements / mesh.t.shape[1] - 1) < 0.25, (name, elements, mesh.t.shape[1])


def test_a_mesh_too_large_for_memory_is_refused_with_the_estimate(capsys):
    code = main(["check", str(ROOT / "cases" / "patch3d.toml"), "--set", "bodies.0.mesh.nx=1000",
                 "--set", "bodies.0.mesh.ny=1000", "--set", "bodies.0.mesh.nz=1000"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INPUT and len(err) == 1, err
    assert "'bodies.0.mesh'" in err[0] and "6e+09 elements" in err[0] and "GB" in err[0], err


def test_schema_command_prints_the_json_schema(capsys, tmp_path):
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(case_schema()))
    assert printed["$defs"]["MaterialTable"]["properties"]["nu"]["exclusiveMaximum"] == 0.5


def test_reference_page_and_schema_file_are_generated_from_the_schema():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mcr", ROOT / "docs" / "make_case_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    schema = case_schema()
    assert (ROOT / "docs" / "case_reference.md").read_text() == module.render(schema), \
        "run python docs/make_case_reference.py"
    assert json.loads((ROOT / "docs" / "case.schema.json").read_text()) == \
        json.loads(json.dumps(schema))
    # the user guide's table of element kinds is the registry's
    from page_blocks import blocks

    tables = [body for script, name, body in blocks((ROOT / "docs" / "guide" / "bodies.md").read_text())
              if name == "element-kinds"]
    assert tables == [module.element_table()], "run python docs/make_case_reference.py"
    from fecontact.mesh.elements import KINDS

    assert all(f'`"{name}"`' in tables[0] for name in KINDS)
