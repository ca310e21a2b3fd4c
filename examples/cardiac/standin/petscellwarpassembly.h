/* STAND-IN for the project's DM GPU assembler (include/petscellwarpassembly.h of branch "assembly", issue 6):
   the same API (the subset the cardiac example uses), implemented in examples/cardiac/standin/ with
   PETSc's COO assembly: element matrices/vectors (host or device memory) go through
   MatSetPreallocationCOO/MatSetValuesCOO and VecSetPreallocationCOO/VecSetValuesCOO (MATSEQELLWARP writes
   device COO values straight into its layout).  Removed once the real assembler is merged. */
#pragma once

#include <petscdmplex.h>
#include <petscsnes.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _p_DMAssembly *DMAssembly;
typedef const char           *DMAssemblyType;
#define DMASSEMBLYGLOBALNZ "globalnz" /* stand-in: device gather + element kernel + COO reduction */
#define DMASSEMBLYHOST     "host"     /* host gather + element kernel + COO reduction */

typedef struct {
  PetscInt nen;
  PetscErrorCode (*residual)(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx);
  PetscErrorCode (*jacobian)(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx);
  void *ctx;
} DMAssemblyElementKernels;

PetscErrorCode DMAssemblyCreate(DM, DMAssembly *);
PetscErrorCode DMAssemblySetType(DMAssembly, DMAssemblyType);
PetscErrorCode DMAssemblyGetType(DMAssembly, DMAssemblyType *);
PetscErrorCode DMAssemblySetFromOptions(DMAssembly);
PetscErrorCode DMAssemblySetElementKernels(DMAssembly, const DMAssemblyElementKernels *);
PetscErrorCode DMAssemblySetAuxiliaryVec(DMAssembly, Vec);
PetscErrorCode DMAssemblySetUp(DMAssembly);
PetscErrorCode DMAssemblyComputeResidual(DMAssembly, Vec, Vec);
PetscErrorCode DMAssemblyComputeJacobian(DMAssembly, Vec, Mat);
PetscErrorCode DMAssemblySetSNES(DMAssembly, SNES);
PetscErrorCode DMAssemblyGetMemType(DMAssembly, PetscMemType *);
PetscErrorCode DMAssemblyView(DMAssembly, PetscViewer);
PetscErrorCode DMAssemblyDestroy(DMAssembly *);

/* device helpers of the stand-in (assembly_standin.cu) */
PetscErrorCode StandinDeviceMalloc(void **, size_t);
PetscErrorCode StandinDeviceFree(void *);
PetscErrorCode StandinDeviceUpload(void *, const void *, size_t);
PetscErrorCode StandinDeviceGather(PetscCount, const PetscInt *, const PetscScalar *, PetscScalar *);

#if defined(__cplusplus)
}
#endif
