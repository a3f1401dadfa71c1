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
    data : list of list of str
        The comma-separated fields of each data line, stripped, empty
        fields dropped.
    where : str
        ``file:line`` of the keyword line, for messages.
    """

    keyword: str
    params: dict
    data: list = field(default_factory=list)
    where: str = ""

    def error(self, message: str) -> MeshFormatError:
        """A one-line error about this card: where it is, which keyword, what is wrong."""
        return MeshFormatError(f"{self.where}: *{self.keyword}: {message}")


def _lines(path: Path, depth: int = 0):
    """(file:line, text) of every line, with ``*INCLUDE`` files expanded in place."""
    if depth > 20:
        raise MeshFormatError(f"{path.name}: *INCLUDE nested more than 20 deep")
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        raise MeshFormatError(f"{path.name}: cannot read ({err.strerror or err})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.upper().startswith("*INCLUDE"):
            _, _, target = stripped.partition("=")
            target = target.split(",")[0].strip().strip("'\"")
            if not target:
                raise MeshFormatError(f"{path.name}:{number}: *INCLUDE without INPUT=")
            yield from _lines(path.parent / target, depth + 1)
        else:
            yield f"{path.name}:{number}", stripped


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
    for where, line in _lines(Path(path)):
        if not line or line.startswith("**"):
            continue
        if pending or line.startswith("*"):
            pending, pending_where = pending + line, pending_where or where
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
            raise MeshFormatError(f"{where}: data line before the first keyword; not an Abaqus "
                                  f"input file")
        cards[-1].data.append([f.strip() for f in line.split(",") if f.strip()])
    return cards
