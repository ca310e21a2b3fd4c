/* The pattern analysis on the device (src/mat/impls/ellwarp/seq/ellwarpanalysis.cu).

   It builds exactly the layout that the host analysis (EllwarpLayoutCreate, layout.c) builds -- the
   same stable row order, slices, thresholds, 16-bit slices, long-row chunks and CSR -> slot map, so
   products are bitwise identical between the two -- but leaves the arrays in device memory:
     1. row lengths and integer moments (one pass, warp reductions), then the histogram of the rows
        that are not long: a summary of a few hundred numbers copied to the host;
     2. when a sort window is in play, the windows sorted on the device and walked for every candidate
        threshold (one thread per window and threshold): a few more numbers;
     3. the choice itself on the host, by layout.c's code (EllwarpLayoutChoose): one source of truth;
     4. the stable sort of the rows (cub::DeviceRadixSort on (long?, window, length) keys), slices from
        the whole-matrix runs or per window, the column mode per slice (a warp vote for the row-relative
        16-bit fit, per-position warp min/max for the biased one), offsets by scans, then
        fill kernels writing columns, the slot -> CSR map, the diagonal slots and the long-row chunks.
   The host EllwarpLayout gets the scalars only (analysedondevice = PETSC_TRUE, hostarrays = false);
   EllwarpLayoutFetchCUDA() copies the arrays down when a host consumer needs them. */
#pragma once

#include <petscellwarp/private/ellwarplayout.h>

typedef struct {
  PetscCount    *sliceptr, *colbase, *diagslot, *longptr, *chunkptr, *biasbase;
  PetscInt      *slicerow, *rowperm, *slot2csr, *longchunk, *chunkrow;
  unsigned char *meta;
  int           *col32;
  short         *col16;
  int           *colbias;
} EllwarpDeviceArrays;

typedef struct {
  double upload;   /* seconds: the CSR pattern to the device (0 when it was there already) */
  double analysis; /* seconds: everything else, until the layout is complete on the device */
} EllwarpAnalysisTimes;

#if defined(ELLWARP_HAVE_CUDA)
/* ai, aj, map (entry -> value index, may be NULL) in host or device memory (mtype); times may be NULL
   (when given, the stream is synchronized between the phases to time them) */
PETSC_EXTERN PetscErrorCode EllwarpLayoutCreateCUDA(PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscMemType, const EllwarpParams *, EllwarpLayout **, EllwarpDeviceArrays *, EllwarpAnalysisTimes *);
PETSC_EXTERN PetscErrorCode EllwarpDeviceArraysFree(EllwarpDeviceArrays *);
/* copy the device arrays into L's host arrays (allocated as EllwarpLayoutCreate allocates them) */
PETSC_EXTERN PetscErrorCode EllwarpLayoutFetchCUDA(EllwarpLayout *, const EllwarpDeviceArrays *);

typedef struct _EllwarpStore EllwarpStore;
/* the CUDA store of a device-built layout: takes the arrays over (d is zeroed) */
PETSC_INTERN PetscErrorCode EllwarpCUDACreateFromDevice(const EllwarpLayout *, EllwarpDeviceArrays *, EllwarpStore **);
PETSC_INTERN void           EllwarpCUDAStoreArrays(const EllwarpStore *, EllwarpDeviceArrays *);
#endif
