"""The Hertz benchmark with other element types (P2 triangles, Q1 quadrilaterals), about 5 s each."""

import pytest

from conftest import CASES
from fecontact.run.static import run


@pytest.mark.parametrize("element,overrides", [
    ("P2", ["bodies.0.element=\"P2\"", "bodies.0.mesh.h_contact=0.002"]),
    ("Q1", ["bodies.0.element=\"Q1\"", "bodies.0.mesh.element=\"quad\""]),
])
def test_hertz2d_other_elements(tmp_path, element, overrides):
    r = run(CASES / "hertz2d.toml", tmp_path, overrides)
    m = r.summary["metrics"]
    assert r.summary["converged"]
    assert m["peak_pressure"]["rel_error"] <= 0.02
    assert m["contact_half_width"]["rel_error"] <= 0.03
    assert m["pressure_l2_error"]["value"] <= 0.03
