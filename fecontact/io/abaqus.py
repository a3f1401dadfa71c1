"""Abaqus and CalculiX input files (``.inp``): nodes, solid elements, sets and surfaces.

Read from the keyword cards (:mod:`.abaqus_cards`):

- ``*NODE`` (``NSET=`` optional), ``*ELEMENT, TYPE=...`` (``ELSET=``
  optional) for the solid elements: plane strain, plane stress and
  axisymmetric ``CPE``/``CPS``/``CAX`` 3, 4, 6 and 8 nodes, ``C3D4``,
  ``C3D8``, ``C3D10``, ``C3D20`` with any suffix (``R``, ``H``, ``I``,
  ``M``).  Other elements (shells, beams, rigid and surface elements, ...)
  are skipped; one kind of solid element per file;
- ``*NSET`` and ``*ELSET`` by labels, by other sets' names, or
  ``GENERATE`` (first, last, increment per line); ``*NSET, ELSET=`` takes
  the nodes of an element set.  A second card of the same name adds to the
  set, as in Abaqus.  Sets marked ``INTERNAL`` are skipped;
- ``*SURFACE, TYPE=ELEMENT`` (the default): lines ``element set or label,
  Sn`` with Abaqus face labels (:data:`SIDES`); without a label, every
  exterior face of the elements; ``*SURFACE, TYPE=NODE``: node sets or
  labels, which become the boundary faces whose vertices all lie in them.

Surfaces and node sets become named boundaries (a surface wins over a node
set of the same name), element sets become subdomains.  Part-assembly
files with one part instance that is not moved are read (names such as
``Part-1-1.Top`` are looked up without the instance prefix); files with
several instances are refused.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import numpy as np

from .abaqus_cards import read_cards
from .meshgroups import (LINEAR, MeshFormatError, boundary_faces, covered_faces, face_vertices,
                         grouped_mesh)

__all__ = ["SIDES", "read_abaqus"]

logger = logging.getLogger(__name__)

#: Abaqus face label Sn -> the face's vertices (0-based, Abaqus = VTK vertex order), per linear cell
SIDES = {
    "triangle": np.array([[0, 1], [1, 2], [2, 0]]),
    "quad": np.array([[0, 1], [1, 2], [2, 3], [3, 0]]),
    "tetra": np.array([[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]]),
    "hexahedron": np.array([[0, 1, 2, 3], [4, 7, 6, 5], [0, 4, 5, 1], [1, 5, 6, 2],
                            [2, 6, 7, 3], [3, 7, 4, 0]]),
}
_SOLID_2D = re.compile(r"^(CPE|CPS|CAX|CGAX|CPEG)(\d+)")
_SOLID_3D = re.compile(r"^C3D(\d+)")
_TYPES_2D = {3: "triangle", 4: "quad", 6: "triangle6", 8: "quad8"}
_TYPES_3D = {4: "tetra", 8: "hexahedron", 10: "tetra10", 20: "hexahedron20"}
_FACE_LABEL = re.compile(r"^S(\d)$")


def _cell_type(card) -> str | None:
    """The meshio type of an ``*ELEMENT`` card's solid element; None for other elements."""
    name = card.params.get("TYPE", "").upper()
    if not name:
        raise card.error("no TYPE=")
    planar, solid = _SOLID_2D.match(name), _SOLID_3D.match(name)
    if planar is None and solid is None:
        return None
    count = int((planar or solid).groups()[-1])
    kind = (_TYPES_2D if planar else _TYPES_3D).get(count)
    if kind is None:
        raise card.error(f"element type {name} is not supported (CPE/CPS/CAX 3, 4, 6, 8 nodes, "
                         f"C3D4, C3D8, C3D10, C3D20)")
    return kind


def _integers(card) -> np.ndarray:
    """Every field of the card's data lines as integers."""
    try:
        return np.array(",".join(card.lines).replace(",", " ").split(), dtype=np.int64)
    except ValueError:
        raise card.error("a field that is not an integer label") from None


