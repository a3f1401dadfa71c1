"""The documentation site: structure, API reference, links, offline, page sizes.

The site is built once per test run (``docs_build.docs_site``, strict MkDocs;
a broken link between pages or a docstring that cannot be rendered fails the
build).  Checks on the built pages:

* at most eight top-level sections; every page of the plan exists;
* the API reference documents the public names of ``fecontact`` (one page per
  concept group), no private name and no per-module page;
* no page makes a request to another host: the ``src``/``href`` of scripts,
  style sheets, images and frames and the ``url(...)`` of style sheets are
  files of the site (plain links to other sites are fine); in a headless
  Chromium with every host name unresolvable, the network log of the pages
  shows no request to another host and the formulas still typeset;
* no reST role (``:class:``, ``:func:``, ...) is left as text, and the
  docstrings' roles link to the API pages;
* no raw math in code blocks;
* every page of Getting started and the User guide is at most 3000 words;
* every image a page shows, and every page a link leads to, is a file of the site;
* the top bar is one row at 1280 px, and the search works from the disk.
"""

import json
import re
from html.parser import HTMLParser

import pytest

from docs_build import DOCS, built_site, rendered_dom

MAX_SECTIONS = 8
MAX_USER_PAGE_WORDS = 3000
ROLE_TEXT = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)
RAW_MATH = ("$$", "\\begin", ".. math::")
#: element -> the attributes that make the browser fetch something
FETCHING = {"script": ("src",), "link": ("href",), "img": ("src", "srcset"), "iframe": ("src",),
            "source": ("src", "srcset"), "video": ("src", "poster"), "audio": ("src",),
            "embed": ("src",), "object": ("data",)}


@pytest.fixture(scope="module")
def docs_site(tmp_path_factory):
    return built_site(tmp_path_factory)


def html_pages(site):
    return sorted(site.out.rglob("*.html"))


class _Page(HTMLParser):
    """Fetched URLs, text outside code, and the contents of code elements."""

    def __init__(self):
        super().__init__()
        self.fetched, self.text, self.code, self.styles = [], [], [], []
        self._code_depth, self._in_style = 0, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in FETCHING.get(tag, ()):
            if attrs.get(name):
                self.fetched += [u.split()[0] for u in attrs[name].split(",") if u.strip()]
        if attrs.get("style"):
            self.styles.append(attrs["style"])
        if tag in ("pre", "code"):
            self._code_depth += 1
            self.code.append("")
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag in ("pre", "code") and self._code_depth:
            self._code_depth -= 1
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)
        elif self._code_depth:
            self.code[-1] += data
        else:
            self.text.append(data)


def parse(path) -> _Page:
    page = _Page()
    page.feed(path.read_text())
    return page


def css_urls(text: str) -> list:
    return [u.strip("'\" ") for u in re.findall(r"url\(([^)]*)\)", text)]


def source_of(site, html) -> object:
    """The Markdown page a built page comes from, or None (API pages, 404)."""
    source = DOCS / html.relative_to(site.out).with_suffix(".md")
    return source if source.is_file() else None


