/* DMAssembly on a distributed DMPlex (src/dm/assembly/dmasmmpi.c) against PETSc's own parallel assembly.

   The mesh is made on rank 0 and distributed with overlap 1 (DMPlexDistribute).  The reference assembles
   the same element data (the built-in P1 element: anisotropic per-element conductivity + mass + source,
   the conductivity a function of the ORIGINAL cell number, so every partition sees the same data) with
   PETSc's closure routines into MPIAIJ: DMPlexMatSetClosure / DMPlexVecSetClosure with ADD_VALUES over the
   cells each rank owns (the point SF's roots), PETSc moving off-rank entries by communication.  The
   assembler instead assembles each rank's owned rows from all its local cells, with no communication.
   Checks, for every method that runs distributed (host, globalnz, atomic unfused) into every target where
   it can run (host: MPIAIJ and MPIELLWARP host backend; -gpu: MPIAIJCUSPARSE and MPIELLWARP cuda backend):
   - relative error of J and F <= 1e-13;
   - globalnz and host: bitwise equal run to run (both blocks);
   - user kernels (element data given by callbacks, with an auxiliary vector) against the same reference;
   - with -snes: SNESSolve through DMAssemblySetSNES (MPIELLWARP) gives the same solution as the same solve
     on one process (rank 0 solves the undistributed mesh alone), gathered to the original vertex order;
     one Jacobian plan for all assemblies.
   Meshes: -mesh box (Kuhn tets, -faces n), tri (triangles). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscsf.h>
#include <petscellwarp/private/dmasmp1.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include <../src/mat/impls/aij/mpi/mpiaij.h>
#define ASSEMBLYTEST_MPI
#include "assemblytestutil.h"

/* ellwarp_add_test(assembly_mpi.np2 NPROCS 2 -mesh box -faces 4 -snes) */
/* ellwarp_add_test(assembly_mpi.np3 NPROCS 3 -mesh box -faces 5 -snes) */
/* ellwarp_add_test(assembly_mpi.tri_np3 NPROCS 3 -mesh tri -faces 9) */
/* ellwarp_add_test(assembly_mpi.np2_nz1 NPROCS 2 -mesh box -faces 3 -dm_assembly_tune index64=1,nz_per_thread=1) */
/* ellwarp_add_test(assembly_mpi.gpu_np2 NPROCS 2 -mesh box -faces 6 -snes -gpu GPU) */
/* ellwarp_add_test(assembly_mpi.gpu_np3 NPROCS 3 -mesh box -faces 6 -gpu GPU) */
/* ellwarp_add_test(assembly_mpi.overlap0 NPROCS 2 -mesh box -faces 3 -overlap 0 EXPECT_ERROR "must be distributed with overlap >= 1") */
/* ellwarp_add_test(assembly_mpi.localrow NPROCS 2 -mesh box -faces 2 -dm_assembly_type localrow EXPECT_ERROR "methods are globalnz, host and atomic") */