def _node_table(card) -> np.ndarray:
    """The data lines of a ``*NODE`` card as rows (label, x, y, z), shape (n, 4); z = 0 when absent."""
    fields = [line.replace(",", " ").split() for line in card.lines]
    counts = {len(row) for row in fields}
    if not counts or min(counts) < 3 or max(counts) > 7:   # label, 2-3 coordinates, a normal
        raise card.error("a node line needs a label and 2 or 3 coordinates")
    try:
        if len(counts) == 1:
            table = np.array(fields, dtype=float)[:, :4]
        else:
            table = np.array([(row + ["0"])[:4] for row in fields], dtype=float)
    except ValueError:
        raise card.error("a node line with a field that is not a number") from None
    return np.hstack([table, np.zeros((len(table), 4 - table.shape[1]))])


class _Sets:
    """Named sets of labels, names not case sensitive, looked up with or without an instance prefix."""

    def __init__(self, kind: str):
        self.kind, self.labels, self.names, self.internal = kind, {}, {}, set()

    def key(self, card, name: str) -> str:
        key = name.upper()
        if key not in self.labels and "." in key and key.split(".", 1)[1] in self.labels:
            key = key.split(".", 1)[1]
        if key not in self.labels:
            raise card.error(f"{self.kind} set {name!r} is not defined before it is used")
        return key

    def get(self, card, name: str) -> np.ndarray:
        return np.concatenate(self.labels[self.key(card, name)] or [np.zeros(0, dtype=np.int64)])

    def add(self, name: str, labels: np.ndarray, internal: bool = False) -> None:
        key = name.upper()
        self.names.setdefault(key, name)
        self.labels.setdefault(key, []).append(np.asarray(labels, dtype=np.int64))
        if internal:
            self.internal.add(key)

    def members(self, card) -> np.ndarray:
        """The labels a ``*NSET``/``*ELSET`` card lists (labels, set names or GENERATE)."""
        if "GENERATE" in card.params:
            parts = []
            for row in card.data:
                try:
                    first, last, step = ([int(f) for f in row] + [1])[:3]
                except ValueError:
                    raise card.error("GENERATE needs first, last[, increment]") from None
                parts.append(np.arange(first, last + 1, max(step, 1)))
            return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        parts = []
        for row in card.data:
            for item in row:
                parts.append(np.array([int(item)]) if item.lstrip("-").isdigit()
                             else self.get(card, item))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class _Labels:
    """Positions of labels: node or element label -> row, vectorised."""

    def __init__(self, labels: np.ndarray, kind: str):
        self.order = np.argsort(labels, kind="stable")
        self.sorted = labels[self.order]
        self.kind = kind
        repeated = self.sorted[1:][self.sorted[1:] == self.sorted[:-1]]
        if repeated.size:
            raise MeshFormatError(f"{kind} {repeated[0]} is defined twice")

    def rows(self, labels: np.ndarray, what: str, strict: bool = True) -> np.ndarray:
        labels = np.asarray(labels, dtype=np.int64)
        at = np.clip(np.searchsorted(self.sorted, labels), 0, max(self.sorted.size - 1, 0))
        found = self.sorted.size > 0
        found = (self.sorted[at] == labels) if found else np.zeros(labels.shape, dtype=bool)
        if strict and not np.all(found):
            raise MeshFormatError(f"{what} names {self.kind} {labels[~found][0]}, which the "
                                  f"file does not define")
        return self.order[at[found]]


def _faces_of(cell_type, connectivity, elements, label, card) -> np.ndarray:
    """The faces of a surface line: face ``Sn`` of each element, or their exterior faces."""
    table = SIDES[LINEAR[cell_type]]
    if label is None:
        faces = connectivity[elements][:, table].reshape(-1, table.shape[1])
        exterior = boundary_faces(cell_type, connectivity)
        keys = np.sort(np.vstack([exterior, faces]), axis=1)
        _, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        return faces[np.isin(inverse[len(exterior):], inverse[:len(exterior)])]
    match = _FACE_LABEL.match(label.upper())
    if match is None or not 1 <= int(match.group(1)) <= len(table):
        raise card.error(f"face {label!r} is not a face label S1..S{len(table)} of "
                         f"{LINEAR[cell_type]} elements")
    return face_vertices(connectivity, table, elements,
                         np.full(len(elements), int(match.group(1)) - 1))


