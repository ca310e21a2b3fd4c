/* The device layer: streams and device memory for the whole library (see
   include/petscellwarp/private/ellwarpdevice.h for why it exists).  Only this file calls cudaMalloc/cudaFree. */
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>

PetscErrorCode PetscEllwarpGetStream(cudaStream_t *s)
{
  PetscFunctionBegin;
  *s = NULL;
  PetscCall(PetscGetCurrentCUDAStream(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceSynchronize(void)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the out-of-memory error of both allocators: what, how much, and how much the device has free */
static PetscErrorCode OutOfMemory(size_t bytes, const char what[])
{
  size_t freeb = 0, totalb = 0;

  PetscFunctionBegin;
  (void)cudaGetLastError(); /* clear the error so that later calls work */
  (void)cudaMemGetInfo(&freeb, &totalb);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "petsc-ellwarp: device out of memory allocating %.4g MB for %s (%.4g MB free of %.4g MB)", (double)bytes / 1e6, what ? what : "(unnamed)", (double)freeb / 1e6, (double)totalb / 1e6);
}

PetscErrorCode PetscEllwarpDeviceMalloc(void **p, size_t bytes, const char what[])
{
  cudaError_t err;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  err = cudaMalloc(p, bytes);
  if (err == cudaErrorMemoryAllocation) PetscCall(OutOfMemory(bytes, what));
  PetscCallCUDA(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceFree(void **p)
{
  PetscFunctionBegin;
  if (*p) PetscCallCUDA(cudaFree(*p));
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The default pool gives freed memory back to the driver at every synchronisation (release threshold 0), which
   makes each pattern analysis map its temporaries anew; keep up to ELLWARP_POOL_KEEP bytes instead (once per
   process, and only if nobody changed the threshold). */
#define ELLWARP_POOL_KEEP (1ull << 30)
static PetscErrorCode KeepPool(void)
{
  static PetscBool done = PETSC_FALSE;
  int              dev;
  cudaMemPool_t    pool;
  cuuint64_t       thr = 0;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
  PetscCallCUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  if (thr == 0) {
    thr = ELLWARP_POOL_KEEP;
    PetscCallCUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceMallocAsync(void **p, size_t bytes, const char what[])
{
  cudaStream_t s;
  cudaError_t  err;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KeepPool());
  PetscCall(PetscEllwarpGetStream(&s));
  err = cudaMallocAsync(p, bytes, s);
  if (err == cudaErrorMemoryAllocation) PetscCall(OutOfMemory(bytes, what));
  PetscCallCUDA(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceFreeAsync(void **p)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (*p) {
    PetscCall(PetscEllwarpGetStream(&s));
    PetscCallCUDA(cudaFreeAsync(*p, s));
  }
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceUpload(void *d, const void *h, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceDownload(void *h, const void *d, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceCopy(void *d, const void *src, size_t bytes)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(d, src, bytes, cudaMemcpyDeviceToDevice, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creating the CUDA context (driver, primary context, memory pools) takes about a second on an 80-GB H100, all of
   it waiting on the driver.  A program that knows early that it will use the device can have it made by a thread
   while it does host work (reading and refining a mesh), and join that thread before its first device call: the
   context is process-wide, so PETSc's own device initialisation then finds it ready. */
#include <pthread.h>

static pthread_t   warm_thread;
static PetscBool   warm_started = PETSC_FALSE;
static cudaError_t warm_err     = cudaSuccess;

static void *WarmUp(void *arg)
{
  (void)arg;
  warm_err = cudaFree(NULL); /* creates the primary context of the current device */
  return NULL;
}

PetscErrorCode PetscEllwarpDeviceWarmUpBegin(void)
{
  PetscFunctionBegin;
  if (warm_started) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!pthread_create(&warm_thread, NULL, WarmUp, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "petsc-ellwarp: could not start the device warm-up thread");
  warm_started = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscEllwarpDeviceWarmUpEnd(void)
{
  PetscFunctionBegin;
  if (!warm_started) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!pthread_join(warm_thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "petsc-ellwarp: could not join the device warm-up thread");
  warm_started = PETSC_FALSE;
  if (warm_err != cudaSuccess) { /* no usable device: say why, and let PETSc's initialisation report it as it would */
    PetscCall(PetscInfo(NULL, "device warm-up: %s\n", cudaGetErrorString(warm_err)));
    (void)cudaGetLastError();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
