r"""Result folders read back for pictures: ``summary.json``, the VTU series and pyvista grids.

The figures of :mod:`fecontact.visuals.traction` and
:mod:`fecontact.visuals.profiles` start here, from a result folder
(``summary.json`` plus the VTU series) or a
:class:`fecontact.run.result.RunResult`:

:class:`ResultFolder`
    The summary and the ``(time, VTU file)`` steps of the ``.pvd`` index.
:func:`to_grid`
    The state at one output step as a ``pyvista.UnstructuredGrid`` with all
    point data of the VTU (displacement, contact pressure and traction, gap,
    slip, status, von Mises stress, ...).
:func:`deformed`, :func:`auto_scale`, :func:`with_tangential_traction`
    The deformed configuration, a displacement magnification and the
    magnitude of the tangential traction as extra point data.

``import fecontact`` does not import pyvista or matplotlib; this module
imports pyvista when :func:`to_grid` is called.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

from ..io.errors import one_line

@dataclass(frozen=True)
class ResultFolder:
    """A run's output folder.

    Attributes
    ----------
    path : Path
    summary : dict
    steps : list of (time, Path)
        The VTU files of the ``.pvd`` index, in order.
    """

    path: Path
    summary: dict
    steps: list

    @staticmethod
    def open(path) -> "ResultFolder":
        """Read a run's output folder: its ``summary.json`` and the VTU steps of its ``.pvd`` index.

        Parameters
        ----------
        path : str, Path or RunResult
            The folder, or anything with an ``out_dir`` attribute
            (:class:`fecontact.run.result.RunResult`).

        Returns
        -------
        ResultFolder
            ``steps`` is empty when the run wrote no VTU files.

        Raises
        ------
        FileNotFoundError
            When the folder has no ``summary.json``.
        ResultFolderError
            When a file of the folder is damaged: ``summary.json`` is not a
            JSON object, the ``.pvd`` index is not a well-formed VTK
            collection, or a VTU file it lists is missing.
        """
        path = Path(getattr(path, "out_dir", path))
        summary_path = path / "summary.json"
        if not summary_path.is_file():
            raise FileNotFoundError(f"{path}: no summary.json (not a fecontact result folder)")
        try:
            summary = json.loads(summary_path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ResultFolderError(f"{summary_path}: damaged ({one_line(err)})") from None
        if not isinstance(summary, dict):
            raise ResultFolderError(f"{summary_path}: damaged (a JSON {type(summary).__name__}, "
                                    f"not an object)")
        steps = []
        pvd = sorted(path.glob("*.pvd"))
        if pvd:
            steps = _pvd_steps(pvd[0])
        return ResultFolder(path, summary, steps)

    @property
    def dim(self) -> int:
        """Spatial dimension of the run, from the summary (2 when it does not say)."""
        return int(self.summary.get("dim", 2))


class ResultFolderError(ValueError):
    """A damaged file in a result folder (one line: the file and what is wrong)."""


def _pvd_steps(pvd: Path) -> list:
    """``(time, VTU path)`` of every data set of a ``.pvd`` index; each file must exist."""
    try:
        root = ElementTree.parse(pvd).getroot()
        steps = [(float(d.get("timestep")), pvd.parent / d.get("file")) for d in root.iter("DataSet")]
    except ElementTree.ParseError as err:
        raise ResultFolderError(f"{pvd}: damaged index ({one_line(err)})") from None
    except (TypeError, ValueError):
        raise ResultFolderError(f"{pvd}: damaged index (a DataSet without a numeric timestep "
                                f"or a file)") from None
    for _, vtu in steps:
        if not vtu.is_file():
            raise ResultFolderError(f"{vtu}: missing (listed in {pvd.name})")
    return steps


def to_grid(source, step: int = -1):
    """The state at output ``step`` (default the last) as a ``pyvista.UnstructuredGrid``.

    Parameters
    ----------
    source : path of a result folder, ResultFolder or RunResult
    """
    import pyvista as pv

    _quiet_vtk()
    folder = source if isinstance(source, ResultFolder) else ResultFolder.open(source)
    if not folder.steps:
        raise FileNotFoundError(f"{folder.path}: {why_no_vtu(folder)}")
    n = len(folder.steps)
    if not -n <= step < n:
        raise ResultFolderError(f"{folder.path}: no output step {step}; the folder holds {n} "
                                f"(steps 0..{n - 1}, or -{n}..-1 counted from the last)")
    vtu = folder.steps[step][1]
    try:
        ElementTree.parse(vtu)                   # a cut-short file, before VTK prints about it
    except (ElementTree.ParseError, OSError) as err:
        raise ResultFolderError(f"{vtu}: damaged ({one_line(err)})") from None
    try:
        with warnings.catch_warnings():        # a damaged file is reported below, in one line
            warnings.simplefilter("ignore")
            grid = pv.read(vtu)
    except Exception as err:                   # VTK and pyvista raise many types
        raise ResultFolderError(f"{vtu}: damaged ({one_line(err)})") from None
    if grid.n_points == 0 or "displacement" not in grid.point_data:
        raise ResultFolderError(f"{vtu}: damaged (no points or no displacement field could be "
                                f"read; cut short or not written by fecontact)")
    return grid


def why_no_vtu(folder: ResultFolder) -> str:
    """Why a result folder has no VTU series, from its ``summary.json`` and the case it names.

    ``output.vtu = false`` is blamed only when the overrides or the case file say so; a run
    that failed before its first output level, or that records no step, is described as such.
    """
    s = folder.summary
    if _vtu_switched_off(s, folder.path):
        return "no VTU files: the run had VTU output switched off (output.vtu = false)"
    steps = s.get("steps", [])
    written = [st for st in steps if st.get("converged", True)]
    if not s.get("converged", True) and not written:
        reason = s.get("reason")
        at = f" (load {steps[0]['load']:.6g})" if steps and "load" in steps[0] else ""
        return (f"no VTU files: the run failed in its first step{at}, before its first output"
                + (f": {reason}" if reason else ""))
    if not steps:
        return "no VTU files: summary.json records no output step"
    return (f"no VTU files, though summary.json records {len(written)} output steps "
            f"(the files were removed or moved)")


def _vtu_switched_off(summary: dict, path: Path) -> bool:
    """``output.vtu = false`` in the run's overrides or, failing those, in its case file."""
    for item in summary.get("overrides", []) or []:
        key, _, value = str(item).partition("=")
        if key.strip() == "output.vtu":
            return value.strip().lower() in ("false", "0", "no")
    case_file = summary.get("case_file")
    if not case_file:
        return False
    import tomllib

    for candidate in (Path(case_file), path / case_file):
        try:
            case = tomllib.loads(candidate.read_text())
        except (OSError, ValueError):
            continue
        output = case.get("output", {})
        return isinstance(output, dict) and output.get("vtu", True) is False
    return False


