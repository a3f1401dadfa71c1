r"""Identifying Young's modulus and the friction coefficient from reaction histories.

Problem (2D, plane strain)
    An elastic block (width 2, height 1, nu = 0.3) stands on a rigid line
    with Coulomb friction.  Its top is pushed down 0.01 (pseudo-time 0 to
    0.3), then dragged 0.016 sideways with the depth held (0.3 to 1): the
    bottom sticks, slips from its edges inwards and finally slides as a
    whole.  The normal and tangential reactions of the top are recorded at
    8 load levels.  Only displacements are prescribed, so every force is
    proportional to ``E``; ``mu`` sets where the bottom slips and the
    tangential force of gross sliding (``mu`` times the normal one), and
    moves the normal force a little (friction holds back the Poisson
    expansion of the bottom).

"Measured" data
    The same model on a finer mesh (32 x 16 squares, each cut into two
    triangles) with the true values E = 1000, mu = 0.3, each datum
    multiplied by ``1 + 0.01 e`` with ``e`` standard normal (seed 46).

Identification
    On the coarse mesh (16 x 8 squares), the least-squares misfit of both
    histories, ``fc.qoi.Misfit`` of the top's reactions in y and x (each
    weighted by the inverse square of its largest datum), is minimised over
    the scaled variables ``(E / E_start, mu / mu_start)`` from
    E_start = 600, mu_start = 0.5:

    * with gradients: ``scipy.optimize.minimize(method="L-BFGS-B")``, the
      misfit and its gradient in (E, mu) from one solve each
      (``Solution.gradient``, the discrete adjoint over the increments of
      the frictional path), the model made again at every point with
      ``model.with_values({E: e, mu: m})``;
    * without: Nelder-Mead from the same start.

    Both count their forward solves until their misfit first comes within
    1 % of the smallest misfit the gradient run found (the "same misfit
    tolerance"); the gradient run's final point is the identified one.

References (``FIGURES``)
    The true values E = 1000 and mu = 0.3 the data were made with (the
    identified values differ from them by the coarse mesh's discretisation
    error and the noise); the solves of the gradient-free search, against
    which the solves with gradients are compared, and the wall time of
    both to the tolerance: on this small model one gradient costs several
    forward solves (the partials in E and mu make the model again at four
    points each and evaluate every increment's residual there), so the
    time gained is much smaller than the solves saved.

Run ``python docs/examples/identify_friction_modulus.py [OUT.png]``.
"""

import sys
import time

import numpy as np
import scipy.optimize
import skfem

import fecontact as fc

E_TRUE, MU_TRUE = 1000.0, 0.3
E_START, MU_START = 600.0, 0.5
LEVELS = [0.15, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0]
PRESS = fc.Amplitude((0.0, 0.3, 1.0), (0.0, 1.0, 1.0))         # down to 0.3, then held
DRAG = fc.Amplitude((0.0, 0.3, 1.0), (0.0, 0.0, 1.0))          # sideways from 0.3 on
NEWTON = {"tolerance": 1e-10}


def block_model(nx, ny, E, mu):
    """The block on the rigid line: nx x ny squares, each cut into two triangles."""
    mesh = skfem.MeshTri.init_tensor(np.linspace(-1.0, 1.0, nx + 1), np.linspace(0.0, 1.0, ny + 1))
    block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=E, nu=0.3, plane="strain"))
    top = block.boundary(lambda x: np.isclose(x[1], 1.0), "top")
    block.fix(top, y=-0.01, amplitude=PRESS, name="top-y")
    block.fix(top, x=0.016, amplitude=DRAG, name="top-x")
    bottom = block.surface(lambda x: np.isclose(x[1], 0.0), name="bottom")
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    return fc.Model([block], [fc.Contact(bottom, floor, fc.Coulomb(mu), name="floor")])


NORMAL = fc.qoi.Reaction("top-y", "y")
TANGENTIAL = fc.qoi.Reaction("top-x", "x")


