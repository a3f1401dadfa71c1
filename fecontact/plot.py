r"""Figures of a run: pyvista traction fields and matplotlib profiles, off-screen.

From a result folder (``summary.json`` plus the VTU series) or a
:class:`fecontact.run.RunResult`:

:func:`to_grid`
    The state at one output step as a ``pyvista.UnstructuredGrid`` with all
    point data of the VTU (displacement, contact pressure and traction, gap,
    slip, status, von Mises stress, ...).
:func:`traction_field`
    A ``pyvista.Plotter`` showing the deformed bodies and the contact surface
    coloured by a contact field, with traction arrows; call ``show()`` in a
    notebook or ``screenshot()``.
:func:`render`
    All PNGs of ``fecontact plot OUT_DIR``:

    * ``deformed_von_mises.png``: deformed mesh coloured by von Mises stress;
    * ``contact_pressure.png``, ``contact_traction.png``: the contact surface
      coloured by the pressure and by the magnitude of the tangential
      traction, with traction arrows (3D: also ``contact_patch.png``, the
      patch seen from the master side);
    * ``contact_status.png``: open / stick / slip;
    * ``contact_profile.png``: pressure and tangential traction along the
      contact surface (2D: against ``x``; 3D: against the distance from the
      contact axis) with the analytic solution where the case has one;
    * ``newton_history.png``: both Newton residuals per iteration, log scale.

``import fecontact`` does not import pyvista or matplotlib; this module
imports them when called.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

STATUS_NAMES = ("open", "stick", "slip")


@dataclass(frozen=True)
class ResultFolder:
    """A run's output folder.

    Attributes
    ----------
    path : Path
    summary : dict
    steps : list of (time, Path)
        The VTU files of the ``.pvd`` index, in order.
    """

    path: Path
    summary: dict
    steps: list

    @staticmethod
    def open(path) -> "ResultFolder":
        path = Path(getattr(path, "out_dir", path))
        summary_path = path / "summary.json"
        if not summary_path.is_file():
            raise FileNotFoundError(f"{path}: no summary.json (not a fecontact result folder)")
        summary = json.loads(summary_path.read_text())
        steps = []
        pvd = sorted(path.glob("*.pvd"))
        if pvd:
            root = ElementTree.parse(pvd[0]).getroot()
            steps = [(float(d.get("timestep")), path / d.get("file")) for d in root.iter("DataSet")]
        return ResultFolder(path, summary, steps)

    @property
    def dim(self) -> int:
        return int(self.summary.get("dim", 2))


def to_grid(source, step: int = -1):
    """The state at output ``step`` (default the last) as a ``pyvista.UnstructuredGrid``.

    Parameters
    ----------
    source : path of a result folder, ResultFolder or RunResult
    """
    import pyvista as pv

    _quiet_vtk()
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    if not folder.steps:
        raise FileNotFoundError(f"{folder.path}: no VTU files (the run had output.vtu = false)")
    grid = pv.read(folder.steps[step][1])
    return grid


def _quiet_vtk() -> None:
    """Without a display VTK tries X first and logs a warning before it renders off-screen."""
    try:
        from vtkmodules.vtkCommonCore import vtkLogger
    except ImportError:             # pragma: no cover - older VTK
        return
    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)


def _deformed(grid, scale: float):
    out = grid.copy()
    out.points = grid.points + scale * grid.point_data["displacement"]
    return out


def auto_scale(grid) -> float:
    """Displacement magnification: 1, or what makes the largest displacement 5 % of the size."""
    u = np.linalg.norm(grid.point_data["displacement"], axis=1).max(initial=0.0)
    size = np.linalg.norm(np.ptp(grid.points, axis=0))
    if u == 0.0 or u >= 0.05 * size:
        return 1.0
    return float(0.05 * size / u)


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
                   glyphs: bool = True, off_screen: bool | None = None, from_master_side=False,
                   zoom_contact: bool = True, window_size=(1200, 900)):
    """Deformed bodies and the contact surface coloured by ``scalars``, with traction arrows.

    Parameters
    ----------
    source : result folder path, ResultFolder or RunResult
    scalars : str
        Point field on the contact surface: ``contact_pressure``,
        ``tangential_traction`` (magnitude), ``contact_status``, ``gap``, ...
    scale : float, optional
        Displacement magnification (default 1: the contact as computed).
    from_master_side : bool
        3D: look at the contact patch along the contact normal from the master side.
    zoom_contact : bool
        2D: frame the contact surface rather than the whole bodies.

    Returns
    -------
    pyvista.Plotter
    """
    import pyvista as pv

    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    grid = _with_derived(to_grid(folder, step))
    dim = folder.dim
    warped = _deformed(grid, 1.0 if scale is None else scale)
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
            _add_traction_arrows(plotter, contact, grid)
    if dim == 2:
        plotter.view_xy()
        if zoom_contact and contact is not None:
            _zoom_to(plotter, contact)
    elif from_master_side and contact is not None:
        normal = contact.compute_normals(cell_normals=False).point_data["Normals"].mean(axis=0)
        center = np.asarray(contact.center)
        plotter.camera.focal_point = center
        plotter.camera.position = center + normal * 3 * contact.length
        plotter.camera.up = (1.0, 0.0, 0.0) if abs(normal[0]) < 0.9 else (0.0, 1.0, 0.0)
    else:
        plotter.view_isometric()
    return plotter


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


def _add_traction_arrows(plotter, contact, grid, max_arrows: int = 60) -> None:
    """Arrows of the traction on the slave surface at (at most ``max_arrows``) loaded nodes.

    The longest arrow is a fifth of the extent of the loaded zone.
    """
    import pyvista as pv

    traction = contact.point_data["contact_traction"]
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
    plotter.add_mesh(arrows, color="black")


def _arrow():
    import pyvista as pv

    return pv.Arrow(tip_length=0.25, tip_radius=0.06, shaft_radius=0.02)


def _with_derived(grid):
    """Adds ``tangential_traction``: the magnitude of the traction minus its normal part."""
    t = grid.point_data["contact_traction"]
    p = grid.point_data["contact_pressure"]
    # the normal component is the pressure; the rest is tangential
    grid.point_data["tangential_traction"] = np.sqrt(np.maximum(np.sum(t * t, axis=1) - p * p, 0.0))
    return grid


def _screenshot(plotter, path: Path) -> Path:
    plotter.screenshot(str(path))
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
        plotter.add_mesh(_deformed(grid, scale), scalars="von_mises", cmap="turbo",
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


# -- matplotlib line plots ---------------------------------------------------------------

def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _reference_profiles(summary: dict):
    """Analytic pressure and shear along the contact from the reference metrics, or None."""
    m = summary.get("metrics") or {}
    kind = None
    if "peak_pressure" in m and ("contact_half_width" in m or "contact_radius" in m):
        kind = "hertz"
    if "shear_traction_l2_error" in m:
        kind = "cattaneo"
    if kind is None:
        return None
    a = (m.get("contact_half_width") or m.get("contact_radius"))["reference"]
    if kind == "hertz":
        p0 = m["peak_pressure"]["reference"]
        stick = m.get("stick_half_width") or m.get("stick_radius")
        return dict(a=a, p0=p0, c=None if stick is None else stick.get("reference"), mu=None)
    load, half = m["normal_load"]["value"], a
    dim3 = "contact_radius" in m
    p0 = 3 * load / (2 * np.pi * a * a) if dim3 else 2 * load / (np.pi * a)
    stick = (m.get("stick_half_width") or m.get("stick_radius"))["reference"]
    ratio = m["load_ratio"]["value"]
    mu = m["tangential_load"]["value"] / (ratio * m["normal_load"]["value"]) if ratio else None
    return dict(a=half, p0=p0, c=stick, mu=mu)


def contact_profile(source, step: int = -1):
    """Pressure and tangential traction along the contact surface, with the analytic solution."""
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    if not folder.steps:
        return None
    plt = _pyplot()
    grid = _with_derived(to_grid(folder, step))
    slave = grid.point_data["slave"] > 0 if "slave" in grid.point_data else \
        grid.point_data["contact_pressure"] > 0
    if not np.any(slave):
        return None
    x = grid.points[slave]
    p = grid.point_data["contact_pressure"][slave]
    t = grid.point_data["contact_traction"][slave]
    ref = _reference_profiles(folder.summary)
    if folder.dim == 2:
        coord = x[:, 0]
        shear = t[:, 0]
        label = "x"
    else:
        closed = p > 0
        centre = (x[closed] * p[closed, None]).sum(axis=0) / p[closed].sum() if closed.any() \
            else x.mean(axis=0)
        coord = np.linalg.norm((x - centre)[:, :2], axis=1)
        shear = np.linalg.norm(t[:, :2], axis=1)
        label = "distance from the contact axis"
    order = np.argsort(coord)
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    axes[0].plot(coord[order], p[order], "o", ms=3, label="fecontact")
    axes[1].plot(coord[order], shear[order], "o", ms=3, label="fecontact")
    if ref is not None:
        if folder.dim == 2:
            # Hertz: centred at the pressure peak; Cattaneo–Mindlin: on the load axis x = 0
            centre = coord[np.argmax(p)] if ref["c"] is None else 0.0
            r = centre + np.linspace(-ref["a"], ref["a"], 401)
            s = (r - centre) / ref["a"]
        else:
            r = np.linspace(0.0, ref["a"], 201)
            s = r / ref["a"]
        axes[0].plot(r, ref["p0"] * np.sqrt(np.clip(1 - s * s, 0, None)), "k-", lw=1, label="analytic")
        if ref["mu"] and ref["c"]:
            c = ref["c"] / ref["a"]
            q = ref["mu"] * ref["p0"] * (np.sqrt(np.clip(1 - s * s, 0, None))
                                         - c * np.sqrt(np.clip(1 - (s / c) ** 2, 0, None)))
            if folder.dim == 2 and np.mean(shear) < 0:
                q = -q
            axes[1].plot(r, q, "k-", lw=1, label="Cattaneo–Mindlin")
    axes[0].set_ylabel("contact pressure")
    axes[1].set_ylabel("tangential traction" + (" (x)" if folder.dim == 2 else " magnitude"))
    axes[1].set_xlabel(label)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_title(folder.summary.get("case", ""))
    fig.tight_layout()
    path = folder.path / "contact_profile.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def newton_history(source):
    """Equilibrium and complementarity residuals of every Newton iteration, log scale."""
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    plt = _pyplot()
    eq, comp, bounds = [], [], []
    for step in folder.summary.get("steps", []):
        for it in step.get("iterations", []):
            eq.append(it["equilibrium"])
            comp.append(it["complementarity"])
        bounds.append(len(eq))
    if not eq:
        return None
    fig, ax = plt.subplots(figsize=(8, 3.5))
    k = np.arange(len(eq))
    ax.semilogy(k, np.maximum(eq, 1e-17), ".-", lw=0.8, ms=3, label="equilibrium")
    ax.semilogy(k, np.maximum(comp, 1e-17), ".-", lw=0.8, ms=3, label="complementarity")
    for b in bounds[:-1]:
        ax.axvline(b - 0.5, color="gray", lw=0.3)
    ax.set_xlabel("Newton iteration (all steps; grey lines separate output steps)")
    ax.set_ylabel("relative residual")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(folder.summary.get("case", ""))
    fig.tight_layout()
    path = folder.path / "newton_history.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
