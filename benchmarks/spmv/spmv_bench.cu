static const char help[] = "SpMV benchmark (issue 3): MATSEQELLWARP (auto and exhaustive parameters) against AIJCUSPARSE,\n"
                           "raw cuSPARSE CSR (ALG1/ALG2), cuSPARSE sliced-ELL (slice 32) and PETSc SELLCUDA.\n"
                           "Suite options: -suite all|fe,irregular,regular,mm -matrices a,b -scale s -mm f.mtx,... -bin f.bin,... -lv_msh f -lv_rcm\n"
                           "Options: -products N (200) -repeats R (5) -formats ellwarp,sweep,aijcusparse,cusparse,sell32,sellcuda[,variants][,bsr][,block][,blocklanes][,readbound]\n"
                           "  block: ELLWARP with the blocked layout forced (-mat_ellwarp_block on -mat_ellwarp_block_lanes 1; thread mappings row and lane) and the scalar one forced\n"
                           "  blocklanes: ELLWARP with the blocked layout forced with T = 1, 2, 4, 8, 16, 32 lanes per block row (-mat_ellwarp_block_lanes T)\n"
                           "  (the sweep adds the blocked layout's mappings and sort windows for matrices with block size 2..6)\n"
                           "  bsr: raw cuSPARSE BSR (cusparseDbsrmv) with the matrix's block size (skipped for block size 1)\n"
                           "  readbound: a streaming kernel reading and writing ELLWARP's bytes, timed the same way (the bound at that size;\n"
                           "  summary columns rd%%pk and ew/rd)\n"
                           "  -peak_gbs G (2990): the tables' %%peak is the bytes really moved per product (matrix as stored, x, y) over G\n"
                           "  variants: ELLWARP (automatic parameters) with each kernel variant of -variants all|name,... (-mat_ellwarp_tune mult_*,\n"
                           "  long_*, the column modes nobias and col32), timed as the others; lines VARIANT give the ratios to the peers of the same run\n"
                           "  -cold_flush memset|read (memset): how the cold products' L2 is emptied (a memset leaves it dirty)\n"
                           "  -sweep_products N (50) -sweep_budget s (30 per matrix) -time_budget s (300: later sweeps are skipped)\n"
                           "  -pair_rounds N (5): auto and the sweep's best re-timed alternately N times on fresh matrices; the auto5%% column\n"
                           "     uses their medians (0: the single timings)\n"
                           "  -sell_timeout s (30) -sell_max_rows n (0: no limit) -sell_mode fork|inline|skip -json out.json -tmpdir dir\n"
                           "  (-sell_mode fork starts a nested MPI singleton, which fails with some Open MPI installs; benchmarks/spmv/run_suite.sh\n"
                           "   runs SELLCUDA per matrix in separate top-level processes with -sell_mode inline under a time limit instead)\n";

#include <petscmat.h>
#include <petscdevice_cuda.h>
#include <petsctime.h>
#include <petscellwarp.h>
#include <cusparse.h>
#include <cuda_runtime.h>
#include <vector>
#include <string>
#include <algorithm>
#include <unistd.h>
#include "flushread.cuh" /* FlushRead: -cold_flush read */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <errno.h>
#include <cmath>

extern "C" {
#include "suite.h"
}

/* ------------------------------------------------------------------------------------------------------------ */

enum { ST_OK = 0, ST_ERROR, ST_SKIPPED, ST_TIMEOUT, ST_NOTRUN };
static const char *StatusName[] = {"ok", "error", "skipped", "timeout", "not run"};

struct FormatResult {
  std::string name;
  int         status = ST_NOTRUN;
  std::string note;
  double      conv_s = 0, hot_us = 0, cold_us = 0, err = -1;
  double      bytes = 0; /* bytes one product really moves in this format: the matrix as stored, x once, y once (0: not known) */
};

struct SweepPoint {
  int    kernel; /* 1, 2 */
  int    threshold, blocksize, sortwindow;
  double cold_us, err;
  int    ok;
};

struct MatrixResult {
  SuiteEntry                e;
  PetscInt                  rows = 0, cols = 0, minlen = 0, maxlen = 0, bs = 1;
  PetscCount                nnz  = 0;
  PetscReal                 mean = 0, sd = 0;
  double                    gen_s = 0, csr_bytes = 0;
  std::vector<FormatResult> f;
  PetscBool                 have_info = PETSC_FALSE;
  MatEllwarpInfo            info;
  std::vector<SweepPoint>   sweep;
  int                       sweep_total = 0;
  std::string               sweep_note;
  SweepPoint                best{};
  double                    best_full_cold_us = 0, best_full_hot_us = 0;
  double                    pair_auto_us = 0, pair_best_us = 0; /* medians of the paired re-timing (PairAutoBest) */
  int                       pair_rounds = 0;
};

/* ------------------------------------------------------------------------------------------------------------ */
/* timing */

static PetscInt     g_products = 200, g_repeats = 5, g_sweep_products = 50;
static double       g_peak_gbs = 2990; /* -peak_gbs: the bandwidth the "% peak" column is against (H100 SXM copy) */
static void        *g_flush    = NULL;
static size_t       g_flush_bytes = 0;
static PetscBool    g_flush_read  = PETSC_FALSE; /* -cold_flush read: evict L2 by reading the buffer (clean lines) */
static double      *g_flush_sink  = NULL;
static cudaStream_t g_stream      = NULL;

