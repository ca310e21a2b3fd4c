/* An unmodified PETSc program: it knows nothing about petsc-ellwarp and is not linked against it.
   The register_dll test runs it with -dll_append <libpetscellwarp.so> -mat_type ellwarp to check that
   the plugin registers itself through PETSc's dynamic-library mechanism. */
#include <petscmat.h>

int main(int argc, char **argv)
{
  Mat         A;
  Vec         x, y;
  MatType     type;
  PetscInt    n = 10, rstart, rend;
  PetscReal   nrm;
  PetscScalar v[3] = {-1.0, 2.0, -1.0};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "Tridiagonal MatMult with a Mat chosen by -mat_type\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt cols[3] = {i - 1, i, i + 1};
    if (i == 0) PetscCall(MatSetValues(A, 1, &i, 2, cols + 1, v + 1, INSERT_VALUES));
    else if (i == n - 1) PetscCall(MatSetValues(A, 1, &i, 2, cols, v, INSERT_VALUES));
    else PetscCall(MatSetValues(A, 1, &i, 3, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  /* A*ones = (1, 0, ..., 0, 1): norm sqrt(2) */
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCheck(PetscAbsReal(nrm - PetscSqrtReal(2.0)) < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "wrong MatMult: |A*1| = %g, expected sqrt(2)", (double)nrm);
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Mat type: %s\n", type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "|A*1| = %.6f\n", (double)nrm));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
