/* Matrix-free Q_p operators of DMAssembly (issue 19): a MATSHELL whose MatMult applies the mass (CEED BP1) or
   Poisson stiffness (BP3) operator of one scalar Q_p Lagrange PetscFE (p = 1..8) on quadrilaterals or hexahedra
   without a matrix.  Variants (-dm_assembly_matfree_type, a function list like the DMAssembly types):
     sumfact       sum factorisation with the geometry factors at the Gauss points stored per element (any
                   non-affine / curved hex mesh); element outputs by atomics or gathered by node
                   (-dm_assembly_matfree_scatter atomic|gather)
     elmat_atomic  the paper's (Ljungkvist et al.): precomputed element matrices (one for a uniform affine mesh,
     elmat_color   per element otherwise), one thread per element, conflicts by atomics / by colouring (one
     elmat_gather  launch per colour) / gathered by node
     elmat_max     the same without protection: races, wrong results; the paper's upper bound (test-only)
   The element math and layouts: include/petscellwarp/private/dmasmmatfree.h; device kernels: dmasmmatfreecuda.cu.
   Dirichlet: the constrained dofs of the DM's section are eliminated as DMPlexSNESComputeJacobianFEM does (the
   Mat acts on the global vector, which holds the unconstrained dofs only).  One process. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmmatfree.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscellwarp/private/ellwarpthreads.h>

static PetscFunctionList DMAsmMatFreeList = NULL;
static PetscLogEvent     DMASMMF_SetUp = 0, DMASMMF_Mult = 0, DMASMMF_Diag = 0;
static PetscBool         mfinit = PETSC_FALSE;

static PetscErrorCode DMAsmMatFreeFinalize(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&DMAsmMatFreeList));
  mfinit = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* host references of the variants: the same layouts and orders as the device kernels */

static void GatherHost(DMAsmMatFree mf, PetscScalar *y, PetscBool add)
{
  for (PetscInt d = 0; d < mf->ndof; d++) {
    PetscScalar s = add ? y[d] : 0;
    for (PetscInt k = mf->gptr[d]; k < mf->gptr[d + 1]; k++) s += mf->ye[mf->gidx[k]];
    y[d] = s;
  }
}