def code_of(markdown: str) -> str:
    """The fenced code blocks and code spans of a Markdown page."""
    fences = re.findall(r"^[ \t]*(?:```|~~~)[^\n]*\n.*?^[ \t]*(?:```|~~~)", markdown,
                        flags=re.S | re.M)
    spans = [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", markdown, flags=re.S)]
    return "\n".join(fences + spans)


def markdown_words(markdown: str) -> int:
    """Words of a Markdown page, fenced code blocks left out."""
    prose = re.sub(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", "", markdown, flags=re.S | re.M)
    return len(re.findall(r"\S+", prose))


def test_site_builds_strictly(docs_site):
    """No warning: no broken link between pages, every docstring renders."""
    assert docs_site.warnings == []
    for page in ("index.md", "theory.md", "gallery.md", "api/index.md"):
        assert docs_site.html(page).is_file(), page


def test_at_most_eight_top_level_sections(docs_site):
    """The plan's sections, and the top bar of a built page, have <= 8 entries."""
    assert 0 < len(docs_site.nav) <= MAX_SECTIONS, [t for t, _ in docs_site.nav]
    html = docs_site.html("index.md").read_text()
    bar = html[html.index('id="navbar-collapse"'):html.index("ms-md-auto")]
    top = re.findall(r'<li class="(?:nav-item|nav-item dropdown)[^"]*">\s*<a[^>]*class="'
                     r'(?:nav-link|dropdown-toggle nav-link)[^"]*"', bar)
    assert 0 < len(top) <= MAX_SECTIONS, len(top)
    # the site name links to the home page, which is outside the sections
    theory = docs_site.html("theory.md")
    home = re.search(r'class="navbar-brand" href="([^"]*)"', theory.read_text()).group(1)
    assert (theory.parent / home).resolve() == docs_site.html("index.md").resolve()


def test_no_page_of_the_plan_is_missing(docs_site):
    """Every page the navigation lists is in docs/ (the build leaves missing ones out)."""
    assert docs_site.missing == []


def test_api_reference_has_the_public_names_only(docs_site):
    import fecontact

    api = docs_site.out / "api"
    pages = sorted(p.relative_to(api).as_posix() for p in api.rglob("*.html"))
    assert "index.html" in pages
    assert 2 <= len(pages) <= 12, pages                # one page per concept, not per module
    anchors = set()
    for page in api.rglob("*.html"):
        anchors |= set(re.findall(r'<h[2-6] id="(fecontact\.[^"]+)"', page.read_text()))
    for name in fecontact.__all__:
        assert f"fecontact.{name}" in anchors, name
    private = sorted(a for a in anchors if re.search(r"\._", a))
    assert not private, private[:5]
    top = {a.split(".")[1] for a in anchors}
    assert top <= set(fecontact.__all__), sorted(top - set(fecontact.__all__))
    # an object's entry: signature, parameters, returns
    html = (api / "model.html").read_text()
    assert 'class="doc-signature' in html or "doc-signature" in html
    assert "Parameters:" in html or "Parameters" in html


def test_no_request_to_another_host(docs_site):
    """Pages and style sheets fetch only files of the site (links may point anywhere)."""
    external, missing = [], []
    for html in html_pages(docs_site):
        page = parse(html)
        urls = page.fetched + [u for s in page.styles for u in css_urls(s)]
        for url in urls:
            if EXTERNAL.match(url) or url.startswith(("http:", "https:")):
                external.append((html.relative_to(docs_site.out).as_posix(), url))
            elif not url.startswith(("data:", "#")) and url:
                path = url.split("#")[0].split("?")[0]
                base = docs_site.out if path.startswith("/") else html.parent   # 404.html
                target = (base / path.lstrip("/")).resolve()
                if not target.exists():
                    missing.append((html.relative_to(docs_site.out).as_posix(), url))
    for css in docs_site.out.rglob("*.css"):
        for url in css_urls(css.read_text()):
            if EXTERNAL.match(url) or url.startswith(("http:", "https:")):
                external.append((css.relative_to(docs_site.out).as_posix(), url))
    assert not external, external[:10]
    assert not missing, missing[:10]
    assert "highlight.min.js" not in docs_site.html("index.md").read_text()
    assert (docs_site.out / "assets" / "pygments.css").is_file()


def test_no_role_left_as_text(docs_site):
    """No ``:class:``/``:func:``/... text outside code on any page; roles link."""
    left = []
    for html in html_pages(docs_site):
        text = "".join(parse(html).text)
        left += [(html.relative_to(docs_site.out).as_posix(), m.group(0))
                 for m in ROLE_TEXT.finditer(text)]
    assert not left, left[:10]
    api = "".join(p.read_text() for p in (docs_site.out / "api").rglob("*.html"))
    assert api.count("autorefs-internal") > 100


def test_no_raw_math_in_code(docs_site):
    """No ``$$``, ``\\begin`` or ``.. math::`` in code, unless the page's
    Markdown has it in code (fenced block or span)."""
    raw = []
    for html in html_pages(docs_site):
        source = source_of(docs_site, html)
        allowed = code_of(source.read_text()) if source else ""
        for code in parse(html).code:
            raw += [(html.relative_to(docs_site.out).as_posix(), token) for token in RAW_MATH
                    if token in code and token not in allowed]
    assert not raw, raw[:10]


def test_user_pages_are_short(docs_site):
    """Every page under Getting started and User guide has <= 3000 words.

    Rule: the words (runs of non-space characters) of the page's Markdown
    source, fenced code blocks left out; generated pages count as written.
    """
    import sys
    sys.path.insert(0, str(DOCS))
    try:
        from sitebuild.structure import USER_SECTIONS, pages_of
    finally:
        sys.path.pop(0)
    pages = pages_of(docs_site.nav, USER_SECTIONS)
    assert pages
    words = {page: markdown_words((DOCS / page).read_text()) for page in pages}
    long = {page: n for page, n in words.items() if n > MAX_USER_PAGE_WORDS}
    assert not long, long


def test_every_image_exists(docs_site):
    for html in html_pages(docs_site):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', html.read_text()):
            if not src.startswith(("http:", "https:", "data:")):
                assert (html.parent / src).resolve().is_file(), (html, src)


def test_top_bar_is_one_row_at_1280_pixels(docs_site, tmp_path):
    """The sections of the top bar fit on one row of a 1280 px window."""
    page = docs_site.html("guide/index.md")
    probe = tmp_path / "navbar.html"            # the page, its files through <base>
    html = page.read_text().replace(
        "<head>", f'<head><base href="{page.parent.resolve().as_uri()}/">', 1)
    probe.write_text(html.replace("</body>", """<script>
window.addEventListener("load", function () {
  var items = document.querySelectorAll("#navbar-collapse > ul.navbar-nav:first-child > li");
  var tops = Array.prototype.map.call(items, function (li) { return li.offsetTop; });
  document.body.setAttribute("data-rows", new Set(tops).size);
  document.body.setAttribute("data-items", items.length);
});
</script></body>"""))
    dom = rendered_dom(probe, width=1280)
    items = int(re.search(r'data-items="(\d+)"', dom).group(1))
    assert 0 < items <= MAX_SECTIONS
    assert re.search(r'data-rows="(\d+)"', dom).group(1) == "1"


def test_search_works_from_the_disk(docs_site):
    """Opened as a file (no server, no network), the search finds pages."""
    dom = rendered_dom(docs_site.html("theory.md"), "--host-resolver-rules=MAP * ~NOTFOUND",
                       query="q=friction")
    results = dom[dom.index('id="mkdocs-search-results"'):]
    assert results.count("<article>") >= 3, results[:500]


def test_every_link_between_pages_leads_to_a_file(docs_site):
    """Links of the site point to files (not folders), so it reads from the disk."""
    broken = []
    for html in html_pages(docs_site):
        for href in re.findall(r'<a [^>]*href="([^"]+)"', html.read_text()):
            path = href.split("#")[0].split("?")[0]
            if not path or re.match(r"[a-z][a-z0-9+.-]*:|//", path, re.I):
                continue
            base = docs_site.out if path.startswith("/") else html.parent       # 404.html
            if not (base / path.lstrip("/")).is_file():
                broken.append((html.relative_to(docs_site.out).as_posix(), href))
    assert not broken, broken[:10]


def _page_requests(netlog: str) -> list:
    """URLs of the network requests a page (not the browser itself) made,
    from a Chromium net log."""
    text = netlog.read_text().rstrip()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:                # the browser ended before closing the log
        log = json.loads(text.rstrip(",") + "]}")
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    return [e["params"]["url"] for e in log["events"]
            if types.get(e["type"]) == "URL_REQUEST_START_JOB"
            and "file://" in e.get("params", {}).get("network_isolation_key", "")]


@pytest.mark.parametrize("page", ["index.md", "theory.md", "api/index.md", "friction/coulomb.md"])
def test_pages_render_offline_in_a_browser(docs_site, page, tmp_path):
    """No host resolves: the page still typesets its math, and asks no other host."""
    netlog = tmp_path / "netlog.json"
    dom = rendered_dom(docs_site.html(page), '--host-resolver-rules=MAP * ~NOTFOUND',
                       "--disable-background-networking", "--disable-component-update",
                       "--no-first-run", f"--log-net-log={netlog}")
    html = docs_site.html(page).read_text()
    assert "katex-error" not in dom
    assert dom.count('class="katex"') >= html.count('class="arithmatex"')
    assert 'class="highlight"' in html or "<pre" not in html
    if netlog.is_file():
        # files of the site are read from the disk; only other hosts are in the log
        outside = [u for u in _page_requests(netlog) if not u.startswith(("file:", "data:"))]
        assert not outside, outside[:5]
