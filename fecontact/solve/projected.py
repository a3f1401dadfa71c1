"""The Krylov backends (``amg``, ``factorization``): projected GMRES on the Newton system, preconditioned on the bulk stiffness."""

from __future__ import annotations

import logging

import numpy as np

from .amg import make_linear_solver, plain_krylov_solve
from .schur import contact_block, open_rows

logger = logging.getLogger(__name__)


class KrylovBackend:
    r"""Projected GMRES on the Newton system, preconditioned by one fixed approximation of ``K^{-1}``.

    See :mod:`fecontact.solve.krylov`.  ``preconditioner`` is ``"amg"`` (a
    smoothed-aggregation multigrid V-cycle: memory and time linear in the
    size, for large 3D problems) or ``"factorization"`` (the exact
    factorisation of ``K``).  Either is set up once and reused by every
    Newton iteration.  Each Newton system is solved inexactly: the
    equilibrium residual of the step is driven below
    ``max(eta |R|, floor)`` (an inexact Newton method after Eisenstat and
    Walker), with ``eta`` loose while the contact status changes and zero
    once it has settled (:meth:`forcing`), and ``floor`` a tenth of Newton's
    own tolerance, so the last step is as accurate as Newton asks; the
    contact rows are always solved exactly.

    Bodies held only by contact make ``K`` singular: use ``schur`` or ``direct``.

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, shape (n_reduced, n_reduced), optional
        The constant bulk block of ``J11`` when it is not ``K_hat`` (a time
        step's effective stiffness).
    preconditioner : {"amg", "factorization"}
        Also the backend's :attr:`name`.
    tolerance : float
        Newton's relative tolerance; steps are solved to at least a tenth of it.
    eta_max : float
        Relative tolerance of the steps taken while the contact status changes.

    Attributes
    ----------
    iterations : int
        GMRES iterations spent by all :meth:`solve` calls so far.
    matrix : sparse matrix, shape (n_reduced, n_reduced)
        The bulk matrix that is preconditioned.

    Raises
    ------
    RuntimeError
        A body is held only by contact (with ``matrix`` not given).
    """

    iterations: int

    def __init__(self, problem, matrix=None, preconditioner: str = "amg",
                 tolerance: float = 1e-9, eta_max: float = 0.1):
        self.problem = problem
        self.name = preconditioner
        self.matrix = (problem.system.K_hat if matrix is None else matrix).tocsr()
        if matrix is None and problem.system.free_modes().shape[1]:
            raise RuntimeError("a body is held only by contact (its stiffness matrix is singular)")
        self.precondition = make_linear_solver(preconditioner, self.matrix, problem.system)
        self._status = None
        self.tolerance = tolerance
        self.eta_max = eta_max
        self.iterations = 0

    def forcing(self, status: np.ndarray) -> float:
        """Relative tolerance ``eta`` of the next linear solve.

        While the contact status still changes between iterates, the step is
        provisional and ``eta_max`` is enough.  Once it has settled, what is
        left is (nearly) a linear problem that one accurate step solves: the
        step is solved to the floor (``eta = 0``).  On ``hertz3d`` this
        spends fewer Krylov iterations in all than Eisenstat and Walker's
        forcing terms, which split the last linear solve into two.

        Parameters
        ----------
        status : ndarray of int, shape (n_contact,)
            Contact status at the iterate (remembered for the next call).

        Returns
        -------
        float
            ``0.0`` or ``eta_max``.
        """
        previous, self._status = self._status, status.copy()
        settled = previous is not None and previous.shape == status.shape \
            and np.array_equal(previous, status)
        return 0.0 if settled else self.eta_max

    def solve(self, ev) -> np.ndarray:
        """The Newton step of ``J dx = -R``, inexact in the equilibrium rows (see the class).

        Parameters
        ----------
        ev : fecontact.solve.problem.Evaluation

        Returns
        -------
        ndarray, shape (n_reduced + n_multipliers,)

        Raises
        ------
        RuntimeError
            GMRES did not reach the tolerance of the step.
        """
        from .krylov import projected_solve

        n = ev.n_reduced
        norm = float(np.linalg.norm(ev.residual))
        eta = self.forcing(ev.contact.status)
        atol = max(eta * norm, 0.1 * self.tolerance * ev.force_scale)
        b1, b2 = -ev.residual[:n], -ev.residual[n:]
        J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
        trivial, dlam = open_rows(J21, J22, b2)
        b1 = b1 - J12[:, trivial] @ dlam[trivial]
        engaged = np.flatnonzero(~trivial)
        K = self.matrix
        du, dl, report = projected_solve(lambda x: K @ x, contact_block(ev), J12[:, engaged],
                                         J21[engaged], J22[engaged][:, engaged], b1, b2[engaged],
                                         self.precondition, atol)
        self.iterations += report.iterations
        logger.debug("  krylov: %d iterations, residual %.3e (target %.3e)",
                     report.iterations, report.residual, atol)
        if not report.converged:
            raise RuntimeError(f"GMRES did not reach {atol:.3e} (residual {report.residual:.3e})")
        dlam[engaged] = dl
        return np.concatenate([du, dlam])

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs``, shape (n_reduced,), from scratch with the same preconditioner and GMRES.

        See :func:`fecontact.solve.amg.plain_krylov_solve` (to a tenth of
        :attr:`tolerance` relative to ``|rhs|``).
        """
        return plain_krylov_solve(self.name, self.matrix, self.problem.system, rhs, self.tolerance)
