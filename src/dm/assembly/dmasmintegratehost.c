/* The host back end of the element integration (issue 20; dmasmintegrate.c is the object): C + OpenMP over elements,
   the loop bodies of include/petscellwarp/private/dmasmintegrate.h, plus the two kernels of the host roofline (an
   FMA loop and a copy) compiled with the SAME flags as the loop bodies, so that each timing is compared with what
   the instructions it runs can do.

   This file is compiled once per x86-64 vector instruction set, each copy with its own function names:
     - as itself (suffix Base): the flags of the rest of the library (no -march: x86-64 = SSE2, or any other
       architecture), one element per call (the header's scalar type: with SSE2 the 4-lane vectors of the
       header ran slower than scalar code on the 2-core build host, 76 vs 58 ns per tet);
     - from dmasmintegratehostavx2.c (suffix AVX2; -mavx2 -mfma): 4 consecutive elements in the lanes of one vector;
     - from dmasmintegratehostavx512.c (suffix AVX512; -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma): 8 elements.
   dmasmintegrate.c asks the CPU at run time (__builtin_cpu_supports) which of them it can run, so the one library
   runs on any x86-64 machine (CI) and uses the wide vectors of the host it is on (why: the element loop bodies are
   a few hundred to tens of thousands of multiply-adds per element on scalars; SIMD across elements is the only
   way to the flop rate of a modern core -- the paper's SIMD groups on CPU cores).

   The AVX-512 instance may store A^e, b^e with streaming (non-temporal) stores: each lane vector is a whole aligned
   64-byte cache line of an entry-major array when the arrays are aligned and nelem is a multiple of 8; then the
   stores do not read the lines first (no read-for-ownership: 20 of the 36 words of a Poisson tet are stores).
   Whether that pays depends on whether the consumer reads the element data from the cache (small batches) or
   memory (large ones): it is one of the searched choices (DMAssemblyIntegrationTune). */
#if !defined(DMASM_IG_HOST_ISA)
  #define DMASM_IG_HOST_ISA 0
#endif
#if DMASM_IG_HOST_ISA == 0
  #define DMASM_IG_SCALAR 1
  #define IG_FL 2 /* the FMA loop's vector: SSE2 (two doubles) is the x86-64 baseline */
  #define IG_NV 12
  #define IG_SFX(n) n##Base
#elif DMASM_IG_HOST_ISA == 1
  #define DMASM_IG_LANES 4 /* no streaming stores: a 32-byte vector is half a cache line, and the 20-42 output streams
                              of an element overflow the core's write-combining buffers (measured: 4x slower) */
  #define IG_FL          4
  #define IG_NV          12 /* 16 ymm registers: 12 accumulators, 2 constants */
  #define IG_SFX(n)      n##AVX2
#else
  #include <immintrin.h>
  #define DMASM_IG_LANES        8
  #define DMASM_IG_STREAM(p, v) _mm512_stream_pd(p, (__m512d)(v)) /* a whole 64-byte line */
  #define IG_FL                 8
  #define IG_NV                 16 /* 32 zmm registers; 2 FMA ports x 4 cycles latency need 8 */
  #define IG_SFX(n)             n##AVX512
#endif
#include <petscellwarp/private/dmasmintegrate.h>
#include <stdint.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

#if defined(DMASM_IG_STREAM)
  #define IG_FENCE() _mm_sfence() /* streaming stores are weakly ordered: visible before the region ends */
#else
  #define IG_FENCE()
#endif

