"""Run every example script of docs/examples/ and write the examples gallery and one page per example.

    python docs/make_examples.py [--names STEM ...]

Each example is run as a script (``runpy``, a fresh namespace); its
``FIGURES`` give the page's table, its ``plot(path)`` writes
``docs/examples/<stem>.png`` and a downscaled copy
``docs/examples/thumbs/<stem>.png``.  The script writes

* ``docs/examples/<stem>.md``: the title and text of the example's
  docstring, its lines of user code, run time, figures, picture and full
  source;
* ``docs/examples/index.md``: the gallery, one thumbnail per example with
  its title and a one-line description (the docstring's first sentence
  without its parentheses), each linking to the example's page.

An example that fails is reported and left off the gallery, and the script
exits with status 1.  With ``--names`` only those examples are run and
their pages written; the gallery keeps the other examples whose pages
exist.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import re
import runpy
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
GALLERY = EXAMPLES / "index.md"
INDEX = EXAMPLES / "examples.json"
THUMBS = EXAMPLES / "thumbs"
THUMB_SIZE = (360, 234)
#: attributes of a thumbnail on the gallery (attr_list): a table cell would shrink it otherwise
THUMB_STYLE = 'style="min-width: 300px"'

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


def summary_line(text: str) -> str:
    """One line for the gallery: the first sentence of a docstring's text, its parentheses left out.

    Bold headings (the terms of a reST definition list, see
    :func:`docstring_markdown`) are skipped.
    """
    lines = [ln for ln in text.splitlines() if not re.fullmatch(r"\*\*.*\*\*", ln.strip())]
    flat = " ".join(" ".join(lines).split())
    while True:                                  # innermost parentheses first
        shorter = re.sub(r"\s*\([^()]*\)", "", flat)
        if shorter == flat:
            break
        flat = shorter
    sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", flat, maxsplit=1)[0]
    return sentence.replace(" ;", ";").replace(" ,", ",")


def thumbnail(picture: Path) -> Path:
    """A copy of ``picture`` scaled down to fit :data:`THUMB_SIZE`, centred on a white card of that size.

    Every thumbnail has the same size, so the gallery's columns line up.
    """
    from PIL import Image                      # installed with matplotlib

    THUMBS.mkdir(exist_ok=True)
    out = THUMBS / picture.name
    with Image.open(picture) as image:
        image = image.convert("RGB")
        image.thumbnail(THUMB_SIZE, Image.Resampling.LANCZOS)
        card = Image.new("RGB", THUMB_SIZE, "white")
        card.paste(image, ((THUMB_SIZE[0] - image.width) // 2, (THUMB_SIZE[1] - image.height) // 2))
        card.save(out, optimize=True)
    return out


def run_example(path: Path) -> dict:
    """Run one example, write its picture and thumbnail; returns what the pages need."""
    source = path.read_text()
    tic = time.perf_counter()
    ns = runpy.run_path(str(path), run_name="example")
    seconds = time.perf_counter() - tic
    picture = EXAMPLES / f"{path.stem}.png"
    ns["plot"](picture)
    thumbnail(picture)
    title, text = docstring_markdown(ns.get("__doc__") or path.stem)
    return {"stem": path.stem, "title": title, "text": text, "source": source,
            "lines": user_lines(source), "seconds": seconds, "figures": ns["FIGURES"],
            "picture": picture}


def example_page(d: dict) -> str:
    """The page of one example."""
    return "\n".join([
        f"# {_escape(d['title'])}", "",
        (f"`docs/examples/{d['stem']}.py`: {d['lines']} lines of user code, "
         f"ran in {d['seconds']:.2f} s. [All examples](index.md)."), "",
        d["text"], "",
        "## Results", "",
        *figures_table(d["figures"]), "",
        f"![{_escape(d['title'])}]({d['picture'].name})", "",
        "## Source", "",
        (f"Run it with `python docs/examples/{d['stem']}.py [OUT.png]`: it prints the "
         "figures and, given a file name, writes the picture."), "",
        "```python", d["source"].rstrip("\n"), "```", ""])


def gallery_page(entries: list) -> str:
    """The gallery: a row per example, its thumbnail beside its title and one-line description."""
    text = ["# Examples", "",
            ("Short scripts in `docs/examples/` that build a model with the Python API "
             "(`import fecontact as fc`, scikit-fem meshes), solve it and compare it with a "
             "closed form or a check of equilibrium. New to fecontact? The "
             "[tutorial](../getting-started/tutorial.md) builds one model step by step. "
             "The bundled case files, run from the command line, are in the "
             "[gallery of cases](../gallery.md)."), "",
            "| | |", "|---|---|"]
    text += [(f"| [![{_cell(e['title'])}](thumbs/{e['stem']}.png){{ {THUMB_STYLE} }}]({e['stem']}.md) | "
              f"**[{_cell(e['title'])}]({e['stem']}.md)**<br>{_cell(e['summary'])} |")
             for e in entries]
    text += ["",
             ("Each script keeps its results in a dict `FIGURES` and draws one picture with "
              "`plot(path)`; the test suite runs every example and checks its figures. "
              "These pages are written by `python docs/make_examples.py`: every number on "
              "them comes from the runs."), "",
             (f"Counted {LINE_RULE}. Run time: the script without its picture; the examples run "
              "one after another in one Python process (the first one also imports the "
              "libraries), on the machine that wrote the page."), "",
             "| example | lines of user code | run time (s) |", "|---|---|---|"]
    text += [f"| [{_cell(e['title'])}]({e['stem']}.md) | {e['lines']} | {e['seconds']:.2f} |"
             for e in entries]
    return "\n".join(text) + "\n"


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
    index = json.loads(INDEX.read_text()) if args.names and INDEX.exists() else {}
    for d in done:
        (EXAMPLES / f"{d['stem']}.md").write_text(example_page(d))
        index[d["stem"]] = {"stem": d["stem"], "title": d["title"], "summary": summary_line(d["text"]),
                            "lines": d["lines"], "seconds": round(d["seconds"], 2)}
    index = {stem: index[stem] for stem in sorted(index)
             if stem not in failed and (EXAMPLES / f"{stem}.md").exists()}
    INDEX.write_text(json.dumps(index, indent=1) + "\n")
    GALLERY.write_text(gallery_page(list(index.values())))
    print(f"wrote {GALLERY.relative_to(ROOT)} and {len(done)} example pages")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
