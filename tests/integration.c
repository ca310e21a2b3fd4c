/* Element integration of Banas et al. (issue 20): QSS/SQS/SSQ on P1 tetrahedra (geo_linear) and P1 prisms
   (geo_generic, a triangle mesh extruded with DMPlexExtrude and bent: non-affine), Poisson and the full
   convection-diffusion-reaction coefficient set (random per element), against PETSc:
   1. element level: every variant (and on the device every shared-memory placement and the searched one; on the host
      every instruction set this CPU runs -- base, avx2, avx512 -- with regular stores and avx512 with streaming
      stores, also a batch of nelem - 3 elements with the coefficients at stride nelem, and with streaming stores an
      aligned batch of a multiple of 8 elements that must stream) against
      PETSc's own element matrices and vectors, PetscFEIntegrateJacobian / PetscFEIntegrateResidual on the same
      PetscFE and quadrature (DMFieldCreateFEGeom geometry, the coefficients as a P0 auxiliary field): rel. error
      <= 1e-13 (A^e, and the residual A^e u^e - b^e);
   2. assembled: the integration as the element kernels of a DMAssembly (globalnz, host, atomic, color; AIJ and
      ELLWARP targets, AIJCUSPARSE/ELLWARP cuda on the device) against DMPlexSNESComputeJacobianFEM /
      DMPlexSNESComputeResidualFEM: rel. error <= 1e-13.
   Options: -elem tet|prism, -faces n, -mesh file (a gmsh file of one cell type instead: tests/data/integration/
   prisms_v22.msh, 24 bent prisms), -gpu (the device path: the GPU label), -dm_assembly_integration_host_chunk n (the
   host element loop chunked through per-thread buffers: every host check above runs it; small n: several chunks, the
   last one partial). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscellwarpintegrate.h>
#include <petscdmplex.h>
#include <petscdmfield.h>
#include <petscds.h>
#include <petscfe.h>
#include <petscsnes.h>
#include "assemblytestutil.h"
#include <stdint.h>

/* ellwarp_add_test(integration.tet -elem tet -faces 2) */
/* ellwarp_add_test(integration.prism -elem prism -faces 3) */
/* ellwarp_add_test(integration.prism_omp2 -elem prism -faces 2 ENVIRONMENT OMP_NUM_THREADS=2) */
/* ellwarp_add_test(integration.prism_base -elem prism -faces 2 -dm_assembly_integration_host_isa base) */
/* ellwarp_add_test(integration.prism_chunk -elem prism -faces 3 -dm_assembly_integration_host_chunk 4) */
/* ellwarp_add_test(integration.prism_chunk_omp2 -elem prism -faces 3 -dm_assembly_integration_host_chunk 1 ENVIRONMENT OMP_NUM_THREADS=2) */
/* ellwarp_add_test(integration.tet_chunk -elem tet -faces 2 -dm_assembly_integration_host_chunk 3) */
/* ellwarp_add_test(integration.prism_chunk_search -elem prism -faces 2 -dm_assembly_integration_host_chunk -1) */
/* ellwarp_add_test(integration.prism_gmsh -mesh ${CMAKE_CURRENT_SOURCE_DIR}/data/integration/prisms_v22.msh) */
/* ellwarp_add_test(integration.gpu_tet -elem tet -faces 4 -gpu GPU) */
/* ellwarp_add_test(integration.gpu_prism -elem prism -faces 5 -gpu GPU) */

/* conv-diff: a[] = c^{i;j} at 4i+j (0: the value, 1..3 the derivatives), d^i at 16+i (a P0 auxiliary field) */
static void g0_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = a[0];
}
static void g1_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g1[])
{
  for (PetscInt d = 0; d < 3; d++) g1[d] = a[1 + d]; /* test value, trial derivative */
}
static void g2_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g2[])
{
  for (PetscInt d = 0; d < 3; d++) g2[d] = a[(1 + d) * 4]; /* test derivative, trial value */
}
static void g3_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt e = 0; e < 3; e++) g3[d * 3 + e] = a[(1 + d) * 4 + 1 + e];
}
static void f0_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  f0[0] = a[0] * u[0] + a[1] * u_x[0] + a[2] * u_x[1] + a[3] * u_x[2] - a[16];
}
static void f1_cdr(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  for (PetscInt d = 0; d < 3; d++) f1[d] = a[(1 + d) * 4] * u[0] + a[(1 + d) * 4 + 1] * u_x[0] + a[(1 + d) * 4 + 2] * u_x[1] + a[(1 + d) * 4 + 3] * u_x[2] - a[17 + d];
}

