static const char help[] = "MATSEQELLWARP with more padded slots than a 32-bit index holds (issue 3, bad input: > 2^31 padded entries).\n"
                           "A banded matrix whose rows alternate between two lengths, sorted in windows of 32 rows, so every slice is\n"
                           "padded to the longer length: slots = rows x longer length.  Products are checked against the exact\n"
                           "row sums of the formula that made the values (no second copy of the matrix is held: at -rows 55000000\n"
                           "the CSR alone is 21 GB).\n"
                           "Options: -rows m (100000)  -short 24 -long 40 (row lengths)  -require_big (fail unless slots > 2^31 - 1)\n";

/* The slot offsets (sliceptr, colbase, the kernels' slot arithmetic) are 64-bit by design (PetscCount); the
   CSR side stays 32-bit (PetscInt), as SeqAIJ's.  The only way past 2^31 slots with 32-bit PetscInt is padding,
   which is what this test builds.  The GPU variant needs ~50 GB of device and ~25 GB of host memory. */

/* ellwarp_add_test(huge.small -rows 100000)
   ellwarp_add_test(huge.small_k2 -rows 20000 -short 200 -long 330 -mat_ellwarp_kernel k2 -mat_ellwarp_tune sort_window=128)
   ellwarp_add_test(huge.gpu_small -rows 100000 GPU)
   ellwarp_add_test(huge.gpu -rows 55000000 -require_big GPU TIMEOUT 900 LABELS huge)
   The host backend at that size needs ~75 GB of host memory: labelled GPU too, so it runs only on the GPU host.
   ellwarp_add_test(huge.host_big -rows 55000000 -require_big -mat_ellwarp_backend host GPU TIMEOUT 900 LABELS huge) */

#include <petscellwarp.h>
#include "tunetestutil.h"

/* row i's columns: a band of len(i) entries around i, shifted to stay inside [0, m) */
static inline PetscInt RowLen(PetscInt i, PetscInt m, PetscInt ls, PetscInt ll)
{
  return PetscMin((i & 1) ? ls : ll, m);
}
static inline PetscInt RowStart(PetscInt i, PetscInt m, PetscInt len)
{
  PetscInt c0 = i - len / 2;
  if (c0 < 0) c0 = 0;
  if (c0 + len > m) c0 = m - len;
  return c0;
}
/* values and x chosen so every product is exact in double: small integers */
static inline PetscScalar Val(PetscInt i, PetscInt j)
{
  return (PetscScalar)(1 + ((i + 2 * j) % 5));
}
static inline PetscScalar Xv(PetscInt j)
{
  return (PetscScalar)(1 + (j % 3));
}

