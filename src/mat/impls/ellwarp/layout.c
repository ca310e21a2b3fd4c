/* Row analysis of the ELL-WARP layout and the plain-C reference kernels over it.
   Everything here is backend-neutral: the CUDA backend uploads what EllwarpLayoutCreate() builds. */
#include <petscellwarp/private/ellwarplayout.h>
#include <petscsys.h>
#include <limits.h>

/* Cost model for the a-priori kernel choice (the paper leaves it to a search).  SpMV is bandwidth
   bound: a slot costs its 12 bytes (value + 32-bit column) at ELLWARP_BW.  But a warp's loop over its
   slice is latency bound (~ELLWARP_T_ITER per iteration: a column load, then the dependent x load), so
   the kernel cannot finish before its widest slice does.  Time = max(traffic, widest slice) for a sort in
   windows; for the whole-matrix sort (every matrix whose rows are not power-law) a fluid model of the warps'
   schedule (SimulateWhole, below); the threshold T with the least time wins, ties going to fewer lanes per row.  Rows too long for 32 lanes
   go to the chunked path, and a matrix under ELLWARP_SMALL_BYTES is latency bound throughout: it gets
   the most lanes per row.  Constants from H200 runs of benchmarks/spmv (sweeps over T, block size,
   window); the benchmark checks the choice against the exhaustive search on every suite matrix.

   Recalibration on the H200 and H100 sweeps (benchmarks/spmv/calibrate.py reads both main.json files
   and replays this rule): the regular matrices (FE, QCD, epidemiology) and the small one keep the rule
   above (within 4% of each device's best), but power-law matrices (row-length std/mean > 1) do not: on
   the H100 the former choice (whole-matrix sort, T = 4, 128 threads) was 15% behind the best on
   powerlaw_circuit and 5% on powerlaw_web.  Their best configurations on both devices sort in windows
   (256 or 4096 rows) and split at T = 8..16; on the H100 only the 4096-row window with blocks of 256+
   threads comes within 5% on powerlaw_circuit.  Why: half or more of the columns are near the row
   (the "local" columns of circuit and web graphs), so a whole-matrix sort, which gathers the short rows
   of the whole matrix into the same warps, scatters x and y accesses; a 4096-row window keeps them
   local and, unlike a 256-row one, still groups rows of similar length (few padded slots).  The larger
   block gives the long-row chunks (one block per 2048 entries, latency-bound strided loads) 2x the
   threads, so they finish under the slices.  (H100, with the chunks' loads all in flight: a 1024-row
   window and rows over 256 entries in chunks are 2-5% faster again on both.)  Power-law rule: window ELLWARP_IRREGULAR_WINDOW,
   T = ELLWARP_IRREGULAR_T, ELLWARP_IRREGULAR_BLOCK threads (H100: 1.02 and 1.01 of the best on circuit
   and web; H200, measured at 128 threads only: 1.03 on circuit, web not swept in that window).  The
   block size is otherwise ELLWARP_BLOCK (a -mat_ellwarp_tune block_size given wins). */
#define ELLWARP_BYTES_PER_SLOT 12.0
#define ELLWARP_BW             3.0e12
#define ELLWARP_T_ITER         1.0e-6
#define ELLWARP_SMALL_BYTES    24.0e6 /* below this the SpMV is latency bound */
#define ELLWARP_IRREGULAR_CV   1.0    /* row-length std/mean above which rows are "power-law" */
#define ELLWARP_IRREGULAR_WINDOW 1024 /* power-law rows: sort window, threshold, threads per block, long rows (see above) */
#define ELLWARP_IRREGULAR_T      8
#define ELLWARP_IRREGULAR_BLOCK  256
#define ELLWARP_IRREGULAR_LONGROW 256 /* H100 (benchmarks/results/spmv-h100-longrow): with 1024-row windows and chunks of
                                         8 entries per thread in flight, web 0.98 -> 1.00 and circuit 1.07 -> 1.10 of the
                                         best cuSPARSE (512: 16 entries per lane of a K2 row; 64, 128: too many chunks) */
#define ELLWARP_BLOCK            128  /* every other matrix: best or within 1% on the H200 and H100 sweeps */
/* Sort window of larger matrices: a whole-matrix sort pads least, but scatters each warp's rows (and so its y writes
   and row-permutation reads) over the matrix; a 256-row window keeps them local.  Cost in bytes: slots at
   12, padding slots once more (a padded lane still walks the slice), per row 40 (whole matrix) or 12
   (window).  Matrices with power-law rows sort in windows of ELLWARP_IRREGULAR_WINDOW rows; matrices of at most
   ELLWARP_WHOLE_ROUNDS rounds of resident warps sort whole (EllwarpLayoutWalkWindow). */
#define ELLWARP_ROW_BYTES_WHOLE  40.0
#define ELLWARP_ROW_BYTES_WINDOW 12.0
#define ELLWARP_AUTO_WINDOW      256
#define ELLWARP_WHOLE_ROUNDS     3
/* the schedule model of the whole-matrix sort (SimulateWhole) */
#define ELLWARP_SIM_WARPS   8448  /* 132 SMs x 64 warps: H100 and H200 with 128-thread blocks of <= 32 registers */
#define ELLWARP_SIM_STEP_US 0.9   /* one latency-bound step of a warp (MultKernel: a column load, then the x load) */
#define ELLWARP_SIM_STEP_BATCHED_US (ELLWARP_SIM_STEP_US / 8) /* the same with MultKernelB (the FE rows' default, EllwarpTuneResolve): fitted, below */
#define ELLWARP_SIM_START   3     /* steps a slice costs before its first (its metadata loads) */
#define ELLWARP_SIM_BW      3.0e6 /* bytes per microsecond */
#define ELLWARP_LONG_WIDTH     16 /* K2 width (entries per lane) beyond which a row takes the chunked path */

/* lanes per row for a row of length len under threshold T (T <= 0: K1) */
static inline PetscInt LanesLog2(PetscInt len, PetscInt T)
{
  PetscInt l = 0;
  if (T <= 0) return 0;
  while (l < 5 && (len + (1 << l) - 1) / (1 << l) > T) l++;
  return l;
}

/* The slice that starts at sorted row p (rows p0..n-1 are not long): lanes per row (log2), rows, width.
   A slice never crosses a sort window, since its first row must be its longest. */
static inline void SliceShape(PetscInt p, PetscInt p0, PetscInt n, const PetscInt sortedlen[], PetscInt sortwindow, PetscInt T, PetscInt *l2, PetscInt *rows, PetscInt *w)
{
  *l2   = LanesLog2(sortedlen[p], T);
  *rows = ELLWARP_LANES >> *l2;
  if (sortwindow > 0) *rows = PetscMin(*rows, sortwindow - (p - p0) % sortwindow);
  *rows = PetscMin(*rows, n - p);
  *w    = (sortedlen[p] + (1 << *l2) - 1) >> *l2;
}

/* Walk sorted row lengths (rows p0..n-1) as the layout would: slot count, widest slice, slices, splits. */
static void SliceWalk(PetscInt p0, PetscInt n, const PetscInt sortedlen[], PetscInt sortwindow, PetscInt T, PetscCount *nslots, PetscInt *maxwidth, PetscInt *nslices, PetscInt *nsplit)
{
  PetscCount slots = 0;
  PetscInt   p = p0, mw = 0, ns = 0, nsp = 0;

  while (p < n) {
    PetscInt l2, rows, w;
    SliceShape(p, p0, n, sortedlen, sortwindow, T, &l2, &rows, &w);
    slots += (PetscCount)w * ELLWARP_LANES;
    mw = PetscMax(mw, w);
    ns++;
    if (l2) nsp++;
    p += rows;
  }
  *nslots   = slots;
  *maxwidth = mw;
  *nslices  = ns;
  *nsplit   = nsp;
}

