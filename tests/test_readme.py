"""The README's Python quick start runs as written and gives Hertz figures."""

import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def test_readme_quick_start(monkeypatch):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quick start"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert result.converged
    # Hertz line contact for the measured force (E* = E / (1 - nu^2), R = 1)
    force = -result.reaction("flat")[1]
    e_star = 1e4 / (1 - 0.3 ** 2)
    a = np.sqrt(4 * force / (np.pi * e_star))
    p0 = 2 * force / (np.pi * a)
    assert abs(result.pressure.max() / p0 - 1) < 0.01          # measured 0.49 %
    assert namespace["grid"].n_points == result.displacement.shape[1]
