r"""Segment-to-segment (mortar) contact kinematics in 2D: weighted gap and slip.

Node-to-segment contact enforces the gap at slave nodes only and sends each
slave force to the master through the master shape functions at one point;
that transfer is not consistent, so a uniform pressure across non-matching
meshes comes out non-uniform (the contact patch test fails).  The mortar
form measures the gap in an integral sense instead.  With ``N_j`` the
piecewise-linear slave shape function of node ``j``, ``Phi_j`` its dual
function (``Phi_j = 3 N_j - 1`` on each slave segment, so that
``int Phi_j N_k = delta_jk int N_k``) and the slave surface projected along
the master normals,

.. math::

    \tilde g_j = \int_{\Gamma_s} \Phi_j\, g \, d\Gamma, \qquad
    \Delta\tilde s_j = \int_{\Gamma_s} \Phi_j\, \tau^0_j\cdot
        \big[(x_s - x_s^0) - (x_m - x_m^0)\circ\pi\big] \, d\Gamma,

where ``g = n_f . (x_s - x_a)`` on the part of slave segment ``e`` that
projects inside master segment ``f = (a, b)`` (``n_f`` its normal, towards the
slave), and ``pi`` maps a slave point to the master point it projects on.
Each integral is a sum over the overlapping (slave segment, master segment)
pairs.  On one pair, with the slave parameter ``eta`` in ``[0, 1]``, the
master parameter ``xi(eta)`` is affine, the overlap is the interval where
``0 <= xi <= 1``, and both integrands are quadratic in ``eta``, so two Gauss
points integrate them exactly (segment-based integration).

The kinematic rows of node ``j`` are ``gap_j = g~_j / A_j`` and
``slip_j = Delta s~_j / A_j`` (``A_j = int N_j`` the lumped nodal length), so
that the contact virtual work ``A_j lam_j d(gap_j) = lam_j d(g~_j)`` is that
of the traction field ``sum_j lam_j Phi_j`` and the multipliers stay
tractions.  The constraint is the weighted-gap condition ``g~_j >= 0,
lam_j >= 0, lam_j g~_j = 0`` with dual multiplier functions (Wohlmuth): the
force on slave node ``k`` is ``sum_j lam_j int Phi_j N_k = A_k lam_k``, the
multiplier times the lumped length as in node-to-segment, so the nodal
pressure is the multiplier, with no surface mass matrix to invert.  A
uniform pressure is transmitted exactly across any non-matching flat
interface: the master nodal forces are ``p int N_m`` by the partition of
unity of the ``Phi_j`` (``sum_j Phi_j = 1``) and exact integration.

Derivatives are exact (:class:`fecontact.contact.jet.Jet`) for a fixed set of
overlapping pairs.  A slave node whose support overlaps no master segment
(or a share below ``THIN`` of it, e.g. a slave segment that only touches
the free end of the master) is open (:meth:`MortarRows.finish`): a slave
surface longer than the master carries no load beyond the master's ends.

*Axisymmetric bodies* (``x[0] = r``, :attr:`fecontact.contact.surface.ContactSurface.axisymmetric`).
Every integral carries the circumference ``2 pi r`` of the reference
slave surface, ``r`` linear along each slave segment:

.. math::

    \tilde g_j = \int_{\Gamma_s} \Phi_j\, g\; 2\pi r \, d\Gamma,

and likewise the slips and ``A_j = int 2 pi r N_j``.  The dual functions
are biorthogonal with respect to that measure on each slave segment
(:func:`revolved_dual`): ``Phi_j = sum_k A_jk N_k`` with ``A = D M^{-1}``,
``M_ik = int N_i N_k r ds``, ``D = diag(int N_i r ds)``, so that ``int Phi_j
N_k 2 pi r = delta_jk A_k``: the force on slave node ``k`` is again ``A_k
lam_k`` (a total over the circumference) and ``lam`` the pressure.  They
still sum to one (``1^T A = 1^T``), so a uniform pressure is transmitted
exactly.  The integrand is then cubic in ``eta`` and the two Gauss points
still integrate it exactly.  ``r`` is the reference radius (the measure of
the small-strain bulk and of the total Lagrangian one), so it adds no
derivatives.

Each row's gradient and Hessian are held over the unknowns the row depends
on (the nodes of its slave segments and of the master segments they
overlap, :class:`MortarRows`), and the contributions are evaluated in
batches, so memory and time grow with the number of overlapping pairs, not
with the size of the master surface.
"""

