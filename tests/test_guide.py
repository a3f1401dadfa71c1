"""The user guide's code runs, its names exist and its case-file snippets pass the schema.

Conventions of ``docs/guide/*.md``:

* every fenced ```` ```python ```` block runs, in page order, in one
  namespace per page, in a scratch folder that holds the repository's
  ``meshes/`` and ``cases/`` folders; a block whose first line is
  ``# not run`` is only read (it needs MPI, a display or a long run);
* every ``fc.<Name>`` in a Python block is a public name of ``fecontact``;
* every ```` ```toml ```` block is a case-file snippet: merged into a
  complete case (a block with ``[[bodies]]`` and ``[[contact]]`` or
  ``[steps]`` of its own completes only what it lacks), it is accepted by
  the case-file schema;
* every ``fecontact <command>`` line of a ```` ```bash ```` block names a
  command and options the command line has.
"""

import copy
import re
import shlex
import tomllib
from pathlib import Path

import pytest

import fecontact
from fecontact.case.schema import validate_case
from fecontact.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)

#: a complete, valid case that the snippets are merged into
BASE = {
    "name": "guide",
    "bodies": [{"name": "block", "element": "P1",
                "mesh": {"generator": "rectangle", "x0": 0.0, "x1": 1.0, "y0": 0.0, "y1": 0.5,
                         "nx": 4, "ny": 2},
                "material": {"E": 100.0, "nu": 0.3}}],
    "contact": [{"slave": {"body": "block", "boundary": "bottom"},
                 "master": {"obstacle": "line", "point": [0.0, 0.0], "normal": [0.0, 1.0]}}],
    "steps": {"count": 1},
}


def blocks(page: Path, language: str) -> list:
    return [m.group(2) for m in FENCE.finditer(page.read_text()) if m.group(1) == language]


#: tables a snippet gives whole (a mesh file or generator, an obstacle or a body, a law)
WHOLE = {"mesh", "master", "material", "friction"}


def merge(base, part):
    """``part`` laid over ``base``: tables merged, arrays of tables merged entry by entry."""
    if isinstance(base, dict) and isinstance(part, dict):
        out = dict(base)
        for key, value in part.items():
            out[key] = merge(base[key], value) if key in base and key not in WHOLE else value
        if "materials" in part:
            out.pop("material", None)
        return out
    if isinstance(base, list) and isinstance(part, dict) and base and isinstance(base[0], dict):
        return [merge(base[0], part)] + base[1:]
    if isinstance(base, list) and isinstance(part, list) and part and isinstance(part[0], dict):
        return [merge(base[k], p) if k < len(base) else p for k, p in enumerate(part)]
    return part


def complete(snippet: dict) -> dict:
    """A whole case around ``snippet``: the base case's missing parts, bodies named in it added."""
    case = merge(copy.deepcopy(BASE), snippet)
    if "dynamics" in snippet:
        case.pop("steps", None)
        for body in case["bodies"]:
            for material in [body.get("material")] + list(body.get("materials", {}).values()):
                if material is not None:
                    material.setdefault("density", 1.0)
    names = {b.get("name") for b in case["bodies"]}
    for pair in case.get("contact", []) + case.get("tie", []):
        for side in ("slave", "master"):
            body = pair.get(side, {}).get("body")
            if body and body not in names:
                case["bodies"].append(dict(copy.deepcopy(BASE["bodies"][0]), name=body))
                names.add(body)
    return case


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    code = [b for b in blocks(page, "python") if not b.startswith("# not run")]
    if not code:
        pytest.skip("no runnable Python block")
    for folder in ("meshes", "cases"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for k, block in enumerate(code):
        exec(compile(block, f"{page.name}, Python block {k + 1}", "exec"), namespace)
    for name, value in namespace.items():          # every result the page made has converged
        if isinstance(value, fecontact.Solution):
            assert value.converged, f"{page.name}: {name} did not converge: {value.failure}"


def test_guide_names_exist():
    used = set()
    for page in PAGES:
        for block in blocks(page, "python"):
            used |= set(re.findall(r"\bfc\.([A-Za-z_]\w*)", block))
        used |= set(re.findall(r"`fc\.([A-Za-z_]\w*)", page.read_text()))
    assert used, "the guide uses fecontact's names"
    missing = sorted(name for name in used if name not in fecontact.__all__)
    assert not missing, f"not public names of fecontact: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_toml_blocks_pass_the_schema(page):
    snippets = blocks(page, "toml")
    if not snippets:
        pytest.skip("no case-file snippet")
    for k, text in enumerate(snippets):
        snippet = tomllib.loads(text.replace("#:schema", "# schema"))
        if "rule" in snippet:                        # a Taplo configuration, not a case
            assert snippet["rule"][0]["schema"]["path"].endswith(".json")
            continue
        validate_case(complete(snippet), f"{page.name}, TOML block {k + 1}")


def _commands(page: Path) -> list:
    lines = []
    for block in blocks(page, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            words = shlex.split(line, comments=True) if line else []
            while words and (words[0] in ("mpirun", "-n") or words[0].isdigit()
                             or "=" in words[0] and not words[0].startswith("-")):
                words = words[1:]
            if words and words[0].endswith("fecontact"):
                lines.append(words[1:])
    return lines


def test_command_lines_parse():
    parser = _parser()
    seen = 0
    for page in PAGES:
        for words in _commands(page):
            try:
                parser.parse_args(words)
            except SystemExit as err:
                raise AssertionError(f"{page.name}: `fecontact {' '.join(words)}` does not parse") \
                    from err
            seen += 1
    assert seen > 0


def _prose(page: Path) -> str:
    return FENCE.sub("", page.read_text())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_are_short(page):
    assert len(_prose(page).split()) <= 3000, f"{page.name}: a guide page has at most 3000 words"


def _anchors(page: Path) -> set:
    """The heading anchors MkDocs gives ``page`` (its default slugify: lower case, words joined by -)."""
    out = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if line.startswith("#"):
            text = re.sub(r"[^\w\s-]", "", line.lstrip("#").strip().lower())
            out.add(re.sub(r"[-\s]+", "-", text).strip("-"))
    return out


def test_links_resolve():
    checked = 0
    for page in PAGES:
        for target, anchor in re.findall(r"\]\(([^)#:\s]+\.md)(?:#([^)\s]+))?\)", _prose(page)):
            path = (page.parent / target).resolve()
            assert path.is_file(), f"{page.name}: link to missing page {target}"
            if anchor:
                assert anchor in _anchors(path), f"{page.name}: no heading #{anchor} in {target}"
            checked += 1
    assert checked > 0
