/* The compact fused atomic Jacobian kernel (-dm_assembly_atomic_variant compact|agg); plan and plain-C
   reference: dmasmfast.c; design: include/petscellwarp/private/dmasmfast.h. */
#include <petscellwarp/private/dmasmfast.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

#define DMASM_FAST_THREADS 128

/* element e of the compact plan, for FastKernel and HashKernel: its nodes' coordinates and slot bases (rb, sh) from the
   node records, D (identity, its upper triangle when SYM, or the whole), and the element matrix ke */
template <int DIM, bool SYM>
__device__ __forceinline__ void FastElement(PetscInt e, PetscInt nelem, PetscReal alpha, PetscReal beta, const PetscReal *__restrict__ D, const PetscInt *__restrict__ enode, const DMAsmFastNode *__restrict__ node, PetscScalar ke[], int rb[], int sh[])
{
  constexpr int nen = DIM + 1;
  PetscReal     xl[nen * DIM], Dl[DIM * DIM];
#pragma unroll
  for (int a = 0; a < nen; a++) {
    const PetscInt  n  = __ldcs(enode + (PetscCount)a * nelem + e);
    const double2  *p  = (const double2 *)(node + n);
    const double2   v0 = __ldg(p), v1 = __ldg(p + 1);
    const long long bs = __double_as_longlong(v1.y);
    xl[a * DIM + 0] = v0.x;
    xl[a * DIM + 1] = v0.y;
    if (DIM == 3) xl[a * DIM + (DIM - 1)] = v1.x;
    rb[a] = (int)(bs & 0xFFFFFFFFll);
    sh[a] = (int)(bs >> 32);
  }
  if (!D) /* identity, in registers: a NULL-or-array pointer would put Dl in local memory */
#pragma unroll
    for (int q = 0; q < DIM * DIM; q++) Dl[q] = (PetscReal)(q % (DIM + 1) == 0);
  else if (SYM) { /* the upper triangle [dim(dim+1)/2][nelem] */
    int q = 0;
#pragma unroll
    for (int r = 0; r < DIM; r++)
#pragma unroll
      for (int c2 = r; c2 < DIM; c2++, q++) Dl[r * DIM + c2] = Dl[c2 * DIM + r] = __ldcs(D + (PetscCount)q * nelem + e);
  } else
#pragma unroll
    for (int q = 0; q < DIM * DIM; q++) Dl[q] = __ldcs(D + (PetscCount)q * nelem + e);
  DMAsmFastP1Element(DIM, SYM, alpha, beta, xl, Dl, ke);
}

/* one thread per element; the loop keeps whole warps together (agg and match shuffle).
   MODE 0 (compact): 16 atomics per element; 1 (agg): the lowest node's diagonal summed over runs of equal
   targets first; 2 (match): every entry summed over the lanes of the warp with the same target
   (__match_any_sync; the lowest lane adds the group's sum with one atomic) */
