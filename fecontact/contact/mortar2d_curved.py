r"""Segment-to-segment (mortar) contact in 2D on smoothed curves of both surfaces.

On a curved interface meshed by straight segments the straight mortar
(:mod:`fecontact.contact.mortar2d`) measures the gap between the chords of
both sides, so the chord sag ``h^2 / 8R`` of the slave and of the master
enters the weighted gaps, and with it the pressure, as a spurious
interference (on a shrink fit with non-matching meshes a third of the
interference).  Here every segment ``a -> b`` of either surface is the cubic
Hermite curve of :mod:`fecontact.contact.smoothing` *of the reference
configuration* (nodal tangents ``T_a``, ``T_b`` by the same rule: the
tangent of the circle through a node and its neighbours, mirrored at free
ends and corners), carried by the segment's current chord ``t = x_b - x_a``:

.. math::

    x(\xi) = x_a + u(\xi)\, t + v(\xi)\, J t, \qquad
    u = h_{01} + c_a h_{10} + c_b h_{11}, \quad v = s_a h_{10} + s_b h_{11},

with ``J t = (t_y, -t_x)`` and ``c = T . d^0``, ``s = T . n^0`` the nodal
tangents' components in the reference chord frame (``d^0`` the chord
direction, ``n^0 = J d^0``).  In the reference configuration it is the
Hermite curve; it rotates and stretches with its chord, so it is objective,
and it is *linear in the segment's two nodes* (:func:`frame_curve`).  The
curve through the current nodal tangents (what node-to-segment smoothing
uses for masters) also depends on the neighbours, and the bulge it adds to
each segment telescopes: the derivative of ``int g`` with respect to the
nodes near a free end of the slave differs from the chords' ``A_j n_j`` by
``-1/8, +1/6, -1/24`` of a segment length on the last three nodes, so a
uniform pressure came out 25 % off at the end nodes of a matching shrink fit.
With the curves carried by their chords the slave nodal forces keep the dual
mortar's ``A_j lam_j`` (up to the square of the tangents' angle to the
chord) and a contribution has the 8 local variables of the straight mortar,
``(s1, s2, a, b)``.

With ``N_j`` the linear shape function of slave node ``j`` in the slave
curve parameter ``eta`` and ``Phi_j = 3 N_j - 1`` its dual function,

.. math::

    \tilde g_j = \sum_{e,f} L^0_e \int_{\eta^e_f} \Phi_j(\eta)\, g(\eta)\, d\eta, \qquad
    g(\eta) = n_m(\xi)\cdot\big(x_s(\eta) - x_m(\xi)\big),

where ``xi = xi(eta)`` is the closest point of ``x_s(eta)`` on the master
curve (Newton), ``n_m`` the master curve's unit normal there (towards the
slave), and ``L^0_e`` the reference *chord* length of slave segment ``e``:
then ``L^0_e int Phi_j N_k d eta = delta_jk L^0_e / 2``, the dual functions
stay biorthogonal and the multiplier is the nodal pressure on the lumped
chord lengths ``A_j``, as in the straight mortar.  The slip increment is

.. math::

    \Delta\tilde s_j = \sum_{e,f} L^0_e \int_{\eta^e_f} \Phi_j\, \tau^0_j\cdot
        \big[(x_s(\eta) - x^0_s(\eta)) - (x_m(\xi) - x^0_m(\xi))\big]\, d\eta,

against the material points of both curves at the start of the step.

The overlap ``eta^e_f`` of slave segment ``e`` and master segment ``f`` is
the interval of slave parameters whose projections fall in ``[0, 1]``: its
ends are where the slave curve crosses the master curve's end normals,
``(x_s(eta) - x_a) . x_m'(0) = 0`` and ``(x_s(eta) - x_b) . x_m'(1) = 0``
(the projection reaches ``xi = 0`` or ``1`` there), found by Newton on these
cubics in ``eta`` (:func:`overlap_interval`).  The integrand is smooth
inside an overlap; :data:`GAUSS_POINTS` Gauss-Legendre points integrate it
(on a circle, 20 against 32 segments per quarter, the largest error of a
contribution is 8e-6 of the largest contribution with 2 points, 2e-10
with 3, round-off with 4; ``tests/test_mortar_curved.py``).  On straight
chains ``u = xi``, ``v = 0``: the curves are the segments and the rows are
those of :mod:`fecontact.contact.mortar2d` to round-off.

On axisymmetric bodies (``x[0] = r``) the measure is ``2 pi r L^0_e d eta``
with ``r`` linear along the reference chord and the duals biorthogonal
under it (:func:`fecontact.contact.mortar2d.revolved_dual`), as in the
straight mortar: the nodal areas ``A_j = int 2 pi r N_j`` of the chords
stay the force weights.

Exact gradients and Hessians come from :class:`fecontact.contact.jet.Jet`:
the overlap ends and the projection parameters are jets from two Newton
steps started at their converged values (each step doubles the order to
which they are exact).
"""

