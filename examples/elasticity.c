static const char help[] = "The 3-D cantilever of Kiran, Sharma and Gautam (Table 2): 16 x 2 x 2 m, E = 200 GPa, nu = 0.333, fixed at x = 0,\n"
                           "a load P at the free end, on a DMPlex box of Q1 hexahedra (Table 3 meshes: -nx 192 -ny 24 -nz 24, 256 32 32,\n"
                           "400 50 50, 512 64 64).  The stiffness matrix is assembled by DMAssembly (default: kiran, auto: ownergeo, into ELLWARP\n"
                           "on the GPU), Dirichlet rows by MatZeroRowsColumns, solved by CG + GAMG with the rigid-body near-null space;\n"
                           "the tip deflection is compared with Euler-Bernoulli and Timoshenko beam theory.\n"
                           "Options: -nx -ny -nz (cells), -L -b -h (m), -mesh <file> (e.g. gmsh hexahedra, the beam from x = 0; the tip load shared\n"
                           "equally by the tip nodes), -E -nu, -P (N, total tip load, -z), -compare_petsc (PETSc's own\n"
                           "DMPlexSNESComputeJacobianFEM matrix and solve on the same mesh), -check <tol> (exit 1 when the relative\n"
                           "difference to PETSc's solve exceeds tol), -vtu <file>, -dm_assembly_type, -dm_assembly_kiran_strategy,\n"
                           "-dm_mat_type (ellwarp), -dm_vec_type (cuda where the assembler runs on the device), -view_assembler, -ksp_*, -pc_*.\n";

#include <petscdmplex.h>
#include <petscds.h>
#include <petscksp.h>
#include <petscsnes.h>
#include <petsctime.h>
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* y = x for vectors of the same layout whatever their types (a device vector into a host one) */
static PetscErrorCode CopyValues(Vec x, Vec y)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayWrite(y, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(y, &b));
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt  nx, ny, nz;
  PetscReal L, b, h, E, nu, P;
} Beam;

/* the clamped dofs (x = 0), the load vector (consistent nodal forces of a uniform traction -P/(b h) e_z on the tip
   face x = L) and the tip nodes' z-dofs */
static PetscErrorCode BoundaryData(DM dm, const Beam *bm, Vec B, PetscInt *nfix, PetscInt **fix, PetscInt *ntip, PetscInt **tip)
{
  PetscSection       gs, cs;
  Vec                cv;
  const PetscScalar *x;
  PetscInt           vStart, vEnd, nf = 0, nt = 0;
  const PetscReal    tolx = 1e-8 * bm->L;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cv));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscMalloc1(3 * (vEnd - vStart), fix));
  PetscCall(PetscMalloc1(vEnd - vStart, tip));
  PetscCall(VecZeroEntries(B));
  PetscCall(VecGetArrayRead(cv, &x));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt        off, coff;
    PetscReal       X, Y, Z;
    PetscCall(PetscSectionGetOffset(gs, v, &off));
    PetscCall(PetscSectionGetOffset(cs, v, &coff));
    X = PetscRealPart(x[coff]);
    Y = PetscRealPart(x[coff + 1]);
    Z = PetscRealPart(x[coff + 2]);
    if (X < tolx)
      for (PetscInt c = 0; c < 3; c++) (*fix)[nf++] = off + c;
    if (X > bm->L - tolx) {
      if (bm->nx) { /* the box: consistent nodal forces of the uniform traction */
        const PetscInt  j = (PetscInt)PetscFloorReal(Y / bm->b * bm->ny + 0.5), k = (PetscInt)PetscFloorReal(Z / bm->h * bm->nz + 0.5);
        const PetscReal wy = (j == 0 || j == bm->ny ? 0.5 : 1.0) / bm->ny, wz = (k == 0 || k == bm->nz ? 0.5 : 1.0) / bm->nz;
        PetscCall(VecSetValue(B, off + 2, -bm->P * wy * wz, INSERT_VALUES));
      }
      (*tip)[nt++] = off + 2;
    }
  }
  if (!bm->nx) /* a mesh from a file: P shared equally by the tip nodes */
    for (PetscInt i = 0; i < nt; i++) PetscCall(VecSetValue(B, (*tip)[i], -bm->P / nt, INSERT_VALUES));
  PetscCall(VecRestoreArrayRead(cv, &x));
  PetscCall(VecAssemblyBegin(B));
  PetscCall(VecAssemblyEnd(B));
  *nfix = nf;
  *ntip = nt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* clamp, near-null space, CG + GAMG; returns the mean tip deflection (z) and the iterations */
