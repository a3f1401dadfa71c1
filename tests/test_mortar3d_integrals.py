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

from conftest import assert_jets_match_differences
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
    for jet in evaluate(x):
        assert np.allclose(jet.hess, np.swapaxes(jet.hess, 1, 2))
    assert_jets_match_differences(evaluate, x, rng, h)
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


def test_facing_pairs_of_graded_surfaces_match_every_pair_clipped():
    """Small facets next to large ones (a graded master): the search by circumradius classes
    finds exactly the overlapping pairs that clipping every slave facet against every master
    facet finds."""
    rng = np.random.default_rng(5)
    unit = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    size = np.concatenate([np.full(40, 0.1), np.full(8, 0.8), [3.0]])
    master = size[:, None, None] * (unit - unit.mean(axis=0)) + 0.01 * rng.standard_normal((size.size, 3, 3))
    master[:, :, :2] += rng.uniform(-1.5, 1.5, (size.size, 1, 2))
    n_e = 60
    slave = 0.12 * (unit[[0, 2, 1]] - unit.mean(axis=0)) + 0.01 * rng.standard_normal((n_e, 3, 3))
    slave[:, :, :2] += rng.uniform(-1.5, 1.5, (n_e, 1, 2))
    slave[:, :, 2] += 0.02
    e, f, lines, count = mortar3d.facing_pairs(slave, master)
    E, F = (a.ravel() for a in np.meshgrid(np.arange(n_e), np.arange(size.size), indexing="ij"))
    _, every, area = mortar3d.clip_polygons(slave[E], master[F])
    scale = np.linalg.norm(np.cross(master[F, 1] - master[F, 0], master[F, 2] - master[F, 0]), axis=1)
    overlap = (every >= 3) & (area > 1e-12 * scale)
    assert set(np.digitize(f, [40, 48]).tolist()) == {0, 1, 2}       # pairs with facets of each size
    assert set(zip(e.tolist(), f.tolist())) == set(zip(E[overlap].tolist(), F[overlap].tolist()))
    assert np.all(np.diff(e) >= 0)
