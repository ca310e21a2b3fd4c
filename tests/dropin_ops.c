/* The Mat operations PETSc's preconditioners and solvers reach (PCASM/PCBJACOBI, PCFIELDSPLIT, PCGAMG, PCMG,
   I/O), on MATELLWARP whose values were last set on the device (or the host backend's layout), each against the
   same operation on MATAIJ with the same values.

   Why: MATELLWARP is an AIJ subtype, so these operations are SeqAIJ's/MPIAIJ's, which read and write the host
   arrays.  After MatSetValuesCOO() with device values the host copy is stale; every operation must see the
   current values (and a MAT_REUSE_MATRIX result must not keep old ones).  Each step changes the values (COO
   with another scale) before the operation runs again with MAT_REUSE_MATRIX.

   ellwarp_add_test(dropin_ops.host -mat_ellwarp_backend host)
   ellwarp_add_test(dropin_ops.np2_host NPROCS 2 -mat_ellwarp_backend host)
   ellwarp_add_test(dropin_ops.cuda GPU -device_values)
   ellwarp_add_test(dropin_ops.np2_cuda GPU NPROCS 2 TIMEOUT 120 -device_values)
   ellwarp_add_test(dropin_ops.host_a_aij -mat_ellwarp_backend host -product_aij)
   ellwarp_add_test(dropin_ops.cuda_a_aij GPU -device_values -product_aij)
*/
#include <petscellwarp.h>
#include <petscviewer.h>
#include "mpitestutil.h" /* MpiTestCompareVec */
#include <unistd.h> /* getpid */

static PetscInt nchecks;

/* A (any type) equals B (any type) to rounding */
static PetscErrorCode Same(Mat A, Mat B, const char *what)
{
  Mat       C, D;
  PetscReal nrm, nb;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(C, -1.0, D, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nb));
  PetscCheck(nrm <= 1e-13 * PetscMax(nb, 1.0), PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s: MATELLWARP result differs from MATAIJ's by %g (relative)", what, (double)(nrm / PetscMax(nb, 1.0)));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 2-D 5-point operator with unsymmetric values (so transposes are checked), as COO of the local rows, plus
   an off-process entry per rank; values v = scale * f(i, j) */
typedef struct {
  PetscInt     n, ncoo;
  PetscInt    *ci, *cj;
  PetscScalar *cv;
} Problem;

/* M x against R x for one random x (R: the MATAIJ reference, whose vectors may be of another type) */
static PetscErrorCode SameMult(Mat M, Mat R, const char *what, PetscInt *nchecks)
{
  Vec x, xr, y, yr;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, &x, &y));
  PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCopy(x, xr));
  PetscCall(MatMult(M, x, y));
  PetscCall(MatMult(R, xr, yr));
  PetscCall(MpiTestCompareVec(yr, y, 1e-13, what, nchecks));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemCreate(MPI_Comm comm, PetscInt nx, Mat proto, Problem *p)
{
  PetscInt rs, re, k = 0;

  PetscFunctionBegin;
  p->n = nx * nx;
  PetscCall(MatGetOwnershipRange(proto, &rs, &re));
  PetscCall(PetscMalloc3(5 * (re - rs) + 1, &p->ci, 5 * (re - rs) + 1, &p->cj, 5 * (re - rs) + 1, &p->cv));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt i = r % nx, j = r / nx, nb[5] = {r, i > 0 ? r - 1 : -1, i < nx - 1 ? r + 1 : -1, j > 0 ? r - nx : -1, j < nx - 1 ? r + nx : -1};
    for (PetscInt q = 0; q < 5; q++)
      if (nb[q] >= 0) {
        p->ci[k] = r;
        p->cj[k] = nb[q];
        k++;
      }
  }
  /* an entry of a row another rank owns (the last row of the previous rank, its diagonal) */
  if (rs > 0) {
    p->ci[k] = rs - 1;
    p->cj[k] = rs - 1;
    k++;
  }
  p->ncoo = k;
  (void)comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Values(Problem *p, PetscReal scale)
{
  for (PetscInt k = 0; k < p->ncoo; k++) p->cv[k] = scale * (p->ci[k] == p->cj[k] ? 4.0 + 0.01 * (PetscReal)(p->ci[k] % 7) : -1.0 - 0.1 * (PetscReal)((p->ci[k] + 2 * p->cj[k]) % 5));
}

