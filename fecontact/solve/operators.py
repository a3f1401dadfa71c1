"""Sparse contact operators: the kinematic operator ``B`` (derivatives of gap and slip), the geometric stiffness of contact,
and the force operator of quadratic slave surfaces (``B`` with each node's own slave columns spread over its facets)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..contact.pairs import PairKinematics


def block_diagonal(blocks: np.ndarray) -> sp.csr_matrix:
    """Sparse block-diagonal matrix from dense blocks of shape (m, p, q)."""
    m, p, q = blocks.shape
    rows = (np.arange(m)[:, None, None] * p + np.arange(p)[None, :, None]).repeat(q, axis=2)
    cols = (np.arange(m)[:, None, None] * q + np.arange(q)[None, None, :]).repeat(p, axis=1)
    return sp.csr_matrix((blocks.ravel(), (rows.ravel(), cols.ravel())), shape=(m * p, m * q))


def kinematic_operator(kin: PairKinematics, n_dofs: int) -> sp.csr_matrix:
    """``B``: rows ``(g_n, Delta s)`` of each node, columns global DOFs; shape (m*d, n)."""
    L = kin.local
    grads = np.concatenate([L.d_gap[:, None, :], L.d_slip], axis=1)     # (m, d, k)
    m, d, k = grads.shape
    rows = np.broadcast_to(np.arange(m * d).reshape(m, d, 1), grads.shape)
    cols = np.broadcast_to(kin.dofs[:, None, :], grads.shape)
    keep = cols >= 0
    return sp.csr_matrix((grads[keep], (rows[keep], cols[keep])), shape=(m * d, n_dofs))


def geometric_stiffness(kin: PairKinematics, weights: np.ndarray, n_dofs: int) -> sp.csr_matrix:
    """``sum_i w_i . Hessian(g_n, Delta s)_i`` with ``weights`` shape (m, d)."""
    L = kin.local
    hess = np.einsum("m,mkl->mkl", weights[:, 0], L.h_gap) + np.einsum("mq,mqkl->mkl", weights[:, 1:], L.h_slip)
    rows = np.broadcast_to(kin.dofs[:, :, None], hess.shape)
    cols = np.broadcast_to(kin.dofs[:, None, :], hess.shape)
    keep = (rows >= 0) & (cols >= 0)
    return sp.csr_matrix((hess[keep], (rows[keep], cols[keep])), shape=(n_dofs, n_dofs))


def slave_spread(system, pair) -> sp.csr_matrix | None:
    """``Q`` with ``Q[dof(i, c), dof(j, c)] = D_ji / A_i`` for a pair whose slave surface has force weights.

    Right-multiplying the slave node's own columns of ``B`` by ``Q`` moves
    the force ``A_i lam_i`` of node ``i`` onto the nodes ``j`` of its facets
    as ``D_ji lam_i`` (:mod:`fecontact.contact.surface`); shape
    (n_dofs, n_dofs); ``None`` when the forces stay on the node itself.
    """
    D = pair.slave.force_weights
    if D is None:
        return None
    D = D.tocoo()
    dofs = system.node_dofs(system.global_nodes(pair.slave.body, pair.slave.nodes))   # (n, d)
    w = D.data / pair.slave.area[D.col]
    d = dofs.shape[1]
    return sp.csr_matrix((np.repeat(w, d), (dofs[D.col].ravel(), dofs[D.row].ravel())),
                         shape=(system.n_dofs,) * 2)


def _own_entries(node: np.ndarray, dof: np.ndarray, own_dofs: np.ndarray, spreading: np.ndarray):
    """Mask of the entries (contact node ``node``, DOF ``dof``) at a node's own slave DOFs.

    Only nodes with ``spreading[node]`` set count; shape of ``node``.
    """
    return spreading[node] & np.any(dof[:, None] == own_dofs[node], axis=1)


def spread_force_operator(B: sp.spmatrix, own_dofs: np.ndarray, spreads: list) -> sp.csr_matrix:
    """``B_f``: ``B`` with each spreading pair's own slave columns right-multiplied by its ``Q``.

    The contact forces are ``B_f^T A lam``; the gaps and slips keep ``B``.

    Parameters
    ----------
    B : sparse, shape (m*d, n_dofs)
        Kinematic operator (:func:`kinematic_operator`).
    own_dofs : ndarray of int, shape (m, d)
        Global DOFs of each contact node's own slave node.
    spreads : list of (slice, sparse)
        Rows (contact nodes) of each spreading pair and its
        :func:`slave_spread` ``Q``.
    """
    if not spreads:
        return B.tocsr()
    m, d = own_dofs.shape
    coo = B.tocoo()
    node = coo.row // d
    out = None
    moved = np.zeros(coo.data.size, dtype=bool)
    for rows, Q in spreads:
        mask = np.zeros(m, dtype=bool)
        mask[rows] = True
        own = _own_entries(node, coo.col, own_dofs, mask)
        part = sp.csr_matrix((coo.data[own], (coo.row[own], coo.col[own])), shape=B.shape) @ Q
        out = part if out is None else out + part
        moved |= own
    keep = ~moved
    return (sp.csr_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=B.shape) + out).tocsr()


def spread_geometric_stiffness(G_parts: tuple, spreads: list) -> sp.csr_matrix:
    """``G_f = G_rest + sum_p Q_p^T G_own,p`` from :func:`geometric_stiffness_parts`."""
    rest, owns = G_parts
    out = rest
    for (rows, Q), G_own in zip(spreads, owns):
        out = out + (Q.T @ G_own)
    return out.tocsr()


def geometric_stiffness_parts(kin: PairKinematics, weights: np.ndarray, n_dofs: int,
                              own_dofs: np.ndarray, spreads: list) -> tuple:
    """:func:`geometric_stiffness` split into the rows that stay and each spreading pair's own rows."""
    L = kin.local
    hess = np.einsum("m,mkl->mkl", weights[:, 0], L.h_gap) + np.einsum("mq,mqkl->mkl", weights[:, 1:], L.h_slip)
    m, k, _ = hess.shape
    rows = np.broadcast_to(kin.dofs[:, :, None], hess.shape)
    cols = np.broadcast_to(kin.dofs[:, None, :], hess.shape)
    node = np.broadcast_to(np.arange(m)[:, None, None], hess.shape)
    keep = (rows >= 0) & (cols >= 0)
    h, r, c, nd = hess[keep], rows[keep], cols[keep], node[keep]
    moved = np.zeros(h.size, dtype=bool)
    owns = []
    for rows_, Q in spreads:
        mask = np.zeros(m, dtype=bool)
        mask[rows_] = True
        own = _own_entries(nd, r, own_dofs, mask)
        owns.append(sp.csr_matrix((h[own], (r[own], c[own])), shape=(n_dofs, n_dofs)))
        moved |= own
    rest = sp.csr_matrix((h[~moved], (r[~moved], c[~moved])), shape=(n_dofs, n_dofs))
    return rest, owns
