/* MATSEQELLWARP operations that run on the layout: products, value updates, norms.  Each either runs
   in the backend (device or reference) or, where it would change the nonzero pattern, says so in -info
   and runs on the host SeqAIJ, whose pattern change then triggers a new analysis. */
#include <petscellwarp/private/matellwarpimpl.h>
#include <petscellwarp/private/ellwarpanalysis.h>
#include <petscellwarp/private/matassemblytargetimpl.h>
#include <petscellwarp/private/matellwarpaxpy.h>

/* where the pattern analysis runs: the device with the cuda backend unless -mat_ellwarp_tune analysis=host */
static PetscErrorCode AnalyseOnDevice(Mat A, PetscBool *dev)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(!(e->par.analysis == 0 && e->backend != MAT_ELLWARP_BACKEND_CUDA), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP: -mat_ellwarp_tune analysis=device needs the cuda backend (the backend is %s)", MatEllwarpBackends[e->backend]);
  *dev = (PetscBool)(e->backend == MAT_ELLWARP_BACKEND_CUDA && e->par.analysis != 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layout of a CSR pattern (host arrays) with parameters par and its store, analysed on the device or on the host */
static PetscErrorCode BuildLayoutStore(Mat A, PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], const EllwarpParams *par, EllwarpLayout **L, EllwarpStore **S)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscBool       dev;

  PetscFunctionBegin;
  PetscCall(AnalyseOnDevice(A, &dev));
#if defined(ELLWARP_HAVE_CUDA)
  if (dev) {
    EllwarpDeviceArrays  d;
    EllwarpAnalysisTimes t;
    PetscCall(EllwarpLayoutCreateCUDA(m, n, ai, aj, map, PETSC_MEMTYPE_HOST, par, L, &d, &t));
    PetscCall(EllwarpCUDACreateFromDevice(*L, &d, S));
    PetscCall(PetscInfo(A, "Device pattern analysis of %" PetscInt_FMT " x %" PetscInt_FMT ": %.3f ms (pattern upload %.3f ms, analysis %.3f ms)\n", m, n, 1e3 * (t.upload + t.analysis), 1e3 * t.upload, 1e3 * t.analysis));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(EllwarpLayoutCreate(m, n, ai, aj, map, par, L));
  PetscCall(e->k->create(*L, S));
  if (e->drophost) { /* test hook: leave the matrix the state a device analysis leaves (scalars only on the host) */
    if (e->backend == MAT_ELLWARP_BACKEND_HOST) {
      EllwarpLayout *full = *L;
      PetscCall(EllwarpHostStoreAdopt(*S, full)); /* the store's arrays play the device arrays */
      PetscCall(EllwarpLayoutScalars(full, L));
    } else PetscCall(EllwarpLayoutDropArrays(*L)); /* the CUDA store has its copy */
    PetscCall(PetscInfo(A, "-mat_ellwarp_tune analysis_drop_host: the layout's host arrays were dropped after the host analysis\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ... and the store follows the matrix's kernel variants */
static PetscErrorCode BuildLayout(Mat A, PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt map[], const EllwarpParams *par, EllwarpLayout **L, EllwarpStore **S)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(BuildLayoutStore(A, m, n, ai, aj, map, par, L, S));
  if (*S && e->k->settune) e->k->settune(*S, &e->tune);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layout's arrays on the host (a device analysis leaves them on the device), for a host consumer that
   truly needs them; the library itself has none left (the COO plan and the missing-diagonal check of
   MatZeroRows run in the store), tests and tools use it */
PetscErrorCode MatSeqELLWARPLayoutOnHost(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->L->hostarrays) PetscFunctionReturn(PETSC_SUCCESS);
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) { /* only after -mat_ellwarp_tune analysis_drop_host */
    PetscCall(EllwarpLayoutCopyArrays(e->L, EllwarpHostStoreLayout(e->S)));
    PetscCall(PetscInfo(A, "Copied the layout's arrays back to the matrix (after -mat_ellwarp_tune analysis_drop_host)\n"));
  }
#if defined(ELLWARP_HAVE_CUDA)
  else {
    EllwarpDeviceArrays d;
    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Download, A, 0, 0, 0));
    EllwarpCUDAStoreArrays(e->S, &d);
    PetscCall(EllwarpLayoutFetchCUDA(e->L, &d));
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Download, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "Copied the device-built layout's arrays to the host\n"));
  }
