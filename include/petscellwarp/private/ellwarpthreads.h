/* Host threads for the set-up loops over a mesh (the element map of DMAssembly, the vertex graph and the rule
   fibres of examples/lvmesh): one helper that splits [0, n) into contiguous ranges, one per thread, runs them and
   joins.  PETSc is not built thread-safe, so a range worker makes no PETSc call (no PetscCall, PetscMalloc, ...):
   it reads and writes the caller's arrays and returns 0, or a PETSc error code on failure (PETSC_ERR_MEM when its
   own malloc failed, ...), which PetscEllwarpThreadsRun raises with the range that failed.
   The functions are PETSC_EXTERN although the header is private: the mesh library (examples/lvmesh) uses them. */
#pragma once

#include <petscsys.h>

/* work on items [begin, end) of the loop, as range number `range` of the split (0 .. nthreads - 1); returns 0 or a
   PetscErrorCode */
typedef int (*PetscEllwarpRangeWork)(void *ctx, PetscInt range, PetscCount begin, PetscCount end);

/* the threads a loop over n items gets: `requested` if positive, else the CPUs this process may run on (its
   affinity mask, so that ranks bound to cores under mpiexec do not oversubscribe them); at most 64, and at most
   one per `grain` items (small meshes: one thread, no spawn) */
PETSC_EXTERN PetscErrorCode PetscEllwarpThreadsGetCount(PetscInt requested, PetscCount n, PetscCount grain, PetscInt *nthreads);
/* work over [0, n) on nthreads threads (the calling thread runs range 0): contiguous ranges of n/nthreads items,
   range t = [n t / nthreads, n (t+1) / nthreads) */
PETSC_EXTERN PetscErrorCode PetscEllwarpThreadsRun(PetscInt nthreads, PetscCount n, PetscEllwarpRangeWork work, void *ctx);
