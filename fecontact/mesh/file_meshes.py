"""Linear scikit-fem meshes that remember the quadratic cells of the file they were read from.

A mesh file of quadratic cells (Gmsh ``triangle6``, ``quad8``, ``quad9``,
``tetra10``, ``hexahedron20``, ``hexahedron27``) is read into the linear
mesh of its vertices and elements (:func:`fecontact.io.meshfile.from_meshio_mesh`):
the element kind of a body puts its own DOF nodes on the edges, faces and
elements.  So that the quadratic element stays the default of such a mesh,
it comes back as one of the types below: each *is* the linear scikit-fem
mesh type (a subclass adding nothing), and each is the default mesh type of
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

The type survives scikit-fem's copying methods (``with_boundaries``,
``with_subdomains``, ``refined``, ...), which keep the class of the mesh.

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

import skfem

__all__ = ["MeshTri6", "MeshTet10", "MeshQuad8", "MeshQuad9", "MeshHex20", "MeshHex27",
           "FILE_MESHES"]


class MeshTri6(skfem.MeshTri1):
    """Straight-sided triangles read from six-node triangles (default element P2)."""


class MeshTet10(skfem.MeshTet1):
    """Straight-edged tetrahedra read from ten-node tetrahedra (default element P2)."""


class MeshQuad8(skfem.MeshQuad1):
    """Bilinear quadrilaterals read from eight-node quadrilaterals (default element Q2S)."""


class MeshQuad9(skfem.MeshQuad1):
    """Bilinear quadrilaterals read from nine-node quadrilaterals (default element Q2)."""


class MeshHex20(skfem.MeshHex1):
    """Trilinear hexahedra read from 20-node hexahedra (default element Q2S)."""


class MeshHex27(skfem.MeshHex1):
    """Trilinear hexahedra read from 27-node hexahedra (default element Q2)."""


#: meshio cell type of a quadratic file -> the mesh type its linear mesh is returned as
FILE_MESHES = {"triangle6": MeshTri6, "tetra10": MeshTet10, "quad8": MeshQuad8,
               "quad9": MeshQuad9, "hexahedron20": MeshHex20, "hexahedron27": MeshHex27}
