// Idealized left ventricle (Land et al. 2015 cardiac mechanics benchmark, problem 2):
// truncated ellipsoids of revolution about the z axis,
//   endocardium: semi-axes 7 mm (x, y) and 17 mm (z)
//   epicardium : semi-axes 10 mm (x, y) and 20 mm (z)
// cut by the base plane z = 5 mm (apex at z = -17 / -20 mm).
// Mesh:  gmsh -3 -clmax 1.0 -format msh41 lv.geo -o lv.msh   (units: mm)
// lv_6k.msh.xz (6 514 vertices, 27 535 tets; base of the refinement study, -mesh lv6k -refine 0..3):
//   gmsh -3 -clmax 0.85 -format msh41 lv.geo -o lv_6k.msh && xz -9 lv_6k.msh   (gmsh 4.8.4)
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Dilate {{0, 0, 0}, {10, 10, 20}} { Volume{1}; }
Sphere(2) = {0, 0, 0, 1};
Dilate {{0, 0, 0}, {7, 7, 17}} { Volume{2}; }
Box(3) = {-30, -30, 5, 60, 60, 30};
BooleanDifference(4) = { Volume{1}; Delete; }{ Volume{2}; Volume{3}; Delete; };
Physical Volume("myocardium", 1) = {4};
Mesh.ElementOrder = 1;
Mesh.Optimize = 1;
