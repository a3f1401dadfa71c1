r"""Linear solver backends for the semismooth Newton step.

Both backends solve the same system ``J dx = -R`` (see
:mod:`fecontact.solve.problem`); they differ in how.

``direct``
    Sparse LU of the whole generalised Jacobian at every iteration.  Works
    for any problem, including bodies held only by contact.

``schur``
    Factorises the bulk stiffness ``K_hat`` once per problem and reuses it.
    Writing the Jacobian as ``K_hat`` plus blocks that touch only the contact
    DOFs ``S`` and the engaged multipliers,

    .. math::

        \begin{bmatrix} \hat K + P_S D P_S^T & -P_S E \\ F P_S^T & G\end{bmatrix}
        \begin{bmatrix} \delta u\\ \delta\lambda\end{bmatrix}
        = -\begin{bmatrix} R_1\\ R_2\end{bmatrix},

    ``y = P_S^T \delta u`` solves the small dense system
    ``[(I + W D), -W E; F, G] [y; dlam] = [-w_0; -R_2]`` with the contact
    compliance ``W = P_S^T K_hat^{-1} P_S`` (columns computed once per contact
    DOF by back-substitution and cached) and ``w_0 = P_S^T K_hat^{-1} R_1``;
    then ``du = K_hat^{-1}(-R_1 - P_S (D y - E dlam))``.  Multipliers whose
    rows do not depend on ``u`` and are diagonal (open nodes) are eliminated
    first.  Each iteration costs two back-substitutions and a dense solve of
    the size of the contact zone instead of a new factorisation.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.sparse.linalg as spla

from .projected import KrylovBackend
from .schur import SchurBackend

logger = logging.getLogger(__name__)


class DirectBackend:
    """Sparse LU (SuperLU) of the full Jacobian at each iteration."""

    name = "direct"

    def __init__(self, problem):
        self.problem = problem

    def solve(self, ev) -> np.ndarray:
        return spla.spsolve(ev.jacobian(), -ev.residual)


BACKENDS = {"direct": DirectBackend, "schur": SchurBackend, "amg": KrylovBackend,
            "factorization": KrylovBackend}
#: the backends that solve by projected GMRES (every body must be supported)
KRYLOV_BACKENDS = ("amg", "factorization")


#: reduced unknowns from which ``auto`` uses ``amg`` (see docs/scaling.md)
AMG_THRESHOLD = 40_000


def make_backend(name: str, problem, matrix=None, tolerance: float = 1e-9):
    """Backend by name.

    ``"auto"`` picks ``amg`` for problems of at least
    :data:`AMG_THRESHOLD` reduced unknowns whose bodies are all supported,
    and ``schur`` otherwise (smaller problems, where one factorisation and
    the cached compliance of the contact DOFs serve many load steps cheaply,
    and bodies held only by contact are handled through pinned rigid-body
    modes), falling back to ``direct`` if the regularised bulk stiffness
    still cannot be factorised.  ``matrix`` is
    the constant bulk block of the Jacobian when it is not ``K_hat``
    (dynamics); ``tolerance`` is Newton's (the Krylov backends solve to a
    tenth of it at the end).
    """
    if name not in BACKENDS and name != "auto":
        raise ValueError(f"unknown linear solver backend {name!r}; choose one of "
                         f"{', '.join(['auto', *BACKENDS])}")
    if name == "direct":
        return DirectBackend(problem)
    if name in KRYLOV_BACKENDS:
        return KrylovBackend(problem, matrix, name, tolerance)
    if name == "auto" and problem.system.n_reduced >= AMG_THRESHOLD:
        try:
            return KrylovBackend(problem, matrix, "amg", tolerance)
        except RuntimeError as err:
            logger.info("%s: not using the amg backend", err)
    try:
        return SchurBackend(problem, matrix)
    except RuntimeError as err:
        if name == "schur":
            raise
        logger.info("bulk matrix not factorisable (%s): using the direct backend", err)
        return DirectBackend(problem)
