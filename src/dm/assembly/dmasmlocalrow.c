/* The localrow type (DMASSEMBLYLOCALROW): its data (DMAssembly_LocalRow: the row plans), set-up, Jacobian plan,
   fused path and View.
   localrow: assembly by row with the element computed where it is summed (built-in kernels only).
   One thread per matrix row walks the elements around its row in element order, computes each element's
   row for its node in registers and adds it to its targets; nothing goes through memory but the inputs
   and the values.  The element is computed once per node (4x for tets) instead of once, which the GPU
   affords; in exchange the element matrices never reach global memory.  Rows are dealt to warps in the
   target's storage order (ELLWARP: a warp per slice, whose rows have near-equal lengths), so the warp's
   values lie together and its lanes are balanced.  Plain-C reference: DMAsmHostLocalRow. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmp1.h>

/* jac: q2t = target of element entry (a*nen+b)*nelem + e; else the residual (rows in dof order) */
PetscErrorCode DMAsmBuildRowPlan(DMAssembly as, PetscBool jac, const PetscInt *q2t, PetscCount ntarget, DMAsmRowPlan *P)
{
  const PetscInt nelem = as->nelem, nen = as->nen, n = as->ndof;
  PetscInt      *ptr, *pos, *ince, *order, *key, maxw = 0;

  PetscFunctionBegin;
  PetscCall(DMAsmRowPlanDestroy(P));
  PetscCheck((PetscCount)nelem * nen < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly localrow: %" PetscInt_FMT " elements exceed its 32-bit incidence entries; use globalnz", nelem);
  P->nen     = nen;
  P->ntarget = ntarget;
  /* incidences by row, in element order */
  PetscCall(PetscCalloc1(n + 1, &ptr));
  for (PetscCount q = 0; q < (PetscCount)nen * nelem; q++) ptr[as->edof[q] + 1]++;
  for (PetscInt i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  PetscCall(PetscMalloc2(ptr[n], &ince, n, &pos));
  PetscCall(PetscArraycpy(pos, ptr, n));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nen; a++) ince[pos[as->edof[a * nelem + e]]++] = e * nen + a;
  /* the order of rows: by the first target position of the row (ELLWARP: slice by slice, lane by lane) */
  PetscCall(PetscMalloc2(n, &order, n, &key));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt m = PETSC_INT_MAX;
    order[i]   = i;
    if (jac)
      for (PetscInt k = ptr[i]; k < ptr[i + 1]; k++) {
        const PetscInt e = ince[k] / nen, a = ince[k] % nen;
        for (PetscInt b = 0; b < nen; b++) {
          const PetscInt t = q2t[(PetscCount)(a * nen + b) * nelem + e];
          if (t >= 0) m = PetscMin(m, t);
        }
      }
    key[i] = jac ? (m == PETSC_INT_MAX ? (PetscInt)(ntarget + i < PETSC_INT_MAX ? ntarget + i : PETSC_INT_MAX) : m) : i;
  }
  if (jac) PetscCall(PetscSortIntWithArray(n, key, order));
  P->nwarps = (n + 31) / 32;
  PetscCall(PetscMalloc1(P->nwarps + 1, &P->wptr));
  PetscCall(PetscMalloc1((size_t)P->nwarps * 32, &P->rowof));
  P->wptr[0] = 0;
  for (PetscInt w = 0; w < P->nwarps; w++) {
    PetscInt width = 0;
    for (PetscInt l = 0; l < 32; l++) {
      const PetscInt r   = 32 * w + l < n ? order[32 * w + l] : -1;
      P->rowof[32 * w + l] = r;
      if (r >= 0) width = PetscMax(width, ptr[r + 1] - ptr[r]);
    }
    maxw           = PetscMax(maxw, width);
    P->wptr[w + 1] = P->wptr[w] + (PetscCount)width * 32;
  }
  PetscCall(PetscMalloc1(P->wptr[P->nwarps], &P->inc));
  if (jac) PetscCall(PetscMalloc1(P->wptr[P->nwarps] * nen, &P->tgt));
  for (PetscInt w = 0; w < P->nwarps; w++) {
    const PetscInt width = (PetscInt)((P->wptr[w + 1] - P->wptr[w]) / 32);
    for (PetscInt l = 0; l < 32; l++) {
      const PetscInt r = P->rowof[32 * w + l];
      for (PetscInt s = 0; s < width; s++) {
        const PetscCount at = P->wptr[w] + (PetscCount)s * 32 + l;
        const PetscInt   k  = r >= 0 && s < ptr[r + 1] - ptr[r] ? ptr[r] + s : -1;
        P->inc[at]          = k >= 0 ? (int)ince[k] : -1;
        if (jac)
          for (PetscInt b = 0; b < nen; b++) {
            const PetscCount tat = P->wptr[w] * nen + ((PetscCount)s * nen + b) * 32 + l;
            P->tgt[tat]          = k >= 0 ? q2t[(PetscCount)((ince[k] % nen) * nen + b) * nelem + ince[k] / nen] : -1;
          }
      }
    }
  }
  PetscCall(PetscFree2(order, key));
  PetscCall(PetscFree2(ince, pos));
  PetscCall(PetscFree(ptr));
  PetscCall(PetscInfo(as, "localrow %s plan: %" PetscInt_FMT " warps, widest %" PetscInt_FMT " elements per row, %" PetscCount_FMT " incidence slots for %" PetscCount_FMT " incidences\n", jac ? "Jacobian" : "residual", P->nwarps, maxw, P->wptr[P->nwarps], (PetscCount)nen * nelem));
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmCUDAMalloc((void **)&P->dwptr, sizeof(PetscCount) * (P->nwarps + 1)));
    PetscCall(DMAsmCUDAUpload(P->dwptr, P->wptr, sizeof(PetscCount) * (P->nwarps + 1)));
    PetscCall(DMAsmCUDAMalloc((void **)&P->dinc, sizeof(int) * P->wptr[P->nwarps]));
    PetscCall(DMAsmCUDAUpload(P->dinc, P->inc, sizeof(int) * P->wptr[P->nwarps]));
    PetscCall(DMAsmCUDAMalloc((void **)&P->drowof, sizeof(PetscInt) * 32 * (size_t)P->nwarps));
    PetscCall(DMAsmCUDAUpload(P->drowof, P->rowof, sizeof(PetscInt) * 32 * (size_t)P->nwarps));
    if (jac) {
      PetscCall(DMAsmCUDAMalloc((void **)&P->dtgt, sizeof(PetscInt) * P->wptr[P->nwarps] * nen));
      PetscCall(DMAsmCUDAUpload(P->dtgt, P->tgt, sizeof(PetscInt) * P->wptr[P->nwarps] * nen));
    }
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmRowPlanDestroy(DMAsmRowPlan *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(P->wptr));
  PetscCall(PetscFree(P->inc));
  PetscCall(PetscFree(P->tgt));
  PetscCall(PetscFree(P->rowof));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&P->dwptr));
  PetscCall(DMAsmCUDAFree((void **)&P->dinc));
  PetscCall(DMAsmCUDAFree((void **)&P->dtgt));
  PetscCall(DMAsmCUDAFree((void **)&P->drowof));
