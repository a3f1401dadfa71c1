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
from .search import searched_facets

#: Candidate pairs clipped at once (:func:`facing_pairs`)
CHUNK_CLIP = 8192

# the two edge lines through each vertex: lines 0-2 are the slave edges
# (i -> i+1), lines 3-5 the master edges
_VERTEX_LINES = [(2, 0), (0, 1), (1, 2), (5, 3), (3, 4), (4, 5)]
# line l runs from vertex l to vertex _LINE_END[l] (slave vertices 0-2, master 3-5)
_LINE_END = [1, 2, 0, 4, 5, 3]
# pairs (earlier, later) of the 15 candidate polygon vertices (duplicates keep the earlier)
_EARLIER, _LATER = np.triu_indices(15, 1)


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
    size = np.abs(pts - pts[:, :1]).max(axis=(1, 2))[:, None]
    step = cand[:, _LATER] - cand[:, _EARLIER]
    close = step[..., 0] ** 2 + step[..., 1] ** 2 <= (1e-9 * size) ** 2
    duplicate = np.zeros((p, 15, 15), bool)
    duplicate[:, _EARLIER, _LATER] = close & valid[:, _EARLIER]
    valid &= ~duplicate.any(axis=1)
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


def _size_classes(r):
    """Facets grouped by circumradius: class ``c`` holds radii within a factor 2 of ``2^c r_min``."""
    if r.size == 0:
        return []
    c = np.floor(np.log2(np.maximum(r, 1e-300) / max(r.min(), 1e-300))).astype(int)
    c = np.minimum(c, 12)
    return [np.flatnonzero(c == k) for k in np.unique(c)]


def circumradius(facets: np.ndarray) -> np.ndarray:
    """Largest distance of each facet's vertices from its centroid, shape (n,), of facets (n, k, 3)."""
    return np.linalg.norm(facets - facets.mean(axis=1)[:, None], axis=2).max(axis=1)


def facet_size(slave: np.ndarray, master: np.ndarray) -> float:
    """The distance within which the facet search finds every overlap: ``2 (max r_e + max r_f)``."""
    return 2.0 * (circumradius(slave).max(initial=0.0) + circumradius(master).max(initial=0.0))


def _near_pairs(cs, rs, cm, rm, reach):
    """Pairs of facets whose centroids lie within ``2 (r_e + r_f) + reach_e`` of each other, sorted.

    The facets of each surface are grouped by circumradius (:func:`_size_classes`) and
    each pair of groups is searched with its own radius, so that a few large facets
    (the far part of a graded surface) do not widen the search of the small ones.
    ``reach`` (n_e,) is each slave facet's distance from the master surface: a facet
    farther from it than the facet sizes would otherwise keep only some of the master
    facets it projects onto.
    """
    parts_e, parts_f = [], []
    slave_classes = [(i, cKDTree(cs[i])) for i in _size_classes(rs)]
    for jf in _size_classes(rm):
        tree_f = cKDTree(cm[jf])
        for ie, tree_e in slave_classes:
            radius = 2.0 * (rs[ie].max() + rm[jf].max()) + reach[ie].max()
            found = tree_e.sparse_distance_matrix(tree_f, float(radius), output_type="ndarray")
            e, f = ie[found["i"]], jf[found["j"]]
            near = found["v"] <= 2.0 * (rs[e] + rm[f]) + reach[e]
            parts_e.append(e[near])
            parts_f.append(f[near])
    e = np.concatenate(parts_e + [np.zeros(0, int)]).astype(int)
    f = np.concatenate(parts_f + [np.zeros(0, int)]).astype(int)
    order = np.lexsort((f, e))
    return e[order], f[order]


