/* MATMPIELLWARP, CUDA side: the COO work array (allocation and copies through the device layer, on PETSc's
   stream, so they are ordered with the block kernels and PetscSF's packing) and the device this rank runs on. */
#include <petscellwarp/private/matmpiellwarpimpl.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

PetscErrorCode EllwarpMPICUDAMalloc(PetscCount n, PetscScalar **p)
{
  PetscFunctionBegin;
  *p = NULL;
  if (n > 0) PetscCall(PetscEllwarpDeviceMallocArray(p, n, "MATMPIELLWARP COO values"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpMPICUDAFree(PetscScalar **p)
{
  PetscFunctionBegin;
  if (*p) PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read it */
  PetscCall(PetscEllwarpDeviceFreeArray(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst (device) <- src (host or device, as mtype says) */
PetscErrorCode EllwarpMPICUDACopy(PetscScalar *dst, const PetscScalar *src, PetscCount n, PetscMemType mtype)
{
  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (PetscMemTypeHost(mtype)) PetscCall(PetscEllwarpDeviceUpload(dst, src, (size_t)n * sizeof(PetscScalar))); /* waits: the caller may reuse its host array at once */
  else PetscCall(PetscEllwarpDeviceCopy(dst, src, (size_t)n * sizeof(PetscScalar)));
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
