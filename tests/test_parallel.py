"""The petsc backend and MPI runs: row partition, one-process solves, serial against parallel results.

The partition tests need nothing optional.  The others need petsc4py and
mpi4py (Debian's ``python3-petsc4py``, see the README); the MPI ones also
``mpirun``.  Without them they are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.solve.mpi import PetscUnavailable, launch, petsc
from fecontact.solve.partition import coordinate_bisection, partition_rows

ROOT = Path(__file__).resolve().parents[1]


def _petsc_or_skip():
    try:
        return petsc()
    except PetscUnavailable as err:
        pytest.skip(f"petsc4py not installed: {err}")


def _mpirun_or_skip():
    _petsc_or_skip()
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if mpirun is None:
        pytest.skip("no mpirun on the path")
    return mpirun


# -- partition and launch (no PETSc needed) --------------------------------------------------

@pytest.mark.parametrize("parts", [1, 2, 3, 4, 7])
def test_bisection_splits_every_point_once_into_balanced_compact_parts(parts):
    rng = np.random.default_rng(1)
    points = rng.random((1000, 2)) * [4.0, 1.0]
    order, starts = coordinate_bisection(points, parts)
    assert np.array_equal(np.sort(order), np.arange(1000))
    sizes = np.diff(starts)
    assert sizes.max() - sizes.min() <= 1
    if parts == 2:          # the first cut is across the long side (x) at its median
        left, right = points[order[:starts[1]], 0], points[order[starts[1]:], 0]
        assert left.max() <= right.min()


def _block(nx=12, ny=4):
    mesh = skfem.MeshTri.init_tensor(np.linspace(0, 3, nx + 1), np.linspace(0, 1, ny + 1))
    mesh = mesh.with_boundaries({"bottom": lambda x: np.isclose(x[1], 0.0),
                                 "top": lambda x: np.isclose(x[1], 1.0),
                                 "left": lambda x: np.isclose(x[0], 0.0)})
    body = fc.Body("block", mesh, "P1", fc.LinearElastic(E=100.0, nu=0.3, plane="strain"))
    return body


def test_partition_rows_places_every_unknown_in_a_node_block_of_its_rank():
    body = _block()
    body.fix("left", x=0.0)
    body.fix("top", y=-0.01)
    pair = fc.Contact(body.surface("bottom"), fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)),
                      fc.Frictionless())
    system = fc.Model([body], [pair]).assemble().problem.system
    rows = partition_rows(system, 3)
    assert rows.block == 2 and np.all(rows.starts % 2 == 0)
    assert np.unique(rows.position).size == system.n_reduced            # one row each
    owned = np.concatenate([rows.owned(r) for r in range(3)])
    assert np.array_equal(np.sort(owned), np.arange(system.n_reduced))
    # an unknown's row lies in the block of its node: x and y of a free node share a block
    X = system.reference_coords()
    for r in range(3):
        mine = rows.owned(r)
        blocks = rows.position[mine] // 2
        assert np.all((blocks >= rows.starts[r] // 2) & (blocks < rows.starts[r + 1] // 2))
    # the block coordinates are the nodes' own
    node_of_unknown = np.array([np.flatnonzero(system.T[:, j].toarray().ravel())[0] // 2
                                for j in range(system.n_reduced)])
    assert np.allclose(rows.node_coords[rows.position // 2], X[:, node_of_unknown].T)


def _split_model(element):
    """Two bodies, a spring and a coupling: every kind of term of ``K_hat``."""
    if element in ("P1", "P2"):
        mesh = skfem.MeshTri.init_tensor(np.linspace(0, 3, 13), np.linspace(0, 1, 5))
    else:
        mesh = skfem.MeshQuad.init_tensor(np.linspace(0, 3, 13), np.linspace(0, 1, 5))
    mesh = mesh.with_boundaries({"bottom": lambda x: np.isclose(x[1], 0.0),
                                 "top": lambda x: np.isclose(x[1], 1.0),
                                 "left": lambda x: np.isclose(x[0], 0.0)})
    block = fc.Body("block", mesh, element, fc.LinearElastic(E=100.0, nu=0.3, plane="strain"))
    block.fix("left", x=0.0)
    block.couple("top", "y", force=-1.0)
    block.spring("top", "x", stiffness=5.0)
    lower = fc.Body("lower", mesh.translated((0.0, -1.5)), element,
                    fc.LinearElastic(E=50.0, nu=0.25, plane="strain"))
    lower.fix("bottom", x=0.0, y=0.0)
    pair = fc.Contact(block.surface("bottom"), lower.surface("top"), fc.Frictionless())
    return fc.Model([block, lower], [pair])


@pytest.mark.parametrize("element", ["P1", "P2", "Q1"])
@pytest.mark.parametrize("ranks", [2, 3])
def test_element_shares_sum_to_the_whole_bulk_system(element, ranks):
    from fecontact.bodies.share import ElementShare

    model = _split_model(element)
    whole = model.assemble().problem.system
    shares = [model.assemble(share=ElementShare(r, ranks)).problem.system for r in range(ranks)]
    elements = sum(b.mesh.t.shape[1] for b in whole.bodies)
    counts = [s.share.elements for s in shares]
    assert sum(counts) == elements and min(counts) > 0          # every element assembled once
    for name in ("K", "K_hat"):
        total = sum(getattr(s, name) for s in shares)
        reference = getattr(whole, name)
        assert abs(total - reference).max() <= 1e-12 * abs(reference).max(), name
    assert all(abs(s.K).max() < abs(whole.K).max() * 10 and s.K.nnz < whole.K.nnz for s in shares)


@pytest.mark.parametrize("environ, expected", [
    ({}, (0, 1)),
    ({"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "3"}, (3, 4)),
    ({"PMI_SIZE": "2", "PMI_RANK": "1"}, (1, 2)),
    ({"PMI_SIZE": "x", "PMI_RANK": "1"}, (0, 1)),
])
def test_launch_reads_the_launchers_variables(environ, expected):
    got = launch(environ)
    assert (got.rank, got.size) == expected
    assert got.root == (expected[0] == 0)


# -- one process with PETSc ---------------------------------------------------------------------

def _hertz_model(friction):
    disc = skfem.MeshTri.init_circle(4)
    disc = disc.with_boundaries({"top": lambda x: x[1] > 0.999 * np.abs(x).max(),
                                 "rim": lambda x: x[1] < 0.0})
    body = fc.Body("disc", disc, "P1", fc.LinearElastic(E=1e3, nu=0.3, plane="strain"))
    body.fix("top", x=0.0, y=-0.02)
    obstacle = fc.RigidLine(point=(0.0, -1.0), normal=(0.0, 1.0))
    return fc.Model([body], [fc.Contact(body.surface("rim"), obstacle, friction)])


@pytest.mark.parametrize("friction", [fc.Frictionless(), fc.Coulomb(mu=0.3)])
def test_petsc_backend_in_one_process_agrees_with_amg(friction):
    _petsc_or_skip()
    model = _hertz_model(friction)
    serial = model.solve(steps=2, backend="amg")
    parallel = model.solve(steps=2, backend="petsc")
    assert serial.converged and parallel.converged
    u0, u1 = serial.displacement, parallel.displacement
    assert np.abs(u1 - u0).max() <= 1e-7 * np.abs(u0).max()
    p0, p1 = serial.pressure, parallel.pressure
    assert np.abs(p1 - p0).max() <= 1e-6 * np.abs(p0).max()


# -- MPI runs -------------------------------------------------------------------------------

def _state(folder: Path) -> dict:
    with np.load(folder / "restart.npz", allow_pickle=True) as z:
        return {k: z[k] for k in ("state.u", "state.multiplier", "state.status")}


def _run(tmp_path: Path, case: str, ranks: int, extra=()) -> Path:
    out = tmp_path / f"{case}_{ranks}"
    command = [sys.executable, "-m", "fecontact", "run", str(ROOT / "cases" / f"{case}.toml"),
               "--out", str(out), *extra]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
    if ranks:
        command = [_mpirun_or_skip(), "-n", str(ranks), *command, "--set", 'solver.backend="petsc"']
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


@pytest.mark.mpi
@pytest.mark.parametrize("case, ranks, extra", [
    ("hertz2d", 2, ()),
    ("hertz3d", 2, ()),
    ("cattaneo2d", 2, ()),
    ("ironing2d", 2, ("--set", "steps.count=40")),
    ("incline_dynamic", 2, ()),             # time steps: the effective stiffness, a floating body
])
def test_parallel_run_gives_the_serial_result(tmp_path, case, ranks, extra):
    _mpirun_or_skip()
    serial, parallel = (_state(_run(tmp_path, case, n, extra)) for n in (0, ranks))
    assert np.array_equal(serial["state.status"], parallel["state.status"])
    for key in ("state.u", "state.multiplier"):
        scale = np.abs(serial[key]).max()
        assert np.abs(parallel[key] - serial[key]).max() <= 1e-7 * scale, key


@pytest.mark.mpi
def test_parallel_run_writes_each_file_once_and_prints_once(tmp_path):
    mpirun = _mpirun_or_skip()
    out = tmp_path / "hertz2d"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run([mpirun, "-n", "2", sys.executable, "-m", "fecontact", "run",
                           str(ROOT / "cases" / "hertz2d.toml"), "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("hertz2d: converged") == 1
    names = sorted(p.name for p in out.iterdir())
    assert names == ["hertz2d.pvd", "restart.npz", "step_0001.vtu", "step_0002.vtu",
                     "step_0003.vtu", "step_0004.vtu", "summary.json"]
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"] == "petsc" and summary["converged"]      # auto under mpirun
    parallel = summary["parallel"]
    assert parallel["ranks"] == 2 and len(parallel["peak_memory_gb_per_rank"]) == 2
    rows = parallel["rows_per_rank"]        # node blocks of 2 rows, balanced to one node
    assert sum(rows) >= summary["reduced_dofs"] and abs(rows[0] - rows[1]) <= 2
    # each rank assembled its own elements, every element once
    system = fc.build_model(fc.load_case(ROOT / "cases" / "hertz2d.toml")).problem.system
    elements = parallel["elements_per_rank"]
    assert len(elements) == 2 and min(elements) > 0
    assert sum(elements) == sum(b.mesh.t.shape[1] for b in system.bodies)


_GRADIENT_SCRIPT = """
import json, sys
import numpy as np, skfem
import fecontact as fc
E, mu = fc.Parameter(1e3, name="E"), fc.Parameter(0.3, name="mu")
mesh = skfem.MeshTri.init_tensor(np.linspace(-1, 1, 17), np.linspace(0.0, 1, 9)).with_defaults()
block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=E, nu=0.3)).fix("top", x=0.05, y=-0.02)
model = fc.Model([block], [fc.Contact(block.surface("bottom"),
                                      fc.RigidCircle(center=(0.0, -3.0), radius=3.0), fc.Coulomb(mu))])
