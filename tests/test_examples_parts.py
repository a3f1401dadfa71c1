"""The examples docs/examples/hex_over_tet.py and two_material.py, run as the gallery runs them.

Each example is executed with ``runpy.run_path(path, run_name="example")``;
its ``FIGURES`` are checked against closed forms recomputed here (Coulomb's
mu in gross sliding, springs in series for the layered block), and its
``plot(path)`` must write a picture with content.  The bounds sit a little
above the errors measured: round-off where the discrete solution is exact,
the Newton tolerance (1e-9 relative) where it enters, and the physics of
the slip direction for the global force ratio of the 3D block.
"""

import itertools
import runpy
from pathlib import Path

import numpy as np
import pytest

import fecontact as fc
from conftest import assert_example_picture, assert_figures_are_numbers

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
MU = 0.3


@pytest.fixture(scope="module")
def hex_over_tet():
    return runpy.run_path(str(EXAMPLES / "hex_over_tet.py"), run_name="example")


@pytest.fixture(scope="module")
def two_material():
    return runpy.run_path(str(EXAMPLES / "two_material.py"), run_name="example")


# -- hexahedral block on a tetrahedral block --------------------------------------
@pytest.mark.slow
def test_hex_over_tet_gross_sliding_gives_mu(hex_over_tet):
    figures = hex_over_tet["FIGURES"]
    assert_figures_are_numbers(figures)
    assert hex_over_tet["result"].converged
    # every slave node slides at the last level, and then |t_t| = mu p node by node
    fields = hex_over_tet["result"].contact("block-on-base")
    assert figures["slipping nodes in gross sliding"]["value"] == fields.pressure.size == 81
    assert np.all(fields.status == fc.Status.SLIP) and np.all(fields.pressure > 0)
    assert np.allclose(np.linalg.norm(fields.shear, axis=1), MU * fields.pressure,
                       rtol=1e-12, atol=0)
    assert abs(figures["traction ratio in gross sliding"]["value"] - MU) < 1e-12
    # the global ratio: friction follows each node's slip, whose y-component (a few degrees,
    # left from the press) makes it a little smaller than mu; measured 1.35e-3 below
    for key in ("-F_x/F_z of the pair in gross sliding", "-R_x/R_z of the top supports"):
        value = figures[key]["value"]
        assert value <= MU
        assert value == pytest.approx(MU, rel=2e-3)
    # the top supports hold what the contact carries, to the Newton tolerance (measured 7.9e-8)
    assert figures["|R + F| / |F| (support vs contact)"]["value"] < 2e-7


@pytest.mark.slow
def test_hex_over_tet_partial_slip_shrinks_the_stick_zone(hex_over_tet):
    status = hex_over_tet["STATUS"]
    assert [s[0] for s in status] == hex_over_tet["LEVELS"]
    assert all(stick + slip == 81 for _, _, stick, slip in status)       # no node opens
    pulling = [stick for t, _, stick, _ in status if t > 0.5]
    assert all(a >= b for a, b in itertools.pairwise(pulling))    # stick zone shrinks
    assert pulling[0] > 40 and pulling[-1] == 0
    partial = [s for s in status if 0 < s[2] < 81 and s[0] > 0.5]
    assert len(partial) >= 4                             # several partial-slip levels
    # at the pictured level the stick zone lies behind the slip zone (the trailing edge, x < 0)
    fields = hex_over_tet["partial"].contact()
    stick = fields.status == fc.Status.STICK
    assert 0 < stick.sum() < stick.size
    assert fields.points[0, stick].mean() < 0 < fields.points[0, ~stick].mean()


@pytest.mark.slow
def test_hex_over_tet_plot(hex_over_tet, tmp_path):
    hex_over_tet["plot"](tmp_path / "x.png")
    assert_example_picture(tmp_path / "x.png")


# -- two materials ---------------------------------------------------------------
def constrained_modulus(E, nu):
    return E * (1 - nu) / ((1 + nu) * (1 - 2 * nu))


def test_layered_block_is_two_springs_in_series(two_material):
    figures = two_material["FIGURES"]
    assert_figures_are_numbers(figures)
    # rubber pad (E 20, nu 0.45, 0.1 thick) under a polymer block (E 1000, nu 0.4, 1.0 thick),
    # sides on rollers, top pushed down 0.002: uniaxial strain in each layer
    m_pad, m_block = constrained_modulus(20.0, 0.45), constrained_modulus(1000.0, 0.4)
    pressure = 0.002 / (0.1 / m_pad + 1.0 / m_block)
    # Q1 elements hold the piecewise-linear solution exactly: round-off (measured <= 1.6e-14)
    assert figures["layered block: contact pressure (mean)"]["value"] == pytest.approx(
        pressure, rel=1e-13)
    assert figures["layered block: top reaction per width"]["value"] == pytest.approx(
        pressure, rel=1e-13)
    assert figures["layered block: contact pressure spread (max - min)"]["value"] < 1e-13
    assert figures["layered block: interface displacement u_y"]["value"] == pytest.approx(
        -pressure * 0.1 / m_pad, rel=1e-13)
    assert np.allclose(two_material["layered"].pressure, pressure, rtol=1e-13, atol=0)


def test_wheel_balance_friction_and_the_one_material_limit(two_material):
    figures = two_material["FIGURES"]
    result = two_material["two"]
    assert result.converged
    # contact force against the axle reaction (measured 4.1e-12)
    assert figures["wheel: |F_contact + R_axle| / |F_contact|"]["value"] < 2e-11
    # partial slip: some nodes stick, some slip, and the slipping ones are on the cone
    fields = result.contact("tyre")
    closed = fields.status != fc.Status.OPEN
    slipping = fields.status == fc.Status.SLIP
    assert slipping.any() and (fields.status == fc.Status.STICK).any()
    assert figures["wheel: max | |t_t| / p - mu | at slipping nodes"]["value"] < 1e-14
    assert np.all(np.abs(fields.shear[closed, 0]) <= MU * fields.pressure[closed] * (1 + 1e-12))
    # hub and rim of one material: the one-material body, bit for bit
    assert figures["wheel: hub = rim = rubber vs one material, max |du| / max |u|"]["value"] == 0.0
    same, one = two_material["same"], two_material["one"]
    assert np.array_equal(same.state.multiplier, one.state.multiplier)
    # the steel hub matters: the stiffer wheel needs a larger force for the same axle travel
    # (measured 1.89 times the all-rubber wheel's)
    assert result.pair("tyre").force[1] > 1.5 * one.pair("tyre").force[1]


def test_two_material_plot(two_material, tmp_path):
    two_material["plot"](tmp_path / "x.png")
    assert_example_picture(tmp_path / "x.png")
