"""Line plots of a result with matplotlib (Agg backend): contact profiles and the Newton history.

:func:`contact_profile`
    ``contact_profile.png``: contact pressure and tangential traction along
    the contact surface (2D: against ``x``; 3D: against the distance from
    the contact axis for an axisymmetric reference, otherwise along the
    long axis of the contact patch, :func:`profile_coordinate`), with the
    analytic solution when the summary holds the metrics of a Hertz or
    Cattaneo–Mindlin reference (:mod:`fecontact.references.metrics`).
:func:`newton_history`
    ``newton_history.png``: the equilibrium and complementarity residuals of
    every Newton iteration, log scale, steps marked.

matplotlib is imported when a function is called, not with the module.
"""

from __future__ import annotations

import numpy as np

from ..io.atomic import save_figure
from .results import ResultFolder, to_grid, with_tangential_traction

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
        return dict(a=a, p0=p0, c=None if stick is None else stick.get("reference"), mu=None,
                    radial="contact_radius" in m)
    load, half = m["normal_load"]["value"], a
    dim3 = "contact_radius" in m
    p0 = 3 * load / (2 * np.pi * a * a) if dim3 else 2 * load / (np.pi * a)
    stick = (m.get("stick_half_width") or m.get("stick_radius"))["reference"]
    ratio = m["load_ratio"]["value"]
    mu = m["tangential_load"]["value"] / (ratio * m["normal_load"]["value"]) if ratio else None
    return dict(a=half, p0=p0, c=stick, mu=mu)


def profile_coordinate(points: np.ndarray, pressure: np.ndarray, normal: np.ndarray,
                       axisymmetric: bool) -> tuple:
    """The coordinate a 3D contact profile is drawn against, chosen from the contact patch.

    The patch is the loaded points (pressure > 0), in the plane normal to the
    mean contact ``normal``.  Axisymmetric contacts (a sphere) are drawn
    against the distance from the pressure centroid in that plane; the
    others (a block, a punch) against the signed position along the long
    axis of the patch (the principal direction of its second moment).

    Parameters
    ----------
    points : ndarray, shape (n, 3)
    pressure : ndarray, shape (n,)
    normal : ndarray, shape (n, 3) or (3,)
        Contact normals (their mean over the patch is used).
    axisymmetric : bool

    Returns
    -------
    (ndarray of shape (n,), str, ndarray of shape (3,) or None)
        The coordinate, its axis label, and the in-plane axis (None for the radial distance).
    """
    loaded = pressure > 0.0
    if not loaded.any():
        loaded = np.ones(pressure.size, bool)
    n = np.asarray(normal, dtype=float).reshape(-1, 3)
    n = n[loaded].mean(axis=0) if n.shape[0] == pressure.size else n[0]
    n = n / max(float(np.linalg.norm(n)), 1e-300)
    weight = np.where(loaded, np.abs(pressure), 0.0)
    if weight.sum() == 0.0:
        weight = loaded.astype(float)
    centre = (points * weight[:, None]).sum(axis=0) / weight.sum()
    d = points - centre
    d = d - np.outer(d @ n, n)                      # in the tangent plane of the patch
    if axisymmetric:
        return np.linalg.norm(d, axis=1), "distance from the contact axis", None
    spread = d[loaded].T @ d[loaded]
    values, vectors = np.linalg.eigh(spread)
    axis = vectors[:, np.argmax(values)]
    return d @ axis, "position along the long axis of the contact patch", axis


def contact_profile(source, step: int = -1):
    """Pressure and tangential traction along the contact surface, with the analytic solution."""
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    if not folder.steps:
        return None
    plt = _pyplot()
    grid = with_tangential_traction(to_grid(folder, step))
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
        if "contact_normal" in grid.point_data.keys():
            normal = grid.point_data["contact_normal"][slave]
        else:                            # result folders written before the field existed
            normal = np.array([0.0, 0.0, 1.0])
        coord, label, axis = profile_coordinate(x, p, normal, ref is not None)
        n = normal if np.ndim(normal) == 2 else np.broadcast_to(normal, t.shape)
        tangential = t - np.sum(t * n, axis=1)[:, None] * n
        shear = np.linalg.norm(tangential, axis=1) if axis is None else tangential @ axis
    order = np.argsort(coord)
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    axes[0].plot(coord[order], p[order], "o", ms=3, label="fecontact")
    axes[1].plot(coord[order], shear[order], "o", ms=3, label="fecontact")
    if ref is not None:
        if folder.dim == 2 and not ref.get("radial"):
            # Hertz: centred at the pressure peak; Cattaneo–Mindlin: on the load axis x = 0
            # (a sphere's radius on an axisymmetric section: from the axis, as in 3D)
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
    axes[1].set_ylabel("tangential traction" + (" (x)" if folder.dim == 2 else
                                                 " magnitude" if ref is not None else
                                                 " along the axis"))
    axes[1].set_xlabel(label)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_title(folder.summary.get("case", ""))
    fig.tight_layout()
    path = folder.path / "contact_profile.png"
    save_figure(fig, path, dpi=110)
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
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
