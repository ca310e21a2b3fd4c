/* Set-up on the device: the element pattern (CSR rows, the element entry -> nonzero map) and the packed
   reduction plans, built with CUB radix sorts and a few kernels.  They produce exactly the arrays of the host
   builders in dmasmplan.c (DMAsmBuildPattern, DMAsmBuildPlan), which are their plain-C references:
   tests/assembly_setup.c compares the two bitwise.  Why our own and not PETSc's: DMPlex preallocation and
   PetscSortRemoveDups run on the host (10-15 s each for 6 M tets); the order the plan needs (each target's
   contributions in element order, then the LPT packing of Cecka, Lew and Darve) is ours.

   How the host order is reproduced:
   - pattern: one 64-bit key row*ndof+col per element entry, plus the diagonal of every row (the host keeps
     the diagonal of a row in no element; every row of an element has it anyway), sorted; a key's first
     occurrence is a nonzero, numbered by a scan: rows and columns come out sorted, as on the host.
   - plan lists: sources enumerated in (element, entry) order and sorted stably by target: each target's list
     in element order, as the host's counting sort leaves it.
   - LPT: the targets of a block sorted stably by (block, decreasing list length), i.e. longest first, ties
     by position, as the host's key; then one thread per block runs the same heap (ties by thread index). */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>

static inline int Bits(unsigned long long v) /* bits needed to hold 0 .. v */
{
  int b = 1;
  while (b < 64 && (v >> b)) b++;
  return b;
}

#define GRID_LOOP(i, n) for (PetscCount i = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; i < (n); i += (PetscCount)gridDim.x * blockDim.x)

/* stable radix sort of (key, value) pairs on our stream: the sorted pairs end in *k and *v (the buffers may be
   swapped with the alternates) */
