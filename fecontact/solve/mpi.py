"""MPI launch detection and the optional PETSc import.

A process started by ``mpirun``/``mpiexec`` sees its rank and the number of
ranks in environment variables set by the launcher (Open MPI, MPICH/Hydra,
PMIx, MVAPICH); :func:`launch` reads them without importing MPI, so a serial
run never loads it.  :func:`petsc` imports ``petsc4py`` (initialising MPI),
finding Debian's build under ``/usr/lib/petscdir`` when it is not on the
path (the ``python3-petsc4py`` package puts it there and finds it only when
``PETSC_DIR`` names it or a default build is registered).
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass

#: (size, rank) environment variables of the common MPI launchers
LAUNCHER_VARIABLES = (
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
    ("PMI_SIZE", "PMI_RANK"),
    ("PMIX_SIZE", "PMIX_RANK"),
    ("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"),
)
#: where Debian's ``python3-petsc4py`` installs petsc4py (one directory per PETSc build)
DEBIAN_PETSC4PY = "/usr/lib/petscdir/petsc*/*-real/lib/python3/dist-packages"
#: how to get PETSc, for the message when it is missing
INSTALL_HINT = ("install it with: apt-get install python3-petsc4py python3-mpi4py openmpi-bin, "
                "and use a virtual environment made with --system-site-packages (see the README)")


class PetscUnavailable(RuntimeError):
    """``petsc4py`` (or ``mpi4py``) cannot be imported."""


@dataclass(frozen=True)
class Launch:
    """This process's place among the ranks of an MPI launch.

    Attributes
    ----------
    rank : int
    size : int
        1 when the process was not started by an MPI launcher.
    """

    rank: int = 0
    size: int = 1

    @property
    def root(self) -> bool:
        """Whether this is rank 0 (the one that writes files and prints)."""
        return self.rank == 0


def launch(environ=None) -> Launch:
    """The rank and size an MPI launcher gave this process, from its environment.

    Parameters
    ----------
    environ : mapping, optional
        Default ``os.environ``.

    Returns
    -------
    Launch
        ``Launch(0, 1)`` outside an MPI launch.
    """
    environ = os.environ if environ is None else environ
    for size, rank in LAUNCHER_VARIABLES:
        if size in environ and rank in environ:
            try:
                return Launch(int(environ[rank]), int(environ[size]))
            except ValueError:
                continue
    return Launch()


def petsc():
    """The ``petsc4py.PETSc`` module (MPI initialised).

    Returns
    -------
    module

    Raises
    ------
    PetscUnavailable
        ``petsc4py`` or ``mpi4py`` is not installed (the message says how to install them).
    """
    try:
        return _import_petsc()
    except ImportError:
        for path in sorted(glob.glob(DEBIAN_PETSC4PY), reverse=True):
            if path not in sys.path:
                sys.path.append(path)
            os.environ.setdefault("PETSC_DIR", path.split("/lib/python3/")[0])
            try:
                return _import_petsc()
            except ImportError:
                continue
    raise PetscUnavailable(f"the petsc backend needs petsc4py and mpi4py; {INSTALL_HINT}")


def _import_petsc():
    """``petsc4py.PETSc``, initialised without reading the command line (``mpi4py`` checked too)."""
    import importlib

    import petsc4py

    importlib.import_module("mpi4py")           # PETSc.Comm.tompi4py needs it

    petsc4py.init([])
    from petsc4py import PETSc

    return PETSc
