"""The typed schema of a case file: one frozen msgspec struct per table.

A case file is converted to :class:`CaseFile` by :func:`msgspec.convert`
(strict: no strings taken for numbers, no floats for counts), which checks
every key, type, range and array length, and then the cross-field rules in
the structs' ``__post_init__`` (one of ``material``/``materials``, bodies
that exist, vectors of the bodies' dimension, ...).  The ``friction`` table
is derived from the friction-law registry (:mod:`fecontact.case.friction`):
its keys and rules are those the laws declare.  The same
structs give the JSON Schema (``fecontact schema``) and the case-file
reference page (``docs/case_reference.md``), so neither can drift from what
is accepted.  The ranges of numbers are the constrained types of
:mod:`fecontact.fields`, which the Python API's materials and friction laws
check too.

Optional keys default to ``UNSET`` (absent): what an absent key means is
decided by the model API the case is built with and said in each field's
description.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal, Union

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from ..analysis.dynamic_records import INITIAL
from ..analysis.integrators import INTEGRATORS
from ..analysis.mass import CONTACT_MASS
from ..mesh.elements import names as element_names
from ..bodies.elasticity import LINEAR_ELASTIC, PLANE_MODELS
from ..bodies.hyperelastic import HYPERELASTIC
from ..contact.obstacles import OBSTACLES, Coordinates
from ..fields import MAX_COUNT, Count, Fraction, Modulus, NonNegative, Number, Poisson, Positive
from ..friction import registry
from ..model.contact import ENFORCEMENTS, FORMULATIONS
from ..contact.smoothing import SMOOTHINGS
from ..solve.backends import CHOICES as BACKENDS
from .friction import friction_table
from .meshes import MESH_TABLES, mesh_dimension

#: Most load steps or time steps a case may ask for (each costs at least one linear solve)
MAX_STEPS = 100_000
#: Reference types a case may compare with (static and dynamic)
REFERENCE_TYPES = ("uniform_stress", "hertz_line", "cattaneo_mindlin_line", "hertz_sphere",
                   "cattaneo_mindlin_sphere", "oring_squeeze", "stick_slip", "sliding_block",
                   "velocity_weakening", "energy")

Name = Annotated[str, Meta(min_length=1, max_length=200, description="a name")]
Vector = Annotated[list[Number], Meta(min_length=2, max_length=3,
                                      description="a point or vector: one number per dimension")]
Pair = Annotated[tuple[Number, Number], Meta(description="[t, a]")]
Amplitude = Annotated[list[Pair], Meta(min_length=1, max_length=MAX_COUNT, description=(
    "amplitude table [[t0, a0], [t1, a1], ...], t strictly increasing; linear between"))]
Component = Literal["x", "y", "z", "all"]
Unset = UnsetType


class Table(Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """A case-file table: unknown keys are refused."""


def _increasing(table: list, what: str) -> None:
    times = [t for t, _ in table]
    if any(b <= a for a, b in zip(times, times[1:])):
        raise ValueError(f"{what} must have strictly increasing t, got {[list(p) for p in table]}")


def _check_amplitude(table) -> None:
    if table is not UNSET:
        _increasing(table, "amplitude")


class MaterialTable(Table):
    """An isotropic material: linear elastic, or hyperelastic in finite deformation."""

    E: Annotated[Modulus, Meta(description="Young's modulus")]
    nu: Annotated[Poisson, Meta(description="Poisson ratio")]
    model: Annotated[Literal[(LINEAR_ELASTIC,) + tuple(HYPERELASTIC) + PLANE_MODELS[:2]], Meta(description=(
        "linear_elastic (default); finite deformation (total Lagrangian): neo_hookean or "
        "saint_venant_kirchhoff; plane_strain and plane_stress are accepted here too, as the "
        "linear material in that plane"))] | Unset = UNSET
    plane: Annotated[Literal[PLANE_MODELS], Meta(description=(
        "the 2D model, as plane= of the API: plane_strain (default), plane_stress (linear "
        "materials) or axisymmetric (a body of revolution meshed in the (r, z) plane, r = x >= 0; "
        "forces are totals over the circumference)"))] | Unset = UNSET
    density: Annotated[NonNegative, Meta(description="mass per volume; needed (> 0) by dynamic cases")] | Unset = UNSET


class DirichletTable(Table):
    """A prescribed displacement on a boundary or at the node nearest a point."""

    boundary: Annotated[Name, Meta(description="boundary name (or give point)")] | Unset = UNSET
    point: Annotated[Vector, Meta(description="the node nearest this point (or give boundary)")] | Unset = UNSET
    component: Annotated[Component, Meta(description="one component (or components)")] | Unset = UNSET
    components: Annotated[list[Component], Meta(description="components held (default: all)")] | Unset = UNSET
    value: Annotated[Number, Meta(description="displacement at load factor 1 (default 0)")] | Unset = UNSET
    amplitude: Amplitude | Unset = UNSET
    name: Annotated[Name, Meta(description="name of the reaction in the summary")] | Unset = UNSET

    def __post_init__(self):
        if self.boundary is UNSET and self.point is UNSET:
            raise ValueError("needs 'boundary' or 'point'")
        if self.boundary is not UNSET and self.point is not UNSET:
            raise ValueError("gives both 'boundary' and 'point'; a support applies to one of them")
        if self.component is not UNSET and self.components is not UNSET:
            raise ValueError("give 'component' or 'components', not both")
        _check_amplitude(self.amplitude)


class CouplingTable(Table):
    """A rigid coupling: one displacement component shared by a boundary, loaded by a force."""

    boundary: Name
    component: Literal["x", "y", "z"]
    force: Annotated[Number, Meta(description="total force at load factor 1 (default 0)")] | Unset = UNSET
    amplitude: Amplitude | Unset = UNSET
    name: Name | Unset = UNSET

    def __post_init__(self):
        _check_amplitude(self.amplitude)


class SpringTable(Table):
    """A spring (and dashpot) from a boundary's coupled component to an anchor."""

    boundary: Name
    component: Literal["x", "y", "z"]
    stiffness: NonNegative
    damping: NonNegative | Unset = UNSET
    anchor_offset: Number | Unset = UNSET
    anchor_velocity: Number | Unset = UNSET
    name: Name | Unset = UNSET


