"""Norms and dot products of long vectors on one thread.

OpenBLAS runs ``ddot`` (and so ``np.linalg.norm`` and ``x @ x`` of 1-D
arrays) on all its threads once a vector has more than 10,000 entries.  A
threaded dot product of such a vector is a few microseconds of work, but
waking the other threads costs far more than that, and on a machine whose
cores are busy it costs milliseconds (hertz2d, 12k unknowns, two cores
under load: ``np.linalg.norm`` median 13 ms, ``einsum`` 0.04 ms).  The
residual norms of every Newton evaluation are taken here instead, by
``einsum``, which sums on the calling thread (as
:func:`fecontact.solve.krylov.gmres` does).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["norm", "dot"]


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` of two vectors of shape (n,), summed on the calling thread."""
    return float(np.einsum("i,i->", a, b))


def norm(v: np.ndarray) -> float:
    """Euclidean norm of ``v``, shape (n,), summed on the calling thread."""
    return math.sqrt(dot(v, v))
