r"""Newton steps of a PFC problem through the Delassus operator of its engaged contact rows.

The Newton system of :class:`fecontact.pfc.ssn.NewtonView` is

.. math::

    M\,dv - H\,dr = -R_1, \qquad J_{21}\,dv + J_{22}\,dr = -R_2,

with ``J21 = D_u H^T`` and ``J22`` block-diagonal per contact.  The contact
rows whose ``J21`` row vanishes and that ``J22`` does not couple to the
others (an open contact's, a frictionless contact's tangential ones: set
``F``) give ``J22_FF dr_F = -R2_F`` on their own.  For the other rows
(*engaged*, set ``E``), eliminating ``dv = M^{-1}(H dr - R_1)`` leaves a
dense system of ``|E|`` rows,

.. math::

    (J_{21,E} M^{-1} H_E + J_{22,EE})\,dr_E
      = -R_{2,E} + J_{21,E}\, y, \qquad y = M^{-1}(R_1 - H_F\,dr_F),

and ``dv = M^{-1}(H dr - R_1)``.  ``M`` is factorised once (Cholesky, or LU
when it is not symmetric), the column ``M^{-1} H_j`` of a contact row is
computed by back-substitution the first time the row is engaged and kept,
and each iteration costs two more back-substitutions and the dense solve.
Unlike the finite-element ``schur`` backend, whose compliance is per DOF
that ``H`` touches (a slave node and a master facet per contact), this
needs one column per engaged contact row, the least a Newton step through
``M^{-1}`` can use.  Only the rows of the columns at the DOFs ``H`` touches
are kept (``J21`` lives there): ``|S| |E|`` numbers for ``|S|`` such DOFs.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from ..solve.factor import LU, factorize

__all__ = ["DelassusBackend"]

#: compliance columns computed per multi-right-hand-side solve
BATCH = 1024


class DelassusBackend:
    """Exact Newton steps through the Delassus operator of the engaged contacts (see the module).

    Parameters
    ----------
    view : fecontact.pfc.ssn.NewtonView

    Raises
    ------
    RuntimeError
        ``M`` cannot be factorised (singular; a problem with rigid modes).
    """

    name = "delassus"
    iterations = None

    def __init__(self, view):
        pfc = view.pfc
        if pfc.rigid_modes.shape[1]:
            raise RuntimeError("M has rigid modes: no Delassus operator")
        self.pfc, self.d = pfc, pfc.d
        self.factor = factorize(pfc.M) if pfc.symmetric else LU(pfc.M)
        self.H = pfc.H.tocsc()
        #: the DOFs ``H`` touches; ``J21`` lives on them, so only these rows of ``M^{-1} H_i`` are kept
        self.touched = np.unique(self.H.tocsr().nonzero()[0])
        self._columns: dict = {}        # contact row -> (M^{-1} H[:, row])[touched], shape (|touched|,)

    def forcing(self, status) -> float:
        """Every step is exact."""
        return 0.0

    def _compliance_columns(self, rows: np.ndarray) -> np.ndarray:
        """``(M^{-1} H[:, rows])[touched]``, shape (|touched|, |rows|); new rows in multi-RHS solves."""
        new = [int(c) for c in rows if int(c) not in self._columns]
        for start in range(0, len(new), BATCH):
            part = np.asarray(new[start:start + BATCH])
            solved = self.factor.solve(self.H[:, part].toarray())[self.touched]
            if not np.all(np.isfinite(solved)):
                raise RuntimeError("M is singular: non-finite compliance columns")
            for k, c in enumerate(part):
                self._columns[int(c)] = solved[:, k]
        if not rows.size:
            return np.zeros((self.touched.size, 0))
        return np.column_stack([self._columns[int(c)] for c in rows])

    @staticmethod
    def engaged_rows(J21: sp.csr_matrix, J22: sp.csr_matrix) -> np.ndarray:
        """The contact rows whose ``J21`` row is nonzero, with the rows ``J22`` couples to them.

        The other rows (an open contact's, a frictionless contact's
        tangential ones) then solve ``J22_FF dr_F = -R2_F`` on their own.
        """
        engaged = np.diff(J21.indptr) > 0
        coupling = sp.csr_matrix(J22 - sp.diags(J22.diagonal()))
        coupling.eliminate_zeros()
        link = (abs(coupling) + abs(coupling).T).tocsr()
        while True:
            grown = engaged | (link @ engaged.astype(float) > 0)
            if np.array_equal(grown, engaged):
                return np.flatnonzero(engaged)
            engaged = grown

    def solve(self, ev) -> np.ndarray:
        """The step ``[dv; dr]`` of ``J dx = -R``, shape (n + m d,)."""
        n = ev.n_reduced
        R1, R2 = ev.residual[:n], ev.residual[n:]
        J21, J22 = sp.csr_matrix(ev.J21), sp.csr_matrix(ev.J22)
        rows_e = self.engaged_rows(J21, J22)
        rows_f = np.setdiff1d(np.arange(R2.size), rows_e)
        dr = np.zeros(R2.size)
        if rows_f.size:                               # decoupled from the engaged rows
            dr[rows_f] = sp.linalg.spsolve(J22[rows_f][:, rows_f].tocsc(), -R2[rows_f])
        if rows_e.size:
            y = self.factor.solve(R1 - self.H[:, rows_f] @ dr[rows_f])
            C = self._compliance_columns(rows_e)                        # (|touched|, |E|)
            J21_e = J21[rows_e][:, self.touched]
            A = J21_e @ C + J22[rows_e][:, rows_e].toarray()
            dr[rows_e] = la.solve(A, -R2[rows_e] + J21_e @ y[self.touched], check_finite=False)
        dv = self.factor.solve(self.H @ dr - R1)
        return np.concatenate([dv, dr])

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``M x = rhs`` with the factorisation of ``M``."""
        return self.factor.solve(rhs)
