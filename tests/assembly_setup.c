/* The assembler's set-up against independent references, and the device set-up against the host one.

   On a P1 box mesh (Kuhn tetrahedra; -uninterpolated: the cells on their vertices, the case the cone fast path
   of the element map serves), with the built-in P1 kernels:
   1. the element map (DMAssemblyGetElementDofs) against each cell's closure through DMPlexGetTransitiveClosure and
      the global section (PETSc's own traversal);
   2. DMAssemblyCreateMatrix's pattern against DMCreateMatrix's (row by row, MatGetRowIJ);
   3. the Jacobian and residual assembled into DMAssemblyCreateMatrix's matrix against PETSc's closure assembly
      (DMPlexMatSetClosure into AIJ, relative 1e-12), and the Jacobian into DMCreateMatrix's ELLWARP matrix against
      the one into ours (the same plan order: bitwise);
   4. where the assembler runs on the device: a second assembler with -hs_dm_assembly_setup_on_host (pattern and
      plans from the host builders, dmasmplan.c, the reference of dmasmsetupcuda.cu) must give the same pattern
      (pi, pj, e2nz) and the same packed residual and Jacobian plans, entry for entry (the device plans downloaded).
   Without a device, part 4 says it is skipped; the GPU variants require it to run (-gpu). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscellwarp/private/dmasmp1.h>
#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/ellwarpdevice.h>
#include "testutil.h"
#include "assemblytestutil.h"

/* ellwarp_add_test(assembly_setup.cpu -faces 4) */
/* ellwarp_add_test(assembly_setup.cpu_uninterpolated -faces 4 -uninterpolated) */
/* 24 576 tets: the uninterpolated element map on two host threads (PetscEllwarpThreadsRun, 16 384 elements a thread) */
/* ellwarp_add_test(assembly_setup.cpu_uninterpolated_threads -faces 16 -uninterpolated) */
/* ellwarp_add_test(assembly_setup.gpu -faces 6 -gpu GPU) */
/* ellwarp_add_test(assembly_setup.gpu_uninterpolated -faces 7 -uninterpolated -gpu GPU) */
/* ellwarp_add_test(assembly_setup.gpu_64bit -faces 5 -gpu -dm_assembly_tune index64=1 -hs_dm_assembly_tune index64=1 GPU) */

static PetscInt nfail = 0;

static PetscErrorCode Report(PetscBool ok, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-72s %s\n", what, ok ? "ok" : "FAIL"));
  if (!ok) nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1. the element map against the closure */
static PetscErrorCode CheckElementMap(DM dm, DMAssembly as)
{
  PetscInt        nelem, nen, cStart, cEnd, vStart, vEnd, bad = 0;
  const PetscInt *edof;
  PetscSection    gs;

  PetscFunctionBegin;
  PetscCall(DMAssemblyGetElementDofs(as, &nelem, &nen, &edof));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCheck(nelem == cEnd - cStart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element count");
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt ncl, *cl = NULL, a = 0;
    PetscCall(DMPlexGetTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++) {
      const PetscInt p = cl[2 * i];
      PetscInt       off;
      if (p < vStart || p >= vEnd) continue;
      PetscCall(PetscSectionGetOffset(gs, p, &off));
      if (a >= nen || edof[(PetscCount)a * nelem + e] != off) bad++;
      a++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart + e, PETSC_TRUE, &ncl, &cl));
  }
  PetscCall(Report((PetscBool)!bad, "element map = DMPlexGetTransitiveClosure + global section"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2. the patterns of two matrices, row by row */
static PetscErrorCode SamePattern(Mat A, Mat B, PetscBool *same)
{
  const PetscInt *ia, *ja, *ib, *jb;
  PetscInt        na, nb;
  PetscBool       da, db;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &na, &ia, &ja, &da));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &db));
  *same = (PetscBool)(da && db && na == nb);
  if (*same) *same = (PetscBool)(ia[na] == ib[nb]);
  if (*same) PetscCall(PetscArraycmp(ia, ib, na + 1, same));
  if (*same) PetscCall(PetscArraycmp(ja, jb, ia[na], same));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &na, &ia, &ja, &da));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &db));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* two matrices' values, bit for bit, through AIJ copies (their host values brought up to date) */
