/* COO assembly into MATMPIELLWARP with off-rank entries (MatSetPreallocationCOO / MatSetValuesCOO).

   MPIAIJ's COO preallocation does the parallel analysis: it sends the off-rank (i, j) to their owners, splits
   local and received entries into the diagonal and off-diagonal blocks, builds both blocks (compacted B, the
   ghost scatter) and, per block nonzero, the lists of local entries (jmap1/perm1) and received entries
   (imap2/jmap2/perm2).  MPIAIJ's MatSetValuesCOO would then write host CSR arrays (Aa, Ba) -- with ELLWARP
   blocks that means a download, a host sum and a refresh of the whole layout each time, and no device values.
   Instead we merge the two lists into one plan per block over a work array w = [v | received] and hand it to
   the block's own COO kernel, which sums each slot's entries in a fixed order straight into the ELL-WARP
   layout (device or host).  The entries for other ranks travel through a PetscSF whose leaves are their
   positions in w, so the SF gathers them itself (on the device when w is there; staged through the host when
   the MPI is not GPU-aware). */
#include <petscellwarp/private/matmpiellwarpimpl.h>
#include <petscsf.h>
#include <petscdevice.h>

#define MPIE(A) ((Mat_MPIELLWARP *)((Mat_MPIAIJ *)(A)->data)->spptr)

