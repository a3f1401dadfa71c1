"""Rigid pieces of a bulk system and the rigid-body motions no support removes.

A *piece* is a connected part of one body's mesh (elements sharing a node).
A body is usually one piece, but a mesh can hold several disconnected
pieces, and each moves rigidly on its own: the rigid-body modes of the
system are those of its pieces.  Ties glue pieces of different bodies into
one rigid group.  :func:`free_modes` gives, per group, the rigid motions
that no Dirichlet condition, coupling or spring removes; contact must hold
them in a quasi-static analysis (:func:`fecontact.model.checks.rigid_mode_findings`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

__all__ = ["node_pieces", "rigid_groups", "group_free_modes", "rigid_motions"]


def rigid_motions(X: np.ndarray, axisymmetric: bool = False) -> np.ndarray:
    """Rigid-body motions of nodes at ``X`` (dim, n), interleaved DOFs: shape (dim*n, 3 or 6).

    The ``dim`` translations, then the rotations about the centroid (one in
    2D; about z, x and y in 3D: ``(x, y) -> (-y, x)`` in the planes (0, 1),
    (1, 2), (2, 0)).  A body of revolution (``axisymmetric``, nodes in the
    ``(r, z)`` plane) has one: the translation along the axis, shape (2*n, 1)
    (a radial motion strains the hoops).
    """
    dim, n = X.shape
    if axisymmetric:
        modes = np.zeros((dim * n, 1))
        modes[1::dim, 0] = 1.0
        return modes
    Y = X - X.mean(axis=1, keepdims=True)
    planes = [(0, 1)] if dim == 2 else [(0, 1), (1, 2), (2, 0)]
    modes = np.zeros((dim * n, dim + len(planes)))
    for c in range(dim):
        modes[c::dim, c] = 1.0
    for k, (a, b) in enumerate(planes):
        modes[a::dim, dim + k] = -Y[b]
        modes[b::dim, dim + k] = Y[a]
    return modes


def node_pieces(body) -> np.ndarray:
    """The connected piece of each DOF node of a body, labels 0, 1, ..., shape (n_nodes,).

    Vertices are connected through the elements they share; any other DOF
    node (the midside nodes of quadratic elements) belongs to the piece of
    its elements.
    """
    t = body.mesh.t
    n_vertices = body.mesh.p.shape[1]
    rows = np.repeat(t[:1], t.shape[0] - 1, axis=0).ravel()
    graph = sp.coo_matrix((np.ones(rows.size), (rows, t[1:].ravel())),
                          shape=(n_vertices, n_vertices))
    _, labels = connected_components(graph, directed=False)
    if body.n_nodes > n_vertices:                  # other DOF nodes: the piece of their elements
        nodes = body.basis.element_dofs // body.dim                 # (dofs per element, n_elements)
        labels = np.concatenate([labels, np.zeros(body.n_nodes - n_vertices, dtype=labels.dtype)])
        labels[nodes] = labels[t[0]]
    return labels


def rigid_groups(system) -> list:
    """Global node numbers of each rigid group: a piece, or pieces glued together by ties.

    Returns
    -------
    list of ndarray of int
    """
    labels, offset = [], 0
    for b, body in enumerate(system.bodies):
        local = node_pieces(body)
        labels.append(local + offset)
        offset += int(local.max()) + 1
    label = np.concatenate(labels)                 # piece of every global node
    group = np.arange(offset)
    for tie in system.ties:
        slave = label[system.global_nodes(tie.slave_body, tie.slave_nodes)]
        master = label[system.global_nodes(tie.master_body, tie.master_nodes)]
        for piece in np.unique(np.concatenate([slave, master])):
            group[group == group[piece]] = group[slave[0]]
    return [np.flatnonzero(group[label] == g) for g in np.unique(group)]


def group_free_modes(system, nodes: np.ndarray) -> tuple:
    """Rigid-body modes of a group of nodes that no Dirichlet condition, coupling or spring removes.

    A mode (translations, and rotations about the centroid) survives when it
    vanishes on every Dirichlet DOF of the group, is uniform on every
    coupling and does not stretch a spring, i.e. when it lies in the null
    space of the matrix of the modes' values there.

    Parameters
    ----------
    system : BulkSystem
    nodes : ndarray of int
        Global node numbers of the group (from :func:`rigid_groups`).

    Returns
    -------
    modes : ndarray, shape (n_group_dofs, r)
        Surviving modes (``r = 0`` for a supported group).
    dofs : ndarray of int, shape (n_group_dofs,)
        The group's DOFs in full numbering (the rows of ``modes``).
    """
    dofs = system.node_dofs(nodes).ravel()
    local = np.full(system.n_dofs, -1)
    local[dofs] = np.arange(dofs.size)
    X = system.reference_coords()[:, nodes]
    values = rigid_motions(X, any(b.axisymmetric for b in system.bodies))   # (group dofs, n_modes)
    rows = []
    for bc in system.dirichlet:
        d = local[system.node_dofs(system.global_nodes(bc.body, bc.nodes))[:, list(bc.components)]]
        d = d[d >= 0]
        rows.append(values[d])
    for cp in system.couplings:
        d = local[system.node_dofs(system.global_nodes(cp.body, cp.nodes))[:, cp.component]]
        v = values[d[d >= 0]]
        rows.append(v - v[:1])
    for spring in system.springs:
        if np.all(local[spring.dofs] >= 0):
            rows.append(spring.weights[None, :] @ values[local[spring.dofs]])
    M = np.vstack(rows) if rows else np.zeros((0, values.shape[1]))
    scale = max(np.abs(X - X.mean(axis=1, keepdims=True)).max(), 1.0)
    rank = np.linalg.matrix_rank(M / scale, tol=1e-10) if M.size else 0
    if rank == values.shape[1]:
        return np.zeros((values.shape[0], 0)), dofs
    _, _, vt = np.linalg.svd(np.vstack([M / scale, np.zeros((1, values.shape[1]))]))
    return values @ vt[rank:].T, dofs
