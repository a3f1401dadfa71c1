r"""Checks of an assembled model before anything is solved.

The bodies, pairs and (for case files) :mod:`fecontact.case.schema` already
reject unknown boundaries, empty surfaces, wrong types and out-of-range
material and friction parameters when they are made.  This module checks
what only the assembled problem shows, for :meth:`fecontact.Model.check`
and ``fecontact check`` alike:

* **elements** (run when a body is created) — non-finite coordinates, degenerate elements (a corner
  Jacobian ``|det J| <= 1e-8 L^d``, ``L`` the element's longest extent)
  and inverted ones (corner Jacobians of different signs in one element,
  or two neighbours on the same side of their shared facet: a fold);
* **projection** — every slave node has a finite initial gap and normal;
* **facing** — the slave surface's outward normals must point towards the
  master: over the slave nodes closest to the master (gap within 10 % of
  the slave surface's extent of the smallest gap), the mean of
  ``n_slave . n_master`` must be negative (``n_master`` points from the
  master towards the slave);
* **initial penetration** — no slave node may start more than
  ``penetration_tolerance`` (a contact-pair key; default ``1e-6`` times
  the diagonal of the bodies' bounding box) inside the master; the gaps
  are those the contact conditions see at ``t = 0``, so the overlap a
  pair's ``interference`` ramps in is accepted
  (:mod:`fecontact.contact.interference`);
* **interference in dynamics** — a pair's ``interference`` ramp is for
  quasi-static analyses: a dynamic analysis refuses it;
* **dead contact rows** — a slave node that touches the master at the start
  (gap within the initial-penetration tolerance) and whose normal gap no
  unknown can change (its motion along the normal is prescribed, or it is
  tied to the body it touches) has a singular normal contact row.  A node
  whose every component is prescribed is not one: it is left out of its
  pair's contact constraints with a warning
  (:func:`fecontact.contact.surface.clamped_nodes`);
* **rigid-body modes** (quasi-static analyses) — every rigid motion of a
  body that no Dirichlet condition, coupling or spring removes must change
  some contact gap, or with friction some slip; otherwise the stiffness is
  singular whatever the loads.

Each finding is one line naming the place (:class:`Places`: the case file
and key, or the pair and body names of a Python model) and what to do.
"""

from __future__ import annotations

import numpy as np

from dataclasses import dataclass, field

from ..bodies.pieces import node_pieces
from ..contact.surface import ContactSurface
from ..mesh.quality import format_point
from ..solve.operators import kinematic_operator

#: default initial-penetration tolerance, relative to the model's bounding-box diagonal
PENETRATION = 1e-6
#: slave nodes whose gap is within this fraction of the surface extent of the smallest take part in the facing check
NEAR = 0.1


@dataclass(frozen=True)
class Places:
    """How findings name the places of a model.

    Attributes
    ----------
    prefix : str
        Put before every finding (a case file: ``"path: "``).
    pairs : dict
        Contact pair name -> how a finding names it (default ``"contact 'name'"``).
    keys : dict
        Contact pair name -> how a finding names one of its parameters, as
        a format string with ``{key}`` (default ``"{key}"``).
    bodies : dict
        Body index -> what follows the body's name (a case: ``" (bodies.0)"``).
    """

    prefix: str = ""
    pairs: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)
    bodies: dict = field(default_factory=dict)

    def pair(self, name: str) -> str:
        """The label of a pair (a two-pass reverse pair is named as its pair)."""
        name = name.removesuffix("-reverse")
        return self.pairs.get(name, f"contact {name!r}")

    def key(self, name: str, key: str) -> str:
        """The label of a pair's parameter ``key``."""
        return self.keys.get(name.removesuffix("-reverse"), "{key}").format(key=key)


def surface_normals(problem, surface: ContactSurface) -> np.ndarray:
    """Outward unit normal at each node of a surface (area-weighted over its facets), shape (n, dim)."""
    body = problem.system.bodies[surface.body]
    x = body.node_coords
    f = surface.facets
    if body.dim == 2:
        tangent = x[:, f[1]] - x[:, f[0]]
        normal = np.array([tangent[1], -tangent[0]])
    else:
        normal = np.cross(x[:, f[1]] - x[:, f[0]], x[:, f[2]] - x[:, f[0]], axis=0)
    acc = np.zeros((body.dim, body.n_nodes))
    for row in f:
        np.add.at(acc, (slice(None), row), normal)
    n = acc[:, surface.nodes]
    return (n / np.maximum(np.linalg.norm(n, axis=0), 1e-300)).T


