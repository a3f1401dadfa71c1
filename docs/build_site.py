"""Build the documentation site (MkDocs) from docs/ and the docstrings.

    python docs/build_site.py [--out DIR] [--allow-missing]   # default docs/_site (not versioned)

The site is assembled in a temporary folder:

* the pages of ``docs/`` as they are, with their figures, under eight
  top-level sections (``sitebuild.structure``; ``index.md`` is the home
  page, outside them);
* ``api/*.md``: the public names of ``fecontact``, one page per concept
  group, rendered from the numpydoc docstrings by mkdocstrings
  (``sitebuild.api_pages``);
* ``assets/pygments.css``: the code highlighting, written from Pygments.

The site loads nothing from another host, and can be read from the disk
without a server: pages are files (``theory.html``, not ``theory/``) and the
search runs in the page when opened as a file (``sitebuild.hooks``).  Code is highlighted at build time
by Pygments (``pymdownx.highlight``; the theme's highlight.js, which comes
from a CDN, is off).  Formulas (``$...$``, ``$$...$$``, ``\\(...\\)``,
``\\[...\\]`` in the pages and the docstrings) are marked up by
``pymdownx.arithmatex`` and typeset in the browser by KaTeX, shipped with the
site (``docs/assets/katex/``).  The reST of numpydoc docstrings (math,
``:class:``/``:func:``/... roles) is turned into that Markdown first
(``sitebuild.markup``): roles become links to the API pages.

Links to files outside ``docs/`` (case files, sources) become plain text.
The build is strict: a broken link between pages, a docstring that cannot be
rendered or a page of the navigation that does not exist fails it
(``tests/test_docs.py``).  ``--allow-missing`` leaves missing pages out of
the navigation instead, for work in progress.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from sitebuild import api_pages, markup, structure  # noqa: E402

ROOT = HERE.parent
DOCS = ROOT / "docs"

#: KaTeX and the script that typesets the arithmatex elements (paths in the site)
MATH_CSS = ["assets/katex/katex.min.css"]
MATH_JS = ["assets/katex/katex.min.js", "assets/katex/contrib/auto-render.min.js",
           "assets/katex-render.js"]
#: the site's own styles (top bar, wide tables, API headings)
SITE_CSS = "assets/site.css"
#: the code highlighting, written at build time from Pygments
PYGMENTS_CSS = "assets/pygments.css"
#: the Pygments style of the highlighted code
PYGMENTS_STYLE = "default"

#: how mkdocstrings renders each public object
API_OPTIONS = """            docstring_style: numpy
            show_source: false
            show_root_heading: true
            show_root_full_path: false
            show_symbol_type_heading: true
            show_symbol_type_toc: true
            show_signature: true
            separate_signature: true
            merge_init_into_class: true
            show_signature_annotations: true
            signature_crossrefs: true
            docstring_section_style: list
            heading_level: 2
            members_order: source
            inherited_members: false
            filters: ["!^_"]
            show_submodules: false"""


class MissingPages(RuntimeError):
    """Pages listed in the site's navigation are not in ``docs/``."""


def pygments_css(style: str = PYGMENTS_STYLE) -> str:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=style).get_style_defs(".highlight") + "\n"


def _copy_pages(pages: Path) -> None:
    shutil.copytree(DOCS, pages, ignore=shutil.ignore_patterns(
        "_site", "*.py", "__pycache__", "sitebuild"))
    # links to repository files outside docs/ (cases, sources), which climb
    # above docs/, become plain text
    for page in pages.rglob("*.md"):
        text = page.read_text()
        depth = len(page.relative_to(pages).parts) - 1
        climb = re.compile(r"\[([^\]]+)\]\((?:\.\./){%d,}[^)]+\)" % (depth + 1))
        changed = climb.sub(r"\1", text)
        if changed != text:
            page.write_text(changed)
    (pages / PYGMENTS_CSS).write_text(pygments_css())


def assemble(source: Path, allow_missing: bool = False) -> tuple:
    """Copy and generate the site's pages into ``source``.

    Returns ``(mkdocs.yml, nav, missing)``: the configuration file, the
    navigation (``[(title, page or entries), ...]``) and the pages of the
    plan that are not in ``docs/``.

    Raises :class:`MissingPages` if a page of the navigation is not in
    ``docs/``, unless ``allow_missing`` (the page is then left out).
    """
    import fecontact

    pages = source / "pages"
    _copy_pages(pages)
    if not (pages / "gallery.md").exists():
        (pages / "gallery.md").write_text("# Gallery\n\nRun `python docs/make_gallery.py`.\n")
    api_entries = api_pages.write_pages(fecontact, pages / "api")
    nav, missing = structure.navigation(pages, api_entries)
    if missing and not allow_missing:
        raise MissingPages("pages of the navigation not in docs/: " + ", ".join(missing))
    for page in missing:
        logging.getLogger("build_site").warning("left out of the navigation: %s", page)
    config = source / "mkdocs.yml"
    config.write_text(f"""site_name: fecontact
site_description: Finite-element frictional contact mechanics on scikit-fem
docs_dir: pages
use_directory_urls: false
theme:
  name: mkdocs
  highlightjs: false
  navigation_depth: 3
markdown_extensions:
  - tables
  - attr_list
  - admonition
  - toc:
      permalink: true
  - pymdownx.highlight:
      use_pygments: true
      pygments_style: {PYGMENTS_STYLE}
  - pymdownx.superfences
  - pymdownx.arithmatex:
      generic: true
extra_css: {MATH_CSS + [PYGMENTS_CSS, SITE_CSS]!r}
extra_javascript: {MATH_JS!r}
hooks:
  - {(HERE / 'sitebuild' / 'hooks.py').as_posix()!r}
validation:
  nav:
    omitted_files: info
  links:
    absolute_links: ignore
    unrecognized_links: ignore
    not_found: warn
    anchors: ignore
plugins:
  - search
  - mkdocstrings:
      handlers:
        python:
          paths: [{ROOT.as_posix()!r}]
          options:
{API_OPTIONS}
nav:
{structure.nav_yaml(nav)}
""")
    return config, nav, missing


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def build(out: Path, strict: bool = True, allow_missing: bool = False) -> dict:
    """Build the site into ``out``; returns the navigation, the missing pages
    and the warnings of the build.

    ``{"nav": [(title, page or entries), ...], "missing": [page, ...],
    "warnings": [message, ...]}``.  With ``strict``, a warning fails the
    build (``mkdocs.exceptions.Abort``).
    """
    import fecontact
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    with tempfile.TemporaryDirectory() as tmp:
        config_file, nav, missing = assemble(Path(tmp), allow_missing=allow_missing)
        config = load_config(str(config_file), site_dir=str(out.resolve()), strict=strict)
        config.markdown_extensions.append(markup.rest_extension(api_pages.Resolver(fecontact)))
        warnings = _Warnings()
        logging.getLogger("mkdocs").addHandler(warnings)
        try:
            mkdocs_build(config)
        finally:
            logging.getLogger("mkdocs").removeHandler(warnings)
    return {"nav": nav, "missing": missing, "warnings": warnings.messages}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(DOCS / "_site"))
    parser.add_argument("--no-strict", action="store_true")
    parser.add_argument("--allow-missing", action="store_true",
                        help="leave pages of the navigation that do not exist out of it")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    sys.path.insert(0, str(ROOT))
    build(Path(args.out), strict=not args.no_strict, allow_missing=args.allow_missing)
    print(f"site written to {args.out}")


if __name__ == "__main__":
    main()
