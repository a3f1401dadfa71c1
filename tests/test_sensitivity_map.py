"""The example ``docs/examples/master_sensitivity_map.py``: gradients with respect to a master shape.

What is checked, and against what:

* three entries (the contact centre, the rim of the patch, a node outside it) of the
  adjoint gradients of the smooth peak pressure (p-mean, p = 8) and of the contact force
  with respect to the master top's normal shape parameter, against central differences of
  full re-solves of the model made again with the node moved (``Model.with_values``, Newton
  tolerance 1e-12, the same increments), read from the re-solves' contact fields, not from
  ``fc.qoi``: relative difference below 1e-6.  (The model is not symmetric: its cap's axis is
  moved off the master's edges, where the node-to-facet residual has kinks, so the map's
  symmetry is not checked.)
* the contact force grows when the master node nearest the axis is raised, and a node far
  outside the patch moves both quantities by less than a tenth of what that node does;
* the picture is written off-screen and is not blank.

The example runs once per module (about a minute: the gradient needs two model builds per
master node), so the tests are marked slow.
"""

import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "master_sensitivity_map.py"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def example():
    return runpy.run_path(str(EXAMPLE), run_name="example")


def test_adjoint_against_finite_differences_of_resolves(example):
    peak, force, fd = example["peak"], example["force"], example["fd"]
    for where, i in example["checked"].items():
        reference = fd[where]
        assert abs(peak.derivatives[0][i] - reference[0]) <= 1e-6 * abs(reference[0]), where
        assert abs(force.derivatives[0][i] - reference[1]) <= 1e-6 * abs(reference[1]), where


def test_map_is_largest_under_the_patch(example):
    checked, gp = example["checked"], example["peak"].derivatives[0]
    gf = example["force"].derivatives[0]
    assert gf[checked["centre"]] > 0
    far = example["node_at"](1.0, 1.0)
    assert abs(gp[far]) < 0.1 * abs(gp[checked["centre"]])
    assert abs(gf[far]) < 0.1 * gf[checked["centre"]]
    assert example["radius"][int(np.argmax(np.abs(gp)))] <= example["patch"]


def test_picture_is_written(example, tmp_path):
    from PIL import Image

    out = tmp_path / "map.png"
    example["plot"](out)
    image = np.asarray(Image.open(out).convert("RGB")).astype(float)
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert image.std() > 10.0                                 # not one colour
    coloured = np.abs(image - image.mean(axis=2, keepdims=True)).max(axis=2) > 40
    assert coloured.mean() > 0.01                             # the colour map is drawn (blank: 0)
