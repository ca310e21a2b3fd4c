/* DMAssembly beyond P1 (issue 6): Lagrange P1..P5 triangles, P2 tetrahedra, Q1 quadrilaterals and hexahedra with
   the built-in Lagrange kernels (DMAssemblyLagrangeKernels), against PETSc's own FE assembly on the same DM and
   PetscFE: DMPlexSNESComputeJacobianFEM / DMPlexSNESComputeResidualFEM with a PetscDS g0 = beta, g3 = alpha D,
   f0 = beta u - source, f1 = alpha D grad u.  The simplex PetscFE uses a quadrature exact for degree 2p (both
   assemblies are exact on affine simplices); the Q1 one PETSc's default Gauss rule (p+1 per direction), the same
   rule as the built-in kernel, on a non-affine (perturbed) mesh.
   For every element x method (globalnz, host, atomic, color -- fused with the element unless -dm_assembly_fuse 0; localnz, each contribution recomputed; sharednz must fall back to globalnz visibly, localrow
   must refuse the element with a clear error) x target (host: AIJ, ELLWARP host backend; device: AIJCUSPARSE,
   ELLWARP cuda backend):
   - relative error of J and F <= 1e-13 against PETSc;
   - globalnz, host, color, localnz (and the sharednz fallback): bitwise equal run to run (a second matrix and a reassembly);
   - the matrix DMCreateMatrix() preallocates contains the element pattern (else the assembly errors).
   With -snes: SNESSolve through DMAssemblySetSNES (ELLWARP, device vectors where it runs) equals a KSP solve of
   PETSc's system, one Jacobian plan for two solves.
   Options: -elem tri|tet|quad|hex, -orders 1,2,.. (each order is a mesh + FE), -faces n, -snes, -gpu (GPU label). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include "assemblytestutil.h"

/* ellwarp_add_test(assembly_ho.tri -elem tri -orders 1,2,3,4,5 -faces 3 -snes -dm_assembly_tune color_tail=4) */
/* ellwarp_add_test(assembly_ho.tet_p1 -elem tet -orders 1 -faces 2) */
/* ellwarp_add_test(assembly_ho.tet_p2 -elem tet -orders 2 -faces 2 -snes -dm_assembly_tune color_tail=4) */
/* ellwarp_add_test(assembly_ho.quad_q1 -elem quad -orders 1 -faces 4) */
/* ellwarp_add_test(assembly_ho.hex_q1 -elem hex -orders 1 -faces 3 -snes -dm_assembly_tune color_tail=3) */
/* ellwarp_add_test(assembly_ho.tri_index64 -elem tri -orders 3 -faces 3 -dm_assembly_tune index64=1,color_tail=4) */
/* ellwarp_add_test(assembly_ho.tri_unfused -elem tri -orders 2,4 -faces 3 -dm_assembly_fuse 0) */
/* ellwarp_add_test(assembly_ho.hex_unfused -elem hex -orders 1 -faces 2 -dm_assembly_fuse 0 -dm_assembly_tune color_tail=4) */
/* ellwarp_add_test(assembly_ho.gpu_tri_unfused -elem tri -orders 2,5 -faces 6 -dm_assembly_fuse 0 -gpu GPU) */
/* ellwarp_add_test(assembly_ho.gpu_tri -elem tri -orders 1,2,3,4,5 -faces 8 -snes -dm_assembly_tune color_tail=16 -gpu GPU) */
/* ellwarp_add_test(assembly_ho.gpu_tet_p2 -elem tet -orders 2 -faces 4 -snes -dm_assembly_tune color_tail=8 -gpu GPU) */
/* ellwarp_add_test(assembly_ho.gpu_hex_q1 -elem hex -orders 1 -faces 6 -snes -dm_assembly_tune color_tail=16 -gpu GPU) */
/* ellwarp_add_test(assembly_ho.gpu_quad_q1 -elem quad -orders 1 -faces 8 -dm_assembly_tune color_tail=16 -gpu GPU) */

static void g0_beta(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = constants[1];
}

/* constants: alpha, beta, source, D[dim*dim] */
static void g3_alphaD(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt i = 0; i < dim * dim; i++) g3[i] = constants[0] * constants[3 + i];
}

