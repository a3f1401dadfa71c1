"""The site's navigation: eight top-level sections, the home page outside them.

``PLAN`` lists the sections and their pages (paths relative to ``docs/``).
Three kinds of pages are discovered rather than listed, so adding one needs
no edit here: the friction laws (``friction/*.md``), the examples
(``examples/*.md``) and the decision records (``developer/decisions/*.md``),
each folder's ``index.md`` first, then the others by file name, titled by
their first heading.  The API reference's pages are generated
(``sitebuild.api_pages``) and passed to :func:`navigation`.
"""

from __future__ import annotations

import re
from pathlib import Path


class Discover:
    """The Markdown pages of a folder: ``index.md`` first, then the others by name."""

    def __init__(self, folder: str):
        self.folder = folder

    def entries(self, docs: Path) -> list:
        folder = docs / self.folder
        if not folder.is_dir():
            return []
        pages = sorted(folder.glob("*.md"), key=lambda p: (p.name != "index.md", p.name))
        return [(page_title(p), p.relative_to(docs).as_posix()) for p in pages]


#: (title, page | list of entries | Discover | "api"), for each top-level section;
#: a discovered folder or the API pages without a title are spliced into their section.
#: The case-file reference (generated from the schema) is a reference, listed with the
#: API, not a user-guide page.
PLAN = [
    ("Getting started", [("Installation", "getting-started/install.md"),
                         ("Tutorial", "getting-started/tutorial.md")]),
    ("User guide", [("Overview", "guide/index.md"),
                    ("Bodies and materials", "guide/bodies.md"),
                    ("Supports and loads", "guide/loads.md"),
                    ("Contact and friction", "guide/contact.md"),
                    ("Friction laws", Discover("friction")),
                    ("Solving", "guide/solving.md"),
                    ("Dynamics", "guide/dynamics.md"),
                    ("Results and plotting", "guide/results.md"),
                    ("Sensitivities and gradients", "guide/sensitivities.md"),
                    ("Case files", "guide/case-files.md"),
                    ("Restart", "guide/restart.md"),
                    ("Parallel runs", "guide/parallel.md"),
                    ("Siconos export", "guide/pfc.md")]),
    ("Examples", [(None, Discover("examples")),
                  ("Benchmark cases", "gallery.md")]),
    ("Theory", "theory.md"),
    ("Validation", [("Overview", "validation/index.md"),
                    ("Benchmarks", "benchmarks.md"),
                    ("Patch test", "patch_test.md"),
                    ("Contact accuracy", "contact_accuracy.md"),
                    ("Quadratic quadrilaterals", "quadratic_elements.md"),
                    ("Axisymmetric contact", "axisymmetric.md"),
                    ("Ironing", "ironing.md"),
                    ("Dynamics", "dynamics.md"),
                    ("Finite deformation", "finite_strain.md"),
                    ("Sensitivities", "sensitivities.md"),
                    ("Reliability", "reliability.md"),
                    ("Comparison with GetFEM", "comparison.md"),
                    ("Siconos PFC solvers", "pfc.md")]),
    ("Performance", [("Overview", "performance/index.md"),
                     ("Performance at scale", "scaling.md"),
                     ("Search scaling", "search_scaling.md"),
                     ("Choosing the linear solver", "backend_choice.md"),
                     ("Parallel runs", "parallel.md")]),
    ("API reference", [(None, "api"),
                       ("Case-file reference", "case_reference.md")]),
    ("Developer guide", [("Overview", "developer/index.md"),
                         ("Architecture", "architecture.md"),
                         ("Add a friction law", "developer/add-friction-law.md"),
                         ("Add an element kind", "developer/add-element-kind.md"),
                         ("Add a linear backend", "developer/add-backend.md"),
                         ("Add an output field", "developer/add-output-field.md"),
                         ("Add a rigid obstacle", "developer/add-obstacle.md"),
                         ("Decision records", Discover("developer/decisions"))]),
]

#: the sections whose pages are for users (the word limit applies to them)
USER_SECTIONS = ("Getting started", "User guide")
#: where a page of a section may also be, once moved into the section's folder
SECTION_FOLDERS = {"Validation": "validation", "Performance": "performance"}


def page_title(path: Path) -> str:
    """The first ``# `` heading of a Markdown page, without Markdown, or its stem."""
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            title = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", line[2:])
            return title.strip()
    return path.stem.replace("_", " ").replace("-", " ").capitalize()


def _locate(docs: Path, section: str, page: str) -> str:
    """``page``, or the same file in the section's folder when it moved there."""
    folder = SECTION_FOLDERS.get(section)
    if not (docs / page).exists() and folder and "/" not in page \
            and (docs / folder / page).exists():
        return f"{folder}/{page}"
    return page


def navigation(docs: Path, api_entries: list) -> tuple:
    """(nav, missing): the nav entries resolved against ``docs``, and the
    listed pages that do not exist (left out of ``nav``)."""
    missing: list = []

    def resolve(section, items):
        out = []
        for title, target in items:
            if isinstance(target, Discover):
                found = target.entries(docs)
                if not found:
                    missing.append(f"{target.folder}/*.md")
                elif title is None:
                    out += found
                elif len(found) == 1:
                    out.append((title, found[0][1]))
                else:
                    out.append((title, found))
            elif target == "api":
                if title is None:
                    out += api_entries
                else:
                    out.append((title, api_entries))
            elif isinstance(target, list):
                sub = resolve(section, target)
                if sub:
                    out.append((title, sub))
            else:
                page = _locate(docs, section, target)
                if (docs / page).exists():
                    out.append((title, page))
                else:
                    missing.append(page)
        return out

    nav = []
    for title, target in PLAN:
        items = target if isinstance(target, list) else [(title, target)]
        resolved = resolve(title, items)
        if isinstance(target, list) and resolved:
            nav.append((title, resolved))
        elif resolved:
            nav.append(resolved[0])
    return nav, missing


def pages_of(nav: list, sections) -> list:
    """The page paths listed under the given top-level sections."""
    found: list = []

    def walk(items):
        for _, target in items:
            if isinstance(target, list):
                walk(target)
            else:
                found.append(target)
    walk([(t, x) for t, x in nav if t in sections])
    return found


def nav_yaml(nav: list) -> str:
    lines = []

    def emit(items, indent):
        for title, target in items:
            if isinstance(target, list):
                lines.append(f"{' ' * indent}- {title!r}:")
                emit(target, indent + 4)
            else:
                lines.append(f"{' ' * indent}- {title!r}: {target}")
    emit(nav, 2)
    return "\n".join(lines)
