/* The blocked ELL-WARP layout (ellwarpblock.h): the check that a CSR pattern is bs-blocked, the host analysis,
   the bytes model, and the plain-C reference store (gather and product) that the CUDA kernels are tested against. */
#include <petscellwarp/private/ellwarpblock.h>
#include <petscellwarp/private/ellwarpthreads.h>
#include <petscsys.h>
#include <stdlib.h>

const char *const EllwarpBlockMaps[] = {"auto", "row", "lane", "EllwarpBlockMap", "ELLWARP_BLOCK_MAP_", NULL};

/* Both set-up steps below run on the host's cores (PetscEllwarpThreadsRun, contiguous ranges): on the GPU host a
   1 M-row elasticity operator (81 M nonzeros, bs 3) took 70 ms for the block check and 120 ms for the layout on one
   core, at a first MatMult that otherwise costs about what AIJCUSPARSE's upload does.  Every range writes only its
   own slots and partial counts, so the result does not depend on the number of threads (tests/analysis.c builds
   it with 1 and with several and compares).  The workers make no PETSc call (PETSc is not thread-safe): qsort()
   for the window sort, malloc() for its keys. */
#define ELLWARP_BLOCK_GRAIN 4096 /* block rows (or slices) a thread at least gets */

/* nthreads if positive (tests: several ranges on small patterns), else the CPUs of the process, one per grain */
static PetscErrorCode ThreadCount(PetscInt nthreads, PetscCount n, PetscInt *nth)
{
  PetscFunctionBegin;
  if (nthreads > 0) *nth = PetscMin(nthreads, 64);
  else PetscCall(PetscEllwarpThreadsGetCount(0, n, ELLWARP_BLOCK_GRAIN, nth));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt        bs;
  const PetscInt *ai, *aj;
  int            *ok; /* [nthreads] */
} DetectCtx;

static int DetectWork(void *ctx, PetscInt range, PetscCount b, PetscCount e)
{
  DetectCtx      *c  = (DetectCtx *)ctx;
  const PetscInt  bs = c->bs, *ai = c->ai, *aj = c->aj;

  c->ok[range] = 0;
  for (PetscCount ib = b; ib < e; ib++) {
    const PetscInt r0 = (PetscInt)ib * bs, k0 = ai[r0], len = ai[r0 + 1] - ai[r0];
    if (len % bs) return 0;
    for (PetscInt k = 0; k < len; k += bs) {
      const PetscInt c0 = aj[k0 + k];
      if (c0 % bs) return 0;
      for (PetscInt cc = 1; cc < bs; cc++)
        if (aj[k0 + k + cc] != c0 + cc) return 0;
    }
    for (PetscInt r = 1; r < bs; r++) {
      if (ai[r0 + r + 1] - ai[r0 + r] != len) return 0;
      for (PetscInt k = 0; k < len; k++)
        if (aj[ai[r0 + r] + k] != aj[k0 + k]) return 0;
    }
  }
  c->ok[range] = 1;
  return 0;
}

/* Whether the m x n CSR pattern is bs-blocked: bs divides m and n, and every bs x bs block is stored whole or not
   at all (the rows of a block row have the same columns, which come in whole aligned groups of bs).  The columns
   of each row increase (assembled SeqAIJ, EllwarpLayoutTranspose()).  O(nnz), each thread's range stops at its
   first counterexample.  nthreads: 0 for the CPUs of the process. */
