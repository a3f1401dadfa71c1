"""Mortar pairs solved by every registered linear backend: the same converged solution.

The mortar rows enter the Newton system like node-to-segment rows (one normal and ``dim - 1``
tangential condition per slave node, with local derivatives), so every backend must take them:
a frictional 2D pair on non-matching curved surfaces (integrated on the smoothed curves) and a
frictional 3D pair of non-matching tetrahedra.  Each backend's displacements and multipliers are
compared with the direct backend's."""

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.solve.backends import BACKENDS


def _arc_body(name, radii, angles, E):
    m = skfem.MeshTri.init_tensor(angles, radii)
    mesh = skfem.MeshTri(np.vstack([m.p[1] * np.cos(m.p[0]), m.p[1] * np.sin(m.p[0])]), m.t)
    return fc.Body(name, mesh, "P1", fc.LinearElastic(E, 0.3))


def _curved_2d():
    """A ring (slave: its bore) pressed and turned on a disc sector (master), non-matching chords."""
    ring = _arc_body("ring", np.array([1.0, 1.2, 1.5]), np.linspace(0.3, 1.3, 8), 1e3)
    core = _arc_body("core", np.array([0.6, 0.8, 1.0]), np.linspace(0.2, 1.4, 12), 1e3)
    core.fix(lambda x: np.abs(np.hypot(x[0], x[1]) - 0.6) < 0.01, name="inner")
    # pressed along the diagonal, then moved mostly along the interface
    outer = lambda x: np.abs(np.hypot(x[0], x[1]) - 1.5) < 0.01
    ring.fix(outer, x=-0.004, amplitude=fc.Amplitude((0.0, 1.0, 2.0), (0.0, 1.0, 1.5)), name="press-x")
    ring.fix(outer, y=-0.004, amplitude=fc.Amplitude((0.0, 1.0, 2.0), (0.0, 1.0, 0.2)), name="press-y")
    bore = ring.surface(lambda x: np.abs(np.hypot(x[0], x[1]) - 1.0) < 0.01)
    surface = core.surface(lambda x: np.abs(np.hypot(x[0], x[1]) - 1.0) < 0.01)
    return fc.Model([ring, core], [fc.Contact(bore, surface, fc.Coulomb(0.3), name="c")]), 2


def _tets_3d():
    """A tetrahedral block pressed and pushed on a larger, non-matching tetrahedral block."""
    lower = fc.Body("lower", skfem.MeshTet.init_tensor(*(np.linspace(0, 1, 5),) * 2, np.linspace(-0.5, 0, 3)),
                    "P1", fc.LinearElastic(1e3, 0.3))
    g = np.linspace(0.2, 0.8, 4)
    upper = fc.Body("upper", skfem.MeshTet.init_tensor(g, g, np.linspace(0, 0.3, 2)), "P1",
                    fc.LinearElastic(1e3, 0.3))
    lower.fix(lambda x: np.isclose(x[2], -0.5), name="base")
    upper.fix(lambda x: np.isclose(x[2], 0.3), x=0.002, y=0.0, z=-0.01, name="top")
    pair = fc.Contact(upper.surface(lambda x: np.isclose(x[2], 0)), lower.surface(lambda x: np.isclose(x[2], 0)),
                      fc.Coulomb(0.3), name="c")
    return fc.Model([lower, upper], [pair]), 1


@pytest.fixture(scope="module", params=["curved2d", "tets3d"])
def reference(request):
    model, steps = {"curved2d": _curved_2d, "tets3d": _tets_3d}[request.param]()
    assert model.contacts[0].method == "mortar"
    result = model.solve(steps=steps, backend="direct")
    assert result.converged
    return request.param, steps, result


@pytest.mark.parametrize("backend", [n for n in BACKENDS if n != "direct"])
def test_every_backend_solves_a_mortar_pair_as_the_direct_one(reference, backend):
    if BACKENDS[backend].missing:
        pytest.skip(f"not installed: {', '.join(BACKENDS[backend].missing)}")
    name, steps, direct = reference
    model, _ = {"curved2d": _curved_2d, "tets3d": _tets_3d}[name]()
    result = model.solve(steps=steps, backend=backend)
    assert result.converged
    scale = np.abs(direct.displacement).max()
    assert np.abs(result.displacement - direct.displacement).max() <= 1e-6 * scale
    p, q = result.contact("c"), direct.contact("c")
    assert np.array_equal(p.status, q.status)
    assert np.abs(p.pressure - q.pressure).max() <= 1e-6 * np.abs(q.pressure).max()
    # something is pressed and sheared
    assert q.pressure.max() > 0 and np.abs(q.shear).max() > 0
