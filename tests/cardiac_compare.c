/* Compares two activation-time fields of the cardiac example (examples/cardiac, written with
   -act_view binary:FILE): the same vertices must have activated, and the times must agree within -tol ms.
   Driven by tests/cardiac_compare.sh, which runs the example with two pipelines (host ELLWARP vs AIJ on
   the CPU; GPU ELLWARP + device assembly vs CPU AIJ + host assembly on a GPU host). */
#include <petscvec.h>

/* The two-pipeline tests are registered in tests/CMakeLists.txt (they need the example target); here only
   the argument check:
   ellwarp_add_test(cardiac_compare.usage EXPECT_ERROR "give -a FILE -b FILE") */

int main(int argc, char **argv)
{
  char        fa[PETSC_MAX_PATH_LEN] = "", fb[PETSC_MAX_PATH_LEN] = "";
  PetscReal   tol = -1, maxdiff = 0, amax = 0;
  PetscInt    n, nact = 0, mismatch = 0;
  Vec         a, b;
  PetscViewer v;
  const PetscScalar *x, *y;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-a", fa, sizeof(fa), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-b", fb, sizeof(fb), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCheck(fa[0] && fb[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -a FILE -b FILE");
  PetscCheck(tol > 0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -tol MS: the tolerance comes from what the runs show (see the calling script)");
  PetscCall(VecCreate(PETSC_COMM_WORLD, &a));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &b));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, fa, FILE_MODE_READ, &v));
  PetscCall(VecLoad(a, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, fb, FILE_MODE_READ, &v));
  PetscCall(VecLoad(b, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal ta = PetscRealPart(x[i]), tb = PetscRealPart(y[i]);
    if ((ta < 0) != (tb < 0)) mismatch++;
    else if (ta >= 0) {
      nact++;
      amax    = PetscMax(amax, ta);
      maxdiff = PetscMax(maxdiff, PetscAbsReal(ta - tb));
    }
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "activation times: %" PetscInt_FMT " vertices, %" PetscInt_FMT " activated in both (latest %.3f ms), %" PetscInt_FMT " activated in one only, max |difference| %.3e ms (tolerance %g)\n", n, nact, (double)amax, mismatch, (double)maxdiff, (double)tol));
  PetscCheck(nact > n / 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "too few vertices activated (%" PetscInt_FMT " of %" PetscInt_FMT "): the test does not test anything", nact, n);
  PetscCheck(!mismatch && maxdiff < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the two pipelines disagree");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PASS\n"));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&b));
  PetscCall(PetscFinalize());
  return 0;
}