/* Poisson: the Laplacian and a source S(x) (the kernel gets S at its integration points) */
static PetscReal Source(const PetscReal x[])
{
  return 1.0 + PetscSinReal(2.0 * x[0]) + x[1] * x[2] - 0.5 * x[2] * x[2];
}
static void g3_lap(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < 9; d++) g3[d] = (d % 4 == 0) ? 1.0 : 0.0;
}
static void f0_lap(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  f0[0] = -Source(x);
}
static void f1_lap(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  for (PetscInt d = 0; d < 3; d++) f1[d] = u_x[d];
}

/* the mesh: Kuhn tetrahedra of a box, or a triangle mesh extruded into prisms; then a smooth bend (prisms become
   non-affine, tetrahedra stay affine) */
static PetscErrorCode CreateMesh(PetscBool prism, PetscInt faces, DM *dm)
{
  PetscFunctionBegin;
  if (!prism) {
    const PetscInt n[3] = {faces, faces + 1, faces}, nt = 6 * n[0] * n[1] * n[2], nv = (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    PetscInt      *cells;
    PetscReal     *x;
    PetscCall(PetscMalloc2(4 * nt, &cells, 3 * nv, &x));
    for (PetscInt c = 0; c < n[0] * n[1] * n[2]; c++)
      for (int t = 0; t < 6; t++) EllwarpKuhnBoxTet(n, c, t, cells + 4 * (6 * c + t));
    for (PetscInt v = 0; v < nv; v++) {
      x[3 * v + 0] = 1.0 * (PetscReal)(v % (n[0] + 1)) / n[0];
      x[3 * v + 1] = 0.7 * (PetscReal)((v / (n[0] + 1)) % (n[1] + 1)) / n[1];
      x[3 * v + 2] = 1.3 * (PetscReal)(v / ((n[0] + 1) * (n[1] + 1))) / n[2];
    }
    OrientCells(3, nt, cells, x);
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, nt, nv, 4, PETSC_TRUE, cells, 3, x, dm));
    PetscCall(PetscFree2(cells, x));
  } else {
    const PetscInt N = faces, M = faces + 1, nt = 2 * N * M, nv = (N + 1) * (M + 1);
    PetscInt      *cells;
    PetscReal     *x;
    DM             tri;
    PetscCall(PetscMalloc2(3 * nt, &cells, 2 * nv, &x));
    for (PetscInt j = 0; j < M; j++)
      for (PetscInt i = 0; i < N; i++) {
        const PetscInt v0 = i + (N + 1) * j, c = 2 * (i + N * j);
        const PetscInt t[6] = {v0, v0 + 1, v0 + N + 2, v0, v0 + N + 2, v0 + N + 1};
        for (int q = 0; q < 6; q++) cells[3 * c + q] = t[q];
      }
    for (PetscInt v = 0; v < nv; v++) {
      x[2 * v + 0] = (PetscReal)(v % (N + 1)) / N;
      x[2 * v + 1] = 0.8 * (PetscReal)(v / (N + 1)) / M;
    }
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 2, nt, nv, 3, PETSC_TRUE, cells, 2, x, &tri));
    PetscCall(PetscFree2(cells, x));
    PetscCall(DMPlexExtrude(tri, faces, 0.9, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, NULL, NULL, NULL, dm));
    PetscCall(DMDestroy(&tri));
  }
  {
    Vec          cv;
    PetscScalar *x;
    PetscInt     n;
    PetscCall(DMGetCoordinatesLocal(*dm, &cv));
    PetscCall(VecGetLocalSize(cv, &n));
    PetscCall(VecGetArray(cv, &x));
    for (PetscInt i = 0; i < n; i += 3) {
      const PetscReal X = PetscRealPart(x[i]), Y = PetscRealPart(x[i + 1]), Z = PetscRealPart(x[i + 2]);
      if (prism) { /* bilinear terms: the prisms' vertical faces warp */
        x[i] += 0.07 * Y * Z + 0.03 * X * X;
        x[i + 1] += 0.05 * X * Z;
        x[i + 2] += 0.08 * X * Y + 0.04 * PetscSinReal(2.0 * X);
      } else { /* affine per tetrahedron whatever the vertex map */
        x[i] += 0.08 * PetscSinReal(3.0 * Y + 1.0) + 0.05 * X * X;
        x[i + 1] += 0.06 * PetscCosReal(2.0 * X) * X;
        x[i + 2] += 0.04 * X * Y;
      }
    }
    PetscCall(VecRestoreArray(cv, &x));
    PetscCall(DMSetCoordinatesLocal(*dm, cv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  DM                           dm, dmAux;
  DMPolytopeType               ct;
  DMAssemblyIntegrationProblem prob;
  PetscInt                     nelem, cStart, ns, nq, ncoef;
  PetscReal                   *xe, *coefE, *coefS; /* [ns*3][nelem]; coefficients cell-major [nelem][ncoef] and SoA [ncoef][nelem] */
  PetscScalar                 *ue;                 /* [ns][nelem] */
  PetscScalar                 *refK, *refF;        /* PETSc's element matrices [nelem][ns][ns], residuals [nelem][ns] */
  Vec                          aux;
} Problem;

/* the DM's field (P1 on the cell type, with the integration's quadrature), the coefficients, PETSc's element data */
static PetscErrorCode SetUpProblem(DM dm, DMAssemblyIntegrationProblem prob, PetscRandom rnd, Problem *P)
{
  PetscFE               fe, feAux = NULL;
  DMAssemblyIntegration ig;
  PetscQuadrature       quad;
  PetscDS               ds, dsAux = NULL;
  PetscInt              cEnd;
  const PetscReal      *qp;
  PetscTabulation       T;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(P, sizeof(*P)));
  P->dm   = dm;
  P->prob = prob;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &P->cStart, &cEnd));
  PetscCall(DMPlexGetCellType(dm, P->cStart, &P->ct));
  P->nelem = cEnd - P->cStart;
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 3, 1, P->ct, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMAssemblyIntegrationCreate(fe, prob, &ig));
  PetscCall(DMAssemblyIntegrationGetSizes(ig, &P->ns, &P->nq, &P->ncoef));
  PetscCall(DMAssemblyIntegrationGetQuadrature(ig, &quad));
  PetscCall(PetscFESetQuadrature(fe, quad)); /* PETSc integrates with the same points */
  PetscCall(DMClearFields(dm));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMGetDS(dm, &ds));
  if (prob == DMASSEMBLY_INTEGRATION_CDR) {
    PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_cdr, g1_cdr, g2_cdr, g3_cdr));
    PetscCall(PetscDSSetResidual(ds, 0, f0_cdr, f1_cdr));
  } else {
    PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3_lap));
    PetscCall(PetscDSSetResidual(ds, 0, f0_lap, f1_lap));
  }
  /* element coordinates (closure order) and the coefficients */
  PetscCall(PetscMalloc5((size_t)P->ns * 3 * P->nelem, &P->xe, (size_t)P->ncoef * P->nelem, &P->coefE, (size_t)P->ncoef * P->nelem, &P->coefS, (size_t)P->ns * P->nelem, &P->ue, (size_t)P->ns * P->ns * P->nelem, &P->refK));
  PetscCall(PetscCalloc1((size_t)P->ns * P->nelem, &P->refF));
  PetscCall(PetscQuadratureGetData(quad, NULL, NULL, NULL, &qp, NULL));
  PetscCall(PetscFECreateTabulation(fe, 1, P->nq, qp, 0, &T));
  for (PetscInt e = 0; e < P->nelem; e++) {
    PetscBool          isDG;
    PetscInt           ncx;
    const PetscScalar *arr;
    PetscScalar       *cx;
    PetscCall(DMPlexGetCellCoordinates(dm, P->cStart + e, &isDG, &ncx, &arr, &cx));
    PetscCheck(ncx == 3 * P->ns, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell %" PetscInt_FMT ": %" PetscInt_FMT " coordinates", e, ncx);
    for (PetscInt k = 0; k < 3 * P->ns; k++) P->xe[k * P->nelem + e] = PetscRealPart(cx[k]);
    if (prob == DMASSEMBLY_INTEGRATION_POISSON) /* the source at the physical points x_q = sum_a x_a phi_a(xi_q) */
      for (PetscInt q = 0; q < P->nq; q++) {
        PetscReal xq[3] = {0, 0, 0};
        for (PetscInt a = 0; a < P->ns; a++)
          for (PetscInt d = 0; d < 3; d++) xq[d] += PetscRealPart(cx[a * 3 + d]) * T->T[0][q * P->ns + a];
        P->coefE[e * P->ncoef + q] = Source(xq);
      }
    else
      for (PetscInt k = 0; k < P->ncoef; k++) {
        PetscReal r;
        PetscCall(PetscRandomGetValueReal(rnd, &r));
        P->coefE[e * P->ncoef + k] = (k == 5 || k == 10 || k == 15) ? 1.5 + r : r; /* a diffusion-dominated c^{i;j} */
      }
    for (PetscInt a = 0; a < P->ns; a++) {
      PetscReal r;
      PetscCall(PetscRandomGetValueReal(rnd, &r));
      P->ue[a * P->nelem + e] = r;
    }
    PetscCall(DMPlexRestoreCellCoordinates(dm, P->cStart + e, &isDG, &ncx, &arr, &cx));
  }
  PetscCall(PetscTabulationDestroy(&T));
  for (PetscInt e = 0; e < P->nelem; e++)
    for (PetscInt k = 0; k < P->ncoef; k++) P->coefS[k * P->nelem + e] = P->coefE[e * P->ncoef + k];
  if (prob == DMASSEMBLY_INTEGRATION_CDR) { /* the coefficients as a P0 auxiliary field, cell by cell */
    PetscSection s;
    PetscScalar *a;
    PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 3, P->ncoef, P->ct, 0, PETSC_DETERMINE, &feAux));
    PetscCall(PetscFESetQuadrature(feAux, quad));
    PetscCall(DMClone(dm, &P->dmAux));
    PetscCall(DMSetField(P->dmAux, 0, NULL, (PetscObject)feAux));
    PetscCall(DMCreateDS(P->dmAux));
    PetscCall(DMGetDS(P->dmAux, &dsAux));
    PetscCall(DMCreateLocalVector(P->dmAux, &P->aux));
    PetscCall(DMGetLocalSection(P->dmAux, &s));
    PetscCall(VecGetArray(P->aux, &a));
    for (PetscInt e = 0; e < P->nelem; e++) {
      PetscInt off;
      PetscCall(PetscSectionGetOffset(s, P->cStart + e, &off));
      for (PetscInt k = 0; k < P->ncoef; k++) a[off + k] = P->coefE[e * P->ncoef + k];
    }
    PetscCall(VecRestoreArray(P->aux, &a));
    PetscCall(DMSetAuxiliaryVec(dm, NULL, 0, 0, P->aux));
  }
  /* PETSc's own element matrices and residuals */
  {
    DMField      cf;
    IS           cells;
    PetscFEGeom *geom;
    PetscFormKey key;
    PetscScalar *u, *a = NULL;
    PetscCall(DMGetCoordinateField(dm, &cf));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, P->nelem, P->cStart, 1, &cells));
    PetscCall(DMFieldCreateFEGeom(cf, cells, quad, PETSC_FEGEOM_BASIC, &geom));
    PetscCall(PetscMalloc1((size_t)P->ns * P->nelem, &u));
    for (PetscInt e = 0; e < P->nelem; e++)
      for (PetscInt b = 0; b < P->ns; b++) u[e * P->ns + b] = P->ue[b * P->nelem + e];
    if (dsAux) a = (PetscScalar *)P->coefE;
    key.label = NULL;
    key.value = 0;
    key.field = 0;
    key.part  = 0;
    PetscCall(PetscArrayzero(P->refK, (size_t)P->ns * P->ns * P->nelem));
    PetscCall(PetscFEIntegrateJacobian(ds, ds, PETSCFE_JACOBIAN, key, P->nelem, geom, u, NULL, dsAux, a, 0.0, 0.0, P->refK));
    PetscCall(PetscFEIntegrateResidual(ds, key, P->nelem, geom, u, NULL, dsAux, a, 0.0, P->refF));
    PetscCall(PetscFEGeomDestroy(&geom));
    PetscCall(ISDestroy(&cells));
    PetscCall(PetscFree(u));
  }
  PetscCall(DMAssemblyIntegrationDestroy(&ig));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(PetscFEDestroy(&feAux));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroyProblem(Problem *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(P->xe, P->coefE, P->coefS, P->ue, P->refK));
  PetscCall(PetscFree(P->refF));
  PetscCall(VecDestroy(&P->aux));
  PetscCall(DMDestroy(&P->dmAux));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* relative Frobenius error of entry-major kernel output (stride: its element count) against PETSc's cell-major element data */
