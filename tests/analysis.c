/* The pattern analysis: the host analysis (layout.c, the reference) checked against the CSR pattern on
   FE-like, random, power-law and degenerate matrices (empty rows, one very long row, 1x1, all-zero,
   0x0, rectangular, a transpose with an entry map), and on matrices whose rows share a stencil far from
   the diagonal (a periodic lattice like SynthQCD, a common stencil with wrap-around, both also mixed with
   row-relative and 32-bit slices) where the biased 16-bit column mode must be chosen -- each slice's mode
   is checked against its definition (row-relative if it fits, else biased if every step's span fits, else
   32-bit) -- under many parameter sets; with -gpu, the device
   analysis (ellwarpanalysis.cu) must build exactly the same layout -- every array and every scalar --
   and matrices analysed on the device must multiply bitwise like those analysed on the host.
   The blocked layout (ellwarpblock.h, BlockLevel): the blocked-pattern check, every array of the host analysis
   against its definition (each stored block once, lengths sorted within windows, the 16-bit mode iff it fits),
   and the reference gather and product against the CSR product, for bs 2..6, T = 1..32 lanes per block row, with a
   transpose map, empty and long block rows; the lanes model the same from any T's layout.

   ellwarp_add_test(analysis)
   ellwarp_add_test(analysis.gpu -gpu GPU)
*/
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpanalysis.h>
#include <petscellwarp/private/ellwarpblock.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include <petscellwarp/private/ellwarpslicelane.h>
#include "stenciltestutil.h"
#include <limits.h>

static PetscInt nchecks, nlayouts;

typedef struct {
  char      name[64];
  PetscInt  m, n;
  PetscInt *ai, *aj, *map; /* map: entry -> value index (transposes), or NULL */
} CSR;

/* a tiny deterministic generator: the same matrices on every machine */
static unsigned long long rng = 88172645463325252ull;
static PetscInt           Rand(PetscInt k)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (PetscInt)(rng % (unsigned long long)k);
}

static int cmpint(const void *a, const void *b)
{
  PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
  return x < y ? -1 : x > y;
}

/* rows of the given lengths, distinct sorted columns: near the diagonal (16-bit) when band > 0, else anywhere */
static PetscErrorCode MakeCSR(const char *name, PetscInt m, PetscInt n, const PetscInt len[], PetscInt band, CSR *A)
{
  char *mark;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(A->name, name, sizeof(A->name)));
  A->m   = m;
  A->n   = n;
  A->map = NULL;
  PetscCall(PetscMalloc1(m + 1, &A->ai));
  A->ai[0] = 0;
  for (PetscInt i = 0; i < m; i++) A->ai[i + 1] = A->ai[i] + PetscMin(len[i], n);
  PetscCall(PetscMalloc1(A->ai[m], &A->aj));
  PetscCall(PetscCalloc1(n + 1, &mark));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt l = A->ai[i + 1] - A->ai[i], *c = A->aj + A->ai[i], k = 0, b = band;
    if (2 * l > n) { /* dense row: all columns, then drop n - l of them */
      PetscInt keep = n;
      for (PetscInt j = 0; j < n; j++) mark[j] = 1;
      while (keep > l) {
        PetscInt j = Rand(n);
        if (mark[j]) {
          mark[j] = 0;
          keep--;
        }
      }
      for (PetscInt j = 0; j < n; j++)
        if (mark[j]) c[k++] = j;
      for (PetscInt j = 0; j < n; j++) mark[j] = 0;
      continue;
    }
    if (b > 0) b = PetscMax(b, l); /* room for l distinct columns in the band */
    while (k < l) {
      PetscInt j = b > 0 && i < n ? i - b + Rand(2 * b + 1) : Rand(n); /* (PetscMax would draw twice) */
      j          = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
      if (k == 0 && i < n && Rand(3)) j = i; /* most rows hold their diagonal */
      if (mark[j]) continue;
      mark[j] = 1;
      c[k++]  = j;
    }
    for (PetscInt q = 0; q < l; q++) mark[c[q]] = 0;
    qsort(c, (size_t)l, sizeof(PetscInt), cmpint);
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KuhnCSR(PetscInt N, CSR *A)
{
  Mat             B;
  PetscCount      n;
  PetscInt       *ci, *cj, nv = (N + 1) * (N + 1) * (N + 1), nr;
  const PetscInt *ia, *ja;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(EllwarpKuhnCOO(N, &n, &ci, &cj));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 0, NULL, &B));
  PetscCall(MatSetPreallocationCOO(B, n, ci, cj));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(PetscSNPrintf(A->name, sizeof(A->name), "kuhn_p1_N%" PetscInt_FMT, N));
  A->m   = nv;
  A->n   = nv;
  A->map = NULL;
  PetscCall(PetscMalloc1(nv + 1, &A->ai));
  PetscCall(PetscMalloc1(ia[nv], &A->aj));
  PetscCall(PetscArraycpy(A->ai, ia, nv + 1));
  PetscCall(PetscArraycpy(A->aj, ja, ia[nv]));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern of Q1 hexahedra on an N x N x N vertex grid (lexicographic numbering): rows of 8, 12, 18 and 27 entries,
   the row-length histogram of the box Q1 scalar matrices of benchmarks/spmv (69^3 = 328 509 rows there) */
