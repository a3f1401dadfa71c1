"""Elastic bodies: a scikit-fem mesh, a vector basis and one material or one per mesh region.

A body's degrees of freedom are grouped by *DOF node*: a mesh vertex, or for
quadratic elements also an edge midpoint.  Component ``c`` of DOF node ``k``
is the body-local DOF ``dim*k + c`` (scikit-fem's interleaved layout, checked
on construction for every element kind but P1; for P1 it is the vertex numbering, see
:attr:`ElasticBody.node_dofs`).  DOF nodes are ordered vertices first, then edge
midpoints (3D) or facet midpoints (2D, where facets are edges).

The scikit-fem basis of a P1 body is built only when first used
(:attr:`ElasticBody.basis`): the stiffness, the von Mises output, DOF numbering and
node coordinates of P1 bodies do without it, which matters on meshes of a
million DOFs where the basis holds gigabytes of quadrature data.

A body has one :class:`~fecontact.bodies.elasticity.Material`, or a mapping
``{subdomain name: Material}`` over the named subdomains of its mesh
(``mesh.subdomains``, e.g. the physical surfaces or volumes of a Gmsh file,
see :func:`fecontact.io.meshfile.load_mesh`) that gives every element
exactly one material.  The assembly reads the per-element parameters
(:meth:`ElasticBody.element_lame`, :meth:`ElasticBody.element_density`);
:attr:`ElasticBody.material` is the one material of a body that has one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np
import skfem

from ..mesh.elements import KINDS, ElementKind, edge_nodes, element_kind, midpoint_nodes
from ..mesh.geometry import curved_findings, geometry_mesh
from .elasticity import Material
from .hyperelastic import Hyperelastic

#: The element kinds by name (:data:`fecontact.mesh.elements.KINDS`).
ELEMENTS = KINDS


def element_types(element, dim: int) -> tuple:
    """``(mesh type, scalar element type)`` of an element (name or kind) in ``dim`` dimensions."""
    cell = element_kind(element).cell(dim)
    return cell.mesh, cell.element


@dataclass(frozen=True, init=False)
class ElasticBody:
    """An elastic body.

    ``ElasticBody(name, mesh, element, material)`` takes ``material`` as a
    :class:`~fecontact.bodies.elasticity.Material` or as a mapping
    ``{subdomain name: Material}`` (see :meth:`create`, which also checks
    the mesh).

    Attributes
    ----------
    name : str
    mesh : skfem.Mesh
    element : str
        The name of the element kind: one of ``ELEMENTS``, e.g. ``"P1"``,
        ``"P2"`` (triangles, tetrahedra) or ``"Q1"`` (quadrilaterals,
        hexahedra).
    kind : ElementKind
        The element kind's record (:mod:`fecontact.mesh.elements`).
    regions : Mapping[str, Material] or None
        The material of every named subdomain of the mesh (read-only), or
        None when one material fills the body.
    materials : tuple of Material
        The distinct materials of the body, in the order of ``regions``;
        one entry for a body of one material (also when several regions
        share it).
    element_material : ndarray of int, shape (n_elements,)
        Index into ``materials`` of every mesh element (read-only).
    material : Material
        The material of a body of one material (a property; a clear
        ``ValueError`` for a body of several materials).
    basis : skfem.Basis
        Vector basis of the displacement (a cached property: for P1 bodies
        built on first access, for the others when the body is created).
    """

    name: str
    mesh: skfem.Mesh
    element: str
    regions: Mapping[str, Material] | None
    materials: tuple[Material, ...]
    element_material: np.ndarray = field(repr=False, compare=False)
    kind: ElementKind = field(repr=False, compare=False)

    def __init__(self, name: str, mesh: skfem.Mesh, element: str | ElementKind,
                 material: Material | Mapping[str, Material]):
        kind = element_kind(element)
        regions, materials, index = _resolve_materials(name, mesh, material)
        for key, value in (("name", name), ("mesh", mesh), ("element", kind.name),
                           ("regions", regions), ("materials", materials),
                           ("element_material", index), ("kind", kind)):
            object.__setattr__(self, key, value)

    @staticmethod
    def create(name: str, mesh: skfem.Mesh, element: str | ElementKind,
               material: Material | Mapping[str, Material]) -> "ElasticBody":
        """A body checked for a supported element, mesh type, sound elements and materials.

        Parameters
        ----------
        name : str
        mesh : skfem.Mesh
            2D or 3D mesh of the type the element needs (its
            :attr:`fecontact.mesh.elements.Cell.mesh`: ``MeshTri1``/``MeshTet1``
            for P1 and P2, ``MeshQuad1``/``MeshHex1`` for Q1).
        element : str or ElementKind
            The name of a registered element kind (``"P1"``, ``"P2"``,
            ``"Q1"``) or its record.
        material : Material or Mapping[str, Material]
            One material for the whole body, or the material of each named
            subdomain of ``mesh.subdomains``; the subdomains named must
            cover every element exactly once.

        Returns
        -------
        ElasticBody

        Raises
        ------
        ValueError
            For an unknown element, a mesh of the wrong type or dimension, a
            degenerate or inverted element (:func:`fecontact.mesh.quality.element_findings`;
            for curved elements also :func:`fecontact.mesh.geometry.curved_findings`),
            quadratic node positions that do not fit the mesh
            (:func:`fecontact.mesh.geometry.geometry_mesh`),
            an unknown subdomain name, elements with no material or with
            several, or 2D materials of different plane models.
        TypeError
            If ``material`` is neither a Material nor a mapping of Materials.
        RuntimeError
            If the scikit-fem basis of a body that is not a linear simplex does not number its DOFs
            in the interleaved layout ``dim*k + c``.
        """
        try:
            kind = element_kind(element)
        except ValueError as err:
            raise ValueError(f"body {name!r}: {err}") from None
        dim = mesh.dim()
        if dim not in (2, 3):
            raise ValueError(f"body {name!r}: meshes must be 2D or 3D, got {dim}D")
        try:
            mesh_type = kind.cell(dim).mesh
        except ValueError as err:
            raise ValueError(f"body {name!r}: {err}") from None
        if not isinstance(mesh, mesh_type):
            raise ValueError(f"body {name!r}: element {kind.name} needs a {mesh_type.__name__} "
                             f"mesh, got {type(mesh).__name__}")
        from ..mesh.quality import element_findings

        for _, _, message in element_findings(mesh):
            raise ValueError(f"mesh of body {name!r}: {message}")
        _compact_connectivity(mesh)
        body = ElasticBody(name, mesh, kind, material)
        if body.curved:
            for _, _, message in curved_findings(body.geometry):
                raise ValueError(f"mesh of body {name!r}: {message}")
        if len(body.materials) > 1 and any(isinstance(m, Hyperelastic) for m in body.materials):
            raise ValueError(f"body {name!r}: a finite-strain material fills a whole body; "
                             f"bodies of several regions are linear elastic")
        if not kind.linear_simplex:
            expected = dim * np.arange(body.n_nodes)[None, :] + np.arange(dim)[:, None]
            if not np.array_equal(body.node_dofs, expected):
                raise RuntimeError("unexpected DOF layout in the scikit-fem basis")
        return body

    @property
    def material(self) -> Material:
        """The material of a body of one material.

        Raises
        ------
        ValueError
            For a body of several materials; use :attr:`materials`,
            :meth:`element_lame`, :meth:`element_density` or
            :meth:`contact_modulus` there.
        """
        if len(self.materials) != 1:
            raise ValueError(f"body {self.name!r} has {len(self.materials)} materials (regions "
                             f"{', '.join(self.regions)}); use its materials, element_lame(), "
                             f"element_density() or contact_modulus()")
        return self.materials[0]

    @property
    def plane_model(self) -> str:
        """The 2D model shared by the materials: ``"plane_strain"``, ``"plane_stress"`` or ``"axisymmetric"``."""
        return self.materials[0].model

    @property
    def axisymmetric(self) -> bool:
        """True for a body of revolution meshed in the ``(r, z)`` plane (``x[0] = r >= 0``).

        Every integral over such a body, its boundary and its contact
        surfaces carries the weight ``2 pi r``: forces are totals over the
        full circumference, pressures are per area.
        """
        return self.dim == 2 and self.materials[0].model == "axisymmetric"

    def element_lame(self) -> tuple[np.ndarray, np.ndarray]:
        """Lamé parameters ``(lambda, mu)`` of every element, each of shape (n_elements,).

        In 2D those of the plane model (:meth:`fecontact.bodies.elasticity.Material.lame`).
        """
        lame = np.array([m.lame(self.dim) for m in self.materials])        # (n_materials, 2)
        return lame[self.element_material, 0], lame[self.element_material, 1]

    def element_density(self) -> np.ndarray:
        """Density of every element, shape (n_elements,)."""
        return np.array([m.density for m in self.materials])[self.element_material]

    def element_poisson(self) -> np.ndarray:
        """Poisson ratio of every element, shape (n_elements,)."""
        return np.array([m.nu for m in self.materials])[self.element_material]

    def contact_modulus(self, boundary: str | None = None) -> float:
        """Smallest contact modulus ``E'`` of the body's materials.

        Parameters
        ----------
        boundary : str, optional
            Only the materials of the elements that touch this named
            boundary; all materials when not given.

        Returns
        -------
        float
            The softest material's :meth:`~fecontact.bodies.elasticity.Material.contact_modulus`.
        """
        used = range(len(self.materials))
        if boundary is not None and len(self.materials) > 1:
            used = np.unique(self.element_material[self.mesh.f2t[0, self.facets(boundary)]])
        return min(self.materials[i].contact_modulus(self.dim) for i in used)

    @cached_property
    def geometry(self) -> skfem.Mesh:
        """The mesh every basis of the body is built on: its elements' mapping.

        For a body of a quadratic kind on a mesh that carries quadratic node
        positions (``mesh.nodes`` of a file mesh, :mod:`fecontact.mesh.file_meshes`)
        the scikit-fem quadratic mesh through them
        (:func:`fecontact.mesh.geometry.geometry_mesh`: isoparametric, curved
        elements, the same DOF numbering); otherwise :attr:`mesh` itself
        (straight-sided elements).

        Raises
        ------
        ValueError
            If the node positions do not fit the mesh (moved or refined after reading).
        """
        nodes = getattr(self.mesh, "nodes", None)
        if not self.kind.quadratic or nodes is None:
            return self.mesh
        try:
            return geometry_mesh(self.mesh, nodes)
        except ValueError as err:
            raise ValueError(f"mesh of body {self.name!r}: {err}") from None

    @property
    def curved(self) -> bool:
        """True when the body maps its elements through quadratic node positions (:attr:`geometry`)."""
        return self.geometry is not self.mesh

    @cached_property
    def basis(self) -> skfem.Basis:
        """Vector basis of the displacement on :attr:`geometry`, built on first access."""
        cell = self.kind.cell(self.dim)
        return skfem.Basis(self.geometry, skfem.ElementVector(cell.element()), intorder=cell.intorder)

    def element_basis(self, elements: np.ndarray) -> skfem.Basis:
        """The vector basis on some of the elements (a rank's share), in the whole body's DOF layout.

        Parameters
        ----------
        elements : ndarray of int, shape (k,), k >= 1
        """
        cell = self.kind.cell(self.dim)
        return skfem.Basis(self.geometry, skfem.ElementVector(cell.element()), elements=elements,
                           intorder=cell.intorder)

    @property
    def is_linear_simplex(self) -> bool:
        """True for linear triangles and tetrahedra (P1): the DOF nodes are the mesh vertices."""
        return self.kind.linear_simplex

    @property
    def dim(self) -> int:
        """Spatial dimension of the mesh, 2 or 3."""
        return self.mesh.dim()

    @property
    def has_edge_nodes(self) -> bool:
        """True for quadratic elements (a DOF node at every edge midpoint)."""
        return self.kind.quadratic

    @property
    def node_dofs(self) -> np.ndarray:
        """DOFs of every DOF node, shape (dim, n_nodes): ``node_dofs[c, k] = dim*k + c``."""
        if self.is_linear_simplex:
            n, dim = self.n_nodes, self.dim
            return dim * np.arange(n)[None, :] + np.arange(dim)[:, None]
        parts = [self.basis.nodal_dofs]
        for extra in (self.basis.edge_dofs, self.basis.facet_dofs, self.basis.interior_dofs):
            if extra.size:
                parts.append(extra)
        return np.hstack(parts)

    def edge_node(self, edges: np.ndarray) -> np.ndarray:
        """DOF node at the midpoint of mesh edges (facets in 2D), quadratic elements only."""
        return edge_nodes(self.mesh, edges)

    def midpoint_node(self, candidates: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Edge-midpoint DOF node between vertices ``a`` and ``b`` (3D).

        Parameters
        ----------
        candidates : ndarray of int, shape (k, n)
            Edges of each of ``n`` facets or elements (``mesh.f2e[:, facets]``
            or ``mesh.t2e``), one of which joins ``a[i]`` and ``b[i]``.
        a, b : ndarray of int, shape (n,)
        """
        return midpoint_nodes(self.mesh, candidates, a, b)

    @property
    def n_nodes(self) -> int:
        """Number of DOF nodes (for P1 the number of mesh vertices)."""
        if self.is_linear_simplex:
            return self.mesh.p.shape[1]
        return self.basis.N // self.dim

    @property
    def node_coords(self) -> np.ndarray:
        """Reference coordinates of the DOF nodes, shape (dim, n_nodes).

        For P1 a read-only view of the mesh vertices; otherwise the basis's
        DOF locations (the same up to round-off at the vertices; on a
        curved :attr:`geometry` its nodes, where the mesh file has them).
        """
        if self.is_linear_simplex:
            coords = self.mesh.p.view()
            coords.flags.writeable = False
            return coords
        return self.basis.doflocs[:, self.node_dofs[0]]

    def facets(self, boundary: str) -> np.ndarray:
        """Facet indices of a named boundary; a clear error lists the known names."""
        names = sorted((self.mesh.boundaries or {}).keys())
        if boundary not in (self.mesh.boundaries or {}):
            raise KeyError(f"body {self.name!r} has no boundary {boundary!r}; "
                           f"the mesh has: {', '.join(names) or '(none)'}")
        return np.asarray(self.mesh.boundaries[boundary])

    def facet_nodes(self, facets: np.ndarray) -> np.ndarray:
        """DOF nodes lying on the given facets (vertices and edge midpoints), sorted."""
        facets = np.asarray(facets)
        layout = self.kind.cell(self.dim).facets
        return np.unique(layout.nodes(self.mesh, facets, self.mesh.facets[:, facets]))

    def boundary_nodes(self, boundary: str) -> np.ndarray:
        """DOF nodes on a named boundary (vertices and, for quadratic kinds, edge midpoints), sorted.

        Parameters
        ----------
        boundary : str
            A name in ``mesh.boundaries``.

        Returns
        -------
        ndarray of int, shape (n,)
            Body-local DOF node indices.
        """
        return self.facet_nodes(self.facets(boundary))

    def oriented_facets(self, facets: np.ndarray) -> np.ndarray:
        """Vertices of boundary facets ordered so that they face outwards.

        Returns
        -------
        ndarray, shape (n_vertices_per_facet, n_facets)
            2D: ``(a, b)`` with the body on the left of ``a -> b``, so the
            outward normal is ``(t_y, -t_x)`` with ``t = x_b - x_a``.
            3D: triangle or quadrilateral vertices in cyclic order with the
            outward normal ``(x_1 - x_0) x (x_2 - x_0)`` (right-hand rule).
        """
        m = self.mesh
        verts = m.facets[:, facets].copy()
        element = m.f2t[0, facets]
        centroid = m.p[:, m.t[:, element]].mean(axis=1)
        p0, p1, p2 = (m.p[:, verts[i]] for i in range(3)) if self.dim == 3 else (
            m.p[:, verts[0]], m.p[:, verts[1]], None)
        if self.dim == 2:
            t = p1 - p0
            w = centroid - p0
            inward = t[0] * w[1] - t[1] * w[0] > 0       # body on the left: keep
            flip = ~inward
        else:
            normal = np.cross(p1 - p0, p2 - p0, axis=0)
            flip = np.einsum("in,in->n", normal, centroid - p0) > 0
        verts[:, flip] = verts[::-1, flip]
        return verts


def _compact_connectivity(mesh: skfem.Mesh) -> None:
    """Element-to-facet and element-to-edge numbers of ``mesh`` stored as int32 (scikit-fem makes int64).

    The checks of :meth:`ElasticBody.create` build the mesh's facets; their
    numbers fit int32 (like ``mesh.t``), and the table is kept with the mesh
    for the whole run: 16 instead of 32 bytes per tetrahedron (hertz3d
    1.24M unknowns: 66 -> 33 MB).  Indexing with it gives the same values.
    """
    for key in ("_t2f", "_t2e"):
        table = getattr(mesh, key, None)
        if isinstance(table, np.ndarray) and table.dtype != np.int32 and table.size \
                and int(table.max()) < np.iinfo(np.int32).max:
            setattr(mesh, key, table.astype(np.int32))


def _resolve_materials(name: str, mesh: skfem.Mesh, material) -> tuple:
    """``(regions, materials, element_material)`` of a body's material argument, checked.

    See :class:`ElasticBody` for the three values and :meth:`ElasticBody.create`
    for the errors.
    """
    n_el = mesh.t.shape[1]
    if isinstance(material, Material):
        index = np.zeros(n_el, dtype=np.int32)
        index.flags.writeable = False
        return None, (material,), index
    if not isinstance(material, Mapping) or not material:
        raise TypeError(f"body {name!r}: material must be a Material or a non-empty mapping "
                        f"{{subdomain name: Material}}, got {material!r}")
    subdomains = mesh.subdomains or {}
    known = ", ".join(sorted(str(k) for k in subdomains)) or "(none)"
    regions = {}
    for region, mat in material.items():
        if not isinstance(mat, Material):
            raise TypeError(f"body {name!r}: the material of subdomain {region!r} must be a "
                            f"Material, got {mat!r}")
        if region not in subdomains:
            raise ValueError(f"body {name!r}: the mesh has no subdomain {region!r}; "
                             f"it has: {known}")
        regions[region] = mat
    materials = tuple(dict.fromkeys(regions.values()))
    models = sorted({m.model for m in materials})
    if mesh.dim() == 2 and len(models) > 1:
        raise ValueError(f"body {name!r}: all materials of a body must use the same plane "
                         f"model, got {' and '.join(models)}")
    index = np.full(n_el, -1, dtype=np.intp)
    count = np.zeros(n_el, dtype=np.intp)
    for region, mat in regions.items():
        elements = np.unique(np.asarray(subdomains[region], dtype=np.int64))
        if elements.size and (elements[0] < 0 or elements[-1] >= n_el):
            raise ValueError(f"body {name!r}: subdomain {region!r} names elements outside the "
                             f"mesh of {n_el} elements")
        count[elements] += 1
        index[elements] = materials.index(mat)
    missing, twice = int(np.sum(count == 0)), int(np.sum(count > 1))
    if missing or twice:
        problems = [f"{missing} of {n_el} elements have no material"] if missing else []
        problems += [f"{twice} elements lie in several of the subdomains given"] if twice else []
        raise ValueError(f"body {name!r}: {' and '.join(problems)} (materials given for "
                         f"{', '.join(map(str, regions))}; the mesh has: {known}); every element "
                         f"needs exactly one material")
    index.flags.writeable = False
    return MappingProxyType(regions), materials, index
