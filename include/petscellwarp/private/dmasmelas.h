/* Isotropic linear elasticity on Lagrange P1/Q1 cells with a vector field (src/dm/assembly/dmasmelas.c, the kiran
   type dmasmkiran.c, device kernels dmasmkirancuda.cu).  Compiled by both compilers: the host references and the
   device kernels call the same inline functions.

   Element dofs are node-major, component-minor (dof a*dim + i: component i of vertex a), the order of
   DMPlexGetClosureIndices() for a section with dim dofs per vertex and of PETSc's vector PetscFE basis.  With the
   physical gradients g_a of the vertex basis at a quadrature point and the weight w|det J|,
     K[(a,i),(b,k)] += w|J| (lambda g_a[i] g_b[k] + mu g_a[k] g_b[i] + mu delta_ik g_a . g_b)
   which is B^T D B of Kiran et al. (eq. 10-13) written per 3x3 node block, with the tensor shear modulus mu (their
   D's shear entries (1 - 2 nu) E / ((1 + nu)(1 - 2 nu)) are 2 mu: engineering strains there), and is PETSc's
   g3[i][j][k][l] = lambda delta_ij delta_kl + mu (delta_ik delta_jl + delta_il delta_jk) integrated at the same
   points.  In 2-D this is plane strain. */
#pragma once

#include <petscsys.h>

#if defined(__CUDACC__)
  #define DMASM_ELAS_HD __host__ __device__ __forceinline__
#else
  #define DMASM_ELAS_HD static inline
#endif

#define DMASM_ELAS_MAXQ 27 /* quadrature points of the element-buffer kernel */
#define DMASM_HEX_NEN   24 /* dofs of a vector Q1 hexahedron */
#define DMASM_HEX_NK    576

/* the kiran strategies (Kiran, Sharma, Gautam, section 4) */
typedef enum {
  DMASM_KIRAN_ELEMENT,   /* one thread per element, the element matrix in local memory (the paper's baseline, 3.4) */
  DMASM_KIRAN_WARP4,     /* a warp per element, 4 threads per element-matrix row (3 rows x 6 columns a lane, 4.1) */
  DMASM_KIRAN_WARP8,     /* a warp per element, 8 threads per row (6 rows x 3 columns a lane, 4.2) */
  DMASM_KIRAN_PPNI4,     /* warp4 with the geometry of all 8 Gauss points at once (4.3) */
  DMASM_KIRAN_PPNI8,     /* warp8 with PPNI */
  DMASM_KIRAN_TWOKERNEL, /* geometry kernel, then a block of 576 threads per element, one entry each (4.4) */
  DMASM_KIRAN_PPNIROW,   /* PPNI, lane l < 24 owns element-matrix row l: one store instruction = one column of the
                            element matrix (ELLWARP: 8 runs of 3 consecutive slots) or, by symmetry, one row (CSR) */
  DMASM_KIRAN_OWNER,     /* (not in the paper) write-once: a warp per node walks the node's elements, recomputes their
                            geometry, sums the node's 3 block rows in shared memory and stores each value once; no
                            colouring, no atomics, no read-modify-write */
  DMASM_KIRAN_OWNERGEO,  /* (not in the paper) owner's stores with the geometry computed once per element: a geometry
                            kernel writes each element's scaled gradients G (DMASM_OWNERGEO_G doubles), the owner kernel
                            reads them instead of recomputing the geometry per node-element pair */
  DMASM_KIRAN_AUTO,      /* a request only (the default): set-up picks ownergeo where its requirements hold, else owner
                            (only the tangled-element requirement failed) or ppnirow */
  DMASM_KIRAN_NSTRATEGIES
} DMAsmKiranStrategy;

/* The built-in elasticity kernels' context (DMAssemblyElasticityKernels()).  ref = {w[nq], dN[nq][nv][dim]}: the
   quadrature weights and reference gradients of the scalar vertex basis of the DM's PetscFE at its own quadrature
   points (PETSc's reference cell), so the geometry J = sum_a x_a dN_a is PETSc's own map. */