static PetscReal ElemErr(const PetscScalar *k, const PetscScalar *ref, PetscInt nelem, PetscInt stride, PetscInt nent)
{
  PetscReal d = 0, r = 0;
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt i = 0; i < nent; i++) {
      const PetscReal x = PetscRealPart(k[i * stride + e]), y = PetscRealPart(ref[e * nent + i]);
      d += (x - y) * (x - y);
      r += y * y;
    }
  return PetscSqrtReal(d / (r > 0 ? r : 1));
}

/* device copies through CUDA vectors (the test has no CUDA code of its own) */
static PetscErrorCode DeviceCopy(PetscInt n, const PetscScalar *h, Vec *v, PetscScalar **d)
{
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, n, n));
  PetscCall(VecSetType(*v, VECCUDA));
  PetscCall(VecGetArrayWrite(*v, &a));
  if (h) PetscCall(PetscArraycpy(a, h, n));
  else PetscCall(PetscArrayzero(a, n));
  PetscCall(VecRestoreArrayWrite(*v, &a));
  PetscCall(VecCUDAGetArray(*v, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceBack(Vec *v, PetscScalar **d, PetscScalar *h)
{
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecCUDARestoreArray(*v, d));
  PetscCall(VecGetLocalSize(*v, &n));
  PetscCall(VecGetArrayRead(*v, &a));
  PetscCall(PetscArraycpy(h, a, n));
  PetscCall(VecRestoreArrayRead(*v, &a));
  PetscCall(VecDestroy(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one configuration on one back end: the Jacobian and the residual against PETSc's element data */
static PetscErrorCode CheckElement(Problem *P, PetscFE fe, PetscMemType mt, DMAssemblyIntegrationVariant v, PetscInt place, PetscInt block, PetscInt isa, PetscInt store, const char *label, PetscBool *fail)
{
  DMAssemblyIntegration ig;
  const PetscReal       tol = 1e-13;
  const PetscInt        nK = P->ns * P->ns * P->nelem, nF = P->ns * P->nelem;
  PetscScalar          *K, *F;
  PetscReal             eK, eF;

  PetscFunctionBegin;
  PetscCall(DMAssemblyIntegrationCreate(fe, P->prob, &ig));
  PetscCall(DMAssemblyIntegrationSetFromOptions(ig, NULL)); /* -dm_assembly_integration_host_chunk; the rest set below */
  PetscCall(DMAssemblyIntegrationSetVariant(ig, v, place, block));
  PetscCall(DMAssemblyIntegrationSetHost(ig, isa, store));
  PetscCall(PetscMalloc2(nK, &K, nF, &F));
  if (mt == PETSC_MEMTYPE_HOST) {
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_JAC, P->nelem, P->xe, P->coefS, P->nelem, NULL, K, NULL));
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_RES, P->nelem, P->xe, P->coefS, P->nelem, P->ue, NULL, F));
    { /* the loop that ran: as set by -dm_assembly_integration_host_chunk, or after a search one of direct (0) and chunked */
      PetscInt chunk, set = 0;
      PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_assembly_integration_host_chunk", &set, NULL));
      PetscCall(DMAssemblyIntegrationGetHostChunk(ig, &chunk));
      PetscCheck(set >= 0 ? chunk == set : chunk >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "host chunk %" PetscInt_FMT " after an Apply with -dm_assembly_integration_host_chunk %" PetscInt_FMT, chunk, set);
    }
  } else {
    Vec          vx, vc, vu, vk, vf;
    PetscScalar *dx, *dc, *du, *dk, *df;
    PetscCall(DeviceCopy(3 * P->ns * P->nelem, P->xe, &vx, &dx));
    PetscCall(DeviceCopy(P->ncoef * P->nelem, P->coefS, &vc, &dc));
    PetscCall(DeviceCopy(nF, P->ue, &vu, &du));
    PetscCall(DeviceCopy(nK, NULL, &vk, &dk));
    PetscCall(DeviceCopy(nF, NULL, &vf, &df));
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_JAC, P->nelem, dx, dc, P->nelem, NULL, dk, NULL));
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_RES, P->nelem, dx, dc, P->nelem, du, NULL, df));
    PetscCall(DeviceBack(&vk, &dk, K));
    PetscCall(DeviceBack(&vf, &df, F));
    PetscCall(VecCUDARestoreArray(vx, &dx));
    PetscCall(VecCUDARestoreArray(vc, &dc));
    PetscCall(VecCUDARestoreArray(vu, &du));
    PetscCall(VecDestroy(&vx));
    PetscCall(VecDestroy(&vc));
    PetscCall(VecDestroy(&vu));
  }
  eK = ElemErr(K, P->refK, P->nelem, P->nelem, P->ns * P->ns);
  eF = ElemErr(F, P->refF, P->nelem, P->nelem, P->ns);
  if (mt == PETSC_MEMTYPE_HOST && P->nelem > 3) { /* a batch of nelem - 3 elements (not a multiple of any lane count), coefficients at stride nelem */
    const PetscInt ne = P->nelem - 3;
    PetscReal     *xs;
    PetscScalar   *us;
    PetscCall(PetscMalloc2((size_t)3 * P->ns * ne, &xs, (size_t)P->ns * ne, &us));
    for (PetscInt e = 0; e < ne; e++) {
      for (PetscInt k = 0; k < 3 * P->ns; k++) xs[k * ne + e] = P->xe[k * P->nelem + e];
      for (PetscInt k = 0; k < P->ns; k++) us[k * ne + e] = P->ue[k * P->nelem + e];
    }
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_JAC, ne, xs, P->coefS, P->nelem, NULL, K, NULL));
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_RES, ne, xs, P->coefS, P->nelem, us, NULL, F));
    eK = PetscMax(eK, ElemErr(K, P->refK, ne, ne, P->ns * P->ns));
    eF = PetscMax(eF, ElemErr(F, P->refF, ne, ne, P->ns));
    PetscCall(PetscFree2(xs, us));
  }
  if (mt == PETSC_MEMTYPE_HOST && store == 1 && P->nelem >= 8) { /* streaming stores: an aligned batch of a multiple of 8 elements must stream */
    const PetscInt ne = P->nelem / 8 * 8;
    PetscReal     *xs;
    PetscScalar   *us, *buf, *Ka, *Fa;
    PetscInt       streamedJ, streamedR;
    PetscCall(PetscMalloc3((size_t)3 * P->ns * ne, &xs, (size_t)P->ns * ne, &us, (size_t)(P->ns * P->ns + P->ns) * ne + 16, &buf));
    Ka = (PetscScalar *)(((uintptr_t)buf + 63) / 64 * 64);
    Fa = Ka + (size_t)P->ns * P->ns * ne;
    for (PetscInt e = 0; e < ne; e++) {
      for (PetscInt k = 0; k < 3 * P->ns; k++) xs[k * ne + e] = P->xe[k * P->nelem + e];
      for (PetscInt k = 0; k < P->ns; k++) us[k * ne + e] = P->ue[k * P->nelem + e];
    }
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_JAC, ne, xs, P->coefS, P->nelem, NULL, Ka, NULL));
    PetscCall(DMAssemblyIntegrationGetHost(ig, NULL, &streamedJ));
    PetscCall(DMAssemblyIntegrationApply(ig, mt, DMASSEMBLY_INTEGRATION_OUT_RES, ne, xs, P->coefS, P->nelem, us, NULL, Fa));
    PetscCall(DMAssemblyIntegrationGetHost(ig, NULL, &streamedR));
    eK = PetscMax(eK, ElemErr(Ka, P->refK, ne, ne, P->ns * P->ns));
    eF = PetscMax(eF, ElemErr(Fa, P->refF, ne, ne, P->ns));
    if (streamedJ != 1 || streamedR != 1) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  host   %-22s the aligned batch did not stream (%" PetscInt_FMT ", %" PetscInt_FMT "): FAIL\n", label, streamedJ, streamedR));
      *fail = PETSC_TRUE;
    }
    PetscCall(PetscFree3(xs, us, buf));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-6s %-22s A^e rel. error %.2e, residual %.2e %s\n", mt == PETSC_MEMTYPE_HOST ? "host" : "device", label, (double)eK, (double)eF, eK <= tol && eF <= tol ? "ok" : "FAIL"));
  if (!(eK <= tol && eF <= tol)) *fail = PETSC_TRUE;
  if (v == DMASSEMBLY_INTEGRATION_AUTO) PetscCall(DMAssemblyIntegrationView(ig, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscFree2(K, F));
  PetscCall(DMAssemblyIntegrationDestroy(&ig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's assembled Jacobian and residual at U */
static PetscErrorCode Reference(DM dm, Vec U, Mat *J, Vec *F)
{
  Vec Ul, Fl;

  PetscFunctionBegin;
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

static PetscErrorCode CheckAssembled(Problem *P, PetscBool gpu, PetscRandom rnd, PetscBool *fail)
{
  const char     *methods[] = {DMASSEMBLYGLOBALNZ, DMASSEMBLYHOST, DMASSEMBLYATOMIC, DMASSEMBLYCOLOR};
  const PetscReal tol       = 1e-13;
  Vec             U, Fref;
  Mat             Jref;

  PetscFunctionBegin;
  PetscCall(DMCreateGlobalVector(P->dm, &U));
  PetscCall(VecSetRandom(U, rnd));
  PetscCall(Reference(P->dm, U, &Jref, &Fref));
  for (size_t m = 0; m < PETSC_STATIC_ARRAY_LENGTH(methods); m++) {
    DMAssembly               as;
    DMAssemblyElementKernels k;
    PetscMemType             mt;
    const char              *hosttargets[] = {MATAIJ, MATELLWARP}, *devtargets[] = {MATAIJCUSPARSE, MATELLWARP}, **targets;
    Vec                      Ux;

    PetscCall(DMAssemblyCreate(P->dm, &as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblySetFromOptions(as));
    PetscCall(DMAssemblySetType(as, methods[m]));
    PetscCall(DMAssemblyIntegrationKernels(as, P->prob, P->coefE, &k));
    PetscCall(DMAssemblySetElementKernels(as, &k));
    PetscCall(DMAssemblySetUp(as));
    PetscCall(DMAssemblyGetMemType(as, &mt));
    PetscCheck(!gpu || m == 1 || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: method %s does not run on the device", methods[m]);
    targets = mt == PETSC_MEMTYPE_HOST ? hosttargets : devtargets;
    PetscCall(CheckResidual(as, methods[m], mt, U, Fref, tol, (PetscBool)(m != 2), &Ux, fail));
    for (int t = 0; t < 2; t++) {
      Mat       J;
      PetscReal errJ;
      PetscCall(CreateTarget(P->dm, targets[t], mt, &J));
      PetscCall(DMAssemblyComputeJacobian(as, Ux, J));
      PetscCall(RelErrMat(J, Jref, &errJ));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s into %-14s Jacobian: rel. error %.2e %s\n", methods[m], targets[t], (double)errJ, errJ <= tol ? "ok" : "FAIL"));
      if (!(errJ <= tol)) *fail = PETSC_TRUE;
      PetscCall(MatDestroy(&J));
    }
    PetscCall(VecDestroy(&Ux));
    PetscCall(DMAssemblyDestroy(&as));
  }
  PetscCall(MatDestroy(&Jref));
  PetscCall(VecDestroy(&Fref));
  PetscCall(VecDestroy(&U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        elem[16] = "tet", mesh[PETSC_MAX_PATH_LEN];
  PetscInt    faces    = 2;
  PetscBool   gpu = PETSC_FALSE, fail = PETSC_FALSE, prism, fromfile;
  PetscRandom rnd;
  DM          dm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-elem", elem, sizeof(elem), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCall(PetscStrcmp(elem, "prism", &prism));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", mesh, sizeof(mesh), &fromfile));
  if (fromfile) {
    DMPolytopeType ct;
    PetscCall(DMPlexCreateFromFile(PETSC_COMM_SELF, mesh, "integration", PETSC_TRUE, &dm));
    PetscCall(DMPlexGetCellType(dm, 0, &ct));
    prism = (PetscBool)(ct == DM_POLYTOPE_TRI_PRISM);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "mesh %s: %s cells\n", mesh, DMPolytopeTypes[ct]));
  } else PetscCall(CreateMesh(prism, faces, &dm));
  for (int pr = 0; pr < 2; pr++) {
    Problem P;
    PetscFE fe;
    PetscCall(SetUpProblem(dm, (DMAssemblyIntegrationProblem)pr, rnd, &P));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- %" PetscInt_FMT " %s, %s (%" PetscInt_FMT " coefficients per element)%s\n", P.nelem, DMPolytopeTypes[P.ct], DMAssemblyIntegrationProblems[pr], P.ncoef, gpu ? " (GPU run)" : ""));
    PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
    for (int v = 0; v <= DMASSEMBLY_INTEGRATION_AUTO; v++) PetscCall(CheckElement(&P, fe, PETSC_MEMTYPE_HOST, (DMAssemblyIntegrationVariant)v, 0, 128, -1, -1, DMAssemblyIntegrationVariants[v], &fail));
    for (PetscInt isa = 0; isa < 3; isa++) { /* every instruction set of the host back end this CPU runs; avx512 also with streaming stores */
      PetscBool has;
      PetscCall(DMAssemblyIntegrationHostISASupported(isa, &has));
      if (!has) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  host   %s: not run by this CPU (or not in this build), skipped\n", DMAssemblyIntegrationHostISAs[isa]));
        continue;
      }
      for (int v = 0; v < DMASSEMBLY_INTEGRATION_AUTO; v++)
        for (PetscInt st = 0; st <= (isa == 2 ? 1 : 0); st++) {
          char label[64];
          PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s %s", DMAssemblyIntegrationVariants[v], DMAssemblyIntegrationHostISAs[isa], st ? "streaming" : "regular"));
          PetscCall(CheckElement(&P, fe, PETSC_MEMTYPE_HOST, (DMAssemblyIntegrationVariant)v, 0, 128, isa, st, label, &fail));
        }
    }
    if (gpu) {
      const char *pl[] = {"reg", "coef", "phi", "ae", "reg128", "reg64"};
      for (int v = 0; v < DMASSEMBLY_INTEGRATION_AUTO; v++)
        for (PetscInt p = 0; p < 6; p++)
          for (PetscInt b = 64; b <= 256; b *= 2) {
            char label[64];
            PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s %" PetscInt_FMT, DMAssemblyIntegrationVariants[v], pl[p], b));
            PetscCall(CheckElement(&P, fe, PETSC_MEMTYPE_DEVICE, (DMAssemblyIntegrationVariant)v, p, b, -1, -1, label, &fail));
          }
      PetscCall(CheckElement(&P, fe, PETSC_MEMTYPE_DEVICE, DMASSEMBLY_INTEGRATION_AUTO, -1, 0, -1, -1, "auto (searched)", &fail));
    }
    PetscCall(CheckAssembled(&P, gpu, rnd, &fail));
    if (prism && pr == 0) { /* the built-in Lagrange kernels would treat a prism as a simplex: they must refuse it */
      DMAssembly               as;
      DMAssemblyElementKernels k;
      PetscErrorCode           ierr;
      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = DMAssemblyLagrangeKernels(as, 1.0, 0.0, 0.0, NULL, &k);
      PetscCall(PetscPopErrorHandler());
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "DMAssemblyLagrangeKernels on prisms: %s\n", ierr == PETSC_ERR_SUP ? "refused with an error, as it must" : "NOT REFUSED"));
      if (ierr != PETSC_ERR_SUP) fail = PETSC_TRUE;
      PetscCall(DMAssemblyDestroy(&as));
    }
    PetscCall(DestroyProblem(&P));
  }
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", fail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
