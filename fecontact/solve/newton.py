r"""Semismooth Newton method with a backtracking line search.

Iterates ``x <- x + alpha dx`` with ``J dx = -R`` (generalised Jacobian) and
``alpha`` from Armijo backtracking on the merit ``phi = |R|^2 / 2``.  When no
trial step decreases ``phi`` (a kink of the non-smooth residual), the full
step is taken: semismooth Newton converges locally without globalisation.

Converged when both the equilibrium residual and the complementarity residual
(weighted by nodal areas, so both are forces) are below ``tolerance`` times
the force scale :func:`force_scale`: the physical forces
``max(|K u|, |f(t)|, |F_coupling(t)|)`` of the bulk terms, or the rounding
bound of the bulk force ``gamma_k || |K_hat| |u_hat| ||`` (:class:`RoundingBound`) divided by the
tolerance when that is larger (a body that moves without stress).

Newton works on an *increment* (:class:`fecontact.solve.problem.Increment`, or
anything with ``evaluate(x, facet_hint=None, jacobian=True)``, ``where(row)``
and ``start_status``) and carries the facet hysteresis of the contact search
itself: every evaluation gets the master facets of the one before it as its
hint (the first one the caller's ``facet_hint``: a retry of a failed
increment continues from the facets its failed attempt ended on).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from ..friction import status_counts
from .vectors import dot, norm

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewtonOptions:
    """Options of the semismooth Newton solver.

    Attributes
    ----------
    tolerance : float
        Relative tolerance on both residuals.
    max_iterations : int
    max_backtracks : int
        Halvings tried by the line search.
    armijo : float
        Sufficient-decrease constant.

    Examples
    --------
    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, fc.Coulomb(0.3))])
    >>> result = model.solve(newton=fc.NewtonOptions(tolerance=1e-10, max_iterations=20))
    >>> result.converged, result.records[-1].newton_iterations <= 20
    (True, True)
    """

    tolerance: float = 1e-9
    max_iterations: int = 30
    max_backtracks: int = 6
    armijo: float = 1e-4

    def __post_init__(self):
        if not (np.isfinite(self.tolerance) and 0.0 < self.tolerance < 1.0):
            raise ValueError(f"tolerance must lie between 0 and 1, got {self.tolerance!r}")
        for key, low in (("max_iterations", 1), ("max_backtracks", 0)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{key} must be a whole number >= {low}, got {value!r}")
        if not (np.isfinite(self.armijo) and 0.0 < self.armijo < 1.0):
            raise ValueError(f"armijo must lie between 0 and 1, got {self.armijo!r}")


@dataclass(frozen=True)
class IterationRecord:
    """One Newton iteration as reported to the user."""

    iteration: int
    equilibrium: float
    complementarity: float
    open: int
    stick: int
    slip: int
    changed: int
    step_length: float

    def as_dict(self) -> dict:
        """The record as a JSON-ready dict (field names as keys)."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class NewtonResult:
    """Outcome of one Newton solve.

    Attributes
    ----------
    unknowns : ndarray
        Last iterate ``[u_hat, lam]``.
    converged : bool
    iterations : int
    residual : float
        Largest relative residual at the last iterate.
    history : tuple of IterationRecord
    reason : str
        Why it failed ("" when converged).
    evaluation : Evaluation
        The evaluation at the last iterate.
    seconds_linear, seconds_contact : float
        Time in the linear solves and in the evaluations.
    """

    unknowns: np.ndarray
    converged: bool
    iterations: int
    residual: float
    history: tuple = field(default=())
    reason: str = ""
    evaluation: object = field(default=None, repr=False)
    seconds_linear: float = 0.0
    seconds_contact: float = 0.0


def _facets(ev) -> np.ndarray | None:
    """The master facets of an evaluation (the hint for the next one), if it has kinematics."""
    return None if ev.kinematics is None else ev.kinematics.facet


