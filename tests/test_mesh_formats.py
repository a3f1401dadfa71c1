"""Meshes from other tools: Exodus II (MOOSE, Cubit) and Abaqus/CalculiX input files.

The files are written here in each format's own conventions, independently of the readers:

- Exodus II through netCDF4 as the Exodus II report lays the variables out (``coordx``,
  ``connect1`` with ``elem_type``, ``eb_prop1``/``eb_names``, ``ss_prop1``, ``elem_ss1``/``side_ss1``,
  ``ns_names``, ``node_ns1``), from Gmsh meshes and structured hexahedra; side numbers are chosen
  by what the report says a side is (the side of a tetrahedron opposite a vertex, the side of an
  axis-aligned hexahedron facing -x), not by a table of the reader;
- Abaqus input text as Abaqus/CalculiX write it (``*NODE``, ``*ELEMENT, TYPE=CPE4/CPS3/C3D8/C3D4``,
  ``*ELSET``/``*NSET`` with ``GENERATE``, ``*SURFACE`` with face labels S1..S6, ``TYPE=NODE``).

Boundaries are checked against geometry (every facet of a side set on x = 0, their total length
or area that of the side), subdomains against the blocks, and one loaded block per format
against its closed form (a uniaxial bar: reaction = E eps A; two materials in series:
reaction = delta A / (L1/E1 + L2/E2)).
"""

from __future__ import annotations

import json
import subprocess
import sys

import netCDF4
import numpy as np
import pytest

import fecontact as fc
from fecontact.io.meshfile import MeshFileError
from fecontact.io.meshformats import read_grouped

LINEAR_MESHES = ("MeshTri1", "MeshQuad1", "MeshTet1", "MeshHex1")


# ---------------------------------------------------------------- writing files


def write_exodus(path, points, blocks, side_sets=(), node_sets=(), fmt="NETCDF4"):
    """An Exodus II file laid out as the Exodus II report (SAND92-2137, appendix A) says.

    blocks: (id, name, elem_type, connectivity 1-based); side_sets: (id, name, elements 1-based,
    sides 1-based); node_sets: (id, name, nodes 1-based).  Empty names are written as empty."""
    dim = points.shape[1]
    with netCDF4.Dataset(str(path), "w", format=fmt) as nc:
        nc.api_version, nc.version, nc.floating_point_word_size = 8.1, 8.1, 8
        nc.file_size, nc.title = 1, "written by test_mesh_formats"
        for name, size in (("len_string", 33), ("len_name", 33), ("len_line", 81), ("four", 4),
                           ("num_dim", dim), ("num_nodes", len(points)),
                           ("num_elem", sum(len(b[3]) for b in blocks)),
                           ("num_el_blk", len(blocks)), ("time_step", None)):
            nc.createDimension(name, size)
        nc.createVariable("time_whole", "f8", ("time_step",))
        for axis, column in zip("xyz", points.T):
            nc.createVariable(f"coord{axis}", "f8", ("num_nodes",))[:] = column
        coor = nc.createVariable("coor_names", "S1", ("num_dim", "len_name"))
        coor[:] = netCDF4.stringtochar(np.array(list("XYZ"[:dim]), dtype="S33"))

        def id_and_names(prefix, status, items, count_dim):
            ids = nc.createVariable(f"{prefix}_prop1", "i4", (count_dim,))
            ids.setncattr("name", "ID")
            ids[:] = [item[0] for item in items]
            nc.createVariable(status, "i4", (count_dim,))[:] = 1
            names = nc.createVariable(f"{prefix}_names", "S1", (count_dim, "len_name"))
            names[:] = netCDF4.stringtochar(np.array([item[1] for item in items], dtype="S33"))

        id_and_names("eb", "eb_status", blocks, "num_el_blk")
        for b, (_, _, elem_type, conn) in enumerate(blocks, start=1):
            nc.createDimension(f"num_el_in_blk{b}", len(conn))
            nc.createDimension(f"num_nod_per_el{b}", conn.shape[1])
            var = nc.createVariable(f"connect{b}", "i4", (f"num_el_in_blk{b}", f"num_nod_per_el{b}"))
            var.elem_type = elem_type
            var[:] = conn
        if side_sets:
            nc.createDimension("num_side_sets", len(side_sets))
            id_and_names("ss", "ss_status", side_sets, "num_side_sets")
            for s, (_, _, elements, sides) in enumerate(side_sets, start=1):
                nc.createDimension(f"num_side_ss{s}", len(elements))
                nc.createVariable(f"elem_ss{s}", "i4", (f"num_side_ss{s}",))[:] = elements
                nc.createVariable(f"side_ss{s}", "i4", (f"num_side_ss{s}",))[:] = sides
        if node_sets:
            nc.createDimension("num_node_sets", len(node_sets))
            id_and_names("ns", "ns_status", node_sets, "num_node_sets")
            for s, (_, _, nodes) in enumerate(node_sets, start=1):
                nc.createDimension(f"num_nod_ns{s}", len(nodes))
                nc.createVariable(f"node_ns{s}", "i4", (f"num_nod_ns{s}",))[:] = nodes


