"""Build the documentation site (MkDocs) from docs/, the README, the cases and the docstrings.

    python docs/build_site.py [--out DIR]        # default docs/_site (not versioned)

The site is assembled in a temporary folder:

* the pages of ``docs/`` as they are (theory, case files, friction laws,
  dynamics, benchmarks, decisions, ...), with their figures;
* ``getting-started.md``: the README;
* ``api/*.md``: one page per module of ``fecontact``, rendered from the
  numpydoc docstrings by mkdocstrings;
* ``gallery.md`` (written by ``docs/make_gallery.py``).

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
    ("Theory", "theory.md"),
    ("Case files", "cases.md"),
    ("Friction laws", [("Overview", "friction/index.md"), ("Coulomb", "friction/coulomb.md"),
                       ("Static/kinetic", "friction/static_kinetic.md"),
                       ("Velocity-dependent", "friction/velocity.md"), ("IPC smooth", "friction/ipc.md")]),
    ("Dynamics", "dynamics.md"),
    ("Reliability and restart", "reliability.md"),
    ("Siconos PFC export and solvers", "pfc.md"),
    ("Gallery", "gallery.md"),
    ("Benchmarks", "benchmarks.md"),
    ("Patch test", "patch_test.md"),
    ("Ironing", "ironing.md"),
    ("Search scaling", "search_scaling.md"),
    ("Performance at scale", "scaling.md"),
    ("Architecture", "architecture.md"),
    ("Design decisions", "decisions.md"),
]


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