from __future__ import annotations

import numpy as np

from .jet import Jet, dot
from .kinematics2d import node_to_segment
from .mortar2d import MortarRows, dual_and_measure, revolved_dual, segment_lengths
from .mortar_facets import slot_dofs
from .search import closest_segments, facing_candidates, searched_facets
from .smoothing import end_tangents, master_chain, select_rows

#: Gauss-Legendre points on each overlap
GAUSS_POINTS = 4

#: Contributions evaluated at once (bounds the temporaries: jets of 8 variables at
#: :data:`GAUSS_POINTS` points each)
CHUNK = 1024

_ITERATIONS = 50


def _gauss():
    t, w = np.polynomial.legendre.leggauss(GAUSS_POINTS)
    return 0.5 * (t + 1.0), 0.5 * w


def _cols(x: np.ndarray) -> list:
    return [x[:, 0], x[:, 1]]


def frame_coefficients(x1, x2, xp, xq, smooth1, smooth2) -> np.ndarray:
    """Components ``(c_1, s_1, c_2, s_2)`` of the nodal tangents in the chord frames, shape (n, 4).

    Parameters
    ----------
    x1, x2, xp, xq : ndarray, shape (n, 2)
        Reference coordinates of the segment ends, the node before ``x1`` and
        the node after ``x2`` (any stand-in where that end is not smooth).
    smooth1, smooth2 : ndarray of bool, shape (n,)
        Whether the ends are smooth nodes of the chain
        (:func:`fecontact.contact.smoothing.end_tangents`).
    """
    t1, t2, length = end_tangents(_cols(x1), _cols(x2), _cols(xp), _cols(xq), smooth1, smooth2)
    d = (x2 - x1) / length[:, None]
    n = np.column_stack([d[:, 1], -d[:, 0]])
    t1, t2 = np.column_stack(t1), np.column_stack(t2)
    return np.column_stack([np.einsum("ij,ij->i", t, e) for t in (t1, t2) for e in (d, n)])


def frame_curve(xi, a, t, coef, order: int = 0) -> list:
    """The ``order``-th derivative in ``xi`` of ``x(xi) = a + u t + v J t`` (module docstring).

    ``a``, ``t`` are component pairs (arrays or jets), ``coef`` the
    :func:`frame_coefficients` (n, 4); returns a component pair.
    """
    xi2 = xi * xi
    if order == 0:
        h01, h10, h11 = 3.0 * xi2 - 2.0 * xi2 * xi, xi2 * xi - 2.0 * xi2 + xi, xi2 * xi - xi2
    elif order == 1:
        h01, h10, h11 = 6.0 * xi - 6.0 * xi2, 3.0 * xi2 - 4.0 * xi + 1.0, 3.0 * xi2 - 2.0 * xi
    else:
        h01, h10, h11 = 6.0 - 12.0 * xi, 6.0 * xi - 4.0, 6.0 * xi - 2.0
    u = h01 + h10 * coef[:, 0] + h11 * coef[:, 2]
    v = h10 * coef[:, 1] + h11 * coef[:, 3]
    jt = [t[1], -1.0 * t[0]]
    out = [u * t[i] + v * jt[i] for i in range(2)]
    return [a[i] + out[i] for i in range(2)] if order == 0 else out


