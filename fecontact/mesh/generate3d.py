"""3D mesh generators: a graded hemisphere of tetrahedra and a structured box of tetrahedra or hexahedra.

:func:`hemisphere`
    The sphere of 3D Hertz and Cattaneo–Mindlin cases: a half ball whose
    element size is ``h_contact`` on the contact cap around the pole and
    grows by about :data:`fecontact.mesh.generate2d.GRADING` per element up
    to ``h_far``, built by longest-edge bisection of Kuhn tetrahedra in a
    half cube mapped onto the half ball; boundaries ``curved``, ``flat``
    and ``contact``.
:func:`box`
    A structured box of positively oriented tetrahedra or hexahedra;
    boundaries ``left``, ``right``, ``front``, ``back``, ``bottom`` and
    ``top``.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from itertools import permutations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from skfem import Mesh, MeshHex1, MeshTet1

from .generate2d import GRADING

# ---------------------------------------------------------------------------
# three-dimensional generators
# ---------------------------------------------------------------------------

# In 3D an element is refined when its longest edge exceeds the local target
# size by more than this factor.  The bisected Kuhn tetrahedra used below
# have a longest edge of 1.3 to 1.6 times their mean edge, so the mean edge
# length stays at about the target size.
_SIZE_TOLERANCE_3D = 1.5

# Longest edge of the tetrahedra at the contact point of :func:`hemisphere`
# in units of ``h_contact``.  The contact surface is then a square lattice
# of spacing 1.35 / sqrt(2) = 0.95 ``h_contact`` (rotated by 45 degrees)
# whose squares are split into two triangles; the next coarser bisection
# level (longest edge 1.91 ``h_contact``) is clearly above, and the contact
# level clearly below, the refinement threshold, so the whole contact cap
# ends up on the same level.
_CONTACT_EDGE_3D = 1.35

# Safety limit on the number of bisection passes in :func:`hemisphere`
# (three passes halve the element size).
_MAX_PASSES_3D = 120

# The six edges of a tetrahedron as pairs of local vertex indices.
_TET_EDGES = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


class _DropContiguityWarnings(logging.Filter):
    """Filter for scikit-fem's 'Transforming ... to C_CONTIGUOUS' notes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "C_CONTIGUOUS" not in record.getMessage()


@contextmanager
def _quiet_tet_refinement():
    """Context for repeated :meth:`skfem.MeshTet1.refined` calls.

    scikit-fem logs a warning about non-contiguous arrays for every refined
    tetrahedral mesh and reseeds numpy's *global* random generator (it adds
    seeded noise to break ties between edge lengths).  Both are undone here:
    the warnings are filtered out and the caller's random state is restored.
    """
    skfem_logger = logging.getLogger("skfem.mesh.mesh")
    quiet = _DropContiguityWarnings()
    state = np.random.get_state()
    skfem_logger.addFilter(quiet)
    try:
        yield
    finally:
        skfem_logger.removeFilter(quiet)
        np.random.set_state(state)


def _tet_volumes(p: NDArray, t: NDArray) -> NDArray:
    """Signed volumes of tetrahedra ``t`` (positive if right-handed)."""
    a = p[:, t[1]] - p[:, t[0]]
    b = p[:, t[2]] - p[:, t[0]]
    c = p[:, t[3]] - p[:, t[0]]
    return np.einsum("ij,ij->j", a, np.cross(b, c, axis=0)) / 6.0


def _orient_tets(p: NDArray, t: NDArray) -> NDArray:
    """Return a copy of tetrahedra ``t`` with positive signed volume."""
    t = np.array(t, dtype=np.int32, order="C", copy=True)
    flip = _tet_volumes(p, t) < 0.0
    t[[2, 3]] = np.where(flip, t[[3, 2]], t[[2, 3]])
    return t


def _orient_hexes(p: NDArray, t: NDArray) -> NDArray:
    """Return a copy of parallelepipeds ``t`` with positive Jacobian.

    In the scikit-fem reference hexahedron node 7 is the origin and nodes
    4, 5, 6 are the unit points on the x, y and z axes.  Elements whose
    edges from node 7 form a left-handed frame are mirrored by exchanging
    the reference x and y directions.
    """
    t = np.asarray(t, dtype=np.int32)
    o = p[:, t[7]]
    det = np.einsum("ij,ij->j", p[:, t[4]] - o,
                    np.cross(p[:, t[5]] - o, p[:, t[6]] - o, axis=0))
    mirrored = t[[0, 1, 3, 2, 5, 4, 6, 7]]
    return np.ascontiguousarray(np.where(det < 0.0, mirrored, t))


