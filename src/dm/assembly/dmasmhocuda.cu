/* Device kernels of the built-in Lagrange elements (dmasmho.c): one thread per element, the same inline element
   code as the host loop (include/petscellwarp/private/dmasmho.h).  The common (dim, nen) pairs are compile-time constants
   (loops unrolled, the tensor element's matrix in registers); any other simplex order runs the generic instance.
   The reference data are read through the read-only cache: every thread of a warp reads the same word. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmho.h>
#include <petscellwarp/private/dmasmlocalnz.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

typedef struct {
  PetscReal v[9];
} HOTensorD;

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

#define HO_SIMPLEX(DIM, NEN) HOSimplexKernel<DIM, NEN><<<g, 128, 0, stream>>>(nelem, (int)c->nen, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe)

PetscErrorCode DMAsmCUDAHOElement(const DMAsmHOCtx *c, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  cudaStream_t stream;
  HOTensorD      D;
  const unsigned g = (unsigned)PetscMax((PetscInt)1, PetscMin((nelem + 127) / 128, (PetscInt)2147483647));

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 9; i++) D.v[i] = c->D[i];
  PetscCall(PetscLogGpuTimeBegin());
  if (c->tensor) {
    if (c->dim == 3 && c->nen == 8 && c->nq == 8) HOTensorKernel<3, 8, 8><<<g, 128, 0, stream>>>(nelem, (int)c->nq, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe);
    else if (c->dim == 2 && c->nen == 4 && c->nq == 4) HOTensorKernel<2, 4, 4><<<g, 128, 0, stream>>>(nelem, (int)c->nq, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, ue, ke, fe);
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

/* fused element + scatter (atomic, color; the colour tail with store): see DMAsmHOFused in dmasmho.c */
template <int DIM, int NEN, bool TENSOR, bool JAC, bool ATOMIC>
__global__ static void HOFusedKernel(PetscInt ne, const PetscInt *__restrict__ elems, PetscInt nelem, int nen, int nq, PetscReal alpha, PetscReal beta, PetscReal source, HOTensorD D, int hasD, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ u, const PetscInt *__restrict__ edof, const PetscInt *__restrict__ e2t, PetscScalar *__restrict__ dst, PetscScalar *__restrict__ store)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < ne; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt e = elems ? elems[i] : i;
    if (TENSOR) DMAsmHOTensorFused(DIM, NEN, nq, e, nelem, alpha, beta, source, hasD ? D.v : NULL, ref, xe, u, edof, e2t, JAC, ATOMIC, dst, store);
    else DMAsmHOSimplexFused(DIM, NEN > 0 ? NEN : nen, e, nelem, alpha, beta, source, hasD ? D.v : NULL, ref, xe, u, edof, e2t, JAC, ATOMIC, dst, store);
  }
}

template <int DIM, int NEN, bool TENSOR>
static void LaunchHOFused(cudaStream_t stream, const DMAsmHOCtx *c, unsigned g, PetscInt ne, const PetscInt *elems, PetscInt nelem, HOTensorD D, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscBool atomic, PetscScalar *dst, PetscScalar *store)
{
#define HO_FUSED_ARGS ne, elems, nelem, (int)c->nen, (int)c->nq, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, u, edof, e2t, dst, store
  if (jac && atomic) HOFusedKernel<DIM, NEN, TENSOR, true, true><<<g, 128, 0, stream>>>(HO_FUSED_ARGS);
  else if (jac) HOFusedKernel<DIM, NEN, TENSOR, true, false><<<g, 128, 0, stream>>>(HO_FUSED_ARGS);
  else if (atomic) HOFusedKernel<DIM, NEN, TENSOR, false, true><<<g, 128, 0, stream>>>(HO_FUSED_ARGS);
  else HOFusedKernel<DIM, NEN, TENSOR, false, false><<<g, 128, 0, stream>>>(HO_FUSED_ARGS);
#undef HO_FUSED_ARGS
}

