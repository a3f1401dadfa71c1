"""A result folder checked against itself before a restart takes it over.

``--restart`` continues a run from what its folder holds: the restart
file's step index, state and arrays, the entries of ``summary.json`` and
the ``.pvd`` list with the VTU files it names.  Each of these is checked
against the others and against the case before anything is written, so a
damaged or altered folder is refused in one line that names the file
(:class:`~fecontact.run.checkpoint.RestartError`, exit status 2), and the
steps it already holds are never rewritten:

* the **step index** is a whole number from 1 to the case's step count
  (a restart file is written with every step, so 0 or less, or more steps
  than the case has, cannot be one a run wrote), and the state's time is
  the time of that step;
* the **state** and the stepping's arrays are finite numbers;
* ``summary.json``'s **entries** have their types: ``steps`` a list of
  tables, one per written step up to the index and at most one beyond it
  (a step interrupted while it was written, or the level a run failed in),
  each at its step's load or time; ``restarts`` a list of tables;
  ``reason`` a string; in dynamics a ``time_series`` of lists that reaches
  the index, at the state's time;
* the **.pvd list** the restart file carries names plain ``.vtu`` files
  of the folder, in the order of their times, none after the state, and
  every one of them is there; the ``.pvd`` file itself is well formed and
  lists them, and at most one more.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields
from numbers import Real
from pathlib import Path

import numpy as np

from ..io.errors import one_line
from .checkpoint import RESTART, Checkpoint, RestartError

SUMMARY = "summary.json"

#: arrays the stepping of each analysis needs besides the state, and whether they are nodal vectors
NEEDED = {"static": {"dt": False}, "dynamic": {"velocity": True, "acceleration": True}}


def read_summary(folder: Path) -> dict:
    """The ``summary.json`` of a result folder (empty when there is none).

    Raises
    ------
    RestartError
        It is not JSON, or not a JSON object (one line naming it).
    """
    path = Path(folder) / SUMMARY
    try:
        old = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise RestartError(f"{path}: damaged summary ({one_line(err)}); the steps it records "
                           f"cannot be carried over") from None
    if not isinstance(old, dict):
        raise RestartError(f"{path}: damaged summary (a JSON {type(old).__name__}, not an object); "
                           f"the steps it records cannot be carried over")
    return old


def model_steps(model) -> tuple:
    """``(kind, total, step_time)`` of a built case: its analysis, step count and step times.

    Parameters
    ----------
    model : CaseModel

    Returns
    -------
    (str, int, callable(int) -> float)
        ``"static"`` with its load levels, or ``"dynamic"`` with its time
        steps (``k dt``, the last at ``t_end``).
    """
    dyn = model.dynamics
    if dyn is None:
        levels = model.levels
        return "static", len(levels), lambda k: float(levels[k - 1])
    return "dynamic", dyn.n_steps, lambda k: float(dyn.step_time(k))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _kind(value) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "a list", dict: "a table", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def index_findings(cp: Checkpoint, total: int, step_time) -> str:
    """The step index and the state's time against the case (``""`` when they fit).

    Parameters
    ----------
    cp : Checkpoint
        The restart file read back.
    total : int
        Steps of the whole run (load levels, or time steps in dynamics).
    step_time : callable(int) -> float
        The time (load level) of step ``k``, ``1 <= k <= total``.

    Returns
    -------
    str
        What does not fit, or ``""``.
    """
    index = cp.meta.get("index")
    if isinstance(index, bool) or not isinstance(index, int):
        return f"its step index {index!r} is not a whole number"
    if not 1 <= index <= total:
        return (f"its step index {index} is outside 1..{total}, the steps of this case "
                f"(a run writes its restart file after each step)")
    t = step_time(index)
    if not _close(cp.state.t, t):
        return (f"its state is at t={cp.state.t!r}, but step {index} of the case is at t={t!r}")
    if not (np.all(np.isfinite(cp.state.u)) and np.all(np.isfinite(cp.state.multiplier))):
        return "its displacements or tractions are not all finite"
    found = _state_findings(cp.state)
    if found:
        return found
    for name, nodal in NEEDED.get(cp.analysis, {}).items():
        if name not in cp.arrays:
            return f"it has no '{name}', which the stepping needs"
        if nodal and np.shape(cp.arrays[name]) != np.shape(cp.state.u):
            return f"its '{name}' has shape {np.shape(cp.arrays[name])}, not that of the displacements"
    for name, value in cp.arrays.items():
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            return f"its array '{name}' holds {a.dtype} values, not numbers"
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            return f"its array '{name}' is not all finite"
    return ""


def _state_findings(state) -> str:
    """Every array of a state and of its increment start: numbers, finite, of the state's sizes."""
    m = np.shape(state.multiplier)[0]
    parts = [("", state)] + ([("start.", state.start)] if state.start is not None else [])
    for prefix, record in parts:
        for f in fields(record):
            value = getattr(record, f.name)
            if f.name in ("t", "start") or value is None:
                continue
            a = np.asarray(value)
            if a.dtype.kind not in "biuf":
                return f"its '{prefix}{f.name}' holds {a.dtype} values, not numbers"
            if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                return f"its '{prefix}{f.name}' is not all finite"
            rows = state.u.size if f.name == "u" else m
            if a.ndim == 0 or a.shape[0] != rows:
                return (f"its '{prefix}{f.name}' has shape {a.shape}, not {rows} "
                        f"{'displacements' if f.name == 'u' else 'rows, one per contact node'}")
    if state.start is not None and not np.isfinite(state.start.t):
        return "its 'start.t' is not finite"
    return ""


