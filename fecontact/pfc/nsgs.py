r"""Nonsmooth Gauss–Seidel (NSGS) on the Delassus problem of a PFC problem.

With ``M`` nonsingular the global velocity is eliminated,
``v = M^{-1}(q + H r)``, and the local velocities are

.. math::

    u = W r + f, \qquad W = H^T M^{-1} H, \qquad f = H^T M^{-1} q + b

(the Delassus operator ``W`` is dense, ``m d x m d``: this solver is for
small problems).  ``M`` is factorised by Cholesky when it is symmetric and
by LU when it is not (then ``W`` is not symmetric either).  A sweep
(:func:`fecontact.pfc.sweep.sweep`, compiled) visits the contacts in order
and solves each one's local problem exactly, the others' reactions fixed.

Sweeps repeat until the natural map and the complementarity residual of
:meth:`GlobalProblem.residuals` (no ``rho`` in either) are below
``tolerance`` (checked every sweep by the compiled
:func:`fecontact.pfc.sweep.contact_errors`, then once more on ``u = W r +
f`` recomputed); the equilibrium holds by construction.  The returned
solution is converged only when all residuals, computed on the returned
``(v, r, u)``, are below ``tolerance``.
"""

from __future__ import annotations

import time

import numpy as np

from ..solve.factor import LU, factorize
from .io import Solution
from .problem import GlobalProblem, PFCError
from .sweep import contact_errors, sweep

#: Largest ``m d`` for which the dense Delassus operator is formed.
MAX_ROWS = 6000
#: sweeps between recomputations of ``u = W r + f`` (the sweeps update ``u`` incrementally)
REFRESH = 16


def delassus(pfc: GlobalProblem, factor, batch: int = 256) -> tuple:
    """``(W, f)``: ``W = H^T M^{-1} H`` (dense, Fortran order) and ``f = H^T M^{-1} q + b``.

    ``W`` is symmetrised when ``M`` is symmetric (round-off only).
    """
    H = pfc.H.tocsc()
    cols = H.shape[1]
    W = np.empty((cols, cols), order="F")
    for start in range(0, cols, batch):
        block = H[:, start:start + batch].toarray()
        W[:, start:start + batch] = H.T @ factor.solve(block)
    if pfc.symmetric:
        W = np.asfortranarray(0.5 * (W + W.T))
    return W, H.T @ factor.solve(pfc.q) + pfc.b


def solve_nsgs(pfc: GlobalProblem, tolerance: float = 1e-10, max_sweeps: int = 20000,
               max_rows: int = MAX_ROWS) -> Solution:
    """Solve ``pfc`` by NSGS on its Delassus problem.

    Returns
    -------
    Solution
        ``converged`` only when equilibrium, natural map and complementarity
        of the returned ``(v, r, u)`` are all at most ``tolerance``
        (:meth:`fecontact.pfc.problem.Residuals.converged`); otherwise
        ``reason`` gives them.

    Raises
    ------
    PFCError
        ``M`` has rigid modes or cannot be factorised, or ``m d > max_rows``.
    """
    tic = time.perf_counter()
    d, m = pfc.d, pfc.n_contacts
    if pfc.rigid_modes.shape[1]:
        raise PFCError(f"NSGS needs the Delassus operator H^T M^-1 H, and M has "
                       f"{pfc.rigid_modes.shape[1]} rigid-body modes (bodies held only by contact); "
                       f"use --solver ssn")
    if m * d > max_rows:
        raise PFCError(f"NSGS forms the dense Delassus operator: {m * d} contact rows exceed the "
                       f"limit of {max_rows}; use --solver ssn")
    try:
        factor = factorize(pfc.M) if pfc.symmetric else LU(pfc.M)
        W, f = delassus(pfc, factor)
    except RuntimeError as err:
        raise PFCError(f"NSGS needs M nonsingular: {err}; use --solver ssn") from None
    mu = np.ascontiguousarray(pfc.mu, dtype=float)
    r = np.zeros(m * d)
    u = f.copy()
    setup = time.perf_counter() - tic
    scale = pfc.velocity_scale
    error, sweeps = np.inf, 0
    for sweeps in range(1, max_sweeps + 1):
        sweep(W, r, u, mu, d)
        if sweeps % REFRESH == 0:
            u = W @ r + f                               # the updates' round-off, cleared
        if max(contact_errors(r, u, mu, d, scale)) <= tolerance:
            u = W @ r + f
            error = max(pfc.contact_residuals(r, u))
            if error <= tolerance:
                break
    else:
        u = W @ r + f
        error = max(pfc.contact_residuals(r, u))
    v = factor.solve(pfc.q + pfc.H @ r)
    u = pfc.local_velocity(v)
    residuals = pfc.residuals(v, r, u)
    converged = residuals.converged(tolerance)
    reason = "" if converged else (f"after {sweeps} sweeps: {residuals.describe()}, "
                                   f"tolerance {tolerance:g}")
    return Solution(v=v, r=r, u=u, residuals=residuals, solver="nsgs", converged=converged,
                    iterations=sweeps, seconds=time.perf_counter() - tic, setup_seconds=setup,
                    reason=reason)
