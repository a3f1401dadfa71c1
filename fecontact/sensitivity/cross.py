r"""The cross terms of the adjoint: how an increment's equations depend on earlier unknowns.

Increment ``k``'s residual ``R_k`` reads ``x_{k-1}`` and ``x_{k-2}`` through
its start state (:mod:`fecontact.sensitivity.path`): only its contact terms
do, and only through the displacements of the contact nodes' stencils (a
slave node and the master nodes its rows involve) and the start pressures.
The backward sweep needs the products ``C^T a`` of these Jacobians with an
adjoint ``a``.  They are taken by central differences of the contact terms
(the contact force ``f_c = B^T A lam`` in full numbering and the contact
rows ``R_2``) with the displacements of many nodes perturbed at once:
nodes whose stencils share no slave node's stencil get one colour (a
greedy colouring of the graph ``S^T S S^T S``, ``S`` the node incidence of
the stencils), so that every row of a coloured difference comes from one
perturbed node, and the product is gathered row by row.  The cost is
``2 dim`` contact-term evaluations per colour; against a rigid obstacle the
stencils are single nodes and there are ``dim`` colours.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .path import Path, Perturbation

__all__ = ["stencil_incidence", "colouring", "cross_products"]


def stencil_incidence(problem, stencils) -> sp.csr_matrix:
    """``S``: slave node (row) x global node (column) of several stencils, shape (m, n_nodes).

    ``stencils`` are ``(dofs, row_map)`` pairs (:meth:`Path.stencil_dofs`).
    """
    m, dim = problem.n_contact, problem.dim
    n_nodes = problem.system.n_dofs // dim
    S = sp.csr_matrix((m, n_nodes))
    for dofs, row_map in stencils:
        rows = np.repeat(np.arange(m), dofs.shape[1])
        cols = dofs.ravel()
        keep = cols >= 0
        part = sp.csr_matrix((np.ones(keep.sum()), (rows[keep], cols[keep] // dim)),
                             shape=(m, n_nodes))
        if row_map is not None:
            nodes = abs(row_map).tocoo()
            mix = sp.csr_matrix((np.ones(nodes.nnz), (nodes.row // dim, nodes.col // dim)),
                                shape=(m, m))
            part = mix @ part
        S = S + part
    S = S + sp.csr_matrix((m, n_nodes))
    S.data[:] = 1.0
    return S.tocsr()


_COLOURS: dict = {}


def colouring(S: sp.csr_matrix) -> tuple:
    """Colours of the stencil nodes such that no slave node's rows see two nodes of one colour.

    Greedy, largest degree first; remembered for stencils of the same pattern.

    Returns
    -------
    (ndarray of int, ndarray of int)
        The stencil nodes, and the colour of each.
    """
    S = S.tocsr()
    S.sort_indices()
    key = (S.shape, S.indptr.tobytes(), S.indices.tobytes())
    if key in _COLOURS:
        return _COLOURS[key]
    nodes = np.flatnonzero(np.asarray(S.sum(axis=0)).ravel() > 0)
    colour = -np.ones(nodes.size, dtype=int)
    if nodes.size:
        Sc = S[:, nodes]
        reach = (Sc.T @ (S @ S.T) @ Sc).tocsr()                 # nodes that share a row of R
        indptr, indices = reach.indptr, reach.indices
        for a in np.argsort(-np.diff(indptr), kind="stable").tolist():
            taken = set(colour[indices[indptr[a]:indptr[a + 1]]].tolist())
            c = 0
            while c in taken:
                c += 1
            colour[a] = c
    if len(_COLOURS) > 64:
        _COLOURS.clear()
    _COLOURS[key] = (nodes, colour)
    return nodes, colour


def _derivative(terms, h: float, status: np.ndarray) -> tuple:
    """``d(f_c, R_2)/de`` at ``e = 0`` by the four-point central difference of ``terms(e)``.

    Four points (error ``O(h^4)``): the approach rate of a node about to
    close is steep in the displacements.  The step is divided by ten (up to
    six times) while some node's contact status at a stencil point differs
    from ``status``: a node near its stick/slip limit (or its closing) would
    otherwise be differentiated across its kink.
    """
    for _ in range(7):
        points = {e: terms(e * h) for e in (-2, -1, 1, 2)}
        if all(np.array_equal(p[2], status) for p in points.values()):
            break
        h /= 10.0
    return tuple((8.0 * (points[1][j] - points[-1][j]) - (points[2][j] - points[-2][j])) / (12.0 * h)
                 for j in range(2))


def cross_products(path: Path, problem, k: int, w_force: np.ndarray, w_rows: np.ndarray,
                   lagged: bool, closing: bool, step: float) -> tuple:
    r"""The derivatives of ``w_f . f_c + w_r . R_2`` of increment ``k`` in ``x_{k-1}`` and ``x_{k-2}``.

    With ``w_f = -T a_1`` and ``w_r = a_2`` (``a`` an adjoint of increment
    ``k``) they are ``(C_1^T a, C_2^T a)``, the products with the Jacobians of
    ``R_k``; with a quantity's weights, its own dependence on the start state.

    Parameters
    ----------
    path : Path
    problem : ContactProblem
        The run's problem.
    k : int
        The increment, ``>= 2``.
    w_force : ndarray, shape (n_dofs, q)
        Weights of the contact force ``f_c`` (full numbering).
    w_rows : ndarray, shape (m*dim, q)
        Weights of the contact rows.
    lagged : bool
        Some friction law reads the start pressure (the ``lam_{k-1}`` columns).
    closing : bool
        Some node is apart at the start of increment ``k`` (the ``x_{k-2}``
        columns, through the approach rate).
    step : float
        Displacement step of the differences (length).

    Returns
    -------
    (ndarray, ndarray or None)
        Shapes (n_x, q); the second None when ``closing`` is False.
    """
    sysm, dim = problem.system, problem.dim
    n_red = sysm.n_reduced
    a2 = w_rows
    S = stencil_incidence(problem, [path.stencil_dofs(problem, j) for j in range(max(1, k - 2), k + 1)])
    nodes, colour = colouring(S)
    reach = (S.T @ S).tocsr()
    reach.data[:] = 1.0
    q = w_rows.shape[1]
    status = path.contact_terms(problem, k)[2]

    def gather(which: str) -> np.ndarray:
        v_full = np.zeros((sysm.n_dofs, q))
        for c in range(colour.max(initial=-1) + 1):
            group = nodes[colour == c]
            for comp in range(dim):
                du = np.zeros(sysm.n_dofs)
                du[dim * group + comp] = 1.0
                d_force, d_rows = _derivative(
                    lambda e: path.contact_terms(problem, k, Perturbation(**{which: e * du})),
                    step, status)
                per_node = np.einsum("ncq,nc->nq", w_force.reshape(-1, dim, q),
                                     d_force.reshape(-1, dim))
                per_row = np.einsum("mcq,mc->mq", a2.reshape(-1, dim, q), d_rows.reshape(-1, dim))
                v_full[dim * group + comp] = reach[group] @ per_node + S[:, group].T @ per_row
        out = np.zeros((n_red + a2.shape[0], q))
        out[:n_red] = sysm.T.T @ v_full
        return out

    v_previous = gather("u_previous")
    if lagged:
        lam = path.unknowns[k - 1][n_red:].reshape(-1, dim)[:, 0]
        h = 1e-6 * max(float(np.abs(lam).max(initial=0.0)), 1e-300)
        dp = np.ones(lam.size)
        _, d_rows = _derivative(
            lambda e: path.contact_terms(problem, k, Perturbation(pressure_previous=e * dp)), h,
            status)
        d_rows = d_rows.reshape(-1, dim)
        v_lam = v_previous[n_red:].reshape(-1, dim, q)
        v_lam[:, 0] += np.einsum("mcq,mc->mq", a2.reshape(-1, dim, q), d_rows)
    v_before = gather("u_before") if closing and k >= 3 else None
    return v_previous, v_before