from __future__ import annotations

import numpy as np

from .jet import Jet, dot
from .kinematics2d import LocalKinematics, node_to_segment
from .search import closest_segments, facing_candidates, searched_facets

GAUSS = (0.5 - 0.5 / np.sqrt(3.0), 0.5 + 0.5 / np.sqrt(3.0))

#: Share of its support below which a slave node counts as not covered by the
#: master (:meth:`MortarRows.finish`).
THIN = 1e-3

#: Contributions whose jets are evaluated at once (bounds the memory of the
#: temporaries: a batch of jets of 8 variables)
CHUNK_2D = 4096


def _where(cond: np.ndarray, a: Jet, b: Jet) -> Jet:
    """Row-wise choice between two jets."""
    return Jet(np.where(cond, a.value, b.value), np.where(cond[:, None], a.grad, b.grad),
               np.where(cond[:, None, None], a.hess, b.hess))


def overlapping_pairs(x_s1, x_s2, x_a, x_b, reach=None) -> tuple[np.ndarray, np.ndarray]:
    """Facing (slave segment, master segment) pairs whose projections overlap.

    The candidates of :func:`fecontact.contact.search.facing_candidates` of which some of the slave
    segment projects inside the master one.

    Parameters
    ----------
    x_s1, x_s2 : ndarray, shape (n_e, 2)
        Slave segment ends (slave body on the left of ``s1 -> s2``).
    x_a, x_b : ndarray, shape (n_f, 2)
        Master segment ends.
    reach : ndarray, shape (n_e,), optional
        Distance of each slave segment from the master surface.

    Returns
    -------
    slave, master : ndarray of int, shape (p,)
    """
    slave, master = facing_candidates(x_s1, x_s2, x_a, x_b, reach)
    lo, hi = _overlap(x_s1[slave], x_s2[slave], x_a[master], x_b[master] - x_a[master])
    keep = hi > lo
    return slave[keep], master[keep]


def _overlap(s1, s2, a, t):
    """Slave-parameter interval projecting inside the master segment (float arrays)."""
    ell2 = np.einsum("pi,pi->p", t, t)
    xi0 = np.einsum("pi,pi->p", s1 - a, t) / ell2
    xi1 = np.einsum("pi,pi->p", s2 - a, t) / ell2
    dxi = np.where(xi1 != xi0, xi1 - xi0, np.finfo(float).tiny)
    ea, eb = -xi0 / dxi, (1.0 - xi0) / dxi
    return np.maximum(0.0, np.minimum(ea, eb)), np.minimum(1.0, np.maximum(ea, eb))


def revolved_dual(radius: np.ndarray) -> np.ndarray:
    r"""Coefficients of the dual functions biorthogonal under ``r ds`` on segments, shape (p, 2, 2).

    ``Phi_j = sum_k A_jk N_k`` with ``A = D M^{-1}``: on a segment of length
    ``L`` with end radii ``r_1``, ``r_2`` (``r`` linear),

    .. math::

        M = \frac{L}{12}\begin{pmatrix} 3 r_1 + r_2 & r_1 + r_2 \\ r_1 + r_2 & r_1 + 3 r_2 \end{pmatrix},
        \qquad D = \frac{L}{6}\,\mathrm{diag}(2 r_1 + r_2,\ r_1 + 2 r_2)

    (``L`` cancels).  Equal radii give the plane duals ``[[2, -1], [-1, 2]]``
    (``Phi_j = 3 N_j - 1``).  A segment on the axis (``r_1 = r_2 = 0``, a
    surface of zero area) keeps the plane duals.

    Parameters
    ----------
    radius : ndarray, shape (p, 2)
        Reference radii ``r_1``, ``r_2`` of the segment ends.
    """
    r1, r2 = radius[:, 0], radius[:, 1]
    d1, d2 = 2.0 * r1 + r2, r1 + 2.0 * r2                    # 6/L diag(D)
    m11, m12, m22 = 3.0 * r1 + r2, r1 + r2, r1 + 3.0 * r2      # 12/L M
    on_axis = ~(r1 + r2 > 0.0)
    det = np.where(on_axis, 1.0, m11 * m22 - m12 * m12)        # 2 (r1^2 + 4 r1 r2 + r2^2)
    # A = D M^{-1} = 2 diag(d) adj(M) / det
    A = 2.0 * np.stack([np.stack([d1 * m22, -d1 * m12], -1),
                        np.stack([-d2 * m12, d2 * m11], -1)], -2) / det[:, None, None]
    return np.where(on_axis[:, None, None], np.array([[2.0, -1.0], [-1.0, 2.0]]), A)


