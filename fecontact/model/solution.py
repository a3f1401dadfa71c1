"""The result of solving a model: the final state with the figures an engineer reads off it.

::

    result = model.solve(steps=4)
    result.converged, result.reaction("top")       # (dim,) reaction of a named support
    result.slave_points, result.pressure            # per slave node of the first pair
    result.pair("contact0").force                   # resultant of a pair
    result.to_pyvista()                             # every field on an UnstructuredGrid
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..analysis.contact_results import pair_results, slave_forces
from ..bodies.support_names import find_name, support_reactions
from ..io.output import point_data, to_meshio, write_pvd, write_vtu
from ..io.revolve import revolve as revolved, write_revolved
from ..solve.problem import ContactProblem
from ..solve.state import StepState


@dataclass(frozen=True)
class Solution:
    """A solved model.

    Attributes
    ----------
    problem : ContactProblem
        The assembled problem (bodies, bulk system, contact pairs).
    state : StepState
        The final state: ``state.u`` the displacement (global numbering,
        ``dim * node + component``), ``state.multiplier`` the tractions
        ``(lam_n, lam_t...)`` of every slave node of every pair, stacked.
    records : tuple
        One :class:`fecontact.StepRecord` per load level (statics) or one
        time record per step (dynamics).
    timings : dict
        Seconds in the linear solves and in the contact work.
    failure : str
        Why the analysis stopped short; ``""`` when it reached the end.
    states : tuple of StepState
        The state at every output level (statics) or output step
        (dynamics), in order; :meth:`at` gives the solution there.
    model : Model or None
        The model solved (:meth:`gradient` makes it again with other values).
    increments : tuple of StepState
        The state of every accepted increment of a static analysis (the
        path :meth:`gradient` goes back along).

    Examples
    --------
    A block pushed 0.01 down onto a rigid floor: 25 nodes, 5 of them on the floor.

    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve()
    >>> result.converged, result.displacement.shape, result.slave_points.shape
    (True, (2, 25), (2, 5))
    >>> bool(abs(result.displacement[1].min() + 0.01) < 1e-12), bool(result.pressure.min() > 0)
    (True, True)
    """

    problem: ContactProblem = field(repr=False)
    state: StepState = field(repr=False)
    records: tuple = field(repr=False)
    timings: dict
    failure: str = ""
    states: tuple = field(default=(), repr=False)
    model: object = field(default=None, repr=False)
    increments: tuple = field(default=(), repr=False)

    def at(self, index: int) -> "Solution":
        """The solution at output level (or output step) ``index`` (0-based; -1 the last).

        Parameters
        ----------
        index : int

        Returns
        -------
        Solution
            With that level's state; its ``records`` end there.
        """
        state = self.states[index]
        k = range(len(self.states))[index]
        ends = [j for j, s in enumerate(self.increments) if s is state]
        increments = self.increments[:ends[0] + 1] if ends else ()
        return Solution(self.problem, state, self.records[:k + 1], self.timings, "",
                        self.states[:k + 1], self.model, increments)

    def gradient(self, quantity, wrt):
        r"""The gradient of a quantity of interest with respect to parameters, by the discrete adjoint.

        Backwards over every accepted increment, one solve with the
        transposed generalised Jacobian of the converged system per
        increment that matters (all of them with friction, whose increments
        read the earlier ones; only those the quantity reads without), see
        :mod:`fecontact.sensitivity.adjoint`.  Static analyses.

        Parameters
        ----------
        quantity : Quantity or sequence of Quantity
            From :mod:`fecontact.qoi` (``fc.qoi.Reaction("top", "y")``, ...);
            several share the backward sweep.
        wrt : Parameter, ShapeParameter or sequence of them
            Parameters of the model (the derivative is taken at the values
            the model was made with).

        Returns
        -------
        Gradient or list of Gradient
            One per quantity: its value, one derivative per parameter (an
            array per shape parameter), and the margin to the nearest
            status change.

        Raises
        ------
        ValueError
            One line: a dynamic solution, a solution that did not converge,
            a parameter that is not in the model.

        Examples
        --------
        A block pressed 0.01 onto a rigid floor by its top: with only
        displacements prescribed every force is proportional to ``E``.

        >>> import skfem
        >>> import fecontact as fc
        >>> E = fc.Parameter(1e3, name="E")
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=E, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve()
        >>> g = result.gradient(fc.qoi.Reaction("top", "y"), wrt=[E])
        >>> f"{g.value:.4g}", f"{g[E]:.4g}", bool(abs(g[E] - g.value / 1e3) < 1e-10 * abs(g[E]))
        ('-11.43', '-0.01143', True)
        """
        from ..sensitivity.adjoint import adjoint_gradients
        from .replay import model_parameters

        if self.model is None or not self.increments or self.records and \
                not hasattr(self.records[0], "increments"):
            raise ValueError("gradients are taken of static solutions of Model.solve "
                             "(dynamic analyses are not supported)")
        if self.failure:
            raise ValueError(f"the analysis did not converge ({self.failure}); no gradient")
        single = not isinstance(quantity, (list, tuple))
        quantities = [quantity] if single else list(quantity)
        params = [wrt] if not isinstance(wrt, (list, tuple)) else list(wrt)
        known = model_parameters(self.model)
        current = []
        for p in params:
            key = getattr(p, "key", None)
            if key not in known:
                raise ValueError(f"{p!r} is not a parameter of the model")
            current.append(known[key])
        model = self.model
        problem = self.problem
        if getattr(problem.system, "share", None) is not None:
            # assembled in shares across MPI ranks: every rank takes the gradient whole
            problem = model.assemble().problem
            problem.c_n, problem.c_t, problem.reference = (self.problem.c_n, self.problem.c_t,
                                                           self.problem.reference)

        def rebuild(values):
            return model.with_values(values).assemble().problem

        out = adjoint_gradients(problem, self.increments, self.states, quantities, current, rebuild)
        return out[0] if single else out

    @property
    def times(self) -> np.ndarray:
        """Load level (statics) or time (dynamics) of every stored state, shape (len(states),)."""
        return np.array([s.t for s in self.states])

    @property
    def converged(self) -> bool:
        """Whether every level (or time step) converged."""
        return not self.failure and bool(self.records)

    @property
    def displacement(self) -> np.ndarray:
        """Displacement of every DOF node of every body, shape (dim, n_nodes) (nodes stacked by body)."""
        return self.state.u.reshape(-1, self.problem.dim).T

    def body_displacement(self, name: str) -> np.ndarray:
        """Displacement of one body's DOF nodes, shape (dim, n_nodes of the body)."""
        b = self._body(name)
        sysm = self.problem.system
        return self.displacement[:, sysm.node_offset[b]:sysm.node_offset[b + 1]]

    def _body(self, name: str) -> int:
        names = [b.name for b in self.problem.system.bodies]
        if name not in names:
            raise KeyError(f"no body {name!r}; bodies: {', '.join(names)}")
        return names.index(name)

    def reaction(self, name: str) -> np.ndarray:
        """Total force a named support exerts on its body, shape (dim,).

        Parameters
        ----------
        name : str
            The support's name (the boundary name of :meth:`Body.fix` by
            default), or ``"<body>.<support>"``: a name used by supports of
            several bodies (two meshes that both have a group ``flat``)
            must be qualified by the body.

        Returns
        -------
        ndarray, shape (dim,)

        Raises
        ------
        KeyError
            One line: no support of that name, or a name on several bodies
            (naming them and the qualified names to use).

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve()
        >>> fx, fy = result.reaction("top")        # the support pushes the block onto the floor
        >>> bool(abs(fx) < 1e-9), f"{fy:.3g}"
        (True, '-11.4')
        """
        sysm = self.problem.system
        state = self.state
        reactions = support_reactions(sysm, self.problem.full_residual(state.u, state.multiplier,
                                                                       state.t, state))
        return reactions[find_name(name, reactions)][:sysm.dim].copy()

    @property
    def pairs(self) -> tuple:
        """Resultants of every contact pair (:class:`fecontact.analysis.contact_results.PairResult`)."""
        return pair_results(self.problem, self.state)

    def pair(self, name: str):
        """Resultants of the contact pair ``name`` (force, moment, area, max pressure, counts).

        Parameters
        ----------
        name : str
            The pair's name (``Contact(name=...)``, default ``"contact<k>"``).

        Returns
        -------
        fecontact.analysis.contact_results.PairResult

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve()
        >>> floor = result.pair("contact0")
        >>> f"{floor.force[1]:.3g}", floor.area, floor.open + floor.stick + floor.slip
        ('11.4', 1.0, 5)
        """
        for result in self.pairs:
            if result.name == name:
                return result
        raise KeyError(f"no contact pair {name!r}; pairs: "
                       f"{', '.join(p.name for p in self.problem.pairs) or '(none)'}")

    def contact(self, pair: str | None = None) -> "PairFields":
        """Nodal contact fields of the slave nodes of a pair (default the first pair).

        Parameters
        ----------
        pair : str, optional
            The pair's name.

        Returns
        -------
        PairFields
        """
        pairs = self.problem.pairs
        names = [p.name for p in pairs]
        if not pairs:
            raise ValueError("the model has no contact pair")
        if pair is not None and pair not in names:
            raise KeyError(f"no contact pair {pair!r}; pairs: {', '.join(names)}")
        k = 0 if pair is None else names.index(pair)
        start = sum(p.n_nodes for p in pairs[:k])
        rows = slice(start, start + pairs[k].n_nodes)
        p, state = pairs[k], self.state
        body = self.problem.system.bodies[p.slave.body]
        return PairFields(name=p.name, points=body.node_coords[:, p.slave.nodes],
                          pressure=state.multiplier[rows, 0].copy(),
                          shear=state.multiplier[rows, 1:].copy(),
                          traction=state.traction()[rows].T.copy(),
                          force=slave_forces(self.problem, state)[rows].T.copy(),
                          area=p.slave.area.copy(),
                          normal=state.normal[rows].T.copy(), gap=state.gap[rows].copy(),
                          status=state.status[rows].copy())

    @property
    def slave_points(self) -> np.ndarray:
        """Reference coordinates of the first pair's slave nodes, shape (dim, m)."""
        return self.contact().points

    @property
    def pressure(self) -> np.ndarray:
        """Contact pressure ``lam_n >= 0`` of the first pair's slave nodes, shape (m,)."""
        return self.contact().pressure

    def point_data(self) -> dict:
        """Every nodal field the VTU output holds, by name (:func:`fecontact.io.output.point_data`)."""
        return point_data(self.problem, self.state)

    def to_pyvista(self, *, revolve: int | None = None):
        """The bodies with every field as a :class:`pyvista.UnstructuredGrid`.

        ``revolve`` (axisymmetric models): the solid of revolution in this
        many sectors instead of the ``(r, z)`` section, as in :meth:`write_vtu`.

        Point data: ``displacement``, ``contact_pressure``, ``contact_traction``,
        ``contact_normal``, the signed shear components, ``friction_utilisation``,
        ``gap``, ``slip``, ``contact_status``, ``von_mises``, ``body``, ...

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
        >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
        >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
        >>> result = fc.Model([block], [fc.Contact(block.surface("bottom"), floor)]).solve()
        >>> grid = result.to_pyvista()
        >>> grid.n_points, "contact_pressure" in grid.point_data
        (25, True)
        >>> grid.plot(scalars="von_mises")          # doctest: +SKIP
        """
        import pyvista

        return pyvista.from_meshio(self._meshio(revolve))

    def _meshio(self, revolve: int | None):
        """The result as a meshio mesh: the bodies, or their solid of revolution in ``revolve`` sectors."""
        mesh = to_meshio(self.problem, self.state)
        if revolve is None:
            return mesh
        self._check_revolve()
        return revolved(mesh, revolve)

    def _check_revolve(self) -> None:
        """``revolve=`` is for axisymmetric models only (ValueError)."""
        if not all(b.axisymmetric for b in self.problem.system.bodies):
            raise ValueError("revolve= needs an axisymmetric model (plane='axisymmetric')")

    def write_vtu(self, path, *, revolve: int | None = None) -> None:
        """Write the final state to a VTU file (ParaView), with every field.

        Parameters
        ----------
        path : str or Path
            The ``.vtu`` file.
        revolve : int, optional
            An axisymmetric model only: write the solid of revolution in
            this many sectors instead of the ``(r, z)`` section
            (:func:`fecontact.io.revolve.revolve`: the axis becomes ``Y``,
            vectors turn with the points).

        Examples
        --------
        >>> import skfem
        >>> import fecontact as fc
        >>> block = fc.Body("block", skfem.MeshTri().refined(2).with_defaults(), "P1",
        ...                 fc.LinearElastic(E=1e3, nu=0.3)).fix("bottom")
        >>> result = fc.Model([block]).solve()
        >>> result.write_vtu("block.vtu")                  # doctest: +SKIP
        """
        if revolve is None:
            write_vtu(Path(path), self.problem, self.state)
            return
        self._check_revolve()
        write_revolved(Path(path), self.problem, self.state, revolve)