static PetscErrorCode SortRows(PetscInt n, const PetscInt rowlen[], PetscInt sortwindow, PetscInt longrow, PetscInt perm[], PetscInt sortedlen[], PetscInt *nlong)
{
  PetscInt *key, nl = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &key));
  /* long rows first (in row order), then the rest sorted longest first within each window */
  for (PetscInt i = 0; i < n; i++)
    if (longrow > 0 && rowlen[i] > longrow) perm[nl++] = i;
  for (PetscInt i = 0, q = nl; i < n; i++)
    if (!(longrow > 0 && rowlen[i] > longrow)) perm[q++] = i;
  for (PetscInt start = nl; start < n; start += (sortwindow > 0 ? sortwindow : n)) {
    PetscInt len = sortwindow > 0 ? PetscMin(sortwindow, n - start) : n - start, maxl = 0;

    for (PetscInt i = 0; i < len; i++) maxl = PetscMax(maxl, rowlen[perm[start + i]]);
    if (maxl <= 4 * len) { /* counting sort: linear, and stable by construction (rows of equal length keep their order) */
      PetscInt *off;
      PetscCall(PetscCalloc1(maxl + 2, &off));
      for (PetscInt i = 0; i < len; i++) off[maxl - rowlen[perm[start + i]] + 1]++;
      for (PetscInt l = 0; l <= maxl; l++) off[l + 1] += off[l];
      for (PetscInt i = 0; i < len; i++) {
        PetscInt row = perm[start + i];
        key[start + off[maxl - rowlen[row]]++] = row;
      }
      PetscCall(PetscArraycpy(perm + start, key + start, len));
      PetscCall(PetscFree(off));
      continue;
    }
    for (PetscInt i = 0; i < len; i++) key[start + i] = -rowlen[perm[start + i]];
    PetscCall(PetscSortIntWithArray(len, key + start, perm + start));
    /* PetscSortIntWithArray is not stable: restore row order inside runs of equal length, which keeps
       neighbouring lanes on neighbouring rows (and so x accesses local) */
    for (PetscInt i = 0; i < len;) {
      PetscInt j = i + 1;
      while (j < len && key[start + j] == key[start + i]) j++;
      PetscCall(PetscSortInt(j - i, perm + start + i));
      i = j;
    }
  }
  for (PetscInt i = 0; i < n; i++) sortedlen[i] = rowlen[perm[i]];
  *nlong = nl;
  PetscCall(PetscFree(key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the a-priori choice, from a summary of the row lengths -------------------------------------
   Everything the choice needs is in EllwarpRowStats: integer moments, the histogram of the lengths of
   the rows that are not long, and (for a sort window W > 0) the slice walk of each candidate threshold.
   The host analysis and the device analysis (ellwarpanalysis.cu) both fill it, then this code decides:
   the decision has one source of truth, and both analyses build the same layout. */
static const PetscInt ChooserCand[] = {0, 256, 128, 64, 32, 16, 8, 4};

static void Moments(PetscInt, PetscCount, PetscInt64, PetscReal *, PetscReal *);

PetscInt EllwarpLayoutLongRow(const EllwarpParams *par, PetscInt m, PetscCount nnz, PetscInt64 sum2)
{
  PetscReal mean, std;

  /* a row whose K2 width with all 32 lanes would exceed ELLWARP_LONG_WIDTH keeps one warp busy long
     after the others finish: it goes to the chunked path, spread over many thread blocks; power-law rows
     (moments known: m > 0) from ELLWARP_IRREGULAR_LONGROW entries on */
  if (par->longrow) return par->longrow;
  if (par->kernel == MAT_ELLWARP_KERNEL_K1) return -1; /* K1 as the paper defines it */
  Moments(m, nnz, sum2, &mean, &std);
  if (m > 0 && std > ELLWARP_IRREGULAR_CV * mean) return ELLWARP_IRREGULAR_LONGROW;
  return ELLWARP_LANES * ELLWARP_LONG_WIDTH;
}

PetscErrorCode EllwarpLayoutCandidates(const EllwarpParams *par, PetscInt *nT, PetscInt T[])
{
  PetscInt  n   = 0;
  PetscBool has = PETSC_FALSE;

  PetscFunctionBegin;
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(ChooserCand); c++) {
    T[n++] = ChooserCand[c];
    if (ChooserCand[c] == par->threshold) has = PETSC_TRUE;
  }
  if (par->threshold > 0 && !has) T[n++] = par->threshold;
  *nT = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Moments(PetscInt m, PetscCount nnz, PetscInt64 sum2, PetscReal *mean, PetscReal *std)
{
  *mean = m ? (PetscReal)nnz / m : 0;
  *std  = m ? PetscSqrtReal(PetscMax(0, (PetscReal)sum2 / m - *mean * *mean)) : 0;
}

PetscInt EllwarpLayoutWalkWindow(const EllwarpParams *par, PetscInt m, PetscCount nnz, PetscInt64 sum2)
{
  PetscReal mean, std;

  if (par->sortwindow >= 0) return par->sortwindow;
  Moments(m, nnz, sum2, &mean, &std);
  if (std > ELLWARP_IRREGULAR_CV * mean) return ELLWARP_IRREGULAR_WINDOW;
  /* rows not power-law, and few enough that their slices fill the resident warps at most ELLWARP_WHOLE_ROUNDS
     times: the whole-matrix sort, whose last slices are the narrowest (a short tail); the threshold then comes from
     the schedule model (SimulateWhole).  H100 sweeps (benchmarks/results/spmv-h100-dmplex/chooser-sweep and
     spmv-h100*): on the 9 such matrices (0.02-0.8 M rows) the whole sort's best is within 0.4 % of the sweep's best,
     a 256-row window's 1.5-8.5 % behind.  On larger ones (1.0-1.4 M rows: lv_gmsh_p1, lv_struct_p1, the 1.37 M box
     P1, epidemiology) windows win by 1-7 % (the tail matters less than the locality of a window's rows), so they
     keep the rule below (a 256-row window or the whole matrix, by bytes) */
  if (m > 0 && m <= (PetscInt)ELLWARP_WHOLE_ROUNDS * ELLWARP_SIM_WARPS * ELLWARP_LANES) return 0;
  return ELLWARP_AUTO_WINDOW;
}

/* power-law rows (std/mean of all row lengths above ELLWARP_IRREGULAR_CV): the same test as the window's */
static PetscBool Irregular(const EllwarpRowStats *st)
{
  PetscReal mean, std;

  Moments(st->nrows, st->nnz, st->sum2, &mean, &std);
  return (PetscBool)(st->nrows > 0 && std > ELLWARP_IRREGULAR_CV * mean);
}

/* The whole-matrix sort from the histogram: the sorted lengths are the bins, longest first.  The slice
   starting at p takes the lane count of row p, so within a bin starts advance by the rows per slice;
   the result equals SliceWalk over the sorted lengths.  Runs: maximal sequences of slices with one lane
   count, starting at run[].start (sorted position past the long rows) every 32 >> l2 rows.  Widths (optional):
   maximal sequences of slices of one width, in dispatch order, width bw[i], bc[i] slices (SimulateWhole). */
static void HistWalk(const EllwarpRowStats *st, PetscInt T, EllwarpWalk *wk, PetscInt *nruns, EllwarpRun runs[], PetscInt *nwidths, PetscInt bw[], PetscCount bc[])
{
  PetscCount pos = 0, ns = 0, slots = 0;
  PetscInt   mw = 0, nsl = 0, nsp = 0, nr = 0, nb = 0;

  for (PetscInt L = st->maxshort; L >= 0; L--) {
    PetscCount h = st->hist[L], b = pos + h;
    if (h && ns < b) {
      PetscInt   l2 = LanesLog2(L, T), r = ELLWARP_LANES >> l2, w = (L + (1 << l2) - 1) >> l2;
      PetscCount cnt = (b - ns + r - 1) / r;
      slots += cnt * w * ELLWARP_LANES;
      nsl += (PetscInt)cnt;
      if (l2) nsp += (PetscInt)cnt;
      mw = PetscMax(mw, w);
      if (bw) {
        if (nb && bw[nb - 1] == w) bc[nb - 1] += cnt;
        else {
          bw[nb]   = w;
          bc[nb++] = cnt;
        }
      }
      if (runs) {
        if (nr && runs[nr - 1].l2 == l2 && runs[nr - 1].start + runs[nr - 1].count * r == ns) runs[nr - 1].count += cnt;
        else {
          runs[nr].start      = ns;
          runs[nr].l2         = l2;
          runs[nr].count      = cnt;
          runs[nr].firstslice = nsl - (PetscInt)cnt;
          nr++;
        }
      }
      ns += cnt * r;
    }
    pos = b;
  }
  wk->T        = T;
  wk->nslots   = slots;
  wk->maxwidth = mw;
  wk->nslices  = nsl;
  wk->nsplit   = nsp;
  if (nruns) *nruns = nr;
  if (nwidths) *nwidths = nb;
}

PetscErrorCode EllwarpLayoutWholeRuns(const EllwarpRowStats *st, PetscInt T, PetscInt *nruns, EllwarpRun runs[])
{
  EllwarpWalk wk;

  PetscFunctionBegin;
  HistWalk(st, T, &wk, nruns, runs, NULL, NULL, NULL);
  PetscCheck(*nruns <= ELLWARP_MAX_RUNS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " runs of slices", *nruns);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Walk(const EllwarpRowStats *st, PetscInt W, PetscInt T, EllwarpWalk *wk)
{
  PetscFunctionBegin;
  if (W == 0) {
    HistWalk(st, T, wk, NULL, NULL, NULL, NULL, NULL);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(st->window == W, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No slice walk for sort window %" PetscInt_FMT " (have %" PetscInt_FMT ")", W, st->window);
  for (PetscInt c = 0; c < st->nwalk; c++)
    if (st->walk[c].T == T) {
      *wk = st->walk[c];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "No slice walk for threshold %" PetscInt_FMT, T);
}

/* ---- the slice kernel's time for a whole-matrix sort (W = 0), by a fluid model of its warps ----------------
   Why a model of the schedule and not max(traffic, widest slice): on FE matrices of 0.3-1.4 M rows the slices
   fill the GPU's resident warps only 1.2-5 times (10 k-43 k slices of 32 rows against 132 SMs x 64 warps), and a
   warp's step is latency bound (the column load, then the dependent x load) once few warps are left: the
   partial last round runs at the latency of its widest slices.  Splitting rows (K2, T below the row length)
   halves the widths and doubles the slices, which the bytes-and-widest-slice rule could not see; the H100 sweeps of
   benchmarks/results/spmv-h100-dmplex/chooser-sweep (DMPlex-built P1/P2/Q1/Q2 matrices) found K2 with T = 16..64
   up to 9 % faster than the K1 that rule picked.
   The model: slices start in sorted order (longest first) on ELLWARP_SIM_WARPS resident warps; a slice costs
   ELLWARP_SIM_START + width steps; all running warps advance at the same rate, the lesser of one step per
   ELLWARP_SIM_STEP_US and their share of ELLWARP_SIM_BW (the bytes per step are the matrix's bytes over all
   steps).  Constants fitted to the W = 0 points of those sweeps (24 points: 6.6 % rms error in the time, and the
   fastest threshold of each matrix is the model's; benchmarks/results/spmv-h100-dmplex/chooser-sweep/README.md).
   Runs in O(bins log bins): slices of one width that start together are one event.
   Since the products of these rows run MultKernelB (EllwarpTuneResolve: 4 steps' columns and values loaded before
   their x entries, one round trip for the batch), a warp's step costs ELLWARP_SIM_STEP_BATCHED_US.  With that kernel
   K1 with the whole sort was the sweep's best on box P1, Q1 and Q2 scalar (P1 29.9 us, Q1 45.8; K2 with T = 16, the
   0.9 us model's choice, 32.8 and 49.5: 10 and 8 % behind; benchmarks/results/spmv-h100-dmplex/batched-kernel/
   final-h100/suite/sweep.log).  A quarter of the step (one round trip per batch) still put Q1 on K2 with T = 16
   (final-h100/sweep/); an eighth is the largest step for which the model's choice is the sweep's best on all three
   (it keeps K2 with T = 32 on P2, the 0.9 us model's choice).  Rows of one length (not batched) keep the whole step, and
   so does a matrix whose -mat_ellwarp_tune keys keep MultKernel (mult_batch=1, ...: EllwarpParams.unbatched), whose
   layout is then the one the 0.9 us model chose for MultKernel before the batch existed. */

typedef struct {
  PetscReal  P;     /* the progress (in steps) at which these warps finish */
  PetscCount count; /* warps finishing then */
} SimEvent;

static void SimPush(SimEvent *h, PetscInt *n, SimEvent e)
{
  PetscInt i = (*n)++;
  while (i > 0 && h[(i - 1) / 2].P > e.P) {
    h[i] = h[(i - 1) / 2];
    i    = (i - 1) / 2;
  }
  h[i] = e;
}

static SimEvent SimPop(SimEvent *h, PetscInt *n)
{
  SimEvent top = h[0], last = h[--(*n)];
  PetscInt i = 0;
  for (;;) {
    PetscInt c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1].P < h[c].P) c++;
    if (h[c].P >= last.P) break;
    h[i] = h[c];
    i    = c;
  }
  if (*n) h[i] = last;
  return top;
}

static PetscErrorCode SimulateWhole(const EllwarpRowStats *st, PetscBool unbatched, PetscInt T, PetscReal *us)
{
  /* the step of the kernel the products will run: MultKernelB's unless the rows are of one length or a tuning key
     keeps MultKernel (EllwarpTuneResolve; power-law rows never reach this model) */
  const PetscReal stepus = unbatched || st->minlen == st->maxlen ? ELLWARP_SIM_STEP_US : ELLWARP_SIM_STEP_BATCHED_US;
  PetscInt    nb = 0, nh = 0, b = 0, cap;
  PetscInt   *bw;
  PetscCount *bc, left, A = 0;
  PetscReal   steps = 0, bytes, perstep, P = 0, t = 0;
  EllwarpWalk wk;
  SimEvent   *heap;

  PetscFunctionBegin;
  /* the slices in dispatch order, as the whole-matrix sort lays them out: runs of one width */
  PetscCall(PetscMalloc2(st->maxshort + 1, &bw, st->maxshort + 1, &bc));
  HistWalk(st, T, &wk, NULL, NULL, &nb, bw, bc);
  for (PetscInt i = 0; i < nb; i++) steps += (PetscReal)bc[i] * (bw[i] + ELLWARP_SIM_START);
  bytes   = (PetscReal)wk.nslots * 10.0 + 16.0 * st->nrows; /* 16-bit columns; x and y */
  perstep = steps > 0 ? bytes / steps : 0;
  cap     = 2 * nb + 2;
  PetscCall(PetscMalloc1(cap, &heap));
  /* the first round, then one event per group of warps that finish together */
  left = ELLWARP_SIM_WARPS;
  while (left > 0 && b < nb) {
    PetscCount k = PetscMin(left, bc[b]);
    SimPush(heap, &nh, (SimEvent){P + bw[b] + ELLWARP_SIM_START, k});
    A += k;
    left -= k;
    if ((bc[b] -= k) == 0) b++;
  }
  while (nh) {
    SimEvent   e = SimPop(heap, &nh);
    PetscReal  rate;
    PetscCount k = e.count;
    while (nh && heap[0].P == e.P) k += SimPop(heap, &nh).count;
    rate = PetscMin(1.0 / stepus, ELLWARP_SIM_BW / ((PetscReal)A * perstep)); /* steps per us */
    t += (e.P - P) / rate;
    P = e.P;
    A -= k;
    while (k > 0 && b < nb) {
      PetscCount kk = PetscMin(k, bc[b]);
      if (nh + 1 > cap) {
        SimEvent *h2;
        PetscCall(PetscMalloc1(2 * cap, &h2));
        PetscCall(PetscArraycpy(h2, heap, nh));
        PetscCall(PetscFree(heap));
        heap = h2;
        cap *= 2;
      }
      SimPush(heap, &nh, (SimEvent){P + bw[b] + ELLWARP_SIM_START, kk});
      A += kk;
      k -= kk;
      if ((bc[b] -= kk) == 0) b++;
    }
  }
  *us = t;
  PetscCall(PetscFree(heap));
  PetscCall(PetscFree2(bw, bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ChooseThreshold(const EllwarpRowStats *st, const EllwarpParams *par, PetscInt W, MatEllwarpKernel *kernel, PetscInt *threshold)
{
  PetscReal best  = PETSC_MAX_REAL;
  PetscInt  bestT = 0, n = st->nrows - st->nlong;

  PetscFunctionBegin;
  if (par->kernel == MAT_ELLWARP_KERNEL_K1) {
    *kernel    = MAT_ELLWARP_KERNEL_K1;
    *threshold = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (par->kernel == MAT_ELLWARP_KERNEL_K2 && par->threshold > 0) {
    *kernel    = MAT_ELLWARP_KERNEL_K2;
    *threshold = par->threshold;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscReal mean = n > 0 ? (PetscReal)st->nnzshort / n : 0, var = 0;
    for (PetscInt L = 0; L <= st->maxshort; L++) var += (PetscReal)st->hist[L] * (L - mean) * (L - mean);
    var = n > 0 ? var / n : 0;
    /* power-law rows: T = 8 (see the top of the file: H100 and H200 sweeps).  A matrix this small leaves
       most of the GPU idle with one lane per row: spread rows over the most lanes (2x faster than K1 at
       20k rows on both devices) */
    if (st->nrows > 0 && Irregular(st)) {
      *threshold = ELLWARP_IRREGULAR_T;
      *kernel    = MAT_ELLWARP_KERNEL_K2;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (st->nrows > 0 && ((PetscReal)st->nnzshort * ELLWARP_BYTES_PER_SLOT < ELLWARP_SMALL_BYTES || PetscSqrtReal(var) > ELLWARP_IRREGULAR_CV * mean)) {
      *threshold = ChooserCand[PETSC_STATIC_ARRAY_LENGTH(ChooserCand) - 1];
      *kernel    = MAT_ELLWARP_KERNEL_K2;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(ChooserCand); c++) {
    EllwarpWalk wk;
    PetscReal   cost;

    if (par->kernel == MAT_ELLWARP_KERNEL_K2 && ChooserCand[c] == 0) continue;
    if (W == 0) PetscCall(SimulateWhole(st, par->unbatched, ChooserCand[c], &cost)); /* the schedule of the warps (above) */
    else {
      PetscCall(Walk(st, W, ChooserCand[c], &wk));
      /* the kernel takes as long as its traffic needs, and no less than its widest slice's warp */
      cost = PetscMax((PetscReal)wk.nslots * ELLWARP_BYTES_PER_SLOT / ELLWARP_BW, wk.maxwidth * ELLWARP_T_ITER);
    }
    /* prefer fewer lanes per row (fewer slots, no reduction) unless splitting wins by more than 0.5% */
    if (cost < 0.995 * best) {
      best  = cost;
      bestT = ChooserCand[c];
    }
  }
  *threshold = bestT;
  *kernel    = bestT ? MAT_ELLWARP_KERNEL_K2 : MAT_ELLWARP_KERNEL_K1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PlanWindow(const EllwarpRowStats *st, const EllwarpParams *par, PetscInt W, EllwarpPlan *plan)
{
  PetscFunctionBegin;
  plan->W         = W;
  plan->blocksize = Irregular(st) ? ELLWARP_IRREGULAR_BLOCK : ELLWARP_BLOCK;
  PetscCall(ChooseThreshold(st, par, W, &plan->kernel, &plan->T));
  PetscCall(Walk(st, W, plan->T, &plan->walk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutChoose(const EllwarpRowStats *st, const EllwarpParams *par, EllwarpPlan *plan)
{
  PetscInt W;

  PetscFunctionBegin;
  PetscCheck(par->sortwindow == -1 || (par->sortwindow >= 0 && par->sortwindow % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune sort_window=%" PetscInt_FMT " must be -1 (automatic), 0 (whole matrix) or a positive multiple of %d", par->sortwindow, ELLWARP_LANES);
  W = EllwarpLayoutWalkWindow(par, st->nrows, st->nnz, st->sum2);
  if (par->sortwindow < 0 && W > 0 && !Irregular(st)) { /* automatic: the window or the whole matrix, whichever moves fewer bytes */
    EllwarpPlan p[2];
    PetscReal   cost[2];
    for (int w = 0; w < 2; w++) {
      PetscInt win = w ? 0 : W;
      PetscCall(PlanWindow(st, par, win, &p[w]));
      cost[w] = (2.0 * (PetscReal)p[w].walk.nslots - (PetscReal)st->nnzshort) * ELLWARP_BYTES_PER_SLOT + (PetscReal)st->nrows * (win ? ELLWARP_ROW_BYTES_WINDOW : ELLWARP_ROW_BYTES_WHOLE);
    }
    *plan = cost[0] < cost[1] ? p[0] : p[1];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PlanWindow(st, par, W, plan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpRowStatsDestroy(EllwarpRowStats *st)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(st->hist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scalars of the layout that follow from the summary and the plan (both analyses) */
void EllwarpLayoutSetPlanned(EllwarpLayout *L, PetscInt m, PetscInt n, const EllwarpRowStats *st, const EllwarpPlan *plan)
{
  L->nrows     = m;
  L->ncols     = n;
  L->nnz       = st->nnz;
  L->longrow   = st->longrow;
  L->maxrowlen = st->maxlen;
  L->minrowlen = st->minlen;
  Moments(m, st->nnz, st->sum2, &L->meanrowlen, &L->stdrowlen);
  L->sortwindow = plan->W;
  L->blocksize  = plan->blocksize;
  L->threshold  = plan->T;
  L->kernel     = plan->kernel;
  L->nslices    = plan->walk.nslices;
  L->nsplit     = plan->walk.nsplit;
  L->nlong      = st->nlong;
  L->nchunks    = (PetscInt)st->nchunks;
  L->nslots     = plan->walk.nslots + (st->nnz - st->nnzshort);
  L->nsliceslots = plan->walk.nslots;
}

/* Per entry position e < w << l2 of the slice of sorted rows p..p+rows-1 (1 << l2 lanes per row; position e is
   step e >> l2, lane e & (tpr - 1) of each row): the min and max of (col - row) over the rows' entries there
   (mn[e] > mx[e]: none).  Decides the biased 16-bit mode and gives its biases (EllwarpBiasOf); the device
   analysis does the same with warp reductions. */
static void SlicePosSpan(PetscInt p, PetscInt rows, PetscInt l2, PetscInt w, const PetscInt perm[], const PetscInt ai[], const PetscInt aj[], int mn[], int mx[])
{
  for (PetscInt e = 0; e < (w << l2); e++) {
    mn[e] = INT_MAX;
    mx[e] = INT_MIN;
  }
  for (PetscInt q = 0; q < rows; q++) {
    const PetscInt row = perm[p + q];
    for (PetscInt e = 0; e < ai[row + 1] - ai[row]; e++) {
      const int d = (int)(aj[ai[row] + e] - row);
      mn[e]       = PetscMin(mn[e], d);
      mx[e]       = PetscMax(mx[e], d);
    }
  }
}

static PetscBool SliceBiasFits(PetscInt n, const int mn[], const int mx[])
{
  for (PetscInt e = 0; e < n; e++)
    if (mn[e] <= mx[e] && (long long)mx[e] - (long long)mn[e] > ELLWARP_BIAS_SPAN) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The host analysis: the summary from the row lengths (the window walk sorts the windows), the choice,
   then the layout filled row by row.  The reference for the device analysis. */
PetscErrorCode EllwarpLayoutCreate(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt entrymap[], const EllwarpParams *par, EllwarpLayout **out)
{
  EllwarpLayout  *L;
  PetscInt       *rowlen, *sortedlen, nlong, Wwalk = -1, W, T, ns, longrow;
  int            *mn, *mx; /* per entry position of a slice's rows: the span of (col - row) */
  PetscInt       *dtmp = NULL, nwin = -1; /* dictionary slices (dictlayout.c) */
  int            *dids = NULL;
  PetscCount      nslots;
  EllwarpRowStats st;
  EllwarpPlan     plan;

  PetscFunctionBegin;
  PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ELLWARP stores 32-bit column indices; %" PetscInt_FMT " columns do not fit", n);
  PetscCheck(par->sortwindow == -1 || (par->sortwindow >= 0 && par->sortwindow % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune sort_window=%" PetscInt_FMT " must be -1 (automatic), 0 (whole matrix) or a positive multiple of %d", par->sortwindow, ELLWARP_LANES);
  PetscCall(PetscNew(&L));
  L->hostarrays = PETSC_TRUE;
  {
    PetscCount nnz = 0;
    PetscInt64 sum2 = 0;
    for (PetscInt i = 0; i < m; i++) {
      nnz += ai[i + 1] - ai[i];
      sum2 += (PetscInt64)(ai[i + 1] - ai[i]) * (ai[i + 1] - ai[i]);
    }
    longrow = EllwarpLayoutLongRow(par, m, nnz, sum2);
  }
  PetscCall(PetscMalloc2(m, &rowlen, m, &sortedlen));
  PetscCall(PetscMalloc1(m, &L->rowperm));
  /* the summary: integer moments of all rows, the histogram of the rows that are not long */
  PetscCall(PetscMemzero(&st, sizeof(st)));
  st.nrows   = m;
  st.longrow = longrow;
  st.minlen  = m ? PETSC_INT_MAX : 0;
  for (PetscInt i = 0; i < m; i++) {
    rowlen[i] = ai[i + 1] - ai[i];
    st.minlen = PetscMin(st.minlen, rowlen[i]);
    st.maxlen = PetscMax(st.maxlen, rowlen[i]);
    st.nnz += rowlen[i];
    st.sum2 += (PetscInt64)rowlen[i] * rowlen[i];
    if (longrow > 0 && rowlen[i] > longrow) {
      st.nlong++;
      st.nchunks += (rowlen[i] + ELLWARP_CHUNK - 1) / ELLWARP_CHUNK;
    } else {
      st.maxshort = PetscMax(st.maxshort, rowlen[i]);
      st.nnzshort += rowlen[i];
    }
  }
  PetscCall(PetscCalloc1(st.maxshort + 1, &st.hist));
  for (PetscInt i = 0; i < m; i++)
    if (!(longrow > 0 && rowlen[i] > longrow)) st.hist[rowlen[i]]++;
  /* the window walk: sort the windows, walk them for every candidate threshold */
  W = EllwarpLayoutWalkWindow(par, m, st.nnz, st.sum2);
  if (W > 0) {
    Wwalk     = W;
    st.window = W;
    PetscCall(SortRows(m, rowlen, W, longrow, L->rowperm, sortedlen, &nlong));
    {
      PetscInt cT[ELLWARP_NCAND];
      PetscCall(EllwarpLayoutCandidates(par, &st.nwalk, cT));
      for (PetscInt c = 0; c < st.nwalk; c++) {
        st.walk[c].T = cT[c];
        SliceWalk(nlong, m, sortedlen, W, cT[c], &st.walk[c].nslots, &st.walk[c].maxwidth, &st.walk[c].nslices, &st.walk[c].nsplit);
      }
    }
  }
  PetscCall(EllwarpLayoutChoose(&st, par, &plan));
  EllwarpLayoutSetPlanned(L, m, n, &st, &plan);
  PetscCall(EllwarpRowStatsDestroy(&st));
  W = plan.W;
  T = plan.T;
  ns = plan.walk.nslices;
  nslots = plan.walk.nslots;
  if (W != Wwalk) PetscCall(SortRows(m, rowlen, W, longrow, L->rowperm, sortedlen, &nlong));
  PetscCheck(nlong == L->nlong, PETSC_COMM_SELF, PETSC_ERR_PLIB, "long rows %" PetscInt_FMT " != %" PetscInt_FMT, nlong, L->nlong);

  PetscCall(PetscMalloc4(ns + 1, &L->sliceptr, ns + 1, &L->slicerow, ns, &L->meta, ns, &L->colbase));
  PetscCall(PetscMalloc1(ns, &L->biasbase));
  PetscCall(PetscMalloc2(L->nslots, &L->slot2csr, m, &L->diagslot));
  PetscCall(PetscMalloc4(nlong + 1, &L->longptr, nlong + 1, &L->longchunk, L->nchunks + 1, &L->chunkptr, L->nchunks, &L->chunkrow));
  /* columns: decide per slice whether 16-bit offsets from the lane's row fit, else 16-bit offsets from the row
     plus a bias per entry position (at most 1 << ELLWARP_BIAS_MAXL2 lanes per row), else 32 bits */
  L->sliceptr[0] = 0;
  L->slicerow[0] = nlong;
  L->ncol16 = L->ncol32 = 0;
  L->n16                = 0;
  L->nbias              = 0;
  L->ndict              = 0;
  L->ncolbias           = 0;
  PetscCall(PetscMalloc2(L->maxrowlen + ELLWARP_LANES, &mn, L->maxrowlen + ELLWARP_LANES, &mx)); /* w << l2 < maxrowlen + 32 */
  if (par->compress && par->compressdict) PetscCall(PetscMalloc2((size_t)L->maxrowlen * ELLWARP_LANES + 1, &dtmp, ELLWARP_DICT_MAX, &dids)); /* a slice's entries; its windows */
  {
    PetscInt p = nlong, s = 0;
    while (p < m) {
      PetscInt  l2, rows, w;
      PetscBool fits = par->compress, bias = PETSC_FALSE;
      SliceShape(p, nlong, m, sortedlen, W, T, &l2, &rows, &w);
      for (PetscInt q = 0; q < rows && fits; q++) {
        PetscInt row = L->rowperm[p + q];
        for (PetscInt k = ai[row]; k < ai[row + 1]; k++)
          if (aj[k] - row <= ELLWARP_PAD16 || aj[k] - row > 32767) {
            fits = PETSC_FALSE;
            break;
          }
      }
      if (!fits && par->compress && par->compressbias && l2 <= ELLWARP_BIAS_MAXL2) {
        SlicePosSpan(p, rows, l2, w, L->rowperm, ai, aj, mn, mx);
        fits = bias = SliceBiasFits(w << l2, mn, mx);
      }
      nwin = -1;
      if (!fits && par->compress && par->compressdict) PetscCall(EllwarpSliceDictWindows(p, rows, L->rowperm, ai, aj, dtmp, &nwin, NULL));
      if (!fits && EllwarpSliceDictSaves((PetscCount)w * ELLWARP_LANES, nwin)) {
        fits = PETSC_TRUE;
        L->ndict++;
      } else nwin = -1;
      L->meta[s]         = (unsigned char)(l2 | (fits ? 16 : 0) | (bias ? 32 : 0) | (nwin >= 0 ? 64 : 0));
      L->colbase[s]      = fits ? L->ncol16 : L->ncol32;
      L->biasbase[s]     = L->ncolbias;
      L->slicerow[s + 1] = p + rows;
      L->sliceptr[s + 1] = L->sliceptr[s] + (PetscCount)w * ELLWARP_LANES;
      if (fits) {
        L->ncol16 += (PetscCount)w * ELLWARP_LANES;
        L->n16++;
      } else L->ncol32 += (PetscCount)w * ELLWARP_LANES;
      if (bias) {
        L->nbias++;
        L->ncolbias += (PetscCount)w << l2;
      }
      if (nwin >= 0) L->ncolbias += nwin;
      p += rows;
      s++;
    }
    PetscCheck(s == ns && L->sliceptr[ns] == nslots, PETSC_COMM_SELF, PETSC_ERR_PLIB, "slice walk and build disagree");
  }
  L->longcolbase = L->ncol32;
  PetscCall(PetscMalloc2(L->ncol32 + (L->nslots - nslots), &L->col32, L->ncol16, &L->col16));
  PetscCall(PetscMalloc1(L->ncolbias, &L->colbias));
  for (PetscInt i = 0; i < m; i++) L->diagslot[i] = -1;
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt   l2 = L->meta[s] & 15, tpr = 1 << l2, is16 = L->meta[s] & 16, isbias = L->meta[s] & 32, isdict = L->meta[s] & 64;
    PetscCount base = L->sliceptr[s], width = L->sliceptr[s + 1] - base;
    int       *bias = isbias ? L->colbias + L->biasbase[s] : NULL;

    for (PetscCount k = 0; k < width; k++) {
      L->slot2csr[base + k] = -1;
      if (is16) L->col16[L->colbase[s] + k] = isdict ? ELLWARP_DICT_PAD : ELLWARP_PAD16;
      else L->col32[L->colbase[s] + k] = -1;
    }
    if (isdict) { /* the table: window bases, ascending */
      PetscCall(EllwarpSliceDictWindows(L->slicerow[s], L->slicerow[s + 1] - L->slicerow[s], L->rowperm, ai, aj, dtmp, &nwin, dids));
      for (PetscInt i = 0; i < nwin; i++) L->colbias[L->biasbase[s] + i] = dids[i] << ELLWARP_DICT_SHIFT;
    }
    if (isbias) {
      const PetscInt w = (PetscInt)(width / ELLWARP_LANES);
      SlicePosSpan(L->slicerow[s], L->slicerow[s + 1] - L->slicerow[s], l2, w, L->rowperm, ai, aj, mn, mx);
      for (PetscInt e = 0; e < (w << l2); e++) bias[e] = mn[e] <= mx[e] ? EllwarpBiasOf(mn[e], mx[e]) : 0;
    }
    for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
      PetscInt row = L->rowperm[L->slicerow[s] + q];
      for (PetscInt e = 0; e < rowlen[row]; e++) {
        PetscCount off = (PetscCount)(e >> l2) * ELLWARP_LANES + q * tpr + (e & (tpr - 1));
        PetscInt   k   = ai[row] + e;
        if (isdict) L->col16[L->colbase[s] + off] = EllwarpSliceDictCode(nwin, dids, aj[k]);
        else if (isbias) L->col16[L->colbase[s] + off] = (short)(aj[k] - row - bias[e]);
        else if (is16) L->col16[L->colbase[s] + off] = (short)(aj[k] - row);
        else L->col32[L->colbase[s] + off] = (int)aj[k];
        L->slot2csr[base + off] = entrymap ? entrymap[k] : k;
        if (aj[k] == row) L->diagslot[row] = base + off;
      }
    }
  }
  /* long rows: contiguous, in chunks */
  L->longptr[0]   = nslots;
  L->longchunk[0] = 0;
  L->chunkptr[0]  = nslots;
  for (PetscInt q = 0, c = 0; q < nlong; q++) {
    PetscInt row = L->rowperm[q];
    for (PetscInt e = 0; e < rowlen[row]; e++) {
      PetscCount slot = L->longptr[q] + e;
      PetscInt   k    = ai[row] + e;
      L->col32[L->longcolbase + (slot - nslots)] = (int)aj[k];
      L->slot2csr[slot]                          = entrymap ? entrymap[k] : k;
      if (aj[k] == row) L->diagslot[row] = slot;
    }
    L->longptr[q + 1] = L->longptr[q] + rowlen[row];
    for (PetscCount st = L->longptr[q]; st < L->longptr[q + 1]; st += ELLWARP_CHUNK) {
      L->chunkrow[c]   = q;
      L->chunkptr[++c] = PetscMin(st + ELLWARP_CHUNK, L->longptr[q + 1]);
    }
    L->longchunk[q + 1] = c;
  }
  L->ndiagmissing = 0;
  for (PetscInt i = 0; i < PetscMin(m, n); i++)
    if (L->diagslot[i] < 0) L->ndiagmissing++;
  L->nactive = 0;
  for (PetscInt s = 0; s < L->nslices; s++)
    if (L->sliceptr[s + 1] > L->sliceptr[s]) L->nactive = s + 1;
  PetscCall(PetscFree2(rowlen, sortedlen));
  PetscCall(PetscFree2(mn, mx));
  PetscCall(PetscFree2(dtmp, dids));
  *out = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutDestroy(EllwarpLayout **L)
{
  PetscFunctionBegin;
  if (!*L) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*L)->rowperm));
  PetscCall(PetscFree4((*L)->sliceptr, (*L)->slicerow, (*L)->meta, (*L)->colbase));
  PetscCall(PetscFree2((*L)->slot2csr, (*L)->diagslot));
  PetscCall(PetscFree4((*L)->longptr, (*L)->longchunk, (*L)->chunkptr, (*L)->chunkrow));
  PetscCall(PetscFree2((*L)->col32, (*L)->col16));
  PetscCall(PetscFree((*L)->colbias));
  PetscCall(PetscFree((*L)->biasbase));
  PetscCall(PetscFree(*L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutScalars(const EllwarpLayout *src, EllwarpLayout **out)
{
  EllwarpLayout *L;

  PetscFunctionBegin;
  PetscCall(PetscNew(&L));
  *L            = *src;
  L->sliceptr   = NULL;
  L->slicerow   = NULL;
  L->meta       = NULL;
  L->colbase    = NULL;
  L->col32      = NULL;
  L->col16      = NULL;
  L->colbias    = NULL;
  L->biasbase   = NULL;
  L->rowperm    = NULL;
  L->slot2csr   = NULL;
  L->diagslot   = NULL;
  L->longptr    = NULL;
  L->longchunk  = NULL;
  L->chunkptr   = NULL;
  L->chunkrow   = NULL;
  L->hostarrays = PETSC_FALSE;
  *out          = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutDropArrays(EllwarpLayout *L)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(L->rowperm));
  PetscCall(PetscFree4(L->sliceptr, L->slicerow, L->meta, L->colbase));
  PetscCall(PetscFree2(L->slot2csr, L->diagslot));
  PetscCall(PetscFree4(L->longptr, L->longchunk, L->chunkptr, L->chunkrow));
  PetscCall(PetscFree2(L->col32, L->col16));
  PetscCall(PetscFree(L->colbias));
  PetscCall(PetscFree(L->biasbase));
  L->hostarrays = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutCopyArrays(EllwarpLayout *L, const EllwarpLayout *src)
{
  const PetscInt   m = L->nrows, ns = L->nslices, nl = L->nlong, nc = L->nchunks;
  const PetscCount n32 = L->ncol32 + (L->nslots - L->nsliceslots);

  PetscFunctionBegin;
  PetscCheck(!L->hostarrays && src->hostarrays && src->nslots == L->nslots && src->nslices == ns, PETSC_COMM_SELF, PETSC_ERR_PLIB, "layout arrays cannot be copied");
  PetscCall(PetscMalloc1(m, &L->rowperm));
  PetscCall(PetscMalloc4(ns + 1, &L->sliceptr, ns + 1, &L->slicerow, ns, &L->meta, ns, &L->colbase));
  PetscCall(PetscMalloc2(L->nslots, &L->slot2csr, m, &L->diagslot));
  PetscCall(PetscMalloc4(nl + 1, &L->longptr, nl + 1, &L->longchunk, nc + 1, &L->chunkptr, nc, &L->chunkrow));
  PetscCall(PetscMalloc2(n32, &L->col32, L->ncol16, &L->col16));
  PetscCall(PetscMalloc1(L->ncolbias, &L->colbias));
  PetscCall(PetscMalloc1(ns, &L->biasbase));
  PetscCall(PetscArraycpy(L->rowperm, src->rowperm, m));
  PetscCall(PetscArraycpy(L->sliceptr, src->sliceptr, ns + 1));
  PetscCall(PetscArraycpy(L->slicerow, src->slicerow, ns + 1));
  PetscCall(PetscArraycpy(L->meta, src->meta, ns));
  PetscCall(PetscArraycpy(L->colbase, src->colbase, ns));
  PetscCall(PetscArraycpy(L->slot2csr, src->slot2csr, L->nslots));
  PetscCall(PetscArraycpy(L->diagslot, src->diagslot, m));
  PetscCall(PetscArraycpy(L->longptr, src->longptr, nl + 1));
  PetscCall(PetscArraycpy(L->longchunk, src->longchunk, nl + 1));
  PetscCall(PetscArraycpy(L->chunkptr, src->chunkptr, nc + 1));
  PetscCall(PetscArraycpy(L->chunkrow, src->chunkrow, nc));
  PetscCall(PetscArraycpy(L->col32, src->col32, n32));
  PetscCall(PetscArraycpy(L->col16, src->col16, L->ncol16));
  PetscCall(PetscArraycpy(L->colbias, src->colbias, L->ncolbias));
  PetscCall(PetscArraycpy(L->biasbase, src->biasbase, ns));
  L->hostarrays = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR of the transpose, with map[k] = the entry of the original CSR that transposed entry k came from */
PetscErrorCode EllwarpLayoutTranspose(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt **bi, PetscInt **bj, PetscInt **map)
{
  PetscInt *ti, *tj, *tm, *next, nz = m ? ai[m] : 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, &ti));
  PetscCall(PetscMalloc2(nz, &tj, nz, &tm));
  PetscCall(PetscMalloc1(n, &next));
  for (PetscInt k = 0; k < nz; k++) ti[aj[k] + 1]++;
  for (PetscInt j = 0; j < n; j++) ti[j + 1] += ti[j];
  for (PetscInt j = 0; j < n; j++) next[j] = ti[j];
  for (PetscInt i = 0; i < m; i++) /* rows in order: columns of the transpose come out sorted */
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt d = next[aj[k]]++;
      tj[d]      = i;
      tm[d]      = k;
    }
  PetscCall(PetscFree(next));
  *bi  = ti;
  *bj  = tj;
  *map = tm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes one MatMult really moves with this layout: values, columns (2 or 4 bytes), the biases of the biased
   16-bit slices (4 bytes per step and lane of a row) and the window tables of the dictionary slices (4 bytes per window), slice metadata, the row permutation, x once and y once (x is gathered, so
   this is a lower bound). */
PetscLogDouble EllwarpLayoutBytesMult(const EllwarpLayout *L)
{
  return (PetscLogDouble)L->nslots * sizeof(PetscScalar) + (PetscLogDouble)(L->ncol32 + (L->nslots - L->nsliceslots)) * sizeof(int) + (PetscLogDouble)L->ncol16 * sizeof(short) + (PetscLogDouble)L->ncolbias * sizeof(int) +
         (PetscLogDouble)L->nslices * (2 * sizeof(PetscCount) + sizeof(PetscInt) + 1) + (PetscLogDouble)(L->nbias + L->ndict) * sizeof(PetscCount) + (PetscLogDouble)L->nrows * (sizeof(PetscInt) + sizeof(PetscScalar)) + (PetscLogDouble)L->ncols * sizeof(PetscScalar);
}

/* the least EllwarpLayoutBytesMult of any layout of an m x n pattern with nnz entries: no padding, every column
   16-bit, the slices' own arrays not counted (the blocked choice before the scalar analysis: seqellwarpblock.c) */
PetscLogDouble EllwarpLayoutBytesMultMin(PetscInt m, PetscInt n, PetscCount nnz)
{
  return (PetscLogDouble)nnz * (sizeof(PetscScalar) + sizeof(short)) + (PetscLogDouble)m * (sizeof(PetscInt) + sizeof(PetscScalar)) + (PetscLogDouble)n * sizeof(PetscScalar);
}

void EllwarpHostRefresh(const EllwarpLayout *L, const PetscScalar *csr, PetscScalar *val)
{
  /* padding (slot2csr -1) is zero from the store's creation on and is not written (as the device gather) */
  for (PetscCount k = 0; k < L->nslots; k++)
    if (L->slot2csr[k] >= 0) val[k] = csr[L->slot2csr[k]];
}

/* The row form of the CSR -> slot map, for the value refresh of path 1.  A matrix's own layout maps entry e of
   sorted row r to CSR entry start[r] + e, so per row a start and a length replace the per-slot map: the gather
   then reads no map at all (20 -> 16 bytes per slot).  A transposed layout's map permutes (perm_in): not the
   row form.  The test reads the map itself, once: *rowform says whether it holds; start/len [nrows], by
   sorted position (long rows first). */
void EllwarpLayoutRowForm(const EllwarpLayout *L, PetscInt *start, int *len, PetscBool *rowform)
{
  PetscBool ok = PETSC_TRUE;

  for (PetscInt s = 0; s < L->nslices; s++) {
    const PetscInt   l2 = L->meta[s] & 15, tpr = 1 << l2;
    const PetscCount base = L->sliceptr[s], w = (L->sliceptr[s + 1] - base) / ELLWARP_LANES;
    for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
      const PetscInt r = L->slicerow[s] + q;
      PetscInt       n = 0, st = 0;
      for (PetscCount e = 0; e < w * tpr; e++) {
        const PetscInt k = L->slot2csr[base + (e >> l2) * ELLWARP_LANES + q * tpr + (e & (tpr - 1))];
        if (e == 0) st = k;
        if (k >= 0 && n == e && k == st + e) n++;
        else if (k >= 0) ok = PETSC_FALSE; /* an entry after a gap, or not consecutive */
      }
      start[r] = n ? st : 0;
      len[r]   = (int)n;
    }
  }
  for (PetscInt q = 0; q < L->nlong; q++) {
    const PetscCount a = L->longptr[q], b = L->longptr[q + 1];
    start[q] = L->slot2csr[a];
    len[q]   = (int)(b - a);
    for (PetscCount k = a; k < b; k++)
      if (L->slot2csr[k] != start[q] + (k - a)) ok = PETSC_FALSE;
  }
  *rowform = ok;
}

/* path 1 through the row form: the same slots get the same values as EllwarpHostRefresh (padding untouched) */
void EllwarpHostRefreshRows(const EllwarpLayout *L, const PetscInt *start, const int *len, const PetscScalar *csr, PetscScalar *val)
{
  for (PetscInt s = 0; s < L->nslices; s++) {
    const PetscInt   l2 = L->meta[s] & 15, tpr = 1 << l2;
    const PetscCount base = L->sliceptr[s];
    for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
      const PetscInt r = L->slicerow[s] + q;
      for (PetscInt e = 0; e < len[r]; e++) val[base + (PetscCount)(e >> l2) * ELLWARP_LANES + q * tpr + (e & (tpr - 1))] = csr[start[r] + e];
    }
  }
  for (PetscInt q = 0; q < L->nlong; q++)
    for (PetscInt e = 0; e < len[q]; e++) val[L->longptr[q] + e] = csr[start[q] + e];
}

void EllwarpHostDownload(const EllwarpLayout *L, const PetscScalar *val, PetscScalar *csr)
{
  for (PetscCount k = 0; k < L->nslots; k++)
    if (L->slot2csr[k] >= 0) csr[L->slot2csr[k]] = val[k];
}

static inline PetscScalar Val(const PetscScalar *val, PetscCount k, PetscBool abs)
{
  return abs ? PetscAbsScalar(val[k]) : val[k];
}

/* y = A x (+ z when z != NULL); abs: sum |a_ij| x_j instead (for norms).  Per lane partial sums, then the
   tree reduction that __shfl_down_sync performs, so host and device add slices in the same order; long
   rows chunk by chunk as the device does (within a chunk the device's order depends on its block size). */
void EllwarpHostMult(const EllwarpLayout *L, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, PetscBool abs)
{
  EllwarpHostMultAcc(L, val, x, z, y, abs, 1);
}

void EllwarpHostMultAcc(const EllwarpLayout *L, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, PetscBool abs, PetscInt acc)
{
  /* in place (y += A x): slices of zero-length rows change nothing; the device skips them too */
  const PetscInt ns = (z && z == y && !abs) ? L->nactive : L->nslices;

  for (PetscInt s = 0; s < ns; s++) {
    PetscInt    l2 = L->meta[s] & 15, tpr = 1 << l2, rows = L->slicerow[s + 1] - L->slicerow[s];
    PetscInt    w    = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    PetscScalar part[ELLWARP_LANES];

    for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
      PetscInt q   = lane >> l2;
      PetscInt row = q < rows ? L->rowperm[L->slicerow[s] + q] : 0;
      PetscScalar a[4] = {0, 0, 0, 0}; /* step k goes to a[k % acc] (-mat_ellwarp_tune mult_acc; 1: a[0] only) */
      for (PetscInt k = 0; k < w; k++) {
        PetscCount off = (PetscCount)k * ELLWARP_LANES + lane;
        int        c   = EllwarpSliceCol(L, s, off, row);
        if (c >= 0) a[k % acc] += Val(val, L->sliceptr[s] + off, abs) * x[c];
      }
      part[lane] = acc == 1 ? a[0] : (acc == 2 ? a[0] + a[1] : (a[0] + a[1]) + (a[2] + a[3]));
    }
    for (PetscInt off = tpr >> 1; off > 0; off >>= 1)
      for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++)
        if ((lane & (tpr - 1)) < off) part[lane] += part[lane + off];
    for (PetscInt q = 0; q < rows; q++) {
      PetscInt row = L->rowperm[L->slicerow[s] + q];
      y[row]       = z ? z[row] + part[q * tpr] : part[q * tpr];
    }
  }
  for (PetscInt q = 0; q < L->nlong; q++) {
    PetscScalar sum = 0;
    for (PetscInt c = L->longchunk[q]; c < L->longchunk[q + 1]; c++) {
      PetscScalar t = 0;
      for (PetscCount k = L->chunkptr[c]; k < L->chunkptr[c + 1]; k++) t += Val(val, k, abs) * x[L->col32[L->longcolbase + (k - L->longptr[0])]];
      sum += t;
    }
    PetscInt row = L->rowperm[q];
    y[row]       = z ? z[row] + sum : sum;
  }
}

/* visit every stored slot with its row and column */
#define ELLWARP_FOREACH_SLOT(L, BODY) \
  do { \
    for (PetscInt s_ = 0; s_ < (L)->nslices; s_++) { \
      PetscInt l2_ = (L)->meta[s_] & 15, w_ = (PetscInt)(((L)->sliceptr[s_ + 1] - (L)->sliceptr[s_]) / ELLWARP_LANES); \
      for (PetscInt lane_ = 0; lane_ < ELLWARP_LANES; lane_++) { \
        PetscInt q_ = lane_ >> l2_; \
        if ((L)->slicerow[s_] + q_ >= (L)->slicerow[s_ + 1]) continue; \
        PetscInt row = (L)->rowperm[(L)->slicerow[s_] + q_]; \
        for (PetscInt k_ = 0; k_ < w_; k_++) { \
          PetscCount off_ = (PetscCount)k_ * ELLWARP_LANES + lane_, slot = (L)->sliceptr[s_] + off_; \
          int        col  = EllwarpSliceCol((L), s_, off_, row); \
          if (col < 0) continue; \
          BODY; \
        } \
      } \
    } \
    for (PetscInt q_ = 0; q_ < (L)->nlong; q_++) { \
      PetscInt row = (L)->rowperm[q_]; \
      for (PetscCount slot = (L)->longptr[q_]; slot < (L)->longptr[q_ + 1]; slot++) { \
        int col = (L)->col32[(L)->longcolbase + (slot - (L)->longptr[0])]; \
        BODY; \
      } \
    } \
  } while (0)

void EllwarpHostDiagScale(const EllwarpLayout *L, PetscScalar *val, const PetscScalar *l, const PetscScalar *r)
{
  ELLWARP_FOREACH_SLOT(L, {
    if (l) val[slot] *= l[row];
    if (r) val[slot] *= r[col];
  });
}

/* Zero rows flagged in rowmask and columns flagged in colmask (either may be NULL); the diagonal of a
   zeroed row or column gets diag. */
void EllwarpHostZeroMasked(const EllwarpLayout *L, PetscScalar *val, const char *rowmask, const char *colmask, PetscScalar diag)
{
  ELLWARP_FOREACH_SLOT(L, {
    if ((rowmask && rowmask[row]) || (colmask && colmask[col])) val[slot] = (col == row) ? diag : 0.0;
  });
}

/* The kernel variants a store's kernels use for layout L: the requested ones (-mat_ellwarp_tune mult_*, long_*,
   coo_*), and for those left automatic (0) this rule.  The rule gives the original kernels (MultKernel with
   4 steps in flight, one lane and one accumulator per thread; the plain COO loop) until GPU measurements of
   the variants (benchmarks/spmv -formats ...,variants; benchmarks/coo -variants all) say otherwise; both
   backends resolve through here, so the host reference follows any change of the accumulator count. */
/* Whether the requested variants give MultKernel's step loop on every layout: mult_batch=1, or mult_batch left
   automatic with a key of MultKernel's own (lanes, accumulators, unroll, nc, long_unroll), which the rule below then
   keeps.  The layout's schedule model needs this before the layout exists (EllwarpParams.unbatched). */
PetscBool EllwarpTuneUnbatched(const EllwarpTune *t)
{
  if (!t || t->multbatch > 1) return PETSC_FALSE;
  if (t->multbatch == 1) return PETSC_TRUE;
  return (PetscBool)(t->multacc > 1 || t->multlanes > 1 || t->multnc || t->multunroll > 0 || t->longunroll > 0);
}

void EllwarpTuneResolve(const EllwarpLayout *L, const EllwarpTune *req, EllwarpTune *t)
{
  const PetscBool unbatched = EllwarpTuneUnbatched(req);
  const PetscBool irregular = (PetscBool)(L && L->nrows > 0 && L->stdrowlen > L->meanrowlen);
  const PetscBool uniform   = (PetscBool)(L && L->nrows > 0 && L->nnz > 0 && L->maxrowlen == L->minrowlen);

  if (req) *t = *req;
  else (void)PetscMemzero(t, sizeof(*t));
  if (t->multlanes <= 0) t->multlanes = 1;
  /* from the H100 variant sweep (benchmarks/results/variants-h100/spmv-variants.txt, cold L2): power-law rows
     (std > mean, the chooser's irregular class) gain from two accumulators and 8 steps in flight (web +3.8%,
     circuit +2.6%), rows of one length (QCD-like, no padding) from 8 steps in flight (+2.9%); the FE matrices
     lose 0.5-2% with either, so they keep one accumulator and 4 steps */
  /* MultKernelB with 4 steps' loads before their x entries on the rows MultKernel had (neither power-law nor of one
     length): H100, the DMPlex FE matrices in their default numbering (benchmarks/results/spmv-h100-dmplex/batched-kernel/):
     P1/P2/Q1/Q2 scalar 1.7-12 % faster than MultKernel at 0.33 M rows, P1/Q1 6-8 % at 1.4 M; U = 2 and 8, capped
     registers and prefetch were no better.  The other classes keep their variants (not measured with it). */
  if (t->multbatch <= 0) t->multbatch = !unbatched && !irregular && !uniform ? 4 : 1;
  if (t->multacc <= 0) t->multacc = irregular && t->multbatch == 1 ? 2 : 1; /* MultKernelB (mult_batch > 1) has one accumulator */
  if (t->multunroll <= 0) t->multunroll = irregular || uniform ? 8 : 4;
  if (t->coounroll <= 0) t->coounroll = 8; /* H100, coo_bench (384 k tets, ~6 entries per nonzero): 8 in flight 0.0516 ms, 1: 0.0638 ms, AIJCUSPARSE 0.0609 ms */
  /* long-row chunks: 8 entries per thread loaded before any is summed (H100: powerlaw_web 2% faster; the
     slice kernel's MultKernelV does them so; MultKernel, the FE default, keeps its plain loop) */
  if (t->longunroll <= 0) t->longunroll = 8;
}
