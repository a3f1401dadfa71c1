"""Contact pairs: a slave surface against a deformable master surface or a rigid obstacle.

:func:`pair_kinematics` runs search, projection and kinematics for one pair
and returns the result in global DOF numbering; :func:`stack` concatenates
the pairs of a problem into one batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kinematics import LocalKinematics, node_to_circle, node_to_line, node_to_segment
from .search import closest_segments
from .surface import ContactSurface
from .system import Amplitude, BulkSystem


@dataclass(frozen=True)
class RigidLine:
    """Rigid line through ``point`` with unit ``normal`` towards the slave body.

    It translates by ``displacement * amplitude(t)``.
    """

    point: np.ndarray
    normal: np.ndarray
    displacement: np.ndarray
    amplitude: Amplitude

    def position(self, t: float) -> np.ndarray:
        return np.asarray(self.point, float) + np.asarray(self.displacement, float) * self.amplitude(t)


@dataclass(frozen=True)
class RigidCircle:
    """Rigid circle (disc, or hole if ``inside``) translating by ``displacement * amplitude(t)``."""

    center: np.ndarray
    radius: float
    inside: bool
    displacement: np.ndarray
    amplitude: Amplitude

    def position(self, t: float) -> np.ndarray:
        return np.asarray(self.center, float) + np.asarray(self.displacement, float) * self.amplitude(t)


@dataclass(frozen=True)
class ContactPair:
    """One contact pair.

    Attributes
    ----------
    name : str
    slave : ContactSurface
    master : ContactSurface or RigidLine or RigidCircle
    mu : float
        Coulomb friction coefficient (0: frictionless).
    c_n, c_t : ndarray, shape (m,)
        Augmentation parameters per slave node.
    """

    name: str
    slave: ContactSurface
    master: object
    mu: float
    c_n: np.ndarray
    c_t: np.ndarray

    @property
    def n_nodes(self) -> int:
        return self.slave.nodes.size


@dataclass(frozen=True)
class PairKinematics:
    """Kinematics of a batch of contact nodes in global DOF numbering.

    Attributes
    ----------
    local : LocalKinematics
    dofs : ndarray of int, shape (m, k)
        Global DOF of each local variable; ``-1`` for padding.
    segment : ndarray of int, shape (m,)
        Master segment (``-1`` for obstacles).
    """

    local: LocalKinematics
    dofs: np.ndarray
    segment: np.ndarray


def pair_kinematics(pair: ContactPair, system: BulkSystem, x: np.ndarray, x0: np.ndarray,
                    t: float, t0: float, tangent0: np.ndarray | None = None) -> PairKinematics:
    """Search, project and evaluate kinematics for one pair.

    Parameters
    ----------
    x, x0 : ndarray, shape (dim, n_nodes)
        Current and start-of-step coordinates of all global nodes.
    t, t0 : float
        Current and start-of-step pseudo-time (for moving obstacles).
    tangent0 : ndarray, shape (m, dim), optional
        Start-of-step master tangents (slip directions against master surfaces).
    """
    slave = system.global_nodes(pair.slave.body, pair.slave.nodes)
    xs, xs0 = x[:, slave].T, x0[:, slave].T
    slave_dofs = system.node_dofs(slave)
    master = pair.master
    if isinstance(master, ContactSurface):
        ga = system.global_nodes(master.body, master.segments[0])
        gb = system.global_nodes(master.body, master.segments[1])
        proj = closest_segments(xs, x[:, ga].T, x[:, gb].T)
        a, b = ga[proj.segment], gb[proj.segment]
        local = node_to_segment(xs, x[:, a].T, x[:, b].T, xs0, x0[:, a].T, x0[:, b].T, tangent0)
        dofs = np.hstack([slave_dofs, system.node_dofs(a), system.node_dofs(b)])
        return PairKinematics(local, dofs, proj.segment)
    if isinstance(master, RigidLine):
        local = node_to_line(xs, xs0, master.position(t), master.normal, master.position(t0))
    elif isinstance(master, RigidCircle):
        local = node_to_circle(xs, xs0, master.position(t), master.radius,
                               master.position(t0), master.inside)
    else:
        raise TypeError(f"unknown master of pair {pair.name!r}: {type(master).__name__}")
    return PairKinematics(local, slave_dofs, np.full(slave.size, -1))


def _pad(a: np.ndarray, k: int, axes: tuple, fill=0.0) -> np.ndarray:
    width = [(0, 0)] * a.ndim
    for ax in axes:
        width[ax] = (0, k - a.shape[ax])
    return np.pad(a, width, constant_values=fill)


def stack(batches: list) -> PairKinematics:
    """Concatenate pair kinematics, padding local variables to a common ``k``."""
    if len(batches) == 1:
        return batches[0]
    k = max(b.dofs.shape[1] for b in batches)
    L = [b.local for b in batches]
    cat = np.concatenate
    local = LocalKinematics(
        gap=cat([l.gap for l in L]), slip=cat([l.slip for l in L]),
        normal=cat([l.normal for l in L]), tangent=cat([l.tangent for l in L]),
        xi=cat([l.xi for l in L]),
        d_gap=cat([_pad(l.d_gap, k, (1,)) for l in L]),
        d_slip=cat([_pad(l.d_slip, k, (2,)) for l in L]),
        h_gap=cat([_pad(l.h_gap, k, (1, 2)) for l in L]),
        h_slip=cat([_pad(l.h_slip, k, (2, 3)) for l in L]))
    dofs = cat([_pad(b.dofs, k, (1,), fill=-1) for b in batches])
    return PairKinematics(local, dofs, cat([b.segment for b in batches]))
