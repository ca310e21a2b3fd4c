/* The CUDA backend: the layout in device memory and the K1/K2 kernels.  One warp per slice; a row owns
   1 << log2tpr consecutive lanes (K1: one lane) and their partial sums meet through __shfl_down_sync, in
   the same order the host reference (layout.c) adds them. */
#include <petscellwarp/private/matellwarpimpl.h>
#include <petscellwarp/private/ellwarpanalysis.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

struct _EllwarpStore {
  const EllwarpLayout *L;
  PetscCount          *sliceptr, *colbase, *diagslot, *longptr, *chunkptr, *biasbase;
  PetscInt            *slicerow, *rowperm, *slot2csr, *longchunk, *chunkrow;
  int                 *count;   /* [nlong] chunks of each long row done in the current product */
  unsigned char       *meta;
  int                 *col32;
  short               *col16;
  int                 *colbias; /* biased slices: per entry position of their rows (ellwarplayout.h) */
  PetscScalar         *val;
  PetscScalar         *partial; /* [nchunks] long-row chunk sums */
  PetscReal           *work;    /* reduction partials */
  void                *coojmap, *cooperm, *coo2slot; /* COO plan, int when it fits, else PetscCount: unique: cooperm per slot; else CSR order, coo2slot CSR -> slot */
  PetscCount           ncoo;
  PetscBool            coo32, coounique; /* unique: at most one entry per slot, cooperm[slot] (-1: none), no coojmap */
  PetscScalar         *coobuf;                 /* COO values staged from the host */
  PetscInt            *rowstart; /* row form of the CSR -> slot map (EllwarpLayoutRowForm), made at the first gather */
  int                 *rowlen;
  int                  rowform;  /* 0: not looked at yet, 1: the row form holds, -1: it does not (a transpose) */
  int                  gatherhow; /* row-form gather: 1 lane by lane (GatherRowsKernel), 2 staged in shared memory (GatherSliceKernel) */
  PetscInt            *coostart;  /* unique COO whose entries run row by row: the row form of the slot -> COO map (then no cooperm) */
  int                 *coolen;
  const EllwarpTune   *tune;                   /* the matrix's requested kernel variants (NULL: automatic), resolved at each use by EllwarpTuneResolve() */
};

/* the device view of a layout, passed by value to the kernels */
typedef struct {
  PetscInt             nslices, nlong;
  const PetscCount    *sliceptr, *colbase, *longptr, *chunkptr;
  PetscInt             nchunks;
  const PetscInt      *slicerow, *rowperm, *longchunk, *chunkrow;
  int                 *count;
  PetscScalar         *partial;
  const unsigned char *meta;
  const int           *col32;
  const short         *col16;
  PetscCount           longcolbase;
} DevLayout;

/* the biases of the biased 16-bit slices (ellwarplayout.h), a parameter of their own for the kernels that read
   columns: DevLayout keeps its size, so the kernels that do not read them compile exactly as before */
typedef struct {
  const PetscCount *biasbase;
  const int        *colbias;
} DevBias;

static DevLayout View(const EllwarpStore *S)
{
  DevLayout d;
  d.nslices     = S->L->nslices;
  d.nlong       = S->L->nlong;
  d.sliceptr    = S->sliceptr;
  d.colbase     = S->colbase;
  d.longptr     = S->longptr;
  d.chunkptr    = S->chunkptr;
  d.slicerow    = S->slicerow;
  d.rowperm     = S->rowperm;
  d.longchunk   = S->longchunk;
  d.nchunks     = S->L->nchunks;
  d.chunkrow    = S->chunkrow;
  d.count       = S->count;
  d.partial     = S->partial;
  d.meta        = S->meta;
  d.col32       = S->col32;
  d.col16       = S->col16;
  d.longcolbase = S->L->longcolbase;
  return d;
}

static DevBias BiasView(const EllwarpStore *S)
{
  DevBias b;
  b.biasbase = S->biasbase;
  b.colbias  = S->colbias;
  return b;
}

#define ELLWARP_RED_BLOCKS 512
#ifndef ELLWARP_UNROLL
  #define ELLWARP_UNROLL 4
#endif
/* iterations of a lane's loop in flight; 8 measured +3% on qcd and -3.5% on lv_gmsh_p1 (H200), so 4 */
static constexpr int ellwarp_unroll = ELLWARP_UNROLL;

/* a new device array holding n elements of h (the upload waits: the host buffer may be freed right after).
   Every copy and kernel goes on the stream of PETSc's current device context (ellwarpdevice.h): PETSc's stream
   does not synchronize with the legacy default stream, so a plain cudaMemcpy or cudaMemset would race with the
   kernels that follow. */
