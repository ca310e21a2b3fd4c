/* ExodusII meshes for the cardiac example, read through the SEACAS exodusII C library (Debian libexodusii-dev, on
   libnetcdf: netCDF classic, 64-bit offset, CDF-5 and netCDF-4/HDF5 files).  PETSc's own ExodusII reader
   (DMPlexCreateExodusFromFile) needs a PETSc configured with --download-exodusii, which the project's PETSc is not
   (scripts/bootstrap-petsc.sh), so the example calls the library directly; CMake enables this file's reader when it
   finds exodusII.h and the libraries (ELLWARP_HAVE_EXODUSII), and without them CardiacExodusRead is a clear error.

   Read: the coordinates, the 4-node tetrahedra of every element block whose type starts with TET (other blocks,
   e.g. TRI3 side blocks, are skipped; TETRA10 is an error), and the fibres of the first time step: element
   variables, else element attributes, else nodal variables (averaged per element), named PREFIX + x/y/z, _x/_y/_z,
   0/1/2 or 1/2/3.  Nodes no tetrahedron uses are dropped; the file order is kept. */
#include "cardiac.h"
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>
#if defined(ELLWARP_HAVE_EXODUSII)
  #include <stdint.h>
  #include <exodusII.h>
#endif

#if defined(ELLWARP_HAVE_EXODUSII)
#define EX_NAME_LEN 255

/* an exodusII call that returns a negative code on failure */
#define ExCall(file, call) \
  do { \
    int _exerr = (call); \
    PetscCheck(_exerr >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "ExodusII %s: %s failed (exodusII error %d)", file, #call, _exerr); \
  } while (0)

/* the three names of a fibre vector among names[0..n): PREFIX + x/y/z, 0/1/2 or 1/2/3, optionally with an
   underscore (fibre_x, fiberX, fib1, ...); PREFIX = want, or any name starting with "fib" when want is empty.
   comp[c] = index of component c, or -1 */
static void SplitComponentName(const char name[], char pre[256], char *last)
{
  size_t l = strlen(name);

  pre[0] = 0;
  *last  = 0;
  if (l < 2 || l > 255) return;
  memcpy(pre, name, l - 1);
  pre[l - 1] = 0;
  if (pre[l - 2] == '_') pre[l - 2] = 0;
  *last = (char)tolower((unsigned char)name[l - 1]);
}

static void FindFibreTriple(long long n, char (*names)[256], const char want[], int comp[3])
{
  comp[0] = comp[1] = comp[2] = -1;
  for (long long i = 0; i < n; i++) {
    char pre[256], last;
    int  xyz[3] = {-1, -1, -1}, num[4] = {-1, -1, -1, -1};

    SplitComponentName(names[i], pre, &last);
    if (!pre[0] || !CardiacFibreNameMatches(pre, want)) continue;
    for (long long j = 0; j < n; j++) {
      char pj[256], lj;
      SplitComponentName(names[j], pj, &lj);
      if (strcasecmp(pj, pre)) continue;
      if (lj >= 'x' && lj <= 'z' && xyz[lj - 'x'] < 0) xyz[lj - 'x'] = (int)j;
      if (lj >= '0' && lj <= '3' && num[lj - '0'] < 0) num[lj - '0'] = (int)j;
    }
    for (int s = 0; s < 3; s++) {
      const int *c = s == 0 ? xyz : s == 1 ? num : num + 1;
      if (c[0] >= 0 && c[1] >= 0 && c[2] >= 0) {
        for (int k = 0; k < 3; k++) comp[k] = c[k];
        return;
      }
    }
  }
}

/* n names of the entities of one kind (variables of obj_type, or attributes of block id when attr) */
static PetscErrorCode ExGetNames(const char file[], int exoid, PetscBool attr, ex_entity_type type, int64_t id, int n, char (**names)[256])
{
  char **p;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, names));
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(n, &p));
  for (int i = 0; i < n; i++) p[i] = (*names)[i];
  if (attr) ExCall(file, ex_get_attr_names(exoid, type, id, p));
  else ExCall(file, ex_get_variable_names(exoid, type, n, p));
  for (int i = 0; i < n; i++) { /* trailing blanks */
    char *s = (*names)[i];
    s[EX_NAME_LEN] = 0;
    for (long k = (long)strlen(s) - 1; k >= 0 && s[k] == ' '; k--) s[k] = 0;
  }
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode CardiacExodusRead(const char file[], LVMesh *m, PetscBool want_fibres, const char want[], PetscReal **fib_out, char desc[], size_t ldesc)
{
#if !defined(ELLWARP_HAVE_EXODUSII)
  PetscFunctionBegin;
  (void)m;
  (void)want_fibres;
  (void)want;
  (void)desc;
  (void)ldesc;
  *fib_out = NULL;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "ExodusII %s: this build has no ExodusII reader: CMake did not find the exodusII library (Debian: apt-get install libexodusii-dev libnetcdf-dev, then reconfigure), or -DELLWARP_WITH_EXODUSII=OFF; convert the mesh to gmsh (e.g. meshio convert in.exo out.msh) instead", file);
