"""Axisymmetric bodies: the bulk of a body of revolution against closed forms.

- a solid sphere under uniform external pressure: the stress is ``-p I`` everywhere and the
  displacement ``u = -p (1 - 2 nu) / E x`` is linear, so P1 on an unstructured Gmsh mesh of the
  quarter disc reproduces it to round-off (a patch test of the hoop terms and the ``2 pi r``
  weights of stiffness and pressure load);
- a thick-walled tube under internal pressure with the axial displacement held (Lamé), P2, Q1 and
  P1 on Gmsh triangles: the radial displacement and the axial reaction
  ``2 nu p a^2 / (b^2 - a^2) * pi (b^2 - a^2)``, a total over the circumference;
- the total force of a pressure on a disc, ``p pi R^2``, and the mass of a ring, ``rho pi (b^2 - a^2) h``;
- the finite-strain forms: tangent and internal force against central differences of the force
  and of the stored energy, and the tangent at rest equal to the linear stiffness;
- the vocabulary: ``plane=`` in the API and ``plane`` in case files, the old words as aliases.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.bodies.elasticity import body_stiffness, mass
from fecontact.bodies.hyperelastic_body import HyperelasticBody

E, NU, P = 1.0e3, 0.3, 10.0


def quarter_disc(path: Path, radius: float = 1.0, h: float = 0.12) -> skfem.Mesh:
    """Unstructured Gmsh triangles of the quarter disc r, z >= 0: boundaries ``axis`` (r = 0),
    ``equator`` (z = 0) and ``outer`` (the arc)."""
    gmsh_meshes = pytest.importorskip("contact_accuracy_meshes")
    with gmsh_meshes.gmsh_model("quarter") as gmsh:
        occ = gmsh.model.occ
        disc = occ.addDisk(0, 0, 0, radius, radius)
        box = occ.addRectangle(0, 0, 0, 2 * radius, 2 * radius)
        occ.intersect([(2, disc)], [(2, box)])
        occ.synchronize()
        groups: dict = {}
        for _, curve in gmsh.model.getEntities(1):
            x0, y0, _, x1, y1, _ = gmsh.model.getBoundingBox(1, curve)
            name = "axis" if max(abs(x0), abs(x1)) < 1e-5 else (
                "equator" if max(abs(y0), abs(y1)) < 1e-5 else "outer")
            groups.setdefault(name, []).append(curve)
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [s for _, s in gmsh.model.getEntities(2)], name="sphere")
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return fc.load_mesh(path)


@pytest.fixture(scope="module")
def gmsh_available():
    try:
        pytest.importorskip("gmsh")
    except OSError as error:
        pytest.skip(f"gmsh does not load: {error}")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))


def test_sphere_under_external_pressure_is_exact_on_an_unstructured_mesh(gmsh_available, tmp_path):
    mesh = quarter_disc(tmp_path / "quarter.msh")
    body = fc.Body("sphere", mesh, "P1", fc.LinearElastic(E, NU, plane="axisymmetric"))
    body.fix("equator", y=0.0).pressure("outer", P)
    result = fc.Model([body]).solve(steps=1, backend="direct")
    x = body.part.node_coords
    exact = -P * (1 - 2 * NU) / E * x
    u = result.body_displacement("sphere")
    assert np.abs(u - exact).max() <= 1e-10 * np.abs(exact).max()
    # the axis support of the body of revolution holds u_r = 0 at r = 0
    assert [d.name for d in body.dirichlet][0] == "axis"
    axis = np.flatnonzero(x[0] < 1e-12)
    assert axis.size > 3 and np.all(u[0, axis] == 0.0)
    # the equator holds the hemisphere up against p times the area pi R^2 of its section
    r = np.sort(x[0, body.part.boundary_nodes("equator")])
    assert result.reaction("equator")[1] == pytest.approx(P * np.pi * r[-1] ** 2, rel=1e-10)


def lame_tube(element: str, mesh: skfem.Mesh):
    """Tube a = 1 < r < b = 2, internal pressure P, u_z = 0 top and bottom (plane strain in z)."""
    body = fc.Body("tube", mesh, element, fc.LinearElastic(E, NU, plane="axisymmetric"))
    body.fix("bottom", y=0.0).fix("top", y=0.0).pressure("left", P)
    return body, fc.Model([body]).solve(steps=1, backend="direct")


def lame_radial(r, a=1.0, b=2.0):
    """Radial displacement of the tube in plane strain."""
    A = P * a**2 / (b**2 - a**2) * (1 + NU) * (1 - 2 * NU) / E
    B = P * a**2 * b**2 / (b**2 - a**2) * (1 + NU) / E
    return A * r + B / r


@pytest.mark.parametrize("element, bound", [("P2", 2e-4), ("Q1", 5e-3)])
def test_thick_tube_matches_lame(element, bound):
    mesh_type = skfem.MeshTri if element == "P2" else skfem.MeshQuad
    mesh = mesh_type.init_tensor(np.linspace(1.0, 2.0, 9), np.linspace(0.0, 0.5, 5)).with_defaults()
    body, result = lame_tube(element, mesh)
    u = result.body_displacement("tube")
    ur = lame_radial(body.part.node_coords[0])
    assert np.abs(u[0] - ur).max() <= bound * ur.max()
    assert np.abs(u[1]).max() <= bound * ur.max()
    # the axial force that holds the tube: sigma_zz = 2 nu P a^2 / (b^2 - a^2) over pi (b^2 - a^2)
    axial = 2 * NU * P * np.pi
    assert result.reaction("top")[1] == pytest.approx(axial, rel=1e-3)
    assert result.reaction("bottom")[1] == pytest.approx(-axial, rel=1e-3)


def test_thick_tube_on_gmsh_triangles(gmsh_available, tmp_path):
    gmsh_meshes = pytest.importorskip("contact_accuracy_meshes")
    path = tmp_path / "tube.msh"
    with gmsh_meshes.gmsh_model("tube") as gmsh:
        surface = gmsh.model.occ.addRectangle(1.0, 0.0, 0.0, 1.0, 0.5)
        gmsh.model.occ.synchronize()
        for _, curve in gmsh.model.getEntities(1):
            x0, y0, _, x1, y1, _ = gmsh.model.getBoundingBox(1, curve)
            name = ("left" if x1 < 1.0 + 1e-5 else "right" if x0 > 2.0 - 1e-5
                    else "bottom" if y1 < 1e-5 else "top")
            gmsh.model.addPhysicalGroup(1, [curve], name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="tube")
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.06)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    body, result = lame_tube("P1", fc.load_mesh(path))
    u = result.body_displacement("tube")
    ur = lame_radial(body.part.node_coords[0])
    assert np.abs(u[0] - ur).max() <= 5e-3 * ur.max()


def test_loads_and_mass_are_totals_over_the_circumference():
    mesh = skfem.MeshTri.init_tensor(np.linspace(0.0, 2.0, 7), np.linspace(0.0, 0.5, 3)).with_defaults()
    body = fc.Body("disc", mesh, "P1", fc.LinearElastic(E, NU, plane="axisymmetric", density=3.0))
    body.pressure("top", P)
    assert body.loads[0].vector[1::2].sum() == pytest.approx(-P * np.pi * 2.0**2, rel=1e-12)
    body.traction("right", (1.0, 0.0))          # a radial traction: area 2 pi R h
    assert body.loads[1].vector[0::2].sum() == pytest.approx(2 * np.pi * 2.0 * 0.5, rel=1e-12)
    body.body_force((0.0, -1.0))                # a weight: volume pi R^2 h
    assert body.loads[2].vector[1::2].sum() == pytest.approx(-np.pi * 4.0 * 0.5, rel=1e-12)
    M = mass(body.part.basis, 3.0, axisymmetric=True)
    axial = np.zeros(M.shape[0])
    axial[1::2] = 1.0
    assert axial @ M @ axial == pytest.approx(3.0 * np.pi * 4.0 * 0.5, rel=1e-12)


@pytest.mark.parametrize("material", [fc.NeoHookean, fc.SaintVenantKirchhoff])
@pytest.mark.parametrize("element", ["P1", "P2"])
def test_finite_strain_forms_match_central_differences(material, element):
    mesh = skfem.MeshTri.init_tensor(np.linspace(0.0, 1.0, 4), np.linspace(0.0, 1.0, 4)).with_defaults()
    mat = material(E=E, nu=NU, plane="axisymmetric")
    body = fc.Body("b", mesh, element, mat)
    terms = HyperelasticBody(body.part, mat)
    x = body.part.node_coords
    rng = np.random.default_rng(1)
    n = 2 * body.part.n_nodes
    w, d = 0.005 * rng.standard_normal(n), rng.standard_normal(n)
    for v in (w, d):
        v[0::2][x[0] < 1e-12] = 0.0                 # u_r = 0 on the axis
    h = 1e-6
    force_difference = (terms.force(w + h * d) - terms.force(w - h * d)) / (2 * h)
    assert np.abs(terms.tangent(w) @ d - force_difference).max() <= 1e-7 * np.abs(force_difference).max()
    energy_difference = (terms.energy(w + h * d) - terms.energy(w - h * d)) / (2 * h)
    assert energy_difference == pytest.approx(terms.force(w) @ d, rel=1e-7)
    K = body_stiffness(body.part).toarray()
    assert np.abs(terms.tangent(np.zeros(n)).toarray() - K).max() <= 1e-12 * np.abs(K).max()


def test_neo_hookean_tube_tends_to_lame_at_small_load():
    mesh = skfem.MeshTri.init_tensor(np.linspace(1.0, 2.0, 9), np.linspace(0.0, 0.5, 5)).with_defaults()
    body = fc.Body("tube", mesh, "P2", fc.NeoHookean(E, NU, plane="axisymmetric"))
    body.fix("bottom", y=0.0).fix("top", y=0.0).pressure("left", 1e-3 * P)
    u = fc.Model([body]).solve(steps=1).body_displacement("tube")
    ur = 1e-3 * lame_radial(body.part.node_coords[0])
    assert np.abs(u[0] - ur).max() <= 3e-4 * ur.max()


def test_only_the_axial_translation_is_free():
    mesh = skfem.MeshTri.init_tensor(np.linspace(1.0, 2.0, 5), np.linspace(0.0, 0.5, 3)).with_defaults()
    body = fc.Body("ring", mesh, "P1", fc.LinearElastic(E, NU, plane="axisymmetric"))
    body.pressure("left", P)
    with pytest.raises(ValueError, match="translation along y") as error:
        fc.Model([body]).solve()
    assert "along x" not in str(error.value)
    body.fix("bottom", y=0.0)                   # radially free: the hoops hold the ring
    u = fc.Model([body]).solve(backend="direct").body_displacement("ring")
    assert np.all(u[0] > 0)


def test_bad_axisymmetric_input_is_refused_in_one_line():
    mesh = skfem.MeshTri.init_tensor(np.linspace(-0.1, 1.0, 4), np.linspace(0.0, 1.0, 3)).with_defaults()
    with pytest.raises(ValueError, match=r"r = x\[0\] >= 0; node \d+ is at r = -0.1"):
        fc.Body("b", mesh, "P1", fc.LinearElastic(E, NU, plane="axisymmetric"))
    square = skfem.MeshTri().refined(1).with_defaults()
    revolved = fc.Body("a", square, "P1", fc.LinearElastic(E, NU, plane="axisymmetric"))
    planar = fc.Body("b", square.translated((2.0, 0.0)), "P1", fc.LinearElastic(E, NU))
    with pytest.raises(ValueError, match="either axisymmetric or planar"):
        fc.Model([revolved, planar])
    with pytest.raises(ValueError, match="plane must be one of"):
        fc.LinearElastic(E, NU, plane="axisymetric")
    with pytest.raises(ValueError, match="plane_stress"):
        fc.NeoHookean(E, NU, plane="plane_stress")


def test_one_plane_vocabulary_with_the_old_words_as_aliases():
    assert fc.LinearElastic(E, NU, plane="strain") == fc.LinearElastic(E, NU, plane="plane_strain")
    assert fc.LinearElastic(E, NU, plane="stress").model == "plane_stress"
    assert fc.NeoHookean(E, NU, plane="axisymmetric").model == "axisymmetric"
    assert fc.NeoHookean(E, NU).model == "plane_strain"


def test_revolved_output_is_the_solid_of_revolution():
    mesh = skfem.MeshQuad.init_tensor(np.linspace(0.0, 2.0, 5), np.linspace(0.0, 0.5, 3)).with_defaults()
    body = fc.Body("disc", mesh, "Q1", fc.LinearElastic(E, NU, plane="axisymmetric"))
    result = fc.Model([body.fix("bottom", y=0.0).pressure("top", P)]).solve(backend="direct")
    grid = result.to_pyvista(revolve=16)
    volumes = grid.compute_cell_sizes()["Volume"]
    polygon = 16 / 2 * np.sin(2 * np.pi / 16) * 2.0**2 * 0.5      # the 16-gon's area times the height
    assert volumes.min() > 0 and volumes.sum() == pytest.approx(polygon, rel=1e-12)
    # the radial displacement turns with the points: |u| in the XZ plane is |u_r| everywhere
    u = np.asarray(grid.point_data["displacement"])
    section = result.body_displacement("disc")
    assert np.allclose(np.hypot(u[:, 0], u[:, 2]), np.tile(np.abs(section[0]), 16))
    assert np.allclose(u[:, 1], np.tile(section[1], 16))
    planar = fc.Body("p", skfem.MeshTri().refined(1).with_defaults(), "P1", fc.LinearElastic(E, NU))
    with pytest.raises(ValueError, match="axisymmetric model"):
        fc.Model([planar.fix("bottom")]).solve().to_pyvista(revolve=8)


CASE = """
[[bodies]]
name = "puck"
element = "P1"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 0.5, nx = 8, ny = 4 }}
material = {{ E = 1000.0, nu = 0.3, {material} }}
dirichlet = [{{ boundary = "top", component = "y", value = -0.01 }},
             {{ point = [0.0, 0.5], component = "x" }}]