def gmsh_regions(dim: int, h: float):
    """Unstructured Gmsh triangles (dim 2) or tetrahedra (dim 3) of [0, 2] x [0, 1] (x [0, 1]),
    cut at x = 1 into two conforming regions.

    Returns points (n, 3), connectivity (m, dim + 1) 0-based in Gmsh's order, and the region of
    every element (0: x < 1, 1: x > 1)."""
    gmsh = pytest.importorskip("gmsh")
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.model.add("regions")
        occ = gmsh.model.occ
        if dim == 2:
            parts = [occ.addRectangle(0, 0, 0, 1, 1), occ.addRectangle(1, 0, 0, 1, 1)]
        else:
            parts = [occ.addBox(0, 0, 0, 1, 1, 1), occ.addBox(1, 0, 0, 1, 1, 1)]
        occ.fragment([(dim, parts[0])], [(dim, parts[1])])
        occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.model.mesh.generate(dim)
        tags, coords, _ = gmsh.model.mesh.getNodes()
        index = np.full(int(tags.max()) + 1, -1)
        index[tags.astype(int)] = np.arange(tags.size)
        conn, region = [], []
        for _, entity in gmsh.model.getEntities(dim):
            x0, _, _, x1, _, _ = gmsh.model.getBoundingBox(dim, entity)
            types, _, nodes = gmsh.model.mesh.getElements(dim, entity)
            rows = index[np.asarray(nodes[0], dtype=int)].reshape(-1, dim + 1)
            conn.append(rows)
            region.append(np.full(len(rows), int(x0 + x1 > 2.0)))
    finally:
        gmsh.finalize()
    return coords.reshape(-1, 3), np.vstack(conn), np.concatenate(region)


def simplex_sides_on(points, conn, axis, value, opposite_to_side):
    """(element, side) of every simplex face on the plane x[axis] = value.

    The side is named by the vertex it is opposite to: ``opposite_to_side[v]`` is the format's
    number of the side that does not contain local vertex v."""
    on = np.isclose(points[conn, axis], value)                     # (m, dim + 1)
    elements = np.flatnonzero(on.sum(axis=1) == conn.shape[1] - 1)
    off_vertex = np.argmin(on[elements], axis=1)
    return elements, np.array([opposite_to_side[v] for v in off_vertex])


def hex_grid(n=(4, 2, 2), size=(2.0, 1.0, 1.0)):
    """Structured hexahedra in the Exodus/Abaqus/VTK vertex order (bottom face counter-clockwise
    seen from +z, then the top face): points (N, 3), connectivity (M, 8) 0-based, element (i, j, k)."""
    nx, ny, nz = n
    axes = [np.linspace(0, s, k + 1) for s, k in zip(size, n)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    node = np.arange(grid.shape[0]).reshape(nx + 1, ny + 1, nz + 1)
    i, j, k = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz),
                                               indexing="ij"))
    corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    conn = np.stack([node[i + a, j + b, k + c] for a, b, c in corners], axis=1)
    return grid, conn, (i, j, k)


# ---------------------------------------------------------------- geometry checks


def facet_measure(mesh, facets):
    """Total length (2D) or area (3D) of facets."""
    p = mesh.p[:, mesh.facets[:, facets]]                           # (dim, k, n)
    if mesh.dim() == 2:
        return np.linalg.norm(p[:, 1] - p[:, 0], axis=0).sum()
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0], axis=0), axis=0)
    if p.shape[1] == 4:
        area += 0.5 * np.linalg.norm(np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 0], axis=0), axis=0)
    return area.sum()


