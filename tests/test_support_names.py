"""Support names are unique per body: two Gmsh meshes that both have a group ``flat``.

A block (upper) is pressed by ``d`` through its top ``flat`` onto a block
(lower) held on its bottom ``flat``; both are rollers (``u_y`` imposed, one
node held in x), the contact is frictionless, so the stress is uniaxial:
plane strain with ``eps_zz = 0`` and ``sigma_xx = 0`` gives
``sigma_yy = E / (1 - nu^2) eps_yy``, and the blocks (width ``w``, heights
``h1``, ``h2``) in series carry

.. math:: F = w\\,d \\Big/ \\Big(\\frac{h_1 (1 - \\nu^2)}{E_1} + \\frac{h_2 (1 - \\nu^2)}{E_2}\\Big).

With the numbers below ``F = 128``: the upper support pulls with ``-128``, the
lower pushes with ``+128``; their sum (what ``reaction("flat")`` used to
return) is 0.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import fecontact as fc
from fecontact.cli import main

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

NU, D, W, H1, H2 = 0.3, 0.01, 1.0, 1.0, 0.5
E1 = E2 = 17472.0           # one material: no sliding at the interface, a patch test
#: the uniaxial plane-strain force of the two blocks in series
FORCE = W * D / (H1 * (1 - NU**2) / E1 + H2 * (1 - NU**2) / E2)


def block_msh(path: Path, y0: float, height: float, flat: str, size: float) -> Path:
    """A Gmsh triangle mesh of ``[0, W] x [y0, y0 + height]``: groups ``flat`` (the ``flat`` edge,
    "top" or "bottom"), ``face`` (the opposite edge) and ``sides``."""
    import gmsh

    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add(path.stem)
        surface = gmsh.model.occ.addRectangle(0.0, y0, 0.0, W, height)
        gmsh.model.occ.synchronize()
        y_flat = y0 + height if flat == "top" else y0
        groups: dict = {}
        for _, curve in gmsh.model.getEntities(1):
            box = gmsh.model.getBoundingBox(1, curve)
            horizontal = abs(box[4] - box[1]) < 1e-5
            name = ("sides" if not horizontal else "flat" if abs(box[1] - y_flat) < 1e-5 else "face")
            groups.setdefault(name, []).append(curve)
        for name, curves in groups.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="block")
        gmsh.option.setNumber("Mesh.MeshSizeMax", size)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return path


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    """The two mesh files: upper ``flat`` on top, lower ``flat`` at the bottom; non-matching sizes."""
    folder = tmp_path_factory.mktemp("flat_twice")
    return (block_msh(folder / "upper.msh", H2, H1, "top", 0.23),
            block_msh(folder / "lower.msh", 0.0, H2, "bottom", 0.17))


@pytest.fixture(scope="module")
def result(meshes):
    upper_mesh, lower_mesh = (fc.load_mesh(p) for p in meshes)
    upper = (fc.Body("upper", upper_mesh, "P1", fc.LinearElastic(E=E1, nu=NU))
             .fix("flat", y=-D).fix(point=(0.0, H2 + H1), x=0.0, name="upper-pin"))
    lower = (fc.Body("lower", lower_mesh, "P1", fc.LinearElastic(E=E2, nu=NU))
             .fix("flat", y=0.0).fix(point=(0.0, 0.0), x=0.0, name="lower-pin"))
    model = fc.Model([upper, lower], [fc.Contact(upper.surface("face"), lower.surface("face"),
                                                  name="interface")])
    out = model.solve(steps=1)
    assert out.converged
    return out


def test_the_meshes_share_the_group_name(meshes):
    assert all("flat" in fc.load_mesh(p).boundaries for p in meshes)


def test_a_name_on_two_bodies_is_refused_with_the_qualified_names(result):
    with pytest.raises(KeyError) as err:
        result.reaction("flat")
    message = err.value.args[0]
    assert "\n" not in message
    assert message == ("support 'flat' exists on bodies 'upper' and 'lower'; "
                       "use 'upper.flat' or 'lower.flat'")


def test_qualified_names_give_each_bodys_reaction(result):
    upper, lower = result.reaction("upper.flat"), result.reaction("lower.flat")
    assert FORCE == pytest.approx(128.0)
    # each support carries the whole force, in opposite directions (the old sum was 0)
    assert upper[1] == pytest.approx(-FORCE, rel=1e-6)
    assert lower[1] == pytest.approx(FORCE, rel=1e-6)
    # frictionless rollers: no shear anywhere, the pins hold nothing
    assert abs(upper[0]) + abs(lower[0]) < 1e-8 * FORCE
    for pin in ("upper-pin", "lower-pin"):
        assert np.abs(result.reaction(pin)).max() < 1e-8 * FORCE
    # each body in equilibrium with the contact force on it
    assert result.pair("interface").force[1] == pytest.approx(FORCE, rel=1e-9)


def test_unique_names_still_work_unqualified_and_qualified(result):
    np.testing.assert_array_equal(result.reaction("upper-pin"), result.reaction("upper.upper-pin"))
    with pytest.raises(KeyError, match="no support 'middle'; supports: upper.flat, upper-pin, "
                                       "lower.flat, lower-pin"):
        result.reaction("middle")


CASE = """
name = "flat-twice"
[[bodies]]
name = "upper"
element = "P1"
mesh = {{ file = "{upper}" }}
material = {{ E = {E1}, nu = {NU}, model = "plane_strain" }}
dirichlet = [{{ boundary = "flat", component = "y", value = {mD} }},
             {{ name = "upper-pin", point = [0.0, {top}], component = "x" }}]
[[bodies]]
name = "lower"
element = "P1"
mesh = {{ file = "{lower}" }}
material = {{ E = {E2}, nu = {NU}, model = "plane_strain" }}
dirichlet = [{{ boundary = "flat", component = "y" }},
             {{ name = "lower-pin", point = [0.0, 0.0], component = "x" }}]
[[contact]]
name = "interface"
slave = {{ body = "upper", boundary = "face" }}
master = {{ body = "lower", boundary = "face" }}
[steps]
count = 1
"""


def test_summary_names_shared_supports_by_body(meshes, case_file, tmp_path):
    upper, lower = meshes
    path = case_file(CASE.format(upper=upper, lower=lower, E1=E1, E2=E2, NU=NU, mD=-D, top=H1 + H2))
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    reaction = summary["reaction"]
    assert sorted(reaction) == ["lower-pin", "lower.flat", "upper-pin", "upper.flat"]
    assert reaction["upper.flat"][1] == pytest.approx(-FORCE, rel=1e-6)
    assert reaction["lower.flat"][1] == pytest.approx(FORCE, rel=1e-6)
    assert summary["steps"][-1]["reaction"] == reaction