#endif
  PetscCheck(e->L->hostarrays, PETSC_COMM_SELF, PETSC_ERR_PLIB, "layout arrays not on the host");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cost of the matrix's numbering to ELLWARP, said with -info when it is large: slices whose column offsets
   (col - row) fit neither 16 bits nor 16 bits plus a bias per entry position store 32-bit columns, 2 bytes more
   per slot than they would in a locality ordering.  The saving is from the layout's own counts (the slices'
   32-bit columns; the long rows' are 32-bit in any numbering) against EllwarpLayoutBytesMult(), so it is what
   the product's byte count would lose, not a timing; x's gather, which a locality ordering also helps, is not
   counted.  The span (max - min + 1 column over 32 consecutive rows, median over the groups) is computed from
   the CSR only when the line is printed. */
#define ELLWARP_INFO_NUMBERING_SAVE 0.03 /* print when a locality ordering would save at least 3 % of the bytes */
static PetscErrorCode InfoNumberingCost(Mat A)
{
  Mat_SeqELLWARP      *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ          *a = (Mat_SeqAIJ *)A->data;
  const EllwarpLayout *L = e->L;
  PetscLogDouble       bytes, save;
  PetscBool            on;
  PetscInt             m = A->rmap->n, ng = (m + ELLWARP_LANES - 1) / ELLWARP_LANES, n32 = L->nslices - L->n16;
  PetscReal           *span;

  PetscFunctionBegin;
  PetscCall(PetscInfoEnabled(MAT_CLASSID, &on));
  if (!on || !e->par.compress || !L->nnz || !ng) PetscFunctionReturn(PETSC_SUCCESS);
  bytes = EllwarpLayoutBytesMult(L);
  save  = (PetscLogDouble)L->ncol32 * (sizeof(int) - sizeof(short));
  if (save < ELLWARP_INFO_NUMBERING_SAVE * bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(ng, &span));
  for (PetscInt g = 0; g < ng; g++) {
    PetscInt lo = PETSC_INT_MAX, hi = -1;
    for (PetscInt i = g * ELLWARP_LANES; i < PetscMin(m, (g + 1) * ELLWARP_LANES); i++)
      for (PetscInt k = a->i[i]; k < a->i[i + 1]; k++) {
        lo = PetscMin(lo, a->j[k]);
        hi = PetscMax(hi, a->j[k]);
      }
    span[g] = hi >= lo ? (PetscReal)(hi - lo + 1) : 0;
  }
  PetscCall(PetscSortReal(ng, span));
  PetscCall(PetscInfo(A, "Numbering cost: %" PetscInt_FMT " of %" PetscInt_FMT " slices (%.0f %%) store 32-bit columns (offsets col - row fit neither 16 bits nor 16 bits plus a bias), %.2f bytes per nonzero moved, %.2f with 16-bit columns; the numbering spans %.0f columns per %d rows (median); a locality ordering (DMPlex RCM: DMPlexGetOrdering + DMPlexPermute or -dm_plex_reorder rcm; MatGetOrdering RCM) would save ~%.1f %% of the product's bytes\n",
                      n32, L->nslices, 100.0 * n32 / PetscMax(L->nslices, 1), (double)(bytes / L->nnz), (double)((bytes - save) / L->nnz), (double)span[ng / 2], ELLWARP_LANES, 100.0 * save / bytes));
  PetscCall(PetscFree(span));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scalar layout where the products use the blocked layout (MatSeqELLWARPBlockPrechoose): the products never
   read it, so it only stores the values (assembly target, COO, MatSetValues, the value operations, the blocked
   layout's refresh), and the layout that pads least while keeping rows near their neighbours suits that: one lane a
   row (K1; K2 splits rows over lanes and pads each lane group), rows sorted by length within windows of 256. The
   product rule's layout of an elasticity matrix is K2 (the lanes suit the product), with 3.2 % padding on the Q1
   cantilever of 110 592 hexes; there an assembly writes the padded sectors too (benchmarks/results/elasticity-h100/
   logs-ownergeo/README.md, round 4: 6 526 against 6 372 bytes an element; -mat_ellwarp_tune sort_window=256 gave
   K1 with 0.4 % and 4.23-4.29 against 4.34-4.36 ns an element).  Only where the user forced nothing of the layout
   (kernel, threshold, sort window); -mat_ellwarp_tune store_layout=0 keeps the product rule's. */
#define ELLWARP_STORE_WINDOW 256
static PetscBool StoreLayoutApplies(const Mat_SeqELLWARP *e)
{
  return (PetscBool)(e->storelayout && e->blockmode != 2 && e->par.kernel == MAT_ELLWARP_KERNEL_AUTO && e->par.threshold == 0 && e->par.sortwindow == -1);
}

static PetscErrorCode MatSeqELLWARPAnalyse(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;
  EllwarpParams   par = e->par;
  PetscBool       store = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Analysis, A, 0, 0, 0));
  if (e->St) PetscCall(e->k->destroy(&e->St));
  if (e->S) PetscCall(e->k->destroy(&e->S));
  PetscCall(EllwarpLayoutDestroy(&e->Lt));
  PetscCall(EllwarpLayoutDestroy(&e->L));
  PetscCall(e->k->csrfree(&e->csr));
  /* the products' layout first: where they use the blocked one whatever the scalar layout is, the scalar layout is built as the values' store */
  if (StoreLayoutApplies(e)) PetscCall(MatSeqELLWARPBlockPrechoose(A, e->nanalyses + 1, &store));
  if (store) {
    par.kernel     = MAT_ELLWARP_KERNEL_K1;
    par.sortwindow = ELLWARP_STORE_WINDOW;
  }
  PetscCall(BuildLayout(A, A->rmap->n, A->cmap->n, a->i, a->j, NULL, &par, &e->L, &e->S));
  PetscCall(e->k->csralloc(e->L->nnz, &e->csr));
  e->storerole   = store;
  e->nzstate     = A->nonzerostate;
  e->layoutstate = MatAssemblyTargetNewState();
  e->nanalyses++;
  PetscCall(PetscInfo(A, "Analysed pattern on the %s (nonzero state %" PetscInt64_FMT ", analysis %" PetscInt_FMT "): %" PetscInt_FMT " rows, %" PetscCount_FMT " nonzeros, %" PetscInt_FMT " slices, padding %.3f, kernel %s threshold %" PetscInt_FMT ", backend %s%s\n", e->L->analysedondevice ? "device" : "host", (PetscInt64)A->nonzerostate, e->nanalyses,
                      e->L->nrows, e->L->nnz, e->L->nslices, e->L->nnz ? (double)e->L->nslots / (double)e->L->nnz : 1.0, MatEllwarpKernels[e->L->kernel], e->L->threshold, MatEllwarpBackends[e->backend], store ? "; a value store (the products use the blocked layout): K1, sort window " PetscStringize(ELLWARP_STORE_WINDOW) : ""));
  if (e->L->ndict) PetscCall(PetscInfo(A, "Dictionary column mode: %" PetscInt_FMT " of %" PetscInt_FMT " slices (%.1f %%) store 16-bit codes into per-slice tables of 512-column windows instead of 32-bit columns\n", e->L->ndict, e->L->nslices, 100.0 * (double)e->L->ndict / (double)e->L->nslices));
  if (!store) PetscCall(InfoNumberingCost(A));
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Analysis, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the backend's copy of the CSR values: the SeqAIJ array itself for the host backend */
static inline PetscScalar *StagingCSR(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  return e->backend == MAT_ELLWARP_BACKEND_HOST ? ((Mat_SeqAIJ *)A->data)->a : e->csr;
}

static PetscErrorCode CheckBackend(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->k) PetscFunctionReturn(PETSC_SUCCESS);
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) e->k = &EllwarpHostKernels;
  else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscBool avail;
    PetscCall(EllwarpCUDADeviceAvailable(&avail));
    PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATSEQELLWARP: the cuda backend was requested but no CUDA device is usable here; use -mat_ellwarp_backend host");
    e->k = &EllwarpCUDAKernels;
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATSEQELLWARP: the cuda backend was requested but petsc-ellwarp was built without CUDA; use -mat_ellwarp_backend host");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make the layout values current: analysis when the pattern changed, else a value refresh when the host
   values are newer. */
