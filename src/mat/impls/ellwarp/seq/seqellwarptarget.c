/* MatGetAssemblyTarget() for MATSEQELLWARP (composed "MatGetAssemblyTarget_C"): the DM assembler writes the
   layout's value slots directly, in slot order, with no CSR intermediate and no refresh (the "no reorder pass"
   of Wong, Kuhl, Darve, section 9).  The slot of each CSR entry is the inverse of the layout's slot2csr, kept
   with the matrix while the layout lives; the target's key is the layout's state (a new one at every analysis:
   MatEllwarpSetKernel, a new backend, new options, a new nonzero state). */
#include <petscellwarp/private/matellwarpimpl.h>
#include <petscellwarp/private/matassemblytargetimpl.h>

typedef struct {
  PetscObjectState layoutstate; /* the layout csr2val was made for */
  PetscInt        *csr2val;
} SlotMap;

static PetscErrorCode SlotMapDestroy(PetscCtxRt ctx)
{
  SlotMap *s = *(SlotMap **)ctx;

  PetscFunctionBegin;
  if (s) PetscCall(PetscFree(s->csr2val));
  PetscCall(PetscFree(*(void **)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreSeqELLWARP(Mat A, MatAssemblyTarget *t)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  (void)t;
  e->ltcurrent   = PETSC_FALSE;
  e->valversion++;
  A->offloadmask = PETSC_OFFLOAD_GPU; /* the layout holds the values; the host CSR follows on demand */
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scalar layout's value array and slot -> CSR map (s2c may be NULL) in the backend's memory: for the writers of
   the slots (the DM assembler through MatGetAssemblyTarget) and the blocked layout's refresh (seqellwarpblock.c) */
PetscErrorCode MatSeqELLWARPStoreArrays(Mat A, PetscScalar **val, const PetscInt **s2c)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) {
    *val = EllwarpHostStoreValues(e->S);
    if (s2c) *s2c = EllwarpHostStoreSlot2CSR(e->S);
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    *val = EllwarpCUDAStoreValues(e->S);
    if (s2c) *s2c = EllwarpCUDAStoreSlot2CSR(e->S);
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATSEQELLWARP: cuda backend without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode MatGetAssemblyTarget_SeqELLWARP(Mat A, PetscMemType mtype, MatAssemblyTarget *t)
{
  Mat_SeqELLWARP   *e;
  Mat_SeqAIJ       *a = (Mat_SeqAIJ *)A->data;
  MatAssemblyBlock *b = &t->block[0];
  SlotMap          *map;
  EllwarpLayout    *L;
  PetscMemType      have;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(A));
  e    = (Mat_SeqELLWARP *)A->spptr;
  L    = e->L;
  have = e->backend == MAT_ELLWARP_BACKEND_HOST ? PETSC_MEMTYPE_HOST : PETSC_MEMTYPE_DEVICE;
  PetscCheck(PetscMemTypeHost(mtype) == PetscMemTypeHost(have), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MatGetAssemblyTarget: the caller writes the values on the %s but this MATSEQELLWARP (backend %s) holds them on the %s; use -mat_ellwarp_backend %s", PetscMemTypeHost(mtype) ? "host" : "device", MatEllwarpBackends[e->backend],
             PetscMemTypeHost(have) ? "host" : "device", PetscMemTypeHost(mtype) ? "host" : "cuda");
  /* the pattern and slice pointers on the host (a device analysis left them on the device: downloaded once per layout) */
  PetscCall(MatSeqELLWARPLayoutOnHost(A));
  PetscCall(PetscObjectContainerQuery((PetscObject)A, "MatAssemblyTargetSlotMap_private", &map));
  if (!map) {
    PetscCall(PetscNew(&map));
    PetscCall(PetscObjectContainerCompose((PetscObject)A, "MatAssemblyTargetSlotMap_private", map, SlotMapDestroy));
  }
  if (!map->csr2val || map->layoutstate != e->layoutstate) {
    PetscCall(PetscFree(map->csr2val));
    PetscCall(PetscMalloc1(L->nnz + 1, &map->csr2val));
    for (PetscCount k = 0; k < L->nnz; k++) map->csr2val[k] = -1;
    for (PetscCount s = 0; s < L->nslots; s++)
      if (L->slot2csr[s] >= 0) map->csr2val[L->slot2csr[s]] = (PetscInt)s;
    for (PetscCount k = 0; k < L->nnz; k++) PetscCheck(map->csr2val[k] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP: CSR entry %" PetscCount_FMT " has no slot in the layout", k);
    map->layoutstate = e->layoutstate;
  }
  PetscCheck(L->sliceptr[L->nslices] == L->nsliceslots && L->nnz == a->i[A->rmap->n], PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP: the layout does not match the matrix");
  b->m           = A->rmap->n;
  b->n           = A->cmap->n;
  b->i           = a->i;
  b->j           = a->j;
  b->csr2val     = map->csr2val;
  b->nval        = L->nslots;
  b->mtype       = have;
  b->sliceheight = ELLWARP_LANES;
  b->nslices     = L->nslices;
  b->sliceptr    = L->sliceptr;
  PetscCall(MatSeqELLWARPStoreArrays(A, &b->val, NULL));
  t->key[0]  = e->layoutstate;
  t->restore = RestoreSeqELLWARP;
  PetscFunctionReturn(PETSC_SUCCESS);
}
