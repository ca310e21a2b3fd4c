/* DMAssemblyCreateMatrixFree (issue 19): the matrix-free Q_p mass (BP1) and Poisson (BP3) operators against PETSc's
   own assembled Jacobian on the same DM and PetscFE (DMPlexSNESComputeJacobianFEM with the PetscDS pointwise
   functions g0 = 1 / g3 = identity, the FE's tensor Gauss quadrature):
   - MatMult and MatMultAdd times random vectors: relative error <= 1e-12;
   - MatGetDiagonal (computed without the matrix) against the assembled matrix's;
   for every order in -orders, operator in -ops and variant in -types, on a box of -faces quads/hexes, optionally
   perturbed (-perturb a: interior vertices moved by a*h: non-affine) or curved (-curve: degree-2 coordinates
   remapped by a smooth map), with the boundary dofs constrained (-bc: eliminated, as PETSc does).
   -gpu: device vectors (the device kernels), and each variant also against its own host reference
   (-dm_assembly_matfree_host); elmat_max races on the device and is only reported there.
   -solve: CG + Jacobi (the matrix-free diagonal) to the manufactured u = prod sin(pi x_i) on -faces and 2 -faces
   (homogeneous Dirichlet): the L2 error must fall at the order p+1 (within 0.3).
   -assembled t1,t2: DMAssemblyMatFreeAssemble (the element matrices of -assembled_from, elmat_atomic, through COO)
   into each matrix type against the same Jacobian (entries and MatMult); -gpu: device values against host.
   -tensor_closure: the DM's closures permuted to tensor order (DMPlexSetClosurePermutationTensor); -cache_check: a
   second operator after the coordinates changed. */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscfe.h>

