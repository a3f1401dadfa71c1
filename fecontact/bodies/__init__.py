"""Elastic bodies and the assembled bulk system.

* :mod:`.body` -- a body: a scikit-fem mesh, an element (P1, P2, Q1), a
  material and the numbering of its DOF nodes, boundaries and facets;
* :mod:`.elasticity` -- the isotropic linear-elastic material, stiffness,
  mass, loads, stress and von Mises stress;
* :mod:`.p1` -- fast assembly of the P1 stiffness without quadrature;
* :mod:`.system` -- several bodies in one global numbering with their
  supports, couplings, loads, springs and amplitudes (``u = T u_hat + u_D``).

Nothing here knows about contact: the bulk stiffness is linear and
assembled once per problem.
"""
