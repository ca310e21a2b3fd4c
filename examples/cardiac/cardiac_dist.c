/* The cardiac example on several MPI processes: distribution of the mesh and of the per-element data, and
   the gathers of the output to rank 0.

   The mesh (CardiacMesh, from cardiac_mesh.c) is made into a DMPlex on rank 0 alone (the other ranks pass
   no cells) and distributed with overlap 1 (DMPlexDistribute), which DMAssembly needs: each rank then holds
   every cell touching a vertex it owns, and assembles its owned rows with no communication.  The
   per-element data (fibres, stimulus weights; whatever their source) follow the cells through the
   distribution's migration SF (PetscSFBcast from rank 0's arrays, indexed by the original point).  Vertex
   fields (potential, activation times) and cell fields (r) are gathered to rank 0 in the original
   numbering for the VTU/PNG writers, the summary and -act_view, so that the output of a run on N
   processes has the layout of the one-process run.

   Partition (PETSc here has no ParMETIS): by default recursive coordinate bisection of the cell centroids
   (compact parts, so a thin ghost layer); -cardiac_partition range: equal ranges of the cells sorted by
   their lowest vertex; -petscpartitioner_type <type>: a PETSc partitioner. */
#include "cardiac.h"
#include <petscsf.h>

/* recursive coordinate bisection of cells idx[0..n) (centroids c[3*cell]) into nparts parts: the longest
   axis of the bounding box, split at the part-count-proportional quantile; part p's cells end up contiguous */
