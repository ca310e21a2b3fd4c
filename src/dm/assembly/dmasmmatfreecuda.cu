/* Device kernels of the matrix-free Q_p operators (dmasmmatfree.c); the host references are in dmasmmatfree.c and
   include/petscellwarp/private/dmasmmatfree.h, with the same layouts.

   Sum factorisation, 3-D: one element per (T x T) thread slice (T = max(n, q)), E = 128 / T^2 elements per block
   (threadIdx.z); thread (x, y) owns a column in z.  The x and y contractions go through shared memory
   (three T^3 buffers per element), the y results (3 z columns of n) stay in registers; the z contraction and the
   pointwise geometry product, point by point (qz loop not unrolled, the next point's factors loaded ahead), write
   the thread's own column of the shared buffers, and the transposed z contraction reads it back one component at
   a time (no barrier: no other thread reads that column); then y^T and x^T through shared memory: 6 block
   barriers per application.  Registers: <= 128 a thread for stored geometry (4 blocks an SM, MF_MINBLOCKS3),
   the recomputing instances separate (RECOMP template parameter, 3 blocks).  2-D: one thread per x column, the y
   direction in registers (stored and recomputed geometry separate instances as in 3-D).  n and q are template
   parameters (q = n or n + 1: p+1 or p+2 Gauss points per direction), so the register arrays are sized at compile
   time.
   Small n, q in 3-D (n, q <= 4: p <= 2, and p = 3 with q = p+1): SumFact3DSmall instead (see its comment): the
   basis a kernel argument (constant-bank FMA operands), each contraction in the thread layout that makes its basis
   index uniform or its data register-resident, z and z^T in registers, 3 barriers; at p = 2 about 4x fewer shared
   loads (PTX 191 -> 52; SumFact3D sat at one shared load an FMA there, a quarter of FP64 peak).
   Geometry: the factors stored per element and Gauss point (coalesced: [e][ng][nq]), or recomputed at each point
   from the element's corner coordinates in shared memory (-dm_assembly_matfree_geometry recompute: 24 doubles an
   element instead of 6 q^3): 2-D by DMAsmMFGeoMultilinear, the host reference's function; 3-D by the same sums
   regrouped per thread column (J's z column constant, its x and y columns linear in zeta), then DMAsmMFGeoFromJ as
   the host reference does.
   Element outputs: atomicAdd into y, or stored [nelem][nen] for the gather by node (one thread per dof, its
   contributions in element order: deterministic).

   Element matrices (the paper's variants): one thread per element, y_i = sum_j K_ij x[edof_j] with x read
   through the cache and K [nen*nen] (uniform mesh, shared by all threads) or [nen*nen][nelem] (coalesced);
   output by atomics, stored for the gather, or plain adds (one launch per colour; or unprotected: elmat_max). */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmmatfree.h>
#include <petscdevice_cuda.h>
#include <petscellwarp/private/ellwarpdevice.h>

#define MF_THREADS 128
/* 3-D sum factorisation: at least 4 blocks (16 warps) an SM, i.e. at most 128 registers a thread (ptxas: no spills) */
#define MF_MINBLOCKS3  4
/* recomputed geometry: 3 blocks (<= 168 registers: the J, adjugate and corners of a point on top) */
#define MF_MINBLOCKS3R 3

template <int N, int Q>
struct MFShape {
  static constexpr int T   = N > Q ? N : Q;
  static constexpr int E3  = (MF_THREADS / (T * T)) > 0 ? MF_THREADS / (T * T) : 1;
  static constexpr int E2  = (MF_THREADS / T) > 0 ? MF_THREADS / T : 1;
  static constexpr int NEN3 = N * N * N, NQ3 = Q * Q * Q, NEN2 = N * N, NQ2 = Q * Q;
};

/* The trilinear map's Jacobian along one thread column (xi, eta fixed; the corners X[8][3] in the reference order):
   J's z column is constant along it and its x and y columns are linear in zeta, J[:,0] = a0 + zeta b0,
   J[:,1] = a1 + zeta b1, J[:,2] = j2 -- DMAsmMFGeoMultilinear's sums regrouped, set up once per column so that a
   point costs 6 FMAs (MFColumnJ) before DMAsmMFGeoFromJ.  Shared by SumFact3D and SumFact3DSmall. */
struct MFColumnJac {
  PetscReal a0[3], b0[3], a1[3], b1[3], j2[3];
};

__device__ __forceinline__ void MFColumnJacSetUp(const PetscReal *X, PetscReal xi, PetscReal eta, MFColumnJac &C)
{
  #pragma unroll
  for (int i = 0; i < 3; i++) C.a0[i] = C.b0[i] = C.a1[i] = C.b1[i] = C.j2[i] = 0;
  #pragma unroll
  for (int v = 0; v < 8; v++) {
    const PetscReal sx = (v & 1) ? 1.0 : -1.0, sy = (v & 2) ? 1.0 : -1.0, sz = (v & 4) ? 1.0 : -1.0;
    #pragma unroll
    for (int i = 0; i < 3; i++) {
      if (!(v & 1)) { /* edge along x: weight 0.5 (1 + sy eta) 0.5 (1 + sz zeta), times 0.5 */
        const PetscReal c = 0.25 * (1.0 + sy * eta), d = X[(v + 1) * 3 + i] - X[v * 3 + i];
        C.a0[i] += 0.5 * c * d;
        C.b0[i] += 0.5 * sz * c * d;
      }
      if (!(v & 2)) { /* along y: 0.5 (1 + sx xi) 0.5 (1 + sz zeta) */
        const PetscReal c = 0.25 * (1.0 + sx * xi), d = X[(v + 2) * 3 + i] - X[v * 3 + i];
        C.a1[i] += 0.5 * c * d;
        C.b1[i] += 0.5 * sz * c * d;
      }
      if (!(v & 4)) /* along z: 0.5 (1 + sx xi) 0.5 (1 + sy eta) */
        C.j2[i] += 0.125 * (1.0 + sx * xi) * (1.0 + sy * eta) * (X[(v + 4) * 3 + i] - X[v * 3 + i]);
    }
  }
}

