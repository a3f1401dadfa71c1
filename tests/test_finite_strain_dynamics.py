"""Dynamics of bodies in finite strain: a free spin and an impact, against conservation laws.

* a neo-Hookean square spinning freely keeps its shape and turns at its angular
  velocity, with its energy (kinetic + stored) conserved; a linear-elastic
  square given the same spin grows instead (an infinitesimal rotation has no
  stiffness), which is why finite strain is needed once parts rotate;
* a soft neo-Hookean half-disc hitting a rigid plane, compressed by a tenth of
  its radius, bounces off with its energy kept within 1 % by the
  energy-conserving option (average acceleration, contact mass redistributed),
  the same criterion as the linear ``impact`` case.
"""

import numpy as np
import pytest
import skfem

import fecontact as fc


def _spinning_square(material, omega=1.0, quarter_turns=1.0, steps=60):
    mesh = skfem.MeshQuad.init_tensor(*[np.linspace(-0.5, 0.5, 5)] * 2)
    mesh = mesh.with_boundaries({"bottom": lambda x: x[1] < -0.5 + 1e-9})
    body = fc.Body("square", mesh, "Q1", material,
                   initial_velocity=lambda x: omega * np.stack([-x[1], x[0]]))
    far = fc.Contact(body.surface("bottom"), fc.RigidLine(point=(0.0, -10.0), normal=(0.0, 1.0)),
                     fc.Frictionless())
    t_end = quarter_turns * 0.5 * np.pi / omega
    return fc.Model([body], [far]).solve_dynamic(dt=t_end / steps, t_end=t_end), t_end


def _corner(solution):
    """Deformed position of the corner that starts at (0.5, 0.5)."""
    X = solution.problem.X
    k = int(np.argmin(np.linalg.norm(X - np.array([[0.5], [0.5]]), axis=0)))
    return X[:, k] + solution.state.u.reshape(-1, 2)[k]


def test_a_freely_spinning_neo_hookean_square_turns_rigidly_and_conserves_energy():
    material = fc.NeoHookean(E=1000.0, nu=0.3, density=1.0)
    result, t_end = _spinning_square(material)
    assert result.converged
    corner = _corner(result)
    radius0 = np.hypot(0.5, 0.5)
    angle = np.arctan2(corner[1], corner[0]) - np.pi / 4
    print(f"corner radius {np.linalg.norm(corner) / radius0:.6f} x, turned {np.degrees(angle):.3f} deg")
    # centrifugal stretch rho w^2 L^2 / E ~ 1e-3: the shape is kept to 1 %, the turn to 1 %
    assert abs(np.linalg.norm(corner) / radius0 - 1.0) <= 0.01
    assert abs(angle - np.pi / 2) <= 0.01 * np.pi / 2
    energy = np.array([r.energy["total"] for r in result.records])
    print(f"energy {energy[0]:.6g}: drift {np.ptp(energy) / energy[0]:.2e}")
    assert energy[0] == pytest.approx(0.5 * 1.0 * (1.0 / 6.0), rel=1e-9)   # J w^2 / 2, J = m L^2 / 6
    assert np.ptp(energy) <= 0.01 * energy[0]

    linear, _ = _spinning_square(fc.LinearElastic(E=1000.0, nu=0.3, density=1.0))
    grown = np.linalg.norm(_corner(linear)) / radius0
    print(f"linear elasticity: corner radius {grown:.3f} x")
    assert grown > 1.5                         # sqrt(1 + (pi/2)^2) = 1.86 for a pure linear spin


@pytest.mark.slow
def test_a_soft_neo_hookean_disc_bounces_off_a_plane_with_its_energy_kept():
    """The ``impact`` case with a neo-Hookean disc thirty times softer (E = 30): the half-disc
    is flattened by more than a tenth of its radius and leaves the plane; the total energy
    stays within 1 % of the initial kinetic energy (the linear case's criterion)."""
    from fecontact.mesh.generate2d import half_disc

    mesh = half_disc(1.0, (0.0, 1.05), "lower", h_contact=0.08, h_far=0.3, refine_width=0.5,
                     grading=1.3)
    body = fc.Body("disc", mesh, "P1", fc.NeoHookean(E=30.0, nu=0.3, density=1.0),
                   initial_velocity=(0.0, -1.0))
    pair = fc.Contact(body.surface("contact"), fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)),
                      fc.Frictionless())
    result = fc.Model([body], [pair]).solve_dynamic(dt=0.004, t_end=0.8,
                                                    contact_mass="redistributed")
    assert result.converged
    energy = np.array([r.energy["total"] for r in result.records])
    initial = 0.5 * (np.pi / 2) * 1.0**2                                # m v^2 / 2, m = pi R^2 / 2
    drift = np.abs(energy - energy[0]).max() / energy[0]
    closed = result.records[-1].stick + result.records[-1].slip
    X = result.problem.X
    heights = [np.ptp(X[1] + s.u.reshape(-1, 2)[:, 1]) for s in result.states]
    squash = 1.0 - min(heights) / np.ptp(X[1])
    print(f"energy {energy[0]:.5f} (m v^2/2 = {initial:.5f} on the mesh's area), drift {drift:.2e}; "
          f"flattened by {100 * squash:.1f} %; closed nodes at the end {closed}")
    assert energy[0] == pytest.approx(initial, rel=0.02)               # polygonal area of the disc
    assert drift <= 0.01
    assert squash > 0.1
    assert closed == 0                                                  # it has left the plane
