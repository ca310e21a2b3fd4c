/* The device layer: streams and device memory for the whole library (see
   include/petscellwarp/private/ellwarpdevice.h for why it exists).  Only this file calls cudaMalloc/cudaFree. */
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

PetscErrorCode PetscEllwarpGetStream(cudaStream_t *s)
{
  PetscFunctionBegin;
  *s = NULL;
  PetscCall(PetscGetCurrentCUDAStream(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceMalloc(void **p, size_t bytes, const char what[])
{
  cudaError_t err;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  err = cudaMalloc(p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    size_t freeb = 0, totalb = 0;

    (void)cudaGetLastError(); /* clear the sticky-free error so that later calls work */
    (void)cudaMemGetInfo(&freeb, &totalb);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "petsc-ellwarp: device out of memory allocating %.4g MB for %s (%.4g MB free of %.4g MB)", (double)bytes / 1e6, what ? what : "(unnamed)", (double)freeb / 1e6, (double)totalb / 1e6);
  }
  PetscCallCUDA(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceFree(void **p)
{
  PetscFunctionBegin;
  if (*p) PetscCallCUDA(cudaFree(*p));
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceUpload(void *d, const void *h, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceDownload(void *h, const void *d, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}
