/* Batched element callbacks of the cardiac example (DMAssembly API): the host loop here, the CUDA kernel in
   cardiac_kernels.cu; both call CardiacElement() of cardiac_model.h, the one copy of the math. */
#include "cardiac.h"

static PetscErrorCode Elements(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, PetscScalar *ke, CardiacCtx *ctx)
{
  const PetscInt *edof = NULL;

  PetscFunctionBegin;
  if (ctx->as) { /* the nodal arrays and the element map instead of gathered buffers */
    PetscCheck(!ue && !ae, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cardiac: nodal state declared but the assembler gathered element buffers");
    PetscCall(DMAssemblyGetNodalState(ctx->as, &edof, &ue, &ae));
  }
  PetscCheck(ae, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "cardiac: the assembler must provide the previous step (auxiliary vector)");
  if (PetscMemTypeDevice(mtype)) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCheck(ctx->device, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "cardiac: device callback but the element data are on the host only");
    PetscCall(CardiacElementsCUDA(&ctx->p, ctx->dev, e0, nelem, xe, edof, ue, ae, fe, ke));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "cardiac: device callback in a build without CUDA");
#endif
  } else {
    PetscCheck(!ctx->device, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "cardiac: host callback but the element data live on the device (use -dm_assembly_type globalnz, or host vectors)");
    /* constant NULLs after inlining: the residual and tangent loops each keep only their half */
    if (fe && !ke)
      for (PetscInt e = 0; e < nelem; e++) CardiacElement(&ctx->p, &ctx->host, e, e0 + e, nelem, xe, edof, ue, ae, fe, NULL);
    else if (ke && !fe)
      for (PetscInt e = 0; e < nelem; e++) CardiacElement(&ctx->p, &ctx->host, e, e0 + e, nelem, xe, edof, ue, ae, NULL, ke);
    else
      for (PetscInt e = 0; e < nelem; e++) CardiacElement(&ctx->p, &ctx->host, e, e0 + e, nelem, xe, edof, ue, ae, fe, ke);
    PetscCall(PetscLogFlops(nelem * (fe ? 150.0 : 200.0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacResidual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(Elements(mtype, e0, nelem, xe, ue, ae, fe, NULL, (CardiacCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacJacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(Elements(mtype, e0, nelem, xe, ue, ae, NULL, ke, (CardiacCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacCtxSetUp(CardiacCtx *ctx, PetscBool device)
{
  PetscInt n = ctx->nelem;

  PetscFunctionBegin;
  ctx->host.fib  = ctx->fib;
  ctx->host.stim = ctx->stim;
  ctx->host.rn   = ctx->rn;
  ctx->host.rnew = ctx->rnew;
  ctx->host.ntot = n;
  ctx->device    = device;
  if (device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CardiacDeviceMalloc((void **)&ctx->d_fib, sizeof(PetscReal) * 3 * n));
    PetscCall(CardiacDeviceMalloc((void **)&ctx->d_stim, sizeof(PetscReal) * n));
    PetscCall(CardiacDeviceMalloc((void **)&ctx->d_rn, sizeof(PetscReal) * n));
    PetscCall(CardiacDeviceMalloc((void **)&ctx->d_rnew, sizeof(PetscReal) * n));
    PetscCall(CardiacDeviceCopy(ctx->d_fib, ctx->fib, sizeof(PetscReal) * 3 * n, PETSC_TRUE));
    PetscCall(CardiacDeviceCopy(ctx->d_stim, ctx->stim, sizeof(PetscReal) * n, PETSC_TRUE));
    PetscCall(CardiacDeviceCopy(ctx->d_rn, ctx->rn, sizeof(PetscReal) * n, PETSC_TRUE));
    PetscCall(CardiacDeviceCopy(ctx->d_rnew, ctx->rn, sizeof(PetscReal) * n, PETSC_TRUE));
    ctx->dev.fib  = ctx->d_fib;
    ctx->dev.stim = ctx->d_stim;
    ctx->dev.rn   = ctx->d_rn;
    ctx->dev.rnew = ctx->d_rnew;
    ctx->dev.ntot = n;
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "cardiac: device element data in a build without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the last residual evaluation of a converged SNES solve is at the solution (basic or bt line search), so
   rnew holds r_{n+1}: swap the two arrays */
PetscErrorCode CardiacCtxCommit(CardiacCtx *ctx)
{
  PetscReal *t;

  PetscFunctionBegin;
  if (ctx->device) {
    t = ctx->d_rn; ctx->d_rn = ctx->d_rnew; ctx->d_rnew = t;
    ctx->dev.rn = ctx->d_rn; ctx->dev.rnew = ctx->d_rnew;
  } else {
    t = ctx->rn; ctx->rn = ctx->rnew; ctx->rnew = t;
    ctx->host.rn = ctx->rn; ctx->host.rnew = ctx->rnew;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacCtxGetR(CardiacCtx *ctx, PetscReal *r)
{
  PetscFunctionBegin;
  if (ctx->device) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CardiacDeviceCopy(r, ctx->d_rn, sizeof(PetscReal) * ctx->nelem, PETSC_FALSE));
#endif
  } else PetscCall(PetscArraycpy(r, ctx->rn, ctx->nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacCtxDestroy(CardiacCtx *ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ctx->fib));
  PetscCall(PetscFree(ctx->stim));
  PetscCall(PetscFree(ctx->rn));
  PetscCall(PetscFree(ctx->rnew));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(CardiacDeviceFree(ctx->d_fib));
  PetscCall(CardiacDeviceFree(ctx->d_stim));
  PetscCall(CardiacDeviceFree(ctx->d_rn));
  PetscCall(CardiacDeviceFree(ctx->d_rnew));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* act (activation time per node, -1 = not yet) from the step's crossing of thr: host loop or CUDA kernel,
   chosen by where the vectors live */
PetscErrorCode CardiacUpdateActivation(Vec phiold, Vec phinew, Vec act, PetscReal t, PetscReal dt, PetscReal thr)
{
  const PetscScalar *po, *pn;
  PetscScalar       *a;
  PetscMemType       m1, m2, m3;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(act, &n));
  PetscCall(VecGetArrayReadAndMemType(phiold, &po, &m1));
  PetscCall(VecGetArrayReadAndMemType(phinew, &pn, &m2));
  PetscCall(VecGetArrayAndMemType(act, &a, &m3));
  if (PetscMemTypeDevice(m1) && PetscMemTypeDevice(m2) && PetscMemTypeDevice(m3)) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(CardiacActivationCUDA(n, po, pn, a, t, dt, thr));
#endif
  } else {
    PetscCheck(!PetscMemTypeDevice(m1) && !PetscMemTypeDevice(m2) && !PetscMemTypeDevice(m3), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cardiac: mixed host/device vectors");
    for (PetscInt i = 0; i < n; i++) a[i] = CardiacActivation(PetscRealPart(a[i]), PetscRealPart(po[i]), PetscRealPart(pn[i]), t, dt, thr);
  }
  PetscCall(VecRestoreArrayAndMemType(act, &a));
  PetscCall(VecRestoreArrayReadAndMemType(phinew, &pn));
  PetscCall(VecRestoreArrayReadAndMemType(phiold, &po));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacSync(PetscBool device)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (device) PetscCall(CardiacDeviceSync());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