@dataclass(frozen=True)
class RoundingBound:
    r"""Bound on the rounding error of the bulk force ``K_hat u_hat``: ``gamma_k || |K_hat| |u_hat| ||``.

    A sparse product is a dot product of at most ``k`` terms per row, ``k``
    the largest number of nonzeros in a row, and its computed value differs
    from the exact one by at most ``gamma_k (|K_hat| |u_hat|)_i`` with
    ``gamma_k = k eps / (1 - k eps)`` (Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., §3.5).  No residual of the equilibrium
    rows is known more accurately than this.

    ``|K_hat|`` is not kept: each call forms it block by block of about
    :data:`BLOCK_ENTRIES` entries (rows of a CSR matrix, columns of a CSC
    one), so the bound costs no copy of the matrix's values (0.31 kB per
    unknown in 3D).

    Attributes
    ----------
    matrix : scipy.sparse matrix, shape (n, n)
        The bulk block of the Jacobian (``K_hat``, or a time step's effective stiffness),
        CSR or CSC.
    gamma : float
        ``gamma_k``.
    """

    matrix: object = field(repr=False)
    gamma: float
    share: object = None

    @classmethod
    def of(cls, matrix, share=None) -> "RoundingBound":
        """The bound for the bulk matrix ``matrix`` (scipy.sparse, square).

        ``share`` (:class:`fecontact.bodies.share.ElementShare`): ``matrix``
        is this rank's partial sum, and ``|K_hat| |u_hat|`` is bounded by the
        sum over the ranks of ``|K_r| |u_hat|``, the same on every rank.
        """
        compressed = matrix if sp.isspmatrix_csr(matrix) or sp.isspmatrix_csc(matrix) \
            else sp.csr_matrix(matrix)
        per_row = np.bincount(compressed.indices, minlength=compressed.shape[0]) \
            if sp.isspmatrix_csc(compressed) else np.diff(compressed.indptr)
        k = int(np.max(per_row, initial=1))
        eps = np.finfo(float).eps
        if share is not None:                   # partial rows: the longest on any rank
            k = share.largest(k)
        return cls(matrix=compressed, gamma=k * eps / (1.0 - k * eps), share=share)

    def __call__(self, u_hat: np.ndarray) -> float:
        """``gamma_k || |K_hat| |u_hat| ||_2`` (a force) at the reduced displacements ``u_hat`` (n,)."""
        m = self.matrix
        au = np.abs(u_hat)
        ptr = m.indptr
        n_major = ptr.size - 1
        csr = sp.isspmatrix_csr(m)
        bound = np.empty(m.shape[0]) if csr else np.zeros(m.shape[0])
        step = max(1, int(n_major * BLOCK_ENTRIES / max(m.nnz, 1)))
        for lo in range(0, n_major, step):
            hi = min(lo + step, n_major)
            a, b = ptr[lo], ptr[hi]
            if csr:                              # rows lo:hi
                block = sp.csr_matrix((np.abs(m.data[a:b]), m.indices[a:b], ptr[lo:hi + 1] - a),
                                      shape=(hi - lo, m.shape[1]))
                bound[lo:hi] = block @ au
            else:                                # columns lo:hi
                block = sp.csc_matrix((np.abs(m.data[a:b]), m.indices[a:b], ptr[lo:hi + 1] - a),
                                      shape=(m.shape[0], hi - lo))
                bound += block @ au[lo:hi]
        if self.share is not None:
            bound = self.share.total(bound)
        return self.gamma * norm(bound)


#: entries of ``|K_hat|`` formed at a time by :class:`RoundingBound`
BLOCK_ENTRIES = 1 << 20


def _share(increment, matrix):
    """The element share of the system when ``matrix`` is its partial ``K_hat`` (else None)."""
    problem = getattr(increment, "problem", None)
    system = getattr(problem, "system", None)
    share = getattr(system, "share", None)
    return share if share is not None and matrix is system.K_hat else None


def _stress_free_reach(increment, x0: np.ndarray) -> float:
    """How far a body may move without stress in this increment: the largest prescribed
    displacement at its end and the largest displacement it starts from.

    The rounding bound is taken at displacements clipped to this reach, so that a
    body the loads push away without equilibrium (Newton's iterates growing without
    bound) cannot inflate the force scale and pass as converged.
    """
    problem = getattr(increment, "problem", None)
    if problem is None:
        return np.inf
    prescribed = problem.system.prescribed(increment.t)
    n_red = problem.system.n_reduced
    start = np.abs(problem.unknowns(increment.state)[:n_red]) if increment.state is not None \
        else np.zeros(0)
    return float(max(np.max(np.abs(prescribed), initial=0.0), np.max(start, initial=0.0),
                     np.max(np.abs(x0[:n_red]), initial=0.0)))


