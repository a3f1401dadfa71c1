"""The contracts the package is built on: the public facade, the friction-law interface,
the contact status, and an evaluation that depends on its arguments only."""

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fecontact
from conftest import CASES, ROOT
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.friction import (Coulomb, FrictionBatch, FrictionLaw, FrictionStart, StaticKinetic,
                                Status, registry, status_counts)
from fecontact.friction.base import SLIDING, STUCK

#: Every registered law with friction, built from its example table
LAWS = [law for law in (entry.example_law() for entry in registry.laws()) if law.has_friction]


def test_every_public_name_exists_and_none_hides_a_subpackage():
    subpackages = {m.name for m in pkgutil.iter_modules(fecontact.__path__) if m.ispkg}
    assert {"mesh", "friction", "bodies", "contact", "solve", "analysis", "io", "case",
            "references", "visuals", "run", "pfc"} <= subpackages
    for name in fecontact.__all__:
        assert hasattr(fecontact, name), name
    assert not subpackages & set(fecontact.__all__)
    for name in subpackages:      # the attribute is the subpackage, not a function of that name
        assert importlib.import_module(f"fecontact.{name}") is getattr(fecontact, name)


def test_importing_the_package_imports_no_plotting_library():
    code = ("import sys, fecontact; "
            "print(sorted(m for m in ('pyvista', 'matplotlib', 'vtk') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
def test_a_sliding_node_sits_on_the_cone_of_the_laws_coefficient(law):
    """``coefficient`` (what the independent check uses) is the radius the return map projects on."""
    assert isinstance(law, FrictionLaw)
    rng = np.random.default_rng(5)
    m = 20
    lam_hat = rng.uniform(0.5, 2.0, m)
    slip = rng.normal(size=(m, 2)) * 0.05
    dt = 0.1
    trial = -slip / np.linalg.norm(slip, axis=1)[:, None] * (5.0 * lam_hat)[:, None]
    start = FrictionStart(np.full(m, SLIDING), lam_hat, np.ones(m, bool))
    response = law.return_map(trial, lam_hat, slip, dt, start)
    assert response.sliding.all()
    speed = np.linalg.norm(slip, axis=1) / dt
    bound = law.coefficient(np.ones(m, bool), speed) * lam_hat
    traction = np.linalg.norm(response.traction, axis=1)
    if law.smooth:       # inside the cone, at most the bound
        assert np.all(traction <= bound * (1 + 1e-12))
        assert np.all(traction > 0.5 * law.kinetic * lam_hat)
    else:
        np.testing.assert_allclose(traction, bound, rtol=1e-12)
    assert min(law.static, law.kinetic) > 0 and law.has_friction
    assert not Coulomb(0.0).has_friction


def test_a_stuck_node_holds_up_to_the_static_coefficient():
    law = StaticKinetic(0.5, 0.3)
    lam_hat = np.ones(3)
    trial = np.array([[0.45], [0.55], [0.2]])
    start = FrictionStart(np.full(3, STUCK), lam_hat, np.ones(3, bool))
    response = law.return_map(trial, lam_hat, np.zeros((3, 1)), 1.0, start)
    np.testing.assert_array_equal(response.sliding, [False, True, False])
    np.testing.assert_allclose(response.traction[:, 0], [0.45, 0.5, 0.2])
    np.testing.assert_allclose(law.coefficient(np.array([False, True]), np.zeros(2)), [0.5, 0.3])


def test_a_batch_applies_each_pairs_law_to_its_rows():
    rng = np.random.default_rng(9)
    laws = (Coulomb(0.2), StaticKinetic(0.6, 0.4))
    slices = (slice(0, 4), slice(4, 10))
    batch = FrictionBatch(laws, slices)
    m = 10
    trial, slip = rng.normal(size=(m, 2)), rng.normal(size=(m, 2)) * 0.01
    lam_hat = rng.uniform(0.5, 2.0, m)
    start = FrictionStart(np.where(rng.uniform(size=m) < 0.5, SLIDING, STUCK), lam_hat,
                          np.ones(m, bool))
    joined = batch.return_map(trial, lam_hat, slip, 0.1, start)
    for law, s in zip(laws, slices):
        alone = law.return_map(trial[s], lam_hat[s], slip[s], 0.1, start.take(s))
        np.testing.assert_array_equal(joined.traction[s], alone.traction)
        np.testing.assert_array_equal(joined.d_trial[s], alone.d_trial)
    with pytest.raises(TypeError, match="FrictionLaw"):
        FrictionBatch((0.3,), (slice(0, 1),))


def test_status_counts_name_the_written_values():
    status = np.array([0, 1, 2, 2, 0, 0])
    assert status_counts(status) == (3, 1, 2)
    assert status_counts(status).slip == 2
    assert [int(s) for s in Status] == [0, 1, 2]
    assert [s.name.lower() for s in Status] == ["open", "stick", "slip"]


def test_an_evaluation_depends_on_its_arguments_only():
    """Evaluating elsewhere first (other facets) does not change an evaluation: no hidden cache."""
    case = load_case(CASES / "ironing2d.toml", ["steps.count=4"])
    model = build_model(case)
    problem = model.problem
    state = problem.initial_state()
    increment = problem.increment(model.levels[-1], state)
    x = problem.unknowns(state)
    first = increment.evaluate(x)
    far = x.copy()
    far[: problem.system.n_reduced] += 0.3 * np.sign(np.arange(problem.system.n_reduced) % 2 - 0.5)
    increment.evaluate(far)
    again = increment.evaluate(x)
    np.testing.assert_array_equal(first.residual, again.residual)
    np.testing.assert_array_equal(first.kinematics.facet, again.kinematics.facet)
    assert (first.J21 != again.J21).nnz == 0


ORDER = ["mesh", "friction", "bodies", "contact", "solve", "analysis", "sensitivity", "io", "model",
         "case", "references", "visuals", "run", "pfc", "cli"]


def test_subpackages_import_only_earlier_ones():
    """The import rule of docs/architecture.md, imports inside functions included."""
    import ast

    root = Path(fecontact.__file__).parent
    assert ORDER == [p for p in ORDER if (root / p).is_dir() or (root / f"{p}.py").is_file()]
    page = (root.parent / "docs" / "architecture.md").read_text()
    assert " → ".join(ORDER) in page
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).parts
        if rel[0] not in ORDER:
            continue
        mine = ORDER.index(rel[0].removesuffix(".py"))
        package = ["fecontact", *rel[:-1]]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1]
                    target = base + (node.module.split(".") if node.module else [])
                else:
                    target = (node.module or "").split(".")
            elif isinstance(node, ast.Import):
                target = node.names[0].name.split(".")
            else:
                continue
            if target[0] == "fecontact" and len(target) > 1 and target[1] in ORDER:
                if ORDER.index(target[1]) > mine:
                    offenders.append(f"{'/'.join(rel)}:{node.lineno} imports {'.'.join(target)}")
    assert not offenders, offenders


