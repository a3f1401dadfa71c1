"""Interference fits ramped in: ``fc.Contact(..., interference="shrink" or an amplitude)``.

The references are closed forms: the Lamé interface pressure of two elastic
cylinders pressed together by a radial interference (plane strain), and the
uniform stress of two laterally constrained blocks overlapping by ``delta``
(uniaxial strain).  Both problems are linear, so the contact pressure at the
ramp's level ``a`` is ``a`` times the pressure of the whole interference.
"""

import json
import logging
import signal
import tempfile
from pathlib import Path

import numpy as np
import pytest
import skfem

import fecontact as fc
from conftest import assert_jacobian_matches_differences, contact_accuracy_script
from fecontact.cli import EXIT_INPUT, main


def lame_pressure(E_shaft, nu_shaft, E_hub, nu_hub, bore, c, outer, delta):
    r"""Interface pressure of a hub (``c <= r <= outer``) on a shaft (``bore <= r <= c``;
    ``bore = 0``: solid) with radial interference ``delta``, plane strain.

    Closing the interference, ``delta = u_hub(c) - u_shaft(c)`` with
    ``u_hub = (p c / E'_h) ((outer^2 + c^2) / (outer^2 - c^2) + nu'_h)`` and
    ``u_shaft = -(p c / E'_s) ((c^2 + bore^2) / (c^2 - bore^2) - nu'_s)``,
    ``E' = E / (1 - nu^2)``, ``nu' = nu / (1 - nu)``.
    """
    def compliance(E, nu, ratio, sign):
        return c * (ratio + sign * nu / (1.0 - nu)) * (1.0 - nu**2) / E
    hub = compliance(E_hub, nu_hub, (outer**2 + c**2) / (outer**2 - c**2), 1.0)
    shaft = compliance(E_shaft, nu_shaft, (c**2 + bore**2) / (c**2 - bore**2), -1.0)
    return delta / (hub + shaft)


def uniaxial_strain_pressure(delta, layers, nu):
    """Pressure of stacked blocks ``[(E, height), ...]`` overlapping by ``delta``, laterally held."""
    modulus = [E * (1 - nu) / ((1 + nu) * (1 - 2 * nu)) for E, _ in layers]
    return delta / sum(h / M for (_, h), M in zip(layers, modulus))


def quarter_annulus(r0, r1, nr, nt):
    """Structured quadrilaterals of the quarter annulus ``r0 <= r <= r1``, ``nt`` arcs; boundaries
    ``inner``, ``outer``, ``xsym`` (x = 0), ``ysym`` (y = 0)."""
    m = skfem.MeshQuad.init_tensor(np.linspace(r0, r1, nr + 1), np.linspace(0, np.pi / 2, nt + 1))
    r, theta = m.p
    m = skfem.MeshQuad(np.array([r * np.cos(theta), r * np.sin(theta)]), m.t)
    dr = 0.5 * (r1 - r0) / nr
    return m.with_boundaries({"inner": lambda x: np.hypot(*x) < r0 + dr,
                              "outer": lambda x: np.hypot(*x) > r1 - dr,
                              "xsym": lambda x: np.abs(x[0]) < 1e-9, "ysym": lambda x: np.abs(x[1]) < 1e-9})


def symmetric(body):
    return body.fix("xsym", x=0.0, name=f"{body.name}-xsym").fix("ysym", y=0.0, name=f"{body.name}-ysym")


#: the structured press fit: hollow steel shaft 0.5 <= r <= 1, aluminium hub 1 <= r <= 2, delta = 1e-3
FIT = {"bore": 0.5, "c": 1.0, "outer": 2.0, "delta": 1e-3, "shaft": {"E": 200e3, "nu": 0.3},
       "hub": {"E": 70e3, "nu": 0.33}}


def structured_fit(**options):
    """Quarter model of the structured press fit (23 Q1 arcs on the shaft, 32 on the hub)."""
    c, delta = FIT["c"], FIT["delta"]
    shaft = symmetric(fc.Body("shaft", quarter_annulus(FIT["bore"], c + delta / 2, 6, 23), "Q1",
                              fc.LinearElastic(**FIT["shaft"])))
    hub = symmetric(fc.Body("hub", quarter_annulus(c - delta / 2, FIT["outer"], 10, 32), "Q1",
                            fc.LinearElastic(**FIT["hub"])))
    pair = fc.Contact(hub.surface("inner"), shaft.surface("outer"), name="fit", **options)
    return fc.Model([shaft, hub], [pair])