solution = model.solve(steps=3, backend=sys.argv[1], newton={"tolerance": 1e-12})
gradients = solution.gradient([fc.qoi.Reaction("top", "x"), fc.qoi.ContactForce(None, "y")],
                              wrt=[E, mu])
if fc.launch().rank == 0:
    print(json.dumps({"increments": len(solution.increments),
                      "gradients": [[float(v) for v in g] for g in gradients]}))
"""


@pytest.mark.mpi
def test_gradient_under_two_ranks_is_the_serial_one(tmp_path):
    """A frictional run solved by ``petsc`` on 2 ranks (the bulk assembled in shares) has the
    gradient of the same run solved serially by ``direct``: every rank takes it whole."""
    mpirun = _mpirun_or_skip()
    _petsc_or_skip()
    script = tmp_path / "gradient.py"
    script.write_text(_GRADIENT_SCRIPT)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
    results = []
    for command in ([sys.executable, str(script), "direct"],
                    [mpirun, "-n", "2", sys.executable, str(script), "petsc"]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    serial, parallel = results
    assert serial["increments"] == parallel["increments"]
    g0, g1 = np.array(serial["gradients"]), np.array(parallel["gradients"])
    assert np.all(np.abs(g1 - g0) <= 1e-8 * np.abs(g0))
