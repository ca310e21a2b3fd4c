/* Row analysis of the ELL-WARP layout and the plain-C reference kernels over it.
   Everything here is backend-neutral: the CUDA backend uploads what EllwarpLayoutCreate() builds. */
#include <petsc/private/ellwarplayout.h>
#include <petscsys.h>

/* Cost model for the a-priori kernel choice.  SpMV is bandwidth bound: a slot costs its 12 bytes
   (value + 32-bit column).  A warp's loop over its slice width is latency bound, and the widest slice
   finishes last, so the widest slice adds width * ELLWARP_T_ITER to the time.  The two constants were
   measured on an H100/H200 (copy bandwidth derated to SpMV gather bandwidth; one dependent iteration of
   an unrolled loop).  The benchmark checks the choice against an exhaustive search. */
#define ELLWARP_BYTES_PER_SLOT 12.0
#define ELLWARP_BW             3.0e12
#define ELLWARP_T_ITER         20.0e-9

static inline PetscInt Log2Ceil(PetscInt t)
{
  PetscInt l = 0;
  while ((1 << l) < t) l++;
  return l;
}

/* lanes per row for a row of length len under threshold T (T <= 0: K1) */
static inline PetscInt LanesLog2(PetscInt len, PetscInt T)
{
  PetscInt l = 0;
  if (T <= 0) return 0;
  while (l < 5 && (len + (1 << l) - 1) / (1 << l) > T) l++;
  return l;
}

/* Walk sorted row lengths as the layout would, returning slot count, widest slice and split slices. */
static void SliceWalk(PetscInt n, const PetscInt sortedlen[], PetscInt sortwindow, PetscInt T, PetscCount *nslots, PetscInt *maxwidth, PetscInt *nslices, PetscInt *nsplit)
{
  PetscCount slots = 0;
  PetscInt   p = 0, mw = 0, ns = 0, nsp = 0;

  while (p < n) {
    PetscInt l2 = LanesLog2(sortedlen[p], T), rows = ELLWARP_LANES >> l2, w;
    /* a slice never crosses a sort window: its first row must be its longest */
    if (sortwindow > 0) rows = PetscMin(rows, sortwindow - p % sortwindow);
    rows = PetscMin(rows, n - p);
    w    = (sortedlen[p] + (1 << l2) - 1) >> l2;
    slots += (PetscCount)w * ELLWARP_LANES;
    mw = PetscMax(mw, w);
    ns++;
    if (l2) nsp++;
    p += rows;
  }
  *nslots  = slots;
  *maxwidth = mw;
  *nslices = ns;
  *nsplit  = nsp;
}

