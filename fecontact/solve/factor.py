"""Sparse factorisations of the bulk stiffness: Cholesky (CHOLMOD) with an LU fallback, a supernodal Cholesky with half solves, and the stiffness with rigid-body modes pinned."""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import contextmanager

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp


class Cholesky:
    """Sparse Cholesky factorisation of a symmetric positive definite matrix (CHOLMOD via cholespy).

    ``solve`` takes one right-hand side of shape (n,) or several of shape (n, c).

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
        Symmetric positive definite.

    Raises
    ------
    RuntimeError
        CHOLMOD refuses the matrix.
    """

    def __init__(self, K: sp.spmatrix):
        from cholespy import CholeskySolverD, MatrixType

        coo = sp.coo_matrix(K)
        self.n = K.shape[0]
        try:
            self._solver = CholeskySolverD(self.n, coo.row.astype(np.int32),
                                           coo.col.astype(np.int32),
                                           coo.data.astype(np.float64), MatrixType.COO)
        except ValueError as err:
            raise RuntimeError(f"cannot factorise the stiffness matrix: {err}") from None

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs`` by forward and back substitution.

        Parameters
        ----------
        rhs : ndarray, shape (n,) or (n, c)

        Returns
        -------
        ndarray, the shape of ``rhs``

        Raises
        ------
        RuntimeError
            The solution is not finite (``K`` was not positive definite).
        """
        b = np.ascontiguousarray(rhs, dtype=np.float64)
        x = np.zeros_like(b)
        if b.ndim == 2 and b.shape[1] == 0:
            return x
        self._solver.solve(b, x)
        if not np.all(np.isfinite(x)):
            raise RuntimeError("the stiffness matrix is not positive definite")
        return x


class LU:
    """Sparse LU (SuperLU) with :class:`Cholesky`'s interface, for a tangent that is not positive definite.

    Parameters
    ----------
    K : sparse matrix, shape (n, n)

    Raises
    ------
    RuntimeError
        ``K`` is singular.
    """

    def __init__(self, K: sp.spmatrix):
        import scipy.sparse.linalg as spla

        self.n = K.shape[0]
        self._lu = spla.splu(sp.csc_matrix(K))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs``, ``rhs`` of shape (n,) or (n, c)."""
        b = np.asarray(rhs, dtype=np.float64)
        if b.ndim == 2 and b.shape[1] == 0:
            return np.zeros_like(b)
        return self._lu.solve(b)


