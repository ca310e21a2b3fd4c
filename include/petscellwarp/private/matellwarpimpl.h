/* Private data of MATSEQELLWARP.  The host side is a complete MATSEQAIJ (preallocation, MatSetValues,
   factorizations, DM preallocation all work unchanged); the ELL-WARP layout is derived from it at
   assembly and kept in one of two stores: device arrays (CUDA backend) or host arrays (reference backend).
   A->offloadmask says which copy of the values is current: PETSC_OFFLOAD_CPU = the CSR values,
   PETSC_OFFLOAD_GPU = the layout values (for either backend), PETSC_OFFLOAD_BOTH = both. */
#pragma once

#include <petsc/private/matimpl.h>
#include <../src/mat/impls/aij/seq/aij.h>
#include <petscellwarp/private/ellwarplayout.h>
#include <petscellwarp/private/ellwarpblock.h>

typedef struct _EllwarpStore EllwarpStore;

/* Kernels over one layout, implemented twice: plain C (ellwarphost.c) and CUDA (seq/ellwarp*cuda.cu, table in ellwarpstorecuda.cu).  Value
   and vector pointers are in the backend's memory space. */
typedef struct {
  PetscErrorCode (*create)(const EllwarpLayout *, EllwarpStore **);
  PetscErrorCode (*destroy)(EllwarpStore **);
  PetscErrorCode (*gather)(EllwarpStore *, const PetscScalar *);                                            /* val <- csr */
  PetscErrorCode (*scatter)(const EllwarpStore *, PetscScalar *);                                           /* csr <- val */
  PetscErrorCode (*mult)(const EllwarpStore *, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *); /* y = A x (+ z) */
  PetscErrorCode (*scale)(EllwarpStore *, PetscScalar);
  PetscErrorCode (*shift)(EllwarpStore *, PetscScalar);
  PetscErrorCode (*getdiag)(const EllwarpStore *, PetscScalar *);
  PetscErrorCode (*diagscale)(EllwarpStore *, const PetscScalar *, const PetscScalar *);
  PetscErrorCode (*zeromasked)(EllwarpStore *, const char *, const char *, PetscScalar); /* host masks */
  PetscErrorCode (*axpy)(EllwarpStore *, PetscScalar, const EllwarpStore *);
  PetscErrorCode (*copy)(EllwarpStore *, const EllwarpStore *);
  PetscErrorCode (*norm)(const EllwarpStore *, NormType, PetscReal *); /* FROBENIUS and INFINITY */
  PetscErrorCode (*setrows)(PetscInt, const PetscInt *, PetscScalar, const PetscScalar *, PetscScalar *); /* y[rows] = a x[rows], host rows */
  PetscErrorCode (*csralloc)(PetscCount, PetscScalar **);
  PetscErrorCode (*csrfree)(PetscScalar **);
  PetscErrorCode (*csrupload)(PetscCount, const PetscScalar *, PetscScalar *); /* host csr -> staging */
  PetscErrorCode (*csrdownload)(PetscCount, const PetscScalar *, PetscScalar *); /* staging -> host csr */
  /* COO assembly: for each CSR nonzero its COO entries (SeqAIJ's jmap/perm, host arrays); the store turns
     them into a plan with its own slot -> CSR map (host: slot order, EllwarpCOOSlotPlan; CUDA, on the device:
     slot order when unique, else CSR order plus CSR -> slot); values then go straight into the layout, in a fixed order */
  PetscErrorCode (*coosetup)(EllwarpStore *, PetscCount, PetscCount, const PetscCount *, const PetscCount *); /* COO length, perm length, jmap, perm */
  PetscErrorCode (*coovalues)(EllwarpStore *, const PetscScalar *, PetscMemType, InsertMode);
  PetscErrorCode (*zero)(EllwarpStore *); /* all values (padding included) zero */
  PetscErrorCode (*diagmissing)(const EllwarpStore *, PetscInt, const PetscInt *, PetscBool *); /* a listed row (host list) has no stored diagonal */
  void (*settune)(EllwarpStore *, const EllwarpTune *); /* the kernel variants the store's kernels use (the matrix's own struct, read at each use) */
} EllwarpKernelOps;

