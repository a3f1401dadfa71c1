"""FCLIB HDF5 files of the global frictional contact problem (layout of fclib's src/fclib.c)."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from fecontact.pfc import fclib
from fecontact.pfc.problem import GlobalProblem, PFCError

h5py = pytest.importorskip("h5py")


def random_problem(d, n=12, contacts=4, seed=0):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=0.3, random_state=rng, format="csc")
    M = (A @ A.T + n * sp.identity(n)).tocsc()
    H = sp.random(n, contacts * d, density=0.4, random_state=rng, format="csc")
    return GlobalProblem(M=M, H=H, q=rng.standard_normal(n), b=rng.standard_normal(contacts * d),
                         mu=rng.uniform(0.1, 0.6, contacts), d=d,
                         info={"case": f"random {d}D", "seed": seed, "title": "random"})


@pytest.mark.parametrize("d", [2, 3])
def test_round_trip_keeps_every_array(tmp_path, d):
    problem = random_problem(d, seed=d)
    rng = np.random.default_rng(10 + d)
    solution = {"v": rng.standard_normal(problem.n), "u": rng.standard_normal(problem.b.size),
                "r": rng.standard_normal(problem.b.size)}
    path = tmp_path / "problem.hdf5"
    fclib.write(path, problem, solution)
    back, sol = fclib.read(path)

    assert back.d == d
    for name in ("M", "H"):
        assert getattr(back, name).shape == getattr(problem, name).shape
        assert (getattr(back, name) != getattr(problem, name)).nnz == 0, name
    for name in ("q", "b", "mu"):
        assert np.array_equal(getattr(back, name), getattr(problem, name)), name
    assert back.rigid_modes.shape == (problem.n, 0)
    assert back.info == problem.info
    assert set(sol) == {"v", "u", "r"}
    for key in solution:
        assert np.array_equal(sol[key], solution[key]), key

    # the layout fclib's H5LT calls produce
    with h5py.File(path, "r") as f:
        root = f["fclib_global"]
        assert root["spacedim"].shape == (1,) and root["spacedim"].dtype == np.int32
        assert root["spacedim"][0] == d
        for name, A in (("M", problem.M), ("H", problem.H)):
            g = root[name]
            assert {k: int(g[k][0]) for k in ("m", "n", "nz", "nzmax")} == \
                {"m": A.shape[0], "n": A.shape[1], "nz": -1, "nzmax": A.nnz}
            assert g["p"].dtype == np.int32 and g["p"].shape == (A.shape[1] + 1,)
            assert g["i"].dtype == np.int32 and g["x"].dtype == np.float64
        assert np.array_equal(root["vectors/f"][()], problem.q)
        assert np.array_equal(root["vectors/w"][()], problem.b)
        assert np.array_equal(f["solution/u"][()], solution["u"])
        title = root["info/title"]
        tid = title.id.get_type()
        assert title.shape == () and tid.get_size() == len("random") + 1
        assert tid.get_strpad() == h5py.h5t.STR_NULLTERM
        assert title[()] == b"random" and root["info/math_info"][()] == b""


def _int(group, name, value):
    group.create_dataset(name, data=np.array([value], dtype=np.int32))


def _string(group, name, text):
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(text) + 1)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    dsid = h5py.h5d.create(group.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(text.encode(), dtype=f"S{len(text) + 1}"),
               mtype=tid)


def test_reads_a_file_in_fclibs_own_layout(tmp_path):
    """Built by hand as fclib_write_global + fclib_write_solution would (not via write)."""
    # M (3 x 3, symmetric) as a CSparse triplet: p = column, i = row, a repeated
    # entry summed, x as long as nzmax (old fclib) with a trailing unused value
    M = np.array([[4.0, 1.0, 0.0], [1.0, 5.0, 2.0], [0.0, 2.0, 6.0]])
    rows = np.array([0, 1, 0, 1, 2, 1, 2, 2])
    cols = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    vals = np.array([4.0, 1.0, 1.0, 5.0, 2.0, 2.0, 4.0, 2.0])        # M[2, 2] = 4 + 2
    # H (3 x 4, two 2D contacts) in compressed columns, with i, x longer than p[-1]
    H = np.array([[1.0, 0.0, 0.0, 0.5], [0.0, -1.0, 2.0, 0.0], [0.0, 3.0, 0.0, -2.0]])
    Hc = sp.csc_matrix(H)
    with h5py.File(tmp_path / "fclib.hdf5", "w") as f:
        root = f.create_group("fclib_global")
        _int(root, "spacedim", 2)
        g = root.create_group("M")
        for name, value in (("nzmax", 9), ("m", 3), ("n", 3), ("nz", 8)):
            _int(g, name, value)
        g.create_dataset("p", data=cols.astype(np.int32))
        g.create_dataset("i", data=rows.astype(np.int32))
        g.create_dataset("x", data=np.append(vals, 99.0))
        g = root.create_group("H")
        for name, value in (("nzmax", Hc.nnz + 2), ("m", 3), ("n", 4), ("nz", -1)):
            _int(g, name, value)
        g.create_dataset("p", data=Hc.indptr.astype(np.int32))
        g.create_dataset("i", data=np.append(Hc.indices, [0, 0]).astype(np.int32))
        g.create_dataset("x", data=np.append(Hc.data, [7.0, 7.0]))
        _string(g, "comment", "a matrix info")
        g.create_dataset("conditioning", data=[1.0])
        g.create_dataset("determinant", data=[2.0])
        _int(g, "rank", 3)
        v = root.create_group("vectors")
        v.create_dataset("f", data=[1.0, 2.0, 3.0])
        v.create_dataset("w", data=[0.1, 0.2, 0.3, 0.4])
        v.create_dataset("mu", data=[0.3, 0.5])
        info = root.create_group("info")
        _string(info, "title", "hand made")
        _string(info, "description", "not json")
        _string(info, "math_info", "SPD M")
        s = f.create_group("solution")
        s.create_dataset("v", data=[1.0, 0.0, -1.0])
        s.create_dataset("u", data=[0.0, 1.0, 2.0, 3.0])
        s.create_dataset("r", data=[4.0, 5.0, 6.0, 7.0])

    problem, solution = fclib.read(tmp_path / "fclib.hdf5")
    assert problem.d == 2 and problem.n_contacts == 2
    assert np.array_equal(problem.M.toarray(), M)
    assert np.array_equal(problem.H.toarray(), H)
    assert np.array_equal(problem.q, [1.0, 2.0, 3.0])
    assert np.array_equal(problem.b, [0.1, 0.2, 0.3, 0.4])
    assert np.array_equal(problem.mu, [0.3, 0.5])
    assert problem.info == {"title": "hand made", "description": "not json", "math_info": "SPD M"}
    assert np.array_equal(solution["v"], [1.0, 0.0, -1.0])
    assert np.array_equal(solution["u"], [0.0, 1.0, 2.0, 3.0])
    assert np.array_equal(solution["r"], [4.0, 5.0, 6.0, 7.0])


def test_no_solution_group_reads_as_none(tmp_path):
    fclib.write(tmp_path / "p.hdf5", random_problem(3))
    assert fclib.read(tmp_path / "p.hdf5")[1] is None


@pytest.mark.parametrize("remove, named", [("/fclib_global/H", "'/fclib_global/H' group"),
                                           ("/fclib_global", "'/fclib_global' group"),
                                           ("/fclib_global/vectors/mu",
                                            "'/fclib_global/vectors/mu' dataset")])
def test_missing_part_names_the_file_and_the_group(tmp_path, remove, named):
    path = tmp_path / "broken.hdf5"
    fclib.write(path, random_problem(2))
    with h5py.File(path, "a") as f:
        del f[remove]
    with pytest.raises(PFCError) as err:
        fclib.read(path)
    message = str(err.value)
    assert str(path) in message and named in message and "\n" not in message


def test_not_hdf5_and_no_h5py_are_one_line_errors(tmp_path, monkeypatch):
    path = tmp_path / "text.hdf5"
    path.write_text("not hdf5")
    with pytest.raises(PFCError, match="text.hdf5: cannot open as HDF5"):
        fclib.read(path)
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(PFCError, match="FCLIB files need h5py: pip install h5py"):
        fclib.read(path)
