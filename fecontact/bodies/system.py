r"""The bulk linear-elastic system of several bodies and its constraints.

Global DOFs stack the bodies: DOF ``dim*k + c`` of global node ``k`` (body
``b``'s node ``j`` is ``k = node_offset[b] + j``).  Constraints map the reduced
unknowns ``u_hat`` to the full displacement

.. math::  u = T\,\hat u + u_D(t),

where ``T`` keeps free DOFs, removes Dirichlet DOFs (their values ``u_D(t)``
ramped by an amplitude) and ties the DOFs of a *coupling* (a boundary moving
rigidly in one component, loaded by a resultant force, like a reference point)
to one reduced unknown.  *Ties* (glued interfaces, :mod:`fecontact.bodies.ties`)
eliminate slave DOFs: ``T = S T_0``.  ``K_hat = T^T K T`` is assembled once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .hyperelastic import Hyperelastic
from .hyperelastic_body import HyperelasticBody
from .memory import return_free_memory
from .pieces import group_free_modes, rigid_groups
from .share import ElementShare, node_parts
from .support_names import named_coupling_displacements, named_reactions
from .ties import tie_map


@dataclass(frozen=True)
class BulkSystem:
    """Bodies, bulk stiffness and constraints.

    Attributes
    ----------
    bodies : tuple of ElasticBody
    node_offset : ndarray of int, shape (n_bodies + 1,)
    K : csr_matrix, shape (n, n)
        Block-diagonal bulk stiffness.
    T : csr_matrix, shape (n, n_red)
    K_hat : csr_matrix, shape (n_red, n_red)
        ``T^T (K + K_s) T`` with the spring stiffness ``K_s``.  CSR, the
        format the multigrid set-up takes: it shares ``K_hat``'s index
        arrays instead of making a CSR copy of a CSC matrix (products
        ``K_hat @ x`` are the same to the last bit in either format: each
        row is summed in column order).
    dirichlet, couplings, loads : tuples
    fixed : ndarray of bool, shape (n,)
    coupling_columns : ndarray of int
        Reduced unknown of each coupling.
    springs : tuple of Spring
    M : csr_matrix, shape (n, n), or None
        Consistent mass matrix (bodies with a density), for dynamics.
    ties : tuple of Tie
    tie_map, tied : csr_matrix, shape (n, n), and ndarray of bool, shape (n,), or None
        The tie map ``S`` and the tied slave DOFs (:func:`fecontact.bodies.ties.tie_map`).
    share : ElementShare or None
        Set when this rank assembled its own elements only: ``K`` and
        ``K_hat`` are then partial sums over the ranks, and the products
        with them are summed by :meth:`bulk_force` (:mod:`fecontact.bodies.share`).
    """

    bodies: tuple
    node_offset: np.ndarray
    K: sp.csr_matrix = field(repr=False)
    T: sp.csr_matrix = field(repr=False)
    K_hat: sp.csr_matrix = field(repr=False)
    dirichlet: tuple
    couplings: tuple
    loads: tuple
    fixed: np.ndarray = field(repr=False)
    coupling_columns: np.ndarray = field(repr=False)
    springs: tuple = ()
    M: sp.csr_matrix | None = field(default=None, repr=False)
    ties: tuple = ()
    tie_map: sp.csr_matrix | None = field(default=None, repr=False)
    tied: np.ndarray | None = field(default=None, repr=False)
    share: ElementShare | None = None

    @property
    def dim(self) -> int:
        """Spatial dimension of the bodies, 2 or 3."""
        return self.bodies[0].dim

    @property
    def n_dofs(self) -> int:
        """Number of DOFs in full numbering (``dim`` times the number of global nodes)."""
        return self.K.shape[0]

    @property
    def n_reduced(self) -> int:
        """Number of reduced unknowns ``u_hat`` (free DOFs plus one per coupling)."""
        return self.T.shape[1]

    def floating_bodies(self) -> list:
        """Names of bodies with a rigid-body mode that no Dirichlet condition removes.

        Such a body (or a disconnected piece of it) is held only by contact
        (or free); see :func:`fecontact.bodies.pieces.group_free_modes`.
        """
        offsets = np.asarray(self.node_offset)
        names = []
        for nodes in rigid_groups(self):
            if group_free_modes(self, nodes)[0].shape[1]:
                for b in np.unique(np.searchsorted(offsets, nodes, side="right") - 1):
                    names.append(self.bodies[b].name)
        return list(dict.fromkeys(names))

    def free_modes(self) -> np.ndarray:
        """Unsupported rigid-body modes of all pieces in reduced numbering, shape (n_red, r).

        One set per rigid group (a connected piece of a body, or pieces tied
        together); they span the null space of ``K_hat``; contact must hold them.
        """
        cols = []
        for nodes in rigid_groups(self):
            modes, dofs = group_free_modes(self, nodes)
            for j in range(modes.shape[1]):
                u = np.zeros(self.n_dofs)
                u[dofs] = modes[:, j]
                cols.append(self.to_reduced(u))
        return np.column_stack(cols) if cols else np.zeros((self.n_reduced, 0))

    def body_dofs(self, body: int) -> slice:
        """The DOFs of one body in full numbering (a contiguous range)."""
        return slice(self.dim * self.node_offset[body], self.dim * self.node_offset[body + 1])

    def global_nodes(self, body: int, nodes: np.ndarray) -> np.ndarray:
        """Global node numbers of body-local DOF nodes, ``node_offset[body] + nodes``.

        Parameters
        ----------
        body : int
            Index of the body in :attr:`bodies`.
        nodes : ndarray of int, shape (k,)
            Body-local DOF node indices.

        Returns
        -------
        ndarray of int, shape (k,)
        """
        return self.node_offset[body] + np.asarray(nodes)

    def node_dofs(self, global_nodes: np.ndarray) -> np.ndarray:
        """DOFs of global nodes, shape (len(nodes), dim)."""
        d = self.dim
        return d * np.asarray(global_nodes)[:, None] + np.arange(d)[None, :]

    def reference_coords(self) -> np.ndarray:
        """Reference coordinates of all global nodes, shape (dim, n_nodes)."""
        return np.hstack([b.node_coords for b in self.bodies])

    def prescribed(self, t: float) -> np.ndarray:
        """Full vector ``u_D(t)``: the imposed values, passed on to slave DOFs tied to them (``S u_D^0``)."""
        u = np.zeros(self.n_dofs)
        for bc in self.dirichlet:
            dofs = self.node_dofs(self.global_nodes(bc.body, bc.nodes))[:, list(bc.components)]
            u[dofs.ravel()] = bc.value * bc.amplitude(t)
        return u if self.tie_map is None else self.tie_map @ u

    def internal_force(self, u: np.ndarray) -> np.ndarray:
        """Bulk internal force ``K u`` (full numbering), accurate for bodies far from home.

        ``K`` annihilates rigid translations, so it is applied to ``u`` minus
        each body's mean translation: the same vector in exact arithmetic.
        Applied to ``u`` itself, a stiff body moved rigidly by ``U`` (a die
        slid along a surface) carries a rounding error of about
        ``eps |K| U`` per row that grows with the distance travelled and
        can exceed the force tolerance of Newton's method.  Bodies in finite
        strain contribute their total Lagrangian force ``f_int(u)`` instead
        (:class:`~fecontact.bodies.hyperelastic_body.HyperelasticBody`).
        """
        w = self._without_translations(u)
        linear = self.bulk_force(w)
        force = linear.copy()
        for spring in self.springs:
            force[spring.dofs] += spring.stiffness * spring.mean(u) * spring.weights
        for b, body in self.hyperelastic.items():    # K is block diagonal: linear[dofs] = K_bb w_b
            dofs = self.body_dofs(b)
            force[dofs] += body.force(w[dofs]) - linear[dofs]
        return force

    def bulk_force(self, w: np.ndarray) -> np.ndarray:
        """``K w`` (full numbering), the same on every rank when the ranks share the elements.

        Parameters
        ----------
        w : ndarray, shape (n,)

        Returns
        -------
        ndarray, shape (n,)
        """
        Kw = self.K @ w
        return Kw if self.share is None else self.share.total(Kw)

    @cached_property
    def finite_strain(self) -> tuple:
        """``(body index, material)`` of the bodies of one hyperelastic material (finite strain)."""
        return tuple((b, body.materials[0]) for b, body in enumerate(self.bodies)
                     if len(body.materials) == 1 and isinstance(body.materials[0], Hyperelastic))

    @cached_property
    def hyperelastic(self) -> dict:
        """Body index -> :class:`~fecontact.bodies.hyperelastic_body.HyperelasticBody` (finite strain)."""
        return {b: HyperelasticBody(self.bodies[b], material) for b, material in self.finite_strain}

    def tangent_K_hat(self, u: np.ndarray) -> sp.spmatrix:
        """The reduced bulk tangent at ``u``: ``K_hat`` with the finite-strain bodies' ``K(u)``.

        ``K_hat`` itself (CSR) when no body is in finite strain, else a CSC matrix.
        """
        if not self.finite_strain:
            return self.K_hat
        return (self.K_hat + self.tangent_change(u)).tocsc()

    def tangent_change(self, u: np.ndarray) -> sp.csr_matrix:
        """``T^T (K(u) - K) T``: what the finite-strain bodies' tangents at ``u`` add to ``K_hat``.

        Shape (n_reduced, n_reduced); zero when no body is in finite strain.
        """
        w = self._without_translations(u)
        change = sp.csr_matrix((self.n_dofs, self.n_dofs))
        for b, body in self.hyperelastic.items():
            dofs = self.body_dofs(b)
            block = (body.tangent(w[dofs]) - self.K[dofs, dofs]).tocoo()
            change = change + sp.csr_matrix((block.data, (block.row + dofs.start,
                                                          block.col + dofs.start)),
                                            shape=change.shape)
        return (self.T.T @ change @ self.T).tocsr()

    def _without_translations(self, u: np.ndarray) -> np.ndarray:
        """``u`` minus each body's mean nodal translation (``K`` annihilates the difference).

        A body of revolution keeps its radial mean: only the axial
        translation is a rigid motion there.
        """
        d = self.dim
        nodal = u.reshape(-1, d)
        counts = np.diff(self.node_offset)
        body = np.repeat(np.arange(counts.size), counts)
        mean = np.stack([np.bincount(body, weights=nodal[:, c], minlength=counts.size)
                         for c in range(d)], axis=1) / np.maximum(counts, 1)[:, None]
        mean[[b.axisymmetric for b in self.bodies], 0] = 0.0
        return (nodal - mean[body]).ravel()

    def to_reduced(self, u: np.ndarray) -> np.ndarray:
        """Reduced unknowns of a full vector ``u`` that vanishes on Dirichlet DOFs.

        Coupled DOFs appear several times in ``T^T u``; they are averaged back.
        Tied slave DOFs are ignored (their masters carry the unknowns).
        """
        return (self._untied_T.T @ u) / self._reduced_counts

    @cached_property
    def _untied_T(self) -> sp.csr_matrix:
        """``T`` with the rows of tied slave DOFs zeroed."""
        return self.T if self.tied is None else (sp.diags(1.0 * ~self.tied) @ self.T).tocsr()

    @cached_property
    def _reduced_counts(self) -> np.ndarray:
        """Number of untied full DOFs behind each reduced unknown (at least 1)."""
        return np.maximum(np.asarray(self._untied_T.sum(axis=0)).ravel(), 1.0)

    def strain_energy(self, u: np.ndarray, t: float) -> float:
        """Elastic energy of the bodies and the springs, ``u K u / 2 + sum k e^2 / 2``.

        A body in finite strain contributes its stored energy ``int W(F) dV``
        instead of ``u_b K_bb u_b / 2``.
        """
        w = self._without_translations(u)
        Kw = self.bulk_force(w)
        for b, body in self.hyperelastic.items():
            dofs = self.body_dofs(b)
            Kw[dofs] = 0.0
        bodies = sum(body.energy(w[self.body_dofs(b)]) for b, body in self.hyperelastic.items())
        return 0.5 * float(w @ Kw) + bodies + sum(0.5 * s.stiffness * s.stretch(u, t) ** 2
                                                  for s in self.springs)

    def spring_force(self, t: float) -> np.ndarray:
        """Anchor part of the spring forces, ``sum k x_a(t) w`` (full numbering)."""
        f = np.zeros(self.n_dofs)
        for spring in self.springs:
            f[spring.dofs] += spring.stiffness * spring.anchor(t) * spring.weights
        return f

    def displacement(self, u_hat: np.ndarray, t: float) -> np.ndarray:
        """Full displacement ``u = T u_hat + u_D(t)`` of the reduced unknowns at time ``t``.

        Parameters
        ----------
        u_hat : ndarray, shape (n_red,)
        t : float
            Time (or load factor) at which the Dirichlet amplitudes are evaluated.

        Returns
        -------
        ndarray, shape (n,)
            Full displacement, global DOF numbering.
        """
        return self.T @ u_hat + self.prescribed(t)

    def load_force(self, t: float) -> np.ndarray:
        """The loads (body forces, tractions) at ``t``, without the springs (full numbering)."""
        f = np.zeros(self.n_dofs)
        for load in self.loads:
            f += load.vector * load.amplitude(t)
        return f

    def external_force(self, t: float) -> np.ndarray:
        """Loads and the anchor part of the spring forces at ``t`` (full numbering)."""
        return self.load_force(t) + self.spring_force(t)

    def coupling_force(self, t: float) -> np.ndarray:
        """Resultant forces on the coupling unknowns, reduced numbering."""
        f = np.zeros(self.n_reduced)
        for col, cp in zip(self.coupling_columns, self.couplings):
            f[col] += cp.force * cp.amplitude(t)
        return f

    def coupling_displacements(self, u: np.ndarray) -> dict:
        """The common displacement component of each coupling's nodes, by coupling name.

        Parameters
        ----------
        u : ndarray, shape (n,)
            Full displacement.

        Returns
        -------
        dict
            ``{name: displacement}``; couplings of one body sharing a name report
            the mean; a name on several bodies is ``body.name`` (:mod:`fecontact.bodies.support_names`).
        """
        return named_coupling_displacements(self, u)

    def reactions(self, residual_full: np.ndarray) -> dict:
        """Total support reaction (3 components) per support name.

        With ``residual_full = K u - f - f_contact``, equilibrium ``K u = f +
        f_contact + r`` makes ``residual_full`` at a constrained DOF the force
        ``r`` the support exerts on the body.  A support name on several
        bodies is reported as ``body.name`` for each (:mod:`fecontact.bodies.support_names`).
        """
        return named_reactions(self, residual_full)


def build_system(bodies, dirichlet, couplings, loads, springs=(), with_mass=False,
                 ties=(), share: ElementShare | None = None) -> BulkSystem:
    """Assemble the block-diagonal stiffness (and mass) and the constraint map ``T``.

    ``ties`` (a sequence of :class:`Tie`) glue interfaces: their slave DOFs
    leave the unknowns, ``T = S T_0`` (:attr:`BulkSystem.tie_map`).  A DOF
    that is the slave of two ties, or ties in a cycle, raise ValueError.
    ``share`` assembles this rank's elements only (:mod:`fecontact.bodies.share`):
    ``K`` and ``K_hat`` are then this rank's partial sums, the springs counted
    on rank 0; the mass matrix, when asked for, is whole.
    """
    from .elasticity import body_stiffness, mass

    bodies = tuple(bodies)
    dim = bodies[0].dim
    node_offset = np.concatenate([[0], np.cumsum([b.n_nodes for b in bodies])])
    if share is None:
        K = sp.block_diag([body_stiffness(b) for b in bodies], format="csr")
    else:
        node_part = node_parts(np.hstack([b.node_coords for b in bodies]), share.size)
        owned = [share.owned_elements(node_part[node_offset[i]:node_offset[i + 1]], b.mesh.t)
                 for i, b in enumerate(bodies)]
        K = sp.block_diag([body_stiffness(b, e) for b, e in zip(bodies, owned)], format="csr")
        share = replace(share, elements=int(sum(e.size for e in owned)))
    n = K.shape[0]

    fixed = np.zeros(n, dtype=bool)
    for bc in dirichlet:
        dofs = dim * (node_offset[bc.body] + np.asarray(bc.nodes))[:, None] + np.asarray(bc.components)
        fixed[dofs.ravel()] = True
    group = np.full(n, -1)
    for i, cp in enumerate(couplings):
        dofs = dim * (node_offset[cp.body] + np.asarray(cp.nodes)) + cp.component
        dofs = dofs[~fixed[dofs]]
        group[dofs] = i
    S, tied = tie_map(ties, dim, node_offset, fixed | (group >= 0)) if ties else (None, None)
    free = np.flatnonzero(~fixed & (group < 0) & (True if tied is None else ~tied))
    n_red = free.size + len(couplings)
    rows = np.concatenate([free, np.flatnonzero(group >= 0)])
    cols = np.concatenate([np.arange(free.size), free.size + group[group >= 0]])
    T = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n_red))
    if S is not None:
        T = (S @ T).tocsr()
    # without springs, K itself: ``K + 0`` would be a copy of K (the product drops zeros either way)
    springs_in_K = springs if share is None or share.root else ()
    K_all = K + sum((s.matrix(s.stiffness, n) for s in springs_in_K), sp.csr_matrix((n, n))) \
        if springs_in_K else K
    K_hat = (T.T @ K_all @ T).tocsr()           # CSR already: no copy
    del K_all
    if not K_hat.has_sorted_indices:            # the order of the sums in ``K_hat @ x``
        K_hat.sort_indices()
    coupling_columns = free.size + np.arange(len(couplings))
    M = None
    if with_mass:
        M = sp.block_diag([mass(b.basis, b.element_density(), b.axisymmetric) for b in bodies],
                          format="csr")
    # the mesh checks' and the assembly's temporaries, freed, are given back (:mod:`.memory`)
    return_free_memory()
    return BulkSystem(bodies=bodies, node_offset=node_offset, K=K, T=T, K_hat=K_hat,
                      dirichlet=tuple(dirichlet), couplings=tuple(couplings), loads=tuple(loads),
                      fixed=fixed, coupling_columns=coupling_columns, springs=tuple(springs), M=M,
                      ties=tuple(ties), tie_map=S, tied=tied, share=share)
