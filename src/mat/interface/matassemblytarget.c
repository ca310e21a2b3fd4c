/* MatGetAssemblyTarget(): a matrix tells a writer of all its values (the DM assembler) its pattern, where each
   entry's value lives and the value array, with a state that changes whenever that map can change.

   Dispatch: a composed "MatGetAssemblyTarget_C" (MATSEQELLWARP), else the implementations here, written on
   PETSc's public API only: MATSEQAIJ / MATSEQAIJCUSPARSE (CSR order, MatGetRowIJ and the value arrays) and
   the MATMPIAIJ family (MatMPIAIJGetSeqAIJ: each block through its own target).  Each implementation fills
   t->key with what identifies its map (its own counters); the state is then drawn from one global counter
   whenever the implementation or the key differs from the matrix's last one, so equal (matrix id, state)
   always means the same map. */
#include <petscellwarp/private/matassemblytargetimpl.h>
#include <petsc/private/petscimpl.h> /* PetscValidHeaderSpecific, PetscObjectStateIncrease: the generic object header, no Mat internals */

static PetscObjectState TargetStates = 0;

static inline const char *TypeName(Mat A)
{
  MatType t = NULL;
  (void)MatGetType(A, &t);
  return t ? t : "(no type)";
}

PetscObjectState MatAssemblyTargetNewState(void)
{
  return ++TargetStates;
}

typedef struct {
  PetscErrorCode (*impl)(Mat, PetscMemType, MatAssemblyTarget *);
  PetscObjectState key[3], state;
} StateRecord;

/* t->state from the matrix's record of its last implementation and key */
static PetscErrorCode SetState(Mat A, MatAssemblyTarget *t)
{
  StateRecord *r;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, "MatAssemblyTargetState_private", &r));
  if (!r) {
    PetscCall(PetscNew(&r));
    PetscCall(PetscObjectContainerCompose((PetscObject)A, "MatAssemblyTargetState_private", r, PetscCtxDestroyDefault));
  }
  if (!r->state || r->impl != t->impl || r->key[0] != t->key[0] || r->key[1] != t->key[1] || r->key[2] != t->key[2]) {
    r->impl = t->impl;
    for (int k = 0; k < 3; k++) r->key[k] = t->key[k];
    r->state = MatAssemblyTargetNewState();
  }
  t->state = r->state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- MATSEQAIJ, MATSEQAIJCUSPARSE: the values in CSR order ------------------------------------------- */
static PetscErrorCode RestoreSeqAIJ(Mat A, MatAssemblyTarget *t)
{
  PetscInt  m;
  PetscBool done;

  PetscFunctionBegin;
  if (t->block[0].mtype == PETSC_MEMTYPE_HOST) PetscCall(MatSeqAIJRestoreArrayWrite(A, &t->block[0].val));
#if defined(ELLWARP_HAVE_CUDA)
  else PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(A, &t->block[0].val));
#endif
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &t->block[0].i, &t->block[0].j, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetSeqAIJ(Mat A, PetscMemType mtype, MatAssemblyTarget *t)
{
  MatAssemblyBlock *b = &t->block[0];
  PetscBool         iscusp, done;
  PetscObjectState  nz;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &iscusp));
  PetscCheck(PetscMemTypeHost(mtype) || iscusp, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MatGetAssemblyTarget: a %s matrix holds its values on the host, the caller writes them on the device; use a device matrix type (aijcusparse, ellwarp)", TypeName(A));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &b->m, &b->i, &b->j, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetAssemblyTarget: MatGetRowIJ() failed on a %s matrix", TypeName(A));
  PetscCall(MatGetLocalSize(A, NULL, &b->n));
  b->nval    = b->i[b->m];
  b->csr2val = NULL;
  if (PetscMemTypeHost(mtype)) {
    b->mtype = PETSC_MEMTYPE_HOST;
    PetscCall(MatSeqAIJGetArrayWrite(A, &b->val));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    const PetscScalar *v;
    /* the device CSR must exist before a write-only access: a read brings it there (a no-op when current) */
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &v));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &v));
    b->mtype = PETSC_MEMTYPE_DEVICE;
    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(A, &b->val));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MatGetAssemblyTarget: device values requested from a build without CUDA");
