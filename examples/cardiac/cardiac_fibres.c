/* Fibre directions read from a gmsh mesh file: a 3-component field in a $ElementData, $NodeData or
   $ElementNodeData section (ASCII formats 2.2 and 4.1 write these sections alike), turned into one unit
   vector per tetrahedron.  Fibres are axes, not arrows (D = d_iso I + d_ani f f^T does not see the sign), so
   nodal vectors are sign-aligned before they are averaged over an element. */
#include "cardiac.h"
#include <stdio.h>
#include <string.h>
#include <ctype.h>

static PetscErrorCode OpenMaybeCompressed(const char filename[], FILE **fp, PetscBool *piped)
{
  size_t len = strlen(filename);

  PetscFunctionBegin;
  *piped = PETSC_FALSE;
  if (len > 3 && (!strcmp(filename + len - 3, ".xz") || !strcmp(filename + len - 3, ".gz"))) {
    char        cmd[3 * PETSC_MAX_PATH_LEN + 200];
    const char *tool = !strcmp(filename + len - 3, ".xz") ? "xz" : "gzip", *mod = !strcmp(filename + len - 3, ".xz") ? "lzma" : "gzip";
    PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "%s -dc '%s' 2>/dev/null || python3 -c 'import %s,sys,shutil; shutil.copyfileobj(%s.open(sys.argv[1]), sys.stdout.buffer)' '%s'", tool, filename, mod, mod, filename));
    *fp    = popen(cmd, "r");
    *piped = PETSC_TRUE;
  } else *fp = fopen(filename, "r");
  PetscCheck(*fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open gmsh file %s", filename);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* default field names: anything starting with "fib" (fibres, fibers, fibre, fiber, fiber_direction, ...) */
PetscBool CardiacFibreNameMatches(const char field[], const char want[])
{
  if (want && want[0]) {
    PetscBool eq;
    PetscCallAbort(PETSC_COMM_SELF, PetscStrcasecmp(field, want, &eq));
    return eq;
  }
  return (PetscBool)(tolower((unsigned char)field[0]) == 'f' && tolower((unsigned char)field[1]) == 'i' && tolower((unsigned char)field[2]) == 'b');
}

/* index of tag in the sorted (tag, index) list, -1 when absent */
static PetscInt Lookup(PetscInt n, const PetscInt *stag, const PetscInt *sidx, PetscInt tag)
{
  PetscInt lo = 0, hi = n - 1;
  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (stag[mid] == tag) return sidx[mid];
    if (stag[mid] < tag) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* sign-aligned mean of k vectors (3 consecutive reals each), normalised */
PetscErrorCode CardiacFibreAverage(PetscInt k, const PetscReal *v, PetscReal f[3], PetscBool *ok)
{
  PetscReal nn = 0;

  PetscFunctionBegin;
  f[0] = f[1] = f[2] = 0;
  for (PetscInt a = 0; a < k; a++) {
    PetscReal s = a ? (f[0] * v[3 * a] + f[1] * v[3 * a + 1] + f[2] * v[3 * a + 2] < 0 ? -1.0 : 1.0) : 1.0;
    for (int d = 0; d < 3; d++) f[d] += s * v[3 * a + d];
  }
  for (int d = 0; d < 3; d++) nn += f[d] * f[d];
  nn  = PetscSqrtReal(nn);
  *ok = (PetscBool)(nn > 0 && PetscIsNormalReal(nn));
  if (*ok)
    for (int d = 0; d < 3; d++) f[d] /= nn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacFibresReadGmsh(const char filename[], const LVMesh *m, const PetscInt vtag[], const PetscInt ttag[], const char name[], PetscReal fib[], PetscBool *found, char desc[], size_t ldesc)
{
  FILE      *fp;
  PetscBool  piped;
  char       line[4096];
  PetscInt  *vs = NULL, *vi = NULL, *ts = NULL, *ti = NULL;
  PetscReal *nodal = NULL;
  PetscInt  *cnt   = NULL;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  PetscCall(OpenMaybeCompressed(filename, &fp, &piped));
  while (!*found && fgets(line, sizeof(line), fp)) {
    int  kind; /* 0 element, 1 node, 2 element-node */
    int  nstr, nreal, nint, ints[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    long nent;
    char field[1024] = "";

    if (!strncmp(line, "$ElementData", 12)) kind = 0;
    else if (!strncmp(line, "$NodeData", 9)) kind = 1;
    else if (!strncmp(line, "$ElementNodeData", 16)) kind = 2;
    else continue;
    /* header: string tags (first = field name, quoted), real tags (first = time), integer tags (time step,
       number of components, number of entries[, partition]) */
    PetscCheck(fscanf(fp, "%d", &nstr) == 1 && nstr >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: bad data section header", filename);
    PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: truncated data section", filename);
    for (int q = 0; q < nstr; q++) {
      char *b, *e;
      PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: truncated data section", filename);
      if (q) continue;
      b = strchr(line, '"');
      b = b ? b + 1 : line;
      e = strchr(b, '"');
      if (!e) e = b + strcspn(b, "\r\n");
      *e = 0;
      PetscCall(PetscStrncpy(field, b, sizeof(field)));
    }
    PetscCheck(fscanf(fp, "%d", &nreal) == 1 && nreal >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: bad data section header", filename);
    for (int q = 0; q < nreal; q++) PetscCheck(fscanf(fp, "%*f") == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: bad real tag", filename);
    PetscCheck(fscanf(fp, "%d", &nint) == 1 && nint >= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: data section %s needs 3 integer tags", filename, field);
    for (int q = 0; q < nint; q++) PetscCheck(fscanf(fp, "%d", q < 8 ? &ints[q] : &ints[7]) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: bad integer tag", filename);
    nent = ints[2];
    if (!CardiacFibreNameMatches(field, name) || ints[1] != 3) continue; /* the rest is skipped line by line */
    PetscCheck(nent > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s has no entries", filename, field);

    if (kind == 1) { /* node tags -> local vertex numbers */
      PetscCheck(vtag, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "node tags needed");
      PetscCall(PetscMalloc2(m->nv, &vs, m->nv, &vi));
      for (PetscInt v = 0; v < m->nv; v++) {
        vs[v] = vtag[v];
        vi[v] = v;
      }
      PetscCall(PetscSortIntWithArray(m->nv, vs, vi));
      PetscCall(PetscCalloc2(3 * (size_t)m->nv, &nodal, m->nv, &cnt));
    } else {
      PetscCheck(ttag, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "element tags needed");
      PetscCall(PetscMalloc2(m->nt, &ts, m->nt, &ti));
      for (PetscInt t = 0; t < m->nt; t++) {
        ts[t] = ttag[t];
        ti[t] = t;
      }
      PetscCall(PetscSortIntWithArray(m->nt, ts, ti));
      PetscCall(PetscCalloc1(m->nt, &cnt));
    }
    for (long q = 0; q < nent; q++) {
      long      tag;
      int       nn = 1;
      PetscReal v[3 * 64];
      PetscInt  idx;

      PetscCheck(fscanf(fp, "%ld", &tag) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s: entry %ld of %ld missing", filename, field, q + 1, nent);
      if (kind == 2) PetscCheck(fscanf(fp, "%d", &nn) == 1 && nn > 0 && nn <= 64, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s: bad node count", filename, field);
      for (int a = 0; a < 3 * nn; a++) {
        double x;
        PetscCheck(fscanf(fp, "%lf", &x) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s: bad value in entry %ld", filename, field, q + 1);
        v[a] = (PetscReal)x;
      }
      if (kind == 1) {
        idx = Lookup(m->nv, vs, vi, (PetscInt)tag);
        if (idx < 0) continue; /* a node not used by any tetrahedron */
        for (int d = 0; d < 3; d++) nodal[3 * idx + d] = v[d];
        cnt[idx] = 1;
      } else {
        PetscReal f[3];
        PetscBool ok;
        idx = Lookup(m->nt, ts, ti, (PetscInt)tag);
        if (idx < 0) continue; /* an element that is not a tetrahedron */
        PetscCall(CardiacFibreAverage(kind == 2 ? PetscMin(nn, 4) : 1, v, f, &ok)); /* element-node data: the corners */
        PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s: element %ld has a zero or invalid fibre vector", filename, field, tag);
        for (int d = 0; d < 3; d++) fib[(size_t)d * m->nt + idx] = f[d];
        cnt[idx] = 1;
      }
    }
    if (kind == 1) {
      for (PetscInt v = 0; v < m->nv; v++)
        PetscCheck(cnt[v], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s has no value at node %" PetscInt_FMT " (tag %" PetscInt_FMT "); a nodal fibre field must cover every vertex of the tetrahedra", filename, field, v, vtag[v]);
      for (PetscInt t = 0; t < m->nt; t++) {
        PetscReal vv[12], f[3];
        PetscBool ok;
        for (int a = 0; a < 4; a++)
          for (int d = 0; d < 3; d++) vv[3 * a + d] = nodal[3 * m->tet[4 * t + a] + d];
        PetscCall(CardiacFibreAverage(4, vv, f, &ok));
        PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s: the nodal fibres of tetrahedron %" PetscInt_FMT " (tag %" PetscInt_FMT ") average to zero", filename, field, t, ttag ? ttag[t] : -1);
        for (int d = 0; d < 3; d++) fib[(size_t)d * m->nt + t] = f[d];
      }
      PetscCall(PetscFree2(nodal, cnt));
      PetscCall(PetscFree2(vs, vi));
    } else {
      for (PetscInt t = 0; t < m->nt; t++)
        PetscCheck(cnt[t], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh %s: field %s has no value for tetrahedron %" PetscInt_FMT " (element tag %" PetscInt_FMT "); an element fibre field must cover every tetrahedron", filename, field, t, ttag[t]);
      PetscCall(PetscFree(cnt));
      PetscCall(PetscFree2(ts, ti));
    }
    PetscCall(PetscSNPrintf(desc, ldesc, "field \"%s\" of %s (%s, %ld entries)", field, filename, kind == 0 ? "$ElementData" : kind == 1 ? "$NodeData, averaged per element" : "$ElementNodeData, averaged per element", nent));
    *found = PETSC_TRUE;
  }
  if (piped) pclose(fp); /* may be closed before the end of the stream: no status check */
  else fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}
