"""Command line: bad input gives one clear line and a non-zero exit, never a traceback;
overrides reach both the model and its analytic reference."""

import json
import subprocess
import sys

import pytest

from conftest import CASES, ROOT

GOOD = (CASES / "hertz2d.toml").read_text()


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "fecontact", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT, timeout=300)


def _assert_clean_error(proc, *fragments):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0], lines[0]


def test_missing_case_file(tmp_path):
    proc = _run("run", tmp_path / "nope.toml", "--out", tmp_path / "o")
    _assert_clean_error(proc, "nope.toml", "not found")


def test_toml_syntax_error(case_file, tmp_path):
    path = case_file(GOOD.replace('name = "disc"', 'name = "disc'))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, str(path), "TOML syntax error", "line")


def test_unknown_boundary_lists_the_known_ones(case_file, tmp_path):
    path = case_file(GOOD.replace('boundary = "contact"', 'boundary = "bottom"'))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, "contact.0.slave.boundary", "'bottom'", "arc", "flat")


def test_missing_mesh_file(case_file, tmp_path):
    text = GOOD.replace(
        'mesh = { generator = "half_disc", radius = 1.0, center = [0.0, 1.0], side = "lower", '
        'h_contact = 0.001, h_far = 0.08, refine_width = 0.3, grading = 1.15 }',
        'mesh = { file = "missing.msh" }')
    assert text != GOOD
    proc = _run("run", case_file(text), "--out", tmp_path / "o")
    _assert_clean_error(proc, "bodies.0.mesh.file", "missing.msh", "not found")


def test_unknown_key_suggests_the_closest(case_file, tmp_path):
    proc = _run("run", case_file(GOOD.replace("[steps]\ncount", "[steps]\ncuont")), "--out", tmp_path / "o")
    _assert_clean_error(proc, "steps.cuont", "did you mean 'count'")


def test_override_reaches_model_and_reference(tmp_path):
    base = ["run", CASES / "hertz2d.toml", "--quiet",
            "--set", "bodies.0.mesh.h_contact=0.004", "--set", "steps.count=1"]
    out1, out2 = tmp_path / "a", tmp_path / "b"
    assert _run(*base, "--out", out1).returncode == 0
    assert _run(*base, "--set", "bodies.0.material.E=2e4", "--set", "solver.backend=direct",
                "--out", out2).returncode == 0
    s1 = json.loads((out1 / "summary.json").read_text())
    s2 = json.loads((out2 / "summary.json").read_text())
    assert s2["backend"] == "direct" and s1["backend"] == "schur"
    # auto says why (the modelled costs it compared); a named backend has no reason to give
    assert s1["backend_choice"].startswith("schur: modelled") and "amg" in s1["backend_choice"]
    assert "backend_choice" not in s2
    # doubling E doubles the load at the same imposed displacement (linear elasticity,
    # small contact-area change aside) and the Hertz reference follows the new modulus
    P1, P2 = s1["metrics"]["load"]["value"], s2["metrics"]["load"]["value"]
    assert 1.9 < P2 / P1 < 2.1
    a1 = s1["metrics"]["contact_half_width"]["reference"]
    a2 = s2["metrics"]["contact_half_width"]["reference"]
    # a = sqrt(4 P R / (pi E*)): with P ~ E the half-width barely moves, while a reference
    # that ignored the override would scale with sqrt(P2/P1)
    assert abs(a2 / a1 - (P2 / P1 / 2.0) ** 0.5) < 1e-9
    assert s2["metrics"]["peak_pressure"]["rel_error"] < 0.02


# hertz3d on a coarse mesh: these errors are found after the mesh is built
GOOD3D = (CASES / "hertz3d.toml").read_text().replace("h_contact = 0.01, h_far = 0.15",
                                                     "h_contact = 0.08, h_far = 0.3")


def test_2d_obstacle_in_a_3d_case(case_file, tmp_path):
    path = case_file(GOOD3D.replace('obstacle = "plane"', 'obstacle = "line"'))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, str(path), "contact.0.master.obstacle", "'plane'")


def test_3d_plane_normal_needs_three_coordinates(case_file, tmp_path):
    path = case_file(GOOD3D.replace("normal = [0.0, 0.0, 1.0]", "normal = [0.0, 1.0]"))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, str(path), "'contact.0.master.normal' needs 3 components")


def test_3d_unknown_boundary_lists_the_known_ones(case_file, tmp_path):
    path = case_file(GOOD3D.replace('boundary = "contact"', 'boundary = "bottom"'))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, "contact.0.slave.boundary", "'bottom'", "contact", "curved", "flat")


