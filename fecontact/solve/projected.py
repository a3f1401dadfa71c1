"""The Krylov backends (``amg``, ``factorization``): projected GMRES on the Newton system, preconditioned on the bulk stiffness."""

from __future__ import annotations

import logging

import numpy as np

from .amg import make_linear_solver, plain_krylov_solve
from .krylov import LaggedSetup, projected_solve
from .schur import contact_block, open_rows
from .vectors import norm

logger = logging.getLogger(__name__)

#: finite strain: rebuild the preconditioner when GMRES needs this many times the iterations per
#: decade of its first solve (see the class)
REFRESH = 2.0
#: The contact status counts as settled when this many steps in a row left it unchanged: a loose
#: step can leave it unchanged while the next accurate one still moves a few nodes, and an accurate
#: solve spent before that is spent twice
SETTLED = 2


def engaged_system(ev) -> tuple:
    """The Newton system of an iterate with the open multipliers eliminated.

    The rows of multipliers that do not depend on ``u`` and are diagonal
    (open nodes) give their steps directly (:func:`fecontact.solve.schur.open_rows`);
    what is left are the blocks of :func:`fecontact.solve.krylov.projected_solve`.

    Parameters
    ----------
    ev : fecontact.solve.problem.Evaluation

    Returns
    -------
    blocks : tuple
        ``(D, E, F, G, b1, b2)``: the geometric stiffness of contact, shape
        (n, n); the engaged columns of ``J12``, rows of ``J21`` and block of
        ``J22``; the equilibrium right-hand side less the open steps'
        share, shape (n,); the engaged rows of ``-R_2``.
    dlam : ndarray, shape (m,)
        The multiplier step, filled on the open rows.
    engaged : ndarray of int
        The other rows, whose steps the blocks give.
    """
    n = ev.n_reduced
    b1, b2 = -ev.residual[:n], -ev.residual[n:]
    J12, J21, J22 = ev.J12.tocsc(), ev.J21.tocsr(), ev.J22.tocsr()
    trivial, dlam = open_rows(J21, J22, b2)
    b1 = b1 - J12[:, trivial] @ dlam[trivial]
    engaged = np.flatnonzero(~trivial)
    blocks = (contact_block(ev), J12[:, engaged], J21[engaged], J22[engaged][:, engaged],
              b1, b2[engaged])
    return blocks, dlam, engaged


