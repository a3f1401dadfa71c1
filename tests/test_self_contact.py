"""Self-contact: two surfaces of one body, the example docs/examples/c_ring_self_contact.py as a test.

A C-ring (unstructured Gmsh triangles) is squeezed by two pads until the faces
of its slit touch; the contact pair is ``Contact(ring.surface("slit-left"),
ring.surface("slit-right"))``, both surfaces of the one body.  The physical
checks do not use the contact code's own figures as their reference:

* the same ring without the contact pair (linear) gives the open ring's
  stiffness ``k_open``: while the slit is open the self-contact model's force
  is ``k_open d`` (round-off), and the open ring's displacements predict the
  load level at which the slit closes (the first closed level follows it,
  the last open one precedes it);
* after closing, each increment's stiffness exceeds ``k_open`` (measured:
  1.62 k_open at the least, bound 1.3);
* equilibrium: the support reactions sum to zero (no other load), and the
  bulk forces ``K u`` at the two faces' nodes (no load or support acts
  there) are equal and opposite and equal the pair's resultant;
* the faces do not interpenetrate: the deformed left face lies nowhere past
  the deformed right face (and conversely) by more than 1 % of the element
  size at the slit (measured 0.29 %: the mortar pair's weighted gap is zero,
  its corner node that touches lies 2.9e-5 past the other face).
"""

import runpy

import numpy as np
import pytest

from conftest import ROOT

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)


@pytest.fixture(scope="module")
def ring():
    return runpy.run_path(str(ROOT / "docs" / "examples" / "c_ring_self_contact.py"), run_name="example")


def test_the_pair_joins_two_surfaces_of_one_body(ring):
    pair = ring["result"].problem.pairs[0]
    assert pair.slave.body == pair.master.body == 0
    assert len(ring["result"].problem.system.bodies) == 1
    assert ring["result"].converged and ring["mesh"].t.shape[1] > 2000      # an unstructured mesh


def test_open_until_the_closing_the_open_ring_predicts_then_stiffer(ring):
    result, levels, force = ring["result"], ring["levels"], ring["force"]
    k_open, push, t_close = ring["k_open"], ring["PUSH"], ring["t_close"]
    closed = np.array([np.count_nonzero(result.at(k).contact("slit").status) for k in range(levels.size)])
    is_open = closed == 0
    assert is_open[:2].all() and not is_open[-1]
    last_open, first_closed = np.flatnonzero(is_open).max(), np.flatnonzero(~is_open).min()
    assert last_open + 1 == first_closed                          # closed once, stays closed
    assert levels[last_open] < t_close < levels[first_closed]
    # open: the linear open ring exactly
    np.testing.assert_allclose(force[is_open], k_open * levels[is_open] * push, rtol=1e-9)
    # closed: a contact force, and every increment stiffer than the open ring
    assert all(result.at(k).pair("slit").force[0] < 0.0 for k in np.flatnonzero(~is_open))
    assert ring["stiffness_after"].min() > 1.3 * k_open
    assert np.all(force[~is_open] > k_open * levels[~is_open] * push)


def test_equilibrium_of_the_ring_and_of_the_two_faces(ring):
    result, force = ring["result"], ring["force"]
    assert ring["balance"] < 1e-9 * force[-1]
    on_slave, on_master = ring["on_slave"], ring["on_master"]
    contact = result.pair("slit").force
    assert np.linalg.norm(contact) > 0.1 * force[-1]
    np.testing.assert_allclose(on_slave, contact, rtol=1e-8, atol=1e-10 * force[-1])
    np.testing.assert_allclose(on_master, -on_slave, rtol=1e-8, atol=1e-10 * force[-1])


def test_no_interpenetration_of_the_faces(ring):
    assert ring["penetration"] < 0.01 * ring["H_SLIT"]


CASE = """
name = "c-ring"
[[bodies]]
name = "ring"
element = "P1"
mesh = {{ file = "{mesh}" }}
material = {{ E = {E}, nu = {NU} }}
dirichlet = [{{ boundary = "pad-left", component = "x", value = {push} }},
             {{ boundary = "pad-right", component = "x", value = {pull} }},
             {{ name = "bottom", point = [0.0, {bottom}], component = "y" }}]
[[contact]]
name = "slit"
slave = {{ body = "ring", boundary = "slit-left" }}
master = {{ body = "ring", boundary = "slit-right" }}
formulation = "mortar"
[steps]
count = 4
"""


def test_a_case_file_pairs_two_boundaries_of_one_body(ring, case_file, tmp_path):
    """The same model as a case file (slave and master on body "ring"), four steps: the final state
    is the example's (frictionless and elastic: independent of the path)."""
    import json

    from fecontact.cli import main

    ring["c_ring_mesh"](tmp_path / "c_ring.msh")
    path = case_file(CASE.format(mesh=tmp_path / "c_ring.msh", E=ring["E"], NU=ring["NU"],
                                 push=ring["PUSH"], pull=-ring["PUSH"], bottom=-ring["RO"]))
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    force = ring["force"][-1]
    assert -summary["reaction"]["pad-right"][0] == pytest.approx(force, rel=1e-6)
    (pair,) = summary["pairs"]
    np.testing.assert_allclose(pair["force"][:2], ring["result"].pair("slit").force, rtol=1e-5)
    assert summary["steps"][0]["open"] == len(ring["slave"])       # open at a quarter of the push
    assert summary["steps"][-1]["slip"] + summary["steps"][-1]["stick"] > 0
