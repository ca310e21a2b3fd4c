#include "suite.h"
#include "lvmesh.h"
#include "synth.h"
#include <string.h>
#include <math.h>

#ifndef ELLWARP_LV_DATA_DIR /* set by the ellwarplvmesh library target */
  #define ELLWARP_LV_DATA_DIR "examples/cardiac/data"
#endif

enum {
  GEN_LV_STRUCT_P1,
  GEN_LV_STRUCT_ELAST,
  GEN_LV_GMSH_P1,
  GEN_LV_GMSH_ELAST,
  GEN_POWERLAW,
  GEN_QCD,
  GEN_GRID2D4,
  GEN_MM,
  GEN_BIN
};

static PetscBool suite_rcm_struct = PETSC_FALSE, suite_rcm_gmsh = PETSC_TRUE, suite_sfc = PETSC_FALSE;
static char      suite_msh[PETSC_MAX_PATH_LEN];
#define SUITE_MAX_LEVEL 4
static LVMesh    gmsh_levels[SUITE_MAX_LEVEL + 1];
static PetscBool gmsh_have[SUITE_MAX_LEVEL + 1];

static PetscBool ListHas(const char *list, const char *word)
{
  char   buf[1024], *tok, *save = NULL;
  size_t n = strlen(list);
  if (n >= sizeof(buf)) return PETSC_FALSE;
  memcpy(buf, list, n + 1);
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (!strcmp(tok, word)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* gmsh meshes: level r = coarse mesh refined r times; nodes grow by about 7.6x per level from 20k */
static PetscInt GmshLevelFor(PetscReal nodes)
{
  PetscReal n0 = 2.0e4, best = PETSC_MAX_REAL;
  PetscInt  lev = 0;
  for (PetscInt r = 0; r <= 3; r++) {
    PetscReal d = PetscAbsReal(log(n0 * pow(7.6, (double)r) / nodes));
    if (d < best - 1e-12) {
      best = d;
      lev  = r;
    }
  }
  return lev;
}

static void Add(PetscInt *n, SuiteEntry e[], const char *name, const char *kind, int id, const char *desc)
{
  SuiteEntry *x = &e[*n];
  memset(x, 0, sizeof(*x));
  snprintf(x->name, sizeof(x->name), "%s", name);
  snprintf(x->kind, sizeof(x->kind), "%s", kind);
  snprintf(x->desc, sizeof(x->desc), "%s", desc);
  x->id = id;
  (*n)++;
}

PetscErrorCode SuiteGetEntries(PetscInt *n, SuiteEntry e[])
{
  char      suite[256] = "all", names[1024] = "", mm[4096] = "", bin[8192] = "";
  PetscReal s          = 1.0;
  PetscInt  m          = 0, k = 0;
  PetscBool hasnames;
  SuiteEntry all[SUITE_MAX_ENTRIES];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(suite_msh, sizeof(suite_msh), "%s/lv_coarse.msh.xz", ELLWARP_LV_DATA_DIR));
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "SpMV benchmark suite", NULL);
  PetscCall(PetscOptionsString("-suite", "Kinds to run: all or a list of fe,irregular,regular,mm", NULL, suite, suite, sizeof(suite), NULL));
  PetscCall(PetscOptionsString("-matrices", "Only these matrix names (comma separated)", NULL, names, names, sizeof(names), &hasnames));
  PetscCall(PetscOptionsReal("-scale", "Scale factor for the number of rows", NULL, s, &s, NULL));
  PetscCall(PetscOptionsString("-mm", "Matrix Market files to add (comma separated)", NULL, mm, mm, sizeof(mm), NULL));
  PetscCall(PetscOptionsString("-bin", "PETSc binary matrix files to add (comma separated; benchmarks/spmv/plex_matrices writes them)", NULL, bin, bin, sizeof(bin), NULL));
  PetscCall(PetscOptionsString("-lv_msh", "Coarse gmsh LV mesh (.msh, .msh.xz)", NULL, suite_msh, suite_msh, sizeof(suite_msh), NULL));
  PetscCall(PetscOptionsBool("-lv_rcm", "RCM-renumber the structured LV meshes", NULL, suite_rcm_struct, &suite_rcm_struct, NULL));
  PetscCall(PetscOptionsBool("-lv_rcm_gmsh", "RCM-renumber the (refined) gmsh LV meshes", NULL, suite_rcm_gmsh, &suite_rcm_gmsh, NULL));
  PetscCall(PetscOptionsBool("-lv_sfc", "Hilbert-curve renumbering of the LV meshes (after any RCM, so it replaces it)", NULL, suite_sfc, &suite_sfc, NULL));
  PetscOptionsEnd();
  PetscCheck(s > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-scale must be positive");

  /* FE matrices on the idealized LV */
  Add(&m, all, "lv_struct_p1", "fe", GEN_LV_STRUCT_P1, "structured LV (Kuhn tets), P1 anisotropic diffusion");
  all[m - 1].rp[0] = 1.0e6 * s;
  Add(&m, all, "lv_struct_elast", "fe", GEN_LV_STRUCT_ELAST, "structured LV (Kuhn tets), P1 elasticity, 3 dofs/node");
  all[m - 1].rp[0] = 2.5e5 * s;
  Add(&m, all, "lv_gmsh_p1", "fe", GEN_LV_GMSH_P1, "gmsh LV refined (Bey), RCM, P1 anisotropic diffusion");
  all[m - 1].ip[0] = GmshLevelFor(1.2e6 * s);
  Add(&m, all, "lv_gmsh_elast", "fe", GEN_LV_GMSH_ELAST, "gmsh LV refined (Bey), RCM, P1 elasticity, 3 dofs/node");
  all[m - 1].ip[0] = GmshLevelFor(1.5e5 * s);
  Add(&m, all, "lv_gmsh_p1_coarse", "fe", GEN_LV_GMSH_P1, "gmsh LV coarse (h=0.55 mm), RCM, P1 anisotropic diffusion");
  all[m - 1].ip[0] = 0;
  /* irregular */
  Add(&m, all, "powerlaw_circuit", "irregular", GEN_POWERLAW, "Pareto row lengths (alpha 2.5, xmin 2), 70% local columns");
  all[m - 1].ip[0] = (PetscInt)PetscMax(1000, 1.0e6 * s);
  all[m - 1].ip[1] = 100000;
  all[m - 1].rp[0] = 2.5;
  all[m - 1].rp[1] = 2.0;
  all[m - 1].rp[2] = 0.7;
  all[m - 1].ip[2] = 12345;
  Add(&m, all, "powerlaw_web", "irregular", GEN_POWERLAW, "Pareto row lengths (alpha 2.2, xmin 1, cap 1e5), 50% local columns");
  all[m - 1].ip[0] = (PetscInt)PetscMax(1000, 1.0e6 * s);
  all[m - 1].ip[1] = 100000;
  all[m - 1].rp[0] = 2.2;
  all[m - 1].rp[1] = 1.0;
  all[m - 1].rp[2] = 0.5;
  all[m - 1].ip[2] = 6789;
  /* regular */
  Add(&m, all, "qcd", "regular", GEN_QCD, "4-D periodic lattice, 3 dofs/site, 13-site stencil: 39 per row");
  all[m - 1].ip[0] = PetscMax(5, (PetscInt)round(20.0 * pow(s, 0.25)));
  Add(&m, all, "epidemiology", "regular", GEN_GRID2D4, "2-D grid, 4 neighbours, no diagonal (2..4 per row)");
  all[m - 1].ip[0] = PetscMax(8, (PetscInt)round(1024.0 * sqrt(s)));
  /* Matrix Market files */
  if (mm[0]) {
    char *tok, *save = NULL;
    for (tok = strtok_r(mm, ",", &save); tok && m < SUITE_MAX_ENTRIES; tok = strtok_r(NULL, ",", &save)) {
      const char *base = strrchr(tok, '/');
      char        name[64];
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s", base ? base + 1 : tok));
      name[strcspn(name, ".")] = 0;
      Add(&m, all, name, "mm", GEN_MM, "Matrix Market file");
      PetscCall(PetscStrncpy(all[m - 1].file, tok, sizeof(all[m - 1].file)));
    }
  }
  /* PETSc binary files (kind "bin", always taken like "mm"): the block size comes from the file's .info */
  if (bin[0]) {
    char *tok, *save = NULL;
    for (tok = strtok_r(bin, ",", &save); tok && m < SUITE_MAX_ENTRIES; tok = strtok_r(NULL, ",", &save)) {
      const char *base = strrchr(tok, '/');
      char        name[64];
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s", base ? base + 1 : tok));
      name[strcspn(name, ".")] = 0;
      Add(&m, all, name, "bin", GEN_BIN, "PETSc binary file");
      PetscCall(PetscStrncpy(all[m - 1].file, tok, sizeof(all[m - 1].file)));
    }
  }
  for (PetscInt i = 0; i < m; i++) {
    PetscBool take = (PetscBool)(ListHas(suite, "all") || ListHas(suite, all[i].kind) || !strcmp(all[i].kind, "mm") || !strcmp(all[i].kind, "bin"));
    if (hasnames && names[0]) take = ListHas(names, all[i].name);
    if (take) e[k++] = all[i];
  }
  *n = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetGmshLevel(PetscInt lev, LVMesh **mesh)
{
  PetscFunctionBegin;
  PetscCheck(lev >= 0 && lev <= SUITE_MAX_LEVEL, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bad refinement level");
  if (!gmsh_have[lev]) {
    if (lev == 0) {
      PetscBool exists;
      PetscCall(PetscTestFile(suite_msh, 'r', &exists));
      if (!exists) { /* built elsewhere: try relative to the current directory (repository root) */
        PetscCall(PetscTestFile("examples/cardiac/data/lv_coarse.msh.xz", 'r', &exists));
        if (exists) PetscCall(PetscStrncpy(suite_msh, "examples/cardiac/data/lv_coarse.msh.xz", sizeof(suite_msh)));
      }
      PetscCall(LVMeshReadGmsh(suite_msh, &gmsh_levels[0]));
    }
    else {
      LVMesh *c;
      PetscCall(GetGmshLevel(lev - 1, &c));
      PetscCall(LVMeshRefineUniform(c, &gmsh_levels[lev]));
    }
    gmsh_have[lev] = PETSC_TRUE;
  }
  *mesh = &gmsh_levels[lev];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SuiteBuildMatrix(const SuiteEntry *e, Mat *A)
{
  PetscFunctionBegin;
  switch (e->id) {
  case GEN_LV_STRUCT_P1:
  case GEN_LV_STRUCT_ELAST: {
    LVMesh mesh;
    PetscCall(LVMeshCreateStructuredByNodes((PetscCount)e->rp[0], &mesh));
    if (suite_rcm_struct) PetscCall(LVMeshRenumberRCM(&mesh));
    if (suite_sfc) PetscCall(LVMeshRenumberSFC(&mesh, PETSC_TRUE));
    if (e->id == GEN_LV_STRUCT_P1) PetscCall(LVMeshAssembleDiffusion(&mesh, A));
    else PetscCall(LVMeshAssembleElasticity(&mesh, A));
    PetscCall(LVMeshDestroy(&mesh));
  } break;
  case GEN_LV_GMSH_P1:
  case GEN_LV_GMSH_ELAST: {
    LVMesh *c, mesh;
    PetscCall(GetGmshLevel(e->ip[0], &c));
    mesh.nv = c->nv;
    mesh.nt = c->nt;
    PetscCall(PetscMalloc1(3 * (size_t)c->nv, &mesh.xyz));
    PetscCall(PetscMalloc1(4 * (size_t)c->nt, &mesh.tet));
    PetscCall(PetscArraycpy(mesh.xyz, c->xyz, 3 * (size_t)c->nv));
    PetscCall(PetscArraycpy(mesh.tet, c->tet, 4 * (size_t)c->nt));
    if (suite_rcm_gmsh) PetscCall(LVMeshRenumberRCM(&mesh));
    if (suite_sfc) PetscCall(LVMeshRenumberSFC(&mesh, PETSC_TRUE));
    if (e->id == GEN_LV_GMSH_P1) PetscCall(LVMeshAssembleDiffusion(&mesh, A));
    else PetscCall(LVMeshAssembleElasticity(&mesh, A));
    PetscCall(LVMeshDestroy(&mesh));
  } break;
  case GEN_POWERLAW:
    PetscCall(SynthPowerLaw(e->ip[0], e->rp[0], e->rp[1], e->ip[1], e->rp[2], (uint64_t)e->ip[2], A));
    break;
  case GEN_QCD:
    PetscCall(SynthQCD(e->ip[0], A));
    break;
  case GEN_GRID2D4:
    PetscCall(SynthGrid2D4(e->ip[0], A));
    break;
  case GEN_MM:
    PetscCall(MatLoadMatrixMarket(e->file, A));
    break;
  case GEN_BIN: {
    PetscViewer v;
    /* a block size left in the options database by an earlier file's .info must not stick to this one */
    PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, e->file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_SELF, A));
    PetscCall(MatSetType(*A, MATSEQAIJ));
    PetscCall(MatLoad(*A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
  } break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown generator");
  }
  PetscCall(PetscObjectSetName((PetscObject)*A, e->name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SuiteFinalize(void)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l <= SUITE_MAX_LEVEL; l++)
    if (gmsh_have[l]) {
      PetscCall(LVMeshDestroy(&gmsh_levels[l]));
      gmsh_have[l] = PETSC_FALSE;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SuiteRowStats(Mat A, PetscInt *minlen, PetscInt *maxlen, PetscReal *mean, PetscReal *stddev)
{
  const PetscInt *ia, *ja;
  PetscInt        m;
  PetscBool       done;
  PetscReal       s1 = 0, s2 = 0;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  *minlen = PETSC_INT_MAX;
  *maxlen = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt l = ia[i + 1] - ia[i];
    *minlen    = PetscMin(*minlen, l);
    *maxlen    = PetscMax(*maxlen, l);
    s1 += l;
    s2 += (PetscReal)l * l;
  }
  *mean   = m ? s1 / m : 0;
  *stddev = m ? PetscSqrtReal(PetscMax(0.0, s2 / m - (*mean) * (*mean))) : 0;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}
