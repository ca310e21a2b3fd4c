/* The blocked ELL-WARP layout (ellwarpblock.h) on the device: the store (upload of the host analysis), the value
   gather from the CSR staging copy, and the products: for T = 1 lane per block row in two thread mappings over the
   same storage, for T = 2..32 lanes per block row BlockMultLanes (below).  Registers (nvcc -Xptxas -v, sm_90,
   2026-11-27): BlockMultRow 40 for every bs; BlockMultLane 32-46 (8 bytes of spills for bs 2); BlockMultLanes (launch
   bounds below) 40 for bs 2..5 and 48 for bs 6, every T, mult and multadd, no spills; with block_batch U = 2 (the default
   for T > 1) 61 for bs 3, T = 4, no spills (U = 4 spills for bs 6: measurement only).

   Bytes (bs = 3, double): a stored block is 72 bytes of values and one index (2 bytes in 16-bit slices, plus a bias
   per step of 32 blocks in biased ones, else 4):
   8.22-8.44 bytes per nonzero against 10-12 in the scalar layout, which stores an index per value; x is read
   once per block column (bs consecutive values, one 32-byte sector for bs <= 4), y written bs per block row.
   Coalescing: for each (block step k, r, c) the 32 lanes' values of a slice are 256 contiguous bytes.
     ELLWARP_BLOCK_MAP_ROW (one thread per block row, one warp per slice): each value load of a warp is one
       fully used 256-byte segment, the index load 64 or 128 contiguous bytes, so every byte fetched is used;
       a thread has bs * bs independent value loads per step in flight (9 for bs = 3), which is what keeps
       HBM busy without unrolling.  Its y stores are bs strided stores (a warp's cover 32 bs contiguous values
       of y, in the sorted order of the block rows).  Registers: bs accumulators, bs x values, bs * bs values.
     ELLWARP_BLOCK_MAP_LANE (bs threads per block row, one per scalar row; bs warps per slice): a warp covers
       32 / bs block rows; its value loads for fixed c touch bs runs of ~32 / bs lanes' values (the same bytes in
       total, split over bs segments; neighbouring warps share the boundary sectors, which L2 serves), the index
       and the x values are broadcast loads of the bs threads of a block row, y stores are fully coalesced.
       bs times the threads, bs loads each per step: more parallelism for small bs or short rows, fewer loads
       in flight per thread.
   Both are the T = 1 layout's (one block row per lane slot).  With T > 1 lanes per block row (BlockMultLanes, one
   warp per slice of 32 / T block rows): lane t of a block row walks its blocks t, t + T, ... (the T lanes' loads of
   a step are T neighbouring 8-byte values of each 256-byte run, the whole warp's still one 256-byte segment per
   (k, r, c)), bs accumulators, the index once per block and the bs x values once per block and lane; at the end an
   xor-shuffle butterfly over the T lanes (log2 T rounds of bs shuffles); lane t stores the rows r with r % T == t.
   So a warp's steps are the longest row's ceil(len / T): a slice of long, varied block rows (DMPlex P2/Q2
   elasticity) no longer keeps a warp for the longest row's whole length, and there are T times the warps.
   Every kernel sums each scalar row in the order of the host reference EllwarpBlockHostMult() (per lane its blocks
   in order, the block's columns in order, the butterfly, then z).  Padding slots (past a row's length) are never read, so an Inf or
   NaN in x reaches no row that does not reference it. */
#include <petscellwarp/private/ellwarpblock.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

struct _EllwarpBlockStore {
  const EllwarpBlockLayout *L;
  PetscCount               *sliceptr, *colbase, *rowstart, *biasbase;
  PetscInt                 *rowperm, *map;
  int                      *rowlen, *col32, *colbias;
  short                    *col16;
  unsigned char            *meta;
  PetscScalar              *val;
  int                      *smap; /* blocked value -> scalar slot (gatherslots), made at its first call */
};

typedef struct {
  PetscInt             nslices, mb, lanes, rows;
  const PetscCount    *sliceptr, *colbase, *rowstart, *biasbase;
  const PetscInt      *rowperm, *map;
  const int           *rowlen, *col32, *colbias;
  const short         *col16;
  const unsigned char *meta;
} DevBlock;

