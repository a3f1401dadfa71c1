"""Bodies of several materials, one per mesh subdomain, and subdomains read from Gmsh files.

The references are closed forms: bars of two materials in series (1D strain,
the lateral faces on rollers) and in parallel (uniaxial stress, layers of one
Poisson ratio), total masses, and the element sets written into the files.
"""

import numpy as np
import pytest
import skfem
from scipy.sparse.linalg import spsolve

from fecontact.bodies.body import ElasticBody, element_types
from fecontact.bodies.elasticity import (Material, body_stiffness, body_stress, body_von_mises,
                                         constant_load, lame_stiffness, mass, stiffness)
from fecontact.bodies.system import build_system
from fecontact.io.meshfile import load_mesh

L1, L2 = 1.0, 2.0          # series: lengths of the two materials along x
H1, H2 = 0.5, 1.0          # parallel: heights of the two layers along y
CONFIGS = [("tri", "P1"), ("tri", "P2"), ("quad", "Q1"), ("tet", "P1"), ("tet", "P2"),
           ("hex", "Q1")]
MESH_TYPES = {"tri": skfem.MeshTri1, "quad": skfem.MeshQuad1, "tet": skfem.MeshTet1,
              "hex": skfem.MeshHex1}
HARD = Material(210.0, 0.3, "plane_strain", density=2.0)
SOFT = Material(70.0, 0.35, "plane_strain", density=5.0)


def _grid(kind: str, lines: list) -> skfem.Mesh:
    """Tensor mesh on the grid lines of each axis, interior coordinates perturbed off the lines.

    A coordinate that lies on one of the given lines of its axis (faces and
    the material interface) is kept, so faces stay planar and no element
    straddles the interface.
    """
    mesh = MESH_TYPES[kind].init_tensor(*[np.linspace(a[0], a[-1], n) for a, n in lines])
    p = mesh.p.copy()
    rng = np.random.default_rng(7)
    for axis, (keep, n) in enumerate(lines):
        h = (keep[-1] - keep[0]) / (n - 1)
        on = np.any(np.isclose(p[axis][:, None], np.asarray(keep)[None, :]), axis=1)
        p[axis, ~on] += 0.15 * h * rng.uniform(-1.0, 1.0, int(np.sum(~on)))
    return type(mesh)(p, mesh.t)


def _series_mesh(kind: str) -> skfem.Mesh:
    dim = 3 if kind in ("tet", "hex") else 2
    lines = [([0.0, L1, L1 + L2], 7)] + [([0.0, 1.0], 3)] * (dim - 1)
    return _grid(kind, lines).with_subdomains({"hub": lambda x: x[0] < L1,
                                               "rim": lambda x: x[0] > L1})


def _parallel_mesh(kind: str) -> skfem.Mesh:
    dim = 3 if kind in ("tet", "hex") else 2
    lines = [([0.0, 2.0], 4), ([0.0, H1, H1 + H2], 4)] + [([0.0, 1.0], 3)] * (dim - 2)
    return _grid(kind, lines).with_subdomains({"lower": lambda x: x[1] < H1,
                                               "upper": lambda x: x[1] > H1})


def _solve(body, fixed: np.ndarray, values: np.ndarray, load: np.ndarray):
    """Displacement with the DOFs ``fixed`` prescribed to ``values``; also the stiffness."""
    K = body_stiffness(body).tocsr()
    u = np.zeros(K.shape[0])
    u[fixed] = values
    unused = np.flatnonzero(np.diff(K.indptr) == 0)        # vertices in no element
    free = np.setdiff1d(np.arange(K.shape[0]), np.concatenate([fixed, unused]))
    rhs = load[free] - K[free][:, fixed] @ u[fixed]
    u[free] = spsolve(K[free][:, free].tocsc(), rhs)
    return u, K


