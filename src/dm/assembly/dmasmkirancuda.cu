/* Device kernels of the elasticity element (dmasmelas.c: the element-buffer kernel) and of the kiran type's
   strategies (dmasmkiran.c, where the plain-C references of the same layouts are).  Double precision.
   Reference data ref = {w[8], dN[8][8][3]} (Gauss weights, reference gradients of the vertex basis) are loaded
   into shared memory once per block, as in Kiran et al. */
#include <cuda_pipeline.h>
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmelas.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

#define KIRAN_GEO   80
#define KIRAN_WARPS 8 /* warps (elements) per block of the warp strategies */
#if !defined(DMASM_KIRAN_MINBLOCKS)
  /* blocks of 8 warps per SM the warp kernels are compiled for: 3 caps them at 80 registers (nvcc 13, sm_90: no spills
     but 20 B in warp4; 24 warps an SM); 1 lets warp4/ppni4 take 106/96 registers (2 blocks), 4 forces 64 (small spills) */
  #define DMASM_KIRAN_MINBLOCKS 3
#endif
#if !defined(DMASM_KIRAN_ROW_MINBLOCKS)
  /* ppnirow: 3 blocks of 8 warps (80 registers: 24 accumulators are 48 of them; nvcc 13, sm_90: 60 B of spill to L1);
     2 removes the spill at 16 warps an SM (to be measured which is faster) */
  #define DMASM_KIRAN_ROW_MINBLOCKS 3
#endif
#define FULL        0xffffffffu

/* ---------------------------------------------------------------------------------------------------------- */
/* the element-buffer kernel: one thread per element, ke (and fe = ke ue) entry-major */
template <int DIM, int NV>
__global__ static void ElasElementKernel(PetscInt n, int nq, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ lm, PetscReal lam0, PetscReal mu0, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ ue, PetscScalar *__restrict__ ke, PetscScalar *__restrict__ fe)
{
  constexpr int NEN = DIM * NV;
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < n; e += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar     K[NEN * NEN];
    PetscReal       x[NEN];
    const PetscReal lam = lm ? lm[2 * e] : lam0, mu = lm ? lm[2 * e + 1] : mu0;
    for (int k = 0; k < NEN; k++) x[k] = xe[(PetscCount)k * n + e];
    DMAsmElasElement(DIM, NV, nq, ref, ref + nq, x, lam, mu, K);
    if (ke)
      for (int r = 0; r < NEN * NEN; r++) ke[(PetscCount)r * n + e] = K[r];
    if (fe)
      for (int r = 0; r < NEN; r++) {
        PetscScalar s = 0;
        for (int q = 0; q < NEN; q++) s += K[r * NEN + q] * ue[(PetscCount)q * n + e];
        fe[(PetscCount)r * n + e] = s;
      }
  }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* kiran: assembly by element (one thread per element, the element matrix in local memory) */
__global__ static void KiranElementKernel(PetscInt p0, PetscInt n, PetscInt nelem, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const int *__restrict__ map, PetscScalar *__restrict__ dst)
{
  __shared__ PetscReal sref[200];
  for (int i = threadIdx.x; i < 200; i += blockDim.x) sref[i] = ref[i];
  __syncthreads();
  const PetscInt t = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (t >= n) return;
  const PetscInt  p   = p0 + t;
  const PetscReal lam = lmk ? lmk[2 * p] : lam0, mu = lmk ? lmk[2 * p + 1] : mu0;
  PetscReal       x[24];
  PetscScalar     K[DMASM_HEX_NK];
  for (int k = 0; k < 24; k++) x[k] = xk[(PetscCount)k * nelem + p];
  DMAsmElasElement(3, 8, 8, sref, sref + 8, x, lam, mu, K);
  for (int r = 0; r < DMASM_HEX_NK; r++) DMAsmKiranPut(dst, map[(PetscCount)r * nelem + p], K[r]);
}

/* the Gauss weights and reference gradients (ref = {w[8], dN[8][8][3]}) into shared memory, once per block (a block barrier:
   every thread of the block calls it) */
__device__ __forceinline__ void LoadRef(const PetscReal *ref, PetscReal *sw, PetscReal *sdN)
{
  for (int i = threadIdx.x; i < 200; i += blockDim.x) {
    if (i < 8) sw[i] = ref[i];
    else sdN[i - 8] = ref[i];
  }
  __syncthreads();
}

/* reduce over the 8 lanes of a group (Listing 1's __shfl_xor, width 8) */
__device__ __forceinline__ PetscReal Reduce8(PetscReal v)
{
  v += __shfl_xor_sync(FULL, v, 4, 8);
  v += __shfl_xor_sync(FULL, v, 2, 8);
  v += __shfl_xor_sync(FULL, v, 1, 8);
  return v;
}

/* entry (r, c) of the inverse of the 3x3 J: cofactor (c, r) / det */
__device__ __forceinline__ PetscReal InvEntry(const PetscReal *J, int r, int c, PetscReal det)
{
  return (J[((c + 1) % 3) * 3 + (r + 1) % 3] * J[((c + 2) % 3) * 3 + (r + 2) % 3] - J[((c + 1) % 3) * 3 + (r + 2) % 3] * J[((c + 2) % 3) * 3 + (r + 1) % 3]) / det;
}

__device__ __forceinline__ PetscReal Det3(const PetscReal *J)
{
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}

/* the rest of the PPNI geometry from the 8 Jacobians sJ[q][d][k]: 8 determinants, 8 inverses (27 lanes, 3 a pass),
   192 physical gradients g[q][a][d] */
__device__ __forceinline__ void WarpGeometryFinish(int lane, const PetscReal *sdN, PetscReal *sJ, PetscReal *sJi, PetscReal *sdet, PetscReal *sg)
{
  if (lane < 8) sdet[lane] = Det3(sJ + 9 * lane);
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < 3; pass++) {
    const int q = pass * 3 + lane / 9;
    if (lane < 27 && q < 8) sJi[9 * q + lane % 9] = InvEntry(sJ + 9 * q, (lane % 9) / 3, lane % 3, sdet[q]);
  }
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < 6; pass++) {
    const int idx = pass * 32 + lane, q = idx / 24, b = (idx % 24) / 3, d = idx % 3;
    sg[idx]       = sdN[(q * 8 + b) * 3 + 0] * sJi[9 * q + 0 * 3 + d] + sdN[(q * 8 + b) * 3 + 1] * sJi[9 * q + 1 * 3 + d] + sdN[(q * 8 + b) * 3 + 2] * sJi[9 * q + 2 * 3 + d];
  }
  __syncwarp();
}

/* PPNI geometry of one element by one warp: Jacobians of the 8 Gauss points (72 entries, 4 a pass: 18 passes of
   8-lane shuffle reductions, Listing 1), then WarpGeometryFinish */
__device__ __forceinline__ void WarpGeometryPPNI(int lane, const PetscReal *sx, const PetscReal *sdN, PetscReal *sJ, PetscReal *sJi, PetscReal *sdet, PetscReal *sg)
{
  const int a = lane & 7;
#pragma unroll
  for (int pass = 0; pass < 18; pass++) {
    const int       E = pass * 4 + (lane >> 3), q = E / 9, d = (E % 9) / 3, k = E % 3;
    const PetscReal v = Reduce8(sx[a * 3 + d] * sdN[(q * 8 + a) * 3 + k]);
    if (a == 0) sJ[E] = v;
  }
  __syncwarp();
  WarpGeometryFinish(lane, sdN, sJ, sJi, sdet, sg);
}

/* owner's geometry (an element recomputed by each of its 8 nodes' warps, so its cost counts 8 times): the 72 Jacobian
   entries J[q][d][k] by 3 passes of 32 lanes, each lane an 8-term sum from shared memory in the host's order
   (DMAsmElasJacInv), instead of PPNI's 18 passes of 3 shuffles; then WarpGeometryFinish */
__device__ __forceinline__ void WarpGeometryOwner(int lane, const PetscReal *sx, const PetscReal *sdN, PetscReal *sJ, PetscReal *sJi, PetscReal *sdet, PetscReal *sg)
{
#pragma unroll
  for (int pass = 0; pass < 3; pass++) {
    const int E = pass * 32 + lane, q = E / 9, d = (E % 9) / 3, k = E % 3;
    if (E < 72) {
      PetscReal v = 0;
#pragma unroll
      for (int a = 0; a < 8; a++) v += sx[a * 3 + d] * sdN[(q * 8 + a) * 3 + k];
      sJ[E] = v;
    }
  }
  __syncwarp();
  WarpGeometryFinish(lane, sdN, sJ, sJi, sdet, sg);
}

/* lane's two 3x3 blocks (a0,b0), (a1,b1) at one Gauss point */
__device__ __forceinline__ void Accumulate(const PetscReal *g, int a0, int b0, int a1, int b1, PetscReal wl, PetscReal wm, PetscReal *acc)
{
  DMAsmElasBlock(3, g + 3 * a0, g + 3 * b0, wl, wm, acc, 3);
  DMAsmElasBlock(3, g + 3 * a1, g + 3 * b1, wl, wm, acc + 9, 3);
}

/* kiran: assembly by warp (TPR = 4 or 8 threads per element-matrix row), with or without PPNI */
/* the Jacobian of the warp strategies without PPNI (Kiran et al., Table 1): warp shuffle, shared memory, atomics */
enum {
  DMASM_KIRAN_JAC_SHUFFLE,
  DMASM_KIRAN_JAC_SHARED,
  DMASM_KIRAN_JAC_ATOMIC
};

