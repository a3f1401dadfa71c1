"""Independent references: closed-form contact solutions and the figures of a result measured against them.

* :mod:`.analytic2d` -- Hertz and Cattaneo–Mindlin line contact of
  cylinders (plane strain), effective modulus and radius;
* :mod:`.analytic3d` -- Hertz and Cattaneo–Mindlin contact of spheres;
* :mod:`.metrics` -- a finished static run against the reference its case
  names (``[reference] type = "hertz_line"``, ``"uniform_stress"``, ...),
  every parameter read from the resolved case;
* :mod:`.dynamic_metrics` -- a dynamic run's time series against rigid
  blocks with friction (stick–slip, sliding on an incline, velocity
  weakening) and the energy balance.

The analytic modules use numpy only; the metrics read a built model and a
state and write the ``metrics`` of ``summary.json``.
"""
