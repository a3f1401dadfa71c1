"""Mortar derivative storage: each row's gradient and Hessian are held over the unknowns it
depends on, so their size follows the number of overlapping segments, not the master's size."""

import numpy as np

from fecontact.contact import mortar2d, mortar3d


def _grid(n: int, x0: float, x1: float, z: float, down: bool):
    """Triangulated square [x0, x1]^2 at height z: points (N, 3) and triangles (n_t, 3)."""
    s = np.linspace(x0, x1, n + 1)
    X, Y = np.meshgrid(s, s, indexing="ij")
    points = np.column_stack([X.ravel(), Y.ravel(), np.full(X.size, z)])
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a = (i * (n + 1) + j).ravel()
    b, c, d = a + (n + 1), a + (n + 1) + 1, a + 1
    tris = np.vstack([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    if down:                                         # slave facets face the master (normal -z)
        tris = tris[:, ::-1]
    return points, tris


def _kinematics3d(n_slave: int, n_master: int, master_extent: float, gap: float = 0.01):
    """Mortar rows of a flat slave grid on [0, 1]^2 above a flat master grid."""
    xs, ts = _grid(n_slave, 0.0, 1.0, gap, down=True)
    h = 1.0 / n_master
    k = int(round(master_extent / h))
    lo = 0.5 - 0.5 * k * h
    xm, tm = _grid(k, lo, lo + k * h, 0.0, down=False)
    slave, master = xs[ts], xm[tm]
    ref_area = 0.5 * np.linalg.norm(np.cross(slave[:, 1] - slave[:, 0], slave[:, 2] - slave[:, 0]), axis=1)
    m = xs.shape[0]
    area = np.bincount(ts.ravel(), weights=np.repeat(ref_area / 3.0, 3), minlength=m)
    tangent = np.broadcast_to(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), (m, 2, 3)).copy()
    normal = np.broadcast_to(np.array([0.0, 0.0, 1.0]), (m, 3)).copy()
    local, slots = mortar3d.weighted_kinematics(
        slave, slave, ts, master, master, tm, ref_area, tangent, area, np.full(m, gap), normal,
        tangent, lambda nrm: tangent)
    return local, slots


def _bytes(local) -> int:
    return sum(getattr(local, f).nbytes for f in ("d_gap", "d_slip", "h_gap", "h_slip"))


def test_3d_rows_do_not_grow_with_the_master_surface():
    """A master surface 4 times larger (same facet size) leaves every derivative array unchanged."""
    small, slots_small = _kinematics3d(6, 5, 1.2)
    large, slots_large = _kinematics3d(6, 5, 4.8)
    for f in ("d_gap", "d_slip", "h_gap", "h_slip"):
        assert getattr(small, f).shape == getattr(large, f).shape
    assert slots_small.shape == slots_large.shape
    # and the weighted gap of the flat interface is the distance of the planes
    np.testing.assert_allclose(small.gap, 0.01, rtol=1e-12)
    np.testing.assert_allclose(large.gap, 0.01, rtol=1e-12)


def test_3d_derivative_storage_is_linear_in_the_number_of_rows():
    """Refining both surfaces by 2 keeps each row's local unknowns and multiplies the storage by
    the number of rows; each row's unknowns are the distinct nodes of its contributions."""
    coarse, slots_c = _kinematics3d(6, 5, 1.2)
    fine, slots_f = _kinematics3d(12, 10, 1.2)
    m_c, m_f = coarse.gap.size, fine.gap.size
    # local unknowns per row: the slave nodes of its support and the master nodes under it
    assert coarse.d_gap.shape[1] == fine.d_gap.shape[1] <= 3 * (7 + 16)
    assert _bytes(fine) / _bytes(coarse) == m_f / m_c
    # every point of a row is listed once
    for slots in (slots_c, slots_f):
        for row in slots[:, :, 0]:
            used = row[row >= 0]
            assert used.size == np.unique(used).size


def test_3d_row_derivatives_match_finite_differences():
    """The summed rows differentiate the weighted gap exactly (the local index sets are right)."""
    n_s, n_m, gap = 3, 4, 0.01
    xs, ts = _grid(n_s, 0.0, 1.0, gap, down=True)
    xm, tm = _grid(n_m, -0.1, 1.1, 0.0, down=False)
    rng = np.random.default_rng(3)
    xs = xs + 0.02 * rng.standard_normal(xs.shape)
    xm = xm + 0.02 * rng.standard_normal(xm.shape) * np.array([1.0, 1.0, 0.2])
    m = xs.shape[0]
    ref = xs[ts]
    ref_area = 0.5 * np.linalg.norm(np.cross(ref[:, 1] - ref[:, 0], ref[:, 2] - ref[:, 0]), axis=1)
    area = np.bincount(ts.ravel(), weights=np.repeat(ref_area / 3.0, 3), minlength=m)
    tangent = np.broadcast_to(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), (m, 2, 3)).copy()
    normal = np.broadcast_to(np.array([0.0, 0.0, 1.0]), (m, 3)).copy()

    def rows(x_s, x_m):
        return mortar3d.weighted_kinematics(x_s[ts], xs[ts], ts, x_m[tm], xm[tm], tm, ref_area,
                                            tangent, area, np.full(m, gap), normal, tangent,
                                            lambda nrm: tangent)

    local, slots = rows(xs, xm)
    eps = 1e-6
    for trial in range(2):
        # a random direction of every node; row j sees it through its local index set
        ds, dm = rng.standard_normal(xs.shape), rng.standard_normal(xm.shape)
        up = rows(xs + eps * ds, xm + eps * dm)[0]
        dn = rows(xs - eps * ds, xm - eps * dm)[0]
        both = np.vstack([ds, dm, np.zeros((1, 3))])
        point = slots[:, :, 0]
        local_dir = both[np.where(point >= 0, point, -1)].reshape(m, -1)      # (m, k)
        covered = (point >= 0).any(axis=1)
        assert covered.sum() > m // 2
        fd_gap = (up.gap - dn.gap) / (2 * eps)
        fd_slip = (up.slip - dn.slip) / (2 * eps)
        fd_dgap = (up.d_gap - dn.d_gap) / (2 * eps)
        np.testing.assert_allclose(fd_gap[covered], np.einsum("mk,mk->m", local.d_gap, local_dir)[covered],
                                   atol=1e-7)
        np.testing.assert_allclose(fd_slip[covered],
                                   np.einsum("mqk,mk->mq", local.d_slip, local_dir)[covered], atol=1e-7)
        # the local index sets are the same for the perturbed states (same overlaps)
        np.testing.assert_allclose(np.einsum("mk,mk->m", fd_dgap, local_dir),
                                   np.einsum("mkl,mk,ml->m", local.h_gap, local_dir, local_dir), atol=1e-5)


