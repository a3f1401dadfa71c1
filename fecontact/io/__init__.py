"""Files: Gmsh and other mesh files in, VTU/PVD results and ``summary.json`` out."""