/* QSS for the prism Poisson problem (geo_generic), host only: the same mathematics as the header's QSS body
   (DMAsmIGElement, which the CUDA back end keeps using unchanged), staged so that the work of one integration point is
   not live at the same time as all of A^e.  The header's body keeps xl (18 vectors), iJ (9), the point's derivatives
   (18) and the 27 accumulators of A^e (upper triangle) and b^e live over the point loop: more than the 32 vector
   registers of AVX-512, so the compiler spills and reloads inside the innermost statements.  Here (IGHostPrismPoissonQSS
   below, with the reference data's plan IGPrismPlan):
     0. the 7 distinct columns of the 6 points' Jacobians (IGPrismJacobianColumns: 126 multiply-adds, not 324);
     1. per point q: J from them, its adjugate adj(J) = det(J) J^{-1}, scaled by c_q = sqrt(w_q / |det J_q|), and
        g_a = c_q adj(J)^T grad_ref phi_a (= c_q det(J) grad phi_a) -> G[q][d][a] (L1, 18 vectors a point); then
        g_a . g_b = w_q |det J_q| grad phi_a . grad phi_b: ONE staged array for both sides (a symmetric product), so
        no division of the 9 adjugate entries by det, no scaling of a second copy; b^e accumulated in registers;
     2. the upper triangle of A^e as independent register accumulators over all points at once:
        A_ab = sum_q sum_d G[q][d][a] G[q][d][b]; a step loads the vectors of one (q, d) and does one fused
        multiply-add per entry.  The reference derivatives of a point sum to zero (a partition of unity; checked in
        the plan), so do the g_a and the rows of A^e: the 15 entries of rows and columns 0..4 accumulated (15 + 5
        registers), the last column as minus their row sums (without the zero sums: all 21, 21 + 6 = 27 of the 32 zmm
        registers; nothing spills either way); stored, the lower triangle from the same registers.
   The point loop and the (q, d) loop are NOT unrolled (IG_NOUNR): fully unrolled, the compiler interleaved the six
   points' work and the 18 steps and spilled (the previous body, AVX-512: 3611 instructions a group of 8 elements, 1424
   of them vmovapd -- 554 stores to and 487 loads from the stack); rolled, the live set of one iteration is what fits
   (now, AVX-512, a group: stage 0 7 x 41 instructions, stage 1 6 x 162, stage 2 18 x 23 (15 FMAs, 5 loads), about
   1800 in all).  The flops done are fewer than the paper counts for QSS (2700 per element; the roofline's bound stays
   the paper's count).  The conv-diff prism: IGHostPrismCDRQSS below (stage 0 the same). */
#define IG_UNR   _Pragma("GCC unroll 64")
#define IG_NOUNR _Pragma("GCC unroll 1")
/* 1 / sqrt(x) of a vector of positive x.  AVX-512: the 14-bit estimate (vrsqrt14pd) and two Newton steps
   y <- y (3/2 - x/2 y^2) (14 -> 28 -> 55 bits; 8 fused multiply-adds and multiplies on the FMA ports instead of a
   vsqrtpd and a vdivpd on the divider, which measured 8 % of the prism Poisson body on one build-host core); the
   other instances: the correctly rounded division of a square root */
#if DMASM_IG_HOST_ISA == 2
DMASM_IG_FN DMAsmIGV IGRsqrt(DMAsmIGV x)
{
  const DMAsmIGV h = 0.5 * x;
  DMAsmIGV       y = (DMAsmIGV)_mm512_rsqrt14_pd((__m512d)x);

  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  return y;
}
#elif DMASM_IG_HOST_ISA == 1
  #include <immintrin.h>
  #define IGRsqrt(x) (1.0 / (DMAsmIGV)_mm256_sqrt_pd((__m256d)(x)))
#else
  #include <math.h>
  #define IGRsqrt(x) (1.0 / sqrt(x))
#endif
/* The distinct columns of the Jacobians of the prism's integration points.  J_q[d][k] = sum_a x_a[d] dphi_q[a][k],
   and column k depends only on the reference derivatives dphi_q[.][k]: for PETSc's prism (a triangle times a segment,
   the points a triangle rule times a segment rule) d/dxi and d/deta of the shape functions depend only on the point's
   zeta, d/dzeta only on its (xi, eta) -- of the 18 columns of the 6 points, 7 are distinct (2 + 2 + 3).  Found from
   the tabulated values, not assumed (another rule or element only finds fewer duplicates): columns equal to
   rounding, within 4 units of rounding of the largest entry (PETSc's tabulation of PETSc's prism gives 11 bitwise
   distinct columns, 7 to rounding), are computed once.  Computed once per Apply (DMAsmIGHostRun); the body computes the nu distinct columns first (18 fused
   multiply-adds each: 126 instead of the 324 of all 18). */
typedef struct {
  int zs;        /* the reference derivatives of every point sum to zero over the shape functions (within 8 units of
                    rounding of the largest: a partition of unity, as every Lagrange element's) */
  int nu;        /* the distinct columns: (uq[u], uk[u]), u < nu */
  int uq[18], uk[18];
  int src[6][3]; /* the point whose column k point q uses */
} IGPrismPlan;