/* the whole mesh on comm's rank 0 (other ranks: empty), with a scalar P1 field */
static PetscErrorCode CreateMesh(MPI_Comm comm, const char *mesh, PetscInt faces, PetscInt *ntot, DM *dm)
{
  PetscBool   box, tri;
  PetscMPIInt rank;
  PetscInt    dim, nt, nv, *cells;
  PetscReal  *x;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrcmp(mesh, "box", &box));
  PetscCall(PetscStrcmp(mesh, "tri", &tri));
  PetscCheck(box || tri, comm, PETSC_ERR_ARG_WRONG, "-mesh box|tri");
  PetscCall(SimplexBoxCells(box, faces, &dim, &nv, &nt, &cells, &x));
  PetscCall(DMPlexCreateFromCellListPetsc(comm, dim, rank ? 0 : nt, rank ? 0 : nv, dim + 1, PETSC_TRUE, cells, dim, x, dm));
  PetscCall(PetscFree2(cells, x));
  *ntot = nt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AddP1(DM dm)
{
  PetscFE  fe;
  PetscInt dim;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* original point number of every local point of the distributed DM (the migration SF's roots all live on
   rank 0, where the mesh was made) */
static PetscErrorCode OriginalPoints(PetscSF sf, DM dmd, PetscInt **orig)
{
  PetscInt           nroots, nleaves, pStart, pEnd;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dmd, &pStart, &pEnd));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, &iremote));
  PetscCall(PetscMalloc1(pEnd, orig));
  for (PetscInt p = 0; p < pEnd; p++) (*orig)[p] = -1;
  for (PetscInt i = 0; i < nleaves; i++) {
    PetscCheck(iremote[i].rank == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "migration SF: a root off rank 0");
    (*orig)[ilocal ? ilocal[i] : i] = iremote[i].index;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks' host values up to date (device targets) before a conversion reads them */
static PetscErrorCode SyncHost(Mat A)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    const PetscScalar *v;
    Mat                X = k ? ((Mat_MPIAIJ *)A->data)->B : ((Mat_MPIAIJ *)A->data)->A;
    PetscCall(MatSeqAIJGetArrayRead(X, &v));
    PetscCall(MatSeqAIJRestoreArrayRead(X, &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelErrMat(Mat A, Mat Ref, PetscReal *err)
{
  Mat       Ac;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(SyncHost(A));
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &Ac));
  PetscCall(MatAXPY(Ac, -1.0, Ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Ac, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ref, NORM_FROBENIUS, &nr));
  *err = nd / (nr > 0 ? nr : 1);
  PetscCall(MatDestroy(&Ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bitwise equality on every rank of two matrices of the same pattern (both blocks, through MPIAIJ copies) */
static PetscErrorCode SameBits(Mat A, Mat B, PetscBool *same)
{
  Mat Ac, Bc;
  int s = 1;

  PetscFunctionBegin;
  PetscCall(SyncHost(A));
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &Ac));
  PetscCall(SyncHost(B));
  PetscCall(MatConvert(B, MATMPIAIJ, MAT_INITIAL_MATRIX, &Bc));
  for (int k = 0; k < 2; k++) {
    Mat                a = k ? ((Mat_MPIAIJ *)Ac->data)->B : ((Mat_MPIAIJ *)Ac->data)->A, b = k ? ((Mat_MPIAIJ *)Bc->data)->B : ((Mat_MPIAIJ *)Bc->data)->A;
    MatInfo            ia, ib;
    const PetscScalar *va, *vb;
    PetscCall(MatGetInfo(a, MAT_LOCAL, &ia));
    PetscCall(MatGetInfo(b, MAT_LOCAL, &ib));
    PetscCall(MatSeqAIJGetArrayRead(a, &va));
    PetscCall(MatSeqAIJGetArrayRead(b, &vb));
    if (ia.nz_used != ib.nz_used || memcmp(va, vb, sizeof(PetscScalar) * (size_t)ia.nz_used)) s = 0;
    PetscCall(MatSeqAIJRestoreArrayRead(a, &va));
    PetscCall(MatSeqAIJRestoreArrayRead(b, &vb));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)A)));
  *same = s ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateVecLike(Vec ref, PetscMemType mt, Vec *v)
{
  PetscInt n, N;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetSize(ref, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)ref), v));
  PetscCall(VecSetSizes(*v, n, N));
  PetscCall(VecSetType(*v, mt == PETSC_MEMTYPE_DEVICE ? VECCUDA : VECSTANDARD));
  PetscCall(CopyValues(ref, *v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* user kernels: the built-in element's math in a host loop, with the state in ae (auxiliary vector) and ue
   ignored -- checks the callback path and the auxiliary vector's ghost exchange */
typedef struct {
  PetscInt         dim;
  PetscReal        alpha, beta, source;
  const PetscReal *D; /* entry-major [dim*dim][nelem], local cells */
} UserCtx;

static PetscErrorCode UserElements(PetscMemType mt, PetscInt nelem, const PetscReal *xe, const PetscScalar *ae, PetscScalar *ke, PetscScalar *fe, UserCtx *c)
{
  PetscFunctionBegin;
  PetscCheck(mt == PETSC_MEMTYPE_HOST, PETSC_COMM_SELF, PETSC_ERR_SUP, "user kernels of this test: host only");
  PetscCheck(ae, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "no auxiliary values");
  for (PetscInt e = 0; e < nelem; e++) DMAsmP1Element((int)c->dim, e, nelem, c->alpha, c->beta, c->source, c->D, nelem, xe, ae, ke, fe);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode UserJac(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(UserElements(mt, nelem, xe, ae, ke, NULL, (UserCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode UserRes(PetscMemType mt, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(UserElements(mt, nelem, xe, ae, NULL, fe, (UserCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solves (K + M) u = source through DMAssemblySetSNES; u on return */
static PetscErrorCode SolveSNES(DM dm, PetscBool gpu, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, Vec *u, DMAssemblyInfo *info)
{
  DMAssembly               as;
  DMAssemblyElementKernels k;
  SNES                     s;

  PetscFunctionBegin;
  PetscCall(DMAssemblyCreate(dm, &as));
  /* the CPU solve stays on the host even where a GPU exists: host method, host ELLWARP backend, host vectors */
  if (!gpu) {
    PetscBool set;
    PetscCall(DMAssemblySetType(as, DMASSEMBLYHOST));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_ellwarp_backend", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
  }
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(DMAssemblyP1DiffusionMassKernels(as, alpha, beta, source, D, &k));
  PetscCall(DMAssemblySetElementKernels(as, &k));
  PetscCall(DMAssemblySetUp(as));
  PetscCall(DMSetMatType(dm, MATELLWARP));
  PetscCall(DMSetVecType(dm, gpu ? VECCUDA : VECSTANDARD));
  PetscCall(CreateSolver(as, PetscObjectComm((PetscObject)dm), &s));
  PetscCall(SNESSetFromOptions(s));
  PetscCall(DMCreateGlobalVector(dm, u));
  for (int rep = 0; rep < 2; rep++) {
    PetscCall(VecZeroEntries(*u));
    PetscCall(SNESSolve(s, NULL, *u));
  }
  PetscCall(DMAssemblyGetInfo(as, info));
  PetscCall(SNESDestroy(&s));
  PetscCall(DMAssemblyDestroy(&as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM           dm0, dm;
  PetscSF      sfmig;
  char         mesh[16] = "box";
  PetscInt     faces = 4, dim, ntot, cStart, cEnd, vStart, vEnd, *orig, overlap = 1, ovStart[2];
  PetscBool    gpu = PETSC_FALSE, snes = PETSC_FALSE, fail = PETSC_FALSE;
  PetscReal   *D, alpha = 1.3, beta = 0.7, source = 2.0, tol = 1e-13;
  Vec          U, Fref;
  Mat          Jref;
  PetscMPIInt  rank, size;
  const char  *methods[] = {DMASSEMBLYHOST, DMASSEMBLYGLOBALNZ, DMASSEMBLYATOMIC};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", mesh, sizeof(mesh), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-overlap", &overlap, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-snes", &snes));
  PetscCall(CreateMesh(PETSC_COMM_WORLD, mesh, faces, &ntot, &dm0));
  {
    PetscInt s[2];
    PetscCall(DMPlexGetHeightStratum(dm0, 0, &s[0], NULL));
    PetscCall(DMPlexGetDepthStratum(dm0, 0, &s[1], NULL));
    PetscCallMPI(MPI_Bcast(s, 2, MPIU_INT, 0, PETSC_COMM_WORLD)); /* original numbering: rank 0's */
    ovStart[0] = s[0];
    ovStart[1] = s[1];
  }
  PetscCall(DMPlexDistribute(dm0, overlap, &sfmig, &dm));
  PetscCheck(dm, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "run this test on more than one process");
  PetscCall(AddP1(dm));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(OriginalPoints(sfmig, dm, &orig));
  /* per local cell: the conductivity of its original cell */
  PetscCall(PetscMalloc1((size_t)dim * dim * (cEnd - cStart) + 1, &D));
  for (PetscInt c = cStart; c < cEnd; c++) Conductivity(dim, orig[c] - ovStart[0], D + (c - cStart) * dim * dim);
  {
    PetscInt loc[2] = {cEnd - cStart, vEnd - vStart}, mx[2];
    PetscCallMPI(MPIU_Allreduce(loc, mx, 2, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh %s: %" PetscInt_FMT " cells on %d processes, overlap %" PetscInt_FMT ": at most %" PetscInt_FMT " local cells, %" PetscInt_FMT " local vertices per rank\n", mesh, ntot, size, overlap, mx[0], mx[1]));
  }
  /* a state vector: a smooth function of the original vertex number */
  PetscCall(DMCreateGlobalVector(dm, &U));
  {
    PetscSection gs;
    PetscScalar *u;
    PetscInt     rs;
    PetscCall(DMGetGlobalSection(dm, &gs));
    PetscCall(VecGetOwnershipRange(U, &rs, NULL));
    PetscCall(VecGetArray(U, &u));
    for (PetscInt v = vStart; v < vEnd; v++) {
      PetscInt goff;
      PetscCall(PetscSectionGetOffset(gs, v, &goff));
      if (goff >= 0) u[goff - rs] = PetscSinReal(0.3 * (orig[v] - ovStart[1])) + 0.1;
    }
    PetscCall(VecRestoreArray(U, &u));
  }
  PetscCall(ReferenceAssembly(dm, alpha, beta, source, D, U, &Jref, &Fref));

  /* every method into every target where it runs */
  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    DMAssembly               as;
    DMAssemblyElementKernels k;
    PetscMemType             mt;
    const char              *targets[2];
    Vec                      Ux, F;

    if (gpu && !strcmp(methods[m], DMASSEMBLYHOST)) continue;
    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetFuse(as, PETSC_FALSE)); /* atomic: through the element buffers (fused: not distributed yet) */
    PetscCall(DMAssemblyP1DiffusionMassKernels(as, alpha, beta, source, D, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    if (m == 0 || (gpu && m == 1)) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_WORLD));
    targets[0] = mt == PETSC_MEMTYPE_DEVICE ? MATAIJCUSPARSE : MATAIJ;
    targets[1] = MATELLWARP;
    PetscCall(CreateVecLike(U, mt, &Ux));
    PetscCall(VecDuplicate(Ux, &F));
    for (int t = 0; t < 2; t++) {
      Mat       J, J2;
      PetscReal ej, ef;
      PetscBool same = PETSC_TRUE, nz = (PetscBool)strcmp(methods[m], DMASSEMBLYATOMIC);

      PetscCall(CreateTarget(dm, targets[t], mt, &J));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J));
      PetscCall(DMAssemblyComputeResidual(as, Ux, F));
      PetscCall(RelErrMat(J, Jref, &ej));
      PetscCall(RelErrVec(F, Fref, &ef));
      if (nz) { /* fixed order: a second assembly into a copy is bitwise equal */
        PetscCall(MatDuplicate(J, MAT_COPY_VALUES, &J2));
        PetscCall(DMAssemblyComputeJacobian(as, Ux, J));
        PetscCall(SameBits(J, J2, &same));
        PetscCall(MatDestroy(&J2));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s -> %-14s J rel. error %.2e, F rel. error %.2e%s %s\n", methods[m], ((PetscObject)J)->type_name, (double)ej, (double)ef, nz ? (same ? ", bitwise run to run" : ", NOT bitwise run to run") : "", ej <= tol && ef <= tol && same ? "ok" : "FAIL"));
      if (!(ej <= tol && ef <= tol && same)) fail = PETSC_TRUE;
      PetscCall(MatDestroy(&J));
    }
    PetscCall(VecDestroy(&F));
    PetscCall(VecDestroy(&Ux));
    PetscCall(DMAssemblyDestroy(&as));
  }

  if (!gpu) { /* user kernels reading the state from the auxiliary vector (ue is U = 0: the aux must be used) */
    DMAssembly               as;
    DMAssemblyElementKernels k;
    UserCtx                  uc = {dim, alpha, beta, source, NULL};
    Vec                      Z, F;
    Mat                      J;
    PetscReal                ej, ef, *Dem;
    const PetscInt           ne = cEnd - cStart;

    PetscCall(PetscMalloc1((size_t)dim * dim * ne + 1, &Dem));
    for (PetscInt e = 0; e < ne; e++)
      for (PetscInt i = 0; i < dim * dim; i++) Dem[i * ne + e] = D[e * dim * dim + i];
    uc.D = Dem;

    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, DMASSEMBLYHOST));
    k.nen      = dim + 1;
    k.jacobian = UserJac;
    k.residual = UserRes;
    k.ctx      = &uc;
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetAuxiliaryVec(as, U));
    PetscCall(VecDuplicate(U, &Z));
    PetscCall(VecZeroEntries(Z));
    PetscCall(VecDuplicate(U, &F));
    PetscCall(CreateTarget(dm, MATELLWARP, PETSC_MEMTYPE_HOST, &J));
    PetscCall(DMAssemblyComputeJacobian(as, Z, J));
    PetscCall(DMAssemblyComputeResidual(as, Z, F));
    PetscCall(RelErrMat(J, Jref, &ej));
    PetscCall(RelErrVec(F, Fref, &ef));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "user kernels + auxiliary vector -> %s: J rel. error %.2e, F rel. error %.2e %s\n", ((PetscObject)J)->type_name, (double)ej, (double)ef, ej <= tol && ef <= tol ? "ok" : "FAIL"));
    if (!(ej <= tol && ef <= tol)) fail = PETSC_TRUE;
    PetscCall(MatDestroy(&J));
    PetscCall(VecDestroy(&Z));
    PetscCall(VecDestroy(&F));
    PetscCall(PetscFree(Dem));
    PetscCall(DMAssemblyDestroy(&as));
  }

  if (snes) { /* the same solve on one process (rank 0 alone, the undistributed mesh) and distributed */
    Vec            u, useq = NULL;
    DMAssemblyInfo info;
    PetscReal      err = 0, nref = 0;
    PetscScalar   *nat = NULL;

    PetscCall(SolveSNES(dm, gpu, alpha, beta, source, D, &u, &info));
    if (rank == 0) {
      DM             ds;
      PetscReal     *Ds;
      PetscInt       n0, cs, ce;
      DMAssemblyInfo i0;
      PetscCall(CreateMesh(PETSC_COMM_SELF, mesh, faces, &n0, &ds));
      PetscCall(AddP1(ds));
      PetscCall(DMPlexGetHeightStratum(ds, 0, &cs, &ce));
      PetscCall(PetscMalloc1((size_t)dim * dim * (ce - cs), &Ds));
      for (PetscInt c = cs; c < ce; c++) Conductivity(dim, c - cs, Ds + (c - cs) * dim * dim);
      PetscCall(SolveSNES(ds, gpu, alpha, beta, source, Ds, &useq, &i0));
      PetscCall(PetscFree(Ds));
      PetscCall(DMDestroy(&ds));
    }
    { /* the distributed solution in the original vertex order on rank 0 (one process: dof = vertex number) */
      PetscSF            g;
      PetscSFNode       *rem;
      PetscInt          *loc, n = 0, rs, nv = 0;
      PetscSection       gs;
      const PetscScalar *uu;

      if (rank == 0) PetscCall(VecGetSize(useq, &nv));
      PetscCall(DMGetGlobalSection(dm, &gs));
      PetscCall(VecGetOwnershipRange(u, &rs, NULL));
      PetscCall(PetscMalloc2(vEnd - vStart, &rem, vEnd - vStart, &loc));
      for (PetscInt v = vStart; v < vEnd; v++) {
        PetscInt goff;
        PetscCall(PetscSectionGetOffset(gs, v, &goff));
        if (goff < 0) continue;
        loc[n]         = goff - rs;
        rem[n].rank    = 0;
        rem[n++].index = orig[v] - ovStart[1];
      }
      PetscCall(PetscSFCreate(PETSC_COMM_WORLD, &g));
      PetscCall(PetscSFSetGraph(g, nv, n, loc, PETSC_COPY_VALUES, rem, PETSC_COPY_VALUES));
      PetscCall(PetscCalloc1(nv + 1, &nat));
      PetscCall(VecGetArrayRead(u, &uu));
      PetscCall(PetscSFReduceBegin(g, MPIU_SCALAR, uu, nat, MPI_REPLACE));
      PetscCall(PetscSFReduceEnd(g, MPIU_SCALAR, uu, nat, MPI_REPLACE));
      PetscCall(VecRestoreArrayRead(u, &uu));
      PetscCall(PetscSFDestroy(&g));
      PetscCall(PetscFree2(rem, loc));
      if (rank == 0) {
        const PetscScalar *s;
        PetscCall(VecGetArrayRead(useq, &s));
        for (PetscInt i = 0; i < nv; i++) {
          err += PetscSqr(PetscAbsScalar(nat[i] - s[i]));
          nref += PetscSqr(PetscAbsScalar(s[i]));
        }
        PetscCall(VecRestoreArrayRead(useq, &s));
        err = PetscSqrtReal(err / (nref > 0 ? nref : 1));
      }
      PetscCallMPI(MPI_Bcast(&err, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SNES through the assembler (%s vectors, mpiaijellwarp): distributed solution vs one process rel. error %.2e %s; %" PetscInt_FMT " Jacobian plan(s) for %" PetscInt_FMT " assemblies %s\n", gpu ? "device" : "host", (double)err, err < 1e-9 ? "ok" : "FAIL", info.njacplans, info.nreductions, info.njacplans == 1 && info.nreductions >= 2 ? "ok" : "FAIL"));
    if (err >= 1e-9 || info.njacplans != 1 || info.nreductions < 2) fail = PETSC_TRUE;
    PetscCall(PetscFree(nat));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&useq));
  }

  PetscCall(PetscFree(orig));
  PetscCall(PetscFree(D));
  PetscCall(MatDestroy(&Jref));
  PetscCall(VecDestroy(&Fref));
  PetscCall(VecDestroy(&U));
  PetscCall(PetscSFDestroy(&sfmig));
  PetscCall(DMDestroy(&dm));
  PetscCall(DMDestroy(&dm0));
  PetscCheck(!fail, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "distributed assembly checks failed (see above)");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
