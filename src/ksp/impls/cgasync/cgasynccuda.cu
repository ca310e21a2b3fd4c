/* KSPCGASYNC on the device: the four kernels of an iteration and the state read-back (the plain-C reference of
   each kernel, same layout and order of summation, is in cgasync.c). */
#include <petscellwarp/private/kspcgasyncimpl.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

/* the block's sums of CGA_NSUMS values by a binary tree in shared memory; then the last block to finish (the
   counter, reset by it) sums the block sums in the same way and returns true in its thread 0 with out[] set */
static __device__ bool BlockReduce(PetscReal s[CGA_NSUMS], PetscReal *partial, unsigned int *counter, PetscReal out[CGA_NSUMS])
{
  __shared__ PetscReal sh[CGA_NSUMS][CGA_BLOCK];
  __shared__ bool      last;
  const int            t  = threadIdx.x;
  const int            nb = gridDim.x;

  for (int q = 0; q < CGA_NSUMS; q++) sh[q][t] = s[q];
  __syncthreads();
  for (int h = CGA_BLOCK / 2; h > 0; h >>= 1) {
    if (t < h)
      for (int q = 0; q < CGA_NSUMS; q++) sh[q][t] = __dadd_rn(sh[q][t], sh[q][t + h]);
    __syncthreads();
  }
  if (t == 0) {
    for (int q = 0; q < CGA_NSUMS; q++) partial[q * nb + blockIdx.x] = sh[q][0];
    __threadfence();
    last = atomicInc(counter, nb - 1) == (unsigned int)(nb - 1); /* wraps to 0 for the next reduction */
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  for (int q = 0; q < CGA_NSUMS; q++) {
    PetscReal a = 0;
    for (int b = t; b < nb; b += CGA_BLOCK) a = __dadd_rn(a, ((volatile PetscReal *)partial)[q * nb + b]);
    sh[q][t] = a;
  }
  __syncthreads();
  for (int h = CGA_BLOCK / 2; h > 0; h >>= 1) {
    if (t < h)
      for (int q = 0; q < CGA_NSUMS; q++) sh[q][t] = __dadd_rn(sh[q][t], sh[q][t + h]);
    __syncthreads();
  }
  if (t == 0)
    for (int q = 0; q < CGA_NSUMS; q++) out[q] = sh[q][0];
  return t == 0;
}

__global__ void KernelReciprocal(PetscInt n, CGAsyncJacobi jac, PetscScalar *d)
{
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) {
    const PetscReal v = d[j] == 0.0 && jac.fixzero ? 1.0 : 1.0 / d[j];
    d[j]              = jac.useabs ? fabs(v) : v;
  }
}

__global__ void KernelDirection(PetscInt n, const CGAsyncState *__restrict__ st, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ dinv, const PetscScalar *__restrict__ r, PetscScalar *__restrict__ p)
{
  if (st->reason) return;
  const PetscInt  i = st->its;
  const PetscReal b = i ? st->beta / st->betaold : 0.0;
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) {
    const PetscReal zj = dinv ? __dmul_rn(dinv[j], r[j]) : z[j];
    p[j]               = i ? __dadd_rn(zj, __dmul_rn(b, p[j])) : zj;
  }
}

__global__ void KernelCurvature(PetscInt n, CGAsyncState *st, const PetscScalar *__restrict__ p, const PetscScalar *__restrict__ w, PetscReal *partial, unsigned int *counter)
{
  PetscReal s[CGA_NSUMS] = {0, 0}, out[CGA_NSUMS];

  if (st->reason) return; /* the whole grid sees the same state: no block enters the reduction */
  for (PetscInt j = (PetscInt)blockIdx.x * CGA_BLOCK + threadIdx.x; j < n; j += (PetscInt)gridDim.x * CGA_BLOCK) s[0] = __dadd_rn(s[0], __dmul_rn(p[j], w[j]));
  if (BlockReduce(s, partial, counter, out)) CGASYNC_LASTBLOCK_CURVATURE(st, out[0]);
}