def _obstacle_at(cls):
    """``cls`` with its surface through the origin, normal +y (2D) or +z (3D), moving 1e-6 along x."""
    dim = cls.dim
    up = np.eye(dim)[dim - 1]
    move = 1e-6 * np.eye(dim)[0]
    if "normal" in cls.__dataclass_fields__:
        return cls(np.zeros(dim), up, displacement=move)
    return cls(-up, 1.0, displacement=move)


def test_every_obstacle_measures_itself():
    """Each registered obstacle is one class with its own kinematics: a node 0.25 off its surface
    along the normal has gap 0.25 and the normal as gap gradient, no slip while the obstacle
    stays and a slip of the obstacle's small tangential move when it moves; no obstacle class is another's subclass (no order to get right)."""
    from fecontact.contact.obstacles import OBSTACLES, Obstacle

    classes = list(OBSTACLES.values())
    assert {cls.kind for cls in classes} == set(OBSTACLES)
    for cls in classes:
        assert not any(issubclass(cls, other) for other in classes if other is not cls), cls
        obstacle = _obstacle_at(cls)
        assert isinstance(obstacle, Obstacle)
        dim = cls.dim
        node = np.zeros((1, dim))
        node[0, dim - 1] = 0.25
        still = obstacle.kinematics(node, node, 0.0, 0.0)
        np.testing.assert_allclose(still.gap, [0.25], rtol=1e-14)
        np.testing.assert_allclose(still.d_gap, np.eye(dim)[dim - 1][None, :], atol=1e-14)
        assert still.slip.shape == (1, dim - 1) and not still.slip.any()
        moved = obstacle.kinematics(node, node, 1.0, 0.0)
        np.testing.assert_allclose(np.linalg.norm(moved.slip), 1e-6, rtol=1e-9)


def _facade(init: Path) -> tuple:
    """The ``TYPE_CHECKING`` imports (name -> (module, name there)), ``_EXPORTS`` and ``__all__``
    of a lazy package facade, read from its source."""
    import ast

    typed, exports, names = {}, None, None
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                for alias in imp.names:
                    typed[alias.asname or alias.name] = ("." * imp.level + (imp.module or ""),
                                                         alias.name)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            if target == "__all__":
                names = ast.literal_eval(node.value)
            elif target == "_EXPORTS" and isinstance(node.value, ast.Dict):
                exports = ast.literal_eval(node.value)
    return typed, exports, names


FACADES = sorted(p for p in Path(fecontact.__file__).parent.rglob("__init__.py")
                 if "lazy_exports" in p.read_text())


@pytest.mark.parametrize("init", FACADES, ids=lambda p: p.parent.name)
def test_a_lazy_facade_lists_its_names_once(init):
    """``__all__`` (a literal, for static tools), the ``TYPE_CHECKING`` imports (for editors) and
    the lazy name -> module map agree, and every name resolves to the object its module defines."""
    package = importlib.import_module(".".join(
        init.parent.relative_to(Path(fecontact.__file__).parent.parent).parts))
    typed, _, names = _facade(init)
    exports = package._EXPORTS
    assert names == list(exports), "write __all__ in the order of _EXPORTS"
    assert len(set(names)) == len(names)
    assert typed == {name: (where, name) if isinstance(where, str) else where
                     for name, where in exports.items()}, "the TYPE_CHECKING imports differ"
    for name, where in exports.items():
        module, attribute = (where, name) if isinstance(where, str) else where
        source = importlib.import_module(module, package.__name__)
        assert getattr(package, name) is getattr(source, attribute), name
    assert set(names) <= set(dir(package))


def test_the_api_groups_hold_every_public_name_once():
    """The API reference's groups (``fecontact.API_GROUPS``) are the public names, each in one."""
    grouped = [name for _, names in fecontact.API_GROUPS.values() for name in names]
    assert grouped == fecontact.__all__
    assert all(isinstance(text, str) and text for text, _ in fecontact.API_GROUPS.values())


def test_pyflakes_finds_nothing_in_the_package_the_tests_and_the_docs_scripts():
    """No undefined name, unused import or unused variable (also run by ``.ci/run``)."""
    pyflakes_api = pytest.importorskip("pyflakes.api")
    import io

    from pyflakes.reporter import Reporter

    out, err = io.StringIO(), io.StringIO()
    count = pyflakes_api.checkRecursive([str(ROOT / d) for d in ("fecontact", "tests", "docs")],
                                        Reporter(out, err))
    assert count == 0, out.getvalue() + err.getvalue()
