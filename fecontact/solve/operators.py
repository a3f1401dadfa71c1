"""Sparse contact operators: the kinematic operator ``B`` (derivatives of the contact rows' gap and slip)
and the geometric stiffness of contact.

Where the contact rows combine several nodes' kinematics (quadratic 3D
slave surfaces, :attr:`fecontact.contact.pairs.PairKinematics.row_map`),
``B = M B_nodes`` and the geometric stiffness weighs each node's Hessians
with ``M^T w``; the contact forces are ``B^T A lam`` either way."""

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
    B = sp.csr_matrix((grads[keep], (rows[keep], cols[keep])), shape=(m * d, n_dofs))
    return B if kin.row_map is None else (kin.row_map @ B).tocsr()


def geometric_stiffness(kin: PairKinematics, weights: np.ndarray, n_dofs: int) -> sp.csr_matrix:
    """``sum_i w_i . Hessian(g_n, Delta s)_i`` of the contact rows, ``weights`` shape (m, d)."""
    L = kin.local
    if kin.row_map is not None:
        weights = (kin.row_map.T @ weights.ravel()).reshape(weights.shape)
    hess = np.einsum("m,mkl->mkl", weights[:, 0], L.h_gap) + np.einsum("mq,mqkl->mkl", weights[:, 1:], L.h_slip)
    rows = np.broadcast_to(kin.dofs[:, :, None], hess.shape)
    cols = np.broadcast_to(kin.dofs[:, None, :], hess.shape)
    keep = (rows >= 0) & (cols >= 0)
    return sp.csr_matrix((hess[keep], (rows[keep], cols[keep])), shape=(n_dofs, n_dofs))
