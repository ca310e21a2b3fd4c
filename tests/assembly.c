/* DMAssembly (src/dm/assembly) against PETSc's own FE assembly.

   The reference assembles the same element matrices and vectors (the built-in P1 element, anisotropic
   per-element conductivity + mass + source) with PETSc's closure routines (DMPlexMatSetClosure /
   DMPlexVecSetClosure into AIJ), independent of the assembler's element map, pattern and plans.  Every
   method runs into every target where it can run here (host execution: AIJ and ELLWARP host backend;
   device execution: AIJCUSPARSE and ELLWARP cuda backend), then:
   - relative error of J and F <= 1e-13;
   - globalnz, host and color: bitwise equal run to run (the values converted to AIJ and compared with memcmp);
   - MatZeroRowsColumns with x/b fix-up on the assembled matrix equals the same on the reference;
   - the colouring is valid (no dof twice within a colour, every element once);
   - with -plex: the P1 Laplacian Jacobian equals DMPlexSNESComputeJacobianFEM with a PetscDS g3 = I;
   - with -snes: SNESSolve through DMAssemblySetSNES matches a KSP solve of the reference system, with one
     Jacobian plan for all Newton steps and solves.
   Meshes: -mesh box (tets, -faces n), tri (triangles), single (one tet), two (two disconnected tets). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscellwarp/private/dmasmp1.h>
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include "assemblytestutil.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* ellwarp_add_test(assembly.box -mesh box -faces 3 -plex -snes) */
/* ellwarp_add_test(assembly.tri -mesh tri -faces 5) */
/* ellwarp_add_test(assembly.tune_unknown_key -mesh box -faces 2 -dm_assembly_tune metis_lane=8 EXPECT_ERROR "-dm_assembly_tune: unknown key .metis_lane.. it takes key=value.* metis_lanes .sharednz.") */
/* ellwarp_add_test(assembly.localrow -mesh box -faces 3 -plex -snes -dm_assembly_type localrow) */
/* ellwarp_add_test(assembly.gpu_localrow -mesh box -faces 5 -plex -snes -dm_assembly_type localrow -gpu GPU) */
/* ellwarp_add_test(assembly.localnz -mesh box -faces 3 -plex -snes -dm_assembly_type localnz) */
/* ellwarp_add_test(assembly.localnz_tri_index64 -mesh tri -faces 6 -dm_assembly_type localnz -dm_assembly_tune index64=1) */
/* ellwarp_add_test(assembly.gpu_localnz -mesh box -faces 5 -plex -snes -dm_assembly_type localnz -gpu GPU) */
/* ellwarp_add_test(assembly.single -mesh single) */
/* ellwarp_add_test(assembly.colortail -mesh box -faces 4 -dm_assembly_tune color_tail=24) */
/* ellwarp_add_test(assembly.colortail_unfused -mesh box -faces 4 -dm_assembly_fuse 0 -dm_assembly_tune color_tail=24) */
/* ellwarp_add_test(assembly.gpu_colortail -mesh box -faces 8 -dm_assembly_tune color_tail=100 -gpu GPU) */
/* ellwarp_add_test(assembly.sharednz -mesh box -faces 4 -plex -snes -dm_assembly_type sharednz -dm_assembly_sharednz_smem 24) */
/* ellwarp_add_test(assembly.sharednz_tri -mesh tri -faces 8 -dm_assembly_type sharednz -dm_assembly_sharednz_smem 8) */
/* ellwarp_add_test(assembly.sharednz_fallback -mesh box -faces 3 -dm_assembly_type sharednz -dm_assembly_sharednz_smem 1 -info) */
/* ellwarp_add_test(assembly.gpu_sharednz -mesh box -faces 8 -plex -snes -dm_assembly_type sharednz -dm_assembly_sharednz_smem 24 -gpu GPU) */
/* ellwarp_add_test(assembly.sharednz_metis -mesh box -faces 4 -plex -snes -dm_assembly_type sharednz -dm_assembly_sharednz_smem 24 -dm_assembly_shared_partition metis) */
/* ellwarp_add_test(assembly.sharednz_metis_small -mesh box -faces 6 -dm_assembly_type sharednz -dm_assembly_sharednz_smem 12 -dm_assembly_shared_partition metis -dm_assembly_tune metis_fill=1.5,metis_seed=7) */
/* ellwarp_add_test(assembly.sharednz_metis_tri -mesh tri -faces 8 -dm_assembly_type sharednz -dm_assembly_sharednz_smem 8 -dm_assembly_shared_partition metis -dm_assembly_tune metis_lanes=32) */
/* ellwarp_add_test(assembly.sharednz_metis_longrow -mesh box -faces 4 -sym_D -dm_assembly_type sharednz -dm_assembly_sharednz_smem 24 -dm_assembly_shared_partition metis -mat_ellwarp_kernel k2 -mat_ellwarp_tune long_row=12 -dm_assembly_tune metis_lanes=8) */
/* ellwarp_add_test(assembly.sharednz_metis_fallback -mesh box -faces 3 -dm_assembly_type sharednz -dm_assembly_sharednz_smem 1 -dm_assembly_shared_partition metis -info) */
/* ellwarp_add_test(assembly.gpu_sharednz_metis -mesh box -faces 8 -plex -snes -dm_assembly_type sharednz -dm_assembly_sharednz_smem 24 -dm_assembly_shared_partition metis -gpu GPU) */
/* ellwarp_add_test(assembly.two -mesh two) */
/* ellwarp_add_test(assembly.unfused -mesh box -faces 3 -dm_assembly_fuse 0) */
/* ellwarp_add_test(assembly.gpu_unfused -mesh box -faces 5 -dm_assembly_fuse 0 -gpu GPU) */
/* ellwarp_add_test(assembly.nzpt1 -mesh box -faces 2 -dm_assembly_tune nz_per_thread=1) */
/* ellwarp_add_test(assembly.index64 -mesh box -faces 3 -dm_assembly_tune index64=1,nz_per_thread=16) */
/* ellwarp_add_test(assembly.gpu_index64 -mesh box -faces 4 -dm_assembly_tune index64=1 -gpu GPU) */
/* ellwarp_add_test(assembly.gpu -mesh box -faces 6 -plex -snes -gpu GPU) */
/* ellwarp_add_test(assembly.symD -mesh box -faces 4 -sym_D) */
/* ellwarp_add_test(assembly.gpu_symD -mesh box -faces 6 -sym_D -gpu GPU) */
/* ellwarp_add_test(assembly.gpu_symD_unfused -mesh box -faces 5 -sym_D -dm_assembly_fuse 0 -gpu GPU) */
/* ellwarp_add_test(assembly.gpu_two -mesh two -gpu GPU) */
/* ellwarp_add_test(assembly.atomic_match_tri -mesh tri -faces 6) */
/* ellwarp_add_test(assembly.atomic_match_irregular -mesh box -faces 4 -dm_assembly_tune atomic_maxcode=10) */
/* ellwarp_add_test(assembly.atomic_match_k2 -mesh box -faces 4 -sym_D -mat_ellwarp_kernel k2) */
/* ellwarp_add_test(assembly.atomic_match_longrow -mesh box -faces 4 -sym_D -mat_ellwarp_tune long_row=12) */
/* ellwarp_add_test(assembly.gpu_atomic_match_k2 -mesh box -faces 6 -sym_D -mat_ellwarp_kernel k2 -mat_ellwarp_tune long_row=16 -gpu GPU) */
/* ellwarp_add_test(assembly.atomic_match -mesh box -faces 3 -sym_D) */
/* ellwarp_add_test(assembly.atomic_full -mesh box -faces 4 -sym_D -dm_assembly_tune atomic_variant=full) */
/* ellwarp_add_test(assembly.gpu_atomic_full -mesh box -faces 8 -sym_D -dm_assembly_tune atomic_variant=full -gpu GPU) */
/* ellwarp_add_test(assembly.gpu_atomic_match -mesh box -faces 8 -sym_D -gpu GPU) */
/* ellwarp_add_test(assembly.gpu_atomic_match_irregular -mesh box -faces 6 -dm_assembly_tune atomic_maxcode=10 -gpu GPU) */
/* ellwarp_add_test(assembly.gpu_atomic_match_tri -mesh tri -faces 12 -sym_D -gpu GPU) */