def contact_findings(problem, places: Places = Places(), tolerances: dict | None = None) -> list:
    """Facing and initial-penetration problems of every contact pair (one line each).

    Parameters
    ----------
    problem : ContactProblem
    places : Places
    tolerances : dict, optional
        Pair name -> accepted initial penetration (default
        :data:`PENETRATION` times the bounding-box diagonal).

    Returns
    -------
    list of str
    """
    if not problem.pairs:
        return []
    tolerances = tolerances or {}
    sysm = problem.system
    with np.errstate(all="ignore"):         # undefined projections are reported below
        kin = problem.kinematics(np.zeros(sysm.n_dofs), 0.0, None).local
    X = problem.X
    diagonal = float(np.linalg.norm(np.ptp(X, axis=1)))
    out = []
    for pair, s in zip(problem.pairs, problem.slices):
        if pair.name.endswith("-reverse"):
            continue
        where = places.pair(pair.name)
        body = sysm.bodies[pair.slave.body]
        gap = kin.gap[s]
        xs = body.node_coords[:, pair.slave.nodes]
        undefined = ~(np.isfinite(gap) & np.all(np.isfinite(kin.normal[s]), axis=1))
        if np.any(undefined):
            i = int(np.flatnonzero(undefined)[0])
            out.append(f"{places.prefix}{where}: the projection of slave node {int(pair.slave.nodes[i])} "
                       f"of body {body.name!r} at {format_point(xs[:, i])} onto the master is undefined "
                       f"(non-finite gap or normal; nodes affected: {int(undefined.sum())}), e.g. a node "
                       f"at the centre of a circle or sphere obstacle; move the obstacle")
            continue
        extent = float(np.linalg.norm(np.ptp(xs, axis=1))) or diagonal
        near = gap <= gap.min() + NEAR * extent
        facing = np.einsum("md,md->m", surface_normals(problem, pair.slave), kin.normal[s])
        if np.mean(facing[near]) > 0.0:
            master = (f"boundary {pair.master.boundary!r} of body "
                      f"{sysm.bodies[pair.master.body].name!r}" if isinstance(pair.master, ContactSurface)
                      else f"the {getattr(pair.master, 'kind', 'rigid')} obstacle")
            out.append(f"{places.prefix}{where}: the outward normals of the slave surface (boundary "
                       f"{pair.slave.boundary!r} of body {body.name!r}) point away from the master "
                       f"({master}; mean n_slave . n_master = {np.mean(facing[near]):+.3f} over the "
                       f"{int(near.sum())} closest nodes); choose the slave and master boundaries "
                       f"that face each other, or flip the obstacle's normal")
            continue
        tol = tolerances.get(pair.name.removesuffix("-reverse"))
        tol = PENETRATION * diagonal if tol is None else float(tol)
        if pair.interference is not None:      # the overlap the pair's ramp removes is accepted
            gap = np.maximum(gap, 0.0)
        deep = -gap > tol
        if np.any(deep):
            i = int(np.argmin(gap))
            node = int(pair.slave.nodes[i])
            out.append(f"{places.prefix}{where}: initial penetration {-gap[i]:.4g} at {format_point(xs[:, i])} "
                       f"(node {node} of body {body.name!r}; {int(deep.sum())} slave nodes beyond "
                       f"the tolerance {tol:.3g}); move the bodies apart, or raise "
                       f"{places.key(pair.name, 'penetration_tolerance')} to accept an "
                       f"interference fit, or set {places.key(pair.name, 'interference')} = "
                       f"'shrink' to ramp it in")
    return out


