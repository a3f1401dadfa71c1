"""The parts of the docs builder, without building the site (fast).

* reST math in docstrings: an indented ``.. math::`` block in the indented
  description of a definition (``fecontact.solve.backends``,
  ``fecontact.analysis.mass``) becomes display math, and the text after it
  stays a paragraph (Markdown would take both for a code block);
* reST roles: every form becomes a link to a documented public name or plain
  code, never role text; code spans and fenced code are left alone;
* the API groups cover ``fecontact.__all__`` exactly;
* the navigation: eight sections, discovered folders, missing pages;
* the developer guide's table of extensions states each how-to page's file count.
"""

import inspect
import re

import pytest

from conftest import ROOT
from docs_build import build_site_module

pytest.importorskip("markdown")
pytest.importorskip("pymdownx.arithmatex")

build_site = build_site_module()
markup = build_site.markup
api_pages = build_site.api_pages
structure = build_site.structure


def render(text: str, resolve=lambda target: None) -> str:
    """HTML of Markdown ``text`` with the site's extensions (no autorefs)."""
    import markdown
    from pymdownx import arithmatex

    return markdown.markdown(text, extensions=[
        "tables", "pymdownx.superfences", markup.rest_extension(resolve),
        arithmatex.makeExtension(generic=True)])


def code_blocks(html: str) -> str:
    return "".join(re.findall(r"<(?:pre|code)>(.*?)</(?:pre|code)>", html, flags=re.S))


@pytest.mark.parametrize("module, after", [
    ("fecontact.solve.backends", "solves the small dense system"),
    ("fecontact.analysis.mass", "symmetric, positive semi-definite"),
])
def test_indented_math_of_a_definition_is_display_math(module, after):
    import importlib

    doc = inspect.getdoc(importlib.import_module(module))
    assert ".. math::" in doc
    html = render(doc)
    code = code_blocks(html)
    assert "$$" not in code and "\\begin" not in code and "\\[" not in code, code[:300]
    assert '<div class="arithmatex">' in html
    # the text after the formula is a paragraph, not code
    assert any(after in p for p in re.findall(r"<p>(.*?)</p>", html, flags=re.S))
    assert after not in code


def test_math_in_a_list_item_stays_in_the_item():
    text = "- a point\n\n    .. math::\n\n        x^2\n\n    after\n"
    html = render(text)
    assert html.index("<li>") < html.index('<div class="arithmatex">') < html.index("</li>")
    assert "<pre>" not in html


def test_math_roles_and_blocks():
    out = markup.rest_math_to_dollars("a :math:`x_1` b\n\n.. math:: y = 2\n\nc")
    assert "$x_1$" in out and "$$\ny = 2\n$$" in out


RESOLVE = {"fecontact.friction.coulomb.Coulomb": "fecontact.Coulomb",
           "coulomb.Coulomb": "fecontact.Coulomb", "Coulomb": "fecontact.Coulomb",
           "Model.solve": "fecontact.Model.solve"}


@pytest.mark.parametrize("role, shown, linked", [
    (":class:`~fecontact.friction.coulomb.Coulomb`", "Coulomb", "fecontact.Coulomb"),
    (":class:`fecontact.friction.coulomb.Coulomb`", "fecontact.friction.coulomb.Coulomb",
     "fecontact.Coulomb"),
    (":class:`~.coulomb.Coulomb`", "Coulomb", "fecontact.Coulomb"),
    (":class:`Coulomb`", "Coulomb", "fecontact.Coulomb"),
    (":py:class:`Coulomb`", "Coulomb", "fecontact.Coulomb"),
    (":meth:`Model.solve`", "Model.solve()", "fecontact.Model.solve"),
    (":func:`~fecontact.contact.search.candidates`", "candidates()", None),
    (":mod:`fecontact.contact`", "fecontact.contact", None),
    (":attr:`~State.gap`", "gap", None),
    (":data:`BACKENDS`", "BACKENDS", None),
    (":exc:`ValueError`", "ValueError", None),
    (":class:`the law <fecontact.friction.coulomb.Coulomb>`", "the law", "fecontact.Coulomb"),
])
def test_roles_become_links_or_code(role, shown, linked):
    out = markup.rest_roles_to_links(f"see {role}.", RESOLVE.get)
    assert ":`" not in out
    if linked:
        assert out == f'see <autoref identifier="{linked}" optional><code>{shown}</code></autoref>.'
    else:
        assert out == f"see `{shown}`."