PetscErrorCode MatMPIELLWARPCOODestroy(MatEllwarpMPICOO **c)
{
  PetscFunctionBegin;
  if (!*c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFDestroy(&(*c)->sf));
  if (PetscMemTypeHost((*c)->wmtype)) PetscCall(PetscFree((*c)->w));
#if defined(ELLWARP_HAVE_CUDA)
  else PetscCall(EllwarpMPICUDAFree(&(*c)->w));
#endif
  for (int b = 0; b < 2; b++) {
    PetscCall(PetscFree((*c)->jmap[b]));
    PetscCall(PetscFree((*c)->perm[b]));
  }
  PetscCall(PetscFree(*c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One plan per block: for each block nonzero, its local COO entries (w[perm1]) then those received from other
   ranks (w[n + perm2]), in MPIAIJ's order */
static PetscErrorCode BlockPlan(const MatCOOStruct_MPIAIJ *coo, int blk, PetscCount **jmap_, PetscCount **perm_, PetscCount *nperm)
{
  const PetscCount  nnz   = blk ? coo->Bnnz : coo->Annz, nnz2 = blk ? coo->Bnnz2 : coo->Annz2;
  const PetscCount *jmap1 = blk ? coo->Bjmap1 : coo->Ajmap1, *perm1 = blk ? coo->Bperm1 : coo->Aperm1;
  const PetscCount *imap2 = blk ? coo->Bimap2 : coo->Aimap2, *jmap2 = blk ? coo->Bjmap2 : coo->Ajmap2, *perm2 = blk ? coo->Bperm2 : coo->Aperm2;
  PetscCount       *jmap, *perm, *pos;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nnz + 1, &jmap));
  for (PetscCount i = 0; i < nnz; i++) jmap[i + 1] = jmap1[i + 1] - jmap1[i];
  for (PetscCount t = 0; t < nnz2; t++) jmap[imap2[t] + 1] += jmap2[t + 1] - jmap2[t];
  for (PetscCount i = 0; i < nnz; i++) jmap[i + 1] += jmap[i];
  PetscCall(PetscMalloc1(jmap[nnz], &perm));
  PetscCall(PetscMalloc1(nnz, &pos));
  PetscCall(PetscArraycpy(pos, jmap, nnz));
  for (PetscCount i = 0; i < nnz; i++)
    for (PetscCount k = jmap1[i]; k < jmap1[i + 1]; k++) perm[pos[i]++] = perm1[k];
  for (PetscCount t = 0; t < nnz2; t++)
    for (PetscCount k = jmap2[t]; k < jmap2[t + 1]; k++) perm[pos[imap2[t]]++] = coo->n + perm2[k];
  PetscCall(PetscFree(pos));
  *jmap_ = jmap;
  *perm_ = perm;
  *nperm = jmap[nnz];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Install block b's plan in its store (again after a new analysis of the block replaced the store) */
static PetscErrorCode InstallPlan(Mat blk, MatEllwarpMPICOO *c, int b)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)blk->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(blk));
  if (c->store[b] == e->S && c->nanalyses[b] == e->nanalyses) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(e->L->nnz == ((Mat_SeqAIJ *)blk->data)->nz && c->jmap[b], PETSC_COMM_SELF, PETSC_ERR_ORDER, "MATMPIELLWARP: the nonzero pattern changed since MatSetPreallocationCOO(); call it again");
  /* the store builds the slot-ordered plan from its own slot -> CSR map (on the device for the CUDA store) */
  PetscCall(e->k->coosetup(e->S, c->n + c->nrecv, c->nperm[b], c->jmap[b], c->perm[b]));
  e->coostore     = NULL; /* the block's own MatSetValuesCOO plan, if any, is gone */
  c->store[b]     = e->S;
  c->nanalyses[b] = e->nanalyses;
  PetscCall(PetscInfo(blk, "MATMPIELLWARP COO plan for the %s block: %" PetscCount_FMT " entries into %" PetscCount_FMT " nonzeros\n", b ? "off-diagonal" : "diagonal", c->nperm[b], e->L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Our plan (m->coo) from MPIAIJ's COO analysis composed on mat.  Called after MatSetPreallocationCOO(), and
   lazily at the first MatSetValuesCOO() of a matrix that carries the analysis without our plan: MatDuplicate()
   composes MPIAIJ's analysis on the duplicate (as PETSc does for every AIJ type), so a duplicate assembles by
   COO like its source. */
static PetscErrorCode BuildCOO(Mat mat)
{
  Mat_MPIELLWARP      *m = MPIE(mat);
  MatEllwarpMPICOO    *c;
  PetscContainer       container;
  MatCOOStruct_MPIAIJ *coo;
  PetscInt             nroots, nleaves, *ilocal2;
  const PetscInt      *ilocal;
  const PetscSFNode   *iremote;
  PetscSFNode         *iremote2;

  PetscFunctionBegin;
  PetscCall(MatMPIELLWARPCOODestroy(&m->coo));
  PetscCall(PetscObjectQuery((PetscObject)mat, "__PETSc_MatCOOStruct_Host", (PetscObject *)&container));
  PetscCheck(container, PetscObjectComm((PetscObject)mat), PETSC_ERR_ORDER, "MATMPIELLWARP: call MatSetPreallocationCOO() before MatSetValuesCOO()");
  PetscCall(PetscContainerGetPointer(container, &coo));

  PetscCall(PetscNew(&c));
  c->n     = coo->n;
  c->nrecv = coo->recvlen;
  for (int b = 0; b < 2; b++) PetscCall(BlockPlan(coo, b, &c->jmap[b], &c->perm[b], &c->nperm[b]));

  /* the outgoing entries: MPIAIJ packs sendbuf[p] = v[Cperm1[p]]; our leaves sit at w[Cperm1[p]] directly */
  PetscCall(PetscSFGetGraph(coo->sf, &nroots, &nleaves, &ilocal, &iremote));
  PetscCheck(nleaves == coo->sendlen && nroots == coo->recvlen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIAIJ's COO star forest has an unexpected shape");
  PetscCall(PetscMalloc1(nleaves, &ilocal2));
  PetscCall(PetscMalloc1(nleaves, &iremote2));
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt p = ilocal ? ilocal[l] : l;
    PetscCall(PetscIntCast(coo->Cperm1[p], &ilocal2[l]));
    iremote2[l] = iremote[l];
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)mat), &c->sf));
  PetscCall(PetscSFSetGraph(c->sf, nroots, nleaves, ilocal2, PETSC_OWN_POINTER, iremote2, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(c->sf));

  if (m->backend == MAT_ELLWARP_BACKEND_HOST) {
    c->wmtype = PETSC_MEMTYPE_HOST;
    PetscCall(PetscMalloc1(c->n + c->nrecv, &c->w));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    c->wmtype = PETSC_MEMTYPE_CUDA;
    PetscCall(EllwarpMPICUDAMalloc(c->n + c->nrecv, &c->w));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATMPIELLWARP: the cuda backend needs petsc-ellwarp built with CUDA");
#endif
  }
  m->coo = c;
  PetscCall(PetscInfo(mat, "COO: %" PetscCount_FMT " local entries, %" PetscInt_FMT " sent to other ranks, %" PetscCount_FMT " received\n", c->n, nleaves, c->nrecv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_MPIELLWARP(Mat mat, PetscCount coo_n, PetscInt coo_i[], PetscInt coo_j[])
{
  Mat_MPIELLWARP *m = MPIE(mat);

  PetscFunctionBegin;
  PetscCall(MatMPIELLWARPCOODestroy(&m->coo));
  PetscCall(m->aijcooprealloc(mat, coo_n, coo_i, coo_j)); /* blocks become the root type: seqaijellwarp */
  PetscCall(MatMPIELLWARPConfigureBlocks(mat));
  PetscCall(BuildCOO(mat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesCOO_MPIELLWARP(Mat mat, const PetscScalar v[], InsertMode imode)
{
  Mat_MPIAIJ       *a = (Mat_MPIAIJ *)mat->data;
  Mat_MPIELLWARP   *m = (Mat_MPIELLWARP *)a->spptr;
  MatEllwarpMPICOO *c;
  Mat               blk[2] = {a->A, a->B};
  PetscMemType      mtype;

  PetscFunctionBegin;
  if (!m->coo) PetscCall(BuildCOO(mat)); /* a duplicate carrying the COO analysis (or an error: no preallocation) */
  c = m->coo;
  if ((c->wmtype == PETSC_MEMTYPE_HOST) != (m->backend == MAT_ELLWARP_BACKEND_HOST)) { /* the backend moved: the work array follows */
    PetscCall(BuildCOO(mat));
    c = m->coo;
  }
  for (int b = 0; b < 2; b++) PetscCall(InstallPlan(blk[b], c, b));
  /* as in MatSetValuesCOO_SeqELLWARP: PetscGetMemType() needs PETSc's CUDA device initialized */
  if (m->backend == MAT_ELLWARP_BACKEND_CUDA) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscGetMemType(v, &mtype));
  if (c->wmtype == PETSC_MEMTYPE_HOST) {
    PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MATMPIELLWARP (host backend): MatSetValuesCOO() needs host values");
    if (c->n) PetscCall(PetscArraycpy(c->w, v, c->n));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(EllwarpMPICUDACopy(c->w, v, c->n, mtype));
#endif
  }
  /* off-rank entries to their owners, then each block sums its entries into its slots */
  PetscCall(PetscSFReduceWithMemTypeBegin(c->sf, MPIU_SCALAR, c->wmtype, c->w, c->wmtype, PetscSafePointerPlusOffset(c->w, c->n), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(c->sf, MPIU_SCALAR, c->w, PetscSafePointerPlusOffset(c->w, c->n), MPI_REPLACE));
  for (int b = 0; b < 2; b++) {
    Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)blk[b]->spptr;

    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Refresh, blk[b], 0, 0, 0));
    PetscCall(e->k->coovalues(e->S, c->w, c->wmtype, imode));
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Refresh, blk[b], 0, 0, 0));
    e->ltcurrent       = PETSC_FALSE;
    e->valversion++;
    blk[b]->offloadmask = PETSC_OFFLOAD_GPU; /* the layout holds the values; the host copy follows on demand */
  }
  mat->offloadmask = PETSC_OFFLOAD_GPU; /* keeps MPIAIJ's assembly from marking the blocks' host values newer */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIELLWARPSetCOOOps(Mat A)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", MatSetValuesCOO_MPIELLWARP));
  PetscFunctionReturn(PETSC_SUCCESS);
}