class TractionTable(Table):
    """A surface traction vector on a boundary."""

    boundary: Name
    value: Annotated[Vector, Meta(description="traction vector, one component per dimension")]
    amplitude: Amplitude | Unset = UNSET

    def __post_init__(self):
        _check_amplitude(self.amplitude)


class PressureTable(Table):
    """A pressure (along the inward normal) on a boundary."""

    boundary: Name
    value: Number
    amplitude: Amplitude | Unset = UNSET

    def __post_init__(self):
        _check_amplitude(self.amplitude)


class BodyTable(Table):
    """An elastic body: a mesh, an element, a material, supports and loads."""

    name: Name
    element: Annotated[Literal[element_names()], Meta(description="finite element")]
    mesh: Annotated[Union[MESH_TABLES], Meta(description="a mesh file, or a generator with its parameters")]
    material: MaterialTable | Unset = UNSET
    materials: Annotated[dict[Name, MaterialTable], Meta(description="one material per mesh region")] | Unset = UNSET
    body_force: Annotated[Vector, Meta(description="force per volume")] | Unset = UNSET
    initial_velocity: Annotated[Vector, Meta(description="dynamic cases: initial velocity")] | Unset = UNSET
    spring: list[SpringTable] | Unset = UNSET
    dirichlet: list[DirichletTable] | Unset = UNSET
    coupling: list[CouplingTable] | Unset = UNSET
    traction: list[TractionTable] | Unset = UNSET
    pressure: list[PressureTable] | Unset = UNSET

    def __post_init__(self):
        if (self.material is UNSET) == (self.materials is UNSET):
            raise ValueError("needs 'material' (one material) or 'materials' (one per mesh "
                             "region), not both")


