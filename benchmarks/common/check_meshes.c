static const char help[] = "Host-only check of the SpMV benchmark suite: mesh sanity (volume, degenerate tets), matrix sizes,\n"
                           "row-length histograms, symmetry and a random SpMV against a row-by-row reference.\n"
                           "Options: the suite options (-suite, -matrices, -scale, -mm, -lv_msh, -lv_rcm), -check_msh22 <file>\n";

#include "suite.h"
#include "lvmesh.h"
#include <petsctime.h>

#ifndef ELLWARP_LV_DATA_DIR /* set by the ellwarplvmesh library target */
  #define ELLWARP_LV_DATA_DIR "examples/cardiac/data"
#endif

static PetscErrorCode PrintMesh(const char *what, const LVMesh *mesh)
{
  PetscReal vol;
  PetscInt  nd;

  PetscFunctionBegin;
  PetscCall(LVMeshGetVolume(mesh, &vol, &nd));
  /* exact: pi*100*(25-(125+8000)/1200) - pi*49*(22-(125+4913)/867) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "mesh %-28s nodes %9" PetscInt_FMT " tets %10" PetscInt_FMT " volume %10.3f mm^3 (exact truncated shell %.3f) degenerate %" PetscInt_FMT "\n", what, mesh->nv, mesh->nt, (double)vol,
                        (double)(PETSC_PI * 100 * (25 - 8125.0 / 1200) - PETSC_PI * 49 * (22 - 5038.0 / 867)), nd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt   n;
  SuiteEntry e[SUITE_MAX_ENTRIES];
  char       msh22[PETSC_MAX_PATH_LEN] = "";
  PetscBool  flg, meshes = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-check_msh22", msh22, sizeof(msh22), &flg));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_meshes", &meshes, NULL));
  if (meshes) {
    LVMesh s, g, r;
    char   file[PETSC_MAX_PATH_LEN] = ELLWARP_LV_DATA_DIR "/lv_coarse.msh.xz";

    PetscCall(LVMeshCreateStructured(4, 24, 12, &s));
    PetscCall(PrintMesh("structured 4x24x12", &s));
    PetscCall(LVMeshDestroy(&s));
    PetscCall(LVMeshCreateStructuredByNodes(200000, &s));
    PetscCall(PrintMesh("structured ~200k nodes", &s));
    PetscCall(LVMeshRenumberRCM(&s));
    PetscCall(PrintMesh("  after RCM", &s));
    PetscCall(LVMeshDestroy(&s));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-lv_msh", file, sizeof(file), NULL));
    PetscCall(LVMeshReadGmsh(file, &g));
    PetscCall(PrintMesh("gmsh coarse", &g));
    PetscCall(LVMeshRefineUniform(&g, &r));
    PetscCall(PrintMesh("  refined once", &r));
    PetscCall(LVMeshDestroy(&r));
    PetscCall(LVMeshDestroy(&g));
    if (msh22[0]) {
      PetscCall(LVMeshReadGmsh(msh22, &g));
      PetscCall(PrintMesh("gmsh (file from -check_msh22)", &g));
      PetscCall(LVMeshDestroy(&g));
    }
  }

  PetscCall(SuiteGetEntries(&n, e));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%-20s %-9s %10s %11s %6s %7s %8s %8s %8s %6s %9s\n", "matrix", "kind", "rows", "nnz", "min", "max", "mean", "std", "build_s", "symm", "spmv_err"));
  for (PetscInt i = 0; i < n; i++) {
    Mat            A;
    PetscLogDouble t0, t1;
    PetscInt       mn, mx, m, mrows, nnzc, hist[24] = {0};
    PetscReal      mean, sd, err = 0;
    PetscBool      symm = PETSC_FALSE;
    MatInfo        info;
    const char    *symms = "-";

    PetscCall(PetscTime(&t0));
    PetscCall(SuiteBuildMatrix(&e[i], &A));
    PetscCall(PetscTime(&t1));
    PetscCall(MatGetSize(A, &mrows, NULL));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    nnzc = (PetscInt)info.nz_used;
    PetscCall(SuiteRowStats(A, &mn, &mx, &mean, &sd));
    if (!strcmp(e[i].kind, "fe") && nnzc < 5000000) {
      PetscCall(MatIsSymmetric(A, 1e-10, &symm));
      symms = symm ? "yes" : "NO";
    }
    { /* SpMV against a plain CSR loop on the raw arrays */
      Vec                x, y;
      const PetscInt    *ia, *ja;
      const PetscScalar *a, *xa, *ya;
      PetscBool          done;
      PetscRandom        rnd;

      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
      PetscCall(MatMult(A, x, y));
      PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
      PetscCall(MatSeqAIJGetArrayRead(A, &a));
      PetscCall(VecGetArrayRead(x, &xa));
      PetscCall(VecGetArrayRead(y, &ya));
      for (PetscInt r = 0; r < m; r++) {
        PetscScalar s = 0;
        for (PetscInt p = ia[r]; p < ia[r + 1]; p++) s += a[p] * xa[ja[p]];
        err = PetscMax(err, PetscAbsScalar(s - ya[r]) / (1 + PetscAbsScalar(s)));
        {
          PetscInt l = ia[r + 1] - ia[r], b = 0;
          while ((1 << b) <= l && b < 23) b++;
          hist[b]++; /* bucket b: 2^(b-1) <= len < 2^b */
        }
      }
      PetscCall(VecRestoreArrayRead(x, &xa));
      PetscCall(VecRestoreArrayRead(y, &ya));
      PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-20s %-9s %10" PetscInt_FMT " %11" PetscInt_FMT " %6" PetscInt_FMT " %7" PetscInt_FMT " %8.2f %8.2f %8.2f %6s %9.1e\n", e[i].name, e[i].kind, mrows, nnzc, mn, mx, (double)mean, (double)sd, t1 - t0, symms, (double)err));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %s\n    row-length histogram:", e[i].desc));
    for (int b = 0; b < 24; b++)
      if (hist[b]) PetscCall(PetscPrintf(PETSC_COMM_SELF, " [%d,%d):%" PetscInt_FMT, b ? 1 << (b - 1) : 0, 1 << b, hist[b]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(SuiteFinalize());
  PetscCall(PetscFinalize());
  return 0;
}
