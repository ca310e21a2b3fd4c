/* A PETSc binary matrix and ELLWARP's scalar layout of it from the host analysis with the default choice: what the
   host-only layout tools of this directory (index_stats, layout_dump) start from. */
#pragma once

#include <petscmat.h>
#include <petscellwarp/private/ellwarplayout.h>

typedef struct {
  Mat             A; /* the matrix as SeqAIJ */
  PetscInt        m, n;
  const PetscInt *ai, *aj; /* its CSR pattern (MatGetRowIJ) */
  EllwarpLayout  *L;
} HostLayout;

PetscErrorCode HostLayoutLoad(const char[], HostLayout *);
PetscErrorCode HostLayoutDestroy(HostLayout *);