#else
  int        exoid, cpu_ws = (int)sizeof(double), io_ws = 0, ntimes;
  float      version;
  char       title[MAX_LINE_LENGTH + 1];
  int64_t    ndim, nnodes, nelem, nblk, nns, nss, *ids, *blkn, *blkfirst, ntet = 0;
  double    *x, *y, *z;
  PetscInt  *tet, *used, nused = 0;
  PetscReal *fib = NULL;
  PetscBool  exists;

  PetscFunctionBegin;
  *fib_out = NULL;
  if (desc && ldesc) desc[0] = 0;
  PetscCall(PetscTestFile(file, 'r', &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open ExodusII file %s", file);
  ex_opts(EX_DEFAULT); /* errors come back as return codes (reported here), no messages, no abort */
  exoid = ex_open(file, EX_READ, &cpu_ws, &io_ws, &version);
  PetscCheck(exoid >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: the exodusII library cannot open it (error %d): not a netCDF (classic, 64-bit offset, CDF-5 or netCDF-4/HDF5) ExodusII file", file, exoid);
  ExCall(file, ex_set_int64_status(exoid, EX_ALL_INT64_API)); /* every integer as int64_t, whatever the file stores */
  ExCall(file, ex_set_max_name_length(exoid, EX_NAME_LEN));
  ExCall(file, ex_get_init(exoid, title, &ndim, &nnodes, &nelem, &nblk, &nns, &nss));
  PetscCheck(nnodes > 0 && nblk > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: no nodes or no element blocks", file);
  PetscCheck(ndim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "ExodusII %s: %lld-dimensional mesh; the cardiac example needs 3-D tetrahedra", file, (long long)ndim);
  ntimes = (int)ex_inquire_int(exoid, EX_INQ_TIME);

  /* element blocks: the 4-node tetrahedra */
  PetscCall(PetscMalloc3(nblk, &ids, nblk, &blkn, nblk, &blkfirst));
  ExCall(file, ex_get_ids(exoid, EX_ELEM_BLOCK, ids));
  for (int64_t b = 0; b < nblk; b++) {
    char    ty[MAX_STR_LENGTH + 1], uty[MAX_STR_LENGTH + 1];
    int64_t ne, npe, ned, nfa, nat;
    ExCall(file, ex_get_block(exoid, EX_ELEM_BLOCK, ids[b], ty, &ne, &npe, &ned, &nfa, &nat));
    for (int k = 0; k <= MAX_STR_LENGTH; k++) uty[k] = (char)toupper((unsigned char)ty[k]);
    blkn[b]     = ne;
    blkfirst[b] = -1;
    if (ne <= 0) continue;
    if (!strncmp(uty, "TET", 3)) {
      PetscCheck(npe == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "ExodusII %s: block %lld has %s elements with %lld nodes; only 4-node (linear) tetrahedra are supported", file, (long long)ids[b], ty, (long long)npe);
      blkfirst[b] = ntet;
      ntet += ne;
    } else PetscCall(PetscInfo(NULL, "ExodusII %s: block %lld (%s, %lld elements) skipped: not tetrahedra\n", file, (long long)ids[b], ty, (long long)ne));
  }
  PetscCheck(ntet > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s has no tetrahedral element block (element type TETRA/TET4)", file);
  PetscCall(PetscMalloc1(4 * (size_t)ntet, &tet));
  {
    int64_t *conn;
    PetscCall(PetscMalloc1(4 * (size_t)ntet, &conn));
    for (int64_t b = 0; b < nblk; b++)
      if (blkfirst[b] >= 0) ExCall(file, ex_get_conn(exoid, EX_ELEM_BLOCK, ids[b], conn + 4 * blkfirst[b], NULL, NULL));
    for (int64_t q = 0; q < 4 * ntet; q++) {
      PetscCheck(conn[q] >= 1 && conn[q] <= nnodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: tetrahedron %lld refers to node %lld (1..%lld)", file, (long long)(q / 4), (long long)conn[q], (long long)nnodes);
      tet[q] = (PetscInt)(conn[q] - 1);
    }
    PetscCall(PetscFree(conn));
  }
  PetscCall(PetscMalloc3(nnodes, &x, nnodes, &y, nnodes, &z));
  ExCall(file, ex_get_coord(exoid, x, y, z));

  /* fibres: element variables, then element attributes, then nodal variables (first time step) */
  if (want_fibres) {
    char(*names)[256];
    int comp[3], nv;

    ExCall(file, ex_get_variable_param(exoid, EX_ELEM_BLOCK, &nv));
    PetscCall(ExGetNames(file, exoid, PETSC_FALSE, EX_ELEM_BLOCK, 0, nv, &names));
    FindFibreTriple(nv, names, want, comp);
    if (comp[0] >= 0 && ntimes > 0) {
      PetscBool all = PETSC_TRUE;
      int      *truth;
      PetscCall(PetscMalloc1((size_t)nblk * nv, &truth));
      ExCall(file, ex_get_truth_table(exoid, EX_ELEM_BLOCK, (int)nblk, nv, truth));
      PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
      for (int64_t b = 0; b < nblk && all; b++) {
        double *tmp;
        if (blkfirst[b] < 0) continue;
        for (int d = 0; d < 3; d++) all = (PetscBool)(all && truth[b * nv + comp[d]]); /* defined on every tet block */
        if (!all) break;
        PetscCall(PetscMalloc1((size_t)blkn[b], &tmp));
        for (int d = 0; d < 3; d++) {
          ExCall(file, ex_get_var(exoid, 1, EX_ELEM_BLOCK, comp[d] + 1, ids[b], blkn[b], tmp));
          for (int64_t e = 0; e < blkn[b]; e++) fib[(size_t)d * ntet + blkfirst[b] + e] = tmp[e];
        }
        PetscCall(PetscFree(tmp));
      }
      PetscCall(PetscFree(truth));
      if (all) PetscCall(PetscSNPrintf(desc, ldesc, "element variables %s, %s, %s of %s (time step 1)", names[comp[0]], names[comp[1]], names[comp[2]], file));
      else PetscCall(PetscFree(fib));
    }
    PetscCall(PetscFree(names));
    if (!fib) { /* element attributes: every tet block must have the triple */
      PetscBool all = PETSC_TRUE;
      char      found[3][256];
      PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
      for (int64_t b = 0; b < nblk && all; b++) {
        char    ty[MAX_STR_LENGTH + 1];
        int64_t ne, npe, ned, nfa, nat;
        double *tmp;
        if (blkfirst[b] < 0) continue;
        ExCall(file, ex_get_block(exoid, EX_ELEM_BLOCK, ids[b], ty, &ne, &npe, &ned, &nfa, &nat));
        PetscCall(ExGetNames(file, exoid, PETSC_TRUE, EX_ELEM_BLOCK, ids[b], (int)nat, &names));
        FindFibreTriple((int)nat, names, want, comp);
        if (comp[0] < 0) {
          all = PETSC_FALSE;
          PetscCall(PetscFree(names));
          break;
        }
        for (int d = 0; d < 3; d++) PetscCall(PetscStrncpy(found[d], names[comp[d]], 256));
        PetscCall(PetscFree(names));
        PetscCall(PetscMalloc1((size_t)(ne * nat), &tmp));
        ExCall(file, ex_get_attr(exoid, EX_ELEM_BLOCK, ids[b], tmp));
        for (int64_t e = 0; e < ne; e++)
          for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + blkfirst[b] + e] = tmp[e * nat + comp[d]];
        PetscCall(PetscFree(tmp));
      }
      if (all) PetscCall(PetscSNPrintf(desc, ldesc, "element attributes %s, %s, %s of %s", found[0], found[1], found[2], file));
      else PetscCall(PetscFree(fib));
    }
    if (!fib && ntimes > 0) { /* nodal variables, averaged per tet */
      ExCall(file, ex_get_variable_param(exoid, EX_NODAL, &nv));
      PetscCall(ExGetNames(file, exoid, PETSC_FALSE, EX_NODAL, 0, nv, &names));
      FindFibreTriple(nv, names, want, comp);
      if (comp[0] >= 0) {
        double *nodal, *tmp;
        PetscCall(PetscMalloc2(3 * (size_t)nnodes, &nodal, (size_t)nnodes, &tmp));
        for (int d = 0; d < 3; d++) {
          ExCall(file, ex_get_var(exoid, 1, EX_NODAL, comp[d] + 1, 1, nnodes, tmp));
          for (int64_t k = 0; k < nnodes; k++) nodal[3 * k + d] = tmp[k];
        }
        PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
        for (int64_t t = 0; t < ntet; t++) {
          PetscReal v[12], f[3];
          PetscBool ok;
          for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) v[3 * a + d] = nodal[3 * tet[4 * t + a] + d];
          PetscCall(CardiacFibreAverage(4, v, f, &ok));
          PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: the nodal fibres of tetrahedron %lld average to zero", file, (long long)t);
          for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + t] = f[d];
        }
        PetscCall(PetscFree2(nodal, tmp));
        PetscCall(PetscSNPrintf(desc, ldesc, "nodal variables %s, %s, %s of %s (time step 1), averaged per element", names[comp[0]], names[comp[1]], names[comp[2]], file));
      }
      PetscCall(PetscFree(names));
    }
    if (fib) /* unit vectors */
      for (int64_t t = 0; t < ntet; t++) {
        PetscReal f[3] = {fib[t], fib[ntet + t], fib[2 * ntet + t]}, g[3];
        PetscBool ok;
        PetscCall(CardiacFibreAverage(1, f, g, &ok));
        PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: tetrahedron %lld has a zero or invalid fibre vector", file, (long long)t);
        for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + t] = g[d];
      }
  }
  ExCall(file, ex_close(exoid));

  /* keep the nodes used by tetrahedra, in file order */
  PetscCall(PetscMalloc1(nnodes, &used));
  for (int64_t k = 0; k < nnodes; k++) used[k] = -1;
  for (int64_t q = 0; q < 4 * ntet; q++) used[tet[q]] = 0;
  for (int64_t k = 0; k < nnodes; k++)
    if (!used[k]) used[k] = nused++;
  m->nv = nused;
  m->nt = (PetscInt)ntet;
  PetscCall(PetscMalloc1(3 * (size_t)nused, &m->xyz));
  for (int64_t k = 0; k < nnodes; k++)
    if (used[k] >= 0) {
      m->xyz[3 * used[k] + 0] = (PetscReal)x[k];
      m->xyz[3 * used[k] + 1] = (PetscReal)y[k];
      m->xyz[3 * used[k] + 2] = (PetscReal)z[k];
    }
  for (int64_t q = 0; q < 4 * ntet; q++) tet[q] = used[tet[q]];
  m->tet = tet;
  PetscCall(PetscFree(used));
  PetscCall(PetscFree3(x, y, z));
  PetscCall(PetscFree3(ids, blkn, blkfirst));
  *fib_out = fib;
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}
