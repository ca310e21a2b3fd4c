/* The built-in kernels of isotropic linear elasticity (DMAssemblyElasticityKernels()) for a vector P1/Q1 Lagrange
   field: the element-buffer kernels every generic method runs (globalnz, host, atomic, color with the element in
   the element buffers), and the context the kiran type (dmasmkiran.c) computes its hexahedra from.  The element
   is include/petscellwarp/private/dmasmelas.h (host and device); the device kernel is in dmasmkirancuda.cu. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmelas.h>
#include <petscdmplex.h>
#include <petscfe.h>


/* the plain-C element loop (the device kernel's reference): ke (and fe = ke ue when fe is given) */
static void HostElas(const DMAsmElasCtx *c, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const int   dim = (int)c->dim, nv = (int)c->nv, nen = (int)c->nen;
  PetscScalar K[DMASM_HEX_NK];
  PetscReal   x[24];

  for (PetscInt e = 0; e < nelem; e++) {
    const PetscReal lam = c->lm ? c->lm[2 * (e0 + e)] : c->lam, mu = c->lm ? c->lm[2 * (e0 + e) + 1] : c->mu;
    for (int k = 0; k < nv * dim; k++) x[k] = xe[(PetscCount)k * nelem + e];
    DMAsmElasElement(dim, nv, (int)c->nq, c->ref, c->ref + c->nq, x, lam, mu, K);
    if (ke)
      for (int r = 0; r < nen * nen; r++) ke[(PetscCount)r * nelem + e] = K[r];
    if (fe)
      for (int r = 0; r < nen; r++) {
        PetscScalar s = 0;
        for (int q = 0; q < nen; q++) s += K[r * nen + q] * ue[(PetscCount)q * nelem + e];
        fe[(PetscCount)r * nelem + e] = s;
      }
  }
}

static PetscLogDouble ElasFlops(const DMAsmElasCtx *c)
{
  const PetscLogDouble nv = (PetscLogDouble)c->nv, d = (PetscLogDouble)c->dim;
  /* per point: J (2 nv d^2), inverse (~40), gradients (2 nv d^2), blocks nv^2 (2d + 6 d^2) */
  return c->nq * (4 * nv * d * d + 40 + nv * nv * (2 * d + 6 * d * d));
}

