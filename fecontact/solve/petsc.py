r"""The ``petsc`` backend: the Newton systems solved across MPI ranks with PETSc.

Every rank holds the model and the Newton iterate (a replicated model, as
MOOSE's default ``ReplicatedMesh``); the linear algebra is distributed.  The
reduced unknowns are split among the ranks by recursive coordinate bisection
(:mod:`fecontact.solve.partition`); each rank owns a contiguous block of rows
of the bulk matrix, assembled into a PETSc ``MPIAIJ`` matrix, and of every
Krylov vector.

Each Newton system is solved as in the ``amg`` backend
(:mod:`fecontact.solve.krylov`), with PETSc's objects: after the constraint
split (:mod:`fecontact.solve.constraints`), flexible GMRES (``fgmres``,
restarted every 100 iterations, right-preconditioned, on the unpreconditioned
residual) runs on ``P (K + C)``, preconditioned by ``P M^{-1}`` with ``M^{-1}``
one V-cycle of a smoothed-aggregation multigrid of ``K`` (Trilinos ML
through PETSc, or PETSc's GAMG: :data:`MULTIGRID`) in node blocks, with the
rigid-body modes as near-null space, set up once (and again, its
interpolation kept, with a penalty on the constraint rows for the accurate
steps: :meth:`PetscBackend._constrain`).  The contact
pieces ``C``, ``E_hat``, ``F_c`` are supported on the contact unknowns:
their products need the vector only there, which every rank gets by one
all-reduce of that small set (:class:`ContactGather`), while ``K x`` is
PETSc's distributed product.  The inexact-Newton tolerances are those of
the ``amg`` backend (:class:`fecontact.solve.projected.SettlingForcing`).

Each Newton step is gathered on every rank (one all-gather per step), so
all ranks take the same decisions; the residual, the contact search and the
line search are computed by every rank on the whole model.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp

from .amg import penalty_matrix
from .constraints import split_constraints
from .factor import pinned_stiffness
from .mpi import petsc
from .partition import partition_rows
from .projected import SettlingForcing, engaged_system

logger = logging.getLogger(__name__)

#: GMRES restart length and most iterations per Newton step (as :func:`fecontact.solve.krylov.gmres`)
RESTART = 100
MAX_ITERATIONS = 500
#: PETSc's multigrid preconditioners, preferred first; the first this PETSc has is used (the
#: measured comparison with GAMG and hypre is on docs/parallel.md, by docs/make_parallel.py)
MULTIGRID = ("ml", "gamg")
#: options prefix of the multigrid preconditioner (``-fecontact_pc_type hypre`` in ``PETSC_OPTIONS``)
OPTIONS_PREFIX = "fecontact_"


def multigrid_type(PETSc) -> str:
    """The first of :data:`MULTIGRID` this PETSc build has (``gamg`` is always built in)."""
    for name in MULTIGRID:
        if name == "gamg" or PETSc.Sys.hasExternalPackage(name):
            return name
    return "gamg"


class Stopwatch:
    """Seconds spent inside ``with`` blocks of it (the explicit collectives of the backend)."""

    def __init__(self):
        self.seconds = 0.0
        self._tic = 0.0

    def __enter__(self):
        self._tic = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds += time.perf_counter() - self._tic
        return False


class ContactGather:
    """The values of a distributed vector at a few reduced unknowns, on every rank.

    Parameters
    ----------
    columns : ndarray of int, shape (m,)
        Reduced unknowns (original numbering).
    position : ndarray of int, shape (n,)
        Distributed position of every reduced unknown.
    start, stop : int
        The positions this rank owns.
    mpi : mpi4py.MPI.Comm
    """

    def __init__(self, columns: np.ndarray, position: np.ndarray, start: int, stop: int, mpi,
                 clock: "Stopwatch | None" = None):
        where = position[columns]
        self.mine = np.flatnonzero((where >= start) & (where < stop))
        self.local = where[self.mine] - start
        self.size = columns.size
        self.mpi = mpi
        self.clock = clock or Stopwatch()
        from mpi4py import MPI

        self._in_place, self._sum = MPI.IN_PLACE, MPI.SUM

    def __call__(self, x_local: np.ndarray) -> np.ndarray:
        """Values at the columns, shape (m,), from this rank's entries ``x_local``, shape (n_rank,)."""
        values = np.zeros(self.size)
        values[self.mine] = x_local[self.local]
        with self.clock:
            self.mpi.Allreduce(self._in_place, values, op=self._sum)
        return values


