"""Run the tutorial script and write its page with the outputs, numbers and pictures of the run.

    python docs/make_tutorial.py

The tutorial is one script, ``docs/getting-started/tutorial.py``, in
cells: ``# %% [markdown]`` starts a cell of text (its lines are comments,
``# `` stripped), ``# %%`` a cell of code.  The cells are run in order in
one namespace, in a temporary folder (the script writes its pictures and
VTU file into the working folder), and the page
``docs/getting-started/tutorial.md`` is written from them:

* text cells as Markdown, with every ``{{name}}`` or ``{{name:format}}``
  replaced by the value of ``name`` in the script's namespace after the
  run (``format`` is a Python format specification);
* code cells as Python blocks, each followed by what it printed;
* the PNG files the run wrote are copied next to the page.

So every number and picture on the page comes from the run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "docs" / "getting-started"
SCRIPT = FOLDER / "tutorial.py"
PAGE = FOLDER / "tutorial.md"

_PLACEHOLDER = re.compile(r"\{\{\s*(?P<name>\w+)\s*(?::(?P<spec>[^}]*))?\}\}")


def cells(source: str) -> list:
    """The cells of a ``# %%`` script, as ``(kind, text)`` with kind ``"markdown"`` or ``"code"``.

    Text cells lose the comment marks; leading and trailing blank lines of
    every cell are dropped, and so are empty cells.
    """
    out: list = []
    kind, lines = None, []

    def flush():
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if kind and lines:
            out.append((kind, "\n".join(lines)))

    for line in source.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        elif kind == "markdown":
            lines.append(re.sub(r"^# ?", "", line))
        elif kind == "code":
            lines.append(line)
    flush()
    return out


def fill(text: str, namespace: dict) -> str:
    """``text`` with its ``{{name:format}}`` placeholders replaced from ``namespace``.

    Raises
    ------
    KeyError
        If a placeholder names a variable the script does not define.
    """
    def value(m):
        name = m.group("name")
        if name not in namespace:
            raise KeyError(f"the tutorial page quotes {name!r}, which the script does not define")
        return format(namespace[name], m.group("spec") or "")
    return _PLACEHOLDER.sub(value, text)


def run(script: Path, folder: Path) -> tuple:
    """Run the cells of ``script`` in ``folder``; returns (cells, outputs, namespace, seconds)."""
    parts = cells(script.read_text())
    namespace = {"__name__": "__main__", "__file__": str(script)}
    outputs = []
    here = Path.cwd()
    os.chdir(folder)
    tic = time.perf_counter()
    try:
        for kind, text in parts:
            if kind != "code":
                outputs.append("")
                continue
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(text, str(script), "exec"), namespace)  # noqa: S102 -- the tutorial's own code
            outputs.append(buffer.getvalue())
    finally:
        os.chdir(here)
    return parts, outputs, namespace, time.perf_counter() - tic


def page(parts: list, outputs: list, namespace: dict, seconds: float) -> str:
    """The Markdown page of a run."""
    blocks = []
    for (kind, text), printed in zip(parts, outputs):
        if kind == "markdown":
            blocks.append(fill(text, namespace))
            continue
        blocks.append(f"```python\n{text}\n```")
        if printed.strip():
            blocks.append(f"```text\n{printed.rstrip()}\n```")
    blocks.append(f"*The whole script ran in {seconds:.1f} s on the machine that wrote this "
                  "page, imports included.*")
    return "\n\n".join(blocks) + "\n"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        parts, outputs, namespace, seconds = run(SCRIPT, Path(tmp))
        pictures = sorted(Path(tmp).glob("*.png"))
        for picture in pictures:
            shutil.copy(picture, FOLDER / picture.name)
    PAGE.write_text(page(parts, outputs, namespace, seconds))
    words = len(PAGE.read_text().split())
    print(f"wrote {PAGE.relative_to(ROOT)} ({words} words, run {seconds:.1f} s) and "
          f"{', '.join(p.name for p in pictures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
