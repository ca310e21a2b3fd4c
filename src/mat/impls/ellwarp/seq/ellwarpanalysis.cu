/* The pattern analysis on the device: see include/petscellwarp/private/ellwarpanalysis.h for the steps.  Each
   kernel mirrors a loop of EllwarpLayoutCreate() (layout.c), the reference it is tested against
   (tests/analysis.c compares every array). */
#include <petscellwarp/private/ellwarpanalysis.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petscellwarp/private/ellwarpslicelane.h>
#include <petscdevice_cuda.h>
#include <petsctime.h>
#include <cub/cub.cuh>
#include <climits>

#define NT 256

static inline unsigned Grid(PetscCount n, int threads = NT)
{
  PetscCount b = (n + threads - 1) / threads;
  return (unsigned)PetscMax((PetscCount)1, PetscMin(b, (PetscCount)65535));
}

/* Stream-ordered allocations (the device layer's pool, ellwarpdevice.h): the temporaries of one analysis come
   and go without device-wide synchronisations.  n <= 0 elements give NULL. */
template <typename T>
static PetscErrorCode Alloc(T **p, PetscCount n, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceMallocAsync((void **)p, n > 0 ? (size_t)n * sizeof(T) : 0, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T>
static PetscErrorCode Free(T **p)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceFreeAsync((void **)p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct SumOp {
  template <typename T>
  __host__ __device__ T operator()(const T &a, const T &b) const
  {
    return a + b;
  }
};

/* out[i] = init + sum_{j<i} in[j], i < n */
template <typename T>
static PetscErrorCode ExclusiveScan(const T *in, T *out, PetscCount n, T init)
{
  void        *tmp = NULL;
  size_t       bytes = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, SumOp(), init, (int64_t)n, stream));
  PetscCall(Alloc((char **)&tmp, (PetscCount)bytes, "scan workspace"));
  PetscCallCUDA(cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, SumOp(), init, (int64_t)n, stream));
  PetscCall(Free((char **)&tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T>
static PetscErrorCode ToHost(T *h, const T *d, PetscCount n)
{
  PetscFunctionBegin;
  if (n > 0) PetscCall(PetscEllwarpDeviceDownload(h, d, (size_t)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 1. row lengths and integer moments ---------------------------------------------------------- */
struct DevStats {
  unsigned long long nnz, nnzshort, nchunks, sum2;
  int                minlen, maxlen, maxshort, nlong;
};

__device__ static inline bool IsLong(PetscInt len, PetscInt longrow)
{
  return longrow > 0 && len > longrow;
}

template <typename T>
__device__ static inline T WarpSum(T v)
{
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ static void RowStatsKernel(PetscInt m, const PetscInt *__restrict__ ai, PetscInt longrow, PetscInt *__restrict__ len, DevStats *st)
{
  unsigned long long nnz = 0, nnzs = 0, nch = 0, s2 = 0;
  int                mn = INT_MAX, mx = 0, ms = 0, nl = 0;
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    const PetscInt l = ai[i + 1] - ai[i];
    len[i]           = l;
    mn               = min(mn, (int)l);
    mx               = max(mx, (int)l);
    nnz += l;
    s2 += (unsigned long long)l * l;
    if (IsLong(l, longrow)) {
      nl++;
      nch += (l + ELLWARP_CHUNK - 1) / ELLWARP_CHUNK;
    } else {
      ms = max(ms, (int)l);
      nnzs += l;
    }
  }
  nnz  = WarpSum(nnz);
  nnzs = WarpSum(nnzs);
  nch  = WarpSum(nch);
  s2   = WarpSum(s2);
  nl   = WarpSum(nl);
  for (int o = 16; o > 0; o >>= 1) {
    mn = min(mn, __shfl_down_sync(0xffffffffu, mn, o));
    mx = max(mx, __shfl_down_sync(0xffffffffu, mx, o));
    ms = max(ms, __shfl_down_sync(0xffffffffu, ms, o));
  }
  if ((threadIdx.x & 31) == 0) { /* integers: the totals do not depend on the order of the atomics */
    atomicAdd(&st->nnz, nnz);
    atomicAdd(&st->nnzshort, nnzs);
    atomicAdd(&st->nchunks, nch);
    atomicAdd(&st->sum2, s2);
    atomicAdd(&st->nlong, nl);
    atomicMin(&st->minlen, mn);
    atomicMax(&st->maxlen, mx);
    atomicMax(&st->maxshort, ms);
  }
}

#define SHARED_BINS 4096
__global__ static void HistKernel(PetscInt m, const PetscInt *__restrict__ len, PetscInt longrow, int nbins, unsigned long long *hist)
{
  extern __shared__ unsigned int sh[];
  const bool shared = nbins <= SHARED_BINS;
  if (shared) {
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) sh[b] = 0;
    __syncthreads();
  }
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    const PetscInt l = len[i];
    if (IsLong(l, longrow)) continue;
    if (shared) atomicAdd(&sh[l], 1u);
    else atomicAdd(&hist[l], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
      if (sh[b]) atomicAdd(&hist[b], (unsigned long long)sh[b]);
  }
}

/* ---- 2. the stable sort: long rows first (row order), then by window, longest first ------------ */
__global__ static void ShortFlagKernel(PetscInt m, const PetscInt *len, PetscInt longrow, PetscInt *flag)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) flag[i] = IsLong(len[i], longrow) ? 0 : 1;
}

template <typename K>
__global__ static void KeyKernel(PetscInt m, const PetscInt *len, const PetscInt *pos, PetscInt longrow, PetscInt W, PetscInt maxshort, K *key, PetscInt *val)
{
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    const PetscInt l = len[i];
    key[i]           = (K)(IsLong(l, longrow) ? 0ull : 1ull + (W > 0 ? (unsigned long long)(pos[i] / W) * (unsigned long long)(maxshort + 1) : 0ull) + (unsigned long long)(maxshort - l));
    val[i]           = i;
  }
}

__global__ static void GatherLenKernel(PetscInt m, const PetscInt *perm, const PetscInt *len, PetscInt *sortedlen)
{
  for (PetscInt p = blockIdx.x * blockDim.x + threadIdx.x; p < m; p += gridDim.x * blockDim.x) sortedlen[p] = len[perm[p]];
}

template <typename K>
static PetscErrorCode SortPairs(PetscInt m, const PetscInt *len, const PetscInt *pos, PetscInt longrow, PetscInt W, PetscInt maxshort, int endbit, PetscInt *perm)
{
  K        *key = NULL, *keyout = NULL;
  PetscInt *val = NULL;
  void        *tmp = NULL;
  size_t       bytes = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  PetscCall(Alloc(&key, m, "sort keys"));
  PetscCall(Alloc(&keyout, m, "sort keys"));
  PetscCall(Alloc(&val, m, "sort values"));
  KeyKernel<K><<<Grid(m), NT, 0, stream>>>(m, len, pos, longrow, W, maxshort, key, val);
  PetscCallCUDA(cudaGetLastError());
  /* radix sort is stable: rows with equal keys keep their row order, as on the host */
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, keyout, val, perm, (int64_t)m, 0, endbit, stream));
  PetscCall(Alloc((char **)&tmp, (PetscCount)bytes, "sort workspace"));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, keyout, val, perm, (int64_t)m, 0, endbit, stream));
  PetscCall(Free((char **)&tmp));
  PetscCall(Free(&key));
  PetscCall(Free(&keyout));
  PetscCall(Free(&val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SortRows(PetscInt m, const PetscInt *len, PetscInt longrow, PetscInt W, PetscInt maxshort, PetscInt *perm, PetscInt *sortedlen)
{
  PetscInt          *pos = NULL, *flag = NULL;
  unsigned long long maxkey;
  int                endbit = 1;
  cudaStream_t       stream;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpGetStream(&stream));
  if (W > 0) { /* position among the rows that are not long: the window */
    PetscCall(Alloc(&flag, m, "sort"));
    PetscCall(Alloc(&pos, m, "sort"));
    ShortFlagKernel<<<Grid(m), NT, 0, stream>>>(m, len, longrow, flag);
    PetscCall(ExclusiveScan(flag, pos, m, (PetscInt)0));
  }
  maxkey = 1ull + (W > 0 ? (unsigned long long)((m - 1) / W) * (unsigned long long)(maxshort + 1) : 0ull) + (unsigned long long)maxshort;
  while (endbit < 64 && (maxkey >> endbit)) endbit++;
  if (endbit <= 32) PetscCall(SortPairs<unsigned int>(m, len, pos, longrow, W, maxshort, endbit, perm)); /* half the key traffic */
  else PetscCall(SortPairs<unsigned long long>(m, len, pos, longrow, W, maxshort, endbit, perm));
  GatherLenKernel<<<Grid(m), NT, 0, stream>>>(m, perm, len, sortedlen);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(Free(&flag));
  PetscCall(Free(&pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 3. slices ------------------------------------------------------------------------------------ */
__device__ static inline int LanesLog2D(PetscInt len, PetscInt T)
{
  int l = 0;
  if (T <= 0) return 0;
  while (l < 5 && (len + (1 << l) - 1) / (1 << l) > T) l++;
  return l;
}

struct DevWalk {
  unsigned long long nslots;
  int                maxwidth, nslices, nsplit;
};

struct Cands {
  int     n;
  PetscInt T[ELLWARP_NCAND];
};

/* one thread per (window, threshold): SliceWalk over the window's sorted lengths */
__global__ static void WindowWalkKernel(PetscInt nlong, PetscInt m, PetscInt W, const PetscInt *sortedlen, Cands c, DevWalk *out)
{
  const PetscInt nwin = (m - nlong + W - 1) / W;
  for (PetscInt t = blockIdx.x * blockDim.x + threadIdx.x; t < nwin * c.n; t += gridDim.x * blockDim.x) {
    const PetscInt     win = t / c.n, T = c.T[t % c.n], p0 = nlong + win * W, p1 = min(p0 + W, m);
    unsigned long long slots = 0;
    int                mw = 0, ns = 0, nsp = 0;
    for (PetscInt p = p0; p < p1;) {
      const int l2 = LanesLog2D(sortedlen[p], T), w = (int)((sortedlen[p] + (1 << l2) - 1) >> l2);
      slots += (unsigned long long)w * ELLWARP_LANES;
      mw = max(mw, w);
      ns++;
      if (l2) nsp++;
      p += min((PetscInt)(ELLWARP_LANES >> l2), p1 - p);
    }
    DevWalk *o = out + (t % c.n);
    atomicAdd(&o->nslots, slots);
    atomicMax(&o->maxwidth, mw);
    atomicAdd(&o->nslices, ns);
    atomicAdd(&o->nsplit, nsp);
  }
}

/* one thread per window: count its slices (emit == false) or write them at off[win] */
__global__ static void WindowSlicesKernel(PetscInt nlong, PetscInt m, PetscInt W, PetscInt T, const PetscInt *sortedlen, bool emit, PetscInt *cnt, const PetscInt *off, PetscInt *slicerow, unsigned char *meta, int *width)
{
  const PetscInt nwin = (m - nlong + W - 1) / W;
  for (PetscInt win = blockIdx.x * blockDim.x + threadIdx.x; win < nwin; win += gridDim.x * blockDim.x) {
    const PetscInt p0 = nlong + win * W, p1 = min(p0 + W, m);
    PetscInt       s  = emit ? off[win] : 0;
    for (PetscInt p = p0; p < p1; s++) {
      const int l2 = LanesLog2D(sortedlen[p], T);
      if (emit) {
        slicerow[s] = p;
        meta[s]     = (unsigned char)l2;
        width[s]    = (int)((sortedlen[p] + (1 << l2) - 1) >> l2);
      }
      p += min((PetscInt)(ELLWARP_LANES >> l2), p1 - p);
    }
    if (!emit) cnt[win] = s;
  }
}

struct Runs {
  int        n;
  EllwarpRun r[ELLWARP_MAX_RUNS];
};

/* the whole-matrix sort: slice s lies in a run of equal lane counts, every 32 >> l2 rows */
__global__ static void WholeSlicesKernel(PetscInt nlong, PetscInt ns, Runs runs, const PetscInt *sortedlen, PetscInt *slicerow, unsigned char *meta, int *width)
{
  for (PetscInt s = blockIdx.x * blockDim.x + threadIdx.x; s < ns; s += gridDim.x * blockDim.x) {
    int j = 0;
    while (j + 1 < runs.n && s >= runs.r[j + 1].firstslice) j++;
    const int      l2 = (int)runs.r[j].l2;
    const PetscInt p  = nlong + (PetscInt)runs.r[j].start + (s - runs.r[j].firstslice) * (ELLWARP_LANES >> l2);
    slicerow[s]       = p;
    meta[s]           = (unsigned char)l2;
    width[s]          = (int)((sortedlen[p] + (1 << l2) - 1) >> l2);
  }
}

/* The span of (col - row) at one entry position of a slice's rows: over the lanes of a step that are the same
   lane j of their rows (lanes j, j + tpr, ...; has: the lane holds an entry), a butterfly over the lane bits
   above l2; mn > mx when no row has an entry there.  Every lane of the warp must call it (the step loops are
   warp-uniform). */
__device__ static inline void PosSpan(bool has, int d, int l2, int *mn, int *mx)
{
  int a = has ? d : INT_MAX, b = has ? d : INT_MIN;
  for (int off = 1 << l2; off < 32; off <<= 1) {
    a = min(a, __shfl_xor_sync(0xffffffffu, a, off));
    b = max(b, __shfl_xor_sync(0xffffffffu, b, off));
  }
  *mn = a;
  *mx = b;
}

/* The dictionary mode (dictlayout.c) on one warp: the slice's distinct window ids (col >> ELLWARP_DICT_SHIFT) in
   ascending order, one per round: each lane's next id (its entries j, j + tpr, ... are ascending in a sorted row), the
   warp's minimum, then the lanes holding it step past its entries.  EMIT: round r writes the table entry r and the
   codes (r << shift | col & mask) of those entries.  Returns the window count, or -1 where the host analysis
   (EllwarpSliceDictWindows) refuses the slice: a row not sorted, more than ELLWARP_DICT_MAX windows, or window 127
   holding offset 511 (the padding code).  Warp-uniform; every lane must call it. */
template <bool EMIT>
__device__ static int DictRounds(const PetscInt *__restrict__ aj, PetscInt rs, PetscInt rl, int tpr, int j, int lane, short *col16, int *table)
{
  int      top = 0;
  PetscInt e   = j;
  if (__any_sync(0xffffffffu, EllwarpDictLaneUnsorted(aj, rs, rl, tpr, j))) return -1;
  for (int r = 0;; r++) { /* the lane steps are shared with the host emulation (ellwarpslicelane.h) */
    int mn = EllwarpDictLaneId(aj, rs, rl, e);
    for (int off = 16; off > 0; off >>= 1) mn = min(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    if (mn == INT_MAX || r == ELLWARP_DICT_MAX) return EllwarpDictRoundEnd(r, mn, __any_sync(0xffffffffu, top)); /* warp-uniform */
    if (EMIT && lane == 0) table[r] = mn << ELLWARP_DICT_SHIFT;
    e = EllwarpDictLaneStep(aj, rs, rl, tpr, lane, e, r, mn, EMIT ? col16 : NULL, &top);
  }
}

/* one warp per slice, lanes mapped as in FillKernel (lane = q*tpr + j walks entries j, j+tpr, ... of the
   slice's q-th row): do all its entries lie within +-32767 of their rows (a warp vote)?  If not, does every
   entry position's span of (col - row) allow 16-bit offsets from a bias per position (layout.c: SlicePosSpan,
   SliceBiasFits)?  Then its sizes (szb: its biases). */
__global__ static void FitsKernel(PetscInt ns, PetscInt m, const PetscInt *slicerow, const PetscInt *perm, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const int *width, bool compress, bool compressbias, bool compressdict, unsigned char *meta, PetscCount *szall, PetscCount *sz16, PetscCount *sz32, PetscInt *f16, PetscCount *szb, PetscInt *fb, PetscInt *fd)
{
  const int      lane = threadIdx.x & 31;
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (s > ns) return;
  if (s == ns) { /* the scans' totals */
    if (lane == 0) szall[ns] = sz16[ns] = sz32[ns] = f16[ns] = szb[ns] = fb[ns] = fd[ns] = 0;
    return;
  }
  const int      w = width[s], l2 = meta[s] & 15, tpr = 1 << l2, q = lane >> l2, j = lane & (tpr - 1);
  const PetscInt p = slicerow[s] + q, pend = s + 1 < ns ? slicerow[s + 1] : m;
  const bool     live = p < pend;
  const PetscInt row = live ? perm[p] : 0, rs = live ? ai[row] : 0, rl = live ? ai[row + 1] - rs : 0;
  bool           b = !compress;
  if (compress)
    for (PetscInt e = j; e < rl; e += tpr) {
      const PetscInt d = aj[rs + e] - row;
      if (d <= ELLWARP_PAD16 || d > 32767) b = true;
    }
  const bool bad  = __any_sync(0xffffffffu, b);
  bool       bias = false;
  if (bad && compress && compressbias && l2 <= ELLWARP_BIAS_MAXL2) { /* warp-uniform */
    bias = true;
    for (int k = 0; k < w && bias; k++) {
      const PetscInt e   = (PetscInt)k * tpr + j;
      const bool     has = e < rl;
      int            mn, mx;
      PosSpan(has, has ? (int)(aj[rs + e] - row) : 0, l2, &mn, &mx);
      bias = !__any_sync(0xffffffffu, mn <= mx && (long long)mx - (long long)mn > ELLWARP_BIAS_SPAN);
    }
  }
  int nwin = -1; /* the dictionary mode where neither 16-bit offset mode fits and it saves bytes (layout.c) */
  if (bad && !bias && compress && compressdict) {
    nwin = DictRounds<false>(aj, rs, rl, tpr, j, lane, NULL, NULL);
    if (!EllwarpDictTakes(nwin, w)) nwin = -1;
  }
  if (lane == 0) {
    const PetscCount sz = (PetscCount)w * ELLWARP_LANES;
    const bool       c16 = !bad || bias || nwin >= 0;
    meta[s] |= !bad ? 16 : (bias ? 48 : (nwin >= 0 ? 80 : 0));
    szall[s] = sz;
    sz16[s]  = c16 ? sz : 0;
    sz32[s]  = c16 ? 0 : sz;
    f16[s]   = c16 ? 1 : 0;
    szb[s]   = bias ? (PetscCount)w << l2 : (nwin >= 0 ? nwin : 0);
    fb[s]    = bias ? 1 : 0;
    fd[s]    = nwin >= 0 ? 1 : 0;
  }
}

/* the scans' totals in one array, for one copy to the host */
__global__ static void TotalsKernel(PetscInt ns, const PetscCount *sliceptr, const PetscCount *o16, const PetscCount *o32, const PetscInt *n16, const PetscCount *ob, const PetscInt *nb, const PetscInt *nd, PetscCount *tot)
{
  tot[7] = nd[ns];
  tot[0] = sliceptr[ns];
  tot[1] = o16[ns];
  tot[2] = o32[ns];
  tot[3] = n16[ns];
  tot[5] = ob[ns];
  tot[6] = nb[ns];
}

/* nactive (layout.c): the slices before the trailing run of empty ones; exactly one slice s ends where the slots
   end while starting before (sliceptr is nondecreasing), so one thread writes */
__global__ static void ActiveKernel(PetscInt ns, const PetscCount *sliceptr, PetscCount *nactive)
{
  const PetscCount total = sliceptr[ns];
  for (PetscInt s = blockIdx.x * blockDim.x + threadIdx.x; s < ns; s += gridDim.x * blockDim.x)
    if (sliceptr[s] < total && sliceptr[s + 1] == total) *nactive = s + 1;
}

__global__ static void ColbaseKernel(PetscInt ns, const unsigned char *meta, const PetscCount *o16, const PetscCount *o32, PetscCount *colbase)
{
  for (PetscInt s = blockIdx.x * blockDim.x + threadIdx.x; s < ns; s += gridDim.x * blockDim.x) colbase[s] = (meta[s] & 16) ? o16[s] : o32[s];
}

/* one warp per slice: lane = q*tpr + j holds entries j, j+tpr, ... of the slice's q-th row; a biased slice's
   entry positions get the midpoint of their span (EllwarpBiasOf, as layout.c) */
__global__ static void FillKernel(PetscInt ns, PetscInt m, const PetscCount *sliceptr, const PetscInt *slicerow, const unsigned char *meta, const PetscCount *colbase, const PetscCount *biasbase, const PetscInt *perm, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const PetscInt *__restrict__ map, int *col32, short *col16, int *colbias, PetscInt *slot2csr, PetscCount *diagslot)
{
  const int      lane = threadIdx.x & 31;
  const PetscInt s    = (PetscInt)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (s >= ns) return;
  const PetscCount base = sliceptr[s];
  const int        w    = (int)((sliceptr[s + 1] - base) / ELLWARP_LANES);
  const int        l2 = meta[s] & 15, isbias = meta[s] & 32, isdict = meta[s] & 64, tpr = 1 << l2, q = lane >> l2, j = lane & (tpr - 1);
  const PetscInt   p    = slicerow[s] + q, pend = s + 1 < ns ? slicerow[s + 1] : m;
  const bool       live = p < pend;
  const PetscInt   row  = live ? perm[p] : 0;
  const PetscInt   rs   = live ? ai[row] : 0, rl = live ? ai[row + 1] - rs : 0;
  if (isdict) (void)DictRounds<true>(aj, rs, rl, tpr, j, lane, col16 + colbase[s], colbias + biasbase[s]); /* the table and the entries' codes */
  for (int k = 0; k < w; k++) { /* warp-uniform: the bias reductions */
    const PetscInt   e   = (PetscInt)k * tpr + j;
    const PetscCount off = (PetscCount)k * ELLWARP_LANES + lane;
    int              b   = 0;
    if (isbias) {
      int mn, mx;
      PosSpan(e < rl, e < rl ? (int)(aj[rs + e] - row) : 0, l2, &mn, &mx);
      b = mn <= mx ? EllwarpBiasOf(mn, mx) : 0;
      if (q == 0) colbias[biasbase[s] + e] = b; /* e = k * tpr + j */
    }
    { /* which column array gets what (ellwarpslicelane.h): a dictionary slice's colbase indexes col16 and its entries'
         codes are DictRounds', so only its padding is stored here (never anything into col32) */
      const PetscInt col = e < rl ? aj[rs + e] : -1;
      short          v16 = 0;
      int            v32 = 0;
      const int      to  = EllwarpFillSlotTarget(meta[s], e < rl, col, row, b, &v16, &v32);
      if (to == 16) col16[colbase[s] + off] = v16;
      else if (to == 32) col32[colbase[s] + off] = v32;
      slot2csr[base + off] = e < rl ? (map ? map[rs + e] : rs + e) : -1;
      if (e < rl && col == row) diagslot[row] = base + off;
    }
  }
}

/* ---- 4. long rows --------------------------------------------------------------------------------- */
__global__ static void LongLenKernel(PetscInt nlong, const PetscInt *perm, const PetscInt *len, PetscCount *ll, PetscInt *cc)
{
  for (PetscInt q = blockIdx.x * blockDim.x + threadIdx.x; q <= nlong; q += gridDim.x * blockDim.x) {
    const PetscInt l = q < nlong ? len[perm[q]] : 0;
    ll[q]            = l;
    cc[q]            = (l + ELLWARP_CHUNK - 1) / ELLWARP_CHUNK;
  }
}

__global__ static void ChunkKernel(PetscInt nlong, const PetscCount *longptr, const PetscInt *longchunk, PetscCount *chunkptr, PetscInt *chunkrow)
{
  for (PetscInt q = blockIdx.x * blockDim.x + threadIdx.x; q < nlong; q += gridDim.x * blockDim.x)
    for (PetscInt c = longchunk[q]; c < longchunk[q + 1]; c++) {
      chunkrow[c]     = q;
      const PetscCount e = longptr[q] + (PetscCount)(c - longchunk[q] + 1) * ELLWARP_CHUNK;
      chunkptr[c + 1] = e < longptr[q + 1] ? e : longptr[q + 1];
    }
}

/* one block per long row: contiguous slots after the slices, 32-bit columns */
__global__ static void LongFillKernel(PetscInt nlong, PetscCount nslots, PetscCount longcolbase, const PetscInt *perm, const PetscCount *longptr, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const PetscInt *__restrict__ map, int *col32, PetscInt *slot2csr, PetscCount *diagslot)
{
  for (PetscInt q = blockIdx.x; q < nlong; q += gridDim.x) {
    const PetscInt row = perm[q];
    for (PetscInt e = threadIdx.x; e < ai[row + 1] - ai[row]; e += blockDim.x) {
      const PetscCount slot = longptr[q] + e;
      const PetscInt   k    = ai[row] + e;
      col32[longcolbase + (slot - nslots)] = (int)aj[k];
      slot2csr[slot]                       = map ? map[k] : k;
      if (aj[k] == row) diagslot[row] = slot;
    }
  }
}

__global__ static void HeadsKernel(PetscInt m, PetscInt ns, PetscCount nslots, PetscInt *slicerow, PetscCount *longptr, PetscInt *longchunk, PetscCount *chunkptr)
{
  slicerow[ns] = m;
  longptr[0]   = nslots;
  longchunk[0] = 0;
  chunkptr[0]  = nslots;
}

__global__ static void DiagMissingKernel(PetscInt n, const PetscCount *diagslot, int *missing)
{
  int c = 0;
  for (PetscInt i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c += diagslot[i] < 0;
  c = WarpSum(c);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(missing, c);
}

/* ---- the analysis --------------------------------------------------------------------------------- */
static PetscErrorCode Sync(PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpDeviceSynchronize());
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutCreateCUDA(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscMemType mtype, const EllwarpParams *par, EllwarpLayout **out, EllwarpDeviceArrays *d, EllwarpAnalysisTimes *times)
{
  EllwarpLayout      *L;
  const PetscInt     *dai = ai, *daj = aj, *dmap = map;
  PetscInt           *uai = NULL, *uaj = NULL, *umap = NULL, *len = NULL, *sortedlen = NULL, *cnt = NULL, *off = NULL, *cc = NULL, *f16 = NULL, *fb = NULL, *fdc = NULL;
  int                *width = NULL, *dmiss = NULL, nmiss = 0;
  PetscCount         *szall = NULL, *sz16 = NULL, *sz32 = NULL, *o16 = NULL, *o32 = NULL, *szb = NULL, *ll = NULL, nnz, tot[8];
  DevStats            hs, *dst = NULL;
  unsigned long long *dhist = NULL;
  EllwarpRowStats     st;
  EllwarpPlan         plan;
  PetscInt            longrow, W, Wwalk = -1, ns, nlong;
  PetscLogDouble      t0 = 0, t1 = 0, t2 = 0;
  cudaStream_t        stream;

  PetscFunctionBegin;
  PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ELLWARP stores 32-bit column indices; %" PetscInt_FMT " columns do not fit", n);
  PetscCheck(par->sortwindow == -1 || (par->sortwindow >= 0 && par->sortwindow % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune sort_window=%" PetscInt_FMT " must be -1 (automatic), 0 (whole matrix) or a positive multiple of %d", par->sortwindow, ELLWARP_LANES);
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCall(PetscEllwarpGetStream(&stream));
  if (times) PetscCall(Sync(&t0));
  /* the pattern to the device */
  if (PetscMemTypeHost(mtype)) {
    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Upload, 0, 0, 0, 0));
    nnz = m ? ai[m] : 0;
    PetscCall(Alloc(&uai, (PetscCount)m + 1, "CSR row offsets"));
    PetscCall(Alloc(&uaj, nnz, "CSR columns"));
    if (map) PetscCall(Alloc(&umap, nnz, "CSR entry map"));
    PetscCallCUDA(cudaMemcpyAsync(uai, ai, ((size_t)m + 1) * sizeof(PetscInt), cudaMemcpyHostToDevice, stream));
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(uaj, aj, (size_t)nnz * sizeof(PetscInt), cudaMemcpyHostToDevice, stream));
    if (map && nnz) PetscCallCUDA(cudaMemcpyAsync(umap, map, (size_t)nnz * sizeof(PetscInt), cudaMemcpyHostToDevice, stream));
    PetscCall(PetscLogCpuToGpu(((PetscLogDouble)m + 1 + (map ? 2.0 : 1.0) * nnz) * sizeof(PetscInt)));
    dai  = uai;
    daj  = uaj;
    dmap = umap;
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Upload, 0, 0, 0, 0));
  }
  if (times) PetscCall(Sync(&t1));
  PetscCall(PetscLogGpuTimeBegin());
  longrow = EllwarpLayoutLongRow(par, 0, 0, 0);

  /* 1. the summary */
  hs.nnz = hs.nnzshort = hs.nchunks = hs.sum2 = 0;
  hs.minlen                                  = INT_MAX;
  hs.maxlen = hs.maxshort = hs.nlong = 0;
  PetscCall(Alloc(&dst, 1, "row statistics"));
  PetscCallCUDA(cudaMemcpyAsync(dst, &hs, sizeof(hs), cudaMemcpyHostToDevice, stream));
  PetscCall(Alloc(&len, m, "row lengths"));
  if (m) RowStatsKernel<<<PetscMin(Grid(m), 512u), NT, 0, stream>>>(m, dai, longrow, len, dst);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(ToHost(&hs, dst, 1));
  { /* the long-row limit depends on the moments (power-law rows): count the long rows again under it */
    const PetscInt lr = EllwarpLayoutLongRow(par, m, (PetscCount)hs.nnz, (PetscInt64)hs.sum2);
    if (lr != longrow) {
      longrow  = lr;
      hs.nnz = hs.nnzshort = hs.nchunks = hs.sum2 = 0;
      hs.minlen                                  = INT_MAX;
      hs.maxlen = hs.maxshort = hs.nlong = 0;
      PetscCallCUDA(cudaMemcpyAsync(dst, &hs, sizeof(hs), cudaMemcpyHostToDevice, stream));
      RowStatsKernel<<<PetscMin(Grid(m), 512u), NT, 0, stream>>>(m, dai, longrow, len, dst);
      PetscCallCUDA(cudaGetLastError());
      PetscCall(ToHost(&hs, dst, 1));
    }
  }
  st.nrows    = m;
  st.longrow  = longrow;
  st.nnz      = (PetscCount)hs.nnz;
  st.nnzshort = (PetscCount)hs.nnzshort;
  st.nchunks  = (PetscCount)hs.nchunks;
  st.sum2     = (PetscInt64)hs.sum2;
  st.nlong    = hs.nlong;
  st.minlen   = m ? hs.minlen : 0;
  st.maxlen   = hs.maxlen;
  st.maxshort = hs.maxshort;
  nlong       = st.nlong;
  {
    const int nbins = (int)st.maxshort + 1;
    PetscCall(Alloc(&dhist, nbins, "row-length histogram"));
    PetscCallCUDA(cudaMemsetAsync(dhist, 0, nbins * sizeof(unsigned long long), stream));
    if (m) HistKernel<<<PetscMin(Grid(m), 1024u), NT, nbins <= SHARED_BINS ? nbins * sizeof(unsigned int) : 0, stream>>>(m, len, longrow, nbins, dhist);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscMalloc1(nbins, &st.hist));
    static_assert(sizeof(PetscCount) == sizeof(unsigned long long), "64-bit counts");
    PetscCall(ToHost((unsigned long long *)st.hist, dhist, nbins));
  }
  PetscCall(Alloc(&d->rowperm, m, "row permutation"));
  PetscCall(Alloc(&sortedlen, m, "sorted lengths"));
  /* 2. the window walk */
  W = EllwarpLayoutWalkWindow(par, m, st.nnz, st.sum2);
  if (W > 0) {
    Cands    c;
    DevWalk *dw, hw[ELLWARP_NCAND];
    PetscInt cT[ELLWARP_NCAND], nT, nwin = (m - nlong + W - 1) / W;

    Wwalk = st.window = W;
    PetscCall(SortRows(m, len, longrow, W, st.maxshort, d->rowperm, sortedlen));
    PetscCall(EllwarpLayoutCandidates(par, &nT, cT));
    c.n = (int)nT;
    for (PetscInt i = 0; i < nT; i++) c.T[i] = cT[i];
    PetscCall(Alloc(&dw, nT, "slice walks"));
    PetscCallCUDA(cudaMemsetAsync(dw, 0, nT * sizeof(DevWalk), stream));
    if (nwin) WindowWalkKernel<<<Grid(nwin * nT), NT, 0, stream>>>(nlong, m, W, sortedlen, c, dw);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(ToHost(hw, dw, nT));
    PetscCall(Free(&dw));
    st.nwalk = nT;
    for (PetscInt i = 0; i < nT; i++) {
      st.walk[i].T        = cT[i];
      st.walk[i].nslots   = (PetscCount)hw[i].nslots;
      st.walk[i].maxwidth = hw[i].maxwidth;
      st.walk[i].nslices  = hw[i].nslices;
      st.walk[i].nsplit   = hw[i].nsplit;
    }
  }
  /* 3. the choice: layout.c's code on the summary */
  PetscCall(EllwarpLayoutChoose(&st, par, &plan));
  PetscCall(PetscNew(&L));
  L->analysedondevice = PETSC_TRUE;
  EllwarpLayoutSetPlanned(L, m, n, &st, &plan);
  W  = plan.W;
  ns = plan.walk.nslices;
  if (W != Wwalk) PetscCall(SortRows(m, len, longrow, W, st.maxshort, d->rowperm, sortedlen));

  /* 4. slices */
  PetscCall(Alloc(&d->slicerow, (PetscCount)ns + 1, "slice rows"));
  PetscCall(Alloc(&d->meta, ns, "slice formats"));
  PetscCall(Alloc(&width, ns, "slice widths"));
  if (W > 0) {
    PetscInt nwin = (m - nlong + W - 1) / W, total = 0;
    PetscCall(Alloc(&cnt, (PetscCount)nwin + 1, "slices per window"));
    PetscCall(Alloc(&off, (PetscCount)nwin + 1, "slices per window"));
    PetscCallCUDA(cudaMemsetAsync(cnt, 0, (nwin + 1) * sizeof(PetscInt), stream));
    if (nwin) WindowSlicesKernel<<<Grid(nwin), NT, 0, stream>>>(nlong, m, W, plan.T, sortedlen, false, cnt, NULL, NULL, NULL, NULL);
    PetscCall(ExclusiveScan(cnt, off, (PetscCount)nwin + 1, (PetscInt)0));
    PetscCall(ToHost(&total, off + nwin, 1));
    PetscCheck(total == ns, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device slice count %" PetscInt_FMT " != planned %" PetscInt_FMT, total, ns);
    if (nwin) WindowSlicesKernel<<<Grid(nwin), NT, 0, stream>>>(nlong, m, W, plan.T, sortedlen, true, NULL, off, d->slicerow, d->meta, width);
    PetscCallCUDA(cudaGetLastError());
  } else if (ns) {
    Runs     r;
    PetscInt nr;
    PetscCall(EllwarpLayoutWholeRuns(&st, plan.T, &nr, r.r));
    r.n = (int)nr;
    WholeSlicesKernel<<<Grid(ns), NT, 0, stream>>>(nlong, ns, r, sortedlen, d->slicerow, d->meta, width);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(EllwarpRowStatsDestroy(&st));
  PetscCall(Alloc(&szall, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&sz16, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&sz32, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&o16, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&o32, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&f16, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&szb, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&fb, (PetscCount)ns + 1, "slice sizes"));
  PetscCall(Alloc(&fdc, (PetscCount)ns + 1, "slice sizes"));
  FitsKernel<<<(unsigned)((ns + 1 + 7) / 8), 256, 0, stream>>>(ns, m, d->slicerow, d->rowperm, dai, daj, width, (bool)par->compress, (bool)par->compressbias, (bool)(par->compress && par->compressdict), d->meta, szall, sz16, sz32, f16, szb, fb, fdc);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(Alloc(&d->sliceptr, (PetscCount)ns + 1, "slice offsets"));
  PetscCall(Alloc(&d->colbase, ns, "column offsets"));
  PetscCall(ExclusiveScan(szall, d->sliceptr, (PetscCount)ns + 1, (PetscCount)0));
  PetscCall(ExclusiveScan(sz16, o16, (PetscCount)ns + 1, (PetscCount)0));
  PetscCall(ExclusiveScan(sz32, o32, (PetscCount)ns + 1, (PetscCount)0));
  {
    PetscInt   *n16d = NULL, *nbd = NULL, *ndd = NULL;
    PetscCount *dtot = NULL;
    PetscCall(Alloc(&n16d, (PetscCount)ns + 1, "16-bit slices"));
    PetscCall(Alloc(&nbd, (PetscCount)ns + 1, "biased slices"));
    PetscCall(Alloc(&ndd, (PetscCount)ns + 1, "dictionary slices"));
    PetscCall(Alloc(&d->biasbase, (PetscCount)ns + 1, "bias offsets"));
    PetscCall(Alloc(&dtot, 8, "totals"));
    PetscCall(ExclusiveScan(f16, n16d, (PetscCount)ns + 1, (PetscInt)0));
    PetscCall(ExclusiveScan(fb, nbd, (PetscCount)ns + 1, (PetscInt)0));
    PetscCall(ExclusiveScan(fdc, ndd, (PetscCount)ns + 1, (PetscInt)0));
    PetscCall(ExclusiveScan(szb, d->biasbase, (PetscCount)ns + 1, (PetscCount)0));
    TotalsKernel<<<1, 1, 0, stream>>>(ns, d->sliceptr, o16, o32, n16d, d->biasbase, nbd, ndd, dtot);
    PetscCallCUDA(cudaMemsetAsync(dtot + 4, 0, sizeof(PetscCount), stream));
    if (ns) ActiveKernel<<<Grid(ns), NT, 0, stream>>>(ns, d->sliceptr, dtot + 4);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(ToHost(tot, dtot, 8));
    PetscCall(Free(&n16d));
    PetscCall(Free(&nbd));
    PetscCall(Free(&ndd));
    PetscCall(Free(&dtot));
    L->n16      = (PetscInt)tot[3];
    L->nactive  = (PetscInt)tot[4];
    L->ncolbias = tot[5];
    L->nbias    = (PetscInt)tot[6];
    L->ndict    = (PetscInt)tot[7];
  }
  PetscCheck(tot[0] == plan.walk.nslots, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device slots %" PetscCount_FMT " != planned %" PetscCount_FMT, tot[0], plan.walk.nslots);
  L->ncol16      = tot[1];
  L->ncol32      = tot[2];
  L->longcolbase = L->ncol32;
  if (ns) ColbaseKernel<<<Grid(ns), NT, 0, stream>>>(ns, d->meta, o16, o32, d->colbase);
  PetscCallCUDA(cudaGetLastError());

  /* 5. fill */
  PetscCall(Alloc(&d->col32, L->ncol32 + (L->nslots - tot[0]), "column indices"));
  PetscCall(Alloc(&d->col16, L->ncol16, "16-bit column offsets"));
  PetscCall(Alloc(&d->colbias, L->ncolbias, "column biases"));
  PetscCall(Alloc(&d->slot2csr, L->nslots, "value map"));
  PetscCall(Alloc(&d->diagslot, m, "diagonal slots"));
  if (m) PetscCallCUDA(cudaMemsetAsync(d->diagslot, 0xff, (size_t)m * sizeof(PetscCount), stream)); /* -1 */
  if (ns) FillKernel<<<(unsigned)((ns + 7) / 8), 256, 0, stream>>>(ns, m, d->sliceptr, d->slicerow, d->meta, d->colbase, d->biasbase, d->rowperm, dai, daj, dmap, d->col32, d->col16, d->colbias, d->slot2csr, d->diagslot);
  PetscCallCUDA(cudaGetLastError());
  /* long rows */
  PetscCall(Alloc(&d->longptr, (PetscCount)nlong + 1, "long rows"));
  PetscCall(Alloc(&d->longchunk, (PetscCount)nlong + 1, "long-row chunks"));
  PetscCall(Alloc(&d->chunkptr, (PetscCount)L->nchunks + 1, "chunks"));
  PetscCall(Alloc(&d->chunkrow, L->nchunks, "chunk rows"));
  if (nlong) {
    PetscCall(Alloc(&ll, (PetscCount)nlong + 1, "long rows"));
    PetscCall(Alloc(&cc, (PetscCount)nlong + 1, "long rows"));
    LongLenKernel<<<Grid(nlong + 1), NT, 0, stream>>>(nlong, d->rowperm, len, ll, cc);
    PetscCall(ExclusiveScan(ll, d->longptr, (PetscCount)nlong + 1, tot[0]));
    PetscCall(ExclusiveScan(cc, d->longchunk, (PetscCount)nlong + 1, (PetscInt)0));
    ChunkKernel<<<Grid(nlong), NT, 0, stream>>>(nlong, d->longptr, d->longchunk, d->chunkptr, d->chunkrow);
    LongFillKernel<<<(unsigned)PetscMin(nlong, 65535), 256, 0, stream>>>(nlong, tot[0], L->longcolbase, d->rowperm, d->longptr, dai, daj, dmap, d->col32, d->slot2csr, d->diagslot);
    PetscCallCUDA(cudaGetLastError());
  }
  HeadsKernel<<<1, 1, 0, stream>>>(m, ns, tot[0], d->slicerow, d->longptr, d->longchunk, d->chunkptr);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(Alloc(&dmiss, 1, "missing diagonals"));
  PetscCallCUDA(cudaMemsetAsync(dmiss, 0, sizeof(int), stream));
  if (PetscMin(m, n)) DiagMissingKernel<<<Grid(PetscMin(m, n)), NT, 0, stream>>>(PetscMin(m, n), d->diagslot, dmiss);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(ToHost(&nmiss, dmiss, 1)); /* also waits for the fill */
  L->ndiagmissing = nmiss;
  PetscCall(PetscLogGpuTimeEnd());

  PetscCall(Free(&dmiss));
  PetscCall(Free(&ll));
  PetscCall(Free(&cc));
  PetscCall(Free(&szall));
  PetscCall(Free(&sz16));
  PetscCall(Free(&sz32));
  PetscCall(Free(&o16));
  PetscCall(Free(&o32));
  PetscCall(Free(&f16));
  PetscCall(Free(&szb));
  PetscCall(Free(&fb));
  PetscCall(Free(&fdc));
  PetscCall(Free(&cnt));
  PetscCall(Free(&off));
  PetscCall(Free(&width));
  PetscCall(Free(&sortedlen));
  PetscCall(Free(&len));
  PetscCall(Free(&dhist));
  PetscCall(Free(&dst));
  PetscCall(Free(&uai));
  PetscCall(Free(&uaj));
  PetscCall(Free(&umap));
  if (times) {
    PetscCall(Sync(&t2));
    times->upload   = t1 - t0;
    times->analysis = t2 - t1;
  }
  *out = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpDeviceArraysFree(EllwarpDeviceArrays *d)
{
  PetscFunctionBegin;
  PetscCall(Free(&d->sliceptr));
  PetscCall(Free(&d->colbase));
  PetscCall(Free(&d->diagslot));
  PetscCall(Free(&d->longptr));
  PetscCall(Free(&d->chunkptr));
  PetscCall(Free(&d->slicerow));
  PetscCall(Free(&d->rowperm));
  PetscCall(Free(&d->slot2csr));
  PetscCall(Free(&d->longchunk));
  PetscCall(Free(&d->chunkrow));
  PetscCall(Free(&d->meta));
  PetscCall(Free(&d->col32));
  PetscCall(Free(&d->col16));
  PetscCall(Free(&d->colbias));
  PetscCall(Free(&d->biasbase));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutFetchCUDA(EllwarpLayout *L, const EllwarpDeviceArrays *d)
{
  const PetscInt   m = L->nrows, ns = L->nslices, nl = L->nlong, nc = L->nchunks;

  PetscFunctionBegin;
  if (L->hostarrays) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(m, &L->rowperm));
  PetscCall(PetscMalloc4(ns + 1, &L->sliceptr, ns + 1, &L->slicerow, ns, &L->meta, ns, &L->colbase));
  PetscCall(PetscMalloc2(L->nslots, &L->slot2csr, m, &L->diagslot));
  PetscCall(PetscMalloc4(nl + 1, &L->longptr, nl + 1, &L->longchunk, nc + 1, &L->chunkptr, nc, &L->chunkrow));
  PetscCall(ToHost(L->sliceptr, d->sliceptr, (PetscCount)ns + 1));
  {
    const PetscCount n32 = L->ncol32 + (L->nslots - L->nsliceslots);
    PetscCall(PetscMalloc2(n32, &L->col32, L->ncol16, &L->col16));
    PetscCall(ToHost(L->col32, d->col32, n32));
    PetscCall(ToHost(L->col16, d->col16, L->ncol16));
    PetscCall(PetscMalloc1(L->ncolbias, &L->colbias));
    PetscCall(ToHost(L->colbias, d->colbias, L->ncolbias));
    PetscCall(PetscMalloc1(ns, &L->biasbase));
    PetscCall(ToHost(L->biasbase, d->biasbase, ns));
  }
  PetscCall(ToHost(L->rowperm, d->rowperm, m));
  PetscCall(ToHost(L->slicerow, d->slicerow, (PetscCount)ns + 1));
  PetscCall(ToHost(L->meta, d->meta, ns));
  PetscCall(ToHost(L->colbase, d->colbase, ns));
  PetscCall(ToHost(L->slot2csr, d->slot2csr, L->nslots));
  PetscCall(ToHost(L->diagslot, d->diagslot, m));
  PetscCall(ToHost(L->longptr, d->longptr, (PetscCount)nl + 1));
  PetscCall(ToHost(L->longchunk, d->longchunk, (PetscCount)nl + 1));
  PetscCall(ToHost(L->chunkptr, d->chunkptr, (PetscCount)nc + 1));
  PetscCall(ToHost(L->chunkrow, d->chunkrow, nc));
  L->hostarrays = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
