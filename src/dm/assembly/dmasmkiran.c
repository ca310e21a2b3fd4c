/* The kiran type (DMASSEMBLYKIRAN): 8-node hexahedra of isotropic linear elasticity (3 dofs a node, 24 x 24 element
   matrices) generated and assembled inside one kernel per colour, by the strategies of Kiran, Sharma and Gautam,
   "GPU-warp based finite element matrices generation and assembly using coloring method" (JCDE 2019), in double
   precision:
     element    one thread per element, the element matrix in local memory (their baseline, section 3.4)
     warp4      a warp per element, 4 threads per element-matrix row: lane l holds rows of node l/4 x the columns of
                nodes 2(l%4), 2(l%4)+1, 18 entries in registers; the Jacobian by warp shuffle (4.1, Alg. 4, Fig. 4)
     warp8      8 threads per row: rows of nodes 2(l/8), 2(l/8)+1 x the columns of node l%8 (4.2)
     ppni4/8    warp4/8 with partial parallel numerical integration: the Jacobians, determinants, inverses and
                physical gradients of all 8 Gauss points at once in shared memory (4.3, Listing 1)
     twokernel  a geometry kernel (inverse Jacobians and weights of all Gauss points, a warp per element, into global
                memory), then a block of 576 threads per element, one entry each (4.4)
     ppnirow    (not in the paper) PPNI, then lane l < 24 owns element-matrix row l: a store instruction writes one
                column of the element matrix (consecutive targets where a layout puts the rows of a node next to each
                other, ELLWARP slices with one lane a row) or, the matrix being symmetric, one row (runs of consecutive
                columns: CSR, and ELLWARP's groups of tpr lanes a row); the plan counts both over all elements and picks
                the order with more consecutive targets (`tr`), and stores the map as a 32-bit base and 24 16-bit
                offsets per store step where they fit (DMAsmKiranMap16)
     owner      (not in the paper) write-once: a warp per node (its 3 block rows) walks the node's elements (a node ->
                element CSR built once at set-up on the host, its time in View), recomputes each element's geometry
                at its 8 Gauss points at once (PPNI's layout; the Jacobians as 8-term sums, not shuffles), sums the node's 3 x 3 maxnb values in shared memory and stores each value once, sorted by
                target (a 16-bit offset and the accumulator index per value): no colouring, no atomics, no
                read-modify-write, ~8 + 4 B per nonzero instead of the others' ~30 B (View's bytes model)
     ownergeo   (not in the paper) owner's stores with the geometry computed once per element instead of once per
                node-element pair: a geometry kernel (a thread per element and Gauss point) writes each element's physical gradients
                scaled by sqrt(w |det J|) at its 8 Gauss points (G, 1536 B an element, DMASM_OWNERGEO_G), then owner's
                warp per node reads them (from L2 mostly) and sums its 3 rows (lambda, mu factored out of the Gauss sum: 3 FMAs a point and column),
                the values of 8 nodes stored together where the target allows (block store lists);
                ~0.3 x owner's instructions, 3 kB more DRAM traffic per element (G written and read)
   The elements are coloured greedily on the host (no two of a colour share a vertex; time in View), reordered by
   colour with their coordinates (and material) laid out for the strategy, and a per-element index map into the
   target's value array (ELLWARP slots, CSR values: MatGetAssemblyTarget) is precomputed in the order the
   strategy's threads read it (coalesced: DMAsmKiranMapPos in include/petscellwarp/private/dmasmelas.h); each colour
   adds its entries to the zeroed values without atomics.  On the device the map is built by a kernel from the
   generic element targets (the paper's future work).  Every device kernel (dmasmkirancuda.cu) has here a plain-C
   reference walking the same layouts (the host path). */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmelas.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include <petsctime.h>
#include <petscbt.h>

PETSC_INTERN PetscErrorCode DMAsmElasGetCtx(DMAssembly, DMAsmElasCtx **);

const char *const DMAssemblyKiranStrategies[] = {"element", "warp4", "warp8", "ppni4", "ppni8", "twokernel", "ppnirow", "owner", "ownergeo", "auto", "DMAssemblyKiranStrategy", "DMASSEMBLY_KIRAN_", NULL};
/* the Jacobian of warp4/warp8 (Kiran et al., Table 1) */
static const char *const KiranJacobians[] = {"shuffle", "shared", "atomic", "KiranJacobian", "KIRAN_JAC_", NULL};
/* ppnirow's store order: the one with more consecutive targets in a store step (auto), or forced (tests run both) */
static const char *const KiranStoreOrders[] = {"auto", "row", "transposed", "KiranStoreOrder", "KIRAN_ORDER_", NULL};
/* ownergeo's geometry kernel on the device: a warp per element (measured) or a thread per (element, Gauss point) */
static const char *const KiranGeometryKernels[] = {"warp", "point", "KiranGeometryKernel", "KIRAN_GEOMETRY_", NULL};

#define KIRAN_GEO 80 /* two kernels: per element 8 x (inverse Jacobian 9 + w|det J| 1) */

typedef struct {
  PetscInt       request;                   /* DMAsmKiranStrategy asked for (DMASM_KIRAN_AUTO: chosen at set-up) */
  PetscInt       strategy;                  /* DMAsmKiranStrategy in use (the request, or auto's choice) */
  int            refused;                   /* auto: 0 ownergeo taken, 1 an owner requirement failed (ppnirow), 2 only the untangled-element one (owner) */
  char           why[256];                  /* auto: the requirement that failed (View) */
  PetscInt       jac;                       /* warp4/warp8: the Jacobian by warp shuffle (0), shared memory (1), atomics (2) */
  PetscInt       ncolors, *colptr, *colelem; /* colour c: colour-ordered positions colptr[c] .. colptr[c+1]; colelem[p]: its element */
  PetscInt      *dcolelem;
  PetscInt       maxval;                    /* largest vertex valence */
  PetscLogDouble colortime;                 /* host seconds of the greedy colouring */
  PetscReal     *xk, *dxk;                  /* coordinates in colour order: [24][nelem] (element) or [nelem][24] */
  PetscReal     *lmk, *dlmk;                /* per element (lambda, mu) in colour order, NULL: constant */
  int           *map, *dmap;                /* index map [576 nelem] in the strategy's order (host / device) */
  PetscInt       order;                     /* ppnirow: KiranStoreOrders (0 auto, 1 row, 2 transposed) */
  PetscBool      tr;                        /* ppnirow: stores in the transposed order (DMAsmKiranMapPos) */
  PetscCount     ordercnt[2];               /* ppnirow: consecutive targets in a store step, row / transposed order */
  PetscInt       geokernel;                 /* ownergeo (device): KiranGeometryKernels (0 warp, 1 point) */
  PetscInt       geoblocks;                 /* ownergeo, point geometry kernel: compiled for 3, 5 or 6 blocks an SM */
  PetscInt       nodechunk;                 /* ownergeo's node kernel: pairs whose adjacency a warp loads at once (32) */
  PetscBool      blockstore;                /* owner plans: the block store lists (host reference, ownergeo's node kernel) */
  PetscInt       blockspan;                 /* a block list window's span (2^17; smaller in tests) */
  PetscInt       nblkfit, nblkmulti;        /* blocks that store by their block list (the others by node lists), those of several windows */
  PetscInt       ownerblocks;               /* owner (device): blocks of 8 warps an SM the kernel is compiled for (2: no spill, 4: 64 registers) */
  PetscBool      map16;                     /* ppnirow: compress the index map where every step fits (DMAsmKiranMap16) */
  int           *mbase, *dmbase;            /* ppnirow's compressed map: a base per store step [24 nelem] ... */
  unsigned short *moff, *dmoff;             /* ... and 16-bit offsets [576 nelem] (NULL: the 32-bit map) */
  PetscCount     nval;                      /* length of the target's value array */
  PetscCount     nuntouched;                /* values no element touches (zeroed by each assembly; the others are stored by their first colour) */
  PetscCount     ncsr;                      /* the target's CSR entries (its values less the padding) */
  PetscCount     npad;                      /* padding slots left to the target (no list: MatAssemblyBlock keeps them 0) */
  int           *untouched, *duntouched;
  PetscReal     *geo, *dgeo;                /* two kernels: [nelem][KIRAN_GEO]; ownergeo: G [nelem][DMASM_OWNERGEO_G] */
  int           *dgeobad;                   /* ownergeo (device): set by the geometry kernel where an element is inverted or degenerate */
  /* owner: node v (rows 3v..3v+2) -> its elements, nptr[v] .. nptr[v+1]: adj = e*8 + a (vertex a of element e is v) */
  PetscInt            nnode, npair, maxnb;
  PetscInt           *nptr, *dnptr;
  int                *adj, *dadj;
  int                *vnode, *dvnode; /* [8][nelem] the node of vertex a of element e (the plan) */
  unsigned long long *jsl, *djsl;     /* [8][nelem] the neighbour slots of the 8 vertices of e in its vertex a's node (a byte each) */
  PetscLogDouble      adjtime;        /* host seconds of the adjacency */
  int                *obase, *dobase, *ocnt, *docnt; /* [nnode] the node's smallest target and its number of values */
  unsigned           *olist, *dolist;                /* [nnode][9 maxnb] store list: (t - base) << 16 | acc index (ownergeo on the device: not kept where every block has a block list) */
  /* the block store lists (DMAsmOwnerBlockHead/Entry; NULL where not built): [nblk][DMASM_OWNER_BLOCK] the block's
     window bases, [nblk] its number of values (-1: no list), [nblk][DMASM_OWNER_BLOCK 9 maxnb] entries; the host
     reference and ownergeo's node kernel */
  PetscInt  nblk;
  int      *bwin, *dbwin, *bcnt, *dbcnt;
  unsigned *blist, *dblist;
  DMAsmElasCtx  *c;
} DMAssembly_Kiran;

/* ownergeo's geometry kernel (and its host reference) in -log_view apart from the node kernel (DMAsmReduce holds both) */
static PetscLogEvent DMASM_KiranGeometry;

/* owner and ownergeo share the node -> element adjacency, the store lists and the write-once stores */
static inline PetscBool KiranIsOwner(const DMAssembly_Kiran *k)
{
  return (PetscBool)(k->strategy == DMASM_KIRAN_OWNER || k->strategy == DMASM_KIRAN_OWNERGEO);
}

/* a requirement of owner/ownergeo failed (k->why says which): an error for an explicit request (never a silent
   fallback), for auto the reason its choice falls back (*ok = PETSC_FALSE, refused: 1 owner's requirements, 2 the
   untangled elements of ownergeo only) */