def assert_boundary_on(mesh, name, axis, value, measure):
    facets = mesh.boundaries[name]
    assert facets.size > 0
    assert np.allclose(mesh.p[axis, mesh.facets[:, facets]], value)
    assert facet_measure(mesh, facets) == pytest.approx(measure, rel=1e-12)


# ---------------------------------------------------------------- Exodus II


# Exodus II sides of a TETRA4 / TRI3 by the vertex they leave out (report, "side set" node lists):
# tetra sides (1,2,4) (2,3,4) (1,4,3) (1,3,2); triangle sides (1,2) (2,3) (3,1)
EXODUS_TET_SIDE_OPPOSITE = {2: 1, 0: 2, 1: 3, 3: 4}
EXODUS_TRI_SIDE_OPPOSITE = {2: 1, 0: 2, 1: 3}


@pytest.mark.parametrize("fmt", ["NETCDF4", "NETCDF3_64BIT_OFFSET"])
def test_exodus_triangles_two_blocks_in_series(tmp_path, fmt):
    points, conn, region = gmsh_regions(2, h=0.2)
    order = np.argsort(region, kind="stable")                      # block 1 first, then block 2
    conn, region = conn[order], region[order]
    left_elems, left_sides = simplex_sides_on(points, conn, 0, 0.0, EXODUS_TRI_SIDE_OPPOSITE)
    right_elems, right_sides = simplex_sides_on(points, conn, 0, 2.0, EXODUS_TRI_SIDE_OPPOSITE)
    bottom_nodes = np.flatnonzero(np.isclose(points[:, 1], 0.0))
    path = tmp_path / "bar.e"
    write_exodus(path, points[:, :2],
                 [(1, "soft", "TRI3", conn[region == 0] + 1), (7, "", "TRI3", conn[region == 1] + 1)],
                 [(10, "left", left_elems + 1, left_sides), (20, "", right_elems + 1, right_sides)],
                 [(3, "bottom", bottom_nodes + 1), (20, "", np.flatnonzero(np.isclose(points[:, 0], 2.0)) + 1)],
                 fmt=fmt)
    mesh = fc.load_mesh(path)
    assert type(mesh).__name__ == "MeshTri1"
    assert sorted(mesh.boundaries) == ["20", "bottom", "left"]     # the unnamed side set by its ID
    assert_boundary_on(mesh, "left", 0, 0.0, 1.0)
    assert_boundary_on(mesh, "20", 0, 2.0, 1.0)
    assert_boundary_on(mesh, "bottom", 1, 0.0, 2.0)                 # a node set: the edges it covers
    assert mesh.boundaries["left"].size == np.isclose(points[:, 0], 0.0).sum() - 1
    assert sorted(mesh.subdomains) == ["7", "soft"]
    assert mesh.subdomains["soft"].size == (region == 0).sum()
    centres = mesh.p[:, mesh.t].mean(axis=1)
    assert np.all(centres[0, mesh.subdomains["soft"]] < 1.0)
    assert np.all(centres[0, mesh.subdomains["7"]] > 1.0)
    # two materials in series (nu = 0: uniaxial stress in each): F = delta H / (L1/E1 + L2/E2)
    e_soft, e_stiff, delta = 100.0, 400.0, 0.01
    bar = fc.Body("bar", path, "P1", {"soft": fc.LinearElastic(E=e_soft, nu=0.0),
                                      "7": fc.LinearElastic(E=e_stiff, nu=0.0)})
    bar.fix("left", x=0.0).fix("bottom", y=0.0).fix("20", x=delta)
    result = fc.Model([bar]).solve(steps=1)
    expected = delta * 1.0 / (1.0 / e_soft + 1.0 / e_stiff)
    assert result.reaction("20")[0] == pytest.approx(expected, rel=1e-9)


def test_exodus_classic_file_and_missing_netcdf4(tmp_path, monkeypatch):
    """A classic (netCDF-3) Exodus file reads as the HDF5 kind does; without netCDF4, one line."""
    points, conn, _ = hex_grid((2, 1, 1))
    path = tmp_path / "cube.exo"
    write_exodus(path, points, [(1, "cube", "HEX8", conn + 1)], fmt="NETCDF3_CLASSIC")
    mesh = fc.load_mesh(path)
    assert type(mesh).__name__ == "MeshHex1" and mesh.t.shape == (8, 2)
    assert mesh.subdomains["cube"].tolist() == [0, 1]
    monkeypatch.setitem(sys.modules, "netCDF4", None)               # import netCDF4 fails
    with pytest.raises(MeshFileError, match=r"^cube\.exo: reading Exodus II files needs the "
                                            r"netCDF4 package"):
        fc.load_mesh(path)


