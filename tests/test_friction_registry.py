"""The friction-law registry: one declaration per law, from which the case file's friction
table, its JSON Schema, the reference page and the case builder derive.

The law of the developer guide's how-to (docs/developer/add-friction-law.md) is
registered here at test time from the page's own code block, and must then be
usable from a case file and appear in the schema with no other edit.
"""

import importlib
import inspect
import json
import pkgutil
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import fecontact.friction
from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case, validate_case
from fecontact.case.types import CaseFile, case_file, case_schema
from fecontact.fields import NonNegative
from fecontact.friction import FrictionLaw, FrictionStart, SLIDING, registry
from fecontact.friction.registry import TableError, friction_law, parameter
from test_friction_laws import assert_jacobian_by_central_differences

ROOT = Path(__file__).resolve().parents[1]
HOWTO = ROOT / "docs" / "developer" / "add-friction-law.md"
MODULE = "fecontact.friction.hyperbolic"


def _howto_module_source() -> str:
    """The law module of the how-to page (its python block that registers a law)."""
    blocks = re.findall(r"```python\n(.*?)```", HOWTO.read_text(), re.S)
    return next(block for block in blocks if "@friction_law(" in block)


@pytest.fixture
def howto_law():
    """The how-to's module, imported as if saved in fecontact/friction/, and removed after."""
    module = types.ModuleType(MODULE)
    module.__package__ = "fecontact.friction"
    sys.modules[MODULE] = module
    try:
        exec(compile(_howto_module_source(), str(HOWTO), "exec"), module.__dict__)
        yield module
    finally:
        sys.modules.pop(MODULE, None)
        if "hyperbolic" in registry.names():
            registry.unregister("hyperbolic")


def test_a_law_module_alone_makes_the_law_usable_from_case_files(howto_law, tmp_path):
    law_class = howto_law.HyperbolicWeakening
    assert registry.law("hyperbolic").build is law_class and law_class.name == "hyperbolic"
    # the case file: built through the schema and the case builder
    overrides = ["friction.law=hyperbolic", "friction.mu_s=0.5", "friction.mu_k=0.3",
                 "friction.v_c=0.05"]
    model = build_model(load_case(CASES / "hertz2d_friction.toml", overrides))
    law = model.problem.pairs[0].friction
    assert law == law_class(0.5, 0.3, 0.05)
    # mu_s and mu_k fall back to the case's mu (0.3), as declared
    case = load_case(CASES / "hertz2d_friction.toml", ["friction.law=hyperbolic", "friction.v_c=0.1"])
    assert case["contact"][0]["friction"] == {"law": "hyperbolic", "mu": 0.3, "v_c": 0.1}
    # errors: one line naming the file and the key
    source = str(CASES / "hertz2d_friction.toml")
    with pytest.raises(CaseError, match=r"'contact\.0\.friction': needs 'v_c' for law 'hyperbolic'"):
        load_case(CASES / "hertz2d_friction.toml", ["friction.law=hyperbolic"])
    with pytest.raises(CaseError, match=r"'contact\.0\.friction\.v_c' must be > 0, got 0\.0"):
        load_case(CASES / "hertz2d_friction.toml", ["friction.law=hyperbolic", "friction.v_c=0.0"])
    with pytest.raises(CaseError) as info:
        load_case(CASES / "hertz2d_friction.toml",
                  ["friction.law=hyperbolic", "friction.v_c=1.0", "friction.mu_k=0.4"])
    assert str(info.value).startswith(source) and "\n" not in str(info.value)
    assert "'contact.0.friction.mu_k' (0.4) must not exceed mu_s (0.3)" in str(info.value)


def test_a_law_module_alone_puts_the_law_in_the_schema_and_the_reference(howto_law):
    friction = case_schema()["$defs"]["FrictionTable"]
    assert "hyperbolic" in friction["properties"]["law"]["enum"]
    v_c = friction["properties"]["v_c"]
    assert v_c["exclusiveMinimum"] == 0 and "hyperbolic: slip rate of half weakening" in v_c["description"]
    assert "hyperbolic" in friction["properties"]["mu_s"]["description"]
    spec = importlib.util.spec_from_file_location("mcr", ROOT / "docs" / "make_case_reference.py")
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    assert "| `hyperbolic` | `mu_s` (default `mu`), `mu_k` (default `mu`), `v_c` |" in \
        page.render(case_schema())
    # the suggestion for an unknown law lists it
    with pytest.raises(CaseError, match="hyperbolic"):
        load_case(CASES / "hertz2d_friction.toml", ["friction.law=hyperbolical"])


