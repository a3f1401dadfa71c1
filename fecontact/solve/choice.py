r"""What each linear-solver backend would cost on a problem: the model behind ``auto``.

The estimate is built from what the problem itself shows before anything
is factorised or set up:

- ``n`` unknowns and ``nnz`` stored entries of the bulk matrix ``K_hat``;
- the **top separator** ``s`` of each connected piece of the matrix graph:
  the unknowns on one side of the median plane across the piece's longest
  extent that couple to the other side.  A nested-dissection Cholesky
  factorisation costs about ``s^3`` flops and its factor holds about
  ``s^2`` entries more than the matrix (George 1973; Lipton, Rose and
  Tarjan 1979): in 3D ``s`` grows like ``n^(2/3)`` and the factorisation
  like ``n^2``, in 2D like ``n^(1/2)`` and ``n^(3/2)``, and a thin slab
  costs what its small cross-section says, not what its DOF count says;
- ``m`` contact unknowns (the DOFs of every contact surface);
- the number of load increments or time steps to be solved.

Modelled seconds (coefficients :data:`COEFFICIENTS`, fitted to the bundled
Hertz and ironing systems; only their ratios matter for the choice, and
where each comes from is the decision record *Where the cost model's
coefficients come from*):

.. math::

    \begin{aligned}
    F &= \kappa \sum s^3 + \phi\, nnz \log_2 n
        &&\text{Cholesky factorisation}\\
    B &= \beta_s \sum s^2 + \beta_n\, nnz
        &&\text{one forward and back substitution}\\
    N &= N_1 + N_+ (\text{increments} - 1)
        &&\text{Newton iterations (}\times\nu\text{ with Krylov steps)}\\
    \text{schur} &= F + \theta\, f m\, B + N (2B + \delta (f m)^3)
        &&\text{compliance columns, condensed solves}\\
    \text{amg} &= \sigma\, nnz + \nu N k_{amg} \gamma\, nnz
        &&\text{set-up, projected GMRES}\\
    \text{factorization} &= F + \nu N k_{f} (B + \gamma_1 nnz)\\
    \text{direct} &= N \lambda F
    \end{aligned}

with ``f`` the share of contact unknowns that engage (their compliance
columns are computed, in blocks costing ``theta`` of a single
substitution each), ``nu`` the extra Newton iterations of inexact Krylov
steps, ``k_amg`` larger when contact couples two meshed bodies, and
``k_f`` growing like ``(n / n_f)^(1 / (2 dim))``: the exact factorisation
does not see the constraints, so its GMRES iterations grow like
``h^(-1/2)``.  A backend whose dense or factor storage would not fit
in :data:`MEMORY_SHARE` of the machine's memory is not considered.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

#: model coefficients (seconds; see the module)
COEFFICIENTS = dict(
    kappa=2.5e-9,      # factorisation, per separator unknown cubed
    phi=2.0e-8,        # factorisation, per stored entry and level
    beta_s=5.0e-9,     # substitution, per separator unknown squared
    beta_n=6.0e-9,     # substitution, per stored entry
    theta=0.5,         # a compliance column computed in a block, per single substitution
    engaged=0.35,      # share of contact unknowns that engage
    delta=1.0e-10,     # condensed dense solve, per engaged unknown cubed
    sigma=3.5e-7,      # multigrid set-up, per stored entry
    gamma=2.3e-8,      # one preconditioned GMRES iteration (V-cycle, product, projection), per entry
    gamma_1=4.0e-9,    # the product and projection alone, per entry
    k_amg=5.0,         # GMRES iterations per Newton iteration with the multigrid
    k_amg_bodies=17.0,  # the same when contact couples two meshed bodies
    k_f=11.0,          # with the exact factorisation at n_f unknowns, growing
    n_f=25_000.0,      # like (n / n_f)^(1/(2 dim))
    newton_first=8.0,  # Newton iterations of the first increment
    newton_more=3.0,   # Newton iterations of each further increment
    inexact=1.3,       # Newton iterations with inexact (Krylov) steps, per exact one
    lu=3.0,            # sparse LU of the whole Jacobian, per Cholesky of the bulk matrix
)
#: share of the machine's memory a backend's factor or dense compliance may take
MEMORY_SHARE = 0.4
#: pieces of the matrix graph smaller than this are costed by their size alone
SMALL_PIECE = 50


@dataclass(frozen=True)
class ProblemSize:
    """What the cost model reads off a problem.

    Attributes
    ----------
    n : int
        Reduced unknowns.
    nnz : int
        Stored entries of the bulk matrix.
    separators : ndarray of int, shape (pieces,)
        Top separator of each connected piece of the matrix graph.
    contact_dofs : int
        Unknowns on the contact surfaces.
    increments : int
        Load increments or time steps to solve.
    supported : bool
        Whether the bulk matrix is nonsingular (every body supported, or a
        time step's effective matrix): the Krylov backends need it.
    between_bodies : bool
        Whether a contact pair couples two meshed bodies (not a rigid
        obstacle): the multigrid's aggregates never cross bodies, and its
        GMRES needs several times the iterations.
    dim : int
        Spatial dimension.
    """

    n: int
    nnz: int
    separators: np.ndarray = field(repr=False)
    contact_dofs: int
    increments: int
    supported: bool
    between_bodies: bool = False
    dim: int = 3


@dataclass(frozen=True)
class CostEstimate:
    """One backend's modelled cost.

    Attributes
    ----------
    backend : str
    seconds : float
        Modelled time of the whole solve.
    parts : dict
        The terms that make it up (``name -> seconds``), for the log.
    fits : bool
        Whether its storage fits in :data:`MEMORY_SHARE` of the memory.
    """

    backend: str
    seconds: float
    parts: dict
    fits: bool = True


def separator_sizes(K: sp.spmatrix, coords: np.ndarray) -> np.ndarray:
    """Top separator of each connected piece of the graph of ``K``.

    Each piece is cut at the median of its coordinates along its longest
    extent; its separator is the set of unknowns on the lower side that
    couple to the upper side.

    Parameters
    ----------
    K : sparse matrix, shape (n, n)
        Structurally symmetric.
    coords : ndarray, shape (n, dim)
        A position of every unknown.

    Returns
    -------
    ndarray of int, shape (pieces,)
        Pieces smaller than :data:`SMALL_PIECE` count with their size.
    """
    K = sp.csr_matrix(K)
    # structurally symmetric: strong components are the pieces, found without a transposed copy
    pieces, label = connected_components(K, directed=True, connection="strong")
    side = np.zeros(K.shape[0], dtype=np.int8)
    sizes = np.bincount(label, minlength=pieces)
    order = np.argsort(label, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for piece in np.flatnonzero(sizes >= SMALL_PIECE):
        members = order[starts[piece]:starts[piece + 1]]
        x = coords[members]
        axis = int(np.argmax(np.ptp(x, axis=0)))
        side[members] = np.where(x[:, axis] <= np.median(x[:, axis]), 1, 2)
    if K.nnz == 0 or np.any(np.diff(K.indptr) == 0):
        return sizes        # a row without entries: no graph to cut
    upper_neighbour = np.maximum.reduceat(side[K.indices], K.indptr[:-1]) == 2
    separator = np.bincount(label[(side == 1) & upper_neighbour], minlength=pieces)
    return np.where(sizes >= SMALL_PIECE, separator, sizes)


def problem_size(problem, increments: int = 1, matrix=None) -> ProblemSize:
    """The figures of ``problem`` the cost model needs.

    Parameters
    ----------
    problem : fecontact.solve.problem.ContactProblem
    increments : int
        Load increments or time steps the backend will serve.
    matrix : sparse matrix, optional
        A time step's effective matrix, when the bulk block is not ``K_hat``.

    Returns
    -------
    ProblemSize
    """
    system = problem.system
    K = system.K_hat if matrix is None else matrix
    T = sp.csc_matrix(system.T)
    first_row = T.indices[T.indptr[:-1]]
    node_of_dof = np.repeat(system.reference_coords().T, system.dim, axis=0)
    coords = node_of_dof[first_row]
    supported = matrix is not None or not system.free_modes().shape[1]
    between = any(hasattr(pair.master, "facets") for pair in getattr(problem, "pairs", ()))
    return ProblemSize(n=K.shape[0], nnz=K.nnz, separators=separator_sizes(K, coords),
                       contact_dofs=int(np.asarray(problem.contact_dofs).size),
                       increments=max(int(increments), 1), supported=supported,
                       between_bodies=between, dim=int(system.dim))


def memory_bytes() -> int:
    """Physical memory of this machine, bytes (16 GiB when it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):      # not on POSIX
        return 16 * 2**30


def estimate_costs(size: ProblemSize, coefficients: dict | None = None,
                   memory: float | None = None) -> dict:
    """Modelled cost of every backend that can serve the problem (see the module).

    Parameters
    ----------
    size : ProblemSize
    coefficients : dict, optional
        Overrides of :data:`COEFFICIENTS`.
    memory : float, optional
        Bytes of memory (default: this machine's).

    Returns
    -------
    dict
        ``name -> CostEstimate`` for ``direct`` and ``schur``, and for
        ``amg`` and ``factorization`` when the problem is supported.
    """
    c = {**COEFFICIENTS, **(coefficients or {})}
    budget = MEMORY_SHARE * float(memory_bytes() if memory is None else memory)
    s = size.separators.astype(float)
    n, nnz = float(size.n), float(size.nnz)
    F = c["kappa"] * np.sum(s ** 3) + c["phi"] * nnz * np.log2(max(n, 2.0))
    B = c["beta_s"] * np.sum(s ** 2) + c["beta_n"] * nnz
    factor_bytes = 12.0 * (5.0 * np.sum(s ** 2) + 2.0 * nnz)
    N = c["newton_first"] + c["newton_more"] * (size.increments - 1)
    engaged = c["engaged"] * size.contact_dofs
    estimates = {}

    def add(name, parts, storage):
        estimates[name] = CostEstimate(name, float(sum(parts.values())),
                                       {k: float(v) for k, v in parts.items()}, storage <= budget)

    add("direct", {"factorisations": N * c["lu"] * F}, 1.5 * factor_bytes)
    add("schur", {"factorisation": F, "compliance": c["theta"] * engaged * B,
                  "iterations": N * (2.0 * B + c["delta"] * engaged ** 3)},
        factor_bytes + 8.0 * float(size.contact_dofs) ** 2)
    if size.supported:
        N_inexact = c["inexact"] * N
        add("amg", {"set-up": c["sigma"] * nnz,
                    "iterations": N_inexact * c["k_amg_bodies" if size.between_bodies else "k_amg"]
                    * c["gamma"] * nnz}, 0.0)
        # the exact factorisation does not see the constraints: its GMRES iterations grow like
        # h^(-1/2) (the constrained operator's condition number like h^(-1))
        k_f = c["k_f"] * (n / c["n_f"]) ** (1.0 / (2 * size.dim))
        add("factorization", {"factorisation": F,
                              "iterations": N_inexact * k_f * (B + c["gamma_1"] * nnz)},
            factor_bytes)
    return estimates


def choose(size: ProblemSize, **kwargs) -> tuple:
    """The backends ``auto`` tries, cheapest first, and why.

    Parameters
    ----------
    size : ProblemSize
    **kwargs
        Passed to :func:`estimate_costs`.

    Returns
    -------
    (tuple of str, str)
        Every backend that fits, by modelled cost (``direct`` at the latest
        last, as the fall-back of the others), and a one-line reason naming
        the figures.
    """
    estimates = estimate_costs(size, **kwargs)
    fitting = sorted((e for e in estimates.values() if e.fits), key=lambda e: e.seconds)
    order = [e.backend for e in fitting]
    if "direct" not in order:
        order.append("direct")
    if not fitting:             # nothing fits: the one needing no factorisation, else direct
        order = (["amg"] if size.supported else []) + ["direct"]
    best = estimates[order[0]]

    def describe(e):
        parts = ", ".join(f"{k} {v:.3g}" for k, v in e.parts.items())
        return f"{e.backend} {e.seconds:.3g} s ({parts})" + ("" if e.fits else " [too large]")

    others = "; ".join(describe(e) for e in sorted(estimates.values(), key=lambda e: e.seconds)
                       if e.backend != best.backend)
    reason = (f"{best.backend}: modelled {describe(best)}; others {others}; from {size.n:,} "
              f"unknowns, {size.nnz:,} entries, top separator {int(size.separators.max(initial=0)):,}, "
              f"{size.contact_dofs:,} contact unknowns, {size.increments} increments")
    return tuple(order), reason
