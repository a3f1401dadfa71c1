r"""The reST of numpydoc docstrings as site Markdown: math and cross-reference roles.

A Markdown preprocessor (:func:`rest_extension`) applies, outside fenced
code blocks and code spans,

* :func:`rest_math_to_dollars`: ``:math:`x``` becomes ``$x$`` and a
  ``.. math::`` directive a ``$$ ... $$`` block (typeset by KaTeX through
  ``pymdownx.arithmatex``);
* :func:`rest_roles_to_links`: ``:class:`~fecontact.x.Y```, ``:func:``,
  ``:meth:``, ``:mod:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:`` (with
  or without ``~``, full, relative or short targets) become a mkdocs-autorefs
  cross-reference when the target is documented on the site, and plain code
  otherwise.

It is added to the MkDocs configuration, so mkdocstrings, which renders every
docstring section with the site's Markdown extensions, applies it to the
docstrings too.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<rest>.*)$")
_MATH_ROLE = re.compile(r":math:`(?P<tex>[^`]+)`")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")

#: a cross-reference role, or a code span (kept as it is); scanned left to right
_ROLE_OR_CODE = re.compile(
    r"(?<![\w`]):(?:py:)?(?P<role>class|func|meth|mod|attr|data|exc|obj|const|ref|doc|term|any):"
    r"`(?P<body>[^`]+)`"
    r"|(?P<code>(?P<ticks>`+)[^`](?:.*?[^`])?(?P=ticks)(?!`))")
_EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _in_list(out: list, indent: int) -> bool:
    """Whether the block at ``indent`` continues a Markdown list item above it."""
    for line in reversed(out):
        if line.strip() and _indent(line) < indent:
            return bool(_LIST_ITEM.match(line))
    return False


def rest_math_to_dollars(text: str) -> str:
    """Rewrite reST math (numpydoc docstrings) as arithmatex dollar math.

    ``:math:`x``` becomes ``$x$``.  A ``.. math::`` directive (content on its
    line and/or in the indented block below) becomes one ``$$ ... $$`` block
    per equation; as in reST, blank lines separate equations.

    A directive indented inside a Markdown list item keeps the list's
    indentation.  Elsewhere (the indented description of a numpydoc
    definition, ``term`` then an indented paragraph) the formula is written
    at the margin, and the rest of the indented block after it too: indented
    after a blank line, Markdown would take both for a code block.
    """
    text = _MATH_ROLE.sub(lambda m: f"${m.group('tex').strip()}$", text)
    if ".. math::" not in text:
        return text
    lines = text.split("\n")
    out: list = []
    dedent_below = None                 # indentation of a definition block being dedented
    i = 0
    while i < len(lines):
        line = lines[i]
        if dedent_below is not None:
            if line.strip() and _indent(line) < dedent_below:
                dedent_below = None
            elif not _DIRECTIVE.match(line):
                out.append(line[dedent_below:] if line.strip() else line)
                i += 1
                continue
        m = _DIRECTIVE.match(line)
        if not m:
            out.append(line)
            i += 1
            continue
        width = len(m.group("indent").expandtabs(4))
        if width and not _in_list(out, width):
            indent = ""
            dedent_below = width if dedent_below is None else dedent_below
        else:
            # a display block indented less than a Markdown list level ends the list
            indent = " " * (width // 4 * 4)
        body = [m.group("rest")] if m.group("rest").strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > len(m.group("indent"))):
            body.append(lines[i])
            i += 1
        while body and not body[-1].strip():
            body.pop()
            i -= 1                      # trailing blank lines stay in the text
        equations: list = [[]]
        for row in body:
            if row.strip():
                equations[-1].append(row.strip())
            elif equations[-1]:
                equations.append([])
        if out and out[-1].strip():
            out.append("")
        for k, eq in enumerate(e for e in equations if e):
            if k:
                out.append("")
            out += [indent + "$$"] + [indent + row for row in eq] + [indent + "$$"]
        if i < len(lines) and lines[i].strip():
            out.append("")
    return "\n".join(out)


def _display(role: str, target: str, tilde: bool) -> str:
    shown = target.split(".")[-1] if tilde else target.lstrip(".")
    return shown + "()" if role in ("func", "meth") and not shown.endswith(")") else shown


def rest_roles_to_links(text: str, resolve: Callable[[str], Optional[str]]) -> str:
    """Rewrite the reST cross-reference roles of ``text`` as links or code.

    ``resolve(target)`` returns the identifier of the documented object a
    target names (``fecontact.Coulomb`` for ``~.coulomb.Coulomb``) or None.
    A resolved role becomes ``<autoref identifier=... optional>`` markup
    around a code span (a link once the site is built; mkdocs-autorefs
    leaves plain code if the identifier has no anchor after all); an
    unresolved one becomes a code span.  Code spans are left as they are.
    """
    def replace(m: re.Match) -> str:
        if m.group("code"):
            return m.group(0)
        role, body = m.group("role"), m.group("body").strip()
        explicit = _EXPLICIT_TITLE.match(body)
        if explicit:
            title, target = explicit.group("title"), explicit.group("target").strip()
        else:
            target = body
            title = None
        tilde = target.startswith("~")
        target = target.lstrip("~!").lstrip(".")      # relative targets are matched by suffix
        shown = title or _display(role, target, tilde)
        identifier = resolve(target) if role not in ("ref", "doc", "term") else None
        if identifier is None:
            return f"`{shown}`"
        return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'

    if ":`" not in text:
        return text
    return _ROLE_OR_CODE.sub(replace, text)


def _outside_fences(text: str, convert: Callable[[str], str]) -> str:
    """Apply ``convert`` to the parts of ``text`` outside fenced code blocks."""
    if "```" not in text and "~~~" not in text:
        return convert(text)
    parts, chunk, fence = [], [], None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            parts.append(convert("\n".join(chunk)) if chunk else None)
            chunk, fence = [line], m.group("fence")
        elif fence is not None:
            chunk.append(line)
            if line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "" \
                    and len(chunk) > 1:
                parts.append("\n".join(chunk))
                chunk, fence = [], None
        else:
            chunk.append(line)
    if chunk:
        parts.append(convert("\n".join(chunk)) if fence is None else "\n".join(chunk))
    return "\n".join(p for p in parts if p is not None)


def convert_rest(text: str, resolve: Callable[[str], Optional[str]]) -> str:
    """Math and roles of ``text`` (outside fenced code) as site Markdown."""
    def convert(chunk: str) -> str:
        if ":math:" in chunk or ".. math::" in chunk:
            chunk = rest_math_to_dollars(chunk)
        return rest_roles_to_links(chunk, resolve)
    return _outside_fences(text, convert)


def rest_extension(resolve: Callable[[str], Optional[str]]):
    """A Markdown extension applying :func:`convert_rest` before parsing."""
    from markdown import Extension
    from markdown.preprocessors import Preprocessor

    class _Pre(Preprocessor):
        def run(self, lines):
            text = "\n".join(lines)
            if ":`" not in text and ".. math::" not in text:
                return lines
            return convert_rest(text, resolve).split("\n")

    class ReST(Extension):
        def extendMarkdown(self, md):
            md.preprocessors.register(_Pre(md), "rest_markup", 29)

    return ReST()
