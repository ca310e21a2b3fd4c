/* MATSEQELLWARP, CUDA backend: value refresh.  Path 1: the CSR staging copy gathered into the slots (through
   the slot map, or its row form); the scatter back to CSR; and the COO path: the plan built on the device and
   the kernels that write MatSetValuesCOO values into the slots. */
#include <petscellwarp/private/ellwarpcudaimpl.h>

/* path 1: staging CSR -> slots.  Padding (map -1) is zero from creation on and never written: a group of
   4 padding slots is skipped, a mixed group writes 0 where it was 0 already. */
__global__ static void __launch_bounds__(256) GatherKernel(PetscCount n, const PetscInt *__restrict__ map, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  EW_GROUPS_LOOP(n)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= n) {
      PetscInt    m[EW_VEC];
      PetscScalar x[EW_VEC];
      LdIdx4(map + s, m);
      if ((m[0] & m[1] & m[2] & m[3]) < 0) continue; /* all padding */
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) x[i] = m[i] >= 0 ? LdGather(csr + m[i]) : 0.0;
      StVal4(val + s, x);
    } else
      for (PetscCount k = s; k < n; k++) {
        const PetscInt m = LdIdx(map + k);
        if (m >= 0) val[k] = csr[m];
      }
  }
}

/* The row form of the map (EllwarpLayoutRowForm, layout.c), built and checked on the device from the slot map, once:
   one warp per slice; each lane walks its slots; a row's lanes agree through shuffles within their group of
   tpr lanes.  *bad is set when some row's entries are not start + e for e < len followed by padding. */
template <typename M>
__global__ static void RowFormKernel(DevLayout d, const M *__restrict__ map, PetscInt *start, int *len, int *bad)
{
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return; /* whole warps leave together: a slice is one warp */
  const PetscCount base = d.sliceptr[s];
  const int        w = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES), l2 = d.meta[s] & 15, tpr = 1 << l2, sub = lane & (tpr - 1);
  const PetscInt   r    = d.slicerow[s] + (lane >> l2);
  const bool       live = r < d.slicerow[s + 1];
  const PetscInt   st   = __shfl_sync(0xffffffffu, w ? (PetscInt)map[base + lane] : -1, lane & ~(tpr - 1)); /* the row's entry 0 */
  int              n    = 0;
  for (int k = 0; k < w; k++) n += map[base + (PetscCount)k * ELLWARP_LANES + lane] >= 0;
  for (int off = tpr >> 1; off > 0; off >>= 1) n += __shfl_xor_sync(0xffffffffu, n, off); /* the row's entries */
  for (int k = 0; k < w; k++) {
    const PetscInt m = (PetscInt)map[base + (PetscCount)k * ELLWARP_LANES + lane];
    const int      e = k * tpr + sub;
    if (e < n ? m != st + e : m >= 0) atomicOr(bad, 1);
  }
  if (live && sub == 0) {
    start[r] = n ? st : 0;
    len[r]   = n;
  }
}

template <typename M>
__global__ static void LongRowFormKernel(PetscInt nlong, const PetscCount *__restrict__ longptr, const M *__restrict__ map, PetscInt *start, int *len, int *bad)
{
  for (PetscInt q = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; q < nlong; q += (PetscInt)gridDim.x * blockDim.x) {
    const PetscCount a = longptr[q], b = longptr[q + 1];
    start[q] = (PetscInt)map[a];
    len[q]   = (int)(b - a);
    for (PetscCount k = a; k < b; k++)
      if (map[k] < 0 || map[k] != map[a] + (k - a)) atomicOr(bad, 1);
  }
}

/* path 1 through the row form, lane by lane ("rows"): a warp per slice, step by step; the warp writes 32
   consecutive slots (coalesced), each lane reads its own row's CSR values in order (a 32-byte sector serves
   several steps from L1).  16 bytes per slot instead of the slot map's 20.  Padding is not written. */
__global__ static void __launch_bounds__(256) GatherRowsKernel(DevLayout d, const PetscInt *__restrict__ start, const int *__restrict__ len, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1);
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + threadIdx.x / ELLWARP_LANES;
  if (s >= d.nslices) return;
  const int      l2 = d.meta[s] & 15, tpr = 1 << l2, sub = lane & (tpr - 1);
  const PetscInt r = d.slicerow[s] + (lane >> l2);
  const bool     live = r < d.slicerow[s + 1];
  const PetscInt st   = live ? start[r] : 0;
  const int      n    = live ? len[r] : 0;
  const int      kmax = n > sub ? (n - sub + tpr - 1) / tpr : 0; /* this lane's entries */
  PetscScalar   *v    = val + d.sliceptr[s] + lane;
