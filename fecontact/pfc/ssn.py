r"""The finite-element semismooth Newton solver applied to a PFC problem.

Unknowns ``x = [v, r]``.  The equations are the equilibrium ``M v - q - H r
= 0`` and, per contact, the Alart–Curnier conditions of
:func:`fecontact.friction.residual.coulomb_residual` with the gap ``u_N`` and the slip
``u_T`` of ``u = H^T v + b``,

.. math::

    r_N - \max(0, r_N - \rho_{N,i} u_N) = 0, \qquad
    r_T - P_{\mu \hat r_N}(r_T - \rho_{T,i} u_T) = 0,

the same equations, generalised Jacobian

.. math::

    J = \begin{bmatrix} M & -H \\ \partial_u C\, H^T & \partial_r C + \delta I \end{bmatrix},

:func:`fecontact.solve.newton.semismooth_newton` and linear solver backends
(:mod:`fecontact.solve.backends`) as a finite-element increment.

* **Scale.** Each contact has its own ``rho_N, rho_T``: the inverse of its
  Delassus compliances (:meth:`GlobalProblem.contact_scales`), so the
  iteration does not depend on how the unknowns are scaled.
* **Singular Jacobians.** A rank-deficient ``H`` (more contact rows than
  the bodies' motions can tell apart: a box on four corners) makes the
  reactions non-unique and the Jacobian singular wherever the contacts
  stick.  ``delta = min(DELTA_MAX, ||R|| / scale)``, the relative residual,
  is a Levenberg–Marquardt term on the contact rows (Yamashita and
  Fukushima 2001): each step is unique, ``v`` converges to the unique
  velocity and ``r`` to an admissible reaction, and ``delta -> 0`` keeps
  Newton's fast local convergence.
* **Backends.** ``auto`` uses :class:`~fecontact.pfc.delassus.DelassusBackend`
  (``M`` factorised once, by supernodal Cholesky or by LU where it is not
  symmetric; the Delassus block of the engaged contact rows), falling back
  to the finite-element ``schur`` backend (a singular ``M`` with its
  ``rigid_modes``) and to ``direct`` (sparse LU of ``J`` at every
  iteration) last.
* **Convergence.** Newton stops on its own test; the solution is reported
  converged only when the residuals of :meth:`GlobalProblem.residuals`,
  computed on the returned ``(v, r, u)``, are below the tolerance (Newton
  is continued, up to :data:`REFINEMENTS` times with a 100 times tighter
  test, when its own test passed and they are not).
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from ..friction import coulomb_residual
from ..solve.backends import make_backend
from ..solve.newton import NewtonOptions, semismooth_newton
from ..solve.problem import Evaluation
from ..solve.operators import block_diagonal
from .delassus import DelassusBackend
from .io import Solution
from .problem import GlobalProblem

#: largest Levenberg–Marquardt term added to the contact rows' own derivative
DELTA_MAX = 1e-3
#: how many times Newton is continued when its own test passed and the residuals did not
REFINEMENTS = 3
#: Newton's own relative test, as a fraction of the tolerance of the reported residuals
NEWTON_MARGIN = 1e-2


class NewtonView:
    """A :class:`GlobalProblem` with the interface the semismooth Newton method expects."""

    def __init__(self, pfc: GlobalProblem, rho_n: np.ndarray | None = None,
                 rho_t: np.ndarray | None = None, regularise: bool = True):
        self.pfc = pfc
        self.dim = pfc.d
        if rho_n is None or rho_t is None:
            rho_n, rho_t = pfc.contact_scales()
        self.c_n = np.broadcast_to(np.asarray(rho_n, dtype=float), (pfc.n_contacts,)).copy()
        self.c_t = np.broadcast_to(np.asarray(rho_t, dtype=float), (pfc.n_contacts,)).copy()
        self.regularise = regularise
        self.system = SimpleNamespace(K_hat=pfc.M, n_reduced=pfc.n, free_modes=lambda: pfc.rigid_modes,
                                      near_null_space=(pfc.near_null_space
                                                       if pfc.near_null_space.shape[1] else None))
        self.contact_dofs = np.unique(pfc.H.tocsr().nonzero()[0])
        self._HT = pfc.H.T.tocsr()
        self._scale_q = float(np.linalg.norm(pfc.q))

    @property
    def start_status(self) -> np.ndarray:
        """All contacts open at the start (Newton counts status changes from it)."""
        return np.zeros(self.pfc.n_contacts, dtype=int)

    def evaluate(self, x: np.ndarray, facet_hint=None, jacobian: bool = True) -> Evaluation:
        """Residual and Jacobian blocks of the PFC problem at ``x = (v, r)``.

        The equilibrium rows are ``M v - q - H r``; the contact rows are the
        Alart–Curnier conditions (:func:`fecontact.friction.residual.coulomb_residual`) on the
        local velocities ``u = H^T v + b`` with augmentation ``rho`` in both
        directions.

        Parameters
        ----------
        x : ndarray, shape (n + m*d,)
            Global velocities ``v`` followed by the reactions ``r``.
        facet_hint : object, optional
            Unused (a PFC problem has no contact search); for the interface
            of :func:`fecontact.solve.newton.semismooth_newton`.
        jacobian : bool
            Also the blocks ``K = M``, ``J12 = -H``, ``J21 = D_u H^T`` and
            ``J22 = D_r`` (block-diagonal generalised derivatives per contact).

        Returns
        -------
        fecontact.solve.problem.Evaluation
        """
        p, d, n = self.pfc, self.dim, self.pfc.n
        v, r = x[:n], x[n:]
        u = (self._HT @ v + p.b).reshape(-1, d)
        R = r.reshape(-1, d)
        cr = coulomb_residual(R, u[:, 0], u[:, 1:], self.c_n, self.c_t, p.mu)
        Mv, Hr = p.M @ v, p.H @ r
        scale = max(self._scale_q, float(np.linalg.norm(Mv)), float(np.linalg.norm(Hr)),
                    np.finfo(float).tiny)
        residual = np.concatenate([Mv - p.q - Hr, cr.residual.ravel()])
        ev = dict(residual=residual, n_reduced=n,
                  kinematics=None, contact=cr, u=v, force_scale=scale, contact_dofs=self.contact_dofs)
        if jacobian:
            J22 = block_diagonal(cr.d_multiplier).tocsr()
            if self.regularise:
                delta = min(DELTA_MAX, float(np.linalg.norm(residual)) / scale)
                J22 = (J22 + delta * sp.identity(J22.shape[0], format="csr")).tocsr()
            ev.update(K=p.M, J12=(-p.H).tocsc(),
                      J21=(block_diagonal(cr.d_kinematics) @ self._HT).tocsr(), J22=J22)
        return Evaluation(**ev)

    def where(self, index: int) -> str:
        """Words for unknown ``index`` of ``(v, r)``: an equilibrium row, or the normal or tangential condition of a contact (for error messages)."""
        n = self.pfc.n
        if index < n:
            return f"row {index} of the equilibrium M v = q + H r"
        i, component = divmod(index - n, self.dim)
        return f"the {'normal' if component == 0 else 'tangential'} condition of contact {i}"


def seed(pfc: GlobalProblem) -> np.ndarray:
    """Initial reactions: a negligible normal force ``1e-9 max|q|`` at contacts closed at ``v = 0``.

    At ``r = 0`` a closed contact sits on the kink of both conditions, and
    the generalised derivative treats it as sliding without friction: a
    body held by friction alone has a free mode in the first Newton
    iterate.  The seed makes such contacts stuck (as
    :meth:`fecontact.solve.problem.ContactProblem.seed_touching` does for the
    finite-element increments); the solution does not depend on it.
    """
    r = np.zeros((pfc.n_contacts, pfc.d))
    force = max(float(np.max(np.abs(pfc.q), initial=0.0)), np.finfo(float).tiny)
    r[pfc.b.reshape(-1, pfc.d)[:, 0] <= 0.0, 0] = 1e-9 * force
    return r.ravel()


def solve_ssn(pfc: GlobalProblem, tolerance: float = 1e-10, max_iterations: int = 50,
              backend: str = "auto") -> Solution:
    """Solve ``pfc`` by semismooth Newton; ``backend`` is ``auto`` or a backend's name.

    Starts from ``v = 0, r = 0`` (with :func:`seed`).  Newton's own test is
    :data:`NEWTON_MARGIN` times ``tolerance`` (its residual weighs every
    contact by its own scale; the reported ones are global).  Converged only when
    equilibrium, natural map and complementarity of the returned
    ``(v, r, u)`` are all at most ``tolerance``
    (:meth:`fecontact.pfc.problem.Residuals.converged`); otherwise
    ``reason`` gives them.
    """
    tic = time.perf_counter()
    view = NewtonView(pfc)
    x0 = np.zeros(pfc.n + pfc.b.size)
    x0[pfc.n:] = seed(pfc)
    # auto: delassus; schur where M has rigid modes; direct if M cannot be factorised or Newton
    # fails with the others (a singular M without its rigid modes)
    if backend != "auto":
        names = (backend,)
    else:
        names = ("delassus", "schur", "direct")
    for name in names:
        try:
            solver = DelassusBackend(view) if name == "delassus" else \
                make_backend(name, view, tolerance=tolerance * NEWTON_MARGIN)
        except RuntimeError:
            if name == names[-1]:
                raise
            continue
        x, iterations, result, residuals = _newton(pfc, view, solver, x0, tolerance, max_iterations)
        if residuals.converged(tolerance):
            break
    v, r = x[: pfc.n], x[pfc.n:]
    converged = residuals.converged(tolerance)
    reason = ""
    if not converged:
        reason = result.reason or f"no convergence in {iterations} iterations"
        reason = f"{reason}; {residuals.describe()}, tolerance {tolerance:g}"
    return Solution(v=v, r=r, u=pfc.local_velocity(v), residuals=residuals,
                    solver=f"ssn ({solver.name})", converged=converged, iterations=iterations,
                    seconds=time.perf_counter() - tic, reason=reason)


def _newton(pfc: GlobalProblem, view: NewtonView, solver, x0: np.ndarray, tolerance: float,
            max_iterations: int) -> tuple:
    """Newton to its own test, continued while the residuals of the result are above ``tolerance``.

    Returns
    -------
    (x, iterations, result, residuals)
    """
    x, iterations, inner = x0, 0, tolerance * NEWTON_MARGIN
    for _ in range(REFINEMENTS + 1):
        options = NewtonOptions(tolerance=inner, max_iterations=max(max_iterations - iterations, 1))
        result = semismooth_newton(view, solver, x, options)
        x, iterations = result.unknowns, iterations + int(result.iterations)
        residuals = pfc.residuals(x[: pfc.n], x[pfc.n:])
        if residuals.converged(tolerance) or not result.converged or iterations >= max_iterations:
            break
        inner = max(inner * 1e-2, 1e-16)
    return x, iterations, result, residuals