def _longest_tet_edge(p: NDArray, t: NDArray) -> NDArray:
    """Longest edge length of every tetrahedron in ``t``."""
    return np.max([np.linalg.norm(p[:, t[j]] - p[:, t[i]], axis=0)
                   for i, j in _TET_EDGES], axis=0)


def _boundary_facets_on(mesh: Mesh, vertex_mask: NDArray) -> NDArray:
    """Boundary facets all of whose vertices have ``vertex_mask`` set.

    Classifying by the vertices instead of the facet midpoint avoids
    rounding: the mean of three equal floats need not equal them.
    """
    boundary = mesh.boundary_facets()
    inside = np.all(vertex_mask[mesh.facets[:, boundary]], axis=0)
    return np.sort(boundary[inside]).astype(np.int32)


def _reflected_kuhn_half_cube(n: int):
    """Tetrahedra of the half cube ``[-1, 1]^2 x [-1, 0]``, ``n`` cells/unit.

    Every cubic cell is split into the six (Kuhn) tetrahedra around one of
    its diagonals.  The diagonal is chosen to point away from the centre
    ``(0, 0, 0)`` of the top face, which makes the pattern mirror-symmetric
    about ``x = 0`` and ``y = 0``, puts a vertex at the pole ``(0, 0, -1)``
    and ensures that no tetrahedron has faces on two different sides of the
    cube (such faces would become coplanar on the sphere).  The pattern is
    conforming, and longest edge bisection keeps it a Kuhn-type hierarchy
    with a unique longest edge in every element.

    Returns
    -------
    p, t
        Nodes ``(3, (2n+1)^2 (n+1))`` with exact coordinates ``0`` and
        ``+-1`` on the planes of the cube, and tetrahedra ``(4, 24 n^3)``.
    """
    s = np.linspace(0.0, 1.0, n + 1)
    xs = np.concatenate((-s[:0:-1], s))
    zs = 0.0 - s[::-1]
    X, Y, Z = np.meshgrid(xs, xs, zs, indexing="ij")
    p = np.vstack((X.ravel(), Y.ravel(), Z.ravel()))

    def node(i, j, k):
        return (i * (2 * n + 1) + j) * (n + 1) + k

    I, J, K = (a.ravel() for a in np.meshgrid(
        np.arange(2 * n), np.arange(2 * n), np.arange(n), indexing="ij"))
    step = (np.where(I >= n, 1, -1), np.where(J >= n, 1, -1),
            -np.ones_like(K))
    start = (np.where(step[0] > 0, I, I + 1),
             np.where(step[1] > 0, J, J + 1),
             K + 1)
    tets = []
    for order in permutations(range(3)):
        corner = list(start)
        vertices = [node(*corner)]
        for axis in order:
            corner[axis] = corner[axis] + step[axis]
            vertices.append(node(*corner))
        tets.append(np.vstack(vertices))
    return p, np.hstack(tets).astype(np.int32)


def _half_cube_to_half_ball(p: NDArray, beta: float, c: float) -> NDArray:
    """Map the half cube ``[-1, 1]^2 x [-1, 0]`` onto the unit half ball.

    The cube surface ``max |p_i| = r`` goes to the sphere of radius
    ``rho(r) = r + (1 - c) r (1 - r)``: its point ``u = p / r`` is warped
    along the faces by ``u_i -> tan(beta u_i) / tan(beta)`` (``beta = 0``
    is the gnomonic, ``beta = pi / 4`` the equiangular cubed sphere) and
    projected radially.  The map keeps the plane ``z = 0`` (exactly) and
    sends the other five faces of the half cube onto the sphere.  Near the
    pole ``(0, 0, -1)`` it is smooth with Jacobian ``c I`` if
    ``beta / tan(beta) = c``.  It is continuous but kinked across the
    diagonal planes ``|p_i| = |p_j|`` of the cube.
    """
    r = np.max(np.abs(p), axis=0)
    inner = r > 0.0
    rr = r[inner]
    u = p[:, inner] / rr
    if beta > 0.0:
        u = np.tan(beta * u) / np.tan(beta)
    q = np.zeros_like(p)
    q[:, inner] = rr * (1.0 + (1.0 - c) * (1.0 - rr)) * u \
        / np.linalg.norm(u, axis=0)
    return q


