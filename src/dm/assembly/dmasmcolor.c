/* The color type (DMASSEMBLYCOLOR): its data (DMAssembly_Color: the element colouring and the tail of small
   colours, include/petscellwarp/private/dmassemblyimpl.h), options, set-up, Jacobian plan, reduction, fused
   path and View.  The colouring itself is DMAsmColor() (dmasmplan.c); only this type computes it. */
#include <petscellwarp/private/dmassemblyimpl.h>

static PetscErrorCode SetFromOptions_Color(DMAssembly as, PetscOptionItems PetscOptionsObject)
{
  DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DMAssembly color");
  PetscCall(DMAsmSetFromOptionsScatter(as, &c->sc, PetscOptionsObject));
  PetscCall(DMAsmTuneGetInt(as, "color_tail", 0, PETSC_INT_MAX, &c->colortail));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the colouring, its tail and the residual's tail plan, in the execution memory */
static PetscErrorCode SetUp_Color(DMAssembly as)
{
  DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Color, as, 0, 0, 0));
  PetscCall(DMAsmColor(as, c));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Color, as, 0, 0, 0));
  PetscCall(DMAsmBuildTailPlan(as, c, as->nen, as->ndof, as->edof, &c->rtail));
  c->dcolelem  = c->colelem;
  c->dtailelem = c->tailelem;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    PetscCall(DMAsmCUDAMalloc((void **)&c->dcolelem, sizeof(PetscInt) * as->nelem));
    PetscCall(DMAsmCUDAUpload(c->dcolelem, c->colelem, sizeof(PetscInt) * as->nelem));
    PetscCall(DMAsmCUDAMalloc((void **)&c->dtailelem, sizeof(PetscInt) * c->ntail));
    PetscCall(DMAsmCUDAUpload(c->dtailelem, c->tailelem, sizeof(PetscInt) * c->ntail));
  }