class PetscBackend:
    """Projected flexible GMRES with PETSc's multigrid, across MPI ranks (see the module).

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    matrix : sparse matrix, shape (n_reduced, n_reduced), optional
        The constant bulk block when it is not ``K_hat`` (a time step).
    tolerance : float
        Newton's relative tolerance; steps are solved to at least a tenth of it.
    eta_max : float
        Relative tolerance of the steps taken while the contact status changes.

    Attributes
    ----------
    iterations : int
        GMRES iterations spent so far.
    ranks : int
    rows : fecontact.solve.partition.RowPartition

    Raises
    ------
    RuntimeError
        A body is in finite strain, or petsc4py is not installed.
    """

    name = "petsc"

    def __init__(self, problem, matrix=None, tolerance: float = 1e-9, eta_max: float = 0.1):
        self.PETSc = petsc()
        self.comm = self.PETSc.COMM_WORLD
        self.mpi = self.comm.tompi4py()
        system = problem.system
        if getattr(system, "finite_strain", ()):
            raise RuntimeError("the petsc backend solves small-strain bodies only")
        self.problem = problem
        self.ranks, rank = self.comm.size, self.comm.rank
        #: seconds in the backend's own collectives (entry exchange, contact gathers, step gathers, norms)
        self.collectives = Stopwatch()
        self.rows = partition_rows(system, self.ranks)
        self.owned = self.rows.owned(rank)
        self.start, self.stop = int(self.rows.starts[rank]), int(self.rows.starts[rank + 1])
        self.slots = self.rows.position[self.owned] - self.start
        self.unused = np.setdiff1d(np.arange(self.stop - self.start), self.slots)
        bulk = system.K_hat if matrix is None else matrix
        #: whether the ranks assembled their own elements (``K_hat`` a partial sum on each)
        self.shared = matrix is None and getattr(system, "share", None) is not None
        self.K = self._distributed(bulk, partial=self.shared)
        # bodies held only by contact: the multigrid of K with their rigid-body modes held by
        # springs (the operator stays K; the constraints hold the bodies)
        pinned = pinned_stiffness(system)[0] if matrix is None and system.free_modes().shape[1] \
            else None
        self.K_pc = self.K if pinned is None else self._distributed(pinned, partial=self.shared)
        coords = self.PETSc.Vec().createWithArray(
            self.rows.node_coords[self.start // self.rows.block:self.stop // self.rows.block].ravel(),
            bsize=self.rows.block, comm=self.comm)
        self._rigid = self.PETSc.NullSpace().createRigidBody(coords)
        self.K_pc.setNearNullSpace(self._rigid)
        self.multigrid = self._multigrid()
        self._diagonal = None           # diagonal of K_pc at the reduced unknowns (penalty weights)
        self._constrained = None        # the constraint rows the multigrid was last set up with
        self.tolerance = tolerance
        self._forcing = SettlingForcing(eta_max)
        self.iterations = 0

    # -- distributed objects --------------------------------------------------------------

    def _distributed(self, A: sp.spmatrix, unit: float | None = None, partial: bool = False):
        """This rank's rows of ``A`` as a PETSc ``MPIAIJ`` matrix in node blocks.

        ``A`` is the same on every rank, or (``partial``) this rank's part
        of a sum over the ranks, whose entries are sent to the ranks that
        own their rows (:meth:`_owned_entries`).  Rows no unknown takes are
        identity rows scaled like ``A``'s diagonal, or ``unit`` times the
        identity when given.
        """
        if partial:
            rows, cols, values = self._owned_entries(sp.coo_matrix(A))
        else:
            A = sp.coo_matrix(sp.csr_matrix(A)[self.owned])
            rows, cols, values = self.slots[A.row], self.rows.position[A.col], A.data
        n_local, n = self.stop - self.start, self.rows.size
        local = sp.csr_matrix((values, (rows, cols)), shape=(n_local, n))      # duplicates summed
        if unit is None:
            own_diagonal = local.diagonal(self.start)[self.slots]
            total = self.mpi.allreduce(np.array([own_diagonal.sum(), own_diagonal.size], dtype=float))
            unit = total[0] / max(total[1], 1.0)        # identity rows scaled like the matrix
        local = local + sp.csr_matrix((np.full(self.unused.size, unit),
                                       (self.unused, self.start + self.unused)), shape=(n_local, n))
        local.sum_duplicates()
        local.sort_indices()
        index = self.PETSc.IntType
        M = self.PETSc.Mat().createAIJ(size=((n_local, n), (n_local, n)), bsize=self.rows.block,
                                       csr=(local.indptr.astype(index), local.indices.astype(index),
                                            local.data), comm=self.comm)
        M.assemble()
        return M

    def _owned_entries(self, A: sp.coo_matrix) -> tuple:
        """The entries of the rows this rank owns, summed over every rank's part ``A``.

        Each rank sends its entries to the owners of their rows (one
        all-to-all), as PETSc's ``MatSetValues`` with ``ADD_VALUES`` does;
        duplicates are summed when the matrix is made.

        Returns
        -------
        rows, cols, values : ndarray, shape (k,)
            Local row, distributed column, value.
        """
        position = self.rows.position
        rows, cols = position[A.row], position[A.col]
        owner = np.searchsorted(self.rows.starts, rows, side="right") - 1
        order = np.argsort(owner, kind="stable")
        counts = np.bincount(owner, minlength=self.ranks)
        with self.collectives:
            incoming = np.array(self.mpi.alltoall([int(c) for c in counts]), dtype=np.int64)
            received = []
            for data, kind in ((rows, np.int64), (cols, np.int64), (A.data, np.float64)):
                buffer = np.empty(int(incoming.sum()), dtype=kind)
                self.mpi.Alltoallv([np.ascontiguousarray(data[order], dtype=kind), counts],
                                   [buffer, incoming])
                received.append(buffer)
        return received[0] - self.start, received[1], received[2]

    def _vector(self, full: np.ndarray | None = None):
        """A distributed vector, this rank's entries of ``full`` (shape (n,)) or zeros."""
        v = self.K.createVecLeft()
        v.set(0.0)
        if full is not None:
            v.setArray(self._local(full))
        return v

    def _local(self, full: np.ndarray) -> np.ndarray:
        """This rank's rows of a whole vector ``full``, shape (n,) -> (n_rows_local,)."""
        local = np.zeros(self.stop - self.start)
        local[self.slots] = np.asarray(full, dtype=float)[self.owned]
        return local

    def _multigrid(self):
        """The multigrid of ``K_pc`` (:func:`multigrid_type`), set up (one V-cycle per application)."""
        pc = self.PETSc.PC().create(comm=self.comm)
        pc.setOptionsPrefix(OPTIONS_PREFIX)
        kind = multigrid_type(self.PETSc)
        options = self.PETSc.Options()
        reuse = f"{OPTIONS_PREFIX}pc_{kind}_reuse_interpolation"
        if kind in ("ml", "gamg") and not options.hasName(reuse):
            options.setValue(reuse, "true")     # a penalty update keeps the aggregates
        pc.setType(kind)
        pc.setOperators(self.K_pc)
        pc.setFromOptions()
        pc.setUp()
        return pc

    def gather(self, local: np.ndarray) -> np.ndarray:
        """The whole vector, shape (n,), in the original numbering, from every rank's entries."""
        ordered = np.empty(self.rows.size)
        with self.collectives:
            self.mpi.Allgatherv(np.ascontiguousarray(local, dtype=float), [ordered, self.rows.counts])
        return ordered[self.rows.position]

    def _norm(self, local: np.ndarray) -> float:
        """Euclidean norm of a distributed vector from this rank's entries."""
        with self.collectives:
            return float(np.sqrt(self.mpi.allreduce(float(local @ local))))

    def _krylov(self, operator, precondition, atol: float):
        """A KSP of flexible GMRES on the Python ``operator`` with the Python ``precondition``."""
        PETSc = self.PETSc
        n_local, n = self.stop - self.start, self.rows.size
        A = PETSc.Mat().createPython(((n_local, n), (n_local, n)), operator, comm=self.comm)
        A.setUp()
        ksp = PETSc.KSP().create(comm=self.comm)
        ksp.setType("fgmres")
        ksp.setGMRESRestart(RESTART)
        ksp.setOperators(A)
        ksp.setPCSide(PETSc.PC.Side.RIGHT)
        ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
        ksp.setTolerances(rtol=0.0, atol=atol, divtol=1e300, max_it=MAX_ITERATIONS)
        pc = ksp.getPC()
        pc.setType("python")
        pc.setPythonContext(precondition)
        ksp.setUp()
        return ksp

    # -- the backend contract -------------------------------------------------------------

    def forcing(self, status: np.ndarray) -> float:
        """Relative tolerance of the next step (:class:`~fecontact.solve.projected.SettlingForcing`)."""
        return self._forcing(status)

    def solve(self, ev) -> np.ndarray:
        """The Newton step of ``J dx = -R`` (equilibrium rows inexact), shape (n + m,), on every rank.

        Raises
        ------
        RuntimeError
            GMRES did not reach the tolerance of the step.
        """
        eta = self.forcing(ev.contact.status)
        atol = max(eta * float(np.linalg.norm(ev.residual)), 0.1 * self.tolerance * ev.force_scale)
        blocks, dlam, engaged = engaged_system(ev)
        D, E, _, _, b1, _ = blocks
        split = split_constraints(*blocks)
        if eta == 0.0:          # the accurate step: the multigrid of the constrained problem
            self._constrain(split.F_c)
        du, dl_engaged, iterations, converged, residual = self._projected_solve(split, D, E, b1, atol)
        self.iterations += iterations
        logger.debug("  petsc: %d iterations, residual %.3e (target %.3e)",
                     iterations, residual, atol)
        if not converged:
            raise RuntimeError(f"GMRES did not reach {atol:.3e} (residual {residual:.3e})")
        dlam[engaged] = dl_engaged
        return np.concatenate([du, dlam])

    def _projected_solve(self, split, D, E, b1: np.ndarray, atol: float) -> tuple:
        """``du`` (whole), ``dl`` (engaged), iterations, converged, equilibrium residual."""
        C, Fc = split.C.tocsc(), split.F_c.tocsc()
        columns = np.union1d(np.flatnonzero(np.diff(C.indptr)), np.flatnonzero(np.diff(Fc.indptr)))
        at_contact = ContactGather(columns, self.rows.position, self.start, self.stop, self.mpi,
                                   self.collectives)
        C_rows = sp.csr_matrix(split.C)[self.owned][:, columns]
        Fc_columns = split.F_c.tocsr()[:, columns]
        E_rows = sp.csr_matrix(split.E_hat)[self.owned]
        K, work, Kx = self.K, self._vector(), self._vector()
        slots = self.slots

        def apply_A(x_local):
            work.setArray(x_local)
            K.mult(work, Kx)
            y = Kx.getArray().copy()
            y[slots] += C_rows @ at_contact(x_local)
            return y

        def project(y_local):
            if not split.c.size:
                return y_local
            y = np.array(y_local)
            y[slots] -= E_rows @ split.constraint_solve(Fc_columns @ at_contact(y_local))
            return y

        du_p = self._local(split.du_p)
        r_prime = self._local(split.r_hat) - apply_A(du_p)
        ksp = self._krylov(_Operator(lambda x: project(apply_A(x))),
                           _Preconditioner(self.multigrid, project, self.unused), atol)
        rhs, delta = self._vector(), self._vector()
        rhs.setArray(project(r_prime))
        ksp.solve(rhs, delta)
        iterations, converged = ksp.getIterationNumber(), ksp.getConvergedReason() > 0
        delta_local = delta.getArray().copy()
        rest = r_prime - apply_A(delta_local)
        du = self.gather(du_p + delta_local)
        dl = split.multipliers(Fc_columns @ at_contact(rest), du)
        work.setArray(self._local(du))
        K.mult(work, Kx)
        equilibrium = b1[self.owned] - Kx.getArray()[slots] - sp.csr_matrix(D)[self.owned] @ du \
            - sp.csr_matrix(E)[self.owned] @ dl
        ksp.destroy()
        return du, dl, iterations, converged, self._norm(equilibrium)

    def _constrain(self, F_c: sp.spmatrix) -> None:
        r"""Set the multigrid up again on ``K + F_c^T R F_c`` when the constraint rows have changed.

        The penalty is that of the ``amg`` backend
        (:meth:`fecontact.solve.amg.AMG.constrained`): ``R_r = stiffness
        (f_r^2 . diag K) / |f_r|^4``, so each term is ``stiffness`` times the
        diagonal of ``K`` where it acts.  Without it the V-cycle keeps
        correcting the constrained unknowns that the projection removes, and
        GMRES needs several times the iterations of the unconstrained
        problem.  The multigrid keeps its aggregates and interpolation
        (``reuse_interpolation``); only the level operators are recomputed,
        and only when the set of constraint rows differs from the last set-up.

        PETSc recomputes every level's Galerkin product, which costs about
        half a set-up (the ``amg`` backend adds the penalty's own products,
        supported on the contact unknowns).  So :meth:`solve` calls this for
        the accurate steps only (the status settled), where most GMRES
        iterations are spent; the loose steps before keep the multigrid they
        have.
        """
        F_c = sp.csr_matrix(F_c)
        key = (F_c.shape, F_c.indptr.tobytes(), F_c.indices.tobytes())
        if key == self._constrained:
            return
        self._constrained = key
        if self._diagonal is None:
            self._diagonal = self.gather(self.K_pc.getDiagonal().getArray())
        if F_c.shape[0] == 0:
            operator = self.K_pc
        else:
            delta = self._distributed(penalty_matrix(F_c, self._diagonal), unit=0.0)
            operator = self.K_pc.duplicate(copy=True)
            operator.axpy(1.0, delta, structure=self.PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
            operator.setNearNullSpace(self._rigid)
            delta.destroy()
        tic = time.perf_counter()
        self.multigrid.setOperators(operator)
        self.multigrid.setUp()
        logger.debug("  petsc: constrained multigrid %.2f s", time.perf_counter() - tic)

    def report(self) -> dict:
        """What ``summary.json`` says of the parallel solve (a collective call: every rank makes it).

        Returns
        -------
        dict
            ``ranks``; ``rows_per_rank`` (rows of the distributed matrices,
            identity rows included); ``elements_per_rank`` (the elements
            each rank assembled, :mod:`fecontact.bodies.share`; None when
            every rank assembled them all); ``multigrid`` (the PETSc preconditioner
            type); ``peak_memory_gb_per_rank`` (each process's peak resident
            memory so far, ``ru_maxrss``); ``collective_seconds_per_rank``
            (in the backend's own all-reduces and all-gathers, waiting
            included; PETSc's products exchange their halos besides).
        """
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6      # kB on Linux
        return {"ranks": self.ranks,
                "rows_per_rank": [int(c) for c in self.rows.counts],
                "elements_per_rank": (self.problem.system.share.gather_counts(
                    self.problem.system.share.elements) if self.shared else None),
                "multigrid": self.multigrid.getType(),
                "peak_memory_gb_per_rank": [float(p) for p in self.mpi.allgather(peak)],
                "collective_seconds_per_rank": [float(c) for c in
                                                self.mpi.allgather(self.collectives.seconds)]}

    def reference_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K x = rhs``, shape (n_reduced,), from scratch: a new multigrid and the same GMRES.

        To a tenth of :attr:`tolerance` relative to ``|rhs|``, as
        :func:`fecontact.solve.amg.plain_krylov_solve`.

        Raises
        ------
        RuntimeError
            GMRES did not converge in :data:`MAX_ITERATIONS` iterations.
        """
        multigrid = self._multigrid()
        K, work, Kx = self.K, self._vector(), self._vector()

        def apply(x_local):
            work.setArray(x_local)
            K.mult(work, Kx)
            return Kx.getArray().copy()

        atol = 0.1 * self.tolerance * float(np.linalg.norm(rhs))
        ksp = self._krylov(_Operator(apply), _Preconditioner(multigrid, lambda y: y, self.unused),
                           atol)
        b, x = self._vector(rhs), self._vector()
        ksp.solve(b, x)
        converged = ksp.getConvergedReason() > 0
        ksp.destroy()
        multigrid.destroy()
        if not converged:
            raise RuntimeError("GMRES did not converge on the linear reference")
        return self.gather(x.getArray())


class _Operator:
    """A petsc4py Python matrix context: ``y = apply(x)`` on this rank's entries."""

    def __init__(self, apply):
        self.apply = apply

    def mult(self, mat, x, y):
        y.setArray(self.apply(x.getArray(readonly=True)))


class _Preconditioner:
    """A petsc4py Python preconditioner context: ``y = project(M^{-1} x)``, zero on unused rows."""

    def __init__(self, multigrid, project, unused: np.ndarray):
        self.multigrid = multigrid
        self.project = project
        self.unused = unused

    def apply(self, pc, x, y):
        self.multigrid.apply(x, y)
        z = y.getArray().copy()
        z[self.unused] = 0.0
        y.setArray(self.project(z))
