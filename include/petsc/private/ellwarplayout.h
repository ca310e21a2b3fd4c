/* The ELL-WARP layout, shared by the host reference kernels and the CUDA kernels.

   Slots of slice s occupy [sliceptr[s], sliceptr[s+1]): a column-major block of ELLWARP_LANES lanes by
   width w = (sliceptr[s+1]-sliceptr[s])/ELLWARP_LANES.  A slice holds the sorted rows
   [slicerow[s], slicerow[s+1]); each row owns tpr = 1 << log2tpr[s] consecutive lanes (tpr = 1: K1,
   tpr > 1: K2).  Entry e of the q-th row of the slice sits at lane q*tpr + e%tpr, step e/tpr, so
   neighbouring lanes of one row read neighbouring columns.  Padding has col = -1 and value 0 and is never
   multiplied (an Inf or NaN in x must not leak into rows that do not reference it). */
#pragma once

#include <petscellwarp.h>

#define ELLWARP_LANES 32

typedef struct {
  PetscInt       nrows, ncols, nslices;
  PetscCount     nnz, nslots;
  PetscCount    *sliceptr;  /* [nslices+1] */
  PetscInt      *slicerow;  /* [nslices+1] */
  unsigned char *log2tpr;   /* [nslices] */
  PetscInt      *rowperm;   /* [nrows] sorted position -> original row */
  int           *col;       /* [nslots] column, -1 for padding */
  PetscInt      *slot2csr;  /* [nslots] CSR entry, -1 for padding */
  PetscCount    *diagslot;  /* [nrows] slot of (i,i) for original row i, -1 if not stored */
  PetscInt       ndiagmissing;
  PetscScalar   *val;       /* [nslots], host backend only */
  /* what the analysis chose and saw */
  MatEllwarpKernel kernel;
  PetscInt         threshold, sortwindow, nsplit, maxrowlen, minrowlen;
  PetscReal        meanrowlen, stdrowlen;
} EllwarpLayout;

typedef struct {
  MatEllwarpKernel kernel;     /* AUTO lets the analysis choose */
  PetscInt         threshold;  /* 0: automatic */
  PetscInt         sortwindow; /* 0: global; else a multiple of ELLWARP_LANES */
} EllwarpParams;

/* Analysis: builds the pattern part of the layout (val stays NULL) from a CSR pattern.
   perm_in, when given, maps each CSR entry to the index of its value in the value array that refresh
   reads (used for the transpose, whose CSR is a permutation of the matrix's own entries). */
PETSC_INTERN PetscErrorCode EllwarpLayoutCreate(PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], const EllwarpParams *, EllwarpLayout **);
PETSC_INTERN PetscErrorCode EllwarpLayoutDestroy(EllwarpLayout **);
PETSC_INTERN PetscErrorCode EllwarpLayoutChooseThreshold(PetscInt, const PetscInt[], const EllwarpParams *, MatEllwarpKernel *, PetscInt *);
PETSC_INTERN PetscErrorCode EllwarpLayoutTranspose(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt **, PetscInt **, PetscInt **);
PETSC_INTERN PetscLogDouble EllwarpLayoutBytesMult(const EllwarpLayout *);

/* Host reference kernels: the same layout, the same per-lane order of summation. */
PETSC_INTERN void EllwarpHostRefresh(const EllwarpLayout *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void EllwarpHostDownload(const EllwarpLayout *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void EllwarpHostMult(const EllwarpLayout *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN void EllwarpHostDiagScale(const EllwarpLayout *, PetscScalar *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN void EllwarpHostZeroMasked(const EllwarpLayout *, PetscScalar *, const char *, const char *, PetscScalar);
