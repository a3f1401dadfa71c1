"""The run summary record and the one run-driver skeleton: key order of summary.json, the verdict."""

import json

import pytest

from conftest import CASES
from fecontact.run.static import run
from fecontact.run.summary import DynamicSettings, RunSummary

HEAD = ["case", "case_file", "analysis", "dim", "dofs", "reduced_dofs", "contact_nodes"]


def _summary(analysis="static", **fields):
    extra = ({"backend": "direct"} if analysis == "static" else
             {"dynamics": DynamicSettings(integrator={"name": "newmark"}, dt=0.1, t_end=1.0,
                                          contact_mass="redistributed", project_velocities=False)})
    return RunSummary(case="c", case_file="c.toml", analysis=analysis, dim=2, dofs=10,
                      reduced_dofs=8, contact_nodes=3, overrides=[], **extra, **fields)


class Check:
    """A stand-in for :class:`fecontact.run.verify.ResidualCheck`."""

    def __init__(self, passed):
        self.passed = passed

    def failures(self):
        return "" if self.passed else "gap 1.00e-02 at slave node 3"

    def as_dict(self):
        return {"passed": self.passed}


def test_static_keys_in_the_order_written_while_running_and_at_the_end():
    s = _summary()
    s.steps.append({"load": 1.0})
    s.mark_incomplete(1, 4)
    assert list(s.as_dict()) == HEAD + ["backend", "overrides", "converged", "steps", "reason"]
    assert s.as_dict()["reason"].startswith("incomplete: 1 of 4 steps written")
    s.restarts = [{"from_step": 1, "t": 0.25}]
    s.timings, s.reaction, s.max_newton_iterations_per_increment = {"total": 1.0}, {}, 3
    s.conclude(True, Check(True))
    s.metrics = {}
    assert s.converged and s.reason is None and s.check == {"passed": True}
    assert list(s.as_dict()) == HEAD + ["backend", "overrides", "converged", "steps", "restarts",
                                        "timings", "reaction", "max_newton_iterations_per_increment",
                                        "check", "metrics"]


def test_dynamic_keys_and_the_reason_of_a_run_stopped_before_its_first_output():
    s = _summary("dynamic", time_series={"t": [0.0]}, energy={"total": 0.0})
    s.mark_incomplete(10, 100)
    header = HEAD + ["overrides", "integrator", "dt", "t_end", "contact_mass", "project_velocities",
                     "converged", "steps"]
    assert list(s.as_dict()) == header + ["time_series", "energy", "reason"]
    s.timings, s.max_newton_iterations_per_step = {"total": 1.0}, 2
    assert list(s.as_dict()) == header + ["time_series", "energy", "reason", "timings",
                                          "max_newton_iterations_per_step"]
    s.reason_first = True
    assert list(s.as_dict()) == header + ["reason", "time_series", "energy", "timings",
                                          "max_newton_iterations_per_step"]
    assert "reason_first" not in s.as_dict()


def test_the_verdict_needs_the_solver_and_the_independent_check():
    s = _summary(reason="incomplete")
    s.conclude(True, Check(False))
    assert not s.converged and s.reason.startswith("the independent residual check failed: gap")
    s = _summary(reason="Newton failed")
    s.conclude(False, Check(True))
    assert not s.converged and s.reason == "Newton failed" and s.check == {"passed": True}
    s = _summary(reason="interrupted")
    s.conclude(False, None)                   # no check possible: the summary stays as it is
    assert not s.converged and s.reason == "interrupted" and s.check is None


def test_dynamic_run_without_a_static_start_keeps_its_key_order(tmp_path):
    """Stopped before the first output time: ``reason`` precedes the (empty) time series."""
    r = run(CASES / "incline_dynamic.toml", tmp_path, ['dynamics.initial="static"'])
    text = (tmp_path / "summary.json").read_text()
    keys = list(json.loads(text))
    assert keys[keys.index("steps"):] == ["steps", "reason", "time_series", "pairs", "timings",
                                          "max_newton_iterations_per_step"]
    assert list(r.summary) == keys and r.summary["converged"] is False


@pytest.mark.parametrize("case,analysis", [("patch2d", "static"), ("incline_dynamic", "dynamic")])
def test_result_summary_is_what_the_file_says(tmp_path, case, analysis):
    r = run(CASES / f"{case}.toml", tmp_path)
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert r.summary["analysis"] == analysis and r.summary["converged"]
    assert list(r.summary) == list(on_disk)
    assert json.loads(json.dumps(r.summary, default=lambda a: a.tolist())) == on_disk