def test_exodus_hexahedra_uniaxial_tension(tmp_path):
    points, conn, (i, j, k) = hex_grid((4, 2, 2))
    nx, ny, nz = 4, 2, 2
    # Exodus HEX8 sides: 1 (1,2,6,5) faces -y, 2 faces +x, 3 faces +y, 4 (1,5,8,4) faces -x,
    # 5 (1,4,3,2) faces -z, 6 faces +z, for a hexahedron numbered like the reference one
    left, right, floor = np.flatnonzero(i == 0), np.flatnonzero(i == nx - 1), np.flatnonzero(k == 0)
    path = tmp_path / "bar.exo"
    write_exodus(path, points, [(1, "bar", "HEX8", conn + 1)],
                 [(1, "left", left + 1, np.full(left.size, 4)),
                  (2, "right", right + 1, np.full(right.size, 2)),
                  (3, "floor", floor + 1, np.full(floor.size, 5))],
                 [(1, "front", np.flatnonzero(np.isclose(points[:, 1], 0.0)) + 1),
                  (2, "left", np.flatnonzero(np.isclose(points[:, 0], 0.0)) + 1),
                  (9, "corner", [1])])
    mesh = fc.load_mesh(path)
    assert sorted(mesh.boundaries) == ["floor", "front", "left", "right"]   # "corner": no facet
    assert_boundary_on(mesh, "left", 0, 0.0, 1.0)
    assert_boundary_on(mesh, "right", 0, 2.0, 1.0)
    assert_boundary_on(mesh, "floor", 2, 0.0, 2.0)
    assert_boundary_on(mesh, "front", 1, 0.0, 2.0)
    assert mesh.boundaries["left"].size == ny * nz
    E, nu, strain = 210.0, 0.3, 1e-3
    bar = fc.Body("bar", path, None, fc.LinearElastic(E=E, nu=nu))
    bar.fix("left", x=0.0).fix("front", y=0.0).fix("floor", z=0.0).fix("right", x=strain * 2.0)
    result = fc.Model([bar]).solve(steps=1)
    assert result.reaction("right")[0] == pytest.approx(E * strain * 1.0, rel=1e-9)


def test_exodus_tetrahedra_side_sets(tmp_path):
    points, conn, region = gmsh_regions(3, h=0.5)
    order = np.argsort(region, kind="stable")
    conn, region = conn[order], region[order]
    sides = {name: simplex_sides_on(points, conn, 0, x, EXODUS_TET_SIDE_OPPOSITE)
             for name, x in (("left", 0.0), ("right", 2.0))}
    path = tmp_path / "box.ex2"
    write_exodus(path, points,
                 [(1, "a", "TETRA4", conn[region == 0] + 1), (2, "b", "TETRA4", conn[region == 1] + 1)],
                 [(s + 1, name, e + 1, side) for s, (name, (e, side)) in enumerate(sides.items())])
    mesh = fc.load_mesh(path)
    assert_boundary_on(mesh, "left", 0, 0.0, 1.0)
    assert_boundary_on(mesh, "right", 0, 2.0, 1.0)
    assert mesh.boundaries["left"].size == sides["left"][0].size
    centres = mesh.p[:, mesh.t].mean(axis=1)
    assert np.all(centres[0, mesh.subdomains["a"]] < 1.0) and np.all(centres[0, mesh.subdomains["b"]] > 1.0)
    assert mesh.subdomains["a"].size + mesh.subdomains["b"].size == mesh.t.shape[1]


# ---------------------------------------------------------------- Abaqus / CalculiX