PetscErrorCode DMAsmElasCtxDevice(DMAsmElasCtx *c)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (!c->dref) {
    const size_t nref = (size_t)c->nq * (1 + c->nv * c->dim);
    PetscCall(DMAsmCUDAMalloc((void **)&c->dref, sizeof(PetscReal) * nref));
    PetscCall(DMAsmCUDAUpload(c->dref, c->ref, sizeof(PetscReal) * nref));
  }
  if (c->lm && !c->dlm) {
    PetscCall(DMAsmCUDAMalloc((void **)&c->dlm, sizeof(PetscReal) * 2 * c->ncell));
    PetscCall(DMAsmCUDAUpload(c->dlm, c->lm, sizeof(PetscReal) * 2 * c->ncell));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ElasRun(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, DMAsmElasCtx *c)
{
  PetscFunctionBegin;
  PetscCheck(e0 == 0 && nelem == c->ncell, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: one batch of all %" PetscInt_FMT " cells expected, got [%" PetscInt_FMT ", %" PetscInt_FMT ")", c->ncell, e0, e0 + nelem);
  if (PetscMemTypeHost(mtype)) {
    HostElas(c, e0, nelem, xe, ue, ke, fe);
    PetscCall(PetscLogFlops(ElasFlops(c) * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmElasCtxDevice(c));
    PetscCall(DMAsmCUDAElasElement(c, nelem, xe, ue, ke, fe));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "Elasticity kernels: built without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ElasResidual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  PetscCall(ElasRun(mtype, e0, nelem, xe, ue, NULL, fe, (DMAsmElasCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ElasJacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  (void)ue;
  (void)ae;
  PetscCall(ElasRun(mtype, e0, nelem, xe, NULL, ke, NULL, (DMAsmElasCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ElasCtxDestroy(void **ctx)
{
  DMAsmElasCtx *c = (DMAsmElasCtx *)*ctx;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(c->ref));
  PetscCall(PetscFree(c->lm));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&c->dref));
  PetscCall(DMAsmCUDAFree((void **)&c->dlm));
#endif
  PetscCall(PetscFree(c));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the elasticity kernels' context when they are the kernels set (kiran's check), else NULL */
PetscErrorCode DMAsmElasGetCtx(DMAssembly as, DMAsmElasCtx **c)
{
  PetscFunctionBegin;
  *c = (as->kset && as->k.jacobian == ElasJacobian && as->k.ctx == as->ownctx) ? (DMAsmElasCtx *)as->ownctx : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMAssemblyElasticityKernels - Built-in element kernels of isotropic linear elasticity for a vector P1/Q1 Lagrange field

  Logically Collective

  Input Parameters:
+ as     - the assembler; its `DM` has one `PetscFE` field with `dim` components, degree 1, on hexahedra,
           quadrilaterals, tetrahedra or triangles (one cell type)
. E      - Young's modulus (used where `Ecell` is `NULL`)
. nu     - Poisson's ratio (used where `nucell` is `NULL`), in (-1, 1/2)
. Ecell  - per cell Young's modulus, [ncells] in the DM's cell order, or `NULL`
- nucell - per cell Poisson's ratio, or `NULL`

  Output Parameter:
. k - the kernels, to pass to `DMAssemblySetElementKernels()`

  Level: beginner

  Notes:
  `ke[(a*dim+i)*nen + b*dim+k][e] = int lambda d_i phi_a d_k phi_b + mu d_k phi_a d_i phi_b + mu delta_ik grad phi_a . grad phi_b`
  (PETSc's elasticity g3 with Lame constants from E and nu; plane strain in 2-D), integrated at the `PetscFE`'s own
  quadrature (Gauss 2 x 2 x 2 for the default Q1 hexahedron) with the vertex basis tabulated from the `PetscFE`:
  the same geometry and points as `DMPlexSNESComputeJacobianFEM()`.  The residual is `fe = ke ue` (linear).

  Vector fields in the element-kernel contract: `nen` is the element's dofs, `nvert*dim`, in the order of
  `DMPlexGetClosureIndices()` (node-major: dof `a*dim+i` is component `i` of vertex `a`); `ue`, `fe`, `ke` keep the
  scalar layouts with that `nen`; `xe` holds the vertex coordinates.  All generic methods run these kernels through
  the element buffers; `DMASSEMBLYKIRAN` computes hexahedra inside its own kernels.
  Calls `DMAssemblySetJacobianUsesState(as, PETSC_FALSE)`.

.seealso: `DMAssembly`, `DMASSEMBLYKIRAN`, `DMAssemblyLagrangeKernels()`, `DMAssemblySetElementKernels()`
@*/
PetscErrorCode DMAssemblyElasticityKernels(DMAssembly as, PetscReal E, PetscReal nu, const PetscReal Ecell[], const PetscReal nucell[], DMAssemblyElementKernels *k)
{
  DM               dm;
  DMAsmElasCtx    *c;
  PetscFE          fe;
  PetscObject      obj;
  PetscClassId     id;
  PetscSpace       sp;
  DMPolytopeType   ct;
  PetscInt         dim, nf, nc, nb, deg, nv, cStart, cEnd, npts, nqc, nqd;
  PetscQuadrature  q;
  const PetscReal *pts, *wts;
  PetscTabulation  T;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(k, 6);
  dm = as->dm;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetNumFields(dm, &nf));
  PetscCheck(nf == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: the DM must have one field (the displacement), got %" PetscInt_FMT, nf);
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: the field must be a PetscFE");
  fe = (PetscFE)obj;
  PetscCall(PetscFEGetNumComponents(fe, &nc));
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(PetscFEGetBasisSpace(fe, &sp));
  PetscCall(PetscSpaceGetDegree(sp, &deg, NULL));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCheck(cEnd > cStart, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Elasticity kernels: the mesh has no cells");
  PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  PetscCheck(ct == DM_POLYTOPE_HEXAHEDRON || ct == DM_POLYTOPE_QUADRILATERAL || ct == DM_POLYTOPE_TETRAHEDRON || ct == DM_POLYTOPE_TRIANGLE, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: hexahedra, quadrilaterals, tetrahedra or triangles, got %s", DMPolytopeTypes[ct]);
  nv = DMPolytopeTypeGetNumVertices(ct);
  PetscCheck(nc == dim && deg == 1 && nb == nv * nc, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: a %" PetscInt_FMT "-component P1/Q1 Lagrange field expected (%" PetscInt_FMT " basis functions), got %" PetscInt_FMT " components, degree %" PetscInt_FMT ", %" PetscInt_FMT " basis functions", dim, nv * dim, nc, deg, nb);
  PetscCheck(!(E <= 0 && !Ecell), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Elasticity kernels: E must be positive, got %g", (double)E);
  PetscCheck(nucell || (nu > -1 && nu < 0.5), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Elasticity kernels: nu must lie in (-1, 1/2), got %g", (double)nu);
  PetscCall(PetscFEGetQuadrature(fe, &q));
  PetscCall(PetscQuadratureGetData(q, &nqd, &nqc, &npts, &pts, &wts));
  PetscCheck(npts <= DMASM_ELAS_MAXQ, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: at most %d quadrature points, the PetscFE has %" PetscInt_FMT, DMASM_ELAS_MAXQ, npts);
  PetscCall(PetscNew(&c));
  c->dim   = dim;
  c->nv    = nv;
  c->nq    = npts;
  c->nen   = nb;
  c->ncell = cEnd - cStart;
  DMAsmElasLame(E, nu, &c->lam, &c->mu);
  if (Ecell || nucell) {
    PetscCall(PetscMalloc1(2 * c->ncell, &c->lm));
    for (PetscInt e = 0; e < c->ncell; e++) {
      const PetscReal Ee = Ecell ? Ecell[e] : E, ne = nucell ? nucell[e] : nu;
      PetscCheck(Ee > 0 && ne > -1 && ne < 0.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Elasticity kernels: cell %" PetscInt_FMT " has E = %g, nu = %g (E > 0, -1 < nu < 1/2)", e, (double)Ee, (double)ne);
      DMAsmElasLame(Ee, ne, &c->lm[2 * e], &c->lm[2 * e + 1]);
    }
  }
  /* the vertex basis: component 0 of basis function a*nc (a vector PetscFE is node-major, checked) */
  PetscCall(PetscFECreateTabulation(fe, 1, npts, pts, 1, &T));
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt cc = 0; cc < nc; cc++)
      if (cc != i % nc)
        for (PetscInt p = 0; p < npts; p++) PetscCheck(T->T[0][(p * nb + i) * nc + cc] == 0.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "Elasticity kernels: the PetscFE's basis function %" PetscInt_FMT " has a component %" PetscInt_FMT " (a node-major vector basis is expected)", i, cc);
  PetscCall(PetscMalloc1(npts * (1 + nv * dim), &c->ref));
  for (PetscInt p = 0; p < npts; p++) {
    c->ref[p] = wts[p];
    for (PetscInt a = 0; a < nv; a++)
      for (PetscInt d = 0; d < dim; d++) c->ref[npts + (p * nv + a) * dim + d] = T->T[1][((p * nb + a * nc) * nc + 0) * dim + d];
  }
  PetscCall(PetscTabulationDestroy(&T));
  (void)nqd;
  (void)nqc;
  if (as->ownctxdestroy) PetscCall((*as->ownctxdestroy)(&as->ownctx));
  as->ownctx        = c;
  as->ownctxdestroy = ElasCtxDestroy;
  as->builtin       = NULL;
  as->hobuiltin     = NULL;
  PetscCall(DMAssemblySetJacobianUsesState(as, PETSC_FALSE));
  PetscCall(DMAssemblySetNodalState(as, PETSC_FALSE)); /* the residual reads the gathered ue */
  k->nen      = nb;
  k->residual = ElasResidual;
  k->jacobian = ElasJacobian;
  k->ctx      = c;
  PetscCall(PetscInfo(as, "Elasticity kernels: %s, %" PetscInt_FMT " dofs per element, %" PetscInt_FMT " quadrature points, %s material\n", DMPolytopeTypes[ct], nb, npts, c->lm ? "per cell" : "constant"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyElasticityG3 - The pointwise Jacobian g3 of isotropic linear elasticity for PETSc's own FE assembly
  (`PetscDSSetJacobian()`), the same operator as `DMAssemblyElasticityKernels()`

  Not Collective

  Input Parameters:
+ dim          - the spatial dimension (the field has `dim` components)
. numConstants - at least 2
- constants    - `{lambda, mu}` (the `PetscDS` constants, `PetscDSSetConstants()`)

  Output Parameter:
. g3 - `g3[((i*dim + k)*dim + j)*dim + l] = lambda delta_ij delta_kl + mu (delta_ik delta_jl + delta_il delta_jk)`
       (test component i, trial component k, test derivative j, trial derivative l: `PetscDS`'s layout)

  Level: intermediate

  Note:
  The other arguments are those of `PetscPointJacFn` and are not used.  With it `DMPlexSNESComputeJacobianFEM()`
  assembles the matrix `DMAssemblyElasticityKernels()` gives (the same `PetscFE` quadrature), which is how the tests,
  the benchmark and the elasticity example check the assembler against PETSc.

.seealso: `DMAssembly`, `DMAssemblyElasticityKernels()`, `PetscDSSetJacobian()`, `DMASSEMBLYKIRAN`
@*/
void DMAssemblyElasticityG3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  const PetscReal lam = PetscRealPart(constants[0]), mu = PetscRealPart(constants[1]);

  (void)Nf, (void)NfAux, (void)uOff, (void)uOff_x, (void)u, (void)u_t, (void)u_x, (void)aOff, (void)aOff_x, (void)a, (void)a_t, (void)a_x, (void)t, (void)u_tShift, (void)x, (void)numConstants;
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++)
      for (PetscInt k = 0; k < dim; k++)
        for (PetscInt l = 0; l < dim; l++) g3[((i * dim + k) * dim + j) * dim + l] = (i == j && k == l ? lam : 0) + (i == k && j == l ? mu : 0) + (i == l && j == k ? mu : 0);
}
