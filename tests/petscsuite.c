/* Defects PETSc's own test suite found in MATELLWARP (benchmarks/petsc-suite), each reduced to a check
   against MATAIJ on the host backend.  One case per run (-case NAME):

   factor_composed  LU, ILU(0), ILU(1), Cholesky, ICC of a MATSEQELLWARP: the solve matches SeqAIJ's, and the
                    factor (a MATSEQAIJ) carries no composed function of ours: PETSc's -checkfunctionlist
                    prints any left at destroy (ILU(0) duplicates A's function list into the factor)

   ellwarp_add_test(petscsuite.factor_composed -case factor_composed -mat_ellwarp_backend host)
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

int main(int argc, char **argv)
{
  char      name[64] = "";
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER, "give -case NAME (see the comment at the top of tests/petscsuite.c)");
  if (!strcmp(name, "factor_composed")) PetscCall(CaseFactorComposed());
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER, "unknown -case %s", name);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petscsuite %s: %" PetscInt_FMT " checks passed\n", name, nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
