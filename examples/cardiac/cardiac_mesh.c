/* Meshes of the cardiac example: the idealized left ventricle of Land et al. 2015 (gmsh meshes in
   examples/cardiac/data, or the structured generator of the ellwarplvmesh library, examples/lvmesh), any gmsh tetrahedral mesh,
   or the 20 x 7 x 3 mm slab of the conduction-velocity study; uniform refinement, RCM renumbering;
   rule-based fibres and the stimulus region, per element. */
#include "cardiac.h"
#include <petscellwarp/private/ellwarpkuhn.h>
#include <petscellwarp/private/ellwarpthreads.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#if !defined(ELLWARP_LV_DATA_DIR) /* set by the ellwarplvmesh library target */
  #define ELLWARP_LV_DATA_DIR "examples/cardiac/data"
#endif

/* box [0,L0]x[0,L1]x[0,L2] with n0 x n1 x n2 cells, each cut into 6 Kuhn tetrahedra */
static PetscErrorCode CreateBox(const PetscReal L[3], const PetscInt n[3], LVMesh *m)
{
  PetscInt nx = n[0] + 1, ny = n[1] + 1, nz = n[2] + 1;

  PetscFunctionBegin;
  m->nv = nx * ny * nz;
  m->nt = 6 * n[0] * n[1] * n[2];
  PetscCall(PetscMalloc1(3 * (size_t)m->nv, &m->xyz));
  PetscCall(PetscMalloc1(4 * (size_t)m->nt, &m->tet));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        PetscInt v       = i + nx * (j + ny * k);
        m->xyz[3 * v + 0] = L[0] * i / n[0];
        m->xyz[3 * v + 1] = L[1] * j / n[1];
        m->xyz[3 * v + 2] = L[2] * k / n[2];
      }
  for (PetscInt c = 0; c < n[0] * n[1] * n[2]; c++)
    for (int s = 0; s < 6; s++) EllwarpKuhnBoxTet(n, c, s, m->tet + 4 * (6 * c + s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Mesh quality (why: the structured LV's collapsed apex pole makes slivers whose aspect ratio grows with the
   circumferential count, and CG + Jacobi iterations grow with it until they exceed the limit): signed volumes
   (degenerate and each orientation counted), dihedral angles, tets per vertex. */
static PetscErrorCode CardiacMeshQuality(const LVMesh *m)
{
  static const int edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  PetscInt        *val, vmax = 0, vmaxat = 0, npos = 0, nneg = 0, ndeg = 0, nsmall = 0;
  PetscReal        vol = 0, dmin = 180, dmax = 0, vmin = PETSC_MAX_REAL, vmx = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(m->nv, &val));
  for (PetscInt t = 0; t < m->nt; t++) {
    const PetscInt *v = m->tet + 4 * t;
    PetscReal       x[4][3], n[4][3], det, L = 0;
    for (int a = 0; a < 4; a++) {
      val[v[a]]++;
      for (int d = 0; d < 3; d++) x[a][d] = m->xyz[3 * v[a] + d];
    }
    for (int e = 0; e < 6; e++) {
      PetscReal l = 0;
      for (int d = 0; d < 3; d++) l += PetscSqr(x[edges[e][1]][d] - x[edges[e][0]][d]);
      L = PetscMax(L, l);
    }
    {
      PetscReal a[3], b[3], c[3];
      for (int d = 0; d < 3; d++) {
        a[d] = x[1][d] - x[0][d];
        b[d] = x[2][d] - x[0][d];
        c[d] = x[3][d] - x[0][d];
      }
      det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    if (PetscAbsReal(det) <= 1e-12 * L * PetscSqrtReal(L)) {
      ndeg++;
      continue;
    }
    if (det > 0) npos++;
    else nneg++;
    vol += PetscAbsReal(det) / 6;
    vmin = PetscMin(vmin, PetscAbsReal(det) / 6);
    vmx  = PetscMax(vmx, PetscAbsReal(det) / 6);
    /* face normals (face a = opposite vertex a, pointing away from it); dihedral angle at the edge shared by
       faces a and b = pi - angle(n_a, n_b) */
    for (int a = 0; a < 4; a++) {
      const PetscReal *p = x[(a + 1) % 4], *q = x[(a + 2) % 4], *r = x[(a + 3) % 4];
      PetscReal        u[3], w[3], nn = 0, s = 0;
      for (int d = 0; d < 3; d++) {
        u[d] = q[d] - p[d];
        w[d] = r[d] - p[d];
      }
      n[a][0] = u[1] * w[2] - u[2] * w[1];
      n[a][1] = u[2] * w[0] - u[0] * w[2];
      n[a][2] = u[0] * w[1] - u[1] * w[0];
      for (int d = 0; d < 3; d++) {
        nn += n[a][d] * n[a][d];
        s += n[a][d] * (x[a][d] - p[d]);
      }
      nn = PetscSqrtReal(nn);
      for (int d = 0; d < 3; d++) n[a][d] /= (s > 0 ? -nn : nn);
    }
    for (int a = 0; a < 4; a++)
      for (int b = a + 1; b < 4; b++) {
        PetscReal c = n[a][0] * n[b][0] + n[a][1] * n[b][1] + n[a][2] * n[b][2], ang;
        ang  = 180.0 - PetscAcosReal(PetscMin(1.0, PetscMax(-1.0, c))) * 180.0 / PETSC_PI;
        dmin = PetscMin(dmin, ang);
        dmax = PetscMax(dmax, ang);
        if (ang < 5.0) nsmall++;
      }
  }
  for (PetscInt v = 0; v < m->nv; v++)
    if (val[v] > vmax) {
      vmax   = val[v];
      vmaxat = v;
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: mesh quality: volume %.4f mm^3, element volumes %.3e .. %.3e, %" PetscInt_FMT " degenerate, orientation %" PetscInt_FMT " +/%" PetscInt_FMT " -; dihedral angles %.2f .. %.2f deg (%" PetscInt_FMT " below 5 deg); at most %" PetscInt_FMT " tets at a vertex (at %.3g,%.3g,%.3g)\n", (double)vol, (double)vmin, (double)vmx, ndeg, npos, nneg, (double)dmin, (double)dmax, nsmall, vmax, (double)m->xyz[3 * vmaxat], (double)m->xyz[3 * vmaxat + 1], (double)m->xyz[3 * vmaxat + 2]));
  PetscCall(PetscFree(val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* which file reader a -mesh name needs */
static PetscErrorCode IsExodusName(const char name[], PetscBool *exo)
{
  static const char *const ext[] = {".exo", ".e", ".ex2", ".exii", ".g", ".gen"};
  size_t                   len   = strlen(name);

  PetscFunctionBegin;
  *exo = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
    size_t l = strlen(ext[k]);
    if (len > l && !strcasecmp(name + len - l, ext[k])) *exo = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* set-up phases in -log_view (cardiac.c prints the same split) */
static PetscLogEvent ev_read, ev_refine, ev_renumber, ev_fibres, ev_plex;
static PetscErrorCode RegisterEvents(void)
{
  PetscFunctionBegin;
  if (ev_read) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventRegister("CardiacMeshRead", DM_CLASSID, &ev_read));
  PetscCall(PetscLogEventRegister("CardiacMeshRefine", DM_CLASSID, &ev_refine));
  PetscCall(PetscLogEventRegister("CardiacRenumber", DM_CLASSID, &ev_renumber));
  PetscCall(PetscLogEventRegister("CardiacFibres", DM_CLASSID, &ev_fibres));
  PetscCall(PetscLogEventRegister("CardiacToDMPlex", DM_CLASSID, &ev_plex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stimulus weight of each tet (its centroid in the ball, or below x for the slab) and the slab's fibres, a range of
   tets per host thread (a serial loop over the 6 M tets of the 1 M LV after the threaded rule fibres) */
typedef struct {
  CardiacMesh     *cm;
  const PetscReal *stimc;
  PetscReal        stimr, stimx;
  PetscBool        slabfib;
} StimCtx;

static int StimWork(void *ctx, PetscInt range, PetscCount e0, PetscCount e1)
{
  StimCtx       *sc = (StimCtx *)ctx;
  CardiacMesh   *cm = sc->cm;
  const PetscInt nt = cm->m.nt;

  (void)range;
  for (PetscInt e = (PetscInt)e0; e < (PetscInt)e1; e++) {
    PetscReal c[3] = {0, 0, 0}, r2 = 0;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) c[d] += 0.25 * cm->m.xyz[3 * cm->m.tet[4 * e + a] + d];
    if (sc->slabfib)
      for (int d = 0; d < 3; d++) cm->fib[(size_t)d * nt + e] = d == 0 ? 1.0 : 0.0; /* along x */
    for (int d = 0; d < 3; d++) r2 += PetscSqr(c[d] - sc->stimc[d]);
    cm->stim[e] = cm->slab ? (c[0] < sc->stimx ? 1.0 : 0.0) : (r2 < sc->stimr * sc->stimr ? 1.0 : 0.0);
  }
  return 0;
}

PetscErrorCode CardiacMeshCreate(CardiacMesh *cm, PetscBool *dummy)
{
  char        mesh[PETSC_MAX_PATH_LEN] = "lv", fname[256] = "", fdesc[sizeof(cm->fibres)] = "";
  PetscInt    refine = 0, lvnodes = 20000, nt, nthreads = 0;
  PetscReal   slab_h = 0.5, slabL[3] = {20, 7, 3}, helix[2] = {60, -60}, stimc[3] = {0, 0, -18.5}, stimr = 2.5, stimx = 1.5;
  PetscInt    nL = 3, nh = 2, nc = 3;
  PetscBool   rcm = PETSC_TRUE, rcm_petsc = PETSC_FALSE, sfc = PETSC_FALSE, isfile = PETSC_FALSE, quality = PETSC_FALSE, exo = PETSC_FALSE;
  PetscReal  *ffib = NULL; /* [3][nt] fibres from the file, refined along with the mesh */
  const char *srcs[] = {"auto", "file", "rule", "CardiacFibreSource", "CARDIAC_FIBRES_", NULL};
  PetscEnum   src    = 0; /* auto: the file's fibres when it has them, else the rule */

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Cardiac example: mesh, fibres and stimulus", NULL);
  PetscCall(PetscOptionsString("-mesh", "lv (gmsh LV of Land et al. 2015, ~20k nodes), lv6k (gmsh LV, 6.5k nodes: base of the refinement study), lvstruct (structured LV, -lv_nodes), slab (20x7x3 mm, -slab_h), a gmsh .msh[.xz|.gz] (read by PETSc) or an ExodusII .exo/.e (read by the exodusII library) tetrahedral mesh", NULL, mesh, mesh, sizeof(mesh), NULL));
  PetscCall(PetscOptionsInt("-lv_nodes", "lvstruct: about this many vertices", NULL, lvnodes, &lvnodes, NULL));
  PetscCall(PetscOptionsReal("-slab_h", "slab: mesh size (mm)", NULL, slab_h, &slab_h, NULL));
  PetscCall(PetscOptionsRealArray("-slab_size", "slab: edge lengths (mm)", NULL, slabL, &nL, NULL));
  PetscCall(PetscOptionsInt("-refine", "uniform refinements (1 tet -> 8)", NULL, refine, &refine, NULL));
  PetscCall(PetscOptionsBool("-rcm", "renumber the vertices by reverse Cuthill-McKee", NULL, rcm, &rcm, NULL));
  PetscCall(PetscOptionsBool("-rcm_petsc", "-rcm through PETSc's MatGetOrdering(MATORDERINGRCM) of the node graph as a Mat (the reference: the default computes the same permutation on the graph directly, faster)", NULL, rcm_petsc, &rcm_petsc, NULL));
  PetscCall(PetscOptionsBool("-sfc", "renumber the vertices along a Hilbert curve (replaces -rcm): row blocks are compact 3-D clusters", NULL, sfc, &sfc, NULL));
  PetscCall(PetscOptionsEnum("-fibres", "fibre directions: auto (from the mesh file when it has a fibre field, else rule-based), file (from the mesh file, error when absent), rule (rule-based LV helix, -helix)", NULL, srcs, src, &src, NULL));
  PetscCall(PetscOptionsString("-fibres_field", "name of the fibre field in the mesh file (gmsh: a 3-component $ElementData/$NodeData/$ElementNodeData field; ExodusII: element variables, element attributes or nodal variables NAME_x/_y/_z, NAMEx/y/z or NAME1/2/3); default: any name starting with \"fib\"", NULL, fname, fname, sizeof(fname), NULL));
  PetscCall(PetscOptionsRealArray("-helix", "LV fibres: helix angle endocardium,epicardium (degrees)", NULL, helix, &nh, NULL));
  PetscCall(PetscOptionsRealArray("-stim_center", "LV/file meshes: centre of the stimulated ball (mm)", NULL, stimc, &nc, NULL));
  PetscCall(PetscOptionsReal("-stim_radius", "LV/file meshes: radius of the stimulated ball (mm)", NULL, stimr, &stimr, NULL));
  PetscCall(PetscOptionsReal("-stim_x", "slab: elements with centroid x below this are stimulated (mm)", NULL, stimx, &stimx, NULL));
  PetscCall(PetscOptionsInt("-mesh_threads", "host threads for the rule fibres and the stimulus region (0: the CPUs this process may run on)", NULL, nthreads, &nthreads, NULL));
  PetscCall(PetscOptionsBool("-mesh_quality", "print mesh quality: volumes, orientation, dihedral angles, tets per vertex", NULL, quality, &quality, NULL));
  PetscOptionsEnd();

  PetscCall(PetscMemzero(cm, sizeof(*cm)));
  PetscCall(RegisterEvents());
  PetscCall(PetscLogEventBegin(ev_read, 0, 0, 0, 0));
  PetscCall(PetscStrcmp(mesh, "slab", &cm->slab));
  if (cm->slab) {
    PetscInt n[3];
    PetscCheck(src != 1, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "cardiac: -fibres file needs a mesh file (-mesh FILE)");
    for (int d = 0; d < 3; d++) n[d] = PetscMax(1, (PetscInt)round(slabL[d] / slab_h));
    PetscCall(CreateBox(slabL, n, &cm->m));
    for (int q = 0; q < 2; q++) {
      cm->probe[q][0] = q ? 0.75 * slabL[0] : 0.25 * slabL[0];
      cm->probe[q][1] = 0.5 * slabL[1];
      cm->probe[q][2] = 0.5 * slabL[2];
    }
  } else {
    PetscBool lv, lv6k, lvs;
    PetscCall(PetscStrcmp(mesh, "lv", &lv));
    PetscCall(PetscStrcmp(mesh, "lv6k", &lv6k));
    PetscCall(PetscStrcmp(mesh, "lvstruct", &lvs));
    isfile = (PetscBool)(!lv && !lv6k && !lvs);
    if (isfile) PetscCall(IsExodusName(mesh, &exo));
    PetscCheck(isfile || src != 1, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "cardiac: -fibres file needs a mesh file (-mesh FILE); -mesh %s has no fibre data", mesh);
    if (lvs) {
      PetscCall(LVMeshCreateStructuredByNodes(lvnodes, &cm->m));
      if (cm->m.nv > 200000) /* README.md: min dihedral 0.75 deg and ~700 CG its per solve at 328k */
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: note: the structured LV's apex pole makes slivers that get thinner with the circumferential count (-mesh_quality); CG + Jacobi iterations grow fast with it and exceed 1000 near 2 M vertices; -mesh lv6k -refine k is shape-regular at every size\n"));
    }
    else if (exo) PetscCall(CardiacExodusRead(mesh, &cm->m, src != 2, fname, &ffib, fdesc, sizeof(fdesc)));
    else if (isfile && src != 2) {
      PetscInt *vtag, *ttag;
      PetscBool found;
      PetscCall(LVMeshReadGmshTags(mesh, &cm->m, &vtag, &ttag));
      PetscCall(PetscMalloc1(3 * (size_t)cm->m.nt, &ffib));
      PetscCall(CardiacFibresReadGmsh(mesh, &cm->m, vtag, ttag, fname, ffib, &found, fdesc, sizeof(fdesc)));
      if (!found) PetscCall(PetscFree(ffib));
      PetscCall(PetscFree(vtag));
      PetscCall(PetscFree(ttag));
    } else PetscCall(LVMeshReadGmsh(isfile ? mesh : lv6k ? ELLWARP_LV_DATA_DIR "/lv_6k.msh.xz" : ELLWARP_LV_DATA_DIR "/lv_coarse.msh.xz", &cm->m));
    PetscCheck(src != 1 || ffib, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "cardiac: -fibres file: %s has no fibre field (%s%s, 3 components)", mesh, fname[0] ? "named " : "a name starting with \"fib\"", fname);
  }
  PetscCall(PetscLogEventEnd(ev_read, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(ev_refine, 0, 0, 0, 0));
  for (PetscInt k = 0; k < refine; k++) {
    LVMesh fine;
    PetscCall(LVMeshRefineUniform(&cm->m, &fine));
    if (ffib) { /* LVMeshRefineUniform puts the 8 children of tet e at 8e .. 8e+7: they inherit its fibre */
      PetscReal *f;
      PetscCall(PetscMalloc1(3 * (size_t)fine.nt, &f));
      for (int d = 0; d < 3; d++)
        for (PetscInt e = 0; e < fine.nt; e++) f[(size_t)d * fine.nt + e] = ffib[(size_t)d * cm->m.nt + e / 8];
      PetscCall(PetscFree(ffib));
      ffib = f;
    }
    PetscCall(LVMeshDestroy(&cm->m));
    cm->m = fine;
  }
  PetscCall(PetscLogEventEnd(ev_refine, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(ev_renumber, 0, 0, 0, 0));
  if (sfc) PetscCall(LVMeshRenumberSFC(&cm->m, PETSC_TRUE));
  else if (rcm && rcm_petsc) PetscCall(LVMeshRenumberRCMPetsc(&cm->m));
  else if (rcm) PetscCall(LVMeshRenumberRCM(&cm->m)); /* vertices only: the tet order (and ffib) stays */
  PetscCall(PetscLogEventEnd(ev_renumber, 0, 0, 0, 0));
  if (quality) PetscCall(CardiacMeshQuality(&cm->m));
  nt = cm->m.nt;
  PetscCall(PetscLogEventBegin(ev_fibres, 0, 0, 0, 0));
  PetscCall(PetscMalloc1((size_t)nt, &cm->stim));
  if (ffib) cm->fib = ffib;
  else PetscCall(PetscMalloc1(3 * (size_t)nt, &cm->fib));
  if (!ffib && !cm->slab) PetscCall(LVMeshFibres(&cm->m, helix[0], helix[1], nthreads, cm->fib)); /* the rule, on the host's cores */
  {
    StimCtx sc = {cm, stimc, stimr, stimx, (PetscBool)(!ffib && cm->slab)};
    PetscInt nth;
    PetscCall(PetscEllwarpThreadsGetCount(nthreads, nt, 65536, &nth));
    PetscCall(PetscEllwarpThreadsRun(nth, nt, StimWork, &sc));
  }
  if (ffib) PetscCall(PetscSNPrintf(cm->fibres, sizeof(cm->fibres), "from the mesh file: %s", fdesc));
  else if (cm->slab) PetscCall(PetscSNPrintf(cm->fibres, sizeof(cm->fibres), "rule: along x (slab)"));
  else PetscCall(PetscSNPrintf(cm->fibres, sizeof(cm->fibres), "rule: LV helix %g (endocardium) to %g (epicardium) degrees%s", (double)helix[0], (double)helix[1], isfile && src == 0 ? "; the mesh file has no fibre field" : ""));
  cm->fibres_from_file = ffib ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscLogEventEnd(ev_fibres, 0, 0, 0, 0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: fibres %s\n", cm->fibres));
  {
    PetscReal ns = 0;
    for (PetscInt e = 0; e < nt; e++) ns += cm->stim[e];
    PetscCheck(ns > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "cardiac: no element in the stimulus region (-stim_center, -stim_radius, -stim_x)");
    PetscCall(PetscInfo(NULL, "cardiac mesh: %" PetscInt_FMT " vertices, %" PetscInt_FMT " tets, %g stimulated\n", cm->m.nv, nt, (double)ns));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell list for DMPlex, a range of tets per host thread: each tet's vertices ordered so that its first face points
   inward (negative volume), as DMPlex wants; bad[range]: the range's first degenerate tet, or -1 */
typedef struct {
  const LVMesh *m;
  PetscInt     *cells;
  PetscInt      bad[64];
} OrientCtx;

static int OrientWork(void *ctx, PetscInt range, PetscCount t0, PetscCount t1)
{
  OrientCtx *oc = (OrientCtx *)ctx;

  oc->bad[range] = -1;
  for (PetscInt t = (PetscInt)t0; t < (PetscInt)t1; t++) {
    const PetscInt *v = oc->m->tet + 4 * t;
    PetscReal       e[3][3], det;
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) e[a][d] = oc->m->xyz[3 * v[a + 1] + d] - oc->m->xyz[3 * v[0] + d];
    det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    if (det == 0 && oc->bad[range] < 0) oc->bad[range] = t;
    oc->cells[4 * t + 0] = v[0];
    oc->cells[4 * t + 1] = det > 0 ? v[2] : v[1];
    oc->cells[4 * t + 2] = det > 0 ? v[1] : v[2];
    oc->cells[4 * t + 3] = v[3];
  }
  return 0;
}

/* The uninterpolated DMPlex of the cell list through PETSc's public API, what DMPlexBuildFromCellList() and
   DMPlexBuildCoordinatesFromCellList() make (cells 0 .. nt-1 on vertices nt .. nt+nv-1), with the supports taken from
   the vertex -> tets map (LVMeshNodeToTets, on the host's cores) instead of DMPlexSymmetrize(): 0.5-0.6 s of the
   1.0 s DMPlexBuildFromCellList took for the 6 M tets of the 1 M LV on the 2-core CI machine (a PetscSection call per
   cone entry, twice).  Symmetrize lists the support of a vertex as the cells whose cone holds it, in increasing
   order, which is that map; the cones, the depth strata (DMPlexStratify) and the coordinates are PETSc's.
   -cardiac_plex_fromcelllist builds it with DMPlexCreateFromCellListPetsc() instead; -cardiac_plex_check builds
   both and compares them (tests/CMakeLists.txt). */
static PetscErrorCode CardiacPlexFromCells(const CardiacMesh *cm, const PetscInt *cells, DM *dm)
{
  const PetscInt nt = cm->m.nt, nv = cm->m.nv;
  PetscInt      *n2e_i, *n2e, *cones;

  PetscFunctionBegin;
  PetscCall(LVMeshNodeToTets(&cm->m, &n2e_i, &n2e));
  PetscCall(DMCreate(PETSC_COMM_WORLD, dm));
  PetscCall(DMSetType(*dm, DMPLEX));
  PetscCall(DMSetDimension(*dm, 3));
  PetscCall(DMPlexSetChart(*dm, 0, nt + nv));
  for (PetscInt c = 0; c < nt; c++) PetscCall(DMPlexSetConeSize(*dm, c, 4));
  for (PetscInt v = 0; v < nv; v++) PetscCall(DMPlexSetSupportSize(*dm, nt + v, n2e_i[v + 1] - n2e_i[v]));
  PetscCall(DMSetUp(*dm)); /* allocates the cones and, the support sizes being set, the supports */
  PetscCall(DMPlexGetCones(*dm, &cones));
  for (PetscCount q = 0; q < 4 * (PetscCount)nt; q++) cones[q] = cells[q] + nt;
  for (PetscInt v = 0; v < nv; v++) PetscCall(DMPlexSetSupport(*dm, nt + v, n2e + n2e_i[v])); /* cell numbers = tet numbers */
  PetscCall(PetscFree(n2e_i));
  PetscCall(PetscFree(n2e));
  PetscCall(DMPlexStratify(*dm));
  PetscCall(DMPlexBuildCoordinatesFromCellList(*dm, 3, cm->m.xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -cardiac_plex_check: a and b the same DMPlex (chart, cones and orientations, supports, depth strata, coordinates) */
static PetscErrorCode CardiacPlexCompare(DM a, DM b)
{
  PetscInt  pa[2], pb[2], depth[2];
  Vec       ca, cb;
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(a, &pa[0], &pa[1]));
  PetscCall(DMPlexGetChart(b, &pb[0], &pb[1]));
  PetscCheck(pa[0] == pb[0] && pa[1] == pb[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: charts differ");
  for (PetscInt p = pa[0]; p < pa[1]; p++) {
    const PetscInt *x, *y, *ox, *oy;
    PetscInt        nx, ny;
    PetscCall(DMPlexGetConeSize(a, p, &nx));
    PetscCall(DMPlexGetConeSize(b, p, &ny));
    PetscCall(DMPlexGetCone(a, p, &x));
    PetscCall(DMPlexGetCone(b, p, &y));
    PetscCall(DMPlexGetConeOrientation(a, p, &ox));
    PetscCall(DMPlexGetConeOrientation(b, p, &oy));
    PetscCheck(nx == ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: cone sizes of point %" PetscInt_FMT " differ", p);
    for (PetscInt i = 0; i < nx; i++) PetscCheck(x[i] == y[i] && ox[i] == oy[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: cones of point %" PetscInt_FMT " differ", p);
    PetscCall(DMPlexGetSupportSize(a, p, &nx));
    PetscCall(DMPlexGetSupportSize(b, p, &ny));
    PetscCall(DMPlexGetSupport(a, p, &x));
    PetscCall(DMPlexGetSupport(b, p, &y));
    PetscCheck(nx == ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: support sizes of point %" PetscInt_FMT " differ", p);
    for (PetscInt i = 0; i < nx; i++) PetscCheck(x[i] == y[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: supports of point %" PetscInt_FMT " differ", p);
  }
  PetscCall(DMPlexGetDepth(a, &depth[0]));
  PetscCall(DMPlexGetDepth(b, &depth[1]));
  PetscCheck(depth[0] == depth[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: depths differ");
  for (PetscInt d = 0; d <= depth[0]; d++) {
    PetscCall(DMPlexGetDepthStratum(a, d, &pa[0], &pa[1]));
    PetscCall(DMPlexGetDepthStratum(b, d, &pb[0], &pb[1]));
    PetscCheck(pa[0] == pb[0] && pa[1] == pb[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: depth stratum %" PetscInt_FMT " differs", d);
  }
  PetscCall(DMGetCoordinatesLocal(a, &ca));
  PetscCall(DMGetCoordinatesLocal(b, &cb));
  PetscCall(VecEqual(ca, cb, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac -cardiac_plex_check: coordinates differ");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: -cardiac_plex_check: the DMPlex equals DMPlexCreateFromCellListPetsc()'s (cones, orientations, supports, strata, coordinates)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacMeshToDMPlex(const CardiacMesh *cm, DM *dm)
{
  PetscInt *cells;
  PetscBool interpolate = PETSC_FALSE, fromcelllist = PETSC_FALSE, check = PETSC_FALSE;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(RegisterEvents());
  PetscCall(PetscLogEventBegin(ev_plex, 0, 0, 0, 0));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mesh_interpolate", &interpolate, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cardiac_plex_fromcelllist", &fromcelllist, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cardiac_plex_check", &check, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc1(4 * (size_t)cm->m.nt, &cells));
  {
    OrientCtx oc;
    PetscInt  nth;
    PetscCall(PetscMemzero(&oc, sizeof(oc)));
    oc.m     = &cm->m;
    oc.cells = cells;
    PetscCall(PetscEllwarpThreadsGetCount(0, cm->m.nt, 65536, &nth));
    PetscCall(PetscEllwarpThreadsRun(nth, cm->m.nt, OrientWork, &oc));
    for (PetscInt r = 0; r < nth; r++) PetscCheck(oc.bad[r] < 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "cardiac: degenerate tetrahedron %" PetscInt_FMT, oc.bad[r]);
  }
  /* several processes: rank 0 builds it from the whole mesh (cardiac_dist.c); interpolated: PETSc's DMPlexInterpolate */
  if (interpolate || fromcelllist || size > 1) PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, 3, cm->m.nt, cm->m.nv, 4, interpolate, cells, 3, cm->m.xyz, dm));
  else PetscCall(CardiacPlexFromCells(cm, cells, dm));
  if (check && !(interpolate || fromcelllist || size > 1)) {
    DM ref;
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, 3, cm->m.nt, cm->m.nv, 4, PETSC_FALSE, cells, 3, cm->m.xyz, &ref));
    PetscCall(CardiacPlexCompare(*dm, ref));
    PetscCall(DMDestroy(&ref));
  }
  PetscCall(PetscFree(cells));
  PetscCall(PetscObjectSetName((PetscObject)*dm, "heart"));
  PetscCall(PetscLogEventEnd(ev_plex, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacMeshDestroy(CardiacMesh *cm)
{
  PetscFunctionBegin;
  PetscCall(LVMeshDestroy(&cm->m));
  PetscCall(PetscFree(cm->fib));
  PetscCall(PetscFree(cm->stim));
  PetscFunctionReturn(PETSC_SUCCESS);
}