def quad_block_inp(nx=6, ny=3, length=3.0, height=1.0) -> str:
    """A CPE4 block as Abaqus writes it: nodes row by row, GENERATE sets, surfaces by face label
    (CPE4 faces: S1 nodes 1-2 (bottom), S2 2-3 (right), S3 3-4 (top), S4 4-1 (left))."""
    lines = ["*HEADING", "block of CPE4", "** nodes", "*NODE, NSET=NALL"]
    for jj in range(ny + 1):
        for ii in range(nx + 1):
            lines.append(f"{1 + ii + jj * (nx + 1)}, {ii * length / nx:.17g}, {jj * height / ny:.17g}")
    lines.append("*ELEMENT, TYPE=CPE4,\n ELSET=PLATE")                 # a continued keyword line
    for jj in range(ny):
        for ii in range(nx):
            n1 = 1 + ii + jj * (nx + 1)
            lines.append(f"{1 + ii + jj * nx}, {n1}, {n1 + 1}, {n1 + nx + 2}, {n1 + nx + 1}")
    lines += [f"*ELSET, ELSET=LEFTCOL, GENERATE\n1, {1 + (ny - 1) * nx}, {nx}",
              f"*ELSET, ELSET=RIGHTCOL, GENERATE\n{nx}, {ny * nx}, {nx}",
              f"*ELSET, ELSET=HALF, GENERATE\n1, {nx * ny}, 2",
              f"*ELSET, ELSET=TOPROW, GENERATE\n{1 + (ny - 1) * nx}, {ny * nx}, 1",
              f"*NSET, NSET=BOTTOMNODES, GENERATE\n1, {nx + 1}, 1",
              "*SURFACE, NAME=Top\nTOPROW, S3",
              "*SURFACE, NAME=Left, TYPE=ELEMENT\nLEFTCOL, S4",
              "*Surface, name=Right\nrightcol, S2",
              "*SURFACE, NAME=Bottom, TYPE=NODE\nBOTTOMNODES",
              "*MATERIAL, NAME=STEEL\n*ELASTIC\n210., 0.3",
              "*SOLID SECTION, ELSET=PLATE, MATERIAL=STEEL",
              "*STEP\n*STATIC\n*BOUNDARY\nBOTTOMNODES, 2, 2\n*END STEP"]
    return "\n".join(lines) + "\n"


def test_abaqus_cpe4_block_plane_strain_tension(tmp_path):
    path = tmp_path / "block.inp"
    path.write_text(quad_block_inp())
    mesh = fc.load_mesh(path)
    assert type(mesh).__name__ == "MeshQuad1" and mesh.t.shape == (4, 18)
    assert_boundary_on(mesh, "Left", 0, 0.0, 1.0)
    assert_boundary_on(mesh, "Right", 0, 3.0, 1.0)
    assert_boundary_on(mesh, "Bottom", 1, 0.0, 3.0)
    assert_boundary_on(mesh, "BOTTOMNODES", 1, 0.0, 3.0)
    assert mesh.boundaries["Left"].size == 3
    assert sorted(mesh.subdomains) == ["HALF", "LEFTCOL", "PLATE", "RIGHTCOL", "TOPROW"]
    assert_boundary_on(mesh, "Top", 1, 1.0, 3.0)
    centres = mesh.p[:, mesh.t].mean(axis=1)
    assert np.allclose(centres[0, mesh.subdomains["LEFTCOL"]], 0.25)
    assert mesh.subdomains["HALF"].size == 9
    # plane strain, rollers: sigma_xx = E / (1 - nu^2) eps, reaction per unit thickness
    E, nu, strain = 210.0, 0.3, 1e-3
    block = fc.Body("block", path, "Q1", fc.LinearElastic(E=E, nu=nu))
    block.fix("Left", x=0.0).fix("Bottom", y=0.0).fix("Right", x=3.0 * strain)
    result = fc.Model([block]).solve(steps=1)
    assert result.reaction("Right")[0] == pytest.approx(E / (1 - nu**2) * strain * 1.0, rel=1e-9)


def test_abaqus_cps3_gmsh_include_and_node_surface(tmp_path):
    points, conn, region = gmsh_regions(2, h=0.25)
    nodes = "\n".join(f"{n + 1}, {x:.17g}, {y:.17g}" for n, (x, y, _) in enumerate(points))
    (tmp_path / "nodes.inc").write_text(nodes + "\n")
    left = np.flatnonzero(np.isclose(points[:, 0], 0.0)) + 1
    cards = ["*NODE", "*INCLUDE, INPUT=nodes.inc"]
    for r, name in ((0, "A"), (1, "B")):
        cards.append(f"*ELEMENT, TYPE=CPS3, ELSET={name}")
        cards += [f"{e + 1}, {a + 1}, {b + 1}, {c + 1}" for e, (a, b, c) in
                  zip(np.flatnonzero(region == r), conn[region == r])]
    cards.append("*NSET, NSET=LEFTN")
    cards += [", ".join(str(n) for n in left[s:s + 16]) for s in range(0, left.size, 16)]
    cards += ["*SURFACE, TYPE=NODE, NAME=LEFT\nLEFTN", "*ELSET, ELSET=ALL\nA, B"]
    path = tmp_path / "plate.inp"
    path.write_text("\n".join(cards) + "\n")
    mesh = fc.load_mesh(path)
    assert type(mesh).__name__ == "MeshTri1"
    assert_boundary_on(mesh, "LEFT", 0, 0.0, 1.0)
    assert mesh.subdomains["ALL"].size == mesh.t.shape[1] == len(conn)
    centres = mesh.p[:, mesh.t].mean(axis=1)
    assert np.all(centres[0, mesh.subdomains["A"]] < 1.0) and np.all(centres[0, mesh.subdomains["B"]] > 1.0)