def _end_residual(eta, slave, node, direction):
    """``F = (x_s(eta) - x_node) . direction`` and ``dF/deta``; ``slave = (s1, t_s, coef_s)``."""
    x = frame_curve(eta, *slave)
    d1 = frame_curve(eta, *slave, order=1)
    return dot([x[0] - node[0], x[1] - node[1]], direction), dot(d1, direction)


def _root(fun, f0, f1):
    """Root in ``[0, 1]`` of ``fun`` (values ``f0``, ``f1`` of opposite signs at the ends):
    Newton inside the shrinking bracket, bisection where Newton leaves it (float arrays)."""
    lo, hi = np.zeros_like(f0), np.ones_like(f0)
    eta = np.clip(f0 / (f0 - f1), 0.0, 1.0)
    for _ in range(_ITERATIONS):
        f, df = fun(eta)
        same = np.sign(f) == np.sign(f0)
        lo, hi = np.where(same, eta, lo), np.where(same, hi, eta)
        new = eta - np.divide(f, df, out=np.full_like(f, np.inf), where=df != 0.0)
        new = np.where((new > lo) & (new < hi), new, 0.5 * (lo + hi))
        done = np.all(np.abs(new - eta) < 1e-15)
        eta = new
        if done:
            break
    return eta


def _end_directions(master) -> tuple:
    """The master curves' end tangents ``x_m'(0)``, ``x_m'(1)`` (component pairs, unnormalised)."""
    a, t, coef = master
    one = np.ones(coef.shape[0])
    return frame_curve(0.0 * one, a, t, coef, 1), frame_curve(one, a, t, coef, 1)


def overlap_interval(slave, master) -> tuple:
    """Slave-parameter interval projecting inside the master curves (float arrays).

    Parameters
    ----------
    slave, master : tuple
        ``(x_1, t, coef)`` of the slave and the master curves: start point and
        chord (component pairs of arrays, shape (p,)) and :func:`frame_coefficients`;
        the segments face each other.

    Returns
    -------
    lo, hi : ndarray, shape (p,)
        The interval (empty where ``hi <= lo``).
    lo_inner, hi_inner : ndarray of bool, shape (p,)
        Whether ``lo`` (``hi``) is a crossing of a master end normal
        (depends on the coordinates) rather than an end of the slave segment.
    """
    a, t, _ = master
    b = [a[0] + t[0], a[1] + t[1]]
    ta, tb = _end_directions(master)
    zero, one = np.zeros(a[0].shape[0]), np.ones(a[0].shape[0])
    fa0, fa1 = _end_residual(zero, slave, a, ta)[0], _end_residual(one, slave, a, ta)[0]
    fb0, fb1 = _end_residual(zero, slave, b, tb)[0], _end_residual(one, slave, b, tb)[0]
    # along the slave (facing the master) both residuals decrease: inside where F_a >= 0 >= F_b
    hi_inner = (fa0 > 0.0) & (fa1 < 0.0)
    lo_inner = (fb0 > 0.0) & (fb1 < 0.0)
    hi = np.where(fa1 >= 0.0, 1.0, 0.0)
    lo = np.where(fb0 <= 0.0, 0.0, 1.0)
    for inner, out, node, direction, f0, f1 in ((hi_inner, hi, a, ta, fa0, fa1),
                                                (lo_inner, lo, b, tb, fb0, fb1)):
        if inner.any():
            sub = (_rows(slave[0], inner), _rows(slave[1], inner), slave[2][inner])
            out[inner] = _root(lambda eta: _end_residual(eta, sub, _rows(node, inner),
                                                         _rows(direction, inner)), f0[inner], f1[inner])
    return lo, hi, lo_inner, hi_inner


def _rows(pair: list, rows) -> list:
    return [pair[0][rows], pair[1][rows]]


def _end_jet(value, inner, slave, node, direction):
    """The overlap end as a jet: two Newton steps of ``F = 0`` from its value where ``inner``."""
    const = Jet.constant(value, node[0])
    eta = const
    for _ in range(2):
        f, df = _end_residual(eta, slave, node, direction)
        eta = eta - f / df
    return select_rows(inner, eta, const)


