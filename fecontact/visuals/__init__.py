"""Looking at results: a run folder as pyvista grids, traction pictures, profiles and time plots.

* :mod:`.results` -- a result folder (``summary.json``, the VTU series) and
  its steps as pyvista grids;
* :mod:`.traction` -- off-screen pyvista pictures: von Mises stress,
  contact pressure and traction arrows, open/stick/slip
  (``fecontact plot``);
* :mod:`.profiles` -- matplotlib line plots: pressure and shear along the
  contact against the analytic solution, the Newton history;
* :mod:`.timeplot` -- the time series of a dynamic run.

pyvista and matplotlib are imported only here, and only when a function is
called: ``import fecontact`` needs neither.
"""