/* ellwarp_add_test(matfree.quad -dim 2 -orders 1,2,3,4,5,6,7,8 -faces 3 -bc PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.quad_curve -dim 2 -orders 1,3,6 -faces 3 -curve -bc -qextra 1 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.quad_perturb -dim 2 -orders 1,2,4,8 -faces 3 -perturb 0.2 -qextra 1 -bc PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.hex -dim 3 -orders 1,2,3,4 -faces 2 -bc -dm_assembly_matfree_check_map PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.hex_perturb -dim 3 -orders 1,2,3 -faces 2 -perturb 0.2 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.hex_curve -dim 3 -orders 2,3 -faces 2 -curve -bc -qextra 1 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.hex_high -dim 3 -orders 5,6,7,8 -faces 1 -types sumfact,sumfact_gather_recompute PASS_REGULAR_EXPRESSION "matfree: PASS" TIMEOUT 300) */
/* ellwarp_add_test(matfree.curve_recompute -dim 2 -orders 2 -faces 2 -curve -types sumfact_recompute EXPECT_ERROR "the recomputed geometry is the multilinear map") */
/* ellwarp_add_test(matfree.threads -dim 3 -orders 1,2 -faces 6 -bc -perturb 0.2 -types sumfact_gather,sumfact_gather_recompute,sumfact_private,elmat_color,elmat_gather,elmat_private -dm_assembly_matfree_host_threads 2 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.private -dim 2 -orders 1,3 -faces 5 -bc -perturb 0.2 -types sumfact_private,elmat_private,sumfact_private_recompute -dm_assembly_matfree_host_threads 0 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.private_threads3 -dim 2 -orders 2 -faces 7 -types elmat_private,sumfact_private -dm_assembly_matfree_host_threads 3 PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_private -dim 2 -orders 2 -faces 2 -types elmat_private -gpu GPU EXPECT_ERROR "private buffers") */
/* ellwarp_add_test(matfree.solve2d -dim 2 -orders 1,2,3 -faces 4 -solve PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.solve3d -dim 3 -orders 1,2 -faces 2 -solve PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.elmat_limit -dim 3 -orders 2 -faces 2 -perturb 0.2 -types elmat_atomic -dm_assembly_matfree_elmat_max_mb 0.01 EXPECT_ERROR "use -dm_assembly_matfree_type sumfact") */
/* ellwarp_add_test(matfree.bad_scatter -dim 2 -orders 2 -faces 2 -types elmat_color -dm_assembly_matfree_scatter gather EXPECT_ERROR "dm_assembly_matfree_scatter is for sumfact") */
/* ellwarp_add_test(matfree.coo_hex -dim 3 -orders 1,2,3 -faces 3 -bc -perturb 0.2 -types sumfact -assembled aij,ellwarp PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.coo_uniform -dim 3 -orders 2,4 -faces 2 -qextra 1 -types elmat_atomic -assembled ellwarp PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.coo_quad -dim 2 -orders 1,3,5 -faces 3 -curve -bc -types sumfact -assembled aij,ellwarp PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.tensor_closure -dim 3 -orders 1,2,3 -faces 3 -bc -perturb 0.2 -types sumfact,elmat_atomic -tensor_closure -assembled aij -dm_assembly_matfree_check_map PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.q1map -dim 3 -orders 1 -faces 7 -bc -perturb 0.2 -types sumfact,sumfact_recompute -dm_assembly_matfree_check_map PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.cache -dim 3 -orders 2 -faces 2 -bc -perturb 0.2 -types sumfact -cache_check PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.coo_sumfact -dim 2 -orders 2 -faces 2 -types sumfact -assembled aij -assembled_from sumfact EXPECT_ERROR "has no element matrices") */
/* ellwarp_add_test(matfree.gpu_coo -dim 3 -orders 1,2,3,4 -faces 3 -bc -perturb 0.2 -types sumfact -assembled aijcusparse,ellwarp -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_coo_uniform -dim 3 -orders 2,4 -faces 2 -qextra 1 -types elmat_atomic -assembled aijcusparse,ellwarp -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_quad -dim 2 -orders 1,2,3,4,5,6,7,8 -faces 6 -bc -perturb 0.2 -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_hex -dim 3 -orders 1,2,3,4 -faces 4 -bc -perturb 0.2 -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_hex_high -dim 3 -orders 5,8 -faces 1 -qextra 1 -types sumfact,sumfact_recompute,sumfact_gather_recompute -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS" TIMEOUT 600) */
/* ellwarp_add_test(matfree.gpu_hex_q -dim 3 -orders 3,6 -faces 2 -bc -types sumfact,sumfact_recompute -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS" TIMEOUT 600) */
/* ellwarp_add_test(matfree.gpu_solve -dim 3 -orders 2 -faces 3 -solve -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */
/* ellwarp_add_test(matfree.gpu_hex_bp3 -dim 3 -orders 4,6 -faces 3 -perturb 0.2 -qextra 1 -bc -types sumfact,sumfact_recompute,sumfact_gather -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS" TIMEOUT 600) */
/* ellwarp_add_test(matfree.gpu_hex_small -dim 3 -orders 1,2,3 -faces 3 -bc -perturb 0.2 -qextra 1 -types sumfact,sumfact_recompute,sumfact_gather,sumfact_gather_recompute -gpu GPU PASS_REGULAR_EXPRESSION "matfree: PASS") */

static void g0_one(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = 1.0;
}

static void g3_id(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) g3[i * dim + j] = i == j;
}

static void f0_src(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  PetscReal s = dim * PETSC_PI * PETSC_PI;
  for (PetscInt i = 0; i < dim; i++) s *= PetscSinReal(PETSC_PI * x[i]);
  f0[0] = -s;
}

static void f1_grad(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  for (PetscInt i = 0; i < dim; i++) f1[i] = u_x[i];
}

static PetscErrorCode exact(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1;
  for (PetscInt i = 0; i < dim; i++) u[0] *= PetscSinReal(PETSC_PI * x[i]);
  return PETSC_SUCCESS;
}

/* a smooth map of the unit box onto itself, curved inside (det J > 0 for the amplitude used) */
static void curve_map(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f[])
{
  PetscReal b = 1;
  for (PetscInt i = 0; i < dim; i++) b *= PetscSinReal(PETSC_PI * x[i]);
  for (PetscInt i = 0; i < dim; i++) f[i] = x[i] + 0.08 * b * (i + 1) / dim;
}