template <int DIM, bool SYM, int MODE>
__global__ static void __launch_bounds__(DMASM_FAST_THREADS) FastKernel(PetscInt nelem, PetscReal alpha, PetscReal beta, const PetscReal *__restrict__ D, const PetscInt *__restrict__ enode, const unsigned *__restrict__ code, const DMAsmFastNode *__restrict__ node, PetscScalar *__restrict__ dst)
{
  constexpr int      nen = DIM + 1;
  const unsigned     lane = threadIdx.x & 31;
  for (PetscInt i0 = (PetscInt)blockIdx.x * DMASM_FAST_THREADS; i0 < nelem; i0 += (PetscInt)gridDim.x * DMASM_FAST_THREADS) {
    const PetscInt e     = i0 + (PetscInt)threadIdx.x;
    bool           valid = e < nelem;
    unsigned       w[nen] = {0};
    PetscScalar    ke[nen * nen] = {0};
    int            rb[nen] = {0}, sh[nen] = {0};

    if (valid) {
#pragma unroll
      for (int a = 0; a < nen; a++) w[a] = __ldcs(code + (PetscCount)a * nelem + e);
      valid = (w[0] & 0xFFu) != DMASM_FAST_IRREGULAR;
    }
    if (valid) {
      FastElement<DIM, SYM>(e, nelem, alpha, beta, D, enode, node, ke, rb, sh);
      if (MODE != 2)
#pragma unroll
        for (int a = 0; a < nen; a++)
#pragma unroll
          for (int b = 0; b < nen; b++) {
            if (MODE == 1 && a == 0 && b == 0) continue; /* below */
            atomicAdd(dst + DMAsmFastSlot(rb[a], sh[a], (w[a] >> (8 * b)) & 0xFFu), ke[a * nen + b]);
          }
    }
    if (MODE == 2) { /* invalid lanes: keys of their own (negative), never added */
#pragma unroll
      for (int a = 0; a < nen; a++)
#pragma unroll
        for (int b = 0; b < nen; b++) {
          const int      key  = valid ? (int)DMAsmFastSlot(rb[a], sh[a], (w[a] >> (8 * b)) & 0xFFu) : -1 - (int)lane;
          const unsigned mask = __match_any_sync(0xFFFFFFFFu, key);
          const bool     lead = (unsigned)(__ffs(mask) - 1) == lane;
          unsigned       rem  = lead ? mask & (mask - 1) : 0u; /* the other lanes of the group, added by the leader */
          PetscScalar    v    = ke[a * nen + b];
          while (__any_sync(0xFFFFFFFFu, rem != 0u)) {
            const int         src = rem ? __ffs(rem) - 1 : (int)lane;
            const PetscScalar o   = __shfl_sync(0xFFFFFFFFu, v, src);
            if (rem) {
              v += o;
              rem &= rem - 1u;
            }
          }
          if (valid && lead) atomicAdd(dst + key, v);
        }
    }
    if (MODE == 1) { /* the lowest node's diagonal: one atomic per run of equal targets in the warp (elements
                  numbered by their lowest dof: ~5 consecutive elements share it); invalid lanes get keys of
                  their own */
      const long long key  = valid ? (long long)DMAsmFastSlot(rb[0], sh[0], w[0] & 0xFFu) : -1 - (long long)lane;
      PetscScalar     v    = valid ? ke[0] : 0;
      const long long prev = __shfl_up_sync(0xFFFFFFFFu, key, 1);
      const bool      head = lane == 0 || prev != key;
      const unsigned  hm   = __ballot_sync(0xFFFFFFFFu, head);
      const int       segstart = 31 - __clz(hm & (0xFFFFFFFFu >> (31 - lane))); /* the last head at or before this lane */
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) { /* segmented inclusive scan */
        const PetscScalar o = __shfl_up_sync(0xFFFFFFFFu, v, off);
        if ((int)lane - off >= segstart) v += o;
      }
      if (valid && (lane == 31 || ((hm >> (lane + 1)) & 1u))) atomicAdd(dst + key, v); /* the run's last lane */
    }
  }
}

/* hash: each block (128 elements) sums its entries in a shared-memory table first, then adds each distinct
   target once.  The table is DMASM_HASH_GROUPS groups of 4 slots; target t goes to column t & 3 of a group
   chosen by a hash of its 32-byte sector t >> 2 (linear probing on collision), so the 4 targets of a sector sit
   side by side and the flush (consecutive threads, consecutive table entries) hits few sectors per warp.
   A warp of 32 consecutive elements has ~6 distinct targets per element in ~2.5 sectors (LV mesh, RCM), against
   16 atomics in ~7 sectors per element without it.  After maxprobe groups (a full column) the entry goes
   straight to global memory. */
#define DMASM_HASH_GROUPS 512 /* per 128 threads; hash256: 256 threads, 1024 groups, 48 kB */
template <int DIM, bool SYM, int NTH>
__global__ static void __launch_bounds__(NTH) HashKernel(PetscInt nelem, PetscReal alpha, PetscReal beta, const PetscReal *__restrict__ D, const PetscInt *__restrict__ enode, const unsigned *__restrict__ code, const DMAsmFastNode *__restrict__ node, int maxprobe, PetscScalar *__restrict__ dst)
{
  constexpr int  nen = DIM + 1, NG = DMASM_HASH_GROUPS * (NTH / 128), NT = 4 * NG, HB = NTH == 256 ? 10 : 9;
  __shared__ int hkey[NT];
  __shared__ PetscScalar hval[NT];
  const PetscInt e = (PetscInt)blockIdx.x * NTH + (PetscInt)threadIdx.x;
  unsigned       w[nen];

  for (int p = threadIdx.x; p < NT; p += NTH) {
    hkey[p] = -1;
    hval[p] = 0;
  }
  __syncthreads();
  if (e < nelem) {
#pragma unroll
    for (int a = 0; a < nen; a++) w[a] = __ldcs(code + (PetscCount)a * nelem + e);
  }
  if (e < nelem && (w[0] & 0xFFu) != DMASM_FAST_IRREGULAR) {
    PetscScalar ke[nen * nen];
    int         rb[nen], sh[nen];
    FastElement<DIM, SYM>(e, nelem, alpha, beta, D, enode, node, ke, rb, sh);
#pragma unroll
    for (int a = 0; a < nen; a++)
#pragma unroll
      for (int b = 0; b < nen; b++) {
        const int      t    = (int)DMAsmFastSlot(rb[a], sh[a], (w[a] >> (8 * b)) & 0xFFu);
        const unsigned sec  = (unsigned)t >> 2;
        unsigned       g    = (sec * 2654435769u) >> (32 - HB); /* Fibonacci hash of the sector, HB bits = NG groups */
        bool           done = false;
        for (int probe = 0; probe < maxprobe; probe++, g = (g + 1) & (NG - 1)) {
          const int p   = (int)(g * 4) + (t & 3);
          int       old = hkey[p];
          if (old == -1) old = atomicCAS(&hkey[p], -1, t);
          if (old == -1 || old == t) {
            atomicAdd(&hval[p], ke[a * nen + b]);
            done = true;
            break;
          }
        }
        if (!done) atomicAdd(dst + t, ke[a * nen + b]); /* column full */
      }
  }
  __syncthreads();
  for (int p = threadIdx.x; p < NT; p += NTH) {
    const int t = hkey[p];
    if (t >= 0) atomicAdd(dst + t, hval[p]);
  }
}

