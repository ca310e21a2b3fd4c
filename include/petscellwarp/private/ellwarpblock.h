/* The blocked ELL-WARP layout (block size bs = 2..6), shared by the host reference (blocklayout.c) and the CUDA
   kernels (seq/ellwarpblockcuda.cu).  A product layout of MATSEQELLWARP, derived from the scalar layout's values
   as the transpose layout is (seq/seqellwarpblock.c): used for MatMult(Add) and MatMultTranspose(Add) when the
   whole matrix is bs-blocked (every bs x bs block of the stored pattern dense or empty) and the choice says so.

   Lanes per block row T = lanes (1, 2, 4, 8, 16 or 32; R = 32 / T block rows per slice): the T lanes of a block row
   cooperate, lane t walking blocks t, t + T, t + 2T, ... of it with bs accumulators, reduced by warp shuffles at the
   end (T = 1: one thread per block row, the former layout exactly).  Slices of R block rows (sorted by block-row
   length, longest first, within windows of sortwindow block rows; the sorted order does not depend on T, since R
   divides 32 and the window is a multiple of 32).  Sorted position p = R s + q (block row rowperm[p], rowlen[p]
   blocks).  A slice's 32 lane slots g = q T + t; step k of lane slot g holds block j = k T + t of block row p (valid
   for j < rowlen[p]); the slice's width is its longest row's ceil(rowlen / T) steps; block slot (s, k, g) is
   sliceptr[s] + k * 32 + g.  Slots past a row's length are padding, never read.  One column index per block, in
   block-column units, at colbase[s] + k * 32 + g, stored per slice: a 16-bit offset from the slot's own block row
   (meta bit 4, col16) where every block column of the slice fits in +-32767 of its block row; else a 16-bit offset
   from the block row plus a bias per step k and lane t of the slice (meta bits 4 and 5, colbias[biasbase[s] + k T + t],
   the midpoint EllwarpBiasOf() of the span of (block column - block row) over the slice's R block rows' blocks k T + t)
   where every such span is at most ELLWARP_BIAS_SPAN (lattice-like numberings); else 32 bits (col32).  The bs * bs values of
   block slot (s, k, g) lie at val[sliceptr[s] * bs2 + (k * bs2 + r * bs + c) * 32 + g] (row r, column c of the
   block): for each (k, r, c) the 32 lane slots' values are 256 contiguous bytes, so every value load of a warp
   coalesces, the T lanes of a block row reading T neighbouring blocks.  The values of block j of sorted block row p
   come from CSR entries rowstart[p] + r * bs * rowlen[p] + j * bs + c (every scalar row of a block row has
   bs * rowlen[p] entries), through map[] when the CSR is a permutation of the value array (the transpose). */
#pragma once

#include <petscellwarp/private/ellwarplayout.h>

#define ELLWARP_BLOCK_MAXBS 6

#define ELLWARP_BLOCK_MAXLANES 32

typedef struct {
  PetscInt       bs, mb, nb;    /* block size, block rows, block columns */
  PetscInt       lanes, rows;   /* T lanes per block row, 32 / T block rows per slice */
  PetscInt       nslices, sortwindow;
  PetscCount     nnz, nnzb;     /* scalar entries, stored blocks */
  PetscCount     nslots;        /* block slots, padding included */
  PetscCount     ncol16, ncol32; /* block-column indices stored in each mode */
  PetscCount     nread16, nread32; /* of those, the ones a product reads (not padding) */
  PetscInt       n16, nbias, maxrowlen; /* slices with 16-bit block columns, of them those with a bias per step; longest block row (blocks) */
  PetscCount    *sliceptr;      /* [nslices+1] block slots */
  PetscCount    *colbase;       /* [nslices] where slice s's indices start in col16 or col32 */
  unsigned char *meta;          /* [nslices] bit 4: 16-bit block columns */
  PetscInt      *rowperm;       /* [rows nslices] sorted position -> block row, -1 past mb */
  int           *rowlen;        /* [rows nslices] blocks of the block row at each sorted position (0 past mb) */
  PetscCount    *rowstart;      /* [rows nslices] CSR entry of the (0, 0) value of the block row's first block */
  int           *col32;
  short         *col16;
  PetscInt      *map;           /* [nnz] CSR entry -> value index, or NULL (identity) */
  PetscCount    *biasbase;      /* [nslices] where slice s's biases start in colbias (only biased slices have any) */
  int           *colbias;       /* [ncolbias] a biased slice's w T biases, one per step and lane of a block row */
  PetscCount     ncolbias;
} EllwarpBlockLayout;

/* thread mappings of the blocked product (-mat_ellwarp_tune block_map); see ellwarpblockcuda.cu for the reasoning */
typedef enum {
  ELLWARP_BLOCK_MAP_AUTO,
  ELLWARP_BLOCK_MAP_ROW,  /* one thread per block row: index once, bs * bs values, bs x values, bs y values per thread */
  ELLWARP_BLOCK_MAP_LANE  /* bs threads per block row, one per scalar row: the index broadcast to them, bs values each */
} EllwarpBlockMap;
PETSC_INTERN const char *const EllwarpBlockMaps[];

