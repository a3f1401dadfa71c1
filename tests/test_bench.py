"""``fecontact bench``: the tables it writes are consistent with the runs, and bad options are one line."""

import csv
import json

import numpy as np
import pytest

from conftest import CASES
from fecontact.run.bench import SERIES, measure
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
])
def test_bad_bench_options_are_one_line(args, message, capsys, tmp_path):
    code = main(["bench", *args, "--out", str(tmp_path / "b")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
