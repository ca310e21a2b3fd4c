/* Matrix-free Q_p operators of DMAssembly (src/dm/assembly/dmasmmatfree.c, device kernels dmasmmatfreecuda.cu).
   The element math here is compiled by both compilers: the host references call it, the device kernels use the
   same layouts (and the pointwise part, DMAsmMFPoint, itself).

   Layouts (n = p+1 nodes, q Gauss points per direction; nen = n^dim, nq = q^dim):
     nodes / points lexicographic, x fastest: i = i0 + n*(i1 + n*i2)
     B, D [q][n]         1-D Lagrange basis on the FE's nodes and its derivative at the Gauss points ([-1,1])
     geo  [nelem][ng][nq] per element, per point: mass: w |J|; Poisson: the upper triangle of w |J| J^-1 J^-T
                          (2-D: 00 01 11; 3-D: 00 01 02 11 12 22)
     edof [nelem][nen]    global dof of tensor node i of element e, -1: constrained (Dirichlet, eliminated)
     edofT [nen][nelem]   the same transposed (thread per element: coalesced)
     K    [nen*nen] (uniform affine mesh: one matrix) or [nen*nen][nelem] (row-major i*nen+j)
     gptr/gidx            dof -> its contributions e*nen+i in increasing order (gather by node: a fixed order) */
#pragma once

#include <petscsys.h>

#if defined(__CUDACC__)
  #define DMASMMF_HD __host__ __device__
#else
  #define DMASMMF_HD
#endif

#define DMASMMF_PMAX 8  /* polynomial degrees 1..8 */
#define DMASMMF_QMAX 10 /* Gauss points per direction (p+1 or p+2 for p = 8) */
#define DMASMMF_UNIFORM_RTOL 1e-12 /* elmat_*: one element matrix when all geometry factors match element 0's to this */

typedef enum {
  DMASMMF_MASS,   /* BP1: g0 = 1 */
  DMASMMF_POISSON /* BP3: g3 = identity */
} DMAsmMFOp;

typedef enum {
  DMASMMF_SCATTER_ATOMIC, /* element outputs added to y with atomics (host: in element order) */
  DMASMMF_SCATTER_GATHER, /* element outputs stored, each dof sums its contributions in element order */
  DMASMMF_SCATTER_COLOR,  /* one launch per colour, plain adds (no two elements of a colour share a dof) */
  DMASMMF_SCATTER_NONE,   /* plain adds without protection: races, wrong results (test-only upper bound) */
  DMASMMF_SCATTER_PRIVATE /* CPU only: each host thread adds into its own copy of y, the copies summed by dof in
                             thread order (the paper's CPU "private buffers"); serial: the atomic reference */
} DMAsmMFScatter;

typedef struct _DMAsmMatFreeOps *DMAsmMatFreeOps;
typedef struct _p_DMAsmMatFree  *DMAsmMatFree;

struct _DMAsmMatFreeOps {
  PetscErrorCode (*setup)(DMAsmMatFree);                                  /* the variant's own data (after geometry) */
  PetscErrorCode (*apply)(DMAsmMatFree, PetscMemType, const PetscScalar *, PetscScalar *, PetscBool); /* y (+)= A x */
  PetscErrorCode (*view)(DMAsmMatFree, PetscViewer);
};

struct _p_DMAsmMatFree {
  struct _DMAsmMatFreeOps ops;
  char                    type[32];
  DM                      dm;
  DMAsmMFOp               op;
  DMAsmMFScatter          scatter;
  PetscInt                dim, p, n, q, nen, nq, ng, nelem, ndof;
  PetscBool               device;   /* MatMult runs on the device when the vectors are there */
  PetscBool               forcehost; /* -dm_assembly_matfree_host: the host reference whatever the vectors */
  PetscInt                nthreads;  /* -dm_assembly_matfree_host_threads: host path threads (1: serial reference) */
  PetscReal               B[DMASMMF_QMAX * (DMASMMF_PMAX + 1)], D[DMASMMF_QMAX * (DMASMMF_PMAX + 1)];
  PetscReal              *geo;     /* stored geometry factors (NULL: recomputed from xv) */
  PetscBool               recompute; /* -dm_assembly_matfree_geometry recompute */
  PetscReal              *xv;      /* [nelem][2^dim][dim] corner coordinates (recompute) */
  PetscReal               xg[DMASMMF_QMAX], wg[DMASMMF_QMAX]; /* 1-D Gauss points and weights */
  PetscInt               *edof, *edofT;
  PetscInt               *gptr, *gidx;
  PetscInt                ncolors, *colptr, *colelem;
  PetscBool               uniform; /* one element matrix for all elements (uniform affine mesh) */
  PetscReal               unifdev; /* largest relative deviation of the geometry factors from element 0's */
  PetscReal              *K;
  PetscScalar            *ye;      /* host element outputs (gather) */
  PetscScalar            *ypriv;   /* private: npriv host buffers of ndof (kept between applications) */
  PetscInt                npriv;
  PetscReal              *diag;    /* host diagonal, computed at the first MatGetDiagonal */
  PetscLogDouble          flops;   /* per application (model) */
  PetscLogDouble          setuptime;
  size_t                  elmatmax; /* bytes allowed for per-element matrices */
  /* device copies */
  PetscReal   *dB, *dD, *dgeo, *dK, *dxv, *dgw;
  PetscInt    *dedof, *dedofT, *dgptr, *dgidx, *dcolelem;
  PetscScalar *dye;
};

