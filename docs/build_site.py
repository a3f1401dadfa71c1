"""Build the documentation site (MkDocs) from docs/, the README, the cases and the docstrings.

    python docs/build_site.py [--out DIR]        # default docs/_site (not versioned)

The site is assembled in a temporary folder:

* the pages of ``docs/`` as they are (theory, case files, friction laws,
  dynamics, benchmarks, decisions, ...), with their figures;
* ``getting-started.md``: the README;
* ``api/*.md``: one page per module of ``fecontact``, rendered from the
  numpydoc docstrings by mkdocstrings;
* ``gallery.md`` (written by ``docs/make_gallery.py``).

Formulas (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]`` in the pages and
the docstrings) are marked up by ``pymdownx.arithmatex`` and typeset in the
browser by KaTeX, which is shipped with the site (``docs/assets/katex/``), so
the pages need no network.  The reST math of numpydoc docstrings
(``.. math::`` blocks, ``:math:`` roles) is turned into the same dollar
syntax before rendering (``rest_math_to_dollars``).

Links to files outside ``docs/`` (case files, sources) become plain text.  The build is strict: a broken link between pages or a
docstring that cannot be rendered fails it (``tests/test_docs.py``).
"""

from __future__ import annotations

import argparse
import logging
import pkgutil
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

PAGES = [
    ("Home", "index.md"),
    ("Getting started", "getting-started.md"),
    ("Python API", "api.md"),
    ("Theory", "theory.md"),
    ("Case files", "cases.md"),
    ("Case-file reference", "case_reference.md"),
    ("Friction laws", [("Overview", "friction/index.md"), ("Coulomb", "friction/coulomb.md"),
                       ("Static/kinetic", "friction/static_kinetic.md"),
                       ("Velocity-dependent", "friction/velocity.md"), ("IPC smooth", "friction/ipc.md")]),
    ("Dynamics", "dynamics.md"),
    ("Reliability and restart", "reliability.md"),
    ("Siconos PFC export and solvers", "pfc.md"),
    ("Gallery", "gallery.md"),
    ("Examples", "examples/index.md"),
    ("Benchmarks", "benchmarks.md"),
    ("Patch test", "patch_test.md"),
    ("Ironing", "ironing.md"),
    ("Finite deformation", "finite_strain.md"),
    ("Search scaling", "search_scaling.md"),
    ("Performance at scale", "scaling.md"),
    ("Choosing the linear solver", "backend_choice.md"),
    ("Comparison with GetFEM", "comparison.md"),
    ("Parallel runs (MPI, PETSc)", "parallel.md"),
    ("Architecture", "architecture.md"),
    ("Design decisions", "decisions.md"),
]


#: KaTeX and the script that typesets the arithmatex elements (paths in the site)
MATH_CSS = ["assets/katex/katex.min.css"]
MATH_JS = ["assets/katex/katex.min.js", "assets/katex/contrib/auto-render.min.js",
           "assets/katex-render.js"]

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<rest>.*)$")
_ROLE = re.compile(r":math:`(?P<tex>[^`]+)`")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def rest_math_to_dollars(text: str) -> str:
    """Rewrite reST math (numpydoc docstrings) as arithmatex dollar math.

    ``:math:`x``` becomes ``$x$``.  A ``.. math::`` directive (content on its
    line and/or in the indented block below) becomes one ``$$ ... $$`` block
    per equation; as in reST, blank lines separate equations.
    """
    text = _ROLE.sub(lambda m: f"${m.group('tex').strip()}$", text)
    if ".. math::" not in text:
        return text
    lines = text.split("\n")
    out: list = []
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        # a display block indented less than a Markdown list level ends the list
        indent = " " * (len(m.group("indent").expandtabs(4)) // 4 * 4)
        body = [m.group("rest")] if m.group("rest").strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > len(m.group("indent"))):
            body.append(lines[i])
            i += 1
        while body and not body[-1].strip():
            body.pop()
            i -= 1                      # trailing blank lines stay in the text
        equations: list = [[]]
        for line in body:
            if line.strip():
                equations[-1].append(line.strip())
            elif equations[-1]:
                equations.append([])
        if out and out[-1].strip():
            out.append("")
        for k, eq in enumerate(e for e in equations if e):
            if k:
                out.append("")
            out += [indent + "$$"] + [indent + line for line in eq] + [indent + "$$"]
        if i < len(lines) and lines[i].strip():
            out.append("")
    return "\n".join(out)