def _projection_step(xi, xs, master):
    """``f = (x_s - x_m(xi)) . x_m'(xi)`` and ``df/dxi``."""
    x = frame_curve(xi, *master)
    d1 = frame_curve(xi, *master, order=1)
    d2 = frame_curve(xi, *master, order=2)
    r = [xs[0] - x[0], xs[1] - x[1]]
    return dot(r, d1), dot(r, d2) - dot(d1, d1)


def project(xs: list, master, xi0: np.ndarray) -> np.ndarray:
    """Closest-point parameters of the points ``xs`` (component pair) on the master curves.

    Newton from ``xi0``, each step limited to a quarter of the segment;
    beyond the centre of curvature (``df >= 0``) a gradient step.
    """
    xi = np.asarray(xi0, float).copy()
    scale = dot(master[1], master[1])
    for _ in range(_ITERATIONS):
        f, df = _projection_step(xi, xs, master)
        step = np.clip(-f / np.where(df < 0.0, df, -scale), -0.25, 0.25)
        xi = xi + step
        if np.all(np.abs(step) < 1e-15):
            break
    return xi


def segment_curves(v: list, coef: np.ndarray) -> tuple:
    """``(x_1, t, coef)`` of the slave and master curves from ``(s1, s2, a, b)`` (arrays or jets)."""
    s1, s2, a, b = v[0:2], v[2:4], v[4:6], v[6:8]
    return ((s1, [s2[0] - s1[0], s2[1] - s1[1]], coef[:, 0:4]),
            (a, [b[0] - a[0], b[1] - a[1]], coef[:, 4:8]))


def curved_pair_integrals(coords, coords0, coef, tangent0, first, length, radius=None):
    """Weighted gap and slip contributions of (slave node, slave segment, master segment) triples.

    Parameters
    ----------
    coords, coords0 : ndarray, shape (p, 8)
        Current and start-of-step coordinates of ``s1, s2, a, b``.
    coef : ndarray, shape (p, 8)
        :func:`frame_coefficients` of the slave segment, then of the master segment.
    tangent0 : ndarray, shape (p, 2)
        Slip direction of the slave node the contribution belongs to.
    first : ndarray of bool, shape (p,)
        Whether that node is ``s1`` (``N = 1 - eta``) or ``s2`` (``N = eta``).
    length : ndarray, shape (p,)
        Reference chord length of the slave segment.
    radius : ndarray, shape (p, 2), optional
        Axisymmetric bodies: reference radii of ``s1`` and ``s2`` (module docstring).

    Returns
    -------
    gap, slip : Jet
        ``int Phi g`` and ``int Phi tau0 . (relative displacement)`` over the
        overlap, with derivatives in ``(x_s1, y_s1, x_s2, y_s2, x_a, y_a, x_b, y_b)``.
    weight : ndarray, shape (p,)
        ``int N`` over the overlap.
    normal : ndarray, shape (p, 2)
        The ``N``-weighted mean master normal over the overlap.
    """
    p = coords.shape[0]
    slave_f, master_f = segment_curves([coords[:, i] for i in range(8)], coef)
    lo_f, hi_f, lo_inner, hi_inner = overlap_interval(slave_f, master_f)
    variables = Jet.variables(coords)
    slave, master = segment_curves(variables, coef)
    ends = _end_directions(master)
    b = [master[0][i] + master[1][i] for i in range(2)]
    lo = _end_jet(lo_f, lo_inner, slave, b, ends[1])
    span = _end_jet(hi_f, hi_inner, slave, master[0], ends[0]) - lo
    # every Gauss point of every contribution in one batch: rows q * p + c
    points, weights = _gauss()
    copies = points.size
    own = None                                                         # plane: the 3N - 1 duals
    if radius is not None:
        dual = revolved_dual(radius)                                   # (p, 2, 2)
        own = np.where(first[:, None], dual[:, 0], dual[:, 1])          # the node's row
        radius, own = np.concatenate([radius] * copies), np.concatenate([own] * copies)
    coords, coords0, coef, tangent0, first, length = (np.concatenate([a] * copies) for a in (
        coords, coords0, coef, tangent0, first, length))
    lo, span = _tile(lo, copies), _tile(span, copies)
    g, wq = np.repeat(points, p), np.repeat(weights, p)
    slave_f, master_f = segment_curves([coords[:, i] for i in range(8)], coef)
    slave0, master0 = segment_curves([coords0[:, i] for i in range(8)], coef)
    slave, master = segment_curves([_tile(v, copies) for v in variables], coef)
    a_f, t_f = master_f[0], master_f[1]
    eta = lo + span * g
    xs = frame_curve(eta, *slave)
    xs_f = [xs[0].value, xs[1].value]
    xi0 = np.clip(dot([xs_f[0] - a_f[0], xs_f[1] - a_f[1]], t_f) / dot(t_f, t_f), 0.0, 1.0)
    xi = Jet.constant(project(xs_f, master_f, xi0), eta)
    for _ in range(2):
        f, df = _projection_step(xi, xs, master)
        xi = xi - f / df
    xm = frame_curve(xi, *master)
    d1 = frame_curve(xi, *master, order=1)
    speed = dot(d1, d1).sqrt()
    n = [d1[1] / speed, -1.0 * d1[0] / speed]
    shape = select_rows(first, 1.0 - eta, eta)
    w, dx = dual_and_measure(shape, eta, span * (length * wq), radius, own)
    xs0, xm0 = frame_curve(eta, *slave0), frame_curve(xi, *master0)
    rel = [(xs[i] - xs0[i]) - (xm[i] - xm0[i]) for i in range(2)]
    gap = w * dot(n, [xs[0] - xm[0], xs[1] - xm[1]])
    slip = w * dot([tangent0[:, 0], tangent0[:, 1]], rel)
    share = (shape * dx).value
    weight = share.reshape(-1, p).sum(axis=0)
    normal = (share[:, None] * np.column_stack([c.value for c in n])).reshape(-1, p, 2).sum(axis=0)
    normal /= np.where(weight > 0.0, weight, 1.0)[:, None]
    return _sum_points(gap, p), _sum_points(slip, p), weight, normal


