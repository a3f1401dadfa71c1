"""The sensitivity examples docs/examples/identify_friction_modulus.py and punch_crowning.py.

Each example is executed as the gallery runs it (``runpy.run_path(path,
run_name="example")``, once per module) and checked against references
computed here or independent of the adjoint:

* identify_friction_modulus: the identified E and mu against the true
  values the fine-mesh data were made with (within 2 %); the forward solves
  of L-BFGS-B with adjoint gradients against those of Nelder-Mead to the
  same misfit; the misfit of ``fc.qoi.Misfit`` against the one recomputed
  from ``Solution.reaction`` at every level; the adjoint gradient of the
  misfit in (E, mu) against central finite differences of full re-solves
  that take the same increments (Newton tolerance 1e-12).
* punch_crowning: the flat punch's peak-to-mean pressure and
  ``PressureUniformity`` against the crowned punch's (lowered, by at least
  the factors measured less a margin); the uniformity recomputed here from
  the contact pressures and nodal lengths of the slave nodes' coordinates;
  the force held by the equality constraint; the crown height against the
  one compatible with a uniform pressure (two linear solves without
  contact); the adjoint derivative of the uniformity and of the top's
  reaction with respect to one entry of the shape parameter, in the
  example's model at the optimised crown, against central finite
  differences of full re-solves.

The bounds sit a little beyond the figures measured (given beside them).
Both examples run an optimisation (about 30 s each), so their tests are slow.
"""

import runpy
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_example_picture, assert_figures_are_numbers

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
TIGHT = {"tolerance": 1e-12}


@pytest.fixture(scope="module")
def identify():
    return runpy.run_path(str(EXAMPLES / "identify_friction_modulus.py"), run_name="example")


@pytest.fixture(scope="module")
def crowning():
    return runpy.run_path(str(EXAMPLES / "punch_crowning.py"), run_name="example")


# -- identifying E and mu ----------------------------------------------------------
@pytest.mark.slow
def test_identified_values_within_two_percent(identify):
    figures = identify["FIGURES"]
    assert_figures_are_numbers(figures)
    # the data: a 32 x 16 mesh with E = 1000, mu = 0.3 and 1 % noise; the fit on 16 x 8
    # (measured E 992.27, -0.77 %; mu 0.30276, +0.92 %)
    assert identify["E_FIT"] == pytest.approx(1000.0, rel=0.02)
    assert identify["MU_FIT"] == pytest.approx(0.3, rel=0.02)
    assert figures["identified E"]["value"] == identify["E_FIT"]
    assert figures["identified mu"]["value"] == identify["MU_FIT"]
    # the fit reproduces both histories to about the noise (1 %) and the mesh's error:
    # measured 1.6 % (normal) and 1.5 % (tangential) of each history's largest value
    fitted, data = identify["fitted"], identify["data"]
    scale = np.abs(data).max(axis=1, keepdims=True)
    assert np.all(np.abs(fitted - data) / scale < 0.025)


@pytest.mark.slow
def test_gradients_need_fewer_solves(identify):
    # to within 1 % of the best misfit: measured 16 solves with gradients, 75 without
    with_gradients, without = identify["SOLVES_GRADIENT"], identify["SOLVES_FREE"]
    assert with_gradients is not None and without is not None
    assert with_gradients < without
    assert with_gradients <= 0.5 * without
    target = identify["TARGET"]
    assert min(f for _, f, *_ in identify["without"].trace) <= target
    # the solves are counted once each: one per entry of the trace
    for counted in (identify["with_gradients"], identify["without"]):
        assert [t[0] for t in counted.trace] == list(range(1, counted.solves + 1))


@pytest.mark.slow
def test_misfit_is_the_reaction_histories_least_squares(identify):
    """``fc.qoi.Misfit`` (summed) against the misfit recomputed from ``Solution.reaction``."""
    E, MU, model = identify["E"], identify["MU"], identify["model"]
    result = model.with_values({E: 750.0, MU: 0.4}).solve(levels=identify["LEVELS"], newton=TIGHT)
    value = result.gradient(identify["misfit"], wrt=[]).value
    per_level = np.array([[result.at(k).reaction(name)[c] for k in range(8)]
                          for name, c in (("top-y", 1), ("top-x", 0))])
    by_hand = np.sum(identify["weights"][:, None] * (per_level - identify["data"]) ** 2)
    assert value == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.slow
def test_misfit_gradient_against_finite_differences(identify):
    """d misfit / d(E, mu) by the adjoint of the frictional path vs central differences of re-solves."""
    E, MU, model, misfit = identify["E"], identify["MU"], identify["model"], identify["misfit"]
    levels = identify["LEVELS"]
    point = {E: 750.0, MU: 0.4}
    base = model.with_values(point).solve(levels=levels, newton=TIGHT)
    g = base.gradient(misfit, wrt=[E, MU])
    assert g.margin > 1e-3
    for param, step in ((E, 750.0 * 1e-5), (MU, 0.4 * 1e-5)):
        values = []
        for sign in (1, -1):
            moved = dict(point)
            moved[param] = point[param] + sign * step
            run = model.with_values(moved).solve(levels=levels, newton=TIGHT)
            assert len(run.increments) == len(base.increments)
            values.append(run.gradient(misfit, wrt=[]).value)
        fd = (values[0] - values[1]) / (2 * step)
        # measured 8e-11 (E) and 1.1e-10 (mu); the margin to a status change 3.1e-3
        assert g[param] == pytest.approx(fd, rel=1e-7), param.name


