/* The SpMV benchmark suite (issue 3): names, generators, selection by kind/name, scaling. */
#pragma once

#include <petscmat.h>

#define SUITE_MAX_ENTRIES 64

typedef struct {
  char name[64];  /* e.g. lv_struct_p1 */
  char kind[16];  /* fe, irregular, regular, mm */
  char desc[160]; /* how it is generated */
  int  id;        /* generator */
  /* generator parameters */
  PetscInt  ip[4];
  PetscReal rp[4];
  char      file[PETSC_MAX_PATH_LEN];
} SuiteEntry;

/* Reads the options -suite <all|fe,irregular,regular,mm> -matrices <name,...> -scale <s> -mm <file,...>
   -lv_msh <file> -lv_rcm <bool> and returns the selected entries (not yet built). */
PetscErrorCode SuiteGetEntries(PetscInt *n, SuiteEntry entries[]);
/* Builds the matrix of one entry as MATSEQAIJ (the gmsh LV meshes are cached between calls). */
PetscErrorCode SuiteBuildMatrix(const SuiteEntry *e, Mat *A);
/* Frees cached meshes. */
PetscErrorCode SuiteFinalize(void);
/* Row-length statistics of a SeqAIJ matrix. */
PetscErrorCode SuiteRowStats(Mat A, PetscInt *minlen, PetscInt *maxlen, PetscReal *mean, PetscReal *stddev);
