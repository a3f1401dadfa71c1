r"""Facet-to-facet (mortar) contact kinematics in 3D on triangle and quadrilateral facets.

The general counterpart of :mod:`fecontact.contact.mortar3d` (triangles on
triangles): slave and master facets are linear triangles or bilinear
quadrilaterals (Q1 hexahedra), in any combination.  For slave node ``j`` of
facet ``e`` with the dual function ``psi_j = sum_k A_jk N_k``
(:func:`fecontact.contact.facet_maps.dual_coefficients`),

.. math::

    \tilde g_j = \sum_e \int_{e} \psi_j\, g \, d\Gamma, \qquad
    \Delta\tilde s_j = \sum_e \int_{e} \psi_j\, \tau^0_j\cdot
        \big[(x_s - x_s^0) - (x_m - x_m^0)\circ\pi\big] \, d\Gamma,

and the rows are ``g~_j / A_j``, ``Delta s~_j / A_j``
(:class:`fecontact.contact.mortar2d.MortarRows`), as in 2D and on triangles.

Segmentation.  Each facing pair (slave facet ``e``, master facet ``f``) is
segmented in the master's plane: the plane of a master triangle, for a
quadrilateral master its mean plane (through the vertex average, normal
``n_f`` along the cross product of the diagonals, which is ``x_xi x x_eta`` at
its centre; the plane itself for a flat one).  Both facets are projected on
it along ``n_f``; the projections are convex polygons bounded by the projected
straight edges (a bilinear facet's edges are straight), and their overlap is
clipped (at most eight vertices, each the intersection of two edge lines) and
fanned from its vertex average into triangles.  (A fan from its first
vertex, two triangles fewer, left Newton stalling at the rule's error on
perturbed quadrilaterals: with it the whole triangulation changes when a
vertex within round-off of another comes or goes.)  The slave and master points
of a point ``X`` of the plane are those that project on it:
``(xi_s, eta_s)`` and ``(xi_m, eta_m)`` by the inverse of the projected maps
(:func:`fecontact.contact.facet_maps.inverse`), and ``g = n_f . (x_s - x_m)``.
The measure is the slave's reference area, ``dGamma = J_ref(xi_s) /
|J_proj(xi_s)| dA`` (reference over projected Jacobian of the slave map).

Quadrature.  On a pair of parallelograms (or triangles) the inverse maps are
affine in ``X`` and the Jacobians constant, so ``psi_j g`` and the slip
integrand are polynomials of degree 4 in ``X`` (a bilinear ``psi_j`` times a
bilinear interpolation); the degree-4 six-point rule
(:data:`fecontact.contact.facet_maps.TRIANGLE_POINTS`) on each fan triangle
integrates them exactly, and a uniform pressure is transmitted exactly.  On
general quadrilaterals the inverse maps are not polynomial and the integrals
are as accurate as the rule on the fan triangles.

Derivatives.  The polygon's combinatorics come from a floating-point clipping
pass (:func:`clip_polygons`); the integrals are then evaluated as
:class:`fecontact.contact.jet.Jet` s of the slave and master vertex
coordinates (up to 24), the inverse maps by Newton steps in jets from the
float root, so gradients and Hessians are exact for fixed combinatorics.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .facet_maps import (TRIANGLE_POINTS, TRIANGLE_WEIGHTS, coefficients, dual_coefficients, inverse,
                         jacobian, reference_normal, shape)
from .jet import Jet, cross3, difference3, dot
from .mortar2d import MortarRows
from .mortar3d import circumradius, facet_size
from .search import searched_facets

#: Candidate pairs clipped at once (:func:`facing_pairs`)
CHUNK_CLIP = 4096
#: Pairs whose jets are evaluated at once (:func:`weighted_kinematics`)
CHUNK = 128
#: Edges of the two facets this close to parallel (sine of their angle) are not intersected:
#: their meeting point is ill-conditioned (edges along a shared boundary of the two bodies),
#: and the overlap's vertices there are the edges' end points
PARALLEL = 1e-8


def edge_lines(ns: int, nm: int) -> tuple:
    """The two edge lines through each polygon vertex and the end vertex of each line.

    Lines ``0..ns-1`` are the slave edges ``i -> i+1``, lines ``ns..ns+nm-1``
    the master edges; vertex ``i`` of a facet is the meeting of its lines
    ``i-1`` and ``i``.
    """
    vertex_lines = [((i - 1) % ns, i) for i in range(ns)] + [(ns + (k - 1) % nm, ns + k) for k in range(nm)]
    line_end = [(i + 1) % ns for i in range(ns)] + [ns + (k + 1) % nm for k in range(nm)]
    return np.array(vertex_lines), np.array(line_end)


def facet_normal(x: np.ndarray) -> np.ndarray:
    """Unnormalised outward normals of facets ``x`` (p, 3 or 4, 3): the triangle's, or the
    cross product of a quadrilateral's diagonals."""
    if x.shape[1] == 3:
        return np.cross(x[:, 1] - x[:, 0], x[:, 2] - x[:, 0])
    return np.cross(x[:, 2] - x[:, 0], x[:, 3] - x[:, 1])


