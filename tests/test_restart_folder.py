"""A restart checks its folder before it uses it, and never rewrites a finished step.

The folders are real: a quasi-static run stopped by SIGTERM after 4 of its
10 steps, and a dynamic one stopped after 125 of 300 time steps.  Each test
damages one value a restart reads back (the step index of ``restart.npz``,
an entry of ``summary.json``, the ``.pvd`` list or a file it names) and
requires one ``error:`` line naming the file, exit status 2, and every
file of the folder byte for byte as it was.
"""

import hashlib
import json
import logging
import shutil
import signal

import numpy as np
import pytest

from conftest import CASES
from fecontact.cli import EXIT_INPUT, main

FRICTION = CASES / "hertz2d_friction.toml"
COARSE = ["--set", "bodies.0.mesh.h_contact=0.004", "--quiet"]
STICKSLIP = CASES / "stickslip.toml"
SHORT = ["--set", "dynamics.t_end=0.6", "--set", "dynamics.output_every=25", "--set", "output.vtu=true",
         "--quiet"]


def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _stopped_at(level: int, logger_name: str):
    """Send SIGTERM to this process when step ``level`` is reported by ``logger_name``."""
    class Handler(logging.Handler):
        def emit(self, record):
            words = record.getMessage().split()
            if words[:1] == ["step"] and int(words[1].split("/")[0]) == level:
                signal.raise_signal(signal.SIGTERM)
    logger = logging.getLogger(logger_name)
    handler = Handler()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger, handler


def _interrupted_folder(tmp_path_factory, case, args, level, logger_name):
    out = tmp_path_factory.mktemp("stopped") / "o"
    logger, handler = _stopped_at(level, logger_name)
    try:
        code = main([str(a) for a in ["run", case, "--out", out, *args]])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    assert code == 128 + signal.SIGTERM
    return out


@pytest.fixture(scope="module")
def static_folder(tmp_path_factory):
    """hertz2d_friction (coarse), stopped by SIGTERM while solving step 5: steps 1-4 on disk."""
    return _interrupted_folder(tmp_path_factory, FRICTION, COARSE, 5, "fecontact.analysis.static")


@pytest.fixture(scope="module")
def dynamic_folder(tmp_path_factory):
    """stickslip (t_end 0.6, with VTU files), stopped at time step 140: outputs up to step 125 on disk."""
    return _interrupted_folder(tmp_path_factory, STICKSLIP, SHORT, 140, "fecontact.analysis.dynamic")


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def _set_meta(folder, **values):
    path = folder / "restart.npz"
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta.update(values)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)


def _edit_summary(folder, edit):
    path = folder / "summary.json"
    summary = json.loads(path.read_text())
    edit(summary)
    path.write_text(json.dumps(summary))


def _refused(capsys, tmp_path, source, case, args, damage, *fragments):
    """Copy ``source``, damage it, restart: one line naming ``fragments``, exit 2, nothing changed."""
    folder = tmp_path / "copy"
    shutil.copytree(source, folder)
    damage(folder)
    before = _digest(folder)
    code, _, err = cli(capsys, "run", case, "--restart", folder, *args)
    assert code == EXIT_INPUT, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, err)
    assert "nothing in it was changed" in lines[0] or "nothing to continue" in lines[0], err
    assert _digest(folder) == before


def test_the_stopped_folder_holds_four_steps_and_restarts(capsys, tmp_path, static_folder):
    """The undamaged copy continues to exit 0 without rewriting steps 1-4."""
    folder = tmp_path / "copy"
    shutil.copytree(static_folder, folder)
    finished = {f"step_{i:04d}.vtu" for i in range(1, 5)}
    assert {p.name for p in folder.glob("*.vtu")} == finished
    before = _digest(folder)
    code, _, err = cli(capsys, "run", FRICTION, "--restart", folder, *COARSE)
    assert code == 0, err
    after = _digest(folder)
    assert all(after[name] == before[name] for name in finished)
    assert {p.name for p in folder.glob("*.vtu")} == {f"step_{i:04d}.vtu" for i in range(1, 11)}


@pytest.mark.parametrize("index, words", [
    (-3, "step index -3 is outside 1..10"),
    (0, "step index 0 is outside 1..10"),
    (11, "step index 11 is outside 1..10"),
    (10**6, "step index 1000000 is outside 1..10"),
    ("4", "step index '4' is not a whole number"),
    (4.5, "step index 4.5 is not a whole number"),
    (2, "its state is at t=0.4, but step 2 of the case is at t=0.2"),
    (10, "its state is at t=0.4, but step 10 of the case is at t=1.0"),
])
def test_a_restart_index_out_of_range_or_off_its_state_is_refused(capsys, tmp_path, static_folder,
                                                                  index, words):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE,
             lambda f: _set_meta(f, index=index), "restart.npz", words)


def test_a_deleted_vtu_is_refused(capsys, tmp_path, static_folder):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE,
             lambda f: (f / "step_0002.vtu").unlink(), "step_0002.vtu", "no longer holds it")