static void IG_SFX(IGPrismPlanBuild)(const DMAsmIntegRef *R, IGPrismPlan *pp)
{
  PetscReal mx = 0;

  for (int q = 0; q < 6; q++)
    for (int a = 0; a < 6; a++)
      for (int k = 0; k < 3; k++) mx = PetscMax(mx, PetscAbsReal(R->dphi[q][a][k]));
  pp->zs = 1;
  for (int q = 0; q < 6; q++)
    for (int k = 0; k < 3; k++) {
      PetscReal sum = 0;
      for (int a = 0; a < 6; a++) sum += R->dphi[q][a][k];
      pp->zs = pp->zs && PetscAbsReal(sum) <= 8 * PETSC_MACHINE_EPSILON * mx;
    }
  pp->nu = 0;
  for (int q = 0; q < 6; q++)
    for (int k = 0; k < 3; k++) {
      int s = q;
      for (int r = 0; r < q && s == q; r++) {
        int same = 1;
        for (int a = 0; a < 6; a++) same = same && PetscAbsReal(R->dphi[q][a][k] - R->dphi[r][a][k]) <= 4 * PETSC_MACHINE_EPSILON * mx;
        if (same) s = pp->src[r][k];
      }
      pp->src[q][k] = s;
      if (s == q) {
        pp->uq[pp->nu] = q;
        pp->uk[pp->nu] = k;
        pp->nu++;
      }
    }
}

/* stage 0 of the prism bodies: the distinct Jacobian columns, Jc[q][k][d] = J_q[d][k] */
DMASM_IG_FN void IGPrismJacobianColumns(const DMAsmIntegRef *R, const IGPrismPlan *pp, const DMAsmIGV *xl, DMAsmIGV Jc[6][3][3])
{
  IG_NOUNR
  for (int u = 0; u < pp->nu; u++) {
    const int q = pp->uq[u], k = pp->uk[u];
    DMAsmIGV  j[3] = {DMASM_IG_ZERO, DMASM_IG_ZERO, DMASM_IG_ZERO};
    IG_UNR
    for (int a = 0; a < 6; a++) {
      const PetscReal dk = R->dphi[q][a][k];
      IG_UNR
      for (int d = 0; d < 3; d++) j[d] += xl[a * 3 + d] * dk;
    }
    IG_UNR
    for (int d = 0; d < 3; d++) Jc[q][k][d] = j[d];
  }
}

/* J_q from the staged columns and its adjugate adj(J) = det(J) J^{-1} -> adj[k*3+d] (as the header's
   DMAsmIGAdjugate); returns det(J) (signed) */
DMASM_IG_FN DMAsmIGV IGPrismAdjugate(const IGPrismPlan *pp, DMAsmIGV Jc[6][3][3], const int q, DMAsmIGV *adj)
{
  DMAsmIGV J[9];

  IG_UNR
  for (int k = 0; k < 3; k++) {
    IG_UNR
    for (int d = 0; d < 3; d++) J[d * 3 + k] = Jc[pp->src[q][k]][k][d];
  }
  return DMAsmIGAdjugateOf(J, adj);
}

