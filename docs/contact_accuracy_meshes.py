"""Gmsh and scikit-fem meshes of docs/make_contact_accuracy.py: a sphere on a flat (3D) and a hub
on a shaft (2D), each body written by Gmsh as a ``.msh`` file with physical groups for its
boundaries (or built by scikit-fem, for the structured flat of hexahedra)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class SphereSize:
    """Mesh sizes of the sphere-on-flat model: ``h_pole`` within ``fine`` of the first
    contact point, growing to ``h_far`` at ``fine + ramp``; the sphere is cut at
    ``z = height``, the flat is the quarter block ``[0, side]^2 x [-depth, 0]``; the slave
    surface is the sphere's surface below ``z = cap`` (about three contact radii)."""

    h_pole: float
    h_far: float
    fine: float
    ramp: float
    height: float = 5.0
    side: float = 10.0
    depth: float = 10.0
    approach: float = 0.1
    growth: float = 1.35
    cap: float = 0.5


@contextlib.contextmanager
def gmsh_model(name: str):
    """A fresh Gmsh model, quiet and single-threaded; Gmsh is finalised on exit."""
    import gmsh
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.model.add(name)
        yield gmsh
    finally:
        gmsh.finalize()


def _graded_size(gmsh, point: int, h_min: float, h_max: float, fine: float, ramp: float) -> None:
    """Mesh size ``h_min`` within ``fine`` of the point entity, linear up to ``h_max``."""
    field = gmsh.model.mesh.field
    dist = field.add("Distance")
    field.setNumbers(dist, "PointsList", [point])
    thr = field.add("Threshold")
    field.setNumber(thr, "InField", dist)
    for key, value in (("SizeMin", h_min), ("SizeMax", h_max), ("DistMin", fine), ("DistMax", fine + ramp)):
        field.setNumber(thr, key, value)
    field.setAsBackgroundMesh(thr)
    for key in ("MeshSizeExtendFromBoundary", "MeshSizeFromPoints", "MeshSizeFromCurvature"):
        gmsh.option.setNumber(f"Mesh.{key}", 0)


def _name_planes(gmsh, names: dict, dim: int = 2) -> None:
    """Physical groups of the model's plane entities: ``names`` maps (axis, value) to a name."""
    groups: dict = {}
    planes = {key: name for key, name in names.items() if key != "other"}
    for _, tag in gmsh.model.getEntities(dim):
        box = gmsh.model.getBoundingBox(dim, tag)
        name = next((name for (axis, value), name in planes.items()
                     if abs(box[axis] - value) < 1e-5 and abs(box[axis + 3] - value) < 1e-5), names["other"])
        groups.setdefault(name, []).append(tag)
    for name, tags in groups.items():
        gmsh.model.addPhysicalGroup(dim, tags, name=name)


def sphere_mesh(path: Path, size: SphereSize, R: float) -> Path:
    """Quarter of the sphere ``|x - (0, 0, R)| <= R`` below ``z = height``, tetrahedra graded
    from the pole (0, 0, 0); boundaries ``xsym``, ``ysym``, ``top``, ``surface``."""
    with gmsh_model("sphere") as gmsh:
        occ = gmsh.model.occ
        ball = occ.addSphere(0.0, 0.0, R, R)
        box = occ.addBox(0.0, 0.0, 0.0, 2 * R, 2 * R, size.height)
        (vol,), _ = occ.intersect([(3, ball)], [(3, box)])
        occ.synchronize()
        pole = [t for _, t in gmsh.model.getEntitiesInBoundingBox(-1e-6, -1e-6, -1e-6, 1e-6, 1e-6, 1e-6, 0)]
        _name_planes(gmsh, {(0, 0.0): "xsym", (1, 0.0): "ysym", (2, size.height): "top", "other": "surface"})
        gmsh.model.addPhysicalGroup(3, [vol[1]], name="sphere")
        _graded_size(gmsh, pole[0], size.h_pole, size.h_far, size.fine, size.ramp)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    return path