template <typename T>
static PetscErrorCode Upload(T **d, const T *h, size_t n, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMallocArray(d, n, what));
  PetscCall(PetscEllwarpDeviceUpload(*d, h, n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline unsigned Blocks(PetscCount n, int threads)
{
  PetscCount b = (n + threads - 1) / threads;
  return (unsigned)PetscMin(b, (PetscCount)2147483647);
}

PetscErrorCode EllwarpCUDADeviceAvailable(PetscBool *avail)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  if (err != cudaSuccess) (void)cudaGetLastError();
  *avail = (PetscBool)(err == cudaSuccess && n > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACreate(const EllwarpLayout *L, EllwarpStore **out)
{
  EllwarpStore *S;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Upload, 0, 0, 0, 0));
  PetscCall(PetscNew(&S));
  S->L = L;
  PetscCall(Upload(&S->sliceptr, L->sliceptr, L->nslices + 1, "slice offsets"));
  PetscCall(Upload(&S->slicerow, L->slicerow, L->nslices + 1, "slice rows"));
  PetscCall(Upload(&S->meta, L->meta, L->nslices, "slice formats"));
  PetscCall(Upload(&S->colbase, L->colbase, L->nslices, "column offsets"));
  PetscCall(Upload(&S->rowperm, L->rowperm, L->nrows, "row permutation"));
  PetscCall(Upload(&S->col32, L->col32, L->ncol32 + (L->nslots - L->nsliceslots), "column indices"));
  PetscCall(Upload(&S->col16, L->col16, L->ncol16, "16-bit column offsets"));
  PetscCall(Upload(&S->colbias, L->colbias, L->ncolbias, "column biases"));
  PetscCall(Upload(&S->biasbase, L->biasbase, L->nslices, "bias offsets"));
  PetscCall(Upload(&S->slot2csr, L->slot2csr, L->nslots, "value map"));
  PetscCall(Upload(&S->diagslot, L->diagslot, L->nrows, "diagonal slots"));
  PetscCall(Upload(&S->longptr, L->longptr, L->nlong + 1, "long rows"));
  PetscCall(Upload(&S->longchunk, L->longchunk, L->nlong + 1, "long-row chunks"));
  PetscCall(Upload(&S->chunkptr, L->chunkptr, L->nchunks + 1, "chunks"));
  PetscCall(Upload(&S->chunkrow, L->chunkrow, L->nchunks, "chunk rows"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->count, L->nlong * sizeof(int), "chunk counters"));
  if (L->nlong) PetscCallCUDA(cudaMemsetAsync(S->count, 0, L->nlong * sizeof(int), stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->partial, L->nchunks * sizeof(PetscScalar), "chunk sums"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->val, L->nslots * sizeof(PetscScalar), "values"));
  if (L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, L->nslots * sizeof(PetscScalar), stream)); /* padding is zero for good: the refreshes skip it */
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->work, ELLWARP_RED_BLOCKS * sizeof(PetscReal), "reduction"));
  *out = S;
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Upload, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the store of a layout built by the device analysis (ellwarpanalysis.cu): its arrays are taken over */
PetscErrorCode EllwarpCUDACreateFromDevice(const EllwarpLayout *L, EllwarpDeviceArrays *a, EllwarpStore **out)
{
  EllwarpStore *S;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscNew(&S));
  S->L         = L;
  S->sliceptr  = a->sliceptr;
  S->slicerow  = a->slicerow;
  S->meta      = a->meta;
  S->colbase   = a->colbase;
  S->rowperm   = a->rowperm;
  S->col32     = a->col32;
  S->col16     = a->col16;
  S->colbias   = a->colbias;
  S->biasbase  = a->biasbase;
  S->slot2csr  = a->slot2csr;
  S->diagslot  = a->diagslot;
  S->longptr   = a->longptr;
  S->longchunk = a->longchunk;
  S->chunkptr  = a->chunkptr;
  S->chunkrow  = a->chunkrow;
  PetscCall(PetscMemzero(a, sizeof(*a)));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->count, L->nlong * sizeof(int), "chunk counters"));
  if (L->nlong) PetscCallCUDA(cudaMemsetAsync(S->count, 0, L->nlong * sizeof(int), stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->partial, L->nchunks * sizeof(PetscScalar), "chunk sums"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->val, L->nslots * sizeof(PetscScalar), "values"));
  if (L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, L->nslots * sizeof(PetscScalar), stream)); /* padding is zero for good: the refreshes skip it */
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->work, ELLWARP_RED_BLOCKS * sizeof(PetscReal), "reduction"));
  *out = S;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void EllwarpCUDAStoreArrays(const EllwarpStore *S, EllwarpDeviceArrays *a)
{
  a->sliceptr  = S->sliceptr;
  a->slicerow  = S->slicerow;
  a->meta      = S->meta;
  a->colbase   = S->colbase;
  a->rowperm   = S->rowperm;
  a->col32     = S->col32;
  a->col16     = S->col16;
  a->colbias   = S->colbias;
  a->biasbase  = S->biasbase;
  a->slot2csr  = S->slot2csr;
  a->diagslot  = S->diagslot;
  a->longptr   = S->longptr;
  a->longchunk = S->longchunk;
  a->chunkptr  = S->chunkptr;
  a->chunkrow  = S->chunkrow;
}

static PetscErrorCode CUDADestroy(EllwarpStore **S)
{
  PetscFunctionBegin;
  if (!*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read the arrays */
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->sliceptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->slicerow));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->meta));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col32));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col16));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbias));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->biasbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->longptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->longchunk));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->chunkptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->chunkrow));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->count));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->partial));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->slot2csr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->diagslot));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->val));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->work));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coojmap));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->cooperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coo2slot));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coobuf));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowstart));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowlen));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coostart));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coolen));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- kernels ------------------------------------------------------------------------------------- */
/* ---- streaming helpers for the value refreshes ------------------------------------------------------
   The refresh kernels (gather, COO, AXPY) are pure bandwidth: each thread takes EW_VEC = 4 consecutive
   slots, loads their plan/map entries in one 128-bit load (two for 64-bit indices), issues all the value
   loads before any use, and writes the 4 values with two 128-bit stores.  Data touched once (plan, map,
   the layout values) goes with the streaming hints __ldcs/__stcs so it does not evict what is reused
   (the gathered source values: several slots read each 32-byte sector, through the read-only path).
   cudaMalloc'ed arrays are 256-byte aligned and a group starts at a multiple of 4 slots, so the vector
   accesses are aligned; the last nslots % 4 slots are done one by one. */
#define EW_VEC 4
#if !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #define EW_VEC_VALUES 1 /* 2 x double2 per group */
#endif

template <typename I>
__device__ __forceinline__ void LdIdx4(const I *__restrict__ p, I q[EW_VEC])
{
  if (sizeof(I) == sizeof(int)) {
    const int4 t = __ldcs(reinterpret_cast<const int4 *>(p));
    q[0]         = (I)t.x;
    q[1]         = (I)t.y;
    q[2]         = (I)t.z;
    q[3]         = (I)t.w;
  } else {
    const longlong2 a = __ldcs(reinterpret_cast<const longlong2 *>(p)), b = __ldcs(reinterpret_cast<const longlong2 *>(p) + 1);
    q[0]              = (I)a.x;
    q[1]              = (I)a.y;
    q[2]              = (I)b.x;
    q[3]              = (I)b.y;
  }
}

/* one index, streamed (read once) */
template <typename I>
__device__ __forceinline__ I LdIdx(const I *__restrict__ p)
{
  if (sizeof(I) == sizeof(int)) return (I)__ldcs(reinterpret_cast<const int *>(p));
  return (I)__ldcs(reinterpret_cast<const long long *>(p));
}

__device__ __forceinline__ void LdVal4(const PetscScalar *__restrict__ p, PetscScalar v[EW_VEC])
{
#if defined(EW_VEC_VALUES)
  const double2 a = __ldcs(reinterpret_cast<const double2 *>(p)), b = __ldcs(reinterpret_cast<const double2 *>(p) + 1);
  v[0]            = a.x;
  v[1]            = a.y;
  v[2]            = b.x;
  v[3]            = b.y;
#else
  for (int i = 0; i < EW_VEC; i++) v[i] = p[i];
#endif
}

__device__ __forceinline__ void StVal4(PetscScalar *__restrict__ p, const PetscScalar v[EW_VEC])
{
#if defined(EW_VEC_VALUES)
  __stcs(reinterpret_cast<double2 *>(p), make_double2(v[0], v[1]));
  __stcs(reinterpret_cast<double2 *>(p) + 1, make_double2(v[2], v[3]));
#else
  for (int i = 0; i < EW_VEC; i++) p[i] = v[i];
#endif
}

/* a gathered source value (reused by neighbouring slots: cached, read-only path) */
__device__ __forceinline__ PetscScalar LdGather(const PetscScalar *__restrict__ p)
{
#if defined(EW_VEC_VALUES)
  return __ldg(p);
#else
  return *p;
#endif
}

#define EW_GROUPS_LOOP(n) \
  for (PetscCount g = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x, ng_ = ((n) + EW_VEC - 1) / EW_VEC; g < ng_; g += (PetscCount)gridDim.x * blockDim.x)

/* path 1: staging CSR -> slots.  Padding (map -1) is zero from creation on and never written: a group of
   4 padding slots is skipped, a mixed group writes 0 where it was 0 already. */
