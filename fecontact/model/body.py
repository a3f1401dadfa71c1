r"""An elastic body of a model, with its supports, couplings, springs and loads.

:class:`Body` is what a user builds a model from, in the idiom of
scikit-fem: a mesh, an element and a material, and named boundaries (or
predicates on coordinates) to put supports, loads and contact surfaces
on (see the examples of :class:`Body` and its methods).

Every call is checked at once (an unknown boundary raises ``KeyError``
with the names the mesh has); body indices and global DOF numbers are
given when a :class:`fecontact.model.Model` assembles the bodies.
Amplitudes left out are the analysis' default: a ramp over the
pseudo-time ``[0, 1]`` in statics, constant in dynamics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import skfem

from ..bodies.body import ElasticBody, element_types
from ..bodies.axisymmetric import axis_nodes
from ..bodies.elasticity import constant_load, pressure_load
from ..bodies.conditions import Amplitude, Coupling, Dirichlet, Spring
from ..contact.surface import contact_surface, transient_mapping
from .meshes import as_linear_mesh, element_name, facets_where
from .replay import recorded, shape_parameter
from .surfaces import SurfaceRef

COMPONENTS = {"x": 0, "y": 1, "z": 2}
#: The support a body of revolution gets on its nodes at ``r = 0``: ``u_r = 0``
AXIS = "axis"


@dataclass(frozen=True)
class BodyLoad:
    """A load vector of one body in its local DOF numbering.

    Attributes
    ----------
    name : str
    vector : ndarray, shape (dim * n_nodes,)
    amplitude : Amplitude or None
        ``None``: the analysis' default amplitude.
    """

    name: str
    vector: np.ndarray
    amplitude: Amplitude | None


def component_values(values: dict, dim: int) -> dict:
    """``{component index: value}`` of ``x=``, ``y=``, ``z=`` keyword values, in x, y, z order."""
    out = {}
    for key in ("x", "y", "z"):
        if values.get(key) is None:
            continue
        if COMPONENTS[key] >= dim:
            raise ValueError(f"component {key!r} does not exist in {dim}D")
        out[COMPONENTS[key]] = float(values[key])
    return out


class Body:
    """An elastic body of a model: mesh, element, material, supports and loads.

    Parameters
    ----------
    name : str
        Unique within a model; reactions and results use it.
    mesh : skfem.Mesh, meshio.Mesh, str or pathlib.Path
        A scikit-fem mesh (triangles, quadrilaterals, tetrahedra,
        hexahedra; linear or quadratic: a quadratic mesh gives its vertices
        and elements), a meshio mesh, or a mesh file (Gmsh physical groups
        become named boundaries and subdomains).
    element : str or skfem element, optional
        ``"P1"``, ``"P2"`` (triangles, tetrahedra), ``"Q1"``, ``"Q2"``
        (9-node quadrilaterals, 27-node hexahedra; alias ``"Q9"``) or
        ``"Q2S"`` (serendipity 8-node quadrilaterals, 20-node hexahedra;
        alias ``"Q8"``), or the matching scikit-fem element
        (``skfem.ElementQuad2()``, ``skfem.ElementQuadS2()``, ...); default:
        the mesh's own, so a quadratic mesh keeps its quadratic element
        (``"P2"``, ``"Q2"`` or ``"Q2S"``), else ``"P1"`` or ``"Q1"``.
        ``"P1"`` or ``"Q1"`` on a quadratic mesh uses its vertices.
    material : Material or dict of str to Material
        :func:`fecontact.LinearElastic`; or one material per subdomain name
        of the mesh (covering every element once).
    initial_velocity : sequence of float or callable, optional
        Initial velocity (dynamic analyses): ``dim`` components of a uniform
        velocity, or a function of the node coordinates ``x`` (shape
        ``(dim, n_nodes)``, as in scikit-fem) returning the velocity at the
        nodes, shape ``(dim, n_nodes)`` (a spin: ``lambda x: w * np.stack([-x[1], x[0]])``).

    Attributes
    ----------
    part : ElasticBody
        The discretised body (mesh, element, material, basis).
    dirichlet, couplings, springs, loads : list
        What the methods below added, in body-local numbering.

    Examples
    --------
    A unit square of 32 triangles, clamped at the bottom, pressed on the
    top, its right edge a contact surface:

    >>> import numpy as np, skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri.init_tensor(np.linspace(0, 1, 5), np.linspace(0, 1, 5))
    >>> block = fc.Body("block", mesh.with_defaults(), "P1", fc.LinearElastic(E=1e3, nu=0.3))
    >>> block
    Body('block', MeshTri1 with 32 elements, 'P1')
    >>> block.fix("bottom").pressure("top", 5.0).dim
    2
    >>> block.surface("right").surface.nodes.size
    5
    >>> block.surface(lambda x: x[0] < 0.01, name="left-edge").boundary   # a predicate
    'left-edge'
    """

    def __init__(self, name: str, mesh, element=None, material=None, *, initial_velocity=None):
        if material is None:
            raise ValueError(f"body {name!r} needs a material (fecontact.LinearElastic(E=..., nu=...))")
        linear = as_linear_mesh(mesh, f"body {name!r}")
        part = ElasticBody.create(name, linear, element_name(element, mesh, linear), material)
        self.name = name
        self.part = part
        self.dirichlet: list = []
        self.couplings: list = []
        self.springs: list = []
        self.loads: list = []
        self._predicates = 0
        self.initial_velocity = _initial_velocity(name, part, initial_velocity)
        # what the body is made by, to make it again with other parameter values (model.replay)
        self._given = dict(name=name, material=material, initial_velocity=initial_velocity)
        self._calls, self._depth, self._labels, self._shapes = [], 0, {}, []
        self._base_coordinates = part.mesh.p
        if part.axisymmetric:
            on_axis = axis_nodes(part.node_coords, f"body {name!r}")
            if on_axis.size:
                self.dirichlet.append(Dirichlet(AXIS, -1, on_axis, (0,), 0.0, None))

    def __repr__(self) -> str:
        return (f"Body({self.name!r}, {type(self.part.mesh).__name__} with "
                f"{self.part.mesh.t.shape[1]} elements, {self.part.element!r})")

    @property
    def dim(self) -> int:
        """Spatial dimension, 2 or 3."""
        return self.part.dim

    @property
    def mesh(self) -> skfem.Mesh:
        """The linear scikit-fem mesh (with the boundaries the body's predicates named)."""
        return self.part.mesh

    # -- where things go ------------------------------------------------------
    @recorded
    def boundary(self, where, name: str | None = None) -> str:
        """The boundary name of ``where``: a boundary name of the mesh, or a predicate to name.

        Parameters
        ----------
        where : str or callable
            A name in ``mesh.boundaries``, or ``test(x) -> bool`` on
            coordinates of shape (dim, n): the boundary facets whose
            midpoints satisfy it (:meth:`skfem.Mesh.facets_satisfying`).
        name : str, optional
            Name given to a predicate's boundary (default ``"<body>-boundary-<k>"``).

        Returns
        -------
        str

        Raises
        ------
        KeyError
            For a name the mesh does not have (the message lists those it has).
        ValueError
            For a predicate that selects no boundary facet.
        """
        if isinstance(where, str):
            self.part.facets(where)                       # KeyError with the known names
            return where
        if not callable(where):
            raise ValueError(f"body {self.name!r}: a boundary is a name or a callable on "
                             f"coordinates, got {where!r}")
        facets = facets_where(self.part.mesh, where)
        if facets.size == 0:
            raise ValueError(f"body {self.name!r}: the predicate selects no boundary facet")
        self._predicates += 1
        label = self._labels[id(where)] = name or f"{self.name}-boundary-{self._predicates}"
        boundaries = dict(self.part.mesh.boundaries or {})
        boundaries[label] = facets
        part = self.part
        self.part = ElasticBody(part.name, part.mesh.with_boundaries(boundaries), part.element,
                                part.regions or part.material)
        return label

    @recorded
    def nodes(self, where=None, point=None) -> np.ndarray:
        """Body-local DOF nodes of a boundary (name or predicate), or the node nearest a point.

        Returns
        -------
        ndarray of int, shape (k,)
        """
        if point is not None:
            p = np.asarray(point, float).reshape(-1, 1)
            if p.shape[0] != self.dim or not np.all(np.isfinite(p)):
                raise ValueError(f"body {self.name!r}: a point needs {self.dim} finite coordinates")
            return np.array([int(np.argmin(np.linalg.norm(self.part.node_coords - p, axis=0)))])
        if where is None:
            raise ValueError(f"body {self.name!r}: give a boundary or a point")
        label = self.boundary(where)             # may add a boundary to the mesh first
        return self.part.boundary_nodes(label)

    @recorded
    def surface(self, where, name: str | None = None) -> SurfaceRef:
        """A boundary as a contact (or tie) surface.

        Parameters
        ----------
        where : str or callable
            See :meth:`boundary`.
        name : str, optional
            Name of a predicate's boundary.

        Returns
        -------
        SurfaceRef
        """
        label = self.boundary(where, name)
        return SurfaceRef(self, label, contact_surface(self.part, 0, label))

    shape_parameter = shape_parameter

    # -- supports -------------------------------------------------------------
    @recorded
    def fix(self, where=None, *, point=None, x=None, y=None, z=None, amplitude=None,
            name: str | None = None) -> "Body":
        """Impose displacement components on a boundary or at a point (a Dirichlet condition).

        ``fix("bottom")`` clamps every component; ``fix("top", y=-0.02)``
        imposes ``u_y = -0.02 a(t)`` and leaves ``u_x`` free; a point
        support acts on the DOF node nearest ``point``.

        Parameters
        ----------
        where : str or callable, optional
            Boundary name or predicate (see :meth:`boundary`).
        point : sequence of float, optional
            Instead of ``where``: ``dim`` coordinates.
        x, y, z : float, optional
            Imposed values of the components; none given: all components are 0.
        amplitude : Amplitude, optional
            ``a(t)``; default the analysis' (ramp in statics).
        name : str, optional
            Name of the support for reactions; default the boundary name, or
            ``"<body>-point-<k>"`` for a point.

        Returns
        -------
        Body
            ``self``, so calls chain.

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()     # unit square, 32 triangles
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
        >>> block = block.fix("bottom").fix("top", y=-0.01).fix(point=(0.0, 1.0), x=0.0)
        >>> [(d.name, d.components, d.value) for d in block.dirichlet]
        [('bottom', (0, 1), 0.0), ('top', (1,), -0.01), ('block-point-2', (0,), 0.0)]
        """
        if where is not None and point is not None:
            raise ValueError(f"body {self.name!r}: fix a boundary or a point, not both")
        values = component_values({"x": x, "y": y, "z": z}, self.dim)
        if not values:
            values = dict.fromkeys(range(self.dim), 0.0)
        if point is not None:
            nodes = self.nodes(point=point)
            name = name or f"{self.name}-point-{len(self.dirichlet)}"
        else:
            label = self.boundary(where) if where is not None else None
            nodes = self.nodes(label)
            name = name or label
        by_value: dict = {}
        for comp, value in values.items():
            by_value.setdefault(value, []).append(comp)
        for value, comps in by_value.items():
            self.dirichlet.append(Dirichlet(name, -1, nodes, tuple(comps), value, amplitude))
        return self

    @recorded
    def couple(self, where, component: str, force: float = 0.0, *, amplitude=None,
               name: str | None = None) -> "Body":
        """Tie one displacement component of a boundary's nodes together, loaded by a resultant force.

        Like a reference point with a kinematic coupling: the boundary moves
        rigidly in ``component`` and ``force * a(t)`` acts on it in total.

        Parameters
        ----------
        where : str or callable
        component : {"x", "y", "z"}
        force : float
        amplitude : Amplitude, optional
        name : str, optional
            Default the boundary name.

        Returns
        -------
        Body
        """
        comp = component_values({component: 0.0}, self.dim) if component in COMPONENTS else {}
        if len(comp) != 1:
            raise ValueError(f"body {self.name!r}: a coupling needs one component x, y or z")
        label = self.boundary(where)
        nodes = self.nodes(label)
        self.couplings.append(Coupling(name or label, -1, nodes, next(iter(comp)), float(force), amplitude))
        return self

    @recorded
    def spring(self, where, component: str, stiffness: float, *, damping: float = 0.0,
               anchor_offset: float = 0.0, anchor_velocity: float = 0.0,
               name: str | None = None) -> "Body":
        """A spring and dashpot from a moving anchor to a boundary (see :class:`fecontact.Spring`).

        Parameters
        ----------
        where : str or callable
        component : {"x", "y", "z"}
        stiffness, damping : float
            ``>= 0``.
        anchor_offset, anchor_velocity : float
            The anchor is at ``anchor_offset + anchor_velocity t``.
        name : str, optional
            Default ``"<body>-<boundary>-spring"``.

        Returns
        -------
        Body
        """
        comp = component_values({component: 0.0}, self.dim) if component in COMPONENTS else {}
        if len(comp) != 1:
            raise ValueError(f"body {self.name!r}: a spring needs one component x, y or z")
        values = {"stiffness": stiffness, "damping": damping, "anchor_offset": anchor_offset,
                  "anchor_velocity": anchor_velocity}
        for key, value in values.items():
            if not np.isfinite(float(value)):
                raise ValueError(f"{key} must be finite")
        if stiffness < 0 or damping < 0:
            raise ValueError("stiffness and damping must be >= 0")
        label = self.boundary(where)
        surface = contact_surface(self.part, 0, label)
        weights = surface.area / surface.area.sum()
        self.springs.append(Spring(name or f"{self.name}-{label}-spring",
                                   self.dim * surface.nodes + next(iter(comp)), weights,
                                   float(stiffness), float(damping), float(anchor_offset),
                                   float(anchor_velocity)))
        return self

    # -- loads ----------------------------------------------------------------
    def _components(self, value, what: str, count: int | None = None) -> np.ndarray:
        """``value`` as ``count`` (default ``dim``) finite floats, else a ValueError naming ``what``."""
        count = self.dim if count is None else count
        try:
            vec = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            vec = np.zeros(0)
        if vec.shape != (count,) or not np.all(np.isfinite(vec)):
            shown = value[0] if count == 1 and isinstance(value, list) else value
            raise ValueError(f"{what} needs {count} finite number{'s' if count > 1 else ''}, "
                             f"got {shown!r}")
        return vec

    def _facet_basis(self, where) -> tuple:
        """The boundary's label and a vector :class:`skfem.FacetBasis` on its facets.

        Made from the body's element on its :attr:`ElasticBody.geometry`
        (curved facets of a curved body), not from :attr:`ElasticBody.basis`,
        so that a P1 body does not build its volume basis for a surface load.
        """
        label = self.boundary(where)
        facets = self.part.facets(label)
        elem = skfem.ElementVector(element_types(self.part.element, self.dim)[1]())
        return label, skfem.FacetBasis(self.part.geometry, elem, facets=facets)

    @recorded
    def traction(self, where, value, *, amplitude=None) -> "Body":
        """A uniform traction vector (force per area) on a boundary.

        Parameters
        ----------
        where : str or callable
        value : sequence of float
            ``dim`` components.
        amplitude : Amplitude, optional

        Returns
        -------
        Body
        """
        vec = self._components(value, "a traction")
        with transient_mapping(self.part.mesh):
            label, fb = self._facet_basis(where)
            vector = constant_load(fb, vec, self.part.axisymmetric)
            del fb
        self.loads.append(BodyLoad(f"{self.name}-{label}", vector, amplitude))
        return self

    @recorded
    def pressure(self, where, value: float, *, amplitude=None) -> "Body":
        """A uniform pressure on a boundary, normal to it (positive pushes on the surface).

        Parameters
        ----------
        where : str or callable
        value : float
            Force per area; the traction is ``-value n`` with the outward normal ``n``.
        amplitude : Amplitude, optional

        Returns
        -------
        Body

        Examples
        --------
        A pressure 5 on the unit square's top edge: its load vector sums to ``(0, -5)``.

        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()     # unit square, 32 triangles
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
        >>> load = block.pressure("top", 5.0).loads[-1]
        >>> load.name, round(float(load.vector[0::2].sum()), 9), round(float(load.vector[1::2].sum()), 9)
        ('block-top-pressure', 0.0, -5.0)
        """
        (p,) = self._components([value], "a pressure", 1)
        with transient_mapping(self.part.mesh):
            label, fb = self._facet_basis(where)
            vector = pressure_load(fb, p, self.part.axisymmetric)
            del fb
        self.loads.append(BodyLoad(f"{self.name}-{label}-pressure", vector, amplitude))
        return self

    @recorded
    def body_force(self, value, *, amplitude=None) -> "Body":
        """A uniform body force (force per volume) on the whole body, e.g. gravity ``rho g``.

        Parameters
        ----------
        value : sequence of float
            ``dim`` components.
        amplitude : Amplitude, optional

        Returns
        -------
        Body
        """
        vec = self._components(value, "a body force")
        self.loads.append(BodyLoad(f"{self.name}-body-force", constant_load(self.part.basis, vec,
                                                                       self.part.axisymmetric),
                                   amplitude))
        return self


def _initial_velocity(name: str, part, given) -> np.ndarray:
    """The initial velocity of a body's nodes: shape (dim,) when uniform, else (n_nodes, dim)."""
    if given is None:
        return np.zeros(part.dim)
    if callable(given):
        field = np.asarray(given(part.node_coords), float)
        if field.shape != (part.dim, part.n_nodes) or not np.all(np.isfinite(field)):
            raise ValueError(f"body {name!r}: initial_velocity(x) must return finite values of shape "
                             f"({part.dim}, {part.n_nodes}), got shape {field.shape}")
        return field.T.copy()
    velocity = np.asarray(given, float)
    if velocity.shape != (part.dim,) or not np.all(np.isfinite(velocity)):
        raise ValueError(f"body {name!r}: initial_velocity needs {part.dim} finite components")
    return velocity