class SupernodalCholesky:
    r"""CHOLMOD's supernodal Cholesky ``P K P^T = L L^T`` (through cvxopt), with half solves.

    The factorisation runs on dense BLAS blocks, several times faster than
    :class:`Cholesky` on 3D elasticity (measured side by side in
    docs/pfc.md).  Besides full solves it gives *half solves*
    ``Z = L^{-1} P B`` of a sparse ``B``, which exploit the sparsity of
    ``B``'s columns, so that ``B_1^T K^{-1} B_2 = Z_1^T Z_2``
    (:meth:`inner`): a Delassus operator without its full back-substitutions.

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
        Symmetric positive definite (its lower triangle is read).

    Raises
    ------
    RuntimeError
        ``K`` is not positive definite.
    """

    def __init__(self, K: sp.spmatrix):
        from cvxopt import cholmod

        lower = sp.tril(sp.coo_matrix(K)).tocoo()
        self.n = K.shape[0]
        self._cholmod = cholmod
        saved = dict(cholmod.options)
        cholmod.options["supernodal"] = 2
        try:
            with _quiet_c_output():            # CHOLMOD prints its "not positive definite" itself
                A = _to_cvxopt(lower)
                self._factor = cholmod.symbolic(A)
                cholmod.numeric(A, self._factor)
        except ArithmeticError:
            raise RuntimeError("cannot factorise the matrix: not positive definite") from None
        finally:
            cholmod.options.clear()
            cholmod.options.update(saved)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs``, ``rhs`` of shape (n,) or (n, c).

        Raises
        ------
        RuntimeError
            The solution is not finite.
        """
        from cvxopt import matrix

        b = np.asarray(rhs, dtype=np.float64)
        if b.ndim == 2 and b.shape[1] == 0:
            return np.zeros_like(b)
        x = matrix(np.asfortranarray(b.reshape(self.n, -1)))
        self._cholmod.solve(self._factor, x)
        out = np.array(x).reshape(b.shape)
        if not np.all(np.isfinite(out)):
            raise RuntimeError("the matrix is not positive definite")
        return out

    def half_solve(self, B: sp.spmatrix) -> sp.csr_matrix:
        """``Z = L^{-1} P B`` for a sparse ``B`` of shape (n, c), as a CSR matrix of shape (n, c)."""
        if B.shape[1] == 0:
            return sp.csr_matrix((self.n, 0))
        permuted = self._cholmod.spsolve(self._factor, _to_cvxopt(sp.coo_matrix(B)), sys=7)
        Z = self._cholmod.spsolve(self._factor, permuted, sys=4)
        rows, cols = np.array(Z.I).ravel(), np.array(Z.J).ravel()
        return sp.csr_matrix((np.array(Z.V).ravel(), (rows, cols)), shape=(self.n, B.shape[1]))

    @staticmethod
    def inner(Z1: sp.csr_matrix, Z2: sp.csr_matrix, dense_fraction: float = 0.05) -> np.ndarray:
        """``Z1^T Z2`` as a dense array of shape (c1, c2), for half solves ``Z1, Z2`` of :meth:`half_solve`.

        The rows of ``L^{-1}`` near the root of the elimination tree are
        nearly full: rows holding more than ``dense_fraction`` of the
        columns are multiplied as dense blocks (BLAS), the rest as sparse.
        """
        fill = np.diff(Z1.indptr) + np.diff(Z2.indptr)
        dense = fill > dense_fraction * (Z1.shape[1] + Z2.shape[1])
        out = Z1[dense].toarray().T @ Z2[dense].toarray()
        if not np.all(dense):
            out += (Z1[~dense].T @ Z2[~dense]).toarray()
        return out


def _to_cvxopt(coo: sp.coo_matrix):
    """A scipy COO matrix as a cvxopt ``spmatrix``."""
    from cvxopt import spmatrix

    return spmatrix(np.asarray(coo.data, dtype=np.float64), coo.row.astype(np.int64),
                    coo.col.astype(np.int64), size=coo.shape)


#: the factorisations :func:`factorize` makes
METHODS = ("supernodal", "simplicial")


def factorize(K: sp.spmatrix, definite: bool = True, method: str = "supernodal"):
    """Factorise a symmetric positive definite FE stiffness once for many solves.

    CHOLMOD's Cholesky is an order of magnitude faster than SuperLU on 3D
    elasticity (see docs/developer/decisions/dependencies.md).  Its
    supernodal form (:class:`SupernodalCholesky`) factorises 2-5 times faster
    than the simplicial one (:class:`Cholesky`) from 12k unknowns up, in 2D
    and 3D, and one solve costs about the same (at most 1.3 times more);
    several right-hand sides at once are 2-3 times slower with it (one
    substitution per column), which half solves avoid for sparse ones
    (measured in docs/developer/decisions/performance-47.md).

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
    definite : bool
        ``False``: a finite-strain tangent, maybe indefinite, whose Cholesky
        factorisation falls back to :class:`LU` (the tangent is checked by
        one solve).
    method : {"supernodal", "simplicial"}
        :class:`SupernodalCholesky` or :class:`Cholesky`.

    Returns
    -------
    SupernodalCholesky, Cholesky or LU
    """
    if method not in METHODS:
        raise ValueError(f"unknown factorisation {method!r}: one of {', '.join(METHODS)}")
    factor = SupernodalCholesky if method == "supernodal" else Cholesky
    if definite:
        return factor(K)
    try:
        with _quiet_c_output():         # CHOLMOD prints its "not positive definite" itself
            chol = factor(K)
            chol.solve(np.ones(K.shape[0]))
        return chol
    except RuntimeError:
        return LU(K)


@contextmanager
def _quiet_c_output():
    """Silence what compiled code prints (file descriptors 1 and 2, C buffers flushed inside)."""
    try:
        fds = [stream.fileno() for stream in (sys.stdout, sys.stderr)]
    except (AttributeError, OSError, ValueError):
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved, devnull = [os.dup(fd) for fd in fds], os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            os.dup2(devnull, fd)
        yield
    finally:
        try:
            ctypes.CDLL(None).fflush(None)       # C's buffered stdout, still to /dev/null
        except (OSError, AttributeError):
            pass
        for fd, old in zip(fds, saved):
            os.dup2(old, fd)
            os.close(old)
        os.close(devnull)


def pinned_stiffness(system) -> tuple:
    """``K_hat`` with springs on DOFs that fix its unsupported rigid-body modes.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem

    Returns
    -------
    (K, pinned, eps)
        The matrix to factorise, the pinned reduced DOFs (QR with column
        pivoting of the modes ``Z^T``, one per mode) and the spring stiffness
        (mean diagonal of ``K_hat``).  ``K = K_hat`` when every body is supported.
        When the ranks share the elements (``system.share``), ``K`` is this
        rank's partial sum and the springs are on rank 0's.
    """
    K_hat = system.K_hat
    modes = system.free_modes()
    if not modes.shape[1]:
        return K_hat, np.zeros(0, dtype=int), 0.0
    _, _, piv = la.qr(modes.T, mode="economic", pivoting=True)
    pinned = np.sort(piv[: modes.shape[1]])
    share = getattr(system, "share", None)
    diagonal = K_hat.diagonal() if share is None else share.total(K_hat.diagonal())
    eps = float(np.mean(diagonal))
    if share is not None and not share.root:     # partial sums: the springs counted once
        return K_hat, pinned, eps
    springs = sp.csc_matrix((np.full(pinned.size, eps), (pinned, pinned)), shape=K_hat.shape)
    return (K_hat + springs).tocsc(), pinned, eps


def factorized_reference_solve(system, rhs: np.ndarray) -> np.ndarray:
    """``K_hat x = rhs`` from scratch by one sparse Cholesky factorisation, rigid-body modes pinned.

    The linear reference of the backends that factorise (``direct``,
    ``schur``): bodies held only by contact get the springs of
    :func:`pinned_stiffness`.

    Parameters
    ----------
    system : fecontact.bodies.system.BulkSystem
    rhs : ndarray, shape (n_reduced,)

    Returns
    -------
    ndarray, shape (n_reduced,)
    """
    K, _, _ = pinned_stiffness(system)
    return factorize(K).solve(rhs)