typedef struct _DMAsmElasCtx {
  PetscInt   dim, nv, nq, nen, ncell;
  PetscReal  lam, mu;    /* constant material */
  PetscReal *lm, *dlm;   /* per cell [ncell][2] = (lambda, mu), host and device (NULL: constant) */
  PetscReal *ref, *dref; /* host and device (at the first device use) */
} DMAsmElasCtx;

/* material of one element: Lame constants */
DMASM_ELAS_HD void DMAsmElasLame(PetscReal E, PetscReal nu, PetscReal *lam, PetscReal *mu)
{
  *lam = E * nu / ((1 + nu) * (1 - 2 * nu));
  *mu  = E / (2 * (1 + nu));
}

/* J[d][k] = sum_a x[a*dim+d] dN[a*dim+k] (dN: reference gradients of the vertex basis at one point) and its
   inverse Ji[k][d] (row-major); returns det J */
DMASM_ELAS_HD PetscReal DMAsmElasJacInv(int dim, int nv, const PetscReal *dN, const PetscReal *x, PetscReal *Ji)
{
  PetscReal J[9] = {0}, det;
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < dim; d++)
      for (int k = 0; k < dim; k++) J[d * dim + k] += x[a * dim + d] * dN[a * dim + k];
  if (dim == 3) {
    for (int r = 0; r < 3; r++) /* Ji[r][c] = C[c][r] / det: C the cofactor matrix (cyclic form) */
      for (int c = 0; c < 3; c++) Ji[r * 3 + c] = J[((c + 1) % 3) * 3 + (r + 1) % 3] * J[((c + 2) % 3) * 3 + (r + 2) % 3] - J[((c + 1) % 3) * 3 + (r + 2) % 3] * J[((c + 2) % 3) * 3 + (r + 1) % 3];
    det = J[0] * Ji[0] + J[1] * Ji[3] + J[2] * Ji[6];
  } else {
    det   = J[0] * J[3] - J[1] * J[2];
    Ji[0] = J[3];
    Ji[1] = -J[1];
    Ji[2] = -J[2];
    Ji[3] = J[0];
  }
  for (int i = 0; i < dim * dim; i++) Ji[i] /= det;
  return det;
}

/* physical gradients g[a*dim+d] = sum_k dN[a*dim+k] Ji[k][d] */
DMASM_ELAS_HD void DMAsmElasGrad(int dim, int nv, const PetscReal *dN, const PetscReal *Ji, PetscReal *g)
{
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < dim; d++) {
      PetscReal s = 0;
      for (int k = 0; k < dim; k++) s += dN[a * dim + k] * Ji[k * dim + d];
      g[a * dim + d] = s;
    }
}

/* the geometry at one quadrature point: g, returns det J */
DMASM_ELAS_HD PetscReal DMAsmElasGeom(int dim, int nv, const PetscReal *dN, const PetscReal *x, PetscReal *g)
{
  PetscReal       Ji[9];
  const PetscReal det = DMAsmElasJacInv(dim, nv, dN, x, Ji);
  DMAsmElasGrad(dim, nv, dN, Ji, g);
  return det;
}

/* one entry (i,k) of block (a,b) at one point: wl = w|J| lambda, wm = w|J| mu; dot = g_a . g_b */
DMASM_ELAS_HD PetscReal DMAsmElasEntry(const PetscReal *ga, const PetscReal *gb, PetscReal dot, int i, int k, PetscReal wl, PetscReal wm)
{
  return wl * ga[i] * gb[k] + wm * ga[k] * gb[i] + (i == k ? wm * dot : 0);
}

