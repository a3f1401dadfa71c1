"""Gmsh meshes of docs/make_axisymmetric.py, in the ``(r, z)`` half plane (``r >= 0``): the
section of a sphere on a flat, of a hub on a shaft, each body written by Gmsh as a ``.msh``
file with physical groups for its boundaries (unstructured triangles)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contact_accuracy_meshes import _graded_size, _name_planes, gmsh_model


@dataclass(frozen=True)
class SectionSize:
    """Mesh sizes of the sphere-on-flat section: ``h_pole`` within ``fine`` of the pole (the
    first contact point, the origin), growing to ``h_far`` at ``fine + ramp``; the sphere is
    cut at ``z = height``, the flat is ``[0, side] x [-depth, 0]``."""

    h_pole: float
    h_far: float
    fine: float
    ramp: float
    height: float = 5.0
    side: float = 10.0
    depth: float = 10.0


def _origin(gmsh) -> int:
    return [t for _, t in gmsh.model.getEntitiesInBoundingBox(-1e-7, -1e-7, -1e-7, 1e-7, 1e-7, 1e-7, 0)][0]


def sphere_section(path: Path, size: SectionSize, R: float) -> Path:
    """Section ``r >= 0`` of the sphere ``|x - (0, R)| <= R`` below ``z = height``, triangles graded
    from the pole (0, 0); boundaries ``axis`` (r = 0), ``top`` (z = height), ``surface``."""
    with gmsh_model("sphere_section") as gmsh:
        occ = gmsh.model.occ
        disc = occ.addDisk(0.0, R, 0.0, R, R)
        box = occ.addRectangle(0.0, 0.0, 0.0, 2.0 * R, size.height)
        (surface,), _ = occ.intersect([(2, disc)], [(2, box)])
        occ.synchronize()
        _name_planes(gmsh, {(0, 0.0): "axis", (1, size.height): "top", "other": "surface"}, dim=1)
        gmsh.model.addPhysicalGroup(2, [surface[1]], name="sphere")
        _graded_size(gmsh, _origin(gmsh), size.h_pole, size.h_far, size.fine, size.ramp)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def flat_section(path: Path, size: SectionSize) -> Path:
    """The flat ``[0, side] x [-depth, 0]`` graded from the origin; boundaries ``axis``, ``top``
    (z = 0), ``bottom``, ``side``."""
    with gmsh_model("flat_section") as gmsh:
        occ = gmsh.model.occ
        box = occ.addRectangle(0.0, -size.depth, 0.0, size.side, size.depth)
        occ.synchronize()
        _name_planes(gmsh, {(0, 0.0): "axis", (1, 0.0): "top", (1, -size.depth): "bottom",
                            "other": "side"}, dim=1)
        gmsh.model.addPhysicalGroup(2, [box], name="flat")
        _graded_size(gmsh, _origin(gmsh), size.h_pole, size.h_far, size.fine, size.ramp)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def ring_section(path: Path, r_in: float, r_out: float, length: float, h: float, h_face: float,
                 face: str) -> Path:
    """The rectangle ``[r_in, r_out] x [0, length]`` (a tube's section), triangles of size ``h``,
    ``h_face`` on the face ``face`` (``"inner"`` or ``"outer"``); boundaries ``inner``, ``outer``,
    ``bottom``, ``top``."""
    with gmsh_model("ring_section") as gmsh:
        occ = gmsh.model.occ
        box = occ.addRectangle(r_in, 0.0, 0.0, r_out - r_in, length)
        occ.synchronize()
        _name_planes(gmsh, {(0, r_in): "inner", (0, r_out): "outer", (1, 0.0): "bottom",
                           (1, length): "top", "other": "other"}, dim=1)
        gmsh.model.addPhysicalGroup(2, [box], name="ring")
        field = gmsh.model.mesh.field
        dist = field.add("Distance")
        fine = [t for _, t in gmsh.model.getEntities(1)
                if abs(gmsh.model.getBoundingBox(1, t)[0] - (r_in if face == "inner" else r_out)) < 1e-5
                and abs(gmsh.model.getBoundingBox(1, t)[3] - gmsh.model.getBoundingBox(1, t)[0]) < 1e-5]
        field.setNumbers(dist, "CurvesList", fine)
        thr = field.add("Threshold")
        field.setNumber(thr, "InField", dist)
        for key, value in (("SizeMin", h_face), ("SizeMax", h), ("DistMin", 0.0),
                           ("DistMax", 0.5 * (r_out - r_in))):
            field.setNumber(thr, key, value)
        field.setAsBackgroundMesh(thr)
        for key in ("MeshSizeExtendFromBoundary", "MeshSizeFromPoints", "MeshSizeFromCurvature"):
            gmsh.option.setNumber(f"Mesh.{key}", 0)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def cylinder_flat_quarter(path: Path, size, radius: float, depth: float) -> Path:
    """3D: the quarter ``x, y >= 0`` of the cylinder of ``radius`` about the z axis, ``-depth <= z <= 0``
    (the revolved :func:`flat_section`), tetrahedra graded from the origin as the 3D sphere of
    docs/contact_accuracy_meshes.py (``size``: its ``SphereSize``); boundaries ``xsym``, ``ysym``,
    ``top`` (z = 0), ``bottom``, ``side``."""
    with gmsh_model("cylinder_flat") as gmsh:
        occ = gmsh.model.occ
        cylinder = occ.addCylinder(0.0, 0.0, -depth, 0.0, 0.0, depth, radius)
        box = occ.addBox(0.0, 0.0, -depth, radius, radius, depth)
        (vol,), _ = occ.intersect([(3, cylinder)], [(3, box)])
        occ.synchronize()
        _name_planes(gmsh, {(0, 0.0): "xsym", (1, 0.0): "ysym", (2, 0.0): "top", (2, -depth): "bottom",
                            "other": "side"})
        gmsh.model.addPhysicalGroup(3, [vol[1]], name="flat")
        _graded_size(gmsh, _origin(gmsh), size.h_pole, size.h_far, size.fine, size.ramp)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    return path