def flat_tet_mesh(path: Path, size: SphereSize) -> Path:
    """The quarter block of the flat in tetrahedra graded from the origin; boundaries
    ``xsym``, ``ysym``, ``top`` (z = 0), ``bottom``, ``sides``."""
    with gmsh_model("flat") as gmsh:
        occ = gmsh.model.occ
        box = occ.addBox(0.0, 0.0, -size.depth, size.side, size.side, size.depth)
        occ.synchronize()
        corner = [t for _, t in gmsh.model.getEntitiesInBoundingBox(-1e-6, -1e-6, -1e-6, 1e-6, 1e-6, 1e-6, 0)]
        _name_planes(gmsh, {(0, 0.0): "xsym", (1, 0.0): "ysym", (2, 0.0): "top",
                            (2, -size.depth): "bottom", "other": "sides"})
        gmsh.model.addPhysicalGroup(3, [box], name="flat")
        _graded_size(gmsh, corner[0], size.h_pole, size.h_far, size.fine, size.ramp)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    return path


def _graded_line(h: float, fine: float, length: float, growth: float) -> np.ndarray:
    """0, h, 2h, ... up to ``fine``, then cells growing by ``growth`` up to ``length``."""
    x = list(np.arange(0.0, fine + 0.5 * h, h))
    step = h
    while x[-1] < length - 1e-9:
        step *= growth
        x.append(min(x[-1] + step, length))
    if x[-1] - x[-2] < 0.5 * step:           # no sliver at the end
        del x[-2]
    return np.array(x)


def flat_hex_mesh(size: SphereSize):
    """The quarter block of the flat in structured hexahedra (scikit-fem), graded like
    the tetrahedra; boundaries as :func:`flat_tet_mesh`."""
    import skfem
    xy = _graded_line(size.h_pole, size.fine, size.side, size.growth)
    z = -_graded_line(size.h_pole, 0.6 * size.fine, size.depth, size.growth)[::-1]
    mesh = skfem.MeshHex.init_tensor(xy, xy, z)
    side, depth = size.side, size.depth
    return mesh.with_boundaries({
        "xsym": lambda x: np.isclose(x[0], 0.0), "ysym": lambda x: np.isclose(x[1], 0.0),
        "top": lambda x: np.isclose(x[2], 0.0), "bottom": lambda x: np.isclose(x[2], -depth),
        "sides": lambda x: np.isclose(x[0], side) | np.isclose(x[1], side)})


def shaft_mesh(path: Path, segments: int, radius: float, h_centre: float = 0.25) -> Path:
    """Quarter disc of ``radius`` in triangles, ``segments`` equal chords on its arc;
    boundaries ``surface`` (arc), ``xsym``, ``ysym``."""
    with gmsh_model("shaft") as gmsh:
        geo = gmsh.model.geo
        h_arc = radius * np.pi / 2 / segments
        o, a, b = geo.addPoint(0, 0, 0, h_centre), geo.addPoint(radius, 0, 0, h_arc), geo.addPoint(0, radius, 0, h_arc)
        ysym, arc, xsym = geo.addLine(o, a), geo.addCircleArc(a, o, b), geo.addLine(b, o)
        surface = geo.addPlaneSurface([geo.addCurveLoop([ysym, arc, xsym])])
        geo.mesh.setTransfiniteCurve(arc, segments + 1)
        geo.synchronize()
        for tag, name in ((arc, "surface"), (xsym, "xsym"), (ysym, "ysym")):
            gmsh.model.addPhysicalGroup(1, [tag], name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="shaft")
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def hub_mesh(path: Path, segments: int, bore: float, outer: float, h_outer: float = 0.25) -> Path:
    """Quarter annulus ``bore <= r <= outer`` in triangles, ``segments`` equal chords on the
    bore; boundaries ``bore``, ``outer``, ``xsym``, ``ysym``."""
    with gmsh_model("hub") as gmsh:
        geo = gmsh.model.geo
        h_bore = bore * np.pi / 2 / segments
        o = geo.addPoint(0, 0, 0)
        a1, a2 = geo.addPoint(bore, 0, 0, h_bore), geo.addPoint(outer, 0, 0, h_outer)
        b2, b1 = geo.addPoint(0, outer, 0, h_outer), geo.addPoint(0, bore, 0, h_bore)
        ysym, rim, xsym, arc = geo.addLine(a1, a2), geo.addCircleArc(a2, o, b2), geo.addLine(b2, b1), \
            geo.addCircleArc(b1, o, a1)
        surface = geo.addPlaneSurface([geo.addCurveLoop([ysym, rim, xsym, arc])])
        geo.mesh.setTransfiniteCurve(arc, segments + 1)
        geo.synchronize()
        for tag, name in ((arc, "bore"), (rim, "outer"), (xsym, "xsym"), (ysym, "ysym")):
            gmsh.model.addPhysicalGroup(1, [tag], name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="hub")
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path
