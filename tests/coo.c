/* COO assembly into MATSEQELLWARP against MATSEQAIJ: element matrices of P1 tetrahedra (many duplicates),
   entries with negative indices (ignored), INSERT and ADD, repeated value refreshes without a new
   analysis, a second preallocation with another pattern, bitwise reproducibility, bad input.

   ellwarp_add_test(coo.host -mat_ellwarp_backend host)
   ellwarp_add_test(coo.host_drop -mat_ellwarp_backend host -mat_ellwarp_tune analysis_drop_host=1)
   ellwarp_add_test(coo.cuda GPU)
   ellwarp_add_test(coo.cuda_device_values -device_values GPU)
   ellwarp_add_test(coo.host_variant -mat_ellwarp_backend host -mat_ellwarp_tune coo_unroll=8)
   ellwarp_add_test(coo.cuda_variant -device_values -mat_ellwarp_tune coo_unroll=8,coo_block_size=512 GPU)
   ellwarp_add_test(coo.cuda_long -device_values -mat_ellwarp_tune long_row=10 GPU)
   ellwarp_add_test(coo.cuda_slotmap -device_values -mat_ellwarp_tune gather=map GPU)
   ellwarp_add_test(coo.host_long -mat_ellwarp_backend host -mat_ellwarp_tune long_row=10)
*/
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpkuhn.h>

static PetscInt nchecks;

