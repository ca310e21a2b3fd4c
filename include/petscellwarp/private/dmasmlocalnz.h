/* localnz's device walk, shared by the P1 kernel (dmasmcuda.cu) and the Lagrange one (dmasmhocuda.cu): block order[b]
   of globalnz's packed plan, each thread down its column in list order (as ReduceKernel and the host reference
   DMAsmHostLocalNZ walk it), every source entry k*nelem + e computed by entry(k, e) instead of read from memory.
   Dynamic shared memory: C values (the block's targets, stored coalesced at the end). */
#pragma once

#if defined(__CUDACC__)
template <int BLOCK, typename I, typename Entry>
__device__ __forceinline__ void DMAsmLocalNZBlock(PetscInt C, PetscCount ntarget, const PetscCount *__restrict__ blkptr, const int *__restrict__ order, const I *__restrict__ packed, PetscInt nelem, const Entry &entry, PetscScalar *__restrict__ dst)
{
  extern __shared__ PetscScalar sm[];
  const PetscInt   b   = order[blockIdx.x];
  const PetscCount t0  = (PetscCount)b * C;
  const PetscInt   nt  = (PetscInt)(ntarget - t0 < C ? ntarget - t0 : C);
  const PetscCount end = blkptr[b + 1];
  PetscScalar      s   = 0;

  for (PetscInt i = threadIdx.x; i < nt; i += BLOCK) sm[i] = 0;
  __syncthreads();
  for (PetscCount p = blkptr[b] + threadIdx.x; p < end; p += BLOCK) {
    const I v = __ldcs(packed + p);
    if (v > 0) {
      const PetscInt64 q = (PetscInt64)v - 1;
      const int        k = (int)(q / nelem);
      s += entry(k, (PetscInt)(q - (PetscInt64)k * nelem));
    } else if (v < 0) {
      sm[~v] = s;
      s      = 0;
    }
  }
  __syncthreads();
  for (PetscInt i = threadIdx.x; i < nt; i += BLOCK) dst[t0 + i] = sm[i];
}
#endif
