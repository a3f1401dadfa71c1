"""Write the Gmsh meshes of the cases from the .geo files in this folder.

    pip install gmsh        # only needed to regenerate the meshes
    python meshes/make_meshes.py

Each .geo gives a linear and a quadratic mesh (``<name>.msh``, ``<name>_p2.msh``),
in Gmsh's MSH 4.1 format, with the physical groups as boundary names.
"""

from pathlib import Path

import gmsh

HERE = Path(__file__).resolve().parent
MESHES = {"half_disc": 2, "block": 3, "sphere_section": 2}


def main() -> None:
    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    for name, dim in MESHES.items():
        for order, suffix in ((1, ""), (2, "_p2")):
            gmsh.clear()
            gmsh.open(str(HERE / f"{name}.geo"))
            gmsh.model.mesh.generate(dim)
            if order == 2:
                gmsh.model.mesh.setOrder(2)
            gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
            gmsh.write(str(HERE / f"{name}{suffix}.msh"))
    gmsh.finalize()


if __name__ == "__main__":
    main()
