r"""Shape parameters: perturbations of a boundary's nodes, moved into the body by a stated rule.

A shape parameter ``s`` of ``k`` numbers moves the ``k`` nodes of a
boundary, node ``i`` by ``s_i d_i`` along its direction ``d_i`` (the
outward unit normal of the boundary at the node, the facet normals averaged
with the facets' measures as weights; or one fixed unit vector), and the
rest of the body by the **harmonic extension** of that motion: each
component of the node displacement field ``V`` solves Laplace's equation on
the undeformed mesh,

.. math::

    K_{II} V_I = -K_{IB} V_B ,

with ``V_B`` the boundary motion on the parameter's nodes and zero on every
other node of the body's boundary (``K`` the P1/Q1 Laplacian on the
vertices).  With ``extension="none"`` only the boundary's nodes move.  The
map ``s -> V`` is linear and fixed (made once on the undeformed mesh), so
the coordinates ``X = X_0 + V(s)`` are linear in ``s`` and the gradient
with respect to ``s`` has one entry per node.

Only bodies of linear elements (P1, Q1) take shape parameters: on
quadratic bodies the edge nodes would need a rule of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import skfem
from scipy.sparse.linalg import splu
from skfem.models.poisson import laplace

from .parameters import new_key

__all__ = ["ShapeParameter", "boundary_normals", "harmonic_extension"]

EXTENSIONS = ("harmonic", "none")


def boundary_normals(mesh: skfem.Mesh, facets: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Outward unit normals at ``nodes``: the measure-weighted mean of their boundary facets' normals.

    Parameters
    ----------
    mesh : skfem.Mesh
        A linear mesh (2D segments, 3D triangle or quadrilateral facets).
    facets : ndarray of int, shape (f,)
        Boundary facets.
    nodes : ndarray of int, shape (k,)
        Vertices of these facets.

    Returns
    -------
    ndarray, shape (k, dim)
    """
    dim = mesh.p.shape[0]
    corners = mesh.p[:, mesh.facets[:, facets]]                   # (dim, nf, f)
    if dim == 2:
        t = corners[:, 1] - corners[:, 0]
        n = np.stack([t[1], -t[0]])
    elif mesh.facets.shape[0] == 3:
        n = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0], axis=0)
    else:
        n = 0.5 * np.cross(corners[:, 2] - corners[:, 0], corners[:, 3] - corners[:, 1], axis=0)
    centre = corners.mean(axis=1)
    inside = mesh.p[:, mesh.t[:, mesh.f2t[0, facets]]].mean(axis=1)
    n = n * np.where(np.einsum("df,df->f", n, centre - inside) < 0.0, -1.0, 1.0)
    total = np.zeros((dim, mesh.p.shape[1]))
    for corner in range(mesh.facets.shape[0]):
        np.add.at(total.T, mesh.facets[corner, facets], n.T)
    out = total[:, nodes].T
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def harmonic_extension(mesh: skfem.Mesh, nodes: np.ndarray):
    """The map from a motion of ``nodes`` (on the boundary) to the motion of every vertex.

    Parameters
    ----------
    mesh : skfem.Mesh
        Linear mesh.
    nodes : ndarray of int, shape (k,)
        The moving boundary vertices.

    Returns
    -------
    callable
        ``extend(V_B)`` with ``V_B`` of shape (k, dim) returning the vertex
        motion, shape (dim, n_vertices): harmonic in the interior, ``V_B`` on
        ``nodes`` and zero on the rest of the boundary.
    """
    n = mesh.p.shape[1]
    K = skfem.asm(laplace, skfem.Basis(mesh, mesh.elem())).tocsr()
    fixed = np.unique(np.concatenate([mesh.boundary_nodes(), nodes]))
    free = np.setdiff1d(np.arange(n), fixed)
    solve = splu(K[free][:, free].tocsc()).solve if free.size else None
    K_fb = K[free][:, nodes]

    def extend(motion: np.ndarray) -> np.ndarray:
        V = np.zeros((n, motion.shape[1]))
        V[nodes] = motion
        if solve is not None:
            V[free] = solve(-(K_fb @ motion))
        return V.T
    return extend


