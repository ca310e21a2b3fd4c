/* Device kernels of the assembler: gather, packed reduction by nonzero (GlobalNZ), atomic and coloured
   scatters, the built-in P1 element.  Plain-C references of each: dmasmhost.c.  Everything runs on the
   stream of PETSc's current device context, the one PETSc's vectors and the matrix types use. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmp1.h>
#include <petscellwarp/private/dmasmlocalnz.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

PetscErrorCode DMAsmCUDAAvailable(PetscBool *avail)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  if (err != cudaSuccess) (void)cudaGetLastError();
  *avail = (PetscBool)(err == cudaSuccess && n > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the assembler's device buffers (mesh data, plans, element data) through the device layer */
PetscErrorCode DMAsmCUDAMalloc(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMalloc(p, bytes, "DMAssembly"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAFree(void **p)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* waits for the copy: the host buffer may go away right after */
PetscErrorCode DMAsmCUDAUpload(void *d, const void *h, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceUpload(d, h, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAZero(PetscScalar *a, PetscCount n)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (n) PetscCallCUDA(cudaMemsetAsync(a, 0, n * sizeof(PetscScalar), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ static void GatherKernel(PetscCount n, const PetscInt *__restrict__ edof, const PetscScalar *__restrict__ u, PetscScalar *__restrict__ ue)
{
  for (PetscCount q = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; q < n; q += (PetscCount)gridDim.x * blockDim.x) ue[q] = u[edof[q]];
}

PetscErrorCode DMAsmCUDAGather(PetscInt nen, PetscInt nelem, const PetscInt *edof, const PetscScalar *u, PetscScalar *ue)
{
  cudaStream_t stream;
  const PetscCount n = (PetscCount)nen * nelem;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  GatherKernel<<<PetscEllwarpBlocks(n, 256), 256, 0, stream>>>(n, edof, u, ue);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define DMASM_UNROLL 16

/* Algorithm 5 of Cecka, Lew, Darve: block b reads its packed lists down the columns (coalesced, streamed
   once), each thread sums its targets in list order into shared memory, then the block writes its
   contiguous targets with coalesced stores (zeros where no element contributes, e.g. ELLWARP padding). */
template <typename I>
__global__ static void __launch_bounds__(DMASM_BLOCK) ReduceKernel(PetscInt C, PetscCount ntarget, const PetscCount *__restrict__ blkptr, const int *__restrict__ order, const I *__restrict__ packed, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst)
{
  extern __shared__ PetscScalar sm[];
  const PetscInt   b  = order[blockIdx.x]; /* the tallest blocks first (a high-valence node's long list is the critical path) */
  const PetscCount t0 = (PetscCount)b * C;
  const PetscInt   nt = (PetscInt)(ntarget - t0 < C ? ntarget - t0 : C);
  const PetscCount end = blkptr[b + 1];
  PetscScalar      s   = 0;

  for (PetscInt i = threadIdx.x; i < nt; i += DMASM_BLOCK) sm[i] = 0;
  __syncthreads();
  PetscCount p = blkptr[b] + threadIdx.x;
  /* DMASM_UNROLL entries at a time: their plan words and then their sources are all loaded before the first
     is summed (independent loads in flight; one entry at a time left every thread waiting on two
     dependent global loads per entry).  The sum is still taken in list order. */
  for (; p + (DMASM_UNROLL - 1) * DMASM_BLOCK < end; p += DMASM_UNROLL * DMASM_BLOCK) {
    I           v[DMASM_UNROLL];
    PetscScalar x[DMASM_UNROLL];
#pragma unroll
    for (int j = 0; j < DMASM_UNROLL; j++) v[j] = __ldcs(packed + p + j * DMASM_BLOCK);
#pragma unroll
    for (int j = 0; j < DMASM_UNROLL; j++) x[j] = v[j] > 0 ? __ldg(src + (v[j] - 1)) : 0;
#pragma unroll
    for (int j = 0; j < DMASM_UNROLL; j++) {
      if (v[j] > 0) s += x[j];
      else if (v[j] < 0) {
        sm[~v[j]] = s;
        s         = 0;
      }
    }
  }
  for (; p < end; p += DMASM_BLOCK) {
    const I v = __ldcs(packed + p);
    if (v > 0) s += src[v - 1];
    else if (v < 0) {
      sm[~v] = s;
      s      = 0;
    }
  }
  __syncthreads();
  for (PetscInt i = threadIdx.x; i < nt; i += DMASM_BLOCK) dst[t0 + i] = sm[i];
}

PetscErrorCode DMAsmCUDAReduce(const DMAsmPlan *P, const PetscScalar *src, PetscScalar *dst)
{
  cudaStream_t stream;
  const size_t shmem = (size_t)P->C * sizeof(PetscScalar);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!P->nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGpuTimeBegin());
  if (P->idx64) {
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(ReduceKernel<PetscInt64>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    ReduceKernel<PetscInt64><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(P->C, P->ntarget, P->dblkptr, P->dorder, (const PetscInt64 *)P->dpacked, src, dst);
  } else {
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(ReduceKernel<int>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    ReduceKernel<int><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(P->C, P->ntarget, P->dblkptr, P->dorder, (const int *)P->dpacked, src, dst);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localnz (Cecka, Lew, Darve 4.2.2): the packed plan of globalnz walked as ReduceKernel walks it, each source
   entry k*nelem + e computed in registers from the element's inputs instead of read (jac: k = a*nen + b; else
   k = a, with the state u through edof): no element data in memory, the geometry recomputed per contribution */
template <typename I>
__global__ static void __launch_bounds__(DMASM_BLOCK) LocalNZKernel(PetscInt C, PetscCount ntarget, const PetscCount *__restrict__ blkptr, const int *__restrict__ order, const I *__restrict__ packed, int dim, PetscBool jac, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *__restrict__ D, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ u, const PetscInt *__restrict__ edof, PetscScalar *__restrict__ dst)
{
  const int nen = dim + 1;
  DMAsmLocalNZBlock<DMASM_BLOCK>(C, ntarget, blkptr, order, packed, nelem, [&](int k, PetscInt e) { return DMAsmP1ElementEntry(dim, jac ? k / nen : k, jac ? k % nen : 0, e, nelem, alpha, beta, source, D, xe, jac ? NULL : u, edof); }, dst);
}

PetscErrorCode DMAsmCUDALocalNZ(const DMAsmP1Ctx *c, const DMAsmPlan *P, PetscBool jac, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  cudaStream_t stream;
  const size_t shmem = (size_t)P->C * sizeof(PetscScalar);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!P->nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGpuTimeBegin());
  if (P->idx64) {
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(LocalNZKernel<PetscInt64>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    LocalNZKernel<PetscInt64><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(P->C, P->ntarget, P->dblkptr, P->dorder, (const PetscInt64 *)P->dpacked, (int)c->dim, jac, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
  } else {
    if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(LocalNZKernel<int>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    LocalNZKernel<int><<<(unsigned)P->nblocks, DMASM_BLOCK, shmem, stream>>>(P->C, P->ntarget, P->dblkptr, P->dorder, (const int *)P->dpacked, (int)c->dim, jac, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ static void AtomicKernel(PetscCount n, const PetscInt *__restrict__ e2t, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst)
{
  for (PetscCount q = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; q < n; q += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt t = e2t[q];
    if (t >= 0) atomicAdd(dst + t, src[q]);
  }
}

PetscErrorCode DMAsmCUDAScatterAtomic(PetscCount n, const PetscInt *e2t, const PetscScalar *src, PetscScalar *dst)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  AtomicKernel<<<PetscEllwarpBlocks(n, 256), 256, 0, stream>>>(n, e2t, src, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one colour: one thread per element, no two elements of the colour share a target */
__global__ static void ColorKernel(PetscInt ne, const PetscInt *__restrict__ elems, PetscInt nper, PetscInt nelem, const PetscInt *__restrict__ e2t, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < ne; i += gridDim.x * blockDim.x) {
    const PetscInt e = elems[i];
    for (PetscInt k = 0; k < nper; k++) {
      const PetscCount q = (PetscCount)k * nelem + e;
      const PetscInt   t = e2t[q];
      if (t >= 0) dst[t] += src[q];
    }
  }
}

PetscErrorCode DMAsmCUDAScatterColor(PetscInt ne, const PetscInt *elems, PetscInt nper, PetscInt nelem, const PetscInt *e2t, const PetscScalar *src, PetscScalar *dst)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!ne) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGpuTimeBegin());
  ColorKernel<<<PetscEllwarpBlocks(ne, 128), 128, 0, stream>>>(ne, elems, nper, nelem, e2t, src, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DIM as a template parameter: the element's loops unroll and its small arrays stay in registers */
template <int DIM>
__global__ static void P1Kernel(PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, PetscInt ldD, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  for (PetscInt e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) DMAsmP1Element(DIM, e, n, alpha, beta, source, D, ldD, xe, ue, ke, fe);
}

PetscErrorCode DMAsmCUDAP1Diffusion(PetscInt dim, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, PetscInt ldD, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGpuTimeBegin());
  if (dim == 3) P1Kernel<3><<<PetscEllwarpBlocks(nelem, 128), 128, 0, stream>>>(nelem, alpha, beta, source, D, ldD, xe, ue, ke, fe);
  else P1Kernel<2><<<PetscEllwarpBlocks(nelem, 128), 128, 0, stream>>>(nelem, alpha, beta, source, D, ldD, xe, ue, ke, fe);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((dim == 3 ? 150.0 : 60.0) * nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fused element + scatter (built-in P1 kernels, atomic and color): see DMAsmHostP1Fused */
template <int DIM, bool JAC, bool ATOMIC>
__global__ static void P1FusedKernel(PetscInt ne, const PetscInt *__restrict__ elems, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *__restrict__ D, const PetscReal *__restrict__ Ds, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ u, const PetscInt *__restrict__ edof, const PetscInt *__restrict__ e2t, PetscScalar *__restrict__ dst, PetscScalar *__restrict__ store)
{
  constexpr int nen = DIM + 1, nper = JAC ? nen * nen : nen;
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < ne; i += gridDim.x * blockDim.x) {
    const PetscInt e = elems ? elems[i] : i;
    PetscReal      xl[nen * DIM], Dl[DIM * DIM];
    PetscScalar    ul[nen], vl[nper];
#pragma unroll
    for (int q = 0; q < nen * DIM; q++) xl[q] = xe[(PetscCount)q * nelem + e];
    if (Ds) { /* upper triangle of an exactly symmetric D (the same values): 6 of 9 loads, ~1/10 of the fused Jacobian's bytes */
      int q = 0;
#pragma unroll
      for (int r = 0; r < DIM; r++)
#pragma unroll
        for (int c2 = r; c2 < DIM; c2++, q++) Dl[r * DIM + c2] = Dl[c2 * DIM + r] = Ds[(PetscCount)q * nelem + e];
    } else
#pragma unroll
      for (int q = 0; q < DIM * DIM; q++) Dl[q] = D ? D[(PetscCount)q * nelem + e] : (PetscReal)(q % (DIM + 1) == 0);
    if (!JAC)
#pragma unroll
      for (int a = 0; a < nen; a++) ul[a] = u[edof[(PetscCount)a * nelem + e]];
    DMAsmP1Element(DIM, 0, 1, alpha, beta, source, Dl, 1, xl, ul, JAC ? vl : NULL, JAC ? NULL : vl);
    if (store) { /* the colour tail: element data to the buffer, reduced by its plan */
#pragma unroll
      for (int k = 0; k < nper; k++) store[(PetscCount)k * nelem + e] = vl[k];
      continue;
    }
#pragma unroll
    for (int k = 0; k < nper; k++) {
      const PetscInt t = e2t[(PetscCount)k * nelem + e];
      if (t < 0) continue;
      if (ATOMIC) atomicAdd(dst + t, vl[k]);
      else dst[t] += vl[k];
    }
  }
}

template <int DIM>
static void LaunchFused(cudaStream_t stream, PetscBool jac, PetscBool atomic, PetscInt ne, const PetscInt *elems, PetscInt nelem, const DMAsmP1Ctx *c, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, const PetscInt *e2t, PetscScalar *dst, PetscScalar *store)
{
  const unsigned g = PetscEllwarpBlocks(ne, 128);
  if (jac && atomic) P1FusedKernel<DIM, true, true><<<g, 128, 0, stream>>>(ne, elems, nelem, c->alpha, c->beta, c->source, c->dD, c->dDs, xe, u, edof, e2t, dst, store);
  else if (jac) P1FusedKernel<DIM, true, false><<<g, 128, 0, stream>>>(ne, elems, nelem, c->alpha, c->beta, c->source, c->dD, c->dDs, xe, u, edof, e2t, dst, store);
  else if (atomic) P1FusedKernel<DIM, false, true><<<g, 128, 0, stream>>>(ne, elems, nelem, c->alpha, c->beta, c->source, c->dD, c->dDs, xe, u, edof, e2t, dst, store);
  else P1FusedKernel<DIM, false, false><<<g, 128, 0, stream>>>(ne, elems, nelem, c->alpha, c->beta, c->source, c->dD, c->dDs, xe, u, edof, e2t, dst, store);
}

PetscErrorCode DMAsmCUDAP1Fused(const DMAsmP1Ctx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscBool atomic, PetscScalar *dst)
{
  PetscFunctionBegin;
  PetscCall(DMAsmCUDAP1FusedStore(c, ne, elems, nelem, xe, u, edof, jac, e2t, atomic, dst, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAP1FusedStore(const DMAsmP1Ctx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscBool atomic, PetscScalar *dst, PetscScalar *store)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!ne) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->dim == 3) LaunchFused<3>(stream, jac, atomic, ne, elems, nelem, c, xe, u, edof, e2t, dst, store);
  else LaunchFused<2>(stream, jac, atomic, ne, elems, nelem, c, xe, u, edof, e2t, dst, store);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((c->dim == 3 ? 150.0 : 60.0) * ne));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localrow (dmasmlocalrow.c): thread l of warp w owns row rowof[32w+l]; its element incidences and (Jacobian)
   targets are read down the warp's columns (coalesced); the element's row is computed in registers. */
template <int DIM, bool JAC>
__global__ static void LocalRowKernel(PetscInt nwarps, const PetscCount *__restrict__ wptr, const int *__restrict__ inc, const PetscInt *__restrict__ tgt, const PetscInt *__restrict__ rowof, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *__restrict__ D, const PetscReal *__restrict__ xe, const PetscScalar *__restrict__ u, const PetscInt *__restrict__ edof, PetscScalar *__restrict__ dst)
{
  constexpr int    nen = DIM + 1;
  const PetscCount gid = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x;
  const PetscInt   w = (PetscInt)(gid / 32), l = (PetscInt)(gid % 32);
  PetscScalar      acc = 0;

  if (w >= nwarps || rowof[gid] < 0) return;
  {
    const PetscCount base = wptr[w], width = (wptr[w + 1] - base) / 32;
    for (PetscCount s = 0; s < width; s++) {
      const int   v = __ldcs(inc + base + s * 32 + l);
      PetscReal   xl[nen * DIM], Dl[DIM * DIM];
      PetscScalar ul[nen], kr[nen], fr;
      PetscInt    e, a;
      if (v < 0) break;
      e = v / nen;
      a = v % nen;
#pragma unroll
      for (int q = 0; q < nen * DIM; q++) xl[q] = xe[(PetscCount)q * nelem + e];
      if (D)
#pragma unroll
        for (int q = 0; q < DIM * DIM; q++) Dl[q] = D[(PetscCount)q * nelem + e];
      if (JAC) {
        DMAsmP1ElementRow(DIM, (int)a, alpha, beta, source, D ? Dl : NULL, xl, NULL, kr, NULL);
#pragma unroll
        for (int b = 0; b < nen; b++) {
          const PetscInt t = __ldcs(tgt + base * nen + (s * nen + b) * 32 + l);
          if (t >= 0) dst[t] += kr[b];
        }
      } else {
#pragma unroll
        for (int b = 0; b < nen; b++) ul[b] = u[edof[(PetscCount)b * nelem + e]];
        DMAsmP1ElementRow(DIM, (int)a, alpha, beta, source, D ? Dl : NULL, xl, ul, NULL, &fr);
        acc += fr;
      }
    }
  }
  if (!JAC) dst[rowof[gid]] = acc;
}

PetscErrorCode DMAsmCUDALocalRow(const DMAsmP1Ctx *c, const DMAsmRowPlan *P, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  cudaStream_t stream;
  const PetscCount nthreads = (PetscCount)P->nwarps * 32;
  const unsigned   g        = PetscEllwarpBlocks(nthreads, 128);
  const PetscBool  jac      = (PetscBool)(P->dtgt != NULL);

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!P->nwarps) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac) PetscCall(DMAsmCUDAZero(dst, P->ntarget));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->dim == 3) {
    if (jac) LocalRowKernel<3, true><<<g, 128, 0, stream>>>(P->nwarps, P->dwptr, P->dinc, P->dtgt, P->drowof, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
    else LocalRowKernel<3, false><<<g, 128, 0, stream>>>(P->nwarps, P->dwptr, P->dinc, P->dtgt, P->drowof, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
  } else {
    if (jac) LocalRowKernel<2, true><<<g, 128, 0, stream>>>(P->nwarps, P->dwptr, P->dinc, P->dtgt, P->drowof, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
    else LocalRowKernel<2, false><<<g, 128, 0, stream>>>(P->nwarps, P->dwptr, P->dinc, P->dtgt, P->drowof, nelem, c->alpha, c->beta, c->source, c->dD, xe, u, edof, dst);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((c->dim == 3 ? 120.0 : 50.0) * (PetscLogDouble)(c->dim + 1) * nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sharednz (dmasmshared.c; reference DMAsmHostShared): block b loads its nodes' coordinates (and values)
   through the scatter array into shared memory, computes its elements (one thread each) and keeps the element
   rows its targets need (value c of incidence j at c*ninc + j; incidences numbered node-major, so consecutive
   threads write consecutive words), then each thread sums its targets' 16-bit offsets in list order and the
   block stores its targets (coalesced): walk position t0 + j goes to the target of its range (one range per
   block for the contiguous partition, a few 32-aligned runs for METIS). */
#define DMASM_SH_THREADS 256
template <int DIM, bool JAC, bool RANGES>
__global__ static void __launch_bounds__(DMASM_SH_THREADS, 3) SharedKernel(const PetscCount *__restrict__ tb, const PetscCount *__restrict__ eb, const PetscCount *__restrict__ nb, const PetscCount *__restrict__ lb, const PetscInt *__restrict__ belem, const PetscInt *__restrict__ bnode, const unsigned short *__restrict__ bloc, const unsigned short *__restrict__ islot, const int *__restrict__ ninc, const unsigned short *__restrict__ lo, const int *__restrict__ toff, const PetscInt *__restrict__ rb, const PetscCount *__restrict__ rp, const PetscCount *__restrict__ rt, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *__restrict__ D, const PetscReal *__restrict__ Ds, const PetscReal *__restrict__ xn, const PetscScalar *__restrict__ u, PetscScalar *__restrict__ dst)
{
  constexpr int    nen = DIM + 1, nper = JAC ? nen * nen : nen, w = nper / nen;
  extern __shared__ PetscScalar shm[];
  const PetscCount e0 = eb[blockIdx.x], n0 = nb[blockIdx.x], l0 = lb[blockIdx.x], t0 = tb[blockIdx.x];
  const int        ne = (int)(eb[blockIdx.x + 1] - e0), nn = (int)(nb[blockIdx.x + 1] - n0), ltot = (int)(lb[blockIdx.x + 1] - l0), nt = (int)(tb[blockIdx.x + 1] - t0), ni = ninc[blockIdx.x];
  PetscScalar     *ks = shm;
  PetscReal       *xs = (PetscReal *)(ks + ni * w);
  PetscScalar     *us = (PetscScalar *)(xs + nn * DIM);

  for (int i = threadIdx.x; i < nn; i += DMASM_SH_THREADS) {
    const PetscInt v = bnode[n0 + i];
#pragma unroll
    for (int d = 0; d < DIM; d++) xs[i * DIM + d] = xn[(PetscCount)v * DIM + d];
    if (!JAC) us[i] = u[v];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < ne; i += DMASM_SH_THREADS) {
    const PetscInt e = belem[e0 + i];
    PetscReal      xl[nen * DIM], Dl[DIM * DIM];
    PetscScalar    ul[nen], vl[nper];
#pragma unroll
    for (int a = 0; a < nen; a++) {
      const int l = bloc[nen * e0 + a * ne + i];
#pragma unroll
      for (int d = 0; d < DIM; d++) xl[a * DIM + d] = xs[l * DIM + d];
      ul[a] = JAC ? 0 : us[l];
    }
    if (Ds) { /* upper triangle of an exactly symmetric D: the same values */
      int q = 0;
#pragma unroll
      for (int r = 0; r < DIM; r++)
#pragma unroll
        for (int c2 = r; c2 < DIM; c2++, q++) Dl[r * DIM + c2] = Dl[c2 * DIM + r] = Ds[(PetscCount)q * nelem + e];
    } else if (D)
#pragma unroll
      for (int q = 0; q < DIM * DIM; q++) Dl[q] = D[(PetscCount)q * nelem + e];
    DMAsmP1Element(DIM, 0, 1, alpha, beta, source, D ? Dl : NULL, 1, xl, ul, JAC ? vl : NULL, JAC ? NULL : vl);
#pragma unroll
    for (int a = 0; a < nen; a++) {
      const int j = islot[nen * e0 + a * ne + i];
      if (j == 0xFFFF) continue; /* a row no target of this block needs */
#pragma unroll
      for (int c2 = 0; c2 < w; c2++) ks[c2 * ni + j] = vl[a * w + c2];
    }
  }
  __syncthreads();
  const PetscInt r0 = rb[blockIdx.x], r1 = rb[blockIdx.x + 1], nr = r1 - r0;
  /* RANGES (a METIS plan: blocks of several ranges): the block's range table in shared memory, over the coordinates
     (dead by now) when it fits, so that each target's binary search reads shared rather than global memory; the
     contiguous plans (one range per block) run an instance without this code */
  const bool  rsh = RANGES && nr > 1 && 2 * nr <= nn * DIM;
  PetscCount *srp = (PetscCount *)xs, *srt = srp + nr;
  if (rsh) { /* block-uniform */
    for (int i = threadIdx.x; i < nr; i += DMASM_SH_THREADS) {
      srp[i] = rp[r0 + i];
      srt[i] = rt[r0 + i];
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < nt; j += DMASM_SH_THREADS) {
    const int   p1 = j + 1 < nt ? toff[t0 + j + 1] : ltot;
    PetscScalar s  = 0;
    int         p  = toff[t0 + j];
    for (; p + 7 < p1; p += 8) { /* the offsets of 8 entries in flight, then summed in list order */
      unsigned short o[8];
#pragma unroll
      for (int q = 0; q < 8; q++) o[q] = lo[l0 + p + q];
#pragma unroll
      for (int q = 0; q < 8; q++) s += ks[o[q]];
    }
    for (; p < p1; p++) s += ks[lo[l0 + p]];
    dst[rsh ? DMAsmSharedTarget(0, (PetscInt)nr, srp, srt, t0 + j) : DMAsmSharedTarget(r0, r1, rp, rt, t0 + j)] = s; /* its range's target: consecutive threads, consecutive targets */
  }
}

template <int DIM, bool JAC, bool RANGES>
static PetscErrorCode LaunchSharedR(const DMAsmP1Ctx *c, const DMAsmSharedPlan *S, PetscInt nelem, const PetscReal *xn, const PetscScalar *u, PetscScalar *dst)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (S->smem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(SharedKernel<DIM, JAC, RANGES>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S->smem));
  SharedKernel<DIM, JAC, RANGES><<<(unsigned)S->nblocks, DMASM_SH_THREADS, S->smem, stream>>>(S->dtb, S->deb, S->dnb, S->dlb, S->dbelem, S->dbnode, S->dbloc, S->dislot, S->dninc, S->dlo, S->dtoff, S->drb, S->drp, S->drt, nelem, c->alpha, c->beta, c->source, c->dD, c->dDs, xn, u, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, bool JAC>
static PetscErrorCode LaunchShared(const DMAsmP1Ctx *c, const DMAsmSharedPlan *S, PetscInt nelem, const PetscReal *xn, const PetscScalar *u, PetscScalar *dst)
{
  PetscFunctionBegin;
  if (S->nranges > S->nblocks) PetscCall(LaunchSharedR<DIM, JAC, true>(c, S, nelem, xn, u, dst));
  else PetscCall(LaunchSharedR<DIM, JAC, false>(c, S, nelem, xn, u, dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAShared(const DMAsmP1Ctx *c, const DMAsmSharedPlan *S, PetscInt nelem, const PetscReal *xn, const PetscScalar *u, PetscScalar *dst)
{
  const PetscBool jac = (PetscBool)(S->nper == S->nen * S->nen);

  PetscFunctionBegin;
  if (!S->nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGpuTimeBegin());
  if (c->dim == 3) {
    if (jac) PetscCall(LaunchShared<3, true>(c, S, nelem, xn, u, dst));
    else PetscCall(LaunchShared<3, false>(c, S, nelem, xn, u, dst));
  } else {
    if (jac) PetscCall(LaunchShared<2, true>(c, S, nelem, xn, u, dst));
    else PetscCall(LaunchShared<2, false>(c, S, nelem, xn, u, dst));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((c->dim == 3 ? 150.0 : 60.0) * (PetscLogDouble)S->eb[S->nblocks] + (PetscLogDouble)S->lb[S->nblocks]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* phase timing (DMAssemblySetPhaseTiming): an event on PETSc's stream at each phase boundary, no sync */
PetscErrorCode DMAsmCUDAPhaseRecord(DMAssembly as)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!as->timephases || as->phasen >= 4) PetscFunctionReturn(PETSC_SUCCESS);
  if (!as->phase[as->phasen]) {
    cudaEvent_t ev;
    PetscCallCUDA(cudaEventCreate(&ev));
    as->phase[as->phasen] = (void *)ev;
  }
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)as->phase[as->phasen], stream));
  as->phasen++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAPhaseTimes(DMAssembly as, PetscReal ms[3])
{
  PetscFunctionBegin;
  ms[0] = ms[1] = ms[2] = 0;
  if (as->phasen < 4) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)as->phase[3]));
  for (int i = 0; i < 3; i++) {
    float t;
    PetscCallCUDA(cudaEventElapsedTime(&t, (cudaEvent_t)as->phase[i], (cudaEvent_t)as->phase[i + 1]));
    ms[i] = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmCUDAPhaseDestroy(DMAssembly as)
{
  PetscFunctionBegin;
  for (int i = 0; i < 4; i++)
    if (as->phase[i]) {
      PetscCallCUDA(cudaEventDestroy((cudaEvent_t)as->phase[i]));
      as->phase[i] = NULL;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
