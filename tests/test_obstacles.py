"""The obstacle registry: one class per obstacle, from which the case file's master table, its
JSON Schema, the case builder, the model's checks and the residual check derive.

The obstacle of the developer guide's how-to (docs/developer/add-obstacle.md) is defined here
at test time from the page's own code block, as if appended to fecontact/contact/obstacles.py,
and must then be usable from case files and Python, and checkable, with no other edit.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from conftest import CASES
from fecontact import residual_check
from fecontact.analysis.static import SteppingOptions, run_steps
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case
from fecontact.case.types import CaseFile, case_file, case_schema
from fecontact.contact import obstacles
from fecontact.contact.obstacles import OBSTACLES, Obstacle, RigidLine, RigidObstacle
from fecontact.fields import Number
from fecontact.solve.backends import DirectBackend

ROOT = Path(__file__).resolve().parents[1]
HOWTO = ROOT / "docs" / "developer" / "add-obstacle.md"
COARSE = ["bodies.0.mesh.h_contact=0.01", "bodies.0.mesh.grading=1.3", "steps.count=3"]


def _howto_class_source() -> str:
    """The obstacle class of the how-to page (its python block that defines a class)."""
    blocks = re.findall(r"```python\n(.*?)```", HOWTO.read_text(), re.S)
    return next(block for block in blocks if "(RigidObstacle):" in block)


@pytest.fixture
def ramp():
    """The how-to's class, defined in the namespace of fecontact/contact/obstacles.py, and
    removed from the registry after."""
    namespace = dict(vars(obstacles))
    namespace["Number"] = Number                 # the import the how-to adds to the module
    try:
        exec(compile(_howto_class_source(), str(HOWTO), "exec"), namespace)
        yield namespace["RigidRamp"]
    finally:
        if "ramp" in OBSTACLES:
            obstacles.unregister("ramp")


def _solve(overrides):
    """A coarse hertz2d_friction, two load levels: the problem and its last state."""
    model = build_model(load_case(CASES / "hertz2d_friction.toml", COARSE + overrides))
    problem = model.problem
    records, state, _ = run_steps(problem, DirectBackend(problem), model.levels[:2], model.newton,
                                  SteppingOptions())
    assert all(r.converged for r in records)
    return problem, state


def test_the_howto_obstacle_is_usable_from_case_files_and_checked(ramp):
    assert OBSTACLES["ramp"] is ramp and issubclass(ramp, RigidObstacle)
    table = ["contact.0.master.obstacle=ramp", "contact.0.master.angle=0.0"]
    case = load_case(CASES / "hertz2d_friction.toml", COARSE + table)
    master = build_model(case).problem.pairs[0].master
    assert isinstance(master, ramp) and isinstance(master, Obstacle)
    np.testing.assert_array_equal(master.point, [0.0, 0.0])
    np.testing.assert_allclose(master.normal, [0.0, 1.0], atol=1e-16)
    # a ramp of slope 0 is the case's line: the same solution, which the residual check accepts
    problem, state = _solve(table)
    line_problem, line_state = _solve([])
    assert isinstance(line_problem.pairs[0].master, RigidLine)
    np.testing.assert_allclose(state.u, line_state.u, rtol=0, atol=1e-12 * np.abs(line_state.u).max())
    check = residual_check(problem, state)
    assert check.passed, check.failures()
    # a traction the check must refuse: an open, tangentially loaded node
    lam = state.multiplier.copy()
    lam[:, 1] += 0.5 * np.abs(lam[:, 0]).max()
    assert not residual_check(problem, type(state)(**{**vars(state), "multiplier": lam})).passed


def test_the_howto_obstacle_is_in_the_schema_and_refused_like_the_others(ramp):
    master = case_schema()["$defs"]["MasterTable"]
    assert "ramp" in master["properties"]["obstacle"]["enum"]
    assert master["properties"]["angle"]["description"] == "ramp: slope in degrees, in (-90, 90)"
    assert master["properties"]["point"]["description"] == ("line/plane/ramp: a point on it "
                                                            "(default origin)")
    assert "line, circle or ramp in 2D" in master["description"]
    source = str(CASES / "hertz2d_friction.toml")
    with pytest.raises(CaseError, match=r"\(ramp\) needs 'angle'"):
        load_case(CASES / "hertz2d_friction.toml", ["contact.0.master.obstacle=ramp"])
    with pytest.raises(CaseError) as info:
        build_model(load_case(CASES / "hertz2d_friction.toml",
                              ["contact.0.master.obstacle=ramp", "contact.0.master.angle=95.0"]))
    message = str(info.value)
    assert message.startswith(source) and "\n" not in message
    assert "'contact.0.master': a rigid ramp's angle must be in (-90, 90) degrees" in message
    # among 3D bodies: the dimension, and no counterpart to suggest
    with pytest.raises(CaseError) as info:
        build_model(load_case(CASES / "hertz3d.toml",
                              ["contact.0.master.obstacle=ramp", "contact.0.master.angle=0.0"]))
    assert "'contact.0.master.obstacle' = 'ramp' is a 2D obstacle; the bodies are 3D" in str(info.value)
    assert "use" not in str(info.value).rsplit(";", 1)[1]


def _python_model(master):
    """The user guide's block pressed on ``master``, solved in two steps."""
    mesh = skfem.MeshTri.init_tensor(np.linspace(0, 1, 9), np.linspace(0, 0.5, 5)).with_defaults()
    block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=100.0, nu=0.3))
    block.fix("top", y=-0.01).fix(point=(0.0, 0.5), x=0.0)
    pair = fc.Contact(block.surface("bottom"), master, fc.Coulomb(0.3), name="base")
    return fc.Model([block], [pair]).solve(steps=2)


