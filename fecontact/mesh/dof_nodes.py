"""DOF-node numbers of the edges, faces and elements of a mesh.

A body's DOF nodes are numbered as scikit-fem numbers the DOFs of its
element: vertices ``0 .. V-1``, then one node per mesh edge (3D) ``V + e``,
then one per facet, then one per element, each group present only if the
element has nodes there:

============  =======================  ==========================  =====================
kind          edge ``e`` (3D)           facet ``f``                 element ``k``
============  =======================  ==========================  =====================
P2, Q2S 3D    ``V + e``                 (none)                      (none)
P2, Q2S 2D    facets are edges          ``V + f``                   (none)
Q2 2D         facets are edges          ``V + f``                   ``V + F + k``
Q2 3D         ``V + e``                 ``V + E + f``               ``V + E + F + k``
============  =======================  ==========================  =====================

(``E``, ``F``: the numbers of edges and facets of the mesh.)
"""

from __future__ import annotations

import numpy as np
import skfem

__all__ = ["edge_nodes", "midpoint_nodes", "face_nodes", "face_nodes_of", "interior_nodes"]


def edge_nodes(mesh: skfem.Mesh, edges: np.ndarray) -> np.ndarray:
    """DOF node at the midpoint of mesh edges (facets in 2D): the vertex count plus the edge index."""
    return mesh.p.shape[1] + np.asarray(edges)


def midpoint_nodes(mesh: skfem.Mesh, candidates: np.ndarray, a: np.ndarray,
                   b: np.ndarray) -> np.ndarray:
    """Edge-midpoint DOF node between vertices ``a`` and ``b`` (3D).

    Parameters
    ----------
    mesh : skfem.Mesh
    candidates : ndarray of int, shape (k, n)
        Edges of each of ``n`` facets or elements (``mesh.f2e[:, facets]``
        or ``mesh.t2e``), one of which joins ``a[i]`` and ``b[i]``.
    a, b : ndarray of int, shape (n,)

    Returns
    -------
    ndarray of int, shape (n,)
    """
    ends = np.sort(mesh.edges[:, candidates], axis=0)        # (2, k, n)
    match = (ends[0] == np.minimum(a, b)) & (ends[1] == np.maximum(a, b))
    if not np.all(match.sum(axis=0) == 1):
        raise RuntimeError("inconsistent edge table")
    return edge_nodes(mesh, candidates[match.argmax(axis=0), np.arange(candidates.shape[1])])


def face_nodes(mesh: skfem.Mesh, facets: np.ndarray) -> np.ndarray:
    """DOF node at the centre of 3D facets (quadrilateral faces of Q2 hexahedra): ``V + E + f``."""
    return mesh.p.shape[1] + mesh.edges.shape[1] + np.asarray(facets)


def face_nodes_of(mesh: skfem.Mesh, elements: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Face-centre DOF node of the face of each element with the given four vertices (3D).

    Parameters
    ----------
    mesh : skfem.Mesh
    elements : ndarray of int, shape (n,)
    corners : ndarray of int, shape (4, n)
        The vertices of one face of each element, in any order.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    candidates = mesh.t2f[:, elements]                       # (6, n)
    faces = np.sort(mesh.facets[:, candidates], axis=0)      # (4, 6, n)
    match = np.all(faces == np.sort(corners, axis=0)[:, None, :], axis=0)
    if not np.all(match.sum(axis=0) == 1):
        raise RuntimeError("inconsistent facet table")
    return face_nodes(mesh, candidates[match.argmax(axis=0), np.arange(candidates.shape[1])])


def interior_nodes(mesh: skfem.Mesh, elements: np.ndarray) -> np.ndarray:
    """DOF node inside elements of kinds with a node on every edge, facet and element (Q2).

    ``V + F + k`` in 2D, ``V + E + F + k`` in 3D.
    """
    before = mesh.p.shape[1] + mesh.facets.shape[1]
    if mesh.dim() == 3:
        before += mesh.edges.shape[1]
    return before + np.asarray(elements)
