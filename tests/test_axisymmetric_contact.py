"""Contact on axisymmetric bodies: the r-weighted surface integrals against closed forms.

Nodal areas of revolved surfaces (frustum, annulus, sphere), the dual functions biorthogonal
under ``r ds``, the mortar integrals against brute-force sampling of ``int Phi g 2 pi r ds``,
their derivatives against central differences, the transfer of a uniform pressure across a
non-matching interface (mortar and tie: the master gets ``p int 2 pi r N_m``), and the sizes
the augmentation uses.
"""

import numpy as np
import pytest
import skfem

from fecontact.bodies.body import ElasticBody
from fecontact.bodies.elasticity import Material
from fecontact.contact import mortar2d, mortar2d_curved as mc
from fecontact.contact.surface import contact_surface, node_integrals, revolved_node_integrals
from fecontact.contact.tie import dual_coefficients, tie_constraint
from conftest import assert_jets_match_differences
from test_mortar_curved import STRAIGHT, _flat_pairs

GAUSS_X, GAUSS_W = np.polynomial.legendre.leggauss(8)
ETA, W8 = 0.5 * (GAUSS_X + 1.0), 0.5 * GAUSS_W


def _axisymmetric(mesh, name="body"):
    return ElasticBody.create(name, mesh, "P1", Material(E=1.0, nu=0.3, model="axisymmetric"))


def _rectangle(r0, r1, z0, z1, nr, nz, jiggle=0.0, seed=0):
    """A P1 mesh of ``[r0, r1] x [z0, z1]`` with boundaries left/right/bottom/top, interior nodes moved."""
    mesh = skfem.MeshTri.init_tensor(np.linspace(r0, r1, nr + 1), np.linspace(z0, z1, nz + 1))
    if jiggle:
        p = mesh.p.copy()
        inner = ((p[0] > r0) & (p[0] < r1))
        p[0, inner] += jiggle * (r1 - r0) / nr * np.random.default_rng(seed).uniform(-1, 1, inner.sum())
        mesh = skfem.MeshTri(p, mesh.t)
    return mesh.with_boundaries({"left": lambda x: np.isclose(x[0], r0),
                                 "right": lambda x: np.isclose(x[0], r1),
                                 "bottom": lambda x: np.isclose(x[1], z0),
                                 "top": lambda x: np.isclose(x[1], z1)})


def test_revolved_nodal_areas_of_a_frustum_sum_to_its_area():
    """pi L (r1 + r2) for the frustum, with the 2:1 split of the linear weight."""
    coords = np.array([[0.5, 2.0], [1.0, 3.0]])          # (r, z) of two nodes
    A = revolved_node_integrals(coords, np.array([[0], [1]]))[:, 0]
    L = np.hypot(1.5, 2.0)
    assert np.isclose(A.sum(), np.pi * L * (0.5 + 2.0), rtol=1e-14)
    assert np.isclose(A[0], 2 * np.pi * L * (2 * 0.5 + 2.0) / 6, rtol=1e-14)
    # and by quadrature of 2 pi r N_j along the segment
    r = 0.5 * (1 - ETA) + 2.0 * ETA
    assert np.allclose(A, [np.sum(W8 * 2 * np.pi * r * L * (1 - ETA)), np.sum(W8 * 2 * np.pi * r * L * ETA)])
    assert np.allclose(node_integrals(coords, np.array([[0], [1]]), True), A[:, None])


def test_surface_of_an_axisymmetric_body_carries_2_pi_r():
    """Annulus r in [0.3, 1.2] on top of a block: sum A_j = pi (r2^2 - r1^2), so a uniform pressure
    p gives the total force p pi (r2^2 - r1^2); the lengths stay the plain lumped lengths; the
    cylinder r = 1.2, z in [0, 0.5]: 2 pi R H; the same mesh as a plane body keeps lengths."""
    mesh = _rectangle(0.3, 1.2, 0.0, 0.5, 7, 3, jiggle=0.3)
    top = contact_surface(_axisymmetric(mesh), 0, "top")
    assert top.axisymmetric
    assert np.isclose(top.area.sum(), np.pi * (1.2**2 - 0.3**2), rtol=1e-13)
    assert np.isclose(top.length.sum(), 0.9, rtol=1e-13) and np.array_equal(top.size, top.length)
    r = mesh.p[0, top.nodes]
    # each node's area: (pi/3) sum over its segments of L (2 r_j + r_k)
    order = np.argsort(r)
    rs = r[order]
    L = np.diff(rs)
    expected = np.zeros(rs.size)
    expected[:-1] += np.pi / 3 * L * (2 * rs[:-1] + rs[1:])
    expected[1:] += np.pi / 3 * L * (rs[:-1] + 2 * rs[1:])
    assert np.allclose(top.area[order], expected, rtol=1e-13)
    side = contact_surface(_axisymmetric(mesh), 0, "right")
    assert np.isclose(side.area.sum(), 2 * np.pi * 1.2 * 0.5, rtol=1e-13)
    plane = contact_surface(ElasticBody.create("p", mesh, "P1", Material(E=1.0, nu=0.3)), 0, "top")
    assert not plane.axisymmetric and plane.length is None
    assert np.isclose(plane.area.sum(), 0.9) and np.array_equal(plane.size, plane.area)


