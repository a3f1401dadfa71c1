r"""This rank's share of the bulk assembly when the ranks of an MPI launch split the elements.

Under the ``petsc`` backend every rank holds the meshes, but assembles the
bulk stiffness of the elements it owns only, so each rank's ``K`` and
``K_hat`` are partial sums,

.. math::  K = \sum_r K_r, \qquad \hat K = T^T K T = \sum_r T^T K_r T,

each ``K_r`` holding about ``1/N`` of the entries.  Products with the bulk
matrix are summed over the ranks (:meth:`ElementShare.total`: one
all-reduce of a vector), and the distributed matrix of the Krylov solves is
made by sending each entry to the rank that owns its row
(:class:`fecontact.solve.petsc.PetscBackend`), as ``MatSetValues`` with
``ADD_VALUES`` does.

Elements go to ranks by recursive coordinate bisection of all global node
positions (:func:`fecontact.mesh.bisection.coordinate_bisection`): an
element belongs to the part of its first vertex.  The cut is the same on
every rank (it depends on the coordinates only), and it is the cut of the
distributed rows (:func:`fecontact.solve.partition.partition_rows`) up to
the few extra rows of couplings, so most entries are assembled where their
row lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..mesh.bisection import coordinate_bisection

__all__ = ["ElementShare", "node_parts"]


def node_parts(coords: np.ndarray, parts: int) -> np.ndarray:
    """The part of every node under recursive coordinate bisection.

    Parameters
    ----------
    coords : ndarray, shape (dim, n_nodes)
    parts : int

    Returns
    -------
    ndarray of int, shape (n_nodes,)
    """
    order, starts = coordinate_bisection(np.asarray(coords, dtype=float).T, parts)
    part = np.empty(order.size, dtype=np.int64)
    part[order] = np.repeat(np.arange(parts), np.diff(starts))
    return part


@dataclass(frozen=True)
class ElementShare:
    """One rank's share of the elements of a launch of ``size`` ranks.

    Attributes
    ----------
    rank, size : int
    elements : int
        Elements this rank assembles (set by
        :func:`fecontact.bodies.system.build_system`; 0 before).
    connect : callable, optional
        Returns the mpi4py communicator of the launch; called on the first
        sum over the ranks (:func:`fecontact.solve.backends.element_share`
        passes PETSc's ``COMM_WORLD``).  Without it the share can be
        assembled but not summed.
    """

    rank: int
    size: int
    elements: int = 0
    connect: Callable | None = field(default=None, repr=False, compare=False)
    _comm: list = field(default_factory=list, repr=False, compare=False)

    @property
    def root(self) -> bool:
        """Whether this is rank 0 (which adds the terms assembled once, such as springs)."""
        return self.rank == 0

    def owned_elements(self, node_part: np.ndarray, elements: np.ndarray) -> np.ndarray:
        """The elements of one body this rank assembles.

        Parameters
        ----------
        node_part : ndarray of int, shape (n_body_nodes,)
            The part of each of the body's nodes (:func:`node_parts`).
        elements : ndarray of int, shape (n_vertices, n_elements)
            The body's element connectivity (``mesh.t``).

        Returns
        -------
        ndarray of int, shape (k,)
        """
        return np.flatnonzero(node_part[elements[0]] == self.rank)

    @property
    def comm(self):
        """The mpi4py communicator of the launch, from :attr:`connect` on first use.

        Raises
        ------
        RuntimeError
            The share has no ``connect``.
        """
        if not self._comm:
            if self.connect is None:
                raise RuntimeError("this element share has no communicator to sum over")
            self._comm.append(self.connect())
        return self._comm[0]

    def total(self, x: np.ndarray) -> np.ndarray:
        """The sum over the ranks of every rank's ``x`` (an all-reduce), the same array on every rank.

        Parameters
        ----------
        x : ndarray
            This rank's partial values (e.g. ``K_r w``).

        Returns
        -------
        ndarray, shape of ``x``
        """
        from mpi4py import MPI

        out = np.array(x, dtype=float, copy=True)
        self.comm.Allreduce(MPI.IN_PLACE, out, op=MPI.SUM)
        return out

    def largest(self, value: int) -> int:
        """The largest of every rank's ``value`` (an all-reduce), the same on every rank."""
        from mpi4py import MPI

        return int(self.comm.allreduce(int(value), op=MPI.MAX))

    def gather_counts(self, value: int) -> list:
        """``value`` from every rank, in rank order."""
        return [int(v) for v in self.comm.allgather(int(value))]
