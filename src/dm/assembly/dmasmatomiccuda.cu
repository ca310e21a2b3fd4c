/* The match kernel of the fused atomic P1 Jacobian (type atomic's default variant); plan and plain-C reference:
   dmasmatomic.c; design: include/petscellwarp/private/dmasmatomic.h.  The compact, agg, hash and hash256 variants
   were removed: slower than match into both targets on an H100 (src/dm/assembly/README-atomic-variants.md). */
#include <petscellwarp/private/dmasmatomic.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

#define DMASM_FAST_THREADS 128

/* element e of the compact plan: its nodes' coordinates and slot bases (rb, sh) from the
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

/* one thread per element; the loop keeps whole warps together (they shuffle).  Every entry is summed over the
   lanes of the warp with the same target (__match_any_sync; the lowest lane adds the group's sum with one
   atomic) */
template <int DIM, bool SYM>
__global__ static void __launch_bounds__(DMASM_FAST_THREADS) MatchKernel(PetscInt nelem, PetscReal alpha, PetscReal beta, const PetscReal *__restrict__ D, const PetscInt *__restrict__ enode, const unsigned *__restrict__ code, const DMAsmFastNode *__restrict__ node, PetscScalar *__restrict__ dst)
{
  constexpr int  nen  = DIM + 1;
  const unsigned lane = threadIdx.x & 31;
  for (PetscInt i0 = (PetscInt)blockIdx.x * DMASM_FAST_THREADS; i0 < nelem; i0 += (PetscInt)gridDim.x * DMASM_FAST_THREADS) {
    const PetscInt e      = i0 + (PetscInt)threadIdx.x;
    bool           valid  = e < nelem;
    unsigned       w[nen] = {0};
    PetscScalar    ke[nen * nen] = {0};
    int            rb[nen] = {0}, sh[nen] = {0};

    if (valid) {
#pragma unroll
      for (int a = 0; a < nen; a++) w[a] = __ldcs(code + (PetscCount)a * nelem + e);
      valid = (w[0] & 0xFFu) != DMASM_FAST_IRREGULAR;
    }
    if (valid) FastElement<DIM, SYM>(e, nelem, alpha, beta, D, enode, node, ke, rb, sh);
    /* invalid lanes: keys of their own (negative), never added */
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
}

template <int DIM>
static void Launch(const DMAsmP1Ctx *c, const DMAsmFastPlan *F, const PetscReal *D, PetscBool sym, unsigned g, cudaStream_t s, PetscScalar *dst)
{
  if (sym) MatchKernel<DIM, true><<<g, DMASM_FAST_THREADS, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, dst);
  else MatchKernel<DIM, false><<<g, DMASM_FAST_THREADS, 0, s>>>(F->nelem, c->alpha, c->beta, D, F->denode, F->dcode, F->dnode, dst);
}

PetscErrorCode DMAsmCUDAFast(const DMAsmP1Ctx *c, const DMAsmFastPlan *F, PetscScalar *dst)
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
  if (F->nen == 4) Launch<3>(c, F, D, F->sym, g, s, dst);
  else Launch<2>(c, F, D, F->sym, g, s, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((F->nen == 4 ? 150.0 : 60.0) * F->nelem + (PetscLogDouble)F->nen * F->nen * F->nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}