DMASM_IG_FN void IGHostPrismPoissonQSS(const DMAsmIntegRef *R, const IGPrismPlan *pp, const int modest, const PetscInt e, const PetscInt nelem, const PetscReal *xe, const PetscReal *coef, const PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  enum {
    NS = 6,
    NQ = 6
  };
  const int mode = modest & 3, st = modest & DMASM_IG_MODE_STREAM;
  DMAsmIGV  xl[3 * NS], Jc[NQ][3][3], G[NQ * 3][NS], bv[NS], acc[NS * (NS + 1) / 2];

  (void)st;
  IG_UNR
  for (int k = 0; k < 3 * NS; k++) xl[k] = DMASM_IG_LD(xe + k * nelem + e);
  IG_UNR
  for (int a = 0; a < NS; a++) bv[a] = DMASM_IG_ZERO;
  IGPrismJacobianColumns(R, pp, xl, Jc); /* stage 0 */
  IG_NOUNR
  for (int q = 0; q < NQ; q++) { /* stage 1 */
    DMAsmIGV adj[9], det, c, f;
    det = DMASM_IG_ABS(IGPrismAdjugate(pp, Jc, q, adj));
    c   = IGRsqrt(det * (1.0 / R->w[q]));                     /* sqrt(w_q / |det|): both sides carry det */
    f   = (det * R->w[q]) * DMASM_IG_LD(coef + q * cstride + e); /* vol_q times the source at q */
    IG_UNR
    for (int k = 0; k < 9; k++) adj[k] *= c;
    IG_UNR
    for (int a = 0; a < NS; a++) {
      const PetscReal *dp = R->dphi[q][a];
      if (a < NS - 1 || !pp->zs) { /* with zero row sums stage 2 does not read the last shape function's */
        IG_UNR
        for (int d = 0; d < 3; d++) G[q * 3 + d][a] = dp[0] * adj[d] + dp[1] * adj[3 + d] + dp[2] * adj[6 + d];
      }
      bv[a] += f * R->phi[q][a];
    }
  }
  IG_UNR
  for (int k = 0; k < NS * (NS + 1) / 2; k++) acc[k] = DMASM_IG_ZERO;
  if (pp->zs) { /* stage 2 with zero row sums: the 15 entries of rows and columns 0..4, 15 accumulators ... */
    DMAsmIGV A5[NS], full[NS * (NS + 1) / 2];
    int      k = 0, m = 0;
    IG_NOUNR
    for (int qd = 0; qd < NQ * 3; qd++) {
      DMAsmIGV g[NS - 1];
      int      l = 0;
      IG_UNR
      for (int a = 0; a < NS - 1; a++) g[a] = G[qd][a];
      IG_UNR
      for (int a = 0; a < NS - 1; a++) {
        IG_UNR
        for (int b = a; b < NS - 1; b++) acc[l++] += g[a] * g[b];
      }
    }
    /* ... and the last column from them: A_a5 = -sum_{b<5} A_ab, A_55 = -sum_{a<5} A_a5 */
    IG_UNR
    for (int a = 0; a < NS; a++) A5[a] = DMASM_IG_ZERO;
    IG_UNR
    for (int a = 0; a < NS - 1; a++) {
      IG_UNR
      for (int b = a; b < NS - 1; b++) {
        A5[a] -= acc[k];
        if (b != a) A5[b] -= acc[k];
        k++;
      }
    }
    IG_UNR
    for (int a = 0; a < NS - 1; a++) A5[NS - 1] -= A5[a];
    k = 0;
    IG_UNR
    for (int a = 0; a < NS; a++) {
      IG_UNR
      for (int b = a; b < NS; b++) full[m++] = b < NS - 1 ? acc[k++] : A5[a];
    }
    IG_UNR
    for (int i = 0; i < NS * (NS + 1) / 2; i++) acc[i] = full[i];
  } else { /* stage 2: the upper triangle, 21 accumulators */
    IG_NOUNR
    for (int qd = 0; qd < NQ * 3; qd++) {
      DMAsmIGV g[NS];
      int      l = 0;
      IG_UNR
      for (int a = 0; a < NS; a++) g[a] = G[qd][a];
      IG_UNR
      for (int a = 0; a < NS; a++) {
        IG_UNR
        for (int b = a; b < NS; b++) acc[l++] += g[a] * g[b];
      }
    }
  }
  IG_UNR
  for (int a = 0; a < NS; a++) { /* the output as the header's body writes it: A^e row-major, entry-major streams */
    DMAsmIGV r = DMASM_IG_ZERO;
    IG_UNR
    for (int b = 0; b < NS; b++) {
      const int      i = a <= b ? a : b, j = a <= b ? b : a;
      const DMAsmIGV v = acc[i * NS - i * (i - 1) / 2 + (j - i)]; /* upper-triangle index of (i, j), i <= j */
      if (mode != DMASM_IG_MODE_RES) DMASM_IG_ST(ke + (a * NS + b) * nelem + e, v);
      else r += v * DMASM_IG_LD(ue + b * nelem + e);
    }
    if (mode == DMASM_IG_MODE_AB) DMASM_IG_ST(fe + a * nelem + e, bv[a]);
    else if (mode == DMASM_IG_MODE_RES) DMASM_IG_ST(fe + a * nelem + e, r - bv[a]);
  }
}