static PetscErrorCode CreateMesh(const char *mesh, PetscInt faces, DM *dm)
{
  PetscBool box, tri, single, two;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(mesh, "box", &box));
  PetscCall(PetscStrcmp(mesh, "tri", &tri));
  PetscCall(PetscStrcmp(mesh, "single", &single));
  PetscCall(PetscStrcmp(mesh, "two", &two));
  if (box || tri) {
    PetscInt   dim, nv, nt, *cells;
    PetscReal *x;
    PetscCall(SimplexBoxCells(box, faces, &dim, &nv, &nt, &cells, &x));
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, dim, nt, nv, dim + 1, PETSC_TRUE, cells, dim, x, dm));
    PetscCall(PetscFree2(cells, x));
  } else if (single) {
    PetscInt        cells[4]   = {0, 1, 2, 3};
    const PetscReal coords[12] = {0.1, 0, 0, 1, 0.2, 0, 0, 1.1, 0.1, 0.2, 0.1, 0.9};
    OrientCells(3, 1, cells, coords);
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, 1, 4, 4, PETSC_TRUE, cells, 3, coords, dm));
  } else if (two) {
    PetscInt        cells[8]   = {0, 1, 2, 3, 4, 5, 6, 7};
    const PetscReal coords[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 3, 0, 0, 4.5, 0.2, 0, 3, 1, 0, 3.1, 0.3, 2};
    OrientCells(3, 2, cells, coords);
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, 2, 8, 4, PETSC_TRUE, cells, 3, coords, dm));
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mesh box|tri|single|two");
  {
    PetscFE  fe;
    PetscInt dim;
    PetscCall(DMGetDimension(*dm, &dim));
    PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
    PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(*dm));
    PetscCall(PetscFEDestroy(&fe));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per-element SPD conductivity: R diag(1, 0.3, 2) R^T with a pseudo-random rotation */
