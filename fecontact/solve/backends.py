r"""Linear solver backends for the semismooth Newton step: the contract, the registry, the choice.

Every backend solves the same system ``J dx = -R`` (see
:mod:`fecontact.solve.problem`) and honours :class:`LinearBackend`; they
differ in how.  :data:`BACKENDS` maps each name to a factory
``(problem, matrix, tolerance) -> backend``, and :func:`make_backend` is the
one place that validates a name, resolves ``auto`` and falls back.

``direct``
    Sparse LU of the whole generalised Jacobian at every iteration.  Works
    for any problem, including bodies held only by contact.

``schur``
    Factorises the bulk stiffness ``K_hat`` once per problem and reuses it.
    Writing the Jacobian as ``K_hat`` plus blocks that touch only the contact
    DOFs ``S`` and the engaged multipliers,

    .. math::

        \begin{bmatrix} \hat K + P_S D P_S^T & -P_S E \\ F P_S^T & G\end{bmatrix}
        \begin{bmatrix} \delta u\\ \delta\lambda\end{bmatrix}
        = -\begin{bmatrix} R_1\\ R_2\end{bmatrix},

    ``y = P_S^T \delta u`` solves the small dense system
    ``[(I + W D), -W E; F, G] [y; dlam] = [-w_0; -R_2]`` with the contact
    compliance ``W = P_S^T K_hat^{-1} P_S`` (columns computed once per contact
    DOF by back-substitution and cached) and ``w_0 = P_S^T K_hat^{-1} R_1``;
    then ``du = K_hat^{-1}(-R_1 - P_S (D y - E dlam))``.  Multipliers whose
    rows do not depend on ``u`` and are diagonal (open nodes) are eliminated
    first.  Each iteration costs two back-substitutions and a dense solve of
    the size of the contact zone instead of a new factorisation.

``amg``, ``factorization``
    Projected GMRES on the Newton system, preconditioned by a fixed
    approximation of the bulk stiffness's inverse (a multigrid V-cycle, or
    its exact factorisation); see :mod:`fecontact.solve.projected`.  Every
    body must be supported.

``petsc``
    The same projected GMRES with PETSc's distributed matrices and
    multigrid (GAMG), across the ranks of an MPI launch; see
    :mod:`fecontact.solve.petsc`.  Needs petsc4py and mpi4py (optional).
    ``auto`` picks it, and only it, when the process is one of several MPI
    ranks.

Bodies in finite strain
    The bulk block is then the tangent ``K(u)`` of each iterate
    (``ev.K``).  ``direct`` factorises each Jacobian as always.  The others
    keep their set-up (of ``K_hat`` at first) and solve the current Newton
    system by GMRES preconditioned with it: ``amg`` and ``factorization``
    run their projected GMRES on the current tangent, ``schur`` runs GMRES
    on the whole current Jacobian preconditioned by its exact step with the
    factorised matrix.  A set-up is rebuilt from the current tangent only
    when GMRES needs ``refresh`` times the iterations per decade of the first
    solve with it, or fails (:class:`fecontact.solve.krylov.LaggedSetup`);
    for ``schur`` that means a new factorisation and new compliance columns.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

import numpy as np
import scipy.sparse.linalg as spla

from ..bodies.share import ElementShare
from .choice import choose, problem_size
from .factor import factorized_reference_solve
from .mpi import launch, petsc
from .projected import KrylovBackend
from .schur import SchurBackend

if TYPE_CHECKING:
    from .problem import Evaluation

logger = logging.getLogger(__name__)


@runtime_checkable
class LinearBackend(Protocol):
    """What Newton and the run drivers use of a linear solver backend.

    Attributes
    ----------
    name : str
        The registered name (:data:`BACKENDS`) of what was built; after
        ``auto`` and the fall-backs, the one that actually solves (written
        to ``summary.json`` as ``backend``).
    iterations : int or None
        Krylov iterations spent so far by all :meth:`solve` calls; ``None``
        for backends that do not iterate (``direct``, and ``schur`` unless
        bodies are in finite strain), so that ``summary.json``'s
        ``krylov_iterations`` is null for them.

    Notes
    -----
    How accurately a step is solved is the backend's own business: the
    direct ones solve exactly, the Krylov ones inexactly while the contact
    status changes and to a tenth of Newton's tolerance once it has settled
    (the ``tolerance`` given to the factory).  A backend that cannot solve a
    system raises ``RuntimeError``, ``ValueError`` or
    ``numpy.linalg.LinAlgError`` from :meth:`solve`, or returns a step that
    is not finite: Newton reports either as its reason to stop.
    """

    name: str
    iterations: int | None

    def solve(self, ev: Evaluation) -> np.ndarray:
        """The Newton step ``dx`` of ``J dx = -R`` at an iterate.

        Parameters
        ----------
        ev : fecontact.solve.problem.Evaluation
            Residual ``R``, shape (n_reduced + n_multipliers,), and the
            Jacobian blocks (``ev.has_jacobian``).

        Returns
        -------
        ndarray, shape (n_reduced + n_multipliers,)
            ``[du; dlam]`` in the numbering of ``ev.residual``.
        """

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K_hat x = rhs`` from scratch, set-up included, the way this backend solves.

        The run drivers time it as the linear-elastic reference of a run
        (``linear_reference`` in ``summary.json``).

        Parameters
        ----------
        rhs : ndarray, shape (n_reduced,)

        Returns
        -------
        ndarray, shape (n_reduced,)
        """