template <typename V>
static PetscErrorCode SortPairs(unsigned long long **k, unsigned long long **kalt, V **v, V **valt, PetscCount n, int endbit, cudaStream_t s)
{
  void  *tmp = NULL;
  size_t bytes = 0;

  PetscFunctionBegin;
  cub::DoubleBuffer<unsigned long long> K(*k, *kalt);
  cub::DoubleBuffer<V>                  W(*v, *valt);
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, K, W, (int64_t)n, 0, endbit, s));
  PetscCall(PetscEllwarpDeviceMallocAsync(&tmp, bytes, "DMAssembly set-up (sort workspace)"));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, K, W, (int64_t)n, 0, endbit, s));
  PetscCall(PetscEllwarpDeviceFreeAsync(&tmp));
  *k    = K.Current();
  *kalt = K.Alternate();
  *v    = W.Current();
  *valt = W.Alternate();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExclusiveSum(const PetscCount *in, PetscCount *out, PetscCount n, cudaStream_t s)
{
  void  *tmp = NULL;
  size_t bytes = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, (int64_t)n, s));
  PetscCall(PetscEllwarpDeviceMallocAsync(&tmp, bytes, "DMAssembly set-up (scan workspace)"));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, (int64_t)n, s));
  PetscCall(PetscEllwarpDeviceFreeAsync(&tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- pattern -------------------------------------------------------------------------------------------- */

/* keys row*ndof+col of entry q = (a*nen+b)*nelem + e, then ndof diagonal keys (value -1) */
__global__ static void PatternKeys(PetscInt nen, PetscInt nelem, PetscInt ndof, const PetscInt *__restrict__ edof, unsigned long long *__restrict__ key, PetscInt *__restrict__ val)
{
  const PetscCount nq = (PetscCount)nen * nen * nelem;
  GRID_LOOP(j, nq + ndof)
  {
    unsigned long long row, col;
    if (j < nq) {
      const PetscInt e = (PetscInt)(j % nelem), k = (PetscInt)(j / nelem), a = k / nen, b = k % nen;
      row    = (unsigned long long)edof[(PetscCount)a * nelem + e];
      col    = (unsigned long long)edof[(PetscCount)b * nelem + e];
      val[j] = (PetscInt)j;
    } else {
      row = col = (unsigned long long)(j - nq);
      val[j]    = -1;
    }
    key[j] = row * (unsigned long long)ndof + col;
  }
}

__global__ static void PatternHeads(PetscCount n, const unsigned long long *__restrict__ key, PetscCount *__restrict__ head)
{
  GRID_LOOP(k, n) head[k] = (k == 0 || key[k] != key[k - 1]) ? 1 : 0;
}

/* the nonzero of sorted key k: its column, the first nonzero of each row, and e2nz of the element entries */
__global__ static void PatternScatter(PetscCount n, PetscInt ndof, const unsigned long long *__restrict__ key, const PetscInt *__restrict__ val, const PetscCount *__restrict__ head, const PetscCount *__restrict__ id, PetscInt *__restrict__ pi, PetscInt *__restrict__ pj, PetscInt *__restrict__ e2nz)
{
  GRID_LOOP(k, n)
  {
    const unsigned long long K = key[k];
    const PetscInt           z = (PetscInt)(id[k] + head[k] - 1); /* id: heads before k (exclusive), so k's own group is the last of them, or k itself */
    if (k == 0 || K != key[k - 1]) {
      const PetscInt row = (PetscInt)(K / (unsigned long long)ndof);
      pj[z]              = (PetscInt)(K % (unsigned long long)ndof);
      if (k == 0 || (PetscInt)(key[k - 1] / (unsigned long long)ndof) != row) pi[row] = z; /* every row has its diagonal */
    }
    if (val[k] >= 0) e2nz[val[k]] = z;
  }
}

/*
  DMAsmCUDABuildPattern - the pattern of the element map dedof ([nen][nelem], device) on one process: host arrays
  pi (ndof+1), pj (nnz) and e2nz ([nen*nen][nelem]), as DMAsmBuildPattern(as, ndof, NULL, NULL, 0) builds them.
  Temporary device memory: about 24 bytes per element entry (keys, values and their sort buffers).
*/
PetscErrorCode DMAsmCUDABuildPattern(PetscInt nen, PetscInt nelem, PetscInt ndof, const PetscInt *dedof, PetscInt **pi, PetscInt **pj, PetscCount *nnz, PetscInt **e2nz)
{
  const PetscCount    nq = (PetscCount)nen * nen * nelem, n = nq + ndof;
  cudaStream_t        s;
  unsigned long long *key, *keyalt;
  PetscInt           *val, *valalt, *dpi, *dpj, *de2nz;
  PetscCount         *head, *id, last[2];

  PetscFunctionBegin;
  PetscCheck(nq < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: element entries exceed the PetscInt range");
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&key, n, "DMAssembly pattern (keys)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&keyalt, n, "DMAssembly pattern (keys)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&val, n, "DMAssembly pattern (values)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&valalt, n, "DMAssembly pattern (values)"));
  PatternKeys<<<PetscEllwarpBlocks(n, 256), 256, 0, s>>>(nen, nelem, ndof, dedof, key, val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SortPairs(&key, &keyalt, &val, &valalt, n, Bits((unsigned long long)ndof * ndof), s));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&keyalt));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&valalt));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&head, n, "DMAssembly pattern (heads)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&id, n, "DMAssembly pattern (ids)"));
  PatternHeads<<<PetscEllwarpBlocks(n, 256), 256, 0, s>>>(n, key, head);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(ExclusiveSum(head, id, n, s));
  PetscCallCUDA(cudaMemcpyAsync(&last[0], id + n - 1, sizeof(PetscCount), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaMemcpyAsync(&last[1], head + n - 1, sizeof(PetscCount), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  *nnz = last[0] + last[1];
  PetscCheck(*nnz < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the pattern exceeds the PetscInt range; configure PETSc with 64-bit indices");
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dpi, ndof + 1, "DMAssembly pattern (rows)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dpj, *nnz, "DMAssembly pattern (columns)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&de2nz, nq, "DMAssembly pattern (element map)"));
  {
    const PetscInt nz = (PetscInt)*nnz;
    PetscCallCUDA(cudaMemcpyAsync(dpi + ndof, &nz, sizeof(PetscInt), cudaMemcpyHostToDevice, s));
    PetscCallCUDA(cudaStreamSynchronize(s)); /* nz is on this stack frame */
  }
  PatternScatter<<<PetscEllwarpBlocks(n, 256), 256, 0, s>>>(n, ndof, key, val, head, id, dpi, dpj, de2nz);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&key));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&val));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&head));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&id));
  PetscCall(PetscMalloc1(ndof + 1, pi));
  PetscCall(PetscMalloc1(*nnz, pj));
  PetscCall(PetscMalloc1(nq, e2nz));
  PetscCall(PetscEllwarpDeviceDownload(*pi, dpi, sizeof(PetscInt) * (ndof + 1)));
  PetscCall(PetscEllwarpDeviceDownload(*pj, dpj, sizeof(PetscInt) * *nnz));
  PetscCall(PetscEllwarpDeviceDownload(*e2nz, de2nz, sizeof(PetscInt) * nq));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpi));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpj));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&de2nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- element entry -> target slot (the Jacobian plan's q2t) ---------------------------------------------- */

/* nz2t[k] for the pattern's nonzero k of row i: its position in the target block (ia, ja; csr2val: the slot of
   each CSR entry, NULL: the CSR position).  A missing entry sets *bad to its nonzero + 1 (the smallest wins). */
__global__ static void PatternToTarget(PetscInt n, const PetscInt *__restrict__ pi, const PetscInt *__restrict__ pj, const PetscInt *__restrict__ ia, const PetscInt *__restrict__ ja, const PetscInt *__restrict__ csr2val, PetscInt *__restrict__ nz2t, unsigned long long *bad)
{
  GRID_LOOP(i, n)
  {
    const PetscInt r0 = ia[i], r1 = ia[i + 1];
    for (PetscInt k = pi[i]; k < pi[i + 1]; k++) {
      const PetscInt at = DMAsmFindColumn(ja, r0, r1 - 1, pj[k]);
      if (at < 0) {
        atomicMin(bad, (unsigned long long)k + 1);
        nz2t[k] = -1;
      } else nz2t[k] = csr2val ? csr2val[at] : at;
    }
  }
}

__global__ static void ComposeMap(PetscCount n, const PetscInt *__restrict__ e2nz, const PetscInt *__restrict__ nz2t, PetscInt *__restrict__ q2t)
{
  GRID_LOOP(q, n) q2t[q] = e2nz[q] >= 0 ? nz2t[e2nz[q]] : -1;
}

/*
  DMAsmCUDAElementTargets - q2t[q] (device, [nen*nen][nelem]): the position in the target block's value array of
  element entry q, from the pattern (host pi, pj, e2nz) and the block's CSR (host ia, ja, csr2val), as
  EnsureJacobianPlan() computes it on the host.  A pattern entry the block lacks is an error naming it.
*/
PetscErrorCode DMAsmCUDAElementTargets(PetscInt n, PetscCount nq, const PetscInt *pi, const PetscInt *pj, const PetscInt *e2nz, const MatAssemblyBlock *B, PetscInt **dq2t)
{
  cudaStream_t        s;
  const PetscCount    nnz = pi[n], nval = B->i[B->m];
  PetscInt           *dpi, *dpj, *de2nz, *dia, *dja, *dc2v = NULL, *dnz2t;
  unsigned long long *dbad, bad = 0;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&s));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dpi, n + 1, "DMAssembly Jacobian plan (pattern rows)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dpj, nnz, "DMAssembly Jacobian plan (pattern columns)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dia, n + 1, "DMAssembly Jacobian plan (matrix rows)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dja, nval, "DMAssembly Jacobian plan (matrix columns)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dnz2t, nnz, "DMAssembly Jacobian plan (nonzero slots)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dbad, 1, "DMAssembly Jacobian plan (check)"));
  PetscCall(PetscEllwarpDeviceUpload(dpi, pi, sizeof(PetscInt) * (n + 1)));
  PetscCall(PetscEllwarpDeviceUpload(dpj, pj, sizeof(PetscInt) * nnz));
  PetscCall(PetscEllwarpDeviceUpload(dia, B->i, sizeof(PetscInt) * (n + 1)));
  PetscCall(PetscEllwarpDeviceUpload(dja, B->j, sizeof(PetscInt) * nval));
  if (B->csr2val) {
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dc2v, nval, "DMAssembly Jacobian plan (matrix slots)"));
    PetscCall(PetscEllwarpDeviceUpload(dc2v, B->csr2val, sizeof(PetscInt) * nval));
  }
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(*dbad), s));
  PatternToTarget<<<PetscEllwarpBlocks(n, 128), 128, 0, s>>>(n, dpi, dpj, dia, dja, dc2v, dnz2t, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(bad)));
  if (bad) { /* name the entry (host search: this is the error path) */
    const PetscCount k = (PetscCount)(bad - 1);
    PetscInt         row = 0;
    while (pi[row + 1] <= k) row++;
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpi)); /* nothing lost on error */
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpj));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dia));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dja));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dc2v));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dnz2t));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern; create it with DMAssemblyCreateMatrix() or DMCreateMatrix()", row, pj[k]);
  }
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpi));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dpj));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dia));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dja));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dc2v));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dbad));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&de2nz, nq, "DMAssembly Jacobian plan (element map)"));
  PetscCall(PetscEllwarpDeviceUpload(de2nz, e2nz, sizeof(PetscInt) * nq));
  PetscCall(PetscEllwarpDeviceMallocArray(dq2t, nq, "DMAssembly Jacobian plan (element entry targets)"));
  ComposeMap<<<PetscEllwarpBlocks(nq, 256), 256, 0, s>>>(nq, de2nz, dnz2t, *dq2t);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&de2nz));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dnz2t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- packed reduction plan ------------------------------------------------------------------------------ */