def blocks(kind="tri", inset=0.0, **options):
    """Two laterally held blocks, the upper (E = 3e3) overlapping the lower (E = 1e3) by 0.01,
    5 and 8 elements along the interface (2D), or 3 x 3 and 4 x 4 (3D tetrahedra); ``inset``
    narrows the upper one (its edges then lie inside the lower one's top, not on its edges)."""
    delta, nu = 0.01, 0.3
    if kind == "tri":
        def mesh(n, y0, a=0.0):
            m = skfem.MeshTri.init_tensor(np.linspace(a, 1 - a, n + 1), np.linspace(y0, y0 + 0.5, 3))
            return m.with_defaults()
        held = {"left": "x", "right": "x"}
    else:
        def mesh(n, y0, a=0.0):
            g = np.linspace(a, 1 - a, n + 1)
            m = skfem.MeshTet.init_tensor(g, g, np.linspace(y0, y0 + 0.5, 3))
            return m.with_boundaries({"xsides": lambda x: (x[0] < a + 1e-9) | (x[0] > 1 - a - 1e-9),
                                      "ysides": lambda x: (x[1] < a + 1e-9) | (x[1] > 1 - a - 1e-9),
                                      "bottom": lambda x: x[2] < y0 + 1e-9,
                                      "top": lambda x: x[2] > y0 + 0.5 - 1e-9})
        held = {"xsides": "x", "ysides": "y"}
    axis = "y" if kind == "tri" else "z"
    lower = fc.Body("lower", mesh(5 if kind == "tri" else 3, 0.0), "P1",
                    fc.LinearElastic(E=1e3, nu=nu)).fix("bottom", **{axis: 0.0})
    upper = fc.Body("upper", mesh(8 if kind == "tri" else 4, 0.5 - delta, inset), "P1",
                    fc.LinearElastic(E=3e3, nu=nu)).fix("top", **{axis: 0.0})
    for body in (lower, upper):
        for boundary, component in held.items():
            body.fix(boundary, **{component: 0.0}, name=f"{body.name}-{boundary}")
    pair = fc.Contact(upper.surface("bottom"), lower.surface("top"), name="fit", **options)
    return fc.Model([lower, upper], [pair]), uniaxial_strain_pressure(delta, [(1e3, 0.5), (3e3, 0.5)], nu)


def pressures(result, name="fit"):
    """Nodal pressures of each output level, shape (levels, m), and the levels."""
    levels = np.array([r.load for r in result.records])
    return np.array([result.at(k).contact(name).pressure for k in range(levels.size)]), levels


def assert_proportional(p, levels, rtol=1e-6):
    """Each level's pressures are its level times the final level's (the problem is linear)."""
    expected = levels[:, None] / levels[-1] * p[-1]
    assert np.abs(p - expected).max() <= rtol * np.abs(p[-1]).max(), np.abs(p - expected).max()


# --- press fits against Lamé -------------------------------------------------------------------

@pytest.mark.parametrize("bore_chords, formulation, nodal", [(32, "node_to_segment", 1e-6),
                                                             (20, "mortar", 1e-4)])