static PetscErrorCode SortRows(PetscInt n, const PetscInt rowlen[], PetscInt sortwindow, PetscInt perm[], PetscInt sortedlen[])
{
  PetscInt *key;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &key));
  for (PetscInt i = 0; i < n; i++) perm[i] = i;
  /* stable sort, longest first: rows of equal length keep their order, which keeps x accesses local */
  for (PetscInt start = 0; start < n; start += (sortwindow > 0 ? sortwindow : n)) {
    PetscInt len = sortwindow > 0 ? PetscMin(sortwindow, n - start) : n;
    for (PetscInt i = 0; i < len; i++) key[start + i] = -rowlen[start + i];
    PetscCall(PetscSortIntWithArray(len, key + start, perm + start)); /* not stable: fix ties below */
    /* restore original order inside runs of equal key (PetscSortIntWithArray is not stable) */
    for (PetscInt i = 0; i < len;) {
      PetscInt j = i + 1;
      while (j < len && key[start + j] == key[start + i]) j++;
      PetscCall(PetscSortInt(j - i, perm + start + i));
      i = j;
    }
  }
  for (PetscInt i = 0; i < n; i++) sortedlen[i] = rowlen[perm[i]];
  PetscCall(PetscFree(key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutChooseThreshold(PetscInt n, const PetscInt sortedlen[], const EllwarpParams *par, MatEllwarpKernel *kernel, PetscInt *threshold)
{
  static const PetscInt cand[] = {0, 256, 128, 64, 32, 16, 8, 4};
  PetscReal             best   = PETSC_MAX_REAL;
  PetscInt              bestT  = 0;

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
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cand); c++) {
    PetscCount slots;
    PetscInt   mw, ns, nsp;
    PetscReal  cost;

    if (par->kernel == MAT_ELLWARP_KERNEL_K2 && cand[c] == 0) continue;
    SliceWalk(n, sortedlen, par->sortwindow, cand[c], &slots, &mw, &ns, &nsp);
    cost = (PetscReal)slots * ELLWARP_BYTES_PER_SLOT / ELLWARP_BW + mw * ELLWARP_T_ITER;
    /* prefer the simpler kernel unless splitting wins by more than 2% */
    if (cost < 0.98 * best) {
      best  = cost;
      bestT = cand[c];
    }
  }
  *threshold = bestT;
  *kernel    = bestT ? MAT_ELLWARP_KERNEL_K2 : MAT_ELLWARP_KERNEL_K1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutCreate(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt entrymap[], const EllwarpParams *par, EllwarpLayout **out)
{
  EllwarpLayout *L;
  PetscInt      *rowlen, *sortedlen, T, mw, ns, nsp;
  PetscCount     nslots;
  PetscReal      sum = 0, sum2 = 0;

  PetscFunctionBegin;
  PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ELLWARP stores 32-bit column indices; %" PetscInt_FMT " columns do not fit", n);
  PetscCheck(par->sortwindow >= 0 && par->sortwindow % ELLWARP_LANES == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_sort_window %" PetscInt_FMT " must be 0 or a positive multiple of %d", par->sortwindow, ELLWARP_LANES);
  PetscCall(PetscNew(&L));
  L->nrows      = m;
  L->ncols      = n;
  L->nnz        = m ? ai[m] : 0;
  L->sortwindow = par->sortwindow;
  PetscCall(PetscMalloc2(m, &rowlen, m, &sortedlen));
  PetscCall(PetscMalloc1(m, &L->rowperm));
  L->maxrowlen = 0;
  L->minrowlen = m ? PETSC_INT_MAX : 0;
  for (PetscInt i = 0; i < m; i++) {
    rowlen[i]    = ai[i + 1] - ai[i];
    L->maxrowlen = PetscMax(L->maxrowlen, rowlen[i]);
    L->minrowlen = PetscMin(L->minrowlen, rowlen[i]);
    sum += rowlen[i];
    sum2 += (PetscReal)rowlen[i] * rowlen[i];
  }
  L->meanrowlen = m ? sum / m : 0;
  L->stdrowlen  = m ? PetscSqrtReal(PetscMax(0, sum2 / m - L->meanrowlen * L->meanrowlen)) : 0;
  PetscCall(SortRows(m, rowlen, par->sortwindow, L->rowperm, sortedlen));
  PetscCall(EllwarpLayoutChooseThreshold(m, sortedlen, par, &L->kernel, &T));
  L->threshold = T;
  SliceWalk(m, sortedlen, par->sortwindow, T, &nslots, &mw, &ns, &nsp);
  L->nslots  = nslots;
  L->nslices = ns;
  L->nsplit  = nsp;

  PetscCall(PetscMalloc3(ns + 1, &L->sliceptr, ns + 1, &L->slicerow, ns, &L->log2tpr));
  PetscCall(PetscMalloc3(nslots, &L->col, nslots, &L->slot2csr, m, &L->diagslot));
  L->sliceptr[0] = 0;
  L->slicerow[0] = 0;
  {
    PetscInt p = 0, s = 0;
    while (p < m) {
      PetscInt l2 = LanesLog2(sortedlen[p], T), tpr = 1 << l2, rows = ELLWARP_LANES >> l2, w;
      if (par->sortwindow > 0) rows = PetscMin(rows, par->sortwindow - p % par->sortwindow);
      rows = PetscMin(rows, m - p);
      w    = (sortedlen[p] + tpr - 1) >> l2;
      L->log2tpr[s]      = (unsigned char)l2;
      L->slicerow[s + 1] = p + rows;
      L->sliceptr[s + 1] = L->sliceptr[s] + (PetscCount)w * ELLWARP_LANES;
      for (PetscCount k = L->sliceptr[s]; k < L->sliceptr[s + 1]; k++) {
        L->col[k]      = -1;
        L->slot2csr[k] = -1;
      }
      for (PetscInt q = 0; q < rows; q++) {
        PetscInt row = L->rowperm[p + q];
        L->diagslot[row] = -1;
        for (PetscInt e = 0; e < rowlen[row]; e++) {
          PetscCount slot = L->sliceptr[s] + (PetscCount)(e >> l2) * ELLWARP_LANES + q * tpr + (e & (tpr - 1));
          PetscInt   k    = ai[row] + e;
          L->col[slot]      = (int)aj[k];
          L->slot2csr[slot] = entrymap ? entrymap[k] : k;
          if (aj[k] == row) L->diagslot[row] = slot;
        }
      }
      p += rows;
      s++;
    }
  }
  L->ndiagmissing = 0;
  for (PetscInt i = 0; i < PetscMin(m, n); i++)
    if (L->diagslot[i] < 0) L->ndiagmissing++;
  PetscCall(PetscFree2(rowlen, sortedlen));
  *out = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EllwarpLayoutDestroy(EllwarpLayout **L)
{
  PetscFunctionBegin;
  if (!*L) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*L)->rowperm));
  PetscCall(PetscFree3((*L)->sliceptr, (*L)->slicerow, (*L)->log2tpr));
  PetscCall(PetscFree3((*L)->col, (*L)->slot2csr, (*L)->diagslot));
  PetscCall(PetscFree((*L)->val));
  PetscCall(PetscFree(*L));
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

/* Bytes one MatMult really moves with this layout: slots (value + column), slice metadata, the row
   permutation, x once and y once (x is gathered, so this is a lower bound). */
PetscLogDouble EllwarpLayoutBytesMult(const EllwarpLayout *L)
{
  return (PetscLogDouble)L->nslots * (sizeof(PetscScalar) + sizeof(int)) + (PetscLogDouble)L->nslices * (sizeof(PetscCount) + sizeof(PetscInt) + 1) + (PetscLogDouble)L->nrows * (sizeof(PetscInt) + sizeof(PetscScalar)) + (PetscLogDouble)L->ncols * sizeof(PetscScalar);
}

void EllwarpHostRefresh(const EllwarpLayout *L, const PetscScalar *csr, PetscScalar *val)
{
  for (PetscCount k = 0; k < L->nslots; k++) val[k] = L->slot2csr[k] >= 0 ? csr[L->slot2csr[k]] : 0.0;
}

void EllwarpHostDownload(const EllwarpLayout *L, const PetscScalar *val, PetscScalar *csr)
{
  for (PetscCount k = 0; k < L->nslots; k++)
    if (L->slot2csr[k] >= 0) csr[L->slot2csr[k]] = val[k];
}

/* y = A x (+ z when z != NULL); abs: sum |a_ij| x_j instead (for norms).  Per lane partial sums, then the
   tree reduction that __shfl_down_sync performs, so host and device add in the same order. */
void EllwarpHostMult(const EllwarpLayout *L, const PetscScalar *val, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, PetscBool abs)
{
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt    l2 = L->log2tpr[s], tpr = 1 << l2, rows = L->slicerow[s + 1] - L->slicerow[s];
    PetscInt    w    = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    PetscScalar part[ELLWARP_LANES];

    for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
      part[lane] = 0;
      for (PetscInt k = 0; k < w; k++) {
        PetscCount slot = L->sliceptr[s] + (PetscCount)k * ELLWARP_LANES + lane;
        int        c    = L->col[slot];
        if (c >= 0) part[lane] += (abs ? PetscAbsScalar(val[slot]) : val[slot]) * x[c];
      }
    }
    for (PetscInt off = tpr >> 1; off > 0; off >>= 1)
      for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++)
        if ((lane & (tpr - 1)) < off) part[lane] += part[lane + off];
    for (PetscInt q = 0; q < rows; q++) {
      PetscInt row = L->rowperm[L->slicerow[s] + q];
      y[row]       = z ? z[row] + part[q * tpr] : part[q * tpr];
    }
  }
}

