/* The blocked ELL-WARP layout (block size bs = 2..6), shared by the host reference (blocklayout.c) and the CUDA
   kernels (seq/ellwarpblockcuda.cu).  A product layout of MATSEQELLWARP, derived from the scalar layout's values
   as the transpose layout is (seq/seqellwarpblock.c): used for MatMult(Add) and MatMultTranspose(Add) when the
   whole matrix is bs-blocked (every bs x bs block of the stored pattern dense or empty) and the choice says so.

   Slices of ELLWARP_LANES block rows (sorted by block-row length, longest first, within windows of sortwindow
   block rows).  Block slot k of lane q of slice s: slot sliceptr[s] + k * 32 + q, for k < rowlen[32 s + q]; the
   slots past a row's length are padding, never read.  One column index per block, in block-column units, stored
   as in the scalar layout per slice: a 16-bit offset from the lane's own block row (meta bit 4, col16) where
   every block column of the slice fits in +-32767 of its block row; else a 16-bit offset from the block row plus a
   bias per step k of the slice (meta bits 4 and 5, colbias[biasbase[s] + k], the midpoint EllwarpBiasOf() of the span
   of (block column - block row) over the slice's lanes at step k) where every step's span is at most
   ELLWARP_BIAS_SPAN (lattice-like numberings: neighbouring block rows at nearly the same far distance); else 32 bits
   (col32).  The bs * bs values of
   block slot (s, k, q) lie at val[sliceptr[s] * bs2 + (k * bs2 + r * bs + c) * 32 + q] (row r, column c of the
   block): for each (k, r, c) the 32 lanes' values are 256 contiguous bytes, so every value load of a warp
   coalesces whichever thread mapping reads them (ellwarpblockcuda.cu).  The values of block slot (s, k, q) come
   from CSR entries rowstart[p] + r * bs * rowlen[p] + k * bs + c (p = 32 s + q; every scalar row of a block row
   has bs * rowlen[p] entries), through map[] when the CSR is a permutation of the value array (the transpose). */
#pragma once

#include <petscellwarp/private/ellwarplayout.h>

#define ELLWARP_BLOCK_MAXBS 6

typedef struct {
  PetscInt       bs, mb, nb;    /* block size, block rows, block columns */
  PetscInt       nslices, sortwindow;
  PetscCount     nnz, nnzb;     /* scalar entries, stored blocks */
  PetscCount     nslots;        /* block slots, padding included */
  PetscCount     ncol16, ncol32; /* block-column indices stored in each mode */
  PetscCount     nread16, nread32; /* of those, the ones a product reads (not padding) */
  PetscInt       n16, nbias, maxrowlen; /* slices with 16-bit block columns, of them those with a bias per step; longest block row (blocks) */
  PetscCount    *sliceptr;      /* [nslices+1] block slots */
  PetscCount    *colbase;       /* [nslices] where slice s's indices start in col16 or col32 */
  unsigned char *meta;          /* [nslices] bit 4: 16-bit block columns */
  PetscInt      *rowperm;       /* [32 nslices] sorted position -> block row, -1 past mb */
  int           *rowlen;        /* [32 nslices] blocks of the block row at each sorted position (0 past mb) */
  PetscCount    *rowstart;      /* [32 nslices] CSR entry of the (0, 0) value of the block row's first block */
  int           *col32;
  short         *col16;
  PetscInt      *map;           /* [nnz] CSR entry -> value index, or NULL (identity) */
  PetscCount    *biasbase;      /* [nslices] where slice s's biases start in colbias (only biased slices have any) */
  int           *colbias;       /* [ncolbias] a biased slice's w biases, one per step */
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
PETSC_EXTERN PetscErrorCode EllwarpBlockLayoutDestroy(EllwarpBlockLayout **);
PETSC_EXTERN PetscLogDouble EllwarpBlockBytesMult(const EllwarpBlockLayout *);

/* host reference kernels: the same layout, the same order of summation per scalar row (blocks in slot order, the
   block's columns in order; z added last) */
PETSC_EXTERN void EllwarpBlockHostGather(const EllwarpBlockLayout *, const PetscScalar *, PetscScalar *);
PETSC_EXTERN void EllwarpBlockHostMult(const EllwarpBlockLayout *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *);

typedef struct _EllwarpBlockStore EllwarpBlockStore;

/* the blocked layout's store, implemented twice: plain C (blocklayout.c) and CUDA (seq/ellwarpblockcuda.cu) */
typedef struct {
  PetscErrorCode (*create)(const EllwarpBlockLayout *, EllwarpBlockStore **);
  PetscErrorCode (*destroy)(EllwarpBlockStore **);
  PetscErrorCode (*gather)(EllwarpBlockStore *, const PetscScalar *); /* val <- CSR values (the backend's staging copy) */
  PetscErrorCode (*mult)(const EllwarpBlockStore *, EllwarpBlockMap, const PetscScalar *, const PetscScalar *, PetscScalar *); /* y = A x (+ z) */
} EllwarpBlockOps;

PETSC_INTERN const EllwarpBlockOps EllwarpBlockHostOps;
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN const EllwarpBlockOps EllwarpBlockCUDAOps;
#endif
