"""The contact patch test (Taylor & Papadopoulos) in 2D and 3D.

Two stacked blocks with non-matching interface meshes under a uniform
pressure p: the exact solution is the uniform stress -p in the loading
direction, so every stress and every interface pressure must equal p.
Mortar contact passes to round-off; single-pass node-to-segment fails by
tens of percent; the two-pass penalty variant converges to the exact
solution as the penalty grows, with an error about 1/penalty.
"""

import pytest

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import CaseError, load_case
from fecontact.references.metrics import evaluate_reference
from fecontact.run.static import run

NTS = ['contact.0.formulation="node_to_segment"']


def _deviation(name, tmp_path, overrides=()):
    r = run(CASES / f"{name}.toml", tmp_path, overrides=list(overrides), write_vtu_files=False)
    assert r.summary["converged"] is True
    return {k: v["value"] for k, v in evaluate_reference(r.model, r.state).items()}


@pytest.mark.parametrize("name", ["patch2d", "patch3d"])
def test_mortar_passes_the_patch_test(name, tmp_path):
    dev = _deviation(name, tmp_path)
    assert dev["stress_deviation"] <= 1e-6
    assert dev["pressure_deviation"] <= 1e-6


@pytest.mark.parametrize("name", ["patch2d", "patch3d"])
def test_single_pass_node_to_segment_fails_the_patch_test(name, tmp_path):
    dev = _deviation(name, tmp_path, NTS)
    assert dev["pressure_deviation"] > 0.1
    assert dev["stress_deviation"] > 0.1


@pytest.mark.parametrize("name", ["patch2d", "patch3d"])
def test_two_pass_penalty_converges_to_the_patch_solution(name, tmp_path):
    devs = [_deviation(name, tmp_path / f"{f:g}", NTS + ["contact.0.two_pass=true",
                                                          'contact.0.enforcement="penalty"',
                                                          f"contact.0.penalty_factor={f}"])
            ["stress_deviation"] for f in (1e2, 1e3, 1e4)]
    # the error falls roughly in proportion to 1/penalty, but never to round-off
    assert devs[0] > devs[1] > devs[2] > 1e-6
    assert devs[0] / devs[2] > 50


@pytest.mark.parametrize("override, message", [
    (["contact.0.two_pass=true"], "two_pass' needs"),
    (['contact.0.enforcement="penalty"', 'contact.0.friction.law="coulomb"', "contact.0.friction.mu=0.2"],
     "penalty' is frictionless"),
    (['contact.0.enforcement="lagrange"'], "enforcement' = 'lagrange'"),
    (['contact.0.formulation="segment"'], "formulation' = 'segment'"),
    (['contact.0.enforcement="penalty"', "contact.0.penalty_factor=0"], "penalty_factor' must be > 0"),
])
def test_bad_formulation_options(override, message):
    with pytest.raises(CaseError, match=message):
        build_model(load_case(CASES / "patch2d.toml", override))


def test_mortar_needs_linear_elements():
    with pytest.raises(CaseError, match="linear elements"):
        build_model(load_case(CASES / "patch3d.toml", ['bodies.1.element="P2"']))