# Abaqus C3D4 faces: S1 (1,2,3), S2 (1,4,2), S3 (2,4,3), S4 (3,4,1): by the vertex each leaves out
ABAQUS_TET_FACE_OPPOSITE = {3: 1, 2: 2, 0: 3, 1: 4}


def test_abaqus_c3d4_gmsh_uniaxial_tension(tmp_path):
    points, conn, _ = gmsh_regions(3, h=0.5)
    faces = {name: simplex_sides_on(points, conn, axis, x, ABAQUS_TET_FACE_OPPOSITE)
             for name, axis, x in (("XMIN", 0, 0.0), ("XMAX", 0, 2.0), ("YMIN", 1, 0.0),
                                   ("ZMIN", 2, 0.0))}
    lines = ["*NODE"] + [f"{n + 1}, {x:.17g}, {y:.17g}, {z:.17g}" for n, (x, y, z) in enumerate(points)]
    lines += ["*ELEMENT, TYPE=C3D4, ELSET=SOLID"]
    lines += [f"{e + 1}, " + ", ".join(str(v + 1) for v in row) for e, row in enumerate(conn)]
    for name, (elements, sides) in faces.items():
        lines += [f"*SURFACE, NAME={name}"] + [f"{e + 1}, S{s}" for e, s in zip(elements, sides)]
    path = tmp_path / "bar.inp"
    path.write_text("\n".join(lines) + "\n")
    mesh = fc.load_mesh(path)
    assert_boundary_on(mesh, "XMIN", 0, 0.0, 1.0)
    assert_boundary_on(mesh, "XMAX", 0, 2.0, 1.0)
    assert_boundary_on(mesh, "YMIN", 1, 0.0, 2.0)
    assert_boundary_on(mesh, "ZMIN", 2, 0.0, 2.0)
    E, nu, strain = 70.0, 0.33, 2e-3
    bar = fc.Body("bar", path, "P1", fc.LinearElastic(E=E, nu=nu))
    bar.fix("XMIN", x=0.0).fix("YMIN", y=0.0).fix("ZMIN", z=0.0).fix("XMAX", x=2.0 * strain)
    result = fc.Model([bar]).solve(steps=1)
    assert result.reaction("XMAX")[0] == pytest.approx(E * strain * 1.0, rel=1e-9)


