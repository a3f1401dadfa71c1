"""A model: bodies and contact pairs, assembled into a contact problem and solved.

::

    model = fc.Model([disc], [fc.Contact(disc.surface("contact"), fc.RigidLine(...))])
    result = model.solve(steps=4)              # quasi-static load stepping
    result = model.solve_dynamic(dt=1e-3, t_end=0.1)

:meth:`Model.assemble` numbers the bodies, places their supports, loads,
couplings and springs in the global numbering
(:func:`fecontact.bodies.system.build_system`) and makes the contact pairs;
case files are built through the same calls (:mod:`fecontact.case.build`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..analysis.nested import NestedPrediction
from ..analysis.static import SteppingOptions, run_steps
from ..bodies.conditions import Amplitude, Load
from ..bodies.system import build_system
from ..solve.backends import element_share, make_backend
from ..solve.newton import NewtonOptions
from ..solve.problem import ContactProblem
from .body import Body
from .checks import model_findings
from .contact import Contact, Tie
from .replay import rebuild_model
from .solution import Solution, keep_steps

#: amplitude of loads, supports and obstacles given none: constant from t = 0 (dynamics)
CONSTANT = Amplitude((0.0,), (1.0,))


@dataclass(frozen=True)
class Assembly:
    """A model assembled for an analysis.

    Attributes
    ----------
    problem : ContactProblem
    initial_velocity : ndarray, shape (n_dofs,)
        The bodies' initial velocities in global numbering.
    timings : dict
        ``build_assembly``: seconds to assemble the bulk system.
    """

    problem: ContactProblem
    initial_velocity: np.ndarray = field(repr=False)
    timings: dict = field(default_factory=dict, compare=False)


def _options(value, cls, where: str):
    """``value`` as ``cls`` (an instance, a dict of its fields, or None for the defaults)."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        try:
            return cls(**value)
        except TypeError as err:
            raise ValueError(f"{where}: {err}") from None
    raise ValueError(f"{where} must be a {cls.__name__} or a dict, got {value!r}")


def load_levels(steps=1, levels=None, t_end: float = 1.0) -> tuple:
    """Load levels of a static analysis: ``steps`` equal increments to ``t_end``, or given ``levels``.

    Returns
    -------
    tuple of float
        Strictly increasing, all finite and ``> 0``.
    """
    if levels is None:
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"steps must be a whole number >= 1, got {steps!r}")
        if not (np.isfinite(t_end) and t_end > 0):
            raise ValueError(f"t_end must be > 0, got {t_end!r}")
        return tuple(float(t_end) * (i + 1) / int(steps) for i in range(int(steps)))
    out = tuple(float(v) for v in levels)
    if not out or not all(np.isfinite(out)) or any(b <= a for a, b in zip((0.0,) + out, out)):
        raise ValueError("levels must be finite and increase from above 0")
    return out