template <int TPR, bool PPNI, int JAC>
__global__ static void __launch_bounds__(KIRAN_WARPS * 32, DMASM_KIRAN_MINBLOCKS) KiranWarpKernel(PetscInt p0, PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const int *__restrict__ map, PetscScalar *__restrict__ dst)
{
  __shared__ PetscReal sw[8], sdN[192];
  __shared__ PetscReal sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][PPNI ? 72 : 9], sJi[KIRAN_WARPS][PPNI ? 72 : 9], sdet[KIRAN_WARPS][PPNI ? 8 : 1], sg[KIRAN_WARPS][PPNI ? 192 : 24];
  __shared__ PetscReal sP[KIRAN_WARPS][JAC == DMASM_KIRAN_JAC_SHARED ? 24 : 1];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  LoadRef(ref, sw, sdN);
  const PetscInt t = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (t >= n) return; /* the whole warp: no block barrier follows */
  const PetscInt  p   = p0 + t;
  const PetscReal lam = lmk ? lmk[2 * p] : lam0, mu = lmk ? lmk[2 * p + 1] : mu0;
  const int       a0 = TPR == 4 ? lane >> 2 : 2 * (lane >> 3), a1 = TPR == 4 ? a0 : a0 + 1;
  const int       b0 = TPR == 4 ? 2 * (lane & 3) : lane & 7, b1 = TPR == 4 ? b0 + 1 : b0;
  PetscReal       acc[18];
#pragma unroll
  for (int s = 0; s < 18; s++) acc[s] = 0;
  if (lane < 24) sx[w][lane] = xk[(PetscCount)p * 24 + lane]; /* coalesced: the element's coordinates are contiguous */
  __syncwarp();
  if (PPNI) {
    WarpGeometryPPNI(lane, sx[w], sdN, sJ[w], sJi[w], sdet[w], sg[w]);
#pragma unroll 1
    for (int q = 0; q < 8; q++) {
      const PetscReal wd = sw[q] * fabs(sdet[w][q]);
      Accumulate(sg[w] + 24 * q, a0, b0, a1, b1, wd * lam, wd * mu, acc);
    }
  } else {
#pragma unroll 1
    for (int q = 0; q < 8; q++) {
      const int a = lane & 7, k = lane >> 3; /* lanes < 24: J[d][k], d = pass, node a (Fig. 4) */
      if (JAC == DMASM_KIRAN_JAC_SHUFFLE) { /* 8-lane __shfl_xor reductions (the paper's choice) */
#pragma unroll
        for (int pass = 0; pass < 3; pass++) {
          const PetscReal v = Reduce8(lane < 24 ? sx[w][a * 3 + pass] * sdN[(q * 8 + a) * 3 + k] : 0.0);
          if (lane < 24 && a == 0) sJ[w][pass * 3 + k] = v;
        }
      } else if (JAC == DMASM_KIRAN_JAC_SHARED) { /* products to shared memory, 3 lanes sum 8 each */
#pragma unroll
        for (int pass = 0; pass < 3; pass++) {
          if (lane < 24) sP[w][lane] = sx[w][a * 3 + pass] * sdN[(q * 8 + a) * 3 + k];
          __syncwarp();
          if (lane < 3) {
            PetscReal v = 0;
            for (int j = 0; j < 8; j++) v += sP[w][lane * 8 + j];
            sJ[w][pass * 3 + lane] = v;
          }
          __syncwarp();
        }
      } else { /* shared-memory atomicAdd (order not fixed: not bitwise reproducible) */
        if (lane < 9) sJ[w][lane] = 0;
        __syncwarp();
#pragma unroll
        for (int pass = 0; pass < 3; pass++)
          if (lane < 24) atomicAdd(&sJ[w][pass * 3 + k], sx[w][a * 3 + pass] * sdN[(q * 8 + a) * 3 + k]);
      }
      __syncwarp();
      if (lane == 0) sdet[w][0] = Det3(sJ[w]);
      __syncwarp();
      if (lane < 9) sJi[w][lane] = InvEntry(sJ[w], lane / 3, lane % 3, sdet[w][0]);
      __syncwarp();
      if (lane < 24) {
        const int b = lane / 3, d = lane % 3;
        sg[w][lane] = sdN[(q * 8 + b) * 3 + 0] * sJi[w][0 * 3 + d] + sdN[(q * 8 + b) * 3 + 1] * sJi[w][1 * 3 + d] + sdN[(q * 8 + b) * 3 + 2] * sJi[w][2 * 3 + d];
      }
      __syncwarp();
      {
        const PetscReal wd = sw[q] * fabs(sdet[w][0]);
        Accumulate(sg[w], a0, b0, a1, b1, wd * lam, wd * mu, acc);
      }
      __syncwarp();
    }
  }
  {
    const int *m = map + (PetscCount)p * DMASM_HEX_NK + lane;
#pragma unroll
    for (int s = 0; s < 18; s++) DMAsmKiranPut(dst, m[s * 32], acc[s]);
  }
}

/* kiran ppnirow: a warp per element, PPNI geometry, then lane l < 24 accumulates element-matrix row l (node l/3,
   component l%3) over the 8 Gauss points, 24 entries in registers; store step c writes V(l, c) of the 24 lanes.  In
   ELLWARP (slices column-major: lane = row, step = entry) the 3 rows of a node at one column are consecutive slots,
   so a step writes 8 runs of 3 values (8-16 sectors) where the warp4/8 layouts write 32 scattered values (32
   sectors); into CSR the plan transposes (tr: V(l, c) = K[c][l] stored at (c, l)): a step writes one row's 24
   columns, 4 runs of 6 consecutive values.  Lanes 24-31 only help with the geometry (FP64 is not the binding
   limit: ~5 % of the FP64 peak is used).  Reference: HostKiranColor (dmasmkiran.c). */
template <bool MAP16>
__global__ static void __launch_bounds__(KIRAN_WARPS * 32, DMASM_KIRAN_ROW_MINBLOCKS) KiranRowKernel(PetscInt p0, PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const int *__restrict__ map, const int *__restrict__ mbase, const unsigned short *__restrict__ moff, PetscScalar *__restrict__ dst)
{
  __shared__ PetscReal sw[8], sdN[192];
  __shared__ PetscReal sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][72], sJi[KIRAN_WARPS][72], sdet[KIRAN_WARPS][8], sg[KIRAN_WARPS][192];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  LoadRef(ref, sw, sdN);
  const PetscInt t = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (t >= n) return; /* the whole warp: no block barrier follows */
  const PetscInt  p   = p0 + t;
  const PetscReal lam = lmk ? lmk[2 * p] : lam0, mu = lmk ? lmk[2 * p + 1] : mu0;
  if (lane < 24) sx[w][lane] = xk[(PetscCount)p * 24 + lane];
  __syncwarp();
  WarpGeometryPPNI(lane, sx[w], sdN, sJ[w], sJi[w], sdet[w], sg[w]);
  if (lane >= DMASM_HEX_NEN) return; /* after the last warp-wide shuffle and barrier */
  {
    const int a = lane / 3, i = lane % 3;
    PetscReal acc[DMASM_HEX_NEN];
#pragma unroll
    for (int c = 0; c < DMASM_HEX_NEN; c++) acc[c] = 0;
#pragma unroll 1
    for (int q = 0; q < 8; q++) {
      const PetscReal  wd = sw[q] * fabs(sdet[w][q]), wl = wd * lam, wm = wd * mu;
      const PetscReal *g = sg[w] + 24 * q;
      const PetscReal  ga[3] = {g[3 * a], g[3 * a + 1], g[3 * a + 2]}, gai = g[3 * a + i];
#pragma unroll
      for (int b = 0; b < 8; b++) { /* gb: the same address in every lane (broadcast) */
        const PetscReal gb[3] = {g[3 * b], g[3 * b + 1], g[3 * b + 2]}, gbi = g[3 * b + i];
        const PetscReal dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
#pragma unroll
        for (int k = 0; k < 3; k++) acc[3 * b + k] += wl * gai * gb[k] + wm * ga[k] * gbi + (i == k ? wm * dot : 0);
      }
    }
    if (MAP16) { /* the step's base: one address for all lanes (broadcast); 24 consecutive 16-bit offsets */
      const int            *b = mbase + (PetscCount)p * DMASM_HEX_NEN;
      const unsigned short *o = moff + (PetscCount)p * DMASM_HEX_NK + lane;
#pragma unroll
      for (int c = 0; c < DMASM_HEX_NEN; c++) DMAsmKiranPut16(dst, b[c], o[c * DMASM_HEX_NEN], acc[c]);
    } else {
      const int *m = map + (PetscCount)p * DMASM_HEX_NK + lane;
#pragma unroll
      for (int c = 0; c < DMASM_HEX_NEN; c++) DMAsmKiranPut(dst, m[c * DMASM_HEX_NEN], acc[c]);
    }
  }
}

/* owner's column step: lane l = 3b + k < 24 sums column (b, k) of the 3 rows of the node's vertex a in element e over
   the 8 Gauss points from the physical gradients sg[q][b][d] and weights w |det J| and adds them to the node's
   accumulators at the neighbour slot of vertex b (jsl).  The 24 lanes touch 72 distinct accumulators: no atomics (the
   caller's warp barrier orders one element's additions before the next's). */
__device__ __forceinline__ void OwnerColumns(int lane, const PetscReal *sg, const PetscReal *sw, const PetscReal *sdet, PetscReal lam, PetscReal mu, int a, unsigned long long sl, int maxnb, PetscReal *acc)
{
  if (lane < 24) {
    const int b = lane / 3, k = lane % 3, j = (int)((sl >> (8 * b)) & 0xff);
    PetscReal c[3] = {0, 0, 0};
#pragma unroll 1 /* unrolled, the 8 points' gradient loads are hoisted: more spill at 64 registers */
    for (int q = 0; q < 8; q++) {
      const PetscReal wd = sw[q] * fabs(sdet[q]);
      DMAsmOwnerPoint(sg + 24 * q, wd * lam, wd * mu, a, b, k, c);
    }
#pragma unroll
    for (int i = 0; i < 3; i++) acc[DMAsmOwnerAcc(maxnb, i, j, k)] += c[i];
  }
}

/* owner's stores (owner and ownergeo): lane s stores value s of the node's store list, sorted by target (consecutive
   lanes store consecutive values where the layout keeps them together), each value once and nothing read back */
