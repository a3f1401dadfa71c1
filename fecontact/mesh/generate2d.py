"""2D mesh generators: a graded half-disc (triangles or quadrilaterals) and a structured rectangle.

:func:`half_disc`
    The cylinder of Hertz and Cattaneo–Mindlin cases: a half disc whose
    element size is ``h_contact`` on the contact arc and grows by about
    :data:`GRADING` per element up to ``h_far``, built by red-green-blue
    refinement with the new boundary nodes moved back onto the circle;
    boundaries ``arc``, ``flat`` and ``contact``.
:func:`rectangle`
    A structured rectangle of triangles or quadrilaterals, optionally
    rotated (blocks, foundations, inclines); boundaries ``left``,
    ``right``, ``bottom`` and ``top``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict

import numpy as np
from numpy.typing import ArrayLike, NDArray
from skfem import Mesh, MeshQuad, MeshTri

#: Target ratio between the sizes of neighbouring elements in graded meshes.
GRADING = 1.3

# An element is refined when its longest edge exceeds the local target size
# by more than this factor.
_SIZE_TOLERANCE = 1.25

# Safety limit on the number of refinement passes in :func:`half_disc`.
_MAX_LEVELS = 60


# ---------------------------------------------------------------------------
# small geometric helpers
# ---------------------------------------------------------------------------


def _signed_areas(p: NDArray, t: NDArray) -> NDArray:
    """Signed areas of triangles ``t`` (positive if counter-clockwise)."""
    a, b, c = p[:, t[0]], p[:, t[1]], p[:, t[2]]
    return 0.5 * ((b[0] - a[0]) * (c[1] - a[1])
                  - (b[1] - a[1]) * (c[0] - a[0]))


def _orient_ccw(p: NDArray, t: NDArray) -> NDArray:
    """Return a copy of triangles ``t`` with counter-clockwise node order."""
    t = np.array(t, dtype=np.int32, order="C", copy=True)
    flip = _signed_areas(p, t) < 0.0
    t[[1, 2]] = np.where(flip, t[[2, 1]], t[[1, 2]])
    return t


def _orient_quads_ccw(p: NDArray, t: NDArray) -> NDArray:
    """Return a copy of quadrilaterals ``t`` in counter-clockwise order."""
    t = np.asarray(t, dtype=np.int32)
    area2 = sum(p[0, t[i]] * p[1, t[(i + 1) % 4]]
                - p[0, t[(i + 1) % 4]] * p[1, t[i]] for i in range(4))
    return np.ascontiguousarray(np.where(area2 < 0.0, t[[0, 3, 2, 1]], t))


def _longest_edge(p: NDArray, t: NDArray) -> NDArray:
    """Longest edge length of every element in ``t`` (any polygon)."""
    nv = t.shape[0]
    lengths = [np.linalg.norm(p[:, t[(i + 1) % nv]] - p[:, t[i]], axis=0)
               for i in range(nv)]
    return np.max(lengths, axis=0)


def _project_to_circle(p: NDArray, radius: float) -> NDArray:
    """Move points ``p`` (relative to the centre) radially onto the circle."""
    r = np.linalg.norm(p, axis=0)
    return radius * p / r


def _distance_to_contact_arc(p: NDArray, radius: float,
                             half_angle: float) -> NDArray:
    """Distance from points ``p`` to the contact arc of the lower half disc.

    In the local frame the disc is centred at the origin, the contact point
    is ``(0, -radius)`` and the contact arc consists of the circle points at
    polar angle ``phi`` (measured from the negative y-axis) with
    ``|phi| <= half_angle``.
    """
    r = np.linalg.norm(p, axis=0)
    phi = np.arctan2(p[0], -p[1])
    inside = np.abs(phi) <= half_angle
    ends = radius * np.array([[np.sin(half_angle), -np.sin(half_angle)],
                              [-np.cos(half_angle), -np.cos(half_angle)]])
    d_end = np.minimum(
        np.linalg.norm(p - ends[:, [0]], axis=0),
        np.linalg.norm(p - ends[:, [1]], axis=0),
    )
    return np.where(inside, np.abs(radius - r), d_end)


def _coarse_half_disc(radius: float, h: float):
    """Quasi-uniform triangulation of the lower half disc (local frame).

    The nodes are placed on concentric half rings, ``3 k`` segments on
    ring ``k`` (the hexagonal pattern mapped onto the disc), and
    triangulated by Delaunay.  The half disc is convex, so the Delaunay
    triangulation covers exactly the boundary polygon.

    Returns
    -------
    p, t
        Nodes ``(2, n)`` and counter-clockwise triangles ``(3, m)``.
    """
    from scipy.spatial import Delaunay

    nrings = max(1, int(np.ceil(radius / h - 1e-9)))
    pts = [np.zeros((2, 1))]
    for k in range(1, nrings + 1):
        rk = radius * k / nrings
        theta = np.pi + np.pi * np.arange(3 * k + 1) / (3 * k)
        ring = np.vstack((rk * np.cos(theta), rk * np.sin(theta)))
        ring[1, [0, -1]] = 0.0  # endpoints exactly on the flat edge
        ring[0, 0], ring[0, -1] = -rk, rk
        pts.append(ring)
    p = np.hstack(pts)
    t = Delaunay(p.T).simplices.T
    t = t[:, np.abs(_signed_areas(p, t)) > 1e-12 * h * h]
    return p, _orient_ccw(p, t)


def _graded_half_disc(radius: float, h_contact: float, h_far: float,
                      refine_width: float, grading: float = GRADING) -> MeshTri:
    """Graded triangle mesh of the lower half disc in the local frame.

    Local frame: centre at the origin, the region is ``y <= 0`` and the
    contact point is ``(0, -radius)``.
    """
    if refine_width >= radius:
        half_angle = 0.5 * np.pi
    else:
        half_angle = float(np.arcsin(refine_width / radius))

    # Coarse size on the dyadic ladder h_contact * 2**k so that repeated
    # halving lands on h_contact near the contact arc.
    levels = max(0, int(np.floor(np.log2(h_far / h_contact) + 1e-9)))
    h0 = min(h_contact * 2.0 ** levels, radius)
    p, t = _coarse_half_disc(radius, h0)
    mesh = MeshTri(p, t)

    def target(points: NDArray) -> NDArray:
        d = _distance_to_contact_arc(points, radius, half_angle)
        return np.minimum(h_far, h_contact + (grading - 1.0) * d)

    for _ in range(_MAX_LEVELS):
        p, t = mesh.p, mesh.t
        # target size at the element's vertex closest to the contact arc
        h_target = np.min(target(p)[t], axis=0)
        marked = np.nonzero(_longest_edge(p, t)
                            > _SIZE_TOLERANCE * h_target)[0]
        if marked.size == 0:
            break
        mesh = mesh.refined(marked)
        # snap new arc nodes back onto the circle; nodes on the flat edge
        # are midpoints of flat facets and keep y == 0 exactly
        p = mesh.p.copy()
        bnd = mesh.boundary_nodes()
        arc = bnd[p[1, bnd] != 0.0]
        p[:, arc] = _project_to_circle(p[:, arc], radius)
        mesh = MeshTri(p, mesh.t)

    return _smoothed(mesh)


def _min_angles(p: NDArray, t: NDArray) -> NDArray:
    """Smallest interior angle (radians) of every triangle."""
    lengths = np.array([np.linalg.norm(p[:, t[(i + 1) % 3]] - p[:, t[i]],
                                       axis=0) for i in range(3)])
    # the smallest angle is opposite the shortest edge (law of cosines)
    a = lengths.min(axis=0)
    b, c = np.sort(lengths, axis=0)[1:]
    cos = np.clip((b * b + c * c - a * a) / (2 * b * c), -1.0, 1.0)
    return np.arccos(cos)


def _smoothed(mesh: MeshTri, passes: int = 3) -> MeshTri:
    """Laplacian smoothing of the interior nodes of a triangle mesh.

    Evens out the size jumps left by the refinement.  Boundary nodes do not
    move.  The smoothed mesh is only used if no element is inverted and the
    smallest angle does not decrease.
    """
    from scipy.sparse import coo_matrix

    p0, t = mesh.p, mesh.t
    n = p0.shape[1]
    f = mesh.facets
    adj = coo_matrix((np.ones(2 * f.shape[1]),
                      (np.r_[f[0], f[1]], np.r_[f[1], f[0]])),
                     shape=(n, n)).tocsr()
    degree = np.asarray(adj.sum(axis=1)).ravel()
    interior = np.ones(n, dtype=bool)
    interior[mesh.boundary_nodes()] = False

    p = p0.copy()
    for _ in range(passes):
        p[:, interior] = (adj @ p.T).T[:, interior] / degree[interior]

    same_orientation = np.all(np.sign(_signed_areas(p, t))
                              == np.sign(_signed_areas(p0, t)))
    if same_orientation and (_min_angles(p, t).min()
                             >= _min_angles(p0, t).min()):
        return MeshTri(p, t)
    return mesh


def _split_to_quads(p: NDArray, t: NDArray, facets: NDArray, t2f: NDArray,
                    arc_facets: NDArray, radius: float):
    """Split every triangle into three quadrilaterals.

    Each quadrilateral joins a vertex, the midpoints of the two adjacent
    edges and the centroid.  Midpoints of arc facets are moved onto the
    circle (local frame, centre at the origin).
    """
    nv, nf = p.shape[1], facets.shape[1]
    mid = 0.5 * (p[:, facets[0]] + p[:, facets[1]])
    mid[:, arc_facets] = _project_to_circle(mid[:, arc_facets], radius)
    centroid = p[:, t].mean(axis=1)
    pq = np.hstack((p, mid, centroid))

    # t2f rows of MeshTri: facet (0,1), facet (1,2), facet (0,2)
    m01, m12, m02 = t2f + nv
    g = nv + nf + np.arange(t.shape[1])
    tq = np.hstack((
        np.vstack((t[0], m01, g, m02)),
        np.vstack((t[1], m12, g, m01)),
        np.vstack((t[2], m02, g, m12)),
    )).astype(np.int32)
    return pq, tq


def _facet_tags(p: NDArray, facets: NDArray, boundary: NDArray, cx: float,
                cy: float, refine_width: float) -> Dict[str, NDArray]:
    """Classify boundary facets of a half disc into arc, flat and contact."""
    on_flat = (p[1, facets[0, boundary]] == cy) \
        & (p[1, facets[1, boundary]] == cy)
    flat = boundary[on_flat]
    arc = boundary[~on_flat]
    mid_x = 0.5 * (p[0, facets[0, arc]] + p[0, facets[1, arc]])
    contact = arc[np.abs(mid_x - cx) <= refine_width]
    return {
        "arc": np.sort(arc).astype(np.int32),
        "flat": np.sort(flat).astype(np.int32),
        "contact": np.sort(contact).astype(np.int32),
    }


# ---------------------------------------------------------------------------
# public generators
# ---------------------------------------------------------------------------


def half_disc(radius: float = 1.0,
              center: ArrayLike = (0.0, 1.0),
              side: str = "lower",
              h_contact: float = 0.01,
              h_far: float = 0.1,
              refine_width: float = 0.3,
              element: str = "tri",
              grading: float = GRADING) -> Mesh:
    """Graded mesh of a half disc, refined towards its contact point.

    The region is the disc of ``radius`` about ``center`` cut by the
    horizontal line through the centre.  The mesh is refined towards the
    *contact arc*, the part of the circular boundary within horizontal
    distance ``refine_width`` of the contact point.  The element size is
    about ``h_contact`` on the contact arc and grows geometrically, by a
    factor of about ``grading`` per element, up to ``h_far``::

        h(x) = min(h_far, h_contact + (grading - 1) * dist(x, contact arc))

    The triangulation is built from a quasi-uniform coarse mesh by repeated
    red-green-blue refinement of the elements larger than ``h(x)``; after
    every pass the new boundary nodes of the circular part are moved
    radially back onto the circle.  The coarse size is
    ``h_contact * 2**k <= h_far`` so the elements near the contact arc have
    edges of about ``h_contact`` (at most ``1.25 * h_contact``).

    Parameters
    ----------
    radius
        Radius of the disc.
    center
        Centre ``(cx, cy)`` of the disc.
    side
        ``"lower"`` keeps ``y <= cy`` (contact point ``(cx, cy - radius)``
        at the bottom); ``"upper"`` keeps ``y >= cy`` (contact point
        ``(cx, cy + radius)`` at the top).
    h_contact
        Element size on the contact arc.
    h_far
        Maximum element size away from the contact arc.
    refine_width
        Horizontal half width of the contact arc, measured from the contact
        point.
    grading
        Growth factor of the element size per element away from the contact
        arc (default :data:`GRADING`); values near 1 keep the region under
        the contact fine, which the subsurface stress field needs.
    element
        ``"tri"`` for a :class:`skfem.MeshTri`, ``"quad"`` for a
        :class:`skfem.MeshQuad`.  The quadrilateral mesh is obtained by
        splitting each triangle of a mesh generated with ``2 * h_contact``
        and ``2 * h_far`` into three quadrilaterals (vertex, two edge
        midpoints, centroid), so the quadrilateral edges are again about
        ``h_contact`` on the contact arc.

    Returns
    -------
    skfem.Mesh
        Mesh with counter-clockwise elements and the named boundaries

        - ``"arc"``: all facets on the circular part of the boundary,
        - ``"flat"``: facets on the straight edge ``y = cy``,
        - ``"contact"``: arc facets whose midpoints lie within horizontal
          distance ``refine_width`` of the contact point.

        Boundary nodes on the arc lie on the circle and nodes on the
        straight edge have ``y == cy`` exactly.

    Raises
    ------
    ValueError
        For non-positive sizes, ``h_contact > h_far`` or an unknown
        ``side``/``element``.

    Examples
    --------
    >>> m = half_disc(radius=1.0, center=(0.0, 1.0), h_contact=0.02)
    >>> sorted(m.boundaries)
    ['arc', 'contact', 'flat']
    """
    cx, cy = (float(c) for c in center)
    radius = float(radius)
    if side not in ("lower", "upper"):
        raise ValueError(f"side must be 'lower' or 'upper', got {side!r}")
    if element not in ("tri", "quad"):
        raise ValueError(f"element must be 'tri' or 'quad', got {element!r}")
    if not (radius > 0 and h_contact > 0 and h_far > 0 and refine_width > 0):
        raise ValueError("radius, h_contact, h_far and refine_width "
                         "must be positive")
    if h_contact > h_far:
        raise ValueError("h_contact must not exceed h_far")

    scale = 2.0 if element == "quad" else 1.0
    if not grading > 1.0:
        raise ValueError(f"grading must be > 1, got {grading}")
    tri = _graded_half_disc(radius, scale * h_contact, scale * h_far,
                            refine_width, grading)
    p, t = tri.p, tri.t

    if element == "quad":
        boundary = tri.boundary_facets()
        facets = tri.facets
        arc_local = boundary[(p[1, facets[0, boundary]] != 0.0)
                             | (p[1, facets[1, boundary]] != 0.0)]
        p, t = _split_to_quads(p, t, facets, tri.t2f, arc_local, radius)

    # map the local frame (centre at origin, y <= 0) to the global frame
    sign = 1.0 if side == "lower" else -1.0
    x = np.vstack((cx + p[0], cy + sign * p[1]))

    # final snap in global coordinates: boundary points away from the flat
    # edge lie exactly on the circle, the flat edge exactly on y = cy
    on_arc = np.abs(np.hypot(p[0], p[1]) - radius) <= 1e-9 * radius
    on_arc &= p[1] != 0.0
    rel = x[:, on_arc] - np.array([[cx], [cy]])
    x[:, on_arc] = np.array([[cx], [cy]]) + _project_to_circle(rel, radius)

    if element == "tri":
        mesh = MeshTri(x, _orient_ccw(x, t), sort_t=False)
    else:
        mesh = MeshQuad(x, _orient_quads_ccw(x, t))

    tags = _facet_tags(mesh.p, mesh.facets, mesh.boundary_facets(),
                       cx, cy, refine_width)
    return mesh.with_boundaries(tags)


def rectangle(x0: float, x1: float, y0: float, y1: float, nx: int, ny: int,
              element: str = "tri", angle: float = 0.0) -> Mesh:
    """Structured mesh of the rectangle ``[x0, x1] x [y0, y1]``, optionally rotated.

    Thin wrapper over :meth:`skfem.MeshTri.init_tensor` and
    :meth:`skfem.MeshQuad.init_tensor` with counter-clockwise elements.

    Parameters
    ----------
    x0, x1, y0, y1
        Bounds of the rectangle, ``x0 < x1`` and ``y0 < y1``.
    nx, ny
        Number of element divisions in ``x`` and ``y``.
    element
        ``"tri"`` (two triangles per cell) or ``"quad"``.
    angle
        Counter-clockwise rotation in degrees about the corner ``(x0, y0)``
        (an inclined block or interface); the boundary names refer to the
        sides before the rotation.

    Returns
    -------
    skfem.Mesh
        Mesh with the named boundaries ``"left"`` (``x = x0``), ``"right"``
        (``x = x1``), ``"bottom"`` (``y = y0``) and ``"top"`` (``y = y1``).

    Raises
    ------
    ValueError
        For an empty rectangle, ``nx < 1``, ``ny < 1`` or an unknown
        ``element``.
    """
    x0, x1, y0, y1 = (float(v) for v in (x0, x1, y0, y1))
    if not (x1 > x0 and y1 > y0):
        raise ValueError("rectangle needs x0 < x1 and y0 < y1")
    if int(nx) < 1 or int(ny) < 1:
        raise ValueError("nx and ny must be at least 1")
    xs = np.linspace(x0, x1, int(nx) + 1)
    ys = np.linspace(y0, y1, int(ny) + 1)

    if element == "tri":
        m = MeshTri.init_tensor(xs, ys)
        mesh = MeshTri(m.p, _orient_ccw(m.p, m.t), sort_t=False)
    elif element == "quad":
        m = MeshQuad.init_tensor(xs, ys)
        mesh = MeshQuad(m.p, _orient_quads_ccw(m.p, m.t))
    else:
        raise ValueError(f"element must be 'tri' or 'quad', got {element!r}")

    # linspace reproduces the end points exactly
    mesh = mesh.with_boundaries({
        "left": lambda x: x[0] == x0,
        "right": lambda x: x[0] == x1,
        "bottom": lambda x: x[1] == y0,
        "top": lambda x: x[1] == y1,
    })
    if float(angle) == 0.0:
        return mesh
    a = np.deg2rad(float(angle))
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corner = np.array([[x0], [y0]])
    return replace(mesh, doflocs=rotation @ (mesh.doflocs - corner) + corner)