#pragma unroll 4
  for (int k = 0; k < kmax; k++) __stcs(v + (size_t)k * ELLWARP_LANES, __ldg(csr + st + k * tpr + sub));
}

/* path 1 through the row form, staged in shared memory ("slice"): per chunk of GS_STEPS steps of a slice, the
   warp reads each row's next GS_STEPS * tpr consecutive CSR values with consecutive lanes (coalesced: 2 rows of
   128 contiguous bytes per load for K1), drops them into their slots' places in shared memory, then writes the
   chunk as GS_STEPS runs of 32 consecutive slots (coalesced).  Both sides move whole sectors; padding slots of
   the chunk are written as the zeros they hold.  Rows padded to 33 doubles: a lane group of one row writes
   GS_STEPS different steps, which a stride of 32 would put in one bank.  ADD (unique COO with ADD_VALUES): each
   slot becomes old + value (old + 0 past a row's last entry: padding stays zero). */
#define GS_LOG2  4
#define GS_STEPS (1 << GS_LOG2)
#define GS_ROW   (ELLWARP_LANES + 1)
template <bool ADD>
__global__ static void __launch_bounds__(256) GatherSliceKernel(DevLayout d, const PetscInt *__restrict__ start, const int *__restrict__ len, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  __shared__ PetscScalar buf[8][GS_STEPS * GS_ROW];
  const int      lane = threadIdx.x & (ELLWARP_LANES - 1), wib = threadIdx.x / ELLWARP_LANES;
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / ELLWARP_LANES) + wib;
  if (s >= d.nslices) return; /* a whole warp: a slice is one warp */
  const PetscCount base = d.sliceptr[s];
  const int        w = (int)((d.sliceptr[s + 1] - base) / ELLWARP_LANES), l2 = d.meta[s] & 15, tpr = 1 << l2;
  const int        sh = GS_LOG2 + l2, seg = 1 << sh; /* values of one row in one chunk: GS_STEPS << l2 */
  const PetscInt   r   = d.slicerow[s] + lane;
  const bool       own = lane < (ELLWARP_LANES >> l2) && r < d.slicerow[s + 1]; /* lane q holds row q's start and length */
  const PetscInt   myst = own ? start[r] : 0;
  const int        mylen = own ? len[r] : 0;
  PetscScalar     *sb    = buf[wib];

  for (int k0 = 0; k0 < w; k0 += GS_STEPS) {
#pragma unroll
    for (int it = 0; it < GS_STEPS; it++) {
      const int      v = it * ELLWARP_LANES + lane, q = v >> sh, o = v & (seg - 1), e = (k0 << l2) + o;
      const PetscInt st = __shfl_sync(0xffffffffu, myst, q);
      const int      n  = __shfl_sync(0xffffffffu, mylen, q);
      sb[(o >> l2) * GS_ROW + q * tpr + (o & (tpr - 1))] = e < n ? __ldg(csr + st + e) : 0.0;
    }
    __syncwarp();
    const int nk = min(GS_STEPS, w - k0);
    for (int it = 0; it < nk; it++) {
      PetscScalar *p = val + base + (size_t)(k0 + it) * ELLWARP_LANES + lane;
      __stcs(p, ADD ? __ldcs(p) + sb[it * GS_ROW + lane] : sb[it * GS_ROW + lane]);
    }
    __syncwarp();
  }
}

template <bool ADD>
__global__ static void GatherLongKernel(PetscInt nlong, const PetscCount *__restrict__ longptr, const PetscInt *__restrict__ start, const PetscScalar *__restrict__ csr, PetscScalar *__restrict__ val)
{
  /* one block per long row: contiguous copy */
  for (PetscInt q = blockIdx.x; q < nlong; q += gridDim.x) {
    const PetscCount a = longptr[q], n = longptr[q + 1] - a;
    for (PetscCount k = threadIdx.x; k < n; k += blockDim.x) val[a + k] = ADD ? val[a + k] + csr[start[q] + k] : csr[start[q] + k];
  }
}