__device__ __forceinline__ void OwnerStore(int lane, int base, int n, const unsigned *__restrict__ l, const PetscReal *acc, PetscScalar *__restrict__ dst)
{
  for (int s = lane; s < n; s += 32) {
    const unsigned m = l[s];
    dst[base + (int)(m >> 16)] = acc[m & 0xffff];
  }
}

/* kiran owner (write-once): a warp per node v, which owns matrix rows 3v..3v+2.  For each of its elements (nptr: the
   node -> element CSR; adj = e*8 + a, a the node's vertex in e) the warp loads the element's 24 coordinates (one
   coalesced 192 B read; the node's neighbours load the same element: L2 hits), computes its geometry at the 8 Gauss
   points at once (WarpGeometryOwner: PPNI's layout, the Jacobians by 3 passes of 8-term sums), then lane l = 3b + k < 24 sums column (b, k) of the node's 3
   rows over the Gauss points (3 accumulators: few registers) and adds them to the node's accumulators in shared memory
   at the neighbour slot of vertex b (jsl); the 24 lanes touch 72 distinct accumulators, and the warp barrier at the
   next element orders one element's additions before the next's: no atomics.  Finally lane s stores value s of the
   node's store list (sorted by target: consecutive lanes store consecutive values where the layout keeps them
   together, a CSR row's 81 values, ELLWARP's runs of 3 tpr slots: the node's 3 rows are neighbouring lanes of a
   slice), each value once and nothing read back.  Why a warp per node and not 8 or 16 lanes: the geometry is the
   warp's PPNI passes (18 8-lane shuffle reductions for the 72 Jacobian entries, 27-lane inverses, 192 gradients over
   32 lanes), 24 lanes map one-to-one onto the element's 24 columns, and the store list (up to 243 values) is 8 warp
   store instructions; with 16 lanes a node the geometry and column passes double, registers would not drop (3
   accumulators either way), and the shared memory per node stays the same.  Occupancy (-dm_assembly_kiran_owner_blocks,
   MINB blocks of 8 warps an SM; nvcc 13.0, sm_90): unbounded the kernel takes 88 registers, so 2 blocks (16
   warps an SM, no spill); 4 blocks cap it at 64 registers with 28 B of spill stores, 68 B of loads to L1 (32
   warps an SM; 4 x (25 kB geometry + 8 x 9 maxnb x 8 B accumulators, 16 kB at maxnb 27) = 164 kB of the 228 kB of
   shared memory): which is faster is to be measured.  Reference: HostKiranOwner. */
template <int MINB>
__global__ static void __launch_bounds__(KIRAN_WARPS * 32, MINB) KiranOwnerKernel(PetscInt nnode, int maxnb, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const PetscInt *__restrict__ nptr, const int *__restrict__ adj, PetscInt nelem, const unsigned long long *__restrict__ jsl, const int *__restrict__ obase, const int *__restrict__ ocnt, const unsigned *__restrict__ olist, PetscScalar *__restrict__ dst)
{
  extern __shared__ PetscReal sacc[]; /* [KIRAN_WARPS][9 maxnb] */
  __shared__ PetscReal        sw[8], sdN[192];
  __shared__ PetscReal        sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][72], sJi[KIRAN_WARPS][72], sdet[KIRAN_WARPS][8], sg[KIRAN_WARPS][192];
  const int                   lane = threadIdx.x & 31, w = threadIdx.x >> 5, cap = 9 * maxnb;
  LoadRef(ref, sw, sdN);
  const PetscInt v = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (v >= nnode) return; /* the whole warp: no block barrier follows */
  PetscReal *acc = sacc + w * cap;
  for (int x = lane; x < cap; x += 32) acc[x] = 0;
  for (PetscInt pr = nptr[v]; pr < nptr[v + 1]; pr++) {
    const int       pe = adj[pr], e = pe >> 3, a = pe & 7;
    const PetscReal lam = lmk ? lmk[2 * e] : lam0, mu = lmk ? lmk[2 * e + 1] : mu0;
    __syncwarp(); /* the previous element's readers of sg/sdet and adders to acc are done */
    if (lane < 24) sx[w][lane] = xk[(PetscCount)e * 24 + lane];
    __syncwarp();
    WarpGeometryOwner(lane, sx[w], sdN, sJ[w], sJi[w], sdet[w], sg[w]);
    OwnerColumns(lane, sg[w], sw, sdet[w], lam, mu, a, lane < 24 ? jsl[(PetscCount)a * nelem + e] : 0, maxnb, acc);
  }
  __syncwarp();
  OwnerStore(lane, obase[v], ocnt[v], olist + (PetscCount)v * cap, acc, dst);
}

/* ownergeo, first kernel: the geometry once per element (a warp per element: WarpGeometryOwner, as owner computes it 8
   times), scaled by sqrt(w_q |det J_q|) and written element-major G[e][q][b][d], 6 coalesced passes of 32 lanes.  An
   element whose det J is 0, not finite, or changes sign between its Gauss points (inverted or tangled) sets *bad: the
   caller errors.  The other strategies take |det J| (the sign is the vertex order's), so does this one. */
__global__ static void __launch_bounds__(KIRAN_WARPS * 32) KiranOwnerGeometryKernel(PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, PetscReal *__restrict__ G, int *__restrict__ bad)
{
  __shared__ PetscReal sw[8], sdN[192];
  __shared__ PetscReal sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][72], sJi[KIRAN_WARPS][72], sdet[KIRAN_WARPS][8], sg[KIRAN_WARPS][192], ss[KIRAN_WARPS][8];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  LoadRef(ref, sw, sdN);
  const PetscInt e = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (e >= n) return; /* the whole warp: no block barrier follows */
  if (lane < 24) sx[w][lane] = xk[(PetscCount)e * 24 + lane];
  __syncwarp();
  WarpGeometryOwner(lane, sx[w], sdN, sJ[w], sJi[w], sdet[w], sg[w]);
  if (lane < 8) {
    const PetscReal d = sdet[w][lane];
    if (!(d * sdet[w][0] > 0)) *bad = 1;
    ss[w][lane] = sqrt(sw[lane] * fabs(d));
  }
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < 6; pass++) {
    const int idx = pass * 32 + lane;
    G[(PetscCount)e * DMASM_OWNERGEO_G + idx] = sg[w][idx] * ss[w][idx / 24];
  }
}

/* ownergeo, first kernel, the point variant (-dm_assembly_kiran_geometry_kernel point): a thread per (element, Gauss
   point), a block of 256 threads = 32 elements.  Why: the warp kernel (a warp per element) spends ~350 warp instructions
   an element on 3 Jacobian passes, 27-lane inverses, 6 gradient passes and 7 warp barriers with 25.6 kB of shared memory
   a block, and measured 40 % of the bandwidth (H100, mesh 1: 1.44 ns/element for 1 728 B).  Here each thread computes
   its point's Jacobian (72 FMAs), inverse and 24 scaled gradients in registers (DMAsmElasJacInv/DMAsmElasGrad: the
   host reference's functions): ~400 thread instructions a point, ~100 warp instructions an element, so the kernel is
   left with its bytes: the block's 32 x 192 B of coordinates are read in 3 coalesced passes (sx, elements padded to 25
   doubles and sdN's points to 25: conflict-free shared loads), and G is written through a per-warp staging buffer in 3
   chunks of 8 gradients a thread, so that each warp store instruction writes 4 aligned runs of 64 B (8 full sectors)
   instead of the 32 sectors of a 192 B-strided store.  Registers and shared memory: nvcc -Xptxas -v (README).  The
   sign check of det J: the 8 threads of an element are 8 consecutive lanes, det at point 0 by a shuffle. */
#define KIRAN_GEOPT_ELEMS 32 /* elements a block (8 threads each) */
template <int MINB> /* blocks an SM (-dm_assembly_kiran_geometry_blocks; nvcc 13.0, sm_90: 3 blocks 75 registers, 5 blocks 48, 6 blocks 40, no spill) */
__global__ static void __launch_bounds__(KIRAN_GEOPT_ELEMS * 8, MINB) KiranOwnerGeometryPointKernel(PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, PetscReal *__restrict__ G, int *__restrict__ bad)
{
  __shared__ PetscReal sw[8], sdN[8 * 25], sx[KIRAN_GEOPT_ELEMS * 25], stage[8][32 * 9];
  const int            t = threadIdx.x, lane = t & 31, w = t >> 5, el = t >> 3, q = t & 7;
  const PetscInt       e0 = blockIdx.x * (PetscInt)KIRAN_GEOPT_ELEMS, e = e0 + el;
  const int            nb = (int)(n - e0 < KIRAN_GEOPT_ELEMS ? n - e0 : KIRAN_GEOPT_ELEMS);
  for (int i = t; i < 200; i += blockDim.x) {
    if (i < 8) sw[i] = ref[i];
    else sdN[((i - 8) / 24) * 25 + (i - 8) % 24] = ref[i];
  }
  for (int i = t; i < KIRAN_GEOPT_ELEMS * 24; i += blockDim.x) sx[(i / 24) * 25 + i % 24] = i < nb * 24 ? xk[(PetscCount)e0 * 24 + i] : 0; /* coalesced */
  __syncthreads();
  const PetscReal *x = sx + el * 25, *dN = sdN + q * 25; /* read from shared memory where used: fewer live registers */
  PetscReal        Ji[9];
  const PetscReal  det = DMAsmElasJacInv(3, 8, dN, x, Ji), d0 = __shfl_sync(0xffffffffu, det, lane & ~7), sc = sqrt(sw[q] * fabs(det));
  if (e < n && !(det * d0 > 0)) *bad = 1;
#pragma unroll
  for (int c = 0; c < 3; c++) { /* chunk c: gradients 8c .. 8c+7 of every thread of the warp, computed chunk by chunk
                                   (DMAsmElasGrad's sums, 8 at a time: 16 registers instead of all 24 gradients' 48) */
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 8; i++) {
      const int gi = 8 * c + i, a = gi / 3, d = gi % 3;
      PetscReal sg = 0;
#pragma unroll
      for (int kk = 0; kk < 3; kk++) sg += dN[a * 3 + kk] * Ji[kk * 3 + d];
      stage[w][lane * 9 + i] = sg * sc;
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 8; r++) { /* value idx = 8 l + i of the chunk: thread l's (element 4w + l/8, point l%8) entry 8c + i */
      const int      idx = r * 32 + lane, l = idx >> 3, i = idx & 7;
      const PetscInt ee  = e0 + 4 * w + (l >> 3);
      if (ee < n) G[(PetscCount)ee * DMASM_OWNERGEO_G + (l & 7) * 24 + 8 * c + i] = stage[w][l * 9 + i];
    }
  }
}

