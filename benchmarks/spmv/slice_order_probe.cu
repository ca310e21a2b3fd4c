/* slice_order_probe: what in MatSeqELLWARP's product (MultKernelB, ellwarpmultcuda.cu) keeps it under the streaming
   bound of its bytes (issue 17: 0.81-0.89 of it, nothing saturated; benchmarks/results/spmv-h100-dmplex/
   latency-profile/).  No PETSc: the product's access pattern -- one warp per 32-row slice, U steps of a lane in
   flight (U 16-bit column offsets and U values, then U gathers of x, then U FMAs) -- timed against a grid-stride
   stream of the same bytes (16-byte loads, every SM full), cold after a memset or a read flush of 2 x L2.

   Synthetic slices (default): each feature of the real product added in turn, and alternatives tried on it:
     slice       slices of one width W, steps of a slice contiguous (the ELLWARP layout); U = 4, or 8 (slice-u8)
     group       the G slices of a thread block interleaved by step (at any moment a block's warps read one run)
     bias        a per-step bias from a table (the biased 16-bit mode); bias4: one 16-byte load a batch
     meta        the slice's first slot, width and rows from its tables (sliceptr, slicerow, rowperm)
     /256, /128  256- and 128-thread blocks instead of 512
     pfN         lane 0 has the copy engine prefetch the values and columns N batches ahead into L2
                 (cp.async.bulk.prefetch.L2)
     ldg, ldcg, ldlu   other cache operators for the values and columns than .cs
   on widths 15, 28, 64 and on the box Q2 scalar matrix's four row lengths in three orders and with its longest
   slices split.
   -layout FILE...: the same kernel (U = 2, 4, 8; 128-512 threads) on a real layout written by
   benchmarks/layout/layout_dump, and with x read at the lane's own row (rowx) or y written unscattered (ysorted).

   Build: nvcc -O3 -arch=sm_90 slice_order_probe.cu -o slice_order_probe (CMake builds it with the benchmarks)
   Run:   slice_order_probe [slices] (default 10266, the box Q2 scalar matrix's slice count at 0.33 M rows)
          slice_order_probe -layout a.lay [b.lay ...]
   Results: benchmarks/results/spmv-h100-dmplex/access-pattern-probe/. */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cstring>
#include <cuda_runtime.h>
#include "flushread.cuh" /* FlushRead: the read flush, as spmv_bench's */

#define CK(x) \
  do { \
    cudaError_t e_ = (x); \
    if (e_ != cudaSuccess) { \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1); \
    } \
  } while (0)

__device__ __forceinline__ void Prefetch(const void *p, int bytes)
{
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}

/* LD: the cache operator of the value and column loads: 0 .cs (evict first: MultKernelB's), 1 .nc (__ldg), 2 .cg
   (L2 only), 3 .lu (last use) */
template <int LD, typename T>
__device__ __forceinline__ T Load(const T *p)
{
  if (LD == 1) return __ldg(p);
  if (LD == 2) return __ldcg(p);
  if (LD == 3) return __ldlu(p);
  return __ldcs(p);
}

/* BIAS: a per-step bias of the slice loaded from a small table (ELLWARP's biased 16-bit mode; the same address for
   the warp): 1 one load a step, 4 one 16-byte load a batch of U = 4 (the table padded to 4 entries a slice).  META: the slice's first slot, width and rows come from its tables (sliceptr, slicerow, rowperm), as in
   SliceLaneOf, instead of being computed from s. */
