"""The contact patch test with mortar on quadrilateral facets: two stacked unit cubes with
non-matching interface meshes (hexahedra on hexahedra, tetrahedra on hexahedra, hexahedra on
tetrahedra, perturbed hexahedra; unstructured Gmsh hexahedra a strict xfail) under a uniform
pressure p on the top.
The exact solution is the uniform stress -p e_z e_z; with parallelogram facets the mortar
integrals are exact and it is transmitted to round-off, on general quadrilaterals to the
accuracy of the degree-4 rule on the segments."""

import numpy as np
import pytest
import skfem

import fecontact as fc
from fecontact.bodies.elasticity import body_stress

P = 10.0


def _box(kind, n, z0, perturb=0.0, seed=0):
    """Unit cube ``z0 <= z <= z0 + 1`` of ``n^3`` cells; ``perturb``: nodes not on the outer
    faces and the interface nodes in their plane moved by up to that share of a cell."""
    line = np.linspace(0.0, 1.0, n + 1)
    mesh = (skfem.MeshHex if kind == "hex" else skfem.MeshTet).init_tensor(line, line, z0 + line)
    if perturb:
        p = mesh.p.copy()
        rng = np.random.default_rng(seed)
        lo, hi = np.array([0.0, 0.0, z0]), np.array([1.0, 1.0, z0 + 1.0])
        for c in range(3):
            inner = (p[c] > lo[c] + 1e-9) & (p[c] < hi[c] - 1e-9)
            p[c] += np.where(inner, perturb / n * rng.uniform(-1.0, 1.0, p.shape[1]), 0.0)
        mesh = type(mesh)(p, mesh.t)
    return mesh.with_boundaries({"bottom": lambda x: np.isclose(x[2], z0),
                                 "top": lambda x: np.isclose(x[2], z0 + 1.0)})


def _gmsh_hex(path, h, z0):
    """Unstructured all-hexahedral unit cube from Gmsh (tetrahedra subdivided into hexahedra)."""
    gmsh = pytest.importorskip("gmsh")
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.model.add("cube")
        box = gmsh.model.occ.addBox(0.0, 0.0, z0, 1.0, 1.0, 1.0)
        gmsh.model.occ.synchronize()
        for _, tag in gmsh.model.getEntities(2):
            zmin, zmax = gmsh.model.getBoundingBox(2, tag)[2::3]
            if abs(zmax - zmin) < 1e-9 and abs(zmin - z0) < 1e-9:
                gmsh.model.addPhysicalGroup(2, [tag], name="bottom")
            elif abs(zmax - zmin) < 1e-9:
                gmsh.model.addPhysicalGroup(2, [tag], name="top")
        gmsh.model.addPhysicalGroup(3, [box], name="cube")
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.option.setNumber("Mesh.MeshSizeMin", h)
        gmsh.option.setNumber("Mesh.SubdivisionAlgorithm", 2)
        gmsh.model.mesh.generate(3)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return fc.load_mesh(path).with_boundaries({"bottom": lambda x: np.isclose(x[2], z0),
                                               "top": lambda x: np.isclose(x[2], z0 + 1.0)})


def _patch(lower, upper):
    """Solve the stacked cubes with mortar contact: (largest stress deviation, largest pressure
    deviation), both relative to p, and the solution."""
    material = fc.LinearElastic(E=1e3, nu=0.3)
    bodies = [fc.Body(name, mesh, "Q1" if isinstance(mesh, skfem.MeshHex) else "P1", material)
              for name, mesh in (("lower", lower), ("upper", upper))]
    lo, up = bodies
    lo.fix("bottom", z=0.0).fix(point=[0.0, 0.0, 0.0], x=0.0, y=0.0).fix(point=[1.0, 0.0, 0.0], y=0.0)
    up.fix(point=[0.0, 0.0, 2.0], x=0.0, y=0.0).fix(point=[1.0, 0.0, 2.0], y=0.0)
    up.pressure("top", P)
    pair = fc.Contact(up.surface("bottom"), lo.surface("top"), fc.Frictionless(), formulation="mortar")
    result = fc.Model(bodies, [pair]).solve()
    assert result.converged
    system = result.problem.system
    exact = np.diag([0.0, 0.0, -P])[:, :, None, None]
    stress = max(np.abs(body_stress(body, result.state.u[system.body_dofs(b)]) - exact).max()
                 for b, body in enumerate(system.bodies)) / P
    pressure = np.abs(result.contact().pressure - P).max() / P
    return stress, pressure, result


@pytest.mark.parametrize("lower, upper", [(("hex", 3), ("hex", 2)), (("hex", 2), ("hex", 3)),
                                          (("tet", 3), ("hex", 2)), (("hex", 3), ("tet", 2))],
                         ids=["hex-on-hex", "hex-on-finer-hex", "hex-on-tet", "tet-on-hex"])
def test_parallelogram_facets_transmit_a_uniform_pressure_exactly(lower, upper):
    stress, pressure, result = _patch(_box(*lower, 0.0), _box(*upper, 1.0))
    assert stress <= 1e-10 and pressure <= 1e-10
    assert result.problem.pairs[0].formulation == "mortar"


#: the deviation of a perturbed or unstructured interface is the degree-4 rule's error on the
#: rational integrands of general quadrilaterals; measured 2.5e-7 (stress) and 4.2e-7
#: (pressure) on the perturbed cubes, the bound is that figure times 4
PERTURBED_BOUND = 2e-6


@pytest.mark.slow
def test_perturbed_quadrilaterals_transmit_a_uniform_pressure_to_the_rule_accuracy():
    stress, pressure, _ = _patch(_box("hex", 2, 0.0, 0.25, 1), _box("hex", 3, 1.0, 0.25, 2))
    assert max(stress, pressure) <= PERTURBED_BOUND
    # not exact: the interface quadrilaterals are not parallelograms
    assert max(stress, pressure) > 1e-12


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="Newton stalls on the distorted quadrilaterals of Gmsh's "
                   "subdivided tetrahedra (30 iterations, cut back): the overlap polygons' combinatorics "
                   "change between iterates and the residual jumps by the rule's error")
def test_unstructured_gmsh_hexahedra_on_tetrahedra(tmp_path):
    upper = _gmsh_hex(tmp_path / "upper.msh", 0.6, 1.0)
    assert isinstance(upper, skfem.MeshHex)
    stress, pressure, _ = _patch(_box("tet", 2, 0.0), upper)
    assert max(stress, pressure) <= PERTURBED_BOUND
