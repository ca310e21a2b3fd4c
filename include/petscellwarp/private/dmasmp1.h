/* The built-in P1 simplex element (triangles and tetrahedra): anisotropic diffusion with a per-element
   conductivity tensor plus consistent mass.  One inline function compiled twice -- by the C compiler for
   the host callback and by nvcc for the device kernel -- so both paths run the same double-precision
   arithmetic (up to the compilers' contraction of a*b+c into FMAs).

   ke_ab = alpha |T| g_a . D g_b + beta |T| (1 + delta_ab) / ((d+1)(d+2)),  fe_a = sum_b ke_ab u_b - s |T|/(d+1)
   with g_a the (constant) gradient of the barycentric coordinate of node a. */
#pragma once

#include <petscsys.h>

#if defined(__CUDACC__)
  #define DMASM_HD __host__ __device__
#else
  #define DMASM_HD
#endif

/* J^{-1} of a 2x2 or 3x3 J (cofactors times one reciprocal of the determinant) and det J: the element geometry
   of every built-in kernel (P1 here, the Lagrange and Q1 kernels of dmasmho.h) */
static DMASM_HD inline void DMAsmInverse(int dim, PetscReal J[3][3], PetscReal Ji[3][3], PetscReal *detp)
{
  PetscReal det, idet;

  if (dim == 2) {
    det      = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    idet     = 1 / det; /* one division per element */
    Ji[0][0] = J[1][1] * idet;
    Ji[0][1] = -J[0][1] * idet;
    Ji[1][0] = -J[1][0] * idet;
    Ji[1][1] = J[0][0] * idet;
  } else {
    det      = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) + J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    idet     = 1 / det;
    Ji[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) * idet;
    Ji[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * idet;
    Ji[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * idet;
    Ji[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) * idet;
    Ji[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * idet;
    Ji[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * idet;
    Ji[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) * idet;
    Ji[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * idet;
    Ji[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * idet;
  }
  *detp = det;
}

/* geometry of a P1 simplex from J (column j: x_{j+1} - x_0): the barycentric gradients g_a (g_a for
   a >= 1 is row a-1 of J^{-1}; g_0 = -sum), the volume and the mass factor |T| / ((d+1)(d+2)); shared
   by the whole-element and the row form so both run the same arithmetic in the same order */
static DMASM_HD inline void DMAsmP1Geometry(int dim, PetscReal J[3][3], PetscReal g[4][3], PetscReal *volp, PetscReal *massp)
{
  const int nen = dim + 1;
  PetscReal Ji[3][3], det, vol, mass;

  DMAsmInverse(dim, J, Ji, &det);
  if (dim == 2) {
    vol  = (det < 0 ? -det : det) / 2;
    mass = vol / 12;
  } else {
    vol  = (det < 0 ? -det : det) / 6;
    mass = vol / 20;
  }
  for (int d = 0; d < dim; d++) {
    g[0][d] = 0;
    for (int a = 1; a < nen; a++) {
      g[a][d] = Ji[a - 1][d];
      g[0][d] -= Ji[a - 1][d];
    }
  }
  *volp  = vol;
  *massp = mass;
}

/* element e of a batch of n: xe [(a*dim+d)*n + e], D [(i*dim+j)*ldD + e] (NULL: identity), ue [a*n+e],
   ke [(a*nen+b)*n + e], fe [a*n + e]; ke or fe may be NULL */
static DMASM_HD inline void DMAsmP1Element(int dim, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, PetscInt ldD, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const int nen = dim + 1;
  PetscReal J[3][3], g[4][3], Dl[3][3], vol, mass;

  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) J[i][j] = xe[((j + 1) * dim + i) * n + e] - xe[(0 * dim + i) * n + e]; /* column j: x_{j+1} - x_0 */
  DMAsmP1Geometry(dim, J, g, &vol, &mass);
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) Dl[i][j] = D ? D[(i * dim + j) * ldD + e] : (PetscReal)(i == j);
  for (int a = 0; a < nen; a++) {
    PetscReal   Dg[3];
    PetscScalar f = 0;
    for (int i = 0; i < dim; i++) {
      Dg[i] = 0;
      for (int j = 0; j < dim; j++) Dg[i] += Dl[i][j] * g[a][j];
    }
    for (int b = 0; b < nen; b++) {
      PetscReal k = 0;
      for (int i = 0; i < dim; i++) k += g[b][i] * Dg[i];
      k = alpha * vol * k + beta * mass * (a == b ? 2 : 1);
      if (ke) ke[(a * nen + b) * n + e] = k;
      if (fe) f += k * ue[b * n + e];
    }
    if (fe) fe[a * n + e] = f - source * vol / nen;
  }
}

/* Row a of the same element (the localrow method: a thread per matrix row computes, for each element
   touching its row, only that element's row).  xl: [(b*dim+d)] of one element, Dl: [i*dim+j] (NULL:
   identity), ul: nodal values or NULL; kr[b] = ke_ab (if kr), *fr = fe_a (if fr).  The same arithmetic as
   DMAsmP1Element, in the same order. */
static DMASM_HD inline void DMAsmP1ElementRow(int dim, int a, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *Dl, const PetscReal *xl, const PetscScalar *ul, PetscScalar *kr, PetscScalar *fr)
{
  const int nen = dim + 1;
  PetscReal J[3][3], g[4][3], ga[3], Dg[3], vol, mass;
  PetscScalar f = 0;

  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) J[i][j] = xl[(j + 1) * dim + i] - xl[0 * dim + i];
  DMAsmP1Geometry(dim, J, g, &vol, &mass);
  for (int d = 0; d < dim; d++) { /* g_a without a dynamic register index */
    ga[d] = g[0][d];
    for (int b = 1; b < nen; b++)
      if (b == a) ga[d] = g[b][d];
  }
  for (int i = 0; i < dim; i++) {
    Dg[i] = 0;
    for (int j = 0; j < dim; j++) Dg[i] += (Dl ? Dl[i * dim + j] : (PetscReal)(i == j)) * ga[j];
  }
  for (int b = 0; b < nen; b++) {
    PetscReal k = 0;
    for (int i = 0; i < dim; i++) k += g[b][i] * Dg[i];
    k = alpha * vol * k + beta * mass * (a == b ? 2 : 1);
    if (kr) kr[b] = k;
    if (fr) f += k * ul[b];
  }
  if (fr) *fr = f - source * vol / nen;
}

/* One contribution of element e (of a batch of n, the entry-major arrays of DMAsmP1Element): entry (a, b) of its
   matrix, or with u (the state, indexed through edof) entry a of its residual.  The localnz method: a thread per
   target recomputes, for each (element, entry) of its list, just that entry, in registers (Cecka, Lew, Darve,
   4.2.2): no element data in memory, the element's geometry recomputed per contribution.  The arithmetic is
   DMAsmP1ElementRow's. */
static DMASM_HD inline PetscScalar DMAsmP1ElementEntry(int dim, int a, int b, PetscInt e, PetscInt n, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof)
{
  const int   nen = dim + 1;
  PetscReal   xl[12], Dl[9];
  PetscScalar ul[4], kr[4], fr = 0, k = 0;

  for (int c = 0; c < nen; c++)
    for (int d = 0; d < dim; d++) xl[c * dim + d] = xe[(c * dim + d) * n + e];
  if (D)
    for (int i = 0; i < dim * dim; i++) Dl[i] = D[i * n + e];
  if (u)
    for (int c = 0; c < nen; c++) ul[c] = u[edof[c * n + e]];
  DMAsmP1ElementRow(dim, a, alpha, beta, source, D ? Dl : NULL, xl, u ? ul : NULL, u ? NULL : kr, u ? &fr : NULL);
  if (u) return fr;
  for (int c = 0; c < nen; c++) /* kr[b] without a dynamic register index */
    if (c == b) k = kr[c];
  return k;
}