class SettlingForcing:
    """The forcing term of inexact Newton steps: loose while the contact status changes, exact after.

    While the contact status still changes between iterates, the step is
    provisional and ``eta_max`` is enough.  Once it has settled (the same
    over :data:`SETTLED` steps in a row), what is left is (nearly) a
    linear problem that one accurate step solves: the step is solved to
    the floor (``eta = 0``).  Eisenstat and Walker's forcing terms would
    split that last linear solve into two.

    Parameters
    ----------
    eta_max : float
    """

    def __init__(self, eta_max: float):
        self.eta_max = eta_max
        self._status = None
        self._same = 0

    def __call__(self, status: np.ndarray) -> float:
        """``eta`` for the step at an iterate of contact status ``status`` (remembered), float."""
        previous, self._status = self._status, status.copy()
        same = previous is not None and previous.shape == status.shape \
            and np.array_equal(previous, status)
        self._same = self._same + 1 if same else 0
        return 0.0 if self._same >= SETTLED else self.eta_max


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

    With bodies in finite strain the bulk block is the tangent ``K(u)`` of
    each iterate (``ev.K``; in a time step the effective matrix with the
    tangent): GMRES runs on the current tangent, so every step is an inexact
    Newton step of the true Jacobian with the tolerances above (``eta``
    relative to the equilibrium rows' residual alone: at a first iterate the
    contact rows can be so much larger that ``eta |R|`` would leave the
    equilibrium unsolved, and Newton would need several more iterations),
    while the preconditioner, built from ``K_hat`` at first, is rebuilt from
    the current tangent only when it has stopped being good
    (:class:`~fecontact.solve.krylov.LaggedSetup`: the iterations per decade
    grow beyond ``refresh`` times those of its first solve, or GMRES fails,
    which is then retried once with the new one).

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
    refresh : float
        Finite strain: allowed growth of GMRES iterations per decade before
        the preconditioner is rebuilt from the current tangent.

    Attributes
    ----------
    iterations : int
        GMRES iterations spent by all :meth:`solve` calls so far.
    matrix : sparse matrix, shape (n_reduced, n_reduced)
        The bulk matrix of the linear reference (``K_hat`` or ``matrix``).
    varies : bool
        Whether the bulk block is the tangent of each iterate (finite strain).
    lagged : LaggedSetup
        When the preconditioner is rebuilt (``lagged.rebuilds``: how often).

    Raises
    ------
    RuntimeError
        A body is held only by contact (with ``matrix`` not given).
    """

    iterations: int

    def __init__(self, problem, matrix=None, preconditioner: str = "amg",
                 tolerance: float = 1e-9, eta_max: float = 0.1, refresh: float = REFRESH):
        self.problem = problem
        self.name = preconditioner
        bulk = problem.system.K_hat if matrix is None else matrix
        # K @ x is the same to the last bit from CSR and CSC (each row summed in column order):
        # no CSR copy of K_hat is kept here (the multigrid makes its own)
        self.matrix = bulk if bulk.format in ("csr", "csc") else bulk.tocsr()
        if matrix is None and problem.system.free_modes().shape[1]:
            raise RuntimeError("a body is held only by contact (its stiffness matrix is singular)")
        self.precondition = make_linear_solver(preconditioner, self.matrix, problem.system)
        self._setup_of_matrix = True            # until a tangent replaces it (finite strain)
        self.varies = bool(getattr(problem.system, "finite_strain", ()))
        self.lagged = LaggedSetup(refresh)
        self._forcing = SettlingForcing(eta_max)
        self.tolerance = tolerance
        self.eta_max = eta_max
        self.iterations = 0

    def forcing(self, status: np.ndarray) -> float:
        """Relative tolerance ``eta`` of the next linear solve (:class:`SettlingForcing`).

        Parameters
        ----------
        status : ndarray of int, shape (n_contact,)
            Contact status at the iterate (remembered for the next call).

        Returns
        -------
        float
            ``0.0`` or ``eta_max``.
        """
        return self._forcing(status)

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
        n = ev.n_reduced
        # finite strain: the loose tolerance relative to the equilibrium rows alone (those GMRES
        # solves); a first iterate's contact rows can be far larger and leave them unsolved
        size = norm(ev.residual[:n] if self.varies else ev.residual)
        eta = self.forcing(ev.contact.status)
        atol = max(eta * size, 0.1 * self.tolerance * ev.force_scale)
        blocks, dlam, engaged = engaged_system(ev)
        b1 = blocks[4]
        K = ev.K.tocsr() if self.varies and ev.K is not None else self.matrix
        if self.varies and self.lagged.stale:
            self._rebuild(K)
        du, dl, report = projected_solve(lambda x: K @ x, *blocks, self.precondition, atol)
        if self.varies and not report.converged and self.lagged.baseline is not None:
            self.iterations += report.iterations        # an old preconditioner: rebuild, try again
            self._rebuild(K)
            du, dl, report = projected_solve(lambda x: K @ x, *blocks, self.precondition, atol)
        self.iterations += report.iterations
        logger.debug("  krylov: %d iterations, residual %.3e (target %.3e)",
                     report.iterations, report.residual, atol)
        if not report.converged:
            raise RuntimeError(f"GMRES did not reach {atol:.3e} (residual {report.residual:.3e})")
        if self.varies:
            self.lagged.record(report.iterations, norm(b1), atol)
        dlam[engaged] = dl
        return np.concatenate([du, dlam])

    def _rebuild(self, K) -> None:
        """The preconditioner of the current tangent ``K`` (finite strain), replacing the old one."""
        self.precondition = make_linear_solver(self.name, K, self.problem.system, definite=False)
        self._setup_of_matrix = False
        self.lagged.rebuilt()
        logger.debug("  krylov: preconditioner rebuilt from the current tangent (%d so far)",
                     self.lagged.rebuilds)

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs``, shape (n_reduced,), from scratch with the same preconditioner and GMRES.

        See :func:`fecontact.solve.amg.plain_krylov_solve` (to a tenth of
        :attr:`tolerance` relative to ``|rhs|``).  A multigrid set up on
        :attr:`matrix` lends its finest operator, put back to :attr:`matrix`
        (:meth:`fecontact.solve.amg.AMG.operator`): the new set-up shares it
        instead of making its own CSR copy (the same values, so the same
        set-up and products).
        """
        matrix = self.matrix
        if self._setup_of_matrix and hasattr(self.precondition, "operator"):
            matrix = self.precondition.operator()
        return plain_krylov_solve(self.name, matrix, self.problem.system, rhs, self.tolerance)