/* J at zeta on the column of C */
__device__ __forceinline__ void MFColumnJ(const MFColumnJac &C, PetscReal zeta, PetscReal J[3][3])
{
  #pragma unroll
  for (int i = 0; i < 3; i++) {
    J[i][0] = C.a0[i] + zeta * C.b0[i];
    J[i][1] = C.a1[i] + zeta * C.b1[i];
    J[i][2] = C.j2[i];
  }
}

/* RECOMP: geometry recomputed from the corners (xv) or stored (geo): separate instances, so the stored one does not
   carry the recomputation's registers */
template <int N, int Q, bool POISSON, bool RECOMP>
__global__ void __launch_bounds__(MFShape<N, Q>::T * MFShape<N, Q>::T * MFShape<N, Q>::E3, RECOMP ? MF_MINBLOCKS3R : MF_MINBLOCKS3) SumFact3D(PetscInt nelem, const PetscReal *__restrict__ gB, const PetscReal *__restrict__ gD, const PetscReal *__restrict__ geo, const PetscInt *__restrict__ edof, const PetscReal *__restrict__ xv, const PetscReal *__restrict__ gw, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ ye)
{
  constexpr int T = MFShape<N, Q>::T, E = MFShape<N, Q>::E3, T3 = T * T * T, NEN = MFShape<N, Q>::NEN3, NQ = MFShape<N, Q>::NQ3;
  __shared__ PetscReal   sB[Q * N], sD[Q * N];
  __shared__ PetscScalar s[E][3][T3];
  __shared__ PetscReal   sX[E][24], sG[2 * Q]; /* recompute: the corners, the 1-D Gauss points and weights */
  const int      tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const PetscInt e      = (PetscInt)blockIdx.x * E + tz;
  const bool     active = e < nelem;
  PetscScalar   *S0 = s[tz][0], *S1 = s[tz][1], *S2 = s[tz][2];
  PetscScalar    rB[N], rDy[N], rdB[N];

  for (int k = tx + T * (ty + T * tz); k < Q * N; k += T * T * E) {
    sB[k] = gB[k];
    sD[k] = gD[k];
  }
  if (RECOMP) {
    for (int k = tx + T * (ty + T * tz); k < 2 * Q; k += T * T * E) sG[k] = gw[k];
    if (active)
      for (int k = tx + T * ty; k < 24; k += T * T) sX[tz][k] = xv[e * 24 + k];
  }
  if (active && tx < N && ty < N)
    #pragma unroll
    for (int z = 0; z < N; z++) {
      const PetscInt d           = edof[e * NEN + tx + N * (ty + N * z)];
      S0[tx + T * (ty + T * z)] = d >= 0 ? x[d] : 0;
    }
  __syncthreads();
  /* x: (x, y, z) -> (qx, y, z), B and D */
  if (tx < Q && ty < N)
    #pragma unroll
    for (int z = 0; z < N; z++) {
      PetscScalar sb = 0, sd = 0;
      #pragma unroll
      for (int i = 0; i < N; i++) {
        const PetscScalar v = S0[i + T * (ty + T * z)];
        sb += sB[tx * N + i] * v;
        if (POISSON) sd += sD[tx * N + i] * v;
      }
      S1[tx + T * (ty + T * z)] = sb;
      if (POISSON) S2[tx + T * (ty + T * z)] = sd;
    }
  __syncthreads();
  /* y: (qx, y, z) -> (qx, qy, z) in registers: B B, D B (d/dy), B D (d/dx) */
  #pragma unroll
  for (int z = 0; z < N; z++) rB[z] = rDy[z] = rdB[z] = 0;
  if (tx < Q && ty < Q) {
    #pragma unroll
    for (int z = 0; z < N; z++)
      #pragma unroll
      for (int j = 0; j < N; j++) {
        const PetscScalar a = S1[tx + T * (j + T * z)];
        rB[z] += sB[ty * N + j] * a;
        if (POISSON) {
          rDy[z] += sD[ty * N + j] * a;
          rdB[z] += sB[ty * N + j] * S2[tx + T * (j + T * z)];
        }
      }
  }
  /* every thread of the element has read S1, S2 (y above): the buffers are free for the point values */
  __syncthreads();
  if (active && tx < Q && ty < Q) {
    /* z and the pointwise product, per point column: v at (qx, qy, qz) into S0, S1, S2 (the thread's own column).
       The qz loop is not unrolled (unrolled, the compiler keeps all of B, D and the geometry of the column in
       registers: 255 and spills); the next point's geometry factors are loaded one iteration ahead */
    const PetscReal *ge = RECOMP ? NULL : geo + (size_t)e * (POISSON ? 6 : 1) * NQ + tx + Q * ty;
    PetscReal        gn[6];
    /* recompute: the Jacobian along the thread's column set up once (MFColumnJacSetUp), per point MFColumnJ */
    MFColumnJac C;
    if (!RECOMP)
      #pragma unroll
      for (int c = 0; c < (POISSON ? 6 : 1); c++) gn[c] = ge[c * NQ];
    else MFColumnJacSetUp(sX[tz], sG[tx], sG[ty], C);
    #pragma unroll 1
    for (int qz = 0; qz < Q; qz++) {
      PetscScalar u[3] = {0, 0, 0}, v[3];
      PetscReal   gl[6];
      #pragma unroll
      for (int z = 0; z < N; z++) {
        if (POISSON) {
          u[0] += sB[qz * N + z] * rdB[z];
          u[1] += sB[qz * N + z] * rDy[z];
          u[2] += sD[qz * N + z] * rB[z];
        } else u[0] += sB[qz * N + z] * rB[z];
      }
      if (RECOMP) {
        PetscReal J[3][3];
        MFColumnJ(C, sG[qz], J);
        DMAsmMFGeoFromJ(3, POISSON, J, sG[Q + tx] * sG[Q + ty] * sG[Q + qz], gl);
      } else {
        #pragma unroll
        for (int c = 0; c < (POISSON ? 6 : 1); c++) gl[c] = gn[c];
        if (qz + 1 < Q)
          #pragma unroll
          for (int c = 0; c < (POISSON ? 6 : 1); c++) gn[c] = ge[c * NQ + Q * Q * (qz + 1)];
      }
      DMAsmMFPoint(3, POISSON, gl, 1, u, v);
      S0[tx + T * (ty + T * qz)] = v[0];
      if (POISSON) {
        S1[tx + T * (ty + T * qz)] = v[1];
        S2[tx + T * (ty + T * qz)] = v[2];
      }
    }
    /* z^T on the same column, one component at a time: the column's Q values in registers, then its N outputs
       written over it; no barrier (no other thread reads this column before the next one) */
    #pragma unroll
    for (int c = 0; c < (POISSON ? 3 : 1); c++) {
      PetscScalar *Sc = c == 0 ? S0 : (c == 1 ? S1 : S2);
      PetscReal   *M  = c == 2 ? sD : sB;
      PetscScalar  col[Q];
      #pragma unroll
      for (int qz = 0; qz < Q; qz++) col[qz] = Sc[tx + T * (ty + T * qz)];
      #pragma unroll 1
      for (int z = 0; z < N; z++) {
        PetscScalar r = 0;
        #pragma unroll
        for (int qz = 0; qz < Q; qz++) r += M[qz * N + z] * col[qz];
        Sc[tx + T * (ty + T * z)] = r;
      }
    }
  } else if (tx < Q && ty < Q) {
    #pragma unroll
    for (int z = 0; z < N; z++) {
      S0[tx + T * (ty + T * z)] = 0;
      if (POISSON) {
        S1[tx + T * (ty + T * z)] = 0;
        S2[tx + T * (ty + T * z)] = 0;
      }
    }
  }
  __syncthreads();
  /* y^T: (qx, qy, z) -> (qx, y, z); rB: towards D^T in x (the d/dx part), rDy: towards B^T in x */
  if (tx < Q && ty < N)
    #pragma unroll
    for (int z = 0; z < N; z++) {
      PetscScalar pd = 0, pb = 0;
      #pragma unroll
      for (int j = 0; j < Q; j++) {
        if (POISSON) {
          pd += sB[j * N + ty] * S0[tx + T * (j + T * z)];
          pb += sD[j * N + ty] * S1[tx + T * (j + T * z)] + sB[j * N + ty] * S2[tx + T * (j + T * z)];
        } else pb += sB[j * N + ty] * S0[tx + T * (j + T * z)];
      }
      rB[z]  = pd;
      rDy[z] = pb;
    }
  __syncthreads();
  if (tx < Q && ty < N)
    #pragma unroll
    for (int z = 0; z < N; z++) {
      if (POISSON) S0[tx + T * (ty + T * z)] = rB[z];
      S1[tx + T * (ty + T * z)] = rDy[z];
    }
  __syncthreads();
  /* x^T and the output */
  if (active && tx < N && ty < N)
    #pragma unroll
    for (int z = 0; z < N; z++) {
      PetscScalar r = 0;
      #pragma unroll
      for (int i = 0; i < Q; i++) {
        if (POISSON) r += sD[i * N + tx] * S0[i + T * (ty + T * z)];
        r += sB[i * N + tx] * S1[i + T * (ty + T * z)];
      }
      const int li = tx + N * (ty + N * z);
      if (ye) ye[e * NEN + li] = r;
      else {
        const PetscInt d = edof[e * NEN + li];
        if (d >= 0) atomicAdd(&y[d], r);
      }
    }
}

