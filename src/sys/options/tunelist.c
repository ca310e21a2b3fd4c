/* The parser of the developer options key=value[,key=value...] (-dm_assembly_tune, -mat_ellwarp_tune):
   include/petscellwarp/private/tunelist.h. */
#include <petscellwarp/private/tunelist.h>
#include <petscviewer.h>

/* "key (owner), key, ..." of the valid keys: names only, PETSc cuts long error messages (-help gives the rest) */
static PetscErrorCode ValidKeys(const PetscEllwarpTuneKey keys[], size_t nkeys, char valid[], size_t sz)
{
  size_t len = 0;

  PetscFunctionBegin;
  valid[0] = 0;
  for (size_t k = 0; k < nkeys; k++) {
    if (keys[k].owner) PetscCall(PetscSNPrintf(valid + len, sz - len, "%s%s (%s)", k ? ", " : "", keys[k].key, keys[k].owner));
    else PetscCall(PetscSNPrintf(valid + len, sz - len, "%s%s", k ? ", " : "", keys[k].key));
    PetscCall(PetscStrlen(valid, &len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* str into T: an unknown key or a missing value is an error on comm that lists the keys of the table */
PetscErrorCode PetscEllwarpTuneListParse(MPI_Comm comm, const char option[], const PetscEllwarpTuneKey keys[], size_t nkeys, const char str[], PetscEllwarpTuneList *T)
{
  char *buf, *item, *save = NULL;

  PetscFunctionBegin;
  T->option = option;
  T->keys   = keys;
  T->nkeys  = nkeys;
  T->comm   = comm;
  T->n      = 0;
  PetscCall(PetscStrallocpy(str, &buf));
  for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char     *eq    = strchr(item, '=');
    PetscBool found = PETSC_FALSE;

    if (eq) *eq = 0;
    for (size_t k = 0; k < nkeys && !found; k++) PetscCall(PetscStrcmp(item, keys[k].key, &found));
    if (!found || !eq || !eq[1]) {
      char valid[1024];

      PetscCall(ValidKeys(keys, nkeys, valid, sizeof(valid)));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: %s '%s'; it takes key=value[,key=value...] with the keys %s", option, found ? "no value for key" : "unknown key", item, valid);
    }
    PetscCheck(T->n < PETSC_ELLWARP_TUNE_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: more than %d keys", option, PETSC_ELLWARP_TUNE_MAX);
    PetscCall(PetscStrncpy(T->key[T->n], item, sizeof(T->key[0])));
    PetscCall(PetscStrncpy(T->val[T->n], eq + 1, sizeof(T->val[0])));
    T->used[T->n] = PETSC_FALSE;
    T->n++;
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the value of key (the last one given), marked used; NULL where not given */
static PetscErrorCode Find(PetscEllwarpTuneList *T, const char key[], const char **val)
{
  PetscFunctionBegin;
  *val = NULL;
  for (PetscInt i = 0; i < T->n; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(T->key[i], key, &same));
    if (same) {
      T->used[i] = PETSC_TRUE;
      *val       = T->val[i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an integer in [lo, hi] where key is given (else *v unchanged) */
PetscErrorCode PetscEllwarpTuneListGetInt(PetscEllwarpTuneList *T, const char key[], PetscInt lo, PetscInt hi, PetscInt *v)
{
  const char *val;
  char       *end;
  long long   x;

  PetscFunctionBegin;
  PetscCall(Find(T, key, &val));
  if (!val) PetscFunctionReturn(PETSC_SUCCESS);
  x = strtoll(val, &end, 10);
  PetscCheck(end != val && !*end && x >= lo && x <= hi, T->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %s=%s: expected an integer in [%" PetscInt_FMT ", %" PetscInt_FMT "]", T->option, key, val, lo, hi);
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a number in [lo, hi] where key is given (else *v unchanged) */
PetscErrorCode PetscEllwarpTuneListGetReal(PetscEllwarpTuneList *T, const char key[], PetscReal lo, PetscReal hi, PetscReal *v)
{
  const char *val;
  char       *end;
  double      x;

  PetscFunctionBegin;
  PetscCall(Find(T, key, &val));
  if (!val) PetscFunctionReturn(PETSC_SUCCESS);
  x = strtod(val, &end);
  PetscCheck(end != val && !*end && x >= lo && x <= hi, T->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %s=%s: expected a number in [%g, %g]", T->option, key, val, (double)lo, (double)hi);
  *v = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a boolean (1, 0, true, false, yes, no, ...) where key is given (else *v unchanged) */
PetscErrorCode PetscEllwarpTuneListGetBool(PetscEllwarpTuneList *T, const char key[], PetscBool *v)
{
  const char *val;

  PetscFunctionBegin;
  PetscCall(Find(T, key, &val));
  if (val) PetscCall(PetscOptionsStringToBool(val, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the index in names[n] of the value where key is given (else *v unchanged); another value is an error listing them */
PetscErrorCode PetscEllwarpTuneListGetEList(PetscEllwarpTuneList *T, const char key[], const char *const names[], PetscInt n, PetscInt *v)
{
  const char *val;
  char        valid[256];
  size_t      len = 0;

  PetscFunctionBegin;
  PetscCall(Find(T, key, &val));
  if (!val) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < n; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(val, names[i], &same));
    if (same) {
      *v = i;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  valid[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscSNPrintf(valid + len, sizeof(valid) - len, "%s%s", i ? ", " : "", names[i]));
    PetscCall(PetscStrlen(valid, &len));
  }
  SETERRQ(T->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s=%s: unknown value (%s)", T->option, key, val, valid);
}

/* every key given counts as not read yet (an object that reads its keys again, e.g. after a change of type) */
PetscErrorCode PetscEllwarpTuneListResetUsed(PetscEllwarpTuneList *T)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < T->n; i++) T->used[i] = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the keys given that nothing read since the parse or the last reset, in one string (empty: none) */
PetscErrorCode PetscEllwarpTuneListUnused(const PetscEllwarpTuneList *T, char str[], size_t len)
{
  size_t n = 0;

  PetscFunctionBegin;
  str[0] = 0;
  for (PetscInt i = 0; i < T->n; i++)
    if (!T->used[i]) {
      PetscCall(PetscSNPrintf(str + n, len - n, "%s%s", n ? ", " : "", T->key[i]));
      PetscCall(PetscStrlen(str, &n));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with -help, one line per key under the option's own line (inside PetscOptionsBegin(), where that line is printed) */
PetscErrorCode PetscEllwarpTuneListPrintHelp(PetscOptionItems PetscOptionsObject, const char option[], const PetscEllwarpTuneKey keys[], size_t nkeys)
{
  PetscFunctionBegin;
  if (!PetscOptionsObject->printhelp || PetscOptionsObject->count != 1 || PetscOptionsObject->alreadyprinted) PetscFunctionReturn(PETSC_SUCCESS);
  for (size_t k = 0; k < nkeys; k++) {
    if (keys[k].owner) PetscCall((*PetscHelpPrintf)(PetscOptionsObject->comm, "      %s %s=... (%s): %s\n", option, keys[k].key, keys[k].owner, keys[k].help));
    else PetscCall((*PetscHelpPrintf)(PetscOptionsObject->comm, "      %s %s=...: %s\n", option, keys[k].key, keys[k].help));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "option: key=value, key=value<suffix>" on one line of an ASCII viewer (nothing when no key was given) */
PetscErrorCode PetscEllwarpTuneListView(const PetscEllwarpTuneList *T, const char suffix[], PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s:", T->option));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  for (PetscInt i = 0; i < T->n; i++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s %s=%s", i ? "," : "", T->key[i], T->val[i]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", suffix ? suffix : ""));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