def test_press_fit_on_gmsh_meshes_follows_the_ramp_to_the_lame_pressure(bore_chords, formulation, nodal):
    """The bundled shrink fit (docs/make_contact_accuracy.py: hub on a solid shaft, steel, quarter
    model, Gmsh triangles, 32 chords on the shaft's arc): the default formulation, node-to-segment
    on matching circles, mortar on non-matching ones.

    Below ``a = 1`` the circles still overlap at equilibrium; on non-matching meshes the mortar
    segments of overlapping curves differ from those of touching ones, and the nodal pressures are
    proportional to 2.6e-5 (of the largest), their mean to round-off."""
    acc = contact_accuracy_script()
    F = acc.FIT
    b, c, delta = F["b"], F["c"], F["delta"]
    material = fc.LinearElastic(E=F["E"], nu=F["nu"], plane="strain")
    with tempfile.TemporaryDirectory() as tmp:
        shaft = fc.Body("shaft", fc.load_mesh(acc.shaft_mesh(Path(tmp) / "s.msh", 32, b + delta / 2, 0.1)),
                        "P1", material)
        hub = fc.Body("hub", fc.load_mesh(acc.hub_mesh(Path(tmp) / "h.msh", bore_chords, b - delta / 2, c,
                                                       0.1)), "P1", material)
    symmetric(shaft), symmetric(hub)
    pair = fc.Contact(hub.surface("bore"), shaft.surface("surface"), name="fit", interference="shrink")
    assert pair.method == formulation
    result = fc.Model([shaft, hub], [pair]).solve(steps=4)
    assert result.converged
    lame = lame_pressure(F["E"], F["nu"], F["E"], F["nu"], 0.0, b, c, delta)
    assert lame == pytest.approx(acc.lame_pressure(F["E"], F["nu"], b, c, delta), rel=1e-12)
    p, levels = pressures(result)
    area = result.contact("fit").area
    mean = p @ area / area.sum()
    np.testing.assert_allclose(levels, [0.25, 0.5, 0.75, 1.0])
    assert abs(mean[-1] / lame - 1.0) <= 0.01                                 # 0.20 %, 0.33 %
    assert np.abs(p[-1] / lame - 1.0).max() <= 0.015                          # 0.95 %, 1.21 %
    # the pair's force on the quarter hub: the pressure's resultant p b along x and y
    force = result.pair("fit").force
    assert np.abs(np.asarray(force) / (lame * b) - 1.0).max() <= 0.01
    assert_proportional(p, levels, nodal)
    np.testing.assert_allclose(mean / levels, mean[-1], rtol=1e-7)
    assert np.all(np.diff(p, axis=0) > 0.0)                                    # monotone, no node open
    assert np.all(result.contact("fit").status != fc.Status.OPEN)


def test_structured_press_fit_of_two_materials_every_node_within_one_percent_of_lame():
    """Hollow steel shaft in an aluminium hub, structured Q1 meshes not matching at the interface
    (23 and 32 arcs: mortar by default), two load levels."""
    model = structured_fit(interference="shrink")
    result = model.solve(steps=2)
    assert result.converged and model.contacts[0].method == "mortar"
    lame = lame_pressure(*FIT["shaft"].values(), *FIT["hub"].values(), FIT["bore"], FIT["c"], FIT["outer"],
                         FIT["delta"])
    p, levels = pressures(result)
    assert np.abs(p / (levels[:, None] * lame) - 1.0).max() <= 0.01        # 0.48 %
    assert_proportional(p, levels, 1e-6)                                    # 2.9e-7
    # the reported gaps are those the contact conditions see: closed at a = 1/2 as at a = 1
    assert np.abs(result.at(0).contact("fit").gap).max() <= 1e-9 * FIT["delta"]


def test_axisymmetric_press_fit_follows_the_ramp_to_the_lame_pressure():
    """The same shaft and hub as a ring of height 0.2 in the (r, z) plane, held at z = 0 and 0.2
    (plane strain along the axis, so Lamé's pressure is the plane-strain one): every node within
    0.5 % of ``a`` times Lamé (0.18 % measured), and the total radial force ``a p 2 pi c h``."""
    c, delta, h = FIT["c"], FIT["delta"], 0.2

    def ring(r0, r1, nr, nz):
        mesh = skfem.MeshQuad.init_tensor(np.linspace(r0, r1, nr + 1), np.linspace(0.0, h, nz + 1))
        return mesh.with_defaults()
    shaft = fc.Body("shaft", ring(FIT["bore"], c + delta / 2, 8, 3), "Q1",
                    fc.LinearElastic(**FIT["shaft"], plane="axisymmetric"))
    hub = fc.Body("hub", ring(c - delta / 2, FIT["outer"], 16, 4), "Q1",
                  fc.LinearElastic(**FIT["hub"], plane="axisymmetric"))
    for body in (shaft, hub):
        body.fix("bottom", y=0.0, name=f"{body.name}-bottom").fix("top", y=0.0, name=f"{body.name}-top")
    pair = fc.Contact(hub.surface("left"), shaft.surface("right"), name="fit", interference="shrink")
    result = fc.Model([shaft, hub], [pair]).solve(steps=2)
    lame = lame_pressure(*FIT["shaft"].values(), *FIT["hub"].values(), FIT["bore"], c, FIT["outer"], delta)
    p, levels = pressures(result)
    assert np.abs(p / (levels[:, None] * lame) - 1.0).max() <= 0.005
    for k, a in enumerate(levels):
        radial = result.at(k).pair("fit").force[0]
        assert radial == pytest.approx(a * lame * 2 * np.pi * c * h, rel=0.005)


