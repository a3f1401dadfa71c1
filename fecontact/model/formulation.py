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
* on a curved 2D master (:func:`curved_master_2d`): node-to-segment measures
  the gap on the master's smoothed curve (:mod:`fecontact.contact.smoothing`),
  the straight-segment mortar on the chords of both sides, whose sag is then
  a share of the gaps.
"""

from __future__ import annotations

from ..contact.obstacles import RigidObstacle
from ..contact.smoothing import master_chain, smoothing_active


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


def curved_master_2d(master, smoothing: str) -> bool:
    """Whether ``master`` is a 2D body surface its ``smoothing`` option smooths (a curved chain).

    Parameters
    ----------
    master : SurfaceRef or RigidObstacle
    smoothing : str
        :data:`fecontact.contact.smoothing.SMOOTHINGS`.
    """
    if isinstance(master, RigidObstacle) or master.body.dim != 2:
        return False
    chain = master_chain(master.surface.facets, master.body.part.node_coords)
    return smoothing_active(smoothing, chain)


def choose_formulation(slave, master, enforcement: str = "multiplier",
                       two_pass: bool = False, smoothing: str = "auto") -> tuple[str, str]:
    """The formulation ``"auto"`` stands for, and why.

    Parameters
    ----------
    slave, master : SurfaceRef or RigidObstacle
    enforcement : str
    two_pass : bool
    smoothing : str
        The pair's master smoothing option.

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
    if curved_master_2d(master, smoothing):
        return "node_to_segment", ("a curved 2D master: node-to-segment measures the gap on its "
                                   "smoothed curve, mortar on the chords of both sides")
    if any(ref.body.part.dim == 3 and ref.surface.facets.shape[0] == 4 for ref in (slave, master)):
        return "node_to_segment", "mortar on quadrilateral facets is chosen only on request"
    return "mortar", "two bodies of linear elements"