class Model:
    """Bodies and the contact pairs between them.

    Parameters
    ----------
    bodies : sequence of Body
        Same dimension, unique names.
    contacts : sequence of Contact (and Tie)
        Their surfaces belong to ``bodies``; a :class:`Tie` here joins ``ties``.
    ties : sequence of Tie
        Bonded interfaces between bodies (non-matching meshes allowed).

    Examples
    --------
    A block pushed 0.01 down onto a rigid floor, frictionless:

    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)])
    >>> model
    Model(['block'], 1 contact pairs, 0 ties)
    >>> model.check()                       # nothing stops it from being solved
    []
    >>> result = model.solve()
    >>> result.converged, f"{result.reaction('top')[1]:.3g}"
    (True, '-11.4')
    """

    def __init__(self, bodies, contacts=(), ties=()):
        self.bodies = list(bodies)
        contacts = list(contacts)
        self.contacts = [c for c in contacts if not isinstance(c, Tie)]
        self.ties = [c for c in contacts if isinstance(c, Tie)] + list(ties)
        if not self.bodies:
            raise ValueError("a model needs at least one body")
        names = set()
        for body in self.bodies:
            if not isinstance(body, Body):
                raise ValueError(f"bodies must be fecontact.Body, got {type(body).__name__}")
            if body.name in names:
                raise ValueError(f"body name {body.name!r} is used twice")
            names.add(body.name)
        if len({b.dim for b in self.bodies}) != 1:
            raise ValueError("all bodies must have the same dimension")
        revolved = [b.name for b in self.bodies if b.part.axisymmetric]
        if revolved and len(revolved) != len(self.bodies):
            planar = [b.name for b in self.bodies if not b.part.axisymmetric]
            raise ValueError(f"bodies {', '.join(map(repr, revolved))} are axisymmetric and "
                             f"{', '.join(map(repr, planar))} are not: a model is either "
                             f"axisymmetric or planar")
        ids = {id(b) for b in self.bodies}
        for k, pair in enumerate(self.contacts + self.ties):
            if not isinstance(pair, (Contact, Tie)):
                raise ValueError(f"contacts must be fecontact.Contact and ties fecontact.Tie, got "
                                 f"{type(pair).__name__}")
            for ref in (pair.slave, pair.master):
                if hasattr(ref, "body") and id(ref.body) not in ids:
                    raise ValueError(f"{pair.name or f'contact{k}'}: body {ref.body.name!r} is "
                                     f"not in the model")

    def __repr__(self) -> str:
        return (f"Model({[b.name for b in self.bodies]}, {len(self.contacts)} contact pairs, "
                f"{len(self.ties)} ties)")

    def assemble(self, dynamic: bool = False, share=None) -> Assembly:
        """Number the bodies, assemble the bulk system and make the contact pairs.

        Parameters
        ----------
        dynamic : bool
            Assemble the mass matrix too; amplitudes left out are then
            constant instead of the static ramp.
        share : fecontact.bodies.share.ElementShare, optional
            Assemble this MPI rank's elements only (the ``petsc`` backend
            under several ranks: :func:`fecontact.solve.backends.element_share`).

        Returns
        -------
        Assembly
        """
        default = CONSTANT if dynamic else Amplitude.ramp()
        index = {id(b): i for i, b in enumerate(self.bodies)}
        parts = [b.part for b in self.bodies]
        dim = parts[0].dim
        offsets = np.concatenate([[0], np.cumsum([p.n_nodes for p in parts])])
        sizes = dim * offsets
        dirichlet, couplings, springs, loads = [], [], [], []
        for i, body in enumerate(self.bodies):
            dirichlet += [replace(d, body=i, amplitude=d.amplitude or default) for d in body.dirichlet]
            couplings += [replace(c, body=i, amplitude=c.amplitude or default) for c in body.couplings]
            springs += [replace(s, dofs=sizes[i] + s.dofs) for s in body.springs]
            for load in body.loads:
                full = np.zeros(sizes[-1])
                full[sizes[i]:sizes[i + 1]] = load.vector
                loads.append(Load(load.name, full, load.amplitude or default))
        tic = time.perf_counter()
        ties = [tie.constraint(parts, index) for tie in self.ties]
        system = build_system(parts, dirichlet, couplings, loads, springs, with_mass=dynamic,
                              ties=ties, share=share)
        seconds = time.perf_counter() - tic
        pairs = []
        for k, contact in enumerate(self.contacts):
            pairs += contact.pairs(system, index, contact.name or f"contact{k}", default)
        velocity = np.concatenate([np.broadcast_to(b.initial_velocity, (b.part.n_nodes, b.part.dim)).ravel()
                                   for b in self.bodies])
        return Assembly(ContactProblem(system, pairs), velocity, {"build_assembly": seconds})

    def check(self, dynamic: bool = False, assembly: Assembly | None = None) -> list:
        """What would stop the model from being solved, one line each (empty: ready).

        The checks of :mod:`fecontact.model.checks`: undefined projections,
        slave and master surfaces that do not face each other, initial
        penetration, slave nodes touching the master whose gap no unknown
        can change, and (quasi-static) rigid-body motions of a body that
        neither supports nor contact hold, named by body and motion.  A
        slave node with every component prescribed is not a finding: it is
        left out of its pair's contact (a logged warning).

        Parameters
        ----------
        dynamic : bool
            Check for a dynamic analysis (inertia holds rigid motions).
        assembly : Assembly, optional
            The assembled model (default: assembled here).

        Returns
        -------
        list of str
        """
        assembly = assembly or self.assemble(dynamic=dynamic)
        tolerances = {c.name or f"contact{k}": c.penetration_tolerance
                      for k, c in enumerate(self.contacts) if c.penetration_tolerance is not None}
        return model_findings(assembly.problem, tolerances=tolerances, dynamic=dynamic)

    def _assembled(self, dynamic: bool, backend: str = "auto") -> Assembly:
        """The assembly for ``backend``, after the model checks (a ValueError lists what they find)."""
        assembly = self.assemble(dynamic=dynamic, share=element_share(backend, dynamic))
        findings = self.check(dynamic, assembly)
        if findings:
            raise ValueError("\n".join(findings))
        return assembly

    def solve(self, steps=1, *, levels=None, t_end: float = 1.0, backend: str = "auto",
              newton=None, stepping=None, out=None, coarse: "Model | None" = None) -> Solution:
        """Quasi-static load stepping: supports, loads and obstacles follow their amplitudes.

        Parameters
        ----------
        steps : int
            Equal load increments to ``t_end`` (output levels; each may be
            cut back automatically).
        levels : sequence of float, optional
            Instead of ``steps``: the pseudo-times of the output levels.
        t_end : float
            Final pseudo-time (the default ramps reach full load at 1).
        backend : str
            Linear solver: ``"auto"`` (chosen from a cost model,
            :func:`fecontact.solve.backends.make_backend`) or the name of a
            registered backend (:data:`fecontact.solve.backends.BACKENDS`:
            ``"direct"``, ``"schur"``, ``"amg"``, ...).
        newton : NewtonOptions or dict, optional
            ``tolerance``, ``max_iterations``, ``max_backtracks``.
        stepping : SteppingOptions or dict, optional
            ``max_cutbacks``, ``growth``, ``max_closing``.
        out : str or Path, optional
            A folder to write one VTU per level and a ``.pvd`` index into.
        coarse : Model, optional
            The same bodies (names, boundaries, supports, loads) and contact
            pairs on coarser meshes: nested iteration, each increment
            started from its solution of the same increment when that is the
            better start (:mod:`fecontact.analysis.nested`).  Worth it for
            large problems whose contact zone grows from a point.

        Returns
        -------
        Solution
            Also when a level fails: ``converged`` is then False and the
            state is the last accepted increment.

        Raises
        ------
        ValueError
            When :meth:`check` finds a problem (one line per finding), or
            for bad options.

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)])
        >>> result = model.solve(steps=4, newton={"tolerance": 1e-10})
        >>> [record.load for record in result.records], result.converged
        ([0.25, 0.5, 0.75, 1.0], True)
        >>> [f"{result.at(k).reaction('top')[1]:.3g}" for k in (1, 3)]    # linear in the load
        ['-5.72', '-11.4']
        """
        newton = _options(newton, NewtonOptions, "newton")
        stepping = _options(stepping, SteppingOptions, "stepping")
        levels = load_levels(steps, levels, t_end)
        problem = self._assembled(False, backend).problem
        solver = make_backend(backend, problem, tolerance=newton.tolerance, increments=len(levels))
        predictor = None
        if coarse is not None:
            coarse_problem = coarse._assembled(False, backend).problem
            predictor = NestedPrediction.of(problem, coarse_problem, newton, stepping, len(levels))
        states: list = []
        increments: list = []
        on_step = keep_steps(None if out is None else Path(out), problem, states)
        records, state, timings = run_steps(problem, solver, levels, newton, stepping,
                                            on_step=on_step, predictor=predictor,
                                            on_increment=increments.append)
        failure = records[-1].reason if records and not records[-1].converged else ""
        return Solution(problem, state, tuple(records), timings, failure, tuple(states),
                        model=self, increments=tuple(increments))

    def with_values(self, values: dict) -> "Model":
        """The model made again with other values of its parameters.

        The bodies, contact pairs and ties are made by the same calls with
        every :class:`fecontact.Parameter` in ``values`` at its new value,
        and every body with a shape parameter in ``values`` moved by it
        (:mod:`fecontact.model.replay`).

        Parameters
        ----------
        values : dict
            :class:`fecontact.Parameter` -> float, shape parameter -> array.

        Returns
        -------
        Model

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> E = fc.Parameter(1e3, name="E")
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=E, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), fc.RigidLine((0.0, 0.0), (0.0, 1.0)))])
        >>> f"{model.with_values({E: 2e3}).solve().reaction('top')[1]:.3g}"     # twice as stiff
        '-22.9'
        """
        return rebuild_model(self, values)

    def solve_dynamic(self, dt: float, t_end: float, *, integrator: str = "newmark",
                      rho_inf: float = 0.8, initial: str = "rest", contact_mass: str = "consistent",
                      project_velocities: bool = True, output_every: int = 1,
                      backend: str = "auto", newton=None, stepping=None) -> Solution:
        """Time integration with inertia (bodies need a density).

        Parameters
        ----------
        dt, t_end : float
            Time step and final time.
        integrator : str
            ``"newmark"``, ``"hht"``, ``"generalized_alpha"``, ...
            (:data:`fecontact.analysis.integrators.INTEGRATORS`).
        rho_inf : float
            Spectral radius at infinite frequency (dissipative integrators).
        initial : str
            ``"rest"`` or ``"static"`` (start from the static equilibrium).
        contact_mass : str
            ``"consistent"`` or ``"redistributed"`` (no mass on contact nodes).
        project_velocities : bool
            Project the velocities of closed contact nodes after each step.
        output_every : int
            Keep the state of every this many steps (and the last) in
            ``Solution.states``.
        backend, newton, stepping
            As for :meth:`solve`.

        Returns
        -------
        Solution
            ``records`` are the time records of every step.

        Examples
        --------
        A block falling at speed 1 onto a rigid floor 0.01 below it:

        >>> import numpy as np, skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri.init_tensor(np.linspace(0, 1, 5), np.linspace(0.01, 1.01, 5))
        >>> block = fc.Body("block", mesh.with_defaults(), "P1",
        ...                 fc.LinearElastic(E=1e3, nu=0.3, density=1.0), initial_velocity=(0.0, -1.0))
        >>> block = block.fix("left", x=0.0)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve_dynamic(
        ...     dt=0.005, t_end=0.05)
        >>> result.converged, round(float(result.times[-1]), 3), bool(result.pressure.max() > 0)
        (True, 0.05, True)
        """
        from ..analysis.dynamic import DynamicAnalysis
        from ..analysis.dynamic_records import DynamicsOptions
        from ..analysis.integrators import Integrator

        newton = _options(newton, NewtonOptions, "newton")
        stepping = _options(stepping, SteppingOptions, "stepping")
        if not (np.isfinite(dt) and dt > 0 and np.isfinite(t_end) and t_end >= dt):
            raise ValueError(f"need 0 < dt <= t_end, got dt={dt!r}, t_end={t_end!r}")
        if isinstance(output_every, bool) or not isinstance(output_every, (int, np.integer)) \
                or output_every < 1:
            raise ValueError(f"output_every must be a whole number >= 1, got {output_every!r}")
        assembly = self._assembled(True)
        options = DynamicsOptions(integrator=Integrator.by_name(integrator, float(rho_inf)),
                                  dt=float(dt), t_end=float(t_end), initial=initial,
                                  contact_mass=contact_mass, project_velocities=project_velocities,
                                  output_every=int(output_every), max_cutbacks=stepping.max_cutbacks)
        analysis = DynamicAnalysis(assembly.problem, options, newton, stepping, backend,
                                   assembly.initial_velocity)
        states: list = []
        final, records, failure = analysis.run(
            on_output=lambda k, current, history: states.append(current.state))
        return Solution(assembly.problem, final.state, tuple(records), dict(analysis.timings),
                        failure, tuple(states))
