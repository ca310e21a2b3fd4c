/* Defects PETSc's own test suite found in MATELLWARP (benchmarks/petsc-suite), each reduced to a check
   against MATAIJ on the host backend.  One case per run (-case NAME):

   factor_composed  LU, ILU(0), ILU(1), Cholesky, ICC of a MATSEQELLWARP: the solve matches SeqAIJ's, and the
                    factor (a MATSEQAIJ) carries no composed function of ours: PETSc's -checkfunctionlist
                    prints any left at destroy (ILU(0) duplicates A's function list into the factor)

   redundant_reuse  MatCreateRedundantMatrix of a MATMPIELLWARP, every rank its own copy (PCREDUNDANT, PCMG's
                    default coarse solver in parallel), MAT_INITIAL then MAT_REUSE after new values: PETSc's
                    MatCreateSubMatrix_MPIAIJ_All writes the copy's host arrays after its assembly, and the copy
                    kept the previous values (snes/tutorials/ex16 on 2 ranks: a different answer, silently)

   inode_block      PCBJACOBI with ILU(0) on a MATMPIELLWARP assembled without preallocation (hash assembly, 2x2
                    blocks: I-nodes) on 2 ranks, assembled three times: the block kept SeqAIJ's I-node
                    data from before its conversion, the factor chose the I-node numeric phase and failed with
                    "Matrix without inode information" (snes/tutorials/ex42 on 2 ranks)

   transpose_reuse  MatTranspose(A, MAT_REUSE_MATRIX, &At) after new values of A: SeqAIJ writes the values into At's
                    host arrays, and At's MatMult used the previous transpose (silently)

   product_diagonal A D and D A with D a MATDIAGONAL, A D with D dense: our anytype product function is queried
                    before MATDIAGONAL's and handed the product to SeqAIJ's code, which read the MATDIAGONAL as a
                    SeqAIJ (segmentation fault, mat/tests/ex309); the products match MATSEQAIJ's

   ellwarp_add_test(petscsuite.factor_composed -case factor_composed -mat_ellwarp_backend host)
   ellwarp_add_test(petscsuite.redundant_reuse NPROCS 2 -case redundant_reuse -mat_ellwarp_backend host)
   ellwarp_add_test(petscsuite.inode_block NPROCS 2 -case inode_block -mat_ellwarp_backend host)
   ellwarp_add_test(petscsuite.transpose_reuse -case transpose_reuse -mat_ellwarp_backend host)
   ellwarp_add_test(petscsuite.product_diagonal -case product_diagonal -mat_ellwarp_backend host)
*/
#include "testutil.h"
#include <petscksp.h>
#include <petscellwarp.h>

static PetscInt nchecks;

#define CHECK(cond, ...) \
  do { \
    nchecks++; \
    PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__); \
  } while (0)

/* the composed functions a MATSEQELLWARP or its factor must not leave on a matrix that is not one */
static const char *const OurNames[] = {"EllwarpSymbolic_C", "EllwarpNumeric_C", "MatConvert_seqaijellwarp_seqaij_C", "MatConvert_seqaijellwarp_seqaijcusparse_C", "MatConvert_seqaij_seqaijellwarp_C", "MatConvert_seqaijcusparse_seqaijellwarp_C", "MatEllwarpSetBackend_C", "MatEllwarpGetBackend_C", "MatEllwarpSetKernel_C", "MatEllwarpGetInfo_C", "MatProductSetFromOptions_anytype_C"};