static PetscErrorCode Compare(Mat A, Mat B, const char *what)
{
  Mat       C;
  PetscReal nrm, na;
  Vec       x, ya, yb;

  PetscFunctionBegin;
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
  PetscCheck(nrm <= 1e-13 * na, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: values differ from SeqAIJ (%g)", what, (double)(nrm / na));
  PetscCall(MatDestroy(&C));
  PetscCall(MatCreateVecs(B, &x, &yb));
  PetscCall(MatCreateVecs(A, NULL, &ya));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(B, x, yb));
  {
    Vec xh;
    PetscCall(MatCreateVecs(A, &xh, NULL));
    PetscCall(VecSet(xh, 1.0));
    PetscCall(MatMult(A, xh, ya));
    PetscCall(VecDestroy(&xh));
  }
  PetscCall(VecAXPY(yb, -1.0, ya)); /* a host vector minus a device one: PETSc copies as needed */
  PetscCall(VecNorm(yb, NORM_INFINITY, &nrm));
  PetscCall(VecNorm(ya, NORM_INFINITY, &na));
  PetscCheck(nrm <= 1e-13 * PetscMax(na, 1.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMult differs from SeqAIJ", what);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  nchecks += 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n values copied into a new CUDA vector, and its device array (VecCUDARestoreArray + VecDestroy when done) */
static PetscErrorCode DeviceCopy(PetscCount n, const PetscScalar *v, Vec *vv, PetscScalar **dv)
{
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)n, vv));
  PetscCall(VecGetArrayWrite(*vv, &a));
  PetscCall(PetscArraycpy(a, v, n));
  PetscCall(VecRestoreArrayWrite(*vv, &a));
  PetscCall(VecCUDAGetArray(*vv, dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern of A as a COO list, row by row in column order (broken: with an ignored entry, negative column,
   inside one row), with values */
static PetscErrorCode RowOrderCOO(Mat A, PetscBool broken, PetscCount *n, PetscInt **ci, PetscInt **cj, PetscScalar **cv)
{
  const PetscInt *ia, *ja;
  PetscInt        m;
  PetscBool       done;
  PetscCount      q = 0;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ failed");
  *n = ia[m] + (broken ? 1 : 0);
  PetscCall(PetscMalloc3(*n, ci, *n, cj, *n, cv));
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt k = ia[r]; k < ia[r + 1]; k++) {
      if (broken && r == m / 2 && k == ia[r] + 1) {
        (*ci)[q]   = r;
        (*cj)[q]   = -7;
        (*cv)[q++] = 1e30;
      }
      (*ci)[q]   = r;
      (*cj)[q]   = ja[k];
      (*cv)[q++] = 0.5 + (PetscScalar)((r * 31 + ja[k] * 7) % 13) / 3.0;
    }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO lists of the element matrices of an N^3 Kuhn cube (P1 tets); some entries get a negative row or
   column, which PETSc ignores */
static PetscErrorCode TetCOO(PetscInt N, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  PetscFunctionBegin;
  PetscCall(EllwarpKuhnCOO(N, n, ci, cj));
  for (PetscCount k = 0; k < *n; k++) {
    if (k % 97 == 13) (*ci)[k] = -1;
    if (k % 89 == 7) (*cj)[k] = -5;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A, B;
  PetscInt       N = 6, nv, *ci, *cj;
  PetscCount     n;
  PetscScalar   *v;
  PetscBool      devvals = PETSC_FALSE;
  MatEllwarpInfo info;
  char           backend[16] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device_values", &devvals, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_ellwarp_backend", backend, sizeof(backend), NULL));
  nv = (N + 1) * (N + 1) * (N + 1);
  PetscCall(TetCOO(N, &n, &ci, &cj));
  PetscCall(PetscMalloc1(n, &v));
  for (PetscCount k = 0; k < n; k++) v[k] = 1.0 + (PetscScalar)((k * 7919) % 1000) / 997.0;

  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 0, NULL, &A));
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, nv, nv, nv, nv));
  PetscCall(MatSetType(B, MATSEQELLWARP));
  PetscCall(MatSetFromOptions(B));
  PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
  {
    PetscInt *ci2, *cj2; /* MatSetPreallocationCOO may modify its index arrays */
    PetscCount n2;
    PetscCall(TetCOO(N, &n2, &ci2, &cj2));
    PetscCall(MatSetPreallocationCOO(B, n2, ci2, cj2));
    PetscCall(PetscFree2(ci2, cj2));
  }

  /* the values, from host or device memory */
  {
    Vec          vv = NULL;
    PetscScalar *pv = v;
    if (devvals) PetscCall(DeviceCopy(n, v, &vv, &pv));
    for (int round = 0; round < 3; round++) {
      InsertMode mode = round == 1 ? ADD_VALUES : INSERT_VALUES;
      PetscCall(MatSetValuesCOO(A, v, mode));
      PetscCall(MatSetValuesCOO(B, pv, mode));
      PetscCall(Compare(A, B, mode == ADD_VALUES ? "MatSetValuesCOO(ADD)" : "MatSetValuesCOO(INSERT)"));
    }
    PetscCall(MatEllwarpGetInfo(B, &info));
    PetscCheck(info.nanalyses == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO refreshes re-analysed the pattern (%" PetscInt_FMT " analyses)", info.nanalyses);
    /* bitwise: the same values twice give the same matrix */
    {
      Mat                C1, C2;
      const PetscScalar *a1, *a2;
      PetscInt           nz;
      PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C1));
      PetscCall(MatSetValuesCOO(B, pv, INSERT_VALUES));
      PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C2));
      PetscCall(MatSeqAIJGetArrayRead(C1, &a1));
      PetscCall(MatSeqAIJGetArrayRead(C2, &a2));
      PetscCall(MatSeqAIJGetMaxRowNonzeros(C1, &nz));
      {
        MatInfo mi;
        PetscCall(MatGetInfo(C1, MAT_LOCAL, &mi));
        for (PetscInt k = 0; k < (PetscInt)mi.nz_used; k++) PetscCheck(a1[k] == a2[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO assembly not bitwise reproducible at entry %" PetscInt_FMT, k);
      }
      PetscCall(MatSeqAIJRestoreArrayRead(C1, &a1));
      PetscCall(MatSeqAIJRestoreArrayRead(C2, &a2));
      /* bitwise equal to SeqAIJ too: every backend and plan (slot or CSR order) sums a nonzero's entries in
         SeqAIJ's order, from 0, as MatSetValuesCOO_SeqAIJ does (A holds the same INSERT_VALUES) */
      for (PetscInt i = 0; i < nv; i++) {
        PetscInt           na, nc;
        const PetscInt    *ja, *jc;
        const PetscScalar *va, *vc;
        PetscCall(MatGetRow(A, i, &na, &ja, &va));
        PetscCall(MatGetRow(C1, i, &nc, &jc, &vc));
        PetscCheck(na == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT ": %" PetscInt_FMT " entries, SeqAIJ has %" PetscInt_FMT, i, nc, na);
        for (PetscInt k = 0; k < na; k++) PetscCheck(ja[k] == jc[k] && va[k] == vc[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " entry %" PetscInt_FMT ": not bitwise SeqAIJ's COO sum", i, k);
        PetscCall(MatRestoreRow(A, i, &na, &ja, &va));
        PetscCall(MatRestoreRow(C1, i, &nc, &jc, &vc));
      }
      PetscCall(MatDestroy(&C1));
      PetscCall(MatDestroy(&C2));
      nchecks++;
    }
    if (devvals) {
      PetscCall(VecCUDARestoreArray(vv, &pv));
      PetscCall(VecDestroy(&vv));
    }
  }

  /* host-side changes after COO assembly: MatScale on the layout, then host MatSetValues of an existing
     entry, then COO again: each step right */
  PetscCall(MatScale(A, 0.5));
  PetscCall(MatScale(B, 0.5));
  PetscCall(Compare(A, B, "MatScale after COO"));
  {
    PetscInt    r = 3, c = 3;
    PetscScalar one = 1.0;
    PetscCall(MatSetValues(A, 1, &r, 1, &c, &one, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &r, 1, &c, &one, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(Compare(A, B, "MatSetValues after COO"));
  }
  PetscCall(MatSetValuesCOO(A, v, ADD_VALUES));
  PetscCall(MatSetValuesCOO(B, v, ADD_VALUES));
  PetscCall(Compare(A, B, "MatSetValuesCOO(ADD) from host memory after host changes"));

  /* a second preallocation with another pattern (a tridiagonal plus a dense corner) */
  {
    PetscInt   *i2, *j2, *i3, *j3;
    PetscCount  n2 = 3 * nv + 4;
    PetscScalar *v2;
    PetscCall(PetscMalloc5(n2, &i2, n2, &j2, n2, &i3, n2, &j3, n2, &v2));
    for (PetscInt k = 0; k < nv; k++)
      for (int d = -1; d <= 1; d++) {
        PetscInt q = 3 * k + d + 1;
        i2[q]      = k;
        j2[q]      = PetscMin(PetscMax(k + d, 0), nv - 1);
        v2[q]      = 1.0 + d;
      }
    for (int q = 0; q < 4; q++) {
      i2[3 * nv + q] = q % 2;
      j2[3 * nv + q] = nv - 1 - q / 2;
      v2[3 * nv + q] = 0.25;
    }
    PetscCall(PetscArraycpy(i3, i2, n2));
    PetscCall(PetscArraycpy(j3, j2, n2));
    PetscCall(MatSetPreallocationCOO(A, n2, i2, j2));
    PetscCall(MatSetPreallocationCOO(B, n2, i3, j3));
    PetscCall(MatSetValuesCOO(A, v2, INSERT_VALUES));
    PetscCall(MatSetValuesCOO(B, v2, INSERT_VALUES));
    PetscCall(Compare(A, B, "second MatSetPreallocationCOO (new pattern)"));
    PetscCall(MatEllwarpGetInfo(B, &info));
    PetscCheck(info.nanalyses == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "new COO pattern: expected a second analysis, got %" PetscInt_FMT, info.nanalyses);
    /* bad input: a row that does not exist */
    {
      PetscErrorCode ierr;
      i3[0] = nv + 5;
      j3[0] = 0;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MatSetPreallocationCOO(B, 1, i3, j3);
      PetscCall(PetscPopErrorHandler());
      PetscCheck(ierr != PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a COO row out of range was accepted");
      nchecks++;
    }
    PetscCall(PetscFree5(i2, j2, i3, j3, v2));
  }
  /* one COO entry per nonzero (the plan without offsets), in scrambled order, one negative index; the first
     values with ADD_VALUES (the layout then starts from the host's zeros), then INSERT (zeroed layout);
     the Frobenius norm sums every slot: padding must stay zero */
  for (int first = 0; first < 2; first++) {
    PetscInt    *i2, *j2, *i3, *j3;
    PetscCount   n2 = 3 * nv - 2 + 1;
    PetscScalar *v2;
    PetscReal    na, nb;
    PetscCall(PetscMalloc5(n2, &i2, n2, &j2, n2, &i3, n2, &j3, n2, &v2));
    for (PetscCount q = 0; q < n2 - 1; q++) {
      PetscInt t = (PetscInt)((q * 7 + 3) % (n2 - 1)), k = (t + 1) / 3, d = (t + 1) % 3 - 1; /* a permutation of the tridiagonal */
      i2[q] = k;
      j2[q] = k + d;
      v2[q] = 1.0 + (PetscScalar)(q % 11) / 5.0;
    }
    i2[n2 - 1] = -1;
    j2[n2 - 1] = 0;
    v2[n2 - 1] = 1e30;
    PetscCall(PetscArraycpy(i3, i2, n2));
    PetscCall(PetscArraycpy(j3, j2, n2));
    PetscCall(MatSetPreallocationCOO(A, n2, i2, j2));
    PetscCall(MatSetPreallocationCOO(B, n2, i3, j3));
    for (int round = 0; round < 3; round++) {
      InsertMode mode = (round == 0) == (first == 0) ? ADD_VALUES : INSERT_VALUES;
      PetscCall(MatSetValuesCOO(A, v2, mode));
      PetscCall(MatSetValuesCOO(B, v2, mode));
      PetscCall(Compare(A, B, "one COO entry per nonzero"));
      PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
      PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
      PetscCheck(PetscAbsReal(na - nb) <= 1e-13 * na, PETSC_COMM_SELF, PETSC_ERR_PLIB, "one COO entry per nonzero: Frobenius norm %g vs %g (padding not zero?)", (double)nb, (double)na);
      nchecks++;
    }
    PetscCall(PetscFree5(i2, j2, i3, j3, v2));
  }
  /* one COO entry per nonzero given row by row in column order (what a CSR walk produces: the device takes the
     row-form plan), INSERT and ADD; then the same list with an ignored entry (negative column) inside a row,
     which breaks the row runs (the device falls back to a COO index per slot) */
  for (int broken = 0; broken < 2; broken++) {
    Mat          A2, B2;
    PetscInt    *i2, *j2;
    PetscCount   n2;
    PetscScalar *v2;
    PetscCall(RowOrderCOO(A, (PetscBool)broken, &n2, &i2, &j2, &v2));
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 0, NULL, &A2));
    PetscCall(MatCreate(PETSC_COMM_SELF, &B2));
    PetscCall(MatSetSizes(B2, nv, nv, nv, nv));
    PetscCall(MatSetType(B2, MATSEQELLWARP));
    PetscCall(MatSetFromOptions(B2));
    PetscCall(MatSetPreallocationCOO(A2, n2, i2, j2));
    PetscCall(PetscFree3(i2, j2, v2)); /* MatSetPreallocationCOO may have changed the indices */
    PetscCall(RowOrderCOO(A, (PetscBool)broken, &n2, &i2, &j2, &v2));
    PetscCall(MatSetPreallocationCOO(B2, n2, i2, j2));
    {
      Vec          vv = NULL;
      PetscScalar *pv = v2;
      if (devvals) PetscCall(DeviceCopy(n2, v2, &vv, &pv));
      for (int round = 0; round < 4; round++) {
        InsertMode mode = round % 2 ? ADD_VALUES : INSERT_VALUES;
        PetscCall(MatSetValuesCOO(A2, v2, mode));
        PetscCall(MatSetValuesCOO(B2, pv, mode));
        PetscCall(Compare(A2, B2, broken ? "row-ordered COO with an ignored entry" : "row-ordered COO"));
      }
      {
        PetscReal na, nb;
        PetscCall(MatNorm(A2, NORM_FROBENIUS, &na));
        PetscCall(MatNorm(B2, NORM_FROBENIUS, &nb));
        PetscCheck(PetscAbsReal(na - nb) <= 1e-13 * na, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row-ordered COO: Frobenius norm %g vs %g (padding not zero?)", (double)nb, (double)na);
        nchecks++;
      }
      if (devvals) {
        PetscCall(VecCUDARestoreArray(vv, &pv));
        PetscCall(VecDestroy(&vv));
      }
    }
    PetscCall(PetscFree3(i2, j2, v2));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B2));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " passed, 0 failed\n", nchecks));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscFree(v));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