def histories(result):
    """The normal and tangential reactions of the top at every level, shape (2, levels)."""
    return np.array([[result.at(k).reaction(name)[c] for k in range(len(LEVELS))]
                     for name, c in (("top-y", 1), ("top-x", 0))])


# -- the "measured" data: a finer mesh, the true values, 1 % noise ------------------
truth = block_model(32, 16, E_TRUE, MU_TRUE).solve(levels=LEVELS, newton=NEWTON)
assert truth.converged, truth.failure
exact = histories(truth)
data = exact * (1.0 + 0.01 * np.random.default_rng(46).standard_normal(exact.shape))
weights = 1.0 / np.abs(data).max(axis=1) ** 2
misfit = (fc.qoi.Misfit(NORMAL, tuple(data[0]), weights=(weights[0],) * len(LEVELS))
          + fc.qoi.Misfit(TANGENTIAL, tuple(data[1]), weights=(weights[1],) * len(LEVELS)))

# -- the coarse model and its misfit --------------------------------------------------
E = fc.Parameter(E_START, name="E")
MU = fc.Parameter(MU_START, name="mu")
model = block_model(16, 8, E, MU)
SCALE = np.array([E_START, MU_START])


class Counted:
    """The misfit of the coarse model at scaled values z = (E, mu) / SCALE, counting forward solves."""

    def __init__(self):
        self.solves, self.trace, self.started = 0, [], time.perf_counter()

    def solve(self, z):
        e, m = np.asarray(z) * SCALE
        result = model.with_values({E: e, MU: m}).solve(levels=LEVELS, newton=NEWTON)
        assert result.converged, result.failure
        self.solves += 1
        return result

    def value(self, z):
        """The misfit alone (for the gradient-free search), from the reaction histories."""
        f = float(np.sum(weights[:, None] * (histories(self.solve(z)) - data) ** 2))
        self.trace.append((self.solves, f, *(np.asarray(z) * SCALE),
                           time.perf_counter() - self.started))
        return f

    def value_and_gradient(self, z):
        """The misfit and its gradient in z (the adjoint of the run)."""
        g = self.solve(z).gradient(misfit, wrt=[E, MU])
        self.trace.append((self.solves, g.value, *(np.asarray(z) * SCALE),
                           time.perf_counter() - self.started))
        return g.value, np.array([g[E], g[MU]]) * SCALE

    def solves_to(self, target):
        """Forward solves until the misfit first came down to ``target``."""
        return next((n for n, f, *_ in self.trace if f <= target), None)

    def seconds_to(self, target):
        """Wall time until the misfit first came down to ``target``."""
        return next((t for n, f, e, m, t in self.trace if f <= target), None)


start = np.ones(2)
bounds = [(200.0 / E_START, 5000.0 / E_START), (0.05 / MU_START, 1.0 / MU_START)]
with_gradients = Counted()
fit = scipy.optimize.minimize(with_gradients.value_and_gradient, start, jac=True,
                              method="L-BFGS-B", bounds=bounds,
                              options={"ftol": 1e-10, "gtol": 1e-8, "maxiter": 60})
E_FIT, MU_FIT = fit.x * SCALE
BEST = min(f for _, f, *_ in with_gradients.trace)
TARGET = 1.01 * BEST                  # "the same misfit tolerance": within 1 % of the best


class Reached(Exception):
    """The gradient-free search came down to the target."""


without = Counted()


def stop_at_target(z):
    f = without.value(z)
    if f <= TARGET:
        raise Reached
    return f


try:
    scipy.optimize.minimize(stop_at_target, start, method="Nelder-Mead", bounds=bounds,
                            options={"xatol": 1e-8, "fatol": 1e-14, "maxfev": 400})
except Reached:
    pass