typedef struct {
  PetscInt  dim, faces, qextra;
  PetscReal perturb;
  PetscBool bc, curve, gpu;
  PetscInt  nat;        /* -assembled: matrix types for DMAssemblyMatFreeAssemble */
  char     *atypes[4];
  char      afrom[32];  /* -assembled_from: the operator's variant (elmat_atomic) */
  PetscBool tensor;     /* -tensor_closure: the section's closures permuted to tensor order */
} Opts;

static PetscErrorCode CreateProblem(const Opts *o, PetscInt p, PetscInt faces, PetscBool poisson, PetscBool solve, DM *dm)
{
  PetscInt        f[3] = {faces, faces, faces};
  PetscReal       lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  PetscFE         fe;
  PetscQuadrature quad;
  PetscDS         ds;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, o->dim, PETSC_FALSE, f, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  if (o->perturb > 0) {
    Vec          c;
    PetscScalar *a;
    PetscInt     n;
    PetscRandom  r;
    const PetscReal h = 1.0 / faces;
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
    PetscCall(PetscRandomSetSeed(r, 7));
    PetscCall(PetscRandomSeed(r));
    PetscCall(DMGetCoordinatesLocal(*dm, &c));
    PetscCall(VecGetLocalSize(c, &n));
    PetscCall(VecGetArray(c, &a));
    for (PetscInt v = 0; v < n / o->dim; v++) {
      PetscBool inside = PETSC_TRUE;
      for (PetscInt d = 0; d < o->dim; d++)
        if (PetscRealPart(a[v * o->dim + d]) < 1e-12 || PetscRealPart(a[v * o->dim + d]) > 1 - 1e-12) inside = PETSC_FALSE;
      if (!inside) continue;
      for (PetscInt d = 0; d < o->dim; d++) {
        PetscReal s;
        PetscCall(PetscRandomGetValueReal(r, &s));
        a[v * o->dim + d] += o->perturb * h * (s - 0.5);
      }
    }
    PetscCall(VecRestoreArray(c, &a));
    PetscCall(DMSetCoordinatesLocal(*dm, c));
    PetscCall(PetscRandomDestroy(&r));
  }
  if (o->curve) {
    PetscCall(DMPlexCreateCoordinateSpace(*dm, 2, PETSC_FALSE, PETSC_TRUE));
    PetscCall(DMPlexRemapGeometry(*dm, 0.0, curve_map));
  }
  if (o->gpu) PetscCall(DMSetVecType(*dm, VECCUDA));
  PetscCall(DMSetMatType(*dm, MATAIJ));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, o->dim, 1, PETSC_FALSE, p, PETSC_DETERMINE, &fe));
  PetscCall(PetscDTGaussTensorQuadrature(o->dim, 1, p + 1 + o->qextra, -1.0, 1.0, &quad));
  PetscCall(PetscFESetQuadrature(fe, quad));
  PetscCall(PetscQuadratureDestroy(&quad));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMCreateDS(*dm));
  if (o->bc || solve) {
    DMLabel  label;
    PetscInt id = 1;
    PetscCall(DMGetLabel(*dm, "marker", &label));
    if (!label) {
      PetscCall(DMCreateLabel(*dm, "marker"));
      PetscCall(DMGetLabel(*dm, "marker", &label));
      PetscCall(DMPlexMarkBoundaryFaces(*dm, 1, label));
      PetscCall(DMPlexLabelComplete(*dm, label));
    }
    PetscCall(DMAddBoundary(*dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (PetscVoidFn *)exact, NULL, NULL, NULL));
  }
  PetscCall(DMGetDS(*dm, &ds));
  if (poisson) PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3_id));
  else PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_one, NULL, NULL, NULL));
  if (solve) PetscCall(PetscDSSetResidual(ds, 0, f0_src, f1_grad));
  if (o->tensor) PetscCall(DMPlexSetClosurePermutationTensor(*dm, PETSC_DETERMINE, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateMF(DM dm, const char type[], PetscBool poisson, PetscBool host, Mat *A)
{
  DMAssembly as;

  PetscBool  sumfact, gather, recompute, priv;

  PetscFunctionBegin;
  /* sumfact[_gather|_private][_recompute]: sumfact with -dm_assembly_matfree_scatter gather|private / -dm_assembly_matfree_geometry recompute */
  PetscCall(PetscStrbeginswith(type, "sumfact", &sumfact));
  gather    = (PetscBool)(sumfact && strstr(type, "_gather"));
  priv      = (PetscBool)(sumfact && strstr(type, "_private"));
  recompute = (PetscBool)(sumfact && strstr(type, "_recompute"));
  if (gather) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_scatter", "gather"));
  if (priv) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_scatter", "private"));
  if (recompute) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_geometry", "recompute"));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_type", sumfact ? "sumfact" : type));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_op", poisson ? "poisson" : "mass"));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_host", host ? "1" : "0"));
  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblyCreateMatrixFree(as, A));
  PetscCall(DMAssemblyDestroy(&as));
  if (gather || priv) PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_scatter"));
  if (recompute) PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_geometry"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *r)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *r = nb > 0 ? nd / nb : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMAssemblyMatFreeAssemble: the element matrices of an elmat_atomic operator assembled through COO into each type
   of -assembled against PETSc's Jacobian J: ||B - J||_F / ||J||_F <= 1e-12 (entries, and so the pattern's values)
   and MatMult; with -gpu the device values (computed by the kernel) against the host reference's, same type */
