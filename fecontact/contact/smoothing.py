r"""Smoothed curves of 2D contact surfaces: the masters of node-to-segment contact.

A curved boundary meshed by straight segments is a polygon: between two
master nodes the chord lies inside a convex boundary by the sag
``h^2 / (8 R)``.  A slave node that does not sit over a master node measures
its gap to the chord, so the sag enters the gap, and with it the pressure,
as a spurious interference or clearance (on a fit with interference
``delta`` it is a sizeable part of ``delta``).  Here each master segment
``a -> b`` is replaced by the cubic Hermite curve

.. math::

    x(\xi) = x_a + h_{01}(\xi)(x_b - x_a) + \ell\,[h_{10}(\xi)\,T_a + h_{11}(\xi)\,T_b],
    \qquad \xi \in [0, 1],

    h_{01} = 3\xi^2 - 2\xi^3,\quad h_{10} = \xi^3 - 2\xi^2 + \xi,\quad h_{11} = \xi^3 - \xi^2,

with ``ell = |x_b - x_a|`` and ``T_a``, ``T_b`` the unit nodal tangents.
At a *smooth* node ``v`` between the segments ``p -> v`` and ``v -> q``

.. math::

    T_v = \frac{w}{|w|},\qquad w = \frac{x_v - x_p}{|x_v - x_p|^2} + \frac{x_q - x_v}{|x_q - x_v|^2},

the tangent (and, turned by 90 degrees, the normal) of the circle through
the three nodes: the average of the two segment normals, each weighted by
the reciprocal of its segment's length (:func:`nodal_tangent`).  At a free
end of the master chain, and at a corner sharper than :data:`SHARP_ANGLE`
(a real corner of the body, not a faceted curve), the end tangent of each
segment is its own chord direction.  On a straight chain every tangent is
the chord direction and the curve is the segment itself; adjacent curves
share their nodal tangent, so the master is a ``G^1`` curve and the gap of
a slave node sliding across a master node is continuously differentiable.

The slave node is projected on its segment's curve (closest point, Newton in
``xi``, :func:`project_on_curves`); the gap is the distance along the
curve's normal ``n = (x'_y, -x'_x) / |x'|`` (towards the slave), and the
slip increment is measured, as on straight segments, against the master
material point ``x(xi)`` at the start of the step:
``Delta s = tau^0 . [(x_s - x_s^0) - (x(xi) - x^0(xi))]``.  The gap and slip
depend on the slave node, the segment's two nodes and, through the nodal
tangents, the node before ``a`` and the node after ``b``: ``k = 10`` local
variables, ordered ``(x_s, x_a, x_b, x_p, x_q)``.  Their exact gradients and
Hessians come from :class:`fecontact.contact.jet.Jet`, with ``xi`` as a jet
from two Newton steps started at the converged projection (each Newton step
doubles the order to which ``xi`` is exact in a perturbation of the
coordinates, so two give its value, gradient and Hessian).

2D mortar pairs smooth both surfaces with the same nodal tangents, taken in
the reference configuration and carried by each segment's chord
(:mod:`fecontact.contact.mortar2d_curved`); :func:`smoothed_pair` says
whether a pair is smoothed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .jet import Jet, dot
from .kinematics2d import LocalKinematics, node_to_segment
from .search import Projection

#: Smoothing options of a contact pair: ``"auto"`` smooths curved masters
#: (:func:`smoothing_active`), ``"hermite"`` always, ``"none"`` never
SMOOTHINGS = ("auto", "hermite", "none")

#: Angle (radians) between adjacent segments above which their common node is
#: a corner of the body: each segment keeps its own direction there
SHARP_ANGLE = np.radians(30.0)

#: Angle (radians) between adjacent segments below which ``"auto"`` treats
#: the master as straight (no smoothing)
STRAIGHT_ANGLE = 1.0e-6

#: Newton iterations of the closest-point projection on the curves
_MAX_ITERATIONS = 30


@dataclass(frozen=True)
class MasterChain:
    """Neighbours and smooth nodes of the segments of a master surface (2D).

    Attributes
    ----------
    before : ndarray of int, shape (n_seg,)
        Node ``p`` before the segment's start ``a`` (the start of the segment
        ending at ``a``), ``-1`` where ``a`` is not smooth.
    after : ndarray of int, shape (n_seg,)
        Node ``q`` after the segment's end ``b``, ``-1`` where ``b`` is not smooth.
    angle : ndarray, shape (n_seg,)
        Angle between the segment and the one before it at ``a`` (radians),
        ``0`` at a free end.
    """

    before: np.ndarray
    after: np.ndarray
    angle: np.ndarray

    @property
    def curved(self) -> bool:
        """Whether some smooth node joins two segments at more than :data:`STRAIGHT_ANGLE`."""
        return bool(np.any((self.before >= 0) & (self.angle > STRAIGHT_ANGLE)))


def master_chain(segments: np.ndarray, coords: np.ndarray) -> MasterChain:
    """The chain of master segments: each segment's neighbours and its smooth ends.

    A segment end is smooth when exactly one other segment continues the
    chain there, in the same direction (its start is this end), at an angle
    of at most :data:`SHARP_ANGLE` in the configuration ``coords``.

    Parameters
    ----------
    segments : ndarray of int, shape (2, n_seg)
        Start ``a`` and end ``b`` of each segment (nodes of ``coords``).
    coords : ndarray, shape (2, n_nodes)
        Coordinates deciding the corners (the reference configuration, so
        that the choice does not change during a solve).

    Returns
    -------
    MasterChain
    """
    a, b = segments
    n_nodes = int(segments.max()) + 1
    n_seg = a.size
    starts = np.bincount(a, minlength=n_nodes)
    ends = np.bincount(b, minlength=n_nodes)
    ending_at = np.full(n_nodes, -1)
    ending_at[b] = np.arange(n_seg)
    starting_at = np.full(n_nodes, -1)
    starting_at[a] = np.arange(n_seg)
    prev = np.where((ends[a] == 1) & (starts[a] == 1), ending_at[a], -1)
    t = (coords[:, b] - coords[:, a]).T                                 # (n_seg, 2)
    t = t / np.linalg.norm(t, axis=1)[:, None]
    cos = np.einsum("ij,ij->i", t, t[np.maximum(prev, 0)])
    angle = np.where(prev >= 0, np.arccos(np.clip(cos, -1.0, 1.0)), 0.0)
    smooth_a = (prev >= 0) & (angle <= SHARP_ANGLE)
    before = np.where(smooth_a, a[np.maximum(prev, 0)], -1)
    # the end b of a segment is smooth where the start of the next one is
    nxt = np.where((ends[b] == 1) & (starts[b] == 1), starting_at[b], -1)
    after = np.where((nxt >= 0) & smooth_a[np.maximum(nxt, 0)], b[np.maximum(nxt, 0)], -1)
    return MasterChain(before, after, angle)


def smoothing_active(option: str, chain: MasterChain) -> bool:
    """Whether a pair with smoothing ``option`` (:data:`SMOOTHINGS`) uses the smoothed curves."""
    if option not in SMOOTHINGS:
        raise ValueError(f"smoothing = {option!r}; choose one of {', '.join(SMOOTHINGS)}")
    return option == "hermite" or (option == "auto" and chain.curved)


def smoothed_pair(pair, system) -> bool:
    """Whether a 2D contact pair measures its gaps on smoothed curves.

    A node-to-segment pair smooths its master (:func:`smoothing_active` of
    the master chain); a mortar pair smooths both surfaces
    (:mod:`fecontact.contact.mortar2d_curved`) where the option is
    ``"hermite"``, or ``"auto"`` and the slave or the master is curved.

    Parameters
    ----------
    pair : ContactPair
    system : BulkSystem
    """
    master = pair.master
    if getattr(master, "facets", None) is None or master.facets.shape[0] != 2:
        return False
    chain = master_chain(master.facets, system.bodies[master.body].node_coords)
    if pair.formulation != "mortar" or smoothing_active(pair.smoothing, chain):
        return smoothing_active(pair.smoothing, chain)
    slave = pair.slave
    return pair.smoothing == "auto" and master_chain(slave.facets, system.bodies[slave.body].node_coords).curved


def nodal_tangent(x_p, x_v, x_q):
    """Unit tangent at ``x_v`` of the circle through ``x_p, x_v, x_q`` (module docstring).

    Arguments are pairs of components (numbers, arrays or jets); so is the result.
    """
    t1 = [x_v[i] - x_p[i] for i in range(2)]
    t2 = [x_q[i] - x_v[i] for i in range(2)]
    l1, l2 = dot(t1, t1), dot(t2, t2)
    w = [t1[i] / l1 + t2[i] / l2 for i in range(2)]
    size = _sqrt(dot(w, w))
    return [w[0] / size, w[1] / size]


def _sqrt(v):
    return v.sqrt() if isinstance(v, Jet) else np.sqrt(v)


def select_rows(mask: np.ndarray, yes, no):
    """Rows of ``yes`` where ``mask``, else of ``no`` (jets or arrays, shape (m, ...))."""
    if isinstance(yes, Jet) or isinstance(no, Jet):
        like = yes if isinstance(yes, Jet) else no
        yes = yes if isinstance(yes, Jet) else Jet.constant(yes, like)
        no = no if isinstance(no, Jet) else Jet.constant(no, like)
        return Jet(np.where(mask, yes.value, no.value), np.where(mask[:, None], yes.grad, no.grad),
                   np.where(mask[:, None, None], yes.hess, no.hess))
    return np.where(mask, yes, no)


def end_tangents(a, b, p, q, smooth_a, smooth_b):
    """Unit tangents ``T_a, T_b`` of the curves over segments ``a -> b`` (component pairs).

    ``p`` (``q``) is the node before ``a`` (after ``b``); where ``smooth_a``
    (``smooth_b``) is false the tangent is the chord direction and ``p``
    (``q``) does not enter.
    """
    chord = [b[i] - a[i] for i in range(2)]
    length = _sqrt(dot(chord, chord))
    d = [chord[i] / length for i in range(2)]
    ta = nodal_tangent(p, a, b)
    tb = nodal_tangent(a, b, q)
    # an end that is not smooth mirrors the other end's tangent about the chord (the arc of
    # the circle through the segment tangent to the other end), or is the chord direction
    mirror_a = [2.0 * dot(d, tb) * d[i] - tb[i] for i in range(2)]
    mirror_b = [2.0 * dot(d, ta) * d[i] - ta[i] for i in range(2)]
    end_a = [select_rows(smooth_b, mirror_a[i], d[i]) for i in range(2)]
    end_b = [select_rows(smooth_a, mirror_b[i], d[i]) for i in range(2)]
    return ([select_rows(smooth_a, ta[i], end_a[i]) for i in range(2)],
            [select_rows(smooth_b, tb[i], end_b[i]) for i in range(2)], length)


def curve_point(xi, a, b, ta, tb, length, order: int = 0):
    """The ``order``-th derivative in ``xi`` of the Hermite curve at ``xi`` (component pair)."""
    xi2 = xi * xi
    if order == 0:
        h01, h10, h11 = 3.0 * xi2 - 2.0 * xi2 * xi, xi2 * xi - 2.0 * xi2 + xi, xi2 * xi - xi2
    elif order == 1:
        h01, h10, h11 = 6.0 * xi - 6.0 * xi2, 3.0 * xi2 - 4.0 * xi + 1.0, 3.0 * xi2 - 2.0 * xi
    else:
        h01, h10, h11 = 6.0 - 12.0 * xi, 6.0 * xi - 4.0, 6.0 * xi - 2.0
    out = [h01 * (b[i] - a[i]) + length * (h10 * ta[i] + h11 * tb[i]) for i in range(2)]
    return [a[i] + out[i] for i in range(2)] if order == 0 else out


def projection_step(xi, s, a, b, ta, tb, length):
    """Residual ``f = (x_s - x(xi)) . x'(xi)`` of the closest-point projection and ``df/dxi``."""
    x = curve_point(xi, a, b, ta, tb, length)
    d1 = curve_point(xi, a, b, ta, tb, length, 1)
    d2 = curve_point(xi, a, b, ta, tb, length, 2)
    r = [s[i] - x[i] for i in range(2)]
    f = dot(r, d1)
    df = dot(r, d2) - dot(d1, d1)
    return f, df