static PetscErrorCode Solve(DM dm, Mat J, Vec B, PetscInt nfix, const PetscInt *fix, PetscInt ntip, const PetscInt *tip, const char *prefix, Vec u, PetscReal *defl, PetscInt *its, PetscLogDouble *tsolve)
{
  KSP          ksp;
  MatNullSpace nsp;
  Vec          b, diag;
  PetscScalar  dmean;
  PetscInt     n;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(B, &b));
  PetscCall(VecCopy(B, b));
  PetscCall(MatCreateVecs(J, &diag, NULL));
  PetscCall(MatGetDiagonal(J, diag));
  PetscCall(VecSum(diag, &dmean));
  PetscCall(VecGetSize(diag, &n));
  dmean /= n; /* a diagonal of the matrix's scale for the clamped rows: no isolated eigenvalue far away */
  PetscCall(VecDestroy(&diag));
  PetscCall(VecZeroEntries(u));
  PetscCall(MatZeroRowsColumns(J, nfix, fix, dmean, u, b));
  PetscCall(DMPlexCreateRigidBody(dm, 0, &nsp));
  PetscCall(MatSetNearNullSpace(J, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)dm), &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, J, J));
  PetscCall(KSPSetType(ksp, KSPCG));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));
  *tsolve = t1 - t0;
  PetscCall(KSPGetIterationNumber(ksp, its));
  {
    KSPConvergedReason r;
    PetscCall(KSPGetConvergedReason(ksp, &r));
    PetscCheck(r > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "the %s solve did not converge (%s)", prefix, KSPConvergedReasons[r]);
  }
  {
    const PetscScalar *ua;
    PetscReal          s = 0;
    PetscCall(VecGetArrayRead(u, &ua));
    for (PetscInt i = 0; i < ntip; i++) s += PetscRealPart(ua[tip[i]]);
    PetscCall(VecRestoreArrayRead(u, &ua));
    *defl = -s / ntip;
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Beam                     bm = {32, 4, 4, 16.0, 2.0, 2.0, 200e9, 0.333, 1.0e6};
  DM                       dm;
  PetscFE                  fe;
  DMAssembly               as;
  DMAssemblyElementKernels k;
  PetscMemType             mt;
  Mat                      J;
  Vec                      B, u;
  PetscInt                 nfix, ntip, *fix, *tip, its, nelem;
  PetscReal                defl, check = -1, dEB, dT, Iy, area, Gs;
  PetscLogDouble           t0, t1, tsetup, tplan, tasm, tsolve;
  PetscBool                compare = PETSC_FALSE, failed = PETSC_FALSE, viewas = PETSC_FALSE;
  char                     vtu[PETSC_MAX_PATH_LEN] = "", mesh[PETSC_MAX_PATH_LEN] = "";
  const char              *atype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Cantilever (Kiran et al.)", NULL);
  PetscCall(PetscOptionsInt("-nx", "cells along the length", NULL, bm.nx, &bm.nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "cells across the breadth", NULL, bm.ny, &bm.ny, NULL));
  PetscCall(PetscOptionsInt("-nz", "cells across the height", NULL, bm.nz, &bm.nz, NULL));
  PetscCall(PetscOptionsReal("-L", "length (m)", NULL, bm.L, &bm.L, NULL));
  PetscCall(PetscOptionsReal("-b", "breadth (m)", NULL, bm.b, &bm.b, NULL));
  PetscCall(PetscOptionsReal("-h", "height (m)", NULL, bm.h, &bm.h, NULL));
  PetscCall(PetscOptionsReal("-E", "Young's modulus (Pa)", NULL, bm.E, &bm.E, NULL));
  PetscCall(PetscOptionsReal("-nu", "Poisson's ratio", NULL, bm.nu, &bm.nu, NULL));
  PetscCall(PetscOptionsReal("-P", "total tip load (N, -z)", NULL, bm.P, &bm.P, NULL));
  PetscCall(PetscOptionsBool("-compare_petsc", "also assemble and solve with PETSc's own FEM assembly", NULL, compare, &compare, NULL));
  PetscCall(PetscOptionsReal("-check", "fail when the deflection differs from PETSc's solve by more than this", NULL, check, &check, NULL));
  PetscCall(PetscOptionsString("-vtu", "write the displacement to this VTU file", NULL, vtu, vtu, sizeof(vtu), NULL));
  PetscCall(PetscOptionsBool("-view_assembler", "DMAssemblyView after the assemblies (colouring, index map, bytes per element)", NULL, viewas, &viewas, NULL));
  PetscCall(PetscOptionsString("-mesh", "read the beam's hexahedra from this file (gmsh, ...) instead of the box", NULL, mesh, mesh, sizeof(mesh), NULL));
  PetscOptionsEnd();
  if (check > 0) compare = PETSC_TRUE;

  PetscCall(PetscTime(&t0));
  if (mesh[0]) { /* e.g. a gmsh file of hexahedra: the beam from its bounding box, clamped at its x minimum (moved to 0) */
    PetscReal lo[3], hi[3];
    PetscCall(DMPlexCreateFromFile(PETSC_COMM_WORLD, mesh, "cantilever", PETSC_TRUE, &dm));
    PetscCall(DMGetBoundingBox(dm, lo, hi));
    PetscCheck(PetscAbsReal(lo[0]) < 1e-12 * (hi[0] - lo[0] + 1), PETSC_COMM_WORLD, PETSC_ERR_SUP, "-mesh: the beam must start at x = 0 (bounding box starts at %g)", (double)lo[0]);
    bm.L  = hi[0] - lo[0];
    bm.b  = hi[1] - lo[1];
    bm.h  = hi[2] - lo[2];
    bm.nx = bm.ny = bm.nz = 0;
  } else {
    const PetscInt  faces[3] = {bm.nx, bm.ny, bm.nz};
    const PetscReal lo[3] = {0, 0, 0}, hi[3] = {bm.L, bm.b, bm.h};
    PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_WORLD, 3, PETSC_FALSE, faces, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, &dm));
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_WORLD, 3, 3, PETSC_FALSE, 1, PETSC_DETERMINE, &fe));
  PetscCall(PetscObjectSetName((PetscObject)fe, "displacement"));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));

  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblySetType(as, DMASSEMBLYKIRAN));
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(DMAssemblyElasticityKernels(as, bm.E, bm.nu, NULL, NULL, &k));
  PetscCall(DMAssemblySetElementKernels(as, &k));
  PetscCall(DMAssemblySetUp(as));
  PetscCall(DMAssemblyGetMemType(as, &mt));
  PetscCall(DMAssemblyGetType(as, &atype));
  PetscCall(DMSetMatType(dm, MATELLWARP));
  if (mt == PETSC_MEMTYPE_DEVICE) PetscCall(DMSetVecType(dm, VECCUDA));
  {
    char      type[64];
    PetscBool flg;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_mat_type", type, sizeof(type), &flg));
    if (flg) PetscCall(DMSetMatType(dm, type));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", type, sizeof(type), &flg));
    if (flg) PetscCall(DMSetVecType(dm, type));
  }
  PetscCall(DMAssemblyCreateMatrix(as, &J));
  {
    PetscBool isell;
    PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSEQELLWARP, &isell));
    if (isell) PetscCall(MatEllwarpSetBackend(J, mt == PETSC_MEMTYPE_HOST ? MAT_ELLWARP_BACKEND_HOST : MAT_ELLWARP_BACKEND_CUDA));
  }
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "displacement"));
  PetscCall(PetscTime(&t0));
  PetscCall(DMAssemblyComputeJacobian(as, u, J)); /* the first: builds the index map */
  PetscCall(PetscTime(&t1));
  tplan = t1 - t0;
  PetscCall(PetscTime(&t0));
  PetscCall(DMAssemblyComputeJacobian(as, u, J));
