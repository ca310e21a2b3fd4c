/* A small self-contained reader of ExodusII meshes for the cardiac example (PETSc here is built without
   ExodusII/netCDF, and the GPU hosts have no netCDF library either).

   netCDF classic formats (Unidata "NetCDF Classic and 64-bit Offset File Formats" + CDF-5), all big-endian:
     header  = 'C' 'D' 'F' version(1: classic, 2: 64-bit offset, 5: 64-bit data) numrecs dim_list gatt_list var_list
     dim     = name length (0: the record dimension)
     var     = name ndims dimid... vatt_list nc_type vsize begin
   counts (numrecs, list lengths, name lengths, ndims, dimids, dim lengths, attribute lengths, vsize) are 4 bytes,
   8 in CDF-5; begin is 4 bytes in CDF-1, 8 in CDF-2 and CDF-5; names and attribute values are padded to 4 bytes.
   A fixed-size variable is stored contiguously at begin; record r of a record variable (first dimension =
   the record dimension) at begin + r * recsize, recsize = sum of the record variables' vsize.  Only record 0
   (the first time step) is read here.

   ExodusII conventions used: dimensions num_dim, num_nodes, num_el_blk, num_el_in_blk<b>, num_nod_per_el<b>;
   variables coordx/coordy/coordz (or coord[num_dim][num_nodes]), connect<b> (1-based node numbers, attribute
   elem_type), element variables name_elem_var + vals_elem_var<v>eb<b>[time][num_el_in_blk<b>], element attributes
   attrib<b>[num_el_in_blk<b>][num_att_in_blk<b>] + attrib_name<b>, nodal variables name_nod_var +
   vals_nod_var<v>[time][num_nodes] (or the old vals_nod_var[time][num_nod_var][num_nodes]).
   netCDF-4 (HDF5) files are recognised by their signature and refused with the conversion command. */
#include "cardiac.h"
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <stdint.h>
#include <strings.h>
#include <sys/types.h>

typedef struct {
  char      name[256];
  long long len;
} NCDim;

typedef struct {
  char      name[256];
  int       ndims, dimids[8], type;
  long long vsize, begin;
  PetscBool rec;
  char      elem_type[64]; /* the elem_type attribute, when present */
} NCVar;

typedef struct {
  FILE     *fp;
  const char *file;
  int       version;
  long long numrecs, recsize;
  int       ndims, nvars, recdim;
  NCDim    *dims;
  NCVar    *vars;
} NCFile;

static const int nc_size[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8}; /* by nc_type 1..11 */

