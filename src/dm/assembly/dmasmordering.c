/* DMAssembly's locality ordering of the DM's dofs (DMAssemblySetLocalityOrdering, -dm_assembly_ordering): the renumbered
   variants of the ELL-WARP paper (Wong, Kuhl, Darve 2015, sections 5.2-5.3) through the assembler.

   K1 multiplies in ELL-WARP's sorted row order and stores y[rowperm[r]] (a scattered store); K1r renumbers the
   unknowns "during the setup phase" so that the solver's vectors already live in the order the kernel wants (no
   permutation per product); K1rs additionally keeps each row's column indices sorted (with a renumbered DM every
   matrix PETSc assembles has sorted columns, so Kr through the DM is always Krs).  Here the renumbering is given to
   the DM itself, once, before its global section, vectors and matrices exist: the local section gets a point
   permutation (PetscSectionSetPermutation: the storage order of the points, hence of their dofs), so DMPlex, the
   assembler's element map, every global and local vector, DMCreateMatrix() and the assembler's own pattern follow
   it; the mesh points keep their numbers (users keep their DM, labels, per-cell data).  On several processes each
   rank permutes its local chart: its owned dofs are numbered in that order from its first global row, ghosts come
   from their owners (PetscSectionCreateGlobalSection), so the reordering is per rank of the local part.

   Orderings (DMAssemblyOrdering):
   - rcm: reverse Cuthill-McKee (PETSc's MATORDERINGRCM, SPARSEPACK's GENRCM) of the coupling graph of the points that
     carry dofs (two points coupled when they lie in the closure of one cell: the matrix's pattern, one node per point,
     so a vector field's components and a point's interior dofs stay together and P1-P5/Q1 are all one graph).
     PETSc's own section reordering (-dm_reorder_section_type) offers only reverse and cohesive orders in 3.26, and
     DMPlexGetOrdering + DMPlexPermute renumber the mesh points (the user's DM), hence this graph.
   - ellwarp: ELLWARP's row order (the paper's Kr/Krs): rcm, then within each window of 256 owned rows (ELLWARP's
     automatic sort window, ELLWARP_AUTO_WINDOW in src/mat/impls/ellwarp/layout.c) the points stably sorted longest
     row first, which is exactly what the layout's windowed sort does.  When the layout keeps the 256-row window its
     row permutation is then the identity: the product's stores y[r] are coalesced, and the x entries a slice reads
     are the same as with rcm (the sort moves rows within the window only), so the column span and the 16-bit column
     offsets hardly change.  Against rcm it can win only the scattered store of y (8 bytes per row of ~12 nnz x 10-12
     bytes read: the paper measured 1-11 % for K1 -> K1r); it loses where the layout picks the whole-matrix sort
     instead (automatic choice by bytes moved: then the rows are re-sorted and the windows bought nothing;
     -mat_ellwarp_tune sort_window=256 keeps them), and on several ranks the window sort uses the full row length
     while the diagonal block sorts by its own part.  Hence rcm is the default recommendation and ellwarp the paper's
     variant, to be measured (benchmarks/results/cardiac-ordering-h100/).

   Statistics (-info, DMAssemblyView): per rank, over the local section's rows, the median column span of 32
   consecutive rows (max - min + 1 column: one ELLWARP slice's x footprint, the statistic of MATSEQELLWARP's
   "Numbering cost" -info line) and the bandwidth, before and after. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petsc/private/dmimpl.h> /* dm->globalSection: whether the DM's global numbering exists already (then it is too late) */
#include <petsc/private/sectionimpl.h> /* the closure permutations (DMPlexSetClosurePermutationTensor) to carry over */
#include <petscdmplex.h>
#include <petscsf.h>
#include <petsctime.h>

const char *const DMAssemblyOrderings[] = {"none", "rcm", "ellwarp", "DMAssemblyOrdering", "DMASSEMBLY_ORDERING_", NULL};

#define DMASM_ORDER_WINDOW 256 /* ELLWARP's automatic sort window (layout.c, ELLWARP_AUTO_WINDOW) */
#define DMASM_ORDER_GROUP  32  /* rows of an ELLWARP slice: the span statistic's group */
#define DMASM_ORDER_MAXCL  128 /* dof-carrying points in one cell's closure (P5 tets: 56, Q2 hexes: 27) */