def _frame(master):
    """Unit normal, in-plane axes and origin of the master planes (floats)."""
    n = facet_normal(master)
    n /= np.linalg.norm(n, axis=1)[:, None]
    e2 = np.cross(n, master[:, 1] - master[:, 0])
    e2 /= np.linalg.norm(e2, axis=1)[:, None]
    return n, np.cross(e2, n), e2, master.mean(axis=1)


def _cross2(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _inside(points, poly, tol):
    """Whether 2D ``points`` (p, a, 2) lie in the convex polygons ``poly`` (p, b, 2), within ``tol`` (p,)."""
    nxt = np.roll(poly, -1, axis=1)
    orient = np.sign(np.sum(_cross2(poly, nxt), axis=1))
    edge = nxt - poly
    d = points[:, :, None, :] - poly[:, None, :, :]
    dist = orient[:, None, None] * _cross2(edge[:, None], d) / np.linalg.norm(edge, axis=2)[:, None]
    return np.all(dist >= -tol[:, None, None], axis=2)


def clip_polygons(slave, master, tol=1e-10):
    """Overlap polygons of slave facets projected on the master planes and the master facets.

    Parameters
    ----------
    slave : ndarray, shape (p, ns, 3)
    master : ndarray, shape (p, nm, 3)
        Vertices (3 or 4, cyclic order) of each pair's facets.

    Returns
    -------
    lines : ndarray of int, shape (p, V, 2)
        The two edge lines (:func:`edge_lines`) of each polygon vertex,
        counter-clockwise about the master normal; rows with fewer vertices
        repeat the first.
    count : ndarray of int, shape (p,)
        Number of polygon vertices (``< 3``: no overlap).
    area : ndarray, shape (p,)
        Polygon area.
    """
    p, ns, nm = slave.shape[0], slave.shape[1], master.shape[1]
    vertex_lines, line_end = edge_lines(ns, nm)
    n, e1, e2, c = _frame(master)

    def plane(x):
        d = x - c[:, None]
        return np.stack([np.einsum("pvi,pi->pv", d, e1), np.einsum("pvi,pi->pv", d, e2)], axis=-1)

    S, M = plane(slave), plane(master)
    pts = np.concatenate([S, M], axis=1)
    starts, ends = pts, pts[:, line_end]
    size = np.abs(pts - pts[:, :1]).max(axis=(1, 2))
    inside = np.concatenate([_inside(S, M, tol * size), _inside(M, S, tol * size)], axis=1)
    cand, lines, valid = [pts], [np.broadcast_to(vertex_lines, (p, ns + nm, 2))], [inside]
    for i in range(ns):
        for k in range(ns, ns + nm):
            P, r = starts[:, i], ends[:, i] - starts[:, i]
            Q, s = starts[:, k], ends[:, k] - starts[:, k]
            den = _cross2(r, s)
            safe = np.where(np.abs(den) > PARALLEL * (np.abs(r).sum(1) * np.abs(s).sum(1)), den, np.nan)
            t = _cross2(Q - P, s) / safe
            u = _cross2(Q - P, r) / safe
            ok = (t >= -tol) & (t <= 1 + tol) & (u >= -tol) & (u <= 1 + tol)
            cand.append((P + np.nan_to_num(t)[:, None] * r)[:, None])
            lines.append(np.broadcast_to(np.array([[i, k]]), (p, 1, 2)))
            valid.append(ok[:, None])
    cand = np.concatenate(cand, axis=1)
    lines = np.concatenate(lines, axis=1)
    valid = np.concatenate(valid, axis=1)
    nc = cand.shape[1]
    # drop duplicates (a vertex on an edge of the other facet, edges meeting at a vertex)
    close = np.linalg.norm(cand[:, :, None] - cand[:, None], axis=3) <= 1e-9 * size[:, None, None]
    earlier = np.tril(np.ones((nc, nc), bool), -1)
    valid &= ~np.any(close & earlier & valid[:, None, :], axis=2)
    count = valid.sum(axis=1)
    centre = np.einsum("pv,pvi->pi", valid, cand) / np.maximum(count, 1)[:, None]
    angle = np.arctan2(cand[..., 1] - centre[:, None, 1], cand[..., 0] - centre[:, None, 0])
    order = np.argsort(np.where(valid, angle, np.inf), axis=1)
    V = max(int(count.max(initial=0)), 3)
    order = np.where(np.arange(V) < count[:, None], order[:, :V], order[:, :1])
    lines = np.take_along_axis(lines, order[:, :, None], axis=1)
    poly = np.take_along_axis(cand, order[:, :, None], axis=1)
    nxt = np.roll(poly, -1, axis=1)
    area = 0.5 * np.sum(_cross2(poly - centre[:, None], nxt - centre[:, None]), axis=1)
    return lines, count, np.where(count >= 3, area, 0.0)


def facing_pairs(slave, master, tol=1e-10, reach=None):
    """Facing (slave facet, master facet) pairs with overlapping projections.

    Parameters
    ----------
    slave : ndarray, shape (n_e, ns, 3)
    master : ndarray, shape (n_f, nm, 3)
    reach : ndarray, shape (n_e,), optional
        Distance of each slave facet from the master surface (0 if omitted): a
        facet farther from it than the facet sizes keeps every master facet it
        projects onto.

    Returns
    -------
    e, f : ndarray of int, shape (p,)
    lines : ndarray of int, shape (p, V, 2)
    count : ndarray of int, shape (p,)
    """
    cs, cm = slave.mean(axis=1), master.mean(axis=1)
    rs, rm_f = circumradius(slave), circumradius(master)
    radius = 2.0 * (rs + rm_f.max(initial=0.0)) + (0.0 if reach is None else reach)
    hits = cKDTree(cm).query_ball_point(cs, radius)
    counts = np.fromiter((len(h) for h in hits), int, count=len(hits))
    e = np.repeat(np.arange(len(hits)), counts)
    f = np.fromiter((j for h in hits for j in h), int, count=counts.sum())
    ns, nm = facet_normal(slave)[e], facet_normal(master)[f]
    facing = np.einsum("pi,pi->p", ns, nm) < 0.0
    d = cs[e] - cm[f]
    dn = np.einsum("pi,pi->p", d, nm)
    inplane2 = np.einsum("pi,pi->p", d, d) - dn * dn / np.maximum(np.einsum("pi,pi->p", nm, nm), 1e-300)
    near = inplane2 <= ((rs[e] + rm_f[f]) * (1.0 + 1e-6)) ** 2
    sel = facing & near
    e, f = e[sel], f[sel]
    scale = np.linalg.norm(nm[sel], axis=1)
    parts = []
    for start in range(0, e.size, CHUNK_CLIP):
        c = slice(start, start + CHUNK_CLIP)
        lines, count, area = clip_polygons(slave[e[c]], master[f[c]], tol)
        keep = (count >= 3) & (area > 1e-12 * scale[c])
        parts.append((e[c][keep], f[c][keep], lines[keep], count[keep]))
    if not parts:
        return np.zeros(0, int), np.zeros(0, int), np.zeros((0, 3, 2), int), np.zeros(0, int)
    V = max(pt[2].shape[1] for pt in parts)
    lines = [np.concatenate([pt[2], np.repeat(pt[2][:, :1], V - pt[2].shape[1], axis=1)], axis=1)
             for pt in parts]
    return (np.concatenate([pt[0] for pt in parts]), np.concatenate([pt[1] for pt in parts]),
            np.concatenate(lines), np.concatenate([pt[3] for pt in parts]))


def _pick(index: np.ndarray, jets: list) -> Jet:
    """Row-wise choice ``jets[index[r]]`` for each row ``r``."""
    out = jets[0]
    for i, j in enumerate(jets[1:], start=1):
        sel = index == i
        if sel.any():
            out = Jet(np.where(sel, j.value, out.value), np.where(sel[:, None], j.grad, out.grad),
                      np.where(sel[:, None, None], j.hess, out.hess))
    return out


def _sub2(a, b):
    return [a[0] - b[0], a[1] - b[1]]


def _jcross2(a, b):
    return a[0] * b[1] - a[1] * b[0]


def _jet_frame(xm):
    """Unit normal, in-plane axes and origin of the master plane (jets)."""
    nm = len(xm)
    raw = (cross3(difference3(xm[1], xm[0]), difference3(xm[2], xm[0])) if nm == 3
           else cross3(difference3(xm[2], xm[0]), difference3(xm[3], xm[1])))
    inv = dot(raw, raw).sqrt().reciprocal()
    n = [c * inv for c in raw]
    t2 = cross3(n, difference3(xm[1], xm[0]))
    inv2 = dot(t2, t2).sqrt().reciprocal()
    e2 = [c * inv2 for c in t2]
    centre = [sum((x[c] for x in xm[1:]), xm[0][c]) * (1.0 / nm) for c in range(3)]
    return n, cross3(e2, n), e2, centre


def _polygon(pts, lines, line_end):
    """Jet vertices of the overlap polygons: intersections of their edge lines."""
    ends = [pts[i] for i in line_end]

    def endpoint(index, which):
        return [_pick(index, [w[c] for w in which]) for c in range(2)]

    poly = []
    for k in range(lines.shape[1]):
        l1, l2 = lines[:, k, 0], lines[:, k, 1]
        P1, Q1, P2, Q2 = endpoint(l1, pts), endpoint(l1, ends), endpoint(l2, pts), endpoint(l2, ends)
        r, s = _sub2(Q1, P1), _sub2(Q2, P2)
        t = _jcross2(_sub2(P2, P1), s) / _jcross2(r, s)
        poly.append([P1[0] + t * r[0], P1[1] + t * r[1]])
    return poly


def pair_integrals(slave, master, slave0, master0, lines, count, tangent0, slave_ref):
    """Weighted gap and slip contributions of slave facets on master facets.

    Parameters
    ----------
    slave, master : ndarray, shape (p, ns, 3) and (p, nm, 3)
        Current vertices (3 or 4, cyclic order) of each pair's facets.
    slave0, master0 : ndarray
        The same at the start of the step.
    lines : ndarray of int, shape (p, V, 2)
        Polygon vertices as pairs of edge lines (:func:`clip_polygons`); rows
        with fewer vertices repeat the first.
    count : ndarray of int, shape (p,)
        Number of polygon vertices.
    tangent0 : ndarray, shape (p, ns, 2, 3)
        Slip directions of the slave vertices.
    slave_ref : ndarray, shape (p, ns, 3)
        Reference vertices of the slave facet (measure and dual functions).

    Returns
    -------
    gap : list of ns Jet
        ``int psi_j g`` for the slave vertices; the local variables are the
        slave then the master vertex coordinates.
    slip : list of ns lists of 2 Jet
    weight : ndarray, shape (p, ns)
        ``int N_j``.
    normal : ndarray, shape (p, 3)
        Master normal.
    """
    p, ns, nm = slave.shape[0], slave.shape[1], master.shape[1]
    v = Jet.variables(np.hstack([slave.reshape(p, -1), master.reshape(p, -1)]))
    xs = [v[3 * i:3 * i + 3] for i in range(ns)]
    xm = [v[3 * ns + 3 * i:3 * ns + 3 * i + 3] for i in range(nm)]
    n, e1, e2, origin = _jet_frame(xm)

    def planar(x):
        d = difference3(x, origin)
        return [dot(d, e1), dot(d, e2)]

    S, M = [planar(x) for x in xs], [planar(x) for x in xm]
    height_s = [dot(n, difference3(x, origin)) for x in xs]
    height_m = [dot(n, difference3(x, origin)) for x in xm]
    poly = _polygon(S + M, lines, edge_lines(ns, nm)[1])
    map_s, map_m = coefficients(S), coefficients(M)
    ref_normal = reference_normal(slave_ref)                                  # (p, 3, 3)
    dual = dual_coefficients(slave_ref)                                       # (p, ns, ns)
    disp_s = [[xs[i][c] - slave0[:, i, c] for c in range(3)] for i in range(ns)]
    disp_m = [[xm[i][c] - master0[:, i, c] for c in range(3)] for i in range(nm)]
    tau = [[[tangent0[:, j, q, c] for c in range(3)] for q in range(2)] for j in range(ns)]
    # |J_proj| (the projected slave facet turns the other way about n: it faces the master)
    orient = np.sign(jacobian(map_s, 0.0, 0.0).value)
    if ns == 3:
        measure_s = (jacobian(map_s, 0.0, 0.0) * orient).reciprocal() * np.linalg.norm(ref_normal[:, 0], axis=1)
    # mortar integrals I_ji = int psi_j N_i dGamma over the overlap, of the slave vertices i
    # (i < ns) and the master ones; the weighted gap and slip combine them with the vertices'
    # heights above the plane and displacements
    mortar = [[None] * (ns + nm) for _ in range(ns)]
    weight = np.zeros((p, ns))
    V = len(poly)
    O = [sum((poly[k][c] * np.where(k < count, 1.0 / count, 0.0) for k in range(V)),
             start=Jet.constant(0.0, poly[0][0])) for c in range(2)]
    for k in range(V):
        # the fan from the vertex average
        A, B = poly[k], poly[(k + 1) % V]
        tri_area = 0.5 * _jcross2(_sub2(A, O), _sub2(B, O))
        for bary, wq in zip(TRIANGLE_POINTS, TRIANGLE_WEIGHTS):
            X = [bary[0] * O[c] + bary[1] * A[c] + bary[2] * B[c] for c in range(2)]
            xi_s, eta_s = inverse(map_s, X)
            xi_m, eta_m = inverse(map_m, X)
            Ns, Nm = shape(ns, xi_s, eta_s), shape(nm, xi_m, eta_m)
            if ns == 3:
                dG = tri_area * measure_s * wq
            else:
                Jr = [ref_normal[:, 0, c] + ref_normal[:, 1, c] * xi_s + ref_normal[:, 2, c] * eta_s
                      for c in range(3)]
                dG = tri_area * (dot(Jr, Jr).sqrt() * (jacobian(map_s, xi_s, eta_s) * orient).reciprocal()) * wq
            for j in range(ns):
                psi_dG = sum((Ns[i] * dual[:, j, i] for i in range(1, ns)), Ns[0] * dual[:, j, 0]) * dG
                for i, N_i in enumerate(Ns + Nm):
                    term = psi_dG * N_i
                    mortar[j][i] = term if mortar[j][i] is None else mortar[j][i] + term
                weight[:, j] += Ns[j].value * dG.value
    heights = height_s + height_m
    disp = disp_s + disp_m
    sign = [1.0] * ns + [-1.0] * nm
    gap, slip = [], []
    for j in range(ns):
        gap.append(dot([mortar[j][i] * sign[i] for i in range(ns + nm)], heights))
        rel = [dot([mortar[j][i] * sign[i] for i in range(ns + nm)], [d[c] for d in disp]) for c in range(3)]
        slip.append([dot(tau[j][q], rel) for q in range(2)])
    normal = np.column_stack([c.value for c in n])
    return gap, slip, weight, normal


def weighted_kinematics(slave, slave0, slave_rows, master, master0, master_nodes, slave_ref,
                        tangent0, area, distance, fallback_normal, fallback_tangent, tangent_of):
    """Mortar kinematics of every slave node of one pair of triangle or quadrilateral surfaces.

    The overlapping pairs (:func:`facing_pairs`) are integrated in batches of
    :data:`CHUNK` (:func:`pair_integrals`) and summed into the slave nodes'
    rows over each row's own unknowns
    (:class:`fecontact.contact.mortar2d.MortarRows`), so memory and time
    grow with the number of overlapping pairs.

    Parameters
    ----------
    slave, slave0 : ndarray, shape (n_e, ns, 3)
        Current and start-of-step slave facets (vertices, coordinates).
    slave_rows : ndarray of int, shape (n_e, ns)
        Slave node (row ``0..m-1``) of each vertex.
    master, master0 : ndarray, shape (n_f, nm, 3)
        Current and start-of-step master facets.
    master_nodes : ndarray of int, shape (n_f, nm)
        Master node (``0..``) of each vertex: a node shared by facets is one unknown.
    slave_ref : ndarray, shape (n_e, ns, 3)
        Reference vertices of the slave facets.
    tangent0 : ndarray, shape (m, 2, 3)
        Slip directions of the slave nodes.
    area : ndarray, shape (m,)
        Lumped nodal areas.
    distance, fallback_normal, fallback_tangent, tangent_of
        As in :func:`fecontact.contact.mortar3d.weighted_kinematics`.

    Returns
    -------
    local : LocalKinematics
    slots : ndarray of int, shape (m, P, 1)
        Slave row or master node ``m + master_nodes[f, i]`` behind each group
        of three local variables; ``-1`` where unused.
    """
    m = area.shape[0]
    ns = slave.shape[1]
    far, searched, reach = searched_facets(distance, slave_rows, facet_size(slave, master))
    e, f, lines, count = facing_pairs(slave[searched], master, reach=reach)
    e = searched[e]
    p = e.size
    row = slave_rows[e].T.ravel()
    points = np.tile(np.hstack([slave_rows[e], m + master_nodes[f]]), (ns, 1))
    rows = MortarRows(m, row, points, 3, 2)
    order = np.argsort(count, kind="stable")
    for start in range(0, p, CHUNK):
        c = order[start:start + CHUNK]
        ec, fc, cc = e[c], f[c], count[c]
        V = max(int(cc.max(initial=3)), 3)
        gap, slip, weight, normal = pair_integrals(
            slave[ec], master[fc], slave0[ec], master0[fc], lines[c, :V], cc,
            tangent0[slave_rows[ec]], slave_ref[ec])
        for j in range(ns):
            rows.add(j * p + c, gap[j], slip[j], weight[:, j], normal)
    rows.weight[far] = 0.0                          # open: the distance to the master
    return rows.finish(area, distance, fallback_normal, fallback_tangent, tangent_of)
