r"""The global frictional contact problem in the FCLIB HDF5 format.

FCLIB (https://github.com/FrictionalContactLibrary/fclib) stores the global
problem

.. math::

    M v = H r + G \lambda + f, \qquad G^T v + b = 0, \qquad
    \hat u = H^T v + w + [\mu_\alpha \|u_{T,\alpha}\|, 0, 0], \qquad
    C^*_\mu \ni \hat u \perp r \in C_\mu,

which is :class:`~fecontact.pfc.problem.GlobalProblem` without the equality
constraints ``G``: FCLIB's ``f`` is our ``q`` and FCLIB's ``w`` is our ``b``
(Siconos' ``fclib_interface.c`` maps them the same way).  FCLIB's own ``b``
belongs to ``G``; files with ``G`` are refused.

The layout is the one written and read by ``fclib_write_global``,
``fclib_read_global``, ``fclib_write_solution`` and ``fclib_read_solution``
in fclib's ``src/fclib.c`` (``src/fclib.h`` in the header-only releases),
with their helpers ``write_matrix``/``read_matrix``,
``write_global_vectors``/``read_global_vectors``, ``write_problem_info`` and
``write_solution``.  Sizes are HDF5 datasets, not attributes, of shape (1,)::

    /fclib_global/spacedim         int32 (1,)      2 or 3
    /fclib_global/M/               matrix group (below), n x n
    /fclib_global/H/               matrix group, n x m d
    /fclib_global/G/               (optional; refused here)
    /fclib_global/vectors/f        float64 (n,)    our q
    /fclib_global/vectors/w        float64 (m d,)  our b
    /fclib_global/vectors/mu       float64 (m,)
    /fclib_global/vectors/b        (only with G)
    /fclib_global/info/title       string (optional group and datasets)
    /fclib_global/info/description string
    /fclib_global/info/math_info   string
    /solution/v                    float64 (n,)    (optional group, at the root)
    /solution/u                    float64 (m d,)
    /solution/r                    float64 (m d,)
    /solution/l                    (only with G)
    /guesses/...                   initial guesses (ignored here)

A matrix group (``struct fclib_matrix``, the CSparse ``cs`` layout) holds
the int32 (1,) datasets ``nzmax``, ``m`` (rows), ``n`` (columns), ``nz`` and

* ``nz == -1``, compressed columns: ``p`` int32 (n+1,) column pointers,
  ``i`` int32 (nzmax,) row indices, ``x`` float64 (nzmax,);
* ``nz == -2``, compressed rows: ``p`` int32 (m+1,), ``i`` column indices;
* ``nz >= 0``, triplet with ``nz`` entries: ``p``, ``i`` int32 (nz,) and
  ``x`` float64 (nz,) (of length nzmax in older fclib.c).  ``p`` is read as the
  column and ``i`` as the row index, CSparse's convention, which Siconos
  (the main producer of FCLIB files) writes by copying a CSparse triplet.
  The comment in ``fclib.h`` says the opposite, but fclib never interprets
  triplet indices; for a symmetric ``M`` both readings agree.  Repeated
  entries are summed.

and optionally ``comment``, ``conditioning``, ``determinant``, ``rank``
(ignored here).  Strings are written as ``H5LTmake_dataset_string`` does:
scalar, fixed length ``len + 1``, null-terminated, so that fclib's
``H5LTread_dataset_string`` gets its terminator.

``rigid_modes`` are not part of FCLIB: they are not written and are read back
as none.  ``info`` is written as the JSON of the dict in ``description``;
reading a description that is a JSON object gives that dict back, any other
file gives ``{"title", "description", "math_info"}`` as found.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .problem import GlobalProblem, PFCError

ROOT = "/fclib_global"
SOLUTION = "/solution"
_INT32_MAX = np.iinfo(np.int32).max


def _h5py():
    try:
        import h5py
    except ImportError:
        raise PFCError("FCLIB files need h5py: pip install h5py") from None
    return h5py


# ----------------------------------------------------------------- writing

def _write_int(group, name: str, value: int) -> None:
    group.create_dataset(name, data=np.array([value], dtype=np.int32))


def _write_string(h5py, group, name: str, text: str) -> None:
    """Scalar, null-terminated, fixed-length string (``H5LTmake_dataset_string``)."""
    data = text.encode("utf-8")
    size = len(data) + 1
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    if not text.isascii():
        tid.set_cset(h5py.h5t.CSET_UTF8)
    space = h5py.h5s.create(h5py.h5s.SCALAR)
    dsid = h5py.h5d.create(group.id, name.encode(), tid, space)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(data, dtype=f"S{size}"), mtype=tid)


def _write_csc(group, matrix: sp.spmatrix, source: str, name: str) -> None:
    """A matrix group in compressed columns (``nz = -1``, ``nzmax = nnz``)."""
    A = sp.csc_matrix(matrix, dtype=float, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    if A.nnz > _INT32_MAX or max(A.shape) > _INT32_MAX:
        raise PFCError(f"{source}: '{name}' is too large for FCLIB's 32-bit indices")
    m, n = A.shape
    _write_int(group, "nzmax", A.nnz)
    _write_int(group, "m", m)
    _write_int(group, "n", n)
    _write_int(group, "nz", -1)
    group.create_dataset("p", data=A.indptr.astype(np.int32))
    group.create_dataset("i", data=A.indices.astype(np.int32))
    group.create_dataset("x", data=A.data.astype(np.float64))


def _solution_arrays(solution: Mapping, problem: GlobalProblem, source: str) -> dict:
    sizes = {"v": problem.n, "u": problem.b.size, "r": problem.b.size}
    out = {}
    for key, size in sizes.items():
        if key not in solution or solution[key] is None:
            raise PFCError(f"{source}: the solution has no '{key}' (FCLIB's solution "
                           "needs v, u and r)")
        value = np.asarray(solution[key], dtype=np.float64).ravel()
        if value.size != size:
            raise PFCError(f"{source}: solution '{key}' has {value.size} entries, "
                           f"expected {size}")
        out[key] = value
    return out


def write(path, problem: GlobalProblem, solution: Mapping | None = None) -> None:
    """Write ``problem`` (and a solution) as an FCLIB global problem.

    The file is created or truncated.  Layout (see the module docstring and
    ``fclib_write_global``/``fclib_write_solution`` in fclib's
    ``src/fclib.c``):

    * ``/fclib_global/spacedim``: int32 (1,), ``problem.d``;
    * ``/fclib_global/M`` and ``/fclib_global/H``: matrix groups in
      compressed columns: int32 (1,) ``nzmax`` (= number of stored entries),
      ``m``, ``n``, ``nz = -1``; int32 ``p`` (n+1,), ``i`` (nzmax,);
      float64 ``x`` (nzmax,);
    * ``/fclib_global/vectors``: float64 ``f`` = ``q``, ``w`` = ``b``, ``mu``;
    * ``/fclib_global/info``: null-terminated strings ``title``
      (``problem.info["title"]`` or ``"fecontact export"``), ``description``
      (``json.dumps(problem.info)``) and ``math_info`` (empty);
    * ``/solution`` (only with ``solution``): float64 ``v`` (n,), ``u`` and
      ``r`` (m d,).

    ``problem.rigid_modes`` are not part of FCLIB and are not written.

    Parameters
    ----------
    path : str or os.PathLike
    problem : GlobalProblem
    solution : mapping, optional
        ``{"v": global velocity (n,), "u": local velocity (m d,),
        "r": reaction (m d,)}``.

    Raises
    ------
    PFCError
        h5py missing, a solution entry missing or of the wrong size, or the
        file cannot be written.
    """
    h5py = _h5py()
    source = os.fspath(path)
    arrays = None if solution is None else _solution_arrays(solution, problem, source)
    info = dict(problem.info or {})
    title = str(info.get("title", "fecontact export"))
    description = json.dumps(info, sort_keys=True, default=str)
    try:
        with h5py.File(path, "w") as f:
            root = f.create_group(ROOT)
            _write_int(root, "spacedim", problem.d)
            _write_csc(root.create_group("M"), problem.M, source, "M")
            _write_csc(root.create_group("H"), problem.H, source, "H")
            vectors = root.create_group("vectors")
            vectors.create_dataset("f", data=problem.q.astype(np.float64))
            vectors.create_dataset("w", data=problem.b.astype(np.float64))
            vectors.create_dataset("mu", data=problem.mu.astype(np.float64))
            group = root.create_group("info")
            _write_string(h5py, group, "title", title)
            _write_string(h5py, group, "description", description)
            _write_string(h5py, group, "math_info", "")
            if arrays is not None:
                group = f.create_group(SOLUTION)
                for key in ("v", "u", "r"):
                    group.create_dataset(key, data=arrays[key])
    except OSError as exc:
        raise PFCError(f"{source}: cannot write the FCLIB file ({exc})") from None


# ----------------------------------------------------------------- reading

class _Reader:
    """Lookups in an open file; failures are one-line :class:`PFCError`."""

    def __init__(self, h5py, f, source: str):
        self.h5py, self.f, self.source = h5py, f, source

    def fail(self, message: str):
        raise PFCError(f"{self.source}: {message}")

    def group(self, name: str, why: str = ""):
        obj = self.f.get(name)
        if not isinstance(obj, self.h5py.Group):
            self.fail(f"no '{name}' group{why}")
        return obj

    def array(self, group, name: str, dtype) -> np.ndarray:
        full = f"{group.name}/{name}"
        obj = group.get(name)
        if not isinstance(obj, self.h5py.Dataset):
            self.fail(f"no '{full}' dataset")
        try:
            value = np.asarray(obj[()])
            if value.dtype.kind not in "iuf":
                raise TypeError(f"type {value.dtype}")
            out = value.astype(dtype).ravel()
        except (TypeError, ValueError, OSError) as exc:
            self.fail(f"'{full}' is not numeric ({exc})")
        if dtype is np.int64 and not np.array_equal(out, value.ravel()):
            self.fail(f"'{full}' must hold integers")
        return out

    def vector(self, group, name: str, size: int) -> np.ndarray:
        value = self.array(group, name, np.float64)
        if value.size != size:
            self.fail(f"'{group.name}/{name}' has {value.size} entries, expected {size}")
        return value

    def integer(self, group, name: str) -> int:
        value = self.array(group, name, np.int64)
        if value.size != 1:
            self.fail(f"'{group.name}/{name}' has {value.size} entries, expected 1")
        return int(value[0])

    def string(self, group, name: str) -> str | None:
        obj = group.get(name)
        if obj is None:
            return None
        if not isinstance(obj, self.h5py.Dataset):
            self.fail(f"'{group.name}/{name}' is not a dataset")
        value = obj[()]
        if isinstance(value, np.ndarray):
            value = value.ravel()[0] if value.size else b""
        if isinstance(value, bytes):
            value = value.split(b"\0", 1)[0].decode("utf-8", errors="replace")
        if not isinstance(value, str):
            self.fail(f"'{group.name}/{name}' is not a string")
        return value

    def matrix(self, name: str) -> sp.csc_matrix:
        g = self.group(f"{ROOT}/{name}", " (not an FCLIB global problem)")
        where = g.name
        nzmax, m, n, nz = (self.integer(g, key) for key in ("nzmax", "m", "n", "nz"))
        if m < 0 or n < 0 or nzmax < 0:
            self.fail(f"'{where}' has negative sizes (m={m}, n={n}, nzmax={nzmax})")
        p = self.array(g, "p", np.int64)
        i = self.array(g, "i", np.int64)
        x = self.array(g, "x", np.float64)
        if nz >= 0:                                   # triplet: p column, i row
            for key, arr in (("p", p), ("i", i), ("x", x)):
                if arr.size < nz:
                    self.fail(f"'{where}/{key}' has {arr.size} entries, expected nz = {nz}")
            rows, cols, vals = i[:nz], p[:nz], x[:nz]
            for key, idx, bound, what in (("i", rows, m, "row"), ("p", cols, n, "column")):
                if idx.size and (idx.min() < 0 or idx.max() >= bound):
                    self.fail(f"'{where}/{key}' has {what} indices outside [0, {bound}) "
                              f"(triplet: p = column, i = row, as in CSparse)")
            return sp.csc_matrix(sp.coo_matrix((vals, (rows, cols)), shape=(m, n)))
        if nz in (-1, -2):                            # compressed columns / rows
            major, minor = (n, m) if nz == -1 else (m, n)
            if p.size != major + 1:
                self.fail(f"'{where}/p' has {p.size} entries, expected {major + 1}")
            count = int(p[-1])
            if p[0] != 0 or np.any(np.diff(p) < 0):
                self.fail(f"'{where}/p' is not a pointer array (non-decreasing from 0)")
            for key, arr in (("i", i), ("x", x)):
                if arr.size < count:
                    self.fail(f"'{where}/{key}' has {arr.size} entries, "
                              f"expected p[-1] = {count}")
            idx = i[:count]
            if idx.size and (idx.min() < 0 or idx.max() >= minor):
                self.fail(f"'{where}/i' has indices outside [0, {minor})")
            kind = sp.csc_matrix if nz == -1 else sp.csr_matrix
            return sp.csc_matrix(kind((x[:count], idx, p), shape=(m, n)))
        self.fail(f"'{where}/nz' is {nz}: not a triplet (>= 0), "
                  "compressed column (-1) or compressed row (-2) matrix")


def _info(reader: _Reader, root) -> dict:
    group = root.get("info")
    if not isinstance(group, reader.h5py.Group):
        return {}
    fields = {key: reader.string(group, key) for key in ("title", "description", "math_info")}
    try:
        info = json.loads(fields["description"] or "")
    except ValueError:
        info = None
    if isinstance(info, dict):
        return info
    return {key: value for key, value in fields.items() if value is not None}


def read(path) -> tuple[GlobalProblem, dict | None]:
    """Read an FCLIB global problem and its solution, if the file has one.

    Reads the layout of ``fclib_read_global``/``fclib_read_solution`` (module
    docstring): ``/fclib_global/spacedim``; the matrix groups
    ``/fclib_global/M`` and ``/fclib_global/H`` (datasets ``nzmax``, ``m``,
    ``n``, ``nz``, ``p``, ``i``, ``x``) in compressed columns (``nz = -1``),
    compressed rows (``nz = -2``) or triplets (``nz >= 0``, ``p`` = column,
    ``i`` = row); ``/fclib_global/vectors/{f, w, mu}``; the optional
    ``/fclib_global/info/{title, description, math_info}`` and
    ``/solution/{v, u, r}``.  ``/guesses`` and matrix infos are ignored.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    problem : GlobalProblem
        ``q`` from ``f``, ``b`` from ``w``; no rigid modes.
    solution : dict or None
        ``{"v", "u", "r"}`` from ``/solution``, else None.

    Raises
    ------
    PFCError
        One line naming the file and the missing or bad group or dataset:
        not an HDF5 file, no ``/fclib_global`` (or one of its parts),
        inconsistent sizes, equality constraints ``G``, or h5py missing.
    """
    h5py = _h5py()
    source = os.fspath(path)
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise PFCError(f"{source}: cannot open as HDF5 ({exc})") from None
    with f:
        reader = _Reader(h5py, f, source)
        if ROOT not in f and isinstance(f.get("/fclib_local"), h5py.Group):
            reader.fail(f"no '{ROOT}' group (the file holds an FCLIB local problem "
                        "'/fclib_local', not a global one)")
        root = reader.group(ROOT, " (not an FCLIB global problem)")
        d = reader.integer(root, "spacedim")
        if d not in (2, 3):
            reader.fail(f"'{ROOT}/spacedim' is {d}, expected 2 or 3")
        M = reader.matrix("M")
        H = reader.matrix("H")
        if "G" in root:
            reader.fail(f"'{ROOT}/G' holds equality constraints G^T v + b = 0, "
                        "which GlobalProblem does not support")
        n = M.shape[0]
        if M.shape[1] != n:
            reader.fail(f"'{ROOT}/M' is {M.shape[0]} x {M.shape[1]}, not square")
        if H.shape[0] != n:
            reader.fail(f"'{ROOT}/H' has {H.shape[0]} rows, expected {n} from '{ROOT}/M'")
        if H.shape[1] % d:
            reader.fail(f"'{ROOT}/H' has {H.shape[1]} columns, not a multiple of "
                        f"spacedim = {d}")
        n_local = H.shape[1]
        vectors = reader.group(f"{ROOT}/vectors", " (not an FCLIB global problem)")
        q = reader.vector(vectors, "f", n)
        b = reader.vector(vectors, "w", n_local)
        mu = reader.vector(vectors, "mu", n_local // d)
        info = _info(reader, root)

        solution = None
        if SOLUTION in f:
            group = reader.group(SOLUTION)
            solution = {"v": reader.vector(group, "v", n),
                        "u": reader.vector(group, "u", n_local),
                        "r": reader.vector(group, "r", n_local)}

    return GlobalProblem(M=M, H=H, q=q, b=b, mu=mu, d=d, info=info, source=source), solution
