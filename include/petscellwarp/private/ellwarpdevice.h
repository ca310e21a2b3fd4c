/* The device layer of petsc-ellwarp (src/sys/device/ellwarpdevice.cu): the one place that asks CUDA for
   memory and that names the stream.  Every kernel and copy of the library (MATELLWARP, DMAssembly, the
   examples) goes on the stream of PETSc's current device context, the one PETSc's own vectors and
   AIJCUSPARSE use, so no legacy-stream synchronisation is needed between our work and PETSc's.

   Memory: PETSc's public PetscDeviceMalloc() is stream-ordered and ties the buffer to a device context;
   our buffers (layouts, plans) live as long as the Mat or DMAssembly that owns them and cross contexts, so
   we keep plain cudaMalloc, in this one file, with an out-of-memory error that says what was being
   allocated and how much is free (PETSc's message would not).  Temporaries of one computation (the pattern
   analysis) use the stream-ordered pair PetscEllwarpDeviceMallocAsync/FreeAsync instead: they come and go
   without device-wide synchronisations.

   The functions are PETSC_EXTERN although the header is private: the examples and benchmarks, which link
   against libpetscellwarp, use the same layer instead of copies of it.  They are not part of the public
   API (include/petscellwarp.h) and may change. */
#pragma once

#include <petscsys.h>
#if defined(ELLWARP_HAVE_CUDA)
  #include <cuda_runtime.h>

/* the stream of PETSc's current device context (errors propagate) */
PETSC_EXTERN PetscErrorCode PetscEllwarpGetStream(cudaStream_t *);
/* while s != NULL, PetscEllwarpGetStream() returns s: the library's kernels go to s, a stream being captured into a
   CUDA graph (PETSc's default, the legacy stream, cannot be captured); NULL restores PETSc's stream */
PETSC_EXTERN PetscErrorCode PetscEllwarpSetCaptureStream(cudaStream_t);
/* waits for everything queued on that stream (before freeing memory kernels may still read, before reading results) */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceSynchronize(void);
/* device memory of n bytes for `what` (named in the out-of-memory error); n == 0 gives NULL */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceMalloc(void **, size_t, const char[]);
/* frees and sets the pointer to NULL (NULL is fine); does not wait for the stream: callers whose kernels may
   still read the memory call PetscEllwarpDeviceSynchronize() first */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceFree(void **);
/* stream-ordered device memory (cudaMallocAsync on our stream, from the device's default pool, which keeps up
   to 1 GB of freed memory instead of unmapping it at each synchronisation); n == 0 gives NULL */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceMallocAsync(void **, size_t, const char[]);
/* stream-ordered free of PetscEllwarpDeviceMallocAsync() memory; sets the pointer to NULL (NULL is fine) */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceFreeAsync(void **);
/* host -> device copy of n bytes on our stream; waits for it, so the host buffer may be freed at once */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceUpload(void *, const void *, size_t);
/* device -> host copy of n bytes on our stream; waits for it */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceDownload(void *, const void *, size_t);
/* device -> device copy of n bytes on our stream; does not wait (ordered with the kernels that follow) */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceCopy(void *, const void *, size_t);

/* creates the CUDA context in a thread while the caller does host work (Begin), and waits for it (End, before the
   first device call): the ~1 s context creation overlaps the host set-up */
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceWarmUpBegin(void);
PETSC_EXTERN PetscErrorCode PetscEllwarpDeviceWarmUpEnd(void);

/* the grid of a launch covering n items with `threads` threads per block (a grid-stride loop covers the rest past
   2^31 - 1 blocks); at least one block, so an empty range is a valid launch that does nothing */
static inline unsigned PetscEllwarpBlocks(PetscCount n, int threads)
{
  PetscCount b = (n + threads - 1) / threads;
  return (unsigned)PetscMax((PetscCount)1, PetscMin(b, (PetscCount)2147483647));
}

  /* typed forms for arrays of n elements */
  #define PetscEllwarpDeviceMallocArray(p, n, what)      PetscEllwarpDeviceMalloc((void **)(p), (size_t)(n) * sizeof(**(p)), what)
  #define PetscEllwarpDeviceFreeArray(p)                 PetscEllwarpDeviceFree((void **)(p))
  #define PetscEllwarpDeviceMallocAsyncArray(p, n, what) PetscEllwarpDeviceMallocAsync((void **)(p), (size_t)(n) * sizeof(**(p)), what)
  #define PetscEllwarpDeviceFreeAsyncArray(p)            PetscEllwarpDeviceFreeAsync((void **)(p))
#endif