/* the 3x3 (dim x dim) block (a,b) of one quadrature point, added to K (row stride ldk) */
DMASM_ELAS_HD void DMAsmElasBlock(int dim, const PetscReal *ga, const PetscReal *gb, PetscReal wl, PetscReal wm, PetscScalar *K, int ldk)
{
  PetscReal dot = 0;
  for (int i = 0; i < dim; i++) dot += ga[i] * gb[i];
  for (int i = 0; i < dim; i++)
    for (int k = 0; k < dim; k++) K[i * ldk + k] += DMAsmElasEntry(ga, gb, dot, i, k, wl, wm);
}

/* the whole element matrix K[(a*dim+i)*nen + b*dim+k] (nen = nv*dim), zeroed first; ref: w[nq], dN[nq][nv][dim] */
DMASM_ELAS_HD void DMAsmElasElement(int dim, int nv, int nq, const PetscReal *w, const PetscReal *dN, const PetscReal *x, PetscReal lam, PetscReal mu, PetscScalar *K)
{
  const int nen = nv * dim;
  PetscReal g[8 * 3];
  for (int i = 0; i < nen * nen; i++) K[i] = 0;
  for (int q = 0; q < nq; q++) {
    const PetscReal det = DMAsmElasGeom(dim, nv, dN + q * nv * dim, x, g);
    const PetscReal wd  = w[q] * (det < 0 ? -det : det);
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) DMAsmElasBlock(dim, g + a * dim, g + b * dim, wd * lam, wd * mu, K + (a * dim) * nen + b * dim, nen);
  }
}

/* Warp strategies: lane l's slot s (0..17) of the hex element matrix -> (row, col) of the 24 x 24 matrix.
   4 threads per row (Fig. 2): row node a = l/4, column nodes 2(l%4), 2(l%4)+1: slot s = bb*9 + i*3 + k.
   8 threads per row (Fig. 6): row nodes 2(l/8), 2(l/8)+1, column node l%8: slot s = aa*9 + i*3 + k.
   The index map stores slot s of lane l of element p at map[p*576 + s*32 + l]: a warp reads it coalesced. */
DMASM_ELAS_HD void DMAsmKiranSlot(int tpr, int lane, int s, int *row, int *col)
{
  const int h = s / 9, i = (s % 9) / 3, k = s % 3;
  if (tpr == 4) {
    *row = 3 * (lane >> 2) + i;
    *col = 3 * (2 * (lane & 3) + h) + k;
  } else {
    *row = 3 * (2 * (lane >> 3) + h) + i;
    *col = 3 * (lane & 7) + k;
  }
}

/* position of element-matrix entry r (= row*24 + col) of colour-ordered element p (of n) in the strategy's index map:
   element: entry-major r*n + p (a thread per element reads it coalesced); two kernels: p*576 + r (a thread per entry);
   warp strategies: p*576 + s*32 + lane of the lane that owns r; ppnirow: p*576 + c*24 + l, lane l computes
   V(l, c) = entry (row l, col c) and stores it at store step c, into the target of entry (l, c), or, with tr (the
   transposed order, chosen at plan time where it gives more consecutive targets in a step: CSR), of entry (c, l):
   the element matrix is symmetric, V(l, c) = K[c][l] up to rounding */
DMASM_ELAS_HD PetscCount DMAsmKiranMapPos(int strategy, int tr, PetscCount n, PetscCount p, int r)
{
  if (strategy == DMASM_KIRAN_ELEMENT) return (PetscCount)r * n + p;
  if (strategy == DMASM_KIRAN_TWOKERNEL) return p * DMASM_HEX_NK + r;
  if (strategy == DMASM_KIRAN_PPNIROW) {
    const int row = r / DMASM_HEX_NEN, col = r % DMASM_HEX_NEN, l = tr ? col : row, c = tr ? row : col;
    return p * DMASM_HEX_NK + c * DMASM_HEX_NEN + l;
  }
  {
    const int tpr = (strategy == DMASM_KIRAN_WARP4 || strategy == DMASM_KIRAN_PPNI4) ? 4 : 8;
    const int row = r / DMASM_HEX_NEN, col = r % DMASM_HEX_NEN, a = row / 3, i = row % 3, b = col / 3, k = col % 3;
    int       lane, s;
    if (tpr == 4) {
      lane = 4 * a + b / 2;
      s    = (b % 2) * 9 + i * 3 + k;
    } else {
      lane = 8 * (a / 2) + b;
      s    = (a % 2) * 9 + i * 3 + k;
    }
    return p * DMASM_HEX_NK + s * 32 + lane;
  }
}

