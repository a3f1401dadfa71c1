"""Options, committed state and per-step record of a dynamic analysis.

The plain data that :mod:`fecontact.analysis.dynamic` passes around, kept
apart so that case building and the run drivers can use them without the
analysis itself:

* :class:`DynamicsOptions` -- the case's ``[dynamics]`` table (integrator,
  time step, initial state, contact mass, output interval);
* :class:`DynamicState` -- the committed state at the end of a time step:
  the static :class:`fecontact.solve.state.StepState` plus velocity,
  acceleration, the forces for the next step's works and the energy ledger;
* :class:`TimeRecord` -- one time step as reported in ``summary.json``'s
  time series (:mod:`fecontact.run.dynamic`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .energy import EnergyLedger, StepForces
from .integrators import Integrator
from ..solve.state import StepState

INITIAL = ("rest", "static")


@dataclass(frozen=True)
class DynamicsOptions:
    """Time-integration options of a case's ``[dynamics]`` table.

    Attributes
    ----------
    integrator : Integrator
    dt, t_end : float
    initial : str
        ``"rest"``: zero displacement, the given initial velocities, and the
        acceleration of the free motion (no contact force) at ``t = 0``;
        ``"static"``: the static contact solution under the loads at ``t = 0``
        and zero acceleration (a body resting under gravity).
    contact_mass : str
        ``"consistent"`` or ``"redistributed"`` (:mod:`fecontact.analysis.mass`).
    project_velocities : bool
    output_every : int
        Time steps between VTU outputs and summary records.
    max_cutbacks : int
        Halvings of a time step whose Newton iteration fails.

    Examples
    --------
    The options a case's ``[dynamics]`` table gives (``cases/impact.toml``):

    >>> import fecontact as fc
    >>> options = fc.build_model(fc.load_case("cases/impact.toml")).dynamics
    >>> options.integrator.name, options.dt, options.t_end, options.contact_mass
    ('newmark', 0.001, 0.3, 'redistributed')

    In Python, :meth:`fecontact.Model.solve_dynamic` takes them as keywords.
    """

    integrator: Integrator
    dt: float
    t_end: float
    initial: str = "rest"
    contact_mass: str = "consistent"
    project_velocities: bool = True
    output_every: int = 1
    max_cutbacks: int = 6

    @property
    def n_steps(self) -> int:
        """Number of time steps to ``t_end``."""
        return int(round(self.t_end / self.dt))

    def step_time(self, k: int) -> float:
        """The time time step ``k`` ends at, ``1 <= k <= n_steps``: ``k dt``, the last at ``t_end``."""
        return self.t_end if k == self.n_steps else k * self.dt


@dataclass(frozen=True)
class DynamicState:
    """Committed state at the end of a time step.

    Attributes
    ----------
    state : StepState
        Displacement, tractions and contact history (as in statics).
    velocity, acceleration : ndarray, shape (n,)
        Full numbering.
    forces : StepForces
        Forces at this time, for the works of the next step.
    ledger : EnergyLedger
    """

    state: StepState
    velocity: np.ndarray = field(repr=False)
    acceleration: np.ndarray = field(repr=False)
    forces: StepForces = field(repr=False)
    ledger: EnergyLedger

    @property
    def t(self) -> float:
        """Time of the state (that of its :class:`fecontact.solve.state.StepState`)."""
        return self.state.t


@dataclass(frozen=True)
class TimeRecord:
    """One time step as reported in ``summary.json``'s time series."""

    t: float
    newton_iterations: int
    cutbacks: int
    open: int
    stick: int
    slip: int
    energy: dict
    springs: tuple            # per spring: (tension, stretch, mean velocity)
    slip_velocity: tuple      # per pair: mean slip velocity of closed nodes, (dim,)
    centroid: tuple           # per body: (displacement (dim,), velocity (dim,))
    max_slip: float = 0.0     # largest accumulated slip of any contact node
