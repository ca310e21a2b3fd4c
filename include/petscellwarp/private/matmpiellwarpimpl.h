/* Private data of MATMPIELLWARP: a MATMPIAIJ whose diagonal block A and compacted off-diagonal block B are
   MATSEQELLWARP matrices (on this rank's GPU with the CUDA backend, the host reference backend otherwise).
   Kept in Mat_MPIAIJ->spptr, as MATMPIAIJCUSPARSE does. */
#pragma once

#include <petscellwarp/private/matellwarpimpl.h>
#include <../src/mat/impls/aij/mpi/mpiaij.h>

/* COO assembly with off-rank entries.  Each rank's values live in one work array w (in the backend's memory):
   w[0, n) = the caller's v, w[n, n + nrecv) = entries other ranks send here (a PetscSF whose leaves are the
   positions of the outgoing entries inside w, so the SF packs them itself, on the device if w is there).
   Each block then sums its COO entries of w straight into its ELL-WARP slots through its own plan. */
typedef struct {
  PetscCount    n, nrecv;            /* local COO length, entries received from other ranks */
  PetscSF       sf;                  /* leaves: outgoing positions in w; roots: w + n on the owner */
  PetscScalar  *w;                   /* n + nrecv scalars in the backend's memory */
  PetscMemType  wmtype;
  PetscCount   *jmap[2], *perm[2];   /* per block (0: A, 1: B): COO entries of w summed into each CSR nonzero */
  PetscCount    nperm[2];
  EllwarpStore *store[2];            /* the block stores the plans were installed in (a new analysis replaces them) */
  PetscInt      nanalyses[2];        /* the blocks' analysis counts then */
} MatEllwarpMPICOO;

typedef struct {
  MatEllwarpBackend backend;
  PetscBool         backendset;
  struct _MatOps    mpiaijops; /* MATMPIAIJ's operations */
  PetscErrorCode (*aijprealloc)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
  PetscErrorCode (*aijcooprealloc)(Mat, PetscCount, PetscInt[], PetscInt[]);
  PetscErrorCode (*aijcoovalues)(Mat, const PetscScalar[], InsertMode);
  MatEllwarpMPICOO *coo;
  int               device, ndevices, localrank; /* CUDA device of this rank (-1: host backend) */
} Mat_MPIELLWARP;

PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIELLWARP(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatMPIELLWARPConfigureBlocks(Mat);
PETSC_INTERN PetscErrorCode MatMPIELLWARPSetCOOOps(Mat);
PETSC_INTERN PetscErrorCode MatMPIELLWARPCOODestroy(MatEllwarpMPICOO **);
#if defined(ELLWARP_HAVE_CUDA)
/* mpiellwarpcuda.cu: device copies on PETSc's stream and the device this rank uses */
PETSC_INTERN PetscErrorCode EllwarpMPICUDAMalloc(PetscCount, PetscScalar **);
PETSC_INTERN PetscErrorCode EllwarpMPICUDAFree(PetscScalar **);
PETSC_INTERN PetscErrorCode EllwarpMPICUDACopy(PetscScalar *, const PetscScalar *, PetscCount, PetscMemType);
PETSC_INTERN PetscErrorCode EllwarpMPICUDADevice(int *, int *);
#endif
