"""Geometric and topological checks of the 3D mesh generators."""

import logging
from itertools import combinations

import numpy as np
import pytest
from skfem import ElementHex1, ElementTetP1, FacetBasis, MeshHex1, MeshTet1
from skfem.mapping import MappingIsoparametric

from fecontact.mesh import GENERATORS
from fecontact.mesh.generate3d import box, hemisphere

CASES = {
    "unit-lower": dict(radius=1.0, center=(0.0, 0.0, 1.0), side="lower",
                       h_contact=0.05, h_far=0.3, refine_width=0.3),
    "big-upper": dict(radius=8.0, center=(0.5, -2.0, 8.0), side="upper",
                      h_contact=0.4, h_far=2.4, refine_width=2.4),
    "small-offset": dict(radius=0.01, center=(3.3, 1.0, -7.1), side="lower",
                         h_contact=5e-4, h_far=3e-3, refine_width=3e-3),
}

# the budget setting of the task: at most about 20k vertices (60k DOFs)
BUDGET = dict(radius=1.0, center=(0.0, 0.0, 1.0), h_contact=0.01,
              h_far=0.15, refine_width=0.25)

TET_EDGES = list(combinations(range(4), 2))


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def case(request):
    kw = CASES[request.param]
    return kw, hemisphere(**kw)


@pytest.fixture(scope="module")
def budget_mesh():
    return hemisphere(**BUDGET)


# ---------------------------------------------------------------------------
# helpers (independent of the generator's own helpers)
# ---------------------------------------------------------------------------


def _volumes(p, t):
    a, b, c = (p[:, t[i]] - p[:, t[0]] for i in (1, 2, 3))
    return np.einsum("ij,ij->j", a, np.cross(b, c, axis=0)) / 6.0


def _edge_lengths(p, t):
    """Lengths of all vertex pairs of the cells ``t`` (edges of simplices)."""
    return np.array([np.linalg.norm(p[:, t[j]] - p[:, t[i]], axis=0)
                     for i, j in combinations(range(t.shape[0]), 2)])


def _dihedral_angles(p, t):
    """The six dihedral angles (degrees) of every tetrahedron."""
    out = []
    for i, j in TET_EDGES:
        k, l = (m for m in range(4) if m not in (i, j))
        e = p[:, t[j]] - p[:, t[i]]
        e /= np.linalg.norm(e, axis=0)
        a = p[:, t[k]] - p[:, t[i]]
        b = p[:, t[l]] - p[:, t[i]]
        a -= np.sum(a * e, axis=0) * e
        b -= np.sum(b * e, axis=0) * e
        cos = np.sum(a * b, axis=0) / (np.linalg.norm(a, axis=0)
                                       * np.linalg.norm(b, axis=0))
        out.append(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
    return np.array(out)


def _facet_nodes(mesh, name):
    return np.unique(mesh.facets[:, mesh.boundaries[name]])


def _local(kw, p):
    """Coordinates relative to the centre, flipped so the pole is at -z."""
    q = p - np.asarray(kw["center"], dtype=float)[:, None]
    if kw["side"] == "upper":
        q[2] = -q[2]
    return q


def _cap_distance(q, radius, width):
    """Distance to the spherical cap of horizontal radius ``width`` about
    the pole ``(0, 0, -radius)``, for points ``q`` of the ball (local)."""
    alpha = np.arcsin(min(width / radius, 1.0))
    r = np.linalg.norm(q, axis=0)
    theta = np.arctan2(np.hypot(q[0], q[1]), -q[2])
    rim = np.sqrt(np.maximum(r**2 + radius**2
                             - 2 * r * radius * np.cos(theta - alpha), 0.0))
    return np.where(theta <= alpha, radius - r, rim)


def _segment_deficit(mesh, kw):
    """Volume between the curved facets and the sphere, to leading order.

    Over a facet inscribed in the sphere, with centroid ``g`` (relative to
    the centre) and edge lengths ``l_i``, the sphere rises by
    ``(R^2 - |x|^2) / (2 R)`` above the facet point ``x``; the facet mean of
    ``|x|^2`` is ``|g|^2 + sum(l_i^2) / 36``.
    """
    r = kw["radius"]
    f = mesh.facets[:, mesh.boundaries["curved"]]
    q = _local(kw, mesh.p)
    a, b, c = q[:, f[0]], q[:, f[1]], q[:, f[2]]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a, axis=0), axis=0)
    g = (a + b + c) / 3.0
    l2 = sum(np.sum((u - v) ** 2, axis=0) for u, v in ((a, b), (b, c),
                                                        (c, a)))
    return np.sum(area * (r**2 - np.sum(g * g, axis=0) - l2 / 36.0)) \
        / (2.0 * r)


