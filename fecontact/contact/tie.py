r"""Tied (glued) interfaces between bodies with non-matching meshes: dual mortar.

A part meshed in pieces is glued across the interfaces between them.  On an
interface, one surface is the *slave* side ``Gamma_s`` with the trace
functions ``phi_j`` of its nodes, the other the *master* side with the trace
functions ``phi_k^m``.  The tie asks that the jump of the displacement be
orthogonal to a multiplier space spanned by functions ``psi_j``:

.. math::

    \int_{\Gamma_s} \psi_j\, (u_s - u_m) \, d\Gamma = 0
    \iff D\, u_s = M\, u_m, \qquad
    D_{jl} = \int_{\Gamma_s} \psi_j \phi_l, \quad
    M_{jk} = \int_{\Gamma_s} \psi_j\, \phi^m_k \circ \pi,

with ``pi`` the projection of a slave point onto the master surface.  The
dual mortar method (Wohlmuth) takes ``psi_j`` biorthogonal to the slave trace
functions, ``int psi_j phi_l = delta_jl int phi_j``: then ``D`` is diagonal
and every slave DOF is a sparse combination of master DOFs,

.. math::  u_s = W u_m, \qquad W = D^{-1} M,

the same for every displacement component.  This is eliminated from the
unknowns (:func:`fecontact.bodies.system.build_system` with ``ties=``).

**Dual basis.**  On each slave facet ``e`` with the facet mass matrix
``M_e = [int_e phi_i phi_l]`` and ``D_e = diag(int_e phi_i)`` the local dual
functions are ``psi = A_e phi`` with ``A_e = D_e M_e^{-1}`` (computed for
every facet type: ``psi_i = 2 phi_i - phi_l`` on segments, ``4 phi_i - 1``
on triangles, and the bilinear quadrilateral's numerically).  They sum to
one, so rows of ``W`` reproduce constants; on a flat (or piecewise flat,
geometrically coincident) interface they reproduce linear fields, which
makes the patch test exact.

**Integration.**  ``M`` is integrated over pieces on which both sides are
polynomial.  In 2D the master segments are projected orthogonally onto the
line of each slave segment (so the pieces of one slave segment tile it
exactly, also on curved interfaces) and each piece takes 3 Gauss points.  In
3D each master triangle is projected onto the plane of each slave triangle
and clipped with it (:func:`fecontact.contact.mortar3d.facing_pairs`); each
clipped polygon is fanned from its centroid into triangles with a 6-point
rule of degree 4.  This is exact for triangles and for parallelogram
quadrilaterals (split into two triangles for the clipping; their bilinear
functions are evaluated by inverting the facet's map).

**Uncovered slave nodes.**  A slave node whose dual function meets no master
surface cannot be expressed by master DOFs; a partly covered one would get
a row of ``W`` biased towards the covered side.  Gluing surfaces that do not
coincide is almost always a modelling error (the wrong boundary, or the
larger surface taken as the slave), and a silently free node would open a
crack in the part, so :func:`tie_constraint` raises a ValueError naming the
pair, the count and the first coordinates when a node's covered fraction
``int_cov phi_j / int phi_j`` is below ``1 - coverage_tol``.  Rows of nodes
covered above that (on curved interfaces meshed differently the rim nodes
are covered up to ``O(h/R)``) are normalised to sum to one, ``W_j = M_j /
sum_k M_jk``, which is ``D_jj^{-1} M_j`` for fully covered nodes.

**Axisymmetric bodies** (``x[0] = r``, a slave surface with
:attr:`~fecontact.contact.surface.ContactSurface.axisymmetric`).  Every
integral carries ``2 pi r`` of the slave surface: ``M_e``, ``D_e`` and the
pieces' weights, so the duals are biorthogonal under ``r ds`` (the 3-point
rule stays exact: the integrands are cubic).  The rows of ``W`` still sum
to one.

A tied slave surface must not also be the slave of a contact pair: its DOFs
are no unknowns of their own.  Bodies of quadratic element kinds
(:attr:`fecontact.mesh.elements.ElementKind.quadratic`) are not supported yet.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from ..bodies.ties import Tie
from .mortar3d import facing_pairs
from .surface import ContactSurface, contact_surface

# clip_polygons' edge lines: line l runs from vertex l to vertex _LINE_END[l]
# (vertices 0-2 of the first triangle of a pair, 3-5 of the second)
_LINE_END = np.array([1, 2, 0, 4, 5, 3])
_GAUSS_X, _GAUSS_W = np.polynomial.legendre.leggauss(3)
#: 3-point Gauss rule on ``[0, 1]`` (points, weights), exact to degree 5.
GAUSS_1D = (0.5 * (_GAUSS_X + 1.0), 0.5 * _GAUSS_W)
#: 6-point triangle rule of degree 4 (Dunavant): barycentric points (6, 3), weights summing to one.
TRIANGLE_RULE = (
    np.array([[0.108103018168070, 0.445948490915965, 0.445948490915965],
              [0.445948490915965, 0.108103018168070, 0.445948490915965],
              [0.445948490915965, 0.445948490915965, 0.108103018168070],
              [0.816847572980459, 0.091576213509771, 0.091576213509771],
              [0.091576213509771, 0.816847572980459, 0.091576213509771],
              [0.091576213509771, 0.091576213509771, 0.816847572980459]]),
    np.array([0.223381589678011] * 3 + [0.109951743655322] * 3))
_QUAD_REF = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
_QUAD_SPLIT = np.array([[0, 1, 2], [0, 2, 3]])


def facet_shapes(nv: int, ref: np.ndarray) -> tuple:
    r"""Linear facet functions and their reference gradients.

    Parameters
    ----------
    nv : int
        Vertices per facet: 2 (segment on ``[0, 1]``), 3 (triangle, ``phi =
        (1 - s - t, s, t)``) or 4 (bilinear quadrilateral on ``[0, 1]^2``,
        vertices counter-clockwise from the origin).
    ref : ndarray, shape (..., r)
        Reference coordinates (``r = 1`` for segments, else 2).

    Returns
    -------
    N : ndarray, shape (..., nv)
    dN : ndarray, shape (..., nv, r)
    """
    s = ref[..., 0]
    one, zero = np.ones_like(s), np.zeros_like(s)
    if nv == 2:
        return np.stack([1.0 - s, s], -1), np.stack([-one, one], -1)[..., None]
    t = ref[..., 1]
    if nv == 3:
        dN = np.stack([np.stack([-one, -one], -1), np.stack([one, zero], -1),
                       np.stack([zero, one], -1)], -2)
        return np.stack([1.0 - s - t, s, t], -1), dN
    N = np.stack([(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t], -1)
    dN = np.stack([np.stack([t - 1, s - 1], -1), np.stack([1 - t, -s], -1),
                   np.stack([t, s], -1), np.stack([-t, 1 - s], -1)], -2)
    return N, dN


def dual_coefficients(X: np.ndarray, axisymmetric: bool = False) -> tuple:
    r"""Facet mass matrices and the dual-basis coefficients of linear facets.

    ``M_e = int_e phi_i phi_l``, ``D_e = diag(int_e phi_i)`` and ``A_e = D_e
    M_e^{-1}``, so that ``psi_i = sum_l (A_e)_{il} phi_l`` satisfies
    ``int_e psi_i phi_l = delta_il int_e phi_i`` (biorthogonality).

    Parameters
    ----------
    X : ndarray, shape (n_e, nv, d)
        Vertex coordinates of the facets (segments in 2D, triangles or
        quadrilaterals in 3D).
    axisymmetric : bool
        Segments of the ``(r, z)`` plane: the integrals carry ``2 pi r``.

    Returns
    -------
    mass : ndarray, shape (n_e, nv, nv)
    A : ndarray, shape (n_e, nv, nv)
    """
    nv = X.shape[1]
    if nv == 2:
        ref, w = GAUSS_1D[0][:, None], GAUSS_1D[1]
    elif nv == 3:
        ref, w = TRIANGLE_RULE[0][:, 1:], 0.5 * TRIANGLE_RULE[1]
    else:
        g = np.stack(np.meshgrid(*GAUSS_1D[:1] * 2, indexing="ij"), -1).reshape(-1, 2)
        ref, w = g, np.outer(GAUSS_1D[1], GAUSS_1D[1]).ravel()
    N, dN = facet_shapes(nv, ref)
    J = np.einsum("gar,ead->egdr", dN, X)
    measure = (np.linalg.norm(J[..., 0], axis=-1) if J.shape[-1] == 1
               else np.linalg.norm(np.cross(J[..., 0], J[..., 1]), axis=-1))
    if axisymmetric:
        measure = measure * 2.0 * np.pi * np.einsum("ga,ea->eg", N, X[..., 0])
    mass = np.einsum("eg,g,ga,gb->eab", measure, w, N, N)
    D = mass.sum(axis=2)[:, :, None] * np.eye(nv)                      # diag(int_e phi_i)
    return mass, np.swapaxes(np.linalg.solve(mass, D), 1, 2)


def _pieces_2d(Xs: np.ndarray, Xm: np.ndarray) -> tuple:
    """Quadrature on the overlaps of master segments projected onto slave segment lines.

    Returns ``(e, f, Ns, Nm, w)``: slave and master segment (Q,), their
    functions at the points (Q, 2) and the weights (Q,) in slave length.
    """
    s1, ts = Xs[:, 0], Xs[:, 1] - Xs[:, 0]
    a, tm = Xm[:, 0], Xm[:, 1] - Xm[:, 0]
    length = np.linalg.norm(ts, axis=1)
    radius = length + np.linalg.norm(tm, axis=1).max()
    hits = cKDTree(a + 0.5 * tm).query_ball_point(s1 + 0.5 * ts, radius)
    counts = np.fromiter((len(h) for h in hits), int, count=len(hits))
    e = np.repeat(np.arange(len(hits)), counts)
    f = np.fromiter((j for h in hits for j in h), int, count=counts.sum())
    ell2 = length[e] ** 2
    eta_a = np.einsum("pi,pi->p", a[f] - s1[e], ts[e]) / ell2
    eta_b = np.einsum("pi,pi->p", a[f] + tm[f] - s1[e], ts[e]) / ell2
    lo = np.maximum(0.0, np.minimum(eta_a, eta_b))
    hi = np.minimum(1.0, np.maximum(eta_a, eta_b))
    keep = (np.einsum("pi,pi->p", ts[e], tm[f]) < 0.0) & (hi - lo > 1e-12)
    e, f, lo, hi, eta_a, eta_b = (v[keep] for v in (e, f, lo, hi, eta_a, eta_b))
    eta = lo[:, None] + (hi - lo)[:, None] * GAUSS_1D[0]             # (p, 3)
    xi = (eta - eta_a[:, None]) / (eta_b - eta_a)[:, None]
    w = (hi - lo)[:, None] * GAUSS_1D[1] * length[e][:, None]
    Ns, Nm = facet_shapes(2, eta[..., None])[0], facet_shapes(2, xi[..., None])[0]
    rep = eta.shape[1]
    return np.repeat(e, rep), np.repeat(f, rep), Ns.reshape(-1, 2), Nm.reshape(-1, 2), w.ravel()


def _cross2(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _barycentric(x: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Barycentric coordinates of 2D points ``x`` (p, k, 2) in triangles ``tri`` (p, 3, 2): (p, k, 3)."""
    r1, r2 = (tri[:, 1] - tri[:, 0])[:, None], (tri[:, 2] - tri[:, 0])[:, None]
    d = x - tri[:, None, 0]
    det = _cross2(r1, r2)
    z1, z2 = _cross2(d, r2) / det, _cross2(r1, d) / det
    return np.stack([1.0 - z1 - z2, z1, z2], -1)


