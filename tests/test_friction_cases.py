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

    def get(name, overrides=()):
        key = (name, tuple(overrides))
        if key not in cache:
            cache[key] = run(CASES / f"{name}.toml", tmp_path_factory.mktemp(name), list(overrides),
                             write_vtu_files=False)
        return cache[key]
    return get


# The law comparisons on hertz2d_friction take the case's levels as increments (not the case's
# closing control, solver.max_closing = 8): each comparison needs the same increments for both
# laws, and the lagged IPC law fails to converge (t = 0.478) in the control's short, unequal
# increments
UNCONTROLLED = {"hertz2d_friction": ("solver.max_closing=1000000",)}


@pytest.mark.parametrize("case", ["cattaneo2d", "hertz2d_friction"])
@pytest.mark.parametrize("law", ["static_kinetic", "velocity"])
def test_return_map_laws_with_equal_coefficients_are_coulomb(case, law, coulomb, tmp_path):
    stepping = UNCONTROLLED.get(case, ())
    base = coulomb(case, stepping)
    other = run(CASES / f"{case}.toml", tmp_path, [f"friction.law={law}", "friction.dc=50.0",
                                                    *stepping], write_vtu_files=False)
    assert other.summary["converged"]
    np.testing.assert_allclose(other.state.multiplier, base.state.multiplier, rtol=0,
                               atol=1e-8 * np.abs(base.state.multiplier).max())
    np.testing.assert_allclose(other.state.u, base.state.u, rtol=0, atol=1e-8 * np.abs(base.state.u).max())
    np.testing.assert_array_equal(other.state.status, base.state.status)


@pytest.fixture(scope="module")
def ipc(tmp_path_factory):
    """The case run with the smooth IPC law at eps_v = 1e-5 (slip rates in slip zones are 1e-3 and more)."""
    runs = {}

    def get(name):
        if name not in runs:
            out = tmp_path_factory.mktemp(f"ipc-{name}")
            runs[name] = run(CASES / f"{name}.toml", out, ["friction.law=ipc", "friction.eps_v=1e-5",
                                                           *UNCONTROLLED.get(name, ())],
                             write_vtu_files=False)
        return runs[name]
    return get


@pytest.mark.slow
def test_smooth_ipc_law_meets_mindlin_on_cattaneo2d(ipc):
    """Mindlin's targets as with Coulomb."""
    r = ipc("cattaneo2d")
    assert r.summary["converged"]
    m = r.summary["metrics"]
    assert abs(m["load_ratio"]["value"] - 0.5) < 1e-3
    assert m["stick_half_width"]["rel_error"] <= 0.03
    assert m["shear_traction_l2_error"]["value"] <= 0.05


def _ipc_coulomb_traction_gap(coulomb, ipc) -> float:
    base, r = coulomb("cattaneo2d"), ipc("cattaneo2d")
    scale = np.abs(base.state.multiplier).max()
    return float(np.abs(r.state.multiplier - base.state.multiplier).max() / scale)


# IPC keeps one lag per increment (a node closing inside it has no lagged normal force, so no
# friction), while Coulomb gives a closing node friction at once; the two laws then differ at the
# ring of nodes that closed in the last increment (measured 3.0 % of the peak traction; 4.5 %
# when Coulomb's closing nodes measured their slip from their start projection)
@pytest.mark.xfail(strict=True, reason="IPC's closing nodes have no friction in their closing "
                   "increment, Coulomb's have (3.0 % of the peak traction on cattaneo2d)")
def test_smooth_ipc_law_approaches_coulomb_on_cattaneo2d(coulomb, ipc):
    assert _ipc_coulomb_traction_gap(coulomb, ipc) <= 0.01


def test_smooth_ipc_law_stays_near_coulomb_on_cattaneo2d(coulomb, ipc):
    """Regression bound on the figure the xfail above measures (0.030)."""
    assert _ipc_coulomb_traction_gap(coulomb, ipc) <= 0.035


def _ipc_coulomb_metric_gaps(coulomb, ipc) -> dict:
    base = coulomb("hertz2d_friction", UNCONTROLLED["hertz2d_friction"])
    r = ipc("hertz2d_friction")
    assert r.summary["converged"]
    m, b = r.summary["metrics"], base.summary["metrics"]
    return {key: abs(m[key]["value"] - b[key]["value"]) / abs(b[key]["value"])
            for key in ("load", "peak_pressure", "contact_half_width")}


@pytest.mark.xfail(strict=True, reason="IPC's closing nodes have no friction in their closing "
                   "increment, Coulomb's have (load 1.8e-3, peak pressure 1.9e-2 apart on "
                   "hertz2d_friction)")
def test_smooth_ipc_law_on_hertz2d_friction(coulomb, ipc):
    assert max(_ipc_coulomb_metric_gaps(coulomb, ipc).values()) <= 1e-3


def test_smooth_ipc_law_near_coulomb_on_hertz2d_friction(coulomb, ipc):
    """Regression bounds on the figures the xfail above measures (1.8e-3, 1.9e-2, 9.1e-3)."""
    gaps = _ipc_coulomb_metric_gaps(coulomb, ipc)
    assert gaps["load"] <= 2.5e-3
    assert gaps["peak_pressure"] <= 0.021
    assert gaps["contact_half_width"] <= 0.01
