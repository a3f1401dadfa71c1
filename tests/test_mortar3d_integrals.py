"""Compiled 3D mortar pair integrals: every kind of polygon vertex against finite differences.

The overlap polygon's vertices are slave vertices (constant barycentric
coordinates), master vertices inside the slave triangle, and crossings of a
slave and a master edge; each kind has its own closed form in
:mod:`fecontact.contact.mortar3d_integrals`.  The configurations below make
polygons of only one kind (slave inside master, master inside slave) and of
all three, and the values, gradients and Hessians are checked against
central differences with the segmentation held fixed.
"""

import numpy as np
import pytest

from fecontact.contact import mortar3d


def _check(slave, master, rng, h=1e-6):
    p = slave.shape[0]
    lines, count, _ = mortar3d.clip_polygons(slave, master)
    assert np.all(count >= 3)
    slave0 = slave + 0.01 * rng.standard_normal(slave.shape)
    master0 = master + 0.01 * rng.standard_normal(master.shape)
    tangent = rng.standard_normal((p, 3, 2, 3))
    ref_area = rng.uniform(0.3, 0.5, p)

    def evaluate(x):
        gap, slip, _, _ = mortar3d.pair_integrals(x[:, :9].reshape(p, 3, 3), x[:, 9:].reshape(p, 3, 3),
                                                  slave0, master0, lines, count, tangent, ref_area)
        return gap + [s for pair in slip for s in pair]
    x = np.hstack([slave.reshape(p, 9), master.reshape(p, 9)])
    base = evaluate(x)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        plus, minus = evaluate(x + h * v), evaluate(x - h * v)
        for j0, jp, jm in zip(base, plus, minus):
            fd = (jp.value - jm.value) / (2 * h)
            assert np.allclose(np.einsum("pk,pk->p", j0.grad, v), fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())
            fd_g = (jp.grad - jm.grad) / (2 * h)
            assert np.allclose(np.einsum("pkl,pl->pk", j0.hess, v), fd_g, rtol=1e-5,
                               atol=1e-6 * np.abs(fd_g).max())
            assert np.allclose(j0.hess, np.swapaxes(j0.hess, 1, 2))
    return lines, count


def _pairs(rng, p, slave_scale, master_scale):
    """Master triangles near z = 0 (normal +z), slave triangles above facing down, centred alike."""
    unit = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    master = master_scale * (unit - unit.mean(axis=0)) + 0.02 * rng.standard_normal((p, 3, 3))
    slave = slave_scale * (unit[[0, 2, 1]] - unit.mean(axis=0)) + 0.02 * rng.standard_normal((p, 3, 3))
    slave[:, :, 2] += 0.1
    return slave, master


@pytest.mark.parametrize("slave_scale, master_scale, kinds", [
    (0.3, 1.0, {"slave"}), (1.0, 0.3, {"master"}), (1.0, 1.0, {"slave", "master", "crossing"})])
def test_polygon_vertex_kinds_match_finite_differences(slave_scale, master_scale, kinds):
    rng = np.random.default_rng(11)
    slave, master = _pairs(rng, 12, slave_scale, master_scale)
    lines, count = _check(slave, master, rng)
    seen = set()
    for row, n in zip(lines, count):
        for l1, l2 in row[:n]:
            seen.add("slave" if l1 < 3 and l2 < 3 else "master" if l1 >= 3 and l2 >= 3 else "crossing")
    assert seen == kinds