#endif
  }
  PetscCall(MatGetNonzeroState(A, &nz));
  t->key[0]  = nz;
  t->restore = RestoreSeqAIJ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the MATMPIAIJ family: the diagonal and off-diagonal blocks, each through its own target ------------ */
static PetscErrorCode RestoreMPIAIJ(Mat A, MatAssemblyTarget *t)
{
  PetscFunctionBegin;
  for (int b = 0; b < 2; b++) PetscCall(MatRestoreAssemblyTarget(t->sub[b], &t->subt[b]));
  PetscCall(PetscFree(t->subt));
  /* the blocks' values changed in place (pattern and communication plan unchanged): A is still assembled, its
     new state tells KSP/PC that the operator changed */
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetMPIAIJ(Mat A, PetscMemType mtype, MatAssemblyTarget *t)
{
  PetscObjectState nz;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &t->sub[0], &t->sub[1], &t->garray));
  PetscCall(PetscCalloc1(2, &t->subt));
  for (int b = 0; b < 2; b++) {
    PetscCall(MatGetAssemblyTarget(t->sub[b], mtype, &t->subt[b]));
    t->block[b] = t->subt[b].block[0];
    t->key[b]   = t->subt[b].state;
  }
  PetscCall(MatGetOwnershipRange(A, &t->rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &t->cstart, &t->cend));
  PetscCall(MatGetNonzeroState(A, &nz)); /* garray */
  t->key[2]  = nz;
  t->nblocks = 2;
  t->restore = RestoreMPIAIJ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the implementation for A, or NULL */
