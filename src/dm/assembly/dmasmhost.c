/* Plain-C references of the assembler's device kernels (dmasmcuda.cu), the same logic in the same order:
   the host method runs them, and the tests check the plans through them on machines without a GPU. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmp1.h>
#include <petscellwarp/private/dmasmho.h>

/* ue[a*nelem + e] = u[edof[a*nelem + e]] */
void DMAsmHostGather(PetscInt nen, PetscInt nelem, const PetscInt *edof, const PetscScalar *u, PetscScalar *ue)
{
  for (PetscCount q = 0; q < (PetscCount)nen * nelem; q++) ue[q] = u[edof[q]];
}

/* The packed reduction, walked exactly as the CUDA threads walk it: each target is summed by one thread
   in its list order, so host and device sums of the same sources are bitwise equal. */
void DMAsmHostReduce(const DMAsmPlan *P, const PetscScalar *src, PetscScalar *dst)
{
  for (PetscInt b = 0; b < P->nblocks; b++) {
    const PetscCount t0 = (PetscCount)b * P->C;
    const PetscInt   nt = (PetscInt)PetscMin((PetscCount)P->C, P->ntarget - t0);
    PetscScalar     *out = dst + t0;

    for (PetscInt i = 0; i < nt; i++) out[i] = 0;
    for (int t = 0; t < DMASM_BLOCK; t++) {
      PetscScalar s = 0;
      if (P->idx64) {
        for (PetscCount p = P->blkptr[b] + t; p < P->blkptr[b + 1]; p += DMASM_BLOCK) {
          const PetscInt64 v = P->p64[p];
          if (v > 0) s += src[v - 1];
          else if (v < 0) {
            out[~v] = s;
            s       = 0;
          }
        }
      } else {
        for (PetscCount p = P->blkptr[b] + t; p < P->blkptr[b + 1]; p += DMASM_BLOCK) {
          const int v = P->p32[p];
          if (v > 0) s += src[v - 1];
          else if (v < 0) {
            out[~v] = s;
            s       = 0;
          }
        }
      }
    }
  }
}

/* by element: dst[e2t[q]] += src[q] (the device does it with atomicAdd, in no fixed order) */
void DMAsmHostScatter(PetscCount nsrc, const PetscInt *e2t, const PetscScalar *src, PetscScalar *dst)
{
  for (PetscCount q = 0; q < nsrc; q++)
    if (e2t[q] >= 0) dst[e2t[q]] += src[q];
}

/* one colour: its elements share no target, so the device adds without atomics */
void DMAsmHostScatterColor(PetscInt ne, const PetscInt *elems, PetscInt nper, PetscInt nelem, const PetscInt *e2t, const PetscScalar *src, PetscScalar *dst)
{
  for (PetscInt i = 0; i < ne; i++) {
    const PetscInt e = elems[i];
    for (PetscInt k = 0; k < nper; k++) {
      const PetscCount q = (PetscCount)k * nelem + e;
      if (e2t[q] >= 0) dst[e2t[q]] += src[q];
    }
  }
}

void DMAsmHostP1Diffusion(PetscInt dim, PetscInt nelem, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, PetscInt ldD, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  for (PetscInt e = 0; e < nelem; e++) DMAsmP1Element((int)dim, e, nelem, alpha, beta, source, D, ldD, xe, ue, ke, fe);
}

/* Fused element + scatter for the built-in P1 kernels (atomic and color with -dm_assembly_fuse): element e
   is computed in registers from its coordinates (and, for the residual, the nodal values read through the
   dof map) and added straight to its targets; no element data in memory.  elems: the elements (NULL: all). */
void DMAsmHostP1Fused(const DMAsmP1Ctx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscScalar *dst)
{
  DMAsmHostP1FusedStore(c, ne, elems, nelem, xe, u, edof, jac, e2t, dst, NULL);
}

