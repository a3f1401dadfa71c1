r"""Mass matrices for contact dynamics: redistribution off the contact nodes, velocity projection.

Consistent mass
    ``M_ij = int rho phi_i . phi_j dx`` (scikit-fem), the default.

Redistributed mass (Khenous, Laborde & Renard 2008, as in GetFEM)
    The contact nodes carry no inertia.  Their velocity is, for the kinetic
    energy, replaced by the mean velocity of their interior neighbours
    (nodes sharing an element with them that are not contact nodes):
    ``v = Q z`` with ``Q`` the identity except on the contact nodes' rows, and

    .. math::  M_{red} = Q^T M Q,

    symmetric, positive semi-definite, zero on the contact nodes' rows and
    columns, with the total mass (and the kinetic energy of every rigid
    translation) unchanged because ``Q 1 = 1``.  Without inertia at the
    contact nodes the semi-discrete problem is well posed: an impact does not
    destroy the contact nodes' kinetic energy in one step, and the average
    acceleration scheme nearly conserves energy through impacts.

Velocity projection (with the consistent mass)
    After each step the velocity is projected, in the ``M``-norm, onto the
    velocities that keep the persistent contacts: zero normal relative
    velocity at closed nodes, zero tangential relative velocity at stuck
    nodes.  It removes the velocity oscillation (``v_{n+1} = -v_n`` at a
    node held by a position-level constraint) that makes implicit schemes
    chatter, and dissipates the kinetic energy of the constrained motion
    (an inelastic contact at the contact nodes), which the energy balance
    books as contact work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from ..solve.factor import factorize

CONTACT_MASS = ("consistent", "redistributed")


def node_adjacency(system) -> sp.csr_matrix:
    """Global DOF nodes sharing an element, shape (n_nodes, n_nodes) (boolean pattern)."""
    rows, cols = [], []
    for b, body in enumerate(system.bodies):
        nodes = _element_nodes(body) + system.node_offset[b]                 # (nbfun, nel)
        k = nodes.shape[0]
        rows.append(np.repeat(nodes, k, axis=0).ravel())
        cols.append(np.tile(nodes, (k, 1)).ravel())
    n = system.node_offset[-1]
    return sp.csr_matrix((np.ones(sum(r.size for r in rows)), (np.concatenate(rows),
                                                                np.concatenate(cols))), shape=(n, n))


def _element_nodes(body) -> np.ndarray:
    """DOF nodes of every element of a body, shape (n_nodes_per_element, n_elements).

    P1: the mesh connectivity (no basis needed); otherwise from the basis.
    """
    if body.is_linear_simplex:
        return body.mesh.t
    d = body.dim
    return body.basis.element_dofs[::d] // d


def redistribute(system, M: sp.spmatrix, contact_nodes: np.ndarray) -> sp.csr_matrix:
    """``Q^T M Q``: the mass of ``contact_nodes`` (global DOF nodes) moved to their interior neighbours.

    Raises
    ------
    ValueError
        If a contact node has no neighbour off the contact surfaces (a body
        one element thick).
    """
    d = system.dim
    n_nodes = system.node_offset[-1]
    contact = np.zeros(n_nodes, dtype=bool)
    contact[contact_nodes] = True
    adj = node_adjacency(system).tocsr()
    adj = adj[np.flatnonzero(contact)][:, np.flatnonzero(~contact)].tocoo()
    interior = np.flatnonzero(~contact)
    counts = np.bincount(adj.row, minlength=int(contact.sum()))
    if np.any(counts == 0):
        bad = np.flatnonzero(contact)[np.flatnonzero(counts == 0)[0]]
        raise ValueError(f"contact node {bad} has no neighbour off the contact surfaces; "
                         f"mass redistribution needs at least two element layers")
    rows_c = np.flatnonzero(contact)[adj.row]
    cols_c = interior[adj.col]
    weights = 1.0 / counts[adj.row]
    keep = np.flatnonzero(~contact)
    node_rows = np.concatenate([keep, rows_c])
    node_cols = np.concatenate([keep, cols_c])
    node_vals = np.concatenate([np.ones(keep.size), weights])
    Q = sp.csr_matrix((np.repeat(node_vals, d),
                       (d * np.repeat(node_rows, d) + np.tile(np.arange(d), node_rows.size),
                        d * np.repeat(node_cols, d) + np.tile(np.arange(d), node_cols.size))),
                      shape=(d * n_nodes, d * n_nodes))
    return (Q.T @ M @ Q).tocsr()


@dataclass
class MassSolver:
    """Solves with the reduced mass ``M_hat`` (factorised once) on its massive unknowns.

    Unknowns with no mass (redistributed contact nodes) get zero in
    :meth:`solve`; :attr:`singular` tells whether there are any.
    """

    M_hat: sp.csc_matrix
    massive: np.ndarray = field(init=False)
    chol: object = field(init=False, repr=False)

    def __post_init__(self):
        diag = self.M_hat.diagonal()
        self.massive = np.flatnonzero(diag > 1e-14 * max(float(diag.max(initial=0.0)), 1e-300))
        self.chol = factorize(self.M_hat[self.massive][:, self.massive]) if self.massive.size else None

    @property
    def singular(self) -> bool:
        """True when some reduced unknowns have no mass (the redistributed contact nodes)."""
        return self.massive.size < self.M_hat.shape[0]

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """Solution with the massive block of ``M_hat`` (factorised once); zero on the massless unknowns.

        Parameters
        ----------
        rhs : ndarray, shape (n_red,) or (n_red, k)
            Right-hand side(s) in reduced numbering.

        Returns
        -------
        ndarray
            Same shape as ``rhs``.
        """
        out = np.zeros_like(rhs, dtype=float)
        if self.chol is not None:
            out[self.massive] = self.chol.solve(np.ascontiguousarray(rhs[self.massive]))
        return out

    def constraint_compliance(self, G: sp.spmatrix) -> np.ndarray:
        """``G M^{-1} G^T`` with :meth:`solve`'s ``M^{-1}`` (zero on the massless unknowns).

        By half solves of the supernodal factor (``Z^T Z``, ``Z = L^{-1} P G^T``):
        sparse substitutions instead of one full solve per row of ``G``.

        Parameters
        ----------
        G : sparse matrix, shape (k, n_red)

        Returns
        -------
        ndarray, shape (k, k)
        """
        if self.chol is None:
            return np.zeros((G.shape[0], G.shape[0]))
        Gm = sp.csr_matrix(G)[:, self.massive]
        if not hasattr(self.chol, "half_solve"):
            return Gm @ self.chol.solve(Gm.T.toarray())
        Z = self.chol.half_solve(Gm.T.tocsc())
        return self.chol.inner(Z, Z)


def project_velocity(solver: MassSolver, v_hat: np.ndarray, G: sp.spmatrix,
                     target: np.ndarray) -> np.ndarray:
    r"""``M``-orthogonal projection of ``v_hat`` onto ``{G v = target}``.

    .. math::  v^* = v - M^{-1}G^T\mu,\qquad (G M^{-1} G^T)\,\mu = G v - \text{target}

    (least squares in ``mu`` when constraints are redundant).

    Parameters
    ----------
    v_hat : ndarray, shape (n_red,)
    G : sparse, shape (k, n_red)
    target : ndarray, shape (k,)
    """
    if G.shape[0] == 0:
        return v_hat
    S = solver.constraint_compliance(G)
    mu = la.lstsq(S, G @ v_hat - target, cond=1e-12)[0]
    return v_hat - solver.solve(G.T @ mu)
