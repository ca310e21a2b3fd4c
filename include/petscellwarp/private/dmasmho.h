/* The built-in Lagrange elements beyond the fused P1 path (DMAssemblyLagrangeKernels(), src/dm/assembly/dmasmho.c):
   scalar Lagrange P1..P5 triangles, P1/P2 tetrahedra (any order the PetscFE gives on simplices), Q1 quadrilaterals and
   hexahedra.  Laplacian with a constant symmetric conductivity D plus consistent mass and a constant source:

     ke_ab = alpha int grad(phi_a) . D grad(phi_b) + beta int phi_a phi_b,   fe_a = sum_b ke_ab u_b - source int phi_a

   One inline function per cell family, compiled twice -- by the C compiler for the host callback and by nvcc for the
   device kernel (as dmasmp1.h) -- so both paths run the same double-precision arithmetic (up to FMA contraction).
   The reference-element data are tabulated once on the host from the PetscFE (dmasmho.c) and passed in `ref`:

   simplices (affine: x = x_0 + J (xi + 1), J = (x_{a+1} - x_0)/2 column a, xi in the canonical reference simplex of
   [-1,1]^d with closure vertex a+1 at -1 + 2 e_a; dmasmho.c maps PETSc's reference cell onto it): the element
   matrix is a fixed combination of reference matrices (Cecka, Lew, Darve, 3.1):
     ref = Ks[ns][nen*nen]  (ns = dim(dim+1)/2 pairs i <= j: int d_i phi_a d_j phi_b + (i < j) int d_j phi_a d_i phi_b)
           M[nen*nen]       (int phi_a phi_b),  B[nen] (int phi_a)       -- all over the reference cell
     ke_ab = |det J| (sum_s C_s Ks[s]_ab + beta M_ab),  C = alpha J^-1 D J^-T (pairs i <= j);  symmetric in (a, b)
   tensor cells (Q1, trilinear map x = sum_a x_a phi_a(xi): quadrature at every point):
     ref = w[nq], Bq[nq][nen] (phi_a at point q), Gq[nq][nen][dim] (d_i phi_a at point q)

   xe: the element's VERTEX coordinates [(a*dim+d)*n + e], a < nvert (3/4 for simplices, 4/8 for tensor cells; for P1
   the vertices are the nodes), ue [a*n + e] (a < nen), ke [(a*nen+b)*n + e], fe [a*n + e]; ke or fe may be NULL. */
#pragma once

#include <petscsys.h>
#include <petscellwarp/private/dmasmp1.h> /* DMASM_HD */

#define DMASM_HO_TENSOR_MAXNEN 8 /* Q1 hexahedra: the tensor element keeps its matrix in registers */

/* the affine simplex map of element e: C_s (alpha J^-1 D J^-T, pairs i <= j) and |det J| */
static DMASM_HD inline void DMAsmHOSimplexGeometry(int dim, PetscInt e, PetscInt n, PetscReal alpha, const PetscReal *D, const PetscReal *xe, PetscReal Cs[6], PetscReal *adet)
{
  PetscReal J[3][3], Ji[3][3], det, T[3][3];

  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) J[i][j] = (xe[((j + 1) * dim + i) * n + e] - xe[(0 * dim + i) * n + e]) / 2; /* reference edge length 2 */
  DMAsmInverse(dim, J, Ji, &det);
  *adet = det < 0 ? -det : det;
  /* T = Ji D, C = T Ji^T (Ji[i][k] = d xi_i / d x_k) */
  for (int i = 0; i < dim; i++)
    for (int l = 0; l < dim; l++) {
      PetscReal s = 0;
      for (int k = 0; k < dim; k++) s += Ji[i][k] * (D ? D[k * dim + l] : (PetscReal)(k == l));
      T[i][l] = s;
    }
  {
    int p = 0;
    for (int i = 0; i < dim; i++)
      for (int j = i; j < dim; j++, p++) {
        PetscReal s = 0;
        for (int l = 0; l < dim; l++) s += T[i][l] * Ji[j][l];
        Cs[p] = alpha * (*adet) * s;
      }
  }
}

/* entry ab (upper triangle) of the affine simplex element from its C_s and beta |det J| */
static DMASM_HD inline PetscReal DMAsmHOSimplexEntry(int ns, int nn, int ab, const PetscReal Cs[6], PetscReal m, const PetscReal *__restrict__ ref)
{
  PetscReal k = m * ref[ns * nn + ab];
  for (int s = 0; s < ns; s++) k += Cs[s] * ref[s * nn + ab];
  return k;
}