def _contact_ladder(cells_per_unit: float):
    """Coarse grid and scaling for :func:`hemisphere`.

    Returns ``(n, k, c)``: the coarse half cube has ``n`` cells per unit
    (``4 <= n <= 7``), ``k`` halvings (``3 k`` bisections) reach the
    contact level, and the map to the ball is scaled by ``c`` at the pole
    so that the contact cells have exactly ``1 / cells_per_unit`` of the
    radius.  ``n 2**k`` is the largest such product not above
    ``cells_per_unit``; consecutive products differ by at most a factor
    5/4, so ``0.8 < c <= 1``.  Very coarse requests (fewer than four cells
    per unit) fall back to ``n = ceil(cells_per_unit)``, ``c = 1``.
    """
    best = None
    for n in range(4, 8):
        if n > cells_per_unit:
            continue
        k = 0
        while n * 2 ** (k + 1) <= cells_per_unit:
            k += 1
        if best is None or n * 2 ** k > best[0] * 2 ** best[1]:
            best = (n, k)
    if best is None:
        return max(1, int(np.ceil(cells_per_unit))), 0, 1.0
    n, k = best
    return n, k, n * 2 ** k / cells_per_unit


def _warp_angle(c: float) -> float:
    """The ``beta`` in ``[0, pi/4]`` with ``beta / tan(beta) = c``."""
    if c >= 1.0 - 1e-12:
        return 0.0
    from scipy.optimize import brentq
    return float(brentq(lambda b: b / np.tan(b) - c, 1e-8, 0.25 * np.pi,
                        xtol=1e-15))


def _distance_to_contact_cap(q: NDArray, radius: float,
                             half_angle: float) -> NDArray:
    """Distance from points ``q`` of the ball to the contact cap.

    Local frame: the ball is centred at the origin, the pole is
    ``(0, 0, -radius)`` and the cap consists of the sphere points at polar
    angle (from the negative z-axis) at most ``half_angle``.  The closest
    cap point of ``q`` lies on the ray through ``q`` if that ray meets the
    cap, and otherwise on the rim circle in the azimuthal plane of ``q``.
    """
    r = np.linalg.norm(q, axis=0)
    theta = np.arctan2(np.hypot(q[0], q[1]), -q[2])
    to_rim = np.sqrt(np.maximum(
        r * r + radius * radius
        - 2.0 * r * radius * np.cos(theta - half_angle), 0.0))
    return np.where(theta <= half_angle, radius - r, to_rim)


