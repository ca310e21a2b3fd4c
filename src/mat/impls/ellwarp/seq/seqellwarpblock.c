/* MATSEQELLWARP's blocked product layout (ellwarpblock.h): the choice, its upkeep and the products.

   The scalar layout stays the matrix's store: every value operation (MatSetValues and the refresh, COO, the
   DMAssembly target, MatScale/Shift/DiagonalScale/ZeroRows(Columns), AXPY, Copy, norms, diagonal) keeps running on
   it unchanged.  The blocked layout is a second, derived copy of the values for the products only, as the
   transpose layout is: built at the first product after an analysis, and re-gathered whenever the values changed
   since (Mat_SeqELLWARP.valversion, incremented wherever the layout values change): straight from the scalar layout
   by a slot map (blocked value -> scalar slot, 4 bytes a value, built at the first refresh: gatherslots), the
   transpose from the CSR staging copy (after a scatter of the scalar layout when that is newer: seqellwarpops.c's
   SyncStaging).  So it is never stale, and no operation needs a blocked variant; the cost is a second copy of the
   values (and the map) in memory and one pass per value change before the next product (the first product after an
   assembly; the staging path took 12.3 ms for mesh 3 of the elasticity benchmark, 3x the assembly).

   The choice (once per analysis: MatSeqELLWARPBlockPrechoose before the scalar analysis where the blocked layout beats
   the least bytes of any scalar layout, which is then built as a value store; else MatSeqELLWARPBlockChoose after
   it, against the scalar layout's own bytes): the block size of MatSetBlockSize() when it is 2..6
   and the pattern is blocked by it (EllwarpBlockDetect: every bs x bs block dense or empty), else, with block size
   1, the largest of 6..2 that the pattern is blocked by (said with -info).  Lanes per block row T (1..32): those of
   -mat_ellwarp_block_lanes, else (0) EllwarpBlockChooseLanes(), the least time of the lanes model (blocklayout.c:
   the bytes at the bandwidth, the widest slice's latency-bound steps, all slices' steps over the resident warps).
   -mat_ellwarp_block on uses the blocked layout wherever the pattern allows; auto when the model's time of the
   blocked layout with its T is at least ELLWARP_BLOCK_MIN_SAVING below the scalar layout's
   (EllwarpBlockModelScalarTime: its bytes, EllwarpLayoutBytesMult, at the same bandwidth) and no lane walks more than
   ELLWARP_BLOCK_MAXROW values; off never.  So a matrix whose block rows are long and vary (DMPlex P2/Q2 elasticity,
   a refined gmsh mesh) takes the blocked layout with T > 1 where one thread per block row (T = 1) would wait on the
   longest rows.  MatView and -info say which layout the products use, with which T and why, with both byte counts
   and the model's times. */
#include <petscellwarp/private/matellwarpimpl.h>

#define ELLWARP_BLOCK_WINDOW      256  /* sort window in block rows of larger matrices (the scalar layout's window is 256 rows) */
#define ELLWARP_BLOCK_WHOLE_MB    152064 /* up to this many block rows the whole matrix is one sort window */
/* Why a whole-matrix sort for small matrices: with up to ~3 rounds of resident warps (132 SMs x 48) the last, partial
   round decides the time, and a whole sort (longest block rows first) leaves it the narrowest slices, where a
   256-block-row window leaves each window's widest anywhere (the scalar layout's ELLWARP_WHOLE_ROUNDS, layout.c, for the
   same reason).  152064 block rows = 3 x 6336 warps x 8 block rows a slice at T = 4.  H100, DMPlex default numbering,
   0.35-0.43 M rows, cold (benchmarks/results/spmv-h100-dmplex/blocked-window/): box Q2 elasticity 247.4 -> 232.4 us,
   gmsh LV P1 elasticity T = 4 88.7 -> 81.3 and T = 1 86.1 -> 81.6 us, box P1/P2/Q1 within 1 % (either way).  Larger
   matrices keep the window: there the tail is a small part of the time and a window keeps a warp's rows (x, y) near. */
