/* The DMAssembly types: each method is a registered type (DMAssemblyRegisterAll) whose constructor fills the ops
   table (include/petscellwarp/private/dmassemblyimpl.h) with its reduction, its fused path and its View line. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmfast.h>

static PetscErrorCode ViewLine(DMAssembly as, PetscViewer viewer, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "method %s: %s\n", ((PetscObject)as)->type_name, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* atomic and color: how the element kernels run, and the atomic variants */
static inline PetscBool BuiltinP1(DMAssembly as)
{
  return (PetscBool)(as->builtin && as->k.ctx == (void *)as->builtin);
}

static PetscErrorCode ViewScatterKernels(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (as->kset) {
    const PetscBool fused   = (PetscBool)(as->fuse && BuiltinP1(as));
    const PetscBool hofused = (PetscBool)(as->fuse && as->hobuiltin && as->k.ctx == (void *)as->hobuiltin);
    PetscCall(PetscViewerASCIIPrintf(viewer, "element kernels: %s\n", fused ? "built-in P1, fused into the scatter (no element data in memory)" : hofused ? "built-in Lagrange, fused into the scatter (no element data in memory)" : "through the element buffers"));
    PetscCall(DMAsmFastView(as, viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_GlobalNZ(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "element matrices in global memory, packed reduction by nonzero (fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Host(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "plain-C reference on the host (same plan as globalnz)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Atomic(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "element matrices scattered with atomicAdd (order not fixed on the device)"));
  PetscCall(ViewScatterKernels(as, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Color(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "element colouring, one scatter launch per colour"));
  PetscCall(ViewScatterKernels(as, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_SharedNZ(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, as->shfallback ? "FALLS BACK TO globalnz: sharednz computes the element in its kernel and needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()) on P1 simplices" : "per block of targets: nodal data through a scatter array into shared memory, the block's elements computed there, reduction by nonzero from shared memory (16-bit offsets, fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_LocalNZ(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "one thread per nonzero recomputes each of its contributions from the element's inputs, in its packed list's order (Cecka, Lew, Darve 4.2.2; built-in kernels, no element data in memory, fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_LocalRow(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(ViewLine(as, viewer, "one thread per row computes its rows of the surrounding elements (built-in kernels, fused, fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}


static inline PetscBool BuiltinAny(DMAssembly as)
{
  return (PetscBool)(BuiltinP1(as) || (as->hobuiltin && as->k.ctx == (void *)as->hobuiltin));
}

/* set-up of the types with data of their own */
static PetscErrorCode SetUp_Color(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCall(DMAsmBuildTailPlan(as, as->nen, as->ndof, as->edof, &as->rtail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUp_LocalNZ(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCheck(BuiltinAny(as), PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly localnz computes each contribution inside its reduction: it needs the built-in kernels (DMAssemblyP1DiffusionMassKernels() or DMAssemblyLagrangeKernels()); not for user kernels: use globalnz");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUp_LocalRow(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCheck(BuiltinP1(as), PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly localrow computes the element inside its kernel: it needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()) on P1 simplices; not for this element (%s) or these kernels: use globalnz", as->ename);
  PetscCall(DMAsmBuildRowPlan(as, PETSC_FALSE, NULL, as->ndof, &as->rrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sharednz: with the built-in P1 kernels, the nodal coordinates (loaded per block through the scatter array) and
   the residual's block plan; with any other kernels globalnz runs (said in -info and View) */
static PetscErrorCode SetUp_SharedNZ(DMAssembly as)
{
  PetscFunctionBegin;
  as->shfallback = (PetscBool)!BuiltinP1(as);
  if (as->shfallback) {
    PetscCall(PetscInfo(as, "sharednz computes the element inside its kernel and needs the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()); with %s and these kernels globalnz runs instead\n", as->ename));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1((size_t)as->ndof * as->dim, &as->xn));
  for (PetscInt e = 0; e < as->nelem; e++)
    for (PetscInt a = 0; a < as->nen; a++)
      for (PetscInt d = 0; d < as->dim; d++) as->xn[(size_t)as->edof[(PetscCount)a * as->nelem + e] * as->dim + d] = as->xe[((PetscCount)a * as->dim + d) * as->nelem + e];
  PetscCall(DMAsmBuildSharedPlan(as, as->nen, as->ndof, as->edof, 0, NULL, NULL, &as->rsh)); /* METIS units: 32 dofs */
  if (as->rsh.fallback) PetscCall(PetscInfo(as, "sharednz: the residual's element data do not fit the shared-memory budget; globalnz assembles the residual\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on a distributed DM: everything through the element buffers */
static PetscBool MPI_Always(DMAssembly as)
{
  (void)as;
  return PETSC_TRUE;
}

static PetscBool MPI_Unfused(DMAssembly as)
{
  return (PetscBool)!(BuiltinP1(as) && as->fuse);
}

static PetscBool MPI_UserKernels(DMAssembly as)
{
  return (PetscBool)!BuiltinP1(as); /* sharednz with user kernels runs globalnz */
}

/*MC
   DMASSEMBLYGLOBALNZ - "globalnz" - the element kernel writes element matrices to global memory; a packed reduction
   by nonzero (one thread per target, contributions in element order) sums them into the target (Cecka, Lew, Darve,
   section 4.2.3).  Bitwise reproducible.  The default.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYHOST`, `DMASSEMBLYSHAREDNZ`
M*/
PetscErrorCode DMAssemblyCreate_GlobalNZ(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce       = DMAsmReducePacked;
  as->ops->jacplan      = DMAsmJacPlanPacked;
  as->ops->mpisupported = MPI_Always;
  as->ops->view         = View_GlobalNZ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYHOST - "host" - the plain-C reference of `DMASSEMBLYGLOBALNZ`: the same element kernels and packed
   reduction, always on the host

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYGLOBALNZ`
M*/
PetscErrorCode DMAssemblyCreate_Host(DMAssembly as)
{
  PetscFunctionBegin;
  as->hostonly          = PETSC_TRUE;
  as->ops->reduce       = DMAsmReducePacked;
  as->ops->jacplan      = DMAsmJacPlanPacked;
  as->ops->mpisupported = MPI_Always;
  as->ops->view         = View_Host;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYATOMIC - "atomic" - element matrices scattered into the target with atomicAdd; with the built-in kernels
   the element is computed inside the scatter (`DMAssemblySetFuse()`), `-dm_assembly_atomic_variant` picks the
   scatter.  The order of summation is not fixed on the device.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYCOLOR`
M*/
PetscErrorCode DMAssemblyCreate_Atomic(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce       = DMAsmReduceAtomic;
  as->ops->fusedactive  = DMAsmFusedActiveScatter;
  as->ops->fused        = DMAsmFusedScatter;
  as->ops->jacplan      = DMAsmJacPlanAtomic;
  as->ops->mpisupported = MPI_Unfused;
  as->ops->view         = View_Atomic;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYCOLOR - "color" - elements coloured so that no two of a colour share a node; one scatter launch per
   colour (the small colours first, through one packed reduction)

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYATOMIC`
M*/
PetscErrorCode DMAssemblyCreate_Color(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce      = DMAsmReduceColor;
  as->ops->fusedactive = DMAsmFusedActiveScatter;
  as->ops->fused       = DMAsmFusedScatter;
  as->ops->setup       = SetUp_Color;
  as->ops->jacplan     = DMAsmJacPlanColor;
  as->ops->view        = View_Color;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYSHAREDNZ - "sharednz" - per block of targets, the nodal data through a scatter array into shared memory,
   the block's elements computed there and reduced by nonzero from shared memory (Cecka, Lew, Darve, section 4.2.4);
   needs the built-in P1 kernels, else `DMASSEMBLYGLOBALNZ` runs.  Bitwise reproducible.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYGLOBALNZ`
M*/
PetscErrorCode DMAssemblyCreate_SharedNZ(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce       = DMAsmReducePacked; /* the globalnz fallback */
  as->ops->fusedactive  = DMAsmFusedActiveShared;
  as->ops->fused        = DMAsmFusedShared;
  as->ops->setup        = SetUp_SharedNZ;
  as->ops->jacplan      = DMAsmJacPlanShared;
  as->ops->hasjacplan   = DMAsmHasJacPlanShared;
  as->ops->mpisupported = MPI_UserKernels;
  as->ops->view         = View_SharedNZ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYLOCALNZ - "localnz" - one thread per nonzero recomputes each of its contributions from the element's
   inputs (Cecka, Lew, Darve, section 4.2.2); built-in kernels only.  Bitwise reproducible.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYGLOBALNZ`
M*/
PetscErrorCode DMAssemblyCreate_LocalNZ(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce      = DMAsmReducePacked;
  as->ops->fusedactive = DMAsmFusedActiveAlways;
  as->ops->fused       = DMAsmFusedLocalNZ;
  as->ops->setup       = SetUp_LocalNZ;
  as->ops->jacplan     = DMAsmJacPlanPacked;
  as->ops->view        = View_LocalNZ;
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
  PetscFunctionBegin;
  as->ops->reduce      = DMAsmReducePacked;
  as->ops->fusedactive = DMAsmFusedActiveAlways;
  as->ops->fused       = DMAsmFusedLocalRow;
  as->ops->setup       = SetUp_LocalRow;
  as->ops->jacplan     = DMAsmJacPlanLocalRow;
  as->ops->hasjacplan  = DMAsmHasJacPlanLocalRow;
  as->ops->view        = View_LocalRow;
  PetscFunctionReturn(PETSC_SUCCESS);
}
