/* MATSEQELLWARP operations inherited from SeqAIJ that read or write the host CSR values.  The layout may
   hold newer values (after a device-side MatScale, MatZeroRows, ...): these wrappers bring the host copy
   up to date first (logged as MAT_ELLWARP_Download) and mark the host newer after a write. */
#include <petscellwarp/private/matellwarpimpl.h>

#define ELLWARP_AIJ(A) (((Mat_SeqELLWARP *)(A)->spptr)->aijops)

/* read-only host operations: sync, then SeqAIJ's own */
#define ELLWARP_READER(op, params, args) \
  static PetscErrorCode Host_##op params \
  { \
    PetscFunctionBegin; \
    PetscCall(MatSeqELLWARPSyncHost(A)); \
    PetscCall(ELLWARP_AIJ(A).op args); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
/* host writes: sync (unchanged entries must survive), write, host is newer */
#define ELLWARP_WRITER(op, params, args) \
  static PetscErrorCode Host_##op params \
  { \
    PetscFunctionBegin; \
    PetscCall(MatSeqELLWARPSyncHost(A)); \
    PetscCall(ELLWARP_AIJ(A).op args); \
    A->offloadmask = PETSC_OFFLOAD_CPU; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

ELLWARP_READER(getrow, (Mat A, PetscInt r, PetscInt *n, PetscInt **c, PetscScalar **v), (A, r, n, c, v))
ELLWARP_READER(getvalues, (Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], PetscScalar v[]), (A, m, im, n, in, v))
ELLWARP_READER(sor, (Mat A, Vec b, PetscReal w, MatSORType f, PetscReal s, PetscInt its, PetscInt lits, Vec x), (A, b, w, f, s, its, lits, x))
ELLWARP_READER(invertblockdiagonal, (Mat A, const PetscScalar **v), (A, v))
ELLWARP_READER(createsubmatrix, (Mat A, IS r, IS c, MatReuse re, Mat *B), (A, r, c, re, B))
ELLWARP_READER(createsubmatrices, (Mat A, PetscInt n, const IS r[], const IS c[], MatReuse re, Mat *B[]), (A, n, r, c, re, B))
ELLWARP_READER(getrowmaxabs, (Mat A, Vec v, PetscInt idx[]), (A, v, idx))
ELLWARP_READER(getrowmax, (Mat A, Vec v, PetscInt idx[]), (A, v, idx))
ELLWARP_READER(getrowmin, (Mat A, Vec v, PetscInt idx[]), (A, v, idx))
ELLWARP_READER(getrowsumabs, (Mat A, Vec v), (A, v))
ELLWARP_READER(getcolumnreductions, (Mat A, PetscInt type, PetscReal *r), (A, type, r))
/* GAMG's graph: AIJ's MatCreateGraph reads the host values directly (bs > 1) */
ELLWARP_READER(creategraph, (Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt nidx, PetscInt idx[], Mat *G), (A, sym, scale, filter, nidx, idx, G))
ELLWARP_WRITER(setvalues, (Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode), (A, m, im, n, in, v, mode))
ELLWARP_WRITER(setvaluesblocked, (Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode), (A, m, im, n, in, v, mode))

/* SeqAIJ's MatTranspose creates the result with A's type and, with MAT_REUSE_MATRIX, writes its values straight
   into the result's host arrays (it only increases the state): a MATSEQELLWARP result must take its host values
   as the current ones, or its layout keeps the previous transpose (a silent wrong MatMult) */
static PetscErrorCode Host_transpose(Mat A, MatReuse re, Mat *B)
{
  Mat       T;
  PetscBool isell;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(ELLWARP_AIJ(A).transpose(A, re, B));
  T = re == MAT_INPLACE_MATRIX ? A : *B;
  PetscCall(PetscObjectTypeCompare((PetscObject)T, MATSEQELLWARP, &isell));
  if (isell && T->offloadmask != PETSC_OFFLOAD_UNALLOCATED) T->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Host_equal(Mat A, Mat B, PetscBool *flg)
{
  PetscBool isb;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQELLWARP, &isb));
  if (isb) PetscCall(MatSeqELLWARPSyncHost(B));
  PetscCall(ELLWARP_AIJ(A).equal(A, B, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSeqAIJGetArray() and friends: SeqAIJ kernels (products, submatrices) go through these */
static PetscErrorCode GetArray(Mat A, PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  A->offloadmask = PETSC_OFFLOAD_CPU;
  *a             = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetArrayRead(Mat A, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  *a = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetArrayWrite(Mat A, PetscScalar **a)
{
  PetscFunctionBegin;
  A->offloadmask = PETSC_OFFLOAD_CPU;
  *a             = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreArray(Mat A, PetscScalar **a)
{
  PetscFunctionBegin;
  A->offloadmask = PETSC_OFFLOAD_CPU;
  *a             = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreArrayRead(Mat A, const PetscScalar **a)
{
  PetscFunctionBegin;
  (void)A;
  *a = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetCSRAndMemType(Mat A, const PetscInt **i, const PetscInt **j, PetscScalar **a, PetscMemType *mtype)
{
  Mat_SeqAIJ *aij = (Mat_SeqAIJ *)A->data;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  if (i) *i = aij->i;
  if (j) *j = aij->j;
  if (a) {
    *a             = aij->a;
    A->offloadmask = PETSC_OFFLOAD_CPU;
  }
  if (mtype) *mtype = PETSC_MEMTYPE_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPSetHostOps(Mat B)
{
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)B->data;

  PetscFunctionBegin;
#define SET(op) \
  if (B->ops->op) B->ops->op = Host_##op
  SET(getrow);
  SET(getvalues);
  SET(sor);
  SET(invertblockdiagonal);
  SET(createsubmatrix);
  SET(createsubmatrices);
  SET(transpose);
  SET(getrowmaxabs);
  SET(getrowmax);
  SET(getrowmin);
  SET(getrowsumabs);
  SET(getcolumnreductions);
  SET(creategraph);
  SET(setvalues);
  SET(setvaluesblocked);
  SET(equal);
#undef SET
  a->ops->getarray          = GetArray;
  a->ops->restorearray      = RestoreArray;
  a->ops->getarrayread      = GetArrayRead;
  a->ops->restorearrayread  = RestoreArrayRead;
  a->ops->getarraywrite     = GetArrayWrite;
  a->ops->restorearraywrite = RestoreArray;
  a->ops->getcsrandmemtype  = GetCSRAndMemType;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- host factorizations (PCILU, PCICC, PCLU, PCBJACOBI) ------------------------------------------ */
/* SeqAIJ's numeric factorizations read A's host values directly, so each is wrapped to sync A first.
   The SeqAIJ routines that MatGetFactor and the symbolic phase install are kept in a container composed on
   the factor (PetscObjectContainerCompose: destroyed with it), not as composed functions, which the factor,
   a plain MATSEQAIJ, would never remove (-checkfunctionlist reports such leftovers). */
typedef struct {
  PetscErrorCode (*lusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*cholsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
} FactorOrig;

static const char FactorOrigName[] = "MatSeqELLWARP_FactorOrig";

static PetscErrorCode GetFactorOrig(Mat F, FactorOrig **o)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)F, FactorOrigName, (void **)o));
  PetscCheck(*o, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP factor: the wrapped SeqAIJ factorization routines are missing");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NumericLU(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall((*o->numeric)(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WrapNumeric(Mat F, PetscBool chol)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  /* SeqAIJ's ILU(0) symbolic phase duplicates A into F, its composed functions included
     (MatDuplicateNoCreate_SeqAIJ): F is a MATSEQAIJ, so take MATSEQELLWARP's off again */
  PetscCall(MatSeqELLWARPRemoveComposed_Private(F));
  if (chol) {
    o->numeric                    = F->ops->choleskyfactornumeric;
    F->ops->choleskyfactornumeric = NumericLU;
  } else {
    o->numeric              = F->ops->lufactornumeric;
    F->ops->lufactornumeric = NumericLU;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SymbolicLU(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall((*o->lusymbolic)(F, A, r, c, info));
  PetscCall(WrapNumeric(F, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SymbolicChol(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall((*o->cholsymbolic)(F, A, p, info));
  PetscCall(WrapNumeric(F, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorOrigDestroy(PetscCtxRt ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(*(FactorOrig **)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqELLWARP_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  MatSolverFn *aijfactor;
  PetscBool    foundtype, foundsolver;
  FactorOrig  *o;

  PetscFunctionBegin;
  PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, ftype, &foundtype, &foundsolver, &aijfactor));
  PetscCheck(aijfactor, PETSC_COMM_SELF, PETSC_ERR_SUP, "No PETSc factorization of type %s for MATSEQAIJ", MatFactorTypes[ftype]);
  PetscCall((*aijfactor)(A, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&o));
  switch (ftype) {
  case MAT_FACTOR_LU:
    o->lusymbolic               = (*F)->ops->lufactorsymbolic;
    (*F)->ops->lufactorsymbolic = SymbolicLU;
    break;
  case MAT_FACTOR_ILU:
    o->lusymbolic                = (*F)->ops->ilufactorsymbolic;
    (*F)->ops->ilufactorsymbolic = SymbolicLU;
    break;
  case MAT_FACTOR_CHOLESKY:
    o->cholsymbolic                   = (*F)->ops->choleskyfactorsymbolic;
    (*F)->ops->choleskyfactorsymbolic = SymbolicChol;
    break;
  case MAT_FACTOR_ICC:
    o->cholsymbolic              = (*F)->ops->iccfactorsymbolic;
    (*F)->ops->iccfactorsymbolic = SymbolicChol;
    break;
  default:
    PetscCall(PetscFree(o));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Factor type %s is not supported for MATSEQELLWARP", MatFactorTypes[ftype]);
  }
  PetscCall(PetscObjectContainerCompose((PetscObject)*F, FactorOrigName, o, FactorOrigDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPRegisterFactors(void)
{
  PetscFunctionBegin;
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_LU, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_ILU, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_CHOLESKY, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_ICC, MatGetFactor_SeqELLWARP_PETSc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
