/* MatAXPY (and so MatAYPX) with a MATSEQELLWARP operand and an operand of another AIJ type, or two MATSEQELLWARP
   matrices whose layouts are not slot-for-slot the same.

   Why this exists.  PETSc's MatAXPY() (src/mat/utils/axpy.c) calls Y's axpy op only when X and Y have the same type
   or the same axpy op; otherwise it runs MatAXPY_Basic(): a host loop of MatGetRow(X) / MatSetValues(Y) and a
   MatAssemblyEnd(Y).  PCGAMG's prolongator smoothing (agg.c, PCGAMGOptProlongator_AGG) is
       tMat = Amat Prol0 (MatMatMult);  MatDiagonalScale(tMat);  MatAYPX(tMat, alpha, Prol0, SUBSET_NONZERO_PATTERN)
   where Prol0 takes the operator's type (MATSEQELLWARP) and tMat is our product's result (AIJCUSPARSE, on the
   device: seqellwarpproduct.c).  Different types: the smoothing ran as MatAXPY_Basic over every fine row on the
   host, with tMat's values downloaded and uploaded again (H100, ksp ex45 128^3: MatAXPY 0.25 s, against 0.08 s
   for AIJCUSPARSE's own cuSPARSE csrgeam when Prol0 is AIJCUSPARSE too).

   What is done, without changing PETSc:
   - The AIJ-family results of our products (AB, AtB, ABt: an operator applied to an operand, the usual partner of
     a MatAXPY with that operand) get MATSEQELLWARP's axpy op, their own kept in a table by type (one axpy op per
     type; not a composed function: PETSc's -checkfunctionlist, on in its test harness, reports a composed function
     that the type's destroy does not remove, and a duplicate would inherit it).  MatAXPY() then finds equal axpy
     ops and calls us for (result, ELLWARP) pairs.
     Galerkin results (PtAP, RARt, ABC) keep their own op: they become operators of their own (PCGAMG's coarse
     levels), which PETSc's AIJCUSPARSE code pairs with plain AIJCUSPARSE matrices.
   - Device: Y an AIJCUSPARSE result, X a MATSEQELLWARP of the cuda backend: X gets an AIJCUSPARSE shadow sharing
     its host CSR (a new one, uploaded once as AIJCUSPARSE uploads its own prolongator; not kept:
     seqellwarpproduct.c) and AIJCUSPARSE's own axpy runs on (Y, shadow) with Y's own op in place: the same cuSPARSE csrgeam (SUBSET),
     AXPY kernel (SAME) or host merge (DIFFERENT) as with two AIJCUSPARSE operands, so the same numbers as the
     aijcusparse run.  Neither operand is ELL-WARP-analysed.
   - Host (host backend, matrices bound to the CPU, two MATSEQELLWARP of different layouts): SUBSET_NONZERO_PATTERN
     runs as one merge of the two CSR rows per row on the host arrays (y[k] += a x[p], the sum MatAXPY_Basic's
     MatSetValues(ADD_VALUES) makes, with no search per entry and no assembly); SeqAIJ's own MatAXPY for the others
     (SAME: BLAS axpy on the arrays; DIFFERENT: the union pattern, a new matrix).  A SUBSET claim that is false
     (an entry of X outside Y's pattern) is not an error in PETSc (MatAXPY_Basic inserts the entry): it runs as
     DIFFERENT_NONZERO_PATTERN, which gives that result, and says so in -info.
   Limit: PETSc's AIJCUSPARSE axpy, called with a plain AIJCUSPARSE Y and one of these results as X, sees different
   ops and runs SeqAIJ's host axpy (correct, on the host); no PETSc path makes that pair.
   Logged as the event EllwarpAXPYMixed (inside MatAXPY). */
#include <petscellwarp/private/matellwarpaxpy.h>

typedef PetscErrorCode (*AXPYFn)(Mat, PetscScalar, Mat, MatStructure);

static PetscLogEvent AXPYEvent = 0;

/* the own axpy op of each type whose product results got ours: AIJCUSPARSE's and SeqAIJ's in practice */
#define NATIVE_MAX 8
static struct {
  char   type[64];
  AXPYFn axpy;
} Native[NATIVE_MAX];
static int nNative = 0;