static PetscErrorCode FindImpl(Mat A, PetscErrorCode (**impl)(Mat, PetscMemType, MatAssemblyTarget *))
{
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatGetAssemblyTarget_C", impl));
  if (*impl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  if (flg) {
    *impl = GetSeqAIJ;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrbeginswith(TypeName(A), MATMPIAIJ, &flg)); /* what MatMPIAIJGetSeqAIJ() accepts */
  if (flg) {
    Mat Ad, Ao;
    PetscErrorCode (*bi)(Mat, PetscMemType, MatAssemblyTarget *);

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    if (!Ad || !Ao) PetscFunctionReturn(PETSC_SUCCESS); /* not preallocated */
    PetscCall(FindImpl(Ad, &bi));
    if (!bi) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(FindImpl(Ao, &bi));
    if (!bi) PetscFunctionReturn(PETSC_SUCCESS);
    *impl = GetMPIAIJ;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EnsureAssembled(Mat A)
{
  PetscBool assembled;

  PetscFunctionBegin;
  PetscCall(MatAssembled(A, &assembled));
  if (!assembled) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatHasAssemblyTarget - Whether `MatGetAssemblyTarget()` is available for a matrix

  Collective if `A` is not assembled (it is assembled first)

  Input Parameter:
. A - the matrix

  Output Parameter:
. has - `PETSC_TRUE` if `A` implements `MatGetAssemblyTarget()`; otherwise a writer uses `MatSetPreallocationCOO()` and `MatSetValuesCOO()`

  Level: developer

.seealso: [](ch_matrices), `Mat`, `MatGetAssemblyTarget()`, `MatSetValuesCOO()`
@*/
PetscErrorCode MatHasAssemblyTarget(Mat A, PetscBool *has)
{
  PetscErrorCode (*impl)(Mat, PetscMemType, MatAssemblyTarget *);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(has, 2);
  PetscCall(EnsureAssembled(A));
  PetscCall(FindImpl(A, &impl));
  *has = (PetscBool)(impl != NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGetAssemblyTarget - Gives a writer of all of a matrix's values, for each local block, the CSR pattern, the
  value slot of each CSR entry and write access to the value array, with a state that changes whenever that map
  can change

  Collective if `A` is not assembled (it is assembled first)

  Input Parameters:
+ A     - the matrix, assembled or at least preallocated (its pattern is the one the writer fills)
- mtype - where the writer writes: `PETSC_MEMTYPE_HOST` or `PETSC_MEMTYPE_DEVICE`

  Output Parameter:
. t - the target: `t->nblocks` blocks `t->block[]` (pattern, `csr2val` map, values in `mtype` memory) and `t->state`

  Level: developer

  Notes:
  Every value the writer does not write keeps its old value; the writer usually writes all of them.  The values
  are the matrix's current ones after `MatRestoreAssemblyTarget()`, which also increases the matrix's object state.

  A writer keeps what it derives from `t` (the position of each of its entries among the value slots) keyed on
  the matrix's `PetscObjectId` and `t->state`, and rebuilds it when either changes: the same pattern can be
  stored in a new order (`MatEllwarpSetKernel()`, a re-analysis, a new backend) at the same nonzero state.

  Errors if the values cannot be given in `mtype` memory (a host-only matrix type for a device writer, a
  `MATELLWARP` matrix whose backend holds them elsewhere) or if `A` does not implement it (`MatHasAssemblyTarget()`).

  Implemented by `MATSEQELLWARP` (value slots of its layout), `MATSEQAIJ` and `MATSEQAIJCUSPARSE` (CSR order) and,
  block by block, by every `MATMPIAIJ`-family matrix whose blocks implement it (`MATMPIAIJ`, `MATMPIAIJCUSPARSE`,
  `MATMPIELLWARP`).  A new type implements it by composing "MatGetAssemblyTarget_C",
  `PetscErrorCode f(Mat, PetscMemType, MatAssemblyTarget *)`, which fills the blocks, `t->key` (whatever
  identifies its map) and `t->restore`.

.seealso: [](ch_matrices), `Mat`, `MatAssemblyTarget`, `MatRestoreAssemblyTarget()`, `MatHasAssemblyTarget()`, `MatSetValuesCOO()`
@*/
PetscErrorCode MatGetAssemblyTarget(Mat A, PetscMemType mtype, MatAssemblyTarget *t)
{
  PetscErrorCode (*impl)(Mat, PetscMemType, MatAssemblyTarget *);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(t, 3);
  PetscCall(EnsureAssembled(A));
  PetscCall(FindImpl(A, &impl));
  PetscCheck(impl, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MatGetAssemblyTarget: not implemented for a %s matrix; use MatSetPreallocationCOO() and MatSetValuesCOO()", TypeName(A));
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->nblocks = 1;
  t->impl    = impl;
  t->req     = mtype;
  PetscCall(MatGetOwnershipRange(A, &t->rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &t->cstart, &t->cend));
  PetscCall((*impl)(A, mtype, t));
  PetscCheck(t->restore, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetAssemblyTarget: the %s implementation set no restore", TypeName(A));
  PetscCall(SetState(A, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatRestoreAssemblyTarget - Ends the access of `MatGetAssemblyTarget()`: the values written are the matrix's

  Not Collective

  Input Parameters:
+ A - the matrix
- t - the target from `MatGetAssemblyTarget()`, invalid afterwards

  Level: developer

.seealso: [](ch_matrices), `Mat`, `MatGetAssemblyTarget()`
@*/
PetscErrorCode MatRestoreAssemblyTarget(Mat A, MatAssemblyTarget *t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(t, 2);
  PetscCheck(t->restore, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatRestoreAssemblyTarget: the target was not obtained with MatGetAssemblyTarget() or was already restored");
  PetscCall((*t->restore)(A, t));
  t->restore = NULL;
  for (int b = 0; b < 2; b++) t->block[b].val = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
