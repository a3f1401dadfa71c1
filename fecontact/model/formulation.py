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
* where mortar does not apply (:func:`mortar_refusal`: quadratic elements).
"""

from __future__ import annotations

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
    if any(ref.body.part.dim == 3 and ref.surface.facets.shape[0] == 4 for ref in (slave, master)):
        return "node_to_segment", "mortar on quadrilateral facets is chosen only on request"
    return "mortar", "two bodies of linear elements"
