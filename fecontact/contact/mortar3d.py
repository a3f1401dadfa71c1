r"""Facet-to-facet (mortar) contact kinematics in 3D on triangle surfaces.

The 3D counterpart of :mod:`fecontact.contact.mortar2d`: for slave node ``j`` with the
linear slave shape function ``N_j`` and its dual function ``Phi_j = 4 N_j - 1`` on each
slave triangle (``int Phi_j N_k = delta_jk int N_k``),

.. math::

    \tilde g_j = \int_{\Gamma_s} \Phi_j\, g \, d\Gamma, \qquad
    \Delta\tilde s_j = \int_{\Gamma_s} \Phi_j\, \tau^0_j\cdot
        \big[(x_s - x_s^0) - (x_m - x_m^0)\circ\pi\big] \, d\Gamma

and the kinematic rows are ``g~_j / A_j`` and ``Delta s~_j / A_j`` (dual multipliers:
the force on slave node ``j`` is ``A_j lam_j``).

Segmentation.  For each facing pair of a slave triangle ``e`` and a master
triangle ``f`` the slave triangle is projected along the master normal
``n_f`` onto the plane of ``f``.  The overlap of the two triangles in that
plane is a convex polygon (at most six vertices), each vertex the
intersection of two of the six edge lines (a vertex of one triangle is the
intersection of its two edges there).  The polygon is fanned from its
centroid into triangles.  On each, the slave coordinates ``zeta`` and the
master coordinates ``beta`` of a point are affine, so the integrands
``Phi_j g`` (``g`` the interpolated height of the slave vertices above the
master plane) and the slip integrand are quadratic, and the three-point
edge-midpoint rule integrates them exactly.  The measure is the reference
slave area (``dGamma = A_e^ref / A_e^proj dA``), as the lumped areas.

The polygon's combinatorics (which lines make each vertex) come from a
floating-point clipping pass; the integrals are then re-evaluated as
:class:`fecontact.contact.jet.Jet` s of the 18 vertex coordinates, so gradients and
Hessians are exact for fixed combinatorics.  Only linear triangles are
supported (a bilinear quadrilateral's vertex functions are not those of its
two triangles, and the patch test would fail).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .jet import Jet
from .mortar2d import MortarRows
from .mortar3d_integrals import pair_kernel

#: Candidate pairs clipped at once (:func:`facing_pairs`)
CHUNK_CLIP = 8192
#: Pairs integrated at once (:func:`weighted_kinematics`): bounds the memory of their
#: gradients and Hessians, 9 x 18 x 18 numbers a pair
CHUNK_3D = 512

# the two edge lines through each vertex: lines 0-2 are the slave edges
# (i -> i+1), lines 3-5 the master edges
_VERTEX_LINES = [(2, 0), (0, 1), (1, 2), (5, 3), (3, 4), (4, 5)]
# line l runs from vertex l to vertex _LINE_END[l] (slave vertices 0-2, master 3-5)
_LINE_END = [1, 2, 0, 4, 5, 3]


def _frame(a, b, c):
    """Unit normal and in-plane axes of triangles (float), shapes (p, 3)."""
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    e1 = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
    return n, e1, np.cross(n, e1)


def _cross2(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _barycentric2(x, t0, t1, t2):
    """2D barycentric coordinates of points ``x`` (p, n, 2) in triangles (p, 2)."""
    det = _cross2(t1 - t0, t2 - t0)[:, None]
    d = x - t0[:, None]
    z1 = _cross2(d, (t2 - t0)[:, None]) / det
    z2 = _cross2((t1 - t0)[:, None], d) / det
    return np.stack([1.0 - z1 - z2, z1, z2], axis=-1)


def clip_polygons(slave, master, tol=1e-10):
    """Overlap polygons of projected slave triangles and master triangles (floats).

    Parameters
    ----------
    slave, master : ndarray, shape (p, 3, 3)
        Vertices of each pair's slave and master triangles.

    Returns
    -------
    lines : ndarray of int, shape (p, V, 2)
        The two edge lines that make each polygon vertex, counter-clockwise
        about the master normal; rows with fewer vertices repeat the first.
    count : ndarray of int, shape (p,)
        Number of polygon vertices (``< 3``: no overlap).
    area : ndarray, shape (p,)
        Polygon area.
    """
    p = slave.shape[0]
    a = master[:, 0]
    n, e1, e2 = _frame(a, master[:, 1], master[:, 2])

    def plane(x):
        d = x - a[:, None]
        return np.stack([np.einsum("pvi,pi->pv", d, e1), np.einsum("pvi,pi->pv", d, e2)], axis=-1)

    S, M = plane(slave), plane(master)                         # (p, 3, 2)
    pts = np.concatenate([S, M], axis=1)                       # the six vertices
    starts, ends = pts, pts[:, _LINE_END]
    cand, lines = [], []
    # vertices of one triangle inside the other
    bm = _barycentric2(S, *(M[:, i] for i in range(3)))
    bs = _barycentric2(M, *(S[:, i] for i in range(3)))
    inside = np.concatenate([np.all(bm >= -tol, axis=2), np.all(bs >= -tol, axis=2)], axis=1)
    cand.append(pts)
    lines.append(np.broadcast_to(np.array(_VERTEX_LINES), (p, 6, 2)))
    valid = [inside]
    # slave edge i against master edge k
    for i in range(3):
        for k in range(3, 6):
            P, r = starts[:, i], ends[:, i] - starts[:, i]
            Q, s = starts[:, k], ends[:, k] - starts[:, k]
            den = _cross2(r, s)
            safe = np.where(np.abs(den) > 1e-14 * (np.abs(r).sum(1) * np.abs(s).sum(1)), den, np.nan)
            t = _cross2(Q - P, s) / safe
            u = _cross2(Q - P, r) / safe
            ok = (t >= -tol) & (t <= 1 + tol) & (u >= -tol) & (u <= 1 + tol)
            cand.append((P + np.nan_to_num(t)[:, None] * r)[:, None])
            lines.append(np.broadcast_to(np.array([[i, k]]), (p, 1, 2)))
            valid.append(ok[:, None])
    cand = np.concatenate(cand, axis=1)                        # (p, 15, 2)
    lines = np.concatenate(lines, axis=1)
    valid = np.concatenate(valid, axis=1)
    # drop duplicates (a vertex lying on an edge of the other triangle)
    size = np.abs(pts - pts[:, :1]).max(axis=(1, 2))[:, None, None]
    close = np.linalg.norm(cand[:, :, None] - cand[:, None], axis=3) <= 1e-9 * size
    earlier = np.tril(np.ones((15, 15), bool), -1)
    valid &= ~np.any(close & earlier & valid[:, None, :], axis=2)
    count = valid.sum(axis=1)
    centre = np.einsum("pv,pvi->pi", valid, cand) / np.maximum(count, 1)[:, None]
    angle = np.arctan2(cand[..., 1] - centre[:, None, 1], cand[..., 0] - centre[:, None, 0])
    angle = np.where(valid, angle, np.inf)
    order = np.argsort(angle, axis=1)
    V = max(int(count.max(initial=0)), 3)
    order = order[:, :V]
    first = order[:, :1]
    order = np.where(np.arange(V) < count[:, None], order, first)
    lines = np.take_along_axis(lines, order[:, :, None], axis=1)
    poly = np.take_along_axis(cand, order[:, :, None], axis=1)
    nxt = np.roll(poly, -1, axis=1)
    area = 0.5 * np.sum(_cross2(poly - centre[:, None], nxt - centre[:, None]), axis=1)
    return lines, count, np.where(count >= 3, area, 0.0)


def facing_pairs(slave, master, tol=1e-10):
    """Facing (slave triangle, master triangle) pairs with overlapping projections.

    Parameters
    ----------
    slave : ndarray, shape (n_e, 3, 3)
    master : ndarray, shape (n_f, 3, 3)

    Returns
    -------
    e, f : ndarray of int, shape (p,)
    lines : ndarray of int, shape (p, V, 2)
    count : ndarray of int, shape (p,)
        Number of polygon vertices.
    """
    cs, cm = slave.mean(axis=1), master.mean(axis=1)
    rs = np.linalg.norm(slave - cs[:, None], axis=2).max(axis=1)
    rm_f = np.linalg.norm(master - cm[:, None], axis=2).max(axis=1)
    rm = rm_f.max(initial=0.0)
    radius = 2.0 * (rs + rm)
    found = cKDTree(cs).sparse_distance_matrix(cKDTree(cm), float(radius.max(initial=0.0)),
                                               output_type="ndarray")
    found = found[found["v"] <= radius[found["i"]]]
    order = np.lexsort((found["j"], found["i"]))
    e, f = found["i"][order].astype(int), found["j"][order].astype(int)
    # facet normals once, gathered for the candidates
    ns = np.cross(slave[:, 1] - slave[:, 0], slave[:, 2] - slave[:, 0])
    nm = np.cross(master[:, 1] - master[:, 0], master[:, 2] - master[:, 0])
    facing = np.einsum("pi,pi->p", ns[e], nm[f]) < 0.0
    e, f = e[facing], f[facing]
    # projections that overlap have centroids within rs + rm_f of each other in the master plane
    d, nf = cs[e] - cm[f], nm[f]
    dn = np.einsum("pi,pi->p", d, nf)
    inplane2 = np.einsum("pi,pi->p", d, d) - dn * dn / np.maximum(np.einsum("pi,pi->p", nf, nf), 1e-300)
    sel = inplane2 <= ((rs[e] + rm_f[f]) * (1.0 + 1e-6)) ** 2
    e, f, scale = e[sel], f[sel], np.linalg.norm(nf[sel], axis=1)
    parts = []
    for start in range(0, e.size, CHUNK_CLIP):
        c = slice(start, start + CHUNK_CLIP)
        lines, count, area = clip_polygons(slave[e[c]], master[f[c]], tol)
        keep = (count >= 3) & (area > 1e-12 * scale[c])
        parts.append((e[c][keep], f[c][keep], lines[keep], count[keep]))
    V = max([3] + [pt[2].shape[1] for pt in parts])
    lines = [np.concatenate([pt[2], np.repeat(pt[2][:, :1], V - pt[2].shape[1], axis=1)], axis=1)
             for pt in parts]
    if not parts:
        return (np.zeros(0, int), np.zeros(0, int), np.zeros((0, 3, 2), int), np.zeros(0, int))
    return (np.concatenate([pt[0] for pt in parts]), np.concatenate([pt[1] for pt in parts]),
            np.concatenate(lines), np.concatenate([pt[3] for pt in parts]))


def pair_integrals(slave, master, slave0, master0, lines, count, tangent0, ref_area):
    """Weighted gap and slip contributions of slave triangles on master triangles.

    Parameters
    ----------
    slave, master : ndarray, shape (p, 3, 3)
        Current vertices of each pair's triangles.
    slave0, master0 : ndarray, shape (p, 3, 3)
        The same at the start of the step.
    lines : ndarray of int, shape (p, V, 2)
        Polygon vertices as pairs of edge lines (:func:`clip_polygons`).
    count : ndarray of int, shape (p,)
        Number of polygon vertices.
    tangent0 : ndarray, shape (p, 3, 2, 3)
        Slip directions of the three slave vertices.
    ref_area : ndarray, shape (p,)
        Reference area of the slave triangle.

    Returns
    -------
    gap : list of 3 Jet
        ``int Phi_j g`` (``Phi_j = 4 zeta_j - 1``) for the slave vertices ``j = 0, 1, 2``; the 18 local
        variables are the slave then the master vertex coordinates.
    slip : list of 3 lists of 2 Jet
    weight : ndarray, shape (p, 3)
        ``int N_j``.
    normal : ndarray, shape (p, 3)
        Master normal.
    """
    value, grad, hess, weight, normal = pair_kernel(
        *(np.ascontiguousarray(a, dtype=float) for a in (slave, master, slave0, master0)),
        np.ascontiguousarray(lines, dtype=np.int64), np.ascontiguousarray(count, dtype=np.int64),
        np.ascontiguousarray(tangent0, dtype=float), np.ascontiguousarray(ref_area, dtype=float))
    jets = [Jet(value[:, o], grad[:, o], hess[:, o]) for o in range(9)]
    return jets[:3], [jets[3 + 2 * j:5 + 2 * j] for j in range(3)], weight, normal


def weighted_kinematics(slave, slave0, slave_rows, master, master0, master_nodes, ref_area,
                        tangent0, area, distance, fallback_normal, fallback_tangent, tangent_of):
    """Mortar kinematics of every slave node of one pair of triangle surfaces.

    The overlapping pairs (:func:`facing_pairs`) are integrated in batches of
    :data:`CHUNK_3D` (:func:`pair_integrals`) and summed into the slave
    nodes' rows over each row's own unknowns
    (:class:`fecontact.contact.mortar2d.MortarRows`), so memory and time
    grow with the number of overlapping pairs.

    Parameters
    ----------
    slave, slave0 : ndarray, shape (n_e, 3, 3)
        Current and start-of-step slave triangles (vertices, coordinates).
    slave_rows : ndarray of int, shape (n_e, 3)
        Slave node (row ``0..m-1``) of each vertex.
    master, master0 : ndarray, shape (n_f, 3, 3)
        Current and start-of-step master triangles.
    master_nodes : ndarray of int, shape (n_f, 3)
        Master node (``0..``) of each vertex: a node shared by facets is one unknown.
    ref_area : ndarray, shape (n_e,)
        Reference areas of the slave triangles.
    tangent0 : ndarray, shape (m, 2, 3)
        Slip directions of the slave nodes.
    area : ndarray, shape (m,)
        Lumped nodal areas.
    distance, fallback_normal, fallback_tangent, tangent_of
        Gap, normal and tangents of the nodes no master facet covers, and
        the tangent basis of the averaged normals (:meth:`MortarRows.finish`).

    Returns
    -------
    local : LocalKinematics
    slots : ndarray of int, shape (m, P, 1)
        Slave row (``0..m-1``) or master node ``m + master_nodes[f, i]`` behind
        each group of three local variables; ``-1`` where unused.
    """
    m = area.shape[0]
    e, f, lines, count = facing_pairs(slave, master)
    p = e.size
    # contribution j p + i: slave vertex j of pair i
    row = slave_rows[e].T.ravel()
    points = np.tile(np.hstack([slave_rows[e], m + master_nodes[f]]), (3, 1))
    rows = MortarRows(m, row, points, 3, 2)
    # batches of pairs with the same number of polygon vertices integrate no empty triangles
    order = np.argsort(count, kind="stable")
    for start in range(0, p, CHUNK_3D):
        c = order[start:start + CHUNK_3D]
        ec, fc, cc = e[c], f[c], count[c]
        V = max(int(cc.max(initial=3)), 3)
        gap, slip, weight, normal = pair_integrals(
            slave[ec], master[fc], slave0[ec], master0[fc], lines[c, :V], cc,
            tangent0[slave_rows[ec]], ref_area[ec])
        for j in range(3):
            rows.add(j * p + c, gap[j], slip[j], weight[:, j], normal)
    return rows.finish(area, distance, fallback_normal, fallback_tangent, tangent_of)
