"""Formulas in the documentation site are typeset by the KaTeX shipped with it.

The site is built once per test run (``docs_build``).  Without a browser:
every formula of the pages is marked up by ``pymdownx.arithmatex`` (as many
as the Markdown source has, for every page of ``docs/`` that has formulas),
no raw TeX is left in the text (the side menu, which repeats headings as
text, is typeset by the page's script), and the KaTeX files the pages load
are in the site.  With a headless Chromium: the pages' formulas come out
typeset, one ``katex`` element per formula and no KaTeX error; and every
formula of the site, gathered on one page, typesets without a KaTeX error.
"""

import re
from html.parser import HTMLParser

import pytest

from docs_build import DOCS, built_site, rendered_dom

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")
pytest.importorskip("pymdownx.arithmatex")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
#: raw TeX in text: dollar math, \( \[ delimiters or a TeX command such as \ge
RAW_TEX = re.compile(r"\$\$|(?<!\\)\$(?!\s)(?:\\.|[^\\$])+?(?<!\s)\$|\\[(\[]|\\[A-Za-z]+")


def source_math(text: str) -> tuple:
    """(all, display) formulas of a Markdown page, outside code spans and blocks."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"(`+).+?\1", "", text, flags=re.S)
    display = re.findall(r"(?<!\\)\$\$.+?\$\$|\\\[.+?\\\]", text, flags=re.S)
    text = re.sub(r"(?<!\\)\$\$.+?\$\$|\\\[.+?\\\]", "", text, flags=re.S)
    inline = re.findall(r"(?<!\\)\$(?!\s)(?:\\.|[^\\$])+?(?<!\s)\$|\\\(.+?\\\)", text, flags=re.S)
    return len(display) + len(inline), len(display)


class _Text(HTMLParser):
    """Text of a page outside code, scripts and the elements of ``skip_class``;
    counts the elements of ``count_class``."""

    #: the side menu repeats the headings as text; the page's script typesets it
    ALWAYS_SKIP = {"bs-sidebar"}

    def __init__(self, skip_class: str, count_class: str = ""):
        super().__init__()
        self.skip_class, self.count_class = skip_class, count_class
        self.stack, self.skipping, self.count, self.text = [], 0, 0, []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        skip = (tag in ("code", "pre", "script", "style", "annotation", "title")
                or self.skip_class in classes or bool(self.ALWAYS_SKIP & set(classes)))
        self.count += self.count_class in classes
        self.stack.append(skip)
        self.skipping += skip

    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.skipping -= self.stack.pop()

    def handle_data(self, data):
        if not self.skipping:
            self.text.append(data)


def scan(html: str, skip_class: str, count_class: str = "") -> _Text:
    parser = _Text(skip_class, count_class)
    parser.feed(html)
    return parser


def _math_pages() -> list:
    """The Markdown pages of docs/ with formulas (paths relative to docs/)."""
    pages = []
    for path in sorted(DOCS.rglob("*.md")):
        rel = path.relative_to(DOCS)
        if rel.parts[0].startswith("_"):
            continue
        if source_math(path.read_text())[0]:
            pages.append(rel.as_posix())
    return pages


#: the Markdown pages with formulas
MATH_PAGES = _math_pages()
#: an API page whose docstrings use reST math (``.. math::``, ``:math:``)
REST_MATH_PAGE = "api/friction-laws.html"


@pytest.fixture(scope="module")
def docs_site(tmp_path_factory):
    return built_site(tmp_path_factory)


@pytest.fixture(scope="module")
def site(docs_site):
    return docs_site.out


def test_pages_with_formulas_are_found():
    assert "theory.md" in MATH_PAGES and len(MATH_PAGES) >= 5


@pytest.mark.parametrize("page", MATH_PAGES)
def test_every_formula_is_marked_up(docs_site, page):
    html = docs_site.html(page).read_text()
    n, n_display = source_math((DOCS / page).read_text())
    assert n > 0, page
    parsed = scan(html, "arithmatex", "arithmatex")
    assert parsed.count == n, (page, parsed.count, n)
    assert html.count('<div class="arithmatex">') == n_display, page
    raw = [m.group(0) for m in RAW_TEX.finditer("".join(parsed.text))]
    assert not raw, (page, raw[:5])


def test_docstring_math_is_marked_up(site):
    """reST math of the docstrings becomes arithmatex math on the API pages."""
    for html_file in (site / "api").rglob("*.html"):
        html = html_file.read_text()
        assert ".. math::" not in html and ":math:" not in html, html_file
        raw = [m.group(0) for m in RAW_TEX.finditer("".join(scan(html, "arithmatex").text))]
        assert not raw, (html_file, raw[:5])
    html = (site / REST_MATH_PAGE).read_text()
    displays, inline = docstring_math("Friction laws")
    assert displays > 0
    assert html.count('<div class="arithmatex">') == displays
    assert html.count('<span class="arithmatex">') == inline


def docstring_math(group: str) -> tuple:
    """(display, inline) formulas of the docstrings of an API group's objects
    and their public members, as reST (``.. math::`` equations, ``:math:``)."""
    import inspect

    import fecontact
    from docs_build import build_site_module

    build_site = build_site_module()
    docs = []
    for name in build_site.api_pages.groups(fecontact)[group]:
        obj = getattr(fecontact, name)
        docs.append(inspect.getdoc(obj) or "")
        if inspect.isclass(obj):
            docs += [inspect.getdoc(v) or "" for k, v in vars(obj).items()
                     if not k.startswith("_") and (inspect.isfunction(v) or isinstance(v, property))
                     and v.__doc__]
    to_dollars = build_site.markup.rest_math_to_dollars
    text = "\n\n".join(to_dollars(d) for d in docs)
    return text.count("$$") // 2, sum(d.count(":math:") for d in docs)


def test_katex_is_shipped_with_the_site(site):
    """The pages load KaTeX from the site itself, fonts included (no CDN)."""
    page = site / "theory.html"
    html = page.read_text()
    refs = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]*katex[^"]*)"', html)
    assert len(refs) >= 4, refs      # CSS, katex.min.js, auto-render, the render script
    for ref in refs:
        assert not re.match(r"[a-z]+:", ref), ref
        assert (page.parent / ref).resolve().is_file(), ref
    css = site / "assets" / "katex" / "katex.min.css"
    fonts = re.findall(r"url\(([^)]+)\)", css.read_text())
    assert fonts
    for font in fonts:
        assert (css.parent / font.strip("'\"")).is_file(), font


@pytest.mark.parametrize("page", ["theory.html", "friction/coulomb.html",
                                  REST_MATH_PAGE])
def test_formulas_are_typeset_in_a_browser(site, page):
    html = (site / page).read_text()
    formulas = html.count('class="arithmatex"')
    displays = html.count('<div class="arithmatex">')
    if page == "theory.html":
        assert (formulas, displays) == source_math((DOCS / "theory.md").read_text())
    dom = rendered_dom(site / page)
    assert dom.count('class="katex"') == formulas
    assert dom.count('class="katex-display"') == displays
    assert "katex-error" not in dom
    text = "".join(scan(dom, "katex").text)
    assert "$$" not in text and "\\ge" not in text
    raw = [m.group(0) for m in RAW_TEX.finditer(text)]
    assert not raw, raw[:5]


def test_every_formula_of_the_site_typesets(site, tmp_path):
    """All formulas of all pages, gathered on one page (one browser run)."""
    formulas = []
    for html_file in sorted(site.rglob("*.html")):
        found = re.findall(r'<(?:span|div) class="arithmatex">.*?</(?:span|div)>',
                           html_file.read_text(), flags=re.S)
        formulas += found
    assert len(formulas) > 500
    page = tmp_path / "all-formulas.html"          # the site's files through <base>
    scripts = "".join(f'<script src="{src}"></script>' for src in
                      ("assets/katex/katex.min.js", "assets/katex/contrib/auto-render.min.js",
                       "assets/katex-render.js"))
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8">'
                    f'<base href="{site.resolve().as_uri()}/">'
                    '<link rel="stylesheet" href="assets/katex/katex.min.css"></head><body>'
                    + "".join(f"<p>{f}</p>" for f in formulas) + scripts + "</body></html>")
    dom = rendered_dom(page)
    errors = re.findall(r'class="katex-error" title="([^"]*)"[^>]*>([^<]*)', dom)
    assert not errors, errors[:5]
    assert dom.count('class="katex"') == len(formulas)