def test_sphere_surface_of_a_quarter_disc():
    """The arc of a quarter disc (r >= 0) revolves into a sphere: sum A_j is the area of the
    revolved polygon (sum of frustums, exactly) and 4 pi R^2 to O(h^2)."""
    R, n = 2.0, 40
    theta = np.linspace(-np.pi / 2, np.pi / 2, n + 1)
    arc = np.vstack([R * np.cos(theta), R * np.sin(theta)])
    frustums = np.pi * np.hypot(*np.diff(arc, axis=1)) * (arc[0, :-1] + arc[0, 1:])
    A = revolved_node_integrals(arc, np.array([np.arange(n), np.arange(1, n + 1)]))
    assert np.isclose(A.sum(), frustums.sum(), rtol=1e-14)
    assert abs(A.sum() / (4 * np.pi * R**2) - 1) < (np.pi / n) ** 2


def test_revolved_duals_are_biorthogonal_under_r_ds():
    """int Phi_j N_k r ds = delta_jk int N_k r ds, sum_j Phi_j = 1; equal radii: the plane duals;
    a segment with one end on the axis too."""
    radius = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [0.3, 5.0], [0.0, 0.0]])
    A = mortar2d.revolved_dual(radius)
    N = np.stack([1 - ETA, ETA])                                           # (2, q)
    for a, (r1, r2) in zip(A, radius):
        r = r1 * (1 - ETA) + r2 * ETA
        phi = a @ N
        if r1 + r2 > 0:
            gram = np.einsum("jq,kq,q->jk", phi, N, W8 * r)
            assert np.allclose(gram, np.diag(np.einsum("kq,q->k", N, W8 * r)), atol=1e-14)
        assert np.allclose(phi.sum(axis=0), 1.0, atol=1e-13)
    assert np.allclose(A[2], [[2, -1], [-1, 2]]) and np.allclose(A[4], [[2, -1], [-1, 2]])
    # the tie's numerically built duals are the same functions (2 pi and L cancel)
    X = np.stack([np.column_stack([radius[:4, 0], np.zeros(4)]),
                  np.column_stack([radius[:4, 1], np.ones(4)])], axis=1)     # (4, 2, 2)
    assert np.allclose(dual_coefficients(X, axisymmetric=True)[1], A[:4], atol=1e-12)


def _segments(rng, p):
    """Master segments along +r near z = 0 (r >= 0.1), slave segments above them running the other way."""
    xa = np.column_stack([rng.uniform(0.1, 0.3, p), rng.uniform(-0.05, 0.05, p)])
    xb = xa + np.column_stack([rng.uniform(0.8, 1.2, p), rng.uniform(-0.2, 0.2, p)])
    s2 = np.column_stack([rng.uniform(0.0, 0.8, p), rng.uniform(-0.05, 0.1, p)])
    s1 = s2 + np.column_stack([rng.uniform(0.5, 1.0, p), rng.uniform(-0.2, 0.2, p)])
    return s1, s2, xa, xb


def test_mortar_integrals_against_sampling_of_the_revolved_surface():
    """int Phi_j g 2 pi r ds by sampling the slave segment (no clipping): at each of many points the
    gap to the master line where the point projects inside the master segment."""
    rng = np.random.default_rng(5)
    p = 6
    s1, s2, xa, xb = _segments(rng, p)
    s2[0, 0] = 0.0                                                     # a slave node on the axis
    radius = rng.uniform(0.0, 2.0, (p, 2))                             # reference radii
    radius[0, 1] = 0.0
    length = rng.uniform(0.5, 1.5, p)
    tangent = rng.standard_normal((p, 2))
    for first in (np.ones(p, bool), np.zeros(p, bool)):
        gap, _, weight, _ = mortar2d.pair_integrals(s1, s2, xa, xb, s1, s2, xa, xb, tangent, first,
                                                    length, radius)
        eta = (np.arange(200000) + 0.5) / 200000
        for c in range(p):
            x = s1[c] + eta[:, None] * (s2[c] - s1[c])
            t = xb[c] - xa[c]
            xi = (x - xa[c]) @ t / (t @ t)
            inside = (xi >= 0) & (xi <= 1)
            n = np.array([t[1], -t[0]]) / np.linalg.norm(t)
            N = np.column_stack([1 - eta, eta])
            phi = N @ mortar2d.revolved_dual(radius[c:c + 1])[0, 0 if first[c] else 1]
            r = radius[c, 0] * (1 - eta) + radius[c, 1] * eta
            dA = 2 * np.pi * r * length[c] / eta.size * inside
            g = (x - xa[c]) @ n
            # the midpoint rule errs by at most one sample at each end of the overlap
            cut = 2 * 2 * np.pi * radius[c].max() * length[c] / eta.size
            assert np.isclose(gap.value[c], np.sum(phi * g * dA), rtol=1e-9,
                              atol=cut * np.abs(phi * g).max())
            assert np.isclose(weight[c], np.sum(N[:, 0 if first[c] else 1] * dA), rtol=1e-9, atol=cut)


