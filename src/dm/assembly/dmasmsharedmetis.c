/* sharednz with -dm_assembly_shared_partition metis: the walk order of the targets from a METIS partition.

   The contiguous plan cuts the target array into ranges; with RCM rows a range is a thin sheet of the mesh and
   about half of a block's elements lie on its border (computed again by the next block).  Here the target
   array is first cut into UNITS that keep the final stores coalesced (an ELLWARP lane group: 16 of the
   32 lanes of a slice over all its steps, one 128-byte line per step, the slots being column-major over the
   slice's sorted rows; a CSR row's range; 32 consecutive residual dofs), the units form a graph (adjacent when an element contributes to both, weighted by the number of such
   elements: the element computations the two save by sharing a block), and METIS_PartGraphKway cuts it into
   parts whose element rows fill about -dm_assembly_tune metis_fill of the shared-memory budget (vertex
   weight: the unit's element rows in values; the nodes take the rest; by default the fill is estimated).  The units are then walked part by
   part (parts in the order of their lowest unit, units increasing within a part) and the plan grows its blocks
   over that walk (dmasmshared.c): a part that does not fit splits, whole parts that fit merge.  Within a part the
   targets are walked in increasing order.

   METIS is deterministic for a given graph and seed (-dm_assembly_tune metis_seed), so the plan, and with it
   the fixed summation order of each target, is the same on every run. */
#include <petscellwarp/private/dmassemblyimpl.h>
#if defined(ELLWARP_HAVE_METIS)
  #include <metis.h>
#endif

#define SH_UNIT 32 /* targets of a unit when the caller gives none (the residual) */
#define UT(j)   (utgt ? utgt[j] : (j)) /* the j-th target in unit order */

#if defined(ELLWARP_HAVE_METIS)
typedef struct {
  idx_t    *a;
  PetscCount n, cap;
} IdxBuf;

static PetscErrorCode IdxBufPush(IdxBuf *b, idx_t v)
{
  PetscFunctionBegin;
  PetscCall(DMAsmBufGrow((void **)&b->a, sizeof(*b->a), b->n, &b->cap));
  b->a[b->n++] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(ELLWARP_HAVE_METIS)
/* the shared memory each part would take as one block (element rows + node coordinates (+ values)): mean,
   standard deviation and the parts over the budget */
static PetscErrorCode PartBytes(DMAssembly as, PetscInt w, PetscCount nunit, const PetscCount *ustart, const PetscCount *utgt, const PetscCount *tptr, const PetscCount *lists, idx_t np, const idx_t *part, PetscReal *mean, PetscReal *sd, PetscInt *over)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
  const PetscInt nelem = as->nelem, nen = as->nen;
  const size_t   nodeb = as->dim * sizeof(PetscReal) + (w == 1 ? sizeof(PetscScalar) : 0);
  PetscInt      *imark, *emark, *nmark, *uorder;
  PetscCount    *cnt;
  PetscReal      s1 = 0, s2 = 0;
  PetscInt       nonempty = 0;

  PetscFunctionBegin;
  *over = 0;
  PetscCall(PetscMalloc1((size_t)nen * nelem, &imark));
  PetscCall(PetscMalloc3(nelem, &emark, as->ndof, &nmark, nunit, &uorder));
  PetscCall(PetscCalloc1(np + 1, &cnt));
  for (PetscCount q = 0; q < (PetscCount)nen * nelem; q++) imark[q] = -1;
  for (PetscInt e = 0; e < nelem; e++) emark[e] = -1;
  for (PetscInt i = 0; i < as->ndof; i++) nmark[i] = -1;
  for (PetscCount u = 0; u < nunit; u++) cnt[part[u] + 1]++;
  for (idx_t k = 0; k < np; k++) cnt[k + 1] += cnt[k];
  for (PetscCount u = 0; u < nunit; u++) uorder[cnt[part[u]]++] = (PetscInt)u; /* cnt[k]: now the end of part k */
  for (idx_t k = 0, i0 = 0; k < np; i0 = (idx_t)cnt[k], k++) {
    PetscInt64 ninc = 0, nn = 0;
    for (PetscCount i = i0; i < cnt[k]; i++)
      for (PetscCount j = ustart[uorder[i]], t = UT(j); j < ustart[uorder[i] + 1]; j++, t = UT(j))
        for (PetscCount s = tptr[t]; s < tptr[t + 1]; s++) {
          const PetscInt   e  = (PetscInt)(lists[s] % nelem);
          const PetscCount ia = (PetscCount)((lists[s] / nelem) / w) * nelem + e;
          if (imark[ia] != (PetscInt)k) {
            imark[ia] = (PetscInt)k;
            ninc++;
          }
          if (emark[e] == (PetscInt)k) continue;
          emark[e] = (PetscInt)k;
          for (PetscInt a = 0; a < nen; a++) {
            const PetscInt v = as->edof[(PetscCount)a * nelem + e];
            if (nmark[v] != (PetscInt)k) {
              nmark[v] = (PetscInt)k;
              nn++;
            }
          }
        }
    if (cnt[k] > i0) {
      const PetscReal b = (PetscReal)ninc * w * sizeof(PetscScalar) + (PetscReal)nn * nodeb;
      s1 += b;
      s2 += b * b;
      nonempty++;
      if (b > sh->smem) (*over)++;
    }
  }
  *mean = nonempty ? s1 / nonempty : 0;
  *sd   = nonempty ? PetscSqrtReal(PetscMax(0, s2 / nonempty - *mean * *mean)) : 0;
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree3(emark, nmark, uorder));
  PetscCall(PetscFree(imark));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* w: values per element row (nen: Jacobian, 1: residual); tptr/lists: each target's source entries q = k*nelem + e;
   ustart[nunit+1]: unit u is the targets [ustart[u], ustart[u+1]) (NULL: units of 32 targets), or with utgt
   the targets utgt[ustart[u] .. ustart[u+1]) (ELLWARP lane groups: strided runs).
   Out: tperm[ntarget] (position -> target), nparts and partptr[nparts+1] (positions), nunits, the fill used. */
