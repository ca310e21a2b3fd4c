/* KSPCGASYNC (src/ksp/impls/cgasync/): conjugate gradients whose scalars stay where the vectors are.

   Each iteration is four steps over the vectors, each a kernel on the device (cgasynccuda.cu) or a plain-C loop
   of the same layout on the host (cgasync.c):

     direction  p <- z + (beta/betaold) p               (z = D^-1 r computed on the fly with a Jacobi PC)
     MatMult    w <- A p                                  (the matrix's own product)
     curvature  dpi <- (p, w); alpha <- beta / dpi       (one reduction; breakdown checks)
     update     x += alpha p; r -= alpha w; z = D^-1 r;   (one reduction of (z,z) or (r,r), and (z,r);
                its, rnorm, beta, the convergence test)

   The scalars (beta, alpha, the residual norm, the iteration count and the converged reason) live in a small
   CGAsyncState next to the vectors; the host never waits for them inside a solve except every
   `check_every` iterations, when it reads the state back (asynchronously, one batch behind) to learn whether
   to stop.  Once the reason is set, the kernels of the iterations already queued do nothing, so the solution,
   the iteration count and the norms are those of the iteration where the test first passed.

   Reductions: `nb` blocks of CGA_BLOCK threads; thread t of block b sums the entries b*CGA_BLOCK + t + k*nb*CGA_BLOCK
   in order, the block sums its threads by a binary tree, and the last block to finish sums the nb block
   sums (again per thread in order, then a tree) and runs the scalar logic.  The host reference follows the
   same order, so both give the same sums up to the device's fused multiply-adds. */
#pragma once

#include <petscksp.h>
#include <petsc/private/kspimpl.h>

#define CGA_BLOCK     256  /* threads per block of the vector kernels */
#define CGA_MAXBLOCKS 1024 /* blocks at most: enough to fill an H100 (132 SMs x 8 blocks) */

/* what a reduction sums: entries of the vectors of one iteration */
enum {
  CGA_SUM_NORM = 0, /* (z,z), (r,r) or (z,r), by the norm type */
  CGA_SUM_ZR   = 1, /* (z,r): the next beta */
  CGA_NSUMS    = 2
};

/* the convergence test's parameters, fixed for one solve (set by the host's own test at iteration 0) */
typedef struct {
  PetscReal ttol, abstol, divtol, rnorm0;
  PetscInt  max_it, min_it, chknorm;
  PetscInt  normtype;  /* KSPNormType: PRECONDITIONED, UNPRECONDITIONED or NATURAL */
  PetscBool devtest;   /* run KSPConvergedDefault's test here (else only the breakdown checks; the host tests) */
  PetscBool convmaxits;
} CGAsyncTest;

typedef struct {
  CGAsyncTest test; /* set before the iterations (KernelSetTest), read-only during them */
  PetscReal beta, betaold, dpi, dpiold, alpha; /* CG's scalars (real arithmetic only) */
  PetscReal rnorm;                             /* the norm of the last iteration done */
  PetscInt  its;                               /* iterations done (the kernels take the iteration from here, so a
                                                  CUDA graph of iterations replays for any of them) */
  PetscInt  reason;                            /* KSPConvergedReason; 0 while iterating */
} CGAsyncState;

/* the Jacobi diagonal as the fused kernels use it */
typedef struct {
  PetscBool fixzero; /* a zero diagonal entry gives 1 (PCJACOBI's -pc_jacobi_fixdiagonal) */
  PetscBool useabs;  /* |1/d| (-pc_jacobi_abs) */
} CGAsyncJacobi;

