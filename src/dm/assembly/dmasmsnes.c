/* SNES wiring: SNESSolve() on the DM computes residual and Jacobian through the assembler.  The vectors
   SNES creates from the DM (VECCUDA with -dm_vec_type cuda) go to the kernels as they are; the
   Jacobian's plan is built at the first Jacobian and reused for every later Newton step. */
#include <petscellwarp/private/dmassemblyimpl.h>

static PetscErrorCode SNESFunction_DMAssembly(SNES snes, Vec U, Vec F, void *ctx)
{
  PetscFunctionBegin;
  (void)snes;
  PetscCall(DMAssemblyComputeResidual((DMAssembly)ctx, U, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SNESJacobian_DMAssembly(SNES snes, Vec U, Mat J, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)snes;
  PetscCall(DMAssemblyComputeJacobian((DMAssembly)ctx, U, P));
  if (J != P) { /* e.g. -snes_mf_operator: J is matrix-free, P holds the assembled Jacobian */
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblySetSNES - Makes `SNESSolve()` compute residuals and Jacobians through the assembler

  Collective

  Input Parameters:
+ as   - the assembler
- snes - the solver; it gets the assembler's `DM` (matrices from `DMCreateMatrix()`, i.e. `-dm_mat_type`, vectors
         from `-dm_vec_type`)

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblyComputeResidual()`, `DMAssemblyComputeJacobian()`, `SNESSetFunction()`, `SNESSetJacobian()`
@*/
PetscErrorCode DMAssemblySetSNES(DMAssembly as, SNES snes)
{
  DM dm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscValidHeaderSpecific(snes, SNES_CLASSID, 2);
  PetscCall(SNESGetDM(snes, &dm));
  if (dm != as->dm) PetscCall(SNESSetDM(snes, as->dm));
  PetscCall(SNESSetFunction(snes, NULL, SNESFunction_DMAssembly, as));
  PetscCall(SNESSetJacobian(snes, NULL, NULL, SNESJacobian_DMAssembly, as));
  PetscFunctionReturn(PETSC_SUCCESS);
}