void EllwarpHostDiagScale(const EllwarpLayout *L, PetscScalar *val, const PetscScalar *l, const PetscScalar *r)
{
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt l2 = L->log2tpr[s], w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
      PetscInt q = lane >> l2;
      if (L->slicerow[s] + q >= L->slicerow[s + 1]) continue;
      PetscInt row = L->rowperm[L->slicerow[s] + q];
      for (PetscInt k = 0; k < w; k++) {
        PetscCount slot = L->sliceptr[s] + (PetscCount)k * ELLWARP_LANES + lane;
        if (L->col[slot] < 0) continue;
        if (l) val[slot] *= l[row];
        if (r) val[slot] *= r[L->col[slot]];
      }
    }
  }
}

/* Zero rows flagged in rowmask and columns flagged in colmask (either may be NULL); the diagonal of a
   zeroed row or column gets diag. */
void EllwarpHostZeroMasked(const EllwarpLayout *L, PetscScalar *val, const char *rowmask, const char *colmask, PetscScalar diag)
{
  for (PetscInt s = 0; s < L->nslices; s++) {
    PetscInt l2 = L->log2tpr[s], w = (PetscInt)((L->sliceptr[s + 1] - L->sliceptr[s]) / ELLWARP_LANES);
    for (PetscInt lane = 0; lane < ELLWARP_LANES; lane++) {
      PetscInt q = lane >> l2;
      if (L->slicerow[s] + q >= L->slicerow[s + 1]) continue;
      PetscInt row = L->rowperm[L->slicerow[s] + q];
      PetscBool zr = (PetscBool)(rowmask && rowmask[row]);
      for (PetscInt k = 0; k < w; k++) {
        PetscCount slot = L->sliceptr[s] + (PetscCount)k * ELLWARP_LANES + lane;
        int        c    = L->col[slot];
        if (c < 0) continue;
        if (zr || (colmask && colmask[c])) val[slot] = (c == row) ? diag : 0.0;
      }
    }
  }
}
