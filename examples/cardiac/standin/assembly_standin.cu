/* Device part of the assembler stand-in: allocation, upload and the gather of nodal values into the
   entry-major element buffer, all on PETSc's current CUDA stream (the one its vectors use). */
#include <petscdevice_cuda.h>
#include "petscellwarpassembly.h"

static inline cudaStream_t Stream(void)
{
  cudaStream_t s = NULL;
  (void)PetscGetCurrentCUDAStream(&s);
  return s;
}

PetscErrorCode StandinDeviceMalloc(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(p, bytes ? bytes : 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StandinDeviceFree(void *p)
{
  PetscFunctionBegin;
  if (p) PetscCallCUDA(cudaFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StandinDeviceUpload(void *d, const void *h, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, Stream()));
  PetscCallCUDA(cudaStreamSynchronize(Stream()));
  PetscCall(PetscLogCpuToGpu(bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void StandinGatherKernel(PetscCount n, const PetscInt *__restrict__ idx, const PetscScalar *__restrict__ u, PetscScalar *__restrict__ ue)
{
  for (PetscCount i = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; i < n; i += (PetscCount)gridDim.x * blockDim.x) ue[i] = u[idx[i]];
}

PetscErrorCode StandinDeviceGather(PetscCount n, const PetscInt *idx, const PetscScalar *u, PetscScalar *ue)
{
  PetscFunctionBegin;
  if (n) {
    unsigned nb = (unsigned)PetscMin((n + 255) / 256, (PetscCount)65535 * 8);
    StandinGatherKernel<<<nb, 256, 0, Stream()>>>(n, idx, u, ue);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
