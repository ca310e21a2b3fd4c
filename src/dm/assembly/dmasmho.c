/* Elements beyond the fused P1 path: the closure-based element -> dof map and pattern for any scalar Lagrange
   PetscFE on triangles, tetrahedra, quadrilaterals and hexahedra (P1..P5 triangles, P2 tets, Q1 quads/hexes, P1 prisms, ...),
   and the built-in Lagrange kernels (DMAssemblyLagrangeKernels(): Laplacian with a constant conductivity + mass +
   source; the element is include/petscellwarp/private/dmasmho.h, compiled by both compilers).

   The element map comes from DMPlexGetClosureIndices() with the DM's local and global sections: the dofs of the
   cell's closure (cell, faces, edges, vertices, each with the section's orientation permutations applied), i.e.
   exactly the indices PETSc's own assembly (DMPlexMatSetClosure) uses, in the order of the PetscFE's basis.  The
   element coordinates are the cell's VERTEX coordinates (DMPlexGetCellCoordinates(), closure order): the affine
   map of a simplex, the trilinear map of a Q1 cell. */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmho.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscdt.h>

static PetscErrorCode GetFE(DM dm, PetscFE *fe)
{
  PetscInt     nf;
  PetscObject  obj;
  PetscClassId id;

  PetscFunctionBegin;
  PetscCall(DMGetNumFields(dm, &nf));
  PetscCheck(nf == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the DM must have exactly one field (a scalar Lagrange PetscFE), got %" PetscInt_FMT, nf);
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the field must be a PetscFE");
  *fe = (PetscFE)obj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell family of the mesh: all cells of one supported type */
static PetscErrorCode GetCellType(DM dm, DMPolytopeType *ct)
{
  PetscInt cStart, cEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  *ct = DM_POLYTOPE_UNKNOWN;
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType t;
    PetscCall(DMPlexGetCellType(dm, c, &t));
    if (c == cStart) *ct = t;
    PetscCheck(t == *ct, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " is a %s, cell %" PetscInt_FMT " a %s: one cell type per mesh", c, DMPolytopeTypes[t], cStart, DMPolytopeTypes[*ct]);
  }
  PetscCheck(cEnd == cStart || *ct == DM_POLYTOPE_TRIANGLE || *ct == DM_POLYTOPE_TETRAHEDRON || *ct == DM_POLYTOPE_QUADRILATERAL || *ct == DM_POLYTOPE_HEXAHEDRON || *ct == DM_POLYTOPE_TRI_PRISM, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cells of type %s are not supported (triangles, tetrahedra, quadrilaterals, hexahedra, prisms)", DMPolytopeTypes[*ct]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetDegree(PetscFE fe, PetscInt *deg)
{
  PetscSpace sp;

  PetscFunctionBegin;
  PetscCall(PetscFEGetBasisSpace(fe, &sp));
  PetscCall(PetscSpaceGetDegree(sp, deg, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P1/Q1 fields (nc components, dofs on the vertices only, vertex coordinates): the element map straight from the
   cell's transitive closure, the vertices in closure order -- the indices and order DMPlexGetClosureIndices() gives
   such a section (no point with more than vertex dofs, so no orientation permutation), at a fraction of its cost
   (it dominates the set-up of millions of cells) */
static PetscErrorCode ElementMapVertices(DMAssembly as, PetscSection ls, PetscSection gs, DMPolytopeType ct)
{
  DM                 dm = as->dm;
  const PetscInt     nelem = as->nelem, nv = as->nvert, nc = as->ncomp, dim = as->dim, cStart = as->cStart;
  PetscSection       cs;
  Vec                cv;
  const PetscScalar *x;
  PetscInt           vStart, vEnd, *cl = NULL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cv));
  PetscCall(VecGetArrayRead(cv, &x));
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt ncl, a = 0;
    PetscCall(DMPlexGetTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++) {
      const PetscInt v = cl[2 * i];
      PetscInt       off, ndof, ncon, coff;
      if (v < vStart || v >= vEnd) continue;
      PetscCheck(a < nv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly: cell %" PetscInt_FMT " has more than %" PetscInt_FMT " vertices", cStart + e, nv);
      PetscCall(PetscSectionGetDof(ls, v, &ndof));
      PetscCall(PetscSectionGetConstraintDof(ls, v, &ncon));
      PetscCheck(ndof == nc, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: vertex %" PetscInt_FMT " has %" PetscInt_FMT " dofs, the field %" PetscInt_FMT " components", v, ndof, nc);
      PetscCheck(!ncon, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " has a constrained dof; essential conditions through the section are not supported (apply them with MatZeroRowsColumns)", cStart + e);
      PetscCall(PetscSectionGetOffset(gs, v, &off));
      PetscCall(PetscSectionGetOffset(cs, v, &coff));
      for (PetscInt c = 0; c < nc; c++) as->edof[(PetscCount)(a * nc + c) * nelem + e] = off + c;
      for (PetscInt d = 0; d < dim; d++) as->xe[(PetscCount)(a * dim + d) * nelem + e] = PetscRealPart(x[coff + d]);
      a++;
    }
    PetscCheck(a == nv, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " (%s) has %" PetscInt_FMT " vertices in its closure, expected %" PetscInt_FMT, cStart + e, DMPolytopeTypes[ct], a, nv);
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart, PETSC_TRUE, NULL, &cl));
  PetscCall(VecRestoreArrayRead(cv, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* called by DMAsmBuildMesh() for every discretization but the P1 simplex (one process, checked there) */
PetscErrorCode DMAsmBuildElementMapHO(DMAssembly as)
{
  DM             dm = as->dm;
  PetscSection   ls, gs;
  PetscFE        fe;
  DMPolytopeType ct;
  PetscInt       dim, cdim, cStart, cEnd, nelem, nc, nb, nvert, deg;
  PetscBool      simplex;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(GetFE(dm, &fe));
  PetscCall(PetscFEGetNumComponents(fe, &nc));
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(GetDegree(fe, &deg));
  PetscCall(GetCellType(dm, &ct));
  /* a vector field: P1/Q1 Lagrange with its nc components at every vertex (node-major dofs a*nc + c) */
  PetscCheck(nc == 1 || nb == nc * DMPolytopeTypeGetNumVertices(ct), PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: a %" PetscInt_FMT "-component field must be P1/Q1 Lagrange (%" PetscInt_FMT " basis functions, %" PetscInt_FMT " per component); got %" PetscInt_FMT, nc, nc * DMPolytopeTypeGetNumVertices(ct), DMPolytopeTypeGetNumVertices(ct), nb);
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(cdim == dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: coordinate dimension %" PetscInt_FMT " differs from the mesh dimension %" PetscInt_FMT, cdim, dim);
  simplex = (PetscBool)(ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON);
  nvert   = DMPolytopeTypeGetNumVertices(ct);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  nelem = cEnd - cStart;
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(PetscSectionGetConstrainedStorageSize(gs, &as->ndof));
  as->nelem  = nelem;
  as->nen    = nb;
  as->nvert  = nvert;
  as->dim    = dim;
  as->cStart = cStart;
  as->p1     = PETSC_FALSE;
  as->ncomp  = nc;
  PetscCall(PetscSNPrintf(as->ename, sizeof(as->ename), "%s%" PetscInt_FMT "%s %s", simplex ? "P" : "Q", deg, nc == 1 ? "" : nc == 2 ? "^2" : "^3", ct == DM_POLYTOPE_TRIANGLE ? "triangles" : ct == DM_POLYTOPE_TETRAHEDRON ? "tetrahedra" : ct == DM_POLYTOPE_QUADRILATERAL ? "quadrilaterals" : ct == DM_POLYTOPE_HEXAHEDRON ? "hexahedra" : ct == DM_POLYTOPE_TRI_PRISM ? "prisms" : "cells"));
  PetscCheck((PetscCount)nb * nelem < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: %" PetscInt_FMT " elements of %" PetscInt_FMT " nodes: the element map exceeds the PetscInt range; configure PETSc with 64-bit indices", nelem, nb);
  PetscCall(PetscMalloc2((size_t)nb * nelem, &as->edof, (size_t)nvert * dim * nelem, &as->xe));
  PetscCall(PetscLogEventBegin(DMASSEMBLY_ElementMap, as, 0, 0, 0));
  {
    DM cdg;
    PetscCall(DMGetCellCoordinateDM(dm, &cdg));
    if (nb == nvert * nc && !cdg) { /* P1/Q1 (scalar or vector): dofs on the vertices only, vertex coordinates */
      PetscCall(ElementMapVertices(as, ls, gs, ct));
      goto pattern;
    }
  }
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt           nidx, ncx;
    PetscInt          *idx = NULL;
    PetscBool          isDG;
    const PetscScalar *arr;
    PetscScalar       *cx;

    PetscCall(DMPlexGetClosureIndices(dm, ls, gs, cStart + e, PETSC_TRUE, &nidx, &idx, NULL, NULL));
    PetscCheck(nidx == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly: cell %" PetscInt_FMT " has %" PetscInt_FMT " closure dofs, the PetscFE %" PetscInt_FMT " basis functions", cStart + e, nidx, nb);
    for (PetscInt a = 0; a < nb; a++) {
      PetscCheck(idx[a] >= 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " has a constrained dof; essential conditions through the section are not supported (apply them with MatZeroRowsColumns)", cStart + e);
      as->edof[(PetscCount)a * nelem + e] = idx[a];
    }
    PetscCall(DMPlexRestoreClosureIndices(dm, ls, gs, cStart + e, PETSC_TRUE, &nidx, &idx, NULL, NULL));
    if (!simplex || nc > 1) { /* Q1 (and vector fields): the kernel's geometry uses the basis itself, so node a must be closure vertex a (no closure permutation); a vector field's vertex a holds dofs a*nc .. a*nc+nc-1 */
      PetscInt *cl = NULL, ncl, a = 0, vStart, vEnd;
      PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
      PetscCall(DMPlexGetTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
      for (PetscInt i = 0; i < ncl; i++) {
        PetscInt off;
        if (cl[2 * i] < vStart || cl[2 * i] >= vEnd) continue;
        PetscCall(PetscSectionGetOffset(gs, cl[2 * i], &off));
        PetscCheck(a * nc < nb && off == as->edof[(PetscCount)a * nc * nelem + e], PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT ": the field's closure order differs from the vertex order (a closure permutation on the section?); not supported for %s", cStart + e, DMPolytopeTypes[ct]);
        a++;
      }
      PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
    }
    PetscCall(DMPlexGetCellCoordinates(dm, cStart + e, &isDG, &ncx, &arr, &cx));
    PetscCheck(ncx == nvert * dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, expected %" PetscInt_FMT " (vertex coordinates; higher-order geometry is not supported)", cStart + e, ncx, nvert * dim);
    for (PetscInt a = 0; a < nvert; a++)
      for (PetscInt d = 0; d < dim; d++) as->xe[(PetscCount)(a * dim + d) * nelem + e] = PetscRealPart(cx[a * dim + d]);
    PetscCall(DMPlexRestoreCellCoordinates(dm, cStart + e, &isDG, &ncx, &arr, &cx));
  }
pattern:
  PetscCall(PetscLogEventEnd(DMASSEMBLY_ElementMap, as, 0, 0, 0));
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Pattern, as, 0, 0, 0));
  {
    PetscBool blocked;
    if (DMAsmSetUpOnDevice(as)) { /* as DMAsmBuildMesh does for P1: the element map stays on the device */
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(DMAsmCUDAMalloc((void **)&as->dedof, sizeof(PetscInt) * nb * nelem));
      PetscCall(DMAsmCUDAUpload(as->dedof, as->edof, sizeof(PetscInt) * nb * nelem));
#endif
    }
    PetscCall(DMAsmBuildBlockPattern(as, &blocked)); /* a vector field: the pattern from its vertices */
    if (!blocked && DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
      PetscCall(DMAsmCUDABuildPattern(nb, nelem, as->ndof, as->dedof, &as->pi, &as->pj, &as->nnz, &as->e2nz)); /* sorted on the device */
#endif
    } else if (!blocked) PetscCall(DMAsmBuildPattern(as, as->ndof, NULL, NULL, 0));
  }
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Pattern, as, 0, 0, 0));
  PetscCall(PetscInfo(as, "Element map from the closure: %" PetscInt_FMT " %s, %" PetscInt_FMT " nodes per element, %" PetscInt_FMT " vertices\n", nelem, as->ename, nb, nvert));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* the built-in Lagrange kernels                                                                               */

void DMAsmHostHOElement(const DMAsmHOCtx *c, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  const PetscReal *D = c->hasD ? c->D : NULL;
  if (c->tensor)
    for (PetscInt e = 0; e < nelem; e++) DMAsmHOTensorElement((int)c->dim, (int)c->nen, (int)c->nq, e, nelem, c->alpha, c->beta, c->source, D, c->ref, xe, ue, ke, fe);
  else
    for (PetscInt e = 0; e < nelem; e++) DMAsmHOSimplexElement((int)c->dim, (int)c->nen, e, nelem, c->alpha, c->beta, c->source, D, c->ref, xe, ue, ke, fe);
}

/* fused element + scatter (or store, the colour tail) over elems (NULL: all) */
static void HostHOFused(const DMAsmHOCtx *c, PetscInt ne, const PetscInt *elems, PetscInt nelem, const PetscReal *xe, const PetscScalar *u, const PetscInt *edof, PetscBool jac, const PetscInt *e2t, PetscScalar *dst, PetscScalar *store)
{
  const PetscReal *D = c->hasD ? c->D : NULL;
  for (PetscInt i = 0; i < ne; i++) {
    const PetscInt e = elems ? elems[i] : i;
    if (c->tensor) DMAsmHOTensorFused((int)c->dim, (int)c->nen, (int)c->nq, e, nelem, c->alpha, c->beta, c->source, D, c->ref, xe, u, edof, e2t, (int)jac, 0, dst, store);
    else DMAsmHOSimplexFused((int)c->dim, (int)c->nen, e, nelem, c->alpha, c->beta, c->source, D, c->ref, xe, u, edof, e2t, (int)jac, 0, dst, store);
  }
}

static PetscLogDouble HOFlops(const DMAsmHOCtx *c, PetscBool jac)
{
  const PetscLogDouble nn = (PetscLogDouble)c->nen * c->nen;
  if (c->tensor) return c->nq * (2.0 * c->nen * c->dim * c->dim * 2 + nn * (c->dim + 3)) + (jac ? 0 : 2 * nn);
  return 60.0 + (nn / 2) * 2 * (c->dim * (c->dim + 1) / 2 + 1) + (jac ? 0 : 2 * nn);
}

static PetscErrorCode HOCtxDestroy(void **ctx)
{
  DMAsmHOCtx *c = (DMAsmHOCtx *)*ctx;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(c->ref));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&c->dref));
#endif
  PetscCall(PetscFree(c));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(ELLWARP_HAVE_CUDA)
/* the reference data on the device, once */
PetscErrorCode DMAsmHOCtxDevice(DMAsmHOCtx *c)
{
  PetscFunctionBegin;
  if (!c->dref) {
    PetscCall(DMAsmCUDAMalloc((void **)&c->dref, sizeof(PetscReal) * c->nref));
    PetscCall(DMAsmCUDAUpload(c->dref, c->ref, sizeof(PetscReal) * c->nref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode HORun(PetscMemType mtype, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, DMAsmHOCtx *c)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype)) {
    DMAsmHostHOElement(c, nelem, xe, ue, ke, fe);
    PetscCall(PetscLogFlops(HOFlops(c, (PetscBool)(ke != NULL)) * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmHOCtxDevice(c));
    PetscCall(DMAsmCUDAHOElement(c, nelem, xe, ue, ke, fe));
    PetscCall(PetscLogGpuFlops(HOFlops(c, (PetscBool)(ke != NULL)) * nelem));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "built without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* atomic (cd NULL) and color (cd its colouring) with the Lagrange kernels (called by the fused path of dmasmcompute.c): each thread computes its
   element and adds it to its targets (atomicAdd, or plain adds within a colour); color first reduces its tail of
   small colours through their packed plan, as the P1 fused path does */
PetscErrorCode DMAsmHOFused(DMAssembly as, const DMAssembly_Color *cd, const DMAsmPlan *P, PetscBool jac, const PetscScalar *u, PetscScalar *dst)
{
  DMAsmHOCtx      *c    = as->hobuiltin;
  const PetscBool  col  = (PetscBool)(cd != NULL);
  const DMAsmPlan *tail = col ? (jac ? &cd->jtail : &cd->rtail) : NULL;
  PetscScalar     *buf  = jac ? as->ke : as->fe;

  PetscFunctionBegin;
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    if (col && cd->ntail) {
      HostHOFused(c, cd->ntail, cd->tailelem, as->nelem, as->xe, u, as->edof, jac, NULL, NULL, buf);
      DMAsmHostReduce(tail, buf, dst);
    } else PetscCall(PetscArrayzero(dst, P->ntarget));
    if (col) {
      for (PetscInt k = 0; k < cd->ncolors; k++)
        if (!cd->ntail || cd->colptr[k + 1] - cd->colptr[k] >= cd->colortail) HostHOFused(c, cd->colptr[k + 1] - cd->colptr[k], cd->colelem + cd->colptr[k], as->nelem, as->xe, u, as->edof, jac, P->e2t, dst, NULL);
    } else HostHOFused(c, as->nelem, NULL, as->nelem, as->xe, u, as->edof, jac, P->e2t, dst, NULL);
    PetscCall(PetscLogFlops(HOFlops(c, jac) * as->nelem + (PetscLogDouble)P->nsrc));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmHOCtxDevice(c));
    if (col && cd->ntail) {
      PetscCall(DMAsmCUDAHOFused(c, cd->ntail, cd->dtailelem, as->nelem, as->dxe, u, as->dedof, jac, NULL, PETSC_FALSE, NULL, buf));
      PetscCall(DMAsmCUDAReduce(tail, buf, dst));
    } else PetscCall(DMAsmCUDAZero(dst, P->ntarget));
    if (col) {
      for (PetscInt k = 0; k < cd->ncolors; k++)
        if (!cd->ntail || cd->colptr[k + 1] - cd->colptr[k] >= cd->colortail) PetscCall(DMAsmCUDAHOFused(c, cd->colptr[k + 1] - cd->colptr[k], cd->dcolelem + cd->colptr[k], as->nelem, as->dxe, u, as->dedof, jac, P->de2t, PETSC_FALSE, dst, NULL));
    } else PetscCall(DMAsmCUDAHOFused(c, as->nelem, NULL, as->nelem, as->dxe, u, as->dedof, jac, P->de2t, PETSC_TRUE, dst, NULL));
    PetscCall(PetscLogGpuFlops(HOFlops(c, jac) * as->nelem + (PetscLogDouble)P->nsrc));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HOResidual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  (void)e0; /* no per-element data */
  (void)ae;
  PetscCall(HORun(mtype, nelem, xe, ue, NULL, fe, (DMAsmHOCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HOJacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  (void)e0;
  (void)ae;
  (void)ue;
  PetscCall(HORun(mtype, nelem, xe, NULL, ke, NULL, (DMAsmHOCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyLagrangeKernels - the built-in element kernels for any scalar Lagrange `PetscFE` the assembler supports:
  P1..P5 (any order) triangles and tetrahedra (affine), Q1 quadrilaterals and hexahedra:
  ke = alpha * int grad(phi_a) . D grad(phi_b) + beta * int phi_a phi_b, fe = ke ue - source * int phi_a

  Logically Collective

  Input Parameters:
+ as     - the assembler (its DM's field gives the element)
. alpha  - diffusion coefficient
. beta   - mass coefficient
. source - constant volume source
- D      - constant symmetric conductivity, dim x dim row-major, or NULL (identity); copied

  Output Parameter:
. k - the kernels, to pass to `DMAssemblySetElementKernels()`; their context belongs to `as`

  Notes:
  Simplices: the reference stiffness/mass matrices are integrated once on the host (PetscFE tabulation at a
  Stroud conical rule exact for degree 2p+1) and the element matrix is their combination with the element's
  J^-1 D J^-T |det J| (exact on affine elements).  Q1 cells: Gauss quadrature with p+1 points per direction at
  every element (PETSc's default for that element).  Host and device run the same inline code
  (include/petscellwarp/private/dmasmho.h).  The element is computed in the element buffers: globalnz, host, atomic and
  color run it (atomic and color fuse it into their scatter unless -dm_assembly_fuse 0: no element data in
  memory); sharednz falls back visibly to globalnz; localrow errors (both compute the P1 element inside their kernels).  Calls `DMAssemblySetJacobianUsesState(as, PETSC_FALSE)`.

  Level: beginner

.seealso: `DMAssemblyP1DiffusionMassKernels()`
@*/
PetscErrorCode DMAssemblyLagrangeKernels(DMAssembly as, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal D[], DMAssemblyElementKernels *k)
{
  DMAsmHOCtx     *c;
  PetscFE         fe;
  DMPolytopeType  ct;
  PetscInt        dim, nb, deg, npts, nqc, nqd;
  PetscQuadrature q;
  const PetscReal *pts, *wts;
  PetscTabulation T;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(k, 6);
  PetscCall(DMGetDimension(as->dm, &dim));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "Lagrange kernels: dimension 2 or 3");
  PetscCall(GetFE(as->dm, &fe));
  PetscCall(GetCellType(as->dm, &ct));
  PetscCheck(ct != DM_POLYTOPE_TRI_PRISM, PETSC_COMM_SELF, PETSC_ERR_SUP, "Lagrange kernels: not for prisms (P1 prisms: DMAssemblyIntegrationKernels())");
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(GetDegree(fe, &deg));
  {
    PetscInt nc;
    PetscCall(PetscFEGetNumComponents(fe, &nc));
    PetscCheck(nc == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "Lagrange kernels: scalar fields only (the field has %" PetscInt_FMT " components; for elasticity use DMAssemblyElasticityKernels())", nc);
  }
  PetscCall(PetscNew(&c));
  c->dim    = dim;
  c->nen    = nb;
  c->nvert  = DMPolytopeTypeGetNumVertices(ct);
  c->degree = deg;
  c->tensor = (PetscBool)(ct == DM_POLYTOPE_QUADRILATERAL || ct == DM_POLYTOPE_HEXAHEDRON);
  c->alpha  = alpha;
  c->beta   = beta;
  c->source = source;
  if (c->tensor) PetscCheck(nb == c->nvert && nb <= DMASM_HO_TENSOR_MAXNEN, PETSC_COMM_SELF, PETSC_ERR_SUP, "Lagrange kernels on %s: Q1 only (got %" PetscInt_FMT " basis functions)", DMPolytopeTypes[ct], nb);
  if (D) {
    c->hasD = PETSC_TRUE;
    for (PetscInt i = 0; i < dim; i++)
      for (PetscInt j = 0; j < dim; j++) {
        PetscCheck(D[i * dim + j] == D[j * dim + i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Lagrange kernels: D must be exactly symmetric (D[%" PetscInt_FMT "][%" PetscInt_FMT "] != D[%" PetscInt_FMT "][%" PetscInt_FMT "])", i, j, j, i);
        c->D[i * dim + j] = D[i * dim + j];
      }
  }
  /* quadrature on the reference cell [-1,1]^d */
  if (c->tensor) PetscCall(PetscDTGaussTensorQuadrature(dim, 1, deg + 1, -1.0, 1.0, &q));
  else PetscCall(PetscDTStroudConicalQuadrature(dim, 1, deg + 1, -1.0, 1.0, &q));
  PetscCall(PetscQuadratureGetData(q, &nqd, &nqc, &npts, &pts, &wts));
  if (!c->tensor) {
    /* The element kernel maps the canonical reference simplex (vertex a+1 of the closure at xi = -1 + 2 e_a) with
       J = (x_{a+1} - x_0) / 2.  PETSc's reference cell assigns its closure vertices to the axes differently (the
       tetrahedron: vertex 2 on the first axis, 1 on the second), so the quadrature points are mapped into PETSc's
       reference cell, xi = V_0 + A (xi' + 1), A's column a = (V_{a+1} - V_0)/2, the basis is tabulated there and
       its gradients pulled back, grad' = A^T grad; the canonical reference data then follow. */
    DM                 rdm;
    PetscBool          isDG;
    PetscInt           ncx;
    const PetscScalar *arr;
    PetscScalar       *cx;
    PetscReal         *mp;
    PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, ct, &rdm));
    PetscCall(DMPlexGetCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
    PetscCheck(ncx == (dim + 1) * dim, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference simplex: %" PetscInt_FMT " coordinates", ncx);
    for (PetscInt i = 0; i < dim; i++)
      for (PetscInt j = 0; j < dim; j++) c->A[i * dim + j] = (PetscRealPart(cx[(j + 1) * dim + i]) - PetscRealPart(cx[i])) / 2;
    PetscCall(PetscMalloc1(npts * dim, &mp));
    for (PetscInt p = 0; p < npts; p++)
      for (PetscInt i = 0; i < dim; i++) {
        mp[p * dim + i] = PetscRealPart(cx[i]);
        for (PetscInt j = 0; j < dim; j++) mp[p * dim + i] += c->A[i * dim + j] * (pts[p * dim + j] + 1);
      }
    PetscCall(DMPlexRestoreCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
    PetscCall(DMDestroy(&rdm));
    PetscCall(PetscFECreateTabulation(fe, 1, npts, mp, 1, &T));
    PetscCall(PetscFree(mp));
    for (PetscInt p = 0; p < npts; p++) /* pull the gradients back to the canonical cell (|det A| = 1: the same cell) */
      for (PetscInt a = 0; a < nb; a++) {
        PetscReal *g = T->T[1] + (p * nb + a) * dim, gp[3];
        for (PetscInt j = 0; j < dim; j++) {
          gp[j] = 0;
          for (PetscInt i = 0; i < dim; i++) gp[j] += c->A[i * dim + j] * g[i];
        }
        for (PetscInt j = 0; j < dim; j++) g[j] = gp[j];
      }
  } else PetscCall(PetscFECreateTabulation(fe, 1, npts, pts, 1, &T));
  if (c->tensor) {
    c->nq   = npts;
    c->nref = npts * (1 + nb + nb * dim);
    PetscCall(PetscMalloc1(c->nref, &c->ref));
    for (PetscInt p = 0; p < npts; p++) {
      c->ref[p] = wts[p];
      for (PetscInt a = 0; a < nb; a++) {
        c->ref[npts + p * nb + a] = T->T[0][p * nb + a];
        for (PetscInt i = 0; i < dim; i++) c->ref[npts + npts * nb + (p * nb + a) * dim + i] = T->T[1][(p * nb + a) * dim + i];
      }
    }
  } else {
    const PetscInt ns = dim * (dim + 1) / 2, nn = nb * nb;
    PetscReal     *Ks, *M, *B;
    c->nq   = npts;
    c->nref = (ns + 1) * nn + nb;
    PetscCall(PetscCalloc1(c->nref, &c->ref));
    Ks = c->ref;
    M  = Ks + ns * nn;
    B  = M + nn;
    for (PetscInt p = 0; p < npts; p++) {
      const PetscReal *phi = T->T[0] + p * nb, *dphi = T->T[1] + p * nb * dim;
      for (PetscInt a = 0; a < nb; a++) {
        B[a] += wts[p] * phi[a];
        for (PetscInt b = 0; b < nb; b++) {
          PetscInt s = 0;
          M[a * nb + b] += wts[p] * phi[a] * phi[b];
          for (PetscInt i = 0; i < dim; i++)
            for (PetscInt j = i; j < dim; j++, s++) Ks[s * nn + a * nb + b] += wts[p] * (dphi[a * dim + i] * dphi[b * dim + j] + (i < j ? dphi[a * dim + j] * dphi[b * dim + i] : 0));
        }
      }
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscQuadratureDestroy(&q));
  (void)nqd;
  (void)nqc;
  if (as->ownctxdestroy) PetscCall((*as->ownctxdestroy)(&as->ownctx));
  as->ownctx        = c;
  as->ownctxdestroy = HOCtxDestroy;
  as->builtin       = NULL; /* not the fused P1 element */
  as->hobuiltin     = c;
  PetscCall(DMAssemblySetJacobianUsesState(as, PETSC_FALSE)); /* ke does not depend on u */
  PetscCall(DMAssemblySetNodalState(as, PETSC_FALSE));      /* HOResidual reads the gathered ue */
  k->nen      = nb;
  k->residual = HOResidual;
  k->jacobian = HOJacobian;
  k->ctx      = c;
  PetscCall(PetscInfo(as, "Lagrange kernels: %s degree %" PetscInt_FMT ", %" PetscInt_FMT " nodes, %s, %" PetscInt_FMT " quadrature points\n", DMPolytopeTypes[ct], deg, nb, c->tensor ? "quadrature at every element" : "reference matrices (affine)", npts));
  PetscFunctionReturn(PETSC_SUCCESS);
}
