"""Smoothed master curves in the assembled problem: the generalised Jacobian against central
finite differences of the residual (as tests/test_jacobian.py) with node-to-segment contact on
smoothed curved masters, and the shrink fit of docs/make_contact_accuracy.py against Lamé."""


import pytest

from conftest import CASES, assert_jacobian_matches_differences, contact_accuracy_script
from fecontact.case.build import build_model
from fecontact.case.schema import load_case
from fecontact.solve.backends import DirectBackend
from fecontact.solve.newton import NewtonOptions, semismooth_newton
from fecontact.analysis.static import run_steps

NTS = ['contact.0.formulation="node_to_segment"', 'contact.0.smoothing="hermite"']
CURVED = {
    # two curved half-discs with Coulomb friction: stick and slip on the smoothed lower disc
    "cattaneo2d": ["bodies.0.mesh.h_contact=0.1", "bodies.1.mesh.h_contact=0.1",
                   "bodies.0.mesh.grading=1.3", "bodies.1.mesh.grading=1.3",
                   "steps.levels=[0.5, 1.0, 1.5]"] + NTS,
    # finite deformation, the block sliding under the smoothed die
    "ironing2d_neo_hookean": ["steps.levels=[0.25, 0.5, 0.75, 1.0, 1.04, 1.08]"] + NTS,
}


@pytest.mark.parametrize("name", list(CURVED))
def test_assembled_jacobian_with_smoothed_masters_matches_finite_differences(name):
    model = build_model(load_case(CASES / f"{name}.toml", CURVED[name]))
    problem = model.problem
    assert problem.pairs[0].smoothing == "hermite" and problem.pairs[0].formulation == "node_to_segment"
    backend = DirectBackend(problem)
    records, state, _ = run_steps(problem, backend, model.levels[:-1], model.newton, model.stepping)
    assert all(r.converged for r in records)
    t = model.levels[-1]
    result = semismooth_newton(problem.increment(t, state), backend, problem.unknowns(state),
                               NewtonOptions(max_iterations=1))
    x = result.unknowns
    ev = problem.increment(t, state).evaluate(x, result.evaluation.kinematics.facet)
    # the neighbours of the segments enter: ten local variables per contact node
    assert ev.kinematics.dofs.shape[1] == 10
    status = ev.contact.status
    assert (status == 1).any() and (status == 2).any()
    assert_jacobian_matches_differences(problem, t, state, x, ev)


# --- the shrink fit with non-matching faceted circles ----------------------------------------

@pytest.fixture(scope="module")
def fits():
    acc = contact_accuracy_script()
    runs = {slave: acc.shrink_fit(20, 32, "node_to_segment", slave=slave) for slave in ("hub", "shaft")}
    for run in runs.values():
        assert run["converged"], run.get("failure")
    return acc.TARGETS, runs


#: worst node error with smoothed masters (gmsh 4.15.2; without smoothing 189 % and 474 %)
WORST_NODE = {"hub": 0.1047, "shaft": 0.1222}


@pytest.mark.parametrize("slave", ["hub", "shaft"])
def test_smoothed_master_keeps_every_node_closed_and_the_mean_pressure(fits, slave):
    """20 chords on the bore, 32 on the shaft: with straight masters 8 (21) nodes open, mean
    -16 % (+69 %); on the smoothed master none open and the mean pressure meets its target."""
    targets, runs = fits
    run = runs[slave]
    assert run["open"] == 0
    assert abs(run["mean_error"]) <= targets["fit_mean"]
    assert run["worst_node_error"] <= 1.03 * WORST_NODE[slave]


@pytest.mark.parametrize("slave", ["hub", "shaft"])
@pytest.mark.xfail(strict=True, reason="node-to-segment's transfer of the slave forces on a "
                   "non-matching master (no patch test) leaves nodal pressures +-10 % about the mean")
def test_smoothed_master_every_node_target(fits, slave):
    targets, runs = fits
    assert runs[slave]["worst_node_error"] <= targets["fit_node"]
