"""Exodus II files (MOOSE, Cubit, SEACAS): element blocks, side sets and node sets.

An Exodus II file is a netCDF file (Sandia report SAND92-2137, appendix
"Implementation of EXODUS II with netCDF").  The variables read here:

- ``coordx``, ``coordy`` (, ``coordz``), or ``coord`` of shape (dim, n):
  the node coordinates;
- ``connect{b}`` for each element block ``b = 1 .. num_el_blk`` (1-based
  node numbers, attribute ``elem_type``), ``eb_prop1`` the block IDs and
  ``eb_names`` their names;
- ``elem_ss{s}``, ``side_ss{s}`` for each side set: 1-based element numbers
  (blocks numbered one after the other) and the element's side, in the
  Exodus side numbering of its type (:data:`SIDES`); ``ss_prop1`` the IDs,
  ``ss_names`` the names;
- ``node_ns{s}`` for each node set, ``ns_prop1``, ``ns_names``.

Side sets become named boundaries, node sets too (the boundary faces they
cover; a side set of the same name wins), element blocks become
subdomains.  A set or block without a name (or with an empty one) is named
by its ID as a string, e.g. ``"1"``, as MOOSE refers to it.

meshio's Exodus reader keeps neither block IDs nor side sets, so the
variables are read here with netCDF4 (any netCDF file: classic, 64-bit
offset, or netCDF-4/HDF5 as MOOSE and recent Cubit write them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .meshgroups import LINEAR, MeshFormatError, face_vertices, grouped_mesh

__all__ = ["SIDES", "read_exodus"]

#: Exodus side number - 1 -> the side's vertices (0-based, Exodus = VTK vertex order), per linear cell
SIDES = {
    "triangle": np.array([[0, 1], [1, 2], [2, 0]]),
    "quad": np.array([[0, 1], [1, 2], [2, 3], [3, 0]]),
    "tetra": np.array([[0, 1, 3], [1, 2, 3], [0, 3, 2], [0, 2, 1]]),
    "hexahedron": np.array([[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [0, 4, 7, 3],
                            [0, 3, 2, 1], [4, 5, 6, 7]]),
}

# Exodus element type (upper case, the leading letters and node count) -> meshio type
_TYPES = {
    ("TRI", 3): "triangle", ("TRIANGLE", 3): "triangle", ("TRI", 6): "triangle6",
    ("TRIANGLE", 6): "triangle6",
    ("QUAD", 4): "quad", ("QUAD", 8): "quad8", ("QUAD", 9): "quad9",
    ("TETRA", 4): "tetra", ("TET", 4): "tetra", ("TETRA", 10): "tetra10", ("TET", 10): "tetra10",
    ("HEX", 8): "hexahedron", ("HEXAHEDRON", 8): "hexahedron", ("HEX", 20): "hexahedron20",
    ("HEXAHEDRON", 20): "hexahedron20",
}
# Exodus HEX20 numbers the vertical edges (1-5, ...) before the top edges; VTK after them
_HEX20_TO_VTK = np.r_[0:12, 16:20, 12:16]


class _Variables:
    """The variables, their attributes and the dimensions of a netCDF file, as numpy arrays."""

    def __init__(self, path: Path):
        try:
            import netCDF4
        except ImportError:
            raise MeshFormatError(f"{path.name}: reading Exodus II files needs the netCDF4 "
                                  f"package (pip install netCDF4)") from None
        with netCDF4.Dataset(str(path)) as nc:
            nc.set_auto_mask(False)
            self.arrays = {k: np.asarray(v[...]) for k, v in nc.variables.items()}
            self.attributes = {k: {a: v.getncattr(a) for a in v.ncattrs()}
                               for k, v in nc.variables.items()}
            self.dimensions = {k: len(d) for k, d in nc.dimensions.items()}

    def names(self, variable: str, ids: np.ndarray) -> list:
        """Names of the blocks or sets (``eb_names``, ...), the ID as a string where empty."""
        raw = self.arrays.get(variable)
        out = []
        for i, ident in enumerate(ids):
            name = ""
            if raw is not None and i < len(raw):
                text = np.asarray(raw[i], dtype="S1").tobytes().split(b"\0")[0]
                name = text.decode("utf-8", "replace").strip()
            out.append(name or str(int(ident)))
        return out


def _ids(nc: _Variables, prop: str, count: int) -> np.ndarray:
    """Block or set IDs (``eb_prop1``, ...), 1 .. count where the file has none."""
    ids = nc.arrays.get(prop)
    return np.asarray(ids, dtype=np.int64) if ids is not None else np.arange(1, count + 1)


def _text(value) -> str:
    """An attribute as text (bytes in some files)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _cell_type(source: str, elem_type, nodes: int) -> str:
    """The meshio type of an Exodus element type with ``nodes`` nodes per element."""
    text = _text(elem_type)
    letters = text.upper().rstrip("0123456789")
    if letters in ("HEX", "HEXAHEDRON") and nodes == 27:
        raise MeshFormatError(f"{source}: 27-node hexahedra (HEX27) are not read from Exodus files")
    kind = _TYPES.get((letters, nodes))
    if kind is None:
        raise MeshFormatError(f"{source}: element type {text} with {nodes} nodes is not supported "
                              f"(triangles, quadrilaterals, tetrahedra and hexahedra are)")
    return kind


