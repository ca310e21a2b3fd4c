static const char help[] = "FE matrices in users' numberings (issue 17): PETSc's own DMPlex FEM (PetscFE, DMPlexSNESComputeJacobianFEM)\n"
                           "on box or gmsh meshes, in DMPlex's default numbering and after DMPlex RCM reordering, written as PETSc binary\n"
                           "files for spmv_bench (-bin), with each matrix's bandwidth/locality statistics.\n"
                           "Options: -kinds p1s,p1v,p2s,p2v,q1s,q1v,q2s,q2v (all) -orders default,rcm[,matrcm] -rows N (320000: target rows)\n"
                           "  (matrcm: the default numbering's matrix permuted by MatGetOrdering RCM, on the block graph for block size 3)\n"
                           "  -refine r (1: the box is made 2^r times coarser and refined r times by DMRefine, as -dm_refine does)\n"
                           "  -gmsh file.msh (tets from a gmsh mesh, refined until >= -rows) -out_dir dir (.) -write (true) -stats file\n"
                           "  kinds: p = tets (Kuhn box or gmsh), q = hexes (DMPlexCreateBoxMesh); 1/2 = order; s = scalar Laplacian,\n"
                           "  v = 3 components (block size 3), isotropic elasticity\n";

/* The matrices are PETSc's own: the mesh is a DMPlex, the discretization a PetscFE, the Jacobian is assembled by
   DMPlexSNESComputeJacobianFEM into DMCreateMatrix's SeqAIJ (block size 3 for the vector fields).  Nothing of
   ours touches the numbering: "default" is what a user gets from DMPlex (points ordered cells, vertices, faces,
   edges; a refined mesh numbers its new vertices by their parent edges), "rcm" the same after
   DMPlexGetOrdering(MATORDERINGRCM) + DMPlexPermute (what -dm_plex_reorder rcm does).  The statistics are those that
   decide what ELLWARP's columns cost (src/mat/impls/ellwarp/layout.c): per 32 consecutive rows, whether every
   offset col - row fits 16 bits, or fits after a per-entry-position bias (ELLWARP_BIAS_SPAN). */

#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscfe.h>
#include <petsctime.h>

#define SLICE      32
#define OFF16_MIN  (-32767) /* ELLWARP_PAD16 (-32768) marks padding */
#define OFF16_MAX  32767
#define BIAS_SPAN  65534 /* ELLWARP_BIAS_SPAN: the span a biased 16-bit slice position may cover */

/* pointwise Jacobians (PetscDS g3): Laplacian per component, and isotropic elasticity (lambda = mu = 1) */
static void g3_laplace(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < dim; ++d) g3[d * dim + d] = 1.0;
}

static void g3_elastic(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  const PetscReal mu = 1.0, lambda = 1.0;
  const PetscInt  Nc = dim;

  /* g3[((fc * Nc + gc) * dim + df) * dim + dg]: test component fc, trial component gc, test derivative df, trial derivative dg */
  for (PetscInt fc = 0; fc < Nc; ++fc)
    for (PetscInt gc = 0; gc < Nc; ++gc)
      for (PetscInt df = 0; df < dim; ++df)
        for (PetscInt dg = 0; dg < dim; ++dg) g3[((fc * Nc + gc) * dim + df) * dim + dg] = mu * ((fc == gc && df == dg) + (fc == dg && df == gc)) + lambda * (fc == df && gc == dg);
}

/* A structured box of n^3 cubes, each split into the 6 Kuhn tets (around the main diagonal), vertices numbered
   lexicographically as a structured mesh generator writes them; DMPlex then adds its own point numbering. */