class SurfaceTable(Table):
    """A boundary of a body."""

    body: Name
    boundary: Name


def _master_keys(obstacles) -> dict:
    """Key -> ``(type, description)`` of every key the obstacles declare, in declaration order.

    The description names the obstacles that read the key:
    ``"line/plane: a point on it (default origin)"``.
    """
    kinds, uses = {}, {}
    for cls in obstacles:
        for entry in cls.table_keys:
            kinds.setdefault(entry.key, entry.kind)
            uses.setdefault(entry.key, {}).setdefault(entry.description, []).append(cls.kind)
    return {key: (kinds[key], "; ".join(f"{'/'.join(names)}: {text}"
                                        for text, names in uses[key].items())) for key in kinds}


def _check_master(self) -> None:
    """A body's boundary, or an obstacle with the keys its class requires."""
    if self.obstacle is UNSET:
        if self.body is UNSET or self.boundary is UNSET:
            raise ValueError("needs 'body' and 'boundary', or 'obstacle'")
        return
    if self.body is not UNSET or self.boundary is not UNSET:
        raise ValueError("an obstacle has no 'body' or 'boundary'")
    for entry in OBSTACLES[self.obstacle].table_keys:
        if entry.default is None and getattr(self, entry.key, UNSET) is UNSET:
            raise ValueError(f"({self.obstacle}) needs '{entry.key}'")
    for key in self.__struct_fields__:
        value = getattr(self, key)
        if key in self._nonzero and value is not UNSET and not any(value):
            raise ValueError(f"'{key}' must be non-zero")
    _check_amplitude(self.amplitude)


def master_table(obstacles=None) -> type:
    """The msgspec struct of ``contact.master`` for the registered obstacles.

    Parameters
    ----------
    obstacles : tuple of type, optional
        Obstacle classes (:class:`fecontact.contact.obstacles.RigidObstacle`);
        default: every registered one.

    Returns
    -------
    type
        A frozen struct named ``MasterTable`` refusing unknown keys: ``body``
        and ``boundary``, or ``obstacle`` with the keys the classes declare,
        ``displacement`` and ``amplitude``.
    """
    obstacles = tuple(OBSTACLES.values()) if obstacles is None else obstacles
    shapes = {dim: [cls.kind for cls in obstacles if cls.dim == dim] for dim in (2, 3)}
    doc = ("A body's boundary, or a rigid obstacle (" + ", ".join(
        f"{' or '.join([', '.join(kinds[:-1]), kinds[-1]] if kinds[:-1] else kinds)} in {dim}D"
        for dim, kinds in shapes.items() if kinds) + ").")
    fields = [("body", Name | Unset, UNSET), ("boundary", Name | Unset, UNSET),
              ("obstacle", Literal[tuple(cls.kind for cls in obstacles)] | Unset, UNSET)]
    fields += [(key, Annotated[Vector if kind is Coordinates else kind, Meta(description=text)]
                | Unset, UNSET) for key, (kind, text) in _master_keys(obstacles).items()]
    fields += [("displacement", Annotated[Vector, Meta(
                   description="rigid displacement at load factor 1")] | Unset, UNSET),
               ("amplitude", Amplitude | Unset, UNSET)]
    nonzero = frozenset(e.key for cls in obstacles for e in cls.table_keys if e.nonzero)
    return msgspec.defstruct("MasterTable", fields, bases=(Table,), module=__name__,
                             namespace={"__doc__": doc, "__post_init__": _check_master,
                                        "_nonzero": nonzero})


#: ``contact.master`` with the obstacles registered when this module was imported
#: (:func:`case_file` follows obstacles registered later)
MasterTable = master_table()
_IMPORTED_OBSTACLES = tuple(OBSTACLES.values())


