/* Element numerical integration for first-order elements (issue 20; Banas, Kruzel, Bielanski): the object
   (reference data from the PetscFE, the paper's quadratures, options, the one-time timed search), the host back end
   (C + OpenMP over elements, the loop bodies of include/petscellwarp/private/dmasmintegrate.h), and the integration
   installed as the element kernels of a DMAssembly (DMAssemblyIntegrationKernels()).  The device back end is
   dmasmintegratecuda.cu, compiled from the same loop bodies. */
#include <petscellwarpintegrate.h>
#include <petscellwarp/private/dmassemblyimpl.h>
/* The host instances integrate one element per call (the header's scalar type).  Built with -DELLWARP_IG_HOST_LANES
   they take DMASM_IG_LANES = 4 consecutive elements per call in the lanes of a vector type instead: on this
   project's 2-core build host (SSE2 code, no -march) that was slower (tet Poisson QSS 76 vs 58 ns per element,
   prism conv-diff 771 vs 527, 2 threads), so it is an option for hosts with wider vectors, to be measured there. */
#if !defined(ELLWARP_IG_HOST_LANES)
  #define DMASM_IG_SCALAR 1
#endif
#include <petscellwarp/private/dmasmintegrate.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petsctime.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

const char *const DMAssemblyIntegrationProblems[] = {"poisson", "cdr", "DMAssemblyIntegrationProblem", "DMASSEMBLY_INTEGRATION_", NULL};
const char *const DMAssemblyIntegrationVariants[] = {"qss", "sqs", "ssq", "auto", "DMAssemblyIntegrationVariant", "DMASSEMBLY_INTEGRATION_", NULL};
static const char *const PlaceNames[]             = {"reg", "coef", "phi", "ae", "reg128", "reg64"};

#define IG_NBLOCK 3
static const int IGBlocks[IG_NBLOCK] = {64, 128, 256};

struct _n_DMAssemblyIntegration {
  DMPolytopeType               ct;
  int                          elem, prob;
  PetscInt                     ns, nq, ncoef;
  DMAsmIntegRef                R;
  PetscQuadrature              quad;
  DMAssemblyIntegrationVariant variant; /* as set (AUTO: searched) */
  PetscInt                     place;   /* device: shared-memory placement, -1 = searched */
  PetscInt                     block;   /* device: threads per block, 0 = searched */
  /* the choice in use and how it was made */
  PetscBool    tunedhost, tuneddev;
  int          hvar, dvar, dplace, dblock;
  PetscReal    hms[3], dms[3][DMASM_IG_NPLACE][IG_NBLOCK]; /* the search's timings (ms; 0: not timed) */
  PetscInt     tunenelem;
  PetscInt     nthreads;
  PetscBool    view; /* -dm_assembly_integration_view: View after each search */
};

static PetscLogEvent DMASM_Integrate = 0;

