// Lower half of the unit disc about (0, 1): touches y = 0 at the origin.
// Boundaries (physical curves): "contact" (arc with |x| <= 0.3), "arc" (rest of the arc), "flat" (y = 1).
// Element size h_contact at the contact point, growing to h_far.
h_contact = 0.003;
h_far = 0.1;
r = 1.0;
xc = 0.3;                       // end of the contact arc
yc = 1.0 - Sqrt(r * r - xc * xc);

Point(1) = {0, 1, 0, h_far};    // centre
Point(2) = {-1, 1, 0, h_far};
Point(3) = {1, 1, 0, h_far};
Point(4) = {-xc, yc, 0, h_far};
Point(5) = {xc, yc, 0, h_far};
Point(6) = {0, 0, 0, h_contact};

Circle(1) = {2, 1, 4};
Circle(2) = {4, 1, 6};
Circle(3) = {6, 1, 5};
Circle(4) = {5, 1, 3};
Line(5) = {3, 2};
Curve Loop(1) = {1, 2, 3, 4, 5};
Plane Surface(1) = {1};

// grade the size with the distance from the contact point
Field[1] = Distance;
Field[1].PointsList = {6};
Field[2] = MathEval;
Field[2].F = Sprintf("Min(%g, %g + 0.2 * F1)", h_far, h_contact);
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;

Physical Curve("contact") = {2, 3};
Physical Curve("arc") = {1, 4};
Physical Curve("flat") = {5};
Physical Surface("disc") = {1};