#: The ``friction`` table of the laws registered when this module was imported
#: (:func:`case_file` follows laws registered later)
FrictionTable = friction_table()
_IMPORTED = registry.laws()


class ContactTable(Table):
    """A contact pair: a slave surface against a master surface or obstacle."""

    slave: SurfaceTable
    master: MasterTable
    name: Name | Unset = UNSET
    friction: Annotated[FrictionTable, Meta(description="default: frictionless")] | Unset = UNSET
    c_n: Annotated[Positive, Meta(description="normal augmentation (default: from the stiffness)")] | Unset = UNSET
    c_t: Annotated[Positive, Meta(description="tangential augmentation (default: from the stiffness)")] | Unset = UNSET
    augmentation_factor: Positive | Unset = UNSET
    formulation: Annotated[Literal[FORMULATIONS], Meta(description="default: auto (mortar between two bodies of linear elements, else node_to_segment)")] | Unset = UNSET
    two_pass: bool | Unset = UNSET
    enforcement: Literal[ENFORCEMENTS] | Unset = UNSET
    penalty_factor: Positive | Unset = UNSET
    penetration_tolerance: Annotated[NonNegative, Meta(description="initial penetration the model check accepts (default 1e-6 times the bounding-box diagonal); without interference it is removed in the first increment")] | Unset = UNSET
    interference: Annotated[Union[Literal["shrink"], Amplitude], Meta(description="ramp an initial overlap in: shrink (a = t on [0, 1]) or an amplitude table [[t, a], ...], a in [0, 1] the fraction of the overlap removed; quasi-static only (default: removed in the first increment)")] | Unset = UNSET
    smoothing: Annotated[Literal[SMOOTHINGS], Meta(description="2D node-to-segment master geometry: smoothed curves (hermite), straight segments (none), or curves where the master is not straight (auto, default)")] | Unset = UNSET


    def __post_init__(self):
        if isinstance(self.interference, list):
            _increasing(self.interference, "@interference")
            if any(not 0.0 <= a <= 1.0 for _, a in self.interference):
                raise ValueError(f"@interference values a must lie in [0, 1] (the fraction of the "
                                 f"initial overlap removed), got {[list(p) for p in self.interference]}")


class TieTable(Table):
    """Two surfaces glued together (mesh tying)."""

    slave: SurfaceTable
    master: SurfaceTable
    name: Name | Unset = UNSET
    coverage_tolerance: Fraction | Unset = UNSET


class StepsTable(Table):
    """Quasi-static load steps: ``count`` equal steps to ``t_end``, or explicit ``levels`` (which win)."""

    count: Annotated[Annotated[int, Meta(ge=1, le=MAX_STEPS)], Meta(description="number of equal load steps (default 1)")] | Unset = UNSET
    t_end: Annotated[Positive, Meta(description="final load factor (default 1)")] | Unset = UNSET
    levels: Annotated[Annotated[list[Positive], Meta(min_length=1, max_length=MAX_STEPS)], Meta(description="load factors, strictly increasing")] | Unset = UNSET

    def __post_init__(self):
        if self.levels is not UNSET:
            if any(b <= a for a, b in zip(self.levels, self.levels[1:])):
                raise ValueError(f"@levels must increase strictly, got {self.levels}")


class DynamicsTable(Table):
    """Time integration."""

    dt: Positive
    t_end: Positive
    integrator: Literal[INTEGRATORS] | Unset = UNSET
    rho_inf: Annotated[Annotated[float, Meta(ge=0, le=1)], Meta(description="spectral radius at infinity")] | Unset = UNSET
    initial: Literal[INITIAL] | Unset = UNSET
    contact_mass: Literal[CONTACT_MASS] | Unset = UNSET
    project_velocities: bool | Unset = UNSET
    output_every: Annotated[Count, Meta(description="write every n-th step (default 1)")] | Unset = UNSET

    def __post_init__(self):
        if self.t_end < self.dt:
            raise ValueError(f"@t_end ({self.t_end}) must be >= 'dt' ({self.dt})")
        if self.t_end / self.dt > MAX_STEPS:
            raise ValueError(f"@dt makes {self.t_end / self.dt:.3g} time steps to t_end, more "
                             f"than the {MAX_STEPS} a run may take")


