/* gmsh meshes through PETSc's own reader (DMPlexCreateGmshFromFile: ASCII and binary, formats 2.2, 4.0 and 4.1)
   turned into the LVMesh arrays that the generators, refinement and renumberings work on.

   What PETSc does not give is kept here, small: (1) compressed files (.xz, .gz) are decompressed into a
   temporary file first; (2) the gmsh tags of the tetrahedra and of their nodes, which a file's data sections
   ($ElementData, $NodeData, $ElementNodeData) refer to and which a DMPlex does not keep, come from a scan of
   the $Elements section (tags only; coordinates and connectivity are PETSc's), and are checked against the
   DMPlex cell by cell. */
#include "lvmesh.h"
#include <petscdmplex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PetscBool HasSuffix(const char s[], const char suf[])
{
  size_t l = strlen(s), m = strlen(suf);
  return (PetscBool)(l > m && !strcmp(s + l - m, suf));
}

/* A readable path for PETSc: the file itself, or (.xz/.gz) a decompressed temporary copy (*istmp: unlink it) */
static PetscErrorCode GmshDecompress(const char filename[], char path[], size_t lpath, PetscBool *istmp)
{
  PetscBool xz = HasSuffix(filename, ".xz"), gz = HasSuffix(filename, ".gz");

  PetscFunctionBegin;
  *istmp = PETSC_FALSE;
  if (!xz && !gz) {
    PetscCall(PetscStrncpy(path, filename, lpath));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    char        cmd[3 * PETSC_MAX_PATH_LEN + 200], buf[1 << 16];
    const char *tool = xz ? "xz" : "gzip", *mod = xz ? "lzma" : "gzip", *tmpdir = getenv("TMPDIR");
    FILE       *in, *out;
    int         fd, rin, rout;
    size_t      n, w = 0;
    PetscBool   exists;

    PetscCall(PetscTestFile(filename, 'r', &exists));
    PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open gmsh file %s", filename);
    PetscCall(PetscSNPrintf(path, lpath, "%s/lvmesh_XXXXXX.msh", tmpdir && tmpdir[0] ? tmpdir : "/tmp"));
    fd = mkstemps(path, 4);
    PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create a temporary file %s to decompress %s into", path, filename);
    out = fdopen(fd, "wb");
    /* Python's lzma/gzip modules where the xz/gzip tools are missing */
    PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "%s -dc '%s' 2>/dev/null || python3 -c 'import %s,sys,shutil; shutil.copyfileobj(%s.open(sys.argv[1]), sys.stdout.buffer)' '%s'", tool, filename, mod, mod, filename));
    in = out ? popen(cmd, "r") : NULL;
    if (in) {
      while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
        if (fwrite(buf, 1, n, out) != n) break;
        w += n;
      }
    }
    rin  = in ? pclose(in) : -1;
    rout = out ? fclose(out) : close(fd);
    if (rin || rout || !w) (void)unlink(path); /* nothing left behind on failure */
    PetscCheck(!rin && w, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Decompressing %s failed (%s)", filename, cmd);
    PetscCheck(!rout, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Writing the decompressed %s to %s failed (disk full?)", filename, path);
    *istmp = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tetrahedra (gmsh element type 4) of an ASCII file's $Elements section, in file order: element tag and the
   four node tags of each.  PETSc's reader keeps the tets in this order (its cells), and their nodes in this order
   (DMPlexInvertCell undone), which LVMeshReadGmshTags checks. */
static PetscErrorCode GmshScanTets(const char path[], PetscInt *ntet, PetscInt **etag, PetscInt **ntag)
{
  FILE  *fp = fopen(path, "r");
  char   line[4096];
  double version = 0;
  long   nelem = 0, nt = 0;
  int    ftype = -1;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open gmsh file %s", path);
  *etag = *ntag = NULL;
  while (fgets(line, sizeof(line), fp)) {
    if (!strncmp(line, "$MeshFormat", 11)) {
      PetscCheck(fscanf(fp, "%lf %d %*d", &version, &ftype) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad $MeshFormat in %s", path);
      PetscCheck(ftype == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "gmsh: %s is a binary file: its data sections (fibres) are read from ASCII files only (gmsh -save -format msh41 -bin 0)", path);
    } else if (!strncmp(line, "$Elements", 9)) {
      long nblocks = 0, mintag, maxtag;
      if (version < 3.0) PetscCheck(fscanf(fp, "%ld", &nelem) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad $Elements");
      else PetscCheck(fscanf(fp, "%ld %ld %ld %ld", &nblocks, &nelem, &mintag, &maxtag) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad $Elements");
      PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: truncated $Elements");
      PetscCall(PetscMalloc2(nelem, etag, 4 * nelem, ntag));
      if (version < 3.0) {
        for (long e = 0; e < nelem; e++) {
          long id, v[4];
          int  type, ntags, off, pos;
          PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%ld %d %d%n", &id, &type, &ntags, &pos) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad element");
          if (type != 4) continue;
          for (int q = 0; q < ntags; q++, pos += off) PetscCheck(sscanf(line + pos, "%*d%n", &off) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad element tag");
          PetscCheck(sscanf(line + pos, "%ld %ld %ld %ld", &v[0], &v[1], &v[2], &v[3]) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad tetrahedron");
          (*etag)[nt] = (PetscInt)id;
          for (int a = 0; a < 4; a++) (*ntag)[4 * nt + a] = (PetscInt)v[a];
          nt++;
        }
      } else {
        for (long b = 0; b < nblocks; b++) {
          int  edim, etg, type;
          long nb;
          PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%d %d %d %ld", &edim, &etg, &type, &nb) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad element block");
          for (long q = 0; q < nb; q++) {
            long id, v[4];
            PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: truncated element block");
            if (type != 4) continue;
            PetscCheck(sscanf(line, "%ld %ld %ld %ld %ld", &id, &v[0], &v[1], &v[2], &v[3]) == 5, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: bad tetrahedron");
            (*etag)[nt] = (PetscInt)id;
            for (int a = 0; a < 4; a++) (*ntag)[4 * nt + a] = (PetscInt)v[a];
            nt++;
          }
        }
      }
      break;
    }
  }
  fclose(fp);
  PetscCheck(*etag, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: %s has no $Elements section", path);
  *ntet = (PetscInt)nt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mesh (and the tags) of the readable file path; filename for messages */
static PetscErrorCode GmshReadPath(const char filename[], const char path[], LVMesh *mesh, PetscInt **vtag, PetscInt **ttag)
{
  DM                 dm;
  PetscInt           dim, cdim, cStart, cEnd, vStart, vEnd, nt, nv = 0, *used;
  Vec                X;
  PetscSection       cs;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateGmshFromFile(PETSC_COMM_SELF, path, PETSC_FALSE, &dm));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: %s is a %" PetscInt_FMT "-D mesh in %" PetscInt_FMT "-D space, not a tetrahedral 3-D mesh", filename, dim, cdim);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  nt = cEnd - cStart;
  PetscCheck(nt > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "gmsh: %s has no tetrahedra", filename);
  PetscCall(PetscMalloc1(4 * (size_t)nt, &mesh->tet));
  PetscCall(PetscMalloc1(vEnd - vStart, &used));
  for (PetscInt v = 0; v < vEnd - vStart; v++) used[v] = -1;
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType  ct;
    const PetscInt *cone;
    PetscInt        v[4];
    PetscCall(DMPlexGetCellType(dm, c, &ct));
    PetscCheck(ct == DM_POLYTOPE_TETRAHEDRON, PETSC_COMM_SELF, PETSC_ERR_SUP, "gmsh: %s has a %s cell: only linear tetrahedra (gmsh type 4) are supported", filename, DMPolytopeTypes[ct]);
    PetscCall(DMPlexGetCone(dm, c, &cone));
    for (int a = 0; a < 4; a++) v[a] = cone[a] - vStart;
    PetscCall(DMPlexInvertCell(ct, v)); /* back to the file's node order (PETSc inverted it for its orientation) */
    for (int a = 0; a < 4; a++) {
      if (used[v[a]] < 0) used[v[a]] = 0;
      mesh->tet[4 * (c - cStart) + a] = v[a];
    }
  }
  /* vertices in PETSc's (= file) order, only those of tetrahedra */
  for (PetscInt v = 0; v < vEnd - vStart; v++)
    if (!used[v]) used[v] = nv++;
  for (PetscInt q = 0; q < 4 * nt; q++) mesh->tet[q] = used[mesh->tet[q]];
  PetscCall(PetscMalloc1(3 * (size_t)nv, &mesh->xyz));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt off;
    if (used[v - vStart] < 0) continue;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    for (int d = 0; d < 3; d++) mesh->xyz[3 * used[v - vStart] + d] = PetscRealPart(x[off + d]);
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(PetscFree(used));
  PetscCall(DMDestroy(&dm));
  mesh->nv = nv;
  mesh->nt = nt;

  if (vtag || ttag) {
    PetscInt  nst, *etag, *ntag, *vt;
    PetscCall(GmshScanTets(path, &nst, &etag, &ntag));
    PetscCheck(nst == nt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gmsh: %s: %" PetscInt_FMT " tetrahedra in $Elements, %" PetscInt_FMT " read by PETSc", filename, nst, nt);
    PetscCall(PetscMalloc1(nv, &vt));
    for (PetscInt v = 0; v < nv; v++) vt[v] = PETSC_INT_MIN;
    for (PetscInt q = 0; q < 4 * nt; q++) {
      PetscInt v = mesh->tet[q];
      PetscCheck(vt[v] == PETSC_INT_MIN || vt[v] == ntag[q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "gmsh: %s: tetrahedron %" PetscInt_FMT " does not match PETSc's cell (node tags %" PetscInt_FMT " and %" PetscInt_FMT " at one vertex)", filename, q / 4, vt[v], ntag[q]);
      vt[v] = ntag[q];
    }
    { /* and one vertex per tag */
      PetscInt *st;
      PetscCall(PetscMalloc1(nv, &st));
      PetscCall(PetscArraycpy(st, vt, nv));
      PetscCall(PetscSortInt(nv, st));
      for (PetscInt v = 1; v < nv; v++) PetscCheck(st[v] != st[v - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "gmsh: %s: node tag %" PetscInt_FMT " at two of PETSc's vertices", filename, st[v]);
      PetscCall(PetscFree(st));
    }
    if (vtag) *vtag = vt;
    else PetscCall(PetscFree(vt));
    if (ttag) {
      PetscCall(PetscMalloc1(nt, ttag));
      PetscCall(PetscArraycpy(*ttag, etag, nt));
    }
    PetscCall(PetscFree2(etag, ntag));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  LVMeshReadGmsh - Reads the tetrahedra of a gmsh mesh file through PETSc's reader (`DMPlexCreateGmshFromFile()`)

  Not Collective

  Input Parameter:
. filename - a gmsh `.msh` file (ASCII or binary, formats 2.2, 4.0, 4.1); names ending in `.xz` or `.gz` are
             decompressed first (`xz`/`gzip`, else Python's lzma/gzip modules)

  Output Parameter:
. mesh - the tetrahedra (every 3-D cell must be one), vertices in file order; nodes no tetrahedron uses dropped

  Level: intermediate

  Note:
  Each tetrahedron keeps the node order of the file (PETSc's `DMPlexInvertCell()` undone).

.seealso: `LVMeshReadGmshTags()`, `LVMeshDestroy()`
@*/
PetscErrorCode LVMeshReadGmsh(const char filename[], LVMesh *mesh)
{
  PetscFunctionBegin;
  PetscCall(LVMeshReadGmshTags(filename, mesh, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  LVMeshReadGmshTags - Reads a gmsh mesh as `LVMeshReadGmsh()` does, and the gmsh tags of its vertices and tetrahedra

  Not Collective

  Input Parameter:
. filename - the gmsh file (see `LVMeshReadGmsh()`)

  Output Parameters:
+ mesh - the mesh
. vtag - (optional, `PetscFree()` it) the gmsh node tag of each vertex
- ttag - (optional, `PetscFree()` it) the gmsh element tag of each tetrahedron

  Level: intermediate

  Note:
  The tags are what a file's data sections (`$NodeData`, `$ElementData`, `$ElementNodeData`) refer to; a `DMPLEX`
  keeps none, so they come from a scan of the ASCII `$Elements` section, checked against PETSc's cells.

.seealso: `LVMeshReadGmsh()`
@*/
PetscErrorCode LVMeshReadGmshTags(const char filename[], LVMesh *mesh, PetscInt **vtag, PetscInt **ttag)
{
  char           path[PETSC_MAX_PATH_LEN];
  PetscBool      istmp;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  if (vtag) *vtag = NULL;
  if (ttag) *ttag = NULL;
  PetscCall(GmshDecompress(filename, path, sizeof(path), &istmp));
  /* the temporary file and a half-read mesh go whatever happens; the error itself has been reported where it arose */
  ierr = GmshReadPath(filename, path, mesh, vtag, ttag);
  if (istmp) (void)unlink(path);
  if (ierr) {
    PetscCall(LVMeshDestroy(mesh));
    if (vtag) PetscCall(PetscFree(*vtag));
    if (ttag) PetscCall(PetscFree(*ttag));
  }
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