def test_roles_in_code_are_left_alone():
    text = "use ``:class:`X` `` in docstrings\n\n```rst\n:func:`f`\n```\n\nand :func:`f`"
    out = markup.convert_rest(text, lambda target: None)
    assert "``:class:`X` ``" in out and "```rst\n:func:`f`\n```" in out
    assert out.endswith("and `f()`")


def test_rendered_roles_leave_no_role_text():
    html = render("A :class:`~fecontact.friction.coulomb.Coulomb` law and :func:`g`.", RESOLVE.get)
    assert ":class:" not in html and ":func:" not in html
    assert '<autoref identifier="fecontact.Coulomb" optional><code>Coulomb</code></autoref>' in html
    assert "<code>g()</code>" in html


def test_resolver_knows_public_names_and_members():
    import fecontact

    resolve = api_pages.Resolver(fecontact)
    assert resolve("~fecontact.friction.coulomb.Coulomb".lstrip("~")) == "fecontact.Coulomb"
    assert resolve(".coulomb.Coulomb") == "fecontact.Coulomb"
    assert resolve("fecontact.Model.solve") == "fecontact.Model.solve"
    assert resolve("Model.solve") == "fecontact.Model.solve"
    assert resolve("fecontact.contact.search") is None          # a module: no page
    assert resolve("numpy.ndarray") is None


def test_api_groups_cover_the_public_names_once():
    import fecontact

    groups = api_pages.groups(fecontact)
    names = [n for members in groups.values() for n in members]
    assert sorted(names) == sorted(fecontact.__all__)
    assert len(names) == len(set(names))
    assert 2 <= len(groups) <= 12
    assert not [n for n in names if n.startswith("_")]


def test_api_groups_without_a_declared_grouping_follow_the_subpackages():
    import types

    package = types.ModuleType("pkg")
    package.__all__ = ["Body", "Coulomb", "run_case", "Model"]
    package._EXPORTS = {"Body": ".model", "Coulomb": ".friction", "Model": ".model",
                        "run_case": (".run.static", "run")}
    assert api_pages.groups(package) == {"Model": ["Body", "Model"], "Friction laws": ["Coulomb"],
                                         "Cases and runs": ["run_case"]}
    package.API_GROUPS = {"All": ("everything", {n: "." for n in package.__all__})}
    assert api_pages.groups(package) == {"All": package.__all__}
    assert api_pages.descriptions(package) == {"All": "everything"}


def test_navigation_plan_has_eight_sections(tmp_path):
    assert len(structure.PLAN) == 8
    (tmp_path / "friction").mkdir()
    for name, title in (("index.md", "Friction laws"), ("coulomb.md", "Coulomb friction"),
                        ("new_law.md", "A `new` law")):
        (tmp_path / "friction" / name).write_text(f"# {title}\n\ntext\n")
    (tmp_path / "theory.md").write_text("# Theory\n")
    nav, missing = structure.navigation(tmp_path, [("Overview", "api/index.md")])
    guide = dict(nav)["User guide"]
    laws = dict(guide)["Friction laws"]
    assert laws == [("Friction laws", "friction/index.md"), ("Coulomb friction", "friction/coulomb.md"),
                    ("A new law", "friction/new_law.md")]
    assert ("Theory", "theory.md") in nav
    assert "getting-started/tutorial.md" in missing and "theory.md" not in missing
    assert structure.pages_of(nav, ("User guide",)) == [p for _, p in laws]


def test_the_developer_guide_states_the_file_count_of_each_how_to_page():
    """The table of extensions on the developer guide's front page gives, for each
    "how to add" page, the count that page states ("Files you write: N")."""
    developer = ROOT / "docs" / "developer"
    rows = re.findall(r"^\| \[[^\]]+\]\((add-[\w-]+\.md)\) \| (\d+):", (developer / "index.md").read_text(),
                      flags=re.M)
    pages = sorted(p.name for p in developer.glob("add-*.md"))
    assert sorted(page for page, _ in rows) == pages
    for page, count in rows:
        text = (developer / page).read_text()
        stated = re.findall(r"\*\*Files you write: (\d+)", text)
        assert stated[:1] == [count] or f"{count} in all" in text, (page, count, stated)