@pytest.mark.slow
def test_identify_plot(identify, tmp_path):
    identify["plot"](tmp_path / "x.png")
    assert_example_picture(tmp_path / "x.png")


# -- crowning the punch ------------------------------------------------------------
@pytest.mark.slow
def test_crowning_flattens_the_pressure(crowning):
    figures = crowning["FIGURES"]
    assert_figures_are_numbers(figures)
    peak = figures["peak / mean pressure (crowned vs flat)"]
    uniformity = figures["PressureUniformity (crowned vs flat)"]
    # measured: peak / mean 4.62 -> 1.076; uniformity 0.890 -> 0.00251 (354 times smaller)
    assert peak["value"] < peak["reference"]
    assert peak["reference"] > 4.0 and peak["value"] < 1.1
    assert uniformity["value"] < uniformity["reference"] / 300.0
    # the flat punch's pressure peaks at its edges, the crowned one's does not
    p_flat, p_opt = crowning["p_flat"], crowning["p_opt"]
    assert np.argmax(p_flat) in (0, p_flat.size - 1)
    assert np.all(p_opt > 0.85 * crowning["MEAN_OPT"])


@pytest.mark.slow
def test_crowning_uniformity_recomputed_and_force_held(crowning):
    x, p, length = crowning["x_opt"], crowning["p_opt"], crowning["l_opt"]
    # nodal lengths from the foundation's slave nodes (0.125 apart on |x| <= 1)
    assert x[0] == pytest.approx(-1.0) and x[-1] == pytest.approx(1.0)
    assert length.sum() == pytest.approx(2.0)
    mean = length @ p / length.sum()
    by_hand = length @ (p - mean) ** 2 / (length.sum() * mean**2)
    assert crowning["U_CROWNED"] == pytest.approx(by_hand, rel=1e-10)
    # the equality constraint held the punch's force (measured 4.9e-9)
    force = crowning["FIGURES"]["punch force (crowned vs flat)"]
    assert force["value"] == pytest.approx(force["reference"], rel=1e-6)


@pytest.mark.slow
def test_crown_height_is_compatible_with_a_uniform_pressure(crowning):
    figures = crowning["FIGURES"]
    height = figures["crown height s(a) - s(0) (optimised vs compatible with a uniform pressure)"]
    # measured 3.696e-3 against 3.658e-3 (+1.0 %); largest deviation 1.1 % of the height
    assert height["value"] == pytest.approx(height["reference"], rel=0.03)
    assert figures["crown, largest |s - compatible| / height"]["value"] < 0.03
    crown = crowning["CROWN"]
    assert np.allclose(crown, crown[::-1], atol=1e-15)                  # symmetric
    centre = crowning["CENTRE"]
    assert np.all(np.diff(crown[centre:]) > 0)                          # rising to the edges


@pytest.mark.slow
def test_shape_gradient_against_finite_differences(crowning):
    """One entry of the crown (x = 0.75), at the optimised shape, vs central differences of re-solves."""
    model, crown, top_y = crowning["model"], crowning["crown"], crowning["TOP_Y"]
    quantities = [crowning["UNIFORMITY"], crowning["FORCE"]]
    s, d = crowning["S_OPT"], crowning["D_OPT"]
    base = model.with_values({crown: s, top_y: d}).solve(newton=TIGHT)
    grads = base.gradient(quantities, wrt=[crown])
    assert grads[0].margin > 0.1
    i = int(np.argmin(np.abs(crowning["x_base"] - 0.75)))
    h = 1e-7                     # the truncation error of the uniformity's difference: 1.8e-6 at 1e-6
    values = []
    for sign in (1, -1):
        moved = s.copy()
        moved[i] += sign * h
        run = model.with_values({crown: moved, top_y: d}).solve(newton={"tolerance": 1e-13})
        assert len(run.increments) == len(base.increments)
        values.append([g.value for g in run.gradient(quantities, wrt=[])])
    fd = (np.array(values[0]) - np.array(values[1])) / (2 * h)
    # measured 1.8e-8 (uniformity, -1.832) and 2.6e-9 (reaction, 155.3); margin 0.83
    assert grads[0][crown][i] == pytest.approx(fd[0], rel=1e-6)
    assert grads[1][crown][i] == pytest.approx(fd[1], rel=1e-7)


@pytest.mark.slow
def test_crowning_plot(crowning, tmp_path):
    crowning["plot"](tmp_path / "x.png")
    assert_example_picture(tmp_path / "x.png")
