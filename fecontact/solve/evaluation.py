"""One evaluation of the contact problem: residual and generalised Jacobian blocks at a Newton iterate.

:class:`Evaluation` is what :meth:`fecontact.solve.problem.ContactProblem.evaluate`
returns and every linear backend solves with; :func:`contact_jacobian`
assembles its contact blocks from the rows ``B T`` of the kinematic operator
with as few sparse products as the blocks need (one for ``J21``, two for the
geometric stiffness; ``J12`` is ``(B T)^T`` scaled, ``J22`` block diagonal).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..contact.pairs import PairKinematics
from ..friction import ContactResidual
from .vectors import norm

__all__ = ["Evaluation", "contact_jacobian", "scaled_block_diagonal"]


@dataclass(frozen=True)
class Evaluation:
    """Residual and (optionally) Jacobian blocks at one Newton iterate.

    The displacement block ``J11 = K + D`` is kept in two parts: ``K``, the
    constant bulk matrix (``K_hat``, or a time step's effective stiffness),
    never copied, and ``D``, the geometric stiffness of contact, sparse and
    supported on the contact DOFs only.  Backends that reuse a factorisation
    or a preconditioner of ``K`` need only ``D``; assembling ``K + D`` at
    every iteration would cost a copy of the bulk matrix.
    """

    residual: np.ndarray
    n_reduced: int
    kinematics: PairKinematics = field(repr=False)
    contact: ContactResidual = field(repr=False)
    u: np.ndarray = field(repr=False)
    force_scale: float = 1.0
    K: sp.spmatrix | None = field(default=None, repr=False)
    D: sp.spmatrix | None = field(default=None, repr=False)
    J12: sp.spmatrix | None = field(default=None, repr=False)
    J21: sp.spmatrix | None = field(default=None, repr=False)
    J22: sp.spmatrix | None = field(default=None, repr=False)
    contact_dofs: np.ndarray | None = field(default=None, repr=False)

    @property
    def equilibrium_norm(self) -> float:
        """``|R_1|``, the norm of the equilibrium rows."""
        return norm(self.residual[: self.n_reduced])

    @property
    def complementarity_norm(self) -> float:
        """``|R_2|``, the norm of the (area-weighted) contact rows."""
        return norm(self.residual[self.n_reduced:])

    @property
    def has_jacobian(self) -> bool:
        """Whether the Jacobian blocks were assembled."""
        return self.J12 is not None

    @property
    def J11(self) -> sp.spmatrix:
        """``K + D``: the constant bulk matrix plus the contact part (the whole block, assembled)."""
        return self.K if self.D is None or self.D.nnz == 0 else (self.K + self.D).tocsc()

    def jacobian(self) -> sp.csc_matrix:
        """The whole generalised Jacobian as one sparse matrix."""
        return sp.bmat([[self.J11, self.J12], [self.J21, self.J22]], format="csc")


def scaled_block_diagonal(blocks: np.ndarray, rows: np.ndarray) -> sp.csr_matrix:
    """``diag(rows) @ block_diagonal(blocks)`` built directly in CSR (every block entry stored, zeros dropped).

    Parameters
    ----------
    blocks : ndarray, shape (m, p, q)
    rows : ndarray, shape (m*p,)
        The row scales.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (m*p, m*q)
    """
    m, p, q = blocks.shape
    data = (blocks * rows.reshape(m, p, 1)).ravel()
    indices = (np.arange(m)[:, None, None] * q + np.arange(q)[None, None, :]).repeat(p, axis=1).ravel()
    matrix = sp.csr_matrix((data, indices, np.arange(0, m * p * q + 1, q)), shape=(m * p, m * q))
    matrix.eliminate_zeros()
    return matrix


def contact_jacobian(BT: sp.csr_matrix, A: np.ndarray, cr: ContactResidual, G: sp.csr_matrix,
                     T: sp.csr_matrix, Tt: sp.csr_matrix) -> dict:
    r"""The contact blocks of the generalised Jacobian.

    ``D = -T^T G T``, ``J12 = -(B T)^T A``, ``J21 = A\,\partial_{(g,s)}C\,B T`` and
    ``J22 = A\,\partial_\lambda C``, without explicit zeros, in the formats
    the backends take (CSR, CSC for ``J12``).

    Parameters
    ----------
    BT : scipy.sparse.csr_matrix, shape (m*d, n_reduced)
        The kinematic operator times the reduction, ``B T``.
    A : ndarray, shape (m*d,)
        The row scales.
    cr : ContactResidual
        Its ``d_kinematics`` and ``d_multiplier``, shape (m, d, d).
    G : scipy.sparse matrix, shape (n_dofs, n_dofs)
        The geometric stiffness of contact.
    T, Tt : scipy.sparse.csr_matrix
        The reduction ``T`` (n_dofs, n_reduced) and its transpose.

    Returns
    -------
    dict
        ``D``, ``J12``, ``J21``, ``J22``.
    """
    D = -(Tt @ G @ T).tocsr()
    D.eliminate_zeros()
    BT.sort_indices()
    scaled = BT.data * np.repeat(A, np.diff(BT.indptr))
    J12 = sp.csc_matrix((-scaled, BT.indices, BT.indptr), shape=BT.shape[::-1])
    J12.eliminate_zeros()
    J21 = (scaled_block_diagonal(cr.d_kinematics, A) @ BT).tocsr()
    return dict(D=D, J12=J12, J21=J21, J22=scaled_block_diagonal(cr.d_multiplier, A))
