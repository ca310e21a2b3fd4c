static const char help[] = "Issue 4 amortization (Table IV of Wong, Kuhl, Darve, section 6.1) on the SpMV suite, with the peers in the same run:\n"
                           "  SpMV of MATSEQELLWARP and MATSEQAIJCUSPARSE; the full pattern analysis on the device (with and without the\n"
                           "  pattern upload) and on the host; alpha = analysis / (t_aijcusparse - t_ellwarp) SpMVs to pay it back;\n"
                           "  value refreshes in SpMVs of the same matrix (path 1: host values, its transfer reported separately against\n"
                           "  the measured host-to-device bandwidth; path 2: MatSetValuesCOO with device values; path 3: MatAXPY/MatCopy);\n"
                           "  a Newton-like loop: -rounds x (MatSetValuesCOO with device values, then -spmvs MatMult), ELLWARP vs AIJCUSPARSE.\n"
                           "Options: -suite fe,irregular (see benchmarks/common/suite.h) -matrices a,b -scale s -repeats r (SpMV medians, 50)\n"
                           "  -analysis_repeats r (5) -cpu_repeats r (1) -rounds 10 -spmvs 50 -o dir (amortize.json, amortize.txt)\n";
/* Times: CUDA events on PETSc's stream for device work (median of repeats after one warm-up), wall clock with
   stream synchronization where the host takes part (analyses, path 1).  Warm L2 (unlike benchmarks/spmv). */
#include <petscellwarp.h>
#include <petscdevice_cuda.h>
#include <petsctime.h>
#include <petscellwarp/private/ellwarpanalysis.h>
#include <petscellwarp/private/matellwarpimpl.h>
#include "suite.h"
#include "benchtime.h"

#define NMAX SUITE_MAX_ENTRIES

typedef struct {
  char     name[64], kind[16];
  PetscInt rows;
  PetscCount nnz;
  double   spmv[2];                 /* ELLWARP, AIJCUSPARSE */
  double   an_gpu, an_gpu_up, an_gpu_dev, an_cpu; /* analysis: device total, its upload part, device with a resident pattern, host */
  double   aij_setup;               /* AIJCUSPARSE: first MatMult after assembly (its CSR upload) minus an SpMV */
  double   p1[2], h2d, h2d_gbs;     /* path 1 (assembly + first MatMult - SpMV), the pageable transfer of the values alone */
  double   p1dev;                   /* path 1's device part alone: the gather kernel from the CSR values already on the device */
  double   coo[2], axpy[2], copy[2];
  double   newton[2], newton_setup[2];
  PetscBool same;                   /* Newton loop results equal */
  PetscBool p3ok[2], p3dev;         /* path 3 results right (per type); ELLWARP's stayed in the layout (no refresh, no analysis) */
} Row;

typedef struct {
  Mat                A, B;
  Vec                x, y;
  const PetscScalar *dv;
} Ctx;

