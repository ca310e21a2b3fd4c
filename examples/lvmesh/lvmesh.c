/* Idealized left-ventricle meshes (structured or gmsh), uniform refinement, RCM renumbering, and P1 FE
   matrices assembled directly in CSR (O(nnz), no MatSetValues per element). */
#include "lvmesh.h"
#include <petscsys.h>
#include <petscellwarp/private/ellwarpthreads.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define LV_ENDO_SHORT 7.0
#define LV_ENDO_LONG  17.0
#define LV_WALL       3.0
#define LV_BASE_Z     5.0

PetscErrorCode LVMeshDestroy(LVMesh *mesh)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(mesh->xyz));
  PetscCall(PetscFree(mesh->tet));
  mesh->nv = mesh->nt = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Structured mesh                                                                                              */

static inline PetscInt LVNode(PetscInt nt, PetscInt nc, PetscInt i, PetscInt j, PetscInt k)
{
  if (k == 0) return i; /* apex pole: one node per transmural layer */
  return nt + ((k - 1) * nc + (j % nc)) * nt + i;
}

PetscErrorCode LVMeshCreateStructured(PetscInt nt, PetscInt nc, PetscInt nl, LVMesh *mesh)
{
  static const int perms[6][3] = {
    {0, 1, 2},
    {0, 2, 1},
    {1, 0, 2},
    {1, 2, 0},
    {2, 0, 1},
    {2, 1, 0}
  };
  PetscInt nv, ntet = 0, maxtet;

  PetscFunctionBegin;
  PetscCheck(nt >= 2 && nc >= 3 && nl >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need nt >= 2, nc >= 3, nl >= 2");
  nv       = nt * (1 + (nl - 1) * nc);
  maxtet   = 6 * (nt - 1) * nc * (nl - 1);
  mesh->nv = nv;
  PetscCall(PetscMalloc1(3 * (size_t)nv, &mesh->xyz));
  PetscCall(PetscMalloc1(4 * (size_t)maxtet, &mesh->tet));
  for (PetscInt k = 0; k < nl; k++) {
    for (PetscInt j = 0; j < (k ? nc : 1); j++) {
      for (PetscInt i = 0; i < nt; i++) {
        PetscReal t = (PetscReal)i / (nt - 1), rs = LV_ENDO_SHORT + LV_WALL * t, rl = LV_ENDO_LONG + LV_WALL * t;
        PetscReal ub = acos(LV_BASE_Z / rl), s = (PetscReal)k / (nl - 1), u = PETSC_PI - s * (PETSC_PI - ub), v = 2 * PETSC_PI * j / nc;
        PetscInt  n = LVNode(nt, nc, i, j, k);

        mesh->xyz[3 * n + 0] = k ? rs * sin(u) * cos(v) : 0.0;
        mesh->xyz[3 * n + 1] = k ? rs * sin(u) * sin(v) : 0.0;
        mesh->xyz[3 * n + 2] = k == nl - 1 ? LV_BASE_Z : rl * cos(u);
      }
    }
  }
  for (PetscInt k = 0; k < nl - 1; k++) {
    for (PetscInt j = 0; j < nc; j++) {
      for (PetscInt i = 0; i < nt - 1; i++) {
        for (int p = 0; p < 6; p++) {
          int      c[3] = {0, 0, 0};
          PetscInt v[4];

          v[0] = LVNode(nt, nc, i, j, k);
          for (int q = 0; q < 3; q++) {
            c[perms[p][q]] = 1;
            v[q + 1]       = LVNode(nt, nc, i + c[0], j + c[1], k + c[2]);
          }
          if (v[0] == v[1] || v[0] == v[2] || v[0] == v[3] || v[1] == v[2] || v[1] == v[3] || v[2] == v[3]) continue; /* degenerate at the pole */
          for (int q = 0; q < 4; q++) mesh->tet[4 * ntet + q] = v[q];
          ntet++;
        }
      }
    }
  }
  mesh->nt = ntet;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LVMeshCreateStructuredByNodes(PetscCount nodes, LVMesh *mesh)
{
  /* mid-wall lengths (mm): wall 3, circumference at the equator 2 pi 8.5, apex-to-base meridian about 30 */
  const PetscReal Lt = LV_WALL, Lc = 2 * PETSC_PI * 8.5, Ll = 30.0;
  PetscReal       h  = PetscCbrtReal(Lt * Lc * Ll / (PetscReal)PetscMax(nodes, 8));
  PetscInt        nt = PetscMax(2, (PetscInt)round(Lt / h) + 1), nc = PetscMax(8, (PetscInt)round(Lc / h)), nl = PetscMax(3, (PetscInt)round(Ll / h) + 1);

  PetscFunctionBegin;
  PetscCall(LVMeshCreateStructured(nt, nc, nl, mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Node graph (vertex adjacency including the vertex itself), sorted rows                                        */

/* LVMeshNodeGraph's rows, a range of vertices per thread (PetscEllwarpThreadsRun), in one pass: each thread writes
   its rows (sorted) into its own buffer, sized by the bound 1 + 3 (tets at v) per row, and their lengths into
   ia[v + 1]; the buffers are then copied into ja back to back (a range's rows are contiguous there).  A count pass
   and a fill pass (each a marker array scan over the tets around every vertex) took twice the time. */
typedef struct {
  const LVMesh   *mesh;
  const PetscInt *n2e_i, *n2e;
  PetscInt       *ia;
  PetscInt       *buf[64];
} GraphCtx;

static int GraphWork(void *ctx, PetscInt range, PetscCount v0, PetscCount v1)
{
  GraphCtx       *r   = (GraphCtx *)ctx;
  const PetscInt *tet = r->mesh->tet, *n2e_i = r->n2e_i;
  PetscInt       *mark, *row;
  size_t          bound = 0;

  r->buf[range] = NULL;
  if (v0 >= v1) return 0;
  for (PetscInt v = (PetscInt)v0; v < (PetscInt)v1; v++) bound += 1 + 3 * (size_t)(n2e_i[v + 1] - n2e_i[v]);
  mark          = (PetscInt *)malloc(sizeof(PetscInt) * (size_t)r->mesh->nv);
  r->buf[range] = (PetscInt *)malloc(sizeof(PetscInt) * bound);
  if (!mark || !r->buf[range]) {
    free(mark);
    return PETSC_ERR_MEM;
  }
  for (PetscInt v = 0; v < r->mesh->nv; v++) mark[v] = -1;
  row = r->buf[range];
  for (PetscInt v = (PetscInt)v0; v < (PetscInt)v1; v++) {
    PetscInt n = 0;
    for (PetscInt p = n2e_i[v]; p < n2e_i[v + 1]; p++)
      for (int q = 0; q < 4; q++) {
        const PetscInt w = tet[4 * r->n2e[p] + q];
        if (mark[w] != v) {
          mark[w]  = v;
          row[n++] = w;
        }
      }
    if (!n) row[n++] = v; /* isolated vertex: keep the diagonal */
    for (PetscInt i = 1; i < n; i++) { /* insertion sort of the row (~15 columns) */
      const PetscInt x = row[i];
      PetscInt       j = i - 1;
      while (j >= 0 && row[j] > x) {
        row[j + 1] = row[j];
        j--;
      }
      row[j + 1] = x;
    }
    r->ia[v + 1] = n;
    row += n;
  }
  free(mark);
  return 0;
}

/* The vertex -> tets map (n2e_i, n2e: the tets around v in increasing order) as a counting sort on the host's cores:
   each thread counts the vertices of its range of tets into its own array (A), the counts are summed per vertex and
   turned into each thread's start inside the vertex's bucket (B), and each thread places its tets there (C); a
   thread's tets follow the previous threads', so the buckets are in tet order as with one thread.  One core took
   0.2-0.3 s at 6 M tets. */
typedef struct {
  const PetscInt *tet;
  PetscInt        nv, nth, phase;
  PetscInt       *n2e_i, *n2e;
  PetscInt       *cnt[64]; /* per range: counts (A), then the next slot in each vertex's bucket (B, C) */
} N2ECtx;

static int N2EWork(void *ctx, PetscInt range, PetscCount i0, PetscCount i1)
{
  N2ECtx *r = (N2ECtx *)ctx;

  if (r->phase == 0) { /* A: i = tets */
    PetscInt *cnt = (PetscInt *)calloc((size_t)r->nv, sizeof(PetscInt));
    r->cnt[range] = cnt;
    if (!cnt) return PETSC_ERR_MEM;
    for (PetscCount q = 4 * i0; q < 4 * i1; q++) cnt[r->tet[q]]++;
  } else if (r->phase == 1) { /* B: i = vertices */
    for (PetscInt v = (PetscInt)i0; v < (PetscInt)i1; v++) {
      PetscInt run = 0;
      for (PetscInt t = 0; t < r->nth; t++) {
        const PetscInt c = r->cnt[t][v];
        r->cnt[t][v]     = run;
        run += c;
      }
      r->n2e_i[v + 1] = run;
    }
  } else { /* C: i = tets */
    PetscInt *next = r->cnt[range];
    for (PetscInt e = (PetscInt)i0; e < (PetscInt)i1; e++)
      for (int q = 0; q < 4; q++) {
        const PetscInt v                 = r->tet[4 * e + q];
        r->n2e[r->n2e_i[v] + next[v]++] = e;
      }
  }
  return 0;
}

PetscErrorCode LVMeshNodeToTets(const LVMesh *mesh, PetscInt **n2e_i_out, PetscInt **n2e_out)
{
  N2ECtx         r;
  PetscInt       nth, nthv, *n2e_i;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpThreadsGetCount(0, mesh->nt, 65536, &nth));
  PetscCall(PetscEllwarpThreadsGetCount(nth, mesh->nv, 4096, &nthv));
  PetscCall(PetscMemzero(&r, sizeof(r)));
  PetscCall(PetscMalloc1(mesh->nv + 1, &n2e_i));
  n2e_i[0] = 0;
  r.tet    = mesh->tet;
  r.nv     = mesh->nv;
  r.nth    = nth;
  r.n2e_i  = n2e_i;
  ierr     = PetscEllwarpThreadsRun(nth, mesh->nt, N2EWork, &r);
  if (!ierr) {
    r.phase = 1;
    ierr    = PetscEllwarpThreadsRun(nthv, mesh->nv, N2EWork, &r);
  }
  if (!ierr) {
    for (PetscInt v = 0; v < mesh->nv; v++) n2e_i[v + 1] += n2e_i[v];
    ierr = PetscMalloc1(n2e_i[mesh->nv], &r.n2e);
  }
  if (!ierr) {
    r.phase = 2;
    ierr    = PetscEllwarpThreadsRun(nth, mesh->nt, N2EWork, &r); /* the same split of the tets as in A */
  }
  for (PetscInt t = 0; t < nth; t++) free(r.cnt[t]);
  if (ierr) PetscCall(PetscFree(r.n2e));
  if (ierr) PetscCall(PetscFree(n2e_i));
  PetscCall(ierr);
  *n2e_i_out = n2e_i;
  *n2e_out   = r.n2e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the vertex adjacency graph (CSR, columns sorted, the diagonal included) on the host's cores: 1 M vertices,
   6 M tets took about a second on one core */
static PetscErrorCode LVMeshNodeGraph(const LVMesh *mesh, PetscInt **ia_out, PetscInt **ja_out)
{
  PetscInt nv = mesh->nv, *n2e_i, *n2e, *ia, *ja, nth;
  GraphCtx g;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpThreadsGetCount(0, nv, 4096, &nth));
  PetscCall(LVMeshNodeToTets(mesh, &n2e_i, &n2e));
  PetscCall(PetscMalloc1(nv + 1, &ia));
  ia[0] = 0;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.mesh  = mesh;
  g.n2e_i = n2e_i;
  g.n2e   = n2e;
  g.ia    = ia;
  {
    PetscErrorCode ierr = PetscEllwarpThreadsRun(nth, nv, GraphWork, &g);
    if (ierr)
      for (PetscInt t = 0; t < nth; t++) free(g.buf[t]);
    PetscCall(ierr);
  }
  for (PetscInt v = 0; v < nv; v++) ia[v + 1] += ia[v];
  PetscCall(PetscMalloc1(ia[nv], &ja));
  for (PetscInt t = 0; t < nth; t++) { /* range t: vertices [nv t / nth, nv (t+1) / nth) */
    const PetscInt v0 = (PetscInt)((PetscCount)nv * t / nth), v1 = (PetscInt)((PetscCount)nv * (t + 1) / nth);
    if (g.buf[t]) PetscCall(PetscArraycpy(ja + ia[v0], g.buf[t], ia[v1] - ia[v0]));
    free(g.buf[t]);
  }
  PetscCall(PetscFree(n2e));
  PetscCall(PetscFree(n2e_i));
  *ia_out = ia;
  *ja_out = ja;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt FindCol(const PetscInt *ia, const PetscInt *ja, PetscInt row, PetscInt col)
{
  PetscInt lo = ia[row], hi = ia[row + 1] - 1;
  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (ja[mid] == col) return mid;
    if (ja[mid] < col) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Uniform refinement                                                                                          */

/* LVMeshRefineUniform's loops on the host's cores (PetscEllwarpThreadsRun): phase 0 the edge midpoints, a range of
   coarse vertices (rows of the graph) per thread; phase 1 the 8 children of each coarse tet, a range of coarse tets
   per thread.  Every entry is written by one thread: the same mesh for any thread count. */
typedef struct {
  const LVMesh   *coarse;
  LVMesh         *fine;
  const PetscInt *ia, *ja, *eoff;
  int             phase;
} RefineCtx;

static int RefineWork(void *ctx, PetscInt range, PetscCount i0, PetscCount i1)
{
  RefineCtx *r = (RefineCtx *)ctx;

  (void)range;
  if (r->phase == 0) {
    for (PetscInt a = (PetscInt)i0; a < (PetscInt)i1; a++)
      for (PetscInt p = r->ia[a]; p < r->ia[a + 1]; p++)
        if (r->eoff[p] >= 0)
          for (int d = 0; d < 3; d++) r->fine->xyz[3 * r->eoff[p] + d] = 0.5 * (r->coarse->xyz[3 * a + d] + r->coarse->xyz[3 * r->ja[p] + d]);
    return 0;
  }
  for (PetscInt e = (PetscInt)i0; e < (PetscInt)i1; e++) {
    const PetscInt *x = r->coarse->tet + 4 * e;
    PetscInt        m[4][4], *t = r->fine->tet + 32 * e;
    PetscInt        diag[3][2][2] = {
      {{0, 1}, {2, 3}},
      {{0, 2}, {1, 3}},
      {{0, 3}, {1, 2}}
    };
    PetscReal best = PETSC_MAX_REAL;
    int       bd   = 0;

    for (int i = 0; i < 4; i++)
      for (int j = i + 1; j < 4; j++) {
        PetscInt a = PetscMin(x[i], x[j]), b = PetscMax(x[i], x[j]), p = FindCol(r->ia, r->ja, a, b);
        m[i][j] = m[j][i] = r->eoff[p];
      }
    /* corner tets */
    {
      PetscInt c[4][4] = {
        {x[0],    m[0][1], m[0][2], m[0][3]},
        {m[0][1], x[1],    m[1][2], m[1][3]},
        {m[0][2], m[1][2], x[2],    m[2][3]},
        {m[0][3], m[1][3], m[2][3], x[3]   }
      };
      for (int i = 0; i < 4; i++)
        for (int q = 0; q < 4; q++) t[4 * i + q] = c[i][q];
    }
    /* octahedron: split along its shortest diagonal m_ab - m_cd (pairs of opposite midpoints) */
    for (int d = 0; d < 3; d++) {
      PetscInt  p = m[diag[d][0][0]][diag[d][0][1]], q = m[diag[d][1][0]][diag[d][1][1]];
      PetscReal l = 0;
      for (int k = 0; k < 3; k++) l += PetscSqr(r->fine->xyz[3 * p + k] - r->fine->xyz[3 * q + k]);
      if (l < best) {
        best = l;
        bd   = d;
      }
    }
    {
      int      a = diag[bd][0][0], b = diag[bd][0][1], c = diag[bd][1][0], d = diag[bd][1][1];
      PetscInt p = m[a][b], q = m[c][d], cyc[4] = {m[a][c], m[a][d], m[b][d], m[b][c]};
      for (int k = 0; k < 4; k++) {
        t[16 + 4 * k + 0] = p;
        t[16 + 4 * k + 1] = q;
        t[16 + 4 * k + 2] = cyc[k];
        t[16 + 4 * k + 3] = cyc[(k + 1) % 4];
      }
    }
  }
  return 0;
}

PetscErrorCode LVMeshRefineUniform(const LVMesh *coarse, LVMesh *fine)
{
  PetscInt *ia, *ja, *eoff, nv = coarse->nv, ne = 0, nth;
  RefineCtx rc;
  /* edge (a,b), a<b: id = eoff[p] where p is the position of b in row a */

  PetscFunctionBegin;
  PetscCall(LVMeshNodeGraph(coarse, &ia, &ja));
  PetscCall(PetscMalloc1(ia[nv], &eoff));
  for (PetscInt a = 0; a < nv; a++)
    for (PetscInt p = ia[a]; p < ia[a + 1]; p++) eoff[p] = ja[p] > a ? nv + ne++ : -1;
  fine->nv = nv + ne;
  fine->nt = 8 * coarse->nt;
  PetscCall(PetscMalloc1(3 * (size_t)fine->nv, &fine->xyz));
  PetscCall(PetscMalloc1(4 * (size_t)fine->nt, &fine->tet));
  PetscCall(PetscArraycpy(fine->xyz, coarse->xyz, 3 * nv));
  rc = (RefineCtx){coarse, fine, ia, ja, eoff, 0};
  PetscCall(PetscEllwarpThreadsGetCount(0, nv, 4096, &nth));
  PetscCall(PetscEllwarpThreadsRun(nth, nv, RefineWork, &rc));
  rc.phase = 1; /* the children read the midpoints */
  PetscCall(PetscEllwarpThreadsGetCount(0, coarse->nt, 16384, &nth));
  PetscCall(PetscEllwarpThreadsRun(nth, coarse->nt, RefineWork, &rc));
  PetscCall(PetscFree(eoff));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* RCM renumbering                                                                                              */

/* Reverse Cuthill-McKee on the vertex graph itself, a 0-based transcription of SPARSEPACK's GENRCM (George and Liu
   1981: FNROOT's pseudo-peripheral root by repeated rooted level structures, then RCM's breadth-first numbering with
   each vertex's new neighbours in increasing degree, reversed), which is what PETSc's MATORDERINGRCM runs.  Why not
   MatGetOrdering(): it needs a Mat of the graph, symmetrizes it again (MatGetRowIJ with symmetric = true builds a
   copy, here identical to the graph: symmetric, rows sorted, the diagonal in), and its 0.74 s were most of the
   1.3 s renumbering of the 1 M-vertex LV on an H100 host; this is the same algorithm on the same graph in the same
   order, so it gives the same permutation (tests/lvmesh_order.c checks it against MatGetOrdering), hence the same
   numbering, matrices and results as before.  Single-threaded: a few breadth-first passes over the graph.
   The markers: mask[v] != 0 while v is unnumbered (GENRCM's MASK); mark is DEGREE's visited flag (SPARSEPACK flips
   the sign of XADJ for it, which a 0-based XADJ cannot). */

/* The breadth-first passes read the rows of the queue's vertices, scattered over the graph (the numbering before RCM):
   prefetch the row offsets 32 vertices ahead and the row 16 ahead (the ordering of the 1 M-vertex LV, five passes,
   took 0.49 s without, 0.34-0.41 s with, on the 2-core CI machine).  Only reads: the ordering is the same. */
#if defined(__GNUC__)
  #define RCMPrefetch(ls, n, i, ia, ja) \
    do { \
      if ((i) + 32 < (n)) __builtin_prefetch(&(ia)[(ls)[(i) + 32]]); \
      if ((i) + 16 < (n)) __builtin_prefetch(&(ja)[(ia)[(ls)[(i) + 16]]]); \
    } while (0)
#else
  #define RCMPrefetch(ls, n, i, ia, ja) (void)0
#endif
/* ROOTLS: the level structure rooted at root over the unnumbered vertices, ls[xls[k] .. xls[k+1]) level k */
static void RCMRootLS(PetscInt root, const PetscInt *ia, const PetscInt *ja, char *mask, PetscInt *nlvl, PetscInt *xls, PetscInt *ls)
{
  PetscInt lbegin, lvlend = 0, ccsize = 1;

  mask[root] = 0;
  ls[0]      = root;
  *nlvl      = 0;
  do {
    lbegin         = lvlend;
    lvlend         = ccsize;
    xls[(*nlvl)++] = lbegin;
    for (PetscInt i = lbegin; i < lvlend; i++) {
      RCMPrefetch(ls, ccsize, i, ia, ja);
      for (PetscInt j = ia[ls[i]]; j < ia[ls[i] + 1]; j++)
        if (mask[ja[j]]) {
          mask[ja[j]]  = 0;
          ls[ccsize++] = ja[j];
        }
    }
  } while (ccsize > lvlend);
  xls[*nlvl] = lvlend;
  for (PetscInt i = 0; i < ccsize; i++) mask[ls[i]] = 1;
}

/* FNROOT: from root, a pseudo-peripheral vertex of root's component (modified Gibbs-Poole-Stockmeyer) */
static void RCMFindRoot(PetscInt *root, const PetscInt *ia, const PetscInt *ja, char *mask, PetscInt *xls, PetscInt *ls)
{
  PetscInt nlvl, nunlvl, ccsize;

  RCMRootLS(*root, ia, ja, mask, &nlvl, xls, ls);
  ccsize = xls[nlvl];
  if (nlvl == 1 || nlvl == ccsize) return;
  for (;;) {
    const PetscInt jstrt = xls[nlvl - 1]; /* the last level: its vertex of least degree becomes the root */
    PetscInt       mindeg = ccsize;
    *root                 = ls[jstrt];
    if (jstrt != ccsize - 1)
      for (PetscInt j = jstrt; j < ccsize; j++) {
        const PetscInt node = ls[j];
        PetscInt       ndeg = 0;
        for (PetscInt k = ia[node]; k < ia[node + 1]; k++)
          if (mask[ja[k]]) ndeg++;
        if (ndeg < mindeg) {
          *root  = node;
          mindeg = ndeg;
        }
      }
    RCMRootLS(*root, ia, ja, mask, &nunlvl, xls, ls);
    if (nunlvl <= nlvl) return;
    nlvl = nunlvl;
    if (nlvl >= ccsize) return;
  }
}

/* DEGREE: the degrees (unnumbered neighbours, the vertex itself included as in SPARSEPACK's graph) of root's
   component, whose vertices it lists in ls */
static void RCMDegree(PetscInt root, const PetscInt *ia, const PetscInt *ja, const char *mask, PetscInt *deg, PetscInt *ccsize, PetscInt *ls, char *mark)
{
  PetscInt lbegin, lvlend = 0, n = 1;

  ls[0]      = root;
  mark[root] = 1;
  do {
    lbegin = lvlend;
    lvlend = n;
    for (PetscInt i = lbegin; i < lvlend; i++) {
      const PetscInt node = ls[i];
      PetscInt       ideg = 0;
      RCMPrefetch(ls, n, i, ia, ja);
      for (PetscInt j = ia[node]; j < ia[node + 1]; j++) {
        const PetscInt nbr = ja[j];
        if (!mask[nbr]) continue;
        ideg++;
        if (mark[nbr]) continue;
        mark[nbr] = 1;
        ls[n++]   = nbr;
      }
      deg[node] = ideg;
    }
  } while (n > lvlend);
  for (PetscInt i = 0; i < n; i++) mark[ls[i]] = 0;
  *ccsize = n;
}

/* RCM: number root's component from root, breadth first, each vertex's new neighbours sorted by increasing degree
   (stable linear insertion, as SPARSEPACK), then reversed */
static void RCMNumber(PetscInt root, const PetscInt *ia, const PetscInt *ja, char *mask, PetscInt *perm, PetscInt *ccsize, PetscInt *deg, char *mark)
{
  PetscInt lbegin, lvlend = 0, lnbr = 1;

  RCMDegree(root, ia, ja, mask, deg, ccsize, perm, mark);
  mask[root] = 0;
  if (*ccsize <= 1) return;
  do {
    lbegin = lvlend;
    lvlend = lnbr;
    for (PetscInt i = lbegin; i < lvlend; i++) {
      const PetscInt node = perm[i], fnbr = lnbr;
      RCMPrefetch(perm, lnbr, i, ia, ja);
      for (PetscInt j = ia[node]; j < ia[node + 1]; j++)
        if (mask[ja[j]]) {
          mask[ja[j]]  = 0;
          perm[lnbr++] = ja[j];
        }
      for (PetscInt k = fnbr + 1; k < lnbr; k++) {
        const PetscInt nbr = perm[k];
        PetscInt       l   = k - 1;
        while (l >= fnbr && deg[perm[l]] > deg[nbr]) {
          perm[l + 1] = perm[l];
          l--;
        }
        perm[l + 1] = nbr;
      }
    }
  } while (lnbr > lvlend);
  for (PetscInt i = 0, l = *ccsize - 1; i < l; i++, l--) {
    const PetscInt t = perm[l];
    perm[l]          = perm[i];
    perm[i]          = t;
  }
}

PetscErrorCode LVMeshRCMOrdering(PetscInt nv, const PetscInt *ia, const PetscInt *ja, PetscInt *perm)
{
  char     *mask, *mark;
  PetscInt *xls, *deg, num = 0;

  PetscFunctionBegin;
  if (nv == 1) perm[0] = 0;
  if (nv <= 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc4(nv, &mask, nv, &mark, nv + 1, &xls, nv, &deg));
  for (PetscInt i = 0; i < nv; i++) {
    mask[i] = 1;
    mark[i] = 0;
  }
  for (PetscInt i = 0; i < nv && num < nv; i++) { /* each component, from its lowest unnumbered vertex */
    PetscInt root = i, ccsize;
    if (!mask[i]) continue;
    RCMFindRoot(&root, ia, ja, mask, xls, perm + num);
    RCMNumber(root, ia, ja, mask, perm + num, &ccsize, deg, mark);
    num += ccsize;
  }
  PetscCall(PetscFree4(mask, mark, xls, deg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the renumbering of a permutation (perm[k]: the old vertex that becomes k): coordinates and tets */
static PetscErrorCode LVMeshApplyPermutation(LVMesh *mesh, const PetscInt *perm)
{
  PetscInt  *newnum, nv = mesh->nv;
  PetscReal *xyz;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nv, &newnum));
  PetscCall(PetscMalloc1(3 * (size_t)nv, &xyz));
  for (PetscInt k = 0; k < nv; k++) {
    newnum[perm[k]] = k;
    for (int d = 0; d < 3; d++) xyz[3 * k + d] = mesh->xyz[3 * perm[k] + d];
  }
  for (PetscCount q = 0; q < 4 * (PetscCount)mesh->nt; q++) mesh->tet[q] = newnum[mesh->tet[q]];
  PetscCall(PetscFree(mesh->xyz));
  mesh->xyz = xyz;
  PetscCall(PetscFree(newnum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LVMeshRenumberRCM(LVMesh *mesh)
{
  PetscInt *ia, *ja, *perm;

  PetscFunctionBegin;
  PetscCall(LVMeshNodeGraph(mesh, &ia, &ja));
  PetscCall(PetscMalloc1(mesh->nv, &perm));
  PetscCall(LVMeshRCMOrdering(mesh->nv, ia, ja, perm));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(LVMeshApplyPermutation(mesh, perm));
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LVMeshRenumberRCMPetsc(LVMesh *mesh)
{
  PetscInt       *ia, *ja, nv = mesh->nv;
  PetscScalar    *vals;
  Mat             G;
  IS              rperm, cperm;
  const PetscInt *p;

  PetscFunctionBegin;
  PetscCall(LVMeshNodeGraph(mesh, &ia, &ja));
  PetscCall(PetscMalloc1(ia[nv], &vals));
  for (PetscInt q = 0; q < ia[nv]; q++) vals[q] = 1.0;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, nv, nv, ia, ja, vals, &G));
  PetscCall(MatGetOrdering(G, MATORDERINGRCM, &rperm, &cperm));
  PetscCall(ISGetIndices(rperm, &p));
  PetscCall(LVMeshApplyPermutation(mesh, p));
  PetscCall(ISRestoreIndices(rperm, &p));
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatDestroy(&G));
  PetscCall(PetscFree(vals));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Space-filling-curve renumbering                                                                              */

/* 3-D Hilbert index of integer coordinates with b bits each (J. Skilling, "Programming the Hilbert curve", AIP
   Conf. Proc. 707, 2004): the axes are transformed in place into the transposed Hilbert index, whose bits are then
   interleaved (most significant first).  b <= 21, so the key fits in 63 bits. */
static inline uint64_t HilbertKey3(uint32_t X[3], int b)
{
  uint32_t M = 1u << (b - 1), P, Q, t;
  uint64_t key = 0;

  for (Q = M; Q > 1; Q >>= 1) { /* inverse undo */
    P = Q - 1;
    for (int i = 0; i < 3; i++) {
      if (X[i] & Q) X[0] ^= P; /* invert */
      else {                   /* exchange */
        t = (X[0] ^ X[i]) & P;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; i++) X[i] ^= X[i - 1]; /* Gray encode */
  t = 0;
  for (Q = M; Q > 1; Q >>= 1)
    if (X[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; i++) X[i] ^= t;
  for (int j = b - 1; j >= 0; j--)
    for (int i = 0; i < 3; i++) key = (key << 1) | ((X[i] >> j) & 1u);
  return key;
}

/* Morton (Z-order) key: plain bit interleaving, z y x from most significant */
static inline uint64_t MortonKey3(const uint32_t X[3], int b)
{
  uint64_t key = 0;
  for (int j = b - 1; j >= 0; j--)
    for (int i = 0; i < 3; i++) key = (key << 1) | ((X[i] >> j) & 1u);
  return key;
}

typedef struct {
  uint64_t key;
  PetscInt v;
} SFCItem;

static int SFCItemCmp(const void *a, const void *b)
{
  const SFCItem *x = (const SFCItem *)a, *y = (const SFCItem *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v); /* ties (same cell of the 2^21 grid): keep the old order, deterministic */
}

PetscErrorCode LVMeshRenumberSFC(LVMesh *mesh, PetscBool hilbert)
{
  const int  b  = 21;
  PetscInt   nv = mesh->nv, *newnum;
  PetscReal  lo[3], hi[3], h = 0, *xyz;
  SFCItem   *it;

  PetscFunctionBegin;
  if (!nv) PetscFunctionReturn(PETSC_SUCCESS);
  for (int d = 0; d < 3; d++) lo[d] = hi[d] = mesh->xyz[d];
  for (PetscInt v = 0; v < nv; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], mesh->xyz[3 * v + d]);
      hi[d] = PetscMax(hi[d], mesh->xyz[3 * v + d]);
    }
  /* one cubic bounding box (the same scale on every axis), so that curve segments stay isotropic clusters */
  for (int d = 0; d < 3; d++) h = PetscMax(h, hi[d] - lo[d]);
  if (h <= 0) h = 1;
  PetscCall(PetscMalloc1(nv, &it));
  for (PetscInt v = 0; v < nv; v++) {
    uint32_t X[3];
    for (int d = 0; d < 3; d++) {
      PetscReal s = (mesh->xyz[3 * v + d] - lo[d]) / h * (PetscReal)((1u << b) - 1);
      X[d]        = (uint32_t)PetscMin(PetscMax(s, 0), (PetscReal)((1u << b) - 1));
    }
    it[v].key = hilbert ? HilbertKey3(X, b) : MortonKey3(X, b);
    it[v].v   = v;
  }
  qsort(it, (size_t)nv, sizeof(SFCItem), SFCItemCmp);
  PetscCall(PetscMalloc1(nv, &newnum));
  PetscCall(PetscMalloc1(3 * (size_t)nv, &xyz));
  for (PetscInt k = 0; k < nv; k++) {
    newnum[it[k].v] = k;
    for (int d = 0; d < 3; d++) xyz[3 * k + d] = mesh->xyz[3 * it[k].v + d];
  }
  for (PetscInt q = 0; q < 4 * mesh->nt; q++) mesh->tet[q] = newnum[mesh->tet[q]];
  PetscCall(PetscFree(mesh->xyz));
  mesh->xyz = xyz;
  PetscCall(PetscFree(newnum));
  PetscCall(PetscFree(it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Element geometry and FE matrices                                                                             */

/* gradients of the 4 barycentric functions; returns the signed 6*volume */
static inline PetscReal TetGradients(const PetscReal *xyz, const PetscInt *v, PetscReal g[4][3], PetscReal c[3])
{
  PetscReal e1[3], e2[3], e3[3], det;

  for (int d = 0; d < 3; d++) {
    e1[d] = xyz[3 * v[1] + d] - xyz[3 * v[0] + d];
    e2[d] = xyz[3 * v[2] + d] - xyz[3 * v[0] + d];
    e3[d] = xyz[3 * v[3] + d] - xyz[3 * v[0] + d];
    if (c) c[d] = 0.25 * (xyz[3 * v[0] + d] + xyz[3 * v[1] + d] + xyz[3 * v[2] + d] + xyz[3 * v[3] + d]);
  }
  g[1][0] = e2[1] * e3[2] - e2[2] * e3[1];
  g[1][1] = e2[2] * e3[0] - e2[0] * e3[2];
  g[1][2] = e2[0] * e3[1] - e2[1] * e3[0];
  g[2][0] = e3[1] * e1[2] - e3[2] * e1[1];
  g[2][1] = e3[2] * e1[0] - e3[0] * e1[2];
  g[2][2] = e3[0] * e1[1] - e3[1] * e1[0];
  g[3][0] = e1[1] * e2[2] - e1[2] * e2[1];
  g[3][1] = e1[2] * e2[0] - e1[0] * e2[2];
  g[3][2] = e1[0] * e2[1] - e1[1] * e2[0];
  det     = e1[0] * g[1][0] + e1[1] * g[1][1] + e1[2] * g[1][2];
  if (det == 0) return 0;
  for (int a = 1; a < 4; a++)
    for (int d = 0; d < 3; d++) g[a][d] /= det;
  for (int d = 0; d < 3; d++) g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  return det;
}

PetscErrorCode LVMeshGetVolume(const LVMesh *mesh, PetscReal *volume, PetscInt *ndegenerate)
{
  PetscReal vol = 0;
  PetscInt  nd  = 0;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < mesh->nt; e++) {
    PetscReal g[4][3], det = TetGradients(mesh->xyz, mesh->tet + 4 * e, g, NULL);
    if (PetscAbsReal(det) < 1e-14) nd++;
    vol += PetscAbsReal(det) / 6;
  }
  *volume      = vol;
  *ndegenerate = nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* transmural coordinate t in [0,1] (0 endocardium, 1 epicardium) from the family of ellipsoids
   (x^2+y^2)/(7+3t)^2 + z^2/(17+3t)^2 = 1, and the rule-based fibre: helix angle +60 deg (endo) to -60 deg
   (epi), measured from the circumferential direction towards the apex-base direction in the tangent plane */
void LVMeshFibre(const PetscReal p[3], PetscReal helix_endo, PetscReal helix_epi, PetscReal f[3])
{
  PetscReal lo = -0.5, hi = 1.5, t, rs, rl, n[3], el[3], ec[3], nn, alpha, r2 = p[0] * p[0] + p[1] * p[1], z2 = p[2] * p[2];

  /* the root of g(t) = r2/s(t)^2 + z2/l(t)^2 - 1 (decreasing and convex on the bracket, s, l > 0 there) by Newton
     kept inside the bracket [lo, hi] that g's signs update (bisection where a step leaves it): 4-6 evaluations
     instead of the 40 of plain bisection (7 of the 33 s set-up of the 1 M-vertex LV were this loop); the two agree
     to the bisection's 1e-12 */
  {
    const PetscReal slo = LV_ENDO_SHORT + LV_WALL * lo, llo = LV_ENDO_LONG + LV_WALL * lo, shi = LV_ENDO_SHORT + LV_WALL * hi, lhi = LV_ENDO_LONG + LV_WALL * hi;
    if (r2 / (shi * shi) + z2 / (lhi * lhi) > 1) lo = hi;      /* outside the bracket: bisection ends at its bound */
    else if (r2 / (slo * slo) + z2 / (llo * llo) <= 1) hi = lo;
  }
  t = 0.5 * (lo + hi);
  for (int it = 0; it < 60 && lo < hi; it++) {
    const PetscReal s = LV_ENDO_SHORT + LV_WALL * t, l = LV_ENDO_LONG + LV_WALL * t;
    const PetscReal g = r2 / (s * s) + z2 / (l * l) - 1, dg = -2 * LV_WALL * (r2 / (s * s * s) + z2 / (l * l * l));
    PetscReal       tn;
    if (g > 0) lo = t;
    else hi = t;
    tn = dg < 0 ? t - g / dg : 0.5 * (lo + hi);
    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
    if (PetscAbsReal(tn - t) < 1e-14 || hi - lo < 1e-13) {
      t = tn;
      break;
    }
    t = tn;
  }
  t    = PetscMin(1.0, PetscMax(0.0, t));
  rs   = LV_ENDO_SHORT + LV_WALL * t;
  rl   = LV_ENDO_LONG + LV_WALL * t;
  n[0] = p[0] / (rs * rs);
  n[1] = p[1] / (rs * rs);
  n[2] = p[2] / (rl * rl);
  nn   = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int d = 0; d < 3; d++) n[d] /= nn;
  el[0] = -n[2] * n[0];
  el[1] = -n[2] * n[1];
  el[2] = 1 - n[2] * n[2];
  nn    = PetscSqrtReal(el[0] * el[0] + el[1] * el[1] + el[2] * el[2]);
  if (nn < 1e-8) { /* apex: any tangent */
    el[0] = 1;
    el[1] = el[2] = 0;
    nn            = 1;
  }
  for (int d = 0; d < 3; d++) el[d] /= nn;
  ec[0] = n[1] * el[2] - n[2] * el[1];
  ec[1] = n[2] * el[0] - n[0] * el[2];
  ec[2] = n[0] * el[1] - n[1] * el[0];
  alpha = (helix_endo + (helix_epi - helix_endo) * t) * PETSC_PI / 180.0;
  for (int d = 0; d < 3; d++) f[d] = PetscCosReal(alpha) * ec[d] + PetscSinReal(alpha) * el[d];
}

/* LVMeshFibres: a contiguous range of tets per thread (6 M tets: 1.8 s on one core of the GPU host) */
typedef struct {
  const LVMesh *mesh;
  PetscReal     endo, epi, *fib;
} FibreCtx;

static int FibreWork(void *ctx, PetscInt range, PetscCount e0, PetscCount e1)
{
  FibreCtx      *r  = (FibreCtx *)ctx;
  const PetscInt nt = r->mesh->nt;

  (void)range;
  for (PetscInt e = (PetscInt)e0; e < (PetscInt)e1; e++) {
    PetscReal c[3] = {0, 0, 0}, f[3];
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) c[d] += 0.25 * r->mesh->xyz[3 * r->mesh->tet[4 * e + a] + d];
    LVMeshFibre(c, r->endo, r->epi, f);
    for (int d = 0; d < 3; d++) r->fib[(size_t)d * nt + e] = f[d];
  }
  return 0;
}

PetscErrorCode LVMeshFibres(const LVMesh *mesh, PetscReal helix_endo, PetscReal helix_epi, PetscInt nthreads, PetscReal *fib)
{
  FibreCtx r = {mesh, helix_endo, helix_epi, fib};
  PetscInt nth;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpThreadsGetCount(nthreads, mesh->nt, 4096, &nth)); /* small meshes: one thread */
  PetscCall(PetscEllwarpThreadsRun(nth, mesh->nt, FibreWork, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateFromCSR(PetscInt n, PetscInt bs, PetscInt *ia, PetscInt *ja, PetscScalar *va, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, n, n, n, n));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia, ja, va));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LVMeshAssembleDiffusion(const LVMesh *mesh, Mat *A)
{
  PetscInt    *ia, *ja, nv = mesh->nv;
  PetscScalar *va;
  const PetscReal cmass = 1.0;

  PetscFunctionBegin;
  PetscCall(LVMeshNodeGraph(mesh, &ia, &ja));
  PetscCall(PetscCalloc1(ia[nv], &va));
  for (PetscInt e = 0; e < mesh->nt; e++) {
    const PetscInt *v = mesh->tet + 4 * e;
    PetscReal       g[4][3], c[3], f[3], D[3][3], det = TetGradients(mesh->xyz, v, g, c), vol = PetscAbsReal(det) / 6;

    if (det == 0) continue;
    LVMeshFibre(c, 60.0, -60.0, f);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) D[i][j] = (i == j ? 1.0 : 0.0) + 3.0 * f[i] * f[j];
    for (int a = 0; a < 4; a++) {
      PetscReal Dg[3];
      for (int i = 0; i < 3; i++) Dg[i] = D[i][0] * g[a][0] + D[i][1] * g[a][1] + D[i][2] * g[a][2];
      for (int b = 0; b < 4; b++) {
        PetscInt p = FindCol(ia, ja, v[a], v[b]);
        va[p] += vol * (Dg[0] * g[b][0] + Dg[1] * g[b][1] + Dg[2] * g[b][2]) + cmass * vol / 20.0 * (a == b ? 2.0 : 1.0);
      }
    }
  }
  PetscCall(MatCreateFromCSR(nv, 1, ia, ja, va, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LVMeshAssembleElasticity(const LVMesh *mesh, Mat *A)
{
  PetscInt       *ia, *ja, *ib, *jb, nv = mesh->nv;
  PetscScalar    *vb;
  const PetscReal E = 1.0, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu)), cmass = 1e-2;

  PetscFunctionBegin;
  PetscCall(LVMeshNodeGraph(mesh, &ia, &ja));
  PetscCheck(9 * (PetscCount)ia[nv] < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity matrix too large for PetscInt");
  PetscCall(PetscMalloc1(3 * nv + 1, &ib));
  PetscCall(PetscMalloc1(9 * (size_t)ia[nv], &jb));
  PetscCall(PetscCalloc1(9 * (size_t)ia[nv], &vb));
  ib[0] = 0;
  for (PetscInt v = 0; v < nv; v++) {
    PetscInt deg = ia[v + 1] - ia[v];
    for (int i = 0; i < 3; i++) {
      PetscInt r = 3 * v + i, q = ib[r];
      ib[r + 1] = q + 3 * deg;
      for (PetscInt p = ia[v]; p < ia[v + 1]; p++)
        for (int j = 0; j < 3; j++) jb[q++] = 3 * ja[p] + j;
    }
  }
  for (PetscInt e = 0; e < mesh->nt; e++) {
    const PetscInt *v = mesh->tet + 4 * e;
    PetscReal       g[4][3], det = TetGradients(mesh->xyz, v, g, NULL), vol = PetscAbsReal(det) / 6;

    if (det == 0) continue;
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscInt  p   = FindCol(ia, ja, v[a], v[b]) - ia[v[a]];
        PetscReal gab = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2], m = cmass * vol / 20.0 * (a == b ? 2.0 : 1.0);
        for (int i = 0; i < 3; i++) {
          PetscScalar *row = vb + ib[3 * v[a] + i] + 3 * p;
          for (int j = 0; j < 3; j++) row[j] += vol * (lambda * g[a][i] * g[b][j] + mu * g[a][j] * g[b][i] + (i == j ? mu * gab : 0.0)) + (i == j ? m : 0.0);
        }
      }
  }
  PetscCall(MatCreateFromCSR(3 * nv, 3, ib, jb, vb, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(ib));
  PetscCall(PetscFree(jb));
  PetscCall(PetscFree(vb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* METIS renumbering                                                                                            */
#if defined(ELLWARP_HAVE_METIS)
  #include <metis.h>

typedef struct {
  idx_t    part;
  PetscInt v;
} PartItem;

static int PartItemCmp(const void *a, const void *b)
{
  const PartItem *x = (const PartItem *)a, *y = (const PartItem *)b;
  if (x->part != y->part) return x->part < y->part ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v); /* inside a part: the current order */
}
#endif

PetscErrorCode LVMeshRenumberMETIS(LVMesh *mesh, PetscInt partsize)
{
#if defined(ELLWARP_HAVE_METIS)
  PetscInt  nv = mesh->nv, *ia, *ja, *newnum;
  idx_t    *xadj, *adjncy, *part, n = (idx_t)nv, ncon = 1, nparts, objval = 0, options[METIS_NOPTIONS];
  PetscReal *xyz;
  PartItem  *it;
  PetscCount q = 0;
  int        err;

  PetscFunctionBegin;
  PetscCheck(partsize > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "METIS part size %" PetscInt_FMT " must be positive", partsize);
  if (nv < 2 * partsize) PetscFunctionReturn(PETSC_SUCCESS); /* one part: nothing to do */
  nparts = (idx_t)((nv + partsize - 1) / partsize);
  PetscCall(LVMeshNodeGraph(mesh, &ia, &ja));
  /* METIS wants the graph without self loops */
  PetscCall(PetscMalloc3(nv + 1, &xadj, ia[nv], &adjncy, nv, &part));
  xadj[0] = 0;
  for (PetscInt v = 0; v < nv; v++) {
    for (PetscInt k = ia[v]; k < ia[v + 1]; k++)
      if (ja[k] != v) adjncy[q++] = (idx_t)ja[k];
    xadj[v + 1] = (idx_t)q;
  }
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1; /* the same numbering on every run */
  err = METIS_PartGraphRecursive(&n, &ncon, xadj, adjncy, NULL, NULL, NULL, &nparts, NULL, NULL, options, &objval, part);
  PetscCheck(err == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "METIS_PartGraphRecursive failed (%d) for %" PetscInt_FMT " parts", err, (PetscInt)nparts);
  PetscCall(PetscMalloc1(nv, &it));
  for (PetscInt v = 0; v < nv; v++) {
    it[v].part = part[v];
    it[v].v    = v;
  }
  qsort(it, (size_t)nv, sizeof(PartItem), PartItemCmp);
  PetscCall(PetscMalloc1(nv, &newnum));
  PetscCall(PetscMalloc1(3 * (size_t)nv, &xyz));
  for (PetscInt k = 0; k < nv; k++) {
    newnum[it[k].v] = k;
    for (int d = 0; d < 3; d++) xyz[3 * k + d] = mesh->xyz[3 * it[k].v + d];
  }
  for (PetscInt t = 0; t < 4 * mesh->nt; t++) mesh->tet[t] = newnum[mesh->tet[t]];
  PetscCall(PetscFree(mesh->xyz));
  mesh->xyz = xyz;
  PetscCall(PetscFree(newnum));
  PetscCall(PetscFree(it));
  PetscCall(PetscFree3(xadj, adjncy, part));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  (void)mesh;
  (void)partsize;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "LVMeshRenumberMETIS: the benchmarks were built without METIS (metis.h / libmetis not found by CMake)");
#endif
}