static PetscErrorCode FlushL2(PetscInt k)
{
  PetscFunctionBegin;
  if (g_flush_read) {
    FlushRead<<<1024, 256, 0, g_stream>>>((const double *)g_flush, g_flush_bytes / sizeof(double), g_flush_sink);
    PetscCallCUDA(cudaGetLastError());
  } else PetscCallCUDA(cudaMemsetAsync(g_flush, (int)(k & 0xff), g_flush_bytes, g_stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*MultFn)(void *);

/* The binding limit of one product at its size (-formats ...,readbound): a streaming kernel that reads the bytes ELLWARP's
   product reads (its matrix as stored and x) and writes the bytes it writes (y), timed like the products (the same cold
   flush).  Why: the copy bandwidth is measured on buffers far larger than L2; a product of 50-100 MB also pays a launch,
   the ramp of its first loads and the drain of its last ones, which no format can avoid, so "% of the copy bandwidth"
   at that size is capped below 100 % by the size alone.  This kernel has the least of those costs (16-byte loads, four
   in flight per thread, every SM full); a product's time over its time is the fraction of the bound it reaches. */
struct StreamCtx {
  const double2 *src;
  size_t         nread; /* double2 entries read */
  double        *dst;
  size_t         nwrite; /* doubles written */
  int            grid;
};

__global__ static void __launch_bounds__(256) StreamReadWrite(const double2 *__restrict__ src, size_t nread, double *__restrict__ dst, size_t nwrite)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  double       s      = 0;
  size_t       i      = t;
  for (; i + 3 * stride < nread; i += 4 * stride) {
    double2 a = __ldcs(src + i), b = __ldcs(src + i + stride), c = __ldcs(src + i + 2 * stride), d = __ldcs(src + i + 3 * stride);
    s += a.x + a.y + b.x + b.y + c.x + c.y + d.x + d.y;
  }
  for (; i < nread; i += stride) {
    double2 a = __ldcs(src + i);
    s += a.x + a.y;
  }
  for (size_t j = t; j < nwrite; j += stride) dst[j] = s; /* every thread's sum reaches memory: the loads stay */
}

static PetscErrorCode StreamMultFn(void *ctx)
{
  StreamCtx *c = (StreamCtx *)ctx;
  PetscFunctionBegin;
  StreamReadWrite<<<c->grid, 256, 0, g_stream>>>(c->src, c->nread, c->dst, c->nwrite);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Median(std::vector<double> v)
{
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* hot: median over repeats of (time of nprod back-to-back products)/nprod;
   cold: L2 flushed (memset of 2x L2, or with -cold_flush read a read of it) before every product, events around each
   single product, median of all */
static PetscErrorCode TimeSpMV(MultFn f, void *ctx, PetscInt nprod, PetscInt reps, PetscBool dohot, double *hot_us, double *cold_us)
{
  std::vector<cudaEvent_t> ev(2 * nprod);
  std::vector<double>      hot, cold;

  PetscFunctionBegin;
  for (auto &e : ev) PetscCallCUDA(cudaEventCreate(&e));
  for (int w = 0; w < 3; w++) PetscCall(f(ctx));
  PetscCallCUDA(cudaDeviceSynchronize());
  for (PetscInt r = 0; r < reps && dohot; r++) {
    float ms;
    PetscCallCUDA(cudaEventRecord(ev[0], g_stream));
    for (PetscInt k = 0; k < nprod; k++) PetscCall(f(ctx));
    PetscCallCUDA(cudaEventRecord(ev[1], g_stream));
    PetscCallCUDA(cudaEventSynchronize(ev[1]));
    PetscCallCUDA(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    hot.push_back(1e3 * ms / nprod);
  }
  for (PetscInt r = 0; r < reps; r++) {
    for (PetscInt k = 0; k < nprod; k++) {
      PetscCall(FlushL2(k));
      PetscCallCUDA(cudaEventRecord(ev[2 * k], g_stream));
      PetscCall(f(ctx));
      PetscCallCUDA(cudaEventRecord(ev[2 * k + 1], g_stream));
    }
    PetscCallCUDA(cudaEventSynchronize(ev[2 * nprod - 1]));
    for (PetscInt k = 0; k < nprod; k++) {
      float ms;
      PetscCallCUDA(cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]));
      cold.push_back(1e3 * ms);
    }
  }
  *hot_us  = Median(hot);
  *cold_us = Median(cold);
  for (auto &e : ev) PetscCallCUDA(cudaEventDestroy(e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc MatMult on device vectors */
struct PetscMultCtx {
  Mat B;
  Vec x, y;
};
static PetscErrorCode PetscMultFn(void *ctx)
{
  PetscMultCtx *c = (PetscMultCtx *)ctx;
  return MatMult(c->B, c->x, c->y);
}

/* relative inf-norm error of y (any vector type) against the host reference */
static PetscErrorCode RelErrVec(Vec y, Vec yref, double *err)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          d = 0, m = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(yref, &n));
  PetscCall(VecGetArrayRead(y, &a));
  PetscCall(VecGetArrayRead(yref, &b));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal diff = PetscAbsScalar(a[i] - b[i]);
    if (PetscIsInfOrNanReal(diff)) diff = PETSC_INFINITY;
    d = PetscMax(d, diff);
    m = PetscMax(m, PetscAbsScalar(b[i]));
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCall(VecRestoreArrayRead(yref, &b));
  *err = m > 0 ? d / m : d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelErrArray(const PetscScalar *a, Vec yref, double *err)
{
  const PetscScalar *b;
  PetscInt           n;
  PetscReal          d = 0, m = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(yref, &n));
  PetscCall(VecGetArrayRead(yref, &b));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal diff = PetscAbsScalar(a[i] - b[i]);
    if (PetscIsInfOrNanReal(diff)) diff = PETSC_INFINITY;
    d = PetscMax(d, diff);
    m = PetscMax(m, PetscAbsScalar(b[i]));
  }
  PetscCall(VecRestoreArrayRead(yref, &b));
  *err = m > 0 ? d / m : d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Convert A to type `type` (via SEQSELL for SELLCUDA), time MatMult on device vectors, check the result */
static PetscErrorCode RunPetscFormat(Mat A, MatType type, Vec xh, Vec yref, PetscInt nprod, PetscInt reps, PetscBool dohot, FormatResult *r, Mat *keep)
{
  PetscMultCtx   c;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t0));
  if (!strcmp(type, MATSEQSELLCUDA)) {
    PetscCall(MatConvert(A, MATSEQSELL, MAT_INITIAL_MATRIX, &c.B));
    PetscCall(MatConvert(c.B, MATSEQSELLCUDA, MAT_INPLACE_MATRIX, &c.B));
  } else PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &c.B));
  PetscCall(MatCreateVecs(c.B, &c.x, &c.y));
  { /* host values into the (device) vector, independent of the vector types */
    const PetscScalar *xa;
    PetscScalar       *xd;
    PetscInt           nx;
    PetscCall(VecGetLocalSize(xh, &nx));
    PetscCall(VecGetArrayRead(xh, &xa));
    PetscCall(VecGetArrayWrite(c.x, &xd));
    PetscCall(PetscArraycpy(xd, xa, nx));
    PetscCall(VecRestoreArrayWrite(c.x, &xd));
    PetscCall(VecRestoreArrayRead(xh, &xa));
  }
  PetscCall(MatMult(c.B, c.x, c.y)); /* first product includes any lazy upload: counted in conv_s */
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  r->conv_s = t1 - t0;
  PetscCall(RelErrVec(c.y, yref, &r->err));
  PetscCall(TimeSpMV(PetscMultFn, &c, nprod, reps, dohot, &r->hot_us, &r->cold_us));
  PetscCall(RelErrVec(c.y, yref, &r->err)); /* after the timing loop too (same x) */
  r->status = ST_OK;
  PetscCall(VecDestroy(&c.x));
  PetscCall(VecDestroy(&c.y));
  if (keep) *keep = c.B;
  else PetscCall(MatDestroy(&c.B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* raw cuSPARSE: CSR (ALG1, ALG2) and sliced ELL (slice 32) */

struct CusparseCtx {
  cusparseHandle_t     h;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t x, y;
  cusparseSpMVAlg_t    alg;
  void                *buf;
};
static PetscErrorCode CusparseMultFn(void *ctx)
{
  CusparseCtx *c     = (CusparseCtx *)ctx;
  double       alpha = 1.0, beta = 0.0;
  PetscCallCUSPARSE(cusparseSpMV(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, c->A, c->x, &beta, c->y, CUDA_R_64F, c->alg, c->buf));
  return PETSC_SUCCESS;
}

static PetscErrorCode RunCusparse(cusparseHandle_t h, cusparseSpMatDescr_t Ad, PetscInt m, PetscInt n, Vec xh, Vec yref, cusparseSpMVAlg_t alg, FormatResult *r)
{
  CusparseCtx        c;
  double            *dx, *dy, alpha = 1.0, beta = 0.0;
  size_t             bsize = 0;
  const PetscScalar *xa;
  std::vector<double> yh(m);

  PetscFunctionBegin;
  c.h   = h;
  c.A   = Ad;
  c.alg = alg;
  c.buf = NULL;
  PetscCallCUDA(cudaMalloc((void **)&dx, sizeof(double) * PetscMax(n, 1)));
  PetscCallCUDA(cudaMalloc((void **)&dy, sizeof(double) * PetscMax(m, 1)));
  PetscCall(VecGetArrayRead(xh, &xa));
  PetscCallCUDA(cudaMemcpy(dx, xa, sizeof(double) * n, cudaMemcpyHostToDevice));
  PetscCall(VecRestoreArrayRead(xh, &xa));
  PetscCallCUSPARSE(cusparseCreateDnVec(&c.x, n, dx, CUDA_R_64F));
  PetscCallCUSPARSE(cusparseCreateDnVec(&c.y, m, dy, CUDA_R_64F));
  PetscCallCUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, Ad, c.x, &beta, c.y, CUDA_R_64F, alg, &bsize));
  if (bsize) PetscCallCUDA(cudaMalloc(&c.buf, bsize));
  PetscCallCUSPARSE(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, Ad, c.x, &beta, c.y, CUDA_R_64F, alg, c.buf));
  PetscCall(CusparseMultFn(&c));
  PetscCallCUDA(cudaMemcpy(yh.data(), dy, sizeof(double) * m, cudaMemcpyDeviceToHost));
  PetscCall(RelErrArray(yh.data(), yref, &r->err));
  PetscCall(TimeSpMV(CusparseMultFn, &c, g_products, g_repeats, PETSC_TRUE, &r->hot_us, &r->cold_us));
  PetscCallCUDA(cudaMemcpy(yh.data(), dy, sizeof(double) * m, cudaMemcpyDeviceToHost));
  {
    double e2;
    PetscCall(RelErrArray(yh.data(), yref, &e2));
    r->err = PetscMax(r->err, e2);
  }
  r->status = ST_OK;
  PetscCallCUSPARSE(cusparseDestroyDnVec(c.x));
  PetscCallCUSPARSE(cusparseDestroyDnVec(c.y));
  if (c.buf) PetscCallCUDA(cudaFree(c.buf));
  PetscCallCUDA(cudaFree(dx));
  PetscCallCUDA(cudaFree(dy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCusparseCSR(cusparseHandle_t h, Mat A, Vec xh, Vec yref, FormatResult *r1, FormatResult *r2)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           m, n;
  PetscBool          done;
  int               *dia, *dja;
  double            *da;
  std::vector<int>   i32, j32;
  cusparseSpMatDescr_t Ad;
  PetscLogDouble       t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  i32.assign(ia, ia + m + 1);
  j32.assign(ja, ja + ia[m]);
  PetscCallCUDA(cudaMalloc((void **)&dia, sizeof(int) * (m + 1)));
  PetscCallCUDA(cudaMalloc((void **)&dja, sizeof(int) * PetscMax(ia[m], 1)));
  PetscCallCUDA(cudaMalloc((void **)&da, sizeof(double) * PetscMax(ia[m], 1)));
  PetscCallCUDA(cudaMemcpy(dia, i32.data(), sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(dja, j32.data(), sizeof(int) * ia[m], cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(da, a, sizeof(double) * ia[m], cudaMemcpyHostToDevice));
  PetscCallCUSPARSE(cusparseCreateCsr(&Ad, m, n, ia[m], dia, dja, da, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  r1->conv_s = r2->conv_s = t1 - t0;
  r1->bytes = r2->bytes = 12.0 * i32[m] + 4.0 * (m + 1) + 8.0 * n + 8.0 * m;
  PetscCall(RunCusparse(h, Ad, m, n, xh, yref, CUSPARSE_SPMV_CSR_ALG1, r1));
  PetscCall(RunCusparse(h, Ad, m, n, xh, yref, CUSPARSE_SPMV_CSR_ALG2, r2));
  PetscCallCUSPARSE(cusparseDestroySpMat(Ad));
  PetscCallCUDA(cudaFree(dia));
  PetscCallCUDA(cudaFree(dja));
  PetscCallCUDA(cudaFree(da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCusparseSELL(cusparseHandle_t h, Mat A, Vec xh, Vec yref, FormatResult *r)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           m, n;
  PetscBool          done;
  const int          S = 32;
  PetscInt           nslices;
  std::vector<int>   off;
  int               *doff, *dcol;
  double            *dval;
  cusparseSpMatDescr_t Ad;
  PetscLogDouble       t0, t1;
  PetscCount           slots = 0;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  nslices = (m + S - 1) / S;
  off.resize(nslices + 1);
  off[0] = 0;
  for (PetscInt s = 0; s < nslices; s++) {
    PetscInt w = 0;
    for (PetscInt i = s * S; i < PetscMin(m, (s + 1) * S); i++) w = PetscMax(w, ia[i + 1] - ia[i]);
    slots += (PetscCount)w * S;
    if (slots >= PETSC_INT_MAX) break;
    off[s + 1] = (int)slots;
  }
  if (slots >= PETSC_INT_MAX) {
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    r->status = ST_SKIPPED;
    r->note   = "sliced ELL needs more than 2^31 slots";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    std::vector<int>    col(slots, -1);
    std::vector<double> val(slots, 0.0);
    PetscCall(MatSeqAIJGetArrayRead(A, &a));
    for (PetscInt i = 0; i < m; i++) {
      PetscInt s = i / S, lane = i % S;
      for (PetscInt p = ia[i]; p < ia[i + 1]; p++) {
        size_t q = (size_t)off[s] + (size_t)(p - ia[i]) * S + lane;
        col[q]   = ja[p];
        val[q]   = a[p];
      }
    }
    PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
    PetscCallCUDA(cudaMalloc((void **)&doff, sizeof(int) * (nslices + 1)));
    PetscCallCUDA(cudaMalloc((void **)&dcol, sizeof(int) * PetscMax(slots, 1)));
    PetscCallCUDA(cudaMalloc((void **)&dval, sizeof(double) * PetscMax(slots, 1)));
    PetscCallCUDA(cudaMemcpy(doff, off.data(), sizeof(int) * (nslices + 1), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dcol, col.data(), sizeof(int) * slots, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dval, val.data(), sizeof(double) * slots, cudaMemcpyHostToDevice));
  }
  PetscCallCUSPARSE(cusparseCreateSlicedEll(&Ad, m, n, ia[m], slots, S, doff, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  r->note = "padding " + std::to_string((double)slots / PetscMax(ia[m], 1));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  r->conv_s = t1 - t0;
  PetscCall(RunCusparse(h, Ad, m, n, xh, yref, CUSPARSE_SPMV_SELL_ALG1, r));
  r->bytes = 12.0 * slots + 4.0 * (nslices + 1) + 8.0 * n + 8.0 * m;
  PetscCallCUSPARSE(cusparseDestroySpMat(Ad));
  PetscCallCUDA(cudaFree(doff));
  PetscCallCUDA(cudaFree(dcol));
  PetscCallCUDA(cudaFree(dval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* raw cuSPARSE BSR (issue 17's peer for block size 2..6): the matrix's block size (MatGetBlockSize, from the binary
   file's .info), blocks through PETSc's SeqBAIJ (column-major blocks, hence CUSPARSE_DIRECTION_COLUMN), cusparseDbsrmv */

struct BsrCtx {
  cusparseHandle_t   h;
  cusparseMatDescr_t d;
  int                mb, nb, nnzb, bs;
  int               *rp, *ci;
  double            *val, *x, *y;
};
static PetscErrorCode BsrMultFn(void *ctx)
{
  BsrCtx *c     = (BsrCtx *)ctx;
  double  alpha = 1.0, beta = 0.0;
  PetscCallCUSPARSE(cusparseDbsrmv(c->h, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, c->mb, c->nb, c->nnzb, &alpha, c->d, c->val, c->rp, c->ci, c->bs, c->x, &beta, c->y));
  return PETSC_SUCCESS;
}

static PetscErrorCode RunCusparseBSR(cusparseHandle_t h, Mat A, Vec xh, Vec yref, FormatResult *r)
{
  Mat                B;
  const PetscInt    *ia, *ja;
  PetscScalar       *a;
  PetscInt           m, n, bs, mb;
  PetscBool          done;
  BsrCtx             c;
  std::vector<int>   i32, j32;
  const PetscScalar *xa;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetBlockSize(A, &bs));
  if (bs < 2 || m % bs || n % bs) {
    r->status = ST_SKIPPED;
    r->note   = "block size " + std::to_string((int)bs) + ": no BSR";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCall(MatConvert(A, MATSEQBAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_TRUE, &mb, &ia, &ja, &done)); /* BAIJ: the block rows (block-compressed) */
  PetscCheck(done && mb == m / bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ on SeqBAIJ did not give the block rows");
  PetscCall(MatSeqBAIJGetArray(B, &a));
  i32.assign(ia, ia + mb + 1);
  j32.assign(ja, ja + ia[mb]);
  c.h    = h;
  c.mb   = (int)mb;
  c.nb   = (int)(n / bs);
  c.nnzb = (int)ia[mb];
  c.bs   = (int)bs;
  PetscCallCUSPARSE(cusparseCreateMatDescr(&c.d));
  PetscCallCUSPARSE(cusparseSetMatType(c.d, CUSPARSE_MATRIX_TYPE_GENERAL));
  PetscCallCUSPARSE(cusparseSetMatIndexBase(c.d, CUSPARSE_INDEX_BASE_ZERO));
  PetscCallCUDA(cudaMalloc((void **)&c.rp, sizeof(int) * (mb + 1)));
  PetscCallCUDA(cudaMalloc((void **)&c.ci, sizeof(int) * PetscMax(c.nnzb, 1)));
  PetscCallCUDA(cudaMalloc((void **)&c.val, sizeof(double) * PetscMax((size_t)c.nnzb * bs * bs, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&c.x, sizeof(double) * PetscMax(n, 1)));
  PetscCallCUDA(cudaMalloc((void **)&c.y, sizeof(double) * PetscMax(m, 1)));
  PetscCallCUDA(cudaMemcpy(c.rp, i32.data(), sizeof(int) * (mb + 1), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(c.ci, j32.data(), sizeof(int) * c.nnzb, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(c.val, a, sizeof(double) * (size_t)c.nnzb * bs * bs, cudaMemcpyHostToDevice));
  PetscCall(MatSeqBAIJRestoreArray(B, &a));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_TRUE, &mb, &ia, &ja, &done));
  PetscCall(VecGetArrayRead(xh, &xa));
  PetscCallCUDA(cudaMemcpy(c.x, xa, sizeof(double) * n, cudaMemcpyHostToDevice));
  PetscCall(VecRestoreArrayRead(xh, &xa));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  r->conv_s = t1 - t0;
  r->bytes  = (8.0 * bs * bs + 4.0) * c.nnzb + 4.0 * (mb + 1) + 8.0 * n + 8.0 * m;
  r->note   = "block size " + std::to_string((int)bs) + ", " + std::to_string(c.nnzb) + " blocks";
  {
    std::vector<double> yh(m);
    double              e2;
    PetscCall(BsrMultFn(&c));
    PetscCallCUDA(cudaMemcpy(yh.data(), c.y, sizeof(double) * m, cudaMemcpyDeviceToHost));
    PetscCall(RelErrArray(yh.data(), yref, &r->err));
    PetscCall(TimeSpMV(BsrMultFn, &c, g_products, g_repeats, PETSC_TRUE, &r->hot_us, &r->cold_us));
    PetscCallCUDA(cudaMemcpy(yh.data(), c.y, sizeof(double) * m, cudaMemcpyDeviceToHost));
    PetscCall(RelErrArray(yh.data(), yref, &e2));
    r->err = PetscMax(r->err, e2);
  }
  r->status = ST_OK;
  PetscCallCUSPARSE(cusparseDestroyMatDescr(c.d));
  PetscCallCUDA(cudaFree(c.rp));
  PetscCallCUDA(cudaFree(c.ci));
  PetscCallCUDA(cudaFree(c.val));
  PetscCallCUDA(cudaFree(c.x));
  PetscCallCUDA(cudaFree(c.y));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* PETSc SELLCUDA in a separate process (fork + exec of this program with -sell_child), killed after a timeout.
   exec, not a bare fork: a forked child cannot use CUDA once the parent has initialized it. */

extern char **environ;

static PetscErrorCode SellChild(const char *file)
{
  Mat          A;
  Vec          x, yref;
  PetscViewer  v;
  FormatResult r;

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(MatLoad(A, v));
  PetscCall(VecCreate(PETSC_COMM_SELF, &x));
  PetscCall(VecSetType(x, VECSEQ));
  PetscCall(VecLoad(x, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatCreateVecs(A, NULL, &yref));
  PetscCall(MatMult(A, x, yref));
  PetscCall(PetscGetCurrentCUDAStream(&g_stream));
  PetscCall(RunPetscFormat(A, MATSEQSELLCUDA, x, yref, g_products, g_repeats, PETSC_TRUE, &r, NULL));
  printf("SELLCUDA_RESULT %.9g %.9g %.9g %.9g\n", r.conv_s, r.hot_us, r.cold_us, r.err);
  fflush(stdout);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSellForked(Mat A, Vec xh, const char *tmpdir, double timeout, FormatResult *r)
{
  char        file[PETSC_MAX_PATH_LEN], sp[32], sr[32], exe[PETSC_MAX_PATH_LEN];
  PetscViewer v;
  int         fd[2];
  pid_t       pid;
  std::string out;
  PetscLogDouble t0, t;
  ssize_t        len;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s/spmv_bench_sell_%d.bin", tmpdir, (int)getpid()));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(VecView(xh, v));
  PetscCall(PetscViewerDestroy(&v));
  len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "readlink /proc/self/exe failed");
  exe[len] = 0;
  PetscCall(PetscSNPrintf(sp, sizeof(sp), "%" PetscInt_FMT, g_products));
  PetscCall(PetscSNPrintf(sr, sizeof(sr), "%" PetscInt_FMT, g_repeats));
  PetscCheck(pipe(fd) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "pipe failed");
  fflush(stdout);
  fflush(stderr);
  pid = fork();
  PetscCheck(pid >= 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "fork failed");
  if (pid == 0) {
    /* a fresh MPI singleton: drop what the parent's MPI put in the environment */
    std::vector<std::string> drop;
    for (char **e = environ; *e; e++)
      if (!strncmp(*e, "OMPI_", 5) || !strncmp(*e, "PMIX_", 5) || !strncmp(*e, "PRTE_", 5) || !strncmp(*e, "ORTE_", 5) || !strncmp(*e, "OPAL_", 5) || !strncmp(*e, "PMI_", 4) || !strncmp(*e, "HYDRA_", 6) || !strncmp(*e, "MPICH_", 6)) drop.push_back(std::string(*e).substr(0, strcspn(*e, "=")));
    for (auto &d : drop)
      if (d != "OMPI_ALLOW_RUN_AS_ROOT" && d != "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM") unsetenv(d.c_str());
    close(fd[0]);
    dup2(fd[1], 1);
    close(fd[1]);
    alarm((unsigned)(timeout + 5));
    execl(exe, exe, "-sell_child", file, "-products", sp, "-repeats", sr, "-cold_flush", g_flush_read ? "read" : "memset", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  PetscCall(PetscTime(&t0));
  for (;;) {
    struct pollfd p = {fd[0], POLLIN, 0};
    char          buf[4096];
    PetscCall(PetscTime(&t));
    int left = (int)(1000 * (timeout - (t - t0)));
    if (left <= 0) break;
    int rc = poll(&p, 1, left);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) break;
    ssize_t k = read(fd[0], buf, sizeof(buf));
    if (k <= 0) break;
    out.append(buf, (size_t)k);
  }
  close(fd[0]);
  PetscCall(PetscTime(&t));
  {
    int   status = 0;
    pid_t w      = waitpid(pid, &status, WNOHANG);
    if (w == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r->status = ST_TIMEOUT;
      r->note   = "conversion+timing exceeded " + std::to_string((int)timeout) + " s";
    } else {
      size_t q = out.find("SELLCUDA_RESULT");
      if (q != std::string::npos && sscanf(out.c_str() + q, "SELLCUDA_RESULT %lf %lf %lf %lf", &r->conv_s, &r->hot_us, &r->cold_us, &r->err) == 4) r->status = ST_OK;
      else {
        r->status = ST_ERROR;
        r->note   = "child exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status)) + " (MPI_Init failing in the child? use benchmarks/spmv/run_suite.sh)";
      }
    }
  }
  unlink(file);
  {
    std::string info = std::string(file) + ".info";
    unlink(info.c_str());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* ELLWARP: options */

/* the user's -mat_ellwarp_kernel and -mat_ellwarp_tune, restored after each configuration of ours; a configuration
   adds its keys to the user's -mat_ellwarp_tune (a key given twice: the last one counts) */
static const char *EwKeys[4] = {"-mat_ellwarp_kernel", "-mat_ellwarp_tune", "-mat_ellwarp_block", "-mat_ellwarp_block_lanes"};
static char        EwUser[4][1024];
static PetscBool   EwUserSet[4];

static PetscErrorCode EwSaveUserOptions(void)
{
  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) PetscCall(PetscOptionsGetString(NULL, NULL, EwKeys[k], EwUser[k], sizeof(EwUser[k]), &EwUserSet[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode EwRestoreUserOptions(void)
{
  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) {
    PetscCall(PetscOptionsClearValue(NULL, EwKeys[k]));
    if (EwUserSet[k]) PetscCall(PetscOptionsSetValue(NULL, EwKeys[k], EwUser[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* -mat_ellwarp_tune <the user's keys>,keys */
static PetscErrorCode EwSetTune(const char *keys)
{
  char buf[2048];
  PetscFunctionBegin;
  if (EwUserSet[1] && EwUser[1][0]) PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s,%s", EwUser[1], keys));
  else PetscCall(PetscStrncpy(buf, keys, sizeof(buf)));
  PetscCall(PetscOptionsSetValue(NULL, EwKeys[1], buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* kernel 1, 2: the scalar layout with K1 or K2 (-mat_ellwarp_block off); 3, 4: the blocked layout (matrices with a block
   size 2..6; -mat_ellwarp_block on) with the row or lane thread mapping, sw its sort window in block rows; for 3, thr
   is the lanes per block row (-mat_ellwarp_block_lanes; the mappings are those of T = 1), 4 is T = 1 */
static PetscErrorCode EwSetOptions(int kernel, int thr, int bs, int sw)
{
  char buf[128];
  PetscFunctionBegin;
  if (kernel >= 3) {
    PetscCall(PetscOptionsSetValue(NULL, EwKeys[2], "on"));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "block_map=%s,block_sort_window=%d", kernel == 3 ? "row" : "lane", sw));
    PetscCall(EwSetTune(buf));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", kernel == 3 && thr > 0 ? thr : 1));
    PetscCall(PetscOptionsSetValue(NULL, EwKeys[3], buf));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscOptionsSetValue(NULL, EwKeys[2], "off"));
  PetscCall(PetscOptionsSetValue(NULL, EwKeys[0], kernel == 1 ? "k1" : "k2"));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "threshold=%d,block_size=%d,sort_window=%d", kernel == 2 ? thr : 0, bs, sw));
  PetscCall(EwSetTune(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunEllwarpConfig(Mat A, Vec xh, Vec yref, int kernel, int thr, int bs, int sw, PetscInt nprod, PetscInt reps, PetscBool dohot, FormatResult *r, MatEllwarpInfo *info)
{
  Mat            B;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(EwSetOptions(kernel, thr, bs, sw));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = RunPetscFormat(A, MATSEQELLWARP, xh, yref, nprod, reps, dohot, r, &B);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    r->status = ST_ERROR;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatEllwarpGetInfo(B, info));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELLWARP with the options the caller has set (their text in r.note): a PETSc error is recorded in r, not raised; the
   bytes per product from the layout; "pattern not blocked" noted where the blocked layout was asked for (blocked) but
   the pattern fell back to the scalar layout.  Restores the user's options and appends r to res->f.  Used by the
   forced layouts of -formats block and blocklanes. */
static PetscErrorCode RunEllwarpForced(Mat A, Vec xh, Vec yref, PetscBool blocked, FormatResult r, MatrixResult *res)
{
  Mat            B = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = RunPetscFormat(A, MATSEQELLWARP, xh, yref, g_products, g_repeats, PETSC_TRUE, &r, &B);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    r.status = ST_ERROR;
    r.note += " (PETSc error " + std::to_string((int)ierr) + ")";
  } else {
    MatEllwarpInfo bi;
    PetscCall(MatEllwarpGetInfo(B, &bi));
    r.bytes = (double)bi.bytes_mult;
    if (blocked && bi.block == 1) r.note += " (pattern not blocked: scalar layout)";
  }
  PetscCall(MatDestroy(&B));
  PetscCall(EwRestoreUserOptions());
  res->f.push_back(r);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSweep(Mat A, Vec xh, Vec yref, double budget, MatrixResult *res)
{
  const int      thr[] = {4, 8, 16, 32, 64, 128}, bsz[] = {64, 128, 256, 512}, swin[] = {0, 256, 4096};
  std::vector<SweepPoint> pts;
  PetscLogDouble t0, t;
  int            nmismatch = 0, nwrong = 0;

  PetscFunctionBegin;
  /* order: block size 128/256 first (most likely best), so a budget cut keeps the useful part */
  for (int sw : swin)
    for (int bs : {128, 256, 64, 512}) {
      pts.push_back({1, 0, bs, sw, 0, 0, 0});
      for (int th : thr) pts.push_back({2, th, bs, sw, 0, 0, 0});
    }
  (void)bsz;
  if (res->bs >= 2 && res->bs <= 6) /* the blocked layout: T = 1..32 lanes (T = 1 in both mappings), three sort windows (block rows) */
    for (int sw : {256, 32, 4096})
      for (int k : {3, 4})
        for (int T : {1, 2, 4, 8, 16, 32})
          if (k == 3 || T == 1) pts.insert(pts.begin() + (sw == 256 ? 0 : pts.size()), {k, k == 3 ? T : 0, 128, sw, 0, 0, 0});
  res->sweep_total = (int)pts.size();
  res->best.cold_us = PETSC_MAX_REAL;
  PetscCall(PetscTime(&t0));
  for (auto &p : pts) {
    FormatResult   r;
    MatEllwarpInfo info;
    PetscCall(PetscTime(&t));
    if (t - t0 > budget) {
      res->sweep_note = "sweep budget reached after " + std::to_string(res->sweep.size()) + " of " + std::to_string(pts.size()) + " configurations";
      break;
    }
    PetscCall(RunEllwarpConfig(A, xh, yref, p.kernel, p.threshold, p.blocksize, p.sortwindow, g_sweep_products, 1, PETSC_FALSE, &r, &info));
    p.ok      = r.status == ST_OK && r.err <= 1e-12;
    p.cold_us = r.cold_us;
    p.err     = r.err;
    if (r.status == ST_OK) {
      MatEllwarpKernel want = p.kernel == 1 ? MAT_ELLWARP_KERNEL_K1 : MAT_ELLWARP_KERNEL_K2;
      if (p.kernel >= 3) {
        if (info.block != res->bs || info.block_lanes != (p.kernel == 3 ? p.threshold : 1)) nmismatch++;
      } else if (info.block != 1 || info.kernel != want || info.blocksize != p.blocksize || info.sortwindow != p.sortwindow || (p.kernel == 2 && info.threshold != p.threshold)) nmismatch++;
    }
    if (r.status == ST_OK && !p.ok) nwrong++;
    res->sweep.push_back(p);
    if (p.ok && p.cold_us < res->best.cold_us) res->best = p;
  }
  if (nmismatch) res->sweep_note += (res->sweep_note.empty() ? "" : "; ") + std::to_string(nmismatch) + " configurations reported other parameters by MatEllwarpGetInfo than requested";
  if (nwrong) res->sweep_note += (res->sweep_note.empty() ? "" : "; ") + std::to_string(nwrong) + " configurations gave WRONG results (rel err > 1e-12)";
  PetscCall(EwRestoreUserOptions());
  if (res->best.cold_us < PETSC_MAX_REAL) { /* re-time the best with the full settings, for a fair comparison with auto */
    FormatResult   r;
    MatEllwarpInfo info;
    PetscCall(RunEllwarpConfig(A, xh, yref, res->best.kernel, res->best.threshold, res->best.blocksize, res->best.sortwindow, g_products, g_repeats, PETSC_TRUE, &r, &info));
    if (r.status == ST_OK) {
      res->best_full_cold_us = r.cold_us;
      res->best_full_hot_us  = r.hot_us;
    }
    PetscCall(EwRestoreUserOptions());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sweep's best is the fastest of many noisy timings, and auto was timed once, earlier, on other allocations: on a
   product of a few microseconds the two can differ by the noise alone (two identical layouts measured 9.06 and 9.60 us
   in one run).  Paired re-timing: `rounds` times, auto and the best configuration each built afresh and timed cold,
   alternately; the medians over the rounds are compared. */
static PetscErrorCode PairAutoBest(Mat A, Vec xh, Vec yref, int rounds, MatrixResult *res)
{
  std::vector<double> ta, tb;

  PetscFunctionBegin;
  for (int k = 0; k < rounds; k++) {
    FormatResult   ra, rb;
    MatEllwarpInfo info;
    Mat            B = NULL;
    PetscCall(EwRestoreUserOptions());
    PetscCall(RunPetscFormat(A, MATSEQELLWARP, xh, yref, g_products, 1, PETSC_FALSE, &ra, &B));
    PetscCall(MatDestroy(&B));
    PetscCall(RunEllwarpConfig(A, xh, yref, res->best.kernel, res->best.threshold, res->best.blocksize, res->best.sortwindow, g_products, 1, PETSC_FALSE, &rb, &info));
    PetscCall(EwRestoreUserOptions());
    if (ra.status != ST_OK || rb.status != ST_OK) PetscFunctionReturn(PETSC_SUCCESS);
    ta.push_back(ra.cold_us);
    tb.push_back(rb.cold_us);
  }
  res->pair_auto_us = Median(ta);
  res->pair_best_us = Median(tb);
  res->pair_rounds  = rounds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */

static double GBs(double bytes, double us) { return us > 0 ? bytes / (us * 1e3) : 0; }

static FormatResult *Find(MatrixResult &m, const char *name)
{
  for (auto &f : m.f)
    if (f.name == name) return &f;
  return NULL;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* ELLWARP kernel variants (EllwarpTune): the automatic parameters plus the variant's -mat_ellwarp_tune keys; "default"
   re-measures the defaults among them (the noise of the comparison) */
static const char *const SpmvVariants[][2] = {
  {"default", ""},
  {"l2", "mult_lanes=2"},
  {"l4", "mult_lanes=4"},
  {"a2", "mult_acc=2"},
  {"a4", "mult_acc=4"},
  {"l2a2", "mult_lanes=2,mult_acc=2"},
  {"l4a2", "mult_lanes=4,mult_acc=2"},
  {"u8", "mult_unroll=8"},
  {"u8nc", "mult_unroll=8,mult_nc=1"},
  {"l2u8", "mult_lanes=2,mult_unroll=8"},
  {"a2u8", "mult_acc=2,mult_unroll=8"},
  {"nc", "mult_nc=1"},
  {"l2nc", "mult_lanes=2,mult_nc=1"},
  {"l4nc", "mult_lanes=4,mult_nc=1"},
  {"bs256", "block_size=256"},
  {"bs512", "block_size=512"},
  {"l2bs512", "mult_lanes=2,block_size=512"},
  {"lu8", "long_unroll=8"},
  /* layout parameters the sweep does not cover: the long-row limit (rows past it go to the chunked path) and
     sort windows between the sweep's 256 and 4096 (power-law rows: now 256 and 1024 by default) */
  {"lr64", "long_row=64"},
  {"lr128", "long_row=128"},
  {"lr256", "long_row=256"},
  {"lr512", "long_row=512"},
  {"sw1024", "sort_window=1024"},
  {"sw4096", "sort_window=4096"},
  {"lr512sw4096", "long_row=512,sort_window=4096"},
  {"lu1", "long_unroll=1"},
  /* the column modes: "default" has biased 16-bit slices where row-relative ones do not fit (qcd) */
  {"nobias", "compress_bias=0"},
  {"col32", "compress_columns=0"},
  /* MultKernelB: U steps' columns and values loaded before their x entries (p: and the next U steps' before them) */
  {"b2", "mult_batch=2"},
  {"b4", "mult_batch=4"},
  {"b8", "mult_batch=8"},
  {"b8bs256", "mult_batch=8,block_size=256"},
  {"b4p", "mult_batch=4,mult_prefetch=1"},
  {"b8p", "mult_batch=8,mult_prefetch=1"},
  {"b2r32", "mult_batch=2,mult_regs=32"},
  {"b4r32", "mult_batch=4,mult_regs=32"},
  {"b4r40", "mult_batch=4,mult_regs=40"},
  {"b8r32", "mult_batch=8,mult_regs=32"},
  {"b8r40", "mult_batch=8,mult_regs=40"},
  /* the blocked layout's kernels with U steps' block columns and x entries loaded together */
  {"bb2", "block_batch=2"},
  {"bb4", "block_batch=4"},
};

static PetscErrorCode RunVariants(Mat A, Vec xh, Vec yref, const char *list, MatrixResult *res)
{
  PetscFunctionBegin;
  /* not PETSC_STATIC_ARRAY_LENGTH: in C++ PETSc defines it as the extent of the LAST dimension (2 here) */
  for (size_t v = 0; v < sizeof(SpmvVariants) / sizeof(SpmvVariants[0]); v++) {
    std::string  l = std::string(",") + list + ",", key = std::string(",") + SpmvVariants[v][0] + ",";
    FormatResult r;
    Mat          B = NULL;
    PetscErrorCode ierr;
    if (strcmp(list, "all") && l.find(key) == std::string::npos) continue;
    r.name = std::string("ew_var_") + SpmvVariants[v][0];
    r.note = SpmvVariants[v][1][0] ? std::string("-mat_ellwarp_tune ") + SpmvVariants[v][1] : "(defaults)";
    PetscCall(EwRestoreUserOptions());
    if (SpmvVariants[v][1][0]) PetscCall(EwSetTune(SpmvVariants[v][1]));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = RunPetscFormat(A, MATSEQELLWARP, xh, yref, g_products, g_repeats, PETSC_FALSE, &r, &B);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      r.status = ST_ERROR;
      r.note += " (PETSc error " + std::to_string((int)ierr) + ")";
    }
    PetscCall(MatDestroy(&B));
    PetscCall(EwRestoreUserOptions());
    res->f.push_back(r);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static std::string Jd(double v)
{
  char b[64];
  if (!std::isfinite(v)) return "null";
  snprintf(b, sizeof(b), "%.6g", v);
  return b;
}

static void JsonFormat(FILE *fp, const FormatResult &f, double bytes, bool last)
{
  fprintf(fp, "        \"%s\": {\"status\": \"%s\", \"note\": \"%s\", \"conv_s\": %.6g, \"hot_us\": %.6g, \"cold_us\": %.6g, \"gbs_hot\": %.6g, \"gbs_cold\": %.6g, \"rel_err\": %s, \"bytes_moved\": %.0f, \"moved_gbs_cold\": %.6g}%s\n", f.name.c_str(), StatusName[f.status], f.note.c_str(), f.conv_s, f.hot_us, f.cold_us, GBs(bytes, f.hot_us), GBs(bytes, f.cold_us), Jd(f.err).c_str(), f.bytes, f.bytes > 0 ? GBs(f.bytes, f.cold_us) : 0.0, last ? "" : ",");
}

int main(int argc, char **argv)
{
  char                      variants[512] = "all";
  char                      sellchild[PETSC_MAX_PATH_LEN] = "", json[PETSC_MAX_PATH_LEN] = "", formats[256] = "ellwarp,sweep,aijcusparse,cusparse,sell32,sellcuda", sellmode[16] = "fork", tmpdir[PETSC_MAX_PATH_LEN] = "/tmp";
  PetscBool                 flg;
  PetscReal                 sweep_budget = 30, time_budget = 300, sell_timeout = 30;
  PetscInt                  pair_rounds  = 5;
  PetscInt                  sell_max_rows = 0, n;
  SuiteEntry                e[SUITE_MAX_ENTRIES];
  std::vector<MatrixResult> results;
  cusparseHandle_t          handle;
  cudaDeviceProp            prop;
  double                    copy_gbs = 0;
  PetscLogDouble            tstart, tnow;
  int                       dev, l2 = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-products", &g_products, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &g_repeats, NULL));
  {
    char      mode[16] = "memset";
    PetscBool set;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-cold_flush", mode, sizeof(mode), &set));
    PetscCheck(!strcmp(mode, "memset") || !strcmp(mode, "read"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-cold_flush %s: memset (the default: L2 left dirty) or read (L2 left clean)", mode);
    g_flush_read = (PetscBool)!strcmp(mode, "read");
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-sell_child", sellchild, sizeof(sellchild), &flg));
  if (flg) { /* child process for PETSc SELLCUDA */
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    g_flush_bytes = 2 * (size_t)PetscMax(l2, 1 << 20);
    PetscCallCUDA(cudaMalloc(&g_flush, g_flush_bytes));
    PetscCallCUDA(cudaMemset(g_flush, 0, g_flush_bytes));
    PetscCallCUDA(cudaMalloc(&g_flush_sink, 1024 * sizeof(double)));
    PetscCall(SellChild(sellchild));
    PetscCallCUDA(cudaFree(g_flush));
    PetscCallCUDA(cudaFree(g_flush_sink));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscTime(&tstart));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sweep_products", &g_sweep_products, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pair_rounds", &pair_rounds, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-formats", formats, sizeof(formats), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-variants", variants, sizeof(variants), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-sell_mode", sellmode, sizeof(sellmode), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tmpdir", tmpdir, sizeof(tmpdir), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sweep_budget", &sweep_budget, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-time_budget", &time_budget, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sell_timeout", &sell_timeout, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sell_max_rows", &sell_max_rows, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peak_gbs", &g_peak_gbs, NULL));
  PetscCall(EwSaveUserOptions());
  auto want = [&](const char *f) {
    std::string s = std::string(",") + formats + ",";
    return s.find(std::string(",") + f + ",") != std::string::npos;
  };

  /* device, stream, flush buffer, copy bandwidth */
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscGetCurrentCUDAStream(&g_stream));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  g_flush_bytes = 2 * (size_t)PetscMax(l2, 1 << 20);
  PetscCallCUDA(cudaMalloc(&g_flush, g_flush_bytes));
  PetscCallCUDA(cudaMemset(g_flush, 0, g_flush_bytes));
  PetscCallCUDA(cudaMalloc(&g_flush_sink, 1024 * sizeof(double)));
  PetscCallCUSPARSE(cusparseCreate(&handle));
  PetscCallCUSPARSE(cusparseSetStream(handle, g_stream));
  {
    const size_t        nb = (size_t)1 << 30;
    void               *s, *d;
    cudaEvent_t         a, b;
    std::vector<double> t;
    PetscCallCUDA(cudaMalloc(&s, nb));
    PetscCallCUDA(cudaMalloc(&d, nb));
    PetscCallCUDA(cudaMemset(s, 1, nb));
    PetscCallCUDA(cudaEventCreate(&a));
    PetscCallCUDA(cudaEventCreate(&b));
    for (int k = 0; k < 12; k++) {
      float ms;
      PetscCallCUDA(cudaEventRecord(a, g_stream));
      PetscCallCUDA(cudaMemcpyAsync(d, s, nb, cudaMemcpyDeviceToDevice, g_stream));
      PetscCallCUDA(cudaEventRecord(b, g_stream));
      PetscCallCUDA(cudaEventSynchronize(b));
      PetscCallCUDA(cudaEventElapsedTime(&ms, a, b));
      if (k >= 2) t.push_back(2.0 * nb / (ms * 1e6));
    }
    copy_gbs = Median(t);
    PetscCallCUDA(cudaEventDestroy(a));
    PetscCallCUDA(cudaEventDestroy(b));
    PetscCallCUDA(cudaFree(s));
    PetscCallCUDA(cudaFree(d));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# device %s, L2 %d MiB, device-to-device copy %.1f GB/s (read+write), %" PetscInt_FMT " products x %" PetscInt_FMT " repeats, cold = L2 flushed (%zu MiB %s) before each product\n", prop.name, l2 >> 20, copy_gbs, g_products, g_repeats, g_flush_bytes >> 20, g_flush_read ? "read" : "memset"));

  PetscCall(SuiteGetEntries(&n, e));
  for (PetscInt i = 0; i < n; i++) {
    MatrixResult   res;
    Mat            A;
    Vec            xh, yref;
    PetscRandom    rnd;
    PetscLogDouble t0, t1;
    MatInfo        minfo;
    PetscErrorCode ierr;

    res.e = e[i];
    PetscCall(PetscTime(&t0));
    PetscCall(SuiteBuildMatrix(&e[i], &A));
    PetscCall(PetscTime(&t1));
    res.gen_s = t1 - t0;
    PetscCall(MatGetSize(A, &res.rows, &res.cols));
    PetscCall(MatGetBlockSize(A, &res.bs));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &minfo));
    res.nnz = (PetscCount)minfo.nz_used;
    PetscCall(SuiteRowStats(A, &res.minlen, &res.maxlen, &res.mean, &res.sd));
    res.csr_bytes = 12.0 * res.nnz + 8.0 * res.cols + 8.0 * res.rows;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# [%6.1f s] %s: %" PetscInt_FMT " rows, %" PetscCount_FMT " nnz, row length %" PetscInt_FMT "..%" PetscInt_FMT " mean %.2f std %.2f, generated in %.2f s\n", t1 - tstart, e[i].name, res.rows, res.nnz, res.minlen, res.maxlen, (double)res.mean, (double)res.sd, res.gen_s));
    PetscCall(MatCreateVecs(A, &xh, &yref));
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(PetscRandomSetSeed(rnd, 42));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(xh, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(MatMult(A, xh, yref));

    /* 1. ELLWARP, automatic parameters */
    if (want("ellwarp")) {
      FormatResult r;
      Mat          B = NULL;
      r.name = "ellwarp_auto";
      PetscCall(EwRestoreUserOptions());
      ierr = RunPetscFormat(A, MATSEQELLWARP, xh, yref, g_products, g_repeats, PETSC_TRUE, &r, &B);
      if (ierr) {
        r.status = ST_ERROR;
        r.note   = "PETSc error " + std::to_string((int)ierr);
      } else {
        PetscCall(MatEllwarpGetInfo(B, &res.info));
        res.have_info = PETSC_TRUE;
        r.bytes       = (double)res.info.bytes_mult;
        PetscCall(MatDestroy(&B));
      }
      res.f.push_back(r);
    }
    /* 1'. the streaming bound at ELLWARP's bytes (-formats readbound; above StreamReadWrite) */
    if (want("readbound") && res.have_info && res.info.bytes_mult > 0) {
      FormatResult r;
      StreamCtx    c;
      int          dev, nsm;
      size_t       wbytes = 8 * (size_t)res.rows, rbytes = (size_t)res.info.bytes_mult > wbytes ? (size_t)res.info.bytes_mult - wbytes : 0;
      r.name    = "read_ew_bytes";
      r.note    = "streaming read of ELLWARP's read bytes and write of its y";
      c.nread   = (rbytes + 15) / 16;
      c.nwrite  = (size_t)res.rows;
      PetscCallCUDA(cudaGetDevice(&dev));
      PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
      c.grid = 8 * nsm; /* 2048 resident threads per SM */
      PetscCallCUDA(cudaMalloc((void **)&c.src, 16 * PetscMax(c.nread, (size_t)1)));
      PetscCallCUDA(cudaMalloc((void **)&c.dst, 8 * PetscMax(c.nwrite, (size_t)1)));
      PetscCallCUDA(cudaMemset((void *)c.src, 0, 16 * PetscMax(c.nread, (size_t)1)));
      PetscCall(TimeSpMV(StreamMultFn, &c, g_products, g_repeats, PETSC_TRUE, &r.hot_us, &r.cold_us));
      PetscCallCUDA(cudaFree((void *)c.src));
      PetscCallCUDA(cudaFree(c.dst));
      r.status = ST_OK;
      r.err    = 0;
      r.bytes  = 16.0 * c.nread + 8.0 * c.nwrite;
      res.f.push_back(r);
    }
    if (want("block") && res.bs >= 2 && res.bs <= 6) { /* matrices with block size 2..6 only */
      const char *names[3] = {"ellwarp_block_row", "ellwarp_block_lane", "ellwarp_scalar"};
      for (int k = 0; k < 3; k++) {
        FormatResult r;
        r.name = names[k];
        PetscCall(EwRestoreUserOptions());
        if (k < 2) {
          PetscCall(PetscOptionsSetValue(NULL, EwKeys[2], "on"));
          PetscCall(PetscOptionsSetValue(NULL, EwKeys[3], "1")); /* the mappings of one thread per block row */
          PetscCall(EwSetTune(k == 0 ? "block_map=row" : "block_map=lane"));
          r.note = std::string("-mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune block_map=") + (k == 0 ? "row" : "lane");
        } else {
          PetscCall(PetscOptionsSetValue(NULL, EwKeys[2], "off"));
          r.note = "-mat_ellwarp_block off";
        }
        PetscCall(RunEllwarpForced(A, xh, yref, k < 2 ? PETSC_TRUE : PETSC_FALSE, r, &res));
      }
    }
    /* 2. ELLWARP exhaustive */
    if (want("sweep")) {
      PetscCall(PetscTime(&tnow));
      if (tnow - tstart > time_budget) res.sweep_note = "sweep skipped: global -time_budget exceeded";
      else {
        PetscCall(RunSweep(A, xh, yref, sweep_budget, &res));
        if (pair_rounds > 0 && res.best_full_cold_us > 0 && Find(res, "ellwarp_auto") && Find(res, "ellwarp_auto")->status == ST_OK) PetscCall(PairAutoBest(A, xh, yref, (int)pair_rounds, &res));
      }
    }
    /* 3. AIJCUSPARSE */
    if (want("aijcusparse")) {
      FormatResult r;
      r.name = "aijcusparse";
      ierr = RunPetscFormat(A, MATSEQAIJCUSPARSE, xh, yref, g_products, g_repeats, PETSC_TRUE, &r, NULL);
      if (ierr) r.status = ST_ERROR;
      r.bytes = 12.0 * res.nnz + 4.0 * (res.rows + 1) + 8.0 * res.cols + 8.0 * res.rows;
      res.f.push_back(r);
    }
    /* 4. raw cuSPARSE CSR */
    if (want("cusparse")) {
      FormatResult r1, r2;
      r1.name = "cusparse_csr_alg1";
      r2.name = "cusparse_csr_alg2";
      ierr = RunCusparseCSR(handle, A, xh, yref, &r1, &r2);
      if (ierr) {
        if (r1.status == ST_NOTRUN) r1.status = ST_ERROR;
        if (r2.status == ST_NOTRUN) r2.status = ST_ERROR;
      }
      res.f.push_back(r1);
      res.f.push_back(r2);
    }
    /* 5. cuSPARSE sliced ELL */
    if (want("sell32")) {
      FormatResult r;
      r.name = "cusparse_sell32";
      ierr = RunCusparseSELL(handle, A, xh, yref, &r);
      if (ierr) r.status = ST_ERROR;
      res.f.push_back(r);
    }
    /* 5a. cuSPARSE BSR (block size > 1) */
    if (want("bsr")) {
      FormatResult r;
      r.name = "cusparse_bsr";
      ierr   = RunCusparseBSR(handle, A, xh, yref, &r);
      if (ierr) r.status = ST_ERROR;
      res.f.push_back(r);
    }
    /* 5b. ELLWARP kernel variants */
    if (want("variants")) PetscCall(RunVariants(A, xh, yref, variants, &res));
    /* 6. PETSc SELLCUDA */
    if (want("sellcuda")) {
      FormatResult r;
      r.name = "petsc_sellcuda";
      if (!strcmp(sellmode, "skip") || (sell_max_rows > 0 && res.rows > sell_max_rows)) {
        r.status = ST_SKIPPED;
        r.note   = strcmp(sellmode, "skip") ? "rows > -sell_max_rows" : "-sell_mode skip";
      } else {
          if (!strcmp(sellmode, "inline")) {
            Mat S = NULL;
            ierr  = RunPetscFormat(A, MATSEQSELLCUDA, xh, yref, g_products, g_repeats, PETSC_TRUE, &r, &S);
            if (!ierr && S) { /* slots from the padding ratio (slots - nnz) / slots; values 8 + columns 4 per slot, slice offsets */
              PetscReal pad;
              PetscCall(MatSeqSELLGetFillRatio(S, &pad));
              r.bytes = (pad < 1 ? 12.0 * res.nnz / (1.0 - pad) : 0) + 8.0 * res.cols + 8.0 * res.rows;
              PetscCall(MatDestroy(&S));
            }
          }
        else ierr = RunSellForked(A, xh, tmpdir, sell_timeout, &r);
          if (ierr) r.status = ST_ERROR;
      }
      res.f.push_back(r);
    }
    {
      FormatResult *a1 = Find(res, "cusparse_csr_alg1"), *a2 = Find(res, "cusparse_csr_alg2");
      if (a1 && a2) {
        FormatResult b = (a2->status == ST_OK && (a1->status != ST_OK || a2->cold_us < a1->cold_us)) ? *a2 : *a1;
        b.note = "best of " + std::string(b.name == "cusparse_csr_alg1" ? "ALG1" : "ALG2") + " by cold time";
        b.name = "cusparse_csr_best";
        res.f.push_back(b);
      }
    }
    /* 1b. ELLWARP, the blocked layout forced with T lanes per block row (-mat_ellwarp_block on -mat_ellwarp_block_lanes T,
       T = 1..32): -formats blocklanes */
    if (want("blocklanes") && res.bs >= 2 && res.bs <= 6) {
      for (int T = 1; T <= 32; T *= 2) {
        FormatResult r;
        char         t[8];
        r.name = "ellwarp_block_T" + std::to_string(T);
        PetscCall(EwRestoreUserOptions());
        PetscCall(PetscOptionsSetValue(NULL, EwKeys[2], "on"));
        PetscCall(PetscSNPrintf(t, sizeof(t), "%d", T));
        PetscCall(PetscOptionsSetValue(NULL, EwKeys[3], t));
        r.note = std::string("-mat_ellwarp_block on -mat_ellwarp_block_lanes ") + t;
        PetscCall(RunEllwarpForced(A, xh, yref, PETSC_TRUE, r, &res));
      }
    }
    /* table */
    /* GB/s_cold/hot: the CSR byte count of the suite; MB_moved: the format's own bytes (matrix as stored, x, y),
       moved_GB/s and %peak (of -peak_gbs) from it and the cold time */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-20s %-8s %10s %10s %9s %9s %9s %10s %9s %10s %6s\n", "format", "status", "cold_us", "hot_us", "GB/s_cold", "GB/s_hot", "conv_s", "rel_err", "MB_moved", "moved_GB/s", "%peak"));
    for (auto &f : res.f)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-20s %-8s %10.2f %10.2f %9.1f %9.1f %9.3f %10.2e %9.2f %10.1f %6.1f%s %s\n", f.name.c_str(), StatusName[f.status], f.cold_us, f.hot_us, GBs(res.csr_bytes, f.cold_us), GBs(res.csr_bytes, f.hot_us), f.conv_s, f.err, f.bytes / 1e6, f.bytes > 0 ? GBs(f.bytes, f.cold_us) : 0.0,
                            f.bytes > 0 && f.cold_us > 0 ? 100.0 * GBs(f.bytes, f.cold_us) / g_peak_gbs : 0.0, (f.status == ST_OK && f.err > 1e-12) ? " !!WRONG" : "", f.note.c_str()));
    if (res.have_info)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ellwarp auto: kernel %s threshold %" PetscInt_FMT " block %" PetscInt_FMT " sort window %" PetscInt_FMT " nsplit %" PetscInt_FMT ", padding nslots/nnz %.3f, own bytes/mult %.3g (CSR count %.3g), slices %" PetscInt_FMT ": 16-bit %" PetscInt_FMT " (biased %" PetscInt_FMT "); products on block size %" PetscInt_FMT " lanes %" PetscInt_FMT " (blocked bytes/mult %.3g)\n", res.info.kernel == MAT_ELLWARP_KERNEL_K1 ? "k1" : "k2", res.info.threshold, res.info.blocksize, res.info.sortwindow, res.info.nsplit,
                            (double)res.info.nslots / PetscMax((double)res.info.nnz, 1.0), (double)res.info.bytes_mult, res.csr_bytes, res.info.nslices, res.info.n16, res.info.nbias, res.info.block, res.info.block_lanes, (double)res.info.bytes_mult_block));
    if (!res.sweep.empty()) {
      FormatResult *au = Find(res, "ellwarp_auto");
      if (res.best_full_cold_us > 0)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ellwarp sweep: %zu/%d configs, best %s thr %d bs %d sw %d: %.2f us cold (%.1f GB/s); auto/best = %.3f -> %s\n", res.sweep.size(), res.sweep_total, res.best.kernel == 1 ? "k1" : (res.best.kernel == 2 ? "k2" : (res.best.kernel == 3 ? "blocked-row(thr=T lanes)" : "blocked-lane")), res.best.threshold, res.best.blocksize, res.best.sortwindow, res.best_full_cold_us, GBs(res.csr_bytes, res.best_full_cold_us),
                              au && au->status == ST_OK ? au->cold_us / res.best_full_cold_us : 0.0, au && au->status == ST_OK && au->cold_us <= 1.05 * res.best_full_cold_us ? "auto within 5%" : "auto NOT within 5%"));
      else PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ellwarp sweep: no valid configuration\n"));
      if (res.pair_rounds)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ellwarp paired re-timing (%d rounds, auto and best alternately, fresh matrices, cold): auto %.2f us, best %.2f us; auto/best = %.3f -> %s\n", res.pair_rounds, res.pair_auto_us, res.pair_best_us, res.pair_auto_us / res.pair_best_us, res.pair_auto_us <= 1.05 * res.pair_best_us ? "auto within 5%" : "auto NOT within 5%"));
    }
    if (!res.sweep_note.empty()) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  note: %s\n", res.sweep_note.c_str()));
    {
      FormatResult *au = Find(res, "ellwarp_auto"), *cs = Find(res, "aijcusparse"), *rb = Find(res, "cusparse_csr_best");
      if (au && au->status == ST_OK)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  speedup (cold): ELLWARP vs AIJCUSPARSE %.2fx, vs best raw cuSPARSE CSR %.2fx\n", cs && cs->status == ST_OK ? cs->cold_us / au->cold_us : 0.0, rb && rb->status == ST_OK ? rb->cold_us / au->cold_us : 0.0));
    }
    { /* the variants against the peers of this run: ratios of cold times (> 1: the variant is faster) */
      FormatResult *au = Find(res, "ellwarp_auto"), *cs = Find(res, "aijcusparse"), *rb = Find(res, "cusparse_csr_best"), *se = Find(res, "cusparse_sell32");
      auto          ratio = [](FormatResult *peer, FormatResult &f) { return peer && peer->status == ST_OK && f.status == ST_OK ? peer->cold_us / f.cold_us : 0.0; };
      for (auto &f : res.f) {
        if (f.name.rfind("ew_var_", 0)) continue;
        double best = 0; /* against the best peer (cuSPARSE CSR, sliced ELL, AIJCUSPARSE) */
        for (FormatResult *p : {cs, rb, se})
          if (p && p->status == ST_OK && f.status == ST_OK) best = best == 0 ? p->cold_us / f.cold_us : PetscMin(best, p->cold_us / f.cold_us);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "VARIANT %-18s %-10s %8s %9.2f us %8.1f GB/s  /auto %.3f  /aijcsp %.3f  /csr %.3f  /sell32 %.3f  /bestpeer %.3f  err %.1e  %s\n", res.e.name, f.name.c_str() + 7, StatusName[f.status], f.cold_us, GBs(res.csr_bytes, f.cold_us), ratio(au, f), ratio(cs, f), ratio(rb, f), ratio(se, f), best, f.err, f.note.c_str()));
      }
    }
    results.push_back(res);
    PetscCall(VecDestroy(&xh));
    PetscCall(VecDestroy(&yref));
    PetscCall(MatDestroy(&A));
  }

  /* summary */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n# summary, effective bandwidth (GB/s, CSR byte count 12 nnz + 8 ncols + 8 nrows), cold; copy bandwidth %.0f GB/s\n", copy_gbs));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-20s %9s %11s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s\n", "matrix", "rows", "nnz", "ew_auto", "ew_best", "aijcsp", "csr_raw", "sell32", "sellcu", "pad", "ew/aij", "ew/raw", "auto5%"));
  for (auto &r : results) {
    auto g = [&](const char *nm) {
      FormatResult *f = Find(r, nm);
      return f && f->status == ST_OK ? GBs(r.csr_bytes, f->cold_us) : 0.0;
    };
    FormatResult *au = Find(r, "ellwarp_auto"), *cs = Find(r, "aijcusparse"), *rb = Find(r, "cusparse_csr_best");
    double        ra = (au && cs && au->status == ST_OK && cs->status == ST_OK) ? cs->cold_us / au->cold_us : 0, rr = (au && rb && au->status == ST_OK && rb->status == ST_OK) ? rb->cold_us / au->cold_us : 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-20s %9" PetscInt_FMT " %11" PetscCount_FMT " %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.3f %7.2f %7.2f %7s\n", r.e.name, r.rows, r.nnz, g("ellwarp_auto"), r.best_full_cold_us > 0 ? GBs(r.csr_bytes, r.best_full_cold_us) : 0.0, g("aijcusparse"), g("cusparse_csr_best"), g("cusparse_sell32"), g("petsc_sellcuda"),
                          r.have_info ? (double)r.info.nslots / PetscMax((double)r.info.nnz, 1.0) : 0.0, ra, rr, r.pair_rounds ? (r.pair_auto_us <= 1.05 * r.pair_best_us ? "yes" : "no") : (r.best_full_cold_us > 0 && au && au->status == ST_OK ? (au->cold_us <= 1.05 * r.best_full_cold_us ? "yes" : "no") : "-")));
  }
  /* summary of the bytes really moved (issue 17): each format's own byte count over its cold time, % of -peak_gbs */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n# summary, bytes really moved per product (matrix as stored, x, y): MB and %% of %.0f GB/s (cold); ratios of cold times\n", g_peak_gbs));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %3s %8s %8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s\n", "matrix", "bs", "ew_MB", "csr_MB", "ew%pk", "aij%pk", "csr%pk", "sell%pk", "scu%pk", "bsr%pk", "ew/aij", "ew/bsr", "ew/best", "rd%pk", "ew/rd"));
  for (auto &r : results) {
    auto pk = [&](const char *nm) {
      FormatResult *f = Find(r, nm);
      return f && f->status == ST_OK && f->bytes > 0 ? 100.0 * GBs(f->bytes, f->cold_us) / g_peak_gbs : 0.0;
    };
    auto          ok = [&](FormatResult *f) { return f && f->status == ST_OK && f->cold_us > 0; };
    FormatResult *au = Find(r, "ellwarp_auto"), *cs = Find(r, "aijcusparse"), *bs = Find(r, "cusparse_bsr");
    double        best = 0; /* the fastest peer's time over ELLWARP's */
    for (const char *nm : {"aijcusparse", "cusparse_csr_best", "cusparse_sell32", "petsc_sellcuda", "cusparse_bsr"}) {
      FormatResult *p = Find(r, nm);
      if (ok(p) && ok(au)) best = best == 0 ? p->cold_us / au->cold_us : PetscMin(best, p->cold_us / au->cold_us);
    }
    FormatResult *rd = Find(r, "read_ew_bytes"); /* ew/rd: the streaming bound's cold time over ELLWARP's, the fraction of the bound reached */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-24s %3d %8.2f %8.2f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.2f %7.2f %8.2f %7.1f %7.3f\n", r.e.name, (int)r.bs, au ? au->bytes / 1e6 : 0.0, (12.0 * r.nnz + 4.0 * (r.rows + 1) + 8.0 * r.cols + 8.0 * r.rows) / 1e6, pk("ellwarp_auto"), pk("aijcusparse"), pk("cusparse_csr_best"), pk("cusparse_sell32"), pk("petsc_sellcuda"), pk("cusparse_bsr"),
                          ok(au) && ok(cs) ? cs->cold_us / au->cold_us : 0.0, ok(au) && ok(bs) ? bs->cold_us / au->cold_us : 0.0, best, pk("read_ew_bytes"), ok(au) && ok(rd) ? rd->cold_us / au->cold_us : 0.0));
  }
  PetscCall(PetscTime(&tnow));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# total %.1f s\n", tnow - tstart));

  if (json[0]) {
    FILE *fp = fopen(json, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", json);
    fprintf(fp, "{\n  \"device\": \"%s\", \"l2_bytes\": %d, \"copy_gbs\": %.6g, \"products\": %d, \"repeats\": %d, \"sweep_products\": %d, \"total_s\": %.3f,\n", prop.name, l2, copy_gbs, (int)g_products, (int)g_repeats, (int)g_sweep_products, tnow - tstart);
    fprintf(fp, "  \"bytes_model\": \"12*nnz + 8*ncols + 8*nrows\",\n  \"matrices\": [\n");
    for (size_t k = 0; k < results.size(); k++) {
      MatrixResult &r = results[k];
      fprintf(fp, "    {\"name\": \"%s\", \"kind\": \"%s\", \"desc\": \"%s\", \"rows\": %d, \"cols\": %d, \"nnz\": %lld, \"minrow\": %d, \"maxrow\": %d, \"meanrow\": %.4f, \"stdrow\": %.4f, \"gen_s\": %.3f, \"csr_bytes\": %.0f,\n", r.e.name, r.e.kind, r.e.desc, (int)r.rows, (int)r.cols, (long long)r.nnz, (int)r.minlen, (int)r.maxlen, (double)r.mean, (double)r.sd, r.gen_s, r.csr_bytes);
      if (r.have_info)
        fprintf(fp, "      \"ellwarp_info\": {\"kernel\": \"%s\", \"threshold\": %d, \"blocksize\": %d, \"sortwindow\": %d, \"nslices\": %d, \"nsplit\": %d, \"nslots\": %lld, \"nnz\": %lld, \"padding\": %.5f, \"bytes_mult\": %.0f, \"n16\": %d, \"nbias\": %d},\n", r.info.kernel == MAT_ELLWARP_KERNEL_K1 ? "k1" : "k2", (int)r.info.threshold, (int)r.info.blocksize, (int)r.info.sortwindow, (int)r.info.nslices, (int)r.info.nsplit, (long long)r.info.nslots, (long long)r.info.nnz,
                (double)r.info.nslots / PetscMax((double)r.info.nnz, 1.0), (double)r.info.bytes_mult, (int)r.info.n16, (int)r.info.nbias);
      fprintf(fp, "      \"sweep\": {\"tried\": %zu, \"total\": %d, \"note\": \"%s\"", r.sweep.size(), r.sweep_total, r.sweep_note.c_str());
      if (r.best_full_cold_us > 0) {
        FormatResult *au = Find(r, "ellwarp_auto");
        fprintf(fp, ", \"best\": {\"kernel\": \"k%d\", \"threshold\": %d, \"blocksize\": %d, \"sortwindow\": %d, \"cold_us\": %.6g, \"hot_us\": %.6g, \"gbs_cold\": %.6g}, \"auto_over_best\": %.5g, \"auto_within_5pct\": %s", r.best.kernel, r.best.threshold, r.best.blocksize, r.best.sortwindow, r.best_full_cold_us, r.best_full_hot_us, GBs(r.csr_bytes, r.best_full_cold_us),
                au && au->status == ST_OK ? au->cold_us / r.best_full_cold_us : 0.0, au && au->status == ST_OK && au->cold_us <= 1.05 * r.best_full_cold_us ? "true" : "false");
        if (r.pair_rounds) fprintf(fp, ", \"paired\": {\"rounds\": %d, \"auto_us\": %.6g, \"best_us\": %.6g, \"auto_over_best\": %.5g, \"auto_within_5pct\": %s}", r.pair_rounds, r.pair_auto_us, r.pair_best_us, r.pair_auto_us / r.pair_best_us, r.pair_auto_us <= 1.05 * r.pair_best_us ? "true" : "false");
      }
      fprintf(fp, ", \"points\": [");
      for (size_t q = 0; q < r.sweep.size(); q++) fprintf(fp, "%s[\"k%d\", %d, %d, %d, %s, %s]", q ? ", " : "", r.sweep[q].kernel, r.sweep[q].threshold, r.sweep[q].blocksize, r.sweep[q].sortwindow, Jd(r.sweep[q].cold_us).c_str(), Jd(r.sweep[q].err).c_str());
      fprintf(fp, "]},\n      \"formats\": {\n");
      for (size_t q = 0; q < r.f.size(); q++) JsonFormat(fp, r.f[q], r.csr_bytes, q + 1 == r.f.size());
      fprintf(fp, "      }\n    }%s\n", k + 1 == results.size() ? "" : ",");
    }
    fprintf(fp, "  ]\n}\n");
    fclose(fp);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s\n", json));
  }
  PetscCallCUSPARSE(cusparseDestroy(handle));
  PetscCallCUDA(cudaFree(g_flush));
  PetscCallCUDA(cudaFree(g_flush_sink));
  PetscCall(SuiteFinalize());
  PetscCall(PetscFinalize());
  return 0;
}
