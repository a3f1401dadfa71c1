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