def _quiet_vtk() -> None:
    """Without a display VTK tries X first and logs a warning before it renders off-screen."""
    try:
        from vtkmodules.vtkCommonCore import vtkLogger
    except ImportError:             # pragma: no cover - older VTK
        return
    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)


def deformed(grid, scale: float):
    """A copy of ``grid`` with its points moved by ``scale`` times the ``displacement`` point data."""
    out = grid.copy()
    out.points = grid.points + scale * grid.point_data["displacement"]
    return out


def auto_scale(grid) -> float:
    """Displacement magnification: 1, or what makes the largest displacement 5 % of the size."""
    u = np.linalg.norm(grid.point_data["displacement"], axis=1).max(initial=0.0)
    size = np.linalg.norm(np.ptp(grid.points, axis=0))
    if u == 0.0 or u >= 0.05 * size:
        return 1.0
    return float(0.05 * size / u)

def with_tangential_traction(grid):
    """Adds ``tangential_traction``: the magnitude of the traction minus its normal part."""
    t = grid.point_data["contact_traction"]
    p = grid.point_data["contact_pressure"]
    # the normal component is the pressure; the rest is tangential
    grid.point_data["tangential_traction"] = np.sqrt(np.maximum(np.sum(t * t, axis=1) - p * p, 0.0))
    return grid
