/* DMAssembly on a distributed DMPlex (more than one MPI process).

   The DM must be distributed with overlap >= 1 (DMPlexDistribute(dm, 1, ...)): each rank then holds every
   cell touching a vertex it owns.  Each rank assembles ONLY its owned rows -- Jacobian: the owned rows'
   nonzeros, in the diagonal block and in the (compacted) off-diagonal block of the MPI matrix; residual: the
   owned dofs -- from all its local cells, computing the cells of the ghost layer redundantly.  So assembly
   itself needs no communication at all, and each target is summed by one thread in element order exactly as
   on one process (fixed order, bitwise reproducible run to run for a given partition).  The nodal inputs
   (state and auxiliary vector) come through DMGlobalToLocal (ghost values).

   Nodes are the dofs of the local (ghosted) vector: edof holds local-vector offsets (the gather reads the
   local vector), l2row maps a node to its owned row (-1 for a ghost: its entries go nowhere), l2g to its
   global number (the columns).  The pattern (pi, pj, e2nz) has the owned rows only, global columns; at the
   first Jacobian into an MPI matrix each pattern nonzero is mapped to its block (diagonal: column - cstart;
   off-diagonal: through garray) and to its position in that block's value array (CSR, or ELLWARP slot),
   and two packed plans are built: jac (diagonal block) and jacB (off-diagonal block).  Both are the
   one-process plan format: the same reductions (host and CUDA) run on them unchanged.

   Targets: any matrix with MatGetAssemblyTarget() (both blocks: MATMPIAIJ host CSR, MATMPIELLWARP slot values
   on the host or the device, MATMPIAIJCUSPARSE device CSR), any other through MatSetValuesCOO().  Methods: globalnz, host and atomic with
   element buffers (and sharednz with user kernels, which runs globalnz as on one process); the fused
   methods (sharednz and localrow with the built-in kernels, fused atomic) and color give a clear error for
   now. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petsc/private/hashmapi.h>
#include <petscellwarp.h>
#include <petscdmplex.h>
#include <petscfe.h>

/* a distributed DM: scalar P1 simplices only (the element map below is the P1 one) */
static PetscErrorCode CheckDiscretization(DM dm, PetscInt *dim)
{
  PetscInt nc, nb;

  PetscFunctionBegin;
  PetscCall(DMAsmCheckScalarFE(dm, dim, &nc, &nb));
  PetscCall(DMAsmCheckP1(dm, *dim, nc, nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods that run on a distributed DM (their mpisupported): the packed reduction (globalnz, host) and the
   unfused atomic scatter, all through the element buffers */
static PetscErrorCode CheckMethod(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCheck(as->ops->mpisupported && as->ops->mpisupported(as), PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly: on more than one MPI process the methods are globalnz, host and atomic (unfused: -dm_assembly_fuse 0 with the built-in kernels); %s%s is not available there yet", ((PetscObject)as)->type_name, as->ops->mpisupported ? " with these kernels and options" : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmBuildMeshMPI(DMAssembly as)
{
  DM                 dm = as->dm;
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscSection       gs, ls;
  PetscInt           dim, nen, cStart, cEnd, vStart, vEnd, nelem, nloc, nown, ov, scan;

  PetscFunctionBegin;
  PetscCall(CheckMethod(as));
  PetscCall(CheckDiscretization(dm, &dim));
  /* CheckDiscretization admits scalar P1 simplices only: the element kind the fused kernels and View need */
  as->p1    = PETSC_TRUE;
  as->nvert = dim + 1;
  PetscCall(PetscStrncpy(as->ename, dim == 3 ? "P1 tetrahedra" : "P1 triangles", sizeof(as->ename)));
  PetscCall(DMPlexGetOverlap(dm, &ov));
  PetscCheck(ov >= 1, comm, PETSC_ERR_ARG_WRONGSTATE, "DMAssembly on %s: the DM must be distributed with overlap >= 1 (DMPlexDistribute(dm, 1, ...)), so that every rank holds all cells around its own vertices; its overlap is %" PetscInt_FMT, "more than one MPI process", ov);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(PetscSectionGetStorageSize(ls, &nloc));
  PetscCall(PetscSectionGetConstrainedStorageSize(gs, &nown));
  PetscCallMPI(MPI_Scan(&nown, &scan, 1, MPIU_INT, MPI_SUM, comm));
  nen        = dim + 1;
  nelem      = cEnd - cStart;
  as->mpi    = PETSC_TRUE;
  as->nown   = nown;
  as->rstart = scan - nown;
  as->ndof   = nloc;
  as->nelem  = nelem;
  as->nen    = nen;
  as->dim    = dim;
  as->cStart = cStart;
  PetscCheck((PetscCount)nen * nen * nelem < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: %" PetscInt_FMT " elements: element entries exceed the PetscInt range; configure PETSc with 64-bit indices", nelem);
  /* nodes: local dof -> owned row / global row */
  PetscCall(PetscMalloc2(nloc, &as->l2row, nloc, &as->l2g));
  for (PetscInt i = 0; i < nloc; i++) as->l2row[i] = as->l2g[i] = -1;
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt ldof, lcdof, loff, goff;
    PetscCall(PetscSectionGetDof(ls, v, &ldof));
    PetscCall(PetscSectionGetConstraintDof(ls, v, &lcdof));
    PetscCheck(ldof == 1 && lcdof == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: vertex %" PetscInt_FMT " has %" PetscInt_FMT " dofs, %" PetscInt_FMT " constrained; essential conditions through the section are not supported (apply them with MatZeroRowsColumns)", v, ldof, lcdof);
    PetscCall(PetscSectionGetOffset(ls, v, &loff));
    PetscCall(PetscSectionGetOffset(gs, v, &goff));
    if (goff >= 0) {
      as->l2row[loff] = goff - as->rstart;
      as->l2g[loff]   = goff;
    } else as->l2g[loff] = -(goff + 1);
  }
  for (PetscInt i = 0; i < nloc; i++) PetscCheck(as->l2g[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: local dof %" PetscInt_FMT " is not on a vertex (P1 only)", i);
  /* elements: closure vertices, local (ghosted) offsets, coordinates */
  PetscCall(DMAsmP1ElementMap(as, ls, PETSC_FALSE, 0));
  /* the pattern of the owned rows (global columns); e2nz = -1 on the rows of ghost nodes */
  PetscCall(DMAsmBuildPattern(as, nown, as->l2row, as->l2g, as->rstart));
  PetscCall(PetscInfo(as, "Distributed DM: %" PetscInt_FMT " owned rows from %" PetscInt_FMT ", %" PetscInt_FMT " local dofs (with ghosts), %" PetscInt_FMT " local cells (overlap %" PetscInt_FMT ")\n", nown, as->rstart, nloc, nelem, ov));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the residual's plan: node a of element e adds into its owned row (ghost nodes: nowhere) */
PetscErrorCode DMAsmMPIBuildResidualPlan(DMAssembly as)
{
  const PetscCount nq = (PetscCount)as->nen * as->nelem;
  PetscInt        *q2t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nq, &q2t));
  for (PetscCount q = 0; q < nq; q++) q2t[q] = as->l2row[as->edof[q]];
  PetscCall(DMAsmBuildPlan(as, as->nen, as->nown, q2t, &as->res));
  PetscCall(PetscFree(q2t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* U (and the auxiliary vector) -> their ghosted local vectors, which the element map indexes */
static PetscErrorCode LocalVectorsMPI(DMAssembly as, Vec U)
{
  Vec g[2] = {U, as->aux}, *l[2] = {&as->uloc, &as->aloc};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    if (!g[i]) continue;
    { /* the ghosted copy lives where the global vector does (a device vector: VECSEQCUDA), whatever the DM's vec type */
      PetscBool gdev, ldev = PETSC_FALSE;
      PetscCall(PetscObjectTypeCompareAny((PetscObject)g[i], &gdev, VECMPICUDA, VECSEQCUDA, VECCUDA, ""));
      if (*l[i]) PetscCall(PetscObjectTypeCompareAny((PetscObject)*l[i], &ldev, VECSEQCUDA, VECCUDA, ""));
      if (*l[i] && ldev != gdev) PetscCall(VecDestroy(l[i]));
      if (!*l[i]) {
        as->locid[i] = -1; /* no object has this id: the first use exchanges */
        PetscCall(DMCreateLocalVector(as->dm, l[i]));
        PetscCall(PetscObjectTypeCompareAny((PetscObject)*l[i], &ldev, VECSEQCUDA, VECCUDA, ""));
        if (gdev && !ldev) PetscCall(VecSetType(*l[i], VECSEQCUDA));
        if (!gdev && ldev) PetscCall(VecSetType(*l[i], VECSEQ));
      }
    }
    { /* the residual and the Jacobian at the same U (SNES), or the same auxiliary vector all along a time step:
         the ghosted copy is current, no ghost exchange */
      PetscObjectId    id;
      PetscObjectState st;
      PetscCall(PetscObjectGetId((PetscObject)g[i], &id));
      PetscCall(PetscObjectStateGet((PetscObject)g[i], &st));
      if (id != as->locid[i] || st != as->locstate[i]) {
        PetscCall(DMGlobalToLocalBegin(as->dm, g[i], INSERT_VALUES, *l[i]));
        PetscCall(DMGlobalToLocalEnd(as->dm, g[i], INSERT_VALUES, *l[i]));
        as->locid[i]    = id;
        as->locstate[i] = st;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMPIComputeResidual(DMAssembly as, Vec U, Vec F)
{
  PetscScalar *f;
  PetscMemType mt;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(F, &n));
  PetscCheck(n == as->nown, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "DMAssembly: F has %" PetscInt_FMT " local entries, this rank owns %" PetscInt_FMT " dofs; use a global vector of the DM", n, as->nown);
  PetscCall(LocalVectorsMPI(as, U));
  PetscCall(DMAsmElements(as, as->uloc, as->aux ? as->aloc : NULL, PETSC_FALSE));
  if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(VecGetArrayWrite(F, &f));
  else {
    PetscCall(VecGetArrayWriteAndMemType(F, &f, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONG, "DMAssembly: the method runs on the device but F is a host vector (%s); use -dm_vec_type cuda", ((PetscObject)F)->type_name);
  }
  PetscCall(DMAsmReducePlan(as, &as->res, as->nen, as->fe, f));
  if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(VecRestoreArrayWrite(F, &f));
  else PetscCall(VecRestoreArrayWriteAndMemType(F, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* position of every owned-pattern nonzero in block b's value array (-1: the nonzero is in the other block);
   block 0 is the diagonal block (column - cstart), block 1 the off-diagonal block (global column -> garray) */
static PetscErrorCode MapBlock(DMAssembly as, Mat J, const MatAssemblyTarget *T, PetscInt b, PetscInt *nz2t)
{
  const MatAssemblyBlock *X = &T->block[b];
  const PetscInt          cstart = T->cstart, cend = T->cend, n = X->m;
  const PetscInt         *ia = X->i, *ja = X->j;
  const PetscBool         diag = (PetscBool)(b == 0);
  PetscHMapI              g2l  = NULL;

  PetscFunctionBegin;
  PetscCheck(n == as->nown, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_SIZ, "DMAssembly: the matrix has %" PetscInt_FMT " local rows, this rank owns %" PetscInt_FMT " dofs", n, as->nown);
  if (!diag) {
    PetscCall(PetscHMapICreateWithSize(X->n, &g2l));
    for (PetscInt j = 0; j < X->n; j++) PetscCall(PetscHMapISet(g2l, T->garray[j], j));
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = as->pi[i]; k < as->pi[i + 1]; k++) {
      const PetscInt c = as->pj[k];
      PetscInt       col = -1, loc;

      nz2t[k] = -1;
      if (diag && c >= cstart && c < cend) col = c - cstart;
      else if (!diag && (c < cstart || c >= cend)) {
        PetscCall(PetscHMapIGetWithDefault(g2l, c, -1, &col));
        PetscCheck(col >= 0, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern (column not in the off-diagonal block); create it with DMCreateMatrix()", as->rstart + i, c);
      }
      if (col < 0) continue;
      PetscCall(PetscFindInt(col, ia[i + 1] - ia[i], ja + ia[i], &loc));
      PetscCheck(loc >= 0, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern; create it with DMCreateMatrix()", as->rstart + i, c);
      nz2t[k] = X->csr2val ? X->csr2val[ia[i] + loc] : ia[i] + loc;
    }
  PetscCall(PetscHMapIDestroy(&g2l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two block plans for J, built at the first assembly into a given matrix and kept while its assembly-target
   state (MatGetAssemblyTarget: both blocks' maps and the off-diagonal columns) stays the same */
static PetscErrorCode EnsurePlansMPI(DMAssembly as, Mat J, const MatAssemblyTarget *T)
{
  PetscObjectId    id;
  const PetscCount nq = (PetscCount)as->nen * as->nen * as->nelem;
  PetscInt        *nz2t, *q2t;
  DMAsmPlan       *P[2] = {&as->jac, &as->jacB};

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)J, &id));
  if (as->jac.blkptr && as->jacB.blkptr && as->jac.id == id && as->jac.state == T->state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Plan, as, J, 0, 0));
  PetscCall(PetscMalloc2(as->nnz, &nz2t, nq, &q2t));
  for (PetscInt b = 0; b < 2; b++) {
    PetscCall(MapBlock(as, J, T, b, nz2t));
    for (PetscCount q = 0; q < nq; q++) q2t[q] = as->e2nz[q] >= 0 ? nz2t[as->e2nz[q]] : -1;
    PetscCall(DMAsmBuildPlan(as, as->nen * as->nen, T->block[b].nval, q2t, P[b]));
    if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmPlanUpload(P[b]));
    P[b]->id    = id;
    P[b]->state = T->state;
    P[b]->slots = (PetscBool)(T->block[b].csr2val != NULL);
  }
  PetscCall(PetscFree2(nz2t, q2t));
  as->njacplans++;
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Plan, as, J, 0, 0));
  PetscCall(PetscInfo(as, "Jacobian plan %" PetscInt_FMT " for %s (target state %" PetscInt64_FMT "): %" PetscCount_FMT " diagonal-block and %" PetscCount_FMT " off-diagonal-block targets\n", as->njacplans, ((PetscObject)J)->type_name, (PetscInt64)T->state, T->block[0].nval, T->block[1].nval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMPIComputeJacobian(DMAssembly as, Vec U, Mat J)
{
  MatAssemblyTarget T;
  PetscBool         has;

  PetscFunctionBegin;
  PetscCall(MatHasAssemblyTarget(J, &has));
  if (has) {
    PetscCall(MatGetAssemblyTarget(J, as->mtype, &T));
    PetscCheck(T.nblocks == 2, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_INCOMP, "DMAssembly: a distributed DM needs a parallel matrix, got %s", ((PetscObject)J)->type_name);
    PetscCall(EnsurePlansMPI(as, J, &T));
  }
  if (as->jacstate) PetscCall(LocalVectorsMPI(as, U));
  PetscCall(DMAsmElements(as, as->uloc, as->aux ? as->aloc : NULL, PETSC_TRUE));
  if (has) {
    PetscCall(DMAsmReducePlan(as, &as->jac, as->nen * as->nen, as->ke, T.block[0].val));
    PetscCall(DMAsmReducePlan(as, &as->jacB, as->nen * as->nen, as->ke, T.block[1].val));
    PetscCall(MatRestoreAssemblyTarget(J, &T)); /* J's state increases: KSP/PC see a new operator */
  } else PetscCall(DMAsmJacobianCOO(as, J)); /* element matrices through MatSetValuesCOO (owned rows only) */
  as->nreductions++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMPIView(DMAssembly as, PetscViewer viewer)
{
  PetscMPIInt size;
  PetscInt    loc[3], mx[3], sum[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)as), &size));
  loc[0] = as->nown;
  loc[1] = as->nelem;
  loc[2] = as->ndof - as->nown;
  PetscCallMPI(MPIU_Allreduce(loc, mx, 3, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)as)));
  PetscCallMPI(MPIU_Allreduce(loc, sum, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)as)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "distributed over %d processes: each assembles its owned rows only from its local cells (overlap: ghost-layer cells computed redundantly, no communication in assembly); owned rows %" PetscInt_FMT " in all (at most %" PetscInt_FMT " per rank), local cells %" PetscInt_FMT " in all (at most %" PetscInt_FMT "), ghost dofs %" PetscInt_FMT " in all; sizes below are rank 0's\n", size, sum[0], mx[0], sum[1], mx[1], sum[2]));
  if (as->jacB.blkptr) PetscCall(PetscViewerASCIIPrintf(viewer, "off-diagonal block plan (rank 0): %" PetscCount_FMT " targets, %" PetscInt_FMT " blocks\n", as->jacB.ntarget, as->jacB.nblocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMPIDestroy(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(as->l2row, as->l2g));
  PetscCall(DMAsmPlanDestroy(&as->jacB));
  PetscCall(VecDestroy(&as->uloc));
  PetscCall(VecDestroy(&as->aloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