__global__ static void ScatterKernel(PetscCount n, const PetscInt *__restrict__ map, const PetscScalar *__restrict__ val, PetscScalar *__restrict__ csr)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscCount)gridDim.x * blockDim.x) {
    PetscInt m = map[k];
    if (m >= 0) csr[m] = val[k];
  }
}

/* the row form (start, len per sorted row) of a slot map (slot -> source index, negative: none), when it holds:
   one read of the map and a host synchronization; *start stays NULL when it does not */
template <typename M>
static PetscErrorCode RowFormOf(const EllwarpStore *S, const M *map, PetscInt **start, int **len)
{
  const EllwarpLayout *L = S->L;
  int                 *dbad, bad = 0;
  cudaStream_t         stream;

  PetscFunctionBegin;
  *start = NULL;
  *len   = NULL;
  if (!L->nrows || !L->nslots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscEllwarpDeviceMalloc((void **)start, L->nrows * sizeof(PetscInt), "row starts"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)len, L->nrows * sizeof(int), "row lengths"));
  PetscCall(PetscEllwarpDeviceMalloc((void **)&dbad, sizeof(int), "flag"));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), stream));
  if (L->nslices) RowFormKernel<M><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), map, *start, *len, dbad);
  if (L->nlong) LongRowFormKernel<M><<<GRID(L->nlong, stream)>>>(L->nlong, S->longptr, map, *start, *len, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscEllwarpDeviceDownload(&bad, dbad, sizeof(int)));
  PetscCall(PetscEllwarpDeviceFreeArray(&dbad));
  if (bad) {
    PetscCall(PetscEllwarpDeviceFreeArray(start));
    PetscCall(PetscEllwarpDeviceFreeArray(len));
    *start = NULL;
    *len   = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_ellwarp_tune gather=auto|slice|rows|map (benchmarks/amortize measures them; EllwarpTune.gather): how the
   row form is used (1 rows, 2 slice), 0: not at all (map) */
static PetscErrorCode GatherHow(const EllwarpStore *S, int *how)
{
  const PetscInt g = S->tune ? S->tune->gather : 0;

  PetscFunctionBegin;
  *how = g == 3 ? 0 : (g == 2 ? 1 : 2); /* auto: slice */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row form of the CSR -> slot map, checked once per store */
static PetscErrorCode RowForm(EllwarpStore *S)
{
  int how;

  PetscFunctionBegin;
  if (S->rowform) PetscFunctionReturn(PETSC_SUCCESS);
  S->rowform = -1;
  PetscCall(GatherHow(S, &how));
  if (!how) PetscFunctionReturn(PETSC_SUCCESS);
  S->gatherhow = how;
  if (!S->L->nrows || !S->L->nslots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowFormOf<PetscInt>(S, S->slot2csr, &S->rowstart, &S->rowlen));
  if (S->rowstart) S->rowform = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAGather(EllwarpStore *S, const PetscScalar *csr)
{
  const EllwarpLayout *L = S->L;
  cudaStream_t         stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(RowForm(S));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->rowform > 0) {
    if (L->nlong) GatherLongKernel<false><<<(unsigned)PetscMin(L->nlong, 65535), 256, 0, stream>>>(L->nlong, S->longptr, S->rowstart, csr, S->val);
    if (L->nslices && S->gatherhow == 1) GatherRowsKernel<<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->rowstart, S->rowlen, csr, S->val);
    else if (L->nslices) GatherSliceKernel<false><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->rowstart, S->rowlen, csr, S->val);
  } else if (L->nslots) GatherKernel<<<GRID((L->nslots + EW_VEC - 1) / EW_VEC, stream)>>>(L->nslots, S->slot2csr, csr, S->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDAScatter(const EllwarpStore *S, PetscScalar *csr)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (S->L->nslots) ScatterKernel<<<GRID(S->L->nslots, stream)>>>(S->L->nslots, S->slot2csr, S->val, csr);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO plan, built on the device from the store's slot -> CSR map and SeqAIJ's jmap/perm.
   - At most one entry per nonzero (unique): in slot order (the plan EllwarpCOOSlotPlan() builds on the
     host), one COO index per slot: one thread per 4 slots, coalesced plan reads and value writes.
   - Duplicates (FE assembly: ~6 entries per nonzero): in CSR order, SeqAIJ's jmap/perm as they are plus a
     CSR -> slot map.  The element loops wrote the entries of neighbouring CSR nonzeros next to each other,
     so neighbouring threads read neighbouring COO values; the one scattered write per nonzero is cheap next
     to that.  (A slot-order plan puts different rows of a slice in neighbouring threads: scattered reads of
     ~6 entries per slot, measured 4x slower on an H100.)
   Both sum a nonzero's entries in SeqAIJ's order from 0, so the values are bitwise those of the host store.
   32-bit indices where they fit (PETSc's own plan is 64-bit throughout). */
template <typename I>
__global__ static void COOUniqueKernel(PetscCount nslots, const PetscInt *__restrict__ slot2csr, const I *__restrict__ jmap, const I *__restrict__ perm, I *__restrict__ slotperm)
{
  for (PetscCount s = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt k = slot2csr[s];
    slotperm[s]      = k < 0 ? (I)-1 : (jmap[k + 1] > jmap[k] ? perm[jmap[k]] : (I)-2); /* -1 padding, -2 no entry */
  }
}

/* CSR -> slot from slot -> CSR (csr2slot is -1 beforehand: a nonzero without a slot, which the layout never
   makes, would be skipped, as the slot-order plans skip it) */
template <typename I>
__global__ static void COOCsr2SlotKernel(PetscCount nslots, const PetscInt *__restrict__ slot2csr, I *__restrict__ csr2slot)
{
  for (PetscCount s = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += (PetscCount)gridDim.x * blockDim.x) {
    const PetscInt k = slot2csr[s];
    if (k >= 0) csr2slot[k] = (I)s;
  }
}

/* One entry per slot: the plan is a COO index per slot (-1 padding: skipped, stays zero; -2 a nonzero with
   no entry: INSERT writes 0).  Per group of 4 slots: one 128-bit plan load, the 4 gathers, ADD's 128-bit
   read of the old values, all issued before the two 128-bit stores.  Sums as the host: v, or old + v. */
template <typename I, bool ADD>
__global__ static void __launch_bounds__(256) COOUniqueValuesKernel(PetscCount nslots, const I *__restrict__ slotperm, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  EW_GROUPS_LOOP(nslots)
  {
    const PetscCount s = g * EW_VEC;
    if (s + EW_VEC <= nslots) {
      I           p[EW_VEC];
      PetscScalar x[EW_VEC], o[EW_VEC];
      LdIdx4(slotperm + s, p);
      if (p[0] == -1 && p[1] == -1 && p[2] == -1 && p[3] == -1) continue; /* all padding */
      if (ADD) LdVal4(val + s, o);
#pragma unroll
      for (int i = 0; i < EW_VEC; i++) x[i] = p[i] >= 0 ? LdGather(v + p[i]) : 0.0;
      if (ADD) {
#pragma unroll
        for (int i = 0; i < EW_VEC; i++) x[i] = o[i] + x[i];
      }
      StVal4(val + s, x);
    } else
      for (PetscCount k = s; k < nslots; k++) {
        const I p = LdIdx(slotperm + k);
        if (p == -1) continue;
        const PetscScalar sum = p >= 0 ? v[p] : 0.0;
        val[k]                = ADD ? val[k] + sum : sum;
      }
  }
}

/* Duplicates: one thread per CSR nonzero k sums v[perm[q]], q in [jmap[k], jmap[k + 1]), in that order from
   0 (SeqAIJ's order: bitwise the host's sums) and writes its slot as the host does: 0 + sum or old + sum.
   Padding slots have no nonzero and keep their zero. */
template <typename I, bool ADD>
__global__ static void __launch_bounds__(256) COOCSRValuesKernel(PetscCount nnz, const I *__restrict__ jmap, const I *__restrict__ perm, const I *__restrict__ csr2slot, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscCount)gridDim.x * blockDim.x) {
    const I s = LdIdx(csr2slot + k), q1 = __ldg(jmap + k + 1);
    if (s < 0) continue;
    PetscScalar sum = 0.0;
    for (I q = __ldg(jmap + k); q < q1; q++) sum += LdGather(v + LdIdx(perm + q));
    val[s] = (ADD ? val[s] : (PetscScalar)0.0) + sum;
  }
}

/* Variant of COOCSRValuesKernel (-mat_ellwarp_tune coo_unroll=U, coo_block_size): a nonzero's
   entries U at a time, their perm indices and then their values all loaded before they are added, in the
   same order (bitwise COOCSRValuesKernel's sums): ~6 dependent load pairs per thread become ~2 rounds. */
template <typename I, bool ADD, int U>
__global__ static void __launch_bounds__(1024) COOCSRValuesKernelU(PetscCount nnz, const I *__restrict__ jmap, const I *__restrict__ perm, const I *__restrict__ csr2slot, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  for (PetscCount k = (PetscCount)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscCount)gridDim.x * blockDim.x) {
    const I s = LdIdx(csr2slot + k), q1 = __ldg(jmap + k + 1);
    if (s < 0) continue;
    PetscScalar sum = 0.0;
    for (I q = __ldg(jmap + k); q < q1; q += U) {
      I           p[U];
      PetscScalar e[U];
#pragma unroll
      for (int u = 0; u < U; u++) p[u] = q + u < q1 ? LdIdx(perm + q + u) : (I)0;
#pragma unroll
      for (int u = 0; u < U; u++) e[u] = q + u < q1 ? LdGather(v + p[u]) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++)
        if (q + u < q1) sum += e[u];
    }
    val[s] = (ADD ? val[s] : (PetscScalar)0.0) + sum;
  }
}

