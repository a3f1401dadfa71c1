"""Mesh files of other tools: the readers by file extension.

:func:`fecontact.io.meshfile.load_mesh` reads a file whose extension is in
:data:`READERS` through its reader here, which returns a
:class:`~fecontact.io.meshgroups.GroupedMesh` (the elements and named facet
groups as a meshio mesh in Gmsh's physical-group form, and the element
groups); the Gmsh conversion then makes the scikit-fem mesh.

- Exodus II (``.exo``, ``.e``, ``.ex2``, ``.exii``; MOOSE, Cubit): element
  blocks -> subdomains, side sets and node sets -> boundaries
  (:mod:`.exodus`);
- Abaqus and CalculiX input (``.inp``): element sets -> subdomains,
  surfaces and node sets -> boundaries (:mod:`.abaqus`).
"""

from __future__ import annotations

from pathlib import Path

from .abaqus import read_abaqus
from .exodus import read_exodus
from .meshgroups import GroupedMesh, MeshFormatError

__all__ = ["READERS", "MeshFormatError", "read_grouped"]

#: file extension (lower case) -> reader of that format
READERS = {".exo": read_exodus, ".e": read_exodus, ".ex2": read_exodus, ".exii": read_exodus,
           ".inp": read_abaqus}


def read_grouped(path) -> GroupedMesh:
    """Read a mesh file of another tool by its extension (:data:`READERS`).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    GroupedMesh

    Raises
    ------
    MeshFormatError
        One line naming the file and what is wrong with it, whatever the
        reader's own failure was.
    """
    path = Path(path)
    try:
        return READERS[path.suffix.lower()](path)
    except MeshFormatError:
        raise
    except (OSError, RuntimeError, ValueError, KeyError, IndexError, TypeError) as err:
        detail = " ".join(str(err).split()) or type(err).__name__
        raise MeshFormatError(f"{path.name}: not a readable {_FORMAT[path.suffix.lower()]} "
                              f"file ({detail})") from None


_FORMAT = {suffix: "Exodus II" if reader is read_exodus else "Abaqus input"
           for suffix, reader in READERS.items()}