def _rest_math_extension():
    """A Markdown extension applying :func:`rest_math_to_dollars` before parsing.

    It is added to the MkDocs configuration after loading, so mkdocstrings,
    which renders every docstring section with the site's Markdown
    extensions, applies it to the docstrings too.
    """
    from markdown import Extension
    from markdown.preprocessors import Preprocessor

    class _Pre(Preprocessor):
        def run(self, lines):
            text = "\n".join(lines)
            if ":math:" not in text and ".. math::" not in text:
                return lines
            return rest_math_to_dollars(text).split("\n")

    class ReSTMath(Extension):
        def extendMarkdown(self, md):
            md.preprocessors.register(_Pre(md), "rest_math", 29)

    return ReSTMath()


def _modules() -> list:
    import fecontact

    names = [m.name for m in pkgutil.walk_packages(fecontact.__path__, "fecontact.")
             if not m.name.endswith("__main__")]
    return sorted(names)


def _nav(pages) -> str:
    lines = []

    def emit(items, indent):
        for title, target in items:
            if isinstance(target, list):
                lines.append(f"{' ' * indent}- {title!r}:")
                emit(target, indent + 4)
            else:
                lines.append(f"{' ' * indent}- {title!r}: {target}")
    emit(pages, 2)
    return "\n".join(lines)


def assemble(source: Path) -> Path:
    """Copy and generate the site's pages into ``source``; returns the mkdocs.yml."""
    pages = source / "pages"
    shutil.copytree(DOCS, pages, ignore=shutil.ignore_patterns("_site", "*.py", "__pycache__"))
    readme = (ROOT / "README.md").read_text()
    # README links are relative to the repository root
    readme = readme.replace("](docs/", "](")
    # README links to repository files outside docs/ (meshes/README.md, ...) become plain text
    link = re.compile(r"\[([^\]]+)\]\(([^)#:]+)(#[^)]*)?\)")
    readme = link.sub(lambda m: m.group(0) if (pages / m.group(2)).exists() else m.group(1), readme)
    (pages / "getting-started.md").write_text(readme)
    # links to repository files outside docs/ (cases, sources) become plain text
    outside = re.compile(r"\[([^\]]+)\]\((?:\.\./)+(?!docs/)[^)]+\)")
    for page in pages.rglob("*.md"):
        text = page.read_text()
        page.write_text(outside.sub(r"\1", text))
    if not (pages / "gallery.md").exists():
        (pages / "gallery.md").write_text("# Gallery\n\nRun `python docs/make_gallery.py`.\n")
    api = pages / "api"
    api.mkdir()
    modules = _modules()
    entries = []
    for name in modules:
        (api / f"{name}.md").write_text(f"# `{name}`\n\n::: {name}\n")
        entries.append((name.removeprefix("fecontact."), f"api/{name}.md"))
    nav = PAGES + [("API reference", entries)]
    config = source / "mkdocs.yml"
    config.write_text(f"""site_name: fecontact
site_description: Finite-element frictional contact mechanics on scikit-fem
docs_dir: pages
theme:
  name: mkdocs
markdown_extensions:
  - tables
  - toc:
      permalink: true
  - pymdownx.arithmatex:
      generic: true
extra_css: {MATH_CSS!r}
extra_javascript: {MATH_JS!r}
validation:
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
            docstring_style: numpy
            show_source: false
            show_root_heading: false
            members_order: source
            filters: ["!^_"]
nav:
{_nav(nav)}
""")
    return config


def build(out: Path, strict: bool = True) -> None:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    with tempfile.TemporaryDirectory() as tmp:
        config_file = assemble(Path(tmp))
        config = load_config(str(config_file), site_dir=str(out.resolve()), strict=strict)
        config.markdown_extensions.append(_rest_math_extension())
        mkdocs_build(config)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(DOCS / "_site"))
    parser.add_argument("--no-strict", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    sys.path.insert(0, str(ROOT))
    build(Path(args.out), strict=not args.no_strict)
    print(f"site written to {args.out}")


if __name__ == "__main__":
    main()