def test_revolved_mortar_derivatives_match_central_differences():
    rng = np.random.default_rng(3)
    p = 40
    s1, s2, xa, xb = _segments(rng, p)
    lo, hi = mortar2d._overlap(s1, s2, xa, xb - xa)
    assert np.all(hi > lo) and np.any(lo > 0) and np.any(hi < 1)
    x0 = [z + 0.01 * rng.standard_normal(z.shape) for z in (s1, s2, xa, xb)]
    tangent = rng.standard_normal((p, 2))
    first = rng.random(p) < 0.5
    length = rng.uniform(0.5, 1.5, p)
    radius = np.column_stack([s1[:, 0], s2[:, 0]])

    def evaluate(x):
        gap, slip, _, _ = mortar2d.pair_integrals(x[:, 0:2], x[:, 2:4], x[:, 4:6], x[:, 6:8], *x0,
                                                  tangent, first, length, radius)
        return gap, slip
    assert_jets_match_differences(evaluate, np.hstack([s1, s2, xa, xb]), rng)


def test_curved_mortar_with_straight_curves_is_the_straight_revolved_mortar():
    """Straight frame curves: the curved integrals (4 Gauss points) are the straight ones (2 points,
    exact for the cubic integrand), values and derivatives, with the r weight."""
    coords, coords0, tangent0, first, length = _flat_pairs(seed=0, p=6)
    radius = coords[:, [0, 2]]                       # r of the slave segments' ends
    coef = np.tile(STRAIGHT, (coords.shape[0], 1))
    got = mc.curved_pair_integrals(coords, coords0, coef, tangent0, first, length, radius)
    ref = mortar2d.pair_integrals(*(coords[:, 2 * i:2 * i + 2] for i in range(4)),
                                  *(coords0[:, 2 * i:2 * i + 2] for i in range(4)), tangent0, first,
                                  length, radius)
    plain = mortar2d.pair_integrals(*(coords[:, 2 * i:2 * i + 2] for i in range(4)),
                                    *(coords0[:, 2 * i:2 * i + 2] for i in range(4)), tangent0, first,
                                    length)
    assert not np.allclose(ref[0].value, plain[0].value)
    for jet, expected in zip(got[:2], ref[:2]):
        for part in ("value", "grad", "hess"):
            assert np.allclose(getattr(jet, part), getattr(expected, part), rtol=0.0,
                               atol=1e-12 * np.abs(getattr(expected, part)).max()), part
    assert np.allclose(got[2], ref[2], rtol=1e-13)


def _interface(n_slave, n_master, r0=0.2, r1=1.5, seed=1):
    """Slave nodes on z = 0 running -r (the slave body below, on their left), master nodes on z = 0
    running +r (the master above), non-matching, both graded at random."""
    rng = np.random.default_rng(seed)

    def line(n):
        r = np.sort(np.concatenate([[r0, r1], rng.uniform(r0, r1, n - 1)]))
        return np.column_stack([r, np.zeros(n + 1)])
    return line(n_slave)[::-1], line(n_master)


