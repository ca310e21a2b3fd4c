/* Direct access to the ELL-WARP value slots (MatSeqELLWARPGetSlotValues/RestoreSlotValues): the DM
   assembler's reduction writes every slot in slot order, so the layout is filled with no CSR intermediate
   and no refresh (the "no reorder pass" of Wong, Kuhl, Darve, section 9). */
#include <petscellwarp/private/matellwarpimpl.h>

PetscErrorCode MatSeqELLWARPGetSlotValues(Mat A, PetscScalar **val, PetscMemType *mtype, PetscCount *nslots, const PetscInt **slot2csr, const void **layoutkey)
{
  Mat_SeqELLWARP *e;
  PetscBool       isell;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQELLWARP, &isell));
  PetscCheck(isell, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatSeqELLWARPGetSlotValues() needs a MATSEQELLWARP, got %s", ((PetscObject)A)->type_name);
  if (!A->assembled) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatSeqELLWARPSyncLayout(A));
  e = (Mat_SeqELLWARP *)A->spptr;
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) {
    *val = EllwarpHostStoreValues(e->S);
    if (mtype) *mtype = PETSC_MEMTYPE_HOST;
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    *val = EllwarpCUDAStoreValues(e->S);
    if (mtype) *mtype = PETSC_MEMTYPE_DEVICE;
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATSEQELLWARP: cuda backend without CUDA");
#endif
  }
  if (nslots) *nslots = e->L->nslots;
  if (slot2csr) { /* the assembler builds its plan on the host once per pattern: a device analysis left the map there */
    PetscCall(MatSeqELLWARPLayoutOnHost(A));
    *slot2csr = e->L->slot2csr;
  }
  if (layoutkey) *layoutkey = (const void *)e->L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPRestoreSlotValues(Mat A, PetscScalar **val)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  e->ltcurrent   = PETSC_FALSE;
  A->offloadmask = PETSC_OFFLOAD_GPU; /* the layout holds the values; the host CSR follows on demand */
  *val           = NULL;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
