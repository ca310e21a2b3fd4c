/* Cardiac electrophysiology example (issue 7): shared declarations. */
#pragma once

#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscellwarpassembly.h>
#include "cardiac_model.h"
#include "lvmesh.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* the element callbacks' context: model parameters and per-element data on the host and (CUDA) the device */
typedef struct {
  CardiacParams      p;
  PetscInt           nelem;
  CardiacElementData host, dev;
  PetscReal         *fib, *stim, *rn, *rnew;         /* host arrays (owned) */
  PetscReal         *d_fib, *d_stim, *d_rn, *d_rnew; /* device arrays (owned), CUDA path */
  PetscBool          device;
  DMAssembly         as;                             /* set: the kernels read the nodal state themselves (DMAssemblySetNodalState) */
  PetscLogDouble     t_res, t_jac;                   /* wall time in the callbacks' assembly (with sync) */
} CardiacCtx;

/* cardiac_kernels.c: the batched element callbacks of the DMAssembly API */
PetscErrorCode CardiacResidual(PetscMemType, PetscInt, PetscInt, const PetscReal *, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
PetscErrorCode CardiacJacobian(PetscMemType, PetscInt, PetscInt, const PetscReal *, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
PetscErrorCode CardiacCtxSetUp(CardiacCtx *, PetscBool device);  /* copies per-element data to the device */
PetscErrorCode CardiacCtxCommit(CardiacCtx *);                   /* r_n <- r_{n+1} after a converged step */
PetscErrorCode CardiacCtxGetR(CardiacCtx *, PetscReal *);        /* host copy of r_n */
PetscErrorCode CardiacCtxDestroy(CardiacCtx *);
PetscErrorCode CardiacUpdateActivation(Vec phiold, Vec phinew, Vec act, PetscReal t, PetscReal dt, PetscReal thr);
PetscErrorCode CardiacSync(PetscBool device);

#if defined(ELLWARP_HAVE_CUDA)
/* cardiac_kernels.cu */
PetscErrorCode CardiacElementsCUDA(const CardiacParams *, CardiacElementData, PetscInt, PetscInt, const PetscReal *, const PetscInt *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PetscErrorCode CardiacActivationCUDA(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal, PetscReal, PetscReal);
PetscErrorCode CardiacDeviceWarmUp(PetscBool begin);
PetscErrorCode CardiacDeviceMalloc(void **, size_t);
PetscErrorCode CardiacDeviceFree(void *);
PetscErrorCode CardiacDeviceCopy(void *, const void *, size_t, PetscBool todevice);
PetscErrorCode CardiacDeviceSync(void);
#endif

/* cardiac_mesh.c */
typedef struct {
  LVMesh    m;         /* vertices and tets (also kept for output) */
  PetscReal *fib;      /* [3][nt] fibre per tet */
  PetscReal *stim;     /* [nt] stimulus weight */
  PetscBool  slab;
  PetscReal  probe[2][3]; /* slab: the two points of the conduction-velocity measurement */
  char       fibres[PETSC_MAX_PATH_LEN + 256]; /* where the fibres came from (printed, for reports) */
  PetscBool  fibres_from_file;
} CardiacMesh;
PetscErrorCode CardiacMeshCreate(CardiacMesh *, PetscBool *help_done);
PetscErrorCode CardiacMeshToDMPlex(const CardiacMesh *, DM *);
PetscErrorCode CardiacMeshDestroy(CardiacMesh *);

/* cardiac_fibres.c: a 3-component fibre field of a gmsh file ($ElementData, $NodeData, $ElementNodeData) -> fib[3][nt]
   (unit vectors per tet); name NULL or "": any field whose name starts with "fib" */
PetscErrorCode CardiacFibresReadGmsh(const char file[], const LVMesh *, const PetscInt vtag[], const PetscInt ttag[], const char name[], PetscReal fib[], PetscBool *found, char desc[], size_t ldesc);
PetscBool      CardiacFibreNameMatches(const char field[], const char want[]);
PetscErrorCode CardiacFibreAverage(PetscInt k, const PetscReal *v, PetscReal f[3], PetscBool *ok);

/* cardiac_exodus.c: an ExodusII file through the exodusII library (any netCDF format): the 4-node tetrahedra of
   all element blocks, and (want_fibres) *fib[3][nt] from element variables, element attributes or nodal variables
   named for fibres (NULL when there are none); a build without the library: PETSC_ERR_SUP, saying so */
PetscErrorCode CardiacExodusRead(const char file[], LVMesh *, PetscBool want_fibres, const char name[], PetscReal **fib, char desc[], size_t ldesc);

/* cardiac_output.c */
PetscErrorCode CardiacWriteVTU(const char *file, const CardiacMesh *, const PetscScalar *phi, const PetscReal *r, const PetscScalar *act, PetscBool fibres);
PetscErrorCode CardiacWritePVD(const char *file, PetscInt n, const char *const *vtus, const PetscReal *times);
PetscErrorCode CardiacWriteActivationPNG(const char *file, const CardiacMesh *, const PetscScalar *act, PetscReal tmax);

/* cardiac_dist.c: several MPI processes (mesh made on rank 0, distributed with overlap 1; output gathered
   to rank 0 in the original numbering) */
typedef struct {
  PetscInt   nelem;       /* local cells (ghost layer included) */
  PetscInt   nownedcells; /* cells this rank owns */
  PetscReal *fib, *stim;  /* per local cell, migrated from rank 0's CardiacMesh: [3][nelem], [nelem] */
  PetscSF    vsf, csf;    /* owned dofs / owned cells -> original vertex / cell on rank 0 */
  PetscInt   nv, nt;      /* rank 0: the whole mesh's sizes (0 elsewhere) */
  PetscInt  *vorig;       /* original vertex of each local vertex */
} CardiacDist;
PetscErrorCode CardiacDistCreate(const CardiacMesh *, DM *, CardiacDist *);
PetscErrorCode CardiacDistSetUpVertices(CardiacDist *, DM); /* once the DM has its P1 field */
PetscErrorCode CardiacDistGatherVertices(CardiacDist *, Vec, PetscScalar *);
PetscErrorCode CardiacDistGatherCells(CardiacDist *, const PetscReal *, PetscReal *);
PetscErrorCode CardiacDistDestroy(CardiacDist *);

#if defined(__cplusplus)
}
#endif
