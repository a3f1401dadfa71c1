"""The keyword cards of an Abaqus or CalculiX input file (``.inp``).

An input file is a sequence of keyword lines (``*ELEMENT, TYPE=CPE4,
ELSET=PLATE``; a keyword line ending in a comma continues on the next
line) each followed by data lines; ``**`` starts a comment.  Keywords,
parameter names and set names are not case sensitive.  ``*INCLUDE,
INPUT=file`` is replaced by the lines of that file (relative to the file
that includes it), as Abaqus does, so an included file may hold only the
data lines of the keyword before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .meshgroups import MeshFormatError

__all__ = ["Card", "read_cards"]


@dataclass
class Card:
    """One keyword with its parameters and data lines.

    Attributes
    ----------
    keyword : str
        Upper case, without the star (``"ELEMENT"``).
    params : dict
        Upper-case parameter name -> value as written (``""`` for a flag
        such as ``GENERATE``).
    lines : list of str
        The data lines, stripped.
    where : str
        ``file:line`` of the keyword line, for messages.
    """

    keyword: str
    params: dict
    lines: list = field(default_factory=list)
    where: str = ""

    @cached_property
    def data(self) -> list:
        """The comma-separated fields of each data line, stripped, empty fields dropped."""
        return [[f for f in map(str.strip, line.split(",")) if f] for line in self.lines]

    def error(self, message: str) -> MeshFormatError:
        """A one-line error about this card: where it is, which keyword, what is wrong."""
        return MeshFormatError(f"{self.where}: *{self.keyword}: {message}")


def _lines(path: Path, depth: int = 0):
    """(file name, line number, stripped text) of every line, ``*INCLUDE`` files expanded in place."""
    if depth > 20:
        raise MeshFormatError(f"{path.name}: *INCLUDE nested more than 20 deep")
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        raise MeshFormatError(f"{path.name}: cannot read ({err.strerror or err})") from None
    name = path.name
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped[:8].upper() == "*INCLUDE":
            _, _, target = stripped.partition("=")
            target = target.split(",")[0].strip().strip("'\"")
            if not target:
                raise MeshFormatError(f"{name}:{number}: *INCLUDE without INPUT=")
            yield from _lines(path.parent / target, depth + 1)
        else:
            yield name, number, stripped


def read_cards(path) -> list:
    """The keyword cards of an input file, in order.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    list of Card

    Raises
    ------
    MeshFormatError
        Data lines before the first keyword, or an unreadable file.
    """
    cards: list = []
    pending = ""        # a keyword line continued on the next line
    pending_where = ""
    for name, number, line in _lines(Path(path)):
        if not line or line[:2] == "**":
            continue
        if pending or line[0] == "*":
            pending, pending_where = pending + line, pending_where or f"{name}:{number}"
            if pending.endswith(","):
                continue
            fields = [f.strip() for f in pending[1:].split(",")]
            params = {}
            for item in fields[1:]:
                if item:
                    key, _, value = item.partition("=")
                    params[key.strip().upper()] = value.strip().strip("'\"")
            cards.append(Card(fields[0].upper(), params, [], pending_where))
            pending, pending_where = "", ""
            continue
        if not cards:
            raise MeshFormatError(f"{name}:{number}: data line before the first keyword; not an "
                                  f"Abaqus input file")
        cards[-1].lines.append(line)
    return cards
