/* Element numerical integration for first-order elements (Banas, Kruzel, Bielanski, "Finite element numerical
   integration for first order approximations on multi-core architectures"): the loop bodies of the QSS, SQS and SSQ
   variants (Algorithms 2-7), for P1 tetrahedra (geo_linear: the Jacobian terms once per element) and P1 prisms
   (geo_generic: the Jacobian terms at every integration point, recomputed as the loop order dictates), scalar
   problems "Poisson" (Laplacian, a source value per integration point) and "conv-diff" (the full coefficient set
   c[4][4], d[4], constant per element).

   This header is compiled by BOTH the C compiler (the OpenMP host back end, dmasmintegrate.c) and nvcc (the CUDA
   back end, dmasmintegratecuda.cu): one source of the loop bodies, two back ends.  Every argument that selects a
   code path (element, problem, variant) is a literal at the call sites, so both compilers specialise and fully
   unroll the loops.

   Data layout (the assembler's element-buffer contract, DMAssemblyElementKernels, entry-major = coalesced):
     xe[(a*3+d)*nelem + e]            vertex a, coordinate d (closure order)
     coef[k*cstride + e]              coefficient k of element e (Poisson: k < NQ, the source at point k;
                                      conv-diff: k = i*4+j < 16 the c^{i;j}, 16+i the d^i; index 0 = value, 1..3 = x,y,z)
     ke[(a*NS+b)*nelem + e]           element matrix, row-major (a test, b trial)
     fe[a*nelem + e]                  the load vector b^e (mode AB) or the residual A^e u^e - b^e (mode RES)
   Scratch arrays (the paper's placement choices): cf (coefficients), ph (the 4 x NS values and global derivatives of
   the shape functions at one point), ae (A^e and b^e accumulators) are addressed with a stride: stride 1 in a
   thread's registers (host, device placement "reg"), stride blockDim in shared memory (device placement of that
   array, consecutive threads in consecutive words: no bank conflicts). */
#pragma once

#include <petscsys.h>
#include <math.h>

/* The arithmetic type of the loop bodies: on the device a double (one thread = one element); on the host a GCC/Clang
   vector of DMASM_IG_LANES doubles, so one host thread integrates DMASM_IG_LANES consecutive elements in SIMD lanes (the
   paper's SIMD group on CPU cores) with the same source: loads/stores of consecutive elements are vector loads/stores
   of the entry-major arrays, reference data are scalars broadcast by the compiler. */
#if defined(__CUDACC__) || defined(DMASM_IG_SCALAR) /* DMASM_IG_SCALAR: the host with one element per call */
  #if defined(__CUDACC__)
    #define DMASM_IG_FN     static __device__ __forceinline__
    #define DMASM_IG_UNROLL _Pragma("unroll")
  #else
    #define DMASM_IG_FN static inline __attribute__((always_inline))
    #if defined(DMASM_IG_HOST_UNROLL)
      #define DMASM_IG_UNROLL _Pragma("GCC unroll 16")
    #else
      #define DMASM_IG_UNROLL
    #endif
  #endif
  #define DMASM_IG_LANES     1
typedef PetscReal DMAsmIGV;
  #define DMASM_IG_ZERO      ((PetscReal)0)
  #define DMASM_IG_LD(p)     (*(p))
  #define DMASM_IG_ST(p, v)  (*(p) = (v))
  #define DMASM_IG_ABS(x)    fabs(x)
  #define DMASM_IG_SPLAT(x)  (x)
#else
  #define DMASM_IG_FN     static inline __attribute__((always_inline))
  #if defined(DMASM_IG_HOST_UNROLL)
    #define DMASM_IG_UNROLL _Pragma("GCC unroll 16")
  #else
    #define DMASM_IG_UNROLL /* the host compiler decides (forcing full unrolling of every instance made the file take ten minutes to compile) */
  #endif
  #if !defined(DMASM_IG_LANES)
    #define DMASM_IG_LANES 4 /* the host back end sets it per instruction set (dmasmintegratehost.c: 8 with AVX-512, 4 with AVX2) */
  #endif
  #pragma GCC diagnostic ignored "-Wpsabi" /* vectors wider than the ISA's: only in always-inline static functions, no ABI crossed */