def _tile(jet: Jet, copies: int) -> Jet:
    """``copies`` copies of a batch, one after the other."""
    return Jet(np.tile(jet.value, copies), np.tile(jet.grad, (copies, 1)), np.tile(jet.hess, (copies, 1, 1)))


def _sum_points(jet: Jet, p: int) -> Jet:
    """Sum of the Gauss points' blocks of ``p`` rows."""
    k = jet.grad.shape[1]
    return Jet(jet.value.reshape(-1, p).sum(axis=0), jet.grad.reshape(-1, p, k).sum(axis=0),
               jet.hess.reshape(-1, p, k, k).sum(axis=0))


def surface_coefficients(surface, coords: np.ndarray) -> np.ndarray:
    """:func:`frame_coefficients` of the segments of a 2D surface, shape (n_seg, 4).

    Parameters
    ----------
    surface : ContactSurface
        ``facets`` (2, n_seg), body-local nodes.
    coords : ndarray, shape (2, n_nodes)
        The body's reference coordinates (they decide corners and tangents).
    """
    chain = master_chain(surface.facets, coords)
    a, b = surface.facets
    smooth_a, smooth_b = chain.before >= 0, chain.after >= 0
    X = coords.T
    p = np.where(smooth_a[:, None], X[np.maximum(chain.before, 0)], 2.0 * X[a] - X[b])
    q = np.where(smooth_b[:, None], X[np.maximum(chain.after, 0)], 2.0 * X[b] - X[a])
    return frame_coefficients(X[a], X[b], p, q, smooth_a, smooth_b)