def test_3d_unknown_generator_key_suggests(case_file, tmp_path):
    path = case_file(GOOD3D.replace("h_contact = 0.08", "h_contcat = 0.08"))
    proc = _run("run", path, "--out", tmp_path / "o")
    _assert_clean_error(proc, "bodies.0.mesh.h_contcat", "h_contact")


def test_incline_steeper_than_friction_reports_no_static_equilibrium(tmp_path):
    from conftest import CASES
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "fecontact", "run", str(CASES / "incline.toml"),
                           "--out", str(out), "--set", "bodies.0.body_force=[600.0,-800.0]",
                           "--set", "steps.count=2"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert "no static equilibrium" in line and "'incline'" in line and "0.75" in line and "0.5" in line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["converged"] is False and "no static equilibrium" in summary["reason"]


@pytest.mark.parametrize("overrides,fragments", [
    (["friction.law=stick_slip"], ["contact.0.friction.law", "'stick_slip'", "static_kinetic", "ipc"]),
    (["friction.law=static_kinetic", "friction.mu_s=0.2", "friction.mu_k=0.4"],
     ["'contact.0.friction.mu_k'", "0.4", "must not exceed mu_s (0.2)"]),
    (["friction.law=ipc"], ["contact.0.friction", "needs 'eps_v'", "'ipc'"]),
    (["friction.law=ipc", "friction.eps_v=0"], ["contact.0.friction.eps_v", "> 0"]),
    (["friction.law=velocity", "friction.mu_s=0.5", "friction.mu_k=0.3"],
     ["contact.0.friction", "needs 'dc'"]),
    (["friction.mu_s=-0.1", "friction.law=static_kinetic"], ["contact.0.friction.mu_s", ">= 0"]),
    (["friction.muk=0.1"], ["unknown key", "contact.0.friction.muk", "mu_k"]),
])
def test_bad_friction_input(tmp_path, overrides, fragments):
    args = [a for o in overrides for a in ("--set", o)]
    proc = _run("run", CASES / "hertz2d_friction.toml", "--out", tmp_path / "o", *args)
    _assert_clean_error(proc, "hertz2d_friction.toml", *fragments)


def test_progress_lines_and_final_table(tmp_path):
    def fecontact(*args):
        return subprocess.run([sys.executable, "-m", "fecontact", "run", str(CASES / "incline.toml"),
                               "--set", "steps.count=4", *args], capture_output=True, text=True,
                              cwd=ROOT)

    proc = fecontact("--out", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    # one progress line per step on stderr, with load, Newton iterations, residual and counts
    progress = [line for line in proc.stderr.splitlines() if line.startswith("step")]
    assert len(progress) == 4
    assert all("residual" in line and "open/stick/slip" in line for line in progress)
    # the final table: a header, a rule and one row per step
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["step", "load"])
    rows = lines[start + 2:start + 6]
    assert [int(r.split()[0]) for r in rows] == [1, 2, 3, 4]
    quiet = fecontact("--out", str(tmp_path / "b"), "--quiet")
    assert quiet.returncode == 0
    assert quiet.stderr == "" and len(quiet.stdout.splitlines()) == 1


def test_the_linear_reference_solve_runs_only_when_asked_and_counts_in_the_total(tmp_path):
    """A run does not repeat a linear solve to report a ratio; ``--compare-linear`` (the case key
    ``solver.compare_linear``) does, and its time is inside ``timings.total``."""
    coarse = ["--set", "bodies.0.mesh.h_contact=0.01", "--set", "steps.count=1", "--quiet"]
    plain = _run("run", CASES / "hertz2d.toml", "--out", tmp_path / "plain", *coarse)
    asked = _run("run", CASES / "hertz2d.toml", "--out", tmp_path / "asked", *coarse,
                 "--compare-linear")
    assert plain.returncode == 0 and asked.returncode == 0, plain.stderr + asked.stderr
    t0 = json.loads((tmp_path / "plain" / "summary.json").read_text())["timings"]
    t1 = json.loads((tmp_path / "asked" / "summary.json").read_text())["timings"]
    assert t0["linear_reference"] is None and "linear solve" not in plain.stdout
    assert t1["linear_reference"] > 0 and "linear solve" in asked.stdout
    assert t1["total"] >= t1["contact_solve"] + t1["linear_reference"]
    assert t1["contact_solve_per_step_over_linear_reference"] == pytest.approx(
        t1["contact_solve"] / t1["linear_reference"])
