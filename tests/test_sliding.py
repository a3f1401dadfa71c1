"""Pieces that large sliding relies on: segment hysteresis at master vertices, the
internal force of a stiff body moved far, the augmentation of a soft/stiff pair, and
the summary rewritten after every output level."""

import json

import numpy as np

from conftest import CASES
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.io.output import write_summary
from fecontact.solve.problem import automatic_augmentation
from fecontact.contact.search import closest_segments

SMALL_IRONING = ["bodies.0.mesh.nx=24", "bodies.0.mesh.ny=4", "bodies.1.mesh.h_contact=0.1",
                 "bodies.1.mesh.h_far=1.0", "bodies.1.mesh.refine_width=0.5"]


def test_segment_hysteresis_keeps_the_previous_segment_near_a_vertex():
    """A node just beyond the vertex of a shallow roof keeps its previous segment
    while its parameter stays within the 5% margin, and switches beyond it."""
    slope = 0.02
    x_a = np.array([[-1.0, -slope], [0.0, 0.0]])
    x_b = np.array([[0.0, 0.0], [1.0, -slope]])
    pts = np.array([[0.005, 0.05], [0.2, 0.05]])
    fresh = closest_segments(pts, x_a, x_b)
    np.testing.assert_array_equal(fresh.segment, [1, 1])
    kept = closest_segments(pts, x_a, x_b, previous=np.array([0, 0]))
    np.testing.assert_array_equal(kept.segment, [0, 1])
    # the kept node's parameter is past the end of its segment, by less than 5%
    assert 1.0 < kept.xi[0] < 1.05
    np.testing.assert_allclose(kept.distance[0], np.linalg.norm(pts[0]))   # to the vertex
    none = closest_segments(pts, x_a, x_b, previous=np.array([-1, -1]))
    np.testing.assert_array_equal(none.segment, fresh.segment)
    np.testing.assert_array_equal(none.xi, fresh.xi)


def test_internal_force_does_not_depend_on_how_far_a_stiff_body_moved():
    """K annihilates rigid translations: moving the die by 3 adds no internal force
    and no rounding error beyond that of storing its displacement relative to 3."""
    model = build_model(load_case(CASES / "ironing2d.toml", SMALL_IRONING))
    sysm = model.problem.system
    rng = np.random.default_rng(1)
    u = 1e-4 * rng.standard_normal(sysm.n_dofs)
    die_x = np.zeros(sysm.n_dofs, dtype=bool)
    die_x[sysm.dim * sysm.node_offset[1]:sysm.dim * sysm.node_offset[2]:sysm.dim] = True
    np.testing.assert_allclose(sysm.internal_force(u), sysm.K @ u, rtol=0,
                               atol=1e-12 * np.abs(sysm.K @ u).max())
    moved = u.copy()
    moved[die_x] += 3.0
    stored = moved.copy()
    stored[die_x] -= 3.0            # the deformation as the moved vector holds it
    reference = sysm.K @ stored
    rounding = abs(sysm.K).max() * 3.0 * np.finfo(float).eps      # eps |K| U per row
    error = np.abs(sysm.internal_force(moved) - reference).max()
    assert error <= 1e-2 * rounding
    # K applied to the moved vector itself carries the rounding of the translation
    assert np.abs(sysm.K @ moved - reference).max() > 10.0 * error


def test_augmentation_of_a_pair_uses_both_moduli_in_series():
    """1/c = h/E'_slave + h/E'_master for a deformable master; E'/h against an obstacle."""
    model = build_model(load_case(CASES / "ironing2d.toml", SMALL_IRONING))
    problem = model.problem
    pair = problem.pairs[0]
    block, die = (problem.system.bodies[i].material for i in (pair.slave.body, pair.master.body))
    E_block, E_die = (m.E / (1.0 - m.nu**2) for m in (block, die))       # plane strain
    h = pair.slave.area
    np.testing.assert_allclose(pair.c_n, 1.0 / (h / E_block + h / E_die), rtol=1e-12)
    np.testing.assert_allclose(pair.c_t, pair.c_n)
    alone = automatic_augmentation(problem.system, pair.slave.body, h, 2.0)
    np.testing.assert_allclose(alone, 2.0 * E_block / h, rtol=1e-12)
    # the softer body governs: within 1% of the block's own E'/h here (E_die = 100 E_block)
    assert np.all(np.abs(pair.c_n / (E_block / h) - 1.0) < 0.01)


def test_summary_written_step_by_step_equals_one_json_dump(tmp_path):
    summary = {"case": "x", "converged": False, "steps": [],
               "timings": {"total": np.float64(1.5)}}
    cache: dict = {}
    for i in range(4):
        summary["steps"].append({"load": float(i), "iterations": [{"it": np.int64(i)}],
                                 "reaction": {"a": [0.0, np.float64(i), 1e-300]}})
        write_summary(tmp_path / "s.json", summary, cache)
    write_summary(tmp_path / "plain.json", summary)
    text = (tmp_path / "s.json").read_text()
    assert text == (tmp_path / "plain.json").read_text()
    assert json.loads(text)["steps"][3]["reaction"]["a"][1] == 3.0
    empty = {"case": "y", "steps": []}
    write_summary(tmp_path / "e.json", empty, {})
    assert json.loads((tmp_path / "e.json").read_text()) == empty


def test_time_series_written_step_by_step_equal_one_write_and_read_back(tmp_path):
    """Each series is one line; the cached text equals an uncached write and parses back exactly."""
    series = {"t": [], "energy": [], "slip_velocity": {"base": []}, "empty": {}}
    summary = {"case": "d", "time_series": series, "steps": []}
    cache: dict = {}
    for i in range(5):
        series["t"].append(0.1 * i)
        series["energy"].append(np.float64(1.0 / (i + 1)))
        series["slip_velocity"]["base"].append([float(i), -1e-300])
        write_summary(tmp_path / "s.json", summary, cache)
    write_summary(tmp_path / "plain.json", summary)
    text = (tmp_path / "s.json").read_text()
    assert text == (tmp_path / "plain.json").read_text()
    back = json.loads(text)["time_series"]
    assert back["t"] == [0.1 * i for i in range(5)] and back["energy"][2] == 1.0 / 3.0
    assert back["slip_velocity"]["base"][4] == [4.0, -1e-300] and back["empty"] == {}
    assert len(text.splitlines()) < 20
