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


@pytest.mark.parametrize("step", ["3", "-4", "1000000"])
def test_plot_of_a_step_the_folder_does_not_hold_is_one_line(hertz, capsys, step):
    assert main(["plot", str(hertz.out_dir), "--step", step]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {hertz.out_dir}: no output step {step}; the folder holds 3 (steps 0..2, "
                   f"or -3..-1 counted from the last)"]


def test_plot_step_that_is_not_a_number_is_one_line(hertz, capsys):
    assert main(["plot", str(hertz.out_dir), "--step", "last"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: fecontact plot: argument --step: invalid int value: 'last'"]


def test_3d_contact_patch_is_rendered(tmp_path):
    r = run(CASES / "hertz3d.toml", tmp_path, ["bodies.0.mesh.h_contact=0.06",
                                                "bodies.0.mesh.h_far=0.3"])
    from fecontact.visuals.traction import render

    paths = render(r)
    names = {p.name for p in paths}
    assert "contact_patch.png" in names and "contact_profile.png" in names
    for p in paths:
        _not_blank(p)
    # the patch is seen from the master side (straight or oblique): the camera lies against the
    # contact normal (which points from the master, a plane below the hemisphere, to the slave)
    from fecontact.visuals.traction import traction_field

    normal = r.state.normal[r.state.multiplier[:, 0] > 0].mean(axis=0)
    for master_side, bound in ((True, -0.9), (False, -0.5)):
        plotter = traction_field(r, "contact_pressure", from_master_side=master_side)
        view = np.asarray(plotter.camera.position) - np.asarray(plotter.camera.focal_point)
        plotter.close()
        assert view @ normal < bound * np.linalg.norm(view) * np.linalg.norm(normal)


def test_screenshot_in_a_script_needs_no_off_screen_argument(hertz, tmp_path):
    from fecontact.visuals.traction import traction_field

    plotter = traction_field(hertz, "contact_pressure")
    assert plotter.off_screen
    path = tmp_path / "default.png"
    plotter.screenshot(str(path))
    plotter.close()
    _not_blank(path)


def test_unknown_scalars_name_lists_the_valid_ones(hertz):
    from fecontact.visuals.traction import traction_field

    with pytest.raises(ValueError) as err:
        traction_field(hertz, "contact_presure")
    message = str(err.value)
    assert "'contact_presure'" in message and "\n" not in message
    for name in ("contact_pressure", "tangential_traction", "contact_status", "gap"):
        assert name in message


@pytest.fixture(scope="module")
def cattaneo(tmp_path_factory):
    """Coarse Cattaneo-Mindlin: stick and slip zones, tangential traction at every contact node."""
    out = tmp_path_factory.mktemp("cattaneo2d")
    return run(CASES / "cattaneo2d.toml", out, ["bodies.0.mesh.h_contact=0.1",
                                                 "bodies.1.mesh.h_contact=0.1"])


def test_tangential_view_draws_the_tangential_traction(cattaneo):
    """Arrows of the ``tangential_traction`` view: orthogonal to the contact normal of the solution."""
    from scipy.spatial import cKDTree

    from fecontact.io.output import slave_global_nodes
    from fecontact.visuals.traction import traction_field

    problem, state = cattaneo.model.problem, cattaneo.state
    nodes = slave_global_nodes(problem)
    dim = problem.dim
    deformed_nodes = (problem.X + state.u.reshape(-1, dim).T)[:, nodes].T
    plotter = traction_field(cattaneo, "tangential_traction")
    arrows = plotter.actors["traction_arrows"].mapper.dataset
    points = np.asarray(arrows.field_data["arrow_points"])[:, :dim]
    vectors = np.asarray(arrows.field_data["arrow_vectors"])[:, :dim]
    plotter.close()
    distance, k = cKDTree(deformed_nodes).query(points)
    assert distance.max() < 1e-9
    normal = state.normal[k]
    length = np.linalg.norm(vectors, axis=1)
    assert len(length) > 5 and length.min() > 0.0
    # the solver's own tangent basis is orthogonal to its normal to |tau . n| < 1e-3 (the
    # multiplier basis and the normal are not evaluated at the very same configuration): the
    # arrows are as tangential as that, where the whole traction's have a normal part ~ |t|
    assert np.abs(np.einsum("mqd,md->mq", state.multiplier_basis, state.normal)).max() < 1e-3
    assert (np.abs(np.sum(vectors * normal, axis=1)) / length).max() < 1e-3
    plotter = traction_field(cattaneo, "contact_pressure")
    whole = np.asarray(plotter.actors["traction_arrows"].mapper.dataset.field_data["arrow_vectors"])[:, :dim]
    plotter.close()
    assert (np.abs(np.sum(whole * normal, axis=1)) / np.linalg.norm(whole, axis=1)).min() > 0.9
    # and they point along the solver's tangential traction, lam_t tau
    tangential = np.einsum("mq,mqd->md", state.multiplier[k, 1:], state.multiplier_basis[k])
    cos = np.sum(vectors * tangential, axis=1) / (length * np.linalg.norm(tangential, axis=1))
    assert cos.min() > 1 - 1e-5


def test_3d_profile_coordinate_follows_the_patch():
    """Radial distance in the patch's own plane for axisymmetric contacts, even on a tilted plane;
    the signed position along the long side for a rectangular patch."""
    from fecontact.visuals.profiles import profile_coordinate

    rng = np.random.default_rng(2)
    n = np.array([0.0, 0.6, 0.8])                      # a tilted contact plane
    e1 = np.array([1.0, 0.0, 0.0])
    e2 = np.cross(n, e1)
    centre = np.array([0.3, -0.2, 1.0])
    u, v = rng.uniform(-1.0, 1.0, (2, 400))
    points = centre + np.outer(2.0 * u, e1) + np.outer(0.5 * v, e2)   # a 4 x 1 rectangle
    pressure = np.ones(400)
    coord, label, axis = profile_coordinate(points, pressure, n, axisymmetric=False)
    assert "long axis" in label and abs(abs(axis @ e1) - 1.0) < 1e-2
    np.testing.assert_allclose(np.abs(coord), np.abs((points - points.mean(axis=0)) @ axis),
                               atol=1e-12)
    radial, label, axis = profile_coordinate(points, pressure, np.tile(n, (400, 1)), True)
    assert axis is None and "axis" in label
    d = points - points.mean(axis=0)
    np.testing.assert_allclose(radial, np.linalg.norm(d - np.outer(d @ n, n), axis=1), atol=1e-12)