def facing_pairs(slave, master, tol=1e-10, reach=None):
    """Facing (slave triangle, master triangle) pairs with overlapping projections.

    Parameters
    ----------
    slave : ndarray, shape (n_e, 3, 3)
    master : ndarray, shape (n_f, 3, 3)
    reach : ndarray, shape (n_e,), optional
        Distance of each slave triangle from the master surface (0 if omitted).

    Returns
    -------
    e, f : ndarray of int, shape (p,)
    lines : ndarray of int, shape (p, V, 2)
    count : ndarray of int, shape (p,)
        Number of polygon vertices.
    """
    cs, cm = slave.mean(axis=1), master.mean(axis=1)
    rs, rm_f = circumradius(slave), circumradius(master)
    e, f = _near_pairs(cs, rs, cm, rm_f, np.zeros(len(cs)) if reach is None else reach)
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
    # each (pair, slave vertex) its own row, its 18 variables in the pair's order
    p = slave.shape[0]
    rows = np.arange(3 * p).reshape(p, 3).T
    index = np.broadcast_to(np.arange(18), (3, p, 18))
    gap, slip = np.zeros((3 * p, 1)), np.zeros((3 * p, 2))
    d_gap, d_slip = np.zeros((3 * p, 1, 18)), np.zeros((3 * p, 2, 18))
    h_gap, h_slip = np.zeros((3 * p, 1, 18, 18)), np.zeros((3 * p, 2, 18, 18))
    weight, normal = np.zeros(3 * p), np.zeros((3 * p, 3))
    _scatter_pairs(slave, master, slave0, master0, lines, count, tangent0, ref_area,
                   np.ascontiguousarray(rows), np.ascontiguousarray(index),
                   gap, d_gap, h_gap, slip, d_slip, h_slip, weight, normal)
    n = np.cross(master[:, 1] - master[:, 0], master[:, 2] - master[:, 0])
    n /= np.linalg.norm(n, axis=1)[:, None]
    gaps = [Jet(gap[j::3, 0], d_gap[j::3, 0], h_gap[j::3, 0]) for j in range(3)]
    slips = [[Jet(slip[j::3, q], d_slip[j::3, q], h_slip[j::3, q]) for q in range(2)] for j in range(3)]
    return gaps, slips, weight.reshape(p, 3), n


def _scatter_pairs(slave, master, slave0, master0, lines, count, tangent0, ref_area, *rows):
    """:func:`fecontact.contact.mortar3d_integrals.scatter_pairs` on contiguous arguments of one
    type each; the compiled module (numba) is imported on first use, so that contact without
    mortar pairs neither imports nor loads it."""
    from .mortar3d_integrals import scatter_pairs
    scatter_pairs(*(np.ascontiguousarray(a, dtype=float) for a in (slave, master, slave0, master0)),
                  np.ascontiguousarray(lines, dtype=np.int64), np.ascontiguousarray(count, dtype=np.int64),
                  np.ascontiguousarray(tangent0, dtype=float), np.ascontiguousarray(ref_area, dtype=float),
                  *rows)


def weighted_kinematics(slave, slave0, slave_rows, master, master0, master_nodes, ref_area,
                        tangent0, area, distance, fallback_normal, fallback_tangent, tangent_of):
    """Mortar kinematics of every slave node of one pair of triangle surfaces.

    The overlapping pairs (:func:`facing_pairs`) are integrated one at a
    time by compiled code that adds each pair's contributions straight into
    the slave nodes' rows over each row's own unknowns
    (:func:`fecontact.contact.mortar3d_integrals.scatter_pairs` into the
    arrays of :class:`fecontact.contact.mortar2d.MortarRows`), so memory and
    time grow with the number of overlapping pairs and no per-pair
    derivative arrays are held.

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
        Distance of each slave node from the master surface (closest point),
        normal and tangents: the gap and frame of the nodes no master facet
        covers, and of nodes too far to search
        (:func:`fecontact.contact.search.searched_facets`); and the tangent
        basis of the averaged normals (:meth:`MortarRows.finish`).

    Returns
    -------
    local : LocalKinematics
    slots : ndarray of int, shape (m, P, 1)
        Slave row (``0..m-1``) or master node ``m + master_nodes[f, i]`` behind
        each group of three local variables; ``-1`` where unused.
    """
    m = area.shape[0]
    far, searched, reach = searched_facets(distance, slave_rows, facet_size(slave, master))
    e, f, lines, count = facing_pairs(slave[searched], master, reach=reach)
    e = searched[e]
    p = e.size
    # contribution j p + i: slave vertex j of pair i
    row = slave_rows[e].T.ravel()
    points = np.tile(np.hstack([slave_rows[e], m + master_nodes[f]]), (3, 1))
    rows = MortarRows(m, row, points, 3, 2)
    k = rows.k
    _scatter_pairs(slave[e], master[f], slave0[e], master0[f], lines, count, tangent0[slave_rows[e]],
                   ref_area[e], rows.row.reshape(3, p).astype(np.int64),
                   rows.index.reshape(3, p, 18).astype(np.int64), rows.gap.reshape(m, 1),
                   rows.d_gap.reshape(m, 1, k), rows.h_gap.reshape(m, 1, k, k),
                   rows.slip, rows.d_slip, rows.h_slip, rows.weight, rows.normal)
    rows.weight[far] = 0.0                          # open: the distance to the master
    return rows.finish(area, distance, fallback_normal, fallback_tangent, tangent_of)
