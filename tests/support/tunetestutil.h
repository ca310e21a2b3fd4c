/* -mat_ellwarp_tune in the tests: the options database keeps one value per option, so a test that adds keys of
   its own to those of the command line appends them (TestTuneAppend), and a test that checks what a key did
   reads the key back (TestTuneGet, TestTuneGetBool).  Keys given twice: the last one counts, as in the library's parser. */
#pragma once
#include <petscsys.h>

/* -<pre>mat_ellwarp_tune <its value>,kv (pre: an options prefix or NULL) */
static inline PetscErrorCode TestTuneAppend(const char pre[], const char kv[])
{
  char      name[128], cur[1024] = "", val[1200];
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%smat_ellwarp_tune", pre ? pre : ""));
  PetscCall(PetscOptionsGetString(NULL, NULL, name, cur, sizeof(cur), &set));
  if (set && cur[0]) PetscCall(PetscSNPrintf(val, sizeof(val), "%s,%s", cur, kv));
  else PetscCall(PetscStrncpy(val, kv, sizeof(val)));
  PetscCall(PetscOptionsSetValue(NULL, name, val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the value of key in -mat_ellwarp_tune (the last one given); *set: it was given */
static inline PetscErrorCode TestTuneGet(const char key[], char val[], size_t sz, PetscBool *set)
{
  char      cur[1024] = "", *item, *save = NULL;
  PetscBool given;
  size_t    len;

  PetscFunctionBegin;
  *set = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_ellwarp_tune", cur, sizeof(cur), &given));
  if (!given) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrlen(key, &len));
  for (item = strtok_r(cur, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    PetscBool same;
    PetscCall(PetscStrncmp(item, key, len, &same));
    if (same && item[len] == '=') {
      PetscCall(PetscStrncpy(val, item + len + 1, sz));
      *set = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the boolean value of key in -mat_ellwarp_tune (the last one given), else *v unchanged */
static inline PetscErrorCode TestTuneGetBool(const char key[], PetscBool *v)
{
  char      val[64];
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(TestTuneGet(key, val, sizeof(val), &set));
  if (set) PetscCall(PetscOptionsStringToBool(val, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
