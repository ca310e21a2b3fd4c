/* Built-in element kernels: P1 simplices, anisotropic diffusion (per-element conductivity) + consistent
   mass (include/petscellwarp/private/dmasmp1.h holds the element, shared by the host loop and the CUDA kernel). */
#include <petscellwarp/private/dmassemblyimpl.h>

typedef DMAsmP1Ctx P1Ctx;

static PetscErrorCode P1CtxDestroy(void **ctx)
{
  P1Ctx *c = (P1Ctx *)*ctx;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(c->D));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&c->dD));
  PetscCall(DMAsmCUDAFree((void **)&c->dDs));
#endif
  PetscCall(PetscFree(c));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copy of the conductivities, made at the first device use */
PetscErrorCode DMAsmP1CtxDevice(DMAsmP1Ctx *c)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (c->D && !c->dD) {
    PetscCall(DMAsmCUDAMalloc((void **)&c->dD, sizeof(PetscReal) * c->dim * c->dim * c->nelem));
    PetscCall(DMAsmCUDAUpload(c->dD, c->D, sizeof(PetscReal) * c->dim * c->dim * c->nelem));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the conductivities in the assembler's element order (DMAsmReorderElements): D_new[e] = D_old[perm[e]] */
PetscErrorCode DMAsmP1CtxPermute(DMAsmP1Ctx *c, const PetscInt *perm)
{
  PetscReal *D;

  PetscFunctionBegin;
  if (!c->D || !perm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!c->dD, PETSC_COMM_SELF, PETSC_ERR_ORDER, "DMAssembly: conductivities already on the device");
  PetscCall(PetscMalloc1((size_t)c->dim * c->dim * c->nelem, &D));
  for (PetscInt i = 0; i < c->dim * c->dim; i++)
    for (PetscInt e = 0; e < c->nelem; e++) D[(PetscCount)i * c->nelem + e] = c->D[(PetscCount)i * c->nelem + perm[e]];
  PetscCall(PetscFree(c->D));
  c->D = D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sharednz reads every border element's conductivity once per block it touches: when D is exactly symmetric
   it reads the upper triangle only (the same values, so the same arithmetic as the full tensor) */
PetscErrorCode DMAsmP1CtxDeviceSym(DMAsmP1Ctx *c)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (c->D && !c->symchecked) {
    const PetscInt dim = c->dim, ns = dim * (dim + 1) / 2;
    PetscBool      sym = PETSC_TRUE;
    c->symchecked      = PETSC_TRUE;
    for (PetscInt i = 0; i < dim && sym; i++)
      for (PetscInt j = i + 1; j < dim && sym; j++)
        for (PetscInt e = 0; e < c->nelem; e++)
          if (c->D[(PetscCount)(i * dim + j) * c->nelem + e] != c->D[(PetscCount)(j * dim + i) * c->nelem + e]) {
            sym = PETSC_FALSE;
            break;
          }
    PetscCall(PetscInfo(NULL, "P1 conductivity %s: the fused and sharednz device kernels read %s (the plain element kernel always the full tensor)\n", sym ? "exactly symmetric" : "not exactly symmetric", sym ? "its upper triangle" : "the full tensor"));
    if (sym) {
      PetscReal *h;
      PetscInt   q = 0;
      PetscCall(PetscMalloc1((size_t)ns * c->nelem, &h));
      for (PetscInt i = 0; i < dim; i++)
        for (PetscInt j = i; j < dim; j++, q++) PetscCall(PetscArraycpy(h + (PetscCount)q * c->nelem, c->D + (PetscCount)(i * dim + j) * c->nelem, c->nelem));
      PetscCall(DMAsmCUDAMalloc((void **)&c->dDs, sizeof(PetscReal) * ns * c->nelem));
      PetscCall(DMAsmCUDAUpload(c->dDs, h, sizeof(PetscReal) * ns * c->nelem));
      PetscCall(PetscFree(h));
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1Run(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, P1Ctx *c)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype)) {
    DMAsmHostP1Diffusion(c->dim, nelem, c->alpha, c->beta, c->source, c->D ? c->D + e0 : NULL, c->nelem, xe, ue, ke, fe);
    PetscCall(PetscLogFlops((c->dim == 3 ? 150.0 : 60.0) * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmP1CtxDevice(c));
    /* the full tensor, also when D is exactly symmetric: a runtime upper-triangle branch in this kernel put its
       element arrays in local memory (192 B stack frame) and made it ~38% slower on an H100; the upper triangle
       is read only by the fused and sharednz kernels, where it stays in registers */
    PetscCall(DMAsmCUDAP1Diffusion(c->dim, nelem, c->alpha, c->beta, c->source, c->dD ? c->dD + e0 : NULL, c->nelem, xe, ue, ke, fe));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "built without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1Residual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  PetscCall(P1Run(mtype, e0, nelem, xe, ue, NULL, fe, (P1Ctx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1Jacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  PetscCall(P1Run(mtype, e0, nelem, xe, ue, ke, NULL, (P1Ctx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyP1DiffusionMassKernels - the built-in P1 element kernels (triangles and tetrahedra):
  ke = alpha * int grad(phi_a) . D_e grad(phi_b) + beta * int phi_a phi_b, fe = ke ue - source * |T| / (dim+1)

  Logically Collective

  Input Parameters:
+ as     - the assembler (its DM gives the dimension and the number of elements)
. alpha  - diffusion coefficient
. beta   - mass coefficient
. source - constant volume source
- D      - per-element symmetric conductivity, cell-major host array [nelem][dim*dim], or NULL (identity); copied

  Output Parameter:
. k - the kernels, to pass to `DMAssemblySetElementKernels()`; their context belongs to `as`

  Level: beginner

.seealso: `DMAssembly`, `DMAssemblySetElementKernels()`, `DMAssemblyLagrangeKernels()`
@*/
PetscErrorCode DMAssemblyP1DiffusionMassKernels(DMAssembly as, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal D[], DMAssemblyElementKernels *k)
{
  P1Ctx   *c;
  PetscInt cStart, cEnd, dim;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscCall(DMGetDimension(as->dm, &dim));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "P1 kernels: dimension 2 or 3");
  PetscCall(DMPlexGetHeightStratum(as->dm, 0, &cStart, &cEnd));
  PetscCall(PetscNew(&c));
  c->dim    = dim;
  c->nelem  = cEnd - cStart;
  c->alpha  = alpha;
  c->beta   = beta;
  c->source = source;
  if (D) {
    PetscCall(PetscMalloc1((size_t)dim * dim * c->nelem, &c->D));
    for (PetscInt e = 0; e < c->nelem; e++)
      for (PetscInt i = 0; i < dim * dim; i++) c->D[i * c->nelem + e] = D[e * dim * dim + i];
  }
  if (as->eperm) PetscCall(DMAsmP1CtxPermute(c, as->eperm)); /* set up already, elements renumbered */
  if (as->ownctxdestroy) PetscCall((*as->ownctxdestroy)(&as->ownctx));
  as->ownctx        = c;
  as->builtin       = c; /* atomic and color may fuse the element into their scatter (-dm_assembly_fuse) */
  as->hobuiltin     = NULL;
  as->ownctxdestroy = P1CtxDestroy;
  PetscCall(DMAssemblySetJacobianUsesState(as, PETSC_FALSE)); /* ke does not depend on u */
  PetscCall(DMAssemblySetNodalState(as, PETSC_FALSE));      /* P1Residual reads the gathered ue */
  k->nen            = dim + 1;
  k->residual       = P1Residual;
  k->jacobian       = P1Jacobian;
  k->ctx            = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}