def test_2d_rows_do_not_grow_with_the_master_surface():
    """In 2D too: the rows' unknowns are their segments' nodes, whatever the master's length."""
    def rows(extent: float):
        # each body on the left of its segments: the slave above, the master below
        xs = np.column_stack([np.linspace(0.0, 1.0, 9), np.full(9, 0.01)])
        n = int(round(extent / 0.1))
        xm = np.column_stack([0.5 + 0.05 * n - 0.1 * np.arange(n + 1), np.zeros(n + 1)])
        seg = np.array([np.arange(8), np.arange(1, 9)])
        length = np.linalg.norm(xs[1:] - xs[:-1], axis=1)
        area = np.bincount(seg.ravel(), weights=np.tile(length / 2.0, 2), minlength=9)
        ends = np.column_stack([np.arange(n), np.arange(1, n + 1)])
        local, slots, _ = mortar2d.weighted_kinematics(xs, xs, seg, xm[:-1], xm[1:], xm[:-1], xm[1:],
                                                        area, length, master_nodes=ends)
        return local, slots

    small, _ = rows(1.2)
    large, _ = rows(6.0)
    for f in ("d_gap", "d_slip", "h_gap", "h_slip"):
        assert getattr(small, f).shape == getattr(large, f).shape
    np.testing.assert_allclose(large.gap, small.gap, rtol=1e-12)
    np.testing.assert_allclose(small.gap, 0.01, rtol=1e-12)
