"""What a :class:`fecontact.model.Body` accepts as its mesh, and where its supports and loads go.

:func:`as_linear_mesh` turns a scikit-fem mesh (linear or quadratic), a
meshio mesh or a file path into the linear scikit-fem mesh a body is built
on; :func:`element_name` names the element kind given, or picks it from
the mesh when none is given (:func:`fecontact.mesh.elements.default_kind`); :func:`facets_where` selects boundary facets by a predicate on
coordinates, as scikit-fem's :meth:`skfem.Mesh.facets_satisfying` does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import skfem

from ..io.meshfile import load_mesh
from ..mesh.elements import KINDS, default_kind, element_kind
from ..mesh.file_meshes import MeshHex27, MeshQuad9, MeshTet10, MeshTri6
from ..mesh.geometry import nodes_of_quadratic_mesh

#: quadratic scikit-fem mesh type -> the linear mesh type of its vertices and elements, which
#: carries its node positions (:mod:`fecontact.mesh.file_meshes`)
QUADRATIC = {skfem.MeshTri2: MeshTri6, skfem.MeshTet2: MeshTet10,
             skfem.MeshQuad2: MeshQuad9, skfem.MeshHex2: MeshHex27}


def _facet_keys(facets: np.ndarray) -> np.ndarray:
    """Sorted vertex tuples of facets as rows, shape (n, k)."""
    return np.sort(facets, axis=0).T


def _linear_of_quadratic(mesh: skfem.Mesh) -> skfem.Mesh:
    """The linear mesh of a quadratic one: its vertices and elements, same boundaries and subdomains.

    It carries the quadratic mesh's node positions (``nodes``,
    :func:`fecontact.mesh.geometry.nodes_of_quadratic_mesh`), through which a
    quadratic body maps its elements.
    """
    linear_type = QUADRATIC[type(mesh)]
    used = np.unique(mesh.t)
    renumber = np.full(mesh.p.shape[1], -1)
    renumber[used] = np.arange(used.size)
    out = linear_type(np.ascontiguousarray(mesh.p[:, used]), np.ascontiguousarray(renumber[mesh.t]))
    out = replace(out, nodes=nodes_of_quadratic_mesh(mesh, out, used))
    boundaries = {}
    if mesh.boundaries:
        keys = _facet_keys(out.facets)
        for name, facets in mesh.boundaries.items():
            wanted = _facet_keys(renumber[mesh.facets[:, facets]])
            _, inverse = np.unique(np.vstack([keys, wanted]), axis=0, return_inverse=True)
            inverse = inverse.ravel()
            position = np.full(inverse.max() + 1, -1)
            position[inverse[:len(keys)]] = np.arange(len(keys))
            boundaries[name] = position[inverse[len(keys):]]
    if boundaries:
        out = out.with_boundaries(boundaries)
    if mesh.subdomains:
        out = out.with_subdomains(dict(mesh.subdomains))
    return out


def as_linear_mesh(mesh, where: str = "mesh") -> skfem.Mesh:
    """The linear scikit-fem mesh a body is built on.

    Parameters
    ----------
    mesh : skfem.Mesh, meshio.Mesh, str or pathlib.Path
        A scikit-fem mesh (``MeshTri1``, ``MeshQuad1``, ``MeshTet1``,
        ``MeshHex1``, or their quadratic versions, of which the vertices and
        elements are kept with the node positions), a meshio mesh, or a mesh file (Gmsh ``.msh``
        with its physical groups as named boundaries and subdomains, or any
        format meshio reads); a file or meshio mesh of quadratic cells gives
        the linear mesh type that remembers them
        (:mod:`fecontact.mesh.file_meshes`).
    where : str
        How error messages name the mesh.

    Returns
    -------
    skfem.Mesh
        A linear mesh with the boundaries (and subdomains) of the input.

    Raises
    ------
    ValueError
        For a file that cannot be read or an unsupported mesh type.
    """
    if isinstance(mesh, (str, Path)):
        path = Path(mesh)
        if not path.is_file():
            raise ValueError(f"{where}: mesh file not found ({path})")
        from ..io.meshfile import MeshFileError

        try:
            return load_mesh(path)
        except MeshFileError as err:
            text = str(err) if str(err).startswith("cannot read mesh") else f"cannot read mesh ({err})"
            raise ValueError(f"{where}: {text}") from None
    if type(mesh).__module__.startswith("meshio"):
        from ..io.meshfile import from_meshio_mesh

        return from_meshio_mesh(mesh)
    if type(mesh) in QUADRATIC:
        return _linear_of_quadratic(mesh)
    if isinstance(mesh, tuple({c.mesh for kind in KINDS.values() for c in kind.cells})):
        return mesh
    raise ValueError(f"{where}: a body needs a scikit-fem MeshTri, MeshQuad, MeshTet or MeshHex, "
                     f"a meshio mesh or a file path, got {type(mesh).__name__}")


def element_name(element, mesh_in, mesh: skfem.Mesh) -> str:
    """The element name of a body: given as a name, a kind or a scikit-fem element, or chosen from the mesh.

    Parameters
    ----------
    element : str, ElementKind, skfem.Element, skfem.Element subclass or None
        ``"P1"``, ``"P2"``, ``"Q1"``, ``"Q2"``, ``"Q2S"`` (any registered
        kind of :mod:`fecontact.mesh.elements`, or an alias: ``"Q9"``,
        ``"Q8"``), its record, a scalar or vector
        scikit-fem element of those kinds (``skfem.ElementTriP2()``), or
        ``None``: the default kind of the mesh type
        (:func:`~fecontact.mesh.elements.default_kind`): the quadratic
        element of a quadratic mesh, so that a quadratic mesh never
        becomes linear unless a linear element is named: ``"P2"`` on
        ``MeshTri2``, ``MeshTet2`` and files of ``triangle6`` or
        ``tetra10`` cells, ``"Q2"`` on ``MeshQuad2``, ``MeshHex2`` and files
        of ``quad9`` or ``hexahedron27`` cells, ``"Q2S"`` on files of
        ``quad8`` or ``hexahedron20`` cells (:mod:`fecontact.mesh.file_meshes`);
        ``"P1"`` on linear triangles and tetrahedra, ``"Q1"`` on linear
        quadrilaterals and hexahedra.
    mesh_in : object
        The mesh as the user gave it (for the quadratic default).
    mesh : skfem.Mesh
        The linear mesh.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For an element no registered kind has.
    """
    if element is None:
        return default_kind(mesh_in if isinstance(mesh_in, skfem.Mesh) else mesh).name
    return element_kind(element).name


def facets_where(mesh: skfem.Mesh, test) -> np.ndarray:
    """Boundary facets whose midpoints satisfy ``test(x) -> bool array``, as scikit-fem selects them.

    Parameters
    ----------
    mesh : skfem.Mesh
    test : callable
        Takes coordinates of shape (dim, n) and returns a boolean array of
        shape (n,).

    Returns
    -------
    ndarray of int
        Facet indices (possibly empty).
    """
    return np.asarray(mesh.facets_satisfying(test, boundaries_only=True), dtype=int)