/* ppnirow's store order: with targets t(row, col) of one element, the pairs of a store step that are consecutive
   values (t(l+1, c) = t(l, c) + 1) in the row order (cnt[0]) and in the transposed order (t(c, l+1) = t(c, l) + 1,
   cnt[1]) */
DMASM_ELAS_HD void DMAsmKiranOrderCount(int r, PetscInt t, PetscInt tdown, PetscInt tright, PetscCount cnt[2])
{
  if (r / DMASM_HEX_NEN < DMASM_HEX_NEN - 1 && tdown == t + 1) cnt[0]++;
  if (r % DMASM_HEX_NEN < DMASM_HEX_NEN - 1 && tright == t + 1) cnt[1]++;
}

/* An index-map entry m: m >= 0 adds to value m; m < 0 stores into value ~m: the first colour (in launch order)
   touching a value stores it, the later ones add, so the values need no zeroing (only the values no element
   touches, listed at plan time).  Saves the zeroing pass and the read of the first contribution (16 B a value). */
DMASM_ELAS_HD void DMAsmKiranPut(PetscScalar *dst, int m, PetscScalar v)
{
  if (m < 0) dst[~m] = v;
  else dst[m] += v;
}

/* ppnirow's compressed index map: per store step (element p, step c) one 32-bit base, the smallest of its 24 targets,
   and per lane a 16-bit o = 2 (t - base) + (first touch), so 96 + 1152 B per element instead of 2304 B.  The targets of
   a transposed step are one matrix row's columns (CSR: within the row's length; ELLWARP: within the row's slots), so
   t - base is small; where a step spreads over more than 32767 values (the row order on large meshes, very long rows)
   the function returns 0 and the plan keeps the 32-bit map.  m: the 24 32-bit entries of the step (DMAsmKiranPut's
   encoding). */
DMASM_ELAS_HD int DMAsmKiranMap16(const int *m, int *base, unsigned short *off)
{
  int b = m[0] < 0 ? ~m[0] : m[0], ok = 1;
  for (int l = 1; l < DMASM_HEX_NEN; l++) {
    const int t = m[l] < 0 ? ~m[l] : m[l];
    b           = t < b ? t : b;
  }
  for (int l = 0; l < DMASM_HEX_NEN; l++) {
    const int d = (m[l] < 0 ? ~m[l] : m[l]) - b;
    if (d > 32767) ok = 0;
    off[l] = (unsigned short)(((d & 32767) << 1) | (m[l] < 0 ? 1 : 0));
  }
  *base = b;
  return ok;
}

DMASM_ELAS_HD void DMAsmKiranPut16(PetscScalar *dst, int base, unsigned short o, PetscScalar v)
{
  if (o & 1) dst[base + (o >> 1)] = v;
  else dst[base + (o >> 1)] += v;
}

/* ---- owner (write-once) strategy.  Node v (the vertex whose component-0 dof is 3v) owns matrix rows 3v..3v+2.  Its
   neighbours (the vertices of its elements, ascending) get slots j < maxnb; the node's values are summed in an
   accumulator acc[3][3 maxnb]: acc[i][3j+k] = entry (row 3v+i, column 3 nb_j + k).  The plan lists, per node, its
   values sorted by target position (consecutive lanes store to consecutive values where the layout has them: a CSR
   row, ELLWARP's groups of tpr slots and the node's 3 neighbouring rows in a slice) as (t - base) << 16 | acc index. */
