"""Restart files: the state of a run after its last written step.

``restart.npz`` in the output folder is replaced (atomically) after every
written step.  It holds the :class:`~fecontact.solve.state.StepState` and what
the stepping needs to carry on exactly as an uninterrupted run would: in
statics the current increment size and the previous accepted increment
(the predictor extrapolates from it); in dynamics the velocity,
acceleration, end-of-step forces and the energy ledger.  A fingerprint of
the case (everything but the ``solver``, ``output``, ``reference``,
``name`` and ``description`` tables, plus the bytes of mesh files) guards
against restarting a different problem; solver settings may change, so a
run that failed can be continued with, say, more cut-backs.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from ..io.atomic import replacing
from ..io.errors import one_line
from ..solve.state import IncrementStart, StepState

RESTART = "restart.npz"
#: case tables a restart may change
FREE_TABLES = ("solver", "output", "reference", "name", "description", "_path", "_dir")


class RestartError(Exception):
    """A restart that cannot continue (one line: what and why)."""


def fingerprint(case: dict) -> str:
    """SHA-256 of what defines the problem: the case without :data:`FREE_TABLES`, and mesh files.

    Parameters
    ----------
    case : dict
        The case as read (:func:`fecontact.case.schema.load_case`).

    Returns
    -------
    str
        Hexadecimal digest.
    """
    core = {k: v for k, v in case.items() if k not in FREE_TABLES}
    h = hashlib.sha256(json.dumps(core, sort_keys=True, default=str).encode())
    base = Path(case.get("_dir", "."))
    for body in case.get("bodies", []):
        mesh = body.get("mesh", {})
        if "file" in mesh and (base / mesh["file"]).is_file():
            h.update((base / mesh["file"]).read_bytes())
    return h.hexdigest()


def state_arrays(state: StepState, prefix: str = "state.") -> dict:
    """Flat ``{name: array}`` of a state (and its increment start).

    Parameters
    ----------
    state : StepState
        The state.
    prefix : str
        Prefix of every name.

    Returns
    -------
    dict
        Name -> array.
    """
    out = {}
    for f in fields(StepState):
        value = getattr(state, f.name)
        if f.name == "start":
            if value is not None:
                for g in fields(IncrementStart):
                    if getattr(value, g.name) is not None:
                        out[f"{prefix}start.{g.name}"] = np.asarray(getattr(value, g.name))
            continue
        if value is not None:
            out[prefix + f.name] = np.asarray(value)
    return out


def state_from(arrays, prefix: str = "state.") -> StepState:
    """Inverse of :func:`state_arrays`.

    Parameters
    ----------
    arrays : mapping
        Name -> array, as :func:`state_arrays` gives them.
    prefix : str
        Prefix of the state's names.

    Returns
    -------
    StepState
    """
    values = {}
    optional = ("approach",)      # absent from states written before it existed
    for f in fields(StepState):
        if f.name == "start" or (f.name in optional and prefix + f.name not in arrays):
            continue
        a = arrays[prefix + f.name]
        values[f.name] = float(a) if f.name == "t" else np.array(a)
    start = None
    if any(k.startswith(f"{prefix}start.") for k in arrays) and f"{prefix}start.t" not in arrays:
        raise KeyError(f"{prefix}start.t")              # an increment start cut short
    if f"{prefix}start.t" in arrays:
        s = {g.name: np.array(arrays[f"{prefix}start.{g.name}"]) for g in fields(IncrementStart)
             if g.name not in optional or f"{prefix}start.{g.name}" in arrays}
        s["t"] = float(s["t"])
        start = IncrementStart(**s)
    return StepState(**values, start=start)


@dataclass(frozen=True)
class Checkpoint:
    """What a restart reads back.

    Attributes
    ----------
    analysis : str
        ``"static"`` or ``"dynamic"``.
    index : int
        Written steps so far (load levels, or time steps in dynamics).
    state : StepState
        The state after them.
    arrays : dict
        Everything else the stepping saved (name -> array).
    meta : dict
        JSON data: fingerprint, ``pvd`` entries, DOF count.
    """

    analysis: str
    index: int
    state: StepState
    arrays: dict
    meta: dict


def save(folder: Path, analysis: str, index: int, state: StepState, arrays: dict, meta: dict) -> None:
    """Write ``folder/restart.npz`` atomically.

    Parameters
    ----------
    folder : Path
        The output folder.
    analysis : str
        ``"static"`` or ``"dynamic"``.
    index : int
        Steps written so far.
    state : StepState
        The state after them.
    arrays : dict
        Everything else the stepping needs to continue (name -> array).
    meta : dict
        JSON data (fingerprint, ``pvd`` entries).
    """
    folder = Path(folder)
    data = state_arrays(state)
    data.update({f"extra.{k}": np.asarray(v) for k, v in arrays.items()})
    meta = dict(meta, analysis=analysis, index=int(index))
    data["meta"] = np.array(json.dumps(meta))
    with replacing(folder / RESTART) as tmp, open(tmp, "wb") as stream:
        np.savez(stream, **data)


def written_nothing(folder: Path) -> bool:
    """True for a folder a run made but stopped in before it wrote a step.

    Such a folder has no restart file (a step is written when its restart
    file is), and its ``summary.json``, if any, records at most one step: the
    first, stopped while it was written (the restart file comes last), or
    the level the run failed in.  A folder that does not exist is not one
    (a mistyped path is an error, not a fresh start), nor is one whose
    summary records more steps (its restart file is missing).
    """
    folder = Path(folder)
    if not folder.is_dir() or (folder / RESTART).exists():
        return False
    summary = folder / "summary.json"
    if not summary.is_file():
        return True
    try:
        steps = json.loads(summary.read_text()).get("steps")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return False                      # damaged: the restart reader says what is wrong
    return not steps or (isinstance(steps, list) and len(steps) <= 1)


def load(folder: Path, case: dict, n_dofs: int) -> Checkpoint:
    """Read ``folder/restart.npz`` and check that it belongs to ``case``.

    Parameters
    ----------
    folder : Path
        The output folder.
    case : dict
        The case to continue.
    n_dofs : int
        Its DOF count.

    Returns
    -------
    Checkpoint

    Raises
    ------
    RestartError
        No restart file, an unreadable one, or one of another problem.
    """
    path = Path(folder) / RESTART
    if not path.is_file():
        raise RestartError(f"{folder}: no {RESTART} (the folder holds no run to continue)")
    try:
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays.pop("meta")))
        state = state_from(arrays)
        if not isinstance(meta, dict):
            raise ValueError(f"its meta data is a {type(meta).__name__}, not a table")
    # a truncated, empty or altered file: not a zip archive, cut short, missing or
    # mis-shaped arrays
    except (OSError, ValueError, KeyError, EOFError, IndexError, TypeError,
            zipfile.BadZipFile) as err:
        raise RestartError(f"{path}: damaged restart file ({one_line(err)})") from None
    if meta.get("fingerprint") != fingerprint(case):
        raise RestartError(f"{path}: was written for a different problem than {case['_path']} "
                           f"(bodies, contact, loads or steps changed; only the solver, output "
                           f"and reference tables may change on restart)")
    if state.u.size != n_dofs:
        raise RestartError(f"{path}: has {state.u.size} DOFs, the case has {n_dofs}")
    m = np.shape(state.multiplier)[0] if np.ndim(state.multiplier) else -1
    for name in ("slip", "status", "gap", "normal", "tangent", "facet", "friction", "multiplier_basis"):
        if np.ndim(getattr(state, name)) == 0 or np.shape(getattr(state, name))[0] != m:
            raise RestartError(f"{path}: damaged restart file ('{name}' does not have one row per "
                               f"contact node, as 'multiplier' has {m})")
    extra = {k[len("extra."):]: v for k, v in arrays.items() if k.startswith("extra.")}
    try:
        return Checkpoint(str(meta["analysis"]), int(meta["index"]), state, extra, meta)
    except (KeyError, TypeError, ValueError) as err:
        raise RestartError(f"{path}: damaged restart file (meta data: {one_line(err)})") from None