def test_without_the_option_the_whole_overlap_acts_at_the_first_level():
    """Today's behaviour stays: with ``penetration_tolerance`` only, the full pressure at a = 1/2."""
    model, exact = blocks(penetration_tolerance=0.02)
    p, _ = pressures(model.solve(steps=2))
    assert np.abs(p / exact - 1.0).max() <= 1e-8


# --- blocks: exact uniform stress --------------------------------------------------------------

def test_blocks_2d_follow_a_given_amplitude():
    """An amplitude that removes half the overlap at once, then the rest, on non-matching 2D blocks
    (mortar): the uniform stress ``a(t) M delta / sum(h)``.  Exact at the end of the ramp; before
    it, the total force exact and each node within 0.5 % (0.15 % measured): the blocks still overlap
    at equilibrium, and a mortar row's weighted gap of a non-zero gap changes as its slave segments
    stretch, a tangential part of the contact force that vanishes with the gap."""
    amplitude = fc.Amplitude((0.0, 0.5, 1.0), (0.5, 0.5, 1.0))
    model, exact = blocks(interference=amplitude)
    assert model.contacts[0].method == "mortar"
    result = model.solve(levels=[0.25, 0.5, 0.75, 1.0])
    p, levels = pressures(result)
    a = np.array([amplitude(t) for t in levels])
    assert np.abs(p[-1] / exact - 1.0).max() <= 1e-8
    assert np.abs(p / (a[:, None] * exact) - 1.0).max() <= 0.005
    forces = [result.at(k).pair("fit").force[1] for k in range(levels.size)]
    np.testing.assert_allclose(forces, a * exact, rtol=1e-7)


def test_blocks_3d_mortar_on_tetrahedra():
    """3D mortar (weighted gaps): exact at the end of the ramp; halfway, the total force exact and
    each node within 1 % (0.3 % measured; the bodies still overlap by delta/2 at equilibrium)."""
    model, exact = blocks("tet", interference="shrink")
    assert model.contacts[0].method == "mortar"
    result = model.solve(steps=2)
    p, _ = pressures(result)
    assert np.abs(p[1] / exact - 1.0).max() <= 1e-6
    assert np.abs(p[0] / (0.5 * exact) - 1.0).max() <= 0.01
    assert result.at(0).pair("fit").force[2] == pytest.approx(0.5 * exact, rel=1e-6)


def test_quadratic_tetrahedra_on_a_rigid_plane_weighted_rows():
    """P2 tetrahedra: the contact rows are weighted sums of nodal gaps (a multiplier map); each
    row's and each node's own initial gap are shifted, the uniform stress exact at every level."""
    delta, nu = 0.01, 0.3
    g = np.linspace(0, 1, 3)
    mesh = skfem.MeshTet.init_tensor(g, g, np.linspace(-delta, 1 - delta, 3)).with_boundaries({
        "xsides": lambda x: (x[0] < 1e-9) | (x[0] > 1 - 1e-9),
        "ysides": lambda x: (x[1] < 1e-9) | (x[1] > 1 - 1e-9),
        "bottom": lambda x: x[2] < -delta + 1e-9, "top": lambda x: x[2] > 1 - delta - 1e-9})
    block = fc.Body("block", mesh, "P2", fc.LinearElastic(E=1e3, nu=nu)).fix("top", z=0.0)
    block.fix("xsides", x=0.0, name="x-sides").fix("ysides", y=0.0, name="y-sides")
    pair = fc.Contact(block.surface("bottom"), fc.RigidPlane(point=(0, 0, 0), normal=(0, 0, 1)),
                      name="fit", interference="shrink")
    result = fc.Model([block], [pair]).solve(steps=2)
    assert result.problem.pairs[0].slave.multiplier_map is not None
    exact = uniaxial_strain_pressure(delta, [(1e3, 1.0)], nu)
    p, levels = pressures(result)
    assert np.abs(p / (levels[:, None] * exact) - 1.0).max() <= 1e-9