PetscErrorCode DMAsmSharedOrderMETIS(DMAssembly as, PetscInt w, PetscCount ntarget, const PetscCount *tptr, const PetscCount *lists, PetscCount nunit, const PetscCount *ustart, const PetscCount *utgt, PetscCount **tperm, PetscInt *nparts, PetscCount **partptr, PetscInt *nunits, PetscReal *fill)
{
  const DMAssembly_SharedNZ *sh = (DMAssembly_SharedNZ *)as->data;
#if defined(ELLWARP_HAVE_METIS)
  const PetscInt nelem = as->nelem, nen = as->nen;
  PetscCount    *us = NULL, *eptr, *upos;
  PetscInt      *elast, *eunit, *imark, *vmark, *vpos, *order, *pmin;
  idx_t          nv, ncon = 1, np, objval = 0, options[METIS_NOPTIONS], *xadj, *vwgt, *part;
  IdxBuf         adj = {0}, wgt = {0};
  PetscInt64     wtot = 0, scale = 1;
  PetscReal      cap;
  int            err;

  PetscFunctionBegin;
  if (!ustart) { /* units of 32 targets */
    nunit = (ntarget + SH_UNIT - 1) / SH_UNIT;
    PetscCall(PetscMalloc1(nunit + 1, &us));
    for (PetscCount u = 0; u <= nunit; u++) us[u] = PetscMin(u * SH_UNIT, ntarget);
    ustart = us;
  }
  PetscCheck(ustart[0] == 0 && ustart[nunit] == ntarget, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sharednz METIS: the units do not cover the %" PetscCount_FMT " targets", ntarget);
  PetscCheck(nunit < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "sharednz METIS: %" PetscCount_FMT " units exceed METIS's 32-bit indices", nunit);
  nv = (idx_t)nunit;

  /* elements -> the units they contribute to (CSR eptr/eunit), and each unit's element rows (vertex weight) */
  PetscCall(PetscMalloc2(nelem, &elast, nelem + 1, &eptr));
  PetscCall(PetscMalloc1((size_t)nen * nelem, &imark));
  PetscCall(PetscMalloc1(nunit, &vwgt));
  for (PetscInt e = 0; e < nelem; e++) elast[e] = -1;
  for (PetscInt e = 0; e <= nelem; e++) eptr[e] = 0;
  for (PetscCount q = 0; q < (PetscCount)nen * nelem; q++) imark[q] = -1;
  for (PetscCount u = 0; u < nunit; u++) {
    PetscInt64 ninc = 0;
    for (PetscCount j = ustart[u], t = UT(j); j < ustart[u + 1]; j++, t = UT(j))
      for (PetscCount s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt   e  = (PetscInt)(lists[s] % nelem), a = (PetscInt)(lists[s] / nelem) / w;
        const PetscCount ia = (PetscCount)a * nelem + e;
        if (imark[ia] != (PetscInt)u) {
          imark[ia] = (PetscInt)u;
          ninc++;
        }
        if (elast[e] != (PetscInt)u) {
          elast[e] = (PetscInt)u;
          eptr[e + 1]++;
        }
      }
    vwgt[u] = (idx_t)PetscMax(1, ninc * w); /* values in shared memory; 1: METIS wants no empty vertex */
    wtot += vwgt[u];
  }
  PetscCall(PetscFree(imark));
  for (PetscInt e = 0; e < nelem; e++) eptr[e + 1] += eptr[e];
  PetscCall(PetscMalloc2(eptr[nelem] + 1, &eunit, nelem + 1, &upos));
  PetscCall(PetscArraycpy(upos, eptr, nelem + 1));
  for (PetscInt e = 0; e < nelem; e++) elast[e] = -1;
  for (PetscCount u = 0; u < nunit; u++)
    for (PetscCount j = ustart[u], t = UT(j); j < ustart[u + 1]; j++, t = UT(j))
      for (PetscCount s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt e = (PetscInt)(lists[s] % nelem);
        if (elast[e] == (PetscInt)u) continue;
        elast[e]          = (PetscInt)u;
        eunit[upos[e]++] = (PetscInt)u;
      }

  /* the unit graph: u ~ v when an element contributes to both, weight = the number of such elements */
  PetscCall(PetscMalloc1(nunit + 1, &xadj));
  PetscCall(PetscMalloc2(nunit, &vmark, nunit, &vpos));
  for (PetscCount u = 0; u < nunit; u++) vmark[u] = -1;
  for (PetscInt e = 0; e < nelem; e++) elast[e] = -1;
  xadj[0] = 0;
  for (PetscCount u = 0; u < nunit; u++) {
    for (PetscCount j = ustart[u], t = UT(j); j < ustart[u + 1]; j++, t = UT(j))
      for (PetscCount s = tptr[t]; s < tptr[t + 1]; s++) {
        const PetscInt e = (PetscInt)(lists[s] % nelem);
        if (elast[e] == (PetscInt)u) continue;
        elast[e] = (PetscInt)u;
        for (PetscCount k = eptr[e]; k < eptr[e + 1]; k++) {
          const PetscInt v = eunit[k];
          if (v == (PetscInt)u) continue;
          if (vmark[v] != (PetscInt)u) {
            vmark[v] = (PetscInt)u;
            vpos[v]  = (PetscInt)adj.n;
            PetscCall(IdxBufPush(&adj, (idx_t)v));
            PetscCall(IdxBufPush(&wgt, 1));
          } else wgt.a[vpos[v]]++;
        }
      }
    PetscCheck(adj.n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "sharednz METIS: the unit graph exceeds METIS's 32-bit indices");
    xadj[u + 1] = (idx_t)adj.n;
  }
  PetscCall(PetscFree2(vmark, vpos));
  PetscCall(PetscFree2(eunit, upos));
  PetscCall(PetscFree2(elast, eptr));
  if (!adj.a) PetscCall(PetscMalloc1(1, &adj.a));
  if (!wgt.a) PetscCall(PetscMalloc1(1, &wgt.a));

  /* parts: the element rows of a part fill about shfill of the budget */
  while (wtot / scale > PETSC_INT32_MAX / 4) scale *= 2; /* METIS sums the weights in 32 bits */
  if (scale > 1) {
    wtot = 0;
    for (PetscCount u = 0; u < nunit; u++) {
      vwgt[u] = PetscMax(1, vwgt[u] / (idx_t)scale);
      wtot += vwgt[u];
    }
  }
  { /* automatic fill: the element rows' share of a block's bytes, the nodes taking the rest (a compact part's
       nodes: its own rows' plus a halo, ~1.7 per row), with 15% slack for METIS's imbalance and the estimate:
       ~0.80 for the P1 tet Jacobian (32 B per element row), ~0.65 for the residual (8 B per element row) */
    const PetscReal incb = (PetscReal)wtot * scale * sizeof(PetscScalar) / PetscMax(1, as->ndof), nodeb = 1.7 * (as->dim * sizeof(PetscReal) + (w == 1 ? sizeof(PetscScalar) : 0));
    *fill = sh->fill > 0 ? sh->fill : 0.85 * incb / (incb + nodeb);
  }
  cap = *fill * (PetscReal)sh->smem / sizeof(PetscScalar) / scale;
  if (sh->fill <= 0) { /* coarse units (an ELLWARP slice of 32 rows against ~72 rows per block): METIS cannot
                            balance parts of 2.6 units, a third of them would overflow and split; parts of a whole
                            number of average units fit */
    const PetscReal k = cap * nunit / PetscMax(1, wtot);
    if (k < 8) { /* 2.58 -> 2 (72 kB Jacobian into ELLWARP K1 slices), 3.99 -> 4 (110 kB: fits, 0.2% of the parts split) */
      const PetscReal kf = PetscMax(1, PetscFloorReal(k + 0.1));
      cap *= kf / k;
      *fill *= kf / k;
    }
  }
  np  = (idx_t)PetscMin((PetscInt64)nunit, PetscMax(1, (PetscInt64)PetscCeilReal((PetscReal)wtot / cap)));
  PetscCall(PetscMalloc1(nunit, &part));
  for (int pass = 0; pass < 2; pass++) {
    PetscReal mean, sd;
    PetscInt  over;
    if (np > 1) {
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_SEED]      = (idx_t)sh->seed; /* fixed: the same partition, hence the same plan, every run */
      options[METIS_OPTION_NUMBERING] = 0;
      err                             = METIS_PartGraphKway(&nv, &ncon, xadj, adj.a, vwgt, NULL, wgt.a, &np, NULL, NULL, options, &objval, part);
      PetscCheck(err == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "sharednz: METIS_PartGraphKway failed (%d) for %" PetscInt_FMT " units in %" PetscInt_FMT " parts", err, (PetscInt)nv, (PetscInt)np);
    } else
      for (PetscCount u = 0; u < nunit; u++) part[u] = 0;
    if (pass || sh->fill > 0) break;
    /* the estimate's check: the parts' exact shared memory (element rows + nodes); when more than 2% would not
       fit a block (and split), METIS runs once more with the part count scaled so that mean + 2 sd fits */
    PetscCall(PartBytes(as, w, nunit, ustart, utgt, tptr, lists, np, part, &mean, &sd, &over));
    if (over <= 0.02 * np) break;
    {
      const idx_t np2 = (idx_t)PetscMin((PetscReal)nunit, PetscCeilReal(np * (mean + 2 * sd) / sh->smem));
      PetscCall(PetscInfo(as, "sharednz METIS: %" PetscInt_FMT " of %" PetscInt_FMT " parts exceed the budget (mean %.3g kB, sd %.3g kB): %" PetscInt_FMT " parts instead\n", over, (PetscInt)np, mean / 1024, sd / 1024, (PetscInt)np2));
      if (np2 <= np) break;
      *fill *= (PetscReal)np / np2;
      np = np2;
    }
  }
  PetscCall(PetscFree(xadj));
  PetscCall(PetscFree(vwgt));
  PetscCall(PetscFree(adj.a));
  PetscCall(PetscFree(wgt.a));

  /* walk: parts in the order of their lowest unit (neighbouring parts stay near each other in the target
     array), units increasing within a part */
  PetscCall(PetscMalloc2(np, &pmin, np + 1, &order));
  for (idx_t k = 0; k < np; k++) pmin[k] = PETSC_INT_MAX;
  for (PetscCount u = nunit; u-- > 0;) pmin[part[u]] = (PetscInt)u;
  {
    PetscInt *idx, *rank, nonempty = 0;
    PetscCall(PetscMalloc2(np, &idx, np, &rank));
    for (idx_t k = 0; k < np; k++) idx[k] = (PetscInt)k;
    PetscCall(PetscSortIntWithArray((PetscInt)np, pmin, idx)); /* pmin distinct (one unit, one part) but for empty parts */
    for (idx_t k = 0; k < np; k++) {
      rank[idx[k]] = k;
      if (pmin[k] != PETSC_INT_MAX) nonempty++;
    }
    /* counting sort of the units by part rank (stable: increasing within a part) */
    PetscCall(PetscMalloc1(ntarget + 1, tperm));
    PetscCall(PetscCalloc1(nonempty + 1, partptr));
    {
      PetscCount *cnt;
      PetscCall(PetscCalloc1(np + 1, &cnt));
      for (PetscCount u = 0; u < nunit; u++) cnt[rank[part[u]] + 1] += ustart[u + 1] - ustart[u];
      for (idx_t k = 0; k < np; k++) cnt[k + 1] += cnt[k];
      for (PetscInt k = 0; k <= nonempty; k++) (*partptr)[k] = cnt[k]; /* empty parts rank last */
      for (PetscCount u = 0; u < nunit; u++)
        for (PetscCount j = ustart[u]; j < ustart[u + 1]; j++) (*tperm)[cnt[rank[part[u]]]++] = UT(j);
      PetscCall(PetscFree(cnt));
      /* a part's targets in increasing order: the ELLWARP lane groups of one slice that share a part become one
         run per step (else one run per lane group and step); contiguous units are unchanged */
      if (utgt)
        for (PetscInt k = 0; k < nonempty; k++) PetscCall(PetscSortCount((*partptr)[k + 1] - (*partptr)[k], *tperm + (*partptr)[k]));
    }
    *nparts = nonempty;
    PetscCall(PetscFree2(idx, rank));
  }
  *nunits = (PetscInt)nunit;
  PetscCall(PetscFree2(pmin, order));
  PetscCall(PetscFree(part));
  PetscCall(PetscFree(us));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  (void)w;
  (void)ntarget;
  (void)tptr;
  (void)lists;
  (void)nunit;
  (void)ustart;
  (void)utgt;
  (void)tperm;
  (void)nparts;
  (void)partptr;
  (void)nunits;
  (void)fill;
  SETERRQ(PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "-dm_assembly_shared_partition metis: petscellwarp was built without METIS (CMake found no metis.h / libmetis); use -dm_assembly_shared_partition contiguous");
#endif
}
