// Box [0, 1] x [0, 1] x [0, 0.5] of tetrahedra.
// Boundaries (physical surfaces): "bottom" (z = 0), "top" (z = 0.5), "left", "right", "front", "back".
h = 0.125;
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 0.5};
Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
// OpenCASCADE numbers the faces of a box: 1 x=0, 2 x=1, 3 y=0, 4 y=1, 5 z=0, 6 z=1
Physical Surface("left") = {1};
Physical Surface("right") = {2};
Physical Surface("front") = {3};
Physical Surface("back") = {4};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Volume("block") = {1};
