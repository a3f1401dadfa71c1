"""Smoothed-aggregation algebraic multigrid on the bulk stiffness, with the rigid-body modes as near-null space."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .factor import factorize


def rigid_body_modes(system) -> np.ndarray:
    """All rigid-body modes (translations, rotations about the centroid) in reduced numbering.

    The near-null space that smoothed-aggregation multigrid needs for
    elasticity.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem

    Returns
    -------
    ndarray, shape (n_reduced, 3) in 2D, (n_reduced, 6) in 3D
    """
    from ..bodies.pieces import rigid_motions

    modes = rigid_motions(system.reference_coords())
    return np.column_stack([system.to_reduced(m) for m in modes.T])


#: penalty stiffness, relative to the stiffness diagonal, of :meth:`AMG.constrained`
PENALTY_PRECONDITIONER = 10.0


class AMG:
    """Smoothed-aggregation algebraic multigrid (pyamg) of a fixed SPD matrix: ``__call__`` is one V-cycle.

    The rigid-body modes are the near-null space; the setup is done once.

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
        Symmetric positive definite.
    near_null_space : ndarray, shape (n, k)
        The rigid-body modes (:func:`rigid_body_modes`).
    """

    def __init__(self, K: sp.spmatrix, near_null_space: np.ndarray):
        import pyamg

        smoother = ("gauss_seidel", {"sweep": "symmetric"})
        self.hierarchy = pyamg.smoothed_aggregation_solver(
            sp.csr_matrix(K), B=near_null_space, symmetry="symmetric",
            strength=("symmetric", {"theta": 0.0}), max_coarse=100, coarse_solver="splu",
            presmoother=smoother, postsmoother=smoother)
        self.cycle = self.hierarchy.aspreconditioner(cycle="V")
        self._base = [level.A for level in self.hierarchy.levels]
        self._diagonal = self._base[0].diagonal()

    def __call__(self, r: np.ndarray) -> np.ndarray:
        """One V-cycle applied to ``r``, shape (n,): an approximation of ``K^{-1} r``, shape (n,)."""
        return self.cycle @ r

    def constrained(self, F: sp.spmatrix, stiffness: float = PENALTY_PRECONDITIONER):
        r"""The V-cycle of ``K + F^T R F`` on the same aggregates: a preconditioner for ``K`` on ``ker F``.

        ``R`` is diagonal, ``R_r = stiffness (f_r^2 . diag K) / |f_r|^4``
        for row ``f_r`` of ``F``, so that each penalty term is ``stiffness``
        times the diagonal of ``K`` where it acts.  The prolongators are
        kept; only the level operators are updated, by the Galerkin
        products of the penalty matrix, which is supported on the
        constrained DOFs (cheap), and the coarsest level is factorised
        again.  Without it, the multigrid cycle of ``K`` would keep
        correcting the constrained DOFs that the projection then removes,
        and GMRES would need several times more iterations on the
        constrained problem than on the unconstrained one.

        Parameters
        ----------
        F : sparse, shape (c, n)
            The constraint rows (``c = 0``: the V-cycle of ``K`` itself again).
        stiffness : float

        Returns
        -------
        AMG
            ``self``, changed in place.
        """
        import pyamg

        levels = self.hierarchy.levels
        F = sp.csr_matrix(F)
        if F.shape[0] == 0:
            delta = None
        else:
            F2 = F.multiply(F)
            weight = stiffness * (F2 @ self._diagonal) / np.maximum(np.asarray(F2.sum(axis=1)).ravel(), 1e-300) ** 2
            delta = (F.T @ sp.diags(weight) @ F).tocsr()
        for i, level in enumerate(levels):
            level.A = self._base[i] if delta is None else (self._base[i] + delta).tocsr()
            if delta is not None and i + 1 < len(levels):
                delta = (level.R @ delta @ level.P).tocsr()
        self.hierarchy.coarse_solver = pyamg.multilevel.coarse_grid_solver("splu")
        return self


def make_linear_solver(name: str, K: sp.spmatrix, system, definite: bool = True):
    """A reusable approximate or exact inverse of ``K``: ``solver(rhs) -> x``.

    ``"factorization"``: sparse Cholesky (exact); ``"amg"``: one
    smoothed-aggregation V-cycle.

    Parameters
    ----------
    name : {"amg", "factorization"}
    K : sparse matrix, shape (n, n)
        Symmetric positive definite.
    system : fecontact.bodies.system.BulkSystem
        For the rigid-body modes of ``amg``.
    definite : bool
        ``False``: ``K`` is a finite-strain tangent, maybe indefinite (the
        factorisation falls back to LU; multigrid is built all the same).

    Returns
    -------
    callable, (n,) -> (n,)
    """
    if name == "amg":
        return AMG(K, rigid_body_modes(system))
    if name == "factorization":
        return factorize(K, definite).solve
    raise ValueError(f"unknown preconditioner {name!r}")


def plain_krylov_solve(name: str, K: sp.spmatrix, system, rhs: np.ndarray,
                       tolerance: float) -> np.ndarray:
    """``K x = rhs`` from scratch, as :class:`KrylovBackend` solves (a linear reference).

    Sets the preconditioner up and runs the same right-preconditioned GMRES
    to ``0.1 * tolerance * |rhs|``, the accuracy of the contact solve's last
    Newton step.

    Parameters
    ----------
    name : {"amg", "factorization"}
    K : sparse matrix, shape (n, n)
    system : fecontact.bodies.system.BulkSystem
    rhs : ndarray, shape (n,)
    tolerance : float

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    RuntimeError
        GMRES did not converge in 500 iterations.
    """
    from .krylov import gmres

    precondition = make_linear_solver(name, K, system)
    K = K.tocsr()
    x, _, converged = gmres(lambda v: K @ v, rhs, precondition,
                            0.1 * tolerance * float(np.linalg.norm(rhs)), 500)
    if not converged:
        raise RuntimeError("GMRES did not converge on the linear reference")
    return x
