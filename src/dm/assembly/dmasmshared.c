/* The sharednz type (DMASSEMBLYSHAREDNZ; Cecka, Lew, Darve, section 4.2.4, "assembly by nonzero, shared memory"):
   its data (DMAssembly_SharedNZ, include/petscellwarp/private/dmassemblyimpl.h), options, set-up, Jacobian plan,
   fused path and View; the plan, built on the host once per target array, and its plain-C reference (the same
   walk as the CUDA kernel in dmasmcuda.cu).

   Blocks are contiguous ranges of the target array (ELLWARP slots, CSR values, residual dofs), grown by
   chunks of 32 targets while the block's element matrices and nodal data fit the shared-memory budget.
   Contiguous ranges keep the final stores coalesced and need no target index array; with the RCM numbering
   of the mesh (and ELLWARP slices of 32 consecutive rows) a contiguous range of rows is a compact patch of
   the mesh, so the elements computed twice (those on a block border) stay a moderate fraction, reported as
   the redundancy in DMAssemblyView.

   -dm_assembly_shared_partition metis (dmasmsharedmetis.c): the blocks grow over a walk order of the targets
   instead, made of units that keep the stores coalesced (ELLWARP lane groups of a slice, CSR rows, 32 residual dofs) ordered part by part from a
   METIS partition of the unit graph; a block then owns a few ranges of targets, each stored coalesced.  The
   contiguous plan is the special case of one range per block.  Either way each target is summed by one
   thread in element order. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmp1.h>

#define SH_CHUNK 32

/* a growing array of PetscInt */
typedef struct {
  PetscInt  *a;
  PetscCount n, cap;
} IntBuf;