@dataclass(frozen=True)
class PairFields:
    """Nodal contact fields of one pair's slave nodes (``m`` of them).

    Attributes
    ----------
    name : str
    points : ndarray, shape (dim, m)
        Reference coordinates.
    pressure : ndarray, shape (m,)
        Normal traction ``lam_n`` (>= 0 in contact): the method's multiplier,
        for node-to-segment and for mortar (whose dual multiplier functions
        make ``lam_n`` the coefficient of the traction field
        ``sum_j lam_j Phi_j``).
    shear : ndarray, shape (m, dim - 1)
        Tangential traction components in the node's tangent basis
        (``state.multiplier_basis``; the VTU's ``contact_shear1/2``).
    traction : ndarray, shape (dim, m)
        The traction vector the master exerts on the slave, global components.
    force : ndarray, shape (dim, m)
        Contact force on each slave node (:func:`fecontact.analysis.contact_results.slave_forces`):
        ``area * traction`` for node-to-segment; for mortar the exact nodal
        force ``sum_j lam_j int Phi_j N_k``, which is ``area * traction`` where
        the master covers the node's facets and differs where a node is only
        partly covered (at the master's edge).
        Its sum is the pair's resultant on the slave body.
    area : ndarray, shape (m,)
        Lumped nodal area (length in 2D) of each slave node.
    normal : ndarray, shape (dim, m)
        Contact normal (from the master towards the slave).
    gap : ndarray, shape (m,)
    status : ndarray of int, shape (m,)
        :class:`fecontact.Status` (open, stick, slip).
    """

    name: str
    points: np.ndarray = field(repr=False)
    pressure: np.ndarray = field(repr=False)
    shear: np.ndarray = field(repr=False)
    traction: np.ndarray = field(repr=False)
    force: np.ndarray = field(repr=False)
    area: np.ndarray = field(repr=False)
    normal: np.ndarray = field(repr=False)
    gap: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)


def keep_steps(out: Path | None, problem: ContactProblem, states: list):
    """A ``run_steps`` callback keeping each level's state, and writing it when ``out`` is given.

    Parameters
    ----------
    out : Path or None
        Output folder (created) for ``step_NNNN.vtu`` per level and the
        ``solution.pvd`` index; None: keep the states only.
    problem : ContactProblem
    states : list
        Receives the state of every level.

    Returns
    -------
    callable(StepRecord, StepState, Progress)
    """
    written: list = []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)

    def on_step(record, state, progress):
        states.append(state)
        if out is None:
            return
        name = f"step_{record.index:04d}.vtu"
        write_vtu(out / name, problem, state)
        written.append((record.load, name))
        write_pvd(out / "solution.pvd", written)

    return on_step