static PetscErrorCode SameBitsAsAIJ(Mat J1, Mat J2, PetscBool *same)
{
  Mat A, B;

  PetscFunctionBegin;
  PetscCall(MatConvert(J1, MATAIJ, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(J2, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(SameBits(A, B, same));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(ELLWARP_HAVE_CUDA)
/* a packed plan built on the device (device arrays only) against one built on the host */
static PetscErrorCode SamePlan(const DMAsmPlan *D, const DMAsmPlan *H, PetscBool *same)
{
  PetscFunctionBegin;
  *same = (PetscBool)(D->ntarget == H->ntarget && D->nsrc == H->nsrc && D->C == H->C && D->nblocks == H->nblocks && D->idx64 == H->idx64 && D->dpacked && H->blkptr && D->blkptr);
  if (*same) PetscCall(PetscArraycmp(D->blkptr, H->blkptr, H->nblocks + 1, same));
  if (*same) {
    const PetscCount n  = H->blkptr[H->nblocks];
    const size_t     es = H->idx64 ? sizeof(PetscInt64) : sizeof(int);
    char            *buf;
    PetscInt        *e2t;
    PetscCall(PetscMalloc1(es * (size_t)n + 1, &buf));
    PetscCall(PetscEllwarpDeviceDownload(buf, D->dpacked, es * (size_t)n));
    *same = (PetscBool)!memcmp(buf, H->idx64 ? (const void *)H->p64 : (const void *)H->p32, es * (size_t)n);
    PetscCall(PetscFree(buf));
    PetscCall(PetscMalloc1(H->nsrc, &e2t));
    PetscCall(PetscEllwarpDeviceDownload(e2t, D->de2t, sizeof(PetscInt) * (size_t)H->nsrc));
    if (*same) PetscCall(PetscArraycmp(e2t, H->e2t, H->nsrc, same));
    PetscCall(PetscFree(e2t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  DM                       dm;
  PetscInt                 faces = 4, dim, nv, nt, *cells;
  PetscReal               *x, err;
  PetscBool                gpu = PETSC_FALSE, uninterp = PETSC_FALSE, same;
  PetscMemType             mt;
  DMAssemblyElementKernels k;
  DMAssembly               as;
  Mat                      J, Jdm, Jref;
  Vec                      U, F, Fref;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-uninterpolated", &uninterp, NULL));
  PetscCall(SimplexBoxCells(PETSC_TRUE, faces, &dim, &nv, &nt, &cells, &x));
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, dim, nt, nv, dim + 1, (PetscBool)!uninterp, cells, dim, x, &dm));
  PetscCall(PetscFree2(cells, x));
  {
    PetscFE fe;
    PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
    PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(dm));
    PetscCall(PetscFEDestroy(&fe));
  }
  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(DMAssemblyGetMemType(as, &mt)); /* a device method needs device vectors */
  if (mt == PETSC_MEMTYPE_DEVICE) PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMCreateGlobalVector(dm, &U));
  {
    PetscRandom r;
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &r));
    PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
    PetscCall(VecSetRandom(U, r));
    PetscCall(PetscRandomDestroy(&r));
  }
  PetscCall(ReferenceAssembly(dm, 1.0, 0.5, 0.25, NULL, U, &Jref, &Fref));
  PetscCall(DMSetMatType(dm, MATELLWARP)); /* after the AIJ reference */

  PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 0.5, 0.25, NULL, &k));
  PetscCall(DMAssemblySetElementKernels(as, &k));
  PetscCall(DMAssemblySetUp(as));
  PetscCall(DMAssemblyGetMemType(as, &mt));
  PetscCheck(!gpu || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: the assembler does not run on the device");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "P1, %" PetscInt_FMT " tetrahedra, %" PetscInt_FMT " dofs, %s mesh, assembler on the %s, set-up on the %s\n", nt, nv, uninterp ? "uninterpolated" : "interpolated", mt == PETSC_MEMTYPE_HOST ? "host" : "device", DMAsmSetUpOnDevice(as) ? "device" : "host"));

  PetscCall(CheckElementMap(dm, as));

  PetscCall(DMAssemblyCreateMatrix(as, &J));
  PetscCall(DMCreateMatrix(dm, &Jdm));
  {
    MatType t;
    PetscCall(MatGetType(J, &t));
    PetscCall(PetscStrcmp(t, "seqaijellwarp", &same));
    PetscCall(Report(same, "DMAssemblyCreateMatrix: the DM's matrix type (seqaijellwarp)"));
  }
  PetscCall(SamePattern(J, Jdm, &same));
  PetscCall(Report(same, "DMAssemblyCreateMatrix pattern = DMCreateMatrix pattern"));
  if (mt == PETSC_MEMTYPE_HOST) {
    PetscCall(MatEllwarpSetBackend(J, MAT_ELLWARP_BACKEND_HOST));
    PetscCall(MatEllwarpSetBackend(Jdm, MAT_ELLWARP_BACKEND_HOST));
  }
  PetscCall(DMAssemblyComputeJacobian(as, U, J));
  PetscCall(DMAssemblyComputeJacobian(as, U, Jdm));
  PetscCall(RelErrMat(J, Jref, &err));
  {
    char line[128];
    PetscCall(PetscSNPrintf(line, sizeof(line), "Jacobian into it = PETSc's closure assembly (rel. %.1e)", (double)err));
    PetscCall(Report((PetscBool)(err < 1e-12), line));
  }
  PetscCall(SameBitsAsAIJ(J, Jdm, &same));
  PetscCall(Report(same, "Jacobian into it = Jacobian into DMCreateMatrix's (bitwise)"));
  PetscCall(VecDuplicate(U, &F));
  PetscCall(DMAssemblyComputeResidual(as, U, F));
  PetscCall(VecAXPY(F, -1.0, Fref));
  PetscCall(VecNorm(F, NORM_2, &err));
  {
    PetscReal nr;
    char      line[128];
    PetscCall(VecNorm(Fref, NORM_2, &nr));
    err /= nr;
    PetscCall(PetscSNPrintf(line, sizeof(line), "residual = PETSc's closure assembly (rel. %.1e)", (double)err));
    PetscCall(Report((PetscBool)(err < 1e-12), line));
  }

  if (DMAsmSetUpOnDevice(as)) {
#if defined(ELLWARP_HAVE_CUDA)
    DMAssembly h;
    Mat        Jh;
    PetscCall(DMAssemblyCreate(dm, &h));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)h, "hs_"));
    PetscCall(PetscOptionsSetValue(NULL, "-hs_dm_assembly_setup_on_host", "1"));
    PetscCall(DMAssemblySetFromOptions(h));
    PetscCall(DMAssemblyP1DiffusionMassKernels(h, 1.0, 0.5, 0.25, NULL, &k));
    PetscCall(DMAssemblySetElementKernels(h, &k));
    PetscCall(DMAssemblySetUp(h));
    PetscCheck(!DMAsmSetUpOnDevice(h), PETSC_COMM_SELF, PETSC_ERR_PLIB, "-hs_dm_assembly_setup_on_host was not applied");
    same = (PetscBool)(as->nnz == h->nnz);
    if (same) PetscCall(PetscArraycmp(as->pi, h->pi, as->ndof + 1, &same));
    if (same) PetscCall(PetscArraycmp(as->pj, h->pj, as->nnz, &same));
    if (same) PetscCall(PetscArraycmp(as->e2nz, h->e2nz, (PetscCount)as->nen * as->nen * as->nelem, &same));
    PetscCall(Report(same, "device pattern (pi, pj, e2nz) = host pattern"));
    PetscCall(SamePlan(&as->res, &h->res, &same));
    PetscCall(Report(same, "device residual plan = host residual plan (packed entries, blocks, e2t)"));
    PetscCall(DMAssemblyCreateMatrix(h, &Jh));
    PetscCall(DMAssemblyComputeJacobian(h, U, Jh));
    PetscCall(SamePlan(&as->jac, &h->jac, &same));
    PetscCall(Report(same, "device Jacobian plan = host Jacobian plan (packed entries, blocks, e2t)"));
    PetscCall(SameBitsAsAIJ(J, Jh, &same));
    PetscCall(Report(same, "Jacobian, device set-up = host set-up (bitwise)"));
    PetscCall(MatDestroy(&Jh));
    PetscCall(DMAssemblyDestroy(&h));
#endif
  } else {
    PetscCheck(!gpu, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: the set-up did not run on the device");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device set-up against the host set-up: skipped (the assembler runs on the host)\n"));
  }
  PetscCheck(!nfail, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " check(s) failed", nfail);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&Fref));
  PetscCall(VecDestroy(&U));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&Jdm));
  PetscCall(MatDestroy(&Jref));
  PetscCall(DMAssemblyDestroy(&as));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
