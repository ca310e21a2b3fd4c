/* Package registration: types, log events, citation.  Runs once, whether the library is loaded with
   -dll_append (PETSc calls PetscDLLibraryRegister_petscellwarp) or linked and initialised by the
   application. */
#include <petscellwarp/private/matellwarpimpl.h>
#include <petscellwarpassembly.h>
#include <petscellwarp/private/kspcgasyncimpl.h>

PETSC_EXTERN PetscErrorCode MatCreate_SeqELLWARP(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIELLWARP(Mat);
PETSC_EXTERN PetscErrorCode KSPCreate_CGAsync(KSP);

PetscLogEvent MAT_ELLWARP_Analysis, MAT_ELLWARP_Upload, MAT_ELLWARP_Refresh, MAT_ELLWARP_Download, MAT_ELLWARP_Mult, MAT_ELLWARP_MultT;
PetscLogEvent KSP_CGASYNC_Queue, KSP_CGASYNC_Wait; /* src/ksp/impls/cgasync */

static PetscBool   initialized = PETSC_FALSE;
static const char  citation[]  = "@article{WongKuhlDarve2015,\n"
                                 "  author  = {Jonathan Wong and Ellen Kuhl and Eric Darve},\n"
                                 "  title   = {A new sparse matrix vector multiplication graphics processing unit algorithm designed for finite element problems},\n"
                                 "  journal = {International Journal for Numerical Methods in Engineering},\n"
                                 "  volume  = {102},\n"
                                 "  pages   = {1784--1814},\n"
                                 "  year    = {2015}\n}\n";
static PetscBool   cited = PETSC_FALSE;

/*@C
  PetscEllwarpFinalizePackage - Marks the petsc-ellwarp package as finalized, so that a later
  `PetscEllwarpInitializePackage()` (after a new `PetscInitialize()`) registers it again

  Not Collective

  Level: developer

  Note:
  `PetscEllwarpInitializePackage()` registers it with `PetscRegisterFinalize()`; `PetscFinalize()` calls it.

.seealso: `PetscEllwarpInitializePackage()`, `PetscFinalize()`
@*/
PetscErrorCode PetscEllwarpFinalizePackage(void)
{
  PetscFunctionBegin;
  initialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscEllwarpInitializePackage - Registers the package: the matrix types `MATELLWARP` (`MATSEQELLWARP`,
  `MATMPIELLWARP`), their factorizations, log events and citation, the `DMAssembly` class and the Krylov
  method `KSPCGASYNC`

  Not Collective

  Level: beginner

  Note:
  Called by `PetscDLLibraryRegister_petscellwarp()` when the library is loaded with `-dll_append`; an
  application that links the library calls it after `PetscInitialize()`.  Calling it again does nothing.

.seealso: `PetscEllwarpFinalizePackage()`, `PetscDLLibraryRegister_petscellwarp()`, `DMAssemblyInitializePackage()`
@*/
PetscErrorCode PetscEllwarpInitializePackage(void)
{
  PetscClassId classid = MAT_CLASSID;

  PetscFunctionBegin;
  if (initialized) PetscFunctionReturn(PETSC_SUCCESS);
  initialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(MatRegister(MATSEQELLWARP, MatCreate_SeqELLWARP));
  PetscCall(MatRegister(MATMPIELLWARP, MatCreate_MPIELLWARP));
  PetscCall(MatRegisterRootName(MATELLWARP, MATSEQELLWARP, MATMPIELLWARP));
  /* the same type under PETSc's AIJ-family name (like aijcusparse): PETSc code that keeps a matrix type only when
     its name begins with "aij" (DMStag's interpolation, ConvertToAIJ) then keeps ours */
  PetscCall(MatRegisterRootName(MATAIJELLWARP, MATSEQELLWARP, MATMPIELLWARP));
  PetscCall(MatSeqELLWARPRegisterFactors());
  PetscCall(PetscLogEventRegister("EllwarpAnalysis", classid, &MAT_ELLWARP_Analysis));
  PetscCall(PetscLogEventRegister("EllwarpUpload", classid, &MAT_ELLWARP_Upload));
  PetscCall(PetscLogEventRegister("EllwarpRefresh", classid, &MAT_ELLWARP_Refresh));
  PetscCall(PetscLogEventRegister("EllwarpDownload", classid, &MAT_ELLWARP_Download));
  PetscCall(PetscLogEventRegister("EllwarpMult", classid, &MAT_ELLWARP_Mult));
  PetscCall(PetscLogEventRegister("EllwarpMultT", classid, &MAT_ELLWARP_MultT));
  PetscCall(PetscCitationsRegister(citation, &cited));
  PetscCall(DMAssemblyInitializePackage()); /* the DM assembler (src/dm/assembly) */
  PetscCall(KSPInitializePackage());
  PetscCall(KSPRegister(KSPCGASYNC, KSPCreate_CGAsync)); /* CG with its scalars on the device (src/ksp/impls/cgasync) */
  PetscCall(PetscLogEventRegister("CGAsyncQueue", KSP_CLASSID, &KSP_CGASYNC_Queue)); /* the host queueing a batch */
  PetscCall(PetscLogEventRegister("CGAsyncWait", KSP_CLASSID, &KSP_CGASYNC_Wait));   /* the host waiting for a state */
  PetscCall(PetscRegisterFinalize(PetscEllwarpFinalizePackage));
  PetscCall(PetscInfo(NULL, "petsc-ellwarp registered: MATELLWARP (%s)\n",
#if defined(ELLWARP_HAVE_CUDA)
                      "with CUDA"
#else
                      "host reference backend only"
#endif
                      ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscDLLibraryRegister_petscellwarp - The entry point PETSc's dynamic loader calls when the library is
  loaded with `-dll_append <path>/libpetscellwarp.so`; it calls `PetscEllwarpInitializePackage()`

  Not Collective

  Level: developer

  Note:
  With this, an unmodified PETSc program gets `-mat_type ellwarp` (and `-dm_mat_type ellwarp`) by loading the
  library at run time.

.seealso: `PetscEllwarpInitializePackage()`, `PetscDLLibraryAppend()`
@*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscellwarp(void)
{
  PetscFunctionBegin;
  PetscCall(PetscEllwarpInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
