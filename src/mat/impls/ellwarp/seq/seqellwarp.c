/* MATSEQELLWARP life cycle: creation from (or conversion of) a SeqAIJ, options, assembly, view,
   duplication, conversion back, destruction. */
#include <petscellwarp/private/matellwarpcommon.h>
#include <petscellwarp/private/tunelist.h>
#include <petscellwarp/private/matellwarpaxpy.h>

const char *const MatEllwarpKernels[]  = {"auto", "k1", "k2", "MatEllwarpKernel", "MAT_ELLWARP_KERNEL_", NULL};
const char *const MatEllwarpBackends[] = {"cuda", "host", "MatEllwarpBackend", "MAT_ELLWARP_BACKEND_", NULL};

static PetscErrorCode SetBackend(Mat A, MatEllwarpBackend b)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->k && e->backend != b) { /* moving: keep the values on the host, rebuild in the new backend */
    PetscCall(MatSeqELLWARPSyncHost(A));
    PetscCall(MatSeqELLWARPBlockFree(A)); /* its store belongs to the old backend */
    if (e->St) PetscCall(e->k->destroy(&e->St));
    if (e->S) PetscCall(e->k->destroy(&e->S));
    PetscCall(e->k->csrfree(&e->csr));
    PetscCall(EllwarpLayoutDestroy(&e->Lt));
    PetscCall(EllwarpLayoutDestroy(&e->L));
    e->k = NULL;
    if (A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) A->offloadmask = PETSC_OFFLOAD_CPU;
  }
  e->backend = b;
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(b == MAT_ELLWARP_BACKEND_CUDA ? VECCUDA : VECSTANDARD, &A->defaultvectype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_ellwarp_tune: every key, who reads it (NULL: both backends) and what it does.  Knobs for testing and
   tuning that never change a default (benchmarks/spmv -formats variants, benchmarks/coo -variants measure them);
   ReadOptions() rejects any other key. */
static const PetscEllwarpTuneKey TuneKeys[] = {
  {"threshold",          NULL,   "K2: most entries per lane before a row is split further (0: automatic; MatEllwarpSetKernel())"                          },
  {"sort_window",        NULL,   "sort rows by length within windows of this many rows (-1: automatic, 0: whole matrix, else a multiple of 32)"         },
  {"long_row",           NULL,   "rows longer than this are summed by whole thread blocks in chunks of 2048 (0: automatic, -1: never)"                   },
  {"compress_columns",   NULL,   "16-bit column offsets in the slices where they fit (default 1)"                                                        },
  {"compress_bias",      NULL,   "with compressed columns: 16-bit offsets from the row plus a bias per entry position where row-relative ones do not fit (default 1)"},
  {"compress_dict",      NULL,   "with compressed columns: 16-bit codes into a per-slice dictionary of 512-column windows where neither 16-bit offset mode fits and it saves bytes (default 0: measured slower)"},
  {"analysis",           NULL,   "where the pattern analysis runs: device or host (the reference; default: device with the cuda backend)"               },
  {"store_layout",       NULL,   "where the products use the blocked layout, build the scalar layout as a value store: K1, sort window 256, least padding (default 1)"},
  {"analysis_drop_host", NULL,   "test hook: after a host analysis the matrix keeps only the layout's scalars, as after a device analysis"              },
  {"block_size",         "cuda", "threads per CUDA block, a multiple of 32 up to 1024 (0: automatic)"                                                   },
  {"mult_lanes",         "cuda", "slice kernel: consecutive lanes (rows) per thread, 1, 2 or 4, with vector loads (0: automatic)"                       },
  {"mult_acc",           NULL,   "slice kernel: independent accumulators per lane, 1, 2 or 4 (0: automatic; changes the order of summation)"            },
  {"mult_unroll",        "cuda", "slice kernel: steps of a lane in flight, 4 or 8 (0: automatic)"                                                       },
  {"mult_nc",            "cuda", "slice kernel: values and columns through ld.global.nc.L1::no_allocate (default 0)"                                    },
  {"mult_batch",         "cuda", "slice kernel: steps of a lane whose columns and values are loaded before their x entries, 1 (the step loop), 2, 4 or 8 (0: automatic)"},
  {"mult_prefetch",      "cuda", "with mult_batch > 1: the next batch's columns and values loaded before this batch's x entries (default 0)"           },
  {"mult_regs",          "cuda", "with mult_batch > 1: registers per thread at most, 32 or 40 (0: the compiler's choice)"                               },
  {"long_unroll",        "cuda", "long-row chunks: entries per thread loaded before summing, 1, 2, 4 (a kernel of their own) or 8 (0: automatic, 8)"    },
  {"coo_unroll",         "cuda", "COO with duplicates: entries per thread in flight, 1, 2, 4, 8 or 16 (0: automatic, 8)"                               },
  {"coo_block_size",     "cuda", "COO kernels: threads per block, a multiple of 32 up to 1024 (0: 256)"                                                },
  {"gather",             "cuda", "new host values: auto (= slice), slice (row form staged in shared memory), rows (row form lane by lane) or map (per-slot map)"},
  {"block_map",          "cuda", "blocked layout: thread mapping, auto (= row), row (a thread per block row) or lane (a thread per scalar row of a block row)"},
  {"block_batch",        "cuda", "blocked layout: steps of a lane whose block columns and x entries are loaded before the values are summed, 1, 2 or 4 (0: automatic)"},
  {"block_sort_window",  NULL,   "blocked layout: sort block rows by length within windows of this many block rows, a multiple of 32 (0: automatic, 256)"},
};

static PetscErrorCode ReadOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqELLWARP      *e = (Mat_SeqELLWARP *)A->spptr;
  MatEllwarpBackend    b = e->backend;
  EllwarpParams        p = e->par;
  PetscInt             blockmode   = e->blockmode;
  PetscBool            storelayout = e->storelayout;
  PetscBool            set, tset;
  char                 tune[PETSC_MAX_PATH_LEN];
  PetscEllwarpTuneList T;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&T, sizeof(T)));
  PetscOptionsHeadBegin(PetscOptionsObject, "MATSEQELLWARP options");
  PetscCall(PetscOptionsEnum("-mat_ellwarp_backend", "Where the layout lives and the kernels run", "MatEllwarpSetBackend", MatEllwarpBackends, (PetscEnum)b, (PetscEnum *)&b, &set));
  PetscCall(PetscOptionsEnum("-mat_ellwarp_kernel", "Kernel family (auto: chosen from row-length statistics)", "MatEllwarpSetKernel", MatEllwarpKernels, (PetscEnum)p.kernel, (PetscEnum *)&p.kernel, NULL));
  PetscCall(PetscOptionsEList("-mat_ellwarp_block", "Products on the blocked layout for block size 2..6 (auto: where it moves fewer bytes; on: wherever the pattern is blocked; off)", "MATELLWARP", MatEllwarpBlockModes, 3, MatEllwarpBlockModes[blockmode], &blockmode, NULL));
  {
    PetscInt lanes = e->blocklanes;
    PetscCall(PetscOptionsInt("-mat_ellwarp_block_lanes", "Blocked layout: lanes per block row, 1, 2, 4, 8, 16 or 32 (0: the lanes model's choice)", "MATELLWARP", lanes, &lanes, NULL));
    PetscCheck(lanes >= 0 && lanes <= ELLWARP_BLOCK_MAXLANES && !(lanes & (lanes - 1)), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_block_lanes %" PetscInt_FMT " must be 0 (automatic), 1, 2, 4, 8, 16 or 32", lanes);
    if (lanes != e->blocklanes) {
      e->blocklanes = lanes;
      e->bdecided   = -1; /* the blocked layout is built again at the next product */
    }
  }
  PetscCall(PetscOptionsString("-mat_ellwarp_tune", "Developer knobs that never change a default: key=value[,key=value...] (an unknown key lists them)", "MATELLWARP", "", tune, sizeof(tune), &tset));
  PetscCall(PetscEllwarpTuneListPrintHelp(PetscOptionsObject, "-mat_ellwarp_tune", TuneKeys, PETSC_STATIC_ARRAY_LENGTH(TuneKeys)));
  PetscOptionsHeadEnd();
  if (tset) PetscCall(PetscEllwarpTuneListParse(PetscObjectComm((PetscObject)A), "-mat_ellwarp_tune", TuneKeys, PETSC_STATIC_ARRAY_LENGTH(TuneKeys), tune, &T));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "threshold", 0, PETSC_INT_MAX, &p.threshold));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "sort_window", -1, PETSC_INT_MAX, &p.sortwindow));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "long_row", -1, PETSC_INT_MAX, &p.longrow));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "compress_columns", &p.compress));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "compress_bias", &p.compressbias));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "compress_dict", &p.compressdict));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "store_layout", &storelayout));
  {
    static const char *const where[] = {"device", "host"};
    PetscCall(PetscEllwarpTuneListGetEList(&T, "analysis", where, 2, &p.analysis));
  }
  PetscCall(PetscEllwarpTuneListGetInt(&T, "block_size", 0, 1024, &e->blocksize));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "mult_lanes", 0, 4, &e->tune.multlanes));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "mult_acc", 0, 4, &e->tune.multacc));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "mult_unroll", 0, 8, &e->tune.multunroll));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "mult_nc", &e->tune.multnc));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "mult_batch", 0, 8, &e->tune.multbatch));
  PetscCall(PetscEllwarpTuneListGetBool(&T, "mult_prefetch", &e->tune.multprefetch));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "mult_regs", 0, 40, &e->tune.multregs));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "block_batch", 0, 4, &e->tune.blockbatch));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "long_unroll", 0, 8, &e->tune.longunroll));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "coo_unroll", 0, 16, &e->tune.coounroll));
  PetscCall(PetscEllwarpTuneListGetInt(&T, "coo_block_size", 0, 1024, &e->tune.cooblock));
  {
    static const char *const gathers[] = {"auto", "slice", "rows", "map"};
    PetscCall(PetscEllwarpTuneListGetEList(&T, "gather", gathers, 4, &e->tune.gather));
  }
  {
    PetscInt map = (PetscInt)e->blockmap, bw = e->blockwindow;
    PetscCall(PetscEllwarpTuneListGetEList(&T, "block_map", EllwarpBlockMaps, 3, &map));
    e->blockmap = (EllwarpBlockMap)map;
    PetscCall(PetscEllwarpTuneListGetInt(&T, "block_sort_window", 0, PETSC_INT_MAX, &bw));
    PetscCheck(bw % ELLWARP_LANES == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune block_sort_window=%" PetscInt_FMT " must be 0 (automatic) or a positive multiple of %d", bw, ELLWARP_LANES);
    if (bw != e->blockwindow) {
      e->blockwindow = bw;
      e->bdecided    = -1; /* the blocked layout is built again at the next product */
    }
  }
  PetscCheck(e->tune.multlanes == 0 || e->tune.multlanes == 1 || e->tune.multlanes == 2 || e->tune.multlanes == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune mult_lanes=%" PetscInt_FMT " must be 0 (automatic), 1, 2 or 4", e->tune.multlanes);
  PetscCheck(e->tune.multunroll == 0 || e->tune.multunroll == 4 || e->tune.multunroll == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune mult_unroll=%" PetscInt_FMT " must be 0 (automatic), 4 or 8", e->tune.multunroll);
  PetscCheck(e->tune.multbatch >= 0 && e->tune.multbatch <= 8 && !(e->tune.multbatch & (e->tune.multbatch - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune mult_batch=%" PetscInt_FMT " must be 0 (automatic), 1, 2, 4 or 8", e->tune.multbatch);
  PetscCheck(e->tune.multbatch <= 1 || ((e->tune.multlanes <= 1) && (e->tune.multacc <= 1) && !e->tune.multnc && e->tune.multunroll != 8), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-mat_ellwarp_tune mult_batch=%" PetscInt_FMT " is a kernel of one lane and one accumulator per thread with ld.global.cs loads: it does not combine with mult_lanes, mult_acc, mult_nc or mult_unroll=8", e->tune.multbatch);
  PetscCheck(e->tune.multregs == 0 || e->tune.multregs == 32 || e->tune.multregs == 40, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune mult_regs=%" PetscInt_FMT " must be 0 (the compiler's choice), 32 or 40", e->tune.multregs);
  PetscCheck(!e->tune.multregs || !e->tune.multprefetch, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-mat_ellwarp_tune mult_regs does not combine with mult_prefetch (two batches in flight need the compiler's registers)");
  PetscCheck(e->tune.blockbatch == 0 || e->tune.blockbatch == 1 || e->tune.blockbatch == 2 || e->tune.blockbatch == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune block_batch=%" PetscInt_FMT " must be 0 (automatic), 1, 2 or 4", e->tune.blockbatch);
  PetscCheck(e->tune.multacc == 0 || e->tune.multacc == 1 || e->tune.multacc == 2 || e->tune.multacc == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune mult_acc=%" PetscInt_FMT " must be 0 (automatic), 1, 2 or 4", e->tune.multacc);
  PetscCheck(e->tune.longunroll >= 0 && e->tune.longunroll <= 8 && !(e->tune.longunroll & (e->tune.longunroll - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune long_unroll=%" PetscInt_FMT " must be 0, 1, 2, 4 or 8", e->tune.longunroll);
  PetscCheck(e->tune.coounroll >= 0 && e->tune.coounroll <= 16 && !(e->tune.coounroll & (e->tune.coounroll - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune coo_unroll=%" PetscInt_FMT " must be 0 (automatic), 1, 2, 4, 8 or 16", e->tune.coounroll);
  PetscCheck(e->tune.cooblock == 0 || (e->tune.cooblock >= ELLWARP_LANES && e->tune.cooblock <= 1024 && e->tune.cooblock % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune coo_block_size=%" PetscInt_FMT " must be 0 or a multiple of %d in [32,1024]", e->tune.cooblock, ELLWARP_LANES);
  {
    /* test hook: the matrix keeps only the layout's scalars after a host analysis, as after a device
       analysis, so the host code paths of that state run (and are tested) without a GPU */
    PetscBool drop = e->drophost;
    PetscCall(PetscEllwarpTuneListGetBool(&T, "analysis_drop_host", &drop));
    if (drop != e->drophost) {
      e->drophost = drop;
      if (e->L) {
        PetscCall(MatSeqELLWARPSyncHost(A));
        e->nzstate     = -1;
        A->offloadmask = PETSC_OFFLOAD_CPU;
      }
    }
  }
  PetscCheck(p.sortwindow == -1 || (p.sortwindow >= 0 && p.sortwindow % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune sort_window=%" PetscInt_FMT " must be -1 (automatic), 0 (whole matrix) or a positive multiple of %d", p.sortwindow, ELLWARP_LANES);
  PetscCheck(e->blocksize == 0 || (e->blocksize >= ELLWARP_LANES && e->blocksize <= 1024 && e->blocksize % ELLWARP_LANES == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellwarp_tune block_size=%" PetscInt_FMT " must be 0 (automatic) or a multiple of %d in [32,1024]", e->blocksize, ELLWARP_LANES);
  /* the schedule model takes the step of the slice kernel these variants give (layout.c) */
  p.unbatched = EllwarpTuneUnbatched(&e->tune);
  /* a new block mode or store rule can change the scalar layout (a value store where the products use the blocked
     one, seqellwarpops.c), so it re-analyses as new parameters do */
  if (p.unbatched != e->par.unbatched || p.kernel != e->par.kernel || p.threshold != e->par.threshold || p.sortwindow != e->par.sortwindow || p.longrow != e->par.longrow || p.compress != e->par.compress || p.compressbias != e->par.compressbias || p.compressdict != e->par.compressdict || p.analysis != e->par.analysis || blockmode != e->blockmode || storelayout != e->storelayout) {
    e->par         = p;
    e->blockmode   = blockmode;
    e->storelayout = storelayout;
    if (e->L) { /* new parameters: the next use re-analyses */
      PetscCall(MatSeqELLWARPSyncHost(A));
      e->nzstate = -1;
      A->offloadmask = PETSC_OFFLOAD_CPU;
    }
  }
  if (set) {
    e->backendset = PETSC_TRUE;
    PetscCall(SetBackend(A, b));
  }
  /* said when the options are read: the analysis itself runs at the first use (an assembled matrix converted to
     our type is no longer analysed at once) */
  PetscCheck(!(e->par.analysis == 0 && e->backend != MAT_ELLWARP_BACKEND_CUDA), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP: -mat_ellwarp_tune analysis=device needs the cuda backend (the backend is %s)", MatEllwarpBackends[e->backend]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqELLWARP(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  if (e->aijops.setfromoptions) PetscCall(e->aijops.setfromoptions(A, PetscOptionsObject));
  PetscCall(ReadOptions(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_SeqELLWARP(Mat A, MatAssemblyType mode)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(e->aijops.assemblyend(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  /* host writes (MatSetValues, MatSeqAIJGetArray) already marked the host newer; values written into the
     layout (MatSetValuesCOO, device operations) stay where they are */
  if (A->offloadmask != PETSC_OFFLOAD_GPU) A->offloadmask = PETSC_OFFLOAD_CPU;
  /* The layout is built (or refreshed) by the first operation that needs it (MatSeqELLWARPSyncLayout()), as
     AIJCUSPARSE copies to the GPU on first use: a matrix assembled several times before it is used (DMDA's
     zero fill, then the user's values; GAMG's tentative prolongator, which PETSc only reads on the host and
     through the products' cuSPARSE shadows) is analysed once, or not at all.  MatView and MatEllwarpGetInfo
     build it too. */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeLayouts(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPBlockFree(A));
  if (e->k) {
    if (e->St) PetscCall(e->k->destroy(&e->St));
    if (e->S) PetscCall(e->k->destroy(&e->S));
    PetscCall(e->k->csrfree(&e->csr));
  }
  PetscCall(EllwarpLayoutDestroy(&e->Lt));
  PetscCall(EllwarpLayoutDestroy(&e->L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const ConvertNames[] = {"MatConvert_seqaijellwarp_seqaij_C", "MatConvert_seqaijellwarp_seqaijcusparse_C", "MatConvert_seqaij_seqaijellwarp_C", "MatConvert_seqaijcusparse_seqaijellwarp_C", "MatEllwarpSetBackend_C", "MatEllwarpGetInfo_C", "MatEllwarpSetKernel_C", "MatEllwarpGetBackend_C", "MatProductSetFromOptions_anytype_C", "MatGetAssemblyTarget_C", "MatConvert_seqaijellwarp_is_C"};

/* Removes MATSEQELLWARP's composed functions from M: for matrices that are not (or no longer) MATSEQELLWARP
   but received them, e.g. through SeqAIJ's duplication of the function list (MatDuplicateNoCreate_SeqAIJ) */
PetscErrorCode MatSeqELLWARPRemoveComposed_Private(Mat M)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ConvertNames); i++) PetscCall(PetscObjectComposeFunction((PetscObject)M, ConvertNames[i], NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* turn B back into a plain MATSEQAIJ in place, values on the host */
static PetscErrorCode StripToSeqAIJ(Mat B)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)B->spptr;
  Mat_SeqAIJ     *a = (Mat_SeqAIJ *)B->data;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncHost(B));
  PetscCall(FreeLayouts(B));
  *B->ops = e->aijops;
  PetscCall(PetscMemzero(a->ops, sizeof(Mat_SeqAIJOps)));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ConvertNames); i++) PetscCall(PetscObjectComposeFunction((PetscObject)B, ConvertNames[i], NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", e->aijcooprealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", e->aijcoovalues));
  PetscCall(PetscFree(B->spptr));
  B->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqELLWARP_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatSeqELLWARPSyncHost(A));
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) {
    /* a plain SeqAIJ copy of the host CSR: MatDuplicate() would make (and analyse) an ELLWARP matrix first */
    Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;
    PetscInt    rbs, cbs;

    PetscCall(MatSeqELLWARPSyncHost(A));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), newmat));
    PetscCall(MatSetSizes(*newmat, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
    PetscCall(MatSetBlockSizes(*newmat, rbs, cbs));
    PetscCall(MatSetType(*newmat, MATSEQAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*newmat, a->i, a->j, a->a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *newmat = A;
  PetscCall(StripToSeqAIJ(*newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqELLWARP_SeqAIJCUSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatSeqELLWARPSyncHost(A));
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatConvert_SeqELLWARP_SeqAIJ(A, MATSEQAIJ, reuse, newmat));
  PetscCall(MatConvert(*newmat, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqAIJCUSPARSE_SeqELLWARP(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_AIJCUSPARSE_ELLWARP_Private(A, MATSEQAIJ, MATSEQELLWARP, MatConvert_SeqAIJ_SeqELLWARP, reuse, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqELLWARP(Mat A)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscErrorCode (*aijdestroy)(Mat);

  PetscFunctionBegin;
  if (!e) PetscFunctionReturn(PETSC_SUCCESS); /* spptr moved away by MatHeaderMerge() */
  aijdestroy = e->aijops.destroy;
  PetscCall(FreeLayouts(A));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ConvertNames); i++) PetscCall(PetscObjectComposeFunction((PetscObject)A, ConvertNames[i], NULL));
  PetscCall(PetscFree(A->spptr));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscCall((*aijdestroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqELLWARP(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr, *em;

  PetscFunctionBegin;
  if (op != MAT_DO_NOT_COPY_VALUES) PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(e->aijops.duplicate(A, op, M)); /* creates a MATSEQELLWARP through MatSetType() */
  em             = (Mat_SeqELLWARP *)(*M)->spptr;
  em->par        = e->par;
  em->blocksize  = e->blocksize;
  em->tune       = e->tune;
  em->backendset = e->backendset;
  em->drophost   = e->drophost;
  em->blockmode  = e->blockmode;
  em->storelayout = e->storelayout;
  em->blockmap   = e->blockmap;
  em->blockwindow = e->blockwindow;
  em->blocklanes  = e->blocklanes;
  (*M)->boundtocpu = A->boundtocpu;
  PetscCall(SetBackend(*M, e->backend));
  if ((*M)->assembled) {
    (*M)->offloadmask = PETSC_OFFLOAD_CPU; /* the layout is built on first use, as after MatAssemblyEnd() */
    if (A->assembled) PetscCall(MatSeqELLWARPRememberSamePattern(A, *M)); /* MatAXPY/MatCopy between them: no pattern comparison */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_SeqELLWARP(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  if (flg) PetscCall(MatSeqELLWARPSyncHost(A));
  A->boundtocpu = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetInfo(Mat A, MatEllwarpInfo *info)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  EllwarpLayout  *L;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(A));
  L = e->L;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->nrows      = L->nrows;
  info->ncols      = L->ncols;
  info->nnz        = L->nnz;
  info->nslots     = L->nslots;
  info->nslices    = L->nslices;
  info->nsplit     = L->nsplit;
  info->n16        = L->n16;
  info->nbias      = L->nbias;
  info->ndict      = L->ndict;
  info->nlong      = L->nlong;
  info->maxrowlen  = L->maxrowlen;
  info->minrowlen  = L->minrowlen;
  info->meanrowlen = L->meanrowlen;
  info->stdrowlen  = L->stdrowlen;
  info->kernel     = L->kernel;
  info->threshold  = L->threshold;
  info->blocksize  = MatSeqELLWARPBlockSize(e, L);
  info->sortwindow = L->sortwindow;
  info->bytes_mult = EllwarpLayoutBytesMult(L);
  info->nanalyses  = e->nanalyses;
  info->nrefreshes = e->nrefreshes;
  info->backend    = e->backend;
  PetscCall(MatSeqELLWARPBlockChoose(A));
  info->block            = e->Lb ? e->Lb->bs : 1;
  info->block_lanes      = e->Lb ? e->Lb->lanes : 0;
  info->bytes_mult_block = e->bbytes;
  info->value_store      = e->storerole;
  if (e->Lb) info->bytes_mult = e->bbytes; /* what the products move */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqELLWARP(Mat A, PetscViewer viewer)
{
  Mat_SeqELLWARP   *e = (Mat_SeqELLWARP *)A->spptr;
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    MatEllwarpInfo info;

    if (!A->assembled) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "ELLWARP: not assembled yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(GetInfo(A, &info));
    PetscCall(PetscViewerASCIIPrintf(viewer, "ELLWARP layout: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscCount_FMT " nonzeros in %" PetscInt_FMT " slices of %d lanes\n", info.nrows, info.ncols, info.nnz, info.nslices, ELLWARP_LANES));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  row length: min %" PetscInt_FMT " mean %.2f std %.2f max %" PetscInt_FMT "\n", info.minrowlen, (double)info.meanrowlen, (double)info.stdrowlen, info.maxrowlen));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  padded slots %" PetscCount_FMT " (padding ratio %.4f), %" PetscInt_FMT " slices split over several lanes, %" PetscInt_FMT " with 16-bit columns\n", info.nslots, info.nnz ? (double)info.nslots / (double)info.nnz : 1.0, info.nsplit, info.n16));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  column modes: %" PetscInt_FMT " slices 16-bit from the row, %" PetscInt_FMT " 16-bit from the row plus a bias per entry position%s, %" PetscInt_FMT " 16-bit dictionary codes (%.1f %% of the slices%s), %" PetscInt_FMT " 32-bit\n", info.n16 - info.nbias - info.ndict, info.nbias, e->par.compress && !e->par.compressbias ? " (off: -mat_ellwarp_tune compress_bias=0)" : "", info.ndict,
                                     info.nslices ? 100.0 * (double)info.ndict / (double)info.nslices : 0.0, e->par.compress && !e->par.compressdict ? "; off by default, measured slower: -mat_ellwarp_tune compress_dict=1 turns it on" : "", info.nslices - info.n16));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " long rows (over %" PetscInt_FMT " entries) summed in %" PetscInt_FMT " chunks of %d\n", info.nlong, e->L->longrow, e->L->nchunks, ELLWARP_CHUNK));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  kernel %s (requested %s), threshold %" PetscInt_FMT ", block size %" PetscInt_FMT ", sort window %" PetscInt_FMT "%s\n", MatEllwarpKernels[info.kernel], MatEllwarpKernels[e->par.kernel], info.threshold, info.blocksize, info.sortwindow, info.sortwindow ? "" : " (whole matrix)"));
    if (e->storerole) PetscCall(PetscViewerASCIIPrintf(viewer, "  scalar layout built as the values' store (K1, rows sorted in windows of %" PetscInt_FMT ", the least padding): the products use the blocked layout against any scalar layout (-mat_ellwarp_tune store_layout=0 keeps the product rule's layout)\n", info.sortwindow));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  backend %s%s; bytes per MatMult %.4g (%s layout, %.2f per nonzero; CSR needs %.2f)\n", MatEllwarpBackends[e->backend], (e->backend == MAT_ELLWARP_BACKEND_HOST && !e->backendset) ? " (no usable CUDA device)" : "", info.bytes_mult, info.block > 1 ? "blocked" : "scalar",
                                     info.nnz ? info.bytes_mult / (double)info.nnz : 0.0, info.nnz ? (12.0 * (double)info.nnz + 8.0 * (info.nrows + info.ncols) + 4.0 * (info.nrows + 1)) / (double)info.nnz : 0.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  analyses %" PetscInt_FMT " (pattern analysis on the %s%s), value refreshes %" PetscInt_FMT "\n", e->nanalyses, e->L->analysedondevice ? "device" : "host", e->par.analysis < 0 ? ", the default for this backend" : ", requested", e->nrefreshes));
    {
      EllwarpTune t;
      EllwarpTuneResolve(e->L, &e->tune, &t);
      const EllwarpTune *q = &e->tune;
      const PetscBool    requested = (PetscBool)(q->multlanes || q->multacc || q->multnc || q->multunroll || q->longunroll || q->coounroll || q->cooblock || q->gather || q->multbatch || q->multprefetch || q->multregs || q->blockbatch);
      PetscCall(PetscViewerASCIIPrintf(viewer, "  kernel variants (%s): mult lanes %" PetscInt_FMT " acc %" PetscInt_FMT " unroll %" PetscInt_FMT "%s, batch %" PetscInt_FMT "%s, long unroll %" PetscInt_FMT ", coo unroll %" PetscInt_FMT " block %" PetscInt_FMT "\n", requested ? "some requested" : "automatic", t.multlanes, t.multacc, t.multunroll, t.multnc ? " nc" : "", t.multbatch, t.multbatch > 1 && t.multprefetch ? " prefetch" : (t.multbatch > 1 && t.multregs ? (t.multregs == 32 ? " regs 32" : " regs 40") : ""), t.longunroll, t.coounroll, t.cooblock));
    }
    PetscCall(MatSeqELLWARPBlockView(A, viewer));
    if (e->drophost) PetscCall(PetscViewerASCIIPrintf(viewer, "  test hook -mat_ellwarp_tune analysis_drop_host: the layout's arrays are kept by the store only%s\n", e->L->hostarrays ? " (copied back on demand since)" : ""));
    if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(e->aijops.view(A, viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqELLWARPSyncHost(A));
  PetscCall(e->aijops.view(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpGetInfo_SeqELLWARP(Mat A, MatEllwarpInfo *info)
{
  PetscFunctionBegin;
  PetscCall(GetInfo(A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpSetBackend_SeqELLWARP(Mat A, MatEllwarpBackend b)
{
  PetscFunctionBegin;
  ((Mat_SeqELLWARP *)A->spptr)->backendset = PETSC_TRUE;
  PetscCall(SetBackend(A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpGetBackend_SeqELLWARP(Mat A, MatEllwarpBackend *b)
{
  PetscFunctionBegin;
  *b = ((Mat_SeqELLWARP *)A->spptr)->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEllwarpSetKernel_SeqELLWARP(Mat A, MatEllwarpKernel k, PetscInt threshold)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(threshold >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "threshold %" PetscInt_FMT " must be >= 0", threshold);
  if (e->L) PetscCall(MatSeqELLWARPSyncHost(A));
  e->par.kernel    = k;
  e->par.threshold = threshold;
  e->nzstate       = -1;
  if (A->assembled) {
    A->offloadmask = PETSC_OFFLOAD_CPU;
    PetscCall(MatSeqELLWARPSyncLayout(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_SeqAIJ_SeqELLWARP(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B;
  Mat_SeqELLWARP *e;
  PetscBool       same;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, newmat));
  B = *newmat;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQELLWARP, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEllwarpInitializePackage());
  /* No I-node routines (see below).  An assembled SeqAIJ (an MPIAIJ block, a matrix converted after its
     assembly) may already hold I-node data, which SeqAIJ's factorizations would still use (and then find
     gone after our next assembly: "Matrix without inode information"); SeqAIJ's own assembly end drops it
     once the option is off, and resets the I-node operations before we keep SeqAIJ's operations below. */
  PetscCall(MatSetOption(B, MAT_USE_INODES, PETSC_FALSE));
  if (B->assembled && ((Mat_SeqAIJ *)B->data)->inode.size_csr) PetscCall((*B->ops->assemblyend)(B, MAT_FINAL_ASSEMBLY));

  PetscCall(PetscNew(&e));
  B->spptr       = e;
  e->aijops      = *B->ops;
  e->nzstate     = -1;
  e->blocksize   = 0; /* automatic: the layout's choice (layout.c) */
  /* kernel variants: all 0 (automatic, EllwarpTuneResolve() in layout.c) */
  e->par.kernel   = MAT_ELLWARP_KERNEL_AUTO;
  e->par.compress   = PETSC_TRUE;
  e->par.compressbias = PETSC_TRUE;
  e->par.compressdict = PETSC_FALSE; /* the dictionary mode moves fewer bytes but ran slower on the H100 (gmsh LV P1 scalar: 1.00x AIJCUSPARSE against 1.07x without it; benchmarks/results/spmv-h100-dmplex/dictionary-mode): opt-in */
  e->par.sortwindow = -1;
  e->par.analysis   = -1; /* the device with the cuda backend */
  e->bdecided       = -1; /* the blocked layout: chosen at the analysis or the first product (seqellwarpblock.c) */
  e->bpre           = -1;
  e->storelayout    = PETSC_TRUE;
  B->offloadmask = B->assembled ? PETSC_OFFLOAD_CPU : PETSC_OFFLOAD_UNALLOCATED;
  B->boundtocpu  = PETSC_FALSE; /* MatCreate() binds new matrices to the CPU; the layout ops are ours */
  /* No I-node routines: PETSc's I-node kernels (LU numeric, SOR) read the host values directly instead of
     through MatSeqAIJGetArrayRead(), which is where our host copy is brought up to date (AIJCUSPARSE likewise
     turns them off while on the device).  Our products and MatMult never use them. */
  PetscCall(MatSetOption(B, MAT_USE_INODES, PETSC_FALSE));

  B->ops->assemblyend    = MatAssemblyEnd_SeqELLWARP;
  B->ops->destroy        = MatDestroy_SeqELLWARP;
  B->ops->duplicate      = MatDuplicate_SeqELLWARP;
  B->ops->setfromoptions = MatSetFromOptions_SeqELLWARP;
  B->ops->view           = MatView_SeqELLWARP;
  B->ops->bindtocpu      = MatBindToCPU_SeqELLWARP;
  PetscCall(MatSeqELLWARPSetHostOps(B));
  PetscCall(MatSeqELLWARPSetLayoutOps(B));
  PetscCall(MatSeqELLWARPSetCOOOps(B));

  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijellwarp_seqaij_C", MatConvert_SeqELLWARP_SeqAIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijellwarp_seqaijcusparse_C", MatConvert_SeqELLWARP_SeqAIJCUSPARSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_seqaijellwarp_C", MatConvert_SeqAIJ_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijcusparse_seqaijellwarp_C", MatConvert_SeqAIJCUSPARSE_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijellwarp_is_C", MatConvert_ELLWARP_IS_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatEllwarpSetBackend_C", MatEllwarpSetBackend_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatEllwarpGetBackend_C", MatEllwarpGetBackend_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatEllwarpSetKernel_C", MatEllwarpSetKernel_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatEllwarpGetInfo_C", MatEllwarpGetInfo_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGetAssemblyTarget_C", MatGetAssemblyTarget_SeqELLWARP));
  /* sparse products: through AIJCUSPARSE on the device, or SeqAIJ on the host (seqellwarpproduct.c) */
  B->ops->productsetfromoptions = MatProductSetFromOptions_SeqELLWARP;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_SeqELLWARP));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQELLWARP));

  /* backend and parameters from the options now: vectors made before MatSetFromOptions() must already
     have the right type */
  {
    MatEllwarpBackend b = MAT_ELLWARP_BACKEND_HOST;
    PetscCall(MatEllwarpDefaultBackend_Private(B, "MATSEQELLWARP uses", &b));
    PetscCall(SetBackend(B, b));
    PetscObjectOptionsBegin((PetscObject)B);
    PetscCall(ReadOptions(B, PetscOptionsObject));
    PetscOptionsEnd();
  }
  /* an assembled input is not analysed here: the layout is built on first use, as after MatAssemblyEnd()
     (SeqAIJ's MatTranspose() and MatDuplicate() convert their results to our type: PCGAMG's graph transposed
     the fine operator into an ELLWARP matrix that was analysed only to be added to another and destroyed) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode MatCreate_SeqELLWARP(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(B, MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqELLWARP(B, MATSEQELLWARP, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCreateSeqELLWARP - Creates a sequential `MATSEQELLWARP` matrix (preallocated like `MATSEQAIJ`).

  Collective

  Input Parameters:
+ comm - `PETSC_COMM_SELF`
. m    - rows
. n    - columns
. nz   - nonzeros per row (ignored if `nnz` is given)
- nnz  - nonzeros in each row, or `NULL`

  Output Parameter:
. A - the matrix

  Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATELLWARP`, `MatCreateSeqAIJ()`, `MatEllwarpSetBackend()`
@*/
PetscErrorCode MatCreateSeqELLWARP(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, MATSEQELLWARP));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatEllwarpSetBackend - Chooses where a `MATELLWARP` matrix keeps its layout and runs its kernels: on the
  CUDA device or in the plain-C host reference of the same layout

  Logically Collective

  Input Parameters:
+ A - the matrix, of type `MATSEQELLWARP` or `MATMPIELLWARP`
- b - `MAT_ELLWARP_BACKEND_CUDA` or `MAT_ELLWARP_BACKEND_HOST`

  Options Database Key:
. -mat_ellwarp_backend <cuda,host> - the backend (default: cuda when a device is usable, else host)

  Level: intermediate

  Note:
  On `MATMPIELLWARP` the backend applies to both blocks and to the vectors of `MatCreateVecs()`.  With the
  CUDA backend, `MatMult()` needs device vectors; a host vector is refused with an error.

.seealso: [](ch_matrices), `Mat`, `MATELLWARP`, `MatEllwarpGetBackend()`, `MatEllwarpSetKernel()`
@*/
PetscErrorCode MatEllwarpSetBackend(Mat A, MatEllwarpBackend b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatEllwarpSetBackend_C", (Mat, MatEllwarpBackend), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatEllwarpGetBackend - Gets where a `MATELLWARP` matrix keeps its layout and runs its kernels

  Not Collective

  Input Parameter:
. A - the matrix, of type `MATSEQELLWARP` or `MATMPIELLWARP`

  Output Parameter:
. b - `MAT_ELLWARP_BACKEND_CUDA` or `MAT_ELLWARP_BACKEND_HOST`

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATELLWARP`, `MatEllwarpSetBackend()`
@*/
PetscErrorCode MatEllwarpGetBackend(Mat A, MatEllwarpBackend *b)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatEllwarpGetBackend_C", (Mat, MatEllwarpBackend *), (A, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatEllwarpSetKernel - Forces the SpMV kernel family of a `MATELLWARP` matrix and, for K2, its threshold

  Logically Collective

  Input Parameters:
+ A         - the matrix, of type `MATSEQELLWARP` or `MATMPIELLWARP`
. k         - `MAT_ELLWARP_KERNEL_K1` (one lane per row), `MAT_ELLWARP_KERNEL_K2` (rows split over 2..32
              lanes) or `MAT_ELLWARP_KERNEL_AUTO` (chosen from the row-length statistics)
- threshold - K2: the most entries per lane before a row is split further; 0 for automatic

  Options Database Keys:
+ -mat_ellwarp_kernel <auto,k1,k2>     - the kernel family
- -mat_ellwarp_tune threshold=<n>      - the K2 threshold (developer)

  Level: intermediate

  Note:
  The layout depends on the kernel: an assembled matrix is analysed again at once (its values are kept), so
  anything that cached the old layout (a `DMAssembly` plan, a COO plan) must be rebuilt.

.seealso: [](ch_matrices), `Mat`, `MATELLWARP`, `MatEllwarpGetInfo()`, `MatEllwarpSetBackend()`
@*/
PetscErrorCode MatEllwarpSetKernel(Mat A, MatEllwarpKernel k, PetscInt threshold)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatEllwarpSetKernel_C", (Mat, MatEllwarpKernel, PetscInt), (A, k, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatEllwarpGetInfo - Gets the layout statistics of an assembled `MATELLWARP` matrix: slices, padding, column
  compression, the kernel, block size and sort window in use, bytes one `MatMult()` moves

  Not Collective

  Input Parameter:
. A - the assembled matrix, of type `MATSEQELLWARP`

  Output Parameter:
. info - the statistics (`MatEllwarpInfo`)

  Note:
  A `MATMPIELLWARP` matrix holds two layouts per rank and refuses the call: ask its blocks
  (`MatGetDiagonalBlock()`, the off-diagonal block of `MatMPIAIJGetSeqAIJ()`) or view it with `::ascii_info`.

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATELLWARP`, `MatEllwarpInfo`, `MatEllwarpSetKernel()`, `MatView()`
@*/
PetscErrorCode MatEllwarpGetInfo(Mat A, MatEllwarpInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatEllwarpGetInfo_C", (Mat, MatEllwarpInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}