static DevBlock BView(const EllwarpBlockStore *S)
{
  DevBlock d;
  d.nslices  = S->L->nslices;
  d.mb       = S->L->mb;
  d.lanes    = S->L->lanes;
  d.rows     = S->L->rows;
  d.sliceptr = S->sliceptr;
  d.colbase  = S->colbase;
  d.rowstart = S->rowstart;
  d.rowperm  = S->rowperm;
  d.map      = S->map;
  d.rowlen   = S->rowlen;
  d.col32    = S->col32;
  d.col16    = S->col16;
  d.meta     = S->meta;
  d.biasbase = S->biasbase;
  d.colbias  = S->colbias;
  return d;
}

template <typename T>
static PetscErrorCode BUpload(T **d, const T *h, PetscCount n, const char *what)
{
  PetscFunctionBegin;
  *d = NULL;
  if (!n || !h) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpDeviceMallocArray(d, n, what));
  PetscCall(PetscEllwarpDeviceUpload(*d, h, (size_t)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACreate(const EllwarpBlockLayout *L, EllwarpBlockStore **S)
{
  const PetscCount np = (PetscCount)L->nslices * L->rows;

  PetscFunctionBegin;
  PetscCall(PetscNew(S));
  (*S)->L = L;
  PetscCall(BUpload(&(*S)->sliceptr, L->sliceptr, L->nslices + 1, "blocked ELLWARP slice pointers"));
  PetscCall(BUpload(&(*S)->colbase, L->colbase, L->nslices, "blocked ELLWARP index bases"));
  PetscCall(BUpload(&(*S)->meta, L->meta, L->nslices, "blocked ELLWARP slice modes"));
  PetscCall(BUpload(&(*S)->rowperm, L->rowperm, np, "blocked ELLWARP block-row permutation"));
  PetscCall(BUpload(&(*S)->rowlen, L->rowlen, np, "blocked ELLWARP block-row lengths"));
  PetscCall(BUpload(&(*S)->rowstart, L->rowstart, np, "blocked ELLWARP block-row CSR starts"));
  PetscCall(BUpload(&(*S)->col16, L->col16, L->ncol16, "blocked ELLWARP 16-bit block columns"));
  PetscCall(BUpload(&(*S)->col32, L->col32, L->ncol32, "blocked ELLWARP 32-bit block columns"));
  PetscCall(BUpload(&(*S)->map, L->map, L->map ? L->nnz : 0, "blocked ELLWARP transpose map"));
  PetscCall(BUpload(&(*S)->biasbase, L->biasbase, L->nbias ? L->nslices : 0, "blocked ELLWARP bias bases"));
  PetscCall(BUpload(&(*S)->colbias, L->colbias, L->ncolbias, "blocked ELLWARP biases"));
  /* padding values are never read: no need to clear them */
  PetscCall(PetscEllwarpDeviceMallocArray(&(*S)->val, L->nslots * L->bs * L->bs, "blocked ELLWARP values"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDADestroy(EllwarpBlockStore **S)
{
  PetscFunctionBegin;
  if (!*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels queued on the stream may still read the arrays */
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->sliceptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->meta));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowlen));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowstart));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col16));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col32));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->map));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->smap));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->biasbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbias));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->val));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one thread per sorted block row: its blocks' values from the CSR (bs rows of bs * len entries each); block j goes
   to step j / T of lane slot q T + j % T.  The stores of a warp are coalesced for T = 1 (lanes are neighbouring value
   slots) and strided by T slots otherwise (a refresh, not a product); the CSR reads are row runs.  V = int: the slot
   map, src the CSR entry -> scalar slot map (the same positions, CUDAGatherSlots) */
template <typename V>
__global__ static void BlockGatherKernel(DevBlock d, int bs, const V *__restrict__ src, V *__restrict__ val)
{
  const int bs2 = bs * bs, T = (int)d.lanes;
  for (PetscCount p = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; p < (PetscCount)d.nslices * d.rows; p += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt   s = (PetscInt)(p / d.rows), q = (PetscInt)(p % d.rows);
    const int        len = d.rowlen[p];
    const PetscCount r0  = d.rowstart[p];
    for (int j = 0; j < len; j++) {
      const int k = j / T, g = (int)q * T + j % T;
      V        *v = val + d.sliceptr[s] * bs2 + g;
      for (int r = 0; r < bs; r++)
        for (int c = 0; c < bs; c++) {
          const PetscCount e                                   = r0 + (PetscCount)r * bs * len + (PetscCount)j * bs + c;
          v[(PetscCount)(k * bs2 + r * bs + c) * ELLWARP_LANES] = src[d.map ? d.map[e] : e];
        }
    }
  }
}

