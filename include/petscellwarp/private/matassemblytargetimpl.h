/* Implementations of MatGetAssemblyTarget() (include/petscellwarp.h): the state counter they draw from. */
#pragma once

#include <petscellwarp.h>

/* a state no map has had yet: implementations whose own counters are per matrix (a layout rebuilt at the same
   nonzero state) take one each time their map changes, so a state never names two different maps */
PETSC_INTERN PetscObjectState MatAssemblyTargetNewState(void);
