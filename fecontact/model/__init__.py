"""The Python model API: bodies, contact pairs, models, and their solutions.

The primary way to set up an analysis (case files are built through the
same calls, :mod:`fecontact.case.build`)::

    import skfem
    import fecontact as fc

    mesh = skfem.Mesh.load("half_disc.msh")          # Gmsh physical groups -> mesh.boundaries
    disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=1e4, nu=0.3, plane="plane_strain"))
    disc.fix("top", y=-0.02)                         # imposed displacement on a named boundary
    disc.fix(point=(0.0, 1.0), x=0.0)                # point support
    pair = fc.Contact(disc.surface("contact"),
                      fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)), fc.Frictionless())
    result = fc.Model([disc], [pair]).solve(steps=4)
    result.converged, result.reaction("top"), result.pressure

Modules: :mod:`~fecontact.model.meshes` (what a body's mesh may be),
:mod:`~fecontact.model.body` (:class:`Body`), :mod:`~fecontact.model.materials` (:func:`LinearElastic`),
:mod:`~fecontact.model.contact` (:class:`Contact`),
:mod:`~fecontact.model.model` (:class:`Model`),
:mod:`~fecontact.model.solution` (:class:`Solution`).
"""

from .body import Body, BodyLoad, SurfaceRef
from .materials import LinearElastic
from .contact import Contact, Tie
from .model import Assembly, Model, load_levels
from .solution import PairFields, Solution

__all__ = ["Body", "BodyLoad", "LinearElastic", "SurfaceRef", "Contact", "Tie", "Assembly", "Model",
           "load_levels", "PairFields", "Solution"]
