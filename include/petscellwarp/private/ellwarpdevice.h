/* The device layer of petsc-ellwarp (src/sys/device/ellwarpdevice.cu): the one place that asks CUDA for
   memory and that names the stream.  Every kernel and copy of the library (MATELLWARP, DMAssembly, the
   examples) goes on the stream of PETSc's current device context, the one PETSc's own vectors and
   AIJCUSPARSE use, so no legacy-stream synchronisation is needed between our work and PETSc's.

   Memory: PETSc's public PetscDeviceMalloc() is stream-ordered and ties the buffer to a device context;
   our buffers (layouts, plans) live as long as the Mat or DMAssembly that owns them and cross contexts, so
   we keep plain cudaMalloc, in this one file, with an out-of-memory error that says what was being
   allocated and how much is free (PETSc's message would not). */
#pragma once

#include <petscsys.h>
#if defined(ELLWARP_HAVE_CUDA)
  #include <cuda_runtime.h>

/* the stream of PETSc's current device context (errors propagate) */
PETSC_INTERN PetscErrorCode PetscEllwarpGetStream(cudaStream_t *);
/* device memory of n bytes for `what` (named in the out-of-memory error); n == 0 gives NULL */
PETSC_INTERN PetscErrorCode PetscEllwarpDeviceMalloc(void **, size_t, const char[]);
/* frees and sets the pointer to NULL (NULL is fine) */
PETSC_INTERN PetscErrorCode PetscEllwarpDeviceFree(void **);
/* host -> device copy of n bytes on our stream; waits for it, so the host buffer may be freed at once */
PETSC_INTERN PetscErrorCode PetscEllwarpDeviceUpload(void *, const void *, size_t);
/* device -> host copy of n bytes on our stream; waits for it */
PETSC_INTERN PetscErrorCode PetscEllwarpDeviceDownload(void *, const void *, size_t);

  /* typed forms: PetscEllwarpDeviceCalloc-style convenience for arrays */
  #define PetscEllwarpDeviceMallocArray(p, n, what) PetscEllwarpDeviceMalloc((void **)(p), (size_t)(n) * sizeof(**(p)), what)
  #define PetscEllwarpDeviceFreeArray(p)            PetscEllwarpDeviceFree((void **)(p))
#endif
