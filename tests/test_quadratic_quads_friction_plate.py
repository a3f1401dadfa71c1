"""code_aster's SSNV128 on eight-node quadrilaterals: a plate pressed and pushed on a rigid plane with friction.

The GRECO 2D benchmark of frictional contact (code_aster validation
manual V6.04.128, "SSNV128 - Plate with contact and friction on a rigid
plane"; test files ``astest/ssnv128*.comm``): a square plate of side
a = 40 mm (E = 1.3e11 Pa, nu = 0.2, plane strain) rests on a rigid plane
with Coulomb friction mu = 1. Its face x = a is a symmetry plane (u_x = 0),
its corner (a, 0) is held (u_x = u_y = 0), a pressure of 5e7 Pa acts on its
top and one of 15e7 Pa on its face x = 0, both ramped together. The
published reference (``VALE_REFE``, from the GRECO results, 5 % tolerance in
code_aster's tests) is the horizontal displacement of the contact face at
x = 0, 1.25, 5, 7.5 and 11.25 mm: 2.86e-5, 2.72e-5, 2.28e-5, 1.98e-5 and
1.5e-5 m. The reference values are from the benchmark; nothing here is
from this package's output.

Measured on 16 x 16 eight-node quadrilaterals: within 2.8 % at every point
(2.7 % at x = 11.25 mm, where code_aster's own QUAD4 result is 4.1 % above
the reference), and the same on unstructured Gmsh quad8 meshes.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import fecontact as fc
from fecontact.mesh import rectangle

try:
    pytest.importorskip("gmsh")
except OSError as error:        # the wheel's library links the system's X11 and OpenGL libraries
    pytest.skip(f"gmsh is installed but its library does not load: {error}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from contact_accuracy_meshes import gmsh_model  # noqa: E402

SIDE = 0.04
#: x of the reference points A..E on the contact face -> published u_x (m)
REFERENCE = {0.0: 2.86e-5, 0.00125: 2.72e-5, 0.005: 2.28e-5, 0.0075: 1.98e-5, 0.01125: 1.5e-5}


def gmsh_plate(path: Path) -> Path:
    """Unstructured eight-node quadrilaterals of the plate (Gmsh's quasi-structured quadrilaterals,
    size 4 mm, quad8), with vertices at the reference points; boundaries ``bottom``, ``right``,
    ``top``, ``left``."""
    with gmsh_model("ssnv128") as gmsh:
        geo = gmsh.model.geo
        xs = [*REFERENCE, SIDE]
        bottom = [geo.addPoint(x, 0.0, 0.0) for x in xs]
        top_right, top_left = geo.addPoint(SIDE, SIDE, 0.0), geo.addPoint(0.0, SIDE, 0.0)
        lines = {"bottom": [geo.addLine(a, b) for a, b in zip(bottom[:-1], bottom[1:])],
                 "right": [geo.addLine(bottom[-1], top_right)],
                 "top": [geo.addLine(top_right, top_left)],
                 "left": [geo.addLine(top_left, bottom[0])]}
        loop = geo.addCurveLoop([c for name in ("bottom", "right", "top", "left") for c in lines[name]])
        surface = geo.addPlaneSurface([loop])
        geo.synchronize()
        for name, curves in lines.items():
            gmsh.model.addPhysicalGroup(1, curves, name=name)
        gmsh.model.addPhysicalGroup(2, [surface], name="plate")
        # the quasi-structured algorithm moves vertices after placing the midside nodes from its
        # parametrisation, leaving 19 curved elements folded: on the flat plate the midside nodes
        # are put at the edge midpoints instead (Mesh.SecondOrderLinear)
        for key, value in (("Mesh.MeshSizeMax", 0.004), ("Mesh.Algorithm", 11), ("Mesh.RecombineAll", 1),
                           ("Mesh.ElementOrder", 2), ("Mesh.SecondOrderIncomplete", 1),
                           ("Mesh.SecondOrderLinear", 1)):
            gmsh.option.setNumber(key, value)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    return path


def contact_face_displacement(mesh, element=None, steps: int = 5) -> np.ndarray:
    """u_x at the reference points of SSNV128 (their order in ``REFERENCE``), solved in ``steps`` increments."""
    plate = fc.Body("plate", mesh, element, fc.LinearElastic(E=1.3e11, nu=0.2, plane="strain"))
    assert plate.part.element == "Q2S"
    plate.fix("right", x=0.0).fix(point=(SIDE, 0.0), x=0.0, y=0.0, name="corner")
    plate.pressure("top", 5e7).pressure("left", 15e7)
    pair = fc.Contact(plate.surface("bottom"), fc.RigidLine((0.0, 0.0), (0.0, 1.0)), fc.Coulomb(1.0))
    solution = fc.Model([plate], [pair]).solve(steps=steps)
    assert solution.converged
    x, u = plate.part.node_coords, solution.body_displacement("plate")
    nodes = [int(np.flatnonzero(np.hypot(x[0] - xr, x[1]) < 1e-9)[0]) for xr in REFERENCE]
    return u[0, nodes]


def test_ssnv128_on_structured_eight_node_quadrilaterals():
    """16 x 16 eight-node quadrilaterals (2.5 mm; B and E are midside nodes), five increments."""
    u = contact_face_displacement(rectangle(0.0, SIDE, 0.0, SIDE, 16, 16, element="quad"), "Q2S")
    np.testing.assert_allclose(u, list(REFERENCE.values()), rtol=0.05)
    assert np.all(np.diff(u) < 0)                  # the push fades away from the loaded face


def test_ssnv128_on_a_gmsh_quad8_file(tmp_path):
    """The same on an unstructured Gmsh quad8 file, whose element (Q2S) the body gets by default."""
    u = contact_face_displacement(gmsh_plate(tmp_path / "ssnv128.msh"))
    np.testing.assert_allclose(u, list(REFERENCE.values()), rtol=0.05)
