/* MatProduct (AB, AtB, ABt, PtAP, RARt, ABC) with MATSEQELLWARP operands.

   Sparse products are not what the ELL-WARP layout is for: it is a SpMV layout.  So a product is computed by
   the AIJ family, on the device where AIJCUSPARSE computes it on the device:
   - CUDA backend: each ELLWARP operand gets an AIJCUSPARSE "shadow" with the same CSR (made once per product,
     at MatProductSetFromOptions), and AIJCUSPARSE's own product implementation (cuSPARSE SpGEMM) runs on the
     shadows.  Before each numeric phase the shadows' device values are refreshed from the ELL-WARP values by
     the store's slot -> CSR scatter (one device kernel, no host copy), so MatPtAP(..., MAT_REUSE_MATRIX) after a
     new Jacobian (PCGAMG reusing its interpolation, PCMG with Galerkin operators) stays on the GPU.  The result
     is AIJCUSPARSE: a coarse Galerkin operator is a few times smaller than the fine one and is multiplied a few
     times per V-cycle, so an ELL-WARP analysis of each coarse level would cost more than it gains (said in -info).
   - host backend (or a matrix bound to the CPU): SeqAIJ's host products, which read our values through
     MatSeqAIJGetArrayRead() (host copy brought up to date there).
   The shadows live in the product's data (freed by MatProductClear() or with the result). */
#include <petscellwarp/private/matellwarpcommon.h>
#include <petscellwarp/private/matellwarpaxpy.h>

#define NSLOT 3

typedef struct {
  Mat shadow[NSLOT];                  /* AIJCUSPARSE copies of the ELLWARP operands in product slots A, B, C (or NULL) */
  Mat orig[NSLOT];                    /* the operands while the shadows are swapped in */
  void *data;                         /* the implementation's product data and its destroy */
  PetscCtxDestroyFn *destroy;
  PetscErrorCode (*symbolic)(Mat);
  PetscErrorCode (*numeric)(Mat);
  PetscBool ellresult;                /* the result is MATSEQELLWARP: cuSPARSE computes into Cs, whose values are gathered */
  Mat       Cs;                       /* the AIJCUSPARSE result the implementation works on (ellresult only) */
} EllwarpProduct;

static const char CtxName[] = "MatProductEllwarp_ctx";

