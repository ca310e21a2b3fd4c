/* Helpers shared by the DMAssembly tests (assembly.c, assembly_ho.c, assembly_mpi.c; not part of the library).
   ReferenceAssembly (P1) is there when <petscellwarp/private/dmasmp1.h> was included first.
   The sequential tests also get RelErrMat, SameBits, SameBitsVec and CreateVecLike; assembly_mpi.c defines
   ASSEMBLYTEST_MPI before the include and has its own (MPIAIJ copies, ghosted layouts). */
#pragma once
#include <string.h>
#include <petscellwarp.h>
#include <petscdmplex.h>
#include <petscsf.h>
#include <petscsnes.h>
#include <petscellwarpassembly.h>
#include <petscellwarp/private/ellwarpkuhn.h>

/* PETSc's FE integration uses the signed cell volume: orient every simplex as DMPlex expects (triangles
   counter-clockwise; tetrahedra with the first face's normal pointing inward, i.e. negative signed volume
   in the vertex order given) */
static inline void OrientCells(PetscInt dim, PetscInt nt, PetscInt *cells, const PetscReal *x)
{
  for (PetscInt c = 0; c < nt; c++) {
    PetscInt *v = cells + c * (dim + 1);
    PetscReal J[3][3], det;
    for (PetscInt j = 0; j < dim; j++)
      for (PetscInt i = 0; i < dim; i++) J[i][j] = x[v[j + 1] * dim + i] - x[v[0] * dim + i];
    det = dim == 2 ? J[0][0] * J[1][1] - J[0][1] * J[1][0] : J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) + J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (dim == 2 ? det < 0 : det > 0) {
      PetscInt t = v[1];
      v[1]       = v[2];
      v[2]       = t;
    }
  }
}

/* the cells (oriented, PetscMalloc2(cells, x)) of the tests' meshes: box, Kuhn tetrahedra of an N^3 grid
   (no mesh generator needed) of a stretched box; else N x (N+1) squares, two triangles each, the vertices
   slightly perturbed */