#endif
  PetscCall(PetscInfo(as, "color: %" PetscInt_FMT " colours, %" PetscInt_FMT " elements in colours of fewer than %" PetscInt_FMT "\n", c->ncolors, c->ntail, c->colortail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the packed plan (its e2t) and the tail's packed plan */
static PetscErrorCode JacPlan_Color(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmJacPlanPacked(as, B, q2t));
  PetscCall(DMAsmBuildTailPlan(as, c, as->nen * as->nen, B->nval, q2t, &c->jtail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tail's packed reduction first (writes every target), then one scatter per big colour */
static PetscErrorCode Reduce_Color(DMAssembly as, const DMAsmPlan *P, PetscInt nper, const PetscScalar *src, PetscScalar *dst)
{
  const DMAssembly_Color *c    = (DMAssembly_Color *)as->data;
  const DMAsmPlan        *tail = P == &as->jac ? &c->jtail : &c->rtail;

  PetscFunctionBegin;
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    if (c->ntail) DMAsmHostReduce(tail, src, dst);
    else PetscCall(PetscArrayzero(dst, P->ntarget));
    for (PetscInt k = 0; k < c->ncolors; k++)
      if (!c->ntail || c->colptr[k + 1] - c->colptr[k] >= c->colortail) DMAsmHostScatterColor(c->colptr[k + 1] - c->colptr[k], c->colelem + c->colptr[k], nper, as->nelem, P->e2t, src, dst);
    PetscCall(PetscLogFlops((PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    if (c->ntail) PetscCall(DMAsmCUDAReduce(tail, src, dst));
    else PetscCall(DMAsmCUDAZero(dst, P->ntarget));
    for (PetscInt k = 0; k < c->ncolors; k++)
      if (!c->ntail || c->colptr[k + 1] - c->colptr[k] >= c->colortail) PetscCall(DMAsmCUDAScatterColor(c->colptr[k + 1] - c->colptr[k], c->dcolelem + c->colptr[k], nper, as->nelem, P->de2t, src, dst));
    PetscCall(PetscLogGpuFlops((PetscLogDouble)P->nsrc));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fused_Color(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  PetscFunctionBegin;
  PetscCall(DMAsmFusedScatter(as, (DMAssembly_Color *)as->data, jac ? &as->jac : &as->res, jac, u, dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Color(DMAssembly as, PetscViewer viewer)
{
  const DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "element colouring, one scatter launch per colour"));
  PetscCall(DMAsmViewScatter(as, &c->sc, viewer));
  if (as->setupcalled) {
    PetscInt big = 0, maxc = 0, tailc = 0, taile = 0, maxval = 0, *val;
    for (PetscInt k = 0; k < c->ncolors; k++) {
      const PetscInt n = c->colptr[k + 1] - c->colptr[k];
      maxc             = PetscMax(maxc, n);
      if (n >= c->colortail) big++;
      else {
        tailc++;
        taile += n;
      }
    }
    PetscCall(PetscCalloc1(as->ndof, &val));
    for (PetscCount q = 0; q < (PetscCount)as->nen * as->nelem; q++) {
      const PetscInt v = ++val[as->edof[q]]; /* not inside PetscMax(): a macro */
      maxval           = PetscMax(maxval, v);
    }
    PetscCall(PetscFree(val));
    PetscCall(PetscViewerASCIIPrintf(viewer, "element colouring: %" PetscInt_FMT " colours (largest node valence %" PetscInt_FMT "); %" PetscInt_FMT " colours of >= %" PetscInt_FMT " elements (largest %" PetscInt_FMT "), %" PetscInt_FMT " smaller ones with %" PetscInt_FMT " elements in all (their packed reduction first, then one launch per big colour)\n", c->ncolors, maxval, big, c->colortail, maxc, tailc, taile));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetInfo_Color(DMAssembly as, DMAssemblyInfo *info)
{
  PetscFunctionBegin;
  info->ncolors = ((DMAssembly_Color *)as->data)->ncolors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetColoring_Color(DMAssembly as, PetscInt *ncolors, const PetscInt **colptr, const PetscInt **colelem)
{
  const DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
  if (ncolors) *ncolors = c->ncolors;
  if (colptr) *colptr = c->colptr;
  if (colelem) *colelem = c->colelem;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy_Color(DMAssembly as)
{
  DMAssembly_Color *c = (DMAssembly_Color *)as->data;

  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (c->dcolelem != c->colelem) PetscCall(DMAsmCUDAFree((void **)&c->dcolelem));
  if (c->dtailelem != c->tailelem) PetscCall(DMAsmCUDAFree((void **)&c->dtailelem));
#endif
  PetscCall(PetscFree(c->colptr));
  PetscCall(PetscFree(c->colelem));
  PetscCall(PetscFree(c->tailelem));
  PetscCall(DMAsmPlanDestroy(&c->jtail));
  PetscCall(DMAsmPlanDestroy(&c->rtail));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyGetColoring_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblySetFuse_C", NULL));
  PetscCall(PetscFree(as->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYCOLOR - "color" - elements coloured so that no two of a colour share a node; one scatter launch per
   colour (the small colours first, through one packed reduction).  With the built-in kernels the element is
   computed inside the scatter (`DMAssemblySetFuse()`).  The only type that colours the elements
   (`DMAssemblyGetColoring()`).

   Options Database Keys:
+  -dm_assembly_fuse <bool>            - compute the element inside the scatter with the built-in kernels (default true)
-  -dm_assembly_tune color_tail=<n>    - colours with fewer elements form the tail (developer; default 8192)

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYATOMIC`, `DMAssemblyGetColoring()`
M*/
PetscErrorCode DMAssemblyCreate_Color(DMAssembly as)
{
  DMAssembly_Color *c;

  PetscFunctionBegin;
  PetscCall(PetscNew(&c));
  c->sc.fuse   = PETSC_TRUE;
  c->colortail = DMASM_COLOR_TAIL;
  as->data     = c;
  as->ops->reduce         = Reduce_Color;
  as->ops->fusedactive    = DMAsmFusedActiveScatter;
  as->ops->fused          = Fused_Color;
  as->ops->setup          = SetUp_Color;
  as->ops->jacplan        = JacPlan_Color;
  as->ops->view           = View_Color;
  as->ops->setfromoptions = SetFromOptions_Color;
  as->ops->getinfo        = GetInfo_Color;
  as->ops->destroy        = Destroy_Color;
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyGetColoring_C", GetColoring_Color));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblySetFuse_C", DMAsmSetFuse_Scatter));
  PetscFunctionReturn(PETSC_SUCCESS);
}
