"""Meshes of the bodies: generators by name, and element checks.

* :mod:`.generate2d` -- :func:`half_disc` (graded triangles or
  quadrilaterals, refined towards the contact point) and :func:`rectangle`;
* :mod:`.generate3d` -- :func:`hemisphere` (graded tetrahedra, refined
  towards the pole) and :func:`box` (tetrahedra or hexahedra);
* :mod:`.quality` -- corner Jacobians, degenerate and inverted elements.

All generators return scikit-fem meshes with named boundaries.  Coordinates
follow the scikit-fem convention: an array of shape ``(dim, n)``.  Elements
are oriented counter-clockwise (2D) or have positive volume (3D).

The registry :data:`GENERATORS` maps the generator names used in TOML case
files (``generator = "half_disc"``) to these functions.  Mesh files are
read by :mod:`fecontact.io.meshfile`.
"""

from __future__ import annotations

from typing import Callable, Dict

from skfem import Mesh

from .generate2d import half_disc, rectangle
from .generate3d import box, hemisphere

__all__ = ["half_disc", "rectangle", "hemisphere", "box", "GENERATORS"]


#: Generators available to case files, by name.
GENERATORS: Dict[str, Callable[..., Mesh]] = {
    "half_disc": half_disc,
    "rectangle": rectangle,
    "hemisphere": hemisphere,
    "box": box,
}
