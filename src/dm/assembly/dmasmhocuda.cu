/* Device kernels of the built-in Lagrange elements (dmasmho.c): one thread per element, the same inline element
   code as the host loop (include/petsc/private/dmasmho.h).  The common (dim, nen) pairs are compile-time constants
   (loops unrolled, the tensor element's matrix in registers); any other simplex order runs the generic instance.
   The reference data are read through the read-only cache: every thread of a warp reads the same word. */
#include <petsc/private/dmassemblyimpl.h>
#include <petsc/private/dmasmho.h>
#include <petscdevice_cuda.h>

typedef struct {
  PetscReal v[9];
} HOTensorD;

static inline cudaStream_t Stream(void)
{
  cudaStream_t s = NULL;
  (void)PetscGetCurrentCUDAStream(&s);
  return s;
}

template <int DIM, int NEN>
__global__ static void HOSimplexKernel(PetscInt n, int nen, PetscReal alpha, PetscReal beta, PetscReal source, HOTensorD D, int hasD, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ ue, PetscScalar *__restrict__ ke, PetscScalar *__restrict__ fe)
{
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < n; e += (PetscInt)gridDim.x * blockDim.x) DMAsmHOSimplexElement(DIM, NEN > 0 ? NEN : nen, e, n, alpha, beta, source, hasD ? D.v : NULL, ref, xe, ue, ke, fe);
}

template <int DIM, int NEN, int NQ>
__global__ static void HOTensorKernel(PetscInt n, int nq, PetscReal alpha, PetscReal beta, PetscReal source, HOTensorD D, int hasD, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ ue, PetscScalar *__restrict__ ke, PetscScalar *__restrict__ fe)
{
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < n; e += (PetscInt)gridDim.x * blockDim.x) DMAsmHOTensorElement(DIM, NEN, NQ > 0 ? NQ : nq, e, n, alpha, beta, source, hasD ? D.v : NULL, ref, xe, ue, ke, fe);
}

#define HO_SIMPLEX(DIM, NEN) HOSimplexKernel<DIM, NEN><<<g, 128, 0, Stream()>>>(nelem, (int)c->nen, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe)

PetscErrorCode DMAsmCUDAHOElement(const DMAsmHOCtx *c, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  HOTensorD      D;
  const unsigned g = (unsigned)PetscMax((PetscInt)1, PetscMin((nelem + 127) / 128, (PetscInt)2147483647));

  PetscFunctionBegin;
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 9; i++) D.v[i] = c->D[i];
  PetscCall(PetscLogGpuTimeBegin());
  if (c->tensor) {
    if (c->dim == 3 && c->nen == 8 && c->nq == 8) HOTensorKernel<3, 8, 8><<<g, 128, 0, Stream()>>>(nelem, (int)c->nq, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe);
    else if (c->dim == 2 && c->nen == 4 && c->nq == 4) HOTensorKernel<2, 4, 4><<<g, 128, 0, Stream()>>>(nelem, (int)c->nq, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe);
    else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly Lagrange kernels: tensor cell with dim %" PetscInt_FMT ", %" PetscInt_FMT " nodes, %" PetscInt_FMT " points has no device kernel", c->dim, c->nen, c->nq);
  } else if (c->dim == 2) {
    switch (c->nen) {
    case 3:
      HO_SIMPLEX(2, 3);
      break;
    case 6:
      HO_SIMPLEX(2, 6);
      break;
    case 10:
      HO_SIMPLEX(2, 10);
      break;
    case 15:
      HO_SIMPLEX(2, 15);
      break;
    case 21:
      HO_SIMPLEX(2, 21);
      break;
    default:
      HO_SIMPLEX(2, 0);
    }
  } else {
    switch (c->nen) {
    case 4:
      HO_SIMPLEX(3, 4);
      break;
    case 10:
      HO_SIMPLEX(3, 10);
      break;
    default:
      HO_SIMPLEX(3, 0);
    }
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
