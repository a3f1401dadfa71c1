r"""Nested iteration: each increment solved first on a coarser model of the same bodies.

The semismooth Newton method finds the contact zone of an increment by
active-set changes, and from a poor start those converge only linearly: from
point contact, the first closed set overshoots the contact zone and every
iteration releases about half of the excess, so the Newton iterations grow
like the logarithm of the overshoot counted in slave nodes, i.e. with the
mesh (hertz2d, exact linear solves, 209k DOFs: 114, 58, 28, 14, 8, 4, 2
nodes change status in the last iterations).  Started instead from the
solution of the same increment on a mesh ``f`` times coarser, the fine
contact zone is off by about ``f`` slave nodes whatever the fine mesh, and
the fine Newton iterations no longer grow with it.

A :class:`NestedPrediction` runs a coarse model alongside the load stepping
(:func:`fecontact.analysis.static.run_steps`): before each fine increment it
solves the same increment on the coarse model from the coarse model's own
accepted state (so its friction history is its own), to the loose tolerance
:data:`TOLERANCE`, and interpolates its displacement and normal tractions to
the fine nodes (:func:`fecontact.mesh.transfer.interpolation_matrix`).  The
fine increment starts from whichever of this prediction and the stepping's
own predictor has the smaller fine residual; after
:data:`DECLINED_IN_A_ROW` predictions declined in a row it stops predicting.
The coarse state moves on when the fine increment is accepted.  A coarse increment that fails costs
its time and nothing else: the fine increment starts from its own predictor.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..mesh.transfer import interpolation_matrix
from ..solve.backends import make_backend
from ..solve.newton import NewtonOptions
from ..solve.problem import ContactProblem
from ..solve.vectors import norm
from .static import SteppingOptions, commit, solve_increment

logger = logging.getLogger(__name__)

__all__ = ["NestedPrediction", "body_interpolations", "displacement_transfer", "traction_transfer",
           "TOLERANCE", "DECLINED_IN_A_ROW"]

#: Predictions declined in a row after which a run stops making them (the stepping's own
#: predictor has become the better start, as in the later increments of a smooth load path)
DECLINED_IN_A_ROW = 2
#: Newton's relative tolerance on the coarse model: the prediction needs the contact zone and the
#: displacement to the coarse discretisation error, not the last digits
TOLERANCE = 1e-5


def _check_alike(coarse: ContactProblem, fine: ContactProblem) -> None:
    """ValueError unless the two problems have the same bodies and contact pairs."""
    cb, fb = coarse.system.bodies, fine.system.bodies
    if [b.name for b in cb] != [b.name for b in fb] or coarse.dim != fine.dim:
        raise ValueError("the coarse model must have the fine model's bodies, in the same order "
                         f"(coarse: {[b.name for b in cb]}, fine: {[b.name for b in fb]})")
    if [p.name for p in coarse.pairs] != [p.name for p in fine.pairs]:
        raise ValueError("the coarse model must have the fine model's contact pairs, in the same "
                         f"order (coarse: {[p.name for p in coarse.pairs]}, "
                         f"fine: {[p.name for p in fine.pairs]})")


def body_interpolations(coarse: ContactProblem, fine: ContactProblem) -> list:
    """Per body ``b``: the fine DOF nodes interpolated from the coarse mesh's vertices.

    Parameters
    ----------
    coarse, fine : ContactProblem
        The same bodies on two meshes.

    Returns
    -------
    list of scipy.sparse.csr_matrix, shape (fine nodes of b, coarse vertices of b)
        :func:`~fecontact.mesh.transfer.interpolation_matrix` of each body.

    Raises
    ------
    ValueError
        The problems do not have the same bodies and contact pairs.
    """
    _check_alike(coarse, fine)
    return [interpolation_matrix(cbody.mesh, fbody.node_coords)
            for cbody, fbody in zip(coarse.system.bodies, fine.system.bodies)]


def displacement_transfer(coarse: ContactProblem, fine: ContactProblem,
                          interpolations: list | None = None) -> sp.csr_matrix:
    r"""The matrix taking a coarse displacement to the fine DOF nodes, body by body.

    Each fine DOF node of body ``b`` gets the linear interpolant of the
    coarse displacement at the vertices of body ``b``'s coarse mesh
    (:func:`body_interpolations`; quadratic coarse elements contribute their
    vertex values), component by component: with global DOFs ``d k + c`` of
    node ``k`` and component ``c``, ``T[d k_f + c, d k_c + c] = P_b[k_f, k_c]``.

    Parameters
    ----------
    coarse, fine : ContactProblem
        The same bodies on two meshes.
    interpolations : list of sparse matrices, optional
        :func:`body_interpolations` of the two, when already made.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (dim * n_fine_nodes, dim * n_coarse_nodes)
    """
    if interpolations is None:
        interpolations = body_interpolations(coarse, fine)
    d = fine.dim
    rows, cols, vals = [], [], []
    for b, P in enumerate(interpolations):
        P = P.tocoo()
        r = fine.system.node_offset[b] + P.row
        c = coarse.system.node_offset[b] + P.col
        for k in range(d):
            rows.append(d * r + k)
            cols.append(d * c + k)
            vals.append(P.data)
    shape = (d * fine.system.node_offset[-1], d * coarse.system.node_offset[-1])
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=shape)


def traction_transfer(coarse: ContactProblem, fine: ContactProblem,
                      interpolations: list | None = None) -> sp.csr_matrix:
    r"""The matrix taking coarse slave-node values to the fine slave nodes of the same pair.

    Row ``i`` (fine slave node of pair ``p``) holds the interpolation weights
    of :func:`body_interpolations` restricted to pair ``p``'s coarse slave
    nodes and scaled to sum to one (a fine node on the contact surface is
    interpolated from the coarse surface it lies on); a row with no weight
    there is empty.

    Parameters
    ----------
    coarse, fine : ContactProblem
        The same bodies and pairs on two meshes.
    interpolations : list of sparse matrices, optional
        :func:`body_interpolations` of the two, when already made.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (fine.n_contact, coarse.n_contact)
    """
    if interpolations is None:
        interpolations = body_interpolations(coarse, fine)
    blocks = []
    for cpair, fpair, cs, fs in zip(coarse.pairs, fine.pairs, coarse.slices, fine.slices):
        P = interpolations[fpair.slave.body][fpair.slave.nodes]
        nodes = cpair.slave.nodes
        vertex = nodes < P.shape[1]                 # midside nodes carry no interpolation weight
        position = np.full(P.shape[1], -1)          # coarse vertex -> its row among the slave nodes
        position[nodes[vertex]] = np.flatnonzero(vertex)
        P = P.tocoo()
        keep = position[P.col] >= 0
        S = sp.csr_matrix((P.data[keep], (P.row[keep], position[P.col[keep]])),
                          shape=(fs.stop - fs.start, cs.stop - cs.start))
        total = np.asarray(S.sum(axis=1)).ravel()
        scale = np.divide(1.0, total, out=np.zeros_like(total), where=total > 0)
        blocks.append(sp.diags(scale) @ S)
    return sp.block_diag(blocks, format="csr") if blocks else sp.csr_matrix(
        (fine.n_contact, coarse.n_contact))


class NestedPrediction:
    """A coarse model run alongside the load stepping, predicting each fine increment.

    Parameters
    ----------
    fine : ContactProblem
        The problem being solved.
    coarse : ContactProblem
        The same bodies and pairs on coarser meshes.
    backend : LinearBackend
        The coarse model's linear solver.
    newton : NewtonOptions
        The fine Newton options; the coarse solve uses them with
        ``tolerance = max(newton.tolerance, TOLERANCE)``.
    stepping : SteppingOptions, optional
        For the coarse friction revisions.

    Attributes
    ----------
    seconds : float
        Time spent so far (transfer set-up, coarse increments, interpolation).
    iterations : int
        Coarse Newton iterations so far.
    used, declined, failed : int
        Increments started from the prediction; predictions not used because
        the fine predictor's residual was smaller; coarse increments that failed.
    """

    def __init__(self, fine: ContactProblem, coarse: ContactProblem, backend,
                 newton: NewtonOptions = NewtonOptions(),
                 stepping: SteppingOptions = SteppingOptions()):
        tic = time.perf_counter()
        self.fine, self.coarse, self.backend = fine, coarse, backend
        self.newton = replace(newton, tolerance=max(newton.tolerance, TOLERANCE))
        self.stepping = stepping
        interpolations = body_interpolations(coarse, fine)
        self.displacement = displacement_transfer(coarse, fine, interpolations)
        self.traction = traction_transfer(coarse, fine, interpolations)
        self.state = coarse.initial_state()
        self.pending = None
        self.used = self.declined = self.failed = self.iterations = 0
        self.declined_in_a_row = 0
        self.seconds = time.perf_counter() - tic

    @classmethod
    def of(cls, fine: ContactProblem, coarse: ContactProblem, newton: NewtonOptions = NewtonOptions(),
           stepping: SteppingOptions = SteppingOptions(), increments: int = 1) -> "NestedPrediction":
        """The prediction with the coarse model's own ``auto`` backend (its set-up in :attr:`seconds`)."""
        tic = time.perf_counter()
        backend = make_backend("auto", coarse, tolerance=max(newton.tolerance, TOLERANCE),
                               increments=increments)
        seconds = time.perf_counter() - tic
        prediction = cls(fine, coarse, backend, newton, stepping)
        prediction.seconds += seconds
        return prediction

    def summary(self) -> dict:
        """What the prediction did, for a run's summary.

        Returns
        -------
        dict
            ``coarse_dofs``, ``backend``, ``newton_iterations`` (coarse),
            ``used``, ``declined``, ``failed`` and ``seconds``.
        """
        return {"coarse_dofs": int(self.coarse.system.K_hat.shape[0]), "backend": self.backend.name,
                "newton_iterations": self.iterations, "used": self.used, "declined": self.declined,
                "failed": self.failed, "seconds": self.seconds}

    def predict(self, increment, t: float, x0: np.ndarray) -> np.ndarray:
        """The start of the fine ``increment`` to ``t``: the prediction, or ``x0`` if that is better.

        Parameters
        ----------
        increment : Increment
            The fine increment.
        t : float
            Its end pseudo-time.
        x0 : ndarray, shape (n_reduced + m * dim,)
            The stepping's own start.

        Returns
        -------
        ndarray, shape (n_reduced + m * dim,)
        """
        if self.declined_in_a_row >= DECLINED_IN_A_ROW:
            return x0
        tic = time.perf_counter()
        try:
            return self._predict(increment, t, x0)
        finally:
            self.seconds += time.perf_counter() - tic

    def _predict(self, increment, t: float, x0: np.ndarray) -> np.ndarray:
        coarse, fine = self.coarse, self.fine
        timings = {"linear_solve": 0.0, "contact": 0.0}
        result, start, spent = solve_increment(coarse.increment(t, self.state), self.backend,
                                               coarse.unknowns(self.state), self.newton,
                                               self.stepping, timings, [])
        self.iterations += spent
        self.pending = None
        if not result.converged:
            self.failed += 1
            logger.info("  nested: the coarse increment to t=%.6g failed (%s)", t, result.reason)
            return x0
        self.pending = (t, result, start)
        d = fine.dim
        u = self.displacement @ result.evaluation.u
        lam = np.zeros((fine.n_contact, d))
        lam[:, 0] = self.traction @ result.unknowns[result.evaluation.n_reduced:].reshape(-1, d)[:, 0]
        predicted = np.concatenate([fine.system.to_reduced(u - fine.system.prescribed(t)),
                                    lam.ravel()])
        own = norm(increment.evaluate(x0, jacobian=False).residual)
        nested = norm(increment.evaluate(predicted, jacobian=False).residual)
        logger.info("  nested: coarse Newton %d; fine residual %.3e from the prediction, %.3e "
                    "from the predictor", spent, nested, own)
        if nested < own:
            self.used += 1
            self.declined_in_a_row = 0
            return predicted
        self.declined += 1
        self.declined_in_a_row += 1
        if self.declined_in_a_row == DECLINED_IN_A_ROW:
            logger.info("  nested: %d predictions declined in a row; no more are made", DECLINED_IN_A_ROW)
        return x0

    def accept(self, t: float) -> None:
        """The fine increment to ``t`` was accepted: the coarse model moves on to ``t`` too."""
        if self.pending is not None and self.pending[0] == t:
            _, result, start = self.pending
            self.state = commit(self.coarse, result, t, start)
        self.pending = None