def dual_and_measure(shape, eta, dx, radius, own) -> tuple:
    """The slave node's dual function times the measure, and the measure, at points of a segment.

    Plane segments: ``(3 N - 1) dx`` (``int dual_j N_k = delta_jk int N_k``)
    and ``dx``.  Revolved segments (``radius`` given): the measure is
    ``2 pi r dx`` with ``r`` interpolated between the segment's ends, and
    the dual ``own[0] (1 - eta) + own[1] eta`` (the row of ``A = D M^-1`` of
    :func:`revolved_dual`).

    Parameters
    ----------
    shape : Jet or ndarray, shape (m,)
        The node's linear shape function at the points.
    eta : Jet or ndarray, shape (m,)
        Position along the slave segment, 0 at its first end.
    dx : Jet or ndarray, shape (m,)
        Plane measure of the points (quadrature weight times length).
    radius : ndarray, shape (m, 2), or None
        Radii of the segment's ends (axisymmetric pairs).
    own : ndarray, shape (m, 2), or None
        The node's revolved dual coefficients.

    Returns
    -------
    (w, dx)
    """
    if radius is None:
        return (3.0 * shape - 1.0) * dx, dx
    dx = dx * ((1.0 - eta) * (2.0 * np.pi * radius[:, 0]) + eta * (2.0 * np.pi * radius[:, 1]))
    return ((1.0 - eta) * own[:, 0] + eta * own[:, 1]) * dx, dx


def pair_integrals(x_s1, x_s2, x_a, x_b, x_s10, x_s20, x_a0, x_b0, tangent0, first: np.ndarray,
                   length: np.ndarray, radius: np.ndarray | None = None):
    """Weighted gap and slip contributions of overlapping segment pairs.

    Parameters
    ----------
    x_s1, x_s2, x_a, x_b : ndarray, shape (p, 2)
        Current slave segment ends and master segment ends.
    x_s10, x_s20, x_a0, x_b0 : ndarray, shape (p, 2)
        The same at the start of the step.
    tangent0 : ndarray, shape (p, 2)
        Slip direction of the slave node the contribution belongs to.
    first : ndarray of bool, shape (p,)
        Whether that node is ``s1`` (weight ``N = 1 - eta``) or ``s2`` (``eta``).
    length : ndarray, shape (p,)
        Reference length of the slave segment: the integrals are over the
        reference slave surface, as the lumped areas and the applied loads
        of the small-strain bulk.
    radius : ndarray, shape (p, 2), optional
        Axisymmetric bodies: reference radii of ``s1`` and ``s2``; the
        integrals then carry ``2 pi r`` and the duals are :func:`revolved_dual`.

    Returns
    -------
    gap, slip : Jet
        ``int Phi g`` and ``int Phi tau0 . (relative displacement)`` over the
        overlap, with derivatives in the local variables
        ``(x_s1, y_s1, x_s2, y_s2, x_a, y_a, x_b, y_b)``.
    weight : ndarray, shape (p,)
        ``int N`` over the overlap (to weight the contributions' normals).
    normal : ndarray, shape (p, 2)
    """
    v = Jet.variables(np.hstack([x_s1, x_s2, x_a, x_b]))
    s1, s2, a, b = v[0:2], v[2:4], v[4:6], v[6:8]
    t = [b[0] - a[0], b[1] - a[1]]
    ell2 = dot(t, t)
    ell = ell2.sqrt()
    n = [t[1] / ell, -1.0 * t[0] / ell]
    e = [s2[0] - s1[0], s2[1] - s1[1]]
    xi0 = dot([s1[0] - a[0], s1[1] - a[1]], t) / ell2
    dxi = dot(e, t) / ell2
    ea, eb = (-1.0 * xi0) / dxi, (1.0 - xi0) / dxi
    swap = ea.value > eb.value
    lo, hi = _where(swap, eb, ea), _where(swap, ea, eb)
    zero, one = Jet.constant(0.0, ea), Jet.constant(1.0, ea)
    lo = _where(lo.value > 0.0, lo, zero)
    hi = _where(hi.value < 1.0, hi, one)
    span = hi - lo
    gap = slip = None
    weight = np.zeros(x_s1.shape[0])
    own = None                                                         # plane: the 3N - 1 duals
    if radius is not None:
        dual = revolved_dual(radius)                                   # (p, 2, 2)
        own = np.where(first[:, None], dual[:, 0], dual[:, 1])          # the node's row
    for g in GAUSS:
        eta = lo + span * g
        shape = _where(first, 1.0 - eta, eta)
        w, dx = dual_and_measure(shape, eta, span * length * 0.5, radius, own)
        xs = [s1[i] + eta * e[i] for i in range(2)]
        xi = xi0 + eta * dxi
        xs0 = [x_s10[:, i] + eta * (x_s20[:, i] - x_s10[:, i]) for i in range(2)]
        rel = [(xs[i] - xs0[i]) - (1.0 - xi) * (a[i] - x_a0[:, i]) - xi * (b[i] - x_b0[:, i])
               for i in range(2)]
        g_q = w * dot(n, [xs[0] - a[0], xs[1] - a[1]])
        s_q = w * dot([tangent0[:, 0], tangent0[:, 1]], rel)
        gap = g_q if gap is None else gap + g_q
        slip = s_q if slip is None else slip + s_q
        weight += (shape * dx).value
    normal = np.column_stack([c.value for c in n])
    return gap, slip, weight, normal