[[contact]]
slave = {{ body = "puck", boundary = "bottom" }}
master = {{ obstacle = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}
friction = {{ law = "frictionless" }}

[steps]
count = 1
"""


def test_case_files_use_the_same_words(case_file, tmp_path):
    from fecontact import CaseError, run_case

    def run(material: str):
        return run_case(case_file(CASE.format(material=material)), out_dir=tmp_path / "out",
                        write_vtu_files=False)

    # a puck pressed on a frictionless rigid flat: uniaxial stress E * 0.02 on the area pi
    result = run('plane = "axisymmetric"')
    assert result.converged
    assert result.solution.reaction("top")[1] == pytest.approx(-1000.0 * 0.02 * np.pi, rel=1e-9)
    old = run('model = "plane_stress"')
    assert old.solution.reaction("top")[1] == pytest.approx(-1000.0 * 0.02 * 1.0, rel=1e-9)
    with pytest.raises(CaseError, match="disagree"):
        run('model = "plane_stress", plane = "axisymmetric"')
    hyper = run('model = "neo_hookean", plane = "axisymmetric"')
    assert hyper.converged and hyper.solution.reaction("top")[1] < 0


def test_a_puck_dropped_on_a_rigid_flat_keeps_its_energy():
    """Dynamics: the kinetic energy at the start is that of the whole puck, rho pi R^2 h v^2 / 2,
    and the average-acceleration scheme keeps KE + SE through the impact (balance error)."""
    R, h, v, rho = 1.0, 0.5, 1.0, 2.0
    mesh = skfem.MeshTri.init_tensor(np.linspace(0.0, R, 7), np.linspace(0.002, 0.002 + h, 4))
    puck = fc.Body("puck", mesh.with_defaults(), "P1",
                   fc.LinearElastic(E, NU, plane="axisymmetric", density=rho), initial_velocity=(0.0, -v))
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    result = fc.Model([puck], [fc.Contact(puck.surface("bottom"), floor)]).solve_dynamic(
        dt=0.002, t_end=0.03, integrator="newmark", project_velocities=False)
    assert result.converged
    energy = [r.energy for r in result.records]
    kinetic = 0.5 * rho * np.pi * R**2 * h * v**2
    assert energy[0]["initial"] == pytest.approx(kinetic, rel=1e-12)
    assert max(r.stick + r.slip for r in result.records) > 0          # it hits the flat
    assert max(abs(e["balance_error"]) for e in energy) <= 1e-6 * kinetic


def test_a_case_writes_the_solid_of_revolution_beside_each_step(case_file, tmp_path):
    import meshio

    from fecontact import CaseError, run_case

    text = CASE.format(material='plane = "axisymmetric"') + "\n[output]\nrevolve = 12\n"
    run_case(case_file(text), out_dir=tmp_path / "out")
    section = meshio.read(tmp_path / "out" / "step_0001.vtu")
    solid = meshio.read(tmp_path / "out" / "step_0001_revolved.vtu")
    assert solid.points.shape[0] == 12 * section.points.shape[0]
    assert "step_0001_revolved.vtu" in (tmp_path / "out" / "case_revolved.pvd").read_text()
    with pytest.raises(CaseError, match="'output.revolve' writes the solid of revolution"):
        run_case(case_file(CASE.format(material='plane = "plane_stress"') + "\n[output]\nrevolve = 12\n"),
                 out_dir=tmp_path / "planar")
    with pytest.raises(CaseError, match="output.revolve"):
        run_case(case_file(CASE.format(material='plane = "axisymmetric"') + "\n[output]\nrevolve = 2\n"),
                 out_dir=tmp_path / "two")
