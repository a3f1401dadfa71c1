r"""Contact pairs: a slave surface against a deformable master surface or a rigid obstacle.

:func:`pair_kinematics` runs search, projection and kinematics for one pair
and returns the result in global DOF numbering; :func:`stack` concatenates
the pairs of a problem into one batch.

A rigid obstacle measures itself
(:meth:`fecontact.contact.obstacles.Obstacle.kinematics`); a deformable
master is searched and projected here.

A slave node that projects past a free end of a master surface (a vertex
used by one segment in 2D, an edge used by one facet in 3D) faces no master
and is open (:func:`open_rows`): its gap is its distance to the master, but
at least its size, with zero derivatives.  The margins are
:data:`fecontact.contact.search.FREE_END_MARGIN` (2D) and
:data:`FREE_EDGE_KEEP` (3D, with a hysteresis within the increment: a node
open at its start stays open until it is back inside by as much).  The first evaluation of a pair logs a warning
with the number of such nodes.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ..bodies.system import BulkSystem
from ..friction.base import FrictionLaw
from .kinematics2d import LocalKinematics
from .kinematics3d import node_to_edge, node_to_quad, node_to_triangle, node_to_vertex
from .mortar2d import weighted_kinematics
from .mortar2d_curved import curved_mortar
from .mortar_facets import facet_mortar, slot_dofs
from .obstacles import Obstacle
from .smoothing import segment_kinematics, smoothed_pair
from .search import (EDGE, FACE, VERTEX, closest_facets, closest_segments, free_edges_3d,
                     free_edge_reach, free_ends_2d, past_free_end_2d)
from .surface import ContactSurface, clamped_nodes, mortar_surface, warn_clamped

#: Margin of the 3D free-edge test, in edge lengths: a node farther past a free edge is open,
#: and one that was so at the start of the increment stays open until it is back inside by as
#: much (:func:`_facet_kinematics`)
FREE_EDGE_KEEP = 0.05

logger = logging.getLogger(__name__)

# pairs already warned about slave nodes past a free end: id -> weak reference
_WARNED: dict = {}


@dataclass(frozen=True)
class ContactPair:
    """One contact pair: a slave surface against a master, with its friction law.

    Attributes
    ----------
    name : str
    slave : ContactSurface
    master : ContactSurface or Obstacle
        A deformable master surface, or a rigid obstacle
        (:mod:`fecontact.contact.obstacles`).
    friction : FrictionLaw
        The pair's friction law (:mod:`fecontact.friction`; ``Coulomb(0.0)``
        for frictionless contact): the one source of its coefficients.
    c_n, c_t : ndarray, shape (m,)
        Augmentation parameters per slave node.
    formulation : str
        ``"node_to_segment"`` (node-to-segment in 2D, node-to-facet in 3D) or
        ``"mortar"`` (segment-to-segment, :mod:`fecontact.contact.mortar2d`,
        :mod:`fecontact.contact.mortar3d`).
    penalty : ndarray, shape (m,), optional
        Penalty stiffness per slave node (traction per length): the normal
        condition is then ``lam_n = penalty * max(0, -g_n)`` instead of the
        exact Signorini condition (frictionless pairs only).
    smoothing : str
        2D smoothed curves (:data:`fecontact.contact.smoothing.SMOOTHINGS`): the master's for
        node-to-segment, both surfaces' for mortar (:func:`fecontact.contact.smoothing.smoothed_pair`).
    interference : Interference, optional
        An initial overlap ramped in: the gaps are shifted by the overlap still allowed
        (:class:`fecontact.contact.interference.Interference`).
    """

    name: str
    slave: ContactSurface
    master: object
    friction: FrictionLaw
    c_n: np.ndarray
    c_t: np.ndarray
    formulation: str = "node_to_segment"
    penalty: np.ndarray | None = None
    smoothing: str = "auto"
    interference: object = None

    @property
    def n_nodes(self) -> int:
        """Number of slave nodes ``m``."""
        return self.slave.nodes.size


@dataclass(frozen=True)
class PairKinematics:
    """Kinematics of a batch of contact nodes in global DOF numbering.

    Attributes
    ----------
    local : LocalKinematics
    dofs : ndarray of int, shape (m, k)
        Global DOF of each local variable; ``-1`` for padding.
    facet : ndarray of int, shape (m,)
        Master segment or facet (``-1`` for obstacles).
    row_map : scipy.sparse.csr_matrix, shape (m*d, m*d), or None
        Contact rows from nodal kinematics (quadratic 3D slave surfaces,
        :func:`multiplier_rows`): row ``(i, c)`` of the kinematic operator is
        ``sum row_map[(i, c), (j, e)] d(g, s)_(j, e)``.  ``local.gap`` and
        ``local.slip`` then hold the rows' weighted values, while the
        derivatives (``d_gap``, ``h_gap``, ...) stay those of each node's own
        gap and slip.  ``None``: every row is its node's own.
    node_gap : ndarray, shape (m,), or None
        Each node's own gap where the rows are weighted (``row_map`` set).
    """

    local: LocalKinematics
    dofs: np.ndarray
    facet: np.ndarray
    row_map: sp.csr_matrix | None = None
    node_gap: np.ndarray | None = None

    @property
    def own_gap(self) -> np.ndarray:
        """Each node's own gap, shape (m,): :attr:`node_gap`, or the rows' gaps."""
        return self.local.gap if self.node_gap is None else self.node_gap

    def take(self, order: np.ndarray) -> "PairKinematics":
        """Rows ``order`` of every array (kinematics without a row map)."""
        if self.row_map is not None:
            raise ValueError("cannot reorder contact rows that combine several nodes")
        L = self.local
        local = LocalKinematics(**{f: getattr(L, f)[order] for f in L.__dataclass_fields__})
        return PairKinematics(local, self.dofs[order], self.facet[order])


def pair_kinematics(pair: ContactPair, system: BulkSystem, x: np.ndarray, x0: np.ndarray,
                    t: float, t0: float, tangent0: np.ndarray | None = None,
                    reference: np.ndarray | None = None,
                    facet0: np.ndarray | None = None) -> PairKinematics:
    """Search, project and evaluate kinematics for one pair.

    Clamped slave nodes (:func:`~fecontact.contact.surface.clamped_nodes`) are left out (:func:`leave_out`);
    a mortar pair integrates over its slave facets that touch none of them
    (:func:`~fecontact.contact.surface.mortar_surface`).

    Parameters
    ----------
    x, x0 : ndarray, shape (dim, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    t, t0 : float
        Current and start-of-step pseudo-time (for moving obstacles).
    tangent0 : ndarray, shape (m, dim-1, dim), optional
        Start-of-step tangent bases (slip directions).
    reference : ndarray, shape (m, 3), optional
        Reference directions of the 3D tangent bases
        (:func:`fecontact.contact.kinematics3d.tangent_basis`).
    facet0 : ndarray of int, shape (m,), optional
        Master segments or facets of the previous evaluation (hysteresis, see
        :func:`fecontact.contact.search.closest_segments` and
        :func:`fecontact.contact.search.closest_facets`).
    """
    dim = x.shape[0]
    clamped = clamped_nodes(pair.slave, system)
    kin = _node_kinematics(pair, system, x, x0, t, t0, tangent0, reference, facet0, clamped)
    if pair.slave.multiplier_map is not None and pair.formulation != "mortar":
        kin = multiplier_rows(kin, pair.slave, tangent0)
    if clamped.any():
        if tangent0 is None and facet0 is None:
            warn_clamped(pair, system, clamped)
        kin = leave_out(kin, clamped, pair.slave.scale if dim == 2 else np.sqrt(pair.slave.scale))
    return kin if pair.interference is None else pair.interference.shifted(kin, t)


def _node_kinematics(pair: ContactPair, system: BulkSystem, x, x0, t, t0, tangent0, reference,
                     facet0, clamped) -> PairKinematics:
    """:func:`pair_kinematics` of every slave node's own gap and slip (``clamped``: bool, (m,))."""
    named = pair                                        # the pair its warnings name
    if pair.formulation == "mortar" and clamped.any():
        pair = replace(pair, slave=mortar_surface(pair.slave, clamped,
                                                  system.bodies[pair.slave.body].node_coords))
        if pair.slave.facets.shape[1] == 0:             # no facet left: every row open
            kin = _node_kinematics(replace(named, formulation="node_to_segment"), system, x, x0, t,
                                   t0, tangent0, reference, facet0, clamped)
            return leave_out(kin, np.ones(clamped.size, dtype=bool), pair.slave.size)
    slave = system.global_nodes(pair.slave.body, pair.slave.nodes)
    xs, xs0 = x[:, slave].T, x0[:, slave].T
    slave_dofs = system.node_dofs(slave)
    master = pair.master
    dim = x.shape[0]
    if isinstance(master, ContactSurface):
        if dim == 3:
            nts, past = _facet_kinematics(master, system, xs, xs0, x, x0, slave_dofs, tangent0,
                                          reference, facet0, np.sqrt(pair.slave.scale))
            if tangent0 is None and facet0 is None:
                _warn_past_free_ends(named, system, int(past.sum()))
            if pair.formulation == "mortar":
                return _mortar3d_kinematics(pair, system, xs, xs0, x, x0, tangent0, reference, nts)
            return nts
        if pair.formulation == "mortar":
            if tangent0 is None and facet0 is None:
                ga = system.global_nodes(master.body, master.facets[0])
                gb = system.global_nodes(master.body, master.facets[1])
                proj = closest_segments(xs, x[:, ga].T, x[:, gb].T)
                past = past_free_end_2d(proj.xi, proj.segment, *free_ends_2d(master.facets))
                _warn_past_free_ends(named, system, int(past.sum()))
            return _mortar_kinematics(pair, system, xs, xs0, x, x0, tangent0)
        ga = system.global_nodes(master.body, master.facets[0])
        gb = system.global_nodes(master.body, master.facets[1])
        proj = closest_segments(xs, x[:, ga].T, x[:, gb].T, previous=facet0)
        local, nodes = segment_kinematics(pair.smoothing, master, system, proj, xs, xs0, x, x0,
                                          tangent0)            # master nodes, -1: unused
        past = past_free_end_2d(proj.xi, proj.segment, *free_ends_2d(master.facets))
        if tangent0 is None and facet0 is None:
            _warn_past_free_ends(named, system, int(past.sum()))
        local = open_rows(local, past, np.maximum(proj.distance, pair.slave.size))
        dofs = np.where(np.repeat(nodes, dim, axis=1) >= 0, system.node_dofs(nodes.ravel()).reshape(len(nodes), -1), -1)
        return PairKinematics(local, np.hstack([slave_dofs, dofs]), proj.segment)
    if not isinstance(master, Obstacle):
        raise TypeError(f"unknown master of pair {pair.name!r}: {type(master).__name__}")
    local = master.kinematics(xs, xs0, t, t0, tangent0, reference)
    return PairKinematics(local, slave_dofs, np.full(slave.size, -1))


def _mortar_kinematics(pair: ContactPair, system: BulkSystem, xs, xs0, x, x0,
                       tangent0) -> PairKinematics:
    """Segment-to-segment kinematics (:func:`fecontact.contact.mortar2d.weighted_kinematics`),
    on the smoothed curves of both sides where the pair's ``smoothing`` asks for it
    (:func:`fecontact.contact.mortar2d_curved.curved_mortar`)."""
    if smoothed_pair(pair, system):
        return PairKinematics(*curved_mortar(pair, system, xs, xs0, x, x0, tangent0))
    slave, master = pair.slave, pair.master
    ga = system.global_nodes(master.body, master.facets[0])
    gb = system.global_nodes(master.body, master.facets[1])
    rows = np.searchsorted(slave.nodes, slave.facets)
    X = system.bodies[slave.body].node_coords[:, slave.facets]              # (2, 2, n_e)
    length = np.linalg.norm(X[:, 1] - X[:, 0], axis=0)
    nodes, ids = np.unique(np.column_stack([ga, gb]), return_inverse=True)
    radius = system.bodies[slave.body].node_coords[0, slave.nodes] if slave.axisymmetric else None
    local, slots, segment = weighted_kinematics(
        xs, xs0, rows, x[:, ga].T, x[:, gb].T, x0[:, ga].T, x0[:, gb].T, slave.area, length,
        tangent0, ids.reshape(-1, 2), radius)
    # master point m + i is the master node nodes[i]
    return PairKinematics(local, slot_dofs(system, slave, nodes, slots),
                          segment)


def _mortar3d_kinematics(pair: ContactPair, system: BulkSystem, xs, xs0, x, x0, tangent0,
                         reference, nts: PairKinematics) -> PairKinematics:
    """Facet-to-facet kinematics (:func:`fecontact.contact.mortar_facets.facet_mortar`).

    ``nts`` (node-to-facet kinematics of the same nodes) supplies the facet,
    and the normal, tangents and distance of nodes no master facet covers.
    """
    local, dofs = facet_mortar(pair.slave, pair.master, system, xs, xs0, x, x0, tangent0, reference,
                               nts.local)
    return PairKinematics(local, dofs, nts.facet)


def _facet_kinematics(master: ContactSurface, system: BulkSystem, xs, xs0, x, x0, slave_dofs,
                      tangent0, reference, facet0, size):
    """Node-to-facet kinematics: faces, and edge/vertex fallbacks, in slave-node order.

    Nodes past a free edge of the master are open (:func:`open_rows`, with
    gap at least ``size``).  Returns the kinematics and those nodes (bool, (m,)).
    """
    G = system.global_nodes(master.body, master.facets.ravel()).reshape(master.facets.shape)
    Xf = np.transpose(x[:, G], (2, 1, 0))
    proj = closest_facets(xs, Xf, previous=facet0)
    free = free_edges_3d(master.facets)[proj.facet]
    # hysteresis: a node is open past a free edge when it is past it by more than the keep
    # margin (5 % of the edge), or was so at the start of the increment and has not come back
    # inside by more than that margin; so a node at the edge cannot alternate between open and
    # closed across Newton iterates, and the edge nodes of two conforming surfaces, pushed
    # apart by round-off or by the Poisson effect, stay in contact
    reach = free_edge_reach(xs, Xf[proj.facet], free)
    reach0 = free_edge_reach(xs0, np.transpose(x0[:, G], (2, 1, 0))[proj.facet], free)
    past = (reach > FREE_EDGE_KEEP) | ((reach0 > FREE_EDGE_KEEP) & (reach > -FREE_EDGE_KEEP))
    # a node in contact outside its facet across a free edge is measured on the facet's plane
    # (its straight extension), as in 2D on the end segment's line: its closest point on the
    # edge would give it a normal from the edge to the node, undefined as it reaches the edge
    feature = np.where((reach > 0.0) & ~past, FACE, proj.feature)
    corners = G[:, proj.facet].T                                  # (m, v)
    rows = np.arange(xs.shape[0])
    batches, order = [], []

    def add(sel, kin, nodes):
        dofs = np.hstack([slave_dofs[sel]] + [system.node_dofs(c) for c in nodes])
        batches.append(PairKinematics(kin, dofs, proj.facet[sel]))
        order.append(rows[sel])

    def sub(arr, sel):
        return None if arr is None else arr[sel]

    for sel, nodes in ((feature == FACE, None), (feature == EDGE, 2), (feature == VERTEX, 1)):
        if not sel.any():
            continue
        t0s, refs = sub(tangent0, sel), sub(reference, sel)
        if nodes is None:
            c = corners[sel].T
            cur = [x[:, ci].T for ci in c]
            old = [x0[:, ci].T for ci in c]
            if c.shape[0] == 3:
                kin = node_to_triangle(xs[sel], *cur, xs0[sel], *old, t0s, refs)
            else:
                kin = node_to_quad(xs[sel], np.stack(cur, axis=1), xs0[sel], np.stack(old, axis=1),
                                   t0s, refs)
            add(sel, kin, list(c))
            continue
        loc = proj.local[sel]
        c = [corners[sel][np.arange(loc.shape[0]), loc[:, j]] for j in range(nodes)]
        side = proj.side[sel]
        if nodes == 2:
            kin = node_to_edge(xs[sel], x[:, c[0]].T, x[:, c[1]].T, xs0[sel], x0[:, c[0]].T,
                               x0[:, c[1]].T, side, t0s, refs)
        else:
            kin = node_to_vertex(xs[sel], x[:, c[0]].T, xs0[sel], x0[:, c[0]].T, side, t0s, refs)
        add(sel, kin, c)
    merged = stack(batches).take(np.argsort(np.concatenate(order)))
    local = open_rows(merged.local, past, np.maximum(np.abs(merged.local.gap), size))
    return replace(merged, local=local), past


def weighted_row_map(multiplier_map: sp.spmatrix, tangent: np.ndarray) -> sp.csr_matrix:
    """The map from nodal ``(g, s)`` to weighted contact rows (:func:`multiplier_rows`).

    Parameters
    ----------
    multiplier_map : sparse, shape (m, m)
        ``M`` of the slave surface.
    tangent : ndarray, shape (m, q, d)
        Tangent bases the nodal slips and the rows' slips refer to.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (m*d, m*d)
        Block ``(v, j)``: ``M_vj diag(1, tau_v tau_j^T)``.
    """
    M = multiplier_map.tocoo()
    m, q, _ = tangent.shape
    d = q + 1
    block = np.zeros((M.nnz, d, d))
    block[:, 0, 0] = M.data
    block[:, 1:, 1:] = M.data[:, None, None] * np.einsum("eqx,epx->eqp", tangent[M.row], tangent[M.col])
    r = (M.row[:, None, None] * d + np.arange(d)[None, :, None]).repeat(d, axis=2)
    c = (M.col[:, None, None] * d + np.arange(d)[None, None, :]).repeat(d, axis=1)
    return sp.csr_matrix((block.ravel(), (r.ravel(), c.ravel())), shape=(m * d, m * d))


def multiplier_rows(kin: PairKinematics, surface: ContactSurface,
                    tangent0: np.ndarray | None) -> PairKinematics:
    r"""Weighted contact rows of a slave surface with a multiplier map (quadratic 3D facets).

    Row ``v`` holds :math:`\tilde g_v = \sum_j M_{vj} g_j` and
    :math:`\tilde s_v = \sum_j M_{vj} R_{vj} s_j`, with ``M`` the surface's
    :attr:`~fecontact.contact.surface.ContactSurface.multiplier_map` and
    ``R_vj = tau_v tau_j^T`` (q, q) turning node ``j``'s slip into vertex
    ``v``'s tangent basis (the start-of-increment bases ``tangent0``, fixed
    within the increment, so the rows are linear in the nodal kinematics).
    Rows without weights (midside nodes) are open: their gap is the size of
    the node, their slip zero.  A node open past a free edge of the master
    enters the rows with the gap of its size, constant like its derivatives.

    Parameters
    ----------
    kin : PairKinematics
        Each node's own kinematics, shape (m, ...).
    surface : ContactSurface
    tangent0 : ndarray, shape (m, q, d), or None
        Start-of-increment tangent bases (``kin.local.tangent`` if None).

    Returns
    -------
    PairKinematics
        ``kin`` with the rows' gap and slip and the ``row_map`` (m*d, m*d).
    """
    L = kin.local
    m, q = L.slip.shape
    d = q + 1
    row_map = weighted_row_map(surface.multiplier_map, L.tangent if tangent0 is None else tangent0)
    # a node open past a free edge (:func:`open_rows`: no derivatives, the only nodes without
    # any) enters its neighbours' rows with the constant gap of its size
    size = np.sqrt(surface.scale)
    held = np.any(L.d_gap != 0.0, axis=1)
    node_gap = np.where(held, L.gap, size)
    rows = (row_map @ np.column_stack([node_gap, L.slip]).ravel()).reshape(m, d)
    weighted = np.diff(surface.multiplier_map.indptr) > 0
    gap = np.where(weighted, rows[:, 0], np.maximum(np.abs(L.gap), size))
    return replace(kin, local=replace(L, gap=gap, slip=rows[:, 1:]), row_map=row_map,
                   node_gap=L.gap)


def open_rows(local: LocalKinematics, rows: np.ndarray, gap: np.ndarray) -> LocalKinematics:
    """Kinematics with the nodes ``rows`` open: gap ``gap``, zero slip, zero derivatives.

    Parameters
    ----------
    local : LocalKinematics
    rows : ndarray of bool, shape (m,)
    gap : ndarray, shape (m,)
        Gap of the open nodes (positive; other entries are ignored).

    Returns
    -------
    LocalKinematics
        Normal and tangents unchanged.
    """
    if not rows.any():
        return local
    keep = ~rows
    return replace(local, gap=np.where(rows, gap, local.gap),
                   slip=local.slip * keep[:, None], d_gap=local.d_gap * keep[:, None],
                   d_slip=local.d_slip * keep[:, None, None],
                   h_gap=local.h_gap * keep[:, None, None],
                   h_slip=local.h_slip * keep[:, None, None, None])


def leave_out(kin: PairKinematics, rows: np.ndarray, size: np.ndarray) -> PairKinematics:
    """Kinematics with the rows ``rows`` (bool, (m,)) open: gap ``max(|g|, size)``, no slip, no DOF.

    Their multipliers are then zero (clamped slave nodes).  Where rows combine
    nodes (``row_map``) the row is emptied; each node's own derivatives stay for its neighbours.
    """
    L = kin.local
    gap = np.where(rows, np.maximum(np.abs(L.gap), size), L.gap)
    if kin.row_map is None:
        return replace(kin, local=open_rows(L, rows, gap))
    keep = sp.diags(np.repeat(~rows, 1 + L.slip.shape[1]).astype(float))
    return replace(kin, local=replace(L, gap=gap, slip=L.slip * ~rows[:, None]),
                   row_map=(keep @ kin.row_map).tocsr(), node_gap=np.where(rows, gap, kin.own_gap))


def _warn_past_free_ends(pair: ContactPair, system: BulkSystem, count: int) -> None:
    """Warn once per pair that ``count`` of its slave nodes lie past a free end of the master."""
    if count == 0:
        return
    ref = _WARNED.get(id(pair))
    if ref is not None and ref() is pair:
        return
    _WARNED[id(pair)] = weakref.ref(pair)
    logger.warning(
        "contact %r: %d of %d slave nodes (boundary %r of body %r) project past a free end of "
        "the master surface (boundary %r of body %r) and are open there; the slave surface "
        "extends beyond the master", pair.name, count, pair.n_nodes, pair.slave.boundary,
        system.bodies[pair.slave.body].name, pair.master.boundary,
        system.bodies[pair.master.body].name)


def _pad(a: np.ndarray, k: int, axes: tuple, fill=0.0) -> np.ndarray:
    width = [(0, 0)] * a.ndim
    for ax in axes:
        width[ax] = (0, k - a.shape[ax])
    return np.pad(a, width, constant_values=fill)


def empty_kinematics(dim: int) -> PairKinematics:
    """The kinematics of no contact node (a problem without contact pairs)."""
    q = dim - 1
    local = LocalKinematics(gap=np.zeros(0), slip=np.zeros((0, q)), normal=np.zeros((0, dim)),
                            tangent=np.zeros((0, q, dim)), d_gap=np.zeros((0, 0)),
                            d_slip=np.zeros((0, q, 0)), h_gap=np.zeros((0, 0, 0)),
                            h_slip=np.zeros((0, q, 0, 0)))
    return PairKinematics(local, np.zeros((0, 0), dtype=int), np.zeros(0, dtype=int))


def stack(batches: list) -> PairKinematics:
    """Concatenate pair kinematics, padding local variables to a common ``k``."""
    if len(batches) == 1:
        return batches[0]
    k = max(b.dofs.shape[1] for b in batches)
    L = [b.local for b in batches]
    cat = np.concatenate
    local = LocalKinematics(
        gap=cat([l.gap for l in L]), slip=cat([l.slip for l in L]),
        normal=cat([l.normal for l in L]), tangent=cat([l.tangent for l in L]),
        d_gap=cat([_pad(l.d_gap, k, (1,)) for l in L]),
        d_slip=cat([_pad(l.d_slip, k, (2,)) for l in L]),
        h_gap=cat([_pad(l.h_gap, k, (1, 2)) for l in L]),
        h_slip=cat([_pad(l.h_slip, k, (2, 3)) for l in L]))
    dofs = cat([_pad(b.dofs, k, (1,), fill=-1) for b in batches])
    row_map = node_gap = None
    if any(b.row_map is not None for b in batches):
        row_map = sp.block_diag([sp.identity(b.local.gap.size * (1 + b.local.slip.shape[1]))
                                 if b.row_map is None else b.row_map for b in batches], format="csr")
        node_gap = cat([b.own_gap for b in batches])
    return PairKinematics(local, dofs, cat([b.facet for b in batches]), row_map, node_gap)