/* 3-D sum factorisation for small n and q (MFSmall3: T = max(n, q) <= 4, i.e. p <= 2, and p = 3 with q = p+1).
   Why a second kernel: SumFact3D issues about one 64-bit shared load (LDS) per FP64 FMA at these sizes (p = 2,
   q = 4, PTX: 191 ld.shared, 222 fma); an SM's shared memory serves one wavefront (128 B) a clock while its FP64
   units retire 64 FMAs (two warp instructions) a clock, so that kernel is held near a quarter of FP64 peak.  Here
   (1) the 1-D B, D and the Gauss points and weights are a kernel argument (MFBasis3, 2 q (n+1) doubles: the constant
   bank), so every contraction whose basis index is the same for all threads (fully unrolled loops over the line
   that a thread owns) reads the basis as a constant operand of the FMA, no load at all; (2) every contraction is
   done by the thread layout that makes its basis index uniform or keeps the data in registers: x by one thread
   per (y, z) line, its n inputs gathered straight from x into registers (no shared round trip); y as SumFact3D
   (thread (qx, qy), its B and D rows, 2n values, loaded once), whose results stay in registers for z, the pointwise
   product and z^T with the qz loop unrolled (the basis no longer costs registers) and the three z^T columns
   accumulated in registers (no column written and read back); y^T by one thread per (qx, z) line and x^T by one
   thread per (y, z) line, each reading its line with 128-bit loads (rows padded to an even length R) and reusing
   each loaded value for all n outputs (and for B and D); (3) separate buffers for the forward (x -> y) and
   backward (z -> y^T, y^T -> x^T) data: 3 barriers instead of 6.  p = 2 Poisson, PTX: see the README.  Larger n, q
   keep SumFact3D unchanged (their registers would not hold the line arrays, and they meet the target). */
