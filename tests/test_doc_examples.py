"""The ``Examples`` sections of the public API run and print what they show.

Every public name of :mod:`fecontact` (``fecontact.__all__``) is one test:
the doctests of its docstring and of its public methods and properties run
from the repository root (examples read ``meshes/`` and ``cases/`` by
relative path), each docstring in a fresh namespace, so that an example
imports what it uses.  The objects a user starts from must have an example.
"""

from __future__ import annotations

import doctest
import inspect
from pathlib import Path

import pytest

import fecontact

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: docstrings that must hold at least one example (``Name`` or ``Name.method``)
REQUIRED = (
    "Body", "Body.fix", "Body.pressure", "LinearElastic", "NeoHookean", "Contact", "Tie",
    "Model", "Model.solve", "Model.solve_dynamic",
    "Solution", "Solution.reaction", "Solution.pair", "Solution.to_pyvista", "Solution.write_vtu",
    "RigidLine", "RigidCircle", "RigidPlane", "RigidSphere",
    "Amplitude", "Coulomb", "StaticKinetic", "VelocityDependent", "SmoothIPC", "Frictionless",
    "FrictionLaw", "status_counts", "load_mesh", "run_case", "load_case", "build_model",
    "SteppingOptions", "NewtonOptions", "DynamicsOptions", "make_backend", "residual_check",
)


def doctests(name: str) -> list:
    """The doctests of the public object ``name`` and of the public members it defines."""
    obj = getattr(fecontact, name)
    finder = doctest.DocTestFinder(recurse=False, exclude_empty=True)
    found = finder.find(obj, name, module=False, globs={})
    if inspect.isclass(obj):
        for key, member in vars(obj).items():
            if key.startswith("_"):
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                found += finder.find(member, f"{name}.{key}", module=False, globs={})
    return [test for test in found if test.examples]


@pytest.mark.parametrize("name", fecontact.__all__)
def test_examples_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report: list = []
    failed = sum(runner.run(test, out=report.append).failed for test in doctests(name))
    assert failed == 0, "".join(report)


def test_required_examples():
    examples = {test.name for name in fecontact.__all__ for test in doctests(name)}
    missing = [name for name in REQUIRED if name not in examples]
    assert not missing, f"no example in the docstring of {', '.join(missing)}"
    for name in REQUIRED:
        assert name.split(".")[0] in fecontact.__all__
