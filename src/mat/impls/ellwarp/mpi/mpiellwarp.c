/* MATMPIELLWARP: MATELLWARP on several ranks.  A MATMPIAIJ whose diagonal block A and compacted off-diagonal
   block B (columns renumbered to the ghost values, as MPIAIJ builds them) are MATSEQELLWARP matrices; the
   MPIAIJ machinery (preallocation, MatSetValues with the stash, the ghost scatter Mvctx, ZeroRows,
   submatrices, PCBJACOBI's MatGetDiagonalBlock) works unchanged on top of them, since the blocks keep a
   complete host SeqAIJ and bring it up to date before any host access (MatSeqAIJGetArray included).

   MatMult starts the ghost exchange (a PetscSF behind VecScatter: device buffers when the MPI is GPU-aware,
   staged through the host otherwise), multiplies A while the ghosts travel, then adds B times the ghosts. */
#include <petscellwarp/private/matmpiellwarpimpl.h>
#include <petscellwarp/private/matellwarpcommon.h>

#define MPIE(A) ((Mat_MPIELLWARP *)((Mat_MPIAIJ *)(A)->data)->spptr)

static const char *const ComposedNames[] = {"MatConvert_mpiaijellwarp_mpiaij_C", "MatConvert_mpiaijellwarp_mpiaijcusparse_C", "MatConvert_mpiaij_mpiaijellwarp_C", "MatConvert_mpiaijcusparse_mpiaijellwarp_C", "MatEllwarpSetBackend_C", "MatEllwarpGetBackend_C", "MatEllwarpSetKernel_C", "MatEllwarpGetInfo_C", "MatProductSetFromOptions_anytype_C", "MatConvert_mpiaijellwarp_is_C"};

/* Which GPU this rank uses.  PETSc's device initialization picks (rank in PETSC_COMM_WORLD) % (visible
   devices), unless -device_select_cuda says otherwise; on one host that is round-robin by local rank. We
   check it against the local rank and say so in -info (and MatView). Collective. */