def project_on_curves(x_s, a, b, ta, tb, length, xi0) -> np.ndarray:
    """Closest-point parameters of the nodes ``x_s`` on their curves (arrays), shape (m,).

    Newton from ``xi0`` (the projection on the chord), each step limited to
    a quarter of the segment.
    """
    s = [x_s[:, 0], x_s[:, 1]]
    xi = np.asarray(xi0, float).copy()
    for _ in range(_MAX_ITERATIONS):
        f, df = projection_step(xi, s, a, b, ta, tb, length)
        # beyond the centre of curvature f is not monotone: a gradient step then
        step = np.clip(-f / np.where(df < 0.0, df, -length**2), -0.25, 0.25)
        xi = xi + step
        if np.all(np.abs(step) < 1e-15):
            break
    return xi


def node_to_curve(x_s, x_a, x_b, x_p, x_q, x_s0, x_a0, x_b0, x_p0, x_q0, smooth_a, smooth_b, xi0,
                  tangent0=None) -> LocalKinematics:
    """Kinematics of slave nodes against the smoothed curves of their master segments.

    Parameters
    ----------
    x_s, x_a, x_b, x_p, x_q : ndarray, shape (m, 2)
        Current coordinates of the slave node, the segment ends, the node
        before ``a`` and the node after ``b`` (any finite point, not
        coinciding with ``a`` or ``b``, where the end is not smooth).
    x_s0, x_a0, x_b0, x_p0, x_q0 : ndarray, shape (m, 2)
        The same at the start of the step.
    smooth_a, smooth_b : ndarray of bool, shape (m,)
        Whether the curve's tangent at ``a`` (``b``) is the nodal tangent.
    xi0 : ndarray, shape (m,)
        Start of the projection (the parameter on the chord).
    tangent0 : ndarray, shape (m, 1, 2), optional
        Slip direction (start-of-step tangent); the current curve tangent if omitted.

    Returns
    -------
    LocalKinematics
        Local variables ``(x_s, y_s, x_a, y_a, x_b, y_b, x_p, y_p, x_q, y_q)``, ``k = 10``.
    """
    cols = lambda x: [x[:, 0], x[:, 1]]                                     # noqa: E731
    geometry = end_tangents(cols(x_a), cols(x_b), cols(x_p), cols(x_q), smooth_a, smooth_b)
    xi_value = project_on_curves(x_s, cols(x_a), cols(x_b), *geometry, xi0)
    v = Jet.variables(np.hstack([x_s, x_a, x_b, x_p, x_q]))
    s, a, b, p, q = v[0:2], v[2:4], v[4:6], v[6:8], v[8:10]
    ta, tb, length = end_tangents(a, b, p, q, smooth_a, smooth_b)
    xi = Jet.constant(xi_value, s[0])
    for _ in range(2):
        f, df = projection_step(xi, s, a, b, ta, tb, length)
        xi = xi - f / df
    x = curve_point(xi, a, b, ta, tb, length)
    d1 = curve_point(xi, a, b, ta, tb, length, 1)
    speed = dot(d1, d1).sqrt()
    tau = [d1[0] / speed, d1[1] / speed]
    n = [tau[1], -1.0 * tau[0]]
    gap = dot(n, [s[i] - x[i] for i in range(2)])
    ta0, tb0, length0 = end_tangents(cols(x_a0), cols(x_b0), cols(x_p0), cols(x_q0), smooth_a, smooth_b)
    x0 = curve_point(xi, cols(x_a0), cols(x_b0), ta0, tb0, length0)
    rel = [(s[i] - x_s0[:, i]) - (x[i] - x0[i]) for i in range(2)]
    slip = dot(tau if tangent0 is None else [tangent0[:, 0, 0], tangent0[:, 0, 1]], rel)
    return LocalKinematics(
        gap=gap.value, slip=slip.value[:, None],
        normal=np.column_stack([c.value for c in n]),
        tangent=np.column_stack([c.value for c in tau])[:, None, :],
        d_gap=gap.grad, d_slip=slip.grad[:, None, :], h_gap=gap.hess, h_slip=slip.hess[:, None, :, :])