static PetscInt BlockSortWindow(PetscInt mb, PetscInt user)
{
  if (user) return user;
  return mb <= ELLWARP_BLOCK_WHOLE_MB ? PetscMax(ELLWARP_LANES, (mb + ELLWARP_LANES - 1) / ELLWARP_LANES * ELLWARP_LANES) : ELLWARP_BLOCK_WINDOW;
}
#define ELLWARP_BLOCK_MIN_SAVING  0.03 /* auto: the blocked layout's modelled time must be at least 3 % less */
#define ELLWARP_BLOCK_MAXROW      8192 /* auto: values one lane walks in the longest block row (bs^2 x its blocks / T) */
/* The former rule (one thread per block row) also required row lengths with std/mean <= 0.2: H100, DMPlex-built
   elasticity matrices in benchmarks/results/spmv-h100-dmplex/blocked-layout: blocked (T = 1) faster than scalar by
   1.10-1.21x on box P1 and Q1 (std/mean 0.12-0.14), slower by 0.54-0.83x on box P2, Q2 (0.45-0.50) and the refined
   gmsh LV's P1 (0.23).  Those slow times are what the lanes model's widest-slice term fits (blocklayout.c). */

const char *const MatEllwarpBlockModes[] = {"auto", "on", "off", "MatEllwarpBlockMode", "MAT_ELLWARP_BLOCK_", NULL};

PetscErrorCode MatSeqELLWARPBlockFree(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->kb) {
    PetscCall(e->kb->destroy(&e->Sbt));
    PetscCall(e->kb->destroy(&e->Sb));
  }
  PetscCall(EllwarpBlockLayoutDestroy(&e->Lbt));
  PetscCall(EllwarpBlockLayoutDestroy(&e->Lb));
  e->kb       = NULL;
  e->bdecided = -1;
  e->bpre     = -1;
  e->bbytes   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block size the pattern is blocked by: the matrix's own (MatSetBlockSize) if it is, else (block size 1) the
   largest of 6..2 that fits; 1 if none */
