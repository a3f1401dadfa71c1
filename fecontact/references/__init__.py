"""Independent references: analytic solutions (Hertz, Cattaneo–Mindlin, stick–slip) and the figures of a result measured against them."""
