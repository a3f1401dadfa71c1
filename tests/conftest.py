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
