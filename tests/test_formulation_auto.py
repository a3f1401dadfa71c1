"""The rule behind formulation="auto" (fecontact.model.formulation): what each kind of pair gets."""

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.model.formulation import choose_formulation, matching_nodes


def _blocks(upper_x, lower_x=np.linspace(0.0, 1.0, 9), element="P1", mesh=skfem.MeshTri):
    lower = fc.Body("lower", mesh.init_tensor(lower_x, np.linspace(-0.5, 0.0, 3)), element,
                    fc.LinearElastic(1.0, 0.3))
    upper = fc.Body("upper", mesh.init_tensor(upper_x, np.linspace(0.0, 0.5, 3)), element,
                    fc.LinearElastic(1.0, 0.3))
    lower.fix(lambda x: np.isclose(x[1], -0.5), name="bottom")
    upper.fix(lambda x: np.isclose(x[1], 0.5), y=-0.01, name="top")
    return (upper.surface(lambda x: np.isclose(x[1], 0.0), name="under"),
            lower.surface(lambda x: np.isclose(x[1], 0.0), name="over"), [lower, upper])


def test_non_matching_bodies_get_mortar_and_it_is_what_they_are_solved_with():
    slave, master, bodies = _blocks(np.linspace(0.0, 1.0, 6))
    pair = fc.Contact(slave, master, name="c")
    assert pair.formulation == "auto" and pair.method == "mortar"
    assert matching_nodes(slave, master) < 0.5
    model = fc.Model(bodies, [pair])
    assert model.assemble().problem.pairs[0].formulation == "mortar"


def test_matching_nodes_get_node_to_segment():
    slave, master, _ = _blocks(np.linspace(0.0, 1.0, 9))
    assert matching_nodes(slave, master) == 1.0
    formulation, reason = choose_formulation(slave, master)
    assert formulation == "node_to_segment" and "matching" in reason


def test_matching_curved_surfaces_across_a_gap_count_as_matching():
    """Two mirror-image arcs a gap apart (the nodes face each other along the bisector)."""
    angles = np.linspace(0.0, np.pi / 2, 9)
    ring = skfem.MeshTri.init_tensor(angles, np.array([1.0, 1.5]))
    inner = skfem.MeshTri.init_tensor(angles, np.array([0.5, 0.999]))
    to_xy = lambda m: skfem.MeshTri(np.vstack([m.p[1] * np.cos(m.p[0]), m.p[1] * np.sin(m.p[0])]), m.t)
    hub = fc.Body("hub", to_xy(ring), "P1", fc.LinearElastic(1.0, 0.3))
    shaft = fc.Body("shaft", to_xy(inner), "P1", fc.LinearElastic(1.0, 0.3))
    bore = hub.surface(lambda x: np.abs(np.hypot(x[0], x[1]) - 1.0) < 0.01)
    outside = shaft.surface(lambda x: np.abs(np.hypot(x[0], x[1]) - 0.999) < 0.01)
    # the two end nodes have one facet each, whose normal is off the radius by half a chord's angle
    assert matching_nodes(bore, outside) == pytest.approx(7 / 9)
    assert fc.Contact(bore, outside).method == "node_to_segment"


def test_obstacles_penalty_and_quadratic_elements_get_node_to_segment():
    slave, master, _ = _blocks(np.linspace(0.0, 1.0, 6))
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    assert fc.Contact(slave, floor).method == "node_to_segment"
    assert fc.Contact(slave, master, enforcement="penalty").method == "node_to_segment"
    assert fc.Contact(slave, master, enforcement="penalty", two_pass=True).method == "node_to_segment"
    q_slave, q_master, _ = _blocks(np.linspace(0.0, 1.0, 6), element="P2")
    formulation, reason = choose_formulation(q_slave, q_master)
    assert formulation == "node_to_segment" and "linear elements" in reason


@pytest.mark.parametrize("formulation", ["node_to_segment", "mortar"])
def test_an_explicit_formulation_is_kept(formulation):
    slave, master, _ = _blocks(np.linspace(0.0, 1.0, 9))
    assert fc.Contact(slave, master, formulation=formulation).method == formulation


def test_auto_in_a_case_file_is_the_api_default(tmp_path):
    from conftest import CASES
    from fecontact.case.build import build_model
    from fecontact.case.schema import load_case
    # patch2d names mortar; without the key it gets the rule's choice, with "auto" the same
    plain = build_model(load_case(CASES / "patch2d.toml", ['contact.0.formulation="auto"']))
    assert plain.problem.pairs[0].formulation in ("mortar", "node_to_segment")
    with pytest.raises(Exception, match="formulation"):
        build_model(load_case(CASES / "patch2d.toml", ['contact.0.formulation="nodal"']))


def test_a_slave_surface_beyond_the_master_gets_node_to_segment():
    """A wide slave under a small punch (the ironing cases' layout): mortar's partly covered
    facets would report weighted gaps, not local ones; the smaller surface as slave gets mortar."""
    wide = skfem.MeshTri.init_tensor(np.linspace(-2, 2, 17), np.linspace(-1, 0, 3))
    small = skfem.MeshTri.init_tensor(np.linspace(-0.5, 0.5, 6), np.linspace(0, 0.5, 3))
    a = fc.Body("wide", wide, "P1", fc.LinearElastic(1.0, 0.3))
    b = fc.Body("small", small, "P1", fc.LinearElastic(100.0, 0.3))
    top, under = a.surface(lambda x: np.isclose(x[1], 0)), b.surface(lambda x: np.isclose(x[1], 0))
    formulation, reason = choose_formulation(top, under)
    assert formulation == "node_to_segment" and "beyond" in reason
    assert fc.Contact(under, top).method == "mortar"