def weighted_kinematics(x_slave, x_slave0, slave_segments, x_master_a, x_master_b,
                        x_master_a0, x_master_b0, area, length, tangent0=None, master_nodes=None,
                        radius=None):
    """Mortar kinematics of every slave node of one surface pair.

    Parameters
    ----------
    x_slave, x_slave0 : ndarray, shape (m, 2)
        Current and start-of-step slave node coordinates (rows = slave nodes).
    slave_segments : ndarray of int, shape (2, n_e)
        Slave segments as row indices into ``x_slave`` (outward oriented).
    x_master_a, x_master_b, x_master_a0, x_master_b0 : ndarray, shape (n_f, 2)
        Current and start-of-step master segment ends.
    area : ndarray, shape (m,)
        Lumped nodal lengths ``A_j``.
    length : ndarray, shape (n_e,)
        Reference lengths of the slave segments.
    tangent0 : ndarray, shape (m, 1, 2), optional
        Slip directions (start-of-step tangents); current ones if omitted.
    master_nodes : ndarray of int, shape (n_f, 2), optional
        Master node (``0..``) at the start and the end of each segment, so
        that a node shared by two segments is one unknown of the rows; if
        omitted, the end ``a`` of segment ``f`` is node ``2 f`` and ``b`` is
        ``2 f + 1``.
    radius : ndarray, shape (m,), optional
        Axisymmetric bodies: reference radii of the slave nodes (module
        docstring); ``area`` then holds ``int 2 pi r N_j``, and the node
        sizes of uncovered rows are the plain lumped lengths.

    Returns
    -------
    local : LocalKinematics
        Rows ``gap_j = g~_j/A_j``, ``slip_j = Delta s~_j/A_j``; the local
        variables of each row are the coordinates of the nodes it depends
        on (:class:`MortarRows`).
    slots : ndarray of int, shape (m, P, 1)
        Slave row (``0..m-1``) or master node ``m + master_nodes[f, i]``
        behind each pair of local variables; ``-1`` where unused.
    segment : ndarray of int, shape (m,)
        The node-to-segment closest master segment (reported as the node's facet).
    """
    m = x_slave.shape[0]
    i1, i2 = slave_segments
    # the node-to-segment projection supplies normals, tangents and the
    # distance of nodes that no master segment covers
    proj = closest_segments(x_slave, x_master_a, x_master_b)
    f = proj.segment
    nts = node_to_segment(x_slave, x_master_a[f], x_master_b[f], x_slave0, x_master_a0[f],
                          x_master_b0[f], tangent0)
    if tangent0 is None:
        tangent0 = nts.tangent
    size = (np.linalg.norm(x_slave[i2] - x_slave[i1], axis=1).max(initial=0.0)
            + np.linalg.norm(x_master_b - x_master_a, axis=1).max(initial=0.0))
    far, seg, reach = searched_facets(proj.distance, np.column_stack([i1, i2]), size)
    e, fm = overlapping_pairs(x_slave[i1[seg]], x_slave[i2[seg]], x_master_a, x_master_b, reach)
    e = seg[e]
    # one contribution per (node, slave segment, master segment)
    e2 = np.concatenate([e, e])
    f2 = np.concatenate([fm, fm])
    first = np.repeat([True, False], e.size)
    row = np.where(first, i1[e2], i2[e2])
    ends = (np.column_stack([2 * np.arange(x_master_a.shape[0]), 2 * np.arange(x_master_a.shape[0]) + 1])
            if master_nodes is None else master_nodes)
    rows = MortarRows(m, row, np.column_stack([i1[e2], i2[e2], m + ends[f2]]), 2, 1)
    for start in range(0, row.size, CHUNK_2D):
        c = slice(start, start + CHUNK_2D)
        s1, s2, fc = i1[e2[c]], i2[e2[c]], f2[c]
        gap, slip, weight, normal = pair_integrals(
            x_slave[s1], x_slave[s2], x_master_a[fc], x_master_b[fc], x_slave0[s1], x_slave0[s2],
            x_master_a0[fc], x_master_b0[fc], tangent0[row[c], 0, :], first[c], length[e2[c]],
            None if radius is None else np.column_stack([radius[s1], radius[s2]]))
        rows.add(c, gap, [slip], weight, normal)
    rows.weight[far] = 0.0                          # open: the node-to-segment distance
    size = None if radius is None else segment_lengths(slave_segments, length, m)
    local, slots = rows.finish(area, proj.distance, nts.normal, nts.tangent,
                               lambda nrm: np.column_stack([-nrm[:, 1], nrm[:, 0]])[:, None, :], size)
    return local, slots, f


