"""PNG plot of a dynamic run's time series: spring forces, slip velocities and energies."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def plot_time_series(series: dict, path: Path, title: str = "") -> None:
    """Write a stacked plot of the time series of :mod:`fecontact.timeseries`.

    Panels: spring forces (when the case has springs), the first component
    of each pair's slip velocity, and the energy ledger with its balance error.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.asarray(series["t"])
    springs = series["spring_force"]
    panels = (["spring"] if springs else []) + ["slip", "energy"]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, panel in zip(axes, panels):
        if panel == "spring":
            for name, force in springs.items():
                ax.plot(t, force, label=name)
            ax.set_ylabel("spring force")
        elif panel == "slip":
            for name, v in series["slip_velocity"].items():
                v = np.asarray(v)
                ax.plot(t, v[:, 0] if v.ndim == 2 else v, label=name)
            ax.set_ylabel("slip velocity (x)")
        else:
            for key, style in (("kinetic", "-"), ("strain", "-"), ("total", "k-"),
                               ("external_work", "--"), ("contact_work", "--"),
                               ("friction_dissipation", ":"), ("damping_dissipation", ":"),
                               ("balance_error", "r-")):
                values = np.asarray(series[key])
                if key in ("damping_dissipation", "contact_work") and not np.any(values):
                    continue
                ax.plot(t, values, style, label=key.replace("_", " "), lw=1.0)
            ax.set_ylabel("energy")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[-1].set_xlabel("time")
    if title:
        axes[0].set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
