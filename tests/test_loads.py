"""Pressure loads: normal to the surface, pushing on it, and a case's pressure table."""

import numpy as np
import pytest
import skfem

from conftest import CASES
from fecontact.bodies.elasticity import pressure_load
from fecontact.mesh.generate2d import rectangle
from fecontact.mesh.generate3d import box
from fecontact.run.static import run


@pytest.mark.parametrize("angle", [0.0, 30.0, 125.0])
def test_pressure_on_a_turned_face_pushes_along_its_inward_normal(angle):
    """Total force of p on the right face (length 0.5) of a turned rectangle: -p * 0.5 * n_right."""
    mesh = rectangle(0.0, 2.0, 0.0, 0.5, 6, 3, element="quad", angle=angle)
    basis = skfem.Basis(mesh, skfem.ElementVector(skfem.ElementQuad1()))
    fb = skfem.FacetBasis(mesh, basis.elem, facets=mesh.boundaries["right"])
    f = pressure_load(fb, 7.0)
    a = np.deg2rad(angle)
    outward = np.array([np.cos(a), np.sin(a)])
    total = np.array([f[basis.nodal_dofs[c]].sum() for c in range(2)])
    np.testing.assert_allclose(total, -7.0 * 0.5 * outward, atol=1e-12)


def test_pressure_on_every_face_of_a_closed_box_sums_to_zero():
    """A uniform pressure on a whole closed surface has no resultant (tetrahedra)."""
    mesh = box(0.0, 1.0, 0.0, 2.0, 0.0, 0.5, 3, 4, 2, element="tet")
    basis = skfem.Basis(mesh, skfem.ElementVector(skfem.ElementTetP1()))
    fb = skfem.FacetBasis(mesh, basis.elem, facets=mesh.boundary_facets())
    f = pressure_load(fb, 3.0)
    total = np.array([f[basis.nodal_dofs[c]].sum() for c in range(3)])
    np.testing.assert_allclose(total, 0.0, atol=1e-12)
    top = skfem.FacetBasis(mesh, basis.elem, facets=mesh.boundaries["top"])
    np.testing.assert_allclose(pressure_load(top, 3.0)[basis.nodal_dofs[2]].sum(), -3.0 * 2.0,
                               rtol=1e-12)


def test_a_pressure_table_gives_the_patch_test_of_the_equal_traction(tmp_path):
    """patch2d with ``pressure = 10`` on the top instead of the traction (0, -10): same solution."""
    text = (CASES / "patch2d.toml").read_text()
    traction = '[[bodies.traction]]\nboundary = "top"\nvalue = [0.0, -10.0]'
    assert traction in text
    case = tmp_path / "patch2d_pressure.toml"
    case.write_text(text.replace(traction, '[[bodies.pressure]]\nboundary = "top"\nvalue = 10.0'))
    with_pressure = run(case, tmp_path / "p")
    with_traction = run(CASES / "patch2d.toml", tmp_path / "t")
    assert with_pressure.summary["converged"]
    np.testing.assert_allclose(with_pressure.state.multiplier, with_traction.state.multiplier,
                               rtol=1e-12, atol=1e-12)
    # the uniform stress of the patch test: every interface node carries the pressure 10
    np.testing.assert_allclose(with_pressure.state.multiplier[:, 0], 10.0, rtol=1e-9)