#endif
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference of the CUDA kernel, thread by thread.  Jacobian (P->tgt): dst zeroed here, then
   dst[t] += ke_ab; residual: dst[row] = sum of the element rows. */
void DMAsmHostLocalRow(const DMAsmP1Ctx *c, const DMAsmRowPlan *P, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  const PetscInt dim = c->dim, nen = dim + 1;

  if (P->tgt)
    for (PetscCount t = 0; t < P->ntarget; t++) dst[t] = 0;
  for (PetscInt w = 0; w < P->nwarps; w++) {
    const PetscInt width = (PetscInt)((P->wptr[w + 1] - P->wptr[w]) / 32);
    for (PetscInt l = 0; l < 32; l++) {
      PetscScalar acc = 0;
      if (P->rowof[32 * w + l] < 0) continue;
      for (PetscInt s = 0; s < width; s++) {
        const int   v = P->inc[P->wptr[w] + (PetscCount)s * 32 + l];
        PetscInt    e, a;
        PetscReal   xl[12], Dl[9];
        PetscScalar ul[4], kr[4], fr;
        if (v < 0) break;
        e = v / nen;
        a = v % nen;
        for (PetscInt q = 0; q < nen * dim; q++) xl[q] = xe[(PetscCount)q * nelem + e];
        for (PetscInt q = 0; q < dim * dim && c->D; q++) Dl[q] = c->D[(PetscCount)q * nelem + e];
        if (P->tgt) {
          DMAsmP1ElementRow((int)dim, (int)a, c->alpha, c->beta, c->source, c->D ? Dl : NULL, xl, NULL, kr, NULL);
          for (PetscInt b = 0; b < nen; b++) {
            const PetscInt t = P->tgt[P->wptr[w] * nen + ((PetscCount)s * nen + b) * 32 + l];
            if (t >= 0) dst[t] += kr[b];
          }
        } else {
          for (PetscInt b = 0; b < nen; b++) ul[b] = u[edof[(PetscCount)b * nelem + e]];
          DMAsmP1ElementRow((int)dim, (int)a, c->alpha, c->beta, c->source, c->D ? Dl : NULL, xl, ul, NULL, &fr);
          acc += fr;
        }
      }
      if (!P->tgt) dst[P->rowof[32 * w + l]] = acc;
    }
  }
}