def curve_kinematics(chain: MasterChain, proj: Projection, ga: np.ndarray, gb: np.ndarray,
                     offset: int, xs, xs0, x, x0, tangent0=None):
    """:func:`node_to_curve` of slave nodes on the segments the search found for them.

    Parameters
    ----------
    chain : MasterChain
        Of the master segments (body-local nodes).
    proj : Projection
        Segment and chord parameter of each slave node.
    ga, gb : ndarray of int, shape (n_seg,)
        Global nodes of the segments' starts and ends.
    offset : int
        Global number of the master body's first node.
    xs, xs0 : ndarray, shape (m, 2)
        Current and start-of-step slave coordinates.
    x, x0 : ndarray, shape (2, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    tangent0 : ndarray, shape (m, 1, 2), optional

    Returns
    -------
    local : LocalKinematics
        ``k = 10``.
    nodes : ndarray of int, shape (m, 4)
        Global nodes ``a, b, p, q`` of the local variables after the slave
        node's; ``-1`` for ``p`` (``q``) where the end is not smooth.
    """
    seg = proj.segment
    a, b = ga[seg], gb[seg]
    before, after = chain.before[seg], chain.after[seg]
    smooth_a, smooth_b = before >= 0, after >= 0
    p = np.where(smooth_a, offset + before, -1)
    q = np.where(smooth_b, offset + after, -1)

    def coords(y, node, mirror):
        # where the end is not smooth, a stand-in point (the mirror image of the segment's
        # other end) keeps the unused nodal tangent finite
        return np.where((node >= 0)[:, None], y[:, np.maximum(node, 0)].T,
                        2.0 * y[:, mirror].T - y[:, a + b - mirror].T)

    local = node_to_curve(xs, x[:, a].T, x[:, b].T, coords(x, p, a), coords(x, q, b), xs0,
                          x0[:, a].T, x0[:, b].T, coords(x0, p, a), coords(x0, q, b),
                          smooth_a, smooth_b, proj.xi, tangent0)
    return local, np.column_stack([a, b, p, q])


