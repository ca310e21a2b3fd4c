/* A developer option of the form key=value[,key=value...] (-dm_assembly_tune, -mat_ellwarp_tune): knobs for
   testing and tuning that never change a default, kept out of the options an application sees.  One parser
   (src/sys/options/tunelist.c) for every such option: an object lists its keys in a table, parses the option's
   string once, then reads each key where it is used with PetscEllwarpTuneListGet*() (a key not given leaves the
   value unchanged).  An unknown key, a key without a value, or a value out of range is an error that names the
   option and the valid keys. */
#pragma once

#include <petscsys.h>

typedef struct {
  const char *key;   /* the name before '=' */
  const char *owner; /* the type that reads it (NULL: the generic code), for messages and -help */
  const char *help;
} PetscEllwarpTuneKey;

#define PETSC_ELLWARP_TUNE_MAX 24
typedef struct {
  const char                *option; /* the option's name, e.g. "-dm_assembly_tune", for messages */
  const PetscEllwarpTuneKey *keys;   /* the valid keys (a static table) */
  size_t                     nkeys;
  MPI_Comm                   comm; /* errors */
  PetscInt                   n;
  char                       key[PETSC_ELLWARP_TUNE_MAX][32], val[PETSC_ELLWARP_TUNE_MAX][64];
  PetscBool                  used[PETSC_ELLWARP_TUNE_MAX]; /* read since the parse or the last PetscEllwarpTuneListResetUsed() */
} PetscEllwarpTuneList;

PETSC_INTERN PetscErrorCode PetscEllwarpTuneListParse(MPI_Comm, const char[], const PetscEllwarpTuneKey[], size_t, const char[], PetscEllwarpTuneList *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListGetInt(PetscEllwarpTuneList *, const char[], PetscInt, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListGetReal(PetscEllwarpTuneList *, const char[], PetscReal, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListGetBool(PetscEllwarpTuneList *, const char[], PetscBool *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListGetEList(PetscEllwarpTuneList *, const char[], const char *const[], PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListResetUsed(PetscEllwarpTuneList *);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListUnused(const PetscEllwarpTuneList *, char[], size_t);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListPrintHelp(PetscOptionItems, const char[], const PetscEllwarpTuneKey[], size_t);
PETSC_INTERN PetscErrorCode PetscEllwarpTuneListView(const PetscEllwarpTuneList *, const char[], PetscViewer);