# --- the shifted gap, the Jacobian, the checks -------------------------------------------------

def test_shifted_gap_at_the_start_and_end_of_the_ramp():
    """Initial gaps: overlapping nodes start touching (gap 0), nodes apart keep their gap; at the
    end of the ramp the gaps are the measured ones."""
    mesh = skfem.MeshTri().refined(2).with_defaults()
    block = fc.Body("block", mesh.translated((0.0, -0.01)), "P1", fc.LinearElastic(E=1e3, nu=0.3))
    block.fix("top", x=0.0, y=0.0)
    floor = fc.RigidLine(point=(0.5, -0.01), normal=(0.04, 1.0))      # bottom: half in, half out
    plain = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, penetration_tolerance=0.1)])
    ramped = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, interference="shrink")])
    g0 = plain.assemble().problem.initial_state().gap
    problem = ramped.assemble().problem
    assert (g0 < 0).sum() >= 2 and (g0 > 0).sum() >= 2
    u = np.zeros(problem.system.n_dofs)
    for t, a in ((0.0, 0.0), (0.3, 0.3), (1.0, 1.0), (2.0, 1.0)):
        gap = problem.kinematics(u, t, None).local.gap
        np.testing.assert_allclose(gap, g0 - (1.0 - a) * np.minimum(g0, 0.0), rtol=0, atol=1e-15)
    assert ramped.check() == [] and plain.check() == []
    # without either option the overlap is refused, and the message names both ways out
    finding, = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, name="f")]).check()
    assert "initial penetration" in finding and "interference" in finding and "\n" not in finding


@pytest.mark.parametrize("make", [lambda: structured_fit(interference="shrink"),
                                  lambda: blocks("tri", interference="shrink")[0],
                                  lambda: blocks("tet", 0.05, interference="shrink")[0]],
                         ids=["2d-mortar-curved", "2d-mortar-flat", "3d-mortar"])
def test_jacobian_with_the_ramp_matches_finite_differences(make):
    """From the converged state halfway up the ramp (the surfaces overlapping by half the
    interference) to the next level: the shift is constant in ``u``, the Jacobian that of ``g``."""
    result = make().solve(levels=[0.5])
    problem, state = result.problem, result.state
    x = problem.unknowns(state)
    ev = problem.increment(0.75, state).evaluate(x)
    assert_jacobian_matches_differences(problem, 0.75, state, x, ev)


def test_dynamics_refuses_the_ramp_in_one_line():
    mesh = skfem.MeshTri().refined(1).with_defaults()
    block = fc.Body("block", mesh.translated((0.0, -0.01)), "P1",
                    fc.LinearElastic(E=1e3, nu=0.3, density=1.0)).fix("top", x=0.0, y=0.0)
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    model = fc.Model([block], [fc.Contact(block.surface("bottom"), floor, name="f", interference="shrink")])
    with pytest.raises(ValueError) as err:
        model.solve_dynamic(dt=0.01, t_end=0.02)
    assert str(err.value).count("\n") == 0
    assert "contact 'f'" in str(err.value) and "dynamic" in str(err.value)


@pytest.mark.parametrize("value, words", [
    ("shrnk", "interference = 'shrnk'; give 'shrink' or an fc.Amplitude"),
    (0.5, "interference must be 'shrink' or an fc.Amplitude, got float"),
    (fc.Amplitude((0.0, 1.0), (0.0, 1.5)), "interference amplitude values must lie in [0, 1]"),
    (fc.Amplitude((0.0, 1.0), (0.0, float("nan"))), "interference amplitude needs finite times")])
def test_bad_values_are_one_line(value, words):
    mesh = skfem.MeshTri().with_defaults()
    block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3))
    floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    with pytest.raises(ValueError) as err:
        fc.Contact(block.surface("bottom"), floor, interference=value)
    assert words in str(err.value) and "\n" not in str(err.value)


# --- case files: the key, bad values, restart --------------------------------------------------

