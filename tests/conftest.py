from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"


@pytest.fixture
def case_file(tmp_path):
    """Write a case file into a temporary folder and return its path."""
    def write(text: str, name: str = "case.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


def assert_jacobian_matches_differences(problem, t, state, x, ev, trials=3):
    """The assembled Jacobian of ``ev`` (the evaluation of ``problem`` at ``t`` from ``state`` at
    the unknowns ``x``) against central differences of the residual along random directions, to 1e-6.

    The residual is smooth only between the kinks of open/stick/slip: the step is halved until
    the segment ``[x - h v, x + h v]`` keeps every node's status."""
    import numpy as np
    status = ev.contact.status
    J = ev.jacobian()
    rng = np.random.default_rng(1)
    h0 = 1e-7 * max(1.0, np.abs(x).max())
    for _ in range(trials):
        v = rng.standard_normal(x.size)
        v[: ev.n_reduced] *= 1e-3            # displacements are small, tractions large
        for h in h0 / 2.0 ** np.arange(6):
            plus = problem.increment(t, state).evaluate(x + h * v, ev.kinematics.facet, jacobian=False)
            minus = problem.increment(t, state).evaluate(x - h * v, ev.kinematics.facet, jacobian=False)
            if (np.array_equal(plus.contact.status, status)
                    and np.array_equal(minus.contact.status, status)):
                break
        assert np.array_equal(plus.contact.status, status)
        assert np.array_equal(minus.contact.status, status)
        fd = (plus.residual - minus.residual) / (2 * h)
        err = np.linalg.norm(J @ v - fd) / np.linalg.norm(fd)
        assert err < 1e-6, (err, h / h0)


def contact_accuracy_script():
    """``docs/make_contact_accuracy.py`` as a module (its meshes module sits next to it), or a
    skip when gmsh, which makes its meshes, is missing or does not load."""
    import importlib
    import importlib.util
    import sys
    try:
        importlib.import_module("gmsh")
    except (ImportError, OSError) as error:
        pytest.skip(f"gmsh is needed for the contact-accuracy meshes: {error}")
    sys.path.insert(0, str(ROOT / "docs"))
    spec = importlib.util.spec_from_file_location("make_contact_accuracy",
                                                  ROOT / "docs" / "make_contact_accuracy.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def assert_jets_match_differences(evaluate, x, rng, h=1e-6):
    """Central differences of value and gradient of every Jet ``evaluate(x)`` returns, along three
    random directions: the gradients to 1e-6 and the Hessians to 1e-5 (relative)."""
    import numpy as np

    base = evaluate(x)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        plus, minus = evaluate(x + h * v), evaluate(x - h * v)
        for j0, jp, jm in zip(base, plus, minus):
            fd = (jp.value - jm.value) / (2 * h)
            flat = v.reshape(v.shape[0], -1)
            an = np.einsum("pk,pk->p", j0.grad, flat)
            assert np.allclose(an, fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max()), (an, fd)
            fd_g = (jp.grad - jm.grad) / (2 * h)
            an_g = np.einsum("pkl,pl->pk", j0.hess, flat)
            assert np.allclose(an_g, fd_g, rtol=1e-5, atol=1e-6 * np.abs(fd_g).max())


def assert_example_picture(path):
    """An example's picture (``plot(path)``) is written and is more than a background:
    at least 600 x 300 pixels, 20 kB, and over 50 distinct colours that vary."""
    import matplotlib.image as mpimg
    import numpy as np

    assert path.is_file() and path.stat().st_size > 20_000
    img = mpimg.imread(path)[..., :3]
    assert img.shape[0] >= 300 and img.shape[1] >= 600
    assert img.std() > 0.02
    assert len(np.unique((img.reshape(-1, 3) * 255).astype(int), axis=0)) > 50


def assert_figures_are_numbers(figures):
    """An example's ``FIGURES``: each a finite value and reference with a unit, none missing."""
    import numpy as np

    assert figures
    for name, fig in figures.items():
        assert set(fig) == {"value", "reference", "unit"}, name
        assert np.isfinite(fig["value"]) and np.isfinite(fig["reference"]), name
        assert isinstance(fig["unit"], str), name
