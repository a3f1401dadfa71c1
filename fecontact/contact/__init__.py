"""Contact geometry: surfaces, search and projection, gap and slip kinematics, obstacles and pairs.

Everything here measures; nothing enforces.  For each slave node (or, with
mortar, each slave shape function) it gives the normal gap, the slip
increment of the current increment and their first and second derivatives
with respect to the nodal coordinates involved.  The contact conditions on
these quantities are the friction laws' (:mod:`fecontact.friction`) and the
solver's (:mod:`fecontact.solve`).

* :mod:`.jet` -- second-order forward-mode differentiation over batches
  (value, gradient and Hessian of every kinematic quantity);
* :mod:`.surface` -- contact surfaces from named boundaries: nodes, outward
  linear facets, lumped nodal areas;
* :mod:`.search` -- KD-tree candidate search and closest-point projection
  onto master segments (2D) and facets, edges or vertices (3D);
* :mod:`.kinematics2d` -- node-to-segment, node-to-line and node-to-circle
  gap and slip;
* :mod:`.kinematics3d` -- node-to-triangle, -quadrilateral, -edge,
  -vertex, -plane and -sphere gap, two-component slip and tangent bases;
* :mod:`.mortar2d` -- segment-to-segment (mortar) weighted gap and slip;
* :mod:`.mortar3d` -- facet-to-facet (mortar) weighted gap and slip on
  triangle surfaces;
* :mod:`.mortar3d_quad` -- the same on quadrilateral facets and on
  triangles against quadrilaterals (:mod:`.facet_maps`: the facets' maps,
  inverse maps, dual functions and quadrature); :mod:`.mortar_facets`
  chooses between the two;
* :mod:`.obstacles` -- rigid lines, circles, planes and spheres moving
  with an amplitude, each measuring gap and slip against itself;
* :mod:`.pairs` -- a contact pair (slave surface, master, friction law,
  formulation) and its kinematics in global DOF numbering;
* :mod:`.interference` -- an initial overlap ramped in: each row's initial
  gap and the gap shifted by the overlap still allowed.
"""