template <int N, int Q>
struct MFSmall3 {
  static constexpr bool value = N <= 4 && Q <= 4;
  /* 4 blocks an SM (<= 128 registers, ptxas: no spills) except p = 3 with recomputed geometry (128 capped: 16 B of
     spills; 3 blocks, as SumFact3D's instance) */
  static constexpr int minblocks(bool recomp) { return recomp && N * Q > 12 ? MF_MINBLOCKS3R : MF_MINBLOCKS3; }
};

template <int N, int Q>
struct MFBasis3 {
  PetscReal B[Q * N], D[Q * N], xg[Q], wg[Q]; /* B, D: q x n row-major, as mf->B, mf->D */
};

/* a line of L values from a 16-byte aligned row: L/2 128-bit loads (and one 64-bit load for odd L) */
template <int L>
__device__ __forceinline__ void MFLoadRow(const PetscScalar *__restrict__ p, PetscScalar *r)
{
  #pragma unroll
  for (int k = 0; k + 1 < L; k += 2) {
    const double2 v = *reinterpret_cast<const double2 *>(p + k);
    r[k]            = v.x;
    r[k + 1]        = v.y;
  }
  if (L % 2) r[L - 1] = p[L - 1];
}

template <int N, int Q, bool POISSON, bool RECOMP>
__global__ void __launch_bounds__(MFShape<N, Q>::T * MFShape<N, Q>::T * MFShape<N, Q>::E3, MFSmall3<N, Q>::minblocks(RECOMP)) SumFact3DSmall(const MFBasis3<N, Q> P, PetscInt nelem, const PetscReal *__restrict__ gB, const PetscReal *__restrict__ gD, const PetscReal *__restrict__ geo, const PetscInt *__restrict__ edof, const PetscReal *__restrict__ xv, const PetscReal *__restrict__ gw, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ ye)
{
  static_assert(sizeof(PetscScalar) == sizeof(double), "SumFact3DSmall: real double scalars (128-bit row loads)");
  constexpr int T = MFShape<N, Q>::T, E = MFShape<N, Q>::E3, NEN = MFShape<N, Q>::NEN3, NQ = MFShape<N, Q>::NQ3;
  constexpr int R = (T + 1) & ~1, TB = R * T * T; /* row length (even: 16-byte aligned rows), buffer size */
  /* buffers: F (x -> y: [z][qx][y], y fastest; reused by y^T -> x^T: [z][y][qx], qx fastest), 1 or 2 components;
     Z (z^T -> y^T: [z][qx][qy], qy fastest), 1 or 3 */
  constexpr int NF = POISSON ? 2 : 1, NZ = POISSON ? 3 : 1;
  __shared__ PetscReal                 sB[Q * N], sD[Q * N];
  __shared__ __align__(16) PetscScalar s[E][NF + NZ][TB];
  __shared__ __align__(16) PetscReal   sX[E][24];
  __shared__ PetscReal                 sG[2 * Q]; /* recompute: the corners (read with 128-bit loads), the 1-D Gauss points and weights */
  const int      tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z, l = tx + T * ty;
  const PetscInt e      = (PetscInt)blockIdx.x * E + tz;
  const bool     active = e < nelem;
  PetscScalar   *F0 = s[tz][0], *F1 = s[tz][NF - 1], *Z0 = s[tz][NF], *Z1 = s[tz][NF + (POISSON ? 1 : 0)], *Z2 = s[tz][NF + (POISSON ? 2 : 0)];
  PetscScalar    rB[N], rDy[N], rdB[N];

  for (int k = tx + T * (ty + T * tz); k < Q * N; k += T * T * E) {
    sB[k] = gB[k];
    sD[k] = gD[k];
  }
  if (RECOMP) {
    for (int k = tx + T * (ty + T * tz); k < 2 * Q; k += T * T * E) sG[k] = gw[k];
    if (active)
      for (int k = l; k < 24; k += T * T) sX[tz][k] = xv[e * 24 + k];
  }
  /* x: thread l < n^2 owns the line (y, z) = (l % n, l / n): its n values gathered into registers, the q values of
     B u and D u written to F0, F1 at [z][qx][y] */
  if (l < N * N) {
    const int   yy = l % N, zz = l / N;
    PetscScalar u[N];
    #pragma unroll
    for (int i = 0; i < N; i++) {
      const PetscInt d = active ? edof[e * NEN + N * l + i] : -1;
      u[i]             = d >= 0 ? x[d] : 0;
    }
    #pragma unroll
    for (int qx = 0; qx < Q; qx++) {
      PetscScalar sb = 0, sd = 0;
      #pragma unroll
      for (int i = 0; i < N; i++) {
        sb += P.B[qx * N + i] * u[i];
        if (POISSON) sd += P.D[qx * N + i] * u[i];
      }
      F0[yy + R * (qx + T * zz)] = sb;
      if (POISSON) F1[yy + R * (qx + T * zz)] = sd;
    }
  }
  __syncthreads();
  /* y: thread (qx, qy) = (tx, ty), its B and D rows in registers; the n values of F at (qx, z) one row each (the
     same address for all qy: a broadcast) */
  #pragma unroll
  for (int z = 0; z < N; z++) rB[z] = rDy[z] = rdB[z] = 0;
  if (tx < Q && ty < Q) {
    PetscReal bq[N], dq[N];
    #pragma unroll
    for (int j = 0; j < N; j++) {
      bq[j] = sB[ty * N + j];
      if (POISSON) dq[j] = sD[ty * N + j];
    }
    #pragma unroll
    for (int z = 0; z < N; z++) {
      PetscScalar a[N], b[N];
      MFLoadRow<N>(F0 + R * (tx + T * z), a);
      if (POISSON) MFLoadRow<N>(F1 + R * (tx + T * z), b);
      #pragma unroll
      for (int j = 0; j < N; j++) {
        rB[z] += bq[j] * a[j];
        if (POISSON) {
          rDy[z] += dq[j] * a[j];
          rdB[z] += bq[j] * b[j];
        }
      }
    }
  }
  /* z, the pointwise product and z^T in the thread's (qx, qy) column, qz unrolled, the basis from the constant bank;
     the z^T columns (w0, w1, w2) accumulate in registers and go to Z at [z][qx][qy].  Inactive elements: zeros */
  if (tx < Q && ty < Q) {
    PetscScalar w0[N], w1[N], w2[N];
    #pragma unroll
    for (int z = 0; z < N; z++) w0[z] = w1[z] = w2[z] = 0;
    if (active) {
      const PetscReal *ge = RECOMP ? NULL : geo + (size_t)e * (POISSON ? 6 : 1) * NQ + tx + Q * ty;
      /* recompute: as SumFact3D (MFColumnJacSetUp, MFColumnJ) */
      MFColumnJac C;
      PetscReal   wxy = 0;
      if (RECOMP) {
        const PetscReal xi = sG[tx], eta = sG[ty];
        PetscReal       X[24];
        MFLoadRow<24>(sX[tz], X);
        wxy = sG[Q + tx] * sG[Q + ty];
        MFColumnJacSetUp(X, xi, eta, C);
      }
      #pragma unroll
      for (int qz = 0; qz < Q; qz++) {
        PetscScalar u[3] = {0, 0, 0}, v[3];
        PetscReal   gl[6];
        #pragma unroll
        for (int z = 0; z < N; z++) {
          if (POISSON) {
            u[0] += P.B[qz * N + z] * rdB[z];
            u[1] += P.B[qz * N + z] * rDy[z];
            u[2] += P.D[qz * N + z] * rB[z];
          } else u[0] += P.B[qz * N + z] * rB[z];
        }
        if (RECOMP) {
          PetscReal J[3][3];
          MFColumnJ(C, P.xg[qz], J);
          DMAsmMFGeoFromJ(3, POISSON, J, wxy * P.wg[qz], gl);
        } else {
          #pragma unroll
          for (int c = 0; c < (POISSON ? 6 : 1); c++) gl[c] = ge[c * NQ + Q * Q * qz];
        }
        DMAsmMFPoint(3, POISSON, gl, 1, u, v);
        #pragma unroll
        for (int z = 0; z < N; z++) {
          w0[z] += P.B[qz * N + z] * v[0];
          if (POISSON) {
            w1[z] += P.B[qz * N + z] * v[1];
            w2[z] += P.D[qz * N + z] * v[2];
          }
        }
      }
    }
    #pragma unroll
    for (int z = 0; z < N; z++) {
      Z0[ty + R * (tx + T * z)] = w0[z];
      if (POISSON) {
        Z1[ty + R * (tx + T * z)] = w1[z];
        Z2[ty + R * (tx + T * z)] = w2[z];
      }
    }
  }
  __syncthreads();
  /* y^T: thread l < q n owns the line (qx, z) = (l % q, l / q): its q values of each Z component (128-bit loads),
     the n outputs (constant-bank basis) to F at [z][y][qx]: F0 towards D^T in x (the d/dx part), F1 towards B^T */
  if (l < Q * N) {
    const int   qx = l % Q, zz = l / Q;
    PetscScalar c0[Q], c1[Q], c2[Q];
    MFLoadRow<Q>(Z0 + R * (qx + T * zz), c0);
    if (POISSON) {
      MFLoadRow<Q>(Z1 + R * (qx + T * zz), c1);
      MFLoadRow<Q>(Z2 + R * (qx + T * zz), c2);
    }
    #pragma unroll
    for (int yy = 0; yy < N; yy++) {
      PetscScalar pd = 0, pb = 0;
      #pragma unroll
      for (int j = 0; j < Q; j++) {
        if (POISSON) {
          pd += P.B[j * N + yy] * c0[j];
          pb += P.D[j * N + yy] * c1[j] + P.B[j * N + yy] * c2[j];
        } else pb += P.B[j * N + yy] * c0[j];
      }
      if (POISSON) {
        F0[qx + R * (yy + T * zz)] = pd;
        F1[qx + R * (yy + T * zz)] = pb;
      } else F0[qx + R * (yy + T * zz)] = pb;
    }
  }
  __syncthreads();
  /* x^T and the output: thread l < n^2 owns the line (y, z) = (l % n, l / n) (128-bit loads of its q values) */
  if (active && l < N * N) {
    const int   yy = l % N, zz = l / N;
    PetscScalar a[Q], b[Q];
    MFLoadRow<Q>(F0 + R * (yy + T * zz), a);
    if (POISSON) MFLoadRow<Q>(F1 + R * (yy + T * zz), b);
    #pragma unroll
    for (int xo = 0; xo < N; xo++) {
      PetscScalar r = 0;
      #pragma unroll
      for (int i = 0; i < Q; i++) {
        if (POISSON) r += P.D[i * N + xo] * a[i] + P.B[i * N + xo] * b[i];
        else r += P.B[i * N + xo] * a[i];
      }
      const int li = xo + N * l;
      if (ye) ye[e * NEN + li] = r;
      else {
        const PetscInt d = edof[e * NEN + li];
        if (d >= 0) atomicAdd(&y[d], r);
      }
    }
  }
}