PetscErrorCode MatSeqELLWARPSyncLayout(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;
  PetscBool       fresh = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATSEQELLWARP: the matrix must be assembled (MatAssemblyBegin/End) before this operation");
  PetscCall(CheckBackend(A));
  if (!e->L || e->nzstate != A->nonzerostate) {
    if (e->L) PetscCall(PetscInfo(A, "Nonzero pattern changed (state %" PetscInt64_FMT " -> %" PetscInt64_FMT "): new analysis\n", (PetscInt64)e->nzstate, (PetscInt64)A->nonzerostate));
    PetscCheck(A->offloadmask != PETSC_OFFLOAD_GPU, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Pattern changed while the layout held the only current values");
    PetscCall(MatSeqELLWARPAnalyse(A));
    fresh = PETSC_TRUE;
  }
  if (e->zerovalues && (fresh || A->offloadmask == PETSC_OFFLOAD_CPU || A->offloadmask == PETSC_OFFLOAD_UNALLOCATED)) {
    /* MatSetValuesCOO(INSERT_VALUES) right after: it writes every stored slot, so zeros (padding) suffice */
    PetscCall(e->k->zero(e->S));
    e->ltcurrent   = PETSC_FALSE;
    e->valversion++;
    A->offloadmask = PETSC_OFFLOAD_GPU;
  } else if (fresh || A->offloadmask == PETSC_OFFLOAD_CPU || A->offloadmask == PETSC_OFFLOAD_UNALLOCATED) {
    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Refresh, A, 0, 0, 0));
    PetscCall(e->k->csrupload(e->L->nnz, a->a, StagingCSR(A)));
    PetscCall(e->k->gather(e->S, StagingCSR(A)));
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Refresh, A, 0, 0, 0));
    e->nrefreshes++;
    e->ltcurrent   = PETSC_FALSE;
    e->valversion++;
    A->offloadmask = PETSC_OFFLOAD_BOTH;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after an operation changed the layout values only */