def _points(nc: _Variables, source: str) -> np.ndarray:
    """Node coordinates, shape (n, 3)."""
    if "coordx" in nc.arrays:
        columns = [nc.arrays[k] for k in ("coordx", "coordy", "coordz") if k in nc.arrays]
    elif "coord" in nc.arrays:
        columns = list(nc.arrays["coord"])
    else:
        raise MeshFormatError(f"{source}: no node coordinates (coordx or coord); not an Exodus file")
    points = np.zeros((len(columns[0]), 3))
    points[:, :len(columns)] = np.column_stack(columns)
    return points


def read_exodus(path) -> object:
    """Read an Exodus II file into a :class:`~fecontact.io.meshgroups.GroupedMesh`.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    GroupedMesh
        Blocks as subdomains (by name, or ID as a string), side sets and
        node sets as boundaries.

    Raises
    ------
    MeshFormatError
        An unsupported element type, blocks of different types, or sides
        and elements outside the file's ranges.
    """
    path = Path(path)
    source = path.name
    nc = _Variables(path)
    points = _points(nc, source)
    n_blocks = nc.dimensions.get("num_el_blk", 0)
    block_ids = _ids(nc, "eb_prop1", n_blocks)
    kinds, blocks = [], []
    for b in range(1, n_blocks + 1):
        if f"connect{b}" not in nc.arrays:       # an empty block has no connectivity
            blocks.append(np.zeros((0, 0), dtype=np.int64))
            kinds.append(None)
            continue
        conn = np.asarray(nc.arrays[f"connect{b}"], dtype=np.int64) - 1
        kinds.append(_cell_type(source, nc.attributes[f"connect{b}"].get("elem_type", ""),
                                conn.shape[1]))
        blocks.append(conn[:, _HEX20_TO_VTK] if kinds[-1] == "hexahedron20" else conn)
    types = sorted({k for k in kinds if k is not None})
    if len(types) != 1:
        raise MeshFormatError(f"{source}: " + ("no element blocks" if not types else
                              "element blocks of different types (" + ", ".join(types)
                              + "); use one element type per body"))
    cell_type = types[0]
    connectivity = np.vstack([c for c in blocks if c.size])
    if connectivity.min() < 0 or connectivity.max() >= len(points):
        raise MeshFormatError(f"{source}: element nodes outside the {len(points)} nodes of the file")
    starts = np.cumsum([0] + [len(c) for c in blocks])
    block_names = nc.names("eb_names", block_ids)
    element_sets = {name: np.arange(starts[i], starts[i + 1])
                    for i, name in enumerate(block_names)}
    table = SIDES[LINEAR[cell_type]]
    n_side_sets = nc.dimensions.get("num_side_sets", 0)
    side_ids = _ids(nc, "ss_prop1", n_side_sets)
    facet_sets = {}
    for s, name in enumerate(nc.names("ss_names", side_ids), start=1):
        elements = np.asarray(nc.arrays.get(f"elem_ss{s}", np.zeros(0)), dtype=np.int64) - 1
        sides = np.asarray(nc.arrays.get(f"side_ss{s}", np.zeros(0)), dtype=np.int64) - 1
        if elements.size and (elements.min() < 0 or elements.max() >= len(connectivity)
                              or sides.min() < 0 or sides.max() >= len(table)):
            raise MeshFormatError(f"{source}: side set {name!r} names elements or sides that the "
                                  f"file does not have")
        facet_sets[name] = face_vertices(connectivity, table, elements, sides)
    n_node_sets = nc.dimensions.get("num_node_sets", 0)
    node_ids = _ids(nc, "ns_prop1", n_node_sets)
    node_sets = {}
    for s, name in enumerate(nc.names("ns_names", node_ids), start=1):
        nodes = np.asarray(nc.arrays.get(f"node_ns{s}", np.zeros(0)), dtype=np.int64) - 1
        if nodes.size and (nodes.min() < 0 or nodes.max() >= len(points)):
            raise MeshFormatError(f"{source}: node set {name!r} names nodes that the file does "
                                  f"not have")
        node_sets[name] = nodes
    quadratic = tuple(sorted({_text(nc.attributes[f"connect{b + 1}"].get("elem_type", ""))
                              for b, k in enumerate(kinds) if k is not None and LINEAR[k] != k}))
    return grouped_mesh(source, points, cell_type, connectivity, element_sets, facet_sets,
                        node_sets, quadratic)
