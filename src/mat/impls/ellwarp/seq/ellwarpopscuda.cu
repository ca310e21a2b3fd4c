/* MATSEQELLWARP, CUDA backend: the Mat operations on the values other than the products and the refreshes:
   scale, shift, diagonal, diagonal scaling, zero rows/columns, AXPY, copy, norms, zero, missing diagonals. */
#include <petscellwarp/private/ellwarpcudaimpl.h>

/* one thread per (slice lane): visit the lane's slots with their row and column */
#define SLICE_LANE_PROLOGUE \
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1); \
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES; \
  if (s >= d.nslices + d.nlong) return; \
  if (s >= d.nslices) { /* a long row: its lanes stride over its entries */ \
    const PetscInt q   = s - d.nslices; \
    const PetscInt row = d.rowperm[q]; \
    for (PetscCount slot = d.longptr[q] + lane; slot < d.longptr[q + 1]; slot += ELLWARP_LANES) { \
      const int col = d.col32[d.longcolbase + (slot - d.longptr[0])]; \
      SLOT_BODY; \
    } \
    return; \
  } \
  const PetscCount base = d.sliceptr[s]; \
  const int        w    = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES); \
  const int        meta = d.meta[s]; \
  const PetscInt   r    = d.slicerow[s] + (lane >> (meta & 15)); \
  if (r >= d.slicerow[s + 1]) return; \
  const PetscInt row = d.rowperm[r]; \
  for (int k = 0; k < w; k++) { \
    const PetscCount off  = (PetscCount)k * ELLWARP_LANES + lane, slot = base + off; \
    int              col; \
    if (meta & 16) { /* bit 5: from row + bias[k * tpr + j] */ \
      const short cc = d.col16[d.colbase[s] + off]; \
      if (meta & 64) /* bit 6: a dictionary code (window, column in it) */ \
        col = cc == ELLWARP_DICT_PAD ? -1 : EllwarpDictCol(bz.colbias + bz.biasbase[s], (unsigned short)cc, 0); \
      else col = cc == ELLWARP_PAD16 ? -1 : (int)(row + ((meta & 32) ? bz.colbias[bz.biasbase[s] + (k << (meta & 15)) + (lane & ((1 << (meta & 15)) - 1))] : 0) + cc); \
    } else col = d.col32[d.colbase[s] + off]; \
    if (col < 0) continue; \
    SLOT_BODY; \
  }

__global__ static void DiagScaleKernel(DevLayout d, DevBias bz, PetscScalar *val, const PetscScalar *l, const PetscScalar *rr)
{
#define SLOT_BODY val[slot] *= (l ? l[row] : 1.0) * (rr ? rr[col] : 1.0)
  SLICE_LANE_PROLOGUE
#undef SLOT_BODY
}

__global__ static void ZeroMaskedKernel(DevLayout d, DevBias bz, PetscScalar *val, const char *rmask, const char *cmask, PetscScalar diag)
{
#define SLOT_BODY \
  if ((rmask && rmask[row]) || (cmask && cmask[col])) val[slot] = (col == row) ? diag : 0.0
  SLICE_LANE_PROLOGUE
#undef SLOT_BODY
}

__global__ static void ScaleKernel(PetscCount n, PetscScalar a, PetscScalar *val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) val[k] *= a;
}

/* path 3: Y += a X over the slots (the same layout; padding 0 + a 0 stays 0).  x and y are each read once:
   4 values of each loaded (128-bit, streaming) before any arithmetic, 4 stored. */
__global__ static void __launch_bounds__(256) AXPYKernel(PetscCount n, PetscScalar a, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  EW_GROUPS_LOOP(n)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= n) {
      PetscScalar xv[EW_VEC], yv[EW_VEC];
      LdVal4(x + s, xv);
      LdVal4(y + s, yv);
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) yv[i] += a * xv[i];
      StVal4(y + s, yv);
    } else
      for (PetscCount k = s; k < n; k++) y[k] += a * x[k];
  }
}

__global__ static void ShiftKernel(PetscInt n, const PetscCount *diagslot, PetscScalar a, PetscScalar *val)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (diagslot[i] >= 0) val[diagslot[i]] += a;
}

__global__ static void GetDiagKernel(PetscInt m, PetscInt n, const PetscCount *diagslot, const PetscScalar *val, PetscScalar *d)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) d[i] = (i < n && diagslot[i] >= 0) ? val[diagslot[i]] : 0.0;
}

__global__ static void SetRowsKernel(PetscInt n, const PetscInt *rows, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[rows[i]] = a * x[rows[i]];
}

/* block partials of sum |v|^2 (sq) or max |v|; the host combines them in a fixed order */
template <bool SQ>
__global__ static void ReduceKernel(PetscCount n, const PetscScalar *v, PetscReal *part)
{
  __shared__ PetscReal sh[256];
  PetscReal            acc = 0;
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) {
    PetscReal a = PetscAbsScalar(v[k]);
    acc         = SQ ? acc + a * a : (a > acc ? a : acc);
  }
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) sh[threadIdx.x] = SQ ? sh[threadIdx.x] + sh[threadIdx.x + off] : (sh[threadIdx.x + off] > sh[threadIdx.x] ? sh[threadIdx.x + off] : sh[threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

__global__ static void FillKernel(PetscCount n, PetscScalar a, PetscScalar *v)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) v[k] = a;
}

