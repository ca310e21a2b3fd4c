/* The reference backend: the ELL-WARP kernels in plain C over host arrays.  Used where no CUDA device
   exists (stated in -info and MatView) and by the tests, which compare it against MATSEQAIJ. */
#include <petsc/private/matellwarpimpl.h>

struct _EllwarpStore {
  const EllwarpLayout *L;
  PetscScalar         *val;
  PetscCount          *coojmap, *cooperm, *coo2slot; /* COO plan, CSR order */
};

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
  PetscCall(PetscFree3((*S)->coojmap, (*S)->cooperm, (*S)->coo2slot));
  PetscCall(PetscFree(*S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostGather(EllwarpStore *S, const PetscScalar *csr)
{
  PetscFunctionBegin;
  EllwarpHostRefresh(S->L, csr, S->val);
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
  EllwarpHostMult(S->L, S->val, x, z, y, PETSC_FALSE);
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

static PetscErrorCode HostCOOSetup(EllwarpStore *S, PetscCount nv, PetscCount nperm, const PetscCount *jmap, const PetscCount *perm, const PetscCount *csr2slot)
{
  PetscFunctionBegin;
  (void)nv;
  PetscCall(PetscFree3(S->coojmap, S->cooperm, S->coo2slot));
  PetscCall(PetscMalloc3(S->L->nnz + 1, &S->coojmap, nperm, &S->cooperm, S->L->nnz, &S->coo2slot));
  PetscCall(PetscArraycpy(S->coojmap, jmap, S->L->nnz + 1));
  PetscCall(PetscArraycpy(S->cooperm, perm, nperm));
  PetscCall(PetscArraycpy(S->coo2slot, csr2slot, S->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCOOValues(EllwarpStore *S, const PetscScalar *v, PetscMemType mtype, InsertMode imode)
{
  PetscFunctionBegin;
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MATSEQELLWARP (host backend): MatSetValuesCOO() needs host values");
  for (PetscCount k = 0; k < S->L->nnz; k++) {
    PetscScalar sum = 0.0;
    for (PetscCount q = S->coojmap[k]; q < S->coojmap[k + 1]; q++) sum += v[S->cooperm[q]];
    S->val[S->coo2slot[k]] = (imode == INSERT_VALUES ? 0.0 : S->val[S->coo2slot[k]]) + sum;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

const EllwarpKernelOps EllwarpHostKernels = {HostCreate, HostDestroy, HostGather, HostScatter, HostMult, HostScale, HostShift, HostGetDiag, HostDiagScale, HostZeroMasked, HostAXPY, HostCopy, HostNorm, HostSetRows, HostCSRAlloc, HostCSRFree, HostCSRCopy, HostCSRCopy, HostCOOSetup, HostCOOValues};

/* the layout's value array (host), for writers that fill the slots directly (the DM assembler) */
PetscScalar *EllwarpHostStoreValues(EllwarpStore *S)
{
  return S->val;
}