#if defined(ELLWARP_HAVE_CUDA)
  if (mt == PETSC_MEMTYPE_DEVICE) PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCall(PetscTime(&t1));
  tasm = t1 - t0;
  {
    DMAssemblyInfo info;
    PetscCall(DMAssemblyGetInfo(as, &info));
    nelem = info.nelem;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cantilever %g x %g x %g m, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " hexahedra (%" PetscInt_FMT " elements, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros), E %g Pa, nu %g, P %g N\n", (double)bm.L, (double)bm.b, (double)bm.h, bm.nx, bm.ny, bm.nz, nelem, info.ndof, info.nnz, (double)bm.E, (double)bm.nu, (double)bm.P));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "assembly %s on the %s into %s: set-up %.3f s, first assembly (index map) %.4f s, assembly %.5f s; %" PetscInt_FMT " colours\n", atype, mt == PETSC_MEMTYPE_HOST ? "host" : "device", ((PetscObject)J)->type_name, tsetup, tplan, tasm, info.ncolors));
  }
  if (viewas) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(VecDuplicate(u, &B));
  PetscCall(BoundaryData(dm, &bm, B, &nfix, &fix, &ntip, &tip));
  PetscCall(Solve(dm, J, B, nfix, fix, ntip, tip, "", u, &defl, &its, &tsolve));
  Iy   = bm.b * bm.h * bm.h * bm.h / 12;
  area = bm.b * bm.h;
  Gs   = bm.E / (2 * (1 + bm.nu));
  dEB  = bm.P * bm.L * bm.L * bm.L / (3 * bm.E * Iy);
  dT   = dEB + bm.P * bm.L / (5.0 / 6.0 * Gs * area); /* Timoshenko: shear correction 5/6 */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG + GAMG: %" PetscInt_FMT " iterations, %.3f s; tip deflection %.6e m; Euler-Bernoulli %.6e m (ratio %.4f), Timoshenko %.6e m (ratio %.4f)\n", its, tsolve, (double)defl, (double)dEB, (double)(defl / dEB), (double)dT, (double)(defl / dT)));
  if (compare) { /* PETSc's own assembly and the same solve */
    PetscDS     ds;
    PetscScalar c[2];
    PetscReal   lam, mu, dref, err;
    Mat         Jp;
    Vec         up, Ul, uh, Bh;
    PetscInt    itsp;
    PetscLogDouble tp;
    lam  = bm.E * bm.nu / ((1 + bm.nu) * (1 - 2 * bm.nu));
    mu   = bm.E / (2 * (1 + bm.nu));
    c[0] = lam;
    c[1] = mu;
    PetscCall(DMGetDS(dm, &ds));
    PetscCall(PetscDSSetConstants(ds, 2, c));
    PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, DMAssemblyElasticityG3));
    PetscCall(DMSetMatType(dm, MATAIJ));
    PetscCall(DMSetVecType(dm, VECSTANDARD));
    PetscCall(DMCreateMatrix(dm, &Jp));
    PetscCall(DMCreateLocalVector(dm, &Ul));
    PetscCall(VecZeroEntries(Ul));
    PetscCall(PetscTime(&t0));
    PetscCall(DMPlexSNESComputeJacobianFEM(dm, Ul, Jp, Jp, NULL));
    PetscCall(PetscTime(&t1));
    PetscCall(VecDestroy(&Ul));
    PetscCall(DMCreateGlobalVector(dm, &up));
    PetscCall(DMCreateGlobalVector(dm, &Bh));
    PetscCall(CopyValues(B, Bh));
    PetscCall(Solve(dm, Jp, Bh, nfix, fix, ntip, tip, "ref_", up, &dref, &itsp, &tp));
    PetscCall(DMCreateGlobalVector(dm, &uh));
    PetscCall(CopyValues(u, uh));
    PetscCall(VecAXPY(uh, -1.0, up));
    {
      PetscReal nd, nr;
      PetscCall(VecNorm(uh, NORM_2, &nd));
      PetscCall(VecNorm(up, NORM_2, &nr));
      err = nd / nr;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc's DMPlexSNESComputeJacobianFEM (host, %.3f s) and the same solve (%" PetscInt_FMT " iterations): tip deflection %.6e m; displacement rel. difference %.2e\n", t1 - t0, itsp, (double)dref, (double)err));
    if (check > 0) {
      const PetscReal dd = PetscAbsReal(defl - dref) / PetscAbsReal(dref);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "check: tip deflection rel. difference to PETSc %.2e, displacement %.2e: %s\n", (double)dd, (double)err, dd <= check && err <= check ? "PASS" : "FAIL"));
      if (!(dd <= check && err <= check)) failed = PETSC_TRUE;
    }
    PetscCall(VecDestroy(&uh));
    PetscCall(VecDestroy(&up));
    PetscCall(VecDestroy(&Bh));
    PetscCall(MatDestroy(&Jp));
  }
  if (vtu[0]) {
    PetscViewer v;
    PetscCall(PetscViewerVTKOpen(PETSC_COMM_WORLD, vtu, FILE_MODE_WRITE, &v));
    PetscCall(VecView(u, v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscCall(PetscFree(fix));
  PetscCall(PetscFree(tip));
  PetscCall(VecDestroy(&B));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&J));
  PetscCall(DMAssemblyDestroy(&as));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
