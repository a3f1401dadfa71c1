"""The smooth static-to-kinetic friction functions against IPC Toolkit values,
and their derivative relations by finite differences."""

import json
from pathlib import Path

import numpy as np
import pytest

from fecontact import friction

# IPC Toolkit (ipctk 1.6.1) values, copied into the repository: see the file's "source" field
REFERENCE = Path(__file__).resolve().parent / "data" / "ipc_smooth_friction_eps0.01.json"


def _records():
    data = json.loads(REFERENCE.read_text())
    assert "IPC Toolkit" in data["source"]
    return data["records"]


def test_matches_ipc_toolkit_values():
    """Every record to 1e-12 relative to the function's scale (max |value| over its records, at least 1)."""
    records = _records()
    by_function: dict = {}
    for r in records:
        by_function.setdefault(r["function"], []).append(r)
    assert len(by_function) == 12
    for name, recs in by_function.items():
        fn = getattr(friction, name)
        args = {k: np.array([r["args"][k] for r in recs]) for k in recs[0]["args"]}
        expected = np.array([r["value"] for r in recs])
        got = fn(**args)                                  # vectorised over all records
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * scale, err_msg=name)
        # scalar calls agree with the vectorised one
        one = fn(**{k: v[0] for k, v in args.items()})
        assert np.ndim(one) == 0 and abs(one - got[0]) <= 1e-15 * scale


EPS = 0.01
Y = np.concatenate([np.linspace(1e-4, 0.0299, 97), [0.0031, 0.0049, 0.0051, 0.0099, 0.0101]])


def _fd(f, y, h=1e-7):
    return (f(y + h) - f(y - h)) / (2 * h)


def test_mollifier_derivative_chain():
    f0 = lambda y: friction.smooth_friction_f0(y, EPS)
    f1 = lambda y: friction.smooth_friction_f1(y, EPS)
    f2 = lambda y: friction.smooth_friction_f2(y, EPS)
    away = np.abs(Y - EPS) > 1e-6                       # the kink of f2 at eps_v
    np.testing.assert_allclose(_fd(f0, Y), f1(Y), atol=1e-7)
    np.testing.assert_allclose(_fd(f1, Y)[away], f2(Y)[away], atol=1e-5)
    np.testing.assert_allclose(friction.smooth_friction_f1_over_x(Y, EPS), f1(Y) / Y, rtol=1e-12)
    np.testing.assert_allclose(friction.smooth_friction_f2_x_minus_f1_over_x3(Y, EPS)[away],
                               ((f2(Y) * Y - f1(Y)) / Y**3)[away], rtol=1e-9)
    # continuity at the threshold
    for f in (f0, f1):
        assert abs(f(EPS * (1 - 1e-12)) - f(EPS * (1 + 1e-12))) < 1e-10


@pytest.mark.parametrize("mu_s,mu_k", [(0.6, 0.3), (0.3, 0.6), (0.5, 0.5)])
def test_smooth_mu_derivative_chain(mu_s, mu_k):
    args = (mu_s, mu_k, EPS)
    mu = lambda y: friction.smooth_mu(y, *args)
    mu_f0 = lambda y: friction.smooth_mu_f0(y, *args)
    mu_f1 = lambda y: friction.smooth_mu_f1(y, *args)
    mu_f2 = lambda y: friction.smooth_mu_f2(y, *args)
    kinks = np.min(np.abs(Y[:, None] - np.array([0.5 * EPS, EPS])[None, :]), axis=1) > 1e-6
    np.testing.assert_allclose(_fd(mu, Y)[kinks], friction.smooth_mu_derivative(Y, *args)[kinks], atol=1e-5)
    np.testing.assert_allclose(_fd(mu_f0, Y), mu_f1(Y), atol=1e-7)
    np.testing.assert_allclose(_fd(mu_f1, Y)[kinks], mu_f2(Y)[kinks], atol=1e-4)
    np.testing.assert_allclose(friction.smooth_mu_f1_over_x(Y, *args), mu_f1(Y) / Y, rtol=1e-12)
    np.testing.assert_allclose(friction.smooth_mu_f2_x_minus_mu_f1_over_x3(Y, *args)[kinks],
                               ((mu_f2(Y) * Y - mu_f1(Y)) / Y**3)[kinks], rtol=1e-8)
    # mu runs from mu_s at rest to mu_k at eps_v, continuously
    assert mu(0.0) == mu_s and mu(EPS) == mu_k and mu(2 * EPS) == mu_k
    assert abs(mu(0.5 * EPS * (1 - 1e-12)) - mu(0.5 * EPS * (1 + 1e-12))) < 1e-10
    assert abs(mu_f0(EPS) - mu_k * EPS) < 1e-15
