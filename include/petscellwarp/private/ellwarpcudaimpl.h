/* MATSEQELLWARP's CUDA backend, shared by its files (src/mat/impls/ellwarp/seq/):
     ellwarpstorecuda.cu  the store: the layout's arrays in device memory (upload, adoption of a device-built
                          layout, destroy), the CSR staging copy, and the EllwarpCUDAKernels table
     ellwarpmultcuda.cu   the SpMV kernels (MultKernel, the EllwarpTune variants) and their launch
     ellwarpcoocuda.cu    value refresh: CSR -> slots gather, slots -> CSR scatter, the COO plan and values
     ellwarpopscuda.cu    the other Mat operations on the values (scale, shift, diagonal, norms, zero rows,
                          AXPY, copy)
   This header holds what they share: the store's struct, the device view of a layout passed to the kernels,
   the streaming load/store helpers, and the launch helpers.  One warp per slice; a row owns 1 << log2tpr
   consecutive lanes (K1: one lane) and their partial sums meet through __shfl_down_sync, in the same order
   the host reference (layout.c) adds them.  Device memory and the stream come from ellwarpdevice.h. */
#pragma once

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

static inline DevLayout View(const EllwarpStore *S)
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

static inline DevBias BiasView(const EllwarpStore *S)
{
  DevBias b;
  b.biasbase = S->biasbase;
  b.colbias  = S->colbias;
  return b;
}

#define ELLWARP_RED_BLOCKS 512 /* blocks of the norm reductions (ReduceKernel) */

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

/* launch configuration of the grid-stride kernels */
#define GRID(n, stream) PetscMin(PetscEllwarpBlocks((n), 256), 65535u), 256, 0, stream

/* the operations of EllwarpCUDAKernels (ellwarpstorecuda.cu builds the table), by file */
/* ellwarpcoocuda.cu: value refresh from the CSR staging copy, and COO */
PETSC_INTERN PetscErrorCode EllwarpCUDAGather(EllwarpStore *, const PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDAScatter(const EllwarpStore *, PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDACOOSetup(EllwarpStore *, PetscCount, PetscCount, const PetscCount *, const PetscCount *);
PETSC_INTERN PetscErrorCode EllwarpCUDACOOValues(EllwarpStore *, const PetscScalar *, PetscMemType, InsertMode);
/* ellwarpmultcuda.cu: the products */
PETSC_INTERN PetscErrorCode EllwarpCUDAMult(const EllwarpStore *, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDALaunchMult(const EllwarpStore *, PetscInt, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscBool);
/* ellwarpopscuda.cu: the other Mat operations on the values */
PETSC_INTERN PetscErrorCode EllwarpCUDAScale(EllwarpStore *, PetscScalar);
PETSC_INTERN PetscErrorCode EllwarpCUDAShift(EllwarpStore *, PetscScalar);
PETSC_INTERN PetscErrorCode EllwarpCUDAGetDiag(const EllwarpStore *, PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDADiagScale(EllwarpStore *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDAZeroMasked(EllwarpStore *, const char *, const char *, PetscScalar);
PETSC_INTERN PetscErrorCode EllwarpCUDAAXPY(EllwarpStore *, PetscScalar, const EllwarpStore *);
PETSC_INTERN PetscErrorCode EllwarpCUDACopy(EllwarpStore *, const EllwarpStore *);
PETSC_INTERN PetscErrorCode EllwarpCUDANorm(const EllwarpStore *, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode EllwarpCUDASetRows(PetscInt, const PetscInt *, PetscScalar, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode EllwarpCUDAZero(EllwarpStore *);
PETSC_INTERN PetscErrorCode EllwarpCUDADiagMissing(const EllwarpStore *, PetscInt, const PetscInt *, PetscBool *);
