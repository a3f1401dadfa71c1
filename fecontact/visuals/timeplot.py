"""PNG plot of a dynamic run's time series: spring forces, slip velocities, energies and works.

:func:`plot_time_series` draws the series that :mod:`fecontact.run.dynamic`
accumulates (and writes to ``summary.json``) into one stacked figure, with
matplotlib's Agg backend, imported when called.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.atomic import save_figure


def plot_time_series(series: dict, path: Path, title: str = "") -> None:
    """Write a stacked plot of the time series of :mod:`fecontact.run.dynamic`.

    Panels: spring forces (when the case has springs), the first component
    of each pair's slip velocity, kinetic, strain and total energy, the
    accumulated works and dissipations, and the energy balance error.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.asarray(series["t"])
    springs = series["spring_force"]
    panels = (["spring"] if springs else []) + ["slip", "energy", "work", "balance"]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.2 * len(panels)), sharex=True)
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
        elif panel == "energy":
            for key, style in (("kinetic", "-"), ("strain", "-"), ("total", "k-")):
                ax.plot(t, series[key], style, label=key, lw=1.0)
            ax.set_ylabel("energy")
        elif panel == "work":
            for key in ("external_work", "contact_work", "friction_dissipation",
                        "damping_dissipation"):
                values = np.asarray(series[key])
                if np.any(values):
                    ax.plot(t, values, label=key.replace("_", " "), lw=1.0)
            ax.set_ylabel("work")
        else:
            ax.plot(t, series["balance_error"], "r-", lw=1.0, label="KE + SE - E0 - W + D")
            ax.set_ylabel("balance error")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
    axes[-1].set_xlabel("time")
    if title:
        axes[0].set_title(title)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