/* ownergeo, second kernel: owner's warp per node with the element's geometry read from G (1536 B; the 8 node warps of
   an element read it, mostly from L2: box-mesh nodes and elements are numbered by planes, so an element's nodes are at
   most a plane of elements apart) instead of recomputed.  Why G and not J^{-1} and w|det J| (8 x 10 doubles = 640 B):
   the gradients would be rebuilt per pair (8 x 24 x 3 FMAs, ~60 warp instructions a pair) to save 1.8 kB of DRAM per
   element; G prescaled lets lambda, mu leave the Gauss sum.  How, and why so (H100, benchmarks/results/elasticity-h100/
   logs-ownergeo/node-register/: this kernel replaced one that staged G through shared memory, 4.64-4.75 against
   5.14-5.18 ns/element on mesh 1, both with the geometry kernel).
   The staged kernel with 2 blocks an SM (16 warps) took 1.4x the time of 4 blocks (32 warps): its warps mostly waited.
   Per node it waited for nptr, adj, the first G, then per pair for adj (the next pair's G address) and jsl, then per
   32 stored values for the store list (8 rounds): ~27 memory latencies a node.  Here ~3:
   - the node's adjacency entries and neighbour slots are loaded at once, lane t the pair t of a chunk of 32, and
     shuffled to the warp pair by pair;
   - the store list goes to shared memory by cp.async while the pairs run (no registers, no wait at the end);
   - lane l = 3b + k < 24 loads its column of G, G[e][q][l] for the 8 points, straight into registers (8 coalesced
     192 B loads, the next pair's in flight during this pair's step), so the gradients are neither staged nor re-read;
   - the 24 values g_a(q)[i] that every lane needs are in lanes 3a + i: they write them to a per-warp buffer
     (2 x 24 doubles, alternating pairs: one warp barrier a pair) as 4 16-byte stores, and every lane reads them back
     with 12 16-byte broadcast loads (one wavefront each; the staged kernel's column step had 32 8-byte loads);
   - the M exchange by shuffles: lane (b, k) holds column k of M_ab (m[i] = M[i][k]); the shuffle r = 1, 2 from lane
     3b + (k + r) % 3, whose source lane (b, s) sends m[(s - r) % 3] = M[(s - r) % 3][s], brings M[k][(k + r) % 3] (row
     k), and two more bring the other two diagonal entries; 8 32-bit shuffles instead of 3 stores and 9 loads;
   - the values of the block's 8 nodes are stored together by the block's list where there is one (DMAsmOwnerBlockEntry:
     sorted by target, consecutive threads write consecutive values across the nodes' rows), else each node its own.
   Lanes 24-31 compute on zeros and only pass the shuffles and barriers.  Shared memory: the accumulators and store
   lists (12 B x 9 maxnb a warp) and the g_a buffers (3 kB a block). */
template <int MINB>
__global__ static void __launch_bounds__(KIRAN_WARPS * 32, MINB) KiranOwnerGeoKernel(int nch, PetscInt nnode, int maxnb, const PetscReal *__restrict__ G, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const PetscInt *__restrict__ nptr, const int *__restrict__ adj, PetscInt nelem, const unsigned long long *__restrict__ jsl, const int *__restrict__ obase, const int *__restrict__ ocnt, const unsigned *__restrict__ olist, const int *__restrict__ bwin, const int *__restrict__ bcnt, const unsigned *__restrict__ blist, PetscScalar *__restrict__ dst)
{
  extern __shared__ PetscReal sacc[]; /* [KIRAN_WARPS][9 maxnb] accumulators, then [KIRAN_WARPS][9 maxnb] store lists (or the block's) */
  __shared__ double2          sga[KIRAN_WARPS][2][12]; /* [buffer][i][q / 2]: (g_a(q)[i], g_a(q + 1)[i]) */
  __shared__ int              swin[DMASM_OWNER_BLOCK]; /* the block list's window bases */
  const int                   lane = threadIdx.x & 31, w = threadIdx.x >> 5, cap = 9 * maxnb;
  const PetscInt              v    = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  const bool                  live = v < nnode; /* no return: the block lists' stores follow a block barrier */
  const int      k = lane % 3, g0 = lane - k, s1 = g0 + (k + 1) % 3, s2 = g0 + (k + 2) % 3;
  PetscReal     *acc  = sacc + w * cap;
  unsigned      *slst = reinterpret_cast<unsigned *>(sacc + KIRAN_WARPS * cap) + w * cap;
  const PetscInt p0 = live ? nptr[v] : 0, p1 = live ? nptr[v + 1] : 0;
  const int      ob = live ? obase[v] : 0, oc = live ? ocnt[v] : 0;
  /* the store list (the block's, else the node's) copied to shared memory while the pairs run (cp.async: no registers,
     no latency at the end) */
  if (blist && bcnt[blockIdx.x] >= 0) { /* bcnt -1: this block's nodes store by their own lists */
    const unsigned *bl = blist + (PetscCount)blockIdx.x * DMASM_OWNER_BLOCK * cap;
    unsigned       *sb = reinterpret_cast<unsigned *>(sacc + KIRAN_WARPS * cap);
    for (int x = threadIdx.x, bc = bcnt[blockIdx.x]; x < bc; x += blockDim.x) __pipeline_memcpy_async(sb + x, bl + x, sizeof(unsigned));
    if (threadIdx.x < DMASM_OWNER_BLOCK) __pipeline_memcpy_async(swin + threadIdx.x, bwin + (PetscCount)blockIdx.x * DMASM_OWNER_BLOCK + threadIdx.x, sizeof(int));
  } else
    for (int x = lane; x < oc; x += 32) __pipeline_memcpy_async(slst + x, olist + (PetscCount)v * cap + x, sizeof(unsigned));
  __pipeline_commit();
  for (int x = lane; x < cap; x += 32) acc[x] = 0;
  /* lane t < nch holds pair p0 + c + t of the current chunk of nch (32; smaller only to test the chunk change on meshes
     of at most 8 elements a node): its adjacency entry and neighbour slots, so that no pair waits for these loads (they
     are shuffled to the warp); a per-element material is loaded at the pair's start */
  int                mpe = 0;
  unsigned long long msl = 0;
  PetscReal          nx[8];
#define KIRAN_REG_CHUNK(c0) \
  do { \
    if (lane < nch && (c0) + lane < p1) { \
      mpe = adj[(c0) + lane]; \
      msl = jsl[(PetscCount)(mpe & 7) * nelem + (mpe >> 3)]; \
    } \
  } while (0)
  KIRAN_REG_CHUNK(p0);
  int pe = __shfl_sync(0xffffffffu, mpe, 0);
#pragma unroll
  for (int q = 0; q < 8; q++) nx[q] = 0;
  if (p0 < p1 && lane < 24) {
    const PetscReal *gn = G + (PetscCount)(pe >> 3) * DMASM_OWNERGEO_G + lane;
#pragma unroll
    for (int q = 0; q < 8; q++) nx[q] = gn[24 * q];
  }
  for (PetscInt pr = p0; pr < p1; pr++) {
    const int t = (int)(pr - p0) & (nch - 1), e = pe >> 3, a = pe & 7, buf = (int)((pr - p0) & 1);
    const PetscReal lam = lmk ? lmk[2 * e] : lam0, mu = lmk ? lmk[2 * e + 1] : mu0; /* used at the pair's end */
    if (t == 0 && pr > p0) KIRAN_REG_CHUNK(pr); /* nodes of more than nch elements */
    const unsigned long long sl  = __shfl_sync(0xffffffffu, msl, t);
    PetscReal                c[8];
#pragma unroll
    for (int q = 0; q < 8; q++) c[q] = nx[q];
    if (lane >= 3 * a && lane < 3 * a + 3) { /* lanes 3a + i: g_a(.)[i] for every lane */
#pragma unroll
      for (int p = 0; p < 4; p++) sga[w][buf][4 * (lane - 3 * a) + p] = make_double2(c[2 * p], c[2 * p + 1]);
    }
    __syncwarp(); /* this buffer written; the previous pair's adders to acc are done (and the pair before's readers of this buffer) */
    { /* the next pair's column in flight during this pair's step (no branch around the loads: a conditional block here
         was scheduled after the step; the last pair reloads its own column, unused) */
      int pn = __shfl_sync(0xffffffffu, mpe, (t + 1) & 31);
      if (t == nch - 1) pn = pr + 1 < p1 ? adj[pr + 1] : pe; /* the next chunk's first pair */
      pe = pr + 1 < p1 ? pn : pe;
    }
    if (lane < 24) {
      const PetscReal *gn = G + (PetscCount)(pe >> 3) * DMASM_OWNERGEO_G + lane;
#pragma unroll
      for (int q = 0; q < 8; q++) nx[q] = gn[24 * q];
    }
    PetscReal m[3] = {0, 0, 0};
#pragma unroll
    for (int p = 0; p < 4; p++) {
      double2 ga[3];
#pragma unroll
      for (int i = 0; i < 3; i++) ga[i] = sga[w][buf][4 * i + p];
#pragma unroll
      for (int i = 0; i < 3; i++) m[i] += ga[i].x * c[2 * p]; /* DMAsmOwnerGeoPoint, point 2p */
#pragma unroll
      for (int i = 0; i < 3; i++) m[i] += ga[i].y * c[2 * p + 1];
    }
    { /* row k of M_ab and its trace from the 3 lanes of b (the caller of DMAsmOwnerGeoEntry: col = m) */
      const PetscReal mk = k == 0 ? m[0] : (k == 1 ? m[1] : m[2]);
      const PetscReal o1 = k == 0 ? m[2] : (k == 1 ? m[0] : m[1]); /* m[(k - 1) % 3]: for the lane 3b + (k - 1) % 3 */
      const PetscReal o2 = k == 0 ? m[1] : (k == 1 ? m[2] : m[0]); /* m[(k - 2) % 3] */
      const PetscReal t1 = __shfl_sync(0xffffffffu, o1, s1), t2 = __shfl_sync(0xffffffffu, o2, s2);
      const PetscReal d1 = __shfl_sync(0xffffffffu, mk, s1), d2 = __shfl_sync(0xffffffffu, mk, s2);
      PetscReal       row[3], dg[3];
#pragma unroll
      for (int i = 0; i < 3; i++) {
        row[i] = i == k ? mk : (i == (k + 1) % 3 ? t1 : t2);
        dg[i]  = i == k ? mk : (i == (k + 1) % 3 ? d1 : d2);
      }
      const PetscReal tr = dg[0] + dg[1] + dg[2]; /* M00 + M11 + M22, as the host */
      if (lane < 24) {
        const int j = (int)((sl >> (8 * (lane / 3))) & 0xff);
#pragma unroll
        for (int i = 0; i < 3; i++) acc[DMAsmOwnerAcc(maxnb, i, j, k)] += DMAsmOwnerGeoEntry(m, row, tr, lam, mu, i, k);
      }
    }
  }
#undef KIRAN_REG_CHUNK
  __pipeline_wait_prior(0);
  if (blist && bcnt[blockIdx.x] >= 0) { /* the block's values by its list: consecutive threads, consecutive targets across
                                           the block's nodes (bcnt loaded again, not held through the pairs: registers) */
    const unsigned *sb = reinterpret_cast<const unsigned *>(sacc + KIRAN_WARPS * cap);
    const int       bc = bcnt[blockIdx.x];
    __syncthreads(); /* every warp's accumulators, the list and the windows are in place (bc is the same for the whole block) */
    for (int x = threadIdx.x; x < bc; x += blockDim.x) {
      const unsigned mm = sb[x];
      dst[DMAsmOwnerBlockTarget(swin, mm)] = sacc[mm & 0xfff];
    }
    return;
  }
  __syncwarp(); /* every lane's accumulators and list entries are in place */
  for (int x = lane; x < oc; x += 32) {
    const unsigned mm = slst[x];
    dst[ob + (int)(mm >> 16)] = acc[mm & 0xffff];
  }
}

