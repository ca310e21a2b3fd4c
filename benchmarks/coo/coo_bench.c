static const char help[] = "COO assembly of P1 tetrahedral element matrices (Kuhn cube, -n cells per side) on the GPU:\n"
                           "MatSetValuesCOO with device values into MATSEQELLWARP vs MATSEQAIJCUSPARSE (the peer), same COO input,\n"
                           "plus one SpMV of each for scale.  Prints times (median of -repeats) and ratios.\n";
/* Part of issue 4's measurements: a Newton step refreshes the Jacobian's values through COO. */
#include <petscellwarp.h>
#include <petscdevice_cuda.h>
#include <petsc/private/ellwarpkuhn.h>
#include "benchtime.h"

typedef struct {
  Mat                A;
  const PetscScalar *dv;
  Vec                x, y;
} BenchCtx;

static PetscErrorCode OpCOO(void *ctx)
{
  BenchCtx *c = (BenchCtx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatSetValuesCOO(c->A, c->dv, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpMult(void *ctx)
{
  BenchCtx *c = (BenchCtx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatMult(c->A, c->x, c->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one MatSetValuesCOO (device values), then one MatMult, each timed */
static PetscErrorCode TimeCOO(Mat A, const PetscScalar *dv, PetscInt reps, double *sec, double *spmv)
{
  BenchCtx c = {A, dv, NULL, NULL};

  PetscFunctionBegin;
  PetscCall(BenchDeviceMedianTime(OpCOO, &c, reps, sec));
  PetscCall(MatCreateVecs(A, &c.x, &c.y));
  PetscCall(VecSet(c.x, 1.0));
  PetscCall(BenchDeviceMedianTime(OpMult, &c, reps, spmv));
  PetscCall(VecDestroy(&c.x));
  PetscCall(VecDestroy(&c.y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    N = 40, reps = 20, nv;
  PetscCount  n;
  PetscInt   *ci, *cj;
  PetscScalar *hv;
  Vec          vv;
  const char  *types[] = {MATSEQELLWARP, MATSEQAIJCUSPARSE};
  double       tcoo[2], tmv[2], tprealloc[2];
  Mat          B[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &reps, NULL));
  nv = (N + 1) * (N + 1) * (N + 1);
  PetscCall(EllwarpKuhnCOO(N, &n, &ci, &cj));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)n, &vv));
  PetscCall(VecGetArrayWrite(vv, &hv));
  for (PetscCount k = 0; k < n; k++) hv[k] = 1.0 + (PetscScalar)((k * 7919) % 1000) / 997.0;
  PetscCall(VecRestoreArrayWrite(vv, &hv));
  for (int t = 0; t < 2; t++) {
    PetscInt      *i2, *j2;
    PetscLogDouble t0, t1;
    PetscScalar   *dv;
    PetscCall(PetscMalloc2(n, &i2, n, &j2));
    PetscCall(PetscArraycpy(i2, ci, n));
    PetscCall(PetscArraycpy(j2, cj, n));
    PetscCall(MatCreate(PETSC_COMM_SELF, &B[t]));
    PetscCall(MatSetSizes(B[t], nv, nv, nv, nv));
    PetscCall(MatSetType(B[t], types[t]));
    PetscCall(PetscTime(&t0));
    PetscCall(MatSetPreallocationCOO(B[t], n, i2, j2));
    PetscCall(PetscTime(&t1));
    tprealloc[t] = t1 - t0;
    PetscCall(PetscFree2(i2, j2));
    PetscCall(VecCUDAGetArray(vv, &dv));
    PetscCall(TimeCOO(B[t], dv, reps, &tcoo[t], &tmv[t]));
    PetscCall(VecCUDARestoreArray(vv, &dv));
  }
  {
    Mat       C;
    PetscReal nrm, na;
    PetscCall(MatConvert(B[0], MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatAXPY(C, -1.0, B[1], DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
    PetscCall(MatNorm(B[1], NORM_FROBENIUS, &na));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# P1 tets, %" PetscInt_FMT " rows, %" PetscCount_FMT " COO entries (%" PetscInt_FMT " elements), relative difference ELLWARP vs AIJCUSPARSE %.2e\n", nv, n, 6 * N * N * N, (double)(nrm / na)));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %14s %14s %14s\n", "type", "prealloc_s", "setvalues_ms", "spmv_ms"));
  for (int t = 0; t < 2; t++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %14.3f %14.4f %14.4f\n", types[t], tprealloc[t], 1e3 * tcoo[t], 1e3 * tmv[t]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ratio MatSetValuesCOO AIJCUSPARSE/ELLWARP: %.2f, MatMult AIJCUSPARSE/ELLWARP: %.2f\n", tcoo[1] / tcoo[0], tmv[1] / tmv[0]));
  PetscCall(MatDestroy(&B[0]));
  PetscCall(MatDestroy(&B[1]));
  PetscCall(VecDestroy(&vv));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscFinalize());
  return 0;
}
