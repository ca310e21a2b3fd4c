/* Shared by the MATMPIELLWARP tests: row ownership (uneven, a rank with no rows), the test matrices (random
   with off-rank entries and a few long rows; P1 tetrahedra of a Kuhn cube, assembled element by element with
   the stash), the common options, and vector comparisons against MATMPIAIJ. */
#pragma once
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpkuhn.h>

/* local rows of this rank out of N: even, or uneven (rank r weighs r+1), and -empty_rank r owns none */
static inline PetscErrorCode MpiTestLocalSize(MPI_Comm comm, PetscInt N, PetscBool uneven, PetscInt empty, PetscInt *m)
{
  PetscMPIInt size, rank;
  PetscInt    wsum = 0, w, done = 0, last = -1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt r = 0; r < size; r++) {
    if (r == empty && size > 1) continue;
    wsum += uneven ? r + 1 : 1;
    last = r;
  }
  *m = 0;
  for (PetscInt r = 0; r < size; r++) {
    PetscInt mr;
    if (r == empty && size > 1) mr = 0;
    else {
      w  = uneven ? r + 1 : 1;
      mr = (r == last) ? N - done : (N * w) / wsum;
    }
    done += mr;
    if (r == rank) *m = mr;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the options every MPI test reads (-type -matrix -n -uneven -empty_rank), inside the caller's
   PetscOptionsBegin() so that its own options follow them in -help */
static inline PetscErrorCode MpiTestReadOptions(PetscOptionItems PetscOptionsObject, char type[], size_t ltype, char kind[], size_t lkind, PetscInt *n, PetscBool *uneven, PetscInt *empty)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsString("-type", "ELLWARP type to create", NULL, type, type, ltype, NULL));
  PetscCall(PetscOptionsString("-matrix", "random or fe", NULL, kind, kind, lkind, NULL));
  PetscCall(PetscOptionsInt("-n", "random: rows / 10; fe: cells per side", NULL, *n, n, NULL));
  PetscCall(PetscOptionsBool("-uneven", "uneven row ownership", NULL, *uneven, uneven, NULL));
  PetscCall(PetscOptionsInt("-empty_rank", "this rank owns no rows", NULL, *empty, empty, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* global rows N of the test matrix kind ("fe": the Kuhn cube's (n+1)^3 vertices, else 10 n + 3) and this
   rank's share m (MpiTestLocalSize) */
static inline PetscErrorCode MpiTestSizes(MPI_Comm comm, const char kind[], PetscInt n, PetscBool uneven, PetscInt empty, PetscInt *N, PetscInt *m)
{
  PetscBool fe;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kind, "fe", &fe));
  *N = fe ? (n + 1) * (n + 1) * (n + 1) : 10 * n + 3;
  PetscCall(MpiTestLocalSize(comm, *N, uneven, empty, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscReal MpiTestHash(PetscInt a, PetscInt b)
{
  unsigned long long h = (unsigned long long)(a * 2654435761ULL) ^ (unsigned long long)(b * 40503ULL + 0x9e3779b97f4a7c15ULL);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 32;
  return (PetscReal)(h % 100000ULL) / 100000.0; /* [0,1) */
}

/* Insert the same entries into every matrix of mats[]: each rank sets its rows and some entries of rows other
   ranks own (ADD_VALUES, so the stash carries them).  random: diagonal plus up to 8 random columns per row,
   every 37th row 70 entries; fe: element matrices of the P1 tetrahedra of an n^3 Kuhn cube (cells split
   over the ranks by index, vertices owned by the row layout). vscale changes the values, not the pattern. */
static inline PetscErrorCode MpiTestFill(PetscInt nmats, Mat mats[], const char *kind, PetscInt n, PetscReal vscale)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)mats[0]);
  PetscMPIInt size, rank;
  PetscInt    N, rstart, rend;
  PetscBool   fe;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MatGetSize(mats[0], &N, NULL));
  PetscCall(MatGetOwnershipRange(mats[0], &rstart, &rend));
  PetscCall(PetscStrcmp(kind, "fe", &fe));
  if (fe) {
    const PetscInt nc = n * n * n, c0 = (nc * rank) / size, c1 = (nc * (rank + 1)) / size;
    for (PetscInt c = c0; c < c1; c++)
      for (int t = 0; t < 6; t++) {
        PetscInt    v[4];
        PetscScalar ke[16];
        EllwarpKuhnTet(n, c, t, v);
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++) ke[a * 4 + b] = vscale * ((a == b) ? 3.2 : -1.0 - 0.1 * MpiTestHash(v[a] + v[b], c));
        for (PetscInt k = 0; k < nmats; k++) PetscCall(MatSetValues(mats[k], 4, v, 4, v, ke, ADD_VALUES));
      }
  } else {
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt    len = (i % 37 == 5) ? 70 : (PetscInt)(9 * MpiTestHash(i, 1));
      PetscScalar d   = vscale * 100.0;
      for (PetscInt k = 0; k < nmats; k++) PetscCall(MatSetValues(mats[k], 1, &i, 1, &i, &d, ADD_VALUES));
      for (PetscInt q = 0; q < len; q++) {
        PetscInt    j = (PetscInt)(N * MpiTestHash(i, q + 7)) % N;
        PetscScalar a = vscale * (MpiTestHash(j, q) - 0.5);
        if (j == i) continue;
        for (PetscInt k = 0; k < nmats; k++) PetscCall(MatSetValues(mats[k], 1, &i, 1, &j, &a, ADD_VALUES));
      }
      /* an entry for a row of another rank */
      {
        PetscInt    r = (i * 7 + 3) % N, j = (i * 13 + 1) % N;
        PetscScalar a = vscale * 0.25;
        for (PetscInt k = 0; k < nmats; k++) PetscCall(MatSetValues(mats[k], 1, &r, 1, &j, &a, ADD_VALUES));
      }
    }
  }
  for (PetscInt k = 0; k < nmats; k++) {
    PetscCall(MatAssemblyBegin(mats[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(mats[k], MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v (any type) against ref: ||v - ref||_inf <= tol max(||ref||_inf, 1) */
static inline PetscErrorCode MpiTestCompareVec(Vec ref, Vec v, PetscReal tol, const char *what, PetscInt *nchecks)
{
  Vec       d;
  PetscReal err, nr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ref, &d));
  PetscCall(VecCopy(v, d));
  PetscCall(VecAXPY(d, -1.0, ref));
  PetscCall(VecNorm(d, NORM_INFINITY, &err));
  PetscCall(VecNorm(ref, NORM_INFINITY, &nr));
  PetscCall(VecDestroy(&d));
  PetscCheck(err <= tol * PetscMax(nr, 1.0), PetscObjectComm((PetscObject)ref), PETSC_ERR_PLIB, "%s: differs from the reference by %g (norm %g)", what, (double)err, (double)nr);
  (*nchecks)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How MpiTestCompareMatEx checks MatMultTransposeAdd(E, y, w, z) */
typedef enum {
  MPITEST_MTA_ALL,     /* z != w (z holding a previous result) and, through MatMultAdd's check, everything else */
  MPITEST_MTA_INPLACE, /* only z == w: for PETSc's (MPI)AIJCUSPARSE, whose z != w path is wrong (see below) */
} MpiTestMTA;

/* E (MATMPIELLWARP or anything) against the MPIAIJ reference: values through a conversion, then products */
static inline PetscErrorCode MpiTestCompareMatEx(Mat ref, Mat E, PetscReal tol, const char *what, MpiTestMTA mta, PetscInt *nchecks)
{
  Mat       C;
  PetscReal nrm, na;
  Vec       xr, yr, zr, xe, ye, ze;
  char      buf[256];

  PetscFunctionBegin;
  PetscCall(MatConvert(E, MATMPIAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
  PetscCall(MatNorm(ref, NORM_FROBENIUS, &na));
  PetscCheck(nrm <= tol * PetscMax(na, 1.0), PetscObjectComm((PetscObject)ref), PETSC_ERR_PLIB, "%s: values differ from MATMPIAIJ (%g)", what, (double)(nrm / PetscMax(na, 1.0)));
  PetscCall(MatDestroy(&C));
  (*nchecks)++;
  PetscCall(MatCreateVecs(ref, &xr, &yr));
  PetscCall(VecDuplicate(yr, &zr));
  PetscCall(MatCreateVecs(E, &xe, &ye));
  PetscCall(VecDuplicate(ye, &ze));
  {
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)ref), &rnd));
    PetscCall(PetscRandomSetType(rnd, PETSCRAND48));
    PetscCall(PetscRandomSetSeed(rnd, 17));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(xr, rnd));
    PetscCall(VecSetRandom(zr, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(VecCopy(xr, xe));
  PetscCall(VecCopy(zr, ze));
  PetscCall(MatMult(ref, xr, yr));
  PetscCall(MatMult(E, xe, ye));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMult", what));
  PetscCall(MpiTestCompareVec(yr, ye, tol, buf, nchecks));
  PetscCall(MatMultAdd(ref, xr, zr, yr));
  PetscCall(MatMultAdd(E, xe, ze, ye));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMultAdd", what));
  PetscCall(MpiTestCompareVec(yr, ye, tol, buf, nchecks));
  PetscCall(MatMultAdd(E, xe, ze, ze)); /* in place */
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMultAdd in place", what));
  PetscCall(MpiTestCompareVec(yr, ze, tol, buf, nchecks));
  PetscCall(VecCopy(zr, ze));
  PetscCall(MatMultTranspose(ref, yr, xr));
  PetscCall(VecCopy(yr, ye));
  PetscCall(MatMultTranspose(E, ye, xe));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMultTranspose", what));
  PetscCall(MpiTestCompareVec(xr, xe, tol, buf, nchecks));
  {
    Vec wr, we;
    PetscCall(VecDuplicate(xr, &wr));
    PetscCall(VecDuplicate(xe, &we));
    PetscCall(VecSet(wr, 0.5));
    PetscCall(VecSet(we, 0.5));
    PetscCall(MatMultTransposeAdd(ref, yr, wr, xr));
    if (mta == MPITEST_MTA_ALL) { /* xe still holds MatMultTranspose's result: must be overwritten, not added to */
      PetscCall(MatMultTransposeAdd(E, ye, we, xe));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMultTransposeAdd", what));
      PetscCall(MpiTestCompareVec(xr, xe, tol, buf, nchecks));
    }
    PetscCall(MatMultTransposeAdd(E, ye, we, we)); /* in place */
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: MatMultTransposeAdd in place", what));
    PetscCall(MpiTestCompareVec(xr, we, tol, buf, nchecks));
    PetscCall(VecDestroy(&wr));
    PetscCall(VecDestroy(&we));
  }
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&xe));
  PetscCall(VecDestroy(&ye));
  PetscCall(VecDestroy(&ze));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode MpiTestCompareMat(Mat ref, Mat E, PetscReal tol, const char *what, PetscInt *nchecks)
{
  return MpiTestCompareMatEx(ref, E, tol, what, MPITEST_MTA_ALL, nchecks);
}