template <int N, int Q, bool POISSON, bool RECOMP>
__global__ void __launch_bounds__(MFShape<N, Q>::T * MFShape<N, Q>::E2) SumFact2D(PetscInt nelem, const PetscReal *__restrict__ gB, const PetscReal *__restrict__ gD, const PetscReal *__restrict__ geo, const PetscInt *__restrict__ edof, const PetscReal *__restrict__ xv, const PetscReal *__restrict__ gw, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ ye)
{
  constexpr int T = MFShape<N, Q>::T, E = MFShape<N, Q>::E2, NEN = MFShape<N, Q>::NEN2, NQ = MFShape<N, Q>::NQ2;
  __shared__ PetscReal   sB[Q * N], sD[Q * N];
  __shared__ PetscScalar s[E][2][T * T];
  __shared__ PetscReal   sX[E][8], sG[2 * Q];
  const int      tx = threadIdx.x, ty = threadIdx.y;
  const PetscInt e      = (PetscInt)blockIdx.x * E + ty;
  const bool     active = e < nelem;
  PetscScalar   *S0 = s[ty][0], *S1 = s[ty][1];
  PetscScalar    rb[N], rd[N], o0[N], o1[N];

  for (int k = tx + T * ty; k < Q * N; k += T * E) {
    sB[k] = gB[k];
    sD[k] = gD[k];
  }
  if (RECOMP) {
    for (int k = tx + T * ty; k < 2 * Q; k += T * E) sG[k] = gw[k];
    if (active)
      for (int k = tx; k < 8; k += T) sX[ty][k] = xv[e * 8 + k];
  }
  if (active && tx < N)
    #pragma unroll
    for (int j = 0; j < N; j++) {
      const PetscInt d = edof[e * NEN + tx + N * j];
      S0[tx + T * j]   = d >= 0 ? x[d] : 0;
    }
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < N; j++) rb[j] = rd[j] = o0[j] = o1[j] = 0;
  if (tx < Q) {
    #pragma unroll
    for (int j = 0; j < N; j++)
      #pragma unroll
      for (int i = 0; i < N; i++) {
        rb[j] += sB[tx * N + i] * S0[i + T * j];
        if (POISSON) rd[j] += sD[tx * N + i] * S0[i + T * j];
      }
    if (active)
      #pragma unroll
      for (int qy = 0; qy < Q; qy++) {
        PetscScalar u[2] = {0, 0}, v[2];
        #pragma unroll
        for (int j = 0; j < N; j++) {
          if (POISSON) {
            u[0] += sB[qy * N + j] * rd[j];
            u[1] += sD[qy * N + j] * rb[j];
          } else u[0] += sB[qy * N + j] * rb[j];
        }
        if (RECOMP) {
          const PetscReal xi[2] = {sG[tx], sG[qy]};
          PetscReal       gl[3];
          DMAsmMFGeoMultilinear(2, POISSON, sX[ty], xi, sG[Q + tx] * sG[Q + qy], gl);
          DMAsmMFPoint(2, POISSON, gl, 1, u, v);
        } else DMAsmMFPoint(2, POISSON, geo + (size_t)e * (POISSON ? 3 : 1) * NQ + tx + Q * qy, NQ, u, v);
        #pragma unroll
        for (int j = 0; j < N; j++) {
          o0[j] += sB[qy * N + j] * v[0];
          if (POISSON) o1[j] += sD[qy * N + j] * v[1];
        }
      }
  }
  __syncthreads();
  if (tx < Q)
    #pragma unroll
    for (int j = 0; j < N; j++) {
      S0[tx + T * j] = o0[j];
      if (POISSON) S1[tx + T * j] = o1[j];
    }
  __syncthreads();
  if (active && tx < N)
    #pragma unroll
    for (int j = 0; j < N; j++) {
      PetscScalar r = 0;
      #pragma unroll
      for (int i = 0; i < Q; i++) {
        if (POISSON) r += sD[i * N + tx] * S0[i + T * j] + sB[i * N + tx] * S1[i + T * j];
        else r += sB[i * N + tx] * S0[i + T * j];
      }
      const int li = tx + N * j;
      if (ye) ye[e * NEN + li] = r;
      else {
        const PetscInt d = edof[e * NEN + li];
        if (d >= 0) atomicAdd(&y[d], r);
      }
    }
}