def _traction(body, x_end: float, sigma: float) -> np.ndarray:
    """Load vector of a traction ``sigma`` along x on the face ``x = x_end``."""
    _, elem = element_types(body.element, body.dim)
    facets = body.mesh.facets_satisfying(lambda x: np.isclose(x[0], x_end))
    fb = skfem.FacetBasis(body.mesh, skfem.ElementVector(elem()), facets=facets)
    return constant_load(fb, [sigma] + [0.0] * (body.dim - 1))


def _rollers(body, x_end: float | None = None):
    """``x = 0`` fixed along x; every other face of the box on rollers (normal component fixed)."""
    x, dim = body.node_coords, body.dim
    used = body.mesh.p[:, np.unique(body.mesh.t)]          # without unused vertices
    lo, hi = used.min(axis=1), used.max(axis=1)
    dofs = [dim * np.flatnonzero(np.isclose(x[0], 0.0))]
    for c in range(1, dim):
        on = np.isclose(x[c], lo[c]) | np.isclose(x[c], hi[c])
        dofs.append(dim * np.flatnonzero(on) + c)
    return np.unique(np.concatenate(dofs))


def _series_tip(materials: dict, dim: int, sigma: float) -> float:
    """Tip displacement of a bar of 1D strain: ``sum sigma L_i / (lambda_i + 2 mu_i)``."""
    return sum(sigma * length / (lam + 2.0 * mu) for length, (lam, mu) in
               zip((L1, L2), (m.lame(dim) for m in materials.values())))


def _von_mises_1d_strain(material: Material, dim: int, sigma: float) -> float:
    """Von Mises stress of 1D strain along x under ``sigma_xx = sigma``."""
    lam, mu = material.lame(dim)
    strain = sigma / (lam + 2.0 * mu)
    s_lat = lam * strain
    if dim == 3:
        s = (sigma, s_lat, s_lat)
    elif material.model == "plane_strain":
        s = (sigma, s_lat, material.nu * (sigma + s_lat))
    else:
        s = (sigma, s_lat, 0.0)
    return np.sqrt(0.5 * ((s[0] - s[1])**2 + (s[1] - s[2])**2 + (s[2] - s[0])**2))


@pytest.mark.parametrize("model", ["plane_strain", "plane_stress"])
@pytest.mark.parametrize("kind,element", CONFIGS)
def test_series_bar_tip_matches_the_closed_form(kind, element, model):
    if model == "plane_stress" and kind in ("tet", "hex"):
        pytest.skip("the plane model is a 2D notion")
    materials = {"hub": Material(210.0, 0.3, model), "rim": Material(70.0, 0.4, model)}
    body = ElasticBody.create("bar", _series_mesh(kind), element, materials)
    sigma = 3.0
    u, _ = _solve(body, fixed := _rollers(body), np.zeros(fixed.size),
                  _traction(body, L1 + L2, sigma))
    tip = np.isclose(body.node_coords[0], L1 + L2)
    exact = _series_tip(materials, body.dim, sigma)
    error = np.max(np.abs(u[body.dim * np.flatnonzero(tip)] - exact)) / exact
    assert error < 1e-10, error
    # von Mises at the nodes away from the interface, per material
    vm = body_von_mises(body, u)
    x = body.node_coords[0]
    for name, inside in (("hub", x < L1 - 1e-9), ("rim", x > L1 + 1e-9)):
        ref = _von_mises_1d_strain(materials[name], body.dim, sigma)
        assert np.max(np.abs(vm[inside] - ref)) / ref < 1e-10
    if element != "P1":
        s = body_stress(body, u)
        assert np.max(np.abs(s[0, 0] - sigma)) / sigma < 1e-10


