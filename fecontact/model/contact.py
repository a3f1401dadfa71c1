"""Contact pairs of a model: a slave surface against a master surface or a rigid obstacle.

:class:`Contact` is checked when it is made; the model turns it into a
:class:`fecontact.contact.pairs.ContactPair` with the bodies' global
numbering and the automatic augmentation (:meth:`Contact.pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..contact.interference import Interference, interference_amplitude
from ..contact.obstacles import OBSTACLES, RigidObstacle
from ..contact.pairs import ContactPair, pair_kinematics
from ..contact.smoothing import SMOOTHINGS
from ..friction import Frictionless, FrictionLaw
from ..solve.problem import automatic_augmentation
from .body import SurfaceRef
from .formulation import choose_formulation, mortar_refusal

FORMULATIONS = ("auto", "node_to_segment", "mortar")
ENFORCEMENTS = ("multiplier", "penalty")


@dataclass(frozen=True)
class Contact:
    """A contact pair: ``slave`` surface against ``master`` (a body's surface or a rigid obstacle).

    Parameters
    ----------
    slave : SurfaceRef
        ``body.surface("name")``; the softer, finer-meshed side by custom.
    master : SurfaceRef, RigidLine, RigidCircle, RigidPlane or RigidSphere
    friction : FrictionLaw
        :func:`fecontact.Frictionless` (default), :class:`fecontact.Coulomb`,
        :class:`fecontact.StaticKinetic`, :class:`fecontact.VelocityDependent`
        or :class:`fecontact.SmoothIPC`.
    name : str, optional
        Default ``"contact<k>"`` with ``k`` its position in the model.
    formulation : {"auto", "node_to_segment", "mortar"}
        Node-to-segment (2D) / node-to-facet (3D), or mortar (dual
        multipliers; bodies of linear elements as master; triangle or
        quadrilateral facets in 3D).  ``"auto"`` (default): mortar between two
        bodies wherever it applies (not yet on quadrilateral facets),
        node-to-segment against rigid obstacles, with a penalty or two passes,
        and on quadratic elements
        (:func:`fecontact.model.formulation.choose_formulation`;
        :attr:`method` is the one chosen).
    enforcement : {"multiplier", "penalty"}
        Exact Signorini conditions by multipliers, or a frictionless penalty.
    c_n, c_t : float, optional
        Augmentation parameters; default automatic (``augmentation_factor``
        times the contact stiffness of the pair per node, see
        :func:`fecontact.automatic_augmentation`).  They change Newton's
        path, never the converged solution.
    augmentation_factor : float
    penalty_factor : float
        Penalty stiffness relative to the automatic augmentation (``penalty`` only).
    two_pass : bool
        Also the reverse pair (master nodes against slave facets); needs a
        body as master, node-to-segment and ``penalty``.
    penetration_tolerance : float, optional
        Initial penetration accepted by the model check; default ``1e-6``
        times the model's bounding-box diagonal.  Without ``interference``
        an accepted overlap (an interference fit) is removed whole in the
        first increment, so the contact pressure is that of the full fit at
        every load level.
    interference : {None, "shrink"} or Amplitude
        Ramp an initial overlap in (Abaqus ``*CONTACT INTERFERENCE, SHRINK``):
        each slave node's initial gap ``g0`` (negative: overlap) is measured
        when the model is assembled, in the pair's formulation (the weighted
        gap with mortar), and the contact conditions see the gap
        ``g - (1 - a(t)) min(g0, 0)``: the overlap allowed decreases from the
        whole initial overlap to zero as ``a(t)`` goes from 0 to 1.
        ``"shrink"`` ramps it over the step, ``a(t) = t`` on ``[0, 1]``; an
        :class:`fecontact.Amplitude` (values in ``[0, 1]``: the fraction
        removed) follows its own path.  The model check accepts the overlap
        the ramp removes, without ``penetration_tolerance``; reported gaps are
        those the conditions see (zero at a closed node).  Quasi-static
        analyses only (the model check refuses it in dynamics).  ``None``
        (default): the overlap is removed in the first increment.
    smoothing : {"auto", "hermite", "none"}
        Master geometry of node-to-segment contact in 2D: ``"hermite"``
        replaces each master segment by a cubic curve through its nodes
        along the nodal normals (:mod:`fecontact.contact.smoothing`), so that
        a faceted curved master measures no chord sag; ``"none"`` keeps the
        straight segments; ``"auto"`` smooths masters that are not straight
        (free ends and corners above 30 degrees keep their segment's
        direction).  Rigid obstacles, mortar and 3D are not affected.

    Examples
    --------
    A block pushed 0.01 down onto a rigid floor, with Coulomb friction:

    >>> import skfem
    >>> import fecontact as fc
    >>> mesh = skfem.MeshTri().refined(2).with_defaults()          # the unit square
    >>> block = fc.Body("block", mesh, "P1", fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=-0.01)
    >>> floor = fc.RigidLine(point=(0.0, 0.0), normal=(0.0, 1.0))
    >>> pair = fc.Contact(block.surface("bottom"), floor, fc.Coulomb(0.3), name="floor")
    >>> result = fc.Model([block], [pair]).solve()
    >>> f"{result.pair('floor').force[1]:.3g}", result.pair("floor").open
    ('11.8', 0)

    The block starting 0.01 inside the floor instead, frictionless, with the
    overlap ramped in: the force grows with the load level instead of being
    whole at the first one (the problem is linear, so it is proportional):

    >>> block = fc.Body("block", mesh.translated((0.0, -0.01)), "P1",
    ...                 fc.LinearElastic(E=1e3, nu=0.3)).fix("top", x=0.0, y=0.0)
    >>> pair = fc.Contact(block.surface("bottom"), floor, name="floor", interference="shrink")
    >>> result = fc.Model([block], [pair]).solve(steps=2)
    >>> [f"{result.at(k).pair('floor').force[1]:.3g}" for k in (0, 1)]
    ['5.72', '11.4']
    """

    slave: SurfaceRef
    master: object
    friction: FrictionLaw = field(default_factory=Frictionless)
    name: str | None = None
    formulation: str = "auto"
    enforcement: str = "multiplier"
    c_n: float | None = None
    c_t: float | None = None
    augmentation_factor: float = 1.0
    penalty_factor: float = 1.0e3
    two_pass: bool = False
    penetration_tolerance: float | None = None
    smoothing: str = "auto"
    interference: object = None

    def __post_init__(self):
        if not isinstance(self.slave, SurfaceRef):
            raise ValueError("slave must be a body's surface (body.surface('name'))")
        if not isinstance(self.master, (SurfaceRef, RigidObstacle)):
            *names, last = (cls.__name__ for cls in OBSTACLES.values())
            raise ValueError(f"master must be a body's surface or a {', '.join(names)} or {last}, "
                             f"got {type(self.master).__name__}")
        if not isinstance(self.friction, FrictionLaw):
            raise ValueError(f"friction must be a friction law (fecontact.Coulomb(mu), ...), "
                             f"got {self.friction!r}")
        dim = self.slave.body.dim
        if isinstance(self.master, RigidObstacle) and self.master.dim != dim:
            raise ValueError(f"obstacle = {self.master.mismatch(dim)}")
        if self.formulation not in FORMULATIONS:
            raise ValueError(f"formulation = {self.formulation!r}; choose one of "
                             f"{', '.join(FORMULATIONS)}")
        if self.smoothing not in SMOOTHINGS:
            raise ValueError(f"smoothing = {self.smoothing!r}; choose one of {', '.join(SMOOTHINGS)}")
        if self.enforcement not in ENFORCEMENTS:
            raise ValueError(f"enforcement = {self.enforcement!r}; choose one of "
                             f"{', '.join(ENFORCEMENTS)}")
        if self.formulation == "mortar":
            self._check_mortar()
        body_master = isinstance(self.master, SurfaceRef)
        if self.two_pass and (self.enforcement != "penalty" or self.formulation == "mortar"
                              or not body_master):
            raise ValueError("two_pass needs a body as master, formulation = 'node_to_segment' and "
                             "enforcement = 'penalty' (with multipliers the two passes constrain "
                             "the interface twice and the system is singular)")
        if self.enforcement == "penalty" and self.friction.has_friction:
            raise ValueError("enforcement = 'penalty' is frictionless; use friction "
                             "Frictionless() or enforcement = 'multiplier'")
        if self.enforcement == "penalty" and not (np.isfinite(self.penalty_factor)
                                                  and self.penalty_factor > 0):
            raise ValueError(f"penalty_factor must be > 0, got {self.penalty_factor}")
        if self.penetration_tolerance is not None and not self.penetration_tolerance >= 0:
            raise ValueError(f"penetration_tolerance must be >= 0, got {self.penetration_tolerance}")
        interference_amplitude(self.interference)
        for key in ("c_n", "c_t"):
            value = getattr(self, key)
            if value is not None and not (np.isfinite(value) and value > 0):
                raise ValueError(f"{key} must be > 0, got {value}")
        if not (np.isfinite(self.augmentation_factor) and self.augmentation_factor > 0):
            raise ValueError(f"augmentation_factor must be > 0, got {self.augmentation_factor}")

    def _check_mortar(self):
        refusal = mortar_refusal(self.slave, self.master)
        if refusal is not None:
            raise ValueError(f"formulation = 'mortar' {refusal}")

    @property
    def method(self) -> str:
        """The formulation the pair is solved with: ``formulation``, or what ``"auto"`` chose."""
        if self.formulation != "auto":
            return self.formulation
        return choose_formulation(self.slave, self.master, self.enforcement, self.two_pass)[0]

    def pairs(self, system, index: dict, name: str, default_amplitude) -> list:
        """The contact pairs of the assembled model (two with ``two_pass``).

        Parameters
        ----------
        system : BulkSystem
        index : dict
            Body object id -> body index in the model.
        name : str
            The pair's name (``self.name`` or the model's default).
        default_amplitude : Amplitude
            An obstacle's amplitude when it has none.

        Returns
        -------
        list of ContactPair
        """
        slave = replace(self.slave.surface, body=index[id(self.slave.body)])
        if isinstance(self.master, SurfaceRef):
            master = replace(self.master.surface, body=index[id(self.master.body)])
            master_body = master.body
        else:
            master = self.master
            if master.amplitude is None:
                master = replace(master, amplitude=default_amplitude)
            master_body = None
        auto = automatic_augmentation(system, slave.body, slave.size, self.augmentation_factor,
                                      master_body)
        c_n = np.full_like(auto, float(self.c_n)) if self.c_n is not None else auto
        c_t = np.full_like(auto, float(self.c_t)) if self.c_t is not None else c_n.copy()

        def penalty(surface):
            if self.enforcement != "penalty":
                return None
            return automatic_augmentation(system, surface.body, surface.size, self.penalty_factor)

        out = [ContactPair(name=name, slave=slave, master=master, friction=self.friction, c_n=c_n,
                           c_t=c_t, formulation=self.method, penalty=penalty(slave),
                           smoothing=self.smoothing)]
        if self.two_pass:
            back = automatic_augmentation(system, master.body, master.size,
                                          self.augmentation_factor, slave.body)
            out.append(ContactPair(name=f"{name}-reverse", slave=master, master=slave,
                                   friction=self.friction, c_n=back, c_t=back.copy(),
                                   formulation=self.method, penalty=penalty(master),
                                   smoothing=self.smoothing))
        amplitude = interference_amplitude(self.interference)
        return out if amplitude is None else [_measured(p, system, amplitude) for p in out]


def _measured(pair: ContactPair, system, amplitude) -> ContactPair:
    """``pair`` with its :class:`~fecontact.contact.interference.Interference`: ``g0`` measured
    on the undeformed pair, itself (so the warnings of its first evaluation are given once)."""
    interference = Interference.unmeasured(amplitude, pair.n_nodes)
    pair = replace(pair, interference=interference)
    X = system.reference_coords()
    with np.errstate(all="ignore"):          # undefined projections: the model check says so
        interference.measure(pair_kinematics(pair, system, X, X, 0.0, 0.0))
    return pair


@dataclass(frozen=True)
class Tie:
    """A bonded interface: the slave surface glued to the master surface (non-matching meshes).

    The slave side's displacement follows the master's through dual-mortar
    weights (:func:`fecontact.contact.tie.tie_constraint`), eliminated from
    the unknowns, so a part can be meshed in pieces.

    Parameters
    ----------
    slave, master : SurfaceRef
        ``body.surface("name")`` of two bodies; take the finer or smaller
        side as the slave.  Linear elements (P1, Q1).
    name : str, optional
        Default ``"<slave body>.<boundary> -> <master body>.<boundary>"``.
    coverage_tolerance : float
        Fraction of a slave node's shape function that may lie off the
        master before the tie is refused.

    Examples
    --------
    Two unit squares of 4 x 4 and 2 x 2 quadrilaterals glued at ``y = 1``,
    the lower one clamped, a traction ``(0, -10)`` on the top:

    >>> import skfem
    >>> import fecontact as fc
    >>> material = fc.LinearElastic(E=1e3, nu=0.3)
    >>> lower = fc.Body("lower", skfem.MeshQuad().refined(2).with_defaults(), "Q1", material)
    >>> upper_mesh = skfem.MeshQuad().refined(1).translated((0.0, 1.0)).with_defaults()
    >>> upper = fc.Body("upper", upper_mesh, "Q1", material).traction("top", (0.0, -10.0))
    >>> lower = lower.fix("bottom")
    >>> tie = fc.Tie(upper.surface("bottom"), lower.surface("top"))
    >>> result = fc.Model([lower, upper], ties=[tie]).solve()
    >>> result.converged, f"{result.reaction('bottom')[1]:.3g}"
    (True, '10')
    """

    slave: SurfaceRef
    master: SurfaceRef
    name: str | None = None
    coverage_tolerance: float = 0.05

    def __post_init__(self):
        for key in ("slave", "master"):
            if not isinstance(getattr(self, key), SurfaceRef):
                raise ValueError(f"a tie's {key} must be a body's surface (body.surface('name'))")
        if self.slave.body is self.master.body:
            raise ValueError("a tie joins two different bodies")
        if not (np.isfinite(self.coverage_tolerance) and 0 <= self.coverage_tolerance < 1):
            raise ValueError(f"coverage_tolerance must lie in [0, 1), got {self.coverage_tolerance}")

    def constraint(self, parts, index: dict):
        """The tie constraint of the numbered bodies (:class:`fecontact.bodies.ties.Tie`).

        Parameters
        ----------
        parts : sequence of ElasticBody
            The model's bodies in order.
        index : dict
            Body object id -> body index.
        """
        from ..contact.tie import tie_constraint

        slave = replace(self.slave.surface, body=index[id(self.slave.body)])
        master = replace(self.master.surface, body=index[id(self.master.body)])
        return tie_constraint(slave, master, parts, self.name, self.coverage_tolerance)
