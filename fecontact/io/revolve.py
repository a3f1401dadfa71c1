r"""The 3D solid of an axisymmetric result: its ``(r, z)`` section turned about the axis.

An axisymmetric model is solved on the section ``(r, z)`` of its bodies
(:mod:`fecontact.bodies.axisymmetric`), and its result files hold that
section.  :func:`revolve` turns a section mesh (as :func:`fecontact.io.output.to_meshio`
makes it) about the axis into ``sectors`` copies, for a look at the whole
body in ParaView or pyvista: a point at ``(r, z)`` goes to

.. math::

    (X, Y, Z) = (r \cos\theta, \; z, \; r \sin\theta),
    \qquad \theta_j = 2\pi j / n_\text{sectors},

so the axis is the ``Y`` axis and the sector ``theta = 0`` is the section
itself.  Triangles become wedges and quadrilaterals hexahedra (quadratic
cells contribute their vertices).  Point data of three components are
vectors ``(v_r, v_z, 0)`` and turn with the points,
``(v_r cos theta, v_z, v_r sin theta)``; other point data are copied.
Nodes on the axis are repeated in every sector (the cells there are
degenerate and draw as they should).
"""

from __future__ import annotations

from pathlib import Path

import meshio
import numpy as np

from .atomic import replacing
from .output import to_meshio

__all__ = ["revolve", "write_revolved", "revolved_name", "REVOLVED"]

#: 2D cell type -> (vertices per cell, 3D cell type of the swept cell)
REVOLVED = {"triangle": (3, "wedge"), "triangle6": (3, "wedge"),
            "quad": (4, "hexahedron"), "quad8": (4, "hexahedron"), "quad9": (4, "hexahedron")}


def revolve(section: meshio.Mesh, sectors: int) -> meshio.Mesh:
    """The solid swept by turning a section mesh about its axis ``r = 0``.

    Parameters
    ----------
    section : meshio.Mesh
        Points ``(n, 2)`` or ``(n, 3)`` with ``x = r``, ``y = z`` (a third
        coordinate is ignored); cells of :data:`REVOLVED`'s types.
    sectors : int
        Number of sectors around the full circle, ``>= 3``.

    Returns
    -------
    meshio.Mesh
        ``sectors * n`` points; one wedge or hexahedron per section cell
        and sector.

    Raises
    ------
    ValueError
        For fewer than 3 sectors or a cell type that cannot be swept.
    """
    if int(sectors) != sectors or sectors < 3:
        raise ValueError(f"revolve needs a whole number of sectors >= 3, got {sectors!r}")
    sectors = int(sectors)
    n = section.points.shape[0]
    theta = 2.0 * np.pi * np.arange(sectors) / sectors
    c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]            # (sectors, 1)
    r, z = section.points[:, 0][None, :], section.points[:, 1][None, :]
    points = np.stack([r * c, np.broadcast_to(z, (sectors, n)), r * s], axis=-1).reshape(-1, 3)
    cells = []
    for block in section.cells:
        if block.type not in REVOLVED:
            raise ValueError(f"cells of type {block.type!r} cannot be revolved; "
                             f"known: {', '.join(REVOLVED)}")
        k, kind = REVOLVED[block.type]
        verts = _counterclockwise(section.points, block.data[:, :k])  # (m, k)
        lower = (np.arange(sectors)[:, None, None] * n + verts[None]).reshape(-1, k)
        upper = (((np.arange(sectors)[:, None, None] + 1) % sectors) * n + verts[None]).reshape(-1, k)
        # positive volumes in VTK: the counterclockwise base first, then the face it sweeps to
        cells.append((kind, np.hstack([lower, upper])))
    point_data = {}
    for name, value in section.point_data.items():
        value = np.asarray(value)
        if value.ndim == 2 and value.shape[1] == 3:
            vr, vz = value[:, 0][None, :], value[:, 1][None, :]
            point_data[name] = np.stack([vr * c, np.broadcast_to(vz, (sectors, n)), vr * s],
                                        axis=-1).reshape(-1, 3)
        else:
            point_data[name] = np.tile(value, (sectors,) + (1,) * (value.ndim - 1))
    return meshio.Mesh(points, cells, point_data=point_data)


def _counterclockwise(points: np.ndarray, verts: np.ndarray) -> np.ndarray:
    """Polygons ``verts`` (m, k) reordered to turn counterclockwise in the ``(r, z)`` plane."""
    x, y = points[verts, 0], points[verts, 1]
    area = np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    return np.where((area < 0.0)[:, None], verts[:, ::-1], verts)


def revolved_name(fname: str) -> str:
    """The file of a step's solid of revolution: ``step_0001.vtu`` -> ``step_0001_revolved.vtu``."""
    stem = fname[:-4] if fname.endswith(".vtu") else fname
    return f"{stem}_revolved.vtu"


def write_revolved(path: Path, problem, state, sectors: int, extra: dict | None = None) -> None:
    """Write the solid of revolution of a state (every field of the section's VTU) to ``path``.

    The file is whole or absent, as the section's (:func:`fecontact.io.atomic.replacing`).
    """
    mesh = revolve(to_meshio(problem, state, extra), sectors)
    with replacing(Path(path)) as tmp:
        meshio.write(str(tmp), mesh, file_format="vtu")