/* QSS for the prism conv-diff problem, host only, staged the same way: the distinct Jacobian columns (stage 0, as
   above), then per point J, iJ and the global derivatives
   -> P[q][d][a] (L1), the volume -> vq[q], b^e in registers; then one row a of A^e at a time as 6 register
   accumulators over the points: the row's test side s_j = vol_q sum_i phi_i^a c^{i;j} (the header's DMAsmIGRowFactor)
   and 4 fused multiply-adds per entry (DMAsmIGRowAcc), the values phi read from the reference data.  (Precomputing the
   test sides of all rows and points into L1 as for Poisson measured slower: 200 vs 146 ns per element.) */
DMASM_IG_FN void IGHostPrismCDRQSS(const DMAsmIntegRef *R, const IGPrismPlan *pp, const int modest, const PetscInt e, const PetscInt nelem, const PetscReal *xe, const PetscReal *coef, const PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  enum {
    NS = 6,
    NQ = 6
  };
  const int mode = modest & 3, st = modest & DMASM_IG_MODE_STREAM;
  DMAsmIGV  xl[3 * NS], Jc[NQ][3][3], cf[DMASM_IG_NCDR], P[NQ][3][NS], vq[NQ], bv[NS];

  (void)st;
  IG_UNR
  for (int k = 0; k < 3 * NS; k++) xl[k] = DMASM_IG_LD(xe + k * nelem + e);
  IG_UNR
  for (int k = 0; k < DMASM_IG_NCDR; k++) cf[k] = DMASM_IG_LD(coef + k * cstride + e);
  IG_UNR
  for (int a = 0; a < NS; a++) bv[a] = DMASM_IG_ZERO;
  IGPrismJacobianColumns(R, pp, xl, Jc); /* stage 0 */
  IG_UNR
  for (int q = 0; q < NQ; q++) { /* stage 1 */
    DMAsmIGV iJ[9], vol, det, idet;
    det  = IGPrismAdjugate(pp, Jc, q, iJ);
    idet = 1.0 / det;
    IG_UNR
    for (int k = 0; k < 9; k++) iJ[k] *= idet; /* as the header's DMAsmIGJacobian */
    vol   = DMASM_IG_ABS(det) * R->w[q];
    vq[q] = vol;
    IG_UNR
    for (int a = 0; a < NS; a++) {
      const PetscReal *dp = R->dphi[q][a];
      DMAsmIGV         g[3];
      IG_UNR
      for (int d = 0; d < 3; d++) {
        g[d]       = dp[0] * iJ[d] + dp[1] * iJ[3 + d] + dp[2] * iJ[6 + d];
        P[q][d][a] = g[d];
      }
      bv[a] += vol * (cf[16] * R->phi[q][a] + cf[17] * g[0] + cf[18] * g[1] + cf[19] * g[2]);
    }
  }
  IG_UNR
  for (int a = 0; a < NS; a++) { /* stage 2: row a, 6 accumulators */
    DMAsmIGV acc[NS], r = DMASM_IG_ZERO;
    IG_UNR
    for (int b = 0; b < NS; b++) acc[b] = DMASM_IG_ZERO;
    IG_UNR
    for (int q = 0; q < NQ; q++) {
      DMAsmIGV sj[4];
      IG_UNR
      for (int j = 0; j < 4; j++) sj[j] = vq[q] * (R->phi[q][a] * cf[j] + P[q][0][a] * cf[4 + j] + P[q][1][a] * cf[8 + j] + P[q][2][a] * cf[12 + j]);
      IG_UNR
      for (int b = 0; b < NS; b++) acc[b] += sj[0] * R->phi[q][b] + sj[1] * P[q][0][b] + sj[2] * P[q][1][b] + sj[3] * P[q][2][b];
    }
    IG_UNR
    for (int b = 0; b < NS; b++) { /* the output as the header's body writes it */
      if (mode != DMASM_IG_MODE_RES) DMASM_IG_ST(ke + (a * NS + b) * nelem + e, acc[b]);
      else r += acc[b] * DMASM_IG_LD(ue + b * nelem + e);
    }
    if (mode == DMASM_IG_MODE_AB) DMASM_IG_ST(fe + a * nelem + e, bv[a]);
    else if (mode == DMASM_IG_MODE_RES) DMASM_IG_ST(fe + a * nelem + e, r - bv[a]);
  }
}

/* one element group: the prism QSS through the staged host bodies above (conv-diff: the vector instances only; in the
   scalar base instance the staged conv-diff body measured 2x slower than the header's in one interleaved run on the
   loaded build host, 1747 vs 870 ns per element, while the staged Poisson body was faster there, 467 vs 554), every
   other case through the header's */