static PetscErrorCode CheckNoOurFunctions(Mat M, const char *what)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(OurNames); i++) {
    void (*f)(void) = NULL;
    MatType t;
    PetscCall(MatGetType(M, &t));
    PetscCall(PetscObjectQueryFunction((PetscObject)M, OurNames[i], &f));
    CHECK(!f, "%s (type %s) still carries the composed function %s", what, t, OurNames[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2-D 5-point Laplacian plus a nonsymmetric convection part (symmetric when sym) */
static PetscErrorCode Laplacian(MatType type, PetscInt n, PetscBool sym, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, n * n, n * n, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscInt    r = i * n + j, c[5], k = 0;
      PetscScalar v[5];
      c[k] = r, v[k++] = 4.0;
      if (i > 0) c[k] = r - n, v[k++] = -1.0;
      if (i < n - 1) c[k] = r + n, v[k++] = sym ? -1.0 : -0.8;
      if (j > 0) c[k] = r - 1, v[k++] = -1.0;
      if (j < n - 1) c[k] = r + 1, v[k++] = sym ? -1.0 : -1.2;
      PetscCall(MatSetValues(*A, 1, &r, k, c, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorSolve(Mat A, MatFactorType ft, PetscInt levels, Vec b, Vec x, Mat *Fout)
{
  Mat           F;
  IS            row, col;
  MatFactorInfo info;

  PetscFunctionBegin;
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = (PetscReal)levels;
  info.fill   = 2.0;
  PetscCall(MatGetFactor(A, NULL, ft, &F)); /* as PCFactor does by default: the exact type's registration first */
  PetscCall(MatGetOrdering(A, ft == MAT_FACTOR_CHOLESKY || ft == MAT_FACTOR_ICC ? MATORDERINGNATURAL : MATORDERINGND, &row, &col));
  switch (ft) {
  case MAT_FACTOR_LU:
    PetscCall(MatLUFactorSymbolic(F, A, row, col, &info));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    break;
  case MAT_FACTOR_ILU:
    PetscCall(MatILUFactorSymbolic(F, A, row, col, &info));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    break;
  case MAT_FACTOR_CHOLESKY:
    PetscCall(MatCholeskyFactorSymbolic(F, A, row, &info));
    PetscCall(MatCholeskyFactorNumeric(F, A, &info));
    break;
  case MAT_FACTOR_ICC:
    PetscCall(MatICCFactorSymbolic(F, A, row, &info));
    PetscCall(MatCholeskyFactorNumeric(F, A, &info));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "factor type");
  }
  PetscCall(MatSolve(F, b, x));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  *Fout = F;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseFactorComposed(void)
{
  const MatFactorType ft[]  = {MAT_FACTOR_LU, MAT_FACTOR_ILU, MAT_FACTOR_ILU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ICC};
  const PetscInt      lev[] = {0, 0, 1, 0, 0};

  PetscFunctionBegin;
  for (int t = 0; t < 5; t++) {
    PetscBool sym = (PetscBool)(ft[t] == MAT_FACTOR_CHOLESKY || ft[t] == MAT_FACTOR_ICC);
    Mat       A, E, FA, FE;
    Vec       b, xa, xe;
    PetscReal nrm, ref;

    PetscCall(Laplacian(MATSEQAIJ, 12, sym, &A));
    PetscCall(Laplacian(MATSEQELLWARP, 12, sym, &E));
    PetscCall(MatCreateVecs(A, &xa, &b));
    PetscCall(VecDuplicate(xa, &xe));
    PetscCall(VecSetRandom(b, NULL));
    PetscCall(FactorSolve(A, ft[t], lev[t], b, xa, &FA));
    PetscCall(FactorSolve(E, ft[t], lev[t], b, xe, &FE));
    PetscCall(CheckNoOurFunctions(FE, "the factor of a MATSEQELLWARP"));
    PetscCall(VecNorm(xa, NORM_2, &ref));
    PetscCall(VecAXPY(xe, -1.0, xa));
    PetscCall(VecNorm(xe, NORM_2, &nrm));
    CHECK(nrm <= 1e-12 * ref, "%s(%" PetscInt_FMT ") solve differs from SeqAIJ's: |x_e - x_a| = %g, |x_a| = %g", MatFactorTypes[ft[t]], lev[t], (double)nrm, (double)ref);
    PetscCall(MatDestroy(&FA));
    PetscCall(MatDestroy(&FE));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&E));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xa));
    PetscCall(VecDestroy(&xe));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a parallel FE-like matrix (1-D chain of 2x2 elements plus a diagonal) assembled with ADD_VALUES after
   MatZeroEntries, as a Jacobian is; entries scaled by s */
static PetscErrorCode AssembleChain(Mat A, PetscScalar s)
{
  PetscInt rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MatZeroEntries(A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, &N, NULL));
  for (PetscInt e = rstart; e < rend; e++) {
    PetscInt    idx[2] = {e, (e + 1) % N};
    PetscScalar v[4]   = {s * (2.0 + 0.01 * e), -s, -s, s * (2.0 + 0.02 * e)};
    PetscCall(MatSetValues(A, 2, idx, 2, idx, v, ADD_VALUES)); /* the second row may be another rank's */
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseRedundantReuse(void)
{
  Mat         A[2], R[2] = {NULL, NULL};
  MatType     types[2] = {MATMPIAIJ, MATMPIELLWARP};
  PetscMPIInt size;
  PetscInt    N = 40;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int t = 0; t < 2; t++) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A[t]));
    PetscCall(MatSetSizes(A[t], PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(A[t], types[t]));
    PetscCall(MatSetFromOptions(A[t]));
    PetscCall(MatMPIAIJSetPreallocation(A[t], 3, NULL, 2, NULL));
  }
  for (int step = 0; step < 3; step++) {
    Vec       x, ya, ye;
    PetscReal nrm, ref;

    for (int t = 0; t < 2; t++) {
      PetscCall(AssembleChain(A[t], 1.0 + step));
      PetscCall(MatCreateRedundantMatrix(A[t], size, MPI_COMM_NULL, step ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &R[t]));
    }
    PetscCall(MatCreateVecs(R[0], &x, &ya));
    PetscCall(VecDuplicate(ya, &ye));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(R[0], x, ya));
    PetscCall(MatMult(R[1], x, ye));
    PetscCall(VecNorm(ya, NORM_2, &ref));
    PetscCall(VecAXPY(ye, -1.0, ya));
    PetscCall(VecNorm(ye, NORM_2, &nrm));
    CHECK(nrm <= 1e-13 * ref, "redundant copy (%s) of step %d: |R_e x - R_a x| = %g, |R_a x| = %g", step ? "MAT_REUSE_MATRIX" : "MAT_INITIAL_MATRIX", step, (double)nrm, (double)ref);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&ye));
  }
  for (int t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&R[t]));
    PetscCall(MatDestroy(&A[t]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseInodeBlock(void)
{
  Mat      A[2];
  KSP      ksp[2];
  MatType  types[2] = {MATMPIAIJ, MATMPIELLWARP};
  PetscInt rstart;

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    PC pc;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &A[t]));
    PetscCall(MatSetSizes(A[t], 2, 2, PETSC_DECIDE, PETSC_DECIDE));
    PetscCall(MatSetType(A[t], types[t]));
    PetscCall(MatSetFromOptions(A[t]));
    PetscCall(MatSetUp(A[t])); /* no preallocation: hash assembly */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetType(ksp[t], KSPPREONLY));
    PetscCall(KSPGetPC(ksp[t], &pc));
    PetscCall(PCSetType(pc, PCBJACOBI)); /* one block per rank, ILU(0) on MatGetDiagonalBlock */
    PetscCall(KSPSetOperators(ksp[t], A[t], A[t]));
  }
  PetscCall(MatGetOwnershipRange(A[0], &rstart, NULL));
  for (int step = 0; step < 3; step++) {
    Vec       b, x[2];
    PetscReal nrm, ref;

    for (int t = 0; t < 2; t++) {
      PetscInt    idx[2] = {rstart, rstart + 1};
      PetscScalar v[4]   = {4.0 + step, 1.0, 2.0, 5.0 + rstart};
      PetscCall(MatSetValues(A[t], 2, idx, 2, idx, v, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(A[t], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A[t], MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MatCreateVecs(A[0], &x[0], &b));
    PetscCall(VecDuplicate(x[0], &x[1]));
    PetscCall(VecSetRandom(b, NULL));
    for (int t = 0; t < 2; t++) PetscCall(KSPSolve(ksp[t], b, x[t]));
    PetscCall(VecNorm(x[0], NORM_2, &ref));
    PetscCall(VecAXPY(x[1], -1.0, x[0]));
    PetscCall(VecNorm(x[1], NORM_2, &nrm));
    CHECK(nrm <= 1e-13 * ref, "block Jacobi ILU(0), assembly %d: |x_e - x_a| = %g", step, (double)nrm);
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x[0]));
    PetscCall(VecDestroy(&x[1]));
  }
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(MatDestroy(&A[t]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseTransposeReuse(void)
{
  Mat A[2], T[2];

  PetscFunctionBegin;
  PetscCall(Laplacian(MATSEQAIJ, 9, PETSC_FALSE, &A[0]));
  PetscCall(Laplacian(MATSEQELLWARP, 9, PETSC_FALSE, &A[1]));
  for (int step = 0; step < 3; step++) {
    Vec       x, ya, ye;
    PetscReal nrm, ref;

    if (step) {
      for (int t = 0; t < 2; t++) { /* new values, same pattern: the row above each row weighs more */
        for (PetscInt r = 9; r < 81; r++) PetscCall(MatSetValue(A[t], r, r - 9, -1.0 - step - 0.01 * r, INSERT_VALUES));
        PetscCall(MatAssemblyBegin(A[t], MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A[t], MAT_FINAL_ASSEMBLY));
      }
    }
    for (int t = 0; t < 2; t++) PetscCall(MatTranspose(A[t], step ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &T[t]));
    PetscCall(MatCreateVecs(T[0], &x, &ya));
    PetscCall(VecDuplicate(ya, &ye));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(T[0], x, ya));
    PetscCall(MatMult(T[1], x, ye));
    PetscCall(VecNorm(ya, NORM_2, &ref));
    PetscCall(VecAXPY(ye, -1.0, ya));
    PetscCall(VecNorm(ye, NORM_2, &nrm));
    CHECK(nrm <= 1e-13 * ref, "MatMult of MatTranspose(%s), step %d: |T_e x - T_a x| = %g, |T_a x| = %g", step ? "MAT_REUSE_MATRIX" : "MAT_INITIAL_MATRIX", step, (double)nrm, (double)ref);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&ye));
  }
  for (int t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&T[t]));
    PetscCall(MatDestroy(&A[t]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseProductDiagonal(void)
{
  Mat A[2], D, B;
  Vec d;

  PetscFunctionBegin;
  PetscCall(Laplacian(MATSEQAIJ, 6, PETSC_FALSE, &A[0]));
  PetscCall(Laplacian(MATSEQELLWARP, 6, PETSC_FALSE, &A[1]));
  PetscCall(MatCreateVecs(A[0], &d, NULL));
  PetscCall(VecSetRandom(d, NULL));
  PetscCall(MatCreateDiagonal(d, &D));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, 36, 3, NULL, &B));
  PetscCall(MatSetRandom(B, NULL));
  for (int k = 0; k < 3; k++) {
    Mat       P[2];
    Vec       x, ya, ye;
    PetscReal nrm, ref;

    for (int t = 0; t < 2; t++) {
      if (k == 0) PetscCall(MatMatMult(A[t], D, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &P[t]));
      else if (k == 1) PetscCall(MatMatMult(D, A[t], MAT_INITIAL_MATRIX, PETSC_DETERMINE, &P[t]));
      else PetscCall(MatMatMult(A[t], B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &P[t]));
    }
    PetscCall(MatCreateVecs(P[0], &x, &ya));
    PetscCall(VecDuplicate(ya, &ye));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(P[0], x, ya));
    PetscCall(MatMult(P[1], x, ye));
    PetscCall(VecNorm(ya, NORM_2, &ref));
    PetscCall(VecAXPY(ye, -1.0, ya));
    PetscCall(VecNorm(ye, NORM_2, &nrm));
    CHECK(nrm <= 1e-13 * ref, "product %s: |P_e x - P_a x| = %g, |P_a x| = %g", k == 0 ? "A D" : k == 1 ? "D A" : "A B (dense)", (double)nrm, (double)ref);
    for (int t = 0; t < 2; t++) PetscCall(MatDestroy(&P[t]));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&ye));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&D));
  PetscCall(VecDestroy(&d));
  for (int t = 0; t < 2; t++) PetscCall(MatDestroy(&A[t]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      name[64] = "";
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER, "give -case NAME (see the comment at the top of tests/petscsuite.c)");
  if (!strcmp(name, "factor_composed")) PetscCall(CaseFactorComposed());
  else if (!strcmp(name, "redundant_reuse")) PetscCall(CaseRedundantReuse());
  else if (!strcmp(name, "inode_block")) PetscCall(CaseInodeBlock());
  else if (!strcmp(name, "transpose_reuse")) PetscCall(CaseTransposeReuse());
  else if (!strcmp(name, "product_diagonal")) PetscCall(CaseProductDiagonal());
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER, "unknown -case %s", name);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petscsuite %s: %" PetscInt_FMT " checks passed\n", name, nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