def _entry_index(kind: str, position: int, entry: dict):
    """The step an entry of ``steps`` belongs to: its place (statics) or its ``step`` (dynamics)."""
    return position + 1 if kind == "static" else entry.get("step")


def summary_findings(old: dict, cp: Checkpoint, kind: str, step_time) -> str:
    """``summary.json``'s entries against their types and the restart file (``""`` when they fit).

    Parameters
    ----------
    old : dict
        The summary the folder holds (empty when it has none).
    cp : Checkpoint
        The restart file.
    kind : {"static", "dynamic"}
        The analysis.
    step_time : callable(int) -> float
        The time (load level) of step ``k``.

    Returns
    -------
    str
    """
    if not old:
        return f"is missing; it records the steps of the run ({RESTART} is at step {cp.index})"
    for key, want, test in (("steps", "a list", lambda v: isinstance(v, list)),
                            ("restarts", "a list", lambda v: isinstance(v, list)),
                            ("reason", "a string", lambda v: isinstance(v, str)),
                            ("time_series", "a table", lambda v: isinstance(v, dict))):
        if key in old and old[key] is not None and not test(old[key]):
            return f"its '{key}' is {_kind(old[key])}, not {want}"
    if any(not isinstance(r, dict) for r in old.get("restarts") or []):
        return "its 'restarts' holds entries that are not tables"
    steps = old.get("steps") or []
    where, time_key = ("load", "load") if kind == "static" else ("step", "time")
    previous = 0
    for position, entry in enumerate(steps):
        if not isinstance(entry, dict):
            return f"its 'steps' entry {position + 1} is {_kind(entry)}, not a table"
        k = _entry_index(kind, position, entry)
        if isinstance(k, bool) or not isinstance(k, int) or k <= previous:
            return (f"its 'steps' entry {position + 1} has no step number after {previous} "
                    f"('step' = {entry.get('step')!r})")
        previous = k
        if k > cp.index:
            if position + 1 < len(steps):
                return (f"records steps beyond step {cp.index}, where {RESTART} stands: the "
                        f"restart file is older than the results, which a restart would rewrite")
            continue                      # written while it was interrupted, or the level it failed in
        t = entry.get(time_key)
        if not _number(t) or not _close(float(t), step_time(k)):
            return (f"its 'steps' entry {position + 1} has {where} {t!r}, but step {k} of the "
                    f"case is at {step_time(k)!r}")
    if not any(_entry_index(kind, i, e) == cp.index for i, e in enumerate(steps)):
        return (f"records {len(steps)} steps (up to step {previous}), but {RESTART} is at "
                f"step {cp.index}")
    if kind == "dynamic":
        return _series_findings(old.get("time_series"), cp)
    return ""


def _series_findings(series, cp: Checkpoint) -> str:
    """A dynamic summary's time series: lists (in nested tables) reaching step ``cp.index``."""
    if not isinstance(series, dict) or "t" not in series:
        return "has no 'time_series' with times 't'"

    def lists(value, path):
        if isinstance(value, dict):
            for k, v in value.items():
                found = lists(v, f"{path}.{k}")
                if found:
                    return found
            return ""
        if not isinstance(value, list):
            return f"its '{path}' is {_kind(value)}, not a list"
        if len(value) < cp.index + 1:
            return f"its '{path}' has {len(value)} entries, fewer than the {cp.index + 1} up to step {cp.index}"
        return ""

    found = lists(series, "time_series")
    if found:
        return found
    t = series["t"][cp.index]
    if not _number(t) or not _close(float(t), cp.state.t):
        return f"its 'time_series.t' at step {cp.index} is {t!r}, but {RESTART} is at t={cp.state.t!r}"
    return ""


