"""Property-based perturbations of case parameters, meshes and case files.

Whatever the input, the command line ends with status 0 (solved), 2 (bad
input: only ``error:`` lines on stderr) or 3 (no solution: the summary says
why), never with a traceback; and a result called converged passes the
independent residual check recomputed here from its restart file.
"""

import itertools
import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fecontact.run import checkpoint
from fecontact.cli import EXIT_FAILED, EXIT_INPUT, main
from fecontact.run.static import prepare
from fecontact.run.verify import residual_check
from test_reliability import BLOCK, _grid, _write_block_msh

FUZZ = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
BASE = BLOCK + "\n[output]\nvtu = false\n"
_counter = itertools.count()


def outcome(capsys, tmp_path, case_path, overrides=()):
    """Run a case through the command line and check the outcome contract."""
    out = tmp_path / f"run{next(_counter)}"
    args = ["run", str(case_path), "--out", str(out), "--quiet"]
    for o in overrides:
        args += ["--set", o]
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code in (0, EXIT_INPUT, EXIT_FAILED), (code, err)
    if code == EXIT_INPUT:
        lines = err.strip().splitlines()
        assert lines and all(line.startswith("error: ") for line in lines), err
        return code, err, None
    summary = json.loads((out / "summary.json").read_text())
    assert summary["converged"] == (code == 0), (code, summary.get("reason"))
    if code == EXIT_FAILED:
        assert summary.get("reason"), summary
    if summary["converged"]:
        case, model = prepare(case_path, list(overrides))
        cp = checkpoint.load(out, case, model.problem.system.n_dofs)
        assert residual_check(model.problem, cp.state).passed
    return code, err, summary


number = st.one_of(st.floats(-2.0, 2.0), st.floats(-1e6, 1e6), st.sampled_from([0.0, float("nan"),
                                                                              float("inf")]))


@FUZZ
@given(E=st.one_of(st.floats(1.0, 1e5), st.floats(1.0, 1e5), st.floats(-10.0, 0.0),
                  st.sampled_from([0.0, float("nan")])),
       nu=st.one_of(st.floats(-0.9, 0.49), st.floats(-1.2, 0.6)), mu=st.floats(-0.2, 1.2),
       law=st.sampled_from(["coulomb", "frictionless", "static_kinetic"]),
       fx=st.floats(-20.0, 20.0), fy=st.floats(-30.0, 5.0),
       nx=st.integers(1, 6), ny=st.integers(1, 3), count=st.integers(1, 4))
def test_perturbed_parameters(capsys, case_file, tmp_path, E, nu, mu, law, fx, fy, nx, ny, count):
    path = case_file(BASE)
    overrides = [f"bodies.0.material.E={E!r}", f"bodies.0.material.nu={nu!r}",
                 f"friction.law=\"{law}\"", f"friction.mu={mu!r}",
                 f"bodies.0.body_force=[{fx!r}, {fy!r}]", f"bodies.0.mesh.nx={nx}",
                 f"bodies.0.mesh.ny={ny}", f"steps.count={count}"]
    if law == "static_kinetic":
        overrides += [f"friction.mu_s={mu!r}", f"friction.mu_k={0.8 * mu!r}"]
    code, err, summary = outcome(capsys, tmp_path, path, overrides)
    valid = E > 0 and -1 < nu < 0.5 and mu >= 0
    held = law != "frictionless" and mu > 0      # friction holds the block's sideways motion
    if not valid:
        assert code == EXIT_INPUT
    elif not held:
        assert code == EXIT_INPUT and "rigid-body motion (translation along x)" in err
    elif fy > 0:
        # pulled off the line, the block has no static equilibrium
        assert code == EXIT_FAILED
    if code == 0:
        # a converged block rests on the line: the contact force balances the body force
        assert summary["check"]["passed"]


@FUZZ
@given(jitter=st.one_of(st.floats(0.0, 0.3), st.floats(0.8, 1.5)), lift=st.floats(-0.05, 0.05),
       seed=st.integers(0, 2**16), nx=st.integers(2, 5), ny=st.integers(2, 3))
def test_perturbed_meshes(capsys, case_file, tmp_path, jitter, lift, seed, nx, ny):
    points, quads = _grid(nx, ny)
    reference = points.copy()
    rng = np.random.default_rng(seed)
    h = 1.0 / nx
    interior = (points[:, 0] > 0) & (points[:, 0] < 1) & (points[:, 1] > 0) & (points[:, 1] < 0.5)
    points[interior] += jitter * h * rng.uniform(-1, 1, (int(interior.sum()), 2))
    bottom = reference[:, 1] == 0.0
    points[bottom, 1] += lift * rng.uniform(-1, 1, int(bottom.sum()))     # below 0: penetration
    mesh = tmp_path / f"m{next(_counter)}.msh"
    _write_block_msh(mesh, points, quads, reference=reference)
    text = BASE.replace('mesh = { generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 0.5, '
                        'nx = 4, ny = 2, element = "quad" }', f'mesh = {{ file = "{mesh.name}" }}')
    code, err, _ = outcome(capsys, tmp_path, case_file(text, f"{mesh.stem}.toml"))
    if code == EXIT_INPUT:
        assert "'bodies.0" in err or "'contact.0'" in err, err
    if np.any(points[bottom, 1] < -1e-6 * np.hypot(1.0, 0.5)):
        # penetration (or, first, a broken element) is found before solving
        assert code == EXIT_INPUT and ("initial penetration" in err or "'bodies.0'" in err), err


LINES = [line for line in BASE.splitlines() if line.strip()]


@st.composite
def mutated_case(draw):
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "typo", "string", "truncate", "number"]))
        line = lines[i]
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, line)
        elif kind == "typo" and "=" in line:
            key, rest = line.split("=", 1)
            k = draw(st.integers(0, max(len(key.strip()) - 1, 0)))
            key = key.strip()
            lines[i] = key[:k] + key[k + 1:] + key[k:k + 1] + " =" + rest
        elif kind == "string" and "=" in line:
            lines[i] = line.split("=", 1)[0] + '= "text"'
        elif kind == "number" and "=" in line:
            lines[i] = line.split("=", 1)[0] + "= " + repr(draw(number))
        elif kind == "truncate":
            lines[i] = line[:draw(st.integers(0, len(line)))]
        if not lines:
            break
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=mutated_case())
def test_mutated_case_files(capsys, case_file, tmp_path, text):
    outcome(capsys, tmp_path, case_file(text, f"c{next(_counter)}.toml"))