typedef struct {
  /* options */
  PetscInt  check_every;   /* read the state back every this many iterations */
  PetscBool fuse_jacobi;   /* with PCJACOBI (diagonal): D^-1 inside the kernels, PCApply never called */
  /* per solve */
  PetscBool     jacobi;    /* the fused Jacobi path is in use */
  CGAsyncJacobi jac;
  PetscBool     device;    /* vectors on the device: kernels in cgasynccuda.cu */
  Vec           dinv;      /* the inverse diagonal (fused Jacobi) */
  PetscObjectId    dinv_id; /* which Pmat, in which state, dinv was computed from */
  PetscObjectState dinv_state;
  /* scalar state, norms and reduction scratch: device memory (device) or host memory (host) */
  CGAsyncState *state;
  PetscReal    *norms; /* rnorm of iterations 0..max_it */
  PetscInt      nnorms;
  PetscReal    *partial;  /* nb * CGA_NSUMS block sums */
  unsigned int *counter;  /* blocks done (device: reset by the last block) */
  CGAsyncState *hstate[2]; /* device: two pinned read-back buffers (a batch's copy may be in flight while the last is read) */
  void         *event[2];  /* device: cudaEvent_t of those copies */
  PetscInt      nb_alloc;
  /* statistics */
  PetscInt  nsolves, nreadbacks, nextra, nsyncs; /* solves, state read-backs, iterations queued after the test passed, waits on a batch just queued */
  PetscBool predict; /* -ksp_cgasync_predict: near the predicted convergence, shorter batches and a wait after each */
  /* -ksp_cgasync_graph: a CUDA graph of check_every iterations, captured once per (matrix pattern, vectors) */
  PetscBool        use_graph;
  void            *graph, *graphexec, *capstream; /* cudaGraph_t, cudaGraphExec_t, the capturing cudaStream_t */
  const void      *graphkey[6];       /* x, r, p, w, z or D^-1 arrays, the Mat */
  PetscObjectState graphnzstate;
  PetscInt         graphk, graphnanalyses, ngraphs, ngraphlaunches;
} KSP_CGAsync;

/* Backend: the four steps and the set-up of D^-1, on the device (cgasynccuda.cu) or the host (cgasync.c).
   x, r, p, w, z, dinv: arrays of n entries in the backend's memory (z may be NULL with dinv, and dinv NULL with z). */
PETSC_INTERN PetscErrorCode CGAsyncBlocks(PetscInt n, PetscInt *nb);
PETSC_INTERN PetscErrorCode CGAsyncReciprocal_Host(PetscInt n, CGAsyncJacobi jac, PetscScalar *d);
PETSC_INTERN PetscErrorCode CGAsyncDirection_Host(PetscInt n, const CGAsyncState *st, const PetscScalar *z, const PetscScalar *dinv, const PetscScalar *r, PetscScalar *p);
PETSC_INTERN PetscErrorCode CGAsyncCurvature_Host(PetscInt n, CGAsyncState *st, const PetscScalar *p, const PetscScalar *w, PetscReal *partial);
PETSC_INTERN PetscErrorCode CGAsyncUpdate_Host(PetscInt n, CGAsyncState *st, PetscReal *norms, PetscScalar *x, PetscScalar *r, const PetscScalar *p, const PetscScalar *w, const PetscScalar *z, const PetscScalar *dinv, PetscBool reduce, PetscReal *partial);
PETSC_INTERN PetscErrorCode CGAsyncStart_Host(PetscInt n, CGAsyncTest test, CGAsyncState *st, PetscReal *norms, const PetscScalar *r, const PetscScalar *z, const PetscScalar *dinv, PetscReal *partial);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode CGAsyncReciprocal_CUDA(PetscInt n, CGAsyncJacobi jac, PetscScalar *d);
PETSC_INTERN PetscErrorCode CGAsyncDirection_CUDA(PetscInt n, const CGAsyncState *st, const PetscScalar *z, const PetscScalar *dinv, const PetscScalar *r, PetscScalar *p);
PETSC_INTERN PetscErrorCode CGAsyncCurvature_CUDA(PetscInt n, CGAsyncState *st, const PetscScalar *p, const PetscScalar *w, PetscReal *partial, unsigned int *counter);
PETSC_INTERN PetscErrorCode CGAsyncUpdate_CUDA(PetscInt n, CGAsyncState *st, PetscReal *norms, PetscScalar *x, PetscScalar *r, const PetscScalar *p, const PetscScalar *w, const PetscScalar *z, const PetscScalar *dinv, PetscBool reduce, PetscReal *partial, unsigned int *counter);
PETSC_INTERN PetscErrorCode CGAsyncStart_CUDA(PetscInt n, CGAsyncTest test, CGAsyncState *st, PetscReal *norms, const PetscScalar *r, const PetscScalar *z, const PetscScalar *dinv, PetscReal *partial, unsigned int *counter);
PETSC_INTERN PetscErrorCode CGAsyncAlloc_CUDA(KSP_CGAsync *, PetscInt nb, PetscInt nnorms);
PETSC_INTERN PetscErrorCode CGAsyncFree_CUDA(KSP_CGAsync *);
PETSC_INTERN PetscErrorCode CGAsyncReadBack_CUDA(KSP_CGAsync *, PetscInt slot);
PETSC_INTERN PetscErrorCode CGAsyncWait_CUDA(KSP_CGAsync *, PetscInt slot);
PETSC_INTERN PetscErrorCode CGAsyncDownload_CUDA(void *dst, const void *src, size_t bytes);
PETSC_INTERN PetscErrorCode CGAsyncSetTest_CUDA(CGAsyncState *st, CGAsyncTest test);
PETSC_INTERN PetscErrorCode CGAsyncGraphBegin_CUDA(KSP_CGAsync *);
PETSC_INTERN PetscErrorCode CGAsyncGraphEnd_CUDA(KSP_CGAsync *);
PETSC_INTERN PetscErrorCode CGAsyncGraphLaunch_CUDA(KSP_CGAsync *);
PETSC_INTERN PetscErrorCode CGAsyncGraphDestroy_CUDA(KSP_CGAsync *);
#endif