static PetscErrorCode DeviceCheck(Mat A)
{
  Mat_MPIELLWARP *m = MPIE(A);

  PetscFunctionBegin;
  if (m->backend != MAT_ELLWARP_BACKEND_CUDA || m->device >= 0) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(ELLWARP_HAVE_CUDA)
  {
    MPI_Comm    shm;
    PetscMPIInt lrank;

    PetscCallMPI(MPI_Comm_split_type(PetscObjectComm((PetscObject)A), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    PetscCallMPI(MPI_Comm_rank(shm, &lrank));
    PetscCallMPI(MPI_Comm_free(&shm));
    PetscCall(EllwarpMPICUDADevice(&m->device, &m->ndevices));
    m->localrank = lrank;
    PetscCall(PetscInfo(A, "local rank %d on its host: CUDA device %d of %d visible%s\n", lrank, m->device, m->ndevices,
                        m->ndevices > 0 && m->device != lrank % m->ndevices ? " (not round-robin by local rank: set CUDA_VISIBLE_DEVICES per rank or -device_select_cuda)" : " (round-robin by local rank)"));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make A and B MATSEQELLWARP in the matrix's backend, the ghost vector and the default vector type to match.
   Called after everything that (re)creates the blocks: preallocation, COO preallocation, assembly (MPIAIJ
   replaces B when a rank "disassembles" for new off-rank columns), duplication, conversion. */
PetscErrorCode MatMPIELLWARPConfigureBlocks(Mat A)
{
  Mat_MPIAIJ     *a   = (Mat_MPIAIJ *)A->data;
  Mat_MPIELLWARP *m   = (Mat_MPIELLWARP *)a->spptr;
  Mat            *blk[2] = {&a->A, &a->B};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    PetscBool         isell, isaij;
    MatEllwarpBackend b;

    if (!*blk[i]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)*blk[i], MATSEQELLWARP, &isell));
    if (!isell) {
      const char *prefix;

      PetscCall(PetscObjectTypeCompare((PetscObject)*blk[i], MATSEQAIJ, &isaij));
      PetscCheck(isaij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIELLWARP: block of type %s, expected seqaij or seqellwarp", ((PetscObject)*blk[i])->type_name);
      PetscCall(MatGetOptionsPrefix(A, &prefix));
      PetscCall(MatSetOptionsPrefix(*blk[i], prefix)); /* the blocks read -<prefix>mat_ellwarp_* themselves */
      PetscCall(MatConvert_SeqAIJ_SeqELLWARP(*blk[i], MATSEQELLWARP, MAT_INPLACE_MATRIX, blk[i]));
    }
    PetscCall(MatEllwarpGetBackend(*blk[i], &b));
    if (b != m->backend || m->backendset) PetscCall(MatEllwarpSetBackend(*blk[i], m->backend));
  }
  if (a->lvec) {
    VecType   want = m->backend == MAT_ELLWARP_BACKEND_CUDA ? VECSEQCUDA : VECSEQ;
    PetscBool same;

    PetscCall(PetscObjectTypeCompare((PetscObject)a->lvec, want, &same));
    if (!same) PetscCall(VecSetType(a->lvec, want));
  }
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(m->backend == MAT_ELLWARP_BACKEND_CUDA ? VECCUDA : VECSTANDARD, &A->defaultvectype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetBackend(Mat A, MatEllwarpBackend b, PetscBool set)
{
  Mat_MPIELLWARP *m = MPIE(A);

  PetscFunctionBegin;
  m->backend = b;
  if (set) m->backendset = PETSC_TRUE;
  PetscCall(DeviceCheck(A));
  PetscCall(MatMPIELLWARPConfigureBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_MPIELLWARP   *m = MPIE(A);
  MatEllwarpBackend b = m->backend;
  PetscBool         set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "MATMPIELLWARP options (the blocks read the other -mat_ellwarp_* options)");
  PetscCall(PetscOptionsEnum("-mat_ellwarp_backend", "Where the blocks' layouts live and the kernels run", "MatEllwarpSetBackend", MatEllwarpBackends, (PetscEnum)b, (PetscEnum *)&b, &set));
  PetscOptionsHeadEnd();
  if (set) PetscCall(SetBackend(A, b, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIELLWARP(Mat A, PetscOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  PetscCall(MPIE(A)->mpiaijops.setfromoptions(A, PetscOptionsObject));
  PetscCall(ReadOptions(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJSetPreallocation_MPIELLWARP(Mat B, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  PetscFunctionBegin;
  PetscCall(MPIE(B)->aijprealloc(B, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(MatMPIELLWARPConfigureBlocks(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIELLWARP(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall(MPIE(A)->mpiaijops.assemblyend(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MatMPIELLWARPConfigureBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckVec(Mat A, Vec v, const char *what)
{
  PetscBool dev;

  PetscFunctionBegin;
  if (MPIE(A)->backend == MAT_ELLWARP_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &dev, VECMPICUDA, VECSEQCUDA, VECCUDA, ""));
  PetscCheck(dev, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MATMPIELLWARP with the cuda backend needs device vectors (VECCUDA) for %s, got %s: create them with MatCreateVecs() or use -vec_type cuda / -dm_vec_type cuda (which a DM reads in DMSetFromOptions()), or keep host vectors with -mat_ellwarp_backend host", what, ((PetscObject)v)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A_d x + B_o x_ghost (+ z): ghosts travel while the diagonal block multiplies */
static PetscErrorCode MultAdd(Mat A, Vec xx, Vec zz, Vec yy)
{
  Mat_MPIAIJ *a = (Mat_MPIAIJ *)A->data;
  PetscInt    nt;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(xx, &nt));
  PetscCheck(nt == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Incompatible partition of A (%" PetscInt_FMT ") and xx (%" PetscInt_FMT ")", A->cmap->n, nt);
  PetscCall(CheckVec(A, xx, "x"));
  PetscCall(CheckVec(A, yy, "y"));
  PetscCall(VecScatterBegin(a->Mvctx, xx, a->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (zz) PetscUseTypeMethod(a->A, multadd, xx, zz, yy);
  else PetscUseTypeMethod(a->A, mult, xx, yy);
  PetscCall(VecScatterEnd(a->Mvctx, xx, a->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscUseTypeMethod(a->B, multadd, a->lvec, yy, yy);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIELLWARP(Mat A, Vec xx, Vec yy)
{
  PetscFunctionBegin;
  PetscCall(MultAdd(A, xx, NULL, yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIELLWARP(Mat A, Vec xx, Vec zz, Vec yy)
{
  PetscFunctionBegin;
  PetscCall(MultAdd(A, xx, zz, yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's MatShift inserts the shift entry by entry with MatSetValues (host); with congruent layouts every
   diagonal entry lies in the diagonal block, whose MatShift runs on the layout (a block missing diagonal
   entries inserts them on its host SeqAIJ and says so in -info: the pattern changes, so the state of the
   parallel pattern is recomputed) */
static PetscErrorCode MatShift_MPIELLWARP(Mat Y, PetscScalar s)
{
  Mat_MPIAIJ      *a = (Mat_MPIAIJ *)Y->data;
  PetscBool        cong, changed;
  PetscObjectState st;

  PetscFunctionBegin;
  PetscCall(MatHasCongruentLayouts(Y, &cong));
  if (!Y->assembled || !cong || !a->A) {
    PetscCall(MPIE(Y)->mpiaijops.shift(Y, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  st = a->A->nonzerostate;
  PetscCall(MatShift(a->A, s));
  changed = (PetscBool)(a->A->nonzerostate != st);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)Y)));
  if (changed) {
    Y->nonzerostate = a->A->nonzerostate + a->B->nonzerostate;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &Y->nonzerostate, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)Y)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIELLWARP(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJ       *a = (Mat_MPIAIJ *)A->data;
  Mat_MPIELLWARP   *m = (Mat_MPIELLWARP *)a->spptr;
  PetscBool         ascii;
  PetscViewerFormat format = PETSC_VIEWER_DEFAULT;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    PetscMPIInt    size, rank;
    MatEllwarpInfo ia, ib;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
    PetscCall(PetscViewerASCIIPrintf(viewer, "MATMPIELLWARP on %d ranks: diagonal block A and compacted off-diagonal block B per rank as MATSEQELLWARP, backend %s%s\n", size, MatEllwarpBackends[m->backend], (m->backend == MAT_ELLWARP_BACKEND_HOST && !m->backendset) ? " (no usable CUDA device)" : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ghost exchange: PetscSF %s; MatMult overlaps it with the product of A\n", m->backend == MAT_ELLWARP_BACKEND_HOST ? "on host buffers" : (use_gpu_aware_mpi ? "on device buffers (GPU-aware MPI)" : "staged through the host (MPI not GPU-aware)")));
    if (!A->assembled) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  not assembled yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatEllwarpGetInfo(a->A, &ia));
    PetscCall(MatEllwarpGetInfo(a->B, &ib));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    if (m->backend == MAT_ELLWARP_BACKEND_CUDA) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] CUDA device %d of %d (local rank %d)\n", rank, m->device, m->ndevices, m->localrank));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] rows [%" PetscInt_FMT ", %" PetscInt_FMT ") (%" PetscInt_FMT "), %" PetscInt_FMT " ghost columns\n", rank, A->rmap->rstart, A->rmap->rend, A->rmap->n, ib.ncols));
    for (int i = 0; i < 2; i++) {
      const MatEllwarpInfo *f = i ? &ib : &ia;
      PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] %s %" PetscInt_FMT " x %" PetscInt_FMT ": %" PetscCount_FMT " nonzeros, %" PetscInt_FMT " slices, padding %.3f, row length mean %.2f max %" PetscInt_FMT ", kernel %s threshold %" PetscInt_FMT ", sort window %" PetscInt_FMT ", %" PetscInt_FMT " 16-bit slices (%" PetscInt_FMT " with a bias per entry position), %" PetscInt_FMT " long rows, %.4g bytes/MatMult, analyses %" PetscInt_FMT ", refreshes %" PetscInt_FMT "\n", rank,
                                                   i ? "B (off-diagonal)" : "A (diagonal)", f->nrows, f->ncols, f->nnz, f->nslices, f->nnz ? (double)f->nslots / (double)f->nnz : 1.0, (double)f->meanrowlen, f->maxrowlen, MatEllwarpKernels[f->kernel], f->threshold, f->sortwindow, f->n16, f->nbias, f->nlong, f->bytes_mult, f->nanalyses, f->nrefreshes));
    }
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
    if (format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  }
  { /* MPIAIJ's viewers check for a type named mpiaij*: show a converted copy (values as they are now) */
    Mat C;

    PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall((*C->ops->view)(C, viewer));
    PetscCall(MatDestroy(&C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ operations that read the blocks' host arrays directly: both blocks' host values brought up to date */
static PetscErrorCode SyncBlocksHost(Mat A)
{
  Mat_MPIAIJ *a = (Mat_MPIAIJ *)A->data;

  PetscFunctionBegin;
  if (a->A) PetscCall(MatSeqELLWARPSyncHost(a->A));
  if (a->B) PetscCall(MatSeqELLWARPSyncHost(a->B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GAMG's graph: MPIAIJ's MatCreateGraph reads the blocks' host values directly (bs > 1); bring them up to date */
static PetscErrorCode MatCreateGraph_MPIELLWARP(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt nidx, PetscInt idx[], Mat *G)
{
  PetscFunctionBegin;
  PetscCall(SyncBlocksHost(A));
  PetscCall(MPIE(A)->mpiaijops.creategraph(A, sym, scale, filter, nidx, idx, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMPIAIJ's submatrix extraction creates its results with the blocks' type (MATSEQELLWARP) and, in some
   paths, writes their values straight into the host SeqAIJ arrays after their assembly, without telling the
   type: MatCreateSubMatrix_MPIAIJ_All (every row on every rank: PCREDUNDANT, the default coarse solver of
   PCMG in parallel) does so for MAT_INITIAL_MATRIX and MAT_REUSE_MATRIX.  The layout built at that assembly
   then still held the previous values, and a layout-level MatCopy/MatMult of the result used them: a silent
   wrong coarse operator from the second Newton step on (snes/tutorials/ex16 on 2 ranks).  The host arrays are
   what those paths write, so after them the host values are the current ones. */
static PetscErrorCode MarkHostCurrent(Mat M)
{
  PetscBool isseq, ismpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQELLWARP, &isseq));
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATMPIELLWARP, &ismpi));
  if (ismpi) {
    Mat_MPIAIJ *a = (Mat_MPIAIJ *)M->data;

    if (a->A) PetscCall(MarkHostCurrent(a->A));
    if (a->B) PetscCall(MarkHostCurrent(a->B));
  } else if (isseq && M->offloadmask != PETSC_OFFLOAD_UNALLOCATED) {
    M->offloadmask = PETSC_OFFLOAD_CPU;
    PetscCall(PetscObjectStateIncrease((PetscObject)M));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrices_MPIELLWARP(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  PetscFunctionBegin;
  PetscCall(SyncBlocksHost(A));
  PetscCall(MPIE(A)->mpiaijops.createsubmatrices(A, n, irow, icol, scall, submat));
  for (PetscInt i = 0; i < n; i++) PetscCall(MarkHostCurrent((*submat)[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrix_MPIELLWARP(Mat A, IS isrow, IS iscol, MatReuse scall, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(SyncBlocksHost(A));
  PetscCall(MPIE(A)->mpiaijops.createsubmatrix(A, isrow, iscol, scall, M));
  PetscCall(MarkHostCurrent(*M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Norms on a host MPIAIJ copy.  MPIAIJ's own norm on MATMPIELLWARP, with the blocks' host values brought up to
   date first, still gave a wrong 1-norm after device COO values on 2 ranks on an H100 (tests/dropin_ops np2_cuda:
   107.66 against MATAIJ's 79.24) while every other operation of that test agreed; until the cause is found the
   norm is computed on a copy made by MatConvert() (which that test checks entry by entry).  A norm is not on a
   solver's critical path: the copy costs one conversion. */
static PetscErrorCode MatNorm_MPIELLWARP(Mat A, NormType type, PetscReal *nrm)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatNorm(C, type, nrm));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sparse products with MATMPIELLWARP operands are MPIAIJ's (host) products, which read the operands' block
   values from the host arrays (MatMPIAIJGetLocalMat, the off-process row exchange) and write a MATMPIELLWARP
   result's blocks there too.  Every symbolic and numeric phase therefore first brings the operands' host values
   up to date (device values from MatSetValuesCOO or the assembler were otherwise read stale; an AIJCUSPARSE
   operand's too), and afterwards marks an ELLWARP result's host values current -- unless the implementation
   set them through MatSetValuesCOO (MPIAIJ's "backend" products, -matmatmult_via backend), which leaves the
   device values the newest: marking the host current then gave an all-zero product (mat/tests/ex250). */
typedef struct {
  PetscErrorCode (*symbolic)(Mat);
  PetscErrorCode (*numeric)(Mat);
} MPIProductCtx;

static const char MPIProductCtxName[] = "MatProductMPIEllwarp_ctx";

static PetscErrorCode SyncOperandHost(Mat X)
{
  PetscBool ismpi, isseq, ismpiaij, isseqaij;

  PetscFunctionBegin;
  if (!X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATMPIELLWARP, &ismpi));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATMPIAIJ, &ismpiaij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJ, &isseqaij));
  if (ismpi) PetscCall(SyncBlocksHost(X));
  else if (isseq) PetscCall(MatSeqELLWARPSyncHost(X));
  else if (ismpiaij || isseqaij) { /* another AIJ subtype (AIJCUSPARSE): its read access copies device values up */
    Mat                blk[2] = {X, NULL};
    const PetscScalar *v;

    if (ismpiaij) {
      blk[0] = ((Mat_MPIAIJ *)X->data)->A;
      blk[1] = ((Mat_MPIAIJ *)X->data)->B;
    }
    for (int i = 0; i < 2; i++) {
      if (!blk[i]) continue;
      PetscCall(MatSeqAIJGetArrayRead(blk[i], &v));
      PetscCall(MatSeqAIJRestoreArrayRead(blk[i], &v));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SyncProductOperands(Mat C)
{
  Mat_Product *p = C->product;

  PetscFunctionBegin;
  PetscCall(SyncOperandHost(p->A));
  PetscCall(SyncOperandHost(p->B));
  if (p->type == MATPRODUCT_ABC) PetscCall(SyncOperandHost(p->C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a phase: the result's host values current (an implementation may add to them); after it: the host
   values are the newest, unless a block's device values are (set through MatSetValuesCOO). */
static PetscErrorCode MarkResultAfter(Mat C)
{
  PetscBool ismpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIELLWARP, &ismpi));
  if (ismpi) {
    Mat_MPIAIJ *a      = (Mat_MPIAIJ *)C->data;
    Mat         blk[2] = {a->A, a->B};

    for (int i = 0; i < 2; i++)
      if (blk[i] && blk[i]->offloadmask != PETSC_OFFLOAD_GPU) PetscCall(MarkHostCurrent(blk[i]));
  } else if (C->offloadmask != PETSC_OFFLOAD_GPU) PetscCall(MarkHostCurrent(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIProductNumeric(Mat C)
{
  MPIProductCtx *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, MPIProductCtxName, (void **)&ctx));
  PetscCheck(ctx && ctx->numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIELLWARP product: no numeric phase");
  PetscCall(SyncProductOperands(C));
  PetscCall(SyncOperandHost(C));
  PetscCall((*ctx->numeric)(C));
  /* an implementation may leave its own numeric phase in C's ops (PETSc's ABC_Basic does): ours goes back */
  if (C->ops->productnumeric && C->ops->productnumeric != MPIProductNumeric) ctx->numeric = C->ops->productnumeric;
  C->ops->productnumeric = MPIProductNumeric;
  PetscCall(MarkResultAfter(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIProductSymbolic(Mat C)
{
  MPIProductCtx *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, MPIProductCtxName, (void **)&ctx));
  PetscCheck(ctx && ctx->symbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIELLWARP product: no symbolic phase");
  PetscCall(SyncProductOperands(C));
  PetscCall((*ctx->symbolic)(C));
  if (C->ops->productnumeric) {
    ctx->numeric           = C->ops->productnumeric;
    C->ops->productnumeric = MPIProductNumeric;
  }
  PetscCall(MarkResultAfter(C)); /* a symbolic phase may compute values too */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Installed as MATMPIELLWARP's productsetfromoptions op and composed as MatProductSetFromOptions_anytype_C, so it
   is found for ELLWARP with ELLWARP and for ELLWARP with any other operand type (MatProductSetFromOptions() tries
   the A op only when every operand has the same op; with MPIAIJ or AIJCUSPARSE beside ours it found nothing:
   "Unspecified symbolic phase for product AB with A mpiaijellwarp, B mpiaij", PCMG's Galerkin product in
   dm/impls/stag/tutorials/ex4).  Operands that are all MPIAIJ subtypes get MPIAIJ's products; another type
   (dense, ...) gets what PETSc picks with a plain MPIAIJ in our place: the type-pair function under MPIAIJ's
   name, then the other operand's own anytype function. */
static PetscErrorCode MatProductSetFromOptions_MPIELLWARP(Mat C)
{
  Mat_Product   *p    = C->product;
  Mat            X[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL}, E = NULL;
  PetscBool      other;
  MPIProductCtx *ctx;
  PetscErrorCode (*f)(Mat);

  PetscFunctionBegin;
  for (int i = 0; i < 3 && !E; i++) {
    PetscBool ismpi = PETSC_FALSE;

    if (X[i]) PetscCall(PetscObjectTypeCompare((PetscObject)X[i], MATMPIELLWARP, &ismpi));
    if (ismpi) E = X[i];
  }
  PetscCheck(E, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIELLWARP product without a MATMPIELLWARP operand");
  PetscCall(MatProductForOtherTypes_Private(C, MATMPIELLWARP, MATMPIAIJ, &other, &f));
  if (other) {
    /* MPIAIJ's own op handles an MPIAIJ with MPIDENSE (and PETSc's generic dense fallbacks follow it) */
    if (!f) f = MPIE(E)->mpiaijops.productsetfromoptions;
    PetscCall(PetscInfo(C, "MatProduct %s of MATMPIELLWARP with another type: the implementation PETSc uses for MPIAIJ operands\n", MatProductTypes[p->type]));
    /* not wrapped: those implementations multiply block by block (MATSEQELLWARP's products, which bring device
       values up themselves), and some change the result's type in their symbolic phase, which resets its
       operations (mat/tests/ex309 with MATMPIDENSECUDA: "no numeric phase") */
    PetscCall((*f)(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(C, "MatProduct %s with MATMPIELLWARP: MPIAIJ's host product (operands' host values made current first)\n", MatProductTypes[p->type]));
  PetscCall((*MPIE(E)->mpiaijops.productsetfromoptions)(C));
  if (!C->ops->productsymbolic) PetscFunctionReturn(PETSC_SUCCESS); /* not supported: MatProductSymbolic() says so */
  PetscCall(PetscNew(&ctx));
  ctx->symbolic           = C->ops->productsymbolic;
  C->ops->productsymbolic = MPIProductSymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)C, MPIProductCtxName, ctx, PetscCtxDestroyDefault));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIELLWARP(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_MPIELLWARP *m = MPIE(A), *mm;

  PetscFunctionBegin;
  PetscCall(m->mpiaijops.duplicate(A, op, M)); /* MatSetType(type_name): a MATMPIELLWARP; the blocks are duplicated */
  mm             = MPIE(*M);
  mm->backend    = m->backend;
  mm->backendset = m->backendset;
  PetscCall(DeviceCheck(*M));
  PetscCall(MatMPIELLWARPConfigureBlocks(*M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIELLWARP(Mat A)
{
  Mat_MPIAIJ     *a = (Mat_MPIAIJ *)A->data;
  Mat_MPIELLWARP *m = (Mat_MPIELLWARP *)a->spptr;
  PetscErrorCode (*aijdestroy)(Mat);

  PetscFunctionBegin;
  aijdestroy = m->mpiaijops.destroy;
  PetscCall(MatMPIELLWARPCOODestroy(&m->coo));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ComposedNames); i++) PetscCall(PetscObjectComposeFunction((PetscObject)A, ComposedNames[i], NULL));
  PetscCall(PetscFree(a->spptr));
  PetscCall((*aijdestroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B back to a plain MATMPIAIJ in place (blocks to MATSEQAIJ with the host values current) */
static PetscErrorCode StripToMPIAIJ(Mat B)
{
  Mat_MPIAIJ     *a = (Mat_MPIAIJ *)B->data;
  Mat_MPIELLWARP *m = (Mat_MPIELLWARP *)a->spptr;

  PetscFunctionBegin;
  if (a->A) PetscCall(MatConvert(a->A, MATSEQAIJ, MAT_INPLACE_MATRIX, &a->A));
  if (a->B) PetscCall(MatConvert(a->B, MATSEQAIJ, MAT_INPLACE_MATRIX, &a->B));
  if (a->lvec) {
    PetscBool same;
    PetscCall(PetscObjectTypeCompare((PetscObject)a->lvec, VECSEQ, &same));
    if (!same) PetscCall(VecSetType(a->lvec, VECSEQ));
  }
  *B->ops = m->mpiaijops;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ComposedNames); i++) PetscCall(PetscObjectComposeFunction((PetscObject)B, ComposedNames[i], NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJSetPreallocation_C", m->aijprealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", m->aijcooprealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", m->aijcoovalues));
  PetscCall(MatMPIELLWARPCOODestroy(&m->coo));
  PetscCall(PetscFree(a->spptr));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIELLWARP_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, newmat));
  else *newmat = A;
  PetscCall(StripToMPIAIJ(*newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIELLWARP_MPIAIJCUSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatConvert_MPIELLWARP_MPIAIJ(A, MATMPIAIJ, reuse, newmat));
  PetscCall(MatConvert(*newmat, MATMPIAIJCUSPARSE, MAT_INPLACE_MATRIX, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJCUSPARSE_MPIELLWARP(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_AIJCUSPARSE_ELLWARP_Private(A, MATMPIAIJ, MATMPIELLWARP, MatConvert_MPIAIJ_MPIELLWARP, reuse, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpSetBackend_MPIELLWARP(Mat A, MatEllwarpBackend b)
{
  PetscFunctionBegin;
  PetscCall(SetBackend(A, b, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpGetBackend_MPIELLWARP(Mat A, MatEllwarpBackend *b)
{
  PetscFunctionBegin;
  *b = MPIE(A)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpSetKernel_MPIELLWARP(Mat A, MatEllwarpKernel k, PetscInt threshold)
{
  Mat_MPIAIJ *a = (Mat_MPIAIJ *)A->data;

  PetscFunctionBegin;
  PetscCheck(a->A && a->B, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATMPIELLWARP: preallocate the matrix before MatEllwarpSetKernel()");
  PetscCall(MatEllwarpSetKernel(a->A, k, threshold));
  PetscCall(MatEllwarpSetKernel(a->B, k, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpGetInfo_MPIELLWARP(Mat A, MatEllwarpInfo *info)
{
  PetscFunctionBegin;
  (void)info;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "MATMPIELLWARP holds two layouts per rank: call MatEllwarpGetInfo() on its blocks (MatGetDiagonalBlock(), MatMPIAIJ's B) or view it with ::ascii_info");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIELLWARP(Mat B, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             A;
  Mat_MPIAIJ     *a;
  Mat_MPIELLWARP *m;
  PetscBool       same;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(B, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(B, MAT_COPY_VALUES, newmat));
  A = *newmat;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIELLWARP, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpInitializePackage());
  a = (Mat_MPIAIJ *)A->data;
  PetscCheck(!a->spptr, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATMPIELLWARP: cannot convert a %s in place (it carries its own extension data)", ((PetscObject)A)->type_name);

  PetscCall(PetscNew(&m));
  a->spptr     = m;
  m->mpiaijops = *A->ops;
  m->device    = -1;
  m->ndevices  = 0;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &m->aijprealloc));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &m->aijcooprealloc));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetValuesCOO_C", &m->aijcoovalues));
  PetscCheck(m->aijprealloc && m->aijcooprealloc && m->aijcoovalues, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIAIJ's preallocation functions not found");
  PetscCall(MatEllwarpDefaultBackend_Private(A, "MATMPIELLWARP blocks use", &m->backend));
  A->boundtocpu = PETSC_FALSE;

  A->ops->assemblyend    = MatAssemblyEnd_MPIELLWARP;
  A->ops->mult           = MatMult_MPIELLWARP;
  A->ops->multadd        = MatMultAdd_MPIELLWARP;
  A->ops->setfromoptions = MatSetFromOptions_MPIELLWARP;
  A->ops->destroy        = MatDestroy_MPIELLWARP;
  A->ops->view           = MatView_MPIELLWARP;
  A->ops->duplicate      = MatDuplicate_MPIELLWARP;
  if (A->ops->creategraph) A->ops->creategraph = MatCreateGraph_MPIELLWARP;
  A->ops->shift          = MatShift_MPIELLWARP;
  if (A->ops->createsubmatrices) A->ops->createsubmatrices = MatCreateSubMatrices_MPIELLWARP;
  if (A->ops->createsubmatrix) A->ops->createsubmatrix = MatCreateSubMatrix_MPIELLWARP;
  A->ops->norm = MatNorm_MPIELLWARP;
  if (A->ops->productsetfromoptions) A->ops->productsetfromoptions = MatProductSetFromOptions_MPIELLWARP;
  /* MatMultTranspose(Add), MatGetDiagonal, MatScale, MatAXPY, MatZeroRows(Columns), MatDiagonalScale, ...:
     MPIAIJ's, which call the blocks' layout operations */

  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijellwarp_mpiaij_C", MatConvert_MPIELLWARP_MPIAIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijellwarp_mpiaijcusparse_C", MatConvert_MPIELLWARP_MPIAIJCUSPARSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaij_mpiaijellwarp_C", MatConvert_MPIAIJ_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijcusparse_mpiaijellwarp_C", MatConvert_MPIAIJCUSPARSE_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijellwarp_is_C", MatConvert_ELLWARP_IS_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatEllwarpSetBackend_C", MatEllwarpSetBackend_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatEllwarpGetBackend_C", MatEllwarpGetBackend_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatEllwarpSetKernel_C", MatEllwarpSetKernel_MPIELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatEllwarpGetInfo_C", MatEllwarpGetInfo_MPIELLWARP));
  if (A->ops->productsetfromoptions) PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_MPIELLWARP));
  PetscCall(MatMPIELLWARPSetCOOOps(A));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIELLWARP));

  /* the backend from the options now: vectors made before MatSetFromOptions() must have the right type */
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(ReadOptions(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(DeviceCheck(A));
  PetscCall(MatMPIELLWARPConfigureBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode MatCreate_MPIELLWARP(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(A));
  PetscCall(MatConvert_MPIAIJ_MPIELLWARP(A, MATMPIELLWARP, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