static PetscErrorCode ApplySumFactHost(DMAsmMatFree mf, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  const PetscInt nen = mf->nen;
  PetscScalar   *work, *ue, *ye;
  PetscReal     *geoe = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(3 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX + 3 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX, &work, nen, &ue, nen, &ye));
  if (mf->recompute) PetscCall(PetscMalloc1(mf->ng * mf->nq, &geoe));
  if (!add && mf->scatter == DMASMMF_SCATTER_ATOMIC) PetscCall(PetscArrayzero(y, mf->ndof));
  for (PetscInt e = 0; e < mf->nelem; e++) {
    const PetscInt *ed = mf->edof + e * nen;
    for (PetscInt i = 0; i < nen; i++) ue[i] = ed[i] >= 0 ? x[ed[i]] : 0;
    if (mf->recompute) DMAsmMFGeoElementHost((int)mf->dim, mf->op == DMASMMF_POISSON, (int)mf->q, mf->xg, mf->wg, mf->xv + e * (1 << mf->dim) * mf->dim, geoe);
    DMAsmMFElementHost((int)mf->dim, (int)mf->n, (int)mf->q, mf->op == DMASMMF_POISSON, mf->B, mf->D, mf->recompute ? geoe : mf->geo + e * mf->ng * mf->nq, ue, ye, work);
    if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(PetscArraycpy(mf->ye + e * nen, ye, nen));
    else
      for (PetscInt i = 0; i < nen; i++)
        if (ed[i] >= 0) y[ed[i]] += ye[i];
  }
  if (mf->scatter == DMASMMF_SCATTER_GATHER) GatherHost(mf, y, add);
  PetscCall(PetscFree3(work, ue, ye));
  PetscCall(PetscFree(geoe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* thread per element: y_i = sum_j K_ij x[edof_j], K read as the device kernel reads it */
static inline void ElmatElementHost(DMAsmMatFree mf, PetscInt e, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt nen = mf->nen, ne = mf->nelem;
  for (PetscInt i = 0; i < nen; i++) {
    PetscScalar s = 0;
    for (PetscInt j = 0; j < nen; j++) {
      const PetscInt  dj = mf->edofT[j * ne + e];
      const PetscReal k  = mf->uniform ? mf->K[i * nen + j] : mf->K[(i * nen + j) * ne + e];
      if (dj >= 0) s += k * x[dj];
    }
    if (mf->scatter == DMASMMF_SCATTER_GATHER) mf->ye[e * nen + i] = s;
    else {
      const PetscInt di = mf->edofT[i * ne + e];
      if (di >= 0) y[di] += s;
    }
  }
}

static PetscErrorCode ApplyElmatHost(DMAsmMatFree mf, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  PetscFunctionBegin;
  if (!add && mf->scatter != DMASMMF_SCATTER_GATHER) PetscCall(PetscArrayzero(y, mf->ndof));
  if (mf->scatter == DMASMMF_SCATTER_COLOR) {
    for (PetscInt c = 0; c < mf->ncolors; c++)
      for (PetscInt k = mf->colptr[c]; k < mf->colptr[c + 1]; k++) ElmatElementHost(mf, mf->colelem[k], x, y);
  } else {
    for (PetscInt e = 0; e < mf->nelem; e++) ElmatElementHost(mf, e, x, y);
  }
  if (mf->scatter == DMASMMF_SCATTER_GATHER) GatherHost(mf, y, add);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CPU variants (-dm_assembly_matfree_host_threads): threads over elements writing race-free (gather: each
   element its own outputs, then threads over dofs; colour: the elements of one colour), the same arithmetic per
   element as the serial reference; private buffers: threads over elements, each adding into its own zeroed copy of y
   (the paper's CPU variant beside colouring), then threads over dofs summing the copies in thread order.  The
   workers make no PETSc call (ellwarpthreads.h). */
typedef struct {
  DMAsmMatFree       mf;
  const PetscScalar *x;
  PetscScalar       *y;
  PetscBool          add;
  const PetscInt    *elist;
  PetscScalar       *work;
  size_t             wstride;
  PetscScalar       *priv; /* private: the buffer of range t is priv + t ndof */
  PetscInt           npriv;
} MFHostCtx;

#define MF_WORK (6 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX)

static int WorkSumFact(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  MFHostCtx         *c  = (MFHostCtx *)vctx;
  const DMAsmMatFree mf = c->mf;
  const PetscInt     nen = mf->nen;
  PetscScalar       *work = c->work + t * c->wstride, *ue = work + MF_WORK, *ye = ue + nen;
  PetscReal         *geoe = (PetscReal *)(ye + nen);
  PetscScalar       *y    = c->priv ? c->priv + t * mf->ndof : c->y;

  if (c->priv)
    for (PetscInt d = 0; d < mf->ndof; d++) y[d] = 0;
  for (PetscCount k = b; k < end; k++) {
    const PetscInt  e  = c->elist ? c->elist[k] : (PetscInt)k;
    const PetscInt *ed = mf->edof + e * nen;
    for (PetscInt i = 0; i < nen; i++) ue[i] = ed[i] >= 0 ? c->x[ed[i]] : 0;
    if (mf->recompute) DMAsmMFGeoElementHost((int)mf->dim, mf->op == DMASMMF_POISSON, (int)mf->q, mf->xg, mf->wg, mf->xv + e * (1 << mf->dim) * mf->dim, geoe);
    DMAsmMFElementHost((int)mf->dim, (int)mf->n, (int)mf->q, mf->op == DMASMMF_POISSON, mf->B, mf->D, mf->recompute ? geoe : mf->geo + e * mf->ng * mf->nq, ue, ye, work);
    if (mf->scatter == DMASMMF_SCATTER_GATHER)
      for (PetscInt i = 0; i < nen; i++) mf->ye[e * nen + i] = ye[i];
    else
      for (PetscInt i = 0; i < nen; i++)
        if (ed[i] >= 0) y[ed[i]] += ye[i];
  }
  return 0;
}

static int WorkElmat(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  MFHostCtx   *c = (MFHostCtx *)vctx;
  PetscScalar *y = c->priv ? c->priv + t * c->mf->ndof : c->y;

  if (c->priv)
    for (PetscInt d = 0; d < c->mf->ndof; d++) y[d] = 0;
  for (PetscCount k = b; k < end; k++) ElmatElementHost(c->mf, c->elist ? c->elist[k] : (PetscInt)k, c->x, y);
  return 0;
}

/* private buffers: y = (y +) the sum of the threads' copies, in thread order */
static int WorkReducePrivate(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  MFHostCtx     *c = (MFHostCtx *)vctx;
  const PetscInt n = c->mf->ndof;
  for (PetscCount d = b; d < end; d++) {
    PetscScalar s = c->add ? c->y[d] : 0;
    for (PetscInt r = 0; r < c->npriv; r++) s += c->priv[r * n + d];
    c->y[d] = s;
  }
  return 0;
}

static int WorkGather(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  MFHostCtx         *c  = (MFHostCtx *)vctx;
  const DMAsmMatFree mf = c->mf;
  for (PetscCount d = b; d < end; d++) {
    PetscScalar s = c->add ? c->y[d] : 0;
    for (PetscInt k = mf->gptr[d]; k < mf->gptr[d + 1]; k++) s += mf->ye[mf->gidx[k]];
    c->y[d] = s;
  }
  return 0;
}

static PetscErrorCode RunThreads(DMAsmMatFree mf, PetscCount n, PetscEllwarpRangeWork w, MFHostCtx *c)
{
  PetscInt nt;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpThreadsGetCount(mf->nthreads, n, 16, &nt));
  PetscCall(PetscEllwarpThreadsRun(nt, n, w, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the threaded host application (gather, colour or private buffers only; the others run the serial reference) */
static PetscErrorCode ApplyHostThreaded(DMAsmMatFree mf, PetscBool sumfact, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  MFHostCtx c = {mf, x, y, add, NULL, NULL, 0, NULL, 0};
  PetscInt  nt;

  PetscFunctionBegin;
  PetscCall(PetscEllwarpThreadsGetCount(mf->nthreads, mf->nelem, 16, &nt));
  c.wstride = MF_WORK + 2 * mf->nen + mf->ng * mf->nq;
  if (sumfact) PetscCall(PetscMalloc1(c.wstride * PetscMax(nt, 1), &c.work));
  if (!add && mf->scatter == DMASMMF_SCATTER_COLOR) PetscCall(PetscArrayzero(y, mf->ndof));
  if (mf->scatter == DMASMMF_SCATTER_COLOR) {
    for (PetscInt col = 0; col < mf->ncolors; col++) {
      c.elist = mf->colelem + mf->colptr[col];
      PetscCall(RunThreads(mf, mf->colptr[col + 1] - mf->colptr[col], sumfact ? WorkSumFact : WorkElmat, &c));
    }
  } else if (mf->scatter == DMASMMF_SCATTER_PRIVATE) {
    if (mf->npriv < nt) { /* the buffers are kept: first touch by their threads at every application (zeroing) */
      PetscCall(PetscFree(mf->ypriv));
      PetscCall(PetscMalloc1((size_t)nt * mf->ndof, &mf->ypriv));
      mf->npriv = nt;
    }
    c.priv  = mf->ypriv;
    c.npriv = nt;
    PetscCall(PetscEllwarpThreadsRun(nt, mf->nelem, sumfact ? WorkSumFact : WorkElmat, &c));
    PetscCall(RunThreads(mf, mf->ndof, WorkReducePrivate, &c));
  } else {
    PetscCall(RunThreads(mf, mf->nelem, sumfact ? WorkSumFact : WorkElmat, &c));
    PetscCall(RunThreads(mf, mf->ndof, WorkGather, &c));
  }
  PetscCall(PetscFree(c.work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool HostThreaded(DMAsmMatFree mf)
{
  return (PetscBool)(mf->nthreads != 1 && (mf->scatter == DMASMMF_SCATTER_GATHER || mf->scatter == DMASMMF_SCATTER_COLOR || mf->scatter == DMASMMF_SCATTER_PRIVATE));
}

static PetscErrorCode ApplySumFact(DMAsmMatFree mf, PetscMemType mtype, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype) && HostThreaded(mf)) PetscCall(ApplyHostThreaded(mf, PETSC_TRUE, x, y, add));
  else if (PetscMemTypeHost(mtype)) PetscCall(ApplySumFactHost(mf, x, y, add));
#if defined(ELLWARP_HAVE_CUDA)
  else PetscCall(DMAsmMFCUDASumFact(mf, x, y, add));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ApplyElmat(DMAsmMatFree mf, PetscMemType mtype, const PetscScalar *x, PetscScalar *y, PetscBool add)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype) && HostThreaded(mf)) PetscCall(ApplyHostThreaded(mf, PETSC_FALSE, x, y, add));
  else if (PetscMemTypeHost(mtype)) PetscCall(ApplyElmatHost(mf, x, y, add));
#if defined(ELLWARP_HAVE_CUDA)
  else PetscCall(DMAsmMFCUDAElmat(mf, x, y, add));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* set-up pieces */

/* dof -> contributions e*nen+i, increasing (the fixed order of the gather) */
static PetscErrorCode BuildGatherCSR(DMAsmMatFree mf)
{
  const PetscInt nen = mf->nen;
  PetscInt      *cnt;

  PetscFunctionBegin;
  if (mf->gptr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(mf->ndof + 1, &mf->gptr));
  for (PetscInt k = 0; k < mf->nelem * nen; k++)
    if (mf->edof[k] >= 0) mf->gptr[mf->edof[k] + 1]++;
  for (PetscInt d = 0; d < mf->ndof; d++) mf->gptr[d + 1] += mf->gptr[d];
  PetscCall(PetscMalloc1(mf->gptr[mf->ndof], &mf->gidx));
  PetscCall(PetscMalloc1(mf->ndof, &cnt));
  PetscCall(PetscArraycpy(cnt, mf->gptr, mf->ndof));
  for (PetscInt k = 0; k < mf->nelem * nen; k++)
    if (mf->edof[k] >= 0) mf->gidx[cnt[mf->edof[k]]++] = k;
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* greedy colouring: two elements sharing an unconstrained dof get different colours (only those write the same
   entry); elements in increasing order within a colour */
static PetscErrorCode BuildColoring(DMAsmMatFree mf)
{
  const PetscInt nen = mf->nen;
  PetscInt      *color, *mark, maxc = 64, nc = 0;

  PetscFunctionBegin;
  PetscCall(BuildGatherCSR(mf));
  PetscCall(PetscMalloc1(mf->nelem, &color));
  PetscCall(PetscMalloc1(maxc, &mark));
  for (PetscInt c = 0; c < maxc; c++) mark[c] = -1;
  for (PetscInt e = 0; e < mf->nelem; e++) {
    PetscInt c = 0;
    for (PetscInt i = 0; i < nen; i++) {
      const PetscInt d = mf->edof[e * nen + i];
      if (d < 0) continue;
      for (PetscInt k = mf->gptr[d]; k < mf->gptr[d + 1]; k++) {
        const PetscInt f = mf->gidx[k] / nen;
        if (f < e) mark[color[f]] = e;
      }
    }
    while (c < maxc && mark[c] == e) c++;
    if (c == maxc) {
      PetscCall(PetscRealloc(sizeof(PetscInt) * 2 * maxc, &mark));
      for (PetscInt k = maxc; k < 2 * maxc; k++) mark[k] = -1;
      maxc *= 2;
    }
    color[e] = c;
    nc       = PetscMax(nc, c + 1);
  }
  mf->ncolors = nc;
  PetscCall(PetscCalloc1(nc + 1, &mf->colptr));
  PetscCall(PetscMalloc1(mf->nelem, &mf->colelem));
  for (PetscInt e = 0; e < mf->nelem; e++) mf->colptr[color[e] + 1]++;
  for (PetscInt c = 0; c < nc; c++) mf->colptr[c + 1] += mf->colptr[c];
  for (PetscInt c = 0; c < nc; c++) mark[c] = mf->colptr[c];
  for (PetscInt e = 0; e < mf->nelem; e++) mf->colelem[mark[color[e]]++] = e;
  PetscCall(PetscFree(color));
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element matrices from the sum-factorised element applied to unit vectors: one matrix when every element has
   the same geometry factors (uniform affine mesh), else one per element within -dm_assembly_matfree_elmat_max_mb */
static PetscErrorCode BuildElementMatrices(DMAsmMatFree mf)
{
  const PetscInt nen = mf->nen, ne = mf->nelem, gsz = mf->ng * mf->nq;
  PetscScalar   *work, *ue, *ye;
  PetscReal      gmax = 0;
  PetscInt       nmat;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < gsz; k++) gmax = PetscMax(gmax, PetscAbsReal(mf->geo[k]));
  /* uniform: every element's factors equal element 0's to DMASMMF_UNIFORM_RTOL relative to the largest (a box
     mesh's cells differ by rounding only: ~1e-16 |x| / h relative; the one matrix then differs from the per-element
     ones by at most that much, below the 1e-12 the tests ask of the operator) */
  mf->unifdev = 0;
  for (PetscInt e = 1; e < ne && mf->unifdev <= DMASMMF_UNIFORM_RTOL; e++)
    for (PetscInt k = 0; k < gsz; k++) mf->unifdev = PetscMax(mf->unifdev, PetscAbsReal(mf->geo[e * gsz + k] - mf->geo[k]) / gmax);
  mf->uniform = (PetscBool)(mf->unifdev <= DMASMMF_UNIFORM_RTOL);
  nmat = mf->uniform ? 1 : ne;
  PetscCheck(mf->uniform || (double)ne * nen * nen * sizeof(PetscReal) <= (double)mf->elmatmax, PetscObjectComm((PetscObject)mf->dm), PETSC_ERR_SUP,
             "%s: the mesh is not uniform and affine, and its %" PetscInt_FMT " element matrices need %.0f MB > -dm_assembly_matfree_elmat_max_mb %.0f; use -dm_assembly_matfree_type sumfact", mf->type, ne, (double)ne * nen * nen * sizeof(PetscReal) / 1048576.0,
             (double)mf->elmatmax / 1048576.0);
  PetscCall(PetscMalloc1(nmat * nen * nen, &mf->K));
  PetscCall(PetscMalloc3(3 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX + 3 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX, &work, nen, &ue, nen, &ye));
  for (PetscInt e = 0; e < nmat; e++)
    for (PetscInt j = 0; j < nen; j++) {
      for (PetscInt i = 0; i < nen; i++) ue[i] = i == j;
      DMAsmMFElementHost((int)mf->dim, (int)mf->n, (int)mf->q, mf->op == DMASMMF_POISSON, mf->B, mf->D, mf->geo + e * gsz, ue, ye, work);
      for (PetscInt i = 0; i < nen; i++) mf->K[(i * nen + j) * nmat + e] = PetscRealPart(ye[i]);
    }
  PetscCall(PetscFree3(work, ue, ye));
  PetscCall(PetscMalloc1(ne * nen, &mf->edofT));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt i = 0; i < nen; i++) mf->edofT[i * ne + e] = mf->edof[e * nen + i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUpSumFact(DMAsmMatFree mf)
{
  PetscFunctionBegin;
  if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(BuildGatherCSR(mf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUpElmat(DMAsmMatFree mf)
{
  PetscFunctionBegin;
  PetscCall(BuildElementMatrices(mf));
  if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(BuildGatherCSR(mf));
  if (mf->scatter == DMASMMF_SCATTER_COLOR) PetscCall(BuildColoring(mf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const ScatterNames[]        = {"atomic", "gather", "color", "none", "private"};
static const char *const SumFactScatterNames[] = {"atomic", "gather", "private"}; /* -dm_assembly_matfree_scatter */

static const char *SumFactOutputs(DMAsmMatFree mf)
{
  if (mf->scatter == DMASMMF_SCATTER_GATHER) return "gathered by node (each dof sums its contributions in element order: deterministic)";
  if (mf->scatter == DMASMMF_SCATTER_PRIVATE) return "added into private buffers per host thread, summed by dof (CPU only)";
  return "added with atomics";
}

static PetscErrorCode ViewSumFact(DMAsmMatFree mf, PetscViewer v)
{
  PetscFunctionBegin;
  if (mf->recompute) PetscCall(PetscViewerASCIIPrintf(v, "sum factorisation, one block per element, geometry factors recomputed at the %" PetscInt_FMT " Gauss points from the %d corner coordinates (multilinear map; the mesh's coordinates are Q1); element outputs %s\n", mf->nq, 1 << mf->dim,
                                                    SumFactOutputs(mf)));
  else PetscCall(PetscViewerASCIIPrintf(v, "sum factorisation, one block per element, geometry factors stored at the %" PetscInt_FMT " Gauss points (%" PetscInt_FMT " values each); element outputs %s\n", mf->nq, mf->ng,
                                   SumFactOutputs(mf)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ViewElmat(DMAsmMatFree mf, PetscViewer v)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "precomputed element matrices (%s: %s, largest relative deviation from element 0 %.2g, tolerance %.0e), one thread per element; conflicts: %s\n", mf->uniform ? "one" : "one per element", mf->uniform ? "every element has the same geometry factors" : "the mesh is not uniform and affine", (double)mf->unifdev, (double)DMASMMF_UNIFORM_RTOL,
                                   mf->scatter == DMASMMF_SCATTER_COLOR ? "colouring" : (mf->scatter == DMASMMF_SCATTER_GATHER ? "gather by node" : (mf->scatter == DMASMMF_SCATTER_ATOMIC ? "atomics" : (mf->scatter == DMASMMF_SCATTER_PRIVATE ? "private buffers per host thread, summed by dof (CPU only)" : "NONE (racy upper bound, test-only)")))));
  if (mf->scatter == DMASMMF_SCATTER_COLOR) PetscCall(PetscViewerASCIIPrintf(v, "%" PetscInt_FMT " colours (greedy, elements sharing a dof)\n", mf->ncolors));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the registered variants: constructors that fill the ops */
static PetscErrorCode DMAsmMatFreeCreate_SumFact(DMAsmMatFree mf)
{
  PetscFunctionBegin;
  mf->ops.setup = SetUpSumFact;
  mf->ops.apply = ApplySumFact;
  mf->ops.view  = ViewSumFact;
  if (mf->scatter != DMASMMF_SCATTER_GATHER && mf->scatter != DMASMMF_SCATTER_PRIVATE) mf->scatter = DMASMMF_SCATTER_ATOMIC;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ElmatOps(DMAsmMatFree mf, DMAsmMFScatter s)
{
  PetscFunctionBegin;
  mf->ops.setup = SetUpElmat;
  mf->ops.apply = ApplyElmat;
  mf->ops.view  = ViewElmat;
  mf->scatter   = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMAsmMatFreeCreate_ElmatAtomic(DMAsmMatFree mf)
{
  return ElmatOps(mf, DMASMMF_SCATTER_ATOMIC);
}
static PetscErrorCode DMAsmMatFreeCreate_ElmatColor(DMAsmMatFree mf)
{
  return ElmatOps(mf, DMASMMF_SCATTER_COLOR);
}
static PetscErrorCode DMAsmMatFreeCreate_ElmatGather(DMAsmMatFree mf)
{
  return ElmatOps(mf, DMASMMF_SCATTER_GATHER);
}
static PetscErrorCode DMAsmMatFreeCreate_ElmatMax(DMAsmMatFree mf)
{
  return ElmatOps(mf, DMASMMF_SCATTER_NONE);
}
static PetscErrorCode DMAsmMatFreeCreate_ElmatPrivate(DMAsmMatFree mf)
{
  return ElmatOps(mf, DMASMMF_SCATTER_PRIVATE);
}

/*
  DMAssemblyMatFreeRegister - Adds a matrix-free operator variant for `DMAssemblyCreateMatrixFree()` (NULL name:
  registers the built-in ones only)

  Not Collective

  Input Parameters:
+ name   - the name, for `-dm_assembly_matfree_type`
- create - the constructor: fills the variant's operations (include/petscellwarp/private/dmasmmatfree.h)

  Level: developer

.seealso: `DMAssemblyCreateMatrixFree()`
*/
PetscErrorCode DMAssemblyMatFreeRegister(const char name[], PetscErrorCode (*create)(DMAsmMatFree))
{
  PetscFunctionBegin;
  if (!mfinit) {
    mfinit = PETSC_TRUE;
    PetscCall(PetscRegisterFinalize(DMAsmMatFreeFinalize));
    PetscCall(PetscLogEventRegister("DMAsmMFSetUp", DMASSEMBLY_CLASSID, &DMASMMF_SetUp));
    PetscCall(PetscLogEventRegister("DMAsmMFMult", DMASSEMBLY_CLASSID, &DMASMMF_Mult));
    PetscCall(PetscLogEventRegister("DMAsmMFDiag", DMASSEMBLY_CLASSID, &DMASMMF_Diag));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "sumfact", DMAsmMatFreeCreate_SumFact));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "elmat_atomic", DMAsmMatFreeCreate_ElmatAtomic));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "elmat_color", DMAsmMatFreeCreate_ElmatColor));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "elmat_gather", DMAsmMatFreeCreate_ElmatGather));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "elmat_max", DMAsmMatFreeCreate_ElmatMax));
    PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, "elmat_private", DMAsmMatFreeCreate_ElmatPrivate));
  }
  if (name) PetscCall(PetscFunctionListAdd(&DMAsmMatFreeList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1-D Lagrange basis on the nodes xn[n] and its derivative at the points xq[q] */
static void Lagrange1D(PetscInt n, const PetscReal xn[], PetscInt q, const PetscReal xq[], PetscReal B[], PetscReal D[])
{
  for (PetscInt k = 0; k < q; k++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal b = 1, d = 0;
      for (PetscInt m = 0; m < n; m++)
        if (m != j) b *= (xq[k] - xn[m]) / (xn[j] - xn[m]);
      for (PetscInt l = 0; l < n; l++) {
        PetscReal t;
        if (l == j) continue;
        t = 1 / (xn[j] - xn[l]);
        for (PetscInt m = 0; m < n; m++)
          if (m != j && m != l) t *= (xq[k] - xn[m]) / (xn[j] - xn[m]);
        d += t;
      }
      B[k * n + j] = b;
      D[k * n + j] = d;
    }
}

/* the index of x in the sorted 1-D set s[m] (tolerance), -1 if none */
static PetscInt Find1D(PetscInt m, const PetscReal s[], PetscReal x)
{
  for (PetscInt i = 0; i < m; i++)
    if (PetscAbsReal(s[i] - x) < 1e-10) return i;
  return -1;
}

/* the FE's reference data in tensor form: node and point permutations, B and D */
static PetscErrorCode SetUpReference(DMAsmMatFree mf, PetscFE fe, PetscInt fe2t[], PetscInt **qperm, PetscReal **qw)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)mf->dm);
  PetscDualSpace   sp;
  PetscQuadrature  quad;
  PetscInt         dim = mf->dim, n = 0, nqp, qdim, qnc, q;
  const PetscReal *qp, *qwt;
  PetscReal        xn[DMASMMF_PMAX + 1], xg[DMASMMF_QMAX], wg[DMASMMF_QMAX];

  PetscFunctionBegin;
  PetscCall(PetscFEGetDualSpace(fe, &sp));
  /* 1-D node set: the distinct first coordinates of the nodes */
  for (PetscInt i = 0; i < mf->nen; i++) {
    PetscQuadrature  f;
    PetscInt         np;
    const PetscReal *pts;
    PetscCall(PetscDualSpaceGetFunctional(sp, i, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, NULL, &np, &pts, NULL));
    PetscCheck(np == 1, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: the Lagrange functional %" PetscInt_FMT " is not a point evaluation (%" PetscInt_FMT " points)", i, np);
    for (PetscInt d = 0; d < dim; d++)
      if (Find1D(n, xn, pts[d]) < 0) {
        PetscCheck(n < mf->n, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: the FE's nodes are not a tensor product of %" PetscInt_FMT " 1-D nodes", mf->n);
        xn[n++] = pts[d];
      }
  }
  PetscCheck(n == mf->n, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: %" PetscInt_FMT " distinct 1-D node coordinates for degree %" PetscInt_FMT, n, mf->p);
  PetscCall(PetscSortReal(n, xn));
  for (PetscInt i = 0; i < mf->nen; i++) {
    PetscQuadrature  f;
    const PetscReal *pts;
    PetscInt         lex = 0;
    PetscCall(PetscDualSpaceGetFunctional(sp, i, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, NULL, NULL, &pts, NULL));
    for (PetscInt d = dim - 1; d >= 0; d--) lex = lex * n + Find1D(n, xn, pts[d]);
    fe2t[i] = lex;
  }
  {
    PetscBool *seen;
    PetscCall(PetscCalloc1(mf->nen, &seen));
    for (PetscInt i = 0; i < mf->nen; i++) {
      PetscCheck(!seen[fe2t[i]], comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: two FE nodes at one tensor node");
      seen[fe2t[i]] = PETSC_TRUE;
    }
    PetscCall(PetscFree(seen));
  }
  /* quadrature: must be the tensor Gauss rule of q points per direction */
  PetscCall(PetscFEGetQuadrature(fe, &quad));
  PetscCall(PetscQuadratureGetData(quad, &qdim, &qnc, &nqp, &qp, &qwt));
  q = (PetscInt)(PetscPowReal((PetscReal)nqp, 1.0 / dim) + 0.5);
  PetscCheck(qdim == dim && qnc == 1 && q >= 1 && q <= DMASMMF_QMAX && (dim == 2 ? q * q : q * q * q) == nqp, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: needs a tensor Gauss quadrature of at most %d points per direction, got %" PetscInt_FMT " points", DMASMMF_QMAX, nqp);
  PetscCall(PetscDTGaussQuadrature(q, -1.0, 1.0, xg, wg));
  for (PetscInt k = 0; k < q; k++) {
    mf->xg[k] = xg[k];
    mf->wg[k] = wg[k];
  }
  mf->q  = q;
  mf->nq = nqp;
  PetscCall(PetscMalloc2(nqp, qperm, nqp, qw));
  for (PetscInt k = 0; k < nqp; k++) {
    PetscInt  lex = 0;
    PetscReal w   = 1;
    for (PetscInt d = dim - 1; d >= 0; d--) {
      const PetscInt j = Find1D(q, xg, qp[k * dim + d]);
      PetscCheck(j >= 0, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: the FE's quadrature is not the tensor Gauss rule of %" PetscInt_FMT " points per direction", q);
      lex = lex * q + j;
      w *= wg[j];
    }
    PetscCheck(PetscAbsReal(w - qwt[k]) < 1e-12, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: the FE's quadrature weights are not the tensor Gauss weights");
    (*qperm)[k] = lex;
    (*qw)[k]    = qwt[k];
  }
  Lagrange1D(n, xn, q, xg, mf->B, mf->D);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the coordinates are the multilinear map of the cell's corners (no coordinate FE, or a degree-1 one) */
static PetscErrorCode CoordinatesMultilinear(DM dm, PetscBool *q1, PetscInt *cdeg)
{
  DM          cdm;
  PetscObject cdisc = NULL;
  PetscInt    nf    = 0;

  PetscFunctionBegin;
  *q1   = PETSC_TRUE;
  *cdeg = 1;
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetNumFields(cdm, &nf));
  if (nf) PetscCall(DMGetField(cdm, 0, NULL, &cdisc));
  if (cdisc) {
    PetscClassId cid;
    PetscCall(PetscObjectGetClassId(cdisc, &cid));
    if (cid == PETSCFE_CLASSID) {
      PetscSpace csp;
      PetscCall(PetscFEGetBasisSpace((PetscFE)cdisc, &csp));
      PetscCall(PetscSpaceGetDegree(csp, cdeg, NULL));
      *q1 = (PetscBool)(*cdeg == 1);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell's corners X [corner][dim] in tensor order (corner v: xi_d = +1 where bit d of v is set) from its closure
   coordinates: X[v] = closure vertex perm[v] */
static PetscErrorCode CellCorners(DM dm, PetscInt c, PetscInt dim, const PetscInt perm[], PetscReal X[])
{
  const PetscScalar *array;
  PetscScalar       *coords = NULL;
  PetscInt           nc;
  PetscBool          isDG;

  PetscFunctionBegin;
  PetscCall(DMPlexGetCellCoordinates(dm, c, &isDG, &nc, &array, &coords));
  PetscCheck(nc == (1 << dim) * dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, expected %d (Q1 corners)", c, nc, (1 << dim) * (int)dim);
  for (PetscInt v = 0; v < (1 << dim); v++)
    for (PetscInt d = 0; d < dim; d++) X[v * dim + d] = PetscRealPart(coords[perm[v] * dim + d]);
  PetscCall(DMPlexRestoreCellCoordinates(dm, c, &isDG, &nc, &array, &coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the closure-vertex -> tensor-corner permutation, a property of PETSc's reference cell: found on the first cell by
   matching DMPlexComputeCellGeometryFEM at the reference corners against the closure coordinates, then checked on
   the middle and last cells (the same call) */
static PetscErrorCode CornerPermutation(DMAsmMatFree mf, PetscQuadrature cquad, PetscInt cStart, PetscInt cEnd, PetscInt perm[])
{
  DM        dm = mf->dm;
  MPI_Comm  comm = PetscObjectComm((PetscObject)dm);
  PetscInt  dim = mf->dim, nv = 1 << mf->dim;
  PetscReal v[24], J[72], iJ[72], det[8], X[24];

  PetscFunctionBegin;
  {
    const PetscScalar *array;
    PetscScalar       *coords = NULL;
    PetscInt           nc;
    PetscBool          isDG;
    PetscReal          h = 0;
    PetscCall(DMPlexComputeCellGeometryFEM(dm, cStart, cquad, v, J, iJ, det));
    PetscCall(DMPlexGetCellCoordinates(dm, cStart, &isDG, &nc, &array, &coords));
    PetscCheck(nc == nv * dim, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, expected %d (Q1 corners)", cStart, nc, (int)(nv * dim));
    for (PetscInt k = 0; k < nv * dim; k++) h = PetscMax(h, PetscAbsReal(v[k] - v[0]));
    for (PetscInt t = 0; t < nv; t++) {
      perm[t] = -1;
      for (PetscInt w = 0; w < nv && perm[t] < 0; w++) {
        PetscReal dmax = 0;
        for (PetscInt d = 0; d < dim; d++) dmax = PetscMax(dmax, PetscAbsReal(PetscRealPart(coords[w * dim + d]) - v[t * dim + d]));
        if (dmax <= 1e-10 * h) perm[t] = w;
      }
      PetscCheck(perm[t] >= 0, comm, PETSC_ERR_PLIB, "DMAssemblyCreateMatrixFree: reference corner %" PetscInt_FMT " of cell %" PetscInt_FMT " is none of its closure vertices", t, cStart);
    }
    PetscCall(DMPlexRestoreCellCoordinates(dm, cStart, &isDG, &nc, &array, &coords));
  }
  for (PetscInt c = (cStart + cEnd) / 2; c < cEnd; c = (c == cEnd - 1 ? cEnd : cEnd - 1)) {
    PetscReal h = 0, dmax = 0;
    PetscCall(DMPlexComputeCellGeometryFEM(dm, c, cquad, v, J, iJ, det));
    PetscCall(CellCorners(dm, c, dim, perm, X));
    for (PetscInt k = 0; k < nv * dim; k++) {
      h    = PetscMax(h, PetscAbsReal(v[k] - v[0]));
      dmax = PetscMax(dmax, PetscAbsReal(v[k] - X[k]));
    }
    PetscCheck(dmax <= 1e-10 * h, comm, PETSC_ERR_PLIB, "DMAssemblyCreateMatrixFree: the corner permutation of cell %" PetscInt_FMT " does not hold for cell %" PetscInt_FMT, cStart, c);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stored geometry factors of the Q1-coordinate path, on host threads: element e's from its corners xc (no PETSc
   call in the worker); bad[t]: the first element of range t with a non-positive factor */
typedef struct {
  DMAsmMatFree     mf;
  const PetscReal *xc;
  PetscInt         bad[64]; /* per range (PetscEllwarpThreadsRun: at most 64) */
} GeoCtx;

static int WorkGeo(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  GeoCtx            *c  = (GeoCtx *)vctx;
  const DMAsmMatFree mf = c->mf;
  const PetscInt     nv = 1 << mf->dim, gsz = mf->ng * mf->nq;
  for (PetscCount e = b; e < end; e++) {
    PetscReal *g = mf->geo + e * gsz;
    DMAsmMFGeoElementHost((int)mf->dim, mf->op == DMASMMF_POISSON, (int)mf->q, mf->xg, mf->wg, c->xc + e * nv * mf->dim, g);
    for (PetscInt k = 0; k < mf->nq && c->bad[t] == PETSC_INT_MAX; k++)
      if (!(g[k] > 0)) c->bad[t] = (PetscInt)e;
  }
  return 0;
}

/* the element map cached on the DM: operators of one DM, section and FE share one walk of the closures (the
   set-up's most expensive part: DMPlexGetClosureIndices per cell) */
typedef struct {
  PetscObjectId    gsec, fe;
  PetscInt         nen, nelem;
  PetscInt        *edof;
  PetscObjectId    cvec; /* the corners (Q1 coordinates), keyed by the local coordinate vector and its state */
  PetscObjectState cstate;
  PetscReal       *xc;
  PetscInt        *cellv; /* Q1 element map: each cell's vertices in closure order (for the corners), or NULL */
} ElementMapCache;

static PetscErrorCode ElementMapCacheDestroy(PetscCtxRt ctx)
{
  ElementMapCache *c = *(ElementMapCache **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(c->edof));
  PetscCall(PetscFree(c->xc));
  PetscCall(PetscFree(c->cellv));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element row of cell c from PETSc's closure indices (orientations included), in tensor order; -1: constrained */
static PetscErrorCode ClosureRow(DMAsmMatFree mf, PetscSection lsec, PetscSection gsec, PetscInt c, const PetscInt fe2t[], PetscInt row[])
{
  PetscInt ni, *idx = NULL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetClosureIndices(mf->dm, lsec, gsec, c, PETSC_FALSE, &ni, &idx, NULL, NULL));
  PetscCheck(ni == mf->nen, PetscObjectComm((PetscObject)mf->dm), PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " has %" PetscInt_FMT " closure dofs, the FE %" PetscInt_FMT, c, ni, mf->nen);
  for (PetscInt i = 0; i < ni; i++) row[fe2t[i]] = idx[i] >= 0 ? idx[i] : -1;
  PetscCall(DMPlexRestoreClosureIndices(mf->dm, lsec, gsec, c, PETSC_FALSE, &ni, &idx, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Q1 (dofs on the vertices only, one each): the element rows from the closure's vertices and the sections'
   offsets (one transitive closure a cell, no index expansion: about half the cost of DMPlexGetClosureIndices).
   Closure dof a is the a-th vertex of the closure unless the section permutes closures: checked against
   ClosureRow on the first, middle and last cells; *fast = PETSC_FALSE (the closure path is used) when that check
   fails or a vertex does not hold exactly one dof.  -dm_assembly_matfree_check_map (tests): every cell, an error on
   a difference */
static PetscErrorCode ElementMapVertices(DMAsmMatFree mf, PetscSection lsec, PetscSection gsec, PetscInt cStart, PetscInt cEnd, const PetscInt fe2t[], PetscBool checkall, PetscInt cellv[], PetscBool *fast)
{
  DM       dm  = mf->dm;
  PetscInt nen = mf->nen, vStart, vEnd, ref[8];

  PetscFunctionBegin;
  *fast = PETSC_FALSE;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, a = 0, *row = mf->edof + (c - cStart) * nen;
    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++) {
      const PetscInt pt = cl[2 * i];
      PetscInt       dof, cdof, off;
      if (pt < vStart || pt >= vEnd) continue;
      PetscCall(PetscSectionGetDof(lsec, pt, &dof));
      PetscCall(PetscSectionGetConstraintDof(lsec, pt, &cdof));
      PetscCall(PetscSectionGetOffset(gsec, pt, &off));
      if (dof != 1 || a >= nen) break; /* not a scalar Q1 layout: the closure path */
      cellv[(c - cStart) * nen + a] = pt;
      row[fe2t[a++]] = cdof ? -1 : off;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    if (a != nen) PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt s = 0; s < 3; s++) { /* the sample: a closure permutation of the section shows on every cell */
    const PetscInt c = s == 0 ? cStart : (s == 1 ? (cStart + cEnd) / 2 : cEnd - 1);
    PetscCall(ClosureRow(mf, lsec, gsec, c, fe2t, ref));
    for (PetscInt i = 0; i < nen; i++)
      if (ref[i] != mf->edof[(c - cStart) * nen + i]) {
        PetscCall(PetscInfo(dm, "matrix-free Q1 element map: the closure's vertex order differs from the closure indices on cell %" PetscInt_FMT " (a closure permutation?): DMPlexGetClosureIndices per cell\n", c));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  }
  for (PetscInt c = cStart; c < cEnd && checkall; c++) { /* tests: every cell */
    PetscCall(ClosureRow(mf, lsec, gsec, c, fe2t, ref));
    for (PetscInt i = 0; i < nen; i++) PetscCheck(ref[i] == mf->edof[(c - cStart) * nen + i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "matrix-free Q1 element map: cell %" PetscInt_FMT " node %" PetscInt_FMT ": %" PetscInt_FMT " from the closure's vertices, %" PetscInt_FMT " from DMPlexGetClosureIndices", c, i, mf->edof[(c - cStart) * nen + i], ref[i]);
  }
  PetscCall(PetscInfo(dm, "matrix-free Q1 element map from the closures' vertices (%s)\n", checkall ? "checked on every cell" : "checked on 3 cells"));
  *fast = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element map: closure indices as PETSc's own assembly uses them (orientations included), in tensor order; -1:
   constrained.  Computed once per DM, global section and FE (cached on the DM) */
static PetscErrorCode ElementMap(DMAsmMatFree mf, PetscSection lsec, PetscSection gsec, PetscInt cStart, PetscInt cEnd, const PetscInt fe2t[], PetscFE fe)
{
  DM               dm   = mf->dm;
  MPI_Comm         comm = PetscObjectComm((PetscObject)dm);
  ElementMapCache *cache = NULL;
  PetscObjectId    gid, fid;
  const PetscInt   dim   = mf->dim;
  PetscInt        *cellv = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)gsec, &gid));
  PetscCall(PetscObjectGetId((PetscObject)fe, &fid));
  PetscCall(PetscObjectContainerQuery((PetscObject)dm, "DMAsmMF_ElementMap", (void **)&cache));
  if (cache && cache->gsec == gid && cache->fe == fid && cache->nen == mf->nen && cache->nelem == mf->nelem) {
    PetscCall(PetscArraycpy(mf->edof, cache->edof, mf->nelem * mf->nen));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType ct;
    PetscCall(DMPlexGetCellType(dm, c, &ct));
    PetscCheck(ct == (dim == 2 ? DM_POLYTOPE_QUADRILATERAL : DM_POLYTOPE_HEXAHEDRON), comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " is a %s; needs quadrilaterals (2-D) or hexahedra (3-D)", c, DMPolytopeTypes[ct]);
  }
  {
    PetscBool fast = PETSC_FALSE, checkall = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(((PetscObject)dm)->options, ((PetscObject)dm)->prefix, "-dm_assembly_matfree_check_map", &checkall, NULL));
    if (mf->nen == (1 << dim)) {
      PetscCall(PetscMalloc1(mf->nelem * mf->nen, &cellv));
      PetscCall(ElementMapVertices(mf, lsec, gsec, cStart, cEnd, fe2t, checkall, cellv, &fast));
      if (!fast) PetscCall(PetscFree(cellv));
    }
    for (PetscInt c = cStart; c < cEnd && !fast; c++) PetscCall(ClosureRow(mf, lsec, gsec, c, fe2t, mf->edof + (c - cStart) * mf->nen));
  }
  PetscCall(PetscNew(&cache));
  cache->cellv = cellv;
  cache->gsec  = gid;
  cache->fe    = fid;
  cache->nen   = mf->nen;
  cache->nelem = mf->nelem;
  PetscCall(PetscMalloc1(mf->nelem * mf->nen, &cache->edof));
  PetscCall(PetscArraycpy(cache->edof, mf->edof, mf->nelem * mf->nen));
  PetscCall(PetscObjectContainerCompose((PetscObject)dm, "DMAsmMF_ElementMap", cache, ElementMapCacheDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the corners from the cached closure vertices of the Q1 element map and the coordinate section (no closure walk);
   checked against DMPlexGetCellCoordinates on the first, middle and last cells (a closure permutation of the
   coordinate section would show there): *done = PETSC_FALSE if not, or if a vertex does not hold dim coordinates */
static PetscErrorCode CornersFromVertices(DMAsmMatFree mf, const PetscInt cellv[], PetscInt cStart, PetscInt cEnd, const PetscInt perm[], PetscReal xc[], PetscBool *done)
{
  DM                 dm = mf->dm;
  PetscSection       cs;
  Vec                cv;
  const PetscScalar *ca;
  const PetscInt     dim = mf->dim, nv = 1 << mf->dim, sz = nv * dim;
  PetscReal          X[24];
  PetscBool          ok = PETSC_TRUE;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cv));
  PetscCall(VecGetArrayRead(cv, &ca));
  for (PetscInt c = cStart; c < cEnd && ok; c++)
    for (PetscInt v = 0; v < nv && ok; v++) {
      PetscInt off, dof;
      PetscCall(PetscSectionGetDof(cs, cellv[(c - cStart) * nv + perm[v]], &dof));
      PetscCall(PetscSectionGetOffset(cs, cellv[(c - cStart) * nv + perm[v]], &off));
      ok = (PetscBool)(dof == dim);
      for (PetscInt d = 0; d < dim && ok; d++) xc[(c - cStart) * sz + v * dim + d] = PetscRealPart(ca[off + d]);
    }
  PetscCall(VecRestoreArrayRead(cv, &ca));
  for (PetscInt s = 0; s < 3 && ok; s++) {
    const PetscInt c = s == 0 ? cStart : (s == 1 ? (cStart + cEnd) / 2 : cEnd - 1);
    PetscCall(CellCorners(dm, c, dim, perm, X));
    for (PetscInt k = 0; k < sz; k++) ok = (PetscBool)(ok && X[k] == xc[(c - cStart) * sz + k]);
  }
  *done = ok;
  PetscCall(PetscInfo(dm, "matrix-free corners %s\n", ok ? "from the element map's closure vertices and the coordinate section" : "by DMPlexGetCellCoordinates (the vertex order check failed)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tensor-order corners of every cell, xc [nelem][2^dim][dim] (a DMPlexGetCellCoordinates call a cell), cached on
   the DM beside the element map while the coordinates are unchanged */
static PetscErrorCode AllCorners(DMAsmMatFree mf, PetscInt cStart, PetscInt cEnd, const PetscInt perm[], PetscReal xc[])
{
  DM               dm    = mf->dm;
  ElementMapCache *cache = NULL;
  Vec              cv;
  PetscObjectId    cid;
  PetscObjectState cst;
  const PetscInt   sz = (1 << mf->dim) * mf->dim;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinatesLocal(dm, &cv));
  PetscCall(PetscObjectGetId((PetscObject)cv, &cid));
  PetscCall(PetscObjectStateGet((PetscObject)cv, &cst));
  PetscCall(PetscObjectContainerQuery((PetscObject)dm, "DMAsmMF_ElementMap", (void **)&cache));
  if (cache && cache->xc && cache->cvec == cid && cache->cstate == cst && cache->nelem == mf->nelem) {
    PetscCall(PetscArraycpy(xc, cache->xc, mf->nelem * sz));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    DM        cdg;
    PetscBool done = PETSC_FALSE;
    PetscCall(DMGetCellCoordinateDM(dm, &cdg));
    if (cache && cache->cellv && cache->nelem == mf->nelem && !cdg) PetscCall(CornersFromVertices(mf, cache->cellv, cStart, cEnd, perm, xc, &done));
    for (PetscInt c = cStart; c < cEnd && !done; c++) PetscCall(CellCorners(dm, c, mf->dim, perm, xc + (c - cStart) * sz));
  }
  if (cache && cache->nelem == mf->nelem) { /* the element map's cache of this DM (ElementMap ran first) */
    PetscCall(PetscFree(cache->xc));
    PetscCall(PetscMalloc1(mf->nelem * sz, &cache->xc));
    PetscCall(PetscArraycpy(cache->xc, xc, mf->nelem * sz));
    cache->cvec   = cid;
    cache->cstate = cst;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element map (closure indices as PETSc's own assembly uses them, in tensor order) and geometry factors at the
   Gauss points.  Coordinates of degree 1 (no coordinate FE, or Q1): the cell's corners from its closure
   coordinates and the factors by DMAsmMFGeoElementHost (the multilinear map: what PETSc computes, no per-cell
   tabulation or PETSc call beyond the coordinates); any other coordinates (curved meshes):
   DMPlexComputeCellGeometryFEM at the Gauss points, the J PETSc's assembly uses */
static PetscErrorCode SetUpMesh(DMAsmMatFree mf, PetscFE fe)
{
  DM              dm = mf->dm;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    lsec, gsec;
  PetscQuadrature quad, cquad = NULL;
  PetscInt        cStart, cEnd, *fe2t, *qperm, dim = mf->dim, nq, cdeg, perm[8], nv = 1 << mf->dim;
  PetscReal      *qw, *v, *J, *invJ, *detJ, *cp;
  PetscBool       q1;
  const int       poisson = mf->op == DMASMMF_POISSON;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(mf->nen, &fe2t));
  PetscCall(SetUpReference(mf, fe, fe2t, &qperm, &qw));
  nq     = mf->nq;
  mf->ng = poisson ? dim * (dim + 1) / 2 : 1;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  mf->nelem = cEnd - cStart;
  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  PetscCall(PetscSectionGetConstrainedStorageSize(gsec, &mf->ndof));
  PetscCall(PetscMalloc1(mf->nelem * mf->nen, &mf->edof));
  PetscCall(CoordinatesMultilinear(dm, &q1, &cdeg));
  PetscCheck(!mf->recompute || q1, comm, PETSC_ERR_SUP, "-dm_assembly_matfree_geometry recompute: the coordinates are of degree %" PetscInt_FMT "; the recomputed geometry is the multilinear map of the vertices (Q1 coordinates): use stored", cdeg);
  if (mf->recompute) PetscCall(PetscMalloc1(mf->nelem * nv * dim, &mf->xv));
  else PetscCall(PetscMalloc1(mf->nelem * mf->ng * nq, &mf->geo));
  PetscCall(PetscFEGetQuadrature(fe, &quad));
  PetscCall(PetscMalloc4(PetscMax(nq, 8) * dim, &v, PetscMax(nq, 8) * dim * dim, &J, PetscMax(nq, 8) * dim * dim, &invJ, PetscMax(nq, 8), &detJ));
  if (q1 && mf->nelem) {
    PetscCall(PetscMalloc1(nv * dim, &cp));
    for (PetscInt w = 0; w < nv; w++)
      for (PetscInt d = 0; d < dim; d++) cp[w * dim + d] = ((w >> d) & 1) ? 1.0 : -1.0;
    PetscCall(PetscQuadratureCreate(PETSC_COMM_SELF, &cquad));
    PetscCall(PetscQuadratureSetData(cquad, dim, 1, nv, cp, NULL));
    PetscCall(CornerPermutation(mf, cquad, cStart, cEnd, perm));
  }
  PetscCall(ElementMap(mf, lsec, gsec, cStart, cEnd, fe2t, fe));
  if (q1 && mf->nelem) { /* the corners of every cell (a PETSc call each), then the factors on all host threads */
    PetscReal *xc = mf->recompute ? mf->xv : NULL;
    if (!xc) PetscCall(PetscMalloc1(mf->nelem * nv * dim, &xc));
    PetscCall(AllCorners(mf, cStart, cEnd, perm, xc));
    if (mf->recompute) {
      for (PetscInt c = cStart; c < cEnd; c++)
        for (PetscInt w = 0; w < nv; w++) { /* det J at the corners (mass factor with unit weight) */
          PetscReal xi[3], g[6];
          for (PetscInt d = 0; d < dim; d++) xi[d] = ((w >> d) & 1) ? 1.0 : -1.0;
          DMAsmMFGeoMultilinear((int)dim, 0, xc + (c - cStart) * nv * dim, xi, 1.0, g);
          PetscCheck(g[0] > 0, comm, PETSC_ERR_ARG_WRONG, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " is inverted or degenerate (det J = %g at a corner)", c, (double)g[0]);
        }
    } else {
      GeoCtx   gc;
      PetscInt nt, bad = PETSC_INT_MAX;
      gc.mf = mf;
      gc.xc = xc;
      for (PetscInt t = 0; t < 64; t++) gc.bad[t] = PETSC_INT_MAX;
      PetscCall(PetscEllwarpThreadsGetCount(0, mf->nelem, 1024, &nt));
      PetscCall(PetscEllwarpThreadsRun(nt, mf->nelem, WorkGeo, &gc));
      PetscCall(PetscFree(xc));
      for (PetscInt t = 0; t < 64; t++) bad = PetscMin(bad, gc.bad[t]);
      /* the first factor is w |J| (mass) or w |J| |row 0 of J^-1|^2: positive iff det J > 0 */
      PetscCheck(bad == PETSC_INT_MAX, comm, PETSC_ERR_ARG_WRONG, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " is inverted or degenerate (det J <= 0 at a Gauss point)", cStart + bad);
    }
  }
  for (PetscInt c = cStart; c < cEnd && !q1; c++) { /* curved: PETSc's geometry at the Gauss points */
    const PetscInt e = c - cStart;
    PetscCall(DMPlexComputeCellGeometryFEM(dm, c, quad, v, J, invJ, detJ));
    for (PetscInt k = 0; k < nq; k++) {
      const PetscReal *iJ = invJ + k * dim * dim, wd = qw[k] * detJ[k];
      PetscReal       *g  = mf->geo + e * mf->ng * nq + qperm[k];
      PetscInt         gi = 0;
      PetscCheck(detJ[k] > 0, comm, PETSC_ERR_ARG_WRONG, "DMAssemblyCreateMatrixFree: cell %" PetscInt_FMT " is inverted or degenerate (det J = %g at a Gauss point)", c, (double)detJ[k]);
      if (mf->op == DMASMMF_MASS) g[0] = wd;
      else
        for (PetscInt a = 0; a < dim; a++)
          for (PetscInt b = a; b < dim; b++, gi++) {
            PetscReal s = 0;
            for (PetscInt m = 0; m < dim; m++) s += iJ[a * dim + m] * iJ[b * dim + m];
            g[gi * nq] = wd * s;
          }
    }
  }
  PetscCall(PetscFree4(v, J, invJ, detJ));
  PetscCall(PetscQuadratureDestroy(&cquad));
  PetscCall(PetscFree2(qperm, qw));
  PetscCall(PetscFree(fe2t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(ELLWARP_HAVE_CUDA)
static PetscErrorCode Upload(void **d, const void *h, size_t bytes)
{
  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMAsmCUDAMalloc(d, PetscMax(bytes, 1)));
  PetscCall(DMAsmCUDAUpload(*d, h, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode SetUpDevice(DMAsmMatFree mf)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  {
    const PetscInt nen = mf->nen, ne = mf->nelem;
    PetscCall(Upload((void **)&mf->dB, mf->B, sizeof(PetscReal) * mf->q * mf->n));
    PetscCall(Upload((void **)&mf->dD, mf->D, sizeof(PetscReal) * mf->q * mf->n));
    PetscCall(Upload((void **)&mf->dedof, mf->edof, sizeof(PetscInt) * ne * nen));
    if (!mf->K && mf->geo) PetscCall(Upload((void **)&mf->dgeo, mf->geo, sizeof(PetscReal) * ne * mf->ng * mf->nq));
    if (mf->xv) {
      PetscReal gw[2 * DMASMMF_QMAX];
      for (PetscInt k = 0; k < mf->q; k++) {
        gw[k]         = mf->xg[k];
        gw[mf->q + k] = mf->wg[k];
      }
      PetscCall(Upload((void **)&mf->dxv, mf->xv, sizeof(PetscReal) * ne * (1 << mf->dim) * mf->dim));
      PetscCall(Upload((void **)&mf->dgw, gw, sizeof(PetscReal) * 2 * mf->q));
    }
    PetscCall(Upload((void **)&mf->dedofT, mf->edofT, sizeof(PetscInt) * ne * nen));
    if (mf->K) PetscCall(Upload((void **)&mf->dK, mf->K, sizeof(PetscReal) * (mf->uniform ? 1 : ne) * nen * nen));
    if (mf->gptr) {
      PetscCall(Upload((void **)&mf->dgptr, mf->gptr, sizeof(PetscInt) * (mf->ndof + 1)));
      PetscCall(Upload((void **)&mf->dgidx, mf->gidx, sizeof(PetscInt) * mf->gptr[mf->ndof]));
    }
    if (mf->colelem) PetscCall(Upload((void **)&mf->dcolelem, mf->colelem, sizeof(PetscInt) * ne));
    if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(DMAsmCUDAMalloc((void **)&mf->dye, sizeof(PetscScalar) * ne * nen));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the MATSHELL */

static PetscErrorCode MatMult_MF(Mat A, Vec x, Vec y, PetscBool add)
{
  DMAsmMatFree       mf;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mx, my;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  PetscCall(PetscLogEventBegin(DMASMMF_Mult, A, 0, 0, 0));
  if (!mf->device || mf->forcehost) {
    PetscCall(VecGetArrayRead(x, &xa));
    if (add) PetscCall(VecGetArray(y, &ya));
    else PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(mf->ops.apply(mf, PETSC_MEMTYPE_HOST, xa, ya, add));
    PetscCall(VecRestoreArrayRead(x, &xa));
    if (add) PetscCall(VecRestoreArray(y, &ya));
    else PetscCall(VecRestoreArrayWrite(y, &ya));
  } else {
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
    if (add) PetscCall(VecGetArrayAndMemType(y, &ya, &my));
    else PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
    PetscCheck(PetscMemTypeHost(mx) == PetscMemTypeHost(my), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MatMult of the matrix-free operator: x and y in different memories (use vectors of MatCreateVecs())");
    PetscCall(mf->ops.apply(mf, PetscMemTypeHost(mx) ? PETSC_MEMTYPE_HOST : PETSC_MEMTYPE_DEVICE, xa, ya, add));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    if (add) PetscCall(VecRestoreArrayAndMemType(y, &ya));
    else PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
  }
  if (mf->device && !mf->forcehost) PetscCall(PetscLogGpuFlops(mf->flops));
  else PetscCall(PetscLogFlops(mf->flops));
  PetscCall(PetscLogEventEnd(DMASMMF_Mult, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_DMAsmMF(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMult_MF(A, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_DMAsmMF(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(z, y));
  PetscCall(MatMult_MF(A, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal on the host, once (the operator is linear); each element's by the transposed tensor contractions
   of dmasmmatfree.h, summed by dof in element order */
static PetscErrorCode MatGetDiagonal_DMAsmMF(Mat A, Vec d)
{
  DMAsmMatFree mf;
  PetscScalar *da;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  PetscCall(PetscLogEventBegin(DMASMMF_Diag, A, 0, 0, 0));
  if (!mf->diag) {
    PetscScalar *work, *de;
    PetscReal   *geoe;
    PetscCall(PetscCalloc1(mf->ndof, &mf->diag));
    PetscCall(PetscMalloc3(3 * DMASMMF_QMAX * DMASMMF_QMAX * DMASMMF_QMAX, &work, mf->nen, &de, mf->ng * mf->nq, &geoe));
    for (PetscInt e = 0; e < mf->nelem; e++) {
      if (mf->K) { /* elmat: the geometry factors were dropped; the diagonal of the stored matrices */
        for (PetscInt i = 0; i < mf->nen; i++) de[i] = mf->uniform ? mf->K[i * mf->nen + i] : mf->K[(i * mf->nen + i) * mf->nelem + e];
      } else if (mf->recompute) {
        DMAsmMFGeoElementHost((int)mf->dim, mf->op == DMASMMF_POISSON, (int)mf->q, mf->xg, mf->wg, mf->xv + e * (1 << mf->dim) * mf->dim, geoe);
        DMAsmMFElementDiagHost((int)mf->dim, (int)mf->n, (int)mf->q, mf->op == DMASMMF_POISSON, mf->B, mf->D, geoe, de, work);
      } else DMAsmMFElementDiagHost((int)mf->dim, (int)mf->n, (int)mf->q, mf->op == DMASMMF_POISSON, mf->B, mf->D, mf->geo + e * mf->ng * mf->nq, de, work);
      for (PetscInt i = 0; i < mf->nen; i++)
        if (mf->edof[e * mf->nen + i] >= 0) mf->diag[mf->edof[e * mf->nen + i]] += PetscRealPart(de[i]);
    }
    PetscCall(PetscFree3(work, de, geoe));
  }
  PetscCall(VecGetArrayWrite(d, &da));
  for (PetscInt i = 0; i < mf->ndof; i++) da[i] = mf->diag[i];
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscCall(PetscLogEventEnd(DMASMMF_Diag, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_DMAsmMF(Mat A, PetscViewer v)
{
  DMAsmMatFree mf;
  PetscBool    isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(v, "DMAssembly matrix-free %s operator (%s), Q%" PetscInt_FMT " %s, %" PetscInt_FMT " elements, %" PetscInt_FMT " dofs (constrained dofs eliminated), %" PetscInt_FMT " Gauss points per direction\n", mf->op == DMASMMF_POISSON ? "Poisson (BP3)" : "mass (BP1)", mf->type, mf->p,
                                   mf->dim == 2 ? "quadrilaterals" : "hexahedra", mf->nelem, mf->ndof, mf->q));
  PetscCall(PetscViewerASCIIPushTab(v));
  PetscCall(mf->ops.view(mf, v));
  if (mf->nthreads != 1) PetscCall(PetscViewerASCIIPrintf(v, "host path: %s\n", HostThreaded(mf) ? "threads over elements (race-free: gather, colours or private buffers), then over dofs" : "the serial reference (threads need the gather, colour or private-buffer variant)"));
  PetscCall(PetscViewerASCIIPrintf(v, "runs on the %s%s; %.3g flops per MatMult (model), set-up %.3g s\n", mf->device ? "device when the vectors are there" : "host", mf->forcehost ? " (-dm_assembly_matfree_host: host reference forced)" : "", (double)mf->flops, (double)mf->setuptime));
  PetscCall(PetscViewerASCIIPopTab(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_DMAsmMF(Mat A)
{
  DMAsmMatFree mf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&mf->dB));
  PetscCall(DMAsmCUDAFree((void **)&mf->dD));
  PetscCall(DMAsmCUDAFree((void **)&mf->dgeo));
  PetscCall(DMAsmCUDAFree((void **)&mf->dK));
  PetscCall(DMAsmCUDAFree((void **)&mf->dedof));
  PetscCall(DMAsmCUDAFree((void **)&mf->dedofT));
  PetscCall(DMAsmCUDAFree((void **)&mf->dgptr));
  PetscCall(DMAsmCUDAFree((void **)&mf->dgidx));
  PetscCall(DMAsmCUDAFree((void **)&mf->dcolelem));
  PetscCall(DMAsmCUDAFree((void **)&mf->dye));
  PetscCall(DMAsmCUDAFree((void **)&mf->dxv));
  PetscCall(DMAsmCUDAFree((void **)&mf->dgw));
#endif
  PetscCall(PetscFree(mf->xv));
  PetscCall(PetscFree(mf->geo));
  PetscCall(PetscFree(mf->edof));
  PetscCall(PetscFree(mf->edofT));
  PetscCall(PetscFree(mf->gptr));
  PetscCall(PetscFree(mf->gidx));
  PetscCall(PetscFree(mf->colptr));
  PetscCall(PetscFree(mf->colelem));
  PetscCall(PetscFree(mf->K));
  PetscCall(PetscFree(mf->ye));
  PetscCall(PetscFree(mf->ypriv));
  PetscCall(PetscFree(mf->diag));
  PetscCall(DMDestroy(&mf->dm));
  PetscCall(PetscFree(mf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* model flops of one element application (multiply-adds count 2; recomputed 3-D geometry: the device kernel's per-point
   cost, J from its column coefficients (12), adjugate and det (~50), the 6 factors (~20)) */
static PetscLogDouble ElementFlops(DMAsmMatFree mf)
{
  const double n = (double)mf->n, q = (double)mf->q;
  const int    poisson = mf->op == DMASMMF_POISSON;
  if (mf->K) return 2.0 * mf->nen * mf->nen;
  if (mf->dim == 3) {
    const double fwd = poisson ? 2 * q * n * n * n + 3 * q * q * n * n + 3 * q * q * q * n : q * n * n * n + q * q * n * n + q * q * q * n;
    return 2.0 * 2.0 * fwd + (poisson ? 15.0 : 1.0) * q * q * q + (mf->recompute ? (poisson ? 80.0 : 20.0) * q * q * q : 0);
  }
  {
    const double fwd = poisson ? 2 * q * n * n + 2 * q * q * n : q * n * n + q * q * n;
    return 2.0 * 2.0 * fwd + (poisson ? 6.0 : 1.0) * q * q + (mf->recompute ? 50.0 * q * q : 0);
  }
}

/*@
  DMAssemblyCreateMatrixFree - Creates a matrix-free operator (a `MATSHELL`) for the assembler's `DMPLEX`: the mass
  (CEED BP1) or Poisson stiffness (BP3) operator of its one scalar Q_p Lagrange `PetscFE` (p = 1..8) on
  quadrilaterals or hexahedra, applied without a matrix on the GPU (or on the host)

  Collective

  Input Parameter:
. as - the assembler (`DMAssemblyCreate()`; its type and kernels are not used)

  Output Parameter:
. A - the operator: `MatMult()`, `MatMultAdd()`, `MatMultTranspose()` (symmetric), `MatGetDiagonal()` (for Jacobi,
      computed without the matrix); its vectors are of the DM's vector type

  Options Database Keys:
+ -dm_assembly_matfree_op <poisson,mass> - the operator: g3 = identity (BP3) or g0 = 1 (BP1)
. -dm_assembly_matfree_type <sumfact,elmat_atomic,elmat_color,elmat_gather,elmat_max,elmat_private> - the variant (elmat_private: CPU only)
. -dm_assembly_matfree_scatter <atomic,gather,private> - sumfact: element outputs by atomics, gathered by node (deterministic), or (CPU only) private buffers per host thread
. -dm_assembly_matfree_geometry <stored,recompute> - sumfact: geometry factors stored per Gauss point, or recomputed in the kernel from the cell corners (meshes with Q1 coordinates)
. -dm_assembly_matfree_elmat_max_mb <mb> - elmat_*: memory allowed for per-element matrices (non-uniform meshes)
. -dm_assembly_matfree_host_threads <n> - the host path on n threads (0: all CPUs of the process; 1: the serial reference, default): the CPU versions of the gather, colour and private-buffer variants
- -dm_assembly_matfree_host - run the host reference even with device vectors (tests)

  Level: intermediate

  Notes:
  The constrained dofs of the DM's section (essential boundary conditions) are eliminated exactly as
  `DMPlexSNESComputeJacobianFEM()` does: the operator acts on the global vector (unconstrained dofs only) and equals
  that Jacobian for the `PetscDS` pointwise functions g3 = identity (Poisson) or g0 = 1 (mass), with the FE's
  quadrature, which must be a tensor Gauss rule.  The geometry factors come from `DMPlexComputeCellGeometryFEM()`
  at the Gauss points, so non-affine and curved (higher-order coordinate) meshes are exact.  One process.
  The element map (closure indices) and the cell corners are cached on the DM (keyed by its global section, the
  `PetscFE` and the coordinates' state), so further operators of the same mesh skip the walk of the closures.

.seealso: `DMAssembly`, `DMAssemblyCreate()`, `DMAssemblyMatFreeRegister()`, `DMAssemblyMatFreeAssemble()`, `MATSHELL`
@*/
PetscErrorCode DMAssemblyCreateMatrixFree(DMAssembly as, Mat *A)
{
  DM             dm;
  DMAsmMatFree   mf;
  MPI_Comm       comm;
  PetscMPIInt    size;
  PetscInt       nf, deg, nc;
  PetscObject    disc;
  PetscClassId   id;
  PetscFE        fe;
  PetscSpace     bsp;
  VecType        vtype;
  PetscBool      vcuda = PETSC_FALSE, set;
  char           type[64] = "sumfact";
  PetscInt       opi = DMASMMF_POISSON, sci = 0, geoi = 0;
  PetscBool      gset;
  const char    *GeoNames[] = {"stored", "recompute"};
  PetscReal      mb  = 4096;
  PetscLogDouble t0;
  const char    *ops[] = {"mass", "poisson"};
  PetscErrorCode (*create)(DMAsmMatFree);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(A, 2);
  PetscCall(DMAssemblyMatFreeRegister(NULL, NULL));
  PetscCall(PetscTime(&t0));
  dm   = as->dm;
  comm = PetscObjectComm((PetscObject)dm);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: one process only (got %d)", size);
  PetscCall(DMGetNumFields(dm, &nf));
  PetscCheck(nf == 1, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: needs one field, the DM has %" PetscInt_FMT, nf);
  PetscCall(DMGetField(dm, 0, NULL, &disc));
  PetscCall(PetscObjectGetClassId(disc, &id));
  PetscCheck(id == PETSCFE_CLASSID, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: the field is not a PetscFE");
  fe = (PetscFE)disc;
  PetscCall(PetscFEGetNumComponents(fe, &nc));
  PetscCheck(nc == 1, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: a scalar field only (%" PetscInt_FMT " components)", nc);
  PetscCall(PetscFEGetBasisSpace(fe, &bsp));
  PetscCall(PetscSpaceGetDegree(bsp, &deg, NULL));
  PetscCheck(deg >= 1 && deg <= DMASMMF_PMAX, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: Q_p for p = 1..%d, got degree %" PetscInt_FMT, DMASMMF_PMAX, deg);

  PetscCall(PetscNew(&mf));
  PetscCall(PetscObjectReference((PetscObject)dm));
  mf->dm = dm;
  PetscCall(DMGetDimension(dm, &mf->dim));
  PetscCheck(mf->dim == 2 || mf->dim == 3, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: 2-D or 3-D meshes");
  {
    PetscInt cdim;
    PetscCall(DMGetCoordinateDim(dm, &cdim));
    PetscCheck(cdim == mf->dim, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: coordinate dimension %" PetscInt_FMT " != mesh dimension %" PetscInt_FMT, cdim, mf->dim);
  }
  mf->nthreads = 1;
  mf->p        = deg;
  mf->n   = deg + 1;
  mf->nen = mf->dim == 2 ? mf->n * mf->n : mf->n * mf->n * mf->n;

  PetscObjectOptionsBegin((PetscObject)as);
  PetscCall(PetscOptionsEList("-dm_assembly_matfree_op", "Operator: mass (BP1) or Poisson (BP3)", "DMAssemblyCreateMatrixFree", ops, 2, ops[opi], &opi, NULL));
  PetscCall(PetscOptionsFList("-dm_assembly_matfree_type", "Matrix-free variant", "DMAssemblyCreateMatrixFree", DMAsmMatFreeList, type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsEList("-dm_assembly_matfree_scatter", "sumfact: element outputs by atomics, gathered by node, or (CPU) private buffers per thread", "DMAssemblyCreateMatrixFree", SumFactScatterNames, 3, SumFactScatterNames[0], &sci, &set));
  PetscCall(PetscOptionsEList("-dm_assembly_matfree_geometry", "sumfact: geometry factors stored at the Gauss points or recomputed from the corners (Q1 coordinates)", "DMAssemblyCreateMatrixFree", GeoNames, 2, GeoNames[0], &geoi, &gset));
  PetscCall(PetscOptionsReal("-dm_assembly_matfree_elmat_max_mb", "elmat_*: MB allowed for per-element matrices", "DMAssemblyCreateMatrixFree", mb, &mb, NULL));
  PetscCall(PetscOptionsInt("-dm_assembly_matfree_host_threads", "Host path: threads (0: the CPUs this process may use; 1: the serial reference); gather, colour and private-buffer variants only", "DMAssemblyCreateMatrixFree", mf->nthreads, &mf->nthreads, NULL));
  PetscCall(PetscOptionsBool("-dm_assembly_matfree_host", "Run the host reference even with device vectors", "DMAssemblyCreateMatrixFree", mf->forcehost, &mf->forcehost, NULL));
  PetscOptionsEnd();
  mf->op       = (DMAsmMFOp)opi;
  mf->scatter  = sci == 2 ? DMASMMF_SCATTER_PRIVATE : (DMAsmMFScatter)sci;
  mf->elmatmax = (size_t)(mb * 1048576.0);
  PetscCall(PetscStrncpy(mf->type, type, sizeof(mf->type)));
  PetscCall(PetscFunctionListFind(DMAsmMatFreeList, type, &create));
  PetscCheck(create, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -dm_assembly_matfree_type %s (sumfact, elmat_atomic, elmat_color, elmat_gather, elmat_max, elmat_private)", type);
  PetscCheck(!set || !strncmp(type, "sumfact", 7), comm, PETSC_ERR_ARG_INCOMP, "-dm_assembly_matfree_scatter is for sumfact; the elmat_* variants name their conflict resolution");
  PetscCheck(!gset || !strncmp(type, "sumfact", 7), comm, PETSC_ERR_ARG_INCOMP, "-dm_assembly_matfree_geometry is for sumfact; the elmat_* variants store element matrices");
  mf->recompute = (PetscBool)(geoi == 1);
  PetscCall((*create)(mf));

  PetscCall(PetscLogEventBegin(DMASMMF_SetUp, 0, 0, 0, 0));
  PetscCall(SetUpMesh(mf, fe));
  PetscCall(mf->ops.setup(mf));
  if (mf->K) PetscCall(PetscFree(mf->geo)); /* elmat: the diagonal comes from K then */
  if (mf->scatter == DMASMMF_SCATTER_GATHER) PetscCall(PetscMalloc1(mf->nelem * mf->nen, &mf->ye));
  PetscCall(DMGetVecType(dm, &vtype));
  if (vtype) PetscCall(PetscStrbeginswith(vtype, VECCUDA, &vcuda));
  if (!vcuda && vtype) {
    PetscBool s, m;
    PetscCall(PetscStrcmp(vtype, VECSEQCUDA, &s));
    PetscCall(PetscStrcmp(vtype, VECMPICUDA, &m));
    vcuda = (PetscBool)(s || m);
  }
#if defined(ELLWARP_HAVE_CUDA)
  if (vcuda && !mf->forcehost) PetscCall(DMAsmCUDAAvailable(&mf->device));
#endif
  PetscCheck(!mf->device || mf->scatter != DMASMMF_SCATTER_PRIVATE, comm, PETSC_ERR_SUP, "DMAssemblyCreateMatrixFree: private buffers (%s) are a CPU version: use host vectors (-dm_vec_type standard) or -dm_assembly_matfree_host", mf->type);
  if (mf->device) PetscCall(SetUpDevice(mf));
  mf->flops = ElementFlops(mf) * mf->nelem;
  PetscCall(PetscLogEventEnd(DMASMMF_SetUp, 0, 0, 0, 0));
  {
    PetscLogDouble t1;
    PetscCall(PetscTime(&t1));
    mf->setuptime = t1 - t0;
  }

  PetscCall(MatCreateShell(comm, mf->ndof, mf->ndof, mf->ndof, mf->ndof, mf, A));
  if (vtype) PetscCall(MatShellSetVecType(*A, vtype));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (PetscErrorCodeFn *)MatMult_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMult_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultAdd_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (PetscErrorCodeFn *)MatGetDiagonal_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (PetscErrorCodeFn *)MatView_DMAsmMF));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_DMAsmMF));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetDM(*A, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the COO rows and columns of rows [b, end) (DMAsmMFCOOContribution's order), on host threads: each row writes its
   own range of the arrays (the arrays' first touch, much of the cost, spread over the threads) */
typedef struct {
  DMAsmMatFree      mf;
  const PetscCount *coff;
  PetscInt         *ci, *cj;
} COOCtx;

static int WorkCOOIndices(void *vctx, PetscInt t, PetscCount b, PetscCount end)
{
  COOCtx            *c   = (COOCtx *)vctx;
  const DMAsmMatFree mf  = c->mf;
  const PetscInt     nen = mf->nen;
  for (PetscCount d = b; d < end; d++)
    for (PetscInt k = mf->gptr[d]; k < mf->gptr[d + 1]; k++) {
      const PetscInt *ed = mf->edof + (mf->gidx[k] / nen) * nen;
      PetscCount      o  = c->coff[k];
      for (PetscInt j = 0; j < nen; j++)
        if (ed[j] >= 0) {
          c->ci[o]   = (PetscInt)d;
          c->cj[o++] = ed[j];
        }
    }
  return 0;
}

/* whether B takes MatSetValuesCOO values in device memory: AIJCUSPARSE, MATELLWARP with the cuda backend */
static PetscErrorCode MatTakesDeviceValues(Mat B, PetscBool *dev)
{
  PetscBool ell;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, dev, MATSEQAIJCUSPARSE, MATAIJCUSPARSE, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &ell, "ellwarp", "seqellwarp", ""));
  if (ell) {
    MatEllwarpBackend b;
    PetscCall(MatEllwarpGetBackend(B, &b));
    *dev = (PetscBool)(b == MAT_ELLWARP_BACKEND_CUDA);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyMatFreeAssemble - Assembles the operator of an element-matrix matrix-free operator (`elmat_*` variants of
  `DMAssemblyCreateMatrixFree()`) into a matrix through PETSc's COO interface: its element matrices and element map
  (closure indices, constrained dofs eliminated) give `MatSetPreallocationCOO()` and `MatSetValuesCOO()`, the values
  computed on the device when the operator runs there and `B` takes device values (`MATAIJCUSPARSE`, `MATELLWARP`
  with the cuda backend)

  Collective

  Input Parameters:
+ A - the matrix-free operator, of an `elmat_*` variant (`-dm_assembly_matfree_type elmat_atomic`)
- B - a matrix of the operator's sizes with its type set (`MATELLWARP`, `MATAIJCUSPARSE`, `MATAIJ`, ...), not preallocated

  Level: intermediate

  Notes:
  The result equals `DMPlexSNESComputeJacobianFEM()` of the same DM, `PetscFE` and pointwise function (g3 = identity
  or g0 = 1) to rounding; its pattern is the element pattern of the unconstrained dofs.  The COO entries come in
  increasing row order (each row: its element contributions in element order), so PETSc's preallocation needs no
  global sort, only its per-row sort of the columns; there are nelem * nen^2 entries at most (the constrained ones
  are left out).  This is the assembled peer of the matrix-free operator on meshes far larger than the host assembly
  of `DMPlexSNESComputeJacobianFEM()` allows in the same time.

.seealso: `DMAssemblyCreateMatrixFree()`, `MatSetPreallocationCOO()`, `MatSetValuesCOO()`
@*/
PetscErrorCode DMAssemblyMatFreeAssemble(Mat A, Mat B)
{
  DMAsmMatFree    mf;
  PetscErrorCodeFn *mult = NULL;
  PetscInt        nen, ne, nc, *nvalid, *ci, *cj, M, N;
  PetscCount     *coff, ncoo;
  PetscScalar    *v;
  PetscBool       bdev, ondev;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidHeaderSpecific(B, MAT_CLASSID, 2);
  PetscCall(MatShellGetOperation(A, MATOP_MULT, &mult));
  PetscCheck(mult == (PetscErrorCodeFn *)MatMult_DMAsmMF, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "DMAssemblyMatFreeAssemble: A is not an operator of DMAssemblyCreateMatrixFree()");
  PetscCall(MatShellGetContext(A, &mf));
  PetscCheck(mf->K, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "DMAssemblyMatFreeAssemble: the %s operator has no element matrices; create it with -dm_assembly_matfree_type elmat_atomic (or another elmat_* variant)", mf->type);
  PetscCall(MatGetSize(B, &M, &N));
  PetscCheck(M == mf->ndof && N == mf->ndof, PetscObjectComm((PetscObject)B), PETSC_ERR_ARG_SIZ, "DMAssemblyMatFreeAssemble: B is %" PetscInt_FMT " x %" PetscInt_FMT ", the operator %" PetscInt_FMT " x %" PetscInt_FMT, M, N, mf->ndof, mf->ndof);
  PetscCall(PetscLogEventBegin(DMASMMF_SetUp, A, B, 0, 0));
  nen = mf->nen;
  ne  = mf->nelem;
  PetscCall(BuildGatherCSR(mf));
  nc = mf->gptr[mf->ndof];
  /* contribution offsets: each contributes its element's unconstrained columns */
  PetscCall(PetscMalloc1(ne, &nvalid));
  for (PetscInt e = 0; e < ne; e++) {
    nvalid[e] = 0;
    for (PetscInt j = 0; j < nen; j++) nvalid[e] += mf->edof[e * nen + j] >= 0;
  }
  PetscCall(PetscMalloc1(nc + 1, &coff));
  coff[0] = 0;
  for (PetscInt k = 0; k < nc; k++) coff[k + 1] = coff[k] + nvalid[mf->gidx[k] / nen];
  ncoo = coff[nc];
  PetscCall(PetscFree(nvalid));
  PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
  {
    COOCtx   cc = {mf, coff, ci, cj};
    PetscInt nt;
    PetscCall(PetscEllwarpThreadsGetCount(0, mf->ndof, 4096, &nt));
    PetscCall(PetscEllwarpThreadsRun(nt, mf->ndof, WorkCOOIndices, &cc));
  }
  PetscCall(MatSetPreallocationCOO(B, ncoo, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(MatTakesDeviceValues(B, &bdev));
  ondev = (PetscBool)(bdev && mf->device && !mf->forcehost);
  if (!ondev) { /* the host reference: the same function per contribution */
    PetscCall(PetscMalloc1(ncoo, &v));
    for (PetscInt k = 0; k < nc; k++) DMAsmMFCOOContribution(k, nen, ne, (int)mf->uniform, mf->K, mf->edof, mf->gidx, coff, v);
    PetscCall(MatSetValuesCOO(B, v, INSERT_VALUES));
    PetscCall(PetscFree(v));
  }
#if defined(ELLWARP_HAVE_CUDA)
  else {
    PetscInt   *dgidx = NULL;
    PetscCount *dcoff = NULL;
    PetscCall(Upload((void **)&dgidx, mf->gidx, sizeof(PetscInt) * nc));
    PetscCall(Upload((void **)&dcoff, coff, sizeof(PetscCount) * (nc + 1)));
    PetscCall(DMAsmCUDAMalloc((void **)&v, sizeof(PetscScalar) * PetscMax(ncoo, 1)));
    PetscCall(DMAsmMFCUDACOOValues(mf, dgidx, dcoff, v));
    PetscCall(DMAsmCUDAFree((void **)&dgidx));
    PetscCall(DMAsmCUDAFree((void **)&dcoff));
    PetscCall(MatSetValuesCOO(B, v, INSERT_VALUES));
    PetscCall(DMAsmMFCUDASynchronize()); /* B's kernels (on its stream) done with v */
    PetscCall(DMAsmCUDAFree((void **)&v));
  }
#endif
  PetscCall(PetscFree(coff));
  PetscCall(PetscInfo(A, "assembled into %s: %" PetscCount_FMT " COO entries (%s values)\n", ((PetscObject)B)->type_name, ncoo, ondev ? "device" : "host"));
  PetscCall(PetscLogEventEnd(DMASMMF_SetUp, A, B, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
