r"""Per-pair results of a state: resultant contact force and moment, contact area, peak pressure.

For pair ``P`` with slave nodes ``i``, lumped nodal areas ``A_i`` (lengths in
2D), tractions ``t_i = lam_n,i n_i + lam_t,i . tau_i`` exerted by the master
on the slave (:meth:`fecontact.solve.state.StepState.traction`) and current
positions ``x_i = X_i + u_i``,

.. math::

    F_P = \sum_i A_i t_i, \qquad M_P = \sum_i x_i \times A_i t_i, \qquad
    A_P = \sum_{i\ \text{closed}} A_i, \qquad p_{max} = \max_i \lambda_{n,i},

with the moment about the origin (its z-component in 2D).  ``F_P`` is the
force the master puts on the slave body; by equilibrium it balances the
support reactions and loads of a body held by that contact alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..friction import closed, status_counts
from ..solve.problem import ContactProblem
from ..solve.state import StepState


@dataclass(frozen=True)
class PairResult:
    """Resultants of one contact pair.

    Attributes
    ----------
    name : str
        The pair's name.
    force : ndarray, shape (dim,)
        Resultant contact force on the slave surface, ``sum_i A_i t_i``.
    moment : ndarray, shape (3,)
        Its moment about the origin, ``sum_i x_i x A_i t_i`` (in 2D only the
        z-component is non-zero).
    area : float
        Contact area of the closed nodes (contact length per unit thickness in 2D).
    max_pressure : float
        Largest normal traction ``lam_n``.
    open, stick, slip : int
        Numbers of slave nodes of each :class:`~fecontact.friction.status.Status`.
    """

    name: str
    force: np.ndarray
    moment: np.ndarray
    area: float
    max_pressure: float
    open: int
    stick: int
    slip: int

    def as_dict(self) -> dict:
        """The entry of ``summary.json``'s ``pairs`` list (lists of floats, ints)."""
        return {"name": self.name, "force": [float(v) for v in self.force],
                "moment": [float(v) for v in self.moment], "area": float(self.area),
                "max_pressure": float(self.max_pressure), "open": self.open,
                "stick": self.stick, "slip": self.slip}


def pair_results(problem: ContactProblem, state: StepState) -> tuple:
    """The :class:`PairResult` of every pair of ``problem`` at ``state``, in pair order.

    Parameters
    ----------
    problem : ContactProblem
    state : StepState

    Returns
    -------
    tuple of PairResult
    """
    sysm = problem.system
    x = problem.coordinates(state.u)                                   # (dim, n_nodes)
    force_density = problem.area[:, None] * state.traction()           # (m, dim)
    out = []
    for pair, s in zip(problem.pairs, problem.slices):
        nodes = sysm.global_nodes(pair.slave.body, pair.slave.nodes)
        f = force_density[s]
        pos3 = np.zeros((f.shape[0], 3))
        pos3[:, :problem.dim] = x[:, nodes].T
        f3 = np.zeros_like(pos3)
        f3[:, :problem.dim] = f
        counts = status_counts(state.status[s])
        in_contact = closed(state.status[s])
        out.append(PairResult(
            name=pair.name, force=f.sum(axis=0), moment=np.cross(pos3, f3).sum(axis=0),
            area=float(problem.area[s][in_contact].sum()),
            max_pressure=float(np.max(state.multiplier[s, 0], initial=0.0)),
            open=counts.open, stick=counts.stick, slip=counts.slip))
    return tuple(out)
