r"""Carrying a body's interior along with its prescribed boundary motion (a step predictor).

An increment starts from the last state with the prescribed displacements
``u_D`` already at the new level, so the interior of a body lags its moved
boundary.  For linear elasticity this costs nothing: Newton's first
iteration is linear in that jump.  In finite deformation a large jump of the
boundary relative to the interior (a body turned by ten degrees, a die
pushed by several element sizes) can invert the elements next to the
boundary, and the residual is then not even defined (``ln J`` of a negative
``J``).  The lift moves the interior by the linear-elastic response to the
part of the boundary motion the step predictor did not anticipate,

.. math::

    \hat K\,\delta\hat u = -T^T K\,\big(u_D(t_{n+1}) - u_D^{pred}\big),

with ``K`` the bulk stiffness at ``u = 0``, ``T`` the map from reduced to full
unknowns and ``u_D^{pred}`` the prescribed values the predictor already
carries (``u_D(t_n)``, or their linear extrapolation when the increment's
start is extrapolated from the previous one: then a steady motion needs no
lift and a change of direction gets one).  Contact is not part of the lift;
Newton's iterations restore it.  A rigid motion of the boundary is lifted to
the same (linearised) rigid motion of the interior.
"""

from __future__ import annotations

import numpy as np

from ..solve.backends import KRYLOV_BACKENDS
from ..solve.factor import factorize, pinned_stiffness

__all__ = ["PrescribedLift"]


class PrescribedLift:
    """Lifts prescribed-displacement increments into the interior (bodies in finite strain).

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    backend : LinearBackend
        Its ``reference_solve`` (``K_hat x = rhs``) is used by Krylov
        backends, which keep a preconditioner of ``K_hat``; the others get one
        sparse Cholesky factorisation of ``K_hat`` (rigid-body modes pinned),
        made at the first lift and reused.
    """

    def __init__(self, problem, backend):
        self.system = problem.system
        self.backend = backend
        self._factor = None

    def _solve(self, rhs: np.ndarray) -> np.ndarray:
        if getattr(self.backend, "name", "") in KRYLOV_BACKENDS:
            return self.backend.reference_solve(rhs)
        if self._factor is None:
            self._factor = factorize(pinned_stiffness(self.system)[0])
        return self._factor.solve(rhs)

    def __call__(self, unknowns: np.ndarray, t: float, t_new: float,
                 t_previous: float | None = None) -> np.ndarray:
        """The increment's start ``[u_hat, lam]`` with the interior carried along.

        Parameters
        ----------
        unknowns : ndarray, shape (n_reduced + m*dim,)
            The predicted start (from the state at ``t``, extrapolated from
            ``t_previous`` when given).
        t, t_new : float
            Start and end of the increment.
        t_previous : float, optional
            Start of the previous increment when ``unknowns`` is extrapolated
            from it.

        Returns
        -------
        ndarray, shape (n_reduced + m*dim,)
            ``unknowns`` itself when the prescribed values move as predicted.
        """
        sysm = self.system
        now = sysm.prescribed(t)
        predicted = now
        if t_previous is not None and t > t_previous:
            predicted = now + (t_new - t) / (t - t_previous) * (now - sysm.prescribed(t_previous))
        target = sysm.prescribed(t_new)
        jump = target - predicted
        scale = np.max(np.abs(target), initial=0.0)
        if not np.any(np.abs(jump) > 1e-12 * max(scale, 1e-300)):
            return unknowns
        lifted = unknowns.copy()
        lifted[:sysm.n_reduced] -= self._solve(sysm.T.T @ sysm.bulk_force(jump))
        return lifted
