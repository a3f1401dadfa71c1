"""What ``summary.json`` says about a run, as one typed record.

:class:`RunSummary` is owned by the run driver (:mod:`fecontact.run.driver`):
the driver appends the step entries, marks the run incomplete while it
writes, and concludes it; :meth:`RunSummary.as_dict` gives the JSON object,
whose keys keep the order earlier versions wrote:

static
    ``case``, ``case_file``, ``analysis``, ``dim``, ``dofs``,
    ``reduced_dofs``, ``contact_nodes``, ``backend``, ``backend_choice``, ``overrides``,
    ``converged``, ``steps``, ``restarts``, ``reason``, ``timings``,
    ``reaction``, ``coupling_displacement``, ``pairs``,
    ``max_newton_iterations_per_increment``, ``nested``, ``parallel``, ``check``, ``metrics``
dynamic
    ``case``, ..., ``contact_nodes``, ``overrides``, ``integrator``, ``dt``,
    ``t_end``, ``contact_mass``, ``project_velocities``, ``converged``,
    ``steps``, ``restarts``, ``time_series``, ``energy``, ``reason``,
    ``coupling_displacement``, ``pairs``, ``check``, ``metrics``, ``timings``,
    ``max_newton_iterations_per_step``

Fields that are ``None`` are left out (``restarts`` of a run never
restarted, ``reason`` of a converged run, the conclusion while the run goes
on).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: keys of ``summary.json`` in the order they are written, per analysis; ``time_series``,
#: ``energy`` and ``reason`` are placed by :meth:`RunSummary.as_dict`
HEAD = ("case", "case_file", "analysis", "dim", "dofs", "reduced_dofs", "contact_nodes")
SERIES = ("time_series", "energy")
CONCLUSION = {
    "static": ("timings", "reaction", "coupling_displacement", "pairs",
               "max_newton_iterations_per_increment", "nested", "parallel", "check", "metrics"),
    "dynamic": ("coupling_displacement", "pairs", "check", "metrics", "timings",
                "max_newton_iterations_per_step"),
}


@dataclass(frozen=True)
class DynamicSettings:
    """The time-integration settings a dynamic summary states in its header.

    Attributes
    ----------
    integrator : dict
        ``name``, ``beta``, ``gamma``, ``alpha_m`` and ``alpha_f``.
    dt : float
        Time step.
    t_end : float
        End time.
    contact_mass : str
        Treatment of the mass of contact nodes.
    project_velocities : bool
        Whether contact-node velocities are projected after each step.
    """

    integrator: dict
    dt: float
    t_end: float
    contact_mass: str
    project_velocities: bool

    def as_dict(self) -> dict:
        """The header entries, in ``summary.json`` order.

        Returns
        -------
        dict
            ``integrator``, ``dt``, ``t_end``, ``contact_mass``, ``project_velocities``.
        """
        return {"integrator": self.integrator, "dt": self.dt, "t_end": self.t_end,
                "contact_mass": self.contact_mass, "project_velocities": self.project_velocities}


@dataclass
class RunSummary:
    """The summary of one run (static or dynamic) while it runs and when it ends.

    Attributes
    ----------
    case, case_file : str
        Case name and the case file as given.
    analysis : str
        ``"static"`` or ``"dynamic"``.
    dim, dofs, reduced_dofs, contact_nodes : int
        Size of the problem.
    overrides : list of str
        The ``--set`` overrides.
    backend : str or None
        Linear-solver backend; in a dynamic run, those its time steps used
        (comma-separated, one per step size), set at the conclusion.
    backend_choice : str or None
        Why ``auto`` picked it: the modelled costs (static runs with ``auto``).
    dynamics : DynamicSettings or None
        Time-integration settings (dynamic runs).
    converged : bool
        True only when the stepping finished and the independent check passed.
    steps : list of dict
        One entry per written step (and, in statics, the failed level).
    restarts : list of dict or None
        ``{"from_step", "t"}`` of every restart, oldest first.
    time_series, energy : dict or None
        Time series over every time step and the energy ledger (dynamic runs).
    reason : str or None
        Why the run is not converged (absent when it is).
    timings : dict or None
        Wall times (seconds) and solver counts.
    reaction : dict or None
        Reaction forces of the final state per support (static runs): the
        support's name, or ``"<body>.<support>"`` for a name several bodies
        use (:mod:`fecontact.bodies.support_names`).
    coupling_displacement : dict or None
        Displacement of each force-controlled coupling at the final state
        (absent for models without couplings), named like the reactions.
    pairs : list of dict or None
        Per contact pair of the final state: resultant force and moment,
        contact area, peak pressure, open/stick/slip counts
        (:class:`fecontact.analysis.contact_results.PairResult`).
    max_newton_iterations_per_increment : int or None
        Largest Newton count of one load increment (static runs).
    nested : dict or None
        Nested iteration (static runs that used it): the coarse model's
        unknowns, backend and Newton iterations, increments started from its
        prediction (``used``) or not (``declined``, ``failed``), and seconds
        (:meth:`fecontact.analysis.nested.NestedPrediction.summary`).
    parallel : dict or None
        A ``petsc`` run (static): MPI ranks, rows owned per rank, the
        multigrid used and every rank's peak memory
        (:meth:`fecontact.solve.petsc.PetscBackend.report`).
    check : dict or None
        The independent residual check of the final state.
    metrics : dict or None
        Comparison with the case's reference (converged runs).
    max_newton_iterations_per_step : int or None
        Largest Newton count of one time step (dynamic runs).
    reason_first : bool
        Place ``reason`` before ``time_series`` and ``energy``: a run that
        stopped before its first output time kept that order.  Not written.
    """

    case: str
    case_file: str
    analysis: str
    dim: int
    dofs: int
    reduced_dofs: int
    contact_nodes: int
    overrides: list
    backend: str | None = None
    backend_choice: str | None = None
    dynamics: DynamicSettings | None = None
    converged: bool = False
    steps: list = field(default_factory=list)
    restarts: list | None = None
    time_series: dict | None = None
    energy: dict | None = None
    reason: str | None = None
    timings: dict | None = None
    reaction: dict | None = None
    coupling_displacement: dict | None = None
    pairs: list | None = None
    max_newton_iterations_per_increment: int | None = None
    nested: dict | None = None
    parallel: dict | None = None
    check: dict | None = None
    metrics: dict | None = None
    max_newton_iterations_per_step: int | None = None
    reason_first: bool = False

    def mark_incomplete(self, written: int, total: int) -> None:
        """Say what a folder holds while the run goes on: ``written`` of ``total`` steps.

        Parameters
        ----------
        written : int
            Steps written so far.
        total : int
            Steps of the whole run.
        """
        self.converged = False
        self.reason = (f"incomplete: {written} of {total} steps written (the run is in progress, "
                       f"or stopped without a report)")

    def conclude(self, solved: bool, check) -> None:
        """The verdict: ``converged`` only when the solver finished and the independent check passes.

        Parameters
        ----------
        solved : bool
            The stepping reached the end, neither failing nor interrupted.
        check : ResidualCheck or None
            The independent check of the final state
            (:func:`fecontact.run.verify.residual_check`); ``None`` when it
            could not be made, which leaves the summary as it is.
        """
        if check is None:
            return
        self.check = check.as_dict()
        self.converged = bool(solved and check.passed)
        if self.converged:
            self.reason = None
        elif solved:
            self.reason = f"the independent residual check failed: {check.failures()}"

    def as_dict(self) -> dict:
        """The JSON object of ``summary.json`` (see the module docstring for the key order).

        Returns
        -------
        dict
            A new dict; ``steps``, ``time_series`` and the other containers
            are this summary's own objects, not copies.
        """
        out = {key: getattr(self, key) for key in HEAD}
        if self.backend is not None:
            out["backend"] = self.backend
        if self.backend_choice is not None:
            out["backend_choice"] = self.backend_choice
        out["overrides"] = self.overrides
        if self.dynamics is not None:
            out.update(self.dynamics.as_dict())
        out["converged"] = self.converged
        out["steps"] = self.steps
        middle = ("reason",) + SERIES if self.reason_first else SERIES + ("reason",)
        for key in ("restarts",) + middle + CONCLUSION[self.analysis]:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out