template <int DIM, int MODE>
static void Launch(const DMAsmP1Ctx *c, const DMAsmFastPlan *F, const PetscReal *D, PetscBool sym, unsigned g, cudaStream_t s, PetscScalar *dst)
{
  if (sym) FastKernel<DIM, true, MODE><<<g, DMASM_FAST_THREADS, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, dst);
  else FastKernel<DIM, false, MODE><<<g, DMASM_FAST_THREADS, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, dst);
}

PetscErrorCode DMAsmCUDAFast(const DMAsmP1Ctx *c, const DMAsmFastPlan *F, PetscInt mode, PetscInt maxprobe, PetscScalar *dst)
{
  cudaStream_t     s = NULL;
  const PetscCount nb = (F->nelem + DMASM_FAST_THREADS - 1) / DMASM_FAST_THREADS;
  const unsigned   g  = (unsigned)PetscMax((PetscCount)1, PetscMin(nb, (PetscCount)2147483647));
  const PetscReal *D  = NULL;

  PetscFunctionBegin;
  if (!F->nelem) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->D) {
    PetscCheck(!F->sym || c->dDs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "atomic variant: symmetric D without its device upper triangle");
    D = F->sym ? c->dDs : c->dD;
  }
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCheck(mode < 3 || F->ntarget <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "hash: 32-bit keys");
  if (mode == 3) {
    const int mp = (int)PetscMax(1, PetscMin(maxprobe, (PetscInt)DMASM_HASH_GROUPS));
    if (F->nen == 4) {
      if (F->sym) HashKernel<3, true, 128><<<g, 128, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
      else HashKernel<3, false, 128><<<g, 128, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
    } else {
      if (F->sym) HashKernel<2, true, 128><<<g, 128, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
      else HashKernel<2, false, 128><<<g, 128, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
    }
  } else if (mode == 4) {
    const int      mp = (int)PetscMax(1, PetscMin(maxprobe, (PetscInt)2 * DMASM_HASH_GROUPS));
    const unsigned g2 = (unsigned)PetscMax((PetscCount)1, PetscMin((F->nelem + 255) / 256, (PetscCount)2147483647));
    if (F->nen == 4) {
      if (F->sym) HashKernel<3, true, 256><<<g2, 256, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
      else HashKernel<3, false, 256><<<g2, 256, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
    } else {
      if (F->sym) HashKernel<2, true, 256><<<g2, 256, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
      else HashKernel<2, false, 256><<<g2, 256, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, mp, dst);
    }
  } else if (F->nen == 4) {
    if (mode == 1) Launch<3, 1>(c, F, D, F->sym, g, s, dst);
    else if (mode == 2) Launch<3, 2>(c, F, D, F->sym, g, s, dst);
    else Launch<3, 0>(c, F, D, F->sym, g, s, dst);
  } else {
    if (mode == 1) Launch<2, 1>(c, F, D, F->sym, g, s, dst);
    else if (mode == 2) Launch<2, 2>(c, F, D, F->sym, g, s, dst);
    else Launch<2, 0>(c, F, D, F->sym, g, s, dst);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((F->nen == 4 ? 150.0 : 60.0) * F->nelem + (PetscLogDouble)F->nen * F->nen * F->nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}
