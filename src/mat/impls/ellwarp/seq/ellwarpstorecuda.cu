/* MATSEQELLWARP, CUDA backend: the store (see ellwarpcudaimpl.h for the other files).  The layout's arrays
   in device memory: uploaded from a host layout, or taken over from the device analysis (ellwarpanalysis.cu);
   the CSR staging copy; and the table of kernels the Mat calls through (EllwarpCUDAKernels). */
#include <petscellwarp/private/ellwarpcudaimpl.h>

PetscErrorCode EllwarpCUDADeviceAvailable(PetscBool *avail)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  PetscFunctionBegin;
  if (err != cudaSuccess) (void)cudaGetLastError();
  *avail = (PetscBool)(err == cudaSuccess && n > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACreate(const EllwarpLayout *L, EllwarpStore **out)
{
  EllwarpStore *S;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Upload, 0, 0, 0, 0));
  PetscCall(PetscNew(&S));
  S->L = L;
  PetscCall(Upload(&S->sliceptr, L->sliceptr, L->nslices + 1, "slice offsets"));
  PetscCall(Upload(&S->slicerow, L->slicerow, L->nslices + 1, "slice rows"));
  PetscCall(Upload(&S->meta, L->meta, L->nslices, "slice formats"));
  PetscCall(Upload(&S->colbase, L->colbase, L->nslices, "column offsets"));
  PetscCall(Upload(&S->rowperm, L->rowperm, L->nrows, "row permutation"));
  PetscCall(Upload(&S->col32, L->col32, L->ncol32 + (L->nslots - L->nsliceslots), "column indices"));
  PetscCall(Upload(&S->col16, L->col16, L->ncol16, "16-bit column offsets"));
  PetscCall(Upload(&S->colbias, L->colbias, L->ncolbias, "column biases"));
  PetscCall(Upload(&S->biasbase, L->biasbase, L->nslices, "bias offsets"));
  PetscCall(Upload(&S->slot2csr, L->slot2csr, L->nslots, "value map"));
  PetscCall(Upload(&S->diagslot, L->diagslot, L->nrows, "diagonal slots"));
  PetscCall(Upload(&S->longptr, L->longptr, L->nlong + 1, "long rows"));
  PetscCall(Upload(&S->longchunk, L->longchunk, L->nlong + 1, "long-row chunks"));
  PetscCall(Upload(&S->chunkptr, L->chunkptr, L->nchunks + 1, "chunks"));
  PetscCall(Upload(&S->chunkrow, L->chunkrow, L->nchunks, "chunk rows"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->count, L->nlong * sizeof(int), "chunk counters"));
  if (L->nlong) PetscCallCUDA(cudaMemsetAsync(S->count, 0, L->nlong * sizeof(int), stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->partial, L->nchunks * sizeof(PetscScalar), "chunk sums"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->val, L->nslots * sizeof(PetscScalar), "values"));
  if (L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, L->nslots * sizeof(PetscScalar), stream)); /* padding is zero for good: the refreshes skip it */
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->work, ELLWARP_RED_BLOCKS * sizeof(PetscReal), "reduction"));
  *out = S;
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Upload, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the store of a layout built by the device analysis (ellwarpanalysis.cu): its arrays are taken over */
PetscErrorCode EllwarpCUDACreateFromDevice(const EllwarpLayout *L, EllwarpDeviceArrays *a, EllwarpStore **out)
{
  EllwarpStore *S;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscNew(&S));
  S->L         = L;
  S->sliceptr  = a->sliceptr;
  S->slicerow  = a->slicerow;
  S->meta      = a->meta;
  S->colbase   = a->colbase;
  S->rowperm   = a->rowperm;
  S->col32     = a->col32;
  S->col16     = a->col16;
  S->colbias   = a->colbias;
  S->biasbase  = a->biasbase;
  S->slot2csr  = a->slot2csr;
  S->diagslot  = a->diagslot;
  S->longptr   = a->longptr;
  S->longchunk = a->longchunk;
  S->chunkptr  = a->chunkptr;
  S->chunkrow  = a->chunkrow;
  PetscCall(PetscMemzero(a, sizeof(*a)));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->count, L->nlong * sizeof(int), "chunk counters"));
  if (L->nlong) PetscCallCUDA(cudaMemsetAsync(S->count, 0, L->nlong * sizeof(int), stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->partial, L->nchunks * sizeof(PetscScalar), "chunk sums"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->val, L->nslots * sizeof(PetscScalar), "values"));
  if (L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, L->nslots * sizeof(PetscScalar), stream)); /* padding is zero for good: the refreshes skip it */
  PetscCall(PetscEllwarpDeviceMalloc((void **)&S->work, ELLWARP_RED_BLOCKS * sizeof(PetscReal), "reduction"));
  *out = S;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void EllwarpCUDAStoreArrays(const EllwarpStore *S, EllwarpDeviceArrays *a)
{
  a->sliceptr  = S->sliceptr;
  a->slicerow  = S->slicerow;
  a->meta      = S->meta;
  a->colbase   = S->colbase;
  a->rowperm   = S->rowperm;
  a->col32     = S->col32;
  a->col16     = S->col16;
  a->colbias   = S->colbias;
  a->biasbase  = S->biasbase;
  a->slot2csr  = S->slot2csr;
  a->diagslot  = S->diagslot;
  a->longptr   = S->longptr;
  a->longchunk = S->longchunk;
  a->chunkptr  = S->chunkptr;
  a->chunkrow  = S->chunkrow;
}

