r"""The bulk terms of an increment behind one small interface.

The residual of an increment is the bulk part ``R_bulk(u, t)`` with its
constant reduced matrix, minus the contact forces.  In statics the bulk part
is the elastic one,

.. math::

    R_{bulk} = T^T\big(K u - f(t)\big) - F_{coupling}(t), \qquad \text{matrix } \hat K,

and in dynamics a time step's inertia and stiffness
(:meth:`fecontact.analysis.integrators.Dynamics.step`).  Anything with
:class:`BulkTerms`' two members can be passed to
:meth:`fecontact.solve.problem.ContactProblem.evaluate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from ..bodies.system import BulkSystem
from .vectors import norm


class BulkTerms(Protocol):
    """The bulk (non-contact) part of an increment's equations.

    Attributes
    ----------
    matrix : scipy.sparse matrix, shape (n_reduced, n_reduced)
        The reduced bulk block of the Jacobian: constant, or its value at
        ``u = 0`` when the bulk also has ``tangent(u)`` (finite strain).
    """

    matrix: sp.spmatrix

    # optional: ``tangent(u) -> matrix`` when the bulk block depends on ``u`` (finite strain);
    # without it the Jacobian uses ``matrix``

    def residual(self, u: np.ndarray, t: float) -> tuple:
        """Reduced bulk residual at full displacement ``u`` (n_dofs,) and time ``t``.

        Returns
        -------
        (ndarray of shape (n_reduced,), float)
            The residual and its force scale (the norm convergence is measured against).
        """


@dataclass(frozen=True)
class StaticBulk:
    """The static bulk terms of a system: ``K_hat`` and ``T^T (K u - f(t)) - F_coupling(t)``.

    Attributes
    ----------
    system : BulkSystem
    """

    system: BulkSystem

    @property
    def matrix(self) -> sp.csc_matrix:
        """``K_hat``, the reduced stiffness (at ``u = 0`` for finite-strain bodies)."""
        return self.system.K_hat

    def tangent(self, u: np.ndarray) -> sp.csc_matrix:
        """The reduced bulk tangent at full displacement ``u``: ``K_hat``, or with finite-strain bodies
        their total Lagrangian tangent (:meth:`fecontact.bodies.system.BulkSystem.tangent_K_hat`)."""
        return self.system.tangent_K_hat(u)

    def residual(self, u: np.ndarray, t: float) -> tuple:
        """Static bulk residual (n_reduced,) and its force scale ``max(|K u|, |f|, |F_coupling|)``."""
        sysm = self.system
        internal, external = sysm.internal_force(u), sysm.external_force(t)
        coupling = sysm.coupling_force(t)
        scale = max(norm(internal), norm(external), norm(coupling), 1e-300)
        return sysm.T.T @ (internal - external) - coupling, scale