def interference_findings(problem, places: Places = Places()) -> list:
    """Pairs with an ``interference`` ramp in a dynamic analysis (one line each).

    The shifted gap would close at a rate no velocity has (a jump in the
    contact velocities and in the energy balance), so dynamics refuses it.

    Returns
    -------
    list of str
    """
    return [f"{places.prefix}{places.pair(pair.name)}: {places.key(pair.name, 'interference')} "
            f"ramps an initial overlap in over a quasi-static step and is not supported in a "
            f"dynamic analysis; solve the fit quasi-statically, or remove the overlap from the "
            f"meshes" for pair in problem.pairs
            if pair.interference is not None and not pair.name.endswith("-reverse")]


def _held_by(problem, pair, node: int) -> str:
    """Why the gap of body-local slave node ``node`` of ``pair`` follows no unknown, in words."""
    sysm = problem.system
    dofs = sysm.node_dofs(sysm.global_nodes(pair.slave.body, np.array([node])))[0]
    fixed = [c for c in range(problem.dim) if sysm.fixed[dofs[c]]]
    supports = sorted({bc.name for bc in sysm.dirichlet if bc.body == pair.slave.body
                       and node in bc.nodes and set(bc.components) & set(fixed)})
    why = []
    if fixed:
        why.append(f"its displacement {', '.join('xyz'[c] for c in fixed)} is prescribed "
                   f"({', '.join(repr(n) for n in supports)})")
    if sysm.tied is not None and np.any(sysm.tied[dofs]):
        why.append("it is tied to another body's surface")
    return " and ".join(why) or "the master points it faces are held the same way"


def dead_row_findings(problem, places: Places = Places(), tolerances: dict | None = None) -> list:
    """Slave nodes touching at the start whose normal gap no unknown changes (one line per pair).

    The normal row ``B_n T`` of such a node is zero (relative to ``B_n``,
    1e-8), so its closed contact condition is a zero row of the Newton
    matrix.  Nodes without contact rows (clamped, past a free end) are not
    counted.

    Returns
    -------
    list of str
    """
    if not problem.pairs:
        return []
    sysm, d = problem.system, problem.dim
    with np.errstate(all="ignore"):
        kin = problem.kinematics(np.zeros(sysm.n_dofs), 0.0, None)
    Bn = kinematic_operator(kin, sysm.n_dofs).tocsr()[::d]
    if not np.all(np.isfinite(Bn.data)):
        return []         # undefined projections, reported by contact_findings
    full = np.sqrt(np.asarray(Bn.multiply(Bn).sum(axis=1)).ravel())
    BT = (Bn @ sysm.T).tocsr()
    reduced = np.sqrt(np.asarray(BT.multiply(BT).sum(axis=1)).ravel())
    dead = (full > 0.0) & (reduced <= 1e-8 * full)
    if not dead.any():
        return []
    tolerances = tolerances or {}
    diagonal = float(np.linalg.norm(np.ptp(problem.X, axis=1)))
    out = []
    for pair, s in zip(problem.pairs, problem.slices):
        tol = tolerances.get(pair.name.removesuffix("-reverse"))
        tol = PENETRATION * diagonal if tol is None else float(tol)
        rows = np.flatnonzero(dead[s] & (kin.own_gap[s] <= tol))
        if pair.name.endswith("-reverse") or rows.size == 0:
            continue
        body = sysm.bodies[pair.slave.body]
        node = int(pair.slave.nodes[rows[0]])
        out.append(f"{places.prefix}{places.pair(pair.name)}: slave node {node} of body {body.name!r} "
                   f"at {format_point(body.node_coords[:, node])} touches the master and no unknown "
                   f"can change its gap: {_held_by(problem, pair, node)} (nodes affected: "
                   f"{rows.size}); its normal contact condition is a singular row; release the "
                   f"displacement along the contact normal, prescribe every component (a clamped "
                   f"node is left out of the contact), or leave the node out of the slave surface")
    return out


def _describe(mode: np.ndarray, dim: int) -> str:
    """Name a rigid motion from its nodal values (dim, n): translation and/or rotation."""
    axes = "xyz"
    mean = mode.mean(axis=1)
    rest = mode - mean[:, None]
    parts = []
    moving = np.abs(mean) > 1e-6 * max(np.abs(mode).max(), 1e-300)
    if np.any(moving):
        direction = mean / np.linalg.norm(mean)
        if np.sum(np.abs(direction) > 1e-3) == 1:
            parts.append(f"translation along {axes[int(np.argmax(np.abs(direction)))]}")
        else:
            parts.append("translation along " + format_point(direction))
    if np.abs(rest).max() > 1e-6 * max(np.abs(mode).max(), 1e-300):
        parts.append("rotation")
    return " and ".join(parts) or "rigid motion"


