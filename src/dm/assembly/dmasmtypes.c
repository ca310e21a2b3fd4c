/* The DMAssembly types without state of their own (globalnz, host, localnz: their plans are the generic ones of
   the object), and what the types share: the View line of a method, the scatter types' (atomic, color) fuse
   option.  Each type with data of its own is one file: sharednz dmasmshared.c, localrow dmasmlocalrow.c, atomic
   dmasmatomic.c, color dmasmcolor.c.  A constructor fills the ops table (include/petscellwarp/private/dmassemblyimpl.h)
   and allocates as->data; DMAssemblyRegisterAll() lists them. */
#include <petscellwarp/private/dmassemblyimpl.h>

PetscErrorCode DMAsmViewMethod(DMAssembly as, PetscViewer viewer, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "method %s: %s\n", ((PetscObject)as)->type_name, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* atomic and color: how the element kernels run */
PetscErrorCode DMAsmViewScatter(DMAssembly as, const DMAsmScatter *sc, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (as->kset) {
    const PetscBool fused   = (PetscBool)(sc->fuse && DMAsmBuiltinP1(as));
    const PetscBool hofused = (PetscBool)(sc->fuse && as->hobuiltin && as->k.ctx == (void *)as->hobuiltin);
    PetscCall(PetscViewerASCIIPrintf(viewer, "element kernels: %s\n", fused ? "built-in P1, fused into the scatter (no element data in memory)" : hofused ? "built-in Lagrange, fused into the scatter (no element data in memory)" : "through the element buffers"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmSetFromOptionsScatter(DMAssembly as, DMAsmScatter *sc, PetscOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  (void)as;
  PetscCall(PetscOptionsBool("-dm_assembly_fuse", "atomic/color with the built-in kernels: compute the element inside the scatter", "DMAssemblySetFuse", sc->fuse, &sc->fuse, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmSetFuse_Scatter(DMAssembly as, PetscBool flg)
{
  PetscFunctionBegin;
  ((DMAsmScatter *)as->data)->fuse = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_GlobalNZ(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "element matrices in global memory, packed reduction by nonzero (fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Host(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "plain-C reference on the host (same plan as globalnz)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_LocalNZ(DMAssembly as, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(DMAsmViewMethod(as, viewer, "one thread per nonzero recomputes each of its contributions from the element's inputs, in its packed list's order (Cecka, Lew, Darve 4.2.2; built-in kernels, no element data in memory, fixed order, bitwise reproducible)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUp_LocalNZ(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCheck(DMAsmBuiltinAny(as), PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly localnz computes each contribution inside its reduction: it needs the built-in kernels (DMAssemblyP1DiffusionMassKernels() or DMAssemblyLagrangeKernels()); not for user kernels: use globalnz");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localnz: every contribution recomputed by the thread that sums its target (built-in P1 or Lagrange kernels) */
static PetscErrorCode LocalNZAssembly(DMAssembly as, const DMAsmPlan *P, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  const PetscBool ho = (PetscBool)(as->hobuiltin && as->k.ctx == (void *)as->hobuiltin);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    if (ho) DMAsmHostLocalNZHO(as->hobuiltin, P, jac, as->nelem, as->xe, u, as->edof, dst);
    else DMAsmHostLocalNZ(as->builtin, P, jac, as->nelem, as->xe, u, as->edof, dst);
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    if (ho) {
      PetscCall(DMAsmHOCtxDevice(as->hobuiltin));
      PetscCall(DMAsmCUDALocalNZHO(as->hobuiltin, P, jac, as->nelem, as->dxe, u, as->dedof, dst));
    } else {
      PetscCall(DMAsmP1CtxDevice(as->builtin));
      PetscCall(DMAsmCUDALocalNZ(as->builtin, P, jac, as->nelem, as->dxe, u, as->dedof, dst));
    }
#endif
  }
  PetscCall(PetscLogFlops((as->dim == 3 ? 120.0 : 50.0) * (PetscLogDouble)(jac ? as->nen * as->nen : as->nen) * as->nelem));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fused_LocalNZ(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  PetscFunctionBegin;
  PetscCall(LocalNZAssembly(as, jac ? &as->jac : &as->res, jac, u, dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on a distributed DM: everything through the element buffers */
static PetscBool MPI_Always(DMAssembly as)
{
  (void)as;
  return PETSC_TRUE;
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
  as->ops->reduce        = DMAsmReducePacked;
  as->ops->jacplan       = DMAsmJacPlanPacked;
  as->ops->jacplandevice = DMAsmJacPlanPackedDevice;
  as->ops->mpisupported  = MPI_Always;
  as->ops->view          = View_GlobalNZ;
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
   DMASSEMBLYLOCALNZ - "localnz" - one thread per nonzero recomputes each of its contributions from the element's
   inputs (Cecka, Lew, Darve, section 4.2.2); built-in kernels only.  Bitwise reproducible.

   Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMASSEMBLYGLOBALNZ`
M*/
PetscErrorCode DMAssemblyCreate_LocalNZ(DMAssembly as)
{
  PetscFunctionBegin;
  as->ops->reduce        = DMAsmReducePacked;
  as->ops->fusedactive   = DMAsmFusedActiveAlways;
  as->ops->fused         = Fused_LocalNZ;
  as->ops->setup         = SetUp_LocalNZ;
  as->ops->jacplan       = DMAsmJacPlanPacked;
  as->ops->jacplandevice = DMAsmJacPlanPackedDevice;
  as->ops->view          = View_LocalNZ;
  PetscFunctionReturn(PETSC_SUCCESS);
}
