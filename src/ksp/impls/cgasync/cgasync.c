/* KSPCGASYNC: conjugate gradients whose scalars stay with the vectors, so that a device solve does not wait for
   the host at every iteration (include/petscellwarp/private/kspcgasyncimpl.h explains the steps).  This file
   holds the KSP and the plain-C reference of the device kernels (cgasynccuda.cu), which runs when the vectors
   are host vectors; both follow the same reduction order. */
#include <petscellwarp.h>
#include <petscellwarp/private/kspcgasyncimpl.h>
#include <petscdevice.h>

/* the number of blocks of a reduction over n entries: one entry per thread up to CGA_MAXBLOCKS blocks */
PetscErrorCode CGAsyncBlocks(PetscInt n, PetscInt *nb)
{
  PetscFunctionBegin;
  *nb = PetscMax(1, PetscMin(CGA_MAXBLOCKS, (n + CGA_BLOCK - 1) / CGA_BLOCK));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the plain-C reference of the kernels -------------------------------------------------------------- */

/* the sums of one reduction in the device's order: per thread in index order, a tree per block, then the
   last block's per-thread sums of the block sums and its tree.  f(j, s) adds entry j's terms to s[CGA_NSUMS]. */
#define CGA_HOST_REDUCE(n, nb, partial, out, ...) \
  do { \
    PetscReal t__[CGA_BLOCK][CGA_NSUMS]; \
    for (PetscInt b__ = 0; b__ < (nb); b__++) { \
      for (PetscInt th__ = 0; th__ < CGA_BLOCK; th__++) { \
        PetscReal *s = t__[th__]; \
        s[0] = s[1] = 0; \
        for (PetscInt j = b__ * CGA_BLOCK + th__; j < (n); j += (nb) * CGA_BLOCK) __VA_ARGS__; \
      } \
      for (PetscInt h__ = CGA_BLOCK / 2; h__ > 0; h__ >>= 1) \
        for (PetscInt th__ = 0; th__ < h__; th__++) \
          for (int q__ = 0; q__ < CGA_NSUMS; q__++) t__[th__][q__] += t__[th__ + h__][q__]; \
      for (int q__ = 0; q__ < CGA_NSUMS; q__++) (partial)[q__ * (nb) + b__] = t__[0][q__]; \
    } \
    for (PetscInt th__ = 0; th__ < CGA_BLOCK; th__++) { \
      t__[th__][0] = t__[th__][1] = 0; \
      for (PetscInt b__ = th__; b__ < (nb); b__ += CGA_BLOCK) \
        for (int q__ = 0; q__ < CGA_NSUMS; q__++) t__[th__][q__] += (partial)[q__ * (nb) + b__]; \
    } \
    for (PetscInt h__ = CGA_BLOCK / 2; h__ > 0; h__ >>= 1) \
      for (PetscInt th__ = 0; th__ < h__; th__++) \
        for (int q__ = 0; q__ < CGA_NSUMS; q__++) t__[th__][q__] += t__[th__ + h__][q__]; \
    for (int q__ = 0; q__ < CGA_NSUMS; q__++) (out)[q__] = t__[0][q__]; \
  } while (0)

static inline PetscReal JacobiInverse(PetscReal d, CGAsyncJacobi jac)
{
  PetscReal v = d == 0.0 && jac.fixzero ? 1.0 : 1.0 / d;
  return jac.useabs ? PetscAbsReal(v) : v;
}

PetscErrorCode CGAsyncReciprocal_Host(PetscInt n, CGAsyncJacobi jac, PetscScalar *d)
{
  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) d[j] = JacobiInverse(PetscRealPart(d[j]), jac);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncDirection_Host(PetscInt n, const CGAsyncState *st, const PetscScalar *z, const PetscScalar *dinv, const PetscScalar *r, PetscScalar *p)
{
  PetscFunctionBegin;
  if (st->reason) PetscFunctionReturn(PETSC_SUCCESS);
  if (!st->its) {
    for (PetscInt j = 0; j < n; j++) p[j] = dinv ? dinv[j] * r[j] : z[j];
  } else {
    const PetscReal b = st->beta / st->betaold;
    for (PetscInt j = 0; j < n; j++) p[j] = (dinv ? dinv[j] * r[j] : z[j]) + b * p[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncCurvature_Host(PetscInt n, CGAsyncState *st, const PetscScalar *p, const PetscScalar *w, PetscReal *partial)
{
  PetscInt  nb;
  PetscReal s[CGA_NSUMS];

  PetscFunctionBegin;
  if (st->reason) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CGAsyncBlocks(n, &nb));
  CGA_HOST_REDUCE(n, nb, partial, s, { s[0] += PetscRealPart(p[j]) * PetscRealPart(w[j]); });
  CGASYNC_LASTBLOCK_CURVATURE(st, s[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sums of the norm and (z,r) for entry j (z_j given) */
#define CGA_NORM_TERMS(normtype, zj, rj, s) \
  do { \
    if ((normtype) == KSP_NORM_PRECONDITIONED) s[0] += (zj) * (zj); \
    else if ((normtype) == KSP_NORM_UNPRECONDITIONED) s[0] += (rj) * (rj); \
    s[1] += (zj) * (rj); \
  } while (0)

PetscErrorCode CGAsyncUpdate_Host(PetscInt n, CGAsyncState *st, PetscReal *norms, PetscScalar *x, PetscScalar *r, const PetscScalar *p, const PetscScalar *w, const PetscScalar *z, const PetscScalar *dinv, PetscBool reduce, PetscReal *partial)
{
  PetscInt  nb;
  PetscReal s[CGA_NSUMS];

  PetscFunctionBegin;
  if (st->reason) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CGAsyncBlocks(n, &nb));
  if (x) { /* x and r (with a PC of its own, the sums come after PCApply: reduce is then a separate call without x) */
    const PetscReal a = st->alpha;
    for (PetscInt j = 0; j < n; j++) {
      x[j] += a * p[j];
      r[j] -= a * w[j];
    }
  }
  if (!reduce) PetscFunctionReturn(PETSC_SUCCESS);
  CGA_HOST_REDUCE(n, nb, partial, s, {
    const PetscReal rj = PetscRealPart(r[j]), zj = dinv ? PetscRealPart(dinv[j]) * rj : PetscRealPart(z[j]);
    CGA_NORM_TERMS(st->test.normtype, zj, rj, s);
  });
  CGASYNC_LASTBLOCK_UPDATE(st, norms, s[0], s[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CGAsyncStart_Host(PetscInt n, CGAsyncTest test, CGAsyncState *st, PetscReal *norms, const PetscScalar *r, const PetscScalar *z, const PetscScalar *dinv, PetscReal *partial)
{
  PetscInt  nb;
  PetscReal s[CGA_NSUMS];

  PetscFunctionBegin;
  PetscCall(CGAsyncBlocks(n, &nb));
  CGA_HOST_REDUCE(n, nb, partial, s, {
    const PetscReal rj = PetscRealPart(r[j]), zj = dinv ? PetscRealPart(dinv[j]) * rj : PetscRealPart(z[j]);
    CGA_NORM_TERMS(test.normtype, zj, rj, s);
  });
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->test    = test;
  st->beta    = s[1];
  st->betaold = 1.0;
  st->rnorm   = test.normtype == KSP_NORM_NATURAL ? PetscSqrtReal(PetscAbsReal(s[1])) : PetscSqrtReal(s[0]);
  norms[0]    = st->rnorm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the KSP ------------------------------------------------------------------------------------------- */

static PetscErrorCode KSPCGAsyncFreeState(KSP_CGAsync *cg)
{
  PetscFunctionBegin;
  if (cg->device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncGraphDestroy_CUDA(cg)); /* it holds the buffers' addresses */
    PetscCall(CGAsyncFree_CUDA(cg));
#endif
  } else {
    PetscCall(PetscFree(cg->state));
    PetscCall(PetscFree(cg->norms));
    PetscCall(PetscFree(cg->partial));
  }
  cg->nb_alloc = 0;
  cg->nnorms   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPCGAsyncAllocState(KSP ksp, PetscBool device, PetscInt n)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;
  PetscInt     nb;

  PetscFunctionBegin;
  PetscCall(CGAsyncBlocks(n, &nb));
  if (cg->nb_alloc >= nb && cg->nnorms >= ksp->max_it + 2 && cg->device == device && cg->state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPCGAsyncFreeState(cg));
  cg->device = device;
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncAlloc_CUDA(cg, nb, ksp->max_it + 2));
#else
    SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPCGASYNC: device vectors in a build without CUDA");
#endif
  } else {
    PetscCall(PetscCalloc1(1, &cg->state));
    PetscCall(PetscCalloc1(ksp->max_it + 2, &cg->norms));
    PetscCall(PetscCalloc1(CGA_NSUMS * nb, &cg->partial));
  }
  cg->nb_alloc = nb;
  cg->nnorms   = ksp->max_it + 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_CGAsync(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 4)); /* r, z, p, w */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* is the PC one the kernels can apply themselves (PCJACOBI on the diagonal)?  Then D^-1 is computed here, on the
   vectors' side (MatGetDiagonal and a reciprocal kernel), whenever Pmat changed, and PCApply is never called:
   PCJACOBI's own set-up (its zero-diagonal check reads the diagonal on the host) then has nothing to do. */
static PetscErrorCode KSPCGAsyncJacobi(KSP ksp, Mat Pmat, PetscBool *fused)
{
  KSP_CGAsync     *cg = (KSP_CGAsync *)ksp->data;
  PetscBool        isjac;
  PCJacobiType     jtype;
  PetscObjectId    id;
  PetscObjectState state;

  PetscFunctionBegin;
  *fused = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCJACOBI, &isjac));
  if (!isjac || !cg->fuse_jacobi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCJacobiGetType(ksp->pc, &jtype));
  if (jtype != PC_JACOBI_DIAGONAL) PetscFunctionReturn(PETSC_SUCCESS);
  *fused = PETSC_TRUE;
  {
    PetscBool fix, abs, isset, isspd;
    PetscCall(PCJacobiGetFixDiagonal(ksp->pc, &fix));
    PetscCall(PCJacobiGetUseAbs(ksp->pc, &abs));
    PetscCall(MatIsSPDKnown(Pmat, &isset, &isspd));
    cg->jac.fixzero = (PetscBool)(fix && (!isset || !isspd)); /* as PCSetUp_Jacobi */
    cg->jac.useabs  = abs;
  }
  PetscCall(PetscObjectGetId((PetscObject)Pmat, &id));
  PetscCall(PetscObjectStateGet((PetscObject)Pmat, &state));
  if (cg->dinv && id == cg->dinv_id && state == cg->dinv_state) PetscFunctionReturn(PETSC_SUCCESS);
  if (!cg->dinv) PetscCall(VecDuplicate(ksp->vec_rhs, &cg->dinv));
  PetscCall(MatGetDiagonal(Pmat, cg->dinv));
  if (cg->device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscScalar *d;
    PetscInt     n;
    PetscCall(VecGetLocalSize(cg->dinv, &n));
    PetscCall(VecGetArrayAndMemType(cg->dinv, &d, NULL));
    PetscCall(CGAsyncReciprocal_CUDA(n, cg->jac, d));
    PetscCall(VecRestoreArrayAndMemType(cg->dinv, &d));
#endif
  } else {
    PetscScalar *d;
    PetscInt     n;
    PetscCall(VecGetLocalSize(cg->dinv, &n));
    PetscCall(VecGetArray(cg->dinv, &d));
    PetscCall(CGAsyncReciprocal_Host(n, cg->jac, d));
    PetscCall(VecRestoreArray(cg->dinv, &d));
  }
  cg->dinv_id    = id;
  cg->dinv_state = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the state, read back: on the host backend it is already there */
static PetscErrorCode KSPCGAsyncGetState(KSP_CGAsync *cg, CGAsyncState *st)
{
  PetscFunctionBegin;
  if (cg->device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncDownload_CUDA(st, cg->state, sizeof(*st)));
#endif
  } else *st = *cg->state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the arrays of the vectors the kernels work on, in the backend's memory */
typedef struct {
  PetscScalar       *x, *r, *p, *w, *z;
  const PetscScalar *dinv;
} CGAsyncArrays;

static PetscErrorCode ArraysGet(KSP ksp, PetscBool device, PetscBool fused, CGAsyncArrays *a)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(a, sizeof(*a)));
  if (device) {
    PetscCall(VecGetArrayAndMemType(ksp->vec_sol, &a->x, NULL));
    PetscCall(VecGetArrayAndMemType(ksp->work[0], &a->r, NULL));
    PetscCall(VecGetArrayAndMemType(ksp->work[2], &a->p, NULL));
    PetscCall(VecGetArrayAndMemType(ksp->work[3], &a->w, NULL));
    if (!fused) PetscCall(VecGetArrayAndMemType(ksp->work[1], &a->z, NULL));
    else PetscCall(VecGetArrayReadAndMemType(cg->dinv, &a->dinv, NULL));
  } else {
    PetscCall(VecGetArray(ksp->vec_sol, &a->x));
    PetscCall(VecGetArray(ksp->work[0], &a->r));
    PetscCall(VecGetArray(ksp->work[2], &a->p));
    PetscCall(VecGetArray(ksp->work[3], &a->w));
    if (!fused) PetscCall(VecGetArray(ksp->work[1], &a->z));
    else PetscCall(VecGetArrayRead(cg->dinv, &a->dinv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ArraysRestore(KSP ksp, PetscBool device, PetscBool fused, CGAsyncArrays *a)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;

  PetscFunctionBegin;
  if (device) {
    PetscCall(VecRestoreArrayAndMemType(ksp->vec_sol, &a->x));
    PetscCall(VecRestoreArrayAndMemType(ksp->work[0], &a->r));
    PetscCall(VecRestoreArrayAndMemType(ksp->work[2], &a->p));
    PetscCall(VecRestoreArrayAndMemType(ksp->work[3], &a->w));
    if (!fused) PetscCall(VecRestoreArrayAndMemType(ksp->work[1], &a->z));
    else PetscCall(VecRestoreArrayReadAndMemType(cg->dinv, &a->dinv));
  } else {
    PetscCall(VecRestoreArray(ksp->vec_sol, &a->x));
    PetscCall(VecRestoreArray(ksp->work[0], &a->r));
    PetscCall(VecRestoreArray(ksp->work[2], &a->p));
    PetscCall(VecRestoreArray(ksp->work[3], &a->w));
    if (!fused) PetscCall(VecRestoreArray(ksp->work[1], &a->z));
    else PetscCall(VecRestoreArrayRead(cg->dinv, &a->dinv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one iteration: direction, MatMult, curvature, update (and with a PC of its own: PCApply and the sums); the
   kernels take the iteration number from the state, so this also serves as the body of a captured graph */
static PetscErrorCode Iteration(KSP ksp, Mat Amat, PetscBool device, PetscBool fused, PetscInt n)
{
  KSP_CGAsync  *cg = (KSP_CGAsync *)ksp->data;
  CGAsyncArrays a;

  PetscFunctionBegin;
  PetscCall(ArraysGet(ksp, device, fused, &a));
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncDirection_CUDA(n, cg->state, a.z, a.dinv, a.r, a.p));
#endif
  } else PetscCall(CGAsyncDirection_Host(n, cg->state, a.z, a.dinv, a.r, a.p));
  PetscCall(ArraysRestore(ksp, device, fused, &a));
  PetscCall(KSP_MatMult(ksp, Amat, ksp->work[2], ksp->work[3]));
  PetscCall(ArraysGet(ksp, device, fused, &a));
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncCurvature_CUDA(n, cg->state, a.p, a.w, cg->partial, cg->counter));
    PetscCall(CGAsyncUpdate_CUDA(n, cg->state, cg->norms, a.x, a.r, a.p, a.w, a.z, a.dinv, fused, cg->partial, cg->counter));
#endif
  } else {
    PetscCall(CGAsyncCurvature_Host(n, cg->state, a.p, a.w, cg->partial));
    PetscCall(CGAsyncUpdate_Host(n, cg->state, cg->norms, a.x, a.r, a.p, a.w, a.z, a.dinv, fused, cg->partial));
  }
  PetscCall(ArraysRestore(ksp, device, fused, &a));
  if (!fused) { /* a PC of its own: z = B r, then the sums and the test (the update kernel without x) */
    PetscCall(KSP_PCApply(ksp, ksp->work[0], ksp->work[1]));
    PetscCall(ArraysGet(ksp, device, fused, &a));
    if (device) {
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(CGAsyncUpdate_CUDA(n, cg->state, cg->norms, NULL, a.r, a.p, a.w, a.z, NULL, PETSC_TRUE, cg->partial, cg->counter));
#endif
    } else PetscCall(CGAsyncUpdate_Host(n, cg->state, cg->norms, NULL, a.r, a.p, a.w, a.z, NULL, PETSC_TRUE, cg->partial));
    PetscCall(ArraysRestore(ksp, device, fused, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(ELLWARP_HAVE_CUDA)
/* -ksp_cgasync_graph: run k iterations as one CUDA graph.  The graph is captured once and replayed while the
   matrix (its pattern and layout: the same device arrays) and the vectors' arrays stay the same; the values may
   change, the kernels read them at replay.  Only for MATSEQELLWARP, whose MatMult is a kernel launch with no host
   work that depends on the values. */
static PetscErrorCode GraphBatch(KSP ksp, Mat Amat, PetscBool fused, PetscInt n, PetscInt k)
{
  KSP_CGAsync     *cg = (KSP_CGAsync *)ksp->data;
  CGAsyncArrays    a;
  PetscObjectState nz;
  MatEllwarpInfo   info;
  PetscBool        same;

  PetscFunctionBegin;
  PetscCall(ArraysGet(ksp, PETSC_TRUE, fused, &a));
  PetscCall(ArraysRestore(ksp, PETSC_TRUE, fused, &a));
  PetscCall(MatGetNonzeroState(Amat, &nz));
  PetscCall(MatEllwarpGetInfo(Amat, &info));
  same = (PetscBool)(cg->graphexec && cg->graphk == k && cg->graphnzstate == nz && cg->graphnanalyses == info.nanalyses && cg->graphkey[0] == (const void *)a.x && cg->graphkey[1] == (const void *)a.r && cg->graphkey[2] == (const void *)a.p && cg->graphkey[3] == (const void *)a.w &&
                     cg->graphkey[4] == (fused ? (const void *)a.dinv : (const void *)a.z) && cg->graphkey[5] == (const void *)Amat);
  if (!same) {
    PetscCall(CGAsyncGraphDestroy_CUDA(cg));
    PetscCall(CGAsyncGraphBegin_CUDA(cg));
    for (PetscInt q = 0; q < k; q++) PetscCall(Iteration(ksp, Amat, PETSC_TRUE, fused, n));
    PetscCall(CGAsyncGraphEnd_CUDA(cg));
    cg->graphk         = k;
    cg->graphnzstate   = nz;
    cg->graphnanalyses = info.nanalyses;
    cg->graphkey[0]    = a.x;
    cg->graphkey[1]    = a.r;
    cg->graphkey[2]    = a.p;
    cg->graphkey[3]    = a.w;
    cg->graphkey[4]    = fused ? (const void *)a.dinv : (const void *)a.z;
    cg->graphkey[5]    = Amat;
    cg->ngraphs++;
    /* the capture only recorded the kernels: mark what they write as changed on the device */
  }
  PetscCall(CGAsyncGraphLaunch_CUDA(cg));
  cg->ngraphlaunches++;
  /* the replay writes x, r, p, w on the device: tell the vectors (their device copies are the valid ones) */
  PetscCall(ArraysGet(ksp, PETSC_TRUE, fused, &a));
  PetscCall(ArraysRestore(ksp, PETSC_TRUE, fused, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode KSPSolve_CGAsync(KSP ksp)
{
  KSP_CGAsync  *cg = (KSP_CGAsync *)ksp->data;
  Mat           Amat, Pmat;
  Vec           X = ksp->vec_sol, B = ksp->vec_rhs, R = ksp->work[0], Z = ksp->work[1];
  PetscInt      n, i = 0, k, slot = 0, pending = -1, c = PETSC_INT_MAX, pits;
  PetscReal     prn;
  PetscMemType  mtype;
  PetscBool     device, fused, devtest, graph = PETSC_FALSE;
  CGAsyncTest   test;
  CGAsyncState  st;
  CGAsyncArrays a;

  PetscFunctionBegin;
  PetscCheck(ksp->pc_side == PC_LEFT, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPCGASYNC: left preconditioning only");
  PetscCall(PCGetOperators(ksp->pc, &Amat, &Pmat));
  PetscCall(VecGetLocalSize(X, &n));
  {
    PetscScalar *arr;
    PetscCall(VecGetArrayAndMemType(R, &arr, &mtype));
    PetscCall(VecRestoreArrayAndMemType(R, &arr));
  }
  device = PetscMemTypeDevice(mtype) ? PETSC_TRUE : PETSC_FALSE;
#if !defined(ELLWARP_HAVE_CUDA)
  PetscCheck(!device, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPCGASYNC: device vectors in a build without CUDA");
#endif
  PetscCall(KSPCGAsyncAllocState(ksp, device, n));
  PetscCall(KSPCGAsyncJacobi(ksp, Pmat, &fused));
  cg->jacobi = fused;
  cg->nsolves++;

  /* the test runs on the vectors' side when it is KSPConvergedDefault and nobody watches single iterations
     (monitors see every iteration as CG shows them: the host then reads the state back after each one) */
  devtest = (PetscBool)(ksp->converged == KSPConvergedDefault && ksp->numbermonitors == 0);
  k       = devtest && device ? cg->check_every : 1;
#if defined(ELLWARP_HAVE_CUDA)
  if (device && devtest && cg->use_graph && fused) PetscCall(PetscObjectTypeCompare((PetscObject)Amat, MATSEQELLWARP, &graph));
#endif

  /* r = b - A x, z = B r */
  ksp->its = 0;
  if (!ksp->guess_zero) {
    PetscCall(KSP_MatMult(ksp, Amat, X, R));
    PetscCall(VecAYPX(R, -1.0, B));
  } else PetscCall(VecCopy(B, R));
  if (!fused) PetscCall(KSP_PCApply(ksp, R, Z));

  PetscCall(PetscMemzero(&test, sizeof(test)));
  test.normtype = ksp->normtype;
  test.max_it   = ksp->max_it;
  test.min_it   = ksp->min_it;
  test.chknorm  = ksp->chknorm;
  test.abstol   = ksp->abstol;
  test.divtol   = ksp->divtol;
  test.devtest  = devtest;
  if (devtest) test.convmaxits = ((KSPConvergedDefaultCtx *)ksp->cnvP)->convmaxits;

  /* iteration 0: the norm and beta, read back once per solve for the host's own test (which sets ttol and rnorm0
     exactly as KSPConvergedDefault does, for any initial guess) */
  PetscCall(ArraysGet(ksp, device, fused, &a));
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncStart_CUDA(n, test, cg->state, cg->norms, a.r, a.z, a.dinv, cg->partial, cg->counter));
#endif
  } else PetscCall(CGAsyncStart_Host(n, test, cg->state, cg->norms, a.r, a.z, a.dinv, cg->partial));
  PetscCall(ArraysRestore(ksp, device, fused, &a));
  PetscCall(KSPCGAsyncGetState(cg, &st));
  KSPCheckNorm(ksp, st.rnorm);
  PetscCall(KSPLogResidualHistory(ksp, st.rnorm));
  PetscCall(KSPMonitor(ksp, 0, st.rnorm));
  ksp->rnorm = st.rnorm;
  PetscCall((*ksp->converged)(ksp, 0, st.rnorm, &ksp->reason, ksp->cnvP));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);
  KSPCheckDot(ksp, st.beta);
  if (st.beta == 0.0) { /* as KSPSolve_CG at the top of its first iteration */
    ksp->its    = 1;
    ksp->reason = KSP_CONVERGED_ATOL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  test.ttol   = ksp->ttol;
  test.rnorm0 = ksp->rnorm0;
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CGAsyncSetTest_CUDA(cg->state, test)); /* a one-thread kernel: no host-to-device copy */
#endif
  } else cg->state->test = test;

  /* batches: iteration 0 alone, then k iterations (one graph with -ksp_cgasync_graph).  With -ksp_cgasync_predict
     the host extrapolates the norms it has read back (log-linearly in the iteration) to the iteration c where the
     test will pass; once c is within the next batch it queues only up to c and waits for each batch, so that few
     iterations are queued after convergence (each costs a MatMult and the host's launches) */
  pits = 0;
  prn  = st.rnorm;
  while (i < ksp->max_it) {
    PetscInt  nbatch = i == 0 ? 1 : PetscMin(k, ksp->max_it - i);
    PetscBool near   = (PetscBool)(device && devtest && cg->predict && c <= i + k);

    if (near) nbatch = PetscMax(1, PetscMin(nbatch, c - i));
#if defined(ELLWARP_HAVE_CUDA)
    if (graph && nbatch == k && k > 1) PetscCall(GraphBatch(ksp, Amat, fused, n, k));
    else
#endif
      for (PetscInt q = 0; q < nbatch; q++) PetscCall(Iteration(ksp, Amat, device, fused, n));
    i += nbatch;
    if (!devtest) { /* the host's test (a user's, or with monitors), after every iteration */
      PetscCall(KSPCGAsyncGetState(cg, &st));
      cg->nreadbacks++;
      ksp->its   = i;
      ksp->rnorm = st.rnorm;
      PetscCall(KSPLogResidualHistory(ksp, st.rnorm));
      PetscCall(KSPMonitor(ksp, i, st.rnorm));
      PetscCall((*ksp->converged)(ksp, i, st.rnorm, &ksp->reason, ksp->cnvP));
      if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);
      if (st.reason) break;
      continue;
    }
    if (!device) { /* the host backend: the state is here, no waiting */
      if (cg->state->reason) break;
      continue;
    }
#if defined(ELLWARP_HAVE_CUDA)
    /* the device: after each batch queue a copy of the state and look at the previous batch's, so the host keeps
       a batch queued ahead of the device instead of waiting for each reduction */
    PetscCall(CGAsyncReadBack_CUDA(cg, slot));
    cg->nreadbacks++;
    {
      PetscInt got = -1;
      if (near) { /* wait for this batch (and so for the one before) */
        PetscCall(CGAsyncWait_CUDA(cg, slot));
        got     = slot;
        pending = -1;
        cg->nsyncs++;
      } else {
        if (pending >= 0) {
          PetscCall(CGAsyncWait_CUDA(cg, pending));
          got = pending;
        }
        pending = slot;
        slot    = 1 - slot;
      }
      if (got >= 0) {
        const CGAsyncState *h = cg->hstate[got];
        if (h->reason) break;
        /* the mean rate per iteration since iteration 0 (steadier than the last batch's: CG's norms are not monotone) */
        if (h->its > pits && h->rnorm > 0 && h->rnorm < prn && h->rnorm > test.ttol) {
          const PetscReal rate = PetscLogReal(h->rnorm / prn) / (PetscReal)(h->its - pits), left = PetscLogReal(test.ttol / h->rnorm) / rate;
          c = h->its + (PetscInt)PetscCeilReal(PetscMin(left, (PetscReal)ksp->max_it));
        }
      }
    }
#endif
  }
  /* the final state (waits for what is queued) */
  PetscCall(KSPCGAsyncGetState(cg, &st));
  if (device && st.its < i) cg->nextra += i - st.its;
  ksp->its    = st.its;
  ksp->rnorm  = st.rnorm;
  ksp->reason = st.reason ? (KSPConvergedReason)st.reason : KSP_DIVERGED_ITS;
  if (devtest && ksp->res_hist) { /* the norms of the iterations, as CG would have logged them */
    PetscReal *h;
    PetscCall(PetscMalloc1(st.its + 1, &h));
    if (device) {
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(CGAsyncDownload_CUDA(h, cg->norms, (st.its + 1) * sizeof(PetscReal)));
#endif
    } else PetscCall(PetscArraycpy(h, cg->norms, st.its + 1));
    for (PetscInt q = 1; q <= PetscMin(st.its, i); q++) PetscCall(KSPLogResidualHistory(ksp, h[q]));
    PetscCall(PetscFree(h));
  }
  if (ksp->reason < 0 && ksp->errorifnotconverged) SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPCGASYNC: %s at iteration %" PetscInt_FMT, KSPConvergedReasons[ksp->reason], ksp->its);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_CGAsync(KSP ksp)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&cg->dinv));
  cg->dinv_id    = 0;
  cg->dinv_state = 0;
  PetscCall(KSPCGAsyncFreeState(cg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_CGAsync(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPReset_CGAsync(ksp));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPCGAsyncSetCheckEvery_C", NULL));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_CGAsync(KSP ksp, PetscViewer viewer)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;
  PetscBool    isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  state read back every %" PetscInt_FMT " iterations; Jacobi %s; %" PetscInt_FMT " solves, %" PetscInt_FMT " read-backs, %" PetscInt_FMT " iterations queued after convergence (no-ops but their MatMult), %" PetscInt_FMT " waits near convergence%s\n", cg->check_every, cg->jacobi ? "inside the kernels" : (cg->fuse_jacobi ? "not in use" : "through PCApply (-ksp_cgasync_fuse_jacobi 0)"), cg->nsolves, cg->nreadbacks, cg->nextra, cg->nsyncs, cg->predict ? "" : " (-ksp_cgasync_predict 0)"));
    if (cg->use_graph) PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA graphs of %" PetscInt_FMT " iterations: %" PetscInt_FMT " captured, %" PetscInt_FMT " launches\n", cg->check_every, cg->ngraphs, cg->ngraphlaunches));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_CGAsync(KSP ksp, PetscOptionItems PetscOptionsObject)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP CGASYNC options");
  PetscCall(PetscOptionsInt("-ksp_cgasync_check_every", "read the residual norm back every n iterations (device vectors)", "KSPCGAsyncSetCheckEvery", cg->check_every, &cg->check_every, NULL));
  PetscCheck(cg->check_every >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_cgasync_check_every must be >= 1");
  PetscCall(PetscOptionsBool("-ksp_cgasync_fuse_jacobi", "apply PCJACOBI inside the vector kernels", "KSPCGASYNC", cg->fuse_jacobi, &cg->fuse_jacobi, NULL));
  PetscCall(PetscOptionsBool("-ksp_cgasync_predict", "near the convergence predicted from the norms read back, queue shorter batches and wait for each", "KSPCGASYNC", cg->predict, &cg->predict, NULL));
  PetscCall(PetscOptionsBool("-ksp_cgasync_graph", "run each batch of check_every iterations as one CUDA graph (MATSEQELLWARP, fused Jacobi)", "KSPCGASYNC", cg->use_graph, &cg->use_graph, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPCGAsyncSetCheckEvery_CGAsync(KSP ksp, PetscInt k)
{
  KSP_CGAsync *cg = (KSP_CGAsync *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(k >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "the check interval must be >= 1, not %" PetscInt_FMT, k);
  cg->check_every = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPCGAsyncSetCheckEvery - Sets how often `KSPCGASYNC` reads its residual norm back from the device

  Logically Collective

  Input Parameters:
+ ksp - the `KSP` of type `KSPCGASYNC`
- k   - read the state back every k iterations (at least 1)

  Options Database Key:
. -ksp_cgasync_check_every <k> - the interval (default 8)

  Level: intermediate

  Note:
  The read-back is asynchronous and one batch behind: the host queues the next k iterations before it looks at
  the state of the last batch, so the device never waits for the host.  Iterations queued after the convergence
  test passed do nothing but their `MatMult`; the solution, iteration count and norms are those of the
  iteration at which the test passed.  A larger k costs more such products, a smaller k more read-backs.
  Host vectors check every iteration (there is nothing to wait for).

.seealso: `KSPCGASYNC`, `KSPCG`
@*/
PetscErrorCode KSPCGAsyncSetCheckEvery(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, k, 2);
  PetscTryMethod(ksp, "KSPCGAsyncSetCheckEvery_C", (KSP, PetscInt), (ksp, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPCGASYNC - "cgasync" - The preconditioned conjugate gradient method (as `KSPCG`) with its scalars kept
   next to the vectors: on the device, an iteration is four kernels (direction, `MatMult`, curvature, update),
   the two reductions of an iteration are summed on the device, and the host reads the state back only every
   `-ksp_cgasync_check_every` iterations, asynchronously.  With `PCJACOBI` the inverse diagonal is applied
   inside the kernels (computed on the device from `MatGetDiagonal()`), so an iteration does 2 reductions and
   13 vector passes instead of `KSPCG`'s 3 reductions, 3 host waits and 17 passes.

   Options Database Keys:
+  -ksp_cgasync_check_every <k>     - read the state back every k iterations (default 8)
.  -ksp_cgasync_fuse_jacobi <bool>  - apply `PCJACOBI` inside the kernels (default true)
.  -ksp_cgasync_predict <bool>      - near the convergence predicted from the norms read back (their mean rate since iteration 0), queue shorter batches and wait for each (default true)
-  -ksp_cgasync_graph <bool>        - run each batch of iterations as one CUDA graph, captured once per matrix pattern and vectors (`MATSEQELLWARP` with the fused Jacobi; default false)

   Level: intermediate

   Notes:
   Symmetric positive definite matrices, left preconditioning, one process, real scalars; norm types
   preconditioned (default), unpreconditioned and natural.  The convergence test is `KSPConvergedDefault()`'s,
   run on the device for iterations >= 1 with the tolerances the host's own test set at iteration 0; with any other
   test, or with monitors, the host reads the state back and runs the test after every iteration.  Breakdowns
   (indefinite matrix or preconditioner, beta = 0, NaN) are detected as in `KSPCG`.  The residual history is
   logged after the solve.  Host vectors run the plain-C reference of the same kernels.

.seealso: `KSPCG`, `KSPCGAsyncSetCheckEvery()`, `KSPCreate()`, `KSPSetType()`
M*/
PETSC_EXTERN PetscErrorCode KSPCreate_CGAsync(KSP ksp)
{
  KSP_CGAsync *cg;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPCGASYNC runs on one process (its reductions are local); use KSPCG on %d processes", size);
  PetscCall(PetscNew(&cg));
  cg->check_every = 8;
  cg->fuse_jacobi = PETSC_TRUE;
  cg->predict     = PETSC_TRUE;
  ksp->data       = (void *)cg;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  ksp->ops->setup          = KSPSetUp_CGAsync;
  ksp->ops->solve          = KSPSolve_CGAsync;
  ksp->ops->destroy        = KSPDestroy_CGAsync;
  ksp->ops->reset          = KSPReset_CGAsync;
  ksp->ops->view           = KSPView_CGAsync;
  ksp->ops->setfromoptions = KSPSetFromOptions_CGAsync;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPCGAsyncSetCheckEvery_C", KSPCGAsyncSetCheckEvery_CGAsync));
  PetscFunctionReturn(PETSC_SUCCESS);
}
