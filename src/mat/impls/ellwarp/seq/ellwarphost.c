/* The reference backend: the ELL-WARP kernels in plain C over host arrays.  Used where no CUDA device
   exists (stated in -info and MatView) and by the tests, which compare it against MATSEQAIJ. */
#include <petscellwarp/private/matellwarpimpl.h>

struct _EllwarpStore {
  const EllwarpLayout *L;
  PetscScalar         *val;
  PetscCount          *coojmap, *cooperm, *coo2slot; /* COO plan in slot order (EllwarpCOOSlotPlan); coo2slot unused */
  PetscBool            coounique;                    /* at most one COO entry per slot: cooperm[slot], no coojmap */
  EllwarpLayout       *own; /* -mat_ellwarp_tune analysis_drop_host: the store keeps the arrays, as a device store does */
  PetscInt            *rowstart; /* row form of the CSR -> slot map (EllwarpLayoutRowForm), made at the first gather */
  int                 *rowlen;
  int                  rowform;  /* 0: not looked at yet, 1: the row form holds, -1: it does not (a transpose) */
  const EllwarpTune   *tune; /* the matrix's kernel variants (only mult_acc changes what the host computes) */
};

static void HostSetTune(EllwarpStore *S, const EllwarpTune *t)
{
  S->tune = t;
}

