"""Line plots of a result with matplotlib (Agg backend): contact profiles and the Newton history.

:func:`contact_profile`
    ``contact_profile.png``: contact pressure and tangential traction along
    the contact surface (2D: against ``x``; 3D: against the distance from
    the contact axis), with the analytic solution when the summary holds the
    metrics of a Hertz or Cattaneo–Mindlin reference
    (:mod:`fecontact.references.metrics`).
:func:`newton_history`
    ``newton_history.png``: the equilibrium and complementarity residuals of
    every Newton iteration, log scale, steps marked.

matplotlib is imported when a function is called, not with the module.
"""

from __future__ import annotations

import numpy as np

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
