"""Facet-to-facet (mortar) kinematics of a 3D contact pair in global numbering.

Chooses the integration by the facets of the two surfaces: triangles on
triangles (:mod:`fecontact.contact.mortar3d`), any other combination of
triangles and bilinear quadrilaterals (:mod:`fecontact.contact.mortar3d_quad`);
and maps the rows' local slots to global DOFs (:func:`slot_dofs`, also used
by the 2D mortar pairs of :mod:`fecontact.contact.pairs`).
"""

from __future__ import annotations

import numpy as np

from ..bodies.system import BulkSystem
from .kinematics2d import LocalKinematics
from .kinematics3d import tangent_basis
from .mortar3d import weighted_kinematics as weighted_kinematics3d
from .mortar3d_quad import weighted_kinematics as weighted_kinematics_quad
from .surface import ContactSurface


def slot_dofs(system: BulkSystem, slave: ContactSurface, master_points: np.ndarray,
              slots: np.ndarray) -> np.ndarray:
    """Global DOFs of mortar slots, shape (m, P * n_p * dim), ``-1`` in unused slots.

    ``slots`` (m, P, n_p) holds slave rows ``0..m-1`` and master points
    ``m + j`` (global node ``master_points[j]``), ``-1`` where unused.
    """
    nodes = np.concatenate([system.global_nodes(slave.body, slave.nodes), master_points, [-1]])
    node = nodes[np.where(slots >= 0, slots, nodes.size - 1)]
    dofs = system.node_dofs(np.maximum(node, 0).ravel()).reshape(node.shape + (system.dim,))
    return np.where(node[..., None] >= 0, dofs, -1).reshape(slots.shape[0], -1)


def facet_mortar(slave: ContactSurface, master: ContactSurface, system: BulkSystem, xs, xs0, x, x0,
                 tangent0, reference, nts: LocalKinematics) -> tuple:
    """Mortar kinematics of the slave nodes of a 3D pair of triangle or quadrilateral surfaces.

    Parameters
    ----------
    slave, master : ContactSurface
    system : BulkSystem
    xs, xs0 : ndarray, shape (m, 3)
        Current and start-of-step slave node coordinates.
    x, x0 : ndarray, shape (3, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    tangent0, reference : ndarray or None
        Start-of-step slip directions and reference directions of the tangent bases.
    nts : LocalKinematics
        Node-to-facet kinematics of the same nodes: the normal, tangents and
        distance of nodes no master facet covers.

    Returns
    -------
    local : LocalKinematics
    dofs : ndarray of int, shape (m, k)
    """
    rows = np.searchsorted(slave.nodes, slave.facets)                     # (v, n_e)
    G = system.global_nodes(master.body, master.facets.ravel()).reshape(master.facets.shape)
    nodes, ids = np.unique(G, return_inverse=True)
    X = system.bodies[slave.body].node_coords[:, slave.facets]            # (3, v, n_e)
    # triangles on triangles (reference areas), else the general integration (reference vertices)
    kinematics, ref = weighted_kinematics_quad, np.transpose(X, (2, 1, 0))
    if slave.facets.shape[0] == 3 and master.facets.shape[0] == 3:
        kinematics = weighted_kinematics3d
        ref = 0.5 * np.linalg.norm(np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0], axis=0), axis=0)
    local, slots = kinematics(
        np.transpose(xs[rows], (1, 0, 2)), np.transpose(xs0[rows], (1, 0, 2)), rows.T,
        np.transpose(x[:, G], (2, 1, 0)), np.transpose(x0[:, G], (2, 1, 0)), ids.reshape(G.shape).T,
        ref, nts.tangent if tangent0 is None else tangent0, slave.area,
        np.abs(nts.gap), nts.normal, nts.tangent, lambda nrm: tangent_basis(nrm, reference))
    # master point m + i is the master node nodes[i]
    return local, slot_dofs(system, slave, nodes, slots)