@pytest.mark.parametrize("kind,element", CONFIGS)
def test_parallel_layers_reaction_is_the_sum_of_their_stiffnesses(kind, element):
    nu = 0.25                                    # one Poisson ratio: the layers contract alike
    materials = {"lower": Material(200.0, nu, "plane_stress"),
                 "upper": Material(50.0, nu, "plane_stress")}
    body = ElasticBody.create("plate", _parallel_mesh(kind), element, materials)
    x, dim = body.node_coords, body.dim
    length, stretch = 2.0, 0.01
    left, right = np.flatnonzero(np.isclose(x[0], 0.0)), np.flatnonzero(np.isclose(x[0], length))
    origin = np.flatnonzero(np.all(np.isclose(x, 0.0), axis=0))
    fixed = [dim * left, dim * right, dim * origin + 1]
    if dim == 3:                                  # no rigid turn about x, no drift along z
        corner = np.flatnonzero(np.isclose(x[0], 0) & np.isclose(x[1], 0) & np.isclose(x[2], 1))
        fixed += [dim * origin + 2, dim * corner + 1]
    fixed = np.concatenate(fixed)
    values = np.zeros(fixed.size)
    values[left.size:left.size + right.size] = stretch
    u, K = _solve(body, fixed, values, np.zeros(dim * body.n_nodes))
    reaction = np.sum((K @ u)[dim * right])
    # per unit thickness in 2D (width 1 along z in 3D)
    exact = (200.0 * H1 + 50.0 * H2) * stretch / length
    assert abs(reaction - exact) / exact < 1e-10, reaction / exact - 1


@pytest.mark.parametrize("kind,element", CONFIGS)
def test_one_material_through_a_mapping_is_bit_identical(kind, element):
    mesh = _series_mesh(kind)
    plain = ElasticBody.create("b", mesh, element, HARD)
    everywhere = ElasticBody.create("b", mesh.with_subdomains({"all": lambda x: x[0] > -1}),
                                    element, {"all": HARD})
    shared = ElasticBody.create("b", mesh, element, {"hub": HARD, "rim": HARD})
    K = body_stiffness(plain)
    u = np.random.default_rng(3).standard_normal(K.shape[0]) * 1e-3
    for body in (everywhere, shared):
        assert body.material is HARD and len(body.materials) == 1
        other = body_stiffness(body)
        for attr in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(K, attr), getattr(other, attr))
        assert np.array_equal(body_von_mises(plain, u), body_von_mises(body, u))
        M0 = mass(plain.basis, plain.material.density)
        M1 = mass(body.basis, body.element_density())
        assert np.array_equal(M0.data, M1.data) and np.array_equal(M0.indices, M1.indices)


@pytest.mark.parametrize("kind,element", CONFIGS)
def test_stiffness_of_two_materials_is_the_sum_over_regions(kind, element):
    """Against scikit-fem bases restricted to the elements of each region."""
    mesh = _series_mesh(kind)
    body = ElasticBody.create("b", mesh, element, {"hub": HARD, "rim": SOFT})
    _, elem = element_types(element, body.dim)
    parts = [stiffness(skfem.Basis(mesh, skfem.ElementVector(elem()),
                                   elements=mesh.subdomains[name]), mat)
             for name, mat in (("hub", HARD), ("rim", SOFT))]
    K = body_stiffness(body)
    diff = K - parts[0] - parts[1]
    assert abs(diff).max() < 1e-12 * abs(K).max()
    if element == "P1":                           # the quadrature path agrees with the fast one
        generic = lame_stiffness(body.basis, *body.element_lame())
        assert abs(K - generic).max() < 1e-12 * abs(K).max()


@pytest.mark.parametrize("kind,element", CONFIGS)
def test_mass_of_two_densities(kind, element):
    body = ElasticBody.create("b", _series_mesh(kind), element, {"hub": HARD, "rim": SOFT})
    exact = HARD.density * L1 + SOFT.density * L2                # cross-section 1
    dim = body.dim
    for M in (mass(body.basis, body.element_density()),
              build_system([body], [], [], [], with_mass=True).M):
        ex = np.zeros(M.shape[0])
        ex[::dim] = 1.0
        assert abs(ex @ M @ ex - exact) / exact < 1e-12
    assert np.array_equal(np.sort(np.unique(body.element_density())),
                          [HARD.density, SOFT.density])


