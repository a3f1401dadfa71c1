"""Looking at results: read a run folder into a pyvista grid, traction pictures, profiles and time plots (pyvista and matplotlib are imported only here)."""
