"""Candidate search and closest-point projection onto master segments (2D) and facets (3D).

Candidates come from a KD-tree over segment midpoints or facet centroids
(``O(n log n)``), so no all-pairs distance matrix is ever formed.  Among the
candidates of a slave node the segment with the smallest distance to its
(clamped) closest point wins; this switches segments automatically as the
node slides.  In 3D a node projects on a facet, or else on an edge or a
vertex (:func:`closest_facets`).  Given the segments (facets) of the
previous evaluation, a node keeps its own while it projects inside it
enlarged by a small margin (hysteresis, 2D and 3D).  For 2D mortar
integrals, :func:`facing_candidates` gives the master segments a slave
segment may overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree


@dataclass(frozen=True)
class Projection:
    """Closest master segment of each slave node.

    Attributes
    ----------
    segment : ndarray of int, shape (m,)
        Index into the master segments.
    xi : ndarray, shape (m,)
        Unclamped parametric coordinate on that segment.
    distance : ndarray, shape (m,)
        Distance to the clamped closest point.
    """

    segment: np.ndarray
    xi: np.ndarray
    distance: np.ndarray


def closest_segments(x_slave: np.ndarray, x_a: np.ndarray, x_b: np.ndarray,
                     n_candidates: int = 8, previous: np.ndarray | None = None,
                     keep_margin: float = 0.05) -> Projection:
    """Project slave nodes onto the closest of a set of straight segments.

    Parameters
    ----------
    x_slave : ndarray, shape (m, 2)
    x_a, x_b : ndarray, shape (n_seg, 2)
        Segment end points.
    n_candidates : int
        Nearest segment midpoints examined per slave node.
    previous : ndarray of int, shape (m,), optional
        Segment each node projected on before (``-1``: none).  A node keeps
        it while its parameter stays in ``[-keep_margin, 1 + keep_margin]``.
        This hysteresis keeps a node near a master vertex from alternating
        between the two segments from one Newton iterate to the next (the
        gaps measured on their lines differ beyond the vertex, so the
        alternation stalls Newton); using the segment's line up to
        ``keep_margin`` beyond its end changes the gap by at most
        ``keep_margin`` times the segment length times the vertex angle.
    """
    n_seg = x_a.shape[0]
    k = min(n_candidates, n_seg)
    tree = cKDTree(0.5 * (x_a + x_b))
    _, cand = tree.query(x_slave, k=k)
    cand = cand.reshape(x_slave.shape[0], k)
    a, b = x_a[cand], x_b[cand]                      # (m, k, 2)
    t = b - a
    d = x_slave[:, None, :] - a
    xi = np.einsum("mki,mki->mk", d, t) / np.einsum("mki,mki->mk", t, t)
    closest = a + np.clip(xi, 0.0, 1.0)[..., None] * t
    dist = np.linalg.norm(x_slave[:, None, :] - closest, axis=2)
    # prefer a segment whose interior holds the projection when distances tie
    outside = np.maximum(np.maximum(-xi, xi - 1.0), 0.0)
    length = np.sqrt(np.einsum("mki,mki->mk", t, t))
    best = np.argmin(dist + 1e-9 * length * (outside > 0), axis=1)
    rows = np.arange(x_slave.shape[0])
    segment, xi, dist = cand[rows, best], xi[rows, best], dist[rows, best]
    if previous is not None:
        keep = previous >= 0
        prev = np.where(keep, previous, 0)
        a, t = x_a[prev], x_b[prev] - x_a[prev]
        xi_prev = np.einsum("mi,mi->m", x_slave - a, t) / np.einsum("mi,mi->m", t, t)
        keep &= (xi_prev >= -keep_margin) & (xi_prev <= 1.0 + keep_margin)
        dist_prev = np.linalg.norm(x_slave - (a + np.clip(xi_prev, 0.0, 1.0)[:, None] * t), axis=1)
        segment = np.where(keep, prev, segment)
        xi = np.where(keep, xi_prev, xi)
        dist = np.where(keep, dist_prev, dist)
    return Projection(segment, xi, dist)


#: Features of a master facet that a slave node can project on.
VERTEX, EDGE, FACE = 0, 1, 2

# flat triangles covering a facet with v vertices, and its boundary edges
_TRIANGLES = {3: ((0, 1, 2),), 4: ((0, 1, 2), (0, 2, 3))}


@dataclass(frozen=True)
class FacetProjection:
    """Closest master facet feature of each slave node (3D).

    Attributes
    ----------
    facet : ndarray of int, shape (m,)
        Index into the master facets.
    feature : ndarray of int, shape (m,)
        ``FACE`` when the node projects inside the facet, else ``EDGE`` or
        ``VERTEX`` (the node lies beyond a convex edge or corner of the
        surface).
    local : ndarray of int, shape (m, 2)
        Facet-local vertices of the edge ``(i, j)`` or vertex ``(i, -1)``.
    side : ndarray, shape (m,)
        ``+1`` if the node lies on the outer side of the facet plane, else ``-1``.
    distance : ndarray, shape (m,)
        Distance to the closest point.
    """

    facet: np.ndarray
    feature: np.ndarray
    local: np.ndarray
    side: np.ndarray
    distance: np.ndarray


def facing_candidates(x_s1, x_s2, x_a, x_b, reach=None) -> tuple[np.ndarray, np.ndarray]:
    """Facing (slave segment, master segment) pairs near enough to overlap (KD-tree, ``O(n log n)``).

    A master segment is a candidate when its midpoint lies within the two
    segments' lengths plus ``reach`` of the slave midpoint, and the chords
    run in opposite directions.  ``reach`` is the slave segment's distance
    from the master surface: without it, a segment farther from the master
    than the segment lengths (a node still approaching) keeps only some of
    the master segments it projects onto, and its nodes' weighted gaps are
    integrals over part of their support, anything down to zero.

    Parameters
    ----------
    x_s1, x_s2 : ndarray, shape (n_e, 2)
        Slave segment ends (slave body on the left of ``s1 -> s2``).
    x_a, x_b : ndarray, shape (n_f, 2)
        Master segment ends.
    reach : ndarray, shape (n_e,), optional
        Distance of each slave segment from the master surface (0 if omitted).

    Returns
    -------
    slave, master : ndarray of int, shape (p,)
    """
    mid_s, mid_m = 0.5 * (x_s1 + x_s2), 0.5 * (x_a + x_b)
    radius = np.linalg.norm(x_s2 - x_s1, axis=1) + np.linalg.norm(x_b - x_a, axis=1).max()
    if reach is not None:
        radius = radius + reach
    hits = cKDTree(mid_m).query_ball_point(mid_s, radius)
    counts = np.fromiter((len(h) for h in hits), int, count=len(hits))
    slave = np.repeat(np.arange(len(hits)), counts)
    master = np.fromiter((j for h in hits for j in h), int, count=counts.sum())
    facing = np.einsum("pi,pi->p", x_s2[slave] - x_s1[slave], x_b[master] - x_a[master]) < 0.0
    return slave[facing], master[facing]


def searched_facets(distance: np.ndarray, facet_rows: np.ndarray, size: float) -> tuple:
    """Which slave facets a mortar search covers, how far it reaches, and the nodes it leaves open.

    A node farther from the master than ``size`` (the largest facet sizes of
    both surfaces) is open: its row takes the node-to-segment distance
    instead of a weighted gap.  Every other node needs every master facet
    under its support, so each slave facet with such a node is searched
    within its own distance from the master as well as the facet sizes
    (``reach``, at most ``size`` plus the facet's own size); facets of open
    nodes only are not searched.  Without the reach a facet farther from the
    master than the facets are large keeps only some of the master facets it
    projects onto, and its nodes' weighted gaps are integrals over part of
    their support, anything down to zero; without the open nodes the reach of
    a surface far from the master would make the search all pairs.

    Parameters
    ----------
    distance : ndarray, shape (m,)
        Distance of each slave node from the master surface (signed or not).
    facet_rows : ndarray of int, shape (n_e, k)
        Slave node (row) of each facet vertex.
    size : float
        The largest slave facet size plus the largest master facet size.

    Returns
    -------
    far : ndarray of bool, shape (m,)
        Nodes left open.
    searched : ndarray of int, shape (s,)
        The slave facets to search.
    reach : ndarray, shape (s,)
        Their distance from the master.
    """
    d = np.abs(distance)
    far = d > size
    searched = np.flatnonzero(~far[facet_rows].all(axis=1))
    return far, searched, d[facet_rows[searched]].max(axis=1)


def _segment_distance(p, a, b):
    """Distance of points to segments and the clamped parameter; shapes (..., 3) -> (...)."""
    t = b - a
    s = np.einsum("...i,...i->...", p - a, t) / np.einsum("...i,...i->...", t, t)
    s = np.clip(s, 0.0, 1.0)
    return np.linalg.norm(p - (a + s[..., None] * t), axis=-1), s


def _triangle_coordinates(p, a, b, c):
    """Barycentric coordinates ``(xi, eta)`` of the normal projection of points on
    triangles, and the signed distance along the unit normal ``(b-a) x (c-a)``;
    shapes (..., 3) -> (...)."""
    e1, e2, d = b - a, c - a, p - a
    n = np.cross(e1, e2)
    n /= np.linalg.norm(n, axis=-1)[..., None]
    a11, a12, a22 = (np.einsum("...i,...i->...", u, w) for u, w in ((e1, e1), (e1, e2), (e2, e2)))
    r1, r2 = np.einsum("...i,...i->...", e1, d), np.einsum("...i,...i->...", e2, d)
    det = a11 * a22 - a12 * a12
    return ((a22 * r1 - a12 * r2) / det, (a11 * r2 - a12 * r1) / det,
            np.einsum("...i,...i->...", n, d))


def _inside_facet(p: np.ndarray, X: np.ndarray, margin: float):
    """Whether points project into facets enlarged by ``margin`` (barycentric units).

    Parameters
    ----------
    p : ndarray, shape (m, 3)
    X : ndarray, shape (m, v, 3)
        One facet per point.

    Returns
    -------
    inside : ndarray of bool, shape (m,)
    side : ndarray, shape (m,)
        Sign of the distance to the plane of the facet's first triangle.
    """
    inside = np.zeros(p.shape[0], dtype=bool)
    side = None
    for tri in _TRIANGLES[X.shape[1]]:
        xi, eta, dist = _triangle_coordinates(p, *(X[:, i] for i in tri))
        inside |= (xi >= -margin) & (eta >= -margin) & (xi + eta <= 1.0 + margin)
        if side is None:
            side = np.where(dist >= 0.0, 1.0, -1.0)
    return inside, side


def closest_facets(x_slave: np.ndarray, facets: np.ndarray, n_candidates: int = 12,
                   tolerance: float = 1e-3, previous: np.ndarray | None = None,
                   keep_margin: float = 0.05) -> FacetProjection:
    """Project slave nodes onto the closest feature of flat triangles or quadrilaterals.

    Candidates are the facets with the ``n_candidates`` nearest centroids
    (KD-tree).  A node projects on a FACE if its normal projection falls
    inside a candidate (quadrilaterals are tested as two triangles); among
    these the nearest wins.  Otherwise its closest point is on an edge or a
    vertex; when that point is closer than ``tolerance`` times the facet size
    the node is treated as projecting on the nearest facet's plane (the edge
    normal is undefined at zero distance).

    Parameters
    ----------
    x_slave : ndarray, shape (m, 3)
    facets : ndarray, shape (n_facets, v, 3)
        Vertex coordinates, ``v = 3`` or ``4``, cyclic order.
    previous : ndarray of int, shape (m,), optional
        Facet each node projected on at the start of the increment (``-1``:
        none).  A node keeps it, as a FACE projection on its plane, while its
        normal projection stays inside the facet enlarged by ``keep_margin``
        (barycentric units).  This hysteresis keeps a node that sits on a
        master edge from alternating between the two adjacent facets from
        one Newton iterate to the next: their normals differ by the dihedral
        angle, so the alternation would stall Newton.  Using the extended
        plane beyond the edge changes the gap by at most ``keep_margin h``
        times the dihedral angle.
    """
    m = x_slave.shape[0]
    n_f, v, _ = facets.shape
    k = min(n_candidates, n_f)
    tree = cKDTree(facets.mean(axis=1))
    _, cand = tree.query(x_slave, k=k)
    cand = cand.reshape(m, k)
    X = facets[cand]                                   # (m, k, v, 3)
    p = x_slave[:, None, :]                            # (m, 1, 3)
    size = np.linalg.norm(X[:, :, 2] - X[:, :, 0], axis=-1)
    # normal projection inside one of the flat triangles
    inside = np.zeros((m, k), dtype=bool)
    plane = np.full((m, k), np.inf)
    side = None
    for tri in _TRIANGLES[v]:
        xi, eta, dist = _triangle_coordinates(p, *(X[:, :, i] for i in tri))
        eps = 1e-10
        here = (xi >= -eps) & (eta >= -eps) & (xi + eta <= 1.0 + eps)
        take = here & ~inside
        plane = np.where(take, np.abs(dist), plane)
        inside |= here
        if side is None:                  # side of the facet plane (first triangle)
            side = np.where(dist >= 0.0, 1.0, -1.0)
    # closest point on the boundary edges
    edge_dist = np.empty((m, k, v))
    edge_par = np.empty((m, k, v))
    for i in range(v):
        edge_dist[:, :, i], edge_par[:, :, i] = _segment_distance(p, X[:, :, i], X[:, :, (i + 1) % v])
    edge = np.argmin(edge_dist, axis=2)
    boundary = np.take_along_axis(edge_dist, edge[..., None], axis=2)[..., 0]
    distance = np.where(inside, plane, boundary)
    best = np.argmin(distance + np.where(inside, 0.0, 1e-9 * size), axis=1)
    rows = np.arange(m)
    facet = cand[rows, best]
    is_face = inside[rows, best] | (distance[rows, best] <= tolerance * size[rows, best])
    e = edge[rows, best]
    s = edge_par[rows, best, e]
    at_vertex = (s <= 0.0) | (s >= 1.0)
    feature = np.where(is_face, FACE, np.where(at_vertex, VERTEX, EDGE))
    first = np.where(s >= 1.0, (e + 1) % v, e)
    local = np.column_stack([np.where(feature == EDGE, e, first),
                             np.where(feature == EDGE, (e + 1) % v, -1)])
    side, distance = side[rows, best], distance[rows, best]
    if previous is not None:
        has = previous >= 0
        keep = np.zeros(m, dtype=bool)
        kept_side = np.ones(m)
        keep[has], kept_side[has] = _inside_facet(x_slave[has], facets[previous[has]], keep_margin)
        facet = np.where(keep, previous, facet)
        feature = np.where(keep, FACE, feature)
        local = np.where(keep[:, None], np.column_stack([np.zeros(m, int), np.full(m, -1)]), local)
        side = np.where(keep, kept_side, side)
    return FacetProjection(facet, feature, local, side, distance)


#: Relative distance past a free end (in segment or edge lengths) beyond which
#: a slave node is open (:func:`past_free_end_2d`, :func:`past_free_edge_3d`).
FREE_END_MARGIN = 1e-3


def free_ends_2d(segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which segment ends are free ends of the master chain.

    A vertex is free when it ends exactly one segment: no neighbouring
    segment continues the chain there (the end of an open surface).  A
    closed chain has no free ends.

    Parameters
    ----------
    segments : ndarray of int, shape (2, n_seg)
        Node of the start ``a`` and end ``b`` of each segment.

    Returns
    -------
    free_a, free_b : ndarray of bool, shape (n_seg,)
        Whether the segment's start (end) is a free end.
    """
    count = np.bincount(segments.ravel())
    return count[segments[0]] == 1, count[segments[1]] == 1