__global__ static void CountUsed(PetscCount n, const PetscInt *__restrict__ q2t, unsigned long long *used)
{
  unsigned long long c = 0;
  GRID_LOOP(q, n) c += q2t[q] >= 0;
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(used, c);
}

/* source j in (element, entry) order: e = j / nper, k = j % nper, q = k*nelem + e; key: its target (none:
   ntarget, sorted last) */
__global__ static void ListKeys(PetscInt nper, PetscInt nelem, PetscCount ntarget, const PetscInt *__restrict__ q2t, unsigned long long *__restrict__ key, PetscCount *__restrict__ val)
{
  GRID_LOOP(j, (PetscCount)nper * nelem)
  {
    const PetscCount e = j / nper, k = j % nper, q = k * nelem + e;
    const PetscInt   t = q2t[q];
    key[j]             = t >= 0 ? (unsigned long long)t : (unsigned long long)ntarget;
    val[j]             = q;
  }
}

/* tptr[t] = first sorted position with key >= t, t = 0 .. ntarget */
__global__ static void ListStarts(PetscCount n, PetscCount ntarget, const unsigned long long *__restrict__ key, PetscCount *__restrict__ tptr)
{
  GRID_LOOP(k, n + 1)
  {
    const long long prev = k == 0 ? -1 : (long long)key[k - 1];
    const long long cur  = k == n ? (long long)ntarget : PetscMin((long long)key[k], (long long)ntarget);
    for (long long t = prev + 1; t <= cur; t++) tptr[t] = k;
  }
}