#define DMASM_OWNER_MAXNB 40 /* neighbour slots: 8 warps x 9 x 40 doubles of shared memory (23 kB) beside the geometry's 25 kB */

/* ownergeo's per-element geometry G[e][q][b][d] (element-major, 8 x 8 x 3 doubles = 1536 B): the physical gradient d
   of vertex b's basis at Gauss point q times sqrt(w_q |det J_q|), so that g_a,i g_b,k sums to the weighted integrand
   and lambda, mu multiply the whole element matrix (DMAsmOwnerPoint with wl = lambda, wm = mu).  Double: float's 1e-7
   would miss the 1e-13 against PETSc's FE Jacobian. */
#define DMASM_OWNERGEO_G 192

DMASM_ELAS_HD int DMAsmOwnerAcc(int maxnb, int i, int j, int k)
{
  return i * 3 * maxnb + 3 * j + k;
}

/* one Gauss point's contribution to column (b, k) of the 3 rows of an element's vertex a, added to c[i] (callers loop
   over the 8 points and zero c first): g the physical gradients [8 b][3] at the point, wl = w |det J| lambda, wm =
   w |det J| mu.  K[(a,i),(b,k)] = wl ga_i gb_k + wm ga_k gb_i + wm delta_ik ga.gb (DMAsmElasEntry) with the products
   wl gb_k and wm ga_k shared by the 3 rows: 2 FMAs a row */
DMASM_ELAS_HD void DMAsmOwnerPoint(const PetscReal *g, PetscReal wl, PetscReal wm, int a, int b, int k, PetscReal c[3])
{
  const PetscReal *ga = g + 3 * a, *gb = g + 3 * b;
  const PetscReal  dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2], lk = wl * gb[k], mk = wm * ga[k];
  for (int i = 0; i < 3; i++) c[i] += ga[i] * lk + gb[i] * mk + (i == k ? wm * dot : 0);
}

/* ownergeo: with the gradients prescaled by sqrt(w |det J|) (DMASM_OWNERGEO_G) and lambda, mu constant on the element,
   the Gauss sum factors: K[(a,i),(b,k)] = lambda M[i][k] + mu M[k][i] + mu delta_ik tr M with the 3 x 3
   M_ab = sum_q g_a(q) g_b(q)^T, 3 FMAs a point per column (b, k) instead of DMAsmOwnerPoint's ~12 flops.
   DMAsmOwnerGeoPoint adds one point to column k of M_ab (m[i] = M[i][k]); DMAsmOwnerGeoEntry: the entry (i, k) from
   column k (col[i] = M[i][k]), row k (row[i] = M[k][i]) and the trace */
DMASM_ELAS_HD void DMAsmOwnerGeoPoint(const PetscReal *g, int a, int b, int k, PetscReal m[3])
{
  const PetscReal gbk = g[3 * b + k];
  for (int i = 0; i < 3; i++) m[i] += g[3 * a + i] * gbk;
}

DMASM_ELAS_HD PetscReal DMAsmOwnerGeoEntry(const PetscReal col[3], const PetscReal row[3], PetscReal tr, PetscReal lam, PetscReal mu, int i, int k)
{
  return lam * col[i] + mu * row[i] + (i == k ? mu * tr : 0);
}

/* one node's store list from tgt[cap] (acc index -> target value, -1: none; cap = 9 maxnb): the 3 row runs acc[i][.]
   are merged by target (each run ascends where the target keeps a row's values in column order: CSR and most
   ELLWARP layouts), and heapsorted where that leaves it unsorted: the list ascends by target (consecutive lanes store
   consecutive values; the block lists rank by it).  Returns 0 where a target lies 65536 or more values past the
   node's smallest (the 16-bit offset does not fit). */