SOLVES_GRADIENT = with_gradients.solves_to(TARGET)
SOLVES_FREE = without.solves_to(TARGET)
fitted = histories(model.with_values({E: E_FIT, MU: MU_FIT}).solve(levels=LEVELS, newton=NEWTON))
started = histories(model.solve(levels=LEVELS, newton=NEWTON))

FIGURES = {
    "identified E": {"value": float(E_FIT), "reference": E_TRUE, "unit": "stress"},
    "identified mu": {"value": float(MU_FIT), "reference": MU_TRUE, "unit": "-"},
    "solves to the misfit tolerance: L-BFGS-B with adjoint gradients vs Nelder-Mead": {
        "value": float(SOLVES_GRADIENT),
        "reference": float(SOLVES_FREE if SOLVES_FREE is not None else np.nan), "unit": "solves"},
    "seconds to the misfit tolerance: L-BFGS-B with adjoint gradients vs Nelder-Mead": {
        "value": float(with_gradients.seconds_to(TARGET)),
        "reference": float(without.seconds_to(TARGET) if SOLVES_FREE is not None else np.nan),
        "unit": "s"},
    "solves of L-BFGS-B to its convergence (vs Nelder-Mead to the tolerance)": {
        "value": float(with_gradients.solves), "reference": float(without.solves), "unit": "solves"},
    "smallest misfit (coarse model vs data)": {
        "value": float(BEST), "reference": float(np.sum(weights[:, None] * (exact - data) ** 2)),
        "unit": "-"},
}


def plot(path):
    """Data and fitted histories of both reactions; the paths of both searches in (E, mu)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.3, 1]})
    sign = np.array([[-1.0], [1.0]])              # the top pushes down and drags to +x
    for row, (label, colour) in enumerate((("normal $-R_y$", "tab:blue"),
                                           ("tangential $R_x$", "tab:red"))):
        ax[0].plot(LEVELS, sign[row] * data[row], "o", color=colour,
                   label=f"data {label} (fine mesh, 1 % noise)")
        ax[0].plot(LEVELS, sign[row] * fitted[row], "-", color=colour,
                   label=f"fitted {label}: E = {E_FIT:.1f}, $\\mu$ = {MU_FIT:.4f}")
        ax[0].plot(LEVELS, sign[row] * started[row], ":", color=colour, lw=1,
                   label=f"start {label}: E = {E_START:g}, $\\mu$ = {MU_START:g}")
    ax[0].plot(LEVELS, -MU_FIT * fitted[0], "k--", lw=0.8, label="$\\mu$ (fitted) times normal")
    ax[0].axvline(0.3, color="gray", lw=0.8)
    ax[0].text(0.31, 0.95 * np.abs(data).max(), "press | drag", color="gray", fontsize=8)
    ax[0].set_xlabel("load level (pseudo-time)")
    ax[0].set_ylabel("reaction of the top (force / thickness)")
    ax[0].set_title("block on a rigid line: pressed, then dragged")
    ax[0].legend(fontsize=7, loc="center right")
    ax[0].grid(alpha=0.3)
    for counted, style, label in ((with_gradients, "o-", "L-BFGS-B + adjoint"),
                                  (without, "s-", "Nelder-Mead")):
        t = np.array(counted.trace)[:, :4]
        ax[1].plot(t[:, 2], t[:, 3], style, ms=3, lw=0.8,
                   label=f"{label}: {counted.solves_to(TARGET)} solves to the tolerance")
    ax[1].plot(E_TRUE, MU_TRUE, "k*", ms=14, label="true values (fine mesh)")
    ax[1].plot(E_START, MU_START, "kx", ms=10, label="start")
    ax[1].set_xlabel("E")
    ax[1].set_ylabel("$\\mu$")
    ax[1].set_title("the searches, every forward solve")
    ax[1].legend(fontsize=8)
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    for name, fig in FIGURES.items():
        print(f"{name}: {fig['value']:.6g} (reference {fig['reference']:.6g}) {fig['unit']}")
    if len(sys.argv) > 1:
        plot(sys.argv[1])
