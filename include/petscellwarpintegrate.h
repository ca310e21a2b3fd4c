/* Element numerical integration for first-order elements (issue 20; Banas, Kruzel, Bielanski): the QSS/SQS/SSQ loop
   orders on P1 tetrahedra (geo_linear) and P1 prisms (geo_generic), Poisson and convection-diffusion-reaction with a
   constant-per-element coefficient set, on the host (C + OpenMP) and on the device (CUDA), from one source of the
   loop bodies (include/petscellwarp/private/dmasmintegrate.h).  See src/dm/assembly/README.md, "Element integration". */
#pragma once

#include <petscellwarpassembly.h>

/* MANSEC = DM */

typedef struct _n_DMAssemblyIntegration *DMAssemblyIntegration;

typedef enum {
  DMASSEMBLY_INTEGRATION_POISSON = 0, /* A = int grad w . grad u; b = int d0 w with d0 given at every integration point */
  DMASSEMBLY_INTEGRATION_CDR     = 1  /* A = int sum_{i,j=0..3} c^{i;j} w_{,i} u_{,j} (index 0: the value), b = int sum_i d^i w_{,i}; c, d constant per element */
} DMAssemblyIntegrationProblem;
PETSC_EXTERN const char *const DMAssemblyIntegrationProblems[];

typedef enum {
  DMASSEMBLY_INTEGRATION_QSS  = 0,
  DMASSEMBLY_INTEGRATION_SQS  = 1,
  DMASSEMBLY_INTEGRATION_SSQ  = 2,
  DMASSEMBLY_INTEGRATION_AUTO = 3 /* a one-time timed search on the first batch */
} DMAssemblyIntegrationVariant;
PETSC_EXTERN const char *const DMAssemblyIntegrationVariants[];

/* what the kernel writes: A^e and b^e (the paper's output), A^e only (Jacobian), or A^e u^e - b^e (residual) */
typedef enum {
  DMASSEMBLY_INTEGRATION_OUT_AB  = 0,
  DMASSEMBLY_INTEGRATION_OUT_JAC = 1,
  DMASSEMBLY_INTEGRATION_OUT_RES = 2
} DMAssemblyIntegrationOutput;

PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationCreate(PetscFE, DMAssemblyIntegrationProblem, DMAssemblyIntegration *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationSetFromOptions(DMAssemblyIntegration, const char[]);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationSetVariant(DMAssemblyIntegration, DMAssemblyIntegrationVariant, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetVariant(DMAssemblyIntegration, DMAssemblyIntegrationVariant *, PetscInt *, PetscInt *);
PETSC_EXTERN const char *const DMAssemblyIntegrationHostISAs[]; /* "base", "avx2", "avx512" (index = the isa argument) */
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationSetHost(DMAssemblyIntegration, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetHost(DMAssemblyIntegration, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetHostChunk(DMAssemblyIntegration, PetscInt *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationHostISASupported(PetscInt, PetscBool *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationRooflineHost(PetscInt, PetscInt, PetscReal *, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetSizes(DMAssemblyIntegration, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetQuadrature(DMAssemblyIntegration, PetscQuadrature *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationGetCounts(DMAssemblyIntegration, DMAssemblyIntegrationVariant, PetscLogDouble *, PetscLogDouble *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationApply(DMAssemblyIntegration, PetscMemType, DMAssemblyIntegrationOutput, PetscInt, const PetscReal[], const PetscReal[], PetscInt, const PetscScalar[], PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationTune(DMAssemblyIntegration, PetscMemType, DMAssemblyIntegrationOutput, PetscInt, const PetscReal[], const PetscReal[], PetscInt, const PetscScalar[], PetscScalar[], PetscScalar[]);
/* the machine's own bound: measured copy bandwidth (bytes/s) and FMA throughput (flop/s), host (OpenMP) or device */
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationRoofline(PetscMemType, PetscInt, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationView(DMAssemblyIntegration, PetscViewer);
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationDestroy(DMAssemblyIntegration *);

/* the integration as the element kernels of a DMAssembly: coef cell-major [nelem][ncoef] (host; copied), in the
   DM's cell order; Poisson: the source at the integration points of DMAssemblyIntegrationGetQuadrature() */
PETSC_EXTERN PetscErrorCode DMAssemblyIntegrationKernels(DMAssembly, DMAssemblyIntegrationProblem, const PetscReal[], DMAssemblyElementKernels *);