/* the store takes L over (its arrays play the device arrays; the matrix keeps only the scalars) */
PetscErrorCode EllwarpHostStoreAdopt(EllwarpStore *S, EllwarpLayout *L)
{
  PetscFunctionBegin;
  PetscCheck(S->L == L, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the store was not created for this layout");
  S->own = L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpLayout *EllwarpHostStoreLayout(const EllwarpStore *S)
{
  return S->L;
}

static PetscErrorCode HostCreate(const EllwarpLayout *L, EllwarpStore **S)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(S));
  (*S)->L = L;
  PetscCall(PetscCalloc1(L->nslots, &(*S)->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostDestroy(EllwarpStore **S)
{
  PetscFunctionBegin;
  if (!*S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*S)->val));
  PetscCall(PetscFree2((*S)->rowstart, (*S)->rowlen));
  PetscCall(PetscFree3((*S)->coojmap, (*S)->cooperm, (*S)->coo2slot));
  PetscCall(EllwarpLayoutDestroy(&(*S)->own));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* as the device gather: the row form when it holds (no map read), else the slot map */
static PetscErrorCode HostGather(EllwarpStore *S, const PetscScalar *csr)
{
  PetscFunctionBegin;
  if (!S->rowform) {
    PetscBool ok;
    PetscCall(PetscMalloc2(S->L->nrows, &S->rowstart, S->L->nrows, &S->rowlen));
    EllwarpLayoutRowForm(S->L, S->rowstart, S->rowlen, &ok);
    S->rowform = ok ? 1 : -1;
    if (!ok) PetscCall(PetscFree2(S->rowstart, S->rowlen));
  }
  if (S->rowform > 0) EllwarpHostRefreshRows(S->L, S->rowstart, S->rowlen, csr, S->val);
  else EllwarpHostRefresh(S->L, csr, S->val);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostScatter(const EllwarpStore *S, PetscScalar *csr)
{
  PetscFunctionBegin;
  EllwarpHostDownload(S->L, S->val, csr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostMult(const EllwarpStore *S, PetscInt bs, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  (void)bs;
  EllwarpTune t;

  EllwarpTuneResolve(S->L, S->tune, &t);
  EllwarpHostMultAcc(S->L, S->val, x, z, y, PETSC_FALSE, t.multacc);
  PetscCall(PetscLogFlops(2.0 * S->L->nnz - (z ? 0 : S->L->nrows)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostScale(EllwarpStore *S, PetscScalar a)
{
  PetscFunctionBegin;
  for (PetscCount k = 0; k < S->L->nslots; k++) S->val[k] *= a;
  PetscCall(PetscLogFlops(S->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostShift(EllwarpStore *S, PetscScalar a)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < PetscMin(S->L->nrows, S->L->ncols); i++)
    if (S->L->diagslot[i] >= 0) S->val[S->L->diagslot[i]] += a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostGetDiag(const EllwarpStore *S, PetscScalar *d)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < S->L->nrows; i++) d[i] = (i < S->L->ncols && S->L->diagslot[i] >= 0) ? S->val[S->L->diagslot[i]] : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostDiagScale(EllwarpStore *S, const PetscScalar *l, const PetscScalar *r)
{
  PetscFunctionBegin;
  EllwarpHostDiagScale(S->L, S->val, l, r);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostZeroMasked(EllwarpStore *S, const char *rowmask, const char *colmask, PetscScalar diag)
{
  PetscFunctionBegin;
  EllwarpHostZeroMasked(S->L, S->val, rowmask, colmask, diag);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostAXPY(EllwarpStore *Y, PetscScalar a, const EllwarpStore *X)
{
  PetscFunctionBegin;
  for (PetscCount k = 0; k < Y->L->nslots; k++) Y->val[k] += a * X->val[k];
  PetscCall(PetscLogFlops(2.0 * Y->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCopy(EllwarpStore *Y, const EllwarpStore *X)
{
  PetscFunctionBegin;
  PetscCall(PetscArraycpy(Y->val, X->val, Y->L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostNorm(const EllwarpStore *S, NormType type, PetscReal *nrm)
{
  const EllwarpLayout *L = S->L;

  PetscFunctionBegin;
  *nrm = 0;
  if (type == NORM_FROBENIUS) {
    for (PetscCount k = 0; k < L->nslots; k++) *nrm += PetscRealPart(PetscConj(S->val[k]) * S->val[k]);
    *nrm = PetscSqrtReal(*nrm);
  } else {
    PetscScalar *one, *rs;
    PetscCheck(type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "Norm type %s is computed through the transpose", NormTypes[type]);
    PetscCall(PetscMalloc2(L->ncols, &one, L->nrows, &rs));
    for (PetscInt j = 0; j < L->ncols; j++) one[j] = 1.0;
    EllwarpHostMult(L, S->val, one, NULL, rs, PETSC_TRUE);
    for (PetscInt i = 0; i < L->nrows; i++) *nrm = PetscMax(*nrm, PetscRealPart(rs[i]));
    PetscCall(PetscFree2(one, rs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostSetRows(PetscInt n, const PetscInt *rows, PetscScalar a, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) y[rows[i]] = a * x[rows[i]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host backend stages nothing: its CSR copy is the SeqAIJ array itself. */
static PetscErrorCode HostCSRAlloc(PetscCount n, PetscScalar **p)
{
  PetscFunctionBegin;
  (void)n;
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCSRFree(PetscScalar **p)
{
  PetscFunctionBegin;
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCSRCopy(PetscCount n, const PetscScalar *src, PetscScalar *dst)
{
  PetscFunctionBegin;
  if (src != dst) PetscCall(PetscArraycpy(dst, src, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO plan in slot order (the host reference; the device builds the same for unique plans and walks
   SeqAIJ's plan in CSR order when there are duplicates, ellwarpcoocuda.cu): for each slot its COO entries, in
   SeqAIJ's order for the nonzero the slot holds (so sums are bitwise those of the device's CSR-order plan).  Reads
   and writes then follow the layout: the values are written once, in order.  When no nonzero has more than
   one entry (maxcount <= 1) the plan is one COO index per slot, with no offsets at all: -1 for padding (never
   written: padding stays zero), -2 for a nonzero without an entry (INSERT_VALUES writes 0). */
PetscErrorCode EllwarpCOOSlotPlan(PetscCount nslots, const PetscInt *slot2csr, const PetscCount *jmap, const PetscCount *perm, PetscBool unique, PetscCount *slotjmap, PetscCount *slotperm)
{
  PetscFunctionBegin;
  if (unique) {
    for (PetscCount s = 0; s < nslots; s++) {
      const PetscInt k = slot2csr[s];
      slotperm[s]      = k < 0 ? -1 : (jmap[k + 1] > jmap[k] ? perm[jmap[k]] : -2);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  slotjmap[0] = 0;
  for (PetscCount s = 0; s < nslots; s++) {
    const PetscInt k = slot2csr[s];
    slotjmap[s + 1]  = slotjmap[s] + (k >= 0 ? jmap[k + 1] - jmap[k] : 0);
    if (k >= 0)
      for (PetscCount q = jmap[k]; q < jmap[k + 1]; q++) slotperm[slotjmap[s] + (q - jmap[k])] = perm[q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCOOSetup(EllwarpStore *S, PetscCount nv, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm)
{
  const EllwarpLayout *L = S->L;
  PetscCount           maxc = 0;

  PetscFunctionBegin;
  (void)nv;
  PetscCall(PetscFree3(S->coojmap, S->cooperm, S->coo2slot));
  for (PetscCount k = 0; k < L->nnz; k++) maxc = PetscMax(maxc, jmap[k + 1] - jmap[k]);
  S->coounique = (PetscBool)(maxc <= 1);
  PetscCall(PetscMalloc3(S->coounique ? 0 : L->nslots + 1, &S->coojmap, S->coounique ? L->nslots : nperm, &S->cooperm, 0, &S->coo2slot));
  PetscCall(EllwarpCOOSlotPlan(L->nslots, L->slot2csr, jmap, perm, S->coounique, S->coojmap, S->cooperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCOOValues(EllwarpStore *S, const PetscScalar *v, PetscMemType mtype, InsertMode imode)
{
  PetscFunctionBegin;
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MATSEQELLWARP (host backend): MatSetValuesCOO() needs host values");
  for (PetscCount s = 0; s < S->L->nslots; s++) {
    PetscScalar sum = 0.0;
    if (S->coounique && S->cooperm[s] == -1) continue; /* padding: stays zero (as the device kernel) */
    if (S->coounique) sum = S->cooperm[s] >= 0 ? v[S->cooperm[s]] : 0.0;
    else
      for (PetscCount q = S->coojmap[s]; q < S->coojmap[s + 1]; q++) sum += v[S->cooperm[q]];
    S->val[s] = (imode == INSERT_VALUES ? 0.0 : S->val[s]) + sum;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostZero(EllwarpStore *S)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(S->val, S->L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostDiagMissing(const EllwarpStore *S, PetscInt n, const PetscInt *rows, PetscBool *missing)
{
  PetscFunctionBegin;
  *missing = PETSC_FALSE;
  for (PetscInt i = 0; i < n && !*missing; i++)
    if (rows[i] >= S->L->ncols || S->L->diagslot[rows[i]] < 0) *missing = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpKernelOps EllwarpHostKernels = {HostCreate, HostDestroy, HostGather, HostScatter, HostMult, HostScale, HostShift, HostGetDiag, HostDiagScale, HostZeroMasked, HostAXPY, HostCopy, HostNorm, HostSetRows, HostCSRAlloc, HostCSRFree, HostCSRCopy, HostCSRCopy, HostCOOSetup, HostCOOValues, HostZero, HostDiagMissing, HostSetTune};

/* the layout's value array (host), for writers that fill the slots directly (the DM assembler) */
PetscScalar *EllwarpHostStoreValues(EllwarpStore *S)
{
  return S->val;
}

/* the layout's slot -> CSR map (host), for the blocked layout's refresh by slot map */
const PetscInt *EllwarpHostStoreSlot2CSR(const EllwarpStore *S)
{
  return S->L->slot2csr;
}