def test_material_of_a_body_of_two_materials_is_a_clear_error():
    body = ElasticBody.create("wheel", _series_mesh("tri"), "P1", {"hub": HARD, "rim": SOFT})
    with pytest.raises(ValueError, match=r"'wheel' has 2 materials \(regions hub, rim\)"):
        _ = body.material
    assert body.contact_modulus() == SOFT.contact_modulus(2)
    assert body.plane_model == "plane_strain"
    lam, mu = body.element_lame()
    hub = body.mesh.subdomains["hub"]
    assert np.all(lam[hub] == HARD.lame(2)[0]) and np.all(mu[hub] == HARD.lame(2)[1])


def test_contact_modulus_of_a_boundary_uses_the_materials_along_it():
    mesh = _series_mesh("tri").with_boundaries({"end": lambda x: np.isclose(x[0], L1 + L2),
                                                "start": lambda x: np.isclose(x[0], 0.0)})
    body = ElasticBody.create("wheel", mesh, "P1", {"hub": SOFT, "rim": HARD})
    assert body.contact_modulus("end") == HARD.contact_modulus(2)
    assert body.contact_modulus("start") == SOFT.contact_modulus(2)


def test_unknown_region_names_the_body_and_the_known_regions():
    with pytest.raises(ValueError) as err:
        ElasticBody.create("wheel", _series_mesh("tri"), "P1", {"hub": HARD, "tyre": SOFT})
    msg = str(err.value)
    assert "'wheel'" in msg and "'tyre'" in msg and "hub, rim" in msg


def test_elements_without_material_are_counted():
    mesh = _series_mesh("tri")
    with pytest.raises(ValueError) as err:
        ElasticBody.create("wheel", mesh, "P1", {"hub": HARD})
    n_rim, n = len(mesh.subdomains["rim"]), mesh.t.shape[1]
    assert f"{n_rim} of {n} elements have no material" in str(err.value)
    assert "'wheel'" in str(err.value)


def test_elements_of_two_regions_are_counted():
    mesh = _series_mesh("quad").with_subdomains({"all": lambda x: x[0] > -1})
    with pytest.raises(ValueError, match=f"{len(mesh.subdomains['hub'])} elements lie in several"):
        ElasticBody.create("wheel", mesh, "Q1", {"hub": HARD, "all": SOFT})


def test_mixed_plane_models_are_refused():
    stress = Material(70.0, 0.3, "plane_stress")
    with pytest.raises(ValueError, match="same plane model.*plane_strain and plane_stress"):
        ElasticBody.create("wheel", _series_mesh("tri"), "P1", {"hub": HARD, "rim": stress})


def test_materials_of_the_wrong_type_are_refused():
    with pytest.raises(TypeError, match="'wheel'"):
        ElasticBody.create("wheel", _series_mesh("tri"), "P1", {"hub": HARD, "rim": 70.0})
    with pytest.raises(TypeError, match="'wheel'"):
        ElasticBody.create("wheel", _series_mesh("tri"), "P1", [HARD])


# ----------------------------------------------------------------------------------- Gmsh files

def _centroid_keys(points: np.ndarray, cells: np.ndarray) -> list:
    """Element centroids, rounded, as hashable keys (unique on the meshes below)."""
    return [tuple(c) for c in np.round(points[cells].mean(axis=1), 9)]


def _file_mesh(kind: str):
    """Points (n, 3) and meshio cells of the series mesh, elements shuffled and reversed.

    Returns the skfem mesh, the points, the cells in meshio's vertex order
    (some triangles clockwise) and the region tag of every cell (1 hub,
    2 rim, 7 an unnamed third region at the far end).
    """
    from skfem.io.meshio import to_meshio

    mesh = _series_mesh(kind)
    m = to_meshio(mesh)
    cells = m.cells[0].data
    rng = np.random.default_rng(11)
    order = rng.permutation(cells.shape[0])
    cells = cells[order].copy()
    if kind == "tri":
        cells[::3] = cells[::3, ::-1]
    # one unused point first: the reader renumbers the vertices
    points = np.vstack([[9.0, 9.0, 0.0], np.c_[m.points, np.zeros((m.points.shape[0], 3))][:, :3]])
    cells = cells + 1
    centroid_x = points[cells].mean(axis=1)[:, 0]
    tags = np.where(centroid_x < L1, 1, np.where(centroid_x < L1 + 1.5, 2, 7))
    return mesh, points, m.cells[0].type, cells, tags