/* affine simplex element of any order (see the header comment); NEN and DIM may be compile-time constants */
static DMASM_HD inline void DMAsmHOSimplexElement(int dim, int nen, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *__restrict__ ref, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const int        ns = dim * (dim + 1) / 2, nn = nen * nen;
  const PetscReal *B = ref + (ns + 1) * nn;
  PetscReal        Cs[6], adet, m;

  DMAsmHOSimplexGeometry(dim, e, n, alpha, D, xe, Cs, &adet);
  m = beta * adet;
  if (ke)
    for (int a = 0; a < nen; a++)
      for (int b = a; b < nen; b++) { /* the upper triangle, mirrored: ke is exactly symmetric */
        const int       ab = a * nen + b;
        const PetscReal k  = DMAsmHOSimplexEntry(ns, nn, ab, Cs, m, ref);
        ke[(PetscCount)ab * n + e] = k;
        if (b != a) ke[(PetscCount)(b * nen + a) * n + e] = k;
      }
  if (fe)
    for (int a = 0; a < nen; a++) {
      PetscScalar f = 0;
      for (int b = 0; b < nen; b++) {
        const int ab = a < b ? a * nen + b : b * nen + a; /* the same (upper) entry as the Jacobian */
        f += DMAsmHOSimplexEntry(ns, nn, ab, Cs, m, ref) * ue[(PetscCount)b * n + e];
      }
      fe[(PetscCount)a * n + e] = f - source * adet * B[a];
    }
}

/* Q1 tensor cell (quadrilateral, hexahedron) by quadrature: J, J^-1, |det J| and the physical gradients at every
   point; the element matrix accumulates in registers (nen <= DMASM_HO_TENSOR_MAXNEN) */
static DMASM_HD inline void DMAsmHOTensorElement(int dim, int nen, int nq, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *__restrict__ ref, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const PetscReal *w = ref, *Bq = ref + nq, *Gq = Bq + nq * nen;
  PetscReal        xl[DMASM_HO_TENSOR_MAXNEN][3], kl[DMASM_HO_TENSOR_MAXNEN * DMASM_HO_TENSOR_MAXNEN], bl[DMASM_HO_TENSOR_MAXNEN];

  for (int a = 0; a < nen; a++) {
    bl[a] = 0;
    for (int d = 0; d < dim; d++) xl[a][d] = xe[(PetscCount)(a * dim + d) * n + e];
    for (int b = 0; b < nen; b++) kl[a * nen + b] = 0;
  }
  for (int q = 0; q < nq; q++) {
    PetscReal J[3][3], Ji[3][3], det, wd, g[DMASM_HO_TENSOR_MAXNEN][3], Dg[3];
    for (int k = 0; k < dim; k++)
      for (int i = 0; i < dim; i++) {
        PetscReal s = 0;
        for (int a = 0; a < nen; a++) s += xl[a][k] * Gq[(q * nen + a) * dim + i];
        J[k][i] = s; /* d x_k / d xi_i */
      }
    DMAsmInverse(dim, J, Ji, &det);
    wd = w[q] * (det < 0 ? -det : det);
    for (int a = 0; a < nen; a++)
      for (int k = 0; k < dim; k++) {
        PetscReal s = 0;
        for (int i = 0; i < dim; i++) s += Ji[i][k] * Gq[(q * nen + a) * dim + i];
        g[a][k] = s;
      }
    for (int a = 0; a < nen; a++) {
      const PetscReal pa = Bq[q * nen + a];
      for (int k = 0; k < dim; k++) {
        PetscReal s = 0;
        for (int l = 0; l < dim; l++) s += (D ? D[k * dim + l] : (PetscReal)(k == l)) * g[a][l];
        Dg[k] = s;
      }
      bl[a] += wd * pa;
      for (int b = a; b < nen; b++) {
        PetscReal s = 0;
        for (int k = 0; k < dim; k++) s += Dg[k] * g[b][k];
        kl[a * nen + b] += wd * (alpha * s + beta * pa * Bq[q * nen + b]);
      }
    }
  }
  if (ke)
    for (int a = 0; a < nen; a++)
      for (int b = a; b < nen; b++) {
        ke[(PetscCount)(a * nen + b) * n + e] = kl[a * nen + b];
        if (b != a) ke[(PetscCount)(b * nen + a) * n + e] = kl[a * nen + b];
      }
  if (fe)
    for (int a = 0; a < nen; a++) {
      PetscScalar f = 0;
      for (int b = 0; b < nen; b++) f += kl[a < b ? a * nen + b : b * nen + a] * ue[(PetscCount)b * n + e];
      fe[(PetscCount)a * n + e] = f - source * bl[a];
    }
}

/* ---- fused element + scatter (atomic and color with the built-in kernels): no element data in memory ---------- */

static DMASM_HD inline void DMAsmHOAdd(PetscScalar *p, PetscScalar v, int atomic)
{
#if defined(__CUDA_ARCH__)
  if (atomic) atomicAdd(p, v);
  else *p += v;
#else
  (void)atomic;
  *p += v;
#endif
}

/* simplex element e entry by entry, each added to its target right away (e2t: entry-major [k][n], -1: nowhere) or,
   with store, written to store[k*n + e] (the colour tail); u: the global state read through edof (residual).  The
   same entries, in the same order and arithmetic, as DMAsmHOSimplexElement(). */