@pytest.mark.parametrize("pvd, words", [
    ([[0.1, "../outside.vtu"]], "names '../outside.vtu', not a VTU file of the folder"),
    ([[0.1, "step_0001.vtu"], [0.2]], "entry 2 is not a time and a file name"),
    ([[0.2, "step_0002.vtu"], [0.1, "step_0001.vtu"]], "out of order or after the state"),
    ([[0.9, "step_0001.vtu"]], "out of order or after the state"),
    (7, "its .pvd list is a number, not a list"),
])
def test_a_pvd_list_that_does_not_fit_the_folder_is_refused(capsys, tmp_path, static_folder, pvd,
                                                             words):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE,
             lambda f: _set_meta(f, pvd=pvd), "restart.npz", words)


def _drop_pvd_entry(folder):
    pvd = folder / "hertz2d_friction.pvd"
    pvd.write_text("\n".join(line for line in pvd.read_text().splitlines()
                             if "step_0002.vtu" not in line))


@pytest.mark.parametrize("damage, words", [
    (lambda f: (f / "hertz2d_friction.pvd").unlink(), "is missing, though restart.npz records 4 VTU files"),
    (lambda f: (f / "hertz2d_friction.pvd").write_text("<VTKFile"), "is not a well-formed .pvd index"),
    (_drop_pvd_entry, "lists 3 VTU files that do not begin with the 4 restart.npz records"),
])
def test_a_pvd_file_that_does_not_match_the_restart_file_is_refused(capsys, tmp_path, static_folder,
                                                                    damage, words):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE, damage, "hertz2d_friction.pvd", words)


def _steps(value):
    return lambda s: s.update(steps=value)


def _shift_load(s):
    s["steps"][1]["load"] = 0.25


def _append_steps(s):
    s["steps"] += [dict(s["steps"][-1]), dict(s["steps"][-1])]


@pytest.mark.parametrize("edit, words", [
    (_steps(5), "its 'steps' is a number, not a list"),
    (_steps("four"), "its 'steps' is a string, not a list"),
    (_steps([1, 2, 3, 4]), "its 'steps' entry 1 is a number, not a table"),
    (lambda s: s["steps"].pop(), "records 3 steps (up to step 3), but restart.npz is at step 4"),
    (_shift_load, "entry 2 has load 0.25, but step 2 of the case is at 0.2"),
    (_append_steps, "records steps beyond step 4"),
    (lambda s: s.update(restarts={"from_step": 2}), "its 'restarts' is a table, not a list"),
    (lambda s: s.update(restarts=[3]), "'restarts' holds entries that are not tables"),
    (lambda s: s.update(reason=["interrupted"]), "its 'reason' is a list, not a string"),
])
def test_wrongly_typed_or_inconsistent_summary_entries_are_refused(capsys, tmp_path, static_folder,
                                                                   edit, words):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE,
             lambda f: _edit_summary(f, edit), "summary.json", words)


def test_a_missing_summary_is_refused(capsys, tmp_path, static_folder):
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE,
             lambda f: (f / "summary.json").unlink(), "summary.json", "is missing")


def test_a_restart_file_with_non_finite_values_is_refused(capsys, tmp_path, static_folder):
    def damage(folder):
        path = folder / "restart.npz"
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["state.u"] = arrays["state.u"].copy()
        arrays["state.u"][7] = np.nan
        np.savez(path, **arrays)
    _refused(capsys, tmp_path, static_folder, FRICTION, COARSE, damage, "restart.npz",
             "displacements or tractions are not all finite")


def _cut_series(s):
    s["time_series"]["t"] = s["time_series"]["t"][:100]


def _drop_velocity(folder):
    path = folder / "restart.npz"
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "extra.velocity"}
    np.savez(path, **arrays)


@pytest.mark.parametrize("damage, where, words", [
    (lambda f: _set_meta(f, index=-1), "restart.npz", "step index -1 is outside 1..300"),
    (lambda f: _set_meta(f, index=301), "restart.npz", "step index 301 is outside 1..300"),
    (lambda f: _set_meta(f, index=100), "restart.npz", "but step 100 of the case is at t=0.2"),
    (lambda f: _edit_summary(f, _cut_series), "summary.json",
     "'time_series.t' has 100 entries, fewer than the 126 up to step 125"),
    (lambda f: _edit_summary(f, lambda s: s["steps"].pop()), "summary.json",
     "but restart.npz is at step 125"),
    (lambda f: _edit_summary(f, lambda s: s.update(time_series=[1, 2])), "summary.json",
     "its 'time_series' is a list, not a table"),
    (_drop_velocity, "restart.npz", "it has no 'velocity'"),
    (lambda f: (f / "step_00050.vtu").unlink(), "step_00050.vtu", "no longer holds it"),
])
def test_a_damaged_dynamic_folder_is_refused(capsys, tmp_path, dynamic_folder, damage, where, words):
    _refused(capsys, tmp_path, dynamic_folder, STICKSLIP, SHORT, damage, where, words)
