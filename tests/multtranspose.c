/* MatMultTranspose(Add) against an explicit loop over the CSR arrays (not against another PETSc type),
   with the output vector reused from a previous product, as Krylov methods do.  -peer <type> runs the
   same checks on another matrix type (e.g. seqaijcusparse, which in PETSc 3.26.1 fails the reused-output
   case on an H200) for comparison.

   ellwarp_add_test(multtranspose.host -mat_ellwarp_backend host)
   ellwarp_add_test(multtranspose.cuda GPU)
   ellwarp_add_test(multtranspose.host_square -mat_ellwarp_backend host -m 300 -n 300)
   ellwarp_add_test(multtranspose.cuda_square -m 300 -n 300 GPU)
   ellwarp_add_test(multtranspose.host_shift -mat_ellwarp_backend host -m 300 -n 300 -shift_first)
   ellwarp_add_test(multtranspose.host_drop -mat_ellwarp_backend host -mat_ellwarp_tune analysis_drop_host=1)
   ellwarp_add_test(multtranspose.host_shift_drop -mat_ellwarp_backend host -m 300 -n 300 -shift_first -mat_ellwarp_tune analysis_drop_host=1)
   ellwarp_add_test(multtranspose.cuda_shift -m 300 -n 300 -shift_first GPU)
*/
#include <petscellwarp.h>