def past_free_end_2d(xi: np.ndarray, segment: np.ndarray, free_a: np.ndarray, free_b: np.ndarray,
                     margin: float = FREE_END_MARGIN) -> np.ndarray:
    r"""Slave nodes that project past a free end of the master chain.

    A node with parameter ``xi`` on segment ``a -> b`` lies past the free end
    ``a`` when ``xi < -margin``, past the free end ``b`` when
    ``xi > 1 + margin``.  Such a node faces no master surface: the straight
    line of the end segment continues beyond ``b``, but the master body does
    not.

    Parameters
    ----------
    xi : ndarray, shape (m,)
        Unclamped parameter of each node on its segment.
    segment : ndarray of int, shape (m,)
    free_a, free_b : ndarray of bool, shape (n_seg,)
        From :func:`free_ends_2d`.
    margin : float
        Tolerance in segment lengths: a node within it of the end still
        touches (a node at a punch corner that moves by round-off must not
        switch between open and closed).

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    return (free_a[segment] & (xi < -margin)) | (free_b[segment] & (xi > 1.0 + margin))


def free_edges_3d(facets: np.ndarray) -> np.ndarray:
    """Which edges of the master facets are free (boundary) edges of the surface.

    Edge ``i`` of a facet joins its vertices ``i`` and ``i + 1`` (cyclic).
    It is free when no other facet of the set uses it: the edge of an open
    surface.  A closed surface has no free edges.

    Parameters
    ----------
    facets : ndarray of int, shape (v, n_facets)
        Vertex nodes of each facet, cyclic order.

    Returns
    -------
    ndarray of bool, shape (n_facets, v)
    """
    v, n_f = facets.shape
    ends = np.stack([facets, np.roll(facets, -1, axis=0)], axis=-1)     # (v, n_f, 2)
    key = np.sort(ends, axis=-1).reshape(-1, 2)
    _, inverse, count = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return (count[inverse.ravel()] == 1).reshape(v, n_f).T


def free_edge_reach(x_slave: np.ndarray, X: np.ndarray, free: np.ndarray) -> np.ndarray:
    r"""How far each slave node lies outside its facet across a free edge, in edge lengths.

    With ``n`` the facet normal (``(x_1 - x_0)\times(x_2 - x_0)`` for
    triangles, the cross product of the diagonals for quadrilaterals) and
    edge ``i`` from ``x_i`` to ``x_{i+1}``, the in-plane outward normal of
    the edge is ``\nu_i = e_i\times n/|e_i\times n|``; the reach is the
    largest ``(x_s - x_i)\cdot\nu_i / |e_i|`` over the facet's free edges
    (positive outside, negative inside; ``-inf`` for a facet without free
    edges).

    Parameters
    ----------
    x_slave : ndarray, shape (m, 3)
    X : ndarray, shape (m, v, 3)
        Vertex coordinates of each node's facet.
    free : ndarray of bool, shape (m, v)
        Whether each edge of the node's facet is free (:func:`free_edges_3d`).

    Returns
    -------
    ndarray, shape (m,)
    """
    v = X.shape[1]
    if v == 3:
        n = np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0])
    else:
        n = np.cross(X[:, 2] - X[:, 0], X[:, 3] - X[:, 1])
    n /= np.linalg.norm(n, axis=1)[:, None]
    reach = np.full(x_slave.shape[0], -np.inf)
    for i in range(v):
        e = X[:, (i + 1) % v] - X[:, i]
        nu = np.cross(e, n)
        nu /= np.linalg.norm(nu, axis=1)[:, None]
        out = np.einsum("mi,mi->m", x_slave - X[:, i], nu) / np.linalg.norm(e, axis=1)
        reach = np.where(free[:, i], np.maximum(reach, out), reach)
    return reach


def past_free_edge_3d(x_slave: np.ndarray, X: np.ndarray, free: np.ndarray,
                      margin: float = FREE_END_MARGIN) -> np.ndarray:
    r"""Slave nodes whose projection on their facet's plane lies outside it across a free edge.

    The node lies outside across a free edge when its :func:`free_edge_reach`
    exceeds ``margin`` (edge lengths).  A node outside across a free edge (or
    past a vertex of one) faces no master surface.

    Parameters
    ----------
    x_slave : ndarray, shape (m, 3)
    X : ndarray, shape (m, v, 3)
        Vertex coordinates of each node's facet.
    free : ndarray of bool, shape (m, v)
        Whether each edge of the node's facet is free (:func:`free_edges_3d`).
    margin : float
        Tolerance in edge lengths.

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    return free_edge_reach(x_slave, X, free) > margin
