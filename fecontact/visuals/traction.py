"""Pictures of a result with pyvista, off-screen: deformed mesh, contact pressure, traction arrows and status.

:func:`traction_field`
    A ``pyvista.Plotter`` showing the deformed bodies and the contact surface
    coloured by a contact field, with traction arrows; call ``show()`` in a
    notebook or ``screenshot()``.
:func:`render`
    All PNGs of ``fecontact plot OUT_DIR``, written into the result folder:

    * ``deformed_von_mises.png``: deformed mesh coloured by von Mises stress;
    * ``contact_pressure.png``, ``contact_traction.png``: the contact surface
      coloured by the pressure and by the magnitude of the tangential
      traction, with traction arrows (3D: also ``contact_patch.png``, the
      patch seen from the master side);
    * ``contact_status.png``: open / stick / slip;
    * ``contact_profile.png``: pressure and tangential traction along the
      contact surface with the analytic solution where the case has one
      (:func:`fecontact.visuals.profiles.contact_profile`);
    * ``newton_history.png``: both Newton residuals per iteration, log scale
      (:func:`fecontact.visuals.profiles.newton_history`).

pyvista is imported when a function is called, not with the module.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.atomic import save_image
from .profiles import contact_profile, newton_history
from .results import ResultFolder, auto_scale, deformed, to_grid, with_tangential_traction


def _contact_part(grid, dim: int):
    """Contact surface: boundary lines (2D) or faces (3D) whose points are all slave nodes."""
    slave = grid.point_data["slave"] > 0 if "slave" in grid.point_data else \
        np.abs(grid.point_data["contact_pressure"]) + np.abs(grid.point_data["gap"]) > 0
    boundary = grid.extract_surface(algorithm=None)
    if dim == 2:
        boundary = boundary.extract_feature_edges(boundary_edges=True, feature_edges=False,
                                                  manifold_edges=False, non_manifold_edges=False)
    ids = boundary.point_data["vtkOriginalPointIds"] if "vtkOriginalPointIds" in boundary.point_data \
        else _match_points(grid, boundary)
    keep_point = slave[ids]
    # cell connectivity of the boundary PolyData (lines in 2D, faces in 3D)
    conn = boundary.lines if dim == 2 else boundary.faces
    keep, i = [], 0
    while i < conn.size:
        n = conn[i]
        keep.append(bool(np.all(keep_point[conn[i + 1:i + 1 + n]])))
        i += n + 1
    keep = np.array(keep, dtype=bool)
    if not keep.any():
        return None
    return boundary.remove_cells(np.flatnonzero(~keep))


def _match_points(grid, part) -> np.ndarray:
    from scipy.spatial import cKDTree

    return cKDTree(grid.points).query(part.points)[1]


def traction_field(source, scalars: str = "contact_pressure", step: int = -1, scale=None,
                   glyphs: bool = True, off_screen: bool = True, from_master_side=False,
                   zoom_contact: bool = True, window_size=(1200, 900)):
    """Deformed bodies and the contact surface coloured by ``scalars``, with traction arrows.

    Parameters
    ----------
    source : result folder path, ResultFolder or RunResult
    scalars : str
        Point field on the contact surface: any point-data array of the VTU
        (``contact_pressure``, ``contact_status``, ``gap``, ...) or
        ``tangential_traction`` (magnitude).  With ``tangential_traction`` the
        arrows are the tangential traction ``t - p n``
        (:func:`tangential_traction_vectors`), otherwise the whole traction.
    glyphs : bool
        Draw the traction arrows.
    off_screen : bool
        True (default): the plotter renders without a window, so
        ``plotter.screenshot("f.png")`` works in a plain script and on a
        machine without a display, and ``show()`` in a notebook shows the
        picture.  False: ``show()`` opens an interactive window (needs a
        display).
    scale : float, optional
        Displacement magnification (default 1: the contact as computed).
    from_master_side : bool
        3D: look at the contact patch along the contact normal from the master
        side, without the bodies.  Otherwise 3D views look obliquely from the
        master side, so the patch faces the camera through the translucent bodies.
    zoom_contact : bool
        2D: frame the contact surface rather than the whole bodies.

    Returns
    -------
    pyvista.Plotter

    Raises
    ------
    ValueError
        When ``scalars`` is not one of the point fields; the message lists them.
    """
    import pyvista as pv

    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    grid = with_tangential_traction(to_grid(folder, step))
    valid = sorted(name for name in grid.point_data.keys() if not name.startswith("vtk"))
    if scalars not in valid:
        raise ValueError(f"scalars {scalars!r} is not a point field of the result; "
                         f"valid names: {', '.join(valid)}")
    dim = folder.dim
    warped = deformed(grid, 1.0 if scale is None else scale)
    plotter = pv.Plotter(off_screen=off_screen, window_size=window_size)
    plotter.set_background("white")
    contact = _contact_part(warped, dim)
    if not from_master_side:
        plotter.add_mesh(warped, color="lightgray", opacity=0.35 if dim == 3 else 1.0,
                         show_edges=dim == 2, edge_color="gray")
    if contact is not None:
        kwargs = dict(scalars=scalars, cmap="viridis",
                      scalar_bar_args={"title": scalars.replace("_", " "), "color": "black"})
        if scalars == "contact_status":
            kwargs.update(cmap=["lightgray", "royalblue", "orangered"], clim=(0, 2), n_colors=3,
                          categories=True,
                          scalar_bar_args={"title": "0 open, 1 stick, 2 slip", "color": "black"})
        if dim == 2:
            size = np.linalg.norm(np.ptp(contact.points, axis=0))
            plotter.add_mesh(contact.tube(radius=0.006 * size), **kwargs)
        else:
            plotter.add_mesh(contact, show_edges=True, edge_color="gray", **kwargs)
        if glyphs:
            _add_traction_arrows(plotter, contact, grid, dim,
                                 tangential=scalars == "tangential_traction")
    if dim == 2:
        plotter.view_xy()
        if zoom_contact and contact is not None:
            _zoom_to(plotter, contact)
    elif from_master_side and contact is not None:
        towards_master = _towards_master(contact)
        center = np.asarray(contact.center)
        plotter.camera.focal_point = center
        plotter.camera.position = center + towards_master * 3 * contact.length
        plotter.camera.up = ((1.0, 0.0, 0.0) if abs(towards_master[0]) < 0.9
                             else (0.0, 1.0, 0.0))
    elif contact is not None:
        # 3D: an oblique view from the master side, so the contact patch faces the camera
        towards_master = _towards_master(contact)
        side = np.cross(towards_master, (0.0, 0.0, 1.0) if abs(towards_master[2]) < 0.9
                        else (1.0, 0.0, 0.0))
        side /= np.linalg.norm(side)
        direction = towards_master + 0.6 * side
        direction /= np.linalg.norm(direction)
        center = np.asarray(contact.center)
        plotter.camera.focal_point = center
        plotter.camera.position = center + direction * 2.5 * warped.length
        plotter.camera.up = np.cross(side, towards_master)
    else:
        plotter.view_isometric()
    return plotter


def _towards_master(contact) -> np.ndarray:
    """Unit vector from the slave contact surface towards its master, shape (3,).

    The mean ``contact_normal`` (master towards slave) of the loaded nodes,
    reversed; for result folders without that field, the mean of the
    surface's point normals flipped against the traction (the master pushes
    the slave away from itself).
    """
    pressure = np.asarray(contact.point_data["contact_pressure"])
    loaded = pressure > 0.0 if np.any(pressure > 0.0) else np.ones(pressure.size, bool)
    if "contact_normal" in contact.point_data.keys():
        direction = -np.asarray(contact.point_data["contact_normal"])[loaded].mean(axis=0)
    else:
        normals = contact.compute_normals(cell_normals=False).point_data["Normals"]
        direction = normals[loaded].mean(axis=0)
        push = np.asarray(contact.point_data["contact_traction"])[loaded].sum(axis=0)
        if direction @ push > 0.0:
            direction = -direction
    return direction / max(float(np.linalg.norm(direction)), 1e-300)


def _zoom_to(plotter, part) -> None:
    """Frame ``part`` (2D view along z)."""
    lo, hi = np.asarray(part.bounds[0::2]), np.asarray(part.bounds[1::2])
    center = 0.5 * (lo + hi)
    half = 0.5 * float(max(hi[0] - lo[0], hi[1] - lo[1])) * 1.3
    plotter.camera.focal_point = center
    plotter.camera.position = center + np.array([0.0, 0.0, 10.0 * max(half, 1e-12)])
    plotter.camera.up = (0.0, 1.0, 0.0)
    plotter.camera.parallel_projection = True
    plotter.camera.parallel_scale = max(half, 1e-12)


def _add_traction_arrows(plotter, contact, grid, dim: int, tangential: bool = False,
                         max_arrows: int = 60) -> None:
    """Arrows of the traction on the slave surface at (at most ``max_arrows``) loaded nodes.

    ``tangential``: arrows of the tangential traction (:func:`tangential_traction_vectors`).
    The longest arrow is a fifth of the extent of the loaded zone.  The glyph mesh (actor
    ``traction_arrows``) keeps the arrow origins and vectors as field data ``arrow_points``
    and ``arrow_vectors``.
    """
    import pyvista as pv

    traction = np.asarray(contact.point_data["contact_traction"], dtype=float)
    if tangential:
        traction = tangential_traction_vectors(contact, dim)
    magnitude = np.linalg.norm(traction, axis=1)
    loaded = np.flatnonzero(magnitude > 0.0)
    if loaded.size == 0:
        return
    if loaded.size > max_arrows:
        loaded = loaded[np.linspace(0, loaded.size - 1, max_arrows).round().astype(int)]
    points = np.asarray(contact.points)[loaded]
    extent = max(float(np.linalg.norm(np.ptp(points, axis=0))),
                 1e-3 * float(np.linalg.norm(np.ptp(grid.points, axis=0))))
    cloud = pv.PolyData(points)
    cloud.point_data["arrows"] = traction[loaded] / magnitude.max() * 0.2 * extent
    arrows = cloud.glyph(orient="arrows", scale="arrows", factor=1.0, geom=_arrow())
    arrows.field_data["arrow_points"] = points
    arrows.field_data["arrow_vectors"] = cloud.point_data["arrows"]
    plotter.add_mesh(arrows, color="black", name="traction_arrows")


def surface_normals(contact, dim: int) -> np.ndarray:
    """Unit normals of the (deformed) contact surface at its points, shape (n, 3), sign arbitrary.

    2D: the mean of the normals of the two adjacent segments; 3D: pyvista's point normals.
    """
    points = np.asarray(contact.points, dtype=float)
    normals = np.zeros_like(points)
    if dim == 2:
        conn, i = contact.lines, 0
        while i < conn.size:
            n = conn[i]
            ids = conn[i + 1:i + 1 + n]
            for a, b in zip(ids[:-1], ids[1:]):
                d = points[b] - points[a]
                normal = np.array([-d[1], d[0], 0.0])
                normals[a] += normal
                normals[b] += normal
            i += n + 1
    else:
        normals = np.asarray(contact.compute_normals(cell_normals=False, split_vertices=False,
                                                     consistent_normals=True,
                                                     auto_orient_normals=False)
                             .point_data["Normals"], dtype=float)
    length = np.linalg.norm(normals, axis=1)
    return np.divide(normals, length[:, None], out=np.zeros_like(normals), where=length[:, None] > 0)


def tangential_traction_vectors(contact, dim: int) -> np.ndarray:
    """The tangential traction ``t - p n`` at the points of the contact surface, shape (n, 3).

    With the ``contact_normal`` field of the VTU files (the master normal at each node's
    projection) this is exact.  Files written before that field existed hold the traction
    ``t = p n + t_T`` and the pressure ``p`` only; there ``n`` is rebuilt as the unit
    vector with ``t . n = p`` closest to the normal of the deformed slave surface: on the
    cone of such vectors around ``t``, the one in the plane of ``t`` and the surface normal.
    In 2D the cone is two vectors, and the surface normal only picks one, so ``n`` and
    ``t - p n`` are those of the solution; in 3D the direction of ``t_T`` in the tangent
    plane is that of the surface normal's tilt, exact when the slave surface normal is the
    contact normal.  Its length is always ``sqrt(|t|^2 - p^2)``, the ``tangential_traction``
    field.
    """
    t = np.asarray(contact.point_data["contact_traction"], dtype=float)
    p = np.asarray(contact.point_data["contact_pressure"], dtype=float)
    if "contact_normal" in contact.point_data.keys():
        return t - p[:, None] * np.asarray(contact.point_data["contact_normal"], dtype=float)
    m = surface_normals(contact, dim)
    size = np.linalg.norm(t, axis=1)
    out = np.zeros_like(t)
    for i in np.flatnonzero(size > 0.0):
        that = t[i] / size[i]
        cos = float(np.clip(p[i] / size[i], -1.0, 1.0))
        # the surface normal on the side of the traction (pressure > 0: t . n > 0)
        mi = m[i] if (m[i] @ t[i]) * (1.0 if p[i] >= 0.0 else -1.0) >= 0.0 else -m[i]
        w = mi - (mi @ that) * that
        wn = np.linalg.norm(w)
        if wn == 0.0:           # the surface normal along t: no tangential part to recover
            normal = that if cos >= 0.0 else -that
        else:
            normal = cos * that + np.sqrt(max(1.0 - cos * cos, 0.0)) * w / wn
        out[i] = t[i] - p[i] * normal
    return out

def _arrow():
    import pyvista as pv

    return pv.Arrow(tip_length=0.25, tip_radius=0.06, shaft_radius=0.02)



def _screenshot(plotter, path: Path) -> Path:
    save_image(plotter.screenshot(None, return_img=True), path)
    plotter.close()
    return path


def render(source, step: int = -1, window_size=(1200, 900)) -> list:
    """Write every figure of a result folder into it; returns the PNG paths."""
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    out = []
    if folder.steps:
        import pyvista as pv

        grid = to_grid(folder, step)
        scale = auto_scale(grid)
        plotter = pv.Plotter(off_screen=True, window_size=window_size)
        plotter.set_background("white")
        plotter.add_mesh(deformed(grid, scale), scalars="von_mises", cmap="turbo",
                         show_edges=folder.dim == 2, edge_color="gray",
                         scalar_bar_args={"title": "von Mises stress", "color": "black"})
        if folder.dim == 2:
            plotter.view_xy()
        else:
            plotter.view_isometric()
        plotter.add_text(f"displacement x {scale:.3g}", font_size=10, color="black")
        out.append(_screenshot(plotter, folder.path / "deformed_von_mises.png"))
        for name, scalars in (("contact_pressure", "contact_pressure"),
                              ("contact_traction", "tangential_traction"),
                              ("contact_status", "contact_status")):
            plotter = traction_field(folder, scalars, step, off_screen=True,
                                     glyphs=name != "contact_status", window_size=window_size)
            out.append(_screenshot(plotter, folder.path / f"{name}.png"))
        if folder.dim == 3:
            plotter = traction_field(folder, "contact_pressure", step, off_screen=True,
                                     from_master_side=True, window_size=window_size)
            out.append(_screenshot(plotter, folder.path / "contact_patch.png"))
        out.append(contact_profile(folder, step))
    out.append(newton_history(folder))
    return [p for p in out if p is not None]
