"""Siconos' global frictional contact problem PFC(M, H, q, b, mu): export, files, solvers.

* :mod:`.problem` -- the problem, the Coulomb cone projection, residuals;
* :mod:`.export` -- one increment of a finite-element run in PFC form;
* :mod:`.io` -- ``.npz`` problem and solution files (:mod:`.fclib`: FCLIB HDF5);
* :mod:`.ssn` -- the semismooth Newton method (Alart–Curnier) of the
  finite-element solver, applied to a PFC problem;
* :mod:`.nsgs` -- nonsmooth Gauss–Seidel on the Delassus problem;
* :mod:`.command` -- the ``fecontact pfc export|solve`` command.

The problem and its files do not depend on the finite-element model:
:mod:`.export` makes one from a case, and the solvers reuse the Newton
method and factorisations of :mod:`fecontact.solve`.
"""

from .problem import GlobalProblem, PFCError, Residuals, project_on_cone

__all__ = ["GlobalProblem", "PFCError", "Residuals", "project_on_cone"]