static PetscErrorCode CUDAGather(EllwarpBlockStore *S, const PetscScalar *csr)
{
  const PetscCount np = (PetscCount)S->L->nslices * S->L->rows;
  cudaStream_t     stream;

  PetscFunctionBegin;
  if (!np) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  BlockGatherKernel<PetscScalar><<<PetscMin(PetscEllwarpBlocks(np, 256), 65535u), 256, 0, stream>>>(BView(S), (int)S->L->bs, csr, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The refresh by slot map (gatherslots): the inverse of the scalar layout's slot -> CSR map, then the map of
   EllwarpBlockHostSlotMap (BlockGatherKernel<int> from that inverse), once; then each refresh is one pass in
   blocked value order: coalesced map loads and value stores, the scalar values read from the same few slices of the
   scalar layout per warp (neighbouring block rows are neighbouring rows there too).  Bytes: 4 + 8 + 8 a value, against
   the staging path's scatter (a scattered 8-byte store per value, each a partial sector) plus this gather from it
   (mesh 3 of the elasticity benchmark, 246 M values: 12.3 ms on the H100). */
__global__ static void SlotInverseKernel(PetscCount nsslots, const PetscInt *__restrict__ s2c, int *__restrict__ c2s)
{
  for (PetscCount t = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; t < nsslots; t += (PetscCount)gridDim.x * blockDim.x)
    if (s2c[t] >= 0) c2s[s2c[t]] = (int)t;
}

__global__ static void BlockGatherSlotsKernel(PetscCount n, const int *__restrict__ smap, const PetscScalar *__restrict__ sval, PetscScalar *__restrict__ val)
{
  for (PetscCount o = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (PetscCount)gridDim.x * blockDim.x) {
    const int t = smap[o];
    if (t >= 0) val[o] = sval[t];
  }
}

static PetscErrorCode CUDAGatherSlots(EllwarpBlockStore *S, PetscCount nsslots, const PetscInt *s2c, const PetscScalar *sval)
{
  const PetscCount n = S->L->nslots * S->L->bs * S->L->bs;
  cudaStream_t     stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!S->smap) {
    const PetscCount np = (PetscCount)S->L->nslices * S->L->rows;
    int             *c2s;
    PetscCheck(nsslots <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "blocked ELLWARP slot map: %" PetscCount_FMT " scalar slots do not fit 32 bits", nsslots);
    PetscCall(PetscEllwarpDeviceMallocArray(&S->smap, n, "blocked ELLWARP slot map"));
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&c2s, S->L->nnz ? S->L->nnz : 1, "blocked ELLWARP slot map (CSR -> scalar slot)"));
    PetscCallCUDA(cudaMemsetAsync(S->smap, 0xff, sizeof(int) * n, stream)); /* -1: padding */
    PetscCallCUDA(cudaMemsetAsync(c2s, 0xff, sizeof(int) * (S->L->nnz ? S->L->nnz : 1), stream));
    if (nsslots) SlotInverseKernel<<<PetscMin(PetscEllwarpBlocks(nsslots, 256), 65535u), 256, 0, stream>>>(nsslots, s2c, c2s);
    PetscCallCUDA(cudaGetLastError());
    if (np) BlockGatherKernel<int><<<PetscMin(PetscEllwarpBlocks(np, 256), 65535u), 256, 0, stream>>>(BView(S), (int)S->L->bs, c2s, S->smap);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&c2s));
  }
  BlockGatherSlotsKernel<<<PetscMin(PetscEllwarpBlocks(n, 256), 65535u), 256, 0, stream>>>(n, S->smap, sval, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block column of step k of lane slot q of a slice whose indices start at cb, for block row ib; bias: the slice's
   biases (a biased 16-bit slice), else NULL, and bk the entry of this step: k with one lane per block row (the
   warp's lanes load the same address, a broadcast), k T + t for lane t of T */
__device__ __forceinline__ PetscInt BlockColumn(const DevBlock &d, bool c16, const int *bias, PetscCount cb, int k, int q, PetscInt ib, int bk)
{
  const PetscCount o = cb + (PetscCount)k * ELLWARP_LANES + q;
  if (!c16) return (PetscInt)__ldcs(d.col32 + o);
  return ib + (bias ? __ldg(bias + bk) : 0) + (PetscInt)__ldcs(d.col16 + o);
}

/* acc[r] += sum_c v[(k bs^2 + r bs + c) 32] x_b[c]: the block of step k (its values 32 lanes apart) times the bs
   values of x at xb, the block's columns in order (the host reference's order) */
template <int BS>
__device__ __forceinline__ void BlockStep(const PetscScalar *v, int k, const PetscScalar *xb, PetscScalar *acc)
{
  PetscScalar xv[BS];
#pragma unroll
  for (int c = 0; c < BS; c++) xv[c] = __ldg(xb + c);
#pragma unroll
  for (int r = 0; r < BS; r++)
#pragma unroll
    for (int c = 0; c < BS; c++) acc[r] += __ldcs(v + (PetscCount)(k * BS * BS + r * BS + c) * ELLWARP_LANES) * xv[c];
}

/* U of a lane's nk steps at a time (-mat_ellwarp_tune block_batch=U): the U block columns, then their U bs x values,
   then the values summed as BlockStep does, step by step: the same order, so the same sums as U = 1.  Why: the
   scalar layout's MultKernelB (U steps' loads before any is used) moved the DMPlex scalar matrices 6-12 % closer to
   the bandwidth; here each step's x load waits for its column, then the values' FMAs for the x */
template <int BS, int U, typename Col>
__device__ __forceinline__ void BlockSteps(const PetscScalar *v, int nk, const PetscScalar *__restrict__ x, Col col, PetscScalar *acc)
{
  for (int k0 = 0; k0 < nk; k0 += U) {
    PetscInt    cb[U];
    PetscScalar xv[U][BS];
#pragma unroll
    for (int u = 0; u < U; u++) cb[u] = k0 + u < nk ? col(k0 + u) : -1;
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
      for (int c = 0; c < BS; c++) xv[u][c] = cb[u] >= 0 ? __ldg(x + cb[u] * BS + c) : 0.0;
#pragma unroll
    for (int u = 0; u < U; u++) {
      if (k0 + u < nk) {
#pragma unroll
        for (int r = 0; r < BS; r++)
#pragma unroll
          for (int c = 0; c < BS; c++) acc[r] += __ldcs(v + (PetscCount)((k0 + u) * BS * BS + r * BS + c) * ELLWARP_LANES) * xv[u][c];
      }
    }
  }
}

/* the biases of slice s (w T of them, (step k, lane t) at k T + t), or NULL when it has none */
__device__ __forceinline__ const int *SliceBias(const DevBlock &d, PetscInt s)
{
  return (d.meta[s] & 32) ? d.colbias + d.biasbase[s] : NULL;
}

/* ELLWARP_BLOCK_MAP_ROW: one warp per slice, lane q does block row 32 s + q */
template <int BS, bool ADD, int U>
__global__ static void __launch_bounds__(256) BlockMultRow(DevBlock d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  constexpr int  BS2 = BS * BS;
  const int      q   = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s   = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return;
  const PetscCount p = (PetscCount)s * ELLWARP_LANES + q;
  const PetscInt   ib = d.rowperm[p];
  if (ib < 0) return;
  const int          len = d.rowlen[p];
  if (ADD && len == 0 && z == y) return; /* in place: nothing to add (most block rows of MATMPIELLWARP's off-diagonal block) */
  const bool         c16 = d.meta[s] & 16;
  const int         *bias = SliceBias(d, s);
  const PetscCount   cb  = d.colbase[s];
  const PetscScalar *v   = val + d.sliceptr[s] * BS2 + q;
  PetscScalar        acc[BS];
#pragma unroll
  for (int r = 0; r < BS; r++) acc[r] = 0.0;
  if constexpr (U > 1) BlockSteps<BS, U>(v, len, x, [&](int k) { return BlockColumn(d, c16, bias, cb, k, q, ib, k); }, acc);
  else {
#pragma unroll 2
    for (int k = 0; k < len; k++) BlockStep<BS>(v, k, x + BlockColumn(d, c16, bias, cb, k, q, ib, k) * BS, acc);
  }
#pragma unroll
  for (int r = 0; r < BS; r++) y[ib * BS + r] = ADD ? z[ib * BS + r] + acc[r] : acc[r];
}

/* ELLWARP_BLOCK_MAP_LANE: BS warps per slice; thread g of the slice's 32 BS does scalar row g % BS of block row
   32 s + g / BS */
template <int BS, bool ADD>
__global__ static void __launch_bounds__(1024) BlockMultLane(DevBlock d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  constexpr int  BS2 = BS * BS, T = BS * ELLWARP_LANES;
  const int      g   = threadIdx.x % T, q = g / BS, r = g % BS;
  const PetscInt s   = (PetscInt)blockIdx.x * (blockDim.x / T) + threadIdx.x / T;
  if (s >= d.nslices) return;
  const PetscCount p = (PetscCount)s * ELLWARP_LANES + q;
  const PetscInt   ib = d.rowperm[p];
  if (ib < 0) return;
  const int          len = d.rowlen[p];
  if (ADD && len == 0 && z == y) return; /* in place: nothing to add (most block rows of MATMPIELLWARP's off-diagonal block) */
  const bool         c16 = d.meta[s] & 16;
  const int         *bias = SliceBias(d, s);
  const PetscCount   cb  = d.colbase[s];
  const PetscScalar *v   = val + d.sliceptr[s] * BS2 + (PetscCount)(r * BS) * ELLWARP_LANES + q;
  PetscScalar        acc = 0.0;
#pragma unroll 4
  for (int k = 0; k < len; k++) {
    const PetscScalar *xb = x + BlockColumn(d, c16, bias, cb, k, q, ib, k) * BS;
#pragma unroll
    for (int c = 0; c < BS; c++) acc += __ldg(v + (PetscCount)(k * BS2 + c) * ELLWARP_LANES) * __ldg(xb + c);
  }
  y[ib * BS + r] = ADD ? z[ib * BS + r] + acc : acc;
}

/* T > 1 lanes per block row: one warp per slice of 32 / T block rows; lane slot g = q T + t does lane t of block row
   32 / T s + q.  Every lane of the warp reaches the shuffles (a lane past the matrix has length 0), so no lane returns
   early; the warp-uniform slice check is the only exit before them.  Launch bounds: 12 blocks of 128 threads per SM
   cap it at 40 registers (48 resident warps per SM, the lanes model's ELLWARP_BLOCK_MODEL_WARPS) without spills for
   bs <= 5 (bs 3, T = 2 took 48 unbounded); bs 6 would spill at 40 and takes 10 blocks (48 registers). */
template <int BS, int T, bool ADD, int U>
__global__ static void __launch_bounds__(128, U > 1 ? 8 : (BS <= 5 ? 12 : 10)) BlockMultLanes(DevBlock d, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *z, PetscScalar *y)
{
  constexpr int  BS2 = BS * BS, R = ELLWARP_LANES / T;
  const int      g   = threadIdx.x & (ELLWARP_LANES - 1), t = g % T;
  const PetscInt s   = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return; /* the whole warp */
  const PetscCount   p    = (PetscCount)s * R + g / T;
  const PetscInt     ib   = d.rowperm[p];
  const int          len  = d.rowlen[p];
  const bool         c16  = d.meta[s] & 16;
  const int         *bias = SliceBias(d, s);
  const PetscCount   cb   = d.colbase[s];
  const PetscScalar *v    = val + d.sliceptr[s] * BS2 + g;
  const int          nk   = len > t ? (len - t + T - 1) / T : 0; /* this lane's steps: blocks t, t + T, ... < len */
  PetscScalar        acc[BS];
#pragma unroll
  for (int r = 0; r < BS; r++) acc[r] = 0.0;
  if constexpr (U > 1) BlockSteps<BS, U>(v, nk, x, [&](int k) { return BlockColumn(d, c16, bias, cb, k, g, ib, k * T + t); }, acc);
  else {
#pragma unroll 2
    for (int k = 0; k < nk; k++) BlockStep<BS>(v, k, x + BlockColumn(d, c16, bias, cb, k, g, ib, k * T + t) * BS, acc);
  }
  /* the butterfly: lane t adds lane t ^ o's sums (o = T/2, ..., 1; partners are in the same block row) */
#pragma unroll
  for (int o = T / 2; o >= 1; o /= 2)
#pragma unroll
    for (int r = 0; r < BS; r++) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], o);
  if (ib < 0) return;
#pragma unroll
  for (int r = 0; r < BS; r++)
    if (r % T == t) y[ib * BS + r] = ADD ? z[ib * BS + r] + acc[r] : acc[r];
}

