r"""Per-pair results of a state: resultant contact force and moment, contact area, peak pressure.

The contact force a pair puts on the bodies is ``f = B_P^T A_P lam_P``
(the pair's rows of the kinematic operator, lumped nodal areas ``A_i`` -
lengths in 2D - and multipliers).  Its part on the slave nodes ``i`` of
the pair is the nodal force ``f_i`` (:func:`slave_forces`): for
node-to-segment contact ``f_i = A_i t_i`` with the traction
``t_i = lam_n,i n_i + lam_t,i . tau_i``
(:meth:`fecontact.solve.state.StepState.traction`), for mortar it also
holds the coupling between neighbouring slave nodes and the partial
coverage of a node by the master.  With current positions ``x_i = X_i + u_i``,

.. math::

    F_P = \sum_i f_i, \qquad M_P = \sum_i x_i \times f_i, \qquad
    A_P = \sum_{i\ \text{closed}} A_i, \qquad p_{max} = \max_i p_i,

with the moment about the origin (its z-component in 2D); the nodal
pressure ``p_i`` is the normal multiplier ``lam_n,i`` for node-to-segment
and ``f_i . n_i / A_i`` (``n_i`` the contact normal) for mortar, whose dual
multiplier is large at a node only partly covered by the master.  ``F_P`` is the force the master puts on the slave body; by
equilibrium it balances the support reactions and loads of a body held by
that contact alone.

*Axisymmetric pairs* (a slave surface of a body of revolution, ``x = (r,
z)``).  The nodal areas are the revolved ``A_i = int 2 pi r N_i ds``
(:mod:`fecontact.contact.surface`), so the nodal forces ``f_i`` are totals
over the full circumference, as the reactions are (and as Abaqus reports
them).  Reported:

- ``force``: ``(F_r, F_z) = sum_i f_i``.  ``F_z`` is the axial resultant
  of the ring, the force the master puts on the slave body along the axis.
  ``F_r = 2 pi int r t_r ds`` is the *total radial force* (the sum of the
  radial forces around the circumference, Abaqus' RF1 convention; e.g. the
  pressure of a press fit times its area), not a vector resultant: the
  radial forces of a full ring cancel.
- ``moment``: zero.  A body of revolution loaded axisymmetrically has no
  resultant moment; ``sum x_i x f_i`` in the ``(r, z)`` plane is not one.
- ``area``: the revolved contact area ``sum_i A_i = 2 pi int r ds`` of the
  closed nodes.
- ``max_pressure``: the largest normal traction (per area, as in 2D and 3D).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..friction import closed, status_counts
from ..solve.operators import kinematic_operator
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
        Resultant contact force on the slave surface, ``sum_i A_i t_i``
        (axisymmetric: the total radial and the axial force over the
        circumference, module docstring).
    moment : ndarray, shape (3,)
        Its moment about the origin, ``sum_i x_i x A_i t_i`` (in 2D only the
        z-component is non-zero; zero on axisymmetric pairs).
    area : float
        Contact area of the closed nodes (contact length per unit thickness
        in 2D, the revolved area ``2 pi int r ds`` on axisymmetric pairs).
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


def slave_forces(problem: ContactProblem, state: StepState) -> np.ndarray:
    """Contact force on every slave node of every pair, shape (m, dim).

    Node-to-segment: ``A_i t_i``, the nodal area times the traction in the
    tangent basis the state was solved in (exactly the slave node's part of
    ``B^T A lam``); on quadratic 3D slave surfaces, whose tractions live on
    the vertices, ``sum_v W_vj t_v`` on node ``j``
    (:mod:`fecontact.contact.surface`).  Mortar: the slave-node part of the pair's
    ``B_P^T A_P lam_P``, which couples neighbouring slave nodes and holds
    the partial coverage of a node by the master; its normal part is exact,
    its tangential part uses the kinematics evaluated at the state itself.
    Either way the forces of a pair sum to what the master puts on the
    slave body.

    Parameters
    ----------
    problem : ContactProblem
    state : StepState

    Returns
    -------
    ndarray, shape (m, dim)
    """
    sysm, dim = problem.system, problem.dim
    traction = state.traction()
    out = problem.area[:, None] * traction
    for pair, s in zip(problem.pairs, problem.slices):
        if pair.formulation != "mortar" and pair.slave.multiplier_map is not None:
            out[s] = pair.slave.multiplier_map.T @ out[s]
    mortar = [k for k, p in enumerate(problem.pairs) if p.formulation == "mortar"]
    if not mortar:
        return out
    with np.errstate(all="ignore"):
        kin = problem.kinematics(state.u, state.t, state)
    B = kinematic_operator(kin, sysm.n_dofs).tocsr()
    weighted = np.repeat(problem.area, dim) * state.multiplier.ravel()
    for k in mortar:
        pair, s = problem.pairs[k], problem.slices[k]
        rows = slice(s.start * dim, s.stop * dim)
        f = (B[rows].T @ weighted[rows]).reshape(-1, dim)                 # (n_nodes, dim)
        out[s] = f[sysm.global_nodes(pair.slave.body, pair.slave.nodes)]
    return out


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
    forces = slave_forces(problem, state)                              # (m, dim)
    # the normal multiplier is the nodal pressure of both formulations (mortar: dual multipliers)
    pressure = state.multiplier[:, 0]
    out = []
    for pair, s in zip(problem.pairs, problem.slices):
        nodes = sysm.global_nodes(pair.slave.body, pair.slave.nodes)
        f = forces[s]
        pos3 = np.zeros((f.shape[0], 3))
        pos3[:, :problem.dim] = x[:, nodes].T
        f3 = np.zeros_like(pos3)
        f3[:, :problem.dim] = f
        counts = status_counts(state.status[s])
        in_contact = closed(state.status[s])
        moment = np.zeros(3) if pair.slave.axisymmetric else np.cross(pos3, f3).sum(axis=0)
        out.append(PairResult(
            name=pair.name, force=f.sum(axis=0), moment=moment,
            area=float(problem.area[s][in_contact].sum()),
            max_pressure=float(np.max(pressure[s], initial=0.0)),
            open=counts.open, stick=counts.stick, slip=counts.slip))
    return tuple(out)
