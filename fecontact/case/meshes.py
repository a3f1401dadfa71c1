"""Mesh tables of a case file: the typed parameters of each generator, and what a mesh would cost.

A body's ``mesh`` table is a mesh ``file`` or a ``generator`` of
:data:`fecontact.mesh.GENERATORS` with its keyword arguments; each generator
has a struct here whose fields are the generator's parameters with their
types and ranges (a test keeps the two in step).  :func:`mesh_estimate`
estimates the elements and DOFs a generator table would make, from the
element size it asks for, so a case that cannot fit in this machine's
memory is refused with the estimate in the message before anything is
allocated.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from msgspec import UNSET, Meta, Struct, UnsetType

from ..fields import LIMIT, Count, Number, Positive
from ..solve.choice import memory_bytes

__all__ = ["MESH_TABLES", "MeshFile", "mesh_dimension", "mesh_estimate", "memory_bytes",
           "BYTES_PER_DOF"]

Grading = Annotated[float, Meta(gt=1, le=LIMIT, description="size growth per element, > 1")]
Point2 = Annotated[list[Number], Meta(min_length=2, max_length=2)]
Point3 = Annotated[list[Number], Meta(min_length=3, max_length=3)]
Side = Literal["lower", "upper"]
#: Memory a DOF takes in a solve, bytes (3D P1, amg, one increment: 3.39 kB measured at 3M DOFs on
#: docs/scaling.md, with a fifth more for the meshing and the estimate of the element count)
BYTES_PER_DOF = 4000


class _Mesh(Struct, forbid_unknown_fields=True, frozen=True, kw_only=True, tag_field="generator"):
    """A mesh table; ``generator`` names its kind."""


class MeshFile(_Mesh, tag="file"):
    """A mesh file: Gmsh ``.msh`` (physical groups), Exodus II ``.exo``/``.e``/``.ex2`` (side sets, node sets, element blocks) or Abaqus ``.inp`` (surfaces, node and element sets) name the boundaries and subdomains; or any format meshio reads."""

    file: Annotated[str, Meta(min_length=1, description="path, relative to the case file")]
    coarse: Annotated[str, Meta(min_length=1, description="a coarser mesh of the same body, same boundary names (nested iteration; path relative to the case file)")] | UnsetType = UNSET


class _Graded(_Mesh):
    """The parameters the graded generators share (``h(x) = min(h_far, h_contact + (g - 1) d(x))``)."""

    radius: Positive | UnsetType = UNSET
    side: Side | UnsetType = UNSET
    h_contact: Positive | UnsetType = UNSET
    h_far: Positive | UnsetType = UNSET
    refine_width: Positive | UnsetType = UNSET
    grading: Grading | UnsetType = UNSET


class HalfDisc(_Graded, tag="half_disc"):
    """Graded triangles (or quadrilaterals) of a half disc, refined towards its contact point."""

    center: Point2 | UnsetType = UNSET
    element: Literal["tri", "quad"] | UnsetType = UNSET


class Rectangle(_Mesh, tag="rectangle"):
    """Structured triangles or quadrilaterals of ``[x0, x1] x [y0, y1]``."""

    x0: Number
    x1: Number
    y0: Number
    y1: Number
    nx: Count
    ny: Count
    element: Literal["tri", "quad"] | UnsetType = UNSET
    angle: Number | UnsetType = UNSET


class Hemisphere(_Graded, tag="hemisphere"):
    """Graded tetrahedra of a half ball, refined towards its pole."""

    center: Point3 | UnsetType = UNSET


class Box(_Mesh, tag="box"):
    """Structured tetrahedra or hexahedra of a box."""

    x0: Number
    x1: Number
    y0: Number
    y1: Number
    z0: Number
    z1: Number
    nx: Count
    ny: Count
    nz: Count
    element: Literal["tet", "hex"] | UnsetType = UNSET


#: Mesh table kinds: a file, or one per generator
MESH_TABLES = (MeshFile, HalfDisc, Rectangle, Hemisphere, Box)
_DIMENSION = {HalfDisc: 2, Rectangle: 2, Hemisphere: 3, Box: 3}


def mesh_dimension(table) -> int | None:
    """2 or 3 for a generator table; None for a mesh file (known once it is read)."""
    return _DIMENSION.get(type(table))


def _graded_elements(table, dim: int) -> float:
    """Elements of a graded half disc or half ball, from ``h(x) = min(h_far, h_c + (g - 1) d(x))``.

    ``d`` is the distance to the contact arc (cap): the part of the circle
    (sphere) within horizontal distance ``refine_width`` of the pole.  The
    element count is ``int dV / v(h(x))`` with ``v`` the volume of an
    equilateral triangle (regular tetrahedron) of edge ``h``, integrated on
    an axisymmetric grid of 200 x 200 points, and doubled: the
    red-green-blue refinement halves elements until they are below
    ``h(x)``, so they lie between ``h/2`` and ``h``.
    """
    get = lambda key, default: default if getattr(table, key) is UNSET else getattr(table, key)
    radius, h_c = get("radius", 1.0), get("h_contact", 0.01)
    h_far = get("h_far", 0.1 if dim == 2 else 0.15)
    width, grading = get("refine_width", 0.3), get("grading", 1.3)
    rho, z = np.meshgrid(np.linspace(0, 1, 201)[1:] - 0.0025, np.linspace(-1, 0, 201)[1:] - 0.0025)
    rho, z = rho * radius, z * radius                     # cell centres, pole at (0, -radius)
    inside = rho**2 + z**2 <= radius**2
    rim = math.asin(min(width / radius, 1.0))
    polar = np.arctan2(rho, -z)
    r = np.hypot(rho, z)
    d_rim = np.hypot(rho - radius * math.sin(rim), z + radius * math.cos(rim))
    dist = np.where(polar <= rim, np.abs(radius - r), d_rim)
    h = np.minimum(h_far, h_c + (grading - 1.0) * dist)
    cell = (radius / 200) ** 2
    if dim == 2:
        per = 2 * cell / (math.sqrt(3) / 4 * h**2)        # both halves, x < 0 and x > 0
        elements = per[inside].sum() * (3 if get("element", "tri") == "quad" else 1)
    else:
        per = 2 * math.pi * rho * cell / (h**3 / (6 * math.sqrt(2)))
        elements = per[inside].sum()
    return 2.0 * float(elements)


def mesh_estimate(table) -> tuple[float, float] | None:
    """``(elements, DOFs)`` a generator table would make (P1/Q1), or None for a mesh file.

    Exact for the structured generators; within about 15 % for the graded
    ones on the bundled cases (25 % for meshes of under 1000 elements).
    """
    if isinstance(table, Rectangle):
        elements = table.nx * table.ny * (1 if table.element == "quad" else 2)
        return float(elements), 2.0 * (table.nx + 1) * (table.ny + 1)
    if isinstance(table, Box):
        elements = table.nx * table.ny * table.nz * (1 if table.element == "hex" else 6)
        return float(elements), 3.0 * (table.nx + 1) * (table.ny + 1) * (table.nz + 1)
    if isinstance(table, HalfDisc):
        elements = _graded_elements(table, 2)
        return elements, 2.0 * elements * (1.0 if table.element == "quad" else 0.5)
    if isinstance(table, Hemisphere):
        elements = _graded_elements(table, 3)
        return elements, 3.0 * elements / 4.8
    return None


