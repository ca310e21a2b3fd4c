/* The CUDA back end of the element integration (dmasmintegrate.c): one thread per element, the loop bodies of
   include/petscellwarp/private/dmasmintegrate.h (the same source as the OpenMP host back end).  Element data are
   entry-major (coalesced without the paper's shared-memory staging of the input); the paper's placement choice is a
   template parameter: nothing (all in registers), the coefficients, the shape-function values/derivatives, or the
   A^e/b^e accumulators in shared memory (stride blockDim: consecutive threads, consecutive words).  The reference data
   travel as a __grid_constant__ kernel parameter (constant bank: every thread of a warp reads the same word). */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmintegrate.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

/* PLACE 4 and 5: all in registers, capped at 128 / 64 registers per thread (2 / 4 blocks of 256 per SM): occupancy
   against spills, the paper's register-pressure trade-off */
template <int ELEM, int PROB, int VAR, int PLACE>
__global__ static void __launch_bounds__(256, PLACE == 4 ? 2 : PLACE == 5 ? 4 : 1) IGKernel(const __grid_constant__ DMAsmIntegRef R, int mode, PetscInt nelem, const PetscReal *__restrict__ xe, const PetscReal *__restrict__ coef, PetscInt cstride, const PetscScalar *__restrict__ ue, PetscScalar *__restrict__ ke, PetscScalar *__restrict__ fe)
{
  extern __shared__ PetscReal igsm[];
  const PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  PetscReal      cfr[PLACE == DMASM_IG_PLACE_COEF ? 1 : DMASM_IG_NCDR], phr[PLACE == DMASM_IG_PLACE_PHI ? 1 : 4 * DMASM_IG_MAXS], aer[PLACE == DMASM_IG_PLACE_AE ? 1 : DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS];
  PetscReal     *cf = PLACE == DMASM_IG_PLACE_COEF ? igsm + threadIdx.x : cfr;
  PetscReal     *ph = PLACE == DMASM_IG_PLACE_PHI ? igsm + threadIdx.x : phr;
  PetscReal     *ae = PLACE == DMASM_IG_PLACE_AE ? igsm + threadIdx.x : aer;
  const int      s  = (int)blockDim.x;

  if (e >= nelem) return; /* no barrier: every thread uses its own shared words only */
  DMAsmIGElement(&R, ELEM, PROB, VAR, mode, e, nelem, xe, coef, cstride, ue, ke, fe, cf, PLACE == DMASM_IG_PLACE_COEF ? s : 1, ph, PLACE == DMASM_IG_PLACE_PHI ? s : 1, ae, PLACE == DMASM_IG_PLACE_AE ? s : 1);
}

typedef void (*IGKernelFn)(const DMAsmIntegRef, int, PetscInt, const PetscReal *, const PetscReal *, PetscInt, const PetscScalar *, PetscScalar *, PetscScalar *);

#define IG_P(E, P, V) {IGKernel<E, P, V, 0>, IGKernel<E, P, V, 1>, IGKernel<E, P, V, 2>, IGKernel<E, P, V, 3>, IGKernel<E, P, V, 4>, IGKernel<E, P, V, 5>}
#define IG_V(E, P)    {IG_P(E, P, 0), IG_P(E, P, 1), IG_P(E, P, 2)}
static const IGKernelFn IGKernels[2][2][3][DMASM_IG_NPLACE] = {
  {IG_V(0, 0), IG_V(0, 1)},
  {IG_V(1, 0), IG_V(1, 1)}
};

/* shared words per thread of a placement */
static int IGSharedWords(int elem, int prob, int place)
{
  const int ns = elem == DMASM_IG_TET ? 4 : 6;
  switch (place) {
  case DMASM_IG_PLACE_COEF:
    return prob == DMASM_IG_POISSON ? ns : DMASM_IG_NCDR;
  case DMASM_IG_PLACE_PHI:
    return 4 * ns;
  case DMASM_IG_PLACE_AE:
    return ns * ns + ns;
  default:
    return 0;
  }
}

