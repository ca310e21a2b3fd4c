/* Public interface of petsc-ellwarp: the MATELLWARP matrix type and the package registration. */
#pragma once

#include <petscmat.h>
#include <petscksp.h>

/* MANSEC = Mat */

/*MC
   MATELLWARP - "ellwarp" - GPU sparse matrix in the ELL-WARP layout (Wong, Kuhl, Darve 2015).

   Rows are sorted by length (longest first), grouped into warp-sized slices, each slice padded to its own
   width and stored column-major (kernel K1); long rows are split over 2..32 lanes of the warp with a
   shuffle reduction (K2).  Resolves to `MATSEQELLWARP` on one process.

   Options Database Keys:
+  -mat_ellwarp_backend <cuda,host>            - where the layout lives and the kernels run (default: cuda when a device is usable)
.  -mat_ellwarp_kernel <auto,k1,k2>            - kernel family; auto picks it a priori from row-length statistics
.  -mat_ellwarp_block <auto,on,off>            - products on the blocked layout (one index per bs x bs block, bs = 2..6) when the
                                                 whole pattern is blocked: auto where it moves fewer bytes, on wherever it can, off never
.  -mat_ellwarp_product_result <aijcusparse,ellwarp> - cuda backend: the type of sparse products (`MatMatMult()`, `MatPtAP()`, ...)
-  -mat_ellwarp_tune key=value[,key=value...]  - developer knobs that never change a default (testing, tuning): `threshold`,
                                                 `sort_window`, `long_row`, `compress_columns`, `compress_bias`, `analysis`,
                                                 `analysis_drop_host`, `block_size`, `mult_lanes`, `mult_acc`, `mult_unroll`,
                                                 `mult_nc`, `long_unroll`, `coo_unroll`, `coo_block_size`, `gather`, `block_map`,
                                                 `block_sort_window`; an unknown key is
                                                 an error that lists them, `-help` describes them

   Level: beginner
M*/
/* The concrete types are AIJ subtypes, named as PETSc names its own (seqaijcusparse, seqaijsell, seqaijkokkos):
   the data is a MATSEQAIJ / MATMPIAIJ with the ELL-WARP layout in spptr, so every PETSc algorithm written for
   AIJ (GAMG's graph and prolongator, products, factorizations, submatrices) accepts the matrix through
   PetscObjectBaseTypeCompare() and reads its values through MatSeqAIJGetArrayRead() and friends, which bring the
   host copy up to date first.  Users still say -mat_type ellwarp (the root name). */
#define MATELLWARP    "ellwarp"
#define MATAIJELLWARP "aijellwarp" /* the same root type under PETSc's AIJ-family name (as aijcusparse) */
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

/* KSPCGASYNC: CG whose scalars stay with the vectors (src/ksp/impls/cgasync/); -ksp_type cgasync */
#define KSPCGASYNC "cgasync"
PETSC_EXTERN PetscErrorCode KSPCGAsyncSetCheckEvery(KSP, PetscInt);

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
  PetscInt         ndict;       /* of those, the slices whose 16-bit codes index a per-slice dictionary of column windows */
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
  PetscInt         block;       /* block size of the layout the products use: 1 the scalar layout, 2..6 the blocked one (-mat_ellwarp_block) */
  PetscLogDouble   bytes_mult_block; /* bytes one MatMult moves with the blocked layout (0: the pattern is not blocked or the choice is off) */
  PetscInt         block_lanes; /* lanes per block row of the blocked layout the products use (1..32; 0: the scalar layout) */
  PetscBool        value_store; /* the scalar layout was built as the values' store only (K1, least padding): the products use the blocked layout whatever the scalar layout (-mat_ellwarp_tune store_layout) */
} MatEllwarpInfo;
PETSC_EXTERN PetscErrorCode MatEllwarpGetInfo(Mat, MatEllwarpInfo *);

/* Log events (valid after PetscEllwarpInitializePackage()). */
PETSC_EXTERN PetscLogEvent MAT_ELLWARP_Analysis, MAT_ELLWARP_Upload, MAT_ELLWARP_Refresh, MAT_ELLWARP_Download, MAT_ELLWARP_Mult, MAT_ELLWARP_MultT;

