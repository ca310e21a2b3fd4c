/* KSPCGASYNC against KSPCG: the same iteration counts, converged reasons and residual histories, and the same
   solutions (to rounding), on a variable-coefficient 3-D diffusion + mass matrix (SPD, a stencil like the
   cardiac tangent's), over several solves whose matrix values change (the Jacobi diagonal must follow) and with
   a nonzero initial guess.  With -vec_type cuda the device kernels run; then the same solves through the plain-C
   reference (host AIJ, host vectors) must give the same counts and solutions, so the test compares the kernels
   with their reference.

   ellwarp_add_test(ksp_cgasync)
   ellwarp_add_test(ksp_cgasync.none -pc_type none)
   ellwarp_add_test(ksp_cgasync.unprec -ksp_norm_type unpreconditioned)
   ellwarp_add_test(ksp_cgasync.natural -ksp_norm_type natural)
   ellwarp_add_test(ksp_cgasync.sor -pc_type sor -pc_sor_symmetric)
   ellwarp_add_test(ksp_cgasync.maxit -ksp_max_it 7 -expect_reason -3)
   ellwarp_add_test(ksp_cgasync.monitor -ksp_monitor -n 6 PASS_REGULAR_EXPRESSION "0 KSP Residual norm")
   ellwarp_add_test(ksp_cgasync.nofuse -ksp_cgasync_fuse_jacobi 0)
   ellwarp_add_test(ksp_cgasync.bad_check -ksp_cgasync_check_every 0 EXPECT_ERROR "must be >= 1")
   ellwarp_add_test(ksp_cgasync.gpu -vec_type cuda GPU)
   ellwarp_add_test(ksp_cgasync.gpu_check1 -vec_type cuda -ksp_cgasync_check_every 1 GPU)
   ellwarp_add_test(ksp_cgasync.gpu_check5 -vec_type cuda -ksp_cgasync_check_every 5 -ksp_norm_type unpreconditioned GPU)
   ellwarp_add_test(ksp_cgasync.gpu_none -vec_type cuda -pc_type none -n 24 GPU)
   ellwarp_add_test(ksp_cgasync.gpu_maxit -vec_type cuda -ksp_max_it 7 -expect_reason -3 GPU)
   ellwarp_add_test(ksp_cgasync.gpu_nofuse -vec_type cuda -ksp_cgasync_fuse_jacobi 0 GPU)
   ellwarp_add_test(ksp_cgasync.gpu_graph -vec_type cuda -ksp_cgasync_graph GPU)
   ellwarp_add_test(ksp_cgasync.gpu_graph3 -vec_type cuda -ksp_cgasync_graph -ksp_cgasync_check_every 3 -ksp_norm_type natural GPU)
   ellwarp_add_test(ksp_cgasync.gpu_graph_maxit -vec_type cuda -ksp_cgasync_graph -ksp_cgasync_check_every 4 -ksp_max_it 10 -expect_reason -3 GPU)
*/
#include <petscellwarp.h>