def _boundary_cells(mesh, points_offset: int = 1):
    """Facets of the faces x = 0 (tag 11, 'start') and x = L (tag 12, 'end'), meshio order."""
    mid = mesh.p[:, mesh.facets].mean(axis=1)
    start = np.flatnonzero(np.isclose(mid[0], 0.0))
    end = np.flatnonzero(np.isclose(mid[0], L1 + L2))
    facets = mesh.facets[:, np.concatenate([start, end])].T + points_offset
    return facets, np.r_[np.full(start.size, 11), np.full(end.size, 12)]


FACET_TYPE = {"tri": "line", "quad": "line", "tet": "triangle", "hex": "quad"}


def _write_msh22(path, kind: str, repeat_all: bool = False, seven: str | None = None):
    """A Gmsh 2.2 file of the series mesh: regions 'hub' (1), 'rim' (2), 7 (named ``seven``); faces 11, 12."""
    import meshio

    mesh, points, cell_type, cells, tags = _file_mesh(kind)
    facets, facet_tags = _boundary_cells(mesh)
    dim = mesh.dim()
    blocks = [(FACET_TYPE[kind], facets), (cell_type, cells)]
    physical = [facet_tags, tags]
    fields = {"hub": np.array([1, dim]), "rim": np.array([2, dim]),
              "start": np.array([11, dim - 1]), "end": np.array([12, dim - 1])}
    if seven is not None:
        fields[seven] = np.array([7, dim])
    if repeat_all:                     # Gmsh 2.2 writes an element once per physical group
        blocks.append((cell_type, cells))
        physical.append(np.full(len(cells), 20))
        fields["all"] = np.array([20, dim])
    if dim == 2:
        points = points.copy()
        points[:, 2] = 0.0
    out = meshio.Mesh(points, blocks, cell_data={"gmsh:physical": physical,
                                                 "gmsh:geometrical": physical},
                      field_data=fields)
    out.write(path, file_format="gmsh22", binary=False)
    return mesh, points, cells, tags


def _write_msh41(path):
    """A Gmsh 4.1 ASCII file of the 2D series mesh (triangles) with one entity per group."""
    mesh, points, _, cells, tags = _file_mesh("tri")
    facets, facet_tags = _boundary_cells(mesh)
    lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$PhysicalNames", "4",
             '1 11 "start"', '1 12 "end"', '2 1 "hub"', '2 2 "rim"', "$EndPhysicalNames",
             "$Entities", "0 2 3 0"]
    box = "0 0 0 3 1 0"
    lines += [f"{t} {box} 1 {t} 0" for t in (11, 12)]
    lines += [f"{t} {box} 1 {t} 0" for t in (1, 2, 7)]
    lines += ["$EndEntities", "$Nodes", f"1 {len(points)} 1 {len(points)}",
              f"2 1 0 {len(points)}"]
    lines += [str(i + 1) for i in range(len(points))]
    lines += [f"{x:.17g} {y:.17g} 0" for x, y, _ in points]
    lines += ["$EndNodes", "$Elements"]
    groups = [(1, t, 1, facets[facet_tags == t]) for t in (11, 12)]
    groups += [(2, t, 2, cells[tags == t]) for t in (1, 2, 7)]
    total = sum(len(g[3]) for g in groups)
    lines.append(f"{len(groups)} {total} 1 {total}")
    number = 1
    for dim, tag, etype, rows in groups:
        lines.append(f"{dim} {tag} {etype} {len(rows)}")
        for row in rows:
            lines.append(" ".join(map(str, [number, *(row + 1)])))
            number += 1
    lines.append("$EndElements")
    path.write_text("\n".join(lines) + "\n")
    return mesh, points, cells, tags


