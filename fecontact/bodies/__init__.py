"""Elastic bodies: scikit-fem meshes with a material, their stiffness and the assembled bulk system."""