# ---------------------------------------------------------------------------
# hemisphere
# ---------------------------------------------------------------------------


def test_registered():
    assert GENERATORS["hemisphere"] is hemisphere
    assert GENERATORS["box"] is box


def test_mesh_type_and_names(case):
    _, mesh = case
    assert isinstance(mesh, MeshTet1)
    assert set(mesh.boundaries) == {"flat", "curved", "contact"}
    for name in ("flat", "curved", "contact"):
        assert len(mesh.boundaries[name]) > 0


def test_positive_volumes_and_shape(case):
    kw, mesh = case
    vol = _volumes(mesh.p, mesh.t)
    assert np.all(vol > 0)
    # no slivers: volume against the cube of the longest edge and the
    # smallest dihedral angle (measured: 22.7 degrees for these cases)
    longest = _edge_lengths(mesh.p, mesh.t).max(axis=0)
    assert np.min(vol / longest**3) > 1e-3
    angles = _dihedral_angles(mesh.p, mesh.t)
    assert angles.min() > 15.0, f"min dihedral {angles.min():.1f} deg"
    assert angles.max() < 160.0, f"max dihedral {angles.max():.1f} deg"


def test_sphere_nodes_exactly_on_sphere(case):
    kw, mesh = case
    nodes = _facet_nodes(mesh, "curved")
    r = np.linalg.norm(_local(kw, mesh.p[:, nodes]), axis=0)
    np.testing.assert_allclose(r / kw["radius"], 1.0, rtol=0, atol=1e-12)


def test_flat_nodes_exactly_on_plane(case):
    kw, mesh = case
    nodes = _facet_nodes(mesh, "flat")
    np.testing.assert_array_equal(mesh.p[2, nodes], kw["center"][2])
    # the flat face is the full disc: its rim is on the circle
    rim = np.intersect1d(nodes, _facet_nodes(mesh, "curved"))
    q = _local(kw, mesh.p[:, rim])
    np.testing.assert_allclose(np.hypot(q[0], q[1]) / kw["radius"], 1.0,
                               rtol=0, atol=1e-12)
    assert rim.size >= 8


def test_region_is_the_requested_half(case):
    kw, mesh = case
    r = kw["radius"]
    q = _local(kw, mesh.p)
    assert np.all(q[2] <= 0.0)
    assert np.all(np.linalg.norm(q, axis=0) <= r * (1 + 1e-12))
    # the pole is a mesh vertex
    pole = np.linalg.norm(q - np.array([[0.0], [0.0], [-r]]), axis=0)
    assert pole.min() <= 1e-12 * r


def test_volume_is_inscribed_half_ball(case):
    kw, mesh = case
    r = kw["radius"]
    exact = 2.0 / 3.0 * np.pi * r**3
    volume = np.sum(_volumes(mesh.p, mesh.t))
    # all boundary vertices lie on the (convex) half ball: the polyhedron is
    # inscribed and the volume deficit is the sum of the spherical segments
    # over the curved facets
    deficit = _segment_deficit(mesh, kw)
    assert volume < exact
    assert exact - volume == pytest.approx(deficit, rel=0.1)
    # ... which for these sizes is below 1 %
    assert deficit < 0.01 * exact


def test_boundary_partition(case):
    _, mesh = case
    flat = mesh.boundaries["flat"]
    curved = mesh.boundaries["curved"]
    contact = mesh.boundaries["contact"]
    assert np.intersect1d(flat, curved).size == 0
    np.testing.assert_array_equal(np.union1d(flat, curved),
                                  np.sort(mesh.boundary_facets()))
    assert np.all(np.isin(contact, curved))
    for name in ("flat", "curved", "contact"):
        ix = mesh.boundaries[name]
        assert np.unique(ix).size == ix.size


def test_contact_facets_are_those_near_the_pole(case):
    kw, mesh = case
    curved = mesh.boundaries["curved"]
    mid = _local(kw, mesh.p[:, mesh.facets[:, curved]].mean(axis=1))
    near = np.hypot(mid[0], mid[1]) <= kw["refine_width"]
    np.testing.assert_array_equal(np.sort(mesh.boundaries["contact"]),
                                  np.sort(curved[near]))


