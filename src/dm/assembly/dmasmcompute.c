/* Assembly: gather -> element callback -> reduction, into a residual vector or a Jacobian's value array in
   its own storage order (ELLWARP slots, or CSR for AIJ/AIJCUSPARSE). */
#include <petscellwarp/private/dmassemblyimpl.h>
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscellwarp/private/ellwarpdevice.h>
#endif

/* J's value array through the Mat-level contract (MatGetAssemblyTarget: ELLWARP slots, CSR for AIJ and
   AIJCUSPARSE), in the memory where the method runs; a matrix without it goes through MatSetValuesCOO */
static PetscErrorCode GetTarget(DMAssembly as, Mat J, MatAssemblyTarget *T)
{
  PetscFunctionBegin;
  PetscCall(MatGetAssemblyTarget(J, as->mtype, T));
  PetscCheck(T->nblocks == 1, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_INCOMP, "DMAssembly: a sequential DM needs a sequential matrix, got %s", ((PetscObject)J)->type_name);
  PetscCheck(T->block[0].mtype == as->mtype, PetscObjectComm((PetscObject)J), PETSC_ERR_PLIB, "DMAssembly: the %s target gave its values in the wrong memory", ((PetscObject)J)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}


#if defined(ELLWARP_HAVE_CUDA)
  #define PHASE(as) \
    do { \
      if ((as)->timephases && (as)->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmCUDAPhaseRecord(as)); \
    } while (0)
#else
  #define PHASE(as) (void)0
#endif

/* The Jacobian plan for J: each element entry's target position in J's value array.  Built at the first
   assembly into a given matrix, kept while the matrix's assembly-target state (MatGetAssemblyTarget: it
   changes whenever the map from CSR entries to value slots can change) stays the same. */
static PetscErrorCode EnsureJacobianPlan(DMAssembly as, Mat J, const MatAssemblyTarget *T)
{
  DMAsmPlan              *P = &as->jac;
  const MatAssemblyBlock *B = &T->block[0];
  PetscObjectId           id;
  PetscInt                n = B->m, *nz2t, *q2t;
  const PetscInt         *ia = B->i, *ja = B->j;
  const PetscCount        nq = (PetscCount)as->nen * as->nen * as->nelem;
  const PetscInt         *e2nz;
  PetscBool               done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)J, &id));
  if ((as->ops->hasjacplan ? as->ops->hasjacplan(as) : (PetscBool)(P->blkptr != NULL)) && P->id == id && P->state == T->state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Plan, as, J, 0, 0));
  PetscCheck(n == as->ndof, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_SIZ, "DMAssembly: the matrix has %" PetscInt_FMT " rows, the DM %" PetscInt_FMT " dofs", n, as->ndof);
  if (as->ops->jacplanrows) PetscCall((*as->ops->jacplanrows)(as, B, &done)); /* from the target's rows: no element-entry map */
  if (!done && DMAsmSetUpOnDevice(as) && as->ops->jacplandevice) { /* the element targets on the device, and the type's plan from them */
#if defined(ELLWARP_HAVE_CUDA)
    PetscInt *dq2t;
    PetscCall(DMAsmEntryMap(as, &e2nz));
    PetscCall(DMAsmCUDAElementTargets(n, nq, as->pi, as->pj, e2nz, B, &dq2t));
    PetscCall((*as->ops->jacplandevice)(as, B, dq2t));
    PetscCall(DMAsmCUDAFree((void **)&dq2t));
#endif
  } else if (!done) {
    PetscCall(PetscMalloc1(as->nnz, &nz2t));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = as->pi[i]; k < as->pi[i + 1]; k++) {
        PetscInt loc;
        PetscCall(PetscFindInt(as->pj[k], ia[i + 1] - ia[i], ja + ia[i], &loc));
        PetscCheck(loc >= 0, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern; create it with DMCreateMatrix()", i, as->pj[k]);
        nz2t[k] = B->csr2val ? B->csr2val[ia[i] + loc] : ia[i] + loc;
      }
    PetscCall(DMAsmEntryMap(as, &e2nz));
    PetscCall(PetscMalloc1(nq, &q2t));
    for (PetscCount q = 0; q < nq; q++) q2t[q] = nz2t[e2nz[q]];
    PetscCall(PetscFree(nz2t));
    PetscUseTypeMethod(as, jacplan, B, q2t);
    PetscCall(PetscFree(q2t));
  }
  P->id    = id;
  P->state = T->state;
  P->slots = (PetscBool)(B->csr2val != NULL);
  as->njacplans++;
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Plan, as, J, 0, 0));
  PetscCall(PetscInfo(as, "Jacobian plan %" PetscInt_FMT " for %s (target state %" PetscInt64_FMT "): %" PetscCount_FMT " targets\n", as->njacplans, ((PetscObject)J)->type_name, (PetscInt64)T->state, B->nval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The types' Jacobian plans (ops->jacplan) from q2t (element entry -> position in the value array of block B).
   globalnz, host, localnz, and the types whose own plan does not apply: the packed reduction plan */
PetscErrorCode DMAsmJacPlanPacked(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  PetscFunctionBegin;
  PetscCall(DMAsmBuildPlan(as, as->nen * as->nen, B->nval, q2t, &as->jac));
  if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmPlanUpload(&as->jac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same plan built on the device from a device q2t (dmasmsetupcuda.cu; the host builder is its reference) */
PetscErrorCode DMAsmJacPlanPackedDevice(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *dq2t)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDABuildPlan(as->nen * as->nen, as->nelem, B->nval, dq2t, as->nzpt, as->force64, &as->jac));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a working buffer of n scalars in the execution memory, made at its first use (*buf NULL) and kept */
static PetscErrorCode ExecutionBuffer(DMAssembly as, PetscCount n, PetscScalar **buf)
{
  PetscFunctionBegin;
  if (*buf) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmCUDAMalloc((void **)buf, sizeof(PetscScalar) * n));
  else
#endif
    PetscCall(PetscMalloc1(n, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element matrices ke ([nen^2][nelem], 576 values an element of a Q1^3 hexahedron), made at their first use: a
   method whose kernels compute and store the element inside (kiran, the fused scatters without a tail) never holds
   them -- on the 21 M-dof cantilever 32 GB */
PetscErrorCode DMAsmElementMatrices(DMAssembly as, PetscScalar **ke)
{
  PetscFunctionBegin;
  PetscCall(ExecutionBuffer(as, (PetscCount)as->nen * as->nen * as->nelem, &as->ke));
  *ke = as->ke;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an element-state buffer (ue or ae, [nen][nelem]), made at its first gather: kernels that read the nodal state
   themselves never need one (on the host, ue comes with fe from the set-up) */
static PetscErrorCode StateBuffer(DMAssembly as, PetscScalar **buf)
{
  PetscFunctionBegin;
  PetscCall(ExecutionBuffer(as, (PetscCount)as->nen * as->nelem, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element callback (the Jacobian's if jac, else the residual's) at the state in u (and a): the vectors the
   element map indexes -- U and the auxiliary vector on one process, their ghosted copies on several.  The state
   is gathered into the element buffers ue/ae first (entry-major, coalesced for the callback), or, for kernels
   that read the nodal values themselves (DMAssemblySetNodalState()), the vectors' arrays are handed over through
   DMAssemblyGetNodalState() during the call: no element-state buffers are written and read back, which on P1
   tetrahedra is 4 x 8 B written and read per element and vector. */
PetscErrorCode DMAsmElements(DMAssembly as, Vec u, Vec a, PetscBool jac)
{
  const PetscBool    state = jac ? as->jacstate : PETSC_TRUE;
  Vec                vs[2] = {state ? u : NULL, state ? a : NULL};
  PetscScalar      **bufs[2] = {&as->ue, &as->ae};
  const PetscScalar *arr[2] = {NULL, NULL};
  PetscBool          hostcopy[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  if (state) PetscCall(PetscLogEventBegin(DMASSEMBLY_Gather, as, 0, 0, 0));
  for (int i = 0; i < 2; i++) { /* the arrays in the execution memory, held until the callback returned */
    PetscMemType mt;

    if (!vs[i]) continue;
    PetscCall(VecGetArrayReadAndMemType(vs[i], &arr[i], &mt));
    PetscCheck(!(as->mtype == PETSC_MEMTYPE_DEVICE && PetscMemTypeHost(mt)), PetscObjectComm((PetscObject)vs[i]), PETSC_ERR_ARG_WRONG, "DMAssembly: the method runs on the device but the vector is a host vector (%s); use -dm_vec_type cuda", ((PetscObject)vs[i])->type_name);
    if (as->mtype == PETSC_MEMTYPE_HOST && PetscMemTypeDevice(mt)) { /* a device vector with a host method: read its host copy */
      PetscCall(VecRestoreArrayReadAndMemType(vs[i], &arr[i]));
      PetscCall(VecGetArrayRead(vs[i], &arr[i]));
      hostcopy[i] = PETSC_TRUE;
    }
    if (as->nodal) continue; /* the kernel reads arr[i] itself */
    PetscCall(StateBuffer(as, bufs[i]));
    if (as->mtype == PETSC_MEMTYPE_HOST) DMAsmHostGather(as->nen, as->nelem, as->edof, arr[i], *bufs[i]);
#if defined(ELLWARP_HAVE_CUDA)
    else PetscCall(DMAsmCUDAGather(as->nen, as->nelem, as->dedof, arr[i], *bufs[i]));
#endif
  }
  if (state) PetscCall(PetscLogEventEnd(DMASSEMBLY_Gather, as, 0, 0, 0));
  PHASE(as);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Element, as, 0, 0, 0));
  {
    const PetscScalar *ue = vs[0] && !as->nodal ? as->ue : NULL, *ae = vs[1] && !as->nodal ? as->ae : NULL;
    as->nodalu      = arr[0];
    as->nodala      = arr[1];
    as->nodalactive = as->nodal;
    if (jac) {
      PetscScalar *ke;
      PetscCall(DMAsmElementMatrices(as, &ke));
      PetscCall((*as->k.jacobian)(as->mtype, 0, as->nelem, as->dxe, ue, ae, ke, as->k.ctx));
    }
    else PetscCall((*as->k.residual)(as->mtype, 0, as->nelem, as->dxe, ue, ae, as->fe, as->k.ctx));
    as->nodalactive = PETSC_FALSE;
    as->nodalu = as->nodala = NULL;
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Element, as, 0, 0, 0));
  for (int i = 0; i < 2; i++) {
    if (!vs[i]) continue;
    if (hostcopy[i]) PetscCall(VecRestoreArrayRead(vs[i], &arr[i]));
    else PetscCall(VecRestoreArrayReadAndMemType(vs[i], &arr[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* atomic and color (their fusedactive) with the built-in kernels unless -dm_assembly_fuse 0: the element is
   computed inside the scatter */
PetscBool DMAsmFusedActiveScatter(DMAssembly as, PetscBool jac)
{
  (void)jac;
  return (PetscBool)(((DMAsmScatter *)as->data)->fuse && DMAsmBuiltinAny(as));
}

/* the fused element + scatter of atomic (col NULL) and color into dst (zeroed first), ntarget values; u: the state
   (residual only).  color first reduces its tail of small colours through their packed plan, then scatters
   each big colour */
PetscErrorCode DMAsmFusedScatter(DMAssembly as, const DMAssembly_Color *col, const DMAsmPlan *P, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  const DMAsmPlan *tail = col ? (jac ? &col->jtail : &col->rtail) : NULL;
  const PetscInt   nt   = col ? col->ntail : 0;

  PetscFunctionBegin;
  if (jac && nt) { /* the tail's element matrices */
    PetscScalar *ke;
    PetscCall(DMAsmElementMatrices(as, &ke));
  }
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  if (as->hobuiltin && as->k.ctx == (void *)as->hobuiltin) PetscCall(DMAsmHOFused(as, col, P, jac, u, dst)); /* the Lagrange kernels (dmasmho.c) */
  else if (as->mtype == PETSC_MEMTYPE_HOST) {
    if (nt) { /* the tail first: element data of its elements, packed reduction writing every target */
      PetscScalar *buf = jac ? as->ke : as->fe;
      DMAsmHostP1FusedStore(as->builtin, nt, col->tailelem, as->nelem, as->xe, u, as->edof, jac, NULL, NULL, buf);
      DMAsmHostReduce(tail, buf, dst);
    } else PetscCall(PetscArrayzero(dst, P->ntarget));
    if (col) {
      for (PetscInt c = 0; c < col->ncolors; c++)
        if (!nt || col->colptr[c + 1] - col->colptr[c] >= col->colortail) DMAsmHostP1Fused(as->builtin, col->colptr[c + 1] - col->colptr[c], col->colelem + col->colptr[c], as->nelem, as->xe, u, as->edof, jac, P->e2t, dst);
    } else DMAsmHostP1Fused(as->builtin, as->nelem, NULL, as->nelem, as->xe, u, as->edof, jac, P->e2t, dst);
    PetscCall(PetscLogFlops((as->dim == 3 ? 150.0 : 60.0) * as->nelem + (PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmP1CtxDevice(as->builtin));
    PetscCall(DMAsmP1CtxDeviceSym(as->builtin)); /* symmetric D: the fused kernels read its upper triangle */
    if (nt) {
      PetscScalar *buf = jac ? as->ke : as->fe;
      PetscCall(DMAsmCUDAP1FusedStore(as->builtin, nt, col->dtailelem, as->nelem, as->dxe, u, as->dedof, jac, NULL, PETSC_FALSE, NULL, buf));
      PetscCall(DMAsmCUDAReduce(tail, buf, dst));
    } else PetscCall(DMAsmCUDAZero(dst, P->ntarget));
    if (col) {
      for (PetscInt c = 0; c < col->ncolors; c++)
        if (!nt || col->colptr[c + 1] - col->colptr[c] >= col->colortail) PetscCall(DMAsmCUDAP1Fused(as->builtin, col->colptr[c + 1] - col->colptr[c], col->dcolelem + col->colptr[c], as->nelem, as->dxe, u, as->dedof, jac, P->de2t, PETSC_FALSE, dst));
    } else PetscCall(DMAsmCUDAP1Fused(as->builtin, as->nelem, NULL, as->nelem, as->dxe, u, as->dedof, jac, P->de2t, PETSC_TRUE, dst));
#endif
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localrow and localnz: always fused (they need the built-in kernels, checked at set-up) */
PetscBool DMAsmFusedActiveAlways(DMAssembly as, PetscBool jac)
{
  (void)as;
  (void)jac;
  return PETSC_TRUE;
}

/* globalnz, host, sharednz, localnz, localrow: the packed reduction by nonzero (fixed order) */
PetscErrorCode DMAsmReducePacked(DMAssembly as, const DMAsmPlan *P, PetscInt nper, const PetscScalar *src, PetscScalar *dst)
{
  PetscFunctionBegin;
  (void)nper;
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    DMAsmHostReduce(P, src, dst);
    PetscCall(PetscLogFlops((PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmCUDAReduce(P, src, dst));
    PetscCall(PetscLogGpuFlops((PetscLogDouble)P->nsrc));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* src -> dst by the type's reduction */
static PetscErrorCode Reduce(DMAssembly as, const DMAsmPlan *P, PetscInt nper, const PetscScalar *src, PetscScalar *dst)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscUseTypeMethod(as, reduce, P, nper, src, dst);
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element computed inside the type's own kernel for this assembly */
static PetscBool FusedActive(DMAssembly as, PetscBool jac)
{
  return (PetscBool)(as->ops->fused && as->ops->fusedactive && as->ops->fusedactive(as, jac));
}

/*@
  DMAssemblyComputeResidual - Assembles the global residual F from the element residuals at U

  Collective

  Input Parameters:
+ as - the assembler
- U  - the solution, a global vector of the assembler's `DM`

  Output Parameter:
. F - the residual, a global vector of the `DM` (overwritten)

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblyComputeJacobian()`, `DMAssemblySetSNES()`, `DMAssemblySetElementKernels()`
@*/
PetscErrorCode DMAssemblyComputeResidual(DMAssembly as, Vec U, Vec F)
{
  PetscScalar *f;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidHeaderSpecific(U, VEC_CLASSID, 2);
  PetscValidHeaderSpecific(F, VEC_CLASSID, 3);
  PetscCall(DMAssemblySetUp(as));
  PetscCheck(as->k.residual, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssembly: no residual element kernel set");
  if (as->mpi) { /* distributed DM: owned rows only (dmasmmpi.c) */
    PetscCall(DMAsmMPIComputeResidual(as, U, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  as->phasen = 0;
  PHASE(as);
  if (FusedActive(as, PETSC_FALSE)) {
    const PetscScalar *u;
    PetscMemType       mu;

    PetscCall(VecGetArrayReadAndMemType(U, &u, &mu));
    PetscCheck(as->mtype == PETSC_MEMTYPE_HOST || PetscMemTypeDevice(mu), PetscObjectComm((PetscObject)U), PETSC_ERR_ARG_WRONG, "DMAssembly: the method runs on the device but U is a host vector (%s); use -dm_vec_type cuda", ((PetscObject)U)->type_name);
    if (as->mtype == PETSC_MEMTYPE_HOST && PetscMemTypeDevice(mu)) {
      PetscCall(VecRestoreArrayReadAndMemType(U, &u));
      PetscCall(VecGetArrayRead(U, &u));
    }
    if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(VecGetArrayWrite(F, &f));
    else {
      PetscCall(VecGetArrayWriteAndMemType(F, &f, &mt));
      PetscCheck(PetscMemTypeDevice(mt), PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONG, "DMAssembly: the method runs on the device but F is a host vector (%s); use -dm_vec_type cuda", ((PetscObject)F)->type_name);
    }
    PHASE(as); /* no gather */
    PHASE(as); /* no separate element kernel */
    PetscUseTypeMethod(as, fused, PETSC_FALSE, u, f);
    PHASE(as);
    if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(VecRestoreArrayWrite(F, &f));
    else PetscCall(VecRestoreArrayWriteAndMemType(F, &f));
    if (as->mtype == PETSC_MEMTYPE_HOST && PetscMemTypeDevice(mu)) PetscCall(VecRestoreArrayRead(U, &u));
    else PetscCall(VecRestoreArrayReadAndMemType(U, &u));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMAsmElements(as, U, as->aux, PETSC_FALSE));
  PHASE(as);
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    PetscCall(VecGetArrayWrite(F, &f));
    mt = PETSC_MEMTYPE_HOST;
  } else {
    PetscCall(VecGetArrayWriteAndMemType(F, &f, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PetscObjectComm((PetscObject)F), PETSC_ERR_ARG_WRONG, "DMAssembly: the method runs on the device but F is a host vector (%s); use -dm_vec_type cuda", ((PetscObject)F)->type_name);
  }
  PetscCall(Reduce(as, &as->res, as->nen, as->fe, f));
  PHASE(as);
  if (as->mtype == PETSC_MEMTYPE_HOST) PetscCall(VecRestoreArrayWrite(F, &f));
  else PetscCall(VecRestoreArrayWriteAndMemType(F, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix without an assembly target (MatHasAssemblyTarget): the element matrices (ke, computed by the
   caller) go through MatSetValuesCOO, their COO pattern set once per matrix and nonzero state.  Entry q of ke
   (element entry (a,b) of element e) is COO entry q: row and column from the element pattern, -1 (ignored)
   for the rows this process does not own. */
PetscErrorCode DMAsmJacobianCOO(DMAssembly as, Mat J)
{
  const PetscCount   nq = (PetscCount)as->nen * as->nen * as->nelem;
  const PetscScalar *v  = as->ke;
  PetscScalar       *hv = NULL;
  PetscObjectId      id;
  PetscObjectState   nz;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)J, &id));
  PetscCall(MatGetNonzeroState(J, &nz));
  if (id != as->cooid || nz != as->coostate) {
    const PetscInt  nrows = as->mpi ? as->nown : as->ndof, r0 = as->mpi ? as->rstart : 0;
    PetscInt       *ci, *cj, *rowof;
    const PetscInt *e2nz;

    PetscCall(PetscLogEventBegin(DMASSEMBLY_Plan, as, J, 0, 0));
    PetscCall(DMAsmEntryMap(as, &e2nz));
    PetscCall(PetscMalloc1(as->nnz, &rowof));
    for (PetscInt i = 0; i < nrows; i++)
      for (PetscInt k = as->pi[i]; k < as->pi[i + 1]; k++) rowof[k] = r0 + i;
    PetscCall(PetscMalloc2(nq, &ci, nq, &cj));
    for (PetscCount q = 0; q < nq; q++) {
      const PetscInt k = e2nz[q];
      ci[q]            = k >= 0 ? rowof[k] : -1;
      cj[q]            = k >= 0 ? as->pj[k] : -1;
    }
    PetscCall(PetscFree(rowof));
    PetscCall(MatSetPreallocationCOO(J, nq, ci, cj));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(MatGetNonzeroState(J, &as->coostate));
    as->cooid = id;
    as->njacplans++;
    PetscCall(PetscLogEventEnd(DMASSEMBLY_Plan, as, J, 0, 0));
    PetscCall(PetscInfo(as, "Jacobian into %s (no assembly target): element matrices through MatSetValuesCOO, %" PetscCount_FMT " COO entries\n", ((PetscObject)J)->type_name, nq));
  }
  PetscCall(MatGetCurrentMemType(J, &mt));
  if (as->mtype == PETSC_MEMTYPE_DEVICE && PetscMemTypeHost(mt)) { /* a host matrix: its COO reads host values */
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(PetscMalloc1(nq, &hv));
    PetscCall(PetscEllwarpDeviceDownload(hv, as->ke, sizeof(PetscScalar) * nq));
    v = hv;
#endif
  }
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscCall(MatSetValuesCOO(J, v, INSERT_VALUES));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscCall(PetscFree(hv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyComputeJacobian - Assembles the element Jacobians at `U` into `J`

  Collective

  Input Parameters:
+ as - the `DMAssembly`, with its element kernels set
. U  - the state, a global vector of the DM (not read by a Jacobian kernel that `DMAssemblySetJacobianUsesState()` declared linear)
- J  - the matrix, from `DMCreateMatrix()` or any matrix whose pattern contains the element pattern

  Level: beginner

  Notes:
  The assembler writes `J`'s own storage through `MatGetAssemblyTarget()` (`MATELLWARP` value slots, CSR for
  `MATAIJ` and `MATAIJCUSPARSE`, sequential or MPI).  The first call for a matrix builds the plan of where each
  element entry goes; it is kept while the matrix and its target state stay the same, and rebuilt whenever the
  state changes (new nonzero state, new `MATELLWARP` layout, conversion).  A matrix type without an assembly
  target (`MatHasAssemblyTarget()`) receives the element matrices through `MatSetValuesCOO()`.

.seealso: `DMAssembly`, `DMAssemblyComputeResidual()`, `MatGetAssemblyTarget()`, `MatSetValuesCOO()`
@*/
PetscErrorCode DMAssemblyComputeJacobian(DMAssembly as, Vec U, Mat J)
{
  MatAssemblyTarget T;
  PetscScalar      *val;
  PetscBool         has;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidHeaderSpecific(U, VEC_CLASSID, 2);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 3);
  PetscCall(DMAssemblySetUp(as));
  PetscCheck(as->k.jacobian, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssembly: no Jacobian element kernel set");
  if (as->mpi) { /* distributed DM: both blocks of the MPI matrix, owned rows only (dmasmmpi.c) */
    PetscCall(DMAsmMPIComputeJacobian(as, U, J));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatHasAssemblyTarget(J, &has));
  if (!has) { /* element matrices, then MatSetValuesCOO */
    PetscCall(DMAsmElements(as, U, as->aux, PETSC_TRUE));
    PetscCall(DMAsmJacobianCOO(as, J));
    as->nreductions++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GetTarget(as, J, &T));
  PetscCall(EnsureJacobianPlan(as, J, &T));
  val        = T.block[0].val;
  as->phasen = 0;
  PHASE(as);
  if (FusedActive(as, PETSC_TRUE)) {
    PHASE(as);
    PHASE(as);
    PetscUseTypeMethod(as, fused, PETSC_TRUE, NULL, val);
    PHASE(as);
    PetscCall(MatRestoreAssemblyTarget(J, &T));
    as->nreductions++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMAsmElements(as, U, as->aux, PETSC_TRUE));
  PHASE(as);
  PetscCall(Reduce(as, &as->jac, as->nen * as->nen, as->ke, val));
  PHASE(as);
  PetscCall(MatRestoreAssemblyTarget(J, &T));
  as->nreductions++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmReducePlan(DMAssembly as, const DMAsmPlan *P, PetscInt nper, const PetscScalar *src, PetscScalar *dst)
{
  PetscFunctionBegin;
  PetscCall(Reduce(as, P, nper, src, dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}