class SolverTable(Table):
    """Newton, load stepping and linear solver options."""

    backend: Annotated[Literal[BACKENDS], Meta(description="linear solver (default auto)")] | Unset = UNSET
    tolerance: Annotated[Annotated[float, Meta(gt=0, lt=1)], Meta(description="Newton tolerance (default 1e-9)")] | Unset = UNSET
    max_iterations: Annotated[Count, Meta(description="Newton iterations per increment (default 30)")] | Unset = UNSET
    max_cutbacks: Annotated[Annotated[int, Meta(ge=0, le=60)], Meta(description="halvings in a row (default 6)")] | Unset = UNSET
    max_backtracks: Annotated[Annotated[int, Meta(ge=0, le=60)], Meta(description="line-search halvings (default 6)")] | Unset = UNSET
    max_closing: Annotated[Count, Meta(description="nodes that may close in one increment (default: any)")] | Unset = UNSET
    compare_linear: Annotated[bool, Meta(description="also time one plain linear solve of the same system and report the ratio (default false; fecontact bench sets it)")] | Unset = UNSET
    nested: Annotated[bool, Meta(description="nested iteration: start each increment from the same increment solved on coarser meshes of the bodies (true: always, false: never; not given: for frictionless static cases of at least 10,000 unknowns whose meshes come from generators or name a coarse file)")] | Unset = UNSET
    nested_coarsening: Annotated[Annotated[float, Meta(gt=1, le=64)], Meta(description="element-size factor of the generated coarse meshes (default 12 in 2D, 4 in 3D)")] | Unset = UNSET


class OutputTable(Table):
    """What is written."""

    vtu: Annotated[bool, Meta(description="write VTU/PVD files (default true)")] | Unset = UNSET
    revolve: Annotated[int, Meta(ge=3, le=3600, description=(
        "axisymmetric cases: also write each step's solid of revolution in this many sectors "
        "(step_NNNN_revolved.vtu, <name>_revolved.pvd)"))] | Unset = UNSET


class ReferenceTable(Table):
    """An analytic reference to compare the result with."""

    type: Literal[REFERENCE_TYPES]
    contact: Name | Unset = UNSET
    radius: Positive | Unset = UNSET
    center_x: Number | Unset = UNSET
    center: Vector | Unset = UNSET
    axis: Vector | Unset = UNSET
    direction: Vector | Unset = UNSET
    stress: Annotated[list[list[Number]], Meta(description="uniform_stress: the stress tensor")] | Unset = UNSET
    spring: Name | Unset = UNSET
    springs: list[Name] | Unset = UNSET
    contacts: list[Name] | Unset = UNSET
    after: Number | Unset = UNSET


