/* CUDA versions of the cardiac element callbacks and the activation-time update: one thread per element
   (per node), the same CardiacElement()/CardiacActivation() as the host loops (cardiac_model.h), on PETSc's
   current stream.  The entry-major element buffers make every load and store coalesced.  Stream, device
   memory and copies come from the library's device layer (ellwarpdevice.h, exported for the examples), so
   the example orders its work with the assembler's and PETSc's on the same stream. */
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include "cardiac.h"

/* RES/JAC known at compile time: the unused half of CardiacElement() is removed (fewer registers) */
template <bool RES, bool JAC>
__global__ void CardiacElementKernel(CardiacParams p, CardiacElementData d, PetscInt e0, PetscInt nelem, const PetscReal *__restrict__ xe, const PetscInt *__restrict__ edof, const PetscScalar *__restrict__ ue, const PetscScalar *__restrict__ ae, PetscScalar *fe, PetscScalar *ke)
{
  for (PetscInt e = blockIdx.x * blockDim.x + threadIdx.x; e < nelem; e += gridDim.x * blockDim.x) CardiacElement(&p, &d, e, e0 + e, nelem, xe, edof, ue, ae, RES ? fe : NULL, JAC ? ke : NULL);
}

__global__ void CardiacActivationKernel(PetscInt n, const PetscScalar *__restrict__ po, const PetscScalar *__restrict__ pn, PetscScalar *a, PetscReal t, PetscReal dt, PetscReal thr)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = CardiacActivation(PetscRealPart(a[i]), PetscRealPart(po[i]), PetscRealPart(pn[i]), t, dt, thr);
}

static inline unsigned Blocks(PetscInt n, int threads)
{
  return (unsigned)PetscMax(1, PetscMin((n + threads - 1) / threads, (PetscInt)1 << 20));
}

PetscErrorCode CardiacElementsCUDA(const CardiacParams *p, CardiacElementData d, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscInt *edof, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, PetscScalar *ke)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (nelem) {
    PetscCall(PetscEllwarpGetStream(&stream));
    if (fe && ke) CardiacElementKernel<true, true><<<Blocks(nelem, 128), 128, 0, stream>>>(*p, d, e0, nelem, xe, edof, ue, ae, fe, ke);
    else if (fe) CardiacElementKernel<true, false><<<Blocks(nelem, 128), 128, 0, stream>>>(*p, d, e0, nelem, xe, edof, ue, ae, fe, ke);
    else CardiacElementKernel<false, true><<<Blocks(nelem, 128), 128, 0, stream>>>(*p, d, e0, nelem, xe, edof, ue, ae, fe, ke);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuFlops(nelem * (fe ? 150.0 : 200.0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacActivationCUDA(PetscInt n, const PetscScalar *po, const PetscScalar *pn, PetscScalar *a, PetscReal t, PetscReal dt, PetscReal thr)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n) {
    PetscCall(PetscEllwarpGetStream(&stream));
    CardiacActivationKernel<<<Blocks(n, 256), 256, 0, stream>>>(n, po, pn, a, t, dt, thr);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n == 0 bytes gives NULL (no copy or kernel touches it then) */
/* the CUDA context made by a thread while main() reads and refines the mesh (the device layer's warm-up) */
PetscErrorCode CardiacDeviceWarmUp(PetscBool begin)
{
  PetscFunctionBegin;
  if (begin) PetscCall(PetscEllwarpDeviceWarmUpBegin());
  else PetscCall(PetscEllwarpDeviceWarmUpEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacDeviceMalloc(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMalloc(p, bytes, "cardiac element data"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacDeviceFree(void *p)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceFree(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* both directions wait for the copy */
PetscErrorCode CardiacDeviceCopy(void *dst, const void *src, size_t bytes, PetscBool todevice)
{
  PetscFunctionBegin;
  if (todevice) PetscCall(PetscEllwarpDeviceUpload(dst, src, bytes));
  else PetscCall(PetscEllwarpDeviceDownload(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacDeviceSync(void)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}