def hemisphere(radius: float = 1.0,
               center: ArrayLike = (0.0, 0.0, 1.0),
               side: str = "lower",
               h_contact: float = 0.01,
               h_far: float = 0.15,
               refine_width: float = 0.3,
               grading: float = GRADING) -> MeshTet1:
    """Graded tetrahedral mesh of a half ball, refined towards its pole.

    The region is the ball of ``radius`` about ``center`` cut by the
    horizontal plane ``z = cz`` through the centre.  The mesh is refined
    towards the *contact cap*, the part of the spherical surface within
    horizontal distance ``refine_width`` of the pole.  The element size is
    about ``h_contact`` on the contact cap and grows geometrically, by a
    factor of about ``grading`` per element, up to ``h_far``::

        h(x) = min(h_far, h_contact + (grading - 1) * dist(x, contact cap))

    Construction: a tetrahedral mesh of the half cube
    ``[-1, 1]^2 x [-1, 0]`` (Kuhn tetrahedra, mirror-symmetric about the
    axis) is refined by longest edge bisection in the cube, marking every
    tetrahedron whose longest edge, measured *after* the map to the half
    ball, exceeds ``1.5 h``, with ``h`` taken at the centroid (and
    ``h_contact`` for tetrahedra touching the contact cap).  The map is an
    equiangular-type cubed-sphere map that keeps ``z = 0`` flat, sends the
    other faces of the cube onto the sphere and the centre of the bottom
    face to the pole, where it is smooth and isotropic.  The coarse grid is
    chosen so that the contact level is reached exactly: the contact cap is
    one structured patch of right isosceles triangles with legs of
    ``0.95 h_contact`` and hypotenuses ``1.35 h_contact`` (up to the few
    per cent the map distorts), with a vertex at the pole and symmetric
    about the vertical planes through the pole and the diagonal planes
    between them.  The mean edge length of the tetrahedra is about ``h``.

    Parameters
    ----------
    radius
        Radius of the ball.
    center
        Centre ``(cx, cy, cz)`` of the ball.
    side
        ``"lower"`` keeps ``z <= cz`` (pole ``(cx, cy, cz - radius)`` at
        the bottom); ``"upper"`` keeps ``z >= cz`` (pole
        ``(cx, cy, cz + radius)`` at the top).  The upper mesh is the
        mirror image of the lower one.
    h_contact
        Element size on the contact cap.
    h_far
        Maximum element size away from the contact cap.
    refine_width
        Horizontal radius of the contact cap, measured from the pole.  The
        contact lattice stays uniform (to the few per cent of the map's
        distortion) for ``refine_width`` up to about ``0.5 * radius``.
    grading
        Growth factor of the element size per element away from the
        contact cap (default :data:`GRADING`).

    Returns
    -------
    skfem.MeshTet1
        Mesh with positive-volume tetrahedra and the named boundaries

        - ``"curved"``: all facets on the sphere,
        - ``"flat"``: facets on the plane ``z = cz``,
        - ``"contact"``: curved facets whose centroids lie within
          horizontal distance ``refine_width`` of the pole.

        Vertices on the sphere lie on it up to the rounding of the shift
        by ``center`` (``|x - center| / radius - 1`` of about ``1e-16``
        times ``|center| / radius``), vertices on the plane have
        ``z == cz`` exactly.

    Raises
    ------
    ValueError
        For non-positive or non-finite sizes, ``h_far < h_contact``,
        ``grading <= 1``, a ``center`` without three finite coordinates,
        an unknown ``side``, or if no facet lies within ``refine_width``
        of the pole (``h_contact`` too coarse for ``refine_width``).

    Notes
    -----
    With ``radius=1``, ``h_contact=0.01``, ``h_far=0.15``,
    ``refine_width=0.25`` the mesh has about 17,000 vertices, 2,400 of
    them on the contact cap, and is generated in under a second.  The
    smallest dihedral angle, about 18 degrees, occurs away from the contact
    cap where tetrahedra straddle the kinks of the map; near the cap the
    angles stay above 30 degrees.

    Examples
    --------
    >>> m = hemisphere(radius=1.0, center=(0.0, 0.0, 1.0), h_contact=0.05,
    ...                h_far=0.3, refine_width=0.3)
    >>> sorted(m.boundaries)
    ['contact', 'curved', 'flat']
    """
    if side not in ("lower", "upper"):
        raise ValueError(f"side must be 'lower' or 'upper', got {side!r}")
    center = np.asarray(center, dtype=float)
    if center.shape != (3,) or not np.all(np.isfinite(center)):
        raise ValueError("center must be three finite coordinates "
                         f"(cx, cy, cz), got {center.tolist()!r}")
    cx, cy, cz = (float(c) for c in center)
    sizes = dict(radius=radius, h_contact=h_contact, h_far=h_far,
                 refine_width=refine_width)
    for name, value in sizes.items():
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be positive and finite, "
                             f"got {value!r}")
    radius, h_contact, h_far, refine_width = (
        float(v) for v in sizes.values())
    if h_far < h_contact:
        raise ValueError(f"h_far ({h_far}) must not be smaller than "
                         f"h_contact ({h_contact})")
    if not (np.isfinite(grading) and grading > 1.0):
        raise ValueError(f"grading must be > 1, got {grading!r}")
    grading = float(grading)

    n, k, c = _contact_ladder(radius / (_CONTACT_EDGE_3D * h_contact))
    beta = _warp_angle(c)
    half_angle = float(np.arcsin(min(refine_width / radius, 1.0)))

    def physical(points: NDArray) -> NDArray:
        return radius * _half_cube_to_half_ball(points, beta, c)

    def target(q: NDArray, t: NDArray) -> NDArray:
        """Target size of the elements: h at the centroid, h_contact for
        elements touching the contact cap."""
        d = _distance_to_contact_cap(q[:, t].mean(axis=1), radius,
                                     half_angle)
        touching = np.min(_distance_to_contact_cap(q, radius, half_angle)[t],
                          axis=0) <= 1e-9 * radius
        d[touching] = 0.0
        return np.minimum(h_far, h_contact + (grading - 1.0) * d)

    mesh = MeshTet1(*_reflected_kuhn_half_cube(n))
    with _quiet_tet_refinement():
        for _ in range(_MAX_PASSES_3D):
            q = physical(mesh.p)
            marked = np.nonzero(_longest_tet_edge(q, mesh.t)
                                > _SIZE_TOLERANCE_3D * target(q, mesh.t))[0]
            if marked.size == 0:
                break
            mesh = mesh.refined(marked)

    # bisection midpoints of cube faces keep the coordinates 0 and +-1
    # exactly, so the reference coordinates classify the vertices
    ref = mesh.p
    on_plane = ref[2] == 0.0
    on_sphere = (np.abs(ref[0]) == 1.0) | (np.abs(ref[1]) == 1.0) \
        | (ref[2] == -1.0)
    q = physical(ref)
    q[:, on_sphere] *= radius / np.linalg.norm(q[:, on_sphere], axis=0)
    q[2, on_plane] = 0.0

    sign = 1.0 if side == "lower" else -1.0
    x = np.vstack((cx + q[0], cy + q[1], cz + sign * q[2]))
    t = _orient_tets(x, mesh.t)
    if not np.all(_tet_volumes(x, t) > 0.0):  # pragma: no cover
        raise RuntimeError("hemisphere produced degenerate tetrahedra")
    out = MeshTet1(x, t)

    flat = _boundary_facets_on(out, on_plane)
    curved = np.setdiff1d(out.boundary_facets(), flat).astype(np.int32)
    mid = x[:, out.facets[:, curved]].mean(axis=1)
    near = np.hypot(mid[0] - cx, mid[1] - cy) <= refine_width
    if not np.any(near):
        raise ValueError("no boundary facet has its centroid within "
                         f"refine_width ({refine_width}) of the pole; "
                         "decrease h_contact or increase refine_width")
    return out.with_boundaries({
        "curved": curved,
        "flat": flat,
        "contact": curved[near],
    })


