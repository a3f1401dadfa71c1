"""Write the meshes of the two-body cases with coincident interface nodes.

    python meshes/make_two_body_meshes.py      # needs scikit-fem and meshio only

Each body is its own Gmsh file (MSH 2.2, written by meshio), with the
boundaries as physical lines; the two bodies of a case are meshed
conformingly, so their interface nodes coincide (zero initial gap):

* ``coincident_lower.msh``, ``coincident_upper.msh``: the blocks
  [0, 1] x [0, 0.5] and [0, 1] x [0.5, 1], 8 x 4 right triangles each;
  boundaries ``bottom``, ``top``, ``sides`` (x = 0 and x = 1);
* ``hub.msh``, ``rim.msh``: the annuli 0.2 <= r <= 0.5 (hub) and
  0.5 <= r <= 1 (rim), 32 sectors, 3 and 4 rings of triangles; boundaries
  ``bore`` and ``outer`` (hub), ``inner``, ``outer_top`` (y > 0) and
  ``outer_bottom`` (y < 0) (rim).
"""

from pathlib import Path

import meshio
import numpy as np
import skfem

HERE = Path(__file__).resolve().parent


def write(mesh: skfem.MeshTri, boundaries: dict, path: Path) -> None:
    """``mesh`` as a Gmsh 2.2 file with ``{name: facet indices}`` as physical lines."""
    field_data = {"body": np.array([100, 2])}
    lines, tags = [], []
    for tag, (name, facets) in enumerate(boundaries.items(), start=1):
        field_data[name] = np.array([tag, 1])
        lines.append(mesh.facets[:, facets].T)
        tags.append(np.full(len(facets), tag))
    cells = [("line", np.vstack(lines)), ("triangle", mesh.t.T)]
    physical = [np.concatenate(tags), np.full(mesh.t.shape[1], 100)]
    out = meshio.Mesh(np.vstack([mesh.p, np.zeros(mesh.p.shape[1])]).T, cells,
                      cell_data={"gmsh:physical": physical, "gmsh:geometrical": physical},
                      field_data=field_data)
    meshio.write(path, out, file_format="gmsh22", binary=False)


def block(y0: float, y1: float) -> tuple:
    """The block [0, 1] x [y0, y1] of 8 x 4 right triangles and its boundaries."""
    mesh = skfem.MeshTri.init_tensor(np.linspace(0.0, 1.0, 9), np.linspace(y0, y1, 5))
    return mesh, {"bottom": mesh.facets_satisfying(lambda x: np.isclose(x[1], y0), boundaries_only=True),
                  "top": mesh.facets_satisfying(lambda x: np.isclose(x[1], y1), boundaries_only=True),
                  "sides": mesh.facets_satisfying(lambda x: np.isclose(x[0], 0.0) | np.isclose(x[0], 1.0),
                                                  boundaries_only=True)}


def annulus(r0: float, r1: float, rings: int, sectors: int = 32) -> skfem.MeshTri:
    """The annulus r0 <= r <= r1 of ``rings`` x ``sectors`` quadrilaterals cut into triangles
    (diagonals alternating), nodes on the circles at the same angles for every annulus."""
    r = np.linspace(r0, r1, rings + 1)
    theta = np.linspace(0.0, 2.0 * np.pi, sectors, endpoint=False)
    R, T = np.meshgrid(r, theta, indexing="ij")
    p = np.vstack([(R * np.cos(T)).ravel(), (R * np.sin(T)).ravel()])

    def node(i, k):
        return i * sectors + k % sectors

    t = []
    for i in range(rings):
        for k in range(sectors):
            a, b, c, d = node(i, k), node(i, k + 1), node(i + 1, k + 1), node(i + 1, k)
            t += [[a, b, d], [b, c, d]] if (i + k) % 2 == 0 else [[a, b, c], [a, c, d]]
    return skfem.MeshTri(p, np.array(t).T).oriented()


def circle(mesh: skfem.MeshTri, radius: float, where=None) -> np.ndarray:
    """Boundary facets with both ends on the circle of ``radius`` (and midpoints where ``where``)."""
    ends = np.hypot(*mesh.p[:, mesh.facets[0]]), np.hypot(*mesh.p[:, mesh.facets[1]])
    on = np.isclose(ends[0], radius) & np.isclose(ends[1], radius)
    if where is not None:
        on &= where(mesh.p[:, mesh.facets].mean(axis=1))
    return np.flatnonzero(on)


def main() -> None:
    for name, (y0, y1) in {"lower": (0.0, 0.5), "upper": (0.5, 1.0)}.items():
        mesh, boundaries = block(y0, y1)
        write(mesh, boundaries, HERE / f"coincident_{name}.msh")
    hub = annulus(0.2, 0.5, 3)
    write(hub, {"bore": circle(hub, 0.2), "outer": circle(hub, 0.5)}, HERE / "hub.msh")
    rim = annulus(0.5, 1.0, 4)
    write(rim, {"inner": circle(rim, 0.5), "outer_top": circle(rim, 1.0, lambda x: x[1] > 0),
                "outer_bottom": circle(rim, 1.0, lambda x: x[1] < 0)}, HERE / "rim.msh")


if __name__ == "__main__":
    main()