def read_abaqus(path) -> object:
    """Read an Abaqus or CalculiX input file into a :class:`~fecontact.io.meshgroups.GroupedMesh`.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    GroupedMesh
        Element sets as subdomains; surfaces and node sets as boundaries.

    Raises
    ------
    MeshFormatError
        One line with the file, the line and what is wrong.
    """
    path = Path(path)
    nodes, coords, blocks = [], [], []      # blocks: (cell type, element labels, node labels, type)
    nsets, elsets = _Sets("node"), _Sets("element")
    surfaces: dict = {}                     # name -> list of ("element", labels, face) / ("node", labels)
    cards = read_cards(path)
    has_parts = any(card.keyword == "PART" for card in cards)
    instances, scope = 0, "model"
    for card in cards:
        kw = card.keyword
        if kw in _SCOPES:
            scope = _SCOPES[kw]
        if kw == "INSTANCE":
            instances += 1
            moved = any(float(f) != 0.0 for row in card.data for f in row if _number(f))
            if instances > 1 or moved:
                raise card.error("several or moved part instances are not read; write the "
                                 "assembly as one flat mesh")
        elif has_parts and scope == "assembly" and _assembly_level(card):
            logger.info("%s: *%s of the assembly (reference points) skipped", card.where, kw)
        elif kw == "NODE":
            if not card.lines:
                continue
            table = _node_table(card)
            nodes.append(table[:, 0].astype(np.int64))
            coords.append(table[:, 1:])
            if "NSET" in card.params:
                nsets.add(card.params["NSET"], nodes[-1])
        elif kw == "ELEMENT":
            kind = _cell_type(card)
            if kind is None:
                logger.info("%s: elements of type %s skipped", card.where, card.params["TYPE"])
                continue
            n = {"triangle": 3, "quad": 4, "triangle6": 6, "quad8": 8, "tetra": 4,
                 "hexahedron": 8, "tetra10": 10, "hexahedron20": 20}[kind]
            values = _integers(card)
            if values.size % (n + 1):
                raise card.error(f"{card.params['TYPE']} needs a label and {n} nodes per element")
            values = values.reshape(-1, n + 1)
            blocks.append((kind, values[:, 0], values[:, 1:], card.params["TYPE"].upper()))
            if "ELSET" in card.params:
                elsets.add(card.params["ELSET"], values[:, 0])
        elif kw == "NSET":
            name = card.params.get("NSET") or _missing(card, "NSET")
            if "ELSET" in card.params:
                members = elsets.get(card, card.params["ELSET"])
                labels = [b[2][np.isin(b[1], members)].ravel() for b in blocks]
                nsets.add(name, np.unique(np.concatenate(labels or [np.zeros(0, np.int64)])))
            else:
                nsets.add(name, nsets.members(card), "INTERNAL" in card.params)
        elif kw == "ELSET":
            name = card.params.get("ELSET") or _missing(card, "ELSET")
            elsets.add(name, elsets.members(card), "INTERNAL" in card.params)
        elif kw == "SURFACE":
            name = card.params.get("NAME") or _missing(card, "NAME")
            surfaces[name] = (card, _surface_items(card, nsets, elsets))
    return _assemble(path.name, nodes, coords, blocks, nsets, elsets, surfaces)


# keyword -> the scope of the cards after it: a part's mesh, an instance of it, the assembly
_SCOPES = {"PART": "part", "END PART": "model", "ASSEMBLY": "assembly", "END ASSEMBLY": "model",
           "INSTANCE": "instance", "END INSTANCE": "assembly"}


