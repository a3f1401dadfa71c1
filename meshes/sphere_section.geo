// Section r >= 0 of the lower half of the unit sphere about (0, 1), in the (r, z) half plane of
// an axisymmetric body: touches z = 0 at the pole (0, 0).
// Boundaries (physical curves): "contact" (arc with r <= 0.3), "arc" (rest of the arc),
// "axis" (r = 0), "flat" (z = 1).  Element size h_contact at the pole, growing to h_far.
h_contact = 0.004;
h_far = 0.1;
r = 1.0;
xc = 0.3;                       // end of the contact arc
yc = 1.0 - Sqrt(r * r - xc * xc);

Point(1) = {0, 1, 0, h_far};    // centre
Point(2) = {1, 1, 0, h_far};
Point(3) = {xc, yc, 0, h_far};
Point(4) = {0, 0, 0, h_contact};

Circle(1) = {4, 1, 3};
Circle(2) = {3, 1, 2};
Line(3) = {2, 1};
Line(4) = {1, 4};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};

// grade the size with the distance from the pole
Field[1] = Distance;
Field[1].PointsList = {4};
Field[2] = MathEval;
Field[2].F = Sprintf("Min(%g, %g + 0.05 * F1)", h_far, h_contact);
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;

Physical Curve("contact") = {1};
Physical Curve("arc") = {2};
Physical Curve("flat") = {3};
Physical Curve("axis") = {4};
Physical Surface("sphere") = {1};