static inline void LayoutChanged(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  e->ltcurrent      = PETSC_FALSE;
  e->valversion++;
  A->offloadmask    = PETSC_OFFLOAD_GPU;
}

/* bring the staging CSR in line with the layout (a no-op unless the layout is newer) */
static PetscErrorCode SyncStaging(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (A->offloadmask != PETSC_OFFLOAD_GPU) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(e->k->scatter(e->S, StagingCSR(A)));
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPSyncHost(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;

  PetscFunctionBegin;
  if (A->offloadmask != PETSC_OFFLOAD_GPU) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Download, A, 0, 0, 0));
  PetscCall(e->k->scatter(e->S, StagingCSR(A)));
  PetscCall(e->k->csrdownload(e->L->nnz, StagingCSR(A), a->a));
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Download, A, 0, 0, 0));
  A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SyncTranspose(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(A));
  if (!e->Lt) {
    PetscInt *bi, *bj, *map;

    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Analysis, A, 0, 0, 0));
    PetscCall(EllwarpLayoutTranspose(A->rmap->n, A->cmap->n, a->i, a->j, &bi, &bj, &map));
    PetscCall(BuildLayout(A, A->cmap->n, A->rmap->n, bi, bj, map, &e->par, &e->Lt, &e->St));
    PetscCall(PetscFree(bi));
    PetscCall(PetscFree2(bj, map));
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Analysis, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "Built the transpose layout for MatMultTranspose (%" PetscInt_FMT " slices)\n", e->Lt->nslices));
    e->ltcurrent = PETSC_FALSE;
  }
  if (!e->ltcurrent) {
    PetscCall(SyncStaging(A));
    PetscCall(e->k->gather(e->St, StagingCSR(A)));
    e->ltcurrent = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- vectors in the backend's memory ----------------------------------------------------------- */
static PetscErrorCode CheckVec(Mat A, Vec v)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscBool       dev;

  PetscFunctionBegin;
  if (e->backend == MAT_ELLWARP_BACKEND_HOST) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &dev, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  PetscCheck(dev, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MATSEQELLWARP with the cuda backend needs device vectors (VECCUDA), got %s: create them with MatCreateVecs() or use -vec_type cuda / -dm_vec_type cuda (which a DM reads in DMSetFromOptions()), or keep host vectors with -mat_ellwarp_backend host", ((PetscObject)v)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetArrayRead(Mat A, Vec v, const PetscScalar **p)
{
  PetscFunctionBegin;
  PetscCall(CheckVec(A, v));
#if defined(ELLWARP_HAVE_CUDA)
  if (((Mat_SeqELLWARP *)A->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA) {
    PetscCall(VecCUDAGetArrayRead(v, p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecGetArrayRead(v, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreArrayRead(Mat A, Vec v, const PetscScalar **p)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (((Mat_SeqELLWARP *)A->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA) {
    PetscCall(VecCUDARestoreArrayRead(v, p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecRestoreArrayRead(v, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* write: contents discarded; rw: read-write */
static PetscErrorCode GetArray(Mat A, Vec v, PetscBool rw, PetscScalar **p)
{
  PetscFunctionBegin;
  PetscCall(CheckVec(A, v));
#if defined(ELLWARP_HAVE_CUDA)
  if (((Mat_SeqELLWARP *)A->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA) {
    if (rw) PetscCall(VecCUDAGetArray(v, p));
    else PetscCall(VecCUDAGetArrayWrite(v, p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (rw) PetscCall(VecGetArray(v, p));
  else PetscCall(VecGetArrayWrite(v, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreArray(Mat A, Vec v, PetscBool rw, PetscScalar **p)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (((Mat_SeqELLWARP *)A->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA) {
    if (rw) PetscCall(VecCUDARestoreArray(v, p));
    else PetscCall(VecCUDARestoreArrayWrite(v, p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (rw) PetscCall(VecRestoreArray(v, p));
  else PetscCall(VecRestoreArrayWrite(v, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- products ------------------------------------------------------------------------------------ */
static PetscErrorCode MultGeneric(Mat A, Vec xx, Vec zz, Vec yy, PetscBool trans)
{
  Mat_SeqELLWARP    *e = (Mat_SeqELLWARP *)A->spptr;
  const PetscScalar *x, *z = NULL;
  PetscScalar       *y;
  PetscLogEvent      ev = trans ? MAT_ELLWARP_MultT : MAT_ELLWARP_Mult;
  PetscBool          blocked;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPBlockSync(A, trans, &blocked)); /* the blocked layout where it was chosen (seqellwarpblock.c) */
  if (!blocked && trans) PetscCall(SyncTranspose(A));
  PetscCall(PetscLogEventBegin(ev, A, xx, yy, 0));
  PetscCall(GetArrayRead(A, xx, &x));
  if (zz && zz != yy) PetscCall(GetArrayRead(A, zz, &z));
  PetscCall(GetArray(A, yy, (PetscBool)(zz == yy), &y));
  if (zz == yy) z = y;
  if (blocked) PetscCall(MatSeqELLWARPBlockMult(A, trans, x, z, y));
  else PetscCall(e->k->mult(trans ? e->St : e->S, MatSeqELLWARPBlockSize(e, trans ? e->Lt : e->L), x, z, y));
  PetscCall(RestoreArray(A, yy, (PetscBool)(zz == yy), &y));
  if (zz && zz != yy) PetscCall(RestoreArrayRead(A, zz, &z));
  PetscCall(RestoreArrayRead(A, xx, &x));
  PetscCall(PetscLogEventEnd(ev, A, xx, yy, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define ELLWARP_IF_BOUND(A, call) \
  do { \
    if ((A)->boundtocpu) { \
      PetscCall(MatSeqELLWARPSyncHost(A)); \
      PetscCall(call); \
      PetscFunctionReturn(PETSC_SUCCESS); \
    } \
  } while (0)

static PetscErrorCode MatMult_SeqELLWARP(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.mult(A, x, y));
  PetscCall(MultGeneric(A, x, NULL, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqELLWARP(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.multadd(A, x, z, y));
  PetscCall(MultGeneric(A, x, z, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqELLWARP(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.multtranspose(A, x, y));
  PetscCall(MultGeneric(A, x, NULL, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqELLWARP(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.multtransposeadd(A, x, z, y));
  PetscCall(MultGeneric(A, x, z, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- value operations on the layout -------------------------------------------------------------- */
/* No current layout (none built yet, or the pattern changed since): a value operation (diagonal, scalings, shift)
   runs in SeqAIJ on the host values, which stay the current ones, instead of analysing the pattern for it.  The
   layout is built by the first operation that multiplies (MatSeqELLWARPSyncLayout()), as AIJCUSPARSE uploads on
   first use.  PCGAMG's graph (MatCreateGraph: a duplicate of the operator, made symmetric, scaled and filtered on
   the host) was otherwise analysed and uploaded for one MatGetDiagonal/MatDiagonalScale, then read back. */
static inline PetscBool NoLayout(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  return (PetscBool)(!e->L || e->nzstate != A->nonzerostate);
}

#define ELLWARP_IF_NO_LAYOUT(A, call, write) \
  do { \
    if (NoLayout(A)) { \
      PetscCall(call); \
      if (write) (A)->offloadmask = PETSC_OFFLOAD_CPU; \
      PetscFunctionReturn(PETSC_SUCCESS); \
    } \
  } while (0)

static PetscErrorCode MatGetDiagonal_SeqELLWARP(Mat A, Vec v)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscScalar    *d;

  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, e->aijops.getdiagonal(A, v));
  ELLWARP_IF_NO_LAYOUT(A, e->aijops.getdiagonal(A, v), PETSC_FALSE);
  PetscCall(MatSeqELLWARPSyncLayout(A));
  PetscCall(GetArray(A, v, PETSC_FALSE, &d));
  PetscCall(e->k->getdiag(e->S, d));
  PetscCall(RestoreArray(A, v, PETSC_FALSE, &d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatScale_SeqELLWARP(Mat A, PetscScalar s)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, e->aijops.scale(A, s));
  ELLWARP_IF_NO_LAYOUT(A, e->aijops.scale(A, s), PETSC_TRUE);
  PetscCall(MatSeqELLWARPSyncLayout(A));
  PetscCall(e->k->scale(e->S, s));
  LayoutChanged(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostFallback(Mat A, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "%s: done on the host SeqAIJ (it may change the nonzero pattern, which triggers a new analysis)\n", what));
  PetscCall(MatSeqELLWARPSyncHost(A));
  A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatShift_SeqELLWARP(Mat A, PetscScalar s)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, e->aijops.shift(A, s));
  ELLWARP_IF_NO_LAYOUT(A, e->aijops.shift(A, s), PETSC_TRUE);
  PetscCall(MatSeqELLWARPSyncLayout(A));
  if (e->L->ndiagmissing) {
    PetscCall(HostFallback(A, "MatShift with missing diagonal entries"));
    PetscCall(e->aijops.shift(A, s));
    A->offloadmask = PETSC_OFFLOAD_CPU;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(e->k->shift(e->S, s));
  LayoutChanged(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalScale_SeqELLWARP(Mat A, Vec l, Vec r)
{
  Mat_SeqELLWARP    *e  = (Mat_SeqELLWARP *)A->spptr;
  const PetscScalar *la = NULL, *ra = NULL;

  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, e->aijops.diagonalscale(A, l, r));
  ELLWARP_IF_NO_LAYOUT(A, e->aijops.diagonalscale(A, l, r), PETSC_TRUE);
  PetscCall(MatSeqELLWARPSyncLayout(A));
  if (l) PetscCall(GetArrayRead(A, l, &la));
  if (r) PetscCall(GetArrayRead(A, r, &ra));
  PetscCall(e->k->diagscale(e->S, la, ra));
  if (l) PetscCall(RestoreArrayRead(A, l, &la));
  if (r) PetscCall(RestoreArrayRead(A, r, &ra));
  LayoutChanged(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroEntries_SeqELLWARP(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  /* assembly loops follow with host MatSetValues, so zero the host values and refresh at assembly */
  PetscCall(e->aijops.zeroentries(A));
  A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's MatZeroRows with a nonzero diagonal (PETSc 3.26, pattern not kept) holds the value array across
   MatSetValues_SeqAIJ for an empty row, which may reallocate it: a later non-empty row in the same call then
   writes into freed memory (valgrind: invalid write in MatZeroRows_SeqAIJ).  Call it twice: first for the rows
   it only shortens, then for the empty ones (MatSetValues only).  Same result, b included. */
static PetscErrorCode ZeroRowsAIJ(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;
  PetscInt       *r, nf = 0, ne = 0;

  PetscFunctionBegin;
  if (diag == 0.0 || a->keepnonzeropattern) {
    PetscCall(e->aijops.zerorows(A, n, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(n, &r));
  for (PetscInt i = 0; i < n; i++) /* empty rows (to receive a new diagonal entry) at the end */
    if (!(rows[i] >= 0 && rows[i] < A->rmap->n && a->ilen[rows[i]] == 0 && rows[i] < A->cmap->n)) r[nf++] = rows[i];
  for (PetscInt i = 0; i < n; i++)
    if (rows[i] >= 0 && rows[i] < A->rmap->n && a->ilen[rows[i]] == 0 && rows[i] < A->cmap->n) r[nf + ne++] = rows[i];
  if (nf || !ne) PetscCall(e->aijops.zerorows(A, nf, r, diag, x, b));
  if (ne) PetscCall(e->aijops.zerorows(A, ne, r + nf, diag, x, b));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ZeroRowsAndColumns(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b, PetscBool cols)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  char           *rmask;
  PetscBool       missing = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(A));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(rows[i] >= 0 && rows[i] < A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "row %" PetscInt_FMT " out of range [0,%" PetscInt_FMT ")", rows[i], A->rmap->n);
    if (diag != 0.0 && rows[i] >= A->cmap->n) missing = PETSC_TRUE;
  }
  /* a listed row without a stored diagonal: checked by the store (on the device for the CUDA store) */
  if (diag != 0.0 && !missing && e->L->ndiagmissing) PetscCall(e->k->diagmissing(e->S, n, rows, &missing));
  if (missing) {
    PetscCall(HostFallback(A, cols ? "MatZeroRowsColumns with missing diagonal entries" : "MatZeroRows with missing diagonal entries"));
    if (cols) PetscCall(e->aijops.zerorowscolumns(A, n, rows, diag, x, b));
    else PetscCall(ZeroRowsAIJ(A, n, rows, diag, x, b));
    A->offloadmask = PETSC_OFFLOAD_CPU;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (x && b) {
    const PetscScalar *xa;
    PetscScalar       *ba;

    if (cols) { /* b -= A(:,rows) x(rows) before the columns are zeroed */
      Vec          xm, t;
      PetscScalar *xma;

      PetscCall(MatCreateVecs(A, &xm, &t));
      PetscCall(VecZeroEntries(xm));
      PetscCall(GetArrayRead(A, x, &xa));
      PetscCall(GetArray(A, xm, PETSC_TRUE, &xma));
      PetscCall(e->k->setrows(n, rows, 1.0, xa, xma));
      PetscCall(RestoreArray(A, xm, PETSC_TRUE, &xma));
      PetscCall(RestoreArrayRead(A, x, &xa));
      PetscCall(MultGeneric(A, xm, NULL, t, PETSC_FALSE));
      { /* b may be the parallel vector whose local part this block owns (MATMPIELLWARP's diagonal block) */
        Vec bl;
        PetscCall(VecCreateLocalVector(b, &bl));
        PetscCall(VecGetLocalVector(b, bl));
        PetscCall(VecAXPY(bl, -1.0, t));
        PetscCall(VecRestoreLocalVector(b, bl));
        PetscCall(VecDestroy(&bl));
      }
      PetscCall(VecDestroy(&xm));
      PetscCall(VecDestroy(&t));
    }
    PetscCall(GetArrayRead(A, x, &xa));
    PetscCall(GetArray(A, b, PETSC_TRUE, &ba));
    PetscCall(e->k->setrows(n, rows, diag, xa, ba));
    PetscCall(RestoreArray(A, b, PETSC_TRUE, &ba));
    PetscCall(RestoreArrayRead(A, x, &xa));
  }
  PetscCall(PetscCalloc1(PetscMax(A->rmap->n, A->cmap->n), &rmask));
  for (PetscInt i = 0; i < n; i++) rmask[rows[i]] = 1;
  PetscCall(e->k->zeromasked(e->S, rmask, cols ? rmask : NULL, diag));
  PetscCall(PetscFree(rmask));
  LayoutChanged(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroRows_SeqELLWARP(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.zerorows(A, n, rows, diag, x, b));
  PetscCall(ZeroRowsAndColumns(A, n, rows, diag, x, b, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroRowsColumns_SeqELLWARP(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCheck(A->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatZeroRowsColumns needs a square matrix");
  ELLWARP_IF_BOUND(A, ((Mat_SeqELLWARP *)A->spptr)->aijops.zerorowscolumns(A, n, rows, diag, x, b));
  PetscCall(ZeroRowsAndColumns(A, n, rows, diag, x, b, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Two ELLWARP matrices whose layouts are slot-for-slot the same: the same CSR pattern, analysed with the same
   sort window, threshold and long-row limit (the layout is a function of these).  The patterns are compared
   once: the result is remembered with both matrices' nonzero states (a pattern change moves them), and
   SAME_NONZERO_PATTERN is taken at its word, as SeqAIJ takes it (checked in debug builds).  So a repeated
   MatAXPY/MatCopy is one kernel over the layout values, never a host pass over the pattern. */
static PetscErrorCode SameLayout(Mat X, Mat Y, MatStructure str, PetscBool *same)
{
  PetscBool isx, isy;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &isx));
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQELLWARP, &isy));
  if (!isx || !isy || X->boundtocpu || Y->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  {
    Mat_SeqELLWARP *ex = (Mat_SeqELLWARP *)X->spptr, *ey = (Mat_SeqELLWARP *)Y->spptr;
    Mat_SeqAIJ     *ax = (Mat_SeqAIJ *)X->data, *ay = (Mat_SeqAIJ *)Y->data;
    PetscBool       eq = PETSC_FALSE, known;

    if (ex->backend != ey->backend || X->rmap->n != Y->rmap->n || X->cmap->n != Y->cmap->n || ax->nz != ay->nz) PetscFunctionReturn(PETSC_SUCCESS);
    /* Y (the matrix written) without a current layout: the host CSR (seqellwarpaxpy.c), no analysis to add two
       matrices (PCGAMG's graph, Gmat + Gmat^T, analysed both copies of the fine pattern for one MatAXPY) */
    if (NoLayout(Y)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatSeqELLWARPSyncLayout(X));
    PetscCall(MatSeqELLWARPSyncLayout(Y));
    {
      const EllwarpLayout *lx = ex->L, *ly = ey->L;
      if (!(lx->nslots == ly->nslots && lx->nslices == ly->nslices && lx->nlong == ly->nlong && lx->threshold == ly->threshold && lx->sortwindow == ly->sortwindow && lx->kernel == ly->kernel && lx->longrow == ly->longrow)) PetscFunctionReturn(PETSC_SUCCESS);
    }
    known = (PetscBool)((ex->samepeer == ((PetscObject)Y)->id && ex->samepeerstate == Y->nonzerostate && ex->sameownstate == X->nonzerostate) || (ey->samepeer == ((PetscObject)X)->id && ey->samepeerstate == X->nonzerostate && ey->sameownstate == Y->nonzerostate));
    if (known || (str == SAME_NONZERO_PATTERN && !PetscDefined(USE_DEBUG))) {
      *same = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscArraycmp(ax->i, ay->i, X->rmap->n + 1, &eq));
    if (eq) PetscCall(PetscArraycmp(ax->j, ay->j, ax->nz, &eq));
    PetscCheck(eq || str != SAME_NONZERO_PATTERN, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP: SAME_NONZERO_PATTERN given for matrices with different nonzero patterns");
    if (!eq) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatSeqELLWARPRememberSamePattern(X, Y));
    *same = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X and Y have the same CSR pattern now (a comparison, or Y is X's duplicate) */
PetscErrorCode MatSeqELLWARPRememberSamePattern(Mat X, Mat Y)
{
  Mat_SeqELLWARP *ex = (Mat_SeqELLWARP *)X->spptr, *ey = (Mat_SeqELLWARP *)Y->spptr;

  PetscFunctionBegin;
  ex->samepeer      = ((PetscObject)Y)->id;
  ex->samepeerstate = Y->nonzerostate;
  ex->sameownstate  = X->nonzerostate;
  ey->samepeer      = ((PetscObject)X)->id;
  ey->samepeerstate = X->nonzerostate;
  ey->sameownstate  = Y->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Same layouts: one kernel over the layout values.  Otherwise, and for Y an AIJ-family product result that carries
   this op (a partner in PCGAMG's prolongator smoothing): seqellwarpaxpy.c */
PetscErrorCode MatAXPY_SeqELLWARP(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscBool same, isy;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQELLWARP, &isy));
  if (isy) PetscCall(SameLayout(X, Y, str, &same));
  if (isy && same) {
    Mat_SeqELLWARP *ey = (Mat_SeqELLWARP *)Y->spptr;

    PetscCall(ey->k->axpy(ey->S, a, ((Mat_SeqELLWARP *)X->spptr)->S));
    LayoutChanged(Y);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqELLWARPAXPYMixed_Private(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCopy_SeqELLWARP(Mat A, Mat B, MatStructure str)
{
  Mat_SeqELLWARP *ea = (Mat_SeqELLWARP *)A->spptr;
  PetscBool       same, isb;

  PetscFunctionBegin;
  PetscCall(SameLayout(A, B, str, &same));
  if (same) {
    PetscCall(ea->k->copy(((Mat_SeqELLWARP *)B->spptr)->S, ea->S));
    LayoutChanged(B);
    PetscCall(PetscObjectStateIncrease((PetscObject)B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQELLWARP, &isb));
  if (isb) PetscCall(MatSeqELLWARPSyncHost(B));
  PetscCall(ea->aijops.copy(A, B, str));
  if (isb) B->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatNorm_SeqELLWARP(Mat A, NormType type, PetscReal *nrm)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  ELLWARP_IF_BOUND(A, e->aijops.norm(A, type, nrm));
  PetscCheck(type == NORM_1 || type == NORM_FROBENIUS || type == NORM_INFINITY, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATSEQELLWARP does not support norm %s", NormTypes[type]);
  if (type == NORM_1) { /* column sums are the row sums of the transpose */
    PetscCall(SyncTranspose(A));
    PetscCall(e->k->norm(e->St, NORM_INFINITY, nrm));
  } else {
    PetscCall(MatSeqELLWARPSyncLayout(A));
    PetscCall(e->k->norm(e->S, type, nrm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Install the layout operations on a matrix whose aijops already hold SeqAIJ's. */
PetscErrorCode MatSeqELLWARPSetLayoutOps(Mat B)
{
  PetscFunctionBegin;
  B->ops->mult             = MatMult_SeqELLWARP;
  B->ops->multadd          = MatMultAdd_SeqELLWARP;
  B->ops->multtranspose    = MatMultTranspose_SeqELLWARP;
  B->ops->multtransposeadd = MatMultTransposeAdd_SeqELLWARP;
  B->ops->getdiagonal      = MatGetDiagonal_SeqELLWARP;
  B->ops->scale            = MatScale_SeqELLWARP;
  B->ops->shift            = MatShift_SeqELLWARP;
  B->ops->diagonalscale    = MatDiagonalScale_SeqELLWARP;
  B->ops->zeroentries      = MatZeroEntries_SeqELLWARP;
  B->ops->zerorows         = MatZeroRows_SeqELLWARP;
  B->ops->zerorowscolumns  = MatZeroRowsColumns_SeqELLWARP;
  B->ops->axpy             = MatAXPY_SeqELLWARP;
  B->ops->copy             = MatCopy_SeqELLWARP;
  B->ops->norm             = MatNorm_SeqELLWARP;
  PetscFunctionReturn(PETSC_SUCCESS);
}
