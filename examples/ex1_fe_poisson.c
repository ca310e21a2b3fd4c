static const char help[] = "P1 Poisson on a tetrahedral DMPlex mesh, Newton (SNES) with CG + Jacobi; the matrix type comes from\n"
                           "-dm_mat_type (ellwarp for the GPU).  Exact solution u = x^2 + y^2 + z^2, so the L2 error checks the solve.\n"
                           "Options: -n <cells per side> (mesh), -dm_mat_type ellwarp, -dm_vec_type cuda, -snes_monitor, -log_view.\n";

/* The project's smallest real example: an unmodified PETSc FE code that gets MATELLWARP through an
   option.  It is the README's run command until the cardiac demo lands. */
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpkuhn.h>

static PetscErrorCode exact(PetscInt dim, PetscReal time, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  *u = 0;
  for (PetscInt d = 0; d < dim; d++) *u += x[d] * x[d];
  return PETSC_SUCCESS;
}

static void f0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f[])
{
  f[0] = 2.0 * dim; /* -lap u = -2 dim, moved to the residual's left side */
}

static void f1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f[])
{
  for (PetscInt d = 0; d < dim; d++) f[d] = u_x[d];
}

static void g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g[])
{
  for (PetscInt d = 0; d < dim; d++) g[d * dim + d] = 1.0;
}

/* The unit cube in n^3 cells, each split into 6 tetrahedra around its main diagonal (Kuhn), so no mesh
   generator is needed; boundary faces carry label "marker" = 1. */
static PetscErrorCode CreateKuhnCube(MPI_Comm comm, DM *dm)
{
  PetscInt       n = 8, nv, nc, *cells = NULL;
  PetscReal     *coords = NULL;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  nv = rank ? 0 : (n + 1) * (n + 1) * (n + 1);
  nc = rank ? 0 : 6 * n * n * n;
  PetscCall(PetscMalloc2(4 * nc, &cells, 3 * nv, &coords));
  for (PetscInt v = 0; v < nv; v++) {
    coords[3 * v + 0] = (PetscReal)(v % (n + 1)) / n;
    coords[3 * v + 1] = (PetscReal)((v / (n + 1)) % (n + 1)) / n;
    coords[3 * v + 2] = (PetscReal)(v / ((n + 1) * (n + 1))) / n;
  }
  for (PetscInt c = 0, t = 0; c < (rank ? 0 : n * n * n); c++) {
    for (int s = 0; s < 6; s++, t++) {
      PetscReal e[3][3], det;
      EllwarpKuhnTet(n, c, s, &cells[4 * t]);
      for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) e[a][d] = coords[3 * cells[4 * t + a + 1] + d] - coords[3 * cells[4 * t] + d];
      det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
      if (det > 0) { /* DMPlex orders a tetrahedron so that its first face points inward: negative volume */
        PetscInt tmp     = cells[4 * t + 1];
        cells[4 * t + 1] = cells[4 * t + 2];
        cells[4 * t + 2] = tmp;
      }
    }
  }
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, 4, PETSC_TRUE, cells, 3, coords, dm));
  PetscCall(PetscFree2(cells, coords));
  PetscCall(DMCreateLabel(*dm, "marker"));
  {
    DMLabel label;
    PetscCall(DMGetLabel(*dm, "marker", &label));
    PetscCall(DMPlexMarkBoundaryFaces(*dm, 1, label));
    PetscCall(DMPlexLabelComplete(*dm, label));
  }
  {
    DM              pdm = NULL;
    PetscCall(DMPlexDistribute(*dm, 0, NULL, &pdm));
    if (pdm) {
      PetscCall(DMDestroy(dm));
      *dm = pdm;
    }
  }
  PetscCall(DMSetFromOptions(*dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             dm;
  SNES           snes;
  Vec            u;
  PetscFE        fe;
  PetscDS        ds;
  DMLabel        label;
  PetscInt       id = 1, its, kits, N;
  PetscReal      err;
  PetscLogDouble t0, t1;
  Mat            J;
  MatType        mtype;
  PetscErrorCode (*exacts[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {exact};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(CreateKuhnCube(PETSC_COMM_WORLD, &dm));
  PetscCall(DMViewFromOptions(dm, NULL, "-dm_view"));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetResidual(ds, 0, f0, f1));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3));
  PetscCall(PetscDSSetExactSolution(ds, 0, exact, NULL));
  PetscCall(DMGetLabel(dm, "marker", &label));
  PetscCall(DMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (PetscVoidFn *)exact, NULL, NULL, NULL));
  PetscCall(PetscFEDestroy(&fe));

  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, dm));
  PetscCall(DMPlexSetSNESLocalFEM(dm, PETSC_FALSE, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-ksp_type", "cg"));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_type", "jacobi"));
  PetscCall(PetscOptionsSetValue(NULL, "-ksp_rtol", "1e-10"));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecGetSize(u, &N));
  PetscCall(VecSet(u, 0.0));
  PetscCall(PetscTime(&t0));
  PetscCall(SNESSolve(snes, NULL, u));
  PetscCall(PetscTime(&t1));
  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetLinearSolveIterations(snes, &kits));
  PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
  PetscCall(MatGetType(J, &mtype));
  PetscCall(DMComputeL2Diff(dm, 0.0, exacts, NULL, u, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Poisson P1: %" PetscInt_FMT " unknowns, matrix %s, Newton its %" PetscInt_FMT ", CG its %" PetscInt_FMT ", solve %.3f s, L2 error %.3e\n", N, mtype, its, kits, t1 - t0, (double)err));
  PetscCall(MatViewFromOptions(J, NULL, "-jac_view"));
  PetscCall(VecDestroy(&u));
  PetscCall(SNESDestroy(&snes));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