/* set the same values in both: AIJ through COO from the host, ELLWARP from device memory when asked */
static PetscErrorCode SetValues(Problem *p, PetscReal scale, Mat ref, Mat A, PetscBool device)
{
  PetscFunctionBegin;
  Values(p, scale);
  PetscCall(MatSetValuesCOO(ref, p->cv, INSERT_VALUES));
  if (device) {
#if defined(PETSC_HAVE_CUDA)
    Vec          v;
    PetscScalar *a, *d;

    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, p->ncoo, &v));
    PetscCall(VecGetArrayWrite(v, &a));
    PetscCall(PetscArraycpy(a, p->cv, p->ncoo));
    PetscCall(VecRestoreArrayWrite(v, &a));
    PetscCall(VecCUDAGetArray(v, &d));
    PetscCall(MatSetValuesCOO(A, d, INSERT_VALUES));
    PetscCall(VecCUDARestoreArray(v, &d));
    PetscCall(VecDestroy(&v));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "-device_values needs PETSc with CUDA");
#endif
  } else PetscCall(MatSetValuesCOO(A, p->cv, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* calls of a logged event so far (logging on: PetscLogDefaultBegin()) */
static PetscErrorCode EventCount(const char name[], PetscInt *n)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  *n = 0;
  PetscCall(PetscLogEventGetId(name, &ev)); /* -1: not registered (yet) */
  if (ev < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
  *n = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatAssemblyEnd calls so far (MatAXPY_Basic, PETSc's path for operands of different axpy ops, assembles Y) */
static PetscErrorCode AssemblyCount(PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(EventCount("MatAssemblyEnd", n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a tentative prolongator as PCGAMG makes one (one entry a row, aggregates of 4 consecutive rows), or, with shift,
   a matrix of the same size whose entries are one aggregate further (a pattern that is not a subset of A P's) */
static PetscErrorCode Prolongator(Mat A, MatType type, PetscInt shift, Mat *P)
{
  PetscInt n, nc, rs, re;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, NULL, &n));
  nc = (n + 3) / 4;
  PetscCall(MatGetOwnershipRangeColumn(A, &rs, &re));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, re - rs, PETSC_DECIDE, n, nc));
  PetscCall(MatSetType(*P, type));
  PetscCall(MatSetFromOptions(*P));
  PetscCall(MatSeqAIJSetPreallocation(*P, 1, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, 1, NULL, 1, NULL));
  for (PetscInt r = rs; r < re; r++) PetscCall(MatSetValue(*P, r, (r / 4 + shift) % nc, (shift ? -0.3 : 1.0) + 0.1 * (PetscReal)(r % 3), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscInt    nx = 12, rs, re;
  PetscBool   device = PETSC_FALSE, productaij = PETSC_FALSE;
  Mat         ref, A;
  Problem     p;
  PetscMPIInt size, rank;
  char        file[PETSC_MAX_PATH_LEN];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "MATELLWARP in the Mat operations of PETSc's solvers, against MATAIJ"));
  PetscCall(PetscEllwarpInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "dropin_ops options", NULL);
  PetscCall(PetscOptionsInt("-nx", "grid points a side", NULL, nx, &nx, NULL));
  PetscCall(PetscOptionsBool("-device_values", "set MATELLWARP's values from device memory", NULL, device, &device, NULL));
  PetscCall(PetscOptionsBool("-product_aij", "mixed MatAXPY: the product's operator is an AIJ (AIJCUSPARSE with -device_values) copy of A, P0 ELLWARP", NULL, productaij, &productaij, NULL));
  PetscOptionsEnd();

  PetscCall(MatCreate(comm, &ref));
  PetscCall(MatSetSizes(ref, PETSC_DECIDE, PETSC_DECIDE, nx * nx, nx * nx));
  PetscCall(MatSetType(ref, MATAIJ));
  PetscCall(MatSetUp(ref));
  PetscCall(ProblemCreate(comm, nx, ref, &p));
  { /* MatSetPreallocationCOO() may modify the index arrays it is given: each matrix gets its own copy */
    PetscInt *i2, *j2;
    PetscCall(PetscMalloc2(p.ncoo, &i2, p.ncoo, &j2));
    PetscCall(PetscArraycpy(i2, p.ci, p.ncoo));
    PetscCall(PetscArraycpy(j2, p.cj, p.ncoo));
    PetscCall(MatSetPreallocationCOO(ref, p.ncoo, i2, j2));
    PetscCall(PetscFree2(i2, j2));
  }
  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, nx * nx, nx * nx));
  PetscCall(MatSetType(A, MATELLWARP));
  PetscCall(MatSetFromOptions(A));
  {
    PetscInt *i2, *j2;
    PetscCall(PetscMalloc2(p.ncoo, &i2, p.ncoo, &j2));
    PetscCall(PetscArraycpy(i2, p.ci, p.ncoo));
    PetscCall(PetscArraycpy(j2, p.cj, p.ncoo));
    PetscCall(MatSetPreallocationCOO(A, p.ncoo, i2, j2));
    PetscCall(PetscFree2(i2, j2));
  }
  PetscCall(SetValues(&p, 1.0, ref, A, device));
  PetscCall(Same(A, ref, "COO values"));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));

  { /* MatCreateSubMatrices (PCASM), initial and reuse, and MatIncreaseOverlap */
    IS   is[2], isref[2];
    Mat *sa, *sr;

    PetscCall(ISCreateStride(PETSC_COMM_SELF, (re - rs) / 2 + 1, rs, 1, &is[0]));
    PetscCall(ISDuplicate(is[0], &isref[0]));
    PetscCall(MatIncreaseOverlap(A, 1, is, 1));
    PetscCall(MatIncreaseOverlap(ref, 1, isref, 1));
    PetscCall(ISSort(is[0]));
    PetscCall(ISSort(isref[0]));
    {
      PetscBool eq;
      PetscCall(ISEqual(is[0], isref[0], &eq));
      PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatIncreaseOverlap: MATELLWARP's overlap differs from MATAIJ's");
      nchecks++;
    }
    is[1]    = is[0];
    isref[1] = isref[0];
    PetscCall(MatCreateSubMatrices(A, 1, is, is, MAT_INITIAL_MATRIX, &sa));
    PetscCall(MatCreateSubMatrices(ref, 1, isref, isref, MAT_INITIAL_MATRIX, &sr));
    PetscCall(Same(sa[0], sr[0], "MatCreateSubMatrices (initial)"));
    PetscCall(SetValues(&p, 2.0, ref, A, device));
    PetscCall(MatCreateSubMatrices(A, 1, is, is, MAT_REUSE_MATRIX, &sa));
    PetscCall(MatCreateSubMatrices(ref, 1, isref, isref, MAT_REUSE_MATRIX, &sr));
    PetscCall(Same(sa[0], sr[0], "MatCreateSubMatrices (reuse, new values)"));
    { /* the submatrix's own multiply (PCASM's local solves use it) */
      Vec x, ya, yr;
      PetscCall(MatCreateVecs(sr[0], &x, &yr));
      PetscCall(MatCreateVecs(sa[0], NULL, &ya));
      PetscCall(VecSetRandom(x, NULL));
      PetscCall(MatMult(sr[0], x, yr));
      {
        Vec xa;
        PetscCall(MatCreateVecs(sa[0], &xa, NULL));
        PetscCall(VecCopy(x, xa));
        PetscCall(MatMult(sa[0], xa, ya));
        PetscCall(VecDestroy(&xa));
      }
      PetscCall(MpiTestCompareVec(yr, ya, 1e-13, "MatMult of a submatrix", &nchecks));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&ya));
      PetscCall(VecDestroy(&yr));
    }
    PetscCall(MatDestroySubMatrices(1, &sa));
    PetscCall(MatDestroySubMatrices(1, &sr));
    PetscCall(ISDestroy(&is[0]));
    PetscCall(ISDestroy(&isref[0]));
  }

  { /* MatGetDiagonalBlock (PCBJACOBI) */
    Mat da, dr;
    PetscCall(SetValues(&p, 3.0, ref, A, device));
    PetscCall(MatGetDiagonalBlock(A, &da));
    PetscCall(MatGetDiagonalBlock(ref, &dr));
    PetscCall(Same(da, dr, "MatGetDiagonalBlock"));
  }

  { /* MatCreateSubMatrix (PCFIELDSPLIT): every second row/column, initial and reuse */
    IS  is;
    Mat sa, sr;
    PetscCall(ISCreateStride(comm, (re - rs + 1 - (rs % 2)) / 2, rs + (rs % 2), 2, &is));
    PetscCall(MatCreateSubMatrix(A, is, is, MAT_INITIAL_MATRIX, &sa));
    PetscCall(MatCreateSubMatrix(ref, is, is, MAT_INITIAL_MATRIX, &sr));
    PetscCall(Same(sa, sr, "MatCreateSubMatrix (initial)"));
    PetscCall(SetValues(&p, 4.0, ref, A, device));
    PetscCall(MatCreateSubMatrix(A, is, is, MAT_REUSE_MATRIX, &sa));
    PetscCall(MatCreateSubMatrix(ref, is, is, MAT_REUSE_MATRIX, &sr));
    PetscCall(Same(sa, sr, "MatCreateSubMatrix (reuse, new values)"));
    PetscCall(MatDestroy(&sa));
    PetscCall(MatDestroy(&sr));
    PetscCall(ISDestroy(&is));
  }

  { /* MatTranspose, initial and reuse, and its multiply */
    Mat ta, tr;
    Vec x, ya, yr;
    PetscCall(SetValues(&p, 5.0, ref, A, device));
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &ta));
    PetscCall(MatTranspose(ref, MAT_INITIAL_MATRIX, &tr));
    PetscCall(Same(ta, tr, "MatTranspose (initial)"));
    PetscCall(SetValues(&p, 6.0, ref, A, device));
    PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &ta));
    PetscCall(MatTranspose(ref, MAT_REUSE_MATRIX, &tr));
    PetscCall(Same(ta, tr, "MatTranspose (reuse, new values)"));
    PetscCall(MatCreateVecs(ta, &x, &ya));
    PetscCall(MatCreateVecs(tr, NULL, &yr));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(ta, x, ya));
    PetscCall(MatMultTranspose(ref, x, yr));
    PetscCall(MpiTestCompareVec(yr, ya, 1e-13, "MatMult of the transpose", &nchecks));
    PetscCall(MatMultTranspose(A, x, ya));
    PetscCall(MpiTestCompareVec(yr, ya, 1e-13, "MatMultTranspose", &nchecks));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&yr));
    PetscCall(MatDestroy(&ta));
    PetscCall(MatDestroy(&tr));
  }

  { /* MatConvert to dense; MatGetValues and MatGetRow; diagonal and norms */
    Mat       da, dr;
    Vec       ga, gr;
    PetscReal na, nr;
    PetscCall(SetValues(&p, 7.0, ref, A, device));
    PetscCall(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, &da));
    PetscCall(MatConvert(ref, MATDENSE, MAT_INITIAL_MATRIX, &dr));
    PetscCall(Same(da, dr, "MatConvert to MATDENSE"));
    PetscCall(MatDestroy(&da));
    PetscCall(MatDestroy(&dr));
    {
      PetscScalar va, vr;
      PetscCall(MatGetValue(A, rs, rs, &va));
      PetscCall(MatGetValue(ref, rs, rs, &vr));
      PetscCheck(va == vr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetValues: %g, MATAIJ %g", (double)PetscRealPart(va), (double)PetscRealPart(vr));
      nchecks++;
    }
    {
      PetscInt           nca, ncr;
      const PetscScalar *va, *vr;
      PetscCall(MatGetRow(A, re - 1, &nca, NULL, &va));
      PetscCall(MatGetRow(ref, re - 1, &ncr, NULL, &vr));
      PetscCheck(nca == ncr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRow: %" PetscInt_FMT " entries, MATAIJ %" PetscInt_FMT, nca, ncr);
      for (PetscInt q = 0; q < nca; q++) PetscCheck(va[q] == vr[q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRow: value %" PetscInt_FMT " differs", q);
      PetscCall(MatRestoreRow(A, re - 1, &nca, NULL, &va));
      PetscCall(MatRestoreRow(ref, re - 1, &ncr, NULL, &vr));
      nchecks++;
    }
    PetscCall(MatCreateVecs(A, NULL, &ga));
    PetscCall(MatCreateVecs(ref, NULL, &gr));
    PetscCall(MatGetDiagonal(A, ga));
    PetscCall(MatGetDiagonal(ref, gr));
    PetscCall(MpiTestCompareVec(gr, ga, 1e-13, "MatGetDiagonal", &nchecks));
    PetscCall(MatGetRowMaxAbs(A, ga, NULL));
    PetscCall(MatGetRowMaxAbs(ref, gr, NULL));
    PetscCall(MpiTestCompareVec(gr, ga, 1e-13, "MatGetRowMaxAbs", &nchecks));
    PetscCall(VecDestroy(&ga));
    PetscCall(VecDestroy(&gr));
    const NormType types[] = {NORM_1, NORM_FROBENIUS, NORM_INFINITY};
    for (int q = 0; q < 3; q++) {
      NormType t = types[q];
      PetscCall(MatNorm(A, t, &na));
      PetscCall(MatNorm(ref, t, &nr));
      PetscCheck(PetscAbsReal(na - nr) <= 1e-13 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatNorm %s: %g, MATAIJ %g", NormTypes[t], (double)na, (double)nr);
      nchecks++;
    }
  }

  { /* MatSetValues on the host after device values, then assembly (a user's boundary-condition fix-up) */
    PetscCall(SetValues(&p, 8.0, ref, A, device));
    PetscCall(MatSetValue(A, rs, rs, 100.0, ADD_VALUES));
    PetscCall(MatSetValue(ref, rs, rs, 100.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(ref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(ref, MAT_FINAL_ASSEMBLY));
    PetscCall(Same(A, ref, "MatSetValues(ADD) after device values"));
  }

  { /* binary MatView and MatLoad into MATELLWARP */
    PetscViewer v;
    Mat         L;
    int pid = (int)getpid(); /* one file per run: CTest runs this program's cases at once in one directory */
    PetscCall(SetValues(&p, 9.0, ref, A, device));
    PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
    PetscCall(PetscSNPrintf(file, sizeof(file), "dropin_ops-%d.bin", pid));
    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(comm, &L));
    PetscCall(MatSetType(L, MATELLWARP));
    PetscCall(MatSetFromOptions(L));
    PetscCall(MatLoad(L, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(Same(L, ref, "binary MatView + MatLoad"));
    PetscCall(SameMult(L, ref, "MatMult of the loaded matrix", &nchecks));
    PetscCall(MatDestroy(&L));
    if (!rank) {
      char info[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", file));
      (void)remove(file);
      (void)remove(info);
    }
  }

  { /* MatAXPY/MatAYPX with mixed operands, PCGAMG's prolongator smoothing (agg.c): C = A P0 (our product's result:
       AIJCUSPARSE on the device, the host product's type on the host), MatAYPX(C, alpha, P0, SUBSET) with the
       ELLWARP P0; then SAME patterns (another product result, an ELLWARP copy of C, both ways round), an ELLWARP
       subset of an ELLWARP C, and a DIFFERENT pattern; each against the same steps on MATAIJ */
    Mat         Pe, Pr, C, Cr, D, Dr, E, Er, Q, Qr, Aop = A;
    PetscInt    n0, n1, m0, m1;
    PetscScalar alpha = -1.4 / 8.0;

    PetscCall(PetscLogDefaultBegin());
    PetscCall(SetValues(&p, 10.0, ref, A, device));
    PetscCall(Prolongator(A, MATELLWARP, 0, &Pe));
    PetscCall(Prolongator(ref, MATAIJ, 0, &Pr));
    if (productaij) PetscCall(MatConvert(ref, device ? MATAIJCUSPARSE : MATAIJ, MAT_INITIAL_MATRIX, &Aop));
    PetscCall(MatMatMult(Aop, Pe, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatMatMult(ref, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cr));
    PetscCall(MatProductClear(C));
    PetscCall(MatProductClear(Cr));
    PetscCall(Same(C, Cr, "A P0"));
    PetscCall(AssemblyCount(&n0));
    PetscCall(EventCount("EllwarpAXPYMixed", &m0));
    PetscCall(MatAYPX(C, alpha, Pe, SUBSET_NONZERO_PATTERN));
    PetscCall(EventCount("EllwarpAXPYMixed", &m1));
    PetscCall(AssemblyCount(&n1));
    PetscCall(MatAYPX(Cr, alpha, Pr, SUBSET_NONZERO_PATTERN));
    PetscCall(Same(C, Cr, "MatAYPX(A P0, alpha, P0, SUBSET_NONZERO_PATTERN)"));
    if (size == 1) { /* PETSc's MatAXPY() reached our op (seqellwarpaxpy.c), not MatAXPY_Basic */
      PetscBool cusp;
      MatType   ct;

      PetscCall(MatGetType(C, &ct));
      PetscCheck(m1 == m0 + 1, comm, PETSC_ERR_PLIB, "MatAYPX(A P0 (%s), alpha, ELLWARP P0, SUBSET) did not reach MATSEQELLWARP's axpy (%" PetscInt_FMT " calls)", ct, m1 - m0);
      nchecks++;
      /* on the host nothing is assembled (MatAXPY_Basic assembles C; on the device, P0's AIJCUSPARSE shadow is) */
      PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &cusp));
      PetscCheck(cusp || n1 == n0, comm, PETSC_ERR_PLIB, "MatAYPX(A P0, alpha, ELLWARP P0, SUBSET) assembled its result (%" PetscInt_FMT " times): PETSc's MatAXPY_Basic ran", n1 - n0);
      nchecks++;
    }
    PetscCall(MatMatMult(Aop, Pe, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatMatMult(ref, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(MatAXPY(C, 0.5, D, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(Cr, 0.5, Dr, SAME_NONZERO_PATTERN));
    PetscCall(Same(C, Cr, "MatAXPY(A P0, 0.5, A P0, SAME_NONZERO_PATTERN)"));
    PetscCall(MatConvert(Cr, MATELLWARP, MAT_INITIAL_MATRIX, &E));
    PetscCall(MatDuplicate(Cr, MAT_COPY_VALUES, &Er));
    PetscCall(MatAXPY(C, -0.25, E, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(Cr, -0.25, Er, SAME_NONZERO_PATTERN));
    PetscCall(Same(C, Cr, "MatAXPY(A P0, -0.25, ELLWARP, SAME_NONZERO_PATTERN)"));
    PetscCall(MatAXPY(E, 2.0, C, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(Er, 2.0, Cr, SAME_NONZERO_PATTERN));
    PetscCall(Same(E, Er, "MatAXPY(ELLWARP, 2, A P0, SAME_NONZERO_PATTERN)"));
    PetscCall(MatAXPY(E, 3.0, Pe, SUBSET_NONZERO_PATTERN));
    PetscCall(MatAXPY(Er, 3.0, Pr, SUBSET_NONZERO_PATTERN));
    PetscCall(Same(E, Er, "MatAXPY(ELLWARP, 3, ELLWARP P0, SUBSET_NONZERO_PATTERN)"));
    PetscCall(Prolongator(A, MATELLWARP, 1, &Q));
    PetscCall(Prolongator(ref, MATAIJ, 1, &Qr));
    PetscCall(MatAXPY(C, 1.5, Q, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(Cr, 1.5, Qr, DIFFERENT_NONZERO_PATTERN));
    PetscCall(Same(C, Cr, "MatAXPY(A P0, 1.5, ELLWARP, DIFFERENT_NONZERO_PATTERN)"));
    PetscCall(SameMult(C, Cr, "MatMult of A P0 after the AXPYs", &nchecks)); /* the result still multiplies right (PCMG's interpolation) */
    PetscCall(MatDestroy(&Q));
    PetscCall(MatDestroy(&Qr));
    PetscCall(MatDestroy(&E));
    PetscCall(MatDestroy(&Er));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cr));
    PetscCall(MatDestroy(&Pe));
    PetscCall(MatDestroy(&Pr));
    if (Aop != A) PetscCall(MatDestroy(&Aop));
  }

  { /* PCGAMG's graph (MatCreateGraph: a duplicate of the operator, made symmetric with its transpose, scaled by
       its diagonal, filtered), against MATAIJ's; none of its ELLWARP intermediates is ELL-WARP-analysed (they
       are never multiplied) */
    Mat      G, Gr;
    PetscInt n0, n1;

    PetscCall(PetscLogDefaultBegin());
    PetscCall(SetValues(&p, 11.0, ref, A, device));
    PetscCall(EventCount("EllwarpAnalysis", &n0));
    PetscCall(MatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, 0.01, 0, NULL, &G));
    PetscCall(EventCount("EllwarpAnalysis", &n1));
    PetscCall(MatCreateGraph(ref, PETSC_TRUE, PETSC_TRUE, 0.01, 0, NULL, &Gr));
    PetscCall(Same(G, Gr, "MatCreateGraph (symmetrized, scaled, filtered)"));
    if (size == 1) {
      PetscCheck(n1 == n0, comm, PETSC_ERR_PLIB, "MatCreateGraph analysed %" PetscInt_FMT " ELLWARP matrices that are never multiplied", n1 - n0);
      nchecks++;
    }
    PetscCall(MatDestroy(&G));
    PetscCall(MatDestroy(&Gr));
  }

  { /* MatConvert to MATIS (PCMG's GDSW coarse space, PCBDDC): AIJ's subdomains (each rank's rows and ghost columns),
       not MatConvert_Basic's (no overlap); the same local-to-global map as MATAIJ's MATIS and the same product */
    Mat                    Ia, Ir;
    ISLocalToGlobalMapping la, lr;
    PetscInt               na, nr;
    const PetscInt        *ia, *ir;
    PetscBool              same;

    PetscCall(SetValues(&p, 12.0, ref, A, device));
    PetscCall(MatConvert(A, MATIS, MAT_INITIAL_MATRIX, &Ia));
    PetscCall(MatConvert(ref, MATIS, MAT_INITIAL_MATRIX, &Ir));
    PetscCall(MatGetLocalToGlobalMapping(Ia, &la, NULL));
    PetscCall(MatGetLocalToGlobalMapping(Ir, &lr, NULL));
    PetscCall(ISLocalToGlobalMappingGetSize(la, &na));
    PetscCall(ISLocalToGlobalMappingGetSize(lr, &nr));
    PetscCall(ISLocalToGlobalMappingGetIndices(la, &ia));
    PetscCall(ISLocalToGlobalMappingGetIndices(lr, &ir));
    same = (PetscBool)(na == nr);
    for (PetscInt q = 0; same && q < na; q++) same = (PetscBool)(ia[q] == ir[q]);
    PetscCall(ISLocalToGlobalMappingRestoreIndices(la, &ia));
    PetscCall(ISLocalToGlobalMappingRestoreIndices(lr, &ir));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to MATIS: local-to-global map of %" PetscInt_FMT " entries, MATAIJ's has %" PetscInt_FMT " (or other indices)", na, nr);
    nchecks++;
    PetscCall(SameMult(Ia, Ir, "MatMult of the MATIS", &nchecks));
    PetscCall(SetValues(&p, 13.0, ref, A, device));
    PetscCall(MatConvert(A, MATIS, MAT_REUSE_MATRIX, &Ia));
    PetscCall(MatConvert(ref, MATIS, MAT_REUSE_MATRIX, &Ir));
    PetscCall(SameMult(Ia, Ir, "MatMult of the MATIS (reuse, new values)", &nchecks));
    PetscCall(MatDestroy(&Ia));
    PetscCall(MatDestroy(&Ir));
  }

  { /* A factorization asked for by name, -pc_factor_mat_solver_type petsc, as PCFACTOR asks again after its first set-up
       (new pattern, PCReset: SNES's convergence estimate): MATELLWARP's own (SeqAIJPetscDispatch), whose ILU(0) factor
       carries none of MATELLWARP's composed functions; SeqAIJ's factories still serve MATAIJ; the same solves */
    Mat           Ad, Rd, F[2];
    Vec           b, x[2];
    MatFactorInfo info;
    IS            row, col;
    void (*f)(void);

    PetscCall(SetValues(&p, 14.0, ref, A, device));
    PetscCall(MatGetDiagonalBlock(A, &Ad));
    PetscCall(MatGetDiagonalBlock(ref, &Rd));
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill   = 1.0; /* ILU(0) */
    info.levels = 0;
    PetscCall(MatGetOrdering(Rd, MATORDERINGNATURAL, &row, &col));
    PetscCall(MatCreateVecs(Rd, &x[0], &b));
    PetscCall(VecDuplicate(x[0], &x[1]));
    PetscCall(VecSetRandom(b, NULL));
    for (int k = 0; k < 2; k++) {
      Mat M = k ? Ad : Rd;
      PetscCall(MatGetFactor(M, MATSOLVERPETSC, MAT_FACTOR_ILU, &F[k]));
      PetscCall(MatILUFactorSymbolic(F[k], M, row, col, &info));
      PetscCall(MatLUFactorNumeric(F[k], M, &info));
      PetscCall(MatSolve(F[k], b, x[k]));
      PetscCall(PetscObjectQueryFunction((PetscObject)F[k], "MatEllwarpGetInfo_C", &f));
      PetscCheck(!f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the ILU(0) factor (solver type petsc, given by name) of a %s carries MATELLWARP's composed functions", k ? "MATELLWARP" : "MATAIJ");
      nchecks++;
    }
    {
      PetscReal d, n;
      PetscCall(VecAXPY(x[1], -1.0, x[0]));
      PetscCall(VecNorm(x[1], NORM_INFINITY, &d));
      PetscCall(VecNorm(x[0], NORM_INFINITY, &n));
      PetscCheck(d <= 1e-12 * n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ILU(0) solve by name: MATELLWARP's differs from MATAIJ's by %g", (double)(d / n));
      nchecks++;
    }
    for (int k = 0; k < 2; k++) {
      PetscCall(MatDestroy(&F[k]));
      PetscCall(VecDestroy(&x[k]));
    }
    PetscCall(VecDestroy(&b));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
  }

  PetscCall(PetscPrintf(comm, "dropin_ops: %" PetscInt_FMT " checks passed on %d rank(s) (%s values)\n", nchecks, size, device ? "device" : "host"));
  PetscCall(PetscFree3(p.ci, p.cj, p.cv));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&ref));
  PetscCall(PetscFinalize());
  return 0;
}