static PetscErrorCode CUDADestroy(EllwarpStore **S)
{
  PetscFunctionBegin;
  if (!*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read the arrays */
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->sliceptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->slicerow));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->meta));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col32));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->col16));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->colbias));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->biasbase));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->longptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->longchunk));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->chunkptr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->chunkrow));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->count));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->partial));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->slot2csr));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->diagslot));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->val));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->work));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coojmap));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->cooperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coo2slot));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coobuf));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowstart));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->rowlen));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coostart));
  PetscCall(PetscEllwarpDeviceFreeArray(&(*S)->coolen));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRAlloc(PetscCount n, PetscScalar **p)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMalloc((void **)p, n * sizeof(PetscScalar), "CSR values"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRFree(PetscScalar **p)
{
  PetscFunctionBegin;
  if (*p) PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read it */
  PetscCall(PetscEllwarpDeviceFreeArray(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRUpload(PetscCount n, const PetscScalar *h, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (n) PetscCallCUDA(cudaMemcpyAsync(d, h, n * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu(n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CUDACSRDownload(PetscCount n, const PetscScalar *d, PetscScalar *h)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceDownload(h, d, n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CUDASetTune(EllwarpStore *S, const EllwarpTune *t)
{
  S->tune = t;
}

const EllwarpKernelOps EllwarpCUDAKernels = {CUDACreate, CUDADestroy, EllwarpCUDAGather, EllwarpCUDAScatter, EllwarpCUDAMult, EllwarpCUDAScale, EllwarpCUDAShift, EllwarpCUDAGetDiag, EllwarpCUDADiagScale, EllwarpCUDAZeroMasked, EllwarpCUDAAXPY, EllwarpCUDACopy, EllwarpCUDANorm, EllwarpCUDASetRows, CUDACSRAlloc, CUDACSRFree, CUDACSRUpload, CUDACSRDownload, EllwarpCUDACOOSetup, EllwarpCUDACOOValues, EllwarpCUDAZero, EllwarpCUDADiagMissing, CUDASetTune};

/* the layout's value array (device), for writers that fill the slots directly (the DM assembler) */
PetscScalar *EllwarpCUDAStoreValues(EllwarpStore *S)
{
  return S->val;
}

/* the layout's slot -> CSR map (device), for the blocked layout's refresh by slot map */
const PetscInt *EllwarpCUDAStoreSlot2CSR(const EllwarpStore *S)
{
  return S->slot2csr;
}
