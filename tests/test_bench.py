"""``fecontact bench``: the tables it writes are consistent with the runs, and bad options are one line."""

import csv
import json

import numpy as np
import pytest

from conftest import CASES
from fecontact.run.bench import SERIES, measure, repeated
from fecontact.cli import main
from fecontact.run.static import run


def test_bench_writes_consistent_tables(tmp_path, capsys):
    out = tmp_path / "bench"
    code = main(["bench", "--series", "hertz2d", "--scales", "8", "--cases", str(CASES),
                 "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "hertz2d scale 8" in printed and "ratio" in printed
    data = json.loads((out / "bench.json").read_text())
    (row,) = data["rows"]
    assert row["converged"] and row["series"] == "hertz2d"
    assert row["ratio"] == pytest.approx(row["contact_solve_s"] / row["linear_solve_s"])
    assert 0 < row["contact_share"] < 1 and row["peak_memory_gb"] > 0
    assert row["newton_iterations"] >= 2 and row["active_nodes"] > 0
    # the same case run directly: the same mesh and the same solution
    direct = run(CASES / "hertz2d.toml", tmp_path / "direct", row["overrides"], write_vtu_files=False)
    assert direct.summary["dofs"] == row["dofs"]
    assert direct.summary["contact_nodes"] == row["contact_nodes"]
    assert int(np.sum(direct.state.status != 0)) == row["active_nodes"]
    with open(out / "bench.csv") as f:
        (line,) = list(csv.DictReader(f))
    assert int(line["dofs"]) == row["dofs"]
    assert f"| hertz2d | {row['dofs']:,} |" in (out / "bench.md").read_text()
    assert (out / "bench_time.png").stat().st_size > 1000


def test_measure_scales_both_mesh_sizes():
    spec = SERIES["hertz2d"]
    row = measure(str(CASES / "hertz2d.toml"), 8.0, "schur", spec["keys"], spec["sizes"])
    assert row["overrides"][:2] == ["bodies.0.mesh.h_contact=0.008", "bodies.0.mesh.h_far=0.64"]
    assert row["backend"] == "schur"


@pytest.mark.parametrize("args, message", [
    (["--series", "hertz9d"], "--series: unknown series hertz9d"),
    (["--scales", "1,x"], "--scales: not a list of numbers"),
    (["--scales", "-1"], "--scales: factors must be positive"),
    (["--backend", "magic"], "--backend: unknown backend 'magic'"),
    (["--cases", "/nonexistent"], "--cases: /nonexistent has no hertz2d.toml"),
    (["--repeat", "0"], "--repeat: a whole number from 1 to 100"),
    (["--repeat", "x"], "fecontact bench: argument --repeat: invalid int value: 'x'"),
    (["--timeout", "nan"], "--timeout: seconds allowed per size must be a positive number, got nan"),
    (["--timeout", "-1"], "--timeout: seconds allowed per size must be a positive number, got -1.0"),
    (["--timeout", "0"], "--timeout: seconds allowed per size must be a positive number, got 0.0"),
    (["--timeout", "inf"], "--timeout: seconds allowed per size must be a positive number, got inf"),
    (["--timeout", "soon"], "argument --timeout: invalid float value: 'soon'"),
    (["--unknown"], "fecontact: unrecognized arguments: --unknown"),
])
def test_bad_bench_options_are_one_line(args, message, capsys, tmp_path):
    code = main(["bench", *args, "--out", str(tmp_path / "b")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("error: ")
    assert not (tmp_path / "b").exists()                  # refused before anything is written


def test_bench_out_naming_a_file_is_one_line(capsys, tmp_path):
    existing = tmp_path / "results.txt"
    existing.write_text("kept")
    code = main(["bench", "--series", "hertz2d", "--scales", "8", "--cases", str(CASES),
                 "--out", str(existing)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0] == f"error: --out {existing}: is a file, not a folder; the tables go into a folder"
    assert existing.read_text() == "kept"


def test_bench_cases_with_a_broken_toml_is_one_line(capsys, tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "hertz2d.toml").write_text((CASES / "hertz2d.toml").read_text() + "\n[[[\n")
    code = main(["bench", "--series", "hertz2d", "--cases", str(cases), "--out", str(tmp_path / "b")])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert code == 2 and len(err) == 1 and not captured.out
    assert err[0].startswith(f"error: --cases: {cases / 'hertz2d.toml'}: TOML syntax error")
    assert not (tmp_path / "b").exists()


def test_a_size_that_fails_is_said_on_stderr_with_exit_3(capsys, tmp_path):
    """A size that runs out of time: its row says so, and one error line gives the count and why."""
    code = main(["bench", "--series", "hertz2d", "--scales", "8", "--cases", str(CASES),
                 "--out", str(tmp_path / "b"), "--timeout", "0.01"])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.err.strip().splitlines() == [
        "error: 1 of 1 sizes failed; first: hertz2d at scale 8: timed out after 0.01 s"]
    (row,) = json.loads((tmp_path / "b" / "bench.json").read_text())["rows"]
    assert row["converged"] is False and row["error"] == "timed out after 0.01 s"


def test_repeated_runs_report_minimum_and_median_of_each_time_and_of_the_ratio():
    """Three runs of one size (made-up times): the row keeps the fastest contact solve's run and
    adds the minimum and median of the contact solve, the linear solve and their per-run ratio;
    a failed run is left out."""
    times = [(3.0, 1.0), (2.0, 0.5), (2.5, 2.5)]          # (contact, linear) per run
    runs = [dict(series="hertz2d", scale=1.0, contact_solve_s=c, linear_solve_s=lin, ratio=c / lin,
                 converged=True, dofs=100) for c, lin in times]
    runs.append(dict(series="hertz2d", scale=1.0, converged=False, error="timed out"))
    row = repeated(runs)
    assert row["repeats"] == 3 and row["converged"]
    assert row["contact_solve_s"] == 2.0 and row["linear_solve_s"] == 0.5   # the fastest run
    assert row["contact_solve_min_s"] == 2.0 and row["contact_solve_median_s"] == 2.5
    assert row["linear_solve_min_s"] == 0.5 and row["linear_solve_median_s"] == 1.0
    assert row["ratio_min"] == 1.0 and row["ratio_median"] == 3.0       # ratios 3, 4, 1
    assert repeated(runs[3:])["error"] == "timed out"


def test_bench_repeat_runs_each_size_that_often(tmp_path, capsys):
    out = tmp_path / "bench"
    code = main(["bench", "--series", "hertz2d", "--scales", "8", "--cases", str(CASES),
                 "--out", str(out), "--repeat", "2"])
    assert code == 0
    assert "over 2 runs: ratio min" in capsys.readouterr().out
    (row,) = json.loads((out / "bench.json").read_text())["rows"]
    assert row["repeats"] == 2
    assert row["contact_solve_min_s"] <= row["contact_solve_median_s"]
    assert row["contact_solve_s"] == row["contact_solve_min_s"]
    assert row["ratio_min"] <= row["ratio_median"]