static PetscErrorCode IsDeviceEllwarp(Mat X, PetscBool *flg)
{
  PetscBool isell;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  if (!X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &isell));
  if (isell && !X->boundtocpu) *flg = (PetscBool)(((Mat_SeqELLWARP *)X->spptr)->backend == MAT_ELLWARP_BACKEND_CUDA);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CtxDestroy(PetscCtxRt arg)
{
  void          **ptr = (void **)arg; /* PETSc passes the address of the context pointer */
  EllwarpProduct *ctx = (EllwarpProduct *)*ptr;

  PetscFunctionBegin;
  if (!ctx) PetscFunctionReturn(PETSC_SUCCESS);
  if (ctx->destroy) PetscCall((*ctx->destroy)(&ctx->data));
  for (int i = 0; i < NSLOT; i++) PetscCall(MatDestroy(&ctx->shadow[i]));
  PetscCall(MatDestroy(&ctx->Cs));
  PetscCall(PetscFree(ctx));
  *ptr = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static Mat *Slot(Mat C, int i)
{
  Mat_Product *p = C->product;
  return i == 0 ? &p->A : (i == 1 ? &p->B : &p->C);
}

/* An AIJCUSPARSE shadow of X that shares X's host CSR (i, j, a): no host copy of the matrix, no second ELL-WARP
   analysis (a MatConvert() would duplicate X, which for a 1 M-row elasticity operator cost 0.8 s in PCGAMG's
   set-up).  cuSPARSE uploads the pattern once, with X's values (made current on the host here: the symbolic phase
   may compute the product's values); RefreshShadow() overwrites them from the layout before every numeric phase.  Should cuSPARSE copy its values back to
   the host (it does so only on a host read of the shadow), it writes X's current values into X's host array,
   which is harmless: X's host copy is then current, whatever X's offload mask says.  MatAXPY of an AIJCUSPARSE
   result with X uses one too (seqellwarpaxpy.c). */
/* One shadow per product, freed with it.  Keeping an operand's shadow for its next product or MatAXPY
   (-mat_ellwarp_keep_shadow: PCGAMG makes the fine operator's and P0's shadows twice each) was tried and is refused:
   on the H100 it gave wrong products in PETSc's mat/tests ex250 on 3 ranks (-matmatmult_via backend) and a zero
   coarse operator in PCGAMG with -mat_ellwarp_product_result ellwarp, both passing with a fresh shadow per product
   (benchmarks/results/gamg-h100/setup-mixed-axpy/kept-shadow-diagnosis.txt); the cause is not found yet. */
static PetscErrorCode CheckNoKeptShadow(Mat X)
{
  PetscBool keep = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(((PetscObject)X)->options, ((PetscObject)X)->prefix, "-mat_ellwarp_keep_shadow", &keep, NULL));
  PetscCheck(!keep, PetscObjectComm((PetscObject)X), PETSC_ERR_SUP, "-mat_ellwarp_keep_shadow is disabled: reusing a product shadow gave wrong products on the GPU (issue 14); a fresh shadow is made for each product");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPCreateShadow_Private(Mat X, Mat *shadow)
{
  Mat_SeqAIJ *x = (Mat_SeqAIJ *)X->data;
  PetscInt    rbs, cbs;

  PetscFunctionBegin;
  if (!x->a || !x->i || !x->j) { /* no host CSR to share (cannot happen for an assembled AIJ subtype; be safe) */
    PetscCall(MatConvert(X, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, shadow));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqELLWARPSyncHost(X)); /* the values cuSPARSE's first upload (in the symbolic phase) carries */
  /* MatCreateSeqAIJWithArrays(), but with I-nodes off before its assembly: AIJCUSPARSE does not use them on the
     device, and SeqAIJ's I-node check is half the cost of making the shadow (ksp ex45 128^3, 14.6 M nonzeros, on
     the build machine's CPU: 110 ms with the check, 45 ms without; PCGAMG makes three or four shadows of the fine
     level in its set-up) */
  {
    PetscInt    m = X->rmap->n;
    Mat_SeqAIJ *s;

    PetscCall(MatCreate(PETSC_COMM_SELF, shadow));
    PetscCall(MatSetSizes(*shadow, m, X->cmap->n, m, X->cmap->n));
    PetscCall(MatGetBlockSizes(X, &rbs, &cbs));
    PetscCall(MatSetBlockSizes(*shadow, rbs, cbs));
    PetscCall(MatSetType(*shadow, MATSEQAIJ));
    PetscCall(MatSetOption(*shadow, MAT_USE_INODES, PETSC_FALSE));
    PetscCall(MatSeqAIJSetPreallocation(*shadow, MAT_SKIP_ALLOCATION, NULL));
    s = (Mat_SeqAIJ *)(*shadow)->data;
    PetscCall(PetscMalloc1(m, &s->imax));
    PetscCall(PetscMalloc1(m, &s->ilen));
    s->i       = x->i;
    s->j       = x->j;
    s->a       = x->a;
    s->nonew   = -1; /* a new nonzero is an error, as in MatCreateSeqAIJWithArrays() */
    s->free_a  = PETSC_FALSE;
    s->free_ij = PETSC_FALSE;
    for (PetscInt r = 0; r < m; r++) s->ilen[r] = s->imax[r] = x->i[r + 1] - x->i[r];
    PetscCall(MatAssemblyBegin(*shadow, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*shadow, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatConvert(*shadow, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, shadow));
  PetscCall(CheckNoKeptShadow(X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ELLWARP operand's current values into its shadow's device CSR values (same CSR order) */
static PetscErrorCode RefreshShadow(Mat X, Mat shadow)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)X->spptr;
  PetscScalar    *dv;

  PetscFunctionBegin;
#if !defined(ELLWARP_HAVE_CUDA)
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MATSEQELLWARP product shadows need petsc-ellwarp built with CUDA");
#endif
  {
    /* No layout yet (it is built on first use) and the host values are current: cuSPARSE uploads them itself
       (values only), and X is not analysed for a product.  PCGAMG's tentative prolongator, made on the host and
       only ever read by the products and MatAXPY's host path, is never analysed.  Only when the shadow shares
       this very X's host CSR (a product reused with other operands goes through the layout, below). */
    const Mat_SeqAIJ *x = (const Mat_SeqAIJ *)X->data, *s = (const Mat_SeqAIJ *)shadow->data;

    if (X->offloadmask != PETSC_OFFLOAD_GPU && (!e->L || e->nzstate != X->nonzerostate) && x->a == s->a && x->i == s->i && x->j == s->j && x->nz == s->nz) {
      shadow->offloadmask = PETSC_OFFLOAD_CPU;
      PetscCall(PetscObjectStateIncrease((PetscObject)shadow));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatSeqELLWARPSyncLayout(X)); /* host-newer values go to the layout first */
  PetscCheck(e->L && e->L->nnz == ((Mat_SeqAIJ *)shadow->data)->nz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATSEQELLWARP product: the operand's nonzero pattern changed since the product was set up; create the product again (MAT_INITIAL_MATRIX)");
#if defined(ELLWARP_HAVE_CUDA)
  /* GetArray, not GetArrayWrite: a new shadow has no device CSR yet, and GetArray makes it (one upload of the
     shared host CSR, whose values are overwritten here at once) */
  PetscCall(MatSeqAIJCUSPARSEGetArray(shadow, &dv));
  PetscCall(e->k->scatter(e->S, dv));
  PetscCall(MatSeqAIJCUSPARSERestoreArray(shadow, &dv));
#else
  (void)dv;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* put the shadows (refreshed) and the implementation's data in place, or take them out again */
static PetscErrorCode SwapIn(Mat C, EllwarpProduct *ctx, PetscBool refresh)
{
  PetscFunctionBegin;
  for (int i = 0; i < NSLOT; i++) {
    Mat *s = Slot(C, i);

    if (!ctx->shadow[i]) continue;
    ctx->orig[i] = *s;
    if (refresh) PetscCall(RefreshShadow(*s, ctx->shadow[i]));
    *s = ctx->shadow[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SwapOut(Mat C, EllwarpProduct *ctx)
{
  for (int i = 0; i < NSLOT; i++)
    if (ctx->shadow[i]) *Slot(C, i) = ctx->orig[i];
}

/* Run the implementation's phase on Cs instead of C: the product (operands, data) moves to Cs for the call */
static PetscErrorCode CallOnCs(Mat C, EllwarpProduct *ctx, PetscErrorCode (*phase)(Mat))
{
  Mat_Product   *prod = C->product;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ctx->Cs->product = prod;
  C->product       = NULL;
  ierr             = (*phase)(ctx->Cs);
  C->product       = prod;
  ctx->Cs->product = NULL;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C (MATSEQELLWARP, the pattern of Cs) gets Cs's device values: one gather kernel, CSR order -> layout slots */
static PetscErrorCode ResultFromCs(Mat C, Mat Cs)
{
  Mat_SeqELLWARP    *e = (Mat_SeqELLWARP *)C->spptr;
  const PetscScalar *dv;

  PetscFunctionBegin;
  PetscCall(MatSeqELLWARPSyncLayout(C));
  PetscCheck(e->L && e->L->nnz == ((Mat_SeqAIJ *)Cs->data)->nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP product result: pattern differs from cuSPARSE's result");
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Cs, &dv));
  PetscCall(e->k->gather(e->S, dv));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Cs, &dv));
#else
  (void)dv;
#endif
  e->ltcurrent   = PETSC_FALSE;
  e->valversion++;
  C->offloadmask = PETSC_OFFLOAD_GPU; /* the layout holds the values; the host copy follows on demand */
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After cuSPARSE's symbolic phase on Cs: C becomes a MATSEQELLWARP with Cs's pattern (host CSR, which cuSPARSE's
   symbolic phase leaves on the host), analysed once; the product stays attached to C */
static PetscErrorCode ResultCreate(Mat C, Mat Cs)
{
  Mat_Product *prod = C->product;
  Mat_SeqAIJ  *cs   = (Mat_SeqAIJ *)Cs->data;
  PetscInt     rbs, cbs;

  PetscFunctionBegin;
  C->product = NULL; /* not part of the type change */
  PetscCall(MatSetSizes(C, Cs->rmap->n, Cs->cmap->n, Cs->rmap->N, Cs->cmap->N));
  PetscCall(MatGetBlockSizes(Cs, &rbs, &cbs));
  PetscCall(MatSetBlockSizes(C, rbs, cbs));
  PetscCall(MatSetType(C, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(C, cs->i, cs->j, NULL));
  PetscCall(MatConvert(C, MATSEQELLWARP, MAT_INPLACE_MATRIX, &C));
  C->product = prod;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductNumeric(Mat C)
{
  EllwarpProduct *ctx = (EllwarpProduct *)C->product->data;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(SwapIn(C, ctx, PETSC_TRUE));
  C->product->data    = ctx->data;
  C->product->destroy = ctx->destroy;
  if (ctx->Cs) ierr = CallOnCs(C, ctx, ctx->numeric);
  else {
    ierr = (*ctx->numeric)(C);
    /* an implementation may leave its own numeric phase in C's ops (PETSc's ABC_Basic, which AIJCUSPARSE's PtAP
       uses, does): ours goes back in, or the next MAT_REUSE_MATRIX would run it on our context */
    if (C->ops->productnumeric && C->ops->productnumeric != ProductNumeric) ctx->numeric = C->ops->productnumeric;
    C->ops->productnumeric = ProductNumeric;
  }
  ctx->data           = C->product->data; /* (the implementation may have replaced it) */
  ctx->destroy        = C->product->destroy;
  C->product->data    = ctx;
  C->product->destroy = CtxDestroy;
  SwapOut(C, ctx);
  PetscCall(ierr);
  if (ctx->Cs) PetscCall(ResultFromCs(C, ctx->Cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductSymbolic(Mat C)
{
  EllwarpProduct *ctx = NULL;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, CtxName, (void **)&ctx));
  PetscCheck(ctx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP product: no product context (MatProductSetFromOptions() not called?)");
  /* not refreshed: the shadows' first upload (cuSPARSE's, in this phase) carries the operands' current values,
     which CreateShadow() brought to the host.  (Refreshing here, before cuSPARSE has made its device CSR, gave
     NaN coarse operators in PCGAMG on an H100; the symbolic phase may compute values, so they must be current.) */
  PetscCall(SwapIn(C, ctx, PETSC_FALSE));
  if (ctx->ellresult) {
    PetscCall(MatCreate(PETSC_COMM_SELF, &ctx->Cs));
    /* the implementation's MatProductSetFromOptions() set C's ops (its phases may call them): Cs gets them too */
    PetscCall(PetscMemcpy(ctx->Cs->ops, C->ops, sizeof(struct _MatOps)));
    ierr = CallOnCs(C, ctx, ctx->symbolic);
  } else ierr = (*ctx->symbolic)(C);
  SwapOut(C, ctx);
  PetscCall(ierr);
  if (ctx->Cs) {
    PetscBool iscusp;

    PetscCall(PetscObjectTypeCompare((PetscObject)ctx->Cs, MATSEQAIJCUSPARSE, &iscusp));
    PetscCheck(iscusp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP product: cuSPARSE's result has type %s", ((PetscObject)ctx->Cs)->type_name);
    PetscCall(ResultCreate(C, ctx->Cs));
  }
  /* the context moves from the container into the product's data, the implementation's data into the context */
  ctx->data           = C->product->data;
  ctx->destroy        = C->product->destroy;
  ctx->numeric        = C->ops->productnumeric;
  C->product->data    = ctx;
  C->product->destroy = CtxDestroy;
  C->ops->productnumeric = ProductNumeric;
  if (ctx->Cs) { /* values the symbolic phase computed (they are recomputed by every numeric phase) */
    ctx->numeric = ctx->Cs->ops->productnumeric;
    PetscCall(ResultFromCs(C, ctx->Cs));
  }
  {
    PetscContainer c;

    PetscCall(PetscObjectQuery((PetscObject)C, CtxName, (PetscObject *)&c));
    PetscCall(PetscContainerSetPointer(c, NULL)); /* detach before the container goes */
    PetscCall(PetscObjectCompose((PetscObject)C, CtxName, NULL));
  }
  /* an operator applied to an operand (PCGAMG's A P0): MatAXPY/MatAYPX of the result with an ELLWARP operand would
     otherwise fall to PETSc's MatAXPY_Basic, a host MatSetValues loop (the types differ); Galerkin products keep
     their result's own op (seqellwarpaxpy.c says why) */
  if (!ctx->ellresult && (C->product->type == MATPRODUCT_AB || C->product->type == MATPRODUCT_AtB || C->product->type == MATPRODUCT_ABt)) PetscCall(MatSeqELLWARPSetAXPYPartner_Private(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An operand that is neither MATSEQELLWARP nor a SeqAIJ (MATDIAGONAL, MATCONSTANTDIAGONAL, dense, shell, ...):
   the implementation PETSc would choose with a plain SeqAIJ in our place (MatProductForOtherTypes_Private); with
   none, PETSc's generic fallbacks (dense B) follow. */
static PetscErrorCode DelegateOtherTypes(Mat C, PetscBool *done)
{
  Mat_Product *p = C->product;
  PetscErrorCode (*f)(Mat);

  PetscFunctionBegin;
  PetscCall(MatProductForOtherTypes_Private(C, MATSEQELLWARP, MATSEQAIJ, done, &f));
  if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(C, "MatProduct %s of MATSEQELLWARP with %s: %s\n", MatProductTypes[p->type], ((PetscObject)(p->A && p->B ? p->B : p->A))->type_name, f ? "the implementation PETSc uses for SeqAIJ operands" : "none (PETSc's generic fallbacks)"));
  if (f) PetscCall((*f)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host products' result (SeqAIJ's symbolic phase gives it the first operand's type): a plain SeqAIJ result
   gets MATSEQELLWARP's axpy op, as the device results do (ProductSymbolic) */
static const char HostSymbolicName[] = "MatProductSymbolicEllwarpHost_C";

static PetscErrorCode HostSymbolic(Mat C)
{
  PetscErrorCode (*f)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)C, HostSymbolicName, &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP host product: no symbolic phase recorded");
  PetscCall((*f)(C));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, HostSymbolicName, NULL));
  PetscCall(MatSeqELLWARPSetAXPYPartner_Private(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* installed as MATSEQELLWARP's productsetfromoptions op and composed as MatProductSetFromOptions_anytype_C,
   so it is found for ELLWARP x ELLWARP and for ELLWARP with any other operand type */
PetscErrorCode MatProductSetFromOptions_SeqELLWARP(Mat C)
{
  Mat_Product    *p = C->product;
  PetscBool       dev[NSLOT], any = PETSC_FALSE, mixed = PETSC_FALSE, done;
  Mat             lead = NULL;
  EllwarpProduct *ctx;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(DelegateOtherTypes(C, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < NSLOT; i++) {
    Mat       X = (i == 2 && p->type != MATPRODUCT_ABC) ? NULL : *Slot(C, i);
    PetscBool isell;

    PetscCall(IsDeviceEllwarp(X, &dev[i]));
    any = (PetscBool)(any || dev[i]);
    /* an ELLWARP operand on the host backend, or one not assembled yet (MPIAIJ's "backend" products make block
       matrices of the operands' type that did not read -mat_ellwarp_backend): SeqAIJ's host product for all,
       which brings device operands' host values up to date; a device product needs every ELLWARP operand's
       device layout (it stopped in MatConvert with "Not for unassembled matrix") */
    if (X) PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQELLWARP, &isell));
    if (X && isell && (!dev[i] || !X->assembled)) mixed = PETSC_TRUE;
  }
  if (mixed && any) PetscCall(PetscInfo(C, "MatProduct %s: an ELLWARP operand on the host backend or not assembled: SeqAIJ's host product for all operands\n", MatProductTypes[p->type]));
  if (!any || mixed) { /* host backend: SeqAIJ's products, which read our values through MatSeqAIJGetArrayRead() */
    Mat a = p->A;
    PetscBool isell;

    PetscCall(PetscObjectTypeCompare((PetscObject)a, MATSEQELLWARP, &isell));
    if (!isell) a = p->B;
    PetscCall(PetscObjectTypeCompare((PetscObject)a, MATSEQELLWARP, &isell));
    PetscCheck(isell, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQELLWARP product without an ELLWARP operand");
    PetscCall(PetscInfo(C, "MatProduct %s with MATSEQELLWARP (host backend): SeqAIJ's host product\n", MatProductTypes[p->type]));
    PetscCall((*((Mat_SeqELLWARP *)a->spptr)->aijops.productsetfromoptions)(C));
    if (C->ops->productsymbolic && (p->type == MATPRODUCT_AB || p->type == MATPRODUCT_AtB || p->type == MATPRODUCT_ABt)) {
      PetscCall(PetscObjectComposeFunction((PetscObject)C, HostSymbolicName, C->ops->productsymbolic));
      C->ops->productsymbolic = HostSymbolic;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscNew(&ctx));
  for (int i = 0; i < NSLOT; i++) {
    Mat X = *Slot(C, i);

    if (!dev[i] || (i == 2 && p->type != MATPRODUCT_ABC)) continue;
    for (int k = 0; k < i; k++) /* the same matrix in two slots (A^T A, P^T A P with P = A): one shadow */
      if (ctx->shadow[k] && *Slot(C, k) == X) {
        PetscCall(PetscObjectReference((PetscObject)ctx->shadow[k]));
        ctx->shadow[i] = ctx->shadow[k];
      }
    if (!ctx->shadow[i]) PetscCall(MatSeqELLWARPCreateShadow_Private(X, &ctx->shadow[i]));
  }
  for (int i = 0; i < NSLOT && !lead; i++) lead = ctx->shadow[i];
  {
    char      res[32] = "";
    PetscBool set;

    PetscCall(PetscOptionsGetString(((PetscObject)C)->options, ((PetscObject)C)->prefix, "-mat_ellwarp_product_result", res, sizeof(res), &set));
    if (set) {
      PetscBool isell, iscusp;

      PetscCall(PetscStrcmp(res, "ellwarp", &isell));
      PetscCall(PetscStrcmp(res, "aijcusparse", &iscusp));
      PetscCheck(isell || iscusp, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_ellwarp_product_result %s: expected ellwarp or aijcusparse", res);
      ctx->ellresult = isell;
    }
  }
  PetscCall(PetscInfo(C, "MatProduct %s with MATSEQELLWARP operands: computed by AIJCUSPARSE (cuSPARSE) on shadows refreshed on the device; the result is %s\n", MatProductTypes[p->type], ctx->ellresult ? MATSEQELLWARP : MATSEQAIJCUSPARSE));
  PetscCall(SwapIn(C, ctx, PETSC_FALSE));
  ierr = (*lead->ops->productsetfromoptions)(C);
  SwapOut(C, ctx);
  if (ierr) PetscCall(CtxDestroy((void **)&ctx));
  PetscCall(ierr);
  if (!C->ops->productsymbolic) { /* AIJCUSPARSE has no implementation for these operands either */
    PetscCall(CtxDestroy((void **)&ctx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->symbolic           = C->ops->productsymbolic;
  C->ops->productsymbolic = ProductSymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)C, CtxName, ctx, CtxDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}