template <typename I, bool ADD>
static void LaunchCOOVariant(const EllwarpStore *S, const EllwarpTune *t, const PetscScalar *v, cudaStream_t stream)
{
  const PetscCount nnz = S->L->nnz;
  const int        bs  = t->cooblock ? (int)t->cooblock : 256, u = (int)t->coounroll;
  const unsigned   nb  = PetscMin(PetscEllwarpBlocks(nnz, bs), 65535u);
  const I         *jm = (const I *)S->coojmap, *pm = (const I *)S->cooperm, *cs = (const I *)S->coo2slot;
  if (u >= 16) COOCSRValuesKernelU<I, ADD, 16><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 8) COOCSRValuesKernelU<I, ADD, 8><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 4) COOCSRValuesKernelU<I, ADD, 4><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else if (u >= 2) COOCSRValuesKernelU<I, ADD, 2><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
  else COOCSRValuesKernelU<I, ADD, 1><<<nb, bs, 0, stream>>>(nnz, jm, pm, cs, v, S->val);
}

template <typename I, bool ADD>
static void LaunchCOO(const EllwarpStore *S, const PetscScalar *v, cudaStream_t stream)
{
  const PetscCount nslots = S->L->nslots, ng = (nslots + EW_VEC - 1) / EW_VEC, nnz = S->L->nnz;
  EllwarpTune      t;
  EllwarpTuneResolve(S->L, S->tune, &t);
  if (S->coostart) { /* unique, row by row: the row-form gather from the COO values */
    const EllwarpLayout *L = S->L;
    if (L->nlong) GatherLongKernel<ADD><<<(unsigned)PetscMin(L->nlong, 65535), 256, 0, stream>>>(L->nlong, S->longptr, S->coostart, v, S->val);
    if (L->nslices) GatherSliceKernel<ADD><<<(unsigned)((L->nslices + 7) / 8), 256, 0, stream>>>(View(S), S->coostart, S->coolen, v, S->val);
  } else if (S->coounique) COOUniqueValuesKernel<I, ADD><<<GRID(ng, stream)>>>(nslots, (const I *)S->cooperm, v, S->val);
  else if (nnz && (t.coounroll > 1 || t.cooblock)) LaunchCOOVariant<I, ADD>(S, &t, v, stream);
  else if (nnz) COOCSRValuesKernel<I, ADD><<<GRID(nnz, stream)>>>(nnz, (const I *)S->coojmap, (const I *)S->cooperm, (const I *)S->coo2slot, v, S->val);
}