__global__ static void __launch_bounds__(256) GatherKernel(PetscCount n, const PetscInt *__restrict__ map, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  EW_GROUPS_LOOP(n)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= n) {
      PetscInt    m[EW_VEC];
      PetscScalar x[EW_VEC];
      LdIdx4(map + s, m);
      if ((m[0] & m[1] & m[2] & m[3]) < 0) continue; /* all padding */
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) x[i] = m[i] >= 0 ? LdGather(csr + m[i]) : 0.0;
      StVal4(val + s, x);
    } else
      for (PetscCount k = s; k < n; k++) {
        const PetscInt m = LdIdx(map + k);
        if (m >= 0) val[k] = csr[m];
      }
  }
}

/* The row form of the map (EllwarpLayoutRowForm, layout.c), built and checked on the device from the slot map, once:
   one warp per slice; each lane walks its slots; a row's lanes agree through shuffles within their group of
   tpr lanes.  *bad is set when some row's entries are not start + e for e < len followed by padding. */
template <typename M>
__global__ static void RowFormKernel(DevLayout d, const M *__restrict__ map, PetscInt *start, int *len, int *bad)
{
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return; /* whole warps leave together: a slice is one warp */
  const PetscCount base = d.sliceptr[s];
  const int        w = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES), l2 = d.meta[s] & 15, tpr = 1 << l2, sub = lane & (tpr - 1);
  const PetscInt   r    = d.slicerow[s] + (lane >> l2);
  const bool       live = r < d.slicerow[s + 1];
  const PetscInt   st   = __shfl_sync(0xffffffffu, w ? (PetscInt)map[base + lane] : -1, lane & ~(tpr - 1)); /* the row's entry 0 */
  int              n    = 0;
  for (int k = 0; k < w; k++) n += map[base + (PetscCount)k * ELLWARP_LANES + lane] >= 0;
  for (int off = tpr >> 1; off > 0; off >>= 1) n += __shfl_xor_sync(0xffffffffu, n, off); /* the row's entries */
  for (int k = 0; k < w; k++) {
    const PetscInt m = (PetscInt)map[base + (PetscCount)k * ELLWARP_LANES + lane];
    const int      e = k * tpr + sub;
    if (e < n ? m != st + e : m >= 0) atomicOr(bad, 1);
  }
  if (live && sub == 0) {
    start[r] = n ? st : 0;
    len[r]   = n;
  }
}

template <typename M>
__global__ static void LongRowFormKernel(PetscInt nlong, const PetscCount *__restrict__ longptr, const M *__restrict__ map, PetscInt *start, int *len, int *bad)
{
  for (PetscInt q = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; q < nlong; q += (PetscInt)gridDim.x * blockDim.x) {
    const PetscCount a = longptr[q], b = longptr[q + 1];
    start[q] = (PetscInt)map[a];
    len[q]   = (int)(b - a);
    for (PetscCount k = a; k < b; k++)
      if (map[k] < 0 || map[k] != map[a] + (k - a)) atomicOr(bad, 1);
  }
}

/* path 1 through the row form, lane by lane ("rows"): a warp per slice, step by step; the warp writes 32
   consecutive slots (coalesced), each lane reads its own row's CSR values in order (a 32-byte sector serves
   several steps from L1).  16 bytes per slot instead of the slot map's 20.  Padding is not written. */
__global__ static void __launch_bounds__(256) GatherRowsKernel(DevLayout d, const PetscInt *__restrict__ start, const int *__restrict__ len, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return;
  const int      l2 = d.meta[s] & 15, tpr = 1 << l2, sub = lane & (tpr - 1);
  const PetscInt r = d.slicerow[s] + (lane >> l2);
  const bool     live = r < d.slicerow[s + 1];
  const PetscInt st   = live ? start[r] : 0;
  const int      n    = live ? len[r] : 0;
  const int      kmax = n > sub ? (n - sub + tpr - 1) / tpr : 0; /* this lane's entries */
  PetscScalar   *v    = val + d.sliceptr[s] + lane;
#pragma unroll 4
  for (int k = 0; k < kmax; k++) __stcs(v + (size_t)k * ELLWARP_LANES, __ldg(csr + st + k * tpr + sub));
}

/* path 1 through the row form, staged in shared memory ("slice"): per chunk of GS_STEPS steps of a slice, the
   warp reads each row's next GS_STEPS * tpr consecutive CSR values with consecutive lanes (coalesced: 2 rows of
   128 contiguous bytes per load for K1), drops them into their slots' places in shared memory, then writes the
   chunk as GS_STEPS runs of 32 consecutive slots (coalesced).  Both sides move whole sectors; padding slots of
   the chunk are written as the zeros they hold.  Rows padded to 33 doubles: a lane group of one row writes
   GS_STEPS different steps, which a stride of 32 would put in one bank.  ADD (unique COO with ADD_VALUES): each
   slot becomes old + value (old + 0 past a row's last entry: padding stays zero). */
#define GS_LOG2  4
#define GS_STEPS (1 << GS_LOG2)
#define GS_ROW   (ELLWARP_LANES + 1)
template <bool ADD>
__global__ static void __launch_bounds__(256) GatherSliceKernel(DevLayout d, const PetscInt *__restrict__ start, const int *__restrict__ len, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  __shared__ PetscScalar buf[8][GS_STEPS * GS_ROW];
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1), wib = threadIdx.x / ELLWARP_LANES;
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + wib;
  if (s >= d.nslices) return; /* a whole warp: a slice is one warp */
  const PetscCount base = d.sliceptr[s];
  const int        w = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES), l2 = d.meta[s] & 15, tpr = 1 << l2;
  const int        sh = GS_LOG2 + l2, seg = 1 << sh; /* values of one row in one chunk: GS_STEPS << l2 */
  const PetscInt   r   = d.slicerow[s] + lane;
  const bool       own = lane < (ELLWARP_LANES >> l2) && r < d.slicerow[s + 1]; /* lane q holds row q's start and length */
  const PetscInt   myst = own ? start[r] : 0;
  const int        mylen = own ? len[r] : 0;
  PetscScalar     *sb    = buf[wib];

  for (int k0 = 0; k0 < w; k0 += GS_STEPS) {
#pragma unroll
    for (int it = 0; it < GS_STEPS; it++) {
      const int      v = it * ELLWARP_LANES + lane, q = v >> sh, o = v & (seg - 1), e = (k0 << l2) + o;
      const PetscInt st = __shfl_sync(0xffffffffu, myst, q);
      const int      n  = __shfl_sync(0xffffffffu, mylen, q);
      sb[(o >> l2) * GS_ROW + q * tpr + (o & (tpr - 1))] = e < n ? __ldg(csr + st + e) : 0.0;
    }
    __syncwarp();
    const int nk = min(GS_STEPS, w - k0);
    for (int it = 0; it < nk; it++) {
      PetscScalar *p = val + base + (size_t)(k0 + it) * ELLWARP_LANES + lane;
      __stcs(p, ADD ? __ldcs(p) + sb[it * GS_ROW + lane] : sb[it * GS_ROW + lane]);
    }
    __syncwarp();
  }
}

template <bool ADD>
__global__ static void GatherLongKernel(PetscInt nlong, const PetscCount *__restrict__ longptr, const PetscInt *__restrict__ start, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  /* one block per long row: contiguous copy */
  for (PetscInt q = blockIdx.x; q < nlong; q += gridDim.x) {
    const PetscCount a = longptr[q], n = longptr[q + 1] - a;
    for (PetscCount k = threadIdx.x; k < n; k += blockDim.x) val[a + k] = ADD ? val[a + k] + csr[start[q] + k] : csr[start[q] + k];
  }
}

