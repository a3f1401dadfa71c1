"""Contact pressure on unstructured Gmsh meshes, against Hertz and Lamé.

Smaller versions of the two models of ``docs/make_contact_accuracy.py`` (the same functions
build them): a steel sphere on an aluminium flat of hexahedra or tetrahedra (quarter model,
``SMALL`` mesh sizes; the page's ``FULL`` size on the flat of tetrahedra in a ``slow`` test),
and a hub shrunk on a shaft with faceted circles of 20 and 32 chords per quarter (and 32/32 as
the matching control), with the contact defaults (``formulation="auto"``: mortar on the flat
of tetrahedra and on the non-matching circles, node-to-facet on the flat of hexahedra and on the
matching circles) and, for comparison, the formulations the defaults replaced.

What holds is asserted as it is: force balance, the contact radius, the matching control.
Each accuracy target not yet met is an ``xfail(strict=True)`` test of the target, next to a
plain regression bound on the same figure, measured on the test's mesh (gmsh 4.15) with the
margin stated in the test.  When a target is met, its xfail turns into a failure: remove the
mark and tighten the bound.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))           # the script's meshes module sits next to it
_spec = importlib.util.spec_from_file_location("make_contact_accuracy", ROOT / "docs" / "make_contact_accuracy.py")
acc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = acc                # its dataclasses look their module up
_spec.loader.exec_module(acc)

TARGETS = acc.TARGETS


@pytest.fixture(scope="module", params=["hex", "tet"])
def sphere(request):
    run = acc.solve_sphere(request.param, acc.SMALL)
    assert run["converged"], run["failure"]
    return run


# --- sphere on an elastic flat -------------------------------------------------------------

@pytest.mark.slow
def test_sphere_model_is_gmsh_tetrahedra_on_the_flat_of_its_variant(sphere):
    assert sphere["sphere"]["kind"] == "MeshTet1"
    assert sphere["flat"]["kind"] == {"hex": "MeshHex1", "tet": "MeshTet1"}[sphere["variant"]]
    assert sphere["dofs"] < 20_000
    # the contact patch is resolved by several rings of nodes
    assert sphere["closed_nodes"] >= 15 and sphere["core_nodes"] >= 10


@pytest.mark.slow
def test_sphere_contact_force_balances_the_supports(sphere):
    # both supports carry the contact resultant: the sphere's top and the flat's base
    assert sphere["balance"] <= 1e-8


@pytest.mark.slow
def test_sphere_contact_radius_meets_the_target(sphere):
    assert abs(sphere["radius_error"]) <= TARGETS["radius"]


#: measured on the SMALL meshes (gmsh 4.15.2), per flat (hexahedra: node-to-facet, tetrahedra:
#: mortar); each bound is the figure + 1 percentage point
SPHERE_MEASURED = {
    "peak_error": {"hex": 0.1423, "tet": 0.0877},
    "rms_core": {"hex": 0.1162, "tet": 0.0799},
    "fit_p0_error": {"hex": 0.0374, "tet": 0.0538},
    "fit_radius_error": {"hex": -0.0178, "tet": -0.0299},
}
MARGIN = 0.01


@pytest.mark.slow
def test_sphere_defaults_choose_mortar_on_tetrahedra_and_node_to_facet_on_hexahedra(sphere):
    assert sphere["method"] == {"hex": "node_to_segment", "tet": "mortar"}[sphere["variant"]]


@pytest.mark.slow
def test_sphere_fitted_hertz_profile_regression_bound(sphere):
    """The Hertz profile fitted to the nodal pressures (no target: the nodal scatter biases it on
    a mesh this coarse; a few per cent on the page's meshes)."""
    for key in ("fit_p0_error", "fit_radius_error"):
        assert abs(sphere[key]) <= abs(SPHERE_MEASURED[key][sphere["variant"]]) + MARGIN, key


@pytest.mark.xfail(strict=True, reason="on these coarse meshes (h = 0.15 at the pole, a few nodes per contact "
                   "radius) the peak is above the target: node-to-facet on the hexahedra scatters, mortar on the "
                   "tetrahedra is first-order; the page's FULL meshes meet it with mortar (test below)")
@pytest.mark.slow
def test_sphere_peak_pressure_target(sphere):
    assert abs(sphere["peak_error"]) <= TARGETS["peak"]


@pytest.mark.slow
def test_sphere_peak_pressure_regression_bound(sphere):
    """Bound on the figure the xfail above measures."""
    assert abs(sphere["peak_error"]) <= SPHERE_MEASURED["peak_error"][sphere["variant"]] + MARGIN


@pytest.mark.xfail(strict=True, reason="on these coarse meshes the nodal pressures are off Hertz by more than "
                   "5 % RMS inside the contact; the page's FULL meshes meet it with mortar (test below)")
@pytest.mark.slow
def test_sphere_pressure_rms_target(sphere):
    assert sphere["rms_core"] <= TARGETS["rms"]


@pytest.mark.slow
def test_sphere_pressure_rms_regression_bound(sphere):
    """Bound on the figure the xfail above measures."""
    assert sphere["rms_core"] <= SPHERE_MEASURED["rms_core"][sphere["variant"]] + MARGIN


@pytest.mark.slow
def test_sphere_on_tetrahedra_meets_every_target_with_the_defaults():
    """The page's FULL meshes (h = 0.1 at the pole, 13k DOFs): mortar, chosen by the defaults,
    meets the peak, RMS and radius targets; node-to-facet on the same meshes does not."""
    run = acc.solve_sphere("tet", acc.FULL)
    assert run["converged"] and run["method"] == "mortar"
    assert abs(run["peak_error"]) <= TARGETS["peak"]
    assert run["rms_core"] <= TARGETS["rms"]
    assert abs(run["radius_error"]) <= TARGETS["radius"]
    nts = acc.solve_sphere("tet", acc.FULL, "node_to_segment")
    assert nts["converged"] and nts["rms_core"] > TARGETS["rms"]


# --- shrink fit --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fits():
    runs = {acc._key(*v): acc.shrink_fit(*v) for v in acc.FIT_VARIANTS}
    for key, run in runs.items():
        assert run["converged"], (key, run.get("failure"))
    return runs


def test_lame_pressure_of_the_fit():
    # E = 200e3, nu = 0.3, delta = 1e-3 b, c = 2 b: p = E delta (c^2 - b^2) / (2 b c^2 (1 - nu^2))
    p = acc.lame_pressure(200e3, 0.3, 1.0, 2.0, 1e-3)
    assert p == pytest.approx(75.0 / 0.91, rel=1e-12)
    assert round(p, 2) == 82.42


def test_shrink_fit_contact_force_balances_the_supports(fits):
    for key, run in fits.items():
        assert run["balance"] <= 1e-8, key


@pytest.mark.parametrize("key", ["hub/default/default/32-32", "hub/mortar/default/32-32"])
def test_matching_circles_meet_the_targets(fits, key):
    """32 chords per quarter on both circles, node angles matching: every node within 5 %."""
    run = fits[key]
    assert run["slave_nodes"] == 33 and run["open"] == 0
    assert abs(run["mean_error"]) <= TARGETS["fit_mean"]
    assert run["worst_node_error"] <= TARGETS["fit_node"]


@pytest.mark.parametrize("slave", ["hub", "shaft"])
def test_non_matching_circles_meet_the_targets_with_the_defaults(fits, slave):
    """20 against 32 chords: the defaults choose mortar, integrated on the smoothed curves."""
    run = fits[f"{slave}/default/default/20-32"]
    assert run["method"] == "mortar" and run["open"] == 0
    assert abs(run["mean_error"]) <= TARGETS["fit_mean"]
    assert run["worst_node_error"] <= TARGETS["fit_node"]


#: (|mean error|, worst node error, open nodes) measured (gmsh 4.15.2) with the formulations the
#: defaults replace; the bounds add 3 % of each error figure and no open node
FIT_MEASURED = {
    "hub/node_to_segment/default/20-32": (0.0015, 0.1050, 0),
    "shaft/node_to_segment/default/20-32": (0.0021, 0.1220, 0),
}


@pytest.mark.parametrize("key", list(FIT_MEASURED))
def test_node_to_segment_on_the_smoothed_master_regression_bounds(fits, key):
    """Node-to-segment on the smoothed master: the mean within 2 %, no node open; its nodes are
    off by up to about 12 % (the non-matching transfer), bounded here."""
    run = fits[key]
    mean, worst, n_open = FIT_MEASURED[key]
    assert abs(run["mean_error"]) <= TARGETS["fit_mean"]
    assert run["worst_node_error"] <= 1.03 * worst
    assert run["open"] <= n_open


@pytest.mark.parametrize("key", ["hub/node_to_segment/none/20-32", "shaft/node_to_segment/none/20-32",
                                 "hub/mortar/none/20-32", "shaft/mortar/none/20-32"])
def test_straight_chords_turn_the_sag_into_pressure_error(fits, key):
    """Without smoothing the chord sag (a third of the interference) is in the gaps: the mean is off
    by more than 10 % with either formulation, which is what the smoothing removes."""
    assert abs(fits[key]["mean_error"]) > 0.10


def test_the_page_is_its_script_rendering_of_the_saved_figures():
    """docs/contact_accuracy.md is written whole by the script: re-rendering its JSON reproduces it."""
    import json
    data = json.loads(acc.DATA.read_text())
    assert acc.PAGE.read_text() == acc.render(data), "run python docs/make_contact_accuracy.py --page-only"
    assert set(data["sphere"]) == set(acc.SPHERE_VARIANTS) and len(data["fit"]) == len(acc.FIT_VARIANTS)
    assert all(run["dofs"] <= 80_000 for run in data["sphere"].values())