template <int U, bool GROUP, int BIAS, bool META, int PF, int LD>
__global__ void __launch_bounds__(512, 3) SliceProduct(int nslices, int W, const long long *__restrict__ sliceptr, const int *__restrict__ slicerow, const int *__restrict__ rowperm, const int *__restrict__ bias, const int *__restrict__ biasbase, const double *__restrict__ val, const short *__restrict__ col, const double *__restrict__ x, double *y)
{
  const int lane = threadIdx.x & 31, G = blockDim.x >> 5, j = threadIdx.x >> 5;
  const int s    = blockIdx.x * G + j;
  if (s >= nslices) return;
  size_t base, stride;
  int    w, row;
  if (META) {
    base   = (size_t)sliceptr[s] + lane;
    w      = (int)((sliceptr[s + 1] - sliceptr[s]) >> 5);
    row    = rowperm[slicerow[s] + lane];
    stride = 32;
  } else {
    /* group: the block's slices interleaved; the last block may hold fewer than G slices (its stride is still G) */
    base   = GROUP ? (((size_t)blockIdx.x * W) * G + j) * 32 + lane : ((size_t)s * W) * 32 + lane;
    stride = GROUP ? (size_t)G * 32 : 32;
    w      = W;
    row    = s * 32 + lane;
  }
  const int *bp  = bias + (META ? biasbase[s] : s * ((W + 3) & ~3));
  double     sum = 0.0;
  /* PF > 0: lane 0 has the copy engine prefetch into L2 the values and columns PF batches ahead of the loads
     (cp.async.bulk.prefetch.L2, sm_90): more DRAM bytes in flight than the registers of the batch hold */
  const size_t sbase = base - lane;
  if (PF > 0 && lane == 0) {
    const int n = min(w, PF * U);
    Prefetch(val + sbase, n * 32 * 8);
    Prefetch(col + sbase, n * 32 * 2);
  }
  for (int k0 = 0; k0 < w; k0 += U) {
    if (PF > 0 && lane == 0 && k0 + PF * U < w) {
      const int k = k0 + PF * U, n = min(U, w - k);
      Prefetch(val + sbase + (size_t)k * 32, n * 32 * 8);
      Prefetch(col + sbase + (size_t)k * 32, n * 32 * 2);
    }
    double vv[U], xx[U];
    int    cc[U];
    int4 b4 = make_int4(0, 0, 0, 0);
    if (BIAS == 4) b4 = __ldg(reinterpret_cast<const int4 *>(bp + k0));
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int k = k0 + u;
      const int b = BIAS == 4 ? (u == 0 ? b4.x : u == 1 ? b4.y : u == 2 ? b4.z : b4.w) : BIAS ? __ldg(bp + k) : 0;
      cc[u]       = k < w ? row + b + Load<LD>(col + base + k * stride) : -1;
      vv[u]       = k < w ? Load<LD>(val + base + k * stride) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < U; u++) xx[u] = cc[u] >= 0 ? __ldg(x + cc[u]) : 0.0;
#pragma unroll
    for (int u = 0; u < U; u++)
      if (cc[u] >= 0) sum += vv[u] * xx[u];
  }
  y[row] = sum;
}

/* the same bytes as a grid-stride stream of 16-byte loads (values, columns), y written */
__global__ void __launch_bounds__(512) Stream(size_t nv, size_t nc, const double2 *__restrict__ val, const int4 *__restrict__ col, double *y, size_t ny)
{
  const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nt = (size_t)gridDim.x * blockDim.x;
  double       s = 0.0;
  for (size_t i = t; i < nv; i += nt) {
    const double2 a = __ldcs(val + i);
    s += a.x + a.y;
  }
  for (size_t i = t; i < nc; i += nt) s += (double)__ldcs(col + i).x;
  for (size_t i = t; i < ny; i += nt) y[i] = s;
}

/* the flush buffers: a 2 x L2 memset of flush (dirty lines), or a read of flush2 (clean lines) */
struct Flush {
  void  *flush, *flush2;
  size_t bytes;
};

