"""Mesh generators referenced by name from TOML case files.

All generators return scikit-fem meshes with named boundaries.  Coordinates
follow the scikit-fem convention: an array of shape ``(dim, n)``.  Elements
are oriented counter-clockwise (2D) or have positive volume (3D).

The registry :data:`GENERATORS` maps the generator names used in case files
to the functions below.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import replace
from itertools import permutations
from typing import Callable, Dict

import numpy as np
from numpy.typing import ArrayLike, NDArray
from skfem import Mesh, MeshHex1, MeshQuad, MeshTet1, MeshTri

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