static PetscErrorCode HexQ1CSR(PetscInt N, CSR *A)
{
  PetscInt m = N * N * N, k = 0;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(A->name, sizeof(A->name), "hex_q1_N%" PetscInt_FMT, N));
  A->m   = m;
  A->n   = m;
  A->map = NULL;
  PetscCall(PetscMalloc1(m + 1, &A->ai));
  PetscCall(PetscMalloc1(27 * m, &A->aj));
  A->ai[0] = 0;
  for (PetscInt z = 0; z < N; z++)
    for (PetscInt y = 0; y < N; y++)
      for (PetscInt x = 0; x < N; x++) {
        for (PetscInt c = PetscMax(z - 1, 0); c <= PetscMin(z + 1, N - 1); c++)
          for (PetscInt b = PetscMax(y - 1, 0); b <= PetscMin(y + 1, N - 1); b++)
            for (PetscInt a = PetscMax(x - 1, 0); a <= PetscMin(x + 1, N - 1); a++) A->aj[k++] = (c * N + b) * N + a;
        A->ai[(z * N + y) * N + x + 1] = k;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeCSR(CSR *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->ai));
  PetscCall(PetscFree(A->aj));
  PetscCall(PetscFree(A->map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define CHECK(cond, ...) \
  do { \
    nchecks++; \
    PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__); \
  } while (0)

/* each slice's column mode against its definition: 16-bit from the row when every entry is within +-32767 of its
   row; else, with at most 1 << ELLWARP_BIAS_MAXL2 lanes per row, 16-bit from row + bias[e] when at every entry
   position e of the slice's rows the span of (col - row) is at most ELLWARP_BIAS_SPAN (and the bias is the
   span's midpoint, 0 where no row has an entry); else 32-bit.  Counts, sizes and bias offsets. */
static PetscErrorCode ValidateModes(const CSR *A, const EllwarpLayout *L, const EllwarpParams *par, const char *what)
{
  PetscInt   n16 = 0, nbias = 0, ndict = 0;
  PetscCount nb = 0;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt  l2 = L->meta[s] & 15, w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    PetscBool rowrel = PETSC_TRUE, biasok = (PetscBool)(l2 <= ELLWARP_BIAS_MAXL2);
    for (PetscInt e = 0; e < (w << l2); e++) {
      long long mn = LLONG_MAX, mx = LLONG_MIN;
      for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
        PetscInt row = L->rowperm[L->slicerow[s] + q];
        if (e >= A->ai[row + 1] - A->ai[row]) continue;
        long long d = (long long)A->aj[A->ai[row] + e] - row;
        if (d < -32767 || d > 32767) rowrel = PETSC_FALSE;
        mn = PetscMin(mn, d);
        mx = PetscMax(mx, d);
      }
      if (mn <= mx && mx - mn > ELLWARP_BIAS_SPAN) biasok = PETSC_FALSE;
      if (L->meta[s] & 32) CHECK(L->colbias[L->biasbase[s] + e] == (mn <= mx ? (int)(mn + (mx - mn) / 2) : 0), "%s: slice %" PetscInt_FMT " position %" PetscInt_FMT ": bias %d is not the span's midpoint", what, s, e, L->colbias[L->biasbase[s] + e]);
    }
    { /* the dictionary mode: the distinct windows (col >> ELLWARP_DICT_SHIFT) of the slice's rows, all rows sorted, at most
         ELLWARP_DICT_MAX, window 127 without offset 511 (the padding code), and 4 bytes a window < 2 bytes a slot */
      PetscInt  nc = 0, *ids, nid = 0, mode;
      PetscBool sorted = PETSC_TRUE, top = PETSC_FALSE;
      PetscCall(PetscMalloc1(w * ELLWARP_LANES + 1, &ids));
      for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
        PetscInt row = L->rowperm[L->slicerow[s] + q];
        for (PetscInt k = A->ai[row]; k < A->ai[row + 1]; k++) {
          if (k > A->ai[row] && A->aj[k] < A->aj[k - 1]) sorted = PETSC_FALSE;
          ids[nc++] = A->aj[k] / 512;
        }
      }
      nid = nc;
      PetscCall(PetscSortRemoveDupsInt(&nid, ids));
      for (PetscInt q = 0; q < L->slicerow[s + 1] - L->slicerow[s]; q++) {
        PetscInt row = L->rowperm[L->slicerow[s] + q];
        for (PetscInt k = A->ai[row]; k < A->ai[row + 1]; k++)
          if (nid == 128 && A->aj[k] / 512 == ids[127] && A->aj[k] % 512 == 511) top = PETSC_TRUE;
      }
      const PetscBool dictok = (PetscBool)(sorted && nid <= 128 && !top && 4 * nid < 2 * w * ELLWARP_LANES);
      mode = !par->compress ? 0 : (rowrel ? 16 : (par->compressbias && biasok ? 48 : (par->compressdict && dictok ? 80 : 0)));
      CHECK((L->meta[s] & 112) == mode, "%s: slice %" PetscInt_FMT " has column mode %d, not %" PetscInt_FMT, what, s, L->meta[s] & 112, mode);
      if (L->meta[s] & 64)
        for (PetscInt i = 0; i < nid; i++) CHECK(L->colbias[L->biasbase[s] + i] == ids[i] * 512, "%s: slice %" PetscInt_FMT " window %" PetscInt_FMT ": base %d, not %" PetscInt_FMT, what, s, i, L->colbias[L->biasbase[s] + i], ids[i] * 512);
      CHECK(L->biasbase[s] == nb, "%s: bias offset of slice %" PetscInt_FMT, what, s);
      if (L->meta[s] & 64) {
        ndict++;
        nb += nid;
      }
      PetscCall(PetscFree(ids));
    }
    if (L->meta[s] & 16) n16++;
    if (L->meta[s] & 32) {
      nbias++;
      nb += (PetscCount)w << l2;
    }
  }
  CHECK(n16 == L->n16 && nbias == L->nbias && ndict == L->ndict && nb == L->ncolbias, "%s: counts of the column modes", what);
  /* the kernels' bias fetch (ellwarpmultcuda.cu, ellwarpopscuda.cu), emulated: MultKernel and SLICE_LANE_PROLOGUE load bias[(k << l2) + (lane &
     (tpr - 1))] at step k, MultKernelV with R lanes per thread t bias[(k << l2) + ((t * R + jj) & (tpr - 1))]; with the
     16-bit offset they must give EllwarpSliceCol's column */
  for (PetscInt s = 0; s < L->nslices; s++) {
    const PetscInt l2 = L->meta[s] & 15, tpr = 1 << l2, w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    const int     *bp = L->colbias + L->biasbase[s];
    if (!(L->meta[s] & 32)) continue;
    for (PetscInt k = 0; k < w; k++)
      for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
        const PetscInt   q = lane >> l2, b = bp[(k << l2) + (lane & (tpr - 1))], row = L->slicerow[s] + q < L->slicerow[s + 1] ? L->rowperm[L->slicerow[s] + q] : 0;
        const PetscCount off = (PetscCount)k * ELLWARP_LANES + lane;
        const short      cc  = L->col16[L->colbase[s] + off];
        for (PetscInt R = 2; R <= 4; R *= 2) CHECK(bp[(k << l2) + (((lane / R) * R + lane % R) & (tpr - 1))] == b, "%s: MultKernelV's bias load (R = %" PetscInt_FMT ")", what, R);
        if (cc != ELLWARP_PAD16) CHECK(row + b + cc == EllwarpSliceCol(L, s, off, row), "%s: slice %" PetscInt_FMT " step %" PetscInt_FMT " lane %" PetscInt_FMT ": column", what, s, k, lane);
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host layout against its CSR: a permutation with long rows first, windows sorted longest first and
   stable, every entry in exactly one slot with its column, padding elsewhere, the diagonal slots */
static PetscErrorCode Validate(const CSR *A, const EllwarpLayout *L, const char *what)
{
  PetscInt  m = A->m, nnz = m ? A->ai[m] : 0, *seen, *pos, *inv = NULL;
  PetscBool ok;

  PetscFunctionBegin;
  if (A->map) {
    PetscCall(PetscMalloc1(PetscMax(nnz, 1), &inv));
    for (PetscInt k = 0; k < nnz; k++) inv[A->map[k]] = k;
  }
  CHECK(L->nnz == nnz && L->nrows == m && L->ncols == A->n, "%s: sizes", what);
  PetscCall(PetscCalloc2(PetscMax(nnz, 1), &seen, PetscMax(m, 1), &pos));
  for (PetscInt p = 0; p < m; p++) pos[L->rowperm[p]]++;
  ok = PETSC_TRUE;
  for (PetscInt i = 0; i < m; i++) ok = (PetscBool)(ok && pos[i] == 1);
  CHECK(ok, "%s: rowperm is not a permutation", what);
  for (PetscInt p = 0; p < L->nlong; p++) CHECK(A->ai[L->rowperm[p] + 1] - A->ai[L->rowperm[p]] > L->longrow && (p == 0 || L->rowperm[p] > L->rowperm[p - 1]), "%s: long rows", what);
  for (PetscInt p = L->nlong + 1; p < m; p++) {
    PetscInt r0 = L->rowperm[p - 1], r1 = L->rowperm[p], l0 = A->ai[r0 + 1] - A->ai[r0], l1 = A->ai[r1 + 1] - A->ai[r1];
    if (L->sortwindow > 0 && (p - L->nlong) % L->sortwindow == 0) continue;
    CHECK(l0 > l1 || (l0 == l1 && r0 < r1), "%s: sorted order at %" PetscInt_FMT, what, p);
  }
  CHECK(L->sliceptr[L->nslices] + (L->nlong ? L->longptr[L->nlong] - L->longptr[0] : 0) == L->nslots, "%s: slot count", what);
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt l2 = L->meta[s] & 15, w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
      PetscInt q = lane >> l2, row = L->slicerow[s] + q < L->slicerow[s + 1] ? L->rowperm[L->slicerow[s] + q] : -1;
      for (PetscInt k = 0; k < w; k++) {
        PetscCount off = (PetscCount)k * ELLWARP_LANES + lane, slot = L->sliceptr[s] + off;
        int        col = EllwarpSliceCol(L, s, off, row);
        PetscInt   e   = L->slot2csr[slot];
        if (e < 0) {
          CHECK(col < 0, "%s: padding slot with a column", what);
          continue;
        }
        CHECK(row >= 0 && col >= 0, "%s: entry in a dead lane (slice %" PetscInt_FMT " lane %" PetscInt_FMT " k %" PetscInt_FMT " row %" PetscInt_FMT " col %d e %" PetscInt_FMT " meta %d)", what, s, lane, k, row, col, e, (int)L->meta[s]);
        seen[e]++;
        {
          PetscInt kk = inv ? inv[e] : e;
          CHECK(kk < nnz && A->aj[kk] == col && kk >= A->ai[row] && kk < A->ai[row + 1], "%s: slot %" PetscCount_FMT " holds the wrong entry", what, slot);
        }
      }
    }
  }
  for (PetscInt q = 0; q < L->nlong; q++)
    for (PetscCount slot = L->longptr[q]; slot < L->longptr[q + 1]; slot++) seen[L->slot2csr[slot]]++;
  ok = PETSC_TRUE;
  for (PetscInt k = 0; k < nnz; k++) ok = (PetscBool)(ok && seen[k] == 1);
  CHECK(ok, "%s: CSR entries not each in exactly one slot", what);
  for (PetscInt i = 0; i < PetscMin(m, A->n); i++) {
    PetscInt d = -1;
    for (PetscInt k = A->ai[i]; k < A->ai[i + 1]; k++)
      if (A->aj[k] == i) d = k;
    CHECK((d < 0) == (L->diagslot[i] < 0), "%s: diagonal slot of row %" PetscInt_FMT, what, i);
  }
  PetscCall(PetscFree2(seen, pos));
  PetscCall(PetscFree(inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row form of the map (path 1's gather without a map): it must hold exactly when the layout's map is the
   CSR's own order (no entry map, or an identity one), and the row gather must write what the map gather writes. */
static PetscErrorCode CheckRowForm(const CSR *A, const EllwarpLayout *L, const char *what)
{
  PetscInt    *start, nnz = A->m ? A->ai[A->m] : 0;
  int         *len;
  PetscBool    rowform, identity = PETSC_TRUE;
  PetscScalar *csr, *v0, *v1;

  PetscFunctionBegin;
  if (A->map)
    for (PetscInt k = 0; k < nnz; k++) identity = (PetscBool)(identity && A->map[k] == k);
  PetscCall(PetscMalloc2(PetscMax(L->nrows, 1), &start, PetscMax(L->nrows, 1), &len));
  EllwarpLayoutRowForm(L, start, len, &rowform);
  CHECK(rowform == identity, "%s: row form %s but the entry map is %sthe identity", what, rowform ? "holds" : "fails", identity ? "" : "not ");
  if (rowform) {
    PetscCall(PetscMalloc1(PetscMax(nnz, 1), &csr));
    PetscCall(PetscCalloc2(PetscMax(L->nslots, 1), &v0, PetscMax(L->nslots, 1), &v1));
    for (PetscInt k = 0; k < nnz; k++) csr[k] = 1.0 + k;
    for (PetscCount k = 0; k < L->nslots; k++) v0[k] = L->slot2csr[k] >= 0 ? csr[L->slot2csr[k]] : 0.0; /* the map gather */
    EllwarpHostRefreshRows(L, start, len, csr, v1);
    for (PetscCount k = 0; k < L->nslots; k++) CHECK(v0[k] == v1[k], "%s: row gather differs from the map gather at slot %" PetscCount_FMT, what, k);
    for (PetscInt r = 0; r < L->nrows; r++) CHECK(len[r] == A->ai[L->rowperm[r] + 1] - A->ai[L->rowperm[r]] && (!len[r] || start[r] == A->ai[L->rowperm[r]]), "%s: row form of sorted row %" PetscInt_FMT, what, r);
    PetscCall(PetscFree(csr));
    PetscCall(PetscFree2(v0, v1));
  }
  PetscCall(PetscFree2(start, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  unsigned long long key;
  PetscInt           row;
} KeyRow;

static int cmpkeyrow(const void *a, const void *b)
{
  const KeyRow *x = (const KeyRow *)a, *y = (const KeyRow *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* The slice logic of the device analysis, run here on the host: its sort keys; the whole-matrix runs that
   EllwarpLayoutWholeRuns() derives from the histogram (WholeSlicesKernel), or the per-window walk
   (WindowSlicesKernel), must give the host analysis's slices. */
static PetscErrorCode CheckDeviceSliceLogic(const CSR *A, const EllwarpLayout *L, const char *what)
{
  PetscInt m = A->m, ns = 0;

  PetscFunctionBegin;
#define LEN(p) (A->ai[L->rowperm[p] + 1] - A->ai[L->rowperm[p]])
  if (L->sortwindow == 0) {
    EllwarpRowStats st;
    EllwarpRun      runs[ELLWARP_MAX_RUNS];
    PetscInt        nr;

    PetscCall(PetscMemzero(&st, sizeof(st)));
    st.nrows   = m;
    st.nlong   = L->nlong;
    st.longrow = L->longrow;
    for (PetscInt p = L->nlong; p < m; p++) st.maxshort = PetscMax(st.maxshort, LEN(p));
    PetscCall(PetscCalloc1(st.maxshort + 1, &st.hist));
    for (PetscInt p = L->nlong; p < m; p++) st.hist[LEN(p)]++;
    PetscCall(EllwarpLayoutWholeRuns(&st, L->threshold, &nr, runs));
    for (PetscInt j = 0; j < nr; j++) ns += (PetscInt)runs[j].count;
    CHECK(ns == L->nslices, "%s: runs give %" PetscInt_FMT " slices, not %" PetscInt_FMT, what, ns, L->nslices);
    for (PetscInt s = 0; s < ns; s++) {
      PetscInt j = 0, l2, p, w;
      while (j + 1 < nr && s >= runs[j + 1].firstslice) j++;
      l2 = runs[j].l2;
      p  = L->nlong + (PetscInt)runs[j].start + (s - runs[j].firstslice) * (ELLWARP_LANES >> l2);
      w  = (LEN(p) + (1 << l2) - 1) >> l2;
      CHECK(L->slicerow[s] == p && (L->meta[s] & 15) == l2 && L->sliceptr[s + 1] - L->sliceptr[s] == (PetscCount)w * ELLWARP_LANES, "%s: run slice %" PetscInt_FMT, what, s);
    }
    PetscCall(EllwarpRowStatsDestroy(&st));
  } else {
    PetscInt W = L->sortwindow, s = 0;
    for (PetscInt p0 = L->nlong; p0 < m; p0 += W) {
      PetscInt p1 = PetscMin(p0 + W, m);
      for (PetscInt p = p0; p < p1; s++) {
        PetscInt l2 = 0, len = LEN(p);
        if (L->threshold > 0)
          while (l2 < 5 && (len + (1 << l2) - 1) / (1 << l2) > L->threshold) l2++;
        CHECK(s < L->nslices && L->slicerow[s] == p && (L->meta[s] & 15) == l2, "%s: window slice %" PetscInt_FMT, what, s);
        p += PetscMin(ELLWARP_LANES >> l2, p1 - p);
      }
    }
    CHECK(s == L->nslices, "%s: window slices", what);
  }
  { /* the device's sort key (KeyKernel): (long row?, window, longest first), ties by row as in the stable
       radix sort: the host's order */
    PetscInt  maxshort = 0, *flagpos;
    KeyRow   *kr;
    PetscBool same = PETSC_TRUE;
    PetscCall(PetscMalloc2(PetscMax(m, 1), &flagpos, PetscMax(m, 1), &kr));
    for (PetscInt i = 0, c = 0; i < m; i++) {
      PetscInt l = A->ai[i + 1] - A->ai[i];
      if (!(L->longrow > 0 && l > L->longrow)) {
        maxshort   = PetscMax(maxshort, l);
        flagpos[i] = c++;
      }
    }
    for (PetscInt i = 0; i < m; i++) {
      PetscInt l = A->ai[i + 1] - A->ai[i];
      kr[i].key  = (L->longrow > 0 && l > L->longrow) ? 0ull : 1ull + (L->sortwindow > 0 ? (unsigned long long)(flagpos[i] / L->sortwindow) * (unsigned long long)(maxshort + 1) : 0ull) + (unsigned long long)(maxshort - l);
      kr[i].row  = i;
    }
    qsort(kr, (size_t)m, sizeof(KeyRow), cmpkeyrow);
    for (PetscInt p = 0; p < m; p++) same = (PetscBool)(same && kr[p].row == L->rowperm[p]);
    CHECK(same, "%s: the device's sort keys give another row order", what);
    PetscCall(PetscFree2(flagpos, kr));
  }
#undef LEN
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device's slice fill emulated on the host with the kernels' own lane steps (ellwarpslicelane.h; the warp
   reductions become loops over the 32 lanes): FitsKernel's row-relative vote and dictionary decision (DictRounds), then
   FillKernel's store of every slot (DictRounds' codes and tables, EllwarpFillSlotTarget), into arrays of the host
   layout's sizes -- a store into the wrong array or past its end fails here -- compared with layout.c's col16, col32 and
   dictionary tables.  The slice shapes are the device's (CheckDeviceSliceLogic); the biased mode's per-position spans
   (PosSpan, warp shuffles) are taken from the host layout and compared on the GPU only (CompareDevice). */
static int EmulateDictRounds(const PetscInt *aj, const PetscInt rs[], const PetscInt rl[], int tpr, short *col16, int *table)
{
  PetscInt e[ELLWARP_LANES];
  int      top[ELLWARP_LANES], unsorted = 0;

  for (int lane = 0; lane < ELLWARP_LANES; lane++) {
    e[lane]   = lane & (tpr - 1);
    top[lane] = 0;
    unsorted |= EllwarpDictLaneUnsorted(aj, rs[lane], rl[lane], tpr, lane & (tpr - 1));
  }
  if (unsorted) return -1;
  for (int r = 0;; r++) {
    int mn = INT_MAX, anytop = 0;
    for (int lane = 0; lane < ELLWARP_LANES; lane++) {
      mn = PetscMin(mn, EllwarpDictLaneId(aj, rs[lane], rl[lane], e[lane]));
      anytop |= top[lane];
    }
    if (mn == INT_MAX || r == ELLWARP_DICT_MAX) return EllwarpDictRoundEnd(r, mn, anytop);
    if (table) table[r] = mn << ELLWARP_DICT_SHIFT;
    for (int lane = 0; lane < ELLWARP_LANES; lane++) e[lane] = EllwarpDictLaneStep(aj, rs[lane], rl[lane], tpr, lane, e[lane], r, mn, col16, &top[lane]);
  }
}

static PetscErrorCode EmulateDeviceFill(const CSR *A, const EllwarpParams *par, const EllwarpLayout *H, const char *what)
{
  short    *c16;
  int      *c32, *cb;
  PetscInt  nwrong = 0, ndict = 0, firstwrong = -1;
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(H->ncol16, &c16, H->ncol32, &c32, H->ncolbias, &cb));
  for (PetscCount i = 0; i < H->ncol16; i++) c16[i] = 0x7a5a; /* a slot left unwritten differs from the host's (almost surely) */
  for (PetscCount i = 0; i < H->ncol32; i++) c32[i] = INT_MIN;
  for (PetscCount i = 0; i < H->ncolbias; i++) cb[i] = INT_MIN;
  for (PetscInt s = 0; s < H->nslices; s++) {
    const int        meta = H->meta[s], l2 = meta & 15, tpr = 1 << l2;
    const int        w     = (int)((H->sliceptr[s + 1] - H->sliceptr[s]) / ELLWARP_LANES);
    const PetscCount nbase = s + 1 < H->nslices ? H->biasbase[s + 1] : H->ncolbias;
    PetscInt         row[ELLWARP_LANES], rs[ELLWARP_LANES], rl[ELLWARP_LANES];
    int              bad = !par->compress, bias = (meta & 32) != 0, nwin = -1, wrong = 0;

    for (int lane = 0; lane < ELLWARP_LANES; lane++) { /* FitsKernel's lanes */
      const PetscInt p = H->slicerow[s] + (lane >> l2);
      const int      live = p < H->slicerow[s + 1];
      row[lane]           = live ? H->rowperm[p] : 0;
      rs[lane]            = live ? A->ai[row[lane]] : 0;
      rl[lane]            = live ? A->ai[row[lane] + 1] - rs[lane] : 0;
      if (par->compress)
        for (PetscInt e = lane & (tpr - 1); e < rl[lane]; e += tpr) {
          const PetscInt d = A->aj[rs[lane] + e] - row[lane];
          if (d <= ELLWARP_PAD16 || d > 32767) bad = 1;
        }
    }
    if (bad == ((meta & 16) && !(meta & 96))) wrong = 1; /* the row-relative vote against the host's choice */
    if (bad && !bias && par->compress && par->compressdict) {
      nwin = EmulateDictRounds(A->aj, rs, rl, tpr, NULL, NULL);
      if (!EllwarpDictTakes(nwin, w)) nwin = -1;
    }
    if ((nwin >= 0) != ((meta & 64) != 0)) wrong = 1; /* the dictionary decision */
    if (nwin >= 0) { /* FillKernel's DictRounds: the table and the entries' codes */
      ndict++;
      if (nwin != nbase - H->biasbase[s] || H->colbase[s] + (PetscCount)w * ELLWARP_LANES > H->ncol16) wrong = 1;
      else if (EmulateDictRounds(A->aj, rs, rl, tpr, c16 + H->colbase[s], cb + H->biasbase[s]) != nwin) wrong = 1;
    }
    for (int k = 0; k < w && !wrong; k++) /* FillKernel's stores */
      for (int lane = 0; lane < ELLWARP_LANES; lane++) {
        const PetscInt   e   = (PetscInt)k * tpr + (lane & (tpr - 1));
        const int        has = e < rl[lane];
        const PetscCount at  = H->colbase[s] + (PetscCount)k * ELLWARP_LANES + lane;
        short            v16 = 0;
        int              v32 = 0;
        const int        to  = EllwarpFillSlotTarget(meta, has, has ? A->aj[rs[lane] + e] : -1, row[lane], bias ? H->colbias[H->biasbase[s] + e] : 0, &v16, &v32);
        if (to == 16 && (meta & 16) && at < H->ncol16) c16[at] = v16;
        else if (to == 32 && !(meta & 16) && at < H->ncol32) c32[at] = v32;
        else if (!(to == 0 && has && (meta & 64))) wrong = 1; /* a store into the other array, past the end, or none for a slot that needs one */
      }
    if (bias)
      for (PetscCount i = H->biasbase[s]; i < nbase; i++) cb[i] = H->colbias[i]; /* not emulated (PosSpan) */
    if (wrong && firstwrong < 0) firstwrong = s;
    nwrong += wrong;
  }
  CHECK(!nwrong, "%s: the device fill's lane steps (host emulation) go wrong in %" PetscInt_FMT " slices, the first %" PetscInt_FMT " (meta %d)", what, nwrong, firstwrong, firstwrong >= 0 ? (int)H->meta[firstwrong] : 0);
  CHECK(ndict == H->ndict, "%s: the emulation has %" PetscInt_FMT " dictionary slices, the host %" PetscInt_FMT, what, ndict, H->ndict);
  PetscCall(PetscMemcmp(c16, H->col16, (size_t)H->ncol16 * sizeof(short), &eq));
  CHECK(eq, "%s: the device fill (host emulation) differs from layout.c in col16", what);
  PetscCall(PetscMemcmp(c32, H->col32, (size_t)H->ncol32 * sizeof(int), &eq));
  CHECK(eq, "%s: the device fill (host emulation) differs from layout.c in col32", what);
  PetscCall(PetscMemcmp(cb, H->colbias, (size_t)H->ncolbias * sizeof(int), &eq));
  CHECK(eq, "%s: the device fill (host emulation) differs from layout.c in the dictionary tables", what);
  PetscCall(PetscFree3(c16, c32, cb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(ELLWARP_HAVE_CUDA)
  #define SAME(field) CHECK(G->field == H->field, "%s: device analysis differs in " #field, what)
  #define SAMEARR(arr, n) \
    do { \
      PetscBool eq_; \
      PetscCall(PetscMemcmp(G->arr, H->arr, (size_t)(n) * sizeof(*H->arr), &eq_)); \
      CHECK(eq_, "%s: device analysis differs in " #arr, what); \
    } while (0)
static PetscErrorCode CompareDevice(const CSR *A, const EllwarpParams *par, const EllwarpLayout *H, const char *what)
{
  EllwarpLayout      *G;
  EllwarpDeviceArrays d;

  PetscFunctionBegin;
  PetscCall(EllwarpLayoutCreateCUDA(A->m, A->n, A->ai, A->aj, A->map, PETSC_MEMTYPE_HOST, par, &G, &d, NULL));
  CHECK(G->analysedondevice && !G->hostarrays, "%s: flags", what);
  SAME(nrows);
  SAME(ncols);
  SAME(nslices);
  SAME(nnz);
  SAME(nslots);
  SAME(ncol32);
  SAME(ncol16);
  SAME(ndiagmissing);
  SAME(nactive);
  SAME(nlong);
  SAME(nchunks);
  SAME(longcolbase);
  SAME(kernel);
  SAME(threshold);
  SAME(sortwindow);
  SAME(blocksize);
  SAME(longrow);
  SAME(nsplit);
  SAME(n16);
  SAME(nbias);
  SAME(ndict);
  SAME(ncolbias);
  SAME(maxrowlen);
  SAME(minrowlen);
  SAME(meanrowlen);
  SAME(stdrowlen);
  PetscCall(EllwarpLayoutFetchCUDA(G, &d));
  SAMEARR(sliceptr, H->nslices + 1);
  SAMEARR(slicerow, H->nslices + 1);
  SAMEARR(meta, H->nslices);
  SAMEARR(colbase, H->nslices);
  SAMEARR(col32, H->ncol32 + (H->nslots - H->sliceptr[H->nslices]));
  SAMEARR(col16, H->ncol16);
  SAMEARR(colbias, H->ncolbias);
  SAMEARR(biasbase, H->nslices);
  SAMEARR(rowperm, H->nrows);
  SAMEARR(slot2csr, H->nslots);
  SAMEARR(diagslot, H->nrows);
  SAMEARR(longptr, H->nlong + 1);
  SAMEARR(longchunk, H->nlong + 1);
  SAMEARR(chunkptr, H->nchunks + 1);
  SAMEARR(chunkrow, H->nchunks);
  PetscCall(EllwarpDeviceArraysFree(&d));
  PetscCall(EllwarpLayoutDestroy(&G));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

typedef struct {
  const char      *name;
  MatEllwarpKernel kernel;
  PetscInt         threshold, sortwindow, longrow;
  PetscBool        compress, bias;
  PetscBool        dict; /* the dictionary column mode (dictlayout.c); off in the sets before it */
} ParamSet;

static const ParamSet psets[] = {
  {"auto",        MAT_ELLWARP_KERNEL_AUTO, 0, -1, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"k1",          MAT_ELLWARP_KERNEL_K1,   0, -1, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"k1_long100",  MAT_ELLWARP_KERNEL_K1,   0, 0,  100, PETSC_TRUE,  PETSC_TRUE },
  {"k2_auto",     MAT_ELLWARP_KERNEL_K2,   0, -1, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"k2_T8",       MAT_ELLWARP_KERNEL_K2,   8, -1, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"k2_T3_w64",   MAT_ELLWARP_KERNEL_K2,   3, 64, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"whole",       MAT_ELLWARP_KERNEL_AUTO, 0, 0,  0,  PETSC_TRUE,  PETSC_TRUE },
  {"w256",        MAT_ELLWARP_KERNEL_AUTO, 0, 256, 0, PETSC_TRUE,  PETSC_TRUE },
  {"w32_k1",      MAT_ELLWARP_KERNEL_K1,   0, 32, 0,  PETSC_TRUE,  PETSC_TRUE },
  {"long64",      MAT_ELLWARP_KERNEL_AUTO, 0, -1, 64, PETSC_TRUE,  PETSC_TRUE },
  {"nolong",      MAT_ELLWARP_KERNEL_AUTO, 0, -1, -1, PETSC_TRUE,  PETSC_TRUE },
  {"nobias",      MAT_ELLWARP_KERNEL_AUTO, 0, -1, 0,  PETSC_TRUE,  PETSC_FALSE},
  {"k2_T4_nobias", MAT_ELLWARP_KERNEL_K2,  4, -1, 0,  PETSC_TRUE,  PETSC_FALSE},
  {"nocompress",  MAT_ELLWARP_KERNEL_AUTO, 0, -1, 0,  PETSC_FALSE, PETSC_TRUE },
  {"dict",        MAT_ELLWARP_KERNEL_AUTO, 0, -1, 0,  PETSC_TRUE,  PETSC_TRUE,  PETSC_TRUE},
  {"k2_T4_dict_nobias", MAT_ELLWARP_KERNEL_K2, 4, -1, 0, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE},
  {"k1_w64_dict_nobias", MAT_ELLWARP_KERNEL_K1, 0, 64, 0, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE},
};

static PetscBool expectbias; /* the matrix under test must get biased slices when the mode is on */

static PetscErrorCode RunAll(CSR *A, PetscBool gpu)
{
  PetscFunctionBegin;
  for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(psets); p++) {
    EllwarpParams  par;
    EllwarpLayout *H;
    char           what[160];

    PetscCall(PetscMemzero(&par, sizeof(par)));
    par.kernel     = psets[p].kernel;
    par.threshold  = psets[p].threshold;
    par.sortwindow = psets[p].sortwindow;
    par.longrow    = psets[p].longrow;
    par.compress   = psets[p].compress;
    par.compressbias = psets[p].bias;
    par.compressdict = psets[p].dict;
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s/%s", A->name, psets[p].name));
    PetscCall(EllwarpLayoutCreate(A->m, A->n, A->ai, A->aj, A->map, &par, &H));
    PetscCall(Validate(A, H, what));
    PetscCall(ValidateModes(A, H, &par, what));
    if (expectbias) CHECK((H->nbias > 0) == (par.compress && par.compressbias), "%s: %" PetscInt_FMT " slices with a bias per entry position", what, H->nbias);
    if (expectbias && par.compress && par.compressdict && !par.compressbias) CHECK(H->ndict > 0, "%s: no dictionary slice where the bias is off", what);
    PetscCall(CheckRowForm(A, H, what));
    PetscCall(CheckDeviceSliceLogic(A, H, what));
    PetscCall(EmulateDeviceFill(A, &par, H, what));
    { /* the chooser's documented rule (layout.c): power-law rows (std/mean > 1) sort in 1024-row windows,
         split at T = 8 (automatic kernel), take the chunked path past 256 entries and run 256-thread blocks;
         every other matrix 128-thread blocks and the chunked path past 512 entries */
      PetscBool irregular = (PetscBool)(H->nrows > 0 && H->stdrowlen > H->meanrowlen);
      CHECK(H->blocksize == (irregular ? 256 : 128), "%s: block size %" PetscInt_FMT, what, H->blocksize);
      if (irregular && psets[p].sortwindow < 0) CHECK(H->sortwindow == 1024, "%s: sort window %" PetscInt_FMT " for power-law rows", what, H->sortwindow);
      if (!psets[p].longrow && H->kernel != MAT_ELLWARP_KERNEL_K1 && psets[p].kernel != MAT_ELLWARP_KERNEL_K1) CHECK(H->longrow == (irregular ? 256 : 512), "%s: long-row limit %" PetscInt_FMT, what, H->longrow);
      if (irregular && psets[p].kernel == MAT_ELLWARP_KERNEL_AUTO) CHECK(H->threshold == 8, "%s: threshold %" PetscInt_FMT " for power-law rows", what, H->threshold);
    }
#if defined(ELLWARP_HAVE_CUDA)
    if (gpu) PetscCall(CompareDevice(A, &par, H, what));
#endif
    nlayouts++;
    PetscCall(EllwarpLayoutDestroy(&H));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dictionary mode's refusals at their edges, one slice each (K1, whole-matrix sort: 32 rows of one length, the
   groups' lengths distinct; columns far from the rows and the bias off, so neither 16-bit offset mode takes them):
   A 128 windows with offset 511 in the last (the padding code: refused), B 128 windows (taken), C 160 windows
   (refused), D 3 windows and one row unsorted (refused), E 3 windows (taken).  The host analysis, the device's lane
   steps (EmulateDeviceFill) and, with -gpu, the device analysis must all decide so. */
static PetscErrorCode DictEdges(PetscBool gpu)
{
  const PetscInt len[5] = {9, 10, 11, 12, 13}, ng = 5, rows = ELLWARP_LANES * ng;
  const PetscInt want[5] = {0, 1, 0, 0, 1};
  CSR            A;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&A, sizeof(A)));
  PetscCall(PetscStrncpy(A.name, "dict_edges", sizeof(A.name)));
  A.m = rows;
  A.n = 164000; /* window ids up to 2 * 159 */
  PetscCall(PetscMalloc1(rows + 1, &A.ai));
  A.ai[0] = 0;
  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) A.ai[g * ELLWARP_LANES + q + 1] = A.ai[g * ELLWARP_LANES + q] + len[g];
  PetscCall(PetscMalloc1(A.ai[rows], &A.aj));
  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt q = 0; q < ELLWARP_LANES; q++) {
      PetscInt *c = A.aj + A.ai[g * ELLWARP_LANES + q];
      for (PetscInt i = 0; i < len[g]; i++) {
        PetscInt t, off;
        if (g <= 2) { /* windows q + 32 k (k < 4: 128 of them, k < 5: 160), offsets 10 i */
          t   = q + ELLWARP_LANES * (i % (g == 2 ? 5 : 4));
          off = (g == 0 && q == ELLWARP_LANES - 1 && i == 3) ? 511 : 10 * i; /* A: window 127 holds offset 511 */
        } else { /* 3 windows */
          t   = (i % 3) * 40;
          off = 30 * i + q % 30;
        }
        c[i] = 2 * t * 512 + off; /* ids 2 t: every entry far from its row */
      }
      PetscCall(PetscSortInt(len[g], c));
      if (g == 3 && q == 5) { /* D: one row unsorted */
        const PetscInt tmp = c[0];
        c[0]               = c[1];
        c[1]               = tmp;
      }
    }
  for (int k = 0; k < 3; k++) {
    EllwarpParams  par;
    EllwarpLayout *H;
    char           what[160];

    PetscCall(PetscMemzero(&par, sizeof(par)));
    par.kernel       = k == 1 ? MAT_ELLWARP_KERNEL_K2 : MAT_ELLWARP_KERNEL_K1;
    par.threshold    = k == 1 ? 4 : 0;
    par.sortwindow   = 0;
    par.compress     = PETSC_TRUE;
    par.compressbias = (PetscBool)(k == 2);
    par.compressdict = PETSC_TRUE;
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s/%s", A.name, k == 0 ? "k1" : (k == 1 ? "k2_T4" : "k1_bias")));
    PetscCall(EllwarpLayoutCreate(A.m, A.n, A.ai, A.aj, NULL, &par, &H));
    PetscCall(Validate(&A, H, what));
    PetscCall(ValidateModes(&A, H, &par, what));
    PetscCall(CheckDeviceSliceLogic(&A, H, what));
    PetscCall(EmulateDeviceFill(&A, &par, H, what));
    if (k == 0) { /* one slice per group, the longest first */
      CHECK(H->nslices == ng, "%s: %" PetscInt_FMT " slices", what, H->nslices);
      for (PetscInt s = 0; s < H->nslices; s++) {
        const PetscInt g = H->rowperm[H->slicerow[s]] / ELLWARP_LANES;
        CHECK(((H->meta[s] & 64) != 0) == (want[g] != 0), "%s: group %c (slice %" PetscInt_FMT ") %s the dictionary", what, (char)('A' + g), s, want[g] ? "without" : "with");
        if (g == 1) CHECK((s + 1 < H->nslices ? H->biasbase[s + 1] : H->ncolbias) - H->biasbase[s] == 128, "%s: group B's table", what);
      }
    }
#if defined(ELLWARP_HAVE_CUDA)
    if (gpu) PetscCall(CompareDevice(&A, &par, H, what));
#endif
    nlayouts++;
    PetscCall(EllwarpLayoutDestroy(&H));
  }
  PetscCall(FreeCSR(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Mat level: products of a matrix analysed on the device equal those analysed on the host bit for bit */
/* E[0]: analysed on the device (-gpu), or on the host with -mat_ellwarp_tune analysis_drop_host (the matrix keeps
   only the layout's scalars, the state a device analysis leaves); E[1]: analysed on the host */
static PetscErrorCode FirstVariant(PetscBool gpu, int d)
{
  PetscFunctionBegin;
  if (gpu) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", d ? "analysis=host" : "analysis=device"));
  else if (!d) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", "analysis_drop_host=1"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClearVariant(void)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_tune"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x and xt random, y[d] = E[d] x and yt[d] = E[d]^T xt: each pair must be bitwise equal (how: what tells E[0] and E[1]
   apart); the vectors are the caller's, destroyed with the matrices by SameProductsDestroy() */
static PetscErrorCode SameProducts(Mat E[2], const char *name, const char *how, Vec *x, Vec y[2], Vec *xt, Vec yt[2])
{
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(E[0], x, &y[0]));
  PetscCall(VecDuplicate(y[0], &y[1]));
  PetscCall(VecDuplicate(y[0], xt));
  PetscCall(VecDuplicate(*x, &yt[0]));
  PetscCall(VecDuplicate(*x, &yt[1]));
  PetscCall(VecSetRandom(*x, NULL));
  PetscCall(VecSetRandom(*xt, NULL));
  for (int d = 0; d < 2; d++) {
    PetscCall(MatMult(E[d], *x, y[d]));
    PetscCall(MatMultTranspose(E[d], *xt, yt[d]));
  }
  PetscCall(VecEqual(y[0], y[1], &eq));
  CHECK(eq, "%s: MatMult differs %s", name, how);
  PetscCall(VecEqual(yt[0], yt[1], &eq));
  CHECK(eq, "%s: MatMultTranspose differs %s", name, how);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SameProductsDestroy(Mat E[2], Mat *B, PetscScalar **v, Vec *x, Vec y[2], Vec *xt, Vec yt[2])
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(x));
  PetscCall(VecDestroy(xt));
  for (int d = 0; d < 2; d++) {
    PetscCall(VecDestroy(&y[d]));
    PetscCall(VecDestroy(&yt[d]));
    PetscCall(MatDestroy(&E[d]));
  }
  PetscCall(MatDestroy(B));
  PetscCall(PetscFree(*v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLevel(const CSR *A, PetscBool gpu)
{
  Mat         B, E[2];
  Vec         x, y[2], xt, yt[2];
  PetscScalar *v;
  PetscBool   eq;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(A->ai[A->m] + 1, &v));
  for (PetscInt k = 0; k < A->ai[A->m]; k++) v[k] = 1.0 + (PetscScalar)Rand(1000) / 7.0;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, A->m, A->n, A->ai, A->aj, v, &B));
  for (int d = 0; d < 2; d++) {
    PetscCall(FirstVariant(gpu, d));
    PetscCall(MatConvert(B, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E[d]));
    PetscCall(ClearVariant());
    /* MatZeroRows/MatShift below may insert missing diagonal entries */
    PetscCall(MatSetOption(E[d], MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(E[d], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  }
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(E[0], PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(SameProducts(E, A->name, "between device and host analysis", &x, y, &xt, yt));
  /* host consumers of the device-built layout: MatZeroRows with a diagonal (missing-diagonal check) */
  {
    PetscInt rows[2] = {0, A->m - 1};
    for (int d = 0; d < 2; d++) PetscCall(MatZeroRows(E[d], A->m > 1 ? 2 : 1, rows, 2.0, NULL, NULL));
    for (int d = 0; d < 2; d++) PetscCall(MatMult(E[d], x, y[d]));
    PetscCall(VecEqual(y[0], y[1], &eq));
    CHECK(eq, "%s: MatZeroRows differs between device and host analysis", A->name);
  }
  /* more host consumers of the layout: duplicate, MatAXPY/MatCopy (same and other patterns), shift, scale,
     diagonal, norms, the transpose after a value change, conversion to AIJ, MatView with values */
  {
    Mat       D[2], C[2];
    PetscReal nrm[2][3];
    Vec       dg[2];
    for (int d = 0; d < 2; d++) {
      MatEllwarpInfo info;
      PetscCall(MatEllwarpGetInfo(E[d], &info));
      PetscCall(MatDuplicate(E[d], MAT_COPY_VALUES, &D[d]));
      PetscCall(MatScale(D[d], 0.5));
      {
        MatEllwarpInfo i0[2], i1[2];
        PetscCall(MatEllwarpGetInfo(D[d], &i0[0]));
        PetscCall(MatEllwarpGetInfo(E[d], &i0[1]));
        PetscCall(MatAXPY(D[d], 2.0, E[d], SAME_NONZERO_PATTERN));
        PetscCall(MatAXPY(E[d], -0.25, D[d], DIFFERENT_NONZERO_PATTERN)); /* equal patterns found by comparison */
        PetscCall(MatCopy(D[d], E[d], SUBSET_NONZERO_PATTERN));
        PetscCall(MatMult(E[d], x, y[d]));
        PetscCall(MatMult(D[d], x, y[d]));
        PetscCall(MatEllwarpGetInfo(D[d], &i1[0]));
        PetscCall(MatEllwarpGetInfo(E[d], &i1[1]));
        /* the layout kernels, not the host SeqAIJ: no refresh, no analysis */
        for (int q = 0; q < 2; q++) CHECK(i1[q].nanalyses == i0[q].nanalyses && i1[q].nrefreshes == i0[q].nrefreshes, "%s: MatAXPY/MatCopy with equal patterns left the layout (analyses %" PetscInt_FMT " -> %" PetscInt_FMT ", refreshes %" PetscInt_FMT " -> %" PetscInt_FMT ")", A->name, i0[q].nanalyses, i1[q].nanalyses, i0[q].nrefreshes, i1[q].nrefreshes);
      }
      PetscCall(MatScale(D[d], 0.75));
      PetscCall(MatShift(D[d], 1.5)); /* may insert missing diagonal entries: a new pattern */
      PetscCall(MatAXPY(D[d], 3.0, B, SUBSET_NONZERO_PATTERN)); /* X is a SeqAIJ: the host path */
      PetscCall(MatNorm(D[d], NORM_1, &nrm[d][0]));
      PetscCall(MatNorm(D[d], NORM_FROBENIUS, &nrm[d][1]));
      PetscCall(MatNorm(E[d], NORM_INFINITY, &nrm[d][2]));
      PetscCall(MatCreateVecs(E[d], NULL, &dg[d]));
      PetscCall(MatGetDiagonal(D[d], dg[d]));
      PetscCall(MatMultTranspose(E[d], xt, yt[d]));
      PetscCall(MatConvert(D[d], MATSEQAIJ, MAT_INITIAL_MATRIX, &C[d]));
    }
    CHECK(nrm[0][0] == nrm[1][0] && nrm[0][1] == nrm[1][1] && nrm[0][2] == nrm[1][2], "%s: norms differ between the analyses", A->name);
    PetscCall(VecEqual(dg[0], dg[1], &eq));
    CHECK(eq, "%s: MatGetDiagonal differs between the analyses", A->name);
    PetscCall(VecEqual(yt[0], yt[1], &eq));
    CHECK(eq, "%s: MatMultTranspose after MatCopy differs between the analyses", A->name);
    PetscCall(MatEqual(C[0], C[1], &eq));
    CHECK(eq, "%s: MatAXPY/MatShift/MatConvert differ between the analyses", A->name);
    for (int d = 0; d < 2; d++) {
      PetscCall(MatDestroy(&D[d]));
      PetscCall(MatDestroy(&C[d]));
      PetscCall(VecDestroy(&dg[d]));
    }
  }
  PetscCall(SameProductsDestroy(E, &B, &v, &x, y, &xt, yt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_ellwarp_tune compress_bias: on (the default) the matrix gets biased slices and moves fewer bytes per product;
   off, none.  The products are bitwise equal either way (the same x entries in the same order), on the host
   backend and (-gpu) on the device kernels. */
static PetscErrorCode BiasLevel(const CSR *A, PetscBool gpu)
{
  Mat            B, E[2];
  Vec            x, y[2], xt, yt[2];
  PetscScalar   *v;
  PetscBool      eq;
  MatEllwarpInfo info[2];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(A->ai[A->m] + 1, &v));
  for (PetscInt k = 0; k < A->ai[A->m]; k++) v[k] = 1.0 + (PetscScalar)Rand(1000) / 7.0;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, A->m, A->n, A->ai, A->aj, v, &B));
  for (int d = 0; d < 2; d++) {
    const char *tune[2][2] = {
      {"",                "compress_bias=0,compress_dict=0"              },
      {"analysis=device", "analysis=host,compress_bias=0,compress_dict=0"}  /* and both analyses; without the dictionary mode, which would take the slices */
    };
    if (tune[gpu][d][0]) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", tune[gpu][d]));
    PetscCall(MatConvert(B, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E[d]));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_tune"));
    PetscCall(MatEllwarpGetInfo(E[d], &info[d]));
  }
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(E[0], PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatView(E[1], PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  CHECK(info[0].nbias > 0, "%s: no slice with a bias per entry position", A->name);
  CHECK(info[1].nbias == 0, "%s: %" PetscInt_FMT " slices with a bias per entry position under -mat_ellwarp_tune compress_bias=0", A->name, info[1].nbias);
  CHECK(info[0].nslots == info[1].nslots && info[0].bytes_mult < info[1].bytes_mult, "%s: the bias does not save bytes (%g against %g)", A->name, info[0].bytes_mult, info[1].bytes_mult);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " slices biased (%" PetscInt_FMT " without the bias, 16-bit slices %" PetscInt_FMT "), bytes per MatMult %.4g against %.4g\n", A->name, info[0].nbias, info[0].nslices, info[1].nbias, info[1].n16, info[0].bytes_mult, info[1].bytes_mult));
  PetscCall(SameProducts(E, A->name, "with and without the bias", &x, y, &xt, yt));
  for (int d = 0; d < 2; d++) PetscCall(MatMultAdd(E[d], x, y[d], y[d]));
  PetscCall(VecEqual(y[0], y[1], &eq));
  CHECK(eq, "%s: MatMultAdd differs with and without the bias", A->name);
  PetscCall(SameProductsDestroy(E, &B, &v, &x, y, &xt, yt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO assembly (its plan reads the slot map on the host) into device- and host-analysed matrices */
static PetscErrorCode COOLevel(PetscInt N, PetscBool gpu)
{
  PetscCount   n;
  PetscInt    *ci, *cj, nv = (N + 1) * (N + 1) * (N + 1);
  PetscScalar *cv;
  Mat          E[2];
  Vec          x, y[2];
  PetscBool    eq;

  PetscFunctionBegin;
  PetscCall(EllwarpKuhnCOO(N, &n, &ci, &cj));
  PetscCall(PetscMalloc1(n, &cv));
  for (PetscCount k = 0; k < n; k++) cv[k] = 1.0 + (PetscScalar)(k % 13) / 3.0;
  for (int d = 0; d < 2; d++) {
    PetscCall(MatCreate(PETSC_COMM_SELF, &E[d]));
    PetscCall(MatSetSizes(E[d], nv, nv, nv, nv));
    PetscCall(MatSetType(E[d], MATSEQELLWARP));
    PetscCall(FirstVariant(gpu, d));
    PetscCall(MatSetFromOptions(E[d]));
    PetscCall(ClearVariant());
    { /* SeqAIJ's preallocation sorts the lists in place: each matrix gets its own copy */
      PetscInt *i2, *j2;
      PetscCall(PetscMalloc2(n, &i2, n, &j2));
      PetscCall(PetscArraycpy(i2, ci, n));
      PetscCall(PetscArraycpy(j2, cj, n));
      PetscCall(MatSetPreallocationCOO(E[d], n, i2, j2));
      PetscCall(PetscFree2(i2, j2));
    }
    PetscCall(MatSetValuesCOO(E[d], cv, INSERT_VALUES));
  }
  PetscCall(MatCreateVecs(E[0], &x, &y[0]));
  PetscCall(VecDuplicate(y[0], &y[1]));
  PetscCall(VecSetRandom(x, NULL));
  for (int d = 0; d < 2; d++) PetscCall(MatMult(E[d], x, y[d]));
  PetscCall(VecEqual(y[0], y[1], &eq));
  CHECK(eq, "COO N=%" PetscInt_FMT ": MatMult differs between device and host analysis", N);
  for (int d = 0; d < 2; d++) PetscCall(MatSetValuesCOO(E[d], cv, ADD_VALUES));
  for (int d = 0; d < 2; d++) PetscCall(MatMult(E[d], x, y[d]));
  PetscCall(VecEqual(y[0], y[1], &eq));
  CHECK(eq, "COO N=%" PetscInt_FMT ": MatMult after ADD_VALUES differs between device and host analysis", N);
  PetscCall(VecDestroy(&x));
  for (int d = 0; d < 2; d++) {
    PetscCall(VecDestroy(&y[d]));
    PetscCall(MatDestroy(&E[d]));
  }
  PetscCall(PetscFree(cv));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_ellwarp_tune analysis=device with the host backend is refused with a clear error; the host backend's
   MatView names where its analysis ran */
static PetscErrorCode Options(void)
{
  Mat            B, E = NULL;
  PetscInt       i = 0;
  PetscScalar    one = 1.0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 1, 1, 1, NULL, &B));
  PetscCall(MatSetValues(B, 1, &i, 1, &i, &one, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
  PetscCall(MatConvert(B, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(E, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatDestroy(&E));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", "analysis=device"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatConvert(B, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_INCOMP, "-mat_ellwarp_tune analysis=device with the host backend: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_INCOMP);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "refused as expected: -mat_ellwarp_tune analysis=device with -mat_ellwarp_backend host\n"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_tune"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_backend"));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The schedule model takes the step of the slice kernel the products will run (layout.c, SimulateWhole):
   MultKernelB's by default on FE rows, MultKernel's where -mat_ellwarp_tune keeps it (mult_batch=1, or a key of
   MultKernel's own with mult_batch left automatic: EllwarpTuneUnbatched).  On a P1 Kuhn mesh big enough for the model
   (not the small-matrix rule) the two steps choose different thresholds; a matrix converted with each option must get
   the layout of the corresponding EllwarpParams.unbatched, and options that keep MultKernelB the batched one. */
static PetscInt q1n = 44; /* 85 184 rows, 2.1 M entries: past the small-matrix rule (-q1n N) */
static PetscErrorCode BatchModel(void)
{
  static const struct {
    const char *tune;
    PetscBool   unbatched;
  } opt[] = {
    {NULL,                      PETSC_FALSE},
    {"mult_batch=4",            PETSC_FALSE},
    {"mult_batch=2,mult_regs=32", PETSC_FALSE},
    {"mult_batch=1",            PETSC_TRUE },
    {"mult_acc=2",              PETSC_TRUE },
    {"mult_unroll=8",           PETSC_TRUE },
    {"mult_acc=1,mult_lanes=1", PETSC_FALSE},
  };
  CSR          A;
  PetscInt     T[2];
  PetscScalar *v;
  Mat          B;

  PetscFunctionBegin;
  PetscCall(HexQ1CSR(q1n, &A));
  for (int u = 0; u < 2; u++) {
    EllwarpParams  par;
    EllwarpLayout *H;
    PetscCall(PetscMemzero(&par, sizeof(par)));
    par.kernel       = MAT_ELLWARP_KERNEL_AUTO;
    par.sortwindow   = -1;
    par.compress     = PETSC_TRUE;
    par.compressbias = PETSC_TRUE;
    par.unbatched    = (PetscBool)u;
    PetscCall(EllwarpLayoutCreate(A.m, A.n, A.ai, A.aj, NULL, &par, &H));
    CHECK(H->sortwindow == 0, "%s: sort window %" PetscInt_FMT ", the model needs the whole-matrix sort", A.name, H->sortwindow);
    T[u] = H->threshold;
    PetscCall(EllwarpLayoutDestroy(&H));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: the schedule model's threshold with MultKernelB's step %" PetscInt_FMT ", with MultKernel's %" PetscInt_FMT "\n", A.name, T[0], T[1]));
  CHECK(T[0] != T[1], "%s: both steps give threshold %" PetscInt_FMT ": this matrix does not tell the two models apart", A.name, T[0]);
  PetscCall(PetscMalloc1(A.ai[A.m], &v));
  for (PetscInt k = 0; k < A.ai[A.m]; k++) v[k] = 1.0 + (PetscScalar)Rand(1000) / 7.0;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, A.m, A.n, A.ai, A.aj, v, &B));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
  for (size_t o = 0; o < PETSC_STATIC_ARRAY_LENGTH(opt); o++) {
    Mat            E;
    MatEllwarpInfo info;
    if (opt[o].tune) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", opt[o].tune));
    PetscCall(MatConvert(B, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_tune"));
    PetscCall(MatEllwarpGetInfo(E, &info));
    CHECK(info.threshold == T[opt[o].unbatched], "%s with -mat_ellwarp_tune %s: threshold %" PetscInt_FMT ", expected %" PetscInt_FMT " (the %s step's)", A.name, opt[o].tune ? opt[o].tune : "(none)", info.threshold, T[opt[o].unbatched], opt[o].unbatched ? "MultKernel" : "MultKernelB");
    PetscCall(MatDestroy(&E));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ellwarp_backend"));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree(v));
  PetscCall(FreeCSR(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the transpose of A through its entry map (the layout a MatMultTranspose builds), run through every check */
/* the bs-blocked scalar CSR of a block CSR (every block whole) */
static PetscErrorCode ExpandBlocks(const CSR *Bk, PetscInt bs, CSR *A)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(A->name, sizeof(A->name), "%s_bs%" PetscInt_FMT, Bk->name, bs));
  A->m   = Bk->m * bs;
  A->n   = Bk->n * bs;
  A->map = NULL;
  PetscCall(PetscMalloc1(A->m + 1, &A->ai));
  PetscCall(PetscMalloc1(Bk->ai[Bk->m] * bs * bs, &A->aj));
  A->ai[0] = 0;
  for (PetscInt ib = 0; ib < Bk->m; ib++)
    for (PetscInt r = 0; r < bs; r++) {
      const PetscInt i = ib * bs + r;
      A->ai[i + 1]     = A->ai[i];
      for (PetscInt k = Bk->ai[ib]; k < Bk->ai[ib + 1]; k++)
        for (PetscInt c = 0; c < bs; c++) A->aj[A->ai[i + 1]++] = Bk->aj[k] * bs + c;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a blocked layout against its definition, and its reference gather and product against the CSR product */
static PetscErrorCode CheckBlockLayout(const CSR *A, PetscInt bs, PetscInt W, PetscBool compress, PetscBool compressbias, PetscBool expectbiased, PetscInt T)
{
  EllwarpBlockLayout *L;
  PetscScalar        *csr, *val, *x, *y, *yref;
  PetscInt            nv = A->m ? A->ai[A->m] : 0;
  char               *seen;
  const char         *nm = A->name;

  PetscFunctionBegin;
  if (T == 1) PetscCall(EllwarpBlockLayoutCreate(A->m, A->n, bs, A->ai, A->aj, A->map, W, compress, compressbias, &L));
  else PetscCall(EllwarpBlockLayoutCreateLanes(A->m, A->n, bs, A->ai, A->aj, A->map, W, compress, compressbias, T, 0, &L));
  nlayouts++;
  { /* the same layout on 1 and on 5 host threads (ranges of a few windows and slices, some empty) */
    for (PetscInt nt = 1; nt <= 5; nt += 4) {
      EllwarpBlockLayout *Lt;
      PetscBool           same, blocked;
      PetscInt            np = L->nslices * L->rows;

      PetscCall(EllwarpBlockLayoutCreateLanes(A->m, A->n, bs, A->ai, A->aj, A->map, W, compress, compressbias, T, nt, &Lt));
      same = (PetscBool)(Lt->nslots == L->nslots && Lt->nnzb == L->nnzb && Lt->ncol16 == L->ncol16 && Lt->ncol32 == L->ncol32 && Lt->nread16 == L->nread16 && Lt->nread32 == L->nread32 && Lt->n16 == L->n16 && Lt->nbias == L->nbias && Lt->maxrowlen == L->maxrowlen && Lt->ncolbias == L->ncolbias);
      if (same) same = (PetscBool)(!memcmp(Lt->rowperm, L->rowperm, np * sizeof(PetscInt)) && !memcmp(Lt->rowlen, L->rowlen, np * sizeof(int)) && !memcmp(Lt->rowstart, L->rowstart, np * sizeof(PetscCount)) && !memcmp(Lt->sliceptr, L->sliceptr, (L->nslices + 1) * sizeof(PetscCount)) && !memcmp(Lt->colbase, L->colbase, L->nslices * sizeof(PetscCount)) &&
                                   !memcmp(Lt->meta, L->meta, L->nslices) && !memcmp(Lt->biasbase, L->biasbase, L->nslices * sizeof(PetscCount)) && !memcmp(Lt->col16, L->col16, L->ncol16 * sizeof(short)) && !memcmp(Lt->col32, L->col32, L->ncol32 * sizeof(int)) && !memcmp(Lt->colbias, L->colbias, L->ncolbias * sizeof(int)));
      CHECK(same, "%s: the blocked layout on %" PetscInt_FMT " threads differs from the default one", nm, nt);
      PetscCall(EllwarpBlockLayoutDestroy(&Lt));
      PetscCall(EllwarpBlockDetectThreads(A->m, A->n, A->ai, A->aj, bs, nt, &blocked));
      CHECK(blocked, "%s: not detected as blocked on %" PetscInt_FMT " threads", nm, nt);
    }
  }
  CHECK(L->bs == bs && L->mb == A->m / bs && L->nb == A->n / bs && L->lanes == T && L->rows * T == 32 && L->nslices == (L->mb + L->rows - 1) / L->rows, "%s: blocked sizes", nm);
  PetscCall(PetscCalloc1(L->mb + 1, &seen));
  for (PetscInt p = 0; p < L->nslices * L->rows; p++) {
    const PetscInt s = p / L->rows, q = p % L->rows, ib = L->rowperm[p], len = L->rowlen[p];
    if (p >= L->mb) {
      CHECK(ib == -1 && len == 0, "%s: lane past the block rows", nm);
      continue;
    }
    CHECK(ib >= 0 && ib < L->mb && !seen[ib], "%s: rowperm not a permutation at %" PetscInt_FMT, nm, p);
    seen[ib] = 1;
    CHECK(ib / W == p / W, "%s: block row %" PetscInt_FMT " sorted out of its window", nm, ib);
    CHECK(p % W == 0 || len <= L->rowlen[p - 1], "%s: lengths not sorted within the window at %" PetscInt_FMT, nm, p);
    CHECK(len * bs == A->ai[ib * bs + 1] - A->ai[ib * bs] && L->rowstart[p] == A->ai[ib * bs], "%s: block row %" PetscInt_FMT " length or start", nm, ib);
    CHECK(L->sliceptr[s + 1] - L->sliceptr[s] >= (PetscCount)((len + T - 1) / T) * ELLWARP_LANES, "%s: slice %" PetscInt_FMT " narrower than its rows", nm, s);
    for (PetscInt j = 0; j < len; j++) { /* block j: step j / T of lane slot q T + j % T */
      const PetscInt   k  = j / T;
      const PetscCount o  = L->colbase[s] + (PetscCount)k * ELLWARP_LANES + q * T + j % T;
      const PetscInt   bc = (L->meta[s] & 16) ? ib + ((L->meta[s] & 32) ? L->colbias[L->biasbase[s] + k * T + j % T] : 0) + L->col16[o] : L->col32[o];
      CHECK(bc == A->aj[A->ai[ib * bs] + j * bs] / bs, "%s: block column of block row %" PetscInt_FMT " block %" PetscInt_FMT, nm, ib, j);
    }
  }
  for (PetscInt s = 0; s < L->nslices; s++) { /* row-relative 16-bit iff every block column fits; else biased iff every step's span fits */
    const PetscInt w    = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    PetscBool      fits = compress, bfits = (PetscBool)(compress && compressbias);
    PetscInt wmax = 0;
    for (PetscInt q = 0; q < L->rows; q++) {
      const PetscInt p = s * L->rows + q;
      if (p < L->mb) wmax = PetscMax(wmax, (L->rowlen[p] + T - 1) / T);
      for (PetscInt k = 0; p < L->mb && k < L->rowlen[p]; k++) {
        const PetscInt d = A->aj[L->rowstart[p] + k * bs] / bs - L->rowperm[p];
        if (d < -32767 || d > 32767) fits = PETSC_FALSE;
      }
    }
    CHECK(w == wmax, "%s: slice %" PetscInt_FMT " width %" PetscInt_FMT " against its longest row's %" PetscInt_FMT " steps", nm, s, w, wmax);
    for (PetscInt k = 0; k < w; k++)
      for (PetscInt t = 0; t < T; t++) { /* a bias per (step k, lane t): the slice's blocks k T + t */
        PetscInt mn = PETSC_INT_MAX, mx = PETSC_INT_MIN;
        for (PetscInt p = s * L->rows; p < PetscMin(L->mb, (s + 1) * L->rows); p++)
          if (k * T + t < L->rowlen[p]) {
            mn = PetscMin(mn, A->aj[L->rowstart[p] + (k * T + t) * bs] / bs - L->rowperm[p]);
            mx = PetscMax(mx, A->aj[L->rowstart[p] + (k * T + t) * bs] / bs - L->rowperm[p]);
          }
        if (mx >= mn && mx - mn > ELLWARP_BIAS_SPAN) bfits = PETSC_FALSE;
        if (!fits && bfits && (L->meta[s] & 32)) CHECK(L->colbias[L->biasbase[s] + k * T + t] == (mx >= mn ? EllwarpBiasOf((int)mn, (int)mx) : 0), "%s: slice %" PetscInt_FMT " step %" PetscInt_FMT " lane %" PetscInt_FMT " bias", nm, s, k, t);
      }
    CHECK(L->meta[s] == (fits ? 16 : (bfits ? 48 : 0)), "%s: slice %" PetscInt_FMT " column mode %d", nm, s, (int)L->meta[s]);
  }
  CHECK(!expectbiased || L->nbias > 0, "%s: no biased slice", nm);
  { /* the lanes model: from this layout and from the T = 1 layout of the same pattern (any T's sorted order is the
       same), with this layout's slices, widest slice and bytes */
    EllwarpBlockLayout *L1;
    EllwarpBlockModel   M, M1;
    PetscInt            maxw = 0, Tc;
    for (PetscInt s = 0; s < L->nslices; s++) maxw = PetscMax(maxw, (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES));
    PetscCall(EllwarpBlockLayoutCreate(A->m, A->n, bs, A->ai, A->aj, A->map, W, compress, compressbias, &L1));
    PetscCall(EllwarpBlockModelTime(L, T, &M));
    PetscCall(EllwarpBlockModelTime(L1, T, &M1));
    CHECK(M.nslices == L->nslices && M.maxwidth == maxw && M1.nslices == M.nslices && M1.maxwidth == M.maxwidth, "%s: lanes model slices %" PetscInt_FMT " %" PetscInt_FMT " widths %" PetscInt_FMT " %" PetscInt_FMT " against %" PetscInt_FMT " %" PetscInt_FMT, nm, M.nslices, M1.nslices, M.maxwidth, M1.maxwidth, L->nslices, maxw);
    /* the latency terms depend on the lengths only; the bytes also on the index modes, which depend on T (a slice of
       32 / T block rows may fit 16 bits where 32 do not): equal for T = 1 */
    CHECK(M.widest_us == M1.widest_us && PetscAbsReal(M.rounds_us - M1.rounds_us) <= 1e-12 * M.rounds_us && M.time_us >= M.bytes_us && M.time_us >= M.widest_us && M.time_us >= M.rounds_us, "%s: lanes model times", nm);
    CHECK(T > 1 || PetscAbsReal(M.bytes_us - M1.bytes_us) <= 1e-12 * M.bytes_us, "%s: lanes model bytes", nm);
    PetscCall(EllwarpBlockChooseLanes(L1, &Tc, NULL));
    CHECK(Tc == 2 || Tc == 4, "%s: chosen lanes %" PetscInt_FMT " (the automatic rule takes 2 or 4)", nm, Tc);
    PetscCall(EllwarpBlockLayoutDestroy(&L1));
  }
  /* gather and product against the CSR product (values: v[e] = 1 + e % 7 - e / 13 % 3, through the map) */
  PetscCall(PetscMalloc5(nv, &csr, L->nslots * bs * bs + 1, &val, A->n + 1, &x, A->m + 1, &y, A->m + 1, &yref));
  for (PetscInt e = 0; e < nv; e++) csr[e] = 1.0 + e % 7 - (e / 13) % 3;
  for (PetscInt j = 0; j < A->n; j++) x[j] = 0.5 + (j % 11) * 0.25;
  for (PetscInt i = 0; i < A->m; i++) {
    yref[i] = 0.5 * i;
    for (PetscInt k = A->ai[i]; k < A->ai[i + 1]; k++) yref[i] += csr[A->map ? A->map[k] : k] * x[A->aj[k]];
  }
  EllwarpBlockHostGather(L, csr, val);
  for (PetscInt i = 0; i < A->m; i++) y[i] = 0.5 * i;
  EllwarpBlockHostMult(L, val, x, y, y); /* in place: y = y + A x */
  for (PetscInt i = 0; i < A->m; i++) CHECK(PetscAbsScalar(y[i] - yref[i]) <= 1e-12 * (1 + PetscAbsScalar(yref[i])), "%s: blocked product row %" PetscInt_FMT ": %g vs %g", nm, i, (double)PetscRealPart(y[i]), (double)PetscRealPart(yref[i]));
  CHECK(EllwarpBlockBytesMult(L) >= (double)nv * sizeof(PetscScalar), "%s: blocked byte count", nm);
  PetscCall(PetscFree5(csr, val, x, y, yref));
  PetscCall(PetscFree(seen));
  PetscCall(EllwarpBlockLayoutDestroy(&L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocked layout for bs 2..6 on random block patterns (empty and long block rows, block columns beyond 16-bit
   offsets), the P1 Kuhn pattern with 3 dofs per vertex, and the transposes with their entry maps */
static PetscErrorCode BlockLevel(void)
{
  PetscInt *len;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(1000, &len));
  for (PetscInt bs = 2; bs <= ELLWARP_BLOCK_MAXBS; bs++) {
    CSR       Bk, A, T;
    PetscBool blocked;
    PetscInt  mb = 37 + 50 * bs, nb = bs == 2 ? 40000 : 90;
    for (PetscInt i = 0; i < mb; i++) len[i] = i % 9 == 4 ? 0 : Rand(12);
    len[mb / 2] = PetscMin(nb, 200); /* a long block row */
    PetscCall(MakeCSR(bs == 2 ? "blocks_far" : "blocks", mb, nb, len, 0, &Bk));
    PetscCall(ExpandBlocks(&Bk, bs, &A));
    PetscCall(EllwarpBlockDetect(A.m, A.n, A.ai, A.aj, bs, &blocked));
    CHECK(blocked, "%s: not detected as %" PetscInt_FMT "-blocked", A.name, bs);
    { /* a small matrix with a block row of 200 blocks: latency bound, the lanes model spreads it over more lanes */
      EllwarpBlockLayout *L1;
      EllwarpBlockModel   M[6];
      PetscInt            Tc;
      PetscCall(EllwarpBlockLayoutCreate(A.m, A.n, bs, A.ai, A.aj, NULL, 256, PETSC_TRUE, PETSC_TRUE, &L1));
      PetscCall(EllwarpBlockChooseLanes(L1, &Tc, M));
      CHECK(Tc == (M[1].time_us < 0.98 * M[2].time_us ? 2 : 4), "%s: the rule (2 where it models 2 %% faster than T = 4, else 4) gave T = %" PetscInt_FMT, A.name, Tc);
      CHECK(Tc > 1 && M[0].widest_us > PetscMax(M[0].bytes_us, M[0].rounds_us) && M[0].maxwidth == L1->maxrowlen, "%s: lanes model chose T = %" PetscInt_FMT " for a block row of %" PetscInt_FMT " blocks", A.name, Tc, L1->maxrowlen);
      PetscCall(EllwarpBlockLayoutDestroy(&L1));
    }
    for (PetscInt W = 32; W <= 256; W *= 8)
      for (int compress = 0; compress < 3; compress++)
        for (PetscInt lanes = 1; lanes <= 32; lanes *= 2) PetscCall(CheckBlockLayout(&A, bs, W, (PetscBool)(compress > 0), (PetscBool)(compress > 1), PETSC_FALSE, lanes));
    T.m = A.n;
    T.n = A.m;
    PetscCall(PetscSNPrintf(T.name, sizeof(T.name), "%s_transpose", A.name));
    PetscCall(EllwarpLayoutTranspose(A.m, A.n, A.ai, A.aj, &T.ai, &T.aj, &T.map));
    PetscCall(EllwarpBlockDetect(T.m, T.n, T.ai, T.aj, bs, &blocked));
    CHECK(blocked, "%s: the transpose is not detected as blocked", A.name);
    PetscCall(CheckBlockLayout(&T, bs, 256, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, 1));
    PetscCall(CheckBlockLayout(&T, bs, 256, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, 4));
    PetscCall(PetscFree(T.ai));
    PetscCall(PetscFree2(T.aj, T.map));
    PetscCall(EllwarpBlockDetect(A.m, A.n, A.ai, A.aj, bs + 1, &blocked)); /* a wrong block size */
    CHECK(!blocked || (A.m % (bs + 1) == 0 && A.n % (bs + 1) == 0), "%s: taken as %" PetscInt_FMT "-blocked", A.name, bs + 1);
    if (A.ai[A.m] > 1) { /* one entry dropped (the last of the first non-empty row): no longer blocked */
      PetscInt i = 0, *di;
      while (A.ai[i + 1] == A.ai[i]) i++;
      PetscCall(PetscMalloc1(A.m + 1, &di));
      for (PetscInt r = 0; r <= A.m; r++) di[r] = r <= i ? A.ai[r] : A.ai[r] - 1;
      for (PetscInt k = A.ai[i + 1] - 1; k < A.ai[A.m] - 1; k++) A.aj[k] = A.aj[k + 1];
      PetscCall(EllwarpBlockDetect(A.m, A.n, di, A.aj, bs, &blocked));
      CHECK(!blocked, "%s: a broken block taken as dense", A.name);
      PetscCall(PetscFree(di));
    }
    PetscCall(FreeCSR(&A));
    PetscCall(FreeCSR(&Bk));
  }
  {
    CSR K, A;
    PetscCall(KuhnCSR(6, &K));
    PetscCall(ExpandBlocks(&K, 3, &A));
    PetscCall(CheckBlockLayout(&A, 3, 256, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, 1));
    PetscCall(CheckBlockLayout(&A, 3, 256, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, 8));
    PetscCall(FreeCSR(&A));
    PetscCall(FreeCSR(&K));
  }
  { /* a block stencil far from the diagonal (offsets 0, +-40009 block rows, wrapping): the biased mode */
    const PetscInt mb = 90000, off[3] = {-40009, 0, 40009};
    CSR            Bk, A;
    PetscCall(PetscStrncpy(Bk.name, "block_stencil", sizeof(Bk.name)));
    Bk.m   = Bk.n = mb;
    Bk.map = NULL;
    PetscCall(PetscMalloc1(mb + 1, &Bk.ai));
    PetscCall(PetscMalloc1(3 * mb, &Bk.aj));
    Bk.ai[0] = 0;
    for (PetscInt i = 0; i < mb; i++) {
      PetscInt c[3];
      for (int j = 0; j < 3; j++) c[j] = ((i + off[j]) % mb + mb) % mb;
      qsort(c, 3, sizeof(PetscInt), cmpint);
      for (int j = 0; j < 3; j++) Bk.aj[3 * i + j] = c[j];
      Bk.ai[i + 1] = 3 * (i + 1);
    }
    PetscCall(ExpandBlocks(&Bk, 2, &A));
    PetscCall(CheckBlockLayout(&A, 2, 256, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, 1));
    PetscCall(CheckBlockLayout(&A, 2, 256, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, 1));
    PetscCall(CheckBlockLayout(&A, 2, 256, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, 2)); /* a bias per (step, lane): still biased */
    PetscCall(CheckBlockLayout(&A, 2, 256, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, 8));
    PetscCall(FreeCSR(&A));
    PetscCall(FreeCSR(&Bk));
  }
  PetscCall(PetscFree(len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTransposeMap(const CSR *A, const char *name, PetscBool gpu)
{
  CSR T;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(T.name, name, sizeof(T.name)));
  T.m = A->n;
  T.n = A->m;
  PetscCall(EllwarpLayoutTranspose(A->m, A->n, A->ai, A->aj, &T.ai, &T.aj, &T.map));
  PetscCall(RunAll(&T, gpu));
  PetscCall(PetscFree(T.ai));
  PetscCall(PetscFree2(T.aj, T.map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscBool gpu = PETSC_FALSE;
  CSR       A;
  PetscInt *len, M = 40000;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Pattern analysis: host reference checks; -gpu: the device analysis must build the same layout"));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &M, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-q1n", &q1n, NULL));
  PetscCall(PetscMalloc1(PetscMax(M, 4096) + 1, &len));

  PetscCall(DictEdges(gpu));
  PetscCall(KuhnCSR(10, &A)); /* FE-like: 16-bit columns, 7..27 per row */
  PetscCall(RunAll(&A, gpu));
  PetscCall(MatLevel(&A, gpu));
  PetscCall(RunTransposeMap(&A, "kuhn_transpose_map", gpu));
  PetscCall(FreeCSR(&A));
  PetscCall(COOLevel(8, gpu));

  /* random lengths 0..40 (empty rows included), scattered columns (32-bit slices) */
  for (PetscInt i = 0; i < 5000; i++) len[i] = Rand(41);
  PetscCall(MakeCSR("random_scattered", 5000, 5000, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(MatLevel(&A, gpu));
  PetscCall(FreeCSR(&A));

  /* power-law rows in a band, one very long row (chunked), many empty rows; M rows */
  for (PetscInt i = 0; i < M; i++) {
    PetscReal u = (PetscReal)(Rand(100000) + 1) / 100000.0, l = 1.0 / PetscPowReal(u, 0.7);
    len[i]      = Rand(4) ? (PetscInt)PetscMin(2000.0, l) : 0;
  }
  len[M / 3] = 5000;
  PetscCall(MakeCSR("powerlaw_long_row", M, M, len, 40, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(MatLevel(&A, gpu));
  PetscCall(FreeCSR(&A));

  /* lengths spread over every lane count (1..600), a long tail past the long-row limit */
  for (PetscInt i = 0; i < 8000; i++) len[i] = 1 + Rand(600);
  PetscCall(MakeCSR("spread_1_600", 8000, 30000, len, 100, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));

  /* rows sharing a stencil: SynthQCD at L = 5 (row-relative 16-bit fits), a 64 x 270 x 5 lattice with the same
     stencil (5 x 17280-row slabs: no row-relative fit, the biased mode), its transpose (with an entry map), a
     3000 x 100000 common stencil with wrap-around, and the same mixed with row-relative and 32-bit rows */
  {
    const PetscInt dims4[4] = {5, 5, 5, 5}, dims3[3] = {64, 270, 5};
    const PetscInt off[13]  = {-90017, -47011, -40009, -2003, -1001, 0, 1001, 2003, 33013, 40009, 47017, 65011, 90019};
    PetscInt       nn;

    PetscCall(StencilLatticeCSR(4, dims4, 3, &nn, &A.ai, &A.aj));
    PetscCall(PetscStrncpy(A.name, "qcd_L5", sizeof(A.name)));
    A.m = A.n = nn;
    A.map     = NULL;
    PetscCall(RunAll(&A, gpu));
    PetscCall(FreeCSR(&A));

    expectbias = PETSC_TRUE;
    PetscCall(StencilLatticeCSR(3, dims3, 1, &nn, &A.ai, &A.aj));
    PetscCall(PetscStrncpy(A.name, "lattice_64x270x5", sizeof(A.name)));
    A.m = A.n = nn;
    PetscCall(RunAll(&A, gpu));
    PetscCall(MatLevel(&A, gpu));
    PetscCall(BiasLevel(&A, gpu));
    PetscCall(RunTransposeMap(&A, "lattice_transpose_map", gpu));
    PetscCall(FreeCSR(&A));

    for (int mixed = 0; mixed < 2; mixed++) {
      PetscCall(StencilOffsetsCSR(3000, 100000, 13, off, (PetscBool)mixed, &A.ai, &A.aj));
      PetscCall(PetscStrncpy(A.name, mixed ? "stencil_mixed_3000x100000" : "stencil_3000x100000", sizeof(A.name)));
      A.m = 3000;
      A.n = 100000;
      PetscCall(RunAll(&A, gpu));
      PetscCall(MatLevel(&A, gpu));
      PetscCall(BiasLevel(&A, gpu));
      PetscCall(FreeCSR(&A));
    }
    expectbias = PETSC_FALSE;
  }

  /* degenerate and rectangular */
  len[0] = 1;
  PetscCall(MakeCSR("1x1", 1, 1, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(MatLevel(&A, gpu));
  PetscCall(FreeCSR(&A));
  len[0] = 0;
  PetscCall(MakeCSR("1x1_empty", 1, 1, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));
  for (PetscInt i = 0; i < 100; i++) len[i] = 0;
  PetscCall(MakeCSR("all_zero_100x50", 100, 50, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));
  PetscCall(MakeCSR("empty_0x0", 0, 0, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));
  for (PetscInt i = 0; i < 300; i++) len[i] = Rand(3000);
  PetscCall(MakeCSR("wide_300x3000", 300, 3000, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));
  for (PetscInt i = 0; i < 3000; i++) len[i] = Rand(31);
  PetscCall(MakeCSR("tall_3000x30", 3000, 30, len, 0, &A));
  PetscCall(RunAll(&A, gpu));
  PetscCall(FreeCSR(&A));

  PetscCall(PetscFree(len));
  if (!gpu) PetscCall(Options());
  if (!gpu) PetscCall(BatchModel());
  if (!gpu) PetscCall(BlockLevel());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "analysis: %" PetscInt_FMT " layouts, %" PetscInt_FMT " checks passed%s\n", nlayouts, nchecks, gpu ? " (device analysis identical to the host analysis)" : ""));
  PetscCall(PetscFinalize());
  return 0;
}