PetscErrorCode DMAsmCUDAKiranOwner(int blocks, PetscInt nnode, int maxnb, const PetscReal *dref, const PetscReal *xk, const PetscReal *lmk, PetscReal lam, PetscReal mu, const PetscInt *nptr, const int *adj, PetscInt nelem, const unsigned long long *jsl, const int *obase, const int *ocnt, const unsigned *olist, PetscScalar *dst)
{
  cudaStream_t s;
  const size_t smem = sizeof(PetscReal) * KIRAN_WARPS * 9 * (size_t)maxnb;

  PetscFunctionBegin;
  if (!nnode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(maxnb <= DMASM_OWNER_MAXNB, PETSC_COMM_SELF, PETSC_ERR_PLIB, "kiran owner: %d neighbours a node, at most %d", maxnb, DMASM_OWNER_MAXNB);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (blocks == 2) KiranOwnerKernel<2><<<PetscEllwarpBlocks(nnode, KIRAN_WARPS), KIRAN_WARPS * 32, smem, s>>>(nnode, maxnb, dref, xk, lmk, lam, mu, nptr, adj, nelem, jsl, obase, ocnt, olist, dst);
  else if (blocks == 4) KiranOwnerKernel<4><<<PetscEllwarpBlocks(nnode, KIRAN_WARPS), KIRAN_WARPS * 32, smem, s>>>(nnode, maxnb, dref, xk, lmk, lam, mu, nptr, adj, nelem, jsl, obase, ocnt, olist, dst);
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kiran owner: %d blocks an SM, 2 or 4", blocks);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAKiranOwnerGeo(int blocks, int nch, PetscInt nnode, int maxnb, const PetscReal *lmk, PetscReal lam, PetscReal mu, const PetscInt *nptr, const int *adj, PetscInt nelem, const unsigned long long *jsl, const int *obase, const int *ocnt, const unsigned *olist, const int *bwin, const int *bcnt, const unsigned *blist, const PetscReal *G, PetscScalar *dst)
{
  cudaStream_t s;
  const size_t smem = (sizeof(PetscReal) + sizeof(unsigned)) * KIRAN_WARPS * 9 * (size_t)maxnb; /* accumulators and store lists */

  PetscFunctionBegin;
  if (!nnode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(maxnb <= DMASM_OWNER_MAXNB, PETSC_COMM_SELF, PETSC_ERR_PLIB, "kiran ownergeo: %d neighbours a node, at most %d", maxnb, DMASM_OWNER_MAXNB);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (blocks == 2) KiranOwnerGeoKernel<2><<<PetscEllwarpBlocks(nnode, KIRAN_WARPS), KIRAN_WARPS * 32, smem, s>>>(nch, nnode, maxnb, G, lmk, lam, mu, nptr, adj, nelem, jsl, obase, ocnt, olist, bwin, bcnt, blist, dst);
  else if (blocks == 4) KiranOwnerGeoKernel<4><<<PetscEllwarpBlocks(nnode, KIRAN_WARPS), KIRAN_WARPS * 32, smem, s>>>(nch, nnode, maxnb, G, lmk, lam, mu, nptr, adj, nelem, jsl, obase, ocnt, olist, bwin, bcnt, blist, dst);
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kiran ownergeo: %d blocks an SM, 2 or 4", blocks);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAKiranOwnerGeometry(int kind, int blocks, PetscInt nelem, const PetscReal *dref, const PetscReal *xk, PetscReal *G, int *bad, PetscBool *ok)
{
  cudaStream_t s;
  int          hbad = 0;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  if (ok) PetscCallCUDA(cudaMemsetAsync(bad, 0, sizeof(int), s));
  if (nelem) {
    PetscCall(PetscLogGpuTimeBegin());
    if (kind == 1 && blocks == 3) KiranOwnerGeometryPointKernel<3><<<PetscEllwarpBlocks(nelem, KIRAN_GEOPT_ELEMS), KIRAN_GEOPT_ELEMS * 8, 0, s>>>(nelem, dref, xk, G, bad);
    else if (kind == 1 && blocks == 5) KiranOwnerGeometryPointKernel<5><<<PetscEllwarpBlocks(nelem, KIRAN_GEOPT_ELEMS), KIRAN_GEOPT_ELEMS * 8, 0, s>>>(nelem, dref, xk, G, bad);
    else if (kind == 1 && blocks == 6) KiranOwnerGeometryPointKernel<6><<<PetscEllwarpBlocks(nelem, KIRAN_GEOPT_ELEMS), KIRAN_GEOPT_ELEMS * 8, 0, s>>>(nelem, dref, xk, G, bad);
    else if (kind == 1) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kiran ownergeo: the point geometry kernel for %d blocks an SM: 3, 5 or 6", blocks);
    else KiranOwnerGeometryKernel<<<PetscEllwarpBlocks(nelem, KIRAN_WARPS), KIRAN_WARPS * 32, 0, s>>>(nelem, dref, xk, G, bad);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
  }
  if (ok) {
    PetscCall(PetscEllwarpDeviceDownload(&hbad, bad, sizeof(hbad)));
    *ok = hbad ? PETSC_FALSE : PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* kiran two kernels, first: the geometry of all Gauss points of every element (a warp per element, PPNI) */
__global__ static void __launch_bounds__(KIRAN_WARPS * 32) KiranGeometryKernel(PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xk, PetscReal *__restrict__ geo)
{
  __shared__ PetscReal sw[8], sdN[192];
  __shared__ PetscReal sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][72], sJi[KIRAN_WARPS][72], sdet[KIRAN_WARPS][8];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, a = lane & 7;
  LoadRef(ref, sw, sdN);
  const PetscInt p = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (p >= n) return;
  if (lane < 24) sx[w][lane] = xk[(PetscCount)p * 24 + lane];
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < 18; pass++) {
    const int       E = pass * 4 + (lane >> 3), q = E / 9, d = (E % 9) / 3, k = E % 3;
    const PetscReal v = Reduce8(sx[w][a * 3 + d] * sdN[(q * 8 + a) * 3 + k]);
    if (a == 0) sJ[w][E] = v;
  }
  __syncwarp();
  if (lane < 8) sdet[w][lane] = Det3(sJ[w] + 9 * lane);
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < 3; pass++) {
    const int q = pass * 3 + lane / 9;
    if (lane < 27 && q < 8) sJi[w][9 * q + lane % 9] = InvEntry(sJ[w] + 9 * q, (lane % 9) / 3, lane % 3, sdet[w][q]);
  }
  __syncwarp();
  for (int idx = lane; idx < KIRAN_GEO; idx += 32) { /* coalesced: 80 consecutive values */
    const int q = idx / 10, j = idx % 10;
    geo[(PetscCount)p * KIRAN_GEO + idx] = j < 9 ? sJi[w][9 * q + j] : sw[q] * fabs(sdet[w][q]);
  }
}

/* kiran two kernels, second: a block of 576 threads per element, thread r computes and adds entry r (row-major) */
__global__ static void __launch_bounds__(DMASM_HEX_NK) KiranEntryKernel(PetscInt p0, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ geo, const PetscReal *__restrict__ lmk, PetscReal lam0, PetscReal mu0, const int *__restrict__ map, PetscScalar *__restrict__ dst)
{
  __shared__ PetscReal sdN[192], sgeo[KIRAN_GEO], sg[192];
  const int      r = threadIdx.x;
  const PetscInt p = p0 + blockIdx.x;
  if (r < 192) sdN[r] = ref[8 + r];
  if (r < KIRAN_GEO) sgeo[r] = geo[(PetscCount)p * KIRAN_GEO + r];
  __syncthreads();
  if (r < 192) {
    const int q = r / 24, b = (r % 24) / 3, d = r % 3;
    sg[r]       = sdN[(q * 8 + b) * 3 + 0] * sgeo[q * 10 + 0 * 3 + d] + sdN[(q * 8 + b) * 3 + 1] * sgeo[q * 10 + 1 * 3 + d] + sdN[(q * 8 + b) * 3 + 2] * sgeo[q * 10 + 2 * 3 + d];
  }
  __syncthreads();
  {
    const PetscReal lam = lmk ? lmk[2 * p] : lam0, mu = lmk ? lmk[2 * p + 1] : mu0;
    const int       row = r / 24, col = r % 24, a = row / 3, i = row % 3, b = col / 3, k = col % 3;
    PetscScalar     v = 0;
#pragma unroll
    for (int q = 0; q < 8; q++) {
      const PetscReal *ga = sg + q * 24 + 3 * a, *gb = sg + q * 24 + 3 * b, wd = sgeo[q * 10 + 9];
      v += DMAsmElasEntry(ga, gb, ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2], i, k, wd * lam, wd * mu);
    }
    DMAsmKiranPut(dst, map[(PetscCount)p * DMASM_HEX_NK + r], v);
  }
}

PetscErrorCode DMAsmCUDAKiranGeometry(PetscInt nelem, const PetscReal *dref, const PetscReal *xk, PetscReal *geo)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  KiranGeometryKernel<<<PetscEllwarpBlocks(nelem, KIRAN_WARPS), KIRAN_WARPS * 32, 0, s>>>(nelem, dref, xk, geo);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define KIRAN_WARP_JAC(TPR) \
  do { \
    if (jac == DMASM_KIRAN_JAC_SHARED) KiranWarpKernel<TPR, false, DMASM_KIRAN_JAC_SHARED><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, dst); \
    else if (jac == DMASM_KIRAN_JAC_ATOMIC) KiranWarpKernel<TPR, false, DMASM_KIRAN_JAC_ATOMIC><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, dst); \
    else KiranWarpKernel<TPR, false, DMASM_KIRAN_JAC_SHUFFLE><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, dst); \
  } while (0)