def test_mortar_transmits_a_uniform_pressure_as_the_revolved_master_areas():
    """Patch test: multipliers lam_j = p on the slave rows; the nodal forces sum_j A_j lam_j d(gap_j)
    are p times int 2 pi r N on the slave nodes and on the non-matching master nodes."""
    xs, xm = _interface(7, 11)
    m = xs.shape[0]
    segs = np.array([np.arange(m - 1), np.arange(1, m)])
    length = np.linalg.norm(np.diff(xs, axis=0), axis=1)
    area = revolved_node_integrals(xs.T, segs)
    area = np.bincount(segs.ravel(), weights=area.ravel(), minlength=m)
    a, b = xm[:-1], xm[1:]
    ends = np.column_stack([np.arange(a.shape[0]), np.arange(1, a.shape[0] + 1)])
    local, slots, _ = mortar2d.weighted_kinematics(xs, xs, segs, a, b, a, b, area, length,
                                                   master_nodes=ends, radius=xs[:, 0])
    assert np.allclose(local.gap, 0.0, atol=1e-14)
    p = 3.0
    force = np.zeros((m + xm.shape[0], 2))
    row_force = p * area[:, None] * local.d_gap                      # (m, k)
    k = local.d_gap.shape[1] // 2
    for j in range(m):
        for s in range(k):
            if slots[j, s, 0] >= 0:
                force[slots[j, s, 0]] += row_force[j, 2 * s:2 * s + 2]
    master_area = revolved_node_integrals(xm.T, ends.T)
    master_area = np.bincount(ends.T.ravel(), weights=master_area.ravel(), minlength=xm.shape[0])
    # the slave (below) is pushed down, the master up
    assert np.allclose(force[:m, 1], -p * area, rtol=1e-12)
    assert np.allclose(force[m:, 1], p * master_area, rtol=1e-12)
    assert np.allclose(force[:, 0], 0.0, atol=1e-12 * p * area.max())
    assert np.isclose(force[m:, 1].sum(), p * np.pi * (1.5**2 - 0.2**2), rtol=1e-12)


def test_tie_weights_transfer_a_uniform_traction_as_the_revolved_areas():
    """W^T (p A_s) = p A_m on a flat non-matching interface (int sum psi_j N_m 2 pi r = A_m), which
    needs the duals biorthogonal under r ds; the rows of W reproduce linear fields."""
    top = _rectangle(0.0, 1.0, -0.5, 0.0, 5, 2, jiggle=0.3, seed=2)
    upper = _rectangle(0.0, 1.0, 0.0, 0.4, 8, 2, jiggle=0.3, seed=3)
    bodies = [_axisymmetric(upper, "upper"), _axisymmetric(top, "lower")]
    slave = contact_surface(bodies[0], 0, "bottom")
    master = contact_surface(bodies[1], 1, "top")
    tie = tie_constraint(slave, master, bodies)
    A_s = slave.area[np.searchsorted(slave.nodes, tie.slave_nodes)]
    A_m = master.area[np.searchsorted(master.nodes, tie.master_nodes)]
    assert np.allclose(tie.weights.T @ A_s, A_m, rtol=1e-12)
    r_m = top.p[0, tie.master_nodes]
    assert np.allclose(tie.weights @ r_m, upper.p[0, tie.slave_nodes], atol=1e-13)
    # the plane tie of the same meshes does not (its duals are biorthogonal under ds)
    plane = [ElasticBody.create(n, m, "P1", Material(E=1.0, nu=0.3)) for n, m in
             (("upper", upper), ("lower", top))]
    flat = tie_constraint(contact_surface(plane[0], 0, "bottom"), contact_surface(plane[1], 1, "top"),
                          plane)
    assert not np.allclose(flat.weights.T @ A_s, A_m, rtol=1e-3)


@pytest.mark.parametrize("first", [True, False])
def test_a_slave_node_on_the_axis_keeps_its_row(first):
    """The tip node of a sphere (r = 0) has A_j = pi L^2 / 3 > 0 and a finite dual function."""
    r = np.array([[0.0, 0.1]]) if first else np.array([[0.1, 0.0]])
    A = mortar2d.revolved_dual(r)[0]
    assert np.all(np.isfinite(A))
    assert np.isclose(revolved_node_integrals(np.array([[0.0, 0.1], [0.0, 0.0]]),
                                              np.array([[0], [1]]))[0, 0], np.pi * 0.1**2 / 3)


def test_augmentation_and_node_sizes_use_the_lengths_of_an_axisymmetric_surface():
    """c_n = E*/h with h the lumped length (not the revolved area): c_n h is the same at every
    radius; a contact surface with segments on the axis is refused in one line."""
    import fecontact as fc
    mesh = _rectangle(0.0, 2.0, 0.0, 0.5, 8, 2)
    block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=100.0, nu=0.3, plane="axisymmetric"))
    block.fix("top", y=-1e-3)
    pair = fc.Contact(block.surface("bottom"), fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)),
                      fc.Frictionless(), name="floor")
    problem = fc.Model([block], [pair]).assemble().problem
    p = problem.pairs[0]
    assert p.slave.axisymmetric
    assert np.allclose(p.c_n * p.slave.length, p.c_n[0] * p.slave.length[0], rtol=1e-12)
    assert np.array_equal(problem.node_size, p.slave.length)
    with pytest.raises(ValueError, match="on the axis r = 0"):
        contact_surface(_axisymmetric(mesh), 0, "left")