@dataclass(frozen=True, eq=False)
class ShapeParameter:
    """The shape of one boundary of a body as a parameter (see the module docstring).

    Made by :meth:`fecontact.Body.shape_parameter`.

    Attributes
    ----------
    name : str
    body : str
        The body's name.
    boundary : str
    nodes : ndarray of int, shape (k,)
        Body-local nodes the parameter moves (sorted).
    direction : ndarray, shape (k, dim)
        Unit direction of each node's motion.
    extension : str
        ``"harmonic"`` or ``"none"``.
    value : ndarray, shape (k,)
        The perturbation ``s`` (length units) the body is made with.
    key : int
        Identity, shared by :meth:`at` values.
    """

    name: str
    body: str
    boundary: str
    nodes: np.ndarray = field(repr=False)
    direction: np.ndarray = field(repr=False)
    extension: str = "harmonic"
    value: np.ndarray = field(default=None, repr=False)
    key: int = 0
    _extend: object = field(default=None, repr=False, compare=False)

    @classmethod
    def on(cls, mesh: skfem.Mesh, body: str, boundary: str, facets: np.ndarray,
           direction="normal", extension: str = "harmonic", name: str | None = None):
        """The shape parameter of ``facets`` of a linear ``mesh`` (see :meth:`fecontact.Body.shape_parameter`)."""
        if extension not in EXTENSIONS:
            raise ValueError(f"extension = {extension!r}; choose one of {', '.join(EXTENSIONS)}")
        nodes = np.unique(mesh.facets[:, facets])
        dim = mesh.p.shape[0]
        if isinstance(direction, str):
            if direction != "normal":
                raise ValueError(f"direction = {direction!r}; give 'normal' or {dim} numbers")
            d = boundary_normals(mesh, facets, nodes)
        else:
            vec = np.asarray(direction, float)
            if vec.shape != (dim,) or not np.all(np.isfinite(vec)) or not np.linalg.norm(vec) > 0:
                raise ValueError(f"direction needs 'normal' or {dim} finite numbers, not all zero; "
                                 f"got {direction!r}")
            d = np.tile(vec / np.linalg.norm(vec), (nodes.size, 1))
        key = new_key()
        extend = harmonic_extension(mesh, nodes) if extension == "harmonic" else None
        return cls(name or f"{body}.{boundary}", body, boundary, nodes, d, extension,
                   np.zeros(nodes.size), key, extend)

    @property
    def size(self) -> int:
        """Number of entries ``k``."""
        return int(self.nodes.size)

    def checked(self, value) -> np.ndarray:
        """``value`` as ``k`` finite floats, else a ValueError naming the parameter."""
        s = np.asarray(value, float)
        if s.shape != (self.size,) or not np.all(np.isfinite(s)):
            raise ValueError(f"shape parameter {self.name!r} takes {self.size} finite numbers "
                             f"(one per node of {self.boundary!r}), got shape {s.shape}")
        return s

    def at(self, value) -> "ShapeParameter":
        """The same parameter with the perturbation ``value``."""
        return ShapeParameter(self.name, self.body, self.boundary, self.nodes, self.direction,
                              self.extension, self.checked(value), self.key, self._extend)

    def motion(self, value, n_vertices: int) -> np.ndarray:
        """The vertex motion of the perturbation ``value``, shape (dim, n_vertices)."""
        boundary_motion = self.checked(value)[:, None] * self.direction
        if self._extend is not None:
            return self._extend(boundary_motion)
        V = np.zeros((n_vertices, self.direction.shape[1]))
        V[self.nodes] = boundary_motion
        return V.T

    def points(self, coordinates: np.ndarray) -> np.ndarray:
        """The parameter's nodes' coordinates, shape (dim, k), from a body's vertex coordinates."""
        return coordinates[:, self.nodes]