/*@C
  DMAssemblyIntegrationCreate - the element integration of Banas et al. for a P1 `PetscFE` on tetrahedra or prisms

  Not Collective

  Input Parameters:
+ fe   - a scalar P1 Lagrange `PetscFE` on `DM_POLYTOPE_TETRAHEDRON` or `DM_POLYTOPE_TRI_PRISM` (gives the basis order)
- prob - `DMASSEMBLY_INTEGRATION_POISSON` or `DMASSEMBLY_INTEGRATION_CDR`

  Output Parameter:
. ig - the integration object

  Notes:
  The quadrature is the paper's: 4 points (degree 2) on the tetrahedron, 3 x 2 points (triangle degree 2 x Gauss) on
  the prism.  The element geometry is the P1 map of the vertices (closure order), i.e. the basis itself: the basis
  must be nodal at the reference vertices in closure order (checked).

  Level: intermediate

.seealso: `DMAssemblyIntegrationApply()`, `DMAssemblyIntegrationKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationCreate(PetscFE fe, DMAssemblyIntegrationProblem prob, DMAssemblyIntegration *ig)
{
  DMAssemblyIntegration g;
  PetscDualSpace        sp;
  DM                    rdm, refdm;
  PetscInt              dim, nb, nc, ncx, nq;
  PetscBool             isDG;
  const PetscScalar    *arr;
  PetscScalar          *cx;
  PetscReal             v[6][3], *pts, *wts, vol;
  PetscTabulation       T;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(fe, PETSCFE_CLASSID, 1);
  PetscAssertPointer(ig, 3);
  PetscCheck(prob == DMASSEMBLY_INTEGRATION_POISSON || prob == DMASSEMBLY_INTEGRATION_CDR, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: unknown problem %d", (int)prob);
  PetscCall(DMAssemblyInitializePackage()); /* the class id of the event */
  if (!DMASM_Integrate) PetscCall(PetscLogEventRegister("DMAsmIntegrate", DMASSEMBLY_CLASSID, &DMASM_Integrate));
  PetscCall(PetscFEGetSpatialDimension(fe, &dim));
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(PetscFEGetNumComponents(fe, &nc));
  PetscCall(PetscFEGetDualSpace(fe, &sp));
  PetscCall(PetscDualSpaceGetDM(sp, &refdm));
  PetscCall(PetscNew(&g));
  PetscCall(DMPlexGetCellType(refdm, 0, &g->ct));
  PetscCheck(dim == 3 && nc == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: a scalar field in 3-D (got dim %" PetscInt_FMT ", %" PetscInt_FMT " components)", dim, nc);
  PetscCheck(g->ct == DM_POLYTOPE_TETRAHEDRON || g->ct == DM_POLYTOPE_TRI_PRISM, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: tetrahedra or prisms (DM_POLYTOPE_TRI_PRISM), got %s", DMPolytopeTypes[g->ct]);
  g->elem  = g->ct == DM_POLYTOPE_TETRAHEDRON ? DMASM_IG_TET : DMASM_IG_PRISM;
  g->prob  = (int)prob;
  g->ns    = g->elem == DMASM_IG_TET ? 4 : 6;
  g->nq    = g->ns;
  g->ncoef = prob == DMASSEMBLY_INTEGRATION_POISSON ? g->nq : DMASM_IG_NCDR;
  PetscCheck(nb == g->ns, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: first-order elements only (%s: %" PetscInt_FMT " basis functions, expected %" PetscInt_FMT ")", DMPolytopeTypes[g->ct], nb, g->ns);
  g->variant = DMASSEMBLY_INTEGRATION_AUTO;
  g->place   = -1;
  g->block   = 0;
#if defined(_OPENMP)
  g->nthreads = omp_get_max_threads();
#else
  g->nthreads = 1;
#endif

  /* the reference cell's vertices (closure order) and the paper's quadrature on it */
  PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, g->ct, &rdm));
  PetscCall(DMPlexGetCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
  PetscCheck(ncx == g->ns * 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference cell: %" PetscInt_FMT " coordinates", ncx);
  for (PetscInt a = 0; a < g->ns; a++)
    for (PetscInt d = 0; d < 3; d++) v[a][d] = PetscRealPart(cx[a * 3 + d]);
  PetscCall(DMPlexRestoreCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
  PetscCall(DMDestroy(&rdm));
  nq = g->nq;
  PetscCall(PetscMalloc1(nq * 3, &pts)); /* separate: the quadrature takes and frees them */
  PetscCall(PetscMalloc1(nq, &wts));
  if (g->elem == DMASM_IG_TET) {
    const PetscReal A = 0.5854101966249685, B = 0.1381966011250105;
    PetscReal       e1[3], e2[3], e3[3];
    for (PetscInt d = 0; d < 3; d++) {
      e1[d] = v[1][d] - v[0][d];
      e2[d] = v[2][d] - v[0][d];
      e3[d] = v[3][d] - v[0][d];
    }
    vol = PetscAbsReal(e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) + e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) / 6;
    for (PetscInt q = 0; q < 4; q++) {
      for (PetscInt d = 0; d < 3; d++) {
        pts[q * 3 + d] = 0;
        for (PetscInt a = 0; a < 4; a++) pts[q * 3 + d] += (a == q ? A : B) * v[a][d];
      }
      wts[q] = vol / 4;
    }
  } else { /* a right prism: bottom triangle 0,1,2, top = bottom + h */
    const PetscReal t[2] = {0.5 * (1 - 1 / PetscSqrtReal(3.0)), 0.5 * (1 + 1 / PetscSqrtReal(3.0))};
    PetscReal       h[3], e1[3], e2[3], n[3];
    for (PetscInt d = 0; d < 3; d++) {
      h[d]  = (v[3][d] + v[4][d] + v[5][d] - v[0][d] - v[1][d] - v[2][d]) / 3;
      e1[d] = v[1][d] - v[0][d];
      e2[d] = v[2][d] - v[0][d];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    vol  = PetscAbsReal(n[0] * h[0] + n[1] * h[1] + n[2] * h[2]) / 2;
    for (PetscInt l = 0; l < 2; l++)
      for (PetscInt i = 0; i < 3; i++) {
        const PetscInt q = l * 3 + i;
        for (PetscInt d = 0; d < 3; d++) {
          pts[q * 3 + d] = t[l] * h[d];
          for (PetscInt a = 0; a < 3; a++) pts[q * 3 + d] += (a == i ? 2.0 / 3 : 1.0 / 6) * v[a][d];
        }
        wts[q] = vol / 6;
      }
  }
  /* the basis must be nodal at the vertices in closure order: then sum_a x_a phi_a is the element map */
  {
    PetscReal vv[18];
    for (PetscInt a = 0; a < g->ns; a++)
      for (PetscInt d = 0; d < 3; d++) vv[a * 3 + d] = v[a][d];
    PetscCall(PetscFECreateTabulation(fe, 1, g->ns, vv, 0, &T));
    for (PetscInt a = 0; a < g->ns; a++)
      for (PetscInt b = 0; b < g->ns; b++) PetscCheck(PetscAbsReal(T->T[0][a * nb + b] - (a == b ? 1.0 : 0.0)) < 1e-12, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: basis function %" PetscInt_FMT " is not the nodal function of closure vertex %" PetscInt_FMT " (the geometry is the P1 map of the vertices)", b, a);
    PetscCall(PetscTabulationDestroy(&T));
  }
  PetscCall(PetscFECreateTabulation(fe, 1, nq, pts, 1, &T));
  for (PetscInt q = 0; q < nq; q++) {
    g->R.w[q] = wts[q];
    for (PetscInt a = 0; a < nb; a++) {
      g->R.phi[q][a] = T->T[0][q * nb + a];
      for (PetscInt k = 0; k < 3; k++) g->R.dphi[q][a][k] = T->T[1][(q * nb + a) * 3 + k];
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscQuadratureCreate(PETSC_COMM_SELF, &g->quad));
  PetscCall(PetscQuadratureSetCellType(g->quad, g->ct));
  PetscCall(PetscQuadratureSetData(g->quad, 3, 1, nq, pts, wts)); /* takes pts, wts */
  *ig = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationSetFromOptions - reads the variant and the device tuning parameters

  Options Database Keys:
+ -dm_assembly_integration_variant <qss,sqs,ssq,auto> - loop order (auto: a one-time timed search on the first batch)
. -dm_assembly_integration_placement <reg,coef,phi,ae,reg128,reg64,auto> - device: the one array placed in shared memory (reg: none; reg128/reg64: none, registers capped)
. -dm_assembly_integration_block <n> - device: threads per block (64, 128, 256; 0: searched)
- -dm_assembly_integration_view - `DMAssemblyIntegrationView()` after each search (what was chosen, the timings)

  Level: intermediate

.seealso: `DMAssemblyIntegrationSetVariant()`
@*/
PetscErrorCode DMAssemblyIntegrationSetFromOptions(DMAssemblyIntegration ig, const char prefix[])
{
  PetscInt          place = ig->place < 0 ? DMASM_IG_NPLACE : ig->place;
  PetscBool         set;
  const char *const pl[]  = {"reg", "coef", "phi", "ae", "reg128", "reg64", "auto"};

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_SELF, prefix, "DMAssembly element integration (Banas et al.)", "DMAssembly");
  PetscCall(PetscOptionsEnum("-dm_assembly_integration_variant", "Loop order", "DMAssemblyIntegrationSetVariant", DMAssemblyIntegrationVariants, (PetscEnum)ig->variant, (PetscEnum *)&ig->variant, NULL));
  PetscCall(PetscOptionsEList("-dm_assembly_integration_placement", "Device: the array placed in shared memory", "DMAssemblyIntegrationSetVariant", pl, DMASM_IG_NPLACE + 1, pl[place], &place, &set));
  PetscCall(PetscOptionsInt("-dm_assembly_integration_block", "Device: threads per block (64, 128, 256; 0: searched)", "DMAssemblyIntegrationSetVariant", ig->block, &ig->block, NULL));
  PetscCall(PetscOptionsBool("-dm_assembly_integration_view", "View the choice (and the search's timings) after each search", "DMAssemblyIntegrationView", ig->view, &ig->view, NULL));
  PetscOptionsEnd();
  ig->place = place == DMASM_IG_NPLACE ? -1 : place;
  PetscCheck(ig->block == 0 || ig->block == 64 || ig->block == 128 || ig->block == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_integration_block: 64, 128, 256 or 0 (searched), got %" PetscInt_FMT, ig->block);
  ig->tunedhost = ig->tuneddev = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationSetVariant - sets the loop order and the device parameters

  Input Parameters:
+ ig      - the integration
. variant - `DMASSEMBLY_INTEGRATION_QSS`, `_SQS`, `_SSQ` or `_AUTO` (searched)
. place   - device: 0 registers only, 1 coefficients, 2 shape functions, 3 A^e/b^e in shared memory, 4/5 registers only
            capped at 128/64 per thread; -1 searched
- block   - device: threads per block 64, 128, 256; 0 searched

  Level: intermediate

.seealso: `DMAssemblyIntegrationTune()`
@*/
PetscErrorCode DMAssemblyIntegrationSetVariant(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant variant, PetscInt place, PetscInt block)
{
  PetscFunctionBegin;
  PetscCheck(variant >= DMASSEMBLY_INTEGRATION_QSS && variant <= DMASSEMBLY_INTEGRATION_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "unknown variant %d", (int)variant);
  PetscCheck(place >= -1 && place < DMASM_IG_NPLACE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "placement -1..%d, got %" PetscInt_FMT, DMASM_IG_NPLACE - 1, place);
  PetscCheck(block == 0 || block == 64 || block == 128 || block == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block 64, 128, 256 or 0, got %" PetscInt_FMT, block);
  ig->variant   = variant;
  ig->place     = place;
  ig->block     = block;
  ig->tunedhost = ig->tuneddev = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetVariant - the variant in use (after a search: the winner; before: as set)

  Output Parameters:
+ variant - host winner or the set variant (device: see `DMAssemblyIntegrationView()`)
. place   - device placement in use (-1 before a device search)
- block   - device threads per block (0 before a device search)

  Level: intermediate

.seealso: `DMAssemblyIntegrationSetVariant()`
@*/
PetscErrorCode DMAssemblyIntegrationGetVariant(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant *variant, PetscInt *place, PetscInt *block)
{
  PetscFunctionBegin;
  if (variant) *variant = ig->tuneddev ? (DMAssemblyIntegrationVariant)ig->dvar : ig->tunedhost ? (DMAssemblyIntegrationVariant)ig->hvar : ig->variant;
  if (place) *place = ig->tuneddev ? ig->dplace : ig->place;
  if (block) *block = ig->tuneddev ? ig->dblock : ig->block;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetSizes - shape functions, integration points and coefficients per element

  Level: intermediate

.seealso: `DMAssemblyIntegrationGetQuadrature()`
@*/
PetscErrorCode DMAssemblyIntegrationGetSizes(DMAssemblyIntegration ig, PetscInt *ns, PetscInt *nq, PetscInt *ncoef)
{
  PetscFunctionBegin;
  if (ns) *ns = ig->ns;
  if (nq) *nq = ig->nq;
  if (ncoef) *ncoef = ig->ncoef;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetQuadrature - the quadrature on PETSc's reference cell (borrowed; give it to a `PetscFE` with
  `PetscFESetQuadrature()` for a PETSc reference of the same integration)

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`
@*/
PetscErrorCode DMAssemblyIntegrationGetQuadrature(DMAssemblyIntegration ig, PetscQuadrature *q)
{
  PetscFunctionBegin;
  *q = ig->quad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetCounts - bytes and floating-point operations per element as the paper counts them
  (Tables 3-4: global memory words x 8 bytes; operations after loop-invariant motion and symmetry)

  Level: intermediate

.seealso: `DMAssemblyIntegrationGetSizes()`
@*/
PetscErrorCode DMAssemblyIntegrationGetCounts(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant v, PetscLogDouble *bytes, PetscLogDouble *flops)
{
  PetscFunctionBegin;
  PetscCheck(v >= DMASSEMBLY_INTEGRATION_QSS && v <= DMASSEMBLY_INTEGRATION_SSQ, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "a loop order (qss, sqs, ssq)");
  if (bytes) *bytes = 8.0 * DMAsmIGWords[ig->elem][ig->prob];
  if (flops) *flops = DMAsmIGFlops[v][ig->elem][ig->prob];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the host back end: OpenMP over elements, one compile-time instance per (element, problem, loop order) ---- */
#if defined(_OPENMP)
  #define IG_OMP _Pragma("omp parallel for schedule(static)")
#else
  #define IG_OMP
#endif
/* DMASM_IG_LANES consecutive elements per call (1, or the SIMD lanes with ELLWARP_IG_HOST_LANES); the last incomplete
   group through padded copies (the padding lanes repeat the group's first element: valid geometry, results dropped) */
#define IG_HOST_LOOP(EL, PR, VA) \
  do { \
    const PetscInt W = DMASM_IG_LANES, ng = nelem / W, e0 = ng * W, NS = (EL) == DMASM_IG_TET ? 4 : 6, NC = (PR) == DMASM_IG_POISSON ? NS : DMASM_IG_NCDR; \
    IG_OMP \
    for (PetscInt g = 0; g < ng; g++) { \
      DMAsmIGV cf[DMASM_IG_NCDR], ph[4 * DMASM_IG_MAXS], ae[DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS]; \
      DMAsmIGElement(R, EL, PR, VA, mode, g * W, nelem, xe, coef, cstride, ue, ke, fe, cf, 1, ph, 1, ae, 1); \
    } \
    if (e0 < nelem) { \
      PetscReal   xt[3 * DMASM_IG_MAXS * DMASM_IG_LANES], ct[DMASM_IG_NCDR * DMASM_IG_LANES]; \
      PetscScalar ut[DMASM_IG_MAXS * DMASM_IG_LANES], kt[DMASM_IG_MAXS * DMASM_IG_MAXS * DMASM_IG_LANES], ft[DMASM_IG_MAXS * DMASM_IG_LANES]; \
      DMAsmIGV    cf[DMASM_IG_NCDR], ph[4 * DMASM_IG_MAXS], ae[DMASM_IG_MAXS * DMASM_IG_MAXS + DMASM_IG_MAXS]; \
      for (PetscInt l = 0; l < W; l++) { \
        const PetscInt es = e0 + (e0 + l < nelem ? l : 0); \
        for (PetscInt k = 0; k < 3 * NS; k++) xt[k * W + l] = xe[k * nelem + es]; \
        for (PetscInt k = 0; k < NC; k++) ct[k * W + l] = coef[k * cstride + es]; \
        for (PetscInt k = 0; k < NS; k++) ut[k * W + l] = mode == DMASM_IG_MODE_RES ? ue[k * nelem + es] : 0; \
      } \
      DMAsmIGElement(R, EL, PR, VA, mode, 0, W, xt, ct, W, ut, kt, ft, cf, 1, ph, 1, ae, 1); \
      for (PetscInt l = 0; e0 + l < nelem; l++) { \
        if (mode != DMASM_IG_MODE_RES) \
          for (PetscInt k = 0; k < NS * NS; k++) ke[k * nelem + e0 + l] = kt[k * W + l]; \
        if (mode != DMASM_IG_MODE_JAC) \
          for (PetscInt k = 0; k < NS; k++) fe[k * nelem + e0 + l] = ft[k * W + l]; \
      } \
    } \
  } while (0)
#define IG_HOST_VAR(EL, PR) \
  do { \
    if (var == DMASM_IG_QSS) IG_HOST_LOOP(EL, PR, DMASM_IG_QSS); \
    else if (var == DMASM_IG_SQS) IG_HOST_LOOP(EL, PR, DMASM_IG_SQS); \
    else IG_HOST_LOOP(EL, PR, DMASM_IG_SSQ); \
  } while (0)

static void HostRun(const DMAsmIntegRef *R, int elem, int prob, int var, int mode, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  if (elem == DMASM_IG_TET) {
    if (prob == DMASM_IG_POISSON) IG_HOST_VAR(DMASM_IG_TET, DMASM_IG_POISSON);
    else IG_HOST_VAR(DMASM_IG_TET, DMASM_IG_CDR);
  } else {
    if (prob == DMASM_IG_POISSON) IG_HOST_VAR(DMASM_IG_PRISM, DMASM_IG_POISSON);
    else IG_HOST_VAR(DMASM_IG_PRISM, DMASM_IG_CDR);
  }
}

static PetscErrorCode CheckArgs(DMAssemblyIntegration ig, DMAssemblyIntegrationOutput out, PetscInt nelem, PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  PetscFunctionBegin;
  PetscCheck(nelem >= 0 && cstride >= nelem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: coefficient stride %" PetscInt_FMT " < %" PetscInt_FMT " elements", cstride, nelem);
  PetscCheck(out != DMASSEMBLY_INTEGRATION_OUT_RES || (ue && fe), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: the residual needs ue and fe");
  PetscCheck(out == DMASSEMBLY_INTEGRATION_OUT_RES || ke, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: no ke");
  PetscCheck(out != DMASSEMBLY_INTEGRATION_OUT_AB || fe, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: no fe for b^e");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationTune - the one-time timed search: on the host every loop order (OpenMP back end), on the device
  every loop order x shared-memory placement x block size that is not fixed; the fastest is kept

  Input Parameters:
+ ig      - the integration
. mtype   - where (`PETSC_MEMTYPE_HOST` or `PETSC_MEMTYPE_DEVICE`; the arrays must live there)
. out     - what is written
. nelem   - elements
. xe      - coordinates `[ns*3][nelem]`
. coef    - coefficients `[ncoef][cstride]`
. cstride - coefficient stride (>= nelem)
- ue      - element solution `[ns][nelem]` (residual only)

  Output Parameters:
+ ke - element matrices `[ns*ns][nelem]` (overwritten by the candidates)
- fe - element vectors `[ns][nelem]`

  Level: advanced

.seealso: `DMAssemblyIntegrationApply()`, `DMAssemblyIntegrationView()`
@*/
PetscErrorCode DMAssemblyIntegrationTune(DMAssemblyIntegration ig, PetscMemType mtype, DMAssemblyIntegrationOutput out, PetscInt nelem, const PetscReal xe[], const PetscReal coef[], PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  const int v0 = ig->variant == DMASSEMBLY_INTEGRATION_AUTO ? 0 : (int)ig->variant, v1 = ig->variant == DMASSEMBLY_INTEGRATION_AUTO ? 2 : (int)ig->variant;

  PetscFunctionBegin;
  PetscCall(CheckArgs(ig, out, nelem, cstride, ue, ke, fe));
  ig->tunenelem = nelem;
  if (PetscMemTypeHost(mtype)) {
    PetscReal best = PETSC_MAX_REAL;
    for (int v = 0; v < 3; v++) ig->hms[v] = 0;
    for (int v = v0; v <= v1; v++) {
      PetscReal ms = PETSC_MAX_REAL;
      HostRun(&ig->R, ig->elem, ig->prob, v, (int)out, nelem, xe, coef, cstride, ue, ke, fe); /* warm-up */
      for (int r = 0; r < 3; r++) {
        PetscLogDouble t0, t1;
        PetscCall(PetscTime(&t0));
        HostRun(&ig->R, ig->elem, ig->prob, v, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
        PetscCall(PetscTime(&t1));
        ms = PetscMin(ms, (PetscReal)(1e3 * (t1 - t0)));
      }
      ig->hms[v] = ms;
      if (ms < best) {
        best     = ms;
        ig->hvar = v;
      }
    }
    ig->tunedhost = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "DMAssemblyIntegration host search on %" PetscInt_FMT " elements: %s (%g ms)\n", nelem, DMAssemblyIntegrationVariants[ig->hvar], (double)best));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    const int p0 = ig->place < 0 ? 0 : (int)ig->place, p1 = ig->place < 0 ? DMASM_IG_NPLACE - 1 : (int)ig->place;
    PetscReal best = PETSC_MAX_REAL;
    for (int v = 0; v < 3; v++)
      for (int p = 0; p < DMASM_IG_NPLACE; p++)
        for (int b = 0; b < IG_NBLOCK; b++) ig->dms[v][p][b] = 0;
    for (int v = v0; v <= v1; v++)
      for (int p = p0; p <= p1; p++)
        for (int b = 0; b < IG_NBLOCK; b++) {
          PetscReal ms;
          if (ig->block && IGBlocks[b] != ig->block) continue;
          PetscCall(DMAsmIGCUDATime(&ig->R, ig->elem, ig->prob, v, p, IGBlocks[b], (int)out, nelem, xe, coef, cstride, ue, ke, fe, 3, &ms));
          ig->dms[v][p][b] = ms;
          if (ms < best) {
            best       = ms;
            ig->dvar   = v;
            ig->dplace = p;
            ig->dblock = IGBlocks[b];
          }
        }
    ig->tuneddev = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "DMAssemblyIntegration device search on %" PetscInt_FMT " elements: %s, placement %s, %d threads (%g ms)\n", nelem, DMAssemblyIntegrationVariants[ig->dvar], PlaceNames[ig->dplace], ig->dblock, (double)best));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssemblyIntegration: device memory, but built without CUDA");
#endif
  }
  if (ig->view) PetscCall(DMAssemblyIntegrationView(ig, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationApply - integrates nelem elements (host: OpenMP over elements; device: one CUDA launch)

  Input Parameters:
+ ig      - the integration
. mtype   - where the arrays live (and the kernel runs)
. out     - `DMASSEMBLY_INTEGRATION_OUT_AB` (A^e -> ke, b^e -> fe), `_JAC` (ke) or `_RES` (A^e u^e - b^e -> fe)
. nelem   - elements
. xe      - vertex coordinates `xe[(a*3+d)*nelem+e]` (closure order)
. coef    - coefficients `coef[k*cstride+e]`: Poisson: the source at point k; conv-diff: `c^{i;j}` at k = 4i+j, `d^i` at 16+i
. cstride - coefficient stride
- ue      - element solution `ue[a*nelem+e]` (residual only)

  Output Parameters:
+ ke - `ke[(a*ns+b)*nelem+e]`
- fe - `fe[a*nelem+e]`

  Notes:
  With a searched variant (auto) the first call runs `DMAssemblyIntegrationTune()` on its own arguments.

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`, `DMAssemblyIntegrationKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationApply(DMAssemblyIntegration ig, PetscMemType mtype, DMAssemblyIntegrationOutput out, PetscInt nelem, const PetscReal xe[], const PetscReal coef[], PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  PetscLogDouble flops;

  PetscFunctionBegin;
  PetscCall(CheckArgs(ig, out, nelem, cstride, ue, ke, fe));
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(DMASM_Integrate, 0, 0, 0, 0));
  if (PetscMemTypeHost(mtype)) {
    int v = (int)ig->variant;
    if (ig->variant == DMASSEMBLY_INTEGRATION_AUTO) {
      if (!ig->tunedhost) PetscCall(DMAssemblyIntegrationTune(ig, mtype, out, nelem, xe, coef, cstride, ue, ke, fe));
      v = ig->hvar;
    }
    HostRun(&ig->R, ig->elem, ig->prob, v, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
    flops = DMAsmIGFlops[v][ig->elem][ig->prob];
    PetscCall(PetscLogFlops(flops * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    int v = (int)ig->variant, p = (int)ig->place, b = (int)ig->block;
    if (ig->variant == DMASSEMBLY_INTEGRATION_AUTO || p < 0 || !b) {
      if (!ig->tuneddev) PetscCall(DMAssemblyIntegrationTune(ig, mtype, out, nelem, xe, coef, cstride, ue, ke, fe));
      v = ig->dvar;
      p = ig->dplace;
      b = ig->dblock;
    }
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(DMAsmIGCUDAApply(&ig->R, ig->elem, ig->prob, v, p, b, (int)out, nelem, xe, coef, cstride, ue, ke, fe));
    PetscCall(PetscLogGpuTimeEnd());
    flops = DMAsmIGFlops[v][ig->elem][ig->prob];
    PetscCall(PetscLogGpuFlops(flops * nelem));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssemblyIntegration: device memory, but built without CUDA");
#endif
  }
  PetscCall(PetscLogEventEnd(DMASM_Integrate, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationView - what was chosen and why (set, or the search's winner with its timings)

  Level: intermediate

.seealso: `DMAssemblyIntegrationTune()`
@*/
PetscErrorCode DMAssemblyIntegrationView(DMAssemblyIntegration ig, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_SELF, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "element integration (Banas et al.): %s, %s, %" PetscInt_FMT " shape functions, %" PetscInt_FMT " points (%s), %" PetscInt_FMT " coefficients per element\n", DMPolytopeTypes[ig->ct], ig->prob == DMASM_IG_POISSON ? "Poisson" : "conv-diff", ig->ns, ig->nq, ig->elem == DMASM_IG_TET ? "geo_linear" : "geo_generic", ig->ncoef));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ig->tunedhost)
    PetscCall(PetscViewerASCIIPrintf(viewer, "host (%" PetscInt_FMT " OpenMP threads): %s, the fastest of the search on %" PetscInt_FMT " elements (ms: qss %.4g, sqs %.4g, ssq %.4g; 0 = not run)\n", ig->nthreads, DMAssemblyIntegrationVariants[ig->hvar], ig->tunenelem, (double)ig->hms[0], (double)ig->hms[1], (double)ig->hms[2]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "host (%" PetscInt_FMT " OpenMP threads): %s%s\n", ig->nthreads, DMAssemblyIntegrationVariants[ig->variant], ig->variant == DMASSEMBLY_INTEGRATION_AUTO ? " (searched at the first call)" : " (set)"));
  if (ig->tuneddev) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "device: %s, shared memory: %s, %d threads per block: the fastest of the search (ms per launch):\n", DMAssemblyIntegrationVariants[ig->dvar], PlaceNames[ig->dplace], ig->dblock));
    for (int v = 0; v < 3; v++)
      for (int p = 0; p < DMASM_IG_NPLACE; p++)
        if (ig->dms[v][p][0] > 0 || ig->dms[v][p][1] > 0 || ig->dms[v][p][2] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s %-4s: %.4g %.4g %.4g (64/128/256 threads)\n", DMAssemblyIntegrationVariants[v], PlaceNames[p], (double)ig->dms[v][p][0], (double)ig->dms[v][p][1], (double)ig->dms[v][p][2]));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "device: %s, shared memory %s, block %" PetscInt_FMT " (0/auto: searched at the first device call)\n", DMAssemblyIntegrationVariants[ig->variant], ig->place < 0 ? "auto" : PlaceNames[ig->place], ig->block));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationDestroy - destroys the integration

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`
@*/
PetscErrorCode DMAssemblyIntegrationDestroy(DMAssemblyIntegration *ig)
{
  PetscFunctionBegin;
  if (!*ig) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscQuadratureDestroy(&(*ig)->quad));
  PetscCall(PetscFree(*ig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the integration as the element kernels of a DMAssembly ---------------------------------------------------- */
typedef struct {
  DMAssemblyIntegration ig;
  PetscInt              nelem, ncoef;
  PetscReal            *coef;  /* [ncoef][nelem], cell order */
  PetscReal            *dcoef; /* the same on the device, uploaded at the first device call */
} IGKernelCtx;

static PetscErrorCode IGCtxDestroy(void **ctx)
{
  IGKernelCtx *c = (IGKernelCtx *)*ctx;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMAssemblyIntegrationDestroy(&c->ig));
  PetscCall(PetscFree(c->coef));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&c->dcoef));
#endif
  PetscCall(PetscFree(c));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGRun(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, IGKernelCtx *c)
{
  const PetscReal *coef = c->coef;

  PetscFunctionBegin;
  PetscCheck(e0 >= 0 && e0 + nelem <= c->nelem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration kernels: batch [%" PetscInt_FMT ", %" PetscInt_FMT ") outside the %" PetscInt_FMT " cells the coefficients were given for", e0, e0 + nelem, c->nelem);
  if (!PetscMemTypeHost(mtype)) {
#if defined(ELLWARP_HAVE_CUDA)
    if (!c->dcoef) {
      PetscCall(DMAsmCUDAMalloc((void **)&c->dcoef, sizeof(PetscReal) * c->ncoef * c->nelem));
      PetscCall(DMAsmCUDAUpload(c->dcoef, c->coef, sizeof(PetscReal) * c->ncoef * c->nelem));
    }
    coef = c->dcoef;
#endif
  }
  PetscCall(DMAssemblyIntegrationApply(c->ig, mtype, ke ? DMASSEMBLY_INTEGRATION_OUT_JAC : DMASSEMBLY_INTEGRATION_OUT_RES, nelem, xe, coef + e0, c->nelem, ue, ke, fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGResidual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  PetscCall(IGRun(mtype, e0, nelem, xe, ue, NULL, fe, (IGKernelCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGJacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  (void)ue;
  PetscCall(IGRun(mtype, e0, nelem, xe, NULL, ke, NULL, (IGKernelCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationKernels - the element integration of Banas et al. as the element kernels of a `DMAssembly`
  (P1 tetrahedra or prisms): Jacobian A^e, residual A^e u^e - b^e

  Logically Collective

  Input Parameters:
+ as   - the assembler (its DM: one scalar P1 `PetscFE` on tetrahedra or prisms)
. prob - `DMASSEMBLY_INTEGRATION_POISSON` or `DMASSEMBLY_INTEGRATION_CDR`
- coef - host, cell-major `[ncells][ncoef]` in the DM's cell order (copied): Poisson: the source at the points of
         `DMAssemblyIntegrationGetQuadrature()` (ncoef = 4 tets, 6 prisms); conv-diff: c^{i;j} at 4i+j, d^i at 16+i (ncoef 20)

  Output Parameter:
. k - the kernels, to pass to `DMAssemblySetElementKernels()`; their context belongs to `as`

  Options Database Keys:
  see `DMAssemblyIntegrationSetFromOptions()` (read here, with the assembler's prefix)

  Notes:
  The kernels are user kernels to the assembler (the elements keep the mesh's cell order): globalnz, host, atomic
  and color reduce their element buffers; the chosen variant runs on the host (OpenMP) or the device like the
  assembler.  The Jacobian does not read the state (`DMAssemblySetJacobianUsesState(as, PETSC_FALSE)`).

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`, `DMAssemblySetElementKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationKernels(DMAssembly as, DMAssemblyIntegrationProblem prob, const PetscReal coef[], DMAssemblyElementKernels *k)
{
  IGKernelCtx *c;
  PetscObject  obj;
  PetscClassId id;
  PetscInt     nf, cStart, cEnd;
  const char  *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(coef, 3);
  PetscAssertPointer(k, 4);
  PetscCheck(!as->eperm, PETSC_COMM_SELF, PETSC_ERR_ORDER, "DMAssemblyIntegrationKernels: the assembler renumbered its elements for built-in kernels; create a new DMAssembly (per-element coefficients are in cell order)");
  PetscCall(DMGetNumFields(as->dm, &nf));
  PetscCheck(nf == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegrationKernels: one field, got %" PetscInt_FMT, nf);
  PetscCall(DMGetField(as->dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegrationKernels: the field must be a PetscFE");
  PetscCall(PetscNew(&c));
  PetscCall(DMAssemblyIntegrationCreate((PetscFE)obj, prob, &c->ig));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)as, &prefix));
  PetscCall(DMAssemblyIntegrationSetFromOptions(c->ig, prefix));
  PetscCall(DMPlexGetHeightStratum(as->dm, 0, &cStart, &cEnd));
  c->nelem = cEnd - cStart;
  c->ncoef = c->ig->ncoef;
  PetscCall(PetscMalloc1((size_t)c->ncoef * c->nelem, &c->coef));
  for (PetscInt e = 0; e < c->nelem; e++)
    for (PetscInt i = 0; i < c->ncoef; i++) c->coef[(size_t)i * c->nelem + e] = coef[(size_t)e * c->ncoef + i];
  if (as->ownctxdestroy) PetscCall((*as->ownctxdestroy)(&as->ownctx));
  as->ownctx        = c;
  as->ownctxdestroy = IGCtxDestroy;
  as->builtin       = NULL; /* user kernels to the assembler: no fused paths, cell order */
  as->hobuiltin     = NULL;
  PetscCall(DMAssemblySetJacobianUsesState(as, PETSC_FALSE));
  k->nen      = c->ig->ns;
  k->residual = IGResidual;
  k->jacobian = IGJacobian;
  k->ctx      = c;
  PetscCall(PetscInfo(as, "Element integration kernels: %s, %s\n", DMPolytopeTypes[c->ig->ct], DMAssemblyIntegrationProblems[prob]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host FMA throughput: per thread 32 independent chains the compiler may vectorise (the same flags as the back end) */
static double HostFMA(int iters)
{
  double acc[32], s = 0;
  for (int j = 0; j < 32; j++) acc[j] = j;
  for (int i = 0; i < iters; i++) {
#if defined(_OPENMP)
  #pragma omp simd
#endif
    for (int j = 0; j < 32; j++) acc[j] = acc[j] * 0.999999 + 1e-7;
  }
  for (int j = 0; j < 32; j++) s += acc[j];
  return s;
}

/*@C
  DMAssemblyIntegrationRoofline - measures the bound the integration is compared with: the copy bandwidth (a copy of n
  doubles, bytes read + written per second) and the FMA throughput (independent FMA chains, 2 flops each), on the host
  (all OpenMP threads, the library's compiler flags) or on the device (CUDA kernels)

  Not Collective

  Input Parameters:
+ mtype - `PETSC_MEMTYPE_HOST` or `PETSC_MEMTYPE_DEVICE`
- n     - doubles per copied array (well beyond the last-level cache)

  Output Parameters:
+ bw    - bytes per second
- flops - floating-point operations per second

  Level: developer

.seealso: `DMAssemblyIntegrationGetCounts()`
@*/
PetscErrorCode DMAssemblyIntegrationRoofline(PetscMemType mtype, PetscInt n, PetscReal *bw, PetscReal *flops)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype)) {
    double        *x, *y, best = 1e30, sink = 0;
    const int      iters = 1 << 20;
    PetscInt       nt    = 1;
    PetscLogDouble t0, t1;
#if defined(_OPENMP)
    nt = omp_get_max_threads();
#endif
    PetscCall(PetscMalloc2(n, &x, n, &y));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
    for (PetscInt i = 0; i < n; i++) x[i] = y[i] = (double)i; /* first touch by the thread that copies it */
    for (int r = 0; r < 6; r++) {
      PetscCall(PetscTime(&t0));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
      for (PetscInt i = 0; i < n; i++) y[i] = x[i];
      PetscCall(PetscTime(&t1));
      if (r) best = PetscMin(best, t1 - t0);
    }
    *bw  = 2.0 * sizeof(double) * n / best;
    best = 1e30;
    for (int r = 0; r < 3; r++) {
      PetscCall(PetscTime(&t0));
#if defined(_OPENMP)
  #pragma omp parallel reduction(+ : sink)
#endif
      sink += HostFMA(iters);
      PetscCall(PetscTime(&t1));
      best = PetscMin(best, t1 - t0);
    }
    *flops = 2.0 * 32 * iters * (double)nt / best;
    if (sink == 12345.678) *flops = 0; /* keeps the chains alive */
    PetscCall(PetscFree2(x, y));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmIGCUDARoofline(n, bw, flops));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "built without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