BLOCKS = """
name = "blocks"
[[bodies]]
name = "lower"
element = "P1"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 0.5, nx = 5, ny = 2 }}
material = {{ E = 1000.0, nu = 0.3 }}
[[bodies.dirichlet]]
boundary = "bottom"
component = "y"
[[bodies.dirichlet]]
name = "lower-left"
boundary = "left"
component = "x"
[[bodies.dirichlet]]
name = "lower-right"
boundary = "right"
component = "x"
[[bodies]]
name = "upper"
element = "P1"
mesh = {{ generator = "rectangle", x0 = 0.0, x1 = 1.0, y0 = 0.49, y1 = 0.99, nx = 8, ny = 2 }}
material = {{ E = 3000.0, nu = 0.3 }}
[[bodies.dirichlet]]
name = "upper-top"
boundary = "top"
component = "y"
[[bodies.dirichlet]]
name = "upper-left"
boundary = "left"
component = "x"
[[bodies.dirichlet]]
name = "upper-right"
boundary = "right"
component = "x"
[[contact]]
name = "fit"
slave = {{ body = "upper", boundary = "bottom" }}
master = {{ body = "lower", boundary = "top" }}
interference = {interference}
[steps]
count = {steps}
"""


def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _summary(out):
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("interference", ['"shrink"', "[[0.0, 0.0], [1.0, 1.0]]"])
def test_case_file_ramps_the_overlap_in(capsys, case_file, tmp_path, interference):
    path = case_file(BLOCKS.format(interference=interference, steps=2))
    code, _, err = cli(capsys, "run", path, "--out", tmp_path / "o", "--quiet")
    assert code == 0, err
    exact = uniaxial_strain_pressure(0.01, [(1e3, 0.5), (3e3, 0.5)], 0.3)       # width 1
    steps = _summary(tmp_path / "o")["steps"]
    for step in steps:
        assert step["reaction"]["bottom"][1] == pytest.approx(step["load"] * exact, rel=1e-7)


@pytest.mark.parametrize("interference, words", [
    ('"shrnk"', ["'contact.0.interference'", "shrink"]),
    ("[[0.0, 0.0], [1.0, 1.5]]", ["'contact.0.interference'", "must lie in [0, 1]"]),
    ("[[1.0, 0.0], [0.0, 1.0]]", ["'contact.0.interference'", "strictly increasing"]),
    ("0.5", ["'contact.0.interference' must be a string or an array, got a number 0.5"])])
def test_case_file_bad_values_are_one_line(capsys, case_file, interference, words):
    path = case_file(BLOCKS.format(interference=interference, steps=2))
    code, _, err = cli(capsys, "check", path)
    assert code == EXIT_INPUT and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)


def test_case_file_dynamics_refuses_the_ramp(capsys, case_file):
    text = BLOCKS.format(interference='"shrink"', steps=2).replace("nu = 0.3 }", "nu = 0.3, density = 1.0 }")
    text = text.replace("[steps]\ncount = 2", "[dynamics]\ndt = 0.01\nt_end = 0.02")
    code, _, err = cli(capsys, "check", case_file(text))
    assert code == EXIT_INPUT and len(err.strip().splitlines()) == 1, err
    assert "'contact.0.interference'" in err and "dynamic" in err


def test_restarted_run_continues_the_ramp(capsys, case_file, tmp_path):
    """Interrupted after step 1 of 4 and restarted: the initial gaps are measured again from the
    reference configuration (the fingerprint guards it), and the pressures are the uninterrupted run's."""
    path = case_file(BLOCKS.format(interference='"shrink"', steps=4))
    full, part = tmp_path / "full", tmp_path / "part"
    assert cli(capsys, "run", path, "--out", full, "--quiet")[0] == 0

    class Interrupt(logging.Handler):
        def emit(self, record):
            words = record.getMessage().split()
            if words[:1] == ["step"] and int(words[1].split("/")[0]) == 2:
                signal.raise_signal(signal.SIGTERM)
    handler, logger = Interrupt(), logging.getLogger("fecontact.analysis.static")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        code = cli(capsys, "run", path, "--out", part, "--quiet")[0]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    assert code == 128 + signal.SIGTERM and len(_summary(part)["steps"]) == 1
    assert cli(capsys, "run", path, "--restart", part, "--quiet")[0] == 0
    a, b = _summary(full)["steps"], _summary(part)["steps"]
    assert [s["load"] for s in b] == [0.25, 0.5, 0.75, 1.0]
    for x, y in zip(a, b):
        assert y["reaction"]["bottom"][1] == pytest.approx(x["reaction"]["bottom"][1], rel=1e-9, abs=0)