PetscErrorCode DMAsmCUDAKiranColor(int strategy, int jac, PetscInt p0, PetscInt n, PetscInt nelem, const PetscReal *dref, const PetscReal *xk, const PetscReal *lmk, PetscReal lam, PetscReal mu, const int *map, const int *mbase, const unsigned short *moff, const PetscReal *geo, PetscScalar *dst)
{
  cudaStream_t   s;
  const unsigned gw = PetscEllwarpBlocks(n, KIRAN_WARPS);

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  switch (strategy) {
  case DMASM_KIRAN_ELEMENT:
    KiranElementKernel<<<PetscEllwarpBlocks(n, 128), 128, 0, s>>>(p0, n, nelem, dref, xk, lmk, lam, mu, map, dst);
    break;
  case DMASM_KIRAN_WARP4:
    KIRAN_WARP_JAC(4);
    break;
  case DMASM_KIRAN_WARP8:
    KIRAN_WARP_JAC(8);
    break;
  case DMASM_KIRAN_PPNI4:
    KiranWarpKernel<4, true, DMASM_KIRAN_JAC_SHUFFLE><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, dst);
    break;
  case DMASM_KIRAN_PPNI8:
    KiranWarpKernel<8, true, DMASM_KIRAN_JAC_SHUFFLE><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, dst);
    break;
  case DMASM_KIRAN_PPNIROW:
    if (mbase) KiranRowKernel<true><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, mbase, moff, dst);
    else KiranRowKernel<false><<<gw, KIRAN_WARPS * 32, 0, s>>>(p0, n, dref, xk, lmk, lam, mu, map, mbase, moff, dst);
    break;
  case DMASM_KIRAN_TWOKERNEL:
    PetscCheck(n <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "kiran twokernel: at most 2^31-1 elements a colour");
    KiranEntryKernel<<<(unsigned)n, DMASM_HEX_NK, 0, s>>>(p0, dref, geo, lmk, lam, mu, map, dst);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kiran: unknown strategy %d", strategy);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the index map from the device element targets: the first (lowest colour-ordered) element touching each value
   (atomicMin), then one thread per (element, entry) writes its map position as on the host (DMAsmKiranMapPos),
   first touches encoded as stores (~t); the values nobody touches are listed for the zeroing */
#define KIRAN_NOBODY 0x7f7f7f7f /* cudaMemset byte 0x7f: larger than any element position */

__global__ static void KiranFirstKernel(PetscInt nelem, const PetscInt *__restrict__ colelem, const PetscInt *__restrict__ q2t, int *__restrict__ first)
{
  const PetscCount nq = (PetscCount)nelem * DMASM_HEX_NK;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < nq; t += (PetscCount)gridDim.x * blockDim.x) {
    const PetscCount p = t / DMASM_HEX_NK;
    const int        r = (int)(t % DMASM_HEX_NK);
    atomicMin(&first[q2t[(PetscCount)r * nelem + colelem[p]]], (int)p);
  }
}

__global__ static void KiranMapKernel(int strategy, int tr, PetscInt nelem, const PetscInt *__restrict__ colelem, const PetscInt *__restrict__ q2t, const int *__restrict__ first, int *__restrict__ map)
{
  const PetscCount nq = (PetscCount)nelem * DMASM_HEX_NK;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < nq; t += (PetscCount)gridDim.x * blockDim.x) {
    const PetscCount p   = t / DMASM_HEX_NK;
    const int        r   = (int)(t % DMASM_HEX_NK);
    const int        tgt = (int)q2t[(PetscCount)r * nelem + colelem[p]];
    map[DMAsmKiranMapPos(strategy, tr, nelem, p, r)] = first[tgt] == (int)p ? ~tgt : tgt;
  }
}

/* ppnirow's store order: consecutive targets in a store step, row order and transposed (DMAsmKiranOrderCount), over
   every element (grid-stride, one atomic per thread) */
__global__ static void KiranOrderKernel(PetscInt nelem, const PetscInt *__restrict__ q2t, unsigned long long *__restrict__ cnt)
{
  const PetscCount nq   = (PetscCount)nelem * DMASM_HEX_NK;
  PetscCount       c[2] = {0, 0};
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < nq; t += (PetscCount)gridDim.x * blockDim.x) {
    const int      r = (int)(t / nelem); /* entry-major like q2t: neighbouring threads read neighbouring targets */
    const PetscInt e = (PetscInt)(t % nelem);
    const PetscInt v = q2t[t];
    const PetscInt d = r + DMASM_HEX_NEN < DMASM_HEX_NK ? q2t[(PetscCount)(r + DMASM_HEX_NEN) * nelem + e] : v;
    const PetscInt x = r % DMASM_HEX_NEN < DMASM_HEX_NEN - 1 ? q2t[(PetscCount)(r + 1) * nelem + e] : v;
    DMAsmKiranOrderCount(r, v, d, x, c);
  }
  if (c[0]) atomicAdd(&cnt[0], (unsigned long long)c[0]);
  if (c[1]) atomicAdd(&cnt[1], (unsigned long long)c[1]);
}

PetscErrorCode DMAsmCUDAKiranOrder(PetscInt nelem, const PetscInt *dq2t, PetscCount cnt[2])
{
  cudaStream_t        s;
  unsigned long long *dcnt, hcnt[2] = {0, 0};
  const unsigned      g = PetscMin(PetscEllwarpBlocks((PetscCount)nelem * DMASM_HEX_NK, 256), 4096u);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dcnt, 2, "DMAssembly kiran store order (counts)"));
  PetscCallCUDA(cudaMemsetAsync(dcnt, 0, 2 * sizeof(*dcnt), s));
  if (nelem) {
    KiranOrderKernel<<<g, 256, 0, s>>>(nelem, dq2t, dcnt);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscEllwarpDeviceDownload(hcnt, dcnt, sizeof(hcnt)));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
  cnt[0] = (PetscCount)hcnt[0];
  cnt[1] = (PetscCount)hcnt[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ppnirow: the compressed map, a thread per store step (DMAsmKiranMap16); bad != 0 where a step does not fit */
__global__ static void KiranMap16Kernel(PetscInt nelem, const int *__restrict__ map, int *__restrict__ mbase, unsigned short *__restrict__ moff, int *__restrict__ bad)
{
  const PetscCount ns = (PetscCount)nelem * DMASM_HEX_NEN;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < ns; t += (PetscCount)gridDim.x * blockDim.x)
    if (!DMAsmKiranMap16(map + t * DMASM_HEX_NEN, mbase + t, moff + t * DMASM_HEX_NEN)) *bad = 1;
}

PetscErrorCode DMAsmCUDAKiranMap16(PetscInt nelem, const int *dmap, int *dmbase, unsigned short *dmoff, PetscBool *ok)
{
  cudaStream_t s;
  int         *dbad, bad = 0;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dbad, 1, "DMAssembly kiran 16-bit map (flag)"));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), s));
  if (nelem) {
    KiranMap16Kernel<<<PetscEllwarpBlocks((PetscCount)nelem * DMASM_HEX_NEN, 256), 256, 0, s>>>(nelem, dmap, dmbase, dmoff, dbad);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(bad)));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
  *ok = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* list (count first with list == NULL) the values nobody touches */