def _assembly_level(card) -> bool:
    """Whether a card of the assembly (outside its instance) is about the assembly's own nodes.

    Nodes and elements there are reference points and rigid elements, numbered apart from the
    part's; a set there that lists labels without ``INSTANCE=`` names them.  A set of an
    instance's labels (``INSTANCE=``) or of other sets' names is about the part.
    """
    if card.keyword in ("NODE", "ELEMENT"):
        return True
    if card.keyword not in ("NSET", "ELSET") or "INSTANCE" in card.params:
        return False
    return "GENERATE" in card.params or all(f.lstrip("-").isdigit() for row in card.data for f in row)


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _missing(card, param: str):
    raise card.error(f"no {param}=")


def _surface_items(card, nsets, elsets) -> list:
    """The lines of a ``*SURFACE`` card as (kind, labels, face label or None)."""
    kind = card.params.get("TYPE", "ELEMENT").upper()
    if kind not in ("ELEMENT", "NODE"):
        raise card.error(f"TYPE={kind} surfaces are not read (ELEMENT and NODE are)")
    sets = elsets if kind == "ELEMENT" else nsets
    items = []
    for row in card.data:
        labels = (np.array([int(row[0])]) if row[0].lstrip("-").isdigit()
                  else sets.get(card, row[0]))
        face = row[1] if kind == "ELEMENT" and len(row) > 1 else None
        items.append((kind, labels, face))
    return items


def _assemble(source, nodes, coords, blocks, nsets, elsets, surfaces):
    """The GroupedMesh of the parsed nodes, solid elements, sets and surfaces."""
    if not nodes:
        raise MeshFormatError(f"{source}: no *NODE data")
    kinds = sorted({b[0] for b in blocks})
    if len(kinds) != 1:
        raise MeshFormatError(f"{source}: " + ("no solid elements (CPE/CPS/CAX, C3D)" if not kinds
                              else "solid elements of different kinds (" + ", ".join(kinds)
                              + "); use one element type per body"))
    cell_type = kinds[0]
    try:
        node_rows = _Labels(np.concatenate(nodes), "node")
        element_rows = _Labels(np.concatenate([b[1] for b in blocks]), "element")
    except MeshFormatError as err:
        raise MeshFormatError(f"{source}: {err}") from None
    points = np.vstack(coords)
    connectivity = node_rows.rows(np.vstack([b[2] for b in blocks]).ravel(), f"{source}: *ELEMENT")
    connectivity = connectivity.reshape(-1, blocks[0][2].shape[1])
    element_sets = {}
    for key, parts in elsets.labels.items():
        if key in elsets.internal:
            continue
        rows = element_rows.rows(np.concatenate(parts), "", strict=False)
        if rows.size:
            element_sets[elsets.names[key]] = rows
    facet_sets = {}
    for name, (card, items) in surfaces.items():
        pieces = [_faces_of(cell_type, connectivity, element_rows.rows(labels, "", strict=False),
                            face, card) for kind, labels, face in items if kind == "ELEMENT"]
        on_nodes = [node_rows.rows(labels, card.where) for kind, labels, _ in items if kind == "NODE"]
        if on_nodes:           # the faces whose vertices all lie in the surface's nodes
            pieces.append(covered_faces(boundary_faces(cell_type, connectivity),
                                        np.concatenate(on_nodes), len(points)))
        k = SIDES[LINEAR[cell_type]].shape[1]
        facet_sets[name] = np.vstack(pieces) if pieces else np.zeros((0, k), dtype=np.int64)
    node_sets = {nsets.names[key]: node_rows.rows(np.concatenate(parts), f"{source}: node set "
                                                  f"{nsets.names[key]!r}")
                 for key, parts in nsets.labels.items() if key not in nsets.internal}
    quadratic = tuple(sorted({b[3] for b in blocks if LINEAR[b[0]] != b[0]}))
    return grouped_mesh(source, points, cell_type, connectivity, element_sets, facet_sets,
                        node_sets, quadratic)
