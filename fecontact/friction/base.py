r"""The friction-law contract: a vectorised return map over contact nodes.

Every law maps, per contact node,

* the trial (elastic predictor) tangential traction ``z = lam_t - c_t Delta s``,
  shape (m, q), ``q = dim - 1``;
* the augmented normal traction ``lam_hat = max(0, lam_n - c_n g_n)``, (m,);
* the slip increment ``Delta s`` of the increment, (m, q), and the time
  increment ``dt`` (slip rate ``v = Delta s / dt``);
* the start of the increment, :class:`FrictionStart`: the law's own
  per-node state and the start-of-increment normal traction ``lam_n0``
  (lagged laws).  A node that closes inside the increment has friction in
  that increment like any other: its slip is measured from its projection
  onto the master at the start of the increment (see
  :meth:`fecontact.solve.problem.ContactProblem.friction_start`);

to the tangential traction ``F`` and its generalised derivatives
``dF/dz``, ``dF/dlam_hat`` and ``dF/dDelta s`` (the last one beyond the
dependence through ``z``: rate-dependent and smooth laws), a
:class:`FrictionResponse`.  The Alart–Curnier residual is then
``C_t = lam_t - F`` (:func:`fecontact.friction.residual.alart_curnier`);
the solver uses only this interface, and the rest of the code asks a law
for its coefficients (:attr:`FrictionLaw.static`,
:attr:`FrictionLaw.kinetic`, :meth:`FrictionLaw.coefficient`) instead of
reading its fields.

Laws: :class:`~fecontact.friction.coulomb.Coulomb`,
:class:`~fecontact.friction.static_kinetic.StaticKinetic` (stick / slip /
re-stuck state machine), :class:`~fecontact.friction.velocity.VelocityDependent`
(``mu(v) = mu_k + (mu_s - mu_k) exp(-d_c |v|)``, implicit),
:class:`~fecontact.friction.ipc.SmoothIPC` (the IPC Toolkit's smooth
static-to-kinetic friction with lagged normal force).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

import numpy as np

from ..fields import validate
from .cone import coulomb_return_map


class FrictionState(IntEnum):
    """Per-node state of a friction law between increments (written as ``friction_state``).

    ``STUCK`` (0): stuck, or not in contact; ``SLIDING`` (1): slid in the
    last increment; ``RESTUCK`` (2): stuck again after sliding (the
    static/kinetic law's state machine; other laws use only the first two).
    """

    STUCK = 0
    SLIDING = 1
    RESTUCK = 2


STUCK, SLIDING, RESTUCK = FrictionState.STUCK, FrictionState.SLIDING, FrictionState.RESTUCK


@dataclass(frozen=True)
class FrictionStart:
    """What a friction law needs from the start of the increment, per node.

    Attributes
    ----------
    state : ndarray of int, shape (m,)
        The law's :class:`FrictionState` at the start of the increment.
    normal : ndarray, shape (m,)
        Normal traction ``lam_n0`` at the start (lagged laws).
    engaged : ndarray of bool, shape (m,), or None
        Optional mask: False for nodes a caller wants frictionless in this
        increment (their disk radius is 0).  None, the default and what the
        solver passes, engages every node: a node closing inside the
        increment transmits friction in it, with its slip measured from its
        predicted first contact (:mod:`fecontact.contact.closing`).
    touching : ndarray of bool, shape (m,), or None
        Whether each node touches the master at the start (closed, or gap
        ``<= 1e-9 h``); None: every node.  Only lagged laws use it: a node
        closing inside the increment has no lagged normal force yet.
    """

    state: np.ndarray
    normal: np.ndarray
    engaged: np.ndarray | None = None
    touching: np.ndarray | None = None

    def touching_mask(self) -> np.ndarray:
        """``touching`` as a boolean array of shape (m,) (all True when None)."""
        if self.touching is None:
            return np.ones(np.shape(self.state), dtype=bool)
        return np.asarray(self.touching, dtype=bool)

    def mask(self) -> np.ndarray:
        """``engaged`` as a boolean array of shape (m,) (all True when None)."""
        if self.engaged is None:
            return np.ones(np.shape(self.state), dtype=bool)
        return np.asarray(self.engaged, dtype=bool)

    def take(self, rows) -> "FrictionStart":
        """Rows ``rows`` (index array or slice) of every array."""
        return FrictionStart(self.state[rows], self.normal[rows],
                             None if self.engaged is None else self.engaged[rows],
                             None if self.touching is None else self.touching[rows])


@dataclass(frozen=True)
class FrictionResponse:
    """Result of a friction law for ``m`` nodes.

    Attributes
    ----------
    traction : ndarray, shape (m, q)
        Tangential traction ``F``.
    d_trial : ndarray, shape (m, q, q)
        ``dF/dz``.
    d_normal : ndarray, shape (m, q)
        ``dF/dlam_hat``.
    d_slip : ndarray, shape (m, q, q)
        ``dF/dDelta s`` at fixed ``z``.
    sliding : ndarray of bool, shape (m,)
        True where the node slides (the corrector is active, or the smooth
        law is beyond its static range).
    coefficient : ndarray, shape (m,)
        Friction coefficient the law used (the cone
        ``|F| <= coefficient * lam`` holds with ``lam = lam_hat``, or
        ``lam_n0`` for lagged laws).
    """

    traction: np.ndarray
    d_trial: np.ndarray
    d_normal: np.ndarray
    d_slip: np.ndarray
    sliding: np.ndarray
    coefficient: np.ndarray

    def take(self, rows) -> "FrictionResponse":
        """Rows ``rows`` (index array or slice) of every array."""
        return FrictionResponse(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})


def cone_response(trial: np.ndarray, normal: np.ndarray, mu: np.ndarray) -> FrictionResponse:
    """The Coulomb return map with per-node coefficients as a :class:`FrictionResponse`.

    Parameters
    ----------
    trial : ndarray, shape (m, q)
        Elastic predictor ``z``.
    normal : ndarray, shape (m,)
        Augmented normal traction ``lam_hat``.
    mu : ndarray, shape (m,)
        Coefficient of each node's disk (radius ``mu lam_hat``).
    """
    cone = coulomb_return_map(trial, mu * normal)
    m, q = trial.shape
    return FrictionResponse(traction=cone.traction, d_trial=cone.d_trial,
                            d_normal=cone.d_radius * mu[:, None], d_slip=np.zeros((m, q, q)),
                            sliding=cone.sliding, coefficient=mu)


class FrictionLaw(ABC):
    r"""A friction law: one vectorised return map, its coefficients and its state machine.

    Subclasses are frozen dataclasses holding the law's parameters,
    registered for case files by :func:`fecontact.friction.registry.friction_law`
    (which sets :attr:`name`) with their fields declared by
    :func:`~fecontact.friction.registry.parameter`.  They implement :meth:`return_map`, :attr:`static`, :attr:`kinetic` and
    :meth:`coefficient`; the defaults of :meth:`next_state` and
    :meth:`revise` are those of a law without a state machine: after a
    converged increment a closed node that slides is ``SLIDING`` and every
    other node ``STUCK``, and the increment is never solved again.

    Attributes
    ----------
    name : str
        Class attribute: the law's name in case files (set by the registering decorator).
    smooth : bool
        True for laws whose traction is a smooth function of the slip rate
        that lies inside the cone without a stick constraint (checked as an
        excess over the cone ``coefficient * lam_n0`` plus misalignment with
        the slip instead of by the natural map of the cone).
    lagged : bool
        True for laws that take the normal force from the start of the
        increment (one lag per increment): a node closing inside an
        increment has no friction in it, so where it first touched does not
        matter to them (no probe increment, :func:`fecontact.analysis.static.needs_probe`).

    Examples
    --------
    What the rest of the code reads of a law, and the laws case files know
    by name:

    >>> import fecontact as fc
    >>> from fecontact.friction import registry
    >>> law = fc.StaticKinetic(mu_s=0.5, mu_k=0.3)
    >>> law.name, law.static, law.kinetic, law.has_friction, law.lagged
    ('static_kinetic', 0.5, 0.3, True, False)
    >>> registry.names()
    ('coulomb', 'frictionless', 'ipc', 'static_kinetic', 'velocity')
    """

    name: ClassVar[str]
    smooth: ClassVar[bool] = False
    lagged: ClassVar[bool] = False

    def __post_init__(self):
        validate(self)          # coefficients >= 0 and finite, as the case-file schema says

    @property
    @abstractmethod
    def static(self) -> float:
        """Coefficient of breakaway ``mu_s``: the largest tangential-to-normal ratio a stuck node holds."""

    @property
    @abstractmethod
    def kinetic(self) -> float:
        """Coefficient of sliding ``mu_k`` (the reference coefficient of the pair)."""

    @property
    def has_friction(self) -> bool:
        """Whether the law can transmit any tangential traction."""
        return max(self.static, self.kinetic) > 0.0

    @abstractmethod
    def return_map(self, trial: np.ndarray, lam_hat: np.ndarray, slip: np.ndarray, dt: float,
                   start: FrictionStart) -> FrictionResponse:
        r"""Corrected tangential traction of ``m`` nodes and its generalised derivatives.

        Parameters
        ----------
        trial : ndarray, shape (m, q)
            Elastic predictor ``z = lam_t - c_t Delta s``.
        lam_hat : ndarray, shape (m,)
            Augmented normal traction ``max(0, lam_n - c_n g_n)``.
        slip : ndarray, shape (m, q)
            Slip increment ``Delta s`` along the start-of-increment tangents.
        dt : float
            Time (or pseudo-time) increment; the slip rate is ``Delta s / dt``.
        start : FrictionStart
            Law state, lagged normal traction and engagement at the start.

        Returns
        -------
        FrictionResponse
            ``F`` with ``dF/dz``, ``dF/dlam_hat``, ``dF/dDelta s``.
        """

    @abstractmethod
    def coefficient(self, sliding: np.ndarray, speed: np.ndarray) -> np.ndarray:
        """Cone coefficient the law demands at each node (used by the independent check).

        Parameters
        ----------
        sliding : ndarray of bool, shape (m,)
            Whether each node slips in the increment.
        speed : ndarray, shape (m,)
            Slip rate ``|Delta s| / dt``.

        Returns
        -------
        ndarray, shape (m,)
            For smooth laws, the bound of the coefficient over all rates.
        """

    def next_state(self, state: np.ndarray, response: FrictionResponse,
                   closed: np.ndarray) -> np.ndarray:
        """Per-node :class:`FrictionState` after a converged increment.

        Parameters
        ----------
        state : ndarray of int, shape (m,)
            State at the start of the increment.
        response : FrictionResponse
            The law's response at the converged iterate.
        closed : ndarray of bool, shape (m,)
            Nodes in contact at the end of the increment.
        """
        return np.where(closed & response.sliding, SLIDING, STUCK)

    def revise(self, state: np.ndarray, response: FrictionResponse,
               closed: np.ndarray) -> np.ndarray | None:
        """Start state to solve the increment again with, or None when it is consistent.

        Same parameters as :meth:`next_state`.
        """
        return None


class TwoCoefficientLaw(FrictionLaw):
    """A law whose dataclass fields ``mu_s`` (breakaway) and ``mu_k`` (sliding) are its coefficients.

    ``mu_k <= mu_s``: kinetic friction is at most static friction.
    """

    def __post_init__(self):
        super().__post_init__()
        if self.mu_k > self.mu_s:
            raise ValueError(f"mu_k ({self.mu_k}) must not exceed mu_s ({self.mu_s}): kinetic "
                             f"friction is at most static friction")

    @property
    def static(self) -> float:
        """``mu_s``."""
        return self.mu_s

    @property
    def kinetic(self) -> float:
        """``mu_k``."""
        return self.mu_k


def concatenate(responses: list) -> FrictionResponse:
    """One response from the responses of consecutive node batches."""
    if len(responses) == 1:
        return responses[0]
    return FrictionResponse(**{f.name: np.concatenate([getattr(r, f.name) for r in responses])
                               for f in fields(FrictionResponse)})
