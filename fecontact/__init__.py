r"""fecontact: finite-element frictional contact mechanics on scikit-fem.

Elastic bodies are scikit-fem meshes (triangles, quadrilaterals, tetrahedra,
hexahedra; P1/P2/Q1); contact between a slave surface and a master surface
(another body, or a rigid line, circle, plane or sphere) is discretised
node-to-segment (2D), node-to-facet (3D) or by mortar; tractions satisfy the
Signorini conditions and a friction law through a return map inside an
Alart–Curnier formulation, solved by a semismooth Newton method whose
generalised Jacobian is assembled in ``scipy.sparse``.

The data flow of one increment follows the subpackages:

``mesh`` -> ``bodies`` -> ``contact`` (search, projection, kinematics) ->
``friction`` (return maps) -> ``solve`` (residual, Jacobian, backends, Newton)
-> ``analysis`` (load stepping, dynamics) -> ``io`` / ``case`` -> ``run``.

Building and solving a model in Python (:mod:`fecontact.model`)::

    import skfem
    import fecontact as fc

    mesh = skfem.Mesh.load("meshes/half_disc.msh")   # Gmsh physical groups -> boundaries
    disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=1e4, nu=0.3, plane="strain"))
    disc.fix("top", y=-0.02)
    pair = fc.Contact(disc.surface("contact"),
                      fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0)), fc.Frictionless())
    result = fc.Model([disc], [pair]).solve(steps=4)
    result.converged, result.reaction("top"), result.pressure

Running a case file end to end (case files are built through the same calls)::

    result = fc.run_case("cases/hertz2d.toml", out_dir="out/hertz2d")
    result.summary["converged"], result.state.multiplier[:, 0]   # contact pressure

The names below are the public API; everything else is reachable through
its subpackage (``fecontact.contact.search``, ``fecontact.solve.schur``, ...).
No exported name equals a subpackage's (the case runner is ``run_case``, as
``fecontact.run`` is the package of the run drivers).
Importing :mod:`fecontact` does not import pyvista or matplotlib; the
pictures live in :mod:`fecontact.visuals`.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_exports

if TYPE_CHECKING:                      # what static tools and editors see
    from .analysis.dynamic import DynamicAnalysis
    from .analysis.dynamic_records import DynamicsOptions, DynamicState
    from .analysis.static import SteppingOptions, StepRecord, run_steps
    from .bodies.body import ElasticBody
    from .bodies.elasticity import Material
    from .bodies.hyperelastic import NeoHookean, SaintVenantKirchhoff
    from .bodies.system import Amplitude, BulkSystem, Coupling, Dirichlet, Load, Spring, build_system
    from .case.build import CaseModel, build_model
    from .case.schema import CaseError, load_case
    from .contact.obstacles import RigidCircle, RigidLine, RigidPlane, RigidSphere
    from .contact.pairs import ContactPair
    from .contact.surface import ContactSurface, contact_surface
    from .friction import (Coulomb, FrictionLaw, FrictionResponse, Frictionless, SmoothIPC,
                           StaticKinetic, Status, VelocityDependent, status_counts)
    from .io.meshfile import load_mesh
    from .model import Body, Contact, LinearElastic, Model, PairFields, Solution, Tie
    from .run.result import RunResult
    from .run.static import prepare
    from .run.static import run as run_case
    from .run.verify import ResidualCheck, residual_check
    from .solve.backends import make_backend
    from .solve.mpi import Launch, launch
    from .solve.bulk import BulkTerms, StaticBulk
    from .solve.newton import NewtonOptions, NewtonResult, semismooth_newton
    from .solve.problem import ContactProblem, Evaluation, Increment, automatic_augmentation
    from .solve.state import IncrementStart, StepState

#: public name -> the module it comes from (imported on first use: ``fecontact.lazy``)
_EXPORTS = {
    "DynamicAnalysis": ".analysis.dynamic",
    "DynamicsOptions": ".analysis.dynamic_records",
    "DynamicState": ".analysis.dynamic_records",
    "SteppingOptions": ".analysis.static",
    "StepRecord": ".analysis.static",
    "run_steps": ".analysis.static",
    "ElasticBody": ".bodies.body",
    "Material": ".bodies.elasticity",
    "NeoHookean": ".bodies.hyperelastic",
    "SaintVenantKirchhoff": ".bodies.hyperelastic",
    "Amplitude": ".bodies.system",
    "BulkSystem": ".bodies.system",
    "Coupling": ".bodies.system",
    "Dirichlet": ".bodies.system",
    "Load": ".bodies.system",
    "Spring": ".bodies.system",
    "build_system": ".bodies.system",
    "CaseModel": ".case.build",
    "build_model": ".case.build",
    "CaseError": ".case.schema",
    "load_case": ".case.schema",
    "RigidCircle": ".contact.obstacles",
    "RigidLine": ".contact.obstacles",
    "RigidPlane": ".contact.obstacles",
    "RigidSphere": ".contact.obstacles",
    "ContactPair": ".contact.pairs",
    "ContactSurface": ".contact.surface",
    "contact_surface": ".contact.surface",
    "Coulomb": ".friction",
    "FrictionLaw": ".friction",
    "FrictionResponse": ".friction",
    "Frictionless": ".friction",
    "SmoothIPC": ".friction",
    "StaticKinetic": ".friction",
    "Status": ".friction",
    "VelocityDependent": ".friction",
    "status_counts": ".friction",
    "load_mesh": ".io.meshfile",
    "Body": ".model",
    "Contact": ".model",
    "LinearElastic": ".model",
    "Model": ".model",
    "PairFields": ".model",
    "Solution": ".model",
    "Tie": ".model",
    "RunResult": ".run.result",
    "prepare": ".run.static",
    "run_case": (".run.static", "run"),
    "ResidualCheck": ".run.verify",
    "residual_check": ".run.verify",
    "make_backend": ".solve.backends",
    "Launch": ".solve.mpi",
    "launch": ".solve.mpi",
    "BulkTerms": ".solve.bulk",
    "StaticBulk": ".solve.bulk",
    "NewtonOptions": ".solve.newton",
    "NewtonResult": ".solve.newton",
    "semismooth_newton": ".solve.newton",
    "ContactProblem": ".solve.problem",
    "Evaluation": ".solve.problem",
    "Increment": ".solve.problem",
    "automatic_augmentation": ".solve.problem",
    "IncrementStart": ".solve.state",
    "StepState": ".solve.state",
}
_lazy_getattr, __dir__ = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str):
    if name == "__version__":                    # importlib.metadata is slow to import
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("fecontact")
        except PackageNotFoundError:          # a source tree that was never installed
            return "unknown"
    return _lazy_getattr(name)

__all__ = [
    # the model API
    "Body", "LinearElastic", "NeoHookean", "SaintVenantKirchhoff", "Contact", "Tie", "Model",
    "Solution", "PairFields", "Frictionless",
    # bodies and meshes
    "ElasticBody", "Material", "BulkSystem", "build_system", "Amplitude", "Dirichlet", "Coupling",
    "Load", "Spring", "load_mesh",
    # contact
    "ContactSurface", "contact_surface", "ContactPair", "RigidLine", "RigidCircle", "RigidPlane",
    "RigidSphere", "automatic_augmentation",
    # friction laws
    "FrictionLaw", "FrictionResponse", "Coulomb", "StaticKinetic", "VelocityDependent",
    "SmoothIPC", "Status", "status_counts",
    # the problem and its solution
    "ContactProblem", "Increment", "Evaluation", "BulkTerms", "StaticBulk", "StepState",
    "IncrementStart", "NewtonOptions", "NewtonResult", "semismooth_newton", "make_backend",
    "launch", "Launch",
    # analyses
    "SteppingOptions", "StepRecord", "run_steps", "DynamicAnalysis", "DynamicsOptions",
    "DynamicState",
    # cases and runs
    "load_case", "build_model", "CaseModel", "CaseError", "prepare", "run_case", "RunResult",
    "residual_check", "ResidualCheck",
]
