r"""The discrete contact problem: residual and generalised Jacobian.

Unknowns are the reduced displacements ``u_hat`` and the nodal tractions
``lam = (lam_n, lam_t)`` of every slave node (force per area).  With ``B`` the
sparse derivative of the contact rows' ``(g_n, Delta s)`` with respect to
``u`` (each node's own gap and slip, or on quadratic 3D slave surfaces the
weighted ones of :func:`fecontact.contact.pairs.multiplier_rows`) and ``A``
the rows' scales (the nodal areas of the traction basis),

.. math::

    R_1 = T^T\big(K u - f(t) - B^T A \lambda\big) - F_{coupling}(t), \qquad
    R_2 = A\, C(\lambda, g_n(u), \Delta s(u))

(``C``: the Alart–Curnier residual, :mod:`fecontact.friction.residual`,
evaluated as a straight pipeline: augmented normal traction, trial
tangential traction, the pairs' friction laws' return map, assembly).  The generalised Jacobian

.. math::

    J = \begin{bmatrix} \hat K - T^T(\sum_i A_i \lambda_i\cdot\nabla^2 (g,s)_i) T & -T^T B^T A\\
                        A\,\partial_{(g,s)}C\,B\,T & A\,\partial_\lambda C \end{bmatrix}

is assembled in scipy.sparse.  The bulk part (``K``, ``f``; or a time step's
inertia and stiffness) comes in explicitly as :class:`~fecontact.solve.bulk.BulkTerms`.
Only the stepping layer holds state: history (start-of-step configuration,
accumulated slip, friction state) is passed in as a :class:`StepState` and
replaced only when a step is accepted, and the facet hysteresis of the
search travels with the Newton iterate (``facet_hint``), so an evaluation
depends on its arguments only.  :class:`Increment` binds a problem to one
increment (time, start state, bulk terms): the system Newton solves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ..bodies.system import BulkSystem
from ..contact.closing import slip_before_contact
from ..contact.kinematics3d import reference_directions
from ..contact.pairs import PairKinematics, empty_kinematics, pair_kinematics, stack
from ..contact.surface import ContactSurface, on_axis
from ..friction import (FrictionBatch, FrictionStart, Status, alart_curnier,
                        augmented_normal)
from .bulk import BulkTerms, StaticBulk
from .evaluation import Evaluation, contact_jacobian
from .operators import geometric_stiffness, kinematic_operator
from .state import StepState


def automatic_augmentation(system: BulkSystem, slave_body: int, size: np.ndarray,
                           factor: float = 1.0, master_body: int | None = None) -> np.ndarray:
    r"""Augmentation ``c = factor * E* / h`` per slave node, ``h = size`` its size.

    ``E*`` is the contact modulus of the pair: the slave material's ``E'``
    against a rigid obstacle, and the harmonic combination
    ``1/E* = 1/E'_slave + 1/E'_master`` against a deformable master body
    (the two bodies' compliances over the node's length ``h`` act in series,
    so the softer body governs the contact stiffness).  The size is the
    node's lumped length in 2D (also on axisymmetric surfaces, whose nodal
    areas carry ``2 pi r``), the square root of its area in 3D
    (:attr:`fecontact.contact.surface.ContactSurface.size`).  The value
    changes only Newton's path (active-set prediction), never the converged
    solution.
    """
    body = system.bodies[slave_body]
    h = size
    compliance = 1.0 / body.contact_modulus()
    if master_body is not None:
        master = system.bodies[master_body]
        compliance += 1.0 / master.contact_modulus()
    return factor / (compliance * h)


@dataclass
class ContactProblem:
    """Bulk system plus contact pairs; evaluates residual and Jacobian.

    Attributes
    ----------
    system : BulkSystem
    pairs : tuple of ContactPair
    area, scale, c_n, c_t, penalty, node_size : ndarray, shape (m,)
        Per slave node of all pairs (in pair order): nodal area of the
        traction basis, scale of the node's contact row (the area, or on
        midside nodes of quadratic 3D surfaces, which carry no traction, the
        area of their linear pieces: :class:`~fecontact.contact.surface.ContactSurface`),
        augmentations, penalty stiffness (0: exact condition), and nodal
        length (2D) or square root of the row scale (3D).
    slices : list of slice
        The rows of each pair.
    friction : FrictionBatch
        The pairs' friction laws over all slave nodes.
    static_bulk : StaticBulk
        The static bulk terms ``K_hat``, ``T^T (K u - f) - F_coupling``.
    """

    system: BulkSystem
    pairs: tuple

    def __post_init__(self):
        self.pairs = tuple(self.pairs)
        cat = np.concatenate
        self.area = cat([p.slave.area for p in self.pairs]) if self.pairs else np.zeros(0)
        self.scale = cat([p.slave.scale for p in self.pairs]) if self.pairs else np.zeros(0)
        self.c_n = cat([p.c_n for p in self.pairs]) if self.pairs else np.zeros(0)
        self.c_t = cat([p.c_t for p in self.pairs]) if self.pairs else np.zeros(0)
        # penalty stiffness of regularised nodes (0: exact normal condition)
        self.penalty = cat([np.zeros(p.n_nodes) if p.penalty is None else p.penalty
                            for p in self.pairs]) if self.pairs else np.zeros(0)
        # nodal length (2D) or square root of the nodal area (3D)
        self.node_size = cat([p.slave.size for p in self.pairs]) if self.pairs else np.zeros(0)
        bounds = np.cumsum([0] + [p.n_nodes for p in self.pairs])
        self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        self.X = self.system.reference_coords()
        axis = [on_axis(p.slave, self.system.bodies[p.slave.body]) for p in self.pairs]
        self.friction = FrictionBatch(tuple(p.friction for p in self.pairs), tuple(self.slices),
                                      np.concatenate(axis) if axis else None)
        self.static_bulk = StaticBulk(self.system)
        # reduced unknowns that contact can ever touch (slave and master surface DOFs)
        nodes = []
        for p in self.pairs:
            nodes.append(self.system.global_nodes(p.slave.body, p.slave.nodes))
            if isinstance(p.master, ContactSurface):
                nodes.append(self.system.global_nodes(p.master.body, np.unique(p.master.facets)))
        dofs = self.system.node_dofs(np.concatenate(nodes)).ravel() if nodes else np.zeros(0, int)
        T = self.system.T.tocsr()[dofs]
        self.contact_dofs = np.unique(T.indices)
        # fixed per-node reference directions of the 3D tangent bases (none
        # while they are being computed: the default axes give the same normals)
        self.reference = None
        if self.dim == 3 and self.pairs:
            self.reference = reference_directions(self.kinematics(np.zeros(self.system.n_dofs), 0.0,
                                                                  None).local.normal)

    @property
    def dim(self) -> int:
        """Spatial dimension."""
        return self.system.dim

    n_contact = property(lambda self: self.area.size, doc="Number of slave nodes ``m`` over all pairs.")

    def initial_state(self) -> StepState:
        """The unloaded state at ``t = 0``: no displacement, no traction, every node open and stuck."""
        m, d = self.n_contact, self.dim
        kin = self.kinematics(np.zeros(self.system.n_dofs), 0.0, None)
        return StepState(t=0.0, u=np.zeros(self.system.n_dofs), multiplier=np.zeros((m, d)),
                         slip=np.zeros((m, d)), status=np.zeros(m, dtype=int),
                         gap=kin.local.gap, normal=kin.local.normal, tangent=kin.local.tangent,
                         facet=kin.facet, friction=np.zeros(m, dtype=int),
                         multiplier_basis=kin.local.tangent)

    def coordinates(self, u: np.ndarray) -> np.ndarray:
        """Current coordinates ``X + u`` of all global nodes, shape (dim, n_nodes)."""
        return self.X + u.reshape(-1, self.dim).T

    def kinematics(self, u: np.ndarray, t: float, state: StepState,
                   facet: np.ndarray | None = None) -> PairKinematics:
        """Kinematics of all pairs at displacement ``u``.

        ``facet`` (m,) are the master segments or facets of the previous
        evaluation (hysteresis); by default those of ``state``.
        """
        if not self.pairs:
            return empty_kinematics(self.dim)
        x = self.coordinates(u)
        x0 = x if state is None else self.coordinates(state.u)
        t0 = t if state is None else state.t
        tangent0 = None if state is None else state.tangent
        if facet is None and state is not None:
            facet = state.facet

        def part(arr, s):
            return None if arr is None else arr[s]

        return stack([pair_kinematics(p, self.system, x, x0, t, t0, part(tangent0, s),
                                      part(self.reference, s), part(facet, s))
                      for p, s in zip(self.pairs, self.slices)])

    def nodal_tractions(self, multiplier: np.ndarray, status: np.ndarray, normal: np.ndarray,
                        basis: np.ndarray) -> tuple:
        """Tractions and status of nodes without a multiplier, from the traction field.

        Midside nodes of quadratic 3D slave surfaces carry no multiplier
        (:mod:`fecontact.contact.surface`); their contact rows hold zero.  A
        committed state shows them the traction field there, the mean of the
        tractions of their edge's two ends, expressed in their own ``normal``
        and tangent ``basis``; their status is open unless both ends are
        closed, slipping if either end slips, sticking otherwise.  Other
        nodes are returned unchanged.

        Parameters
        ----------
        multiplier : ndarray, shape (m, dim)
        status : ndarray of int, shape (m,)
        normal : ndarray, shape (m, dim)
        basis : ndarray, shape (m, dim-1, dim)
            The basis of the tangential components of ``multiplier``.

        Returns
        -------
        (ndarray, ndarray)
            Copies of ``multiplier`` and ``status``.
        """
        multiplier, status = multiplier.copy(), status.copy()
        for pair, s in zip(self.pairs, self.slices):
            P = pair.slave.interpolation
            if P is None:
                continue
            mid = pair.slave.area == 0.0
            t = multiplier[s, :1] * normal[s] + np.einsum("mq,mqd->md", multiplier[s, 1:], basis[s])
            t_mid = (P @ t)[mid]
            local = np.column_stack([np.einsum("md,md->m", t_mid, normal[s][mid]),
                                     np.einsum("mqd,md->mq", basis[s][mid], t_mid)])
            multiplier[np.flatnonzero(mid) + s.start] = local
            ends = P[mid].indices.reshape(-1, 2)                               # (n_mid, 2)
            st = status[s][ends]
            status[np.flatnonzero(mid) + s.start] = np.where(
                np.all(st != Status.OPEN, axis=1),
                np.where(np.any(st == Status.SLIP, axis=1), Status.SLIP, Status.STICK), Status.OPEN)
        return multiplier, status

    def friction_start(self, state: StepState) -> FrictionStart:
        r"""What the friction laws need from the start of the increment that starts at ``state``.

        The law state and the normal traction ``lam_n0`` of every node.  Every
        node transmits friction, also one that is open at the start and
        closes inside the increment: its slip increment is measured from its
        projection onto the master at the start of the increment (the start
        tangent ``tau^0`` and, on a deformable master, the material point it
        projects on), less its relative motion before its predicted first
        contact (:meth:`slip_offset`), so that for a node that ends closed on
        the segment it started over

        .. math:: \Delta s = \ell^0\,(\xi - \xi^0) + g_n\,\tau^0\cdot n
                  - \theta\,(t - t^0)\,\tau^0\cdot v_t ,

        with ``g_n = 0`` at a closed node.  A sliding closing node therefore
        lies on the cone ``|lam_t| = mu lam_n``, and a sticking one is held
        where it is predicted to touch.

        Lagged laws (IPC) use the start-of-increment normal force; ``touching``
        tells them which nodes touch at the start (closed, or ``g <= 1e-9 h``):
        a node closing inside the increment has no lagged force yet.
        """
        touching = ~self.apart(state.status, state.gap)
        return FrictionStart(state=state.friction, normal=state.multiplier[:, 0], touching=touching)

    def apart(self, status: np.ndarray, gap: np.ndarray) -> np.ndarray:
        """Nodes open with a positive gap (``g > 1e-9 h``), not touching, shape (m,) of bool."""
        return (status == Status.OPEN) & (gap > 1e-9 * self.node_size)

    def slip_offset(self, state: StepState, t: float) -> np.ndarray:
        """Slip before first contact of the nodes open at ``state``, for the increment to ``t``, shape (m, dim-1).

        Taken off the slip measured from the start-of-increment projection
        (:func:`fecontact.contact.closing.slip_before_contact`).
        """
        return slip_before_contact(state.gap, self.apart(state.status, state.gap), state.approach,
                                   state.tangent, t - state.t)

    def next_friction_state(self, state: StepState, ev: "Evaluation") -> np.ndarray:
        """Friction-law state after the converged increment ``ev`` started at ``state``."""
        return self.friction.next_state(state.friction, ev.contact.friction,
                                        ev.contact.status != Status.OPEN)

    def revised_friction_state(self, state: StepState, ev: "Evaluation") -> np.ndarray | None:
        """Start-of-increment friction state to solve the increment again with, or None.

        Laws with a state machine (static/kinetic friction) return the nodes
        that broke away during the increment as sliding.
        """
        return self.friction.revise(state.friction, ev.contact.friction,
                                    ev.contact.status != Status.OPEN)

    def seed_touching(self, unknowns: np.ndarray, state: StepState) -> np.ndarray:
        """Initial guess with a negligible pressure at touching nodes that carry none.

        A node touching with zero pressure sits on the kink of both the
        normal and the friction conditions; the generalised derivative there
        treats it as sliding without friction, so a body held by friction
        alone (a block resting on an incline) has a free rigid mode in the
        first Newton iterate.  A pressure of ``1e-9 c_n h`` (``h`` the nodal
        length or square root of the area) puts such nodes inside their
        friction disks, i.e. stuck; Newton opens them again if they must open.
        The converged solution does not depend on it.

        The rows of a quadratic 3D surface hold weighted gaps, positive at a
        vertex that touches a curved master while its neighbours do not
        (point contact); the vertex, touching with its own gap, is seeded
        with the pressure ``c_n (g_w + 1e-9 h)`` that closes its weighted
        row, so that a body held only by that contact is held in the first
        iterate too.
        """
        h = self.node_size
        lam = unknowns[self.system.n_reduced:].reshape(-1, self.dim).copy()
        gap, weighted = state.gap, 0.0
        if any(p.slave.multiplier_map is not None for p in self.pairs):
            gap = np.where(self.area > 0.0, self.kinematics(state.u, state.t, state).own_gap, np.inf)
            weighted = np.maximum(state.gap, 0.0)
        touching = (gap <= 1e-9 * h) & (lam[:, 0] <= 0.0)
        lam[touching, 0] = (self.c_n * (weighted + 1e-9 * h))[touching]
        return np.concatenate([unknowns[:self.system.n_reduced], lam.ravel()])

    def slave_node_name(self, i: int) -> str:
        """Contact node ``i`` in words: its node, body and pair."""
        for pair, s in zip(self.pairs, self.slices):
            if s.start <= i < s.stop:
                body = self.system.bodies[pair.slave.body]
                return (f"slave node {int(pair.slave.nodes[i - s.start])} of body {body.name!r} "
                        f"(contact {pair.name!r})")
        return f"contact node {i}"

    def where(self, index: int) -> str:
        """Where row ``index`` of the Newton system ``[u_hat, lam]`` lives, in words: a reduced
        unknown's first DOF (component, node, body, coordinates), or a contact row's node and pair."""
        sysm = self.system
        if index >= sysm.n_reduced:
            i, component = divmod(index - sysm.n_reduced, self.dim)
            condition = "normal" if component == 0 else "tangential"
            return f"the {condition} contact condition of {self.slave_node_name(i)}"
        full = sysm.T.tocsc()[:, index].indices
        if full.size == 0:
            return f"reduced unknown {index}"
        node, component = divmod(int(full[0]), self.dim)
        b = int(np.searchsorted(sysm.node_offset, node, side="right") - 1)
        x = ", ".join(f"{v:.6g}" for v in self.X[:, node])
        return (f"DOF {'xyz'[component]} of node {node - sysm.node_offset[b]} of body "
                f"{sysm.bodies[b].name!r} at ({x})")

    def unknowns(self, state: StepState) -> np.ndarray:
        """Newton unknowns ``[u_hat, lam.ravel()]`` from a state."""
        return np.concatenate([self.system.to_reduced(state.u - self.system.prescribed(state.t)),
                               state.multiplier.ravel()])

    def _transposed_T(self) -> sp.csr_matrix:
        """``T^T`` in CSR, made once per reduction matrix ``T``."""
        T = self.system.T
        cached = getattr(self, "_T_transposed", None)
        if cached is None or cached[0] is not T:
            cached = self._T_transposed = (T, T.T.tocsr())
        return cached[1]

    def increment(self, t: float, state: StepState, bulk: BulkTerms | None = None) -> "Increment":
        """The increment to ``t`` from ``state`` (static bulk terms unless ``bulk`` is given)."""
        return Increment(self, t, state, self.static_bulk if bulk is None else bulk)

    def evaluate(self, unknowns: np.ndarray, t: float, state: StepState, bulk: BulkTerms,
                 facet_hint: np.ndarray | None = None, jacobian: bool = True) -> Evaluation:
        """Residual and generalised Jacobian at ``unknowns``.

        Parameters
        ----------
        unknowns : ndarray, shape (n_reduced + m*dim,)
            ``[u_hat, lam.ravel()]``.
        t : float
            Time (or load level) of the increment's end.
        state : StepState
            Committed state at the start of the increment.
        bulk : BulkTerms
            The bulk part: :attr:`static_bulk`, or a time step's terms.
        facet_hint : ndarray of int, shape (m,), optional
            Master segments or facets of the previous Newton iterate: a node
            keeps its facet while it projects inside the facet's enlarged
            outline, so it cannot alternate between two facets across
            iterates (default: those of ``state``).
        jacobian : bool
            Whether to assemble the Jacobian blocks.
        """
        sysm = self.system
        n_red, d = sysm.n_reduced, self.dim
        u = sysm.displacement(unknowns[:n_red], t)
        lam = unknowns[n_red:].reshape(-1, d)
        kin, cr = self.contact_rows(u, lam, t, state, facet_hint)
        BT = (kinematic_operator(kin, sysm.n_dofs) @ sysm.T).tocsr()      # rows of B T, (m*d, n_red)
        A = np.repeat(self.scale, d)
        R_bulk, scale = bulk.residual(u, t)
        R1 = R_bulk - BT.T @ (A * lam.ravel())
        R2 = A * cr.residual.ravel()
        ev = dict(residual=np.concatenate([R1, R2]), n_reduced=n_red, kinematics=kin,
                  contact=cr, u=u, force_scale=scale, contact_dofs=self.contact_dofs)
        if jacobian:
            G = geometric_stiffness(kin, self.scale[:, None] * lam, sysm.n_dofs)
            tangent = getattr(bulk, "tangent", None)        # finite strain: K depends on u
            ev.update(K=bulk.matrix if tangent is None else tangent(u),
                      **contact_jacobian(BT, A, cr, G, sysm.T, self._transposed_T()))
        return Evaluation(**ev)

    def contact_rows(self, u: np.ndarray, lam: np.ndarray, t: float, state: StepState,
                     facet_hint: np.ndarray | None = None) -> tuple:
        """``(kinematics, ContactResidual)`` of the contact rows at ``u`` (n_dofs,), ``lam`` (m, dim)."""
        kin = self.kinematics(u, t, state, facet_hint)
        gap, slip = kin.local.gap, kin.local.slip - self.slip_offset(state, t)
        dt = t - state.t if t > state.t else 1.0
        normal = augmented_normal(lam[:, 0], gap, self.c_n, self.penalty)
        trial = lam[:, 1:] - self.c_t[:, None] * slip
        response = self.friction.return_map(trial, normal.traction, slip, dt,
                                            self.friction_start(state))
        return kin, alart_curnier(lam, normal, response, self.c_t)

    def full_residual(self, u: np.ndarray, multiplier: np.ndarray, t: float,
                      state: StepState) -> np.ndarray:
        """``K u - f - B^T A lam`` in full numbering (reactions at supports)."""
        kin = self.kinematics(u, t, state)
        B = kinematic_operator(kin, self.system.n_dofs)
        A = np.repeat(self.area, self.dim)
        return self.system.internal_force(u) - self.system.external_force(t) - B.T @ (A * multiplier.ravel())


@dataclass(frozen=True)
class Increment:
    """One increment of a contact problem: the nonlinear system a Newton solve works on.

    Attributes
    ----------
    problem : ContactProblem
    t : float
        Time (or load level) at the end of the increment.
    state : StepState
        Committed state at its start.
    bulk : BulkTerms
        Its bulk terms (static, or a time step's).
    """

    problem: ContactProblem
    t: float
    state: StepState
    bulk: BulkTerms

    @property
    def start_status(self) -> np.ndarray:
        """Contact status at the start of the increment, shape (m,)."""
        return self.state.status

    def evaluate(self, unknowns: np.ndarray, facet_hint: np.ndarray | None = None,
                 jacobian: bool = True) -> Evaluation:
        """:meth:`ContactProblem.evaluate` of this increment."""
        return self.problem.evaluate(unknowns, self.t, self.state, self.bulk, facet_hint, jacobian)

    def where(self, index: int) -> str:
        """:meth:`ContactProblem.where`."""
        return self.problem.where(index)

    def revised(self, ev: Evaluation) -> "Increment | None":
        """The increment with its friction start state revised after ``ev`` converged, or None."""
        revised = self.problem.revised_friction_state(self.state, ev)
        if revised is None:
            return None
        return replace(self, state=replace(self.state, friction=revised))