def pvd_findings(folder: Path, cp: Checkpoint) -> tuple:
    """The ``.pvd`` list of the restart file against the folder: ``(file, what)``, ``("", "")`` when it fits.

    Parameters
    ----------
    folder : Path
        The output folder.
    cp : Checkpoint
        The restart file.

    Returns
    -------
    (str, str)
        The file a finding is about and the finding.
    """
    entries = cp.meta.get("pvd", [])
    if not isinstance(entries, list):
        return RESTART, f"its .pvd list is {_kind(entries)}, not a list"
    last = -math.inf
    for i, entry in enumerate(entries):
        if not (isinstance(entry, list) and len(entry) == 2 and _number(entry[0])
                and isinstance(entry[1], str)):
            return RESTART, f"its .pvd entry {i + 1} is not a time and a file name: {entry!r}"
        t, name = float(entry[0]), entry[1]
        if Path(name).name != name or "\\" in name or not name.endswith(".vtu") or name.startswith("."):
            return RESTART, f"its .pvd entry {i + 1} names {name!r}, not a VTU file of the folder"
        if t < last or t > cp.state.t + 1e-9 * max(1.0, abs(cp.state.t)):
            return RESTART, (f"its .pvd entry {i + 1} ({name}) is at t={t!r}, out of order or "
                             f"after the state (t={cp.state.t!r})")
        last = t
        if not (folder / name).is_file():
            return name, (f"is listed in the .pvd index of {RESTART} (step at t={t:.6g}) but the "
                          f"folder no longer holds it")
    if len(entries) > cp.index:
        return RESTART, f"its .pvd list has {len(entries)} entries, more than its {cp.index} steps"
    return "", ""


def index_file_findings(folder: Path, name: str, cp: Checkpoint) -> str:
    """The ``.pvd`` file on disk against the restart file's list (``""`` when they agree).

    The file lists the restart file's entries, and at most one more: the step
    being written when the run stopped (its index comes before its restart
    file), or the partial VTU of the level a run failed in.

    Parameters
    ----------
    folder : Path
        The output folder.
    name : str
        The case name (the index is ``<name>.pvd``).
    cp : Checkpoint
        The restart file, its ``.pvd`` list already checked (:func:`pvd_findings`).

    Returns
    -------
    str
    """
    from xml.etree import ElementTree

    listed = [entry[1] for entry in cp.meta.get("pvd", [])]
    if not listed:
        return ""
    path = folder / f"{name}.pvd"
    if not path.is_file():
        return f"is missing, though {RESTART} records {len(listed)} VTU files in it"
    try:
        files = [d.get("file") for d in ElementTree.parse(path).getroot().iter("DataSet")]
    except (ElementTree.ParseError, OSError) as err:
        return f"is not a well-formed .pvd index ({one_line(err)})"
    if files[:len(listed)] != listed or len(files) > len(listed) + 1:
        return (f"lists {len(files)} VTU files that do not begin with the {len(listed)} "
                f"{RESTART} records ({', '.join(listed[:2])}{', ...' if len(listed) > 2 else ''})")
    return ""


def check_folder(folder: Path, cp: Checkpoint, model, name: str | None = None) -> dict:
    """Refuse a restart from a folder that does not hold together (see the module docstring).

    Parameters
    ----------
    folder : Path
        The output folder.
    cp : Checkpoint
        Its restart file.
    model : CaseModel
        The case it is to continue.
    name : str, optional
        The case name, whose ``<name>.pvd`` is checked (not without it).

    Returns
    -------
    dict
        The folder's ``summary.json``, as checked (the restart carries its steps over).

    Raises
    ------
    RestartError
        One line: the file, what does not fit, and that nothing was changed.
    """
    folder = Path(folder)
    kind, total, step_time = model_steps(model)
    if cp.analysis != kind:
        raise RestartError(f"{folder / RESTART}: the run there is {cp.analysis}, this case is "
                           f"{kind}; nothing to continue")
    old = read_summary(folder)
    unchanged = "the folder does not hold together; nothing in it was changed"
    found = index_findings(cp, total, step_time)
    if found:
        raise RestartError(f"{folder / RESTART}: {found}; {unchanged}")
    found = summary_findings(old, cp, kind, step_time)
    if found:
        raise RestartError(f"{folder / SUMMARY}: {found}; {unchanged}")
    where, found = pvd_findings(folder, cp)
    if found:
        raise RestartError(f"{folder / where}: {found}; {unchanged}")
    found = index_file_findings(folder, name, cp) if name is not None else ""
    if found:
        raise RestartError(f"{folder / (name + '.pvd')}: {found}; {unchanged}")
    return old
