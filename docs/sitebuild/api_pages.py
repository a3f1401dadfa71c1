"""The API reference: the public names of ``fecontact``, one page per concept group.

The public names are ``fecontact.__all__``.  Their grouping comes from the
package when it declares one (``fecontact.API_GROUPS``: title -> (what the
group holds, {name: where it comes from}); see :func:`groups`); otherwise from the subpackage each name is exported from
(``fecontact._EXPORTS``), with one readable title per subpackage.  Each
group's page renders its objects with mkdocstrings (signature, parameters,
returns, public members); ``api/index.md`` lists the groups with a one-line
summary of each name.  Private modules and names never get a page.

:class:`Resolver` maps the targets of the docstrings' cross-reference roles
(``~fecontact.friction.coulomb.Coulomb``, ``.coulomb.Coulomb``,
``Coulomb.return_map``) to the identifiers documented on these pages.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Optional

#: title of the group of the names exported from each subpackage
SUBPACKAGE_TITLES = {
    "model": "Model",
    "bodies": "Bodies and materials",
    "io": "Bodies and materials",
    "mesh": "Bodies and materials",
    "contact": "Contact",
    "friction": "Friction laws",
    "solve": "Problem and solvers",
    "analysis": "Analyses",
    "case": "Cases and runs",
    "run": "Cases and runs",
}
#: names of a grouping the package may declare: a dict title -> names, or
#: title -> (description, names or {name: origin})
GROUPING_ATTRIBUTES = ("API_GROUPS", "_API_GROUPS", "_GROUPS")


def _public_names(package) -> list:
    return list(package.__all__)


def _split(entry) -> tuple:
    """(description, names) of one declared group."""
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
        return entry[0], list(entry[1])
    return "", list(entry)


def _declared_groups(package) -> Optional[dict]:
    """title -> (description, names) as the package declares them, or None."""
    names = set(_public_names(package))
    namespace = vars(package)
    for attribute in GROUPING_ATTRIBUTES:
        value = namespace.get(attribute)
        if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
            declared = {title: _split(entry) for title, entry in value.items()}
            if {n for _, members in declared.values() for n in members} == names:
                return declared
    return None


def descriptions(package) -> dict:
    """Concept title -> what the group holds (empty when the package does not say)."""
    declared = _declared_groups(package) or {}
    return {title: declared.get(title, ("", []))[0] for title in groups(package)}


def groups(package) -> dict:
    """Concept title -> public names (as declared, or in the order of ``__all__``)."""
    declared = _declared_groups(package)
    if declared is not None:
        return {title: members for title, (_, members) in declared.items()}
    exports = vars(package).get("_EXPORTS", {})
    result: dict = {}
    for name in _public_names(package):
        source = exports.get(name, "")
        source = source[0] if isinstance(source, tuple) else source
        subpackage = source.lstrip(".").split(".")[0]
        title = SUBPACKAGE_TITLES.get(subpackage, subpackage.capitalize() or "Other")
        result.setdefault(title, []).append(name)
    order = list(dict.fromkeys(SUBPACKAGE_TITLES.values()))
    return dict(sorted(result.items(),
                       key=lambda item: order.index(item[0]) if item[0] in order else len(order)))


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def summary(obj) -> str:
    """The first sentence-line of an object's docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    paragraph = doc.split("\n\n")[0]
    return " ".join(paragraph.split())


class Resolver:
    """Cross-reference targets -> identifiers documented on the API pages.

    The documented identifiers are ``fecontact.<name>`` for each public name
    and ``fecontact.<name>.<member>`` for the public members of the public
    classes.  A target resolves when it is (a dotted suffix of) the public or
    the canonical path (``fecontact.friction.coulomb.Coulomb``) of exactly
    one of them.
    """

    def __init__(self, package):
        self.by_suffix: dict = {}
        self.documented: set = set()
        for name in _public_names(package):
            obj = getattr(package, name)
            public = f"{package.__name__}.{name}"
            canonical = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', name)}"
            self._add(public, (public, canonical))
            if inspect.isclass(obj):
                for member in vars(obj):
                    if not member.startswith("_"):
                        self._add(f"{public}.{member}",
                                  (f"{public}.{member}", f"{canonical}.{member}"))

    def _add(self, identifier: str, paths) -> None:
        self.documented.add(identifier)
        for path in paths:
            parts = path.split(".")
            for k in range(len(parts)):
                self.by_suffix.setdefault(".".join(parts[k:]), set()).add(identifier)

    def __call__(self, target: str) -> Optional[str]:
        target = target.strip().lstrip(".").removesuffix("()")
        found = self.by_suffix.get(target, set())
        return next(iter(found)) if len(found) == 1 else None


def write_pages(package, api_dir: Path) -> list:
    """Write ``api/index.md`` and one page per group; returns the nav entries."""
    api_dir.mkdir(parents=True, exist_ok=True)
    grouped = groups(package)
    described = descriptions(package)
    index = ["# API reference", "",
             f"The public names of `{package.__name__}`, grouped by concept: "
             f"`import {package.__name__} as fc`, then `fc.<name>`.  Everything else "
             "is reachable through its subpackage and may change without notice.", ""]
    entries = [("Overview", "api/index.md")]
    for title, names in grouped.items():
        page = f"{slug(title)}.md"
        about = described[title]
        about = about[:1].upper() + about[1:] + ("." if about and not about.endswith(".") else "")
        index += [f"## [{title}]({page})", ""] + ([about, ""] if about else [])
        body = [f"# {title}", ""] + ([about, ""] if about else [])
        for name in names:
            identifier = f"{package.__name__}.{name}"
            line = summary(getattr(package, name))
            index.append(f"- [`{name}`][{identifier}]" + (f": {line}" if line else ""))
            body += [f"::: {identifier}", ""]
        index.append("")
        (api_dir / page).write_text("\n".join(body))
        entries.append((title, f"api/{page}"))
    (api_dir / "index.md").write_text("\n".join(index))
    return entries