static PetscErrorCode Conductivities(PetscInt dim, PetscInt nelem, PetscReal **D)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)dim * dim * nelem, D));
  for (PetscInt e = 0; e < nelem; e++) Conductivity(dim, e, *D + e * dim * dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sharednz: the plan's partition is valid: the blocks cover the walk positions 0..ntarget-1 in order, each block's
   ranges start at its first position and cover it, and every target is written by exactly one block position */
static PetscErrorCode CheckSharedPlan(const DMAsmSharedPlan *S, PetscInt nelem, const char *what, PetscBool *fail)
{
  PetscInt *cnt;
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  if (!S->tb) PetscFunctionReturn(PETSC_SUCCESS); /* not built (fallback) */
  PetscCall(PetscCalloc1(S->ntarget + 1, &cnt));
  if (S->tb[0] != 0 || S->tb[S->nblocks] != S->ntarget || S->rb[0] != 0 || S->rb[S->nblocks] != S->nranges || S->rp[S->nranges] != S->ntarget) ok = PETSC_FALSE;
  for (PetscInt b = 0; ok && b < S->nblocks; b++) {
    if (S->tb[b + 1] < S->tb[b] || S->rb[b + 1] <= S->rb[b] || S->rp[S->rb[b]] != S->tb[b]) ok = PETSC_FALSE;
    for (PetscInt r = S->rb[b]; ok && r < S->rb[b + 1]; r++)
      if (S->rp[r + 1] <= S->rp[r] || S->rt[r] < 0 || S->rt[r] + (S->rp[r + 1] - S->rp[r]) > S->ntarget) ok = PETSC_FALSE;
    for (PetscCount p = S->tb[b]; ok && p < S->tb[b + 1]; p++) cnt[DMAsmSharedTarget(S->rb[b], S->rb[b + 1], S->rp, S->rt, p)]++;
  }
  for (PetscCount t = 0; ok && t < S->ntarget; t++)
    if (cnt[t] != 1) ok = PETSC_FALSE;
  PetscCall(PetscFree(cnt));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "sharednz %s plan (%s partition): %" PetscCount_FMT " targets, %" PetscInt_FMT " blocks, %" PetscInt_FMT " ranges%s, redundancy %.2f: every target in exactly one block %s\n", what, S->partition == DMASM_SHPART_METIS ? "METIS" : "contiguous", S->ntarget, S->nblocks, S->nranges,
                        S->partition == DMASM_SHPART_METIS ? "" : (S->nranges == S->nblocks ? " (one per block)" : " (NOT one per block)"), nelem ? (double)S->eb[S->nblocks] / nelem : 0.0, ok ? "ok" : "FAIL"));
  if (!ok || (S->partition != DMASM_SHPART_METIS && S->nranges != S->nblocks)) *fail = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a fingerprint of a sharednz plan (blocks, ranges, elements, offsets): the plan rebuilt for a second matrix of the
   same pattern must be the same (METIS with its fixed seed is deterministic) */
static unsigned long long SharedPlanHash(const DMAsmSharedPlan *S)
{
  unsigned long long h = 1469598103934665603ULL; /* FNV-1a */
#define MIX(v) h = (h ^ (unsigned long long)(v)) * 1099511628211ULL
  if (!S->tb) return 0;
  for (PetscInt b = 0; b <= S->nblocks; b++) {
    MIX(S->tb[b]);
    MIX(S->eb[b]);
    MIX(S->rb[b]);
  }
  for (PetscInt r = 0; r <= S->nranges; r++) {
    MIX(S->rp[r]);
    MIX(S->rt[r]);
  }
  for (PetscCount i = 0; i < S->eb[S->nblocks]; i++) MIX(S->belem[i]);
  for (PetscCount i = 0; i < S->lb[S->nblocks]; i++) MIX(S->lo[i]);
#undef MIX
  return h;
}