/* pointwise: v = G u (Poisson, g the upper triangle) or v = g u (mass); u, v [dim] */
DMASMMF_HD static inline void DMAsmMFPoint(int dim, int poisson, const PetscReal *g, PetscInt stride, const PetscScalar *u, PetscScalar *v)
{
  if (!poisson) {
    v[0] = g[0] * u[0];
  } else if (dim == 2) {
    const PetscReal g00 = g[0], g01 = g[stride], g11 = g[2 * stride];
    v[0] = g00 * u[0] + g01 * u[1];
    v[1] = g01 * u[0] + g11 * u[1];
  } else {
    const PetscReal g00 = g[0], g01 = g[stride], g02 = g[2 * stride], g11 = g[3 * stride], g12 = g[4 * stride], g22 = g[5 * stride];
    v[0] = g00 * u[0] + g01 * u[1] + g02 * u[2];
    v[1] = g01 * u[0] + g11 * u[1] + g12 * u[2];
    v[2] = g02 * u[0] + g12 * u[1] + g22 * u[2];
  }
}

/* the geometry factors at a point from its Jacobian J[i][j] = d x_i / d xi_j: with the adjugate A (J^-1 = A / det),
   w |J| J^-1 J^-T = (w / det) A A^T, one division (the inverse's 9 divisions were most of the recomputation) */
