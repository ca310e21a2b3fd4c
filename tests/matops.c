/* Randomized property tests of MATSEQELLWARP against MATSEQAIJ: every operation, every kernel choice,
   on random, degenerate and finite-element matrices, and on stencil matrices whose slices take the biased
   16-bit column mode (a periodic lattice, a common stencil mixed with the other two modes; K2 up to 8 lanes
   per row with -threshold 2).  With -blocked: bs-blocked matrices (bs 2, 3, 4, 6, random and P1 elasticity, block
   size set or detected, empty and long block rows, block rows not a multiple of the slice, block columns beyond
   16-bit offsets, block rows of strongly varying length for bs 2..6, a DMPlex P2 elasticity box matrix) under
   -mat_ellwarp_block on/auto/off and -mat_ellwarp_block_lanes T (lanes per block row; checked to be applied),
   against SeqAIJ and SeqBAIJ.  With -backend host it checks the reference
   kernels (and so the layout logic) on any machine; with -backend cuda the device kernels.

   ellwarp_add_test(matops.host_auto -backend host -kernel auto)
   ellwarp_add_test(matops.host_k1 -backend host -kernel k1)
   ellwarp_add_test(matops.host_k2 -backend host -kernel k2 -threshold 4)
   ellwarp_add_test(matops.host_window -backend host -kernel k2 -threshold 8 -sort_window 64)
   ellwarp_add_test(matops.host_longrows -backend host -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100)
   ellwarp_add_test(matops.host_longrows_window -backend host -kernel k2 -threshold 8 -sort_window 64 -mat_ellwarp_tune long_row=100)
   ellwarp_add_test(matops.host_uncompressed -backend host -kernel k1 -mat_ellwarp_tune compress_columns=0,long_row=33)
   ellwarp_add_test(matops.host_drop_auto -backend host -kernel auto -mat_ellwarp_tune analysis_drop_host=1)
   ellwarp_add_test(matops.host_drop_longrows_window -backend host -kernel k2 -threshold 8 -sort_window 64 -mat_ellwarp_tune long_row=100,analysis_drop_host=1)
   ellwarp_add_test(matops.host_drop_uncompressed -backend host -kernel k1 -mat_ellwarp_tune compress_columns=0,long_row=33,analysis_drop_host=1)
   ellwarp_add_test(matops.cuda_auto -backend cuda -kernel auto GPU)
   ellwarp_add_test(matops.cuda_longrows -backend cuda -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100 GPU)
   ellwarp_add_test(matops.cuda_longrows_window -backend cuda -kernel k2 -threshold 8 -sort_window 64 -mat_ellwarp_tune long_row=100 GPU)
   ellwarp_add_test(matops.cuda_uncompressed -backend cuda -kernel k1 -mat_ellwarp_tune compress_columns=0,long_row=33 GPU)
   ellwarp_add_test(matops.cuda_k1 -backend cuda -kernel k1 GPU)
   ellwarp_add_test(matops.cuda_gather_rows -backend cuda -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,gather=rows GPU)
   ellwarp_add_test(matops.cuda_gather_map -backend cuda -kernel auto -mat_ellwarp_tune gather=map GPU)
   ellwarp_add_test(matops.cuda_hostanalysis_drop -backend cuda -kernel auto -mat_ellwarp_tune analysis=host,analysis_drop_host=1 GPU)
   ellwarp_add_test(matops.cuda_k2 -backend cuda -kernel k2 -threshold 4 GPU)
   ellwarp_add_test(matops.cuda_window -backend cuda -kernel k2 -threshold 8 -sort_window 64 -block_size 64 GPU)
   ellwarp_add_test(matops.host_variant_acc -backend host -kernel k2 -threshold 4 -mat_ellwarp_tune mult_acc=4)
   ellwarp_add_test(matops.cuda_variant_lanes -backend cuda -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,mult_lanes=2,mult_acc=2,mult_nc=1 GPU)
   ellwarp_add_test(matops.host_k2_T2 -backend host -kernel k2 -threshold 2)
   ellwarp_add_test(matops.host_nobias -backend host -kernel auto -mat_ellwarp_tune compress_bias=0)
   ellwarp_add_test(matops.cuda_k2_T2 -backend cuda -kernel k2 -threshold 2 GPU)
   ellwarp_add_test(matops.cuda_bias_variants -backend cuda -kernel k2 -threshold 2 -mat_ellwarp_tune mult_lanes=2,mult_acc=4 GPU)
   ellwarp_add_test(matops.cuda_variant_long -backend cuda -kernel auto -mat_ellwarp_tune long_row=100,long_unroll=4,mult_lanes=4,mult_unroll=8 GPU)
   ellwarp_add_test(matops.host_block_on -backend host -blocked -mat_ellwarp_block on)
   ellwarp_add_test(matops.host_block_auto -backend host -blocked -mat_ellwarp_block auto)
   ellwarp_add_test(matops.host_block_off -backend host -blocked -mat_ellwarp_block off)
   ellwarp_add_test(matops.host_block_on_nostore -backend host -blocked -mat_ellwarp_block on -mat_ellwarp_tune store_layout=0)
   ellwarp_add_test(matops.host_block_uncompressed -backend host -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune compress_columns=0,block_sort_window=32)
   ellwarp_add_test(matops.host_block_lanes2 -backend host -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 2)
   ellwarp_add_test(matops.host_block_lanes8_uncompressed -backend host -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 8 -mat_ellwarp_tune compress_columns=0,block_sort_window=32)
   ellwarp_add_test(matops.host_block_lanes32 -backend host -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 32)
   ellwarp_add_test(matops.cuda_block_on -backend cuda -blocked -mat_ellwarp_block on GPU)
   ellwarp_add_test(matops.host_dict -backend host -dict)
   ellwarp_add_test(matops.host_dict_k2 -backend host -dict -kernel k2 -threshold 4)
   ellwarp_add_test(matops.host_dict_drop -backend host -dict -mat_ellwarp_tune analysis_drop_host=1)
   ellwarp_add_test(matops.host_dict_off -backend host -dict -mat_ellwarp_tune compress_dict=0)
   ellwarp_add_test(matops.cuda_dict -backend cuda -dict GPU)
   ellwarp_add_test(matops.cuda_dict_hostanalysis -backend cuda -dict -mat_ellwarp_tune analysis=host GPU)
   ellwarp_add_test(matops.cuda_dict_k2_variants -backend cuda -dict -kernel k2 -threshold 4 -mat_ellwarp_tune mult_lanes=2,mult_acc=2 GPU)
   ellwarp_add_test(matops.cuda_block_lanes1 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 GPU)
   ellwarp_add_test(matops.cuda_block_lanes2 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 2 GPU)
   ellwarp_add_test(matops.cuda_block_lanes4 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 4 GPU)
   ellwarp_add_test(matops.cuda_block_lanes8 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 8 GPU)
   ellwarp_add_test(matops.cuda_block_lanes16 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 16 GPU)
   ellwarp_add_test(matops.cuda_block_lanes32 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 32 GPU)
   ellwarp_add_test(matops.cuda_block_lanes8_uncompressed -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 8 -mat_ellwarp_tune compress_columns=0,block_sort_window=32 GPU)
   ellwarp_add_test(matops.cuda_block_lanes1_batch2 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune block_batch=2 GPU)
   ellwarp_add_test(matops.cuda_block_lanes1_batch4 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune block_batch=4 GPU)
   ellwarp_add_test(matops.cuda_block_lanes4_batch2 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 4 -mat_ellwarp_tune block_batch=2 GPU)
   ellwarp_add_test(matops.cuda_block_lanes32_batch4 -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 32 -mat_ellwarp_tune block_batch=4 GPU)
   ellwarp_add_test(matops.cuda_block_lanes8_batch2_uncompressed -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 8 -mat_ellwarp_tune compress_columns=0,block_sort_window=32,block_batch=2 GPU)
   ellwarp_add_test(matops.cuda_batch4 -backend cuda -kernel auto -mat_ellwarp_tune mult_batch=4 GPU)
   ellwarp_add_test(matops.cuda_batch8_k2_longrows -backend cuda -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,mult_batch=8,mult_regs=40 GPU)
   ellwarp_add_test(matops.cuda_dict_batch2 -backend cuda -dict -mat_ellwarp_tune mult_batch=2 GPU)
   ellwarp_add_test(matops.cuda_block_lane -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune block_map=lane GPU)
   ellwarp_add_test(matops.cuda_block_auto -backend cuda -blocked -mat_ellwarp_block auto GPU)
   ellwarp_add_test(matops.cuda_block_uncompressed -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune compress_columns=0,block_sort_window=32,block_map=lane GPU)
   ellwarp_add_test(matops.tune_unknown_key -backend host -kernel auto -mat_ellwarp_tune long_rows=100 EXPECT_ERROR "unknown key 'long_rows'. it takes key=value.* with the keys threshold, sort_window, long_row,")
*/
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include "stenciltestutil.h"
#include "tunetestutil.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static PetscReal         tol = 1e-13;
static MatEllwarpBackend backend;
static MatEllwarpKernel  kernel;
static PetscInt          threshold, sortwindow, blocksize;
static PetscInt          nstores; /* matrices whose scalar layout was a value store (MatEllwarpInfo.value_store) */
static PetscInt          nchecks;
static PetscBool         expectbias; /* the matrix under test has stencil rows far from the diagonal */
static PetscInt          expectblock; /* -blocked with -mat_ellwarp_block on (off): the products must use the blocked layout of this block size (the scalar one); 0: not checked */
static PetscBool         viewblocked; /* -view_blocked: print the MatView of the blocked matrices (diagnosis) */
static PetscInt          expectlanes; /* -mat_ellwarp_block_lanes: the blocked layout's lanes per block row (0: not checked) */
static PetscBool         diag;     /* -diag: extra diagnosis of MatMultTransposeAdd */
static PetscBool         skipmadd; /* -skip_madd: no MatMultAdd before the transposes (diagnosis) */
static PetscInt          diagvar;  /* -diag_variant n: vector variations before MatMultTransposeAdd (diagnosis) */