/* LPT key of target t (block b = t / C): (b, decreasing length); sorted stably, ties keep the position */
__global__ static void LptKeys(PetscCount ntarget, PetscInt C, const PetscCount *__restrict__ tptr, unsigned long long *__restrict__ key, PetscCount *__restrict__ val)
{
  GRID_LOOP(t, ntarget)
  {
    const unsigned long long len = (unsigned long long)(tptr[t + 1] - tptr[t]);
    key[t]                       = ((unsigned long long)(t / C) << 32) | (0xFFFFFFFFull - PetscMin(len, 0xFFFFFFFFull));
    val[t]                       = t;
  }
}

__device__ static inline bool HeapLessD(const PetscCount *load, int a, int b)
{
  return load[a] < load[b] || (load[a] == load[b] && a < b);
}

/* one thread per block of C targets: the host's LPT over DMASM_BLOCK threads; owner and start (the entry of
   its thread's column where the target's list begins) of every target, and the block's height */
__global__ static void LptAssign(PetscInt nblocks, PetscInt C, PetscCount ntarget, const PetscCount *__restrict__ order, const PetscCount *__restrict__ tptr, int *__restrict__ owner, PetscCount *__restrict__ start, PetscCount *__restrict__ height)
{
  int        heap[DMASM_BLOCK];
  PetscCount load[DMASM_BLOCK];

  for (PetscCount b = blockIdx.x * (PetscCount)blockDim.x + threadIdx.x; b < nblocks; b += (PetscCount)gridDim.x * blockDim.x) {
    const PetscCount t0 = b * C, nt = PetscMin((PetscCount)C, ntarget - t0);
    PetscCount       h  = 0;
    for (int t = 0; t < DMASM_BLOCK; t++) {
      heap[t] = t;
      load[t] = 0;
    }
    for (PetscCount r = 0; r < nt; r++) {
      const PetscCount t = order[t0 + r], len = tptr[t + 1] - tptr[t];
      if (!len) {
        owner[t] = -1;
        continue;
      }
      owner[t] = heap[0];
      start[t] = load[heap[0]];
      load[heap[0]] += len + 1;
      for (int i = 0;;) { /* sift down */
        int l = 2 * i + 1, rr = l + 1, m = i, tmp;
        if (l < DMASM_BLOCK && HeapLessD(load, heap[l], heap[m])) m = l;
        if (rr < DMASM_BLOCK && HeapLessD(load, heap[rr], heap[m])) m = rr;
        if (m == i) break;
        tmp     = heap[i];
        heap[i] = heap[m];
        heap[m] = tmp;
        i       = m;
      }
    }
    for (int t = 0; t < DMASM_BLOCK; t++) h = PetscMax(h, load[t]);
    height[b] = h * DMASM_BLOCK;
  }
}