/* ---- Assembly into a matrix's own storage (src/mat/interface/matassemblytarget.c) ------------------------
   A writer that produces every value of a fixed pattern (the DM assembler, src/dm/assembly) asks the matrix
   where each entry lives instead of knowing its type: MatGetAssemblyTarget() gives, per local block, the CSR
   pattern, the map from CSR entries to value slots and the value array itself (host or device), with a state
   that changes whenever that map can change.  Implemented by MATSEQELLWARP (composed "MatGetAssemblyTarget_C"),
   MATSEQAIJ and MATSEQAIJCUSPARSE, and every MATMPIAIJ-family matrix whose two blocks implement it (MATMPIAIJ,
   MATMPIAIJCUSPARSE, MATMPIELLWARP).  For any other matrix, use MatSetPreallocationCOO()/MatSetValuesCOO(). */

/*S
   MatAssemblyBlock - One local block of a `MatAssemblyTarget`: its CSR pattern, where each CSR entry's value
   lives, and the values

   Level: developer

   Notes:
   `i`, `j` are host arrays, the columns of each row increasing; the columns are block-local (the diagonal block:
   global column - `cstart`; the off-diagonal block: an index into `garray`).  The value of CSR entry `k` is
   `val[csr2val ? csr2val[k] : k]`; value slots that no CSR entry maps to (padding) hold 0 and must stay 0.
   When `sliceheight` > 0 the slots `[sliceptr[s], sliceptr[s+1])` hold the rows of slice `s` column-major over
   `sliceheight` lanes (what a writer needs to keep its stores coalesced); the slots from `sliceptr[nslices]` on
   are unstructured.

.seealso: [](ch_matrices), `Mat`, `MatAssemblyTarget`, `MatGetAssemblyTarget()`
S*/
typedef struct {
  PetscInt          m, n;        /* rows and (block-local) columns */
  const PetscInt   *i, *j;       /* CSR pattern, host */
  const PetscInt   *csr2val;     /* [i[m]] value slot of each CSR entry (host), or NULL: CSR order */
  PetscCount        nval;        /* length of val (padding included) */
  PetscScalar      *val;         /* the values, write access, in memory mtype */
  PetscMemType      mtype;
  PetscInt          sliceheight; /* 0: no slice structure */
  PetscInt          nslices;
  const PetscCount *sliceptr;    /* [nslices+1], host */
} MatAssemblyBlock;

/*S
   MatAssemblyTarget - What `MatGetAssemblyTarget()` gives a writer of all of a matrix's values: its local blocks
   (one for a sequential matrix; the diagonal and the off-diagonal block of an MPI one) and a state

   Level: developer

   Notes:
   `state` changes whenever the pattern, the map from CSR entries to value slots or the length of a value array
   can change: a new nonzero state, a new layout of the same pattern (`MatEllwarpSetKernel()`, a changed backend,
   a re-analysis), a conversion in place.  States are drawn from one counter for all matrices, so a writer may
   keep what it derived from a target (a plan) keyed on the matrix's `PetscObjectId` and `state`, and must
   rebuild it when either differs.  A `MatDuplicate()` is a different matrix (another id).

   The fields after `state` are private to the implementation.

.seealso: [](ch_matrices), `Mat`, `MatAssemblyBlock`, `MatGetAssemblyTarget()`, `MatRestoreAssemblyTarget()`, `MatHasAssemblyTarget()`
S*/
typedef struct _n_MatAssemblyTarget MatAssemblyTarget;
struct _n_MatAssemblyTarget {
  PetscInt         nblocks;      /* 1, or 2 for an MPI matrix */
  MatAssemblyBlock block[2];     /* block[0]: the (diagonal) block of the owned rows, block[1]: the off-diagonal block */
  PetscInt         rstart;       /* first owned row (global) */
  PetscInt         cstart, cend; /* global columns of the diagonal block */
  const PetscInt  *garray;       /* off-diagonal block column -> global column (nblocks == 2) */
  PetscObjectState state;
  /* private */
  PetscErrorCode (*restore)(Mat, MatAssemblyTarget *);
  PetscObjectState  key[3];      /* what identifies the map to the implementation (turned into state) */
  PetscErrorCode (*impl)(Mat, PetscMemType, MatAssemblyTarget *);
  Mat               sub[2];      /* MPI: the blocks */
  MatAssemblyTarget *subt;       /* MPI: the blocks' own targets */
  PetscMemType      req;
};

PETSC_EXTERN PetscErrorCode MatHasAssemblyTarget(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatGetAssemblyTarget(Mat, PetscMemType, MatAssemblyTarget *);
PETSC_EXTERN PetscErrorCode MatRestoreAssemblyTarget(Mat, MatAssemblyTarget *);
