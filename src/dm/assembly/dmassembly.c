/* DMAssembly: the object (class, type, options, set-up, view, destroy).  The work is in dmasmplan.c
   (set-up), dmasmcompute.c (assembly), dmasmhost.c / dmasmcuda.cu (kernels), dmasmsnes.c (SNES). */
#include <petscellwarp/private/dmassemblyimpl.h>

PetscClassId  DMASSEMBLY_CLASSID;
PetscLogEvent DMASSEMBLY_SetUp, DMASSEMBLY_Plan, DMASSEMBLY_Gather, DMASSEMBLY_Element, DMASSEMBLY_Reduce;
PetscLogEvent DMASSEMBLY_ElementMap, DMASSEMBLY_Pattern, DMASSEMBLY_Color, DMASSEMBLY_ResPlan, DMASSEMBLY_Buffers, DMASSEMBLY_Ordering;

PetscFunctionList DMAssemblyList = NULL;

static PetscBool pkginit = PETSC_FALSE, registerallcalled = PETSC_FALSE;

static PetscErrorCode DMAssemblyFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&DMAssemblyList));
  pkginit           = PETSC_FALSE;
  registerallcalled = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyRegister - Adds a `DMAssembly` type (an assembly method)

  Not Collective, No Fortran Support

  Input Parameters:
+ name   - the name of the type, for `DMAssemblySetType()` and `-dm_assembly_type`
- create - the constructor: fills the assembler's operations (include/petscellwarp/private/dmassemblyimpl.h)

  Level: advanced