static PetscErrorCode CheckColoring(DMAssembly as, PetscInt ndof)
{
  PetscInt        nc, nelem, nen;
  const PetscInt *cp, *ce, *edof;
  PetscInt       *mark, *seen;

  PetscFunctionBegin;
  PetscCall(DMAssemblyGetColoring(as, &nc, &cp, &ce));
  PetscCall(DMAssemblyGetElementDofs(as, &nelem, &nen, &edof));
  PetscCall(PetscMalloc2(ndof, &mark, nelem, &seen));
  for (PetscInt i = 0; i < ndof; i++) mark[i] = -1;
  for (PetscInt e = 0; e < nelem; e++) seen[e] = 0;
  PetscCheck(cp[0] == 0 && cp[nc] == nelem, PETSC_COMM_SELF, PETSC_ERR_PLIB, "colouring does not cover the elements");
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt k = cp[c]; k < cp[c + 1]; k++) {
      const PetscInt e = ce[k];
      seen[e]++;
      for (PetscInt a = 0; a < nen; a++) {
        const PetscInt v = edof[a * nelem + e];
        PetscCheck(mark[v] != c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "colour %" PetscInt_FMT ": dof %" PetscInt_FMT " appears in two elements", c, v);
        mark[v] = c;
      }
    }
  for (PetscInt e = 0; e < nelem; e++) PetscCheck(seen[e] == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element %" PetscInt_FMT " coloured %" PetscInt_FMT " times", e, seen[e]);
  PetscCall(PetscFree2(mark, seen));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "colouring: %" PetscInt_FMT " colours, valid\n", nc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kernels that copy given element data (random values) into the assembler's buffers: the reduction alone is
   compared, host against device, with identical inputs.  globalnz sums every target in element order
   whatever the target's storage order, exactly as the host method does: bitwise equal results. */
typedef struct {
  PetscInt     nq, nr;
  PetscScalar *ke, *fe;
} CopyCtx;

static PetscErrorCode CopyData(PetscMemType mt, PetscScalar *dst, const PetscScalar *src, PetscInt n)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mt)) PetscCall(PetscArraycpy(dst, src, n));
  else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCallCUDA(cudaMemcpy(dst, src, sizeof(PetscScalar) * n, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaDeviceSynchronize()); /* the legacy stream's copy must land before the assembler's stream reads it */
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyJac(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(CopyData(mt, ke, ((CopyCtx *)ctx)->ke, ((CopyCtx *)ctx)->nq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyRes(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(CopyData(mt, fe, ((CopyCtx *)ctx)->fe, ((CopyCtx *)ctx)->nr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSameInputs(DM dm, Vec U, PetscBool *fail)
{
  const char *methods[] = {DMASSEMBLYHOST, DMASSEMBLYGLOBALNZ, DMASSEMBLYCOLOR, DMASSEMBLYATOMIC, DMASSEMBLYSHAREDNZ}; /* sharednz: user kernels, globalnz runs */
  PetscInt    dim, cStart, cEnd, nelem, nen;
  CopyCtx     c;
  PetscRandom rnd;
  Mat         Jh = NULL;
  Vec         Fh = NULL;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  nelem = cEnd - cStart;
  nen   = dim + 1;
  c.nq  = nen * nen * nelem;
  c.nr  = nen * nelem;
  PetscCall(PetscMalloc2(c.nq, &c.ke, c.nr, &c.fe));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt i = 0; i < c.nq; i++) PetscCall(PetscRandomGetValue(rnd, &c.ke[i]));
  for (PetscInt i = 0; i < c.nr; i++) PetscCall(PetscRandomGetValue(rnd, &c.fe[i]));
  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    DMAssembly               as;
    DMAssemblyElementKernels k = {nen, CopyRes, CopyJac, &c};
    PetscMemType             mt;
    Mat                      J;
    Vec                      Ux, F;
    PetscBool                same = PETSC_TRUE, samef = PETSC_TRUE;
    PetscReal                err, errf;

    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCall(CreateTarget(dm, m == 0 ? MATAIJ : MATELLWARP, mt, &J)); /* CSR-order plan vs slot-order plan */
    PetscCall(CreateVecLike(U, mt, &Ux));
    PetscCall(VecDuplicate(Ux, &F));
    PetscCall(CopyValues(U, Ux));
    PetscCall(DMAssemblyComputeJacobian(as, Ux, J));
    PetscCall(DMAssemblyComputeResidual(as, Ux, F));
    if (m == 0) {
      PetscCall(MatConvert(J, MATSEQAIJ, MAT_INITIAL_MATRIX, &Jh));
      PetscCall(VecDuplicate(U, &Fh));
      PetscCall(CopyValues(F, Fh));
    } else {
      PetscCall(RelErrMat(J, Jh, &err));
      PetscCall(RelErrVec(F, Fh, &errf));
      PetscCall(SameBits(J, Jh, &same));
      {
        Vec Fc;
        PetscCall(VecDuplicate(U, &Fc));
        PetscCall(CopyValues(F, Fc));
        PetscCall(SameBitsVec(Fc, Fh, &samef));
        PetscCall(VecDestroy(&Fc));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "same element data: %-8s (%s) into ellwarp vs host method into aij: J rel. error %.2e, F %.2e, %s\n", methods[m], mt == PETSC_MEMTYPE_HOST ? "host" : "device", (double)err, (double)errf,
                            (m == 1 || m == 4) ? (same && samef ? "bitwise equal ok" : "NOT BITWISE EQUAL FAIL") : (err <= 1e-14 && errf <= 1e-14 ? "ok" : "FAIL")));
      if (err > 1e-14 || errf > 1e-14 || ((m == 1 || m == 4) && !(same && samef))) *fail = PETSC_TRUE;
      if (m == 4) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_SELF)); /* says: falls back to globalnz */
    }
    PetscCall(MatDestroy(&J));
    PetscCall(VecDestroy(&Ux));
    PetscCall(VecDestroy(&F));
    PetscCall(DMAssemblyDestroy(&as));
  }
  PetscCall(MatDestroy(&Jh));
  PetscCall(VecDestroy(&Fh));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree2(c.ke, c.fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A nonlinear user element reading its state either from the gathered buffers (ue, ae) or, declared with
   DMAssemblySetNodalState(), through the element map from the nodal arrays (DMAssemblyGetNodalState()); the
   arithmetic is the same, so residual and Jacobian must agree bit for bit.  On the device the callback copies
   its inputs to the host and its outputs back (the test checks the assembler's plumbing, not a kernel). */
typedef struct {
  DMAssembly as;    /* set: nodal state */
  PetscInt   ndof;  /* entries of the nodal arrays (local vector) */
} NodalCtx;

static PetscErrorCode NodalElements(PetscMemType mt, PetscInt nelem, PetscInt nen, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, PetscScalar *ke, NodalCtx *c)
{
  const PetscInt    *edof = NULL;
  PetscInt          *hedof = NULL;
  PetscScalar       *hu, *ha, *hout;
  const PetscInt     nin = c->as ? c->ndof : nen * nelem, nout = (fe ? nen : nen * nen) * nelem;

  PetscFunctionBegin;
  if (c->as) {
    PetscCheck(!ue && !ae, PETSC_COMM_SELF, PETSC_ERR_PLIB, "nodal state: the assembler still passed gathered buffers");
    PetscCall(DMAssemblyGetNodalState(c->as, &edof, &ue, &ae));
  }
  PetscCheck(ue && ae, PETSC_COMM_SELF, PETSC_ERR_PLIB, "nodal state test: missing state");
  PetscCall(PetscMalloc4(nin, &hu, nin, &ha, nout, &hout, c->as ? nen * nelem : 0, &hedof));
  if (PetscMemTypeHost(mt)) {
    PetscCall(PetscArraycpy(hu, ue, nin));
    PetscCall(PetscArraycpy(ha, ae, nin));
    if (c->as) PetscCall(PetscArraycpy(hedof, edof, nen * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaMemcpy(hu, ue, sizeof(PetscScalar) * nin, cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(ha, ae, sizeof(PetscScalar) * nin, cudaMemcpyDeviceToHost));
    if (c->as) PetscCallCUDA(cudaMemcpy(hedof, edof, sizeof(PetscInt) * nen * nelem, cudaMemcpyDeviceToHost));
#endif
  }
  for (PetscInt e = 0; e < nelem; e++) {
    PetscScalar u[8], a[8];
    for (PetscInt i = 0; i < nen; i++) {
      const PetscInt q = c->as ? hedof[i * nelem + e] : i * nelem + e;
      u[i] = hu[q];
      a[i] = ha[q];
    }
    for (PetscInt i = 0; i < nen; i++) {
      if (fe) {
        PetscScalar f = 0.5 * a[i];
        for (PetscInt j = 0; j < nen; j++) f += (1 + 0.1 * (i + 1) * (j + 2)) * u[j] * (1 + u[j]);
        hout[i * nelem + e] = f;
      } else
        for (PetscInt j = 0; j < nen; j++) hout[(i * nen + j) * nelem + e] = (1 + 0.1 * (i + 1) * (j + 2)) * (1 + 2 * u[j]) + 0.01 * a[i];
    }
  }
  PetscCall(CopyData(mt, fe ? fe : ke, hout, nout));
  PetscCall(PetscFree4(hu, ha, hout, hedof));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NodalRes(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(NodalElements(mt, nelem, 4, ue, ae, fe, NULL, (NodalCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NodalJac(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(NodalElements(mt, nelem, 4, ue, ae, NULL, ke, (NodalCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckNodalState(DM dm, Vec U, PetscBool *fail)
{
  const char *methods[] = {DMASSEMBLYHOST, DMASSEMBLYGLOBALNZ, DMASSEMBLYCOLOR}; /* fixed summation orders: bitwise comparable */
  PetscInt    dim;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  if (dim != 3) PetscFunctionReturn(PETSC_SUCCESS);
  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    Mat          J[2];
    Vec          F[2], Fc[2], Ux = NULL, A = NULL;
    PetscMemType mt = PETSC_MEMTYPE_HOST;
    PetscBool    same = PETSC_TRUE, samef = PETSC_TRUE;

    for (int v = 0; v < 2; v++) {
      DMAssembly               as;
      NodalCtx                 c = {NULL, 0};
      DMAssemblyElementKernels k = {4, NodalRes, NodalJac, &c};

      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(DMAssemblySetType(as, methods[m]));
      PetscCall(DMAssemblySetElementKernels(as, &k));
      if (v) {
        PetscErrorCode ierr;
        PetscCall(DMAssemblySetNodalState(as, PETSC_TRUE));
        c.as = as;
        /* outside a callback: an error, not stale pointers */
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = DMAssemblyGetNodalState(as, NULL, NULL, NULL);
        PetscCall(PetscPopErrorHandler());
        if (ierr != PETSC_ERR_ORDER) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "DMAssemblyGetNodalState outside a callback did not fail: FAIL\n"));
          *fail = PETSC_TRUE;
        }
      }
      PetscCall(DMAssemblySetUp(as));
      PetscCall(DMAssemblyGetMemType(as, &mt));
      if (!Ux) {
        PetscCall(CreateVecLike(U, mt, &Ux));
        PetscCall(CopyValues(U, Ux));
        PetscCall(VecDuplicate(Ux, &A));
        PetscCall(VecCopy(Ux, A));
        PetscCall(VecScale(A, -0.3));
        PetscCall(VecShift(A, 0.25));
      }
      PetscCall(VecGetLocalSize(Ux, &c.ndof));
      PetscCall(DMAssemblySetAuxiliaryVec(as, A));
      PetscCall(CreateTarget(dm, m == 0 ? MATAIJ : MATELLWARP, mt, &J[v]));
      PetscCall(VecDuplicate(Ux, &F[v]));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J[v]));
      PetscCall(DMAssemblyComputeResidual(as, Ux, F[v]));
      PetscCall(VecDuplicate(U, &Fc[v]));
      PetscCall(CopyValues(F[v], Fc[v]));
      PetscCall(DMAssemblyDestroy(&as));
    }
    PetscCall(SameBits(J[1], J[0], &same));
    PetscCall(SameBitsVec(Fc[1], Fc[0], &samef));
    {
      PetscReal nf;
      PetscCall(VecNorm(Fc[0], NORM_2, &nf));
      if (nf == 0) same = PETSC_FALSE; /* a residual of zeros proves nothing */
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "nodal state: %-8s (%s) nonlinear user element through the element map vs gathered buffers: %s\n", methods[m], mt == PETSC_MEMTYPE_HOST ? "host" : "device", same && samef ? "bitwise equal ok" : "NOT BITWISE EQUAL FAIL"));
    if (!(same && samef)) *fail = PETSC_TRUE;
    for (int v = 0; v < 2; v++) {
      PetscCall(MatDestroy(&J[v]));
      PetscCall(VecDestroy(&F[v]));
      PetscCall(VecDestroy(&Fc[v]));
    }
    PetscCall(VecDestroy(&Ux));
    PetscCall(VecDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localrow sums every target in element order, like globalnz: with the same element arithmetic (the host
   compiler does not contract) the two agree bit for bit on the host */
static PetscErrorCode CheckLocalRow(DM dm, Vec U, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, const char *other, PetscBool *fail)
{
  const char  *types[] = {DMASSEMBLYGLOBALNZ, other};
  Mat          J[2];
  Vec          F[2], Fh[2];
  PetscMemType mt = PETSC_MEMTYPE_HOST;
  PetscBool    same, samef;

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    DMAssembly               as;
    DMAssemblyElementKernels k;
    Vec                      Ux;

    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, types[i])); /* the type first: its options are read by it */
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetType(as, types[i]));
    PetscCall(DMAssemblyP1DiffusionMassKernels(as, alpha, beta, source, D, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCall(CreateTarget(dm, MATELLWARP, mt, &J[i]));
    PetscCall(CreateVecLike(U, mt, &Ux));
    PetscCall(CopyValues(U, Ux));
    PetscCall(VecDuplicate(Ux, &F[i]));
    PetscCall(DMAssemblyComputeJacobian(as, Ux, J[i]));
    PetscCall(DMAssemblyComputeResidual(as, Ux, F[i]));
    PetscCall(VecDuplicate(U, &Fh[i]));
    PetscCall(CopyValues(F[i], Fh[i]));
    PetscCall(VecDestroy(&Ux));
    PetscCall(DMAssemblyDestroy(&as));
  }
  PetscCall(SameBits(J[0], J[1], &same));
  PetscCall(SameBitsVec(Fh[0], Fh[1], &samef));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s vs globalnz (%s, built-in kernels): Jacobian %s, residual %s%s\n", other, mt == PETSC_MEMTYPE_HOST ? "host" : "device", same ? "bitwise equal" : "differ", samef ? "bitwise equal" : "differ",
                        mt == PETSC_MEMTYPE_HOST ? (same && samef ? " ok" : " FAIL") : " (device: the compilers may contract differently; the tolerance checks above apply)"));
  if (mt == PETSC_MEMTYPE_HOST && !(same && samef)) *fail = PETSC_TRUE;
  for (int i = 0; i < 2; i++) {
    PetscCall(MatDestroy(&J[i]));
    PetscCall(VecDestroy(&F[i]));
    PetscCall(VecDestroy(&Fh[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void g3_identity(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < dim; d++) g3[d * dim + d] = 1.0;
}

int main(int argc, char **argv)
{
  DM          dm;
  char        mesh[16] = "box";
  PetscInt    faces = 3, dim, nelem, ndof;
  PetscBool   gpu = PETSC_FALSE, plex = PETSC_FALSE, snes = PETSC_FALSE, fail = PETSC_FALSE;
  PetscReal  *D, alpha = 1.3, beta = 0.7, source = 2.0, tol = 1e-13;
  Vec         U, Fref;
  Mat         Jref;
  PetscRandom rnd;
  const char *methods[] = {DMASSEMBLYGLOBALNZ, DMASSEMBLYHOST, DMASSEMBLYATOMIC, DMASSEMBLYCOLOR, DMASSEMBLYLOCALROW, DMASSEMBLYSHAREDNZ, DMASSEMBLYLOCALNZ};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", mesh, sizeof(mesh), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-plex", &plex));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-snes", &snes));
  PetscCall(CreateMesh(mesh, faces, &dm));
  PetscCall(DMGetDimension(dm, &dim));
  {
    PetscInt cStart, cEnd;
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    nelem = cEnd - cStart;
  }
  PetscCall(Conductivities(dim, nelem, &D));
  {
    PetscBool symD = PETSC_FALSE; /* mirror the upper triangle: an exactly symmetric D, whose upper triangle alone
                                     the device kernels read (sharednz, fused atomic/color); without it the rounding
                                     of R diag R^T leaves D a few ulps off symmetric and the full tensor is read */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-sym_D", &symD, NULL));
    if (symD)
      for (PetscInt e = 0; e < nelem; e++)
        for (PetscInt i = 0; i < dim; i++)
          for (PetscInt j = 0; j < i; j++) D[e * dim * dim + i * dim + j] = D[e * dim * dim + j * dim + i];
  }
  PetscCall(DMCreateGlobalVector(dm, &U));
  PetscCall(VecGetLocalSize(U, &ndof));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(U, rnd));
  PetscCall(ReferenceAssembly(dm, alpha, beta, source, D, U, &Jref, &Fref));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "mesh %s: %" PetscInt_FMT " %s, %" PetscInt_FMT " dofs%s\n", mesh, nelem, dim == 3 ? "tetrahedra" : "triangles", ndof, gpu ? " (GPU run)" : ""));

  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    DMAssembly               as;
    DMAssemblyElementKernels k;
    PetscMemType             mt;
    const char              *hosttargets[] = {MATAIJ, MATELLWARP}, *devtargets[] = {MATAIJCUSPARSE, MATELLWARP}, **targets;
    Vec                      Ux;
    PetscBool                reproducible = (PetscBool)(m != 2), same; /* all but atomic */

    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, methods[m])); /* the type first: its options are read by it */
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblyP1DiffusionMassKernels(as, alpha, beta, source, D, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCheck(!gpu || m == 1 || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: method %s does not run on the device", methods[m]);
    if (m == 3) PetscCall(CheckColoring(as, ndof)); /* color: the only type that colours */
    targets = mt == PETSC_MEMTYPE_HOST ? hosttargets : devtargets;
    PetscCall(CheckResidual(as, methods[m], mt, U, Fref, tol, reproducible, &Ux, &fail));
    for (int t = 0; t < 2; t++) {
      Mat       J, J2, Jz, Jrz;
      PetscReal errJ, errZ, errb;
      Vec       x, b, bref, xref;
      PetscInt  nrows = 0, *rows;

      PetscCall(CreateTarget(dm, targets[t], mt, &J));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J));
      PetscCall(RelErrMat(J, Jref, &errJ));
      if (m == 5 && !((DMAssembly_SharedNZ *)as->data)->fallback) { /* sharednz: the partition of this target's plan and the residual's */
        PetscCall(CheckSharedPlan(&((DMAssembly_SharedNZ *)as->data)->jsh, nelem, targets[t], &fail));
        if (t == 0) PetscCall(CheckSharedPlan(&((DMAssembly_SharedNZ *)as->data)->rsh, nelem, "residual", &fail));
      }
      const unsigned long long h1 = m == 5 ? SharedPlanHash(&((DMAssembly_SharedNZ *)as->data)->jsh) : 0;
      PetscCall(CreateTarget(dm, targets[t], mt, &J2));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J2)); /* a second matrix: a second plan */
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J2)); /* reassembly, same plan */
      if (m == 5 && !((DMAssembly_SharedNZ *)as->data)->fallback && ((DMAssembly_SharedNZ *)as->data)->jsh.tb) {
        const PetscBool samep = (PetscBool)(SharedPlanHash(&((DMAssembly_SharedNZ *)as->data)->jsh) == h1);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "sharednz %s plan rebuilt for a second matrix: %s\n", targets[t], samep ? "identical ok" : "DIFFERENT (FAIL)"));
        if (!samep) fail = PETSC_TRUE;
      }
      PetscCall(SameBits(J, J2, &same));
      /* Dirichlet rows afterwards: every third dof */
      PetscCall(PetscMalloc1(ndof, &rows));
      for (PetscInt i = 0; i < ndof; i += 3) rows[nrows++] = i;
      PetscCall(MatDuplicate(J, MAT_COPY_VALUES, &Jz));
      PetscCall(MatDuplicate(Jref, MAT_COPY_VALUES, &Jrz));
      PetscCall(MatCreateVecs(Jz, &x, &b));
      PetscCall(VecDuplicate(U, &xref));
      PetscCall(VecDuplicate(U, &bref));
      PetscCall(VecCopy(U, xref));
      PetscCall(VecCopy(Fref, bref));
      PetscCall(CopyValues(xref, x));
      PetscCall(CopyValues(bref, b));
      PetscCall(MatZeroRowsColumns(Jz, nrows, rows, 2.0, x, b));
      PetscCall(MatZeroRowsColumns(Jrz, nrows, rows, 2.0, xref, bref));
      PetscCall(RelErrMat(Jz, Jrz, &errZ));
      PetscCall(RelErrVec(b, bref, &errb));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s into %-12s Jacobian: rel. error %.2e %s%s; after MatZeroRowsColumns %.2e, b %.2e %s\n", methods[m], targets[t], (double)errJ, errJ <= tol ? "ok" : "FAIL", reproducible ? (same ? ", bitwise reproducible" : ", NOT REPRODUCIBLE") : "", (double)errZ, (double)errb,
                            errZ <= tol && errb <= tol ? "ok" : "FAIL"));
      if (errJ > tol || errZ > tol || errb > tol || (reproducible && !same)) fail = PETSC_TRUE;
      PetscCall(PetscFree(rows));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&xref));
      PetscCall(VecDestroy(&bref));
      PetscCall(MatDestroy(&Jz));
      PetscCall(MatDestroy(&Jrz));
      PetscCall(MatDestroy(&J));
      PetscCall(MatDestroy(&J2));
    }
    {
      DMAssemblyInfo info;
      PetscCall(DMAssemblyGetInfo(as, &info));
      PetscCheck(info.njacplans == 4 && info.nreductions == 6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "expected 4 Jacobian plans and 6 assemblies, got %" PetscInt_FMT " and %" PetscInt_FMT, info.njacplans, info.nreductions);
    }
    if (m == 0 || m == 2 || m == 3 || m == 5) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_SELF)); /* atomic: its variant ran (the plan's irregular elements) */
    PetscCall(VecDestroy(&Ux));
    PetscCall(DMAssemblyDestroy(&as));
  }

  PetscCall(CheckSameInputs(dm, U, &fail));
  PetscCall(CheckNodalState(dm, U, &fail));
  PetscCall(CheckLocalRow(dm, U, alpha, beta, source, D, DMASSEMBLYLOCALROW, &fail));
  PetscCall(CheckLocalRow(dm, U, alpha, beta, source, D, DMASSEMBLYSHAREDNZ, &fail));
  PetscCall(CheckLocalRow(dm, U, alpha, beta, source, D, DMASSEMBLYLOCALNZ, &fail));

  if (plex) { /* the P1 Laplacian against PETSc's own FEM Jacobian */
    DMAssembly               as;
    DMAssemblyElementKernels k;
    PetscDS                  ds;
    Mat                      Jp, Ja;
    Vec                      Xl;
    PetscReal                err;
    PetscMemType             mt;

    PetscCall(DMGetDS(dm, &ds));
    PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3_identity));
    PetscCall(DMSetMatType(dm, MATAIJ));
    PetscCall(DMCreateMatrix(dm, &Jp));
    PetscCall(DMGetLocalVector(dm, &Xl));
    PetscCall(VecZeroEntries(Xl));
    PetscCall(DMPlexSNESComputeJacobianFEM(dm, Xl, Jp, Jp, NULL));
    PetscCall(DMRestoreLocalVector(dm, &Xl));
    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 0.0, 0.0, NULL, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    {
      Vec Ux;
      PetscCall(CreateVecLike(U, mt, &Ux));
      PetscCall(VecZeroEntries(Ux));
      PetscCall(CreateTarget(dm, MATELLWARP, mt, &Ja));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, Ja));
      PetscCall(VecDestroy(&Ux));
    }
    PetscCall(RelErrMat(Ja, Jp, &err));
    if (err > 1e-12) {
      PetscReal na, np;
      PetscCall(MatNorm(Ja, NORM_FROBENIUS, &na));
      PetscCall(MatNorm(Jp, NORM_FROBENIUS, &np));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "norms: assembler %g, DMPlexSNESComputeJacobianFEM %g\n", (double)na, (double)np));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "P1 Laplacian vs DMPlexSNESComputeJacobianFEM: rel. error %.2e %s\n", (double)err, err <= 1e-12 ? "ok" : "FAIL"));
    if (err > 1e-12) fail = PETSC_TRUE;
    PetscCall(MatDestroy(&Jp));
    PetscCall(MatDestroy(&Ja));
    PetscCall(DMAssemblyDestroy(&as));
  }

  if (snes) { /* Newton through the assembler: linear problem (K + M) u = b, solved twice */
    DMAssembly               as;
    DMAssemblyElementKernels k;
    SNES                     s;
    Vec                      u, uref, b, zero;
    Mat                      A;
    PetscReal                err;
    PetscMemType             mt;
    DMAssemblyInfo           info;
    DM                       dms;

    dms = dm;
    PetscCall(DMAssemblyCreate(dms, &as));
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblyP1DiffusionMassKernels(as, alpha, beta, source, D, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCall(DMSetMatType(dms, MATELLWARP));
    if (mt == PETSC_MEMTYPE_DEVICE) PetscCall(DMSetVecType(dms, VECCUDA)); /* ELLWARP: cuda backend where a device is, else host */
    PetscCall(CreateSolver(as, PETSC_COMM_SELF, &s));
    PetscCall(SNESSetFromOptions(s));
    PetscCall(DMCreateGlobalVector(dms, &u));
    for (int rep = 0; rep < 2; rep++) {
      PetscCall(VecZeroEntries(u));
      PetscCall(SNESSolve(s, NULL, u));
    }
    PetscCall(DMSetVecType(dms, VECSTANDARD)); /* the reference below works on host vectors */
    /* reference: (K + M) uref = -F(0) with the reference assembly */
    PetscCall(VecDuplicate(U, &zero));
    PetscCall(VecZeroEntries(zero));
    PetscCall(MatDestroy(&Jref));
    PetscCall(VecDestroy(&Fref));
    PetscCall(ReferenceAssembly(dm, alpha, beta, source, D, zero, &A, &b));
    PetscCall(VecScale(b, -1.0));
    PetscCall(VecDuplicate(U, &uref));
    PetscCall(ReferenceSolve(A, b, uref));
    PetscCall(RelErrVec(u, uref, &err));
    PetscCall(DMAssemblyGetInfo(as, &info));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "SNES through the assembler (%s, %s vectors): solution rel. error %.2e %s; %" PetscInt_FMT " Jacobian plan(s) for %" PetscInt_FMT " assemblies %s\n", ((PetscObject)as)->type_name, mt == PETSC_MEMTYPE_HOST ? "host" : "device", (double)err, err < 1e-9 ? "ok" : "FAIL", info.njacplans, info.nreductions,
                          info.njacplans == 1 && info.nreductions >= 2 ? "ok" : "FAIL"));
    if (err >= 1e-9 || info.njacplans != 1 || info.nreductions < 2) fail = PETSC_TRUE;
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&uref));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&zero));
    PetscCall(MatDestroy(&A));
    PetscCall(SNESDestroy(&s));
    PetscCall(DMAssemblyDestroy(&as));
  }

  PetscCall(PetscFree(D));
  PetscCall(MatDestroy(&Jref));
  PetscCall(VecDestroy(&Fref));
  PetscCall(VecDestroy(&U));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&dm));
  PetscCheck(!fail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "assembly checks failed (see above)");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
