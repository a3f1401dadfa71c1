"""Plot the tangential traction of every friction law against the slip rate.

Usage: python docs/friction/make_plots.py   (writes docs/friction/<law>.png)

One contact node, normal traction lam = 1, sliding in +x at rate v over an
increment dt = 1; the traction is the converged Alart–Curnier value, found
by solving C_t(lam_t) = lam_t - F(lam_t - c_t v dt, lam, v dt) = 0 for the
node alone (a scalar semismooth Newton, exact for these piecewise-smooth
laws in a few steps).
"""

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fecontact.friction import (SLIDING, STUCK, Coulomb, FrictionStart, SmoothIPC,  # noqa: E402
                                StaticKinetic, VelocityDependent)

HERE = Path(__file__).resolve().parent
C_T = 1e3


def traction(law, rate, state):
    lam_t = np.zeros((rate.size, 1))
    slip = rate[:, None] * 1.0
    one = np.ones(rate.size)
    for _ in range(50):
        r = law.return_map(lam_t - C_T * slip, one, slip, 1.0,
                           FrictionStart(np.full(rate.size, state), one, np.ones(rate.size, bool)))
        res = lam_t - r.traction
        jac = 1.0 - r.d_trial[:, 0, 0]
        lam_t = lam_t - res / np.where(jac != 0, jac, 1.0)[:, None]
    return -lam_t[:, 0]


def main():
    rate = np.linspace(0.0, 0.1, 801)
    laws = {
        "coulomb": [(Coulomb(0.3), STUCK, "Coulomb, mu = 0.3")],
        "static_kinetic": [(StaticKinetic(0.5, 0.3), STUCK, "stuck at the start (breakaway at mu_s)"),
                           (StaticKinetic(0.5, 0.3), SLIDING, "sliding at the start (mu_k)")],
        "velocity": [(VelocityDependent(0.5, 0.3, 50.0), STUCK, "mu_s = 0.5, mu_k = 0.3, dc = 50")],
        "ipc": [(SmoothIPC(0.5, 0.3, 0.01), STUCK, "mu_s = 0.5, mu_k = 0.3, eps_v = 0.01"),
                (SmoothIPC(0.3, 0.3, 0.01), STUCK, "mu_s = mu_k = 0.3, eps_v = 0.01")],
    }
    for name, curves in laws.items():
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for law, state, label in curves:
            if name == "static_kinetic" and state == STUCK:
                # at rest the stuck node carries any trial traction up to mu_s (vertical branch);
                # once it slides (v > 0) the increment is re-solved as sliding: mu_k
                z = np.linspace(0.0, 0.6, 61)[:, None]
                at_rest = law.return_map(z, np.ones(61), np.zeros((61, 1)), 1.0,
                                         FrictionStart(np.full(61, STUCK), np.ones(61), np.ones(61, bool)))
                held = ~at_rest.sliding
                ax.plot(np.zeros(held.sum()), at_rest.traction[held, 0], lw=3, label=label)
                moving = rate > 0
                ax.plot(rate[moving], traction(law, rate[moving], SLIDING), "--", color="C0")
                continue
            ax.plot(rate, traction(law, rate, state), label=label)
        ax.set_xlabel("slip rate |v|")
        ax.set_ylabel("friction traction / normal traction")
        ax.set_ylim(0, 0.55)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        ax.set_title(name)
        fig.tight_layout()
        fig.savefig(HERE / f"{name}.png", dpi=90)
        plt.close(fig)


if __name__ == "__main__":
    main()
