"""Figures and ParaView series of a result folder: rendered off-screen and read back with pyvista."""

import json

import numpy as np
import pytest

from conftest import CASES
from fecontact.cli import main
from fecontact.run.static import run

pv = pytest.importorskip("pyvista")


@pytest.fixture(scope="module")
def hertz(tmp_path_factory):
    out = tmp_path_factory.mktemp("hertz2d")
    return run(CASES / "hertz2d.toml", out, ["bodies.0.mesh.h_contact=0.01", "steps.count=3"])


def _not_blank(path):
    import matplotlib.image as mpimg

    img = mpimg.imread(path)[..., :3]
    # more than a background: several distinct colours over a sizeable area
    assert img.shape[0] >= 300 and img.shape[1] >= 300
    assert img.std() > 0.02
    colours = np.unique((img.reshape(-1, 3) * 255).astype(int), axis=0)
    assert len(colours) > 20


def test_plot_command_renders_every_figure(hertz, capsys):
    assert main(["plot", str(hertz.out_dir)]) == 0
    printed = capsys.readouterr().out.split()
    names = {p.split("/")[-1] for p in printed}
    assert names == {"deformed_von_mises.png", "contact_pressure.png", "contact_traction.png",
                     "contact_status.png", "contact_profile.png", "newton_history.png"}
    for path in printed:
        _not_blank(path)


def test_grid_has_all_point_data_and_matches_the_state(hertz):
    from fecontact.visuals.results import to_grid

    grid = to_grid(hertz)
    assert isinstance(grid, pv.UnstructuredGrid)
    for key in ("displacement", "contact_pressure", "contact_traction", "gap", "slip",
                "contact_status", "friction_state", "von_mises", "body", "slave"):
        assert key in grid.point_data
    np.testing.assert_allclose(grid.point_data["displacement"][:, :2], hertz.state.u.reshape(-1, 2))
    assert grid.point_data["slave"].sum() == hertz.model.problem.n_contact


def test_traction_field_returns_a_plotter(hertz, tmp_path):
    from fecontact.visuals.traction import traction_field

    plotter = traction_field(hertz, "contact_pressure", off_screen=True)
    assert isinstance(plotter, pv.Plotter)
    path = tmp_path / "field.png"
    plotter.screenshot(str(path))
    plotter.close()
    _not_blank(path)


def test_pvd_series_reads_back_in_pyvista(hertz):
    s = json.loads((hertz.out_dir / "summary.json").read_text())
    reader = pv.get_reader(str(hertz.out_dir / "hertz2d.pvd"))
    times = reader.time_values
    assert np.allclose(times, [step["load"] for step in s["steps"]])
    reader.set_active_time_value(times[-1])
    last = reader.read()[0]
    np.testing.assert_allclose(last.point_data["contact_pressure"][hertz.model.problem.pairs[0].slave.nodes],
                               hertz.state.multiplier[:, 0])


def test_plot_of_a_folder_without_results_is_one_line(tmp_path, capsys):
    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no summary.json" in err and err.count("\n") == 1


def test_3d_contact_patch_is_rendered(tmp_path):
    r = run(CASES / "hertz3d.toml", tmp_path, ["bodies.0.mesh.h_contact=0.06",
                                                "bodies.0.mesh.h_far=0.3"])
    from fecontact.visuals.traction import render

    paths = render(r)
    names = {p.name for p in paths}
    assert "contact_patch.png" in names and "contact_profile.png" in names
    for p in paths:
        _not_blank(p)