.seealso: `DMAssembly`, `DMAssemblyRegisterAll()`, `DMAssemblySetType()`
@*/
PetscErrorCode DMAssemblyRegister(const char name[], PetscErrorCode (*create)(DMAssembly))
{
  PetscFunctionBegin;
  PetscCall(DMAssemblyInitializePackage());
  PetscCall(PetscFunctionListAdd(&DMAssemblyList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyRegisterAll - Registers the built-in `DMAssembly` types: `DMASSEMBLYGLOBALNZ`, `DMASSEMBLYHOST`,
  `DMASSEMBLYATOMIC`, `DMASSEMBLYCOLOR`, `DMASSEMBLYSHAREDNZ`, `DMASSEMBLYLOCALNZ`, `DMASSEMBLYLOCALROW`

  Not Collective

  Level: advanced

.seealso: `DMAssembly`, `DMAssemblyRegister()`
@*/
PetscErrorCode DMAssemblyRegisterAll(void)
{
  PetscFunctionBegin;
  if (registerallcalled) PetscFunctionReturn(PETSC_SUCCESS);
  registerallcalled = PETSC_TRUE;
  PetscCall(DMAssemblyRegister(DMASSEMBLYGLOBALNZ, DMAssemblyCreate_GlobalNZ));
  PetscCall(DMAssemblyRegister(DMASSEMBLYHOST, DMAssemblyCreate_Host));
  PetscCall(DMAssemblyRegister(DMASSEMBLYATOMIC, DMAssemblyCreate_Atomic));
  PetscCall(DMAssemblyRegister(DMASSEMBLYCOLOR, DMAssemblyCreate_Color));
  PetscCall(DMAssemblyRegister(DMASSEMBLYSHAREDNZ, DMAssemblyCreate_SharedNZ));
  PetscCall(DMAssemblyRegister(DMASSEMBLYLOCALNZ, DMAssemblyCreate_LocalNZ));
  PetscCall(DMAssemblyRegister(DMASSEMBLYLOCALROW, DMAssemblyCreate_LocalRow));
  PetscCall(DMAssemblyRegister(DMASSEMBLYKIRAN, DMAssemblyCreate_Kiran));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyInitializePackage - Registers the `DMAssembly` class and its log events

  Not Collective

  Level: developer

  Note:
  Called by `PetscEllwarpInitializePackage()` and by `DMAssemblyCreate()`; calling it again does nothing.

.seealso: `DMAssembly`, `DMAssemblyCreate()`, `PetscEllwarpInitializePackage()`
@*/
PetscErrorCode DMAssemblyInitializePackage(void)
{
  PetscFunctionBegin;
  if (pkginit) PetscFunctionReturn(PETSC_SUCCESS);
  pkginit = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("DM Assembly", &DMASSEMBLY_CLASSID));
  PetscCall(PetscLogEventRegister("DMAsmSetUp", DMASSEMBLY_CLASSID, &DMASSEMBLY_SetUp));
  PetscCall(PetscLogEventRegister("DMAsmPlan", DMASSEMBLY_CLASSID, &DMASSEMBLY_Plan));
  PetscCall(PetscLogEventRegister("DMAsmElementMap", DMASSEMBLY_CLASSID, &DMASSEMBLY_ElementMap));
  PetscCall(PetscLogEventRegister("DMAsmPattern", DMASSEMBLY_CLASSID, &DMASSEMBLY_Pattern));
  PetscCall(PetscLogEventRegister("DMAsmColor", DMASSEMBLY_CLASSID, &DMASSEMBLY_Color));
  PetscCall(PetscLogEventRegister("DMAsmResPlan", DMASSEMBLY_CLASSID, &DMASSEMBLY_ResPlan));
  PetscCall(PetscLogEventRegister("DMAsmBuffers", DMASSEMBLY_CLASSID, &DMASSEMBLY_Buffers));
  PetscCall(PetscLogEventRegister("DMAsmOrdering", DMASSEMBLY_CLASSID, &DMASSEMBLY_Ordering));
  PetscCall(PetscLogEventRegister("DMAsmGather", DMASSEMBLY_CLASSID, &DMASSEMBLY_Gather));
  PetscCall(PetscLogEventRegister("DMAsmElement", DMASSEMBLY_CLASSID, &DMASSEMBLY_Element));
  PetscCall(PetscLogEventRegister("DMAsmReduce", DMASSEMBLY_CLASSID, &DMASSEMBLY_Reduce));
  PetscCall(PetscRegisterFinalize(DMAssemblyFinalizePackage));
  PetscCall(DMAssemblyRegisterAll());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyCreate - Creates the finite-element assembler of a `DMPLEX` with one scalar Lagrange `PetscFE`
  field: it computes residuals and Jacobians on the GPU (or on the host) and writes the Jacobian straight
  into the target matrix's own storage

  Collective

  Input Parameter:
. dm - the mesh with its discretization (`DMCreateDS()` done)

  Output Parameter:
. as - the assembler, of type `DMASSEMBLYGLOBALNZ`

  Level: beginner

  Note:
  Then `DMAssemblySetElementKernels()`, optionally `DMAssemblySetType()`/`DMAssemblySetFromOptions()`,
  `DMAssemblySetUp()`, and `DMAssemblyComputeResidual()`/`DMAssemblyComputeJacobian()` or `DMAssemblySetSNES()`.

.seealso: `DMAssembly`, `DMAssemblyDestroy()`, `DMAssemblySetType()`, `DMAssemblySetElementKernels()`, `DMAssemblySetUp()`
@*/
PetscErrorCode DMAssemblyCreate(DM dm, DMAssembly *as)
{
  DMAssembly a;
  PetscBool  isplex;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscAssertPointer(as, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "DMAssembly needs a DMPLEX, got %s", ((PetscObject)dm)->type_name);
  PetscCall(DMAssemblyInitializePackage());
  PetscCall(PetscHeaderCreate(a, DMASSEMBLY_CLASSID, "DMAssembly", "DM finite-element assembler", "DM", PetscObjectComm((PetscObject)dm), DMAssemblyDestroy, DMAssemblyView));
  PetscCall(PetscObjectReference((PetscObject)dm));
  a->dm     = dm;
  a->nzpt     = 0; /* chosen per plan from the list lengths unless tune nz_per_thread is given */
  a->reorder  = PETSC_TRUE;
  a->mtype    = PETSC_MEMTYPE_HOST;
  a->jacstate = PETSC_TRUE;
  PetscCall(DMAssemblySetType(a, DMASSEMBLYGLOBALNZ));
  *as = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetType - Chooses the assembly method

  Logically Collective

  Input Parameters:
+ as   - the assembler
- type - `DMASSEMBLYGLOBALNZ` (default), `DMASSEMBLYHOST`, `DMASSEMBLYATOMIC`, `DMASSEMBLYCOLOR`, `DMASSEMBLYSHAREDNZ`,
         `DMASSEMBLYLOCALNZ`, `DMASSEMBLYLOCALROW`, or a type added with `DMAssemblyRegister()`

  Options Database Key:
. -dm_assembly_type <type> - the method

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblyGetType()`, `DMAssemblySetFromOptions()`, `DMAssemblyCreate()`, `DMAssemblyRegister()`
@*/
PetscErrorCode DMAssemblySetType(DMAssembly as, DMAssemblyType type)
{
  PetscErrorCode (*create)(DMAssembly);
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)as, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMAssemblyRegisterAll());
  PetscCall(PetscFunctionListFind(DMAssemblyList, type, &create));
  PetscCheck(create, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown DMAssembly type %s (globalnz, sharednz, localnz, localrow, atomic, color, host, or one added with DMAssemblyRegister())", type);
  PetscCheck(!as->setupcalled, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssemblySetType() after DMAssemblySetUp()");
  PetscTryTypeMethod(as, destroy); /* the previous type's data */
  as->data = NULL;
  PetscCall(PetscMemzero(as->ops, sizeof(*as->ops)));
  as->hostonly = PETSC_FALSE;
  PetscCall((*create)(as));
  PetscCall(PetscObjectChangeTypeName((PetscObject)as, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyGetType - Gets the assembly method

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameter:
. type - the method, e.g. `DMASSEMBLYGLOBALNZ`

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetType()`
@*/
PetscErrorCode DMAssemblyGetType(DMAssembly as, DMAssemblyType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(type, 2);
  *type = ((PetscObject)as)->type_name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dm_assembly_tune: every key, the type that reads it ("any type": the generic code) and what it does.  Knobs for
   testing and tuning that never change a default; DMAssemblySetFromOptions() rejects any other key. */
static const PetscEllwarpTuneKey TuneKeys[] = {
  {"nz_per_thread",  "any type",         "targets per thread of a packed reduction block, 1..64 (default: chosen per plan, about 32 entries per thread)"},
  {"index64",        "any type",         "64-bit plan entries even where 32 bits fit (tests the 64-bit path)"                                         },
  {"color_tail",     DMASSEMBLYCOLOR,    "colours with fewer elements go through one packed reduction, run first (default 8192)"                      },
  {"atomic_variant", DMASSEMBLYATOMIC,   "fused P1 Jacobian: match (default) or full (the full-map kernel)"                                           },
  {"atomic_maxcode", DMASSEMBLYATOMIC,   "largest entry code of the compact map, 0..254 (smaller makes more elements irregular)"                     },
  {"atomic_stats",   DMASSEMBLYATOMIC,   "address statistics of the compact map in DMAssemblyView() (they triple the plan's set-up)"                 },
  {"metis_seed",     DMASSEMBLYSHAREDNZ, "METIS partition: METIS's random seed (default 1)"                                                           },
  {"metis_lanes",    DMASSEMBLYSHAREDNZ, "METIS partition into ELLWARP: lanes of a slice per unit, 4, 8, 16 (default) or 32"                           },
  {"metis_csr_min",  DMASSEMBLYSHAREDNZ, "METIS partition into CSR: a unit takes rows until it holds this many values (default 1)"                    },
  {"metis_fill",     DMASSEMBLYSHAREDNZ, "METIS partition: a part's element rows as a fraction of the budget, 0..4 (default 0: estimated)"            },
};

/* the types read their keys through these (the parser is shared with -mat_ellwarp_tune: src/sys/options/tunelist.c) */
PetscErrorCode DMAsmTuneGetInt(DMAssembly as, const char key[], PetscInt lo, PetscInt hi, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpTuneListGetInt(&as->tune, key, lo, hi, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmTuneGetReal(DMAssembly as, const char key[], PetscReal lo, PetscReal hi, PetscReal *v)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpTuneListGetReal(&as->tune, key, lo, hi, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmTuneGetBool(DMAssembly as, const char key[], PetscBool *v)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpTuneListGetBool(&as->tune, key, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmTuneGetEList(DMAssembly as, const char key[], const char *const names[], PetscInt n, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpTuneListGetEList(&as->tune, key, names, n, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetFromOptions - Sets the assembler's method and parameters from the options database

  Collective

  Input Parameter:
. as - the assembler

  Options Database Keys:
+ -dm_assembly_type <globalnz,sharednz,localnz,localrow,atomic,color,host> - the method
. -dm_assembly_reorder <bool>    - built-in kernels: number the elements by their lowest dof (default true)
. -dm_assembly_ordering <none,rcm,ellwarp> - a locality numbering of the DM's dofs, applied here (`DMAssemblySetLocalityOrdering()`)
. -dm_assembly_tune key=value[,key=value...] - developer knobs that never change a default (testing, tuning): `nz_per_thread`,
                                   `index64`, and the types' keys (`color_tail`; `atomic_variant`, `atomic_maxcode`, `atomic_stats`;
                                   `metis_seed`, `metis_lanes`, `metis_csr_min`, `metis_fill`); an unknown key is an error that lists them
- -dm_assembly_view              - view the assembler at set-up

  Level: beginner

  Notes:
  The type's own options are read here too, by the type set at the time (`DMASSEMBLYSHAREDNZ`: `-dm_assembly_sharednz_smem`,
  `-dm_assembly_shared_partition`; `DMASSEMBLYATOMIC` and `DMASSEMBLYCOLOR`: `-dm_assembly_fuse`): call `DMAssemblySetType()`
  first, or give `-dm_assembly_type`.  A later `DMAssemblySetType()` to another type starts that type from its defaults.

  `-dm_assembly_tune` keys of a type that is not the one set are not read: `DMAssemblyView()` and `-info` list them.

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMAssemblyView()`
@*/
PetscErrorCode DMAssemblySetFromOptions(DMAssembly as)
{
  char      type[64], tune[PETSC_MAX_PATH_LEN];
  PetscBool flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)as);
  PetscCall(PetscOptionsFList("-dm_assembly_type", "Assembly method", "DMAssemblySetType", DMAssemblyList, ((PetscObject)as)->type_name, type, sizeof(type), &flg));
  if (flg) PetscCall(DMAssemblySetType(as, type));
  PetscCall(PetscOptionsBool("-dm_assembly_setup_on_host", "Build the pattern and the packed plans on the host even when the method runs on the device (the device builds them with CUB sorts; it needs about 24 bytes of temporary device memory per element-matrix entry)", "DMAssemblySetUp", as->setuphost, &as->setuphost, NULL));
  PetscCall(PetscOptionsBool("-dm_assembly_reorder", "Built-in kernels: number the elements by their lowest dof (the matrix row order)", "DMAssembly", as->reorder, &as->reorder, NULL));
  {
    PetscEnum ord = (PetscEnum)as->ordering;
    PetscCall(PetscOptionsEnum("-dm_assembly_ordering", "Locality numbering of the DM's dofs, given to the DM now (before its vectors and matrices): none, rcm, ellwarp (rcm, then MATELLWARP's row order)", "DMAssemblySetLocalityOrdering", DMAssemblyOrderings, ord, &ord, &flg));
    if (flg) PetscCall(DMAssemblySetLocalityOrdering(as, (DMAssemblyOrdering)ord));
  }
  PetscCall(PetscOptionsString("-dm_assembly_tune", "Developer knobs that never change a default: key=value[,key=value...] (an unknown key lists them)", "DMAssemblySetFromOptions", "", tune, sizeof(tune), &flg));
  if (flg) PetscCall(PetscEllwarpTuneListParse(PetscObjectComm((PetscObject)as), "-dm_assembly_tune", TuneKeys, PETSC_STATIC_ARRAY_LENGTH(TuneKeys), tune, &as->tune));
  PetscCall(PetscEllwarpTuneListPrintHelp(PetscOptionsObject, "-dm_assembly_tune", TuneKeys, PETSC_STATIC_ARRAY_LENGTH(TuneKeys)));
  PetscCall(PetscEllwarpTuneListResetUsed(&as->tune)); /* read again below, by this type */
  PetscCall(DMAsmTuneGetInt(as, "nz_per_thread", 0, 64, &as->nzpt));
  PetscCall(DMAsmTuneGetBool(as, "index64", &as->force64));
  PetscTryTypeMethod(as, setfromoptions, PetscOptionsObject);
  PetscOptionsEnd();
  if (as->tune.n) {
    char unused[512];
    PetscCall(PetscEllwarpTuneListUnused(&as->tune, unused, sizeof(unused)));
    if (unused[0]) PetscCall(PetscInfo(as, "-dm_assembly_tune: %s not read by type %s (keys of another type)\n", unused, ((PetscObject)as)->type_name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblySetElementKernels - Gives the assembler the element residual and Jacobian callbacks

  Logically Collective

  Input Parameters:
+ as - the assembler
- k  - the batched element kernels (copied): nodes per element, residual and Jacobian functions, their context

  Level: beginner

  Note:
  The callbacks are batched: each call computes `nelem` elements whose inputs the assembler gathered in
  entry-major arrays (`array[k*nelem + e]`), on the device (`PETSC_MEMTYPE_DEVICE`: launch a CUDA kernel) or on
  the host; see `DMAssemblyElementKernels`.  `DMAssemblyP1DiffusionMassKernels()` and `DMAssemblyLagrangeKernels()`
  make built-in ones.

.seealso: `DMAssembly`, `DMAssemblyElementKernels`, `DMAssemblyP1DiffusionMassKernels()`, `DMAssemblyLagrangeKernels()`, `DMAssemblySetUp()`
@*/
PetscErrorCode DMAssemblySetElementKernels(DMAssembly as, const DMAssemblyElementKernels *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(k, 2);
  as->k    = *k;
  as->kset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetFuse - With the built-in kernels, makes the atomic and color methods compute each element inside
  their scatter kernel (no element data in memory)

  Logically Collective

  Input Parameters:
+ as  - the assembler
- flg - `PETSC_TRUE` (default) to fuse; `PETSC_FALSE` runs them through the element buffers like user kernels

  Options Database Key:
. -dm_assembly_fuse <bool> - the same

  Level: intermediate

  Note:
  A property of the types `DMASSEMBLYATOMIC` and `DMASSEMBLYCOLOR`: call it after `DMAssemblySetType()`; other types ignore it.

.seealso: `DMAssembly`, `DMAssemblyP1DiffusionMassKernels()`, `DMAssemblySetType()`
@*/
PetscErrorCode DMAssemblySetFuse(DMAssembly as, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidLogicalCollectiveBool(as, flg, 2);
  PetscTryMethod(as, "DMAssemblySetFuse_C", (DMAssembly, PetscBool), (as, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetJacobianUsesState - Declares whether the Jacobian element kernel reads the nodal values `ue` (and `ae`)

  Logically Collective

  Input Parameters:
+ as  - the assembler
- flg - `PETSC_TRUE` (default); `PETSC_FALSE` for a linear problem: nothing is gathered before the Jacobian
        kernel, which receives `ue` = `ae` = `NULL`

  Level: intermediate

  Note:
  The built-in kernels (`DMAssemblyP1DiffusionMassKernels()`, `DMAssemblyLagrangeKernels()`) set `PETSC_FALSE`.

.seealso: `DMAssembly`, `DMAssemblySetElementKernels()`, `DMAssemblyComputeJacobian()`
@*/
PetscErrorCode DMAssemblySetJacobianUsesState(DMAssembly as, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  as->jacstate = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetNodalState - Declares that the element kernels read the nodal values themselves, through the element
  -> dof map, instead of receiving them gathered per element in `ue` and `ae`

  Logically Collective

  Input Parameters:
+ as  - the assembler
- flg - `PETSC_TRUE`: the assembler gathers nothing, the callbacks receive `ue` = `ae` = `NULL` and call
        `DMAssemblyGetNodalState()` for the map and the arrays; `PETSC_FALSE` (default): the gathered buffers

  Level: intermediate

  Note:
  The gathered buffers cost, per element and vector, `nen` values written by the gather and read back by the
  element kernel; a kernel that reads the nodal arrays directly reads only its `nen` map entries (the nodal
  values are shared by neighbouring elements and mostly come from the cache).  The built-in kernels do not
  read the nodal state this way: `DMAssemblyP1DiffusionMassKernels()` and `DMAssemblyLagrangeKernels()` set
  `PETSC_FALSE`, so call this after them.

.seealso: `DMAssembly`, `DMAssemblyGetNodalState()`, `DMAssemblySetElementKernels()`, `DMAssemblySetJacobianUsesState()`
@*/
PetscErrorCode DMAssemblySetNodalState(DMAssembly as, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidLogicalCollectiveBool(as, flg, 2);
  as->nodal = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyGetNodalState - Inside an element callback of kernels declared with `DMAssemblySetNodalState()`, gives the
  element -> dof map and the nodal arrays the callback reads

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameters:
+ edof - the element -> dof map, entry-major: dof of node `a` of element `e` at `edof[a*nelem + e]`, in the memory the
         callback runs in (device memory for `PETSC_MEMTYPE_DEVICE`)
. u    - the solution's values, indexed by `edof` (the local, ghosted values on several processes)
- a    - the auxiliary vector's values (`DMAssemblySetAuxiliaryVec()`), or `NULL`: also `NULL` when the Jacobian kernel
         does not read the state (`DMAssemblySetJacobianUsesState()`)

  Level: intermediate

  Note:
  The arrays are valid during the callback only.  It is an error to call this outside such a callback.

.seealso: `DMAssembly`, `DMAssemblySetNodalState()`, `DMAssemblyElementKernels`
@*/
PetscErrorCode DMAssemblyGetNodalState(DMAssembly as, const PetscInt *edof[], const PetscScalar *u[], const PetscScalar *a[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCheck(as->nodalactive, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssemblyGetNodalState: only inside an element callback of kernels declared with DMAssemblySetNodalState()");
  if (edof) *edof = as->mtype == PETSC_MEMTYPE_DEVICE ? as->dedof : as->edof;
  if (u) *u = as->nodalu;
  if (a) *a = as->nodala;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetAuxiliaryVec - Sets a nodal field the element kernels receive as `ae`, gathered like the solution

  Logically Collective

  Input Parameters:
+ as - the assembler
- A  - a global vector of the assembler's `DM` (referenced), or `NULL` for none

  Level: intermediate

.seealso: `DMAssembly`, `DMAssemblySetElementKernels()`, `DMAssemblyElementKernels`
@*/
PetscErrorCode DMAssemblySetAuxiliaryVec(DMAssembly as, Vec A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  if (A) PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(VecDestroy(&as->aux));
  as->aux = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the gather, callbacks and reductions run */
static PetscErrorCode ChooseMemType(DMAssembly as)
{
  PetscBool dev = PETSC_FALSE;

  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAAvailable(&dev));
#endif
  as->nodevice = PETSC_FALSE;
  if (as->hostonly) as->mtype = PETSC_MEMTYPE_HOST;
  else if (dev) as->mtype = PETSC_MEMTYPE_DEVICE;
  else {
    as->mtype    = PETSC_MEMTYPE_HOST;
    as->nodevice = PETSC_TRUE;
    PetscCall(PetscInfo(as, "No CUDA device: method %s runs its plain-C reference on the host\n", ((PetscObject)as)->type_name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetUp - Builds, once per mesh, the element -> dof map, the pattern, the residual's reduction plan
  and what the type needs of its own (`DMASSEMBLYCOLOR`: the element colouring), and allocates the element
  buffers where the method runs

  Collective

  Input Parameter:
. as - the assembler, with its element kernels set

  Level: beginner

  Note:
  The Jacobian plan depends on the target matrix's storage and is built at the first `DMAssemblyComputeJacobian()`
  into it.  Called by the first compute if not called before.

.seealso: `DMAssembly`, `DMAssemblySetElementKernels()`, `DMAssemblyComputeJacobian()`, `DMAssemblyView()`
@*/
PetscErrorCode DMAssemblySetUp(DMAssembly as)
{
  PetscBool view;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  if (as->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(as->kset, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssembly: call DMAssemblySetElementKernels() before DMAssemblySetUp()");
  PetscCall(PetscLogEventBegin(DMASSEMBLY_SetUp, as, 0, 0, 0));
  PetscCall(ChooseMemType(as));
  PetscCall(DMAsmBuildMesh(as));
  PetscCheck(!(as->builtin && as->k.ctx == (void *)as->builtin) || as->p1, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_INCOMP, "DMAssembly: the built-in P1 kernels (DMAssemblyP1DiffusionMassKernels()) are for P1 triangles and tetrahedra, the mesh has %s: use DMAssemblyLagrangeKernels()", as->ename);
  if (((as->builtin && as->k.ctx == (void *)as->builtin) || (as->hobuiltin && as->k.ctx == (void *)as->hobuiltin)) && as->reorder) PetscCall(DMAsmReorderElements(as));
  PetscCheck(as->k.nen == as->nen, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_INCOMP, "DMAssembly: the element kernels are for %" PetscInt_FMT " nodes per element, the mesh has %" PetscInt_FMT, as->k.nen, as->nen);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_ResPlan, as, 0, 0, 0));
  if (as->mpi) PetscCall(DMAsmMPIBuildResidualPlan(as)); /* owned rows only */
  else if (DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
    const PetscCount ne = (PetscCount)as->nen * as->nelem;
    if (!as->dedof) { /* else uploaded by the device pattern */
      PetscCall(DMAsmCUDAMalloc((void **)&as->dedof, sizeof(PetscInt) * ne));
      PetscCall(DMAsmCUDAUpload(as->dedof, as->edof, sizeof(PetscInt) * ne));
    }
    PetscCall(DMAsmCUDABuildPlan(as->nen, as->nelem, as->ndof, as->dedof, as->nzpt, as->force64, &as->res)); /* device arrays only */
#endif
  } else PetscCall(DMAsmBuildPlan(as, as->nen, as->ndof, as->edof, &as->res));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_ResPlan, as, 0, 0, 0));
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Buffers, as, 0, 0, 0));
  PetscTryTypeMethod(as, setup);
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
#if defined(ELLWARP_HAVE_CUDA)
    const PetscCount ne = (PetscCount)as->nen * as->nelem;
    if (!as->res.dpacked) PetscCall(DMAsmPlanUpload(&as->res)); /* built on the host */
    PetscCall(DMAsmCUDAMalloc((void **)&as->fe, sizeof(PetscScalar) * ne)); /* ue, ae: at their first gather; ke: at its first use (dmasmcompute.c) */
    PetscCall(DMAsmCUDAMalloc((void **)&as->dxe, sizeof(PetscReal) * as->nvert * as->nelem * as->dim)); /* vertex coordinates (P1: nvert = nen) */
    PetscCall(DMAsmCUDAUpload(as->dxe, as->xe, sizeof(PetscReal) * as->nvert * as->nelem * as->dim));
    if (!as->dedof) {
      PetscCall(DMAsmCUDAMalloc((void **)&as->dedof, sizeof(PetscInt) * ne));
      PetscCall(DMAsmCUDAUpload(as->dedof, as->edof, sizeof(PetscInt) * ne));
    }
#endif
  } else {
    const PetscCount ne = (PetscCount)as->nen * as->nelem;
    PetscCall(PetscMalloc2(ne, &as->ue, ne, &as->fe)); /* ae: at its first gather; ke: at its first use */
    as->dxe   = as->xe;
    as->dedof = as->edof;
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Buffers, as, 0, 0, 0));
  as->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(DMASSEMBLY_SetUp, as, 0, 0, 0));
  PetscCall(PetscInfo(as, "Set up: %" PetscInt_FMT " elements, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros\n", as->nelem, as->ndof, as->nnz));
  PetscCall(PetscOptionsHasName(((PetscObject)as)->options, ((PetscObject)as)->prefix, "-dm_assembly_view", &view));
  if (view) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_(PetscObjectComm((PetscObject)as))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyCreateMatrix - Creates the Jacobian matrix of the assembler's DM from the pattern the assembler derived at
  set-up, without DMPlex's preallocation

  Collective

  Input Parameter:
. as - the assembler (set up here if it is not yet)

  Output Parameter:
. J - a matrix of the DM's matrix type (`DMSetMatType()`, `-dm_mat_type`), its pattern the element connectivity,
      its values zero, the DM's local-to-global mapping set

  Level: intermediate

  Notes:
  The pattern is the one `DMCreateMatrix()` gives a scalar P1/Lagrange field (every dof coupled to the dofs of the
  elements around it, the diagonal of every row), so either matrix can be assembled into.  The assembler built it once
  (on the device when its method runs there), so the matrix costs only its own insertion: for 6 M tetrahedra
  DMPlex's preallocation takes 10-15 s on the host, this a fraction of a second.

  The type must accept a CSR preallocation (`MatSeqAIJSetPreallocationCSR()`: AIJ, AIJCUSPARSE, ELLWARP and
  the other AIJ subtypes); other types are an error naming `DMCreateMatrix()`.  On several processes this calls
  `DMCreateMatrix()` (the distributed pattern is DMPlex's).

.seealso: `DMAssembly`, `DMAssemblySetUp()`, `DMAssemblyComputeJacobian()`, `DMCreateMatrix()`
@*/
PetscErrorCode DMAssemblyCreateMatrix(DMAssembly as, Mat *J)
{
  DM                     dm;
  MatType                mtype;
  ISLocalToGlobalMapping ltog;
  PetscErrorCode (*csr)(Mat, const PetscInt[], const PetscInt[], const PetscScalar[]) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(J, 2);
  PetscCall(DMAssemblySetUp(as));
  dm = as->dm;
  if (as->mpi) {
    PetscCall(PetscInfo(as, "Several processes: the matrix from DMCreateMatrix() (DMPlex's distributed pattern)\n"));
    PetscCall(DMCreateMatrix(dm, J));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMGetMatType(dm, &mtype));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), J));
  PetscCall(MatSetSizes(*J, as->ndof, as->ndof, as->ndof, as->ndof));
  PetscCall(MatSetType(*J, mtype));
  PetscCall(PetscObjectQueryFunction((PetscObject)*J, "MatSeqAIJSetPreallocationCSR_C", &csr));
  if (!csr) {
    const char *name;
    PetscCall(MatGetType(*J, &name));
    PetscCall(MatDestroy(J));
    SETERRQ(PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssemblyCreateMatrix: matrix type %s takes no CSR preallocation; use an AIJ type (aij, aijcusparse, ellwarp) or DMCreateMatrix()", name);
  }
  PetscCall(MatSetBlockSize(*J, as->ncomp > 1 ? as->ncomp : 1)); /* a vector field: its components are consecutive dofs */
  PetscCall(MatSetDM(*J, dm));
  PetscCall(DMGetLocalToGlobalMapping(dm, &ltog));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(MatSeqAIJSetPreallocationCSR(*J, as->pi, as->pj, NULL));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscInfo(as, "Matrix %s from the assembler's pattern: %" PetscInt_FMT " rows, %" PetscCount_FMT " nonzeros\n", mtype, as->ndof, as->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyGetMemType - Gets where the assembler's gather, element callbacks and reductions run

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameter:
. mtype - `PETSC_MEMTYPE_DEVICE` or `PETSC_MEMTYPE_HOST` (the `DMASSEMBLYHOST` method, or no usable CUDA device)

  Level: intermediate

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMAssemblyElementKernels`
@*/
PetscErrorCode DMAssemblyGetMemType(DMAssembly as, PetscMemType *mtype)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  if (!as->setupcalled) PetscCall(ChooseMemType(as));
  *mtype = as->mtype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyGetInfo - Gets the assembler's sizes and plan statistics

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameter:
. info - elements, nodes per element, dofs, pattern nonzeros, plan entries, assemblies so far (`DMAssemblyInfo`)

  Level: developer

.seealso: `DMAssembly`, `DMAssemblyInfo`, `DMAssemblyView()`
@*/
PetscErrorCode DMAssemblyGetInfo(DMAssembly as, DMAssemblyInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->nelem          = as->nelem;
  info->nen            = as->nen;
  info->dim            = as->dim;
  info->ndof           = as->ndof;
  info->nnz            = as->nnz;
  info->ncontrib       = (PetscCount)as->nen * as->nen * as->nelem;
  info->njacplans      = as->njacplans;
  info->nreductions    = as->nreductions;
  info->jacplanentries = as->jac.blkptr ? as->jac.blkptr[as->jac.nblocks] : 0;
  info->resplanentries = as->res.blkptr ? as->res.blkptr[as->res.nblocks] : 0;
  info->idx64          = as->jac.blkptr ? as->jac.idx64 : as->res.idx64;
  info->mtype          = as->mtype;
  PetscTryTypeMethod(as, getinfo, info); /* the type's own plans and colouring */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyGetElementDofs - Gets the element -> global dof map the assembler built at set-up

  Not Collective

  Input Parameter:
. as - the assembler, set up

  Output Parameters:
+ nelem - number of elements (or `NULL`)
. nen   - nodes per element (or `NULL`)
- edof  - the map, entry-major `edof[a*nelem + e]`, host memory owned by `as` (or `NULL`)

  Level: developer

.seealso: `DMAssembly`, `DMAssemblySetUp()`, `DMAssemblyGetColoring()`
@*/
PetscErrorCode DMAssemblyGetElementDofs(DMAssembly as, PetscInt *nelem, PetscInt *nen, const PetscInt **edof)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCheck(as->setupcalled, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call DMAssemblySetUp() first");
  if (nelem) *nelem = as->nelem;
  if (nen) *nen = as->nen;
  if (edof) *edof = as->edof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyGetColoring - Gets the element colouring a `DMASSEMBLYCOLOR` assembler built at set-up (no two elements
  of a colour share a node)

  Not Collective

  Input Parameter:
. as - the assembler, of type `DMASSEMBLYCOLOR`, set up (other types colour no elements: an error)

  Output Parameters:
+ ncolors - number of colours (or `NULL`)
. colptr  - colour c holds `colelem[colptr[c] .. colptr[c+1]-1]`, host memory owned by `as` (or `NULL`)
- colelem - the elements, colour by colour (or `NULL`)

  Level: developer

.seealso: `DMAssembly`, `DMAssemblySetUp()`, `DMAssemblyGetElementDofs()`, `DMASSEMBLYCOLOR`
@*/
PetscErrorCode DMAssemblyGetColoring(DMAssembly as, PetscInt *ncolors, const PetscInt **colptr, const PetscInt **colelem)
{
  PetscErrorCode (*f)(DMAssembly, PetscInt *, const PetscInt **, const PetscInt **);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCheck(as->setupcalled, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call DMAssemblySetUp() first");
  PetscCall(PetscObjectQueryFunction((PetscObject)as, "DMAssemblyGetColoring_C", &f));
  PetscCheck(f, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly type %s colours no elements: only DMASSEMBLYCOLOR does (its set-up)", ((PetscObject)as)->type_name);
  PetscCall((*f)(as, ncolors, colptr, colelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyGetElementCoordinates - Gets the gathered element vertex coordinates (host copy)

  Not Collective

  Input Parameter:
. as - the assembler, set up

  Output Parameter:
. xe - coordinates, entry-major `xe[(a*dim + d)*nelem + e]` for vertex a of element e, owned by `as`

  Level: developer

.seealso: `DMAssembly`, `DMAssemblySetUp()`, `DMAssemblyElementKernels`
@*/
PetscErrorCode DMAssemblyGetElementCoordinates(DMAssembly as, const PetscReal **xe)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCheck(as->setupcalled, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call DMAssemblySetUp() first");
  *xe = as->xe;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void PlanStats(const DMAsmPlan *P, PetscCount nsrcused, PetscLogDouble *bytes, PetscReal *fill)
{
  const PetscCount entries = P->blkptr ? P->blkptr[P->nblocks] : 0;
  *bytes                   = (PetscLogDouble)entries * (P->idx64 ? 8 : 4);
  *fill                    = entries ? (PetscReal)nsrcused / (PetscReal)entries : 0;
}

/*@
  DMAssemblyView - Prints the method, where it runs (and why), the mesh and plan sizes

  Collective

  Input Parameters:
+ as     - the assembler
- viewer - an ASCII viewer, or `NULL` for `PETSC_VIEWER_STDOUT_` of the assembler's communicator

  Options Database Key:
. -dm_assembly_view - view at set-up

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblyGetInfo()`, `DMAssemblySetFromOptions()`
@*/
PetscErrorCode DMAssemblyView(DMAssembly as, PetscViewer viewer)
{
  PetscBool isascii;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)as), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)as, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscTryTypeMethod(as, view, viewer);
  if (!as->setupcalled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "not set up\n"));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "runs on the %s%s\n", as->mtype == PETSC_MEMTYPE_DEVICE ? "device (CUDA)" : "host", as->nodevice ? " (no CUDA device usable: host reference path)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "mesh: %" PetscInt_FMT " %s, %" PetscInt_FMT " dofs, pattern %" PetscCount_FMT " nonzeros, %" PetscCount_FMT " element-matrix entries\n", as->nelem, as->ename, as->ndof, as->nnz, (PetscCount)as->nen * as->nen * as->nelem));
  if (as->mpi) PetscCall(DMAsmMPIView(as, viewer));
  if (as->bs > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "pattern: from the vertices (block size %" PetscInt_FMT ", %" PetscInt_FMT " vertex pairs an element); element-entry map: %s\n", as->bs, as->nvert * as->nvert, as->e2nz ? "built (this method's plans read it)" : "not built (no plan so far has read it)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "set-up: pattern and packed plans built on the %s\n", DMAsmSetUpOnDevice(as) ? "device (CUB sorts; -dm_assembly_setup_on_host: on the host)" : as->mtype == PETSC_MEMTYPE_DEVICE ? (as->mpi ? "host (distributed mesh)" : "host (-dm_assembly_setup_on_host)") : "host (the method runs there)"));
  PetscCall(DMAsmOrderingView(as, viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "element order: %s\n", as->eperm ? "by lowest dof (built-in kernels; -dm_assembly_reorder 0: mesh order)" : "the mesh's cell order"));
  {
    PetscLogDouble b;
    PetscReal      f;
    PlanStats(&as->res, (PetscCount)as->nen * as->nelem, &b, &f);
    PetscCall(PetscViewerASCIIPrintf(viewer, "residual plan: %" PetscInt_FMT " blocks of %d threads x %" PetscInt_FMT " dofs, %.4g MB (%s indices), %.1f%% sources\n", as->res.nblocks, DMASM_BLOCK, as->res.C, b / 1e6, as->res.idx64 ? "64-bit" : "32-bit", 100.0 * f));
    if (as->jac.blkptr) {
      PlanStats(&as->jac, (PetscCount)as->nen * as->nen * as->nelem, &b, &f);
      PetscCall(PetscViewerASCIIPrintf(viewer, "Jacobian plan: %s order, %" PetscCount_FMT " targets, %" PetscInt_FMT " blocks, %.4g MB (%s indices), %.1f%% sources; %" PetscInt_FMT " plan(s) built, %" PetscInt_FMT " assemblies\n", as->jac.slots ? "value-slot" : "CSR", as->jac.ntarget, as->jac.nblocks, b / 1e6, as->jac.idx64 ? "64-bit" : "32-bit", 100.0 * f, as->njacplans, as->nreductions));
    } else if (!(as->ops->hasjacplan && as->ops->hasjacplan(as))) PetscCall(PetscViewerASCIIPrintf(viewer, "Jacobian plan: built at the first DMAssemblyComputeJacobian()\n"));
  }
  if (as->tune.n) {
    char unused[512], suffix[640] = "";
    PetscCall(PetscEllwarpTuneListUnused(&as->tune, unused, sizeof(unused)));
    if (unused[0]) PetscCall(PetscSNPrintf(suffix, sizeof(suffix), " (NOT READ by type %s: %s)", ((PetscObject)as)->type_name, unused));
    PetscCall(PetscEllwarpTuneListView(&as->tune, suffix, viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyDestroy - Destroys an assembler: its plans, element buffers (host and device) and kernel context

  Collective

  Input Parameter:
. as - the assembler (set to `NULL`)

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblyCreate()`
@*/
PetscErrorCode DMAssemblyDestroy(DMAssembly *as)
{
  DMAssembly a;

  PetscFunctionBegin;
  if (!*as) PetscFunctionReturn(PETSC_SUCCESS);
  PetscValidHeaderSpecific(*as, DMASSEMBLY_CLASSID, 1);
  if (--((PetscObject)*as)->refct > 0) {
    *as = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  a = *as;
  if (a->ownctxdestroy) PetscCall((*a->ownctxdestroy)(&a->ownctx));
  if (a->mpi) PetscCall(DMAsmMPIDestroy(a));
  PetscTryTypeMethod(a, destroy); /* the type's own plans and data */
  PetscCall(DMAsmPlanDestroy(&a->jac));
  PetscCall(DMAsmPlanDestroy(&a->res));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAPhaseDestroy(a));
#endif
  PetscCall(PetscFree(a->eperm));
  if (a->setupcalled && a->mtype == PETSC_MEMTYPE_DEVICE) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmCUDAFree((void **)&a->ue));
    PetscCall(DMAsmCUDAFree((void **)&a->ae));
    PetscCall(DMAsmCUDAFree((void **)&a->fe));
    PetscCall(DMAsmCUDAFree((void **)&a->ke));
    PetscCall(DMAsmCUDAFree((void **)&a->dxe));
    PetscCall(DMAsmCUDAFree((void **)&a->dedof));
#endif
  } else {
    PetscCall(PetscFree2(a->ue, a->fe));
    PetscCall(PetscFree(a->ke));
    PetscCall(PetscFree(a->ae));
  }
  PetscCall(PetscFree2(a->edof, a->xe));
  PetscCall(PetscFree(a->pi));
  PetscCall(PetscFree(a->pj));
  PetscCall(PetscFree(a->e2nz));
  PetscCall(PetscFree(a->bpi));
  PetscCall(PetscFree(a->be2nz));
  PetscCall(VecDestroy(&a->aux));
  PetscCall(DMDestroy(&a->dm));
  PetscCall(PetscHeaderDestroy(as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetPhaseTiming - Records CUDA events at the phase boundaries of every device assembly (start, after
  the gather, after the element kernel, after the reduction/scatter), without host synchronization

  Logically Collective

  Input Parameters:
+ as  - the assembler
- flg - `PETSC_TRUE` to record

  Level: developer

  Note:
  `DMAssemblyGetPhaseTimes()` reads them.  Fused methods (atomic/color with built-in kernels, localrow, sharednz)
  have no separate gather or element phase: their whole time is in the third.

.seealso: `DMAssembly`, `DMAssemblyGetPhaseTimes()`
@*/
PetscErrorCode DMAssemblySetPhaseTiming(DMAssembly as, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  as->timephases = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyGetPhaseTimes - Gets the milliseconds of the last device assembly's phases; waits for it to finish

  Not Collective

  Input Parameter:
. as - the assembler

  Output Parameter:
. ms - gather, element, reduction (zeros on the host or without `DMAssemblySetPhaseTiming()`)

  Level: developer

.seealso: `DMAssembly`, `DMAssemblySetPhaseTiming()`
@*/
PetscErrorCode DMAssemblyGetPhaseTimes(DMAssembly as, PetscReal ms[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  ms[0] = ms[1] = ms[2] = 0;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->timephases && as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmCUDAPhaseTimes(as, ms));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