static PetscErrorCode FindBlockSize(Mat A, PetscInt *bs, PetscBool *detected)
{
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;
  PetscInt    rbs, cbs, m = A->rmap->n, n = A->cmap->n;
  PetscBool   blocked;

  PetscFunctionBegin;
  *bs       = 1;
  *detected = PETSC_FALSE;
  PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
  if (rbs == cbs && rbs >= 2 && rbs <= ELLWARP_BLOCK_MAXBS) {
    PetscCall(EllwarpBlockDetect(m, n, a->i, a->j, rbs, &blocked));
    if (blocked) *bs = rbs;
    else PetscCall(PetscInfo(A, "Block size %" PetscInt_FMT " set, but the nonzero pattern has %" PetscInt_FMT " x %" PetscInt_FMT " blocks that are neither dense nor empty: scalar layout\n", rbs, rbs, rbs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rbs != 1 || cbs != 1) PetscFunctionReturn(PETSC_SUCCESS); /* other block sizes (> 6, or rows unlike columns): scalar */
  for (PetscInt b = ELLWARP_BLOCK_MAXBS; b >= 2; b--) {
    PetscCall(EllwarpBlockDetect(m, n, a->i, a->j, b, &blocked));
    if (blocked) {
      *bs       = b;
      *detected = PETSC_TRUE;
      PetscCall(PetscInfo(A, "Detected block size %" PetscInt_FMT " from the nonzero pattern (every %" PetscInt_FMT " x %" PetscInt_FMT " block dense or empty; block size 1 was set)\n", b, b, b));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocked layout of the pattern and its lanes model, no decision yet: e->bsize, e->Lb (NULL, with e->bwhy
   saying why, when the products cannot use it), e->bmodel, e->bbytes, e->bsizes (for the decision's line) */
static PetscErrorCode BlockAnalyse(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)A->data;
  PetscInt        bs, W; /* W: the sort window of the blocked layout (BlockSortWindow) */
  PetscBool       detected;
  const char     *mode = MatEllwarpBlockModes[e->blockmode];
  PetscLogDouble  t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPBlockFree(A));
  e->bsize = 1;
  if (e->blockmode == 2) {
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "scalar layout: -mat_ellwarp_block off"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!a->nz) {
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "scalar layout: no entries"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCall(FindBlockSize(A, &bs, &detected));
  PetscCall(PetscTime(&t1));
  e->bsize = bs;
  if (bs == 1) {
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "scalar layout: the pattern is not blocked by a block size 2..%d (-mat_ellwarp_block %s)", ELLWARP_BLOCK_MAXBS, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Analysis, A, 0, 0, 0));
  W = BlockSortWindow(A->rmap->n / bs, e->blockwindow);
  PetscCall(EllwarpBlockLayoutCreateLanes(A->rmap->n, A->cmap->n, bs, a->i, a->j, NULL, W, e->par.compress, e->par.compressbias, e->blocklanes ? e->blocklanes : 1, 0, &e->Lb));
  {
    /* the lanes: forced, or the model's (from the sorted lengths of the layout just built, which are every T's) */
    EllwarpBlockModel M[6];
    PetscInt          T, Tmodel;
    char              why[96];

    PetscCall(EllwarpBlockChooseLanes(e->Lb, &Tmodel, M));
    T = e->blocklanes ? e->blocklanes : Tmodel;
    if (e->blocklanes) PetscCall(PetscSNPrintf(why, sizeof(why), "T = %" PetscInt_FMT " lanes per block row (-mat_ellwarp_block_lanes; the model's: %" PetscInt_FMT ")", T, Tmodel));
    else PetscCall(PetscSNPrintf(why, sizeof(why), "T = %" PetscInt_FMT " lanes per block row (the automatic rule: 2 where it models 2 %% faster than T = 4, else 4; 1, 8, 16, 32 only when forced)", T));
    PetscCall(PetscInfo(A, "Blocked lanes model (us: bytes, widest slice, rounds -> time): T=1 %.1f %.1f %.1f -> %.1f, T=2 -> %.1f, T=4 -> %.1f, T=8 -> %.1f, T=16 -> %.1f, T=32 -> %.1f (longest block row %" PetscInt_FMT "); %s\n", (double)M[0].bytes_us, (double)M[0].widest_us, (double)M[0].rounds_us, (double)M[0].time_us, (double)M[1].time_us, (double)M[2].time_us, (double)M[3].time_us, (double)M[4].time_us, (double)M[5].time_us, e->Lb->maxrowlen, why));
    if (T != e->Lb->lanes) {
      PetscCall(EllwarpBlockLayoutDestroy(&e->Lb));
      PetscCall(EllwarpBlockLayoutCreateLanes(A->rmap->n, A->cmap->n, bs, a->i, a->j, NULL, W, e->par.compress, e->par.compressbias, T, 0, &e->Lb));
    }
    PetscCall(EllwarpBlockModelTime(e->Lb, T, &e->bmodel));
  }
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Analysis, A, 0, 0, 0));
  PetscCall(PetscTime(&t2));
  e->bbytes = EllwarpBlockBytesMult(e->Lb);
  PetscCall(PetscSNPrintf(e->bsizes, sizeof(e->bsizes), "block size %" PetscInt_FMT "%s, T = %" PetscInt_FMT " lanes per block row%s", bs, detected ? " (detected from the pattern)" : "", e->Lb->lanes, e->blocklanes ? " (-mat_ellwarp_block_lanes)" : " (model)"));
  PetscCall(PetscInfo(A, "Blocked layout analysis on the host: block-size check %.3f ms, layout %.3f ms\n", 1e3 * (t1 - t0), 1e3 * (t2 - t1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The decision for e->Lb against a scalar layout of sbytes per product; bound: sbytes is the least any scalar layout
   of the pattern moves (EllwarpLayoutBytesMultMin, before the scalar layout is built), so a "blocked" answer holds
   for every scalar layout and a "scalar" one is not final */
static PetscErrorCode BlockDecide(Mat A, PetscLogDouble sbytes, PetscBool bound, PetscBool *use)
{
  Mat_SeqELLWARP *e   = (Mat_SeqELLWARP *)A->spptr;
  const PetscReal nnz = (PetscReal)((Mat_SeqAIJ *)A->data)->nz;
  const PetscInt  T = e->Lb->lanes, walk = (e->Lb->maxrowlen + T - 1) / T * e->Lb->bs * e->Lb->bs;
  const char     *sc  = bound ? "any scalar layout's least" : "scalar"; /* the bound: 16-bit columns, no padding */
  PetscReal       save;

  PetscFunctionBegin;
  *use         = PETSC_FALSE;
  e->sbytes    = sbytes;
  e->sbound    = bound;
  e->smodel_us = EllwarpBlockModelScalarTime(sbytes);
  save         = 1.0 - e->bmodel.time_us / e->smodel_us;
  if (e->blockmode == 1) {
    *use = PETSC_TRUE;
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "blocked layout, %s: -mat_ellwarp_block on; %.2f bytes per nonzero against %.2f %s; model %.1f us against %.1f", e->bsizes, (double)(e->bbytes / nnz), (double)(sbytes / nnz), sc, (double)e->bmodel.time_us, (double)e->smodel_us));
  } else if (walk > ELLWARP_BLOCK_MAXROW) {
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "scalar layout: a block row of %" PetscInt_FMT " blocks (%" PetscInt_FMT " values for one lane) is longer than the blocked kernels take (%d); blocked %.2f, %s %.2f bytes per nonzero, %s", e->Lb->maxrowlen, walk, ELLWARP_BLOCK_MAXROW, (double)(e->bbytes / nnz), sc, (double)(sbytes / nnz), e->bsizes));
  } else if (save < ELLWARP_BLOCK_MIN_SAVING) {
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "scalar layout: blocked model %.1f us (%s) against %s %.1f us saves %.1f %% < %.0f %%; %.2f against %.2f bytes per nonzero, %s (-mat_ellwarp_block auto)", (double)e->bmodel.time_us, e->bmodel.time_us > e->bmodel.bytes_us ? "latency bound" : "bandwidth bound", sc, (double)e->smodel_us, (double)(100 * save), 100 * ELLWARP_BLOCK_MIN_SAVING, (double)(e->bbytes / nnz), (double)(sbytes / nnz), e->bsizes));
  } else {
    *use = PETSC_TRUE;
    PetscCall(PetscSNPrintf(e->bwhy, sizeof(e->bwhy), "blocked layout, %s: model %.1f us against %s %.1f us, %.1f %% less; %.2f bytes per nonzero against %.2f (-mat_ellwarp_block auto)", e->bsizes, (double)e->bmodel.time_us, sc, (double)e->smodel_us, (double)(100 * save), (double)(e->bbytes / nnz), (double)(sbytes / nnz)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the decision made for analysis number `analysis`: the blocked store created, or the blocked layout dropped */
static PetscErrorCode BlockFinish(Mat A, PetscBool use, PetscInt analysis)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  e->bdecided = analysis;
  e->bpre     = -1;
  PetscCall(PetscInfo(A, "Products: %s\n", e->bwhy));
  if (!use) {
    PetscCall(EllwarpBlockLayoutDestroy(&e->Lb)); /* bbytes stays for MatView */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(ELLWARP_HAVE_CUDA)
  e->kb = e->backend == MAT_ELLWARP_BACKEND_CUDA ? &EllwarpBlockCUDAOps : &EllwarpBlockHostOps;
#else
  e->kb = &EllwarpBlockHostOps;
#endif
  /* the store (device memory for the values: 8 B a value) is created at the first product (MatSeqELLWARPBlockSync),
     not here: a choice made at the analysis must not add to the memory of a set-up that never multiplies */
  e->Sbversion = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the scalar analysis (MatSeqELLWARPAnalyse, whose number will be `analysis`): the blocked layout's analysis
   and, where the blocked layout beats even the least any scalar layout moves, the final choice; *store then says
   that the products will not read the scalar layout, which the analysis then builds as a value store
   (seqellwarpops.c).  Otherwise MatSeqELLWARPBlockChoose decides after the scalar analysis, reusing this one. */
PetscErrorCode MatSeqELLWARPBlockPrechoose(Mat A, PetscInt analysis, PetscBool *store)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscBool       use;

  PetscFunctionBegin;
  *store = PETSC_FALSE;
  PetscCall(BlockAnalyse(A));
  e->bpre = analysis;
  if (!e->Lb) PetscFunctionReturn(PETSC_SUCCESS); /* Choose says why (bwhy) */
  PetscCall(BlockDecide(A, EllwarpLayoutBytesMultMin(A->rmap->n, A->cmap->n, ((Mat_SeqAIJ *)A->data)->nz), PETSC_TRUE, &use));
  if (!use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BlockFinish(A, PETSC_TRUE, analysis));
  *store = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPBlockChoose(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscBool       use = PETSC_FALSE;

  PetscFunctionBegin;
  /* a new -mat_ellwarp_block mode makes a new analysis (ReadOptions), so the analysis number names the decision */
  if (e->bdecided == e->nanalyses) PetscFunctionReturn(PETSC_SUCCESS);
  if (e->bpre != e->nanalyses) PetscCall(BlockAnalyse(A)); /* else the prechoice's analysis */
  if (e->Lb) PetscCall(BlockDecide(A, EllwarpLayoutBytesMult(e->L), PETSC_FALSE, &use));
  else {
    e->sbytes = EllwarpLayoutBytesMult(e->L);
    e->sbound = PETSC_FALSE;
  }
  PetscCall(BlockFinish(A, use, e->nanalyses));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CSR values the refreshes read, current (seqellwarpops.c's StagingCSR and SyncStaging): the SeqAIJ array
   for the host backend, the device staging copy for the CUDA one; the scalar layout scattered into it when newer */
static PetscErrorCode Staging(Mat A, const PetscScalar **csr)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscScalar    *s = e->backend == MAT_ELLWARP_BACKEND_HOST ? ((Mat_SeqAIJ *)A->data)->a : e->csr;

  PetscFunctionBegin;
  if (A->offloadmask == PETSC_OFFLOAD_GPU) {
    PetscCall(e->k->scatter(e->S, s));
    if (e->backend == MAT_ELLWARP_BACKEND_HOST) A->offloadmask = PETSC_OFFLOAD_BOTH;
  }
  *csr = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scalar layout current (always), then: *use says whether the product (trans: the transposed one) runs on
   the blocked layout, whose values are then current */
PetscErrorCode MatSeqELLWARPBlockSync(Mat A, PetscBool trans, PetscBool *use)
{
  Mat_SeqELLWARP     *e = (Mat_SeqELLWARP *)A->spptr;
  EllwarpBlockStore **S;
  PetscInt64         *ver;

  PetscFunctionBegin;
  *use = PETSC_FALSE;
  PetscCall(MatSeqELLWARPSyncLayout(A));
  PetscCall(MatSeqELLWARPBlockChoose(A));
  if (!e->Lb) PetscFunctionReturn(PETSC_SUCCESS);
  if (!e->Sb) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(e->kb->create(e->Lb, &e->Sb));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(A, "Blocked store created at the first product: %.3f ms\n", 1e3 * (t1 - t0)));
    e->Sbversion = -1;
  }
  if (trans && !e->Lbt) {
    Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;
    PetscInt   *bi, *bj, *map;
    PetscBool   blocked;

    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Analysis, A, 0, 0, 0));
    PetscCall(EllwarpLayoutTranspose(A->rmap->n, A->cmap->n, a->i, a->j, &bi, &bj, &map));
    PetscCall(EllwarpBlockDetect(A->cmap->n, A->rmap->n, bi, bj, e->Lb->bs, &blocked));
    PetscCheck(blocked, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the transpose of a %" PetscInt_FMT "-blocked pattern is not blocked", e->Lb->bs);
    /* the same lanes as the products by A (a blocked FE operator's transpose has the same block-row lengths) */
    PetscCall(EllwarpBlockLayoutCreateLanes(A->cmap->n, A->rmap->n, e->Lb->bs, bi, bj, map, e->Lb->sortwindow, e->par.compress, e->par.compressbias, e->Lb->lanes, 0, &e->Lbt));
    PetscCall(PetscFree(bi));
    PetscCall(PetscFree2(bj, map));
    PetscCall(e->kb->create(e->Lbt, &e->Sbt));
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Analysis, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "Built the blocked transpose layout for MatMultTranspose (%" PetscInt_FMT " slices)\n", e->Lbt->nslices));
    e->Sbtversion = -1;
  }
  S   = trans ? &e->Sbt : &e->Sb;
  ver = trans ? &e->Sbtversion : &e->Sbversion;
  if (*ver != e->valversion) {
    PetscCall(PetscLogEventBegin(MAT_ELLWARP_Refresh, A, 0, 0, 0));
    if (!trans) { /* straight from the scalar layout (current: synced above) by the slot map, one pass */
      PetscScalar    *sval;
      const PetscInt *s2c;
      PetscCall(MatSeqELLWARPStoreArrays(A, &sval, &s2c));
      PetscCall(e->kb->gatherslots(*S, e->L->nslots, s2c, sval));
    } else { /* the transpose's values are a permutation of the CSR's: from the staging copy */
      const PetscScalar *csr;
      PetscCall(Staging(A, &csr));
      PetscCall(e->kb->gather(*S, csr));
    }
    PetscCall(PetscLogEventEnd(MAT_ELLWARP_Refresh, A, 0, 0, 0));
    *ver = e->valversion;
  }
  *use = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the steps of a lane loaded together by the blocked kernels (-mat_ellwarp_tune block_batch; same sums for every
   value).  Automatic: 2 with T > 1 lanes per block row, 1 with one.  H100, DMPlex elasticity in the default
   numbering (benchmarks/results/spmv-h100-dmplex/batched-kernel/registers/): with T = 4 lanes P2 113.3 -> 101.3 us and
   Q2 231.7 -> 207.1 (U = 4: 102.8, 208.4); with one lane (BlockMultRow, whose thread already has bs^2 value loads of a
   step in flight) P1 60.4 -> 63.3, Q1 96.7 -> 100.3 at U = 2, the gmsh LV 84.3 -> 87.2 (82.5 at U = 4, 2 %) */
static PetscInt BlockBatch(const Mat_SeqELLWARP *e)
{
  return e->tune.blockbatch > 0 ? e->tune.blockbatch : (e->Lb->lanes > 1 ? 2 : 1);
}

PetscErrorCode MatSeqELLWARPBlockMult(Mat A, PetscBool trans, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(e->kb->mult(trans ? e->Sbt : e->Sb, e->blockmap, BlockBatch(e), x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPBlockView(Mat A, PetscViewer viewer)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPBlockChoose(A));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  products: %s\n", e->bwhy));
  if (e->Lb) {
    const EllwarpBlockLayout *L = e->Lb;
    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocked layout: %" PetscInt_FMT " block rows, %" PetscCount_FMT " blocks in %" PetscInt_FMT " slices of %" PetscInt_FMT " block rows, T = %" PetscInt_FMT " lanes per block row (padding ratio %.4f, not read), %" PetscInt_FMT " slices with 16-bit block columns (%" PetscInt_FMT " of them from the block row plus a bias per step and lane), longest block row %" PetscInt_FMT ", sort window %" PetscInt_FMT ", thread mapping %s, %" PetscInt_FMT " steps of a lane loaded together (%s)\n", L->mb, L->nnzb, L->nslices, L->rows, L->lanes,
                                     L->nnzb ? (double)L->nslots / (double)L->nnzb : 1.0, L->n16, L->nbias, L->maxrowlen, L->sortwindow, L->lanes > 1 ? "lanes (T lanes per block row, shuffle reduction)" : EllwarpBlockMaps[e->blockmap == ELLWARP_BLOCK_MAP_LANE ? ELLWARP_BLOCK_MAP_LANE : ELLWARP_BLOCK_MAP_ROW], BlockBatch(e),
                                     e->tune.blockbatch > 0 ? "-mat_ellwarp_tune block_batch" : "automatic: 2 with T > 1, else 1"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocked lanes model: %.1f us (bytes %.1f, widest slice of %" PetscInt_FMT " steps %.1f, rounds %.1f) against %s %.1f us\n", (double)e->bmodel.time_us, (double)e->bmodel.bytes_us, e->bmodel.maxwidth, (double)e->bmodel.widest_us, (double)e->bmodel.rounds_us, e->sbound ? "any scalar layout's least" : "scalar", (double)e->smodel_us));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
