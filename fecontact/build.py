"""Build a contact problem from a validated case dict."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import skfem

from .bodies.body import Body
from .case import CaseError
from .contact.pairs import ContactPair
from .contact.obstacles import RigidCircle, RigidLine, RigidPlane, RigidSphere
from .bodies.elasticity import Material, constant_load
from .friction.base import LAWS
from .friction.coulomb import Coulomb
from .friction.ipc import SmoothIPC
from .friction.static_kinetic import StaticKinetic
from .friction.velocity import VelocityDependent
from .solve.newton import NewtonOptions
from .solve.problem import ContactProblem, automatic_augmentation
from .analysis.static import SteppingOptions
from .contact.surface import ContactSurface, contact_surface
from .bodies.system import Amplitude, Coupling, Dirichlet, Load, Spring, build_system

COMPONENTS = {"x": 0, "y": 1, "z": 2}
FORMULATIONS = ("node_to_segment", "mortar")
ENFORCEMENTS = ("multiplier", "penalty")


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


#: default amplitude of loads and imposed displacements without a table: a ramp
#: over the pseudo-time [0, 1] in statics; in dynamics they act fully from t = 0
CONSTANT = Amplitude((0.0,), (1.0,))


def _amplitude(table, where: str, source: str, default: Amplitude | None = None) -> Amplitude:
    if table is None:
        return Amplitude.ramp() if default is None else default
    arr = np.asarray(table, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 1 or np.any(np.diff(arr[:, 0]) <= 0):
        raise CaseError(f"{source}: '{where}' must be [[t0, a0], [t1, a1], ...] with increasing t")
    return Amplitude(tuple(arr[:, 0]), tuple(arr[:, 1]))


def _mesh(spec: dict, where: str, source: str, base: Path) -> skfem.Mesh:
    from .mesh import GENERATORS

    if "file" in spec:
        path = base / spec["file"]
        if not path.is_file():
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: mesh file not found ({path})")
        from .io.meshfile import MeshFileError, load_mesh, read

        try:
            if path.suffix.lower() == ".msh":
                return load_mesh(path)
            read(path)                   # a clear error for unreadable files
            return skfem.Mesh.load(str(path))
        except MeshFileError as err:
            text = str(err) if str(err).startswith("cannot read mesh") else f"cannot read mesh ({err})"
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: {text}") from None
        except Exception as err:  # meshio and scikit-fem raise many types
            raise CaseError(f"{source}: '{where}.file' = {spec['file']!r}: cannot read mesh ({err})") from None
    params = {k: v for k, v in spec.items() if k != "generator"}
    try:
        return GENERATORS[spec["generator"]](**params)
    except (TypeError, ValueError) as err:
        raise CaseError(f"{source}: '{where}': {err}") from None


def _components(bc: dict, dim: int, where: str, source: str) -> tuple:
    names = bc.get("components", [bc["component"]] if "component" in bc else None)
    if names is None:
        return tuple(range(dim))
    out = []
    for c in names:
        if c == "all":
            return tuple(range(dim))
        if c not in COMPONENTS or COMPONENTS[c] >= dim:
            raise CaseError(f"{source}: '{where}' has component {c!r}; use x, y{', z' if dim == 3 else ''} or all")
        out.append(COMPONENTS[c])
    return tuple(out)


def _boundary_nodes(body: Body, bc: dict, where: str, source: str) -> np.ndarray:
    if "point" in bc:
        p = np.asarray(bc["point"], float).reshape(-1, 1)
        if p.shape[0] != body.dim:
            raise CaseError(f"{source}: '{where}.point' needs {body.dim} coordinates")
        dist = np.linalg.norm(body.node_coords - p, axis=0)
        return np.array([int(np.argmin(dist))])
    if "boundary" not in bc:
        raise CaseError(f"{source}: '{where}' needs 'boundary' or 'point'")
    try:
        return body.boundary_nodes(bc["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None


def build_model(case: dict) -> Model:
    """Create bodies, constraints, loads, contact pairs and solver options."""
    source, base = case["_path"], Path(case["_dir"])
    bodies, dirichlet, couplings, loads, springs = [], [], [], [], []
    velocities = []
    index = {}
    dynamic = "dynamics" in case
    default = CONSTANT if dynamic else None

    def amplitude(table, where):
        return _amplitude(table, where, source, default)

    tic_build = time.perf_counter()
    timings = {"build_mesh": 0.0, "build_bodies": 0.0}
    for i, spec in enumerate(case["bodies"]):
        where = f"bodies.{i}"
        tic = time.perf_counter()
        mesh = _mesh(spec["mesh"], f"{where}.mesh", source, base)
        timings["build_mesh"] += time.perf_counter() - tic
        mat = spec["material"]
        for key in ("E", "nu"):
            if key not in mat:
                raise CaseError(f"{source}: '{where}.material' needs '{key}'")
        try:
            material = Material(float(mat["E"]), float(mat["nu"]), mat.get("model", "plane_strain"),
                                float(mat.get("density", 0.0)))
            tic = time.perf_counter()
            body = Body.create(spec["name"], mesh, spec["element"], material)
            timings["build_bodies"] += time.perf_counter() - tic
        except ValueError as err:
            raise CaseError(f"{source}: '{where}': {err}") from None
        if spec["name"] in index:
            raise CaseError(f"{source}: '{where}.name' = {spec['name']!r} is used twice")
        if dynamic and not material.density > 0:
            raise CaseError(f"{source}: '{where}.material.density' must be > 0 in a dynamic case")
        index[spec["name"]] = i
        bodies.append(body)
        velocity = _vector(spec, "initial_velocity", [0.0] * body.dim, body.dim, where, source)
        velocities.append(np.tile(velocity, body.n_nodes))
        for j, bc in enumerate(spec.get("dirichlet", [])):
            w = f"{where}.dirichlet.{j}"
            nodes = _boundary_nodes(body, bc, w, source)
            name = bc.get("name", bc.get("boundary", f"{spec['name']}-point-{j}"))
            dirichlet.append(Dirichlet(name, i, nodes, _components(bc, body.dim, w, source),
                                       float(bc.get("value", 0.0)),
                                       amplitude(bc.get("amplitude"), f"{w}.amplitude")))
        for j, cp in enumerate(spec.get("coupling", [])):
            w = f"{where}.coupling.{j}"
            nodes = _boundary_nodes(body, cp, w, source)
            comp = _components(cp, body.dim, w, source)
            if len(comp) != 1:
                raise CaseError(f"{source}: '{w}.component' must name one component")
            couplings.append(Coupling(cp.get("name", cp["boundary"]), i, nodes, comp[0],
                                      float(cp.get("force", 0.0)),
                                      amplitude(cp.get("amplitude"), f"{w}.amplitude")))
        for j, sp_ in enumerate(spec.get("spring", [])):
            springs.append(_spring(sp_, body, i, f"{where}.spring.{j}", source))
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
        slave = _surface(spec["slave"], f"{where}.slave", bodies, index, source)
        master = _master(spec["master"], f"{where}.master", bodies, index, source, system.dim,
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
            _check_mortar(slave, master, bodies, f"{source}: '{where}.formulation' = 'mortar'")
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
        if enforcement == "penalty" and law.kinetic > 0.0:
            raise CaseError(f"{source}: '{where}.enforcement' = 'penalty' is frictionless; "
                            f"set friction.law = 'frictionless' or use enforcement = 'multiplier'")
        factor = float(spec.get("penalty_factor", 1.0e3))
        if enforcement == "penalty" and not (np.isfinite(factor) and factor > 0):
            raise CaseError(f"{source}: '{where}.penalty_factor' must be > 0, got {factor}")

        def penalty(surface):
            if enforcement != "penalty":
                return None
            return automatic_augmentation(system, surface.body, surface.area, factor)

        pairs.append(ContactPair(name, slave, master, law.kinetic, c_n, c_t, law, formulation,
                                 penalty(slave)))
        if two_pass:
            back = automatic_augmentation(system, master.body, master.area, aug_factor, slave.body)
            pairs.append(ContactPair(f"{name}-reverse", master, slave, 0.0, back, back.copy(), law,
                                     formulation, penalty(master)))

    solver = case.get("solver", {})
    newton = NewtonOptions(tolerance=float(solver.get("tolerance", 1e-9)),
                           max_iterations=int(solver.get("max_iterations", 30)),
                           max_backtracks=int(solver.get("max_backtracks", 6)))
    stepping = SteppingOptions(max_cutbacks=int(solver.get("max_cutbacks", 6)))
    problem = ContactProblem(system, pairs)
    if dynamic:
        timings["build"] = time.perf_counter() - tic_build
        return Model(case, problem, (), newton, stepping, solver.get("backend", "auto"),
                     _dynamics(case["dynamics"], stepping, source), np.concatenate(velocities),
                     timings)
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
    return Model(case, problem, levels, newton, stepping, solver.get("backend", "auto"),
                 timings=timings)


def _dynamics(spec: dict, stepping: SteppingOptions, source: str):
    """DynamicsOptions from the ``[dynamics]`` table."""
    from .analysis.dynamic_records import INITIAL, DynamicsOptions
    from .analysis.integrators import INTEGRATORS, Integrator
    from .analysis.mass import CONTACT_MASS

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
    return DynamicsOptions(integrator, dt, t_end, spec.get("initial", "rest"),
                           spec.get("contact_mass", "consistent"),
                           bool(spec.get("project_velocities", True)), every,
                           stepping.max_cutbacks)


def _spring(spec: dict, body: Body, body_index: int, where: str, source: str):
    """``(body index, Spring with body-local DOFs)`` from a ``spring`` table."""
    for key in ("boundary", "component", "stiffness"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    comp = _components(spec, body.dim, where, source)
    if len(comp) != 1:
        raise CaseError(f"{source}: '{where}.component' must name one component")
    try:
        surface = contact_surface(body, body_index, spec["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err}") from None
    values = {}
    for key in ("stiffness", "damping", "anchor_offset", "anchor_velocity"):
        values[key] = float(spec.get(key, 0.0))
        if not np.isfinite(values[key]):
            raise CaseError(f"{source}: '{where}.{key}' must be finite")
    if values["stiffness"] < 0 or values["damping"] < 0:
        raise CaseError(f"{source}: '{where}': stiffness and damping must be >= 0")
    weights = surface.area / surface.area.sum()
    name = spec.get("name", f"{body.name}-{spec['boundary']}-spring")
    return body_index, Spring(name, body.dim * surface.nodes + comp[0], weights,
                              values["stiffness"], values["damping"], values["anchor_offset"],
                              values["anchor_velocity"])


def _check_mortar(slave, master, bodies, prefix):
    """Mortar needs a body as master and linear facets (triangles in 3D)."""
    if not hasattr(master, "facets"):
        raise CaseError(f"{prefix} needs a body as master, not an obstacle")
    for surface in (slave, master):
        body = bodies[surface.body]
        if body.has_edge_nodes:
            raise CaseError(f"{prefix} needs linear elements; body {body.name!r} is {body.element}")
        if body.dim == 3 and surface.facets.shape[0] != 3:
            raise CaseError(f"{prefix} needs triangle facets in 3D (tetrahedra); body {body.name!r} "
                            f"has quadrilaterals")


def _surface(spec, where, bodies, index, source):
    for key in ("body", "boundary"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' needs '{key}'")
    if spec["body"] not in index:
        raise CaseError(f"{source}: '{where}.body' = {spec['body']!r} is not a body; "
                        f"bodies: {', '.join(index)}")
    i = index[spec["body"]]
    try:
        return contact_surface(bodies[i], i, spec["boundary"])
    except KeyError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err.args[0]}") from None
    except ValueError as err:
        raise CaseError(f"{source}: '{where}.boundary': {err}") from None


def _vector(spec, key, default, dim, where, source) -> np.ndarray:
    value = np.asarray(spec.get(key, default), float)
    if value.shape != (dim,):
        raise CaseError(f"{source}: '{where}.{key}' needs {dim} coordinates, got {spec.get(key)!r}")
    return value


# obstacle name -> (class, dimension)
OBSTACLES = {"line": (RigidLine, 2), "circle": (RigidCircle, 2),
             "plane": (RigidPlane, 3), "sphere": (RigidSphere, 3)}


def friction_law(spec: dict, where: str, source: str):
    """Friction law of a contact pair from its ``friction`` table.

    ``coulomb`` takes ``mu``; ``static_kinetic``, ``velocity`` and ``ipc``
    take ``mu_s`` and ``mu_k`` (each defaults to ``mu``), ``velocity`` also
    ``dc`` (needed when ``mu_s != mu_k``) and ``ipc`` ``eps_v``.
    """
    name = spec.get("law", "coulomb")
    if name not in LAWS:
        raise CaseError(f"{source}: '{where}.law' = {name!r}; choose one of {', '.join(LAWS)}")
    for key in ("mu", "mu_s", "mu_k", "dc", "eps_v"):
        if key in spec and not float(spec[key]) >= 0.0:
            raise CaseError(f"{source}: '{where}.{key}' must be >= 0, got {spec[key]}")
    if name == "frictionless":
        return Coulomb(0.0)

    def coefficient(key, default=None):
        if key not in spec and default is None:
            raise CaseError(f"{source}: '{where}' needs '{key}' for law {name!r}")
        return float(spec.get(key, default))     # >= 0: checked above

    if name == "coulomb":
        return Coulomb(coefficient("mu", 0.0))
    mu = spec.get("mu")
    mu_s, mu_k = coefficient("mu_s", mu), coefficient("mu_k", mu)
    if mu_k > mu_s:
        raise CaseError(f"{source}: '{where}.mu_k' ({mu_k}) must not exceed '{where}.mu_s' "
                        f"({mu_s}): kinetic friction is at most static friction")
    if name == "static_kinetic":
        return StaticKinetic(mu_s, mu_k)
    if name == "velocity":
        return VelocityDependent(mu_s, mu_k, coefficient("dc", 0.0 if mu_s == mu_k else None))
    eps_v = coefficient("eps_v")
    if eps_v <= 0:
        raise CaseError(f"{source}: '{where}.eps_v' must be > 0, got {eps_v}")
    return SmoothIPC(mu_s, mu_k, eps_v)


def _master(spec, where, bodies, index, source, dim, default=None):
    if "body" in spec:
        return _surface(spec, where, bodies, index, source)
    kind = spec.get("obstacle")
    if kind not in OBSTACLES:
        raise CaseError(f"{source}: '{where}' needs 'body' and 'boundary', or 'obstacle' = "
                        f"{'line or circle' if dim == 2 else 'plane or sphere'}")
    cls, obstacle_dim = OBSTACLES[kind]
    if obstacle_dim != dim:
        other = {"line": "plane", "circle": "sphere", "plane": "line", "sphere": "circle"}[kind]
        raise CaseError(f"{source}: '{where}.obstacle' = {kind!r} is a {obstacle_dim}D obstacle; "
                        f"the bodies are {dim}D (use {other!r})")
    zero = [0.0] * dim
    disp = _vector(spec, "displacement", zero, dim, where, source)
    amp = _amplitude(spec.get("amplitude"), f"{where}.amplitude", source, default)
    if kind in ("line", "plane"):
        normal = _vector(spec, "normal", zero[:-1] + [1.0], dim, where, source)
        if np.linalg.norm(normal) == 0:
            raise CaseError(f"{source}: '{where}.normal' must be non-zero")
        return cls(_vector(spec, "point", zero, dim, where, source),
                   normal / np.linalg.norm(normal), disp, amp)
    for key in ("center", "radius"):
        if key not in spec:
            raise CaseError(f"{source}: '{where}' ({kind}) needs '{key}'")
    if spec["radius"] <= 0:
        raise CaseError(f"{source}: '{where}.radius' must be > 0")
    return cls(_vector(spec, "center", zero, dim, where, source), float(spec["radius"]),
               bool(spec.get("inside", False)), disp, amp)