def force_scale(ev, bound: float, tolerance: float) -> float:
    r"""The force the residuals of an evaluation are measured against.

    ``max(s, b / tolerance)`` with ``s`` the physical force scale of the bulk
    terms (``ev.force_scale``: internal, external and coupling forces, and
    in dynamics the inertial ones) and ``b`` the :class:`RoundingBound` of
    the bulk force.  While a body moves without stress (an initial gap being
    closed, a lift-off) ``s`` is itself round-off and the relative residual
    stays near 1; ``b`` does not collapse with the stress, since it is the
    stiffness times the displacement.  In a stressed state ``b / tolerance``
    is far below ``s`` and the test is the relative one.

    Parameters
    ----------
    ev : Evaluation
    bound : float
        The :class:`RoundingBound` at the evaluation's unknowns.
    tolerance : float
        The relative tolerance.

    Returns
    -------
    float
    """
    return max(ev.force_scale, bound / tolerance)


def decoupled_multipliers(ev) -> sp.csr_matrix | None:
    r"""The stuck tangential directions whose slip no free displacement changes, as ``J22`` terms.

    At a stuck node the Alart–Curnier rows are ``C_t = lam_t - (lam_t - c_t Delta s)``:
    ``dC_t/dlam_t = 0`` and ``dC_t/du = c_t B_t T`` (Coulomb; rate laws add
    ``-F_s B_t T``).  When the slave node and the master points it projects on
    are held by supports so that some tangential direction ``w`` of its slip
    cannot change (``w^T B_t T = 0``: a node on a symmetry plane met by a
    coincident master node held the same way, a clamped corner), the row
    ``w^T C_t`` is empty, and the multiplier ``w^T lam_t`` enters no
    equilibrium row either (its column ``-T^T B_t^T A w`` is zero): the
    supports carry that traction and the Newton matrix is singular, although
    the residual of the row is zero.  Adding ``s w w^T`` to the node's block
    of ``J22`` (``s`` the scale of ``J12``) keeps that multiplier component
    where it is (its residual is zero), inside the cone, and leaves every
    other row of the step unchanged.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (m*dim, m*dim), or None
        The terms to add to ``J22``; None when there are none.
    """
    if ev.J22 is None or ev.J22.shape[0] == 0 or ev.contact is None:
        return None
    m, d = ev.contact.residual.shape
    if d < 2:
        return None
    J21 = ev.J21.tocsr()
    J22 = abs(ev.J22).tocsr()
    empty22 = np.asarray(J22.sum(axis=1)).ravel() == 0.0
    tangential = np.ones((m, d), dtype=bool)
    tangential[:, 0] = False
    candidate = np.all(empty22.reshape(m, d)[:, 1:], axis=1)      # stuck: tangential J22 rows empty
    if not candidate.any():
        return None
    rows = np.flatnonzero(np.repeat(candidate, d) & tangential.ravel())
    sub = J21[rows]
    gram = (sub @ sub.T).toarray()        # block diagonal in the nodes
    q = d - 1
    nodes = rows.size // q
    blocks = np.stack([gram[k * q:(k + 1) * q, k * q:(k + 1) * q] for k in range(nodes)])
    scale = float(np.max(np.trace(blocks, axis1=1, axis2=2), initial=0.0))
    if scale == 0.0:
        scale = 1.0
    values, vectors = np.linalg.eigh(blocks)                        # ascending
    null = values <= 1e-24 * scale
    if not null.any():
        return None
    # s sum_w w w^T over the null directions of each node
    w = vectors * null[:, None, :]
    terms = np.einsum("kiw,kjw->kij", w, w)
    s = float(np.max(np.abs(ev.J12.data), initial=0.0)) or 1.0
    r = rows.reshape(nodes, q)
    ii = np.repeat(r, q, axis=1).ravel()
    jj = np.tile(r, (1, q)).ravel()
    keep = np.abs(terms.ravel()) > 0.0
    n = ev.J22.shape[0]
    return sp.csr_matrix((s * terms.ravel()[keep], (ii[keep], jj[keep])), shape=(n, n))


def _pinned(ev):
    """The evaluation with :func:`decoupled_multipliers` added to ``J22`` (itself when there are none)."""
    terms = decoupled_multipliers(ev)
    if terms is None or terms.nnz == 0:
        return ev
    return replace(ev, J22=(ev.J22 + terms).tocsr())