__global__ static void ScatterKernel(PetscCount n, const PetscInt *__restrict__ map, const PetscScalar *__restrict__ val, PetscScalar *__restrict__ csr)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) {
    PetscInt m = map[k];
    if (m >= 0) csr[m] = val[k];
  }
}

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
  const PetscCount   base = d.sliceptr[s];
  const int          w    = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES);
  const int          meta = d.meta[s], l2 = meta & 15;
  const PetscInt     r    = d.slicerow[s] + (lane >> l2);
  const bool         live = r < d.slicerow[s + 1];
  const PetscInt     row  = live ? d.rowperm[r] : 0;
  const PetscScalar *v    = val + base + lane;
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

/* ---- kernel variants (EllwarpTune; -mat_ellwarp_mult_*, -mat_ellwarp_long_*) ----------------------------
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

/* the long-row chunks alone (-mat_ellwarp_long_block_size > 0), before the slice kernel */
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
                                   -mat_ellwarp_long_unroll runs them in LongKernel (a run-time choice here would cost 30 registers) */
    LongChunkU<ADD, 8>(d, val, x, z, y);
    return;
  }
  constexpr int  NC    = FL & 1;                /* -mat_ellwarp_mult_nc */
  constexpr bool BIAS  = (FL & 4) != 0;         /* the layout has biased 16-bit slices (else the kernel has no code for them) */
  constexpr int  STEPS = (FL & 2) ? 8 : 4;        /* steps in flight: 4 as MultKernel (ellwarp_unroll), or -mat_ellwarp_mult_unroll 8 */
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

/* one thread per (slice lane): visit the lane's slots with their row and column */
#define SLICE_LANE_PROLOGUE \
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1); \
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES; \
  if (s >= d.nslices + d.nlong) return; \
  if (s >= d.nslices) { /* a long row: its lanes stride over its entries */ \
    const PetscInt q   = s - d.nslices; \
    const PetscInt row = d.rowperm[q]; \
    for (PetscCount slot = d.longptr[q] + lane; slot < d.longptr[q + 1]; slot += ELLWARP_LANES) { \
      const int col = d.col32[d.longcolbase + (slot - d.longptr[0])]; \
      SLOT_BODY; \
    } \
    return; \
  } \
  const PetscCount base = d.sliceptr[s]; \
  const int        w    = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES); \
  const int        meta = d.meta[s]; \
  const PetscInt   r    = d.slicerow[s] + (lane >> (meta & 15)); \
  if (r >= d.slicerow[s + 1]) return; \
  const PetscInt row = d.rowperm[r]; \
  for (int k = 0; k < w; k++) { \
    const PetscCount off  = (PetscCount)k * ELLWARP_LANES + lane, slot = base + off; \
    int              col; \
    if (meta & 16) { /* bit 5: from row + bias[k * tpr + j] */ \
      const short cc = d.col16[d.colbase[s] + off]; \
      col            = cc == ELLWARP_PAD16 ? -1 : (int)(row + ((meta & 32) ? bz.colbias[bz.biasbase[s] + (k << (meta & 15)) + (lane & ((1 << (meta & 15)) - 1))] : 0) + cc); \
    } else col = d.col32[d.colbase[s] + off]; \
    if (col < 0) continue; \
    SLOT_BODY; \
  }

__global__ static void DiagScaleKernel(DevLayout d, DevBias bz, PetscScalar *val, const PetscScalar *l, const PetscScalar *rr)
{
#define SLOT_BODY val[slot] *= (l ? l[row] : 1.0) * (rr ? rr[col] : 1.0)
  SLICE_LANE_PROLOGUE
#undef SLOT_BODY
}

__global__ static void ZeroMaskedKernel(DevLayout d, DevBias bz, PetscScalar *val, const char *rmask, const char *cmask, PetscScalar diag)
{
#define SLOT_BODY \
  if ((rmask && rmask[row]) || (cmask && cmask[col])) val[slot] = (col == row) ? diag : 0.0
  SLICE_LANE_PROLOGUE
#undef SLOT_BODY
}

__global__ static void ScaleKernel(PetscCount n, PetscScalar a, PetscScalar *val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) val[k] *= a;
}

/* path 3: Y += a X over the slots (the same layout; padding 0 + a 0 stays 0).  x and y are each read once:
   4 values of each loaded (128-bit, streaming) before any arithmetic, 4 stored. */
__global__ static void __launch_bounds__(256) AXPYKernel(PetscCount n, PetscScalar a, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  EW_GROUPS_LOOP(n)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= n) {
      PetscScalar xv[EW_VEC], yv[EW_VEC];
      LdVal4(x + s, xv);
      LdVal4(y + s, yv);
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) yv[i] += a * xv[i];
      StVal4(y + s, yv);
    } else
      for (PetscCount k = s; k < n; k++) y[k] += a * x[k];
  }
}

__global__ static void ShiftKernel(PetscInt n, const PetscCount *diagslot, PetscScalar a, PetscScalar *val)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (diagslot[i] >= 0) val[diagslot[i]] += a;
}

__global__ static void GetDiagKernel(PetscInt m, PetscInt n, const PetscCount *diagslot, const PetscScalar *val, PetscScalar *d)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) d[i] = (i < n && diagslot[i] >= 0) ? val[diagslot[i]] : 0.0;
}

__global__ static void SetRowsKernel(PetscInt n, const PetscInt *rows, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[rows[i]] = a * x[rows[i]];
}

/* block partials of sum |v|^2 (sq) or max |v|; the host combines them in a fixed order */
template <bool SQ>
__global__ static void ReduceKernel(PetscCount n, const PetscScalar *v, PetscReal *part)
{
  __shared__ PetscReal sh[256];
  PetscReal            acc = 0;
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) {
    PetscReal a = PetscAbsScalar(v[k]);
    acc         = SQ ? acc + a * a : (a > acc ? a : acc);
  }
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) sh[threadIdx.x] = SQ ? sh[threadIdx.x] + sh[threadIdx.x + off] : (sh[threadIdx.x + off] > sh[threadIdx.x] ? sh[threadIdx.x + off] : sh[threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

__global__ static void FillKernel(PetscCount n, PetscScalar a, PetscScalar *v)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) v[k] = a;
}

/* ---- operations ---------------------------------------------------------------------------------- */
#define GRID(n, stream) PetscMin(Blocks((n), 256), 65535u), 256, 0, stream

/* the row form (start, len per sorted row) of a slot map (slot -> source index, negative: none), when it holds:
   one read of the map and a host synchronization; *start stays NULL when it does not */