static void f0_u(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  f0[0] = constants[1] * u[0] - constants[2];
}

static void f1_u(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  for (PetscInt i = 0; i < dim; i++) {
    f1[i] = 0;
    for (PetscInt j = 0; j < dim; j++) f1[i] += constants[0] * constants[3 + i * dim + j] * u_x[j];
  }
}

/* n[0] x n[1] (x n[2]) boxes of size hi, two triangles per square or six Kuhn tetrahedra per cube */
static PetscErrorCode CreateSimplexBox(PetscInt dim, const PetscInt n[3], const PetscReal hi[3], DM *dm)
{
  const PetscInt nb = dim == 2 ? n[0] * n[1] : n[0] * n[1] * n[2], nper = dim == 2 ? 2 : 6, nt = nb * nper;
  const PetscInt nv = dim == 2 ? (n[0] + 1) * (n[1] + 1) : (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
  PetscInt      *cells;
  PetscReal     *x;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2((dim + 1) * nt, &cells, dim * nv, &x));
  for (PetscInt c = 0; c < nb; c++) {
    if (dim == 2) {
      const PetscInt i = c % n[0], j = c / n[0], v0 = i + (n[0] + 1) * j;
      const PetscInt t[6] = {v0, v0 + 1, v0 + n[0] + 2, v0, v0 + n[0] + 2, v0 + n[0] + 1};
      for (int q = 0; q < 6; q++) cells[6 * c + q] = t[q];
    } else
      for (int t = 0; t < 6; t++) EllwarpKuhnBoxTet(n, c, t, cells + 4 * (6 * c + t));
  }
  for (PetscInt v = 0; v < nv; v++) {
    x[dim * v + 0] = hi[0] * (PetscReal)(v % (n[0] + 1)) / n[0];
    x[dim * v + 1] = hi[1] * (PetscReal)((v / (n[0] + 1)) % (n[1] + 1)) / n[1];
    if (dim == 3) x[dim * v + 2] = hi[2] * (PetscReal)(v / ((n[0] + 1) * (n[1] + 1))) / n[2];
  }
  OrientCells(dim, nt, cells, x);
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, dim, nt, nv, dim + 1, PETSC_TRUE, cells, dim, x, dm));
  PetscCall(PetscFree2(cells, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a box mesh of the element type with a P<order> (Q<order>) Lagrange field; the vertices moved (simplices stay
   affine, quadrilaterals/hexahedra become non-affine) */
static PetscErrorCode CreateProblem(const char *elem, PetscInt order, PetscInt faces, DM *dm)
{
  PetscBool simplex, tri, tet, quad, hex;
  PetscInt  dim, f[3] = {faces, faces + 1, faces};
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.7, 1.3};
  PetscFE   fe;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(elem, "tri", &tri));
  PetscCall(PetscStrcmp(elem, "tet", &tet));
  PetscCall(PetscStrcmp(elem, "quad", &quad));
  PetscCall(PetscStrcmp(elem, "hex", &hex));
  PetscCheck(tri || tet || quad || hex, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-elem tri|tet|quad|hex");
  dim     = (tri || quad) ? 2 : 3;
  simplex = (PetscBool)(tri || tet);
  if (simplex) PetscCall(CreateSimplexBox(dim, f, hi, dm)); /* no mesh generator needed (DMPlexCreateBoxMesh needs one for simplices) */
  else PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, dim, simplex, f, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  {
    Vec          cv;
    PetscScalar *x;
    PetscInt     n;
    PetscCall(DMGetCoordinatesLocal(*dm, &cv));
    PetscCall(VecGetLocalSize(cv, &n));
    PetscCall(VecGetArray(cv, &x));
    for (PetscInt i = 0; i < n; i += dim) { /* a smooth non-linear map: distinct element shapes */
      const PetscReal X = PetscRealPart(x[i]), Y = PetscRealPart(x[i + 1]);
      x[i] += 0.08 * PetscSinReal(3.0 * Y + 1.0) + 0.05 * X * X;
      x[i + 1] += 0.06 * PetscCosReal(2.0 * X) * X;
      if (dim == 3) x[i + 2] += 0.04 * X * Y;
    }
    PetscCall(VecRestoreArray(cv, &x));
    PetscCall(DMSetCoordinatesLocal(*dm, cv));
  }
  /* simplices: quadrature exact for degree 2p (mass) -- both assemblies exact; Q1: PETSc's default Gauss rule */
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, simplex, order, simplex ? 2 * order : order, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's own Jacobian and residual at U (global) */
static PetscErrorCode Reference(DM dm, const PetscScalar *constants, PetscInt nconst, Vec U, Mat *J, Vec *F)
{
  PetscDS ds;
  Vec     Ul, Fl;

  PetscFunctionBegin;
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetConstants(ds, nconst, (PetscScalar *)constants));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_beta, NULL, NULL, g3_alphaD));
  PetscCall(PetscDSSetResidual(ds, 0, f0_u, f1_u));
  PetscCall(DMSetMatType(dm, MATAIJ));
  PetscCall(DMCreateMatrix(dm, J));
  PetscCall(DMGetLocalVector(dm, &Ul));
  PetscCall(DMGetLocalVector(dm, &Fl));
  PetscCall(DMGlobalToLocal(dm, U, INSERT_VALUES, Ul));
  PetscCall(DMPlexSNESComputeJacobianFEM(dm, Ul, *J, *J, NULL));
  PetscCall(VecZeroEntries(Fl));
  PetscCall(DMPlexSNESComputeResidualFEM(dm, Ul, Fl, NULL));
  PetscCall(VecDuplicate(U, F));
  PetscCall(VecZeroEntries(*F));
  PetscCall(DMLocalToGlobal(dm, Fl, ADD_VALUES, *F));
  PetscCall(DMRestoreLocalVector(dm, &Ul));
  PetscCall(DMRestoreLocalVector(dm, &Fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* localrow computes the P1 element inside its kernel: it must refuse other elements with an error (no wrong answer) */
static PetscErrorCode CheckRefused(DM dm, const char *method, PetscBool p1kernels, PetscBool *fail)
{
  DMAssembly               as;
  DMAssemblyElementKernels k;
  PetscErrorCode           ierr;

  PetscFunctionBegin;
  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblySetType(as, method));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (p1kernels) ierr = DMAssemblyP1DiffusionMassKernels(as, 1.0, 0.0, 0.0, NULL, &k);
  else ierr = DMAssemblyLagrangeKernels(as, 1.0, 0.0, 0.0, NULL, &k);
  if (!ierr) ierr = DMAssemblySetElementKernels(as, &k);
  if (!ierr) ierr = DMAssemblySetUp(as);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s with the %s kernels: %s\n", method, p1kernels ? "P1" : "Lagrange", ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_ARG_INCOMP ? "refused with an error, as it must" : "NOT REFUSED"));
  if (!(ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_ARG_INCOMP)) *fail = PETSC_TRUE;
  PetscCall(DMAssemblyDestroy(&as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNESSolve through DMAssemblySetSNES on the linear problem (alpha K + beta M) u = source B (default method, ELLWARP,
   device vectors where it runs) against a KSP solve of PETSc's own system: J_ref u = J_ref U - F_ref(U) */
static PetscErrorCode CheckSNES(DM dm, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal *D, Mat Jref, Vec U, Vec Fref, PetscBool *fail)
{
  DMAssembly               as;
  DMAssemblyElementKernels k;
  DMAssemblyInfo           info;
  SNES                     s;
  Vec                      u, uref, b;
  PetscReal                err;
  PetscMemType             mt;

  PetscFunctionBegin;
  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(DMAssemblyLagrangeKernels(as, alpha, beta, source, D, &k));
  PetscCall(DMAssemblySetElementKernels(as, &k));
  PetscCall(DMAssemblySetUp(as));
  PetscCall(DMAssemblyGetMemType(as, &mt));
  PetscCall(DMSetMatType(dm, MATELLWARP));
  if (mt == PETSC_MEMTYPE_DEVICE) PetscCall(DMSetVecType(dm, VECCUDA)); /* ELLWARP: cuda backend where a device is, else host */
  PetscCall(CreateSolver(as, PETSC_COMM_SELF, &s));
  PetscCall(DMCreateGlobalVector(dm, &u));
  for (int rep = 0; rep < 2; rep++) {
    PetscCall(VecZeroEntries(u));
    PetscCall(SNESSolve(s, NULL, u));
  }
  PetscCall(DMSetVecType(dm, VECSTANDARD));
  PetscCall(VecDuplicate(U, &b));
  PetscCall(VecDuplicate(U, &uref));
  PetscCall(MatMult(Jref, U, b));
  PetscCall(VecAXPY(b, -1.0, Fref)); /* = source B */
  PetscCall(ReferenceSolve(Jref, b, uref));
  PetscCall(RelErrVec(u, uref, &err));
  PetscCall(DMAssemblyGetInfo(as, &info));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "SNES through the assembler (%s, %s vectors): solution rel. error %.2e %s; %" PetscInt_FMT " Jacobian plan(s) for %" PetscInt_FMT " assemblies %s\n", ((PetscObject)as)->type_name, mt == PETSC_MEMTYPE_HOST ? "host" : "device", (double)err, err < 1e-9 ? "ok" : "FAIL", info.njacplans, info.nreductions, info.njacplans == 1 && info.nreductions >= 2 ? "ok" : "FAIL"));
  if (err >= 1e-9 || info.njacplans != 1 || info.nreductions < 2) *fail = PETSC_TRUE;
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uref));
  PetscCall(VecDestroy(&b));
  PetscCall(SNESDestroy(&s));
  PetscCall(DMAssemblyDestroy(&as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunOrder(const char *elem, PetscInt order, PetscInt faces, PetscBool gpu, PetscBool *fail)
{
  DM          dm;
  PetscInt    dim, nelem, ndof;
  PetscReal   alpha = 1.3, beta = 0.7, source = 2.0, tol = 1e-13, D[9];
  PetscScalar constants[12];
  Vec         U, Fref;
  Mat         Jref;
  PetscRandom rnd;
  const char *methods[] = {DMASSEMBLYGLOBALNZ, DMASSEMBLYHOST, DMASSEMBLYATOMIC, DMASSEMBLYCOLOR, DMASSEMBLYSHAREDNZ, DMASSEMBLYLOCALNZ};

  PetscFunctionBegin;
  PetscCall(CreateProblem(elem, order, faces, &dm));
  PetscCall(DMGetDimension(dm, &dim));
  {
    PetscInt cStart, cEnd;
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    nelem = cEnd - cStart;
  }
  /* a constant symmetric anisotropic conductivity */
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) D[i * dim + j] = i == j ? 1.0 + 0.5 * i : 0.25 / (1 + i + j);
  constants[0] = alpha;
  constants[1] = beta;
  constants[2] = source;
  for (PetscInt i = 0; i < dim * dim; i++) constants[3 + i] = D[i];
  PetscCall(DMCreateGlobalVector(dm, &U));
  PetscCall(VecGetLocalSize(U, &ndof));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(U, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(Reference(dm, constants, 3 + dim * dim, U, &Jref, &Fref));

  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    DMAssembly               as;
    DMAssemblyElementKernels k;
    DMAssemblyInfo           info;
    PetscMemType             mt;
    const char              *hosttargets[] = {MATAIJ, MATELLWARP}, *devtargets[] = {MATAIJCUSPARSE, MATELLWARP}, **targets;
    Vec                      Ux;
    PetscBool                reproducible = (PetscBool)(m != 2), same;

    PetscCall(DMAssemblyCreate(dm, &as));
    PetscCall(DMAssemblySetType(as, methods[m])); /* the type first: its options are read by it */
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblyLagrangeKernels(as, alpha, beta, source, D, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCheck(!gpu || m == 1 || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: method %s does not run on the device", methods[m]);
    if (m == 0) {
      PetscCall(DMAssemblyGetInfo(as, &info));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- %s order %" PetscInt_FMT ": %" PetscInt_FMT " elements of %" PetscInt_FMT " nodes, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros%s\n", elem, order, nelem, info.nen, ndof, info.nnz, gpu ? " (GPU run)" : ""));
    }
    targets = mt == PETSC_MEMTYPE_HOST ? hosttargets : devtargets;
    PetscCall(CheckResidual(as, methods[m], mt, U, Fref, tol, reproducible, &Ux, fail));
    for (int t = 0; t < 2; t++) {
      Mat       J, J2;
      PetscReal errJ;

      PetscCall(CreateTarget(dm, targets[t], mt, &J));
      if (m == 0 && t == 0) { /* DMCreateMatrix()'s preallocation against the element pattern (the assembly checks containment entry by entry) */
        MatInfo mi;
        PetscCall(DMAssemblyGetInfo(as, &info));
        PetscCall(MatGetInfo(J, MAT_LOCAL, &mi));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "DMCreateMatrix pattern: %.0f nonzeros, element pattern %" PetscCount_FMT ": %s\n", mi.nz_allocated, info.nnz, mi.nz_allocated >= (PetscLogDouble)info.nnz ? "ok" : "FAIL"));
        if (mi.nz_allocated < (PetscLogDouble)info.nnz) *fail = PETSC_TRUE;
      }
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J)); /* errors if DMCreateMatrix() missed an element entry */
      PetscCall(RelErrMat(J, Jref, &errJ));
      PetscCall(CreateTarget(dm, targets[t], mt, &J2));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J2));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J2));
      PetscCall(SameBits(J, J2, &same));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s into %-14s Jacobian: rel. error %.2e %s%s\n", methods[m], targets[t], (double)errJ, errJ <= tol ? "ok" : "FAIL", reproducible ? (same ? ", bitwise reproducible" : ", NOT REPRODUCIBLE") : ""));
      if (errJ > tol || (reproducible && !same)) *fail = PETSC_TRUE;
      PetscCall(MatDestroy(&J));
      PetscCall(MatDestroy(&J2));
    }
    PetscCall(DMAssemblyGetInfo(as, &info));
    if (m == 4) { /* sharednz: the fused P1 element only; here globalnz runs, and View says so */
      PetscViewer sv;
      FILE       *fp = tmpfile();
      char        txt[8192];
      size_t      len;
      PetscBool   said;
      PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
      PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &sv));
      PetscCall(DMAssemblyView(as, sv));
      PetscCall(PetscViewerFlush(sv));
      PetscCall(PetscViewerDestroy(&sv));
      rewind(fp);
      len      = fread(txt, 1, sizeof(txt) - 1, fp);
      txt[len] = 0;
      fclose(fp);
      said = (PetscBool)(strstr(txt, "FALLS BACK TO globalnz") != NULL);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "sharednz: %s\n", said && !info.shblocks ? "falls back to globalnz, stated by DMAssemblyView" : "FALLBACK NOT STATED"));
      if (!said || info.shblocks) *fail = PETSC_TRUE;
    }
    PetscCheck(info.njacplans == 4 && info.nreductions == 6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "expected 4 Jacobian plans and 6 assemblies, got %" PetscInt_FMT " and %" PetscInt_FMT, info.njacplans, info.nreductions);
    if (m == 0) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_SELF));
    PetscCall(VecDestroy(&Ux));
    PetscCall(DMAssemblyDestroy(&as));
  }
  {
    PetscBool snes = PETSC_FALSE;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-snes", &snes));
    if (snes) PetscCall(CheckSNES(dm, alpha, beta, source, D, Jref, U, Fref, fail));
  }
  {
    PetscBool simplex;
    PetscCall(DMPlexIsSimplex(dm, &simplex));
    if (!(order == 1 && simplex)) {
      PetscCall(CheckRefused(dm, DMASSEMBLYLOCALROW, PETSC_FALSE, fail));
      PetscCall(CheckRefused(dm, DMASSEMBLYGLOBALNZ, PETSC_TRUE, fail)); /* the fused P1 kernels on another element */
    }
  }
  PetscCall(MatDestroy(&Jref));
  PetscCall(VecDestroy(&Fref));
  PetscCall(VecDestroy(&U));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      elem[16] = "tri";
  PetscInt  orders[8] = {1}, norders = 8, faces = 3;
  PetscBool gpu = PETSC_FALSE, fail = PETSC_FALSE, flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-elem", elem, sizeof(elem), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &flg));
  if (!flg) norders = 1;
  for (PetscInt i = 0; i < norders; i++) PetscCall(RunOrder(elem, orders[i], faces, gpu, &fail));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", fail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