/* the median over reps cold runs of launch(): the flush, then events around launch() alone (the default stream) */
template <typename F>
static double ColdMedian(int reps, bool readflush, const Flush &fb, F launch)
{
  std::vector<float> tm;
  cudaEvent_t        a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < reps; r++) {
    if (!readflush) CK(cudaMemset(fb.flush, r, fb.bytes));
    else FlushRead<<<1024, 256>>>((const double *)fb.flush2, fb.bytes / 8, (double *)fb.flush);
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    tm.push_back(ms * 1000.f);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(tm.begin(), tm.end());
  return tm[reps / 2];
}

/* ---- -layout FILE: the product on a real scalar ELLWARP layout (benchmarks/layout/layout_dump), the code path of
   MultKernelB (ellwarpmultcuda.cu) for 16-bit, biased 16-bit and 32-bit slices, U = 4, without PETSc.  GM (gather
   mode) 0: x at the real columns; 1: x at the lane's own row (the same loads and dependences, no column spread);
   2: the real columns, y written at the sorted position instead of the row (coalesced, no scatter) */
struct RealLayout {
  long long          nrows, nslices;
  const long long   *sliceptr, *colbase, *biasbase;
  const int         *slicerow, *col32, *colbias, *rowperm;
  const unsigned char *meta;
  const short       *col16;
};

template <int U, typename Col>
__device__ __forceinline__ double RealSteps(int w, const double *__restrict__ v, const double *__restrict__ x, Col col)
{
  double sum = 0.0;
  for (int k0 = 0; k0 < w; k0 += U) {
    double vv[U], xx[U];
    int    cc[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int k = k0 + u;
      cc[u]       = k < w ? col(k) : -1;
      vv[u]       = k < w ? __ldcs(v + (size_t)k * 32) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < U; u++) xx[u] = cc[u] >= 0 ? __ldg(x + cc[u]) : 0.0;
#pragma unroll
    for (int u = 0; u < U; u++)
      if (cc[u] >= 0) sum += vv[u] * xx[u];
  }
  return sum;
}

