static const char help[] = "MATMPIELLWARP vs a peer (MPIAIJCUSPARSE on GPUs) across MPI ranks, in the same run:\n"
                           "SpMV (time split into diagonal-block product, off-diagonal product, ghost exchange) and CG with\n"
                           "Jacobi (fixed iterations), strong scaling on the largest FE suite matrices and weak scaling on a\n"
                           "P1 Kuhn-cube matrix generated in parallel (-weak_rows per rank).  Every power of two of ranks up to\n"
                           "the communicator size runs in turn (the first p ranks), so one mpiexec gives the scaling.\n"
                           "Options: -matrices lv_struct_p1,lv_struct_elast -scale s (suite, strong), -weak_rows 1e7 -weak_nx 256,\n"
                           "-reps 50 -trials 3 -cg_its 100 -peer <type> -o <dir> (table mpi_bench.txt and mpi_bench.json), -no_strong, -no_weak.\n";
/* Issue 5's benchmark.  Timings are wall clock per operation (MPI_Wtime after a barrier, the device synchronized
   at the end of each batch), the maximum over the ranks, the median of -trials batches of -reps operations. */
#include <petscellwarp.h>
#include <petscksp.h>
#include <petscdevice.h>
#include <../src/mat/impls/aij/mpi/mpiaij.h>
#include "suite.h"
#include "benchtime.h"

typedef struct {
  char      test[16], matrix[64], format[32];
  PetscInt  p;
  PetscInt  rows;
  PetscCount nnz;
  double    spmv, local, offdiag, comm, cg, relerr;
} Result;

#define MAXRES 256
static Result    res[MAXRES];
static PetscInt  nres;
static PetscBool gpu;
static PetscInt  reps = 50, trials = 3, cgits = 100;

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
  if (gpu) {
    PetscDeviceContext d;
    PetscCall(PetscDeviceContextGetCurrentContext(&d));
    PetscCall(PetscDeviceContextSynchronize(d));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  Mat        A, Ad, Bo;
  Vec        x, y, xl, yl, lvec;
  VecScatter sct;
} Ctx;

