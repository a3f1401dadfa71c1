"""A boundary of a body used as a contact or tie surface (:class:`SurfaceRef`, made by :meth:`fecontact.Body.surface`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contact.surface import ContactSurface

__all__ = ["SurfaceRef"]


@dataclass(frozen=True)
class SurfaceRef:
    """A boundary of a body used as a contact or tie surface.

    Attributes
    ----------
    body : Body
    boundary : str
        The boundary name in the body's mesh.
    surface : ContactSurface
        Its contact surface (body index 0 until the model numbers the bodies).
    """

    body: object            # the fecontact.Body
    boundary: str
    surface: ContactSurface = field(repr=False)