static PetscErrorCode KiranRefuse(DMAssembly as, DMAssembly_Kiran *k, PetscErrorCode code, int refused, PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCheck(k->request == DMASM_KIRAN_AUTO, PetscObjectComm((PetscObject)as), code, "DMAssembly kiran %s: %s", DMAssemblyKiranStrategies[k->strategy], k->why);
  k->refused = refused;
  *ok        = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* plain-C references of the device kernels, on the same layouts                                              */

static void HostKiranGeometry(PetscInt nelem, const PetscReal *ref, const PetscReal *xk, PetscReal *geo)
{
  for (PetscInt p = 0; p < nelem; p++)
    for (int q = 0; q < 8; q++) {
      PetscReal       Ji[9];
      const PetscReal det = DMAsmElasJacInv(3, 8, ref + 8 + q * 24, xk + (PetscCount)24 * p, Ji);
      for (int j = 0; j < 9; j++) geo[(PetscCount)p * KIRAN_GEO + q * 10 + j] = Ji[j];
      geo[(PetscCount)p * KIRAN_GEO + q * 10 + 9] = ref[q] * PetscAbsReal(det);
    }
}

static void HostKiranColor(const DMAssembly_Kiran *k, PetscInt p0, PetscInt n, PetscInt nelem, const PetscReal *ref, PetscScalar *dst)
{
  PetscScalar K[DMASM_HEX_NK];
  PetscReal   x[24], g[8 * 24];

  for (PetscInt p = p0; p < p0 + n; p++) {
    const PetscReal lam = k->lmk ? k->lmk[2 * p] : k->c->lam, mu = k->lmk ? k->lmk[2 * p + 1] : k->c->mu;
    switch (k->strategy) {
    case DMASM_KIRAN_ELEMENT:
      for (int j = 0; j < 24; j++) x[j] = k->xk[(PetscCount)j * nelem + p];
      DMAsmElasElement(3, 8, 8, ref, ref + 8, x, lam, mu, K);
      for (int r = 0; r < DMASM_HEX_NK; r++) DMAsmKiranPut(dst, k->map[(PetscCount)r * nelem + p], K[r]);
      break;
    case DMASM_KIRAN_TWOKERNEL: /* the second kernel: entry r of thread r from the first kernel's geometry */
      for (int q = 0; q < 8; q++) DMAsmElasGrad(3, 8, ref + 8 + q * 24, k->geo + (PetscCount)p * KIRAN_GEO + q * 10, g + q * 24);
      for (int r = 0; r < DMASM_HEX_NK; r++) {
        const int   row = r / 24, col = r % 24, a = row / 3, i = row % 3, b = col / 3, kk = col % 3;
        PetscScalar v   = 0;
        for (int q = 0; q < 8; q++) {
          const PetscReal *ga = g + q * 24 + 3 * a, *gb = g + q * 24 + 3 * b, wd = k->geo[(PetscCount)p * KIRAN_GEO + q * 10 + 9];
          v += DMAsmElasEntry(ga, gb, ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2], i, kk, wd * lam, wd * mu);
        }
        DMAsmKiranPut(dst, k->map[(PetscCount)p * DMASM_HEX_NK + r], v);
      }
      break;
    case DMASM_KIRAN_PPNIROW: /* lane l < 24 holds V(l, c) = entry (row l, col c), stored at step c */
      DMAsmElasElement(3, 8, 8, ref, ref + 8, k->xk + (PetscCount)24 * p, lam, mu, K);
      for (int c = 0; c < DMASM_HEX_NEN; c++)
        for (int l = 0; l < DMASM_HEX_NEN; l++) {
          if (k->mbase) DMAsmKiranPut16(dst, k->mbase[(PetscCount)p * DMASM_HEX_NEN + c], k->moff[(PetscCount)p * DMASM_HEX_NK + c * DMASM_HEX_NEN + l], K[l * DMASM_HEX_NEN + c]);
          else DMAsmKiranPut(dst, k->map[(PetscCount)p * DMASM_HEX_NK + c * DMASM_HEX_NEN + l], K[l * DMASM_HEX_NEN + c]);
        }
      break;
    default: { /* the warp strategies: lane l adds its 18 slots */
      const int tpr = (k->strategy == DMASM_KIRAN_WARP4 || k->strategy == DMASM_KIRAN_PPNI4) ? 4 : 8;
      DMAsmElasElement(3, 8, 8, ref, ref + 8, k->xk + (PetscCount)24 * p, lam, mu, K);
      for (int s = 0; s < 18; s++)
        for (int l = 0; l < 32; l++) {
          int row, col;
          DMAsmKiranSlot(tpr, l, s, &row, &col);
          DMAsmKiranPut(dst, k->map[(PetscCount)p * DMASM_HEX_NK + s * 32 + l], K[row * 24 + col]);
        }
    }
    }
  }
}

/* ownergeo's geometry kernel (KiranOwnerGeometryKernel): per element and Gauss point the physical gradients times
   sqrt(w |det J|), G[e][q][b][d]; returns the first element that is degenerate or inverted (det J 0, not finite, or of
   another sign than at its first point), -1 if none */
static PetscInt HostKiranOwnerGeometry(PetscInt nelem, const PetscReal *ref, const PetscReal *xk, PetscReal *G)
{
  PetscInt bad = -1;

  for (PetscInt e = 0; e < nelem; e++) {
    PetscReal det0 = 0;
    for (int q = 0; q < 8; q++) {
      PetscReal      *g   = G + (PetscCount)e * DMASM_OWNERGEO_G + 24 * q;
      const PetscReal det = DMAsmElasGeom(3, 8, ref + 8 + q * 24, xk + (PetscCount)24 * e, g), s = PetscSqrtReal(ref[q] * PetscAbsReal(det));
      if (q == 0) det0 = det;
      if (!(det * det0 > 0) && bad < 0) bad = e;
      for (int j = 0; j < 24; j++) g[j] *= s;
    }
  }
  return bad;
}

/* owner: node v's 3 rows: the geometry of each of its elements (all 8 Gauss points), the 24 columns of its rows summed
   into acc[9 maxnb], then each value stored once by the store list (the device: KiranOwnerKernel, a warp per node, the
   24 columns by lanes 0-23).  ownergeo (G != NULL): the geometry read from G, prescaled by sqrt(w |det J|), so lambda
   and mu factor out of the Gauss sum: per column node b the 3 x 3 M_ab = sum_q g_a g_b^T, K[(a,i),(b,k)] = lambda
   M[i][k] + mu M[k][i] + mu delta_ik tr M (the device: KiranOwnerGeoKernel, lane 3b + k sums column k of M_ab and gets
   row k and the diagonal of M_ab from the 3 lanes of b through shared memory).  Stores: by the block lists where there
   are (the values of DMASM_OWNER_BLOCK nodes at once, as KiranOwnerGeoKernel), else by each node's list */
static void HostKiranOwner(const DMAssembly_Kiran *k, const PetscReal *ref, const PetscReal *G, PetscScalar *dst)
{
  const PetscInt cap = 9 * k->maxnb, nelem = k->npair / 8;
  PetscReal      accb[DMASM_OWNER_BLOCK * 9 * DMASM_OWNER_MAXNB], g[8 * 24], det[8];

  for (PetscInt v = 0; v < k->nnode; v++) {
    PetscReal *acc = accb + (v % DMASM_OWNER_BLOCK) * cap; /* the node's accumulators in its block's (the device's shared memory) */
    for (PetscInt x = 0; x < cap; x++) acc[x] = 0;
    for (PetscInt pr = k->nptr[v]; pr < k->nptr[v + 1]; pr++) {
      const int                e = k->adj[pr] >> 3, a = k->adj[pr] & 7;
      const unsigned long long sl = k->jsl[(PetscCount)a * nelem + e];
      const PetscReal          lam = k->lmk ? k->lmk[2 * e] : k->c->lam, mu = k->lmk ? k->lmk[2 * e + 1] : k->c->mu;
      if (G) { /* ownergeo: per column node b, M_ab = sum_q g_a g_b^T (column kk: DMAsmOwnerGeoPoint), then the entries */
        const PetscReal *ge = G + (PetscCount)e * DMASM_OWNERGEO_G;
        for (int b = 0; b < 8; b++) {
          const int j = (int)((sl >> (8 * b)) & 0xff);
          PetscReal M[3][3], tr; /* M[kk][i] = M_ab[i][kk]: column kk */
          for (int kk = 0; kk < 3; kk++) {
            for (int i = 0; i < 3; i++) M[kk][i] = 0;
            for (int q = 0; q < 8; q++) DMAsmOwnerGeoPoint(ge + 24 * q, a, b, kk, M[kk]);
          }
          tr = M[0][0] + M[1][1] + M[2][2];
          for (int kk = 0; kk < 3; kk++) {
            const PetscReal row[3] = {M[0][kk], M[1][kk], M[2][kk]}; /* M_ab[kk][i] */
            for (int i = 0; i < 3; i++) acc[DMAsmOwnerAcc((int)k->maxnb, i, j, kk)] += DMAsmOwnerGeoEntry(M[kk], row, tr, lam, mu, i, kk);
          }
        }
        continue;
      }
      for (int q = 0; q < 8; q++) det[q] = DMAsmElasGeom(3, 8, ref + 8 + q * 24, k->xk + (PetscCount)24 * e, g + q * 24);
      for (int l = 0; l < 24; l++) {
        const int b = l / 3, kk = l % 3, j = (int)((sl >> (8 * b)) & 0xff);
        PetscReal c[3] = {0, 0, 0};
        for (int q = 0; q < 8; q++) {
          const PetscReal wd = ref[q] * PetscAbsReal(det[q]);
          DMAsmOwnerPoint(g + 24 * q, wd * lam, wd * mu, a, b, kk, c);
        }
        for (int i = 0; i < 3; i++) acc[DMAsmOwnerAcc((int)k->maxnb, i, j, kk)] += c[i];
      }
    }
    if (!k->blist || k->bcnt[v / DMASM_OWNER_BLOCK] < 0) {
      for (int s = 0; s < k->ocnt[v]; s++) {
        const unsigned m = k->olist[(PetscCount)v * cap + s];
        dst[k->obase[v] + (int)(m >> 16)] = acc[m & 0xffff];
      }
    } else if (v % DMASM_OWNER_BLOCK == DMASM_OWNER_BLOCK - 1 || v == k->nnode - 1) { /* the block's values, by its list */
      const PetscInt B = v / DMASM_OWNER_BLOCK;
      for (int x = 0; x < k->bcnt[B]; x++) {
        const unsigned m = k->blist[(PetscCount)B * DMASM_OWNER_BLOCK * cap + x];
        dst[DMAsmOwnerBlockTarget(k->bwin + B * DMASM_OWNER_BLOCK, m)] = accb[m & 0xfff];
      }
    }
  }
}

/* ---------------------------------------------------------------------------------------------------------- */

/* owner: the node -> element CSR and each element vertex's neighbour slots in the nodes of the element's vertices */
static PetscErrorCode OwnerAdjacency(DMAssembly as, DMAssembly_Kiran *k, PetscBool *ok)
{
  const PetscInt nelem = as->nelem, nnode = as->ndof / 3;
  PetscInt      *cnt, *nb, maxnb = 0;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscTime(&t0));
  if (!(as->ncomp == 3 && as->ndof % 3 == 0)) {
    PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "a 3-component field with every vertex's 3 dofs consecutive is needed (the field has %" PetscInt_FMT " components, %" PetscInt_FMT " dofs)", as->ncomp, as->ndof));
    PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, ok));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!((PetscCount)nelem * 8 < PETSC_INT32_MAX)) {
    PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "at most 2^28 elements (32-bit node-element pairs), the mesh has %" PetscInt_FMT, nelem));
    PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, ok));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  k->nnode = nnode;
  k->npair = 8 * nelem;
  PetscCall(PetscCalloc1(nnode + 1, &k->nptr));
  PetscCall(PetscMalloc3(k->npair, &k->adj, k->npair, &k->vnode, k->npair, &k->jsl));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < 8; a++) {
      const PetscInt d = as->edof[a * 3 * nelem + e];
      if (!(d % 3 == 0 && as->edof[(a * 3 + 1) * nelem + e] == d + 1 && as->edof[(a * 3 + 2) * nelem + e] == d + 2)) { /* the rest is freed by FreeData() */
        PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "the dofs of a vertex must be 3v, 3v+1, 3v+2 (vertex-major numbering without constraints): vertex %" PetscInt_FMT " of element %" PetscInt_FMT " has dofs %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT, a, e, d, as->edof[(a * 3 + 1) * nelem + e], as->edof[(a * 3 + 2) * nelem + e]));
        PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, ok));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      k->vnode[a * nelem + e] = (int)(d / 3);
      k->nptr[d / 3 + 1]++;
    }
  for (PetscInt v = 0; v < nnode; v++) k->nptr[v + 1] += k->nptr[v];
  PetscCall(PetscMalloc2(nnode, &cnt, 8 * (PetscCount)DMASM_OWNER_MAXNB, &nb));
  PetscCall(PetscArraycpy(cnt, k->nptr, nnode));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < 8; a++) k->adj[cnt[k->vnode[a * nelem + e]]++] = (int)(8 * e + a);
  for (PetscInt v = 0; v < nnode; v++) { /* its neighbours, ascending, then each element vertex's slot */
    PetscInt n = 0;
    for (PetscInt pr = k->nptr[v]; pr < k->nptr[v + 1]; pr++)
      for (PetscInt b = 0; b < 8; b++) {
        const PetscInt u = k->vnode[b * nelem + (k->adj[pr] >> 3)];
        PetscInt       loc;
        PetscCall(PetscFindInt(u, n, nb, &loc));
        if (loc >= 0) continue;
        if (n >= DMASM_OWNER_MAXNB) {
          PetscCall(PetscFree2(cnt, nb));
          PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "vertex %" PetscInt_FMT " has more than %d neighbours (DMASM_OWNER_MAXNB: the accumulators are in shared memory); use ppnirow", v, DMASM_OWNER_MAXNB));
          PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, ok));
          PetscFunctionReturn(PETSC_SUCCESS);
        }
        for (PetscInt m = n; m > -(loc + 1); m--) nb[m] = nb[m - 1];
        nb[-(loc + 1)] = u;
        n++;
      }
    maxnb = PetscMax(maxnb, n);
    for (PetscInt pr = k->nptr[v]; pr < k->nptr[v + 1]; pr++) {
      const PetscInt     e = k->adj[pr] >> 3, a = k->adj[pr] & 7;
      unsigned long long sl = 0;
      for (PetscInt b = 0; b < 8; b++) {
        PetscInt loc;
        PetscCall(PetscFindInt(k->vnode[b * nelem + e], n, nb, &loc));
        sl |= (unsigned long long)loc << (8 * b);
      }
      k->jsl[a * nelem + e] = sl;
    }
  }
  k->maxnb = maxnb;
  PetscCall(PetscFree2(cnt, nb));
  PetscCall(PetscTime(&t1));
  k->adjtime = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* greedy colouring of the elements by their vertices (the dof of component 0 names a vertex) */