DMASM_ELAS_HD int DMAsmOwnerPack(int maxnb, const int *tgt, int *base, int *cnt, unsigned *list)
{
  const int run = 3 * maxnb;
  int       h[3], n = 0, b = -1;
  for (int i = 0; i < 3; i++) {
    h[i] = i * run;
    while (h[i] < (i + 1) * run && tgt[h[i]] < 0) h[i]++;
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < 3; i++)
      if (h[i] < (i + 1) * run && (best < 0 || tgt[h[i]] < tgt[h[best]])) best = i;
    if (best < 0) break;
    list[n++] = (unsigned)h[best];
    do h[best]++;
    while (h[best] < (best + 1) * run && tgt[h[best]] < 0);
  }
  { /* where the runs do not ascend (an ELLWARP layout that splits rows over lanes interleaves a row's values) the merge
       leaves the list unsorted: a heapsort by target then (stores in target order; the block lists need sorted lists) */
    int sorted = 1;
    for (int s = 1; s < n && sorted; s++) sorted = tgt[list[s]] > tgt[list[s - 1]];
    if (!sorted) {
      for (int m = n; m > 1; m--) {
        for (int r = (m == n ? n / 2 - 1 : 0); r >= 0; r--) { /* heapify at r (all of them on the first pass, then the root) */
          int p = r;
          for (;;) {
            int c = 2 * p + 1;
            if (c >= m) break;
            if (c + 1 < m && tgt[list[c + 1]] > tgt[list[c]]) c++;
            if (tgt[list[c]] <= tgt[list[p]]) break;
            const unsigned x = list[c];
            list[c] = list[p];
            list[p] = x;
            p       = c;
          }
        }
        const unsigned x = list[0]; /* the largest to the end */
        list[0]          = list[m - 1];
        list[m - 1]      = x;
      }
    }
  }
  for (int s = 0; s < n; s++) b = (b < 0 || tgt[list[s]] < b) ? tgt[list[s]] : b;
  *base = b < 0 ? 0 : b;
  *cnt  = n;
  for (int s = 0; s < n; s++) {
    const int d = tgt[list[s]] - *base;
    if (d > 65535) return 0;
    list[s] |= (unsigned)d << 16;
  }
  return 1;
}

/* ownergeo's block store lists: the nodes of one node-kernel block (DMASM_OWNER_BLOCK consecutive nodes, one warp each)
   store their values together after a block barrier, thread x of the block the block list's entry x, sorted by target:
   consecutive threads write consecutive values across the nodes (ELLWARP: a slot's 24 rows of the block in one run of
   192 B instead of 8 runs of 24 B; CSR: the block's 24 rows in one run).  The block's targets may lie far apart (an
   ELLWARP layout sorted by row length puts a boundary node's rows away from its interior neighbours'), so an entry is
   relative to one of up to DMASM_OWNER_BLOCK windows of the block: entry = (t - wbase[w]) << 15 | w << 12 | (node - v0)
   cap + accumulator index (cap = 9 maxnb <= 360: 8 cap < 4096; t - wbase[w] < span <= 2^17).  Windows (DMAsmOwnerBlockHead):
   the nodes taken by increasing smallest target, a node opens a new window (based at its smallest target) unless its
   largest target lies within span of the current window's base; a node's window is the last one based at or below its
   smallest target (DMAsmOwnerBlockWindow: its targets lie within span of that base too).  A node's targets spread over
   at most 65536 values (its 16-bit list), so with span = 2^17 every block has a list; a smaller span (tests,
   -dm_assembly_kiran_block_span) can leave a block without one (its nodes store by their own lists).  Entry s of node v
   goes to s + the number of the block's other entries with a smaller target (targets are distinct: write-once), a
   binary search in each other node's list; the node lists ascend by target (DMAsmOwnerPack sorts them). */
#define DMASM_OWNER_BLOCK     8
#define DMASM_OWNER_SPAN_BITS 17