class CaseFile(Table):
    """A case file: bodies, contact pairs, and load steps or time integration."""

    bodies: Annotated[list[BodyTable], Meta(min_length=1)]
    contact: list[ContactTable]
    name: Annotated[Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")], Meta(description="names the output files: letters, digits, '.', '_', '-'")] | Unset = UNSET
    description: str | Unset = UNSET
    tie: list[TieTable] | Unset = UNSET
    steps: StepsTable | Unset = UNSET
    dynamics: DynamicsTable | Unset = UNSET
    solver: SolverTable | Unset = UNSET
    output: OutputTable | Unset = UNSET
    reference: ReferenceTable | Unset = UNSET

    def __post_init__(self):
        if self.steps is not UNSET and self.dynamics is not UNSET:
            raise ValueError("'steps' (quasi-static load steps) and 'dynamics' (time "
                             "integration) exclude each other; a dynamic case sets dynamics.dt "
                             "and dynamics.t_end")
        if self.steps is UNSET and self.dynamics is UNSET:
            raise ValueError("missing required table 'steps' (or 'dynamics')")
        names = [body.name for body in self.bodies]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ValueError(f"@bodies.{i}.name = {name!r} is used twice")
        self._check_dimensions()
        for k, pair in enumerate(self.contact):
            sides = (("slave", pair.slave), ("master", pair.master))
            for side, table in sides:
                if table.body is not UNSET and table.body not in names:
                    raise ValueError(f"@contact.{k}.{side}.body = {table.body!r} is not a "
                                     f"body; bodies: {', '.join(names)}")
        for k, tie in enumerate(self.tie or ()):
            for side, table in (("slave", tie.slave), ("master", tie.master)):
                if table.body not in names:
                    raise ValueError(f"@tie.{k}.{side}.body = {table.body!r} is not a body; "
                                     f"bodies: {', '.join(names)}")

    def _check_dimensions(self) -> None:
        """Vectors with one entry per dimension, where the meshes' dimension is known."""
        dims = {mesh_dimension(body.mesh) for body in self.bodies} - {None}
        if len(dims) > 1:
            raise ValueError("@bodies must all have the same dimension (2D and 3D meshes mixed)")
        if not dims:
            return
        dim = dims.pop()
        for place, vector in self._vectors():
            if len(vector) != dim:
                raise ValueError(f"@{place} needs {dim} components (the bodies are {dim}D), got "
                                 f"{list(vector)}")

    def _vectors(self):
        """``(dotted key, vector)`` of every vector of the case."""
        for i, body in enumerate(self.bodies):
            for key in ("body_force", "initial_velocity"):
                if getattr(body, key) is not UNSET:
                    yield f"bodies.{i}.{key}", getattr(body, key)
            for j, bc in enumerate(body.dirichlet or ()):
                if bc.point is not UNSET:
                    yield f"bodies.{i}.dirichlet.{j}.point", bc.point
            for j, load in enumerate(body.traction or ()):
                yield f"bodies.{i}.traction.{j}.value", load.value
        vectors = [key for cls in OBSTACLES.values() for key, kind in
                   ((e.key, e.kind) for e in cls.table_keys) if kind is Coordinates]
        for k, pair in enumerate(self.contact):
            for key in dict.fromkeys(vectors + ["displacement"]):
                if getattr(pair.master, key, UNSET) is not UNSET:
                    yield f"contact.{k}.master.{key}", getattr(pair.master, key)


def case_file() -> type:
    """The :class:`CaseFile` struct for the friction laws and obstacles registered now.

    :class:`CaseFile` itself holds the ``friction`` and ``master`` tables of
    the laws and obstacles registered when this module was imported; a law
    or an obstacle registered later (a module imported afterwards) gets a
    struct whose ``contact.friction`` and ``contact.master`` are derived
    again from the registries, so it is accepted, checked and in the JSON
    Schema like the others.
    """
    return _case_file(registry.laws(), tuple(OBSTACLES.values()))


@functools.lru_cache(maxsize=4)
def _case_file(laws: tuple, obstacles: tuple) -> type:
    if laws == _IMPORTED and obstacles == _IMPORTED_OBSTACLES:
        return CaseFile
    friction = Annotated[friction_table(laws), Meta(description="default: frictionless")] | Unset
    contact = msgspec.defstruct("ContactTable", [("master", master_table(obstacles)),
                                                 ("friction", friction, UNSET)],
                                bases=(ContactTable,), module=__name__,
                                namespace={"__doc__": ContactTable.__doc__})
    return msgspec.defstruct("CaseFile", [("contact", list[contact])], bases=(CaseFile,),
                             module=__name__, namespace={"__doc__": CaseFile.__doc__})


def case_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a case file (with the laws registered now)."""
    schema = msgspec.json.schema(case_file())
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "fecontact case file"
    file_table = schema["$defs"].get("MeshFile")
    if file_table:                          # 'generator' is implied for a mesh file
        file_table["required"] = ["file"]
    return schema