static PetscErrorCode Colour(DMAssembly as, DMAssembly_Kiran *k)
{
  const PetscInt nelem = as->nelem, nv = as->nvert, nc = as->ncomp, n = as->ndof;
  PetscInt      *nptr, *nel, *cnt, *color, *mark, ncolors = 0;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscCalloc1(n + 1, &nptr));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nv; a++) nptr[as->edof[a * nc * nelem + e] + 1]++;
  k->maxval = 0;
  for (PetscInt i = 0; i < n; i++) k->maxval = PetscMax(k->maxval, nptr[i + 1]);
  for (PetscInt i = 0; i < n; i++) nptr[i + 1] += nptr[i];
  PetscCall(PetscMalloc2(nptr[n], &nel, n + 1, &cnt));
  PetscCall(PetscArraycpy(cnt, nptr, n + 1));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nv; a++) nel[cnt[as->edof[a * nc * nelem + e]]++] = e;
  PetscCall(PetscMalloc2(nelem, &color, nelem + 1, &mark));
  for (PetscInt c = 0; c <= nelem; c++) mark[c] = -1;
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt c = 0;
    for (PetscInt a = 0; a < nv; a++) {
      const PetscInt v = as->edof[a * nc * nelem + e];
      for (PetscInt j = nptr[v]; j < nptr[v + 1]; j++)
        if (nel[j] < e) mark[color[nel[j]]] = e;
    }
    while (mark[c] == e) c++;
    color[e] = c;
    ncolors  = PetscMax(ncolors, c + 1);
  }
  k->ncolors = ncolors;
  PetscCall(PetscCalloc1(ncolors + 1, &k->colptr));
  PetscCall(PetscMalloc1(nelem, &k->colelem));
  for (PetscInt e = 0; e < nelem; e++) k->colptr[color[e] + 1]++;
  for (PetscInt c = 0; c < ncolors; c++) k->colptr[c + 1] += k->colptr[c];
  PetscCall(PetscArraycpy(mark, k->colptr, ncolors));
  for (PetscInt e = 0; e < nelem; e++) k->colelem[mark[color[e]]++] = e;
  PetscCall(PetscFree2(color, mark));
  PetscCall(PetscFree2(nel, cnt));
  PetscCall(PetscFree(nptr));
  PetscCall(PetscTime(&t1));
  k->colortime = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner's store lists (per target) */
static PetscErrorCode FreeBlockLists(DMAssembly_Kiran *k)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dbwin != k->bwin) PetscCall(DMAsmCUDAFree((void **)&k->dbwin));
  if (k->dbcnt != k->bcnt) PetscCall(DMAsmCUDAFree((void **)&k->dbcnt));
  if (k->dblist != k->blist) PetscCall(DMAsmCUDAFree((void **)&k->dblist));