PetscErrorCode DMAsmCUDAHOFused(const DMAsmHOCtx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscBool atomic, PetscScalar *dst, PetscScalar *store)
{
  HOTensorD      D;
  const unsigned g = (unsigned)PetscMax((PetscInt)1, PetscMin((ne + 127) / 128, (PetscInt)2147483647));
  cudaStream_t   stream;

  PetscFunctionBegin;
  if (!ne) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  for (int i = 0; i < 9; i++) D.v[i] = c->D[i];
  PetscCall(PetscLogGpuTimeBegin());
  if (c->tensor) {
    if (c->dim == 3 && c->nen == 8) LaunchHOFused<3, 8, true>(stream, c, g, ne, elems, nelem, D, xe, u, edof, jac, e2t, atomic, dst, store);
    else if (c->dim == 2 && c->nen == 4) LaunchHOFused<2, 4, true>(stream, c, g, ne, elems, nelem, D, xe, u, edof, jac, e2t, atomic, dst, store);
    else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly Lagrange kernels: tensor cell with dim %" PetscInt_FMT ", %" PetscInt_FMT " nodes has no fused device kernel", c->dim, c->nen);
  } else if (c->dim == 2) LaunchHOFused<2, 0, false>(stream, c, g, ne, elems, nelem, D, xe, u, edof, jac, e2t, atomic, dst, store); /* runtime nen: one entry at a time, nothing to keep in registers */
  else LaunchHOFused<3, 0, false>(stream, c, g, ne, elems, nelem, D, xe, u, edof, jac, e2t, atomic, dst, store);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localnz with the Lagrange elements: globalnz's packed plan walked as in dmasmcuda.cu, each contribution recomputed
   by DMAsmHOLocalEntry (an affine simplex entry from the element's geometry; a Q1 cell computes its whole element) */
template <typename I>
__global__ static void __launch_bounds__(DMASM_BLOCK) LocalNZHOKernel(PetscInt C, PetscCount ntarget, const PetscCount *__restrict__ blkptr, const int *__restrict__ order, const I *__restrict__ packed, int tensor, int dim, int nen, int nq, PetscBool jac, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, HOTensorD D, int hasD, const PetscReal *__restrict__ ref, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ u, const PetscInt *__restrict__ edof, PetscScalar *__restrict__ dst)
{
  DMAsmLocalNZBlock<DMASM_BLOCK>(C, ntarget, blkptr, order, packed, nelem, [&](int k, PetscInt e) { return DMAsmHOLocalEntry(tensor, dim, nen, nq, k, (int)jac, e, nelem, alpha, beta, source, hasD ? D.v : NULL, ref, xe, u, edof); }, dst);
}

PetscErrorCode DMAsmCUDALocalNZHO(const DMAsmHOCtx *c, const DMAsmPlan *P, PetscBool jac, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  cudaStream_t stream;
  const size_t shmem = (size_t)P->C * sizeof(PetscScalar);
  HOTensorD    D;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!P->nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 9; i++) D.v[i] = c->D[i];
  PetscCall(PetscLogGpuTimeBegin());
#define LOCALNZ_HO_ARGS P->C, P->ntarget, P->dblkptr, P->dorder, (const I *)P->dpacked, (int)c->tensor, (int)c->dim, (int)c->nen, (int)c->nq, jac, nelem, c->alpha, c->beta, c->source, D, (int)c->hasD, c->dref, xe, u, edof, dst
  if (P->idx64) {
    using I = PetscInt64;
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(LocalNZHOKernel<I>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    LocalNZHOKernel<I><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(LOCALNZ_HO_ARGS);
  } else {
    using I = int;
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(LocalNZHOKernel<I>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    LocalNZHOKernel<I><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(LOCALNZ_HO_ARGS);
  }
#undef LOCALNZ_HO_ARGS
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