template <int U>
__global__ void __launch_bounds__(512, 3) RealProduct(RealLayout d, int gm, const double *__restrict__ val, const double *__restrict__ x, double *y)
{
  const int       lane = threadIdx.x & 31;
  const long long s    = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (s >= d.nslices) return;
  const long long base = d.sliceptr[s];
  const int       w = (int)((d.sliceptr[s + 1] - base) >> 5), meta = d.meta[s], l2 = meta & 15;
  const int       r    = d.slicerow[s] + (lane >> l2);
  const bool      live = r < d.slicerow[s + 1];
  const int       row  = live ? d.rowperm[r] : 0;
  const double   *v    = val + base + lane;
  double          sum;
  if (meta & 32) {
    const short *c  = d.col16 + d.colbase[s] + lane;
    const int   *bp = d.colbias + d.biasbase[s] + (lane & ((1 << l2) - 1));
    sum             = RealSteps<U>(w, v, x, [&](int k) {
      const short cc = __ldcs(c + (size_t)k * 32);
      const int   b  = __ldg(bp + (k << l2));
      return cc != (short)-32768 ? (gm == 1 ? row : row + b + cc) : -1;
    });
  } else if (meta & 16) {
    const short *c = d.col16 + d.colbase[s] + lane;
    sum            = RealSteps<U>(w, v, x, [&](int k) {
      const short cc = __ldcs(c + (size_t)k * 32);
      return cc != (short)-32768 ? (gm == 1 ? row : row + cc) : -1;
    });
  } else {
    const int *c = d.col32 + d.colbase[s] + lane;
    sum          = RealSteps<U>(w, v, x, [&](int k) {
      const int cc = __ldcs(c + (size_t)k * 32);
      return cc >= 0 && gm == 1 ? row : cc;
    });
  }
  for (int off = (1 << l2) >> 1; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if ((lane & ((1 << l2) - 1)) == 0 && live) y[gm == 2 ? r : row] = sum;
}

template <typename T>
static T *Upload(FILE *fp, long long n, double *bytes)
{
  std::vector<T> h(n > 0 ? n : 1);
  if (n > 0 && fread(h.data(), sizeof(T), (size_t)n, fp) != (size_t)n) {
    fprintf(stderr, "short layout file\n");
    exit(1);
  }
  T *d;
  CK(cudaMalloc(&d, sizeof(T) * (n > 0 ? n : 1)));
  CK(cudaMemcpy(d, h.data(), sizeof(T) * (n > 0 ? n : 1), cudaMemcpyHostToDevice));
  *bytes += (double)sizeof(T) * n;
  return d;
}

static void RunLayout(const char *file, const cudaDeviceProp &p, const Flush &fb)
{
  FILE *fp = fopen(file, "rb");
  if (!fp) {
    fprintf(stderr, "cannot open %s\n", file);
    exit(1);
  }
  long long hdr[7];
  if (fread(hdr, sizeof(long long), 7, fp) != 7) {
    fprintf(stderr, "short layout file\n");
    exit(1);
  }
  RealLayout d;
  double     ib = 0, tb = 0; /* bytes of the index arrays a product reads (all of them, once), of the tables */
  d.nrows = hdr[0];
  d.nslices = hdr[2];
  const long long nslots = hdr[3], ncol16 = hdr[4], ncol32 = hdr[5], ncolbias = hdr[6];
  std::vector<long long> hp(d.nslices + 1);
  if (fread(hp.data(), 8, (size_t)d.nslices + 1, fp) != (size_t)d.nslices + 1) exit(1);
  long long *dp;
  CK(cudaMalloc(&dp, 8 * (d.nslices + 1)));
  CK(cudaMemcpy(dp, hp.data(), 8 * (d.nslices + 1), cudaMemcpyHostToDevice));
  d.sliceptr = dp;
  tb += 8.0 * (d.nslices + 1);
  d.slicerow = Upload<int>(fp, d.nslices + 1, &tb);
  d.meta     = Upload<unsigned char>(fp, d.nslices, &tb);
  d.colbase  = Upload<long long>(fp, d.nslices, &tb);
  d.col16    = Upload<short>(fp, ncol16, &ib);
  d.col32    = Upload<int>(fp, ncol32, &ib);
  d.biasbase = Upload<long long>(fp, d.nslices, &tb);
  d.colbias  = Upload<int>(fp, ncolbias, &ib);
  d.rowperm  = Upload<int>(fp, d.nrows, &tb);
  fclose(fp);
  /* widths: a histogram of the slices' steps */
  std::vector<long long> wh(4097, 0);
  for (long long s = 0; s < d.nslices; s++) wh[std::min<long long>(4096, (hp[s + 1] - hp[s]) / 32)]++;
  printf("# %s: %lld rows, %lld slices, %lld slots, 16-bit %lld, 32-bit %lld, biases %lld; slices by width:", file, d.nrows, d.nslices, nslots, ncol16, ncol32, ncolbias);
  for (int w = 4096; w >= 0; w--)
    if (wh[w]) printf(" %d:%lld", w, wh[w]);
  printf("\n");
  double *v, *x, *y;
  void   *sidx; /* the stream reads as many index and table bytes from a buffer of its own */
  CK(cudaMalloc(&sidx, (size_t)(ib + tb) + 16));
  CK(cudaMalloc(&v, 8 * nslots));
  CK(cudaMalloc(&x, 8 * d.nrows));
  CK(cudaMalloc(&y, 8 * d.nrows));
  {
    std::vector<double> h(std::max(nslots, d.nrows), 1.0);
    CK(cudaMemcpy(v, h.data(), 8 * nslots, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x, h.data(), 8 * d.nrows, cudaMemcpyHostToDevice));
  }
  const double bytes = 8.0 * nslots + ib + tb + 16.0 * d.nrows; /* values, columns, biases, tables, x and y */
  const int    reps  = 30;
  printf("%-6s %-14s %9s %9s %8s   (bytes %.1f MB)\n", "flush", "case", "us", "GB/s", "/stream", bytes * 1e-6);
  static const char *names[] = {"stream", "real/128", "real/256", "real/512", "real-rowx/128", "real-u8/128", "real-u2/128", "real-ysorted/128"};
  for (int fl = 0; fl < 2; fl++) {
    double streamus = 0;
    for (int cse = 0; cse < 8; cse++) {
      const int      bs = cse == 2 ? 256 : cse == 3 ? 512 : 128;
      const unsigned nb = (unsigned)((d.nslices + bs / 32 - 1) / (bs / 32));
      const double   us = ColdMedian(reps, fl == 1, fb, [&] {
        switch (cse) {
        case 0: Stream<<<p.multiProcessorCount * 4, 512>>>((size_t)(nslots / 2), (size_t)((ib + tb) / 16), (const double2 *)v, (const int4 *)sidx, y, d.nrows); break;
        case 1:
        case 2:
        case 3: RealProduct<4><<<nb, bs>>>(d, 0, v, x, y); break;
        case 4: RealProduct<4><<<nb, bs>>>(d, 1, v, x, y); break;
        case 5: RealProduct<8><<<nb, bs>>>(d, 0, v, x, y); break;
        case 6: RealProduct<2><<<nb, bs>>>(d, 0, v, x, y); break;
        case 7: RealProduct<4><<<nb, bs>>>(d, 2, v, x, y); break;
        }
      });
      if (cse == 0) streamus = us;
      double ysum = 0;
      if (cse > 0) { /* values and x are 1: y sums to the nonzeros (a check of the code paths) */
        std::vector<double> hy(d.nrows);
        CK(cudaMemcpy(hy.data(), y, 8 * d.nrows, cudaMemcpyDeviceToHost));
        for (double t : hy) ysum += t;
      }
      printf("%-6s %-14s %9.2f %9.1f %8.3f  sum(y) %.0f\n", fl ? "read" : "memset", names[cse], us, bytes / us * 1e-3, us / streamus, ysum);
      fflush(stdout);
    }
  }
  CK(cudaFree(sidx));
  CK(cudaFree(v));
  CK(cudaFree(x));
  CK(cudaFree(y));
}

struct Tables {
  const long long *sliceptr;
  const int       *slicerow, *rowperm, *bias, *biasbase;
};

template <int U, bool GROUP, int BIAS, bool META, int PF = 0, int LD = 0>
static void Launch(int nslices, int W, const Tables &t, const double *v, const short *c, const double *x, double *y, int bs = 512)
{
  SliceProduct<U, GROUP, BIAS, META, PF, LD><<<(nslices + bs / 32 - 1) / (bs / 32), bs>>>(nslices, W, t.sliceptr, t.slicerow, t.rowperm, t.bias, t.biasbase, v, c, x, y);
}

/* shapes: uniform width W (the slice order in closed form), or the box Q2 scalar matrix's row lengths (1/8 of the
   rows 125 = vertices, 3/8 75 = edges, 3/8 45 = faces, 1/8 27 = cells), slices longest first as the whole-matrix
   sort lays them out (then only the META cases apply) */
int main(int argc, char **argv)
{
  const bool layout  = argc > 2 && !strcmp(argv[1], "-layout");
  const int  nslices = argc > 1 && !layout ? atoi(argv[1]) : 10266, n = nslices * 32;
  /* widths: 15, 28, 64 (box P1, P2, Q2 scalar's mean row lengths), then the Q2 mix: -1 longest first (the whole-matrix
     sort), -2 shortest first, -3 shuffled, -4 longest first with the 125-long rows' slices split in two of 63 steps
     (K2's T = 2 without its costs) */
  const int shapes[] = {15, 28, 64, -1, -2, -3, -4};
  const int reps     = 30;
  int       dev;
  cudaDeviceProp p;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  const size_t flushbytes = 2 * (size_t)p.l2CacheSize;
  void        *flush, *flush2;
  CK(cudaMalloc(&flush, flushbytes));
  CK(cudaMalloc(&flush2, flushbytes));
  CK(cudaMemset(flush2, 1, flushbytes));
  const Flush fb = {flush, flush2, flushbytes};
  if (layout) {
    printf("# %s, L2 %d MB, %d products a case, median, us; GB/s over values, columns, biases, slice tables, x and y\n", p.name, p.l2CacheSize >> 20, reps);
    for (int i = 2; i < argc; i++) RunLayout(argv[i], p, fb);
    return 0;
  }
  printf("# %s, L2 %d MB, %d slices (%d rows), %d products a case, median, us; GB/s over values+columns+x+y\n", p.name, p.l2CacheSize >> 20, nslices, n, reps);
  printf("%-6s %-6s %-12s %9s %9s %8s\n", "W", "flush", "case", "us", "GB/s", "/stream");
  for (int W : shapes) {
    std::vector<long long> hp(nslices + 1);
    std::vector<int>       hr(nslices + 1), hperm(n), hbb(nslices), ws(nslices);
    for (int s = 0; s < nslices; s++) {
      const double f = (s + 0.5) / nslices;
      ws[s]          = W > 0 ? W : f < 0.125 ? 125 : f < 0.5 ? 75 : f < 0.875 ? 45 : 27;
    }
    if (W == -4) { /* 125 -> two slices of 63 (the slice count grows by the 125-long ones; the last ones are dropped to keep it) */
      std::vector<int> w2;
      for (int s = 0; s < nslices; s++) {
        if (ws[s] == 125) {
          w2.push_back(63);
          w2.push_back(63);
        } else w2.push_back(ws[s]);
      }
      w2.resize(nslices);
      ws = w2;
    }
    if (W == -2) std::reverse(ws.begin(), ws.end());
    if (W == -3) {
      srand(11);
      for (int s = nslices - 1; s > 0; s--) std::swap(ws[s], ws[rand() % (s + 1)]);
    }
    hp[0]   = 0;
    int nb4 = 0;
    for (int s = 0; s < nslices; s++) {
      hp[s + 1] = hp[s] + 32LL * ws[s];
      hr[s]     = 32 * s;
      hbb[s]    = nb4;
      nb4 += (ws[s] + 3) & ~3;
    }
    hr[nslices] = n;
    for (int i = 0; i < n; i++) hperm[i] = i;
    const size_t ne = (size_t)hp[nslices];
    double      *v, *x, *y;
    short       *c;
    long long   *dp;
    int         *dr, *dperm, *db, *dbb;
    CK(cudaMalloc(&v, ne * 8));
    CK(cudaMalloc(&c, ne * 2 + 64));
    CK(cudaMalloc(&x, (size_t)(n + 1024) * 8));
    CK(cudaMalloc(&y, (size_t)n * 8));
    CK(cudaMalloc(&dp, (nslices + 1) * sizeof(long long)));
    CK(cudaMalloc(&dr, (nslices + 1) * sizeof(int)));
    CK(cudaMalloc(&dperm, n * sizeof(int)));
    CK(cudaMalloc(&db, (nb4 + 4) * sizeof(int)));
    CK(cudaMemset(db, 0, (nb4 + 4) * sizeof(int)));
    CK(cudaMalloc(&dbb, nslices * sizeof(int)));
    CK(cudaMemcpy(dbb, hbb.data(), nslices * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dp, hp.data(), (nslices + 1) * sizeof(long long), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, hr.data(), (nslices + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dperm, hperm.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    {
      std::vector<short>  hc(ne);
      std::vector<double> hv(ne, 1.0), hx(n + 1024, 1.0);
      srand(7);
      /* column offsets within +-300 of the row: FE-like x reuse from L2 (x has 512 entries of margin each side) */
      for (size_t e = 0; e < ne; e++) hc[e] = (short)(rand() % 601 - 300);
      CK(cudaMemcpy(c, hc.data(), ne * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(v, hv.data(), ne * 8, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(x, hx.data(), (size_t)(n + 1024) * 8, cudaMemcpyHostToDevice));
      x += 512;
    }
    const Tables t     = {dp, dr, dperm, db, dbb};
    const double bytes = ne * 10.0 + n * 16.0;
    static const char *names[] = {"stream", "slice", "group", "slice-u8", "bias", "meta", "meta+bias", "meta+bias-u8", "meta+bias4", "meta+bias/256", "meta+bias/128", "mb+pf1", "mb+pf2", "mb+pf4", "mb+pf8", "slice+pf2", "mb-ldg", "mb-ldcg", "mb-ldlu"};
    for (int fl = 0; fl < 2; fl++) {
      double streamus = 0;
      for (int cse = 0; cse < 19; cse++) {
        if (W < 0 && ((cse >= 1 && cse <= 4) || cse == 15)) continue; /* closed-form slices need one width */
        const double us = ColdMedian(reps, fl == 1, fb, [&] {
          switch (cse) {
          case 0: Stream<<<p.multiProcessorCount * 4, 512>>>(ne / 2, ne * 2 / 16, (const double2 *)v, (const int4 *)c, y, n); break;
          case 1: Launch<4, false, false, false>(nslices, W, t, v, c, x, y); break;
          case 2: Launch<4, true, false, false>(nslices, W, t, v, c, x, y); break;
          case 3: Launch<8, false, false, false>(nslices, W, t, v, c, x, y); break;
          case 4: Launch<4, false, 1, false>(nslices, W, t, v, c, x, y); break;
          case 5: Launch<4, false, 0, true>(nslices, W, t, v, c, x, y); break;
          case 6: Launch<4, false, 1, true>(nslices, W, t, v, c, x, y); break;
          case 7: Launch<8, false, 1, true>(nslices, W, t, v, c, x, y); break;
          case 8: Launch<4, false, 4, true>(nslices, W, t, v, c, x, y); break;
          case 9: Launch<4, false, 1, true>(nslices, W, t, v, c, x, y, 256); break;
          case 10: Launch<4, false, 1, true>(nslices, W, t, v, c, x, y, 128); break;
          case 11: Launch<4, false, 1, true, 1>(nslices, W, t, v, c, x, y); break;
          case 12: Launch<4, false, 1, true, 2>(nslices, W, t, v, c, x, y); break;
          case 13: Launch<4, false, 1, true, 4>(nslices, W, t, v, c, x, y); break;
          case 14: Launch<4, false, 1, true, 8>(nslices, W, t, v, c, x, y); break;
          case 15: Launch<4, false, 0, false, 2>(nslices, W, t, v, c, x, y); break;
          case 16: Launch<4, false, 1, true, 0, 1>(nslices, W, t, v, c, x, y); break;
          case 17: Launch<4, false, 1, true, 0, 2>(nslices, W, t, v, c, x, y); break;
          case 18: Launch<4, false, 1, true, 0, 3>(nslices, W, t, v, c, x, y); break;
          }
        });
        if (cse == 0) streamus = us;
        printf("%-6s %-6s %-12s %9.2f %9.1f %8.3f\n", W == -1 ? "q2desc" : W == -2 ? "q2asc" : W == -3 ? "q2shuf" : W == -4 ? "q2split" : std::to_string(W).c_str(), fl ? "read" : "memset", names[cse], us, bytes / us * 1e-3, us / streamus);
        fflush(stdout);
      }
    }
    CK(cudaFree(v));
    CK(cudaFree(c));
    CK(cudaFree(x - 512));
    CK(cudaFree(y));
    CK(cudaFree(dp));
    CK(cudaFree(dr));
    CK(cudaFree(dperm));
    CK(cudaFree(db));
    CK(cudaFree(dbb));
  }
  return 0;
}