def _check_regions(loaded, points, cells, tags):
    """Subdomains of ``loaded`` hold exactly the elements tagged in the file, and partition it."""
    assert set(loaded.subdomains) >= {"hub", "rim", "7"}
    assert loaded.t.shape[1] == len(cells)
    keys = _centroid_keys(loaded.p.T, loaded.t.T)
    where = {k: i for i, k in enumerate(keys)}
    expected = {"hub": 1, "rim": 2, "7": 7}
    file_keys = _centroid_keys(points[:, :loaded.dim()], cells)
    for name, tag in expected.items():
        want = np.sort([where[k] for k, t in zip(file_keys, tags) if t == tag])
        assert np.array_equal(loaded.subdomains[name], want), name
    joined = np.concatenate([loaded.subdomains[n] for n in expected])
    assert np.array_equal(np.sort(joined), np.arange(loaded.t.shape[1]))


@pytest.mark.parametrize("kind", ["tri", "quad", "tet", "hex"])
def test_gmsh22_surface_groups_become_subdomains(tmp_path, kind):
    path = tmp_path / "two_material.msh"
    _, points, cells, tags = _write_msh22(path, kind)
    loaded = load_mesh(path)
    _check_regions(loaded, points, cells, tags)
    assert set(loaded.boundaries) == {"start", "end"}
    x = loaded.p[:, loaded.facets[:, loaded.boundaries["end"]]]
    assert np.allclose(x[0], L1 + L2)


def test_gmsh41_surface_groups_become_subdomains(tmp_path):
    path = tmp_path / "two_material.msh"
    _, points, cells, tags = _write_msh41(path)
    loaded = load_mesh(path)
    _check_regions(loaded, points, cells, tags)
    assert set(loaded.boundaries) == {"start", "end"}


def test_elements_repeated_for_two_groups_are_one_element(tmp_path):
    path = tmp_path / "two_material.msh"
    _, points, cells, tags = _write_msh22(path, "tri", repeat_all=True)
    loaded = load_mesh(path)
    _check_regions(loaded, points, cells, tags)
    assert np.array_equal(loaded.subdomains["all"], np.arange(len(cells)))


@pytest.mark.parametrize("reader", ["fecontact", "scikit-fem"])
@pytest.mark.parametrize("kind,element", [("tri", "P1"), ("tri", "P2"), ("quad", "Q1"),
                                          ("tet", "P1"), ("hex", "Q1")])
def test_series_bar_from_a_gmsh_file(tmp_path, reader, kind, element):
    """End to end: the file's regions carry the materials; the tip meets the closed form."""
    path = tmp_path / "two_material.msh"
    _write_msh22(path, kind, seven=None if reader == "fecontact" else "outer")
    if reader == "fecontact":
        mesh = load_mesh(path)
    else:
        mesh = skfem.Mesh.load(path)
        if kind == "tri":
            mesh = mesh.oriented()
        if kind == "hex":
            pytest.skip("scikit-fem's reader leaves Gmsh hexahedra inverted")
    third = Material(70.0, 0.4)
    materials = {"hub": HARD, "rim": third, "7" if reader == "fecontact" else "outer": third}
    body = ElasticBody.create("bar", mesh, element, materials)
    sigma = 3.0
    u, _ = _solve(body, fixed := _rollers(body), np.zeros(fixed.size),
                  _traction(body, L1 + L2, sigma))
    tip = np.isclose(body.node_coords[0], L1 + L2)
    exact = _series_tip({"hub": HARD, "rim": third}, body.dim, sigma)
    assert np.max(np.abs(u[body.dim * np.flatnonzero(tip)] - exact)) / exact < 1e-10
