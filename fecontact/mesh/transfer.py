r"""Interpolation of a field given at the vertices of one mesh at arbitrary points.

The operator of nested iteration (:mod:`fecontact.analysis.nested`): a
solution on a coarse mesh of a body, evaluated at the DOF nodes of a finer
mesh of the same body, starts the fine solve.  The coarse mesh need not be
nested in the fine one (two Gmsh meshes of one geometry will do).

The field is interpolated linearly on simplices: a triangle or tetrahedron
mesh as it is, quadrilaterals and hexahedra split into simplices
(:meth:`skfem.MeshQuad1.to_meshtri`, :meth:`skfem.MeshHex1.to_meshtet`, which
keep the vertices).  A point ``x`` inside simplex ``e`` with vertices
``p_0 .. p_d`` gets the weights of its barycentric coordinates,

.. math::

    \begin{bmatrix}\xi_1 \\ \vdots \\ \xi_d\end{bmatrix}
    = A_e^{-1} (x - p_0), \quad A_e = [p_1 - p_0, \dots, p_d - p_0], \quad
    \xi_0 = 1 - \sum_{i \ge 1} \xi_i,

so the interpolant of a field linear in ``x`` is exact.  A point is looked
for in the :data:`CANDIDATES` simplices whose centroids are nearest to it,
then, if it is in none, by a walk: from the best of them to the neighbour
across the face opposite the least barycentric coordinate, and so on (at
most :data:`WALK` steps, or until the boundary).  A point in none of
them -- outside the mesh, like the nodes of a curved boundary meshed finer
than the coarse polygon -- takes the coordinates of the best candidate clipped to ``xi >= 0`` and
renormalised: close to the value at the closest point of the mesh when the
point is close to it, which is what a prediction needs.  The search costs a
fraction of a second per hundred thousand points.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import skfem
from scipy.spatial import cKDTree

__all__ = ["linear_simplices", "interpolation_matrix"]

#: Candidate simplices tried per point (nearest centroids)
CANDIDATES = 4
#: Steps of the walk from simplex to neighbouring simplex for the points the candidates miss
WALK = 16
#: A point is inside a simplex when no barycentric coordinate is below minus this
INSIDE = 1e-12


def _split(mesh: skfem.Mesh) -> skfem.Mesh:
    """Quadrilaterals and hexahedra split into simplices, on the same vertices; simplices as they are."""
    if isinstance(mesh, skfem.MeshQuad1):
        return mesh.to_meshtri()
    if isinstance(mesh, skfem.MeshHex1):
        return mesh.to_meshtet()
    return mesh


def _neighbours(mesh: skfem.Mesh) -> np.ndarray:
    """``N[i, e]``: the simplex across the face of ``e`` opposite its vertex ``i``, or -1 (boundary).

    Parameters
    ----------
    mesh : skfem.MeshTri1 or skfem.MeshTet1

    Returns
    -------
    ndarray of int, shape (dim + 1, n_simplices)
    """
    t, faces = mesh.t, mesh.t2f                             # (d+1, nt), (d+1, nt)
    corners = mesh.facets[:, faces]                         # (d, d+1, nt): vertices of each face
    lacks = ~np.any(corners[None] == t[:, None, None], axis=1)   # (i, k, e): face k lacks vertex i
    face = faces[np.argmax(lacks, axis=1), np.arange(t.shape[1])]  # (d+1, nt)
    pair = mesh.f2t[:, face]                                # (2, d+1, nt)
    other = np.where(pair[0] == np.arange(t.shape[1]), pair[1], pair[0])
    return other


def linear_simplices(mesh: skfem.Mesh) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and simplices of a mesh, quadrilaterals and hexahedra split.

    Parameters
    ----------
    mesh : skfem.Mesh
        ``MeshTri1``, ``MeshTet1``, ``MeshQuad1`` or ``MeshHex1``.

    Returns
    -------
    p : ndarray, shape (dim, n_vertices)
        The mesh's vertices, in its own numbering.
    t : ndarray of int, shape (dim + 1, n_simplices)
    """
    mesh = _split(mesh)
    dim = mesh.p.shape[0]
    return mesh.p, mesh.t[: dim + 1]


def interpolation_matrix(mesh: skfem.Mesh, points: np.ndarray,
                         candidates: int = CANDIDATES) -> sp.csr_matrix:
    r"""The matrix ``P`` with ``(P f)[i]`` the linear interpolant of vertex values ``f`` at ``points[:, i]``.

    Parameters
    ----------
    mesh : skfem.Mesh
        Where the field lives (see :func:`linear_simplices`).
    points : ndarray, shape (dim, n)
        Where it is wanted (scikit-fem convention).
    candidates : int
        Simplices, nearest by centroid, in which each point is looked for.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, n_vertices)
        Non-negative weights summing to one in every row.
    """
    mesh_split = _split(mesh)
    p, t = linear_simplices(mesh_split)        # already split: the same mesh
    dim, n = points.shape[0], points.shape[1]
    if dim != p.shape[0]:
        raise ValueError(f"points of dimension {dim} for a mesh of dimension {p.shape[0]}")
    corners = p[:, t]                                         # (dim, dim+1, n_simplices)
    origin = corners[:, 0]                                    # (dim, n_simplices)
    inverse = np.linalg.inv(np.moveaxis(corners[:, 1:] - origin[:, None], -1, 0))
    xi = np.zeros((n, dim + 1))
    simplex = np.zeros(n, dtype=np.int64)
    worst = np.full(n, -np.inf)                # least barycentric coordinate of the best simplex

    def consider(todo: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Points ``todo`` in simplices ``e``: keep each where it is the best so far; coordinates."""
        local = np.einsum("nij,jn->ni", inverse[e], points[:, todo] - origin[:, e])
        trial = np.concatenate([1.0 - local.sum(axis=1, keepdims=True), local], axis=1)
        least = trial.min(axis=1)
        better = least > worst[todo]
        xi[todo[better]], simplex[todo[better]], worst[todo[better]] = \
            trial[better], e[better], least[better]
        return trial

    todo = np.arange(n)
    k = min(candidates, t.shape[1])
    near = cKDTree(corners.mean(axis=1).T).query(points.T, k)[1].reshape(n, k)
    for j in range(k):
        consider(todo, near[:, j])
        outside = worst[todo] < -INSIDE
        todo, near = todo[outside], near[outside]
    # the rest walk (a visibility walk): to the neighbour across the face opposite the least
    # barycentric coordinate of the current simplex, keeping the best simplex met
    neighbour = _neighbours(mesh_split)
    current, coordinates = simplex[todo], xi[todo]
    for _ in range(WALK):
        e = neighbour[np.argmin(coordinates, axis=1), current]
        keep = e >= 0                             # a point past the boundary stops there
        todo, current = todo[keep], e[keep]
        coordinates = consider(todo, current)
        going = coordinates.min(axis=1) < -INSIDE
        todo, current, coordinates = todo[going], current[going], coordinates[going]
    weights = np.clip(xi, 0.0, None)
    weights /= weights.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    cols = t[:, simplex].T                                    # (n, dim+1)
    return sp.csr_matrix((weights.ravel(), (np.repeat(rows, dim + 1), cols.ravel())),
                         shape=(n, p.shape[1]))
