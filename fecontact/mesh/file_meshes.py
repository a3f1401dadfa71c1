"""Linear scikit-fem meshes that remember the quadratic cells and node positions of their file.

A mesh file of quadratic cells (Gmsh ``triangle6``, ``quad8``, ``quad9``,
``tetra10``, ``hexahedron20``, ``hexahedron27``) is read into the linear
mesh of its vertices and elements (:func:`fecontact.io.meshfile.from_meshio_mesh`):
the element kind of a body puts its own DOF nodes on the edges, faces and
elements.  So that the quadratic element stays the default of such a mesh,
it comes back as one of the types below: each *is* the linear scikit-fem
mesh type (a subclass adding the field ``nodes``), and each is the default mesh type of
one element kind (:attr:`fecontact.mesh.elements.Cell.defaults`):

=================  ====================  ==============
type               file cell             default kind
=================  ====================  ==============
``MeshTri6``       ``triangle6``         P2
``MeshTet10``      ``tetra10``           P2
``MeshQuad8``      ``quad8``             Q2S
``MeshQuad9``      ``quad9``             Q2
``MeshHex20``      ``hexahedron20``      Q2S
``MeshHex27``      ``hexahedron27``      Q2
=================  ====================  ==============

Each also carries the positions of the file's nodes, ``nodes`` (shape
``(dim, n)``, ``None`` when built without them): the geometry nodes of
:mod:`fecontact.mesh.geometry`, numbered as scikit-fem numbers the DOFs of
the quadratic geometry element (``ElementTriP2``, ``ElementTetP2``,
``ElementQuad2``, ``ElementHex2``) on the linear mesh, face and centre nodes
of ``quad8``/``hexahedron20`` cells interpolated.  A body of a quadratic
kind maps its elements through them (isoparametric, curved edges); a body
of ``P1`` or ``Q1`` uses the straight linear mesh.

The type and its nodes survive scikit-fem's copying methods that keep the
vertices and elements (``with_boundaries``, ``with_subdomains``: a
dataclass field); a mesh moved or refined after reading keeps stale nodes,
which a body refuses (:func:`fecontact.mesh.geometry.geometry_mesh`).

Example
-------
>>> import skfem
>>> from fecontact.mesh.file_meshes import MeshQuad9
>>> m = skfem.MeshQuad1()
>>> q9 = MeshQuad9(m.p, m.t).with_boundaries({"left": lambda x: x[0] == 0.0})
>>> type(q9).__name__, isinstance(q9, skfem.MeshQuad1)
('MeshQuad9', True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import skfem

__all__ = ["MeshTri6", "MeshTet10", "MeshQuad8", "MeshQuad9", "MeshHex20", "MeshHex27",
           "FILE_MESHES"]


@dataclass(repr=False, eq=False)
class MeshTri6(skfem.MeshTri1):
    """Triangles read from six-node triangles, with their nodes (default element P2)."""

    nodes: np.ndarray | None = None


@dataclass(repr=False, eq=False)
class MeshTet10(skfem.MeshTet1):
    """Tetrahedra read from ten-node tetrahedra, with their nodes (default element P2)."""

    nodes: np.ndarray | None = None


@dataclass(repr=False, eq=False)
class MeshQuad8(skfem.MeshQuad1):
    """Quadrilaterals read from eight-node quadrilaterals, with their nodes (default element Q2S)."""

    nodes: np.ndarray | None = None


@dataclass(repr=False, eq=False)
class MeshQuad9(skfem.MeshQuad1):
    """Quadrilaterals read from nine-node quadrilaterals, with their nodes (default element Q2)."""

    nodes: np.ndarray | None = None


@dataclass(repr=False, eq=False)
class MeshHex20(skfem.MeshHex1):
    """Hexahedra read from 20-node hexahedra, with their nodes (default element Q2S)."""

    nodes: np.ndarray | None = None


@dataclass(repr=False, eq=False)
class MeshHex27(skfem.MeshHex1):
    """Hexahedra read from 27-node hexahedra, with their nodes (default element Q2)."""

    nodes: np.ndarray | None = None


#: meshio cell type of a quadratic file -> the mesh type its linear mesh is returned as
FILE_MESHES = {"triangle6": MeshTri6, "tetra10": MeshTet10, "quad8": MeshQuad8,
               "quad9": MeshQuad9, "hexahedron20": MeshHex20, "hexahedron27": MeshHex27}