/* the scalar logic shared by both backends (a macro body: used in host C and in a __device__ function) */
#define CGASYNC_LASTBLOCK_CURVATURE(st, dpi_) \
  do { \
    const PetscReal dpi__ = (dpi_); \
    const PetscInt  i     = (st)->its; \
    (st)->dpiold          = i > 0 ? (st)->dpi : 0.0; \
    (st)->dpi             = dpi__; \
    if (dpi__ != dpi__ || dpi__ - dpi__ != 0) (st)->reason = KSP_DIVERGED_NANORINF; \
    else if (dpi__ == 0.0 || (i > 0 && ((dpi__ > 0) != ((st)->dpiold > 0)))) (st)->reason = KSP_DIVERGED_INDEFINITE_MAT; \
    else (st)->alpha = (st)->beta / dpi__; \
  } while (0)

/* after the update of iteration its (0-based): iteration its + 1 is done.  The norm, the convergence test
   (KSPConvergedDefault's for n >= 1: NaN, min_it, ttol/abstol, divtol, and KSP_CONVERGED_ITS when asked), then
   the checks at the top of CG's next iteration (the iteration limit, beta = 0, an indefinite preconditioner),
   in the order of KSPSolve_CG. */
#define CGASYNC_LASTBLOCK_UPDATE(st, norms, snorm, szr) \
  do { \
    const CGAsyncTest test = (st)->test; \
    const PetscInt  n__  = (st)->its + 1; \
    const PetscReal zr__ = (szr); \
    PetscReal       dp__; \
    if ((test).normtype == KSP_NORM_NATURAL) dp__ = sqrt(fabs(zr__)); \
    else dp__ = sqrt((snorm)); \
    (st)->its   = n__; \
    (st)->rnorm = dp__; \
    (norms)[n__] = dp__; \
    if ((test).devtest) { \
      if ((test).convmaxits && n__ >= (test).max_it) (st)->reason = KSP_CONVERGED_ITS; \
      else if (n__ > (test).chknorm) { \
        if (dp__ != dp__ || dp__ - dp__ != 0) (st)->reason = KSP_DIVERGED_NANORINF; \
        else if (n__ >= (test).min_it) { \
          if (dp__ <= (test).ttol) (st)->reason = dp__ < (test).abstol ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL; \
          else if (dp__ >= (test).divtol * (test).rnorm0) (st)->reason = KSP_DIVERGED_DTOL; \
        } \
      } \
    } \
    if (!(st)->reason) { \
      if (zr__ != zr__ || zr__ - zr__ != 0) (st)->reason = KSP_DIVERGED_NANORINF; \
      else { \
        (st)->betaold = (st)->beta; \
        (st)->beta    = zr__; \
        if (n__ >= (test).max_it) (st)->reason = KSP_DIVERGED_ITS; \
        else if (zr__ == 0.0) { \
          (st)->its    = n__ + 1; \
          (st)->reason = KSP_CONVERGED_ATOL; \
        } else if (zr__ * (st)->betaold < 0.0) { \
          (st)->its    = n__ + 1; \
          (st)->reason = KSP_DIVERGED_INDEFINITE_PC; \
        } \
      } \
    } \
  } while (0)