/* the same; store != NULL: the element data go to store[k*nelem + e] instead (the colour tail) */
void DMAsmHostP1FusedStore(const DMAsmP1Ctx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscScalar *dst, PetscScalar *store)
{
  const PetscInt dim = c->dim, nen = dim + 1, nper = jac ? nen * nen : nen;
  for (PetscInt i = 0; i < ne; i++) {
    const PetscInt e = elems ? elems[i] : i;
    PetscReal      xl[12], Dl[9];
    PetscScalar    ul[4], vl[16];
    for (PetscInt q = 0; q < nen * dim; q++) xl[q] = xe[(PetscCount)q * nelem + e];
    for (PetscInt q = 0; q < dim * dim; q++) Dl[q] = c->D ? c->D[(PetscCount)q * nelem + e] : (PetscReal)(q % (dim + 1) == 0);
    if (!jac)
      for (PetscInt a = 0; a < nen; a++) ul[a] = u[edof[(PetscCount)a * nelem + e]];
    DMAsmP1Element((int)dim, 0, 1, c->alpha, c->beta, c->source, Dl, 1, xl, ul, jac ? vl : NULL, jac ? NULL : vl);
    if (store)
      for (PetscInt k = 0; k < nper; k++) store[(PetscCount)k * nelem + e] = vl[k];
    else
      for (PetscInt k = 0; k < nper; k++) {
        const PetscInt t = e2t[(PetscCount)k * nelem + e];
        if (t >= 0) dst[t] += vl[k];
      }
  }
}

/* localnz: the packed plan of globalnz walked as DMAsmHostReduce walks it, each source entry k*nelem + e
   computed from the element's inputs instead of read (entry(ctx, k, e); jac: k = a*nen + b; else k = a) */
typedef PetscScalar (*LocalEntryFn)(const void *, int, PetscInt);

static void LocalNZWalk(const DMAsmPlan *P, PetscInt nelem, LocalEntryFn entry, const void *ctx, PetscScalar *dst)
{
  for (PetscInt b = 0; b < P->nblocks; b++) {
    const PetscCount t0 = (PetscCount)b * P->C;
    const PetscInt   nt = (PetscInt)PetscMin((PetscCount)P->C, P->ntarget - t0);
    PetscScalar     *out = dst + t0;

    for (PetscInt i = 0; i < nt; i++) out[i] = 0;
    for (int t = 0; t < DMASM_BLOCK; t++) {
      PetscScalar s = 0;
      for (PetscCount p = P->blkptr[b] + t; p < P->blkptr[b + 1]; p += DMASM_BLOCK) {
        const PetscInt64 v = P->idx64 ? P->p64[p] : (PetscInt64)P->p32[p];
        if (v > 0) {
          const PetscInt64 q = v - 1;
          const int        k = (int)(q / nelem);
          s += entry(ctx, k, (PetscInt)(q - (PetscInt64)k * nelem));
        } else if (v < 0) {
          out[~v] = s;
          s       = 0;
        }
      }
    }
  }
}

typedef struct {
  const void        *c; /* DMAsmP1Ctx or DMAsmHOCtx */
  PetscBool          jac;
  PetscInt           nelem;
  const PetscReal   *xe;
  const PetscScalar *u;
  const PetscInt    *edof;
} LocalCtx;

static PetscScalar P1Entry(const void *ctx, int k, PetscInt e)
{
  const LocalCtx   *l   = (const LocalCtx *)ctx;
  const DMAsmP1Ctx *c   = (const DMAsmP1Ctx *)l->c;
  const int         nen = (int)c->dim + 1;
  return DMAsmP1ElementEntry((int)c->dim, l->jac ? k / nen : k, l->jac ? k % nen : 0, e, l->nelem, c->alpha, c->beta, c->source, c->D, l->xe, l->jac ? NULL : l->u, l->edof);
}

static PetscScalar HOEntry(const void *ctx, int k, PetscInt e)
{
  const LocalCtx   *l = (const LocalCtx *)ctx;
  const DMAsmHOCtx *c = (const DMAsmHOCtx *)l->c;
  return DMAsmHOLocalEntry((int)c->tensor, (int)c->dim, (int)c->nen, (int)c->nq, k, (int)l->jac, e, l->nelem, c->alpha, c->beta, c->source, c->hasD ? c->D : NULL, c->ref, l->xe, l->u, l->edof);
}

void DMAsmHostLocalNZ(const DMAsmP1Ctx *c, const DMAsmPlan *P, PetscBool jac, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  const LocalCtx l = {c, jac, nelem, xe, u, edof};
  LocalNZWalk(P, nelem, P1Entry, &l, dst);
}

/* the same with the built-in Lagrange elements (dmasmho.c) */
void DMAsmHostLocalNZHO(const DMAsmHOCtx *c, const DMAsmPlan *P, PetscBool jac, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscScalar *dst)
{
  const LocalCtx l = {c, jac, nelem, xe, u, edof};
  LocalNZWalk(P, nelem, HOEntry, &l, dst);
}