typedef double    DMAsmIGV __attribute__((vector_size(8 * DMASM_IG_LANES)));
typedef long long DMAsmIGI __attribute__((vector_size(8 * DMASM_IG_LANES)));
  #define DMASM_IG_ZERO ((DMAsmIGV){0})
DMASM_IG_FN DMAsmIGV DMAsmIGLoadV(const double *p)
{
  DMAsmIGV v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
DMASM_IG_FN void DMAsmIGStoreV(double *p, DMAsmIGV v)
{
  __builtin_memcpy(p, &v, sizeof(v));
}
  #define DMASM_IG_SPLAT(x) ((x) + DMASM_IG_ZERO)
  #define DMASM_IG_LD(p)    DMAsmIGLoadV(p)
  #if defined(DMASM_IG_STREAM) /* the host back end's streaming store of one vector (an aligned intrinsic of its ISA) */
    #define DMASM_IG_ST(p, v) \
      do { \
        if (st) DMASM_IG_STREAM(p, v); \
        else DMAsmIGStoreV(p, v); \
      } while (0)
  #else
    #define DMASM_IG_ST(p, v) DMAsmIGStoreV(p, v)
  #endif
  #define DMASM_IG_ABS(x)   ((DMAsmIGV)((DMAsmIGI)(x) & 0x7fffffffffffffffLL)) /* the scalar mask is broadcast to every lane */
#endif

#define DMASM_IG_MAXS 6
#define DMASM_IG_MAXQ 6
#define DMASM_IG_NCDR 20
#define DMASM_IG_CHUNK_WORDS (3 * DMASM_IG_MAXS + DMASM_IG_NCDR + DMASM_IG_MAXS + DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS) /* a chunk buffer's words per element (host) */

enum {
  DMASM_IG_TET   = 0,
  DMASM_IG_PRISM = 1
};
enum {
  DMASM_IG_POISSON = 0,
  DMASM_IG_CDR     = 1
};
enum {
  DMASM_IG_QSS = 0,
  DMASM_IG_SQS = 1,
  DMASM_IG_SSQ = 2
};
enum {
  DMASM_IG_PLACE_REG  = 0,
  DMASM_IG_PLACE_COEF = 1,
  DMASM_IG_PLACE_PHI  = 2,
  DMASM_IG_PLACE_AE   = 3,
  DMASM_IG_PLACE_R128 = 4, /* registers, at most 128 per thread (device) */
  DMASM_IG_PLACE_R64  = 5  /* registers, at most 64 per thread (device) */
};
#define DMASM_IG_NPLACE 6
enum {
  DMASM_IG_MODE_AB  = 0, /* A^e -> ke, b^e -> fe (the paper's output) */
  DMASM_IG_MODE_JAC = 1, /* A^e -> ke */
  DMASM_IG_MODE_RES = 2, /* A^e u^e - b^e -> fe */
  /* or'ed to a mode by the host back end: the stores of ke/fe bypass the caches (non-temporal; only where every store is
     a whole aligned vector); ignored where DMASM_IG_STREAM is not defined (the device, the scalar host instances) */
  DMASM_IG_MODE_STREAM = 4
};

/* reference data: weights, shape function values and reference derivatives at the integration points
   (tabulated once on the host from the DM's PetscFE) */
typedef struct {
  PetscReal w[DMASM_IG_MAXQ];
  PetscReal phi[DMASM_IG_MAXQ][DMASM_IG_MAXS];
  PetscReal dphi[DMASM_IG_MAXQ][DMASM_IG_MAXS][3];
} DMAsmIntegRef;

/* the adjugate adj(J) = det(J) J^{-1} of a 3x3 J (row-major) -> adj[k*3+d]; returns det(J) (signed).  One copy for
   DMAsmIGAdjugate and the host prism bodies' IGPrismAdjugate, which build J differently */
DMASM_IG_FN DMAsmIGV DMAsmIGAdjugateOf(const DMAsmIGV *J, DMAsmIGV *adj)
{
  adj[0] = J[4] * J[8] - J[5] * J[7];
  adj[1] = J[2] * J[7] - J[1] * J[8];
  adj[2] = J[1] * J[5] - J[2] * J[4];
  adj[3] = J[5] * J[6] - J[3] * J[8];
  adj[4] = J[0] * J[8] - J[2] * J[6];
  adj[5] = J[2] * J[3] - J[0] * J[5];
  adj[6] = J[3] * J[7] - J[4] * J[6];
  adj[7] = J[1] * J[6] - J[0] * J[7];
  adj[8] = J[0] * J[4] - J[1] * J[3];
  return J[0] * adj[0] + J[1] * adj[3] + J[2] * adj[6];
}

/* J = dx/dxi at point q and its adjugate adj(J) = det(J) J^{-1} -> adj[k*3+d]; returns det(J) (signed) */
DMASM_IG_FN DMAsmIGV DMAsmIGAdjugate(const DMAsmIntegRef *R, const int NS, const int q, const DMAsmIGV *xl, DMAsmIGV *adj)
{
  DMAsmIGV J[9];

  DMASM_IG_UNROLL
  for (int i = 0; i < 9; i++) J[i] = DMASM_IG_ZERO;
  DMASM_IG_UNROLL
  for (int a = 0; a < NS; a++) {
    DMASM_IG_UNROLL
    for (int d = 0; d < 3; d++) {
      DMASM_IG_UNROLL
      for (int k = 0; k < 3; k++) J[d * 3 + k] += xl[a * 3 + d] * R->dphi[q][a][k];
    }
  }
  return DMAsmIGAdjugateOf(J, adj);
}

/* Jacobian terms at point q: dxi_k/dx_d -> iJ[k*3+d]; returns |det dx/dxi| */
DMASM_IG_FN DMAsmIGV DMAsmIGJacobian(const DMAsmIntegRef *R, const int NS, const int q, const DMAsmIGV *xl, DMAsmIGV *iJ)
{
  const DMAsmIGV det = DMAsmIGAdjugate(R, NS, q, xl, iJ), idet = 1.0 / det;

  DMASM_IG_UNROLL
  for (int i = 0; i < 9; i++) iJ[i] *= idet;
  return DMASM_IG_ABS(det);
}

/* global derivatives of shape function a at point q -> ph rows 1..3 */
DMASM_IG_FN void DMAsmIGDeriv(const DMAsmIntegRef *R, const int NS, const int q, const int a, const DMAsmIGV *iJ, DMAsmIGV *ph, const int ps)
{
  DMASM_IG_UNROLL
  for (int d = 0; d < 3; d++) ph[((1 + d) * NS + a) * ps] = R->dphi[q][a][0] * iJ[0 * 3 + d] + R->dphi[q][a][1] * iJ[1 * 3 + d] + R->dphi[q][a][2] * iJ[2 * 3 + d];
}

/* sum_{i,j} c^{i;j} phi_i^a phi_j^b (Poisson: c = the identity on the gradients) */
DMASM_IG_FN DMAsmIGV DMAsmIGEntry(const int PROB, const int NS, const DMAsmIGV *cf, const int cs, const DMAsmIGV *ph, const int ps, const int a, const int b)
{
  if (PROB == DMASM_IG_POISSON) return ph[(NS + a) * ps] * ph[(NS + b) * ps] + ph[(2 * NS + a) * ps] * ph[(2 * NS + b) * ps] + ph[(3 * NS + a) * ps] * ph[(3 * NS + b) * ps];
  DMAsmIGV s = DMASM_IG_ZERO;
  DMASM_IG_UNROLL
  for (int i = 0; i < 4; i++) {
    DMAsmIGV t = DMASM_IG_ZERO;
    DMASM_IG_UNROLL
    for (int j = 0; j < 4; j++) t += cf[(i * 4 + j) * cs] * ph[(j * NS + b) * ps];
    s += ph[(i * NS + a) * ps] * t;
  }
  return s;
}

/* conv-diff, the test side of row a factored out once for the row: s_j = sum_i phi_i^a c^{i;j}; then entry (a, b) is
   sum_j s_j phi_j^b (4 multiply-adds instead of 20: the operation count of the paper's QSS/SQS estimates; DMAsmIGRowAcc) */
DMASM_IG_FN void DMAsmIGRowFactor(const int NS, const DMAsmIGV *cf, const int cs, const DMAsmIGV *ph, const int ps, const int a, DMAsmIGV *sj)
{
  DMASM_IG_UNROLL
  for (int j = 0; j < 4; j++) sj[j] = ph[a * ps] * cf[j * cs] + ph[(NS + a) * ps] * cf[(4 + j) * cs] + ph[(2 * NS + a) * ps] * cf[(8 + j) * cs] + ph[(3 * NS + a) * ps] * cf[(12 + j) * cs];
}


/* acc + (vol grad phi_a) . grad phi_b, the volume folded into the test side once per row (g = vol grad phi_a): the
   sum is written left to right from acc so that a compiler with FMA makes it 3 fused multiply-adds per entry */
DMASM_IG_FN DMAsmIGV DMAsmIGGradAcc(const int NS, const DMAsmIGV *g, const DMAsmIGV *ph, const int ps, const int b, const DMAsmIGV acc)
{
  return acc + g[0] * ph[(NS + b) * ps] + g[1] * ph[(2 * NS + b) * ps] + g[2] * ph[(3 * NS + b) * ps];
}

/* acc + sum_j s_j phi_j^b with s_j already scaled by the volume (4 fused multiply-adds per entry) */
DMASM_IG_FN DMAsmIGV DMAsmIGRowAcc(const int NS, const DMAsmIGV *sj, const DMAsmIGV *ph, const int ps, const int b, const DMAsmIGV acc)
{
  return acc + sj[0] * ph[b * ps] + sj[1] * ph[(NS + b) * ps] + sj[2] * ph[(2 * NS + b) * ps] + sj[3] * ph[(3 * NS + b) * ps];
}

/* sum_i d^i phi_i^a (Poisson: d^0 at point q) */
DMASM_IG_FN DMAsmIGV DMAsmIGLoad(const int PROB, const int NS, const int q, const DMAsmIGV *cf, const int cs, const DMAsmIGV *ph, const int ps, const int a)
{
  if (PROB == DMASM_IG_POISSON) return cf[q * cs] * ph[a * ps];
  return cf[16 * cs] * ph[a * ps] + cf[17 * cs] * ph[(NS + a) * ps] + cf[18 * cs] * ph[(2 * NS + a) * ps] + cf[19 * cs] * ph[(3 * NS + a) * ps];
}

/* One element e: read geometry and coefficients, integrate in the loop order VAR, store (mode). */
DMASM_IG_FN void DMAsmIGElement(const DMAsmIntegRef *R, const int ELEM, const int PROB, const int VAR, const int modest, const PetscInt e, const PetscInt nelem, const PetscReal *xe, const PetscReal *coef, const PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, DMAsmIGV *cf, const int cs, DMAsmIGV *ph, const int ps, DMAsmIGV *ae, const int as)
{
  const int NS = ELEM == DMASM_IG_TET ? 4 : 6, NQ = NS, NC = PROB == DMASM_IG_POISSON ? NQ : DMASM_IG_NCDR;
  const int LIN = ELEM == DMASM_IG_TET; /* geo_linear */
  const int mode = modest & 3, st = modest & DMASM_IG_MODE_STREAM; /* st: host streaming stores (dmasmintegratehost.c) */
  DMAsmIGV  xl[3 * DMASM_IG_MAXS], ul[DMASM_IG_MAXS], iJ[9], vol0 = DMASM_IG_ZERO;

  (void)st;
  DMASM_IG_UNROLL
  for (int k = 0; k < 3 * NS; k++) xl[k] = DMASM_IG_LD(xe + k * nelem + e);
  DMASM_IG_UNROLL
  for (int k = 0; k < NC; k++) cf[k * cs] = DMASM_IG_LD(coef + k * cstride + e);
  DMASM_IG_UNROLL
  for (int a = 0; a < NS; a++) ul[a] = mode == DMASM_IG_MODE_RES ? DMASM_IG_LD(ue + a * nelem + e) : DMASM_IG_ZERO;
  if (LIN) { /* geo_linear: Jacobian terms and global derivatives once (Algorithms 3, 5, 7) */
    vol0 = DMAsmIGJacobian(R, NS, 0, xl, iJ);
    DMASM_IG_UNROLL
    for (int a = 0; a < NS; a++) DMAsmIGDeriv(R, NS, 0, a, iJ, ph, ps);
  }
  if (VAR == DMASM_IG_QSS) { /* Algorithms 2/3: all of A^e and b^e accumulated over the points */
    DMASM_IG_UNROLL
    for (int k = 0; k < NS * NS + NS; k++) ae[k * as] = DMASM_IG_ZERO;
    DMASM_IG_UNROLL
    for (int q = 0; q < NQ; q++) {
      DMAsmIGV vol;
      if (LIN) vol = vol0 * R->w[q];
      else {
        vol = DMAsmIGJacobian(R, NS, q, xl, iJ) * R->w[q];
        DMASM_IG_UNROLL
        for (int a = 0; a < NS; a++) DMAsmIGDeriv(R, NS, q, a, iJ, ph, ps);
      }
      DMASM_IG_UNROLL
      for (int a = 0; a < NS; a++) ph[a * ps] = DMASM_IG_SPLAT(R->phi[q][a]);
      DMASM_IG_UNROLL
      for (int a = 0; a < NS; a++) {
        if (PROB == DMASM_IG_POISSON) { /* A^e is symmetric: the upper triangle (the paper's count), mirrored when stored */
          DMAsmIGV g[3];
          DMASM_IG_UNROLL
          for (int d = 0; d < 3; d++) g[d] = vol * ph[((1 + d) * NS + a) * ps];
          DMASM_IG_UNROLL
          for (int b = a; b < NS; b++) ae[(a * NS + b) * as] = DMAsmIGGradAcc(NS, g, ph, ps, b, ae[(a * NS + b) * as]);
        } else {
          DMAsmIGV sj[4];
          DMAsmIGRowFactor(NS, cf, cs, ph, ps, a, sj);
          DMASM_IG_UNROLL
          for (int j = 0; j < 4; j++) sj[j] *= vol;
          DMASM_IG_UNROLL
          for (int b = 0; b < NS; b++) ae[(a * NS + b) * as] = DMAsmIGRowAcc(NS, sj, ph, ps, b, ae[(a * NS + b) * as]);
        }
        ae[(NS * NS + a) * as] += vol * DMAsmIGLoad(PROB, NS, q, cf, cs, ph, ps, a);
      }
    }
    DMASM_IG_UNROLL
    for (int a = 0; a < NS; a++) {
      DMAsmIGV r = DMASM_IG_ZERO;
      DMASM_IG_UNROLL
      for (int b = 0; b < NS; b++) {
        const int k = PROB == DMASM_IG_POISSON && b < a ? b * NS + a : a * NS + b; /* Poisson: the mirror of the upper triangle */
        if (mode != DMASM_IG_MODE_RES) DMASM_IG_ST(ke + (a * NS + b) * nelem + e, ae[k * as]);
        else r += ae[k * as] * ul[b];
      }
      if (mode == DMASM_IG_MODE_AB) DMASM_IG_ST(fe + a * nelem + e, ae[(NS * NS + a) * as]);
      else if (mode == DMASM_IG_MODE_RES) DMASM_IG_ST(fe + a * nelem + e, r - ae[(NS * NS + a) * as]);
    }
  } else if (VAR == DMASM_IG_SQS) { /* Algorithms 4/5: one row of A^e at a time, the points inside */
    DMASM_IG_UNROLL
    for (int a = 0; a < NS; a++) {
      DMAsmIGV r = DMASM_IG_ZERO;
      DMASM_IG_UNROLL
      for (int k = 0; k <= NS; k++) ae[k * as] = DMASM_IG_ZERO;
      DMASM_IG_UNROLL
      for (int q = 0; q < NQ; q++) {
        DMAsmIGV vol;
        if (LIN) vol = vol0 * R->w[q];
        else {
          vol = DMAsmIGJacobian(R, NS, q, xl, iJ) * R->w[q];
          DMASM_IG_UNROLL
          for (int b = 0; b < NS; b++) DMAsmIGDeriv(R, NS, q, b, iJ, ph, ps);
        }
        DMASM_IG_UNROLL
        for (int b = 0; b < NS; b++) ph[b * ps] = DMASM_IG_SPLAT(R->phi[q][b]);
        if (PROB == DMASM_IG_POISSON) {
          DMAsmIGV g[3];
          DMASM_IG_UNROLL
          for (int d = 0; d < 3; d++) g[d] = vol * ph[((1 + d) * NS + a) * ps];
          DMASM_IG_UNROLL
          for (int b = 0; b < NS; b++) ae[b * as] = DMAsmIGGradAcc(NS, g, ph, ps, b, ae[b * as]);
        } else {
          DMAsmIGV sj[4];
          DMAsmIGRowFactor(NS, cf, cs, ph, ps, a, sj);
          DMASM_IG_UNROLL
          for (int j = 0; j < 4; j++) sj[j] *= vol;
          DMASM_IG_UNROLL
          for (int b = 0; b < NS; b++) ae[b * as] = DMAsmIGRowAcc(NS, sj, ph, ps, b, ae[b * as]);
        }
        ae[NS * as] += vol * DMAsmIGLoad(PROB, NS, q, cf, cs, ph, ps, a);
      }
      DMASM_IG_UNROLL
      for (int b = 0; b < NS; b++) {
        if (mode != DMASM_IG_MODE_RES) DMASM_IG_ST(ke + (a * NS + b) * nelem + e, ae[b * as]);
        else r += ae[b * as] * ul[b];
      }
      if (mode == DMASM_IG_MODE_AB) DMASM_IG_ST(fe + a * nelem + e, ae[NS * as]);
      else if (mode == DMASM_IG_MODE_RES) DMASM_IG_ST(fe + a * nelem + e, r - ae[NS * as]);
    }
  } else { /* Algorithms 6/7: one entry at a time, the points innermost (geo_generic: the Jacobian terms per entry) */
    DMASM_IG_UNROLL
    for (int a = 0; a < NS; a++) {
      DMAsmIGV r = DMASM_IG_ZERO;
      DMASM_IG_UNROLL
      for (int b = 0; b < NS; b++) {
        ae[0] = DMASM_IG_ZERO;
        ae[as] = DMASM_IG_ZERO;
        DMASM_IG_UNROLL
        for (int q = 0; q < NQ; q++) {
          DMAsmIGV vol;
          if (LIN) vol = vol0 * R->w[q];
          else {
            vol = DMAsmIGJacobian(R, NS, q, xl, iJ) * R->w[q];
            DMAsmIGDeriv(R, NS, q, a, iJ, ph, ps);
            if (b != a) DMAsmIGDeriv(R, NS, q, b, iJ, ph, ps);
          }
          ph[a * ps] = DMASM_IG_SPLAT(R->phi[q][a]);
          ph[b * ps] = DMASM_IG_SPLAT(R->phi[q][b]);
          ae[0] += vol * DMAsmIGEntry(PROB, NS, cf, cs, ph, ps, a, b);
          if (a == b) ae[as] += vol * DMAsmIGLoad(PROB, NS, q, cf, cs, ph, ps, a);
        }
        if (mode != DMASM_IG_MODE_RES) DMASM_IG_ST(ke + (a * NS + b) * nelem + e, ae[0]);
        else r += ae[0] * ul[b];
        if (a == b) {
          if (mode == DMASM_IG_MODE_AB) DMASM_IG_ST(fe + a * nelem + e, ae[as]);
          else if (mode == DMASM_IG_MODE_RES) r -= ae[as];
        }
      }
      if (mode == DMASM_IG_MODE_RES) DMASM_IG_ST(fe + a * nelem + e, r);
    }
  }
}

/* The paper's counts (Tables 3-4) per element: global memory accesses (8-byte words) and floating-point operations,
   [elem][prob] for the words, [var][elem][prob] for the operations. */
static const int DMAsmIGWords[2][2]   = {
  {36, 52},
  {66, 80}
};
static const int DMAsmIGFlops[3][2][2] = {
  {{290, 986}, {2700, 4806}  },
  {{290, 986}, {10416, 12492}},
  {{290, 1623}, {54876, 65232}}
};

#if !defined(__CUDACC__)
/* the host back end (src/dm/assembly/dmasmintegratehost.c), one copy per instruction set, chosen at run time by
   dmasmintegrate.c: Base (the library's flags; every CPU), AVX2 (-mavx2 -mfma), AVX512 (-mavx512f/dq/vl); the latter
   two exist where CMake compiled them (x86-64: ELLWARP_IG_HOST_AVX2, ELLWARP_IG_HOST_AVX512).
     Run:  integrates nelem elements (mode: DMASM_IG_MODE_*), stream: streaming stores where possible (returns 1 if used);
           chunk > 0: through per-thread buffers, chunk groups of lanes elements at a time (work: omp_get_max_threads() x
           DMASM_IG_CHUNK_WORDS x chunk x lanes doubles, 64-byte aligned), 0: directly
     FMA:  the roofline's FMA loop with the same flags (returns the flops done, all threads; sink keeps it alive)
     Copy: the roofline's copy y = x (stream: streaming stores; x, y 64-byte aligned, n a multiple of 8) */
  #define DMASM_IG_HOST_DECLARE(S) \
    PETSC_INTERN int    DMAsmIGHostRun##S(const DMAsmIntegRef *, int, int, int, int, int, int, double *, PetscInt, const PetscReal *, const PetscReal *, PetscInt, const PetscScalar *, PetscScalar *, PetscScalar *); \
    PETSC_INTERN double DMAsmIGHostFMA##S(int, double *); \
    PETSC_INTERN void   DMAsmIGHostCopy##S(PetscInt, const double *, double *, int)
DMASM_IG_HOST_DECLARE(Base);
  #if defined(ELLWARP_IG_HOST_AVX2)
DMASM_IG_HOST_DECLARE(AVX2);
  #endif
  #if defined(ELLWARP_IG_HOST_AVX512)
DMASM_IG_HOST_DECLARE(AVX512);
  #endif
#endif

#if defined(ELLWARP_HAVE_CUDA)
/* the CUDA back end (dmasmintegratecuda.cu): one launch of the instance (elem, prob, var, place) with block threads;
   the timed form runs it reps times and returns the fastest launch in ms (CUDA events) */
PETSC_INTERN PetscErrorCode DMAsmIGCUDAApply(const DMAsmIntegRef *, int, int, int, int, int, int, PetscInt, const PetscReal *, const PetscReal *, PetscInt, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmIGCUDARoofline(PetscInt, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode DMAsmIGCUDATime(const DMAsmIntegRef *, int, int, int, int, int, int, PetscInt, const PetscReal *, const PetscReal *, PetscInt, const PetscScalar *, PetscScalar *, PetscScalar *, int, PetscReal *);
#endif
