static const char help[] = "COO assembly of P1 tetrahedral element matrices (Kuhn cube, -n cells per side) on the GPU:\n"
                           "MatSetValuesCOO with device values into MATSEQELLWARP vs MATSEQAIJCUSPARSE (the peer), same COO input,\n"
                           "plus one SpMV of each for scale.  Prints times (median of -repeats) and ratios.\n"
                           "-variants all|name,name,...: also time ELLWARP's COO kernel variants (-mat_ellwarp_tune coo_*), in the same run,\n"
                           "  each against AIJCUSPARSE and the default ELLWARP kernel (names: see the table printed with -variants all).\n";
/* Part of issue 4's measurements: a Newton step refreshes the Jacobian's values through COO. */
#include <petscellwarp.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpkuhn.h>
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

/* COO kernel variants (EllwarpTune): name and the option that selects it */
static const char *const coo_variants[][2] = {
  {"default", ""                                                  },
  {"u2",      "-mat_ellwarp_tune coo_unroll=2"                    },
  {"u4",      "-mat_ellwarp_tune coo_unroll=4"                    },
  {"u8",      "-mat_ellwarp_tune coo_unroll=8"                    },
  {"u16",     "-mat_ellwarp_tune coo_unroll=16"                   },
  {"b128",    "-mat_ellwarp_tune coo_block_size=128"              },
  {"b512",    "-mat_ellwarp_tune coo_block_size=512"              },
  {"u4b128",  "-mat_ellwarp_tune coo_unroll=4,coo_block_size=128" },
  {"u4b512",  "-mat_ellwarp_tune coo_unroll=4,coo_block_size=512" },
  {"u8b128",  "-mat_ellwarp_tune coo_unroll=8,coo_block_size=128" },
  {"u8b512",  "-mat_ellwarp_tune coo_unroll=8,coo_block_size=512" },
  {"u8b1024", "-mat_ellwarp_tune coo_unroll=8,coo_block_size=1024"},
};

/* an ELLWARP matrix with the variant's options (under its own prefix), COO-preallocated, and its times */
static PetscErrorCode TimeVariant(PetscInt v, PetscInt nv, PetscCount n, const PetscInt *ci, const PetscInt *cj, Vec vv, Mat ref, PetscInt reps, double *tcoo, double *tmv, PetscReal *diff)
{
  Mat          B, C;
  PetscInt    *i2, *j2;
  PetscScalar *dv;
  char         prefix[32], buf[256], tmp[256], *tok, *save = NULL;
  PetscReal    na;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "cv%d_", (int)v));
  PetscCall(PetscStrncpy(tmp, coo_variants[v][1], sizeof(tmp)));
  buf[0] = 0;
  for (tok = strtok_r(tmp, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    size_t l = strlen(buf);
    if (tok[0] == '-') PetscCall(PetscSNPrintf(buf + l, sizeof(buf) - l, " -%s%s", prefix, tok + 1));
    else PetscCall(PetscSNPrintf(buf + l, sizeof(buf) - l, " %s", tok));
  }
  PetscCall(PetscOptionsInsertString(NULL, buf));
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetOptionsPrefix(B, prefix));
  PetscCall(MatSetSizes(B, nv, nv, nv, nv));
  PetscCall(MatSetType(B, MATSEQELLWARP));
  PetscCall(MatSetFromOptions(B));
  PetscCall(PetscMalloc2(n, &i2, n, &j2));
  PetscCall(PetscArraycpy(i2, ci, n));
  PetscCall(PetscArraycpy(j2, cj, n));
  PetscCall(MatSetPreallocationCOO(B, n, i2, j2));
  PetscCall(PetscFree2(i2, j2));
  PetscCall(VecCUDAGetArray(vv, &dv));
  PetscCall(TimeCOO(B, dv, reps, tcoo, tmv));
  PetscCall(VecCUDARestoreArray(vv, &dv));
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, diff));
  PetscCall(MatNorm(ref, NORM_FROBENIUS, &na));
  *diff /= na;
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
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
  {
    char      list[512] = "";
    PetscBool set;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-variants", list, sizeof(list), &set));
    if (set) {
      const PetscInt nvar = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(coo_variants);
      double         peer2, mv2, tv, mv, tdef = 0;
      PetscReal      diff;
      PetscScalar   *dv;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "# COO kernel variants (ELLWARP, device values, INSERT), median of %" PetscInt_FMT "; peer AIJCUSPARSE %.4f ms (measured above)\n", reps, 1e3 * tcoo[1]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-9s %-58s %12s %10s %10s %10s\n", "variant", "options", "setvalues_ms", "aijcsp/var", "def/var", "rel_diff"));
      for (PetscInt v = 0; v < nvar; v++) {
        char key[40];
        PetscCall(PetscSNPrintf(key, sizeof(key), ",%s,", coo_variants[v][0]));
        {
          char l2[520];
          PetscCall(PetscSNPrintf(l2, sizeof(l2), ",%s,", list));
          if (strcmp(list, "all") && !strstr(l2, key)) continue;
        }
        PetscCall(TimeVariant(v, nv, n, ci, cj, vv, B[1], reps, &tv, &mv, &diff));
        if (v == 0) tdef = tv; /* "default" first (list order), else the column reads 0 */
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "VARIANT %-9s %-50s %12.4f %10.3f %10.3f %10.2e\n", coo_variants[v][0], coo_variants[v][1][0] ? coo_variants[v][1] : "(defaults)", 1e3 * tv, tcoo[1] / tv, tdef > 0 ? tdef / tv : 0.0, (double)diff));
      }
      /* the peer again, after the variants: drift between the two measures the noise of the ratios */
      PetscCall(VecCUDAGetArray(vv, &dv));
      PetscCall(TimeCOO(B[1], dv, reps, &peer2, &mv2));
      PetscCall(VecCUDARestoreArray(vv, &dv));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "# AIJCUSPARSE again after the variants: %.4f ms (first %.4f ms)\n", 1e3 * peer2, 1e3 * tcoo[1]));
    }
  }
  PetscCall(MatDestroy(&B[0]));
  PetscCall(MatDestroy(&B[1]));
  PetscCall(VecDestroy(&vv));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscFinalize());
  return 0;
}
