r"""PFC problems and solutions in ``.npz`` files.

A problem file (``fecontact pfc export``) holds, as ``numpy.savez`` arrays:

========================  ==========================================================
key                       content
========================  ==========================================================
``format``                ``"fecontact-pfc-1"``
``M_data``, ``M_indices``, ``M_indptr``, ``M_shape``
                          ``M`` in compressed sparse column form (the arrays of a
                          ``scipy.sparse.csc_matrix``: ``csc_matrix((M_data,
                          M_indices, M_indptr), shape=M_shape)``)
``H_data``, ``H_indices``, ``H_indptr``, ``H_shape``
                          ``H`` likewise, shape ``(n, m d)``
``q`` (n,), ``b`` (m d,)  vectors; ``b`` per contact normal first
``mu`` (m,)               friction coefficient per contact
``d``                     2 or 3
``rigid_modes`` (n, k)    optional: null space of ``M`` (bodies held only by contact)
``near_null_space`` (n, k)
                          optional: the bodies' rigid-body motions in the unknowns of
                          ``v``, for an algebraic multigrid of ``M``
``info``                  optional: JSON text (case, step, time, pairs, ...)
``area`` (m,)             optional: slave nodal area (length in 2D), ``r / area``
                          is the traction
``contact_pair``, ``contact_node`` (m,)
                          optional: pair index and slave node of each contact
``solution_v``, ``solution_r``, ``solution_u``
                          optional: a known solution (the finite-element one)
========================  ==========================================================

A solution file (``fecontact pfc solve``) holds ``v``, ``r``, ``u``, the
residuals ``equilibrium``, ``natural_map``, ``gfc3d_error`` and ``complementarity``,
and ``solver``, ``converged``, ``iterations``, ``seconds``, ``setup_seconds``, ``reason``.
Files are written to a temporary name and renamed, so a file is complete or
absent.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..io.atomic import replacing
from .problem import GlobalProblem, PFCError, Residuals

FORMAT = "fecontact-pfc-1"
#: the residuals a solution file holds (the fields of :class:`~fecontact.pfc.problem.Residuals`)
RESIDUAL_KEYS = ("equilibrium", "natural_map", "gfc3d_error", "complementarity")
_REQUIRED = ("q", "b", "mu", "d")


@dataclass(frozen=True)
class Solution:
    """A solution ``(v, r, u)`` of a :class:`GlobalProblem` and how it was obtained.

    Attributes
    ----------
    v : ndarray, shape (n,)
    r : ndarray, shape (m*d,)
    u : ndarray, shape (m*d,)
    residuals : Residuals
    solver : str
    converged : bool
    iterations : int
    seconds : float
        The whole solve.
    setup_seconds : float
        Its part before the iterations (factorisations, the Delassus operator).
    reason : str
        Why the solver stopped without converging ("" otherwise).
    """

    v: np.ndarray
    r: np.ndarray
    u: np.ndarray
    residuals: Residuals
    solver: str
    converged: bool = True
    iterations: int = 0
    seconds: float = 0.0
    setup_seconds: float = 0.0
    reason: str = ""


@dataclass(frozen=True)
class ProblemFile:
    """What a problem file holds: the problem, a known solution and contact labels."""

    problem: GlobalProblem
    solution: dict | None = None
    extras: dict = field(default_factory=dict)


def _atomic_savez(path: Path, arrays: dict) -> None:
    with replacing(path) as tmp, open(tmp, "wb") as stream:
        np.savez(stream, **arrays)


def _sparse_arrays(name: str, A: sp.spmatrix) -> dict:
    A = sp.csc_matrix(A)
    A.sort_indices()
    return {f"{name}_data": A.data, f"{name}_indices": A.indices, f"{name}_indptr": A.indptr,
            f"{name}_shape": np.array(A.shape)}


def save_problem(path, problem: GlobalProblem, solution: dict | None = None,
                 extras: dict | None = None) -> None:
    """Write ``problem`` (and a known ``solution`` with keys v, r, u) to ``path`` (.npz)."""
    arrays = {"format": np.array(FORMAT), "q": problem.q, "b": problem.b, "mu": problem.mu,
              "d": np.array(problem.d), "info": np.array(json.dumps(problem.info))}
    arrays.update(_sparse_arrays("M", problem.M))
    arrays.update(_sparse_arrays("H", problem.H))
    if problem.rigid_modes.shape[1]:
        arrays["rigid_modes"] = problem.rigid_modes
    if problem.near_null_space.shape[1]:
        arrays["near_null_space"] = problem.near_null_space
    for key, value in (extras or {}).items():
        arrays[key] = np.asarray(value)
    for key, value in (solution or {}).items():
        arrays[f"solution_{key}"] = np.asarray(value, dtype=float)
    _atomic_savez(path, arrays)


def _open(path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise PFCError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as err:
        raise PFCError(f"{path}: not a readable .npz file ({err})") from None


def _sparse(data: dict, name: str, path) -> sp.csc_matrix:
    keys = [f"{name}_{k}" for k in ("data", "indices", "indptr", "shape")]
    missing = [k for k in keys if k not in data]
    if missing:
        raise PFCError(f"{path}: missing key '{missing[0]}' (the sparse matrix '{name}' is stored "
                       f"as {', '.join(keys)})")
    shape = tuple(int(s) for s in np.ravel(data[keys[3]]))
    try:
        A = sp.csc_matrix((data[keys[0]], data[keys[1]], data[keys[2]]), shape=shape)
        A.check_format(full_check=True)
    except (ValueError, TypeError) as err:
        raise PFCError(f"{path}: '{name}' is not a valid compressed sparse column matrix "
                       f"({err})") from None
    return A


def load_problem(path) -> ProblemFile:
    """Read a problem file written by :func:`save_problem` (or by hand, see the module doc)."""
    data = _open(path)
    for key in _REQUIRED:
        if key not in data:
            raise PFCError(f"{path}: missing key '{key}' (a PFC file needs M, H, "
                           f"{', '.join(_REQUIRED)})")
    info = {}
    if "info" in data:
        try:
            info = json.loads(str(data["info"]))
        except json.JSONDecodeError:
            info = {"text": str(data["info"])}
    try:
        d = int(np.ravel(data["d"])[0])
    except (ValueError, IndexError, TypeError):
        raise PFCError(f"{path}: 'd' must be an integer (2 or 3)") from None
    problem = _construct(path, M=_sparse(data, "M", path), H=_sparse(data, "H", path), q=data["q"],
                         b=data["b"], mu=data["mu"], d=d, rigid_modes=data.get("rigid_modes"),
                         info=info, near_null_space=data.get("near_null_space"))
    solution = None
    if all(f"solution_{k}" in data for k in "vru"):
        solution = {k: data[f"solution_{k}"] for k in "vru"}
    extras = {k: data[k] for k in ("area", "contact_pair", "contact_node") if k in data}
    return ProblemFile(problem, solution, extras)


def _construct(path, **fields) -> GlobalProblem:
    try:
        return GlobalProblem(**fields, source=str(path))
    except PFCError:
        raise
    except (ValueError, TypeError) as err:
        raise PFCError(f"{path}: {err}") from None


def save_solution(path, solution: Solution) -> None:
    """Write a :class:`Solution` to ``path`` (.npz)."""
    arrays = {"v": solution.v, "r": solution.r, "u": solution.u, "solver": np.array(solution.solver),
              "converged": np.array(solution.converged), "iterations": np.array(solution.iterations),
              "seconds": np.array(solution.seconds), "setup_seconds": np.array(solution.setup_seconds),
              "reason": np.array(solution.reason)}
    arrays.update({k: np.array(v) for k, v in solution.residuals.as_dict().items()})
    _atomic_savez(path, arrays)


def load_solution(path) -> Solution:
    """Read a solution file written by :func:`save_solution`."""
    data = _open(path)
    try:
        res = Residuals(**{k: float(data[k]) for k in RESIDUAL_KEYS})
        return Solution(v=data["v"], r=data["r"], u=data["u"], residuals=res,
                        solver=str(data["solver"]), converged=bool(data["converged"]),
                        iterations=int(data["iterations"]), seconds=float(data["seconds"]),
                        setup_seconds=float(data["setup_seconds"]) if "setup_seconds" in data else 0.0,
                        reason=str(data["reason"]))
    except KeyError as err:
        raise PFCError(f"{path}: missing key {err} (not a solution file)") from None


#: File name endings read and written as FCLIB HDF5 (:mod:`fecontact.pfc.fclib`).
FCLIB_SUFFIXES = (".h5", ".hdf5")


def is_fclib(path) -> bool:
    """True when ``path`` ends in ``.h5`` or ``.hdf5`` (case-insensitive): an FCLIB HDF5 file."""
    return Path(path).suffix.lower() in FCLIB_SUFFIXES


def read(path) -> ProblemFile:
    """A problem file: FCLIB HDF5 by its ending (``.h5``, ``.hdf5``), else ``.npz``."""
    if is_fclib(path):
        from . import fclib

        if not Path(path).is_file():
            raise PFCError(f"{path}: no such file")
        problem, solution = fclib.read(path)
        return ProblemFile(problem, solution)
    return load_problem(path)


def write(path, pf: ProblemFile) -> None:
    """Write a problem file, FCLIB HDF5 by its ending (``.h5``, ``.hdf5``), else ``.npz``."""
    if is_fclib(path):
        from . import fclib

        with replacing(path) as tmp:
            fclib.write(tmp, pf.problem, pf.solution)
    else:
        save_problem(path, pf.problem, pf.solution, pf.extras)