/* 3-D: SumFact3DSmall where MFSmall3 (if constexpr: the other instances are not compiled for it, and SumFact3D is not
   compiled for the small sizes), else SumFact3D */
template <int N, int Q>
static PetscErrorCode LaunchSumFact3D(DMAsmMatFree mf, cudaStream_t stream, const PetscScalar *x, PetscScalar *y, PetscScalar *ye)
{
  typedef MFShape<N, Q> S;
  const PetscBool       poisson = (PetscBool)(mf->op == DMASMMF_POISSON);
  const dim3            b(S::T, S::T, S::E3);
  const unsigned        g = (unsigned)((mf->nelem + S::E3 - 1) / S::E3);

  PetscFunctionBegin;
  if constexpr (MFSmall3<N, Q>::value) {
    MFBasis3<N, Q> P; /* the kernel argument: constant-bank operands */
    for (int k = 0; k < Q * N; k++) {
      P.B[k] = mf->B[k];
      P.D[k] = mf->D[k];
    }
    for (int k = 0; k < Q; k++) {
      P.xg[k] = mf->xg[k];
      P.wg[k] = mf->wg[k];
    }
    if (poisson && mf->recompute) SumFact3DSmall<N, Q, true, true><<<g, b, 0, stream>>>(P, mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else if (poisson) SumFact3DSmall<N, Q, true, false><<<g, b, 0, stream>>>(P, mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
    else if (mf->recompute) SumFact3DSmall<N, Q, false, true><<<g, b, 0, stream>>>(P, mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else SumFact3DSmall<N, Q, false, false><<<g, b, 0, stream>>>(P, mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
  } else {
    if (poisson && mf->recompute) SumFact3D<N, Q, true, true><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else if (poisson) SumFact3D<N, Q, true, false><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
    else if (mf->recompute) SumFact3D<N, Q, false, true><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else SumFact3D<N, Q, false, false><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int N, int Q>
static PetscErrorCode LaunchSumFact(DMAsmMatFree mf, cudaStream_t stream, const PetscScalar *x, PetscScalar *y, PetscScalar *ye)
{
  typedef MFShape<N, Q> S;
  const PetscBool       poisson = (PetscBool)(mf->op == DMASMMF_POISSON);

  PetscFunctionBegin;
  if (mf->dim == 3) PetscCall(LaunchSumFact3D<N, Q>(mf, stream, x, y, ye));
  else {
    const dim3 b(S::T, S::E2);
    const unsigned g = (unsigned)((mf->nelem + S::E2 - 1) / S::E2);
    if (poisson && mf->recompute) SumFact2D<N, Q, true, true><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else if (poisson) SumFact2D<N, Q, true, false><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
    else if (mf->recompute) SumFact2D<N, Q, false, true><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, mf->dxv, mf->dgw, x, y, ye);
    else SumFact2D<N, Q, false, false><<<g, b, 0, stream>>>(mf->nelem, mf->dB, mf->dD, mf->dgeo, mf->dedof, NULL, mf->dgw, x, y, ye);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int N>
static PetscErrorCode LaunchSumFactQ(DMAsmMatFree mf, cudaStream_t stream, const PetscScalar *x, PetscScalar *y, PetscScalar *ye)
{
  PetscFunctionBegin;
  if (mf->q == N) PetscCall(LaunchSumFact<N, N>(mf, stream, x, y, ye));
  else if (mf->q == N + 1) PetscCall(LaunchSumFact<N, (N + 1 <= DMASMMF_QMAX ? N + 1 : N)>(mf, stream, x, y, ye));
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "sumfact device kernel: q = p+1 or p+2 Gauss points per direction, got q = %" PetscInt_FMT " for p = %" PetscInt_FMT, mf->q, mf->p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void GatherKernel(PetscInt ndof, const PetscInt *__restrict__ gptr, const PetscInt *__restrict__ gidx, const PetscScalar *__restrict__ ye, PetscScalar *__restrict__ y, int add)
{
  const PetscInt d = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= ndof) return;
  PetscScalar s = add ? y[d] : 0;
  for (PetscInt k = gptr[d]; k < gptr[d + 1]; k++) s += ye[gidx[k]];
  y[d] = s;
}

/* mode 0: atomics, 1: store for the gather, 2: plain adds (a colour, or unprotected) */
__global__ void ElmatKernel(PetscInt nlaunch, const PetscInt *__restrict__ elist, PetscInt nelem, int nen, int uniform, const PetscReal *__restrict__ K, const PetscInt *__restrict__ edofT, const PetscScalar *__restrict__ x, PetscScalar *y, PetscScalar *__restrict__ ye, int mode)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nlaunch) return;
  const PetscInt e = elist ? elist[t] : t;
  for (int i = 0; i < nen; i++) {
    PetscScalar s = 0;
    for (int j = 0; j < nen; j++) {
      const PetscInt  dj = edofT[(PetscInt)j * nelem + e];
      const PetscReal k  = uniform ? K[i * nen + j] : K[(PetscInt)(i * nen + j) * nelem + e];
      if (dj >= 0) s += k * x[dj];
    }
    if (mode == 1) ye[e * nen + i] = s;
    else {
      const PetscInt di = edofT[(PetscInt)i * nelem + e];
      if (di < 0) continue;
      if (mode == 0) atomicAdd(&y[di], s);
      else y[di] += s;
    }
  }
}

PetscErrorCode DMAsmMFCUDAGather(DMAsmMatFree mf, PetscScalar *y, PetscBool add)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (mf->ndof) GatherKernel<<<(unsigned)((mf->ndof + 255) / 256), 256, 0, stream>>>(mf->ndof, mf->dgptr, mf->dgidx, mf->dye, y, (int)add);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMFCUDASumFact(DMAsmMatFree mf, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  cudaStream_t       stream;
  const PetscBool    gather = (PetscBool)(mf->scatter == DMASMMF_SCATTER_GATHER);
  PetscScalar *const ye     = gather ? mf->dye : NULL;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!add && !gather) PetscCall(DMAsmCUDAZero(y, mf->ndof));
  if (mf->nelem) {
    switch (mf->n) {
    case 2: PetscCall(LaunchSumFactQ<2>(mf, stream, x, y, ye)); break;
    case 3: PetscCall(LaunchSumFactQ<3>(mf, stream, x, y, ye)); break;
    case 4: PetscCall(LaunchSumFactQ<4>(mf, stream, x, y, ye)); break;
    case 5: PetscCall(LaunchSumFactQ<5>(mf, stream, x, y, ye)); break;
    case 6: PetscCall(LaunchSumFactQ<6>(mf, stream, x, y, ye)); break;
    case 7: PetscCall(LaunchSumFactQ<7>(mf, stream, x, y, ye)); break;
    case 8: PetscCall(LaunchSumFactQ<8>(mf, stream, x, y, ye)); break;
    case 9: PetscCall(LaunchSumFactQ<9>(mf, stream, x, y, ye)); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "sumfact device kernel: p = 1..8");
    }
  }
  if (gather) PetscCall(DMAsmMFCUDAGather(mf, y, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmMFCUDAElmat(DMAsmMatFree mf, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  cudaStream_t stream;
  const int    bs = 256;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (!add && mf->scatter != DMASMMF_SCATTER_GATHER) PetscCall(DMAsmCUDAZero(y, mf->ndof));
  if (mf->scatter == DMASMMF_SCATTER_COLOR) {
    for (PetscInt c = 0; c < mf->ncolors; c++) {
      const PetscInt nc = mf->colptr[c + 1] - mf->colptr[c];
      if (nc) ElmatKernel<<<(unsigned)((nc + bs - 1) / bs), bs, 0, stream>>>(nc, mf->dcolelem + mf->colptr[c], mf->nelem, (int)mf->nen, (int)mf->uniform, mf->dK, mf->dedofT, x, y, NULL, 2);
    }
  } else if (mf->nelem) {
    const int mode = mf->scatter == DMASMMF_SCATTER_ATOMIC ? 0 : (mf->scatter == DMASMMF_SCATTER_GATHER ? 1 : 2);
    ElmatKernel<<<(unsigned)((mf->nelem + bs - 1) / bs), bs, 0, stream>>>(mf->nelem, NULL, mf->nelem, (int)mf->nen, (int)mf->uniform, mf->dK, mf->dedofT, x, y, mf->dye, mode);
  }
  PetscCallCUDA(cudaGetLastError());
  if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(DMAsmMFCUDAGather(mf, y, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the COO values of the assembled operator (DMAssemblyMatFreeAssemble): one thread per contribution of the gather
   CSR, DMAsmMFCOOContribution (the host reference's function) */
__global__ void COOValuesKernel(PetscInt ncontrib, PetscInt nen, PetscInt nelem, int uniform, const PetscReal *__restrict__ K, const PetscInt *__restrict__ edof, const PetscInt *__restrict__ gidx, const PetscCount *__restrict__ coff, PetscScalar *__restrict__ v)
{
  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < ncontrib) DMAsmMFCOOContribution(k, nen, nelem, uniform, K, edof, gidx, coff, v);
}

/* dgidx, dcoff, v: device arrays (gidx of the gather CSR, the contribution offsets, the COO values) */
PetscErrorCode DMAsmMFCUDACOOValues(DMAsmMatFree mf, const PetscInt *dgidx, const PetscCount *dcoff, PetscScalar *v)
{
  cudaStream_t   stream;
  const int      bs = 256;
  const PetscInt nc = mf->gptr[mf->ndof];

  PetscFunctionBegin;
  PetscCall(PetscEllwarpGetStream(&stream));
  if (nc) COOValuesKernel<<<(unsigned)((nc + bs - 1) / bs), bs, 0, stream>>>(nc, mf->nen, mf->nelem, (int)mf->uniform, mf->dK, mf->dedof, dgidx, dcoff, v);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device idle: MatSetValuesCOO may still read the values on its own stream when it returns */
PetscErrorCode DMAsmMFCUDASynchronize(void)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}
