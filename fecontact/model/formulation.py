"""Which contact formulation a pair gets: the rule behind ``formulation="auto"``.

A pair of two bodies gets mortar (:mod:`fecontact.contact.mortar2d`,
:mod:`fecontact.contact.mortar3d`, dual multipliers) wherever mortar supports
it, because it transmits a uniform pressure exactly across non-matching
meshes and its nodal pressures keep the accuracy of the finer side; node-to-
segment sends each slave force through one master point, and on unstructured
non-matching meshes its nodal pressures scatter (the measurements are on the
contact-accuracy page, the rule's record is
``docs/developer/decisions/auto-formulation.md``).  Node-to-segment is chosen

* against a rigid obstacle: its exact geometry needs no segmentation, and a
  dual-mortar weighted gap on a flat rigid master is the node-wise gap;
* with ``enforcement="penalty"`` or ``two_pass`` (node-to-segment options);
* where mortar does not apply (:func:`mortar_refusal`: quadratic elements);
* where the slave surface extends beyond the master
  (:func:`slave_beyond_master`): the dual multipliers of partly covered
  slave facets are not a local pressure, and their weighted gaps can read
  as penetration where there is none (take the smaller surface as the
  slave to get mortar);
* on matching interfaces (:func:`matching_nodes`): node-to-segment is exact
  there, and every slave node sits where mortar's weighted gap has a kink
  (the overlap of two facets starts or ends where a slave node passes a
  master node), which semismooth Newton may not cross.

On curved 2D surfaces mortar integrates on the smoothed curves of both sides
(:mod:`fecontact.contact.mortar2d_curved`, the pair's ``smoothing`` option).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..contact.obstacles import RigidObstacle


def mortar_refusal(slave, master) -> str | None:
    """Why mortar cannot take the pair, or None.

    Parameters
    ----------
    slave, master : SurfaceRef or RigidObstacle
        The pair's sides (:meth:`fecontact.Body.surface` references).

    Returns
    -------
    str or None
        The reason, worded to follow ``"formulation = 'mortar' "``.
    """
    if isinstance(master, RigidObstacle):
        return "needs a body as master, not an obstacle"
    for ref in (slave, master):
        part = ref.body.part
        if part.has_edge_nodes:
            return f"needs linear elements; body {part.name!r} is {part.element}"
    return None


#: Share of the slave nodes opposite a master node above which an interface counts as matching
MATCHING_SHARE = 0.5
#: Tangential offset, relative to the slave node's size, under which a slave node is opposite a
#: master node
MATCHING_OFFSET = 1e-3


def nodal_normals(ref) -> np.ndarray:
    """Unit nodal normals of a body surface (reference configuration), shape (n, d).

    The sum of the (unnormalised) normals of a node's facets, normalised;
    the orientation follows the facets' numbering.

    Parameters
    ----------
    ref : SurfaceRef
    """
    coords = ref.body.part.node_coords
    X = coords[:, ref.surface.facets]                                     # (d, v, n_f)
    if coords.shape[0] == 2:
        t = X[:, 1] - X[:, 0]
        facet_normal = np.stack([t[1], -t[0]])
    else:
        facet_normal = np.cross(X[:, 2] - X[:, 0], X[:, -1] - X[:, 1], axis=0)
    rows = np.searchsorted(ref.surface.nodes, ref.surface.facets)         # (v, n_f)
    normal = np.zeros((ref.surface.nodes.size, coords.shape[0]))
    for corner in rows:
        np.add.at(normal, corner, facet_normal.T)
    return normal / np.maximum(np.linalg.norm(normal, axis=1), 1e-300)[:, None]


def matching_nodes(slave, master) -> float:
    """Share of the slave nodes that lie opposite a master node (reference configuration).

    A slave node is opposite its nearest master node when their offset,
    across the bisector ``n_s - n_m`` of the two nodal normals (the direction
    in which two matching surfaces close), is less than
    :data:`MATCHING_OFFSET` times the node's size (its lumped length in 2D,
    the square root of its area in 3D).

    Parameters
    ----------
    slave, master : SurfaceRef

    Returns
    -------
    float
        In [0, 1].
    """
    xs = slave.body.part.node_coords[:, slave.surface.nodes].T             # (m, d)
    xm = master.body.part.node_coords[:, master.surface.nodes].T
    size = _node_size(slave.surface)
    if xs.shape[0] == 0 or xm.shape[0] == 0 or not np.any(size > 0):
        return 0.0
    _, nearest = cKDTree(xm).query(xs)
    n_s, n_m = nodal_normals(slave), nodal_normals(master)[nearest]
    # the facets' numbering orients both surfaces alike (outward) or both inward
    n_m *= np.where(np.einsum("md,md->m", n_s, n_m) > 0, -1.0, 1.0)[:, None]
    axis = n_s - n_m
    axis /= np.maximum(np.linalg.norm(axis, axis=1), 1e-300)[:, None]
    offset = xm[nearest] - xs
    offset -= np.einsum("md,md->m", offset, axis)[:, None] * axis
    near = np.linalg.norm(offset, axis=1) < MATCHING_OFFSET * size
    return float(np.mean(near[size > 0]))


def _node_size(surface) -> np.ndarray:
    """Lumped length (2D; :attr:`~fecontact.contact.surface.ContactSurface.length` on axisymmetric
    surfaces, whose areas carry ``2 pi r``) or square root of the nodal area (3D) of every node."""
    if surface.length is not None:
        return surface.length
    return surface.area if surface.dim == 2 else np.sqrt(surface.area)


#: Share of the slave nodes beyond the master above which mortar is not chosen (any one node)
BEYOND_SHARE = 0.0


def slave_beyond_master(slave, master) -> float:
    """Share of the slave nodes that lie beyond the master surface (reference configuration).

    A slave node is beyond the master when its offset from the nearest
    master node, across that node's normal, exceeds 1.5 times the master
    node's size (lumped length in 2D, square root of the area in 3D): it
    faces no master facet.

    Parameters
    ----------
    slave, master : SurfaceRef

    Returns
    -------
    float
        In [0, 1].
    """
    xs = slave.body.part.node_coords[:, slave.surface.nodes].T
    xm = master.body.part.node_coords[:, master.surface.nodes].T
    if xs.shape[0] == 0 or xm.shape[0] == 0:
        return 0.0
    _, nearest = cKDTree(xm).query(xs)
    n_m = nodal_normals(master)[nearest]
    offset = xs - xm[nearest]
    offset -= np.einsum("md,md->m", offset, n_m)[:, None] * n_m
    size = _node_size(master.surface)[nearest]
    return float(np.mean(np.linalg.norm(offset, axis=1) > 1.5 * size))


def choose_formulation(slave, master, enforcement: str = "multiplier",
                       two_pass: bool = False) -> tuple[str, str]:
    """The formulation ``"auto"`` stands for, and why.

    Parameters
    ----------
    slave, master : SurfaceRef or RigidObstacle
    enforcement : str
    two_pass : bool

    Returns
    -------
    formulation : {"node_to_segment", "mortar"}
    reason : str
    """
    if isinstance(master, RigidObstacle):
        return "node_to_segment", "the master is a rigid obstacle"
    if enforcement == "penalty" or two_pass:
        return "node_to_segment", "penalty and two-pass are node-to-segment options"
    refusal = mortar_refusal(slave, master)
    if refusal is not None:
        return "node_to_segment", f"mortar {refusal}"
    if slave_beyond_master(slave, master) > BEYOND_SHARE:
        return "node_to_segment", ("the slave surface extends beyond the master: mortar's dual "
                                   "multipliers on partly covered facets are not a local pressure")
    if matching_nodes(slave, master) > MATCHING_SHARE:
        return "node_to_segment", ("a matching interface: node-to-segment is exact there, and mortar's "
                                   "weighted gap has a kink at every slave node")
    if any(ref.body.part.dim == 3 and ref.surface.facets.shape[0] == 4 for ref in (slave, master)):
        return "node_to_segment", "mortar on quadrilateral facets is chosen only on request"
    return "mortar", "two bodies of linear elements"
