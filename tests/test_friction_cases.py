"""The friction laws on the 2D benchmark cases: with mu_s = mu_k they reproduce Coulomb.

Runs ``cattaneo2d`` and ``hertz2d_friction`` with ``--set friction.law=...``
(the law's ``mu_s`` and ``mu_k`` default to the case's ``mu``).
"""

import numpy as np
import pytest

from conftest import CASES
from fecontact.run.static import run


@pytest.fixture(scope="module")
def coulomb(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run(CASES / f"{name}.toml", tmp_path_factory.mktemp(name), write_vtu_files=False)
        return cache[name]
    return get


@pytest.mark.parametrize("case", ["cattaneo2d", "hertz2d_friction"])
@pytest.mark.parametrize("law", ["static_kinetic", "velocity"])
def test_return_map_laws_with_equal_coefficients_are_coulomb(case, law, coulomb, tmp_path):
    base = coulomb(case)
    other = run(CASES / f"{case}.toml", tmp_path, [f"friction.law={law}", "friction.dc=50.0"],
                write_vtu_files=False)
    assert other.summary["converged"]
    np.testing.assert_allclose(other.state.multiplier, base.state.multiplier, rtol=0,
                               atol=1e-8 * np.abs(base.state.multiplier).max())
    np.testing.assert_allclose(other.state.u, base.state.u, rtol=0, atol=1e-8 * np.abs(base.state.u).max())
    np.testing.assert_array_equal(other.state.status, base.state.status)


def test_smooth_ipc_law_approaches_coulomb_on_cattaneo2d(coulomb, tmp_path):
    """eps_v = 1e-5 (slip rates in the slip zone are 1e-3 and more): Mindlin's targets as with Coulomb."""
    base = coulomb("cattaneo2d")
    r = run(CASES / "cattaneo2d.toml", tmp_path, ["friction.law=ipc", "friction.eps_v=1e-5"],
            write_vtu_files=False)
    assert r.summary["converged"]
    m = r.summary["metrics"]
    assert abs(m["load_ratio"]["value"] - 0.5) < 1e-3
    assert m["stick_half_width"]["rel_error"] <= 0.03
    assert m["shear_traction_l2_error"]["value"] <= 0.05
    scale = np.abs(base.state.multiplier).max()
    assert np.abs(r.state.multiplier - base.state.multiplier).max() <= 0.01 * scale


def test_smooth_ipc_law_on_hertz2d_friction(coulomb, tmp_path):
    base = coulomb("hertz2d_friction")
    r = run(CASES / "hertz2d_friction.toml", tmp_path, ["friction.law=ipc", "friction.eps_v=1e-5"],
            write_vtu_files=False)
    assert r.summary["converged"]
    m, b = r.summary["metrics"], base.summary["metrics"]
    for key in ("load", "peak_pressure", "contact_half_width"):
        assert abs(m[key]["value"] - b[key]["value"]) <= 1e-3 * abs(b[key]["value"])