def test_facet_areas_and_normals(case):
    """scikit-fem's facet bases see outward normals and the right areas."""
    kw, mesh = case
    r = kw["radius"]
    sign = 1.0 if kw["side"] == "lower" else -1.0
    flat = FacetBasis(mesh, ElementTetP1(), facets=mesh.boundaries["flat"])
    np.testing.assert_allclose(flat.normals[2], sign, atol=1e-12)
    assert flat.dx.sum() == pytest.approx(np.pi * r**2, rel=0.01)
    curved = FacetBasis(mesh, ElementTetP1(),
                        facets=mesh.boundaries["curved"])
    x = np.asarray(curved.global_coordinates())
    c = np.asarray(kw["center"], dtype=float)[:, None, None]
    outward = np.sum(curved.normals * (x - c), axis=0) / r
    assert outward.min() > 0.95
    assert curved.dx.sum() == pytest.approx(2 * np.pi * r**2, rel=0.01)


def test_size_near_contact_and_far(case):
    kw, mesh = case
    h_c, h_far = kw["h_contact"], kw["h_far"]
    # contact facets: median edge about h_contact, one bisection level
    f = mesh.facets[:, mesh.boundaries["contact"]]
    lengths = _edge_lengths(mesh.p, f)
    assert 0.6 * h_c <= np.median(lengths) <= 1.4 * h_c
    assert lengths.max() <= 1.4 * h_c
    assert lengths.min() >= 0.6 * h_c
    # every tetrahedron obeys the graded size h(x) at its centroid, with
    # the generator's tolerance 1.5 on the longest edge
    q = _local(kw, mesh.p)
    d = _cap_distance(q[:, mesh.t].mean(axis=1), kw["radius"],
                      kw["refine_width"])
    h = np.minimum(h_far, h_c + 0.3 * d)
    longest = _edge_lengths(mesh.p, mesh.t).max(axis=0)
    assert np.all(longest <= 1.5 * h * (1 + 1e-9))
    assert longest.max() <= 1.5 * h_far


def test_contact_patch_is_structured(case):
    """The contact vertices form a lattice symmetric about the pole."""
    kw, mesh = case
    nodes = _facet_nodes(mesh, "contact")
    q = _local(kw, mesh.p[:, nodes])[:2] / kw["h_contact"]

    def key(xy):
        return np.unique(np.round(xy.T, 6), axis=0)

    base = key(q)
    for image in (q[[1, 0]], q * [[-1.0], [1.0]], q * [[1.0], [-1.0]]):
        np.testing.assert_array_equal(key(image), base)
    # right isosceles facets: longest edge sqrt(2) times the others
    f = mesh.facets[:, mesh.boundaries["contact"]]
    lengths = np.sort(_edge_lengths(mesh.p, f), axis=0)
    # (the two legs differ by the few per cent the cube-to-ball map
    # distorts at the rim of the cap)
    np.testing.assert_allclose(lengths[2] / lengths[1], np.sqrt(2),
                               rtol=0.05)
    np.testing.assert_allclose(lengths[1] / lengths[0], 1.0, rtol=0.1)


def test_upper_is_mirror_of_lower():
    kw = dict(radius=2.0, center=(1.0, -1.0, 3.0), h_contact=0.1,
              h_far=0.6, refine_width=0.5)
    lower = hemisphere(side="lower", **kw)
    upper = hemisphere(side="upper", **kw)
    assert lower.nvertices == upper.nvertices
    np.testing.assert_array_equal(lower.p[:2], upper.p[:2])
    np.testing.assert_allclose(lower.p[2] - 3.0, 3.0 - upper.p[2],
                               atol=1e-12)
    assert upper.p[2].max() == pytest.approx(5.0)
    assert lower.p[2].min() == pytest.approx(1.0)
    for name in ("flat", "curved", "contact"):
        assert len(lower.boundaries[name]) == len(upper.boundaries[name])


def test_budget_setting(budget_mesh):
    """The setting the contact runs use stays within the DOF budget."""
    mesh = budget_mesh
    assert mesh.nvertices <= 20000
    h_c = BUDGET["h_contact"]
    f = mesh.facets[:, mesh.boundaries["contact"]]
    assert 0.6 * h_c <= np.median(_edge_lengths(mesh.p, f)) <= 1.4 * h_c
    # the contact cap (area ~ 0.2) is resolved by about 2 / (1.35 h)^2
    # vertices per unit area
    ncontact = _facet_nodes(mesh, "contact").size
    assert 2000 <= ncontact <= 3000
    assert _dihedral_angles(mesh.p, mesh.t).min() > 15.0
    volume = np.sum(_volumes(mesh.p, mesh.t))
    assert volume == pytest.approx(2.0 / 3.0 * np.pi, rel=0.01)