static PetscErrorCode OpMult(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(MatMult(c->A, c->x, c->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpLocal(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(MatMult(c->Ad, c->xl, c->yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpOffdiag(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd(c->Bo, c->lvec, c->yl, c->yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpComm(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(c->sct, c->x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(c->sct, c->x, c->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* seconds per op: max over ranks of a batch, median over trials */
static PetscErrorCode Time(MPI_Comm comm, PetscErrorCode (*op)(Ctx *), Ctx *c, double *sec)
{
  double t[16];

  PetscFunctionBegin;
  PetscCall((*op)(c));
  PetscCall(Sync());
  for (PetscInt k = 0; k < trials; k++) {
    double t0, t1, dt;
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    for (PetscInt r = 0; r < reps; r++) PetscCall((*op)(c));
    PetscCall(Sync());
    t1 = MPI_Wtime();
    dt = (t1 - t0) / reps;
    PetscCallMPI(MPI_Allreduce(&dt, &t[k], 1, MPI_DOUBLE, MPI_MAX, comm));
  }
  *sec = BenchMedian(t, trials);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG + Jacobi, cgits iterations (no convergence test): seconds per iteration */
static PetscErrorCode TimeCG(Mat A, Vec b, Vec x, double *sec)
{
  KSP    ksp;
  PC     pc;
  double t0, t1, dt;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, 5));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x)); /* warm-up */
  PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, cgits));
  PetscCall(VecZeroEntries(x));
  PetscCall(Sync());
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)A)));
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Sync());
  t1 = MPI_Wtime();
  dt = (t1 - t0) / cgits;
  PetscCallMPI(MPI_Allreduce(&dt, sec, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the measurements for one assembled MPIAIJ-family matrix (mpiaijellwarp or mpiaijcusparse/mpiaij) */
static PetscErrorCode Measure(Mat A, Vec yref, Result *r)
{
  Mat_MPIAIJ *a = (Mat_MPIAIJ *)A->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  Ctx         c;
  PetscRandom rnd;

  PetscFunctionBegin;
  c.A   = A;
  c.Ad  = a->A;
  c.Bo  = a->B;
  c.sct = a->Mvctx;
  c.lvec = a->lvec;
  PetscCall(MatCreateVecs(A, &c.x, &c.y));
  PetscCall(MatCreateVecs(c.Ad, &c.xl, &c.yl));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSet(c.x, 1.0));
  {
    Vec h;
    PetscCall(VecCreateMPI(comm, A->cmap->n, A->cmap->N, &h));
    PetscCall(VecSetRandom(h, rnd)); /* the same x for every format: host generator */
    PetscCall(VecCopy(h, c.x));
    PetscCall(VecDestroy(&h));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecSet(c.xl, 1.0));
  PetscCall(VecSet(c.yl, 0.0));
  PetscCall(Time(comm, OpMult, &c, &r->spmv));
  PetscCall(Time(comm, OpLocal, &c, &r->local));
  PetscCall(Time(comm, OpOffdiag, &c, &r->offdiag));
  PetscCall(Time(comm, OpComm, &c, &r->comm));
  PetscCall(MatMult(A, c.x, c.y));
  if (yref) { /* relative difference from the first format's product */
    Vec       d;
    PetscReal e, n;
    PetscCall(VecDuplicate(yref, &d));
    PetscCall(VecCopy(c.y, d));
    PetscCall(VecAXPY(d, -1.0, yref));
    PetscCall(VecNorm(d, NORM_INFINITY, &e));
    PetscCall(VecNorm(yref, NORM_INFINITY, &n));
    r->relerr = e / n;
    PetscCall(VecDestroy(&d));
  } else r->relerr = 0.0;
  {
    Vec b;
    PetscCall(VecDuplicate(c.y, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(TimeCG(A, b, c.y, &r->cg));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(VecDestroy(&c.x));
  PetscCall(VecDestroy(&c.y));
  PetscCall(VecDestroy(&c.xl));
  PetscCall(VecDestroy(&c.yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Run both formats on the MPIAIJ matrix Aaij (host): convert, measure, compare */
static PetscErrorCode RunFormats(Mat Aaij, const char *test, const char *matrix, PetscInt p, const char *peer)
{
  const char *types[2] = {MATMPIELLWARP, peer};
  const char *names[2] = {"ellwarp", peer};
  Vec         yref = NULL;
  MatInfo     info;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)Aaij), &rank));
  PetscCall(MatGetInfo(Aaij, MAT_GLOBAL_SUM, &info));
  for (int f = 0; f < 2; f++) {
    Mat     M;
    Result *r = &res[nres];
    double  t0 = MPI_Wtime();

    PetscCall(MatConvert(Aaij, types[f], MAT_INITIAL_MATRIX, &M));
    if (f == 0) {
      PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_(PetscObjectComm((PetscObject)M)), PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(M, PETSC_VIEWER_STDOUT_(PetscObjectComm((PetscObject)M))));
      PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_(PetscObjectComm((PetscObject)M))));
    }
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)M), "# %s %s p=%" PetscInt_FMT " %s: conversion %.2f s\n", test, matrix, p, names[f], MPI_Wtime() - t0));
    PetscCall(PetscStrncpy(r->test, test, sizeof(r->test)));
    PetscCall(PetscStrncpy(r->matrix, matrix, sizeof(r->matrix)));
    PetscCall(PetscStrncpy(r->format, names[f], sizeof(r->format)));
    r->p    = p;
    r->rows = Aaij->rmap->N;
    r->nnz  = (PetscCount)info.nz_used;
    PetscCall(Measure(M, yref, r));
    if (f == 0) { /* keep ELLWARP's product as the reference for the peer's */
      Mat_MPIAIJ *a = (Mat_MPIAIJ *)M->data;
      Vec         x, h;
      (void)a;
      PetscCall(MatCreateVecs(M, &x, &yref));
      PetscCall(VecCreateMPI(PetscObjectComm((PetscObject)M), M->cmap->n, M->cmap->N, &h));
      {
        PetscRandom rnd;
        PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)M), &rnd));
        PetscCall(PetscRandomSetSeed(rnd, 7));
        PetscCall(PetscRandomSeed(rnd));
        PetscCall(VecSetRandom(h, rnd));
        PetscCall(PetscRandomDestroy(&rnd));
      }
      PetscCall(VecCopy(h, x));
      PetscCall(MatMult(M, x, yref));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&h));
    }
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)M), "# %s %s p=%" PetscInt_FMT " %-16s SpMV %9.1f us (local %8.1f, off-diag %8.1f, comm %8.1f)  CG it %9.1f us  rel.diff %.1e\n", test, matrix, p, names[f], 1e6 * r->spmv, 1e6 * r->local, 1e6 * r->offdiag, 1e6 * r->comm, 1e6 * r->cg, r->relerr));
    PetscCall(MatDestroy(&M));
    nres++;
  }
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows [N r/p, N (r+1)/p) of the sequential matrix S (every rank holds it) as an MPIAIJ on comm */
static PetscErrorCode Distribute(MPI_Comm comm, Mat S, Mat *A)
{
  PetscMPIInt        p, r;
  PetscInt           N, r0, r1, n;
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt          *il;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &p));
  PetscCallMPI(MPI_Comm_rank(comm, &r));
  PetscCall(MatGetSize(S, &N, NULL));
  r0 = (PetscInt)(((PetscInt64)N * r) / p);
  r1 = (PetscInt)(((PetscInt64)N * (r + 1)) / p);
  PetscCall(MatGetRowIJ(S, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(S, &va));
  PetscCall(PetscMalloc1(r1 - r0 + 1, &il));
  for (PetscInt i = r0; i <= r1; i++) il[i - r0] = ia[i] - ia[r0];
  PetscCall(MatCreateMPIAIJWithArrays(comm, r1 - r0, r1 - r0, N, N, il, ja + ia[r0], va + ia[r0], A));
  PetscCall(PetscFree(il));
  PetscCall(MatSeqAIJRestoreArrayRead(S, &va));
  PetscCall(MatRestoreRowIJ(S, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P1 Kuhn-cube matrix on an nx x nx x (planes p) vertex grid, z-slabs per rank, built in parallel straight
   in CSR: the 15-point stencil of the Kuhn triangulation, symmetric values, diagonally dominant (SPD) */
static PetscErrorCode KuhnMatrix(MPI_Comm comm, PetscInt nx, PetscInt planes, Mat *A)
{
  PetscMPIInt  p, r;
  PetscInt     nz, k0, k1, m, N, *ia, *ja, q = 0;
  PetscScalar *va;
  static const int off[15][3] = {
    {-1, -1, -1}, {0, -1, -1}, {0, 0, -1}, {-1, -1, 0}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}, {-1, 0, -1}
  };
  int ord[15];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &p));
  PetscCallMPI(MPI_Comm_rank(comm, &r));
  nz = planes * p;
  k0 = planes * r;
  k1 = k0 + planes;
  m  = nx * nx * planes;
  N  = nx * nx * nz;
  /* neighbour offsets: all nonzero components of the same sign (14 + the vertex); sorted by global index */
  {
    long key[15];
    for (int s = 0; s < 15; s++) {
      ord[s] = s;
      key[s] = off[s][0] + (long)nx * off[s][1] + (long)nx * nx * off[s][2];
    }
    for (int s = 1; s < 15; s++)
      for (int t = s; t > 0 && key[ord[t]] < key[ord[t - 1]]; t--) {
        int w      = ord[t];
        ord[t]     = ord[t - 1];
        ord[t - 1] = w;
      }
  }
  PetscCall(PetscMalloc1(m + 1, &ia));
  PetscCall(PetscMalloc1((size_t)15 * m, &ja));
  PetscCall(PetscMalloc1((size_t)15 * m, &va));
  ia[0] = 0;
  for (PetscInt k = k0; k < k1; k++)
    for (PetscInt j = 0; j < nx; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscInt row = i + nx * (j + nx * k);
        PetscInt       dpos = -1;
        PetscReal      sum  = 0;
        for (int s = 0; s < 15; s++) {
          const int     *o = off[ord[s]];
          const PetscInt ii = i + o[0], jj = j + o[1], kk = k + o[2];
          PetscInt       col;
          if (ii < 0 || ii >= nx || jj < 0 || jj >= nx || kk < 0 || kk >= nz) continue;
          col = ii + nx * (jj + nx * kk);
          if (col == row) dpos = q;
          else {
            const PetscInt lo = PetscMin(row, col), hi = PetscMax(row, col);
            const PetscReal v = -(1.0 + 0.5 * (PetscReal)((lo * 2654435761u + hi * 40503u) % 1000) / 1000.0);
            va[q] = v;
            sum += -v;
          }
          ja[q++] = col;
        }
        va[dpos]                       = sum + 0.1;
        ia[row - nx * nx * k0 + 1]     = q;
      }
  PetscCall(MatCreateMPIAIJWithArrays(comm, m, m, N, N, ia, ja, va, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(MPI_Comm comm, const char *dir, PetscInt size)
{
  FILE       *fj = NULL, *ft = NULL;
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  if (dir[0]) {
    PetscCall(PetscMkdir(dir));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/mpi_bench.json", dir));
    fj = fopen(path, "w");
    PetscCheck(fj, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/mpi_bench.txt", dir));
    ft = fopen(path, "w");
    PetscCheck(ft, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
  }
  for (int pass = 0; pass < 2; pass++) {
    FILE *f = pass ? ft : stdout;
    if (!f) continue;
    fprintf(f, "# MATMPIELLWARP scaling (%s); times per operation, max over ranks, median of %d batches of %d; CG+Jacobi per iteration\n", gpu ? "GPUs, one per rank" : "host backend", (int)trials, (int)reps);
    fprintf(f, "# eff: strong t(1)/(p t(p)), weak t(1)/t(p), from the same format's p=1 run; peer/ell: the peer's time over ELLWARP's (>1: ELLWARP faster)\n");
    fprintf(f, "%-6s %-16s %-15s %2s %11s %12s %9s %9s %9s %9s %7s %7s %9s %7s %7s %8s\n", "test", "matrix", "format", "p", "rows", "nnz", "spmv_us", "local_us", "offd_us", "comm_us", "GB/s", "eff", "cg_it_us", "cg_eff", "peer/ell", "reldiff");
    for (PetscInt i = 0; i < nres; i++) {
      const Result *r = &res[i], *one = NULL, *ell = NULL, *peer = NULL;
      double        eff, cgeff, gbs, ratio = 0;
      for (PetscInt k = 0; k < nres; k++) {
        if (!strcmp(res[k].test, r->test) && !strcmp(res[k].matrix, r->matrix) && !strcmp(res[k].format, r->format) && res[k].p == 1) one = &res[k];
        if (!strcmp(res[k].test, r->test) && !strcmp(res[k].matrix, r->matrix) && res[k].p == r->p) {
          if (!strcmp(res[k].format, "ellwarp")) ell = &res[k];
          else peer = &res[k];
        }
      }
      eff   = one ? (!strcmp(r->test, "strong") ? one->spmv / (r->p * r->spmv) : one->spmv / r->spmv) : 0;
      cgeff = one ? (!strcmp(r->test, "strong") ? one->cg / (r->p * r->cg) : one->cg / r->cg) : 0;
      gbs   = (12.0 * (double)r->nnz + 16.0 * r->rows) / r->spmv * 1e-9;
      if (ell && peer) ratio = peer->spmv / ell->spmv;
      fprintf(f, "%-6s %-16s %-15s %2d %11d %12lld %9.1f %9.1f %9.1f %9.1f %7.0f %7.2f %9.1f %7.2f %7.2f %8.1e\n", r->test, r->matrix, r->format, (int)r->p, (int)r->rows, (long long)r->nnz, 1e6 * r->spmv, 1e6 * r->local, 1e6 * r->offdiag, 1e6 * r->comm, gbs, eff, 1e6 * r->cg, cgeff, ratio, r->relerr);
      if (pass == 0 && fj) {
        fprintf(fj, "%s  {\"test\": \"%s\", \"matrix\": \"%s\", \"format\": \"%s\", \"ranks\": %d, \"rows\": %d, \"nnz\": %lld, \"spmv_s\": %.6e, \"local_s\": %.6e, \"offdiag_s\": %.6e, \"comm_s\": %.6e, \"gbs_csr\": %.2f, \"efficiency\": %.4f, \"cg_iter_s\": %.6e, \"cg_efficiency\": %.4f, \"peer_over_ellwarp\": %.4f, \"reldiff\": %.3e}%s\n", i == 0 ? "[\n" : "", r->test, r->matrix, r->format, (int)r->p, (int)r->rows, (long long)r->nnz, r->spmv, r->local, r->offdiag, r->comm, gbs, eff, r->cg, cgeff, ratio, r->relerr, i == nres - 1 ? "\n]" : ",");
      }
    }
  }
  if (fj) fclose(fj);
  if (ft) fclose(ft);
  (void)size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size, rank;
  PetscInt    nent = 0, weaknx = 256;
  PetscReal   weakrows = 1e7;
  SuiteEntry  ent[SUITE_MAX_ENTRIES];
  char        peer[64] = "", dir[PETSC_MAX_PATH_LEN] = "";
  PetscBool   nostrong = PETSC_FALSE, noweak = PETSC_FALSE, set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MATMPIELLWARP benchmark", NULL);
  PetscCall(PetscOptionsInt("-reps", "operations per timed batch", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-trials", "timed batches (median)", NULL, trials, &trials, NULL));
  PetscCall(PetscOptionsInt("-cg_its", "CG iterations", NULL, cgits, &cgits, NULL));
  PetscCall(PetscOptionsReal("-weak_rows", "weak scaling: rows per rank", NULL, weakrows, &weakrows, NULL));
  PetscCall(PetscOptionsInt("-weak_nx", "weak scaling: grid points per side in x and y", NULL, weaknx, &weaknx, NULL));
  PetscCall(PetscOptionsString("-peer", "peer matrix type (default mpiaijcusparse with a GPU, else mpiaij)", NULL, peer, peer, sizeof(peer), &set));
  PetscCall(PetscOptionsString("-o", "directory for mpi_bench.txt and mpi_bench.json", NULL, dir, dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsBool("-no_strong", "skip strong scaling", NULL, nostrong, &nostrong, NULL));
  PetscCall(PetscOptionsBool("-no_weak", "skip weak scaling", NULL, noweak, &noweak, NULL));
  PetscOptionsEnd();
  PetscCheck(trials >= 1 && trials <= 16, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-trials must be in [1,16]");
  {
    Mat               T;
    MatEllwarpBackend b;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &T));
    PetscCall(MatSetSizes(T, 1, 1, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(T, MATMPIELLWARP));
    PetscCall(MatEllwarpGetBackend(T, &b));
    PetscCall(MatDestroy(&T));
    gpu = (PetscBool)(b == MAT_ELLWARP_BACKEND_CUDA);
  }
  if (!set) PetscCall(PetscStrncpy(peer, gpu ? MATMPIAIJCUSPARSE : MATMPIAIJ, sizeof(peer)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# %d ranks, ELLWARP backend %s, peer %s, GPU-aware MPI %s\n", size, gpu ? "cuda" : "host", peer, gpu ? "see -use_gpu_aware_mpi" : "n/a"));

  if (!nostrong) {
    PetscCall(PetscOptionsHasName(NULL, NULL, "-matrices", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-matrices", "lv_struct_p1,lv_struct_elast"));
    PetscCall(SuiteGetEntries(&nent, ent));
    for (PetscInt e = 0; e < nent; e++) {
      Mat    S;
      double t0 = MPI_Wtime();
      PetscCall(SuiteBuildMatrix(&ent[e], &S)); /* every rank builds it; each p takes its rows */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# strong: %s, %" PetscInt_FMT " rows, built in %.1f s\n", ent[e].name, S->rmap->N, MPI_Wtime() - t0));
      for (PetscMPIInt p = 1; p <= size; p *= 2) {
        MPI_Comm sub;
        PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank, &sub));
        if (rank < p) {
          Mat A;
          PetscCall(Distribute(sub, S, &A));
          PetscCall(RunFormats(A, "strong", ent[e].name, p, peer));
          PetscCall(MatDestroy(&A));
          PetscCallMPI(MPI_Comm_free(&sub));
        }
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      }
      PetscCall(MatDestroy(&S));
    }
    PetscCall(SuiteFinalize());
  }
  if (!noweak) {
    const PetscInt planes = PetscMax(1, (PetscInt)(weakrows / ((PetscReal)weaknx * weaknx) + 0.5));
    char           name[64];
    PetscCall(PetscSNPrintf(name, sizeof(name), "kuhn_p1_%dx%dx%d", (int)weaknx, (int)weaknx, (int)planes));
    for (PetscMPIInt p = 1; p <= size; p *= 2) {
      MPI_Comm sub;
      PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank, &sub));
      if (rank < p) {
        Mat    A;
        double t0 = MPI_Wtime();
        PetscCall(KuhnMatrix(sub, weaknx, planes, &A));
        PetscCall(PetscPrintf(sub, "# weak: %s per rank, p=%d: %" PetscInt_FMT " rows, built in %.1f s\n", name, p, A->rmap->N, MPI_Wtime() - t0));
        PetscCall(RunFormats(A, "weak", name, p, peer));
        PetscCall(MatDestroy(&A));
        PetscCallMPI(MPI_Comm_free(&sub));
      }
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    }
  }
  PetscCall(Report(PETSC_COMM_WORLD, dir, size)); /* rank 0 took part in every run: it has all results */
  PetscCall(PetscFinalize());
  return 0;
}
