"""What a case's reference needs is found before solving, and a run whose reference cannot be
evaluated after its last step still leaves a final summary (not "incomplete")."""

import json

import pytest

from conftest import CASES
from fecontact.case.schema import CaseError
from fecontact.cli import EXIT_INPUT, main


def _without_radius(tmp_path):
    """hertz2d_gmsh (a mesh file: no generator radius) without its ``reference.radius``."""
    text = (CASES / "hertz2d_gmsh.toml").read_text()
    assert "radius = 1.0" in text
    text = text.replace("radius = 1.0\n", "").replace('"../meshes/', f'"{CASES.parent / "meshes"}/')
    path = tmp_path / "no_radius.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_reference_without_its_radius_is_an_input_error_before_solving(tmp_path, capsys, command):
    case = _without_radius(tmp_path)
    out = tmp_path / "out"
    args = [command, str(case)] + (["--out", str(out)] if command == "run" else [])
    assert main(args) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "'reference.radius' is needed" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (out / "summary.json").exists()        # nothing was solved


def test_a_reference_failing_after_the_last_step_leaves_a_final_summary(tmp_path, monkeypatch):
    import fecontact.run.static as static

    def failing(model, state):
        raise CaseError("no reference here")
    monkeypatch.setattr(static, "evaluate_reference", failing)
    with pytest.raises(CaseError, match="no reference here"):
        static.run(CASES / "patch2d.toml", tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["converged"] is False
    assert summary["reason"].startswith("the reference could not be evaluated")
    assert "incomplete" not in summary["reason"] and summary["check"]["passed"]


#: (case, override, the key the one line names, a fragment of it): each inconsistent before solving
INCONSISTENT = [
    ("hertz2d_gmsh.toml", 'reference.type="hertz_sphere"', "'reference.type' = 'hertz_sphere'",
     "is a 3D reference and this case is 2D"),
    ("stickslip.toml", 'reference.spring="ghost"', "'reference.spring' = 'ghost'",
     "is not a spring; springs: spring"),
]

#: further inconsistencies, found by ``check``
MORE = [
    ("hertz2d.toml", 'reference.type="hertz_sphere"', "'reference.type' = 'hertz_sphere'",
     "is a 3D reference and this case is 2D"),
    ("hertz2d_gmsh.toml", 'reference.type="cattaneo_mindlin_sphere"', "'reference.type'", "3D reference"),
    ("hertz2d_gmsh.toml", 'reference.type="stick_slip"', "'reference.type' = 'stick_slip'",
     "is a dynamic reference and this case is static"),
    ("stickslip.toml", 'reference.type="hertz_line"', "'reference.type' = 'hertz_line'",
     "is a static reference and this case is dynamic"),
    ("hertz2d_gmsh.toml", 'reference.spring="spring"', "'reference.spring'",
     "is not a parameter of reference type 'hertz_line'"),
    ("hertz2d_gmsh.toml", 'reference.type="cattaneo_mindlin_line"', "'reference.contact' (not given: the first pair, 'disc-on-flat')",
     "needs friction (mu > 0)"),
    ("hertz2d_gmsh.toml", 'reference.contact="ghost"', "'reference.contact' = 'ghost'",
     "is not a contact pair"),
    ("patch2d.toml", "reference.stress=[[1.0, 0.0, 0.0]]", "'reference.stress'", "must be a 2 x 2 table"),
    ("incline_dynamic.toml", "reference.after=9.0", "'reference.after' = 9", "is not within the run"),
    ("velocity_weakening.toml", 'reference.springs=["spring-above"]', "'reference.springs'",
     "need the same length (here 1 and 2)"),
    ("velocity_weakening.toml", 'reference.contacts=["flat-above", "ghost"]',
     "'reference.contacts.1' = 'ghost'", "is not a contact pair"),
    ("stickslip.toml", 'reference.contact="ghost"', "'reference.contact' = 'ghost'", "is not a contact pair"),
]


def _one_line(capsys, case: str, key: str, fragment: str) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert str(CASES / case) in err and key in err and fragment in err, err
    return err


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("case, override, key, fragment", INCONSISTENT)
def test_an_inconsistent_reference_is_one_line_and_exit_2_before_solving(tmp_path, capsys, command,
                                                                         case, override, key, fragment):
    out = tmp_path / "out"
    args = [command, str(CASES / case), "--set", override] + (["--out", str(out)] if command == "run" else [])
    assert main(args) == EXIT_INPUT
    _one_line(capsys, case, key, fragment)
    assert not out.exists()                   # nothing was solved, nothing written


@pytest.mark.parametrize("case, override, key, fragment", MORE)
def test_check_names_the_key_of_an_inconsistent_reference(capsys, case, override, key, fragment):
    assert main(["check", str(CASES / case), "--set", override]) == EXIT_INPUT
    _one_line(capsys, case, key, fragment)


def test_every_reference_type_has_its_parameters_and_they_are_case_keys():
    from fecontact.case.types import REFERENCE_TYPES, ReferenceTable
    from fecontact.references.dynamic_metrics import REFERENCES as DYNAMIC
    from fecontact.references.metrics import REFERENCES as STATIC
    from fecontact.references.parameters import REFERENCE_PARAMETERS

    assert set(REFERENCE_PARAMETERS) == set(REFERENCE_TYPES) == set(STATIC) | set(DYNAMIC)
    assert {k for k, s in REFERENCE_PARAMETERS.items() if s.kind == "static"} == set(STATIC)
    fields = set(ReferenceTable.__struct_fields__) - {"type"}
    for spec in REFERENCE_PARAMETERS.values():
        assert set(spec.required) <= set(spec.keys) <= fields
