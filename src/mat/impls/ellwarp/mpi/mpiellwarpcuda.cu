/* MATMPIELLWARP, CUDA side: the COO work array (allocation and copies on PETSc's stream, so they are ordered
   with the block kernels and PetscSF's packing) and the device this rank runs on. */
#include <petscellwarp/private/matmpiellwarpimpl.h>
#include <petscdevice_cuda.h>

static inline cudaStream_t Stream(void)
{
  cudaStream_t s = NULL;
  (void)PetscGetCurrentCUDAStream(&s);
  return s;
}

PetscErrorCode EllwarpMPICUDAMalloc(PetscCount n, PetscScalar **p)
{
  PetscFunctionBegin;
  *p = NULL;
  if (n > 0) PetscCallCUDA(cudaMalloc((void **)p, (size_t)n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpMPICUDAFree(PetscScalar **p)
{
  PetscFunctionBegin;
  if (*p) {
    PetscCallCUDA(cudaStreamSynchronize(Stream())); /* kernels in flight may still read it */
    PetscCallCUDA(cudaFree(*p));
  }
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst (device) <- src (host or device, as mtype says) */
PetscErrorCode EllwarpMPICUDACopy(PetscScalar *dst, const PetscScalar *src, PetscCount n, PetscMemType mtype)
{
  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(PetscScalar), PetscMemTypeHost(mtype) ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice, Stream()));
  if (PetscMemTypeHost(mtype)) {
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscScalar)));
    PetscCallCUDA(cudaStreamSynchronize(Stream())); /* the caller may reuse its host array at once */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpMPICUDADevice(int *dev, int *ndev)
{
  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaGetDevice(dev));
  PetscCallCUDA(cudaGetDeviceCount(ndev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