def test_abaqus_c3d8_part_instance_and_exterior_faces(tmp_path):
    """An Abaqus/CAE-style file: one part, one instance, a reference point of the assembly
    (its own node 1), assembly sets named through the instance, and a surface of an element
    set without face labels (its exterior faces)."""
    points, conn, (i, j, k) = hex_grid((2, 2, 1), (2.0, 2.0, 1.0))
    node_lines = [f"{n + 1}, {x:.17g}, {y:.17g}, {z:.17g}" for n, (x, y, z) in enumerate(points)]
    elem_lines = [f"{e + 1}, " + ", ".join(str(v + 1) for v in row) for e, row in enumerate(conn)]
    corner = np.flatnonzero((i == 0) & (j == 0)) + 1
    text = "\n".join(["*Heading", "*Part, name=Block", "*Node", *node_lines,
                      "*Element, type=C3D8R", *elem_lines,
                      "*Elset, elset=Corner", ", ".join(map(str, corner)), "*End Part",
                      "*Assembly, name=Assembly", "*Instance, name=Block-1, part=Block",
                      "*End Instance",
                      "*Node", "1, 5., 5., 5.",                        # a reference point
                      "*Nset, nset=RP, internal", "1,",
                      "*Element, type=R3D4, elset=Rigid", "1, 1, 1, 1, 1",
                      "*Elset, elset=_Top_S2, internal, instance=Block-1, generate",
                      f"1, {len(conn)}, 1",
                      "*Surface, type=ELEMENT, name=Top", "_Top_S2, S2",
                      "*Surface, type=ELEMENT, name=CornerSkin", "Block-1.Corner",
                      "*End Assembly"]) + "\n"
    path = tmp_path / "cae.inp"
    path.write_text(text)
    mesh = fc.load_mesh(path)
    assert sorted(mesh.subdomains) == ["Corner"]                     # the internal set is skipped
    assert mesh.p.shape[1] == len(points) and np.allclose(mesh.p.max(axis=1), [2.0, 2.0, 1.0])
    assert_boundary_on(mesh, "Top", 2, 1.0, 4.0)                    # S2: face 5-8-7-6, z = max
    # the exterior faces of the corner element: x = 0, y = 0, z = 0 and z = 1 (4 faces of area 1)
    skin = mesh.boundaries["CornerSkin"]
    assert skin.size == 4 and facet_measure(mesh, skin) == pytest.approx(4.0)
    several = text.replace("*End Instance", "*End Instance\n*Instance, name=Block-2, part=Block\n"
                           "*End Instance", 1)
    path.write_text(several)
    with pytest.raises(MeshFileError, match=r"^cae\.inp:\d+: \*INSTANCE: several"):
        fc.load_mesh(path)


def test_files_written_by_meshio(tmp_path):
    """Exodus and Abaqus files as meshio writes them (a third writer): node sets and element sets."""
    import meshio

    points, conn, (i, j, k) = hex_grid((2, 2, 2))
    left = np.flatnonzero(np.isclose(points[:, 0], 0.0))
    for name in ("meshio.e", "meshio.inp"):
        meshio.write(tmp_path / name, meshio.Mesh(points, [("hexahedron", conn)],
                                                  point_sets={"left": left},
                                                  cell_sets={"near": [np.flatnonzero(i == 0)]}))
        mesh = fc.load_mesh(tmp_path / name)
        assert_boundary_on(mesh, "left", 0, 0.0, 1.0)
        assert mesh.boundaries["left"].size == 4
    assert mesh.subdomains["near"].size == 4                         # .inp: *ELSET


# ---------------------------------------------------------------- quadratic elements


def test_quadratic_files_are_never_made_linear(tmp_path):
    """A quadratic file gives a quadratic body or a one-line refusal, never a linear mesh."""
    # CPE8R: corner nodes then midside nodes 5 (1-2), 6 (2-3), 7 (3-4), 8 (4-1)
    inp = tmp_path / "quad8.inp"
    inp.write_text("*NODE\n1, 0, 0\n2, 2, 0\n3, 2, 1\n4, 0, 1\n5, 1, 0\n6, 2, 0.5\n7, 1, 1\n"
                   "8, 0, 0.5\n*ELEMENT, TYPE=CPE8R, ELSET=E\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"
                   "*SURFACE, NAME=LEFT\nE, S4\n")
    points, conn, _ = hex_grid((1, 1, 1))
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 5), (2, 6), (3, 7), (4, 5), (5, 6),
             (6, 7), (7, 4)]                                         # Exodus HEX20 edge order
    mids = np.array([(points[conn[0, a]] + points[conn[0, b]]) / 2 for a, b in edges])
    exo = tmp_path / "hex20.exo"
    write_exodus(exo, np.vstack([points, mids]),
                 [(1, "cube", "HEX20", np.r_[conn[0], 8 + np.arange(12)][None] + 1)],
                 [(1, "left", [1], [4])])
    # read in the VTK order: the 12 edge nodes of VTK's hexahedron20 are the midpoints of its edges
    vtk_edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5),
                 (2, 6), (3, 7)]
    cell = read_grouped(exo).mesh.cells[0]
    assert cell.type == "hexahedron20"
    xyz = read_grouped(exo).mesh.points
    for e, (a, b) in enumerate(vtk_edges):
        assert np.allclose(xyz[cell.data[0, 8 + e]], (xyz[cell.data[0, a]] + xyz[cell.data[0, b]]) / 2)
    for path, name, axis in ((inp, "LEFT", 0), (exo, "left", 0)):
        try:
            mesh = fc.load_mesh(path)
        except MeshFileError as err:
            assert "\n" not in str(err) and str(err).startswith(path.name)
            assert "quadratic" in str(err)
            continue
        assert type(mesh).__name__ not in LINEAR_MESHES
        assert np.allclose(mesh.p[axis, mesh.facets[:, mesh.boundaries[name]]][:, :1], 0.0)
        body = fc.Body("b", path, material=fc.LinearElastic(E=1.0, nu=0.3))
        assert body.part.kind.quadratic                              # its default element