static PetscErrorCode CheckAssembled(const Opts *o, DM dm, Mat J, PetscInt p, PetscBool poisson, Vec x, Vec yr, PetscInt *nfail)
{
  Mat       A;
  Vec       y;
  PetscReal nj;

  PetscFunctionBegin;
  PetscCall(CreateMF(dm, o->afrom, poisson, PETSC_FALSE, &A));
  PetscCall(MatNorm(J, NORM_FROBENIUS, &nj));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(MatMult(J, x, yr));
  for (PetscInt a = 0; a < o->nat; a++) {
    Mat       B, C;
    PetscReal ed, emult, ehost = 0;
    PetscInt  N;
    PetscCall(MatGetSize(A, &N, NULL));
    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, N, N, N, N));
    PetscCall(MatSetType(B, o->atypes[a]));
    PetscCall(DMAssemblyMatFreeAssemble(A, B));
    PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatAXPY(C, -1.0, J, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(C, NORM_FROBENIUS, &ed));
    ed /= nj;
    PetscCall(MatDestroy(&C));
    PetscCall(MatMult(B, x, y));
    PetscCall(RelDiff(y, yr, &emult));
    if (o->gpu) { /* device COO values against the host reference's */
      Mat Ah, Bh;
      PetscCall(CreateMF(dm, o->afrom, poisson, PETSC_TRUE, &Ah));
      PetscCall(MatCreate(PETSC_COMM_SELF, &Bh));
      PetscCall(MatSetSizes(Bh, N, N, N, N));
      PetscCall(MatSetType(Bh, o->atypes[a]));
      PetscCall(DMAssemblyMatFreeAssemble(Ah, Bh));
      PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
      PetscCall(MatDestroy(&Ah));
      {
        Mat Ch;
        PetscCall(MatConvert(Bh, MATAIJ, MAT_INITIAL_MATRIX, &Ch));
        PetscCall(MatAXPY(C, -1.0, Ch, DIFFERENT_NONZERO_PATTERN));
        PetscCall(MatDestroy(&Ch));
      }
      PetscCall(MatNorm(C, NORM_FROBENIUS, &ehost));
      ehost /= nj;
      PetscCall(MatDestroy(&C));
      PetscCall(MatDestroy(&Bh));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %dD Q%" PetscInt_FMT " %-7s assembled COO into %-11s dofs %6" PetscInt_FMT ": entries %.2e MatMult %.2e", (int)o->dim, p, poisson ? "poisson" : "mass", o->atypes[a], N, (double)ed, (double)emult));
    if (o->gpu) PetscCall(PetscPrintf(PETSC_COMM_SELF, " device vs host values %.2e", (double)ehost));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    if (!(ed <= 1e-12 && emult <= 1e-12 && ehost <= 1e-13)) {
      (*nfail)++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAIL (tolerance 1e-12, device vs host 1e-13)\n"));
    }
    PetscCall(MatDestroy(&B));
  }
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckOperator(const Opts *o, PetscInt p, PetscBool poisson, PetscInt ntypes, char *types[], PetscInt *nfail)
{
  DM          dm;
  Mat         J;
  Vec         u0, x, z, yr, y, dr, dg;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(CreateProblem(o, p, o->faces, poisson, PETSC_FALSE, &dm));
  PetscCall(DMCreateMatrix(dm, &J));
  PetscCall(DMCreateGlobalVector(dm, &u0));
  PetscCall(VecZeroEntries(u0));
  {
    Vec ul; /* PETSc's local FEM callbacks take local vectors */
    PetscCall(DMGetLocalVector(dm, &ul));
    PetscCall(VecZeroEntries(ul));
    PetscCall(DMPlexSNESComputeJacobianFEM(dm, ul, J, J, NULL));
    PetscCall(DMRestoreLocalVector(dm, &ul));
  }
  PetscCall(VecDuplicate(u0, &x));
  PetscCall(VecDuplicate(u0, &z));
  PetscCall(VecDuplicate(u0, &yr));
  PetscCall(VecDuplicate(u0, &y));
  PetscCall(VecDuplicate(u0, &dr));
  PetscCall(VecDuplicate(u0, &dg));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(MatGetDiagonal(J, dr));
  for (PetscInt t = 0; t < ntypes; t++) {
    Mat       A;
    PetscReal emult, eadd, ediag, ehost = 0;
    PetscInt  N;
    PetscBool racy = (PetscBool)(o->gpu && !strcmp(types[t], "elmat_max")), bad;
    PetscCall(CreateMF(dm, types[t], poisson, PETSC_FALSE, &A));
    if (t == 0 && p == 2) PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
    PetscCall(MatMult(J, x, yr));
    PetscCall(MatMult(A, x, y));
    PetscCall(RelDiff(y, yr, &emult));
    PetscCall(MatMultAdd(J, x, z, yr));
    PetscCall(MatMultAdd(A, x, z, y));
    PetscCall(RelDiff(y, yr, &eadd));
    PetscCall(MatGetDiagonal(A, dg));
    PetscCall(RelDiff(dg, dr, &ediag));
    if (o->gpu) { /* the device kernels against the host reference of the same layout */
      Mat B;
      Vec yh;
      PetscCall(VecDuplicate(u0, &yh));
      PetscCall(CreateMF(dm, types[t], poisson, PETSC_TRUE, &B));
      PetscCall(MatMult(A, x, y));
      PetscCall(MatMult(B, x, yh));
      PetscCall(RelDiff(y, yh, &ehost));
      PetscCall(MatDestroy(&B));
      PetscCall(VecDestroy(&yh));
    }
    bad = (PetscBool)(emult > 1e-12 || eadd > 1e-12 || ediag > 1e-12 || ehost > 1e-13 || PetscIsNanReal(emult));
    PetscCall(MatGetSize(A, &N, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %dD Q%" PetscInt_FMT " %-7s %-14s dofs %6" PetscInt_FMT ": MatMult %.2e MatMultAdd %.2e diagonal %.2e", (int)o->dim, p, poisson ? "poisson" : "mass", types[t], N, (double)emult, (double)eadd, (double)ediag));
    if (o->gpu) PetscCall(PetscPrintf(PETSC_COMM_SELF, " device vs host reference %.2e", (double)ehost));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    if (bad && !racy) {
      (*nfail)++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAIL (tolerance 1e-12, host reference 1e-13)\n"));
    } else if (bad) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (elmat_max races on the device: reported, not checked)\n"));
    PetscCall(MatDestroy(&A));
  }
  if (o->nat) PetscCall(CheckAssembled(o, dm, J, p, poisson, x, yr, nfail));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&dr));
  PetscCall(VecDestroy(&dg));
  PetscCall(VecDestroy(&u0));
  PetscCall(MatDestroy(&J));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element map and corners cached on the DM (DMAssemblyCreateMatrixFree) must follow the mesh: an operator,
   then the coordinates scaled by 2 (new coordinate state), then a second operator against PETSc's new Jacobian
   (a stale cache would give the old geometry: Poisson in 3-D scales with h, mass with h^3) */
static PetscErrorCode CheckCacheInvalidation(const Opts *o, PetscInt p, PetscBool poisson, PetscInt *nfail)
{
  DM        dm;
  Mat       J, A;
  Vec       c, x, y, yr, ul;
  PetscReal e;

  PetscFunctionBegin;
  PetscCall(CreateProblem(o, p, o->faces, poisson, PETSC_FALSE, &dm));
  PetscCall(CreateMF(dm, "sumfact_recompute", poisson, PETSC_FALSE, &A)); /* fills the cache */
  PetscCall(MatDestroy(&A));
  PetscCall(DMGetCoordinatesLocal(dm, &c));
  PetscCall(VecScale(c, 2.0));
  PetscCall(DMSetCoordinatesLocal(dm, c));
  PetscCall(DMCreateMatrix(dm, &J));
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(VecZeroEntries(ul));
  PetscCall(DMPlexSNESComputeJacobianFEM(dm, ul, J, J, NULL));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &yr));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(J, x, yr));
  for (PetscInt t = 0; t < 2; t++) { /* the corners (recompute) and the stored factors from them */
    PetscCall(CreateMF(dm, t ? "sumfact" : "sumfact_recompute", poisson, PETSC_FALSE, &A));
    PetscCall(MatMult(A, x, y));
    PetscCall(RelDiff(y, yr, &e));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %dD Q%" PetscInt_FMT " %-7s %s after the coordinates changed: MatMult %.2e\n", (int)o->dim, p, poisson ? "poisson" : "mass", t ? "sumfact" : "sumfact_recompute", (double)e));
    if (!(e <= 1e-12)) {
      (*nfail)++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAIL: the cached corners were not refreshed\n"));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&J));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG + Jacobi with the matrix-free operator on a box of faces^dim cells: the L2 error */
static PetscErrorCode Solve(const Opts *o, PetscInt p, PetscInt faces, PetscReal *err, PetscInt *its)
{
  DM          dm;
  Mat         A;
  Vec         u, b;
  KSP         ksp;
  PC          pc;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {exact};

  PetscFunctionBegin;
  PetscCall(CreateProblem(o, p, faces, PETSC_TRUE, PETSC_TRUE, &dm));
  PetscCall(CreateMF(dm, "sumfact", PETSC_TRUE, PETSC_FALSE, &A));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecZeroEntries(u));
  {
    Vec ul, fl; /* F(0) = -b, from PETSc's local residual with the (zero) boundary values */
    PetscCall(DMGetLocalVector(dm, &ul));
    PetscCall(DMGetLocalVector(dm, &fl));
    PetscCall(VecZeroEntries(ul));
    PetscCall(VecZeroEntries(fl));
    PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, ul, 0.0, NULL, NULL, NULL));
    PetscCall(DMPlexSNESComputeResidualFEM(dm, ul, fl, NULL));
    PetscCall(VecZeroEntries(b));
    PetscCall(DMLocalToGlobal(dm, fl, ADD_VALUES, b));
    PetscCall(DMRestoreLocalVector(dm, &ul));
    PetscCall(DMRestoreLocalVector(dm, &fl));
  }
  PetscCall(VecScale(b, -1.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DETERMINE, 10000));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, its));
  {
    KSPConvergedReason r;
    PetscCall(KSPGetConvergedReason(ksp, &r));
    PetscCheck(r > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "CG did not converge: %s", KSPConvergedReasons[r]);
  }
  PetscCall(DMComputeL2Diff(dm, 0.0, funcs, NULL, u, err));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Opts      o = {2, 2, 0, 0.0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 4, {NULL}, "elmat_atomic", PETSC_FALSE};
  PetscInt  orders[16], norders = 16, nfail = 0, ntypes = 8, nops = 2;
  char     *types[8], *opsv[2];
  PetscBool solve = PETSC_FALSE, tset, oset, aset, cachecheck = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "matfree test", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension", NULL, o.dim, &o.dim, NULL));
  PetscCall(PetscOptionsInt("-faces", "cells per direction", NULL, o.faces, &o.faces, NULL));
  PetscCall(PetscOptionsInt("-qextra", "Gauss points per direction beyond p+1", NULL, o.qextra, &o.qextra, NULL));
  PetscCall(PetscOptionsReal("-perturb", "interior vertices moved by this fraction of h", NULL, o.perturb, &o.perturb, NULL));
  PetscCall(PetscOptionsBool("-bc", "constrain the boundary dofs", NULL, o.bc, &o.bc, NULL));
  PetscCall(PetscOptionsBool("-curve", "degree-2 coordinates, curved", NULL, o.curve, &o.curve, NULL));
  PetscCall(PetscOptionsBool("-gpu", "device vectors", NULL, o.gpu, &o.gpu, NULL));
  PetscCall(PetscOptionsBool("-solve", "CG convergence study", NULL, solve, &solve, NULL));
  PetscCall(PetscOptionsIntArray("-orders", "polynomial orders", NULL, orders, &norders, NULL));
  PetscCall(PetscOptionsStringArray("-types", "variants", NULL, types, &ntypes, &tset));
  PetscCall(PetscOptionsStringArray("-ops", "operators", NULL, opsv, &nops, &oset));
  PetscCall(PetscOptionsStringArray("-assembled", "also DMAssemblyMatFreeAssemble into these matrix types", NULL, o.atypes, &o.nat, &aset));
  PetscCall(PetscOptionsBool("-tensor_closure", "DMPlexSetClosurePermutationTensor on the DM", NULL, o.tensor, &o.tensor, NULL));
  PetscCall(PetscOptionsBool("-cache_check", "also: a second operator after the coordinates changed", NULL, cachecheck, &cachecheck, NULL));
  PetscCall(PetscOptionsString("-assembled_from", "the variant whose element matrices are assembled", NULL, o.afrom, o.afrom, sizeof(o.afrom), NULL));
  PetscOptionsEnd();
  if (!aset) o.nat = 0;
  if (!tset) {
    const char *def[] = {"sumfact", "sumfact_gather", "sumfact_recompute", "elmat_atomic", "elmat_color", "elmat_gather", "elmat_max"};
    ntypes            = 0;
    for (PetscInt t = 0; t < 7; t++) /* curved (degree-2 coordinates): no recomputed geometry (an error, tested by matfree.curve_recompute) */
      if (!o.curve || t != 2) PetscCall(PetscStrallocpy(def[t], &types[ntypes++]));
  }
  if (!oset) {
    nops = 2;
    PetscCall(PetscStrallocpy("poisson", &opsv[0]));
    PetscCall(PetscStrallocpy("mass", &opsv[1]));
  }
  if (!solve) {
    for (PetscInt i = 0; i < norders; i++)
      for (PetscInt k = 0; k < nops; k++) {
        PetscBool poisson;
        PetscCall(PetscStrcmp(opsv[k], "poisson", &poisson));
        PetscCall(CheckOperator(&o, orders[i], poisson, ntypes, types, &nfail));
        if (cachecheck) PetscCall(CheckCacheInvalidation(&o, orders[i], poisson, &nfail));
      }
  } else {
    for (PetscInt i = 0; i < norders; i++) {
      PetscReal e1, e2, rate;
      PetscInt  i1, i2;
      PetscCall(Solve(&o, orders[i], o.faces, &e1, &i1));
      PetscCall(Solve(&o, orders[i], 2 * o.faces, &e2, &i2));
      rate = PetscLog2Real(e1 / e2);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %dD Q%" PetscInt_FMT ": L2 error %.3e (%" PetscInt_FMT " CG its) -> %.3e (%" PetscInt_FMT " its): order %.2f (expected %" PetscInt_FMT ")\n", (int)o.dim, orders[i], (double)e1, i1, (double)e2, i2, (double)rate, orders[i] + 1));
      if (rate < orders[i] + 1 - 0.3) {
        nfail++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAIL: order %.2f < %.1f\n", (double)rate, orders[i] + 0.7));
      }
    }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_op"));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_host"));
  for (PetscInt t = 0; t < ntypes; t++) PetscCall(PetscFree(types[t]));
  for (PetscInt k = 0; k < nops; k++) PetscCall(PetscFree(opsv[k]));
  for (PetscInt a = 0; a < o.nat; a++) PetscCall(PetscFree(o.atypes[a]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matfree: %s\n", nfail ? "FAIL" : "PASS"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
