/* The blocked ELL-WARP layout (ellwarpblock.h): the check that a CSR pattern is bs-blocked, the host analysis,
   the bytes model, and the plain-C reference store (gather and product) that the CUDA kernels are tested against. */
#include <petscellwarp/private/ellwarpblock.h>
#include <petscsys.h>

const char *const EllwarpBlockMaps[] = {"auto", "row", "lane", "EllwarpBlockMap", "ELLWARP_BLOCK_MAP_", NULL};

/* Whether the m x n CSR pattern is bs-blocked: bs divides m and n, and every bs x bs block is stored whole or not
   at all (the rows of a block row have the same columns, which come in whole aligned groups of bs).  The columns
   of each row increase (assembled SeqAIJ, EllwarpLayoutTranspose()).  O(nnz), stops at the first counterexample. */
PetscErrorCode EllwarpBlockDetect(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscBool *blocked)
{
  PetscFunctionBegin;
  *blocked = PETSC_FALSE;
  if (bs < 2 || bs > ELLWARP_BLOCK_MAXBS || m % bs || n % bs) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt ib = 0; ib < m / bs; ib++) {
    const PetscInt r0 = ib * bs, k0 = ai[r0], len = ai[r0 + 1] - ai[r0];
    if (len % bs) PetscFunctionReturn(PETSC_SUCCESS);
    for (PetscInt k = 0; k < len; k += bs) {
      const PetscInt c0 = aj[k0 + k];
      if (c0 % bs) PetscFunctionReturn(PETSC_SUCCESS);
      for (PetscInt c = 1; c < bs; c++)
        if (aj[k0 + k + c] != c0 + c) PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt r = 1; r < bs; r++) {
      if (ai[r0 + r + 1] - ai[r0 + r] != len) PetscFunctionReturn(PETSC_SUCCESS);
      for (PetscInt k = 0; k < len; k++)
        if (aj[ai[r0 + r] + k] != aj[k0 + k]) PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  *blocked = PETSC_TRUE;
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

/* The layout of a bs-blocked m x n CSR pattern (EllwarpBlockDetect() true).  Block rows are sorted by length,
   longest first, within windows of W block rows (a multiple of 32: slices never straddle windows), so a slice's
   rows have nearly the same length (its width is its first row's) while its x and y accesses stay local.
   map: CSR entry -> value index (a transpose), or NULL.  compress: 16-bit block-column offsets where they fit;
   compressbias (with compress): from the block row plus a bias per step where row-relative ones do not fit. */
PetscErrorCode EllwarpBlockLayoutCreate(PetscInt m, PetscInt n, PetscInt bs, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], PetscInt W, PetscBool compress, PetscBool compressbias, EllwarpBlockLayout **out)
{
  EllwarpBlockLayout *L;
  PetscInt            mb = m / bs, np;
  PetscInt64         *key;

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
  /* sort: key (longest first, then block row) inside each window */
  PetscCall(PetscMalloc1(PetscMin(W, PetscMax(mb, 1)), &key));
  for (PetscInt w0 = 0; w0 < mb; w0 += W) {
    const PetscInt nw = PetscMin(W, mb - w0);
    for (PetscInt i = 0; i < nw; i++) {
      const PetscInt ib = w0 + i, len = (ai[ib * bs + 1] - ai[ib * bs]) / bs;
      key[i]           = ((PetscInt64)(PETSC_INT_MAX - len) << 32) | (PetscInt64)i;
    }
    PetscCall(PetscSortInt64(nw, key));
    for (PetscInt i = 0; i < nw; i++) {
      const PetscInt ib = w0 + (PetscInt)(key[i] & 0xffffffffLL);
      L->rowperm[w0 + i]  = ib;
      L->rowlen[w0 + i]   = (int)((ai[ib * bs + 1] - ai[ib * bs]) / bs);
      L->rowstart[w0 + i] = ai[ib * bs];
    }
  }
  PetscCall(PetscFree(key));
  for (PetscInt p = mb; p < np; p++) {
    L->rowperm[p]  = -1;
    L->rowlen[p]   = 0;
    L->rowstart[p] = 0;
  }
  /* slices: width, column mode (row-relative 16-bit, else 16-bit plus a bias per step, else 32-bit) */
  L->sliceptr[0] = 0;
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt  w = 0;
    PetscBool fits = compress, biasfits = (PetscBool)(compress && compressbias);
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt p = s * ELLWARP_LANES + q;
      w                = PetscMax(w, L->rowlen[p]);
      for (PetscInt k = 0; fits && k < L->rowlen[p]; k++) {
        const PetscInt64 d = (PetscInt64)(aj[L->rowstart[p] + k * bs] / bs) - L->rowperm[p];
        if (d < -32767 || d > 32767) fits = PETSC_FALSE;
      }
      L->nnzb += L->rowlen[p];
      L->maxrowlen = PetscMax(L->maxrowlen, L->rowlen[p]);
    }
    for (PetscInt k = 0; !fits && biasfits && k < w; k++) {
      PetscInt64 mn, mx;
      StepSpan(L, aj, s, k, &mn, &mx);
      if (mx >= mn && mx - mn > ELLWARP_BIAS_SPAN) biasfits = PETSC_FALSE;
    }
    L->sliceptr[s + 1] = L->sliceptr[s] + (PetscCount)w * ELLWARP_LANES;
    L->meta[s]         = fits ? 16 : (biasfits ? 48 : 0);
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
  for (PetscInt s = 0; s < L->nslices; s++) /* a biased slice's biases: each step's midpoint (0 where no lane has an entry) */
    for (PetscInt k = 0; (L->meta[s] & 32) && k < (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES); k++) {
      PetscInt64 mn, mx;
      StepSpan(L, aj, s, k, &mn, &mx);
      L->colbias[L->biasbase[s] + k] = mx >= mn ? EllwarpBiasOf((int)mn, (int)mx) : 0;
    }
  for (PetscInt s = 0; s < L->nslices; s++) {
    const PetscInt w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      const PetscInt p = s * ELLWARP_LANES + q;
      for (PetscInt k = 0; k < w; k++) {
        const PetscCount o  = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + q;
        const PetscBool  in = (PetscBool)(k < L->rowlen[p]);
        const PetscInt   bc = in ? aj[L->rowstart[p] + k * bs] / bs : -1;
        if (L->meta[s] & 16) {
          const PetscInt bias = (L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k] : 0;
          L->col16[o]         = in ? (short)(bc - L->rowperm[p] - bias) : (short)ELLWARP_PAD16;
          if (in) L->nread16++;
        } else {
          L->col32[o] = (int)bc;
          if (in) L->nread32++;
        }
      }
    }
  }
  if (map) {
    PetscCall(PetscMalloc1(L->nnz, &L->map));
    PetscCall(PetscArraycpy(L->map, map, L->nnz));
  }
  *out = L;
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
