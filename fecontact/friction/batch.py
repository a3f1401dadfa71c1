"""The friction laws of all contact pairs over one batch of contact nodes.

A problem's slave nodes are the concatenation of its pairs' nodes; pair
``i`` owns the rows ``slices[i]``.  :class:`FrictionBatch` applies each
pair's law to its rows and joins the results, so the residual evaluation
sees one return map over all nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import FrictionLaw, FrictionResponse, FrictionStart, concatenate
from .coulomb import Coulomb


@dataclass(frozen=True)
class FrictionBatch:
    """Friction laws of consecutive node ranges.

    Attributes
    ----------
    laws : tuple of FrictionLaw
        One law per pair.
    slices : tuple of slice
        The rows of each pair in the node batch.
    released : ndarray of bool, shape (m,), optional
        Rows that carry no tangential traction whatever their law: the
        slave nodes of a body of revolution on its axis ``r = 0``, where the
        shear traction vanishes by symmetry (their radial slip is fixed by
        the axis supports of both sides, so a stick condition there would be
        a singular row).  Their return map gives ``F = 0`` with zero
        derivatives, so the residual holds ``lam_t = 0``.
    """

    laws: tuple
    slices: tuple
    released: np.ndarray | None = None

    def __post_init__(self):
        if not self.laws:                  # no contact pair: one frictionless law on no rows
            object.__setattr__(self, "laws", (Coulomb(0.0),))
            object.__setattr__(self, "slices", (slice(0, 0),))
        for law in self.laws:
            if not isinstance(law, FrictionLaw):
                raise TypeError(f"a contact pair needs a FrictionLaw, got {type(law).__name__}")

    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        """Each pair's :meth:`FrictionLaw.return_map` on its rows, joined (shapes as there, m = all nodes);
        zero on the :attr:`released` rows."""
        response = concatenate([law.return_map(trial[s], lam_hat[s], slip[s], dt, start.take(s))
                                for law, s in zip(self.laws, self.slices)])
        if self.released is None or not self.released.any():
            return response
        keep = ~self.released
        return FrictionResponse(traction=response.traction * keep[:, None],
                                d_trial=response.d_trial * keep[:, None, None],
                                d_normal=response.d_normal * keep[:, None],
                                d_slip=response.d_slip * keep[:, None, None],
                                sliding=response.sliding & keep,
                                coefficient=response.coefficient * keep)

    def next_state(self, state: np.ndarray, response: FrictionResponse,
                   closed: np.ndarray) -> np.ndarray:
        """Each pair's :meth:`FrictionLaw.next_state` on its rows, shape (m,) of int."""
        parts = [law.next_state(state[s], response.take(s), closed[s])
                 for law, s in zip(self.laws, self.slices)]
        return np.concatenate(parts).astype(int) if parts else np.zeros(0, dtype=int)

    def revise(self, state: np.ndarray, response: FrictionResponse,
               closed: np.ndarray) -> np.ndarray | None:
        """Revised start state of all nodes (pairs without a revision keep theirs), or None."""
        parts = [law.revise(state[s], response.take(s), closed[s])
                 for law, s in zip(self.laws, self.slices)]
        if all(p is None for p in parts):
            return None
        return np.concatenate([state[s] if p is None else p for p, s in zip(parts, self.slices)])

    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """Each pair's :meth:`FrictionLaw.coefficient` on its rows, shape (m,)."""
        parts = [law.coefficient(sliding[s], speed[s]) for law, s in zip(self.laws, self.slices)]
        return np.concatenate(parts) if parts else np.zeros(0)