def segment_lengths(segments: np.ndarray, length: np.ndarray, m: int) -> np.ndarray:
    """Lumped nodal lengths ``int N_j ds`` (half of each adjacent segment), shape (m,).

    ``segments`` (2, n_e) are rows ``0..m-1``, ``length`` (n_e,) their lengths.
    """
    return np.bincount(segments.ravel(), weights=np.tile(0.5 * length, 2), minlength=m)


class MortarRows:
    """Sums of mortar contributions in the kinematic rows of the slave nodes.

    Contribution ``c`` belongs to row ``row[c]``; its ``k_c = n_p d`` local
    variables are the ``d`` coordinates of its ``n_p`` points ``points[c]``
    (identifiers of nodes: slave rows ``0..m-1``, master nodes from ``m``
    on; equal identifiers are the same unknowns).  The local variables of
    row ``j`` are the coordinates of the distinct points of its
    contributions (the row's own index set: the nodes of its slave facets
    and of the master facets they overlap), so a row's gradient and Hessian
    are held over the unknowns it depends on, ``k = d P`` with ``P`` the
    largest number of distinct points of a row, whatever the size of the
    master surface.  Contributions are added in batches (:meth:`add`), so
    their jets need not be held all at once.

    Row ``j`` gets ``gap_j = sum_c gap_c / A_j`` (and the same for each slip
    component).  Rows without contributions, or whose contributions cover
    less than ``THIN`` of their support (``sum_c int N_j < THIN A_j``), are
    open (:meth:`finish`).

    Parameters
    ----------
    m : int
        Number of slave nodes (rows).
    row : ndarray of int, shape (c,)
    points : ndarray of int, shape (c, n_p)
    d : int
        Dimension.
    q : int
        Number of slip components.
    """

    def __init__(self, m: int, row: np.ndarray, points: np.ndarray, d: int, q: int):
        c, n_p = points.shape
        self.m, self.d, self.q, self.row = m, d, q, row
        span = int(points.max(initial=0)) + 1
        key = (row[:, None] * span + points).ravel()
        unique, inverse = np.unique(key, return_inverse=True)
        urow, upoint = unique // span, unique % span
        counts = np.bincount(urow, minlength=m)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        local = np.arange(unique.size) - start[urow]
        P = max(int(counts.max(initial=0)), 1)
        self.k = k = d * P
        slot = local[inverse.ravel()].reshape(c, n_p)
        #: local variable of each contribution variable, shape (c, k_c)
        self.index = (slot[:, :, None] * d + np.arange(d)).reshape(c, n_p * d)
        self.slots = np.full((m, P, 1), -1)
        self.slots[urow, local, 0] = upoint
        self.gap, self.slip = np.zeros(m), np.zeros((m, q))
        self.weight, self.normal = np.zeros(m), np.zeros((m, d))
        self.d_gap, self.d_slip = np.zeros((m, k)), np.zeros((m, q, k))
        self.h_gap, self.h_slip = np.zeros((m, k, k)), np.zeros((m, q, k, k))

    def add(self, which, gap: Jet, slip: list, weight: np.ndarray, normal: np.ndarray) -> None:
        """Add the contributions ``which`` (slice or index array of the batch).

        Parameters
        ----------
        gap : Jet
            Their ``int Phi_j g``, shape (b,), ``k_c`` variables.
        slip : list of Jet
            ``q`` tangential components of ``int N_j tau0 . (relative displacement)``.
        weight : ndarray, shape (b,)
            ``int N_j`` (weights of the averaged normal).
        normal : ndarray, shape (b, d)
        """
        row, idx = self.row[which], self.index[which]
        np.add.at(self.gap, row, gap.value)
        np.add.at(self.weight, row, weight)
        np.add.at(self.normal, row, weight[:, None] * normal)
        # sum the batch over the rows it touches, then add those rows
        touched, r = np.unique(row, return_inverse=True)
        n, k = touched.size, self.k
        flat1 = (r[:, None] * k + idx).ravel()
        flat2 = (r[:, None, None] * (k * k) + idx[:, :, None] * k + idx[:, None, :]).ravel()

        def summed(values, flat, shape):
            return np.bincount(flat, weights=values.ravel(), minlength=n * int(np.prod(shape))
                               ).reshape((n,) + shape)

        self.d_gap[touched] += summed(gap.grad, flat1, (k,))
        self.h_gap[touched] += summed(gap.hess, flat2, (k, k))
        for a, s_a in enumerate(slip):
            np.add.at(self.slip[:, a], row, s_a.value)
            self.d_slip[touched, a] += summed(s_a.grad, flat1, (k,))
            self.h_slip[touched, a] += summed(s_a.hess, flat2, (k, k))

    def finish(self, area: np.ndarray, distance: np.ndarray, fallback_normal: np.ndarray,
               fallback_tangent: np.ndarray, tangent_of, size: np.ndarray | None = None):
        """The rows' kinematics, scaled by the lumped areas, and their local index sets.

        A row covered by a vanishing part of its support (a slave segment
        that only touches the end of the master, an overlap of round-off
        size) is open: its weighted gap would constrain nothing, a singular
        Newton row.  Its gap is ``distance`` but at least the node size ``h``
        (``A_j`` in 2D, ``sqrt(A_j)`` in 3D, so that ``c_n g >= f E^*`` and
        the return map sets ``lam_j = 0`` from any iterate), with zero slip
        and derivatives and the fallback normal and tangents.

        Parameters
        ----------
        area : ndarray, shape (m,)
            Lumped nodal areas ``A_j``.
        distance : ndarray, shape (m,)
        fallback_normal : ndarray, shape (m, d)
        fallback_tangent : ndarray, shape (m, q, d)
        tangent_of : callable
            Tangent basis, shape (m, q, d), of unit normals (m, d).
        size : ndarray, shape (m,), optional
            Node sizes ``h`` where they are not ``A_j`` (2D) or ``sqrt(A_j)``
            (3D): the lumped lengths of axisymmetric surfaces.

        Returns
        -------
        local : LocalKinematics
        slots : ndarray of int, shape (m, P, 1)
            Point identifier of each group of ``d`` local variables (``-1``: unused).
        """
        covered = self.weight > THIN * area
        scale = np.where(covered, 1.0 / area, 0.0)
        if size is None:
            size = area if self.d == 2 else np.sqrt(area)
        gap = np.where(covered, self.gap * scale, np.maximum(distance, size))
        self.d_gap *= scale[:, None]
        self.d_slip *= scale[:, None, None]
        self.h_gap *= scale[:, None, None]
        self.h_slip *= scale[:, None, None, None]
        nrm = self.normal
        length = np.linalg.norm(nrm, axis=1)
        nrm = np.where(covered[:, None], nrm / np.where(length > 0, length, 1.0)[:, None],
                       fallback_normal)
        tangent = np.where(covered[:, None, None], tangent_of(nrm), fallback_tangent)
        slots = np.where(covered[:, None, None], self.slots, -1)
        local = LocalKinematics(gap=gap, slip=self.slip * scale[:, None], normal=nrm,
                                tangent=tangent, d_gap=self.d_gap, d_slip=self.d_slip,
                                h_gap=self.h_gap, h_slip=self.h_slip)
        return local, slots