# ---------------------------------------------------------------- bad files


BAD_INP = {
    "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 4\n":
        r"names node 4, which the file does not define",
    "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3\n*SURFACE, NAME=S\nTOP, S1\n":
        r"bad\.inp:7: \*SURFACE: element set 'TOP' is not defined",
    "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3, ELSET=E\n1, 1, 2, 3\n*SURFACE, NAME=S\nE, S4\n":
        r"face 'S4' is not a face label S1\.\.S3 of triangle elements",
    "*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D6\n1, 1, 1, 1, 1, 1, 1\n":
        r"element type C3D6 is not supported",
    "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2\n":
        r"CPS3 needs a label and 3 nodes per element",
    "1, 0, 0\n": r"data line before the first keyword",
    "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3\n2, 2, 3, 1\n":
        r"elements with the same nodes appear more than once",
    "*NODE\n1, 0, 0\n*ELEMENT, TYPE=B21\n1, 1, 1\n": r"no solid elements",
}


@pytest.mark.parametrize("text, message", list(BAD_INP.items()))
def test_bad_abaqus_files_one_line(tmp_path, text, message):
    path = tmp_path / "bad.inp"
    path.write_text(text)
    with pytest.raises(MeshFileError, match=r"^bad\.inp") as err:
        fc.load_mesh(path)
    assert "\n" not in str(err.value)
    assert __import__("re").search(message, str(err.value)), str(err.value)


def test_bad_exodus_files_one_line(tmp_path):
    garbage = tmp_path / "garbage.exo"
    garbage.write_bytes(b"not a netcdf file at all")
    with pytest.raises(MeshFileError, match=r"^garbage\.exo: ") as err:
        fc.load_mesh(garbage)
    assert "\n" not in str(err.value)
    points, conn, _ = hex_grid((1, 1, 1))
    side = tmp_path / "side.exo"
    write_exodus(side, points, [(1, "c", "HEX8", conn + 1)], [(1, "s", [1], [7])])
    with pytest.raises(MeshFileError, match=r"^side\.exo: side set 's' names elements or sides"):
        fc.load_mesh(side)
    wedge = tmp_path / "wedge.exo"
    write_exodus(wedge, points[:6], [(1, "w", "WEDGE6", np.arange(1, 7)[None])])
    with pytest.raises(MeshFileError, match=r"^wedge\.exo: element type WEDGE6 with 6 nodes"):
        fc.load_mesh(wedge)


CASE = """
[[bodies]]
name = "block"
element = "Q1"
mesh = { file = "block.inp" }
material = { E = 210.0, nu = 0.3 }

[[bodies.dirichlet]]
boundary = "Top"
component = "y"
value = -0.001

[[bodies.dirichlet]]
boundary = "Left"
component = "x"
value = 0.0

[[contact]]
name = "on-flat"
slave = { body = "block", boundary = "Bottom" }
master = { obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }
friction = { law = "frictionless" }

[steps]
count = 1
"""


def test_case_file_with_inp_mesh_runs_and_bad_one_is_one_line(tmp_path):
    """A case file names an .inp mesh: a block pressed on a rigid flat (plane strain, frictionless,
    uniaxial stress): the reaction of the top is E / (1 - nu^2) eps times its length 3."""
    (tmp_path / "block.inp").write_text(quad_block_inp())
    case = tmp_path / "case.toml"
    case.write_text(CASE)
    out = tmp_path / "out"
    fc.run_case(case, out_dir=out, write_vtu_files=False)
    summary = json.loads((out / "summary.json").read_text())
    top = summary["reaction"]["Top"]
    assert top[1] == pytest.approx(-210.0 / (1 - 0.3**2) * 1e-3 * 3.0, rel=1e-9)
    (tmp_path / "block.inp").write_text("*NODE\n1, 0, 0\n*ELEMENT, TYPE=CPE4\n1, 1, 2, 3, 4\n")
    run = subprocess.run([sys.executable, "-m", "fecontact", "check", str(case)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "block.inp" in lines[0] and "node 2" in lines[0], lines[0]
