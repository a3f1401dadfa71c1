"""fecontact and GetFEM side by side on the same Hertz problems, at equal DOFs.

Usage::

    apt-get install python3-getfem            # Debian's GetFEM (system Python only)
    python docs/make_comparison.py             # solve, write docs/comparison.json and .md
    python docs/make_comparison.py --page-only # the page again from docs/comparison.json

Three problems are built from the bundled case files with overrides:

(a) ``cases/hertz2d.toml`` in one increment (P1 triangles, frictionless);
(b) ``cases/hertz2d_friction.toml`` in 10 increments, Coulomb friction
    ``mu = 0.3`` as in the case file;
(c) ``cases/hertz3d.toml`` in one increment (P1 tetrahedra, frictionless).

fecontact solves each through :func:`fecontact.run.static.run` (no VTU
files).  GetFEM solves the same discrete problem: the nodes and elements of
fecontact's generated mesh (``gf.Mesh('ptND', p, t)``), P1 Lagrange elements
(the DOF counts are checked equal, else the script stops), the same Lamé
parameters, the very DOFs and values fecontact prescribes (as the explicit
constraint ``B u = g`` with multipliers), the same slave facets as the
contact region (checked facet by facet) and the rigid plane as a signed
distance.  Contact is GetFEM's nodal contact brick, unsymmetric
Alart--Curnier (augmentation version 1), solved by ``Model.solve``.

Both results are judged by the same code,
:func:`fecontact.references.metrics.evaluate_reference`: GetFEM's multiplier
``lambda_N`` is the equivalent nodal contact force (negative in
compression), turned into a nodal pressure ``p_i = -lambda_N,i / A_i`` with
``A_i`` the lumped nodal area of fecontact's contact surface
(``ContactPair.slave.area``, the integral of the node's shape function over
the contact boundary), for which fecontact's own nodal force is ``A_i p_i``.

GetFEM imports only in Debian's system interpreter (``/usr/bin/python3``);
when ``import getfem`` fails here, every GetFEM solve runs in a subprocess
of that interpreter (this file with ``--getfem-worker``), the problem going
in as a ``.npz`` and the results coming back as JSON.  Without GetFEM the
script says so and exits 0, leaving the page as it is.

Written: ``docs/comparison.json`` (every figure) and ``docs/comparison.md``
(the page, from the JSON alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CASES = ROOT / "cases"
JSON_PATH = DOCS / "comparison.json"
PAGE_PATH = DOCS / "comparison.md"
#: Debian's interpreter, the one python3-getfem installs into
SYSTEM_PYTHON = "/usr/bin/python3"
#: GetFEM's ``max_res``: the l1 norm of the whole residual (see the page)
GETFEM_MAX_RES = 1e-9
GETFEM_MAX_ITER = 100
#: GetFEM's augmentation version: 1 = unsymmetric Alart--Curnier
AUGMENTATION = 1
#: mesh region number of the contact boundary in the GetFEM mesh
CONTACT_REGION = 5

#: the problems: case file, overrides, and the runs made of it
PROBLEMS = (
    dict(key="hertz2d", title="(a) Hertz 2D, frictionless", case="hertz2d.toml",
         overrides=["steps.count=1"],
         fecontact=[dict(role="case", label="fecontact", extra=[])],
         getfem=[dict(role="getfem", label="GetFEM", friction=None)]),
    dict(key="hertz2d_friction", title="(b) Hertz 2D, Coulomb mu = {mu:g}",
         case="hertz2d_friction.toml", overrides=["steps.count=10"],
         fecontact=[dict(role="case", label="fecontact (case as is: max_closing = {max_closing})", extra=[]),
                    dict(role="no_limit", label="fecontact (no closing limit)",
                         extra=["solver.max_closing=1000000"])],
         getfem=[dict(role="incremental", label="GetFEM (basic brick, slip per increment)",
                      friction="incremental"),
                 dict(role="total", label="GetFEM (rigid-obstacle brick, slip from reference)",
                      friction="total")],
         agreement=("no_limit", "incremental")),
    dict(key="hertz3d", title="(c) Hertz 3D, frictionless", case="hertz3d.toml",
         overrides=["steps.count=1"],
         fecontact=[dict(role="case", label="fecontact", extra=[])],
         getfem=[dict(role="getfem", label="GetFEM", friction=None)]),
)


# ---------------------------------------------------------------------------
# GetFEM side: imports numpy and getfem only (it runs in Debian's interpreter)
# ---------------------------------------------------------------------------

def _node_dof_map(mf, points: np.ndarray) -> np.ndarray:
    """First GetFEM DOF of every mesh node, shape (n_nodes,).

    GetFEM numbers the DOFs of a vector P1 field by its own enumeration of the
    elements, ``dim`` consecutive DOFs (the components) per node; the node of
    a DOF is found by its coordinates, which are the mesh points exactly.

    Parameters
    ----------
    mf : getfem.MeshFem
        A P1 Lagrange field with ``qdim == dim``.
    points : ndarray, shape (dim, n_nodes)
        The mesh nodes (fecontact's numbering).

    Returns
    -------
    ndarray of int
        ``first[n]``: DOF of component 0 of node ``n``; component ``c`` is ``first[n] + c``.

    Raises
    ------
    RuntimeError
        If the DOF nodes are not the mesh points, ``dim`` consecutive DOFs per node.
    """
    dim, n = points.shape
    dof_nodes = mf.basic_dof_nodes()
    first = dof_nodes[:, ::dim]
    if first.shape[1] != n or any(not np.array_equal(first, dof_nodes[:, c::dim]) for c in range(1, dim)):
        raise RuntimeError("GetFEM's DOFs are not dim consecutive components per mesh node")
    by_dof = np.lexsort(first[::-1])
    by_node = np.lexsort(points[::-1])
    k = np.empty(n, dtype=np.int64)
    k[by_node] = by_dof
    if not np.array_equal(first[:, k], points):
        raise RuntimeError("GetFEM's DOF nodes are not the mesh points")
    return dim * k


def _contact_faces(m, t: np.ndarray, facets: np.ndarray) -> np.ndarray:
    """The boundary faces of the GetFEM mesh that are fecontact's slave facets, shape (2, n_facets).

    Face ``f`` of a simplex is the one opposite its vertex ``f`` (GetFEM's
    convention for the simplex geometric transformations); a face is kept
    when its vertices are those of a slave facet, and every slave facet must
    be found exactly once.

    Parameters
    ----------
    m : getfem.Mesh
        The mesh built from ``p`` and ``t``.
    t : ndarray, shape (dim + 1, n_elements)
        The elements (fecontact's node numbers).
    facets : ndarray, shape (dim, n_facets)
        fecontact's slave facets.

    Returns
    -------
    ndarray
        Rows: element id, local face number.

    Raises
    ------
    RuntimeError
        If the faces found are not exactly the slave facets.
    """
    outer = np.asarray(m.outer_faces(), dtype=np.int64)
    cv, f = outer
    nv = t.shape[0]
    verts = t[:, cv]                                            # (nv, n_outer)
    others = (f[None, :] + np.arange(1, nv)[:, None]) % nv      # the vertices of face f
    ours = np.sort(verts[others, np.arange(cv.size)], axis=0)
    theirs = np.sort(np.asarray(facets, np.int64), axis=0)
    base = int(max(t.max(), theirs.max())) + 1

    def key(v):
        return np.sum(v * base ** np.arange(v.shape[0])[::-1, None], axis=0)

    keep = np.isin(key(ours), key(theirs))
    if keep.sum() != theirs.shape[1] or np.unique(key(ours[:, keep])).size != theirs.shape[1]:
        raise RuntimeError(f"the GetFEM boundary faces ({int(keep.sum())} found) are not fecontact's "
                           f"{theirs.shape[1]} slave facets")
    return outer[:, keep]


def _selection(nb: int, dofs: np.ndarray, gf):
    """Sparse matrix ``S`` (len(dofs) x nb) with ``S[i, dofs[i]] = 1``, as a GetFEM Spmat."""
    return gf.Spmat("copy", gf.Spmat("identity", nb), [int(d) for d in dofs], list(range(nb)))


def _tangents(normal: np.ndarray) -> np.ndarray:
    """Orthonormal tangent vectors to ``-normal`` by Gram--Schmidt on the axes, shape (dim - 1, dim).

    The construction of GetFEM's nodal contact bricks
    (``orthonormal_basis_to_unit_vec``); the sign of a tangent does not matter.
    """
    un = -np.asarray(normal, float)
    dim = un.size
    out = []
    for k in range(dim):
        v = np.eye(dim)[k] - (np.eye(dim)[k] @ un) * un
        for w in out:
            v = v - (w @ v) * w
        if np.linalg.norm(v) >= 1e-3:
            out.append(v / np.linalg.norm(v))
        if len(out) == dim - 1:
            break
    return np.array(out)


def getfem_solve(data: dict, friction: str | None) -> dict:
    """Solve one problem with GetFEM's nodal contact bricks and return its figures.

    Parameters
    ----------
    data : dict
        The problem (see :func:`problem_data`): ``p``, ``t``, ``E``, ``nu``,
        ``fixed_nodes``, ``fixed_components``, ``fixed_values`` (one row per
        load level), ``levels``, ``slave`` (nodes), ``facets``, ``point`` and
        ``normal`` of the rigid plane, ``mu``.
    friction : {None, "incremental", "total"}
        ``None``: frictionless, :meth:`Model.add_nodal_contact_with_rigid_obstacle_brick`.
        ``"incremental"``: Coulomb friction on the slip of each increment,
        :meth:`Model.add_basic_contact_brick` with ``gamma = -1`` and ``w_T``
        the displacement of the previous level (the brick's friction acts on
        ``B_T (u + gamma w_T)``).  ``"total"``: Coulomb friction by the
        rigid-obstacle brick, which has no previous-displacement input: its
        slip is measured from the reference configuration.

    Returns
    -------
    dict
        ``dofs``, ``newton_iterations`` (per level), ``converged`` (per
        level), ``normal_force`` (``-lambda_N``, per slave node in
        ``data["slave"]`` order), ``status`` (``"open"``, ``"stick"``,
        ``"slip"`` per slave node, from GetFEM's own active-set tests),
        ``time_setup_s`` (mesh, fields, model and bricks), ``time_solve_s``
        (the ``Model.solve`` calls: assembly and linear solves of every Newton
        iteration), ``time_total_s``, ``shared_libraries`` (the MUMPS and
        SuperLU libraries loaded in the process).
    """
    import getfem as gf

    tic = time.perf_counter()
    p = np.asarray(data["p"], float)
    t = np.asarray(data["t"], np.int64)
    dim = p.shape[0]
    E, nu = float(data["E"]), float(data["nu"])
    normal = np.asarray(data["normal"], float)
    point = np.asarray(data["point"], float)
    slave = np.asarray(data["slave"], np.int64)
    mu = float(data["mu"])

    m = gf.Mesh("ptND", p, t.astype(np.int32))
    mf = gf.MeshFem(m, dim)
    mf.set_classical_fem(1)
    nb = int(mf.nbdof())
    mim = gf.MeshIm(m, gf.Integ("IM_TRIANGLE(2)" if dim == 2 else "IM_TETRAHEDRON(2)"))
    first = _node_dof_map(mf, p)
    m.set_region(CONTACT_REGION, _contact_faces(m, t, np.asarray(data["facets"])))

    md = gf.Model("real")
    md.add_fem_variable("u", mf)
    # plane strain in 2D: the 3D Lame parameters
    md.add_initialized_data("lambda", [E * nu / ((1 + nu) * (1 - 2 * nu))])
    md.add_initialized_data("mu", [E / (2 * (1 + nu))])
    md.add_isotropic_linearized_elasticity_brick(mim, "u", "lambda", "mu")

    fixed = first[np.asarray(data["fixed_nodes"], np.int64)] + np.asarray(data["fixed_components"], np.int64)
    values = np.asarray(data["fixed_values"], float)
    md.add_variable("dirichlet_multiplier", fixed.size)
    md.add_initialized_data("dirichlet_value", values[0])
    md.add_constraint_with_multipliers("u", "dirichlet_multiplier", _selection(nb, fixed, gf), "dirichlet_value")

    # the contact nodes in GetFEM's order: component-0 DOFs on the region, ascending
    region_dofs = np.sort(np.asarray(mf.basic_dof_on_region(CONTACT_REGION), np.int64))
    node_of_first = np.full(nb, -1, np.int64)
    node_of_first[first] = np.arange(first.size)
    contact_nodes = node_of_first[region_dofs[region_dofs % dim == 0]]
    if contact_nodes.size != slave.size or set(contact_nodes.tolist()) != set(slave.tolist()):
        raise RuntimeError("the GetFEM contact nodes are not fecontact's slave nodes")
    if friction == "incremental":
        contact_nodes = slave                      # the basic brick: rows in fecontact's order
    nc = contact_nodes.size
    cdofs = first[contact_nodes]
    xmin, xmax = p.min(axis=1), p.max(axis=1)
    ell = float(np.max(xmax - xmin))
    # the brick's homogenisation alpha_i = (M_Gamma)_ii / l, M_Gamma the boundary mass matrix
    alpha = np.asarray(gf.asm_mass_matrix(mim, mf, mf, CONTACT_REGION).diag(), float).ravel()[cdofs] / ell
    gap = (p[:, contact_nodes] - point[:, None]).T @ normal
    tangents = _tangents(normal)
    d = dim - 1

    md.add_variable("lambda_n", nc)
    md.add_initialized_data("r", [E])
    expr = " + ".join(f"({'xyz'[k]} - ({point[k]!r}))*({normal[k]!r})" for k in range(dim))
    if friction is None:
        md.add_nodal_contact_with_rigid_obstacle_brick(mim, "u", "lambda_n", "r", CONTACT_REGION, expr,
                                                       AUGMENTATION)
    else:
        md.add_variable("lambda_t", nc * d)
        md.add_initialized_data("friction_coeff", [mu])
        if friction == "total":
            md.add_nodal_contact_with_rigid_obstacle_brick(mim, "u", "lambda_n", "lambda_t", "r",
                                                           "friction_coeff", CONTACT_REGION, expr,
                                                           AUGMENTATION)
        else:
            BN = gf.Spmat("empty", nc, nb)
            BT = gf.Spmat("empty", nc * d, nb)
            for k in range(dim):
                block = _selection(nb, cdofs + k, gf)
                if normal[k] != 0.0:
                    nk = gf.Spmat("copy", block)
                    nk.scale(-float(normal[k]))
                    BN.add(list(range(nc)), list(range(nb)), nk)
                for j in range(d):
                    if tangents[j, k] != 0.0:
                        tk = gf.Spmat("copy", block)
                        tk.scale(float(tangents[j, k]))
                        BT.add(list(range(j, nc * d, d)), list(range(nb)), tk)
            md.add_initialized_data("gap", gap)
            md.add_initialized_data("alpha", alpha)
            md.add_initialized_data("gamma", [-1.0])
            md.add_initialized_data("wt", np.zeros(nb))
            md.add_basic_contact_brick("u", "lambda_n", "lambda_t", "r", BN, BT, "friction_coeff", "gap",
                                       "alpha", AUGMENTATION, "gamma", "wt")
    setup = time.perf_counter() - tic

    iterations, converged = [], []
    solve = 0.0
    u = u_start = np.zeros(nb)
    for row in values:
        u_start = u                                # w_T of this level: the last level's solution
        md.set_variable("dirichlet_value", row)
        if friction == "incremental":
            md.set_variable("wt", u_start)
        tic_solve = time.perf_counter()
        out = md.solve("max_iter", GETFEM_MAX_ITER, "max_res", GETFEM_MAX_RES)
        solve += time.perf_counter() - tic_solve
        nit, conv = out if isinstance(out, (tuple, list)) else (out, 1)
        iterations.append(int(nit))
        converged.append(bool(conv))
        u = np.asarray(md.variable("u"), float)

    # the brick's own active-set tests at the solution (its Alart--Curnier arguments)
    lam_n = np.asarray(md.variable("lambda_n"), float)
    node_u = u[cdofs[:, None] + np.arange(dim)]
    rln = lam_n + E * alpha * (gap + node_u @ normal)
    status = np.where(rln > 0.0, "open", "stick").astype(object)
    if friction is not None:
        lam_t = np.asarray(md.variable("lambda_t"), float).reshape(nc, d)
        slip = node_u @ tangents.T
        if friction == "incremental":
            slip = slip - u_start[cdofs[:, None] + np.arange(dim)] @ tangents.T
        rlt = lam_t - E * alpha[:, None] * slip
        radius = -mu * np.minimum(rln, 0.0)
        status[(rln <= 0.0) & (np.linalg.norm(rlt, axis=1) > radius)] = "slip"
    else:
        status[rln <= 0.0] = "slip"                # frictionless: closed nodes slide
    order = np.argsort(contact_nodes)
    at = order[np.searchsorted(contact_nodes[order], slave)]
    total = time.perf_counter() - tic
    maps = Path("/proc/self/maps")
    libs = sorted({line.rsplit("/", 1)[-1] for line in maps.read_text().splitlines()
                   if ("mumps" in line or "superlu" in line) and "/" in line}) if maps.exists() else []
    return dict(dofs=nb, newton_iterations=iterations, converged=converged,
                normal_force=(-lam_n[at]).tolist(), status=status[at].tolist(),
                contact_nodes=int(nc), time_setup_s=setup, time_solve_s=solve, time_total_s=total,
                shared_libraries=libs)


def _worker(argv) -> int:
    """``--getfem-worker IN.npz OUT.json FRICTION``: :func:`getfem_solve` in this process."""
    source, target, friction = argv
    with np.load(source) as npz:
        data = {key: npz[key] for key in npz.files}
    result = getfem_solve(data, None if friction == "none" else friction)
    Path(target).write_text(json.dumps(result))
    return 0


def getfem_here() -> bool:
    """Whether ``import getfem`` works in this interpreter."""
    from importlib import import_module

    try:
        import_module("getfem")
    except ImportError:
        return False
    return True


def getfem_interpreter() -> str | None:
    """The interpreter that runs GetFEM: this one, else Debian's, else ``None``."""
    if getfem_here():
        return sys.executable
    if Path(SYSTEM_PYTHON).exists() and subprocess.run(
            [SYSTEM_PYTHON, "-c", "import getfem"], capture_output=True).returncode == 0:
        return SYSTEM_PYTHON
    return None


def run_getfem(data: dict, friction: str | None, workdir: Path) -> dict:
    """:func:`getfem_solve` here when GetFEM imports, else in a subprocess of Debian's Python.

    Parameters
    ----------
    data : dict
        The problem (:func:`problem_data`).
    friction : {None, "incremental", "total"}
    workdir : Path
        Where the ``.npz`` and the JSON of a subprocess go.

    Returns
    -------
    dict
        :func:`getfem_solve`'s figures, plus ``process_s``: the wall time of
        the subprocess (interpreter start, imports and reading the problem
        included), or of the call.
    """
    tic = time.perf_counter()
    if getfem_here():
        result = getfem_solve(data, friction)
    else:
        source, target = workdir / "problem.npz", workdir / "result.json"
        np.savez(source, **data)
        proc = subprocess.run([SYSTEM_PYTHON, str(Path(__file__).resolve()), "--getfem-worker", str(source),
                               str(target), friction or "none"], capture_output=True, text=True)
        if proc.returncode != 0 or not target.exists():
            raise RuntimeError(f"the GetFEM subprocess failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        result = json.loads(target.read_text())
        target.unlink()
    result["process_s"] = time.perf_counter() - tic
    return result


# ---------------------------------------------------------------------------
# fecontact side
# ---------------------------------------------------------------------------

def problem_data(model) -> dict:
    """The discrete problem of a built case, as arrays GetFEM can be given.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
        One elastic P1 body on a rigid line (2D, plane strain) or plane (3D)
        that does not move, one contact pair.

    Returns
    -------
    dict
        ``p``, ``t`` (the skfem mesh), ``E``, ``nu``, ``levels``, the
        prescribed DOFs as ``fixed_nodes``, ``fixed_components`` and
        ``fixed_values`` (shape (levels, fixed DOFs): fecontact's own
        ``prescribed(t)``), ``slave`` (global nodes, in the order of the
        contact unknowns), ``facets``, the plane's ``point`` and unit
        ``normal`` (towards the body) and the friction coefficient ``mu``.

    Raises
    ------
    SystemExit
        For a problem outside that family.
    """
    from fecontact.contact.obstacles import RigidLine
    from fecontact.references.metrics import model_slave_nodes

    problem = model.problem
    system = problem.system
    if len(system.bodies) != 1 or len(problem.pairs) != 1:
        raise SystemExit("make_comparison: one body and one contact pair only")
    body, pair = system.bodies[0], problem.pairs[0]
    if body.element != "P1" or not isinstance(pair.master, RigidLine) or np.any(pair.master.displacement):
        raise SystemExit("make_comparison: a P1 body on a fixed rigid line or plane only")
    if system.dim == 2 and body.plane_model != "plane_strain":
        raise SystemExit("make_comparison: plane strain only in 2D")
    dim, n = system.dim, body.mesh.p.shape[1]
    if not np.array_equal(system.node_dofs(np.arange(n)), np.arange(dim * n).reshape(n, dim)):
        raise SystemExit("make_comparison: fecontact's DOFs are expected node by node")
    fixed = np.flatnonzero(system.fixed)
    return dict(p=np.asarray(body.mesh.p, float), t=np.asarray(body.mesh.t, np.int64),
                E=float(body.material.E), nu=float(body.material.nu),
                levels=np.asarray(model.levels, float),
                fixed_nodes=fixed // dim, fixed_components=fixed % dim,
                fixed_values=np.array([system.prescribed(level)[fixed] for level in model.levels]),
                slave=np.asarray(model_slave_nodes(model), np.int64),
                facets=np.asarray(pair.slave.facets, np.int64),
                point=np.asarray(pair.master.point, float),
                normal=np.asarray(pair.master.normal, float) / np.linalg.norm(pair.master.normal),
                mu=float(pair.friction.kinetic))


def judge(model, pressure: np.ndarray, status) -> dict:
    """Figures against Hertz by fecontact's own reference code, for any solver's nodal pressures.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    pressure : ndarray, shape (m,)
        Nodal contact pressure of every slave node, in the order of the
        contact unknowns.
    status : sequence of {"open", "stick", "slip"} or ndarray of fecontact statuses

    Returns
    -------
    dict
        :func:`fecontact.references.metrics.evaluate_reference` of a state
        carrying only these pressures and statuses.
    """
    from types import SimpleNamespace

    from fecontact.friction import OPEN, SLIP, STICK
    from fecontact.references.metrics import evaluate_reference

    codes = {"open": OPEN, "stick": STICK, "slip": SLIP}
    status = np.array([codes[s] if isinstance(s, str) else s for s in status])
    multiplier = np.zeros((pressure.size, model.problem.system.dim))
    multiplier[:, 0] = pressure
    return evaluate_reference(model, SimpleNamespace(multiplier=multiplier, status=status))


def run_fecontact(case_path: Path, overrides: list) -> tuple:
    """Solve a case with fecontact: ``(figures, result)``.

    Parameters
    ----------
    case_path : Path
    overrides : list of str

    Returns
    -------
    (dict, fecontact.run.result.RunResult)
        ``dofs``, ``backend``, ``newton_iterations``, ``increments`` (load
        increments solved, cut-backs included), ``time_total_s`` (the whole
        ``run``: mesh generation, assembly, solve, residual check, summary),
        ``time_setup_s`` (``timings.build``), ``time_mesh_s``,
        ``time_solve_s`` (``timings.contact_solve``: backend set-up, linear
        solves and contact work), ``converged``, and the pressures.
    """
    from fecontact.run.static import run

    with tempfile.TemporaryDirectory(prefix="fecontact-comparison-") as out:
        tic = time.perf_counter()
        result = run(case_path, out, overrides, write_vtu_files=False)
        wall = time.perf_counter() - tic
    s, t = result.summary, result.summary["timings"]
    pair = result.model.problem.pairs[0]
    return dict(dofs=int(s["dofs"]), backend=s["backend"],
                newton_iterations=int(sum(st["newton_iterations"] for st in s["steps"])),
                increments=int(sum(st.get("increments", 1) for st in s["steps"])),
                cutbacks=int(sum(st.get("cutbacks", 0) for st in s["steps"])),
                time_total_s=wall, time_setup_s=t["build"], time_mesh_s=t["build_mesh"],
                time_solve_s=t["contact_solve"], converged=bool(s["converged"]),
                newton_tolerance=float(result.model.newton.tolerance),
                contact_nodes=int(pair.n_nodes),
                coarse_dofs=(s.get("nested") or {}).get("coarse_dofs")), result


def _figures(metrics: dict) -> dict:
    """Load, peak pressure and contact size (value, reference, error) from a metrics dict."""
    size = "contact_half_width" if "contact_half_width" in metrics else "contact_radius"
    out = dict(load=metrics["load"]["value"],
               peak_pressure=metrics["peak_pressure"]["value"],
               peak_pressure_hertz=metrics["peak_pressure"]["reference"],
               peak_pressure_error=metrics["peak_pressure"]["rel_error"],
               contact_size_name=size.replace("_", " "),
               contact_size=metrics[size]["value"], contact_size_hertz=metrics[size]["reference"],
               contact_size_error=metrics[size]["rel_error"],
               pressure_l2_error=metrics["pressure_l2_error"]["value"])
    if "stick_half_width" in metrics:
        out["stick_half_width"] = metrics["stick_half_width"]["value"]
    return out


def _fastest(runs: list, key: str = "time_solve_s") -> tuple:
    """The run with the smallest ``key`` and every run's ``key``: ``(figures, result)`` with ``<key>_runs``.

    Parameters
    ----------
    runs : list of (dict, object)
        ``(figures, result)`` of the repeated runs of one solver on one problem.
    """
    times = [f[key] for f, _ in runs]
    figures, result = runs[int(np.argmin(times))]
    return dict(figures, time_solve_runs_s=times, repeats=len(runs)), result


def compare_problem(spec: dict, workdir: Path, echo=print, repeat: int = 1) -> dict:
    """Every fecontact and GetFEM run of one problem, judged alike.

    Parameters
    ----------
    spec : dict
        An entry of :data:`PROBLEMS`.
    workdir : Path
    echo : callable
    repeat : int
        Runs of each solver; the fastest solve is kept (the others' solve
        times in ``time_solve_runs_s``).  fecontact's and GetFEM's runs
        alternate when there is one GetFEM run per fecontact run.

    Returns
    -------
    dict
        ``key``, ``title``, ``case``, ``overrides``, ``dofs``,
        ``contact_nodes``, ``levels``, ``rows`` (one per run) and
        ``agreement`` (the largest nodal pressure difference and the load
        difference of the two runs compared, relative to fecontact's).

    Raises
    ------
    SystemExit
        If the DOF counts differ.
    """
    case_path = CASES / spec["case"]
    rows, pressures = [], {}
    model = None
    for run_spec in spec["fecontact"]:
        figures, result = _fastest([run_fecontact(case_path, spec["overrides"] + run_spec["extra"])
                                    for _ in range(repeat)])
        model = result.model
        p = np.asarray(result.state.multiplier[:, 0], float)
        figures.update(_figures(judge(model, p, result.state.status)))
        closing = model.case.get("solver", {}).get("max_closing")
        rows.append(dict(solver="fecontact", role=run_spec["role"],
                         label=run_spec["label"].format(max_closing=closing),
                         overrides=spec["overrides"] + run_spec["extra"], **figures))
        pressures[run_spec["role"]] = p
        echo(_progress(spec["key"], rows[-1]))
    data = problem_data(model)
    area = np.asarray(model.problem.pairs[0].slave.area, float)
    for run_spec in spec["getfem"]:
        gf_result, _ = _fastest([(run_getfem(data, run_spec["friction"], workdir), None)
                                 for _ in range(repeat)])
        if gf_result["dofs"] != rows[0]["dofs"]:
            raise SystemExit(f"make_comparison: {spec['key']}: GetFEM has {gf_result['dofs']} DOFs, "
                             f"fecontact {rows[0]['dofs']}: not the same discretisation, stopping")
        force = np.asarray(gf_result.pop("normal_force"), float)
        p = force / area                          # nodal force -> nodal pressure, as fecontact's A_i p_i
        status = gf_result.pop("status")
        iterations = gf_result.pop("newton_iterations")
        figures = dict(backend="MUMPS" if any(
            "dmumps" in lib for lib in gf_result["shared_libraries"]) else "see shared_libraries",
            newton_iterations=int(sum(iterations)), newton_iterations_per_level=iterations,
            increments=len(iterations), converged=bool(all(gf_result.pop("converged"))), **gf_result)
        figures.update(_figures(judge(model, p, status)))
        figures["friction_mode"] = run_spec["friction"]
        rows.append(dict(solver="GetFEM", role=run_spec["role"], label=run_spec["label"], **figures))
        pressures[run_spec["role"]] = p
        echo(_progress(spec["key"], rows[-1]))
    first, second = spec.get("agreement", (spec["fecontact"][0]["role"], spec["getfem"][0]["role"]))
    a, b = pressures[first], pressures[second]
    load = {r["role"]: r["load"] for r in rows}
    label = {r["role"]: r["label"] for r in rows}
    agreement = dict(between=[label[first], label[second]],
                     max_pressure_difference=float(np.max(np.abs(a - b)) / np.max(np.abs(a))),
                     load_difference=abs(load[first] - load[second]) / abs(load[first]))
    n = len(data["levels"])
    title = spec["title"].format(mu=float(data["mu"])) + f", {n} increment{'s' if n > 1 else ''}"
    return dict(key=spec["key"], title=title, case=f"cases/{spec['case']}", mu=float(data["mu"]),
                overrides=spec["overrides"], dofs=rows[0]["dofs"], contact_nodes=rows[0]["contact_nodes"],
                levels=[float(x) for x in data["levels"]], rows=rows, agreement=agreement)


def _progress(key: str, row: dict) -> str:
    return (f"{key}: {row['label']}: {row['dofs']} DOFs, {row['newton_iterations']} Newton it., "
            f"{row['time_total_s']:.2f} s (solve {row['time_solve_s']:.2f} s), load {row['load']:.6g}, "
            f"peak pressure error {100 * row['peak_pressure_error']:.2f} %")


def _version(module: str, dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return getattr(__import__(module), "__version__", "unknown")


def fecontact_source() -> dict:
    """Where the fecontact that was imported lives: its git commit and its uncommitted files.

    Returns
    -------
    dict
        ``fecontact_commit`` (``None`` outside a git work tree) and
        ``fecontact_modified`` (``git status --porcelain`` lines of the
        package folder: empty for a clean tree).
    """
    import fecontact

    pkg = Path(fecontact.__file__).resolve().parent

    def git(*args):
        proc = subprocess.run(["git", "-C", str(pkg), *args], capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else None

    return dict(fecontact_commit=git("rev-parse", "--short=12", "HEAD"),
                fecontact_modified=(git("status", "--porcelain", "--", ".") or "").splitlines())


def machine() -> dict:
    """Machine, CPUs, load average, date, versions of the three packages and fecontact's commit."""
    cpu = "unknown"
    info = Path("/proc/cpuinfo")
    if info.exists():
        names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    getfem_version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-getfem"],
                                    capture_output=True, text=True).stdout.strip() or "unknown"
    return dict(machine=platform.machine(), cpu=cpu, cpus=os.cpu_count(),
                python=platform.python_version(), date=time.strftime("%Y-%m-%d"),
                fecontact=_version("fecontact", "fecontact"), scikit_fem=_version("skfem", "scikit-fem"),
                getfem=getfem_version, getfem_python=getfem_interpreter(),
                load_average_start=list(os.getloadavg()), **fecontact_source())


# ---------------------------------------------------------------------------
# The page, from the JSON alone
# ---------------------------------------------------------------------------

def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.2f} %"


def results_table(data: dict) -> str:
    """The measured table: one row per run of every problem.

    Parameters
    ----------
    data : dict
        The contents of ``docs/comparison.json``.

    Returns
    -------
    str
        A Markdown table.
    """
    lines = ["| problem | DOFs | solver | linear solver | Newton it. (increments) | total s | solve s "
             "| load P | peak pressure error | contact size error | stick half-width |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for prob in data["problems"]:
        for r in prob["rows"]:
            stick = f"{r['stick_half_width']:.4f}" if "stick_half_width" in r else "–"
            lines.append(
                f"| {prob['title']} | {r['dofs']:,} | {r['label']} | {r['backend']} | "
                f"{r['newton_iterations']} ({r['increments']}) | {r['time_total_s']:.2f} | "
                f"{r['time_solve_s']:.2f} | {r['load']:.6g} | {_pct(r['peak_pressure_error'])} | "
                f"{_pct(r['contact_size_error'])} ({r['contact_size_name']}) | {stick} |")
    return "\n".join(lines) + "\n"


def speed_table(data: dict) -> str:
    """Solve times side by side: each fecontact run against the fastest GetFEM run of its problem.

    Parameters
    ----------
    data : dict
        The contents of ``docs/comparison.json``.

    Returns
    -------
    str
        A Markdown table: the runs per solver and the speed-up (GetFEM's
        solve time over fecontact's), target 3 or more.
    """
    lines = ["| problem | fecontact run | runs | fecontact solve s | fastest GetFEM solve s | "
             "GetFEM / fecontact |", "|---|---|---|---|---|---|"]
    for prob in data["problems"]:
        gf = min((r for r in prob["rows"] if r["solver"] == "GetFEM"), key=lambda r: r["time_solve_s"])
        for r in prob["rows"]:
            if r["solver"] != "fecontact":
                continue
            lines.append(f"| {prob['title']} | {r['label']} | {r.get('repeats', 1)} | "
                         f"{r['time_solve_s']:.2f} | {gf['time_solve_s']:.2f} ({gf['label']}) | "
                         f"{gf['time_solve_s'] / r['time_solve_s']:.2f} |")
    return "\n".join(lines) + "\n"


def agreement_table(data: dict) -> str:
    """Nodal pressures and loads of the two solvers compared, per problem."""
    lines = ["| problem | compared | largest nodal pressure difference | load difference |",
             "|---|---|---|---|"]
    for prob in data["problems"]:
        a = prob["agreement"]
        lines.append(f"| {prob['title']} | {a['between'][0]} / {a['between'][1]} | "
                     f"{a['max_pressure_difference']:.2e} of the peak | {a['load_difference']:.2e} |")
    return "\n".join(lines) + "\n"


def render_page(data: dict) -> str:
    """``docs/comparison.md`` from the contents of ``docs/comparison.json``.

    Parameters
    ----------
    data : dict

    Returns
    -------
    str
    """
    meta, tol = data["meta"], data["tolerances"]
    rows = {(p["key"], r["role"]): r for p in data["problems"] for r in p["rows"]}
    gf_rows = [r for p in data["problems"] for r in p["rows"] if r["solver"] == "GetFEM"]
    fc_backends = [f"`{r['backend']}` ({p['key']})" for p in data["problems"]
                   for r in p["rows"][:1] if r["solver"] == "fecontact"]
    fc_nested = [f"{p['key']}: {r['coarse_dofs']:,} DOFs" for p in data["problems"]
                 for r in p["rows"][:1] if r["solver"] == "fecontact" and r.get("coarse_dofs")]
    nested_text = ("" if not fc_nested else
                   " On the frictionless problems each increment starts from its solution on a coarser model of the "
                   "body ([nested iteration](developer/decisions/nested-iteration.md), `auto` for frictionless problems from "
                   f"10,000 unknowns; {', '.join(fc_nested)}), whose time is in fecontact's solve time.")
    libs = sorted({lib for r in gf_rows for lib in r["shared_libraries"]})
    load = meta["load_average_start"]
    shared = load[0] > 0.5 * meta["cpus"] or meta.get("load_average_end", [0])[0] > 0.5 * meta["cpus"]
    fc_b = rows[("hertz2d_friction", "case")]
    no_limit = rows[("hertz2d_friction", "no_limit")]
    total = rows[("hertz2d_friction", "total")]
    incr = rows[("hertz2d_friction", "incremental")]
    agree_b = next(p["agreement"] for p in data["problems"] if p["key"] == "hertz2d_friction")
    limit = fc_b["label"].split("max_closing = ")[-1].rstrip(")")
    n_levels = len(incr["newton_iterations_per_level"])
    probe = (", the extra one being the probe increment"
             if no_limit["increments"] == n_levels + 1 and no_limit["cutbacks"] == 0 else "")
    text = f"""# Comparison with GetFEM

The three Hertz problems of the benchmarks solved by fecontact {meta['fecontact']}
(scikit-fem {meta['scikit_fem']}) and by [GetFEM](https://getfem.org) {meta['getfem']}
(Debian's `python3-getfem`) on the same mesh, with the same P1 elements and so
the same number of DOFs. Every number on this page is read from
`docs/comparison.json`, written by `docs/make_comparison.py` on {meta['date']}.

## What is compared

| problem | case file and overrides | DOFs | contact nodes | load levels |
|---|---|---|---|---|
""" + "".join(f"| {p['title']} | `{p['case']}` `{' '.join(p['overrides'])}` | {p['dofs']:,} | "
              f"{p['contact_nodes']} | {len(p['levels'])} |\n" for p in data["problems"]) + f"""
**Same discrete problem.** The script builds each case with fecontact and
hands GetFEM the nodes and elements of fecontact's mesh
(`gf.Mesh('ptND', p, t)`), with P1 Lagrange elements on both sides: the DOF
counts are compared and the script stops if they differ. Young's modulus and
Poisson's ratio are the case's (plane strain in 2D: GetFEM's isotropic
linearised elasticity brick with the 3D Lamé parameters). The Dirichlet
conditions are the very DOFs and values fecontact prescribes at each load
level (`BulkSystem.prescribed(t)`), imposed in GetFEM as the explicit
constraint $B u = g$ with multipliers. The contact region is made of the
GetFEM boundary faces that are fecontact's slave facets (every facet found
exactly once, the region's nodes checked to be the slave nodes), and the rigid
plane is given to GetFEM as its signed distance.

**Contact formulations.** fecontact: node-to-segment (2D) and node-to-facet
(3D) contact against the rigid line or plane, Alart–Curnier equations in the
nodal pressures with a return map onto the Coulomb cone, solved by its
semismooth Newton method with an Armijo line search and the linear backend
`auto` picks ({', '.join(fc_backends)}).{nested_text} GetFEM: the nodal contact brick
(`add_nodal_contact_with_rigid_obstacle_brick`; for friction see below), the
unknowns being the equivalent nodal forces, unsymmetric Alart–Curnier
augmentation (version {tol['getfem_augmentation']}) with $r = E$ and the
brick's homogenisation $\\alpha_i = \\int_{{\\Gamma_c}} \\varphi_i^2\\,d\\Gamma / \\ell$
($\\ell$ the mesh's largest extent), solved by `Model.solve`, GetFEM's
generalised Newton method (Newton with step control), with the linear solver
GetFEM chooses by default: MUMPS for these sizes (the shared libraries loaded
in the GetFEM process: {', '.join(f'`{x}`' for x in libs)}). For a flat rigid
obstacle both discretisations are nodal non-penetration and nodal Coulomb
friction on the same nodes, so they are the same discrete problem: they differ
in the unknowns' scaling, the Newton globalisation and the stopping rule.

**Stopping rules.** fecontact: both the equilibrium and the complementarity
residuals (forces) below {tol['fecontact_relative']:g} times the force scale of
the bulk. GetFEM: `max_res` = {tol['getfem_max_res']:g}, `max_iter` =
{tol['getfem_max_iter']}; GetFEM stops when the l1 norm of the whole residual
(force rows in N/m or N, constraint and multiplier rows in m) divided by the
model's approximate external load is below `max_res`. These problems are
loaded by prescribed displacements only, for which that approximate load is
zero and GetFEM divides by 1: the test is absolute.

**Pressures, judged by the same code.** GetFEM's multiplier $\\lambda_N$ is the
equivalent nodal contact force, negative in compression. It is turned into
a nodal pressure $p_i = -\\lambda_{{N,i}} / A_i$ with $A_i = \\int_{{\\Gamma_c}}
\\varphi_i\\,d\\Gamma$, the lumped nodal area of fecontact's contact surface
(`ContactPair.slave.area`); fecontact's unknown is that pressure, its nodal
force being $A_i p_i$. The load is then $P = \\sum_i A_i p_i$ (the total
normal contact force) for both. Both sets of pressures, with each solver's
own open/stick/slip status (for GetFEM its brick's active-set tests at the
solution), go through `fecontact.references.metrics.evaluate_reference`:
the peak pressure and the contact size are compared with Hertz's formulas for
the computed load $P$.

**Friction, problem (b).** GetFEM's rigid-obstacle brick has no input for
the displacement at the start of an increment: its Coulomb law acts on the
tangential displacement measured from the reference configuration
(GetFEM's user documentation writes the nodal friction condition with the
slip $B_T u - B_T u^0$; the brick is the basic contact brick with $u^0 = 0$).
fecontact's Coulomb law acts on the slip of each increment. The comparison
therefore builds $B_N$, $B_T$, the gaps and $\\alpha_i$ as the rigid-obstacle
brick does and calls GetFEM's basic contact brick with its friction data
$\\gamma = -1$ and $w_T$ = the displacement of the previous level (the brick's
friction term is $B_T(u + \\gamma w_T)$): the slip of each increment, the
same law. The rigid-obstacle brick is run as well, as a second GetFEM row.
One refinement of fecontact's has no counterpart in GetFEM's bricks: a node
that closes inside an increment measures its slip from its predicted point of
first contact (`fecontact.contact.closing`), predicted from the rates of the
increment before, for the first level from a probe increment of 1 % of it
solved first; GetFEM's basic brick measures it from the node's position at
the previous level. fecontact runs the case as it is, with
`solver.max_closing = {limit}` (at most {limit} nodes close per increment,
increments shortened otherwise: {fc_b['increments']} increments in all), and
with no closing limit (`--set solver.max_closing=1000000`), the run compared
node by node with GetFEM's.

## How to run

```
apt-get install python3-getfem        # GetFEM for Debian's python3 only
python docs/make_comparison.py        # solves, writes docs/comparison.json and this page
python docs/make_comparison.py --page-only
```

GetFEM imports only in `/usr/bin/python3`; when `import getfem` fails in the
interpreter running the script, each GetFEM solve runs in a subprocess of
`/usr/bin/python3` (the problem passed as a `.npz`, the results returned as
JSON). Without GetFEM the script says so and leaves this page as it is.

## Results

{results_table(data)}
Solve times (the fastest of {meta.get('repeat', 1)} runs of each solver, alternating):

{speed_table(data)}
*Newton it.*: all Newton iterations of the run, summed over the increments
solved (fecontact's cut-back increments included). *total s*: fecontact's
whole `run` (mesh generation {', '.join(f"{p['rows'][0]['time_mesh_s']:.2f} s ({p['key']})" for p in data['problems'])},
assembly, solve, the independent residual check and the summary); GetFEM's
mesh import from the arrays, fields, model, bricks and solve (not the
interpreter's start-up or the transfer of the problem). *solve s*:
fecontact's `timings.contact_solve` (backend set-up, linear solves and contact
work); GetFEM's `Model.solve` calls (assembly of the tangent system and linear
solves at every Newton iteration: GetFEM's `solve` does not separate the two).
*peak pressure error*, *contact size error*: against Hertz for the computed
load (half-width in 2D, radius in 3D).

Agreement of the two solvers' nodal pressures (relative to fecontact's peak)
and loads:

{agreement_table(data)}
## Notes

- Problem (a) and (c) are the same discrete problem on both sides, so the
  loads and pressures agree to the solvers' tolerances; the accuracy against
  Hertz is that of the mesh, not of the solver.
- Problem (b), slip per increment: friction makes the solution depend on the
  load path. fecontact without a closing limit solved
  {no_limit['increments']} increments ({no_limit['cutbacks']} cut-back{'s' if no_limit['cutbacks'] != 1 else ''}{probe})
  for the {len(incr['newton_iterations_per_level'])} levels, GetFEM the
  {len(incr['newton_iterations_per_level'])} levels as given; their stick
  half-widths are {no_limit['stick_half_width']:.4f} and {incr['stick_half_width']:.4f}, their loads
  differ by {agree_b['load_difference']:.1e} and their nodal pressures by up to
  {agree_b['max_pressure_difference']:.1e} of the peak. With the case's closing
  limit fecontact's stick half-width is {fc_b['stick_half_width']:.4f}. GetFEM's
  rigid-obstacle brick (slip from the reference configuration) gives load
  {total['load']:.6g} and stick half-width {total['stick_half_width']:.4f}
  against {incr['load']:.6g} and {incr['stick_half_width']:.4f} with the
  slip per increment: it is a different friction problem.
- GetFEM's Newton iteration count with the basic brick on (b) is not
  repeatable to the iteration: it changed by a few iterations between runs of
  this script on the same machine, with the same loads and stick zone. Per
  level in this run: {', '.join(f"{r['label']}: {r['newton_iterations_per_level']}" for p in data['problems'] for r in p['rows'] if r['solver'] == 'GetFEM')}.
- Times are wall-clock, one run each, measured {'on a shared' if shared else 'on a'} {meta['cpus']}-CPU
  {meta['machine']} machine ({meta['cpu']}){', other work running: load average' if shared else ', load average'}
  {load[0]:.2f} at the start and {meta.get('load_average_end', [float('nan')])[0]:.2f} at the end.
  They compare whole solvers (language, assembly and linear solver
  included), not contact algorithms alone.
- GetFEM is an optional comparison tool here, not a dependency
  ([decision record](developer/decisions/getfem-comparison.md)).
"""
    return text


def main(argv=None) -> int:
    """Solve the problems with both solvers (or only re-render), write the JSON and the page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page-only", action="store_true",
                        help="regenerate docs/comparison.md from docs/comparison.json without solving")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each solver on each problem, the fastest solve kept (default 3)")
    args, rest = parser.parse_known_args(argv)
    if rest[:1] == ["--getfem-worker"]:
        return _worker(rest[1:])
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    if args.page_only:
        PAGE_PATH.write_text(render_page(json.loads(JSON_PATH.read_text())))
        print(f"wrote {PAGE_PATH.relative_to(ROOT)}")
        return 0
    if getfem_interpreter() is None:
        print(f"GetFEM is not available (neither 'import getfem' here nor in {SYSTEM_PYTHON}; "
              "apt-get install python3-getfem): docs/comparison.md left as it is")
        return 0
    if not 1 <= args.repeat <= 20:
        parser.error("--repeat must be from 1 to 20")
    meta = machine()
    meta["repeat"] = args.repeat
    problems = []
    with tempfile.TemporaryDirectory(prefix="getfem-comparison-") as work:
        for spec in PROBLEMS:
            problems.append(compare_problem(spec, Path(work), repeat=args.repeat))
    meta["load_average_end"] = list(os.getloadavg())
    fc_tol = sorted({r["newton_tolerance"] for p in problems for r in p["rows"] if r["solver"] == "fecontact"})
    data = dict(meta=meta, tolerances=dict(fecontact_relative=fc_tol[0] if len(fc_tol) == 1 else fc_tol,
                                           getfem_max_res=GETFEM_MAX_RES,
                                           getfem_max_iter=GETFEM_MAX_ITER, getfem_augmentation=AUGMENTATION),
                problems=problems)
    JSON_PATH.write_text(json.dumps(data, indent=1) + "\n")
    PAGE_PATH.write_text(render_page(data))
    print(f"wrote {JSON_PATH.relative_to(ROOT)} and {PAGE_PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--getfem-worker"]:
        sys.exit(_worker(sys.argv[2:]))
    sys.exit(main())