/* (n^3 grid) diffusion with a coefficient varying over the grid, plus mass/dt; `scale` changes the values */
static PetscErrorCode BuildMatrix(Mat A, PetscInt n, PetscReal scale)
{
  PetscFunctionBegin;
  PetscCall(MatZeroEntries(A));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt row = (k * n + j) * n + i;
        PetscInt       cols[7], nc = 0;
        PetscScalar    v[7], diag = 0.3 * scale;
        const PetscInt di[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (int q = 0; q < 6; q++) {
          const PetscInt ii = i + di[q][0], jj = j + di[q][1], kk = k + di[q][2];
          if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
          const PetscReal c = 1.0 + 0.9 * PetscSinReal(0.7 * (i + ii) + 0.3 * (j + jj) * scale + 0.5 * (k + kk));
          cols[nc] = (kk * n + jj) * n + ii;
          v[nc++]  = -c;
          diag += c;
        }
        cols[nc] = row;
        v[nc++]  = diag;
        PetscCall(MatSetValues(A, 1, &row, nc, cols, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt           its[4];
  KSPConvergedReason reason[4];
  PetscReal          hist[4][200];
  PetscInt           nhist[4];
  Vec                x[4];
} Result;

/* four solves: two matrices values (the diagonal changes), zero and nonzero initial guesses */
static PetscErrorCode Solves(Mat A, PetscInt n, KSPType type, PetscBool fromoptions, Result *res)
{
  KSP ksp;
  PC  pc;
  Vec b, x;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-6, 1e-50, PETSC_CURRENT, 150));
  PetscCall(KSPSetResidualHistory(ksp, NULL, 200, PETSC_TRUE));
  if (fromoptions) PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &b));
  for (PetscInt s = 0; s < 4; s++) {
    const PetscReal *h;
    PetscInt         nh;
    PetscCall(BuildMatrix(A, n, s < 2 ? 1.0 : 1.7));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(VecSet(b, 1.0));
    PetscCall(VecSetValue(b, 0, 5.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    if (s % 2) { /* a nonzero guess: the previous solution scaled */
      PetscCall(VecScale(x, 0.5));
      PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    } else {
      PetscCall(VecSet(x, 0.0));
      PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
    }
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &res->its[s]));
    PetscCall(KSPGetConvergedReason(ksp, &res->reason[s]));
    PetscCall(KSPGetResidualHistory(ksp, &h, &nh));
    res->nhist[s] = nh;
    for (PetscInt k = 0; k < PetscMin(nh, 200); k++) res->hist[s][k] = h[k];
    PetscCall(VecDuplicate(x, &res->x[s]));
    PetscCall(VecCopy(x, res->x[s]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char *what, Result *ref, Result *res, PetscReal soltol, PetscReal histtol)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < 4; s++) {
    const PetscScalar *a, *b;
    PetscInt           m;
    PetscReal          err = 0, nrm = 0, herr = 0;
    PetscCheck(ref->its[s] == res->its[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, solve %" PetscInt_FMT ": %" PetscInt_FMT " iterations against %" PetscInt_FMT, what, s, res->its[s], ref->its[s]);
    PetscCheck(ref->reason[s] == res->reason[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, solve %" PetscInt_FMT ": reason %s against %s", what, s, KSPConvergedReasons[res->reason[s]], KSPConvergedReasons[ref->reason[s]]);
    PetscCheck(ref->nhist[s] == res->nhist[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, solve %" PetscInt_FMT ": %" PetscInt_FMT " residual history entries against %" PetscInt_FMT, what, s, res->nhist[s], ref->nhist[s]);
    for (PetscInt k = 0; k < PetscMin(ref->nhist[s], 200); k++) herr = PetscMax(herr, PetscAbsReal(ref->hist[s][k] - res->hist[s][k]) / PetscMax(ref->hist[s][0], PETSC_SMALL));
    PetscCheck(herr <= histtol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, solve %" PetscInt_FMT ": residual histories differ by %g (relative to the initial norm)", what, s, (double)herr);
    PetscCall(VecGetLocalSize(ref->x[s], &m));
    PetscCall(VecGetArrayRead(ref->x[s], &a));
    PetscCall(VecGetArrayRead(res->x[s], &b));
    for (PetscInt j = 0; j < m; j++) {
      err = PetscMax(err, PetscAbsScalar(a[j] - b[j]));
      nrm = PetscMax(nrm, PetscAbsScalar(a[j]));
    }
    PetscCall(VecRestoreArrayRead(ref->x[s], &a));
    PetscCall(VecRestoreArrayRead(res->x[s], &b));
    PetscCheck(err <= soltol * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, solve %" PetscInt_FMT ": solutions differ by %g (max |x| %g)", what, s, (double)err, (double)nrm);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s, solve %" PetscInt_FMT ": %" PetscInt_FMT " iterations, %s, max |dx| / max |x| = %.2e, history %.2e\n", what, s, res->its[s], KSPConvergedReasons[res->reason[s]], (double)(err / nrm), (double)herr));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ResultDestroy(Result *r)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < 4; s++) PetscCall(VecDestroy(&r->x[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, Ah;
  PetscInt  n = 20, expect_reason = 0;
  PetscBool device;
  char      vtype[64] = "standard";
  Result    rcg, rasync, rhost;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "KSPCGASYNC test", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-vec_type", "vector type (cuda: device kernels)", NULL, vtype, vtype, sizeof(vtype), NULL));
  PetscCall(PetscOptionsInt("-expect_reason", "the converged reason every solve must end with (0: any)", NULL, expect_reason, &expect_reason, NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrbeginswith(vtype, "cuda", &device));
  PetscCall(PetscMemzero(&rcg, sizeof(rcg)));
  PetscCall(PetscMemzero(&rasync, sizeof(rasync)));
  PetscCall(PetscMemzero(&rhost, sizeof(rhost)));

  /* the matrix under test: ELLWARP, on the device with device vectors */
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, n * n * n, n * n * n, n * n * n, n * n * n));
  PetscCall(MatSetType(A, MATELLWARP));
  if (!device) PetscCall(MatEllwarpSetBackend(A, MAT_ELLWARP_BACKEND_HOST));
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatSetVecType(A, device ? VECCUDA : VECSTANDARD));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

  PetscCall(Solves(A, n, KSPCG, PETSC_TRUE, &rcg));
  PetscCall(Solves(A, n, KSPCGASYNC, PETSC_TRUE, &rasync));
  /* KSPCG's reductions (cuBLAS) and ours sum in different orders: a few ulps per iteration */
  PetscCall(Compare("cgasync vs cg", &rcg, &rasync, 1e-8, 1e-8));
  for (PetscInt s = 0; s < 4; s++)
    PetscCheck(!expect_reason || rasync.reason[s] == (KSPConvergedReason)expect_reason, PETSC_COMM_SELF, PETSC_ERR_PLIB, "solve %" PetscInt_FMT ": reason %s, expected %s", s, KSPConvergedReasons[rasync.reason[s]], KSPConvergedReasons[expect_reason]);
  if (device) { /* the plain-C reference of the same kernels: host AIJ, host vectors */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n * n * n, n * n * n, 7, NULL, &Ah));
    PetscCall(Solves(Ah, n, KSPCGASYNC, PETSC_TRUE, &rhost));
    PetscCall(Compare("device kernels vs host reference", &rhost, &rasync, 1e-11, 1e-11));
    PetscCall(ResultDestroy(&rhost));
    PetscCall(MatDestroy(&Ah));
  }
  PetscCall(ResultDestroy(&rcg));
  PetscCall(ResultDestroy(&rasync));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ksp_cgasync: pass\n"));
  PetscCall(PetscFinalize());
  return 0;
}
