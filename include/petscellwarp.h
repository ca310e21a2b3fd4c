/* Public interface of petsc-ellwarp: the MATELLWARP matrix type and the package registration. */
#pragma once

#include <petscmat.h>

/* MANSEC = Mat */

/*MC
   MATELLWARP - "ellwarp" - GPU sparse matrix in the ELL-WARP layout (Wong, Kuhl, Darve 2015).

   Rows are sorted by length (longest first), grouped into warp-sized slices, each slice padded to its own
   width and stored column-major (kernel K1); long rows are split over 2..32 lanes of the warp with a
   shuffle reduction (K2).  Resolves to `MATSEQELLWARP` on one process.

   Options Database Keys:
+  -mat_ellwarp_kernel <auto,k1,k2>     - kernel family; auto picks it a priori from row-length statistics
.  -mat_ellwarp_threshold <n>           - K2: most entries a lane handles before a row is split (0: automatic)
.  -mat_ellwarp_block_size <n>          - threads per CUDA block (multiple of 32)
.  -mat_ellwarp_sort_window <n>         - sort rows by length within windows of n rows (-1: automatic, the default; 0: whole matrix)
.  -mat_ellwarp_long_row <n>            - rows longer than n go to the chunked path (0: automatic, -1: never)
.  -mat_ellwarp_compress_columns <bool>  - 16-bit column offsets in slices where they fit (default true)
.  -mat_ellwarp_compress_bias <bool>     - with compressed columns: 16-bit offsets from the row plus a bias per entry position where row-relative ones do not fit (default true)
-  -mat_ellwarp_backend <cuda,host>     - where the layout lives and the kernels run

   Level: beginner
M*/
/* The concrete types are AIJ subtypes, named as PETSc names its own (seqaijcusparse, seqaijsell, seqaijkokkos):
   the data is a MATSEQAIJ / MATMPIAIJ with the ELL-WARP layout in spptr, so every PETSc algorithm written for
   AIJ (GAMG's graph and prolongator, products, factorizations, submatrices) accepts the matrix through
   PetscObjectBaseTypeCompare() and reads its values through MatSeqAIJGetArrayRead() and friends, which bring the
   host copy up to date first.  Users still say -mat_type ellwarp (the root name). */
#define MATELLWARP    "ellwarp"
#define MATSEQELLWARP "seqaijellwarp"
#define MATMPIELLWARP "mpiaijellwarp" /* several ranks: diagonal and off-diagonal blocks as MATSEQELLWARP (src/mat/impls/ellwarp/mpi/) */

typedef enum {
  MAT_ELLWARP_KERNEL_AUTO,
  MAT_ELLWARP_KERNEL_K1,
  MAT_ELLWARP_KERNEL_K2
} MatEllwarpKernel;
PETSC_EXTERN const char *const MatEllwarpKernels[];

typedef enum {
  MAT_ELLWARP_BACKEND_CUDA,
  MAT_ELLWARP_BACKEND_HOST
} MatEllwarpBackend;
PETSC_EXTERN const char *const MatEllwarpBackends[];

PETSC_EXTERN PetscErrorCode PetscEllwarpInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscEllwarpFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscellwarp(void);

PETSC_EXTERN PetscErrorCode MatCreateSeqELLWARP(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatEllwarpSetBackend(Mat, MatEllwarpBackend);
PETSC_EXTERN PetscErrorCode MatEllwarpGetBackend(Mat, MatEllwarpBackend *);
PETSC_EXTERN PetscErrorCode MatEllwarpSetKernel(Mat, MatEllwarpKernel, PetscInt);

/* Layout statistics, for MatView, benchmarks and tests. */
typedef struct {
  PetscInt         nrows, ncols;
  PetscCount       nnz;         /* stored CSR entries */
  PetscCount       nslots;      /* entries in the padded layout */
  PetscInt         nslices;     /* warp-sized slices */
  PetscInt         nsplit;      /* slices whose rows are split over several lanes (K2) */
  PetscInt         n16;         /* slices whose columns are stored as 16-bit offsets */
  PetscInt         nbias;       /* of those, the slices whose offsets are from the row plus a bias per entry position */
  PetscInt         nlong;       /* rows summed by the chunked long-row path */
  PetscInt         maxrowlen, minrowlen;
  PetscReal        meanrowlen, stdrowlen;
  MatEllwarpKernel kernel;      /* the kernel in use (never AUTO) */
  PetscInt         threshold;   /* K2 entries per lane */
  PetscInt         blocksize;   /* threads per block */
  PetscInt         sortwindow;  /* the window in use; 0: whole-matrix sort */
  PetscLogDouble   bytes_mult;  /* bytes one MatMult moves from memory, as the layout stores it */
  PetscInt         nanalyses;   /* pattern analyses so far (1 + pattern changes) */
  PetscInt         nrefreshes;  /* value refreshes so far */
  MatEllwarpBackend backend;
} MatEllwarpInfo;
PETSC_EXTERN PetscErrorCode MatEllwarpGetInfo(Mat, MatEllwarpInfo *);

/* Log events (valid after PetscEllwarpInitializePackage()). */
PETSC_EXTERN PetscLogEvent MAT_ELLWARP_Analysis, MAT_ELLWARP_Upload, MAT_ELLWARP_Refresh, MAT_ELLWARP_Download, MAT_ELLWARP_Mult, MAT_ELLWARP_MultT;