def rigid_mode_findings(problem, places: Places = Places()) -> list:
    """Bodies whose rigid motions neither supports nor contact can hold (quasi-static analyses).

    Parameters
    ----------
    problem : ContactProblem
    places : Places

    Returns
    -------
    list of str
    """
    sysm = problem.system
    modes = sysm.free_modes()                              # (n_red, r)
    if modes.shape[1] == 0:
        return []
    rows, reference = [], 0.0
    if problem.pairs:
        kin = problem.kinematics(np.zeros(sysm.n_dofs), 0.0, None)
        B = kinematic_operator(kin, sysm.n_dofs).tocsr()
        d = problem.dim
        keep = np.zeros((problem.n_contact, d), dtype=bool)
        keep[:, 0] = True
        for pair, s in zip(problem.pairs, problem.slices):
            keep[s, 1:] = pair.friction.has_friction
        BT = (B[np.flatnonzero(keep.ravel())] @ sysm.T).tocsr()
        rows.append(BT @ modes)
        # what a unit mode spread evenly over the unknowns changes a gap or slip by: the
        # absolute scale below which a mode's contact effect is round-off, not contact
        if BT.nnz:
            reference = float(np.abs(BT.data).max()) / np.sqrt(sysm.n_reduced)
    C = np.vstack(rows) if rows else np.zeros((0, modes.shape[1]))
    if not np.all(np.isfinite(C)):
        return []         # undefined projections, reported by contact_findings
    # normalise the columns so that the rank test is scale-free
    scale = np.maximum(np.linalg.norm(modes, axis=0), 1e-300)
    C = C / scale
    if C.shape[0]:
        _, sv, vt = np.linalg.svd(C, full_matrices=True)
        # relative to the largest singular value, and never below the absolute scale (a single
        # free mode whose contact rows are round-off has a tiny largest singular value itself)
        rank = int(np.sum(sv > 1e-8 * max(sv.max(initial=0.0), reference, 1e-300)))
        null = vt[rank:].T
    else:
        null = np.eye(modes.shape[1])
    out = []
    named = set()
    for j in range(null.shape[1]):
        u = sysm.T @ ((modes / scale) @ null[:, j])
        for b, body in enumerate(sysm.bodies):
            part = u[sysm.body_dofs(b)].reshape(-1, body.dim).T
            if body.name in named or np.abs(part).max() <= 1e-6 * np.abs(u).max():
                continue
            named.add(body.name)
            pairs = [p.name for p in problem.pairs
                     if p.slave.body == b or getattr(p.master, "body", None) == b]
            held = (f"its contact pairs ({', '.join(pairs)}) cannot hold it"
                    + (" (frictionless contact holds only normal motion)"
                       if not any(p.friction.has_friction for p in problem.pairs if p.name in pairs)
                       else "")
                    if pairs else "no contact pair involves the body")
            pieces = int(node_pieces(body).max()) + 1
            split = (f" (its mesh is in {pieces} disconnected pieces, each moving on its own)"
                     if pieces > 1 else "")
            out.append(f"{places.prefix}body {body.name!r}{places.bodies.get(b, '')}{split} has a "
                       f"rigid-body motion "
                       f"({_describe(part, body.dim)}) that no Dirichlet condition, coupling or "
                       f"spring removes and {held}; add a support (dirichlet, spring) or friction")
    return out


def model_findings(problem, places: Places = Places(), tolerances: dict | None = None,
                   dynamic: bool = False) -> list:
    """All problems of an assembled model, one line each (empty: ready to solve).

    Element checks run when a body is created (:meth:`fecontact.bodies.body.ElasticBody.create`);
    rigid-body modes are not checked in dynamics, where inertia holds them.

    Returns
    -------
    list of str
    """
    out = (interference_findings(problem, places) if dynamic else []) + contact_findings(
        problem, places, tolerances)
    out = out + (dead_row_findings(problem, places, tolerances) if not out else [])
    return out if dynamic else out + rigid_mode_findings(problem, places)
