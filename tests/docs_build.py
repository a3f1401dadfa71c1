"""The documentation site, built once per test run for all the docs tests.

:func:`built_site` (behind the ``docs_site`` fixture of ``tests/test_docs*.py``)
builds the site with ``docs/build_site.py`` into a folder shared by the test
processes of the run (pytest-xdist workers included; a file lock makes the
first one build and the others wait), and returns a :class:`BuiltSite`.  The
build records its warnings instead of stopping at the first, and leaves
pages of the navigation that do not exist out of it, so that the other
checks run on what is there; ``test_docs.py`` asserts separately that there
is no warning (a strict build) and no missing page.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"


@dataclass
class BuiltSite:
    """The built site: its folder, navigation, missing pages, warnings, build time."""
    out: Path
    nav: list
    missing: list
    warnings: list
    seconds: float

    def html(self, source: str) -> Path:
        """The built page of a Markdown page (``guide/solving.md`` -> ``guide/solving.html``)."""
        return self.out / (source.removesuffix(".md") + ".html")


def build_site_module():
    sys.path.insert(0, str(DOCS))
    try:
        import build_site
    finally:
        sys.path.pop(0)
    return build_site


def _build(folder: Path) -> None:
    build_site = build_site_module()
    start = time.perf_counter()
    info = build_site.build(folder / "site", strict=False, allow_missing=True)
    info["seconds"] = time.perf_counter() - start
    (folder / "build.json").write_text(json.dumps(info))


def built_site(tmp_path_factory) -> BuiltSite:
    """The site of this test run, built by the first caller."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent                      # shared by the workers of this run
    folder = base / "docs-site"
    folder.mkdir(exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / "build.json").is_file():
                if (folder / "site").exists():
                    shutil.rmtree(folder / "site")
                _build(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    info = json.loads((folder / "build.json").read_text())
    return BuiltSite(folder / "site", _tuples(info["nav"]), info["missing"], info["warnings"],
                     info["seconds"])


def _tuples(nav: list) -> list:
    return [(title, _tuples(target) if isinstance(target, list) else target)
            for title, target in nav]


def browser():
    """The path of a Chromium/Chrome binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def rendered_dom(page: Path, *flags: str, query: str = "", width: int = 1280) -> str:
    """The DOM of ``page`` (with ``?query``) after a headless browser ran its
    scripts, in a window ``width`` pixels wide."""
    path = browser()
    if path is None:
        pytest.skip("no chromium, chromium-browser or google-chrome binary found")
    run = subprocess.run([path, "--headless", "--disable-gpu", "--no-sandbox",
                          "--virtual-time-budget=10000", f"--window-size={width},900", *flags,
                          "--dump-dom", page.resolve().as_uri() + (f"?{query}" if query else "")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "</html>" in run.stdout, run.stderr[-2000:]
    return run.stdout
