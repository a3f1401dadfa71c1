"""The documentation site builds (strict MkDocs) with an API page per module and the gallery."""

import sys

import pytest

from conftest import ROOT

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")


def test_site_builds_strictly(tmp_path):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import build_site
    finally:
        sys.path.pop(0)
    out = tmp_path / "site"
    build_site.build(out, strict=True)          # a broken page link or docstring fails here
    for page in ("index.html", "getting-started/index.html", "cases/index.html",
                 "dynamics/index.html", "gallery/index.html", "theory/index.html"):
        assert (out / page).is_file(), page
    import fecontact.analysis.dynamic   # noqa: F401  (the module documented below)
    api = (out / "api" / "fecontact.analysis.dynamic" / "index.html").read_text()
    assert "DynamicAnalysis" in api and "persistent" in api   # class and module docstring
    modules = sorted(p.name for p in (out / "api").iterdir())
    assert "fecontact.visuals.results" in modules and "fecontact.solve.problem" in modules
    # every figure the pages show is in the site
    import re
    for html in out.rglob("*.html"):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', html.read_text()):
            if not src.startswith("http"):
                assert (html.parent / src).resolve().is_file(), (html, src)
