/* The atomic type (DMASSEMBLYATOMIC): its data (DMAssembly_Atomic, include/petscellwarp/private/dmassemblyimpl.h),
   options, Jacobian plan, scatter and View, and its match variant of the fused P1 Jacobian: the compact plan
   (host, once per target array), its plain-C reference and the dispatch.  Design and bytes:
   include/petscellwarp/private/dmasmatomic.h; the device kernel: dmasmatomiccuda.cu. */
#include <petscellwarp/private/dmasmatomic.h>

static const char *const VariantNames[] = {"full", "match"};

/* the match variant applies: P1 simplices only (the compact map's sorted 4 nodes), built-in kernels fused;
   other elements and kernels run the full-map kernel */
static PetscBool FastActive(DMAssembly as)
{
  const DMAssembly_Atomic *A = (DMAssembly_Atomic *)as->data;
  return (PetscBool)(A->variant == DMASM_ATOMIC_MATCH && A->sc.fuse && DMAsmBuiltinP1(as) && as->nen == as->dim + 1 && as->nen <= 4);
}

static PetscErrorCode FastPlanDestroy(DMAsmFastPlan **fp)
{
  DMAsmFastPlan *F = *fp;

  PetscFunctionBegin;
  if (!F) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(ELLWARP_HAVE_CUDA)
  if (F->denode != F->enode) {
    PetscCall(DMAsmCUDAFree((void **)&F->denode));
    PetscCall(DMAsmCUDAFree((void **)&F->dcode));
    PetscCall(DMAsmCUDAFree((void **)&F->dnode));
    PetscCall(DMAsmCUDAFree((void **)&F->dirr));
  }
#endif
  PetscCall(PetscFree4(F->enode, F->code, F->node, F->irr));
  PetscCall(PetscFree(*fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* local node order of element e by increasing dof (insertion sort of at most 4) */
static inline void SortedLocal(PetscInt nen, PetscInt nelem, const PetscInt *edof, PetscInt e, int o[4])
{
  for (int a = 0; a < nen; a++) {
    int j = a;
    while (j > 0 && edof[(PetscCount)o[j - 1] * nelem + e] > edof[(PetscCount)a * nelem + e]) {
      o[j] = o[j - 1];
      j--;
    }
    o[j] = a;
  }
}

/* q2t: target of element entry (a,b) of e at [(a*nen+b)*nelem + e] in the assembler's local order */
/* statistics: the targets of the regular elements e0 .. e0+ne-1 (all: room for their nen*nen each), sorted;
   the distinct targets added to *ndist, the distinct 4-slot sectors to *nsec */
static PetscErrorCode CountDistinct(const DMAsmFastPlan *F, PetscInt nen, PetscInt nelem, PetscInt e0, PetscInt ne, PetscInt64 *all, PetscInt64 *ndist, PetscInt64 *nsec)
{
  PetscInt na = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < ne; i++) {
    const PetscInt e = e0 + i;
    if ((F->code[e] & 0xFFu) == DMASM_FAST_IRREGULAR) continue;
    for (PetscInt a = 0; a < nen; a++) {
      const DMAsmFastNode *nd0 = &F->node[F->enode[(PetscCount)a * nelem + e]];
      for (PetscInt b = 0; b < nen; b++) all[na++] = DMAsmFastSlot(nd0->base, nd0->sh, (F->code[(PetscCount)a * nelem + e] >> (8 * b)) & 0xFFu);
    }
  }
  PetscCall(PetscSortInt64(na, all));
  for (PetscInt i = 0; i < na; i++) {
    *ndist += (i == 0 || all[i] != all[i - 1]);
    *nsec += (i == 0 || (all[i] >> 2) != (all[i - 1] >> 2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BuildFastPlan(DMAssembly as, const PetscInt *q2t, PetscCount ntarget, DMAsmFastPlan **fp)
{
  const PetscInt   nelem = as->nelem, nen = as->nen, dim = as->dim, ndof = as->ndof;
  const PetscInt  *edof = as->edof;
  const DMAsmP1Ctx *c   = as->builtin;
  const DMAssembly_Atomic *A = (DMAssembly_Atomic *)as->data;
  DMAsmFastPlan   *F;
  PetscInt64      *base;
  int             *maxsub;
  PetscInt         nirr = 0;

  PetscFunctionBegin;
  PetscCall(FastPlanDestroy(fp));
  PetscCheck(nen <= 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly atomic match: P1 simplices only (%" PetscInt_FMT " nodes per element)", nen);
  PetscCheck(ntarget <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly atomic match: %" PetscCount_FMT " targets exceed its 32-bit row bases (the caller runs the full map)", ntarget);
  PetscCall(PetscNew(&F));
  F->nelem   = nelem;
  F->nen     = nen;
  F->ndof    = ndof;
  F->ntarget = ntarget;
  F->maxcode = PetscMin(A->maxcode, 254);
  PetscCall(PetscMalloc4((size_t)nen * nelem, &F->enode, (size_t)nen * nelem, &F->code, ndof, &F->node, nelem, &F->irr));
  PetscCall(PetscMalloc2(ndof, &base, ndof, &maxsub));
  for (PetscInt r = 0; r < ndof; r++) {
    base[r]   = PETSC_INT64_MAX;
    maxsub[r] = 0;
  }
  PetscCall(PetscMemzero(F->node, sizeof(DMAsmFastNode) * ndof));
  /* pass 1: the sorted nodes, coordinates, each row's smallest slot */
  for (PetscInt e = 0; e < nelem; e++) {
    int o[4];
    SortedLocal(nen, nelem, edof, e, o);
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt r = edof[(PetscCount)o[a] * nelem + e];
      F->enode[(PetscCount)a * nelem + e] = r;
      for (PetscInt d = 0; d < dim; d++) F->node[r].x[d] = as->xe[((PetscCount)o[a] * dim + d) * nelem + e];
      for (PetscInt b = 0; b < nen; b++) {
        const PetscInt s = q2t[((PetscCount)o[a] * nen + o[b]) * nelem + e];
        if (s >= 0) base[r] = PetscMin(base[r], (PetscInt64)s);
      }
    }
  }
  /* pass 2: the lanes a row needs (the largest offset within a 32-lane step) */
  for (PetscInt e = 0; e < nelem; e++) {
    int o[4];
    SortedLocal(nen, nelem, edof, e, o);
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt r = F->enode[(PetscCount)a * nelem + e];
      for (PetscInt b = 0; b < nen; b++) {
        const PetscInt s = q2t[((PetscCount)o[a] * nen + o[b]) * nelem + e];
        if (s >= 0) maxsub[r] = PetscMax(maxsub[r], (int)((s - base[r]) & 31));
      }
    }
  }
  for (PetscInt r = 0; r < ndof; r++) {
    int sh = 0;
    while ((1 << sh) <= maxsub[r]) sh++;
    F->node[r].sh   = sh;
    F->node[r].base = base[r] == PETSC_INT64_MAX ? -1 : (int)base[r];
  }
  /* pass 3: the codes; an entry without a target or with a code above maxcode makes its element irregular */
  for (PetscInt e = 0; e < nelem; e++) {
    int       o[4];
    PetscBool regular = PETSC_TRUE;
    SortedLocal(nen, nelem, edof, e, o);
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt       r = F->enode[(PetscCount)a * nelem + e];
      const DMAsmFastNode *n = &F->node[r];
      unsigned             w = 0;
      for (PetscInt b = 0; b < nen; b++) {
        const PetscInt s = q2t[((PetscCount)o[a] * nen + o[b]) * nelem + e];
        PetscInt64     d, cd = PETSC_INT64_MAX;
        if (s >= 0) {
          d  = s - base[r];
          cd = ((d >> 5) << n->sh) + (d & 31);
        }
        if (cd > F->maxcode) {
          regular = PETSC_FALSE;
          cd      = 0;
        } else PetscCheck(DMAsmFastSlot(n->base, n->sh, (unsigned)cd) == s, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly compact map: code %" PetscInt64_FMT " of slot %" PetscInt_FMT " does not decode", cd, s);
        w |= (unsigned)cd << (8 * b);
      }
      F->code[(PetscCount)a * nelem + e] = w;
    }
    if (!regular) {
      F->code[e]    = DMASM_FAST_IRREGULAR; /* byte 0 of word 0 */
      F->irr[nirr++] = e;
    }
  }
  PetscCall(PetscFree2(base, maxsub));
  F->nirr = nirr;
  F->havestats = A->stats;
  if (F->havestats) { /* address statistics (View): per warp instruction, distinct sectors and targets */
    PetscInt64 nsec = 0, nsecdef = 0, ndist = 0, wdist = 0, wsec = 0;
    for (PetscInt e0 = 0; e0 < nelem; e0 += 32) {
      const PetscInt ne = PetscMin(32, nelem - e0);
      PetscInt64     all[512];
      PetscCall(CountDistinct(F, nen, nelem, e0, ne, all, &wdist, &wsec)); /* the whole warp's targets: what a warp-wide sort could merge */
      for (PetscInt a = 0; a < nen; a++)
        for (PetscInt b = 0; b < nen; b++) {
          PetscInt64 s[32], sd[32], t[32];
          PetscInt   n = 0, nd = 0;
          for (PetscInt i = 0; i < ne; i++) {
            const PetscInt       e = e0 + i;
            const DMAsmFastNode *nd0;
            if ((F->code[e] & 0xFFu) == DMASM_FAST_IRREGULAR) continue;
            nd0  = &F->node[F->enode[(PetscCount)a * nelem + e]];
            t[n] = DMAsmFastSlot(nd0->base, nd0->sh, (F->code[(PetscCount)a * nelem + e] >> (8 * b)) & 0xFFu);
            s[n] = t[n] >> 2;
            n++;
          }
          for (PetscInt i = 0; i < ne; i++) {
            const PetscInt q = q2t[((PetscCount)a * nen + b) * nelem + e0 + i];
            if (q >= 0) sd[nd++] = q >> 2;
          }
          PetscCall(PetscSortInt64(n, s));
          PetscCall(PetscSortInt64(n, t));
          PetscCall(PetscSortInt64(nd, sd));
          for (PetscInt i = 0; i < n; i++) {
            nsec += (i == 0 || s[i] != s[i - 1]);
            ndist += (i == 0 || t[i] != t[i - 1]);
          }
          for (PetscInt i = 0; i < nd; i++) nsecdef += (i == 0 || sd[i] != sd[i - 1]);
        }
    }
    { /* blocks of 128 elements: what a per-block shared-memory sum would issue */
      PetscInt64 *all, bdist = 0, bsec = 0;
      PetscCall(PetscMalloc1(128 * 16, &all));
      for (PetscInt e0 = 0; e0 < nelem; e0 += 128) {
        const PetscInt ne = PetscMin(128, nelem - e0);
        PetscCall(CountDistinct(F, nen, nelem, e0, ne, all, &bdist, &bsec));
      }
      PetscCall(PetscFree(all));
      F->blocktargets = nelem ? (PetscReal)bdist / nelem : 0;
      F->blocksectors = nelem ? (PetscReal)bsec / nelem : 0;
    }
    F->sectors        = nelem ? (PetscReal)nsec / nelem : 0;
    F->sectorsdefault = nelem ? (PetscReal)nsecdef / nelem : 0;
    F->matchatomics   = nelem ? (PetscReal)ndist / nelem : 0;
    F->warptargets    = nelem ? (PetscReal)wdist / nelem : 0;
    F->warpsectors    = nelem ? (PetscReal)wsec / nelem : 0;
  }
  F->sym  = PETSC_TRUE;
  if (c->D)
    for (PetscInt i = 0; i < dim && F->sym; i++)
      for (PetscInt j = i + 1; j < dim && F->sym; j++)
        for (PetscInt e = 0; e < nelem; e++)
          if (c->D[(PetscCount)(i * dim + j) * nelem + e] != c->D[(PetscCount)(j * dim + i) * nelem + e]) {
            F->sym = PETSC_FALSE;
            break;
          }
  F->denode = F->enode;
  F->dcode  = F->code;
  F->dnode  = F->node;
  F->dirr   = F->irr;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    PetscCall(DMAsmCUDAMalloc((void **)&F->denode, sizeof(PetscInt) * nen * nelem));
    PetscCall(DMAsmCUDAUpload(F->denode, F->enode, sizeof(PetscInt) * nen * nelem));
    PetscCall(DMAsmCUDAMalloc((void **)&F->dcode, sizeof(unsigned) * nen * nelem));
    PetscCall(DMAsmCUDAUpload(F->dcode, F->code, sizeof(unsigned) * nen * nelem));
    PetscCall(DMAsmCUDAMalloc((void **)&F->dnode, sizeof(DMAsmFastNode) * ndof));
    PetscCall(DMAsmCUDAUpload(F->dnode, F->node, sizeof(DMAsmFastNode) * ndof));
    PetscCall(DMAsmCUDAMalloc((void **)&F->dirr, sizeof(PetscInt) * PetscMax(nirr, 1)));
    PetscCall(DMAsmCUDAUpload(F->dirr, F->irr, sizeof(PetscInt) * nirr));
  }
#endif
  PetscCall(PetscInfo(as, "atomic match: %" PetscInt_FMT " of %" PetscInt_FMT " elements irregular (full-map fused kernel), element matrix %s\n", nirr, nelem, F->sym ? "upper triangle (D symmetric)" : "full (D not exactly symmetric)"));
  *fp = F;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* plain-C reference of the match kernel (the device sums the same entries, in another order): dst += the regular
   elements' entries; dst is zeroed by the caller */
void DMAsmHostFast(const DMAsmP1Ctx *c, const DMAsmFastPlan *F, PetscScalar *dst)
{
  const PetscInt nelem = F->nelem, nen = F->nen, dim = nen - 1;

  for (PetscInt e = 0; e < nelem; e++) {
    PetscReal   xl[12], Dl[9];
    PetscScalar ke[16];
    if ((F->code[e] & 0xFFu) == DMASM_FAST_IRREGULAR) continue;
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt d = 0; d < dim; d++) xl[a * dim + d] = F->node[F->enode[(PetscCount)a * nelem + e]].x[d];
    for (PetscInt q = 0; q < dim * dim; q++) Dl[q] = c->D ? c->D[(PetscCount)q * nelem + e] : (PetscReal)(q % (dim + 1) == 0); /* as the device kernel */
    DMAsmFastP1Element((int)dim, (int)F->sym, c->alpha, c->beta, xl, Dl, ke);
    for (PetscInt a = 0; a < nen; a++) {
      const DMAsmFastNode *n = &F->node[F->enode[(PetscCount)a * nelem + e]];
      const unsigned       w = F->code[(PetscCount)a * nelem + e];
      for (PetscInt b = 0; b < nen; b++) dst[DMAsmFastSlot(n->base, n->sh, (w >> (8 * b)) & 0xFFu)] += ke[a * nen + b];
    }
  }
}

/* the Jacobian into dst (P->ntarget values): zero, the regular elements by the compact map, then the irregular
   ones through the full-map fused kernel (P->e2t) */
static PetscErrorCode FastAssembly(DMAssembly as, const DMAsmPlan *P, PetscScalar *dst)
{
  const DMAsmFastPlan *F = ((DMAssembly_Atomic *)as->data)->fast;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscCheck(F && F->ntarget == P->ntarget, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly atomic match: no plan for this target");
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    PetscCall(PetscArrayzero(dst, P->ntarget));
    DMAsmHostFast(as->builtin, F, dst);
    if (F->nirr) DMAsmHostP1Fused(as->builtin, F->nirr, F->irr, as->nelem, as->xe, NULL, as->edof, PETSC_TRUE, P->e2t, dst);
    PetscCall(PetscLogFlops((as->dim == 3 ? 150.0 : 60.0) * as->nelem + (PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmP1CtxDevice(as->builtin));
    PetscCall(DMAsmP1CtxDeviceSym(as->builtin));
    PetscCall(DMAsmCUDAZero(dst, P->ntarget));
    PetscCall(DMAsmCUDAFast(as->builtin, F, dst));
    if (F->nirr) PetscCall(DMAsmCUDAP1Fused(as->builtin, F->nirr, F->dirr, as->nelem, as->dxe, NULL, as->dedof, PETSC_TRUE, P->de2t, PETSC_TRUE, dst));
#endif
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the variant's lines of View */
static PetscErrorCode FastView(DMAssembly as, PetscViewer viewer)
{
  const DMAssembly_Atomic *A    = (DMAssembly_Atomic *)as->data;
  const DMAsmFastPlan     *F    = A->fast;
  const char              *name = VariantNames[A->variant];

  PetscFunctionBegin;
  if (A->variant == DMASM_ATOMIC_FULL) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "atomic variant full (tune atomic_variant=full): element coordinates and 16 targets per element read from the full map\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!FastActive(as)) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "atomic variant %s: NOT USED (it needs the built-in P1 kernels on P1 simplices, fused): the full-map scatter runs\n", name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "atomic variant %s (Jacobian; the residual runs the full-map fused kernel): sorted nodes 4 B + D + 1-byte entry codes per element, 32-byte node records, each entry summed over the warp's lanes with the same target before one atomic\n", name));
  if (F) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  compact map: %" PetscInt_FMT " of %" PetscInt_FMT " elements irregular (full-map fused kernel), largest code %" PetscInt_FMT ", element matrix %s\n", F->nirr, F->nelem, F->maxcode, F->sym ? "upper triangle (D symmetric or identity)" : "full (D not exactly symmetric)"));
    if (F->havestats)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  atomics per element (regular elements, warps of 32 consecutive elements): %d without aggregation; 32-byte sectors per element %.2f (full map %.2f); match's atomics per element %.2f; a whole warp's distinct targets per element %.2f in %.2f sectors; a block of 128 elements %.2f in %.2f\n", (int)(as->nen * as->nen), (double)F->sectors, (double)F->sectorsdefault, (double)F->matchatomics, (double)F->warptargets, (double)F->warpsectors, (double)F->blocktargets, (double)F->blocksectors));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  address statistics: -dm_assembly_tune atomic_stats=1\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* zero, then every entry added to its target (atomicAdd on the device) */
static PetscErrorCode Reduce_Atomic(DMAssembly as, const DMAsmPlan *P, PetscInt nper, const PetscScalar *src, PetscScalar *dst)
{
  PetscFunctionBegin;
  (void)nper;
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    PetscCall(PetscArrayzero(dst, P->ntarget));
    DMAsmHostScatter(P->nsrc, P->e2t, src, dst);
    PetscCall(PetscLogFlops((PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmCUDAZero(dst, P->ntarget));
    PetscCall(DMAsmCUDAScatterAtomic(P->nsrc, P->de2t, src, dst));
    PetscCall(PetscLogGpuFlops((PetscLogDouble)P->nsrc));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the packed plan (its e2t: the full map) and the match plan where it applies */
static PetscErrorCode JacPlan_Atomic(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  DMAssembly_Atomic *A = (DMAssembly_Atomic *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmJacPlanPacked(as, B, q2t));
  if (FastActive(as) && B->nval <= PETSC_INT32_MAX) PetscCall(BuildFastPlan(as, q2t, B->nval, &A->fast));
  else {
    PetscCall(FastPlanDestroy(&A->fast));
    if (A->variant == DMASM_ATOMIC_MATCH) PetscCall(PetscInfo(as, "atomic variant match: NOT USED, it needs the built-in P1 simplex kernels fused and at most 2^31 targets (%" PetscCount_FMT "): the full-map atomic scatter runs\n", B->nval));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fused_Atomic(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  PetscFunctionBegin;
  if (jac && ((DMAssembly_Atomic *)as->data)->fast) PetscCall(FastAssembly(as, &as->jac, dst));
  else PetscCall(DMAsmFusedScatter(as, NULL, jac ? &as->jac : &as->res, jac, u, dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Atomic(DMAssembly as, PetscViewer viewer)
{
  const DMAssembly_Atomic *A = (DMAssembly_Atomic *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "element matrices scattered with atomicAdd (order not fixed on the device)"));
  PetscCall(DMAsmViewScatter(as, &A->sc, viewer));
  if (as->kset) PetscCall(FastView(as, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetFromOptions_Atomic(DMAssembly as, PetscOptionItems PetscOptionsObject)
{
  DMAssembly_Atomic *A = (DMAssembly_Atomic *)as->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DMAssembly atomic");
  PetscCall(DMAsmSetFromOptionsScatter(as, &A->sc, PetscOptionsObject));
  PetscCall(DMAsmTuneGetEList(as, "atomic_variant", VariantNames, PETSC_STATIC_ARRAY_LENGTH(VariantNames), &A->variant));
  PetscCall(DMAsmTuneGetInt(as, "atomic_maxcode", 0, 254, &A->maxcode));
  PetscCall(DMAsmTuneGetBool(as, "atomic_stats", &A->stats));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on a distributed DM: through the element buffers only */
static PetscBool MPISupported_Atomic(DMAssembly as)
{
  return (PetscBool)!(DMAsmBuiltinP1(as) && ((DMAssembly_Atomic *)as->data)->sc.fuse);
}

static PetscErrorCode Destroy_Atomic(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCall(FastPlanDestroy(&((DMAssembly_Atomic *)as->data)->fast));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblySetFuse_C", NULL));
  PetscCall(PetscFree(as->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYATOMIC - "atomic" - element matrices scattered into the target with atomicAdd; with the built-in kernels
   the element is computed inside the scatter (`DMAssemblySetFuse()`), and the P1 Jacobian sums the entries of a
   warp with the same target before one atomic (the match variant).  The order of summation is not fixed on the device.

   Options Database Keys:
+  -dm_assembly_fuse <bool>                 - compute the element inside the scatter with the built-in kernels (default true)
.  -dm_assembly_tune atomic_variant=<full,match> - the fused P1 Jacobian (developer; default match)
.  -dm_assembly_tune atomic_maxcode=<n>     - largest entry code of the compact map (developer: smaller makes elements irregular)
-  -dm_assembly_tune atomic_stats=<bool>    - address statistics in `DMAssemblyView()` (developer; they triple the plan's set-up)

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYCOLOR`, `DMAssemblySetFuse()`
M*/
PetscErrorCode DMAssemblyCreate_Atomic(DMAssembly as)
{
  DMAssembly_Atomic *A;

  PetscFunctionBegin;
  PetscCall(PetscNew(&A));
  A->sc.fuse = PETSC_TRUE;
  A->variant = DMASM_ATOMIC_MATCH; /* H100, 2.17 M tets into ELLWARP: 0.2565 ms against full 0.333 ms (peer 0.6145 ms) */
  A->maxcode = 254;
  as->data   = A;
  as->ops->reduce         = Reduce_Atomic;
  as->ops->fusedactive    = DMAsmFusedActiveScatter;
  as->ops->fused          = Fused_Atomic;
  as->ops->jacplan        = JacPlan_Atomic;
  as->ops->mpisupported   = MPISupported_Atomic;
  as->ops->view           = View_Atomic;
  as->ops->setfromoptions = SetFromOptions_Atomic;
  as->ops->destroy        = Destroy_Atomic;
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblySetFuse_C", DMAsmSetFuse_Scatter));
  PetscFunctionReturn(PETSC_SUCCESS);
}
