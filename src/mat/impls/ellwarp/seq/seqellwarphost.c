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

/* ---- factorizations (PCILU, PCICC, PCLU, PCBJACOBI, -pc_factor_mat_solver_type petsc|cusparse) ---------- */
/* MATSOLVERPETSC: SeqAIJ's factorizations, whose numeric phases read A's host values directly, so each is wrapped
   to sync A first.  MATSOLVERCUSPARSE: AIJCUSPARSE's factorizations (triangular solves on the device), which read
   their operand's cuSPARSE data, run on a private MATSEQAIJCUSPARSE copy Ac of A's pattern; every symbolic and
   numeric phase first copies the values of the matrix it is given into Ac (the numeric phase may get another
   matrix of the same pattern than the symbolic one: mat/tests/ex28 factors A[k] with the symbolic factor of
   A[0]; a copy made once, or one sharing A's arrays, factored A[0] again).  Cost: one host copy of the values and
   their upload per numeric factorization (-info says so).
   The wrapped routines are kept in a container composed on the factor (PetscObjectContainerCompose: destroyed
   with it), not as composed functions, which the factor, a plain MATSEQAIJ(CUSPARSE), would never remove
   (-checkfunctionlist reports such leftovers). */
typedef struct {
  PetscErrorCode (*lusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*cholsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  PetscBool cusparse; /* MATSOLVERCUSPARSE: the wrapped routines factor Ac, an AIJCUSPARSE copy of A made at the symbolic phase */
  Mat       Ac;       /* NULL for MATSOLVERPETSC, and before the symbolic phase */
  PetscErrorCode (*matsolve)(Mat, Mat, Mat);
  PetscErrorCode (*matsolvetranspose)(Mat, Mat, Mat);
} FactorOrig;

static const char FactorOrigName[] = "MatSeqELLWARP_FactorOrig";

static PetscErrorCode GetFactorOrig(Mat F, FactorOrig **o)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)F, FactorOrigName, (void **)o));
  PetscCheck(*o, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP factor: the wrapped factorization routines are missing");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a MATSEQAIJCUSPARSE copy of A's pattern and host values (a copy, not a matrix sharing A's arrays) */
static PetscErrorCode CopyToAIJCUSPARSE(Mat A, Mat *Ac)
{
  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, Ac)); /* copies the host CSR */
  PetscCall(MatConvert(*Ac, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, Ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the matrix the wrapped routines get: A itself (host values current), or Ac holding A's values now */
static PetscErrorCode FactorOperand(FactorOrig *o, Mat A, PetscBool symbolic, Mat *Ause)
{
  Mat_SeqAIJ        *a, *c;
  const PetscScalar *av;
  PetscScalar       *cv;
  PetscBool          same;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(A));
  *Ause = A;
  if (!o->cusparse) PetscFunctionReturn(PETSC_SUCCESS);
  if (!o->Ac) { /* the first symbolic phase: the copy is made here, not in MatGetFactor(), which PCFactor calls more
                   than once (its default ordering creates and destroys a factor) */
    PetscCall(CopyToAIJCUSPARSE(A, &o->Ac));
    PetscCall(PetscInfo(A, "MATSOLVERCUSPARSE symbolic factorization of a MATSEQELLWARP: an AIJCUSPARSE copy of its %" PetscInt_FMT " values made\n", ((Mat_SeqAIJ *)A->data)->nz));
    *Ause = o->Ac;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  a = (Mat_SeqAIJ *)A->data;
  c = (Mat_SeqAIJ *)o->Ac->data;
  same = (PetscBool)(A->rmap->n == o->Ac->rmap->n && A->cmap->n == o->Ac->cmap->n && a->nz == c->nz);
  if (same) PetscCall(PetscArraycmp(a->i, c->i, A->rmap->n + 1, &same));
  if (same) PetscCall(PetscArraycmp(a->j, c->j, a->nz, &same));
  if (!same) {
    PetscCheck(symbolic, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP with MATSOLVERCUSPARSE: the numeric factorization got a matrix whose nonzero pattern differs from the symbolic factorization's; factor it symbolically again");
    PetscCall(MatDestroy(&o->Ac));
    PetscCall(CopyToAIJCUSPARSE(A, &o->Ac));
  } else {
    PetscCall(MatSeqAIJGetArrayRead(A, &av));
    PetscCall(MatSeqAIJGetArrayWrite(o->Ac, &cv)); /* marks the copy's host values the newest: cuSPARSE uploads them */
    PetscCall(PetscArraycpy(cv, av, a->nz));
    PetscCall(MatSeqAIJRestoreArrayWrite(o->Ac, &cv));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &av));
  }
  PetscCall(PetscInfo(A, "MATSOLVERCUSPARSE %s factorization of a MATSEQELLWARP: %" PetscInt_FMT " values copied into its AIJCUSPARSE operand on the host (uploaded by cuSPARSE)\n", symbolic ? "symbolic" : "numeric", a->nz));
  *Ause = o->Ac;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's factors have no MatMatSolve of their own: PETSc's basic one converts host dense B and X to
   MATSEQDENSECUDA in place and back (MatMatSolve_Basic), which resets their operations: a B that is the result of a MatProduct (MatMatMult(A, C, ..., &B) with a device MATSEQELLWARP A
   gives a host MATSEQDENSE, where AIJCUSPARSE gives a MATSEQDENSECUDA) then lost its numeric phase, and the next
   MatMatMult(MAT_REUSE_MATRIX) stopped in MatDenseGetArrayRead (mat/tests/ex125).  So host dense operands are
   given to cuSPARSE as MATSEQDENSECUDA copies, X copied back. */
/* a MATSEQDENSECUDA copy of a host dense M (or M itself, referenced) */
static PetscErrorCode DeviceDense(Mat M, Mat *Mc, PetscBool *copied)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQDENSE, copied));
  if (*copied) PetscCall(MatConvert(M, MATSEQDENSECUDA, MAT_INITIAL_MATRIX, Mc));
  else {
    PetscCall(PetscObjectReference((PetscObject)M));
    *Mc = M;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solve: cuSPARSE's own MatMatSolve(Transpose), or NULL for PETSc's basic one (column by column), which is reached
   by taking our wrapper off F for the call */
static PetscErrorCode MatSolveDense(Mat F, Mat B, Mat X, PetscErrorCode (*solve)(Mat, Mat, Mat), PetscBool trans)
{
  PetscBool      bcopy, xcopy = PETSC_FALSE;
  Mat            Bc, Xc;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(DeviceDense(B, &Bc, &bcopy));
  if (X == B) {
    PetscCall(PetscObjectReference((PetscObject)Bc));
    Xc    = Bc;
    xcopy = bcopy;
  } else PetscCall(DeviceDense(X, &Xc, &xcopy));
  if (bcopy || xcopy) PetscCall(PetscInfo(F, "MATSOLVERCUSPARSE MatMatSolve of a MATSEQELLWARP factor with host dense operands: solved on MATSEQDENSECUDA copies\n"));
  if (solve) ierr = (*solve)(F, Bc, Xc);
  else {
    PetscErrorCode (*mine)(Mat, Mat, Mat) = trans ? F->ops->matsolvetranspose : F->ops->matsolve;

    if (trans) F->ops->matsolvetranspose = NULL;
    else F->ops->matsolve = NULL;
    ierr = trans ? MatMatSolveTranspose(F, Bc, Xc) : MatMatSolve(F, Bc, Xc);
    if (trans) F->ops->matsolvetranspose = mine;
    else F->ops->matsolve = mine;
  }
  PetscCall(ierr);
  if (xcopy) PetscCall(MatCopy(Xc, X, SAME_NONZERO_PATTERN));
  PetscCall(MatDestroy(&Bc));
  PetscCall(MatDestroy(&Xc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_Factor(Mat F, Mat B, Mat X)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(MatSolveDense(F, B, X, o->matsolve, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolveTranspose_Factor(Mat F, Mat B, Mat X)
{
  FactorOrig *o;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(MatSolveDense(F, B, X, o->matsolvetranspose, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NumericLU(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorOrig *o;
  Mat         Ause;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(FactorOperand(o, A, PETSC_FALSE, &Ause));
  PetscCall((*o->numeric)(F, Ause, info));
  if (o->Ac) { /* cuSPARSE's numeric phase installs its solves (none for MatMatSolve: PETSc's basic one then) */
    if (F->ops->matsolve != MatMatSolve_Factor) {
      o->matsolve      = F->ops->matsolve;
      F->ops->matsolve = MatMatSolve_Factor;
    }
    if (F->ops->matsolvetranspose != MatMatSolveTranspose_Factor) {
      o->matsolvetranspose      = F->ops->matsolvetranspose;
      F->ops->matsolvetranspose = MatMatSolveTranspose_Factor;
    }
  }
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
  Mat         Ause;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(FactorOperand(o, A, PETSC_TRUE, &Ause));
  PetscCall((*o->lusymbolic)(F, Ause, r, c, info));
  PetscCall(WrapNumeric(F, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SymbolicChol(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  FactorOrig *o;
  Mat         Ause;

  PetscFunctionBegin;
  PetscCall(GetFactorOrig(F, &o));
  PetscCall(FactorOperand(o, A, PETSC_TRUE, &Ause));
  PetscCall((*o->cholsymbolic)(F, Ause, p, info));
  PetscCall(WrapNumeric(F, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorOrigDestroy(PetscCtxRt ctx)
{
  FactorOrig *o = *(FactorOrig **)ctx;

  PetscFunctionBegin;
  if (o) PetscCall(MatDestroy(&o->Ac));
  PetscCall(PetscFree(o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's own "petsc" factories, saved when MatSeqELLWARPRegisterFactors() put SeqAIJPetscDispatch in their place */
static MatSolverFn *SeqAIJPetscFactory[MAT_FACTOR_ICC + 1];

/* SeqAIJ's factorization (MATSOLVERPETSC) of A, or AIJCUSPARSE's (MATSOLVERCUSPARSE) of a copy of A */
static PetscErrorCode GetFactor(Mat A, MatFactorType ftype, MatSolverType solver, MatType aijtype, Mat *F)
{
  MatSolverFn *aijfactor = NULL;
  PetscBool    foundtype, foundsolver, cusparse;
  FactorOrig  *o;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(solver, MATSOLVERCUSPARSE, &cusparse));
  /* PETSc's "petsc" entry for "seqaij" is SeqAIJPetscDispatch now, which would send A back here: the saved factory */
  if (!cusparse && ftype >= MAT_FACTOR_LU && ftype <= MAT_FACTOR_ICC) aijfactor = SeqAIJPetscFactory[ftype];
  if (!aijfactor) PetscCall(MatSolverTypeGet(solver, aijtype, ftype, &foundtype, &foundsolver, &aijfactor));
  PetscCheck(aijfactor, PETSC_COMM_SELF, PETSC_ERR_SUP, "No %s factorization of type %s for %s", solver, MatFactorTypes[ftype], aijtype);
  /* both factories read only A's sizes, block sizes and CPU binding: A itself, the copy comes at the symbolic phase */
  PetscCall((*aijfactor)(A, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&o));
  o->cusparse = cusparse; /* o->Ac: made at the symbolic phase (FactorOperand) */
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
    PetscCall(MatDestroy(&o->Ac));
    PetscCall(PetscFree(o));
    PetscCall(MatDestroy(F));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Factor type %s is not supported for MATSEQELLWARP", MatFactorTypes[ftype]);
  }
  PetscCall(PetscObjectContainerCompose((PetscObject)*F, FactorOrigName, o, FactorOrigDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Which factorization a MATSEQELLWARP gets when no solver type is given (PCILU/PCICC/PCLU's default; ILU is
   PETSc's default sequential preconditioner).  MatGetFactor() without a type walks PETSc's solver registry in the
   order the solvers were first registered, "petsc" before "cusparse", and reaches this type's "petsc" entry first.
   With the cuda backend it gives cuSPARSE's factorization, as AIJCUSPARSE's default is: before, a program run with
   -mat_type ellwarp and the default ICC factored and solved on the host, copying the vectors at every iteration (ksp
   ex56 -ne 69 on an H100: a 56 s solve against AIJCUSPARSE's 3.5 s; 3.6 s now).  PETSc's host factorization stays
   available as for AIJCUSPARSE: -pc_factor_mat_solver_type petsc (an explicit type: SeqAIJPetscDispatch, below),
   -pc_factor_mat_factor_on_host / -pc_factor_mat_solve_on_host
   (honoured by cuSPARSE's factorization), or the host backend.  -info says which and why. */
static PetscErrorCode DefaultFactorOnDevice(Mat A, MatFactorType ftype, PetscBool *dev)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  if (ftype < MAT_FACTOR_LU || ftype > MAT_FACTOR_ICC) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(ELLWARP_HAVE_CUDA)
  *dev = (PetscBool)(e->backend == MAT_ELLWARP_BACKEND_CUDA);
#endif
  PetscCall(PetscInfo(A, "%s factorization of a MATSEQELLWARP with the %s backend and no solver type: %s\n", MatFactorTypes[ftype], MatEllwarpBackends[e->backend], *dev ? "cuSPARSE's (MATSOLVERCUSPARSE, as for AIJCUSPARSE; -pc_factor_mat_solver_type petsc for PETSc's on the host)" : "PETSc's"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqELLWARP_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool dev;

  PetscFunctionBegin;
  PetscCall(DefaultFactorOnDevice(A, ftype, &dev));
  if (dev) PetscCall(GetFactor(A, ftype, MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, F));
  else PetscCall(GetFactor(A, ftype, MATSOLVERPETSC, MATSEQAIJ, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_SeqELLWARP_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(GetFactor(A, ftype, MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An explicit solver type (-pc_factor_mat_solver_type petsc, and PCFACTOR's own second set-up: after its first it
   records the factor's type, "petsc" for the host backend's default, and asks for it by name when the pattern
   changes or after PCReset, as SNES's convergence estimate and each new mesh level do): MatSolverTypeGet() takes
   the first registration of that solver whose matrix type begins ours, "seqaij", so SeqAIJ's factory got a
   MATSEQELLWARP directly.  Its ILU(0) duplicates A into the factor with A's composed functions, which a MATSEQAIJ
   never removes (PETSc's tests run with -checkfunctionlist: snes/tutorials ex13 and ex17 -snes_convergence_estimate
   failed so).  The "seqaij" entry of "petsc" is therefore this dispatcher: a MATSEQELLWARP gets this type's host
   factorization (GetFactor: values synchronised, composed functions removed), every other matrix SeqAIJ's own factory,
   unchanged.  (The fix in PETSc would be for MatSolverTypeGet() to prefer an exact matrix type over a prefix, as
   MatGetFactor() without a type already does.) */
static PetscErrorCode SeqAIJPetscDispatch(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool ell;

  PetscFunctionBegin;
  PetscCheck(ftype >= MAT_FACTOR_LU && ftype <= MAT_FACTOR_ICC && SeqAIJPetscFactory[ftype], PETSC_COMM_SELF, PETSC_ERR_PLIB, "No saved SeqAIJ factory for factor type %s", MatFactorTypes[ftype]);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQELLWARP, &ell));
  if (ell) {
    PetscCall(PetscInfo(A, "%s factorization of a MATSEQELLWARP with solver type petsc (given by name): PETSc's, on the host\n", MatFactorTypes[ftype]));
    PetscCall(GetFactor(A, ftype, MATSOLVERPETSC, MATSEQAIJ, F));
  } else PetscCall((*SeqAIJPetscFactory[ftype])(A, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPRegisterFactors(void)
{
  PetscFunctionBegin;
  for (MatFactorType t = MAT_FACTOR_LU; t <= MAT_FACTOR_ICC; t = (MatFactorType)(t + 1)) {
    MatSolverFn *f = NULL;
    PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, t, NULL, NULL, &f));
    if (!f || f == SeqAIJPetscDispatch) continue; /* none to wrap, or registered already */
    SeqAIJPetscFactory[t] = f;
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQAIJ, t, SeqAIJPetscDispatch));
  }
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_LU, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_ILU, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_CHOLESKY, MatGetFactor_SeqELLWARP_PETSc));
  PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQELLWARP, MAT_FACTOR_ICC, MatGetFactor_SeqELLWARP_PETSc));
  /* MatGetFactor() with no solver type reaches the "petsc" entry first (PETSc registered that solver first): it
     chooses by the backend (DefaultFactorOnDevice) */
  for (MatFactorType t = MAT_FACTOR_LU; t <= MAT_FACTOR_ICC; t = (MatFactorType)(t + 1)) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, MATSEQELLWARP, t, MatGetFactor_SeqELLWARP_CUSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