PETSC_EXTERN PetscErrorCode EllwarpBlockDetect(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscBool *);
PETSC_EXTERN PetscErrorCode EllwarpBlockLayoutCreate(PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscInt, PetscBool, PetscBool, EllwarpBlockLayout **);
/* the same on nthreads host threads (0: the CPUs of the process); the result does not depend on nthreads */
PETSC_EXTERN PetscErrorCode EllwarpBlockDetectThreads(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt, PetscBool *);
PETSC_EXTERN PetscErrorCode EllwarpBlockLayoutCreateThreads(PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscInt, PetscBool, PetscBool, PetscInt, EllwarpBlockLayout **);
/* the same with T lanes per block row (1, 2, 4, 8, 16 or 32); the two above build T = 1 */
PETSC_EXTERN PetscErrorCode EllwarpBlockLayoutCreateLanes(PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscInt, PetscBool, PetscBool, PetscInt, PetscInt, EllwarpBlockLayout **);
PETSC_EXTERN PetscErrorCode EllwarpBlockLayoutDestroy(EllwarpBlockLayout **);
PETSC_EXTERN PetscLogDouble EllwarpBlockBytesMult(const EllwarpBlockLayout *);

/* The lanes model (blocklayout.c, EllwarpBlockModelTime): the modelled time (us) of one product with T lanes per
   block row, from the sorted block-row lengths of a layout (any T: the order is the same) and its bytes; and the T
   with the least time (ties to fewer lanes).  times[i]: the time of T = 1 << i, i < 6. */
typedef struct {
  PetscReal bytes_us;   /* the bytes at the modelled bandwidth */
  PetscReal widest_us;  /* the widest slice's steps, latency bound */
  PetscReal rounds_us;  /* all slices' steps over the resident warps, latency bound */
  PetscReal time_us;    /* a fixed launch cost plus the largest of the three */
  PetscInt  maxwidth;   /* steps of the widest slice */
  PetscInt  nslices;
} EllwarpBlockModel;
PETSC_EXTERN PetscErrorCode EllwarpBlockModelTime(const EllwarpBlockLayout *, PetscInt, EllwarpBlockModel *);
PETSC_EXTERN PetscErrorCode EllwarpBlockChooseLanes(const EllwarpBlockLayout *, PetscInt *, EllwarpBlockModel[]);
PETSC_EXTERN PetscReal      EllwarpBlockModelScalarTime(PetscLogDouble);

/* host reference kernels: the same layout, the same order of summation per scalar row as the device kernels (per
   lane t its blocks t, t + T, ... in order, the block's columns in order; then the lanes' partial sums combined as
   the warp's xor-shuffle butterfly does, offsets T/2, T/4, ..., 1; z added last) */
PETSC_EXTERN void EllwarpBlockHostGather(const EllwarpBlockLayout *, const PetscScalar *, PetscScalar *);
/* the refresh without the CSR staging copy: smap[o] = the scalar layout's slot holding blocked value o (-1: padding),
   from the scalar layout's slot -> CSR map s2c (nsslots slots; CSR entries < 2^31 slots); then val[o] = sval[smap[o]].
   EllwarpBlockHostSlotMap is the loop of EllwarpBlockHostGather with the scalar slot in place of the CSR value */
PETSC_EXTERN PetscErrorCode EllwarpBlockHostSlotMap(const EllwarpBlockLayout *, PetscCount, const PetscInt[], int[]);
PETSC_EXTERN void EllwarpBlockHostMult(const EllwarpBlockLayout *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *);

typedef struct _EllwarpBlockStore EllwarpBlockStore;

/* the blocked layout's store, implemented twice: plain C (blocklayout.c) and CUDA (seq/ellwarpblockcuda.cu) */
typedef struct {
  PetscErrorCode (*create)(const EllwarpBlockLayout *, EllwarpBlockStore **);
  PetscErrorCode (*destroy)(EllwarpBlockStore **);
  PetscErrorCode (*gather)(EllwarpBlockStore *, const PetscScalar *); /* val <- CSR values (the backend's staging copy) */
  /* val <- the scalar layout's values sval (nsslots slots, slot -> CSR map s2c; the backend's memory), by the slot map
     (EllwarpBlockHostSlotMap) built at the first call and kept with the store: one pass, no staging copy */
  PetscErrorCode (*gatherslots)(EllwarpBlockStore *, PetscCount, const PetscInt *, const PetscScalar *);
  /* y = A x (+ z); batch: the device kernels' steps loaded together (-mat_ellwarp_tune block_batch), the same sums */
  PetscErrorCode (*mult)(const EllwarpBlockStore *, EllwarpBlockMap, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *);
} EllwarpBlockOps;

PETSC_INTERN const EllwarpBlockOps EllwarpBlockHostOps;
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN const EllwarpBlockOps EllwarpBlockCUDAOps;
#endif
