"""Geometric and topological checks of the mesh generators."""

import numpy as np
import pytest
from skfem import MeshQuad, MeshTri

from fecontact.mesh import GENERATORS
from fecontact.mesh.generate2d import half_disc, rectangle

CASES = {
    "unit-lower": dict(radius=1.0, center=(0.0, 1.0), side="lower",
                       h_contact=0.005, h_far=0.1, refine_width=0.25),
    "big-upper": dict(radius=8.0, center=(0.5, 8.0), side="upper",
                      h_contact=0.02, h_far=0.8, refine_width=1.2),
    "small-offset": dict(radius=0.01, center=(3.3, -7.1), side="lower",
                         h_contact=2e-4, h_far=2e-3, refine_width=3e-3),
}


@pytest.fixture(scope="module", params=[(name, el) for name in CASES
                                        for el in ("tri", "quad")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request):
    name, element = request.param
    kw = dict(CASES[name], element=element)
    return kw, half_disc(**kw)


def _polygon_areas(p, t):
    """Signed areas (shoelace), positive for counter-clockwise elements."""
    n = t.shape[0]
    return 0.5 * sum(p[0, t[i]] * p[1, t[(i + 1) % n]]
                     - p[0, t[(i + 1) % n]] * p[1, t[i]] for i in range(n))


def _edge_lengths(p, t):
    n = t.shape[0]
    return np.array([np.linalg.norm(p[:, t[(i + 1) % n]] - p[:, t[i]],
                                    axis=0) for i in range(n)])


def _corner_cross(p, t):
    """Cross products of consecutive edges at every element corner."""
    n = t.shape[0]
    out = []
    for i in range(n):
        a, b, c = p[:, t[i]], p[:, t[(i + 1) % n]], p[:, t[(i + 2) % n]]
        u, v = b - a, c - b
        out.append(u[0] * v[1] - u[1] * v[0])
    return np.array(out)


def _triangle_angles(p, t):
    out = []
    for i in range(3):
        a, b, c = p[:, t[i]], p[:, t[(i + 1) % 3]], p[:, t[(i + 2) % 3]]
        u, v = b - a, c - a
        cos = np.sum(u * v, axis=0) / (np.linalg.norm(u, axis=0)
                                      * np.linalg.norm(v, axis=0))
        out.append(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
    return np.array(out)


def _facet_nodes(mesh, name):
    return np.unique(mesh.facets[:, mesh.boundaries[name]])


def test_mesh_type(case):
    kw, mesh = case
    assert isinstance(mesh, MeshTri if kw["element"] == "tri" else MeshQuad)


def test_arc_nodes_exactly_on_circle(case):
    kw, mesh = case
    cx, cy = kw["center"]
    nodes = _facet_nodes(mesh, "arc")
    r = np.hypot(mesh.p[0, nodes] - cx, mesh.p[1, nodes] - cy)
    np.testing.assert_allclose(r, kw["radius"], rtol=0, atol=1e-12)


def test_flat_nodes_exactly_on_line(case):
    kw, mesh = case
    nodes = _facet_nodes(mesh, "flat")
    np.testing.assert_array_equal(mesh.p[1, nodes], kw["center"][1])
    cx, r = kw["center"][0], kw["radius"]
    assert mesh.p[0, nodes].min() == pytest.approx(cx - r, abs=1e-12 * r)
    assert mesh.p[0, nodes].max() == pytest.approx(cx + r, abs=1e-12 * r)


def test_region_is_the_requested_half(case):
    kw, mesh = case
    cx, cy = kw["center"]
    r, y = kw["radius"], mesh.p[1]
    if kw["side"] == "lower":
        assert np.all(y <= cy) and y.min() == pytest.approx(cy - r)
    else:
        assert np.all(y >= cy) and y.max() == pytest.approx(cy + r)
    assert np.all(np.hypot(mesh.p[0] - cx, y - cy) <= r * (1 + 1e-12))
    # the elements tile the half disc up to the chord-arc gaps, which are
    # at most (h/r)^2 / 6 of the area for chords of length h <= h_far
    area = np.sum(_polygon_areas(mesh.p, mesh.t))
    exact = 0.5 * np.pi * r**2
    assert area <= exact
    assert area == pytest.approx(exact, rel=(kw["h_far"] / r) ** 2 / 6)


def test_boundary_names(case):
    _, mesh = case
    for name in ("arc", "flat", "contact"):
        assert name in mesh.boundaries
        assert len(mesh.boundaries[name]) > 0


def test_arc_and_flat_partition_boundary(case):
    _, mesh = case
    arc, flat = mesh.boundaries["arc"], mesh.boundaries["flat"]
    assert np.intersect1d(arc, flat).size == 0
    np.testing.assert_array_equal(np.union1d(arc, flat),
                                  np.sort(mesh.boundary_facets()))


def test_contact_facets(case):
    kw, mesh = case
    contact, arc = mesh.boundaries["contact"], mesh.boundaries["arc"]
    assert np.all(np.isin(contact, arc))
    mid = mesh.p[:, mesh.facets[:, arc]].mean(axis=1)
    near = np.abs(mid[0] - kw["center"][0]) <= kw["refine_width"]
    np.testing.assert_array_equal(np.sort(contact), np.sort(arc[near]))


def test_elements_counter_clockwise(case):
    _, mesh = case
    assert np.all(_polygon_areas(mesh.p, mesh.t) > 0)


def test_element_shape(case):
    kw, mesh = case
    if kw["element"] == "tri":
        # no slivers: every angle above 20 degrees
        assert _triangle_angles(mesh.p, mesh.t).min() > 20.0
    else:
        # convex: every corner turns left, with a margin (sine of the
        # corner angle above sin 10 deg) against near-degenerate corners
        cross = _corner_cross(mesh.p, mesh.t)
        lengths = _edge_lengths(mesh.p, mesh.t)
        assert np.all(cross > 0)
        assert np.all(cross / (lengths * np.roll(lengths, -1, axis=0))
                      > np.sin(np.radians(10.0)))


def test_size_near_contact_and_far(case):
    kw, mesh = case
    h_c, h_far = kw["h_contact"], kw["h_far"]
    size = _edge_lengths(mesh.p, mesh.t).max(axis=0)
    at_contact = mesh.f2t[0, mesh.boundaries["contact"]]
    assert size[at_contact].max() <= 1.5 * h_c
    assert size[at_contact].min() >= 0.25 * h_c
    assert size.max() <= 1.5 * h_far
    # the contact arc is resolved with facets of about h_contact
    contact = mesh.facets[:, mesh.boundaries["contact"]]
    facet_len = np.linalg.norm(mesh.p[:, contact[0]] - mesh.p[:, contact[1]],
                               axis=0)
    assert facet_len.max() <= 1.5 * h_c


def test_vertex_count_sane(case):
    kw, mesh = case
    r, h_c, w = kw["radius"], kw["h_contact"], kw["refine_width"]
    # at least the contact arc resolution, well below the ~1.15 A / h^2
    # vertices of a uniform mesh of size h_contact
    assert mesh.nvertices >= 2 * np.arcsin(min(w / r, 1.0)) * r / h_c
    assert mesh.nvertices < 0.5 * (0.5 * np.pi * r**2) / h_c**2


def test_budget_case_is_small_and_fine():
    mesh = half_disc(radius=1.0, center=(0.0, 1.0), h_contact=0.002,
                     h_far=0.1, refine_width=0.25)
    assert mesh.nvertices <= 15000
    contact = mesh.facets[:, mesh.boundaries["contact"]]
    facet_len = np.linalg.norm(mesh.p[:, contact[0]] - mesh.p[:, contact[1]],
                               axis=0)
    assert facet_len.max() <= 1.5 * 0.002


def test_upper_is_mirror_of_lower():
    kw = dict(radius=2.0, center=(1.0, 3.0), h_contact=0.02, h_far=0.3,
              refine_width=0.5)
    lower = half_disc(side="lower", **kw)
    upper = half_disc(side="upper", **kw)
    assert lower.nvertices == upper.nvertices
    np.testing.assert_allclose(lower.p[1] - 3.0, 3.0 - upper.p[1],
                               atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(side="left"), dict(element="hex"),
                                    dict(h_contact=0.2, h_far=0.1),
                                    dict(radius=-1.0)])
def test_half_disc_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        half_disc(**kwargs)


@pytest.mark.parametrize("element", ["tri", "quad"])
def test_rectangle(element):
    mesh = rectangle(-1.0, 2.0, 0.5, 1.5, 6, 4, element=element)
    assert isinstance(mesh, MeshTri if element == "tri" else MeshQuad)
    assert mesh.nvertices == 7 * 5
    assert mesh.nelements == (48 if element == "tri" else 24)
    assert np.all(_polygon_areas(mesh.p, mesh.t) > 0)
    assert np.sum(_polygon_areas(mesh.p, mesh.t)) == pytest.approx(3.0)
    expected = {"left": (0, -1.0, 4), "right": (0, 2.0, 4),
                "bottom": (1, 0.5, 6), "top": (1, 1.5, 6)}
    for name, (axis, value, count) in expected.items():
        facets = mesh.boundaries[name]
        assert len(facets) == count
        np.testing.assert_array_equal(
            mesh.p[axis, mesh.facets[:, facets]], value)
    union = np.unique(np.concatenate([mesh.boundaries[n] for n in expected]))
    np.testing.assert_array_equal(union, np.sort(mesh.boundary_facets()))


def test_registry():
    assert GENERATORS["half_disc"] is half_disc
    assert GENERATORS["rectangle"] is rectangle


def test_rectangle_rotation_keeps_boundaries_and_shape():
    from fecontact.mesh.generate2d import rectangle
    base = rectangle(0.0, 1.0, 0.0, 0.5, 4, 2, element="quad")
    turned = rectangle(0.0, 1.0, 0.0, 0.5, 4, 2, element="quad", angle=30.0)
    a = np.deg2rad(30.0)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    np.testing.assert_allclose(turned.p, R @ base.p, atol=1e-15)
    for name in ("left", "right", "bottom", "top"):
        np.testing.assert_array_equal(turned.boundaries[name], base.boundaries[name])
    # the rotated bottom lies on the line through the origin with slope tan 30
    bottom = np.unique(turned.facets[:, turned.boundaries["bottom"]])
    np.testing.assert_allclose(turned.p[1, bottom], np.tan(a) * turned.p[0, bottom], atol=1e-15)
