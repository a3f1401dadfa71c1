"""Run every example script of docs/examples/ and write docs/examples.md with its figures and picture.

    python docs/make_examples.py [--names STEM ...]

Each example is run as a script (``runpy``, a fresh namespace); its
``FIGURES`` give the page's table, its ``plot(path)`` writes
``docs/examples/<stem>.png``.  The page shows, per example, the title and
text of its docstring, its lines of user code, run time, figures, picture
and full source.  An example that fails is reported and left off the page,
and the script exits with status 1.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import runpy
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
PAGE = ROOT / "docs" / "examples.md"

LINE_RULE = ("lines of user code: the non-blank lines of the script that are not comments, "
             "leaving out the module docstring, the `plot` function and the "
             "`if __name__ == \"__main__\":` block; the imports, the model, the solve and the "
             "computation of `FIGURES` are counted")


def _is_main_block(node) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    names = [node.test.left, *node.test.comparators]
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in names) and any(
        isinstance(n, ast.Constant) and n.value == "__main__" for n in names)


def user_lines(source: str) -> int:
    """Lines of user code of an example (the rule is :data:`LINE_RULE`)."""
    tree = ast.parse(source)
    skipped = set()
    for k, node in enumerate(tree.body):
        docstring = k == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str)
        plot = isinstance(node, ast.FunctionDef) and node.name == "plot"
        if docstring or plot or _is_main_block(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            skipped.update(range(first, node.end_lineno + 1))
    return sum(1 for i, line in enumerate(source.splitlines(), start=1)
               if i not in skipped and line.strip() and not line.strip().startswith("#"))


def _escape(text: str) -> str:
    """Markdown-safe text: reST ``code`` -> `code`; *, _ and $ escaped outside code spans."""
    text = text.replace("``", "`")
    parts = text.split("`")
    for i in range(0, len(parts), 2):          # outside code spans
        bullet = re.match(r"^(\s*[*-] )", parts[i]) if i == 0 else None
        head = bullet.group(1) if bullet else ""
        rest = parts[i][len(head):]
        parts[i] = head + re.sub(r"([*_$\\])", r"\\\1", rest)
    return "`".join(parts)


def docstring_markdown(doc: str) -> tuple:
    """Title (first line) and the rest of a module docstring as Markdown.

    An unindented line followed by an indented block (a reST definition
    list: ``Problem`` / indented text) becomes a bold heading and the
    dedented block.
    """
    lines = inspect.cleandoc(doc).splitlines()
    title = lines[0].strip().rstrip(".")
    body = lines[1:]
    out: list = []
    i = 0
    while i < len(body):
        line = body[i]
        indented_next = i + 1 < len(body) and body[i + 1].startswith(" ") and body[i + 1].strip()
        starts = not out or not out[-1].strip()
        if line.strip() and not line.startswith(" ") and indented_next and starts:
            out += [f"**{_escape(line.strip())}**", ""]
            i += 1
            block = []
            while i < len(body) and (body[i].startswith(" ") or not body[i].strip()):
                block.append(body[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            width = min(len(b) - len(b.lstrip()) for b in block if b.strip())
            out += [_escape(b[width:]) for b in block] + [""]
            continue
        out.append(_escape(line))
        i += 1
    return title, "\n".join(out).strip()


def _cell(text: str) -> str:
    """Text for a table cell: escaped, its pipes as HTML entities (they would split the cell)."""
    return _escape(text).replace("|", "&#124;")


def _anchor(title: str) -> str:
    """The id the toc extension gives a heading."""
    from markdown.extensions.toc import slugify

    return slugify(title, "-")


def _number(v) -> str:
    return f"{v:.6g}" if isinstance(v, (int, float)) else str(v)


def figures_table(figures: dict) -> list:
    rows = ["| figure | value | reference | value / reference | unit |", "|---|---|---|---|---|"]
    for name, fig in figures.items():
        value, ref = float(fig["value"]), fig.get("reference")
        ratio = f"{value / float(ref):.5f}" if ref not in (None, 0) else "—"
        rows.append(f"| {_cell(name)} | {_number(value)} | "
                    f"{'—' if ref is None else _number(float(ref))} | {ratio} | "
                    f"{_cell(str(fig.get('unit', '')))} |")
    return rows


def run_example(path: Path) -> dict:
    """Run one example, write its picture; returns what the page needs."""
    source = path.read_text()
    tic = time.perf_counter()
    ns = runpy.run_path(str(path), run_name="example")
    seconds = time.perf_counter() - tic
    picture = EXAMPLES / f"{path.stem}.png"
    ns["plot"](picture)
    title, text = docstring_markdown(ns.get("__doc__") or path.stem)
    return {"stem": path.stem, "title": title, "text": text, "source": source,
            "lines": user_lines(source), "seconds": seconds, "figures": ns["FIGURES"],
            "picture": picture}


def page(done: list) -> str:
    text = ["# Examples", "",
            ("Short scripts in `docs/examples/` that build a model with the Python API "
            "(`import fecontact as fc`, scikit-fem meshes), solve it and compare it with a "
            "closed form. Each keeps its results in a dict `FIGURES` and draws one picture with "
            "`plot(path)`; `python docs/examples/NAME.py [OUT.png]` prints the figures (and "
            "writes the picture). The test suite runs every example and checks its figures "
            "against the closed forms. This page is written by `python docs/make_examples.py`: "
             "every number on it comes from the runs."), "",
            (f"Counted {LINE_RULE}. Run time: the script without its picture; the examples run "
             "one after another in one Python process (the first one also imports the "
             "libraries), on the machine that wrote the page."), "",
            "| example | lines of user code | run time (s) |", "|---|---|---|"]
    text += [(f"| [{_cell(d['title'])}](#{_anchor(d['title'])}) | {d['lines']} | "
              f"{d['seconds']:.2f} |") for d in done]
    text.append("")
    for d in done:
        text += [f"## {_escape(d['title'])}", "",
                 (f"`docs/examples/{d['stem']}.py`: {d['lines']} lines of user code, "
                  f"ran in {d['seconds']:.2f} s."), "", d["text"], "",
                 *figures_table(d["figures"]), "",
                 f"![{_escape(d['title'])}](examples/{d['picture'].name})", "",
                 "```python", d["source"].rstrip("\n"), "```", ""]
    return "\n".join(text)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--names", nargs="*", help="only these examples (the page lists only them)")
    args = parser.parse_args()
    paths = sorted(EXAMPLES.glob("*.py"))
    if args.names:
        paths = [p for p in paths if p.stem in args.names]
    done, failed = [], []
    for path in paths:
        print(f"{path.stem} ...", flush=True)
        try:
            d = run_example(path)
        except Exception:  # noqa: BLE001 -- any failure of an example: report it, run the others
            traceback.print_exc()
            failed.append(path.stem)
            continue
        done.append(d)
        print(f"  {d['lines']} lines, {d['seconds']:.2f} s, {d['picture'].relative_to(ROOT)}")
    PAGE.write_text(page(done))
    print(f"wrote {PAGE.relative_to(ROOT)} ({len(done)} examples)")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
