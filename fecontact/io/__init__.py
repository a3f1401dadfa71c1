"""Files in and out: mesh files read into scikit-fem, results written for ParaView and as JSON.

* :mod:`.meshfile` -- Gmsh ``.msh`` files (linear or quadratic, physical
  groups as boundary names) and anything meshio reads;
* :mod:`.meshformats` -- other tools' mesh files by extension: Exodus II
  (:mod:`.exodus`) and Abaqus/CalculiX input (:mod:`.abaqus`,
  :mod:`.abaqus_cards`), their sets as boundaries and subdomains through
  :mod:`.meshgroups`;
* :mod:`.output` -- one VTU file per output step (displacement, stress,
  contact pressure, traction, gap, slip, status), the ParaView ``.pvd``
  index and ``summary.json`` (both replaced atomically);
* :mod:`.errors` -- one-line messages about damaged files.

Reading results back for pictures is :mod:`fecontact.visuals.results`;
restart files are :mod:`fecontact.run.checkpoint`.
"""
