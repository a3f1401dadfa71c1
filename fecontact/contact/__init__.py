"""Contact geometry: surfaces, search, closest-point projection, gap and slip kinematics (node-to-segment, node-to-facet, mortar), rigid obstacles and contact pairs."""