def curved_mortar(pair, system, xs, xs0, x, x0, tangent0=None) -> tuple:
    """Mortar kinematics of the slave nodes of a 2D pair on the smoothed curves of both sides.

    Parameters
    ----------
    pair : ContactPair
        Slave and master 2D body surfaces.
    system : BulkSystem
    xs, xs0 : ndarray, shape (m, 2)
        Current and start-of-step slave node coordinates.
    x, x0 : ndarray, shape (2, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    tangent0 : ndarray, shape (m, 1, 2), optional
        Slip directions (start-of-step tangents); current ones if omitted.

    Returns
    -------
    local : LocalKinematics
        Rows ``gap_j = g~_j / A_j``, ``slip_j = Delta s~_j / A_j``.
    dofs : ndarray of int, shape (m, k)
        Global DOFs of the local variables (``-1`` unused).
    segment : ndarray of int, shape (m,)
        The node-to-segment closest master segment (reported as the node's facet).
    """
    slave, master = pair.slave, pair.master
    m = slave.nodes.size
    i1, i2 = np.searchsorted(slave.nodes, slave.facets)
    ga = system.global_nodes(master.body, master.facets[0])
    gb = system.global_nodes(master.body, master.facets[1])
    nodes, ids = np.unique(np.column_stack([ga, gb]), return_inverse=True)
    ia, ib = ids.reshape(-1, 2).T
    X, X0 = x[:, nodes].T, x0[:, nodes].T
    proj = closest_segments(xs, X[ia], X[ib])
    f = proj.segment
    nts = node_to_segment(xs, X[ia][f], X[ib][f], xs0, X0[ia][f], X0[ib][f], tangent0)
    if tangent0 is None:
        tangent0 = nts.tangent
    coef_s = surface_coefficients(slave, system.bodies[slave.body].node_coords)
    coef_m = surface_coefficients(master, system.bodies[master.body].node_coords)
    size = (np.linalg.norm(xs[i2] - xs[i1], axis=1).max(initial=0.0)
            + np.linalg.norm(X[ib] - X[ia], axis=1).max(initial=0.0))
    far, seg, reach = searched_facets(proj.distance, np.column_stack([i1, i2]), size)
    e, fm = facing_candidates(xs[i1[seg]], xs[i2[seg]], X[ia], X[ib], reach)
    e = seg[e]
    coords = np.hstack([xs[i1[e]], xs[i2[e]], X[ia[fm]], X[ib[fm]]])
    coef = np.hstack([coef_s[e], coef_m[fm]])
    lo, hi, _, _ = overlap_interval(*segment_curves([coords[:, i] for i in range(8)], coef))
    keep = hi > lo
    e, fm = e[keep], fm[keep]
    # one contribution per (node, slave segment, master segment)
    e2, f2 = np.concatenate([e, e]), np.concatenate([fm, fm])
    first = np.repeat([True, False], e.size)
    row = np.where(first, i1[e2], i2[e2])
    coords = np.hstack([xs[i1[e2]], xs[i2[e2]], X[ia[f2]], X[ib[f2]]])
    coords0 = np.hstack([xs0[i1[e2]], xs0[i2[e2]], X0[ia[f2]], X0[ib[f2]]])
    coef = np.hstack([coef_s[e2], coef_m[f2]])
    X_ref = system.bodies[slave.body].node_coords[:, slave.facets]             # (2, 2, n_e)
    length = np.linalg.norm(X_ref[:, 1] - X_ref[:, 0], axis=0)
    radius = X_ref[0].T[e2] if slave.axisymmetric else None                    # (p, 2)
    rows = MortarRows(m, row, np.column_stack([i1[e2], i2[e2], m + ia[f2], m + ib[f2]]), 2, 1)
    for start in range(0, row.size, CHUNK):
        c = slice(start, start + CHUNK)
        gap, slip, weight, normal = curved_pair_integrals(
            coords[c], coords0[c], coef[c], tangent0[row[c], 0, :], first[c], length[e2[c]],
            None if radius is None else radius[c])
        rows.add(c, gap, [slip], weight, normal)
    rows.weight[far] = 0.0                          # open: the node-to-segment distance
    size = segment_lengths(np.array([i1, i2]), length, m) if slave.axisymmetric else None
    local, slots = rows.finish(slave.area, proj.distance, nts.normal, nts.tangent,
                               lambda nrm: np.column_stack([-nrm[:, 1], nrm[:, 0]])[:, None, :], size)
    return local, slot_dofs(system, slave, nodes, slots), f
