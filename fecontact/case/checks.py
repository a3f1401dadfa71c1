r"""Checks of a built model before anything is solved.

The case-file layer (:mod:`fecontact.case.schema`, :mod:`fecontact.case.build`) already
rejects unknown keys, wrong types, missing or unreadable meshes, unknown
boundaries, empty surfaces and out-of-range material and friction
parameters.  This module checks what only the assembled model shows:

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
  the diagonal of the bodies' bounding box) inside the master;
* **rigid-body modes** (quasi-static analyses) — every rigid motion of a
  body that no Dirichlet condition, coupling or spring removes must change
  some contact gap, or with friction some slip; otherwise the stiffness is
  singular whatever the loads.

Each finding is one line naming the file, the case key or the place, and
what to do.
"""

from __future__ import annotations

import numpy as np

from ..contact.surface import ContactSurface
from ..mesh.quality import format_point
from ..solve.operators import kinematic_operator

#: default initial-penetration tolerance, relative to the model's bounding-box diagonal
PENETRATION = 1e-6
#: slave nodes whose gap is within this fraction of the surface extent of the smallest take part in the facing check
NEAR = 0.1


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


def _pair_index(model) -> dict:
    """Case index ``k`` of every contact pair name (two-pass reverse pairs map to their pair)."""
    index = {}
    for k, spec in enumerate(model.case.get("contact", [])):
        name = spec.get("name", f"contact{k}")
        index[name] = k
        index[f"{name}-reverse"] = k
    return index


def contact_findings(model, source: str) -> list:
    """Facing and initial-penetration problems of every contact pair (one line each)."""
    problem = model.problem
    if not problem.pairs:
        return []
    index = _pair_index(model)
    sysm = problem.system
    with np.errstate(all="ignore"):         # undefined projections are reported below
        kin = problem.kinematics(np.zeros(sysm.n_dofs), 0.0, None).local
    X = problem.X
    diagonal = float(np.linalg.norm(np.ptp(X, axis=1)))
    out = []
    for pair, s in zip(problem.pairs, problem.slices):
        if pair.name.endswith("-reverse"):
            continue
        k = index.get(pair.name, 0)
        where = f"contact.{k}"
        spec = model.case["contact"][k]
        body = sysm.bodies[pair.slave.body]
        gap = kin.gap[s]
        xs = body.node_coords[:, pair.slave.nodes]
        undefined = ~(np.isfinite(gap) & np.all(np.isfinite(kin.normal[s]), axis=1))
        if np.any(undefined):
            i = int(np.flatnonzero(undefined)[0])
            out.append(f"{source}: '{where}': the projection of slave node {int(pair.slave.nodes[i])} "
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
            out.append(f"{source}: '{where}': the outward normals of the slave surface (boundary "
                       f"{pair.slave.boundary!r} of body {body.name!r}) point away from the master "
                       f"({master}; mean n_slave . n_master = {np.mean(facing[near]):+.3f} over the "
                       f"{int(near.sum())} closest nodes); choose the slave and master boundaries "
                       f"that face each other, or flip the obstacle's normal")
            continue
        tol = float(spec.get("penetration_tolerance", PENETRATION * diagonal))
        deep = -gap > tol
        if np.any(deep):
            i = int(np.argmin(gap))
            node = int(pair.slave.nodes[i])
            out.append(f"{source}: '{where}': initial penetration {-gap[i]:.4g} at {format_point(xs[:, i])} "
                       f"(node {node} of body {body.name!r}; {int(deep.sum())} slave nodes beyond "
                       f"the tolerance {tol:.3g}); move the bodies apart, or raise "
                       f"'{where}.penetration_tolerance' to accept an interference fit")
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


def rigid_mode_findings(model, source: str) -> list:
    """Bodies whose rigid motions neither supports nor contact can hold (quasi-static only)."""
    if model.dynamics is not None:
        return []         # inertia holds rigid motions in dynamics
    problem = model.problem
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
            out.append(f"{source}: body {body.name!r} (bodies.{b}) has a rigid-body motion "
                       f"({_describe(part, body.dim)}) that no Dirichlet condition, coupling or "
                       f"spring removes and {held}; add a support (dirichlet, spring) or friction")
    return out


def model_findings(model) -> list:
    """All problems of a built model, one line each (empty: ready to solve).

    Element checks run when a body is created (:meth:`fecontact.bodies.body.ElasticBody.create`).
    """
    source = model.case["_path"]
    return (backend_findings(model, source) + contact_findings(model, source)
            + rigid_mode_findings(model, source))


def backend_findings(model, source: str) -> list:
    """An unknown ``solver.backend``, or a Krylov backend for a body held only by contact.

    Parameters
    ----------
    model : fecontact.case.build.CaseModel
    source : str
        The case file, named in each finding.

    Returns
    -------
    list of str
        At most one finding.
    """
    from ..solve.backends import CHOICES, KRYLOV_BACKENDS

    name = model.backend
    if name not in CHOICES:
        return [f"{source}: 'solver.backend' = {name!r} is not a backend; choose one of "
                f"{', '.join(CHOICES)}"]
    floating = model.problem.system.floating_bodies() if name in KRYLOV_BACKENDS else []
    if floating:
        return [f"{source}: 'solver.backend' = {name!r} needs every body supported, but "
                f"{', '.join(repr(b) for b in floating)} is held only by contact (its stiffness "
                f"is singular); use 'schur' or 'auto'"]
    return []