/* a block's windows and number of values (nb nodes from obase, ocnt, olist; lists cap apart): wbase[0..nw) the windows'
   bases, the rest INT_MAX; returns nw, or 0 where a node's own targets spread over span or more (*bcnt -1: no list) */
DMASM_ELAS_HD int DMAsmOwnerBlockHead(int cap, int nb, const int *obase, const int *ocnt, const unsigned *olist, int span, int *wbase, int *bcnt)
{
  int order[DMASM_OWNER_BLOCK], no = 0, nw = 0, n = 0;
  for (int w = 0; w < DMASM_OWNER_BLOCK; w++) wbase[w] = 2147483647;
  for (int v = 0; v < nb; v++) { /* the nodes with values, by smallest target (insertion: at most 8) */
    int p = no++;
    n += ocnt[v];
    if (!ocnt[v]) {
      no--;
      continue;
    }
    for (; p > 0 && obase[order[p - 1]] > obase[v]; p--) order[p] = order[p - 1];
    order[p] = v;
  }
  for (int o = 0; o < no; o++) {
    const int v = order[o], last = obase[v] + (int)(olist[v * cap + ocnt[v] - 1] >> 16);
    if (last - obase[v] >= span) {
      *bcnt = -1;
      return 0;
    }
    if (!nw || last - wbase[nw - 1] >= span) wbase[nw++] = obase[v];
  }
  *bcnt = n;
  return nw;
}

/* the window of a node whose smallest target is ob: the last window based at or below it */
DMASM_ELAS_HD int DMAsmOwnerBlockWindow(const int *wbase, int ob)
{
  int w = 0;
  for (int x = 1; x < DMASM_OWNER_BLOCK; x++) w = wbase[x] <= ob ? x : w;
  return w;
}

/* obase, ocnt, olist: the block's first node's (nb nodes, lists cap apart); wbase: the block's windows */
DMASM_ELAS_HD void DMAsmOwnerBlockEntry(int cap, int nb, const int *obase, const int *ocnt, const unsigned *olist, const int *wbase, int v, int s, int *rank, unsigned *entry)
{
  const unsigned m = olist[v * cap + s];
  const int      t = obase[v] + (int)(m >> 16), w = DMAsmOwnerBlockWindow(wbase, obase[v]);
  int            r = s;
  for (int u = 0; u < nb; u++) {
    int lo = 0, hi = ocnt[u];
    if (u == v) continue;
    while (lo < hi) { /* the entries of node u with a smaller target */
      const int mid = (lo + hi) / 2;
      if (obase[u] + (int)(olist[u * cap + mid] >> 16) < t) lo = mid + 1;
      else hi = mid;
    }
    r += lo;
  }
  *rank  = r;
  *entry = ((unsigned)(t - wbase[w]) << 15) | ((unsigned)w << 12) | (unsigned)(v * cap + (int)(m & 0xffff));
}

/* the target of block entry m (wbase: the block's windows) */
DMASM_ELAS_HD int DMAsmOwnerBlockTarget(const int *wbase, unsigned m)
{
  return wbase[(m >> 12) & 7] + (int)(m >> 15);
}