static PetscErrorCode Check(Vec v, const PetscScalar *ref, PetscInt n, const char *what, PetscInt *nfail)
{
  const PetscScalar *a;
  PetscReal          err = 0, scale = 0;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt i = 0; i < n; i++) {
    err   = PetscMax(err, PetscAbsScalar(a[i] - ref[i]));
    scale = PetscMax(scale, PetscAbsScalar(ref[i]));
  }
  PetscCall(VecRestoreArrayRead(v, &a));
  if (err > 1e-13 * scale) {
    (*nfail)++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: relative error %g\n", what, (double)(err / scale)));
  } else PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok   %s\n", what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat                A, B;
  Vec                x, y, z, t;
  PetscInt           m = 300, n = 200, nfail = 0, npass, mij;
  PetscRandom        r;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa, *xa, *za, *ya;
  PetscScalar       *ref, *ref2;
  char               peer[64] = "";
  PetscBool          done, shiftfirst = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-peer", peer, sizeof(peer), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-shift_first", &shiftfirst, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscRandomSetFromOptions(r));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 12, NULL, &A));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = 0; k < 1 + i % 11; k++) {
      PetscScalar v;
      PetscCall(PetscRandomGetValue(r, &v));
      PetscCall(MatSetValue(A, i, (i * 7 + k * 13) % n, v, ADD_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, peer[0] ? peer : MATSEQELLWARP, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(B, &z, &x)); /* x: length m (input of the transpose), z: length n */
  PetscCall(VecDuplicate(z, &t));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecSetRandom(x, r));
  PetscCall(VecSetRandom(z, r));
  PetscCall(VecSetRandom(t, r));

  /* reference: t = A^T x, t2 = z + A^T x, from the CSR arrays */
  PetscCall(PetscCalloc2(n, &ref, n, &ref2));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mij, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(z, &za));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) ref[aj[k]] += aa[k] * xa[i];
  for (PetscInt j = 0; j < n; j++) ref2[j] = za[j] + ref[j];
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(z, &za));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mij, &ai, &aj, &done));

  PetscCall(MatMultTranspose(B, x, t));
  PetscCall(Check(t, ref, n, "MatMultTranspose", &nfail));
  PetscCall(MatMultTransposeAdd(B, x, z, t)); /* output reused */
  PetscCall(Check(t, ref2, n, "MatMultTransposeAdd (reused output)", &nfail));
  PetscCall(VecCopy(z, t));
  PetscCall(MatMultTransposeAdd(B, x, t, t)); /* in place */
  PetscCall(Check(t, ref2, n, "MatMultTransposeAdd (in place)", &nfail));
  {
    Vec t2;
    PetscCall(VecDuplicate(z, &t2));
    PetscCall(MatMultTransposeAdd(B, x, z, t2)); /* fresh output */
    PetscCall(Check(t2, ref2, n, "MatMultTransposeAdd (fresh output)", &nfail));
    PetscCall(VecDestroy(&t2));
  }
  { /* inputs written on the host (VecCopy from host vectors), the output reused: as in a PETSc code
       that assembles its right-hand sides on the CPU */
    Vec xh, zh, x2, z2;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &xh));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &zh));
    PetscCall(VecCopy(x, xh));
    PetscCall(VecCopy(z, zh));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(VecDuplicate(z, &z2));
    PetscCall(VecCopy(xh, x2));
    PetscCall(VecCopy(zh, z2));
    PetscCall(MatMultTranspose(B, x2, t));
    PetscCall(Check(t, ref, n, "MatMultTranspose (host-written input)", &nfail));
    PetscCall(MatMultTransposeAdd(B, x2, z2, t));
    PetscCall(Check(t, ref2, n, "MatMultTransposeAdd (host-written inputs, reused output)", &nfail));
    PetscCall(VecDestroy(&xh));
    PetscCall(VecDestroy(&zh));
    PetscCall(VecDestroy(&x2));
    PetscCall(VecDestroy(&z2));
  }
  { /* a fresh output whose first device use is the product; inputs duplicated afterwards (as matops does) */
    Vec tf, zf, xh;
    PetscCall(VecDuplicate(z, &tf));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &xh));
    PetscCall(VecCopy(z, xh));
    PetscCall(MatMultTranspose(B, x, tf));
    PetscCall(Check(tf, ref, n, "MatMultTranspose (fresh output)", &nfail));
    PetscCall(VecDuplicate(z, &zf));
    PetscCall(VecCopy(xh, zf));
    PetscCall(MatMultTransposeAdd(B, x, zf, tf));
    PetscCall(Check(tf, ref2, n, "MatMultTransposeAdd (fresh output, then reused; z duplicated late)", &nfail));
    PetscCall(VecDestroy(&tf));
    PetscCall(VecDestroy(&zf));
    PetscCall(VecDestroy(&xh));
  }
  if (m == n) { /* after MatZeroRows on rows without a stored diagonal: the pattern changes (host path,
                   new analysis), then products and transposed products of a duplicate */
    Mat                Az, Bz, Bd;
    PetscInt           rows[] = {3, 10, 17, 136 % m}, nr = 4;
    PetscScalar       *r1, *r2;
    const PetscScalar *za2;
    Vec                tz, zz, xz;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Az));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &Bd));
    if (shiftfirst) { /* every diagonal stored: MatZeroRows then runs on the layout (device path) */
      PetscCall(MatShift(Az, 1.5));
      PetscCall(MatShift(Bd, 1.5));
    }
    {
      Vec xa0, ba0, xb0, bb0; /* with the x/b fix-up, on host and device vectors */
      PetscCall(MatCreateVecs(Az, &xa0, &ba0));
      PetscCall(MatCreateVecs(Bd, &xb0, &bb0));
      PetscCall(VecSetRandom(xa0, r));
      PetscCall(VecSetRandom(ba0, r));
      PetscCall(VecCopy(xa0, xb0));
      PetscCall(VecCopy(ba0, bb0));
      PetscCall(MatZeroRows(Az, nr, rows, 2.0, xa0, ba0));
      PetscCall(MatDuplicate(Bd, MAT_COPY_VALUES, &Bz)); /* matops zeroes rows of a duplicate */
      PetscCall(MatZeroRows(Bz, nr, rows, 2.0, xb0, bb0));
      PetscCall(VecDestroy(&xa0));
      PetscCall(VecDestroy(&ba0));
      PetscCall(VecDestroy(&xb0));
      PetscCall(VecDestroy(&bb0));
    }
    PetscCall(MatCreateVecs(Bz, &zz, &xz));
    PetscCall(VecDuplicate(zz, &tz));
    PetscCall(VecSetRandom(xz, r));
    PetscCall(VecSetRandom(zz, r));
    PetscCall(PetscCalloc2(n, &r1, n, &r2));
    PetscCall(MatGetRowIJ(Az, 0, PETSC_FALSE, PETSC_FALSE, &mij, &ai, &aj, &done));
    PetscCall(MatSeqAIJGetArrayRead(Az, &aa));
    PetscCall(VecGetArrayRead(xz, &xa));
    PetscCall(VecGetArrayRead(zz, &za2));
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) r1[aj[k]] += aa[k] * xa[i];
    for (PetscInt j = 0; j < n; j++) r2[j] = za2[j] + r1[j];
    PetscCall(VecRestoreArrayRead(xz, &xa));
    PetscCall(VecRestoreArrayRead(zz, &za2));
    PetscCall(MatSeqAIJRestoreArrayRead(Az, &aa));
    PetscCall(MatRestoreRowIJ(Az, 0, PETSC_FALSE, PETSC_FALSE, &mij, &ai, &aj, &done));
    PetscCall(MatMult(Bz, zz, tz)); /* a product before the transposed ones, as solvers do */
    PetscCall(MatMultTranspose(Bz, xz, tz));
    PetscCall(Check(tz, r1, n, "MatMultTranspose after MatZeroRows (pattern change)", &nfail));
    PetscCall(MatMultTransposeAdd(Bz, xz, zz, tz));
    PetscCall(Check(tz, r2, n, "MatMultTransposeAdd after MatZeroRows (pattern change)", &nfail));
    PetscCall(PetscFree2(r1, r2));
    PetscCall(VecDestroy(&tz));
    PetscCall(VecDestroy(&zz));
    PetscCall(VecDestroy(&xz));
    PetscCall(MatDestroy(&Az));
    PetscCall(MatDestroy(&Bd));
    PetscCall(MatDestroy(&Bz));
  }
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(y, &ya));
  npass = (m == n ? 10 : 8) - nfail;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " passed, %" PetscInt_FMT " failed\n", npass, nfail));
  PetscCall(PetscFree2(ref, ref2));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&t));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