class DirectBackend:
    """Sparse LU (SuperLU) of the full Jacobian at each iteration.

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
        Any problem, including bodies held only by contact.
    """

    name = "direct"
    #: not iterative
    iterations = None

    def __init__(self, problem):
        self.problem = problem

    def solve(self, ev: Evaluation) -> np.ndarray:
        """The Newton step: ``J dx = -R`` by sparse LU of the assembled ``J``, shape (n + m,)."""
        return spla.spsolve(ev.jacobian(), -ev.residual)

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K_hat x = rhs``, shape (n_reduced,), by :func:`fecontact.solve.factor.factorized_reference_solve`."""
        return factorized_reference_solve(self.problem.system, rhs)


@dataclass(frozen=True)
class BackendFactory:
    """How to build one registered backend.

    Attributes
    ----------
    build : callable
        ``build(problem, matrix, tolerance) -> LinearBackend``: ``problem``
        the contact problem (or anything with its interface, e.g. the PFC
        view), ``matrix`` the constant bulk block of the Jacobian when it is
        not ``K_hat`` (a time step's effective stiffness) or ``None``,
        ``tolerance`` Newton's relative tolerance.  Raises ``RuntimeError``
        when the backend cannot serve the problem (a singular bulk matrix).
    krylov : bool
        Whether the backend solves by projected GMRES on the bulk matrix
        (inexact steps, ``iterations`` counted).
    supported_only : bool or None
        Whether it needs every body supported (:data:`KRYLOV_BACKENDS`);
        default: ``krylov``.
    requires : tuple of str
        Top-level modules of optional dependencies it imports when built
        (the contract test skips a backend whose modules are missing).
    """

    build: Callable[..., LinearBackend]
    krylov: bool = False
    supported_only: bool | None = None
    requires: tuple = ()

    @property
    def missing(self) -> tuple:
        """The modules of :attr:`requires` that cannot be imported here."""
        from importlib.util import find_spec

        return tuple(name for name in self.requires if find_spec(name) is None)

    @property
    def needs_support(self) -> bool:
        """Whether every body must be supported (``supported_only``, else ``krylov``)."""
        return self.krylov if self.supported_only is None else self.supported_only

    def __call__(self, problem, matrix=None, tolerance: float = 1e-9) -> LinearBackend:
        """Build the backend for ``problem``.

        Parameters
        ----------
        problem : fecontact.solve.problem.ContactProblem
        matrix : sparse matrix, shape (n_reduced, n_reduced), optional
            The constant bulk block when it is not ``K_hat``.
        tolerance : float
            Newton's relative tolerance.

        Returns
        -------
        LinearBackend

        Raises
        ------
        RuntimeError
            The backend cannot serve the problem.
        """
        return self.build(problem, matrix, tolerance)


#: name -> factory, in the order the choices are listed in messages
BACKENDS: dict[str, BackendFactory] = {
    "direct": BackendFactory(lambda problem, matrix, tolerance: DirectBackend(problem)),
    "schur": BackendFactory(lambda problem, matrix, tolerance: SchurBackend(problem, matrix, tolerance)),
    "amg": BackendFactory(lambda problem, matrix, tolerance:
                          KrylovBackend(problem, matrix, "amg", tolerance), krylov=True),
    "factorization": BackendFactory(lambda problem, matrix, tolerance:
                                    KrylovBackend(problem, matrix, "factorization", tolerance),
                                    krylov=True),
    # bodies held only by contact are served (the multigrid of the pinned stiffness)
    "petsc": BackendFactory(lambda problem, matrix, tolerance:
                            _petsc_backend(problem, matrix, tolerance), krylov=True,
                            supported_only=False, requires=("petsc4py", "mpi4py")),
}
#: the backends that solve by projected GMRES with the bulk matrix's own preconditioner, so that
#: every body must be supported (and their ``reference_solve`` solves ``K_hat x = rhs``)
KRYLOV_BACKENDS = tuple(name for name, factory in BACKENDS.items() if factory.needs_support)
#: every name a case or the command line may give, as listed in messages
CHOICES = ("auto", *BACKENDS)


def _petsc_backend(problem, matrix, tolerance: float) -> LinearBackend:
    """The ``petsc`` backend (imported when asked for: petsc4py is optional)."""
    from .petsc import PetscBackend

    return PetscBackend(problem, matrix, tolerance)


def element_share(name: str, dynamic: bool = False) -> ElementShare | None:
    """This rank's share of the bulk assembly when ``name`` will solve across MPI ranks, else None.

    Under a launch of several ranks, the static problems that ``petsc``
    solves (named, or ``auto``) are assembled element by element on the
    rank that owns them (:mod:`fecontact.bodies.share`).  Dynamic problems
    are assembled whole on every rank: their time steps use the mass and
    stiffness matrices in many places besides the linear solves.

    Parameters
    ----------
    name : str
        The backend asked for.
    dynamic : bool
    """
    where = launch()
    if dynamic or where.size < 2 or name not in ("auto", "petsc"):
        return None
    return ElementShare(where.rank, where.size, connect=_world)


def _world():
    """The mpi4py communicator of all ranks (PETSc's ``COMM_WORLD``)."""
    return petsc().COMM_WORLD.tompi4py()


def unknown_backend_message(name: str) -> str:
    """The one-line complaint about a backend name that is not registered (nor ``auto``).

    Parameters
    ----------
    name : str

    Returns
    -------
    str
        Naming ``name`` and every choice (:data:`CHOICES`).
    """
    return f"unknown linear solver backend {name!r}; choose one of {', '.join(CHOICES)}"


def candidates(name: str, problem, matrix=None, increments: int = 1) -> tuple:
    """The registered backends ``make_backend(name, problem)`` tries, in order, and why.

    A named backend is tried alone.  Under an MPI launch of several ranks
    ``auto`` is ``petsc``.  Otherwise ``auto`` tries every backend the cost
    model of :mod:`fecontact.solve.choice` lets fit in memory, cheapest
    first, with ``direct`` at the latest last (each when the previous
    cannot serve the problem); the Krylov backends only when every body is
    supported (or ``matrix``, a time step's effective matrix, is given).

    Bodies in finite strain follow the same model: every backend keeps its
    set-up across iterations and rebuilds it only when GMRES on the current
    tangent slows down (see the module), so the costs keep their order.

    Parameters
    ----------
    name : str
        ``"auto"`` or a key of :data:`BACKENDS`.
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, optional
        The constant bulk block when it is not ``K_hat``.
    increments : int
        Load increments or time steps the backend will serve (``auto``).

    Returns
    -------
    (tuple of str, str)
        The names, and ``auto``'s reason (empty for a named backend).
    """
    if name != "auto":
        return (name,), ""
    ranks = launch().size
    if ranks > 1:
        return ("petsc",), f"petsc: {ranks} MPI ranks"
    return choose(problem_size(problem, increments, matrix))


def make_backend(name: str, problem, matrix=None, tolerance: float = 1e-9,
                 increments: int = 1) -> LinearBackend:
    """The linear solver backend called ``name`` for ``problem``.

    ``"auto"`` picks the backend of least modelled cost
    (:mod:`fecontact.solve.choice`: factorisation from the matrix graph's
    separators, compliance columns from the contact unknowns, multigrid and
    GMRES from the stored entries, all times the Newton iterations expected
    for ``increments``), logs why at INFO level and keeps the reason in the
    backend's ``choice`` attribute; it falls back to the next one when a
    backend cannot serve the problem, and to ``direct`` last
    (:func:`candidates`).  A backend asked for by name is built or fails:
    no fall-back.

    Parameters
    ----------
    name : str
        ``"auto"`` or a key of :data:`BACKENDS`.
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, shape (n_reduced, n_reduced), optional
        The constant bulk block of the Jacobian when it is not ``K_hat``
        (dynamics: a time step's effective stiffness).
    tolerance : float
        Newton's relative tolerance (the Krylov backends solve to a tenth
        of it at the end).
    increments : int
        Load increments or time steps the backend will serve (used by ``auto``).

    Returns
    -------
    LinearBackend

    Raises
    ------
    ValueError
        An unknown name (:func:`unknown_backend_message`).
    RuntimeError
        The named backend cannot serve the problem (e.g. ``schur`` or a
        Krylov backend with a singular bulk matrix).

    Examples
    --------
    The contact patch test's problem, solved by the sparse direct solver:

    >>> import fecontact as fc
    >>> problem = fc.build_model(fc.load_case("cases/patch2d.toml")).problem
    >>> backend = fc.make_backend("direct", problem)
    >>> backend.name, backend.iterations
    ('direct', None)

    A model chooses by name too: ``model.solve(backend="direct")``.
    """
    if name not in CHOICES:
        raise ValueError(unknown_backend_message(name))
    ranks = launch().size
    if ranks > 1 and name not in ("auto", "petsc"):
        logger.warning("the %s backend under %d MPI ranks: every rank solves the whole problem "
                       "alone; the petsc backend shares it among them", name, ranks)
    names, reason = candidates(name, problem, matrix, increments)
    if reason:
        logger.info("auto backend: %s", reason)
    *fallible, last = names
    for candidate in fallible:
        try:
            return _chosen(BACKENDS[candidate](problem, matrix, tolerance), reason)
        except RuntimeError as err:
            logger.info("not using the %s backend: %s", candidate, err)
    return _chosen(BACKENDS[last](problem, matrix, tolerance), reason)


def _chosen(backend: LinearBackend, reason: str) -> LinearBackend:
    """``backend`` with ``auto``'s reason as its ``choice`` attribute (``None`` when named)."""
    backend.choice = reason or None
    return backend