/* the coupling graph of the points that carry dofs in a section: node i is point pt[i] with ndof[i] dofs; nodes are
   coupled when they lie in the closure of one cell (a node is coupled to itself) */
typedef struct {
  PetscInt  pStart, pEnd, n;
  PetscInt *node;    /* [pEnd - pStart] point -> node, -1: no dofs */
  PetscInt *pt;      /* [n] node -> point */
  PetscInt *ndof;    /* [n] */
  PetscInt *gi, *gj; /* [n + 1], [gi[n]]: CSR, columns sorted */
} PointGraph;

/* the dof-carrying points of cell c's closure, as nodes (uninterpolated meshes: the cell and its cone, read directly) */
static PetscErrorCode CellNodes(DM dm, PetscInt depth, PetscInt c, const PointGraph *g, PetscInt nodes[], PetscInt *k)
{
  PetscInt ncl, *cl = NULL;

  PetscFunctionBegin;
  *k = 0;
  if (depth <= 1) {
    const PetscInt *cone;
    PetscInt        nc;
    PetscCall(DMPlexGetConeSize(dm, c, &nc));
    PetscCall(DMPlexGetCone(dm, c, &cone));
    for (PetscInt i = -1; i < nc; i++) {
      const PetscInt p = i < 0 ? c : cone[i], v = g->node[p - g->pStart];
      if (v < 0) continue;
      PetscCheck(*k < DMASM_ORDER_MAXCL, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly ordering: cell %" PetscInt_FMT " has more than %d points with dofs", c, DMASM_ORDER_MAXCL);
      nodes[(*k)++] = v;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  for (PetscInt i = 0; i < ncl; i++) {
    const PetscInt p = cl[2 * i];
    PetscInt       v;
    if (p < g->pStart || p >= g->pEnd) continue;
    v = g->node[p - g->pStart];
    if (v < 0) continue;
    PetscCheck(*k < DMASM_ORDER_MAXCL, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly ordering: cell %" PetscInt_FMT " has more than %d points with dofs", c, DMASM_ORDER_MAXCL);
    nodes[(*k)++] = v;
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PointGraphCreate(DM dm, PetscSection s, PointGraph *g)
{
  PetscInt cStart, cEnd, depth, nodes[DMASM_ORDER_MAXCL], k, nc, *cptr, *cnode, *nptr, *ncell, *mark, *work;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(PetscSectionGetChart(s, &g->pStart, &g->pEnd));
  PetscCall(PetscMalloc1(g->pEnd - g->pStart, &g->node));
  for (PetscInt p = g->pStart; p < g->pEnd; p++) {
    PetscInt dof;
    PetscCall(PetscSectionGetDof(s, p, &dof));
    g->node[p - g->pStart] = dof > 0 ? g->n++ : -1;
  }
  PetscCall(PetscMalloc2(g->n, &g->pt, g->n, &g->ndof));
  for (PetscInt p = g->pStart; p < g->pEnd; p++) {
    const PetscInt v = g->node[p - g->pStart];
    if (v < 0) continue;
    g->pt[v] = p;
    PetscCall(PetscSectionGetDof(s, p, &g->ndof[v]));
  }
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  nc = cEnd - cStart;
  /* cell -> its nodes, node -> its cells (CSR), then each node's neighbours: the nodes of its cells, made unique with
     a marker (a few dozen per node, sorted after): no per-cell k x k lists to sort (they were most of the time) */
  PetscCall(PetscMalloc1(nc + 1, &cptr));
  cptr[0] = 0;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscCall(CellNodes(dm, depth, c, g, nodes, &k));
    cptr[c - cStart + 1] = cptr[c - cStart] + k;
  }
  PetscCall(PetscMalloc1(cptr[nc], &cnode));
  for (PetscInt c = cStart; c < cEnd; c++) PetscCall(CellNodes(dm, depth, c, g, cnode + cptr[c - cStart], &k));
  PetscCall(PetscCalloc1(g->n + 1, &nptr));
  for (PetscInt q = 0; q < cptr[nc]; q++) nptr[cnode[q] + 1]++;
  for (PetscInt v = 0; v < g->n; v++) nptr[v + 1] += nptr[v];
  PetscCall(PetscMalloc1(nptr[g->n], &ncell));
  {
    PetscInt *pos;
    PetscCall(PetscMalloc1(g->n, &pos));
    PetscCall(PetscArraycpy(pos, nptr, g->n));
    for (PetscInt c = 0; c < nc; c++)
      for (PetscInt q = cptr[c]; q < cptr[c + 1]; q++) ncell[pos[cnode[q]]++] = c;
    PetscCall(PetscFree(pos));
  }
  PetscCall(PetscMalloc1(g->n, &mark));
  for (PetscInt v = 0; v < g->n; v++) mark[v] = -1;
  PetscCall(PetscMalloc1(g->n + 1, &g->gi));
  /* two passes: sizes, then the entries */
  for (int pass = 0; pass < 2; pass++) {
    g->gi[0] = 0;
    for (PetscInt v = 0; v < g->n; v++) {
      PetscInt m = 0;
      work       = pass ? g->gj + g->gi[v] : NULL;
      mark[v]    = pass ? -2 - v : v; /* distinct per pass and node */
      if (work) work[m] = v;
      m++;
      for (PetscInt j = nptr[v]; j < nptr[v + 1]; j++) {
        const PetscInt c = ncell[j];
        for (PetscInt q = cptr[c]; q < cptr[c + 1]; q++) {
          const PetscInt w = cnode[q], tag = pass ? -2 - v : v;
          if (mark[w] == tag) continue;
          mark[w] = tag;
          if (work) work[m] = w;
          m++;
        }
      }
      if (work) PetscCall(PetscSortInt(m, work));
      g->gi[v + 1] = g->gi[v] + m;
    }
    if (!pass) PetscCall(PetscMalloc1(g->gi[g->n], &g->gj));
  }
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(ncell));
  PetscCall(PetscFree(nptr));
  PetscCall(PetscFree(cnode));
  PetscCall(PetscFree(cptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PointGraphDestroy(PointGraph *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(g->node));
  PetscCall(PetscFree2(g->pt, g->ndof));
  PetscCall(PetscFree(g->gi));
  PetscCall(PetscFree(g->gj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the rows of the section (its storage order): median column span over groups of 32 consecutive rows, and bandwidth */
static PetscErrorCode SpanStats(PetscSection s, const PointGraph *g, PetscReal *span, PetscReal *bw)
{
  PetscInt   m, ng, *lo, *hi, *off;
  PetscReal *gs, b = 0;

  PetscFunctionBegin;
  PetscCall(PetscSectionGetStorageSize(s, &m));
  ng = (m + DMASM_ORDER_GROUP - 1) / DMASM_ORDER_GROUP;
  PetscCall(PetscMalloc4(m, &lo, m, &hi, g->n, &off, ng, &gs));
  for (PetscInt r = 0; r < m; r++) {
    lo[r] = PETSC_INT_MAX;
    hi[r] = -1;
  }
  for (PetscInt v = 0; v < g->n; v++) PetscCall(PetscSectionGetOffset(s, g->pt[v], &off[v]));
  for (PetscInt v = 0; v < g->n; v++) {
    PetscInt l = PETSC_INT_MAX, h = -1;
    for (PetscInt k = g->gi[v]; k < g->gi[v + 1]; k++) {
      const PetscInt q = g->gj[k];
      l = PetscMin(l, off[q]);
      h = PetscMax(h, off[q] + g->ndof[q] - 1);
    }
    for (PetscInt r = off[v]; r < off[v] + g->ndof[v]; r++) {
      lo[r] = l;
      hi[r] = h;
      b     = PetscMax(b, (PetscReal)PetscMax(h - r, r - l));
    }
  }
  for (PetscInt q = 0; q < ng; q++) {
    PetscInt l = PETSC_INT_MAX, h = -1;
    for (PetscInt r = q * DMASM_ORDER_GROUP; r < PetscMin(m, (q + 1) * DMASM_ORDER_GROUP); r++) {
      l = PetscMin(l, lo[r]);
      h = PetscMax(h, hi[r]);
    }
    gs[q] = h >= l ? (PetscReal)(h - l + 1) : 0;
  }
  PetscCall(PetscSortReal(ng, gs));
  *span = ng ? gs[ng / 2] : 0;
  *bw   = b;
  PetscCall(PetscFree4(lo, hi, off, gs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* RCM of the graph: order[i] = the node numbered i (MatGetOrdering's row permutation: new -> old) */
static PetscErrorCode OrderRCM(const PointGraph *g, PetscInt order[])
{
  Mat             A;
  IS              rp, cp;
  PetscScalar    *val;
  const PetscInt *idx;

  PetscFunctionBegin;
  if (!g->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(g->gi[g->n], &val));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, g->n, g->n, g->gi, g->gj, val, &A)); /* the graph's arrays, not copied */
  PetscCall(MatGetOrdering(A, MATORDERINGRCM, &rp, &cp));
  PetscCall(ISGetIndices(rp, &idx));
  PetscCall(PetscArraycpy(order, idx, g->n));
  PetscCall(ISRestoreIndices(rp, &idx));
  PetscCall(ISDestroy(&rp));
  PetscCall(ISDestroy(&cp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELLWARP's row order on top of order[]: windows of W owned rows (counted in dofs, in order), each one's owned nodes
   stably sorted longest row first (a row's length: the dofs of the nodes it couples to); ghost nodes keep their place */
static PetscErrorCode OrderWindows(const PointGraph *g, const PetscBool owned[], PetscInt W, PetscInt order[])
{
  PetscInt *len, *key, *pos, *nd, maxlen = 0, start = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(g->n, &len, g->n, &key, g->n, &pos, g->n, &nd));
  for (PetscInt v = 0; v < g->n; v++) {
    len[v] = 0;
    for (PetscInt k = g->gi[v]; k < g->gi[v + 1]; k++) len[v] += g->ndof[g->gj[k]];
    maxlen = PetscMax(maxlen, len[v]);
  }
  while (start < g->n) {
    PetscInt rows = 0, cnt = 0, end = start;
    for (; end < g->n && rows < W; end++) {
      const PetscInt v = order[end];
      if (!owned[v]) continue;
      rows += g->ndof[v];
      pos[cnt] = end;
      nd[cnt]  = v;
      cnt++;
    }
    PetscCheck((PetscInt64)(maxlen + 1) * cnt < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly ordering: row lengths too large for the window sort");
    for (PetscInt i = 0; i < cnt; i++) key[i] = (maxlen - len[nd[i]]) * cnt + i; /* longest first, ties in rcm order */
    PetscCall(PetscSortIntWithArray(cnt, key, nd));
    for (PetscInt i = 0; i < cnt; i++) order[pos[i]] = nd[i];
    start = end;
  }
  PetscCall(PetscFree4(len, key, pos, nd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a copy of section s (fields, chart, dofs, constraints, symmetries, closure permutations) with the point permutation
   perm (NULL: none).  PetscSectionCopy() keeps the old offsets (and sets no permutation after its set-up), hence this. */
static PetscErrorCode SectionPermuted(PetscSection s, IS perm, PetscSection *ns)
{
  PetscInt        nf, pStart, pEnd;
  PetscSectionSym sym;

  PetscFunctionBegin;
  PetscCall(PetscSectionCreate(PetscObjectComm((PetscObject)s), ns));
  PetscCall(PetscSectionGetNumFields(s, &nf));
  if (nf) PetscCall(PetscSectionSetNumFields(*ns, nf));
  for (PetscInt f = 0; f < nf; f++) {
    const char *name;
    PetscInt    nc;
    PetscCall(PetscSectionGetFieldName(s, f, &name));
    PetscCall(PetscSectionSetFieldName(*ns, f, name));
    PetscCall(PetscSectionGetFieldComponents(s, f, &nc));
    PetscCall(PetscSectionSetFieldComponents(*ns, f, nc));
    for (PetscInt c = 0; c < nc; c++) {
      PetscCall(PetscSectionGetComponentName(s, f, c, &name));
      PetscCall(PetscSectionSetComponentName(*ns, f, c, name));
    }
    PetscCall(PetscSectionGetFieldSym(s, f, &sym));
    PetscCall(PetscSectionSetFieldSym(*ns, f, sym));
  }
  PetscCall(PetscSectionGetChart(s, &pStart, &pEnd));
  PetscCall(PetscSectionSetChart(*ns, pStart, pEnd));
  PetscCall(PetscSectionSetPermutation(*ns, perm));
  PetscCall(PetscSectionGetSym(s, &sym));
  PetscCall(PetscSectionSetSym(*ns, sym));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt dof, cdof;
    PetscCall(PetscSectionGetDof(s, p, &dof));
    PetscCall(PetscSectionSetDof(*ns, p, dof));
    PetscCall(PetscSectionGetConstraintDof(s, p, &cdof));
    if (cdof) PetscCall(PetscSectionSetConstraintDof(*ns, p, cdof));
    for (PetscInt f = 0; f < nf; f++) {
      PetscCall(PetscSectionGetFieldDof(s, p, f, &dof));
      PetscCall(PetscSectionSetFieldDof(*ns, p, f, dof));
      if (cdof) {
        PetscCall(PetscSectionGetFieldConstraintDof(s, p, f, &dof));
        if (dof) PetscCall(PetscSectionSetFieldConstraintDof(*ns, p, f, dof));
      }
    }
  }
  PetscCall(PetscSectionSetUp(*ns));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt        cdof;
    const PetscInt *ind;
    PetscCall(PetscSectionGetConstraintDof(*ns, p, &cdof));
    if (!cdof) continue;
    PetscCall(PetscSectionGetConstraintIndices(s, p, &ind));
    PetscCall(PetscSectionSetConstraintIndices(*ns, p, ind));
    for (PetscInt f = 0; f < nf; f++) {
      PetscCall(PetscSectionGetFieldConstraintDof(*ns, p, f, &cdof));
      if (!cdof) continue;
      PetscCall(PetscSectionGetFieldConstraintIndices(s, p, f, &ind));
      PetscCall(PetscSectionSetFieldConstraintIndices(*ns, p, f, ind));
    }
  }
  if (s->clHash) { /* the closure's dof order (e.g. tensor order, DMPlexSetClosurePermutationTensor): not the storage order */
    PetscSectionClosurePermKey key;
    PetscSectionClosurePermVal val;
    kh_foreach(s->clHash, key, val, {
      IS cl;
      PetscCall(ISCreateGeneral(PETSC_COMM_SELF, key.size, val.perm, PETSC_COPY_VALUES, &cl));
      PetscCall(PetscSectionSetClosurePermutation(*ns, s->clObj, key.depth, cl));
      PetscCall(ISDestroy(&cl));
    });
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the DM's local section renumbered by type: the points with dofs in the ordering, then the others in point order */
static PetscErrorCode ApplyOrdering(DMAssembly as, DMAssemblyOrdering type)
{
  DM           dm = as->dm;
  MPI_Comm     comm;
  PetscSection s, ns;
  PointGraph   g;
  IS           perm = NULL;
  PetscReal    st[4];
  PetscMPIInt  size;
  PetscLogDouble t[5];

  PetscFunctionBegin;
  PetscCall(PetscTime(&t[0]));
  PetscCall(PetscObjectGetComm((PetscObject)as, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMGetLocalSection(dm, &s)); /* made from the DM's discretization if it is not yet */
  PetscCheck(s, comm, PETSC_ERR_ARG_WRONGSTATE, "DMAssemblySetLocalityOrdering: the DM has no local section (set its fields and call DMCreateDS() first)");
  PetscCall(PetscTime(&t[1]));
  PetscCall(PointGraphCreate(dm, s, &g));
  PetscCall(PetscTime(&t[2]));
  PetscCall(SpanStats(s, &g, &st[0], &st[1]));
  if (type != DMASSEMBLY_ORDERING_NONE) {
    PetscInt  *order, *pperm, np = g.pEnd - g.pStart, k = 0;
    PetscBool *owned;
    PetscCall(PetscMalloc3(g.n, &order, np, &pperm, g.n, &owned));
    PetscCall(OrderRCM(&g, order));
    if (type == DMASSEMBLY_ORDERING_ELLWARP) {
      PetscSF         sf;
      PetscInt        nroots, nleaves;
      const PetscInt *ilocal;
      for (PetscInt v = 0; v < g.n; v++) owned[v] = PETSC_TRUE;
      PetscCall(DMGetPointSF(dm, &sf));
      PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, NULL));
      if (nroots >= 0)
        for (PetscInt i = 0; i < nleaves; i++) { /* leaves of the point SF: ghosts, owned elsewhere */
          const PetscInt p = ilocal ? ilocal[i] : i;
          if (p >= g.pStart && p < g.pEnd && g.node[p - g.pStart] >= 0) owned[g.node[p - g.pStart]] = PETSC_FALSE;
        }
      as->ordwindow = DMASM_ORDER_WINDOW;
      PetscCall(OrderWindows(&g, owned, as->ordwindow, order));
    }
    for (PetscInt i = 0; i < g.n; i++) pperm[k++] = g.pt[order[i]];
    for (PetscInt p = g.pStart; p < g.pEnd; p++)
      if (g.node[p - g.pStart] < 0) pperm[k++] = p;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, np, pperm, PETSC_COPY_VALUES, &perm));
    PetscCall(ISSetPermutation(perm));
    PetscCall(PetscFree3(order, pperm, owned));
  }
  PetscCall(PetscTime(&t[3]));
  PetscCall(SectionPermuted(s, perm, &ns));
  PetscCall(ISDestroy(&perm));
  PetscCall(DMSetLocalSection(dm, ns)); /* drops nothing that exists: the global section, vectors and matrices do not yet */
  PetscCall(SpanStats(ns, &g, &st[2], &st[3]));
  PetscCall(PetscSectionDestroy(&ns));
  PetscCall(PointGraphDestroy(&g));
  PetscCall(PetscTime(&t[4]));
  PetscCall(PetscInfo(as, "Locality ordering set-up (seconds): local section %.3f, point graph %.3f (%" PetscInt_FMT " points with dofs), ordering %.3f, new section and statistics %.3f\n", t[1] - t[0], t[2] - t[1], g.n, t[3] - t[2], t[4] - t[3]));
  PetscCallMPI(MPIU_Allreduce(st, as->ordstat, 4, MPIU_REAL, MPIU_MAX, comm));
  as->ordering = type;
  PetscCall(PetscInfo(as, "Locality ordering %s of the DM's dofs%s: the numbering spans %.0f -> %.0f columns per %d rows (median), bandwidth %.0f -> %.0f%s\n", DMAssemblyOrderings[type], type == DMASSEMBLY_ORDERING_ELLWARP ? " (rcm, then windows of 256 rows longest first)" : "", (double)as->ordstat[0], (double)as->ordstat[2], DMASM_ORDER_GROUP, (double)as->ordstat[1], (double)as->ordstat[3], size > 1 ? " (local rows, largest over the ranks)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetLocalityOrdering - Renumbers the dofs of the assembler's `DM` once, now, in a locality order, so that
  the solver's vectors and the matrix rows are in the order the SpMV kernel wants and no permutation runs per product

  Collective

  Input Parameters:
+ as   - the assembler, not set up
- type - `DMASSEMBLY_ORDERING_NONE` (the DM's own numbering), `DMASSEMBLY_ORDERING_RCM` (reverse Cuthill-McKee of the
         coupling of the points carrying dofs), or `DMASSEMBLY_ORDERING_ELLWARP` (RCM, then each window of 256 rows
         sorted longest row first: the row order of the `MATELLWARP` layout, the ELL-WARP paper's Kr/Krs variants)

  Options Database Key:
. -dm_assembly_ordering <none,rcm,ellwarp> - the same, applied by `DMAssemblySetFromOptions()`

  Level: intermediate

  Notes:
  The DM's local section gets a point permutation (`PetscSectionSetPermutation()`): the mesh points keep their numbers
  (labels, per-cell data, closures stay valid); the dofs' storage order changes, and with it every global and local
  vector, `DMCreateMatrix()`, the assembler's element map and pattern.  On several processes each rank orders its local
  part (its owned rows stay a contiguous range, numbered in that order).  Any scalar or vector Lagrange field the
  assembler takes (P1-P5, Q1, vector P1/Q1) works: a point's dofs stay together.

  Call it right after `DMAssemblyCreate()` (or give the option to `DMAssemblySetFromOptions()`), before the `DM`'s global
  section exists, i.e. before any global vector or matrix of the `DM` (`DMCreateGlobalVector()`, `DMCreateMatrix()`,
  `DMGetGlobalSection()`): later it is an error, since the existing vectors keep the old numbering.  Local vectors made
  before (`DMCreateLocalVector()`) keep it too: make none before.  A `DM` with a global-to-natural SF
  (`DMSetUseNatural()` before distribution) is refused (the SF describes the old numbering); map by points instead
  (`DMGetGlobalSection()` offsets).

  -info prints, and `DMAssemblyView()` shows, the median column span of 32 consecutive rows (an ELLWARP slice's x
  footprint) and the bandwidth before and after.

.seealso: `DMAssembly`, `DMAssemblyGetLocalityOrdering()`, `DMAssemblySetFromOptions()`, `PetscSectionSetPermutation()`, `MatGetOrdering()`
@*/
PetscErrorCode DMAssemblySetLocalityOrdering(DMAssembly as, DMAssemblyOrdering type)
{
  PetscSF nat;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(as, type, 2);
  PetscCheck(type >= DMASSEMBLY_ORDERING_NONE && type <= DMASSEMBLY_ORDERING_ELLWARP, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblySetLocalityOrdering: unknown ordering %d", (int)type);
  if (type == as->ordering) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!as->setupcalled, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssemblySetLocalityOrdering (-dm_assembly_ordering %s) after DMAssemblySetUp(): the assembler's element map has the DM's numbering; set the ordering right after DMAssemblyCreate()", DMAssemblyOrderings[type]);
  PetscCheck(!as->dm->globalSection, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssemblySetLocalityOrdering (-dm_assembly_ordering %s): too late, the DM already has its global section (made by DMCreateGlobalVector(), DMCreateMatrix(), DMGetGlobalSection() or DMSetGlobalSection()), and the vectors and matrices made from it keep its numbering; set the ordering right after DMAssemblyCreate(), before any vector or matrix of the DM", DMAssemblyOrderings[type]);
  PetscCall(DMGetNaturalSF(as->dm, &nat));
  PetscCheck(!nat, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssemblySetLocalityOrdering (-dm_assembly_ordering %s): the DM has a global-to-natural SF (DMSetUseNatural()) built for its current numbering; renumbering would make it wrong", DMAssemblyOrderings[type]);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Ordering, as, 0, 0, 0));
  PetscCall(ApplyOrdering(as, type));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Ordering, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyGetLocalityOrdering - Gets the locality ordering the assembler gave its `DM`

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameter:
. type - the ordering (`DMASSEMBLY_ORDERING_NONE`: the DM's own numbering)

  Level: intermediate

.seealso: `DMAssembly`, `DMAssemblySetLocalityOrdering()`
@*/
PetscErrorCode DMAssemblyGetLocalityOrdering(DMAssembly as, DMAssemblyOrdering *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(type, 2);
  *type = as->ordering;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmOrderingView(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (as->ordering == DMASSEMBLY_ORDERING_NONE) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "dof ordering: the DM's own (-dm_assembly_ordering rcm|ellwarp: a locality numbering)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "dof ordering: %s%s, given to the DM's local section once (mesh points unchanged); columns spanned per %d rows (median) %.0f -> %.0f, bandwidth %.0f -> %.0f%s\n", DMAssemblyOrderings[as->ordering], as->ordering == DMASSEMBLY_ORDERING_ELLWARP ? " (rcm, windows of 256 rows longest first: MATELLWARP's row order when its layout keeps the 256-row sort window)" : " (reverse Cuthill-McKee of the coupled points)", DMASM_ORDER_GROUP, (double)as->ordstat[0], (double)as->ordstat[2], (double)as->ordstat[1], (double)as->ordstat[3], as->mpi ? " (local rows, largest over the ranks)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}
