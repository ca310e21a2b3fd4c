/* Host set-up of the assembler, built once per mesh: element -> dof map and coordinates, the
   element-connectivity pattern, the element-entry -> nonzero map, the element colouring; and, once per
   target array, the packed reduction plan (Cecka, Lew, Darve, section 4.2.3, packed per thread block with
   LPT as in their Figure 6). */
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscellwarp/private/ellwarpthreads.h>


/* The type of cell c without DMPlex's cell-type label where the mesh is uninterpolated: there a cell on dim+1 vertices
   is a simplex, and computing the label (DMPlexComputeCellTypes, one hashed label value per point) took 1.3-2.2 s of
   the set-up for the 7.1 M points of the 1 M-vertex LV.  Other cells of an uninterpolated mesh and interpolated meshes
   (whose interpolation computed the label) ask DMPlex. */
PetscErrorCode DMAsmCellType(DM dm, PetscInt depth, PetscInt dim, PetscInt c, DMPolytopeType *ct)
{
  PetscInt cs;

  PetscFunctionBegin;
  if (depth == 1) {
    PetscCall(DMPlexGetConeSize(dm, c, &cs));
    if (cs == dim + 1) {
      *ct = dim == 3 ? DM_POLYTOPE_TETRAHEDRON : dim == 2 ? DM_POLYTOPE_TRIANGLE : DM_POLYTOPE_SEGMENT;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(DMPlexGetCellType(dm, c, ct));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element map of an uninterpolated mesh whose cells' cones lie back to back in the cones array (cell cStart + e
   at cones[nen e]), on the host's cores: one contiguous range of elements per thread (PetscEllwarpThreadsRun).  On
   one core this loop took 0.7 s at 6 M tets on an H100 host (most of it writing the 677 MB of the map and the
   element coordinates into fresh pages, which the threads fault in in parallel); each element is written by one
   thread, so the map does not depend on the thread count.  No PETSc call in the worker (PETSc is not thread-safe):
   the per-vertex offsets are looked up before. */
typedef struct {
  const PetscInt    *cones, *voff, *vcoff;
  const PetscScalar *coords;
  PetscInt           nelem, nen, dim, vStart, vEnd, offset;
  PetscInt          *edof;
  PetscReal         *xe;
} P1MapCtx;

static int P1MapWork(void *ctx, PetscInt range, PetscCount e0, PetscCount e1)
{
  const P1MapCtx *c = (const P1MapCtx *)ctx;
  const PetscInt  nelem = c->nelem, nen = c->nen, dim = c->dim;

  (void)range;
  for (PetscInt e = (PetscInt)e0; e < (PetscInt)e1; e++) {
    const PetscInt *cone = c->cones + (PetscCount)nen * e;
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt p = cone[a];
      if (p < c->vStart || p >= c->vEnd) return PETSC_ERR_PLIB; /* a cone point that is not a vertex: not a P1 cell */
      c->edof[(PetscCount)a * nelem + e] = c->voff[p - c->vStart] - c->offset;
      for (PetscInt d = 0; d < dim; d++) c->xe[(PetscCount)(a * dim + d) * nelem + e] = PetscRealPart(c->coords[c->vcoff[p - c->vStart] + d]);
    }
  }
  return 0;
}

/* The P1 simplex element map: each cell's closure vertices in closure order (the order DMPlexMatSetClosure
   uses), their dof offsets in `dofs` minus `offset` into edof, their coordinates into xe.  One process: the
   global section, each vertex checked for one unconstrained dof (check); several: the local (ghosted) section,
   whose vertices the caller has checked.  Needs as->nelem, nen, dim, cStart. */
PetscErrorCode DMAsmP1ElementMap(DMAssembly as, PetscSection dofs, PetscBool check, PetscInt offset)
{
  DM                 dm = as->dm;
  const PetscInt     nelem = as->nelem, nen = as->nen, dim = as->dim, cStart = as->cStart;
  PetscSection       cs;
  Vec                cvec;
  const PetscScalar *coords;
  PetscInt           vStart, vEnd, depth, *voff, *vcoff;
  const PetscInt    *allcones = NULL, *packed = NULL;
  PetscSection       conesec  = NULL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cvec));
  PetscCall(VecGetArrayRead(cvec, &coords));
  /* each vertex's dof and coordinate offsets (and its check) once, not once per element around it: the section
     calls per element entry were most of the 0.9 s this map took at 6 M tets */
  PetscCall(PetscMalloc2(vEnd - vStart, &voff, vEnd - vStart, &vcoff));
  for (PetscInt p = vStart; p < vEnd; p++) {
    if (check) {
      PetscInt gdof, gcdof;
      PetscCall(PetscSectionGetDof(dofs, p, &gdof));
      PetscCall(PetscSectionGetConstraintDof(dofs, p, &gcdof));
      PetscCheck(gdof == 1 && gcdof == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: vertex %" PetscInt_FMT " has %" PetscInt_FMT " global dofs, %" PetscInt_FMT " constrained; essential conditions through the section are not supported (apply them with MatZeroRowsColumns)", p, gdof, gcdof);
    }
    PetscCall(PetscSectionGetOffset(dofs, p, &voff[p - vStart]));
    PetscCall(PetscSectionGetOffset(cs, p, &vcoff[p - vStart]));
  }
  if (depth > 1) { /* every cell a simplex (uninterpolated: the cone-size check below): checked per cell type stratum
                     (one query) when the cells form one, else per cell */
    const DMPolytopeType ct = dim == 3 ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_TRIANGLE;
    PetscInt             s0, s1;
    PetscCall(DMPlexGetCellTypeStratum(dm, ct, &s0, &s1));
    if (!(s0 <= cStart && cStart + nelem <= s1))
      for (PetscInt e = 0; e < nelem; e++) {
        DMPolytopeType c;
        PetscCall(DMPlexGetCellType(dm, cStart + e, &c));
        PetscCheck(c == ct, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: cell %" PetscInt_FMT " is a %s; simplices only", cStart + e, DMPolytopeTypes[c]);
      }
  }
  if (depth == 1) { /* uninterpolated: the cones array directly */
    PetscSection csec;
    PetscInt    *cones;
    IS           cperm;
    PetscCall(DMPlexGetConeSection(dm, &csec));
    PetscCall(DMPlexGetCones(dm, &cones));
    allcones = cones;
    conesec  = csec;
    /* the cones of the cells back to back, nen each (DMPlexBuildFromCellList's layout): the cone section stores the
       points in point order (no permutation), so cells cStart .. cStart+nelem-1 are consecutive there; if no cone is
       longer than nen and together they span nen * nelem entries, each has nen */
    PetscCall(PetscSectionGetPermutation(csec, &cperm));
    if (!cperm && nelem > 0) {
      PetscInt maxc, off0, offl, dofl;
      PetscCall(PetscSectionGetMaxDof(csec, &maxc));
      PetscCall(PetscSectionGetOffset(csec, cStart, &off0));
      PetscCall(PetscSectionGetOffset(csec, cStart + nelem - 1, &offl));
      PetscCall(PetscSectionGetDof(csec, cStart + nelem - 1, &dofl));
      if (maxc <= nen && (PetscCount)offl + dofl - off0 == (PetscCount)nen * nelem) packed = cones + off0;
    }
  }
  PetscCall(PetscMalloc2((size_t)nen * nelem, &as->edof, (size_t)nen * dim * nelem, &as->xe));
  if (packed) {
    P1MapCtx ctx = {packed, voff, vcoff, coords, nelem, nen, dim, vStart, vEnd, offset, as->edof, as->xe};
    PetscInt nth;
    PetscCall(PetscEllwarpThreadsGetCount(0, nelem, 16384, &nth));
    PetscCall(PetscInfo(as, "element map: %" PetscInt_FMT " cells on %" PetscInt_FMT " host threads\n", nelem, nth));
    PetscCall(PetscEllwarpThreadsRun(nth, nelem, P1MapWork, &ctx));
  } else
    for (PetscInt e = 0; e < nelem; e++) {
      PetscInt        ncl, *cl = NULL, a = 0;
      const PetscInt *cone = NULL;

      /* an uninterpolated mesh (cells on vertices): the closure is the cell and its cone, in cone order, so the
         cone is read directly (DMPlexGetTransitiveClosure's traversal was 2.5 s of the set-up at 6 M tets) */
      if (allcones) {
        PetscInt off;
        PetscCall(PetscSectionGetDof(conesec, cStart + e, &ncl));
        PetscCall(PetscSectionGetOffset(conesec, cStart + e, &off));
        cone = allcones + off;
      } else PetscCall(DMPlexGetTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
      for (PetscInt i = 0; i < ncl; i++) {
        const PetscInt p = cone ? cone[i] : cl[2 * i];

        if (p < vStart || p >= vEnd) continue;
        PetscCheck(a < nen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly: cell %" PetscInt_FMT " has more than %" PetscInt_FMT " vertices", cStart + e, nen);
        as->edof[a * nelem + e] = voff[p - vStart] - offset;
        for (PetscInt d = 0; d < dim; d++) as->xe[(a * dim + d) * nelem + e] = PetscRealPart(coords[vcoff[p - vStart] + d]);
        a++;
      }
      if (!cone) PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
      PetscCheck(a == nen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly: cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices, expected %" PetscInt_FMT, cStart + e, a, nen);
    }
  PetscCall(PetscFree2(voff, vcoff));
  PetscCall(VecRestoreArrayRead(cvec, &coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern of the element map edof ([nen][nelem]): row i holds the dofs of every element touching i (what
   DMCreateMatrix() preallocates for a FE field: closure(star) adjacency contains it); node -> elements first, then
   each row's columns sorted and made unique.  Then each element entry (a,b) -> its nonzero (e2nz).  Rows:
   rowmap[local dof] (< 0: no row here, a ghost; the entries of such a row get e2nz = -1), columns: colmap[local
   dof]; NULL: the identity.  A row in no element keeps its diagonal, column rstart + i, as DMCreateMatrix() does. */
static PetscErrorCode PatternFromElements(PetscInt nen, PetscInt nelem, const PetscInt *edof, PetscInt n, const PetscInt *rowmap, const PetscInt *colmap, PetscInt rstart, PetscInt **pi_, PetscInt **pj_, PetscCount *nnz, PetscInt **e2nz_)
{
  const PetscCount nq = (PetscCount)nen * nelem;
  PetscInt        *nptr, *nel, *cnt, *pi, *pj, *work, *e2nz;
  PetscCount       tot = 0;

  PetscFunctionBegin;
  PetscCheck((PetscCount)nen * nen * nelem < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: %" PetscInt_FMT " elements of %" PetscInt_FMT " nodes: element entries exceed the PetscInt range; configure PETSc with 64-bit indices", nelem, nen);
  PetscCall(PetscCalloc1(n + 1, &nptr));
  for (PetscCount q = 0; q < nq; q++) {
    const PetscInt r = rowmap ? rowmap[edof[q]] : edof[q];
    if (r >= 0) nptr[r + 1]++;
  }
  for (PetscInt i = 0; i < n; i++) nptr[i + 1] += nptr[i];
  PetscCall(PetscMalloc2(nptr[n], &nel, n + 1, &cnt));
  PetscCall(PetscArraycpy(cnt, nptr, n + 1));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt d = edof[(PetscCount)a * nelem + e], r = rowmap ? rowmap[d] : d;
      if (r >= 0) nel[cnt[r]++] = e;
    }
  PetscCall(PetscMalloc1(n + 1, &pi));
  PetscCall(PetscMalloc1((size_t)nen * nptr[n] + n + 1, &work));
  pi[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt m = 0;
    for (PetscInt k = nptr[i]; k < nptr[i + 1]; k++)
      for (PetscInt b = 0; b < nen; b++) {
        const PetscInt d = edof[(PetscCount)b * nelem + nel[k]];
        work[tot + m++]  = colmap ? colmap[d] : d;
      }
    if (!m) work[tot + m++] = rstart + i;
    PetscCall(PetscSortRemoveDupsInt(&m, work + tot));
    tot += m;
    PetscCheck(tot < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the pattern exceeds the PetscInt range; configure PETSc with 64-bit indices");
    pi[i + 1] = (PetscInt)tot;
  }
  PetscCall(PetscMalloc1(tot, &pj));
  PetscCall(PetscArraycpy(pj, work, tot));
  PetscCall(PetscFree(work));
  PetscCall(PetscFree(nptr));
  PetscCall(PetscFree2(nel, cnt));
  PetscCall(PetscMalloc1((size_t)nen * nen * nelem, &e2nz));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt d = edof[(PetscCount)a * nelem + e], r = rowmap ? rowmap[d] : d;
      for (PetscInt b = 0; b < nen; b++) {
        PetscInt loc = -1;
        if (r >= 0) {
          const PetscInt db = edof[(PetscCount)b * nelem + e];
          PetscCall(PetscFindInt(colmap ? colmap[db] : db, pi[r + 1] - pi[r], pj + pi[r], &loc));
          PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern misses an element entry");
          loc += pi[r];
        }
        e2nz[(PetscCount)(a * nen + b) * nelem + e] = loc;
      }
    }
  *pi_   = pi;
  *pj_   = pj;
  *nnz   = tot;
  *e2nz_ = e2nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern of the assembler's element map (PatternFromElements): sets as->pi, pj, nnz and e2nz */
PetscErrorCode DMAsmBuildPattern(DMAssembly as, PetscInt n, const PetscInt *rowmap, const PetscInt *colmap, PetscInt rstart)
{
  PetscFunctionBegin;
  PetscCall(PatternFromElements(as->nen, as->nelem, as->edof, n, rowmap, colmap, rstart, &as->pi, &as->pj, &as->nnz, &as->e2nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A vector field of bs components whose vertex v holds the dofs bs*v .. bs*v+bs-1 (DMPlex's section with the field on
   the vertices, one process): the pattern of the vertices (PatternFromElements or DMAsmCUDABuildPattern on the vertex
   map, nv^2 entries an element), expanded to the dofs: row bs*v+i holds columns bs*u .. bs*u+bs-1 for every vertex u
   of v's row, the same pattern as the element entries' own.  The set-up so needs 1/bs^2 of the scalar builder's work
   and memory (on the 21 M-dof cantilever, 0.44 G vertex pairs instead of 3.95 G element entries, which exceed the
   32-bit PetscInt and, at about 40 B each in the device sort, any device), and the element-entry map is built only
   where a method reads it (DMAsmEntryMap).  The one difference: a vertex in no element keeps a bs x bs diagonal block
   (the scalar builder: the diagonal entry).  *ok = PETSC_FALSE where the dofs are not vertex-major: nothing set, the
   caller builds the scalar pattern. */
PetscErrorCode DMAsmBuildBlockPattern(DMAssembly as, PetscBool *ok)
{
  const PetscInt bs = as->ncomp, nv = as->nvert, nelem = as->nelem;
  PetscInt       nb, *vedof, *bpi, *bpj, *be2nz, *pi, *pj;
  PetscCount     bnnz, nnz;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (bs < 2 || as->nen != bs * nv || as->ndof % bs || as->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  nb = as->ndof / bs;
  PetscCall(PetscMalloc1((size_t)nv * nelem, &vedof));
  for (PetscInt a = 0; a < nv; a++)
    for (PetscInt e = 0; e < nelem; e++) {
      const PetscInt d = as->edof[(PetscCount)a * bs * nelem + e];
      PetscBool      vm = (PetscBool)(d % bs == 0);
      for (PetscInt c = 1; c < bs && vm; c++) vm = (PetscBool)(as->edof[(PetscCount)(a * bs + c) * nelem + e] == d + c);
      if (!vm) {
        PetscCall(PetscFree(vedof));
        PetscCall(PetscInfo(as, "Pattern: element %" PetscInt_FMT " vertex %" PetscInt_FMT " has dofs not bs*v..bs*v+%" PetscInt_FMT ": the pattern from the element entries\n", e, a, bs - 1));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      vedof[(PetscCount)a * nelem + e] = d / bs;
    }
  if (DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
    PetscInt *dvedof;
    PetscCall(DMAsmCUDAMalloc((void **)&dvedof, sizeof(PetscInt) * nv * nelem));
    PetscCall(DMAsmCUDAUpload(dvedof, vedof, sizeof(PetscInt) * nv * nelem));
    PetscCall(DMAsmCUDABuildPattern(nv, nelem, nb, dvedof, &bpi, &bpj, &bnnz, &be2nz));
    PetscCall(DMAsmCUDAFree((void **)&dvedof));
#endif
  } else PetscCall(PatternFromElements(nv, nelem, vedof, nb, NULL, NULL, 0, &bpi, &bpj, &bnnz, &be2nz));
  PetscCall(PetscFree(vedof));
  nnz = (PetscCount)bs * bs * bnnz;
  if (!(nnz < PETSC_INT_MAX)) {
    PetscCall(PetscFree(bpi));
    PetscCall(PetscFree(bpj));
    PetscCall(PetscFree(be2nz));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the pattern has %" PetscCount_FMT " nonzeros, over the PetscInt range; configure PETSc with 64-bit indices", nnz);
  }
  PetscCall(PetscMalloc1(as->ndof + 1, &pi));
  PetscCall(PetscMalloc1(nnz, &pj));
  for (PetscInt v = 0; v < nb; v++) {
    const PetscInt len = bpi[v + 1] - bpi[v];
    for (PetscInt i = 0; i < bs; i++) {
      const PetscInt r0 = bs * bs * bpi[v] + i * bs * len;
      pi[bs * v + i]    = r0;
      for (PetscInt k = 0; k < len; k++)
        for (PetscInt j = 0; j < bs; j++) pj[r0 + bs * k + j] = bs * bpj[bpi[v] + k] + j;
    }
  }
  pi[as->ndof] = (PetscInt)nnz;
  PetscCall(PetscFree(bpj));
  as->pi    = pi;
  as->pj    = pj;
  as->nnz   = nnz;
  as->bs    = bs;
  as->bpi   = bpi;
  as->be2nz = be2nz;
  *ok       = PETSC_TRUE;
  PetscCall(PetscInfo(as, "Pattern from the vertices (block size %" PetscInt_FMT "): %" PetscCount_FMT " vertex pairs, %" PetscCount_FMT " nonzeros; the element-entry map at its first use\n", bs, bnnz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element-entry map e2nz ([nen^2][nelem]: the pattern nonzero of entry (a,b) of element e), which the methods whose
   plans go through element entries read (q2t, COO).  Built with the scalar pattern, or here at its first use from the
   vertex pattern: entry (bs*a+i, bs*b+j) of element e lies in row bs*v+i (v: vertex a's) at bs*(position of vertex
   pair (a,b) in v's row) + j, O(1) an entry.  A mesh whose element entries exceed the PetscInt range errors here, in
   the method that needs them: the kiran owner strategies (jacplanrows) never do. */
PetscErrorCode DMAsmEntryMap(DMAssembly as, const PetscInt **e2nz)
{
  PetscFunctionBegin;
  if (!as->e2nz) {
    const PetscInt   bs = as->bs, nv = as->nvert, nen = as->nen, nelem = as->nelem;
    const PetscCount nq = (PetscCount)nen * nen * nelem;
    PetscInt        *m;

    PetscCheck(as->be2nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMAssembly: no pattern (DMAssemblySetUp)");
    PetscCheck(nq < PETSC_INT_MAX, PetscObjectComm((PetscObject)as), PETSC_ERR_SUP, "DMAssembly %s: %" PetscInt_FMT " elements of %" PetscInt_FMT " nodes: the element-entry map this method needs (%" PetscCount_FMT " entries) exceeds the PetscInt range; use a method whose plan reads the target's rows (kiran owner or ownergeo), or configure PETSc with 64-bit indices", ((PetscObject)as)->type_name, nelem, nen, nq);
    PetscCall(PetscMalloc1(nq, &m));
    for (PetscInt a = 0; a < nv; a++)
      for (PetscInt b = 0; b < nv; b++)
        for (PetscInt e = 0; e < nelem; e++) {
          const PetscInt v = as->edof[(PetscCount)a * bs * nelem + e] / bs, len = as->bpi[v + 1] - as->bpi[v];
          const PetscInt k = as->be2nz[(PetscCount)(a * nv + b) * nelem + e], base = bs * bs * as->bpi[v] + bs * (k - as->bpi[v]);
          for (PetscInt i = 0; i < bs; i++)
            for (PetscInt j = 0; j < bs; j++) m[(PetscCount)((a * bs + i) * nen + b * bs + j) * nelem + e] = base + i * bs * len + j;
        }
    as->e2nz = m;
  }
  *e2nz = as->e2nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the checks every DMAssembly set-up makes on its DM: a 2-D or 3-D mesh with one scalar PetscFE field; returns the
   dimension and the FE's components and basis functions (one process and distributed, dmasmmpi.c) */
PetscErrorCode DMAsmCheckScalarFE(DM dm, PetscInt *dim, PetscInt *nc, PetscInt *nb)
{
  PetscObject  obj;
  PetscClassId id;
  PetscInt     nf;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, dim));
  PetscCheck(*dim == 2 || *dim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: meshes of dimension 2 (triangles) or 3 (tetrahedra) only, got %" PetscInt_FMT, *dim);
  PetscCall(DMGetNumFields(dm, &nf));
  PetscCheck(nf == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the DM must have exactly one field (a scalar P1 PetscFE), got %" PetscInt_FMT, nf);
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: the field must be a PetscFE");
  PetscCall(PetscFEGetNumComponents((PetscFE)obj, nc));
  PetscCall(PetscFEGetDimension((PetscFE)obj, nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after it, for the P1 element map: scalar P1 Lagrange on simplices, coordinates of the mesh's dimension */
PetscErrorCode DMAsmCheckP1(DM dm, PetscInt dim, PetscInt nc, PetscInt nb)
{
  PetscInt cdim;

  PetscFunctionBegin;
  PetscCheck(nc == 1 && nb == dim + 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: scalar P1 Lagrange on simplices only (got %" PetscInt_FMT " components, %" PetscInt_FMT " basis functions)", nc, nb);
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(cdim == dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: coordinate dimension %" PetscInt_FMT " differs from the mesh dimension %" PetscInt_FMT, cdim, dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmBuildMesh(DMAssembly as)
{
  DM              dm = as->dm;
  PetscSection    gs;
  PetscMPIInt     size;
  PetscInt        cStart, cEnd, nc, nb, nelem, nen, dim;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (size > 1) { /* a distributed DM: owned rows only (dmasmmpi.c) */
    PetscCall(DMAsmBuildMeshMPI(as));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMAsmCheckScalarFE(dm, &dim, &nc, &nb));
  { /* every discretization but the P1 simplex: the closure-based element map (dmasmho.c) */
    PetscInt       c0, c1;
    DMPolytopeType ct0 = DM_POLYTOPE_UNKNOWN;
    PetscInt       depth;
    PetscCall(DMPlexGetHeightStratum(dm, 0, &c0, &c1));
    PetscCall(DMPlexGetDepth(dm, &depth));
    if (c1 > c0) PetscCall(DMAsmCellType(dm, depth, dim, c0, &ct0));
    as->p1 = (PetscBool)(c1 == c0 || (nb == dim + 1 && (ct0 == DM_POLYTOPE_TRIANGLE || ct0 == DM_POLYTOPE_TETRAHEDRON)));
    if (!as->p1) {
      PetscCall(DMAsmBuildElementMapHO(as));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    as->nvert = dim + 1;
    PetscCall(PetscStrncpy(as->ename, dim == 3 ? "P1 tetrahedra" : "P1 triangles", sizeof(as->ename)));
  }
  PetscCall(DMAsmCheckP1(dm, dim, nc, nb));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(PetscSectionGetConstrainedStorageSize(gs, &as->ndof));
  nen        = dim + 1;
  nelem      = cEnd - cStart;
  as->nelem  = nelem;
  as->nen    = nen;
  as->dim    = dim;
  as->cStart = cStart;
  PetscCheck((PetscCount)nen * nen * nelem < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly: %" PetscInt_FMT " elements: element entries exceed the PetscInt range; configure PETSc with 64-bit indices", nelem);
  PetscCall(PetscLogEventBegin(DMASSEMBLY_ElementMap, as, 0, 0, 0));
  PetscCall(DMAsmP1ElementMap(as, gs, PETSC_TRUE, 0)); /* one process: global dofs start at 0 */
  PetscCall(PetscLogEventEnd(DMASSEMBLY_ElementMap, as, 0, 0, 0));
  PetscCall(PetscLogEventBegin(DMASSEMBLY_Pattern, as, 0, 0, 0));
  if (DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
    /* the element map uploaded once: it stays as the assembler's device copy (the residual plan and the gathers
       use it; DMAsmReorderElements drops it when it permutes the elements) */
    PetscCall(DMAsmCUDAMalloc((void **)&as->dedof, sizeof(PetscInt) * nen * nelem));
    PetscCall(DMAsmCUDAUpload(as->dedof, as->edof, sizeof(PetscInt) * nen * nelem));
    PetscCall(DMAsmCUDABuildPattern(nen, nelem, as->ndof, as->dedof, &as->pi, &as->pj, &as->nnz, &as->e2nz));
#endif
  } else PetscCall(DMAsmBuildPattern(as, as->ndof, NULL, NULL, 0));
  PetscCall(PetscLogEventEnd(DMASSEMBLY_Pattern, as, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With the built-in kernels (whose per-element data, the conductivities, the assembler owns) the elements
   are numbered by their lowest dof, ties by mesh order.  The dofs follow the matrix rows (RCM on the
   benchmark meshes), so elements contributing to neighbouring rows become neighbours in memory: the
   globalnz reduction reads its element data from a few cache lines per block instead of all over the
   element arrays, sharednz's blocks read their elements' inputs as (nearly) contiguous ranges, and the
   atomic scatter's targets of consecutive threads are close.  User kernels keep the mesh order (their own
   per-element data are indexed by it). */
PetscErrorCode DMAsmReorderElements(DMAssembly as)
{
  const PetscInt nelem = as->nelem, nen = as->nen, dim = as->dim, nv = as->nvert; /* xe: vertex coordinates (nv == nen for P1) */
  PetscInt64    *key;
  PetscInt      *edof;
  PetscReal     *xe;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nelem, &key));
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt m = as->edof[e];
    for (PetscInt a = 1; a < nen; a++) m = PetscMin(m, as->edof[(PetscCount)a * nelem + e]);
    key[e] = (PetscInt64)m * nelem + e;
  }
  PetscCall(PetscSortInt64(nelem, key));
  PetscCall(PetscMalloc1(nelem, &as->eperm));
  for (PetscInt e = 0; e < nelem; e++) as->eperm[e] = (PetscInt)(key[e] % nelem);
  PetscCall(PetscFree(key));
  PetscCall(PetscMalloc2((size_t)nen * nelem, &edof, (size_t)nv * dim * nelem, &xe));
  for (PetscInt a = 0; a < nen; a++)
    for (PetscInt e = 0; e < nelem; e++) edof[(PetscCount)a * nelem + e] = as->edof[(PetscCount)a * nelem + as->eperm[e]];
  for (PetscInt q = 0; q < nv * dim; q++)
    for (PetscInt e = 0; e < nelem; e++) xe[(PetscCount)q * nelem + e] = as->xe[(PetscCount)q * nelem + as->eperm[e]];
  PetscCall(PetscFree2(as->edof, as->xe));
  as->edof = edof;
  as->xe   = xe;
#if defined(ELLWARP_HAVE_CUDA)
  if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmCUDAFree((void **)&as->dedof)); /* the old order's: set-up uploads the new one */
#endif
  for (int w = 0; w < 2; w++) { /* the element-entry maps follow: e2nz where built, the vertex pairs' be2nz */
    PetscInt **pm = w ? &as->be2nz : &as->e2nz, *m;
    const PetscInt np = w ? as->nvert * as->nvert : nen * nen;
    if (!*pm) continue;
    PetscCall(PetscMalloc1((size_t)np * nelem, &m));
    for (PetscInt k = 0; k < np; k++)
      for (PetscInt e = 0; e < nelem; e++) m[(PetscCount)k * nelem + e] = (*pm)[(PetscCount)k * nelem + as->eperm[e]];
    PetscCall(PetscFree(*pm));
    *pm = m;
  }
  if (as->builtin) PetscCall(DMAsmP1CtxPermute(as->builtin, as->eperm)); /* the Lagrange kernels have no per-element data */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: elements in order, each takes the smallest colour no element sharing one of its nodes
   has.  Elements of one colour share no node, hence no matrix entry and no residual entry. */
PetscErrorCode DMAsmColor(DMAssembly as, DMAssembly_Color *cd)
{
  const PetscInt nelem = as->nelem, nen = as->nen, n = as->ndof;
  PetscInt      *nptr, *nel, *cnt, *color, *mark, ncolors = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, &nptr));
  for (PetscInt q = 0; q < nen * nelem; q++) nptr[as->edof[q] + 1]++;
  for (PetscInt i = 0; i < n; i++) nptr[i + 1] += nptr[i];
  PetscCall(PetscMalloc2(nptr[n], &nel, n + 1, &cnt));
  PetscCall(PetscArraycpy(cnt, nptr, n + 1));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 0; a < nen; a++) nel[cnt[as->edof[a * nelem + e]]++] = e;
  PetscCall(PetscMalloc1(nelem, &color));
  PetscCall(PetscMalloc1(nelem + 1, &mark)); /* mark[c] == e: colour c is taken by a neighbour of e */
  for (PetscInt c = 0; c <= nelem; c++) mark[c] = -1;
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt c = 0;
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt v = as->edof[a * nelem + e];
      for (PetscInt k = nptr[v]; k < nptr[v + 1]; k++)
        if (nel[k] < e) mark[color[nel[k]]] = e;
    }
    while (mark[c] == e) c++;
    color[e] = c;
    ncolors  = PetscMax(ncolors, c + 1);
  }
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(nptr));
  PetscCall(PetscFree2(nel, cnt));
  cd->ncolors = ncolors;
  PetscCall(PetscCalloc1(ncolors + 1, &cd->colptr));
  PetscCall(PetscMalloc1(nelem, &cd->colelem));
  for (PetscInt e = 0; e < nelem; e++) cd->colptr[color[e] + 1]++;
  for (PetscInt c = 0; c < ncolors; c++) cd->colptr[c + 1] += cd->colptr[c];
  {
    PetscInt *pos;
    PetscCall(PetscMalloc1(ncolors, &pos));
    PetscCall(PetscArraycpy(pos, cd->colptr, ncolors));
    for (PetscInt e = 0; e < nelem; e++) cd->colelem[pos[color[e]]++] = e;
    PetscCall(PetscFree(pos));
  }
  PetscCall(PetscFree(color));
  /* the tail: elements of the small colours, in increasing order */
  PetscCall(PetscFree(cd->tailelem));
  cd->ntail = 0;
  for (PetscInt c = 0; c < ncolors; c++)
    if (cd->colptr[c + 1] - cd->colptr[c] < cd->colortail) cd->ntail += cd->colptr[c + 1] - cd->colptr[c];
  PetscCall(PetscMalloc1(cd->ntail + 1, &cd->tailelem));
  {
    PetscInt n = 0;
    for (PetscInt c = 0; c < ncolors; c++)
      if (cd->colptr[c + 1] - cd->colptr[c] < cd->colortail)
        for (PetscInt i = cd->colptr[c]; i < cd->colptr[c + 1]; i++) cd->tailelem[n++] = cd->colelem[i];
    PetscCall(PetscSortInt(n, cd->tailelem));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* color (its set-up and Jacobian plan): the packed plan of the tail elements' contributions only (q2t as DMAsmBuildPlan's) */
PetscErrorCode DMAsmBuildTailPlan(DMAssembly as, const DMAssembly_Color *cd, PetscInt nper, PetscCount ntarget, const PetscInt *q2t, DMAsmPlan *T)
{
  PetscInt  *q2tt;
  PetscBool *tail;

  PetscFunctionBegin;
  PetscCall(DMAsmPlanDestroy(T));
  if (!cd->ntail) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(as->nelem, &tail));
  for (PetscInt i = 0; i < cd->ntail; i++) tail[cd->tailelem[i]] = PETSC_TRUE;
  PetscCall(PetscMalloc1((size_t)nper * as->nelem, &q2tt));
  for (PetscInt k = 0; k < nper; k++)
    for (PetscInt e = 0; e < as->nelem; e++) q2tt[(PetscCount)k * as->nelem + e] = tail[e] ? q2t[(PetscCount)k * as->nelem + e] : -1;
  PetscCall(DMAsmBuildPlan(as, nper, ntarget, q2tt, T));
  if (as->mtype == PETSC_MEMTYPE_DEVICE) PetscCall(DMAsmPlanUpload(T));
  PetscCall(PetscFree(q2tt));
  PetscCall(PetscFree(tail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* min-heap of (load, thread) for LPT */
static inline PetscBool HeapLess(const PetscCount *load, int a, int b)
{
  return load[a] < load[b] || (load[a] == load[b] && a < b);
}

static void HeapDown(int *h, int n, const PetscCount *load, int i)
{
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i, t;
    if (l < n && HeapLess(load, h[l], h[m])) m = l;
    if (r < n && HeapLess(load, h[r], h[m])) m = r;
    if (m == i) return;
    t    = h[i];
    h[i] = h[m];
    h[m] = t;
    i    = m;
  }
}

/* The packed plan for a target array of length ntarget: source entry q = k*nelem + e (k < nper) adds
   into target q2t[q] (-1: nowhere).  Each target's list is in element order (then k). */
PetscErrorCode DMAsmBuildPlan(DMAssembly as, PetscInt nper, PetscCount ntarget, const PetscInt *q2t, DMAsmPlan *P)
{
  const PetscInt nelem = as->nelem, B = DMASM_BLOCK;
  const PetscCount nsrc = (PetscCount)nper * nelem;
  PetscInt         C, nzpt = as->nzpt;
  PetscCount      *tptr, *pos;
  PetscInt64      *lists;
  PetscInt         nblocks;
  int             *heap, *owner;
  PetscCount      *load;
  PetscInt64      *key;

  PetscFunctionBegin;
  PetscCall(DMAsmPlanDestroy(P));
  if (!nzpt) { /* not given: about 32 list entries per thread (Jacobian of P1 tets: 4 targets, residual: 1) */
    PetscCount used = 0;
    for (PetscCount q = 0; q < nsrc; q++) used += q2t[q] >= 0;
    nzpt = (PetscInt)PetscMax(1, PetscMin(4, ntarget ? (32 * ntarget) / PetscMax(used, 1) : 1));
  }
  C          = nzpt * DMASM_BLOCK;
  P->ntarget = ntarget;
  P->nsrc    = nsrc;
  P->C       = C;
  P->idx64   = (PetscBool)(nsrc >= PETSC_INT32_MAX - 1 || as->force64);
  nblocks    = (PetscInt)((ntarget + C - 1) / C);
  P->nblocks = nblocks;
  /* lists by target (counting sort, stable in element order) */
  PetscCall(PetscCalloc1(ntarget + 1, &tptr));
  for (PetscCount q = 0; q < nsrc; q++)
    if (q2t[q] >= 0) tptr[q2t[q] + 1]++;
  for (PetscCount t = 0; t < ntarget; t++) tptr[t + 1] += tptr[t];
  PetscCall(PetscMalloc1(tptr[ntarget], &lists));
  PetscCall(PetscMalloc1(ntarget, &pos));
  PetscCall(PetscArraycpy(pos, tptr, ntarget));
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt k = 0; k < nper; k++) {
      const PetscCount q = (PetscCount)k * nelem + e;
      if (q2t[q] >= 0) lists[pos[q2t[q]]++] = q;
    }
  PetscCall(PetscFree(pos));
  /* LPT per block: heights first */
  PetscCall(PetscMalloc1(nblocks + 1, &P->blkptr));
  PetscCall(PetscMalloc4(B, &heap, C, &owner, B, &load, C, &key));
  P->blkptr[0] = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (PetscInt b = 0; b < nblocks; b++) {
      const PetscCount t0 = (PetscCount)b * C;
      const PetscInt   nt = (PetscInt)PetscMin((PetscCount)C, ntarget - t0);
      PetscCount       height = 0;

      /* longest list first; ties by position (a fixed, deterministic order) */
      for (PetscInt i = 0; i < nt; i++) key[i] = (PetscInt64)(PETSC_INT32_MAX - (tptr[t0 + i + 1] - tptr[t0 + i])) * C + i;
      PetscCall(PetscSortInt64(nt, key));
      for (int t = 0; t < B; t++) {
        heap[t] = t;
        load[t] = 0;
      }
      for (PetscInt r = 0; r < nt; r++) {
        const PetscInt   i   = (PetscInt)(key[r] % C);
        const PetscCount len = tptr[t0 + i + 1] - tptr[t0 + i];
        if (!len) { /* no contributions: the block's zero fill covers it */
          owner[i] = -1;
          continue;
        }
        owner[i] = heap[0];
        load[heap[0]] += len + 1;
        HeapDown(heap, B, load, 0);
      }
      for (int t = 0; t < B; t++) height = PetscMax(height, load[t]);
      if (pass == 0) P->blkptr[b + 1] = P->blkptr[b] + height * B;
      else {
        /* fill: each thread's lists in LPT assignment order, sources then ~(local target) */
        const PetscCount base = P->blkptr[b];
        for (int t = 0; t < B; t++) load[t] = 0;
        for (PetscInt r = 0; r < nt; r++) {
          const PetscInt i = (PetscInt)(key[r] % C);
          const int      t = owner[i];
          if (t < 0) continue;
          for (PetscCount s = tptr[t0 + i]; s < tptr[t0 + i + 1]; s++) {
            const PetscCount at = base + load[t]++ * B + t;
            if (P->idx64) P->p64[at] = lists[s] + 1;
            else P->p32[at] = (int)(lists[s] + 1);
          }
          {
            const PetscCount at = base + load[t]++ * B + t;
            if (P->idx64) P->p64[at] = ~(PetscInt64)i;
            else P->p32[at] = ~(int)i;
          }
        }
      }
    }
    if (pass == 0) {
      if (P->idx64) PetscCall(PetscCalloc1(P->blkptr[nblocks], &P->p64));
      else PetscCall(PetscCalloc1(P->blkptr[nblocks], &P->p32));
    }
  }
  PetscCall(PetscFree4(heap, owner, load, key));
  PetscCall(PetscFree(lists));
  PetscCall(PetscFree(tptr));
  PetscCall(PetscMalloc1(nsrc, &P->e2t));
  PetscCall(PetscArraycpy(P->e2t, q2t, nsrc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmPlanDestroy(DMAsmPlan *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(P->blkptr));
  PetscCall(PetscFree(P->p32));
  PetscCall(PetscFree(P->p64));
  PetscCall(PetscFree(P->e2t));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree(&P->dpacked));
  PetscCall(DMAsmCUDAFree((void **)&P->dblkptr));
  PetscCall(DMAsmCUDAFree((void **)&P->dorder));
  PetscCall(DMAsmCUDAFree((void **)&P->de2t));
#endif
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device launch order of a plan's blocks from its host blkptr: decreasing height, ties by index (the blocks
   are independent; only their start time changes).  Host and device plan builders share it. */
PetscErrorCode DMAsmPlanUploadOrder(DMAsmPlan *P)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  {
    PetscInt64 *key;
    int        *order;
    PetscCall(PetscMalloc2(P->nblocks, &key, P->nblocks + 1, &order));
    for (PetscInt b = 0; b < P->nblocks; b++) key[b] = (PetscInt64)(PETSC_INT32_MAX - (P->blkptr[b + 1] - P->blkptr[b]) / DMASM_BLOCK) * (P->nblocks + 1) + b;
    PetscCall(PetscSortInt64(P->nblocks, key));
    for (PetscInt b = 0; b < P->nblocks; b++) order[b] = (int)(key[b] % (P->nblocks + 1));
    PetscCall(DMAsmCUDAMalloc((void **)&P->dorder, sizeof(int) * P->nblocks));
    PetscCall(DMAsmCUDAUpload(P->dorder, order, sizeof(int) * P->nblocks));
    PetscCall(PetscFree2(key, order));
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAsmPlanUpload(DMAsmPlan *P)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  {
    const size_t es = P->idx64 ? sizeof(PetscInt64) : sizeof(int);
    PetscCall(DMAsmCUDAMalloc(&P->dpacked, es * (size_t)P->blkptr[P->nblocks]));
    PetscCall(DMAsmCUDAUpload(P->dpacked, P->idx64 ? (void *)P->p64 : (void *)P->p32, es * (size_t)P->blkptr[P->nblocks]));
    PetscCall(DMAsmCUDAMalloc((void **)&P->dblkptr, sizeof(PetscCount) * (P->nblocks + 1)));
    PetscCall(DMAsmCUDAUpload(P->dblkptr, P->blkptr, sizeof(PetscCount) * (P->nblocks + 1)));
    PetscCall(DMAsmPlanUploadOrder(P));
    PetscCall(DMAsmCUDAMalloc((void **)&P->de2t, sizeof(PetscInt) * (size_t)P->nsrc));
    PetscCall(DMAsmCUDAUpload(P->de2t, P->e2t, sizeof(PetscInt) * (size_t)P->nsrc));
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssembly: built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
