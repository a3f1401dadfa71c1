r"""Implicit time integrators of the Newmark family and the bulk terms of one time step.

The semi-discrete equations of motion with contact,

.. math::  M\ddot u + C\dot u + K u = f(t) + B^T A\lambda,

are integrated by the generalised-α method (Chung & Hulbert 1993), which
contains Newmark's average acceleration (``alpha_m = alpha_f = 0``,
``beta = 1/4``, ``gamma = 1/2``) and HHT-α (``alpha_m = 0``) as special
cases.  With ``x_{n+1-a} = (1-a) x_{n+1} + a x_n`` the step solves

.. math::

    M a_{n+1-\alpha_m} + C v_{n+1-\alpha_f} + K u_{n+1-\alpha_f}
    = f(t_{n+1-\alpha_f}) + B^T A \lambda_{n+1},

    a_{n+1} = \frac{u_{n+1} - u_n - \Delta t\, v_n}{\beta\Delta t^2}
              - \Big(\frac{1}{2\beta} - 1\Big) a_n,\qquad
    v_{n+1} = v_n + \Delta t\big((1-\gamma) a_n + \gamma a_{n+1}\big)

for ``u_{n+1}`` and the contact tractions ``lambda_{n+1}``.  The contact
force is not split between the two ends of the step: the contact conditions
hold at ``t_{n+1}`` (the traction is the step's mean force).  The bulk block
of the Newton matrix is the constant effective stiffness

.. math::  \hat K_{eff} = \frac{1-\alpha_m}{\beta\Delta t^2}\hat M
           + \frac{\gamma(1-\alpha_f)}{\beta\Delta t}\hat C + (1-\alpha_f)\hat K,

factorised once per time-step size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..bodies.system import BulkSystem

INTEGRATORS = ("newmark", "hht", "generalized_alpha")


@dataclass(frozen=True)
class Integrator:
    """Parameters of a generalised-α integrator.

    Attributes
    ----------
    name : str
    beta, gamma : float
        Newmark parameters.
    alpha_m, alpha_f : float
        Weights of the start of the step in the inertia and in the other forces.
    """

    name: str
    beta: float
    gamma: float
    alpha_m: float = 0.0
    alpha_f: float = 0.0

    @staticmethod
    def newmark() -> "Integrator":
        """Average acceleration (trapezoidal rule): second order, no numerical dissipation."""
        return Integrator("newmark", 0.25, 0.5)

    @staticmethod
    def hht(rho_inf: float) -> "Integrator":
        r"""HHT-α with spectral radius ``rho_inf`` at infinite frequency, ``1/2 <= rho_inf <= 1``.

        ``alpha = (1 - rho_inf)/(1 + rho_inf)`` in ``[0, 1/3]``,
        ``gamma = 1/2 + alpha``, ``beta = (1 + alpha)^2 / 4``.
        """
        if not 0.5 <= rho_inf <= 1.0:
            raise ValueError(f"HHT needs 0.5 <= rho_inf <= 1, got {rho_inf}")
        a = (1.0 - rho_inf) / (1.0 + rho_inf)
        return Integrator("hht", 0.25 * (1.0 + a) ** 2, 0.5 + a, 0.0, a)

    @staticmethod
    def generalized_alpha(rho_inf: float) -> "Integrator":
        r"""Chung–Hulbert generalised-α with spectral radius ``rho_inf`` in ``[0, 1]``.

        ``alpha_m = (2 rho - 1)/(rho + 1)``, ``alpha_f = rho/(rho + 1)``,
        ``gamma = 1/2 - alpha_m + alpha_f``, ``beta = (1 - alpha_m + alpha_f)^2 / 4``.
        """
        if not 0.0 <= rho_inf <= 1.0:
            raise ValueError(f"generalized_alpha needs 0 <= rho_inf <= 1, got {rho_inf}")
        am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
        af = rho_inf / (rho_inf + 1.0)
        return Integrator("generalized_alpha", 0.25 * (1.0 - am + af) ** 2, 0.5 - am + af, am, af)

    @staticmethod
    def by_name(name: str, rho_inf: float) -> "Integrator":
        """The integrator named in a case: ``"newmark"``, ``"hht"`` or ``"generalized_alpha"``.

        Parameters
        ----------
        name : str
            One of :data:`INTEGRATORS`.
        rho_inf : float
            Spectral radius at infinite frequency (ignored by ``"newmark"``).

        Returns
        -------
        Integrator

        Raises
        ------
        ValueError
            For an unknown name or a ``rho_inf`` out of the integrator's range.
        """
        if name == "newmark":
            return Integrator.newmark()
        if name == "hht":
            return Integrator.hht(rho_inf)
        if name == "generalized_alpha":
            return Integrator.generalized_alpha(rho_inf)
        raise ValueError(f"unknown integrator {name!r}; choose one of {', '.join(INTEGRATORS)}")

    def acceleration(self, u, u0, v0, a0, dt):
        """``a_{n+1}`` from ``u_{n+1}`` and the start of the step."""
        return (u - u0 - dt * v0) / (self.beta * dt * dt) - (0.5 / self.beta - 1.0) * a0

    def velocity(self, a, v0, a0, dt):
        """``v_{n+1}`` from ``a_{n+1}`` and the start of the step."""
        return v0 + dt * ((1.0 - self.gamma) * a0 + self.gamma * a)


@dataclass(frozen=True)
class Dynamics:
    """The constant operators of a dynamic analysis.

    Attributes
    ----------
    system : BulkSystem
    M : csr_matrix, shape (n, n)
        Mass matrix in use (consistent, or with the contact nodes' mass
        redistributed, :func:`fecontact.analysis.mass.redistribute`).
    C : csr_matrix, shape (n, n)
        Damping matrix (the springs' dashpots).
    damping_anchor : ndarray, shape (n,)
        ``sum c x_a' w``: the anchor part of the dashpot forces.
    M_hat, C_hat : csc_matrix
        ``T^T M T`` and ``T^T C T``.
    """

    system: BulkSystem
    M: sp.csr_matrix = field(repr=False)
    C: sp.csr_matrix = field(repr=False)
    damping_anchor: np.ndarray = field(repr=False)
    M_hat: sp.csc_matrix = field(repr=False)
    C_hat: sp.csc_matrix = field(repr=False)

    @staticmethod
    def create(system: BulkSystem, M: sp.spmatrix) -> "Dynamics":
        """The constant operators of a system with mass matrix ``M``: dashpot damping, and both projected on the reduced unknowns.

        Parameters
        ----------
        system : BulkSystem
        M : sparse matrix, shape (n, n)
            Mass matrix in full numbering (consistent or redistributed).

        Returns
        -------
        Dynamics
            ``C`` and ``damping_anchor`` gathered from the springs with a dashpot,
            ``M_hat = T^T M T`` and ``C_hat = T^T C T``.
        """
        n = system.n_dofs
        C = sp.csr_matrix((n, n))
        anchor = np.zeros(n)
        for s in system.springs:
            if s.damping:
                C = C + s.matrix(s.damping, n)
                anchor[s.dofs] += s.damping * s.anchor_velocity * s.weights
        T = system.T
        return Dynamics(system, sp.csr_matrix(M), C.tocsr(), anchor,
                        (T.T @ M @ T).tocsc(), (T.T @ C @ T).tocsc())

    def effective_matrix(self, integrator: Integrator, dt: float) -> sp.csc_matrix:
        """Effective stiffness ``K_eff`` of the bulk block of the Newton matrix, shape (n_red, n_red).

        ``(1 - alpha_m)/(beta dt^2) M_hat + gamma (1 - alpha_f)/(beta dt) C_hat
        + (1 - alpha_f) K_hat``: constant for a given integrator and time-step
        size, so it is factorised once per ``dt``.

        Parameters
        ----------
        integrator : Integrator
        dt : float
            Time-step size.

        Returns
        -------
        csc_matrix, shape (n_red, n_red)
        """
        i = integrator
        return ((1.0 - i.alpha_m) / (i.beta * dt * dt) * self.M_hat
                + i.gamma * (1.0 - i.alpha_f) / (i.beta * dt) * self.C_hat
                + (1.0 - i.alpha_f) * self.system.K_hat).tocsc()

    def force(self, u, v, a, t) -> np.ndarray:
        """Full residual of the equation of motion without contact, ``M a + C v - d + K u - f(t)``."""
        sysm = self.system
        return (self.M @ a + self.C @ v - self.damping_anchor + sysm.internal_force(u)
                - sysm.external_force(t))

    def step(self, integrator: Integrator, dt: float, t0: float, u0, v0, a0,
             matrix: sp.csc_matrix) -> "TimeStep":
        """Bulk terms of the step from ``t0`` to ``t0 + dt``."""
        sysm = self.system
        af = integrator.alpha_f
        start = (af * self.force(u0, v0, np.zeros_like(a0), t0)
                 + integrator.alpha_m * (self.M @ a0))
        # the force that stops the current momentum within one step: the scale
        # of the residual when nothing else loads the bodies (free flight)
        momentum = float(np.linalg.norm(self.M @ v0)) / dt
        return TimeStep(dynamics=self, integrator=integrator, dt=dt, t0=t0, u0=u0, v0=v0, a0=a0,
                        start_force=start, start_coupling=af * sysm.coupling_force(t0),
                        matrix=matrix, momentum_scale=momentum)


@dataclass(frozen=True)
class TimeStep:
    """Bulk residual and matrix of one time step, for :meth:`fecontact.solve.problem.ContactProblem.evaluate`.

    ``residual(u, t)`` is ``T^T [M a_{n+1-am} + C v_{n+1-af} - d + K u_{n+1-af}
    - f(t_{n+1-af})] - F_coupling(t_{n+1-af})`` with ``a``, ``v`` the
    integrator's functions of ``u = u_{n+1}``.  Its force scale (for Newton's
    relative tolerance) is the largest of the internal, external, inertial
    and coupling forces and ``|M v_n| / dt``.
    """

    dynamics: Dynamics
    integrator: Integrator
    dt: float
    t0: float
    u0: np.ndarray = field(repr=False)
    v0: np.ndarray = field(repr=False)
    a0: np.ndarray = field(repr=False)
    start_force: np.ndarray = field(repr=False)
    start_coupling: np.ndarray = field(repr=False)
    matrix: sp.csc_matrix = field(repr=False)
    momentum_scale: float = 0.0

    def kinematics(self, u: np.ndarray) -> tuple:
        """``(v_{n+1}, a_{n+1})`` for the end-of-step displacement ``u``."""
        i = self.integrator
        a = i.acceleration(u, self.u0, self.v0, self.a0, self.dt)
        return i.velocity(a, self.v0, self.a0, self.dt), a

    def tangent(self, u: np.ndarray) -> sp.csc_matrix:
        """The bulk block of the Newton matrix at the end-of-step displacement ``u``, shape (n_red, n_red).

        :attr:`matrix` itself, unless bodies are in finite strain: then their
        stiffness at ``u = 0`` in it is replaced by their tangent at ``u``,
        ``matrix + (1 - alpha_f) (K_T(u) - K_hat)``: the step averages the
        internal forces, ``(1 - alpha_f) f_int(u_{n+1}) + alpha_f f_int(u_n)``.
        """
        sysm = self.dynamics.system
        if not sysm.finite_strain:
            return self.matrix
        af = self.integrator.alpha_f
        return (self.matrix + (1.0 - af) * sysm.tangent_change(u)).tocsc()

    def residual(self, u: np.ndarray, t: float) -> tuple:
        """Reduced bulk residual of the step and its force scale, for the end-of-step displacement ``u``.

        Parameters
        ----------
        u : ndarray, shape (n,)
            Full displacement ``u_{n+1}``.
        t : float
            End-of-step time ``t_{n+1}``.

        Returns
        -------
        residual : ndarray, shape (n_red,)
            ``T^T [...] - F_coupling`` as in the class docstring.
        scale : float
            Largest norm of the internal, external, inertial and coupling forces
            and ``|M v_n| / dt``, for Newton's relative tolerance.
        """
        dyn, i = self.dynamics, self.integrator
        sysm = dyn.system
        v, a = self.kinematics(u)
        inertia = (1.0 - i.alpha_m) * (dyn.M @ a)
        internal, external = sysm.internal_force(u), sysm.external_force(t)
        rest = (1.0 - i.alpha_f) * (internal - external + dyn.C @ v - dyn.damping_anchor)
        coupling = (1.0 - i.alpha_f) * sysm.coupling_force(t) + self.start_coupling
        full = inertia + rest + self.start_force
        scale = max(float(np.linalg.norm(internal)), float(np.linalg.norm(external)),
                    float(np.linalg.norm(inertia)), float(np.linalg.norm(coupling)),
                    self.momentum_scale, 1e-300)
        return sysm.T.T @ full - coupling, scale