static PetscErrorCode SetUp_LocalRow(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCheck(DMAsmBuiltinP1(as), PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly localrow computes the element inside its kernel: it needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()) on P1 simplices; not for this element (%s) or these kernels: use globalnz", as->ename);
  PetscCall(DMAsmBuildRowPlan(as, PETSC_FALSE, NULL, as->ndof, &((DMAssembly_LocalRow *)as->data)->rrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row plan (jac keeps the key only) */
static PetscErrorCode JacPlan_LocalRow(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  PetscFunctionBegin;
  PetscCall(DMAsmPlanDestroy(&as->jac));
  PetscCall(DMAsmBuildRowPlan(as, PETSC_TRUE, q2t, B->nval, &((DMAssembly_LocalRow *)as->data)->jrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool HasJacPlan_LocalRow(DMAssembly as)
{
  return (PetscBool)(((DMAssembly_LocalRow *)as->data)->jrow.wptr != NULL);
}

static PetscErrorCode Fused_LocalRow(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  const DMAssembly_LocalRow *lr = (DMAssembly_LocalRow *)as->data;
  const DMAsmRowPlan        *P  = jac ? &lr->jrow : &lr->rrow;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    DMAsmHostLocalRow(as->builtin, P, as->nelem, as->xe, u, as->edof, dst);
    PetscCall(PetscLogFlops((as->dim == 3 ? 120.0 : 50.0) * (as->dim + 1) * as->nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmP1CtxDevice(as->builtin));
    PetscCall(DMAsmCUDALocalRow(as->builtin, P, as->nelem, as->dxe, u, as->dedof, dst));
#endif
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_LocalRow(DMAssembly as, PetscViewer viewer)
{
  const DMAssembly_LocalRow *lr = (DMAssembly_LocalRow *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "one thread per row computes its rows of the surrounding elements (built-in kernels, fused, fixed order, bitwise reproducible)"));
  if (lr->jrow.wptr) PetscCall(PetscViewerASCIIPrintf(viewer, "localrow Jacobian plan: %s order, %" PetscInt_FMT " warps, %" PetscCount_FMT " incidence slots for %" PetscCount_FMT " incidences; %" PetscInt_FMT " plan(s) built, %" PetscInt_FMT " assemblies\n", as->jac.slots ? "value-slot" : "CSR", lr->jrow.nwarps, lr->jrow.wptr[lr->jrow.nwarps], (PetscCount)as->nen * as->nelem, as->njacplans, as->nreductions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetInfo_LocalRow(DMAssembly as, DMAssemblyInfo *info)
{
  const DMAssembly_LocalRow *lr = (DMAssembly_LocalRow *)as->data;

  PetscFunctionBegin;
  if (lr->jrow.wptr) info->jacplanentries = lr->jrow.wptr[lr->jrow.nwarps] * (1 + as->nen);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy_LocalRow(DMAssembly as)
{
  DMAssembly_LocalRow *lr = (DMAssembly_LocalRow *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmRowPlanDestroy(&lr->jrow));
  PetscCall(DMAsmRowPlanDestroy(&lr->rrow));
  PetscCall(PetscFree(as->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYLOCALROW - "localrow" - one thread per row computes its rows of the surrounding elements; built-in P1
   kernels only.  Bitwise reproducible.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYLOCALNZ`
M*/
PetscErrorCode DMAssemblyCreate_LocalRow(DMAssembly as)
{
  DMAssembly_LocalRow *lr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&lr));
  as->data             = lr;
  as->ops->reduce      = DMAsmReducePacked;
  as->ops->fusedactive = DMAsmFusedActiveAlways;
  as->ops->fused       = Fused_LocalRow;
  as->ops->setup       = SetUp_LocalRow;
  as->ops->jacplan     = JacPlan_LocalRow;
  as->ops->hasjacplan  = HasJacPlan_LocalRow;
  as->ops->view        = View_LocalRow;
  as->ops->getinfo     = GetInfo_LocalRow;
  as->ops->destroy     = Destroy_LocalRow;
  PetscFunctionReturn(PETSC_SUCCESS);
}