__global__ static void KiranUntouchedKernel(PetscCount nval, const int *__restrict__ first, unsigned long long *__restrict__ cnt, int *__restrict__ list)
{
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < nval; t += (PetscCount)gridDim.x * blockDim.x)
    if (first[t] == KIRAN_NOBODY) {
      const unsigned long long i = atomicAdd(cnt, 1ULL);
      if (list) list[i] = (int)t;
    }
}

/* the values with first[t] == KIRAN_NOBODY, counted (dcnt: zero on entry) then listed into a new *duntouched */
static PetscErrorCode UntouchedList(cudaStream_t s, PetscCount nval, const int *first, unsigned long long *dcnt, PetscCount *nuntouched, int **duntouched)
{
  unsigned long long cnt = 0;
  const unsigned     gv  = PetscEllwarpBlocks(nval, 256);

  PetscFunctionBegin;
  KiranUntouchedKernel<<<gv, 256, 0, s>>>(nval, first, dcnt, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&cnt, dcnt, sizeof(cnt)));
  *nuntouched = (PetscCount)cnt;
  PetscCall(DMAsmCUDAMalloc((void **)duntouched, sizeof(int) * (cnt ? cnt : 1)));
  if (cnt) {
    PetscCallCUDA(cudaMemsetAsync(dcnt, 0, sizeof(*dcnt), s));
    KiranUntouchedKernel<<<gv, 256, 0, s>>>(nval, first, dcnt, *duntouched);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAKiranMap(int strategy, int tr, PetscInt nelem, const PetscInt *dcolelem, const PetscInt *dq2t, PetscCount nval, int *dmap, PetscCount *nuntouched, int **duntouched)
{
  cudaStream_t        s;
  int                *first;
  unsigned long long *dcnt;
  const unsigned      g = PetscEllwarpBlocks((PetscCount)nelem * DMASM_HEX_NK, 256);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&first, nval, "DMAssembly kiran map (first touches)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dcnt, 1, "DMAssembly kiran map (count)"));
  PetscCallCUDA(cudaMemsetAsync(first, 0x7f, sizeof(int) * nval, s));
  PetscCallCUDA(cudaMemsetAsync(dcnt, 0, sizeof(*dcnt), s));
  if (nelem) {
    KiranFirstKernel<<<g, 256, 0, s>>>(nelem, dcolelem, dq2t, first);
    PetscCallCUDA(cudaGetLastError());
    KiranMapKernel<<<g, 256, 0, s>>>(strategy, tr, nelem, dcolelem, dq2t, first, dmap);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(UntouchedList(s, nval, first, dcnt, nuntouched, duntouched));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&first));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner's plan on the device (the host's OwnerPlan, same loops): each element entry's target -- its column searched
   in its row of the target (ia, ja; c2v: the slot of each CSR entry) -- into its row node's accumulator slot
   (atomicCAS from -1: the elements sharing an entry must name the same target), then a thread per node packs its
   store list (DMAsmOwnerPack), then the values no list names are listed for the zeroing.  A missing entry: *miss =
   the smallest such element entry + 1 */
__global__ static void KiranOwnerScatterKernel(PetscInt nelem, int maxnb, const int *__restrict__ vnode, const unsigned long long *__restrict__ jsl, const PetscInt *__restrict__ ia, const PetscInt *__restrict__ ja, const PetscInt *__restrict__ c2v, int *__restrict__ tgt, int *__restrict__ bad, unsigned long long *__restrict__ miss)
{
  const PetscCount nq = (PetscCount)nelem * DMASM_HEX_NK, cap = 9 * maxnb;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < nq; t += (PetscCount)gridDim.x * blockDim.x) {
    const int      r = (int)(t / nelem), row = r / DMASM_HEX_NEN, col = r % DMASM_HEX_NEN, a = row / 3, i = row % 3, b = col / 3, k = col % 3;
    const PetscInt e = (PetscInt)(t % nelem), gr = 3 * (PetscInt)vnode[(PetscCount)a * nelem + e] + i, gc = 3 * (PetscInt)vnode[(PetscCount)b * nelem + e] + k;
    const int      j  = (int)((jsl[(PetscCount)a * nelem + e] >> (8 * b)) & 0xff);
    const PetscInt at = DMAsmFindColumn(ja, ia[gr], ia[gr + 1] - 1, gc);
    if (at < 0) {
      atomicMin(miss, (unsigned long long)t + 1);
      continue;
    }
    {
      const int tt  = (int)(c2v ? c2v[at] : at);
      const int old = atomicCAS(tgt + (PetscCount)vnode[(PetscCount)a * nelem + e] * cap + DMAsmOwnerAcc(maxnb, i, j, k), -1, tt);
      if (old != -1 && old != tt) *bad = 1;
    }
  }
}

__global__ static void KiranOwnerPackKernel(PetscInt nnode, int maxnb, const int *__restrict__ tgt, int *__restrict__ obase, int *__restrict__ ocnt, unsigned *__restrict__ olist, int *__restrict__ bad)
{
  const PetscCount cap = 9 * maxnb;
  for (PetscInt v = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; v < nnode; v += (PetscInt)gridDim.x * blockDim.x)
    if (!DMAsmOwnerPack(maxnb, tgt + v * cap, obase + v, ocnt + v, olist + v * cap)) *bad = 2;
}

/* first[t] = 0 for every value a store list names (the others keep KIRAN_NOBODY); bad = 3 where a value is in two
   lists (write-once) */
__global__ static void KiranOwnerMarkKernel(PetscInt nnode, int maxnb, const int *__restrict__ obase, const int *__restrict__ ocnt, const unsigned *__restrict__ olist, int *__restrict__ first, int *__restrict__ bad)
{
  const PetscCount cap = 9 * maxnb, n = (PetscCount)nnode * cap;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < n; t += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt v = (PetscInt)(t / cap);
    if (t % cap < ocnt[v] && atomicExch(first + obase[v] + (int)(olist[t] >> 16), 0) == 0) *bad = 3;
  }
}

/* the block store lists from the node lists (the host's OwnerBlockLists, same loops): a block's windows and count
   (bcnt[B] = -1 where a node spreads over span: tests), counted into cnt[0] (blocks with a list), cnt[1] (of several
   windows) */
__global__ static void KiranOwnerBlockHeadKernel(PetscInt nnode, PetscInt nblk, int maxnb, int span, const int *__restrict__ obase, const int *__restrict__ ocnt, const unsigned *__restrict__ olist, int *__restrict__ bwin, int *__restrict__ bcnt, unsigned long long *__restrict__ cnt)
{
  const int cap = 9 * maxnb;
  for (PetscInt B = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; B < nblk; B += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt v0 = B * DMASM_OWNER_BLOCK;
    const int      nw = DMAsmOwnerBlockHead(cap, (int)(nnode - v0 < DMASM_OWNER_BLOCK ? nnode - v0 : DMASM_OWNER_BLOCK), obase + v0, ocnt + v0, olist + (PetscCount)v0 * cap, span, bwin + B * DMASM_OWNER_BLOCK, bcnt + B);
    if (bcnt[B] >= 0) atomicAdd(cnt, 1ULL);
    if (nw > 1) atomicAdd(cnt + 1, 1ULL);
  }
}

__global__ static void KiranOwnerBlockKernel(PetscInt nnode, int maxnb, const int *__restrict__ obase, const int *__restrict__ ocnt, const unsigned *__restrict__ olist, const int *__restrict__ bwin, const int *__restrict__ bcnt, unsigned *__restrict__ blist)
{
  const int cap = 9 * maxnb;
  for (PetscCount t = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; t < (PetscCount)nnode * cap; t += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt v = (PetscInt)(t / cap), B = v / DMASM_OWNER_BLOCK, v0 = B * DMASM_OWNER_BLOCK;
    const int      x = (int)(t % cap), nb = (int)(nnode - v0 < DMASM_OWNER_BLOCK ? nnode - v0 : DMASM_OWNER_BLOCK);
    int            r;
    unsigned       m;
    if (x >= ocnt[v] || bcnt[B] < 0) continue;
    DMAsmOwnerBlockEntry(cap, nb, obase + v0, ocnt + v0, olist + (PetscCount)v0 * cap, bwin + B * DMASM_OWNER_BLOCK, (int)(v - v0), x, &r, &m);
    blist[(PetscCount)B * DMASM_OWNER_BLOCK * cap + r] = m;
  }
}

