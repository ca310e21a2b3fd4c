/* MATSEQELLWARP, CUDA backend: the SpMV kernels and their launch.  MultKernel (the default) and the
   EllwarpTune variants (MultKernelV, LongKernel); long rows are cut into chunks summed in a fixed order. */
#include <petscellwarp/private/ellwarpcudaimpl.h>

#ifndef ELLWARP_UNROLL
  #define ELLWARP_UNROLL 4
#endif
/* iterations of a lane's loop in flight; 8 measured +3% on qcd and -3.5% on lv_gmsh_p1 (H200), so 4 */
static constexpr int ellwarp_unroll = ELLWARP_UNROLL;

/* y[rowperm[r]] = sum_k val*x[col] (+ z).  Column indices and values are streamed once (__ldcs: keep
   them out of L2 so x stays cached); x is gathered through the read-only path.  16-bit slices store
   columns as offsets from the lane's own row: 10 instead of 12 bytes per entry. */
/* The end of a long-row chunk (block c), shared by LongChunk and LongChunkU: a warp-shuffle tree, the warps'
   sums in order; the block that completes a row's last chunk (counted with an atomic) adds the row's chunk
   sums in chunk order and writes y, so the result does not depend on which block finished when. */
template <bool ADD>
__device__ __forceinline__ void LongChunkFinish(const DevLayout &d, PetscInt c, PetscScalar sum, const PetscScalar *z, PetscScalar *y)
{
  __shared__ PetscScalar ws[32];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x >= ELLWARP_LANES) return;
  const PetscInt q = d.chunkrow[c], c0 = d.longchunk[q], n = d.longchunk[q + 1] - c0;
  int            last = 0;
  if (threadIdx.x == 0) {
    PetscScalar t = 0.0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += ws[w];
    if (n == 1) { /* the row's only chunk */
      const PetscInt row = d.rowperm[q];
      y[row]             = ADD ? z[row] + t : t;
    } else {
      d.partial[c] = t;
      __threadfence();
      last = atomicAdd(d.count + q, 1) == n - 1;
    }
  }
  /* the block of the last chunk: its first warp adds the row's chunk sums, lane l those of l, l + 32, ... in
     order, then a shuffle tree (one thread adding ~50 of them was the tail of a product) */
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __threadfence();
  PetscScalar s = 0.0;
  for (PetscInt i = threadIdx.x; i < n; i += ELLWARP_LANES) s += __ldcg(d.partial + c0 + i);
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x == 0) {
    const PetscInt row = d.rowperm[q];
    y[row]             = ADD ? z[row] + s : s;
    d.count[q]         = 0; /* ready for the next product */
  }
}

/* A long-row chunk, done by a whole block: strided products, then LongChunkFinish */
template <bool ADD, bool ABS>
__device__ static void LongChunk(const DevLayout &d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt c   = blockIdx.x;
  PetscScalar    sum = 0.0;
  for (PetscCount k = d.chunkptr[c] + threadIdx.x; k < d.chunkptr[c + 1]; k += blockDim.x) {
    const PetscScalar vv = __ldcs(val + k);
    sum += (ABS ? fabs(vv) : vv) * __ldg(x + __ldcs(d.col32 + d.longcolbase + (k - d.longptr[0])));
  }
  LongChunkFinish<ADD>(d, c, sum, z, y);
}

/* What a lane of MultKernel and MultKernelB needs of its slice s (one warp per slice): the slice's first slot and
   width in steps, its mode byte (meta: log2 of the lanes per row in the low 4 bits, the column mode above), and the
   lane's row (rowperm of the sorted row; live: the lane has one) */
typedef struct {
  PetscCount base;
  int        w, meta, l2;
  bool       live;
  PetscInt   row;
} SliceLane;

__device__ __forceinline__ SliceLane SliceLaneOf(const DevLayout &d, PetscInt s, int lane)
{
  SliceLane      q;
  q.base           = d.sliceptr[s];
  q.w              = (int)((d.sliceptr[s + 1] - q.base) / ELLWARP_LANES);
  q.meta           = d.meta[s];
  q.l2             = q.meta & 15;
  const PetscInt r = d.slicerow[s] + (lane >> q.l2);
  q.live           = r < d.slicerow[s + 1];
  q.row            = q.live ? d.rowperm[r] : 0;
  return q;
}

