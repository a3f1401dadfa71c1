"""The model of a validated case: bodies, bulk system, contact pairs and solver options.

:func:`build_model` turns the dict of :func:`fecontact.case.schema.load_case`
into a :class:`CaseModel` through the Python model API (:mod:`fecontact.model`): it makes the meshes and bodies
(:mod:`fecontact.case.bodies`), places the loads, supports, couplings and
springs in the global numbering of the bulk system
(:func:`fecontact.bodies.system.build_system`), builds the contact pairs with
their automatic augmentation (:mod:`fecontact.case.contact`) and reads the
Newton, load-stepping or time-integration options.  The checks that need the
built model are :mod:`fecontact.case.checks`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..analysis.static import SteppingOptions
from ..bodies.elasticity import LINEAR_ELASTIC, PLANE_MODELS, Material
from ..bodies.hyperelastic import HYPERELASTIC
from ..model import Body, Contact, Model, Tie
from ..model.model import load_levels
from ..solve.backends import element_share
from ..solve.newton import NewtonOptions
from ..solve.problem import ContactProblem
from .bodies import amplitude_of, components_of, mesh_of, where_of
from .coarse import DEFAULT_COARSENING, NESTED_MIN_UNKNOWNS, coarse_case
from .contact import friction_law, interference_of, master_of, surface_of
from .schema import CaseError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CaseModel:
    """Everything a run needs, built from a case: the assembled problem and the solver options.

    Attributes
    ----------
    case : dict
        The case as read.
    problem : ContactProblem
    levels : tuple of float
        Load levels (static cases).
    newton : NewtonOptions
    stepping : SteppingOptions
    backend : str
    dynamics : DynamicsOptions or None
    initial_velocity : ndarray or None
    timings : dict
    """

    case: dict
    problem: ContactProblem
    levels: tuple
    newton: NewtonOptions
    stepping: SteppingOptions
    backend: str
    dynamics: object = None               # DynamicsOptions of a dynamic case
    initial_velocity: np.ndarray | None = None
    #: seconds spent building, as the summary reports them: ``build_mesh`` (generating or
    #: reading the meshes, also the coarse ones), ``build_bodies`` (element checks),
    #: ``build_assembly`` (bulk stiffness and mass), ``nested_build`` (the coarse model less its
    #: meshes), ``build`` (all)
    timings: dict = field(default_factory=dict, compare=False)
    #: the coarse model of nested iteration (:mod:`fecontact.analysis.nested`), or None
    coarse: "CaseModel | None" = None
    #: the :class:`fecontact.Model` the problem was assembled from (its ``solve`` gives a
    #: :class:`fecontact.Solution`, whose ``gradient`` needs the model)
    model: object = field(default=None, compare=False, repr=False)


def _material(table, where: str, source: str) -> Material:
    """The material of a ``{E, nu, model, plane, density}`` table (keys and ranges: the schema).

    ``model`` names the material law (``linear_elastic`` by default);
    ``plane`` the 2D model in the words of the API's ``plane=``.  The older
    ``model = "plane_strain"`` / ``"plane_stress"`` still mean the linear
    material in that plane.
    """
    try:
        model = table.get("model", LINEAR_ELASTIC)
        plane = table.get("plane")
        if model in PLANE_MODELS:
            if plane is not None and plane != model:
                raise ValueError(f"model = {model!r} and plane = {plane!r} disagree; give plane "
                                 f"alone")
            model, plane = LINEAR_ELASTIC, model
        plane = plane or "plane_strain"
        if model in HYPERELASTIC:                    # finite deformation
            return HYPERELASTIC[model](table["E"], table["nu"], density=table.get("density", 0.0),
                                       plane=plane)
        return Material(table["E"], table["nu"], plane, table.get("density", 0.0))
    except (TypeError, ValueError) as err:
        raise CaseError(f"{source}: '{where}': {err}") from None


def _body_of(spec: dict, where: str, source: str, base: Path, timings: dict) -> Body:
    """The :class:`fecontact.model.Body` of a ``[[bodies]]`` entry, with its supports and loads."""
    tic = time.perf_counter()
    mesh = mesh_of(spec["mesh"], f"{where}.mesh", source, base)
    timings["build_mesh"] += time.perf_counter() - tic
    tic = time.perf_counter()
    try:
        if "material" in spec:
            material = _material(spec["material"], f"{where}.material", source)
        else:
            material = {str(region): _material(table, f"{where}.materials.{region}", source)
                        for region, table in spec["materials"].items()}
        body = Body(spec["name"], mesh, spec["element"], material,
                    initial_velocity=spec.get("initial_velocity"))
    except ValueError as err:
        raise CaseError(f"{source}: '{where}': {err}") from None
    timings["build_bodies"] += time.perf_counter() - tic

    def call(w, key, method, *args, **kwargs):
        try:
            method(*args, **kwargs)
        except KeyError as err:
            raise CaseError(f"{source}: '{w}.{key}': {err.args[0]}") from None
        except ValueError as err:
            raise CaseError(f"{source}: '{w}': {err}") from None

    for j, bc in enumerate(spec.get("dirichlet", [])):
        w = f"{where}.dirichlet.{j}"
        where_of(bc, w, source)
        comps = components_of(bc, body.dim, w, source)
        value = float(bc.get("value", 0.0))
        name = bc.get("name", bc.get("boundary", f"{spec['name']}-point-{j}"))
        call(w, "boundary", body.fix, bc.get("boundary"), point=bc.get("point"),
             amplitude=amplitude_of(bc.get("amplitude"), f"{w}.amplitude", source), name=name,
             **{"xyz"[c]: value for c in comps})
    for j, cp in enumerate(spec.get("coupling", [])):
        w = f"{where}.coupling.{j}"
        where_of(cp, w, source, point=False)
        comp = components_of(cp, body.dim, w, source)
        if len(comp) != 1:
            raise CaseError(f"{source}: '{w}.component' must name one component")
        call(w, "boundary", body.couple, cp["boundary"], "xyz"[comp[0]], float(cp.get("force", 0.0)),
             amplitude=amplitude_of(cp.get("amplitude"), f"{w}.amplitude", source),
             name=cp.get("name", cp["boundary"]))
    for j, sp_ in enumerate(spec.get("spring", [])):
        w = f"{where}.spring.{j}"
        for key in ("boundary", "component", "stiffness"):
            if key not in sp_:
                raise CaseError(f"{source}: '{w}' needs '{key}'")
        comp = components_of(sp_, body.dim, w, source)
        if len(comp) != 1:
            raise CaseError(f"{source}: '{w}.component' must name one component")
        options = {k: float(sp_[k]) for k in ("damping", "anchor_offset", "anchor_velocity")
                   if k in sp_}
        call(w, "boundary", body.spring, sp_["boundary"], "xyz"[comp[0]], float(sp_["stiffness"]),
             name=sp_.get("name"), **options)
    if "body_force" in spec:
        call(f"{where}.body_force", "value", body.body_force, spec["body_force"])
    for key, method in (("traction", body.traction), ("pressure", body.pressure)):
        for j, load in enumerate(spec.get(key, [])):
            w = f"{where}.{key}.{j}"
            for required in ("boundary", "value"):
                if required not in load:
                    raise CaseError(f"{source}: '{w}' needs '{required}'")
            call(w, "boundary", method, load["boundary"], load["value"],
                 amplitude=amplitude_of(load.get("amplitude"), f"{w}.amplitude", source))
    return body


def _contact_of(spec: dict, where: str, bodies: dict, source: str) -> Contact:
    """The :class:`fecontact.model.Contact` of a ``[[contact]]`` entry."""
    for key in ("slave", "master"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    slave = surface_of(spec["slave"], f"{where}.slave", bodies, source)
    master = master_of(spec["master"], f"{where}.master", bodies, source)
    law = friction_law(spec.get("friction", {"law": "frictionless"}), f"{where}.friction", source)
    options = {key: spec[key] for key in ("name", "formulation", "enforcement", "two_pass", "smoothing")
               if key in spec}
    options.update({key: float(spec[key]) for key in ("c_n", "c_t", "augmentation_factor",
                                                      "penalty_factor", "penetration_tolerance")
                    if key in spec})
    if "interference" in spec:
        options["interference"] = interference_of(spec["interference"], f"{where}.interference", source)
    try:
        return Contact(slave, master, law, **options)
    except ValueError as err:
        # "<parameter> ..." names the key of the case's table
        key, _, rest = str(err).partition(" ")
        if key in spec or key in ("formulation", "enforcement"):
            raise CaseError(f"{source}: '{where}.{key}' {rest}") from None
        raise CaseError(f"{source}: '{where}': {err}") from None


def _tie_of(spec: dict, where: str, bodies: dict, source: str) -> Tie:
    """The :class:`fecontact.model.Tie` of a ``[[tie]]`` entry."""
    for key in ("slave", "master"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    slave = surface_of(spec["slave"], f"{where}.slave", bodies, source)
    master = surface_of(spec["master"], f"{where}.master", bodies, source)
    options = {"name": spec["name"]} if "name" in spec else {}
    if "coverage_tolerance" in spec:
        options["coverage_tolerance"] = float(spec["coverage_tolerance"])
    try:
        return Tie(slave, master, **options)
    except ValueError as err:
        raise CaseError(f"{source}: '{where}': {err}") from None


def _newton(solver: dict, source) -> NewtonOptions:
    """The Newton options of the ``solver`` table (types and ranges: the schema)."""
    values = {"tolerance": solver.get("tolerance", 1e-9),
              "max_iterations": solver.get("max_iterations", 30),
              "max_backtracks": solver.get("max_backtracks", 6)}
    try:
        return NewtonOptions(**values)
    except (ValueError, TypeError) as err:
        raise CaseError(f"{source}: solver.{err}") from None


def _stepping(solver: dict, source) -> SteppingOptions:
    """The stepping options of the ``solver`` table (``SteppingOptions`` checks them)."""
    try:
        return SteppingOptions(max_cutbacks=solver.get("max_cutbacks", 6),
                               max_closing=solver.get("max_closing"))
    except ValueError as err:
        raise CaseError(f"{source}: solver.{err}") from None


def build_model(case: dict) -> CaseModel:
    """The model of a validated case, built through the Python model API.

    Each ``[[bodies]]`` entry becomes a :class:`fecontact.model.Body` (its
    supports, couplings, springs and loads added by the body's methods),
    each ``[[contact]]`` entry a :class:`fecontact.model.Contact`; the
    :class:`fecontact.model.Model` of them is assembled
    (:meth:`fecontact.model.Model.assemble`) and the case's solver, step
    or dynamics tables are read.

    Parameters
    ----------
    case : dict
        From :func:`fecontact.case.schema.load_case`.

    Returns
    -------
    CaseModel

    Raises
    ------
    CaseError
        One line naming the file and the key of the first problem found.

    Examples
    --------
    The contact patch test: two blocks, six slave nodes on their interface.

    >>> import fecontact as fc
    >>> model = fc.build_model(fc.load_case("cases/patch2d.toml"))
    >>> model.levels, model.problem.dim, model.problem.n_contact, model.backend
    ((1.0,), 2, 6, 'auto')
    """
    source, base = case["_path"], Path(case["_dir"])
    dynamic = "dynamics" in case
    tic_build = time.perf_counter()
    timings = {"build_mesh": 0.0, "build_bodies": 0.0}
    bodies: dict = {}
    for i, spec in enumerate(case["bodies"]):
        where = f"bodies.{i}"
        if spec["name"] in bodies:
            raise CaseError(f"{source}: '{where}.name' = {spec['name']!r} is used twice")
        body = _body_of(spec, where, source, base, timings)
        if dynamic and not all(m.density > 0 for m in body.part.materials):
            raise CaseError(f"{source}: '{where}.material.density' must be > 0 in a dynamic case")
        bodies[spec["name"]] = body
    if len({b.dim for b in bodies.values()}) != 1:
        raise CaseError(f"{source}: all bodies must have the same dimension")
    contacts = [_contact_of(spec, f"contact.{k}", bodies, source)
                for k, spec in enumerate(case["contact"])]
    ties = [_tie_of(spec, f"tie.{k}", bodies, source) for k, spec in enumerate(case.get("tie", []))]
    try:
        share = element_share(case.get("solver", {}).get("backend", "auto"), dynamic)
        model = Model(list(bodies.values()), contacts, ties)
        assembly = model.assemble(dynamic=dynamic, share=share)
    except ValueError as err:                  # a tie that cannot be made
        raise CaseError(f"{source}: {err}") from None
    timings.update(assembly.timings)
    problem = assembly.problem

    solver = case.get("solver", {})
    newton = _newton(solver, source)
    stepping = _stepping(solver, source)
    if dynamic:
        timings["build"] = time.perf_counter() - tic_build
        return CaseModel(case=case, problem=problem, levels=(), newton=newton, stepping=stepping,
                         backend=solver.get("backend", "auto"),
                         dynamics=_dynamics(case["dynamics"], stepping, source),
                         initial_velocity=assembly.initial_velocity, timings=timings, model=model)
    levels = _levels(case["steps"], source)
    coarse = _coarse_model(case, problem, timings)
    timings["build"] = time.perf_counter() - tic_build
    return CaseModel(case=case, problem=problem, levels=levels, newton=newton, stepping=stepping,
                     backend=solver.get("backend", "auto"), timings=timings, coarse=coarse,
                     model=model)


def _coarse_model(case: dict, problem, timings: dict) -> CaseModel | None:
    """The coarse model ``solver.nested`` asks for (:mod:`fecontact.case.coarse`), or None.

    ``nested`` not given builds it for frictionless problems of
    at least :data:`~fecontact.case.coarse.NESTED_MIN_UNKNOWNS` unknowns
    when every body's coarse mesh can be had, and goes without it (logged)
    when the coarse case cannot be built; ``nested = true`` builds it or
    fails.  Frictional pairs are left out of ``auto``: the prediction carries
    normal tractions only, and a stick zone started without its tangential
    tractions costs the fine solve more iterations than the coarse one saves
    (cattaneo2d: 75 Newton iterations with the prediction, 56 without).
    """
    source = case["_path"]
    solver = case.get("solver", {})
    nested = solver.get("nested", "auto")
    if nested is False or (nested == "auto" and (
            problem.system.K_hat.shape[0] < NESTED_MIN_UNKNOWNS
            or any(p.friction.has_friction for p in problem.pairs))):
        return None
    factor = solver.get("nested_coarsening", DEFAULT_COARSENING[problem.dim])
    coarse = coarse_case(case, factor)
    if coarse is None:
        if nested is True:
            files = [f"bodies.{i}.mesh" for i, b in enumerate(case["bodies"])
                     if "file" in b["mesh"] and "coarse" not in b["mesh"]]
            raise CaseError(f"{source}: 'solver.nested' = true needs a coarse mesh of every body: "
                            f"'{files[0]}.coarse' names none")
        return None
    try:
        model = build_model(coarse)
    except CaseError as err:
        if nested is True:
            raise CaseError(f"{err} (the coarse model of 'solver.nested')") from None
        logger.info("no nested iteration: the coarse model cannot be built (%s)", err)
        return None
    timings["build_mesh"] += model.timings["build_mesh"]
    timings["nested_build"] = model.timings["build"] - model.timings["build_mesh"]
    return model


def _dynamics(spec: dict, stepping: SteppingOptions, source: str):
    """DynamicsOptions from the ``[dynamics]`` table."""
    from ..analysis.dynamic_records import DynamicsOptions
    from ..analysis.integrators import Integrator

    where = "dynamics"                     # keys, types, ranges and choices: the schema
    dt, t_end = spec["dt"], spec["t_end"]
    try:
        integrator = Integrator.by_name(spec.get("integrator", "newmark"), spec.get("rho_inf", 0.8))
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.rho_inf': {err}") from None
    every = spec.get("output_every", 1)
    return DynamicsOptions(integrator=integrator, dt=dt, t_end=t_end,
                           initial=spec.get("initial", "rest"),
                           contact_mass=spec.get("contact_mass", "consistent"),
                           project_velocities=bool(spec.get("project_velocities", True)),
                           output_every=every, max_cutbacks=stepping.max_cutbacks)


def _levels(steps: dict, source) -> tuple:
    """The load levels of ``[steps]`` (types, counts and ordering: the schema)."""
    try:
        if "levels" in steps:
            return load_levels(levels=steps["levels"])
        return load_levels(steps.get("count", 1), t_end=steps.get("t_end", 1.0))
    except (ValueError, OverflowError) as err:
        raise CaseError(f"{source}: 'steps': {err}") from None
