"""Siconos' global frictional contact problem PFC(M, H, q, b, mu): export, files, solvers.

* :mod:`.problem` -- the problem, the Coulomb cone projection, residuals;
* :mod:`.export` -- one increment of a finite-element run in PFC form;
* :mod:`.io` -- ``.npz`` problem and solution files (:mod:`.fclib`: FCLIB HDF5);
* :mod:`.ssn` -- the semismooth Newton method (Alart–Curnier) of the
  finite-element solver, applied to a PFC problem;
* :mod:`.nsgs` -- nonsmooth Gauss–Seidel on the Delassus problem.
"""

from .problem import GlobalProblem, PFCError, Residuals, project_on_cone  # noqa: F401