def test_leaves_global_state_alone(caplog):
    np.random.seed(7)
    expected = np.random.random(3)
    np.random.seed(7)
    with caplog.at_level(logging.DEBUG):
        hemisphere(h_contact=0.1, h_far=0.3, refine_width=0.3)
    # scikit-fem's MeshTet1 refinement reseeds numpy's global generator and
    # logs C_CONTIGUOUS notes; the generator undoes / filters both
    np.testing.assert_array_equal(np.random.random(3), expected)
    assert not any("C_CONTIGUOUS" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("kwargs", [
    dict(side="left"),
    dict(h_contact=0.0),
    dict(h_contact=-0.01),
    dict(h_contact=0.2, h_far=0.1),
    dict(radius=-1.0),
    dict(refine_width=0.0),
    dict(h_far=float("nan")),
    dict(grading=1.0),
    dict(center=(0.0, 1.0)),
    dict(radius=1.0, h_contact=0.9, h_far=1.0, refine_width=0.01),
])
def test_hemisphere_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        hemisphere(**kwargs)


# ---------------------------------------------------------------------------
# box
# ---------------------------------------------------------------------------

BOX = (-0.3, 0.9, 0.1, 0.6, -1.0, 0.2)
SIDES = {"left": (0, 0), "right": (0, 1), "front": (1, 0), "back": (1, 1),
         "bottom": (2, 0), "top": (2, 1)}


@pytest.fixture(scope="module", params=["tet", "hex"])
def box_mesh(request):
    return request.param, box(*BOX, 4, 3, 5, element=request.param)


def test_box_type_and_counts(box_mesh):
    element, mesh = box_mesh
    assert isinstance(mesh, MeshTet1 if element == "tet" else MeshHex1)
    assert mesh.nvertices == 5 * 4 * 6
    assert mesh.nelements == 4 * 3 * 5 * (6 if element == "tet" else 1)


def test_box_positive_jacobian_and_volume(box_mesh):
    element, mesh = box_mesh
    exact = (BOX[1] - BOX[0]) * (BOX[3] - BOX[2]) * (BOX[5] - BOX[4])
    if element == "tet":
        vol = _volumes(mesh.p, mesh.t)
        assert np.all(vol > 0)
        assert vol.sum() == pytest.approx(exact, rel=1e-12)
    else:
        mapping = MappingIsoparametric(mesh, ElementHex1())
        corners = np.array([[0.0, 1.0, 0.0, 1.0, 0.5],
                            [0.0, 0.0, 1.0, 1.0, 0.5],
                            [0.0, 1.0, 1.0, 0.0, 0.5]])
        det = mapping.detDF(corners)
        assert np.all(det > 0)
        # trilinear map of a box: det is the cell volume everywhere
        assert det[:, 0].sum() == pytest.approx(exact, rel=1e-12)


def test_box_boundaries(box_mesh):
    element, mesh = box_mesh
    assert set(mesh.boundaries) == set(SIDES)
    per_cell = 2 if element == "tet" else 1
    n = {0: 4, 1: 3, 2: 5}
    for name, (axis, end) in SIDES.items():
        facets = mesh.boundaries[name]
        others = [a for a in range(3) if a != axis]
        assert len(facets) == per_cell * n[others[0]] * n[others[1]]
        np.testing.assert_array_equal(
            mesh.p[axis, mesh.facets[:, facets]], BOX[2 * axis + end])
        fb = FacetBasis(mesh, ElementTetP1() if element == "tet"
                        else ElementHex1(), facets=facets)
        expected = np.zeros(3)
        expected[axis] = 1.0 if end else -1.0
        np.testing.assert_allclose(fb.normals.reshape(3, -1).T,
                                   np.tile(expected, (fb.normals[0].size,
                                                      1)), atol=1e-12)
    names = list(SIDES)
    union = np.unique(np.concatenate([mesh.boundaries[k] for k in names]))
    np.testing.assert_array_equal(union, np.sort(mesh.boundary_facets()))
    assert sum(len(mesh.boundaries[k]) for k in names) == union.size


@pytest.mark.parametrize("args, kwargs", [
    ((0, 0, 0, 1, 0, 1, 1, 1, 1), {}),
    ((0, 1, 1, 0, 0, 1, 1, 1, 1), {}),
    ((0, 1, 0, 1, 2, 1, 1, 1, 1), {}),
    ((0, 1, 0, 1, 0, 1, 0, 1, 1), {}),
    ((0, 1, 0, 1, 0, 1, 1, 1, -2), {}),
    ((0, 1, 0, 1, 0, 1, 1, 1, 1), dict(element="wedge")),
])
def test_box_rejects_bad_input(args, kwargs):
    with pytest.raises(ValueError):
        box(*args, **kwargs)