static PetscErrorCode IGLaunch(cudaStream_t stream, const DMAsmIntegRef *R, int elem, int prob, int var, int place, int block, int mode, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  static int      attrset[2][2][3][DMASM_IG_NPLACE];
  const size_t    smem = sizeof(PetscReal) * (size_t)IGSharedWords(elem, prob, place) * block;
  const PetscInt  nb   = (nelem + block - 1) / block;
  IGKernelFn      k;

  PetscFunctionBegin;
  PetscCheck(elem >= 0 && elem < 2 && prob >= 0 && prob < 2 && var >= 0 && var < 3 && place >= 0 && place < DMASM_IG_NPLACE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: no device instance (%d, %d, %d, %d)", elem, prob, var, place);
  PetscCheck(block == 64 || block == 128 || block == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: block %d", block);
  PetscCheck(nb <= 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: %" PetscInt_FMT " elements exceed one grid", nelem);
  k = IGKernels[elem][prob][var][place];
  if (!attrset[elem][prob][var][place] && smem > 48 * 1024) { /* up to 42 words x 256 threads = 84 kB */
    PetscCallCUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(sizeof(PetscReal) * 42 * 256)));
    attrset[elem][prob][var][place] = 1;
  }
  k<<<(unsigned)nb, (unsigned)block, smem, stream>>>(*R, mode, nelem, xe, coef, cstride, ue, ke, fe);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmIGCUDAApply(const DMAsmIntegRef *R, int elem, int prob, int var, int place, int block, int mode, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(IGLaunch(stream, R, elem, prob, var, place, block, mode, nelem, xe, coef, cstride, ue, ke, fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmIGCUDATime(const DMAsmIntegRef *R, int elem, int prob, int var, int place, int block, int mode, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, int reps, PetscReal *ms)
{
  cudaStream_t stream;
  cudaEvent_t  t0, t1;

  PetscFunctionBegin;
  *ms = 0;
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  PetscCall(IGLaunch(stream, R, elem, prob, var, place, block, mode, nelem, xe, coef, cstride, ue, ke, fe)); /* warm-up */
  *ms = PETSC_MAX_REAL;
  for (int r = 0; r < reps; r++) {
    float t;
    PetscCallCUDA(cudaEventRecord(t0, stream));
    PetscCall(IGLaunch(stream, R, elem, prob, var, place, block, mode, nelem, xe, coef, cstride, ue, ke, fe));
    PetscCallCUDA(cudaEventRecord(t1, stream));
    PetscCallCUDA(cudaEventSynchronize(t1));
    PetscCallCUDA(cudaEventElapsedTime(&t, t0, t1));
    *ms = PetscMin(*ms, (PetscReal)t);
  }
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the device's own roofline (DMAssemblyIntegrationRoofline()): a copy kernel and an FMA kernel ---- */
__global__ static void IGCopyKernel(PetscInt n, const double *__restrict__ x, double *__restrict__ y)
{
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) y[i] = x[i];
}

/* 8 independent FMA chains per thread (enough to cover the FMA latency with a few warps per scheduler) */
__global__ static void IGFMAKernel(int iters, double b, double c, double *out)
{
  double a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iters; i++) {
    a0 = fma(a0, b, c);
    a1 = fma(a1, b, c);
    a2 = fma(a2, b, c);
    a3 = fma(a3, b, c);
    a4 = fma(a4, b, c);
    a5 = fma(a5, b, c);
    a6 = fma(a6, b, c);
    a7 = fma(a7, b, c);
  }
  if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == 12345.678) out[0] = a0; /* keeps the chains alive */
}

PetscErrorCode DMAsmIGCUDARoofline(PetscInt n, PetscReal *bw, PetscReal *flops)
{
  double     *x, *y;
  cudaEvent_t t0, t1;
  float       ms, best = 1e30f;
  int         dev, nsm;
  const int   iters = 4096;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)&x, sizeof(double) * n));
  PetscCallCUDA(cudaMalloc((void **)&y, sizeof(double) * n));
  PetscCallCUDA(cudaMemset(x, 0, sizeof(double) * n));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  for (int r = 0; r < 6; r++) {
    PetscCallCUDA(cudaEventRecord(t0));
    IGCopyKernel<<<nsm * 8, 256>>>(n, x, y);
    PetscCallCUDA(cudaEventRecord(t1));
    PetscCallCUDA(cudaEventSynchronize(t1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, t0, t1));
    if (r) best = PetscMin(best, ms);
  }
  *bw  = 2.0 * sizeof(double) * n / (best * 1e-3);
  best = 1e30f;
  for (int r = 0; r < 4; r++) {
    PetscCallCUDA(cudaEventRecord(t0));
    IGFMAKernel<<<nsm * 16, 256>>>(iters, 0.999999, 1e-7, y);
    PetscCallCUDA(cudaEventRecord(t1));
    PetscCallCUDA(cudaEventSynchronize(t1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, t0, t1));
    if (r) best = PetscMin(best, ms);
  }
  PetscCallCUDA(cudaGetLastError());
  *flops = 2.0 * 8 * iters * (double)nsm * 16 * 256 / (best * 1e-3);
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  PetscCallCUDA(cudaFree(x));
  PetscCallCUDA(cudaFree(y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