static inline PetscErrorCode SimplexBoxCells(PetscBool box, PetscInt faces, PetscInt *dim, PetscInt *nv, PetscInt *nt, PetscInt **cells, PetscReal **x)
{
  const PetscInt N = faces;

  PetscFunctionBegin;
  if (box) {
    *dim = 3;
    *nv  = (N + 1) * (N + 1) * (N + 1);
    *nt  = 6 * N * N * N;
    PetscCall(PetscMalloc2(4 * *nt, cells, 3 * *nv, x));
    for (PetscInt c = 0; c < N * N * N; c++)
      for (int t = 0; t < 6; t++) EllwarpKuhnTet(N, c, t, *cells + 4 * (6 * c + t));
    for (PetscInt v = 0; v < *nv; v++) {
      (*x)[3 * v + 0] = (PetscReal)(v % (N + 1)) / N;
      (*x)[3 * v + 1] = 1.5 * (PetscReal)((v / (N + 1)) % (N + 1)) / N;
      (*x)[3 * v + 2] = 0.8 * (PetscReal)(v / ((N + 1) * (N + 1))) / N;
    }
  } else {
    const PetscInt M = faces + 1;
    PetscInt      *cl;
    *dim = 2;
    *nv  = (N + 1) * (M + 1);
    *nt  = 2 * N * M;
    PetscCall(PetscMalloc2(3 * *nt, cells, 2 * *nv, x));
    cl = *cells;
    for (PetscInt j = 0; j < M; j++)
      for (PetscInt i = 0; i < N; i++) {
        const PetscInt v0 = i + (N + 1) * j, c = 2 * (i + N * j);
        cl[3 * c + 0]       = v0;
        cl[3 * c + 1]       = v0 + 1;
        cl[3 * c + 2]       = v0 + N + 2;
        cl[3 * (c + 1) + 0] = v0;
        cl[3 * (c + 1) + 1] = v0 + N + 2;
        cl[3 * (c + 1) + 2] = v0 + N + 1;
      }
    for (PetscInt v = 0; v < *nv; v++) {
      (*x)[2 * v + 0] = (PetscReal)(v % (N + 1)) / N + 0.01 * (v % 3);
      (*x)[2 * v + 1] = 1.5 * (PetscReal)(v / (N + 1)) / M;
    }
  }
  OrientCells(*dim, *nt, *cells, *x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a reference solve: CG + Jacobi, tight tolerances */
static inline PetscErrorCode ReferenceSolve(Mat A, Vec b, Vec x)
{
  KSP kr;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &kr));
  PetscCall(KSPSetOperators(kr, A, A));
  PetscCall(KSPSetType(kr, KSPCG));
  PetscCall(KSPGetPC(kr, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(kr, 1e-13, 1e-30, PETSC_DETERMINE, 10000));
  PetscCall(KSPSolve(kr, b, x));
  PetscCall(KSPDestroy(&kr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the SPD conductivity of (original) cell e: R diag(1, 0.3, 2) R^T, a pseudo-random rotation */
static inline void Conductivity(PetscInt dim, PetscInt e, PetscReal *De)
{
  PetscReal a = 0.37 * e + 0.1, b = 0.71 * e + 0.3, lam[3] = {1.0, 0.3, 2.0}, R[3][3];
  if (dim == 2) {
    R[0][0] = PetscCosReal(a);
    R[0][1] = -PetscSinReal(a);
    R[1][0] = PetscSinReal(a);
    R[1][1] = PetscCosReal(a);
  } else { /* rotation about z by a, then about x by b */
    PetscReal ca = PetscCosReal(a), sa = PetscSinReal(a), cb = PetscCosReal(b), sb = PetscSinReal(b);
    R[0][0] = ca;
    R[0][1] = -sa;
    R[0][2] = 0;
    R[1][0] = cb * sa;
    R[1][1] = cb * ca;
    R[1][2] = -sb;
    R[2][0] = sb * sa;
    R[2][1] = sb * ca;
    R[2][2] = cb;
  }
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) {
      De[i * dim + j] = 0;
      for (PetscInt k = 0; k < dim; k++) De[i * dim + j] += R[i][k] * lam[k] * R[j][k];
    }
}

/* copy values between vectors of the same (local) layout, whatever their types (host or device) */
static inline PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &a));
  PetscCall(VecGetArrayWrite(dst, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayRead(src, &a));
  PetscCall(VecRestoreArrayWrite(dst, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode RelErrVec(Vec a, Vec ref, PetscReal *err)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ref, &d));
  PetscCall(CopyValues(a, d));
  PetscCall(VecAXPY(d, -1.0, ref));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(ref, NORM_2, &nr));
  *err = nd / (nr > 0 ? nr : 1);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a matrix of the DM's pattern, of the given type, its values where the method runs */
static inline PetscErrorCode CreateTarget(DM dm, const char *type, PetscMemType mt, Mat *J)
{
  PetscBool isell;

  PetscFunctionBegin;
  PetscCall(DMSetMatType(dm, type));
  PetscCall(DMCreateMatrix(dm, J));
  PetscCall(PetscStrcmp(type, MATELLWARP, &isell));
  if (isell) PetscCall(MatEllwarpSetBackend(*J, mt == PETSC_MEMTYPE_HOST ? MAT_ELLWARP_BACKEND_HOST : MAT_ELLWARP_BACKEND_CUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the SNES of the solve tests, its function and Jacobian from the assembler: CG + Jacobi, tight tolerances */
static inline PetscErrorCode CreateSolver(DMAssembly as, MPI_Comm comm, SNES *s)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(SNESCreate(comm, s));
  PetscCall(DMAssemblySetSNES(as, *s));
  PetscCall(SNESGetKSP(*s, &ksp));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-30, PETSC_DETERMINE, 10000));
  PetscCall(SNESSetTolerances(*s, 1e-30, 1e-10, 1e-30, 10, 1000));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(DMASM_HD) /* the file included <petscellwarp/private/dmasmp1.h> */
/* PETSc's own closure assembly (DMPlexMatSetClosure, DMPlexVecSetClosure) of the P1 element data: J (AIJ, the
   DM's pattern) and F at U (global).  D: the cells' conductivities, entry-major [dim*dim] per local cell (NULL:
   the identity); cells that are leaves of the point SF (another rank's, in the overlap) are skipped. */
static inline PetscErrorCode ReferenceAssembly(DM dm, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, Vec U, Mat *J, Vec *F)
{
  PetscInt        dim, cStart, cEnd, nen, nleaves;
  const PetscInt *ilocal;
  PetscBool      *ghost;
  PetscSF         psf;
  DM              cdm;
  Vec             cl, Ul, Fl;
  PetscScalar    *xc = NULL, *uc = NULL, ke[16], fe[4];
  PetscReal       xe[12], De[9];

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  nen = dim + 1;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetPointSF(dm, &psf));
  PetscCall(PetscSFGetGraph(psf, NULL, &nleaves, &ilocal, NULL));
  PetscCall(PetscCalloc1(cEnd, &ghost));
  for (PetscInt i = 0; i < nleaves; i++) {
    const PetscInt p = ilocal ? ilocal[i] : i;
    if (p >= cStart && p < cEnd) ghost[p] = PETSC_TRUE;
  }
  PetscCall(DMSetMatType(dm, MATAIJ));
  PetscCall(DMCreateMatrix(dm, J));
  PetscCall(MatZeroEntries(*J));
  PetscCall(DMCreateGlobalVector(dm, F));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMGetLocalVector(dm, &Ul));
  PetscCall(DMGetLocalVector(dm, &Fl));
  PetscCall(VecZeroEntries(Fl));
  PetscCall(DMGlobalToLocal(dm, U, INSERT_VALUES, Ul));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt nx, nu;
    if (ghost[c]) continue;
    PetscCall(DMPlexVecGetClosure(cdm, NULL, cl, c, &nx, &xc));
    PetscCall(DMPlexVecGetClosure(dm, NULL, Ul, c, &nu, &uc));
    PetscCheck(nx == nen * dim && nu == nen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "closure sizes");
    for (PetscInt a = 0; a < nen * dim; a++) xe[a] = PetscRealPart(xc[a]); /* = layout [(a*dim+d)*1 + 0] */
    for (PetscInt i = 0; i < dim * dim; i++) De[i] = D ? D[(c - cStart) * dim * dim + i] : (PetscReal)(i % (dim + 1) == 0);
    DMAsmP1Element((int)dim, 0, 1, alpha, beta, source, De, 1, xe, uc, ke, fe);
    PetscCall(DMPlexMatSetClosure(dm, NULL, NULL, *J, c, ke, ADD_VALUES));
    PetscCall(DMPlexVecSetClosure(dm, NULL, Fl, c, fe, ADD_VALUES));
    PetscCall(DMPlexVecRestoreClosure(cdm, NULL, cl, c, &nx, &xc));
    PetscCall(DMPlexVecRestoreClosure(dm, NULL, Ul, c, &nu, &uc));
  }
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(VecZeroEntries(*F));
  PetscCall(DMLocalToGlobal(dm, Fl, ADD_VALUES, *F));
  PetscCall(DMRestoreLocalVector(dm, &Ul));
  PetscCall(DMRestoreLocalVector(dm, &Fl));
  PetscCall(PetscFree(ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if !defined(ASSEMBLYTEST_MPI)
static inline PetscErrorCode RelErrMat(Mat A, Mat Ref, PetscReal *err)
{
  Mat       Ac;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ac));
  PetscCall(MatAXPY(Ac, -1.0, Ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Ac, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ref, NORM_FROBENIUS, &nr));
  *err = nd / (nr > 0 ? nr : 1);
  PetscCall(MatDestroy(&Ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bitwise equality of two matrices of the same pattern (through AIJ copies) */
static inline PetscErrorCode SameBits(Mat A, Mat B, PetscBool *same)
{
  Mat                Ac, Bc;
  const PetscScalar *a, *b;
  MatInfo            ia, ib;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ac));
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &Bc));
  PetscCall(MatGetInfo(Ac, MAT_LOCAL, &ia));
  PetscCall(MatGetInfo(Bc, MAT_LOCAL, &ib));
  PetscCall(MatSeqAIJGetArrayRead(Ac, &a));
  PetscCall(MatSeqAIJGetArrayRead(Bc, &b));
  *same = (PetscBool)(ia.nz_used == ib.nz_used && !memcmp(a, b, sizeof(PetscScalar) * (size_t)ia.nz_used));
  PetscCall(MatSeqAIJRestoreArrayRead(Ac, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(Bc, &b));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode SameBitsVec(Vec x, Vec y, PetscBool *same)
{
  const PetscScalar *a, *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayRead(y, &b));
  *same = (PetscBool)!memcmp(a, b, sizeof(PetscScalar) * n);
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCall(VecRestoreArrayRead(y, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a sequential vector of ref's size, host or device */
static inline PetscErrorCode CreateVecLike(Vec ref, PetscMemType mt, Vec *v)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, n, n));
  PetscCall(VecSetType(*v, mt == PETSC_MEMTYPE_HOST ? VECSEQ : VECCUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* the residual at U of a set-up assembler (values in memory mt) against Fref, and twice for bitwise
   reproducibility where that is expected; *Ux: U copied where the method runs (the caller destroys it) */
static inline PetscErrorCode CheckResidual(DMAssembly as, const char *method, PetscMemType mt, Vec U, Vec Fref, PetscReal tol, PetscBool reproducible, Vec *Ux, PetscBool *fail)
{
  Vec       F, F2;
  PetscReal errF;
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(CreateVecLike(U, mt, Ux));
  PetscCall(CopyValues(U, *Ux));
  PetscCall(VecDuplicate(*Ux, &F));
  PetscCall(VecDuplicate(*Ux, &F2));
  PetscCall(DMAssemblyComputeResidual(as, *Ux, F));
  PetscCall(RelErrVec(F, Fref, &errF));
  PetscCall(DMAssemblyComputeResidual(as, *Ux, F2));
  PetscCall(SameBitsVec(F, F2, &same));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s on the %-6s residual: rel. error %.2e %s%s\n", method, mt == PETSC_MEMTYPE_HOST ? "host" : "device", (double)errF, errF <= tol ? "ok" : "FAIL", reproducible ? (same ? ", bitwise reproducible" : ", NOT REPRODUCIBLE") : ""));
  if (errF > tol || (reproducible && !same)) *fail = PETSC_TRUE;
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&F2));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