def segment_kinematics(smoothing: str, master, system, proj: Projection, xs, xs0, x, x0,
                       tangent0=None):
    """Node-to-segment kinematics on the master's straight segments or smoothed curves.

    Parameters
    ----------
    smoothing : str
        The pair's option (:data:`SMOOTHINGS`, :func:`smoothing_active`).
    master : ContactSurface
        The master surface (2D).
    system : BulkSystem
    proj : Projection
        Segment and chord parameter of each slave node.
    xs, xs0 : ndarray, shape (m, 2)
        Current and start-of-step slave coordinates.
    x, x0 : ndarray, shape (2, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    tangent0 : ndarray, shape (m, 1, 2), optional

    Returns
    -------
    local : LocalKinematics
    nodes : ndarray of int, shape (m, 2) or (m, 4)
        Global master nodes of the local variables after the slave node's:
        ``a, b`` (straight segments, ``k = 6``) or ``a, b, p, q``
        (:func:`curve_kinematics`, ``k = 10``, ``-1`` where unused).
    """
    ga = system.global_nodes(master.body, master.facets[0])
    gb = system.global_nodes(master.body, master.facets[1])
    chain = master_chain(master.facets, system.bodies[master.body].node_coords)
    if smoothing_active(smoothing, chain):
        return curve_kinematics(chain, proj, ga, gb, system.global_nodes(master.body, 0), xs, xs0,
                                x, x0, tangent0)
    a, b = ga[proj.segment], gb[proj.segment]
    local = node_to_segment(xs, x[:, a].T, x[:, b].T, xs0, x0[:, a].T, x0[:, b].T, tangent0)
    return local, np.column_stack([a, b])