PetscErrorCode EllwarpCUDAScale(EllwarpStore *S, PetscScalar a)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslots) ScaleKernel<<<GRID(S->L->nslots, stream)>>>(S->L->nslots, a, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(S->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAShift(EllwarpStore *S, PetscScalar a)
{
  PetscInt     n = PetscMin(S->L->nrows, S->L->ncols);
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (n) ShiftKernel<<<GRID(n, stream)>>>(n, S->diagslot, a, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAGetDiag(const EllwarpStore *S, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nrows) GetDiagKernel<<<GRID(S->L->nrows, stream)>>>(S->L->nrows, S->L->ncols, S->diagslot, S->val, d);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static unsigned SliceBlocks(const EllwarpLayout *L)
{
  return (unsigned)((L->nslices + L->nlong + 7) / 8);
}

PetscErrorCode EllwarpCUDADiagScale(EllwarpStore *S, const PetscScalar *l, const PetscScalar *r)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslices + S->L->nlong) DiagScaleKernel<<<SliceBlocks(S->L), 256, 0, stream>>>(View(S), BiasView(S), S->val, l, r);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAZeroMasked(EllwarpStore *S, const char *rmask, const char *cmask, PetscScalar diag)
{
  const EllwarpLayout *L  = S->L;
  char                *dr = NULL, *dc = NULL;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (rmask) PetscCall(Upload(&dr, rmask, (size_t)L->nrows, "row mask"));
  if (cmask) PetscCall(Upload(&dc, cmask, (size_t)L->ncols, "column mask"));
  PetscCall(PetscLogGpuTimeBegin());
  if (L->nslices + L->nlong) ZeroMaskedKernel<<<SliceBlocks(L), 256, 0, stream>>>(View(S), BiasView(S), S->val, dr, dc, diag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscEllwarpDeviceFreeArray(&dr));
  PetscCall(PetscEllwarpDeviceFreeArray(&dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAAXPY(EllwarpStore *Y, PetscScalar a, const EllwarpStore *X)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (Y->L->nslots) AXPYKernel<<<GRID((Y->L->nslots + EW_VEC - 1) / EW_VEC, stream)>>>(Y->L->nslots, a, X->val, Y->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * Y->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDACopy(EllwarpStore *Y, const EllwarpStore *X)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceCopy(Y->val, X->val, Y->L->nslots * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReduceArray(const EllwarpStore *S, PetscCount n, const PetscScalar *v, PetscBool sq, PetscReal *res)
{
  PetscReal    part[ELLWARP_RED_BLOCKS];
  unsigned     nb = (unsigned)PetscMin((PetscCount)ELLWARP_RED_BLOCKS, PetscMax((PetscCount)1, (n + 255) / 256));
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (sq) ReduceKernel<true><<<nb, 256, 0, stream>>>(n, v, S->work);
  else ReduceKernel<false><<<nb, 256, 0, stream>>>(n, v, S->work);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(part, S->work, nb * sizeof(PetscReal)));
  *res = 0;
  for (unsigned b = 0; b < nb; b++) *res = sq ? *res + part[b] : PetscMax(*res, part[b]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDANorm(const EllwarpStore *S, NormType type, PetscReal *nrm)
{
  const EllwarpLayout *L = S->L;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (type == NORM_FROBENIUS) {
    PetscCall(ReduceArray(S, L->nslots, S->val, PETSC_TRUE, nrm));
    *nrm = PetscSqrtReal(*nrm);
  } else { /* max row sum of |a_ij|: a product of |A| with ones */
    PetscScalar *ones, *rs;
    PetscCheck(type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "Norm type %s is computed through the transpose", NormTypes[type]);
    PetscCall(PetscEllwarpDeviceMalloc((void **)&ones, L->ncols * sizeof(PetscScalar), "norm work"));
    PetscCall(PetscEllwarpDeviceMalloc((void **)&rs, L->nrows * sizeof(PetscScalar), "norm work"));
    if (L->ncols) FillKernel<<<GRID(L->ncols, stream)>>>(L->ncols, 1.0, ones);
    if (L->nrows) FillKernel<<<GRID(L->nrows, stream)>>>(L->nrows, 0.0, rs);
    PetscCall(EllwarpCUDALaunchMult(S, 256, ones, S->val, NULL, rs, PETSC_TRUE));
    PetscCall(ReduceArray(S, L->nrows, rs, PETSC_FALSE, nrm)); /* ends with a stream synchronization */
    PetscCall(PetscEllwarpDeviceFreeArray(&ones));
    PetscCall(PetscEllwarpDeviceFreeArray(&rs));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDASetRows(PetscInt n, const PetscInt *rows, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  PetscInt    *d;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(Upload(&d, rows, (size_t)n, "row list"));
  SetRowsKernel<<<GRID(n, stream)>>>(n, d, a, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscEllwarpDeviceFreeArray(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAZero(EllwarpStore *S)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (S->L->nslots) PetscCallCUDA(cudaMemsetAsync(S->val, 0, (size_t)S->L->nslots * sizeof(PetscScalar), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ static void DiagMissingKernel(PetscInt n, const PetscInt *rows, PetscInt ncols, const PetscCount *diagslot, int *missing)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (rows[i] >= ncols || diagslot[rows[i]] < 0) *missing = 1;
}

/* the missing-diagonal check of MatZeroRows on the device: the layout's arrays stay there */
PetscErrorCode EllwarpCUDADiagMissing(const EllwarpStore *S, PetscInt n, const PetscInt *rows, PetscBool *missing)
{
  PetscInt    *d;
  int         *flag, h = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  *missing = PETSC_FALSE;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(Upload(&d, rows, (size_t)n, "row list"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&flag, sizeof(int), "flag"));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(int), stream));
  DiagMissingKernel<<<GRID(n, stream)>>>(n, d, S->L->ncols, S->diagslot, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&h, flag, sizeof(int)));
  PetscCall(PetscEllwarpDeviceFreeArray(&d));
  PetscCall(PetscEllwarpDeviceFreeArray(&flag));
  *missing = (PetscBool)(h != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}
