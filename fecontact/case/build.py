"""The model of a validated case: bodies, bulk system, contact pairs and solver options.

:func:`build_model` turns the dict of :func:`fecontact.case.schema.load_case`
into a :class:`Model`: it makes the meshes and bodies
(:mod:`fecontact.case.bodies`), places the loads, supports, couplings and
springs in the global numbering of the bulk system
(:func:`fecontact.bodies.system.build_system`), builds the contact pairs with
their automatic augmentation (:mod:`fecontact.case.contact`) and reads the
Newton, load-stepping or time-integration options.  The checks that need the
built model are :mod:`fecontact.case.checks`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import skfem

from .bodies import CONSTANT, amplitude_of, boundary_nodes_of, components_of, mesh_of, spring_of
from .contact import (ENFORCEMENTS, FORMULATIONS, check_mortar, master_of, surface_of, vector_of,
                      friction_law)

from ..analysis.static import SteppingOptions
from ..bodies.body import ElasticBody
from ..bodies.elasticity import Material, constant_load, pressure_load
from ..bodies.system import Coupling, Dirichlet, Load, build_system
from .schema import CaseError
from ..contact.pairs import ContactPair
from ..contact.surface import ContactSurface
from ..solve.newton import NewtonOptions
from ..solve.problem import ContactProblem, automatic_augmentation


@dataclass(frozen=True)
class Model:
    """Everything a run needs, built from a case."""

    case: dict
    problem: ContactProblem
    levels: tuple
    newton: NewtonOptions
    stepping: SteppingOptions
    backend: str
    dynamics: object = None               # DynamicsOptions of a dynamic case
    initial_velocity: np.ndarray | None = None
    #: seconds spent building, as the summary reports them: ``build_mesh`` (generating or
    #: reading the meshes), ``build_bodies`` (element checks), ``build_assembly`` (bulk
    #: stiffness and mass), ``build`` (all)
    timings: dict = field(default_factory=dict, compare=False)


def build_model(case: dict) -> Model:
    """Create bodies, constraints, loads, contact pairs and solver options."""
    source, base = case["_path"], Path(case["_dir"])
    bodies, dirichlet, couplings, loads, springs = [], [], [], [], []
    velocities = []
    index = {}
    dynamic = "dynamics" in case
    default = CONSTANT if dynamic else None

    def amplitude(table, where):
        return amplitude_of(table, where, source, default)

    tic_build = time.perf_counter()
    timings = {"build_mesh": 0.0, "build_bodies": 0.0}
    for i, spec in enumerate(case["bodies"]):
        where = f"bodies.{i}"
        tic = time.perf_counter()
        mesh = mesh_of(spec["mesh"], f"{where}.mesh", source, base)
        timings["build_mesh"] += time.perf_counter() - tic
        mat = spec["material"]
        for key in ("E", "nu"):
            if key not in mat:
                raise CaseError(f"{source}: '{where}.material' needs '{key}'")
        try:
            material = Material(float(mat["E"]), float(mat["nu"]), mat.get("model", "plane_strain"),
                                float(mat.get("density", 0.0)))
            tic = time.perf_counter()
            body = ElasticBody.create(spec["name"], mesh, spec["element"], material)
            timings["build_bodies"] += time.perf_counter() - tic
        except ValueError as err:
            raise CaseError(f"{source}: '{where}': {err}") from None
        if spec["name"] in index:
            raise CaseError(f"{source}: '{where}.name' = {spec['name']!r} is used twice")
        if dynamic and not material.density > 0:
            raise CaseError(f"{source}: '{where}.material.density' must be > 0 in a dynamic case")
        index[spec["name"]] = i
        bodies.append(body)
        velocity = vector_of(spec, "initial_velocity", [0.0] * body.dim, body.dim, where, source)
        velocities.append(np.tile(velocity, body.n_nodes))
        for j, bc in enumerate(spec.get("dirichlet", [])):
            w = f"{where}.dirichlet.{j}"
            nodes = boundary_nodes_of(body, bc, w, source)
            name = bc.get("name", bc.get("boundary", f"{spec['name']}-point-{j}"))
            dirichlet.append(Dirichlet(name, i, nodes, components_of(bc, body.dim, w, source),
                                       float(bc.get("value", 0.0)),
                                       amplitude(bc.get("amplitude"), f"{w}.amplitude")))
        for j, cp in enumerate(spec.get("coupling", [])):
            w = f"{where}.coupling.{j}"
            nodes = boundary_nodes_of(body, cp, w, source)
            comp = components_of(cp, body.dim, w, source)
            if len(comp) != 1:
                raise CaseError(f"{source}: '{w}.component' must name one component")
            couplings.append(Coupling(cp.get("name", cp["boundary"]), i, nodes, comp[0],
                                      float(cp.get("force", 0.0)),
                                      amplitude(cp.get("amplitude"), f"{w}.amplitude")))
        for j, sp_ in enumerate(spec.get("spring", [])):
            springs.append(spring_of(sp_, body, i, f"{where}.spring.{j}", source))
        if "body_force" in spec:
            vec = constant_load(body.basis, spec["body_force"])
            loads.append(Load(f"{spec['name']}-body-force", (i, vec),
                              amplitude(None, f"{where}.body_force")))
        for j, tr in enumerate(spec.get("traction", [])):
            w = f"{where}.traction.{j}"
            try:
                facets = body.facets(tr["boundary"])
            except KeyError as err:
                raise CaseError(f"{source}: '{w}.boundary': {err.args[0]}") from None
            fb = skfem.FacetBasis(mesh, body.basis.elem, facets=facets)
            vec = constant_load(fb, tr["value"])
            loads.append(Load(f"{spec['name']}-{tr['boundary']}", (i, vec),
                              amplitude(tr.get("amplitude"), f"{w}.amplitude")))
        for j, pr in enumerate(spec.get("pressure", [])):
            w = f"{where}.pressure.{j}"
            for key in ("boundary", "value"):
                if key not in pr:
                    raise CaseError(f"{source}: '{w}' needs '{key}'")
            try:
                facets = body.facets(pr["boundary"])
            except KeyError as err:
                raise CaseError(f"{source}: '{w}.boundary': {err.args[0]}") from None
            fb = skfem.FacetBasis(mesh, body.basis.elem, facets=facets)
            loads.append(Load(f"{spec['name']}-{pr['boundary']}-pressure",
                              (i, pressure_load(fb, pr["value"])),
                              amplitude(pr.get("amplitude"), f"{w}.amplitude")))
    dims = {b.dim for b in bodies}
    if len(dims) != 1:
        raise CaseError(f"{source}: all bodies must have the same dimension")
    # place body-local load vectors into global numbering
    sizes = np.cumsum([0] + [b.dim * b.n_nodes for b in bodies])
    n = sizes[-1]
    placed = []
    for load in loads:
        bi, vec = load.vector
        full = np.zeros(n)
        full[sizes[bi]:sizes[bi + 1]] = vec
        placed.append(Load(load.name, full, load.amplitude))
    offsets = np.concatenate([[0], np.cumsum([b.n_nodes for b in bodies])])
    springs = [replace(s, dofs=bodies[0].dim * offsets[body] + s.dofs) for body, s in springs]
    tic = time.perf_counter()
    system = build_system(bodies, dirichlet, couplings, placed, springs, with_mass=dynamic)
    timings["build_assembly"] = time.perf_counter() - tic

    pairs = []
    for k, spec in enumerate(case["contact"]):
        where = f"contact.{k}"
        for key in ("slave", "master"):
            if key not in spec:
                raise CaseError(f"{source}: '{where}' needs '{key}'")
        slave = surface_of(spec["slave"], f"{where}.slave", bodies, index, source)
        master = master_of(spec["master"], f"{where}.master", bodies, index, source, system.dim,
                         default)
        law = friction_law(spec.get("friction", {"law": "frictionless"}), f"{where}.friction", source)
        aug_factor = float(spec.get("augmentation_factor", 1.0))
        auto = automatic_augmentation(system, slave.body, slave.area, aug_factor,
                                      master.body if isinstance(master, ContactSurface) else None)
        c_n = np.full_like(auto, float(spec["c_n"])) if "c_n" in spec else auto
        c_t = np.full_like(auto, float(spec["c_t"])) if "c_t" in spec else c_n.copy()
        formulation = spec.get("formulation", "node_to_segment")
        if formulation not in FORMULATIONS:
            raise CaseError(f"{source}: '{where}.formulation' = {formulation!r}; choose one of "
                            f"{', '.join(FORMULATIONS)}")
        if formulation == "mortar":
            check_mortar(slave, master, bodies, f"{source}: '{where}.formulation' = 'mortar'")
        name = spec.get("name", f"contact{k}")
        enforcement = spec.get("enforcement", "multiplier")
        if enforcement not in ENFORCEMENTS:
            raise CaseError(f"{source}: '{where}.enforcement' = {enforcement!r}; choose one of "
                            f"{', '.join(ENFORCEMENTS)}")
        two_pass = bool(spec.get("two_pass", False))
        if two_pass and (enforcement != "penalty" or formulation != "node_to_segment"
                         or not hasattr(master, "facets")):
            raise CaseError(f"{source}: '{where}.two_pass' needs a body as master, "
                            f"formulation = 'node_to_segment' and enforcement = 'penalty' (with "
                            f"multipliers the two passes constrain the interface twice and the "
                            f"system is singular)")
        if enforcement == "penalty" and law.has_friction:
            raise CaseError(f"{source}: '{where}.enforcement' = 'penalty' is frictionless; "
                            f"set friction.law = 'frictionless' or use enforcement = 'multiplier'")
        factor = float(spec.get("penalty_factor", 1.0e3))
        if enforcement == "penalty" and not (np.isfinite(factor) and factor > 0):
            raise CaseError(f"{source}: '{where}.penalty_factor' must be > 0, got {factor}")

        def penalty(surface):
            if enforcement != "penalty":
                return None
            return automatic_augmentation(system, surface.body, surface.area, factor)

        pairs.append(ContactPair(name=name, slave=slave, master=master, friction=law, c_n=c_n,
                                 c_t=c_t, formulation=formulation, penalty=penalty(slave)))
        if two_pass:
            back = automatic_augmentation(system, master.body, master.area, aug_factor, slave.body)
            pairs.append(ContactPair(name=f"{name}-reverse", slave=master, master=slave, friction=law,
                                     c_n=back, c_t=back.copy(), formulation=formulation,
                                     penalty=penalty(master)))

    solver = case.get("solver", {})
    newton = NewtonOptions(tolerance=float(solver.get("tolerance", 1e-9)),
                           max_iterations=int(solver.get("max_iterations", 30)),
                           max_backtracks=int(solver.get("max_backtracks", 6)))
    stepping = SteppingOptions(max_cutbacks=int(solver.get("max_cutbacks", 6)))
    problem = ContactProblem(system, pairs)
    if dynamic:
        timings["build"] = time.perf_counter() - tic_build
        return Model(case=case, problem=problem, levels=(), newton=newton, stepping=stepping,
                     backend=solver.get("backend", "auto"),
                     dynamics=_dynamics(case["dynamics"], stepping, source),
                     initial_velocity=np.concatenate(velocities), timings=timings)
    steps = case["steps"]
    if "levels" in steps:
        levels = tuple(float(v) for v in steps["levels"])
    else:
        count = int(steps.get("count", 1))
        if count < 1:
            raise CaseError(f"{source}: 'steps.count' must be >= 1")
        t_end = float(steps.get("t_end", 1.0))
        levels = tuple(t_end * (i + 1) / count for i in range(count))
    if any(b <= a for a, b in zip((0.0,) + levels, levels)):
        raise CaseError(f"{source}: 'steps.levels' must increase from above 0")
    timings["build"] = time.perf_counter() - tic_build
    return Model(case=case, problem=problem, levels=levels, newton=newton, stepping=stepping,
                 backend=solver.get("backend", "auto"), timings=timings)


def _dynamics(spec: dict, stepping: SteppingOptions, source: str):
    """DynamicsOptions from the ``[dynamics]`` table."""
    from ..analysis.dynamic_records import INITIAL, DynamicsOptions
    from ..analysis.integrators import INTEGRATORS, Integrator
    from ..analysis.mass import CONTACT_MASS

    where = "dynamics"
    for key in ("dt", "t_end"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    dt, t_end = float(spec["dt"]), float(spec["t_end"])
    if not (np.isfinite(dt) and dt > 0):
        raise CaseError(f"{source}: '{where}.dt' must be > 0, got {dt}")
    if not (np.isfinite(t_end) and t_end >= dt):
        raise CaseError(f"{source}: '{where}.t_end' must be >= dt, got {t_end}")
    name = spec.get("integrator", "newmark")
    if name not in INTEGRATORS:
        raise CaseError(f"{source}: '{where}.integrator' = {name!r}; choose one of "
                        f"{', '.join(INTEGRATORS)}")
    try:
        integrator = Integrator.by_name(name, float(spec.get("rho_inf", 0.8)))
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.rho_inf': {err}") from None
    for key, choices, default in (("initial", INITIAL, "rest"),
                                  ("contact_mass", CONTACT_MASS, "consistent")):
        if spec.get(key, default) not in choices:
            raise CaseError(f"{source}: '{where}.{key}' = {spec[key]!r}; choose one of "
                            f"{', '.join(choices)}")
    every = int(spec.get("output_every", 1))
    if every < 1:
        raise CaseError(f"{source}: '{where}.output_every' must be >= 1")
    return DynamicsOptions(integrator=integrator, dt=dt, t_end=t_end,
                           initial=spec.get("initial", "rest"),
                           contact_mass=spec.get("contact_mass", "consistent"),
                           project_velocities=bool(spec.get("project_velocities", True)),
                           output_every=every, max_cutbacks=stepping.max_cutbacks)