template <typename I>
static PetscErrorCode UploadAs(I **d, const PetscCount *h, PetscCount n, const char *what)
{
  PetscFunctionBegin;
  if (sizeof(I) == sizeof(PetscCount)) {
    PetscCall(Upload(d, (const I *)h, (size_t)n, what));
  } else {
    I *t;
    PetscCall(PetscMalloc1(n, &t));
    for (PetscCount k = 0; k < n; k++) t[k] = (I)h[k];
    PetscCall(Upload(d, t, (size_t)n, what));
    PetscCall(PetscFree(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
static PetscErrorCode COOPlan(EllwarpStore *S, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm)
{
  const PetscCount nslots = S->L->nslots;
  I               *djmap = NULL, *dperm = NULL;
  cudaStream_t     stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(UploadAs<I>(&djmap, jmap, S->L->nnz + 1, "COO plan"));
  PetscCall(UploadAs<I>(&dperm, perm, nperm, "COO plan"));
  if (S->coounique) {
    I *slotperm = NULL;
    PetscCall(PetscEllwarpDeviceMalloc((void **)&slotperm, (size_t)nslots * sizeof(I), "COO plan"));
    int how;
    if (nslots) COOUniqueKernel<I><<<GRID(nslots, stream)>>>(nslots, S->slot2csr, djmap, dperm, slotperm);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscEllwarpDeviceFreeArray(&djmap));
    PetscCall(PetscEllwarpDeviceFreeArray(&dperm));
    S->cooperm = slotperm;
    /* entries given row by row in column order (a CSR-ordered COO list, as most codes produce): each sorted row's
       entries are start + e, so the values gather as path 1's CSR values do (16 instead of 20 bytes per slot) */
    PetscCall(GatherHow(S, &how));
    if (how && sizeof(I) == sizeof(int)) {
      PetscCall(RowFormOf<I>(S, slotperm, &S->coostart, &S->coolen));
      if (S->coostart) {
        PetscCall(PetscEllwarpDeviceFreeArray(&slotperm));
        S->cooperm = NULL;
      }
    }
    PetscCall(PetscInfo(NULL, "unique COO plan: %s\n", S->coostart ? "row form (entries row by row)" : "a COO index per slot"));
  } else { /* CSR order: SeqAIJ's plan plus CSR -> slot, built from the layout's slot -> CSR (never on the host) */
    I *csr2slot = NULL;
    PetscCall(PetscEllwarpDeviceMalloc((void **)&csr2slot, (size_t)S->L->nnz * sizeof(I), "COO plan"));
    if (S->L->nnz) PetscCallCUDA(cudaMemsetAsync(csr2slot, 0xff, (size_t)S->L->nnz * sizeof(I), stream)); /* -1 */
    if (nslots) COOCsr2SlotKernel<I><<<GRID(nslots, stream)>>>(nslots, S->slot2csr, csr2slot);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(stream));
    S->coojmap  = djmap;
    S->cooperm  = dperm;
    S->coo2slot = csr2slot;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDACOOSetup(EllwarpStore *S, PetscCount nv, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm)
{
  PetscCount maxc = 0;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceSynchronize()); /* kernels in flight may still read the old plan */
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coojmap));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->cooperm));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coo2slot));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coobuf));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coostart));
  PetscCall(PetscEllwarpDeviceFreeArray(&S->coolen));
  S->coostart = NULL;
  S->coolen   = NULL;
  S->coojmap = S->cooperm = S->coo2slot = NULL;
  S->coobuf                             = NULL;
  S->ncoo                               = nv;
  for (PetscCount k = 0; k < S->L->nnz; k++) maxc = PetscMax(maxc, jmap[k + 1] - jmap[k]);
  S->coounique = (PetscBool)(maxc <= 1);
  S->coo32     = (PetscBool)(nv <= PETSC_INT32_MAX && nperm <= PETSC_INT32_MAX && S->L->nslots < PETSC_INT32_MAX);
  if (S->coo32) PetscCall(COOPlan<int>(S, nperm, jmap, perm));
  else PetscCall(COOPlan<PetscCount>(S, nperm, jmap, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpCUDACOOValues(EllwarpStore *S, const PetscScalar *v, PetscMemType mtype, InsertMode imode)
{
  const PetscScalar *dv     = v;
  const PetscCount   nslots = S->L->nslots;
  const bool         ins    = imode == INSERT_VALUES;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (PetscMemTypeHost(mtype) && S->ncoo) { /* COO values on the host: one transfer, logged */
    if (!S->coobuf) PetscCall(PetscEllwarpDeviceMalloc((void **)&S->coobuf, S->ncoo * sizeof(PetscScalar), "COO values"));
    PetscCall(PetscEllwarpDeviceUpload(S->coobuf, v, S->ncoo * sizeof(PetscScalar))); /* waits: the caller may reuse v (pinned memory copies asynchronously) */
    dv = S->coobuf;
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (nslots) {
    if (S->coo32 && ins) LaunchCOO<int, false>(S, dv, stream);
    else if (S->coo32) LaunchCOO<int, true>(S, dv, stream);
    else if (ins) LaunchCOO<PetscCount, false>(S, dv, stream);
    else LaunchCOO<PetscCount, true>(S, dv, stream);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