template <int BS, int T, int U>
static void LaunchLanesU(unsigned nb, unsigned nt, cudaStream_t stream, const DevBlock &d, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  if (z) BlockMultLanes<BS, T, true, U><<<nb, nt, 0, stream>>>(d, val, x, z, y);
  else BlockMultLanes<BS, T, false, U><<<nb, nt, 0, stream>>>(d, val, x, z, y);
}

template <int BS, int T>
static void LaunchLanes(int batch, unsigned nslices, cudaStream_t stream, const DevBlock &d, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const unsigned spb = 4, nb = (nslices + spb - 1) / spb; /* 4 slices (warps), 128 threads per block */
  if (batch >= 4) LaunchLanesU<BS, T, 4>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
  else if (batch == 2) LaunchLanesU<BS, T, 2>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
  else LaunchLanesU<BS, T, 1>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
}

template <int BS, int U>
static void LaunchRowU(unsigned nb, unsigned nt, cudaStream_t stream, const DevBlock &d, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  if (z) BlockMultRow<BS, true, U><<<nb, nt, 0, stream>>>(d, val, x, z, y);
  else BlockMultRow<BS, false, U><<<nb, nt, 0, stream>>>(d, val, x, z, y);
}

template <int BS>
static void LaunchBS(EllwarpBlockMap map, int batch, unsigned nslices, cudaStream_t stream, const DevBlock &d, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  switch (d.lanes) {
  case 2: LaunchLanes<BS, 2>(batch, nslices, stream, d, val, x, z, y); return;
  case 4: LaunchLanes<BS, 4>(batch, nslices, stream, d, val, x, z, y); return;
  case 8: LaunchLanes<BS, 8>(batch, nslices, stream, d, val, x, z, y); return;
  case 16: LaunchLanes<BS, 16>(batch, nslices, stream, d, val, x, z, y); return;
  case 32: LaunchLanes<BS, 32>(batch, nslices, stream, d, val, x, z, y); return;
  default: break; /* T = 1: the two mappings below */
  }
  if (map == ELLWARP_BLOCK_MAP_LANE) {
    const unsigned spb = 4, nb = (nslices + spb - 1) / spb; /* 4 slices, 128 BS threads per block */
    if (z) BlockMultLane<BS, true><<<nb, spb * BS * ELLWARP_LANES, 0, stream>>>(d, val, x, z, y);
    else BlockMultLane<BS, false><<<nb, spb * BS * ELLWARP_LANES, 0, stream>>>(d, val, x, z, y);
  } else {
    const unsigned spb = 4, nb = (nslices + spb - 1) / spb; /* 128 threads per block, as the scalar kernel's default */
    if (batch >= 4) LaunchRowU<BS, 4>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
    else if (batch == 2) LaunchRowU<BS, 2>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
    else LaunchRowU<BS, 1>(nb, spb * ELLWARP_LANES, stream, d, val, x, z, y);
  }
}