static PetscErrorCode GetNative(Mat M, AXPYFn *f)
{
  PetscBool same;

  PetscFunctionBegin;
  *f = NULL;
  for (int i = 0; i < nNative && !*f; i++) {
    PetscCall(PetscStrcmp(Native[i].type, ((PetscObject)M)->type_name, &same));
    if (same) *f = Native[i].axpy;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetNative(Mat M)
{
  AXPYFn f;

  PetscFunctionBegin;
  PetscCall(GetNative(M, &f));
  if (f) {
    PetscCheck(f == M->ops->axpy, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatAXPY: two matrices of type %s with different axpy ops", ((PetscObject)M)->type_name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(nNative < NATIVE_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatAXPY: more than %d product result types", NATIVE_MAX);
  PetscCall(PetscStrncpy(Native[nNative].type, ((PetscObject)M)->type_name, sizeof(Native[nNative].type)));
  Native[nNative++].axpy = M->ops->axpy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M is not MATSEQELLWARP but carries MATSEQELLWARP's axpy op (a product result) */
static PetscErrorCode IsPartner(Mat M, PetscBool *flg)
{
  PetscBool isell;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQELLWARP, &isell));
  *flg = (PetscBool)(!isell && M->ops->axpy == MatAXPY_SeqELLWARP);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPSetAXPYPartner_Private(Mat C)
{
  PetscBool isell, isaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQELLWARP, &isell));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)C, MATSEQAIJ, &isaij));
  if (isell || !isaij || !C->ops->axpy || C->ops->axpy == MatAXPY_SeqELLWARP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SetNative(C));
  C->ops->axpy = MatAXPY_SeqELLWARP;
  PetscCall(PetscInfo(C, "Product result (%s): MatAXPY with a MATSEQELLWARP operand runs in %s's own axpy (seqellwarpaxpy.c), not in MatAXPY_Basic\n", ((PetscObject)C)->type_name, ((PetscObject)C)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y's own axpy op on (Y, X), with the ops both had before they got ours: AIJCUSPARSE's axpy takes its device
   route only when X and Y have the same op */
static PetscErrorCode CallNative(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  AXPYFn         ny, nx = NULL;
  PetscBool      xp;
  PetscErrorCode ierr;
  const void    *data = Y->data;

  PetscFunctionBegin;
  PetscCall(GetNative(Y, &ny));
  PetscCheck(ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatAXPY: %s matrix with MATSEQELLWARP's axpy op but no own axpy recorded", ((PetscObject)Y)->type_name);
  PetscCall(IsPartner(X, &xp));
  if (xp) PetscCall(GetNative(X, &nx));
  Y->ops->axpy = ny;
  if (nx) X->ops->axpy = nx;
  ierr = (*ny)(Y, a, X, str);
  if (nx) X->ops->axpy = MatAXPY_SeqELLWARP;
  /* a DIFFERENT pattern merges a new matrix into Y's header (MatHeaderMerge: new data and ops): Y is then no
     product result any more and keeps its own op; otherwise ours goes back */
  if (Y->data == data && Y->ops->axpy == ny) Y->ops->axpy = MatAXPY_SeqELLWARP;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X on the host CSR arrays when X's pattern is a subset of Y's (rows sorted, as after any assembly);
   *ok false, Y untouched, when it is not */
static PetscErrorCode SubsetHost(Mat Y, PetscScalar a, Mat X, PetscBool *ok)
{
  const Mat_SeqAIJ  *x = (const Mat_SeqAIJ *)X->data, *y = (const Mat_SeqAIJ *)Y->data;
  const PetscInt     m = Y->rmap->n;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  for (PetscInt i = 0; i < m && *ok; i++) {
    PetscInt k = y->i[i], ke = y->i[i + 1];

    for (PetscInt p = x->i[i]; p < x->i[i + 1]; p++, k++) {
      while (k < ke && y->j[k] < x->j[p]) k++;
      if (k == ke || y->j[k] != x->j[p]) {
        *ok = PETSC_FALSE;
        break;
      }
    }
  }
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetArrayRead(X, &xa)); /* brings the host values up to date (layout, device) */
  PetscCall(MatSeqAIJGetArray(Y, &ya));     /* ... and marks Y's host values the newest */
  for (PetscInt i = 0; i < m; i++) {
    PetscInt k = y->i[i];

    for (PetscInt p = x->i[i]; p < x->i[i + 1]; p++, k++) {
      const PetscScalar v = a * xa[p]; /* the value MatAXPY_Basic adds (a == 1: xa[p] itself) */

      while (y->j[k] < x->j[p]) k++;
      ya[k] += v;
    }
  }
  PetscCall(MatSeqAIJRestoreArray(Y, &ya));
  PetscCall(MatSeqAIJRestoreArrayRead(X, &xa));
  PetscCall(PetscLogFlops(2.0 * x->nz));
  PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IsDeviceEllwarp(Mat X, PetscBool *flg)
{
  PetscBool isell;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &isell));
  if (isell && !X->boundtocpu) *flg = (PetscBool)(((Mat_SeqELLWARP *)X->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AXPYMixed(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscBool yell, xell, ok;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQELLWARP, &yell));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &xell));
  if (!yell) { /* Y: an AIJ-family product result that carries our op (MatSeqELLWARPSetAXPYPartner_Private) */
    PetscBool ycusp, xcusp, xdev;

    PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQAIJCUSPARSE, &ycusp));
    PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &xcusp));
    PetscCall(IsDeviceEllwarp(X, &xdev));
    if (ycusp && !Y->boundtocpu && (xdev || (xcusp && !X->boundtocpu))) {
      Mat Xs = X;

      if (xell) PetscCall(MatSeqELLWARPCreateShadow_Private(X, &Xs));
      PetscCall(PetscInfo(Y, "MatAXPY (%s) of %s and %s: AIJCUSPARSE's own axpy on the device%s\n", MatStructures[str], ((PetscObject)Y)->type_name, ((PetscObject)X)->type_name, xell ? " with an AIJCUSPARSE shadow of X (X's CSR, not analysed)" : ""));
      PetscCall(CallNative(Y, a, Xs, str));
      if (xell) PetscCall(MatDestroy(&Xs));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (str == DIFFERENT_NONZERO_PATTERN || str == UNKNOWN_NONZERO_PATTERN) { /* equal patterns: SAME (BLAS axpy), not a new matrix */
    const Mat_SeqAIJ *x = (const Mat_SeqAIJ *)X->data, *y = (const Mat_SeqAIJ *)Y->data;
    PetscBool         eq = (PetscBool)(x->nz == y->nz);

    if (eq) PetscCall(PetscArraycmp(x->i, y->i, Y->rmap->n + 1, &eq));
    if (eq) PetscCall(PetscArraycmp(x->j, y->j, y->nz, &eq));
    if (eq) str = SAME_NONZERO_PATTERN;
  }
  if (str == SUBSET_NONZERO_PATTERN) {
    PetscCall(SubsetHost(Y, a, X, &ok));
    if (ok) {
      PetscCall(PetscInfo(Y, "MatAXPY (SUBSET_NONZERO_PATTERN) of %s and %s: one merge of the CSR rows on the host\n", ((PetscObject)Y)->type_name, ((PetscObject)X)->type_name));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscInfo(Y, "MatAXPY: SUBSET_NONZERO_PATTERN given but X has entries outside Y's pattern: run as DIFFERENT_NONZERO_PATTERN (the union, as MatAXPY_Basic would insert them)\n"));
    str = DIFFERENT_NONZERO_PATTERN;
  }
  PetscCall(PetscInfo(Y, "MatAXPY (%s) of %s and %s: SeqAIJ's axpy on the host\n", MatStructures[str], ((PetscObject)Y)->type_name, ((PetscObject)X)->type_name));
  if (xell) PetscCall(MatSeqELLWARPSyncHost(X));
  if (yell) {
    PetscCall(MatSeqELLWARPSyncHost(Y));
    PetscCall((*((Mat_SeqELLWARP *)Y->spptr)->aijops.axpy)(Y, a, X, str));
    Y->offloadmask = PETSC_OFFLOAD_CPU;
  } else PetscCall(CallNative(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPAXPYMixed_Private(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  if (!AXPYEvent) PetscCall(PetscLogEventRegister("EllwarpAXPYMixed", MAT_CLASSID, &AXPYEvent));
  PetscCall(PetscLogEventBegin(AXPYEvent, Y, X, 0, 0));
  PetscCall(AXPYMixed(Y, a, X, str));
  PetscCall(PetscLogEventEnd(AXPYEvent, Y, X, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