DMASMMF_HD static inline void DMAsmMFGeoFromJ(int dim, int poisson, const PetscReal J[3][3], PetscReal w, PetscReal *g)
{
  PetscReal A[3][3], det;
  if (dim == 2) {
    det     = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    A[0][0] = J[1][1];
    A[0][1] = -J[0][1];
    A[1][0] = -J[1][0];
    A[1][1] = J[0][0];
  } else {
    A[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
    A[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
    A[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
    A[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
    A[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
    A[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
    A[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
    A[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
    A[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    det     = J[0][0] * A[0][0] + J[0][1] * A[1][0] + J[0][2] * A[2][0];
  }
  if (!poisson) g[0] = w * det;
  else {
    const PetscReal s = w / det;
    int             k = 0;
    for (int a = 0; a < dim; a++)
      for (int b = a; b < dim; b++, k++) {
        PetscReal t = 0;
        for (int m = 0; m < dim; m++) t += A[a][m] * A[b][m];
        g[k] = s * t;
      }
  }
}

/* recomputed geometry (-dm_assembly_matfree_geometry recompute, sumfact): the geometry factors at one Gauss point
   xi from the element's 2^dim corner coordinates X [corner][dim] (corner v: xi_d = +1 where bit d of v is set, else
   -1) by the multilinear map, which is the mesh's own map when its coordinates are Q1 (checked at set-up).  g: the
   element's factors at this point, contiguous ([ng]); w: the Gauss weight */
DMASMMF_HD static inline void DMAsmMFGeoMultilinear(int dim, int poisson, const PetscReal *X, const PetscReal *xi, PetscReal w, PetscReal *g)
{
  /* J column j = d x / d xi_j: the differences of the corners along edge direction j, weighted by the bilinear
     factors of the other coordinates (2^(dim-1) edges: 12 in 3-D); then DMAsmMFGeoFromJ */
  PetscReal J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int j = 0; j < dim; j++) {
    const int o1 = (j + 1) % dim, o2 = (j + 2) % dim, bj = 1 << j; /* the other directions (3-D; 2-D: o1 only) */
    for (int v = 0; v < (1 << dim); v++) {
      PetscReal wv;
      if (v & bj) continue; /* v: the edge's lower corner, v + bj its upper */
      wv = 0.5 * (1.0 + (((v >> o1) & 1) ? xi[o1] : -xi[o1]));
      if (dim == 3) wv *= 0.5 * (1.0 + (((v >> o2) & 1) ? xi[o2] : -xi[o2]));
      for (int i = 0; i < dim; i++) J[i][j] += 0.5 * wv * (X[(v + bj) * dim + i] - X[v * dim + i]);
    }
  }
  DMAsmMFGeoFromJ(dim, poisson, J, w, g);
}

/* the element's [ng][nq] factors recomputed (host reference of the recompute path) */
static inline void DMAsmMFGeoElementHost(int dim, int poisson, int q, const PetscReal *xg, const PetscReal *wg, const PetscReal *X, PetscReal *geo)
{
  const int nq = dim == 3 ? q * q * q : q * q, ng = poisson ? dim * (dim + 1) / 2 : 1;
  for (int k = 0; k < nq; k++) {
    const int i[3] = {k % q, (k / q) % q, k / (q * q)};
    PetscReal xi[3], w = 1, g[6];
    for (int d = 0; d < dim; d++) {
      xi[d] = xg[i[d]];
      w *= wg[i[d]];
    }
    DMAsmMFGeoMultilinear(dim, poisson, X, xi, w, g);
    for (int c = 0; c < ng; c++) geo[c * nq + k] = g[c];
  }
}

/* out = contraction of in along direction d with M (r x m, row-major) or M^T (trans: M is m x r, out uses its
   transpose); ext[3] the extents of in (ext[d] = m), the extent of out along d is r.  x fastest. */
static inline void DMAsmMFContract(const PetscReal *M, int trans, int r, int m, int d, const int ext[3], const PetscScalar *in, PetscScalar *out)
{
  int oe[3] = {ext[0], ext[1], ext[2]};
  oe[d]     = r;
  for (int k = 0; k < oe[2]; k++)
    for (int j = 0; j < oe[1]; j++)
      for (int i = 0; i < oe[0]; i++) {
        const int   o[3] = {i, j, k};
        PetscScalar s    = 0;
        for (int l = 0; l < m; l++) {
          int       a[3] = {i, j, k};
          PetscReal c    = trans ? M[l * r + o[d]] : M[o[d] * m + l];
          a[d]           = l;
          s += c * in[a[0] + ext[0] * (a[1] + ext[1] * a[2])];
        }
        out[i + oe[0] * (j + oe[1] * k)] = s;
      }
}

/* the host reference of one element: ye = A_e ue by sum factorisation.  geo: the element's [ng][nq];
   work: 4 * (dim+1) * QMAX^3 scalars */
static inline void DMAsmMFElementHost(int dim, int n, int q, int poisson, const PetscReal *B, const PetscReal *D, const PetscReal *geo, const PetscScalar *ue, PetscScalar *ye, PetscScalar *work)
{
  const int    nq = dim == 3 ? q * q * q : q * q, T = DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX;
  PetscScalar *t0 = work, *t1 = work + T, *U = work + 2 * T; /* U: [dim][nq] (or [1][nq]) */
  const int    nc = poisson ? dim : 1;

  /* forward: component c is the derivative along c (D in direction c, B elsewhere), or the value (mass) */
  for (int c = 0; c < nc; c++) {
    int                ext[3] = {n, n, dim == 3 ? n : 1};
    const PetscScalar *in     = ue;
    PetscScalar       *bufs[2] = {t0, t1};
    for (int d = 0; d < dim; d++) {
      PetscScalar *out = d == dim - 1 ? U + c * nq : bufs[d % 2];
      DMAsmMFContract(poisson && d == c ? D : B, 0, q, n, d, ext, in, out);
      ext[d] = q;
      in     = out;
    }
  }
  for (int k = 0; k < nq; k++) {
    PetscScalar u[3], v[3];
    for (int c = 0; c < nc; c++) u[c] = U[c * nq + k];
    DMAsmMFPoint(dim, poisson, geo + k, nq, u, v);
    for (int c = 0; c < nc; c++) U[c * nq + k] = v[c];
  }
  for (int i = 0; i < (dim == 3 ? n * n * n : n * n); i++) ye[i] = 0;
  /* backward: the transposes, last direction first */
  for (int c = 0; c < nc; c++) {
    int                ext[3] = {q, q, dim == 3 ? q : 1};
    const PetscScalar *in     = U + c * nq;
    PetscScalar       *bufs[2] = {t0, t1};
    for (int d = dim - 1; d >= 0; d--) {
      PetscScalar *out = bufs[d % 2];
      DMAsmMFContract(poisson && d == c ? D : B, 1, n, q, d, ext, in, out);
      ext[d] = n;
      in     = out;
    }
    for (int i = 0; i < (dim == 3 ? n * n * n : n * n); i++) ye[i] += in[i];
  }
}

/* the element diagonal without the element matrix: diag_i = sum_q sum_ab G_ab(q) X_a(i,q) X_b(i,q), each term a
   transposed tensor contraction of G_ab with the 1-D matrices M(q,i) = X_a X_b (elementwise) per direction */
static inline void DMAsmMFElementDiagHost(int dim, int n, int q, int poisson, const PetscReal *B, const PetscReal *D, const PetscReal *geo, PetscScalar *de, PetscScalar *work)
{
  const int    nq = dim == 3 ? q * q * q : q * q, T = DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX, ne = dim == 3 ? n * n * n : n * n;
  PetscScalar *t0 = work, *t1 = work + T, *t2 = work + 2 * T;
  PetscReal    M[3][DMASMMF_QMAX * (DMASMMF_PMAX + 1)];
  const int    nc = poisson ? dim : 1;
  int          gi = 0;

  for (int i = 0; i < ne; i++) de[i] = 0;
  for (int a = 0; a < nc; a++)
    for (int b = a; b < nc; b++, gi++) {
      int                ext[3] = {q, q, dim == 3 ? q : 1};
      const PetscScalar *in     = t2;
      PetscScalar       *bufs[2] = {t0, t1};
      for (int d = 0; d < dim; d++)
        for (int k = 0; k < q * n; k++) {
          const PetscReal xa = poisson && d == a ? D[k] : B[k], xb = poisson && d == b ? D[k] : B[k];
          M[d][k]            = xa * xb;
        }
      for (int k = 0; k < nq; k++) t2[k] = (a == b ? 1.0 : 2.0) * geo[gi * nq + k];
      for (int d = dim - 1; d >= 0; d--) {
        PetscScalar *out = bufs[d % 2];
        DMAsmMFContract(M[d], 1, n, q, d, ext, in, out);
        ext[d] = n;
        in     = out;
      }
      for (int i = 0; i < ne; i++) de[i] += in[i];
    }
}

/* the assembled operator in COO form (DMAssemblyMatFreeAssemble): the entries in increasing row (PETSc's COO
   preallocation then skips its global sort); row d's entries are its contributions k = gptr[d] .. gptr[d+1]-1 of the
   gather CSR (gidx[k] = e*nen+i, increasing e), each the element row i of e at its unconstrained columns j
   (edof[e][j] >= 0) in increasing j, from coff[k].  The value of entry (k, j) is K_e[i][j].  Device kernel: one
   thread per contribution, the same function */
DMASMMF_HD static inline void DMAsmMFCOOContribution(PetscInt k, PetscInt nen, PetscInt nelem, int uniform, const PetscReal *K, const PetscInt *edof, const PetscInt *gidx, const PetscCount *coff, PetscScalar *v)
{
  const PetscInt e = gidx[k] / nen, i = gidx[k] % nen;
  PetscCount     o = coff[k];
  for (PetscInt j = 0; j < nen; j++)
    if (edof[e * nen + j] >= 0) v[o++] = uniform ? K[i * nen + j] : K[(i * nen + j) * nelem + e];
}

/* the variant registry (dmasmmatfree.c); NULL name: only the built-in variants */
PETSC_INTERN PetscErrorCode DMAssemblyMatFreeRegister(const char[], PetscErrorCode (*)(DMAsmMatFree));

/* device entry points (dmasmmatfreecuda.cu) */
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmMFCUDASumFact(DMAsmMatFree, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMAsmMFCUDAElmat(DMAsmMatFree, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMAsmMFCUDAGather(DMAsmMatFree, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode DMAsmMFCUDACOOValues(DMAsmMatFree, const PetscInt *, const PetscCount *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmMFCUDASynchronize(void);
#endif