def box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float,
        nx: int, ny: int, nz: int, element: str = "tet") -> Mesh:
    """Structured mesh of the box ``[x0, x1] x [y0, y1] x [z0, z1]``.

    Thin wrapper over :meth:`skfem.MeshTet1.init_tensor` and
    :meth:`skfem.MeshHex1.init_tensor` with positively oriented elements
    (``init_tensor`` itself returns half of the tetrahedra and all of the
    hexahedra with negative Jacobian).

    Parameters
    ----------
    x0, x1, y0, y1, z0, z1
        Bounds of the box, ``x0 < x1``, ``y0 < y1`` and ``z0 < z1``.
    nx, ny, nz
        Number of element divisions in ``x``, ``y`` and ``z``.
    element
        ``"tet"`` (six tetrahedra around the diagonal of each cell) or
        ``"hex"``.

    Returns
    -------
    skfem.Mesh
        :class:`skfem.MeshTet1` or :class:`skfem.MeshHex1` with the named
        boundaries ``"left"`` (``x = x0``), ``"right"`` (``x = x1``),
        ``"front"`` (``y = y0``), ``"back"`` (``y = y1``), ``"bottom"``
        (``z = z0``) and ``"top"`` (``z = z1``).

    Raises
    ------
    ValueError
        For an empty box, ``nx``, ``ny`` or ``nz`` below 1 or an unknown
        ``element``.

    Examples
    --------
    >>> m = box(0.0, 2.0, 0.0, 1.0, 0.0, 1.0, 4, 2, 2, element="hex")
    >>> m.nelements, sorted(m.boundaries)
    (16, ['back', 'bottom', 'front', 'left', 'right', 'top'])
    """
    x0, x1, y0, y1, z0, z1 = (float(v) for v in (x0, x1, y0, y1, z0, z1))
    if not (x1 > x0 and y1 > y0 and z1 > z0):
        raise ValueError("box needs x0 < x1, y0 < y1 and z0 < z1")
    if int(nx) < 1 or int(ny) < 1 or int(nz) < 1:
        raise ValueError("nx, ny and nz must be at least 1")
    xs = np.linspace(x0, x1, int(nx) + 1)
    ys = np.linspace(y0, y1, int(ny) + 1)
    zs = np.linspace(z0, z1, int(nz) + 1)

    if element == "tet":
        m = MeshTet1.init_tensor(xs, ys, zs)
        mesh = MeshTet1(m.p, _orient_tets(m.p, m.t))
    elif element == "hex":
        m = MeshHex1.init_tensor(xs, ys, zs)
        mesh = MeshHex1(m.p, _orient_hexes(m.p, m.t))
    else:
        raise ValueError(f"element must be 'tet' or 'hex', got {element!r}")

    # linspace reproduces the end points exactly
    p = mesh.p
    return mesh.with_boundaries({
        "left": _boundary_facets_on(mesh, p[0] == x0),
        "right": _boundary_facets_on(mesh, p[0] == x1),
        "front": _boundary_facets_on(mesh, p[1] == y0),
        "back": _boundary_facets_on(mesh, p[1] == y1),
        "bottom": _boundary_facets_on(mesh, p[2] == z0),
        "top": _boundary_facets_on(mesh, p[2] == z1),
    })
