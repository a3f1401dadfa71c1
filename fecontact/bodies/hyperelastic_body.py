"""One body in finite strain: its internal force, tangent and stored energy at a displacement.

:class:`~fecontact.bodies.system.BulkSystem` keeps one
:class:`HyperelasticBody` per body of a hyperelastic material and replaces
that body's linear terms (``K u``, ``K``, ``u K u / 2``) by these.  P1
triangles and tetrahedra use the quadrature-free assembly of
:mod:`fecontact.bodies.p1_finite_strain`; other elements the scikit-fem forms
of :mod:`fecontact.bodies.finite_strain`.

A Newton iteration asks for the force at an iterate and then (for a full
step) the tangent at the same iterate; line-search trials ask for the force
alone.  So the force is computed from the stress ``P`` only, and the tangent
call evaluates ``P`` and its derivative together; each result is kept for its
displacement (one entry, keyed on the array's bytes) and served again at the
same iterate.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import axisymmetric as ring
from . import finite_strain
from .p1_finite_strain import P1Simplices

__all__ = ["HyperelasticBody"]


class HyperelasticBody:
    """Finite-strain terms of one body of a single hyperelastic material.

    Parameters
    ----------
    body : fecontact.bodies.body.ElasticBody
    material : Hyperelastic

    Notes
    -----
    Displacements ``w`` are in the body's own DOF numbering, shape
    ``(n_dofs of the body,)``.  Returned arrays are shared with the cache:
    do not modify them.
    """

    def __init__(self, body, material):
        self.body = body
        self.material = material
        self._p1 = (P1Simplices(body.mesh.p, body.mesh.t)
                    if body.is_linear_simplex and not body.axisymmetric else None)
        # scikit-fem forms: in the (r, z) plane with the hoop terms, or as they stand
        self._forms = ring if body.axisymmetric else finite_strain
        self._force = (None, None)          # (key, f)
        self._tangent = (None, None)        # (key, K)

    def force(self, w: np.ndarray) -> np.ndarray:
        """``f_int(w)``, shape (n,)."""
        key = w.tobytes()
        if self._force[0] != key:
            f = (self._p1.force(self.material, w) if self._p1 is not None
                 else self._forms.internal_force(self.body.basis, self.material, w))
            self._force = (key, f)
        return self._force[1]

    def tangent(self, w: np.ndarray) -> sp.csr_matrix:
        """``K(w) = d f_int / d w``, shape (n, n)."""
        key = w.tobytes()
        if self._tangent[0] != key:
            if self._p1 is not None:
                f, K = self._p1.force_and_tangent(self.material, w)
                self._force = (key, f)
            else:
                K = self._forms.tangent_stiffness(self.body.basis, self.material, w)
            self._tangent = (key, K)
        return self._tangent[1]

    def energy(self, w: np.ndarray) -> float:
        """Stored energy ``int W(F) dV`` over the reference configuration."""
        if self._p1 is not None:
            W = self.material.energy(self._p1.deformation_gradients(w))
            return float(np.sum(W * self._p1.measures))
        return self._forms.strain_energy(self.body.basis, self.material, w)