static PetscErrorCode Bisect(const PetscReal *c, PetscInt *idx, PetscReal *key, PetscInt n, PetscInt nparts, PetscInt *sizes)
{
  PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL};
  PetscInt  ax = 0, p1 = nparts / 2, n1;

  PetscFunctionBegin;
  if (nparts == 1) {
    sizes[0] = n;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < n; i++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], c[3 * idx[i] + d]);
      hi[d] = PetscMax(hi[d], c[3 * idx[i] + d]);
    }
  for (int d = 1; d < 3; d++)
    if (hi[d] - lo[d] > hi[ax] - lo[ax]) ax = d;
  for (PetscInt i = 0; i < n; i++) key[i] = c[3 * idx[i] + ax] + 1e-12 * (hi[ax] - lo[ax]) * ((PetscReal)idx[i] / (PetscReal)PETSC_INT_MAX); /* ties by cell number: a deterministic order */
  PetscCall(PetscSortRealWithArrayInt(n, key, idx));
  n1 = (PetscInt)(((PetscInt64)n * p1) / nparts);
  PetscCall(Bisect(c, idx, key, n1, p1, sizes));
  PetscCall(Bisect(c, idx + n1, key, n - n1, nparts - p1, sizes + p1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0: the cells' partition (a shell partition; the other ranks have no cells).  -cardiac_partition rcb
   (default): recursive coordinate bisection of the centroids, compact parts; range: equal contiguous ranges
   of the cells sorted by their lowest vertex number (RCM: slabs of level sets; -sfc: Hilbert clusters).
   -petscpartitioner_type <type>: a PETSc partitioner instead. */
static PetscErrorCode SetPartition(DM dm, const CardiacMesh *cm, PetscMPIInt rank, PetscMPIInt size)
{
  PetscPartitioner part;
  PetscBool        given, rcb;
  PetscInt        *sizes, *points = NULL;
  char             type[16] = "rcb";

  PetscFunctionBegin;
  PetscCall(DMPlexGetPartitioner(dm, &part));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-petscpartitioner_type", &given));
  if (given) {
    PetscCall(PetscPartitionerSetFromOptions(part));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cardiac_partition", type, sizeof(type), NULL));
  PetscCall(PetscStrcmp(type, "rcb", &rcb));
  if (!rcb) {
    PetscBool range;
    PetscCall(PetscStrcmp(type, "range", &range));
    PetscCheck(range, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-cardiac_partition rcb|range, got %s", type);
  }
  PetscCall(PetscCalloc1(size, &sizes));
  if (rank == 0) {
    const PetscInt nt = cm->m.nt;
    PetscCall(PetscMalloc1(nt, &points));
    if (rcb) {
      PetscReal *c, *key;
      PetscCall(PetscMalloc2(3 * (size_t)nt, &c, nt, &key));
      for (PetscInt t = 0; t < nt; t++) {
        for (int d = 0; d < 3; d++) c[3 * t + d] = 0;
        for (int a = 0; a < 4; a++)
          for (int d = 0; d < 3; d++) c[3 * t + d] += 0.25 * cm->m.xyz[3 * cm->m.tet[4 * t + a] + d];
        points[t] = t; /* cell t of the DM is tet t */
      }
      PetscCall(Bisect(c, points, key, nt, size, sizes));
      PetscCall(PetscFree2(c, key));
    } else {
      PetscInt64 *key;
      PetscCall(PetscMalloc1(nt, &key));
      for (PetscInt t = 0; t < nt; t++) {
        PetscInt m = cm->m.tet[4 * t];
        for (int a = 1; a < 4; a++) m = PetscMin(m, cm->m.tet[4 * t + a]);
        key[t] = (PetscInt64)m * nt + t;
      }
      PetscCall(PetscSortInt64(nt, key));
      for (PetscInt t = 0; t < nt; t++) points[t] = (PetscInt)(key[t] % nt);
      for (PetscMPIInt r = 0; r < size; r++) sizes[r] = nt / size + (r < nt % size ? 1 : 0);
      PetscCall(PetscFree(key));
    }
  }
  PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERSHELL));
  PetscCall(PetscPartitionerShellSetPartition(part, size, sizes, points));
  PetscCall(PetscFree(sizes));
  PetscCall(PetscFree(points));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacDistCreate(const CardiacMesh *cm, DM *dm, CardiacDist *cd)
{
  MPI_Comm     comm = PETSC_COMM_WORLD;
  PetscMPIInt  rank, size;
  CardiacMesh  cm0 = *cm;
  DM           dm0;
  PetscSF      mig;
  PetscInt     start0[3] = {0, 0, 0}, pEnd, cStart, cEnd, vStart, vEnd, *orig, nroots, nleaves;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  PetscReal   *root = NULL, *leaf;
  MPI_Datatype unit;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(cd, sizeof(*cd)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (rank) cm0.m.nt = cm0.m.nv = 0; /* the whole mesh starts on rank 0 */
  PetscCall(CardiacMeshToDMPlex(&cm0, &dm0));
  PetscCall(SetPartition(dm0, cm, rank, size));
  if (rank == 0) {
    PetscCall(DMPlexGetHeightStratum(dm0, 0, &start0[0], NULL));
    PetscCall(DMPlexGetDepthStratum(dm0, 0, &start0[1], NULL));
    PetscCall(DMPlexGetChart(dm0, NULL, &start0[2]));
  }
  PetscCallMPI(MPI_Bcast(start0, 3, MPIU_INT, 0, comm));
  /* per original point: fibre (3) and stimulus weight, on rank 0 */
  if (rank == 0) {
    const PetscInt nt = cm->m.nt;
    PetscCall(PetscCalloc1(4 * (size_t)start0[2], &root));
    for (PetscInt t = 0; t < nt; t++) {
      for (int d = 0; d < 3; d++) root[4 * (start0[0] + t) + d] = cm->fib[(size_t)d * nt + t];
      root[4 * (start0[0] + t) + 3] = cm->stim[t];
    }
  }
  PetscCall(DMPlexDistribute(dm0, 1, &mig, dm));
  PetscCheck(*dm, comm, PETSC_ERR_PLIB, "cardiac: DMPlexDistribute made no distributed mesh");
  PetscCall(PetscObjectSetName((PetscObject)*dm, "heart"));
  PetscCall(DMPlexDistributeSetDefault(*dm, PETSC_FALSE)); /* DMSetFromOptions() must not redistribute it (overlap 0, cell data lost) */
  PetscCall(DMDestroy(&dm0));
  PetscCall(DMPlexGetChart(*dm, NULL, &pEnd));
  PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(*dm, 0, &vStart, &vEnd));
  /* migrate the cell data and the original point numbers along the migration SF */
  PetscCall(PetscMalloc1(4 * (size_t)pEnd, &leaf));
  PetscCallMPI(MPI_Type_contiguous(4, MPIU_REAL, &unit));
  PetscCallMPI(MPI_Type_commit(&unit));
  PetscCall(PetscSFBcastBegin(mig, unit, root, leaf, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(mig, unit, root, leaf, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&unit));
  PetscCall(PetscSFGetGraph(mig, &nroots, &nleaves, &ilocal, &iremote));
  PetscCall(PetscMalloc1(pEnd, &orig));
  for (PetscInt p = 0; p < pEnd; p++) orig[p] = -1;
  for (PetscInt i = 0; i < nleaves; i++) {
    PetscCheck(iremote[i].rank == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac: migration SF root off rank 0");
    orig[ilocal ? ilocal[i] : i] = iremote[i].index;
  }
  cd->nelem = cEnd - cStart;
  PetscCall(PetscMalloc1(3 * (size_t)cd->nelem + 1, &cd->fib));
  PetscCall(PetscMalloc1((size_t)cd->nelem + 1, &cd->stim));
  for (PetscInt e = 0; e < cd->nelem; e++) {
    PetscCheck(orig[cStart + e] >= start0[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac: cell %" PetscInt_FMT " has no original cell", cStart + e);
    for (int d = 0; d < 3; d++) cd->fib[(size_t)d * cd->nelem + e] = leaf[4 * (cStart + e) + d];
    cd->stim[e] = leaf[4 * (cStart + e) + 3];
  }
  PetscCall(PetscFree(leaf));
  PetscCall(PetscFree(root));
  PetscCall(PetscSFDestroy(&mig));
  { /* gather of the cells: owned cells -> original cell on rank 0 (the vertices' once the DM has its field) */
    PetscSF         psf;
    PetscInt        n = 0, nl;
    const PetscInt *pl;
    PetscInt       *loc;
    PetscSFNode    *rem;
    PetscBool      *ghost;

    cd->nv = rank ? 0 : cm->m.nv;
    cd->nt = rank ? 0 : cm->m.nt;
    PetscCall(PetscMalloc1(vEnd - vStart + 1, &cd->vorig));
    for (PetscInt v = vStart; v < vEnd; v++) cd->vorig[v - vStart] = orig[v] - start0[1];
    PetscCall(PetscMalloc2(cEnd - cStart + 1, &loc, cEnd - cStart + 1, &rem));
    PetscCall(DMGetPointSF(*dm, &psf));
    PetscCall(PetscSFGetGraph(psf, NULL, &nl, &pl, NULL));
    PetscCall(PetscCalloc1(pEnd, &ghost));
    for (PetscInt i = 0; i < nl; i++) ghost[pl ? pl[i] : i] = PETSC_TRUE;
    n = 0;
    for (PetscInt c = cStart; c < cEnd; c++) {
      if (ghost[c]) continue;
      loc[n]         = c - cStart;
      rem[n].rank    = 0;
      rem[n++].index = orig[c] - start0[0];
    }
    cd->nownedcells = n;
    PetscCall(PetscSFCreate(comm, &cd->csf));
    PetscCall(PetscSFSetGraph(cd->csf, cd->nt, n, loc, PETSC_COPY_VALUES, rem, PETSC_COPY_VALUES));
    PetscCall(PetscFree(ghost));
    PetscCall(PetscFree2(loc, rem));
  }
  PetscCall(PetscFree(orig));
  {
    PetscInt loc[3] = {cd->nelem, cd->nownedcells, vEnd - vStart}, mx[3], mn[3];
    PetscCallMPI(MPIU_Allreduce(loc, mx, 3, MPIU_INT, MPI_MAX, comm));
    PetscCallMPI(MPIU_Allreduce(loc, mn, 3, MPIU_INT, MPI_MIN, comm));
    PetscCall(PetscPrintf(comm, "cardiac: distributed over %d processes (overlap 1): owned cells %" PetscInt_FMT " .. %" PetscInt_FMT ", local cells with the ghost layer %" PetscInt_FMT " .. %" PetscInt_FMT ", local vertices %" PetscInt_FMT " .. %" PetscInt_FMT " per rank\n", size, mn[1], mx[1], mn[0], mx[0], mn[2], mx[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after the DM has its P1 field: owned dofs -> original vertex on rank 0 */
PetscErrorCode CardiacDistSetUpVertices(CardiacDist *cd, DM dm)
{
  PetscSection gs;
  PetscInt     n, rs, scan, vStart, vEnd, *loc;
  PetscSFNode *rem;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(PetscSectionGetConstrainedStorageSize(gs, &n));
  PetscCallMPI(MPI_Scan(&n, &scan, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  rs = scan - n;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscMalloc2(vEnd - vStart + 1, &loc, vEnd - vStart + 1, &rem));
  n = 0;
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt goff, dof;
    PetscCall(PetscSectionGetDof(gs, v, &dof));
    PetscCall(PetscSectionGetOffset(gs, v, &goff));
    PetscCheck(dof == 1 || dof == -2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac: vertex %" PetscInt_FMT " has %" PetscInt_FMT " global dofs (set the P1 field first)", v, dof);
    if (goff < 0) continue;
    loc[n]         = goff - rs;
    rem[n].rank    = 0;
    rem[n++].index = cd->vorig[v - vStart];
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)dm), &cd->vsf));
  PetscCall(PetscSFSetGraph(cd->vsf, cd->nv, n, loc, PETSC_COPY_VALUES, rem, PETSC_COPY_VALUES));
  PetscCall(PetscFree2(loc, rem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v (a global vector of the DM) -> nat[original vertex] on rank 0 */
PetscErrorCode CardiacDistGatherVertices(CardiacDist *cd, Vec v, PetscScalar *nat)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(PetscSFReduceBegin(cd->vsf, MPIU_SCALAR, a, nat, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(cd->vsf, MPIU_SCALAR, a, nat, MPI_REPLACE));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a per-local-cell array -> nat[original cell] on rank 0 (each cell from its owner) */
PetscErrorCode CardiacDistGatherCells(CardiacDist *cd, const PetscReal *loc, PetscReal *nat)
{
  PetscFunctionBegin;
  PetscCall(PetscSFReduceBegin(cd->csf, MPIU_REAL, loc, nat, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(cd->csf, MPIU_REAL, loc, nat, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacDistDestroy(CardiacDist *cd)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&cd->vsf));
  PetscCall(PetscSFDestroy(&cd->csf));
  PetscCall(PetscFree(cd->fib));
  PetscCall(PetscFree(cd->stim));
  PetscCall(PetscFree(cd->vorig));
  PetscFunctionReturn(PETSC_SUCCESS);
}
