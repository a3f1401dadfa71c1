r"""Tied (glued) interfaces as linear constraints eliminated from the unknowns.

A tie glues the slave nodes of an interface to master nodes of another body
(or of the same body), the same linear combination for every displacement
component:

.. math::  u_s = \sum_k W_{sk}\, u_{m_k}.

The weights come from the dual mortar method
(:func:`fecontact.contact.tie.tie_constraint`).  :func:`tie_map` turns a set
of ties into the sparse *tie map* ``S`` (n, n): the identity on untied DOFs,
on a tied slave DOF the weights of its master DOFs, so that every
displacement satisfying the ties is ``u = S u``.
:func:`fecontact.bodies.system.build_system` eliminates the slave DOFs with
it: ``T = S T_0`` and ``u_D = S u_D^0``, where ``T_0`` and ``u_D^0`` are the
constraint map and the imposed values without the ties.  A master DOF may be
free, imposed or coupled, or tied in turn (chains are composed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Tie:
    r"""Slave nodes of one body glued to master nodes: ``u[s_i] = sum_k W_ik u[m_k]`` per component.

    Built by :func:`fecontact.contact.tie.tie_constraint` (dual mortar).  In
    :func:`fecontact.bodies.system.build_system` a slave DOF that a Dirichlet
    condition or a coupling already constrains keeps that constraint and drops
    the tie: a support across the interface (a symmetry plane, a clamped face
    cut by the interface) prescribes the slave DOF as well as its masters.

    Attributes
    ----------
    name : str
    slave_body, master_body : int
        Body indices, as :attr:`fecontact.bodies.conditions.Dirichlet.body`.
    slave_nodes : ndarray of int, shape (s,)
        Body-local DOF nodes of the slave body, unique.
    master_nodes : ndarray of int, shape (m,)
        Body-local DOF nodes of the master body, unique.
    weights : csr_matrix, shape (s, m)
        ``W``, its rows summing to one (rigid translations pass the tie).
    """

    name: str
    slave_body: int
    slave_nodes: np.ndarray
    master_body: int
    master_nodes: np.ndarray
    weights: sp.csr_matrix


def tie_map(ties, dim: int, node_offset: np.ndarray, constrained: np.ndarray) -> tuple:
    r"""The tie map ``S`` and the tied slave DOFs of a set of ties.

    Row ``dim*k + c`` of a tied slave node ``k`` holds ``W_ki`` at the DOFs
    ``dim*m_i + c`` of its masters.  Chains of ties (a master tied in turn)
    are composed, ``S <- S S``, until no row refers to a tied DOF.

    Parameters
    ----------
    ties : sequence of Tie
    dim : int
    node_offset : ndarray of int, shape (n_bodies + 1,)
        Global number of each body's first node.
    constrained : ndarray of bool, shape (n,)
        DOFs imposed or coupled already: not tied, even on a slave node.

    Returns
    -------
    S : csr_matrix, shape (n, n)
    tied : ndarray of bool, shape (n,)

    Raises
    ------
    ValueError
        For a DOF that is the slave of two ties, or ties in a cycle.
    """
    n = constrained.size
    tied, parts = np.zeros(n, dtype=bool), []
    for tie in ties:
        W = tie.weights.tocoo()
        s, m = (dim * (node_offset[b] + np.asarray(nodes)[k])[:, None] + np.arange(dim)
                for b, nodes, k in ((tie.slave_body, tie.slave_nodes, W.row),
                                    (tie.master_body, tie.master_nodes, W.col)))
        keep = ~constrained[s]
        slave = np.unique(s[keep])
        if tied[slave].any():
            raise ValueError(f"tie {tie.name!r}: {int(tied[slave].sum())} slave DOFs are tied by "
                             "another tie already; a node can be the slave of one tie only")
        tied[slave] = True
        parts.append((s[keep], m[keep], np.repeat(W.data, dim).reshape(-1, dim)[keep]))
    rows, cols, vals = (np.concatenate([p[i] for p in parts]) if parts else np.zeros(0)
                        for i in range(3))
    S = (sp.csr_matrix((vals, (rows.astype(int), cols.astype(int))), shape=(n, n))
         + sp.diags(1.0 * ~tied)).tocsr()
    for _ in range(len(ties) + 1):
        if not S[:, np.flatnonzero(tied)].nnz:
            return S, tied
        S = (S @ S).tocsr()
    raise ValueError("ties form a cycle: a slave node is its own master through other ties")