static PetscErrorCode CreateKuhnBox(PetscInt n, DM *dm)
{
  const PetscInt nv = (n + 1) * (n + 1) * (n + 1), nc = 6 * n * n * n;
  PetscInt      *cells;
  PetscReal     *xyz;
  /* the 6 paths from corner 0 to corner 7 of the cube (corner bits: x=1, y=2, z=4) */
  const int paths[6][4] = {
    {0, 1, 3, 7},
    {0, 1, 5, 7},
    {0, 2, 3, 7},
    {0, 2, 6, 7},
    {0, 4, 5, 7},
    {0, 4, 6, 7}
  };

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(4 * nc, &cells, 3 * nv, &xyz));
  for (PetscInt k = 0; k <= n; k++)
    for (PetscInt j = 0; j <= n; j++)
      for (PetscInt i = 0; i <= n; i++) {
        PetscInt v     = (k * (n + 1) + j) * (n + 1) + i;
        xyz[3 * v + 0] = (PetscReal)i / n;
        xyz[3 * v + 1] = (PetscReal)j / n;
        xyz[3 * v + 2] = (PetscReal)k / n;
      }
  for (PetscInt k = 0, c = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt t = 0; t < 6; t++, c++) {
          PetscReal e[3][3], det;
          for (PetscInt q = 0; q < 4; q++) {
            int b            = paths[t][q];
            cells[4 * c + q] = ((k + ((b >> 2) & 1)) * (n + 1) + (j + ((b >> 1) & 1))) * (n + 1) + (i + (b & 1));
          }
          for (PetscInt q = 0; q < 3; q++)
            for (PetscInt d = 0; d < 3; d++) e[q][d] = xyz[3 * cells[4 * c + q + 1] + d] - xyz[3 * cells[4 * c] + d];
          det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
          if (det > 0) { /* DMPlex's tet orientation: (v1-v0, v2-v0, v3-v0) negatively oriented (as DMPlexInvertCell makes gmsh's) */
            PetscInt s       = cells[4 * c + 1];
            cells[4 * c + 1] = cells[4 * c + 2];
            cells[4 * c + 2] = s;
          }
        }
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, nc, nv, 4, PETSC_TRUE, cells, 3, xyz, dm));
  PetscCall(PetscFree2(cells, xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discretization: one Lagrange field of order k with Nc components, and its pointwise Jacobian */
static PetscErrorCode SetupFE(DM dm, PetscBool simplex, PetscInt k, PetscInt Nc)
{
  PetscFE fe;
  PetscDS ds;

  PetscFunctionBegin;
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, Nc, simplex, k, PETSC_DETERMINE, &fe));
  PetscCall(PetscObjectSetName((PetscObject)fe, "u"));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, Nc == 1 ? g3_laplace : g3_elastic));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GlobalRows(DM dm, PetscInt *rows)
{
  PetscSection s;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm, &s));
  PetscCall(PetscSectionGetConstrainedStorageSize(s, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RefineOnce(DM *dm)
{
  DM rdm;

  PetscFunctionBegin;
  PetscCall(DMRefine(*dm, PETSC_COMM_SELF, &rdm));
  PetscCall(DMDestroy(dm));
  *dm = rdm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mesh of a kind, refined as a user's -dm_refine would, with its field; about `target` rows or more. */
static PetscErrorCode CreateMesh(const char *kind, PetscInt target, PetscInt refine, const char *gmsh, DM *dm, PetscInt *nref)
{
  PetscBool simplex = (PetscBool)(kind[0] == 'p');
  PetscInt  k = kind[1] - '0', Nc = kind[2] == 'v' ? 3 : 1, nfinal, ncoarse, rows;

  PetscFunctionBegin;
  PetscCheck((kind[0] == 'p' || kind[0] == 'q') && (k == 1 || k == 2) && (kind[2] == 's' || kind[2] == 'v') && !kind[3], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown kind %s: [p|q][1|2][s|v], e.g. p1s, q2v", kind);
  *nref = 0;
  if (simplex && gmsh[0]) {
    PetscCall(DMPlexCreateFromFile(PETSC_COMM_SELF, gmsh, "plex", PETSC_TRUE, dm));
    PetscCall(SetupFE(*dm, simplex, k, Nc));
    PetscCall(GlobalRows(*dm, &rows));
    while (rows < target) {
      PetscCall(DMClearDS(*dm));
      PetscCall(DMClearFields(*dm));
      PetscCall(RefineOnce(dm));
      (*nref)++;
      PetscCall(SetupFE(*dm, simplex, k, Nc));
      PetscCall(GlobalRows(*dm, &rows));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* nodes (k n + 1)^3 per component, for Kuhn tets (P2 midpoints lie on the half grid) and hexes alike */
  nfinal  = (PetscInt)PetscCeilReal((PetscPowReal((PetscReal)target / Nc, 1.0 / 3.0) - 1.0) / k);
  ncoarse = PetscMax(1, (PetscInt)PetscCeilReal((PetscReal)nfinal / (1 << refine)));
  if (simplex) PetscCall(CreateKuhnBox(ncoarse, dm));
  else {
    PetscInt faces[3] = {ncoarse, ncoarse, ncoarse};
    PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, 3, PETSC_FALSE, faces, NULL, NULL, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  }
  for (PetscInt r = 0; r < refine; r++) PetscCall(RefineOnce(dm));
  *nref = refine;
  PetscCall(SetupFE(*dm, simplex, k, Nc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMPlex RCM: the mesh's points permuted (DMPlexGetOrdering + DMPlexPermute), the field set up again */
static PetscErrorCode PermuteRCM(DM *dm, const char *kind)
{
  DM pdm;
  IS perm;

  PetscFunctionBegin;
  PetscCall(DMPlexGetOrdering(*dm, MATORDERINGRCM, NULL, &perm));
  PetscCall(DMPlexPermute(*dm, perm, &pdm));
  PetscCall(ISDestroy(&perm));
  PetscCall(DMDestroy(dm));
  *dm = pdm;
  PetscCall(DMClearDS(*dm));
  PetscCall(DMClearFields(*dm));
  PetscCall(SetupFE(*dm, (PetscBool)(kind[0] == 'p'), kind[1] - '0', kind[2] == 'v' ? 3 : 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* RCM of the assembled matrix's graph (MatGetOrdering), on the block graph for block size > 1 (SeqBAIJ's MatGetRowIJ
   gives the block rows) so that a node's components stay together: unlike DMPlex's point RCM, which permutes within
   each stratum of points and so leaves a higher-order section's vertex, edge and face dofs in separate ranges, it
   interleaves them.  A locality ordering, not the paper's K1r (sections 5.2-5.3: the unknowns renumbered by the
   ELLWARP row order, so that y needs no permutation) */
static PetscErrorCode PermuteMatRCM(Mat *J)
{
  Mat             B = *J, Bb = NULL, Jp;
  IS              rp, cp, is;
  PetscInt        bs, n, m;
  const PetscInt *idx;
  PetscInt       *full;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(*J, &bs));
  PetscCall(MatGetSize(*J, &m, NULL));
  if (bs > 1) {
    PetscCall(MatConvert(*J, MATSEQBAIJ, MAT_INITIAL_MATRIX, &Bb));
    B = Bb;
  }
  PetscCall(MatGetOrdering(B, MATORDERINGRCM, &rp, &cp));
  PetscCall(ISGetLocalSize(rp, &n));
  PetscCheck(n * bs == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "RCM ordering of %" PetscInt_FMT " points for %" PetscInt_FMT " rows of block size %" PetscInt_FMT, n, m, bs);
  PetscCall(ISGetIndices(rp, &idx));
  PetscCall(PetscMalloc1(m, &full));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt c = 0; c < bs; c++) full[i * bs + c] = idx[i] * bs + c;
  PetscCall(ISRestoreIndices(rp, &idx));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, full, PETSC_OWN_POINTER, &is));
  PetscCall(ISSetPermutation(is));
  PetscCall(MatPermute(*J, is, is, &Jp));
  PetscCall(MatSetBlockSize(Jp, bs));
  PetscCall(ISDestroy(&is));
  PetscCall(ISDestroy(&rp));
  PetscCall(ISDestroy(&cp));
  PetscCall(MatDestroy(&Bb));
  PetscCall(MatDestroy(J));
  *J = Jp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Jacobian's matrix with the pattern DMCreateMatrix gives an FE field (every pair of dofs in a cell's closure),
   from the closures' indices through a MATPREALLOCATOR.  DMCreateMatrix's DMPlexPreallocateOperator takes ~80 % of
   the set-up at these sizes (12.6 of 16 s at 43 k rows, -log_view), which would keep each 0.3 M-row matrix in the
   minutes; -dm_create_matrix uses it instead. */
static PetscErrorCode CreateClosureMatrix(DM dm, Mat *J)
{
  PetscSection s, gs;
  Mat          P;
  PetscInt     cStart, cEnd, n, bs = 1, nf;
  PetscScalar *zeros = NULL;
  PetscInt     nzeros = 0;

  PetscFunctionBegin;
  PetscCall(DMGetLocalSection(dm, &s));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(GlobalRows(dm, &n));
  PetscCall(DMGetNumFields(dm, &nf));
  if (nf == 1) PetscCall(PetscSectionGetFieldComponents(s, 0, &bs));
  PetscCall(MatCreate(PETSC_COMM_SELF, &P));
  PetscCall(MatSetSizes(P, n, n, n, n));
  PetscCall(MatSetType(P, MATPREALLOCATOR));
  PetscCall(MatSetBlockSize(P, bs));
  PetscCall(MatSetUp(P));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *idx = NULL, ni;
    PetscCall(DMPlexGetClosureIndices(dm, s, gs, c, PETSC_TRUE, &ni, &idx, NULL, NULL));
    if (ni * ni > nzeros) {
      PetscCall(PetscFree(zeros));
      nzeros = ni * ni;
      PetscCall(PetscCalloc1(nzeros, &zeros));
    }
    PetscCall(MatSetValues(P, ni, idx, ni, idx, zeros, INSERT_VALUES));
    PetscCall(DMPlexRestoreClosureIndices(dm, s, gs, c, PETSC_TRUE, &ni, &idx, NULL, NULL));
  }
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(PETSC_COMM_SELF, J));
  PetscCall(MatSetSizes(*J, n, n, n, n));
  PetscCall(MatSetType(*J, MATSEQAIJ));
  PetscCall(MatSetBlockSize(*J, bs));
  PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, *J));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt   rows, cols, bs, bandwidth, maxrow;
  PetscCount nnz;
  PetscReal  nnzrow, meanoff;          /* nnz/row, mean |i - j| */
  PetscReal  distinct, span, spanmed;  /* per slice of 32 consecutive rows: mean distinct columns, mean and median column span */
  PetscReal  fit16, fitbias, xbytes;   /* fraction of slices: plain 16-bit offsets fit; fit with a bias per entry position; sum over slices of 8 * distinct columns / nnz */
} LocalityStats;

static int CmpInt(const void *a, const void *b)
{
  PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
  return x < y ? -1 : x > y;
}

/* The statistics of a SeqAIJ matrix in its own numbering (slices: 32 consecutive rows, one lane per row, the
   layout ELLWARP uses for FE rows; its sort window only reorders rows of different lengths). */
static PetscErrorCode ComputeLocality(Mat A, LocalityStats *st)
{
  const PetscInt *ai, *aj;
  PetscInt        m, nslices, *buf, *mn, *mx;
  PetscBool       done;
  PetscReal      *spans;
  double          offsum = 0, dsum = 0, ssum = 0;
  PetscInt        n16 = 0, nbias = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCall(MatGetSize(A, &st->rows, &st->cols));
  PetscCall(MatGetBlockSize(A, &st->bs));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  st->nnz = ai[m];
  for (PetscInt i = 0; i < m; i++) st->maxrow = PetscMax(st->maxrow, ai[i + 1] - ai[i]);
  nslices = (m + SLICE - 1) / SLICE;
  PetscCall(PetscMalloc4(SLICE * st->maxrow, &buf, st->maxrow, &mn, st->maxrow, &mx, nslices, &spans));
  for (PetscInt s = 0; s < nslices; s++) {
    PetscInt  r0 = s * SLICE, r1 = PetscMin(m, r0 + SLICE), nb = 0, nd = 0;
    PetscBool fits = PETSC_TRUE, bfits = PETSC_TRUE;
    for (PetscInt e = 0; e < st->maxrow; e++) {
      mn[e] = PETSC_INT_MAX;
      mx[e] = PETSC_INT_MIN;
    }
    for (PetscInt i = r0; i < r1; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        PetscInt d = aj[k] - i, e = k - ai[i];
        offsum += PetscAbs(d);
        st->bandwidth = PetscMax(st->bandwidth, PetscAbs(d));
        if (d < OFF16_MIN || d > OFF16_MAX) fits = PETSC_FALSE;
        mn[e]     = PetscMin(mn[e], d);
        mx[e]     = PetscMax(mx[e], d);
        buf[nb++] = aj[k];
      }
    for (PetscInt e = 0; e < st->maxrow; e++)
      if (mn[e] <= mx[e] && (PetscInt64)mx[e] - mn[e] > BIAS_SPAN) bfits = PETSC_FALSE;
    qsort(buf, (size_t)nb, sizeof(PetscInt), CmpInt);
    for (PetscInt q = 0; q < nb; q++)
      if (!q || buf[q] != buf[q - 1]) nd++;
    spans[s] = nb ? (PetscReal)(buf[nb - 1] - buf[0] + 1) : 0;
    dsum += nd;
    ssum += spans[s];
    n16 += fits;
    nbias += fits || bfits;
  }
  PetscCall(PetscSortReal(nslices, spans));
  st->nnzrow   = m ? (PetscReal)st->nnz / m : 0;
  st->meanoff  = st->nnz ? offsum / st->nnz : 0;
  st->distinct = nslices ? dsum / nslices : 0;
  st->span     = nslices ? ssum / nslices : 0;
  st->spanmed  = nslices ? spans[nslices / 2] : 0;
  st->fit16    = nslices ? (PetscReal)n16 / nslices : 1;
  st->fitbias  = nslices ? (PetscReal)nbias / nslices : 1;
  st->xbytes   = st->nnz ? 8.0 * dsum / st->nnz : 0;
  PetscCall(PetscFree4(buf, mn, mx, spans));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool ListHas(const char *list, const char *name)
{
  char        buf[512];
  const char *p;
  size_t      n = strlen(name);

  snprintf(buf, sizeof(buf), ",%s,", list);
  for (p = buf; (p = strstr(p, name)); p++)
    if (p[-1] == ',' && p[n] == ',') return PETSC_TRUE;
  return PETSC_FALSE;
}

int main(int argc, char **argv)
{
  char        kinds[256] = "p1s,p1v,p2s,p2v,q1s,q1v,q2s,q2v", orders[64] = "default,rcm", outdir[PETSC_MAX_PATH_LEN] = ".", gmsh[PETSC_MAX_PATH_LEN] = "", statsfile[PETSC_MAX_PATH_LEN] = "";
  const char *allkinds[] = {"p1s", "p1v", "p2s", "p2v", "q1s", "q1v", "q2s", "q2v"}, *allorders[] = {"default", "rcm", "matrcm"};
  PetscInt    target = 320000, refine = 1;
  PetscBool   write  = PETSC_TRUE, dmcreate = PETSC_FALSE, check = PETSC_FALSE;
  FILE       *fs     = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "FE matrices in users' numberings", NULL);
  PetscCall(PetscOptionsString("-kinds", "Kinds: [p|q][1|2][s|v], comma separated", NULL, kinds, kinds, sizeof(kinds), NULL));
  PetscCall(PetscOptionsString("-orders", "Numberings: default,rcm,matrcm", NULL, orders, orders, sizeof(orders), NULL));
  PetscCall(PetscOptionsInt("-rows", "Target rows of each matrix", NULL, target, &target, NULL));
  PetscCall(PetscOptionsInt("-refine", "Uniform refinements (DMRefine) of the box after its creation", NULL, refine, &refine, NULL));
  PetscCall(PetscOptionsString("-gmsh", "Tets from this gmsh file (refined until >= -rows)", NULL, gmsh, gmsh, sizeof(gmsh), NULL));
  PetscCall(PetscOptionsString("-out_dir", "Directory of the binary files", NULL, outdir, outdir, sizeof(outdir), NULL));
  PetscCall(PetscOptionsBool("-write", "Write the matrices", NULL, write, &write, NULL));
  PetscCall(PetscOptionsBool("-check", "Check each matrix against DMCreateMatrix's, assembled the same way (MatEqual), and the permuted ones' sizes", NULL, check, &check, NULL));
  PetscCall(PetscOptionsBool("-dm_create_matrix", "The matrix from DMCreateMatrix (DMPlex's preallocation: slow) instead of the cells' closures", NULL, dmcreate, &dmcreate, NULL));
  PetscCall(PetscOptionsString("-stats", "Append the statistics lines to this file", NULL, statsfile, statsfile, sizeof(statsfile), NULL));
  PetscOptionsEnd();
  PetscCheck(target > 0 && refine >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rows must be positive and -refine >= 0");
  if (statsfile[0]) {
    fs = fopen(statsfile, "a");
    PetscCheck(fs, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", statsfile);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# STATS name rows nnz nnz/row bs bandwidth mean|i-j| | per %d-row slice: distinct_cols col_span(mean) col_span(median) fit16 fit16_or_bias xbytes/nnz | mesh_s assembly_s\n", SLICE));
  for (size_t ik = 0; ik < PETSC_STATIC_ARRAY_LENGTH(allkinds); ik++) {
    if (!ListHas(kinds, allkinds[ik])) continue;
    for (size_t io = 0; io < PETSC_STATIC_ARRAY_LENGTH(allorders); io++) {
      DM             dm;
      Mat            J;
      Vec            u;
      PetscInt       nref;
      PetscLogDouble t0, t1, t2;
      LocalityStats  st;
      char           name[128], file[PETSC_MAX_PATH_LEN], line[1024];

      if (!ListHas(orders, allorders[io])) continue;
      PetscCall(PetscTime(&t0));
      PetscCall(CreateMesh(allkinds[ik], target, refine, gmsh, &dm, &nref));
      if (io == 1) PetscCall(PermuteRCM(&dm, allkinds[ik]));
      PetscCall(PetscTime(&t1));
      if (dmcreate) PetscCall(DMCreateMatrix(dm, &J));
      else PetscCall(CreateClosureMatrix(dm, &J));
      PetscCall(DMCreateGlobalVector(dm, &u));
      PetscCall(VecSet(u, 0.0));
      PetscCall(DMPlexSNESComputeJacobianFEM(dm, u, J, J, NULL));
      if (check) { /* the closure pattern must be DMCreateMatrix's, entry for entry, before any matrix permutation */
        Mat       C;
        PetscBool eq;
        PetscInt  bj, bc;
        PetscCall(DMCreateMatrix(dm, &C));
        PetscCall(DMPlexSNESComputeJacobianFEM(dm, u, C, C, NULL));
        PetscCall(MatEqual(J, C, &eq));
        PetscCall(MatGetBlockSize(J, &bj));
        PetscCall(MatGetBlockSize(C, &bc));
        PetscCheck(eq && bj == bc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: the closure matrix differs from DMCreateMatrix's (equal %d, block sizes %" PetscInt_FMT " %" PetscInt_FMT ")", allkinds[ik], allorders[io], (int)eq, bj, bc);
        PetscCall(MatDestroy(&C));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "# check %s %s: same matrix as DMCreateMatrix's\n", allkinds[ik], allorders[io]));
      }
      if (io == 2) {
        Mat       J0;
        PetscReal n0, n1;
        PetscCall(MatDuplicate(J, MAT_COPY_VALUES, &J0));
        PetscCall(PermuteMatRCM(&J));
        if (check) { /* a symmetric permutation keeps the Frobenius norm and the entries' count */
          MatInfo i0, i1;
          PetscCall(MatNorm(J0, NORM_FROBENIUS, &n0));
          PetscCall(MatNorm(J, NORM_FROBENIUS, &n1));
          PetscCall(MatGetInfo(J0, MAT_LOCAL, &i0));
          PetscCall(MatGetInfo(J, MAT_LOCAL, &i1));
          PetscCheck(PetscAbsReal(n0 - n1) <= 1e-12 * n0 && i0.nz_used == i1.nz_used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrcm: the permuted matrix differs (norm %g vs %g, nnz %g vs %g)", allkinds[ik], (double)n1, (double)n0, i1.nz_used, i0.nz_used);
        }
        PetscCall(MatDestroy(&J0));
      }
      PetscCall(PetscTime(&t2));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s%s_%s", gmsh[0] && allkinds[ik][0] == 'p' ? "gmsh" : "box", allkinds[ik], allkinds[ik][0] == 'p' ? "_tet" : "_hex", allorders[io]));
      PetscCall(PetscObjectSetName((PetscObject)J, name));
      PetscCall(ComputeLocality(J, &st));
      PetscCall(PetscSNPrintf(line, sizeof(line), "STATS %s %" PetscInt_FMT " %" PetscCount_FMT " %.2f %" PetscInt_FMT " %" PetscInt_FMT " %.1f | %.1f %.0f %.0f %.3f %.3f %.3f | %.2f %.2f\n", name, st.rows, st.nnz, (double)st.nnzrow, st.bs, st.bandwidth, (double)st.meanoff, (double)st.distinct, (double)st.span, (double)st.spanmed, (double)st.fit16, (double)st.fitbias, (double)st.xbytes, t1 - t0, t2 - t1));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", line));
      if (fs) {
        fputs(line, fs);
        fflush(fs);
      }
      if (write) {
        PetscViewer v;
        PetscCall(PetscSNPrintf(file, sizeof(file), "%s/%s.bin", outdir, name));
        PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_WRITE, &v));
        PetscCall(MatView(J, v));
        PetscCall(PetscViewerDestroy(&v));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s (%" PetscInt_FMT " refinements)\n", file, nref));
      }
      PetscCall(VecDestroy(&u));
      PetscCall(MatDestroy(&J));
      PetscCall(DMDestroy(&dm));
    }
  }
  if (fs) fclose(fs);
  PetscCall(PetscFinalize());
  return 0;
}