__global__ void KernelUpdate(PetscInt n, CGAsyncState *st, PetscReal *norms, PetscScalar *__restrict__ x, PetscScalar *__restrict__ r, const PetscScalar *__restrict__ p, const PetscScalar *__restrict__ w, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ dinv, int reduce, PetscReal *partial, unsigned int *counter)
{
  PetscReal s[CGA_NSUMS] = {0, 0}, out[CGA_NSUMS];

  if (st->reason) return;
  /* every block reads alpha before the last block may change the state: the state changes only in the last
     block, after all blocks have passed the counter, i.e. after they read it */
  const PetscReal a        = st->alpha;
  const PetscInt  normtype = st->test.normtype;
  for (PetscInt j = (PetscInt)blockIdx.x * CGA_BLOCK + threadIdx.x; j < n; j += (PetscInt)gridDim.x * CGA_BLOCK) {
    PetscReal rj = r[j];
    if (x) {
      x[j] = __dadd_rn(x[j], __dmul_rn(a, p[j]));
      rj   = __dsub_rn(rj, __dmul_rn(a, w[j]));
      r[j] = rj;
    }
    if (reduce) {
      const PetscReal zj = dinv ? __dmul_rn(dinv[j], rj) : z[j];
      if (normtype == KSP_NORM_PRECONDITIONED) s[0] = __dadd_rn(s[0], __dmul_rn(zj, zj));
      else if (normtype == KSP_NORM_UNPRECONDITIONED) s[0] = __dadd_rn(s[0], __dmul_rn(rj, rj));
      s[1] = __dadd_rn(s[1], __dmul_rn(zj, rj));
    }
  }
  if (!reduce) return;
  if (BlockReduce(s, partial, counter, out)) CGASYNC_LASTBLOCK_UPDATE(st, norms, out[0], out[1]);
}

__global__ void KernelStart(PetscInt n, CGAsyncTest test, CGAsyncState *st, PetscReal *norms, const PetscScalar *__restrict__ r, const PetscScalar *__restrict__ z, const PetscScalar *__restrict__ dinv, PetscReal *partial, unsigned int *counter)
{
  PetscReal s[CGA_NSUMS] = {0, 0}, out[CGA_NSUMS];

  for (PetscInt j = (PetscInt)blockIdx.x * CGA_BLOCK + threadIdx.x; j < n; j += (PetscInt)gridDim.x * CGA_BLOCK) {
    const PetscReal rj = r[j], zj = dinv ? __dmul_rn(dinv[j], rj) : z[j];
    if (test.normtype == KSP_NORM_PRECONDITIONED) s[0] = __dadd_rn(s[0], __dmul_rn(zj, zj));
    else if (test.normtype == KSP_NORM_UNPRECONDITIONED) s[0] = __dadd_rn(s[0], __dmul_rn(rj, rj));
    s[1] = __dadd_rn(s[1], __dmul_rn(zj, rj));
  }
  if (BlockReduce(s, partial, counter, out)) {
    CGAsyncState z0 = {};
    z0.test         = test;
    z0.beta         = out[1];
    z0.betaold      = 1.0;
    z0.rnorm        = test.normtype == KSP_NORM_NATURAL ? sqrt(fabs(out[1])) : sqrt(out[0]);
    *st             = z0;
    norms[0]        = z0.rnorm;
  }
}

