"""The output levels of a run as the quantities of interest read them (:class:`Frame`, :class:`Frames`).

A frame is one level's unknowns ``x_k = (u_hat_k, lam_k)`` read with one
problem (the run's, or one made with other parameter values): its full
displacement, multipliers, kinematics on the run's facets, the kinematic
operator ``B`` and the contact force ``B^T A lam``.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import skfem

from ..bodies.body import element_types
from ..solve.operators import kinematic_operator
from .path import Path

__all__ = ["Frame", "Frames", "point_weights"]


class Frame:
    """One output level of a run, read with one problem (the run's, or one made with other values).

    Parameters
    ----------
    problem : ContactProblem
    path : Path
    k : int
        The increment that ends at the level.
    """

    def __init__(self, problem, path: Path, k: int):
        self.problem, self.path, self.k = problem, path, k
        self.system = problem.system
        self.n_reduced = problem.system.n_reduced
        self.t = path.time(k)
        self.x = path.unknowns[k]

    @cached_property
    def u(self) -> np.ndarray:
        """Full displacement, shape (n_dofs,)."""
        return self.path.displacement(self.problem, self.k)

    @cached_property
    def lam(self) -> np.ndarray:
        """Multipliers ``(lam_n, lam_t)``, shape (m, dim)."""
        return self.x[self.n_reduced:].reshape(-1, self.problem.dim)

    @cached_property
    def kinematics(self):
        """Kinematics of the level (its increment's start state and facets)."""
        return self.problem.kinematics(self.u, self.t, self.path.start_state(self.problem, self.k),
                                       self.path.states[self.k].facet)

    @cached_property
    def B(self):
        """The kinematic operator ``B``, shape (m*dim, n_dofs)."""
        return kinematic_operator(self.kinematics, self.system.n_dofs)

    def zeros(self) -> np.ndarray:
        """A gradient with respect to ``x_k``, zero, shape (n_reduced + m*dim,)."""
        return np.zeros(self.x.size)

    def from_full(self, g_u: np.ndarray, g_lam: np.ndarray | None = None) -> np.ndarray:
        """The gradient in ``x_k`` of one given in the full displacement (and the multipliers)."""
        g = self.zeros()
        g[:self.n_reduced] = self.system.T.T @ g_u
        if g_lam is not None:
            g[self.n_reduced:] = g_lam
        return g

    def contact_force(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``B^T A lam`` (nodal areas), of the contact nodes ``rows`` only if given, shape (n_dofs,)."""
        weights = self.problem.area[:, None] * self.lam
        if rows is not None:
            weights = np.where(rows[:, None], weights, 0.0)
        return self.B.T @ weights.ravel()

    def tangent_times(self, v: np.ndarray) -> np.ndarray:
        """``(d f_int / d u) v`` at this level's displacement (full numbering, symmetric tangent)."""
        sysm = self.system
        out = sysm.bulk_force(v)
        for spring in sysm.springs:
            out[spring.dofs] += spring.stiffness * spring.mean(v) * spring.weights
        if sysm.hyperelastic:
            w = sysm._without_translations(self.u)     # noqa: SLF001 (the force's own shift)
            for b, body in sysm.hyperelastic.items():
                dofs = sysm.body_dofs(b)
                out[dofs] += body.tangent(w[dofs]) @ v[dofs] - sysm.K[dofs, dofs] @ v[dofs]
        return out


class Frames:
    """The output levels of a run read with one problem: level -> :class:`Frame` (made when first read).

    Parameters
    ----------
    problem : ContactProblem
    path : Path
    ends : sequence of int
        The increment that ends each output level.
    """

    def __init__(self, problem, path: Path, ends):
        self.problem, self.path, self.ends = problem, path, tuple(ends)
        self._frames: dict = {}

    @property
    def n_levels(self) -> int:
        """Number of output levels."""
        return len(self.ends)

    def resolve(self, step: int) -> int:
        """The level index of ``step`` (``-1``: the last), else an IndexError naming it."""
        try:
            return range(self.n_levels)[step]
        except (IndexError, TypeError):
            raise IndexError(f"step {step!r} is not an output level of the run "
                             f"({self.n_levels} levels)") from None

    def __getitem__(self, level: int) -> Frame:
        if level not in self._frames:
            self._frames[level] = Frame(self.problem, self.path, self.ends[level])
        return self._frames[level]


def point_weights(sysm, point, body: str | None) -> tuple:
    """Node weights of the interpolation at ``point`` in a body, and the body's index."""
    x = np.asarray(point, float).reshape(-1, 1)
    if x.shape[0] != sysm.dim or not np.all(np.isfinite(x)):
        raise ValueError(f"a point needs {sysm.dim} finite coordinates, got {point!r}")
    names = [b.name for b in sysm.bodies]
    if body is not None and body not in names:
        raise KeyError(f"no body {body!r}; the model has {', '.join(names)}")
    for b, part in enumerate(sysm.bodies):
        if body is not None and part.name != body:
            continue
        scalar = skfem.Basis(part.geometry, element_types(part.element, sysm.dim)[1]())
        weights = _probe_weights(scalar, part.mesh, x)
        if weights is None:
            continue
        if weights.size == part.n_nodes and np.isclose(weights.sum(), 1.0):
            return weights, b
    raise ValueError(f"the point {tuple(x.ravel())} lies in no element of "
                     f"{'body ' + repr(body) if body else 'any body'}")


def _probe_weights(basis, mesh, x: np.ndarray) -> np.ndarray | None:
    """Interpolation weights at ``x``, or None outside the mesh.

    A point outside by at most ``1e-6`` of the mesh's size (on a boundary a
    shape parameter moves) is taken at its nearest element, nudged that far
    towards the element's centre.
    """
    for attempt in range(2):
        try:
            return np.asarray(basis.probes(x).todense()).ravel()
        except (ValueError, IndexError):
            if attempt:
                return None
            centres = mesh.p[:, mesh.t].mean(axis=1)
            i = int(np.argmin(np.linalg.norm(centres - x, axis=0)))
            size = float(np.linalg.norm(mesh.p.max(axis=1) - mesh.p.min(axis=1)))
            towards = centres[:, i:i + 1] - x
            x = x + towards * min(1.0, 1e-6 * size / max(float(np.linalg.norm(towards)), 1e-300))
    return None