#if defined(DMASM_IG_SCALAR)
  #define IG_STAGED_CDR 0
#else
  #define IG_STAGED_CDR 1
#endif
#define IG_ELEMENT(EL, PR, VA, MODEST, E, NE, XE, CO, CS, UE, KE, FE, CF, PH, AE) \
  do { \
    if ((EL) == DMASM_IG_PRISM && (PR) == DMASM_IG_POISSON && (VA) == DMASM_IG_QSS) IGHostPrismPoissonQSS(R, &pp, MODEST, E, NE, XE, CO, CS, UE, KE, FE); \
    else if (IG_STAGED_CDR && (EL) == DMASM_IG_PRISM && (VA) == DMASM_IG_QSS) IGHostPrismCDRQSS(R, &pp, MODEST, E, NE, XE, CO, CS, UE, KE, FE); \
    else DMAsmIGElement(R, EL, PR, VA, MODEST, E, NE, XE, CO, CS, UE, KE, FE, CF, 1, PH, 1, AE, 1); \
  } while (0)

/* The chunked element loop (chunk > 0, -dm_assembly_integration_host_chunk): each thread takes chunk groups of
   consecutive elements at a time, copies their input streams one after the other into its buffer (work: per thread
   DMASM_IG_CHUNK_WORDS x chunk x lanes doubles, L2-resident), runs the loop body on the buffer, and copies the output
   streams out one after the other (streaming stores where st).  Why: a prism body reads 24-38 and writes 42
   entry-major streams a group; 16 threads interleave about a thousand streams into memory, more than the L2 hardware
   prefetchers track (tens a core, each within one 4 KiB page: a stream crosses a page every 64 groups) and than
   the DRAM pages kept open, while a copy (the roofline) runs two a thread.  Chunked, each thread reads and writes one
   stream at a time for chunk x lanes x 8 bytes (2 KiB for 32 groups of 8), at the cost of one extra L1/L2 copy of
   the element's words. */
#if defined(_OPENMP)
  #define IG_THREAD() omp_get_thread_num()
#else
  #define IG_THREAD() 0
#endif
static inline void IGChunkIn(double *restrict t, const double *restrict s, PetscInt nk, PetscInt stride, PetscInt CE, PetscInt ce)
{
  for (PetscInt k = 0; k < nk; k++) __builtin_memcpy(t + k * CE, s + k * stride, sizeof(double) * (size_t)ce);
}
static inline void IGChunkOut(double *restrict d, const double *restrict t, PetscInt nk, PetscInt stride, PetscInt CE, PetscInt ce, int st)
{
#if defined(DMASM_IG_STREAM)
  if (st) { /* d + k * stride 64-byte aligned: CanStream checked the arrays, nelem and c0 are multiples of the lanes */
    for (PetscInt k = 0; k < nk; k++)
      for (PetscInt i = 0; i < ce; i += DMASM_IG_LANES) DMASM_IG_STREAM(d + k * stride + i, DMAsmIGLoadV(t + k * CE + i));
    return;
  }
#endif
  (void)st;
  for (PetscInt k = 0; k < nk; k++) __builtin_memcpy(d + k * stride, t + k * CE, sizeof(double) * (size_t)ce);
}

/* DMASM_IG_LANES consecutive elements per call; the last incomplete group through padded copies (the padding lanes
   repeat the group's first element: valid geometry, results dropped; regular stores) */