def semismooth_newton(increment, backend, x0: np.ndarray,
                      options: NewtonOptions = NewtonOptions(),
                      facet_hint: np.ndarray | None = None) -> NewtonResult:
    """Solve ``R(x) = 0`` for one increment.

    Parameters
    ----------
    increment : Increment
        The increment's equations (``evaluate``, ``where``, ``start_status``).
    backend : LinearBackend
        Linear solver (``solve(evaluation) -> dx``).
    x0 : ndarray, shape (n_reduced + m*dim,)
        Initial unknowns ``[u_hat, lam]``.
    options : NewtonOptions
    facet_hint : ndarray of int, shape (m,), optional
        Master facets to start the search hysteresis from (default: those of
        the increment's start state).
    """
    x = x0.copy()
    history = []
    t_lin = t_con = 0.0
    previous = increment.start_status
    tic = time.perf_counter()
    ev = increment.evaluate(x, facet_hint)
    hint = _facets(ev)              # the facets of the latest evaluation
    t_con += time.perf_counter() - tic

    def result(converged: bool, iterations: int, residual: float, reason: str = "") -> NewtonResult:
        return NewtonResult(unknowns=x, converged=converged, iterations=iterations,
                            residual=residual, history=tuple(history), reason=reason,
                            evaluation=ev, seconds_linear=t_lin, seconds_contact=t_con)

    def record(alpha: float) -> IterationRecord:
        return IterationRecord(iteration=it, equilibrium=eq, complementarity=comp,
                               open=counts.open, stick=counts.stick, slip=counts.slip,
                               changed=changed, step_length=alpha)

    rounding = None                 # the rounding bound of the evaluations' bulk matrix
    reach = _stress_free_reach(increment, x0)
    for it in range(options.max_iterations + 1):
        if not np.all(np.isfinite(ev.residual)):
            first = int(np.flatnonzero(~np.isfinite(ev.residual))[0])
            origin = ("in the unknowns" if not np.all(np.isfinite(x))
                      else f"at iteration {it}")
            return result(False, it, np.inf,
                          f"non-finite residual {origin}, first at {increment.where(first)}")
        if ev.K is not None and (rounding is None or rounding.matrix is not ev.K):
            rounding = RoundingBound.of(ev.K, _share(increment, ev.K))
        bound = 0.0 if ev.K is None else rounding(np.minimum(np.abs(x[: ev.n_reduced]), reach))
        scale = force_scale(ev, bound, options.tolerance)
        eq, comp = ev.equilibrium_norm / scale, ev.complementarity_norm / scale
        status = ev.contact.status
        counts = status_counts(status)
        changed = int(np.sum(status != previous))
        previous = status
        rel = max(eq, comp)
        converged = rel <= options.tolerance
        if converged or it == options.max_iterations:
            history.append(record(0.0))
            logger.info("  newton %2d  eq %.3e  comp %.3e  open/stick/slip %d/%d/%d  changed %d",
                        it, eq, comp, *counts, changed)
            if converged:
                return result(True, it, rel)
            break
        tic = time.perf_counter()
        failure = ""
        try:
            dx = backend.solve(_pinned(ev))
        except (np.linalg.LinAlgError, ValueError, RuntimeError) as err:
            dx = np.full(x.size, np.nan)
            failure = str(err)
        t_lin += time.perf_counter() - tic
        if not np.all(np.isfinite(dx)):
            first = int(np.flatnonzero(~np.isfinite(dx))[0])
            reason = (f"the Newton system could not be solved: {failure}" if failure else
                      f"singular Newton system (non-finite step, first at {increment.where(first)})")
            return result(False, it, rel, reason)
        phi0 = 0.5 * dot(ev.residual, ev.residual)
        alpha, best = 1.0, None
        tic = time.perf_counter()
        accepted = None
        for _ in range(options.max_backtracks + 1):
            # the full step is usually accepted: evaluate it with its Jacobian
            trial = increment.evaluate(x + alpha * dx, hint, jacobian=alpha == 1.0)
            hint = _facets(trial)
            phi = 0.5 * dot(trial.residual, trial.residual)
            if np.isfinite(phi) and (best is None or phi < best[1]):
                best = (alpha, phi)
            if np.isfinite(phi) and phi <= (1.0 - 2.0 * options.armijo * alpha) * phi0:
                accepted = trial
                break
            alpha *= 0.5
        else:
            alpha = best[0] if best is not None and best[1] < phi0 else 1.0
        x = x + alpha * dx
        ev = accepted if accepted is not None and accepted.has_jacobian \
            else increment.evaluate(x, hint)
        hint = _facets(ev)
        t_con += time.perf_counter() - tic
        history.append(record(alpha))
        logger.info("  newton %2d  eq %.3e  comp %.3e  open/stick/slip %d/%d/%d  changed %d  alpha %.3g",
                    it, eq, comp, *counts, changed, alpha)
    return result(False, options.max_iterations, rel,
                  f"no convergence in {options.max_iterations} iterations")