def _pieces_3d(Ts: np.ndarray, Tm: np.ndarray) -> tuple:
    """Quadrature on the overlaps of master triangles projected onto slave triangle planes.

    Returns ``(e, f, bary_s, bary_m, w)``: slave and master triangle (Q,),
    the barycentric coordinates of the points in both (Q, 3) and the
    weights (Q,) in slave area.
    """
    f, e, lines, count = facing_pairs(Tm, Ts)
    a = Ts[e, 0]
    n = np.cross(Ts[e, 1] - a, Ts[e, 2] - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    e1 = (Ts[e, 1] - a) / np.linalg.norm(Ts[e, 1] - a, axis=1)[:, None]
    e2 = np.cross(n, e1)
    d = np.concatenate([Tm[f], Ts[e]], axis=1) - a[:, None]           # (p, 6, 3)
    P = np.stack([np.einsum("pvi,pi->pv", d, e1), np.einsum("pvi,pi->pv", d, e2)], -1)
    l1, l2 = lines[..., 0], lines[..., 1]                               # (p, V)

    def point(index):
        return np.take_along_axis(P, index[..., None], axis=1)

    p1, r = point(l1), point(_LINE_END[l1]) - point(l1)
    p2, q = point(l2), point(_LINE_END[l2]) - point(l2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _cross2(p2 - p1, q) / _cross2(r, q)
    X = np.where(((l1 // 3) == (l2 // 3))[..., None], p2, p1 + t[..., None] * r)   # (p, V, 2)
    V = X.shape[1]
    first = np.arange(V)[None, :] < count[:, None]
    centre = (X * first[..., None]).sum(axis=1) / count[:, None]
    A, B = X, np.roll(X, -1, axis=1)
    area = 0.5 * _cross2(A - centre[:, None], B - centre[:, None])      # (p, V)
    lam, wr = TRIANGLE_RULE
    Y = (lam[:, 0, None] * centre[:, None, None] + lam[:, 1, None] * A[:, :, None]
         + lam[:, 2, None] * B[:, :, None]).reshape(len(e), -1, 2)      # (p, V*6, 2)
    w = (area[:, :, None] * wr).reshape(len(e), -1)
    bs, bm = _barycentric(Y, P[:, 3:]), _barycentric(Y, P[:, :3])
    k = Y.shape[1]
    return np.repeat(e, k), np.repeat(f, k), bs.reshape(-1, 3), bm.reshape(-1, 3), w.ravel()


def _triangles(X: np.ndarray) -> tuple:
    """Triangles of facets (n, nv, 3): triangles (t, 3, 3), parent facet (t,), local vertices (t, 3)."""
    if X.shape[1] == 3:
        return X, np.arange(X.shape[0]), np.broadcast_to(np.arange(3), (X.shape[0], 3))
    parent = np.repeat(np.arange(X.shape[0]), 2)
    local = np.tile(_QUAD_SPLIT, (X.shape[0], 1))
    return np.take_along_axis(X[parent], local[..., None], axis=1), parent, local


def _facet_values(X: np.ndarray, local: np.ndarray, bary: np.ndarray) -> np.ndarray:
    """Facet functions (Q, nv) at points given by barycentric coordinates in facet sub-triangles.

    ``X`` (Q, nv, 3) are the facets, ``local`` (Q, 3) the sub-triangle's
    vertices.  Triangles: the coordinates themselves.  Quadrilaterals: the
    reference point of the physical point, by Gauss-Newton from the affine
    guess (exact at once on parallelograms).
    """
    if X.shape[1] == 3:
        return bary
    ref = np.einsum("qi,qir->qr", bary, _QUAD_REF[local])
    x = np.einsum("qi,qid->qd", bary, np.take_along_axis(X, local[..., None], axis=1))
    for _ in range(20):
        N, dN = facet_shapes(4, ref)
        res = x - np.einsum("qa,qad->qd", N, X)
        J = np.einsum("qar,qad->qdr", dN, X)
        step = np.linalg.solve(np.einsum("qdr,qds->qrs", J, J),
                               np.einsum("qdr,qd->qr", J, res)[..., None])[..., 0]
        ref += step
        if np.abs(step).max(initial=0.0) < 1e-14:
            break
    return facet_shapes(4, ref)[0]


def tie_constraint(slave: ContactSurface, master: ContactSurface, bodies, name: str | None = None,
                   coverage_tol: float = 0.05) -> Tie:
    r"""The dual-mortar tie ``u_s = W u_m`` of a slave surface to a master surface.

    Parameters
    ----------
    slave, master : ContactSurface
        The two sides of the interface (:func:`fecontact.contact.surface.contact_surface`),
        with outward facets facing each other.  Take the finer or smaller side as the slave.
    bodies : sequence of ElasticBody
        The bodies, indexed by ``slave.body`` and ``master.body``.
    name : str, optional
        Name of the tie (default ``"slave body.boundary -> master body.boundary"``).
    coverage_tol : float
        Largest uncovered fraction ``1 - int_cov phi_j / int phi_j`` of a slave node.

    Returns
    -------
    Tie
        Body-local slave nodes (every node of the slave facets), master nodes
        (those with a weight) and ``W`` (s, m), rows summing to one.

    Raises
    ------
    ValueError
        For bodies of a quadratic element kind (P2), surfaces of different dimensions, slave and
        master sharing nodes, or slave nodes that the master surface does not
        cover (count and coordinates of the first ones in the message).
    """
    body_s, body_m = bodies[slave.body], bodies[master.body]
    pair = f"{body_s.name}.{slave.boundary} -> {body_m.name}.{master.boundary}"
    name = pair if name is None else name
    for body in (body_s, body_m):
        if body.kind.quadratic:
            raise ValueError(f"tie {name!r}: body {body.name!r} has quadratic ({body.element}) "
                             "elements; ties support linear facets only")
    if slave.dim != master.dim:
        raise ValueError(f"tie {name!r}: the surfaces have different dimensions")
    Fs, Fm = slave.facets.T, master.facets.T                              # (n_e, nv)
    if slave.body == master.body and np.intersect1d(Fs, Fm).size:
        raise ValueError(f"tie {name!r}: slave and master surfaces share nodes")
    xs, xm = body_s.node_coords.T, body_m.node_coords.T
    Xs, Xm = xs[Fs], xm[Fm]
    mass, A = dual_coefficients(Xs, slave.axisymmetric)
    if slave.dim == 2:
        e, f, Ns, Nm, w = _pieces_2d(Xs, Xm)
        if slave.axisymmetric:
            w = w * 2.0 * np.pi * np.einsum("qa,qa->q", Ns, Xs[e, :, 0])
    else:
        Ts, ps, ls = _triangles(Xs)
        Tm, pm, lm = _triangles(Xm)
        te, tf, bs, bm, w = _pieces_3d(Ts, Tm)
        e, f = ps[te], pm[tf]
        Ns, Nm = _facet_values(Xs[e], ls[te], bs), _facet_values(Xm[f], lm[tf], bm)
    psi = np.einsum("qil,ql->qi", A[e], Ns)
    vals = w[:, None, None] * psi[:, :, None] * Nm[:, None, :]
    rows = np.broadcast_to(Fs[e][:, :, None], vals.shape).ravel()
    cols = np.broadcast_to(Fm[f][:, None, :], vals.shape).ravel()
    M = sp.csr_matrix((vals.ravel(), (rows, cols)), shape=(xs.shape[0], xm.shape[0]))
    integral = np.bincount(Fs.ravel(), weights=mass.sum(axis=2).ravel(), minlength=xs.shape[0])
    covered = np.bincount(Fs[e].ravel(), weights=(w[:, None] * Ns).ravel(), minlength=xs.shape[0])
    nodes = np.unique(Fs)
    fraction = covered[nodes] / integral[nodes]
    bad = fraction < 1.0 - coverage_tol
    if bad.any():
        where = "; ".join("(" + ", ".join(f"{c:.6g}" for c in xs[k]) + ")" for k in nodes[bad][:5])
        raise ValueError(
            f"tie {name!r}: {int(bad.sum())} of {nodes.size} slave nodes are not covered by the "
            f"master surface (less than {1 - coverage_tol:.0%} of their shape function faces it), "
            f"first at {where}; make the smaller surface the slave or restrict the slave boundary "
            "to the glued part")
    W = M[nodes]
    W = (sp.diags(1.0 / np.asarray(W.sum(axis=1)).ravel()) @ W).tocsc()
    master_nodes = np.flatnonzero(np.diff(W.indptr))
    W = W[:, master_nodes].tocsr()
    W.eliminate_zeros()
    return Tie(name, slave.body, nodes, master.body, master_nodes, W)


def tie_boundaries(bodies, slave_body: int, slave_boundary: str, master_body: int,
                   master_boundary: str, name: str | None = None, coverage_tol: float = 0.05) -> Tie:
    """:func:`tie_constraint` of two named boundaries.

    Parameters
    ----------
    bodies : sequence of ElasticBody
    slave_body, master_body : int
        Indices into ``bodies``.
    slave_boundary, master_boundary : str
        Boundary names of the meshes.
    name : str, optional
    coverage_tol : float

    Returns
    -------
    Tie
    """
    slave = contact_surface(bodies[slave_body], slave_body, slave_boundary)
    master = contact_surface(bodies[master_body], master_body, master_boundary)
    return tie_constraint(slave, master, bodies, name, coverage_tol)