#define IG_HOST_LOOP(EL, PR, VA) \
  do { \
    const PetscInt W = DMASM_IG_LANES, ng = nelem / W, e0 = ng * W, NS = (EL) == DMASM_IG_TET ? 4 : 6, NC = (PR) == DMASM_IG_POISSON ? NS : DMASM_IG_NCDR; \
    if (chunk > 0) { /* staged through the thread's buffer, chunk groups at a time (IGChunkIn/IGChunkOut) */ \
      const PetscInt CE = (PetscInt)chunk * W, nch = (ng + chunk - 1) / chunk; \
      IG_OMP_PARALLEL \
      { \
        double *const xt = work + (size_t)IG_THREAD() * DMASM_IG_CHUNK_WORDS * CE, *const ct = xt + 3 * DMASM_IG_MAXS * CE; \
        double *const ut = ct + DMASM_IG_NCDR * CE, *const kt = ut + DMASM_IG_MAXS * CE, *const ft = kt + DMASM_IG_MAXS * DMASM_IG_MAXS * CE; \
        IG_OMP_FOR \
        for (PetscInt c = 0; c < nch; c++) { \
          const PetscInt c0 = c * CE, ce = PetscMin(CE, e0 - c0); \
          IGChunkIn(xt, xe + c0, 3 * NS, nelem, CE, ce); \
          IGChunkIn(ct, coef + c0, NC, cstride, CE, ce); \
          if (mode == DMASM_IG_MODE_RES) IGChunkIn(ut, ue + c0, NS, nelem, CE, ce); \
          for (PetscInt g = 0; g < ce / W; g++) { \
            DMAsmIGV cf[DMASM_IG_NCDR], ph[4 * DMASM_IG_MAXS], ae[DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS]; \
            IG_ELEMENT(EL, PR, VA, mode, g * W, CE, xt, ct, CE, ut, kt, ft, cf, ph, ae); \
          } \
          if (mode != DMASM_IG_MODE_RES) IGChunkOut(ke + c0, kt, NS * NS, nelem, CE, ce, st); \
          if (mode != DMASM_IG_MODE_JAC) IGChunkOut(fe + c0, ft, NS, nelem, CE, ce, st); \
        } \
        if (st) IG_FENCE(); \
      } \
    } else { \
      IG_OMP_PARALLEL \
      { \
        IG_OMP_FOR \
        for (PetscInt g = 0; g < ng; g++) { \
          DMAsmIGV cf[DMASM_IG_NCDR], ph[4 * DMASM_IG_MAXS], ae[DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS]; \
          IG_ELEMENT(EL, PR, VA, mode | st, g * W, nelem, xe, coef, cstride, ue, ke, fe, cf, ph, ae); \
        } \
        if (st) IG_FENCE(); \
      } \
    } \
    if (e0 < nelem) { \
      PetscReal   xt[3 * DMASM_IG_MAXS * DMASM_IG_LANES], ct[DMASM_IG_NCDR * DMASM_IG_LANES]; \
      PetscScalar ut[DMASM_IG_MAXS * DMASM_IG_LANES], kt[DMASM_IG_MAXS * DMASM_IG_MAXS * DMASM_IG_LANES], ft[DMASM_IG_MAXS * DMASM_IG_LANES]; \
      DMAsmIGV    cf[DMASM_IG_NCDR], ph[4 * DMASM_IG_MAXS], ae[DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS]; \
      for (PetscInt l = 0; l < W; l++) { \
        const PetscInt es = e0 + (e0 + l < nelem ? l : 0); \
        for (PetscInt k = 0; k < 3 * NS; k++) xt[k * W + l] = xe[k * nelem + es]; \
        for (PetscInt k = 0; k < NC; k++) ct[k * W + l] = coef[k * cstride + es]; \
        for (PetscInt k = 0; k < NS; k++) ut[k * W + l] = mode == DMASM_IG_MODE_RES ? ue[k * nelem + es] : 0; \
      } \
      IG_ELEMENT(EL, PR, VA, mode, 0, W, xt, ct, W, ut, kt, ft, cf, ph, ae); \
      for (PetscInt l = 0; e0 + l < nelem; l++) { \
        if (mode != DMASM_IG_MODE_RES) \
          for (PetscInt k = 0; k < NS * NS; k++) ke[k * nelem + e0 + l] = kt[k * W + l]; \
        if (mode != DMASM_IG_MODE_JAC) \
          for (PetscInt k = 0; k < NS; k++) fe[k * nelem + e0 + l] = ft[k * W + l]; \
      } \
    } \
  } while (0)
#if defined(_OPENMP)
  #define IG_OMP_PARALLEL _Pragma("omp parallel")
  #define IG_OMP_FOR      _Pragma("omp for schedule(static)")
#else
  #define IG_OMP_PARALLEL
  #define IG_OMP_FOR
#endif
#define IG_HOST_VAR(EL, PR) \
  do { \
    if (var == DMASM_IG_QSS) IG_HOST_LOOP(EL, PR, DMASM_IG_QSS); \
    else if (var == DMASM_IG_SQS) IG_HOST_LOOP(EL, PR, DMASM_IG_SQS); \
    else IG_HOST_LOOP(EL, PR, DMASM_IG_SSQ); \
  } while (0)

