"""Files that are whole or absent: write to a temporary name beside the target, then rename.

Every file fecontact writes (VTU, ``.pvd``, ``summary.json``, restart and
problem files, benchmark tables, the schema) goes through :func:`replacing`:
the content is written to ``.NAME.part`` in the same folder and renamed over
``NAME`` once complete (``os.replace`` is atomic on one file system).  A
process killed while writing leaves at most a ``.part`` file, never a
truncated ``NAME``; :func:`clean_temporaries` removes such leftovers when
the next run opens the folder.  (Atomic against a killed process; a power
cut can still lose data the operating system had not flushed.)

Under an MPI launch of several ranks only rank 0 writes: on the others
:func:`replacing` yields a scratch path that is thrown away, so a
replicated computation writes each file once.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..solve.mpi import launch

__all__ = ["PART", "replacing", "write_text", "save_figure", "save_image", "clean_temporaries",
           "writable_folder"]

#: Suffix of temporaries (``.NAME.part``)
PART = ".part"


def temporary(path: Path) -> Path:
    """The temporary of ``path``: ``.NAME.part`` in the same folder."""
    path = Path(path)
    return path.with_name(f".{path.name}{PART}")


@contextmanager
def replacing(path):
    """Yield a temporary path to write; it replaces ``path`` when the block ends without error.

    On an error (or a signal) inside the block the temporary is removed and
    ``path`` is left as it was.  On MPI ranks other than 0 what is written
    is discarded.

    Examples
    --------
    >>> with replacing(folder / "step_0001.vtu") as tmp:      # doctest: +SKIP
    ...     meshio.write(str(tmp), mesh, file_format="vtu")
    """
    path = Path(path)
    if not launch().root:                       # another rank writes the file
        with tempfile.TemporaryDirectory(prefix="fecontact-rank-") as scratch:
            yield Path(scratch) / path.name
        return
    tmp = temporary(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary (whole or not at all)."""
    with replacing(path) as tmp:
        tmp.write_text(text)


def writable_folder(folder) -> None:
    """Make ``folder`` (and its parents) and write a file into it, to fail before any work does.

    Raises
    ------
    OSError
        The folder cannot be made or written to.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / ".write-test", "")
    (folder / ".write-test").unlink()


def save_figure(fig, path, **options) -> None:
    """``fig.savefig`` through a temporary (the format from ``path``'s suffix)."""
    path = Path(path)
    with replacing(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", **options)


def save_image(image, path) -> None:
    """An RGB(A) image array, shape (rows, columns, 3 or 4), as PNG through a temporary."""
    from matplotlib.image import imsave

    with replacing(path) as tmp:
        imsave(tmp, image, format="png")


def clean_temporaries(folder) -> list:
    """Remove the temporaries a killed process left in ``folder``; their names, sorted.

    Also removes the ``NAME.tmp`` and ``NAME.tmp.npz`` temporaries of
    earlier versions.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = []
    for pattern in (f".*{PART}", "*.tmp", "*.tmp.npz"):
        for path in folder.glob(pattern):
            if path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path.name)
    return sorted(removed)