/* room for one more element in a growing array of n elements of the given size (capacity doubles) */
PetscErrorCode DMAsmBufGrow(void **a, size_t size, PetscCount n, PetscCount *cap)
{
  void      *na;
  PetscCount nc;

  PetscFunctionBegin;
  if (n < *cap) PetscFunctionReturn(PETSC_SUCCESS);
  nc = *cap ? 2 * *cap : 1024;
  PetscCall(PetscMalloc(nc * size, &na));
  if (n) PetscCall(PetscMemcpy(na, *a, n * size));
  PetscCall(PetscFree(*a));
  *a   = na;
  *cap = nc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IntBufPush(IntBuf *b, PetscInt v)
{
  PetscFunctionBegin;
  PetscCall(DMAsmBufGrow((void **)&b->a, sizeof(*b->a), b->n, &b->cap));
  b->a[b->n++] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shared memory of a block: w values per incidence (w = nen for the Jacobian: the element row; 1 for the
   residual), the nodes' coordinates (and values) */
static size_t BlockBytes(PetscInt ninc, PetscInt nn, PetscInt w, PetscInt dim, PetscBool res)
{
  return (size_t)ninc * w * sizeof(PetscScalar) + (size_t)nn * dim * sizeof(PetscReal) + (res ? (size_t)nn * sizeof(PetscScalar) : 0);
}

/* q2t: source entry q = k*nelem + e (k < nper) -> target (-1: none); nper = nen (residual) or nen^2;
   ustart[nunit+1] (and utgt): the METIS partition's units (coalesced target groups; NULL: 32 targets each) */
PetscErrorCode DMAsmBuildSharedPlan(DMAssembly as, PetscInt nper, PetscCount ntarget, const PetscInt *q2t, PetscCount nunit, const PetscCount *ustart, const PetscCount *utgt, DMAsmSharedPlan *S)
{
  const PetscInt   nelem = as->nelem, nen = as->nen, dim = as->dim, ndof = as->ndof;
  const PetscBool  res   = (PetscBool)(nper == nen);
  const PetscCount nsrc  = (PetscCount)nper * nelem;
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  const size_t     budget = (size_t)sh->smem;
  const PetscInt   w      = nper / nen; /* values per incidence */
  PetscCount      *tptr, *pos, *lists;
  PetscInt        *emark, *nmark, *estamp, *nstamp, *imark, *istamp, *eloc, *nloc, stamp = 0, b = 0, ne = 0, nn = 0, ni = 0, nblk = 0;
  IntBuf           belem = {0}, bnode = {0}, tbv = {0};
  PetscCount      *ebv = NULL, *nbv = NULL;
  PetscCount       ecap = 0;
  PetscCount      *tperm = NULL, *partptr = NULL; /* walk order (NULL: the identity) and its parts (positions) */
  PetscInt         npart = 0, ip = 0;
  PetscBool        split = PETSC_FALSE;
  PetscLogDouble   tstart, tm;

  PetscFunctionBegin;
  PetscCall(PetscTime(&tstart));
  PetscCall(DMAsmSharedPlanDestroy(S));
  S->ntarget   = ntarget;
  S->nper      = nper;
  S->nen       = nen;
  S->partition = sh->part;
  /* lists by target, in element order then k (the order globalnz sums in) */
  PetscCall(PetscCalloc1(ntarget + 1, &tptr));
  for (PetscCount q = 0; q < nsrc; q++)
    if (q2t[q] >= 0) tptr[q2t[q] + 1]++;
  for (PetscCount t = 0; t < ntarget; t++) tptr[t + 1] += tptr[t];
  PetscCall(PetscMalloc1(tptr[ntarget] + 1, &lists));
  PetscCall(PetscMalloc1(ntarget + 1, &pos));
  PetscCall(PetscArraycpy(pos, tptr, ntarget));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt k = 0; k < nper; k++) {
      const PetscCount q = (PetscCount)k * nelem + e;
      if (q2t[q] >= 0) lists[pos[q2t[q]]++] = q;
    }
  PetscCall(PetscFree(pos));
#define TGT(p) (tperm ? tperm[p] : (p)) /* target at walk position p */
  if (sh->part == DMASM_SHPART_METIS) {
    PetscCall(PetscTime(&tm));
    PetscCall(DMAsmSharedOrderMETIS(as, w, ntarget, tptr, lists, nunit, ustart, utgt, &tperm, &npart, &partptr, &S->nunits, &S->fill));
    PetscCall(PetscTimeSubtract(&tm));
    S->metistime = -tm;
    S->nparts    = npart;
  }
  PetscCall(PetscMalloc4(nelem, &emark, nelem, &estamp, ndof, &nmark, ndof, &nstamp));
  PetscCall(PetscMalloc2((size_t)nen * nelem, &imark, (size_t)nen * nelem, &istamp));
  for (PetscCount q = 0; q < (PetscCount)nen * nelem; q++) imark[q] = istamp[q] = -1;
  for (PetscInt e = 0; e < nelem; e++) emark[e] = estamp[e] = -1;
  for (PetscInt i = 0; i < ndof; i++) nmark[i] = nstamp[i] = -1;

  /* greedy blocks over chunks of targets; tbv: the blocks' first targets, ebv/nbv: their element/node starts */
  PetscCall(IntBufPush(&tbv, 0));
  ecap = 1024;
  PetscCall(PetscMalloc2(ecap, &ebv, ecap, &nbv));
  ebv[0] = nbv[0] = 0;
  /* over walk positions; a METIS part is first tried whole (it merges into the open block if it fits there,
     else opens a new block), and only if it alone exceeds the budget grows chunk by chunk like the contiguous
     plan (a part split over blocks: counted in nsplit) */
  for (PetscCount t0 = 0; t0 < ntarget;) {
    const PetscCount pend  = partptr ? partptr[ip + 1] : ntarget;
    const PetscBool  whole = (PetscBool)(partptr && t0 == partptr[ip] && !split);
    const PetscCount t1    = whole ? pend : PetscMin(t0 + SH_CHUNK, pend);
    PetscInt         newe = 0, newn = 0, newi = 0;

    stamp++;
    for (PetscCount p = t0; p < t1; p++)
      for (PetscCount t = TGT(p), s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt   e = (PetscInt)(lists[s] % nelem), a = (PetscInt)(lists[s] / nelem) / w;
        const PetscCount ia = (PetscCount)a * nelem + e;
        if (imark[ia] != b && istamp[ia] != stamp) {
          istamp[ia] = stamp;
          newi++;
        }
        if (emark[e] == b || estamp[e] == stamp) continue;
        estamp[e] = stamp;
        newe++;
        for (PetscInt a = 0; a < nen; a++) {
          const PetscInt v = as->edof[(PetscCount)a * nelem + e];
          if (nmark[v] == b || nstamp[v] == stamp) continue;
          nstamp[v] = stamp;
          newn++;
        }
      }
    if (BlockBytes(ni + newi, nn + newn, w, dim, res) > budget || (PetscCount)(ni + newi) * w > 65535 || nn + newn > 65535 || ne + newe > 65535) {
      if (whole && tbv.a[b] == t0) { /* the part alone does not fit: chunks of 32 */
        split = PETSC_TRUE;
        S->nsplit++;
        continue;
      }
      if (tbv.a[b] == t0) { /* this chunk alone does not fit: no sharednz for this target array */
        PetscCall(PetscInfo(as, "sharednz: %s %" PetscCount_FMT "..%" PetscCount_FMT " alone need %" PetscInt_FMT " element rows, %" PetscInt_FMT " nodes (%g kB > the budget %g kB, -dm_assembly_sharednz_smem): globalnz takes this %s\n", tperm ? "walk positions (METIS order)" : "targets", t0, t1 - 1, newi, newn,
                            BlockBytes(newi, newn, w, dim, res) / 1024.0, budget / 1024.0, res ? "residual" : "Jacobian"));
        S->fallback = PETSC_TRUE;
        break;
      }
      /* close block b, retry the chunk in a new block */
      b++;
      PetscCall(IntBufPush(&tbv, (PetscInt)t0));
      if (b + 1 >= ecap) {
        PetscCount *ne2, *nn2;
        PetscCall(PetscMalloc2(2 * ecap, &ne2, 2 * ecap, &nn2));
        PetscCall(PetscArraycpy(ne2, ebv, b));
        PetscCall(PetscArraycpy(nn2, nbv, b));
        PetscCall(PetscFree2(ebv, nbv));
        ebv = ne2;
        nbv = nn2;
        ecap *= 2;
      }
      ebv[b] = belem.n;
      nbv[b] = bnode.n;
      ne = nn = ni = 0;
      continue;
    }
    for (PetscCount p = t0; p < t1; p++)
      for (PetscCount t = TGT(p), s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt   e = (PetscInt)(lists[s] % nelem), a = (PetscInt)(lists[s] / nelem) / w;
        const PetscCount ia = (PetscCount)a * nelem + e;
        if (imark[ia] != b) {
          imark[ia] = b;
          ni++;
        }
        if (emark[e] == b) continue;
        emark[e] = b;
        PetscCall(IntBufPush(&belem, e));
        ne++;
        for (PetscInt a = 0; a < nen; a++) {
          const PetscInt v = as->edof[(PetscCount)a * nelem + e];
          if (nmark[v] == b) continue;
          nmark[v] = b;
          PetscCall(IntBufPush(&bnode, v));
          nn++;
        }
      }
    t0 = t1;
    if (partptr && t0 == pend) {
      ip++;
      split = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree4(emark, estamp, nmark, nstamp));
  if (S->fallback) {
    PetscCall(PetscFree2(imark, istamp));
    PetscCall(PetscFree(tbv.a));
    PetscCall(PetscFree(belem.a));
    PetscCall(PetscFree(bnode.a));
    PetscCall(PetscFree2(ebv, nbv));
    PetscCall(PetscFree(tptr));
    PetscCall(PetscFree(lists));
    PetscCall(PetscFree(tperm));
    PetscCall(PetscFree(partptr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nblk       = ntarget ? b + 1 : 0;
  S->nblocks = nblk;
  PetscCall(PetscMalloc4(nblk + 1, &S->tb, nblk + 1, &S->eb, nblk + 1, &S->nb, nblk + 1, &S->lb));
  for (PetscInt i = 0; i < nblk; i++) {
    S->tb[i] = tbv.a[i];
    S->eb[i] = ebv[i];
    S->nb[i] = nbv[i];
  }
  S->tb[nblk] = ntarget;
  S->eb[nblk] = belem.n;
  S->nb[nblk] = bnode.n;
  S->belem    = belem.a;
  S->bnode    = bnode.a;
  PetscCall(PetscFree(tbv.a));
  PetscCall(PetscFree2(ebv, nbv));
  if (!S->belem) PetscCall(PetscMalloc1(1, &S->belem));
  if (!S->bnode) PetscCall(PetscMalloc1(1, &S->bnode));

  /* the ranges: maximal runs of consecutive targets within a block (the contiguous walk: one per block) */
  {
    PetscInt nr = 0;
    for (PetscInt bb = 0; bb < nblk; bb++)
      for (PetscCount p = S->tb[bb]; p < S->tb[bb + 1]; p++)
        if (p == S->tb[bb] || TGT(p) != TGT(p - 1) + 1) nr++;
    S->nranges = nr;
    PetscCall(PetscMalloc3(nblk + 1, &S->rb, nr + 1, &S->rp, nr + 1, &S->rt));
    nr = 0;
    for (PetscInt bb = 0; bb < nblk; bb++) {
      S->rb[bb] = nr;
      for (PetscCount p = S->tb[bb]; p < S->tb[bb + 1]; p++)
        if (p == S->tb[bb] || TGT(p) != TGT(p - 1) + 1) {
          S->rp[nr]   = p;
          S->rt[nr++] = TGT(p);
        }
    }
    S->rb[nblk] = nr;
    S->rp[nr]   = ntarget;
    S->rt[nr]   = ntarget;
  }

  /* per block: elements in increasing order, local node indices, the targets' 16-bit offsets */
  PetscCall(PetscMalloc2(nelem, &eloc, ndof, &nloc));
  PetscCall(PetscMalloc1(nen * S->eb[nblk] + 1, &S->bloc));
  PetscCall(PetscMalloc1(nen * S->eb[nblk] + 1, &S->islot));
  PetscCall(PetscMalloc1(nblk + 1, &S->ninc));
  PetscCall(PetscMalloc1(tptr[ntarget] + 1, &S->lo)); /* every source entry lands in exactly one block */
  PetscCall(PetscMalloc1(ntarget + 1, &S->toff));
  S->lb[0] = 0;
  S->smem  = 0;
  for (PetscInt bb = 0; bb < nblk; bb++) {
    const PetscCount e0 = S->eb[bb], n0 = S->nb[bb];
    const PetscInt   nb_e = (PetscInt)(S->eb[bb + 1] - e0), nb_n = (PetscInt)(S->nb[bb + 1] - n0);
    PetscCount       l = S->lb[bb];

    PetscCall(PetscSortInt(nb_e, S->belem + e0));
    PetscCall(PetscSortInt(nb_n, S->bnode + n0));
    for (PetscInt i = 0; i < nb_e; i++) eloc[S->belem[e0 + i]] = i;
    for (PetscInt i = 0; i < nb_n; i++) nloc[S->bnode[n0 + i]] = i;
    PetscInt nb_i = 0;
    /* the element rows this block's targets need (a row's targets may straddle two blocks: marked again here) */
    for (PetscCount p = S->tb[bb]; p < S->tb[bb + 1]; p++)
      for (PetscCount t = TGT(p), s = tptr[t]; s < tptr[t + 1]; s++) imark[(PetscCount)((lists[s] / nelem) / w) * nelem + lists[s] % nelem] = bb;
    for (PetscInt i = 0; i < nb_e; i++)
      for (PetscInt a = 0; a < nen; a++) S->bloc[nen * e0 + (PetscCount)a * nb_e + i] = (unsigned short)nloc[as->edof[(PetscCount)a * nelem + S->belem[e0 + i]]];
    /* incidences (element rows the block's targets need) numbered node-major: consecutive threads (block
       elements) write consecutive shared words */
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt i = 0; i < nb_e; i++) {
        const PetscCount ia = (PetscCount)a * nelem + S->belem[e0 + i];
        S->islot[nen * e0 + (PetscCount)a * nb_e + i] = imark[ia] == bb ? (unsigned short)nb_i++ : (unsigned short)0xFFFF;
      }
    S->ninc[bb] = nb_i;
    for (PetscCount p = S->tb[bb]; p < S->tb[bb + 1]; p++) {
      const PetscCount t = TGT(p);
      S->toff[p]         = (int)(l - S->lb[bb]); /* by position */
      for (PetscCount s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt e = (PetscInt)(lists[s] % nelem), k = (PetscInt)(lists[s] / nelem), a = k / w, c = k % w;
        const int      j = S->islot[nen * e0 + (PetscCount)a * nb_e + eloc[e]];
        S->lo[l++]       = (unsigned short)(c * nb_i + j);
      }
    }
    S->lb[bb + 1] = l;
    S->smem       = PetscMax(S->smem, BlockBytes(nb_i, nb_n, w, dim, res));
  }
  PetscCall(PetscFree2(eloc, nloc));
  PetscCall(PetscFree2(imark, istamp));
  PetscCall(PetscFree(tptr));
  PetscCall(PetscFree(lists));
  PetscCall(PetscFree(tperm));
  PetscCall(PetscFree(partptr));
#undef TGT
  PetscCall(PetscTimeSubtract(&tstart));
  S->setuptime = -tstart;
  PetscCall(PetscInfo(as, "sharednz %s plan (%s partition): %" PetscInt_FMT " blocks, %" PetscInt_FMT " ranges, %" PetscCount_FMT " element computations for %" PetscInt_FMT " elements (redundancy %.2f), largest block %g kB of shared memory, set-up %.3g s (METIS and its graph %.3g s)\n", res ? "residual" : "Jacobian", S->partition == DMASM_SHPART_METIS ? "METIS" : "contiguous", nblk, S->nranges, S->eb[nblk], nelem, nelem ? (double)S->eb[nblk] / nelem : 0.0, S->smem / 1024.0, S->setuptime, S->metistime));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmSharedPlanDestroy(DMAsmSharedPlan *S)
{
  PetscFunctionBegin;
  if (S->tb) PetscCall(PetscFree4(S->tb, S->eb, S->nb, S->lb));
  if (S->rb) PetscCall(PetscFree3(S->rb, S->rp, S->rt));
  PetscCall(PetscFree(S->belem));
  PetscCall(PetscFree(S->bnode));
  PetscCall(PetscFree(S->bloc));
  PetscCall(PetscFree(S->islot));
  PetscCall(PetscFree(S->ninc));
  PetscCall(PetscFree(S->lo));
  PetscCall(PetscFree(S->toff));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&S->dtb));
  PetscCall(DMAsmCUDAFree((void **)&S->deb));
  PetscCall(DMAsmCUDAFree((void **)&S->dnb));
  PetscCall(DMAsmCUDAFree((void **)&S->dlb));
  PetscCall(DMAsmCUDAFree((void **)&S->dbelem));
  PetscCall(DMAsmCUDAFree((void **)&S->dbnode));
  PetscCall(DMAsmCUDAFree((void **)&S->dbloc));
  PetscCall(DMAsmCUDAFree((void **)&S->dislot));
  PetscCall(DMAsmCUDAFree((void **)&S->dninc));
  PetscCall(DMAsmCUDAFree((void **)&S->dlo));
  PetscCall(DMAsmCUDAFree((void **)&S->dtoff));
  PetscCall(DMAsmCUDAFree((void **)&S->drb));
  PetscCall(DMAsmCUDAFree((void **)&S->drp));
  PetscCall(DMAsmCUDAFree((void **)&S->drt));
#endif
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmSharedPlanUpload(DMAsmSharedPlan *S)
{
  PetscFunctionBegin;
  if (S->fallback) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(ELLWARP_HAVE_CUDA)
  {
    const PetscInt   nb = S->nblocks;
    const PetscCount ne = S->eb[nb], nn = S->nb[nb], nl = S->lb[nb];
#define UP(d, h, T, n) \
  do { \
    PetscCall(DMAsmCUDAMalloc((void **)&(d), sizeof(T) * (size_t)(n))); \
    PetscCall(DMAsmCUDAUpload((d), (h), sizeof(T) * (size_t)(n))); \
  } while (0)
    UP(S->dtb, S->tb, PetscCount, nb + 1);
    UP(S->deb, S->eb, PetscCount, nb + 1);
    UP(S->dnb, S->nb, PetscCount, nb + 1);
    UP(S->dlb, S->lb, PetscCount, nb + 1);
    UP(S->dbelem, S->belem, PetscInt, ne);
    UP(S->dbnode, S->bnode, PetscInt, nn);
    UP(S->dlo, S->lo, unsigned short, nl);
    UP(S->dbloc, S->bloc, unsigned short, (PetscCount)S->nen * ne);
    UP(S->dislot, S->islot, unsigned short, (PetscCount)S->nen * ne);
    UP(S->dninc, S->ninc, int, nb);
    UP(S->dtoff, S->toff, int, S->ntarget);
    UP(S->drb, S->rb, PetscInt, nb + 1);
    UP(S->drp, S->rp, PetscCount, S->nranges + 1);
    UP(S->drt, S->rt, PetscCount, S->nranges + 1);
#undef UP
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference of the CUDA kernel: per block, nodal data -> "shared" scratch, its elements computed, the
   rows its targets need stored in scratch (value c of incidence j at c*ninc + j), then each target summed
   from scratch in list order. */
PetscErrorCode DMAsmHostShared(const DMAsmP1Ctx *c, const DMAsmSharedPlan *S, PetscInt nelem, const PetscReal *xn, const PetscScalar *u, PetscScalar *dst)
{
  const PetscInt  dim = c->dim, nen = dim + 1, nper = S->nper;
  const PetscBool jac = (PetscBool)(nper == nen * nen);
  PetscScalar    *scratch;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(S->smem / sizeof(PetscScalar) + 1, &scratch));
  for (PetscInt b = 0; b < S->nblocks; b++) {
    const PetscCount e0 = S->eb[b], n0 = S->nb[b], l0 = S->lb[b], t0 = S->tb[b];
    const PetscInt   ne = (PetscInt)(S->eb[b + 1] - e0), nn = (PetscInt)(S->nb[b + 1] - n0), ltot = (PetscInt)(S->lb[b + 1] - l0);
    const PetscInt   nt = (PetscInt)(S->tb[b + 1] - t0), ni = S->ninc[b], w = nper / nen;
    PetscScalar     *ks = scratch;
    PetscReal       *xs = (PetscReal *)(ks + (size_t)ni * w);
    PetscScalar     *us = (PetscScalar *)(xs + (size_t)nn * dim);

    for (PetscInt i = 0; i < nn; i++) {
      const PetscInt v = S->bnode[n0 + i];
      for (PetscInt d = 0; d < dim; d++) xs[i * dim + d] = xn[(PetscCount)v * dim + d];
      if (!jac) us[i] = u[v];
    }
    for (PetscInt i = 0; i < ne; i++) {
      const PetscInt e = S->belem[e0 + i];
      PetscReal      xl[12], Dl[9];
      PetscScalar    ul[4], vl[16];
      for (PetscInt a = 0; a < nen; a++) {
        const PetscInt l = S->bloc[nen * e0 + (PetscCount)a * ne + i];
        for (PetscInt d = 0; d < dim; d++) xl[a * dim + d] = xs[l * dim + d];
        ul[a] = jac ? 0 : us[l];
      }
      if (c->D)
        for (PetscInt q = 0; q < dim * dim; q++) Dl[q] = c->D[(PetscCount)q * nelem + e];
      DMAsmP1Element((int)dim, 0, 1, c->alpha, c->beta, c->source, c->D ? Dl : NULL, 1, xl, ul, jac ? vl : NULL, jac ? NULL : vl);
      for (PetscInt a = 0; a < nen; a++) {
        const PetscInt j = S->islot[nen * e0 + (PetscCount)a * ne + i];
        if (j == 0xFFFF) continue; /* a row no target of this block needs */
        for (PetscInt c2 = 0; c2 < w; c2++) ks[c2 * ni + j] = vl[a * w + c2];
      }
    }
    for (PetscInt j = 0; j < nt; j++) {
      const PetscInt p0 = S->toff[t0 + j], p1 = j + 1 < nt ? S->toff[t0 + j + 1] : ltot;
      PetscScalar    s  = 0;
      for (PetscInt p = p0; p < p1; p++) s += ks[S->lo[l0 + p]];
      dst[DMAsmSharedTarget(S->rb[b], S->rb[b + 1], S->rp, S->rt, t0 + j)] = s;
    }
  }
  PetscCall(PetscFree(scratch));
  PetscCall(PetscLogFlops((PetscLogDouble)(dim == 3 ? 150.0 : 60.0) * (S->nblocks ? S->eb[S->nblocks] : 0) + (PetscLogDouble)(S->nblocks ? S->lb[S->nblocks] : 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sharednz with the METIS partition: the units of the target array, the smallest groups of targets whose
   stores stay coalesced: in ELLWARP a group of tune metis_lanes lanes of a slice over all its
   steps (slots are column-major over the slice's 32 lanes, so one row alone is strided; 16 lanes of doubles
   are one 128-byte line per step, so a warp still stores whole lines), then the long rows' slots by 32; a CSR
   row's range (or a few consecutive rows) */
static PetscErrorCode SharedUnits(const MatAssemblyBlock *T, PetscInt n, const PetscInt *ia, PetscInt csrmin, PetscInt lanes, PetscCount *nunit, PetscCount **ustart, PetscCount **utgt)
{
  PetscFunctionBegin;
  *utgt = NULL;
  if (T->sliceheight) { /* lane group g of slice s: slots sliceptr[s] + k*H + g*lanes + [0, lanes), every step k */
    const PetscInt   H     = T->sliceheight;
    const PetscCount nsl   = T->sliceptr[T->nslices];
    const PetscCount tail  = (T->nval - nsl + 31) / 32;
    const PetscInt   ng    = H / lanes;
    PetscCount       j     = 0, u = 0;
    PetscCheck(H % lanes == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "sharednz METIS: tune metis_lanes %" PetscInt_FMT " does not divide the matrix's slice height %" PetscInt_FMT, lanes, H);
    *nunit = (PetscCount)T->nslices * ng + tail;
    PetscCall(PetscMalloc1(*nunit + 1, ustart));
    PetscCall(PetscMalloc1(T->nval + 1, utgt));
    (*utgt)[T->nval] = 0; /* read (unused) past the last unit's end by the unit loops */
    for (PetscInt s = 0; s < T->nslices; s++) {
      const PetscCount width = (T->sliceptr[s + 1] - T->sliceptr[s]) / H;
      for (PetscInt g = 0; g < ng; g++) {
        (*ustart)[u++] = j;
        for (PetscCount k = 0; k < width; k++)
          for (PetscInt l = 0; l < lanes; l++) (*utgt)[j++] = T->sliceptr[s] + k * H + g * lanes + l;
      }
    }
    for (PetscCount t = nsl; t < T->nval; t++) {
      if ((t - nsl) % 32 == 0) (*ustart)[u++] = j;
      (*utgt)[j++] = t;
    }
    (*ustart)[u] = j;
    PetscCheck(u == *nunit && j == T->nval, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sharednz METIS: slice units miscounted");
  } else { /* consecutive rows until the unit holds >= tune metis_csr_min values (default 1: one row
              per unit).  At 2.17 M tets (RCM): one row per unit, redundancy 1.63 and 9.4 s in METIS; >= 32 values
              (~3 rows), 1.79 and 5.0 s */
    PetscInt nu = 0;
    PetscCall(PetscMalloc1(n + 1, ustart));
    (*ustart)[0] = 0;
    for (PetscInt i = 0; i < n; i++)
      if (ia[i + 1] - (*ustart)[nu] >= csrmin || i == n - 1) (*ustart)[++nu] = ia[i + 1];
    *nunit = nu;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* the built-in P1 kernels run inside the block kernel (else, or for a plan that does not fit, globalnz runs) */
static inline PetscBool SharedActive(DMAssembly as)
{
  return (PetscBool)!((DMAssembly_SharedNZ *)as->data)->fallback;
}

/* with the built-in P1 kernels: the nodal coordinates (loaded per block through the scatter array) and the
   residual's block plan; with any other kernels globalnz runs (said in -info and View) */
static PetscErrorCode SetUp_SharedNZ(DMAssembly as)
{
  DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;

  PetscFunctionBegin;
  sh->fallback = (PetscBool)!DMAsmBuiltinP1(as);
  if (sh->fallback) {
    PetscCall(PetscInfo(as, "sharednz computes the element inside its kernel and needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()); with %s and these kernels globalnz runs instead\n", as->ename));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1((size_t)as->ndof * as->dim, &sh->xn));
  for (PetscInt e = 0; e < as->nelem; e++)
    for (PetscInt a = 0; a < as->nen; a++)
      for (PetscInt d = 0; d < as->dim; d++) sh->xn[(size_t)as->edof[(PetscCount)a * as->nelem + e] * as->dim + d] = as->xe[((PetscCount)a * as->dim + d) * as->nelem + e];
  PetscCall(DMAsmBuildSharedPlan(as, as->nen, as->ndof, as->edof, 0, NULL, NULL, &sh->rsh)); /* METIS units: 32 dofs */
  if (sh->rsh.fallback) PetscCall(PetscInfo(as, "sharednz: the residual's element data do not fit the shared-memory budget; globalnz assembles the residual\n"));
  sh->dxn = sh->xn;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    PetscCall(DMAsmCUDAMalloc((void **)&sh->dxn, sizeof(PetscReal) * as->ndof * as->dim));
    PetscCall(DMAsmCUDAUpload(sh->dxn, sh->xn, sizeof(PetscReal) * as->ndof * as->dim));
    PetscCall(DMAsmSharedPlanUpload(&sh->rsh));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block plan (jac keeps the key only), or the packed plan where it does not fit or with user kernels */
static PetscErrorCode JacPlan_SharedNZ(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  DMAssembly_SharedNZ *sh    = (DMAssembly_SharedNZ *)as->data;
  PetscCount           nunit = 0, *ustart = NULL, *utgt = NULL;

  PetscFunctionBegin;
  if (!SharedActive(as)) {
    PetscCall(DMAsmJacPlanPacked(as, B, q2t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (sh->part == DMASM_SHPART_METIS) PetscCall(SharedUnits(B, B->m, B->i, sh->csrmin, sh->lanes, &nunit, &ustart, &utgt));
  PetscCall(DMAsmPlanDestroy(&as->jac));
  PetscCall(DMAsmBuildSharedPlan(as, as->nen * as->nen, B->nval, q2t, nunit, ustart, utgt, &sh->jsh));
  PetscCall(PetscFree(ustart));
  PetscCall(PetscFree(utgt));
  if (sh->jsh.fallback) {
    PetscCall(PetscInfo(as, "sharednz: the Jacobian's element data do not fit the shared-memory budget; globalnz assembles this matrix\n"));
    PetscCall(DMAsmJacPlanPacked(as, B, q2t));
  } else if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmSharedPlanUpload(&sh->jsh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool HasJacPlan_SharedNZ(DMAssembly as)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  return (PetscBool)(SharedActive(as) && !sh->jsh.fallback ? sh->jsh.tb != NULL : as->jac.blkptr != NULL);
}

/* fused with the built-in P1 kernels while the plan fits the shared-memory budget (else globalnz runs) */
static PetscBool FusedActive_SharedNZ(DMAssembly as, PetscBool jac)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  return (PetscBool)(SharedActive(as) && !(jac ? sh->jsh.fallback : sh->rsh.fallback));
}

static PetscErrorCode Fused_SharedNZ(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  const DMAsmSharedPlan     *S  = jac ? &sh->jsh : &sh->rsh;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(DMAsmHostShared(as->builtin, S, as->nelem, sh->xn, u, dst));
  else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmP1CtxDevice(as->builtin));
    PetscCall(DMAsmP1CtxDeviceSym(as->builtin));
    PetscCall(DMAsmCUDAShared(as->builtin, S, as->nelem, sh->dxn, u, dst));
#endif
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the partition its blocks grew over (-dm_assembly_shared_partition) */
static PetscErrorCode PartitionView(DMAssembly as, const DMAsmSharedPlan *S, PetscViewer viewer)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (S->partition == DMASM_SHPART_METIS)
    PetscCall(PetscViewerASCIIPrintf(viewer, "partition METIS k-way (seed %" PetscInt_FMT ", parts of %.2f x the budget in element rows%s): %" PetscInt_FMT " units (coalesced target groups) in %" PetscInt_FMT " parts, %" PetscInt_FMT " split over blocks; %" PetscInt_FMT " target ranges (%.2f per block); plan set-up %.3g s (METIS and its graph %.3g s)\n", sh->seed, (double)S->fill, sh->fill > 0 ? "" : ", estimated", S->nunits, S->nparts, S->nsplit, S->nranges, S->nblocks ? (double)S->nranges / S->nblocks : 0.0, (double)S->setuptime, (double)S->metistime));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "partition contiguous (one target range per block); plan set-up %.3g s\n", (double)S->setuptime));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_SharedNZ(DMAssembly as, PetscViewer viewer)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  const DMAsmSharedPlan     *S  = &sh->jsh;

  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, sh->fallback ? "FALLS BACK TO globalnz: sharednz computes the element in its kernel and needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()) on P1 simplices" : "per block of targets: nodal data through a scatter array into shared memory, the block's elements computed there, reduction by nonzero from shared memory (16-bit offsets, fixed order, bitwise reproducible)"));
  if (!as->setupcalled || sh->fallback) PetscFunctionReturn(PETSC_SUCCESS);
  if (S->tb) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "sharednz Jacobian plan: %s order, %" PetscInt_FMT " blocks of %g kB at most (budget %" PetscInt_FMT " kB), %" PetscCount_FMT " element computations for %" PetscInt_FMT " elements (redundancy %.2f), %" PetscCount_FMT " 16-bit offsets; %" PetscInt_FMT " plan(s) built, %" PetscInt_FMT " assemblies\n", as->jac.slots ? "value-slot" : "CSR", S->nblocks, S->smem / 1024.0, sh->smem / 1024, S->eb[S->nblocks], as->nelem, as->nelem ? (double)S->eb[S->nblocks] / as->nelem : 0.0, S->lb[S->nblocks], as->njacplans, as->nreductions));
    PetscCall(PartitionView(as, S, viewer));
  }
  if (sh->rsh.fallback) PetscCall(PetscViewerASCIIPrintf(viewer, "sharednz residual: does not fit the budget, globalnz assembles it\n"));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "sharednz residual plan: %" PetscInt_FMT " blocks, redundancy %.2f\n", sh->rsh.nblocks, as->nelem ? (double)sh->rsh.eb[sh->rsh.nblocks] / as->nelem : 0.0));
    PetscCall(PartitionView(as, &sh->rsh, viewer));
  }
  if (sh->jsh.fallback) PetscCall(PetscViewerASCIIPrintf(viewer, "sharednz Jacobian: does not fit the budget, globalnz assembles it\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block plans' sizes (the benchmark's bytes model) */
static PetscErrorCode GetInfo_SharedNZ(DMAssembly as, DMAssemblyInfo *info)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;

  PetscFunctionBegin;
  if (sh->jsh.tb) {
    info->jacplanentries = sh->jsh.lb[sh->jsh.nblocks]; /* 16-bit offsets */
    info->shelements     = sh->jsh.eb[sh->jsh.nblocks];
    info->shnodes        = sh->jsh.nb[sh->jsh.nblocks];
    info->shblocks       = sh->jsh.nblocks;
  }
  if (sh->rsh.tb) {
    info->resplanentries     = sh->rsh.lb[sh->rsh.nblocks];
    info->shresidualelements = sh->rsh.eb[sh->rsh.nblocks];
    info->shresidualnodes    = sh->rsh.nb[sh->rsh.nblocks];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetFromOptions_SharedNZ(DMAssembly as, PetscOptionItems PetscOptionsObject)
{
  DMAssembly_SharedNZ *sh    = (DMAssembly_SharedNZ *)as->data;
  const char *const    parts[] = {"contiguous", "metis", "DMAsmSharedPartition", "DMASM_SHPART_", NULL};
  PetscInt             kb    = sh->smem / 1024;
  PetscEnum            v     = (PetscEnum)sh->part;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DMAssembly sharednz");
  PetscCall(PetscOptionsBoundedInt("-dm_assembly_sharednz_smem", "sharednz: shared memory per thread block, kB (element data + nodal data)", "DMASSEMBLYSHAREDNZ", kb, &kb, NULL, 1));
  PetscCheck(kb <= 227, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_sharednz_smem %" PetscInt_FMT ": at most 227 kB per block (H100/H200)", kb);
  sh->smem = kb * 1024;
  PetscCall(PetscOptionsEnum("-dm_assembly_shared_partition", "sharednz: blocks of contiguous targets, or grown over the parts of a METIS partition of coalesced target groups (ELLWARP lane groups, CSR rows, 32 residual dofs)", "DMASSEMBLYSHAREDNZ", parts, v, &v, NULL));
  sh->part = (DMAsmSharedPartition)v;
#if !defined(ELLWARP_HAVE_METIS)
  PetscCheck(sh->part != DMASM_SHPART_METIS, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "-dm_assembly_shared_partition metis: petscellwarp was built without METIS (CMake found no metis.h / libmetis); use contiguous");
#endif
  PetscCall(DMAsmTuneGetInt(as, "metis_seed", 0, PETSC_INT_MAX, &sh->seed));
  PetscCall(DMAsmTuneGetInt(as, "metis_lanes", 4, 32, &sh->lanes));
  PetscCheck(sh->lanes == 4 || sh->lanes == 8 || sh->lanes == 16 || sh->lanes == 32, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_tune metis_lanes=%" PetscInt_FMT ": 4, 8, 16 or 32", sh->lanes);
  PetscCall(DMAsmTuneGetInt(as, "metis_csr_min", 1, PETSC_INT_MAX, &sh->csrmin));
  PetscCall(DMAsmTuneGetReal(as, "metis_fill", 0, 4, &sh->fill));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on a distributed DM: with user kernels, which run globalnz */
static PetscBool MPISupported_SharedNZ(DMAssembly as)
{
  return (PetscBool)!DMAsmBuiltinP1(as);
}

static PetscErrorCode Destroy_SharedNZ(DMAssembly as)
{
  DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmSharedPlanDestroy(&sh->jsh));
  PetscCall(DMAsmSharedPlanDestroy(&sh->rsh));
#if defined(ELLWARP_HAVE_CUDA)
  if (sh->dxn != sh->xn) PetscCall(DMAsmCUDAFree((void **)&sh->dxn));
#endif
  PetscCall(PetscFree(sh->xn));
  PetscCall(PetscFree(as->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYSHAREDNZ - "sharednz" - per block of targets, the nodal data through a scatter array into shared memory,
   the block's elements computed there and reduced by nonzero from shared memory (Cecka, Lew, Darve, section 4.2.4);
   needs the built-in P1 kernels, else `DMASSEMBLYGLOBALNZ` runs.  Bitwise reproducible.

   Options Database Keys:
+  -dm_assembly_sharednz_smem <kB>                       - shared memory per block (default 72: three blocks per H100/H200 SM)
.  -dm_assembly_shared_partition <contiguous,metis>      - blocks of contiguous targets, or grown over a METIS partition (default contiguous)
-  -dm_assembly_tune metis_seed=<n>,metis_lanes=<4,8,16,32>,metis_csr_min=<n>,metis_fill=<r> - the METIS partition's units and parts (developer)

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYGLOBALNZ`
M*/
PetscErrorCode DMAssemblyCreate_SharedNZ(DMAssembly as)
{
  DMAssembly_SharedNZ *sh;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sh));
  sh->smem   = 72 * 1024; /* 3 blocks of 256 threads per SM (H100/H200: 227 kB, 64k registers) */
  sh->part   = DMASM_SHPART_CONTIGUOUS;
  sh->seed   = 1;
  sh->lanes  = 16;
  sh->csrmin = 1;
  sh->fill   = 0; /* estimated per plan (dmasmsharedmetis.c) */
  as->data   = sh;
  as->ops->reduce         = DMAsmReducePacked; /* the globalnz fallback */
  as->ops->fusedactive    = FusedActive_SharedNZ;
  as->ops->fused          = Fused_SharedNZ;
  as->ops->setup          = SetUp_SharedNZ;
  as->ops->jacplan        = JacPlan_SharedNZ;
  as->ops->hasjacplan     = HasJacPlan_SharedNZ;
  as->ops->mpisupported   = MPISupported_SharedNZ;
  as->ops->view           = View_SharedNZ;
  as->ops->setfromoptions = SetFromOptions_SharedNZ;
  as->ops->getinfo        = GetInfo_SharedNZ;
  as->ops->destroy        = Destroy_SharedNZ;
  PetscFunctionReturn(PETSC_SUCCESS);
}