static PetscErrorCode NCRead(NCFile *nc, void *buf, size_t n)
{
  PetscFunctionBegin;
  PetscCheck(fread(buf, 1, n, nc->fp) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: truncated netCDF header", nc->file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCU32(NCFile *nc, long long *v)
{
  unsigned char b[4];

  PetscFunctionBegin;
  PetscCall(NCRead(nc, b, 4));
  *v = ((long long)b[0] << 24) | ((long long)b[1] << 16) | ((long long)b[2] << 8) | b[3];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCU64(NCFile *nc, long long *v)
{
  unsigned char b[8];
  uint64_t      u = 0;

  PetscFunctionBegin;
  PetscCall(NCRead(nc, b, 8));
  for (int i = 0; i < 8; i++) u = (u << 8) | b[i];
  PetscCheck(u < ((uint64_t)1 << 62), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: implausible 64-bit value in the netCDF header", nc->file);
  *v = (long long)u;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a count: 4 bytes, 8 in CDF-5 */
static PetscErrorCode NCCount(NCFile *nc, long long *v)
{
  PetscFunctionBegin;
  if (nc->version == 5) PetscCall(NCU64(nc, v));
  else PetscCall(NCU32(nc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCSkip(NCFile *nc, long long n)
{
  char buf[4096];

  PetscFunctionBegin;
  while (n > 0) {
    size_t k = (size_t)PetscMin(n, (long long)sizeof(buf));
    PetscCall(NCRead(nc, buf, k));
    n -= (long long)k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCName(NCFile *nc, char name[256])
{
  long long n;

  PetscFunctionBegin;
  PetscCall(NCCount(nc, &n));
  PetscCheck(n >= 0 && n < 256, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: netCDF name of %lld characters", nc->file, n);
  PetscCall(NCRead(nc, name, (size_t)n));
  name[n] = 0;
  PetscCall(NCSkip(nc, (4 - n % 4) % 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* attribute list; keeps the value of a text attribute named elem_type (ExodusII element blocks) */
static PetscErrorCode NCAttributes(NCFile *nc, char elem_type[64])
{
  long long tag, n;

  PetscFunctionBegin;
  PetscCall(NCU32(nc, &tag));
  PetscCall(NCCount(nc, &n));
  PetscCheck((tag == 0 && n == 0) || tag == 0x0C, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: bad netCDF attribute list", nc->file);
  for (long long a = 0; a < n; a++) {
    char      name[256];
    long long type, len, bytes;

    PetscCall(NCName(nc, name));
    PetscCall(NCU32(nc, &type));
    PetscCall(NCCount(nc, &len));
    PetscCheck(type >= 1 && type <= 11 && (type <= 6 || nc->version == 5), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: bad netCDF type %lld", nc->file, type);
    bytes = len * nc_size[type];
    if (elem_type && type == 2 && !strcmp(name, "elem_type") && len < 64) {
      PetscCall(NCRead(nc, elem_type, (size_t)len));
      elem_type[len] = 0;
      PetscCall(NCSkip(nc, (4 - bytes % 4) % 4));
    } else PetscCall(NCSkip(nc, bytes + (4 - bytes % 4) % 4));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCOpen(const char file[], NCFile *nc)
{
  unsigned char magic[8];
  long long     tag, n;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(nc, sizeof(*nc)));
  nc->file   = file;
  nc->recdim = -1;
  nc->fp     = fopen(file, "rb");
  PetscCheck(nc->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open ExodusII file %s", file);
  PetscCheck(fread(magic, 1, 8, nc->fp) == 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: file too short", file);
  PetscCheck(memcmp(magic, "\x89HDF\r\n\x1a\n", 8), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "ExodusII %s is a netCDF-4 (HDF5) file; this reader (PETSc here has no ExodusII/HDF5) reads the netCDF classic formats only: convert it with `nccopy -k classic %s out.exo` (or -k 64-bit-offset / -k cdf5 for meshes over 2 GB)", file, file);
  PetscCheck(magic[0] == 'C' && magic[1] == 'D' && magic[2] == 'F' && (magic[3] == 1 || magic[3] == 2 || magic[3] == 5), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: not a netCDF file (no CDF or HDF5 signature)", file);
  nc->version = magic[3];
  PetscCheck(!fseek(nc->fp, 4, SEEK_SET), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "ExodusII %s: seek failed", file);
  PetscCall(NCCount(nc, &nc->numrecs));
  if (nc->numrecs == 0xFFFFFFFFLL) nc->numrecs = 0; /* streaming: unknown, the first record is all we read */
  /* dimensions */
  PetscCall(NCU32(nc, &tag));
  PetscCall(NCCount(nc, &n));
  PetscCheck((tag == 0 && n == 0) || tag == 0x0A, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: bad netCDF dimension list", file);
  nc->ndims = (int)n;
  PetscCall(PetscCalloc1(n + 1, &nc->dims));
  for (int d = 0; d < nc->ndims; d++) {
    PetscCall(NCName(nc, nc->dims[d].name));
    PetscCall(NCCount(nc, &nc->dims[d].len));
    if (nc->dims[d].len == 0) nc->recdim = d;
  }
  PetscCall(NCAttributes(nc, NULL)); /* global attributes */
  /* variables */
  PetscCall(NCU32(nc, &tag));
  PetscCall(NCCount(nc, &n));
  PetscCheck((tag == 0 && n == 0) || tag == 0x0B, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: bad netCDF variable list", file);
  nc->nvars = (int)n;
  PetscCall(PetscCalloc1(n + 1, &nc->vars));
  for (int v = 0; v < nc->nvars; v++) {
    NCVar    *x = &nc->vars[v];
    long long nd, t;

    PetscCall(NCName(nc, x->name));
    PetscCall(NCCount(nc, &nd));
    PetscCheck(nd >= 0 && nd <= 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s has %lld dimensions", file, x->name, nd);
    x->ndims = (int)nd;
    for (int d = 0; d < x->ndims; d++) {
      PetscCall(NCCount(nc, &t));
      PetscCheck(t >= 0 && t < nc->ndims, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s: bad dimension id", file, x->name);
      x->dimids[d] = (int)t;
    }
    x->rec = (PetscBool)(x->ndims > 0 && x->dimids[0] == nc->recdim);
    PetscCall(NCAttributes(nc, x->elem_type));
    PetscCall(NCU32(nc, &t));
    PetscCheck(t >= 1 && t <= 11 && (t <= 6 || nc->version == 5), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s: bad netCDF type %lld", file, x->name, t);
    x->type = (int)t;
    PetscCall(NCCount(nc, &x->vsize)); /* may be wrong (2^32-1) for huge variables: recomputed below */
    if (nc->version == 1) PetscCall(NCU32(nc, &x->begin));
    else PetscCall(NCU64(nc, &x->begin));
  }
  /* record size: the sum of the record variables' padded sizes (one record variable: not padded) */
  {
    int nrec = 0;
    for (int v = 0; v < nc->nvars; v++) {
      NCVar    *x = &nc->vars[v];
      long long s = nc_size[x->type];
      for (int d = x->rec ? 1 : 0; d < x->ndims; d++) s *= nc->dims[x->dimids[d]].len;
      if (!x->rec) continue;
      nrec++;
      nc->recsize += s + (4 - s % 4) % 4;
    }
    (void)nrec;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NCClose(NCFile *nc)
{
  PetscFunctionBegin;
  if (nc->fp) fclose(nc->fp);
  PetscCall(PetscFree(nc->dims));
  PetscCall(PetscFree(nc->vars));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const NCVar *NCFindVar(const NCFile *nc, const char name[])
{
  for (int v = 0; v < nc->nvars; v++)
    if (!strcmp(nc->vars[v].name, name)) return &nc->vars[v];
  return NULL;
}

static long long NCDimLen(const NCFile *nc, const char name[])
{
  for (int d = 0; d < nc->ndims; d++)
    if (!strcmp(nc->dims[d].name, name)) return nc->dims[d].len;
  return -1;
}

/* number of values of one record (record variables) or of the whole variable */
static long long NCVarCount(const NCFile *nc, const NCVar *x)
{
  long long n = 1;
  for (int d = x->rec ? 1 : 0; d < x->ndims; d++) n *= nc->dims[x->dimids[d]].len;
  return n;
}

static PetscErrorCode NCSeek(const NCFile *nc, long long off)
{
  PetscFunctionBegin;
  PetscCheck(!fseeko(nc->fp, (off_t)off, SEEK_SET), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "ExodusII %s: seek to %lld failed", nc->file, off);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values [first, first + n) of a numeric variable (record 0 of a record variable) as doubles */
static PetscErrorCode NCGetDouble(const NCFile *nc, const NCVar *x, long long first, long long n, double *out)
{
  int            sz = nc_size[x->type];
  unsigned char *buf;

  PetscFunctionBegin;
  PetscCheck(x->type != 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s is text, numbers expected", nc->file, x->name);
  PetscCheck(first >= 0 && first + n <= NCVarCount(nc, x), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s is too short", nc->file, x->name);
  PetscCheck(!x->rec || nc->numrecs > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s has no time step", nc->file, x->name);
  PetscCall(NCSeek(nc, x->begin + first * sz));
  PetscCall(PetscMalloc1((size_t)n * sz, &buf));
  PetscCheck(fread(buf, (size_t)sz, (size_t)n, nc->fp) == (size_t)n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s: data truncated", nc->file, x->name);
  for (long long i = 0; i < n; i++) {
    const unsigned char *b = buf + i * sz;
    uint64_t             u = 0;
    for (int k = 0; k < sz; k++) u = (u << 8) | b[k];
    switch (x->type) {
    case 1:
      out[i] = (double)(int8_t)u;
      break;
    case 3:
      out[i] = (double)(int16_t)u;
      break;
    case 4:
      out[i] = (double)(int32_t)u;
      break;
    case 5: {
      uint32_t w = (uint32_t)u;
      float    f;
      memcpy(&f, &w, 4);
      out[i] = f;
    } break;
    case 6:
      memcpy(&out[i], &u, 8);
      break;
    case 7:
    case 8:
    case 9:
    case 11:
      out[i] = (double)u;
      break;
    case 10:
      out[i] = (double)(int64_t)u;
      break;
    }
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* integers (connectivity): int32 or int64 variables, exact */
static PetscErrorCode NCGetInt(const NCFile *nc, const NCVar *x, long long n, PetscInt *out)
{
  int            sz = nc_size[x->type];
  unsigned char *buf;

  PetscFunctionBegin;
  PetscCheck(x->type == 4 || x->type == 10 || x->type == 9 || x->type == 11, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s: integers expected", nc->file, x->name);
  PetscCheck(n <= NCVarCount(nc, x), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s is too short", nc->file, x->name);
  PetscCall(NCSeek(nc, x->begin));
  PetscCall(PetscMalloc1((size_t)n * sz, &buf));
  PetscCheck(fread(buf, (size_t)sz, (size_t)n, nc->fp) == (size_t)n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: variable %s: data truncated", nc->file, x->name);
  for (long long i = 0; i < n; i++) {
    uint64_t u = 0;
    for (int k = 0; k < sz; k++) u = (u << 8) | buf[i * sz + k];
    out[i] = sz == 4 ? (PetscInt)(x->type == 4 ? (int64_t)(int32_t)u : (int64_t)u) : (PetscInt)(int64_t)u;
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a [n][len] text variable (ExodusII names): row i, trailing NULs/blanks stripped */
static PetscErrorCode NCGetNames(const NCFile *nc, const NCVar *x, long long *n, char (**names)[256])
{
  long long len;

  PetscFunctionBegin;
  *n     = 0;
  *names = NULL;
  if (!x) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(x->type == 2 && x->ndims == 2 && !x->rec, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: %s is not a name table", nc->file, x->name);
  *n  = nc->dims[x->dimids[0]].len;
  len = nc->dims[x->dimids[1]].len;
  PetscCall(PetscCalloc1(*n + 1, names));
  PetscCall(NCSeek(nc, x->begin));
  for (long long i = 0; i < *n; i++) {
    char *s = (*names)[i];
    for (long long k = 0; k < len; k++) {
      int c = fgetc(nc->fp);
      PetscCheck(c != EOF, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: %s truncated", nc->file, x->name);
      if (k < 255) s[k] = (char)c;
    }
    s[PetscMin(len, 255)] = 0;
    for (long long k = (long long)strlen(s) - 1; k >= 0 && (s[k] == ' ' || s[k] == 0); k--) s[k] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

PetscErrorCode CardiacExodusRead(const char file[], LVMesh *m, PetscBool want_fibres, const char want[], PetscReal **fib_out, char desc[], size_t ldesc)
{
  NCFile     nc;
  long long  nnodes, ndim, nblk, ntet = 0, nkept = 0;
  double    *coords;
  PetscInt  *tet, *used, nused = 0;
  long long *blkfirst; /* first tet of each block (in the kept-tet numbering), -1 for skipped blocks */
  long long *blkn;
  PetscReal *fib = NULL;

  PetscFunctionBegin;
  *fib_out = NULL;
  if (desc && ldesc) desc[0] = 0;
  PetscCall(NCOpen(file, &nc));
  nnodes = NCDimLen(&nc, "num_nodes");
  ndim   = NCDimLen(&nc, "num_dim");
  nblk   = NCDimLen(&nc, "num_el_blk");
  PetscCheck(nnodes > 0 && ndim > 0 && nblk > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: no num_nodes, num_dim or num_el_blk dimension: not an ExodusII mesh", file);
  PetscCheck(ndim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "ExodusII %s: %lld-dimensional mesh; the cardiac example needs 3-D tetrahedra", file, ndim);

  /* coordinates */
  PetscCall(PetscMalloc1(3 * (size_t)nnodes, &coords));
  {
    const NCVar *cx = NCFindVar(&nc, "coordx"), *cy = NCFindVar(&nc, "coordy"), *cz = NCFindVar(&nc, "coordz"), *c = NCFindVar(&nc, "coord");
    double      *tmp;
    PetscCall(PetscMalloc1((size_t)nnodes, &tmp));
    for (int d = 0; d < 3; d++) {
      const NCVar *x = d == 0 ? cx : d == 1 ? cy : cz;
      if (x) PetscCall(NCGetDouble(&nc, x, 0, nnodes, tmp));
      else {
        PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: no coordinates (coordx/coordy/coordz or coord)", file);
        PetscCall(NCGetDouble(&nc, c, d * nnodes, nnodes, tmp));
      }
      for (long long k = 0; k < nnodes; k++) coords[3 * k + d] = tmp[k];
    }
    PetscCall(PetscFree(tmp));
  }

  /* element blocks: count the 4-node tetrahedra */
  PetscCall(PetscMalloc2(nblk, &blkfirst, nblk, &blkn));
  for (long long b = 0; b < nblk; b++) {
    char         vn[64], ty[64];
    const NCVar *x;
    long long    ne, npe;
    PetscCall(PetscSNPrintf(vn, sizeof(vn), "connect%lld", b + 1));
    x           = NCFindVar(&nc, vn);
    blkfirst[b] = -1;
    blkn[b]     = 0;
    if (!x) continue; /* an empty block has no connectivity variable */
    PetscCheck(x->ndims == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: %s is not [elements][nodes]", file, vn);
    ne  = nc.dims[x->dimids[0]].len;
    npe = nc.dims[x->dimids[1]].len;
    for (int k = 0; k < 63 && x->elem_type[k]; k++) ty[k] = (char)toupper((unsigned char)x->elem_type[k]);
    ty[PetscMin((int)strlen(x->elem_type), 63)] = 0;
    blkn[b] = ne;
    if (!strncmp(ty, "TET", 3)) {
      PetscCheck(npe == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "ExodusII %s: block %lld has %s elements with %lld nodes; only 4-node (linear) tetrahedra are supported", file, b + 1, x->elem_type, npe);
      blkfirst[b] = ntet;
      ntet += ne;
    } else PetscCall(PetscInfo(NULL, "ExodusII %s: block %lld (%s, %lld elements) skipped: not tetrahedra\n", file, b + 1, x->elem_type, ne));
  }
  PetscCheck(ntet > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s has no tetrahedral element block (elem_type TETRA/TET4)", file);
  PetscCall(PetscMalloc1(4 * (size_t)ntet, &tet));
  for (long long b = 0; b < nblk; b++) {
    char vn[64];
    if (blkfirst[b] < 0) continue;
    PetscCall(PetscSNPrintf(vn, sizeof(vn), "connect%lld", b + 1));
    PetscCall(NCGetInt(&nc, NCFindVar(&nc, vn), 4 * blkn[b], tet + 4 * blkfirst[b]));
  }
  for (long long q = 0; q < 4 * ntet; q++) {
    PetscCheck(tet[q] >= 1 && tet[q] <= nnodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: tetrahedron %lld refers to node %" PetscInt_FMT " (1..%lld)", file, q / 4, tet[q], nnodes);
    tet[q] -= 1;
  }
  nkept = ntet;

  /* fibres: element variables, then element attributes, then nodal variables (first record / time step) */
  if (want_fibres) {
    long long nn;
    char(*names)[256];
    int comp[3];

    PetscCall(NCGetNames(&nc, NCFindVar(&nc, "name_elem_var"), &nn, &names));
    FindFibreTriple(nn, names, want, comp);
    if (comp[0] >= 0 && nc.numrecs > 0) {
      PetscBool all = PETSC_TRUE;
      PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
      for (long long b = 0; b < nblk && all; b++) {
        if (blkfirst[b] < 0) continue;
        for (int d = 0; d < 3 && all; d++) {
          char         vn[64];
          const NCVar *x;
          double      *tmp;
          PetscCall(PetscSNPrintf(vn, sizeof(vn), "vals_elem_var%deb%lld", comp[d] + 1, b + 1));
          x = NCFindVar(&nc, vn);
          if (!x) { /* truth table: not defined on this block */
            all = PETSC_FALSE;
            break;
          }
          PetscCall(PetscMalloc1((size_t)blkn[b], &tmp));
          PetscCall(NCGetDouble(&nc, x, 0, blkn[b], tmp));
          for (long long e = 0; e < blkn[b]; e++) fib[(size_t)d * ntet + blkfirst[b] + e] = tmp[e];
          PetscCall(PetscFree(tmp));
        }
      }
      if (all) PetscCall(PetscSNPrintf(desc, ldesc, "element variables %s, %s, %s of %s (time step 1)", names[comp[0]], names[comp[1]], names[comp[2]], file));
      else PetscCall(PetscFree(fib));
    }
    PetscCall(PetscFree(names));
    if (!fib) { /* element attributes: every tet block must have the triple */
      PetscBool all = PETSC_TRUE;
      char      found[3][256];
      PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
      for (long long b = 0; b < nblk && all; b++) {
        char         vn[64];
        const NCVar *x;
        long long    na;
        double      *tmp;
        if (blkfirst[b] < 0) continue;
        PetscCall(PetscSNPrintf(vn, sizeof(vn), "attrib_name%lld", b + 1));
        PetscCall(NCGetNames(&nc, NCFindVar(&nc, vn), &nn, &names));
        FindFibreTriple(nn, names, want, comp);
        PetscCall(PetscSNPrintf(vn, sizeof(vn), "attrib%lld", b + 1));
        x = NCFindVar(&nc, vn);
        if (comp[0] < 0 || !x) {
          all = PETSC_FALSE;
          PetscCall(PetscFree(names));
          break;
        }
        for (int d = 0; d < 3; d++) PetscCall(PetscStrncpy(found[d], names[comp[d]], 256));
        PetscCall(PetscFree(names));
        na = nc.dims[x->dimids[1]].len;
        PetscCall(PetscMalloc1((size_t)(blkn[b] * na), &tmp));
        PetscCall(NCGetDouble(&nc, x, 0, blkn[b] * na, tmp));
        for (long long e = 0; e < blkn[b]; e++)
          for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + blkfirst[b] + e] = tmp[e * na + comp[d]];
        PetscCall(PetscFree(tmp));
      }
      if (all) PetscCall(PetscSNPrintf(desc, ldesc, "element attributes %s, %s, %s of %s", found[0], found[1], found[2], file));
      else PetscCall(PetscFree(fib));
    }
    if (!fib && nc.numrecs > 0) { /* nodal variables, averaged per tet */
      PetscCall(NCGetNames(&nc, NCFindVar(&nc, "name_nod_var"), &nn, &names));
      FindFibreTriple(nn, names, want, comp);
      if (comp[0] >= 0) {
        double      *nodal, *tmp;
        const NCVar *old = NCFindVar(&nc, "vals_nod_var");
        PetscCall(PetscMalloc2(3 * (size_t)nnodes, &nodal, (size_t)nnodes, &tmp));
        for (int d = 0; d < 3; d++) {
          char vn[64];
          PetscCall(PetscSNPrintf(vn, sizeof(vn), "vals_nod_var%d", comp[d] + 1));
          if (NCFindVar(&nc, vn)) PetscCall(NCGetDouble(&nc, NCFindVar(&nc, vn), 0, nnodes, tmp));
          else {
            PetscCheck(old, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: nodal variable %s has no values", file, names[comp[d]]);
            PetscCall(NCGetDouble(&nc, old, comp[d] * nnodes, nnodes, tmp));
          }
          for (long long k = 0; k < nnodes; k++) nodal[3 * k + d] = tmp[k];
        }
        PetscCall(PetscMalloc1(3 * (size_t)ntet, &fib));
        for (long long t = 0; t < ntet; t++) {
          PetscReal v[12], f[3];
          PetscBool ok;
          for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) v[3 * a + d] = nodal[3 * tet[4 * t + a] + d];
          PetscCall(CardiacFibreAverage(4, v, f, &ok));
          PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: the nodal fibres of tetrahedron %lld average to zero", file, t);
          for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + t] = f[d];
        }
        PetscCall(PetscFree2(nodal, tmp));
        PetscCall(PetscSNPrintf(desc, ldesc, "nodal variables %s, %s, %s of %s (time step 1), averaged per element", names[comp[0]], names[comp[1]], names[comp[2]], file));
      }
      PetscCall(PetscFree(names));
    }
    if (fib) /* unit vectors */
      for (long long t = 0; t < ntet; t++) {
        PetscReal f[3] = {fib[t], fib[ntet + t], fib[2 * ntet + t]}, g[3];
        PetscBool ok;
        PetscCall(CardiacFibreAverage(1, f, g, &ok));
        PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ExodusII %s: tetrahedron %lld has a zero or invalid fibre vector", file, t);
        for (int d = 0; d < 3; d++) fib[(size_t)d * ntet + t] = g[d];
      }
  }
  PetscCall(NCClose(&nc));

  /* keep the nodes used by tetrahedra, in file order */
  PetscCall(PetscMalloc1(nnodes, &used));
  for (long long k = 0; k < nnodes; k++) used[k] = -1;
  for (long long q = 0; q < 4 * ntet; q++) used[tet[q]] = 0;
  for (long long k = 0; k < nnodes; k++)
    if (!used[k]) used[k] = nused++;
  m->nv = nused;
  m->nt = (PetscInt)nkept;
  PetscCall(PetscMalloc1(3 * (size_t)nused, &m->xyz));
  for (long long k = 0; k < nnodes; k++)
    if (used[k] >= 0)
      for (int d = 0; d < 3; d++) m->xyz[3 * used[k] + d] = (PetscReal)coords[3 * k + d];
  for (long long q = 0; q < 4 * ntet; q++) tet[q] = used[tet[q]];
  m->tet = tet;
  PetscCall(PetscFree(used));
  PetscCall(PetscFree(coords));
  PetscCall(PetscFree2(blkfirst, blkn));
  *fib_out = fib;
  PetscFunctionReturn(PETSC_SUCCESS);
}