/* can every store of the SIMD groups be a whole aligned vector? (then streaming stores are possible) */
static int IG_SFX(CanStream)(PetscInt nelem, const PetscScalar *ke, const PetscScalar *fe)
{
#if defined(DMASM_IG_STREAM)
  const uintptr_t al = 8 * DMASM_IG_LANES;
  return nelem % DMASM_IG_LANES == 0 && (!ke || (uintptr_t)ke % al == 0) && (!fe || (uintptr_t)fe % al == 0);
#else
  (void)nelem;
  (void)ke;
  (void)fe;
  return 0;
#endif
}

/* integrates nelem elements; stream: streaming stores if possible (returns whether they were used) */
PETSC_INTERN int IG_SFX(DMAsmIGHostRun)(const DMAsmIntegRef *R, int elem, int prob, int var, int mode, int stream, int chunk, double *work, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const int   st = stream && IG_SFX(CanStream)(nelem, mode == DMASM_IG_MODE_RES ? NULL : ke, mode == DMASM_IG_MODE_JAC ? NULL : fe) ? DMASM_IG_MODE_STREAM : 0;
  IGPrismPlan pp = {0}; /* the prism bodies' plan of the reference data (once per call: 324 comparisons) */

  if (elem == DMASM_IG_PRISM) IG_SFX(IGPrismPlanBuild)(R, &pp);
  if (DMASM_IG_LANES == 1 || !work) chunk = 0; /* the scalar base instance: one element a call, nothing to gain */

  if (elem == DMASM_IG_TET) {
    if (prob == DMASM_IG_POISSON) IG_HOST_VAR(DMASM_IG_TET, DMASM_IG_POISSON);
    else IG_HOST_VAR(DMASM_IG_TET, DMASM_IG_CDR);
  } else {
    if (prob == DMASM_IG_POISSON) IG_HOST_VAR(DMASM_IG_PRISM, DMASM_IG_POISSON);
    else IG_HOST_VAR(DMASM_IG_PRISM, DMASM_IG_CDR);
  }
  return st ? 1 : 0;
}

/* the FMA loop of the roofline: per thread IG_NV independent chains of IG_FL-double vectors (enough to fill the FMA
   pipelines: latency x ports), the same flags as the loop bodies (with -mfma each step is one fused multiply-add);
   returns the floating-point operations done (2 per lane and step) over all threads */
PETSC_INTERN double IG_SFX(DMAsmIGHostFMA)(int iters, double *sink)
{
  typedef double IGFV __attribute__((vector_size(8 * IG_FL)));
  double s = 0, nt = 1;

#if defined(_OPENMP)
  nt = omp_get_max_threads();
  #pragma omp parallel reduction(+ : s)
#endif
  {
    IGFV acc[IG_NV], a = (IGFV){0} + 0.999999, b = (IGFV){0} + 1e-7;
    for (int j = 0; j < IG_NV; j++) acc[j] = (IGFV){0} + (double)j;
    for (int i = 0; i < iters; i++)
      for (int j = 0; j < IG_NV; j++) acc[j] = acc[j] * a + b;
    for (int j = 0; j < IG_NV; j++)
      for (int l = 0; l < IG_FL; l++) s += acc[j][l];
  }
  *sink += s;
  return 2.0 * IG_FL * IG_NV * (double)iters * nt;
}

/* the copy of the roofline, y = x over all threads (static schedule: the same placement as the element loop); with
   stream (x, y 64-byte aligned, n a multiple of 8) through streaming stores of this instruction set's vectors */
PETSC_INTERN void IG_SFX(DMAsmIGHostCopy)(PetscInt n, const double *x, double *y, int stream)
{
#if defined(DMASM_IG_STREAM)
  if (stream) {
    typedef double IGCV __attribute__((vector_size(8 * DMASM_IG_LANES)));
  #if defined(_OPENMP)
    #pragma omp parallel
  #endif
    {
  #if defined(_OPENMP)
    #pragma omp for schedule(static)
  #endif
      for (PetscInt i = 0; i < n / DMASM_IG_LANES; i++) {
        IGCV v;
        __builtin_memcpy(&v, x + i * DMASM_IG_LANES, sizeof(v));
        DMASM_IG_STREAM(y + i * DMASM_IG_LANES, v);
      }
      IG_FENCE();
    }
    return;
  }
#endif
  (void)stream;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt i = 0; i < n; i++) y[i] = x[i];
}
