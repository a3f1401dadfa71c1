r"""The discrete contact problem: residual and generalised Jacobian.

Unknowns are the reduced displacements ``u_hat`` and the nodal tractions
``lam = (lam_n, lam_t)`` of every slave node (force per area).  With ``B`` the
sparse derivative of ``(g_n, Delta s)`` with respect to ``u`` and ``A`` the
lumped nodal areas,

.. math::

    R_1 = T^T\big(K u - f(t) - B^T A \lambda\big) - F_{coupling}(t), \qquad
    R_2 = A\, C(\lambda, g_n(u), \Delta s(u))

(``C``: :func:`fecontact.friction.alart_curnier`).  The generalised Jacobian

.. math::

    J = \begin{bmatrix} \hat K - T^T(\sum_i A_i \lambda_i\cdot\nabla^2 (g,s)_i) T & -T^T B^T A\\
                        A\,\partial_{(g,s)}C\,B\,T & A\,\partial_\lambda C \end{bmatrix}

is assembled in scipy.sparse.  Only this layer and the stepping layer hold
state; history (start-of-step configuration, accumulated slip) is passed in
as a :class:`StepState` and replaced only when a step is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..bodies.system import BulkSystem
from ..contact.kinematics3d import reference_directions
from ..contact.pairs import PairKinematics, pair_kinematics, stack
from ..contact.surface import ContactSurface
from ..friction import ContactResidual, alart_curnier
from ..friction.base import concatenate
from .operators import block_diagonal, geometric_stiffness, kinematic_operator
from .state import StepState


@dataclass(frozen=True)
class Evaluation:
    """Residual and (optionally) Jacobian blocks at one Newton iterate.

    The displacement block ``J11 = K + D`` is kept in two parts: ``K``, the
    constant bulk matrix (``K_hat``, or a time step's effective stiffness),
    never copied, and ``D``, the geometric stiffness of contact, sparse and
    supported on the contact DOFs only.  Backends that reuse a factorisation
    or a preconditioner of ``K`` need only ``D``; assembling ``K + D`` at
    every iteration would cost a copy of the bulk matrix.
    """

    residual: np.ndarray
    n_reduced: int
    kinematics: PairKinematics = field(repr=False)
    contact: ContactResidual = field(repr=False)
    u: np.ndarray = field(repr=False)
    force_scale: float = 1.0
    K: sp.spmatrix | None = field(default=None, repr=False)
    D: sp.spmatrix | None = field(default=None, repr=False)
    J12: sp.spmatrix | None = field(default=None, repr=False)
    J21: sp.spmatrix | None = field(default=None, repr=False)
    J22: sp.spmatrix | None = field(default=None, repr=False)
    contact_dofs: np.ndarray | None = field(default=None, repr=False)

    @property
    def equilibrium_norm(self) -> float:
        return float(np.linalg.norm(self.residual[: self.n_reduced]))

    @property
    def complementarity_norm(self) -> float:
        return float(np.linalg.norm(self.residual[self.n_reduced:]))

    @property
    def has_jacobian(self) -> bool:
        return self.J12 is not None

    @property
    def J11(self) -> sp.spmatrix:
        """``K + D``: the constant bulk matrix plus the contact part (the whole block, assembled)."""
        return self.K if self.D is None or self.D.nnz == 0 else (self.K + self.D).tocsc()

    def jacobian(self) -> sp.csc_matrix:
        """The whole generalised Jacobian as one sparse matrix."""
        return sp.bmat([[self.J11, self.J12], [self.J21, self.J22]], format="csc")


def automatic_augmentation(system: BulkSystem, slave_body: int, area: np.ndarray,
                           factor: float = 1.0, master_body: int | None = None) -> np.ndarray:
    r"""Augmentation ``c = factor * E* / h`` per slave node, ``h`` its lumped length/area.

    ``E*`` is the contact modulus of the pair: the slave material's ``E'``
    against a rigid obstacle, and the harmonic combination
    ``1/E* = 1/E'_slave + 1/E'_master`` against a deformable master body
    (the two bodies' compliances over the node's length ``h`` act in series,
    so the softer body governs the contact stiffness).  In 3D
    ``h = sqrt(A)``.  The value changes only Newton's path (active-set
    prediction), never the converged solution.
    """
    body = system.bodies[slave_body]
    h = area if body.dim == 2 else np.sqrt(area)
    compliance = 1.0 / body.material.contact_modulus(body.dim)
    if master_body is not None:
        master = system.bodies[master_body]
        compliance += 1.0 / master.material.contact_modulus(master.dim)
    return factor / (compliance * h)


@dataclass
class ContactProblem:
    """Bulk system plus contact pairs; evaluates residual and Jacobian."""

    system: BulkSystem
    pairs: tuple

    def __post_init__(self):
        self.pairs = tuple(self.pairs)
        cat = np.concatenate
        self.area = cat([p.slave.area for p in self.pairs]) if self.pairs else np.zeros(0)
        self.c_n = cat([p.c_n for p in self.pairs]) if self.pairs else np.zeros(0)
        self.c_t = cat([p.c_t for p in self.pairs]) if self.pairs else np.zeros(0)
        # penalty stiffness of regularised nodes (0: exact normal condition)
        self.penalty = cat([np.zeros(p.n_nodes) if p.penalty is None else p.penalty
                            for p in self.pairs]) if self.pairs else np.zeros(0)
        # nodal length (2D) or square root of the nodal area (3D)
        self.node_size = self.area if self.dim == 2 else np.sqrt(self.area)
        bounds = np.cumsum([0] + [p.n_nodes for p in self.pairs])
        self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        self.X = self.system.reference_coords()
        self._facet_hint = (None, None)
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
        return self.system.dim

    @property
    def n_contact(self) -> int:
        return self.area.size

    def initial_state(self) -> StepState:
        m, d = self.n_contact, self.dim
        kin = self.kinematics(np.zeros(self.system.n_dofs), 0.0, None)
        return StepState(0.0, np.zeros(self.system.n_dofs), np.zeros((m, d)), np.zeros((m, d)),
                         np.zeros(m, dtype=int), kin.local.gap, kin.local.normal, kin.local.tangent,
                         kin.facet, np.zeros(m, dtype=int), kin.local.tangent)

    def coordinates(self, u: np.ndarray) -> np.ndarray:
        return self.X + u.reshape(-1, self.dim).T

    def kinematics(self, u: np.ndarray, t: float, state: StepState,
                   facet: np.ndarray | None = None) -> PairKinematics:
        """Kinematics of all pairs at displacement ``u``.

        ``facet`` (m,) are the master segments or facets of the previous
        evaluation (hysteresis); by default those of ``state``.
        """
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

    def friction_engaged(self, state: StepState) -> np.ndarray:
        """Whether each node transmits friction in the increment that starts at ``state``.

        A node that was open with a positive gap at the start of the increment
        closes somewhere inside it; its slip over the increment would include
        the approach before touching, measured along the tilted master
        tangent, and would lock a spurious tangential traction into the stick
        zone.  Such a node therefore transmits no friction in the increment in
        which it closes and sticks from the next one on (its anchor is then
        the closed position).  Nodes touching at the start (``g <= 1e-9 h``)
        have friction at once.
        """
        return ~((state.status == 0) & (state.gap > 1e-9 * self.node_size))

    def friction_law(self, state: StepState, slip: np.ndarray, t: float):
        """The friction laws of all pairs as one callable ``(trial, lam_hat) -> FrictionResponse``."""
        dt = t - state.t if t > state.t else 1.0
        engaged = self.friction_engaged(state)
        laws = [(p.friction, s) for p, s in zip(self.pairs, self.slices)]

        def law(trial, lam_hat):
            return concatenate([f.return_map(trial[s], lam_hat[s], slip[s], dt, state.friction[s],
                                             state.multiplier[s, 0], engaged[s]) for f, s in laws])
        return law

    def _per_pair(self, method: str, state: StepState, ev: "Evaluation"):
        closed = ev.contact.status != 0
        return [getattr(p.friction, method)(state.friction[s], ev.contact.friction.take(s), closed[s])
                for p, s in zip(self.pairs, self.slices)]

    def next_friction_state(self, state: StepState, ev: "Evaluation") -> np.ndarray:
        """Friction-law state after the converged increment ``ev`` started at ``state``."""
        parts = self._per_pair("next_state", state, ev)
        return np.concatenate(parts) if parts else np.zeros(0, dtype=int)

    def revised_friction_state(self, state: StepState, ev: "Evaluation") -> np.ndarray | None:
        """Start-of-increment friction state to solve the increment again with, or None.

        Laws with a state machine (static/kinetic friction) return the nodes
        that broke away during the increment as sliding.
        """
        parts = self._per_pair("revise", state, ev)
        if all(p is None for p in parts):
            return None
        return np.concatenate([state.friction[s] if p is None else p
                               for p, s in zip(parts, self.slices)])

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
        """
        h = self.node_size
        lam = unknowns[self.system.n_reduced:].reshape(-1, self.dim).copy()
        touching = (state.gap <= 1e-9 * h) & (lam[:, 0] <= 0.0)
        lam[touching, 0] = 1e-9 * self.c_n[touching] * h[touching]
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
        """Where row ``index`` of the Newton system ``[u_hat, lam]`` lives, in words.

        A reduced displacement unknown names its first DOF (component, node,
        body and coordinates); a contact row names the slave node and pair.
        """
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
        u_hat = self.system.to_reduced(state.u - self.system.prescribed(state.t))
        return np.concatenate([u_hat, state.multiplier.ravel()])

    @property
    def bulk_matrix(self) -> sp.csc_matrix:
        """The constant bulk part of ``J11`` in statics: ``K_hat``."""
        return self.system.K_hat

    def bulk_residual(self, u: np.ndarray, t: float) -> tuple:
        """Static bulk residual ``T^T (K u - f(t)) - F_coupling(t)`` (reduced) and its force scale."""
        sysm = self.system
        internal, external = sysm.internal_force(u), sysm.external_force(t)
        coupling = sysm.coupling_force(t)
        scale = max(float(np.linalg.norm(internal)), float(np.linalg.norm(external)),
                    float(np.linalg.norm(coupling)), 1e-300)
        return sysm.T.T @ (internal - external) - coupling, scale

    def evaluate(self, unknowns: np.ndarray, t: float, state: StepState,
                 jacobian: bool = True, bulk=None) -> Evaluation:
        """Residual and generalised Jacobian at ``unknowns``.

        ``bulk`` replaces the static bulk terms: an object with
        ``residual(u, t) -> (R1_bulk, scale)`` and a constant reduced
        ``matrix`` (a time step's inertia and stiffness, :mod:`fecontact.analysis.dynamic`).
        """
        sysm = self.system
        n_red, d = sysm.n_reduced, self.dim
        u = sysm.displacement(unknowns[:n_red], t)
        lam = unknowns[n_red:].reshape(-1, d)
        # facet hysteresis across the Newton iterates of one increment: a node
        # keeps the facet of the previous evaluation while it projects inside
        # its enlarged outline, so it cannot alternate between two facets
        hint = self._facet_hint[1] if self._facet_hint[0] is state else None
        kin = self.kinematics(u, t, state, hint)
        self._facet_hint = (state, kin.facet)
        cr = alart_curnier(lam, kin.local.gap, kin.local.slip, self.c_n, self.c_t,
                           self.friction_law(state, kin.local.slip, t), self.penalty)
        B = kinematic_operator(kin, sysm.n_dofs)
        A = np.repeat(self.area, d)
        R_bulk, scale = self.bulk_residual(u, t) if bulk is None else bulk.residual(u, t)
        R1 = R_bulk - sysm.T.T @ (B.T @ (A * lam.ravel()))
        R2 = A * cr.residual.ravel()
        ev = dict(residual=np.concatenate([R1, R2]), n_reduced=n_red, kinematics=kin,
                  contact=cr, u=u, force_scale=scale, contact_dofs=self.contact_dofs)
        if jacobian:
            T = sysm.T
            G = geometric_stiffness(kin, self.area[:, None] * lam, sysm.n_dofs)
            Ad = sp.diags(A)
            K = self.bulk_matrix if bulk is None else bulk.matrix
            D = -(T.T @ G @ T).tocsr()
            D.eliminate_zeros()
            ev.update(K=K, D=D,
                      J12=(-(T.T @ B.T) @ Ad).tocsc(),
                      J21=(Ad @ block_diagonal(cr.d_kinematics) @ B @ T).tocsr(),
                      J22=(Ad @ block_diagonal(cr.d_multiplier)).tocsr())
        return Evaluation(**ev)

    def full_residual(self, u: np.ndarray, multiplier: np.ndarray, t: float,
                      state: StepState) -> np.ndarray:
        """``K u - f - B^T A lam`` in full numbering (reactions at supports)."""
        kin = self.kinematics(u, t, state)
        B = kinematic_operator(kin, self.system.n_dofs)
        A = np.repeat(self.area, self.dim)
        return self.system.internal_force(u) - self.system.external_force(t) - B.T @ (A * multiplier.ravel())