/* device side (dmasmkirancuda.cu); the plain-C references are in dmasmelas.c and dmasmkiran.c */
PETSC_INTERN PetscErrorCode DMAsmElasCtxDevice(DMAsmElasCtx *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAElasElement(const DMAsmElasCtx *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *, PetscScalar *);
/* one colour [p0, p0+n) of the colour-ordered elements by strategy s into dst (geo: the two kernels' geometry; jac: the
   Jacobian of warp4/warp8, 0 shuffle, 1 shared memory, 2 atomics: DMAssemblyKiranJacobians) */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranColor(int s, int jac, PetscInt p0, PetscInt n, PetscInt nelem, const PetscReal *dref, const PetscReal *xk, const PetscReal *lmk, PetscReal lam, PetscReal mu, const int *map, const int *mbase, const unsigned short *moff, const PetscReal *geo, PetscScalar *dst);
/* ppnirow: the compressed map from the 32-bit one (DMAsmKiranMap16 per step); *ok = 0 where a step does not fit */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranMap16(PetscInt nelem, const int *dmap, int *dmbase, unsigned short *dmoff, PetscBool *ok);
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranGeometry(PetscInt nelem, const PetscReal *dref, const PetscReal *xk, PetscReal *geo);
/* the index map from the device element targets (first touches encoded as stores) and the untouched values of nval;
   ppnirow: DMAsmCUDAKiranOrder counts consecutive targets (DMAsmKiranOrderCount) over all elements, tr its choice */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOrder(PetscInt nelem, const PetscInt *dq2t, PetscCount cnt[2]);
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranMap(int s, int tr, PetscInt nelem, const PetscInt *dcolelem, const PetscInt *dq2t, PetscCount nval, int *dmap, PetscCount *nuntouched, int **duntouched);
/* owner: the store lists from the device element targets (a thread per element entry, then one per node) and the
   untouched values (*ok = PETSC_FALSE, nothing else done, where a node's 16-bit store list does not fit); the
   assembly (a warp per node) */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOwnerPlan(PetscInt nelem, PetscInt nnode, int maxnb, const int *dvnode, const unsigned long long *djsl, PetscInt m, const PetscInt *ia, const PetscInt *ja, const PetscInt *c2v, PetscCount nval, int *dobase, int *docnt, unsigned *dolist, PetscCount *nuntouched, int **duntouched, PetscBool *ok);
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOwner(int blocks, PetscInt nnode, int maxnb, const PetscReal *dref, const PetscReal *xk, const PetscReal *lmk, PetscReal lam, PetscReal mu, const PetscInt *nptr, const int *adj, PetscInt nelem, const unsigned long long *jsl, const int *obase, const int *ocnt, const unsigned *olist, PetscScalar *dst);
/* ownergeo: the geometry kernel (a warp per element into G; *bad = 1 where an element's det J is 0, not finite, or
   changes sign between its Gauss points; with ok, the flag zeroed first and read back, *ok: no such element, at
   set-up; kind 0 a warp per element, 1 a thread per (element, Gauss point): -dm_assembly_kiran_geometry_kernel, compiled
   for blocks 3, 5 or 6 blocks an SM: -dm_assembly_kiran_geometry_blocks), then
   the node kernel reading G (chunks of nch pairs: -dm_assembly_kiran_node_chunk; storing by the block lists bwin
   (DMASM_OWNER_BLOCK window bases a block), bcnt, blist where given, else by the node lists) */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOwnerGeo(int blocks, int nch, PetscInt nnode, int maxnb, const PetscReal *lmk, PetscReal lam, PetscReal mu, const PetscInt *nptr, const int *adj, PetscInt nelem, const unsigned long long *jsl, const int *obase, const int *ocnt, const unsigned *olist, const int *bwin, const int *bcnt, const unsigned *blist, const PetscReal *G, PetscScalar *dst);
/* the block store lists on the device from the node lists (bcnt[B] = -1 where a node of block B spreads over span: tests
   only); *nfit the blocks with a list, *nmulti those of several windows (a synchronisation: set-up) */
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOwnerBlockPlan(PetscInt nnode, int maxnb, int span, const int *obase, const int *ocnt, const unsigned *olist, int *bwin, int *bcnt, unsigned *blist, PetscInt *nfit, PetscInt *nmulti);
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranOwnerGeometry(int kind, int blocks, PetscInt nelem, const PetscReal *dref, const PetscReal *xk, PetscReal *G, int *bad, PetscBool *ok);
PETSC_INTERN PetscErrorCode DMAsmCUDAKiranZeroList(PetscCount n, const int *list, PetscScalar *dst);
#endif