PetscErrorCode DMAsmCUDAKiranOwnerBlockPlan(PetscInt nnode, int maxnb, int span, const int *obase, const int *ocnt, const unsigned *olist, int *bwin, int *bcnt, unsigned *blist, PetscInt *nfit, PetscInt *nmulti)
{
  cudaStream_t        s;
  const PetscCount    cap  = 9 * maxnb;
  const PetscInt      nblk = (nnode + DMASM_OWNER_BLOCK - 1) / DMASM_OWNER_BLOCK;
  unsigned long long *dcnt, cnt[2] = {0, 0};

  PetscFunctionBegin;
  *nfit = *nmulti = 0;
  if (!nnode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dcnt, 2, "DMAssembly kiran block lists (counts)"));
  PetscCallCUDA(cudaMemsetAsync(dcnt, 0, 2 * sizeof(*dcnt), s));
  KiranOwnerBlockHeadKernel<<<PetscEllwarpBlocks(nblk, 128), 128, 0, s>>>(nnode, nblk, maxnb, span, obase, ocnt, olist, bwin, bcnt, dcnt);
  PetscCallCUDA(cudaGetLastError());
  KiranOwnerBlockKernel<<<PetscEllwarpBlocks(nnode * cap, 256), 256, 0, s>>>(nnode, maxnb, obase, ocnt, olist, bwin, bcnt, blist);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(cnt, dcnt, sizeof(cnt)));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
  *nfit   = (PetscInt)cnt[0];
  *nmulti = (PetscInt)cnt[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner's plan from the target's host CSR (m rows: ia, ja; c2v: NULL or the slot of each entry), uploaded here */
PetscErrorCode DMAsmCUDAKiranOwnerPlan(PetscInt nelem, PetscInt nnode, int maxnb, const int *dvnode, const unsigned long long *djsl, PetscInt m, const PetscInt *ia, const PetscInt *ja, const PetscInt *c2v, PetscCount nval, int *dobase, int *docnt, unsigned *dolist, PetscCount *nuntouched, int **duntouched, PetscBool *ok)
{
  cudaStream_t        s;
  int                *tgt, *first, *dbad, bad = 0;
  unsigned long long *dcnt, *dmiss, miss = 0;
  PetscInt           *dia, *dja, *dc2v = NULL;
  const PetscCount    cap = 9 * maxnb, ncsr = ia[m];
  const unsigned      gq = PetscEllwarpBlocks((PetscCount)nelem * DMASM_HEX_NK, 256), gn = PetscEllwarpBlocks(nnode, 128), gl = PetscEllwarpBlocks(nnode * cap, 256);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dia, m + 1, "DMAssembly kiran owner plan (matrix rows)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dja, ncsr, "DMAssembly kiran owner plan (matrix columns)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dmiss, 1, "DMAssembly kiran owner plan (missing entry)"));
  PetscCall(PetscEllwarpDeviceUpload(dia, ia, sizeof(PetscInt) * (m + 1)));
  PetscCall(PetscEllwarpDeviceUpload(dja, ja, sizeof(PetscInt) * ncsr));
  if (c2v) {
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dc2v, ncsr, "DMAssembly kiran owner plan (matrix slots)"));
    PetscCall(PetscEllwarpDeviceUpload(dc2v, c2v, sizeof(PetscInt) * ncsr));
  }
  PetscCallCUDA(cudaMemsetAsync(dmiss, 0xff, sizeof(*dmiss), s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&tgt, nnode * cap, "DMAssembly kiran owner plan (targets)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dbad, 1, "DMAssembly kiran owner plan (flag)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dcnt, 1, "DMAssembly kiran owner plan (count)"));
  PetscCallCUDA(cudaMemsetAsync(tgt, 0xff, sizeof(int) * nnode * cap, s)); /* -1 */
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), s));
  PetscCallCUDA(cudaMemsetAsync(dcnt, 0, sizeof(*dcnt), s));
  if (nelem) {
    KiranOwnerScatterKernel<<<gq, 256, 0, s>>>(nelem, maxnb, dvnode, djsl, dia, dja, dc2v, tgt, dbad, dmiss);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscEllwarpDeviceDownload(&miss, dmiss, sizeof(miss)));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dia));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dja));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dc2v));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dmiss));
  if (miss != ~0ULL) { /* name the entry, then error with nothing left allocated */
    const PetscCount t = (PetscCount)miss - 1;
    const int        r = (int)(t / nelem), a = r / DMASM_HEX_NEN / 3, i = r / DMASM_HEX_NEN % 3, b = r % DMASM_HEX_NEN / 3, k = r % DMASM_HEX_NEN % 3;
    const PetscInt   e = (PetscInt)(t % nelem);
    int              va, vb;
    PetscCall(PetscEllwarpDeviceDownload(&va, dvnode + (PetscCount)a * nelem + e, sizeof(int)));
    PetscCall(PetscEllwarpDeviceDownload(&vb, dvnode + (PetscCount)b * nelem + e, sizeof(int)));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&tgt));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern; create it with DMAssemblyCreateMatrix() or DMCreateMatrix()", 3 * (PetscInt)va + i, 3 * (PetscInt)vb + k);
  }
  if (nnode) {
    KiranOwnerPackKernel<<<gn, 128, 0, s>>>(nnode, maxnb, tgt, dobase, docnt, dolist, dbad);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(bad)));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&tgt)); /* packed: the peak holds the CSR and tgt, or the lists and first, never all */
  PetscCheck(bad != 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran owner: two elements name different targets for one matrix entry");
  *ok = (PetscBool)(bad != 2);
  if (!*ok) { /* the 16-bit store lists do not fit: the caller errors (an explicit request) or falls back (auto) */
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&first, nval, "DMAssembly kiran owner plan (touched values)"));
  PetscCallCUDA(cudaMemsetAsync(first, 0x7f, sizeof(int) * nval, s)); /* KIRAN_NOBODY */
  if (nnode) {
    KiranOwnerMarkKernel<<<gl, 256, 0, s>>>(nnode, maxnb, dobase, docnt, dolist, first, dbad);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(bad)));
    PetscCheck(bad != 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran owner: a value is in two store lists");
  }
  PetscCall(UntouchedList(s, nval, first, dcnt, nuntouched, duntouched));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&first));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dcnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ static void KiranZeroListKernel(PetscCount n, const int *__restrict__ list, PetscScalar *__restrict__ dst)
{
  for (PetscCount i = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; i < n; i += (PetscCount)gridDim.x * blockDim.x) dst[list[i]] = 0;
}

PetscErrorCode DMAsmCUDAKiranZeroList(PetscCount n, const int *list, PetscScalar *dst)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  KiranZeroListKernel<<<PetscEllwarpBlocks(n, 256), 256, 0, s>>>(n, list, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the element-buffer kernel of hexahedra (globalnz, atomic, color, the COO peer): a warp per element with PPNI, as
   kiran:ppni4, the element matrix written entry-major (ke[r][nelem]: for one r the warps of neighbouring elements
   fill whole sectors); fe = ke ue reduced over the 4 lanes of a row node.  Reference: HostElas (dmasmelas.c). */
__global__ static void __launch_bounds__(KIRAN_WARPS * 32, DMASM_KIRAN_MINBLOCKS) ElasHexWarpKernel(PetscInt n, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ lm, PetscReal lam0, PetscReal mu0, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ ue, PetscScalar *__restrict__ ke, PetscScalar *__restrict__ fe)
{
  __shared__ PetscReal sw[8], sdN[192];
  __shared__ PetscReal sx[KIRAN_WARPS][24], sJ[KIRAN_WARPS][72], sJi[KIRAN_WARPS][72], sdet[KIRAN_WARPS][8], sg[KIRAN_WARPS][192];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  LoadRef(ref, sw, sdN);
  const PetscInt e = blockIdx.x * (PetscInt)KIRAN_WARPS + w;
  if (e >= n) return;
  const PetscReal lam = lm ? lm[2 * e] : lam0, mu = lm ? lm[2 * e + 1] : mu0;
  const int       a0 = lane >> 2, b0 = 2 * (lane & 3);
  PetscReal       acc[18];
#pragma unroll
  for (int s = 0; s < 18; s++) acc[s] = 0;
  if (lane < 24) sx[w][lane] = xe[(PetscCount)lane * n + e];
  __syncwarp();
  WarpGeometryPPNI(lane, sx[w], sdN, sJ[w], sJi[w], sdet[w], sg[w]);
#pragma unroll 1
  for (int q = 0; q < 8; q++) {
    const PetscReal wd = sw[q] * fabs(sdet[w][q]);
    Accumulate(sg[w] + 24 * q, a0, b0, a0, b0 + 1, wd * lam, wd * mu, acc);
  }
  if (ke) {
#pragma unroll
    for (int s = 0; s < 18; s++) {
      int row, col;
      DMAsmKiranSlot(4, lane, s, &row, &col);
      ke[(PetscCount)(row * DMASM_HEX_NEN + col) * n + e] = acc[s];
    }
  }
  if (fe) {
    PetscReal u[6], f[3] = {0, 0, 0};
#pragma unroll
    for (int j = 0; j < 6; j++) u[j] = PetscRealPart(ue[(PetscCount)(3 * b0 + j) * n + e]);
#pragma unroll
    for (int s = 0; s < 18; s++) f[(s % 9) / 3] += acc[s] * u[(s / 9) * 3 + s % 3];
#pragma unroll
    for (int i = 0; i < 3; i++) {
      f[i] += __shfl_xor_sync(FULL, f[i], 1, 4);
      f[i] += __shfl_xor_sync(FULL, f[i], 2, 4);
    }
    if ((lane & 3) == 0)
      for (int i = 0; i < 3; i++) fe[(PetscCount)(3 * a0 + i) * n + e] = f[i];
  }
}

PetscErrorCode DMAsmCUDAElasElement(const DMAsmElasCtx *c, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  cudaStream_t   s;
  const unsigned g = PetscEllwarpBlocks(nelem, 64);

  PetscFunctionBegin;
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->dim == 3 && c->nv == 8 && c->nq == 8) ElasHexWarpKernel<<<PetscEllwarpBlocks(nelem, KIRAN_WARPS), KIRAN_WARPS * 32, 0, s>>>(nelem, c->dref, c->dlm, c->lam, c->mu, xe, ue, ke, fe);
  else if (c->dim == 3 && c->nv == 8) ElasElementKernel<3, 8><<<g, 64, 0, s>>>(nelem, (int)c->nq, c->dref, c->dlm, c->lam, c->mu, xe, ue, ke, fe);
  else if (c->dim == 3 && c->nv == 4) ElasElementKernel<3, 4><<<g, 64, 0, s>>>(nelem, (int)c->nq, c->dref, c->dlm, c->lam, c->mu, xe, ue, ke, fe);
  else if (c->dim == 2 && c->nv == 4) ElasElementKernel<2, 4><<<g, 64, 0, s>>>(nelem, (int)c->nq, c->dref, c->dlm, c->lam, c->mu, xe, ue, ke, fe);
  else if (c->dim == 2 && c->nv == 3) ElasElementKernel<2, 3><<<g, 64, 0, s>>>(nelem, (int)c->nq, c->dref, c->dlm, c->lam, c->mu, xe, ue, ke, fe);
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: no device instance for dim %" PetscInt_FMT ", %" PetscInt_FMT " vertices", c->dim, c->nv);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