PetscErrorCode EllwarpBlockDetectThreads(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscInt nthreads, PetscBool *blocked)
{
  DetectCtx c;
  PetscInt  nth;

  PetscFunctionBegin;
  *blocked = PETSC_FALSE;
  if (bs < 2 || bs > ELLWARP_BLOCK_MAXBS || m % bs || n % bs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ThreadCount(nthreads, m / bs, &nth));
  c.bs = bs;
  c.ai = ai;
  c.aj = aj;
  PetscCall(PetscMalloc1(nth, &c.ok));
  PetscCall(PetscEllwarpThreadsRun(nth, m / bs, DetectWork, &c));
  *blocked = PETSC_TRUE;
  for (PetscInt t = 0; t < nth; t++)
    if (!c.ok[t]) *blocked = PETSC_FALSE;
  PetscCall(PetscFree(c.ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpBlockDetect(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscBool *blocked)
{
  PetscFunctionBegin;
  PetscCall(EllwarpBlockDetectThreads(m, n, ai, aj, bs, 0, blocked));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the smallest and largest (block column - block row) over the lane slots of slice s with a block at step k and lane t
   (mx < mn: none); lane slot g = q T + t holds block k T + t of sorted block row R s + q.  A bias per (step, lane t):
   the R block rows' blocks k T + t, which lie at similar distances in lattice-like numberings (the T lanes of a row
   walk different parts of it, whose distances differ by far more) */
static void StepSpan(const EllwarpBlockLayout *L, const PetscInt aj[], PetscInt s, PetscInt k, PetscInt t, PetscInt64 *mn, PetscInt64 *mx)
{
  const PetscInt T = L->lanes;
  *mn              = PETSC_INT64_MAX;
  *mx              = PETSC_INT64_MIN;
  for (PetscInt q = 0; q < L->rows; q++) {
    const PetscInt p = s * L->rows + q, j = k * T + t;
    if (j < L->rowlen[p]) {
      const PetscInt64 d = (PetscInt64)(aj[L->rowstart[p] + (PetscCount)j * L->bs] / L->bs) - L->rowperm[p];
      *mn                = PetscMin(*mn, d);
      *mx                = PetscMax(*mx, d);
    }
  }
}

typedef struct {
  EllwarpBlockLayout *L;
  const PetscInt     *ai, *aj;
  PetscInt            W;
  PetscBool           compress, compressbias;
  int                *width;            /* [nslices] */
  PetscCount         *nnzb, *nr16, *nr32; /* [nthreads] partial counts */
  PetscInt           *maxrow;           /* [nthreads] */
} LayoutCtx;

static int CmpInt64(const void *a, const void *b)
{
  const PetscInt64 x = *(const PetscInt64 *)a, y = *(const PetscInt64 *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* windows [b, e): block rows sorted by key (longest first, then block row) inside each window */
static int SortWork(void *ctx, PetscInt range, PetscCount b, PetscCount e)
{
  LayoutCtx          *c = (LayoutCtx *)ctx;
  EllwarpBlockLayout *L = c->L;
  const PetscInt      bs = L->bs, mb = L->mb, W = c->W;
  PetscInt64         *key;

  (void)range;
  if (b >= e) return 0;
  key = (PetscInt64 *)malloc(sizeof(PetscInt64) * (size_t)W);
  if (!key) return PETSC_ERR_MEM;
  for (PetscCount wi = b; wi < e; wi++) {
    const PetscInt w0 = (PetscInt)wi * W, nw = PetscMin(W, mb - w0);
    for (PetscInt i = 0; i < nw; i++) {
      const PetscInt ib = w0 + i, len = (c->ai[ib * bs + 1] - c->ai[ib * bs]) / bs;
      key[i]           = ((PetscInt64)(PETSC_INT_MAX - len) << 32) | (PetscInt64)i;
    }
    qsort(key, (size_t)nw, sizeof(PetscInt64), CmpInt64);
    for (PetscInt i = 0; i < nw; i++) {
      const PetscInt ib = w0 + (PetscInt)(key[i] & 0xffffffffLL);
      L->rowperm[w0 + i]  = ib;
      L->rowlen[w0 + i]   = (int)((c->ai[ib * bs + 1] - c->ai[ib * bs]) / bs);
      L->rowstart[w0 + i] = c->ai[ib * bs];
    }
  }
  free(key);
  return 0;
}

/* slices [b, e): width and column mode (row-relative 16-bit, else 16-bit plus a bias per step, else 32-bit) */
static int ModeWork(void *ctx, PetscInt range, PetscCount b, PetscCount e)
{
  LayoutCtx          *c = (LayoutCtx *)ctx;
  EllwarpBlockLayout *L = c->L;
  const PetscInt      bs = L->bs;
  PetscCount          nnzb = 0;
  PetscInt            maxrow = 0;

  for (PetscCount sc = b; sc < e; sc++) {
    const PetscInt s = (PetscInt)sc, T = L->lanes;
    PetscInt       w = 0;
    PetscBool      fits = c->compress, biasfits = (PetscBool)(c->compress && c->compressbias);
    for (PetscInt q = 0; q < L->rows; q++) {
      const PetscInt p = s * L->rows + q;
      w                = PetscMax(w, (L->rowlen[p] + T - 1) / T); /* steps of the row's T lanes */
      for (PetscInt k = 0; fits && k < L->rowlen[p]; k++) {
        const PetscInt64 d = (PetscInt64)(c->aj[L->rowstart[p] + (PetscCount)k * bs] / bs) - L->rowperm[p];
        if (d < -32767 || d > 32767) fits = PETSC_FALSE;
      }
      nnzb += L->rowlen[p];
      maxrow = PetscMax(maxrow, L->rowlen[p]);
    }
    for (PetscInt k = 0; !fits && biasfits && k < w; k++)
      for (PetscInt t = 0; biasfits && t < T; t++) {
        PetscInt64 mn, mx;
        StepSpan(L, c->aj, s, k, t, &mn, &mx);
        if (mx >= mn && mx - mn > ELLWARP_BIAS_SPAN) biasfits = PETSC_FALSE;
      }
    c->width[s] = (int)w;
    L->meta[s]  = fits ? 16 : (biasfits ? 48 : 0);
  }
  c->nnzb[range]   = nnzb;
  c->maxrow[range] = maxrow;
  return 0;
}

/* slices [b, e): the biases of a biased slice (each step's midpoint, 0 where no lane has an entry) and the indices */
static int IndexWork(void *ctx, PetscInt range, PetscCount b, PetscCount e)
{
  LayoutCtx          *c = (LayoutCtx *)ctx;
  EllwarpBlockLayout *L = c->L;
  const PetscInt      bs = L->bs;
  PetscCount          nr16 = 0, nr32 = 0;

  for (PetscCount sc = b; sc < e; sc++) {
    const PetscInt s = (PetscInt)sc, w = c->width[s];
    for (PetscInt k = 0; (L->meta[s] & 32) && k < w; k++)
      for (PetscInt t = 0; t < L->lanes; t++) {
        PetscInt64 mn, mx;
        StepSpan(L, c->aj, s, k, t, &mn, &mx);
        L->colbias[L->biasbase[s] + k * L->lanes + t] = mx >= mn ? EllwarpBiasOf((int)mn, (int)mx) : 0;
      }
    for (PetscInt g = 0; g < ELLWARP_LANES; g++) {
      const PetscInt p = s * L->rows + g / L->lanes;
      for (PetscInt k = 0; k < w; k++) {
        const PetscInt   j  = k * L->lanes + g % L->lanes;
        const PetscCount o  = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + g;
        const PetscBool  in = (PetscBool)(j < L->rowlen[p]);
        const PetscInt   bc = in ? c->aj[L->rowstart[p] + (PetscCount)j * bs] / bs : -1;
        if (L->meta[s] & 16) {
          const PetscInt bias = (L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k * L->lanes + g % L->lanes] : 0;
          L->col16[o]         = in ? (short)(bc - L->rowperm[p] - bias) : (short)ELLWARP_PAD16;
          if (in) nr16++;
        } else {
          L->col32[o] = (int)bc;
          if (in) nr32++;
        }
      }
    }
  }
  c->nr16[range] = nr16;
  c->nr32[range] = nr32;
  return 0;
}

/* The layout of a bs-blocked m x n CSR pattern (EllwarpBlockDetect() true) with T lanes per block row.  Block rows
   are sorted by length, longest first, within windows of W block rows (a multiple of 32: slices of 32 / T block rows
   never straddle windows), so a slice's rows have nearly the same length (its width is its first row's) while its x
   and y accesses stay local.
   map: CSR entry -> value index (a transpose), or NULL.  compress: 16-bit block-column offsets where they fit;
   compressbias (with compress): from the block row plus a bias per step where row-relative ones do not fit.
   nthreads: 0 for the CPUs of the process; the layout is the same for any number. */
PetscErrorCode EllwarpBlockLayoutCreateLanes(PetscInt m, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscInt W, PetscBool compress, PetscBool compressbias, PetscInt T, PetscInt nthreads, EllwarpBlockLayout **out)
{
  EllwarpBlockLayout *L;
  PetscInt            mb = m / bs, np, nth;
  LayoutCtx           c;

  PetscFunctionBegin;
  PetscCheck(bs >= 2 && bs <= ELLWARP_BLOCK_MAXBS && m % bs == 0 && n % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "blocked ELLWARP layout: block size %" PetscInt_FMT " must be in [2,%d] and divide %" PetscInt_FMT " x %" PetscInt_FMT, bs, ELLWARP_BLOCK_MAXBS, m, n);
  PetscCheck(T >= 1 && T <= ELLWARP_BLOCK_MAXLANES && !(T & (T - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "blocked ELLWARP layout: %" PetscInt_FMT " lanes per block row must be 1, 2, 4, 8, 16 or 32", T);
  PetscCheck(W > 0 && W % ELLWARP_LANES == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "blocked ELLWARP layout: sort window %" PetscInt_FMT " must be a positive multiple of %d", W, ELLWARP_LANES);
  PetscCall(PetscNew(&L));
  L->bs         = bs;
  L->mb         = mb;
  L->nb         = n / bs;
  L->lanes      = T;
  L->rows       = ELLWARP_LANES / T;
  L->nslices    = (mb + L->rows - 1) / L->rows;
  L->sortwindow = W;
  L->nnz        = m ? ai[m] : 0;
  np            = L->nslices * L->rows;
  PetscCall(PetscMalloc3(np, &L->rowperm, np, &L->rowlen, np, &L->rowstart));
  PetscCall(PetscMalloc3(L->nslices + 1, &L->sliceptr, L->nslices, &L->colbase, L->nslices, &L->meta));
  PetscCall(PetscMalloc1(L->nslices, &L->biasbase));
  PetscCall(ThreadCount(nthreads, mb, &nth));
  c.L            = L;
  c.ai           = ai;
  c.aj           = aj;
  c.W            = W;
  c.compress     = compress;
  c.compressbias = compressbias;
  PetscCall(PetscCalloc5(L->nslices, &c.width, nth, &c.nnzb, nth, &c.nr16, nth, &c.nr32, nth, &c.maxrow));
  PetscCall(PetscEllwarpThreadsRun(nth, (mb + W - 1) / W, SortWork, &c));
  for (PetscInt p = mb; p < np; p++) {
    L->rowperm[p]  = -1;
    L->rowlen[p]   = 0;
    L->rowstart[p] = 0;
  }
  PetscCall(PetscEllwarpThreadsRun(nth, L->nslices, ModeWork, &c));
  for (PetscInt t = 0; t < nth; t++) {
    L->nnzb += c.nnzb[t];
    L->maxrowlen = PetscMax(L->maxrowlen, c.maxrow[t]);
  }
  /* the slices' bases, in slice order */
  L->sliceptr[0] = 0;
  for (PetscInt s = 0; s < L->nslices; s++) {
    const PetscInt w = c.width[s];
    L->sliceptr[s + 1] = L->sliceptr[s] + (PetscCount)w * ELLWARP_LANES;
    L->biasbase[s]     = L->ncolbias;
    if (L->meta[s] & 16) {
      L->colbase[s] = L->ncol16;
      L->ncol16 += (PetscCount)w * ELLWARP_LANES;
      L->n16++;
      if (L->meta[s] & 32) {
        L->ncolbias += (PetscCount)w * T;
        L->nbias++;
      }
    } else {
      L->colbase[s] = L->ncol32;
      L->ncol32 += (PetscCount)w * ELLWARP_LANES;
    }
  }
  L->nslots = L->sliceptr[L->nslices];
  PetscCall(PetscMalloc2(L->ncol16, &L->col16, L->ncol32, &L->col32));
  PetscCall(PetscMalloc1(L->ncolbias, &L->colbias));
  PetscCall(PetscEllwarpThreadsRun(nth, L->nslices, IndexWork, &c));
  for (PetscInt t = 0; t < nth; t++) {
    L->nread16 += c.nr16[t];
    L->nread32 += c.nr32[t];
  }
  PetscCall(PetscFree5(c.width, c.nnzb, c.nr16, c.nr32, c.maxrow));
  if (map) {
    PetscCall(PetscMalloc1(L->nnz, &L->map));
    PetscCall(PetscArraycpy(L->map, map, L->nnz));
  }
  *out = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpBlockLayoutCreateThreads(PetscInt m, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscInt W, PetscBool compress, PetscBool compressbias, PetscInt nthreads, EllwarpBlockLayout **out)
{
  PetscFunctionBegin;
  PetscCall(EllwarpBlockLayoutCreateLanes(m, n, bs, ai, aj, map, W, compress, compressbias, 1, nthreads, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpBlockLayoutCreate(PetscInt m, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscInt W, PetscBool compress, PetscBool compressbias, EllwarpBlockLayout **out)
{
  PetscFunctionBegin;
  PetscCall(EllwarpBlockLayoutCreateThreads(m, n, bs, ai, aj, map, W, compress, compressbias, 0, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpBlockLayoutDestroy(EllwarpBlockLayout **L)
{
  PetscFunctionBegin;
  if (!*L) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3((*L)->rowperm, (*L)->rowlen, (*L)->rowstart));
  PetscCall(PetscFree3((*L)->sliceptr, (*L)->colbase, (*L)->meta));
  PetscCall(PetscFree2((*L)->col16, (*L)->col32));
  PetscCall(PetscFree((*L)->map));
  PetscCall(PetscFree((*L)->biasbase));
  PetscCall(PetscFree((*L)->colbias));
  PetscCall(PetscFree(*L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes one product reads and writes with this layout: the stored blocks' values and their one index each
   (padding slots are never read), the biases of the biased slices, per slice its slot and index bases and mode, per block row its length and
   row, x once and y once (x is gathered, so a lower bound; the same model as EllwarpLayoutBytesMult()). */
PetscLogDouble EllwarpBlockBytesMult(const EllwarpBlockLayout *L)
{
  return (PetscLogDouble)L->nnzb * L->bs * L->bs * sizeof(PetscScalar) + (PetscLogDouble)L->nread16 * sizeof(short) + (PetscLogDouble)L->nread32 * sizeof(int) + (PetscLogDouble)L->ncolbias * sizeof(int) + (PetscLogDouble)L->nbias * sizeof(PetscCount) + (PetscLogDouble)L->nslices * (2 * sizeof(PetscCount) + 1) + (PetscLogDouble)L->mb * (sizeof(int) + sizeof(PetscInt)) +
         (PetscLogDouble)(L->mb + L->nb) * L->bs * sizeof(PetscScalar);
}

/* ---- the lanes model ----------------------------------------------------------------------------------------
   Why lanes: with one thread per block row (T = 1) a warp's step is one block per lane (an index load, then the
   dependent x loads, and bs^2 value loads), and an elasticity matrix of 0.35 M rows has only ~3.7 k slices of 32 block
   rows: fewer warps than the H100 keeps resident, so every warp runs at once and the product takes as long as the
   widest slice's steps, each latency bound.  T lanes per block row divide the widest slice's steps by T and multiply
   the slices by T.  The model of one product with T lanes (microseconds):
     time      = LAUNCH + max(bytes_us, widest_us, rounds_us)
     bytes_us  = bytes (EllwarpBlockBytesMult, with the slice metadata of T) / BW
     widest_us = (START + log2 T + w_max) x STEP_US          the last warp: its steps, log2 T shuffle rounds
     rounds_us = sum over slices of (START + log2 T + w_s) x STEP_US / WARPS   all warps' steps over the resident warps
   (w_s: slice s's steps, its longest block row's ceil(length / T)).  The T with the least time wins, ties (within
   0.5 %) going to fewer lanes (fewer padded lane-steps, no shuffles).  The scalar layout in the same model:
   LAUNCH + its bytes (EllwarpLayoutBytesMult) / BW (its own chooser keeps it near bandwidth bound: K2 splits long rows).
   Fit (H100, cold products, benchmarks/results/spmv-h100-dmplex/blocked-layout/spmv-bytes-rule.log, T = 1 = the
   block_map=row kernel): the blocked times of box P1, Q1, P2, Q2 elasticity and the gmsh LV's P1 elasticity,
   73 / 114 / 251 / 419 / 112 us with longest block rows of 17 / 27 / 75 / 125 / 29 blocks, are
   LAUNCH + widest (or bytes, Q1) within 6 %: STEP_US 3.2 and LAUNCH + START x STEP_US = 18.6 us; the scalar layout's,
   81 / 138 / 138 / 283 / 93 us for 163 / 306 / 306 / 665 / 227 MB, are LAUNCH + bytes / BW within 3 % (gmsh: 13 %
   over) with BW 2.45 TB/s and LAUNCH 12 us (the cold product's fixed cost: README of that directory).  WARPS:
   BlockMultLanes is bounded to 40 registers for bs <= 5 (48 for bs 6; `nvcc -Xptxas -v`, sm_90, no spills), so 48
   resident warps of 128-thread blocks per SM (40 for bs 6), 132 SMs.  START (a slice's metadata loads) is then 2.
   Re-fit of the T = 1 kernel (benchmarks/results/spmv-h100-dmplex/blocked-lanes-recalibrated, every T forced): since
   BlockMultRow shares BlockStep/BlockColumn with the lanes kernel its steps are cheaper (box P2 251 -> 163 us, Q2
   419 -> 280 us, both widest-bound: (163 - 12) / 77 and (280 - 12) / 127 steps = 1.96 and 2.11 us a step), so T = 1
   has its own step, STEP1_US = 2.0; the lanes kernel (T >= 2, shuffle reductions) keeps 3.2 (its T = 4 times, 73 / 114
   / 107 / 232 / 84 us modelled, were measured 78 / 114 / 107 / 247 / 89 us). */
#define ELLWARP_BLOCK_MODEL_BW        2.45e6 /* bytes per microsecond */
#define ELLWARP_BLOCK_MODEL_STEP_US   3.2    /* one latency-bound step of a warp of the lanes kernel (T >= 2) */
#define ELLWARP_BLOCK_MODEL_STEP1_US  2.0    /* one latency-bound step of a warp of the T = 1 kernel (BlockMultRow) */
#define ELLWARP_BLOCK_MODEL_START     2      /* steps a slice costs besides its width (metadata loads, y stores) */
#define ELLWARP_BLOCK_MODEL_LAUNCH_US 12.0   /* a cold product's fixed cost */
#define ELLWARP_BLOCK_MODEL_WARPS     6336.0 /* resident warps: 132 SMs x 48 */

/* the scalar layout's time in the same model */
PetscReal EllwarpBlockModelScalarTime(PetscLogDouble sbytes)
{
  return ELLWARP_BLOCK_MODEL_LAUNCH_US + (PetscReal)sbytes / ELLWARP_BLOCK_MODEL_BW;
}

/*@C
  EllwarpBlockModelTime - the modelled time of one blocked product with T lanes per block row

  Input Parameters:
+ L - a blocked layout of the matrix (any lanes: its sorted order of the block rows is every T's)
- T - lanes per block row, 1, 2, 4, 8, 16 or 32

  Output Parameter:
. M - the model's terms and time (microseconds)

  Level: developer

  Note:
  The model (time = launch + the largest of the bytes, the widest slice and the rounds terms) is described at the
  top of this section of blocklayout.c.

.seealso: `EllwarpBlockChooseLanes()`, `EllwarpBlockBytesMult()`
@*/
PetscErrorCode EllwarpBlockModelTime(const EllwarpBlockLayout *L, PetscInt T, EllwarpBlockModel *M)
{
  const PetscInt  R    = ELLWARP_LANES / T;
  const PetscReal step = T == 1 ? ELLWARP_BLOCK_MODEL_STEP1_US : ELLWARP_BLOCK_MODEL_STEP_US;
  PetscInt        l2 = 0, maxw = 0, ns;
  PetscReal      steps = 0;
  PetscLogDouble bytes;

  PetscFunctionBegin;
  PetscCheck(T >= 1 && T <= ELLWARP_BLOCK_MAXLANES && !(T & (T - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "blocked ELLWARP: %" PetscInt_FMT " lanes per block row must be 1, 2, 4, 8, 16 or 32", T);
  while ((1 << l2) < T) l2++;
  ns = (L->mb + R - 1) / R;
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt w = 0;
    for (PetscInt p = s * R; p < PetscMin(L->mb, (s + 1) * R); p++) w = PetscMax(w, (L->rowlen[p] + T - 1) / T);
    maxw = PetscMax(maxw, w);
    steps += ELLWARP_BLOCK_MODEL_START + l2 + w;
  }
  /* the layout's bytes with the per-slice metadata of ns slices instead of L's; the index bytes are L's (with T lanes
     a slice of 32 / T block rows may take another index mode: an approximation, exact for L's own T) */
  bytes        = EllwarpBlockBytesMult(L) + (PetscLogDouble)(ns - L->nslices) * (2 * sizeof(PetscCount) + 1);
  M->nslices   = ns;
  M->maxwidth  = maxw;
  M->bytes_us  = (PetscReal)bytes / ELLWARP_BLOCK_MODEL_BW;
  M->widest_us = (ELLWARP_BLOCK_MODEL_START + l2 + maxw) * step;
  M->rounds_us = steps * step / ELLWARP_BLOCK_MODEL_WARPS;
  M->time_us   = ELLWARP_BLOCK_MODEL_LAUNCH_US + PetscMax(M->bytes_us, PetscMax(M->widest_us, M->rounds_us));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  EllwarpBlockChooseLanes - the lanes per block row T for the automatic choice: 2 or 4, by the modelled time

  Input Parameter:
. L - a blocked layout of the matrix (any lanes)

  Output Parameters:
+ T - 2 where T = 2's `EllwarpBlockModelTime()` is at least 2 % less than T = 4's, else 4
- M - (optional, 6 entries) the model of T = 1, 2, 4, ..., 32 (the -info lines print all of them)

  Notes:
  Measured on an H100 with every T forced (benchmarks/results/spmv-h100-dmplex/batched-kernel/final-h100/blocklanes:
  five DMPlex elasticity matrices in the default numbering), since the kernel of T > 1 lanes loads two steps' block
  columns and x entries together (-mat_ellwarp_tune block_batch, 2 by default there): T = 2 is the best on box P1, Q1
  and the gmsh LV (60.0, 95.6, 69.6 us; T = 1 60.8, 96.8, 84.3: the LV 17 % behind), T = 4 on P2 and Q2 (101.4, 207.6
  us; T = 2 110.5 and 212.3).  The model ranks P1 and the LV's T = 2 under T = 4 by 9 and 7 %, ties Q1 and Q2 and has
  T = 4 21 % under T = 2 on P2; so near-ties go to T = 4 (Q1: 1.2 % behind T = 2, Q2: the best).  T = 1, 8, 16 and 32
  won nowhere (before the batch, T = 1 won P1, Q1 and the LV: blocked-lanes-recalibrated); any T stays available by
  -mat_ellwarp_block_lanes.

  Level: developer

.seealso: `EllwarpBlockModelTime()`
@*/
PetscErrorCode EllwarpBlockChooseLanes(const EllwarpBlockLayout *L, PetscInt *T, EllwarpBlockModel M[])
{
  PetscReal t2 = 0, t4 = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0, t = 1; t <= ELLWARP_BLOCK_MAXLANES; i++, t *= 2) {
    EllwarpBlockModel m;
    PetscCall(EllwarpBlockModelTime(L, t, &m));
    if (M) M[i] = m;
    if (t == 2) t2 = m.time_us;
    if (t == 4) t4 = m.time_us;
  }
  *T = t2 < 0.98 * t4 ? 2 : 4;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block column of step k of lane slot g of slice s, whose block row is ib */
static inline PetscInt BlockCol(const EllwarpBlockLayout *L, PetscInt s, PetscInt k, PetscInt g, PetscInt ib)
{
  const PetscCount o = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + g;
  if (!(L->meta[s] & 16)) return L->col32[o];
  return ib + ((L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k * L->lanes + g % L->lanes] : 0) + L->col16[o];
}

/* the gather's loop (one block row at a time, its blocks' values from the CSR), for values and for the slot map */
#define ELLWARP_BLOCK_GATHER(L, src, out) \
  do { \
    const PetscInt bs_ = (L)->bs, bs2_ = bs_ * bs_, T_ = (L)->lanes; \
    for (PetscInt s_ = 0; s_ < (L)->nslices; s_++) \
      for (PetscInt q_ = 0; q_ < (L)->rows; q_++) { \
        const PetscInt p_ = s_ * (L)->rows + q_, len_ = (L)->rowlen[p_]; \
        for (PetscInt j_ = 0; j_ < len_; j_++) { \
          const PetscCount o_ = (L)->sliceptr[s_] * bs2_ + q_ * T_ + j_ % T_; \
          for (PetscInt r_ = 0; r_ < bs_; r_++) \
            for (PetscInt c_ = 0; c_ < bs_; c_++) { \
              const PetscCount e_ = (L)->rowstart[p_] + (PetscCount)r_ * bs_ * len_ + (PetscCount)j_ * bs_ + c_; \
              (out)[o_ + (PetscCount)((j_ / T_) * bs2_ + r_ * bs_ + c_) * ELLWARP_LANES] = (src)[(L)->map ? (L)->map[e_] : e_]; \
            } \
        } \
      } \
  } while (0)

void EllwarpBlockHostGather(const EllwarpBlockLayout *L, const PetscScalar *csr, PetscScalar *val)
{
  ELLWARP_BLOCK_GATHER(L, csr, val);
}

PetscErrorCode EllwarpBlockHostSlotMap(const EllwarpBlockLayout *L, PetscCount nsslots, const PetscInt s2c[], int smap[])
{
  int *c2s;

  PetscFunctionBegin;
  PetscCheck(nsslots <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "blocked ELLWARP slot map: %" PetscCount_FMT " scalar slots do not fit 32 bits", nsslots);
  PetscCall(PetscMalloc1(L->nnz, &c2s));
  for (PetscCount x = 0; x < L->nnz; x++) c2s[x] = -1;
  for (PetscCount t = 0; t < nsslots; t++)
    if (s2c[t] >= 0) c2s[s2c[t]] = (int)t;
  for (PetscCount o = 0; o < L->nslots * L->bs * L->bs; o++) smap[o] = -1;
  ELLWARP_BLOCK_GATHER(L, c2s, smap);
  PetscCall(PetscFree(c2s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per lane t of a block row its partial sums over blocks t, t + T, ..., then the device's butterfly: at offset o
   every lane t adds lane t ^ o's sums to its own (T/2, ..., 1), so each lane ends with the same sums; lane 0's */
void EllwarpBlockHostMult(const EllwarpBlockLayout *L, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt bs = L->bs, bs2 = bs * bs, T = L->lanes;
  for (PetscInt s = 0; s < L->nslices; s++)
    for (PetscInt q = 0; q < L->rows; q++) {
      const PetscInt     p = s * L->rows + q, ib = L->rowperm[p], len = L->rowlen[p];
      const PetscScalar *v = val + L->sliceptr[s] * bs2;
      PetscScalar        acc[ELLWARP_BLOCK_MAXLANES][ELLWARP_BLOCK_MAXBS] = {{0}}, tmp[ELLWARP_BLOCK_MAXLANES][ELLWARP_BLOCK_MAXBS];
      if (ib < 0) continue;
      for (PetscInt t = 0; t < T; t++) {
        const PetscInt g = q * T + t;
        for (PetscInt k = 0; k * T + t < len; k++) {
          const PetscScalar *xb = x + (PetscCount)BlockCol(L, s, k, g, ib) * bs;
          for (PetscInt r = 0; r < bs; r++)
            for (PetscInt c = 0; c < bs; c++) acc[t][r] += v[(PetscCount)(k * bs2 + r * bs + c) * ELLWARP_LANES + g] * xb[c];
        }
      }
      for (PetscInt o = T / 2; o >= 1; o /= 2) {
        for (PetscInt t = 0; t < T; t++)
          for (PetscInt r = 0; r < bs; r++) tmp[t][r] = acc[t][r] + acc[t ^ o][r];
        for (PetscInt t = 0; t < T; t++)
          for (PetscInt r = 0; r < bs; r++) acc[t][r] = tmp[t][r];
      }
      for (PetscInt r = 0; r < bs; r++) y[ib * bs + r] = z ? z[ib * bs + r] + acc[0][r] : acc[0][r];
    }
}

/* ---- the reference store ------------------------------------------------------------------------------ */
struct _EllwarpBlockStore {
  const EllwarpBlockLayout *L;
  PetscScalar              *val;
  int                      *smap; /* blocked value -> scalar slot (gatherslots), made at its first call */
};

static PetscErrorCode HostCreate(const EllwarpBlockLayout *L, EllwarpBlockStore **S)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(S));
  (*S)->L = L;
  PetscCall(PetscCalloc1(L->nslots * L->bs * L->bs, &(*S)->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostDestroy(EllwarpBlockStore **S)
{
  PetscFunctionBegin;
  if (!*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*S)->val));
  PetscCall(PetscFree((*S)->smap));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostGather(EllwarpBlockStore *S, const PetscScalar *csr)
{
  PetscFunctionBegin;
  EllwarpBlockHostGather(S->L, csr, S->val);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostGatherSlots(EllwarpBlockStore *S, PetscCount nsslots, const PetscInt *s2c, const PetscScalar *sval)
{
  const PetscCount n = S->L->nslots * S->L->bs * S->L->bs;

  PetscFunctionBegin;
  if (!S->smap) {
    PetscCall(PetscMalloc1(n, &S->smap));
    PetscCall(EllwarpBlockHostSlotMap(S->L, nsslots, s2c, S->smap));
  }
  for (PetscCount o = 0; o < n; o++)
    if (S->smap[o] >= 0) S->val[o] = sval[S->smap[o]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* both mappings and every batch sum each scalar row in the same order: the reference is one function */
static PetscErrorCode HostMult(const EllwarpBlockStore *S, EllwarpBlockMap map, PetscInt batch, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  (void)map;
  (void)batch;
  EllwarpBlockHostMult(S->L, S->val, x, z, y);
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)S->L->nnzb * S->L->bs * S->L->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpBlockOps EllwarpBlockHostOps = {HostCreate, HostDestroy, HostGather, HostGatherSlots, HostMult};
