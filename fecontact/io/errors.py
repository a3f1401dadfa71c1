"""Error messages about damaged files, each on one line."""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(err: BaseException) -> str:
    """An exception's message on one line (its type's name where it has no message)."""
    return " ".join(str(err).split()) or type(err).__name__