static PetscErrorCode OpMult(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatMult(c->A, c->x, c->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpCOO(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatSetValuesCOO(c->A, c->dv, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpAXPY(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatAXPY(c->A, 1e-3, c->B, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpCopy(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatCopy(c->B, c->A, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SyncNow(PetscLogDouble *t)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern analyses, called directly (what MatAssemblyEnd runs for a new pattern) */
static PetscErrorCode TimeAnalyses(Mat A, PetscInt reps, PetscInt cpureps, Row *r)
{
  const PetscInt *ai, *aj;
  PetscInt        m, n, *dai, *daj;
  PetscBool       done;
  EllwarpParams   par;
  double         *t, *tu, *td;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&par, sizeof(par)));
  par.kernel     = MAT_ELLWARP_KERNEL_AUTO;
  par.sortwindow = -1;
  par.compress   = PETSC_TRUE;
  par.compressbias = PETSC_TRUE;
  par.analysis   = -1;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(PetscMalloc3(reps, &t, reps, &tu, reps, &td));
  for (PetscInt k = -1; k < reps; k++) { /* k = -1: warm-up (CUB workspaces, the memory pool) */
    EllwarpLayout       *L;
    EllwarpDeviceArrays  d;
    EllwarpAnalysisTimes tm;
    PetscCall(EllwarpLayoutCreateCUDA(m, n, ai, aj, NULL, PETSC_MEMTYPE_HOST, &par, &L, &d, &tm));
    PetscCall(EllwarpDeviceArraysFree(&d));
    PetscCall(EllwarpLayoutDestroy(&L));
    if (k >= 0) {
      t[k]  = tm.upload + tm.analysis;
      tu[k] = tm.upload;
    }
  }
  r->an_gpu    = BenchMedian(t, reps);
  r->an_gpu_up = BenchMedian(tu, reps);
  /* the pattern already on the device (e.g. assembled there) */
  PetscCallCUDA(cudaMalloc((void **)&dai, (m + 1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&daj, PetscMax(ai[m], 1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMemcpy(dai, ai, (m + 1) * sizeof(PetscInt), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(daj, aj, ai[m] * sizeof(PetscInt), cudaMemcpyHostToDevice));
  for (PetscInt k = 0; k < reps; k++) {
    EllwarpLayout       *L;
    EllwarpDeviceArrays  d;
    EllwarpAnalysisTimes tm;
    PetscCall(EllwarpLayoutCreateCUDA(m, n, dai, daj, NULL, PETSC_MEMTYPE_DEVICE, &par, &L, &d, &tm));
    PetscCall(EllwarpDeviceArraysFree(&d));
    PetscCall(EllwarpLayoutDestroy(&L));
    td[k] = tm.analysis;
  }
  r->an_gpu_dev = BenchMedian(td, reps);
  PetscCallCUDA(cudaFree(dai));
  PetscCallCUDA(cudaFree(daj));
  for (PetscInt k = 0; k < cpureps; k++) {
    EllwarpLayout *L;
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(EllwarpLayoutCreate(m, n, ai, aj, NULL, &par, &L));
    PetscCall(PetscTime(&t1));
    PetscCall(EllwarpLayoutDestroy(&L));
    t[k] = t1 - t0;
  }
  r->an_cpu = BenchMedian(t, cpureps);
  PetscCall(PetscFree3(t, tu, td));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* path 1: the host values change (same pattern); assembly, then the first MatMult pays the refresh */
static PetscErrorCode TimePath1(Mat A, Vec x, Vec y, double spmv, PetscInt reps, double *sec)
{
  double *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt k = 0; k < reps; k++) {
    PetscScalar   *v;
    PetscLogDouble t0, t1;
    PetscCall(MatSeqAIJGetArray(A, &v)); /* marks the host values newer */
    v[0] += 0.0;
    PetscCall(MatSeqAIJRestoreArray(A, &v));
    PetscCall(SyncNow(&t0));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatMult(A, x, y));
    PetscCall(SyncNow(&t1));
    t[k] = t1 - t0 - spmv;
  }
  *sec = BenchMedian(t, reps);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* path 1 once the CSR values are on the device: the store's gather kernel alone (what MatSeqELLWARPSyncLayout runs
   after its upload), CUDA events; the staging copy holds the matrix's current CSR values after TimePath1 */
static PetscErrorCode OpGather(void *ctx)
{
  Mat             A = (Mat)ctx;
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(e->k->gather(e->S, e->csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeGather(Mat A, PetscInt reps, double *sec)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(e && e->S && e->csr && e->backend == MAT_ELLWARP_BACKEND_CUDA, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "path 1 device timing needs a CUDA-backend ELLWARP matrix after a host-value refresh");
  PetscCall(BenchDeviceMedianTime(OpGather, A, reps, sec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pageable host-to-device transfer of nnz values alone (what path 1 must move) */
static PetscErrorCode TimeH2D(Mat A, PetscInt reps, double *sec)
{
  const PetscScalar *v;
  PetscScalar       *d;
  PetscInt           m, n;
  const PetscInt    *ai, *aj;
  PetscBool          done;
  double            *t;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  n = ai[m];
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &v));
  PetscCallCUDA(cudaMalloc((void **)&d, PetscMax(n, 1) * sizeof(PetscScalar)));
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt k = -1; k < reps; k++) {
    PetscLogDouble t0, t1;
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCallCUDA(cudaMemcpy(d, v, n * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    PetscCall(PetscTime(&t1));
    if (k >= 0) t[k] = t1 - t0;
  }
  *sec = BenchMedian(t, reps);
  PetscCall(PetscFree(t));
  PetscCallCUDA(cudaFree(d));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO lists of the matrix's own pattern (one entry per nonzero, in row order) */
static PetscErrorCode PatternCOO(Mat A, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  const PetscInt *ai, *aj;
  PetscInt        m;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  *n = ai[m];
  PetscCall(PetscMalloc2(*n, ci, *n, cj));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      (*ci)[k] = i;
      (*cj)[k] = aj[k];
    }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a matrix of type t with the COO pattern; setup = preallocation + first MatSetValuesCOO + first MatMult */
static PetscErrorCode COOMatrix(MatType t, PetscInt m, PetscInt n, PetscCount nc, const PetscInt *ci, const PetscInt *cj, const PetscScalar *dv, Vec x, Vec y, Mat *B, double *setup)
{
  PetscInt      *i2, *j2;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nc, &i2, nc, &j2));
  PetscCall(PetscArraycpy(i2, ci, nc));
  PetscCall(PetscArraycpy(j2, cj, nc));
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, m, n, m, n));
  PetscCall(MatSetType(*B, t));
  PetscCall(SyncNow(&t0));
  PetscCall(MatSetPreallocationCOO(*B, nc, i2, j2));
  PetscCall(MatSetValuesCOO(*B, dv, INSERT_VALUES));
  PetscCall(MatMult(*B, x, y));
  PetscCall(SyncNow(&t1));
  *setup = t1 - t0;
  PetscCall(PetscFree2(i2, j2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rounds x (new values by device COO, then spmvs products), total seconds; y ends with the last product */
static PetscErrorCode Newton(Mat B, Vec vals, Vec x, Vec y, PetscInt rounds, PetscInt spmvs, double *sec)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(SyncNow(&t0));
  for (PetscInt r = 0; r < rounds; r++) {
    const PetscScalar *dv;
    PetscCall(VecScale(vals, 1.0 + 1.0 / 1024)); /* new values, on the device (a real code assembles them there) */
    PetscCall(VecCUDAGetArrayRead(vals, &dv));
    PetscCall(MatSetValuesCOO(B, dv, INSERT_VALUES));
    PetscCall(VecCUDARestoreArrayRead(vals, &dv));
    for (PetscInt k = 0; k < spmvs; k++) PetscCall(MatMult(B, x, y));
  }
  PetscCall(SyncNow(&t1));
  *sec = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Alpha(double an, double te, double ta)
{
  return ta > te ? PetscCeilReal(an / (ta - te)) : -1; /* -1: never (ELLWARP's SpMV is not faster) */
}

static PetscErrorCode Measure(const SuiteEntry *se, PetscInt reps, PetscInt areps, PetscInt creps, PetscInt rounds, PetscInt spmvs, Row *r)
{
  Mat          A, E[2];
  Vec          x, y, vals, yn[2];
  const char  *types[2] = {MATSEQELLWARP, MATSEQAIJCUSPARSE};
  PetscInt     m, n;
  PetscCount   nc;
  PetscInt    *ci, *cj;
  PetscScalar *hv;
  Ctx          c;

  PetscFunctionBegin;
  PetscCall(SuiteBuildMatrix(se, &A));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(PetscStrncpy(r->name, se->name, sizeof(r->name)));
  PetscCall(PetscStrncpy(r->kind, se->kind, sizeof(r->kind)));
  r->rows = m;
  {
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    r->nnz = (PetscCount)info.nz_used;
  }
  /* SpMV, path 1, path 3 */
  for (int t = 0; t < 2; t++) {
    PetscLogDouble t0, t1;
    PetscCall(MatConvert(A, types[t], MAT_INITIAL_MATRIX, &E[t]));
    PetscCall(MatCreateVecs(E[t], &x, &y));
    PetscCall(VecSet(x, 1.0));
    if (t == 1) { /* AIJCUSPARSE's set-up: its first product uploads the CSR */
      PetscCall(SyncNow(&t0));
      PetscCall(MatMult(E[t], x, y));
      PetscCall(SyncNow(&t1));
      r->aij_setup = t1 - t0;
    }
    c.A = E[t];
    c.x = x;
    c.y = y;
    PetscCall(BenchDeviceMedianTime(OpMult, &c, reps, &r->spmv[t]));
    if (t == 1) r->aij_setup -= r->spmv[1];
    PetscCall(TimePath1(E[t], x, y, r->spmv[t], PetscMax(3, areps), &r->p1[t]));
    if (t == 0) PetscCall(TimeGather(E[t], reps, &r->p1dev));
    PetscCall(MatDuplicate(E[t], MAT_COPY_VALUES, &c.B));
    {
      MatEllwarpInfo i0, i1;
      Vec            y2;
      PetscReal      d, nrm;
      if (t == 0) PetscCall(MatEllwarpGetInfo(E[t], &i0));
      PetscCall(BenchDeviceMedianTime(OpAXPY, &c, reps, &r->axpy[t]));
      PetscCall(BenchDeviceMedianTime(OpCopy, &c, reps, &r->copy[t]));
      /* check: A = B, then A += 0.5 B gives 1.5 B x */
      PetscCall(VecDuplicate(y, &y2));
      PetscCall(MatCopy(c.B, E[t], SAME_NONZERO_PATTERN));
      PetscCall(MatAXPY(E[t], 0.5, c.B, SAME_NONZERO_PATTERN));
      PetscCall(MatMult(E[t], x, y));
      PetscCall(MatMult(c.B, x, y2));
      PetscCall(VecAXPY(y, -1.5, y2));
      PetscCall(VecNorm(y, NORM_INFINITY, &d));
      /* relative to |B|_inf |x|_inf: with x = 1 an FE operator's rows nearly cancel, so |B x| is no scale */
      PetscCall(MatNorm(c.B, NORM_INFINITY, &nrm));
      r->p3ok[t] = (PetscBool)(d <= 1e-13 * 1.5 * nrm);
      PetscCall(VecDestroy(&y2));
      if (t == 0) {
        PetscCall(MatEllwarpGetInfo(E[t], &i1));
        r->p3dev = (PetscBool)(i1.nanalyses == i0.nanalyses && i1.nrefreshes == i0.nrefreshes);
      }
    }
    PetscCall(MatDestroy(&c.B));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&E[t]));
  }
  PetscCall(TimeH2D(A, PetscMax(3, areps), &r->h2d));
  r->h2d_gbs = r->h2d > 0 ? (double)r->nnz * sizeof(PetscScalar) / r->h2d / 1e9 : 0;
  PetscCall(TimeAnalyses(A, areps, creps, r));
  /* path 2 and the Newton-like loop: the same COO input and device values for both types */
  PetscCall(PatternCOO(A, &nc, &ci, &cj));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)nc, &vals));
  PetscCall(VecGetArrayWrite(vals, &hv));
  for (PetscCount k = 0; k < nc; k++) hv[k] = 1.0 + (PetscScalar)((k * 7919) % 1000) / 997.0;
  PetscCall(VecRestoreArrayWrite(vals, &hv));
  for (int t = 0; t < 2; t++) {
    const PetscScalar *dv;
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &x));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, m, &yn[t]));
    PetscCall(VecSet(x, 1.0));
    PetscCall(VecCUDAGetArrayRead(vals, &dv));
    PetscCall(COOMatrix(types[t], m, n, nc, ci, cj, dv, x, yn[t], &E[t], &r->newton_setup[t]));
    c.A  = E[t];
    c.dv = dv;
    PetscCall(BenchDeviceMedianTime(OpCOO, &c, reps, &r->coo[t]));
    PetscCall(VecCUDARestoreArrayRead(vals, &dv));
    PetscCall(VecDestroy(&x));
  }
  {
    Vec v0;
    PetscCall(VecDuplicate(vals, &v0));
    PetscCall(VecCopy(vals, v0));
    for (int t = 0; t < 2; t++) {
      PetscCall(VecCopy(v0, vals)); /* both types see the same values */
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &x));
      PetscCall(VecSet(x, 1.0));
      PetscCall(Newton(E[t], vals, x, yn[t], rounds, spmvs, &r->newton[t]));
      PetscCall(VecDestroy(&x));
    }
    PetscCall(VecDestroy(&v0));
  }
  {
    PetscReal d, nrm;
    PetscCall(VecAXPY(yn[1], -1.0, yn[0]));
    PetscCall(VecNorm(yn[1], NORM_INFINITY, &d));
    PetscCall(VecNorm(yn[0], NORM_INFINITY, &nrm));
    r->same = (PetscBool)(d <= 1e-12 * nrm);
  }
  for (int t = 0; t < 2; t++) {
    PetscCall(VecDestroy(&yn[t]));
    PetscCall(MatDestroy(&E[t]));
  }
  PetscCall(VecDestroy(&vals));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(FILE *fp, const Row *rows, PetscInt nr, PetscInt rounds, PetscInt spmvs)
{
  PetscFunctionBegin;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "# Table IV for the suite: alpha = SpMVs after which ELLWARP (analysis included) beats AIJCUSPARSE; -1: never (its SpMV is not faster)\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s %9s %10s %9s %9s %6s | %8s %8s %8s %8s | %6s %6s %6s | %7s %7s %7s\n", "matrix", "rows", "nnz", "ell_us", "aij_us", "ratio", "gpu_ms", "upl_ms", "dev_ms", "cpu_ms", "aGPU", "aDEV", "aCPU", "gpu/mv", "dev/mv", "cpu/mv"));
  for (PetscInt i = 0; i < nr; i++) {
    const Row *r = &rows[i];
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s %9" PetscInt_FMT " %10" PetscCount_FMT " %9.2f %9.2f %6.2f | %8.3f %8.3f %8.3f %8.1f | %6.0f %6.0f %6.0f | %7.1f %7.1f %7.0f\n", r->name, r->rows, r->nnz, 1e6 * r->spmv[0], 1e6 * r->spmv[1], r->spmv[1] / r->spmv[0], 1e3 * r->an_gpu, 1e3 * r->an_gpu_up, 1e3 * r->an_gpu_dev, 1e3 * r->an_cpu,
                           Alpha(r->an_gpu, r->spmv[0], r->spmv[1]), Alpha(r->an_gpu_dev, r->spmv[0], r->spmv[1]), Alpha(r->an_cpu, r->spmv[0], r->spmv[1]), r->an_gpu / r->spmv[0], r->an_gpu_dev / r->spmv[0], r->an_cpu / r->spmv[0]));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\n# Value refreshes, in SpMVs of the same matrix (ELLWARP / AIJCUSPARSE); path 1 = assembly + first MatMult - one SpMV,\n# its transfer alone (pageable cudaMemcpy of nnz values) and its device part alone (p1dev: the gather kernel, values on the device)\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s | %7s %7s %7s %7s %7s | %7s %7s | %7s %7s | %7s %7s | %s\n", "matrix", "p1_ell", "p1_aij", "h2d", "GB/s", "p1dev", "coo_ell", "coo_aij", "axpy_e", "axpy_a", "copy_e", "copy_a", "path 3 check"));
  for (PetscInt i = 0; i < nr; i++) {
    const Row *r = &rows[i];
    double     s = r->spmv[0], sa = r->spmv[1];
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s | %7.1f %7.1f %7.1f %7.1f %7.1f | %7.2f %7.2f | %7.2f %7.2f | %7.2f %7.2f | %s%s\n", r->name, r->p1[0] / s, r->p1[1] / sa, r->h2d / s, r->h2d_gbs, r->p1dev / s, r->coo[0] / s, r->coo[1] / sa, r->axpy[0] / s, r->axpy[1] / sa, r->copy[0] / s, r->copy[1] / sa,
                           r->p3ok[0] && r->p3ok[1] ? "right" : "WRONG", r->p3dev ? ", in layout" : ", LEFT THE LAYOUT"));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\n# Newton-like loop: %" PetscInt_FMT " x (MatSetValuesCOO, device values, then %" PetscInt_FMT " MatMult); set-up = MatSetPreallocationCOO + first MatSetValuesCOO + first MatMult\n", rounds, spmvs));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s | %9s %9s %7s | %9s %9s %7s | %s\n", "matrix", "loop_ell", "loop_aij", "aij/ell", "setup_ell", "setup_aij", "total", "same"));
  for (PetscInt i = 0; i < nr; i++) {
    const Row *r = &rows[i];
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%-18s | %9.3f %9.3f %7.2f | %9.3f %9.3f %7.2f | %s\n", r->name, 1e3 * r->newton[0], 1e3 * r->newton[1], r->newton[1] / r->newton[0], 1e3 * r->newton_setup[0], 1e3 * r->newton_setup[1], (r->newton[1] + r->newton_setup[1]) / (r->newton[0] + r->newton_setup[0]), r->same ? "yes" : "NO"));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "# times in ms unless noted; loop and set-up ratios are AIJCUSPARSE / ELLWARP (> 1: ELLWARP faster)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteJSON(const char *path, const Row *rows, PetscInt nr, PetscInt rounds, PetscInt spmvs)
{
  FILE *fp = fopen(path, "w");

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", path);
  fprintf(fp, "{\n  \"benchmark\": \"amortize\", \"units\": \"seconds\", \"rounds\": %d, \"spmvs\": %d,\n  \"matrices\": [\n", (int)rounds, (int)spmvs);
  for (PetscInt i = 0; i < nr; i++) {
    const Row *r = &rows[i];
    fprintf(fp,
            "    {\"name\": \"%s\", \"kind\": \"%s\", \"rows\": %d, \"nnz\": %lld, \"spmv_ellwarp\": %.6e, \"spmv_aijcusparse\": %.6e,\n"
            "     \"analysis_gpu\": %.6e, \"analysis_gpu_upload\": %.6e, \"analysis_gpu_resident\": %.6e, \"analysis_cpu\": %.6e, \"aijcusparse_setup\": %.6e,\n"
            "     \"alpha_gpu\": %.0f, \"alpha_gpu_resident\": %.0f, \"alpha_cpu\": %.0f,\n"
            "     \"path1_ellwarp\": %.6e, \"path1_aijcusparse\": %.6e, \"h2d_values\": %.6e, \"h2d_GBps\": %.3f, \"path1_device_gather\": %.6e,\n"
            "     \"coo_ellwarp\": %.6e, \"coo_aijcusparse\": %.6e, \"axpy_ellwarp\": %.6e, \"axpy_aijcusparse\": %.6e, \"copy_ellwarp\": %.6e, \"copy_aijcusparse\": %.6e,\n"
            "     \"newton_ellwarp\": %.6e, \"newton_aijcusparse\": %.6e, \"newton_setup_ellwarp\": %.6e, \"newton_setup_aijcusparse\": %.6e, \"newton_same_result\": %s,\n     \"path3_right\": %s, \"path3_in_layout\": %s}%s\n",
            r->name, r->kind, (int)r->rows, (long long)r->nnz, r->spmv[0], r->spmv[1], r->an_gpu, r->an_gpu_up, r->an_gpu_dev, r->an_cpu, r->aij_setup, Alpha(r->an_gpu, r->spmv[0], r->spmv[1]), Alpha(r->an_gpu_dev, r->spmv[0], r->spmv[1]), Alpha(r->an_cpu, r->spmv[0], r->spmv[1]), r->p1[0],
            r->p1[1], r->h2d, r->h2d_gbs, r->p1dev, r->coo[0], r->coo[1], r->axpy[0], r->axpy[1], r->copy[0], r->copy[1], r->newton[0], r->newton[1], r->newton_setup[0], r->newton_setup[1], r->same ? "true" : "false", r->p3ok[0] && r->p3ok[1] ? "true" : "false", r->p3dev ? "true" : "false", i + 1 < nr ? "," : "");
  }
  fprintf(fp, "  ]\n}\n");
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SuiteEntry e[NMAX];
  Row        rows[NMAX];
  PetscInt   n, reps = 50, areps = 5, creps = 1, rounds = 10, spmvs = 50;
  char       out[PETSC_MAX_PATH_LEN] = "";
  PetscBool  hasout;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-analysis_repeats", &areps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cpu_repeats", &creps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rounds", &rounds, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-spmvs", &spmvs, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &hasout));
  {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-suite", &has));
    if (!has) PetscCall(PetscOptionsSetValue(NULL, "-suite", "fe,irregular"));
  }
  PetscCall(SuiteGetEntries(&n, e));
  for (PetscInt i = 0; i < n; i++) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(Measure(&e[i], reps, areps, creps, rounds, spmvs, &rows[i]));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# %s done in %.1f s\n", e[i].name, t1 - t0));
  }
  PetscCall(Report(PETSC_STDOUT, rows, n, rounds, spmvs));
  if (hasout && out[0]) {
    char  path[PETSC_MAX_PATH_LEN];
    FILE *fp;
    PetscCall(PetscMkdir(out));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/amortize.txt", out));
    fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", path);
    PetscCall(Report(fp, rows, n, rounds, spmvs));
    fclose(fp);
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/amortize.json", out));
    PetscCall(WriteJSON(path, rows, n, rounds, spmvs));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s/amortize.txt and amortize.json\n", out));
  }
  PetscCall(SuiteFinalize());
  PetscCall(PetscFinalize());
  return 0;
}