static PetscErrorCode Launch(PetscInt n, PetscInt *nb, cudaStream_t *s)
{
  PetscFunctionBegin;
  PetscCall(CGAsyncBlocks(n, nb));
  PetscCall(PetscEllwarpGetStream(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncReciprocal_CUDA(PetscInt n, CGAsyncJacobi jac, PetscScalar *d)
{
  PetscInt     nb;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(Launch(n, &nb, &s));
  KernelReciprocal<<<(unsigned)nb, CGA_BLOCK, 0, s>>>(n, jac, d);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncDirection_CUDA(PetscInt n, const CGAsyncState *st, const PetscScalar *z, const PetscScalar *dinv, const PetscScalar *r, PetscScalar *p)
{
  PetscInt     nb;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(Launch(n, &nb, &s));
  KernelDirection<<<(unsigned)nb, CGA_BLOCK, 0, s>>>(n, st, z, dinv, r, p);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuFlops(2.0 * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncCurvature_CUDA(PetscInt n, CGAsyncState *st, const PetscScalar *p, const PetscScalar *w, PetscReal *partial, unsigned int *counter)
{
  PetscInt     nb;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(Launch(n, &nb, &s));
  KernelCurvature<<<(unsigned)nb, CGA_BLOCK, 0, s>>>(n, st, p, w, partial, counter);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuFlops(2.0 * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncUpdate_CUDA(PetscInt n, CGAsyncState *st, PetscReal *norms, PetscScalar *x, PetscScalar *r, const PetscScalar *p, const PetscScalar *w, const PetscScalar *z, const PetscScalar *dinv, PetscBool reduce, PetscReal *partial, unsigned int *counter)
{
  PetscInt     nb;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(Launch(n, &nb, &s));
  KernelUpdate<<<(unsigned)nb, CGA_BLOCK, 0, s>>>(n, st, norms, x, r, p, w, z, dinv, reduce ? 1 : 0, partial, counter);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuFlops((x ? 4.0 : 0.0) * n + (reduce ? 5.0 : 0.0) * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncStart_CUDA(PetscInt n, CGAsyncTest test, CGAsyncState *st, PetscReal *norms, const PetscScalar *r, const PetscScalar *z, const PetscScalar *dinv, PetscReal *partial, unsigned int *counter)
{
  PetscInt     nb;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(Launch(n, &nb, &s));
  KernelStart<<<(unsigned)nb, CGA_BLOCK, 0, s>>>(n, test, st, norms, r, z, dinv, partial, counter);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncAlloc_CUDA(KSP_CGAsync *cg, PetscInt nb, PetscInt nnorms)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMalloc((void **)&cg->state, sizeof(CGAsyncState), "KSPCGASYNC state"));
  PetscCall(PetscEllwarpDeviceMallocArray(&cg->norms, nnorms, "KSPCGASYNC norms"));
  PetscCall(PetscEllwarpDeviceMallocArray(&cg->partial, CGA_NSUMS * nb, "KSPCGASYNC block sums"));
  PetscCall(PetscEllwarpDeviceMallocArray(&cg->counter, 1, "KSPCGASYNC block counter"));
  PetscCallCUDA(cudaMemset(cg->counter, 0, sizeof(unsigned int))); /* once: the last block of each reduction resets it */
  for (int k = 0; k < 2; k++) {
    cudaEvent_t e;
    PetscCallCUDA(cudaMallocHost((void **)&cg->hstate[k], sizeof(CGAsyncState)));
    PetscCallCUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    cg->event[k] = (void *)e;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncFree_CUDA(KSP_CGAsync *cg)
{
  PetscFunctionBegin;
  if (cg->state) PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels may still use the buffers */
  PetscCall(PetscEllwarpDeviceFree((void **)&cg->state));
  PetscCall(PetscEllwarpDeviceFreeArray(&cg->norms));
  PetscCall(PetscEllwarpDeviceFreeArray(&cg->partial));
  PetscCall(PetscEllwarpDeviceFreeArray(&cg->counter));
  for (int k = 0; k < 2; k++) {
    if (cg->hstate[k]) PetscCallCUDA(cudaFreeHost(cg->hstate[k]));
    if (cg->event[k]) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)cg->event[k]));
    cg->hstate[k] = NULL;
    cg->event[k]  = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* queue a copy of the state into read-back buffer `slot` (pinned: the copy does not wait for the host) */
PetscErrorCode CGAsyncReadBack_CUDA(KSP_CGAsync *cg, PetscInt slot)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(cg->hstate[slot], cg->state, sizeof(CGAsyncState), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)cg->event[slot], s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncWait_CUDA(KSP_CGAsync *cg, PetscInt slot)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)cg->event[slot]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncDownload_CUDA(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceDownload(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void KernelSetTest(CGAsyncState *st, CGAsyncTest test)
{
  st->test = test;
}

/* the test's parameters into the state, by a one-thread kernel (its argument travels with the launch: no copy) */
PetscErrorCode CGAsyncSetTest_CUDA(CGAsyncState *st, CGAsyncTest test)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  KernelSetTest<<<1, 1, 0, s>>>(st, test);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* capture of a batch of iterations: on a non-blocking stream of our own (PETSc's default stream is the legacy
   stream, which cannot be captured), to which PetscEllwarpGetStream() points while capturing, so that our kernels and
   MATSEQELLWARP's product are recorded.  Relaxed mode: PETSc's host-side bookkeeping inside MatMult (events on its
   own stream, attribute queries) is allowed and not recorded.  The graph is launched on PETSc's stream. */
PetscErrorCode CGAsyncGraphBegin_CUDA(KSP_CGAsync *cg)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!cg->capstream) {
    PetscCallCUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cg->capstream = (void *)s;
  }
  s = (cudaStream_t)cg->capstream;
  PetscCall(PetscEllwarpDeviceSynchronize()); /* the capture records, it does not order: nothing may be pending */
  PetscCallCUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  PetscCall(PetscEllwarpSetCaptureStream(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncGraphEnd_CUDA(KSP_CGAsync *cg)
{
  cudaGraph_t     g;
  cudaGraphExec_t e;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpSetCaptureStream(NULL));
  PetscCallCUDA(cudaStreamEndCapture((cudaStream_t)cg->capstream, &g));
  PetscCallCUDA(cudaGraphInstantiate(&e, g, 0));
  cg->graph     = (void *)g;
  cg->graphexec = (void *)e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncGraphLaunch_CUDA(KSP_CGAsync *cg)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaGraphLaunch((cudaGraphExec_t)cg->graphexec, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncGraphDestroy_CUDA(KSP_CGAsync *cg)
{
  PetscFunctionBegin;
  if (cg->graphexec) {
    PetscCall(PetscEllwarpDeviceSynchronize()); /* a replay may still run */
    PetscCallCUDA(cudaGraphExecDestroy((cudaGraphExec_t)cg->graphexec));
  }
  if (cg->graph) PetscCallCUDA(cudaGraphDestroy((cudaGraph_t)cg->graph));
  cg->graph     = NULL;
  cg->graphexec = NULL;
  if (cg->capstream) PetscCallCUDA(cudaStreamDestroy((cudaStream_t)cg->capstream));
  cg->capstream = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