static DMASM_HD inline void DMAsmHOSimplexFused(int dim, int nen, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *__restrict__ ref, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, const PetscInt *e2t, int jac, int atomic, PetscScalar *dst, PetscScalar *store)
{
  const int        ns = dim * (dim + 1) / 2, nn = nen * nen;
  const PetscReal *B  = ref + (ns + 1) * nn;
  PetscReal        Cs[6], adet, m;

  DMAsmHOSimplexGeometry(dim, e, n, alpha, D, xe, Cs, &adet);
  m = beta * adet;
  if (jac)
    for (int a = 0; a < nen; a++)
      for (int b = a; b < nen; b++) {
        const int       ab = a * nen + b, ba = b * nen + a;
        const PetscReal k  = DMAsmHOSimplexEntry(ns, nn, ab, Cs, m, ref);
        if (store) {
          store[(PetscCount)ab * n + e] = k;
          if (b != a) store[(PetscCount)ba * n + e] = k;
        } else {
          const PetscInt t = e2t[(PetscCount)ab * n + e];
          if (t >= 0) DMAsmHOAdd(dst + t, k, atomic);
          if (b != a) {
            const PetscInt t2 = e2t[(PetscCount)ba * n + e];
            if (t2 >= 0) DMAsmHOAdd(dst + t2, k, atomic);
          }
        }
      }
  else
    for (int a = 0; a < nen; a++) {
      PetscScalar f = 0;
      for (int b = 0; b < nen; b++) {
        const int ab = a < b ? a * nen + b : b * nen + a;
        f += DMAsmHOSimplexEntry(ns, nn, ab, Cs, m, ref) * u[edof[(PetscCount)b * n + e]];
      }
      f = f - source * adet * B[a];
      if (store) store[(PetscCount)a * n + e] = f;
      else {
        const PetscInt t = e2t[(PetscCount)a * n + e];
        if (t >= 0) DMAsmHOAdd(dst + t, f, atomic);
      }
    }
}

/* Q1 element e in registers (DMAsmHOTensorElement on local copies: the same arithmetic), then scattered or stored */
static DMASM_HD inline void DMAsmHOTensorFused(int dim, int nen, int nq, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *__restrict__ ref, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, const PetscInt *e2t, int jac, int atomic, PetscScalar *dst, PetscScalar *store)
{
  PetscReal   xl[DMASM_HO_TENSOR_MAXNEN * 3];
  PetscScalar ul[DMASM_HO_TENSOR_MAXNEN], vl[DMASM_HO_TENSOR_MAXNEN * DMASM_HO_TENSOR_MAXNEN];
  const int   nper = jac ? nen * nen : nen;

  for (int q = 0; q < nen * dim; q++) xl[q] = xe[(PetscCount)q * n + e];
  if (!jac)
    for (int a = 0; a < nen; a++) ul[a] = u[edof[(PetscCount)a * n + e]];
  DMAsmHOTensorElement(dim, nen, nq, 0, 1, alpha, beta, source, D, ref, xl, ul, jac ? vl : NULL, jac ? NULL : vl);
  for (int k = 0; k < nper; k++) {
    if (store) store[(PetscCount)k * n + e] = vl[k];
    else {
      const PetscInt t = e2t[(PetscCount)k * n + e];
      if (t >= 0) DMAsmHOAdd(dst + t, vl[k], atomic);
    }
  }
}

/* localnz: source entry k of element e (jac: k = a*nen + b of the element matrix; else k = a of the element vector,
   with the state u read through edof), recomputed from the element's inputs in the arithmetic of
   DMAsmHOSimplexElement / DMAsmHOTensorElement: the value globalnz reads from its element data */
static DMASM_HD inline PetscScalar DMAsmHOLocalEntry(int tensor, int dim, int nen, int nq, int k, int jac, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *__restrict__ ref, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof)
{
  if (tensor) { /* the whole element on local copies (as DMAsmHOTensorFused), then its entry k */
    PetscReal   xl[DMASM_HO_TENSOR_MAXNEN * 3];
    PetscScalar ul[DMASM_HO_TENSOR_MAXNEN], vl[DMASM_HO_TENSOR_MAXNEN * DMASM_HO_TENSOR_MAXNEN];

    for (int q = 0; q < nen * dim; q++) xl[q] = xe[(PetscCount)q * n + e];
    if (!jac)
      for (int a = 0; a < nen; a++) ul[a] = u[edof[(PetscCount)a * n + e]];
    DMAsmHOTensorElement(dim, nen, nq, 0, 1, alpha, beta, source, D, ref, xl, ul, jac ? vl : NULL, jac ? NULL : vl);
    return vl[k];
  } else {
    const int ns = dim * (dim + 1) / 2, nn = nen * nen;
    PetscReal Cs[6], adet, m;

    DMAsmHOSimplexGeometry(dim, e, n, alpha, D, xe, Cs, &adet);
    m = beta * adet;
    if (jac) {
      const int a = k / nen, b = k % nen;
      return DMAsmHOSimplexEntry(ns, nn, a < b ? a * nen + b : b * nen + a, Cs, m, ref); /* the upper entry, as the element */
    } else {
      const PetscReal *B = ref + (ns + 1) * nn;
      PetscScalar      f = 0;
      for (int b = 0; b < nen; b++) f += DMAsmHOSimplexEntry(ns, nn, k < b ? k * nen + b : b * nen + k, Cs, m, ref) * u[edof[(PetscCount)b * n + e]];
      return f - source * adet * B[k];
    }
  }
}