/* y[rowperm[r]] = sum_k val*x[col] (+ z).  Blocks [0, nchunks) do the long-row chunks, the others one
   slice per warp.  Column indices and values are streamed once (__ldcs: keep them out of L2 so x stays
   cached); x is gathered through the read-only path.  16-bit slices store columns as offsets from the
   lane's own row: 10 instead of 12 bytes per entry.  BIAS: the instance for layouts with biased 16-bit slices
   (offsets from the row plus a bias per entry position, ellwarplayout.h); the others have no code for them. */
template <bool ADD, bool ABS, bool BIAS>
__global__ static void __launch_bounds__(1024) MultKernel(DevLayout d, DevBias bz, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  if (blockIdx.x < d.nchunks) {
    LongChunk<ADD, ABS>(d, val, x, z, y);
    return;
  }
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)(blockIdx.x - d.nchunks) * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return;
  const SliceLane    q    = SliceLaneOf(d, s, lane);
  const int          w = q.w, meta = q.meta, l2 = q.l2;
  const bool         live = q.live;
  const PetscInt     row  = q.row;
  const PetscScalar *v    = val + q.base + lane;
  PetscScalar        sum  = 0.0;

  if (BIAS && (meta & 32)) { /* 16-bit offsets from row + bias[e], e = k * tpr + j the entry position of the lane's row:
                               one more load per step (K1: the same address for the warp, K2: tpr neighbours; L1).  The
                               same x entries as 32-bit columns, so the same products */
    const short *c  = d.col16 + d.colbase[s] + lane;
    const int   *bp = bz.colbias + bz.biasbase[s] + (lane & ((1 << l2) - 1));
#pragma unroll ellwarp_unroll
    for (int k = 0; k < w; k++) {
      const short       cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      const PetscScalar vv = __ldcs(v + (size_t)k * ELLWARP_LANES);
      const int         b  = __ldg(bp + (k << l2));
      if (cc != ELLWARP_PAD16) sum += (ABS ? fabs(vv) : vv) * __ldg(x + (row + b + cc));
    }
  } else if (BIAS && (meta & 64)) { /* dictionary codes: column = table[code >> 9] + (code & 511), one load per step from the
                                      slice's table (at most 128 ints: L1); the same x entries as 32-bit columns */
    const unsigned short *c  = reinterpret_cast<const unsigned short *>(d.col16 + d.colbase[s]) + lane;
    const int            *tb = bz.colbias + bz.biasbase[s];
#pragma unroll ellwarp_unroll
    for (int k = 0; k < w; k++) {
      const unsigned short cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      const PetscScalar    vv = __ldcs(v + (size_t)k * ELLWARP_LANES);
      if (cc != (unsigned short)ELLWARP_DICT_PAD) sum += (ABS ? fabs(vv) : vv) * __ldg(x + EllwarpDictCol(tb, cc, 1));
    }
  } else if (meta & 16) {
    const short *c = d.col16 + d.colbase[s] + lane;
#pragma unroll ellwarp_unroll
    for (int k = 0; k < w; k++) {
      const short       cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      const PetscScalar vv = __ldcs(v + (size_t)k * ELLWARP_LANES);
      if (cc != ELLWARP_PAD16) sum += (ABS ? fabs(vv) : vv) * __ldg(x + row + cc);
    }
  } else {
    const int *c = d.col32 + d.colbase[s] + lane;
#pragma unroll ellwarp_unroll
    for (int k = 0; k < w; k++) {
      const int         cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      const PetscScalar vv = __ldcs(v + (size_t)k * ELLWARP_LANES);
      if (cc >= 0) sum += (ABS ? fabs(vv) : vv) * __ldg(x + cc);
    }
  }
  for (int off = (1 << l2) >> 1; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if ((lane & ((1 << l2) - 1)) == 0 && live) y[row] = ADD ? z[row] + sum : sum;
}

/* ---- kernel variants (EllwarpTune; -mat_ellwarp_tune mult_*, long_*) ----------------------------
   Measured against the kernels above in one GPU run (benchmarks/spmv -formats ...,variants); the defaults
   keep MultKernel.  MultKernelV: a thread owns R consecutive lanes of a slice (R = 1, 2, 4: one 64/128-bit
   column load and one or two 128-bit value loads per step for all its lanes), A independent accumulators
   per lane (step k goes to accumulator k % A, combined as the host's EllwarpHostMultAcc does), and NC the
   ld.global.nc.L1::no_allocate loads instead of ld.global.cs.  The lanes of a row meet in the same tree as
   MultKernel's shuffles (levels of offset >= R through shuffles over threads, the others inside the thread),
   so for A = 1 the products are bitwise MultKernel's. */