/* ---- comparisons ---------------------------------------------------------------------------------- */
static PetscErrorCode CompareVecs(Vec ref, Vec v, const char *what, const char *mat)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          err = 0, scale = 0;
  PetscInt           worst = -1;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(ref, &a));
  PetscCall(VecGetArrayRead(v, &b));
  for (PetscInt i = 0; i < n; i++) {
    if (PetscAbsScalar(a[i] - b[i]) > err) {
      err   = PetscAbsScalar(a[i] - b[i]);
      worst = i;
    }
    scale = PetscMax(scale, PetscAbsScalar(a[i]));
    /* Inf/NaN must match exactly where they appear */
    PetscCheck(!(PetscIsInfOrNanScalar(a[i]) ^ PetscIsInfOrNanScalar(b[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s on %s: entry %" PetscInt_FMT " is %g vs %g", what, mat, i, (double)PetscRealPart(a[i]), (double)PetscRealPart(b[i]));
  }
  if (!(err <= tol * PetscMax(scale, 1e-300) || err == 0)) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s on %s: worst entry %" PetscInt_FMT " of %" PetscInt_FMT ": reference %.17g, got %.17g\n", what, mat, worst, n, (double)PetscRealPart(a[worst]), (double)PetscRealPart(b[worst])));
    for (PetscInt i = 0; i < PetscMin(n, 6); i++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  [%" PetscInt_FMT "] %.17g %.17g\n", i, (double)PetscRealPart(a[i]), (double)PetscRealPart(b[i])));
  }
  PetscCall(VecRestoreArrayRead(ref, &a));
  PetscCall(VecRestoreArrayRead(v, &b));
  PetscCheck(err <= tol * PetscMax(scale, 1e-300) || err == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s on %s: relative error %g > %g", what, mat, (double)(err / PetscMax(scale, 1e-300)), (double)tol);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareReals(PetscReal ref, PetscReal v, const char *what, const char *mat)
{
  PetscFunctionBegin;
  PetscCheck(PetscAbsReal(ref - v) <= tol * PetscMax(PetscAbsReal(ref), 1e-300) || ref == v, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s on %s: %.17g vs %.17g", what, mat, (double)ref, (double)v);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same product through both matrices, with fresh random inputs */
static PetscErrorCode CompareMult(Mat A, Mat B, PetscRandom r, const char *what, const char *mat)
{
  Vec xa, ya, xb, yb, za, zb, ta, tb;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecDuplicate(ya, &za));
  PetscCall(VecDuplicate(yb, &zb));
  PetscCall(VecSetRandom(xa, r));
  PetscCall(VecCopy(xa, xb));
  PetscCall(VecSetRandom(za, r));
  PetscCall(VecCopy(za, zb));
  PetscCall(MatMult(A, xa, ya));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(CompareVecs(ya, yb, what, mat));
  if (!skipmadd) {
    PetscCall(MatMultAdd(A, xa, za, ya));
    PetscCall(MatMultAdd(B, xb, zb, yb));
    PetscCall(CompareVecs(ya, yb, "MatMultAdd", mat));
    PetscCall(MatMultAdd(A, xa, ya, ya)); /* in place: z == y */
    PetscCall(MatMultAdd(B, xb, yb, yb));
    PetscCall(CompareVecs(ya, yb, "MatMultAdd(y=y+Ax)", mat));
  }
  /* transposes */
  PetscCall(VecDuplicate(xa, &ta));
  PetscCall(VecDuplicate(xb, &tb));
  PetscCall(VecSetRandom(ya, r));
  PetscCall(VecCopy(ya, yb));
  PetscCall(MatMultTranspose(A, ya, ta));
  PetscCall(MatMultTranspose(B, yb, tb));
  PetscCall(CompareVecs(ta, tb, "MatMultTranspose", mat));
  {
    Vec zt; /* a fresh z (on a GPU, xb's device copy is not what this checks) */
    PetscCall(VecDuplicate(xb, &zt));
    PetscCall(VecCopy(xa, zt));
    if (diagvar == 1) { /* diagnosis: a fresh output holding the previous result */
      Vec t3;
      PetscCall(VecDuplicate(xb, &t3));
      PetscCall(VecCopy(tb, t3));
      PetscCall(VecDestroy(&tb));
      tb = t3;
    }
    if (diagvar == 2) PetscCall(VecCopy(xb, zt)); /* z already on the device, then overwritten on the host */
    if (diagvar == 2) PetscCall(VecCopy(xa, zt));
    if (diagvar == 3) { /* x of the transpose product through a device copy */
      Vec y3;
      PetscCall(VecDuplicate(yb, &y3));
      PetscCall(VecCopy(yb, y3));
      PetscCall(VecDestroy(&yb));
      yb = y3;
    }
    PetscCall(CompareVecs(xa, zt, "z of MatMultTransposeAdd", mat));
    PetscCall(CompareVecs(ya, yb, "x of MatMultTransposeAdd", mat));
    PetscCall(MatMultTransposeAdd(A, ya, xa, ta));
    {
      PetscBool peer;
      /* PETSc 3.26.1's SeqAIJCUSPARSE MatMultTransposeAdd(B, y, z, w) with z != w returns w_old + B^T y + z
         (MatMultAddKernel_SeqAIJCUSPARSE takes w write-only but runs cuSPARSE with beta = 1; its in-place
         form is right).  This is what the "MatConvert(aijcusparse)" comparison below used to trip over:
         the converted AIJCUSPARSE is checked in place, MATSEQELLWARP in both forms. */
      PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCUSPARSE, &peer));
      if (peer) {
        PetscCall(VecCopy(zt, tb));
        PetscCall(MatMultTransposeAdd(B, yb, tb, tb));
      } else PetscCall(MatMultTransposeAdd(B, yb, zt, tb));
    }
    if (PetscDefined(USE_DEBUG) || diag) { /* diagnosis: tb against z + (A^T y) computed afresh */
      Vec t2;
#if defined(ELLWARP_HAVE_CUDA)
      if (backend == MAT_ELLWARP_BACKEND_CUDA) { /* the device copy of z, read back directly */
        const PetscScalar *dz, *hz;
        PetscScalar        buf[8];
        PetscInt           nz;
        PetscCall(VecGetLocalSize(zt, &nz));
        PetscCall(VecCUDAGetArrayRead(zt, &dz));
        PetscCallCUDA(cudaMemcpy(buf, dz, sizeof(buf), cudaMemcpyDeviceToHost));
        PetscCall(VecCUDARestoreArrayRead(zt, &dz));
        PetscCall(VecGetArrayRead(zt, &hz));
        for (int q = 0; q < 4 && q < nz; q++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "z[%d] device %.17g host %.17g\n", q, (double)buf[q], (double)hz[q]));
        PetscCall(VecRestoreArrayRead(zt, &hz));
        PetscCall(VecGetArrayRead(tb, &hz));
        for (int q = 0; q < 4 && q < nz; q++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "tb[%d] %.17g\n", q, (double)hz[q]));
        PetscCall(VecRestoreArrayRead(tb, &hz));
      }
#endif
      PetscCall(VecDuplicate(tb, &t2));
      PetscCall(MatMultTranspose(B, yb, t2));
      PetscCall(VecAXPY(t2, 1.0, zt));
      PetscCall(CompareVecs(t2, tb, "MatMultTransposeAdd vs MatMultTranspose+VecAXPY", mat));
      PetscCall(VecCopy(ya, yb));
      PetscCall(MatMultTranspose(A, ya, t2)); /* host reference product through a CUDA output */
      PetscCall(VecAXPY(t2, 1.0, zt));
      PetscCall(CompareVecs(t2, tb, "MatMultTransposeAdd vs host A^T y + z", mat));
      PetscCall(VecDestroy(&t2));
    }
    PetscCall(CompareVecs(ta, tb, "MatMultTransposeAdd", mat));
    PetscCall(VecDestroy(&zt));
  }
  PetscCall(VecDestroy(&ta));
  PetscCall(VecDestroy(&tb));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareNorms(Mat A, Mat B, const char *mat)
{
  NormType types[] = {NORM_1, NORM_FROBENIUS, NORM_INFINITY};

  PetscFunctionBegin;
  for (int t = 0; t < 3; t++) {
    PetscReal na, nb;
    PetscCall(MatNorm(A, types[t], &na));
    PetscCall(MatNorm(B, types[t], &nb));
    PetscCall(CompareReals(na, nb, NormTypes[types[t]], mat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host values after device-side updates: MatGetRow must see them */
static PetscErrorCode CompareRows(Mat A, Mat B, const char *mat)
{
  PetscInt m;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, NULL));
  for (PetscInt i = 0; i < m; i += PetscMax(1, m / 17)) {
    PetscInt           na, nb;
    const PetscInt    *ca, *cb;
    const PetscScalar *va, *vb;
    PetscCall(MatGetRow(A, i, &na, &ca, &va));
    PetscCall(MatGetRow(B, i, &nb, &cb, &vb));
    /* merge walk; a column stored on one side only must hold an explicit zero (patterns may differ by
       explicit zeros, e.g. MatZeroRows with and without MAT_KEEP_NONZERO_PATTERN) */
    for (PetscInt ka = 0, kb = 0; ka < na || kb < nb;) {
      PetscInt    c;
      PetscScalar x = 0, y = 0;
      if (kb >= nb || (ka < na && ca[ka] < cb[kb])) {
        c = ca[ka];
        x = va[ka++];
      } else if (ka >= na || cb[kb] < ca[ka]) {
        c = cb[kb];
        y = vb[kb++];
      } else {
        c = ca[ka];
        x = va[ka++];
        y = vb[kb++];
      }
      PetscCheck(PetscAbsScalar(x - y) <= tol * PetscMax(1.0, PetscAbsScalar(x)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRow on %s: entry (%" PetscInt_FMT ",%" PetscInt_FMT ") %g vs %g", mat, i, c, (double)PetscRealPart(x), (double)PetscRealPart(y));
    }
    PetscCall(MatRestoreRow(A, i, &na, &ca, &va));
    PetscCall(MatRestoreRow(B, i, &nb, &cb, &vb));
  }
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static char peertype[64] = ""; /* -peer <type>: run the same products through another type (diagnosis) */

static PetscErrorCode ToEllwarp(Mat A, Mat *B)
{
  PetscFunctionBegin;
  if (peertype[0]) {
    PetscCall(MatConvert(A, peertype, MAT_INITIAL_MATRIX, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, B));
  PetscCall(MatEllwarpSetBackend(*B, backend));
  PetscCall(MatEllwarpSetKernel(*B, kernel, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the operations ------------------------------------------------------------------------------- */
static PetscErrorCode CheckAll(Mat A0, PetscRandom r, const char *mat)
{
  Mat            A, B, B2, A2;
  PetscInt       m, n;
  MatEllwarpInfo info;
  PetscReal      nrm;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A0, &m, &n));
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(ToEllwarp(A, &B));
  if (peertype[0]) { /* products only */
    PetscCall(CompareMult(A, B, r, "MatMult", mat));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatEllwarpGetInfo(B, &info));
  PetscCheck(info.backend == backend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "backend not applied");
  PetscCheck(kernel == MAT_ELLWARP_KERNEL_AUTO || info.kernel == kernel, PETSC_COMM_SELF, PETSC_ERR_PLIB, "kernel not applied");
  PetscCheck(info.nslots >= info.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bad layout size");
  if (expectblock) {
    PetscCheck(info.block == expectblock, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the products use block size %" PetscInt_FMT ", expected %" PetscInt_FMT, mat, info.block, expectblock);
    PetscCheck(info.block == 1 || (info.bytes_mult_block > 0 && info.bytes_mult == info.bytes_mult_block), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: blocked byte count not reported", mat);
    PetscCheck(info.block == 1 || !expectlanes || info.block_lanes == expectlanes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the blocked products use %" PetscInt_FMT " lanes per block row, expected %" PetscInt_FMT, mat, info.block_lanes, expectlanes);
    PetscCheck((info.block == 1) == (info.block_lanes == 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: lanes %" PetscInt_FMT " reported for block size %" PetscInt_FMT, mat, info.block_lanes, info.block);
    if (info.block > 1) { /* MatView says which T and why */
      PetscViewer v;
      char        str[8192], want[64];
      size_t      len;
      FILE       *f = tmpfile();
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
      PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, f, &v));
      PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(B, v));
      PetscCall(PetscViewerPopFormat(v));
      PetscCall(PetscViewerDestroy(&v)); /* flushes; the FILE stays open */
      rewind(f);
      len      = fread(str, 1, sizeof(str) - 1, f);
      str[len] = 0;
      fclose(f);
      PetscCall(PetscSNPrintf(want, sizeof(want), "T = %" PetscInt_FMT " lanes per block row", info.block_lanes));
      if (viewblocked) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", str));
      PetscCheck(strstr(str, want) && strstr(str, "blocked lanes model:") && strstr(str, "products: blocked layout") && (!info.value_store || strstr(str, "values' store")), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatView does not say '%s':\n%s", mat, want, str);
    }
    nchecks++;
  }
  {
    /* the scalar layout is a value store (K1, sort window 256) exactly where the blocked layout was chosen before the
       scalar analysis and nothing of the scalar layout was forced: always under -mat_ellwarp_block on (auto may
       choose blocked only against the scalar layout's own bytes, which keeps the product rule's layout) */
    PetscBool store = PETSC_TRUE;
    PetscCall(TestTuneGetBool("store_layout", &store));
    PetscCheck(!info.value_store || (info.block > 1 && info.kernel == MAT_ELLWARP_KERNEL_K1 && info.sortwindow == 256), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: value store reported with block size %" PetscInt_FMT ", kernel %s, sort window %" PetscInt_FMT, mat, info.block, MatEllwarpKernels[info.kernel], info.sortwindow);
    PetscCheck(!info.value_store || (store && kernel == MAT_ELLWARP_KERNEL_AUTO && !threshold && !sortwindow), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the scalar layout was built as a value store although the options force it", mat);
    if (expectblock > 1 && store && kernel == MAT_ELLWARP_KERNEL_AUTO && !threshold && !sortwindow) PetscCheck(info.value_store, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: blocked products (-mat_ellwarp_block on) but the scalar layout is not a value store", mat);
    if (info.value_store) nstores++;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: products on the %s layout (block size %" PetscInt_FMT ", %" PetscInt_FMT " lanes per block row), %.2f bytes per nonzero\n", mat, info.block > 1 ? "blocked" : "scalar", info.block, info.block_lanes, info.nnz ? info.bytes_mult / (double)info.nnz : 0.0));
  if (expectbias) { /* the stencil matrices: biased slices unless the options turn them off (or K2 with > 8 lanes per row) */
    PetscBool cc = PETSC_TRUE, cb = PETSC_TRUE;
    PetscCall(TestTuneGetBool("compress_columns", &cc));
    PetscCall(TestTuneGetBool("compress_bias", &cb));
    if (cc && cb && threshold != 1) PetscCheck(info.nbias > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no slice with the biased 16-bit columns", mat);
    if (!cc || !cb) PetscCheck(info.nbias == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " biased slices with the mode off", mat, info.nbias);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " slices with biased 16-bit columns, %" PetscInt_FMT " with row-relative ones\n", mat, info.nbias, info.nslices, info.n16 - info.nbias));
    nchecks++;
  }

  PetscCall(CompareRows(A, B, mat));
  PetscCall(CompareMult(A, B, r, "MatMult", mat));
  PetscCall(CompareRows(A, B, mat));
  PetscCall(CompareNorms(A, B, mat));
  {
    Vec da, db;
    PetscCall(MatCreateVecs(A, NULL, &da));
    PetscCall(MatCreateVecs(B, NULL, &db));
    PetscCall(MatGetDiagonal(A, da));
    PetscCall(MatGetDiagonal(B, db));
    PetscCall(CompareVecs(da, db, "MatGetDiagonal", mat));
    PetscCall(VecDestroy(&da));
    PetscCall(VecDestroy(&db));
  }
  /* MatScale, MatShift, MatDiagonalScale on the layout; then the host must see them */
  PetscCall(MatScale(A, -2.5));
  PetscCall(MatScale(B, -2.5));
  PetscCall(CompareMult(A, B, r, "MatScale+MatMult", mat));
  if (m == n) {
    PetscCall(MatShift(A, 1.5));
    PetscCall(MatShift(B, 1.5));
    PetscCall(CompareRows(A, B, mat));
    PetscCall(CompareMult(A, B, r, "MatShift+MatMult", mat));
    PetscCall(CompareRows(A, B, mat));
  }
  {
    Vec la, ra, lb, rb;
    PetscCall(MatCreateVecs(A, &ra, &la));
    PetscCall(MatCreateVecs(B, &rb, &lb));
    PetscCall(VecSetRandom(la, r));
    PetscCall(VecSetRandom(ra, r));
    PetscCall(VecCopy(la, lb));
    PetscCall(VecCopy(ra, rb));
    PetscCall(MatDiagonalScale(A, la, ra));
    PetscCall(MatDiagonalScale(B, lb, rb));
    PetscCall(CompareMult(A, B, r, "MatDiagonalScale+MatMult", mat));
    PetscCall(MatDiagonalScale(A, NULL, ra));
    PetscCall(MatDiagonalScale(B, NULL, rb));
    PetscCall(CompareMult(A, B, r, "MatDiagonalScale(right)+MatMult", mat));
    PetscCall(VecDestroy(&la));
    PetscCall(VecDestroy(&ra));
    PetscCall(VecDestroy(&lb));
    PetscCall(VecDestroy(&rb));
  }
  PetscCall(CompareRows(A, B, mat));
  PetscCall(CompareNorms(A, B, mat));

  /* duplicate, copy, AXPY with the same pattern stay in the layout */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
  PetscCall(CompareMult(A2, B2, r, "MatDuplicate+MatMult", mat));
  PetscCall(MatAXPY(A2, 0.75, A, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(B2, 0.75, B, SAME_NONZERO_PATTERN));
  PetscCall(CompareMult(A2, B2, r, "MatAXPY(same)+MatMult", mat));
  PetscCall(MatCopy(A, A2, SAME_NONZERO_PATTERN));
  PetscCall(MatCopy(B, B2, SAME_NONZERO_PATTERN));
  PetscCall(CompareMult(A2, B2, r, "MatCopy+MatMult", mat));
  /* the remembered equality of two patterns must not survive a pattern change of either matrix */
  if (m > 1 && n > 1) {
    PetscInt    i = m - 1, j = 0;
    PetscScalar v = 0.125;
    PetscCall(MatAXPY(A2, 0.5, A, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(B2, 0.5, B, DIFFERENT_NONZERO_PATTERN)); /* compared once, remembered */
    PetscCall(MatSetOption(A2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(B2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (int q = 0; q < 2; q++) {
      PetscCall(MatSetValues(A2, 1, &i, 1, &j, &v, ADD_VALUES));
      PetscCall(MatSetValues(B2, 1, &i, 1, &j, &v, ADD_VALUES));
      i = 0;
      j = n - 1;
    }
    PetscCall(MatAssemblyBegin(A2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAXPY(A2, -0.25, A, SUBSET_NONZERO_PATTERN));
    PetscCall(MatAXPY(B2, -0.25, B, SUBSET_NONZERO_PATTERN));
    PetscCall(CompareMult(A2, B2, r, "MatAXPY after a pattern change+MatMult", mat));
  }
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&B2));

  /* value refresh: same pattern, new host values, no new analysis */
  {
    MatEllwarpInfo before, after;
    PetscInt       row = m / 2, cols[2];
    PetscScalar    v[2];
    PetscInt       ncols_row;
    const PetscInt *c;

    PetscCall(MatEllwarpGetInfo(B, &before));
    if (m) {
      PetscCall(MatGetRow(A, row, &ncols_row, &c, NULL));
      PetscInt nc = PetscMin(ncols_row, 2);
      for (PetscInt k = 0; k < nc; k++) cols[k] = c[k];
      PetscCall(MatRestoreRow(A, row, &ncols_row, &c, NULL));
      v[0] = 3.25;
      v[1] = -1.0;
      PetscCall(MatSetValues(A, 1, &row, nc, cols, v, ADD_VALUES));
      PetscCall(MatSetValues(B, 1, &row, nc, cols, v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(CompareMult(A, B, r, "value refresh+MatMult", mat));
    PetscCall(MatEllwarpGetInfo(B, &after));
    PetscCheck(after.nanalyses == before.nanalyses, PETSC_COMM_SELF, PETSC_ERR_PLIB, "value-only update re-analysed the pattern on %s", mat);
    PetscCheck(after.nrefreshes > before.nrefreshes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "value-only update did not refresh on %s", mat);
  }

  /* MatZeroRows / MatZeroRowsColumns with x/b fix-up */
  if (m == n && m > 0) {
    PetscInt  nz = PetscMax(1, m / 7), *rows;
    Vec       xa, ba, xb, bb;
    PetscReal diag = 2.0;

    PetscCall(PetscMalloc1(nz, &rows));
    for (PetscInt i = 0; i < nz; i++) rows[i] = (i * 7 + 3) % m;
    PetscCall(PetscSortRemoveDupsInt(&nz, rows));
    for (int cols = 0; cols < 2; cols++) {
      Mat Ac, Bc;
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Ac));
      PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &Bc));
      PetscCall(MatSetOption(Ac, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
      PetscCall(MatCreateVecs(Ac, &xa, &ba));
      PetscCall(MatCreateVecs(Bc, &xb, &bb));
      PetscCall(VecSetRandom(xa, r));
      PetscCall(VecSetRandom(ba, r));
      PetscCall(VecCopy(xa, xb));
      PetscCall(VecCopy(ba, bb));
      if (cols) {
        PetscCall(MatZeroRowsColumns(Ac, nz, rows, diag, xa, ba));
        PetscCall(MatZeroRowsColumns(Bc, nz, rows, diag, xb, bb));
      } else {
        PetscCall(MatZeroRows(Ac, nz, rows, diag, xa, ba));
        PetscCall(MatZeroRows(Bc, nz, rows, diag, xb, bb));
      }
      PetscCall(CompareVecs(ba, bb, cols ? "MatZeroRowsColumns b" : "MatZeroRows b", mat));
      PetscCall(CompareMult(Ac, Bc, r, cols ? "MatZeroRowsColumns+MatMult" : "MatZeroRows+MatMult", mat));
      PetscCall(CompareRows(Ac, Bc, mat));
      PetscCall(VecDestroy(&xa));
      PetscCall(VecDestroy(&ba));
      PetscCall(VecDestroy(&xb));
      PetscCall(VecDestroy(&bb));
      PetscCall(MatDestroy(&Ac));
      PetscCall(MatDestroy(&Bc));
    }
    PetscCall(PetscFree(rows));
  }

  /* conversion back to AIJ (and AIJCUSPARSE on a device) gives the same matrix */
  {
    Mat C;
    PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatAXPY(C, -1.0, A, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
    PetscCall(MatNorm(A, NORM_FROBENIUS, &info.meanrowlen));
    PetscCheck(nrm <= tol * PetscMax(info.meanrowlen, 1e-300) || nrm == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to SeqAIJ differs on %s", mat);
    PetscCall(MatDestroy(&C));
    if (backend == MAT_ELLWARP_BACKEND_CUDA) {
      PetscCall(MatConvert(B, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &C));
      PetscCall(CompareMult(A, C, r, "MatConvert(aijcusparse)+MatMult", mat));
      PetscCall(MatDestroy(&C));
    }
  }

  /* pattern change: a new nonzero triggers a new analysis, never a wrong result */
  if (m > 1 && n > 1) {
    MatEllwarpInfo before, after;
    PetscInt       i = m - 1, j = 0;
    PetscScalar    v = 0.5;

    PetscCall(MatEllwarpGetInfo(B, &before));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    j = 0;
    PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &i, 1, &j, &v, ADD_VALUES));
    i = 0;
    j = n - 1;
    PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &i, 1, &j, &v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(CompareMult(A, B, r, "pattern change+MatMult", mat));
    PetscCall(MatEllwarpGetInfo(B, &after));
    PetscCheck(after.nanalyses >= before.nanalyses, PETSC_COMM_SELF, PETSC_ERR_PLIB, "analysis count went backwards");
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- matrices --------------------------------------------------------------------------------------- */
/* random m x n with row lengths from 0 to maxlen (some rows empty) */
static PetscErrorCode RandomMatrix(PetscInt m, PetscInt n, PetscInt maxlen, PetscRandom r, Mat *A)
{
  PetscInt *nnz;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &nnz));
  for (PetscInt i = 0; i < m; i++) {
    PetscReal u;
    PetscCall(PetscRandomGetValueReal(r, &u));
    nnz[i] = (i % 11 == 5) ? 0 : (PetscInt)(u * u * PetscMin(maxlen, n));
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 0, nnz, A));
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt k = 0; k < nnz[i]; k++) {
      PetscReal   u;
      PetscScalar v;
      PetscInt    j;
      PetscCall(PetscRandomGetValueReal(r, &u));
      j = (PetscInt)(u * n) % n;
      PetscCall(PetscRandomGetValue(r, &v));
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, ADD_VALUES));
    }
    if (i < n && nnz[i] && i % 3) { /* most rows have a diagonal */
      PetscScalar v = 4.0;
      PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetValues(*A, 1, &i, 1, &i, &v, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P1 tetrahedra on a cube split into 6 tets per cell (Kuhn): the pattern of a scalar FE matrix,
   with random element contributions (dof per node: bs) */
static PetscErrorCode TetMatrix(PetscInt N, PetscInt bs, PetscBool setbs, PetscRandom r, Mat *A)
{
  PetscInt nv = (N + 1) * (N + 1) * (N + 1), n = nv * bs;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, n, n, n, n));
  if (setbs) PetscCall(MatSetBlockSize(*A, bs)); /* as DMPlex sets it for a vector field */
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 27 * bs, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt c = 0; c < N * N * N; c++)
    for (int t = 0; t < 6; t++) {
      PetscInt    v[4], idx[12];
      PetscScalar ke[144];
      EllwarpKuhnTet(N, c, t, v);
      for (int a = 0; a < 4; a++)
        for (PetscInt d = 0; d < bs; d++) idx[a * bs + d] = v[a] * bs + d;
      for (PetscInt q = 0; q < 16 * bs * bs; q++) PetscCall(PetscRandomGetValue(r, &ke[q]));
      PetscCall(MatSetValues(*A, 4 * bs, idx, 4 * bs, idx, ke, ADD_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LongRowMatrix(PetscInt n, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar v = 2.0 + i % 5;
    PetscCall(MatSetValue(*A, i, i, v, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
  }
  for (PetscInt j = 0; j < n; j++) PetscCall(MatSetValue(*A, n / 3, j, 0.001 * (j + 1), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EmptyMatrix(PetscInt m, PetscInt n, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 0, NULL, A));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a random bs-blocked mb x nb (in blocks) matrix with its block size set: block rows of 0..maxlen whole blocks
   (every 7th empty; with longrow, block row mb/3 holds every block column), most with a diagonal block */
static PetscErrorCode RandomBlockedMatrix(PetscInt mb, PetscInt nb, PetscInt bs, PetscInt maxlen, PetscBool longrow, PetscRandom r, Mat *A)
{
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, mb * bs, nb * bs, mb * bs, nb * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, (maxlen + 1) * bs, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt i = 0; i < mb; i++) {
    PetscReal u;
    PetscInt  len;
    if (i % 7 == 3) continue;
    PetscCall(PetscRandomGetValueReal(r, &u));
    len = (PetscInt)(PetscAbsReal(u) * PetscMin(maxlen, nb));
    if (longrow && i == mb / 3) len = nb;
    for (PetscInt k = 0; k < len + 1; k++) {
      PetscInt j;
      if (k == len && (i >= nb || i % 3 == 1)) break; /* the diagonal block, for most block rows */
      if (longrow && i == mb / 3) j = k < nb ? k : i;
      else if (k == len) j = i;
      else {
        PetscCall(PetscRandomGetValueReal(r, &u));
        j = (PetscInt)(PetscAbsReal(u) * nb) % nb;
      }
      for (PetscInt q = 0; q < bs * bs; q++) PetscCall(PetscRandomGetValue(r, &v[q]));
      PetscCall(MatSetValuesBlocked(*A, 1, &i, 1, &j, v, ADD_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Jacobian pattern of P2 Lagrange elasticity (3 components) on a box of 3 x 3 x 2 cubes cut into 6 Kuhn tets each
   (DMPlexCreateFromCellListPetsc, as benchmarks/spmv/plex_matrices.c builds its box: no tet generator needed), from
   DMCreateMatrix (block size 3, DMPlex's default numbering), every cell's closure given a random element matrix
   through DMPlexMatSetClosure: block rows of the vertex and edge dofs, of strongly different lengths */
static PetscErrorCode PlexP2ElasticityMatrix(PetscRandom r, Mat *A)
{
  DM             dm;
  PetscFE        fe;
  const PetscInt n[3] = {3, 3, 2}, nc = 6 * n[0] * n[1] * n[2], nv = (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
  PetscInt       cs, ce, nb, *cells;
  PetscReal     *xyz;
  PetscScalar   *elem;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(4 * nc, &cells, 3 * nv, &xyz));
  for (PetscInt v = 0; v < nv; v++) {
    xyz[3 * v + 0] = (PetscReal)(v % (n[0] + 1));
    xyz[3 * v + 1] = (PetscReal)((v / (n[0] + 1)) % (n[1] + 1));
    xyz[3 * v + 2] = (PetscReal)(v / ((n[0] + 1) * (n[1] + 1)));
  }
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal e[3][3], det;
    EllwarpKuhnBoxTet(n, c / 6, (int)(c % 6), &cells[4 * c]);
    for (int q = 0; q < 3; q++)
      for (int d = 0; d < 3; d++) e[q][d] = xyz[3 * cells[4 * c + q + 1] + d] - xyz[3 * cells[4 * c] + d];
    det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    if (det > 0) { /* DMPlex's tet orientation (as plex_matrices.c) */
      const PetscInt t = cells[4 * c + 1];
      cells[4 * c + 1] = cells[4 * c + 2];
      cells[4 * c + 2] = t;
    }
  }
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, nc, nv, 4, PETSC_TRUE, cells, 3, xyz, &dm));
  PetscCall(PetscFree2(cells, xyz));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 3, PETSC_TRUE, 2, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(DMSetMatType(dm, MATAIJ));
  PetscCall(DMCreateMatrix(dm, A));
  PetscCall(PetscMalloc1(nb * nb, &elem));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cs, &ce));
  for (PetscInt c = cs; c < ce; c++) {
    for (PetscInt k = 0; k < nb * nb; k++) PetscCall(PetscRandomGetValue(r, &elem[k]));
    PetscCall(DMPlexMatSetClosure(dm, NULL, NULL, *A, c, elem, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(elem));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the products of the ELLWARP matrix against MATSEQBAIJ of the same block size */
static PetscErrorCode CheckBAIJ(Mat A, PetscRandom r, const char *mat)
{
  Mat Ab, B;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQBAIJ, MAT_INITIAL_MATRIX, &Ab));
  PetscCall(ToEllwarp(A, &B));
  PetscCall(CompareMult(Ab, B, r, "MatMult against SeqBAIJ", mat));
  PetscCall(MatScale(Ab, 0.5));
  PetscCall(MatScale(B, 0.5));
  PetscCall(CompareMult(Ab, B, r, "MatScale+MatMult against SeqBAIJ", mat));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Ab));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetValuesCOO into the layout (device memory with the cuda backend) while the products use the blocked layout:
   twice, the second without a new analysis, each checked against SeqAIJ given the same entries */
static PetscErrorCode CheckCOO(Mat A0, PetscRandom r, const char *mat)
{
  Mat             A, B;
  PetscInt        m, nr, *ci, *cj;
  const PetscInt *ia, *ja;
  PetscBool       done;
  PetscScalar    *v;
  PetscCount      ncoo;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A0, &m, NULL));
  PetscCall(MatGetRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  ncoo = ia[nr] + nr; /* every entry, and the first of each row twice (duplicates are summed) */
  PetscCall(PetscMalloc3(ncoo, &ci, ncoo, &cj, ncoo, &v));
  ncoo = 0;
  for (PetscInt i = 0; i < nr; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
      ci[ncoo]   = i;
      cj[ncoo++] = ja[k];
      if (k == ia[i]) {
        ci[ncoo]   = i;
        cj[ncoo++] = ja[k];
      }
    }
  PetscCall(MatRestoreRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(MatDuplicate(A0, MAT_DO_NOT_COPY_VALUES, &A));
  PetscCall(ToEllwarp(A, &B));
  PetscCall(MatSetPreallocationCOO(A, ncoo, ci, cj));
  PetscCall(MatSetPreallocationCOO(B, ncoo, ci, cj));
  for (int round = 0; round < 2; round++) {
    MatEllwarpInfo before = {0}, after;
    for (PetscCount k = 0; k < ncoo; k++) PetscCall(PetscRandomGetValue(r, &v[k]));
    if (round) PetscCall(MatEllwarpGetInfo(B, &before)); /* (assembled by the first MatSetValuesCOO) */
    PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, v, INSERT_VALUES));
    PetscCall(CompareMult(A, B, r, round ? "MatSetValuesCOO again+MatMult" : "MatSetValuesCOO+MatMult", mat));
    PetscCall(MatEllwarpGetInfo(B, &after));
    PetscCheck(!round || after.nanalyses == before.nanalyses, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatSetValuesCOO with the same pattern analysed again", mat);
    PetscCheck(!expectblock || after.block == expectblock, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: after COO the products use block size %" PetscInt_FMT, mat, after.block);
  }
  PetscCall(PetscFree3(ci, cj, v));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocked layout (-blocked): every operation on bs-blocked matrices */
/* The block mode changed after the analysis (MatSetFromOptions on an analysed matrix): the scalar layout, built as a
   value store for blocked products, is analysed again as the products' layout under off, and a store again under on */
static PetscErrorCode CheckBlockModeChange(PetscRandom r)
{
  Mat            A, B;
  MatEllwarpInfo info;
  const char    *modes[3] = {"on", "off", "on"};

  PetscFunctionBegin;
  PetscCall(TetMatrix(5, 3, PETSC_TRUE, r, &A));
  PetscCall(ToEllwarp(A, &B));
  PetscCall(MatSetOptionsPrefix(B, "modechange_"));
  for (PetscInt k = 0; k < 3; k++) {
    const PetscBool on = (PetscBool)(k != 1);
    PetscCall(PetscOptionsSetValue(NULL, "-modechange_mat_ellwarp_block", modes[k]));
    PetscCall(MatSetFromOptions(B));
    PetscCall(MatEllwarpGetInfo(B, &info));
    PetscCheck(info.block == (on ? 3 : 1) && info.value_store == on && info.nanalyses == k + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_block %s after %" PetscInt_FMT " analyses: block %" PetscInt_FMT ", value store %d, analyses %" PetscInt_FMT, modes[k], k, info.block, (int)info.value_store, info.nanalyses);
    PetscCheck(on || info.kernel != MAT_ELLWARP_KERNEL_K1 || info.sortwindow != 256, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_block off: the scalar layout kept the store's K1 with sort window 256");
    PetscCall(CompareMult(A, B, r, "MatMult", "block-mode-change"));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-modechange_mat_ellwarp_block"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBlocked(PetscRandom r, PetscInt mode)
{
  struct {
    const char *name;
    PetscInt    mb, nb, bs, maxlen;
    PetscBool   longrow;
  } rnd[] = {
    {"blocked-bs2-square",       200,   200,   2, 30, PETSC_FALSE},
    {"blocked-bs3-37-rows",      37,    37,    3, 20, PETSC_FALSE},
    {"blocked-bs4-wide",         45,    300,   4, 25, PETSC_FALSE},
    {"blocked-bs6-tall",         150,   40,    6, 12, PETSC_FALSE},
    {"blocked-bs3-long-row",     300,   300,   3, 15, PETSC_TRUE },
    {"blocked-bs5-1",            1,     1,     5, 1,  PETSC_FALSE},
    {"blocked-bs2-far-columns",  70,    40000, 2, 6,  PETSC_FALSE}, /* block columns beyond 16-bit offsets */
    /* strongly varying block-row lengths (0..maxlen, every 7th empty, one holding every block column), block rows
       not a multiple of any slice height: the lanes' partial rows and the padding of T > 1 */
    {"blocked-bs2-varied",       173,   210,   2, 90, PETSC_TRUE },
    {"blocked-bs3-varied",       211,   190,   3, 80, PETSC_TRUE },
    {"blocked-bs4-varied",       97,    150,   4, 70, PETSC_TRUE },
    {"blocked-bs5-varied",       61,    120,   5, 60, PETSC_TRUE },
    {"blocked-bs6-varied",       45,    100,   6, 50, PETSC_TRUE },
  };
  Mat A;

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(rnd); i++) {
    expectblock = mode == 1 ? rnd[i].bs : (mode == 2 ? 1 : 0);
    PetscCall(RandomBlockedMatrix(rnd[i].mb, rnd[i].nb, rnd[i].bs, rnd[i].maxlen, rnd[i].longrow, r, &A));
    PetscCall(CheckAll(A, r, rnd[i].name));
    PetscCall(CheckBAIJ(A, r, rnd[i].name));
    PetscCall(CheckCOO(A, r, rnd[i].name));
    PetscCall(MatDestroy(&A));
  }
  /* block columns far from the block row at the same distance for every row: the biased 16-bit index mode */
  expectblock = mode == 1 ? 2 : (mode == 2 ? 1 : 0);
  {
    const PetscInt mb = 2000, nb = 80000, off[3] = {0, 40000, 70000};
    PetscScalar    v[4];
    PetscCall(MatCreate(PETSC_COMM_SELF, &A));
    PetscCall(MatSetSizes(A, 2 * mb, 2 * nb, 2 * mb, 2 * nb));
    PetscCall(MatSetBlockSize(A, 2));
    PetscCall(MatSetType(A, MATSEQAIJ));
    PetscCall(MatSeqAIJSetPreallocation(A, 6, NULL));
    for (PetscInt i = 0; i < mb; i++)
      for (int j = 0; j < 3; j++) {
        const PetscInt c = i + off[j];
        for (int q = 0; q < 4; q++) PetscCall(PetscRandomGetValue(r, &v[q]));
        PetscCall(MatSetValuesBlocked(A, 1, &i, 1, &c, v, INSERT_VALUES));
      }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(CheckAll(A, r, "blocked-bs2-far-stencil"));
    PetscCall(CheckBAIJ(A, r, "blocked-bs2-far-stencil"));
    PetscCall(MatDestroy(&A));
  }
  /* P1 elasticity (3 dofs per vertex): block size set as DMPlex sets it, and detected from the pattern */
  expectblock = mode == 1 ? 3 : (mode == 2 ? 1 : 0);
  PetscCall(TetMatrix(6, 3, PETSC_TRUE, r, &A));
  PetscCall(CheckAll(A, r, "P1-tets-elasticity-bs3"));
  PetscCall(CheckBAIJ(A, r, "P1-tets-elasticity-bs3"));
  PetscCall(CheckCOO(A, r, "P1-tets-elasticity-bs3"));
  PetscCall(MatDestroy(&A));
  PetscCall(TetMatrix(5, 3, PETSC_FALSE, r, &A));
  PetscCall(CheckAll(A, r, "P1-tets-elasticity-detected"));
  PetscCall(MatDestroy(&A));
  /* DMPlex P2 elasticity on a box of tets (DMPlex's default numbering): block rows of ~10-70 blocks */
  expectblock = mode == 1 ? 3 : (mode == 2 ? 1 : 0);
  PetscCall(PlexP2ElasticityMatrix(r, &A));
  PetscCall(CheckAll(A, r, "DMPlex-P2-elasticity-box"));
  PetscCall(CheckBAIJ(A, r, "DMPlex-P2-elasticity-box"));
  PetscCall(CheckCOO(A, r, "DMPlex-P2-elasticity-box"));
  PetscCall(MatDestroy(&A));
  if (mode == 1 && kernel == MAT_ELLWARP_KERNEL_AUTO && !threshold && !sortwindow) {
    PetscBool store = PETSC_TRUE;
    PetscCall(TestTuneGetBool("store_layout", &store));
    if (store) PetscCall(CheckBlockModeChange(r));
  }
  /* not blocked: the scalar layout whatever the mode */
  expectblock = mode ? 1 : 0;
  PetscCall(RandomMatrix(300, 300, 20, r, &A));
  PetscCall(CheckAll(A, r, "random-not-blocked"));
  PetscCall(MatDestroy(&A));
  expectblock = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inf in x must not leak into rows that do not reference it (padding is never multiplied) */
static PetscErrorCode CheckPaddingIsInert(PetscRandom r)
{
  Mat          A, B;
  Vec          xa, ya, xb, yb;
  PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(200, 200, 40, r, &A));
  PetscCall(ToEllwarp(A, &B));
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecSet(xa, 1.0));
  PetscCall(VecGetArray(xa, &x));
  x[0] = PETSC_INFINITY;
  PetscCall(VecRestoreArray(xa, &x));
  PetscCall(VecCopy(xa, xb));
  PetscCall(MatMult(A, xa, ya));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(CompareVecs(ya, yb, "MatMult with Inf in x", "random-200"));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bad input: clear errors, not crashes */
/* -dict: the dictionary column mode (dictlayout.c).  (1) Rows in groups of 8 sharing 3 random cluster centres spread over
   400 000 columns, 3..14 columns near each, some rows random over all columns (32-bit slices beside the dictionary
   ones), some empty: row-relative and biased offsets fit no slice, a slice's columns fall in few 512-column windows.
   (2) Q1 on a hex box refined once in DMPlex's default numbering (68 921 rows, the old vertices first, then the new
   vertices of the edges, faces and cells), under compress_bias=0 so that its slices take the dictionary where row offsets do not fit.  Every
   operation of CheckAll against SeqAIJ; the mode must be chosen (ndict > 0), and with compress_dict=0 never. */
/* the dictionary mode is chosen on A (some slices) with compress_dict on, never with it off; the bytes count it */
static PetscErrorCode CheckDictUsed(Mat A, PetscBool on, PetscBool drop, const char *mat)
{
  Mat            B;
  MatEllwarpInfo info;

  PetscFunctionBegin;
  PetscCall(ToEllwarp(A, &B));
  PetscCall(MatEllwarpGetInfo(B, &info));
  if (on) PetscCheck(info.ndict > 0 && info.ndict <= info.n16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " dictionary slices of %" PetscInt_FMT " (16-bit %" PetscInt_FMT ")", mat, info.ndict, info.nslices, info.n16);
  else PetscCheck(info.ndict == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " dictionary slices with compress_dict=0", mat, info.ndict);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " slices with dictionary codes, %" PetscInt_FMT " other 16-bit, %" PetscInt_FMT " 32-bit; %.3f bytes per nonzero%s\n", mat, info.ndict, info.nslices, info.n16 - info.ndict, info.nslices - info.n16, info.bytes_mult / (double)PetscMax(info.nnz, 1), drop ? " (host arrays dropped)" : ""));
  nchecks++;
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckDict(PetscRandom r)
{
  Mat       A;
  PetscBool cd = PETSC_TRUE, drop = PETSC_FALSE;
  const PetscInt m = 3000, n = 400000;

  PetscFunctionBegin;
  PetscCall(TestTuneGetBool("compress_dict", &cd));
  PetscCall(TestTuneGetBool("analysis_drop_host", &drop));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 60, NULL, &A));
  for (PetscInt g = 0; g < m; g += 8) {
    PetscInt centre[3];
    for (int c = 0; c < 3; c++) {
      PetscReal u;
      PetscCall(PetscRandomGetValueReal(r, &u));
      centre[c] = (PetscInt)((u + 1.0) * 0.5 * (n - 1000)) + 500;
    }
    for (PetscInt i = g; i < PetscMin(g + 8, m); i++) {
      PetscReal u;
      PetscCall(PetscRandomGetValueReal(r, &u));
      if (i % 97 == 13) continue; /* an empty row */
      if (i % 41 == 7) { /* a random row: its slice stays 32-bit */
        for (int k = 0; k < 30; k++) {
          PetscReal   t;
          PetscScalar v;
          PetscInt    j;
          PetscCall(PetscRandomGetValueReal(r, &t));
          j = (PetscInt)((t + 1.0) * 0.5 * n) % n;
          PetscCall(PetscRandomGetValue(r, &v));
          PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
        }
        continue;
      }
      for (int c = 0; c < 3; c++) {
        const PetscInt len = 3 + (PetscInt)((u + 1.0) * 5.5) + c;
        for (PetscInt k = 0; k < len; k++) {
          PetscReal   t;
          PetscScalar v;
          PetscInt    j;
          PetscCall(PetscRandomGetValueReal(r, &t));
          j = centre[c] + (PetscInt)(t * 300.0);
          PetscCall(PetscRandomGetValue(r, &v));
          PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
        }
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckDictUsed(A, cd, drop, "clustered-3000x400000"));
  PetscCall(CheckAll(A, r, "clustered-3000x400000"));
  PetscCall(MatDestroy(&A));
  { /* Q1 on a refined box, DMPlex's default numbering */
    DM             dm, dmr;
    PetscFE        fe;
    const PetscInt faces[3] = {20, 20, 20};
    PetscScalar   *v;
    PetscInt       nz, mm;
    PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, 3, PETSC_FALSE, faces, NULL, NULL, NULL, PETSC_TRUE, 0, PETSC_FALSE, &dm));
    PetscCall(DMRefine(dm, PETSC_COMM_SELF, &dmr));
    PetscCall(DMDestroy(&dm));
    PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_FALSE, 1, PETSC_DETERMINE, &fe));
    PetscCall(DMSetField(dmr, 0, NULL, (PetscObject)fe));
    PetscCall(PetscFEDestroy(&fe));
    PetscCall(DMCreateDS(dmr));
    PetscCall(DMSetMatType(dmr, MATSEQAIJ));
    PetscCall(DMCreateMatrix(dmr, &A));
    PetscCall(MatGetSize(A, &mm, NULL));
    PetscCall(MatSeqAIJGetArray(A, &v));
    {
      MatInfo info;
      PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
      nz = (PetscInt)info.nz_used;
    }
    for (PetscInt k = 0; k < nz; k++) PetscCall(PetscRandomGetValue(r, &v[k]));
    PetscCall(MatSeqAIJRestoreArray(A, &v));
    PetscCall(TestTuneAppend(NULL, "compress_bias=0")); /* its slices fit the biased mode otherwise */
    PetscCheck(mm > 65536 && nz > 10 * mm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "refined box: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries", mm, nz);
    PetscCall(CheckDictUsed(A, cd, drop, "plex-Q1-refined-default"));
    PetscCall(CheckAll(A, r, "plex-Q1-refined-default"));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&dmr));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckErrors(void)
{
  Mat            A;
  Vec            x, y;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, 5, 5, 5, 5));
  PetscCall(MatSetType(A, MATSEQELLWARP));
  PetscCall(MatEllwarpSetBackend(A, backend));
  PetscCall(MatSeqAIJSetPreallocation(A, 1, NULL));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y); /* not assembled */
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr != PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult on an unassembled matrix did not fail");
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscOptionsSetValue(NULL, "-bad_mat_ellwarp_tune", "block_size=48"));
  PetscCall(MatSetOptionsPrefix(A, "bad_"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_tune block_size=48: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  PetscCall(PetscOptionsSetValue(NULL, "-bad_mat_ellwarp_tune", "sort_window=100"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_tune sort_window=100: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  /* a key that does not exist (a misspelt one) and a key without a value: an error, never ignored */
  PetscCall(PetscOptionsSetValue(NULL, "-bad_mat_ellwarp_tune", "sort_windw=64"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_WRONG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_tune sort_windw=64: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_WRONG);
  PetscCall(PetscOptionsSetValue(NULL, "-bad_mat_ellwarp_tune", "long_row"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_WRONG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_ellwarp_tune long_row: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_WRONG);
  PetscCall(PetscOptionsClearValue(NULL, "-bad_mat_ellwarp_tune"));
  {
    Vec wrong;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, 7, &wrong));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(A, wrong, y);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr != PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult with a wrong-size vector did not fail");
    PetscCall(VecDestroy(&wrong));
  }
  PetscCall(MatMult(A, x, y)); /* all-zero 5x5 works */
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  nchecks += 6;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom r;
  Mat         A;
  char        b[16] = "host", k[16] = "auto";
  PetscInt    nfail = 0;
  PetscBool   blocked = PETSC_FALSE, dict = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-backend", b, sizeof(b), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kernel", k, sizeof(k), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threshold", &threshold, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sort_window", &sortwindow, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-block_size", &blocksize, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-peer", peertype, sizeof(peertype), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-diag", &diag, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_madd", &skipmadd, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-diag_variant", &diagvar, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-blocked", &blocked, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dict", &dict, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_ellwarp_block_lanes", &expectlanes, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_blocked", &viewblocked, NULL));
  backend = !strcmp(b, "cuda") ? MAT_ELLWARP_BACKEND_CUDA : MAT_ELLWARP_BACKEND_HOST;
  kernel  = !strcmp(k, "k1") ? MAT_ELLWARP_KERNEL_K1 : (!strcmp(k, "k2") ? MAT_ELLWARP_KERNEL_K2 : MAT_ELLWARP_KERNEL_AUTO);
  if (sortwindow) PetscCall(TestTuneAppend(NULL, "sort_window=64"));
  if (blocksize) {
    char s[32];
    PetscCall(PetscSNPrintf(s, sizeof(s), "block_size=%" PetscInt_FMT, blocksize));
    PetscCall(TestTuneAppend(NULL, s));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(r, 42));
  PetscCall(PetscRandomSeed(r));

  if (dict) { /* the dictionary column mode's suite: the mode is off by default (measured slower), so on unless the test sets it */
    char      v[8];
    PetscBool set;
    PetscCall(TestTuneGet("compress_dict", v, sizeof(v), &set));
    if (!set) PetscCall(TestTuneAppend(NULL, "compress_dict=1"));
    PetscCall(CheckDict(r));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "matops: backend %s dictionary mode: %" PetscInt_FMT " checks\n", b, nchecks));
    PetscCall(PetscRandomDestroy(&r));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (blocked) { /* the blocked layout's suite (-mat_ellwarp_block on, auto or off) */
    char      mode[8] = "auto";
    PetscBool set;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_ellwarp_block", mode, sizeof(mode), &set));
    PetscCall(CheckBlocked(r, !strcmp(mode, "on") ? 1 : (!strcmp(mode, "off") ? 2 : 0)));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "matops: backend %s blocked (-mat_ellwarp_block %s): %" PetscInt_FMT " checks, %" PetscInt_FMT " scalar layouts built as value stores\n", b, mode, nchecks, nstores));
    PetscCall(PetscRandomDestroy(&r));
    PetscCall(PetscFinalize());
    return 0;
  }
  struct {
    const char *name;
    PetscInt    m, n, maxlen;
  } rnd[] = {
    {"random-square",    1000, 1000, 60 },
    {"random-wide",      300,  1700, 90 },
    {"random-tall",      1300, 200,  25 },
    {"random-few-rows",  5,    40,   40 },
    {"random-33",        33,   33,   33 },
    {"random-1x1",       1,    1,    1  }
  };
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(rnd); i++) {
    PetscCall(RandomMatrix(rnd[i].m, rnd[i].n, rnd[i].maxlen, r, &A));
    PetscCall(CheckAll(A, r, rnd[i].name));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(TetMatrix(9, 1, PETSC_FALSE, r, &A));
  PetscCall(CheckAll(A, r, "P1-tets-scalar"));
  PetscCall(MatDestroy(&A));
  PetscCall(TetMatrix(5, 3, PETSC_FALSE, r, &A));
  PetscCall(CheckAll(A, r, "P1-tets-elasticity"));
  PetscCall(MatDestroy(&A));
  expectbias = PETSC_TRUE;
  { /* stencils far from the diagonal: the biased 16-bit column mode */
    const PetscInt dims[3] = {64, 270, 5};
    const PetscInt off[13] = {-90017, -47011, -40009, -2003, -1001, 0, 1001, 2003, 33013, 40009, 47017, 65011, 90019};
    PetscInt       nn, *ai, *aj;
    PetscCall(StencilLatticeCSR(3, dims, 1, &nn, &ai, &aj));
    PetscCall(StencilMat(nn, nn, ai, aj, r, &A));
    PetscCall(PetscFree(ai));
    PetscCall(PetscFree(aj));
    PetscCall(CheckAll(A, r, "lattice-64x270x5"));
    PetscCall(MatDestroy(&A));
    PetscCall(StencilOffsetsCSR(3000, 100000, 13, off, PETSC_TRUE, &ai, &aj));
    PetscCall(StencilMat(3000, 100000, ai, aj, r, &A));
    PetscCall(PetscFree(ai));
    PetscCall(PetscFree(aj));
    PetscCall(CheckAll(A, r, "stencil-mixed-3000x100000"));
    PetscCall(MatDestroy(&A));
  }
  expectbias = PETSC_FALSE;
  PetscCall(LongRowMatrix(3000, &A));
  PetscCall(CheckAll(A, r, "one-long-row"));
  PetscCall(MatDestroy(&A));
  PetscCall(EmptyMatrix(70, 70, &A));
  PetscCall(CheckAll(A, r, "all-zero"));
  PetscCall(MatDestroy(&A));
  PetscCall(EmptyMatrix(0, 0, &A));
  PetscCall(CheckAll(A, r, "0x0"));
  PetscCall(MatDestroy(&A));
  PetscCall(CheckPaddingIsInert(r));
  PetscCall(CheckErrors());

  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matops: backend %s kernel %s: %" PetscInt_FMT " checks\n", b, k, nchecks));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " passed, %" PetscInt_FMT " failed\n", nchecks, nfail));
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(PetscFinalize());
  return 0;
}
