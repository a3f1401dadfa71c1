"""Axisymmetric contact solved by every registered linear backend: the same converged solution.

A revolved puck pressed with Coulomb friction onto a revolved block (two bodies, non-matching
meshes: the dual mortar with ``2 pi r`` weights) and onto a rigid flat (node-to-segment).  Each
backend's displacements, statuses and pressures are compared with the direct backend's, and the
pair's axial force with the reaction that holds the block (totals over the circumference)."""

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.solve.backends import BACKENDS


def _puck_on_block(friction=fc.Coulomb(0.3)):
    puck = fc.Body("puck", skfem.MeshTri.init_tensor(np.linspace(0.0, 0.5, 7),
                                                     np.linspace(0.0, 0.3, 4)).with_defaults(),
                   "P1", fc.LinearElastic(2e3, 0.3, plane="axisymmetric"))
    block = fc.Body("block", skfem.MeshTri.init_tensor(np.linspace(0.0, 1.5, 12),
                                                       np.linspace(-0.6, 0.0, 5)).with_defaults(),
                    "P1", fc.LinearElastic(1e3, 0.3, plane="axisymmetric"))
    puck.fix("top", y=-0.01)
    block.fix("bottom", y=0.0)
    pair = fc.Contact(puck.surface("bottom"), block.surface("top"), friction, name="c")
    return fc.Model([puck, block], [pair]), "block", "bottom"


def _puck_on_flat():
    puck = fc.Body("puck", skfem.MeshTri.init_tensor(np.linspace(0.0, 0.5, 7),
                                                     np.linspace(0.0, 0.3, 4)).with_defaults(),
                   "P1", fc.LinearElastic(2e3, 0.3, plane="axisymmetric"))
    puck.fix("top", y=-0.01)
    flat = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    return fc.Model([puck], [fc.Contact(puck.surface("bottom"), flat, fc.Coulomb(0.3), name="c")]), \
        "puck", "top"


MODELS = {"mortar": _puck_on_block, "rigid": _puck_on_flat}


@pytest.fixture(scope="module", params=list(MODELS))
def reference(request):
    model, _, _ = MODELS[request.param]()
    result = model.solve(steps=2, backend="direct")
    assert result.converged
    return request.param, result


def test_the_pair_force_is_the_reaction(reference):
    """The axial contact force is the total the support holds (node-to-segment's nodal forces are
    exactly the residual's; a frictional mortar pair reports its tangential part from the converged
    state's kinematics, see ``slave_forces``, so its axial total is compared frictionless)."""
    name, direct = reference
    if name == "mortar":
        model, _, _ = MODELS[name](friction=fc.Frictionless())
        direct = model.solve(steps=2, backend="direct")
    axial = direct.pair("c").force[1]
    support = "block.bottom" if name == "mortar" else "top"
    assert abs(axial) > 0
    assert abs(direct.reaction(support)[1]) == pytest.approx(abs(axial), rel=1e-9)


@pytest.mark.parametrize("backend", [n for n in BACKENDS if n != "direct"])
def test_every_backend_solves_axisymmetric_contact_as_the_direct_one(reference, backend):
    if BACKENDS[backend].missing:
        pytest.skip(f"not installed: {', '.join(BACKENDS[backend].missing)}")
    name, direct = reference
    model, _, _ = MODELS[name]()
    if name == "mortar":
        assert model.contacts[0].method == "mortar"
    result = model.solve(steps=2, backend=backend)
    assert result.converged
    scale = np.abs(direct.displacement).max()
    assert np.abs(result.displacement - direct.displacement).max() <= 1e-6 * scale
    p, q = result.contact("c"), direct.contact("c")
    assert np.array_equal(p.status, q.status)
    assert np.abs(p.pressure - q.pressure).max() <= 1e-6 * np.abs(q.pressure).max()
    assert q.pressure.max() > 0


def test_axis_nodes_carry_no_shear(reference):
    """On the axis r = 0 the shear traction vanishes by symmetry: the slave node there is released
    from its friction law (its radial slip is held by the axis supports of both sides, so a stick
    row would be singular), and Newton converges in a few iterations per increment."""
    name, direct = reference
    fields = direct.contact("c")
    axis = fields.points[0] < 1e-12
    assert axis.sum() == 1 and fields.pressure[axis][0] > 0
    assert np.all(fields.shear[axis] == 0.0)
    assert np.abs(fields.shear[~axis]).max() > 0
    assert max(r.newton_iterations for r in direct.records) <= 6
