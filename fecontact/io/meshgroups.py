"""Element and facet groups of a mesh file, in the form :func:`fecontact.io.meshfile.from_meshio_mesh` reads.

The readers of other tools' files (:mod:`.exodus`, :mod:`.abaqus`) each
produce a :class:`GroupedMesh`: a meshio mesh of the elements, with the
named facet groups as Gmsh physical groups of dimension ``dim - 1`` (facet
cells tagged ``gmsh:physical``, names in ``field_data``), so that the Gmsh
conversion matches them to the scikit-fem facets; and the named element
groups as element rows, attached as ``mesh.subdomains`` after the
conversion (their names may repeat boundary names, which ``field_data``
could not hold).

Element vertices are in the VTK (meshio) order, which is the order of the
linear elements of Exodus II and Abaqus too; a quadratic element keeps its
extra nodes after its vertices, in the VTK order.

Face tables (``FACES``) give the vertices of each face of an element, as
indices into its VTK vertex order.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

__all__ = ["MeshFormatError", "GroupedMesh", "FACES", "LINEAR", "face_vertices", "boundary_faces",
           "covered_faces", "grouped_mesh"]

logger = logging.getLogger(__name__)


class MeshFormatError(ValueError):
    """A mesh file of another tool that cannot be used (one line: the file and what is wrong)."""


# every face of a linear cell, as vertex indices in the VTK order (any numbering: used to find the
# boundary faces that a node set covers)
FACES = {
    "triangle": np.array([[0, 1], [1, 2], [2, 0]]),
    "quad": np.array([[0, 1], [1, 2], [2, 3], [3, 0]]),
    "tetra": np.array([[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]]),
    "hexahedron": np.array([[0, 1, 2, 3], [4, 7, 6, 5], [0, 4, 5, 1], [1, 5, 6, 2],
                            [2, 6, 7, 3], [3, 7, 4, 0]]),
}

#: meshio cell type -> the linear cell of its vertices (quadratic types keep their vertices first)
LINEAR = {"triangle": "triangle", "triangle6": "triangle", "quad": "quad", "quad8": "quad",
          "quad9": "quad", "tetra": "tetra", "tetra10": "tetra", "hexahedron": "hexahedron",
          "hexahedron20": "hexahedron", "hexahedron27": "hexahedron"}
_LINEAR_MESHES = ("MeshTri1", "MeshQuad1", "MeshTet1", "MeshHex1")


def face_vertices(connectivity: np.ndarray, table: np.ndarray, elements: np.ndarray,
                  sides: np.ndarray) -> np.ndarray:
    """The vertices of element faces given by element and local side.

    Parameters
    ----------
    connectivity : ndarray of int, shape (n_elements, n_nodes)
        Element nodes, vertices first.
    table : ndarray of int, shape (n_sides, k)
        Vertex indices of each side, in the file format's side numbering.
    elements : ndarray of int, shape (m,)
        Rows of ``connectivity``.
    sides : ndarray of int, shape (m,)
        Local side indices, from 0.

    Returns
    -------
    ndarray of int, shape (m, k)
        ``connectivity[elements[i], table[sides[i]]]``.
    """
    return connectivity[np.asarray(elements)[:, None], table[np.asarray(sides)]]


@dataclass(frozen=True)
class GroupedMesh:
    """A mesh file read into a meshio mesh with named facet groups, and its element groups.

    Attributes
    ----------
    source : str
        The file name, for messages.
    mesh : meshio.Mesh
        Points, one element block, facet blocks tagged ``gmsh:physical``
        with names of dimension ``dim - 1`` in ``field_data``.
    subdomains : dict
        Name -> sorted element indices (rows of the element block).
    quadratic : tuple of str
        The file's names of its quadratic element types (empty for a
        linear mesh).
    """

    source: str
    mesh: object
    subdomains: dict = field(default_factory=dict)
    quadratic: tuple = ()

    def finish(self, skmesh):
        """The scikit-fem mesh converted from :attr:`mesh`, with the subdomains attached.

        Raises
        ------
        MeshFormatError
            When the file's elements are quadratic and the conversion gave
            a linear mesh (no quadratic element of that kind yet): a
            quadratic mesh never becomes linear silently; or when the file
            repeats an element (the element sets would not match).
        """
        if skmesh.t.shape[1] != len(self.mesh.cells[0].data):
            raise MeshFormatError(f"{self.source}: elements with the same nodes appear more than "
                                  f"once")
        if self.quadratic and type(skmesh).__name__ in _LINEAR_MESHES:
            raise MeshFormatError(f"{self.source}: quadratic elements ({', '.join(self.quadratic)}) "
                                  f"are not read yet; export the mesh with linear elements")
        return skmesh.with_subdomains(self.subdomains) if self.subdomains else skmesh


def boundary_faces(cell_type: str, connectivity: np.ndarray) -> np.ndarray:
    """Faces of the mesh that belong to one element only, shape (n_faces, k), vertex indices."""
    table = FACES[LINEAR[cell_type]]
    faces = connectivity[:, table].reshape(-1, table.shape[1])
    _, first, counts = np.unique(np.sort(faces, axis=1), axis=0, return_index=True,
                                 return_counts=True)
    return faces[np.sort(first[counts == 1])]


def covered_faces(faces: np.ndarray, nodes: np.ndarray, n_points: int) -> np.ndarray:
    """The rows of ``faces`` (shape (m, k)) whose vertices all lie in ``nodes``."""
    inside = np.zeros(n_points, dtype=bool)
    inside[np.asarray(nodes, dtype=np.int64)] = True
    return faces[np.all(inside[faces], axis=1)]


def grouped_mesh(source: str, points: np.ndarray, cell_type: str, connectivity: np.ndarray,
                 element_sets: dict, facet_sets: dict, node_sets: dict,
                 quadratic: tuple = ()) -> GroupedMesh:
    """The :class:`GroupedMesh` of a file's elements and its named element, facet and node sets.

    Parameters
    ----------
    source : str
        The file name, for messages.
    points : ndarray of float, shape (n_points, 2 or 3)
    cell_type : str
        meshio cell type of every element (``"quad"``, ``"tetra"``,
        ``"hexahedron20"``, ...).
    connectivity : ndarray of int, shape (n_elements, n_nodes)
        Element nodes in the VTK order, indices into ``points``.
    element_sets : dict
        Name -> element indices (rows of ``connectivity``): the subdomains.
    facet_sets : dict
        Name -> facet vertices, ndarray of int, shape (m, k) (``k = 2`` in
        2D, 3 or 4 in 3D): the boundaries.
    node_sets : dict
        Name -> node indices.  A node set becomes the boundary of the
        mesh's boundary faces whose vertices all lie in it, unless a facet
        set has its name (the facet set wins) or it covers no whole face
        (single nodes, edges in 3D: not a boundary, skipped).
    quadratic : tuple of str
        The file's names of its quadratic element types, if any.

    Returns
    -------
    GroupedMesh
    """
    import meshio

    connectivity = np.asarray(connectivity, dtype=np.int64)
    boundary = boundary_faces(cell_type, connectivity) if node_sets else None
    facets = {name: np.asarray(rows, dtype=np.int64) for name, rows in facet_sets.items()}
    for name, nodes in node_sets.items():
        if name in facets:
            logger.debug("%s: node set %r has the name of a side set; the side set is used",
                         source, name)
            continue
        covered = covered_faces(boundary, nodes, points.shape[0])
        if covered.size:
            facets[name] = covered
        else:
            logger.info("%s: node set %r covers no boundary facet; not a boundary", source, name)
    dim = 2 if LINEAR[cell_type] in ("triangle", "quad") else 3
    cells = [(cell_type, connectivity)]
    tags = [np.zeros(len(connectivity), dtype=np.int64)]
    field_data = {}
    for tag, (name, rows) in enumerate(facets.items(), start=1):
        field_data[name] = np.array([tag, dim - 1])
        k = rows.shape[1] if rows.ndim == 2 else (2 if dim == 2 else 3)
        rows = rows.reshape(-1, k)
        if rows.size:
            cells.append(({2: "line", 3: "triangle", 4: "quad"}[k], rows))
            tags.append(np.full(len(rows), tag, dtype=np.int64))
    mesh = meshio.Mesh(np.asarray(points, dtype=float), cells, cell_data={"gmsh:physical": tags},
                       field_data=field_data)
    subdomains = {name: np.unique(np.asarray(rows, dtype=np.int64))
                  for name, rows in element_sets.items()}
    return GroupedMesh(source, mesh, subdomains, tuple(quadratic))
