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
    disc = fc.Body("disc", mesh, "P1", fc.LinearElastic(E=1e4, nu=0.3, plane="plane_strain"))
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

if TYPE_CHECKING:                      # what static tools and editors see (tests/test_contracts.py)
    from .analysis.dynamic import DynamicAnalysis
    from .analysis.dynamic_records import DynamicState, DynamicsOptions
    from .analysis.static import StepRecord, SteppingOptions, run_steps
    from .bodies.body import ElasticBody
    from .bodies.conditions import Amplitude, Coupling, Dirichlet, Load, Spring
    from .bodies.elasticity import Material
    from .bodies.hyperelastic import NeoHookean, SaintVenantKirchhoff
    from .bodies.system import BulkSystem, build_system
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
    from .run.static import prepare, run as run_case
    from .run.verify import ResidualCheck, residual_check
    from .solve.backends import make_backend
    from .solve.bulk import BulkTerms, StaticBulk
    from .solve.mpi import Launch, launch
    from .solve.newton import NewtonOptions, NewtonResult, semismooth_newton
    from .solve.problem import ContactProblem, Evaluation, Increment, automatic_augmentation
    from .sensitivity import qoi
    from .sensitivity.adjoint import Gradient
    from .sensitivity.parameters import Parameter
    from .sensitivity.shapes import ShapeParameter
    from .solve.state import IncrementStart, StepState

#: The public API by concept: group -> (what it holds, {public name: the module it comes from,
#: or (module, name there)}).  The one list of public names: ``_EXPORTS`` (imported on first
#: use, :mod:`fecontact.lazy`) and ``__all__`` follow it, and the API reference has a page per group.
API_GROUPS = {
    "Model": ("the model API: bodies, contacts, the model and its solution", {
        "Body": ".model",
        "LinearElastic": ".model",
        "NeoHookean": ".bodies.hyperelastic",
        "SaintVenantKirchhoff": ".bodies.hyperelastic",
        "Contact": ".model",
        "Tie": ".model",
        "Model": ".model",
        "Solution": ".model",
        "PairFields": ".model",
    }),
    "Bodies and meshes": ("bodies, materials, supports and loads", {
        "ElasticBody": ".bodies.body",
        "Material": ".bodies.elasticity",
        "BulkSystem": ".bodies.system",
        "build_system": ".bodies.system",
        "Amplitude": ".bodies.conditions",
        "Dirichlet": ".bodies.conditions",
        "Coupling": ".bodies.conditions",
        "Load": ".bodies.conditions",
        "Spring": ".bodies.conditions",
        "load_mesh": ".io.meshfile",
    }),
    "Contact": ("contact surfaces, rigid obstacles and pairs", {
        "ContactSurface": ".contact.surface",
        "contact_surface": ".contact.surface",
        "ContactPair": ".contact.pairs",
        "RigidLine": ".contact.obstacles",
        "RigidCircle": ".contact.obstacles",
        "RigidPlane": ".contact.obstacles",
        "RigidSphere": ".contact.obstacles",
        "automatic_augmentation": ".solve.problem",
    }),
    "Friction laws": ("friction laws and the contact status", {
        "FrictionLaw": ".friction",
        "FrictionResponse": ".friction",
        "Frictionless": ".friction",
        "Coulomb": ".friction",
        "StaticKinetic": ".friction",
        "VelocityDependent": ".friction",
        "SmoothIPC": ".friction",
        "Status": ".friction",
        "status_counts": ".friction",
    }),
    "Solving": ("the contact problem, Newton's method and the linear solvers", {
        "ContactProblem": ".solve.problem",
        "Increment": ".solve.problem",
        "Evaluation": ".solve.problem",
        "BulkTerms": ".solve.bulk",
        "StaticBulk": ".solve.bulk",
        "StepState": ".solve.state",
        "IncrementStart": ".solve.state",
        "NewtonOptions": ".solve.newton",
        "NewtonResult": ".solve.newton",
        "semismooth_newton": ".solve.newton",
        "make_backend": ".solve.backends",
        "launch": ".solve.mpi",
        "Launch": ".solve.mpi",
    }),
    "Analyses": ("load stepping and dynamics", {
        "SteppingOptions": ".analysis.static",
        "StepRecord": ".analysis.static",
        "run_steps": ".analysis.static",
        "DynamicAnalysis": ".analysis.dynamic",
        "DynamicsOptions": ".analysis.dynamic_records",
        "DynamicState": ".analysis.dynamic_records",
    }),
    "Case files and runs": ("case files, run drivers and the independent check", {
        "load_case": ".case.schema",
        "build_model": ".case.build",
        "CaseModel": ".case.build",
        "CaseError": ".case.schema",
        "prepare": ".run.static",
        "run_case": (".run.static", "run"),
        "RunResult": ".run.result",
        "residual_check": ".run.verify",
        "ResidualCheck": ".run.verify",
    }),
    "Sensitivities": ("parameters, quantities of interest and their gradients by the discrete adjoint", {
        "Parameter": ".sensitivity.parameters",
        "ShapeParameter": ".sensitivity.shapes",
        "Gradient": ".sensitivity.adjoint",
        "qoi": (".sensitivity", "qoi"),
    }),
}
#: public name -> the module it comes from
_EXPORTS = {name: where for _, names in API_GROUPS.values() for name, where in names.items()}
_lazy_getattr, __dir__ = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str):
    if name == "__version__":                    # importlib.metadata is slow to import
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("fecontact")
        except PackageNotFoundError:          # a source tree that was never installed
            return "unknown"
    return _lazy_getattr(name)


__all__ = [                  # the names of API_GROUPS, in order (a literal for static tools)
    # model
    "Body", "LinearElastic", "NeoHookean", "SaintVenantKirchhoff", "Contact", "Tie", "Model",
    "Solution", "PairFields",
    # bodies and meshes
    "ElasticBody", "Material", "BulkSystem", "build_system", "Amplitude", "Dirichlet", "Coupling",
    "Load", "Spring", "load_mesh",
    # contact
    "ContactSurface", "contact_surface", "ContactPair", "RigidLine", "RigidCircle", "RigidPlane",
    "RigidSphere", "automatic_augmentation",
    # friction laws
    "FrictionLaw", "FrictionResponse", "Frictionless", "Coulomb", "StaticKinetic",
    "VelocityDependent", "SmoothIPC", "Status", "status_counts",
    # solving
    "ContactProblem", "Increment", "Evaluation", "BulkTerms", "StaticBulk", "StepState",
    "IncrementStart", "NewtonOptions", "NewtonResult", "semismooth_newton", "make_backend",
    "launch", "Launch",
    # analyses
    "SteppingOptions", "StepRecord", "run_steps", "DynamicAnalysis", "DynamicsOptions",
    "DynamicState",
    # case files and runs
    "load_case", "build_model", "CaseModel", "CaseError", "prepare", "run_case", "RunResult",
    "residual_check", "ResidualCheck",
    # sensitivities
    "Parameter", "ShapeParameter", "Gradient", "qoi",
]