int main(int argc, char **argv)
{
  PetscInt       m = 100000, ls = 24, ll = 40, *ai, *aj;
  PetscScalar   *aa, *xa, *ya, *da;
  PetscCount     nnz = 0;
  PetscBool      requirebig = PETSC_FALSE, set;
  Mat            A;
  Vec            x, y, z, d;
  MatEllwarpInfo info;
  PetscInt       bad = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rows", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-short", &ls, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-long", &ll, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-require_big", &requirebig, NULL));
  PetscCheck(m > 0 && ls > 0 && ll >= ls, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "need -rows > 0 and 0 < -short <= -long");
  /* padding comes from sorting in windows of one slice: each window holds both lengths */
  {
    char w[32];
    PetscCall(TestTuneGet("sort_window", w, sizeof(w), &set));
    if (!set) PetscCall(TestTuneAppend(NULL, "sort_window=32"));
  }
  /* and one row per lane (K1): with K2 a 32-row window spans several slices, which the sort would fill evenly */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_ellwarp_kernel", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_kernel", "k1"));

  for (PetscInt i = 0; i < m; i++) nnz += RowLen(i, m, ls, ll);
  PetscCheck(nnz <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscCount_FMT " nonzeros exceed SeqAIJ's 32-bit PetscInt: lower -rows", nnz);
  PetscCall(PetscMalloc1(m + 1, &ai));
  PetscCall(PetscMalloc1(nnz, &aj));
  PetscCall(PetscMalloc1(nnz, &aa));
  ai[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt len = RowLen(i, m, ls, ll), c0 = RowStart(i, m, len);
    for (PetscInt k = 0; k < len; k++) {
      aj[ai[i] + k] = c0 + k;
      aa[ai[i] + k] = Val(i, c0 + k);
    }
    ai[i + 1] = ai[i] + len;
  }
  /* the arrays become the matrix's own (no copy); converted in place */
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &A));
  PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INPLACE_MATRIX, &A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt j = 0; j < m; j++) xa[j] = Xv(j);
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecSet(z, 1.0));

  PetscCall(MatMult(A, x, y));              /* analysis, upload, product */
  PetscCall(MatMultAdd(A, x, z, z));        /* z = 1 + A x, in place */
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(MatEllwarpGetInfo(A, &info));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "rows %" PetscInt_FMT ", nnz %" PetscCount_FMT ", slots %" PetscCount_FMT " (%s 2^31 - 1), slices %" PetscInt_FMT ", K2 slices %" PetscInt_FMT ", 16-bit slices %" PetscInt_FMT ", sort window %" PetscInt_FMT ", backend %s\n", info.nrows, info.nnz, info.nslots, info.nslots > PETSC_INT32_MAX ? ">" : "<=", info.nslices, info.nsplit, info.n16, info.sortwindow, MatEllwarpBackends[info.backend]));
  PetscCheck(!requirebig || info.nslots > PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-require_big: the layout has only %" PetscCount_FMT " slots", info.nslots);
  PetscCheck(info.nslots > info.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the layout should be padded (slots %" PetscCount_FMT ", nnz %" PetscCount_FMT ")", info.nslots, info.nnz);

  /* exact checks: every value is a small integer, every sum below 2^53 */
  {
    const PetscScalar *yr, *zr, *dr;
    PetscCall(VecGetArrayRead(y, &yr));
    PetscCall(VecGetArrayRead(z, &zr));
    PetscCall(VecGetArrayRead(d, &dr));
    for (PetscInt i = 0; i < m; i++) {
      const PetscInt len = RowLen(i, m, ls, ll), c0 = RowStart(i, m, len);
      PetscScalar    s   = 0, dg = 0;
      for (PetscInt j = c0; j < c0 + len; j++) s += Val(i, j) * Xv(j);
      if (i >= c0 && i < c0 + len) dg = Val(i, i);
      if (yr[i] != s || zr[i] != s + 1 || dr[i] != dg) {
        if (bad < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "row %" PetscInt_FMT ": y %g (want %g), z %g (want %g), diag %g (want %g)\n", i, (double)PetscRealPart(yr[i]), (double)PetscRealPart(s), (double)PetscRealPart(zr[i]), (double)PetscRealPart(s + 1), (double)PetscRealPart(dr[i]), (double)PetscRealPart(dg)));
        bad++;
      }
    }
    PetscCall(VecRestoreArrayRead(y, &yr));
    PetscCall(VecRestoreArrayRead(z, &zr));
    PetscCall(VecRestoreArrayRead(d, &dr));
  }
  /* a value-only refresh through the whole layout: scale, then the product again */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatMult(A, x, z));
  PetscCall(VecAXPY(z, -2.0, y));
  {
    PetscReal nrm;
    PetscCall(VecNorm(z, NORM_INFINITY, &nrm));
    if (nrm != 0) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "after MatScale(2): |2 A x - (2A) x|_inf = %g\n", (double)nrm));
      bad++;
    }
  }
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " wrong rows", bad);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatMult, MatMultAdd, MatGetDiagonal, MatScale: exact on every row\n"));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscCall(PetscFinalize());
  return 0;
}
