r"""The finite-element semismooth Newton solver applied to a PFC problem.

Unknowns ``x = [v, r]``.  The equations are the equilibrium ``M v - q - H r
= 0`` and, per contact, the Alart–Curnier conditions of
:func:`fecontact.friction.residual.coulomb_residual` with the gap ``u_N`` and the slip
``u_T`` of ``u = H^T v + b``,

.. math::

    r_N - \max(0, r_N - \rho u_N) = 0, \qquad
    r_T - P_{\mu \hat r_N}(r_T - \rho u_T) = 0,

the same equations, generalised Jacobian

.. math::

    J = \begin{bmatrix} M & -H \\ \partial_u C\, H^T & \partial_r C \end{bmatrix},

:func:`fecontact.solve.newton.semismooth_newton` and linear solver backends
(:mod:`fecontact.solve.backends`) as a finite-element increment: the ``schur``
backend factorises ``M`` once and works on the compliance of the DOFs that
``H`` touches; a singular ``M`` is handled through its ``rigid_modes`` if
the file gives them, and otherwise by the ``direct`` backend (sparse LU of
``J`` at every iteration).  ``rho`` is :meth:`GlobalProblem.rho`.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from ..friction import coulomb_residual
from ..solve.backends import make_backend
from ..solve.newton import NewtonOptions, semismooth_newton
from ..solve.problem import Evaluation
from ..solve.operators import block_diagonal
from .io import Solution
from .problem import GlobalProblem


class NewtonView:
    """A :class:`GlobalProblem` with the interface the semismooth Newton method expects."""

    def __init__(self, pfc: GlobalProblem, rho: float):
        self.pfc = pfc
        self.dim = pfc.d
        self.c = np.full(pfc.n_contacts, float(rho))
        self.system = SimpleNamespace(K_hat=pfc.M, n_reduced=pfc.n, free_modes=lambda: pfc.rigid_modes)
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
        cr = coulomb_residual(R, u[:, 0], u[:, 1:], self.c, self.c, p.mu)
        Mv, Hr = p.M @ v, p.H @ r
        scale = max(self._scale_q, float(np.linalg.norm(Mv)), float(np.linalg.norm(Hr)),
                    np.finfo(float).tiny)
        ev = dict(residual=np.concatenate([Mv - p.q - Hr, cr.residual.ravel()]), n_reduced=n,
                  kinematics=None, contact=cr, u=v, force_scale=scale, contact_dofs=self.contact_dofs)
        if jacobian:
            ev.update(K=p.M, J12=(-p.H).tocsc(),
                      J21=(block_diagonal(cr.d_kinematics) @ self._HT).tocsr(),
                      J22=block_diagonal(cr.d_multiplier).tocsr())
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


def solve_ssn(pfc: GlobalProblem, tolerance: float = 1e-12, max_iterations: int = 50,
              backend: str = "auto") -> Solution:
    """Solve ``pfc`` by semismooth Newton; ``backend`` is ``auto``, ``schur`` or ``direct``.

    Starts from ``v = 0, r = 0``; converged when both residual blocks are
    below ``tolerance`` times the force scale ``max(||q||, ||M v||, ||H r||)``.
    """
    tic = time.perf_counter()
    rho = pfc.rho()
    view = NewtonView(pfc, rho)
    options = NewtonOptions(tolerance=tolerance, max_iterations=max_iterations)
    x0 = np.zeros(pfc.n + pfc.b.size)
    x0[pfc.n:] = seed(pfc)
    # auto: schur, then direct if M cannot be factorised or Newton fails with it
    # (a singular M without its rigid modes)
    names = ("schur", "direct") if backend == "auto" else (backend,)
    for name in names:
        try:
            solver = make_backend(name, view)
        except RuntimeError:
            if name == names[-1]:
                raise
            continue
        result = semismooth_newton(view, solver, x0, options)
        if result.converged:
            break
    used = solver.name
    x = result.unknowns
    v, r = x[: pfc.n], x[pfc.n:]
    return Solution(v=v, r=r, u=pfc.local_velocity(v), residuals=pfc.residuals(v, r, rho),
                    solver=f"ssn ({used})", converged=bool(result.converged),
                    iterations=int(result.iterations), seconds=time.perf_counter() - tic,
                    reason=result.reason)

