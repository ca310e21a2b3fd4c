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

/* the smallest and largest (block column - block row) over the lanes of slice s with a block at step k (mx < mn: none) */
static void StepSpan(const EllwarpBlockLayout *L, const PetscInt aj[], PetscInt s, PetscInt k, PetscInt64 *mn, PetscInt64 *mx)
{
  *mn = PETSC_INT64_MAX;
  *mx = PETSC_INT64_MIN;
  for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
    const PetscInt p = s * ELLWARP_LANES + q;
    if (k < L->rowlen[p]) {
      const PetscInt64 d = (PetscInt64)(aj[L->rowstart[p] + k * L->bs] / L->bs) - L->rowperm[p];
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
    const PetscInt s = (PetscInt)sc;
    PetscInt       w = 0;
    PetscBool      fits = c->compress, biasfits = (PetscBool)(c->compress && c->compressbias);
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt p = s * ELLWARP_LANES + q;
      w                = PetscMax(w, L->rowlen[p]);
      for (PetscInt k = 0; fits && k < L->rowlen[p]; k++) {
        const PetscInt64 d = (PetscInt64)(c->aj[L->rowstart[p] + k * bs] / bs) - L->rowperm[p];
        if (d < -32767 || d > 32767) fits = PETSC_FALSE;
      }
      nnzb += L->rowlen[p];
      maxrow = PetscMax(maxrow, L->rowlen[p]);
    }
    for (PetscInt k = 0; !fits && biasfits && k < w; k++) {
      PetscInt64 mn, mx;
      StepSpan(L, c->aj, s, k, &mn, &mx);
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
    for (PetscInt k = 0; (L->meta[s] & 32) && k < w; k++) {
      PetscInt64 mn, mx;
      StepSpan(L, c->aj, s, k, &mn, &mx);
      L->colbias[L->biasbase[s] + k] = mx >= mn ? EllwarpBiasOf((int)mn, (int)mx) : 0;
    }
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt p = s * ELLWARP_LANES + q;
      for (PetscInt k = 0; k < w; k++) {
        const PetscCount o  = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + q;
        const PetscBool  in = (PetscBool)(k < L->rowlen[p]);
        const PetscInt   bc = in ? c->aj[L->rowstart[p] + k * bs] / bs : -1;
        if (L->meta[s] & 16) {
          const PetscInt bias = (L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k] : 0;
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

/* The layout of a bs-blocked m x n CSR pattern (EllwarpBlockDetect() true).  Block rows are sorted by length,
   longest first, within windows of W block rows (a multiple of 32: slices never straddle windows), so a slice's
   rows have nearly the same length (its width is its first row's) while its x and y accesses stay local.
   map: CSR entry -> value index (a transpose), or NULL.  compress: 16-bit block-column offsets where they fit;
   compressbias (with compress): from the block row plus a bias per step where row-relative ones do not fit.
   nthreads: 0 for the CPUs of the process; the layout is the same for any number. */
PetscErrorCode EllwarpBlockLayoutCreateThreads(PetscInt m, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscInt W, PetscBool compress, PetscBool compressbias, PetscInt nthreads, EllwarpBlockLayout **out)
{
  EllwarpBlockLayout *L;
  PetscInt            mb = m / bs, np, nth;
  LayoutCtx           c;

  PetscFunctionBegin;
  PetscCheck(bs >= 2 && bs <= ELLWARP_BLOCK_MAXBS && m % bs == 0 && n % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "blocked ELLWARP layout: block size %" PetscInt_FMT " must be in [2,%d] and divide %" PetscInt_FMT " x %" PetscInt_FMT, bs, ELLWARP_BLOCK_MAXBS, m, n);
  PetscCheck(W > 0 && W % ELLWARP_LANES == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "blocked ELLWARP layout: sort window %" PetscInt_FMT " must be a positive multiple of %d", W, ELLWARP_LANES);
  PetscCall(PetscNew(&L));
  L->bs         = bs;
  L->mb         = mb;
  L->nb         = n / bs;
  L->nslices    = (mb + ELLWARP_LANES - 1) / ELLWARP_LANES;
  L->sortwindow = W;
  L->nnz        = m ? ai[m] : 0;
  np            = L->nslices * ELLWARP_LANES;
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
        L->ncolbias += w;
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

static inline PetscInt BlockCol(const EllwarpBlockLayout *L, PetscInt s, PetscInt k, PetscInt q, PetscInt ib)
{
  const PetscCount o = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + q;
  if (!(L->meta[s] & 16)) return L->col32[o];
  return ib + ((L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k] : 0) + L->col16[o];
}

void EllwarpBlockHostGather(const EllwarpBlockLayout *L, const PetscScalar *csr, PetscScalar *val)
{
  const PetscInt bs = L->bs, bs2 = bs * bs;
  for (PetscInt s = 0; s < L->nslices; s++)
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt p = s * ELLWARP_LANES + q, len = L->rowlen[p];
      PetscScalar   *v = val + L->sliceptr[s] * bs2 + q;
      for (PetscInt k = 0; k < len; k++)
        for (PetscInt r = 0; r < bs; r++)
          for (PetscInt c = 0; c < bs; c++) {
            const PetscCount e = L->rowstart[p] + (PetscCount)r * bs * len + (PetscCount)k * bs + c;
            v[(PetscCount)(k * bs2 + r * bs + c) * ELLWARP_LANES] = csr[L->map ? L->map[e] : e];
          }
    }
}

void EllwarpBlockHostMult(const EllwarpBlockLayout *L, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt bs = L->bs, bs2 = bs * bs;
  for (PetscInt s = 0; s < L->nslices; s++)
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt     p = s * ELLWARP_LANES + q, ib = L->rowperm[p], len = L->rowlen[p];
      const PetscScalar *v = val + L->sliceptr[s] * bs2 + q;
      PetscScalar        acc[ELLWARP_BLOCK_MAXBS] = {0};
      if (ib < 0) continue;
      for (PetscInt k = 0; k < len; k++) {
        const PetscScalar *xb = x + (PetscCount)BlockCol(L, s, k, q, ib) * bs;
        for (PetscInt r = 0; r < bs; r++)
          for (PetscInt c = 0; c < bs; c++) acc[r] += v[(PetscCount)(k * bs2 + r * bs + c) * ELLWARP_LANES] * xb[c];
      }
      for (PetscInt r = 0; r < bs; r++) y[ib * bs + r] = z ? z[ib * bs + r] + acc[r] : acc[r];
    }
}

/* ---- the reference store ------------------------------------------------------------------------------ */
struct _EllwarpBlockStore {
  const EllwarpBlockLayout *L;
  PetscScalar              *val;
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
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostGather(EllwarpBlockStore *S, const PetscScalar *csr)
{
  PetscFunctionBegin;
  EllwarpBlockHostGather(S->L, csr, S->val);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* both mappings sum each scalar row in the same order: the reference is one function */
static PetscErrorCode HostMult(const EllwarpBlockStore *S, EllwarpBlockMap map, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  (void)map;
  EllwarpBlockHostMult(S->L, S->val, x, z, y);
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)S->L->nnzb * S->L->bs * S->L->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpBlockOps EllwarpBlockHostOps = {HostCreate, HostDestroy, HostGather, HostMult};
