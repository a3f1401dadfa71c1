"""The tutorial (docs/getting-started/tutorial.py) runs and shows what its page claims.

The script is run as a user would run it, in an empty folder; the checks
are the physics the page states:

* frictionless pressing against Hertz's line contact: the half-width (the
  ellipse fitted to the loaded nodes) and the peak pressure within half a
  node spacing relative to the half-width, h / (2 a) (the contact edge lies
  between two nodes; measured: 0.4 % and 0.5 % against a bound of 2.6 %);
* gross sliding at the end of the drag: every loaded node slips and the
  friction force is mu times the normal force, to round-off;
* the supports balance the contact force;
* friction raises the peak pressure and narrows the contact (elastic body
  on a rigid flat, nu < 0.5);
* the pictures and the VTU file are written.

The page docs/getting-started/tutorial.md must show the script's current
code (``python docs/make_tutorial.py`` rewrites it), and the Python of the
home page runs.
"""

import re
import runpy
import sys
import time

import numpy as np
import pytest
from conftest import ROOT

import fecontact as fc

SCRIPT = ROOT / "docs" / "getting-started" / "tutorial.py"
PAGE = ROOT / "docs" / "getting-started" / "tutorial.md"


def _make_tutorial():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_tutorial
    finally:
        sys.path.pop(0)
    return make_tutorial


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tutorial")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        tic = time.perf_counter()
        ns = runpy.run_path(str(SCRIPT), run_name="__main__")
        ns["_seconds"] = time.perf_counter() - tic
    ns["_folder"] = folder
    return ns


def test_converges_quickly(run):
    assert run["result"].converged and run["pressed_smooth"].converged
    assert run["_seconds"] < 30.0


def test_frictionless_pressing_matches_hertz(run):
    hertz, h = run["hertz"], run["h"]
    bound = h / (2.0 * hertz.half_width)
    assert bound < 0.03                       # the mesh resolves the contact zone
    assert abs(run["a_fe"] / hertz.half_width - 1.0) < bound
    assert abs(run["p_fe"] / hertz.peak_pressure - 1.0) < bound
    assert run["a_error"] == pytest.approx(100 * abs(run["a_fe"] / hertz.half_width - 1.0))


def test_gross_sliding_at_the_end_of_the_drag(run):
    result, mu = run["result"], run["MU"]
    fields = result.contact("roller-on-floor")
    loaded = fields.pressure > 0
    assert loaded.sum() > 20
    assert np.all(fields.status[loaded] == fc.Status.SLIP)
    assert run["end"].stick == 0
    assert run["ratio_end"] == pytest.approx(mu, rel=1e-9)
    Q = result.reaction("top-x")[0]
    P = -result.reaction("top-y")[1]
    assert Q / P == pytest.approx(mu, rel=1e-9)


def test_partial_slip_during_the_drag(run):
    records = [r for r in run["result"].records if 0.5 < r.load < 0.85]
    sticking = [r.stick for r in records]
    assert sticking[0] > 0 and sticking == sorted(sticking, reverse=True)


def test_supports_balance_the_contact(run):
    result, force = run["result"], run["end"].force
    support = result.reaction("top-x") + result.reaction("top-y")
    assert np.linalg.norm(support + force) < 1e-8 * np.linalg.norm(force)


def test_friction_raises_the_pressure_and_narrows_the_contact(run):
    assert run["friction_rise"] > 1.0           # per cent, well above the Hertz check's error
    assert run["friction_narrower"] > 1.0


def test_files_written(run):
    for name in ("tutorial_contact.png", "tutorial_deformed.png", "roller.vtu"):
        assert (run["_folder"] / name).stat().st_size > 1000, name


def test_page_shows_the_script():
    make_tutorial = _make_tutorial()
    code = [text for kind, text in make_tutorial.cells(SCRIPT.read_text()) if kind == "code"]
    page = PAGE.read_text()
    shown = re.findall(r"```python\n(.*?)\n```", page, flags=re.S)
    assert shown == code, "docs/getting-started/tutorial.md is stale: run docs/make_tutorial.py"
    assert "{{" not in page
    assert len(page.split()) <= 3000
    for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page):
        assert (PAGE.parent / picture).is_file(), picture


def test_placeholders_need_the_script_names():
    make_tutorial = _make_tutorial()
    assert make_tutorial.fill("a = {{a:.2f}} mm", {"a": 0.0777}) == "a = 0.08 mm"
    with pytest.raises(KeyError, match="b"):
        make_tutorial.fill("{{b}}", {})


def test_home_page_python_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)\n```", (ROOT / "docs" / "index.md").read_text(), re.S)
    assert blocks
    ns = {}
    for block in blocks:
        exec(compile(block, "docs/index.md", "exec"), ns)  # noqa: S102 -- the page's own code
    assert ns["result"].converged
    assert ns["result"].pressure.max() > 0