PETSC_INTERN const EllwarpKernelOps EllwarpHostKernels;
PETSC_INTERN PetscErrorCode         EllwarpCOOSlotPlan(PetscCount, const PetscInt *, const PetscCount *, const PetscCount *, PetscBool, PetscCount *, PetscCount *);
/* test hook -mat_ellwarp_tune analysis_drop_host: the host store owns a full layout, the matrix sees only its scalars */
PETSC_INTERN PetscErrorCode       EllwarpHostStoreAdopt(EllwarpStore *, EllwarpLayout *);
PETSC_INTERN const EllwarpLayout *EllwarpHostStoreLayout(const EllwarpStore *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN const EllwarpKernelOps EllwarpCUDAKernels;
PETSC_INTERN PetscErrorCode         EllwarpCUDADeviceAvailable(PetscBool *);
#endif

typedef struct {
  MatEllwarpBackend       backend;
  const EllwarpKernelOps *k;
  EllwarpParams           par;
  PetscInt                blocksize;
  EllwarpLayout          *L, *Lt;       /* the matrix and (built at the first MatMultTranspose) its transpose */
  EllwarpStore           *S, *St;
  PetscScalar            *csr;          /* staging copy of the CSR values in the backend's memory (CUDA only) */
  PetscObjectState        nzstate;      /* nonzero state L was analysed for; -1: none yet */
  PetscObjectState        layoutstate;  /* names L's slot map (MatGetAssemblyTarget): a new one at every analysis */
  PetscBool               ltcurrent;    /* St's values agree with S's */
  PetscBool               backendset;   /* chosen by the user rather than by device detection */
  PetscBool               analysed_once;
  PetscBool               drophost;     /* test hook -mat_ellwarp_tune analysis_drop_host: after a host analysis the matrix
                                           keeps only the layout's scalars, the state a device analysis leaves */
  PetscBool               zerovalues;   /* the host values are all zero (fresh COO preallocation): a refresh zeroes the layout */
  /* MatAXPY/MatCopy: the last matrix whose CSR pattern was found equal to ours, at these nonzero states */
  PetscObjectId           samepeer;
  PetscObjectState        samepeerstate, sameownstate;
  PetscInt                nanalyses, nrefreshes;
  /* COO assembly (MatSetPreallocationCOO/MatSetValuesCOO): the plan belongs to the store it was built
     for and to the nonzero state of the COO pattern */
  PetscErrorCode (*aijcooprealloc)(Mat, PetscCount, PetscInt[], PetscInt[]);
  PetscErrorCode (*aijcoovalues)(Mat, const PetscScalar[], InsertMode);
  EllwarpStore    *coostore;
  PetscObjectState coostate;
  struct _MatOps          aijops;       /* MATSEQAIJ's operations, for what we inherit */
  EllwarpTune             tune;         /* kernel variants (-mat_ellwarp_tune mult_*, long_*, coo_*, gather), shared with the stores */
  /* the blocked product layout (ellwarpblock.h, seqellwarpblock.c), derived from the scalar layout's values as the
     transpose layout is.  valversion counts the changes of the layout values (every place that sets ltcurrent
     false increments it); a blocked store is current when its version equals it. */
  PetscInt64              valversion;
  PetscInt                blockmode;    /* -mat_ellwarp_block: 0 auto, 1 on, 2 off */
  EllwarpBlockMap         blockmap;     /* -mat_ellwarp_tune block_map */
  PetscInt                blockwindow;  /* -mat_ellwarp_tune block_sort_window (0: ELLWARP_BLOCK_WINDOW) */
  PetscInt                blocklanes;   /* -mat_ellwarp_block_lanes: lanes per block row, 1..32 (0: the lanes model's) */
  const EllwarpBlockOps  *kb;
  EllwarpBlockLayout     *Lb, *Lbt;     /* NULL: the products use the scalar layouts */
  EllwarpBlockStore      *Sb, *Sbt;
  PetscInt64              Sbversion, Sbtversion;
  PetscInt                bdecided;     /* e->nanalyses the choice was made for (-1: not made) */
  PetscInt                bpre;         /* the analysis whose blocked layout MatSeqELLWARPBlockPrechoose
                                           built before the scalar analysis, not decided yet (-1: none) */
  PetscBool               storelayout;  /* -mat_ellwarp_tune store_layout (default 1): where the products use the blocked
                                           layout, the scalar layout is built as a value store (seqellwarpops.c) */
  PetscBool               storerole;    /* the scalar layout L was built as that value store */
  PetscInt                bsize;        /* block size found (set or detected; 1: none) */
  PetscLogDouble          bbytes, sbytes; /* bytes per MatMult of the blocked layout (0: not built) and the scalar one */
  EllwarpBlockModel       bmodel;       /* the lanes model of the blocked layout built (blocklayout.c) */
  PetscReal               smodel_us;    /* the scalar layout's time in that model */
  PetscBool               sbound;       /* sbytes (and smodel_us) are the least of any scalar layout (the choice made before the scalar analysis) */
  char                    bwhy[512];    /* why the products use the layout they use (MatView) */
  char                    bsizes[128];  /* the blocked layout's block size and lanes, for bwhy */
} Mat_SeqELLWARP;

/* threads per CUDA block for a product with layout L: -mat_ellwarp_tune block_size, else the chooser's (layout.c) */
static inline PetscInt MatSeqELLWARPBlockSize(const Mat_SeqELLWARP *e, const EllwarpLayout *L)
{
  return e->blocksize ? e->blocksize : (L && L->blocksize ? L->blocksize : 128);
}

PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqELLWARP(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatSeqELLWARPSyncLayout(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPSyncHost(Mat);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_SeqELLWARP(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPLayoutOnHost(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPRememberSamePattern(Mat, Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPRegisterFactors(void);
PETSC_INTERN PetscErrorCode MatSeqELLWARPRemoveComposed_Private(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPSetLayoutOps(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPSetHostOps(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPSetCOOOps(Mat);
/* the blocked product layout (seqellwarpblock.c) */
PETSC_INTERN const char *const MatEllwarpBlockModes[]; /* -mat_ellwarp_block: auto, on, off */
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockFree(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockChoose(Mat);
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockPrechoose(Mat, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockSync(Mat, PetscBool, PetscBool *);
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockMult(Mat, PetscBool, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatSeqELLWARPBlockView(Mat, PetscViewer);

/* the layout's value arrays (MatGetAssemblyTarget_SeqELLWARP, seqellwarptarget.c) and slot -> CSR maps (the blocked
   layout's refresh, seqellwarpblock.c), in the backend's memory */
PETSC_INTERN PetscScalar    *EllwarpHostStoreValues(EllwarpStore *);
PETSC_INTERN const PetscInt *EllwarpHostStoreSlot2CSR(const EllwarpStore *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscScalar    *EllwarpCUDAStoreValues(EllwarpStore *);
PETSC_INTERN const PetscInt *EllwarpCUDAStoreSlot2CSR(const EllwarpStore *);
#endif
PETSC_INTERN PetscErrorCode MatSeqELLWARPStoreArrays(Mat, PetscScalar **, const PetscInt **); /* the two above for the matrix's backend */
PETSC_INTERN PetscErrorCode MatGetAssemblyTarget_SeqELLWARP(Mat, PetscMemType, MatAssemblyTarget *);