static PetscErrorCode CUDAMult(const EllwarpBlockStore *S, EllwarpBlockMap map, PetscInt batch, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const EllwarpBlockLayout *L = S->L;
  const DevBlock            d = BView(S);
  cudaStream_t              stream;

  PetscFunctionBegin;
  PetscCheck(L->lanes == 1 || L->lanes == 2 || L->lanes == 4 || L->lanes == 8 || L->lanes == 16 || L->lanes == 32, PETSC_COMM_SELF, PETSC_ERR_PLIB, "blocked ELLWARP: %" PetscInt_FMT " lanes per block row", L->lanes);
  PetscCheck(L->nslices < 4 * 2147483647LL, PETSC_COMM_SELF, PETSC_ERR_SUP, "blocked ELLWARP: %" PetscInt_FMT " slices exceed the CUDA grid", L->nslices);
  if (!L->nslices) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  switch (L->bs) {
  case 2: LaunchBS<2>(map, (int)batch, (unsigned)L->nslices, stream, d, S->val, x, z, y); break;
  case 3: LaunchBS<3>(map, (int)batch, (unsigned)L->nslices, stream, d, S->val, x, z, y); break;
  case 4: LaunchBS<4>(map, (int)batch, (unsigned)L->nslices, stream, d, S->val, x, z, y); break;
  case 5: LaunchBS<5>(map, (int)batch, (unsigned)L->nslices, stream, d, S->val, x, z, y); break;
  case 6: LaunchBS<6>(map, (int)batch, (unsigned)L->nslices, stream, d, S->val, x, z, y); break;
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "blocked ELLWARP: block size %" PetscInt_FMT, L->bs);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)L->nnzb * L->bs * L->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpBlockOps EllwarpBlockCUDAOps = {CUDACreate, CUDADestroy, CUDAGather, CUDAGatherSlots, CUDAMult};
