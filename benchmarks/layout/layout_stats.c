static const char help[] = "Layout statistics of the SpMV suite (host only): padded slots and widest slice for each sort window and\n"
                           "kernel choice, and what the automatic choice picks.  Used to calibrate the a-priori model.\n"
                           "  -auto_only: only the automatic choice per matrix (the lines benchmarks/spmv/calibrate.py --layout-stats reads)\n"
                           "  (suite selection options as spmv_bench: -matrices a,b,...)\n";
#include <petscellwarp.h>
#include "suite.h"

int main(int argc, char **argv)
{
  SuiteEntry     e[SUITE_MAX_ENTRIES];
  PetscInt       n;
  PetscBool      autoonly = PETSC_FALSE;
  const char    *wins[] = {"0", "256", "4096"};
  const char    *ks[][2] = {{"k1", "0"}, {"k2", "8"}, {"k2", "16"}, {"k2", "64"}, {"auto", "0"}};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-auto_only", &autoonly, NULL));
  PetscCall(SuiteGetEntries(&n, e));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
  for (PetscInt i = 0; i < n; i++) {
    Mat A;
    PetscCall(SuiteBuildMatrix(&e[i], &A));
    for (size_t w = 0; w < (autoonly ? 0 : 3); w++)
      for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(ks); k++) {
        Mat            B;
        MatEllwarpInfo info;
        PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
        char           tune[64];
        PetscCall(PetscSNPrintf(tune, sizeof(tune), "sort_window=%s,threshold=%s", wins[w], ks[k][1]));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", tune));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_kernel", ks[k][0]));
        PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, &B));
        PetscCall(MatEllwarpGetInfo(B, &info));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s W=%-5s %-4s T=%-3s  slots/nnz %.4f  slices %" PetscInt_FMT " split %" PetscInt_FMT " 16bit %" PetscInt_FMT " (biased %" PetscInt_FMT ") long %" PetscInt_FMT " bytes/nnz %.2f\n", e[i].name, wins[w], ks[k][0], ks[k][1], (double)info.nslots / (double)info.nnz, info.nslices, info.nsplit, info.n16, info.nbias, info.nlong, info.bytes_mult / (double)info.nnz));
        PetscCall(MatDestroy(&B));
      }
    {
      Mat            B;
      MatEllwarpInfo info;
      PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_tune"));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_kernel"));
      PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatEllwarpGetInfo(B, &info));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s AUTO: W=%" PetscInt_FMT " %s T=%" PetscInt_FMT " bs=%" PetscInt_FMT " slots/nnz %.4f rows %" PetscInt_FMT " mean %.3f std %.3f slices %" PetscInt_FMT " 16bit %" PetscInt_FMT " (biased %" PetscInt_FMT ") bytes/nnz %.2f\n", e[i].name, info.sortwindow, MatEllwarpKernels[info.kernel], info.threshold, info.blocksize, (double)info.nslots / (double)info.nnz, info.nrows, (double)info.meanrowlen, (double)info.stdrowlen, info.nslices, info.n16, info.nbias, info.bytes_mult / (double)info.nnz));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(SuiteFinalize());
  PetscCall(PetscFinalize());
  return 0;
}