#endif
  k->dbwin = NULL;
  k->dbcnt  = NULL;
  k->dblist = NULL;
  PetscCall(PetscFree3(k->bwin, k->bcnt, k->blist));
  k->nblk = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block store lists from the host node lists, which DMAsmOwnerPack sorted by target (the loops of the device
   builder, KiranOwnerBlockHeadKernel and KiranOwnerBlockKernel): a block of boundary and interior rows in an ELLWARP
   layout sorted whole by row length spreads over several windows (DMAsmOwnerBlockHead); bcnt[B] = -1 only where a
   node spreads over a window (a test's small span: its nodes store by their own lists) */
static PetscErrorCode OwnerBlockLists(DMAssembly_Kiran *k, const int *obase, const int *ocnt, const unsigned *olist)
{
  const int cap = 9 * (int)k->maxnb;

  PetscFunctionBegin;
  k->nblk = (k->nnode + DMASM_OWNER_BLOCK - 1) / DMASM_OWNER_BLOCK;
  PetscCall(PetscMalloc3((size_t)k->nblk * DMASM_OWNER_BLOCK, &k->bwin, k->nblk, &k->bcnt, (size_t)k->nblk * DMASM_OWNER_BLOCK * cap, &k->blist));
  k->nblkfit = k->nblkmulti = 0;
  for (PetscInt B = 0; B < k->nblk; B++) {
    const PetscInt v0 = B * DMASM_OWNER_BLOCK;
    const int      nb = (int)PetscMin(DMASM_OWNER_BLOCK, k->nnode - v0);
    int *const     wb = k->bwin + B * DMASM_OWNER_BLOCK;
    const int      nw = DMAsmOwnerBlockHead(cap, nb, obase + v0, ocnt + v0, olist + (PetscCount)v0 * cap, (int)k->blockspan, wb, k->bcnt + B);
    if (k->bcnt[B] < 0) continue; /* a node spreads over span (tests): the block's nodes store by their own lists */
    k->nblkfit++;
    k->nblkmulti += nw > 1;
    for (int v = 0; v < nb; v++)
      for (int x = 0; x < ocnt[v0 + v]; x++) {
        int      r;
        unsigned m;
        DMAsmOwnerBlockEntry(cap, nb, obase + v0, ocnt + v0, olist + (PetscCount)v0 * cap, wb, v, x, &r, &m);
        k->blist[(PetscCount)B * DMASM_OWNER_BLOCK * cap + r] = m;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeOwnerPlan(DMAssembly_Kiran *k)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dobase != k->obase) PetscCall(DMAsmCUDAFree((void **)&k->dobase));
  if (k->docnt != k->ocnt) PetscCall(DMAsmCUDAFree((void **)&k->docnt));
  if (k->dolist != k->olist) PetscCall(DMAsmCUDAFree((void **)&k->dolist));
#endif
  k->dobase = NULL;
  k->docnt  = NULL;
  k->dolist = NULL;
  PetscCall(PetscFree3(k->obase, k->ocnt, k->olist));
  PetscCall(FreeBlockLists(k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeData(DMAssembly_Kiran *k)
{
  PetscFunctionBegin;
  PetscCall(FreeOwnerPlan(k));
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dnptr != k->nptr) PetscCall(DMAsmCUDAFree((void **)&k->dnptr));
  if (k->dadj != k->adj) PetscCall(DMAsmCUDAFree((void **)&k->dadj));
  if (k->dvnode != k->vnode) PetscCall(DMAsmCUDAFree((void **)&k->dvnode));
  if (k->djsl != k->jsl) PetscCall(DMAsmCUDAFree((void **)&k->djsl));
#endif
  k->dnptr  = NULL;
  k->dadj   = NULL;
  k->dvnode = NULL;
  k->djsl   = NULL;
  PetscCall(PetscFree(k->nptr));
  PetscCall(PetscFree3(k->adj, k->vnode, k->jsl));
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dcolelem != k->colelem) PetscCall(DMAsmCUDAFree((void **)&k->dcolelem));
  if (k->dxk != k->xk) PetscCall(DMAsmCUDAFree((void **)&k->dxk));
  if (k->dlmk != k->lmk) PetscCall(DMAsmCUDAFree((void **)&k->dlmk));
  if (k->dmap != k->map) PetscCall(DMAsmCUDAFree((void **)&k->dmap));
  if (k->dmbase != k->mbase) PetscCall(DMAsmCUDAFree((void **)&k->dmbase));
  if (k->dmoff != k->moff) PetscCall(DMAsmCUDAFree((void **)&k->dmoff));
  if (k->dgeo != k->geo) PetscCall(DMAsmCUDAFree((void **)&k->dgeo));
  if (k->duntouched != k->untouched) PetscCall(DMAsmCUDAFree((void **)&k->duntouched));
  if (k->dgeobad) PetscCall(DMAsmCUDAFree((void **)&k->dgeobad));
#endif
  k->dgeobad    = NULL;
  k->duntouched = NULL;
  PetscCall(PetscFree(k->untouched));
  k->dcolelem = NULL;
  k->dxk      = NULL;
  k->dlmk     = NULL;
  k->dmap     = NULL;
  k->dmbase   = NULL;
  k->dmoff    = NULL;
  k->dgeo     = NULL;
  PetscCall(PetscFree(k->colptr));
  PetscCall(PetscFree(k->colelem));
  PetscCall(PetscFree(k->xk));
  PetscCall(PetscFree(k->lmk));
  PetscCall(PetscFree(k->map));
  PetscCall(PetscFree2(k->mbase, k->moff));
  PetscCall(PetscFree(k->geo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the set-up of strategy k->strategy (everything freed first); *ok = PETSC_FALSE where auto's ownergeo or owner
   does not apply (KiranRefuse: k->why) */
static PetscErrorCode SetUpStrategy(DMAssembly as, DMAssembly_Kiran *k, PetscBool *ok)
{
  const PetscInt nelem = as->nelem;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(FreeData(k));
  if (KiranIsOwner(k)) { /* no colouring: the node -> element adjacency, the inputs in element order */
    k->ncolors   = 0;
    k->colortime = 0;
    PetscCall(OwnerAdjacency(as, k, ok));
    if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  } else {
    PetscCall(PetscLogEventBegin(DMASSEMBLY_Color, as, 0, 0, 0));
    PetscCall(Colour(as, k));
    PetscCall(PetscLogEventEnd(DMASSEMBLY_Color, as, 0, 0, 0));
  }
  /* the inputs in colour order, laid out for the strategy's threads */
  PetscCall(PetscMalloc1((size_t)24 * nelem, &k->xk));
  for (PetscInt p = 0; p < nelem; p++) {
    const PetscInt e = k->colelem ? k->colelem[p] : p;
    for (PetscInt j = 0; j < 24; j++) {
      const PetscReal v = as->xe[(PetscCount)j * nelem + e];
      if (k->strategy == DMASM_KIRAN_ELEMENT) k->xk[(PetscCount)j * nelem + p] = v;
      else k->xk[(PetscCount)p * 24 + j] = v;
    }
  }
  if (k->c->lm) {
    PetscCall(PetscMalloc1(2 * nelem, &k->lmk));
    for (PetscInt p = 0; p < nelem; p++) {
      const PetscInt e = k->colelem ? k->colelem[p] : p;
      k->lmk[2 * p]     = k->c->lm[2 * e];
      k->lmk[2 * p + 1] = k->c->lm[2 * e + 1];
    }
  }
  if (k->strategy == DMASM_KIRAN_TWOKERNEL && as->mtype == PETSC_MEMTYPE_HOST) PetscCall(PetscMalloc1((size_t)KIRAN_GEO * nelem, &k->geo));
  if (k->strategy == DMASM_KIRAN_OWNERGEO && as->mtype == PETSC_MEMTYPE_HOST) { /* a tangled element: an error here, before any matrix is touched */
    PetscInt bad;
    PetscCall(PetscMalloc1((size_t)DMASM_OWNERGEO_G * nelem, &k->geo));
    bad = HostKiranOwnerGeometry(nelem, k->c->ref, k->xk, k->geo);
    if (bad >= 0) {
      PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "element %" PetscInt_FMT " is inverted or degenerate (det J zero, not finite, or of different signs at its Gauss points)", bad));
      PetscCall(KiranRefuse(as, k, PETSC_ERR_ARG_WRONG, 2, ok));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  k->dcolelem = k->colelem;
  k->dxk      = k->xk;
  k->dlmk     = k->lmk;
  k->dgeo     = k->geo;
  k->dnptr    = k->nptr;
  k->dadj     = k->adj;
  k->dvnode   = k->vnode;
  k->djsl     = k->jsl;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    PetscCall(DMAsmElasCtxDevice(k->c));
    if (k->colelem) {
      PetscCall(DMAsmCUDAMalloc((void **)&k->dcolelem, sizeof(PetscInt) * nelem));
      PetscCall(DMAsmCUDAUpload(k->dcolelem, k->colelem, sizeof(PetscInt) * nelem));
    }
    if (k->nptr) { /* the adjacency on the device (kept on the host too: a host-built plan needs vnode and jsl) */
      PetscCall(DMAsmCUDAMalloc((void **)&k->dnptr, sizeof(PetscInt) * (k->nnode + 1)));
      PetscCall(DMAsmCUDAUpload(k->dnptr, k->nptr, sizeof(PetscInt) * (k->nnode + 1)));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dadj, sizeof(int) * k->npair));
      PetscCall(DMAsmCUDAUpload(k->dadj, k->adj, sizeof(int) * k->npair));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dvnode, sizeof(int) * k->npair));
      PetscCall(DMAsmCUDAUpload(k->dvnode, k->vnode, sizeof(int) * k->npair));
      PetscCall(DMAsmCUDAMalloc((void **)&k->djsl, sizeof(unsigned long long) * k->npair));
      PetscCall(DMAsmCUDAUpload(k->djsl, k->jsl, sizeof(unsigned long long) * k->npair));
    }
    PetscCall(DMAsmCUDAMalloc((void **)&k->dxk, sizeof(PetscReal) * 24 * nelem));
    PetscCall(DMAsmCUDAUpload(k->dxk, k->xk, sizeof(PetscReal) * 24 * nelem));
    PetscCall(PetscFree(k->xk)); /* the device copy only */
    if (k->lmk) {
      PetscCall(DMAsmCUDAMalloc((void **)&k->dlmk, sizeof(PetscReal) * 2 * nelem));
      PetscCall(DMAsmCUDAUpload(k->dlmk, k->lmk, sizeof(PetscReal) * 2 * nelem));
      PetscCall(PetscFree(k->lmk));
    }
    if (k->strategy == DMASM_KIRAN_TWOKERNEL) PetscCall(DMAsmCUDAMalloc((void **)&k->dgeo, sizeof(PetscReal) * KIRAN_GEO * nelem));
    if (k->strategy == DMASM_KIRAN_OWNERGEO) { /* the geometry kernel once here: a tangled element is an error at set-up */
      PetscBool gok;
      PetscCall(DMAsmCUDAMalloc((void **)&k->dgeo, sizeof(PetscReal) * DMASM_OWNERGEO_G * nelem));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dgeobad, sizeof(int)));
      PetscCall(DMAsmCUDAKiranOwnerGeometry((int)k->geokernel, (int)k->geoblocks, nelem, k->c->dref, k->dxk, k->dgeo, k->dgeobad, &gok));
      if (!gok) {
        PetscCall(PetscStrncpy(k->why, "an element is inverted or degenerate (det J zero, not finite, or of different signs at its Gauss points)", sizeof(k->why)));
        PetscCall(KiranRefuse(as, k, PETSC_ERR_ARG_WRONG, 2, ok));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
#endif
  if (KiranIsOwner(k)) PetscCall(PetscInfo(as, "kiran %s: %" PetscInt_FMT " nodes, %" PetscInt_FMT " node-element pairs, at most %" PetscInt_FMT " neighbours a node, adjacency %.3f s on the host\n", DMAssemblyKiranStrategies[k->strategy], k->nnode, k->npair, k->maxnb, (double)k->adjtime));
  else PetscCall(PetscInfo(as, "kiran %s: %" PetscInt_FMT " colours (largest vertex valence %" PetscInt_FMT "), greedy colouring %.3f s on the host\n", DMAssemblyKiranStrategies[k->strategy], k->ncolors, k->maxval, (double)k->colortime));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* auto's fallback: ownergeo refused only for a tangled element -> owner (the same stores, |det J| per pair, no such
   requirement; 14.4 ns/element on the H100's mesh 1 against ppnirow's 17.9); any other owner requirement -> ppnirow
   (the fastest colouring strategy measured: logs-ppnirow/, 1.04x twokernel, faster than ppni4/ppni8) */
static PetscErrorCode AutoFallBack(DMAssembly as, DMAssembly_Kiran *k)
{
  PetscBool ok;

  PetscFunctionBegin;
  k->strategy = k->refused == 2 ? DMASM_KIRAN_OWNER : DMASM_KIRAN_PPNIROW;
  PetscCall(SetUpStrategy(as, k, &ok));
  if (!ok) { /* owner refused too (it has all of ownergeo's requirements but one): ppnirow has none of them */
    k->refused  = 1;
    k->strategy = DMASM_KIRAN_PPNIROW;
    PetscCall(SetUpStrategy(as, k, &ok));
  }
  PetscCheck(ok, PetscObjectComm((PetscObject)as), PETSC_ERR_PLIB, "DMAssembly kiran auto: ppnirow refused");
  PetscCall(PetscInfo(as, "kiran auto: ownergeo refused (%s), took %s\n", k->why, DMAssemblyKiranStrategies[k->strategy]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUp_Kiran(DMAssembly as)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;
  PetscBool         ok;

  PetscFunctionBegin;
  PetscCall(DMAsmElasGetCtx(as, &k->c));
  PetscCheck(k->c, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly kiran computes the hexahedral elasticity element inside its kernels: set DMAssemblyElasticityKernels(); for other kernels use globalnz, atomic or color");
  PetscCheck(as->dim == 3 && as->nvert == 8 && as->nen == 24, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly kiran: 8-node hexahedra with 3 dofs a node only, the mesh has %s (%" PetscInt_FMT " dofs per element); use globalnz, atomic or color", as->ename, as->nen);
  PetscCheck(k->c->nq == 8, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly kiran: 2 x 2 x 2 Gauss points (the Q1 PetscFE's default quadrature), the PetscFE has %" PetscInt_FMT " points", k->c->nq);
  PetscCheck(!as->mpi, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly kiran: one process only");
  k->refused  = 0;
  k->why[0]   = 0;
  k->strategy = k->request == DMASM_KIRAN_AUTO ? DMASM_KIRAN_OWNERGEO : k->request; /* auto: the fastest measured first */
  PetscCall(SetUpStrategy(as, k, &ok));
  if (!ok) PetscCall(AutoFallBack(as, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckTarget(DMAssembly as, const MatAssemblyBlock *B)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;

  PetscFunctionBegin;
  PetscCheck(B->nval <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly kiran: the index map holds 32-bit positions, the target has %" PetscCount_FMT " values", B->nval);
  k->nval = B->nval;
  k->ncsr = B->i[B->m];
  k->npad = 0;
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dmap != k->map) PetscCall(DMAsmCUDAFree((void **)&k->dmap));
#endif
  k->dmap = NULL;
  PetscCall(PetscFree(k->map));
#if defined(ELLWARP_HAVE_CUDA)
  if (k->dmbase != k->mbase) PetscCall(DMAsmCUDAFree((void **)&k->dmbase));
  if (k->dmoff != k->moff) PetscCall(DMAsmCUDAFree((void **)&k->dmoff));
#endif
  k->dmbase = NULL;
  k->dmoff  = NULL;
  PetscCall(PetscFree2(k->mbase, k->moff));
#if defined(ELLWARP_HAVE_CUDA)
  if (k->duntouched != k->untouched) PetscCall(DMAsmCUDAFree((void **)&k->duntouched));
#endif
  k->duntouched = NULL;
  PetscCall(PetscFree(k->untouched));
  PetscCall(FreeOwnerPlan(k));
  k->nuntouched  = 0;
  k->tr          = PETSC_FALSE;
  k->ordercnt[0] = k->ordercnt[1] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every element writes CSR entries only, so the untouched values are the target's padding plus any CSR entry no element
   touches.  Where the elements touch every CSR entry (nval - nuntouched == ncsr: the DM's own pattern) the untouched are
   exactly the padding, which MatAssemblyBlock keeps at 0 (no product reads it): no list, no zeroing kernel at each
   assembly (on a K2 ELLWARP layout, 3 % of the slots, each sharing a sector with stored values).  Otherwise every
   untouched value is zeroed, padding included (the list does not tell padding from CSR entries: correct, a few
   bytes more).  Frees the host list (set-up on the host) or the device list (dl, from the device builders). */
static PetscErrorCode UntouchedPaddingOnly(DMAssembly_Kiran *k, int **hl, int **dl)
{
  PetscFunctionBegin;
  if (k->nuntouched && k->nval - k->nuntouched == k->ncsr) {
    k->npad       = k->nuntouched;
    k->nuntouched = 0;
    if (hl) PetscCall(PetscFree(*hl));
#if defined(ELLWARP_HAVE_CUDA)
    if (dl) PetscCall(DMAsmCUDAFree((void **)dl));
#else
    (void)dl;
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values not set in seen (no element / no node writes them: zeroed by each assembly, unless they are only the
   padding: UntouchedPaddingOnly); destroys seen */
static PetscErrorCode UntouchedFromBT(DMAssembly_Kiran *k, PetscBT *seen)
{
  PetscFunctionBegin;
  for (PetscCount t = 0; t < k->nval; t++)
    if (!PetscBTLookup(*seen, t)) k->nuntouched++;
  PetscCall(PetscMalloc1(k->nuntouched, &k->untouched));
  k->nuntouched = 0;
  for (PetscCount t = 0; t < k->nval; t++)
    if (!PetscBTLookup(*seen, t)) k->untouched[k->nuntouched++] = (int)t;
  PetscCall(PetscBTDestroy(seen));
  PetscCall(UntouchedPaddingOnly(k, &k->untouched, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner's store lists from the target's rows (ops->jacplanrows: no element-entry map, whose nen^2 = 576 entries an
   element exceed the 32-bit PetscInt on a 21 M-dof mesh): each element entry's target -- its column searched in its
   row of B -- into its row node's accumulator slot tgt[v][acc] (every element sharing the entry names the same
   target), then per node the list sorted by target (DMAsmOwnerPack); the loop order and checks of the device builder
   (KiranOwnerScatterKernel, KiranOwnerPackKernel) */
static PetscErrorCode OwnerPlan(DMAssembly as, DMAssembly_Kiran *k, const MatAssemblyBlock *B, PetscBool *ok)
{
  const PetscInt cap = 9 * k->maxnb, nelem = as->nelem;
  int           *tgt;
  PetscBT        seen;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)cap * k->nnode, &tgt));
  for (PetscCount x = 0; x < (PetscCount)cap * k->nnode; x++) tgt[x] = -1;
  for (int r = 0; r < DMASM_HEX_NK; r++) {
    const int row = r / DMASM_HEX_NEN, col = r % DMASM_HEX_NEN, a = row / 3, i = row % 3, b = col / 3, kk = col % 3;
    for (PetscInt e = 0; e < nelem; e++) {
      const PetscInt gr = 3 * (PetscInt)k->vnode[a * nelem + e] + i, gc = 3 * (PetscInt)k->vnode[b * nelem + e] + kk;
      const int      j  = (int)((k->jsl[a * nelem + e] >> (8 * b)) & 0xff);
      int *const     x  = tgt + (PetscCount)k->vnode[a * nelem + e] * cap + DMAsmOwnerAcc((int)k->maxnb, i, j, kk);
      const PetscInt at = DMAsmFindColumn(B->j, B->i[gr], B->i[gr + 1] - 1, gc);
      PetscInt       t;
      if (at < 0) PetscCall(PetscFree(tgt)); /* nothing lost on error */
      PetscCheck(at >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DMAssembly: the matrix lacks entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the element pattern; create it with DMAssemblyCreateMatrix() or DMCreateMatrix()", gr, gc);
      t = B->csr2val ? B->csr2val[at] : at;
      PetscCheck(*x < 0 || *x == (int)t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran owner: two elements name different targets for one matrix entry");
      *x = (int)t;
    }
  }
  PetscCall(PetscMalloc3(k->nnode, &k->obase, k->nnode, &k->ocnt, (size_t)cap * k->nnode, &k->olist));
  *ok = PETSC_TRUE;
  for (PetscInt v = 0; v < k->nnode; v++)
    if (!DMAsmOwnerPack((int)k->maxnb, tgt + (PetscCount)v * cap, k->obase + v, k->ocnt + v, k->olist + (PetscCount)v * cap)) {
      PetscCall(PetscFree(tgt));
      PetscCall(PetscSNPrintf(k->why, sizeof(k->why), "the values of node %" PetscInt_FMT "'s rows spread over more than 65536 positions of the target (16-bit store lists); use ppnirow", v));
      PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, ok));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  PetscCall(PetscFree(tgt));
  PetscCall(PetscBTCreate(k->nval, &seen));
  for (PetscInt v = 0; v < k->nnode; v++)
    for (int s = 0; s < k->ocnt[v]; s++) { /* write-once: no value in two lists */
      const PetscInt t = k->obase[v] + (PetscInt)(k->olist[(PetscCount)v * cap + s] >> 16);
      PetscCheck(!PetscBTLookupSet(seen, t), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran owner: value %" PetscInt_FMT " is in two store lists", t);
    }
  PetscCall(UntouchedFromBT(k, &seen));
  if (k->blockstore && (as->mtype == PETSC_MEMTYPE_HOST || k->strategy == DMASM_KIRAN_OWNERGEO)) PetscCall(OwnerBlockLists(k, k->obase, k->ocnt, k->olist)); /* owner's device kernel stores by node lists */
  k->dbwin      = k->bwin;
  k->dbcnt      = k->bcnt;
  k->dblist     = k->blist;
  k->dobase     = k->obase;
  k->docnt      = k->ocnt;
  k->dolist     = k->olist;
  k->duntouched = k->untouched;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    PetscCall(DMAsmCUDAMalloc((void **)&k->dobase, sizeof(int) * k->nnode));
    PetscCall(DMAsmCUDAUpload(k->dobase, k->obase, sizeof(int) * k->nnode));
    PetscCall(DMAsmCUDAMalloc((void **)&k->docnt, sizeof(int) * k->nnode));
    PetscCall(DMAsmCUDAUpload(k->docnt, k->ocnt, sizeof(int) * k->nnode));
    if (k->blist && k->nblkfit == k->nblk) k->dolist = NULL; /* every block stores by its list: no node list on the device */
    else {
      PetscCall(DMAsmCUDAMalloc((void **)&k->dolist, sizeof(unsigned) * cap * k->nnode));
      PetscCall(DMAsmCUDAUpload(k->dolist, k->olist, sizeof(unsigned) * cap * k->nnode));
    }
    PetscCall(PetscFree3(k->obase, k->ocnt, k->olist));
    PetscCall(DMAsmCUDAMalloc((void **)&k->duntouched, sizeof(int) * (k->nuntouched ? k->nuntouched : 1)));
    PetscCall(DMAsmCUDAUpload(k->duntouched, k->untouched, sizeof(int) * k->nuntouched));
    PetscCall(PetscFree(k->untouched));
    if (k->blist) {
      const size_t nl = (size_t)k->nblk * DMASM_OWNER_BLOCK * cap;
      PetscCall(DMAsmCUDAMalloc((void **)&k->dbwin, sizeof(int) * DMASM_OWNER_BLOCK * k->nblk));
      PetscCall(DMAsmCUDAUpload(k->dbwin, k->bwin, sizeof(int) * DMASM_OWNER_BLOCK * k->nblk));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dbcnt, sizeof(int) * k->nblk));
      PetscCall(DMAsmCUDAUpload(k->dbcnt, k->bcnt, sizeof(int) * k->nblk));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dblist, sizeof(unsigned) * nl));
      PetscCall(DMAsmCUDAUpload(k->dblist, k->blist, sizeof(unsigned) * nl));
      PetscCall(PetscFree3(k->bwin, k->bcnt, k->blist));
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the index map from q2t[(r)*nelem + e] (element entry r -> position in the value array), in the strategy's order */
static PetscErrorCode JacPlan_Kiran(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *q2t)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;
  const PetscInt    nelem = as->nelem;
  PetscBT           seen;

  PetscFunctionBegin;
  PetscCall(CheckTarget(as, B));
  PetscCheck(!KiranIsOwner(k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran: owner plans come from the target's rows (JacPlanRows_Kiran)");
  if (k->strategy == DMASM_KIRAN_PPNIROW) {
    for (PetscInt e = 0; e < nelem; e++)
      for (int r = 0; r < DMASM_HEX_NK; r++) {
        const PetscInt v = q2t[(PetscCount)r * nelem + e];
        const PetscInt d = r + DMASM_HEX_NEN < DMASM_HEX_NK ? q2t[(PetscCount)(r + DMASM_HEX_NEN) * nelem + e] : v;
        const PetscInt x = r % DMASM_HEX_NEN < DMASM_HEX_NEN - 1 ? q2t[(PetscCount)(r + 1) * nelem + e] : v;
        DMAsmKiranOrderCount(r, v, d, x, k->ordercnt);
      }
    k->tr = (PetscBool)(k->order ? k->order == 2 : k->ordercnt[1] > k->ordercnt[0]);
  }
  PetscCall(PetscMalloc1((size_t)DMASM_HEX_NK * nelem, &k->map));
  PetscCall(PetscBTCreate(k->nval, &seen));
  for (PetscInt p = 0; p < nelem; p++) /* colour order = launch order: the first element touching a value stores it */
    for (int r = 0; r < DMASM_HEX_NK; r++) {
      const PetscInt t = q2t[(PetscCount)r * nelem + k->colelem[p]];
      k->map[DMAsmKiranMapPos((int)k->strategy, (int)k->tr, nelem, p, r)] = PetscBTLookupSet(seen, t) ? (int)t : ~(int)t;
    }
  PetscCall(UntouchedFromBT(k, &seen));
  if (k->strategy == DMASM_KIRAN_PPNIROW && k->map16) { /* one base and 24 16-bit offsets per store step, where all fit */
    PetscBool ok = PETSC_TRUE;
    PetscCall(PetscMalloc2((size_t)DMASM_HEX_NEN * nelem, &k->mbase, (size_t)DMASM_HEX_NK * nelem, &k->moff));
    for (PetscCount t = 0; t < (PetscCount)DMASM_HEX_NEN * nelem && ok; t++) ok = DMAsmKiranMap16(k->map + t * DMASM_HEX_NEN, k->mbase + t, k->moff + t * DMASM_HEX_NEN) ? PETSC_TRUE : PETSC_FALSE;
    if (ok) PetscCall(PetscFree(k->map));
    else PetscCall(PetscFree2(k->mbase, k->moff));
  }
  k->dmap       = k->map;
  k->dmbase     = k->mbase;
  k->dmoff      = k->moff;
  k->duntouched = k->untouched;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) {
    if (k->mbase) {
      PetscCall(DMAsmCUDAMalloc((void **)&k->dmbase, sizeof(int) * DMASM_HEX_NEN * nelem));
      PetscCall(DMAsmCUDAUpload(k->dmbase, k->mbase, sizeof(int) * DMASM_HEX_NEN * nelem));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dmoff, sizeof(unsigned short) * DMASM_HEX_NK * nelem));
      PetscCall(DMAsmCUDAUpload(k->dmoff, k->moff, sizeof(unsigned short) * DMASM_HEX_NK * nelem));
      PetscCall(PetscFree2(k->mbase, k->moff));
    } else {
      PetscCall(DMAsmCUDAMalloc((void **)&k->dmap, sizeof(int) * DMASM_HEX_NK * nelem));
      PetscCall(DMAsmCUDAUpload(k->dmap, k->map, sizeof(int) * DMASM_HEX_NK * nelem));
      PetscCall(PetscFree(k->map));
    }
    PetscCall(DMAsmCUDAMalloc((void **)&k->duntouched, sizeof(int) * k->nuntouched));
    PetscCall(DMAsmCUDAUpload(k->duntouched, k->untouched, sizeof(int) * k->nuntouched));
    PetscCall(PetscFree(k->untouched));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same map built on the device from the device element targets (one thread per entry) */
static PetscErrorCode JacPlanDevice_Kiran(DMAssembly as, const MatAssemblyBlock *B, const PetscInt *dq2t)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;

  PetscFunctionBegin;
  PetscCall(CheckTarget(as, B));
  PetscCheck(!KiranIsOwner(k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly kiran: owner plans come from the target's rows (JacPlanRows_Kiran)");
#if defined(ELLWARP_HAVE_CUDA)
  if (k->strategy == DMASM_KIRAN_PPNIROW) {
    PetscCall(DMAsmCUDAKiranOrder(as->nelem, dq2t, k->ordercnt));
    k->tr = (PetscBool)(k->order ? k->order == 2 : k->ordercnt[1] > k->ordercnt[0]);
  }
  PetscCall(DMAsmCUDAMalloc((void **)&k->dmap, sizeof(int) * DMASM_HEX_NK * as->nelem));
  PetscCall(DMAsmCUDAKiranMap((int)k->strategy, (int)k->tr, as->nelem, k->dcolelem, dq2t, k->nval, k->dmap, &k->nuntouched, &k->duntouched));
  PetscCall(UntouchedPaddingOnly(k, NULL, &k->duntouched));
  if (k->strategy == DMASM_KIRAN_PPNIROW && k->map16) {
    PetscBool ok;
    PetscCall(DMAsmCUDAMalloc((void **)&k->dmbase, sizeof(int) * DMASM_HEX_NEN * as->nelem));
    PetscCall(DMAsmCUDAMalloc((void **)&k->dmoff, sizeof(unsigned short) * DMASM_HEX_NK * as->nelem));
    PetscCall(DMAsmCUDAKiranMap16(as->nelem, k->dmap, k->dmbase, k->dmoff, &ok));
    if (ok) PetscCall(DMAsmCUDAFree((void **)&k->dmap));
    else {
      PetscCall(DMAsmCUDAFree((void **)&k->dmbase));
      PetscCall(DMAsmCUDAFree((void **)&k->dmoff));
    }
  }
#else
  (void)dq2t;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner and ownergeo (ops->jacplanrows): the store lists from the target's rows and the node adjacency, on the device
   where the set-up runs there, so no element-entry map (nen^2 an element) is ever built for them.  Where the 16-bit
   lists do not fit, auto falls back (an explicit request errored in KiranRefuse) and *done stays PETSC_FALSE: the
   generic code then builds the element targets for the fallback's map (JacPlan_Kiran / JacPlanDevice_Kiran) */
static PetscErrorCode JacPlanRows_Kiran(DMAssembly as, const MatAssemblyBlock *B, PetscBool *done)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;
  PetscBool         ok;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!KiranIsOwner(k)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CheckTarget(as, B));
  if (DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
    const PetscCount cap = 9 * k->maxnb;
    PetscCall(DMAsmCUDAMalloc((void **)&k->dobase, sizeof(int) * k->nnode));
    PetscCall(DMAsmCUDAMalloc((void **)&k->docnt, sizeof(int) * k->nnode));
    PetscCall(DMAsmCUDAMalloc((void **)&k->dolist, sizeof(unsigned) * cap * k->nnode));
    PetscCall(DMAsmCUDAKiranOwnerPlan(as->nelem, k->nnode, (int)k->maxnb, k->dvnode, k->djsl, B->m, B->i, B->j, B->csr2val, k->nval, k->dobase, k->docnt, k->dolist, &k->nuntouched, &k->duntouched, &ok));
    if (ok) PetscCall(UntouchedPaddingOnly(k, NULL, &k->duntouched));
    if (ok && k->blockstore && k->strategy == DMASM_KIRAN_OWNERGEO) { /* the block lists, for ownergeo's node kernel */
      k->nblk = (k->nnode + DMASM_OWNER_BLOCK - 1) / DMASM_OWNER_BLOCK;
      PetscCall(DMAsmCUDAMalloc((void **)&k->dbwin, sizeof(int) * DMASM_OWNER_BLOCK * k->nblk));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dbcnt, sizeof(int) * k->nblk));
      PetscCall(DMAsmCUDAMalloc((void **)&k->dblist, sizeof(unsigned) * cap * DMASM_OWNER_BLOCK * k->nblk));
      PetscCall(DMAsmCUDAKiranOwnerBlockPlan(k->nnode, (int)k->maxnb, (int)k->blockspan, k->dobase, k->docnt, k->dolist, k->dbwin, k->dbcnt, k->dblist, &k->nblkfit, &k->nblkmulti));
      if (k->nblkfit == k->nblk) PetscCall(DMAsmCUDAFree((void **)&k->dolist)); /* every block stores by its list: the node lists served only to build them */
    }
    if (!ok) {
      PetscCall(PetscStrncpy(k->why, "the values of a node's rows spread over more than 65536 positions of the target (16-bit store lists)", sizeof(k->why)));
      PetscCall(KiranRefuse(as, k, PETSC_ERR_SUP, 1, &ok));
    }
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  } else PetscCall(OwnerPlan(as, k, B, &ok)); /* refuses there where the 16-bit lists do not fit */
  if (ok) *done = PETSC_TRUE;
  else PetscCall(AutoFallBack(as, k)); /* auto only (an explicit request errored): ppnirow, its set-up again, its map from the element targets */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool HasJacPlan_Kiran(DMAssembly as)
{
  const DMAssembly_Kiran *k = (const DMAssembly_Kiran *)as->data;
  return (PetscBool)(k->dmap != NULL || k->dmbase != NULL || k->dolist != NULL || k->dblist != NULL);
}

/* the Jacobian is always computed inside the strategy's kernels (set-up checked the kernels); the residual goes
   through the element buffers and the packed reduction */
static PetscBool FusedActive_Kiran(DMAssembly as, PetscBool jac)
{
  (void)as;
  return jac;
}

static PetscLogDouble KiranFlops(void)
{
  return 8 * (4.0 * 8 * 9 + 40 + 64 * (6 + 54)) + DMASM_HEX_NK; /* ElasFlops of a hexahedron + the additions */
}

/* owner, per node-element pair: the element's geometry again, 8 Gauss points x (Jacobian 72 FMAs + inverse ~40 +
   gradients 72 FMAs), and its vertex's 3 rows, 8 Gauss points x 24 columns x 24 (DMAsmOwnerPoint: dot 5, weights 5,
   3 rows x 2 FMAs, the diagonal 2), + 72 additions into the accumulators: 7 304 flops, ~58 kflop per element (8 pairs),
   1.7 x KiranFlops: FP64, not bytes, bounds it */
static PetscLogDouble KiranOwnerFlopsPerPair(void)
{
  return 8 * (144.0 + 40 + 144) + 8 * 24 * 24.0 + 72;
}

/* ownergeo per element: the geometry once (8 x (Jacobian 144 + inverse ~40 + gradients 144 + the scaling 24 and its
   square root ~2)) and 8 node-element pairs of the M-form column step: 8 points x 24 columns x 3 FMAs (a column of
   M_ab), then per column 16 (the trace 2, 3 entries lambda M[i][k] + mu M[k][i] 9, the diagonal 2, 3 additions into
   the accumulators): 2 832 + 8 x 1 536 = ~15 kflop, 0.26 x owner's 58 kflop.  Warp instructions (the README's issue
   estimate): owner ~570 a pair (geometry ~290, columns ~280), ownergeo ~150 a pair (8 x (4 shared loads + 3 FMAs), M
   through shared memory, the accumulators, staging G, the loop) + ~350 an element for the geometry kernel: ~1 550 an
   element, ~0.34 x owner's */
static PetscLogDouble KiranOwnerGeoFlopsPerElement(void)
{
  return 8 * (144.0 + 40 + 144 + 24 + 2) + 8 * (8 * 24 * 6.0 + 24 * 16);
}

static PetscErrorCode Fused_Kiran(DMAssembly as, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;

  PetscFunctionBegin;
  (void)u;
  PetscCheck(jac, PETSC_COMM_SELF, PETSC_ERR_PLIB, "kiran: residuals go through the element buffers");
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Reduce, as, 0, 0, 0));
  if (k->strategy == DMASM_KIRAN_OWNER) { /* the untouched values zeroed, every other value stored once by its row's node */
    if (as->mtype == PETSC_MEMTYPE_HOST) {
      for (PetscCount i = 0; i < k->nuntouched; i++) dst[k->untouched[i]] = 0;
      HostKiranOwner(k, k->c->ref, NULL, dst);
      PetscCall(PetscLogFlops(KiranOwnerFlopsPerPair() * k->npair));
    } else {
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(DMAsmCUDAKiranZeroList(k->nuntouched, k->duntouched, dst));
      PetscCall(DMAsmCUDAKiranOwner((int)k->ownerblocks, k->nnode, (int)k->maxnb, k->c->dref, k->dxk, k->dlmk, k->c->lam, k->c->mu, k->dnptr, k->dadj, as->nelem, k->djsl, k->dobase, k->docnt, k->dolist, dst));
      PetscCall(PetscLogGpuFlops(KiranOwnerFlopsPerPair() * k->npair));
#endif
    }
  } else if (k->strategy == DMASM_KIRAN_OWNERGEO) { /* the geometry once per element into G, then owner reading G */
    if (as->mtype == PETSC_MEMTYPE_HOST) {
      PetscInt bad;
      PetscCall(PetscLogEventBegin(DMASM_KiranGeometry, as, 0, 0, 0));
      bad = HostKiranOwnerGeometry(as->nelem, k->c->ref, k->xk, k->geo);
      PetscCall(PetscLogEventEnd(DMASM_KiranGeometry, as, 0, 0, 0));
      PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMAssembly kiran ownergeo: element %" PetscInt_FMT " is inverted or degenerate (det J zero, not finite, or of different signs at its Gauss points)", bad);
      for (PetscCount i = 0; i < k->nuntouched; i++) dst[k->untouched[i]] = 0;
      HostKiranOwner(k, k->c->ref, k->geo, dst);
      PetscCall(PetscLogFlops(KiranOwnerGeoFlopsPerElement() * as->nelem));
    } else {
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(DMAsmCUDAKiranZeroList(k->nuntouched, k->duntouched, dst));
      /* set-up checked the elements (the same coordinates): the flag is not read again */
      PetscCall(PetscLogEventBegin(DMASM_KiranGeometry, as, 0, 0, 0));
      PetscCall(DMAsmCUDAKiranOwnerGeometry((int)k->geokernel, (int)k->geoblocks, as->nelem, k->c->dref, k->dxk, k->dgeo, k->dgeobad, NULL));
      PetscCall(PetscLogEventEnd(DMASM_KiranGeometry, as, 0, 0, 0));
      PetscCall(DMAsmCUDAKiranOwnerGeo((int)k->ownerblocks, (int)k->nodechunk, k->nnode, (int)k->maxnb, k->dlmk, k->c->lam, k->c->mu, k->dnptr, k->dadj, as->nelem, k->djsl, k->dobase, k->docnt, k->dolist, k->dbwin, k->dbcnt, k->dblist, k->dgeo, dst));
      PetscCall(PetscLogGpuFlops(KiranOwnerGeoFlopsPerElement() * as->nelem));
#endif
    }
  } else if (as->mtype == PETSC_MEMTYPE_HOST) {
    for (PetscCount i = 0; i < k->nuntouched; i++) dst[k->untouched[i]] = 0; /* the others: stored by their first colour */
    if (k->strategy == DMASM_KIRAN_TWOKERNEL) HostKiranGeometry(as->nelem, k->c->ref, k->xk, k->geo);
    for (PetscInt c = 0; c < k->ncolors; c++) HostKiranColor(k, k->colptr[c], k->colptr[c + 1] - k->colptr[c], as->nelem, k->c->ref, dst);
    PetscCall(PetscLogFlops(KiranFlops() * as->nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmCUDAKiranZeroList(k->nuntouched, k->duntouched, dst));
    if (k->strategy == DMASM_KIRAN_TWOKERNEL) PetscCall(DMAsmCUDAKiranGeometry(as->nelem, k->c->dref, k->dxk, k->dgeo));
    for (PetscInt c = 0; c < k->ncolors; c++) PetscCall(DMAsmCUDAKiranColor((int)k->strategy, (int)k->jac, k->colptr[c], k->colptr[c + 1] - k->colptr[c], as->nelem, k->c->dref, k->dxk, k->dlmk, k->c->lam, k->c->mu, k->dmap, k->dmbase, k->dmoff, k->dgeo, dst));
    PetscCall(PetscLogGpuFlops(KiranFlops() * as->nelem));
#endif
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Reduce, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetFromOptions_Kiran(DMAssembly as, PetscOptionItems PetscOptionsObject)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;
  PetscEnum         s = (PetscEnum)k->request;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DMAssembly kiran");
  PetscCall(PetscOptionsEnum("-dm_assembly_kiran_strategy", "hex8 elasticity: one thread per element, a warp per element (4/8 threads a row, PPNI), two kernels, or a warp per node writing each value once (owner; ownergeo: with the geometry once per element); auto: ownergeo where its requirements hold, else owner or ppnirow", "DMAssemblyKiranSetStrategy", DMAssemblyKiranStrategies, s, &s, NULL));
  PetscCheck(!as->setupcalled || (PetscInt)s == k->request, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssembly kiran: -dm_assembly_kiran_strategy must be set before DMAssemblySetUp() (the inputs are laid out for the strategy)");
  k->request = (PetscInt)s;
  s           = (PetscEnum)k->jac;
  PetscCall(PetscOptionsEnum("-dm_assembly_kiran_jacobian", "warp4/warp8 (device): the Jacobian by warp shuffle, shared memory or shared-memory atomics (Kiran et al., Table 1)", "DMAssemblyKiranSetStrategy", KiranJacobians, s, &s, NULL));
  k->jac = (PetscInt)s;
  s      = (PetscEnum)k->order;
  PetscCall(PetscOptionsEnum("-dm_assembly_kiran_store_order", "ppnirow: store steps along element-matrix columns (row) or rows (transposed, by symmetry); auto: the one with more consecutive target values", "DMAssemblyKiranSetStrategy", KiranStoreOrders, s, &s, NULL));
  k->order = (PetscInt)s;
  PetscCall(PetscOptionsInt("-dm_assembly_kiran_owner_blocks", "owner, ownergeo (device): the node kernel compiled for 2 blocks of 8 warps an SM (owner 88 registers, ownergeo 88, no spill) or 4 (owner 64 registers with 28 B of spill; ownergeo 60, no spill)", "DMAssemblyKiranSetStrategy", k->ownerblocks, &k->ownerblocks, NULL));
  PetscCheck(k->ownerblocks == 2 || k->ownerblocks == 4, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_kiran_owner_blocks: 2 or 4, not %" PetscInt_FMT, k->ownerblocks);
  s = (PetscEnum)k->geokernel;
  PetscCall(PetscOptionsEnum("-dm_assembly_kiran_geometry_kernel", "ownergeo (device): the geometry kernel, a warp per element or a thread per (element, Gauss point)", "DMAssemblyKiranSetStrategy", KiranGeometryKernels, s, &s, NULL));
  k->geokernel = (PetscInt)s;
  PetscCall(PetscOptionsInt("-dm_assembly_kiran_geometry_blocks", "ownergeo (device), point geometry kernel: compiled for 3 (75 registers), 5 (48) or 6 (40) blocks of 256 threads an SM", "DMAssemblyKiranSetStrategy", k->geoblocks, &k->geoblocks, NULL));
  PetscCheck(k->geoblocks == 3 || k->geoblocks == 5 || k->geoblocks == 6, PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_kiran_geometry_blocks: 3, 5 or 6, not %" PetscInt_FMT, k->geoblocks);
  PetscCall(PetscOptionsInt("-dm_assembly_kiran_node_chunk", "ownergeo's node kernel (device): the node-element pairs whose adjacency and neighbour slots a warp loads at once (a power of 2 up to 32; smaller only to test nodes of more pairs than that)", "DMAssemblyKiranSetStrategy", k->nodechunk, &k->nodechunk, NULL));
  PetscCheck(k->nodechunk >= 1 && k->nodechunk <= 32 && !(k->nodechunk & (k->nodechunk - 1)), PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_kiran_node_chunk: a power of 2 from 1 to 32, not %" PetscInt_FMT, k->nodechunk);
  PetscCall(PetscOptionsBool("-dm_assembly_kiran_block_store", "ownergeo's node kernel (and the host reference of owner/ownergeo): the values of 8 nodes stored together by a block list sorted by target (coalesced across the nodes' rows), else each node's own", "DMAssemblyKiranSetStrategy", k->blockstore, &k->blockstore, NULL));
  PetscCall(PetscOptionsInt("-dm_assembly_kiran_block_span", "block store lists: the span of a window of a block's list (2^17, the entry's 17 bits; smaller only to test blocks of several windows and those without a list)", "DMAssemblyKiranSetStrategy", k->blockspan, &k->blockspan, NULL));
  PetscCheck(k->blockspan >= 1 && k->blockspan <= (1 << DMASM_OWNER_SPAN_BITS), PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_kiran_block_span: 1 to 2^17, not %" PetscInt_FMT, k->blockspan);
  PetscCall(PetscOptionsBool("-dm_assembly_kiran_map16", "ppnirow: index map as a 32-bit base and 16-bit offsets per store step where they fit (1248 B per element instead of 2304 B)", "DMAssemblyKiranSetStrategy", k->map16, &k->map16, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode View_Kiran(DMAssembly as, PetscViewer viewer)
{
  DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;
  static const char *what[] = {"one thread per element, the 24 x 24 element matrix in local memory (Kiran et al.'s baseline)", "a warp per element, 4 threads per element-matrix row (18 entries a lane in registers), Jacobian by warp shuffle", "a warp per element, 8 threads per element-matrix row (18 entries a lane in registers), Jacobian by warp shuffle", "a warp per element, 4 threads a row, PPNI: the geometry of all 8 Gauss points at once in shared memory", "a warp per element, 8 threads a row, PPNI: the geometry of all 8 Gauss points at once in shared memory", "two kernels: the geometry (a warp per element), then 576 threads per element, one entry each", "a warp per element, PPNI, lane l < 24 owns element-matrix row l (24 entries in registers); a store instruction writes one column of the element matrix (or, transposed by symmetry, one row) so that its targets are runs of consecutive values", "write-once: a warp per node walks the node's elements, recomputes their geometry (all Gauss points at once), sums the node's 3 block rows in shared memory and stores each of its values once, sorted by target", "write-once with the geometry once per element: a geometry kernel (-dm_assembly_kiran_geometry_kernel) writes the element's gradients scaled by sqrt(w |det J|) at its 8 Gauss points (1536 B), then owner's warp per node reads them instead of recomputing them, sums its 3 block rows in shared memory and stores each value once"};

  PetscFunctionBegin;
  if (k->request == DMASM_KIRAN_AUTO) { /* which strategy auto took, and why */
    if (!as->setupcalled) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "method kiran, strategy auto: decided at set-up: ownergeo where its requirements hold (3 components, vertex-major dofs 3v..3v+2, at most %d neighbours a vertex, no tangled element; 16-bit store lists into the target, at the first Jacobian), else owner (only the tangled elements fail) or ppnirow\n", DMASM_OWNER_MAXNB));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!k->refused) PetscCall(PetscViewerASCIIPrintf(viewer, "strategy auto chose ownergeo (the fastest measured): its requirements hold: 3 components with vertex-major dofs 3v..3v+2, at most %" PetscInt_FMT " neighbours a vertex (limit %d), no tangled element%s\n", k->maxnb, DMASM_OWNER_MAXNB, k->nval ? ", 16-bit store lists into the target" : "; the 16-bit store lists are checked at the first Jacobian (else ppnirow)"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "strategy auto chose %s: ownergeo refused: %s; %s\n", DMAssemblyKiranStrategies[k->strategy], k->why, k->strategy == DMASM_KIRAN_OWNER ? "owner has no such requirement (|det J| per node-element pair) and is the fastest after ownergeo (H100, mesh 1: 14.4 ns/element, ppnirow 17.9)" : "ppnirow has none of owner's requirements and is the fastest colouring strategy measured (H100, mesh 1: 17.9 ns/element)"));
  }
  if (KiranIsOwner(k)) {
    const PetscBool geo = (PetscBool)(k->strategy == DMASM_KIRAN_OWNERGEO);
    PetscCall(PetscViewerASCIIPrintf(viewer, "method kiran, strategy %s: %s; no colouring, no atomics, no read-modify-write; device kernel for %" PetscInt_FMT " blocks of 8 warps an SM (-dm_assembly_kiran_owner_blocks)\n", DMAssemblyKiranStrategies[k->strategy], what[k->strategy], k->ownerblocks));
    if (geo) PetscCall(PetscViewerASCIIPrintf(viewer, "geometry kernel (device): %s (-dm_assembly_kiran_geometry_kernel); node kernel: a lane's column of G in registers, the M exchange by shuffles; stores: %s\n", k->geokernel ? "point, a thread per element and Gauss point, G staged per warp for 64 B runs" : "warp, a warp per element", !k->dolist && !k->dblist ? "by block or node lists, decided with the store lists at the first Jacobian" : k->dblist ? "by block lists, the values of 8 nodes together sorted by target (-dm_assembly_kiran_block_store)" : "by node lists"));
    if (geo && k->dblist) PetscCall(PetscViewerASCIIPrintf(viewer, "block lists: %" PetscInt_FMT " of %" PetscInt_FMT " blocks of 8 nodes, %" PetscInt_FMT " of them over several windows of %" PetscInt_FMT " values (a base each); the others' nodes store by their own lists (a node spreads over a window)%s\n", k->nblkfit, k->nblk, k->nblkmulti, k->blockspan, as->mtype == PETSC_MEMTYPE_DEVICE && !k->dolist ? "; node lists not kept on the device (every block has a list: 4 B a value less)" : ""));
    if (as->setupcalled) {
      const double ne = as->nelem ? (double)as->nelem : 1.0;
      PetscCall(PetscViewerASCIIPrintf(viewer, "node -> element adjacency (host): %" PetscInt_FMT " nodes, %" PetscInt_FMT " node-element pairs, at most %" PetscInt_FMT " neighbours a node, %.3f s; material %s\n", k->nnode, k->npair, k->maxnb, (double)k->adjtime, k->dlmk ? "per element" : "constant"));
      if (k->nval) { /* DRAM bytes: every element's coordinates once (its 8 nodes' warps re-read them from L2); ownergeo: + G
                        written once and read once (its 8 node warps re-read it from L2) */
        const double nw = (double)(k->nval - k->nuntouched - k->npad), in = 192.0 + (k->dlmk ? 16 : 0) + (geo ? 2 * 8.0 * DMASM_OWNERGEO_G : 0), adj = (4.0 * k->npair + 8.0 * k->npair + 4.0 * (k->nnode + 1)) / ne;
        const double lists = (4.0 * nw + 8.0 * k->nnode) / ne, vals = 8.0 * (double)(k->nval - k->npad) / ne;
        PetscCall(PetscViewerASCIIPrintf(viewer, "bytes per element: coordinates%s %.0f + adjacency %.0f + store lists %.0f (4 B a value, base and count 8 B a node) + values %.0f (each written once; %" PetscCount_FMT " of %" PetscCount_FMT " untouched, zeroed; %" PetscCount_FMT " padding slots left to the target, which keeps them 0) = %.0f B; %.0f flops per element (%s)\n", geo ? " and G (written, read)" : "", in, adj, lists, vals, k->nuntouched, k->nval, k->npad, in + adj + lists + vals, geo ? KiranOwnerGeoFlopsPerElement() : KiranOwnerFlopsPerPair() * k->npair / ne, geo ? "geometry once per element" : "geometry recomputed per node"));
      } else PetscCall(PetscViewerASCIIPrintf(viewer, "store lists: built at the first DMAssemblyComputeJacobian(); %.0f flops per %s\n", geo ? KiranOwnerGeoFlopsPerElement() : KiranOwnerFlopsPerPair(), geo ? "element" : "node-element pair"));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "method kiran, strategy %s: %s; hex8 elasticity generated and added per colour without atomics through a precomputed index map into the target's values\n", DMAssemblyKiranStrategies[k->strategy], what[k->strategy]));
  if (k->strategy == DMASM_KIRAN_WARP4 || k->strategy == DMASM_KIRAN_WARP8) PetscCall(PetscViewerASCIIPrintf(viewer, "Jacobian at each Gauss point by %s (-dm_assembly_kiran_jacobian)%s\n", k->jac == 0 ? "8-lane warp shuffles" : k->jac == 1 ? "products in shared memory summed by 3 lanes" : "shared-memory atomicAdd", k->jac == 2 ? ": not bitwise reproducible" : ""));
  if (k->strategy == DMASM_KIRAN_PPNIROW && k->nval) {
    const PetscCount nst = 23 * 24 * (PetscCount)as->nelem; /* pairs of neighbouring lanes in a store step */
    PetscCall(PetscViewerASCIIPrintf(viewer, "store order: %s (%s; consecutive target values in a store step: %.0f %% of the lane pairs in row order, %.0f %% transposed); index map: %s\n", k->tr ? "transposed, a step writes one row of the element matrix (its symmetric entries)" : "row, a step writes one column of the element matrix", k->order ? "forced by -dm_assembly_kiran_store_order" : "auto: the one with more", nst ? 100.0 * (double)k->ordercnt[0] / (double)nst : 0.0, nst ? 100.0 * (double)k->ordercnt[1] / (double)nst : 0.0, k->dmbase ? "16-bit, a 32-bit base and 24 16-bit offsets per store step" : k->map16 ? "32-bit (some store step spreads over more than 32767 values)" : "32-bit (-dm_assembly_kiran_map16 0)"));
  }
  if (as->setupcalled) {
    const PetscLogDouble map = k->dmbase ? 4.0 * DMASM_HEX_NEN + 2.0 * DMASM_HEX_NK : 4.0 * DMASM_HEX_NK, in = 24 * 8 + (k->dlmk ? 16 : 0) + (k->strategy == DMASM_KIRAN_TWOKERNEL ? 2 * 8 * KIRAN_GEO : 0);
    const PetscLogDouble rmw = k->nval ? (16.0 * DMASM_HEX_NK * as->nelem - 8.0 * (k->nval - k->nuntouched - k->npad)) / as->nelem : 16.0 * DMASM_HEX_NK;
    PetscCall(PetscViewerASCIIPrintf(viewer, "element colouring (greedy, host): %" PetscInt_FMT " colours, largest vertex valence %" PetscInt_FMT ", %.3f s; material %s\n", k->ncolors, k->maxval, (double)k->colortime, k->dlmk ? "per element" : "constant"));
    if (k->nval) PetscCall(PetscViewerASCIIPrintf(viewer, "bytes per element: inputs %.0f + index map %.0f + values %.0f (the first colour touching a value stores it, the others add; %" PetscCount_FMT " of %" PetscCount_FMT " values untouched, zeroed; %" PetscCount_FMT " padding slots left to the target, which keeps them 0) = %.0f B; %.0f flops per element\n", (double)in, (double)map, (double)rmw, k->nuntouched, k->nval, k->npad, (double)(in + map + rmw), (double)KiranFlops()));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "index map: built at the first DMAssemblyComputeJacobian(); %.0f flops per element\n", (double)KiranFlops()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetInfo_Kiran(DMAssembly as, DMAssemblyInfo *info)
{
  PetscFunctionBegin;
  info->ncolors = ((DMAssembly_Kiran *)as->data)->ncolors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetColoring_Kiran(DMAssembly as, PetscInt *ncolors, const PetscInt **colptr, const PetscInt **colelem)
{
  const DMAssembly_Kiran *k = (DMAssembly_Kiran *)as->data;

  PetscFunctionBegin;
  PetscCheck(!KiranIsOwner(k), PetscObjectComm((PetscObject)as), PETSC_ERR_ARG_WRONGSTATE, "DMAssemblyGetColoring: kiran's %s strategy colours nothing (each node writes its own rows)", DMAssemblyKiranStrategies[k->strategy]);
  if (ncolors) *ncolors = k->ncolors;
  if (colptr) *colptr = k->colptr;
  if (colelem) *colelem = k->colelem;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetStrategy_Kiran(DMAssembly as, DMAssemblyKiranStrategy s)
{
  PetscFunctionBegin;
  PetscCheck(!as->setupcalled || (PetscInt)s == ((DMAssembly_Kiran *)as->data)->request, PetscObjectComm((PetscObject)as), PETSC_ERR_ORDER, "DMAssemblyKiranSetStrategy: call it before DMAssemblySetUp()");
  ((DMAssembly_Kiran *)as->data)->request = (PetscInt)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetColoringTime_Kiran(DMAssembly as, PetscLogDouble *t)
{
  PetscFunctionBegin;
  *t = ((DMAssembly_Kiran *)as->data)->colortime;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy_Kiran(DMAssembly as)
{
  PetscFunctionBegin;
  PetscCall(FreeData((DMAssembly_Kiran *)as->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyGetColoring_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyKiranSetStrategy_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyKiranGetColoringTime_C", NULL));
  PetscCall(PetscFree(as->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyKiranSetStrategy - Chooses the strategy of a `DMASSEMBLYKIRAN` assembler

  Logically Collective

  Input Parameters:
+ as - the assembler (type `DMASSEMBLYKIRAN`; other types ignore the call)
- s  - `DMASSEMBLY_KIRAN_ELEMENT`, `_WARP4`, `_WARP8`, `_PPNI4`, `_PPNI8`, `_TWOKERNEL`, `_PPNIROW`, `_OWNER`, `_OWNERGEO` or `_AUTO`

  Options Database Key:
. -dm_assembly_kiran_strategy <element,warp4,warp8,ppni4,ppni8,twokernel,ppnirow,owner,ownergeo,auto> - the strategy (default auto)

  Level: intermediate

  Note:
  `DMASSEMBLY_KIRAN_AUTO` decides at `DMAssemblySetUp()`: ownergeo (the fastest measured) where its requirements hold (3
  components, vertex-major dofs 3v..3v+2, at most 40 neighbours a vertex, no tangled element), else owner where only
  the tangled-element one fails, else ppnirow; the 16-bit store lists of owner/ownergeo are checked with the target at
  the first `DMAssemblyComputeJacobian()` (ppnirow where they do not fit).  `DMAssemblyView()` says which and why.  An
  explicitly requested strategy whose requirements fail is an error, never replaced.

.seealso: `DMAssembly`, `DMASSEMBLYKIRAN`, `DMAssemblyElasticityKernels()`
@*/
PetscErrorCode DMAssemblyKiranSetStrategy(DMAssembly as, DMAssemblyKiranStrategy s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscTryMethod(as, "DMAssemblyKiranSetStrategy_C", (DMAssembly, DMAssemblyKiranStrategy), (as, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyKiranGetColoringTime - Host seconds the greedy element colouring of a `DMASSEMBLYKIRAN` assembler took

  Not Collective

  Input Parameter:
. as - the assembler, set up

  Output Parameter:
. t - seconds

  Level: intermediate

.seealso: `DMAssembly`, `DMASSEMBLYKIRAN`, `DMAssemblyGetColoring()`
@*/
PetscErrorCode DMAssemblyKiranGetColoringTime(DMAssembly as, PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(t, 2);
  PetscUseMethod(as, "DMAssemblyKiranGetColoringTime_C", (DMAssembly, PetscLogDouble *), (as, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   DMASSEMBLYKIRAN - "kiran" - 8-node hexahedra of linear elasticity (`DMAssemblyElasticityKernels()`, a 3-component
   Q1 field) generated and assembled by the strategies of Kiran, Sharma and Gautam (JCDE 2019) in double precision:
   greedy element colouring, one launch per colour, a precomputed per-element index map into the target's values
   (ELLWARP slots or CSR) read coalesced, no atomics.

   Options Database Keys:
+  -dm_assembly_kiran_strategy <element,warp4,warp8,ppni4,ppni8,twokernel,ppnirow,owner,ownergeo,auto> - one thread per element; a warp per
   element with 4 or 8 threads per element-matrix row, the Jacobian by warp shuffle; the same with the geometry of
   all Gauss points at once (PPNI); a geometry kernel then one thread per entry; PPNI with a lane per element-matrix
   row and stores ordered for consecutive target values; owner: a warp per node (its 3 rows) over its elements,
   each matrix value written once, no colouring; ownergeo: owner with the geometry computed once per element by a
   geometry kernel; auto: ownergeo where its requirements hold, else owner (tangled elements) or ppnirow, decided at
   set-up (`DMAssemblyView()` says which and why; default auto)
.  -dm_assembly_kiran_jacobian <shuffle,shared,atomic> - warp4/warp8 on the device: the Jacobian by warp shuffle, shared
   memory or shared-memory atomics (Kiran et al., Table 1; atomic is not bitwise reproducible; default shuffle)
.  -dm_assembly_kiran_store_order <auto,row,transposed> - ppnirow: a store step writes a column of the element matrix
   (row) or, by symmetry, a row (transposed); auto takes the one with more consecutive target values (default)
.  -dm_assembly_kiran_map16 <bool> - ppnirow: the index map as a 32-bit base and 24 16-bit offsets per store step where
   every step fits, else 32-bit (default true)
.  -dm_assembly_kiran_owner_blocks <2,4> - owner and ownergeo on the device: the kernel compiled for 2 blocks of 8 warps an SM (no
   register spill) or 4 (64 registers, some spill to L1; default 4)
.  -dm_assembly_kiran_geometry_kernel <warp,point> - ownergeo on the device: its geometry kernel, a warp per element
   or a thread per element and Gauss point (default; G staged per warp so that each store writes 64 B runs)
.  -dm_assembly_kiran_geometry_blocks <3,5,6> - ownergeo on the device, point geometry kernel: compiled for 3, 5
   (default) or 6 blocks of 256 threads an SM
-  -dm_assembly_kiran_block_store <bool> - ownergeo's node kernel (and owner's host reference): the values of the 8 nodes
   of a block stored together, sorted by target, where the target allows (default true)

   Level: intermediate

   Notes:
   The residual goes through the element buffers and the packed reduction (globalnz's).  Other kernels or elements
   are refused at set-up with an error.  owner and ownergeo need vertex-major dofs (3v, 3v+1, 3v+2) and at most 40
   neighbours a vertex; `DMAssemblyGetColoring()` is an error with them (they colour nothing); ownergeo refuses an
   inverted or degenerate element (det J zero or changing sign inside it) with an error at set-up.  Asked for
   explicitly, a strategy whose requirements fail is an error; auto falls back instead and says why.

.seealso: `DMAssembly`, `DMAssemblySetType()`, `DMAssemblyKiranSetStrategy()`, `DMAssemblyElasticityKernels()`, `DMASSEMBLYCOLOR`
M*/
PetscErrorCode DMAssemblyCreate_Kiran(DMAssembly as)
{
  DMAssembly_Kiran *k;

  PetscFunctionBegin;
  if (!DMASM_KiranGeometry) PetscCall(PetscLogEventRegister("DMAsmKiranGeom", DMASSEMBLY_CLASSID, &DMASM_KiranGeometry));
  PetscCall(PetscNew(&k));
  k->request              = DMASM_KIRAN_AUTO;
  k->strategy             = DMASM_KIRAN_OWNERGEO; /* auto's first choice until set-up decides */
  k->map16                = PETSC_TRUE;
  k->ownerblocks          = 4;
  k->nodechunk            = 32;
  k->blockstore           = PETSC_TRUE;
  k->blockspan            = 1 << DMASM_OWNER_SPAN_BITS;
  k->geoblocks            = 5; /* the gradients computed 8 at a time fit 48 registers */
  k->geokernel            = 1; /* point: H100, mesh 1 into ELLWARP, the geometry kernel 1.44 -> 0.93 ns/element, ownergeo
                                  5.80 -> 5.22 ns (benchmarks/results/elasticity-h100/logs-ownergeo/round2/) */
  as->data                = k;
  as->ops->reduce         = DMAsmReducePacked;
  as->ops->fusedactive    = FusedActive_Kiran;
  as->ops->fused          = Fused_Kiran;
  as->ops->setup          = SetUp_Kiran;
  as->ops->jacplan        = JacPlan_Kiran;
  as->ops->jacplandevice  = JacPlanDevice_Kiran;
  as->ops->jacplanrows    = JacPlanRows_Kiran;
  as->ops->hasjacplan     = HasJacPlan_Kiran;
  as->ops->view           = View_Kiran;
  as->ops->setfromoptions = SetFromOptions_Kiran;
  as->ops->getinfo        = GetInfo_Kiran;
  as->ops->destroy        = Destroy_Kiran;
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyGetColoring_C", GetColoring_Kiran));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyKiranSetStrategy_C", SetStrategy_Kiran));
  PetscCall(PetscObjectComposeFunction((PetscObject)as, "DMAssemblyKiranGetColoringTime_C", GetColoringTime_Kiran));
  PetscFunctionReturn(PETSC_SUCCESS);
}