__device__ __forceinline__ double LdNcF64(const double *p)
{
  double r;
  asm("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ double2 LdNcF64x2(const double *p)
{
  double2 r;
  asm("ld.global.nc.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ int LdNcB16(const short *p)
{
  unsigned short r;
  asm("ld.global.nc.L1::no_allocate.b16 %0, [%1];" : "=h"(r) : "l"(p));
  return (int)(short)r;
}
__device__ __forceinline__ int LdNcB32(const void *p)
{
  int r;
  asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ int2 LdNcB32x2(const void *p)
{
  int2 r;
  asm("ld.global.nc.L1::no_allocate.v2.b32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ int4 LdNcB32x4(const void *p)
{
  int4 r;
  asm("ld.global.nc.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}
__device__ __forceinline__ int Lo16(int t)
{
  return (int)(short)(t & 0xffff);
}
__device__ __forceinline__ int Hi16(int t)
{
  return t >> 16; /* arithmetic shift: the sign of the high half */
}

/* R consecutive values (R-aligned: slices start at multiples of 32 slots) */
template <int R, int NC>
__device__ __forceinline__ void LdValsR(const PetscScalar *__restrict__ p, PetscScalar v[R])
{
#if defined(EW_VEC_VALUES)
  if constexpr (R == 1) v[0] = NC ? LdNcF64(p) : __ldcs(p);
  else {
  #pragma unroll
    for (int i = 0; i < R / 2; i++) {
      const double2 t = NC ? LdNcF64x2(p + 2 * i) : __ldcs(reinterpret_cast<const double2 *>(p) + i);
      v[2 * i]        = t.x;
      v[2 * i + 1]    = t.y;
    }
  }
#else
  #pragma unroll
  for (int i = 0; i < R; i++) v[i] = p[i];
#endif
}

/* R consecutive 16-bit offsets, sign-extended (ELLWARP_PAD16 stays -32768) */
template <int R, int NC>
__device__ __forceinline__ void LdCol16R(const short *__restrict__ p, int c[R])
{
  if constexpr (R == 1) c[0] = NC ? LdNcB16(p) : (int)__ldcs(p);
  else if constexpr (R == 2) {
    const int t = NC ? LdNcB32(p) : __ldcs(reinterpret_cast<const int *>(p));
    c[0]        = Lo16(t);
    c[1]        = Hi16(t);
  } else {
    const int2 t = NC ? LdNcB32x2(p) : __ldcs(reinterpret_cast<const int2 *>(p));
    c[0]         = Lo16(t.x);
    c[1]         = Hi16(t.x);
    c[2]         = Lo16(t.y);
    c[3]         = Hi16(t.y);
  }
}

template <int R, int NC>
__device__ __forceinline__ void LdCol32R(const int *__restrict__ p, int c[R])
{
  if constexpr (R == 1) c[0] = NC ? LdNcB32(p) : __ldcs(p);
  else if constexpr (R == 2) {
    const int2 t = NC ? LdNcB32x2(p) : __ldcs(reinterpret_cast<const int2 *>(p));
    c[0]         = t.x;
    c[1]         = t.y;
  } else {
    const int4 t = NC ? LdNcB32x4(p) : __ldcs(reinterpret_cast<const int4 *>(p));
    c[0]         = t.x;
    c[1]         = t.y;
    c[2]         = t.z;
    c[3]         = t.w;
  }
}

/* the biases of a thread's R lanes at step k of a biased slice (MultKernelV): bias[(k << l2) + j], j the lane's place in
   its row (K1: one address for the warp) */
template <int R>
__device__ __forceinline__ void BiasR(const int *__restrict__ bp, int k, int l2, int t, int b[R])
{
#pragma unroll
  for (int j = 0; j < R; j++) b[j] = __ldg(bp + (k << l2) + ((t * R + j) & ((1 << l2) - 1)));
}

/* A long-row chunk with U entries per thread loaded (columns and values, then x) before any is summed; each
   thread still adds its entries in the order of LongChunk, so the chunk sums are bitwise LongChunk's */
template <bool ADD, int U>
__device__ static void LongChunkU(const DevLayout &d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt   c  = blockIdx.x;
  const PetscCount k1 = d.chunkptr[c + 1], cb = d.longcolbase - d.longptr[0], bs = blockDim.x;
  PetscScalar      sum = 0.0;
  for (PetscCount k = d.chunkptr[c] + threadIdx.x; k < k1; k += U * bs) {
    PetscScalar vv[U], xx[U];
    int         cc[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const PetscCount kk = k + u * bs;
      vv[u]               = kk < k1 ? __ldcs(val + kk) : 0.0;
      cc[u]               = kk < k1 ? __ldcs(d.col32 + cb + kk) : 0;
    }
#pragma unroll
    for (int u = 0; u < U; u++) xx[u] = k + u * bs < k1 ? __ldg(x + cc[u]) : 0.0;
#pragma unroll
    for (int u = 0; u < U; u++)
      if (k + u * bs < k1) sum += vv[u] * xx[u];
  }
  LongChunkFinish<ADD>(d, c, sum, z, y);
}

template <bool ADD>
__device__ __forceinline__ void LongChunkAny(const DevLayout &d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y, int lu)
{
  if (lu >= 8) LongChunkU<ADD, 8>(d, val, x, z, y);
  else if (lu >= 4) LongChunkU<ADD, 4>(d, val, x, z, y);
  else if (lu >= 2) LongChunkU<ADD, 2>(d, val, x, z, y);
  else LongChunk<ADD, false>(d, val, x, z, y);
}

/* the long-row chunks alone (-mat_ellwarp_tune long_unroll < 8), before the slice kernel */
template <bool ADD>
__global__ static void __launch_bounds__(1024) LongKernel(DevLayout d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y, int lu)
{
  LongChunkAny<ADD>(d, val, x, z, y, lu);
}

/* MultKernelV's walk over the w steps of a slice: A steps at a time (step k to accumulator a = k % A), UN
   groups unrolled, then the last w % A steps */
template <int A, int UN, typename Step>
__device__ __forceinline__ void StepLoop(int w, Step step)
{
  int k = 0;
#pragma unroll UN
  for (; k + A <= w; k += A) {
#pragma unroll
    for (int a = 0; a < A; a++) step(k + a, a);
  }
#pragma unroll
  for (int a = 0; a < A; a++)
    if (k + a < w) step(k + a, a);
}

template <bool ADD, int R, int A, int FL>
__global__ static void __launch_bounds__(1024) MultKernelV(DevLayout d, DevBias bz, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y, int lu)
{
  if (blockIdx.x < d.nchunks) { /* the chunks first, 8 loads per thread in flight (the whole chunk at 256 threads); a smaller
                                   -mat_ellwarp_tune long_unroll runs them in LongKernel (a run-time choice here would cost 30 registers) */
    LongChunkU<ADD, 8>(d, val, x, z, y);
    return;
  }
  constexpr int  NC    = FL & 1;                /* -mat_ellwarp_tune mult_nc */
  constexpr bool BIAS  = (FL & 4) != 0;         /* the layout has biased 16-bit slices (else the kernel has no code for them) */
  constexpr int  STEPS = (FL & 2) ? 8 : 4;        /* steps in flight: 4 as MultKernel (ellwarp_unroll), or -mat_ellwarp_tune mult_unroll=8 */
  constexpr int  TPS   = ELLWARP_LANES / R;       /* threads per slice */
  constexpr int  UN    = A >= STEPS ? 1 : STEPS / A;
  const int      t   = threadIdx.x & (TPS - 1);
  const PetscInt s   = (PetscInt)(blockIdx.x - d.nchunks) * (blockDim.x / TPS) + threadIdx.x / TPS;
  const bool     sv  = s < d.nslices; /* no early return: the warp's other slices shuffle with full mask */
  PetscCount     base = 0;
  int            w = 0, meta = 0;
  PetscInt       r0 = 0, r1 = 0;
  if (sv) {
    base = d.sliceptr[s];
    w    = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES);
    meta = d.meta[s];
    r0   = d.slicerow[s];
    r1   = d.slicerow[s + 1];
  }
  const int   l2 = meta & 15, tpr = 1 << l2;
  PetscInt    row[R];
  bool        live[R];
  PetscScalar acc[R][A];
#pragma unroll
  for (int j = 0; j < R; j++) {
    const PetscInt r = r0 + ((t * R + j) >> l2);
    live[j]          = sv && r < r1;
    row[j]           = live[j] ? d.rowperm[r] : 0;
#pragma unroll
    for (int a = 0; a < A; a++) acc[j][a] = 0.0;
  }
  const PetscScalar *v = val + base + t * R;
  if (BIAS && (meta & 32)) { /* 16-bit offsets from row + bias[e] (MultKernel's): one more load per step and lane */
    const short *c  = d.col16 + (sv ? d.colbase[s] : 0) + t * R;
    const int   *bp = bz.colbias + (sv ? bz.biasbase[s] : 0);
    StepLoop<A, UN>(w, [&](int k, int a) {
      int         cc[R], bb[R];
      PetscScalar vv[R];
      LdCol16R<R, NC>(c + (size_t)k * ELLWARP_LANES, cc);
      LdValsR<R, NC>(v + (size_t)k * ELLWARP_LANES, vv);
      BiasR<R>(bp, k, l2, t, bb);
#pragma unroll
      for (int j = 0; j < R; j++)
        if (cc[j] != ELLWARP_PAD16) acc[j][a] += vv[j] * __ldg(x + (row[j] + bb[j] + cc[j]));
    });
  } else if (BIAS && (meta & 64)) { /* dictionary codes (MultKernel's); LdCol16R sign-extends: back to unsigned 16 bits */
    const short *c  = d.col16 + (sv ? d.colbase[s] : 0) + t * R;
    const int   *tb = bz.colbias + (sv ? bz.biasbase[s] : 0);
    StepLoop<A, UN>(w, [&](int k, int a) {
      int         cc[R];
      PetscScalar vv[R];
      LdCol16R<R, NC>(c + (size_t)k * ELLWARP_LANES, cc);
      LdValsR<R, NC>(v + (size_t)k * ELLWARP_LANES, vv);
#pragma unroll
      for (int j = 0; j < R; j++) {
        if (cc[j] != ELLWARP_DICT_PAD) acc[j][a] += vv[j] * __ldg(x + EllwarpDictCol(tb, cc[j], 1));
      }
    });
  } else if (meta & 16) {
    const short *c = d.col16 + (sv ? d.colbase[s] : 0) + t * R;
    StepLoop<A, UN>(w, [&](int k, int a) {
      int         cc[R];
      PetscScalar vv[R];
      LdCol16R<R, NC>(c + (size_t)k * ELLWARP_LANES, cc);
      LdValsR<R, NC>(v + (size_t)k * ELLWARP_LANES, vv);
#pragma unroll
      for (int j = 0; j < R; j++)
        if (cc[j] != ELLWARP_PAD16) acc[j][a] += vv[j] * __ldg(x + row[j] + cc[j]);
    });
  } else {
    const int *c = d.col32 + (sv ? d.colbase[s] : 0) + t * R;
    StepLoop<A, UN>(w, [&](int k, int a) {
      int         cc[R];
      PetscScalar vv[R];
      LdCol32R<R, NC>(c + (size_t)k * ELLWARP_LANES, cc);
      LdValsR<R, NC>(v + (size_t)k * ELLWARP_LANES, vv);
#pragma unroll
      for (int j = 0; j < R; j++)
        if (cc[j] >= 0) acc[j][a] += vv[j] * __ldg(x + cc[j]);
    });
  }
  PetscScalar sum[R];
#pragma unroll
  for (int j = 0; j < R; j++) sum[j] = A == 1 ? acc[j][0] : (A == 2 ? acc[j][0] + acc[j][A - 1] : (acc[j][0] + acc[j][1 % A]) + (acc[j][2 % A] + acc[j][3 % A]));
  /* the lanes of a row: the host's tree (EllwarpHostMultAcc); levels off >= R between threads, the others
     inside the thread (a level's reads are lanes the level does not write) */
  const int l2max = (int)__reduce_max_sync(0xffffffffu, (unsigned)l2); /* uniform over the warp: every thread shuffles */
  for (int off = (1 << l2max) >> 1; off > 0; off >>= 1) {
    if (off >= R) {
#pragma unroll
      for (int j = 0; j < R; j++) {
        const PetscScalar o = __shfl_down_sync(0xffffffffu, sum[j], off / R, TPS);
        if (off < tpr) sum[j] += o;
      }
    } else if (off < tpr) { /* off = 1 or 2 < R: static indices (sum[] stays in registers) */
      if (off == 2) {
#pragma unroll
        for (int j = 0; j + 2 < R; j++)
          if (((t * R + j) & (tpr - 1)) < 2) sum[j] += sum[j + 2 < R ? j + 2 : 0];
      } else {
#pragma unroll
        for (int j = 0; j + 1 < R; j++)
          if (((t * R + j) & (tpr - 1)) < 1) sum[j] += sum[j + 1 < R ? j + 1 : 0];
      }
    }
  }
#pragma unroll
  for (int j = 0; j < R; j++)
    if (live[j] && ((t * R + j) & (tpr - 1)) == 0) y[row[j]] = ADD ? z[row[j]] + sum[j] : sum[j];
}

/* ---- MultKernelB (-mat_ellwarp_tune mult_batch=U, mult_prefetch, mult_regs): MultKernel's slices with U steps of a lane loaded before any is
   summed: the U columns (with their biases or dictionary windows) and the U values, then the U x entries, then the U
   products added in step order, so the sums are bitwise MultKernel's (and the host reference's).  PRE: the next U
   steps' columns and values are loaded before this batch's x entries (two batches in flight).
   Why: Nsight Compute on the DMPlex P1/Q1 scalar matrices at 1.4 M rows (benchmarks/results/spmv-h100-dmplex/
   scalar-profile/) has MultKernel at 72-74 % of the DRAM peak with 32 registers, 89-92 % occupancy and 75-116 cycles
   of long-scoreboard stall per issued instruction: its unroll of 4 keeps few loads of a warp in flight.  cuSPARSE's
   sliced ELL kernel (72 registers, 41 % occupancy, 24-40 cycles) reaches 80-84 % on the same matrices, and on the
   same layout (32-row slices in matrix order, 32-bit columns) it is 7 % faster than MultKernel. */
template <int U, bool PRE, typename Col>
__device__ __forceinline__ PetscScalar BatchSteps(int w, const PetscScalar *__restrict__ v, const PetscScalar *__restrict__ x, Col col)
{
  PetscScalar sum = 0.0, vv[U], xx[U];
  int         cc[U];
#pragma unroll
  for (int u = 0; u < U; u++) {
    cc[u] = u < w ? col(u) : -1;
    vv[u] = u < w ? __ldcs(v + (size_t)u * ELLWARP_LANES) : 0.0;
  }
  for (int k0 = 0; k0 < w; k0 += U) {
    PetscScalar vn[PRE ? U : 1];
    int         cn[PRE ? U : 1];
    if constexpr (PRE) {
#pragma unroll
      for (int u = 0; u < U; u++) {
        const int k = k0 + U + u;
        cn[u]       = k < w ? col(k) : -1;
        vn[u]       = k < w ? __ldcs(v + (size_t)k * ELLWARP_LANES) : 0.0;
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) xx[u] = cc[u] >= 0 ? __ldg(x + cc[u]) : 0.0;
#pragma unroll
    for (int u = 0; u < U; u++)
      if (cc[u] >= 0) sum += vv[u] * xx[u];
#pragma unroll
    for (int u = 0; u < U; u++) {
      if constexpr (PRE) {
        cc[u] = cn[u];
        vv[u] = vn[u];
      } else {
        const int k = k0 + U + u;
        cc[u]       = k < w ? col(k) : -1;
        vv[u]       = k < w ? __ldcs(v + (size_t)k * ELLWARP_LANES) : 0.0;
      }
    }
  }
  return sum;
}

/* CAP: at most 40 (three blocks of 512 threads per SM) or 32 registers (four), else the compiler's choice */
template <bool ADD, bool BIAS, int U, bool PRE, int CAP>
__global__ static void __launch_bounds__(512, CAP == 32 ? 4 : (CAP == 40 ? 3 : 0)) MultKernelB(DevLayout d, DevBias bz, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  if (blockIdx.x < d.nchunks) {
    LongChunkU<ADD, 8>(d, val, x, z, y);
    return;
  }
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)(blockIdx.x - d.nchunks) * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return;
  const SliceLane    q    = SliceLaneOf(d, s, lane);
  const int          w = q.w, meta = q.meta, l2 = q.l2;
  const bool         live = q.live;
  const PetscInt     row  = q.row;
  const PetscScalar *v    = val + q.base + lane;
  PetscScalar        sum;

  if (BIAS && (meta & 32)) { /* MultKernel's biased 16-bit offsets */
    const short *c  = d.col16 + d.colbase[s] + lane;
    const int   *bp = bz.colbias + bz.biasbase[s] + (lane & ((1 << l2) - 1));
    sum             = BatchSteps<U, PRE>(w, v, x, [&](int k) {
      const short cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      const int   b  = __ldg(bp + (k << l2));
      return cc != ELLWARP_PAD16 ? (int)(row + b + cc) : -1;
    });
  } else if (BIAS && (meta & 64)) { /* MultKernel's dictionary codes */
    const unsigned short *c  = reinterpret_cast<const unsigned short *>(d.col16 + d.colbase[s]) + lane;
    const int            *tb = bz.colbias + bz.biasbase[s];
    sum                      = BatchSteps<U, PRE>(w, v, x, [&](int k) {
      const unsigned short cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      return cc != (unsigned short)ELLWARP_DICT_PAD ? EllwarpDictCol(tb, cc, 1) : -1;
    });
  } else if (meta & 16) {
    const short *c = d.col16 + d.colbase[s] + lane;
    sum            = BatchSteps<U, PRE>(w, v, x, [&](int k) {
      const short cc = __ldcs(c + (size_t)k * ELLWARP_LANES);
      return cc != ELLWARP_PAD16 ? (int)(row + cc) : -1;
    });
  } else {
    const int *c = d.col32 + d.colbase[s] + lane;
    sum          = BatchSteps<U, PRE>(w, v, x, [&](int k) { return __ldcs(c + (size_t)k * ELLWARP_LANES); });
  }
  for (int off = (1 << l2) >> 1; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if ((lane & ((1 << l2) - 1)) == 0 && live) y[row] = ADD ? z[row] + sum : sum;
}

template <bool ADD, bool BIAS, int U>
static void LaunchMultBatchCap(bool pre, int cap, unsigned nb, unsigned bs, cudaStream_t stream, const DevLayout &d, const DevBias &bz, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y)
{
  if (pre) MultKernelB<ADD, BIAS, U, true, 0><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y);
  else if (cap == 32) MultKernelB<ADD, BIAS, U, false, 32><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y);
  else if (cap == 40) MultKernelB<ADD, BIAS, U, false, 40><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y);
  else MultKernelB<ADD, BIAS, U, false, 0><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y);
}

template <bool ADD, bool BIAS>
static void LaunchMultBatchU(int U, bool pre, int cap, unsigned nb, unsigned bs, cudaStream_t stream, const DevLayout &d, const DevBias &bz, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y)
{
  if (U >= 8) LaunchMultBatchCap<ADD, BIAS, 8>(pre, cap, nb, bs, stream, d, bz, x, vals, z, y);
  else if (U >= 4) LaunchMultBatchCap<ADD, BIAS, 4>(pre, cap, nb, bs, stream, d, bz, x, vals, z, y);
  else LaunchMultBatchCap<ADD, BIAS, 2>(pre, cap, nb, bs, stream, d, bz, x, vals, z, y);
}

static PetscErrorCode LaunchMultBatch(const EllwarpTune *t, PetscInt bs, const DevLayout &d, const DevBias &bz, bool biased, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y)
{
  const int    wpb = (int)(bs / ELLWARP_LANES), U = (int)t->multbatch;
  const bool   pre = t->multprefetch ? true : false;
  const int    cap = (int)t->multregs;
  PetscInt     nb  = d.nchunks + (d.nslices + wpb - 1) / wpb;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(bs <= 512, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP: -mat_ellwarp_tune mult_batch=%d runs at most 512 threads per block, not %" PetscInt_FMT " (block_size)", U, bs);
  PetscCheck(nb <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATSEQELLWARP: %" PetscInt_FMT " thread blocks exceed the CUDA grid", nb);
  if (!nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  if (biased) {
    if (z) LaunchMultBatchU<true, true>(U, pre, cap, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y);
    else LaunchMultBatchU<false, true>(U, pre, cap, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y);
  } else {
    if (z) LaunchMultBatchU<true, false>(U, pre, cap, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y);
    else LaunchMultBatchU<false, false>(U, pre, cap, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernel variants of EllwarpTune (only for the products; MatNorm's |A| product keeps MultKernel) */
template <bool ADD, int R, int A>
static void LaunchMultV(int nc, unsigned nb, unsigned bs, cudaStream_t stream, const DevLayout &d, const DevBias &bz, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y, int lu)
{
  switch (nc) { /* bit 2: the layout has biased slices */
  case 7: MultKernelV<ADD, R, A, 7><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 6: MultKernelV<ADD, R, A, 6><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 5: MultKernelV<ADD, R, A, 5><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 4: MultKernelV<ADD, R, A, 4><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 3: MultKernelV<ADD, R, A, 3><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 2: MultKernelV<ADD, R, A, 2><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  case 1: MultKernelV<ADD, R, A, 1><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu); break;
  default: MultKernelV<ADD, R, A, 0><<<nb, bs, 0, stream>>>(d, bz, vals, x, z, y, lu);
  }
}

template <bool ADD, int R>
static void LaunchMultVA(int acc, int nc, unsigned nb, unsigned bs, cudaStream_t stream, const DevLayout &d, const DevBias &bz, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y, int lu)
{
  if (acc == 4) LaunchMultV<ADD, R, 4>(nc, nb, bs, stream, d, bz, x, vals, z, y, lu);
  else if (acc == 2) LaunchMultV<ADD, R, 2>(nc, nb, bs, stream, d, bz, x, vals, z, y, lu);
  else LaunchMultV<ADD, R, 1>(nc, nb, bs, stream, d, bz, x, vals, z, y, lu);
}

static PetscErrorCode LaunchMultVariant(const EllwarpTune *t, PetscInt bs, DevLayout d, DevBias bz, bool biased, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y)
{
  const int          R   = (int)t->multlanes, spb = (int)(bs * R / ELLWARP_LANES), lu = (int)t->longunroll;
  const bool         add = z != NULL;
  PetscInt           nb;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (lu < 8 && d.nchunks) { /* the chunks in a kernel of their own (the product's block size), then the slices */
    const unsigned lb = (unsigned)bs;
    if (add) LongKernel<true><<<(unsigned)d.nchunks, lb, 0, stream>>>(d, vals, x, z, y, lu);
    else LongKernel<false><<<(unsigned)d.nchunks, lb, 0, stream>>>(d, vals, x, z, y, lu);
    PetscCallCUDA(cudaGetLastError());
    d.nchunks = 0;
  }
  nb = d.nchunks + (d.nslices + spb - 1) / spb;
  PetscCheck(nb <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATSEQELLWARP: %" PetscInt_FMT " thread blocks exceed the CUDA grid", nb);
  if (nb) {
    const int acc = (int)t->multacc, nc = (t->multnc ? 1 : 0) | (t->multunroll == 8 ? 2 : 0) | (biased ? 4 : 0); /* MultKernelV's FL */
    if (add) {
      if (R == 4) LaunchMultVA<true, 4>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
      else if (R == 2) LaunchMultVA<true, 2>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
      else LaunchMultVA<true, 1>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
    } else {
      if (R == 4) LaunchMultVA<false, 4>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
      else if (R == 2) LaunchMultVA<false, 2>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
      else LaunchMultVA<false, 1>(acc, nc, (unsigned)nb, (unsigned)bs, stream, d, bz, x, vals, z, y, lu);
    }
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDALaunchMult(const EllwarpStore *S, PetscInt bs, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y, PetscBool abs)
{
  const EllwarpLayout *L   = S->L;
  const int            wpb = (int)(bs / ELLWARP_LANES);
  DevLayout            d   = View(S);
  const DevBias        bz  = BiasView(S);
  const bool           biased = L->nbias + L->ndict > 0; /* layouts without biased or dictionary slices run kernel instances without code for them */
  PetscInt             nb;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (z && z == y && !abs) d.nslices = L->nactive; /* in place: trailing slices of zero-length rows add nothing */
  if (!abs) {
    EllwarpTune t;
    EllwarpTuneResolve(L, S->tune, &t);
    if (t.multbatch > 1) { /* MultKernelB (one lane and one accumulator per thread: ReadOptions checks) */
      PetscCall(LaunchMultBatch(&t, bs, d, bz, biased, x, vals, z, y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (t.multlanes > 1 || t.multacc > 1 || t.multnc || t.multunroll == 8 || t.longunroll < 8) {
      PetscCall(LaunchMultVariant(&t, bs, d, bz, biased, x, vals, z, y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  nb = L->nchunks + (d.nslices + wpb - 1) / wpb;
  PetscCheck(nb <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATSEQELLWARP: %" PetscInt_FMT " thread blocks exceed the CUDA grid", nb);
  if (nb) {
    /* layouts without biased slices run kernels without code for them (no registers spent on it) */
    if (biased) {
      if (abs) MultKernel<false, true, true><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
      else if (z) MultKernel<true, false, true><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
      else MultKernel<false, false, true><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
    } else {
      if (abs) MultKernel<false, true, false><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
      else if (z) MultKernel<true, false, false><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
      else MultKernel<false, false, false><<<(unsigned)nb, (unsigned)bs, 0, stream>>>(d, bz, vals, x, z, y);
    }
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAMult(const EllwarpStore *S, PetscInt bs, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(EllwarpCUDALaunchMult(S, bs, x, S->val, z, y, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * S->L->nnz - (z ? 0 : S->L->nrows)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