template <typename M>
static PetscErrorCode RowFormOf(const EllwarpStore *S, const M *map, PetscInt **start, int **len)
{
  const EllwarpLayout *L = S->L;
  int                 *dbad, bad = 0;
  cudaStream_t         stream;

  PetscFunctionBegin;
  *start = NULL;
  *len   = NULL;
  if (!L->nrows || !L->nslots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)start, L->nrows * sizeof(PetscInt), "row starts"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)len, L->nrows * sizeof(int), "row lengths"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&dbad, sizeof(int), "flag"));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), stream));
  if (L->nslices) RowFormKernel<M><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), map, *start, *len, dbad);
  if (L->nlong) LongRowFormKernel<M><<<GRID(L->nlong, stream)>>>(L->nlong, S->longptr, map, *start, *len, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(int)));
  PetscCall(PetscEllwarpDeviceFreeArray(&dbad));
  if (bad) {
    PetscCall(PetscEllwarpDeviceFreeArray(start));
    PetscCall(PetscEllwarpDeviceFreeArray(len));
    *start = NULL;
    *len   = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_ellwarp_gather auto|slice|rows|map (benchmarks/amortize measures them): how the row form is used
   (1 rows, 2 slice), 0: not at all (map) */
static PetscErrorCode GatherHow(int *how)
{
  char      s[8] = "auto";
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_ellwarp_gather", s, sizeof(s), &set));
  PetscCheck(!set || !strcmp(s, "auto") || !strcmp(s, "slice") || !strcmp(s, "rows") || !strcmp(s, "map"), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_gather %s: auto, slice, rows or map", s);
  *how = !strcmp(s, "map") ? 0 : (!strcmp(s, "rows") ? 1 : 2); /* auto: slice */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row form of the CSR -> slot map, checked once per store */
static PetscErrorCode RowForm(EllwarpStore *S)
{
  int how;

  PetscFunctionBegin;
  if (S->rowform) PetscFunctionReturn(PETSC_SUCCESS);
  S->rowform = -1;
  PetscCall(GatherHow(&how));
  if (!how) PetscFunctionReturn(PETSC_SUCCESS);
  S->gatherhow = how;
  if (!S->L->nrows || !S->L->nslots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowFormOf<PetscInt>(S, S->slot2csr, &S->rowstart, &S->rowlen));
  if (S->rowstart) S->rowform = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAGather(EllwarpStore *S, const PetscScalar *csr)
{
  const EllwarpLayout *L = S->L;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(RowForm(S));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->rowform > 0) {
    if (L->nlong) GatherLongKernel<false><<<(unsigned)PetscMin(L->nlong, 65535), 256, 0, stream>>>(L->nlong, S->longptr, S->rowstart, csr, S->val);
    if (L->nslices && S->gatherhow == 1) GatherRowsKernel<<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->rowstart, S->rowlen, csr, S->val);
    else if (L->nslices) GatherSliceKernel<false><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->rowstart, S->rowlen, csr, S->val);
  } else if (L->nslots) GatherKernel<<<GRID((L->nslots + EW_VEC - 1) / EW_VEC, stream)>>>(L->nslots, S->slot2csr, csr, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAScatter(const EllwarpStore *S, PetscScalar *csr)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslots) ScatterKernel<<<GRID(S->L->nslots, stream)>>>(S->L->nslots, S->slot2csr, S->val, csr);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
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
  if ((t->longblock || lu < 8) && d.nchunks) { /* the chunks in a kernel of their own (block size: long_block_size, else the product's), then the slices */
    const unsigned lb = (unsigned)(t->longblock ? t->longblock : bs);
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

static PetscErrorCode LaunchMult(const EllwarpStore *S, PetscInt bs, const PetscScalar *x, const PetscScalar *vals, const PetscScalar *z, PetscScalar *y, PetscBool abs)
{
  const EllwarpLayout *L   = S->L;
  const int            wpb = (int)(bs / ELLWARP_LANES);
  DevLayout            d   = View(S);
  const DevBias        bz  = BiasView(S);
  const bool           biased = L->nbias > 0; /* layouts without biased slices run kernel instances without code for them */
  PetscInt             nb;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (z && z == y && !abs) d.nslices = L->nactive; /* in place: trailing slices of zero-length rows add nothing */
  if (!abs) {
    EllwarpTune t;
    EllwarpTuneResolve(L, S->tune, &t);
    if (t.multlanes > 1 || t.multacc > 1 || t.multnc || t.multunroll == 8 || t.longunroll < 8 || t.longblock) {
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

static PetscErrorCode CUDAMult(const EllwarpStore *S, PetscInt bs, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(LaunchMult(S, bs, x, S->val, z, y, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * S->L->nnz - (z ? 0 : S->L->nrows)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAScale(EllwarpStore *S, PetscScalar a)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslots) ScaleKernel<<<GRID(S->L->nslots, stream)>>>(S->L->nslots, a, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(S->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAShift(EllwarpStore *S, PetscScalar a)
{
  PetscInt     n = PetscMin(S->L->nrows, S->L->ncols);
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (n) ShiftKernel<<<GRID(n, stream)>>>(n, S->diagslot, a, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAGetDiag(const EllwarpStore *S, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nrows) GetDiagKernel<<<GRID(S->L->nrows, stream)>>>(S->L->nrows, S->L->ncols, S->diagslot, S->val, d);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static unsigned SliceBlocks(const EllwarpLayout *L)
{
  return (unsigned)((L->nslices + L->nlong + 7) / 8);
}

static PetscErrorCode CUDADiagScale(EllwarpStore *S, const PetscScalar *l, const PetscScalar *r)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslices + S->L->nlong) DiagScaleKernel<<<SliceBlocks(S->L), 256, 0, stream>>>(View(S), BiasView(S), S->val, l, r);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAZeroMasked(EllwarpStore *S, const char *rmask, const char *cmask, PetscScalar diag)
{
  const EllwarpLayout *L  = S->L;
  char                *dr = NULL, *dc = NULL;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (rmask) PetscCall(Upload(&dr, rmask, (size_t)L->nrows, "row mask"));
  if (cmask) PetscCall(Upload(&dc, cmask, (size_t)L->ncols, "column mask"));
  PetscCall(PetscLogGpuTimeBegin());
  if (L->nslices + L->nlong) ZeroMaskedKernel<<<SliceBlocks(L), 256, 0, stream>>>(View(S), BiasView(S), S->val, dr, dc, diag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscEllwarpDeviceFreeArray(&dr));
  PetscCall(PetscEllwarpDeviceFreeArray(&dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAAXPY(EllwarpStore *Y, PetscScalar a, const EllwarpStore *X)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (Y->L->nslots) AXPYKernel<<<GRID((Y->L->nslots + EW_VEC - 1) / EW_VEC, stream)>>>(Y->L->nslots, a, X->val, Y->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * Y->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACopy(EllwarpStore *Y, const EllwarpStore *X)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceCopy(Y->val, X->val, Y->L->nslots * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReduceArray(const EllwarpStore *S, PetscCount n, const PetscScalar *v, PetscBool sq, PetscReal *res)
{
  PetscReal    part[ELLWARP_RED_BLOCKS];
  unsigned     nb = (unsigned)PetscMin((PetscCount)ELLWARP_RED_BLOCKS, PetscMax((PetscCount)1, (n + 255) / 256));
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (sq) ReduceKernel<true><<<nb, 256, 0, stream>>>(n, v, S->work);
  else ReduceKernel<false><<<nb, 256, 0, stream>>>(n, v, S->work);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(part, S->work, nb * sizeof(PetscReal)));
  *res = 0;
  for (unsigned b = 0; b < nb; b++) *res = sq ? *res + part[b] : PetscMax(*res, part[b]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDANorm(const EllwarpStore *S, NormType type, PetscReal *nrm)
{
  const EllwarpLayout *L = S->L;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (type == NORM_FROBENIUS) {
    PetscCall(ReduceArray(S, L->nslots, S->val, PETSC_TRUE, nrm));
    *nrm = PetscSqrtReal(*nrm);
  } else { /* max row sum of |a_ij|: a product of |A| with ones */
    PetscScalar *ones, *rs;
    PetscCheck(type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "Norm type %s is computed through the transpose", NormTypes[type]);
    PetscCall(PetscEllwarpDeviceMalloc((void **)&ones, L->ncols * sizeof(PetscScalar), "norm work"));
    PetscCall(PetscEllwarpDeviceMalloc((void **)&rs, L->nrows * sizeof(PetscScalar), "norm work"));
    if (L->ncols) FillKernel<<<GRID(L->ncols, stream)>>>(L->ncols, 1.0, ones);
    if (L->nrows) FillKernel<<<GRID(L->nrows, stream)>>>(L->nrows, 0.0, rs);
    PetscCall(LaunchMult(S, 256, ones, S->val, NULL, rs, PETSC_TRUE));
    PetscCall(ReduceArray(S, L->nrows, rs, PETSC_FALSE, nrm)); /* ends with a stream synchronization */
    PetscCall(PetscEllwarpDeviceFreeArray(&ones));
    PetscCall(PetscEllwarpDeviceFreeArray(&rs));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDASetRows(PetscInt n, const PetscInt *rows, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  PetscInt    *d;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(Upload(&d, rows, (size_t)n, "row list"));
  SetRowsKernel<<<GRID(n, stream)>>>(n, d, a, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscEllwarpDeviceFreeArray(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRAlloc(PetscCount n, PetscScalar **p)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMalloc((void **)p, n * sizeof(PetscScalar), "CSR values"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRFree(PetscScalar **p)
{
  PetscFunctionBegin;
  if (*p) PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read it */
  PetscCall(PetscEllwarpDeviceFreeArray(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRUpload(PetscCount n, const PetscScalar *h, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (n) PetscCallCUDA(cudaMemcpyAsync(d, h, n * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu(n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRDownload(PetscCount n, const PetscScalar *d, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceDownload(h, d, n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO plan, built on the device from the store's slot -> CSR map and SeqAIJ's jmap/perm.
   - At most one entry per nonzero (unique): in slot order (the plan EllwarpCOOSlotPlan() builds on the
     host), one COO index per slot: one thread per 4 slots, coalesced plan reads and value writes.
   - Duplicates (FE assembly: ~6 entries per nonzero): in CSR order, SeqAIJ's jmap/perm as they are plus a
     CSR -> slot map.  The element loops wrote the entries of neighbouring CSR nonzeros next to each other,
     so neighbouring threads read neighbouring COO values; the one scattered write per nonzero is cheap next
     to that.  (A slot-order plan puts different rows of a slice in neighbouring threads: scattered reads of
     ~6 entries per slot, measured 4x slower on an H100.)
   Both sum a nonzero's entries in SeqAIJ's order from 0, so the values are bitwise those of the host store.
   32-bit indices where they fit (PETSc's own plan is 64-bit throughout). */
template <typename I>
__global__ static void COOUniqueKernel(PetscCount nslots, const PetscInt *__restrict__ slot2csr, const I *__restrict__ jmap, const I *__restrict__ perm, I *__restrict__ slotperm)
{
  for (PetscCount s = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt k = slot2csr[s];
    slotperm[s]      = k < 0 ? (I)-1 : (jmap[k + 1] > jmap[k] ? perm[jmap[k]] : (I)-2); /* -1 padding, -2 no entry */
  }
}

/* CSR -> slot from slot -> CSR (csr2slot is -1 beforehand: a nonzero without a slot, which the layout never
   makes, would be skipped, as the slot-order plans skip it) */
template <typename I>
__global__ static void COOCsr2SlotKernel(PetscCount nslots, const PetscInt *__restrict__ slot2csr, I *__restrict__ csr2slot)
{
  for (PetscCount s = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt k = slot2csr[s];
    if (k >= 0) csr2slot[k] = (I)s;
  }
}

/* One entry per slot: the plan is a COO index per slot (-1 padding: skipped, stays zero; -2 a nonzero with
   no entry: INSERT writes 0).  Per group of 4 slots: one 128-bit plan load, the 4 gathers, ADD's 128-bit
   read of the old values, all issued before the two 128-bit stores.  Sums as the host: v, or old + v. */
template <typename I, bool ADD>
__global__ static void __launch_bounds__(256) COOUniqueValuesKernel(PetscCount nslots, const I *__restrict__ slotperm, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  EW_GROUPS_LOOP(nslots)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= nslots) {
      I           p[EW_VEC];
      PetscScalar x[EW_VEC], o[EW_VEC];
      LdIdx4(slotperm + s, p);
      if (p[0] == -1 && p[1] == -1 && p[2] == -1 && p[3] == -1) continue; /* all padding */
      if (ADD) LdVal4(val + s, o);
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) x[i] = p[i] >= 0 ? LdGather(v + p[i]) : 0.0;
      if (ADD) {
#pragma unroll
        for (int i = 0; i < EW_VEC; i++) x[i] = o[i] + x[i];
      }
      StVal4(val + s, x);
    } else
      for (PetscCount k = s; k < nslots; k++) {
        const I p = LdIdx(slotperm + k);
        if (p == -1) continue;
        const PetscScalar sum = p >= 0 ? v[p] : 0.0;
        val[k]                = ADD ? val[k] + sum : sum;
      }
  }
}

/* Duplicates: one thread per CSR nonzero k sums v[perm[q]], q in [jmap[k], jmap[k + 1]), in that order from
   0 (SeqAIJ's order: bitwise the host's sums) and writes its slot as the host does: 0 + sum or old + sum.
   Padding slots have no nonzero and keep their zero. */
template <typename I, bool ADD>
__global__ static void __launch_bounds__(256) COOCSRValuesKernel(PetscCount nnz, const I *__restrict__ jmap, const I *__restrict__ perm, const I *__restrict__ csr2slot, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscCount)gridDim.x * blockDim.x) {
    const I s = LdIdx(csr2slot + k), q1 = __ldg(jmap + k + 1);
    if (s < 0) continue;
    PetscScalar sum = 0.0;
    for (I q = __ldg(jmap + k); q < q1; q++) sum += LdGather(v + LdIdx(perm + q));
    val[s] = (ADD ? val[s] : (PetscScalar)0.0) + sum;
  }
}

/* Variant of COOCSRValuesKernel (-mat_ellwarp_coo_unroll U, -mat_ellwarp_coo_block_size): a nonzero's
   entries U at a time, their perm indices and then their values all loaded before they are added, in the
   same order (bitwise COOCSRValuesKernel's sums): ~6 dependent load pairs per thread become ~2 rounds. */
template <typename I, bool ADD, int U>
__global__ static void __launch_bounds__(1024) COOCSRValuesKernelU(PetscCount nnz, const I *__restrict__ jmap, const I *__restrict__ perm, const I *__restrict__ csr2slot, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscCount)gridDim.x * blockDim.x) {
    const I s = LdIdx(csr2slot + k), q1 = __ldg(jmap + k + 1);
    if (s < 0) continue;
    PetscScalar sum = 0.0;
    for (I q = __ldg(jmap + k); q < q1; q += U) {
      I           p[U];
      PetscScalar e[U];
#pragma unroll
      for (int u = 0; u < U; u++) p[u] = q + u < q1 ? LdIdx(perm + q + u) : (I)0;
#pragma unroll
      for (int u = 0; u < U; u++) e[u] = q + u < q1 ? LdGather(v + p[u]) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++)
        if (q + u < q1) sum += e[u];
    }
    val[s] = (ADD ? val[s] : (PetscScalar)0.0) + sum;
  }
}

/* Variant -mat_ellwarp_coo_walk lane: a thread per slice lane walks its slots step by step (the lanes of
   a warp write 32 consecutive slots per step: coalesced writes, where the CSR walk writes one scattered
   slot per nonzero), each slot's nonzero through slot2csr and its COO entries through jmap/perm, U in flight,
   summed in the same order (bitwise the CSR walk's values); the long rows' slots one per thread after that.
   The price: the lanes of a warp are 32 different rows, so their COO values are scattered. */
template <typename I, bool ADD, int U>
__global__ static void __launch_bounds__(1024) COOLaneValuesKernel(DevLayout d, PetscCount nsliceslots, PetscCount nslots, const PetscInt *__restrict__ slot2csr, const I *__restrict__ jmap, const I *__restrict__ perm, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  const PetscCount nlanes = (PetscCount)d.nslices * ELLWARP_LANES;
  for (PetscCount g = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; g < nlanes + (nslots - nsliceslots); g += (PetscCount)gridDim.x * blockDim.x) {
    PetscCount slot, step = ELLWARP_LANES;
    int        w = 1;
    if (g < nlanes) {
      const PetscInt s = (PetscInt)(g / ELLWARP_LANES);
      slot             = d.sliceptr[s] + g % ELLWARP_LANES;
      w                = (int)((d.sliceptr[s + 1] - d.sliceptr[s]) / ELLWARP_LANES);
    } else slot = nsliceslots + (g - nlanes);
    for (int k = 0; k < w; k++, slot += step) {
      const PetscInt c = LdIdx(slot2csr + slot);
      if (c < 0) continue; /* padding keeps its zero */
      const I     q1  = __ldg(jmap + c + 1);
      PetscScalar sum = 0.0;
      for (I q = __ldg(jmap + c); q < q1; q += U) {
        I           p[U];
        PetscScalar e[U];
#pragma unroll
        for (int u = 0; u < U; u++) p[u] = q + u < q1 ? __ldg(perm + q + u) : (I)0;
#pragma unroll
        for (int u = 0; u < U; u++) e[u] = q + u < q1 ? LdGather(v + p[u]) : 0.0;
#pragma unroll
        for (int u = 0; u < U; u++)
          if (q + u < q1) sum += e[u];
      }
      val[slot] = (ADD ? val[slot] : (PetscScalar)0.0) + sum;
    }
  }
}

template <typename I, bool ADD>
static void LaunchCOOLane(const EllwarpStore *S, const EllwarpTune *t, const PetscScalar *v, cudaStream_t stream)
{
  const EllwarpLayout *L  = S->L;
  const PetscCount     n  = (PetscCount)L->nslices * ELLWARP_LANES + (L->nslots - L->nsliceslots);
  const int            bs = t->cooblock ? (int)t->cooblock : 256, u = (int)t->coounroll;
  const unsigned       nb = PetscMin(Blocks(n, bs), 65535u);
  const I             *jm = (const I *)S->coojmap, *pm = (const I *)S->cooperm;
  const DevLayout      d  = View(S);
  if (!n) return;
  if (u >= 16) COOLaneValuesKernel<I, ADD, 16><<<nb, bs, 0, stream>>>(d, L->nsliceslots, L->nslots, S->slot2csr, jm, pm, v, S->val);
  else if (u >= 8) COOLaneValuesKernel<I, ADD, 8><<<nb, bs, 0, stream>>>(d, L->nsliceslots, L->nslots, S->slot2csr, jm, pm, v, S->val);
  else if (u >= 4) COOLaneValuesKernel<I, ADD, 4><<<nb, bs, 0, stream>>>(d, L->nsliceslots, L->nslots, S->slot2csr, jm, pm, v, S->val);
  else if (u >= 2) COOLaneValuesKernel<I, ADD, 2><<<nb, bs, 0, stream>>>(d, L->nsliceslots, L->nslots, S->slot2csr, jm, pm, v, S->val);
  else COOLaneValuesKernel<I, ADD, 1><<<nb, bs, 0, stream>>>(d, L->nsliceslots, L->nslots, S->slot2csr, jm, pm, v, S->val);
}

template <typename I, bool ADD>
static void LaunchCOOVariant(const EllwarpStore *S, const EllwarpTune *t, const PetscScalar *v, cudaStream_t stream)
{
  const PetscCount nnz = S->L->nnz;
  const int        bs  = t->cooblock ? (int)t->cooblock : 256, u = (int)t->coounroll;
  const unsigned   nb  = PetscMin(Blocks(nnz, bs), 65535u);
  const I         *jm = (const I *)S->coojmap, *pm = (const I *)S->cooperm, *cs = (const I *)S->coo2slot;
  if (u >= 16) COOCSRValuesKernelU<I, ADD, 16><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 8) COOCSRValuesKernelU<I, ADD, 8><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 4) COOCSRValuesKernelU<I, ADD, 4><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 2) COOCSRValuesKernelU<I, ADD, 2><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else COOCSRValuesKernelU<I, ADD, 1><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
}

template <typename I, bool ADD>
static void LaunchCOO(const EllwarpStore *S, const PetscScalar *v, cudaStream_t stream)
{
  const PetscCount nslots = S->L->nslots, ng = (nslots + EW_VEC - 1) / EW_VEC, nnz = S->L->nnz;
  EllwarpTune      t;
  EllwarpTuneResolve(S->L, S->tune, &t);
  if (S->coostart) { /* unique, row by row: the row-form gather from the COO values */
    const EllwarpLayout *L = S->L;
    if (L->nlong) GatherLongKernel<ADD><<<(unsigned)PetscMin(L->nlong, 65535), 256, 0, stream>>>(L->nlong, S->longptr, S->coostart, v, S->val);
    if (L->nslices) GatherSliceKernel<ADD><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->coostart, S->coolen, v, S->val);
  } else if (S->coounique) COOUniqueValuesKernel<I, ADD><<<GRID(ng, stream)>>>(nslots, (const I *)S->cooperm, v, S->val);
  else if (nnz && t.coowalk == 2) LaunchCOOLane<I, ADD>(S, &t, v, stream);
  else if (nnz && (t.coounroll > 1 || t.cooblock)) LaunchCOOVariant<I, ADD>(S, &t, v, stream);
  else if (nnz) COOCSRValuesKernel<I, ADD><<<GRID(nnz, stream)>>>(nnz, (const I *)S->coojmap, (const I *)S->cooperm, (const I *)S->coo2slot, v, S->val);
}

template <typename I>
static PetscErrorCode UploadAs(I **d, const PetscCount *h, PetscCount n, const char *what)
{
  PetscFunctionBegin;
  if (sizeof(I) == sizeof(PetscCount)) {
    PetscCall(Upload(d, (const I *)h, (size_t)n, what));
  } else {
    I *t;
    PetscCall(PetscMalloc1(n, &t));
    for (PetscCount k = 0; k < n; k++) t[k] = (I)h[k];
    PetscCall(Upload(d, t, (size_t)n, what));
    PetscCall(PetscFree(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
static PetscErrorCode COOPlan(EllwarpStore *S, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm)
{
  const PetscCount nslots = S->L->nslots;
  I               *djmap = NULL, *dperm = NULL;
  cudaStream_t     stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(UploadAs<I>(&djmap, jmap, S->L->nnz + 1, "COO plan"));
  PetscCall(UploadAs<I>(&dperm, perm, nperm, "COO plan"));
  if (S->coounique) {
    I *slotperm = NULL;
    PetscCall(PetscEllwarpDeviceMalloc((void **)&slotperm, (size_t)nslots * sizeof(I), "COO plan"));
    int how;
    if (nslots) COOUniqueKernel<I><<<GRID(nslots, stream)>>>(nslots, S->slot2csr, djmap, dperm, slotperm);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscEllwarpDeviceFreeArray(&djmap));
    PetscCall(PetscEllwarpDeviceFreeArray(&dperm));
    S->cooperm = slotperm;
    /* entries given row by row in column order (a CSR-ordered COO list, as most codes produce): each sorted row's
       entries are start + e, so the values gather as path 1's CSR values do (16 instead of 20 bytes per slot) */
    PetscCall(GatherHow(&how));
    if (how && sizeof(I) == sizeof(int)) {
      PetscCall(RowFormOf<I>(S, slotperm, &S->coostart, &S->coolen));
      if (S->coostart) {
        PetscCall(PetscEllwarpDeviceFreeArray(&slotperm));
        S->cooperm = NULL;
      }
    }
    PetscCall(PetscInfo(NULL, "unique COO plan: %s\n", S->coostart ? "row form (entries row by row)" : "a COO index per slot"));
  } else { /* CSR order: SeqAIJ's plan plus CSR -> slot, built from the layout's slot -> CSR (never on the host) */
    I *csr2slot = NULL;
    PetscCall(PetscEllwarpDeviceMalloc((void **)&csr2slot, (size_t)S->L->nnz * sizeof(I), "COO plan"));
    if (S->L->nnz) PetscCallCUDA(cudaMemsetAsync(csr2slot, 0xff, (size_t)S->L->nnz * sizeof(I), stream)); /* -1 */
    if (nslots) COOCsr2SlotKernel<I><<<GRID(nslots, stream)>>>(nslots, S->slot2csr, csr2slot);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(stream));
    S->coojmap  = djmap;
    S->cooperm  = dperm;
    S->coo2slot = csr2slot;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACOOSetup(EllwarpStore *S, PetscCount nv, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm)
{
  PetscCount maxc = 0;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read the old plan */
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coojmap));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->cooperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coo2slot));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coobuf));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coostart));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coolen));
  S->coostart = NULL;
  S->coolen   = NULL;
  S->coojmap = S->cooperm = S->coo2slot = NULL;
  S->coobuf                             = NULL;
  S->ncoo                               = nv;
  for (PetscCount k = 0; k < S->L->nnz; k++) maxc = PetscMax(maxc, jmap[k + 1] - jmap[k]);
  S->coounique = (PetscBool)(maxc <= 1);
  S->coo32     = (PetscBool)(nv <= PETSC_INT32_MAX && nperm <= PETSC_INT32_MAX && S->L->nslots < PETSC_INT32_MAX);
  if (S->coo32) PetscCall(COOPlan<int>(S, nperm, jmap, perm));
  else PetscCall(COOPlan<PetscCount>(S, nperm, jmap, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACOOValues(EllwarpStore *S, const PetscScalar *v, PetscMemType mtype, InsertMode imode)
{
  const PetscScalar *dv     = v;
  const PetscCount   nslots = S->L->nslots;
  const bool         ins    = imode == INSERT_VALUES;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (PetscMemTypeHost(mtype) && S->ncoo) { /* COO values on the host: one transfer, logged */
    if (!S->coobuf) PetscCall(PetscEllwarpDeviceMalloc((void **)&S->coobuf, S->ncoo * sizeof(PetscScalar), "COO values"));
    PetscCall(PetscEllwarpDeviceUpload(S->coobuf, v, S->ncoo * sizeof(PetscScalar))); /* waits: the caller may reuse v (pinned memory copies asynchronously) */
    dv = S->coobuf;
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (nslots) {
    if (S->coo32 && ins) LaunchCOO<int, false>(S, dv, stream);
    else if (S->coo32) LaunchCOO<int, true>(S, dv, stream);
    else if (ins) LaunchCOO<PetscCount, false>(S, dv, stream);
    else LaunchCOO<PetscCount, true>(S, dv, stream);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDAZero(EllwarpStore *S)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (S->L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, (size_t)S->L->nslots * sizeof(PetscScalar), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ static void DiagMissingKernel(PetscInt n, const PetscInt *rows, PetscInt ncols, const PetscCount *diagslot, int *missing)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (rows[i] >= ncols || diagslot[rows[i]] < 0) *missing = 1;
}

/* the missing-diagonal check of MatZeroRows on the device: the layout's arrays stay there */
static PetscErrorCode CUDADiagMissing(const EllwarpStore *S, PetscInt n, const PetscInt *rows, PetscBool *missing)
{
  PetscInt    *d;
  int         *flag, h = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  *missing = PETSC_FALSE;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(Upload(&d, rows, (size_t)n, "row list"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&flag, sizeof(int), "flag"));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(int), stream));
  DiagMissingKernel<<<GRID(n, stream)>>>(n, d, S->L->ncols, S->diagslot, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&h, flag, sizeof(int)));
  PetscCall(PetscEllwarpDeviceFreeArray(&d));
  PetscCall(PetscEllwarpDeviceFreeArray(&flag));
  *missing = (PetscBool)(h != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CUDASetTune(EllwarpStore *S, const EllwarpTune *t)
{
  S->tune = t;
}

const EllwarpKernelOps EllwarpCUDAKernels = {CUDACreate, CUDADestroy, CUDAGather, CUDAScatter, CUDAMult, CUDAScale, CUDAShift, CUDAGetDiag, CUDADiagScale, CUDAZeroMasked, CUDAAXPY, CUDACopy, CUDANorm, CUDASetRows, CUDACSRAlloc, CUDACSRFree, CUDACSRUpload, CUDACSRDownload, CUDACOOSetup, CUDACOOValues, CUDAZero, CUDADiagMissing, CUDASetTune};

/* the layout's value array (device), for writers that fill the slots directly (the DM assembler) */
PetscScalar *EllwarpCUDAStoreValues(EllwarpStore *S)
{
  return S->val;
}