def test_the_howto_obstacle_is_a_master_from_python(ramp):
    tilted = _python_model(ramp(point=(0.0, 0.0), angle=0.0))
    flat = _python_model(RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)))
    assert tilted.converged and flat.converged
    np.testing.assert_allclose(tilted.displacement, flat.displacement, rtol=0, atol=1e-14)
    assert residual_check(tilted.problem, tilted.state).passed
    with pytest.raises(ValueError, match="'ramp' is a 2D obstacle; the bodies are 3D"):
        box = fc.Body("box", skfem.MeshHex().refined(1).with_defaults(), "Q1",
                      fc.LinearElastic(E=100.0, nu=0.3))
        fc.Contact(box.surface("bottom"), ramp(point=(0.0, 0.0), angle=0.0))


def test_the_schema_follows_the_obstacles_back(ramp):
    assert case_file() is not CaseFile
    obstacles.unregister("ramp")
    assert case_file() is CaseFile
    assert '"ramp"' not in json.dumps(case_schema())       # the obstacle's name, as an enum value


def test_a_name_is_one_class():
    with pytest.raises(ValueError, match="obstacle 'line' is RigidLine already"):
        class Other(RigidObstacle):
            kind = "line"
            dim = 2
    assert OBSTACLES["line"] is RigidLine


@pytest.mark.parametrize("kind", ["line", "circle", "plane", "sphere"])
def test_the_distance_of_the_check_is_the_gap_of_the_kinematics(kind):
    """``gap`` (the residual check's closed form) and ``kinematics`` (the solver's) agree at
    points around a moving obstacle, and a case table builds the obstacle its class describes."""
    cls = OBSTACLES[kind]
    dim = cls.dim
    rng = np.random.default_rng(7)
    keys = {"point": rng.normal(size=dim), "normal": rng.normal(size=dim),
            "center": rng.normal(size=dim), "radius": 0.7, "inside": False}
    table = {entry.key: keys[entry.key] for entry in cls.table_keys}
    obstacle = cls.from_table({**table, "displacement": rng.normal(size=dim) * 0.1})
    assert isinstance(obstacle, Obstacle)
    x = rng.normal(size=(6, dim)) * 2.0
    kin = obstacle.kinematics(x, x, 0.6, 0.2, None if dim == 2 else np.zeros((6, 2, 3)),
                              None if dim == 2 else np.tile([1.0, 0.0, 0.0], (6, 1)))
    np.testing.assert_allclose(obstacle.gap(x, 0.6), kin.gap, rtol=1e-13, atol=1e-13)
    # the same table with its defaults: what the case builder passes
    if kind in ("line", "plane"):
        default = cls.from_table({})
        np.testing.assert_array_equal(default.point, np.zeros(dim))
        np.testing.assert_array_equal(default.normal, np.eye(dim)[-1])
    else:
        with pytest.raises(ValueError, match=f"a rigid {kind} needs 'center'"):
            cls.from_table({"radius": 1.0})