template <typename I>
__global__ static void LptFill(PetscCount ntarget, PetscInt C, const PetscCount *__restrict__ blkptr, const int *__restrict__ owner, const PetscCount *__restrict__ start, const PetscCount *__restrict__ tptr, const PetscCount *__restrict__ lists, I *__restrict__ packed)
{
  GRID_LOOP(t, ntarget)
  {
    const int o = owner[t];
    if (o >= 0) {
      const PetscCount b = t / C, base = blkptr[b] + o, s0 = start[t];
      PetscCount       s = 0;
      for (PetscCount k = tptr[t]; k < tptr[t + 1]; k++, s++) packed[base + (s0 + s) * DMASM_BLOCK] = (I)(lists[k] + 1);
      packed[base + (s0 + s) * DMASM_BLOCK] = ~(I)(t - b * C);
    }
  }
}

/*
  DMAsmCUDABuildPlan - the packed plan of DMAsmBuildPlan() built on the device from dq2t (device, [nper][nelem]):
  P gets its device arrays (dpacked, dblkptr, dorder, de2t: a copy of dq2t) and the host blkptr; the host packed
  arrays and e2t stay NULL (device methods only).  nzpt: targets per thread (0: DMAsmBuildPlan's choice).
*/
PetscErrorCode DMAsmCUDABuildPlan(PetscInt nper, PetscInt nelem, PetscCount ntarget, const PetscInt *dq2t, PetscInt nzpt, PetscBool force64, DMAsmPlan *P)
{
  const PetscCount    nsrc = (PetscCount)nper * nelem;
  cudaStream_t        s;
  unsigned long long *key, *keyalt, *dused, used = 0;
  PetscCount         *val, *valalt, *tptr, *start, *height;
  int                *owner;
  PetscInt            C, nblocks;

  PetscFunctionBegin;
  PetscCall(DMAsmPlanDestroy(P));
  PetscCall(PetscEllwarpGetStream(&s));
  if (!nzpt) {
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&dused, 1, "DMAssembly plan (count)"));
    PetscCallCUDA(cudaMemsetAsync(dused, 0, sizeof(*dused), s));
    CountUsed<<<PetscEllwarpBlocks(nsrc, 256), 256, 0, s>>>(nsrc, dq2t, dused);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscEllwarpDeviceDownload(&used, dused, sizeof(used)));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&dused));
    nzpt = (PetscInt)PetscMax(1, PetscMin(4, ntarget ? (32 * ntarget) / PetscMax((PetscCount)used, 1) : 1));
  }
  C          = nzpt * DMASM_BLOCK;
  nblocks    = (PetscInt)((ntarget + C - 1) / C);
  P->ntarget = ntarget;
  P->nsrc    = nsrc;
  P->C       = C;
  P->nblocks = nblocks;
  P->idx64   = (PetscBool)(nsrc >= PETSC_INT32_MAX - 1 || force64);
  /* lists: sources by target, stable in element order */
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&key, PetscMax(nsrc, ntarget), "DMAssembly plan (keys)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&keyalt, PetscMax(nsrc, ntarget), "DMAssembly plan (keys)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&val, nsrc, "DMAssembly plan (lists)"));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&valalt, nsrc, "DMAssembly plan (lists)"));
  ListKeys<<<PetscEllwarpBlocks(nsrc, 256), 256, 0, s>>>(nper, nelem, ntarget, dq2t, key, val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SortPairs(&key, &keyalt, &val, &valalt, nsrc, Bits((unsigned long long)ntarget), s));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&valalt));
  PetscCall(PetscEllwarpDeviceMallocAsyncArray(&tptr, ntarget + 1, "DMAssembly plan (list starts)"));
  ListStarts<<<PetscEllwarpBlocks(nsrc + 1, 256), 256, 0, s>>>(nsrc, ntarget, key, tptr);
  PetscCallCUDA(cudaGetLastError());
  /* LPT order of each block's targets */
  {
    PetscCount *order, *orderalt;
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&order, ntarget, "DMAssembly plan (LPT order)"));
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&orderalt, ntarget, "DMAssembly plan (LPT order)"));
    LptKeys<<<PetscEllwarpBlocks(ntarget, 256), 256, 0, s>>>(ntarget, C, tptr, key, order);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(SortPairs(&key, &keyalt, &order, &orderalt, ntarget, 32 + Bits((unsigned long long)nblocks), s));
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&orderalt));
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&owner, ntarget, "DMAssembly plan (owners)"));
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&start, ntarget, "DMAssembly plan (starts)"));
    PetscCall(PetscEllwarpDeviceMallocAsyncArray(&height, nblocks + 1, "DMAssembly plan (heights)"));
    LptAssign<<<PetscEllwarpBlocks(nblocks, 64), 64, 0, s>>>(nblocks, C, ntarget, order, tptr, owner, start, height);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscEllwarpDeviceFreeAsyncArray(&order));
  }
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&key));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&keyalt));
  PetscCallCUDA(cudaMemsetAsync(height + nblocks, 0, sizeof(PetscCount), s));
  PetscCall(PetscEllwarpDeviceMallocArray(&P->dblkptr, nblocks + 1, "DMAssembly plan (block starts)"));
  PetscCall(ExclusiveSum(height, P->dblkptr, nblocks + 1, s));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&height));
  PetscCall(PetscMalloc1(nblocks + 1, &P->blkptr));
  PetscCall(PetscEllwarpDeviceDownload(P->blkptr, P->dblkptr, sizeof(PetscCount) * (nblocks + 1)));
  {
    const PetscCount total = P->blkptr[nblocks];
    const size_t     es    = P->idx64 ? sizeof(PetscInt64) : sizeof(int);
    PetscCall(PetscEllwarpDeviceMalloc(&P->dpacked, es * (size_t)total, "DMAssembly plan (packed)"));
    if (total) PetscCallCUDA(cudaMemsetAsync(P->dpacked, 0, es * (size_t)total, s));
    if (P->idx64) LptFill<PetscInt64><<<PetscEllwarpBlocks(ntarget, 256), 256, 0, s>>>(ntarget, C, P->dblkptr, owner, start, tptr, val, (PetscInt64 *)P->dpacked);
    else LptFill<int><<<PetscEllwarpBlocks(ntarget, 256), 256, 0, s>>>(ntarget, C, P->dblkptr, owner, start, tptr, val, (int *)P->dpacked);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&owner));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&start));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&tptr));
  PetscCall(PetscEllwarpDeviceFreeAsyncArray(&val));
  PetscCall(PetscEllwarpDeviceMallocArray(&P->de2t, nsrc, "DMAssembly plan (entry targets)"));
  PetscCall(PetscEllwarpDeviceCopy(P->de2t, dq2t, sizeof(PetscInt) * nsrc));
  PetscCall(DMAsmPlanUploadOrder(P));
  PetscCall(PetscEllwarpDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}