def test_the_schema_follows_the_registry_back(howto_law):
    assert case_file() is not CaseFile
    registry.unregister("hyperbolic")
    assert case_file() is CaseFile
    assert "v_c" not in json.dumps(case_schema())


def test_the_howto_law_passes_the_finite_difference_check(howto_law):
    law = registry.law("hyperbolic").example_law()
    for q in (1, 2):
        assert_jacobian_by_central_differences(law, q)
    # and slides on the cone of mu(v) lam, the coefficient it reports (closed form)
    rate = np.array([0.0, 0.05, 0.5])
    slip = np.column_stack([rate, np.zeros(3)])
    trial = np.array([[-10.0, 0.0]] * 3)
    r = law.return_map(trial, np.ones(3), slip, 1.0, FrictionStart(np.full(3, SLIDING), np.ones(3)))
    np.testing.assert_allclose(-r.traction[:, 0], 0.3 + 0.2 / (1.0 + rate / 0.05), rtol=1e-14)


@pytest.mark.parametrize("entry", registry.laws(), ids=lambda entry: entry.name)
def test_every_law_builds_from_its_example_table(entry):
    law = entry.example_law()
    assert isinstance(law, FrictionLaw)
    assert set(entry.example) <= {p.key for p in entry.parameters} | {
        p.fallback for p in entry.parameters}
    table = {"law": entry.name, **entry.example}
    case = validate_case(_case_with_friction(table), "example.toml")
    assert case.contact[0].friction.law == entry.name
    assert registry.law(entry.name).from_table(table) == law


def _case_with_friction(friction: dict) -> dict:
    return {"bodies": [{"name": "b", "element": "P1", "material": {"E": 1.0, "nu": 0.3},
                        "mesh": {"generator": "rectangle", "x0": 0.0, "x1": 1.0, "y0": 0.0,
                                 "y1": 1.0, "nx": 1, "ny": 1}}],
            "contact": [{"slave": {"body": "b", "boundary": "bottom"},
                         "master": {"obstacle": "line"}, "friction": friction}],
            "steps": {"count": 1}}


def test_every_law_module_is_discovered_and_its_class_exported():
    """The laws defined in the package's modules are all registered and exported by the package."""
    registered = {entry.build for entry in registry.laws()}
    for info in pkgutil.iter_modules(fecontact.friction.__path__):
        module = importlib.import_module(f"fecontact.friction.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, FrictionLaw) and obj.__module__ == module.__name__
                    and not inspect.isabstract(obj) and "name" in vars(obj)):
                assert obj in registered, obj
                assert getattr(fecontact.friction, name) is obj and name in fecontact.friction.__all__
    assert set(fecontact.friction.LAWS) == set(registry.names())
    assert fecontact.Coulomb is fecontact.friction.Coulomb


def test_a_key_means_one_thing_in_every_law():
    with pytest.raises(ValueError, match="'mu' has another type"):
        @friction_law("odd")
        @dataclass(frozen=True)
        class Odd(FrictionLaw):
            mu: int = parameter("a count, unlike coulomb's mu")
    assert "odd" not in registry.names()


def test_a_table_error_names_the_key_of_the_field():
    velocity = registry.law("velocity")
    with pytest.raises(TableError) as info:
        velocity.from_table({"mu_s": 0.5, "mu_k": 0.3})
    assert info.value.key is None and info.value.reason == "needs 'dc' for law 'velocity' with mu_s != mu_k"
    assert velocity.from_table({"mu": 0.3}).decay == 0.0      # equal coefficients: no dc needed
    with pytest.raises(TableError) as info:
        velocity.from_table({"mu": 0.3, "dc": -1.0})
    assert info.value.key == "dc" and info.value.reason.startswith("must be >= 0")
    assert NonNegative is registry.law("coulomb").parameters[0].kind
